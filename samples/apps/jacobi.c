/* Jacobi iteration for the Laplace equation on an N x N grid (N = SIZE), rows distributed in
 * blocks, one halo row exchanged with each neighbour per iteration (MPI_Sendrecv) and the
 * residual reduced every 10 iterations; ITERATIONS defaults to 100. Boundary: 1 on the top
 * edge, 0 elsewhere.
 * usage: mpirun -np P jacobi SIZE [ITERATIONS]
 * check: the sum of the interior values after the last iteration. */
#include "app.h"

#include <math.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = app_arg(argc, argv, 1, 256, 40000, "size");
    long iters = app_arg(argc, argv, 2, 100, 1000000, "iterations");
    if (n < size)
        app_fatal("size %ld is smaller than the %d processes", n, size);
    long lo, cnt;
    app_block(n, rank, size, &lo, &cnt);
    long w = n + 2; /* with the left and right boundary columns */
    double *u = app_alloc((size_t)((cnt + 2) * w) * sizeof *u), *v = app_alloc((size_t)((cnt + 2) * w) * sizeof *v);
    for (long k = 0; k < (cnt + 2) * w; k++)
        u[k] = v[k] = 0;
    if (rank == 0)
        for (long j = 0; j < w; j++)
            u[j] = v[j] = 1; /* the top boundary row lives in rank 0's upper halo */
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double resid = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        MPI_Sendrecv(u + w, (int)w, MPI_DOUBLE, up, 0, u + (cnt + 1) * w, (int)w, MPI_DOUBLE, down, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(u + cnt * w, (int)w, MPI_DOUBLE, down, 1, u, (int)w, MPI_DOUBLE, up, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double local = 0;
        for (long i = 1; i <= cnt; i++)
            for (long j = 1; j <= n; j++) {
                double nv = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
                local += fabs(nv - u[i * w + j]);
                v[i * w + j] = nv;
            }
        double *t = u;
        u = v;
        v = t;
        if (it % 10 == 9)
            MPI_Allreduce(&local, &resid, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double t1 = MPI_Wtime();
    double local = 0, sum = 0;
    for (long i = 1; i <= cnt; i++)
        for (long j = 1; j <= n; j++)
            local += u[i * w + j];
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    app_report(t1 - t0, sum);
    (void)resid;
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
