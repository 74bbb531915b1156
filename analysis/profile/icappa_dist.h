/* The distribution of each dominating function's cost over the processes of each ICAPPA
 * process cluster (Zhu, Li and Li show it as box plots, figures 2-5): five numbers and the
 * outliers per (function, cluster), computed here so that the figures only draw them. */
#ifndef LENS_ICAPPA_DIST_H
#define LENS_ICAPPA_DIST_H

#include <stddef.h>

#include "common/err.h"
#include "icappa.h"

/* icappa.h and profile.h include each other's wing: whichever comes first, these two may not
 * be complete yet when this header is read */
struct lens_profile;
struct lens_icappa;

/* A box plot of n values (seconds). Quartiles are numpy.percentile's default ("linear",
 * Hyndman and Fan type 7): the q-quantile of the sorted x is x[h] interpolated at h = (n-1) q.
 * Whiskers as Tukey (and matplotlib's boxplot): the most extreme values within 1.5 IQR of the
 * box; values beyond them are outliers. */
struct lens_icappa_box {
    size_t n;                  /* values */
    double min, q1, median, q3, max;
    double wlo, whi;           /* whisker ends: values of the data, inside [q1-1.5IQR, q3+1.5IQR] */
    size_t nlow, nhigh;        /* outliers below the low whisker, above the high one */
    const double *low, *high;  /* nlow and nhigh outliers, ascending; they point into the
                                  sorted values (the caller's v, or lens_icappa_dist.values) */
};

/* Sorts v[n] in place (n >= 1) and fills b; b->low and b->high point into v (the outliers
 * are its two ends), so v must outlive b. Errors: LENS_EINVAL (n == 0 or a value that is not finite). */
int lens_icappa_box_stats(double *v, size_t n, struct lens_icappa_box *b, struct lens_err *e);

/* The groups are the clusters of phase 2's last accepted split (0, the costlier; 1, the
 * other) and, when earlier splits set processes aside, the rest of them as group 2; with no
 * accepted split, all processes are one group. The functions are the dominating ones,
 * costliest first. All owned (lens_icappa_dist_free). */
#define LENS_ICAPPA_DIST_MAX_GROUPS 3
struct lens_icappa_dist {
    size_t nfunc;              /* dominating functions */
    size_t *func;              /* nfunc profile columns */
    size_t ngroups;            /* 1..3 */
    size_t gsize[LENS_ICAPPA_DIST_MAX_GROUPS];     /* processes per group */
    size_t *members[LENS_ICAPPA_DIST_MAX_GROUPS];  /* profile rows, ascending */
    int kind[LENS_ICAPPA_DIST_MAX_GROUPS];         /* 0 costlier cluster, 1 other, 2 set aside, 3 all */
    struct lens_icappa_box *box; /* nfunc x ngroups, row-major by function */
    double *values;              /* the sorted seconds the boxes' outliers point into */
};

/* Builds the distributions of r (lens_icappa_run on p). The caller owns *out.
 * Errors: LENS_EINVAL (r does not fit p), LENS_ENOMEM. */
int lens_icappa_dist_build(const struct lens_profile *p, const struct lens_icappa *r,
                           struct lens_icappa_dist **out, struct lens_err *e);
void lens_icappa_dist_free(struct lens_icappa_dist *d);

#endif
