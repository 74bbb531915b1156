/* Statistics of repeated timings: mean, median, population deviation, min, max over one
 * array of samples (see stats.h for the definitions written into the files). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* (x > y) - (x < y) instead of x - y: a difference of doubles does not fit an int's sign. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void lens_bench_stats_sort(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
}

double lens_bench_stats_median_sorted(const double *x, size_t n)
{
    if (n == 0)
        return NAN;
    /* network_test2 takes sorted[n/2]; for an even count the usual definition is the mean
     * of the two middle values, which is what the files say they hold. */
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

void lens_bench_stats_compute(const double *x, size_t n, double *scratch, struct lens_bench_stats *out)
{
    if (n == 0) {
        out->average = out->median = out->deviation = out->min = out->max = NAN;
        return;
    }
    memcpy(scratch, x, n * sizeof *x); /* x stays in time order for the raw file */
    lens_bench_stats_sort(scratch, n);
    /* Sum in sorted order: small values first keeps the rounding error low. */
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += scratch[i];
    double mean = sum / (double)n, ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (scratch[i] - mean) * (scratch[i] - mean);
    out->average = mean;
    out->median = lens_bench_stats_median_sorted(scratch, n);
    out->deviation = sqrt(ss / (double)n); /* population deviation (divide by n), as network_test2 */
    out->min = scratch[0];
    out->max = scratch[n - 1];
}
