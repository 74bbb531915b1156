/* The P x P map of link clusters (Figure 6 of Salnikov et al.): cell (row, column) takes the colour of
 * the cluster analysis/structure/links.h gave that link, the diagonal (not a link) a light grey; a legend
 * lists each cluster with its size and mean delay. Clusters keep the ids of links.h (ordered by
 * mean delay over all lengths, fastest first), and cluster id always has the colour
 * lens_linkmap_colour(id), here and in the curves of render/fig/linkcurves.h.
 * Written as PNG or SVG (by the extension), into memory as PNG for the PDF, or drawn into any
 * cairo context. Output is byte-identical for the same input. */
#ifndef LENS_LINKMAP_H
#define LENS_LINKMAP_H

#include "analysis/structure/structure.h"
#include "common/err.h"
#include "hostcolour.h"

#include <cairo.h>
#include <stddef.h>

/* Distinct colours before they repeat: cluster id gets entry id % LENS_LINKMAP_PALETTE. */
#define LENS_LINKMAP_PALETTE 64

/* Colour of cluster id as 8-bit sRGB and as cairo doubles; id < 0 gives the diagonal grey.
 * Entries 0-8 are matplotlib's tab10 (its grey left out), the rest extend it greedily to the
 * farthest CIELAB colour of moderate lightness and chroma (docs/links.md). */
void lens_linkmap_rgb8(int id, unsigned char rgb[3]);
void lens_linkmap_colour(int id, double rgb[3]);

/* A delay in seconds for a figure, three significant digits: "541 ns", "1.93 µs", "12.4 ms". */
void lens_linkmap_format_delay(double s, char *buf, size_t n);

struct lens_linkmap_opts {
    const char *title;            /* UTF-8; NULL: "Links by cluster: k clusters of N links" */
    const char *const *labels;    /* procs host names in rank order (cube->hosts) or NULL; with
                                   * hosts the axes name host blocks and lines separate them */
    const char *xlabel, *ylabel;  /* NULL: "column (rank)" / "row (rank)", "(host)" with labels */
    /* With labels naming host blocks: each block's ticks become a band of its host's colour
     * along both axes (lens_hostcolour_of), the colour its leaves have in the NJ tree drawn
     * from the same map. NULL (default): plain ticks. Borrowed. */
    const struct lens_hostcolour *hostcol;
    int width, height;            /* figure for the writers: pixels (PNG) or points (SVG) */
    const char *font_path;        /* TTF for the text (fonts/DejaVuSans.ttf); NULL: toy "sans" */
};

/* Defaults: no title (automatic), no labels, 1000 x 720, toy font. */
void lens_linkmap_opts_init(struct lens_linkmap_opts *o);

/* Draws the figure into the box (x, y, w, h) of cr, in cr's user units, background included.
 * On PDF and SVG targets maps up to 256 processes are vector cells. cr stays usable; its
 * state is saved and restored. o NULL means the defaults (width/height are ignored here).
 * Errors: LENS_EINVAL (r without labels, fewer than 2 processes, box too small for the
 * labels), LENS_ELIB (cairo), font errors from lens_figure_font_load, LENS_ENOMEM. */
int lens_linkmap_draw(cairo_t *cr, double x, double y, double w, double h, const struct lens_links *r,
                      const struct lens_linkmap_opts *o, struct lens_err *e);

/* Writes the width x height figure to path atomically: ".png" or ".svg" (anything else is
 * LENS_EINVAL). Errors as lens_linkmap_draw plus LENS_EIO, every message naming path; on error
 * nothing is left behind. */
int lens_linkmap_write(const char *path, const struct lens_links *r, const struct lens_linkmap_opts *o,
                       struct lens_err *e);

/* The figure as PNG bytes: *buf is lens_malloc'd (caller lens_frees), *len its size. */
int lens_linkmap_png_mem(const struct lens_links *r, const struct lens_linkmap_opts *o, unsigned char **buf,
                         size_t *len, struct lens_err *e);

/* Where the writers put the map and the legend (figure units, origin top left): cell (i, j)
 * covers x in map_x + [j, j+1) * map_w / P, y in map_y + [i, i+1) * map_h / P. */
struct lens_linkmap_layout {
    double map_x, map_y, map_w, map_h;
    double legend_x, legend_y, legend_w, legend_h;
    int legend_cols;              /* columns of legend entries */
};
int lens_linkmap_layout(const struct lens_links *r, const struct lens_linkmap_opts *o,
                        struct lens_linkmap_layout *l, struct lens_err *e);

#endif
