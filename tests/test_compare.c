/* The statistics of mpilens compare against independent references: Welch's t-test against
 * values scipy.stats.ttest_ind_from_stats(equal_var=False) printed, Benjamini-Hochberg against
 * its definition evaluated by brute force, and lens_compare_cubes on synthetic cubes with a
 * known bad link, also with every allocation failing in turn. */
#include "lens_test.h"
#include "lens_scratch.h"

#include "analysis/compare/compare.h"
#include "analysis/cube/cube.h"

#include <stdlib.h>
#include <string.h>

/* scipy 1.x: ttest_ind_from_stats(m2, s2, n2, m1, s1, n1, equal_var=False), NEW first. */
static void welch_vs_scipy(void)
{
    static const struct {
        double m1, s1, n1, m2, s2, n2, t, p;
    } ref[] = {
        {1.0, 0.5, 10, 1.3, 0.6, 12, 1.2792042981336627, 0.21546918936001033},
        {2e-6, 1e-7, 100, 2.1e-6, 1.5e-7, 100, 5.547001962252285, 1.0760476216559124e-07},
        {5, 1, 3, 5.5, 3, 50, 0.6978631577988531, 0.5183482135235745},
        {1, 0.1, 100, 1.001, 0.1, 100, 0.07071067811864695, 0.9436993901652392},
        {1, 0.01, 100, 1.2, 0.01, 100, 141.42135623730948, 7.934183226705864e-201},
    };
    for (size_t i = 0; i < sizeof ref / sizeof *ref; i++) {
        double t, df;
        double p = lens_compare_welch(ref[i].m1, ref[i].s1, ref[i].n1, ref[i].m2, ref[i].s2, ref[i].n2, &t, &df);
        LENS_TEST_REL(t, ref[i].t, 1e-12, "welch t, case %zu", i);
        /* the t CDF of GSL and of scipy (cephes) agree to about 1e-10 relative, less far out */
        LENS_TEST_REL(p, ref[i].p, i == 4 ? 1e-6 : 1e-9, "welch p, case %zu", i);
    }
    /* equal deviations and counts: df = 2n - 2 exactly */
    double df;
    lens_compare_welch(0, 2, 20, 1, 2, 20, NULL, &df);
    LENS_TEST_REL(df, 38, 1e-12, "welch df with equal variances");
    LENS_TEST(isnan(lens_compare_welch(1, 1, 1, 2, 1, 10, NULL, NULL)), "n = 1 has no test");
    LENS_TEST(isnan(lens_compare_welch(NAN, 1, 10, 2, 1, 10, NULL, NULL)), "NaN mean has no test");
    LENS_TEST(lens_compare_welch(3, 0, 10, 3, 0, 10, NULL, NULL) == 1, "no spread, same mean: p = 1");
    LENS_TEST(lens_compare_welch(3, 0, 10, 4, 0, 10, NULL, NULL) == 0, "no spread, other mean: p = 0");
}

/* BH by its definition, O(n^2): the largest p_i with #{p_j <= p_i} >= m p_i / alpha. */
static double bh_brute(const double *p, size_t n, long long m, double alpha)
{
    double best = -1;
    for (size_t i = 0; i < n; i++) {
        long long c = 0;
        for (size_t j = 0; j < n; j++)
            c += p[j] <= p[i];
        if ((double)c >= (double)m * p[i] / alpha && p[i] > best)
            best = p[i];
    }
    return best;
}

static void bh_vs_definition(void)
{
    /* hand-worked: m = 5, alpha 0.05: lines 0.01 0.02 0.03 0.04 0.05; sorted p 0.001 0.012
     * 0.029 0.041 0.3 cross last at 0.029 (3 <= 3) */
    double hand[] = {0.3, 0.029, 0.001, 0.041, 0.012};
    LENS_TEST(lens_compare_bh(hand, 5, 5, 0.05) == 0.029, "hand-worked BH threshold");
    double none[] = {0.5, 0.2};
    LENS_TEST(lens_compare_bh(none, 2, 2, 0.05) == -1, "nothing significant: -1");
    srand(7);
    for (int rep = 0; rep < 20; rep++) {
        size_t n = 400;
        double p[400], q[400];
        /* a mixture: true nulls uniform, effects near 0, and ties */
        for (size_t i = 0; i < n; i++) {
            double u = (rand() + 1.0) / ((double)RAND_MAX + 2.0);
            p[i] = i % 3 == 0 ? pow(u, 8) : i % 7 == 0 ? 0.004 : u;
            q[i] = p[i];
        }
        long long m = rep % 2 ? 400 : 1000; /* m > n: the others count as large p-values */
        double want = bh_brute(p, n, m, 0.01);
        LENS_TEST(lens_compare_bh(q, n, m, 0.01) == want, "BH threshold equals the definition's, rep %d", rep);
    }
}

/* Writes a 16-process synthetic cube (seed, optional bad link s->r 3x) to the scratch dir. */
static int write_synth(const char *prefix, unsigned long seed, int bad_s, int bad_r)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.seed = seed;
    o.bad_src = bad_s;
    o.bad_dst = bad_r;
    struct lens_cube *c;
    struct lens_err e;
    if (lens_synth_cube(&o, &c, &e) != LENS_OK)
        return -1;
    int rc = lens_cube_write(c, prefix, NULL, &e);
    lens_cube_free(c);
    return rc;
}

static void cubes(void)
{
    if (lens_scratch_open("test_compare") != 0) {
        LENS_TEST(0, "scratch directory");
        return;
    }
    char base[512], newer[512];
    snprintf(base, sizeof base, "%s", lens_scratch_path("base"));
    snprintf(newer, sizeof newer, "%s", lens_scratch_path("new"));
    LENS_TEST(write_synth(base, 1, -1, -1) == 0 && write_synth(newer, 2, 3, 9) == 0, "cubes written");
    struct lens_compare_opts o;
    lens_compare_opts_default(&o);
    struct lens_compare *c = NULL;
    struct lens_err e;
    int rc = lens_compare_cubes(base, newer, &o, &c, &e);
    LENS_TEST(rc == LENS_OK, "compare: %s", e.msg);
    if (rc == LENS_OK) {
        LENS_TEST(c->nfind == 1 && c->find[0].kind == LENS_COMPARE_LINK && c->find[0].direction == 1 &&
                      c->find[0].ranks[0] == 3 && c->find[0].ranks[1] == 9,
                  "exactly the bad link 3 -> 9, slower (%d findings)", c->nfind);
        LENS_TEST(c->nfind == 1 && c->find[0].ratio > 2.8 && c->find[0].ratio < 3.2, "its ratio near 3");
        LENS_TEST(c->matched_by_host && c->verdict == LENS_COMPARE_REGRESSED, "matched by host, regressed");
        LENS_TEST(c->tests == 16 * 15 * 9, "one test per pair and length: %lld", c->tests);
    }
    lens_compare_free(c);

    /* the PDF's data: the map is the geometric mean of NEW / BASE over the lengths, which
     * for the bad link (3x at every length, synth's noise aside) is near 3 and elsewhere near 1;
     * each length's histograms count every off-diagonal delay of each run once */
    rc = lens_compare_cubes_map(base, newer, &o, &c, &e);
    LENS_TEST(rc == LENS_OK && c->ratio_map && c->hist, "compare with the map: %s", e.msg);
    if (rc == LENS_OK && c->ratio_map && c->hist) {
        double link = c->ratio_map[9 * 16 + 3], other = c->ratio_map[1 * 16 + 2];
        LENS_TEST(link > 2.8 && link < 3.2 && other > 0.9 && other < 1.1, "map: link %g, other %g", link, other);
        LENS_TEST(isnan(c->ratio_map[5 * 16 + 5]), "map: the diagonal is NaN");
        long nb = 0, nn = 0;
        for (int b = 0; b < LENS_COMPARE_HIST_BINS; b++) {
            nb += c->hist[(4 * 2 + 0) * LENS_COMPARE_HIST_BINS + b];
            nn += c->hist[(4 * 2 + 1) * LENS_COMPARE_HIST_BINS + b];
        }
        LENS_TEST(nb == 240 && nn == 240 && c->map_lengths[4] == 2048, "histograms of length 4: %ld, %ld", nb, nn);
        LENS_TEST(c->test == LENS_COMPARE_WELCH_SUMMARY, "no _all.nc: the summary test");
    }
    lens_compare_free(c);
    /* the map path under failing allocations too */
    {
        long b0 = lens_malloc_count();
        rc = lens_compare_cubes_map(base, newer, &o, &c, &e);
        long tot = lens_malloc_count() - b0;
        lens_compare_free(c);
        int badm = 0;
        for (long n = 1; n <= tot; n++) {
            lens_malloc_fail_after(n);
            rc = lens_compare_cubes_map(base, newer, &o, &c, &e);
            lens_malloc_fail_after(0);
            badm += rc != LENS_OK && (rc != LENS_ENOMEM || c != NULL);
            lens_compare_free(c);
        }
        LENS_TEST(badm == 0, "map: %d of %ld failing allocations gave another error or a result", badm, tot);
    }

    /* bad options are refused before anything is read */
    o.alpha = 0;
    LENS_TEST(lens_compare_cubes(base, newer, &o, &c, &e) == LENS_EINVAL && c == NULL, "alpha 0 refused");
    lens_compare_opts_default(&o);

    /* every allocation failing in turn: LENS_ENOMEM (or success once past the last one),
     * never a crash, and nothing handed out on failure (ASan checks the leaks) */
    long before = lens_malloc_count();
    rc = lens_compare_cubes(base, newer, &o, &c, &e);
    long total = lens_malloc_count() - before;
    lens_compare_free(c);
    int bad = 0;
    for (long n = 1; n <= total; n++) {
        lens_malloc_fail_after(n);
        rc = lens_compare_cubes(base, newer, &o, &c, &e);
        lens_malloc_fail_after(0);
        if (rc != LENS_OK && (rc != LENS_ENOMEM || c != NULL))
            bad++;
        lens_compare_free(c);
    }
    LENS_TEST(bad == 0, "%d of %ld failing allocations gave another error or a result", bad, total);
    LENS_TEST(total > 20, "the loop saw the allocations (%ld)", total);
    /* compare only reads: the inputs are intact and nothing else appeared */
    LENS_TEST(lens_scratch_exists(lens_scratch_path("base_average.nc")) && lens_scratch_leftovers() == 0,
              "inputs intact, no temporary left");
    lens_scratch_close();
}

/* The raw path's sample statistics: numpy's nanmean and nanstd(ddof=1) of the same values. */
static void sample_vs_numpy(void)
{
    const double x[] = {1.0, 2.0, NAN, 4.0, 8.0};
    double m, sd;
    int n;
    lens_compare_sample(x, 5, &m, &sd, &n);
    LENS_TEST(n == 4, "sample count without the NaN: %d", n);
    LENS_TEST_REL(m, 3.75, 1e-15, "sample mean");
    LENS_TEST_REL(sd, 3.0956959368344519, 1e-14, "sample deviation (ddof 1)");
    /* close values: the two-pass form keeps the digits a one-pass sum of squares loses */
    const double y[] = {1e-6 + 1e-15, 1e-6 - 1e-15, 1e-6 + 1e-15, 1e-6 - 1e-15};
    lens_compare_sample(y, 4, &m, &sd, &n);
    LENS_TEST_REL(sd, 1.1547005383792517e-15, 1e-6, "deviation of repeats agreeing to 9 digits");
    lens_compare_sample(x + 2, 2, &m, &sd, &n);
    LENS_TEST(n == 1 && isnan(sd) && m == 4.0, "one value: a mean, no deviation");
    LENS_TEST(!strcmp(lens_compare_test_name(LENS_COMPARE_WELCH_RAW), "welch-raw") &&
              !strcmp(lens_compare_test_name(LENS_COMPARE_WELCH_SUMMARY), "welch-summary"),
              "test names");
}

int main(void)
{
    welch_vs_scipy();
    sample_vs_numpy();
    bh_vs_definition();
    cubes();
    return LENS_TEST_DONE("test_compare");
}
