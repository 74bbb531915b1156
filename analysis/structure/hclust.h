/* Agglomerative hierarchical clustering of processes with the seven Lance-Williams methods, by
 * Muellner's fast algorithms (arXiv:1109.2378): MST for single, nearest-neighbour chain for
 * complete/average/weighted/Ward, the generic algorithm for centroid/median. The result is
 * scipy.cluster.hierarchy.linkage's Z matrix, row for row. Memory: the condensed matrix + O(n). */
#ifndef LENS_HCLUST_H
#define LENS_HCLUST_H

#include <stddef.h>

#include "common/err.h"

enum lens_hclust_method {
    LENS_HCLUST_SINGLE = 0,
    LENS_HCLUST_COMPLETE,
    LENS_HCLUST_AVERAGE,  /* UPGMA */
    LENS_HCLUST_WEIGHTED, /* WPGMA, McQuitty */
    LENS_HCLUST_CENTROID, /* UPGMC, for Euclidean distances */
    LENS_HCLUST_MEDIAN,   /* WPGMC, for Euclidean distances */
    LENS_HCLUST_WARD,     /* for Euclidean distances */
    LENS_HCLUST_NMETHODS
};

/* One merge: row i of scipy's Z. Leaves are 0..n-1 and merge i creates cluster n + i;
 * left < right, as scipy writes them. */
struct lens_hclust_step {
    int left, right; /* clusters joined */
    double height;   /* distance between them when joined (unit of the input) */
    int size;        /* leaves in the new cluster */
};

/* "single", "complete", ... ; parse returns -1 for an unknown name. */
const char *lens_hclust_method_name(int method);
int lens_hclust_method_parse(const char *name);

/* Clusters n >= 2 objects from the condensed distances d (n(n-1)/2 values in scipy's order,
 * finite and >= 0). d is used as the working matrix and is overwritten by every method except
 * single; the caller keeps ownership. z receives n-1 steps (caller-allocated).
 * Returns LENS_EINVAL (bad n or method), LENS_ENOMEM, LENS_EDATA for a NaN or infinite
 * distance (naming the two objects), or LENS_EDATA if a centroid/median/Ward
 * update under the square root is clearly negative (impossible in exact arithmetic since the
 * merged pair is the closest; a guard against NaN heights). Extra memory is O(n). */
int lens_hclust_run(double *d, int n, int method, struct lens_hclust_step *z, struct lens_err *e);

/* Leaves in dendrogram order (scipy's leaves_list: root first, left before right). order
 * receives n indices (caller-allocated, as label below). LENS_ENOMEM. */
int lens_hclust_leaf_order(const struct lens_hclust_step *z, int n, int *order,
                           struct lens_err *e);

/* The automatic cut, shared by `mpilens cluster --cut auto` and the report. Cutting after the
 * first m merges leaves k = n - m groups; each group was formed by its highest merge inside,
 * and the groups start to join at the next merge height. The cut is placed where that next
 * height is the most times higher than the median over the groups of their inside heights
 * (singletons left out), if at least LENS_HCLUST_GAP_MIN times; else k = 1. The median, not
 * the largest inside height, keeps one slow node (all its delays higher) from hiding the level
 * of the nodes. A cut must also sit in a real step: the next merge at least 1.1 times the last
 * one below it, so it never falls between merges of one level that differ only by noise.
 * Heights below 1e-3 x the root height count as that (identical processes give no huge
 * ratios). Only k <= 256 is considered, which bounds the cost. z must be in merge (height)
 * order, as lens_hclust_run returns it. Ties: fewer groups. */
#define LENS_HCLUST_GAP_MIN 1.5
struct lens_hclust_autocut {
    int k;        /* groups chosen; 1 when no cut reaches LENS_HCLUST_GAP_MIN */
    double ratio; /* high / low at the best cut (1 when there is none) */
    double low;   /* the groups' median inside height there (Z units) */
    double high;  /* the next merge height there (Z units) */
};
/* LENS_EINVAL for n < 2, LENS_ENOMEM. */
int lens_hclust_cut_auto(const struct lens_hclust_step *z, int n, struct lens_hclust_autocut *cut,
                         struct lens_err *e);

/* Flat clusters after the first n-k merges (k in 1..n): label[i] in 0..k-1, numbered in the
 * order of each cluster's smallest leaf. LENS_EINVAL, LENS_ENOMEM. */
int lens_hclust_cut(const struct lens_hclust_step *z, int n, int k, int *label,
                    struct lens_err *e);

/* Writes Z as CSV: a header "left,right,height,size" then n-1 rows, heights with 17
 * significant digits. Through a temporary file. LENS_EIO. */
int lens_hclust_write_csv(const struct lens_hclust_step *z, int n, const char *path,
                          struct lens_err *e);

#endif
