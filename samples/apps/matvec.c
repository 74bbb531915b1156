/* Matrix-vector product y = A x with an N x N matrix (N = SIZE) distributed by rows, repeated
 * ITERATIONS times (default 10); x is gathered on every rank before each product.
 * usage: mpirun -np P matvec SIZE [ITERATIONS]
 * check: A_ij = 1 / (1 + |i - j|), x_j = 1; prints sum_i y_i. */
#include "app.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = app_arg(argc, argv, 1, 2000, 60000, "size");
    long iters = app_arg(argc, argv, 2, 10, 100000, "iterations");
    long lo, cnt;
    app_block(n, rank, size, &lo, &cnt);
    int *counts = app_alloc((size_t)size * sizeof *counts), *displs = app_alloc((size_t)size * sizeof *displs);
    for (int r = 0; r < size; r++) {
        long l, c;
        app_block(n, r, size, &l, &c);
        counts[r] = (int)c;
        displs[r] = (int)l;
    }
    double *a = app_alloc((size_t)(cnt * n) * sizeof *a);
    double *x = app_alloc((size_t)n * sizeof *x), *xl = app_alloc((size_t)cnt * sizeof *xl);
    double *y = app_alloc((size_t)cnt * sizeof *y);
    for (long i = 0; i < cnt; i++) {
        for (long j = 0; j < n; j++)
            a[i * n + j] = 1.0 / (1.0 + labs(lo + i - j));
        xl[i] = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        MPI_Allgatherv(xl, (int)cnt, MPI_DOUBLE, x, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
        for (long i = 0; i < cnt; i++) {
            double s = 0;
            for (long j = 0; j < n; j++)
                s += a[i * n + j] * x[j];
            y[i] = s;
        }
    }
    double t1 = MPI_Wtime();
    double local = 0, sum = 0;
    for (long i = 0; i < cnt; i++)
        local += y[i];
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    app_report(t1 - t0, sum);
    free(a);
    free(x);
    free(xl);
    free(y);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
