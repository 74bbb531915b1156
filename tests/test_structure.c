/* Tests for analysis/structure/structure.c, the structure pipeline computed once: every part on a
 * hand-made cube whose tree, cut, group means and matrix are worked out by hand; the parts
 * asked for and only those; the cuts by k and by height; the error policy (first failure
 * returned, or kept per part with keep_going); every allocation failure. And the recipe of
 * docs/design.md "Structure results": a consumer (here a dummy section) only lays out the
 * finished struct. */
#include "analysis/cube/cube.h"
#include "analysis/structure/distmat.h"
#include "analysis/structure/newick.h"
#include "analysis/structure/structure.h"
#include "lens_test.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define P 6
#define IN 1e-6  /* delay inside a host at the middle length, seconds */
#define OUT 5e-6 /* between the two hosts */

/* 6 ranks, hosts a (0, 2, 4) and b (1, 3, 5) interleaved so that groups are not rank runs;
 * 3 lengths with delays 0.5x, 1x, 2x the level's (the median over lengths is the 1x one).
 * Average and deviation are present for the link clusters. */
static struct lens_cube *hand_cube(void)
{
    struct lens_cube *c = NULL;
    struct lens_err e = {0};
    unsigned mask = 1u << LENS_STAT_MEDIAN | 1u << LENS_STAT_AVERAGE | 1u << LENS_STAT_DEVIATION;
    if (lens_cube_new(&c, P, 3, 0, 1024, mask, &e) != LENS_OK) {
        LENS_TEST(0, "cube_new: %s", e.msg);
        return NULL;
    }
    static const double f[3] = {0.5, 1.0, 2.0};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                double t = i == j ? 0 : (i % 2 == j % 2 ? IN : OUT) * f[k];
                LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j) = t;
                LENS_CUBE_AT(c, LENS_STAT_AVERAGE, k, i, j) = t;
                LENS_CUBE_AT(c, LENS_STAT_DEVIATION, k, i, j) = 0.01 * t;
            }
    return c;
}

/* The recipe's dummy section: lays out the groups of a finished structure as
 * "k=2 | 0: 0 2 4 | 1: 1 3 5" and calls no analysis. */
static void dummy_section(const struct lens_structure *s, char *buf, size_t n)
{
    size_t o = (size_t)snprintf(buf, n, "k=%d", s->k);
    for (int g = 0; g < s->k && o < n; g++) {
        o += (size_t)snprintf(buf + o, n - o, " | %d:", g);
        for (int i = 0; i < s->n && o < n; i++)
            if (s->label[i] == g)
                o += (size_t)snprintf(buf + o, n - o, " %d", i);
    }
}

static void test_all_parts(const struct lens_cube *c)
{
    struct lens_err e = {0};
    struct lens_structure_opts o;
    lens_structure_opts_default(&o);
    struct lens_structure s;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(s.n == P && s.dm && s.z && s.order && s.label && s.matrix && s.nj && s.links && s.an,
              "every part computed");
    if (!s.z || !s.label || !s.matrix || !s.nj) {
        lens_structure_release(&s);
        return;
    }
    /* by hand: inside a host every distance is IN, so average linkage joins each host at IN;
     * the hosts join at OUT. The automatic cut: k = 2, inside median IN, next merge OUT */
    LENS_TEST_REL(s.z[P - 3].height, IN, 1e-12, "last merge inside a host");
    LENS_TEST_REL(s.z[P - 2].height, OUT, 1e-12, "root");
    LENS_TEST(s.k == 2 && s.autocut.k == 2, "k=%d", s.k);
    LENS_TEST_REL(s.autocut.ratio, OUT / IN, 1e-12, "gap ratio");
    LENS_TEST_REL(s.autocut.low, IN, 1e-12, "inside height");
    LENS_TEST_REL(s.autocut.high, OUT, 1e-12, "next merge");
    char buf[128];
    dummy_section(&s, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "k=2 | 0: 0 2 4 | 1: 1 3 5"), "dummy section: %s", buf);
    for (int g = 0; g < 2; g++) {
        LENS_TEST(s.group_size[g] == 3, "group %d size %d", g, s.group_size[g]);
        LENS_TEST_REL(s.group_within[g], IN, 1e-12, "group %d inside", g);
    }
    /* each host is one run of the leaf order */
    int runs = 1;
    for (int i = 1; i < P; i++)
        runs += s.order[i] % 2 != s.order[i - 1] % 2;
    LENS_TEST(runs == 2, "hosts in %d runs of the leaf order", runs);
    LENS_TEST_REL(s.matrix[0 * P + 3], OUT, 1e-12, "matrix between hosts (median over lengths)");
    LENS_TEST_REL(s.matrix[2 * P + 4], IN, 1e-12, "matrix inside a host");
    LENS_TEST(s.matrix[1 * P + 1] == 0, "matrix diagonal");
    LENS_TEST(s.nj->nleaf == P, "NJ of %d leaves", s.nj->nleaf);
    LENS_TEST(s.links->procs == P && s.links->k >= 2, "link clusters: %d", s.links->k);
    LENS_TEST(s.an->n == 0, "a clean cube: %d anomalies", s.an->n);
    lens_structure_release(&s);
    LENS_TEST(!s.z && !s.dm && s.k == 0, "release zeroes");
    lens_structure_release(&s); /* twice is harmless */
}

/* Only the parts asked for; the same tree and cut as with everything (one function). */
static void test_parts(const struct lens_cube *c)
{
    struct lens_err e = {0};
    struct lens_structure_opts o;
    lens_structure_opts_default(&o);
    struct lens_structure all, s;
    LENS_TEST(lens_structure_run(c, &o, &all, &e) == LENS_OK, "%s", e.msg);
    o.parts = LENS_STRUCTURE_TREE | LENS_STRUCTURE_CUT;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(s.z && s.label && !s.nj && !s.links && !s.an && !s.matrix, "cluster pays for the tree only");
    LENS_TEST(all.label && s.label && !memcmp(all.label, s.label, P * sizeof *s.label) &&
                  !memcmp(all.order, s.order, P * sizeof *s.order),
              "same groups and order as with every part");
    lens_structure_release(&s);
    o.parts = LENS_STRUCTURE_TREE;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK && s.z && s.order && !s.label && s.k == 0,
              "a tree without a cut");
    lens_structure_release(&s);
    o.parts = LENS_STRUCTURE_ANOMALIES;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK && s.an && !s.dm && !s.z && !s.links,
              "anomalies only: no distances");
    lens_structure_release(&s);
    lens_structure_release(&all);
}

static void test_cuts(const struct lens_cube *c)
{
    struct lens_err e = {0};
    struct lens_structure_opts o;
    lens_structure_opts_default(&o);
    o.parts = LENS_STRUCTURE_TREE | LENS_STRUCTURE_CUT;
    struct lens_structure s;
    o.cut = LENS_STRUCTURE_CUT_K;
    o.k = 6;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK && s.k == 6 && s.group_size[5] == 1 &&
                  isnan(s.group_within[5]),
              "k = n: singletons, no inside distance");
    lens_structure_release(&s);
    o.k = 7;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_EINVAL && strstr(e.msg, "7 clusters"), "k > n: %s", e.msg);
    lens_structure_release(&s);
    /* kept in words, the failed tree takes NJ with it (no distances left), and says so for both;
     * the cube parts still run */
    o.keep_going = 1;
    o.parts = LENS_STRUCTURE_ALL;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK && !s.z && !s.nj && !s.dm &&
                  s.tree_err.code == LENS_EINVAL && s.nj_err.code == LENS_EINVAL &&
                  strstr(s.nj_err.msg, "7 clusters") && s.links && s.an,
              "k > n kept in words: tree %d, nj %d (%s)", s.tree_err.code, s.nj_err.code, s.nj_err.msg);
    lens_structure_release(&s);
    o.keep_going = 0;
    o.parts = LENS_STRUCTURE_TREE | LENS_STRUCTURE_CUT;
    o.cut = LENS_STRUCTURE_CUT_HEIGHT;
    static const double h[3] = {0.5 * IN, 2 * IN, 2 * OUT};
    static const int want[3] = {6, 2, 1};
    for (int i = 0; i < 3; i++) {
        o.height = h[i];
        LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK && s.k == want[i], "cut at %g: k=%d want %d",
                  h[i], s.k, want[i]);
        lens_structure_release(&s);
    }
    o.cut = LENS_STRUCTURE_CUT_NONE;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK && s.k == 0 && !s.label, "no cut");
    lens_structure_release(&s);
}

/* Group sizes and inside means of every cut of a 61-process matrix with irregular distances,
 * against the plain definition computed here group by group (pairs in condensed order, the
 * order the report always summed in): equal bit for bit, including a fine cut (k near n),
 * which one pass over the pairs must handle as fast as a coarse one. */
static void test_group_stats(void)
{
    enum { N = 61 };
    static double a[N * N];
    unsigned x = 12345;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            x = x * 1103515245u + 12345u; /* any irregular values will do */
            a[i * N + j] = i == j ? 0 : 1e-6 * (1 + (x >> 8) % 1000 / 97.0);
        }
    int worst = 0;
    for (int k = 1; k <= N; k += 3) {
        struct lens_err e = {0};
        struct lens_distmat *dm = NULL;
        LENS_TEST(lens_distmat_from_square(a, N, &dm, &e) == LENS_OK, "%s", e.msg);
        struct lens_structure_opts o;
        lens_structure_opts_default(&o);
        o.parts = LENS_STRUCTURE_TREE | LENS_STRUCTURE_CUT;
        o.cut = LENS_STRUCTURE_CUT_K;
        o.k = k;
        struct lens_structure s;
        int rc = lens_structure_run_distances(dm, NULL, &o, &s, &e);
        LENS_TEST(rc == LENS_OK && s.k == k, "cut into %d: %s", k, e.msg);
        for (int g = 0; rc == LENS_OK && g < k; g++) {
            int size = 0;
            double sum = 0;
            long pairs = 0;
            for (int i = 0; i < N; i++) {
                size += s.label[i] == g;
                for (int j = i + 1; j < N; j++)
                    if (s.label[i] == g && s.label[j] == g) {
                        sum += s.dm->d[lens_distmat_index(N, i, j)];
                        pairs++;
                    }
            }
            double want = pairs ? sum / pairs : NAN;
            int same = s.group_size[g] == size &&
                       (isnan(want) ? isnan(s.group_within[g]) : s.group_within[g] == want);
            worst += !same;
        }
        lens_structure_release(&s);
    }
    LENS_TEST(worst == 0, "%d groups differ from the definition", worst);
}

/* A pair without any finite delay cannot be clustered: returned, or kept in words. */
static void test_errors(struct lens_cube *c)
{
    struct lens_err e = {0};
    struct lens_structure_opts o;
    lens_structure_opts_default(&o);
    struct lens_structure s;
    for (int k = 0; k < 3; k++)
        LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, 0, 3) = LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, 3, 0) = NAN;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_EDATA, "NaN pair returned: %s", e.msg);
    lens_structure_release(&s);
    o.keep_going = 1;
    LENS_TEST(lens_structure_run(c, &o, &s, &e) == LENS_OK, "keep going: %s", e.msg);
    LENS_TEST(!s.z && !s.nj && s.tree_err.code == LENS_EDATA && s.nj_err.code == LENS_EDATA &&
                  s.links && s.an,
              "tree and NJ kept in words (%s), links and anomalies still run", s.tree_err.msg);
    lens_structure_release(&s);
    for (int k = 0; k < 3; k++)
        LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, 0, 3) = LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, 3, 0) = OUT;

    /* distances without a cube: the cube parts are refused, dm is taken either way */
    struct lens_distmat *dm = NULL;
    LENS_TEST(lens_distmat_from_cube(c, LENS_STAT_MEDIAN, -1, &dm, &e) == LENS_OK, "%s", e.msg);
    o.keep_going = 0;
    o.parts = LENS_STRUCTURE_TREE | LENS_STRUCTURE_LINKS;
    LENS_TEST(lens_structure_run_distances(dm, NULL, &o, &s, &e) == LENS_EINVAL && strstr(e.msg, "need a cube"),
              "links without a cube: %s", e.msg);
    lens_structure_release(&s);
}

/* Every allocation fails once in turn: ENOMEM, with or without keep_going, never a crash or
 * a leak (the sanitizer build checks the leaks). */
static void test_faults(const struct lens_cube *c)
{
    for (int keep = 0; keep < 2; keep++) {
        int ok = 0, bad = 0;
        for (long k = 1; k < 2000 && !ok; k++) {
            struct lens_err e = {0};
            struct lens_structure_opts o;
            lens_structure_opts_default(&o);
            o.keep_going = keep;
            o.links.threads = 1;
            struct lens_structure s;
            lens_malloc_fail_after(k);
            int rc = lens_structure_run(c, &o, &s, &e);
            lens_malloc_fail_after(0);
            if (rc == LENS_OK)
                ok = s.z && s.nj && s.links && s.an;
            else if (rc != LENS_ENOMEM)
                bad++;
            lens_structure_release(&s);
        }
        LENS_TEST(ok && bad == 0, "keep_going %d under allocation failures: ok %d, bad %d", keep, ok, bad);
    }
}

int main(void)
{
    struct lens_cube *c = hand_cube();
    if (c) {
        test_all_parts(c);
        test_parts(c);
        test_cuts(c);
        test_group_stats();
        test_errors(c);
        test_faults(c);
    }
    lens_cube_free(c);
    return LENS_TEST_DONE("test_structure");
}
