/* The cube sliced along message length, original against compressed (Figure 7 of Salnikov et al.):
 * for a few lengths, the original P x P matrix next to the one decoded from the packed cube
 * (analysis/cube/packed.h), both on one colour scale per length, with the measured relative
 * error (max and RMS) of that length in the row's caption. Written as PNG or SVG (by the
 * extension), into memory as PNG for the PDF, or drawn into any cairo context; deterministic. */
#ifndef LENS_SLICES_H
#define LENS_SLICES_H

#include "analysis/cube/cube.h"
#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

#define LENS_SLICES_MAX 8 /* most slices one figure shows */

/* The matrices to draw (all arrays owned, lens_slices_free). Fill orig and dec yourself
 * after lens_slices_new, or let lens_slices_from_packed / _from_stream do it. */
struct lens_slices {
    int procs, n;          /* P, slices (1..LENS_SLICES_MAX) */
    int stat;              /* enum lens_stat the matrices are, for the title */
    double bound;          /* the compressor's relative error bound, NaN if unknown */
    int *lengths;          /* n message lengths, bytes */
    double *orig, *dec;    /* n x P x P seconds each: slice t at t * P * P, row-major */
    double *err_max;       /* n: largest |dec - orig| / |orig| (lens_slices_measure) */
    double *err_rms;       /* n: root mean square of the same */
    long *err_n;           /* n: elements measured: off-diagonal, orig finite */
};

/* Allocates n slices of P x P (orig and dec zeroed, errors 0, bound NaN, stat median).
 * Errors: LENS_EINVAL (P < 1, n outside 1..LENS_SLICES_MAX), LENS_ENOMEM. */
int lens_slices_new(struct lens_slices **out, int procs, int n, struct lens_err *e);
void lens_slices_free(struct lens_slices *s); /* NULL does nothing */

/* Measures err_* of every slice from orig and dec with packed.c's rule: over off-diagonal
 * elements with a finite original v, r = |v' - v| / |v| (0 when both are 0, infinite when
 * only v is). */
void lens_slices_measure(struct lens_slices *s);

/* Which lengths to show: for each of want[0..nwant) (bytes) the index of the nearest length
 * of lengths[0..nlen) (ties: the smaller), duplicates removed, ascending, at most
 * LENS_SLICES_MAX; want NULL: the first, middle (nlen / 2) and last. Returns the count. */
int lens_slices_pick(const int *lengths, int nlen, const int *want, int nwant, int idx[LENS_SLICES_MAX]);

/* Slices of statistic stat of c (its data in memory) and of p (that statistic packed),
 * decoded with lens_packed_decoder_next, at the lengths lens_slices_pick chooses; errors measured.
 * Errors: LENS_EINVAL (stat absent from c, p of another size), LENS_ENOMEM, decoder errors. */
int lens_slices_from_packed(const struct lens_cube *c, int stat, const struct lens_packed *p, const int *want,
                            int nwant, struct lens_slices **out, struct lens_err *e);

/* The same from a cube streamed from disk (analysis/cube/cube.h): only the picked lengths are
 * read, with lens_cube_stream_read. Errors as lens_slices_from_packed plus the reader's. */
int lens_slices_from_stream(struct lens_cube_stream *in, int stat, const struct lens_packed *p, const int *want,
                            int nwant, struct lens_slices **out, struct lens_err *e);

/* The one call of `mpilens compress --plot`: slices of the median (else the first statistic
 * both in the stream and in p) at the picked lengths, written to path (lens_slices_write with
 * default options and font_path). summary (may be NULL) receives "PATH, median: 0 B max error
 * 1.2% RMS 0.5%; ...". Errors name path, as lens_slices_from_stream and lens_slices_write. */
int lens_slices_plot_stream(const char *path, struct lens_cube_stream *in, struct lens_packed *const p[LENS_STAT_COUNT],
                            const int *want, int nwant, const char *font_path, char *summary, size_t n,
                            struct lens_err *e);

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
int lens_slices_draw(cairo_t *cr, double x, double y, double w, double h, const struct lens_slices *s,
                     const struct lens_slices_opts *o, struct lens_err *e);
/* Writes the figure to path atomically (".png" or ".svg", else LENS_EINVAL); errors name
 * path and leave nothing behind. */
int lens_slices_write(const char *path, const struct lens_slices *s, const struct lens_slices_opts *o,
                      struct lens_err *e);
/* The figure as PNG bytes: *buf is lens_malloc'd (caller lens_frees), *len its size. */
int lens_slices_png_mem(const struct lens_slices *s, const struct lens_slices_opts *o, unsigned char **buf,
                        size_t *len, struct lens_err *e);

/* Where the writers put slice t (figure units): the original's panel at (orig_x, y), the
 * decoded one at (dec_x, y), the relative error's at (err_x, y), all side x side, cell (i, j)
 * covering [j, j+1) * side / P across and [i, i+1) * side / P down. Delays map [vmin, vmax]
 * (seconds) onto viridis; errors [0, emax] onto the grey ramp (light = 0), emax being the
 * bound, or the slice's largest error when the bound is unknown. */
struct lens_slices_layout {
    double orig_x[LENS_SLICES_MAX], dec_x[LENS_SLICES_MAX], err_x[LENS_SLICES_MAX], y[LENS_SLICES_MAX], side;
    double vmin[LENS_SLICES_MAX], vmax[LENS_SLICES_MAX], emax[LENS_SLICES_MAX];
    int width, height;        /* the figure size the writers use */
};
int lens_slices_layout(const struct lens_slices *s, const struct lens_slices_opts *o, struct lens_slices_layout *l,
                       struct lens_err *e);

#endif
