/* The figure scaffold: the one protocol every figure follows (a kind with check, size and
 * paint; lens_figure_render puts it out as PNG, SVG or PNG bytes for the PDF), and the cairo
 * helpers the figures share: FreeType fonts, anchored text, nice ticks, number formats.
 * Units are whatever the surface uses: pixels for PNG, points for SVG and PDF. */
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

/* size raised to the print floor of cr (LENS_FIGURE_MIN_PT, see lens_figure_render), for
 * figures that change the size of the current face with cairo_set_font_size. */
double lens_figure_font_floor(cairo_t *cr, double size);

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

/* Encodes an image surface into *buf (lens_malloc'd, caller frees) / *len in this thread's
 * memory form (lens_figure_memory_form): PNG by default. For the few pictures drawn outside
 * the figure protocol (the rank chart of the problems report). */
int lens_figure_png_mem(cairo_surface_t *img, const char *name, unsigned char **buf,
                        size_t *len, struct lens_err *e);

/* What figures put into memory (path NULL) are for: PNG bytes (the default; tests decode
 * them), or bytes only lens_pdf_image_png reads. The PDF reports embed every figure, and
 * encoding a PNG for libharu to decode again cost most of their time, so lens_doc_write
 * switches to RAW (8-bit RGB pixels, composited over white, behind a 16-byte header) and,
 * on a layout pass that is never saved, to SIZE (the header alone: nothing is painted). */
enum lens_figure_memory { LENS_FIGURE_MEM_PNG = 0, LENS_FIGURE_MEM_RAW = 1, LENS_FIGURE_MEM_SIZE = 2 };
/* Sets the memory form of the calling thread; returns the previous one, to restore. */
int lens_figure_memory_form(int form);
/* Reads bytes of the RAW or SIZE form: 1 with *w x *h pixels and *rgb (3 bytes a pixel, row
 * by row; NULL for SIZE), 0 when buf is in neither form (a PNG), LENS_EFORMAT when the
 * header is there but the length does not match it. */
int lens_figure_raw_parse(const unsigned char *buf, size_t len, int *w, int *h,
                          const unsigned char **rgb);

/* 1 when path ends in ".svg", 0 for ".png" (any case), else LENS_EINVAL
 * "PATH: output must end in .png or .svg". */
int lens_figure_format(const char *path, struct lens_err *e);

/* ---- the figure protocol ----
 *
 * Every figure is a kind (check, size, paint) plus its data, and is put out by one function,
 * lens_figure_render: to a PNG or SVG file, or to PNG bytes, which is how the PDF reports
 * embed figures (lens_pdf_image_png). lens_figure_draw paints the same figure into a box of
 * any cairo_t (tests, composite pictures). The scaffold, not the figure, owns the surface,
 * the font face, the cairo status checks, the SVG id renumbering and the atomic write. */

/* Labels drawn so far, for the SVG text layer (opaque; see LENS_FIGURE_TEXT). */
struct lens_figure_text;

/* What a figure paints on. Borrowed from the scaffold for the duration of paint. */
struct lens_figure_canvas {
    cairo_t *cr;                   /* user space = the figure's box, origin top left */
    cairo_font_face_t *face;       /* the figure's font (font_path, or cairo's toy "sans") */
    double w, h;                   /* the box: pixels for PNG, points for SVG and PDF */
    int vector;                    /* 1 on SVG/PDF/PS targets: vectors where a PNG gets rasters */
    const char *name;              /* the figure in messages: the output path, or a label */
    struct lens_figure_text *text; /* SVG text layer of LENS_FIGURE_TEXT kinds, else NULL */
};

enum lens_figure_flags {
    LENS_FIGURE_ALPHA = 1, /* PNG drawn on ARGB32 (cairo writes RGBA once a pixel is not
                            * opaque) instead of RGB24; kept per figure so bytes do not change */
    LENS_FIGURE_TEXT = 2   /* SVG gets the figure's <title> and an invisible <text> copy of
                            * every label drawn with lens_figure_label (searchable) */
};

struct lens_figure_kind {
    const char *what; /* short name: PNGs in memory are "<what> png (memory)" in messages */
    unsigned flags;   /* enum lens_figure_flags */
    /* Validates data (sizes, options, values) before anything is allocated: LENS_EINVAL
     * or the data's own error, naming name. */
    int (*check)(const void *data, const char *name, struct lens_err *e);
    /* The natural size in pixels (PNG) / points (SVG); only called after check passed. A
     * PNG is (int)w x (int)h pixels, painted over the unrounded box. */
    void (*size)(const void *data, double *w, double *h);
    /* Draws the whole figure, background included, into c->cr over (0, 0, c->w, c->h).
     * cairo errors may stay on c->cr: the scaffold checks them after paint. */
    int (*paint)(const void *data, const struct lens_figure_canvas *c, struct lens_err *e);
};

/* The file format of lens_figure_render: by the name's extension (the default), or forced
 * for the writers whose contract says "PNG whatever the name". */
enum lens_figure_as { LENS_FIGURE_BY_NAME = 0, LENS_FIGURE_AS_PNG = 1, LENS_FIGURE_AS_SVG = 2 };

/* One figure to put out: a kind, its data and how to letter it. */
struct lens_figure {
    const struct lens_figure_kind *kind;
    const void *data;      /* borrowed */
    const char *font_path; /* TTF for the text (fonts/DejaVuSans.ttf); NULL: cairo's "sans" */
    const char *title;     /* SVG <title> of LENS_FIGURE_TEXT kinds; NULL: none */
    const char *name;      /* names a PNG in memory in messages; NULL: "<what> png (memory)" */
    int as;                /* enum lens_figure_as of a file; 0: by the extension */
};

/* Print: PNG bytes (path NULL) are for the PDF reports, which place a figure at most
 * LENS_FIGURE_PRINT_W points wide (the text width of an A4 page, render/doc/pdf.c). They are
 * drawn with at least LENS_FIGURE_PRINT_DPI pixels per inch at that width, and no text of
 * theirs is smaller than LENS_FIGURE_MIN_PT points there (lens_figure_set_font raises
 * smaller sizes). PNG and SVG files keep their natural size and fonts. */
#define LENS_FIGURE_PRINT_W 483.276
#define LENS_FIGURE_PRINT_DPI 300.0
#define LENS_FIGURE_MIN_PT 7.0

/* Pixels per unit of a figure w units wide put out as PNG bytes: at least 1, enough for
 * LENS_FIGURE_PRINT_DPI at LENS_FIGURE_PRINT_W points; the PNG is ceil(w * scale) x
 * ceil(h * scale) pixels. */
double lens_figure_print_scale(double w);

/* Puts f out: with path, a PNG or SVG file by the extension (or f->as), atomically (nothing
 * is left on error); with path NULL, PNG bytes into *buf (lens_malloc'd, caller frees) / *len.
 * Byte-identical output for the same data. Errors: LENS_EINVAL (extension, check), font
 * errors (lens_figure_font_load), LENS_ENOMEM, LENS_ELIB (cairo), LENS_EIO (writing), and
 * whatever paint returns; messages name path (or the memory name). */
int lens_figure_render(const struct lens_figure *f, const char *path, unsigned char **buf,
                       size_t *len, struct lens_err *e);

/* Paints f into the box (x, y, w, h) of cr, whatever its target (a PDF page, a test
 * surface), clipped to the box; cr's state is restored afterwards. Errors as check, font and
 * paint, naming f->name or the kind's what, and LENS_ELIB when cairo reports an error on cr. */
int lens_figure_draw(const struct lens_figure *f, cairo_t *cr, double x, double y, double w,
                     double h, struct lens_err *e);

/* Lays f out without drawing it, for the layout queries of tests and of callers that
 * annotate a figure: checks f, then calls fn with a canvas of the figure's natural size and
 * font whose cr only measures (a 1 x 1 image). Errors: those of check, the font, cairo, fn. */
typedef int (*lens_figure_measure_fn)(const void *data, const struct lens_figure_canvas *c, void *out,
                                      struct lens_err *e);
int lens_figure_measure(const struct lens_figure *f, lens_figure_measure_fn fn, void *out,
                        struct lens_err *e);

/* Draws s as lens_figure_text does and, when log is not NULL (an SVG of a LENS_FIGURE_TEXT
 * kind: pass the canvas's text), records it in device units for the text layer. */
void lens_figure_label(struct lens_figure_text *log, cairo_t *cr, double x, double y,
                       const char *s, double ha, double va, double angle);

/* Draws UTF-8 text s in lines no wider than maxw (broken at spaces), the first line's top
 * at y, lines 1.2 font sizes apart, each anchored by ha at x as lens_figure_label does (log
 * may be NULL); with draw 0 only counts. Returns the number of lines (0 for an empty s). For
 * titles, so that a long one wraps instead of being clipped at both ends. */
int lens_figure_text_wrap(struct lens_figure_text *log, cairo_t *cr, double x, double y, const char *s,
                          double maxw, double ha, int draw);

#endif
