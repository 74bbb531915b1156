/* Histogram of a matrix's values, drawn beside a heatmap: bins equal in the colour scale
 * (linear or log10) over the colour range, bars coloured like the map, value axis vertical
 * and aligned with the colour bar, count axis below. Values are in displayed units. */
#ifndef LENS_HISTOGRAM_H
#define LENS_HISTOGRAM_H

#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

struct lens_histogram {
    int nbins;
    double lo, hi;       /* binned range in displayed units (the colour range) */
    int log_scale;       /* 1: bins equal in log10(value) */
    long long *count;    /* nbins counts, bin 0 holds the smallest values (owned) */
    long long total;     /* values counted: finite, and positive under log_scale */
    long long clipped;   /* of them outside [lo, hi], counted in the end bins */
    long long max;       /* largest bin count */
};

/* Sturges' rule, ceil(log2 n) + 1, kept within 4..48 bins (n = values to bin). */
int lens_histogram_bins_for(long long n);

/* Counts v[k] * scale for k < n into nbins bins over [lo, hi] (lo < hi; lo > 0 when log).
 * NaN/Inf (and values <= 0 under log) are skipped; so is the diagonal when diag_n > 0 (v is
 * then diag_n x diag_n, n = diag_n^2). h is filled and owns count; release it with
 * lens_histogram_release. Errors: LENS_EINVAL, LENS_ENOMEM, naming name. */
int lens_histogram_compute(struct lens_histogram *h, const double *v, size_t n, int diag_n,
                           double scale, double lo, double hi, int log_scale, int nbins,
                           const char *name, struct lens_err *e);
void lens_histogram_release(struct lens_histogram *h);

/* Draws h in the box (x, y, w, ht): value axis on the left edge (hi at the top), bars to
 * the right coloured by cmap (enum lens_cmap), tick marks at the nt values vt[] (labels are
 * the colour bar's), count axis with labels below the box. face/fs: font and base size. */
void lens_histogram_draw(cairo_t *cr, const struct lens_histogram *h, double x, double y,
                         double w, double ht, int cmap, const double *vt, int nt,
                         cairo_font_face_t *face, double fs);

#endif
