/* A 0-byte ping-pong between ranks 0 and 1: the program on which the trace collector's
 * overhead is measured as a user sees it, whole program traced against untraced
 * (scripts/bench.d/trace_whole.sh, docs/trace.md). Each round trip is one MPI_Send and one
 * MPI_Recv on each of the two ranks; other ranks only start and finish.
 * Usage: pingpong [-i ROUNDS]   (default 100000 round trips)
 * Rank 0 prints the round trips and the time of the loop alone, so that the rest of the
 * whole-program difference can be told apart as start-up and finalize cost. */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 100000};
    sample_parse(argc, argv, &o, "[-i ROUNDS]");
    sample_need_ranks(2, "pingpong");
    int rank;
    char b = 0; /* never read: 0-byte messages carry no data */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long i = 0; i < o.rounds && rank < 2; i++) {
        if (rank == 0) {
            MPI_Send(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
    double t = MPI_Wtime() - t0;
    if (rank == 0) /* loop time per call of one rank: 2 calls per round trip */
        printf("pingpong: %ld round trips, loop %.6f s, %.1f ns per call\n", o.rounds, t,
               t / (2.0 * (double)o.rounds) * 1e9);
    MPI_Finalize();
    return 0;
}
