/* Tests of neighbor joining: the textbook five-taxon example worked by hand, recovery of
 * random additive trees (Robinson-Foulds 0, equal branch lengths), the fast search against
 * the canonical one on random and tie-ridden matrices, small n and allocation failures. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/structure/distmat.h"
#include "analysis/structure/newick.h"
#include "analysis/structure/nj.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"

static uint64_t rng_state = 0x2545f4914f6cdd1dull;
static double urand(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static char *tree_text(const struct lens_newick *t)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct lens_err e = {0};
    lens_newick_write(t, NULL, fp, &e);
    fclose(fp);
    return buf;
}

/* Wikipedia's / Saitou-Nei style example: a and b join first with 2 and 3, then c hangs off
 * by 4 with internal edges 3 and 2 to the (d:2, e:1) cherry. */
static void test_textbook(void)
{
    double d[10] = {5, 9, 9, 8, 10, 10, 9, 8, 7, 3}; /* ab ac ad ae bc bd be cd ce de */
    const char *names[5] = {"0", "1", "2", "3", "4"};
    struct lens_err e = {0};
    for (int s = 0; s < 2; s++) {
        struct lens_newick *t = NULL, *want = NULL;
        LENS_TEST(lens_nj_run(d, 5, s, &t, &e) == LENS_OK, "%s", e.msg);
        LENS_TEST(lens_newick_parse("((0:2,1:3):3,2:4,(3:2,4:1):2);", names, 5, &want, &e) ==
                      LENS_OK, "%s", e.msg);
        int rf = -1;
        double md = -1;
        if (t && want)
            lens_newick_compare(t, want, &rf, &md, &e);
        LENS_TEST(rf == 0 && md < 1e-12, "search %d: rf %d maxdiff %g", s, rf, md);
        /* the comparison itself notices a wrong tree: 1 and 2 swapped moves two splits */
        struct lens_newick *wrong = NULL;
        lens_newick_parse("((0:2,2:3):3,1:4,(3:2,4:1):2);", names, 5, &wrong, &e);
        if (t && wrong)
            lens_newick_compare(t, wrong, &rf, &md, &e);
        LENS_TEST(rf == 2, "swapped leaves: rf %d", rf);
        lens_newick_free(wrong);
        lens_newick_free(t);
        lens_newick_free(want);
    }
}

/* A random unrooted binary tree (leaves inserted on random edges) with random branch lengths:
 * its path distances, and the tree itself as a lens_newick rooted at an internal node. */
struct rtree {
    int n, nodes;
    int (*adj)[3];
    double (*w)[3];
    int *deg;
};

static void rtree_link(struct rtree *r, int a, int b, double w)
{
    r->adj[a][r->deg[a]] = b;
    r->w[a][r->deg[a]++] = w;
    r->adj[b][r->deg[b]] = a;
    r->w[b][r->deg[b]++] = w;
}

static void rtree_unlink(struct rtree *r, int a, int b)
{
    for (int k = 0; k < r->deg[a]; k++)
        if (r->adj[a][k] == b) {
            r->adj[a][k] = r->adj[a][r->deg[a] - 1];
            r->w[a][k] = r->w[a][r->deg[a] - 1];
            r->deg[a]--;
            return;
        }
}

static void rtree_make(struct rtree *r, int n, int integer)
{
    r->n = n;
    r->nodes = 2 * n - 2;
    r->adj = calloc((size_t)r->nodes, sizeof *r->adj);
    r->w = calloc((size_t)r->nodes, sizeof *r->w);
    r->deg = calloc((size_t)r->nodes, sizeof *r->deg);
#define LEN() (integer ? (double)(1 + (int)(urand() * 3)) : 1e-6 * (0.05 + urand()))
    int next = n; /* internal nodes n.. */
    int c = next++;
    for (int i = 0; i < 3; i++)
        rtree_link(r, c, i, LEN());
    for (int leaf = 3; leaf < n; leaf++) {
        /* a random edge: a random node other than c's parent relation, then a neighbour */
        int a;
        do
            a = (int)(urand() * r->nodes);
        while (r->deg[a] == 0);
        int k = (int)(urand() * r->deg[a]), b = r->adj[a][k];
        double wab = r->w[a][k];
        rtree_unlink(r, a, b);
        rtree_unlink(r, b, a);
        int m = next++;
        double f = integer ? 0 : urand();
        rtree_link(r, a, m, integer ? wab : wab * f);
        rtree_link(r, m, b, integer ? LEN() : wab * (1 - f));
        rtree_link(r, m, leaf, LEN());
    }
#undef LEN
}

static void rtree_distances(const struct rtree *r, double *d)
{
    double *dist = malloc(sizeof(double) * r->nodes);
    int *stack = malloc(sizeof(int) * r->nodes), *from = malloc(sizeof(int) * r->nodes);
    for (int s = 0; s < r->n; s++) {
        int top = 0;
        stack[top++] = s;
        dist[s] = 0;
        from[s] = -1;
        while (top) {
            int u = stack[--top];
            for (int k = 0; k < r->deg[u]; k++) {
                int v = r->adj[u][k];
                if (v == from[u])
                    continue;
                from[v] = u;
                dist[v] = dist[u] + r->w[u][k];
                stack[top++] = v;
            }
        }
        for (int j = s + 1; j < r->n; j++)
            d[lens_distmat_index(r->n, s, j)] = dist[j];
    }
    free(dist);
    free(stack);
    free(from);
}

/* Converts to a lens_newick rooted at internal node n (post-order ids, children first). */
static struct lens_newick *rtree_newick(const struct rtree *r)
{
    struct lens_newick *t = NULL;
    struct lens_err e = {0};
    lens_newick_new(&t, r->n, r->n - 2, &e);
    int *id = malloc(sizeof(int) * r->nodes), *from = malloc(sizeof(int) * r->nodes);
    int *stack = malloc(sizeof(int) * r->nodes), *state = calloc((size_t)r->nodes, sizeof(int));
    double *up = malloc(sizeof(double) * r->nodes);
    int top = 0, next = r->n;
    stack[top++] = r->n;
    from[r->n] = -1;
    up[r->n] = 0;
    while (top) {
        int u = stack[top - 1];
        if (u < r->n) {
            id[u] = u;
            top--;
            continue;
        }
        if (state[u] < r->deg[u]) {
            int k = state[u]++, v = r->adj[u][k];
            if (v != from[u]) {
                from[v] = u;
                up[v] = r->w[u][k];
                stack[top++] = v;
            }
            continue;
        }
        id[u] = next++;
        int c = 0;
        for (int k = 0; k < r->deg[u]; k++) {
            int v = r->adj[u][k];
            if (v == from[u])
                continue;
            t->child[3 * (id[u] - r->n) + c++] = id[v];
            t->len[id[v]] = up[v];
        }
        top--;
    }
    free(id);
    free(from);
    free(stack);
    free(state);
    free(up);
    return t;
}

static void rtree_free(struct rtree *r)
{
    free(r->adj);
    free(r->w);
    free(r->deg);
}

static void test_additive(void)
{
    int sizes[] = {4, 5, 9, 33, 120, 300};
    for (int s = 0; s < 6; s++) {
        int n = sizes[s];
        struct rtree r;
        rtree_make(&r, n, 0);
        double *d = malloc(sizeof(double) * lens_distmat_pairs(n));
        rtree_distances(&r, d);
        struct lens_newick *want = rtree_newick(&r);
        for (int search = 0; search < 2; search++) {
            struct lens_newick *t = NULL;
            struct lens_err e = {0};
            LENS_TEST(lens_nj_run(d, n, search, &t, &e) == LENS_OK, "%s", e.msg);
            int rf = -1;
            double md = -1;
            if (t)
                LENS_TEST(lens_newick_compare(t, want, &rf, &md, &e) == LENS_OK, "%s", e.msg);
            LENS_TEST(rf == 0, "n=%d search %d: Robinson-Foulds distance %d", n, search, rf);
            LENS_TEST(md >= 0 && md < 1e-9 * 1e-6, "n=%d search %d: branch lengths off by %g", n,
                      search, md);
            lens_newick_free(t);
        }
        lens_newick_free(want);
        free(d);
        rtree_free(&r);
    }
}

/* The fast search must give exactly the canonical tree, text for text. */
static void same_tree(const double *d, int n, const char *what)
{
    struct lens_newick *a = NULL, *b = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_nj_run(d, n, LENS_NJ_CANONICAL, &a, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(lens_nj_run(d, n, LENS_NJ_FAST, &b, &e) == LENS_OK, "%s", e.msg);
    if (!a || !b)
        return;
    char *ta = tree_text(a), *tb = tree_text(b);
    LENS_TEST(!strcmp(ta, tb), "%s n=%d: fast and canonical trees differ", what, n);
    int rf = -1;
    double md = -1;
    lens_newick_compare(a, b, &rf, &md, &e);
    LENS_TEST(rf == 0 && md == 0, "%s n=%d: rf %d maxdiff %g", what, n, rf, md);
    free(ta);
    free(tb);
    lens_newick_free(a);
    lens_newick_free(b);
}

static void test_fast_equals_canonical(void)
{
    int sizes[] = {3, 4, 5, 6, 17, 64, 150, 300};
    for (int s = 0; s < 8; s++) {
        int n = sizes[s];
        size_t np = lens_distmat_pairs(n);
        double *d = malloc(sizeof(double) * np);
        for (size_t k = 0; k < np; k++) /* latency-like: lognormal around 5 us */
            d[k] = 5e-6 * exp(0.8 * (urand() + urand() + urand() - 1.5));
        same_tree(d, n, "random");
        for (size_t k = 0; k < np; k++) /* many exact ties in d and in Q */
            d[k] = 1 + (int)(urand() * 4);
        same_tree(d, n, "ties");
        if (n >= 4) {
            struct rtree r;
            rtree_make(&r, n, 1); /* additive with integer lengths: ties everywhere */
            rtree_distances(&r, d);
            same_tree(d, n, "integer tree");
            rtree_free(&r);
        }
        free(d);
    }
}

/* On the synthetic machine (32 processes, 4 nodes of 2 sockets) every node and every socket
 * is a clade of the NJ tree: its processes are one side of some edge. */
static void test_synthetic(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = 32;
    o.seed = 5309;
    struct lens_cube *c = NULL;
    struct lens_distmat *dm = NULL;
    struct lens_newick *t = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_synth_cube(&o, &c, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(c && lens_distmat_from_cube(c, LENS_STAT_MEDIAN, -1, &dm, &e) == LENS_OK, "%s",
              e.msg);
    LENS_TEST(dm && lens_nj_run(dm->d, dm->n, LENS_NJ_FAST, &t, &e) == LENS_OK, "%s", e.msg);
    if (dm)
        same_tree(dm->d, dm->n, "synthetic machine");
    if (t) {
        uint64_t set[64] = {0}, all = (1ull << 32) - 1;
        for (int i = 0; i < 32; i++)
            set[i] = 1ull << i;
        for (int u = 32; u < t->nnode; u++)
            for (int k = 0; k < 3; k++)
                if (t->child[3 * (u - 32) + k] >= 0)
                    set[u] |= set[t->child[3 * (u - 32) + k]];
        int groups[2] = {8, 4}, found[2] = {0, 0};
        for (int g = 0; g < 2; g++)
            for (int b = 0; b < 32 / groups[g]; b++) {
                uint64_t want = ((1ull << groups[g]) - 1) << (b * groups[g]);
                for (int u = 0; u < t->nnode; u++)
                    if (set[u] == want || (set[u] ^ all) == want) {
                        found[g]++;
                        break;
                    }
            }
        LENS_TEST(found[0] == 4 && found[1] == 8, "clades: %d of 4 nodes, %d of 8 sockets",
                  found[0], found[1]);
    }
    lens_newick_free(t);
    lens_distmat_free(dm);
    lens_cube_free(c);
}

static void test_small(void)
{
    struct lens_err e = {0};
    struct lens_newick *t = NULL;
    double d2[1] = {7.5e-6};
    LENS_TEST(lens_nj_run(d2, 2, LENS_NJ_FAST, &t, &e) == LENS_OK && t->nnode == 3 &&
                  t->len[0] == 3.75e-6 && t->len[1] == 3.75e-6, "n = 2");
    lens_newick_free(t);
    /* n = 3: the star with la = (ab + ac - bc)/2 ... */
    double d3[3] = {3.5, 4.25, 5.5};
    LENS_TEST(lens_nj_run(d3, 3, LENS_NJ_FAST, &t, &e) == LENS_OK, "%s", e.msg);
    if (t) {
        LENS_TEST_REL(t->len[0], 1.125, 1e-15, "n = 3 a");
        LENS_TEST_REL(t->len[1], 2.375, 1e-15, "n = 3 b");
        LENS_TEST_REL(t->len[2], 3.125, 1e-15, "n = 3 c");
    }
    lens_newick_free(t);
    t = NULL;
    LENS_TEST(lens_nj_run(d2, 1, LENS_NJ_FAST, &t, &e) == LENS_EINVAL && !t, "n = 1");
    d3[1] = NAN;
    LENS_TEST(lens_nj_run(d3, 3, LENS_NJ_CANONICAL, &t, &e) == LENS_EDATA && !t, "NaN: %s", e.msg);
}

static void test_alloc_failures(void)
{
    int n = 12, seen = 0, done = 0;
    double d[66];
    for (int k = 0; k < 66; k++)
        d[k] = 1e-6 * (1 + urand());
    for (int search = 0; search < 2; search++)
        for (long nth = 1; nth < 100; nth++) {
            struct lens_newick *t = NULL;
            struct lens_err e = {0};
            lens_malloc_fail_after(nth);
            int rc = lens_nj_run(d, n, search, &t, &e);
            lens_malloc_fail_after(0);
            LENS_TEST(rc == LENS_OK || (rc == LENS_ENOMEM && !t), "failure %ld: %d", nth, rc);
            seen += rc == LENS_ENOMEM;
            lens_newick_free(t);
            if (rc == LENS_OK) {
                done++;
                break;
            }
        }
    LENS_TEST(seen >= 8 && done == 2, "%d injected failures, %d completed", seen, done);
}

int main(void)
{
    test_textbook();
    test_small();
    test_additive();
    test_synthetic();
    test_fast_equals_canonical();
    test_alloc_failures();
    return LENS_TEST_DONE("test_nj");
}
