/* Divisive clustering of links, as Salnikov et al. describe it: farthest-pair centres, lazily
 * computed distances, larger diameter first, stopped by a scree rule on the diameters.
 * Every split is a pure function of its cluster, so splitting the best two clusters at once
 * on two threads gives the same tree as one thread; only the order of work changes. */
#include "links.h"
#include "ari.h"
#include "hclust.h"
#include "common/time.h"
#include "common/units.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The defaults are the numbers of docs/methods.md §3: 64 splits is far more than the handful
 * of levels a machine has, 1e-3 relative and 1 ns absolute are what a clock can
 * resolve, and theta 0.1, window 3, span 0.5 are mpilens's reading of the paper's "much
 * smaller than the typical difference before". */
void lens_links_opts_default(struct lens_links_opts *o)
{
    o->threads = 2;
    o->max_splits = 64;
    o->clusters = 0;
    o->sd_rel_floor = 1e-3;
    o->sd_abs_floor = 1e-9;
    o->scree_theta = 0.1;
    o->scree_window = 3;
    o->scree_span = 0.5;
    /* On by default, optional: the report says how far average linkage agrees whenever the
     * cube is small enough, and says nothing otherwise. 64 MiB admits P = 64 (4032 links,
     * 65 MB, about 1.5 s against 0.1 s for the divisive run): more would slow every report. */
    o->agglo = LENS_HCLUST_AVERAGE;
    o->agglo_max_bytes = 64.0 * 1024 * 1024;
    o->agglo_optional = 1;
}

/* ---- the scree rule ----------------------------------------------------------------------
 * d_1..d_M: diameters of the splits in the order made, drops delta_j = d_j - d_j+1. The typical
 * drop before m is the mean of delta_1..delta_m-1 leaving out the largest one when there are
 * two or more (one far outlier, a single bad link, must not make every later drop look
 * small). The elbow is the first m >= 2 with
 *   (a) d_m <= (1 - span) d_1: the steep part has come down at least span of the way, and
 *   (b) each of delta_m .. delta_m+w-1 is below theta times the typical drop before m.
 * It gives m clusters: the m-1 splits of the steep part. (b) needs the whole window, so the
 * rule gives the same answer on any longer sequence; the run stops as soon as it holds. */
/* O(M w) for one call; the run calls it after every split (O(M^2 w) in all, M <= 64), which
 * is nothing next to one pass of distances. Indices: d[m-1] is d_m, so delta_m is
 * d[m-1] - d[m]. Only m with a full window of drops after it are tried. */
static int elbow(const double *d, int M, const struct lens_links_opts *o)
{
    int w = o->scree_window;
    double big = -INFINITY;
    for (int m = 2; m + w - 1 <= M - 1; m++) {
        double drop = d[m - 2] - d[m - 1]; /* delta_m-1 joins the drops before m */
        big = drop > big ? drop : big;
        /* the sum of delta_1..delta_m-1 telescopes to d_1 - d_m; minus the largest, over m - 2
         * drops (at m == 2 there is one drop and nothing to leave out) */
        double tau = m == 2 ? drop : (d[0] - d[m - 1] - big) / (m - 2);
        /* no typical drop (diameters flat or rising) cannot define "much smaller"; !(>) also skips
         * NaN */
        if (!(tau > 0) || d[m - 1] > (1 - o->scree_span) * d[0])
            continue;
        int ok = 1;
        /* a rising diameter (a negative drop) counts as small: greedy estimates may rise */
        for (int j = m; j <= m + w - 1 && ok; j++)
            ok = d[j - 1] - d[j] < o->scree_theta * tau;
        if (ok)
            return m;
    }
    return 0;
}

int lens_links_scree(const double *d, int n, int exhausted, const struct lens_links_opts *o)
{
    int m = elbow(d, n, o);
    if (m)
        return m;
    /* no elbow: if every cluster left is exact (diameter 0), all the splits were real.
     * Otherwise nothing separates real splits from noise, and one cluster is the honest answer. */
    return exhausted ? n + 1 : 1;
}

/* ---- objects and distances ----------------------------------------------------------------- */

/* The objects in row-major order without the diagonal, each a contiguous run of L values, so
 * rho2 reads two short sequential arrays. Storing the weights 1/d once (instead of the
 * deviations) turns every distance into multiply-adds: the floors and the division are paid
 * P(P-1) L times, not once per distance. Memory: 16 P(P-1) L bytes. */
struct objs {
    size_t n; /* P(P-1) */
    int L, P;
    double *a; /* n x L mean delays, seconds */
    double *w; /* n x L inverse floored variances */
};

/* Object o -> link (i, j): P - 1 objects per row, columns skipping i itself. */
static void obj_pair(int P, size_t o, int *i, int *j)
{
    *i = (int)(o / (size_t)(P - 1));
    int jj = (int)(o % (size_t)(P - 1));
    *j = jj + (jj >= *i);
}

/* Salnikov et al.'s distance, squared (docs/methods.md §3): each length's difference weighted by
 * the sum of both inverse variances, so a noisy link is near everything and a quiet one far
 * from links that differ by more than its noise. Squared because only comparisons are made;
 * the root is taken for the reported diameters. The loop order is fixed, so a value is the
 * same bit for bit whichever thread computes it. */
static double rho2(const struct objs *ob, size_t x, size_t y)
{
    const double *ax = ob->a + x * ob->L, *ay = ob->a + y * ob->L;
    const double *wx = ob->w + x * ob->L, *wy = ob->w + y * ob->L;
    double s = 0;
    for (int l = 0; l < ob->L; l++) {
        double d = ax[l] - ay[l];
        s += d * d * (wx[l] + wy[l]);
    }
    return s;
}

/* The paper clusters mean delays; a cube written without an average (a median-only file) is
 * still usable with the median. */
static int mean_stat(const struct lens_cube *c)
{
    return c->data[LENS_STAT_AVERAGE] ? LENS_STAT_AVERAGE : c->data[LENS_STAT_MEDIAN] ? LENS_STAT_MEDIAN : -1;
}

/* a and w of the link (i, j) at length l, with the documented floor. */
static int element(const struct lens_cube *c, const struct lens_links_opts *o, int s, int l, int i,
                   int j, double *a, double *w, struct lens_err *e)
{
    *a = LENS_CUBE_AT(c, s, l, i, j);
    if (!isfinite(*a))
        return lens_err_set(e, LENS_EDATA, "%s: %s delay at length %d, row %d, column %d is not finite",
                            c->source ? c->source : "cube", lens_cube_stat_name(s), c->lengths[l], i, j);
    double sd = c->data[LENS_STAT_DEVIATION] ? LENS_CUBE_AT(c, LENS_STAT_DEVIATION, l, i, j) : 0;
    /* A zero deviation (one repeat, or a clock too coarse to see the spread) would make the
     * weight infinite and every distance to the link infinite or NaN; the floor is what a clock
     * can resolve. A missing deviation statistic means every link gets the floor. */
    double fl = fmax(o->sd_rel_floor * fabs(*a), o->sd_abs_floor);
    if (!(sd >= fl)) /* also NaN */
        sd = fl;
    *w = 1.0 / (sd * sd);
    return LENS_OK;
}

/* Fails on the first non-finite delay, naming length, row and column: a NaN in a curve would
 * make its distances NaN and the farthest-member searches meaningless. On failure ob's arrays
 * are left for the caller to free. */
static int objs_build(const struct lens_cube *c, const struct lens_links_opts *o, struct objs *ob,
                      struct lens_err *e)
{
    int s = mean_stat(c), P = c->procs, L = c->nlen;
    ob->P = P;
    ob->L = L;
    ob->n = (size_t)P * (P - 1);
    ob->a = lens_malloc(ob->n * L * sizeof *ob->a);
    ob->w = lens_malloc(ob->n * L * sizeof *ob->w);
    if (!ob->a || !ob->w)
        return lens_err_set(e, LENS_ENOMEM, "links: out of memory for %zu links x %d lengths", ob->n, L);
    for (size_t x = 0; x < ob->n; x++) {
        int i, j;
        obj_pair(P, x, &i, &j);
        for (int l = 0; l < L; l++) {
            int rc = element(c, o, s, l, i, j, &ob->a[x * L + l], &ob->w[x * L + l], e);
            if (rc != LENS_OK)
                return rc;
        }
    }
    return LENS_OK;
}

/* The same arithmetic as rho2 through element(), for the tests: a second path to one
 * distance, without building the objects. */
int lens_links_rho(const struct lens_cube *c, const struct lens_links_opts *o, int i, int j, int p,
                   int q, double *rho, struct lens_err *e)
{
    int s = mean_stat(c), P = c->procs;
    if (s < 0)
        return lens_err_set(e, LENS_EINVAL, "links: the cube has neither average nor median");
    if (i < 0 || j < 0 || p < 0 || q < 0 || i >= P || j >= P || p >= P || q >= P || i == j || p == q)
        return lens_err_set(e, LENS_EINVAL, "links: (%d,%d), (%d,%d) are not two off-diagonal links", i, j, p, q);
    double r2 = 0;
    for (int l = 0; l < c->nlen; l++) {
        double a, w, b, v;
        int rc = element(c, o, s, l, i, j, &a, &w, e);
        if (rc == LENS_OK)
            rc = element(c, o, s, l, p, q, &b, &v, e);
        if (rc != LENS_OK)
            return rc;
        r2 += (a - b) * (a - b) * (w + v);
    }
    *rho = sqrt(r2);
    return LENS_OK;
}

/* ---- the split tree --------------------------------------------------------------------------
 * A cluster is a range [lo, hi) of perm; splitting permutes only inside its range, so the
 * ranges of a node's descendants partition its own. dist holds, for the members of an unsplit
 * node, their rho^2 to its centre r. */

/* A node of the split tree. The tree is stored flat in R->nodes, children after parents;
 * nodes are never freed during a run, so a node index stays valid while the array grows. */
struct node {
    size_t lo, hi;
    size_t r, s;     /* objects: centre, and the member farthest from it */
    double diam2;    /* rho^2(r, s): the diameter estimate, squared */
    size_t minobj;   /* smallest object in the cluster: the tie-break */
    int child[2];    /* -1 while unsplit */
};

/* perm, dist and tmp have one entry per object; a cluster owns the slice [lo, hi) of each, so
 * splits of disjoint clusters touch disjoint memory and can run on threads without locks. */
struct run {
    const struct objs *ob;
    size_t *perm;
    double *dist, *tmp;
    struct node *nodes;
    int nnodes, cap;
};

struct chunk {
    const struct run *R;
    size_t centre, lo, hi;
    double *out;
};

/* Each thread writes its own slice of out: no sharing, no atomics. */
static void *dist_chunk(void *arg)
{
    struct chunk *ch = arg;
    for (size_t p = ch->lo; p < ch->hi; p++)
        ch->out[p] = rho2(ch->R->ob, ch->centre, ch->R->perm[p]);
    return NULL;
}

/* out[p] = rho^2(centre, perm[p]) for p in [lo, hi), on nth threads for large ranges. Each
 * value is computed the same way whoever computes it; a failed thread start runs inline.
 * Below 16384 objects (about a 128-process cube) a thread costs more than it saves; 8 threads is
 * the cap of the fixed arrays. The chunk boundaries do not affect any value, which is why the
 * thread count cannot change the result. */
static void par_dist(const struct run *R, size_t centre, size_t lo, size_t hi, double *out, int nth)
{
    if (nth > 8)
        nth = 8;
    if (nth < 2 || hi - lo < 16384) {
        struct chunk ch = {R, centre, lo, hi, out};
        dist_chunk(&ch);
        return;
    }
    struct chunk ch[8];
    pthread_t th[8];
    int started[8] = {0};
    size_t step = (hi - lo + nth - 1) / nth;
    for (int t = 0; t < nth; t++) {
        size_t a = lo + t * step, b = a + step < hi ? a + step : hi;
        ch[t] = (struct chunk){R, centre, a < hi ? a : hi, b, out};
        if (t > 0)
            started[t] = pthread_create(&th[t], NULL, dist_chunk, &ch[t]) == 0;
    }
    dist_chunk(&ch[0]);
    for (int t = 1; t < nth; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            dist_chunk(&ch[t]);
    }
}

/* Farthest member by v over [lo, hi): ties go to the smaller object id.
 * The tie rule by object id rather than position matters: positions depend on how earlier
 * partitions permuted the slice, object ids do not. */
static size_t argmax(const struct run *R, const double *v, size_t lo, size_t hi)
{
    size_t best = lo;
    for (size_t p = lo + 1; p < hi; p++)
        if (v[p] > v[best] || (v[p] == v[best] && R->perm[p] < R->perm[best]))
            best = p;
    return best;
}

/* Steps 1-2 and 4 for one cluster: distances from centre r, the farthest s, the diameter.
 * After this, dist[lo..hi) holds rho^2 from r for the node's members, which split() reads:
 * the invariant that lets a split cost one pass of distances (from s) instead of two.
 * minobj is the tie-break of best_of, also independent of the permutation. */
static void prepare(struct run *R, struct node *n, size_t r, int nth)
{
    par_dist(R, r, n->lo, n->hi, R->dist, nth);
    size_t sp = argmax(R, R->dist, n->lo, n->hi);
    n->r = r;
    n->s = R->perm[sp];
    n->diam2 = R->dist[sp];
    n->minobj = R->perm[n->lo];
    for (size_t p = n->lo + 1; p < n->hi; p++)
        n->minobj = R->perm[p] < n->minobj ? R->perm[p] : n->minobj;
    n->child[0] = n->child[1] = -1;
}

/* perm, dist and tmp move together: dist and tmp are indexed by position, not by object. */
static void swap_at(struct run *R, size_t a, size_t b)
{
    size_t t = R->perm[a];
    R->perm[a] = R->perm[b];
    R->perm[b] = t;
    double u = R->dist[a];
    R->dist[a] = R->dist[b];
    R->dist[b] = u;
    u = R->tmp[a];
    R->tmp[a] = R->tmp[b];
    R->tmp[b] = u;
}

/* Step 3 for node k, whose two child slots c0, c1 are reserved: members go to the nearer of
 * r and s (ties to r); r' is the farthest from r in r's part, r'' the farthest from s in s's. */
static void split(struct run *R, int k, int c0, int c1, int nth)
{
    struct node *n = &R->nodes[k];
    /* tmp: distances from s; dist already holds those from r (prepare) */
    par_dist(R, n->s, n->lo, n->hi, R->tmp, nth);
    size_t i = n->lo, j = n->hi;
    /* In-place two-way partition: r's part ends up in [lo, i), s's in [i, hi). r is in its own
     * part (distance 0 to itself) and s in its own (its diameter is > 0, the only case split is
     * called for), so neither part is empty. */
    while (i < j) {
        if (R->dist[i] <= R->tmp[i])
            i++;
        else
            swap_at(R, i, --j);
    }
    size_t ra = R->perm[argmax(R, R->dist, n->lo, i)], rb = R->perm[argmax(R, R->tmp, i, n->hi)];
    struct node *a = &R->nodes[c0], *b = &R->nodes[c1];
    a->lo = n->lo;
    a->hi = b->lo = i;
    b->hi = n->hi;
    prepare(R, a, ra, nth);
    prepare(R, b, rb, nth);
    n->child[0] = c0;
    n->child[1] = c1;
}

/* One split run on a thread: the node and its two reserved child slots. */
struct job {
    struct run *R;
    int node, c0, c1;
};

/* one thread per split, so each split's own distances run single-threaded */
static void *job_main(void *arg)
{
    struct job *jb = arg;
    split(jb->R, jb->node, jb->c0, jb->c1, 1);
    return NULL;
}

/* Greedy order: the cluster of the greedy state g with the largest diameter (ties: the
 * smaller first object), skipping those in batch[0..nb) and, if unsplit_only, those split
 * already. Returns the position in g, or -1 when no diameter is above 0.
 * O(ng nb) per call with ng <= limit + 1 and nb <= 8: a linear scan is simplest. A cluster of
 * diameter 0 (identical curves) is never split: there is nothing in it to separate. */
static int best_of(const struct run *R, const int *g, int ng, const int *batch, int nb, int unsplit_only)
{
    int best = -1;
    for (int t = 0; t < ng; t++) {
        const struct node *n = &R->nodes[g[t]];
        int skip = unsplit_only && n->child[0] >= 0;
        for (int u = 0; u < nb; u++)
            skip |= batch[u] == g[t];
        if (skip || !(n->diam2 > 0))
            continue;
        const struct node *b = best >= 0 ? &R->nodes[g[best]] : NULL;
        if (!b || n->diam2 > b->diam2 || (n->diam2 == b->diam2 && n->minobj < b->minobj))
            best = t;
    }
    return best;
}

/* Called before threads start, never during: the array may move, and a thread holding a
 * node pointer would then write to freed memory. */
static int reserve(struct run *R, int more, struct lens_err *e)
{
    if (R->nnodes + more <= R->cap)
        return LENS_OK;
    int cap = 2 * (R->nnodes + more);
    struct node *p = lens_realloc(R->nodes, (size_t)cap * sizeof *p);
    if (!p)
        return lens_err_set(e, LENS_ENOMEM, "links: out of memory");
    R->nodes = p;
    R->cap = cap;
    return LENS_OK;
}

/* Splits node g[pos] of the greedy state, and when threads allow, the next best unsplit
 * clusters of the greedy state at the same time (they would be split later anyway).
 * The batch is chosen by the greedy order from the current state alone, and each split is a
 * pure function of its cluster, so splitting ahead only computes early what the greedy loop
 * would compute anyway; lens_links_run still consumes splits in greedy order. The cost of a
 * wasted split (when the scree stops first) is at most threads - 1 splits. */
static int advance(struct run *R, const int *g, int ng, int pos, int threads, struct lens_err *e)
{
    int batch[8], nb = 0;
    batch[nb++] = g[pos];
    while (nb < threads && nb < 8) {
        int nx = best_of(R, g, ng, batch, nb, 1);
        if (nx < 0)
            break;
        batch[nb++] = g[nx];
    }
    if (reserve(R, 2 * nb, e) != LENS_OK)
        return LENS_ENOMEM;
    struct job jobs[8];
    pthread_t th[8];
    int started[8] = {0};
    for (int t = 0; t < nb; t++) {
        jobs[t] = (struct job){R, batch[t], R->nnodes, R->nnodes + 1};
        R->nnodes += 2;
    }
    /* nothing to pair it with: give the one split all the threads for its distances */
    if (nb == 1) {
        split(R, batch[0], jobs[0].c0, jobs[0].c1, threads);
        return LENS_OK;
    }
    /* a failed thread start is not an error: that split runs inline below, same result */
    for (int t = 1; t < nb; t++)
        started[t] = pthread_create(&th[t], NULL, job_main, &jobs[t]) == 0;
    job_main(&jobs[0]);
    for (int t = 1; t < nb; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            job_main(&jobs[t]);
    }
    return LENS_OK;
}

/* ---- the run ------------------------------------------------------------------------------ */

/* What finish() needs of a final cluster; key is its mean delay over all lengths, the order
 * in which clusters are numbered (fastest first, ties by first object: deterministic). */
struct proto {
    size_t lo, hi, minobj;
    double diam2, key;
};

static int cmp_proto(const void *pa, const void *pb)
{
    const struct proto *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->minobj > b->minobj) - (a->minobj < b->minobj);
}

/* Cuts the tree after the first k-1 greedy splits and fills the result: clusters ordered by
 * mean delay, sums taken in object order so that they do not depend on perm's order. */
static int finish(struct run *R, const struct lens_cube *c, const int *seq, int k, struct lens_links *res,
                  struct lens_err *e)
{
    const struct objs *ob = R->ob;
    int P = ob->P, L = ob->L, rc = LENS_OK;
    int *g = lens_malloc((size_t)(k + 1) * sizeof *g), ng = 1;
    struct proto *pr = lens_calloc((size_t)k, sizeof *pr);
    int *lab = lens_malloc(ob->n * sizeof *lab), *rank = lens_malloc((size_t)k * sizeof *rank);
    double *sum = lens_calloc((size_t)k * L, sizeof *sum);
    long *same = lens_calloc((size_t)k, sizeof *same);
    res->clusters = lens_calloc((size_t)k, sizeof *res->clusters);
    res->label = lens_malloc((size_t)P * P * sizeof *res->label);
    if (!g || !pr || !lab || !rank || !sum || !same || !res->clusters || !res->label) {
        rc = lens_err_set(e, LENS_ENOMEM, "links: out of memory");
        goto done;
    }
    res->k = k;
    /* Replay the first k - 1 greedy splits from the root: g is the set of leaves of the cut
     * tree, and replacing a split node by its children keeps g's order a function of seq only. */
    g[0] = 0;
    for (int t = 0; t < k - 1; t++)
        for (int u = 0; u < ng; u++)
            if (g[u] == seq[t]) {
                g[u] = R->nodes[seq[t]].child[0];
                g[ng++] = R->nodes[seq[t]].child[1];
                break;
            }
    for (int u = 0; u < k; u++) {
        const struct node *n = &R->nodes[g[u]];
        pr[u] = (struct proto){n->lo, n->hi, n->minobj, n->diam2, 0};
        for (size_t p = n->lo; p < n->hi; p++)
            lab[R->perm[p]] = u;
    }
    /* sums in object order: perm's order depends on the partitions, and floating-point sums in a
     * different order would change the last bits of the means */
    for (size_t x = 0; x < ob->n; x++) {
        int i, j;
        obj_pair(P, x, &i, &j);
        for (int l = 0; l < L; l++)
            sum[(size_t)lab[x] * L + l] += ob->a[x * L + l];
        same[lab[x]] += c->hosts && !strcmp(c->hosts[i], c->hosts[j]);
    }
    for (int u = 0; u < k; u++) {
        double n = (double)(pr[u].hi - pr[u].lo), m = 0;
        for (int l = 0; l < L; l++)
            m += sum[(size_t)u * L + l] / n;
        pr[u].key = m / L;
        rank[u] = u;
    }
    /* sort the prototypes, carrying their old index in rank */
    struct proto *sorted = lens_malloc((size_t)k * sizeof *sorted);
    if (!sorted) {
        rc = lens_err_set(e, LENS_ENOMEM, "links: out of memory");
        goto done;
    }
    for (int u = 0; u < k; u++) {
        sorted[u] = pr[u];
        sorted[u].lo = (size_t)u; /* reuse lo as the old index */
    }
    qsort(sorted, (size_t)k, sizeof *sorted, cmp_proto);
    /* rank: old cluster index -> its number in delay order */
    for (int u = 0; u < k; u++)
        rank[sorted[u].lo] = u;
    for (int u = 0; u < k && rc == LENS_OK; u++) {
        int old = (int)sorted[u].lo;
        struct lens_links_cluster *cl = &res->clusters[u];
        cl->id = u;
        cl->size = (long)(pr[old].hi - pr[old].lo);
        cl->diameter = sqrt(pr[old].diam2);
        cl->same_host = c->hosts ? (double)same[old] / cl->size : NAN;
        obj_pair(P, pr[old].minobj, &cl->row, &cl->col);
        if (!(cl->mean = lens_malloc((size_t)L * sizeof *cl->mean))) {
            rc = lens_err_set(e, LENS_ENOMEM, "links: out of memory");
            break;
        }
        for (int l = 0; l < L; l++)
            cl->mean[l] = sum[(size_t)old * L + l] / cl->size;
    }
    lens_free(sorted);
    for (int i = 0; i < P; i++)
        res->label[(size_t)i * P + i] = -1;
    for (size_t x = 0; x < ob->n && rc == LENS_OK; x++) {
        int i, j;
        obj_pair(P, x, &i, &j);
        res->label[(size_t)i * P + j] = rank[lab[x]];
    }
done:
    lens_free(g);
    lens_free(pr);
    lens_free(lab);
    lens_free(rank);
    lens_free(sum);
    lens_free(same);
    return rc;
}

/* ---- the agglomerative comparison ---------------------------------------------------------
 * Salnikov et al. compare their divisive result with a classical agglomerative one on the same
 * distance; that needs every rho, L(L-1)/2 of them, which is why the divisive method exists.
 * So it runs only under a memory bound, and reports the bytes when it refuses. */
static int agglo_run(const struct objs *ob, const struct lens_links_opts *o, struct lens_links *res,
                     struct lens_err *e)
{
    size_t L = ob->n, nd = L * (L - 1) / 2;
    int P = ob->P;
    res->agglo_bytes = (double)L * (double)(L - 1) / 2 * sizeof(double);
    /* the int bound is hclust's (n is an int); at 256 MiB it is far away */
    if (res->agglo_bytes > o->agglo_max_bytes || L > (size_t)(1 << 30)) {
        if (o->agglo_optional)
            return LENS_OK;
        return lens_err_set(e, LENS_EINVAL,
                            "links: %s clustering of %zu links needs a condensed distance matrix of "
                            "L(L-1)/2 x 8 = %.0f bytes (%.1f MiB), over the bound of %.0f bytes; use "
                            "--method divisive or a smaller cube",
                            lens_hclust_method_name(o->agglo), L, res->agglo_bytes,
                            res->agglo_bytes / (1024.0 * 1024.0), o->agglo_max_bytes);
    }
    double *d = lens_malloc((nd + 1) * sizeof *d);
    struct lens_hclust_step *z = lens_malloc(L * sizeof *z);
    int *lab = lens_malloc(L * sizeof *lab), *div = lens_malloc(L * sizeof *div);
    res->agglo_label = lens_malloc((size_t)P * P * sizeof *res->agglo_label);
    int rc = LENS_OK;
    if (!d || !z || !lab || !div || !res->agglo_label) {
        rc = lens_err_set(e, LENS_ENOMEM, "links: out of memory for the %.0f-byte agglomerative matrix",
                          res->agglo_bytes);
        goto done;
    }
    /* scipy's condensed order (x < y, row by row) over the objects in the divisive order, so
     * object x is link obj_pair(x) in both partitions; rho, not rho^2, as the diameters */
    size_t pos = 0;
    for (size_t x = 0; x + 1 < L; x++)
        for (size_t y = x + 1; y < L; y++)
            d[pos++] = sqrt(rho2(ob, x, y));
    if ((rc = lens_hclust_run(d, (int)L, o->agglo, z, e)) != LENS_OK ||
        (rc = lens_hclust_cut(z, (int)L, res->k, lab, e)) != LENS_OK)
        goto done;
    for (int i = 0; i < P; i++)
        res->agglo_label[(size_t)i * P + i] = -1;
    for (size_t x = 0; x < L; x++) {
        int i, j;
        obj_pair(P, x, &i, &j);
        res->agglo_label[(size_t)i * P + j] = lab[x];
        div[x] = res->label[(size_t)i * P + j];
    }
    if ((rc = lens_ari_compute(div, lab, L, &res->ari, e)) == LENS_OK)
        res->agglo = o->agglo;
done:
    if (rc != LENS_OK) {
        lens_free(res->agglo_label);
        res->agglo_label = NULL;
        res->ari = NAN;
    }
    lens_free(d);
    lens_free(z);
    lens_free(lab);
    lens_free(div);
    return rc;
}

/* Written with !(x > 0) so that NaN options are refused too. */
static int check_opts(const struct lens_cube *c, const struct lens_links_opts *o, struct lens_err *e)
{
    if (o->threads < 1 || o->max_splits < 1 || o->clusters < 0 || o->scree_window < 1 ||
        !(o->sd_rel_floor >= 0) || !(o->sd_abs_floor > 0) || !(o->scree_theta > 0) ||
        !(o->scree_span >= 0 && o->scree_span < 1) || o->agglo < -1 || o->agglo >= LENS_HCLUST_NMETHODS ||
        !(o->agglo_max_bytes >= 0))
        return lens_err_set(e, LENS_EINVAL, "links: bad options (threads, splits, floors or scree)");
    if (c->procs < 2)
        return lens_err_set(e, LENS_EINVAL, "%s: links need at least 2 processes", c->source ? c->source : "cube");
    if (mean_stat(c) < 0)
        return lens_err_set(e, LENS_EINVAL, "%s: links need the average (or median) statistic",
                            c->source ? c->source : "cube");
    return LENS_OK;
}

/* Memory: the objects (16 P(P-1) L bytes) plus three arrays of P(P-1) and the node array:
 * distances are never stored as a matrix, which at P = 1024 would take about 4 TB even
 * condensed. Time: a split costs about two passes over its cluster's members (from s, then
 * from each new centre). */
int lens_links_run(const struct lens_cube *c, const struct lens_links_opts *o, struct lens_links **out,
                   struct lens_err *e)
{
    *out = NULL;
    struct lens_links_opts def;
    if (!o) {
        lens_links_opts_default(&def);
        o = &def;
    }
    int rc = check_opts(c, o, e);
    if (rc != LENS_OK)
        return rc;
    struct objs ob = {0};
    struct run R = {0};
    struct lens_links *res = lens_calloc(1, sizeof *res);
    /* k clusters need k - 1 splits; g never holds more than limit + 1 leaves */
    int limit = o->clusters > 0 ? o->clusters - 1 : o->max_splits;
    int *g = lens_malloc((size_t)(limit + 2) * sizeof *g), *seq = lens_malloc((size_t)(limit + 1) * sizeof *seq);
    if (!res || !g || !seq) {
        rc = lens_err_set(e, LENS_ENOMEM, "links: out of memory");
        goto done;
    }
    res->procs = c->procs;
    res->nlen = c->nlen;
    res->no_deviation = !c->data[LENS_STAT_DEVIATION];
    res->forced = o->clusters > 0;
    res->agglo = -1;
    res->ari = NAN;
    res->lengths = lens_malloc((size_t)c->nlen * sizeof *res->lengths);
    res->diameters = lens_malloc((size_t)(limit + 1) * sizeof *res->diameters);
    if (!res->lengths || !res->diameters) {
        rc = lens_err_set(e, LENS_ENOMEM, "links: out of memory");
        goto done;
    }
    memcpy(res->lengths, c->lengths, (size_t)c->nlen * sizeof *res->lengths);
    if ((rc = objs_build(c, o, &ob, e)) != LENS_OK)
        goto done;
    R.ob = &ob;
    R.perm = lens_malloc(ob.n * sizeof *R.perm);
    R.dist = lens_malloc(ob.n * sizeof *R.dist);
    R.tmp = lens_malloc(ob.n * sizeof *R.tmp);
    if (!R.perm || !R.dist || !R.tmp || reserve(&R, 1 + 2 * o->threads, e) != LENS_OK) {
        rc = lens_err_set(e, LENS_ENOMEM, "links: out of memory for %zu links", ob.n);
        goto done;
    }
    for (size_t x = 0; x < ob.n; x++)
        R.perm[x] = x;
    /* step 1: from the first link, the farthest one is the root's centre r */
    R.nnodes = 1;
    R.nodes[0] = (struct node){.lo = 0, .hi = ob.n};
    par_dist(&R, 0, 0, ob.n, R.dist, o->threads);
    prepare(&R, &R.nodes[0], R.perm[argmax(&R, R.dist, 0, ob.n)], o->threads);
    int ng = 1, nseq = 0, exhausted = 0;
    g[0] = 0;
    /* Invariant: g holds the leaves of the tree cut after the nseq splits recorded in seq; the
     * chosen node may already be split (advance splits ahead), then it is only recorded. */
    while (nseq < limit) {
        int pos = best_of(&R, g, ng, NULL, 0, 0);
        if (pos < 0) {
            exhausted = 1;
            break;
        }
        int k = g[pos];
        if (R.nodes[k].child[0] < 0 && (rc = advance(&R, g, ng, pos, o->threads, e)) != LENS_OK)
            goto done;
        g[pos] = R.nodes[k].child[0];
        g[ng++] = R.nodes[k].child[1];
        seq[nseq] = k;
        res->diameters[nseq++] = sqrt(R.nodes[k].diam2);
        /* the rule needs no later diameters once it holds, so stopping early gives the same k */
        if (o->clusters == 0 && elbow(res->diameters, nseq, o))
            break;
    }
    res->ndiam = nseq;
    int k;
    /* fewer splits than asked are possible when every cluster has diameter 0 */
    if (o->clusters > 0)
        k = o->clusters < nseq + 1 ? o->clusters : nseq + 1;
    else {
        res->elbow = elbow(res->diameters, nseq, o);
        k = lens_links_scree(res->diameters, nseq, exhausted, o);
    }
    rc = finish(&R, c, seq, k, res, e);
    /* after finish: the comparison cuts at the divisive k and reads its labels */
    if (rc == LENS_OK && o->agglo >= 0)
        rc = agglo_run(&ob, o, res, e);
done:
    lens_free(ob.a);
    lens_free(ob.w);
    lens_free(R.perm);
    lens_free(R.dist);
    lens_free(R.tmp);
    lens_free(R.nodes);
    lens_free(g);
    lens_free(seq);
    if (rc != LENS_OK) {
        lens_links_free(res);
        return rc;
    }
    *out = res;
    return LENS_OK;
}

void lens_links_free(struct lens_links *r)
{
    if (!r)
        return;
    for (int u = 0; r->clusters && u < r->k; u++)
        lens_free(r->clusters[u].mean);
    lens_free(r->clusters);
    lens_free(r->label);
    lens_free(r->agglo_label);
    lens_free(r->lengths);
    lens_free(r->diameters);
    lens_free(r);
}

/* The share is over the P(P-1) links, the diagonal excluded as in the clustering. */
void lens_links_row(const struct lens_links *r, int id, struct lens_links_row *row, char *buf, size_t n)
{
    const struct lens_links_cluster *cl = &r->clusters[id];
    row->id = id;
    row->size = cl->size;
    row->share = (double)cl->size / ((double)r->procs * (r->procs - 1));
    row->diameter = cl->diameter;
    row->first = cl->mean[0];
    row->last = cl->mean[r->nlen - 1];
    row->same_host = cl->same_host;
    if (!buf || n == 0)
        return;
    char a[32], b[32], h[48] = "";
    lens_time_format_duration(row->first, a, sizeof a);
    lens_time_format_duration(row->last, b, sizeof b);
    if (!isnan(cl->same_host))
        snprintf(h, sizeof h, ", %.0f%% within a host", 100 * cl->same_host);
    /* "1 link", never "1 links": the bad link alone is a cluster of its own (common/units.h) */
    snprintf(buf, n, "%ld %s (%.0f%%)%s, %s at %d B to %s at %d B", cl->size,
             lens_units_plural(cl->size, "link", "links"), 100 * row->share, h, a, r->lengths[0], b,
             r->lengths[r->nlen - 1]);
}
