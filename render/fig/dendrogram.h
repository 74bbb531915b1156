/* The dendrogram of an agglomerative clustering (scipy's linkage Z from analysis/structure/hclust.h) as
 * PNG or SVG or drawn into a cairo context: leaves in the dendrogram order the caller gives,
 * labelled by host and rank, links coloured by the clusters of the caller's cut, a height
 * axis, a cut line and a legend. The order and the cut are inputs, computed once by
 * analysis/structure/structure.h; this file only lays them out. Also the heatmap of a matrix with its
 * processes reordered by the tree, so that the clusters show as blocks. */
#ifndef LENS_DENDROGRAM_H
#define LENS_DENDROGRAM_H

#include "analysis/structure/structure.h"
#include "common/err.h"
#include "heatmap.h"

#include <cairo.h>
#include <stddef.h>

struct lens_dendrogram_opts {
    const char *title;         /* UTF-8 title above the plot; NULL: none */
    const char *method;        /* linkage method named in the legend ("average"); NULL: none */
    const char *unit;          /* unit of the displayed heights, e.g. "µs"; NULL: none */
    double scale;              /* heights are multiplied by this for display (1e6: s -> µs) */
    const char *const *labels; /* n leaf labels by leaf index, drawn as they are (see
                                * lens_treefig_leaf_label for "node03:17"); NULL: the index */
    const int *order;          /* n leaves in dendrogram order (struct lens_structure's order,
                                * scipy's leaves_list); required */
    int k;                     /* colour the k clusters of the cut (1..n); 0: no cut drawn */
    const int *cluster;        /* n clusters 0..k-1 of the leaves at that cut (struct
                                * lens_structure's label); required when k >= 1 */
    const char *cut_note;      /* how k was chosen, shown in the legend ("largest gap"); NULL */
    /* n host colour numbers (lens_hostcolour_groups, by leaf index) colouring the leaf labels
     * "node03:17" as the NJ tree and the host bands colour that host; the links and the strip
     * keep the cut's colours. NULL (default) or -1: the label takes its cluster's colour. */
    const int *host_group;
    int width, height;         /* whole figure: pixels for PNG, points for SVG */
    const char *font_path;     /* TTF for the text (fonts/DejaVuSans.ttf); NULL: cairo's "sans" */
};

/* Defaults: no title or method, unit "µs", scale 1e6 (heights in seconds), index labels,
 * no order (the caller must give one), no cut, 1000 x 640, cairo's font. */
void lens_dendrogram_opts_init(struct lens_dendrogram_opts *o);

/* The cuts (automatic, by k, by height) are analysis/structure/structure.h's. */
/* The height (Z units) where the cut into k clusters is drawn: halfway between the highest
 * merge kept and the first merge not kept (k = n: half the lowest merge; k = 1: the root). */
double lens_dendrogram_cut_level(const struct lens_hclust_step *z, int n, int k);

/* Draws the dendrogram into the box (x, y, w, h) of cr (user units; w >= 160, h >= 120),
 * white background included; cr's state is restored. n >= 2 leaves, z of n-1 rows as
 * lens_hclust_run writes them. o is required (for its order). Leaves are drawn in o->order. With n <= LENS_TREEFIG_FULL_LABELS
 * every leaf is labelled in full when the labels fit; otherwise by index, every step-th leaf
 * (1, 2, 5, 10, ...) as room allows. Cluster colours go left to right through the palette.
 * Errors: LENS_EINVAL (n, k, box, z not a valid linkage, no order or not a permutation, a
 * cluster outside 0..k-1), LENS_ENOMEM, LENS_ELIB (cairo),
 * font errors of lens_figure_font_load. */
int lens_dendrogram_draw(cairo_t *cr, double x, double y, double w, double h,
                         const struct lens_hclust_step *z, int n,
                         const struct lens_dendrogram_opts *o, struct lens_err *e);
/* Writes the o->width x o->height figure to path, PNG or SVG by its extension (any other is
 * LENS_EINVAL), atomically; the SVG carries every drawn label as text. Byte-identical output
 * for the same input. Errors as for lens_dendrogram_draw plus LENS_EIO, naming path. */
int lens_dendrogram_write(const struct lens_hclust_step *z, int n,
                          const struct lens_dendrogram_opts *o, const char *path,
                          struct lens_err *e);
/* The figure as PNG bytes (*buf lens_malloc'd, caller frees), for embedding in the PDF. */
int lens_dendrogram_png_mem(const struct lens_hclust_step *z, int n,
                            const struct lens_dendrogram_opts *o, unsigned char **buf,
                            size_t *len, struct lens_err *e);

/* Square n x n row-major matrix a with rows and columns reordered: out[i][j] =
 * a[order[i]][order[j]] (out caller-allocated, not overlapping a). order is a permutation
 * of 0..n-1, e.g. struct lens_structure's order. */
void lens_dendrogram_permute(const double *a, int n, const int *order, double *out);

/* Heatmap (render/fig/heatmap.h) of the square n x n matrix a with processes in `order`; the
 * axis labels name the original processes: labels[order[i]] when labels is given, else the
 * original index. o->labels is ignored (NULL o: the heatmap defaults); o->hosts, by original
 * process, are permuted with the rows, so each host band stays beside its processes. PNG or SVG by the
 * extension of path, or PNG bytes in memory. Errors as lens_heatmap_write_png, LENS_EINVAL
 * (extension, order not a permutation), LENS_ENOMEM. */
int lens_dendrogram_heatmap_write(const double *a, int n, const int *order,
                                  const char *const *labels, const struct lens_heatmap_opts *o,
                                  const char *path, struct lens_err *e);
int lens_dendrogram_heatmap_png_mem(const double *a, int n, const int *order,
                                    const char *const *labels,
                                    const struct lens_heatmap_opts *o, unsigned char **buf,
                                    size_t *len, struct lens_err *e);

#endif
