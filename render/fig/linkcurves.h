/* Delay against message length per link cluster (analysis/structure/links.h): one line per cluster, its
 * mean curve, in the colour the link map of render/fig/linkmap.h gives the cluster, optionally a
 * band from the fastest to the slowest link of the cluster at each length, and a legend.
 * The length axis is logarithmic when the lengths span two decades or more, the delay axis when
 * the curves span a factor of 20 or more (both can be forced). Written as PNG or SVG (by the
 * extension), as PNG into memory for the PDF, or drawn into any cairo context; deterministic. */
#ifndef LENS_LINKCURVES_H
#define LENS_LINKCURVES_H

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"
#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

struct lens_linkcurves_opts {
    const char *title;            /* UTF-8; NULL: "Mean delay against message length per link cluster" */
    const struct lens_cube *cube; /* the clustered cube, or NULL: with it each cluster also gets
                                   * the min..max band of its links (the statistic links.h used:
                                   * average, else median) */
    int log_x, log_y;             /* -1 automatic (above), 0 linear, 1 logarithmic */
    int width, height;            /* figure for the writers: pixels (PNG) or points (SVG) */
    const char *font_path;        /* TTF for the text (fonts/DejaVuSans.ttf); NULL: toy "sans" */
};

/* Defaults: automatic title and axes, no cube, 1000 x 620, toy font. */
void lens_linkcurves_opts_init(struct lens_linkcurves_opts *o);

/* Draws the figure into the box (x, y, w, h) of cr (user units), background included; cr's
 * state is saved and restored. Each cluster's mean curve is one stroked path of r->nlen points
 * (markers are separate paths). o NULL means the defaults.
 * Errors: LENS_EINVAL (no clustering, a cube whose size differs from r, a forced log axis over
 * values <= 0 only, box too small), LENS_ELIB (cairo), LENS_ENOMEM, font errors. */
int lens_linkcurves_draw(cairo_t *cr, double x, double y, double w, double h, const struct lens_links *r,
                         const struct lens_linkcurves_opts *o, struct lens_err *e);

/* Writes the width x height figure to path atomically (".png" or ".svg", else LENS_EINVAL);
 * errors name path and leave nothing behind. */
int lens_linkcurves_write(const char *path, const struct lens_links *r, const struct lens_linkcurves_opts *o,
                          struct lens_err *e);

/* The figure as PNG bytes: *buf is lens_malloc'd (caller lens_frees), *len its size. */
int lens_linkcurves_png_mem(const struct lens_links *r, const struct lens_linkcurves_opts *o,
                            unsigned char **buf, size_t *len, struct lens_err *e);

#endif
