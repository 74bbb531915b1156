/* Tests for analysis/structure/links.c: the scree rule on hand-made diameter sequences; the distance
 * against the formula with its variance floor; the known link classes of a 2 nodes x 2 sockets
 * machine; the lazy in-place implementation against a naive one with a full distance matrix;
 * the same result on 1, 2 and 3 threads; errors and allocation failures. */
#include "analysis/structure/links.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"
#include "links_naive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct lens_cube *synth(int procs, int nodes, int sockets, unsigned long seed)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = procs;
    o.nodes = nodes;
    o.sockets = sockets;
    o.seed = seed;
    struct lens_cube *c = NULL;
    struct lens_err e;
    if (lens_synth_cube(&o, &c, &e) != LENS_OK)
        fprintf(stderr, "synth: %s\n", e.msg);
    return c;
}

static int scree(const double *d, int n, int exhausted, double theta)
{
    struct lens_links_opts o;
    lens_links_opts_default(&o);
    o.scree_theta = theta;
    return lens_links_scree(d, n, exhausted, &o);
}

static void test_scree(void)
{
    const double two_levels[] = {584.7, 145.9, 6.083, 5.832, 5.537, 5.912};
    LENS_TEST(scree(two_levels, 6, 0, 0.1) == 3, "two levels: %d", scree(two_levels, 6, 0, 0.1));
    const double one_level[] = {212, 12, 11.9, 11.8, 11.7};
    LENS_TEST(scree(one_level, 5, 0, 0.1) == 2, "one level");
    /* seven equal splits (eight nodes alike) then noise: the plateau is part of the steep part */
    const double plateau[] = {500, 300, 300, 300, 300, 300, 300, 300, 5, 5.1, 4.9, 5};
    LENS_TEST(scree(plateau, 12, 0, 0.1) == 9, "plateau: %d", scree(plateau, 12, 0, 0.1));
    /* a single far outlier first must not hide the structure after it */
    const double outlier[] = {3193, 560.2, 551, 143.7, 110.5, 107.7, 24.09, 6.603, 6.659, 6.445, 7.636};
    LENS_TEST(scree(outlier, 11, 0, 0.1) == 8, "outlier: %d", scree(outlier, 11, 0, 0.1));
    /* a small drop followed by a big one is not the elbow: the window must stay flat */
    const double late[] = {100, 50, 49.9, 20, 19.9, 19.8, 19.7};
    LENS_TEST(scree(late, 7, 0, 0.1) == 4, "late elbow: %d", scree(late, 7, 0, 0.1));
    /* noise: slowly falling diameters never come down to half of the first */
    double noise[24];
    for (int i = 0; i < 24; i++)
        noise[i] = 12.0 - 0.13 * i + 0.21 * ((i * 7) % 5 - 2);
    LENS_TEST(scree(noise, 24, 0, 0.1) == 1, "noise: %d", scree(noise, 24, 0, 0.1));
    /* the threshold: drops of 95 after a drop of 500 are not below 0.1 x 500 ... */
    const double steady[] = {1000, 500, 405, 310, 215, 120};
    LENS_TEST(scree(steady, 6, 0, 0.1) == 1, "steady drops, theta 0.1: %d", scree(steady, 6, 0, 0.1));
    /* ... but are below 0.2 x 500 */
    LENS_TEST(scree(steady, 6, 0, 0.2) == 2, "steady drops, theta 0.2: %d", scree(steady, 6, 0, 0.2));
    /* the window must be complete: an elbow at the very end is not seen yet */
    LENS_TEST(scree(two_levels, 5, 0, 0.1) == 1, "incomplete window");
    LENS_TEST(scree(two_levels, 6, 0, 0.1) == 3, "complete window");
    /* exact clusters: every diameter left is 0, all splits were real */
    const double exact[] = {212, 150};
    LENS_TEST(scree(exact, 2, 1, 0.1) == 3, "exhausted");
    LENS_TEST(scree(exact, 2, 0, 0.1) == 1, "not exhausted");
    LENS_TEST(scree(exact, 0, 1, 0.1) == 1, "nothing to split");
}

static void test_rho(void)
{
    struct lens_cube *c = synth(16, 2, 2, 8675309);
    struct lens_links_opts o;
    lens_links_opts_default(&o);
    struct lens_err e;
    /* one deviation at 0 and one tiny: both floored */
    LENS_CUBE_AT(c, LENS_STAT_DEVIATION, 3, 2, 9) = 0;
    LENS_CUBE_AT(c, LENS_STAT_DEVIATION, 5, 11, 4) = 1e-15;
    double want = 0;
    for (int l = 0; l < c->nlen; l++) {
        double a = LENS_CUBE_AT(c, LENS_STAT_AVERAGE, l, 2, 9), b = LENS_CUBE_AT(c, LENS_STAT_AVERAGE, l, 11, 4);
        double da = LENS_CUBE_AT(c, LENS_STAT_DEVIATION, l, 2, 9), db = LENS_CUBE_AT(c, LENS_STAT_DEVIATION, l, 11, 4);
        da = fmax(da, fmax(1e-3 * a, 1e-9));
        db = fmax(db, fmax(1e-3 * b, 1e-9));
        want += (a - b) * (a - b) * (1 / (da * da) + 1 / (db * db));
    }
    double got;
    LENS_TEST(lens_links_rho(c, &o, 2, 9, 11, 4, &got, &e) == LENS_OK, "rho: %s", e.msg);
    LENS_TEST_REL(got, sqrt(want), 1e-12, "rho against the formula");
    LENS_TEST(lens_links_rho(c, &o, 2, 2, 11, 4, &got, &e) == LENS_EINVAL, "diagonal link refused");
    LENS_TEST(lens_links_rho(c, &o, 2, 9, 11, 4, &got, &e) == LENS_OK && got > 0, "again");
    lens_links_opts_default(&o);
    double self;
    lens_links_rho(c, &o, 7, 1, 7, 1, &self, &e);
    LENS_TEST(self == 0, "rho to itself %g", self);
    lens_cube_free(c);
}

/* Class of link (i, j) on a machine of `per_node` ranks per node and `per_socket` per socket. */
static int link_class(int i, int j, int per_node, int per_socket)
{
    return i / per_node != j / per_node ? 2 : i / per_socket != j / per_socket ? 1 : 0;
}

static void test_classes(int procs, unsigned long seed)
{
    struct lens_cube *c = synth(procs, 2, 2, seed);
    struct lens_links *r = NULL;
    struct lens_err e;
    LENS_TEST(lens_links_run(c, NULL, &r, &e) == LENS_OK, "run: %s", e.msg);
    if (!r) {
        lens_cube_free(c);
        return;
    }
    int pn = procs / 2, ps = procs / 4;
    long want[3] = {(long)procs * (ps - 1), (long)procs * ps, (long)procs * pn};
    LENS_TEST(r->k == 3 && r->elbow == 3, "P=%d: %d clusters, want 3", procs, r->k);
    for (int u = 0; u < r->k && r->k == 3; u++)
        LENS_TEST(r->clusters[u].size == want[u], "P=%d cluster %d: %ld links, want %ld", procs, u,
                  r->clusters[u].size, want[u]);
    /* every link of a class in one cluster, and that cluster holds only that class */
    int map[3] = {-1, -1, -1}, pure = 1;
    for (int i = 0; i < procs; i++)
        for (int j = 0; j < procs; j++) {
            if (i == j) {
                pure &= r->label[i * procs + j] == -1;
                continue;
            }
            int cl = link_class(i, j, pn, ps), lab = r->label[i * procs + j];
            if (map[cl] < 0)
                map[cl] = lab;
            pure &= map[cl] == lab;
        }
    LENS_TEST(pure && map[0] == 0 && map[1] == 1 && map[2] == 2, "P=%d: classes recovered (%d %d %d)",
              procs, map[0], map[1], map[2]);
    if (r->k == 3) {
        LENS_TEST(r->clusters[0].same_host == 1 && r->clusters[2].same_host == 0, "same host fractions");
        LENS_TEST_REL(r->clusters[2].mean[0], 1.9e-6 * 1.02, 0.02, "other-node latency at 0 B");
        struct lens_links_row row;
        char buf[160];
        lens_links_row(r, 2, &row, buf, sizeof buf);
        LENS_TEST(row.size == want[2] && strstr(buf, "0% within a host") != NULL, "row text '%s'", buf);
    }
    lens_links_free(r);
    lens_cube_free(c);
}

/* ---- a naive implementation of the same steps with the full distance matrix -------------- */
static double *full_matrix(const struct lens_cube *c, int *n)
{
    int P = c->procs, N = P * (P - 1);
    struct lens_links_opts o;
    lens_links_opts_default(&o);
    double *D = malloc((size_t)N * N * sizeof *D);
    struct lens_err e;
    for (int x = 0; x < N; x++)
        for (int y = 0; y < N; y++) {
            int i = x / (P - 1), j = x % (P - 1), p = y / (P - 1), q = y % (P - 1);
            j += j >= i;
            q += q >= p;
            double r;
            lens_links_rho(c, &o, i, j, p, q, &r, &e);
            D[(size_t)x * N + y] = r * r;
        }
    *n = N;
    return D;
}

static void test_naive(int procs, int nodes, unsigned long seed, int K)
{
    struct lens_cube *c = synth(procs, nodes, 2, seed);
    int N;
    double *D = full_matrix(c, &N);
    int *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
    naive(D, N, K, want);
    struct lens_links_opts o;
    lens_links_opts_default(&o);
    o.clusters = K;
    struct lens_links *r = NULL;
    struct lens_err e;
    LENS_TEST(lens_links_run(c, &o, &r, &e) == LENS_OK, "run: %s", e.msg);
    if (r) {
        for (int x = 0; x < N; x++) {
            int i = x / (procs - 1), j = x % (procs - 1);
            j += j >= i;
            got[x] = r->label[i * procs + j];
        }
        LENS_TEST(r->k == K, "K %d", r->k);
        LENS_TEST(same_partition(got, want, N), "P=%d K=%d: lazy and naive partitions differ", procs, K);
    }
    lens_links_free(r);
    free(D);
    free(want);
    free(got);
    lens_cube_free(c);
}

static void test_threads(int procs, int nodes, int K)
{
    struct lens_cube *c = synth(procs, nodes, 2, 5551212);
    struct lens_links *r[3] = {NULL, NULL, NULL};
    struct lens_err e;
    for (int t = 0; t < 3; t++) {
        struct lens_links_opts o;
        lens_links_opts_default(&o);
        o.threads = t + 1;
        o.clusters = K;
        LENS_TEST(lens_links_run(c, &o, &r[t], &e) == LENS_OK, "threads %d: %s", t + 1, e.msg);
    }
    for (int t = 1; t < 3 && r[0] && r[t]; t++) {
        size_t P = (size_t)procs;
        LENS_TEST(r[t]->k == r[0]->k && r[t]->ndiam == r[0]->ndiam, "%d threads: same k", t + 1);
        LENS_TEST(!memcmp(r[t]->label, r[0]->label, P * P * sizeof(int)), "%d threads: same labels", t + 1);
        LENS_TEST(!memcmp(r[t]->diameters, r[0]->diameters, r[0]->ndiam * sizeof(double)),
                  "%d threads: same diameters", t + 1);
        for (int u = 0; u < r[0]->k && r[t]->k == r[0]->k; u++)
            LENS_TEST(!memcmp(r[t]->clusters[u].mean, r[0]->clusters[u].mean, r[0]->nlen * sizeof(double)) &&
                          r[t]->clusters[u].diameter == r[0]->clusters[u].diameter,
                      "%d threads: cluster %d identical", t + 1, u);
    }
    for (int t = 0; t < 3; t++)
        lens_links_free(r[t]);
    lens_cube_free(c);
}

static void test_errors(void)
{
    struct lens_err e;
    struct lens_links *r = NULL;
    struct lens_cube *c;
    lens_cube_new(&c, 1, 3, 0, 8, 1u << LENS_STAT_AVERAGE, &e);
    LENS_TEST(lens_links_run(c, NULL, &r, &e) == LENS_EINVAL && !r, "one process");
    lens_cube_free(c);
    lens_cube_new(&c, 4, 3, 0, 8, 1u << LENS_STAT_MIN, &e);
    LENS_TEST(lens_links_run(c, NULL, &r, &e) == LENS_EINVAL && strstr(e.msg, "average"), "no mean: %s", e.msg);
    lens_cube_free(c);
    c = synth(16, 2, 2, 3);
    double keep = LENS_CUBE_AT(c, LENS_STAT_AVERAGE, 4, 6, 13);
    LENS_CUBE_AT(c, LENS_STAT_AVERAGE, 4, 6, 13) = NAN;
    LENS_TEST(lens_links_run(c, NULL, &r, &e) == LENS_EDATA && strstr(e.msg, "length 2048, row 6, column 13"),
              "NaN named: %s", e.msg);
    LENS_CUBE_AT(c, LENS_STAT_AVERAGE, 4, 6, 13) = keep;
    struct lens_links_opts o;
    lens_links_opts_default(&o);
    o.threads = 0;
    LENS_TEST(lens_links_run(c, &o, &r, &e) == LENS_EINVAL, "0 threads refused");
    /* no deviation: every variance at the floor, still the three classes */
    lens_free(c->data[LENS_STAT_DEVIATION]);
    c->data[LENS_STAT_DEVIATION] = NULL;
    LENS_TEST(lens_links_run(c, NULL, &r, &e) == LENS_OK && r && r->no_deviation, "no deviation");
    if (r)
        LENS_TEST(r->k == 3, "no deviation: %d clusters", r->k);
    lens_links_free(r);
    r = NULL;
    int fails = 0, oks = 0;
    for (long n = 1; n < 100; n++) {
        lens_malloc_fail_after(n);
        int rc = lens_links_run(c, NULL, &r, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            oks++;
            lens_links_free(r);
            break;
        }
        fails += rc == LENS_ENOMEM && !r;
    }
    LENS_TEST(oks == 1 && fails > 10, "allocation failures: %d then ok %d", fails, oks);
    lens_cube_free(c);
}

int main(void)
{
    test_scree();
    test_rho();
    test_classes(16, 1234567);
    test_classes(24, 7654321);
    test_naive(8, 2, 99991, 5);
    test_naive(12, 3, 31337, 9);
    test_threads(48, 4, 12);
    test_threads(130, 5, 6); /* 16,770 links: the distance loops run on several threads */
    test_errors();
    return LENS_TEST_DONE("test_links");
}
