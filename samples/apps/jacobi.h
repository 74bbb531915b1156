/* The Jacobi relaxation of Laplace's equation shared by jacobi_naive.c and jacobi_overlap.c
 * (Dergunov's experiment, docs/methods.md §6): an N x N grid, top edge held at 1, the other
 * edges at 0, split by rows over the ranks (1-D decomposition, one halo row above and
 * below). Both versions update every point with the same formula in the same order of
 * values, so they give bit-identical grids and checksums; they differ only in when the halos
 * travel.
 * Optional jitter (-j MS) adds to each rank's work of each iteration a pseudo-random sleep of
 * 0..MS milliseconds, the same in both versions, standing in for OS noise and uneven work;
 * -w MS adds a fixed sleep to the interior work, standing in for a larger grid without the
 * memory (on a shared machine a sleep is also steadier than a computation). */
#ifndef LENS_JACOBI_H
#define LENS_JACOBI_H

#include "sample.h"

#include <stdint.h>

struct jacobi {
    long n;          /* global grid is n x n */
    long rows;       /* rows owned by this rank */
    long row0;       /* global index of the first owned row */
    double *u, *v;   /* (rows + 2) x n: halo row 0, owned rows 1..rows, halo row rows + 1 */
    int rank, size, up, down; /* up = rank - 1, down = rank + 1, MPI_PROC_NULL at the ends */
    double jitter_ms; /* -j */
    double work_ms;   /* -w */
};

#define AT(g, i, j) ((g)[(size_t)(i) * (size_t)J->n + (size_t)(j)])

static inline void jacobi_init(struct jacobi *J, long n, double jitter_ms, double work_ms)
{
    J->work_ms = work_ms;
    MPI_Comm_rank(MPI_COMM_WORLD, &J->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &J->size);
    J->n = n;
    J->jitter_ms = jitter_ms;
    long base = (n - 2) / J->size, extra = (n - 2) % J->size; /* rows 0 and n-1 are fixed */
    J->rows = base + (J->rank < extra);
    J->row0 = 1 + J->rank * base + (J->rank < extra ? J->rank : extra);
    if (J->rows < 3)
        sample_fatal("grid of %ld rows over %d ranks leaves rank %d %ld rows; need 3 (-n)", n,
                     J->size, J->rank, J->rows);
    J->up = J->rank > 0 ? J->rank - 1 : MPI_PROC_NULL;
    J->down = J->rank < J->size - 1 ? J->rank + 1 : MPI_PROC_NULL;
    size_t cells = (size_t)(J->rows + 2) * (size_t)n;
    J->u = calloc(cells, sizeof *J->u);
    J->v = calloc(cells, sizeof *J->v);
    if (!J->u || !J->v)
        sample_fatal("out of memory for %zu grid cells", cells);
    if (J->rank == 0) /* the global top edge is this rank's upper halo row */
        for (long j = 0; j < n; j++)
            AT(J->u, 0, j) = AT(J->v, 0, j) = 1.0;
}

/* One Jacobi update of owned rows lo..hi (inclusive) from u into v. */
static inline void jacobi_rows(struct jacobi *J, long lo, long hi)
{
    for (long i = lo; i <= hi; i++)
        for (long j = 1; j < J->n - 1; j++)
            AT(J->v, i, j) = 0.25 * (AT(J->u, i - 1, j) + AT(J->u, i + 1, j) +
                                     AT(J->u, i, j - 1) + AT(J->u, i, j + 1));
}

/* The injected work of iteration it on this rank: work_ms plus 0..jitter_ms from a hash. */
static inline void jacobi_jitter(const struct jacobi *J, long it)
{
    if (J->jitter_ms <= 0) {
        sample_sleep_ms(J->work_ms);
        return;
    }
    uint64_t h = (uint64_t)it * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t)(J->rank + 1) * 0xc2b2ae3d27d4eb4full;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    sample_sleep_ms(J->work_ms + J->jitter_ms * (double)(h % 1001) / 1000.0);
}

static inline void jacobi_swap(struct jacobi *J)
{
    double *t = J->u;
    J->u = J->v;
    J->v = t;
}

/* Prints (rank 0) the time of the iterations, the slowest rank's, and the grid's checksum. */
static inline void jacobi_report(struct jacobi *J, const char *name, long iters, double seconds)
{
    double local = 0, sum = 0, tmax = 0;
    for (long i = 1; i <= J->rows; i++)
        for (long j = 0; j < J->n; j++)
            local += AT(J->u, i, j) * (double)((J->row0 + i - 1) % 7 + 1 + j % 5);
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&seconds, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (J->rank == 0) {
        printf("%s: grid %ld x %ld, %ld iterations, %d ranks\n", name, J->n, J->n, iters, J->size);
        printf("time %.6f s\n", tmax);
        printf("checksum %.15e\n", sum);
    }
    free(J->u);
    free(J->v);
}

#endif
