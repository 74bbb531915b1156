/* Timing driver for scripts/bench.d/hclust.sh (not run by make check).
 *   perf_hclust hclust METHOD N SEED [DUMP]   linkage of N random points in 8 dimensions
 *   perf_hclust nj fast|canonical N SEED [DUMP] neighbor joining of the same kind of matrix
 * DUMP receives the condensed matrix as raw float64 so that scipy can run on the very same
 * numbers. Prints one line: "seconds=<s> maxrss_kb=<kb> matrix_kb=<kb> check=<x>", where seconds
 * is the CPU time of the algorithm only and check is a checksum of the result. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <sys/resource.h>
#include <time.h>

#include "analysis/structure/distmat.h"
#include "analysis/structure/hclust.h"
#include "analysis/structure/newick.h"
#include "analysis/structure/nj.h"

static uint64_t state;
static double urand(void)
{
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (double)((state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double *make_matrix(int n, uint64_t seed)
{
    enum { DIM = 8 };
    state = seed * 0x9e3779b97f4a7c15ull + 1;
    double *x = malloc(sizeof(double) * (size_t)n * DIM);
    double *d = malloc(sizeof(double) * lens_distmat_pairs(n));
    if (!x || !d)
        return NULL;
    for (size_t i = 0; i < (size_t)n * DIM; i++)
        x[i] = urand();
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double s = 0;
            for (int k = 0; k < DIM; k++) {
                double t = x[i * DIM + k] - x[j * DIM + k];
                s += t * t;
            }
            d[lens_distmat_index(n, i, j)] = sqrt(s);
        }
    free(x);
    return d;
}

/* CPU seconds of this process: steadier than wall time on a shared machine */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static long maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: perf_hclust hclust METHOD N SEED [DUMP] | nj fast|canonical N SEED [DUMP]\n");
        return 2;
    }
    int n = atoi(argv[3]);
    double *d = n >= 2 ? make_matrix(n, strtoull(argv[4], NULL, 10)) : NULL;
    if (!d) {
        fprintf(stderr, "perf_hclust: bad n or out of memory\n");
        return 1;
    }
    size_t np = lens_distmat_pairs(n);
    struct lens_err e = {0};
    double check = 0, t0, t1;
    int rc;
    if (argc > 5) {
        FILE *fp = fopen(argv[5], "wb");
        if (!fp || fwrite(d, sizeof *d, np, fp) != np || fclose(fp) != 0) {
            fprintf(stderr, "perf_hclust: cannot write %s\n", argv[5]);
            return 1;
        }
    }
    if (!strcmp(argv[1], "hclust")) {
        int method = lens_hclust_method_parse(argv[2]);
        struct lens_hclust_step *z = malloc(sizeof *z * (size_t)n);
        t0 = cpu_now();
        rc = lens_hclust_run(d, n, method, z, &e);
        t1 = cpu_now();
        for (int k = 0; rc == LENS_OK && k < n - 1; k++)
            check += z[k].height;
        free(z);
    } else {
        struct lens_newick *t = NULL;
        int search = !strcmp(argv[2], "canonical") ? LENS_NJ_CANONICAL : LENS_NJ_FAST;
        t0 = cpu_now();
        rc = lens_nj_run(d, n, search, &t, &e);
        t1 = cpu_now();
        for (int k = 0; rc == LENS_OK && k < t->nnode; k++)
            check += fabs(t->len[k]);
        lens_newick_free(t);
    }
    free(d);
    if (rc != LENS_OK) {
        fprintf(stderr, "perf_hclust: %s\n", e.msg);
        return 1;
    }
    printf("seconds=%.3f maxrss_kb=%ld matrix_kb=%zu check=%.12g\n", t1 - t0, maxrss_kb(),
           np * sizeof(double) / 1024, check);
    return 0;
}
