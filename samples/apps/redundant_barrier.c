/* Provokes redundant_barrier: an MPI_Barrier directly followed by a collective that
 * synchronises the processes anyway (here MPI_Allreduce) on the same communicator, so the
 * barrier only adds its own latency. In each of ROUNDS rounds rank r sleeps r * MS ms, then
 * calls MPI_Barrier and MPI_Allreduce on MPI_COMM_WORLD. Two barriers that are not the problem
 * follow as controls: one on a duplicate of MPI_COMM_WORLD before an Allreduce on
 * MPI_COMM_WORLD (another communicator), one before a point-to-point ring shift. With the
 * defaults (10 rounds, 5 ms) at 4 ranks: 40 redundant barriers, one per rank and round.
 * Usage: redundant_barrier [-i ROUNDS] [-d MS] */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 5};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "redundant_barrier");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    double x = rank, sum = 0, left = 0;
    for (long i = 0; i < o.rounds; i++) {
        sample_sleep_ms(rank * o.ms); /* some imbalance: the barrier waits too */
        MPI_Barrier(MPI_COMM_WORLD); /* PROBLEM redundant_barrier */
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        /* control: the collective after it is on another communicator */
        MPI_Barrier(dup);
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        /* control: what follows is point-to-point */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Sendrecv(&x, 1, MPI_DOUBLE, (rank + 1) % size, 0, &left, 1, MPI_DOUBLE,
                     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&dup);
    if (rank == 0)
        printf("redundant_barrier: %ld rounds, %ld redundant barriers (sum %g)\n", o.rounds,
               o.rounds * size, sum);
    MPI_Finalize();
    return 0;
}
