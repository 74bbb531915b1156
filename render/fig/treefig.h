/* What the tree figures (render/fig/dendrogram.c, render/fig/njtree.c) share besides the
 * figure protocol (figure.h, whose LENS_FIGURE_TEXT layer makes their SVG labels searchable):
 * the size rules, the cluster palette, leaf labels in the "host:rank" style and the rule
 * that thins them out. */
#ifndef LENS_TREEFIG_H
#define LENS_TREEFIG_H

#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

enum lens_treefig_format { LENS_TREEFIG_PNG = 0, LENS_TREEFIG_SVG = 1 };

/* Format of path by its extension (".png" or ".svg", any case), or LENS_EINVAL naming path
 * (lens_figure_format). */
int lens_treefig_format(const char *path, struct lens_err *e);

/* The size rule of the tree figures' files: LENS_EINVAL (naming name) unless width x height
 * is within 160x120 .. 16384x16384 (pixels for PNG, points for SVG). */
int lens_treefig_check_size(const char *name, int w, int h, struct lens_err *e);

/* Colour number c (any c >= 0; the palette of 9 repeats) of the qualitative palette: the
 * matplotlib "tab10" colours without their grey, which stays for links above a cut. */
#define LENS_TREEFIG_NCOLORS 9
void lens_treefig_color(int c, double rgb[3]);
/* The colour of links that belong to no cluster (above the cut): dark grey. */
void lens_treefig_color_none(double rgb[3]);

/* A leaf label for the figures from a distance-matrix label: "r17@node03" -> "node03:17",
 * "r17" -> "17", anything else (a CSV header label) unchanged, NULL -> the index. */
void lens_treefig_leaf_label(const char *label, int index, char *buf, size_t n);

/* The host of a distance-matrix label "r<rank>@<host>": a pointer into label, or NULL for
 * any other label (a CSV header, "r17" without host, NULL). */
const char *lens_treefig_host_of(const char *label);

/* Groups of processes by host from distance-matrix labels ("r<rank>@<host>"): group[i] is
 * the place of i's host among the sorted distinct hosts, the colour number of hostcolour.h.
 * Returns the number of hosts, or 0 (group untouched) when labels is NULL or a label names
 * no host; LENS_ENOMEM (negative) when the map cannot be built. */
int lens_treefig_host_groups(const char *const *labels, int n, int *group, struct lens_err *e);

/* Leaves are labelled in full up to this many leaves; above it by index (the rank) only. */
#define LENS_TREEFIG_FULL_LABELS 128

/* Label step for n leaves spaced `spacing` apart with text of height `size`: the smallest of
 * 1, 2, 5, 10, 20, ... that keeps labels at least 1.1 x size apart. */
int lens_treefig_label_step(int n, double spacing, double size);

/* Checks the box of the in-place drawing functions: LENS_EINVAL (naming name) unless w and h
 * are finite and at least 160 x 120 units. */
int lens_treefig_check_box(const char *name, double w, double h, struct lens_err *e);

#endif
