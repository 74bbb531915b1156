/* Internal to the anomaly detectors (anomaly.c, anomaly_links.c): the detection context and
 * the helpers they share. Not part of the public API; see anomaly.h. */
#ifndef LENS_ANOMALY_INT_H
#define LENS_ANOMALY_INT_H

#include "anomaly.h"

#include <math.h>
#include <stddef.h>

/* One detection run. c, o and e are borrowed; a is the result being built (owned by the
 * caller of lens_anomaly_find), cap its allocated items. */
struct lens_anomaly_ctx {
    const struct lens_cube *c;
    const struct lens_anomaly_opts *o;
    int s, P, L;
    struct lens_anomalies *a;
    int cap;
    struct lens_err *e;
};

/* log of statistic s at length index k for link i -> j; NaN when missing or not positive. */
static inline double lens_anomaly_lt(const struct lens_anomaly_ctx *x, int k, int i, int j)
{
    double v = LENS_CUBE_AT(x->c, x->s, k, i, j);
    return isfinite(v) && v > 0 ? log(v) : NAN;
}

/* Ascending ranks as runs: "16-23", "1, 3-5, 9". */
void lens_anomaly_fmt_ranks(char *buf, size_t n, const int *r, int nr);
/* Appends a finding; ranks and lengths (indices into c->lengths) are copied. */
int lens_anomaly_add(struct lens_anomaly_ctx *x, int kind, const int *ranks, int nranks,
                     const int *ks, int nks, struct lens_anomaly **out);
/* Bad links and strongly asymmetric pairs (anomaly_links.c). */
int lens_anomaly_find_links(struct lens_anomaly_ctx *x);

#endif
