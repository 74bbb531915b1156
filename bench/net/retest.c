/* The retest selection (see retest.h): robust z per cell of one length, then the flagged
 * cells and the K worst. Pure functions over one matrix, so the choice can be checked
 * against a hand computation without running MPI. */
#include "retest.h"

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int lens_bench_retest_robust(const double *m, int P, double *work, double *med, double *sig)
{
    size_t n = 0;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            double v = m[(size_t)i * P + j];
            /* the diagonal is 0 by definition and a missing cell (NaN, 0) is no evidence */
            if (i != j && isfinite(v) && v > 0)
                work[n++] = log(v);
        }
    if (n == 0) {
        *med = *sig = NAN;
        return 0;
    }
    /* log scale and the anomaly detector's own median and floored MAD, so the bench retests
     * what `mpilens anomalies` would flag: a delay twice the typical is as far above it at
     * 1 us as at 1 ms, and the long right tail of delays becomes closer to symmetric */
    lens_anomaly_robust(work, n, LENS_BENCH_RETEST_MAD_FLOOR, med, sig);
    return (int)n;
}

double lens_bench_retest_z(double v, double med, double sig)
{
    return isfinite(v) && v > 0 ? (log(v) - med) / sig : NAN;
}

/* Descending z, then ascending cell index: a total order, so every rank and every libc
 * sort the same way. work packs (z, index) pairs as doubles (an index below 2^53 is exact);
 * only the first two doubles are read, so (z, index, value) triples sort the same way. */
static int cmp_pick(const void *a, const void *b)
{
    const double *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? 1 : -1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

int lens_bench_retest_pick(const double *m, int P, int k, double zmin, double *work, int *cells,
                           double *z)
{
    double med, sig;
    if (lens_bench_retest_robust(m, P, work, &med, &sig) == 0)
        return 0;
    /* z of every valid cell; the diagonal and missing cells get none and are never picked */
    size_t n = 0;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            double zz = i != j ? lens_bench_retest_z(m[(size_t)i * P + j], med, sig) : NAN;
            if (isnan(zz))
                continue;
            work[2 * n] = zz;
            work[2 * n + 1] = (double)((size_t)i * P + j);
            n++;
        }
    qsort(work, n, 2 * sizeof *work, cmp_pick);
    /* sorted by z: the picks are a prefix, the k worst plus any flagged beyond them */
    int got = 0;
    for (size_t t = 0; t < n && (got < k || work[2 * t] >= zmin); t++) {
        cells[got] = (int)work[2 * t + 1];
        if (z)
            z[got] = work[2 * t];
        got++;
    }
    return got;
}

int lens_bench_retest_control(const double *m, int P, double med, const int *picked, int npicked)
{
    /* A linear scan with a check against the picks (a handful): P^2 x picks is nothing next
     * to the sweep that produced the matrix. */
    int best = -1;
    double dist = INFINITY;
    for (int c = 0; c < P * P; c++) {
        double v = m[c];
        if (c / P == c % P || !isfinite(v) || v <= 0)
            continue;
        int taken = 0;
        for (int t = 0; t < npicked && !taken; t++)
            taken = picked[t] == c;
        /* strict: the first of equally near cells wins, the same on every run */
        if (!taken && fabs(log(v) - med) < dist) {
            dist = fabs(log(v) - med);
            best = c;
        }
    }
    return best;
}

int lens_bench_retest_row_is_receiver(int mode)
{
    /* the same split as the cube's sender_index attribute and analysis/structure/anomaly.c */
    return mode == LENS_MODE_ONE_TO_ONE || mode == LENS_MODE_NOISE_BLOCKING ||
           mode == LENS_MODE_NOISE || mode == LENS_MODE_ALL_TO_ALL;
}

/* An order-preserving integer key of a double (no NaN): flipping the sign bit of a positive
 * and every bit of a negative one makes unsigned comparison the numeric order. */
static uint64_t order_key(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double key_value(uint64_t k)
{
    uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

double lens_bench_retest_kth(const double *v, size_t n, long long k, lens_bench_retest_sum_fn sum,
                             void *arg)
{
    /* A byte of the key a pass, from the top: the global histogram of the keys that share the
     * bytes chosen so far says which bucket holds rank k. 256 counts a pass keep each
     * reduction small; 8 passes fix all 64 bits, so the key found is a value present. */
    uint64_t prefix = 0;
    for (int shift = 56; shift >= 0; shift -= 8) {
        long long h[256] = {0};
        for (size_t i = 0; i < n; i++) {
            uint64_t key = order_key(v[i]);
            /* the bytes above this one must match what is chosen (none on the first pass) */
            if (shift == 56 || key >> (shift + 8) == prefix >> (shift + 8))
                h[(key >> shift) & 255]++;
        }
        sum(arg, h, 256);
        int b = 0;
        /* b < 255: k is below the total, so the last bucket is never passed */
        while (b < 255 && k >= h[b])
            k -= h[b++];
        prefix |= (uint64_t)b << shift;
    }
    return key_value(prefix);
}

double lens_bench_retest_median(const double *v, size_t n, long long total,
                                lens_bench_retest_sum_fn sum, void *arg)
{
    /* ranks (total-1)/2 and total/2: the same one when total is odd */
    double hi = lens_bench_retest_kth(v, n, total / 2, sum, arg);
    if (total % 2)
        return hi;
    double lo = lens_bench_retest_kth(v, n, (total - 1) / 2, sum, arg);
    return 0.5 * (lo + hi); /* lens_cube_median's expression, so the value is the same bit for bit */
}

int lens_bench_retest_top(double *t, size_t n, int k, double zmin)
{
    qsort(t, n, 3 * sizeof *t, cmp_pick);
    int got = 0;
    while ((size_t)got < n && (got < k || t[3 * got] >= zmin))
        got++;
    return got;
}
