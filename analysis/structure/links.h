/* Divisive clustering of links (docs/methods.md §3, Salnikov et al.). Objects are the P(P-1)
 * ordered pairs (row i, column j), i != j (the diagonal is not a measurement and is left out);
 * object (i,j) is its curve of mean delays a_ij(l) over the L lengths with variances
 * d_ij(l) = deviation^2. Distance:
 *     rho^2 = sum_l (a_ij(l) - a_pq(l))^2 * (1/d_ij(l) + 1/d_pq(l))
 * with each standard deviation floored at max(sd_rel_floor * a, sd_abs_floor). Distances are
 * computed when needed, never as a matrix; clusters are split larger diameter first, two at a
 * time on two threads, and the result does not depend on the number of threads. */
#ifndef LENS_LINKS_H
#define LENS_LINKS_H

#include "analysis/cube/cube.h"

struct lens_links_opts {
    int threads;          /* worker threads, >= 1 (default 2) */
    int max_splits;       /* longest diameter sequence computed for the scree (default 64) */
    int clusters;         /* > 0: cut at this many clusters instead of the scree (default 0) */
    double sd_rel_floor;  /* deviation floor relative to the mean (default 1e-3) */
    double sd_abs_floor;  /* deviation floor in seconds (default 1e-9) */
    double scree_theta;   /* a drop is "much smaller" below theta x the mean drop before (0.1) */
    int scree_window;     /* ... for this many consecutive drops (default 3) */
    double scree_span;    /* the steep part must bring the diameter below (1 - span) d_1 (0.5) */
    /* The agglomerative comparison (docs/methods.md §3): lens_hclust on the same
     * rho, cut at the divisive k, and the adjusted Rand index between the two. */
    int agglo;            /* lens_hclust method, or -1 for none (default LENS_HCLUST_AVERAGE) */
    double agglo_max_bytes; /* bound on the condensed rho matrix, L(L-1)/2 x 8 bytes (64 MiB:
                             * P <= 64; `mpilens links` sets 256 MiB) */
    int agglo_optional;   /* 1 (default): over the bound, skip it (agglo stays -1 in the result);
                           * 0: refuse with LENS_EINVAL naming the bytes */
};

struct lens_links_cluster {
    int id;               /* 0..k-1, ordered by mean delay over lengths, fastest first */
    long size;            /* links */
    double diameter;      /* rho(r, s) estimate of the split step (dimensionless), 0 for one link */
    double *mean;         /* nlen seconds: mean of the average statistic over its links (owned) */
    double same_host;     /* fraction of its links within one host, NaN without a hosts file */
    int row, col;         /* its first link in row-major order, as an example */
};

struct lens_links {
    int procs, nlen;
    int *lengths;         /* nlen message lengths, bytes (owned copy) */
    int *label;           /* procs x procs cluster id of element (row, col), -1 on the diagonal */
    int k;                /* clusters */
    struct lens_links_cluster *clusters; /* k, by id */
    double *diameters;    /* ndiam diameters of the splits in the order made (greedy, larger first) */
    int ndiam;
    int elbow;            /* scree elbow (clusters) or 0 when none was found */
    int forced;           /* 1 when opts.clusters decided k */
    int no_deviation;     /* 1 when the cube had no deviation: every variance is the floor */
    int agglo;            /* the lens_hclust method compared, or -1 when not run */
    int *agglo_label;     /* procs x procs, -1 on the diagonal: that method's clusters 0..k-1,
                           * numbered by their first link in row-major order; NULL when not run */
    double agglo_bytes;   /* the condensed matrix it needs (or needed), bytes */
    double ari;           /* adjusted Rand index agglomerative vs divisive, NaN when not run */
};

/* One summary row for the report: the cluster and a sentence about it (owned by caller's buf). */
struct lens_links_row {
    int id;
    long size;
    double share;         /* size / number of links */
    double diameter;
    double first, last;   /* mean delay at the first and last length, seconds */
    double same_host;     /* NaN without hosts */
};

void lens_links_opts_default(struct lens_links_opts *o);
/* Clusters the links of c (average statistic, or median when there is no average; deviation
 * for the variances), then, when o->agglo >= 0, the same links agglomeratively (above).
 * *out is owned by the caller (lens_links_free).
 * Errors: LENS_EINVAL (bad options, fewer than 2 processes, no average or median, the
 * agglomerative matrix over its bound when not optional),
 * LENS_EDATA (a delay that is not finite; a Ward update that fails), LENS_ENOMEM,
 * LENS_ELIB (thread creation). */
int lens_links_run(const struct lens_cube *c, const struct lens_links_opts *o,
                   struct lens_links **out, struct lens_err *e);
void lens_links_free(struct lens_links *r);

/* The scree rule on diameters d[0..n) in split order (docs/links.md): the number of clusters.
 * exhausted = 1 when the sequence ended because no cluster left had a non-zero diameter. */
int lens_links_scree(const double *d, int n, int exhausted, const struct lens_links_opts *o);

/* rho (not squared; dimensionless, differences over deviations) between links (i,j) and
 * (p,q) of c, with the same floors as the run. LENS_EINVAL (no average or median, a link out
 * of range or on the diagonal), LENS_EDATA (a delay that is not finite). */
int lens_links_rho(const struct lens_cube *c, const struct lens_links_opts *o, int i, int j, int p,
                   int q, double *rho, struct lens_err *e);

/* Row for cluster id (0 <= id < r->k); sentence: "48 links (20%), 100% within a host,
 * 0.36 us at 0 B to 0.71 us at 4096 B" into buf. */
void lens_links_row(const struct lens_links *r, int id, struct lens_links_row *row, char *buf,
                    size_t n);

#endif
