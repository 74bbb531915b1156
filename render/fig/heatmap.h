/* Heatmap of one matrix (a latency matrix for one length and statistic) as PNG or SVG:
 * cells coloured by value (viridis or grey), colour bar with units, axis labels by rank or
 * host, a title, and a histogram of the values beside it. Scales to 8192 x 8192 cells: the
 * map is drawn as one raster image, never one rectangle per cell, except in small SVGs. */
#ifndef LENS_HEATMAP_H
#define LENS_HEATMAP_H

#include "common/err.h"
#include "colormap.h" /* enum lens_cmap { LENS_CMAP_VIRIDIS = 0, LENS_CMAP_GREY = 1 } */
#include "hostcolour.h"

#include <stddef.h>

struct lens_heatmap_opts {
    const char *title;            /* UTF-8, drawn above the map, e.g. "median delay, 4096 B" */
    const char *unit;             /* colour-bar unit, e.g. "µs"; NULL -> none */
    double scale;                 /* values are multiplied by this for display (1e6: s -> µs) */
    int log_scale;                /* colour by log10 of the displayed value; cells <= 0 are missing */
    int fixed_range;              /* use vmin/vmax (displayed units) instead of the data range */
    double vmin, vmax;            /* values outside are drawn in the end colours */
    int cmap;                     /* enum lens_cmap */
    const char *const *labels;    /* max(rows, cols) axis labels (host names or ranks), NULL
                                   * entries or NULL array -> rank numbers */
    const char *xlabel, *ylabel;  /* axis titles, e.g. "sender rank", "receiver rank"; NULL -> none */
    /* Host bands: with both set, max(rows, cols) host names (indexed as labels; NULL entries
     * take the "none" grey) colour a band along the left and bottom edges, in the ticks' room,
     * each host in its colour of hostcol (the colour the NJ tree and link map give it).
     * NULL (default): no band. Borrowed. */
    const char *const *hosts;
    const struct lens_hostcolour *hostcol;
    int histogram;                /* 1: histogram of the finite values drawn beside the map */
    int hide_diagonal;            /* 1: the diagonal of a square matrix (self-delays, often 0
                                   * or garbage) is drawn as missing and left out of range and
                                   * histogram; lens_heatmap_opts_init sets 1 */
    int width, height;            /* whole figure, pixels for PNG, points for SVG */
    const char *font_path;        /* TTF to use for text (fonts/DejaVuSans.ttf); NULL -> cairo's "sans" */
};

/* Defaults: no title, unit "µs", scale 1e6 (seconds in), linear, data range, viridis, rank
 * numbers, axis titles "column (rank)" / "row (rank)", histogram on, diagonal hidden,
 * 1000 x 760, toy font. */
void lens_heatmap_opts_init(struct lens_heatmap_opts *o);

/* m is rows x cols row-major in seconds (or any unit, see scale); NaN/Inf cells are
 * "missing" (drawn in a neutral colour, excluded from range and histogram). Row 0 is at the
 * top. o NULL means the defaults. Output is byte-identical for the same input.
 * Errors (message names path): LENS_EINVAL bad sizes or options, LENS_EIO cannot write,
 * LENS_ENOMEM, LENS_ELIB cairo failure, font errors from lens_figure_font_load. On error no
 * file is left behind. */
int lens_heatmap_write_png(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                           const char *path, struct lens_err *e);
/* SVG: up to LENS_HEATMAP_SVG_VECTOR_MAX cells a side every cell is a vector rectangle;
 * larger maps are one embedded PNG image of at most LENS_HEATMAP_SVG_RASTER_MAX pixels a side. */
int lens_heatmap_write_svg(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                           const char *path, struct lens_err *e);
/* PNG into a malloc'd buffer (caller frees with lens_free), for embedding in the PDF. */
int lens_heatmap_png_mem(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                         unsigned char **buf, size_t *len, struct lens_err *e);

#define LENS_HEATMAP_SVG_VECTOR_MAX 256
#define LENS_HEATMAP_SVG_RASTER_MAX 1024

/* Where the parts of the figure land (figure units, origin top left), for tests and for
 * callers that annotate the figure. */
struct lens_heatmap_layout {
    double map_x, map_y, map_w, map_h;     /* cell (i, j) covers x in map_x + [j, j+1) *
                                            * map_w / cols, y in map_y + [i, i+1) * map_h / rows */
    double cbar_x, cbar_y, cbar_w, cbar_h; /* colour bar, vmax at the top */
    double hist_x, hist_y, hist_w, hist_h; /* histogram box; all 0 without histogram */
    double vmin, vmax;                     /* colour range used, displayed units */
    int row_step, col_step;                /* every row_step-th row (col_step-th column) is labelled */
    long long missing;                     /* cells drawn as missing */
};
/* Computes the layout and colour range the writers would use (same arguments).
 * Errors as for lens_heatmap_write_png, naming "heatmap". */
int lens_heatmap_layout(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                        struct lens_heatmap_layout *l, struct lens_err *e);

#endif
