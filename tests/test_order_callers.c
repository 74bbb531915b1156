/* The numbers that moved from qsort to selection (issue 13), each against a qsort of the same
 * values as the code before did it: the quality gate's median and 90th percentile spread, and
 * the report's per-length medians within and across hosts. Random cubes with missing (NaN),
 * infinite, zero and negative cells, so that the values left out are those the old code left
 * out, at odd and even counts, down to one value and none. */
#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"
#include "lens_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned seed = 77;
static double uniform(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) / 16777216.0;
}

/* A cell: mostly a delay of a few microseconds with ties (rounded to 0.1 us), else a value
 * each caller must leave out or keep as the old code did. bad: share of odd cells. */
static double cell(double bad)
{
    double u = uniform(), t = 1e-7 * (double)(int)(20 + 20 * uniform());
    if (u >= bad)
        return t;
    u /= bad;
    return u < 0.3 ? NAN : u < 0.5 ? INFINITY : u < 0.7 ? 0.0 : u < 0.85 ? -t : t * 1e3;
}

/* the old code's quantile: sort, nearest rank */
static double ref_quantile(double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp);
    size_t i = (size_t)floor(q * (double)(n - 1) + 0.5);
    return v[i < n ? i : n - 1];
}

/* the old code's median: sort, the mean of the two middle values for an even n */
static double ref_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void check(int procs, int nodes, int nlen, double bad)
{
    struct lens_synth_opts so;
    struct lens_err e;
    struct lens_cube *c = NULL;
    lens_synth_opts_init(&so);
    so.procs = procs;
    so.nodes = nodes;
    so.sockets = 1;
    so.begin = 0;
    so.step = 1024;
    so.end = nlen * 1024;
    if (lens_synth_cube(&so, &c, &e) != LENS_OK) {
        LENS_TEST(0, "synth P=%d: %s", procs, e.msg);
        return;
    }
    c->repeats = 100;
    size_t P = (size_t)procs, total = (size_t)nlen * P * P;
    double *med = c->data[LENS_STAT_MEDIAN], *dev = c->data[LENS_STAT_DEVIATION];
    for (size_t x = 0; x < total; x++) {
        med[x] = cell(bad);
        dev[x] = 0.1 * cell(bad);
    }
    double *v = malloc((total + 1) * sizeof *v);

    /* the gate: deviation / median where both finite, median > 0, deviation >= 0, off-diagonal */
    size_t n = 0;
    for (size_t x = 0; x < total; x++) {
        size_t i = (x / P) % P, j = x % P;
        if (i != j && isfinite(dev[x]) && isfinite(med[x]) && med[x] > 0 && dev[x] >= 0)
            v[n++] = dev[x] / med[x];
    }
    double want90 = ref_quantile(v, n, 0.9), want50 = ref_quantile(v, n, 0.5);
    struct lens_quality q;
    LENS_TEST(lens_quality_check(c, LENS_STAT_MEDIAN, NULL, &q, &e) == LENS_OK, "gate P=%d: %s", procs, e.msg);
    LENS_TEST_REL(q.spread, want50, 0, "gate P=%d L=%d bad %.2f: median spread of %zu", procs, nlen, bad, n);
    LENS_TEST_REL(q.p90_spread, want90, 0, "gate P=%d L=%d bad %.2f: 90th percentile of %zu", procs, nlen, bad, n);

    /* the host medians: finite off-diagonal delays (any sign), same host or not */
    struct lens_structure_report r;
    LENS_TEST(lens_structure_report_run(c, LENS_STAT_MEDIAN, 0, &r, &e) == LENS_OK, "report P=%d: %s", procs, e.msg);
    for (int k = 0; k < nlen && r.len; k++) {
        for (int same = 1; same >= 0; same--) {
            n = 0;
            for (size_t i = 0; i < P; i++)
                for (size_t j = 0; j < P; j++) {
                    double d = med[((size_t)k * P + i) * P + j];
                    if (i != j && isfinite(d) && (strcmp(c->hosts[i], c->hosts[j]) == 0) == same)
                        v[n++] = d;
                }
            double want = ref_median(v, n), got = same ? r.len[k].intra_median : r.len[k].inter_median;
            LENS_TEST_REL(got, want, 0, "P=%d L=%d bad %.2f length %d: %s-host median of %zu", procs, nlen, bad, k,
                          same ? "one" : "two", n);
        }
    }
    lens_structure_report_release(&r);
    free(v);
    lens_cube_free(c);
}

int main(void)
{
    /* two ranks on one host each: one intra value or none; then odd and even counts */
    static const int shapes[][2] = {{2, 1}, {2, 2}, {3, 3}, {4, 2}, {6, 3}, {9, 3}, {24, 4}, {40, 5}};
    static const double bads[] = {0, 0.2, 0.9, 1.0};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (size_t b = 0; b < sizeof bads / sizeof *bads; b++)
            for (int nlen = 1; nlen <= 2; nlen++)
                check(shapes[s][0], shapes[s][1], nlen, bads[b]);
    /* large enough for the sampled and radix medians (>= 16384 values across hosts) */
    check(160, 8, 1, 0.05);
    return LENS_TEST_DONE("test_order_callers");
}
