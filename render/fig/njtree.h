/* The neighbor-joining tree of processes (analysis/structure/nj.h, or any struct lens_newick) drawn as
 * a rooted rectangular phylogram: root on the left, leaves on the right in a column,
 * horizontal branches to scale with a scale bar, leaves and whole clades coloured by group
 * (e.g. by host). PNG or SVG by the file's extension, PNG in memory, or into a cairo context. */
#ifndef LENS_NJTREE_H
#define LENS_NJTREE_H

#include "analysis/structure/structure.h"
#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

/* Where the unrooted NJ tree is rooted for drawing. */
enum lens_njtree_root {
    LENS_NJTREE_MIDPOINT = 0, /* midpoint of the longest leaf-to-leaf path (the default) */
    LENS_NJTREE_AS_BUILT = 1  /* the tree's own root: NJ's last join, of degree 3 */
};

struct lens_njtree_opts {
    const char *title;         /* UTF-8 title above the tree; NULL: none */
    const char *unit;          /* unit of the displayed lengths, e.g. "µs"; NULL: none */
    double scale;              /* branch lengths are multiplied by this for display */
    const char *const *labels; /* nleaf leaf labels; NULL: the tree's labels, else the index */
    const int *group;          /* nleaf group numbers >= 0 colouring leaves and every clade whose
                                * leaves share one group (hosts: lens_treefig_host_groups);
                                * NULL or a negative entry: no colour */
    int root;                  /* enum lens_njtree_root */
    int width, height;         /* pixels for PNG, points for SVG */
    const char *font_path;     /* TTF for the text; NULL: cairo's "sans" */
};

/* Defaults: no title, unit "µs", scale 1e6 (lengths in seconds), the tree's labels, no
 * groups, midpoint root, 1000 x 700, cairo's font. */
void lens_njtree_opts_init(struct lens_njtree_opts *o);

/* Leaves top to bottom as drawn with the given root: depth-first from the root, children
 * in "ladderized" order (fewer leaves first, ties by the smallest leaf number). Negative
 * branch lengths (NJ may give them) count as 0 for the midpoint, as in the picture.
 * order receives t->nleaf leaf numbers. LENS_EINVAL (not a tree), LENS_ENOMEM. */
int lens_njtree_leaf_order(const struct lens_newick *t, int root, int *order, struct lens_err *e);

/* Draws the tree into the box (x, y, w, h) of cr (w >= 160, h >= 120), background included;
 * cr's state is restored. o NULL: defaults. Leaves are labelled in full up to
 * LENS_TREEFIG_FULL_LABELS leaves when they fit, else by index, every step-th as room allows.
 * Errors: LENS_EINVAL (tree, options, box), LENS_ENOMEM, LENS_ELIB, font errors. */
int lens_njtree_draw(cairo_t *cr, double x, double y, double w, double h,
                     const struct lens_newick *t, const struct lens_njtree_opts *o,
                     struct lens_err *e);
/* Writes the o->width x o->height figure to path, PNG or SVG by the extension (others are
 * LENS_EINVAL), atomically and byte-identically for the same input; the SVG carries the
 * drawn labels as text. Errors name path. */
int lens_njtree_write(const struct lens_newick *t, const struct lens_njtree_opts *o,
                      const char *path, struct lens_err *e);
/* The figure as PNG bytes (*buf lens_malloc'd, caller frees), for embedding in the PDF. */
int lens_njtree_png_mem(const struct lens_newick *t, const struct lens_njtree_opts *o,
                        unsigned char **buf, size_t *len, struct lens_err *e);

#endif
