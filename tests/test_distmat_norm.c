/* Tests of the slowness normalisation of analysis/distmat: small matrices worked by hand (odd
 * and even peer counts, zero medians), invariance to the unit and to the rank order, exact
 * recovery of the clean synthetic machine from one with a slow node, the noisy machine's
 * slowness near 1 and near the slow factor, the option names, and allocation failures. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cube/cube.h"
#include "analysis/structure/distmat.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"

/* A matrix from its upper triangle, row by row: d01, d02, ..., d(n-2)(n-1). */
static struct lens_distmat *upper(int n, const double *u)
{
    struct lens_distmat *m = NULL;
    struct lens_err e = {0};
    if (lens_distmat_new(&m, n, &e) < 0)
        return NULL;
    memcpy(m->d, u, lens_distmat_pairs(n) * sizeof *u); /* condensed order is the upper rows */
    return m;
}

static void check_s(const char *what, const struct lens_distmat *m, const double *want)
{
    struct lens_err e = {0};
    double s[8];
    LENS_TEST(lens_distmat_slowness(m, s, &e) == LENS_OK, "%s: %s", what, e.msg);
    for (int i = 0; i < m->n; i++)
        LENS_TEST_REL(s[i], want[i], 1e-14, "%s: s_%d", what, i);
}

/* Irregular 4 x 4 (three peers each, so the median is the middle value):
 *   d01 0.8, d02 2.4, d03 4.0, d12 1.2, d13 3.0, d23 6.0
 *   peer medians: med0 = mid{0.8, 2.4, 4.0} = 2.4, med1 = mid{0.8, 1.2, 3.0} = 1.2,
 *                 med2 = mid{2.4, 1.2, 6.0} = 2.4, med3 = mid{4.0, 3.0, 6.0} = 4.0
 *   s0 = mid{0.8/1.2, 2.4/2.4, 4.0/4.0} = 1       s1 = mid{0.8/2.4, 1.2/2.4, 3.0/4.0} = 0.5
 *   s2 = mid{2.4/2.4, 1.2/1.2, 6.0/4.0} = 1       s3 = mid{4.0/2.4, 3.0/1.2, 6.0/2.4} = 2.5
 *   d' = d / max(s_i, s_j): 0.8, 2.4, 1.6, 1.2, 1.2, 2.4 */
static void test_hand_irregular(void)
{
    static const double u[] = {0.8, 2.4, 4.0, 1.2, 3.0, 6.0};
    static const double s_want[] = {1, 0.5, 1, 2.5};
    static const double d_want[] = {0.8, 2.4, 1.6, 1.2, 1.2, 2.4};
    struct lens_distmat *m = upper(4, u);
    struct lens_err e = {0};
    double s[4];
    check_s("irregular 4x4", m, s_want);
    LENS_TEST(lens_distmat_normalize_slowness(m, s, &e) == LENS_OK, "%s", e.msg);
    for (int i = 0; i < 4; i++)
        LENS_TEST_REL(s[i], s_want[i], 1e-14, "irregular 4x4: returned s_%d", i);
    for (int k = 0; k < 6; k++)
        LENS_TEST_REL(m->d[k], d_want[k], 1e-14, "irregular 4x4: d' pair %d", k);
    lens_distmat_free(m);
}

/* 3 x 3, two peers each (even: mean of the two): d01 0, d02 0.5, d12 0.7
 *   med0 = (0 + 0.5)/2 = 0.25, med1 = (0 + 0.7)/2 = 0.35, med2 = (0.5 + 0.7)/2 = 0.6
 *   s0 = (0/0.35 + 0.5/0.6)/2 = 5/12    s1 = (0/0.25 + 0.7/0.6)/2 = 7/12
 *   s2 = (0.5/0.25 + 0.7/0.35)/2 = 2
 * and d' = 0 / (7/12), 0.5 / 2, 0.7 / 2. */
static void test_hand_even(void)
{
    static const double u[] = {0, 0.5, 0.7};
    static const double s_want[] = {5.0 / 12, 7.0 / 12, 2};
    struct lens_distmat *m = upper(3, u);
    struct lens_err e = {0};
    check_s("even 3x3", m, s_want);
    LENS_TEST(lens_distmat_normalize_slowness(m, NULL, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(m->d[0] == 0, "even 3x3: zero stays zero, got %g", m->d[0]);
    LENS_TEST_REL(m->d[1], 0.25, 1e-14, "even 3x3: d'02");
    LENS_TEST_REL(m->d[2], 0.35, 1e-14, "even 3x3: d'12");
    lens_distmat_free(m);
}

/* Zero medians: d01 0, d02 0, d03 0.6, d12 0.9, d13 1.4, d23 2.2
 *   med0 = mid{0, 0, 0.6} = 0 (peer 0 skipped), med1 = mid{0, 0.9, 1.4} = 0.9,
 *   med2 = mid{0, 0.9, 2.2} = 0.9, med3 = mid{0.6, 1.4, 2.2} = 1.4
 *   s0 = mid{0/0.9, 0/0.9, 0.6/1.4} = 0 -> 1 (a zero slowness is not used)
 *   s1 = mean{0.9/0.9, 1.4/1.4} = 1       s2 = mean{0.9/0.9, 2.2/1.4} = (1 + 11/7)/2 = 9/7
 *   s3 = mean{1.4/0.9, 2.2/0.9} = 2
 * All zero but one pair: every peer median is 0, so every rank keeps s = 1. */
static void test_hand_zero(void)
{
    static const double u[] = {0, 0, 0.6, 0.9, 1.4, 2.2};
    static const double s_want[] = {1, 1, 9.0 / 7, 2};
    struct lens_distmat *m = upper(4, u);
    check_s("zero medians", m, s_want);
    lens_distmat_free(m);
    static const double z[] = {0, 0, 0, 0, 0, 0.9};
    static const double ones[] = {1, 1, 1, 1};
    m = upper(4, z);
    struct lens_err e = {0};
    check_s("all-zero medians", m, ones);
    LENS_TEST(lens_distmat_normalize_slowness(m, NULL, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(memcmp(m->d, z, sizeof z) == 0, "all-zero medians: distances changed");
    lens_distmat_free(m);
}

/* Three nodes of two ranks, node {4, 5} f times slower on every link (worked in the header
 * of distmat.h's model): peer medians b, b, b, b, f b, f b; s = 1, 1, 1, 1, f, f; and the
 * normalised matrix is the clean one. Then: the unit and the rank order do not matter. */
static void test_slow_node_small(void)
{
    const double a = 0.413e-6, b = 2.71e-6, f = 1.63;
    double clean[6][6], u[15];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            clean[i][j] = i == j ? 0 : i / 2 == j / 2 ? a : b;
    int k = 0;
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            u[k++] = clean[i][j] * (i >= 4 || j >= 4 ? f : 1);
    struct lens_distmat *m = upper(6, u);
    const double s_want[] = {1, 1, 1, 1, f, f};
    check_s("slow node 6x6", m, s_want);

    /* unit: seconds or microseconds, the same slowness */
    double u2[15];
    for (k = 0; k < 15; k++)
        u2[k] = u[k] * 1e6;
    struct lens_distmat *m2 = upper(6, u2);
    check_s("slow node 6x6 in us", m2, s_want);
    lens_distmat_free(m2);

    /* rank order: relabel r -> perm[r]; the slowness follows the ranks */
    static const int perm[6] = {3, 5, 0, 4, 1, 2};
    double sq[6][6];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            sq[perm[i]][perm[j]] = i == j ? 0 : m->d[lens_distmat_index(6, i, j)];
    struct lens_distmat *mp = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_distmat_from_square(&sq[0][0], 6, &mp, &e) == LENS_OK, "%s", e.msg);
    double sp[6], s[6];
    LENS_TEST(lens_distmat_slowness(mp, sp, &e) == LENS_OK, "%s", e.msg);
    for (int i = 0; i < 6; i++)
        LENS_TEST_REL(sp[perm[i]], s_want[i], 1e-14, "permuted: s of rank %d", i);
    lens_distmat_free(mp);

    LENS_TEST(lens_distmat_normalize_slowness(m, s, &e) == LENS_OK, "%s", e.msg);
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            LENS_TEST_REL(m->d[lens_distmat_index(6, i, j)], clean[i][j], 1e-14,
                          "slow node 6x6: d'(%d,%d) is the clean distance", i, j);
    lens_distmat_free(m);
}

static struct lens_distmat *synth_matrix(int procs, int sw, int nodes, int sockets, double jitter,
                                         double noise, unsigned long seed, int slow)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = procs;
    o.switches = sw;
    o.nodes = nodes;
    o.sockets = sockets;
    o.shuffle = 1;
    o.jitter = jitter;
    o.noise = noise;
    o.seed = seed;
    o.slow_node = slow;
    struct lens_cube *c = NULL;
    struct lens_distmat *m = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_synth_cube(&o, &c, &e) == LENS_OK, "synth: %s", e.msg);
    if (c)
        LENS_TEST(lens_distmat_from_cube(c, LENS_STAT_MEDIAN, -1, &m, &e) == LENS_OK, "%s", e.msg);
    lens_cube_free(c);
    return m;
}

/* The synthetic machines: without noise the slowness is exactly 1 on a clean machine and
 * exactly the slow factor on the slow node's ranks, and normalising the slow machine gives the
 * clean one back; with jitter and noise it stays within a few per cent of that. */
static void test_synthetic(void)
{
    static const struct { int procs, sw, nodes, sockets; unsigned long seed; int slow; } shp[] = {
        {64, 2, 8, 2, 13, 5}, {72, 3, 6, 2, 907, 2}, {96, 4, 8, 3, 66, 7}, {48, 1, 4, 2, 31337, 0}};
    for (size_t t = 0; t < sizeof shp / sizeof *shp; t++) {
        struct lens_distmat *clean = synth_matrix(shp[t].procs, shp[t].sw, shp[t].nodes,
                                                  shp[t].sockets, 0, 0, shp[t].seed, -1);
        struct lens_distmat *slow = synth_matrix(shp[t].procs, shp[t].sw, shp[t].nodes,
                                                 shp[t].sockets, 0, 0, shp[t].seed, shp[t].slow);
        if (!clean || !slow) {
            lens_distmat_free(clean);
            lens_distmat_free(slow);
            continue;
        }
        int n = clean->n, nslow = 0, bad = 0;
        double *s = lens_malloc((size_t)n * sizeof *s), worst = 0;
        struct lens_err e = {0};
        LENS_TEST(lens_distmat_slowness(clean, s, &e) == LENS_OK, "%s", e.msg);
        for (int i = 0; i < n; i++)
            worst = fmax(worst, fabs(s[i] - 1));
        LENS_TEST(worst < 1e-12, "%d procs clean, no noise: |s - 1| up to %g", n, worst);
        LENS_TEST(lens_distmat_normalize_slowness(slow, s, &e) == LENS_OK, "%s", e.msg);
        for (int i = 0; i < n; i++) {
            int is_slow = fabs(s[i] - 1.6) < 1e-12;
            nslow += is_slow;
            bad += !is_slow && fabs(s[i] - 1) > 1e-12;
        }
        LENS_TEST(nslow == n / shp[t].nodes && bad == 0, "%d procs slow node, no noise: %d ranks "
                  "at 1.6 (want %d), %d neither 1 nor 1.6", n, nslow, n / shp[t].nodes, bad);
        for (size_t k = 0; k < lens_distmat_pairs(n); k++)
            if (!lens_test_rel_ok(slow->d[k], clean->d[k], 1e-12)) {
                LENS_TEST(0, "%d procs: normalised slow pair %zu %g, clean %g", n, k, slow->d[k],
                          clean->d[k]);
                break;
            }
        lens_distmat_free(clean);
        lens_distmat_free(slow);

        /* jitter 2 %, noise 3 %: within noise */
        clean = synth_matrix(shp[t].procs, shp[t].sw, shp[t].nodes, shp[t].sockets, 0.02, 0.03,
                             shp[t].seed, -1);
        slow = synth_matrix(shp[t].procs, shp[t].sw, shp[t].nodes, shp[t].sockets, 0.02, 0.03,
                            shp[t].seed, shp[t].slow);
        if (clean && slow) {
            LENS_TEST(lens_distmat_slowness(clean, s, &e) == LENS_OK, "%s", e.msg);
            double lo = 9, hi = 0;
            for (int i = 0; i < n; i++) {
                lo = fmin(lo, s[i]);
                hi = fmax(hi, s[i]);
            }
            LENS_TEST(lo > 0.95 && hi < 1.05, "%d procs clean, noisy: s in [%g, %g]", n, lo, hi);
            LENS_TEST(lens_distmat_slowness(slow, s, &e) == LENS_OK, "%s", e.msg);
            nslow = 0;
            bad = 0;
            for (int i = 0; i < n; i++) {
                nslow += fabs(s[i] - 1.6) < 0.08;
                bad += fabs(s[i] - 1.6) >= 0.08 && fabs(s[i] - 1) >= 0.05;
            }
            LENS_TEST(nslow == n / shp[t].nodes && bad == 0, "%d procs slow node, noisy: %d near "
                      "1.6 (want %d), %d near neither", n, nslow, n / shp[t].nodes, bad);
        }
        lens_distmat_free(clean);
        lens_distmat_free(slow);
        lens_free(s);
    }
}

static void test_names(void)
{
    LENS_TEST(lens_distmat_norm_parse("none") == LENS_DISTMAT_NORM_NONE, "none");
    LENS_TEST(lens_distmat_norm_parse("slowness") == LENS_DISTMAT_NORM_SLOWNESS, "slowness");
    LENS_TEST(lens_distmat_norm_parse("Slowness") == -1, "names are lowercase");
    LENS_TEST(lens_distmat_norm_parse("slow") == -1, "no prefixes");
    LENS_TEST(lens_distmat_norm_parse("") == -1, "empty");
    LENS_TEST(!strcmp(lens_distmat_norm_name(LENS_DISTMAT_NORM_SLOWNESS), "slowness"), "name");
    LENS_TEST(!strcmp(lens_distmat_norm_name(LENS_DISTMAT_NORM_NONE), "none"), "name none");
}

/* Every allocation of both functions fails in turn: LENS_ENOMEM, the matrix untouched. */
static void test_alloc_failures(void)
{
    static const double u[] = {0.8, 2.4, 4.0, 1.2, 3.0, 6.0};
    struct lens_distmat *m = upper(4, u);
    double s[4];
    int hit = 0;
    for (long f = 1; f < 10; f++) {
        struct lens_err e = {0};
        lens_malloc_fail_after(f);
        int rc = lens_distmat_normalize_slowness(m, f % 2 ? NULL : s, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            memcpy(m->d, u, sizeof u);
            continue;
        }
        hit++;
        LENS_TEST(rc == LENS_ENOMEM && e.code == LENS_ENOMEM, "fail %ld: rc %d", f, rc);
        LENS_TEST(strstr(e.msg, "out of memory") != NULL, "fail %ld: message '%s'", f, e.msg);
        LENS_TEST(memcmp(m->d, u, sizeof u) == 0, "fail %ld: distances changed", f);
    }
    LENS_TEST(hit >= 3, "only %d allocations failed", hit);
    lens_distmat_free(m);
}

int main(void)
{
    test_hand_irregular();
    test_hand_even();
    test_hand_zero();
    test_slow_node_small();
    test_synthetic();
    test_names();
    test_alloc_failures();
    return LENS_TEST_DONE("test_distmat_norm");
}
