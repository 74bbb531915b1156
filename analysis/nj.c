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

struct nj {
    int n;            /* leaves, also the number of slots */
    int r;            /* nodes still active */
    double *D;        /* n x n distances between the nodes in the slots */
    double *S;        /* row sums over active slots */
    int *alive;       /* slot holds an active node */
    int *node;        /* tree node held by each slot */
    /* fast search only */
    int32_t *row;     /* n rows of n slots: row s sorted by D[s][.] ascending */
    int *rlen;        /* entries in use in row s */
    int *rstart;      /* leading entries known to be stale */
    long *birth;      /* creation order of the node in each slot; a row lists older nodes */
    double dmax;      /* largest input distance, scales the rounding slack of the bound */
    int compact_at;   /* compact all rows when r falls to this */
};

#define DD(w, i, j) ((w)->D[(size_t)(i) * (w)->n + (j)])

/* Sorting a row: (distance, slot) pairs, ties by slot so the order is reproducible. */
struct entry {
    double v;
    int32_t k;
};

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* Fills row s with the active slots older than s (those with smaller birth), sorted. */
static void row_build(struct nj *w, int s, struct entry *tmp)
{
    int m = 0;
    for (int k = 0; k < w->n; k++)
        if (w->alive[k] && k != s && w->birth[k] < w->birth[s])
            tmp[m++] = (struct entry){DD(w, s, k), k};
    qsort(tmp, (size_t)m, sizeof *tmp, cmp_entry);
    int32_t *row = w->row + (size_t)s * w->n;
    for (int i = 0; i < m; i++)
        row[i] = tmp[i].k;
    w->rlen[s] = m;
    w->rstart[s] = 0;
}

/* An entry k of row s still stands for the same pair if k is active and older than s. */
static inline int entry_valid(const struct nj *w, int s, int k)
{
    return w->alive[k] && w->birth[k] < w->birth[s];
}

static void rows_compact(struct nj *w)
{
    for (int s = 0; s < w->n; s++) {
        if (!w->alive[s])
            continue;
        int32_t *row = w->row + (size_t)s * w->n;
        int m = 0;
        for (int i = w->rstart[s]; i < w->rlen[s]; i++)
            if (entry_valid(w, s, row[i]))
                row[m++] = row[i];
        w->rlen[s] = m;
        w->rstart[s] = 0;
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

static void search_fast(struct nj *w, int *bi, int *bj)
{
    double rm2 = w->r - 2, best = INFINITY, smax = -INFINITY;
    *bi = *bj = INT32_MAX;
    for (int s = 0; s < w->n; s++)
        if (w->alive[s] && w->S[s] > smax)
            smax = w->S[s];
    for (int s = 0; s < w->n; s++) {
        if (!w->alive[s])
            continue;
        const int32_t *row = w->row + (size_t)s * w->n;
        const double *Ds = w->D + (size_t)s * w->n;
        double base = w->S[s] + smax;
        /* rounding of the two evaluation orders differs by a few ulps of these magnitudes */
        double slack = 16 * DBL_EPSILON * (rm2 * w->dmax + fabs(w->S[s]) + fabs(smax));
        int i = w->rstart[s];
        while (i < w->rlen[s] && !entry_valid(w, s, row[i]))
            i++;
        w->rstart[s] = i; /* stale entries at the front never come back */
        for (; i < w->rlen[s]; i++) {
            int k = row[i];
            if (!entry_valid(w, s, k)) /* its D may have changed since the row was sorted */
                continue;
            double dk = Ds[k];
            if (rm2 * dk - base > best + slack)
                break;
            int a = s < k ? s : k, b = s < k ? k : s;
            double q = q_value(w, a, b, rm2);
            if (q_better(q, a, b, best, *bi, *bj)) {
                best = q;
                *bi = a;
                *bj = b;
            }
        }
    }
}

/* Joins slots i < j into a new node kept in slot i; returns the new tree node. */
static void join(struct nj *w, struct lens_newick *t, int i, int j, int u)
{
    double dij = DD(w, i, j), rm2 = w->r - 2;
    double li = dij / 2 + (w->S[i] - w->S[j]) / (2 * rm2);
    int iu = u - w->n;
    t->child[3 * iu] = w->node[i];
    t->child[3 * iu + 1] = w->node[j];
    t->len[w->node[i]] = li;
    t->len[w->node[j]] = dij - li;
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

static void nj_release(struct nj *w)
{
    lens_free(w->D);
    lens_free(w->S);
    lens_free(w->alive);
    lens_free(w->node);
    lens_free(w->row);
    lens_free(w->rlen);
    lens_free(w->rstart);
    lens_free(w->birth);
}

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
        ok = w->row && w->rlen && w->rstart && w->birth;
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

int lens_nj_run(const double *d, int n, int search, struct lens_newick **out, struct lens_err *e)
{
    *out = NULL;
    if (n < 2)
        return lens_err_set(e, LENS_EINVAL, "need at least 2 objects to join, got %d", n);
    int fast = search != LENS_NJ_CANONICAL;
    struct lens_newick *t = NULL;
    int rc = lens_newick_new(&t, n, n == 2 ? 1 : n - 2, e);
    if (rc < 0)
        return rc;
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
    struct entry *tmp = NULL;
    if (fast) {
        tmp = lens_malloc((size_t)n * sizeof *tmp);
        if (!tmp) {
            nj_release(&w);
            lens_newick_free(t);
            return lens_err_set(e, LENS_ENOMEM, "out of memory for neighbor joining");
        }
        for (int s = 0; s < n; s++)
            w.birth[s] = s;
        for (int s = 0; s < n; s++)
            row_build(&w, s, tmp);
        w.compact_at = n / 2;
    }
    int u = n;
    while (w.r > 3) {
        int i, j;
        if (fast)
            search_fast(&w, &i, &j);
        else
            search_canonical(&w, &i, &j);
        join(&w, t, i, j, u);
        if (fast) {
            w.birth[i] = u; /* newer than every leaf (births 0..n-1) and earlier join */
            row_build(&w, i, tmp);
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
    double len3[3] = {(ab + ac - bc) / 2, (ab + bc - ac) / 2, (ac + bc - ab) / 2};
    for (int c = 0; c < 3; c++) {
        t->child[3 * (u - n) + c] = w.node[s3[c]];
        t->len[w.node[s3[c]]] = len3[c];
    }
    lens_free(tmp);
    nj_release(&w);
    *out = t;
    return LENS_OK;
}
