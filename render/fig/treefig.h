/* What the tree figures (render/fig/dendrogram.c, render/fig/njtree.c) share: one drawing callback
 * written as PNG or SVG by the file's extension or as PNG bytes in memory, a searchable text
 * layer for SVG (cairo draws text as glyph outlines, so labels would not be in the file), the
 * cluster palette, leaf labels in the "host:rank" style and the rule that thins them out. */
#ifndef LENS_TREEFIG_H
#define LENS_TREEFIG_H

#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

/* Labels drawn so far, kept for the SVG text layer (opaque; NULL when not writing SVG). */
struct lens_treefig_text;

/* Paints one figure of w x h units at the origin of cr. Texts go through lens_treefig_label
 * with the log given, so that SVG output carries them as text. Returns LENS_OK or an error. */
typedef int (*lens_treefig_draw_fn)(void *ctx, cairo_t *cr, double w, double h,
                                    struct lens_treefig_text *log, struct lens_err *e);

enum lens_treefig_format { LENS_TREEFIG_PNG = 0, LENS_TREEFIG_SVG = 1 };

/* Format of path by its extension (".png" or ".svg", any case), or LENS_EINVAL naming path. */
int lens_treefig_format(const char *path, struct lens_err *e);

/* Writes a width x height figure (pixels for PNG, points for SVG) to path, PNG or SVG by the
 * extension, through a temporary file: on error nothing is left. The SVG gets `title` as its
 * <title> and an invisible <text> copy of every label over the drawn glyphs (searchable,
 * selectable). Byte-identical output for the same drawing. Errors: LENS_EINVAL (extension,
 * size outside 160..16384), LENS_EIO, LENS_ENOMEM, LENS_ELIB, and whatever draw returns. */
int lens_treefig_write(const char *path, int width, int height, const char *title,
                       lens_treefig_draw_fn draw, void *ctx, struct lens_err *e);
/* The same as PNG bytes in memory (*buf lens_malloc'd, caller frees with lens_free). */
int lens_treefig_png_mem(int width, int height, lens_treefig_draw_fn draw, void *ctx,
                         unsigned char **buf, size_t *len, struct lens_err *e);

/* Draws s at (x, y) with anchors ha/va and angle as lens_figure_text does, in the current
 * font and colour, and records it in log (if not NULL) in device coordinates. */
void lens_treefig_label(struct lens_treefig_text *log, cairo_t *cr, double x, double y,
                        const char *s, double ha, double va, double angle);

/* Colour number c (any c >= 0; the palette of 9 repeats) of the qualitative palette: the
 * matplotlib "tab10" colours without their grey, which stays for links above a cut. */
#define LENS_TREEFIG_NCOLORS 9
void lens_treefig_color(int c, double rgb[3]);
/* The colour of links that belong to no cluster (above the cut): dark grey. */
void lens_treefig_color_none(double rgb[3]);

/* A leaf label for the figures from a distance-matrix label: "r17@node03" -> "node03:17",
 * "r17" -> "17", anything else (a CSV header label) unchanged, NULL -> the index. */
void lens_treefig_leaf_label(const char *label, int index, char *buf, size_t n);

/* Groups of processes by host from distance-matrix labels ("r<rank>@<host>"): group[i] is
 * the number of i's host in order of first appearance. Returns the number of hosts, or 0
 * (group untouched) when labels is NULL or a label names no host. */
int lens_treefig_host_groups(const char *const *labels, int n, int *group);

/* Leaves are labelled in full up to this many leaves; above it by index (the rank) only. */
#define LENS_TREEFIG_FULL_LABELS 128

/* Label step for n leaves spaced `spacing` apart with text of height `size`: the smallest of
 * 1, 2, 5, 10, 20, ... that keeps labels at least 1.1 x size apart. */
int lens_treefig_label_step(int n, double spacing, double size);

/* Checks the box of the in-place drawing functions: LENS_EINVAL (naming name) unless w and h
 * are finite and at least 160 x 120 units. */
int lens_treefig_check_box(const char *name, double w, double h, struct lens_err *e);

#endif
