/* The structure pipeline (structure.h): one place that runs distances -> tree -> cut -> leaf
 * order -> NJ -> links -> anomalies, for the commands and the report alike. The steps are
 * the modules' own functions; what lives here is their order, which parts depend on which,
 * and the error policy (a report describes a part that failed instead of failing). */
#include "structure.h"

#include "analysis/cube/cube.h"
#include "distmat.h"
#include "newick.h"
#include "nj.h"

#include <math.h>
#include <string.h>

/* Average linkage (UPGMA) and the median statistic are the documented defaults (docs/hclust.md,
 * docs/methods.md §2.1: the median is the statistic a few preempted repeats do not move).
 * memset first, so a field added later starts at 0. */
void lens_structure_opts_default(struct lens_structure_opts *o)
{
    memset(o, 0, sizeof *o);
    o->parts = LENS_STRUCTURE_ALL;
    o->stat = LENS_STAT_MEDIAN;
    o->length = -1;
    o->method = LENS_HCLUST_AVERAGE;
    o->cut = LENS_STRUCTURE_CUT_AUTO;
    o->nj_search = LENS_NJ_FAST;
    lens_links_opts_default(&o->links);
    lens_anomaly_opts_default(&o->anomaly);
}

/* Drops the tree parts after a failure kept in words, so that "no z" means "no tree".
 * Keeping half of the tree's results would let a caller show a cut of a tree that failed.
 * The distances go too, so NJ, which needs them, is skipped as well: distance_parts then
 * gives NJ the tree's reason, since the report draws the NJ tree only beside a dendrogram. */
static void drop_tree(struct lens_structure *s)
{
    lens_distmat_free(s->dm);
    lens_free(s->z);
    lens_free(s->order);
    lens_free(s->label);
    lens_free(s->group_size);
    lens_free(s->group_within);
    s->dm = NULL;
    s->z = NULL;
    s->order = s->label = s->group_size = NULL;
    s->group_within = NULL;
    s->k = 0;
}

/* Every free below accepts NULL, so this works after any partial run. */
void lens_structure_release(struct lens_structure *s)
{
    if (!s)
        return;
    drop_tree(s);
    lens_free(s->matrix);
    lens_newick_free(s->nj);
    lens_links_free(s->links);
    lens_anomaly_free(s->an);
    memset(s, 0, sizeof *s);
}

/* Z is in height order, so the merges at or below height are a prefix: O(n) and no sort.
 * "<=" keeps a merge exactly at the height, as scipy's fcluster(criterion="distance") does. */
int lens_structure_cut_height(const struct lens_hclust_step *z, int n, double height, int *k,
                              struct lens_err *e)
{
    if (n < 2 || isnan(height))
        return lens_err_set(e, LENS_EINVAL, "cannot cut %d objects at height %g", n, height);
    int s = 0;
    while (s < n - 1 && z[s].height <= height)
        s++;
    *k = n - s;
    return LENS_OK;
}

/* A part's outcome under the error policy: ENOMEM (and, without keep_going, anything) is
 * returned through e; with keep_going other failures stay in the part's own error.
 * Out of memory is never kept in words: a report that silently lost half its sections to
 * memory pressure would look complete. */
static int settle(int rc, const struct lens_structure_opts *o, struct lens_err *part, struct lens_err *e)
{
    if (rc == LENS_OK)
        return LENS_OK;
    if (rc == LENS_ENOMEM || !o->keep_going) {
        *e = *part;
        return rc;
    }
    return LENS_OK;
}

/* Group sizes and the mean distance inside each group of the cut. One pass over the pairs,
 * O(n^2) whatever k: a pass per group made a fine cut (k near n) cubic, over a minute for a
 * few thousand processes. Each group still sums its pairs in condensed order, the order the
 * report always had, so the means are the same to the last bit. A group of one has no pair,
 * hence NaN (the report prints n/a), never 0, which would read as "identical processes". */
static int group_stats(struct lens_structure *s, struct lens_err *e)
{
    int n = s->n, k = s->k;
    s->group_size = lens_calloc((size_t)k, sizeof *s->group_size);
    s->group_within = lens_calloc((size_t)k, sizeof *s->group_within);
    if (!s->group_size || !s->group_within)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for %d groups", k);
    /* group_within holds the sums until the division below */
    for (int i = 0; i < n; i++) {
        int g = s->label[i];
        s->group_size[g]++;
        for (int j = i + 1; j < n; j++)
            if (s->label[j] == g)
                s->group_within[g] += s->dm->d[lens_distmat_index(n, i, j)];
    }
    for (int g = 0; g < k; g++) {
        /* every pair of the group was summed: size (size - 1) / 2 of them */
        long pairs = (long)s->group_size[g] * (s->group_size[g] - 1) / 2;
        s->group_within[g] = pairs ? s->group_within[g] / pairs : NAN;
    }
    return LENS_OK;
}

/* The tree, its leaf order and the cut, into s; errors in *te. The distances stay intact:
 * lens_hclust_run overwrites its input, so it works on a copy (NJ and the tables need them).
 * Memory: one more condensed matrix for the copy, freed before the cut. The source prefix is
 * added to the tree's own errors (a NaN distance, a non-Euclidean update) but not to ENOMEM,
 * which names no input. */
static int tree(struct lens_structure *s, const struct lens_structure_opts *o, struct lens_err *te)
{
    int n = s->n, rc = LENS_OK;
    size_t np = lens_distmat_pairs(n);
    double *work = lens_malloc(np * sizeof *work);
    s->z = lens_malloc((size_t)(n - 1) * sizeof *s->z);
    s->order = lens_malloc((size_t)n * sizeof *s->order);
    if (!work || !s->z || !s->order)
        rc = lens_err_set(te, LENS_ENOMEM, "out of memory clustering %d processes", n);
    else
        memcpy(work, s->dm->d, np * sizeof *work);
    if (rc == LENS_OK && (rc = lens_hclust_run(work, n, o->method, s->z, te)) != LENS_OK && rc != LENS_ENOMEM &&
        o->source)
        lens_err_prefix(te, o->source);
    lens_free(work);
    if (rc == LENS_OK)
        rc = lens_hclust_leaf_order(s->z, n, s->order, te);
    if (rc != LENS_OK || !(o->parts & LENS_STRUCTURE_CUT) || o->cut == LENS_STRUCTURE_CUT_NONE)
        return rc;
    if (o->cut == LENS_STRUCTURE_CUT_K) {
        /* checked here rather than by lens_hclust_cut so that the message says processes */
        if (o->k < 1 || o->k > n)
            return lens_err_set(te, LENS_EINVAL, "cannot cut %d processes into %d clusters", n, o->k);
        s->k = o->k;
    } else if (o->cut == LENS_STRUCTURE_CUT_AUTO) {
        rc = lens_hclust_cut_auto(s->z, n, &s->autocut, te);
        s->k = s->autocut.k;
    } else {
        rc = lens_structure_cut_height(s->z, n, o->height, &s->k, te);
    }
    if (rc == LENS_OK) {
        s->label = lens_malloc((size_t)n * sizeof *s->label);
        rc = s->label ? lens_hclust_cut(s->z, n, s->k, s->label, te)
                      : lens_err_set(te, LENS_ENOMEM, "out of memory for %d processes", n);
    }
    /* on failure s keeps what was built; the caller's drop_tree or release frees it */
    return rc == LENS_OK ? group_stats(s, te) : rc;
}

/* The median over lengths of statistic stat per element (NAN when none is finite).
 * The heatmap's values: the same median over lengths as the distances (distmat.c), but
 * unsymmetrised, since the heatmap shows both directions. O(P^2 L^2) worst case with the
 * insertion sort, cheap for the tens of lengths a cube has. */
static int median_matrix(struct lens_structure *s, const struct lens_cube *c, int stat, struct lens_err *e)
{
    int P = c->procs, L = c->nlen;
    if (stat < 0 || stat >= LENS_STAT_COUNT || !c->data[stat])
        return lens_err_set(e, LENS_EINVAL, "the cube has no %s statistic", lens_cube_stat_name(stat));
    double *m = lens_malloc((size_t)P * P * sizeof *m), *v = lens_malloc((size_t)L * sizeof *v);
    if (!m || !v) {
        lens_free(m);
        lens_free(v);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for a %dx%d matrix", P, P);
    }
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            int n = 0;
            for (int k = 0; k < L; k++) {
                double x = LENS_CUBE_AT(c, stat, k, i, j);
                if (isfinite(x)) {
                    int p = n++;
                    while (p > 0 && v[p - 1] > x) { /* insertion: L is small */
                        v[p] = v[p - 1];
                        p--;
                    }
                    v[p] = x;
                }
            }
            /* an even count takes the mean of the two middle values, as everywhere in mpilens */
            m[(size_t)i * P + j] = n == 0 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        }
    lens_free(v);
    s->matrix = m;
    return LENS_OK;
}

/* The parts on the distances (tree, cut, NJ); s->dm is set or NULL with the reason in te.
 * A tree that failed (kept in words) drops the distances and so NJ too, with the tree's
 * reason in nj_err: every part asked for is either there or explained. NJ runs on s->dm->d
 * directly because it only reads them. */
static int distance_parts(struct lens_structure *s, const struct lens_structure_opts *o, struct lens_err *e)
{
    int rc = LENS_OK;
    if (s->dm && (o->parts & (LENS_STRUCTURE_TREE | LENS_STRUCTURE_CUT))) {
        rc = settle(tree(s, o, &s->tree_err), o, &s->tree_err, e);
        if (rc != LENS_OK)
            return rc;
        if (s->tree_err.code) {
            drop_tree(s); /* kept in words: the cube parts still run */
            if (o->parts & LENS_STRUCTURE_NJ)
                s->nj_err = s->tree_err; /* NJ asked for but left out: say why */
        }
    }
    if (s->dm && (o->parts & LENS_STRUCTURE_NJ))
        rc = settle(lens_nj_run(s->dm->d, s->n, o->nj_search, &s->nj, &s->nj_err), o, &s->nj_err, e);
    return rc;
}

/* The parts on the cube itself (matrix, links, anomalies). */
static int cube_parts(struct lens_structure *s, const struct lens_cube *c, const struct lens_structure_opts *o,
                      struct lens_err *e)
{
    int rc = LENS_OK;
    /* a caller error (asking cube parts of a CSV matrix), never kept in words */
    if (!c && (o->parts & (LENS_STRUCTURE_MATRIX | LENS_STRUCTURE_LINKS | LENS_STRUCTURE_ANOMALIES)))
        return lens_err_set(e, LENS_EINVAL, "link clusters, anomalies and the matrix need a cube, not distances");
    /* the matrix only serves the tree's heatmap: none without a tree */
    if (o->parts & LENS_STRUCTURE_MATRIX && (s->z || !(o->parts & LENS_STRUCTURE_TREE))) {
        /* The matrix has no *_err of its own: kept in words it is simply NULL, and the report then
         * draws no heatmap. Its only failure besides ENOMEM is a missing statistic, which
         * lens_structure_run's distances have already reported in tree_err. */
        struct lens_err me;
        lens_err_clear(&me);
        rc = settle(median_matrix(s, c, o->stat, &me), o, &me, e);
    }
    /* links and anomalies work on the cube, not the distances: they run even without a tree */
    if (rc == LENS_OK && (o->parts & LENS_STRUCTURE_LINKS))
        rc = settle(lens_links_run(c, &o->links, &s->links, &s->links_err), o, &s->links_err, e);
    if (rc == LENS_OK && (o->parts & LENS_STRUCTURE_ANOMALIES))
        rc = settle(lens_anomaly_find(c, &o->anomaly, &s->an, &s->anomaly_err), o, &s->anomaly_err, e);
    return rc;
}

/* Owns dm from the first line: it is in out before anything can fail, so the caller's
 * lens_structure_release frees it on every path. */
int lens_structure_run_distances(struct lens_distmat *dm, const struct lens_cube *c,
                                 const struct lens_structure_opts *o,
                                 struct lens_structure *out, struct lens_err *e)
{
    memset(out, 0, sizeof *out);
    out->dm = dm;
    out->n = dm ? dm->n : c ? c->procs : 0;
    int rc = distance_parts(out, o, e);
    return rc == LENS_OK ? cube_parts(out, c, o, e) : rc;
}

/* The distances are built only when a part needs them: `mpilens links` and `anomalies` on a
 * large cube should not pay O(P^2 L log L) for a median nobody reads. */
int lens_structure_run(const struct lens_cube *c, const struct lens_structure_opts *o,
                       struct lens_structure *out, struct lens_err *e)
{
    memset(out, 0, sizeof *out);
    struct lens_distmat *dm = NULL;
    if (o->parts & (LENS_STRUCTURE_TREE | LENS_STRUCTURE_CUT | LENS_STRUCTURE_NJ)) {
        struct lens_err de;
        lens_err_clear(&de);
        int rc = lens_distmat_from_cube(c, o->stat, o->length, &dm, &de);
        if (rc != LENS_OK) {
            rc = settle(rc, o, &de, e);
            if (rc != LENS_OK)
                return rc;
            /* kept in words: the tree and NJ say why they are missing */
            out->tree_err = out->nj_err = de;
            rc = cube_parts(out, c, o, e);
            /* after cube_parts: n is the process count even though there are no distances */
            out->n = c->procs;
            return rc;
        }
    }
    return lens_structure_run_distances(dm, c, o, out, e);
}
