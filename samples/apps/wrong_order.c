/* Provokes late_sender_wrong_order: messages received in another order than sent. Ranks
 * pair up (0 with 1, 2 with 3, ...). In each of ROUNDS rounds the even rank sends tag 1, works
 * (sleeps) MS milliseconds and sends tag 2; the odd rank receives tag 2 first, so it waits
 * for the late second message while the first one has long arrived. With the defaults
 * (10 rounds, 20 ms) each odd rank waits about 200 ms (400 ms at 4 ranks).
 * Usage: wrong_order [-i ROUNDS] [-d MS]   (an even number of ranks) */
#include "sample.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 10, .ms = 20};
    sample_parse(argc, argv, &o, "[-i ROUNDS] [-d MS]");
    sample_need_ranks(2, "wrong_order");
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2)
        sample_fatal("wrong_order needs an even number of ranks (got %d)", size);
    int peer = rank ^ 1, a = rank, b = 0, sum = 0;
    for (long i = 0; i < o.rounds; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank % 2 == 0) {
            MPI_Send(&a, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
            sample_sleep_ms(o.ms);
            MPI_Send(&a, 1, MPI_INT, peer, 2, MPI_COMM_WORLD);
        } else {
            /* PROBLEM late_sender_wrong_order (charged to the next line) */
            MPI_Recv(&b, 1, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += b;
            MPI_Recv(&b, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += b;
        }
    }
    if (rank == 0)
        printf("wrong_order: %ld rounds, second message late by %g ms each\n", o.rounds, o.ms);
    MPI_Finalize();
    return sum < 0;
}
