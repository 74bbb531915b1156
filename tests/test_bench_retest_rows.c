/* Tests for the retest choice without a P x P matrix on one rank (bench/net/retest.c, used by
 * allpairs.c when every rank writes its rows): the radix selection's median equals the
 * anomaly detector's (lens_anomaly_robust) bit for bit, negative and tied values included, and
 * the top of the rows' own tops is lens_bench_retest_pick's choice on the whole matrix. */
#include "bench/net/retest.h"
#include "lens_test.h"
#include "analysis/structure/structure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One process holds every value: the histograms are already the sums (the selection only ever
 * adds histograms, so splitting the values over ranks gives the same counts). */
static void sum_none(void *arg, long long *counts, int n)
{
    (void)arg, (void)counts, (void)n;
}

/* A deterministic generator, so a failure is reproducible. */
static unsigned long long lcg = 12345;
static double uniform(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

#define P 9
int main(void)
{
    double m[P * P], v[P * P], w[P * P], work[2 * P * P], z[P * P], t[3 * P * P], u[3 * P * P];
    int cells[P * P];
    for (int trial = 0; trial < 200; trial++) {
        /* delays from a few levels (ties) times noise, some cells missing (0) or huge */
        for (int i = 0; i < P * P; i++) {
            double lv = trial % 3 == 0 ? (double)(1 + (int)(uniform() * 3)) : 1 + uniform();
            m[i] = i / P == i % P ? 0 : uniform() < 0.05 ? 0 : lv * 1e-6 * (uniform() < 0.03 ? 100 : 1);
        }
        double med, sig;
        int n = lens_bench_retest_robust(m, P, work, &med, &sig);
        size_t nv = 0;
        for (int i = 0; i < P * P; i++)
            if (i / P != i % P && m[i] > 0)
                v[nv++] = log(m[i]);
        double dmed = lens_bench_retest_median(v, nv, (long long)nv, sum_none, NULL);
        for (size_t i = 0; i < nv; i++)
            w[i] = fabs(v[i] - dmed);
        double mad = lens_bench_retest_median(w, nv, (long long)nv, sum_none, NULL);
        double dsig = 1.4826 * (mad > LENS_BENCH_RETEST_MAD_FLOOR ? mad : LENS_BENCH_RETEST_MAD_FLOOR);
        LENS_TEST(n == (int)nv && dmed == med && dsig == sig,
                  "trial %d: rows' median %.17g sigma %.17g, whole matrix %.17g %.17g", trial, dmed, dsig, med, sig);
        /* every rank's own top (row i), then the top of their union */
        int K = trial % 4, all = 0;
        for (int i = 0; i < P; i++) {
            int nt = 0;
            for (int j = 0; j < P; j++) {
                double zz = i != j ? lens_bench_retest_z(m[i * P + j], med, sig) : NAN;
                if (isnan(zz))
                    continue;
                t[3 * nt] = zz, t[3 * nt + 1] = i * P + j, t[3 * nt + 2] = m[i * P + j];
                nt++;
            }
            int got = lens_bench_retest_top(t, (size_t)nt, K, LENS_BENCH_RETEST_ZMIN);
            memcpy(u + 3 * all, t, 3 * (size_t)got * sizeof *t);
            all += got;
        }
        int got = lens_bench_retest_top(u, (size_t)all, K, LENS_BENCH_RETEST_ZMIN);
        int want = lens_bench_retest_pick(m, P, K, LENS_BENCH_RETEST_ZMIN, work, cells, z);
        int same = got == want;
        for (int q = 0; same && q < got; q++)
            same = (int)u[3 * q + 1] == cells[q] && u[3 * q] == z[q] && u[3 * q + 2] == m[cells[q]];
        LENS_TEST(same, "trial %d K=%d: rows' picks (%d) differ from the whole matrix's (%d)", trial, K, got, want);
    }
    /* negative values and zero: the order key's two halves */
    double x[] = {-3.5, 2.0, -0.0, 0.0, -1e-300, 7.25, -3.5};
    double s[] = {-3.5, -3.5, -1e-300, 0.0, 0.0, 2.0, 7.25};
    for (int k = 0; k < 7; k++)
        LENS_TEST(lens_bench_retest_kth(x, 7, k, sum_none, NULL) == s[k], "kth %d of mixed signs", k);
    return LENS_TEST_DONE("test_bench_retest_rows");
}
