/* Neighbor joining. One engine does the joins, the branch lengths and the updates of the
 * distances and row sums; only the search for the pair minimising
 *   Q(i,j) = (r-2) d(i,j) - S_i - S_j
 * differs. Both searches compute Q with the same expression and break ties by slot, so they
 * choose the same pair bit for bit. The fast search (after RapidNJ, Simonsen et al. 2008)
 * keeps each node's distances to the nodes older than it sorted ascending, and stops a row as
 * soon as (r-2) d(i,j) - S_i - max S exceeds the best Q found. */
#include "nj.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "distmat.h"

struct entry;

/* Invariants between joins: r slots are alive; S[s] = sum of D[s][k] over alive k; in the fast
 * search every alive pair {s, k} is listed in exactly one row, the row of the younger of the
 * two (larger birth), so a pair is scanned once. A join gives slot i a new birth, which makes
 * every older row's entry for i stale and i's rebuilt row the only place its pairs live. */
struct nj {
    int n;            /* leaves, also the number of slots */
    int r;            /* nodes still active */
    double *D;        /* n x n distances between the nodes in the slots */
    double *S;        /* row sums over active slots */
    int *alive;       /* slot holds an active node */
    int *node;        /* tree node held by each slot */
    /* fast search only */
    struct entry *row; /* n rows of n entries, row s in ascending order of its bounds */
    int *rlen;        /* entries in use in row s */
    int *rstart;      /* leading entries known to be stale */
    float *first;     /* row[rstart].v: a lower bound of every live distance in the row */
    int *cand;        /* rows to scan in one search */
    long *birth;      /* creation order of the node in each slot; a row lists older nodes */
    double dmax;      /* largest input distance, scales the rounding slack of the bound */
    int compact_at;   /* compact all rows when r falls to this */
};

/* A square matrix rather than the condensed one: a join reads and writes a whole row and
 * column, and the scans read rows, so both directions must be contiguous; the cost is 2x the
 * memory of the input. */
#define DD(w, i, j) ((w)->D[(size_t)(i) * (w)->n + (j)])

/* A row entry: the slot and its distance rounded down to float, so the bound can be checked
 * while reading the row sequentially; Q itself is always computed from D. */
struct entry {
    float v;   /* <= D[s][k] */
    int32_t k;
};

/* Rounds d down to a float, so that the row's bound never exceeds the true distance: with the
 * default round-to-nearest a float could land just above d and stop a scan one pair too early.
 * Halving the row memory (8 bytes an entry instead of 16 with a double) is what the float buys. */
static inline float float_below(double d)
{
    if (d > FLT_MAX)
        return FLT_MAX;
    float f = (float)d;
    if ((double)f > d) { /* step one float down; d is finite, so f is too (or -inf) */
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        u = f > 0 ? u - 1 : f == 0 ? 0x80000001u : u + 1;
        memcpy(&f, &u, sizeof f);
    }
    return f;
}

/* Scratch for sorting one row by its float lower bounds: keys are the floats mapped to
 * unsigned integers in the same order (sign bit flipped, or all bits for negatives), sorted by
 * a stable LSD radix sort that skips the bytes all keys share. Only the order of the bounds
 * matters to the search, so float keys are enough; equal keys keep slot order. */
struct sorter {
    uint32_t *key, *key2;
    int32_t *idx, *idx2;
};

/* The usual order-preserving map of IEEE floats to unsigned integers: negative values reversed,
 * positives above them. (Distances are >= 0 at the start, but the updated d(u,k) of a join may
 * be negative.) */
static inline uint32_t sort_key(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u >> 31 ? ~u : u | (1u << 31);
}

static inline float key_value(uint32_t u)
{
    u = u >> 31 ? u & ~(1u << 31) : ~u;
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* O(m) per row instead of O(m log m): rebuilding row i after every join is a large part of
 * the fast search's cost, so the sort matters. One pass counts all four bytes' histograms. */
static void radix_sort(struct sorter *t, int m)
{
    size_t count[4][256] = {{0}};
    for (int i = 0; i < m; i++) {
        uint32_t k = t->key[i];
        count[0][k & 255]++;
        count[1][(k >> 8) & 255]++;
        count[2][(k >> 16) & 255]++;
        count[3][k >> 24]++;
    }
    for (int b = 0; b < 4; b++) {
        size_t *c = count[b], sum = 0;
        if (c[(t->key[0] >> (8 * b)) & 255] == (size_t)m)
            continue; /* every key has this byte: the pass would not move anything */
        for (int v = 0; v < 256; v++) {
            size_t k = c[v];
            c[v] = sum;
            sum += k;
        }
        for (int i = 0; i < m; i++) {
            size_t at = c[(t->key[i] >> (8 * b)) & 255]++;
            t->key2[at] = t->key[i];
            t->idx2[at] = t->idx[i];
        }
        uint32_t *kt = t->key;
        t->key = t->key2;
        t->key2 = kt;
        int32_t *it = t->idx;
        t->idx = t->idx2;
        t->idx2 = it;
    }
}

/* Fills row s with the active slots older than s (those with smaller birth), sorted.
 * O(n) for the walk plus the sort, once per join: the price of keeping each pair in one
 * sorted row. A row is written into its own n-entry stripe of w->row, so no reallocation. */
static void row_build(struct nj *w, int s, struct sorter *t)
{
    int m = 0;
    const double *Ds = w->D + (size_t)s * w->n;
    for (int k = 0; k < w->n; k++)
        if (w->alive[k] && k != s && w->birth[k] < w->birth[s]) {
            t->key[m] = sort_key(float_below(Ds[k]));
            t->idx[m++] = k;
        }
    if (m > 0)
        radix_sort(t, m);
    struct entry *row = w->row + (size_t)s * w->n;
    for (int i = 0; i < m; i++)
        row[i] = (struct entry){key_value(t->key[i]), t->idx[i]};
    w->rlen[s] = m;
    w->rstart[s] = 0;
    w->first[s] = m > 0 ? row[0].v : INFINITY;
}

/* An entry k of row s still stands for the same pair if k is active and older than s. */
static inline int entry_valid(const struct nj *w, int s, int k)
{
    return w->alive[k] && w->birth[k] < w->birth[s];
}

/* Stale entries are only skipped when they sit at the front of a row, so rows fill with dead
 * entries as joins go on. Compacting everything whenever r halves costs O(r n) each,
 * O(n^2) over all the halvings, and keeps scans over live entries. */
static void rows_compact(struct nj *w)
{
    for (int s = 0; s < w->n; s++) {
        if (!w->alive[s])
            continue;
        struct entry *row = w->row + (size_t)s * w->n;
        int m = 0;
        for (int i = w->rstart[s]; i < w->rlen[s]; i++)
            if (entry_valid(w, s, row[i].k))
                row[m++] = row[i];
        w->rlen[s] = m;
        w->rstart[s] = 0;
        w->first[s] = m > 0 ? row[0].v : INFINITY;
    }
    w->compact_at = w->r / 2;
}

/* Q with one fixed evaluation order (smaller slot first), shared by both searches. */
static inline double q_value(const struct nj *w, int i, int j, double rm2)
{
    return rm2 * DD(w, i, j) - w->S[i] - w->S[j];
}

/* Whether (q, i, j) beats the best so far; ties go to the smaller (i, j). */
static inline int q_better(double q, int i, int j, double bq, int bi, int bj)
{
    return q < bq || (q == bq && (i < bi || (i == bi && j < bj)));
}

/* The O(r^2) full scan of Saitou and Nei, in increasing (i, j) order with strict <: the
 * first minimum wins, which is the tie rule q_better states for the fast search. Kept as the
 * reference (`--canonical`) against which tests check the fast search. */
static void search_canonical(const struct nj *w, int *bi, int *bj)
{
    double rm2 = w->r - 2, best = INFINITY;
    *bi = *bj = -1;
    for (int i = 0; i < w->n; i++) {
        if (!w->alive[i])
            continue;
        for (int j = i + 1; j < w->n; j++) {
            if (!w->alive[j])
                continue;
            double q = q_value(w, i, j, rm2);
            if (q < best || *bi < 0) {
                best = q;
                *bi = i;
                *bj = j;
            }
        }
    }
}

/* Scans row s from its first live entry until the bound passes best + slack.
 * Why the bound holds: for entry k, Q(s,k) = (r-2) D[s][k] - S_s - S_k >= (r-2) v - S_s - smax
 * with v <= D[s][k], and v grows along the row, so once the bound passes the best Q no later
 * entry can beat it. slack widens the test by the rounding difference between the bound and
 * Q, so that a pair the canonical scan would choose is never cut off. */
static void scan_row(struct nj *w, int s, double rm2, double smax, double slack, double *best,
                     int *bi, int *bj)
{
    const struct entry *row = w->row + (size_t)s * w->n;
    const double *Ds = w->D + (size_t)s * w->n; /* D is symmetric: row s holds every pair */
    double base = w->S[s] + smax;
    int i = w->rstart[s], len = w->rlen[s];
    while (i < len && !entry_valid(w, s, row[i].k))
        i++;
    w->rstart[s] = i; /* stale entries at the front never come back */
    w->first[s] = i < len ? row[i].v : INFINITY;
    for (; i < len; i++) {
        if (rm2 * row[i].v - base > *best + slack)
            break; /* later entries are no closer: Q can only be larger */
        int k = row[i].k;
        /* a dead entry in the middle of the row: skipped now, removed at the next compaction */
        if (!entry_valid(w, s, k))
            continue;
        int a = s < k ? s : k, b = s < k ? k : s;
        double q = rm2 * Ds[k] - w->S[a] - w->S[b]; /* = q_value(w, a, b, rm2), bit for bit */
        if (q_better(q, a, b, *best, *bi, *bj)) {
            *best = q;
            *bi = a;
            *bj = b;
        }
    }
}

/* The row whose first entry promises the smallest Q is scanned first, so that the best Q
 * found early lets the other rows be skipped on first[] alone, without touching them.
 * Bound checks are against S's maximum over alive slots, recomputed each search (O(r)), since
 * joins change every S. Starting with the row of the lowest bound usually finds
 * a Q low enough that most rows are skipped without being read. */
static void search_fast(struct nj *w, int *bi, int *bj)
{
    double rm2 = w->r - 2, best = INFINITY, smax = -INFINITY, sabs = 0, lbmin = INFINITY;
    int s0 = -1;
    /* INT32_MAX: any real pair wins a tie against "none yet" in q_better */
    *bi = *bj = INT32_MAX;
    for (int s = 0; s < w->n; s++)
        if (w->alive[s]) {
            smax = w->S[s] > smax ? w->S[s] : smax;
            sabs = fabs(w->S[s]) > sabs ? fabs(w->S[s]) : sabs;
        }
    /* the two evaluation orders of Q and its bound differ by a few ulps of these magnitudes */
    double slack = 16 * DBL_EPSILON * (rm2 * w->dmax + 2 * sabs);
    for (int s = 0; s < w->n; s++) {
        if (!w->alive[s])
            continue;
        double lb = rm2 * w->first[s] - (w->S[s] + smax);
        if (lb < lbmin) {
            lbmin = lb;
            s0 = s;
        }
    }
    if (s0 >= 0)
        scan_row(w, s0, rm2, smax, slack, &best, bi, bj);
    /* rows that may still hold a better pair; listing them first lets the scan prefetch
     * the next rows, which sit a whole row of memory apart */
    int m = 0;
    for (int s = 0; s < w->n; s++)
        if (w->alive[s] && s != s0 && rm2 * w->first[s] - (w->S[s] + smax) <= best + slack)
            w->cand[m++] = s;
    for (int c = 0; c < m; c++) {
        if (c + 4 < m) {
            int p = w->cand[c + 4];
            __builtin_prefetch(w->row + (size_t)p * w->n + w->rstart[p]);
        }
        int s = w->cand[c];
        /* re-checked: best may have dropped since the candidate list was made */
        if (rm2 * w->first[s] - (w->S[s] + smax) <= best + slack)
            scan_row(w, s, rm2, smax, slack, &best, bi, bj);
    }
}

/* Joins slots i < j into the new tree node u, kept in slot i.
 * Saitou and Nei's formulas (docs/methods.md §2.4): d(i,u) = d(i,j)/2 + (S_i - S_j)/(2(r-2)),
 * d(j,u) = d(i,j) - d(i,u), d(u,k) = (d(i,k) + d(j,k) - d(i,j))/2. S is updated
 * incrementally (O(r) per join instead of O(r^2) to resum): each S_k loses d(i,k) and d(j,k)
 * and gains d(u,k). Here S_i includes D[i][j] and S_j D[j][i], as in the formula. */
static void join(struct nj *w, struct lens_newick *t, int i, int j, int u)
{
    double dij = DD(w, i, j), rm2 = w->r - 2;
    double li = dij / 2 + (w->S[i] - w->S[j]) / (2 * rm2);
    int iu = u - w->n;
    t->child[3 * iu] = w->node[i];
    t->child[3 * iu + 1] = w->node[j];
    t->len[w->node[i]] = li;
    t->len[w->node[j]] = dij - li;
    /* j dies before the loop so that the loop updates only the r - 2 remaining nodes */
    w->alive[j] = 0;
    w->r--;
    double su = 0;
    for (int k = 0; k < w->n; k++) {
        if (!w->alive[k] || k == i)
            continue;
        double dik = DD(w, i, k), djk = DD(w, j, k);
        double duk = (dik + djk - dij) / 2;
        w->S[k] = w->S[k] - dik - djk + duk;
        DD(w, i, k) = DD(w, k, i) = duk;
        su += duk;
    }
    w->S[i] = su;
    w->node[i] = u;
}

static void sorter_release(struct sorter *t)
{
    lens_free(t->key);
    lens_free(t->key2);
    lens_free(t->idx);
    lens_free(t->idx2);
}

static void nj_release(struct nj *w)
{
    lens_free(w->D);
    lens_free(w->S);
    lens_free(w->alive);
    lens_free(w->node);
    lens_free(w->row);
    lens_free(w->rlen);
    lens_free(w->rstart);
    lens_free(w->first);
    lens_free(w->cand);
    lens_free(w->birth);
}

/* Memory: 8 n^2 bytes for D plus, for the fast search, 8 n^2 for the rows (an entry is a
 * float and an int32). On failure everything allocated so far is released. */
static int nj_init(struct nj *w, const double *d, int n, int fast, struct lens_err *e)
{
    memset(w, 0, sizeof *w);
    w->n = w->r = n;
    w->D = lens_malloc((size_t)n * n * sizeof *w->D);
    w->S = lens_calloc((size_t)n, sizeof *w->S);
    w->alive = lens_malloc((size_t)n * sizeof *w->alive);
    w->node = lens_malloc((size_t)n * sizeof *w->node);
    int ok = w->D && w->S && w->alive && w->node;
    if (ok && fast) {
        w->row = lens_malloc((size_t)n * n * sizeof *w->row);
        w->rlen = lens_calloc((size_t)n, sizeof *w->rlen);
        w->rstart = lens_calloc((size_t)n, sizeof *w->rstart);
        w->birth = lens_malloc((size_t)n * sizeof *w->birth);
        w->first = lens_malloc((size_t)n * sizeof *w->first);
        w->cand = lens_malloc((size_t)n * sizeof *w->cand);
        ok = w->row && w->rlen && w->rstart && w->birth && w->first && w->cand;
    }
    if (!ok) {
        nj_release(w);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for neighbor joining of %d objects",
                            n);
    }
    for (int i = 0; i < n; i++) {
        w->alive[i] = 1;
        w->node[i] = i;
        DD(w, i, i) = 0;
        for (int j = i + 1; j < n; j++) {
            double v = d[lens_distmat_index(n, i, j)];
            DD(w, i, j) = DD(w, j, i) = v;
            if (v > w->dmax)
                w->dmax = v;
        }
    }
    /* row sums in slot order, the same for both searches */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++)
            w->S[i] += DD(w, i, k);
    return LENS_OK;
}

/* O(n^3) time for the canonical scan; the fast search is exact (same pair, same tree) and in
 * practice far below that, since most rows stop after a few entries. */
int lens_nj_run(const double *d, int n, int search, struct lens_newick **out, struct lens_err *e)
{
    *out = NULL;
    if (n < 2)
        return lens_err_set(e, LENS_EINVAL, "need at least 2 objects to join, got %d", n);
    for (size_t k = 0; k < lens_distmat_pairs(n); k++)
        if (!isfinite(d[k]))
            return lens_err_set(e, LENS_EDATA, "distance %zu of the condensed matrix is %g", k,
                                d[k]);
    int fast = search != LENS_NJ_CANONICAL;
    struct lens_newick *t = NULL;
    int rc = lens_newick_new(&t, n, n == 2 ? 1 : n - 2, e);
    if (rc < 0)
        return rc;
    /* no join to make: the two leaves hang from a root of degree 2, split in the middle */
    if (n == 2) {
        t->child[0] = 0;
        t->child[1] = 1;
        t->len[0] = t->len[1] = d[0] / 2;
        *out = t;
        return LENS_OK;
    }
    struct nj w;
    if ((rc = nj_init(&w, d, n, fast, e)) < 0) {
        lens_newick_free(t);
        return rc;
    }
    struct sorter tmp = {0};
    if (fast) {
        tmp.key = lens_malloc((size_t)n * sizeof *tmp.key);
        tmp.key2 = lens_malloc((size_t)n * sizeof *tmp.key2);
        tmp.idx = lens_malloc((size_t)n * sizeof *tmp.idx);
        tmp.idx2 = lens_malloc((size_t)n * sizeof *tmp.idx2);
        if (!tmp.key || !tmp.key2 || !tmp.idx || !tmp.idx2) {
            sorter_release(&tmp);
            nj_release(&w);
            lens_newick_free(t);
            return lens_err_set(e, LENS_ENOMEM, "out of memory for neighbor joining");
        }
        /* leaves are born in slot order, so initially row s lists the slots below s */
        for (int s = 0; s < n; s++)
            w.birth[s] = s;
        for (int s = 0; s < n; s++)
            row_build(&w, s, &tmp);
        /* the first compaction when half the nodes are joined (rows_compact sets the next) */
        w.compact_at = n / 2;
    }
    int u = n;
    /* Each round joins two nodes into one: n - 3 rounds make inner nodes n..2n-4, and the root
     * is 2n-3, the n - 2 inner nodes lens_newick_new reserved. */
    while (w.r > 3) {
        int i, j;
        if (fast)
            search_fast(&w, &i, &j);
        else
            search_canonical(&w, &i, &j);
        join(&w, t, i, j, u);
        if (fast) {
            w.birth[i] = u; /* newer than every leaf (births 0..n-1) and earlier join */
            row_build(&w, i, &tmp);
            if (w.r <= w.compact_at)
                rows_compact(&w);
        }
        u++;
    }
    /* the last three nodes meet at the root */
    int s3[3], m = 0;
    for (int k = 0; k < n && m < 3; k++)
        if (w.alive[k])
            s3[m++] = k;
    double ab = DD(&w, s3[0], s3[1]), ac = DD(&w, s3[0], s3[2]), bc = DD(&w, s3[1], s3[2]);
    /* the three-point formula: branch lengths that give the last three distances exactly */
    double len3[3] = {(ab + ac - bc) / 2, (ab + bc - ac) / 2, (ac + bc - ab) / 2};
    for (int c = 0; c < 3; c++) {
        t->child[3 * (u - n) + c] = w.node[s3[c]];
        t->len[w.node[s3[c]]] = len3[c];
    }
    sorter_release(&tmp);
    nj_release(&w);
    *out = t;
    return LENS_OK;
}
