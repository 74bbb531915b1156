/* Cairo helpers shared by the figures (heatmap, histogram, later charts): fonts through
 * FreeType, anchored text, nice axis ticks, number formats, cairo status -> lens_err, and
 * writing PNG/SVG deterministically through lens_atomic or into memory.
 * Units are whatever the surface uses: pixels for PNG, points for SVG. */
#ifndef LENS_FIGURE_H
#define LENS_FIGURE_H

#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

/* A font face for cairo: the TTF at font_path through FreeType, or cairo's toy "sans" when
 * font_path is NULL. The caller owns the returned reference (cairo_font_face_destroy); the
 * FreeType face lives as long as cairo needs it. Errors: LENS_EIO (file cannot be read),
 * LENS_EFORMAT (not a font FreeType understands), LENS_ELIB. Messages name font_path. */
int lens_figure_font_load(const char *font_path, cairo_font_face_t **face, struct lens_err *e);

/* Selects face at size (user units) with hinting off, so layout does not depend on the
 * device and output stays byte-identical. */
void lens_figure_set_font(cairo_t *cr, cairo_font_face_t *face, double size);

/* Advance width of UTF-8 text s in the current font. */
double lens_figure_text_width(cairo_t *cr, const char *s);

/* Draws UTF-8 text s anchored at (x, y): ha 0 left, 0.5 centre, 1 right of the advance;
 * va 0 top of the ascent, 0.5 middle, 1 bottom of the descent; rotated by angle radians
 * about the anchor (-M_PI/2 reads upwards). Uses the current source colour. */
void lens_figure_text(cairo_t *cr, double x, double y, const char *s, double ha, double va,
                      double angle);

/* Copies s into buf, cut to at most maxcp UTF-8 code points with a trailing "…" when cut. */
void lens_figure_ellipsize(const char *s, int maxcp, char *buf, size_t n);

/* Up to max_ticks "nice" tick values (1, 2, 5 x 10^k steps) inside [lo, hi] into ticks[];
 * returns how many and sets *step (0 for decade ticks). With log_scale and at least two
 * decades in range, ticks are powers of ten (plus 2x and 5x when few). lo < hi. */
int lens_figure_ticks(double lo, double hi, int log_scale, int max_ticks, double *ticks,
                      double *step);

/* Formats a tick value: decimals suited to step (0: %g), "%.3g" for very large/small. */
void lens_figure_format_value(double v, double step, char *buf, size_t n);
/* Formats a count compactly: 950, 12k, 3.5M, 2G. */
void lens_figure_format_count(double v, char *buf, size_t n);

/* Turns the first error recorded on cr or its target into LENS_ELIB with "name: cairo: ...". */
int lens_figure_status(cairo_t *cr, const char *name, struct lens_err *e);

/* A growing byte buffer that cairo stream writers fill (lens_malloc'd; failed set on ENOMEM). */
struct lens_figure_buf {
    unsigned char *data; /* owned, lens_free */
    size_t len, cap;     /* bytes used / allocated */
    int failed;          /* 1 once an allocation failed */
};
/* cairo_write_func_t appending to a struct lens_figure_buf closure. */
cairo_status_t lens_figure_buf_write(void *closure, const unsigned char *data, unsigned int len);

/* Encodes an image surface as PNG into *buf (lens_malloc'd, caller frees) / *len. */
int lens_figure_png_mem(cairo_surface_t *img, const char *name, unsigned char **buf,
                        size_t *len, struct lens_err *e);
/* Encodes an image surface as PNG into path atomically (temporary + rename). */
int lens_figure_png_write(cairo_surface_t *img, const char *path, struct lens_err *e);

/* SVG surface of w x h points that writes into svg (which must be zeroed). Finish it with
 * lens_figure_svg_commit; the surface may be in an error state (checked there). */
cairo_surface_t *lens_figure_svg_create(struct lens_figure_buf *svg, double w, double h);
/* Finishes and destroys surface, makes the ids deterministic (cairo numbers images and
 * surfaces by a process-wide counter), asks viewers not to smooth embedded rasters, and
 * writes the document to path atomically. Always frees svg's data. */
int lens_figure_svg_commit(cairo_surface_t *surface, struct lens_figure_buf *svg,
                           const char *path, struct lens_err *e);

/* 1 when path ends in ".svg", 0 for ".png", else LENS_EINVAL "PATH: the picture must end in
 * .png or .svg". */
int lens_figure_format(const char *path, struct lens_err *e);

/* Paints a whole figure of w x h units into cr (name: for error messages). */
typedef int (*lens_figure_draw_fn)(void *ctx, cairo_t *cr, double w, double h, const char *name,
                                   struct lens_err *e);
/* The one output path of the figures drawn by a callback: a w x h figure to path, PNG (pixels)
 * or SVG (points) by its extension, atomically; or, with path NULL, PNG bytes into *buf / *len
 * (lens_malloc'd, caller frees; name then labels the errors). Nothing is left on error. */
int lens_figure_output(const char *path, const char *name, int w, int h, lens_figure_draw_fn draw,
                       void *ctx, unsigned char **buf, size_t *len, struct lens_err *e);

#endif
