/* The figure of a cube sliced along message length, original against compressed (Figure 7 of
 * Salnikov et al.): for a few lengths, the original P x P matrix next to the one decoded from
 * the packed cube, both on one colour scale per length, the map of their relative error, and
 * the measured error (max and RMS) of that length in the row's caption. The slices come
 * finished from analysis/cube/cube_slices.h (struct lens_cube_slices); this only draws them.
 * Written as PNG or SVG (by the extension), into memory as PNG for the PDF, or drawn into any
 * cairo context; deterministic. */
#ifndef LENS_SLICES_H
#define LENS_SLICES_H

#include "analysis/cube/cube.h"
#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

struct lens_slices_opts {
    const char *title;        /* UTF-8; NULL: "<stat> delay sliced along message length: original
                               * against compressed" */
    int width, height;        /* figure for the writers; height 0: 110 + 330 per slice (PNG
                               * pixels, SVG points) */
    const char *font_path;    /* TTF for the text (fonts/DejaVuSans.ttf); NULL: toy "sans" */
};
void lens_slices_opts_init(struct lens_slices_opts *o); /* 1200 x automatic, toy font */

/* Draws the figure into the box (x, y, w, h) of cr, background included; cr's state is
 * saved and restored. Row t: caption, original, decoded, a colour bar for both (range of the
 * two over the off-diagonal finite elements; the diagonal is drawn as missing), and the map
 * of the relative error of each element with its own bar (0 to the bound).
 * Errors: LENS_EINVAL (bad s, box too small), LENS_ELIB (cairo), LENS_ENOMEM, font errors. */
int lens_slices_draw(cairo_t *cr, double x, double y, double w, double h, const struct lens_cube_slices *s,
                     const struct lens_slices_opts *o, struct lens_err *e);
/* Writes the figure to path atomically (".png" or ".svg", else LENS_EINVAL); errors name
 * path and leave nothing behind. */
int lens_slices_write(const char *path, const struct lens_cube_slices *s, const struct lens_slices_opts *o,
                      struct lens_err *e);
/* The figure as PNG bytes: *buf is lens_malloc'd (caller lens_frees), *len its size. */
int lens_slices_png_mem(const struct lens_cube_slices *s, const struct lens_slices_opts *o, unsigned char **buf,
                        size_t *len, struct lens_err *e);

/* Where the writers put slice t (figure units): the original's panel at (orig_x, y), the
 * decoded one at (dec_x, y), the relative error's at (err_x, y), all side x side, cell (i, j)
 * covering [j, j+1) * side / P across and [i, i+1) * side / P down. Delays map [vmin, vmax]
 * (seconds) onto viridis; errors [0, emax] onto the grey ramp (light = 0), emax being the
 * bound, or the slice's largest error when the bound is unknown. */
struct lens_slices_layout {
    double orig_x[LENS_CUBE_SLICES_MAX], dec_x[LENS_CUBE_SLICES_MAX], err_x[LENS_CUBE_SLICES_MAX], y[LENS_CUBE_SLICES_MAX], side;
    double vmin[LENS_CUBE_SLICES_MAX], vmax[LENS_CUBE_SLICES_MAX], emax[LENS_CUBE_SLICES_MAX];
    int width, height;        /* the figure size the writers use */
};
int lens_slices_layout(const struct lens_cube_slices *s, const struct lens_slices_opts *o, struct lens_slices_layout *l,
                       struct lens_err *e);

#endif
