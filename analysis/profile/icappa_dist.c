/* Box-plot numbers of the dominating functions per ICAPPA process cluster: which processes
 * fall in which group, and the quartiles, whiskers and outliers of each function's seconds
 * there. The figure (render/fig/profile_plot.c) and the report only lay these out. */
#include "icappa_dist.h"

#include "common/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* NaN was refused before the sort, so this is a total order and qsort's result is defined */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy.percentile(method="linear") on sorted x: the rank h = (n-1) q is split into its whole
 * part and fraction, and the two neighbours interpolated; at the top end h is whole. */
static double quantile(const double *x, size_t n, double q)
{
    double h = (double)(n - 1) * q, lo = floor(h);
    size_t i = (size_t)lo;
    if (i + 1 >= n)
        return x[n - 1];
    return x[i] + (h - lo) * (x[i + 1] - x[i]);
}

int lens_icappa_box_stats(double *v, size_t n, struct lens_icappa_box *b, struct lens_err *e)
{
    memset(b, 0, sizeof *b);
    if (!n)
        return lens_err_set(e, LENS_EINVAL, "box plot of no values");
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return lens_err_set(e, LENS_EINVAL, "box plot: value %zu is not finite", i);
    /* sorted once: the quantiles, whiskers and outliers are all positions in the order */
    qsort(v, n, sizeof *v, cmp_double);
    b->n = n;
    b->min = v[0];
    b->max = v[n - 1];
    b->q1 = quantile(v, n, 0.25);
    b->median = quantile(v, n, 0.5);
    b->q3 = quantile(v, n, 0.75);
    double iqr = b->q3 - b->q1, flo = b->q1 - 1.5 * iqr, fhi = b->q3 + 1.5 * iqr;
    /* the whiskers end on data, not on the fences: the first value inside each fence. The box
     * itself is inside the fences, so both loops stop within the array. */
    size_t lo = 0, hi = n - 1;
    while (v[lo] < flo)
        lo++;
    while (v[hi] > fhi)
        hi--;
    b->wlo = v[lo];
    b->whi = v[hi];
    /* the outliers are the two ends of the sorted values: no copy */
    b->nlow = lo;
    b->low = v;
    b->nhigh = n - 1 - hi;
    b->high = v + hi + 1;
    return LENS_OK;
}

void lens_icappa_dist_free(struct lens_icappa_dist *d)
{
    if (!d)
        return;
    lens_free(d->func);
    for (size_t g = 0; g < LENS_ICAPPA_DIST_MAX_GROUPS; g++)
        lens_free(d->members[g]);
    lens_free(d->box);
    lens_free(d->values);
    lens_free(d);
}

/* The groups: phase 2's last accepted split decides, since the answer (the costly processes)
 * is its cluster 0; the processes an earlier split set aside would otherwise vanish from the
 * plot, so they form a third group. Fills d->ngroups, gsize, members, kind. */
static int groups(const struct lens_profile *p, const struct lens_icappa *r, struct lens_icappa_dist *d,
                  struct lens_err *e)
{
    const struct lens_icappa_round *last = NULL;
    for (size_t k = 0; k < r->nrounds; k++)
        if (r->rounds[k].set == LENS_ICAPPA_PROCESSES && r->rounds[k].accepted)
            last = &r->rounds[k];
    /* one flag per row: which processes the split already holds (calloc of 0 may be NULL) */
    unsigned char *in = lens_calloc(p->nproc ? p->nproc : 1, 1);
    if (!in)
        return lens_err_set(e, LENS_ENOMEM, "distributions: out of memory");
    size_t ng = 0;
    if (last) {
        /* cluster 0 first: it is the answer, and the figure's first colour is the costlier's */
        for (int c = 0; c < 2; c++) {
            d->members[ng] = lens_malloc((last->size[c] ? last->size[c] : 1) * sizeof(size_t));
            if (!d->members[ng])
                goto nomem;
            for (size_t i = 0; i < last->size[c]; i++) {
                /* a result of another profile would index past the rows */
                if (last->members[c][i] >= p->nproc) {
                    lens_free(in);
                    return lens_err_set(e, LENS_EINVAL, "distributions: ICAPPA result does not fit the profile");
                }
                d->members[ng][i] = last->members[c][i];
                in[last->members[c][i]] = 1;
            }
            d->gsize[ng] = last->size[c];
            d->kind[ng++] = c;
        }
    }
    /* the rest (or everyone, with no split): rows not yet in a group, ascending */
    size_t nrest = 0;
    for (size_t i = 0; i < p->nproc; i++)
        nrest += !in[i];
    if (nrest) {
        d->members[ng] = lens_malloc(nrest * sizeof(size_t));
        if (!d->members[ng])
            goto nomem;
        for (size_t i = 0, j = 0; i < p->nproc; i++)
            if (!in[i])
                d->members[ng][j++] = i;
        d->gsize[ng] = nrest;
        d->kind[ng++] = last ? 2 : 3;
    }
    d->ngroups = ng;
    lens_free(in);
    return LENS_OK;
nomem:
    lens_free(in);
    return lens_err_set(e, LENS_ENOMEM, "distributions: out of memory");
}

int lens_icappa_dist_build(const struct lens_profile *p, const struct lens_icappa *r,
                           struct lens_icappa_dist **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_icappa_dist *d = lens_calloc(1, sizeof *d);
    if (!d)
        return lens_err_set(e, LENS_ENOMEM, "distributions: out of memory");
    int rc = groups(p, r, d, e);
    /* every (function, group) box owns a slice of values: nfunc x nproc doubles in all,
     * since the groups partition the processes */
    if (rc == LENS_OK) {
        d->nfunc = r->ndom;
        d->func = lens_malloc((d->nfunc ? d->nfunc : 1) * sizeof *d->func);
        d->box = lens_calloc((d->nfunc ? d->nfunc : 1) * d->ngroups, sizeof *d->box);
        d->values = lens_malloc((d->nfunc && p->nproc ? d->nfunc * p->nproc : 1) * sizeof *d->values);
        if (!d->func || !d->box || !d->values)
            rc = lens_err_set(e, LENS_ENOMEM, "distributions: out of memory");
    }
    /* v walks through values: each box's slice stays put, so its outlier pointers stay valid */
    double *v = d->values;
    for (size_t f = 0; rc == LENS_OK && f < d->nfunc; f++) {
        if (r->dom[f] >= p->nfunc) {
            rc = lens_err_set(e, LENS_EINVAL, "distributions: ICAPPA result does not fit the profile");
            break;
        }
        d->func[f] = r->dom[f];
        for (size_t g = 0; rc == LENS_OK && g < d->ngroups; g++) {
            /* a finished profile has stride nfunc (profile.h) */
            for (size_t i = 0; i < d->gsize[g]; i++)
                v[i] = p->sec[d->members[g][i] * p->nfunc + d->func[f]];
            rc = lens_icappa_box_stats(v, d->gsize[g], &d->box[f * d->ngroups + g], e);
            v += d->gsize[g];
        }
    }
    if (rc != LENS_OK) {
        lens_icappa_dist_free(d);
        return rc;
    }
    *out = d;
    return LENS_OK;
}
