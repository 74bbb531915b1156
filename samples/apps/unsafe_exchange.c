/* Provokes unsafe_exchange: two processes swap data with a blocking MPI_Send followed by an
 * MPI_Recv on both sides. That only works while MPI buffers the message (the eager protocol);
 * above the eager limit both sends wait for a receive that is never posted and the program
 * hangs (the MPI standard calls such a program unsafe, "Semantics of point-to-point
 * communication"). MPI_Sendrecv does the same exchange safely and overlaps both directions.
 * Ranks pair as r and r ^ 1 (an even count is needed). Each of ROUNDS rounds does the unsafe
 * exchange of N doubles (default 128: 1 KiB, under every eager limit), then a safe one as a
 * control (the even rank sends first, the odd one receives first). With the defaults (10
 * rounds) at 4 ranks: 40 unsafe exchanges seen from each side, one per rank and round.
 * Usage: unsafe_exchange [-i ROUNDS] [-n N] */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .n = 128};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-n N]");
    sample_need_ranks(2, "unsafe_exchange");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2)
        sample_fatal("unsafe_exchange: needs an even number of ranks, got %d", size);
    double *out = calloc((size_t)o.n, sizeof *out), *in = calloc((size_t)o.n, sizeof *in);
    if (!out || !in)
        sample_fatal("unsafe_exchange: out of memory");
    int peer = rank ^ 1, n = (int)o.n;
    for (long i = 0; i < o.rounds; i++) {
        out[0] = (double)i;
        MPI_Send(out, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD); /* PROBLEM unsafe_exchange */
        MPI_Recv(in, n, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* control: ordered by rank parity, safe whatever the size */
        if (rank % 2 == 0) {
            MPI_Send(out, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
            MPI_Recv(in, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("unsafe_exchange: %ld rounds, %ld unsafe exchanges per side\n", o.rounds,
               o.rounds * size);
    free(out);
    free(in);
    MPI_Finalize();
    return 0;
}
