/* Agglomerative clustering by Muellner's algorithms, written to reproduce scipy's linkage()
 * exactly: same scan orders and strict comparisons (so the same choice among equal distances),
 * the same Lance-Williams arithmetic, a stable sort by height and union-find relabelling for
 * the MST and NN-chain results. Active clusters sit in a sorted array, so scans skip merged
 * ones without chasing pointers. */
#include "hclust.h"
#include "common/atomic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* scipy's method names, so that a user can pass the same word to both tools and compare Z */
static const char *const method_names[LENS_HCLUST_NMETHODS] = {
    "single", "complete", "average", "weighted", "centroid", "median", "ward"};

const char *lens_hclust_method_name(int method)
{
    return method >= 0 && method < LENS_HCLUST_NMETHODS ? method_names[method] : "unknown";
}

int lens_hclust_method_parse(const char *name)
{
    for (int m = 0; m < LENS_HCLUST_NMETHODS; m++)
        if (!strcmp(name, method_names[m]))
            return m;
    return -1;
}

/* Condensed index of (i, j) for i < j: rowbase(i) + j.
 * The -i-1 folds scipy's "j - i - 1" into the base, so the inner loops add j alone: one add
 * per element in the hot scans instead of a subtraction too. */
static inline size_t rowbase(int n, int i)
{
    return (size_t)n * i - (size_t)i * (i + 1) / 2 - (size_t)i - 1;
}

/* Either order: the NN chain and the generic algorithm look pairs up both ways. */
static inline size_t cidx(int n, int i, int j)
{
    return i < j ? rowbase(n, i) + (size_t)j : rowbase(n, j) + (size_t)i;
}

/* Working state shared by the three algorithms: O(n) arrays.
 * Invariant: act[0..nact) is strictly increasing and size[c] > 0 exactly for the clusters in
 * it; a merge of x into y removes x and keeps y's slot, whose row and column then hold the
 * merged cluster's distances, so the matrix never grows beyond the n(n-1)/2 it started with. */
struct work {
    int n;
    int *size;  /* leaves per cluster, 0 once merged away */
    int *act;   /* the nact active clusters in increasing order */
    int nact;
    int bad;    /* set when a square root got a clearly negative argument */
};

static int work_init(struct work *w, int n, struct lens_err *e)
{
    memset(w, 0, sizeof *w);
    w->n = w->nact = n;
    w->size = lens_malloc((size_t)n * sizeof *w->size);
    w->act = lens_malloc((size_t)n * sizeof *w->act);
    if (!w->size || !w->act) {
        lens_free(w->size);
        lens_free(w->act);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for clustering %d objects", n);
    }
    for (int i = 0; i < n; i++) {
        w->size[i] = 1;
        w->act[i] = i;
    }
    return LENS_OK;
}

static void work_release(struct work *w)
{
    lens_free(w->size);
    lens_free(w->act);
}

/* Position of the first active cluster >= x.
 * Binary search: removal is O(n) by memmove anyway, but lookups happen per merge too. */
static int work_pos(const struct work *w, int x)
{
    int lo = 0, hi = w->nact;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (w->act[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* memmove keeps act sorted, which the three-range loops below rely on; n removals cost
 * O(n^2) in total, the same order as one scan of the matrix. */
static void work_remove(struct work *w, int x)
{
    int p = work_pos(w, x);
    memmove(w->act + p, w->act + p + 1, (size_t)(w->nact - p - 1) * sizeof *w->act);
    w->nact--;
    w->size[x] = 0;
}

/* Square root of a Lance-Williams update; rounding may push an exact 0 slightly below.
 * The centroid, median and Ward updates are exact for squared Euclidean distances
 * (Lance and Williams); a negative argument beyond rounding (1e-12 relative to the squared
 * inputs) means the input is not Euclidean, and the run fails rather than return a height
 * that is the root of a negative number. The flag is checked once, after the loop. */
static inline double lw_sqrt(struct work *w, double t, double scale)
{
    if (t >= 0)
        return sqrt(t);
    if (t >= -1e-12 * scale)
        return 0.0;
    w->bad = 1;
    return 0.0;
}

/* Distance from cluster i to the union of x and y (scipy's _hierarchy formulas, same order of
 * operations so that results agree to the last bit). */
static inline double lw_update(struct work *w, int method, double dxi, double dyi, double dxy,
                               double nx, double ny, double ni)
{
    switch (method) {
    case LENS_HCLUST_SINGLE:
        return dxi < dyi ? dxi : dyi;
    case LENS_HCLUST_COMPLETE:
        return dxi > dyi ? dxi : dyi;
    case LENS_HCLUST_AVERAGE:
        return (nx * dxi + ny * dyi) / (nx + ny);
    case LENS_HCLUST_WEIGHTED:
        return 0.5 * (dxi + dyi);
    /* n_U d(U,X)^2 + n_V d(V,X)^2 - n_U n_V d(U,V)^2 / (n_U + n_V), over n_U + n_V
     * (docs/methods.md §2.2): the distance between centroids */
    case LENS_HCLUST_CENTROID: {
        double t = (((nx * dxi * dxi) + (ny * dyi * dyi)) - (nx * ny * dxy * dxy) / (nx + ny)) /
                   (nx + ny);
        return lw_sqrt(w, t, dxi * dxi + dyi * dyi);
    }
    /* the centroid formula with equal weights: the merged point is the midpoint */
    case LENS_HCLUST_MEDIAN: {
        double t = 0.5 * (dxi * dxi + dyi * dyi) - 0.25 * dxy * dxy;
        return lw_sqrt(w, t, dxi * dxi + dyi * dyi);
    }
    /* Ward's increase of the within-cluster sum of squares, written with one reciprocal t as
     * scipy does, so the rounding is the same */
    default: { /* Ward */
        double t = 1.0 / (nx + ny + ni);
        double v = (ni + nx) * t * dxi * dxi + (ni + ny) * t * dyi * dyi - ni * t * dxy * dxy;
        return lw_sqrt(w, v, dxi * dxi + dyi * dyi);
    }
    }
}

/* Column walks jump a whole row per step, which no hardware prefetcher follows: ask for the
 * element PREFETCH steps ahead (prefetching never faults, even past the end). */
#define PREFETCH 32
#define PREFETCH_COLUMN(d, n, act, p, col)                                       \
    __builtin_prefetch((d) + rowbase((n), (act)[(p) + PREFETCH]) + (size_t)(col))

/* Replaces row y by the merge of x and y (x is already removed from the active list). A
 * merge touches one row and one column of the condensed matrix, O(n), in place: the run does
 * O(n^2) updates in all and never allocates a second matrix. */
static inline __attribute__((always_inline)) void
update_rows_as(struct work *w, double *d, int method, int x, int y, double dxy, int nx, int ny)
{
    int n = w->n, lo = x < y ? x : y, hi = x < y ? y : x, p = 0, m = w->nact;
    const int *act = w->act;
    size_t bx = rowbase(n, x), by = rowbase(n, y);
    /* three ranges so that the index arithmetic has no branch: column-wise below lo,
     * mixed between lo and hi, row-wise above hi */
    for (; p < m && act[p] < lo; p++) {
        /* i < lo: both pairs are in row i (columns x and y); consecutive i jump a row each */
        int i = act[p];
        size_t bi = rowbase(n, i);
        if (p + PREFETCH < m) {
            PREFETCH_COLUMN(d, n, act, p, x);
            PREFETCH_COLUMN(d, n, act, p, y);
        }
        d[bi + y] = lw_update(w, method, d[bi + x], d[bi + y], dxy, nx, ny, w->size[i]);
    }
    for (; p < m && act[p] < hi; p++) {
        int i = act[p];
        /* lo < i < hi: one pair is in row lo (column i), the other in row i (column hi) */
        if (i == y)
            continue;
        size_t bi = rowbase(n, i);
        if (p + PREFETCH < m)
            PREFETCH_COLUMN(d, n, act, p, hi);
        size_t ix = x < i ? bx + i : bi + x, iy = y < i ? by + i : bi + y;
        d[iy] = lw_update(w, method, d[ix], d[iy], dxy, nx, ny, w->size[i]);
    }
    for (; p < m; p++) {
        /* i > hi: both pairs are in rows x and y at column i, read in order: no prefetch needed */
        int i = act[p];
        if (i != y)
            d[by + i] = lw_update(w, method, d[bx + i], d[by + i], dxy, nx, ny, w->size[i]);
    }
}

/* One copy of the loop per method, so the Lance-Williams switch is decided outside it.
 * (update_rows_as is always_inline: in each case the constant method folds lw_update's
 * switch away, so the per-element cost is the formula alone.) */
static void update_rows(struct work *w, double *d, int method, int x, int y, double dxy,
                        int nx, int ny)
{
    switch (method) {
    case LENS_HCLUST_SINGLE: update_rows_as(w, d, LENS_HCLUST_SINGLE, x, y, dxy, nx, ny); break;
    case LENS_HCLUST_COMPLETE: update_rows_as(w, d, LENS_HCLUST_COMPLETE, x, y, dxy, nx, ny); break;
    case LENS_HCLUST_AVERAGE: update_rows_as(w, d, LENS_HCLUST_AVERAGE, x, y, dxy, nx, ny); break;
    case LENS_HCLUST_WEIGHTED: update_rows_as(w, d, LENS_HCLUST_WEIGHTED, x, y, dxy, nx, ny); break;
    case LENS_HCLUST_CENTROID: update_rows_as(w, d, LENS_HCLUST_CENTROID, x, y, dxy, nx, ny); break;
    case LENS_HCLUST_MEDIAN: update_rows_as(w, d, LENS_HCLUST_MEDIAN, x, y, dxy, nx, ny); break;
    default: update_rows_as(w, d, LENS_HCLUST_WARD, x, y, dxy, nx, ny); break;
    }
}

/* Nearest active neighbour of x (strict <, lowest index first among equals) starting from
 * the bound cur and candidate *y, scanning column x below it and row x above it.
 * Strict < against the incoming bound keeps the caller's preferred candidate on a tie; the
 * scan in increasing index order otherwise keeps the lowest index. Both are scipy's choices
 * and the reason Z matches scipy row for row on tied distances. */
static inline double scan_row(const struct work *w, const double *d, int x, double cur, int *y)
{
    int n = w->n, p = 0, m = w->nact;
    const int *act = w->act;
    for (; p < m && act[p] < x; p++) {
        if (p + PREFETCH < m)
            PREFETCH_COLUMN(d, n, act, p, x);
        double v = d[rowbase(n, act[p]) + (size_t)x];
        if (v < cur) {
            cur = v;
            *y = act[p];
        }
    }
    const double *row = d + rowbase(n, x);
    /* skip x itself when it is active (in the NN chain it is) */
    for (p += p < m && act[p] == x; p < m; p++)
        if (row[act[p]] < cur) {
            cur = row[act[p]];
            *y = act[p];
        }
    return cur;
}

/* ---- relabelling of unsorted merges (scipy's label()) ---- */

/* Height first, then the order in which the merge was found: qsort is not stable, so the
 * discovery index (stashed in size) makes it so. NaN sorts last, as numpy's argsort does,
 * although the input check means no height can be NaN today. */
static int cmp_step(const void *a, const void *b)
{
    const struct lens_hclust_step *p = a, *q = b;
    int pn = isnan(p->height), qn = isnan(q->height);
    if (pn != qn)
        return pn - qn;
    if (!pn && p->height != q->height)
        return p->height < q->height ? -1 : 1;
    return (p->size > q->size) - (p->size < q->size); /* size holds the discovery index */
}

/* Union-find with path compression: a node's root is the newest cluster containing it. The
 * union is done by the caller (both roots point to the new cluster), so there is no rank. */
static int uf_find(int *parent, int x)
{
    int r = x;
    while (parent[r] != r)
        r = parent[r];
    while (parent[x] != r) {
        int nx = parent[x];
        parent[x] = r;
        x = nx;
    }
    return r;
}

/* Stable sort by height, then rename the original object ids to cluster ids.
 * MST and NN-chain find merges out of height order and name clusters by a surviving object
 * index. scipy's Z is in height order and names merge k as n + k; this is scipy's label()
 * step: after sorting, each merge's two ends are resolved to the clusters they belong to
 * at that point, which is valid because merges below are already labelled. */
static int sort_and_label(struct lens_hclust_step *z, int n, struct lens_err *e)
{
    for (int k = 0; k < n - 1; k++)
        z[k].size = k;
    qsort(z, (size_t)(n - 1), sizeof *z, cmp_step);
    int *parent = lens_malloc((size_t)(2 * n - 1) * sizeof *parent);
    int *usize = lens_malloc((size_t)(2 * n - 1) * sizeof *usize);
    if (!parent || !usize) {
        lens_free(parent);
        lens_free(usize);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for clustering %d objects", n);
    }
    for (int i = 0; i < 2 * n - 1; i++) {
        parent[i] = i;
        usize[i] = 1;
    }
    for (int k = 0; k < n - 1; k++) {
        int a = uf_find(parent, z[k].left), b = uf_find(parent, z[k].right);
        /* left < right, as scipy writes them */
        z[k].left = a < b ? a : b;
        z[k].right = a < b ? b : a;
        parent[a] = parent[b] = n + k;
        usize[n + k] = usize[a] + usize[b];
        z[k].size = usize[n + k];
    }
    lens_free(parent);
    lens_free(usize);
    return LENS_OK;
}

/* ---- the three algorithms ---- */

/* Prim's minimum spanning tree on the complete graph, as scipy's mst_single_linkage. d is
 * read only; the key array is the O(n) extra.
 * Single linkage is the minimum spanning tree (Gower and Ross): the tree's edges, sorted, are
 * the merges. Prim's algorithm on the complete graph is O(n^2) time and never writes d, which
 * is why single alone leaves the caller's matrix intact. Invariant: key[i] is the shortest
 * edge from i to the tree built so far; x is the node last added. */
static int mst_single(const double *d, struct work *w, struct lens_hclust_step *z,
                      struct lens_err *e)
{
    int n = w->n, x = 0, y = 0;
    double *key = lens_malloc((size_t)n * sizeof *key);
    if (!key)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for clustering %d objects", n);
    for (int i = 0; i < n; i++)
        key[i] = INFINITY;
    for (int k = 0; k < n - 1; k++) {
        double cur = INFINITY;
        work_remove(w, x);
        int p = 0, m = w->nact;
        const int *act = w->act;
        for (; p < m && act[p] < x; p++) {
            int i = act[p];
            if (p + PREFETCH < m)
                PREFETCH_COLUMN(d, n, act, p, x);
            double dist = d[rowbase(n, i) + (size_t)x];
            if (key[i] > dist)
                key[i] = dist;
            if (key[i] < cur) {
                y = i;
                cur = key[i];
            }
        }
        const double *row = d + rowbase(n, x);
        for (; p < m; p++) {
            int i = act[p];
            if (key[i] > row[i])
                key[i] = row[i];
            if (key[i] < cur) {
                y = i;
                cur = key[i];
            }
        }
        /* an edge, not yet a merge: sort_and_label turns edges into clusters */
        z[k] = (struct lens_hclust_step){x, y, cur, 0};
        x = y;
    }
    lens_free(key);
    return sort_and_label(z, n, e);
}

/* Nearest-neighbour chain (complete, average, weighted, Ward): grow a chain of nearest
 * neighbours until two are mutual, merge them, and keep the rest of the chain.
 * Valid only for reducible methods (Bruynooghe's reducibility: merging two clusters never
 * brings the union closer to a third than the nearer of the two was), which complete,
 * average, weighted and Ward are and centroid and median are not. Reducibility is what lets
 * the rest of the chain stay a chain of nearest neighbours after a merge, giving O(n^2) time
 * in total (Muellner). */
static int nn_chain(double *d, struct work *w, int method, struct lens_hclust_step *z,
                    struct lens_err *e)
{
    int n = w->n, len = 0, x = 0, y = 0;
    int *chain = lens_malloc((size_t)n * sizeof *chain);
    if (!chain)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for clustering %d objects", n);
    for (int k = 0; k < n - 1; k++) {
        /* a fresh chain starts at the lowest active cluster, as scipy's does */
        if (len == 0)
            chain[len++] = w->act[0];
        double cur;
        for (;;) {
            x = chain[len - 1];
            if (len > 1) {
                /* prefer the previous element of the chain, so the chain cannot cycle */
                y = chain[len - 2];
                cur = d[cidx(n, x, y)];
            } else {
                cur = INFINITY;
            }
            cur = scan_row(w, d, x, cur, &y);
            if (len > 1 && y == chain[len - 2])
                break;
            chain[len++] = y;
        }
        /* x and y are mutual nearest neighbours: merge them; the chain below them stays valid */
        len -= 2;
        if (x > y) {
            int t = x;
            x = y;
            y = t;
        }
        /* the merged cluster keeps the higher index y, as scipy's nn_chain does; the ids are
         * renamed to n + k by sort_and_label */
        int nx = w->size[x], ny = w->size[y];
        z[k] = (struct lens_hclust_step){x, y, cur, nx + ny};
        work_remove(w, x);
        w->size[y] = nx + ny;
        update_rows(w, d, method, x, y, cur, nx, ny);
    }
    lens_free(chain);
    return sort_and_label(z, n, e);
}

/* Binary min-heap over keys 0..m-1 with decrease/increase-key, as in scipy's fast_linkage.
 * Only the generic algorithm needs a priority queue: its nearest-neighbour candidates can
 * become stale in both directions, which the chain and the MST never have to handle. */
struct heap {
    int size;
    double *val;   /* by heap position */
    int *key;      /* key at heap position */
    int *pos;      /* heap position of key */
};

static void heap_swap(struct heap *h, int a, int b)
{
    double v = h->val[a];
    h->val[a] = h->val[b];
    h->val[b] = v;
    int k = h->key[a];
    h->key[a] = h->key[b];
    h->key[b] = k;
    h->pos[h->key[a]] = a;
    h->pos[h->key[b]] = b;
}

/* !(a > b) rather than a <= b so that a NaN value stops the sift instead of sinking through
 * the heap; the run refuses NaN input, but the structure stays sane if one appears. */
static void heap_down(struct heap *h, int i)
{
    for (int c = 2 * i + 1; c < h->size; c = 2 * i + 1) {
        if (c + 1 < h->size && h->val[c + 1] < h->val[c])
            c++;
        if (!(h->val[i] > h->val[c]))
            break;
        heap_swap(h, i, c);
        i = c;
    }
}

static void heap_up(struct heap *h, int i)
{
    while (i > 0 && h->val[(i - 1) / 2] > h->val[i]) {
        heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

/* A repaired bound may go either way: down after a neighbour was merged away, up after a
 * merge brought a new cluster closer. */
static void heap_change(struct heap *h, int key, double v)
{
    int i = h->pos[key];
    double old = h->val[i];
    h->val[i] = v;
    if (v < old)
        heap_up(h, i);
    else
        heap_down(h, i);
}

/* Nearest active neighbour of x among higher indices: its index (-1 if none) and distance.
 * Looking only above x means each pair has one owner (the lower index), so a merge has to
 * refresh the candidates of the clusters below y and y's own, nothing else. */
static int min_above(const double *d, const struct work *w, int x, double *dist)
{
    int y = -1;
    double cur = INFINITY;
    const double *row = d + rowbase(w->n, x);
    for (int p = work_pos(w, x + 1); p < w->nact; p++)
        if (row[w->act[p]] < cur) {
            cur = row[w->act[p]];
            y = w->act[p];
        }
    *dist = cur;
    return y;
}

/* Muellner's generic algorithm (centroid, median): a heap of lower bounds of each cluster's
 * distance to its nearest neighbour with a higher index, repaired lazily when popped. Worst case
 * O(n^3) time, in practice far below it (Muellner); needed because centroid and median are not
 * reducible (see nn_chain). The keys are cluster slots 0..n-2 (slot n-1 has no higher neighbour);
 * id[] maps a slot to its cluster's name in Z, since slots keep their index across merges. */
static int generic(double *d, struct work *w, int method, struct lens_hclust_step *z,
                   struct lens_err *e)
{
    int n = w->n, m = n - 1;
    int *id = lens_malloc((size_t)n * sizeof *id);
    int *nbr = lens_malloc((size_t)m * sizeof *nbr);
    struct heap h = {m, lens_malloc((size_t)m * sizeof(double)),
                     lens_malloc((size_t)m * sizeof(int)), lens_malloc((size_t)m * sizeof(int))};
    int rc = LENS_OK;
    if (!id || !nbr || !h.val || !h.key || !h.pos) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory for clustering %d objects", n);
        goto done;
    }
    for (int i = 0; i < n; i++)
        id[i] = i;
    for (int x = 0; x < m; x++) {
        nbr[x] = min_above(d, w, x, &h.val[x]);
        h.key[x] = h.pos[x] = x;
    }
    /* Floyd's bottom-up heapify, O(n) */
    for (int i = m / 2 - 1; i >= 0; i--)
        heap_down(&h, i);
    for (int k = 0; k < n - 1; k++) {
        int x = 0, y = -1, found = 0;
        double dist = 0;
        /* pop until the top's bound is its true nearest distance; each miss repairs one
         * entry, so n - k + 1 tries always suffice with consistent comparisons */
        for (int t = 0; t <= n - k && !found; t++) {
            x = h.key[0];
            dist = h.val[0];
            y = nbr[x];
            /* The bound is only a lower bound: it is exact when the remembered neighbour still
             * exists and the stored distance still matches; otherwise recompute and push back. */
            if (y >= 0 && w->size[y] > 0 && dist == d[rowbase(n, x) + (size_t)y]) {
                found = 1;
            } else {
                nbr[x] = min_above(d, w, x, &dist);
                heap_change(&h, x, dist);
            }
        }
        /* cannot happen with consistent comparisons; refusing beats a wrong Z */
        if (!found) {
            rc = lens_err_set(e, LENS_EDATA, "%s linkage lost track of the nearest clusters "
                              "at merge %d", method_names[method], k);
            goto done;
        }
        /* x leaves the heap for good: it is merged away below */
        heap_swap(&h, 0, h.size - 1);
        h.size--;
        heap_down(&h, 0);
        int nx = w->size[x], ny = w->size[y];
        z[k] = (struct lens_hclust_step){id[x] < id[y] ? id[x] : id[y],
                                         id[x] < id[y] ? id[y] : id[x], dist, nx + ny};
        work_remove(w, x);
        w->size[y] = nx + ny;
        id[y] = n + k;
        update_rows(w, d, method, x, y, dist, nx, ny);
        /* a non-Euclidean update: stop now, lens_hclust_run reports it */
        if (w->bad)
            break;
        /* candidates that pointed at x now point at the merged cluster y */
        for (int p = 0; p < w->nact && w->act[p] < x; p++)
            if (nbr[w->act[p]] == x)
                nbr[w->act[p]] = y;
        /* a lower cluster may now be nearer to the merged y than to its remembered neighbour */
        for (int p = 0, c; p < w->nact && (c = w->act[p]) < y; p++) {
            double v = d[rowbase(n, c) + (size_t)y];
            if (v < h.val[h.pos[c]]) {
                nbr[c] = y;
                heap_change(&h, c, v);
            }
        }
        /* y's own row changed: its nearest neighbour above is recomputed outright */
        if (y < n - 1) {
            double v;
            int c = min_above(d, w, y, &v);
            if (c >= 0) {
                nbr[y] = c;
                heap_change(&h, y, v);
            }
        }
    }
done:
    lens_free(id);
    lens_free(nbr);
    lens_free(h.val);
    lens_free(h.key);
    lens_free(h.pos);
    return rc;
}

/* Dispatch after Muellner's recommendations: MST for single, the NN chain for the reducible
 * methods, the generic algorithm for the rest. All are O(n^2) memory: the caller's condensed
 * matrix plus O(n) here. */
int lens_hclust_run(double *d, int n, int method, struct lens_hclust_step *z, struct lens_err *e)
{
    if (n < 2)
        return lens_err_set(e, LENS_EINVAL, "need at least 2 objects to cluster, got %d", n);
    if (method < 0 || method >= LENS_HCLUST_NMETHODS)
        return lens_err_set(e, LENS_EINVAL, "unknown linkage method %d", method);
    size_t np = (size_t)n * (size_t)(n - 1) / 2;
    for (size_t k = 0; k < np; k++)
        if (!isfinite(d[k])) { /* as scipy: NaN or inf would poison every comparison */
            int i = 0;
            /* recover (i, j) from the condensed index: the error must name the two objects */
            while (rowbase(n, i + 1) + (size_t)(i + 2) <= k)
                i++;
            return lens_err_set(e, LENS_EDATA, "distance between objects %d and %d is %g", i,
                                (int)(k - rowbase(n, i)), d[k]);
        }
    struct work w;
    int rc = work_init(&w, n, e);
    if (rc < 0)
        return rc;
    if (method == LENS_HCLUST_SINGLE)
        rc = mst_single(d, &w, z, e);
    else if (method == LENS_HCLUST_CENTROID || method == LENS_HCLUST_MEDIAN)
        rc = generic(d, &w, method, z, e);
    else
        rc = nn_chain(d, &w, method, z, e);
    if (rc == LENS_OK && w.bad)
        rc = lens_err_set(e, LENS_EDATA, "%s linkage needs Euclidean distances: a Lance-Williams "
                          "update took the square root of a negative number",
                          method_names[method]);
    work_release(&w);
    return rc;
}

/* ---- using the tree ---- */

/* Depth first from the root (cluster 2n-2) with an explicit stack: a chain-shaped tree of
 * thousands of leaves would overflow a recursive walk. Right is pushed before left so that
 * left leaves come first, as scipy's leaves_list gives them. The stack never holds more than
 * n entries (each pop of an inner node adds one net entry, and there are n-1 of them). */
int lens_hclust_leaf_order(const struct lens_hclust_step *z, int n, int *order,
                           struct lens_err *e)
{
    int *stack = lens_malloc((size_t)n * sizeof *stack);
    if (!stack)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for the leaf order of %d objects", n);
    int top = 0, k = 0;
    stack[top++] = 2 * n - 2;
    while (top > 0) {
        int c = stack[--top];
        if (c < n) {
            order[k++] = c;
        } else {
            stack[top++] = z[c - n].right;
            stack[top++] = z[c - n].left;
        }
    }
    lens_free(stack);
    return LENS_OK;
}

/* Replaying the first n-k merges into a union-find gives the k groups; numbering them by
 * first appearance in leaf index order makes labels independent of merge order, so two
 * methods giving the same partition give the same labels. */
int lens_hclust_cut(const struct lens_hclust_step *z, int n, int k, int *label, struct lens_err *e)
{
    if (k < 1 || k > n)
        return lens_err_set(e, LENS_EINVAL, "cannot cut %d objects into %d clusters", n, k);
    int *parent = lens_malloc((size_t)(2 * n - 1) * sizeof *parent);
    int *name = lens_malloc((size_t)(2 * n - 1) * sizeof *name);
    if (!parent || !name) {
        lens_free(parent);
        lens_free(name);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for cutting %d objects", n);
    }
    for (int i = 0; i < 2 * n - 1; i++) {
        parent[i] = i;
        name[i] = -1;
    }
    for (int s = 0; s < n - k; s++)
        parent[z[s].left] = parent[z[s].right] = n + s;
    int next = 0;
    for (int i = 0; i < n; i++) {
        int r = uf_find(parent, i);
        if (name[r] < 0)
            name[r] = next++;
        label[i] = name[r];
    }
    lens_free(parent);
    lens_free(name);
    return LENS_OK;
}

/* %.17g round-trips a double exactly, so Z read back (or compared to scipy) loses nothing;
 * the atomic writer means a failed write leaves no partial file. */
int lens_hclust_write_csv(const struct lens_hclust_step *z, int n, const char *path,
                          struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc < 0)
        return rc;
    fputs("left,right,height,size\n", a.fp);
    for (int k = 0; k < n - 1; k++)
        fprintf(a.fp, "%d,%d,%.17g,%d\n", z[k].left, z[k].right, z[k].height, z[k].size);
    return lens_atomic_commit(&a, e);
}

/* ---- the automatic cut (see hclust.h) ---- */

/* The constants of docs/methods.md §2.3: a real step is 10 % above the merge below it, and
 * heights under 1e-3 of the root count as that floor, so identical processes (height 0)
 * produce no infinite ratio. 256 groups is more than any report can show. */
#define CUT_STEP_MIN 1.1
#define GAP_FLOOR 1e-3
#define CUT_KMAX 256

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int lens_hclust_cut_auto(const struct lens_hclust_step *z, int n, struct lens_hclust_autocut *cut,
                         struct lens_err *e)
{
    if (n < 2)
        return lens_err_set(e, LENS_EINVAL, "cannot cut %d objects", n);
    cut->k = 1;
    cut->ratio = 1;
    /* the answer for "no structure": one group, the root */
    cut->low = cut->high = z[n - 2].height;
    /* act[] holds the inside (top) heights of the groups of two or more at the current step;
     * pos[merge] is where that merge's height sits in act, who[] the inverse */
    int *pos = lens_malloc((size_t)(n - 1) * sizeof *pos), nact = 0;
    double *act = lens_malloc((size_t)(n - 1) * sizeof *act);
    double *tmp = lens_malloc((size_t)(n - 1) * sizeof *tmp);
    int *who = lens_malloc((size_t)(n - 1) * sizeof *who);
    if (!pos || !act || !tmp || !who) {
        lens_free(pos), lens_free(act), lens_free(tmp), lens_free(who);
        return lens_err_set(e, LENS_ENOMEM, "out of memory cutting the tree of %d objects", n);
    }
    /* O(n) merges x O(k log k) for the median: the k <= 256 bound keeps this small for any n.
     * The running set act[] is updated in O(1) per merge by swap-removal, since order does not
     * matter for a median. */
    double floor = GAP_FLOOR * z[n - 2].height, best = 0;
    for (int j = 0; j < n - 1; j++) {
        int child[2] = {z[j].left, z[j].right};
        for (int c = 0; c < 2; c++)
            if (child[c] >= n) { /* the child group stops being a group: drop its top */
                int p = pos[child[c] - n];
                act[p] = act[--nact];
                who[p] = who[nact];
                pos[who[p]] = p;
            }
        pos[j] = nact;
        who[nact] = j;
        act[nact++] = z[j].height;
        /* after merges 0..j there are n - 1 - j groups; the candidate cut lies between z[j] and
         * z[j+1] */
        int k = n - 1 - j;
        if (k < 2 || k > CUT_KMAX)
            continue;
        memcpy(tmp, act, (size_t)nact * sizeof *tmp);
        qsort(tmp, (size_t)nact, sizeof *tmp, by_value);
        double within = nact % 2 ? tmp[nact / 2] : (tmp[nact / 2 - 1] + tmp[nact / 2]) / 2;
        double ratio = z[j + 1].height / (within > floor ? within : floor);
        int step = z[j + 1].height >= CUT_STEP_MIN * (z[j].height > floor ? z[j].height : floor);
        /* >= because j grows: a later tie is a cut with fewer groups, which wins. A root height of
         * 0 (all distances 0) has no structure to find. */
        if (z[n - 2].height > 0 && step && ratio >= best) { /* ties: fewer groups */
            best = ratio;
            cut->ratio = ratio;
            cut->low = within;
            cut->high = z[j + 1].height;
            cut->k = k;
        }
    }
    if (cut->ratio < LENS_HCLUST_GAP_MIN)
        cut->k = 1;
    lens_free(pos), lens_free(act), lens_free(tmp), lens_free(who);
    return LENS_OK;
}
