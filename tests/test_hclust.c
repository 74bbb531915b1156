/* Tests of distmat, hclust and the Newick writer/parser: a hand-worked linkage, a naive
 * O(n^3) Lance-Williams reference for every method, recovery of planted groups, CSV parsing
 * and its error messages, cube input, Newick round trips and allocation-failure injection. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/cube/cube.h"
#include "analysis/structure/distmat.h"
#include "analysis/structure/hclust.h"
#include "analysis/structure/newick.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"

static char tmpdir[] = "/tmp/test_hclust.XXXXXX";

/* xorshift64*: reproducible high-entropy inputs */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double urand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
    return path;
}

/* Euclidean distances of n random points in dim dimensions, condensed. */
static double *random_points(int n, int dim)
{
    double *x = malloc(sizeof(double) * n * dim), *d = malloc(sizeof(double) * n * (n - 1) / 2);
    for (int i = 0; i < n * dim; i++)
        x[i] = 100 * urand() - 50;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double s = 0;
            for (int k = 0; k < dim; k++)
                s += (x[i * dim + k] - x[j * dim + k]) * (x[i * dim + k] - x[j * dim + k]);
            d[lens_distmat_index(n, i, j)] = sqrt(s);
        }
    free(x);
    return d;
}

/* ---- independent reference: repeatedly merge the globally closest pair (lowest ids first
 * among equals), Lance-Williams update written from the textbook coefficients on squared
 * distances for the geometric methods. ---- */
static void naive_linkage(const double *d0, int n, int method, struct lens_hclust_step *z)
{
    double *d = malloc(sizeof(double) * n * n);
    int *id = malloc(sizeof(int) * n), *sz = malloc(sizeof(int) * n), *act = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) {
        id[i] = i;
        sz[i] = 1;
        act[i] = 1;
        for (int j = 0; j < n; j++)
            d[i * n + j] = i == j ? 0 : d0[lens_distmat_index(n, i, j)];
    }
    for (int k = 0; k < n - 1; k++) {
        int x = -1, y = -1;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++)
                if (act[i] && act[j] && (x < 0 || d[i * n + j] < d[x * n + y]))
                    x = i, y = j;
        double dxy = d[x * n + y], nx = sz[x], ny = sz[y];
        z[k].left = id[x] < id[y] ? id[x] : id[y];
        z[k].right = id[x] < id[y] ? id[y] : id[x];
        z[k].height = dxy;
        z[k].size = sz[x] + sz[y];
        for (int i = 0; i < n; i++) {
            if (!act[i] || i == x || i == y)
                continue;
            double a = d[x * n + i], b = d[y * n + i], ni = sz[i], v = 0;
            switch (method) {
            case LENS_HCLUST_SINGLE: v = fmin(a, b); break;
            case LENS_HCLUST_COMPLETE: v = fmax(a, b); break;
            case LENS_HCLUST_AVERAGE: v = (nx * a + ny * b) / (nx + ny); break;
            case LENS_HCLUST_WEIGHTED: v = (a + b) / 2; break;
            case LENS_HCLUST_CENTROID:
                v = sqrt(nx / (nx + ny) * a * a + ny / (nx + ny) * b * b -
                         nx * ny / ((nx + ny) * (nx + ny)) * dxy * dxy);
                break;
            case LENS_HCLUST_MEDIAN: v = sqrt(a * a / 2 + b * b / 2 - dxy * dxy / 4); break;
            case LENS_HCLUST_WARD:
                v = sqrt(((nx + ni) * a * a + (ny + ni) * b * b - ni * dxy * dxy) / (nx + ny + ni));
                break;
            }
            d[y * n + i] = d[i * n + y] = v;
        }
        act[x] = 0;
        sz[y] += sz[x];
        id[y] = n + k;
    }
    free(d);
    free(id);
    free(sz);
    free(act);
}

static void test_against_naive(void)
{
    struct lens_err e = {0};
    int sizes[] = {2, 3, 9, 41, 120};
    for (int s = 0; s < 5; s++) {
        int n = sizes[s];
        double *d = random_points(n, 2 + s);
        double *work = malloc(sizeof(double) * n * (n - 1) / 2 + 1);
        struct lens_hclust_step *z = malloc(sizeof *z * n), *want = malloc(sizeof *want * n);
        for (int m = 0; m < LENS_HCLUST_NMETHODS; m++) {
            memcpy(work, d, sizeof(double) * n * (n - 1) / 2);
            int rc = lens_hclust_run(work, n, m, z, &e);
            LENS_TEST(rc == LENS_OK, "n=%d %s: %s", n, lens_hclust_method_name(m), e.msg);
            naive_linkage(d, n, m, want);
            /* the reference finds merges in height order for the monotone methods; for
             * centroid/median both keep discovery order */
            int bad = -1;
            for (int k = 0; k < n - 1 && bad < 0; k++)
                if (z[k].left != want[k].left || z[k].right != want[k].right ||
                    z[k].size != want[k].size ||
                    !lens_test_rel_ok(z[k].height, want[k].height, 1e-10))
                    bad = k;
            LENS_TEST(bad < 0, "n=%d %s: row %d is %d,%d,%.17g,%d, reference %d,%d,%.17g,%d", n,
                      lens_hclust_method_name(m), bad, bad < 0 ? 0 : z[bad].left,
                      bad < 0 ? 0 : z[bad].right, bad < 0 ? 0 : z[bad].height,
                      bad < 0 ? 0 : z[bad].size, bad < 0 ? 0 : want[bad].left,
                      bad < 0 ? 0 : want[bad].right, bad < 0 ? 0 : want[bad].height,
                      bad < 0 ? 0 : want[bad].size);
        }
        free(d);
        free(work);
        free(z);
        free(want);
    }
}

/* Five objects worked by hand (average linkage, UPGMA):
 *   d(0,1)=3.7 d(0,2)=9.1 d(0,3)=8.3 d(0,4)=12.9 d(1,2)=8.8 d(1,3)=7.4 d(1,4)=11.6
 *   d(2,3)=5.2 d(2,4)=6.1 d(3,4)=10.3
 * 1) {0,1} at 3.7 -> cluster 5; d(5,2)=8.95 d(5,3)=7.85 d(5,4)=12.25
 * 2) {2,3} at 5.2 -> 6; d(6,5)=(8.95+7.85)/2=8.4, d(6,4)=(6.1+10.3)/2=8.2
 * 3) {4,6} at 8.2 -> 7 (size 3); d(7,5)=(12.25 + 2*8.4)/3=9.6833...
 * 4) {5,7} at 29.05/3 -> 8 (size 5). Leaf order: 0 1 4 2 3. */
static void test_hand_worked(void)
{
    double d[10] = {3.7, 9.1, 8.3, 12.9, 8.8, 7.4, 11.6, 5.2, 6.1, 10.3};
    struct lens_hclust_step z[4];
    struct lens_err e = {0};
    LENS_TEST(lens_hclust_run(d, 5, LENS_HCLUST_AVERAGE, z, &e) == LENS_OK, "%s", e.msg);
    int want[4][3] = {{0, 1, 2}, {2, 3, 2}, {4, 6, 3}, {5, 7, 5}};
    double h[4] = {3.7, 5.2, 8.2, 29.05 / 3};
    for (int k = 0; k < 4; k++) {
        LENS_TEST(z[k].left == want[k][0] && z[k].right == want[k][1] && z[k].size == want[k][2],
                  "row %d: %d,%d,%d", k, z[k].left, z[k].right, z[k].size);
        LENS_TEST_REL(z[k].height, h[k], 1e-12, "height of row %d", k);
    }
    int order[5], label[5];
    LENS_TEST(lens_hclust_leaf_order(z, 5, order, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(order[0] == 0 && order[1] == 1 && order[2] == 4 && order[3] == 2 && order[4] == 3,
              "leaf order %d %d %d %d %d", order[0], order[1], order[2], order[3], order[4]);
    LENS_TEST(lens_hclust_cut(z, 5, 2, label, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(label[0] == 0 && label[1] == 0 && label[2] == 1 && label[3] == 1 && label[4] == 1,
              "cut at 2");
    LENS_TEST(lens_hclust_cut(z, 5, 6, label, &e) == LENS_EINVAL, "cut into 6 of 5");

    /* the same tree as Newick, through the parser and back */
    struct lens_newick *t = NULL, *p = NULL;
    LENS_TEST(lens_newick_from_hclust(z, 5, &t, &e) == LENS_OK, "%s", e.msg);
    const char *labels[5] = {"node 1", "o'k", "plain-2", "x:y", "r4@node004"};
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    LENS_TEST(lens_newick_write(t, labels, fp, &e) == LENS_OK, "%s", e.msg);
    fclose(fp);
    /* 29.05/3 - 3.7 = 5.98333, 29.05/3 - 8.2 = 1.48333, 8.2 - 5.2 = 3 */
    LENS_TEST(!strcmp(buf, "(('node 1':3.7000000000000002,'o''k':3.7000000000000002):"
                           "5.9833333333333334,(r4@node004:8.1999999999999993,"
                           "(plain-2:5.2000000000000002,'x:y':5.2000000000000002):"
                           "2.9999999999999991):1.4833333333333343);\n"),
              "newick text: %s", buf);
    LENS_TEST(lens_newick_parse(buf, labels, 5, &p, &e) == LENS_OK, "%s", e.msg);
    int rf = -1;
    double md = -1;
    if (p) {
        LENS_TEST(lens_newick_compare(t, p, &rf, &md, &e) == LENS_OK, "%s", e.msg);
        LENS_TEST(rf == 0 && md < 1e-15, "round trip rf %d maxdiff %g", rf, md);
        LENS_TEST(!strcmp(p->labels[1], "o'k"), "quoted label parsed as %s", p->labels[1]);
    }
    lens_newick_free(p);
    free(buf);
    const char *bad[] = {"((a,b),c", "((a,b),zz);", "((a,b),a);", "((a,b,c,d),e);", "(a:x,b);"};
    const char *abc[5] = {"a", "b", "c", "d", "e"};
    for (int i = 0; i < 5; i++) {
        p = NULL;
        LENS_TEST(lens_newick_parse(bad[i], abc, i < 3 ? 3 : i == 3 ? 5 : 2, &p, &e) ==
                      LENS_EFORMAT, "bad newick '%s' accepted", bad[i]);
        lens_newick_free(p);
    }
    lens_newick_free(t);
}

/* Four groups of 6 points, far apart, under a shuffled numbering: cutting at 4 clusters
 * gives the groups back for every method, and each group is contiguous in the leaf order. */
static void test_planted_groups(void)
{
    enum { G = 4, PER = 6, N = G * PER };
    int group[N], perm[N];
    double x[N][3];
    for (int i = 0; i < N; i++)
        perm[i] = i;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)(urand() * (i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (int i = 0; i < N; i++) {
        int g = i / PER, p = perm[i];
        group[p] = g;
        for (int k = 0; k < 3; k++)
            x[p][k] = 1000.0 * (g == k) + 1000.0 * (g == 3) * (k == 0) * -1 + urand();
    }
    double d[N * (N - 1) / 2];
    for (int m = 0; m < LENS_HCLUST_NMETHODS; m++) {
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N; j++)
                d[lens_distmat_index(N, i, j)] =
                    sqrt(pow(x[i][0] - x[j][0], 2) + pow(x[i][1] - x[j][1], 2) +
                         pow(x[i][2] - x[j][2], 2));
        struct lens_hclust_step z[N - 1];
        struct lens_err e = {0};
        int label[N], order[N], ok = 1;
        LENS_TEST(lens_hclust_run(d, N, m, z, &e) == LENS_OK, "%s", e.msg);
        lens_hclust_cut(z, N, G, label, &e);
        lens_hclust_leaf_order(z, N, order, &e);
        for (int i = 0; i < N; i++)
            for (int j = 0; j < N; j++)
                ok &= (label[i] == label[j]) == (group[i] == group[j]);
        for (int i = 0; i < N; i++)
            ok &= group[order[i]] == group[order[i / PER * PER]];
        LENS_TEST(ok, "%s: planted groups not recovered", lens_hclust_method_name(m));
    }
}

static void test_csv(void)
{
    struct lens_err e = {0};
    struct lens_distmat *m = NULL;
    /* asymmetric with a quoted header, CRLF and trailing blank lines */
    const char *p = write_file("ok.csv", "\"alpha\", beta ,gamma\r\n"
                                         "0, 2.5e-6, 7.25e-6\r\n3.5e-6,0,4.0e-6\r\n"
                                         "7.75e-6, 6.0e-6, 0\r\n\r\n\n");
    LENS_TEST(lens_distmat_read_csv(p, &m, &e) == LENS_OK, "%s", e.msg);
    if (m) {
        LENS_TEST(m->n == 3, "n %d", m->n);
        LENS_TEST_REL(m->d[0], 3.0e-6, 1e-15, "d(0,1)");
        LENS_TEST_REL(m->d[1], 7.5e-6, 1e-15, "d(0,2)");
        LENS_TEST_REL(m->d[2], 5.0e-6, 1e-15, "d(1,2)");
        /* asymmetries 1/6, 1/30, 1/5: max at (1,2), mean 0.4/3 */
        LENS_TEST_REL(m->asym_max, 0.2, 1e-12, "asymmetry max");
        LENS_TEST_REL(m->asym_mean, 0.4 / 3, 1e-12, "asymmetry mean");
        LENS_TEST(m->asym_i == 1 && m->asym_j == 2 && m->asym_over == 2, "asymmetric pair");
        LENS_TEST(m->labels && !strcmp(m->labels[0], "alpha") && !strcmp(m->labels[1], "beta"),
                  "labels");
    }
    lens_distmat_free(m);

    struct {
        const char *name, *text, *want;
        int code;
    } bad[] = {
        {"short.csv", "0,1,2\n1,0,3\n", "short.csv:2: matrix is not square: the file ends after 2 rows of 3", LENS_EFORMAT},
        {"ragged.csv", "0,1,2\n1,0\n2,3,0\n", "ragged.csv:2: matrix is not square: row 2 has 2 values", LENS_EFORMAT},
        {"long.csv", "0,1\n1,0\n5,5\n", "long.csv:3: matrix is not square: more than 2 rows", LENS_EFORMAT},
        {"cell.csv", "a,b,c\n0,1,2\n1,0,3\n2,3x,0\n", "cell.csv:4:3: cell 2 '3x' is not a number", LENS_EFORMAT},
        {"neg.csv", "0,1.5\n-1.5,0\n", "neg.csv:2:1: distance -1.5 (row 2, column 1) must be finite", LENS_EDATA},
        {"nan.csv", "0,nan\n1,0\n", "nan.csv:1:3: distance nan", LENS_EDATA},
        {"one.csv", "0\n", "one.csv:1: need at least 2 processes", LENS_EDATA},
        {"empty.csv", "\n\n", "empty.csv: empty file", LENS_EFORMAT},
        {"gap.csv", "0,1\n\n1,0\n", "gap.csv:2: blank line inside the matrix", LENS_EFORMAT},
        {"label.csv", "a,,c\n0,1,2\n1,0,3\n2,3,0\n", "label.csv:1: label 2 is empty", LENS_EFORMAT},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        p = write_file(bad[i].name, bad[i].text);
        m = NULL;
        int rc = lens_distmat_read_csv(p, &m, &e);
        LENS_TEST(rc == bad[i].code && !m, "%s: rc %d", bad[i].name, rc);
        LENS_TEST(strstr(e.msg, bad[i].want) != NULL, "%s: message '%s'", bad[i].name, e.msg);
    }
    LENS_TEST(lens_distmat_read_csv("/nonexistent/d.csv", &m, &e) == LENS_EIO &&
                  strstr(e.msg, "/nonexistent/d.csv: "), "missing file: %s", e.msg);
    /* lens_distmat_read sends an existing non-NetCDF file to the CSV reader */
    p = write_file("matrix.txt", "0,4\n4,0\n");
    LENS_TEST(lens_distmat_read(p, LENS_STAT_MEDIAN, -1, &m, &e) == LENS_OK && m->d[0] == 4,
              "csv without .csv suffix: %s", e.msg);
    lens_distmat_free(m);
}

static void test_square(void)
{
    double a[9] = {0, 2.5e-6, 7.25e-6, 3.5e-6, 0.125, 4.0e-6, 7.75e-6, 6.0e-6, 0};
    struct lens_err e = {0};
    struct lens_distmat *m = NULL;
    LENS_TEST(lens_distmat_from_square(a, 3, &m, &e) == LENS_OK, "%s", e.msg);
    if (m) {
        LENS_TEST_REL(m->d[1], 7.5e-6, 1e-15, "square d(0,2)");
        LENS_TEST_REL(m->asym_max, 0.2, 1e-12, "square asymmetry");
        LENS_TEST(m->diag_nonzero == 1 && !m->labels && !m->from_cube, "square fields");
    }
    lens_distmat_free(m);
    a[5] = -1e-9;
    LENS_TEST(lens_distmat_from_square(a, 3, &m, &e) == LENS_EDATA && !m &&
                  strstr(e.msg, "row 1, column 2"), "negative: %s", e.msg);
    LENS_TEST(lens_distmat_from_square(a, 1, &m, &e) == LENS_EINVAL && !m, "n = 1");
}

static void test_cube(void)
{
    enum { P = 3, L = 4 };
    double data[L * P * P];
    char *hosts[P] = {"n1", "n1", "n2"};
    struct lens_cube c = {.procs = P, .nlen = L, .hosts = hosts};
    c.data[LENS_STAT_MEDIAN] = data;
    for (int k = 0; k < L; k++)
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++)
                data[(k * P + i) * P + j] = i == j ? 0 : 1e-6 * (1 + i + 2 * j) * (1 + 0.37 * k);
    data[(2 * P + 0) * P + 1] = NAN; /* skipped in the median over lengths */
    struct lens_err e = {0};
    struct lens_distmat *m = NULL;
    LENS_TEST(lens_distmat_from_cube(&c, LENS_STAT_MEDIAN, -1, &m, &e) == LENS_OK, "%s", e.msg);
    if (m) {
        /* A(0,1): 3e-6 * {1, 1.37, 2.11} -> median 1.37; A(1,0): 2e-6 * {1,1.37,1.74,2.11}
         * -> median 1.555; d = (4.11 + 3.11) / 2 e-6 */
        LENS_TEST_REL(m->d[0], 3.61e-6, 1e-12, "median over lengths d(0,1)");
        LENS_TEST(!strcmp(m->labels[2], "r2@n2"), "label %s", m->labels[2]);
    }
    lens_distmat_free(m);
    LENS_TEST(lens_distmat_from_cube(&c, LENS_STAT_MEDIAN, 1, &m, &e) == LENS_OK, "%s", e.msg);
    if (m)
        LENS_TEST_REL(m->d[2], 1e-6 * (6 + 5) / 2 * 1.37, 1e-12, "length 1 d(1,2)");
    lens_distmat_free(m);
    /* every allocation failure is reported and leaves nothing behind */
    int seen = 0;
    for (long nth = 1; nth < 100; nth++) {
        lens_malloc_fail_after(nth);
        int rc = lens_distmat_from_cube(&c, LENS_STAT_MEDIAN, 0, &m, &e);
        lens_malloc_fail_after(0);
        LENS_TEST(rc == LENS_OK || (rc == LENS_ENOMEM && !m), "failure %ld: %d", nth, rc);
        lens_distmat_free(m);
        m = NULL;
        if (rc == LENS_OK)
            break;
        seen++;
    }
    LENS_TEST(seen >= 4, "%d allocation failures injected", seen);
    for (int k = 0; k < L; k++)
        data[(k * P + 1) * P + 2] = data[(k * P + 2) * P + 1] = NAN;
    LENS_TEST(lens_distmat_from_cube(&c, LENS_STAT_MEDIAN, -1, &m, &e) == LENS_EDATA &&
                  strstr(e.msg, "ranks 1 and 2"), "no finite value: %s", e.msg);
    LENS_TEST(lens_distmat_from_cube(&c, LENS_STAT_MIN, -1, &m, &e) == LENS_EDATA,
              "missing statistic");
}

/* Ground truth from the synthetic machine: 48 processes on 4 nodes of 2 sockets. Cutting
 * the tree into 4 clusters gives the hosts exactly (adjusted Rand index 1) and into 8 the
 * sockets, for every method, from the median over lengths and from one length. */
static void test_synthetic(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = 48;
    o.seed = 77031;
    struct lens_cube *c = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_synth_cube(&o, &c, &e) == LENS_OK, "%s", e.msg);
    if (!c)
        return;
    int n = o.procs, per_node = n / o.nodes, per_socket = per_node / o.sockets;
    for (int k = -1; k < c->nlen; k += c->nlen) {
        for (int m = 0; m < LENS_HCLUST_NMETHODS; m++) {
            struct lens_distmat *dm = NULL;
            LENS_TEST(lens_distmat_from_cube(c, LENS_STAT_MEDIAN, k, &dm, &e) == LENS_OK, "%s",
                      e.msg);
            if (!dm)
                continue;
            struct lens_hclust_step z[47];
            int label[48], ok_node = 1, ok_socket = 1;
            LENS_TEST(lens_hclust_run(dm->d, n, m, z, &e) == LENS_OK, "%s", e.msg);
            lens_hclust_cut(z, n, o.nodes, label, &e);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    ok_node &= (label[i] == label[j]) == !strcmp(c->hosts[i], c->hosts[j]);
            lens_hclust_cut(z, n, o.nodes * o.sockets, label, &e);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++)
                    ok_socket &= (label[i] == label[j]) == (i / per_socket == j / per_socket);
            LENS_TEST(ok_node && ok_socket, "synthetic, length index %d, %s: nodes %d sockets %d",
                      k, lens_hclust_method_name(m), ok_node, ok_socket);
            LENS_TEST(!strcmp(dm->labels[per_node], "r12@node02"), "label %s",
                      dm->labels[per_node]);
            lens_distmat_free(dm);
        }
    }
    lens_cube_free(c);
}

/* Points on a line with growing gaps: single linkage gives a caterpillar as deep as it is
 * wide, which the writer, the parser and the leaf order must walk without recursion. */
static void test_deep_tree(void)
{
    enum { N = 3000 };
    double *d = malloc(sizeof(double) * N * (N - 1) / 2), *x = malloc(sizeof(double) * N);
    struct lens_hclust_step *z = malloc(sizeof *z * N);
    int *order = malloc(sizeof(int) * N);
    char **names = malloc(sizeof(char *) * N);
    x[0] = 0;
    for (int i = 1; i < N; i++)
        x[i] = x[i - 1] + 1 + i * 1e-3;
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            d[lens_distmat_index(N, i, j)] = x[j] - x[i];
    struct lens_err e = {0};
    struct lens_newick *t = NULL, *p = NULL;
    LENS_TEST(lens_hclust_run(d, N, LENS_HCLUST_SINGLE, z, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(z[N - 2].size == N && z[N - 2].left == N - 1 && z[N - 2].right == 2 * N - 3,
              "last merge adds the far point: %d %d", z[N - 2].left, z[N - 2].right);
    LENS_TEST(lens_hclust_leaf_order(z, N, order, &e) == LENS_OK && order[0] == N - 1 &&
                  order[N - 2] == 0 && order[N - 1] == 1, "deep leaf order %d ... %d",
              order[0], order[N - 1]);
    LENS_TEST(lens_newick_from_hclust(z, N, &t, &e) == LENS_OK, "%s", e.msg);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    lens_newick_write(t, NULL, fp, &e);
    fclose(fp);
    for (int i = 0; i < N; i++) {
        names[i] = malloc(16);
        snprintf(names[i], 16, "%d", i);
    }
    int rf = -1;
    double md = -1;
    LENS_TEST(lens_newick_parse(buf, (const char *const *)names, N, &p, &e) == LENS_OK, "%s",
              e.msg);
    if (p)
        lens_newick_compare(t, p, &rf, &md, &e);
    LENS_TEST(rf == 0 && md < 1e-9, "deep tree round trip: rf %d maxdiff %g", rf, md);
    for (int i = 0; i < N; i++)
        free(names[i]);
    free(names);
    free(buf);
    lens_newick_free(t);
    lens_newick_free(p);
    free(d);
    free(x);
    free(z);
    free(order);
}

/* Every allocation of the reader, the clustering and the tree may fail: each failure must be
 * reported as LENS_ENOMEM and leave nothing allocated (ASan checks the leaks). */
static void test_alloc_failures(void)
{
    const char *p = write_file("fi.csv", "h0,h1,h2,h3\n0,1.5,2.25,3.125\n1.5,0,1.75,2.5\n"
                                         "2.25,1.75,0,1.0625\n3.125,2.5,1.0625,0\n");
    int failures = 0, successes = 0;
    for (long nth = 1; nth < 1000 && successes == 0; nth++) {
        struct lens_err e = {0};
        struct lens_distmat *m = NULL;
        struct lens_newick *t = NULL;
        struct lens_hclust_step z[3];
        lens_malloc_fail_after(nth);
        int rc = lens_distmat_read_csv(p, &m, &e);
        for (int meth = 0; rc == LENS_OK && meth < LENS_HCLUST_NMETHODS; meth++) {
            double d[6];
            memcpy(d, m->d, sizeof d);
            rc = lens_hclust_run(d, 4, meth, z, &e);
        }
        if (rc == LENS_OK && (rc = lens_newick_from_hclust(z, 4, &t, &e)) == LENS_OK) {
            char path[300];
            snprintf(path, sizeof path, "%s/fi.nwk", tmpdir);
            rc = lens_newick_save(t, (const char *const *)m->labels, path, &e);
        }
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            successes++;
        else
            failures += rc == LENS_ENOMEM;
        LENS_TEST(rc == LENS_OK || rc == LENS_ENOMEM || rc == LENS_EIO,
                  "failure %ld gave %d: %s", nth, rc, e.msg);
        lens_newick_free(t);
        lens_distmat_free(m);
    }
    LENS_TEST(failures > 10 && successes > 0, "%d injected failures seen, %d runs completed",
              failures, successes);
}

static void test_errors(void)
{
    struct lens_err e = {0};
    double d[1] = {1};
    struct lens_hclust_step z[1];
    LENS_TEST(lens_hclust_run(d, 1, LENS_HCLUST_SINGLE, z, &e) == LENS_EINVAL, "n = 1");
    LENS_TEST(lens_hclust_run(d, 2, 7, z, &e) == LENS_EINVAL, "method 7");
    double dn[6] = {1.5, 2.5, 3.5, 4.5, NAN, 6.5};
    struct lens_hclust_step z4[3];
    LENS_TEST(lens_hclust_run(dn, 4, LENS_HCLUST_AVERAGE, z4, &e) == LENS_EDATA &&
                  strstr(e.msg, "objects 1 and 3 is nan"), "NaN: %s", e.msg);
    dn[4] = 5.5;
    dn[0] = INFINITY;
    LENS_TEST(lens_hclust_run(dn, 4, LENS_HCLUST_SINGLE, z4, &e) == LENS_EDATA &&
                  strstr(e.msg, "objects 0 and 1 is inf"), "inf: %s", e.msg);
    LENS_TEST(lens_hclust_method_parse("ward") == LENS_HCLUST_WARD, "parse ward");
    LENS_TEST(lens_hclust_method_parse("upgma") == -1, "parse upgma");
    LENS_TEST(lens_hclust_run(d, 2, LENS_HCLUST_WARD, z, &e) == LENS_OK && z[0].left == 0 &&
                  z[0].right == 1 && z[0].height == 1 && z[0].size == 2, "n = 2");
    char path[300];
    snprintf(path, sizeof path, "%s/z.csv", tmpdir);
    LENS_TEST(lens_hclust_write_csv(z, 2, path, &e) == LENS_OK, "%s", e.msg);
    FILE *fp = fopen(path, "r");
    char buf[128] = {0};
    size_t got = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp)
        fclose(fp);
    LENS_TEST(got > 0 && !strcmp(buf, "left,right,height,size\n0,1,1,2\n"), "z.csv: %s", buf);
    LENS_TEST(lens_hclust_write_csv(z, 2, "/nonexistent/z.csv", &e) == LENS_EIO, "bad path");
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    test_hand_worked();
    test_against_naive();
    test_planted_groups();
    test_csv();
    test_square();
    test_cube();
    test_synthetic();
    test_deep_tree();
    test_errors();
    test_alloc_failures();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return LENS_TEST_DONE("test_hclust");
}
