/* Condensed symmetric distance matrix between processes: the input of hierarchical clustering
 * and neighbor joining. Built from a square CSV matrix or from a latency cube (docs/methods.md
 * §2.1): symmetrised as (A + A^T) / 2, diagonal 0, with the asymmetry it had recorded. */
#ifndef LENS_DISTMAT_H
#define LENS_DISTMAT_H

#include <stddef.h>

#include "common/err.h"

struct lens_cube;

struct lens_distmat {
    int n;              /* number of objects (processes), >= 2 */
    double *d;          /* n(n-1)/2 distances, scipy's condensed order; same unit as input */
    char **labels;      /* n labels (owned), or NULL: callers then use the index */
    /* |a - b| / (a + b) over the pairs i < j before symmetrisation (0 when a + b == 0) */
    double asym_mean;   /* mean over pairs */
    double asym_max;    /* maximum over pairs */
    int asym_i, asym_j; /* the pair with the maximum (i < j) */
    long asym_over;     /* pairs with asymmetry above LENS_DISTMAT_ASYM_NOTE */
    int diag_nonzero;   /* number of non-zero diagonal entries that were ignored */
    int one_sided;      /* pairs where one direction was missing and the other was used */
    int from_cube;      /* 1 if read from a cube, 0 from CSV */
    char **warnings;    /* nwarn messages (owned): the cube reader's repairs */
    int nwarn;
};

#define LENS_DISTMAT_ASYM_NOTE 0.05 /* Salnikov et al.'s 5 % bound */

/* Index of pair (i, j), i != j, in the condensed array (scipy's squareform order). */
static inline size_t lens_distmat_index(int n, int i, int j)
{
    if (i > j) {
        int t = i;
        i = j;
        j = t;
    }
    return (size_t)n * i - (size_t)i * (i + 1) / 2 + (size_t)(j - i - 1);
}

/* Number of pairs n(n-1)/2. */
static inline size_t lens_distmat_pairs(int n) { return (size_t)n * (size_t)(n - 1) / 2; }

/* Allocates an n-object matrix with zero distances and no labels; the caller owns *out and
 * frees it with lens_distmat_free (*out is NULL on failure, as for every builder below).
 * LENS_EDATA if n < 2, LENS_ENOMEM. */
int lens_distmat_new(struct lens_distmat **out, int n, struct lens_err *e);
void lens_distmat_free(struct lens_distmat *m);

/* Reads a square CSV matrix: n lines of n comma-separated numbers, optionally preceded by one
 * header line of n labels. Blank lines at the end and CRLF are accepted. Errors name the file
 * and line (and column for a bad cell): LENS_EIO, LENS_EFORMAT (not square, not a number),
 * LENS_EDATA (negative, NaN or infinite distance, n < 2), LENS_ENOMEM. */
int lens_distmat_read_csv(const char *path, struct lens_distmat **out, struct lens_err *e);

/* Builds the matrix from a square row-major n x n array a (not kept): symmetrised, diagonal
 * ignored, asymmetry recorded. LENS_EDATA for a NaN, infinite or negative element (named by
 * row and column), LENS_EINVAL for n < 2, LENS_ENOMEM. */
int lens_distmat_from_square(const double *a, int n, struct lens_distmat **out,
                             struct lens_err *e);

/* Builds the matrix from statistic `stat` (enum lens_stat) of a cube, at length index k, or
 * with k < 0 the median over all lengths of each element. Non-finite elements are skipped in
 * the median; a pair with one direction missing takes the other. Labels are "r<rank>" or
 * "r<rank>@<host>"; distances in the cube's unit (seconds). The cube is not kept. LENS_EDATA
 * if the statistic is absent or a pair has no finite value or a negative one, LENS_EINVAL for
 * k >= the number of lengths, LENS_ENOMEM. */
int lens_distmat_from_cube(const struct lens_cube *c, int stat, int k, struct lens_distmat **out,
                           struct lens_err *e);

/* Reads INPUT: a file whose name ends in ".csv", or any existing regular file that does not
 * start with the NetCDF magic ("CDF" or the HDF5 signature), is read as CSV; anything else as a
 * network_test2 prefix through lens_cube_read_stats (only statistic `stat` is loaded). stat is
 * a lens_stat, length is in bytes (< 0: median over lengths). Errors: those of the CSV and cube
 * readers, LENS_EIO for a missing ".csv" file, LENS_EINVAL for a length the cube lacks. */
int lens_distmat_read(const char *input, int stat, long length, struct lens_distmat **out,
                      struct lens_err *e);

/* ---- slowness normalisation (optional; the default distance is the raw one above) ----
 * A slow node (every link of its ranks f times slower) sits farther from its own switch than
 * the switches are from each other, so the cut at the number of switches isolates it.
 * Slowness of rank i, robust and blind to the hierarchy:
 *     s_i = median over peers k != i of  d(i,k) / med_k,   med_k = median over j != k of d(j,k)
 * Dividing by the peer's own typical link cancels the peer's slowness (a slow peer inflates
 * its whole column, so it does not make i look slow), and the median over peers ignores a
 * minority of bad links. On a machine whose every rank sees the same mix of levels (equal
 * subtrees at each level: the usual cores < sockets < nodes < switches), med_k is the same for
 * every k and equal to every row's median, so s_i = 1 exactly without noise, whatever the
 * levels and latencies; a rank whose links are all f times slower gets s_i = f. Peers with
 * med_k == 0 are skipped; a rank with no usable peer, or with s_i == 0, gets s_i = 1.
 * The normalised distance d'(i,j) = d(i,j) / max(s_i, s_j) undoes the synthetic slow-node
 * model exactly (a link is slow when either end is slow, by the slower end's factor). */

enum lens_distmat_norm {
    LENS_DISTMAT_NORM_NONE = 0,     /* raw distances (default) */
    LENS_DISTMAT_NORM_SLOWNESS = 1, /* lens_distmat_normalize_slowness */
};

/* "none" or "slowness" -> enum lens_distmat_norm; -1 for anything else. */
int lens_distmat_norm_parse(const char *name);
const char *lens_distmat_norm_name(int norm);

/* Writes the slowness s_i of each object into s (m->n doubles, caller's; dimensionless).
 * m is not changed. LENS_ENOMEM (O(n) working space). */
int lens_distmat_slowness(const struct lens_distmat *m, double *s, struct lens_err *e);

/* Divides every distance d(i,j) by max(s_i, s_j) (always > 0), in place; the unit stays the
 * input's. s: NULL, or m->n doubles (caller's) that receive the slowness used. LENS_ENOMEM;
 * m is unchanged on failure. */
int lens_distmat_normalize_slowness(struct lens_distmat *m, double *s, struct lens_err *e);

/* Label of object i: labels[i], or its decimal index written into buf. */
const char *lens_distmat_label(const struct lens_distmat *m, int i, char *buf, size_t n);

#endif
