/* Condensed symmetric distance matrix between processes: the input of hierarchical clustering
 * and neighbor joining. Built from a square CSV matrix or from a latency cube (ALGORITHMS.md
 * section 2): symmetrised as (A + A^T) / 2, diagonal 0, with the asymmetry it had recorded. */
#ifndef LENS_DISTMAT_H
#define LENS_DISTMAT_H

#include <stddef.h>

#include "../common/err.h"

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

#define LENS_DISTMAT_ASYM_NOTE 0.05 /* the paper's 5 % threshold */

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

/* Allocates an n-object matrix with zero distances and no labels. LENS_EINVAL if n < 2. */
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
 * "r<rank>@<host>". LENS_EDATA if a pair has no finite value or a negative one. */
int lens_distmat_from_cube(const struct lens_cube *c, int stat, int k, struct lens_distmat **out,
                           struct lens_err *e);

/* Reads INPUT: a file whose name ends in ".csv" (or that starts with a digit, sign or letter
 * other than the NetCDF magic) is read as CSV, anything else as a network_test2 prefix through
 * lens_cube_read. stat is a lens_stat, length is in bytes (< 0: median over lengths). */
int lens_distmat_read(const char *input, int stat, long length, struct lens_distmat **out,
                      struct lens_err *e);

/* Label of object i: labels[i], or its decimal index written into buf. */
const char *lens_distmat_label(const struct lens_distmat *m, int i, char *buf, size_t n);

#endif
