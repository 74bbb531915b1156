/* Provokes late_broadcast: the root of a broadcast arrives late. In each of ROUNDS rounds all
 * ranks leave a barrier together, the root (rank 0) then works (sleeps) MS milliseconds
 * before MPI_Bcast, while the others enter MPI_Bcast at once and wait for it. With the
 * defaults (10 rounds, 20 ms) every non-root waits about 200 ms: 600 ms at 4 ranks.
 * Usage: late_broadcast [-i ROUNDS] [-d MS] */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 20};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "late_broadcast");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double data[16] = {0};
    for (long i = 0; i < o.rounds; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            sample_sleep_ms(o.ms); /* the root prepares the data late */
            data[i % 16] = (double)i;
        }
        MPI_Bcast(data, 16, MPI_DOUBLE, 0, MPI_COMM_WORLD); /* PROBLEM late_broadcast */
    }
    if (rank == 0)
        printf("late_broadcast: %ld rounds, root late by %g ms each\n", o.rounds, o.ms);
    MPI_Finalize();
    return 0;
}
