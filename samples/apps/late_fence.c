/* Provokes rma_wait_at_fence: load imbalance before MPI_Win_fence. In each of ROUNDS rounds
 * rank r "computes" (sleeps) r * MS milliseconds, puts one integer into its right
 * neighbour's window and closes the epoch with MPI_Win_fence. The fence cannot complete
 * before the last rank enters it, so rank r waits (P - 1 - r) * MS per round: with the
 * defaults (10 rounds, 20 ms) at 4 ranks, 600, 400, 200 and 0 ms on ranks 0-3.
 * Usage: late_fence [-i ROUNDS] [-d MS] */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 20};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "late_fence");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *base, v = rank;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    /* the opening fence is entered together (after the barrier): only the closing fences
     * carry the imbalance */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_fence(0, win);
    for (long i = 0; i < o.rounds; i++) {
        sample_sleep_ms(rank * o.ms); /* the imbalance */
        MPI_Put(&v, 1, MPI_INT, (rank + 1) % size, (int)(i % 64), 1, MPI_INT, win);
        MPI_Win_fence(0, win); /* PROBLEM rma_wait_at_fence */
    }
    if (rank == 0)
        printf("late_fence: %ld rounds, rank r waits (P-1-r) x %g ms per fence\n", o.rounds,
               o.ms);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
