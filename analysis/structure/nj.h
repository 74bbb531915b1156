/* Saitou-Nei neighbor joining (docs/methods.md §2.4): an unrooted tree of processes with
 * branch lengths. Two searches for the pair to join give the same tree: the canonical O(r^2)
 * scan, and an exact RapidNJ-style search over rows sorted by distance with a lower bound on
 * Q that stops each row early. */
#ifndef LENS_NJ_H
#define LENS_NJ_H

#include "common/err.h"
#include "newick.h"

enum lens_nj_search {
    LENS_NJ_FAST = 0,     /* sorted rows and bounds (default) */
    LENS_NJ_CANONICAL = 1 /* full scan of Q, the reference */
};

/* Joins n >= 2 objects with condensed distances d (n(n-1)/2 values, scipy's order, finite,
 * >= 0; read only). Among equal Q the pair (i, j) with the smallest working slots wins, so
 * both searches agree on ties too. The result (owned by the caller, free with
 * lens_newick_free) has leaves 0..n-1 and a root of degree 3 (degree 2 when n = 2, split in
 * the middle). Branch lengths are in the input's unit and may be negative, as NJ gives them.
 * Memory: an n x n matrix of doubles, plus n x n ints of sorted rows for LENS_NJ_FAST.
 * LENS_EINVAL (n < 2), LENS_EDATA (a NaN or infinite distance), LENS_ENOMEM. */
int lens_nj_run(const double *d, int n, int search, struct lens_newick **out, struct lens_err *e);

#endif
