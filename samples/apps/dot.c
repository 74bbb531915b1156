/* Dot product of two distributed vectors of SIZE elements, repeated ITERATIONS times (default
 * 20), each ending in an MPI_Allreduce: the communication is one double per iteration.
 * usage: mpirun -np P dot SIZE [ITERATIONS]
 * check: x_i = 1 + i % 7, y_i = 0.5, so the dot product is known in closed form. */
#include "app.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = app_arg(argc, argv, 1, 1000000, 1L << 34, "size");
    long iters = app_arg(argc, argv, 2, 20, 1000000, "iterations");
    long lo, cnt;
    app_block(n, rank, size, &lo, &cnt);
    double *x = app_alloc((size_t)cnt * sizeof *x), *y = app_alloc((size_t)cnt * sizeof *y);
    for (long i = 0; i < cnt; i++) {
        x[i] = 1 + (double)((lo + i) % 7);
        y[i] = 0.5;
    }
    double dot = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        double local = 0;
        for (long i = 0; i < cnt; i++)
            local += x[i] * y[i];
        MPI_Allreduce(&local, &dot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double t1 = MPI_Wtime();
    app_report(t1 - t0, dot);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
