/* Provokes early_reduce: the root of a reduction arrives before its senders. In each of
 * ROUNDS rounds all ranks leave a barrier together, every non-root works (sleeps) MS
 * milliseconds before MPI_Reduce, and the root (rank 0) enters at once and waits for the
 * last of them. With the defaults (10 rounds, 20 ms) the root waits about 200 ms.
 * Usage: early_reduce [-i ROUNDS] [-d MS] */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 20};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "early_reduce");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double part = 0, sum = 0;
    for (long i = 0; i < o.rounds; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank != 0)
            sample_sleep_ms(o.ms); /* the senders compute their part */
        part = (double)(rank + i);
        /* PROBLEM early_reduce (charged to the next line) */
        MPI_Reduce(&part, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("early_reduce: %ld rounds, senders late by %g ms each, last sum %g\n", o.rounds,
               o.ms, sum);
    MPI_Finalize();
    return 0;
}
