/* Jacobi relaxation, overlapped version (Dergunov's fix): each iteration posts MPI_Irecv
 * for both halos and MPI_Isend of both edge rows first, computes the interior rows (which
 * need no halo), waits for the halos, then computes the two edge rows. A neighbour's halo
 * has until the end of the interior computation to arrive, so noise (-j) and transfer time
 * are hidden instead of waited for.
 * Usage: jacobi_overlap [-n N] [-i ITERATIONS] [-j JITTER_MS] [-w WORK_MS]
 *        (defaults 512, 100, 0, 0)
 * Prints the time of the iterations and a checksum equal to jacobi_naive's. */
#include "jacobi.h"

static void iterate(struct jacobi *J, long it)
{
    long n = J->n, r = J->rows;
    MPI_Request req[4];
    MPI_Irecv(&AT(J->u, 0, 0), (int)n, MPI_DOUBLE, J->up, 2, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&AT(J->u, r + 1, 0), (int)n, MPI_DOUBLE, J->down, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&AT(J->u, 1, 0), (int)n, MPI_DOUBLE, J->up, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&AT(J->u, r, 0), (int)n, MPI_DOUBLE, J->down, 2, MPI_COMM_WORLD, &req[3]);
    jacobi_rows(J, 2, r - 1);
    jacobi_jitter(J, it);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    jacobi_rows(J, 1, 1);
    jacobi_rows(J, r, r);
    jacobi_swap(J);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct sample_opts o = {.rounds = 100, .n = 512};
    sample_parse(argc, argv, &o, "[-n N] [-i ITERATIONS] [-j JITTER_MS] [-w WORK_MS]");
    struct jacobi J;
    jacobi_init(&J, o.n, o.jitter_ms, o.work_ms);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < o.rounds; it++)
        iterate(&J, it);
    double t = MPI_Wtime() - t0;
    jacobi_report(&J, "jacobi_overlap", o.rounds, t);
    MPI_Finalize();
    return 0;
}
