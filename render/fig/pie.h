/* Pie charts with a table: one to three pies side by side over the same slices (e.g. share
 * of messages and share of volume per message-size bin), slice labels outside the pie on
 * leader lines that never overlap, small slices merged into "other", and a table below
 * with a colour key per row. Draws into any cairo_t, or writes PNG/SVG, or PNG in memory
 * for the PDF reports. Units are the surface's (pixels for PNG, points for SVG). */
#ifndef LENS_PIE_H
#define LENS_PIE_H

#include "analysis/trace/trace.h"
#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

#define LENS_PIE_MAX 3        /* pies side by side */
#define LENS_PIE_WIDTH 960    /* default figure width */

/* What to draw. The chart does not own the strings or arrays it points to. */
struct lens_pie_chart {
    const char *title;             /* figure title, NULL for none */
    int nslices;                   /* slices = table rows, >= 0 */
    const char *const *labels;     /* nslices slice names (table rows) */
    const char *const *short_labels; /* nslices names beside the pies, NULL: labels */
    int npies;                     /* 1..LENS_PIE_MAX */
    const char *const *pie_titles; /* npies titles (NULL entries allowed) */
    const double *values;          /* npies x nslices, values[p * nslices + i] >= 0 */
    int ncols;                     /* table columns after the name, 0: no table */
    const char *name_head;         /* heading of the name column, NULL for none */
    const char *const *col_heads;  /* ncols column headings */
    const char *const *cells;      /* nslices x ncols cell texts, row-major */
    const char *const *total_cells;/* ncols texts of a "total" row, NULL for none */
    double group_below;            /* share under which slices merge into "other" (when two or
                                      more do); 0 never */
};

/* Height that suits c at width w (table rows plus pies about w / npies / 1.6 high). */
double lens_pie_height(const struct lens_pie_chart *c, double w);

/* Draws c into the box (x, y, w, h) of cr with font face (NULL: cairo's toy "sans"); the
 * background is left alone. Errors: LENS_EINVAL (bad chart: counts, negative or NaN values),
 * LENS_ELIB (cairo), with messages naming name. */
int lens_pie_draw(cairo_t *cr, const struct lens_pie_chart *c, double x, double y, double w,
                  double h, cairo_font_face_t *face, const char *name, struct lens_err *e);

/* Writes c to path, PNG or SVG by the extension (.png/.svg, else LENS_EINVAL), on a white
 * background, atomically: width pixels/points (0: LENS_PIE_WIDTH, or 420 per pie when that
 * is wider), height lens_pie_height. font_path: a TTF or NULL. Errors: those of
 * lens_pie_draw, LENS_EIO, font errors. */
int lens_pie_write(const struct lens_pie_chart *c, const char *path, int width,
                   const char *font_path, struct lens_err *e);

/* The same as a PNG in memory: *buf (lens_malloc'd, caller frees) of *len bytes. */
int lens_pie_png_mem(const struct lens_pie_chart *c, int width, const char *font_path,
                     unsigned char **buf, size_t *len, struct lens_err *e);

/* A message-size profile (binned) as a chart: pies of the share of messages and of volume
 * (and of modelled send time when the profile has one), table of count, % messages, bytes,
 * % volume (, % time). p owns the strings; release with lens_pie_msgsize_release. */
struct lens_pie_msgsize {
    struct lens_pie_chart chart;
    char *text;                     /* every string, NUL-separated (owned) */
    const char **ptrs;              /* labels, cells, ... pointing into text (owned) */
    double *values;                 /* owned */
};
/* title may be NULL. LENS_ENOMEM, LENS_EINVAL (profile not binned). */
int lens_pie_msgsize_init(struct lens_pie_msgsize *p, const struct lens_msgsize *m,
                          const char *title, struct lens_err *e);
void lens_pie_msgsize_release(struct lens_pie_msgsize *p);

#endif
