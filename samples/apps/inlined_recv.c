/* A late sender whose MPI_Recv sits in a static function the compiler inlines into main
 * (always_inline, built with -O2 -g like every sample): the call site must name the source
 * function, "exchange (inlined into main)", from the DWARF inline scopes, not only the
 * symbol main. In each of ROUNDS rounds every odd rank sleeps MS milliseconds and sends to
 * the even rank below it, which waits in MPI_Recv: with the defaults (10 rounds, 20 ms) at
 * 4 ranks, ranks 0 and 2 wait about 200 ms each.
 * Usage: inlined_recv [-i ROUNDS] [-d MS] */
#include "sample.h"

/* always_inline: the point of the program is a call site inside an inlined body, whatever
 * the compiler's heuristics would decide for one call */
static inline __attribute__((always_inline)) void exchange(int rank, int size, int *buf,
                                                             double ms)
{
    if (rank % 2 == 0 && rank + 1 < size) {
        /* PROBLEM late_sender */
        MPI_Recv(buf, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank % 2 == 1) {
        sample_sleep_ms(ms); /* the late sender */
        MPI_Send(buf, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 20};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "inlined_recv");
    int rank, size, buf = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long i = 0; i < o.rounds; i++)
        exchange(rank, size, &buf, o.ms);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("inlined_recv: %ld rounds, even ranks wait %g ms per round\n", o.rounds, o.ms);
    MPI_Finalize();
    return 0;
}
