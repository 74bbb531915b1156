/* Statistics of repeated timings, shared by the all-pairs cube and the p2p sweep. Serial
 * code (no MPI): every statistic is computed over the same samples, so the four files of a
 * cube describe one quantity. */
#ifndef LENS_BENCH_STATS_H
#define LENS_BENCH_STATS_H

#include <stddef.h>

/* The statistics stored per cell of the cube, in seconds. */
struct lens_bench_stats {
    double average;   /* arithmetic mean */
    double median;    /* middle value; mean of the two middle values when n is even */
    double deviation; /* population standard deviation: sqrt(sum (x - mean)^2 / n) */
    double min;       /* smallest sample */
    double max;       /* largest sample */
};

/* Computes the statistics of x[0..n-1] (n >= 1). scratch holds n doubles and receives the
 * sorted samples; x is left untouched. n == 0 gives NaN everywhere. */
void lens_bench_stats_compute(const double *x, size_t n, double *scratch, struct lens_bench_stats *out);

/* Sorts x[0..n-1] ascending in place. */
void lens_bench_stats_sort(double *x, size_t n);

/* Median of sorted x[0..n-1] (n >= 1): mean of the two middle values when n is even. */
double lens_bench_stats_median_sorted(const double *x, size_t n);

#endif
