/* Strip plot: one dot per value on a horizontal axis, with labelled marks (min, median, mean,
 * max) under it; for distributions of a few dozen values, where a histogram's bins would be
 * mostly empty (the rounds of a bisection run). Values are in displayed units (e.g. GB/s).
 * PNG or SVG files, or PNG bytes for the PDF reports (figure.h). */
#ifndef LENS_STRIP_H
#define LENS_STRIP_H

#include "common/err.h"

#include <stddef.h>

#define LENS_STRIP_MAX_MARKS 8

struct lens_strip_mark {
    double value;      /* displayed units, finite */
    const char *label; /* "min 5.74" (borrowed) */
};

/* What to draw; everything borrowed. */
struct lens_strip_opts {
    const char *title;        /* wrapped above the plot; NULL: none */
    const char *xlabel;       /* the axis title ("aggregate bandwidth, GB/s") */
    const double *v;          /* n values, finite, in displayed units */
    int n;                    /* >= 1 */
    const struct lens_strip_mark *marks; /* nmarks <= LENS_STRIP_MAX_MARKS, NULL when 0 */
    int nmarks;
    int width, height;        /* pixels (PNG) / points (SVG); 0: 900 x 360 */
    const char *font_path;    /* TTF, NULL: cairo's "sans" */
};

/* Writes o to path (.png or .svg), atomically. Errors: LENS_EINVAL (no values, a value or
 * mark not finite, too many marks, bad size, extension), font errors, LENS_ELIB, LENS_EIO;
 * messages name path. */
int lens_strip_write(const struct lens_strip_opts *o, const char *path, struct lens_err *e);
/* The same as PNG bytes at print resolution: *buf (lens_malloc'd, caller frees) / *len. */
int lens_strip_png_mem(const struct lens_strip_opts *o, unsigned char **buf, size_t *len, struct lens_err *e);

#endif
