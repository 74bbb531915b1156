/* The figures of `mpilens compare -o compare.pdf`: the ratio map (NEW / BASE per pair on a
 * log scale, a diverging colour map centred on 1: blue faster, red slower; the heatmap of
 * heatmap.c with LENS_CMAP_DIVERGING) and the before/after delay histograms, one small panel
 * per message length. Both take what analysis/compare computed (struct lens_compare's
 * ratio_map and hist) and only draw it. Units: pixels for PNG, points for SVG. */
#ifndef LENS_RATIOMAP_H
#define LENS_RATIOMAP_H

#include "common/err.h"

#include <stddef.h>

struct lens_ratiomap_opts {
    const char *title;         /* UTF-8 above the map; NULL: none */
    int width, height;         /* whole figure (default 1000 x 760) */
    const char *font_path;     /* TTF (fonts/DejaVuSans.ttf); NULL: cairo's "sans" */
};
void lens_ratiomap_opts_init(struct lens_ratiomap_opts *o);

/* The colour range [1 / r, r] of a ratio map: r the largest max(x, 1 / x) over the finite
 * positive off-diagonal cells, kept within [1.25, 16] so that noise is not stretched over
 * the whole map and one broken link does not wash out the rest. */
double lens_ratiomap_bound(const double *ratio, int n);

/* ratio is n x n (row = receiver, column = sender), NaN where missing. PNG or SVG by the
 * extension of path, atomically; or PNG bytes for the PDF (lens_free). Errors: those of
 * lens_heatmap_write_png (LENS_EINVAL, LENS_EIO, LENS_ENOMEM, LENS_ELIB, font errors). */
int lens_ratiomap_write(const double *ratio, int n, const struct lens_ratiomap_opts *o,
                        const char *path, struct lens_err *e);
int lens_ratiomap_png_mem(const double *ratio, int n, const struct lens_ratiomap_opts *o,
                          unsigned char **buf, size_t *len, struct lens_err *e);

/* Before/after histograms: per length k, counts of BASE (run 0) and NEW (run 1) delays in
 * nbins bins even in log10(seconds) over [lo[k], hi[k]]. Borrowed. */
struct lens_ratiomap_hist {
    int nlen, nbins;
    const int *lengths;    /* nlen, bytes */
    const double *lo, *hi; /* nlen each, log10 of seconds, lo < hi */
    const long *count;     /* count[(k * 2 + run) * nbins + b] */
    const char *title;     /* NULL: none */
    int width;             /* 0: 1000; the height follows the number of panels */
    const char *font_path;
};
/* Errors: LENS_EINVAL (counts, ranges), and those of lens_figure_render. */
int lens_ratiomap_hist_write(const struct lens_ratiomap_hist *h, const char *path, struct lens_err *e);
int lens_ratiomap_hist_png_mem(const struct lens_ratiomap_hist *h, unsigned char **buf, size_t *len,
                               struct lens_err *e);

/* Two sweeps: per pair, BASE's and NEW's mean latency over the sizes on one plot. pts is
 * npts x 4 doubles (pair, size in bytes, BASE latency s, NEW latency s) in pair and size
 * order, as struct lens_compare's curve; labels[q] names pair q (NULL: "pair q"). */
struct lens_ratiomap_curves {
    int npairs, npts;
    const double *pts;
    const char *const *labels;
    const char *title;
    int width;             /* 0: 1000 */
    const char *font_path;
};
/* Errors: LENS_EINVAL (counts, a pair number out of range, a latency not positive), and
 * those of lens_figure_render. */
int lens_ratiomap_curves_write(const struct lens_ratiomap_curves *c, const char *path, struct lens_err *e);
int lens_ratiomap_curves_png_mem(const struct lens_ratiomap_curves *c, unsigned char **buf, size_t *len,
                                 struct lens_err *e);

#endif
