/* Provokes wait_at_barrier: load imbalance before a barrier. In each of ROUNDS rounds rank r
 * "computes" (sleeps) r * MS milliseconds, then all ranks meet at MPI_Barrier. The last rank
 * arrives last, so rank r waits (P - 1 - r) * MS per round: with the defaults (10 rounds,
 * 20 ms) at 4 ranks, 600, 400, 200 and 0 ms on ranks 0-3, 1200 ms in all.
 * Usage: imbalance_barrier [-i ROUNDS] [-d MS] */
#include "sample.h"

static void work(int rank, double ms)
{
    sample_sleep_ms(rank * ms); /* the imbalance */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 20};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "imbalance_barrier");
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < o.rounds; i++) {
        work(rank, o.ms);
        MPI_Barrier(MPI_COMM_WORLD); /* PROBLEM wait_at_barrier */
    }
    if (rank == 0)
        printf("imbalance_barrier: %ld rounds, rank r waits (P-1-r) x %g ms per round\n",
               o.rounds, o.ms);
    MPI_Finalize();
    return 0;
}
