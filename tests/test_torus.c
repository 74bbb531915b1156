/* The torus counter-example (Salnikov, Maysuradze, Andreev, Kostin: trees recover a
 * hierarchical machine, not a torus; docs/methods.md, "What a tree cannot show"). The torus
 * hop distances of `synth --torus` against a breadth-first search on the torus graph, then the
 * cophenetic correlation of the agglomerative and the neighbor-joining trees with the true
 * distances (hops on a torus, the level of the shared component in a hierarchy), both measured
 * here from the trees lens_structure_run returns. */
#include "analysis/cube/synth.h"
#include "analysis/structure/structure.h"
#include "lens_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Hops from rank a to every rank by BFS on the torus graph (each node linked to +-1 in each
 * dimension, wrapping): an independent reference for lens_synth_torus_hops. */
static void bfs(const int dim[3], int a, int *dist)
{
    int n = dim[0] * dim[1] * dim[2], *queue = malloc((size_t)n * sizeof *queue), head = 0, tail = 0;
    for (int r = 0; r < n; r++)
        dist[r] = -1;
    dist[a] = 0;
    queue[tail++] = a;
    while (head < tail) {
        int r = queue[head++], c[3] = {r % dim[0], r / dim[0] % dim[1], r / (dim[0] * dim[1])};
        for (int d = 0; d < 3; d++)
            for (int s = -1; s <= 1; s += 2) {
                int cc[3] = {c[0], c[1], c[2]};
                cc[d] = (cc[d] + s + dim[d]) % dim[d];
                int q = cc[0] + dim[0] * (cc[1] + dim[1] * cc[2]);
                if (dist[q] < 0) {
                    dist[q] = dist[r] + 1;
                    queue[tail++] = q;
                }
            }
    }
    free(queue);
}

static void test_hops(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.torus[0] = 4, o.torus[1] = 3, o.torus[2] = 2;
    o.procs = o.nodes = 24;
    o.sockets = 1;
    /* by hand: rank = x + 4 (y + 3 z) */
    LENS_TEST(lens_synth_torus_hops(&o, 0, 3) == 1, "(0,0,0)-(3,0,0): 1 hop round the wrap");
    LENS_TEST(lens_synth_torus_hops(&o, 0, 2) == 2, "(0,0,0)-(2,0,0): 2 hops");
    LENS_TEST(lens_synth_torus_hops(&o, 0, 23) == 3, "(0,0,0)-(3,2,1): 1 + 1 + 1");
    LENS_TEST(lens_synth_torus_hops(&o, 5, 18) == 2, "(1,1,0)-(2,1,1): 2");
    LENS_TEST(lens_synth_torus_hops(&o, 1, 19) == 4, "(1,0,0)-(3,1,1): 2 either way in x, + 1 + 1");
    LENS_TEST(lens_synth_torus_hops(&o, 0, 24) == -1, "rank out of range");
    int dist[24], bad = 0, maxh = 0;
    for (int a = 0; a < 24; a++) {
        bfs(o.torus, a, dist);
        for (int b = 0; b < 24; b++) {
            bad += lens_synth_torus_hops(&o, a, b) != dist[b];
            maxh = dist[b] > maxh ? dist[b] : maxh;
        }
    }
    LENS_TEST(bad == 0 && maxh == 2 + 1 + 1, "hops of all 576 pairs equal the BFS (%d differ, diameter %d)", bad, maxh);
    /* the delay grows with the hops: the noise-free part at length 0 is lat + h * hop, and the
     * min statistic carries at most 0.2 * noise * |N| above it */
    struct lens_cube *c;
    struct lens_err e;
    o.noise = 0;
    LENS_TEST(lens_synth_cube(&o, &c, &e) == LENS_OK, "torus cube: %s", e.msg);
    long off = 0;
    for (int a = 0; a < 24; a++)
        for (int b = 0; b < 24; b++)
            if (a != b)
                off += fabs(LENS_CUBE_AT(c, LENS_STAT_MIN, 0, a, b) - (o.lat[LENS_SYNTH_SWITCH] +
                                                                      lens_synth_torus_hops(&o, a, b) * o.torus_hop)) > 1e-15;
    LENS_TEST(off == 0, "noise-free delay = latency + hops x %g s (%ld pairs off)", o.torus_hop, off);
    lens_cube_free(c);
    o.procs = 25;
    LENS_TEST(lens_synth_check(&o, &e) == LENS_EINVAL && strstr(e.msg, "25 processes"), "procs != X*Y*Z: %s", e.msg);
}

/* Pearson correlation of x and y over n values. */
static double pearson(const double *x, const double *y, long n)
{
    double mx = 0, my = 0, sxy = 0, sxx = 0, syy = 0;
    for (long t = 0; t < n; t++)
        mx += x[t] / n, my += y[t] / n;
    for (long t = 0; t < n; t++) {
        sxy += (x[t] - mx) * (y[t] - my);
        sxx += (x[t] - mx) * (x[t] - mx);
        syy += (y[t] - my) * (y[t] - my);
    }
    return sxy / sqrt(sxx * syy);
}

/* Cophenetic distances of linkage z (n leaves): the height of the merge that first joins two
 * leaves, into coph[a * n + b]. Cluster n + s is step s's (scipy's numbering). */
static void coph_hclust(const struct lens_hclust_step *z, int n, double *coph)
{
    int *owner = malloc((size_t)n * sizeof *owner); /* the current cluster of each leaf */
    for (int a = 0; a < n; a++)
        owner[a] = a;
    for (int s = 0; s < n - 1; s++) {
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++)
                if (owner[a] == z[s].left && owner[b] == z[s].right)
                    coph[a * n + b] = coph[b * n + a] = z[s].height;
        for (int a = 0; a < n; a++)
            if (owner[a] == z[s].left || owner[a] == z[s].right)
                owner[a] = n + s;
    }
    free(owner);
}

/* Path lengths between the leaves of tree t (NJ): a walk up from each leaf to the root gives
 * every leaf's depth and ancestors; the path a-b is depth a + depth b - 2 depth(lowest common). */
static void coph_tree(const struct lens_newick *t, double *coph)
{
    int N = t->nnode, n = t->nleaf, *parent = malloc((size_t)N * sizeof *parent);
    double *depth = malloc((size_t)N * sizeof *depth);
    for (int u = 0; u < N; u++)
        parent[u] = -1;
    for (int u = n; u < N; u++)
        for (int c = 0; c < 3; c++)
            if (t->child[3 * (u - n) + c] >= 0)
                parent[t->child[3 * (u - n) + c]] = u;
    for (int u = 0; u < N; u++) {
        depth[u] = 0;
        for (int v = u; parent[v] >= 0; v = parent[v])
            depth[u] += t->len[v];
    }
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            int lca = -1;
            for (int u = a; u >= 0 && lca < 0; u = parent[u])
                for (int v = b; v >= 0; v = parent[v])
                    if (u == v) {
                        lca = u;
                        break;
                    }
            coph[a * n + b] = depth[a] + depth[b] - 2 * depth[lca];
        }
    free(parent);
    free(depth);
}

/* The cophenetic correlations of both trees of cube c with the true distances truth (n x n). */
static void measure(const struct lens_cube *c, const double *truth, double *cc_tree, double *cc_nj)
{
    int n = c->procs;
    struct lens_structure_opts so;
    lens_structure_opts_default(&so);
    so.parts = LENS_STRUCTURE_TREE | LENS_STRUCTURE_NJ;
    so.cut = LENS_STRUCTURE_CUT_NONE;
    struct lens_structure s;
    struct lens_err e;
    *cc_tree = *cc_nj = NAN;
    if (lens_structure_run(c, &so, &s, &e) != LENS_OK) {
        LENS_TEST(0, "structure: %s", e.msg);
        lens_structure_release(&s);
        return;
    }
    double *coph = malloc((size_t)n * n * sizeof *coph), *x = malloc((size_t)n * n * sizeof *x),
           *y = malloc((size_t)n * n * sizeof *y);
    long m = 0;
    coph_hclust(s.z, n, coph);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            x[m] = coph[a * n + b], y[m++] = truth[a * n + b];
    *cc_tree = pearson(x, y, m);
    coph_tree(s.nj, coph);
    m = 0;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            x[m] = coph[a * n + b], y[m++] = truth[a * n + b];
    *cc_nj = pearson(x, y, m);
    free(coph);
    free(x);
    free(y);
    lens_structure_release(&s);
}

static void test_counter_example(void)
{
    /* a hierarchy of 64 ranks: 2 switches, 8 nodes, 2 sockets; true distance = the level of
     * the closest component two ranks share (0 socket .. 3 other switch) */
    struct lens_synth_opts h;
    lens_synth_opts_init(&h);
    h.procs = 64, h.nodes = 8, h.sockets = 2, h.switches = 2;
    struct lens_synth_place pl[64];
    struct lens_err e;
    double truth[64 * 64];
    lens_synth_placement(&h, pl, &e);
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++)
            truth[a * 64 + b] = pl[a].sw != pl[b].sw ? 3 : pl[a].node != pl[b].node ? 2 : pl[a].socket != pl[b].socket;
    struct lens_cube *c;
    double ht, hn, tt, tn;
    LENS_TEST(lens_synth_cube(&h, &c, &e) == LENS_OK, "hierarchy cube");
    measure(c, truth, &ht, &hn);
    lens_cube_free(c);
    /* a 4 x 4 x 4 torus of 64 ranks, same noise and lengths; true distance = hops */
    struct lens_synth_opts t;
    lens_synth_opts_init(&t);
    t.torus[0] = t.torus[1] = t.torus[2] = 4;
    t.procs = t.nodes = 64, t.sockets = 1;
    for (int a = 0; a < 64; a++)
        for (int b = 0; b < 64; b++)
            truth[a * 64 + b] = lens_synth_torus_hops(&t, a, b);
    LENS_TEST(lens_synth_cube(&t, &c, &e) == LENS_OK, "torus cube");
    measure(c, truth, &tt, &tn);
    lens_cube_free(c);
    printf("  cophenetic correlation with the true distances, 64 ranks each:\n"
           "                          agglomerative   neighbor joining\n"
           "  hierarchy 2x8x2x2         %8.4f         %8.4f\n"
           "  torus 4x4x4               %8.4f         %8.4f\n",
           ht, hn, tt, tn);
    LENS_TEST(ht > 0.95 && hn > 0.95, "a hierarchy is recovered: %.4f, %.4f", ht, hn);
    LENS_TEST(tt < ht - 0.1 && tn < hn - 0.1, "a torus is not: %.4f against %.4f, %.4f against %.4f", tt, ht, tn, hn);
}

int main(void)
{
    test_hops();
    test_counter_example();
    return LENS_TEST_DONE("test_torus");
}
