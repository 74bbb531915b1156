/* Jacobi relaxation, naive version (Dergunov's experiment): each iteration computes the whole block,
 * then exchanges halo rows with blocking MPI_Send/MPI_Recv: send up and receive from below,
 * then send down and receive from above. Every receive waits for a neighbour that has
 * finished its whole computation, so any imbalance or noise (-j) becomes late-sender time,
 * and large rows make the blocking sends run as a chain along the ranks.
 * Usage: jacobi_naive [-n N] [-i ITERATIONS] [-j JITTER_MS] [-w WORK_MS]
 *        (defaults 512, 100, 0, 0)
 * Prints the time of the iterations and a checksum equal to jacobi_overlap's. */
#include "jacobi.h"

static void exchange(struct jacobi *J)
{
    long n = J->n, r = J->rows;
    MPI_Send(&AT(J->u, 1, 0), (int)n, MPI_DOUBLE, J->up, 1, MPI_COMM_WORLD);
    MPI_Recv(&AT(J->u, r + 1, 0), (int)n, MPI_DOUBLE, J->down, 1, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    MPI_Send(&AT(J->u, r, 0), (int)n, MPI_DOUBLE, J->down, 2, MPI_COMM_WORLD);
    MPI_Recv(&AT(J->u, 0, 0), (int)n, MPI_DOUBLE, J->up, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void compute(struct jacobi *J, long it)
{
    jacobi_rows(J, 1, J->rows);
    jacobi_jitter(J, it);
    jacobi_swap(J);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 100, .n = 512};
    sample_parse(argc, argv, &o, "[-n N] [-i ITERATIONS] [-j JITTER_MS] [-w WORK_MS]");
    struct jacobi J;
    jacobi_init(&J, o.n, o.jitter_ms, o.work_ms);
    exchange(&J);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < o.rounds; it++) {
        compute(&J, it);
        exchange(&J);
    }
    double t = MPI_Wtime() - t0;
    jacobi_report(&J, "jacobi_naive", o.rounds, t);
    MPI_Finalize();
    return 0;
}
