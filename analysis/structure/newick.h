/* Trees of processes as Newick text: the tree type shared by hierarchical clustering and
 * neighbor joining, the writer (labels quoted when they need it), a small parser and the
 * Robinson-Foulds comparison used by the tests. */
#ifndef LENS_NEWICK_H
#define LENS_NEWICK_H

#include <stdio.h>

#include "common/err.h"
#include "hclust.h"

/* A tree with leaves 0..nleaf-1 and internal nodes nleaf..nnode-1; the root is nnode-1.
 * Internal nodes have 2 or 3 children (an unrooted NJ tree has a root of degree 3). */
struct lens_newick {
    int nleaf, nnode;
    int *child;    /* 3 per internal node: child[3 * (u - nleaf) + c], -1 when unused */
    double *len;   /* nnode branch lengths to the parent (input units); the root's is 0 */
    char **labels; /* nleaf leaf labels (owned) when parsed, NULL otherwise */
};

/* An empty tree with nleaf leaves and ninternal internal nodes, children -1, lengths 0. The
 * caller owns *out (free with lens_newick_free). LENS_EINVAL (nleaf < 1), LENS_ENOMEM. */
int lens_newick_new(struct lens_newick **out, int nleaf, int ninternal, struct lens_err *e);
void lens_newick_free(struct lens_newick *t);

/* The dendrogram of a linkage Z (n leaves) as a rooted binary tree; a branch is the height
 * of the parent minus the height of the child (leaves at 0). LENS_EINVAL, LENS_ENOMEM. */
int lens_newick_from_hclust(const struct lens_hclust_step *z, int n, struct lens_newick **out,
                            struct lens_err *e);

/* Writes "(...);\n". Leaf names come from labels (n strings), else t->labels, else the leaf
 * index. Names that are not plain [A-Za-z0-9.@/+-] (an underscore means a blank in Newick, so
 * it is quoted too) are single-quoted with ' doubled. Lengths use 17 significant digits.
 * Returns LENS_EIO if the stream reports an error, LENS_ENOMEM. */
int lens_newick_write(const struct lens_newick *t, const char *const *labels, FILE *fp,
                      struct lens_err *e);
/* The same into path through a temporary file (atomic: no partial file on failure). */
int lens_newick_save(const struct lens_newick *t, const char *const *labels, const char *path,
                     struct lens_err *e);

/* Parses one Newick tree whose leaves are named by the strings in names (n of them; each leaf
 * must match exactly one), so leaf numbers agree with another tree. Internal node names are
 * ignored; missing lengths are 0. LENS_EFORMAT names the byte offset of the problem (also for
 * an unknown, repeated or missing leaf, or more than 3 children), LENS_ENOMEM. *out is the
 * caller's, labels included. */
int lens_newick_parse(const char *text, const char *const *names, int n,
                      struct lens_newick **out, struct lens_err *e);

/* Compares two trees on the same leaves as unrooted trees: *rf = Robinson-Foulds distance
 * (non-trivial splits in one tree and not in the other), *maxdiff = the largest difference of
 * branch length over the splits both have (leaf edges included). LENS_EINVAL, LENS_ENOMEM. */
int lens_newick_compare(const struct lens_newick *a, const struct lens_newick *b, int *rf,
                        double *maxdiff, struct lens_err *e);

#endif
