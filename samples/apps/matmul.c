/* Matrix multiplication C = A B of N x N matrices (N = SIZE): A and C distributed by rows, B
 * broadcast from rank 0, then each rank multiplies its rows (i-k-j loop order). ITERATIONS
 * (default 1) repeats broadcast and product.
 * usage: mpirun -np P matmul SIZE [ITERATIONS]
 * check: A_ik = (i + k) % 5 + 1, B_kj = (k * j) % 3 + 1; prints the sum of all C_ij. */
#include "app.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = app_arg(argc, argv, 1, 400, 20000, "size");
    long iters = app_arg(argc, argv, 2, 1, 10000, "iterations");
    long lo, cnt;
    app_block(n, rank, size, &lo, &cnt);
    double *a = app_alloc((size_t)(cnt * n) * sizeof *a), *c = app_alloc((size_t)(cnt * n) * sizeof *c);
    double *b = app_alloc((size_t)(n * n) * sizeof *b);
    for (long i = 0; i < cnt; i++)
        for (long k = 0; k < n; k++)
            a[i * n + k] = (double)((lo + i + k) % 5 + 1);
    if (rank == 0)
        for (long k = 0; k < n; k++)
            for (long j = 0; j < n; j++)
                b[k * n + j] = (double)((k * j) % 3 + 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        /* B is sent in chunks that fit an int count */
        for (long off = 0; off < n * n; off += 1L << 28) {
            long m = n * n - off < (1L << 28) ? n * n - off : 1L << 28;
            MPI_Bcast(b + off, (int)m, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        }
        for (long i = 0; i < cnt * n; i++)
            c[i] = 0;
        for (long i = 0; i < cnt; i++)
            for (long k = 0; k < n; k++) {
                double aik = a[i * n + k];
                const double *bk = b + k * n;
                double *ci = c + i * n;
                for (long j = 0; j < n; j++)
                    ci[j] += aik * bk[j];
            }
    }
    double t1 = MPI_Wtime();
    double local = 0, sum = 0;
    for (long i = 0; i < cnt * n; i++)
        local += c[i];
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    app_report(t1 - t0, sum);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return 0;
}
