/* Provokes rma_late_post: origins start an access epoch before the target exposes its
 * window. In each of ROUNDS rounds the last rank (the target) works (sleeps) MS milliseconds
 * before MPI_Win_post, while every other rank calls MPI_Win_start, MPI_Put and
 * MPI_Win_complete at once and is held until the post. With the defaults (10 rounds,
 * 20 ms) each origin waits about 200 ms: 600 ms at 4 ranks. Open MPI may return from
 * MPI_Win_start at once and block in MPI_Put or MPI_Win_complete; the analysis charges the
 * call that waited.
 * Usage: late_post [-i ROUNDS] [-d MS] */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 20};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "late_post");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *base, target = size - 1, v = rank;
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Group world, origins, tgt;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_excl(world, 1, &target, &origins);
    MPI_Group_incl(world, 1, &target, &tgt);
    for (long i = 0; i < o.rounds; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == target) {
            sample_sleep_ms(o.ms); /* the target is busy before it exposes the window */
            MPI_Win_post(origins, 0, win);
            MPI_Win_wait(win);
        } else {
            MPI_Win_start(tgt, 0, win); /* PROBLEM rma_late_post */
            MPI_Put(&v, 1, MPI_INT, target, rank, 1, MPI_INT, win);
            MPI_Win_complete(win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("late_post: %ld rounds, target posts %g ms late\n", o.rounds, o.ms);
    MPI_Group_free(&tgt);
    MPI_Group_free(&origins);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
