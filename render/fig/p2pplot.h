/* Figures and tables of the point-to-point sweep (analysis/cube/p2pfile.h): latency, bandwidth
 * and message rate against message size on log-log axes, one line per pair (median solid,
 * mean dashed), pairs within a node drawn with circles and pairs across nodes with squares,
 * a legend of pair labels. As PNG or SVG files, as PNG bytes for the PDF, drawn into any
 * cairo_t, and as PDF tables. Output is byte-identical for the same input.
 *
 * 0-byte messages on a log axis: the x axis has a separate "0" column left of a break (//)
 * where the 0 B latency and message rate are drawn as unconnected markers; the bandwidth of
 * a 0 B message is 0 and is not drawn. lens_p2pplot_caption states this for each figure.
 *
 * For the PDF report, after its own heading: lens_p2pplot_pdf(pdf, f, NULL, e) adds the three
 * figures with captions and one table per pair. */
#ifndef LENS_P2PPLOT_H
#define LENS_P2PPLOT_H

#include "analysis/cube/cube.h"
#include "render/doc/doc.h"

#include <cairo.h>
#include <stddef.h>

enum lens_p2pplot_metric {
    LENS_P2PPLOT_LATENCY = 0,   /* one-way latency, drawn in µs */
    LENS_P2PPLOT_BANDWIDTH = 1, /* bandwidth, drawn in MB/s (10^6 bytes/s, as OSU) */
    LENS_P2PPLOT_RATE = 2,      /* message rate, messages/s */
    LENS_P2PPLOT_NMETRICS = 3
};

struct lens_p2pplot_opts {
    int width, height;     /* whole figure: pixels for PNG, points for SVG (default 900 x 560) */
    const char *font_path; /* TTF for the text (fonts/DejaVuSans.ttf); NULL: cairo's "sans" */
    const char *title;     /* NULL: the metric's own title, e.g. "One-way latency" */
    int show_mean;         /* 1 (default): the mean over the run as a dashed line too */
    int max_legend;        /* legend entries before "+ N more" (default 12) */
};

void lens_p2pplot_opts_init(struct lens_p2pplot_opts *o);

/* "latency", "bandwidth", "msg_rate" (file names); NULL outside the enum. */
const char *lens_p2pplot_metric_name(int metric);

/* Draws the figure for metric into the box (x, y, w, h) of cr (user units) with face (from
 * lens_figure_font_load). o NULL: the defaults; o->width/height are not used here. Pairs
 * without a positive value are left out; with nothing to draw the frame says so. cairo
 * errors stay on cr for the caller to check. Errors: LENS_EINVAL (metric, empty box). */
int lens_p2pplot_draw(cairo_t *cr, const struct lens_p2pfile *f, int metric,
                      const struct lens_p2pplot_opts *o, cairo_font_face_t *face, double x,
                      double y, double w, double h, struct lens_err *e);

/* Writes the figure to path: ".svg" is SVG, anything else PNG, through a temporary file.
 * Errors name path: LENS_EINVAL, LENS_EIO, LENS_ELIB, LENS_ENOMEM, font errors. */
int lens_p2pplot_write(const struct lens_p2pfile *f, int metric, const struct lens_p2pplot_opts *o,
                       const char *path, struct lens_err *e);
/* PNG bytes into *buf (lens_malloc'd, caller frees with lens_free) / *len. */
int lens_p2pplot_png_mem(const struct lens_p2pfile *f, int metric, const struct lens_p2pplot_opts *o,
                         unsigned char **buf, size_t *len, struct lens_err *e);
/* All three figures as DIR/STEM_{latency,bandwidth,msg_rate}.{png,svg}; makes DIR. */
int lens_p2pplot_write_dir(const struct lens_p2pfile *f, const struct lens_p2pplot_opts *o,
                           const char *dir, const char *stem, struct lens_err *e);

/* One or two sentences for under the figure: what is drawn, and how 0 B is treated. */
void lens_p2pplot_caption(const struct lens_p2pfile *f, int metric, char *buf, size_t n);

/* Message size for people: "512 B", "4 KiB", "1.5 MiB". */
void lens_p2pplot_format_size(long long bytes, char *buf, size_t n);

/* The table of one point, as the CLI prints it and the PDF shows it: size, latency median
 * and min (µs), bandwidth median (MB/s), message rate median (per s). "-" where the value is
 * not finite or, for bandwidth, at 0 B. */
#define LENS_P2PPLOT_NCOLS 5
extern const char *const lens_p2pplot_headers[LENS_P2PPLOT_NCOLS];
void lens_p2pplot_format_row(const struct lens_p2p_point *pt, char cells[LENS_P2PPLOT_NCOLS][32]);

/* Adds to pdf, at its cursor: the three figures (each scaled to the text width, at most
 * 300 points tall) with their captions, then for each pair a bold line with its label and
 * its table. o NULL: the defaults (font_path should be set for DejaVu text in the PNGs). */
int lens_p2pplot_pdf(struct lens_pdf *pdf, const struct lens_p2pfile *f,
                     const struct lens_p2pplot_opts *o, struct lens_err *e);

#endif
