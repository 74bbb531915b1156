/* ICAPPA: iterative clustering of profiles (docs/methods.md §7; Zhu, Li and Li).
 * Phase 1 clusters functions (D_n) to find the dominating ones, phase 2 clusters processes
 * (D_p) on those functions to find where they cost most. Each round: PCA drops low-variance
 * attributes, 2-means splits, BIC and the 5% / 80% criteria decide whether to go on. */
#include "icappa.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_vector.h>

/* The numbers docs/methods.md §7 states (95 % of the variance, the 5 % difference, the 80 %
 * convergence). 10 restarts and 300 iterations are scikit-learn's classic KMeans defaults
 * (n_init, max_iter), the reference the building blocks are tested against; the seed is
 * arbitrary but fixed, so two runs on one profile give the same rounds. */
void lens_icappa_opts_default(struct lens_icappa_opts *o)
{
    o->seed = 20231;
    o->restarts = 10;
    o->max_iter = 300;
    o->pca_var = 0.95;
    o->attr_floor = 0.01;
    o->differ = 0.05;
    o->converge_frac = 0.80;
    o->process_attrs = LENS_ICAPPA_ATTRS_DOMINATING;
    o->converge = LENS_ICAPPA_CONVERGE_EACH;
    o->threshold = 0;
    o->max_rounds = 64;
}

/* ---------- PCA ---------- */

/* Why per-attribute variance rather than the components themselves: ICAPPA reports functions
 * and processes, so the clustering must stay in the original attributes (seconds of a named
 * process or function); the PCA only decides which attributes carry the structure. */
int lens_icappa_pca_keep(const double *x, size_t R, size_t M, double pca_var, double attr_floor,
                         int *keep, size_t *nkept, struct lens_err *e)
{
    *nkept = 0;
    if (R < 2 || M == 0)
        return lens_err_set(e, LENS_EINVAL, "pca: need at least 2 points and 1 attribute (got %zu x %zu)", R, M);
    /* Diagonalising the smaller of the two matrices bounds the cost by O(min(R,M)^3): a phase-1
     * round on a 4096-process profile with 50 functions works on a 50 x 50 Gram matrix instead
     * of a 4096 x 4096 covariance. */
    size_t n = M <= R ? M : R; /* order of the matrix we diagonalise */
    double *xc = lens_malloc(R * M * sizeof *xc);
    double *mean = lens_calloc(M, sizeof *mean);
    double *a = lens_calloc(n * n, sizeof *a);
    double *vec = lens_malloc(n * n * sizeof *vec);
    double *val = lens_malloc(n * sizeof *val);
    double *c = lens_calloc(M, sizeof *c);
    double *w = M > R ? lens_malloc(M * sizeof *w) : NULL;
    int rc = LENS_OK;
    if (!xc || !mean || !a || !vec || !val || !c || (M > R && !w)) {
        rc = lens_err_set(e, LENS_ENOMEM, "pca: out of memory for %zu x %zu", R, M);
        goto out;
    }
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < M; j++)
            mean[j] += x[i * M + j];
    for (size_t j = 0; j < M; j++)
        mean[j] /= (double)R;
    /* centring first: the covariance of raw seconds would be dominated by the means */
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < M; j++)
            xc[i * M + j] = x[i * M + j] - mean[j];
    /* Covariance Xc'Xc (M x M) or Gram XcXc' (R x R), both over R - 1: same nonzero spectrum.
     * Only the upper triangle is filled here; the loop below divides and mirrors it. */
    if (M <= R) {
        for (size_t i = 0; i < R; i++) {
            const double *r = xc + i * M;
            for (size_t j = 0; j < M; j++)
                for (size_t k = j; k < M; k++)
                    a[j * M + k] += r[j] * r[k];
        }
    } else {
        for (size_t i = 0; i < R; i++)
            for (size_t k = i; k < R; k++) {
                double s = 0;
                for (size_t j = 0; j < M; j++)
                    s += xc[i * M + j] * xc[k * M + j];
                a[i * R + k] = s;
            }
    }
    for (size_t j = 0; j < n; j++)
        for (size_t k = j; k < n; k++) {
            a[j * n + k] /= (double)(R - 1);
            a[k * n + j] = a[j * n + k];
        }
    /* GSL's default handler calls abort(); below main a failure must come back as LENS_ELIB. */
    gsl_set_error_handler_off();
    gsl_matrix_view av = gsl_matrix_view_array(a, n, n);
    gsl_matrix_view vv = gsl_matrix_view_array(vec, n, n);
    gsl_vector_view ev = gsl_vector_view_array(val, n);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
    if (!ws) {
        rc = lens_err_set(e, LENS_ENOMEM, "pca: out of memory for the eigen workspace (%zu)", n);
        goto out;
    }
    int g = gsl_eigen_symmv(&av.matrix, &ev.vector, &vv.matrix, ws);
    gsl_eigen_symmv_free(ws);
    /* descending eigenvalues: the leading components come first for the cumulative sum */
    if (g == GSL_SUCCESS)
        g = gsl_eigen_symmv_sort(&ev.vector, &vv.matrix, GSL_EIGEN_SORT_VAL_DESC);
    if (g != GSL_SUCCESS) {
        rc = lens_err_set(e, LENS_ELIB, "pca: gsl_eigen_symmv failed: %s", gsl_strerror(g));
        goto out;
    }
    /* Rounding can leave tiny negative eigenvalues; they carry no variance. */
    double total = 0;
    for (size_t l = 0; l < n; l++) {
        if (val[l] < 0)
            val[l] = 0;
        total += val[l];
    }
    /* from here on keep[] is defined on every path, also when nothing is kept */
    memset(keep, 0, M * sizeof *keep);
    /* every attribute constant: nothing is kept and the caller stops the phase */
    if (!(total > 0))
        goto out;
    size_t nc = 0;
    /* the smallest number of leading components reaching pca_var; the 1e-12 margin keeps an exact
     * 95 % from taking one more component because of rounding in the sum */
    for (double cum = 0; nc < n && cum < pca_var * total * (1 - 1e-12); nc++)
        cum += val[nc];
    /* Variance the kept components carry on each attribute. */
    for (size_t l = 0; l < nc; l++) {
        if (M <= R) {
            for (size_t j = 0; j < M; j++)
                c[j] += val[l] * vec[j * n + l] * vec[j * n + l];
        } else {
            memset(w, 0, M * sizeof *w); /* w = Xc' u_l; lambda v_j^2 = w_j^2 / (R-1) */
            for (size_t i = 0; i < R; i++) {
                double u = vec[i * n + l];
                for (size_t j = 0; j < M; j++)
                    w[j] += u * xc[i * M + j];
            }
            for (size_t j = 0; j < M; j++)
                c[j] += w[j] * w[j] / (double)(R - 1);
        }
    }
    /* keep[] is relative to the strongest attribute, so the rule is scale-free: seconds or
     * microseconds keep the same attributes */
    double cmax = 0;
    for (size_t j = 0; j < M; j++)
        cmax = fmax(cmax, c[j]);
    /* Relative to the total too: a constant attribute shows rounding noise, not variance. */
    if (cmax > 1e-13 * total)
        for (size_t j = 0; j < M; j++)
            if (c[j] >= attr_floor * cmax && c[j] > 1e-13 * total) {
                keep[j] = 1;
                (*nkept)++;
            }
out:
    lens_free(xc);
    lens_free(mean);
    lens_free(a);
    lens_free(vec);
    lens_free(val);
    lens_free(c);
    lens_free(w);
    return rc;
}

/* ---------- k-means ---------- */

/* Squared Euclidean distance in seconds^2: k-means works on unscaled attributes on purpose,
 * since a function's cost in seconds is what makes it dominate (docs/methods.md §7). */
static double dist2(const double *a, const double *b, size_t M)
{
    double s = 0;
    for (size_t j = 0; j < M; j++) {
        double d = a[j] - b[j];
        s += d * d;
    }
    return s;
}

/* Assigns each point to its nearest centre by ||c||^2 - 2 x.c (the expansion scikit-learn
 * uses too); returns how many labels changed. */
static size_t assign(const double *x, size_t R, size_t M, size_t K, const double *centres,
                     int *labels, double *cnorm)
{
    /* ||x||^2 is the same for every centre, so only ||c||^2 - 2 x.c is compared */
    for (size_t k = 0; k < K; k++) {
        double s = 0;
        for (size_t j = 0; j < M; j++)
            s += centres[k * M + j] * centres[k * M + j];
        cnorm[k] = s;
    }
    size_t changed = 0;
    for (size_t i = 0; i < R; i++) {
        const double *xi = x + i * M;
        int best = 0;
        double bs = DBL_MAX;
        for (size_t k = 0; k < K; k++) {
            const double *ck = centres + k * M;
            double dot = 0;
            for (size_t j = 0; j < M; j++)
                dot += xi[j] * ck[j];
            double s = cnorm[k] - 2 * dot;
            /* strict <: on a tie the lower centre wins, as in scikit-learn */
            if (s < bs) {
                bs = s;
                best = (int)k;
            }
        }
        if (labels[i] != best) {
            labels[i] = best;
            changed++;
        }
    }
    return changed;
}

/* Centres as the means of their points; an empty cluster takes the point farthest from its
 * own centre (scikit-learn's relocation rule). sums is K x M scratch, count K scratch. */
static void update(const double *x, size_t R, size_t M, size_t K, double *centres,
                   const int *labels, double *sums, size_t *count)
{
    memset(sums, 0, K * M * sizeof *sums);
    memset(count, 0, K * sizeof *count);
    for (size_t i = 0; i < R; i++) {
        double *s = sums + (size_t)labels[i] * M;
        const double *xi = x + i * M;
        for (size_t j = 0; j < M; j++)
            s[j] += xi[j];
        count[labels[i]]++;
    }
    /* The relocation keeps Lloyd's invariant that no cluster is empty, which round_run relies on
     * when it divides by the cluster sizes. The donor must keep a point (count > 1). */
    for (size_t k = 0; k < K; k++) {
        if (count[k])
            continue;
        size_t far = 0;
        double fd = -1;
        for (size_t i = 0; i < R; i++) {
            double d = dist2(x + i * M, centres + (size_t)labels[i] * M, M);
            if (d > fd && count[labels[i]] > 1) {
                fd = d;
                far = i;
            }
        }
        size_t from = (size_t)labels[far];
        for (size_t j = 0; j < M; j++) {
            sums[from * M + j] -= x[far * M + j];
            sums[k * M + j] = x[far * M + j];
        }
        count[from]--;
        count[k] = 1;
    }
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < M; j++)
            centres[k * M + j] = sums[k * M + j] / (double)count[k];
}

/* O(R K M) per iteration. Stopping when no label changes (tol = 0) rather than on a centre
 * shift gives a result independent of the scale of the data. */
int lens_icappa_lloyd(const double *x, size_t R, size_t M, size_t K, double *centres,
                      int *labels, int max_iter, double *inertia, struct lens_err *e)
{
    if (K < 1 || R < K || M < 1 || max_iter < 1)
        return lens_err_set(e, LENS_EINVAL, "k-means: need 1 <= K <= R and M >= 1 (K=%zu R=%zu M=%zu)", K, R, M);
    double *sums = lens_malloc(K * M * sizeof *sums);
    size_t *count = lens_malloc(K * sizeof *count);
    double *cnorm = lens_malloc(K * sizeof *cnorm);
    if (!sums || !count || !cnorm) {
        lens_free(sums);
        lens_free(count);
        lens_free(cnorm);
        return lens_err_set(e, LENS_ENOMEM, "k-means: out of memory");
    }
    /* -1 is no centre, so the first assignment counts every point as changed */
    for (size_t i = 0; i < R; i++)
        labels[i] = -1;
    int it = 0;
    while (it < max_iter) {
        it++;
        if (!assign(x, R, M, K, centres, labels, cnorm))
            break; /* centres are already the means of these labels */
        update(x, R, M, K, centres, labels, sums, count);
        if (it == max_iter)
            assign(x, R, M, K, centres, labels, cnorm); /* labels match the final centres */
    }
    /* inertia over the final labels: the quantity the restarts are compared by */
    double s = 0;
    for (size_t i = 0; i < R; i++)
        s += dist2(x + i * M, centres + (size_t)labels[i] * M, M);
    *inertia = s;
    lens_free(sums);
    lens_free(count);
    lens_free(cnorm);
    return it;
}

/* One generator for all restarts, seeded once: the seedings depend on the seed and the points
 * only, so the chosen split is reproducible and independent of anything else the run does.
 * The first minimum inertia wins, which fixes ties. */
int lens_icappa_kmeans2(const double *x, size_t R, size_t M, unsigned long seed, int restarts,
                        int max_iter, double *centres, int *labels, double *inertia,
                        struct lens_err *e)
{
    if (R < 2 || M < 1 || restarts < 1 || max_iter < 1)
        return lens_err_set(e, LENS_EINVAL, "k-means: need 2 points, 1 attribute, 1 restart (got %zu, %zu, %d)", R, M, restarts);
    double *d2 = lens_malloc(R * sizeof *d2);
    double *c = lens_malloc(2 * M * sizeof *c);
    int *lab = lens_malloc(R * sizeof *lab);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    int rc = LENS_OK;
    if (!d2 || !c || !lab || !rng) {
        rc = lens_err_set(e, LENS_ENOMEM, "k-means: out of memory for %zu points", R);
        goto out;
    }
    gsl_rng_set(rng, seed);
    *inertia = INFINITY;
    for (int r = 0; r < restarts; r++) {
        /* k-means++: the first centre uniformly, the second with probability ~ D^2.
         * uniform_int draws without modulo bias, so every point is equally likely. */
        size_t i0 = (size_t)gsl_rng_uniform_int(rng, R);
        double total = 0;
        for (size_t i = 0; i < R; i++) {
            d2[i] = dist2(x + i * M, x + i0 * M, M);
            total += d2[i];
        }
        /* every point equals the first centre: there is no second centre to draw and no split */
        if (!(total > 0)) {
            rc = lens_err_set(e, LENS_EDATA, "k-means: all %zu points coincide", R);
            goto out;
        }
        double u = gsl_rng_uniform(rng) * total, cum = 0;
        size_t i1 = R;
        /* The second centre by D^2 weighting (Arthur and Vassilvitskii): walk the cumulative
         * weights to the draw u. Points at distance 0 are skipped, so the two centres always
         * differ. */
        for (size_t i = 0; i < R; i++) {
            cum += d2[i];
            if (d2[i] > 0 && cum > u) {
                i1 = i;
                break;
            }
        }
        if (i1 == R) /* u fell in the rounding gap at the end: the last point with weight */
            for (size_t i = R; i-- > 0;)
                if (d2[i] > 0) {
                    i1 = i;
                    break;
                }
        memcpy(c, x + i0 * M, M * sizeof *c);
        memcpy(c + M, x + i1 * M, M * sizeof *c);
        double in;
        int it = lens_icappa_lloyd(x, R, M, 2, c, lab, max_iter, &in, e);
        /* out of memory in Lloyd (its arguments were checked above) ends the whole run */
        if (it < 0) {
            rc = it;
            goto out;
        }
        /* strict: the first restart reaching the lowest inertia wins */
        if (in < *inertia) {
            *inertia = in;
            memcpy(centres, c, 2 * M * sizeof *c);
            memcpy(labels, lab, R * sizeof *lab);
        }
    }
out:
    if (rng)
        gsl_rng_free(rng);
    lens_free(d2);
    lens_free(c);
    lens_free(lab);
    return rc;
}

/* The log-likelihood of Pelleg and Moore's X-means under identical spherical Gaussians, with
 * the X-means parameter count (docs/methods.md §7 says why not the paper's). The variance
 * floor is relative to the data's scale so that it means the same in seconds or microseconds,
 * with an absolute 1e-300 only against an all-zero input. */
double lens_icappa_bic(const double *x, size_t R, size_t M, size_t K, const int *labels,
                       const double *centres)
{
    if (R <= K || K < 1 || M < 1)
        return NAN;
    double ss = 0, sq = 0;
    /* a fixed array: ICAPPA only ever asks K = 1 or 2 */
    size_t count[64] = {0};
    if (K > 64)
        return NAN;
    for (size_t i = 0; i < R; i++) {
        ss += dist2(x + i * M, centres + (size_t)labels[i] * M, M);
        for (size_t j = 0; j < M; j++)
            sq += x[i * M + j] * x[i * M + j];
        count[labels[i]]++;
    }
    /* sq / (R M) is the mean squared coordinate: the floor scales with the data */
    double floor = fmax(1e-12 * sq / (double)(R * M), 1e-300);
    double sigma2 = fmax(ss / (double)(R - K), floor);
    double l = 0;
    /* sum_i log(R_(i) / R), grouped by cluster: the mixing weights' share of the likelihood */
    for (size_t k = 0; k < K; k++)
        if (count[k])
            l += (double)count[k] * log((double)count[k] / (double)R);
    /* the Gaussian normalisation of R points in M dimensions, then the exponent */
    l -= (double)R * ((double)M / 2) * log(2 * M_PI * sigma2);
    l -= ss / (2 * sigma2);
    /* X-means' free parameters: K - 1 weights, M K centre coordinates, one variance */
    double p = (double)(K - 1) + (double)(M * K) + 1;
    return l - p / 2 * log((double)R);
}

void lens_icappa_threshold_keep(const double *x, size_t R, size_t M, double threshold, int *keep,
                                size_t *nkept)
{
    *nkept = 0;
    for (size_t j = 0; j < M; j++) {
        double lo = x[j], hi = x[j], big = fabs(x[j]);
        for (size_t i = 1; i < R; i++) {
            double v = x[i * M + j];
            lo = fmin(lo, v);
            hi = fmax(hi, v);
            big = fmax(big, fabs(v));
        }
        /* big > 0 so that an all-zero attribute (a function a set of processes never called) is
         * dropped rather than kept by 0 >= 0 */
        keep[j] = big > 0 && hi - lo >= threshold * big;
        *nkept += (size_t)keep[j];
    }
}

/* ---------- the iteration ---------- */

/* Value of attribute a of point i in the data set of a phase: D_n points are functions
 * (columns) with processes (rows) as attributes, D_p the other way round.
 * Reading through the profile instead of building D_n and D_p as matrices: each round copies
 * only its current points and attributes into the scratch. */
static double value(const struct lens_profile *p, int set, size_t point, size_t attr)
{
    return set == LENS_ICAPPA_FUNCTIONS ? p->sec[attr * p->nfunc + point]
                                        : p->sec[point * p->nfunc + attr];
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "Converged": on every kept attribute, converge_frac of the cluster's points have values
 * within `differ` of each other (a window [v, v / (1 - differ)] holds them; seconds >= 0).
 * O(M n log n): per attribute the values are sorted and the longest run that fits a window is
 * found with two pointers (hi never moves back, so the scan is linear). */
static int converged_on(const double *xk, size_t M, const int *labels, size_t R, int which, size_t n,
                        size_t j, const struct lens_icappa_opts *o, double *buf)
{
    /* the 1e-9 absorbs rounding in the product: 80 % of 10 points needs 8, never 9 */
    size_t need = (size_t)ceil(o->converge_frac * (double)n - 1e-9);
    {
        size_t m = 0;
        for (size_t i = 0; i < R; i++)
            if (labels[i] == which)
                buf[m++] = xk[i * M + j];
        qsort(buf, m, sizeof *buf, cmp_double);
        size_t best = 0;
        /* the widest window starting at lo: since buf is sorted, hi only moves forward */
        for (size_t lo = 0, hi = 0; lo < m; lo++) {
            if (hi < lo)
                hi = lo;
            /* buf[lo] >= (1 - differ) buf[hi+1]: within 5 % of the largest value of the window */
            while (hi + 1 < m && buf[hi + 1] - buf[lo] <= o->differ * fabs(buf[hi + 1]))
                hi++;
            if (hi - lo + 1 > best)
                best = hi - lo + 1;
        }
        if (best < need)
            return 0;
    }
    return 1;
}

/* Converged on every attribute: the costlier-only variant's stop rule. */
static int converged(const double *xk, size_t M, const int *labels, size_t R, int which, size_t n,
                     const struct lens_icappa_opts *o, double *buf)
{
    for (size_t j = 0; j < M; j++)
        if (!converged_on(xk, M, labels, R, which, n, j, o, buf))
            return 0;
    return 1;
}

/* One realloc per round: a phase has at most max_rounds rounds, so growth by one is cheap. */
static int push_round(struct lens_icappa *res, struct lens_err *e)
{
    struct lens_icappa_round *r = lens_realloc(res->rounds, (res->nrounds + 1) * sizeof *r);
    if (!r)
        return lens_err_set(e, LENS_ENOMEM, "icappa: out of memory for round %zu", res->nrounds + 1);
    res->rounds = r;
    memset(&r[res->nrounds++], 0, sizeof *r);
    return LENS_OK;
}

/* Scratch buffers of one phase, sized for its first (largest) round.
 * Allocated once per phase for the first round, which has the most points and attributes
 * (later rounds work on a subset), so no round allocates. centres has room for 3 centres: the
 * two of the split and the mean for BIC(1). */
struct scratch {
    double *x, *xk, *cost, *centres, *buf;
    int *keep, *labels, *ones;
};

static void scratch_free(struct scratch *s)
{
    lens_free(s->x);
    lens_free(s->xk);
    lens_free(s->cost);
    lens_free(s->centres);
    lens_free(s->buf);
    lens_free(s->keep);
    lens_free(s->labels);
    lens_free(s->ones);
}

/* One round on pts[0..n) with the given attributes. Sets *next (ownership of cluster 0's members
 * stays with the round) and returns 1 to go on, 0 to stop, < 0 on error. The order of the tests
 * is that of docs/methods.md §7: PCA, 2-means, BIC, the clear-difference test, then convergence
 * of the costlier cluster. A round that stops still records its split (and why it stopped), so
 * the output shows the evidence of the last decision. */
static int round_run(const struct lens_profile *p, int set, const size_t *pts, size_t n,
                     const size_t *attrs, size_t na, const struct lens_icappa_opts *o,
                     struct scratch *s, struct lens_icappa *res, const char **stop,
                     struct lens_err *e)
{
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < na; a++)
            s->x[i * na + a] = value(p, set, pts[i], attrs[a]);
    size_t mk;
    int rc = LENS_OK;
    if (o->threshold > 0)
        lens_icappa_threshold_keep(s->x, n, na, o->threshold, s->keep, &mk);
    else
        rc = lens_icappa_pca_keep(s->x, n, na, o->pca_var, o->attr_floor, s->keep, &mk, e);
    if (rc != LENS_OK)
        return rc;
    /* nothing varies over these points: no split could be told from noise */
    if (mk == 0) {
        *stop = "every attribute is constant";
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        s->cost[i] = 0;
        /* xk: the kept attributes only, packed, the M of k-means and BIC */
        for (size_t a = 0, k = 0; a < na; a++) {
            /* cost over all attributes, kept or not: costlier means more seconds, not more
             * variance */
            s->cost[i] += s->x[i * na + a];
            if (s->keep[a])
                s->xk[i * mk + k++] = s->x[i * na + a];
        }
    }
    double inertia;
    rc = lens_icappa_kmeans2(s->xk, n, mk, o->seed, o->restarts, o->max_iter, s->centres,
                             s->labels, &inertia, e);
    /* coinciding points are a stop, not an error: nothing stands out */
    if (rc == LENS_EDATA) {
        *stop = "all points coincide";
        return 0;
    }
    if (rc != LENS_OK)
        return rc;
    /* Cluster 0 is the costlier one: the larger mean cost over all attributes. */
    double csum[2] = {0, 0};
    size_t cn[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        csum[s->labels[i]] += s->cost[i];
        cn[s->labels[i]]++;
    }
    /* both clusters are non-empty after Lloyd's relocation, so no division by 0 */
    double mean[2] = {csum[0] / (double)cn[0], csum[1] / (double)cn[1]};
    if (mean[1] > mean[0]) { /* swap the clusters: labels, centres, means, sizes */
        for (size_t i = 0; i < n; i++)
            s->labels[i] = 1 - s->labels[i];
        /* centre 0 goes to the spare third slot, then both shift down one: [c1, c0] */
        memcpy(s->centres + 2 * mk, s->centres, mk * sizeof(double));
        memmove(s->centres, s->centres + mk, 2 * mk * sizeof(double));
        double t = mean[0];
        mean[0] = mean[1], mean[1] = t;
        size_t u = cn[0];
        cn[0] = cn[1], cn[1] = u;
    }
    if ((rc = push_round(res, e)) != LENS_OK)
        return rc;
    struct lens_icappa_round *r = &res->rounds[res->nrounds - 1];
    r->set = set;
    r->npoints = n;
    r->nattr = na;
    r->nkept = mk;
    r->inertia = inertia;
    for (int c = 0; c < 2; c++) {
        r->cost[c] = mean[c];
        /* members listed in pts order, which is ascending: phase() keeps pts sorted */
        r->members[c] = lens_malloc(cn[c] * sizeof(size_t));
        if (!r->members[c])
            return lens_err_set(e, LENS_ENOMEM, "icappa: out of memory for a cluster of %zu", cn[c]);
        for (size_t i = 0; i < n; i++)
            if (s->labels[i] == c)
                r->members[c][r->size[c]++] = pts[i];
    }
    /* BIC of one cluster: its centre is the mean, which fits in the centres scratch
     * (the third slot, free again after the swap above). */
    double *one = s->centres + 2 * mk;
    memset(one, 0, mk * sizeof *one);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < mk; j++)
            one[j] += s->xk[i * mk + j] / (double)n;
    /* s->ones is all zeros: every point in the one cluster */
    r->bic1 = lens_icappa_bic(s->xk, n, mk, 1, s->ones, one);
    r->bic2 = lens_icappa_bic(s->xk, n, mk, 2, s->labels, s->centres);
    /* "differ clearly": some kept attribute whose centres differ by differ (5 %) of the larger;
     * d > 0 so that two zero centres do not count */
    int differ = 0;
    for (size_t j = 0; j < mk && !differ; j++) {
        double a = s->centres[j], b = s->centres[mk + j], d = fabs(a - b);
        differ = d > 0 && d >= o->differ * fmax(fabs(a), fabs(b));
    }
    /* The paper iterates while some attribute differs clearly and the clusters have not
     * converged on it, convergence meaning 80 % of the points of EACH cluster within 5 %: an
     * attribute on which both groups are tight gives nothing more to split. */
    int open = 0;
    for (size_t j = 0; j < mk && !open; j++) {
        double a = s->centres[j], b = s->centres[mk + j], d = fabs(a - b);
        open = d > 0 && d >= o->differ * fmax(fabs(a), fabs(b)) &&
               !(converged_on(s->xk, mk, s->labels, n, 0, cn[0], j, o, s->buf) &&
                 converged_on(s->xk, mk, s->labels, n, 1, cn[1], j, o, s->buf));
    }
    /* !(>) so that a NaN BIC (too few points) stops the phase rather than accepting */
    if (!(r->bic2 > r->bic1)) {
        *stop = r->stop = "bic prefers one cluster";
        return 0;
    }
    if (!differ) {
        *stop = r->stop = "centres within 5% on every attribute";
        return 0;
    }
    /* accepted: the next round narrows to cluster 0, even when convergence stops it below */
    r->accepted = 1;
    if (o->converge == LENS_ICAPPA_CONVERGE_EACH && !open) {
        *stop = r->stop = "both clusters converged";
        return 0;
    }
    if (o->converge == LENS_ICAPPA_CONVERGE_COSTLIER && converged(s->xk, mk, s->labels, n, 0, cn[0], o, s->buf)) {
        *stop = r->stop = "costlier cluster converged";
        return 0;
    }
    return 1;
}

/* Runs one phase from the points pts0 and leaves the final set in *out (owned, ascending).
 * Invariant: pts[0..n) are the current points in ascending order, each round's cluster 0
 * being a subset of the previous one, so the rounds narrow monotonically and max_rounds
 * only guards against a rule that would never stop. */
static int phase(const struct lens_profile *p, int set, size_t n0, const size_t *attrs,
                 size_t na, const struct lens_icappa_opts *o, struct lens_icappa *res,
                 size_t **out, size_t *nout, struct lens_err *e)
{
    struct scratch s = {0};
    size_t *pts = lens_malloc(n0 * sizeof *pts);
    s.x = lens_malloc(n0 * na * sizeof(double));
    s.xk = lens_malloc(n0 * na * sizeof(double));
    s.cost = lens_malloc(n0 * sizeof(double));
    s.centres = lens_malloc(3 * na * sizeof(double));
    s.buf = lens_malloc(n0 * sizeof(double));
    s.keep = lens_malloc(na * sizeof(int));
    s.labels = lens_malloc(n0 * sizeof(int));
    s.ones = lens_calloc(n0, sizeof(int));
    int rc = LENS_OK;
    if (!pts || !s.x || !s.xk || !s.cost || !s.centres || !s.buf || !s.keep || !s.labels || !s.ones) {
        rc = lens_err_set(e, LENS_ENOMEM, "icappa: out of memory for %zu x %zu", n0, na);
        goto out;
    }
    /* the first round's points: all of them, in index order */
    for (size_t i = 0; i < n0; i++)
        pts[i] = i;
    size_t n = n0;
    const char *stop = "round limit reached";
    for (int round = 0; round < o->max_rounds; round++) {
        /* two points can only split into singletons, where BIC(2) is undefined (it needs R > K) */
        if (n < 3) {
            stop = "fewer than 3 points";
            break;
        }
        size_t before = res->nrounds;
        if ((rc = round_run(p, set, pts, n, attrs, na, o, &s, res, &stop, e)) < 0)
            goto out;
        /* a round that stopped before pushing (constant attributes, coinciding points) adds
         * nothing */
        if (res->nrounds > before && res->rounds[before].accepted) { /* into the costlier */
            n = res->rounds[before].size[0];
            /* members[0] is ascending (round_run lists them in pts order), so pts stays sorted */
            memcpy(pts, res->rounds[before].members[0], n * sizeof *pts);
        }
        if (rc == 0)
            break;
    }
    /* rc may be 0 or 1 from the last round: both mean success here */
    rc = LENS_OK;
    /* the phase's reason is the last round's (or "fewer than 3 points", "round limit reached") */
    res->stop[set] = stop;
    *out = pts;
    *nout = n;
    pts = NULL;
out:
    lens_free(pts);
    scratch_free(&s);
    return rc;
}

void lens_icappa_free(struct lens_icappa *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nrounds; i++) {
        lens_free(r->rounds[i].members[0]);
        lens_free(r->rounds[i].members[1]);
    }
    lens_free(r->rounds);
    lens_free(r->dom);
    lens_free(r->costly);
    lens_free(r);
}

/* Dominating functions are listed by total cost, costliest first, then by column. */
struct ranked {
    double total;
    size_t f;
};

/* descending total; equal totals by column, so the order is deterministic */
static int cmp_ranked(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return (x->f > y->f) - (x->f < y->f);
}

/* Phase 1 leaves its set in column order; the answer lists the functions costliest first by
 * their total over all processes, the order the tables and the report show. */
static int rank_functions(const struct lens_profile *p, size_t *f, size_t n, struct lens_err *e)
{
    struct ranked *r = lens_malloc(n * sizeof *r);
    if (!r)
        return lens_err_set(e, LENS_ENOMEM, "icappa: out of memory");
    for (size_t i = 0; i < n; i++) {
        r[i].total = lens_profile_func_total(p, f[i]);
        r[i].f = f[i];
    }
    qsort(r, n, sizeof *r, cmp_ranked);
    for (size_t i = 0; i < n; i++)
        f[i] = r[i].f;
    lens_free(r);
    return LENS_OK;
}

/* Phase 2's attributes are phase 1's answer, ranked, so a failed phase 1 leaves nothing to
 * run phase 2 on. res owns every round as it is pushed, so one lens_icappa_free cleans up
 * after a failure anywhere. */
int lens_icappa_run(const struct lens_profile *p, const struct lens_icappa_opts *o,
                    struct lens_icappa **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_icappa_opts def;
    if (!o) {
        lens_icappa_opts_default(&def);
        o = &def;
    }
    /* written as !(in range) so that NaN options are refused too */
    if (o->restarts < 1 || o->max_iter < 1 || o->max_rounds < 1 || !(o->pca_var > 0 && o->pca_var <= 1) ||
        !(o->attr_floor >= 0 && o->attr_floor <= 1) || !(o->differ > 0 && o->differ < 1) ||
        !(o->converge_frac > 0 && o->converge_frac <= 1) || !(o->threshold >= 0 && o->threshold < 1) ||
        (o->process_attrs != LENS_ICAPPA_ATTRS_ALL && o->process_attrs != LENS_ICAPPA_ATTRS_DOMINATING) ||
        (o->converge != LENS_ICAPPA_CONVERGE_EACH && o->converge != LENS_ICAPPA_CONVERGE_COSTLIER))
        return lens_err_set(e, LENS_EINVAL, "icappa: option out of range");
    if (!p || p->nproc == 0 || p->nfunc == 0)
        return lens_err_set(e, LENS_EDATA, "icappa: the profile is empty");
    struct lens_icappa *res = lens_calloc(1, sizeof *res);
    size_t *procs = lens_malloc(p->nproc * sizeof *procs);
    size_t *funcs = lens_malloc(p->nfunc * sizeof *funcs);
    if (!res || !procs || !funcs) {
        lens_free(res);
        lens_free(procs);
        lens_free(funcs);
        return lens_err_set(e, LENS_ENOMEM, "icappa: out of memory");
    }
    for (size_t i = 0; i < p->nproc; i++)
        procs[i] = i;
    for (size_t f = 0; f < p->nfunc; f++)
        funcs[f] = f;
    int rc = phase(p, LENS_ICAPPA_FUNCTIONS, p->nfunc, procs, p->nproc, o, res, &res->dom, &res->ndom, e);
    if (rc == LENS_OK)
        rc = rank_functions(p, res->dom, res->ndom, e);
    /* D_p over every function (the paper) or over the dominating ones only */
    int all = o->process_attrs == LENS_ICAPPA_ATTRS_ALL;
    if (rc == LENS_OK)
        rc = phase(p, LENS_ICAPPA_PROCESSES, p->nproc, all ? funcs : res->dom, all ? p->nfunc : res->ndom, o, res,
                   &res->costly, &res->ncostly, e);
    lens_free(procs);
    lens_free(funcs);
    if (rc != LENS_OK) {
        lens_icappa_free(res);
        return rc;
    }
    *out = res;
    return LENS_OK;
}
