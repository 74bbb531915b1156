/* The two tests of `mpilens compare`: Welch's unequal-variance t-test from summary
 * statistics, and the Benjamini-Hochberg step-up threshold (docs/compare.md). Kept apart
 * from the streaming so that the tests can check them against scipy number by number. */
#include "compare.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

double lens_compare_welch_t(double m1, double s1, double n1, double m2, double s2, double n2,
                            double *df)
{
    /* n < 2 has no sample deviation and a negative one is corrupt: no test, not a number */
    *df = NAN;
    if (!(n1 >= 2 && n2 >= 2) || !isfinite(m1) || !isfinite(m2) || !isfinite(s1) ||
        !isfinite(s2) || s1 < 0 || s2 < 0)
        return NAN;
    /* scipy's ttest_ind_from_stats(equal_var=False): the deviations are taken as given
     * (network_test2 stores the sample deviation of the repeats) and divided by n */
    double v1 = s1 * s1 / n1, v2 = s2 * s2 / n2, v = v1 + v2;
    if (v == 0) {
        /* no spread at all: the difference is certain, or there is none */
        *df = n1 + n2 - 2;
        return m1 == m2 ? 0 : (m2 > m1 ? INFINITY : -INFINITY);
    }
    /* Welch-Satterthwaite: the df of the scaled chi-square whose first two moments match
     * those of the estimate v (Satterthwaite, "An approximate distribution of estimates of
     * variance components", 1946); one zero variance leaves the other sample's n - 1 */
    *df = v * v / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1));
    /* NEW minus BASE: t > 0 means NEW is slower */
    return (m2 - m1) / sqrt(v);
}

double lens_compare_welch(double m1, double s1, double n1, double m2, double s2, double n2,
                          double *t, double *df)
{
    double d, tt = lens_compare_welch_t(m1, s1, n1, m2, s2, n2, &d);
    if (t)
        *t = tt;
    if (df)
        *df = d;
    if (isnan(tt))
        return NAN;
    /* infinite t: both deviations 0 and the means differ, the change is certain */
    if (isinf(tt))
        return 0;
    /* the upper tail of |t| doubled: Q keeps the precision of tiny p-values, 1 - P would not */
    double p = 2 * gsl_cdf_tdist_Q(fabs(tt), d);
    return p > 1 ? 1 : p;
}

/* Ascending; NaN never reaches it (lens_compare_bh moves them out first). */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double lens_compare_bh(double *p, size_t n, long long m, double alpha)
{
    /* NaN to the end so the sort order is total, then scan only the numbers */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(p[i]))
            p[k++] = p[i];
    /* m may exceed k: the tests with p > alpha that the caller did not keep still count,
     * as BH's bound i alpha / m is over all m tests */
    qsort(p, k, sizeof *p, cmp_double);
    /* step-up: the largest p_(i) <= i alpha / m; scanning from the top, the first tie
     * reached is the last of its run, whose count i + 1 is the full #{p <= p_(i)} */
    for (size_t i = k; i-- > 0;)
        if ((double)(i + 1) >= (double)m * p[i] / alpha)
            return p[i];
    /* no p-value under its line: nothing is significant */
    return -1;
}

void lens_compare_sample(const double *x, int n, double *mean, double *sd, int *count)
{
    /* two passes (mean, then squared deviations from it): repeats of one latency agree to
     * many digits, where the one-pass sum of squares would cancel them away */
    double sum = 0;
    int c = 0;
    for (int r = 0; r < n; r++)
        if (isfinite(x[r])) {
            sum += x[r];
            c++;
        }
    *count = c;
    *mean = c ? sum / c : NAN;
    double ss = 0;
    for (int r = 0; r < n; r++)
        if (isfinite(x[r]))
            ss += (x[r] - *mean) * (x[r] - *mean);
    /* the sample deviation, ddof 1: what Welch's test and scipy's ttest_ind use */
    *sd = c >= 2 ? sqrt(ss / (c - 1)) : NAN;
}
