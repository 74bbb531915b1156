/* Provokes rma_lock_contention: ranks queue for the exclusive lock of one window. In each of
 * ROUNDS rounds rank 0 locks the last rank's window exclusively, puts a value and holds the
 * lock for MS milliseconds; rank 1 asks for the same lock MS / 10 later and waits until it
 * is released (about 0.9 MS). With the defaults (10 rounds, 20 ms) rank 1 waits about
 * 180 ms; the other ranks wait at the next barrier meanwhile. Open MPI may acquire the lock
 * lazily, so the wait can show in MPI_Put or MPI_Win_unlock instead of MPI_Win_lock; the
 * analysis charges whichever call blocked.
 * Usage: lock_contention [-i ROUNDS] [-d MS] */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 20};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "lock_contention");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *base, target = size - 1, v = rank;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (long i = 0; i < o.rounds; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) { /* the holder */
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
            MPI_Put(&v, 1, MPI_INT, target, 0, 1, MPI_INT, win);
            sample_sleep_ms(o.ms);
            MPI_Win_unlock(target, win);
        } else if (rank == 1) { /* the one that waits */
            sample_sleep_ms(o.ms / 10);
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win); /* PROBLEM rma_lock_contention */
            MPI_Put(&v, 1, MPI_INT, target, 1, 1, MPI_INT, win);
            MPI_Win_unlock(target, win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("lock_contention: %ld rounds, lock held %g ms, asked for %g ms later\n",
               o.rounds, o.ms, o.ms / 10);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
