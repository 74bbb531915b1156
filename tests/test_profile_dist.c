/* Box-plot numbers of analysis/profile/icappa_dist.c: quartiles, whiskers and outlier counts
 * against numpy 1.24 (numpy.percentile, default method "linear"; whiskers the extreme values
 * inside q1 - 1.5 IQR .. q3 + 1.5 IQR), and the groups of lens_icappa_dist_build on a profile
 * with a planted slow function (partition of the processes, each box equal to a direct one). */
#include "lens_test.h"
#include "analysis/profile/profile.h"
#include "common/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Made by (python3 with numpy):
 *   q1, med, q3 = np.percentile(a, [25, 50, 75]); iqr = q3 - q1
 *   inside = a[(a >= q1 - 1.5*iqr) & (a <= q3 + 1.5*iqr)]
 *   want = q1, med, q3, inside.min(), inside.max(); nlow, nhigh = counts outside each fence */
struct bcase {
    size_t n;
    double v[32];
    double want[5]; /* q1 median q3 wlo whi */
    size_t nlow, nhigh;
};
static const struct bcase CASES[] = {
    {1, {3}, {3, 3, 3, 3, 3}, 0, 0},
    {2, {2, 1}, {1.25, 1.5, 1.75, 1, 2}, 0, 0},
    {4, {1, 1, 1, 1}, {1, 1, 1, 1, 1}, 0, 0},
    {7, {5, 1, 4, 2, 3, 100, -50}, {1.5, 3, 4.5, 1, 5}, 1, 1},
    {10, {6.2290169488970193, 7.4178698926072943, 7.9519356556569667, 9.424502837770504, 7.3989857473993066,
          9.2232499666541692, 0.29005228283614737, 4.6562265437810533, 9.4335671699831369, 6.489745531369242},
     {6.2941990945150748, 7.4084278200033005, 8.9054213889048679, 4.6562265437810533, 9.4335671699831369}, 1, 0},
    {28, {5.3981950000000003, 4.7141229999999998, 4.261673, 5.1453239999999996, 3.7427920000000001,
          4.6453379999999997, 5.6965960000000004, 5.0575289999999997, 4.5897119999999996, 7.18947, 5.058173,
          4.4131609999999997, 5.1595659999999999, 4.4771999999999998, 4.6148959999999999, 4.6497919999999997,
          7.0252559999999997, 5.0225860000000004, 5.1755620000000002, 5.6742010000000001, 7.0168790000000003,
          4.7763229999999997, 4.3761239999999999, 7.4746370000000004, 3.5403669999999998, 30, 31.5, -20},
     {4.5615839999999999, 5.0400574999999996, 5.6797997499999999, 3.5403669999999998, 7.18947}, 1, 3},
    {5, {0.5, 0.5, 0.5, 0.69999999999999996, 9}, {0.5, 0.5, 0.69999999999999996, 0.5, 0.69999999999999996}, 0, 1},
};

static void test_box(void)
{
    struct lens_err e;
    for (size_t c = 0; c < sizeof CASES / sizeof *CASES; c++) {
        double v[32];
        struct lens_icappa_box b;
        memcpy(v, CASES[c].v, sizeof v);
        LENS_TEST(lens_icappa_box_stats(v, CASES[c].n, &b, &e) == LENS_OK, "case %zu: %s", c, e.msg);
        double got[5] = {b.q1, b.median, b.q3, b.wlo, b.whi};
        for (int i = 0; i < 5; i++)
            LENS_TEST_REL(got[i], CASES[c].want[i], 1e-14, "case %zu number %d", c, i);
        LENS_TEST(b.nlow == CASES[c].nlow && b.nhigh == CASES[c].nhigh, "case %zu outliers %zu %zu", c, b.nlow,
                  b.nhigh);
        /* outliers lie outside the whiskers, ascending */
        for (size_t i = 0; i < b.nlow; i++)
            LENS_TEST(b.low[i] < b.wlo && (!i || b.low[i - 1] <= b.low[i]), "case %zu low outlier %zu", c, i);
        for (size_t i = 0; i < b.nhigh; i++)
            LENS_TEST(b.high[i] > b.whi && (!i || b.high[i - 1] <= b.high[i]), "case %zu high outlier %zu", c, i);
    }
    double bad[2] = {1, NAN};
    struct lens_icappa_box b;
    LENS_TEST(lens_icappa_box_stats(bad, 2, &b, &e) == LENS_EINVAL, "NaN refused");
    LENS_TEST(lens_icappa_box_stats(bad, 0, &b, &e) == LENS_EINVAL, "no values refused");
}

/* 40 processes x 6 functions, processes 30..39 ten times slower in "halo": ICAPPA picks halo
 * and those processes; the boxes of the groups must be those of the values taken directly. */
static void test_build(void)
{
    struct lens_err e;
    static const char *F[] = {"main", "halo", "solve", "MPI_Wait", "io", "bc"};
    struct lens_profile *p = lens_profile_new();
    unsigned s = 12345;
    for (long r = 0; r < 40; r++)
        for (int f = 0; f < 6; f++) {
            s = s * 1103515245u + 12345u;
            double t = (1 + f * 0.3) * (0.9 + 0.2 * ((s >> 16) & 0x7fff) / 32767.0);
            lens_profile_add(p, r, F[f], f == 1 && r >= 30 ? 10 * t : t, &e);
        }
    LENS_TEST(lens_profile_finish(p, &e) == LENS_OK, "finish: %s", e.msg);
    struct lens_icappa *r = NULL;
    struct lens_icappa_dist *d = NULL;
    LENS_TEST(lens_icappa_run(p, NULL, &r, &e) == LENS_OK, "run: %s", e.msg);
    LENS_TEST(r && lens_icappa_dist_build(p, r, &d, &e) == LENS_OK, "build: %s", e.msg);
    if (d) {
        LENS_TEST(d->nfunc == r->ndom && d->nfunc >= 1 && !strcmp(p->funcs[d->func[0]], "halo"), "halo first");
        LENS_TEST(d->ngroups >= 2 && d->kind[0] == 0 && d->kind[1] == 1, "two clusters of a split");
        /* the 5 % rule splits the noisy planted group once more (5 | 5): the last split then
         * holds 30..39 and the processes of the first split's other cluster are set aside */
        size_t nplanted = 0, nsplit = 0;
        for (size_t g = 0; g < d->ngroups; g++)
            for (size_t i = 0; i < d->gsize[g]; i++) {
                nsplit += d->kind[g] < 2;
                nplanted += d->kind[g] < 2 && d->members[g][i] >= 30;
            }
        LENS_TEST(nsplit == 10 && nplanted == 10, "the final split holds the planted 30..39 (%zu of %zu)", nplanted,
                  nsplit);
        LENS_TEST(d->ngroups == 3 && d->kind[2] == 2 && d->gsize[2] == 30, "0..29 set aside");
        /* the groups partition the processes */
        int seen[40] = {0};
        size_t tot = 0;
        for (size_t g = 0; g < d->ngroups; g++)
            for (size_t i = 0; i < d->gsize[g]; i++, tot++)
                seen[d->members[g][i]]++;
        int once = 1;
        for (int i = 0; i < 40; i++)
            once &= seen[i] == 1;
        LENS_TEST(tot == 40 && once, "groups partition the 40 processes");
        for (size_t f = 0; f < d->nfunc; f++)
            for (size_t g = 0; g < d->ngroups; g++) {
                double v[40];
                struct lens_icappa_box b;
                for (size_t i = 0; i < d->gsize[g]; i++)
                    v[i] = p->sec[d->members[g][i] * p->nfunc + d->func[f]];
                lens_icappa_box_stats(v, d->gsize[g], &b, &e);
                const struct lens_icappa_box *x = &d->box[f * d->ngroups + g];
                LENS_TEST(x->n == b.n && x->median == b.median && x->q1 == b.q1 && x->q3 == b.q3 &&
                              x->nlow == b.nlow && x->nhigh == b.nhigh,
                          "box %zu,%zu as direct", f, g);
            }
        /* the planted cluster is about ten times the others in halo */
        LENS_TEST(d->box[0].median > 5 * d->box[d->ngroups - 1].median, "cluster 0 median %g vs %g",
                  d->box[0].median, d->box[d->ngroups - 1].median);
    }
    lens_icappa_dist_free(d);
    lens_icappa_free(r);
    lens_profile_free(p);
}

/* Every allocation of the TAU reader (on the committed sample) and of the distributions fails
 * once: each failure is an error with a message and nothing handed back (ASan's leak check
 * sees what a failure path forgot to free). */
static void test_faults(void)
{
    struct lens_err e;
    struct lens_profile *p = NULL;
    int steps = 0, reported = 0;
    for (long n = 1; n < 100000; n++, steps++) {
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        int rc = lens_profile_read_tau("samples/profiles/tau16", &p, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            break;
        reported += rc == LENS_ENOMEM && !p && e.msg[0];
    }
    LENS_TEST(steps > 10 && reported == steps, "tau failures reported: %d of %d", reported, steps);
    struct lens_icappa *r = NULL;
    LENS_TEST(p && lens_icappa_run(p, NULL, &r, &e) == LENS_OK, "run on the sample");
    struct lens_icappa_dist *d = NULL;
    steps = reported = 0;
    for (long n = 1; r && n < 1000; n++, steps++) {
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        int rc = lens_icappa_dist_build(p, r, &d, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            break;
        reported += rc == LENS_ENOMEM && !d && e.msg[0];
    }
    LENS_TEST(d && steps >= 5 && reported == steps, "dist failures reported: %d of %d", reported, steps);
    lens_icappa_dist_free(d);
    lens_icappa_free(r);
    lens_profile_free(p);
}

int main(void)
{
    test_box();
    test_build();
    test_faults();
    return LENS_TEST_DONE("test_profile_dist");
}
