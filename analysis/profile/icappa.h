/* ICAPPA (docs/methods.md §7): iterative clustering of a profile to find the functions
 * that dominate the cost and the processes where they cost most. Each round drops
 * low-variance attributes by PCA, splits the points with 2-means (k-means++ seeding, fixed
 * seed, restarts), validates the split with the X-means BIC and the 5% / 80% criteria, and
 * recurses into the costlier cluster. The building blocks are public for the tests. */
#ifndef LENS_ICAPPA_H
#define LENS_ICAPPA_H

#include <stdio.h>

#include "common/err.h"
#include "profile.h"

struct lens_icappa_opts {
    unsigned long seed;   /* seed of the gsl_rng (mt19937) for k-means++; default 20231 */
    int restarts;         /* k-means++ restarts per round, best inertia wins; default 10 */
    int max_iter;         /* Lloyd iterations per restart; default 300 */
    double pca_var;       /* leading principal components kept: they explain this fraction
                             of the variance; default 0.95 */
    double attr_floor;    /* an attribute is kept when the variance the kept components give
                             it is >= attr_floor * the largest such variance; default 0.01 */
    double differ;        /* centres "differ clearly" by this relative amount; default 0.05 */
    double converge_frac; /* a cluster has "converged" on an attribute when this fraction of
                             its points lie within `differ` of each other; default 0.80 */
    int max_rounds;       /* safety bound on rounds per phase; default 64 */
    int process_attrs;    /* enum lens_icappa_attrs: phase 2's attributes; default ALL */
    int converge;         /* enum lens_icappa_converge: whose convergence counts; default EACH */
    double threshold;     /* 0: PCA drops attributes (pca_var, attr_floor); > 0: an attribute
                             is kept when its range over the current points is >= threshold
                             x its largest |value| (the paper's alternative to PCA when there
                             are few attributes); default 0 */
};

/* Phase 2 (D_p) clusters processes on every function, as Zhu, Li and Li define D_p, or only on
 * phase 1's dominating functions (mpilens's earlier variant: faster on wide profiles, blind to
 * a process that is slow in a function that dominates nowhere else). */
enum lens_icappa_attrs { LENS_ICAPPA_ATTRS_ALL = 0, LENS_ICAPPA_ATTRS_DOMINATING = 1 };
/* An attribute separates two clusters "clearly" when their centres differ by `differ` and the
 * clusters have not converged on it. EACH: converged means 80 % of the points of each cluster
 * lie within `differ` of each other (the paper); COSTLIER: only the costlier cluster is checked,
 * after the split is accepted (mpilens's earlier variant). */
enum lens_icappa_converge { LENS_ICAPPA_CONVERGE_EACH = 0, LENS_ICAPPA_CONVERGE_COSTLIER = 1 };
void lens_icappa_opts_default(struct lens_icappa_opts *o);

enum lens_icappa_set { LENS_ICAPPA_FUNCTIONS = 0, LENS_ICAPPA_PROCESSES = 1 };

/* One round: a 2-means split of the current points, accepted or not. */
struct lens_icappa_round {
    int set;              /* enum lens_icappa_set: which points were clustered */
    size_t npoints;       /* points clustered in this round */
    size_t nattr;         /* attributes before PCA */
    size_t nkept;         /* attributes kept by PCA (the dimension M of k-means and BIC) */
    size_t size[2];       /* cluster sizes; cluster 0 is the costlier one */
    size_t *members[2];   /* owned; ascending profile columns (functions) or rows (processes) */
    double cost[2];       /* mean cost of a point of each cluster over all attributes, seconds */
    double inertia;       /* sum of squared distances to the centres, over kept attributes
                             (seconds^2) */
    double bic1, bic2;    /* BIC of the points as one cluster and as the two clusters */
    int accepted;         /* 1: the split held and the next round works inside cluster 0 */
    const char *stop;     /* static text: why the phase ended after this round, or NULL */
};

struct lens_icappa {
    size_t nrounds;                  /* both phases: functions first, then processes */
    struct lens_icappa_round *rounds; /* owned */
    size_t ndom;                     /* dominating functions */
    size_t *dom;                     /* owned; profile columns, costliest first */
    size_t ncostly;                  /* processes where the dominating functions cost most */
    size_t *costly;                  /* owned; profile rows, ascending */
    const char *stop[2];             /* static text: why each phase ended */
};

/* Runs both phases on a finished profile. Phase 1 clusters D_n (one point per function, one
 * attribute per process) and keeps the costlier cluster until the stop rule holds: those are
 * the dominating functions. Phase 2 clusters D_p (one point per process, every function as an
 * attribute, or only the dominating ones: o->process_attrs) the same way: the costly processes. When a phase accepts no split,
 * its whole set is the answer (nothing stands out). o may be NULL for the defaults. p is only
 * read; *out holds its row and column indices, not pointers, so the writers below take p
 * again. The caller owns *out (lens_icappa_free). Errors: LENS_EINVAL (bad options), LENS_EDATA (empty profile),
 * LENS_ENOMEM, LENS_ELIB (the eigensolver failed). */
int lens_icappa_run(const struct lens_profile *p, const struct lens_icappa_opts *o,
                    struct lens_icappa **out, struct lens_err *e);
void lens_icappa_free(struct lens_icappa *r);

/* The JSON form documented in docs/icappa.md (keys stable), one object and a newline:
 * {"dominating_functions":[...],"costly_processes":[...],"iterations":[...]}.
 * Returns LENS_EIO when the stream reports an error. */
int lens_icappa_write_json(const struct lens_icappa *r, const struct lens_profile *p, FILE *fp,
                           struct lens_err *e);
/* The same in words for people. LENS_EIO. */
int lens_icappa_write_text(const struct lens_icappa *r, const struct lens_profile *p, FILE *fp,
                           struct lens_err *e);

/* The report section "Where the time goes" in words: the ranked dominating functions with
 * their share of all time, and the process group where they cost most against the others.
 * LENS_ENOMEM, LENS_EIO. */
int lens_icappa_write_prose(const struct lens_icappa *r, const struct lens_profile *p, FILE *fp,
                            struct lens_err *e);

/* --- building blocks; x is row-major R x M, centres K x M; every array is the caller's --- */

/* Lloyd's k-means from the given initial centres until no label changes (or max_iter),
 * as scikit-learn's KMeans(init=centres, n_init=1, algorithm="lloyd", tol=0) does: an empty
 * cluster takes the point farthest from its centre. Fills labels[R], centres (in place) and
 * *inertia. Returns the number of iterations (>= 1) or a negative error (LENS_EINVAL). */
int lens_icappa_lloyd(const double *x, size_t R, size_t M, size_t K, double *centres,
                      int *labels, int max_iter, double *inertia, struct lens_err *e);
/* 2-means with k-means++ seeding: `restarts` seedings drawn from one gsl_rng seeded with
 * seed, each refined by Lloyd; the lowest inertia wins (the first on ties). Fills centres
 * (2 x M), labels[R] and *inertia. Returns LENS_OK, or LENS_EDATA when all points coincide
 * (nothing to split), LENS_EINVAL, LENS_ENOMEM. */
int lens_icappa_kmeans2(const double *x, size_t R, size_t M, unsigned long seed, int restarts,
                        int max_iter, double *centres, int *labels, double *inertia,
                        struct lens_err *e);
/* BIC in the X-means form for R points in M dimensions split into K clusters by labels with
 * the given centres (docs/methods.md §7):
 *   sigma^2 = SS / (R - K),  SS = sum_i ||x_i - mu_(i)||^2
 *   l = sum_i log(R_(i) / R) - R (M/2) log(2 pi sigma^2) - SS / (2 sigma^2)
 *   BIC = l - (p/2) log R,   p = (K - 1) + M K + 1
 * (p counts K-1 mixing weights, M K centre coordinates and one shared variance). sigma^2 is
 * floored at 1e-12 times the mean squared coordinate so that a perfect split stays finite.
 * Requires R > K; returns NAN otherwise. */
double lens_icappa_bic(const double *x, size_t R, size_t M, size_t K, const int *labels,
                       const double *centres);
/* The PCA rule that drops low-variance attributes: the leading principal components that
 * explain pca_var of the variance are kept; attribute j gets the variance they carry on it,
 * c_j = sum_l lambda_l v_jl^2, and is kept when c_j >= attr_floor * max_j c_j > 0. Uses the
 * M x M covariance when M <= R, else the R x R Gram matrix (same nonzero spectrum), both
 * through gsl_eigen_symmv. Fills keep[M] (0/1) and *nkept (0 when every attribute is
 * constant). Errors: LENS_EINVAL (R < 2), LENS_ENOMEM, LENS_ELIB. */
int lens_icappa_pca_keep(const double *x, size_t R, size_t M, double pca_var, double attr_floor,
                         int *keep, size_t *nkept, struct lens_err *e);
/* The threshold rule instead of PCA: attribute j is kept when max_i x_ij - min_i x_ij >=
 * threshold * max_i |x_ij| > 0, i.e. its values differ by at least that fraction over the
 * points. Fills keep[M] and *nkept. Never fails (R >= 1). */
void lens_icappa_threshold_keep(const double *x, size_t R, size_t M, double threshold, int *keep,
                                size_t *nkept);

#endif
