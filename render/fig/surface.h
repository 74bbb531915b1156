/* The efficiency surface E(p, d) of one application, or any other layer of its grid on the same
 * axes (performance, a column of the runs CSV), as a 3-D surface (orthographic view, painter's
 * algorithm) with the heatmap of the same grid beside it and a shared colour bar, written as
 * PNG or SVG with cairo. A missing configuration leaves a gap, never a zero: the cells around
 * it are drawn as triangles of their present corners, or not at all. A configuration filled
 * with zero (lens_grid.zero) is drawn grey and crossed out. */
#ifndef LENS_SURFACE_H
#define LENS_SURFACE_H

#include <cairo.h>
#include <stddef.h>

#include "analysis/scale/scale.h"
#include "common/err.h"

struct lens_surface_opts {
    double azimuth;     /* degrees about the vertical axis; default -60 */
    double elevation;   /* degrees above the floor, in [0, 90]; default 30 */
    int width, height;  /* figure size in pixels (PNG) or points (SVG); default 1100 x 520 */
    int log_procs;      /* 1: logarithmic processes axis (base 2 ticks) */
    int log_size;       /* 1: logarithmic size axis (base 10 ticks) */
    const char *title;  /* NULL: "<app>: parallel efficiency E(p, d)" */
    const char *font_path; /* TTF for the text (fonts/DejaVuSans.ttf); NULL: cairo's toy "sans" */
    /* Another layer to draw instead of the efficiency (g->perf, g->extra: nd * np values in the
     * grid's layout, NaN = missing), borrowed; its vertical axis spans [min(0, min), max] rather
     * than at least [0, 1]. NULL: the efficiency. */
    const double *values;
    const char *value_label; /* the axis and colour bar label of values; NULL: "value" */
};

/* Fills o with the defaults above. */
void lens_surface_opts_default(struct lens_surface_opts *o);

/* Draws the figure into cr over (0, 0, width, height), background included. LENS_EINVAL for
 * bad options (elevation outside [0, 90], size below 300 x 200, a log axis over values <= 0),
 * LENS_ELIB when cairo reports an error. */
int lens_surface_draw(cairo_t *cr, const struct lens_grid *g, const struct lens_surface_opts *o,
                      struct lens_err *e);

/* Writes the figure to path atomically; the format follows the extension (.png or .svg,
 * anything else is LENS_EINVAL). Errors name path. */
int lens_surface_write(const char *path, const struct lens_grid *g,
                       const struct lens_surface_opts *o, struct lens_err *e);

/* The figure as PNG bytes in memory, for the PDF report: *buf is lens_malloc'd (the caller
 * lens_frees it), *len its size. Errors as lens_surface_draw, plus LENS_ENOMEM. */
int lens_surface_png_mem(const struct lens_grid *g, const struct lens_surface_opts *o,
                         unsigned char **buf, size_t *len, struct lens_err *e);

/* Where the 3-D point (procs p, size d, efficiency eff) lands in the figure, in pixels; and the
 * centre of heatmap cell (i, j). For tests and image maps; LENS_EINVAL as lens_surface_draw. */
int lens_surface_locate(const struct lens_grid *g, const struct lens_surface_opts *o, double p,
                        double d, double eff, double *x, double *y, struct lens_err *e);
int lens_surface_locate_cell(const struct lens_grid *g, const struct lens_surface_opts *o, size_t i,
                             size_t j, double *x, double *y, struct lens_err *e);

#endif
