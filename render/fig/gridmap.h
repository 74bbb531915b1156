/* The 2-D view of an efficiency grid (one cell per configuration, missing ones left empty), the
 * colour map and colour bar it shares with the 3-D surface, and the axis tick helpers.
 * Drawing functions take a cairo context owned by the caller and never print; the caller checks
 * cairo_status() once per figure (render/fig/surface.c does). */
#ifndef LENS_GRIDMAP_H
#define LENS_GRIDMAP_H

#include <cairo.h>
#include <stddef.h>

#include "analysis/scale/scale.h"

/* Colour of t in [0, 1] on viridis (render/fig/colormap.h: dark blue = low, yellow = high); t is
 * clamped, NaN counts as 0. */
void lens_gridmap_colour(double t, double rgb[3]);

/* Up to max "nice" ticks (1, 2, 5 x 10^k steps) inside [lo, hi]; returns how many. */
size_t lens_gridmap_ticks(double lo, double hi, double *ticks, size_t max);

/* Axis label for v: "%g" with "e+0" shortened ("1e6"), so labels stay narrow. */
void lens_gridmap_format(double v, char *buf, size_t n);

/* Draws the heatmap of g inside the box (x, y, w, h) in user units, axes included (the cells
 * take the box minus room for the tick labels and titles); colours map [zlo, zhi] to [0, 1]. */
void lens_gridmap_draw(cairo_t *cr, const struct lens_grid *g, double x, double y, double w,
                       double h, double zlo, double zhi);

/* Centre of the cell of configuration (procs index i, size index j) as drawn by
 * lens_gridmap_draw with the same box. */
void lens_gridmap_cell(const struct lens_grid *g, double x, double y, double w, double h, size_t i,
                       size_t j, double *cx, double *cy);

/* Vertical colour bar in the box (x, y, w, h) with ticks for [zlo, zhi] and a label. */
void lens_gridmap_colourbar(cairo_t *cr, double x, double y, double w, double h, double zlo,
                            double zhi, const char *label);

/* Text helpers shared with the surface: draws s with its anchor at (x, y); ax, ay in [0, 1]
 * pick the anchor inside the text box (0,0 = top left, 0.5,0.5 = centre). */
void lens_gridmap_text(cairo_t *cr, const char *s, double x, double y, double ax, double ay);

#endif
