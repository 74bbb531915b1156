/* Slices of a latency cube along message length, original against compressed: for a few
 * lengths, the original P x P matrix of one statistic and the one decoded from its packed
 * form (packed.h), with the relative error of the decoding measured per length. This is the
 * data of the slices figure (render/fig/slices.h), which only draws it; `mpilens compress
 * --plot` builds it from the cube it has just streamed and packed. */
#ifndef LENS_CUBE_SLICES_H
#define LENS_CUBE_SLICES_H

#include "common/err.h"

#include <stddef.h>

struct lens_cube;
struct lens_cube_stream;
struct lens_packed;

#define LENS_CUBE_SLICES_MAX 8 /* most slices one figure shows */

/* The matrices (all arrays owned, lens_cube_slices_free). Fill orig and dec yourself after
 * lens_cube_slices_new, or let lens_cube_slices_from_packed / _from_stream do it. */
struct lens_cube_slices {
    int procs, n;          /* P, slices (1..LENS_CUBE_SLICES_MAX) */
    int stat;              /* enum lens_stat the matrices are, for the title */
    double bound;          /* the compressor's relative error bound, NaN if unknown */
    int *lengths;          /* n message lengths, bytes */
    double *orig, *dec;    /* n x P x P seconds each: slice t at t * P * P, row-major */
    double *err_max;       /* n: largest |dec - orig| / |orig| (lens_cube_slices_measure) */
    double *err_rms;       /* n: root mean square of the same */
    long *err_n;           /* n: elements measured: off-diagonal, orig finite */
};

/* Allocates n slices of P x P (orig and dec zeroed, errors 0, bound NaN, stat median).
 * Errors: LENS_EINVAL (P outside 1..65536, n outside 1..LENS_CUBE_SLICES_MAX), LENS_ENOMEM. */
int lens_cube_slices_new(struct lens_cube_slices **out, int procs, int n, struct lens_err *e);
void lens_cube_slices_free(struct lens_cube_slices *s); /* NULL does nothing */

/* Measures err_* of every slice from orig and dec with packed.c's rule: over off-diagonal
 * elements with a finite original v, r = |v' - v| / |v| (0 when both are 0, infinite when
 * only v is). */
void lens_cube_slices_measure(struct lens_cube_slices *s);

/* Which lengths to show: for each of want[0..nwant) (bytes) the index of the nearest length
 * of lengths[0..nlen) (ties: the smaller), duplicates removed, ascending, at most
 * LENS_CUBE_SLICES_MAX; want NULL: the first, middle (nlen / 2) and last. Returns the count. */
int lens_cube_slices_pick(const int *lengths, int nlen, const int *want, int nwant,
                          int idx[LENS_CUBE_SLICES_MAX]);

/* Slices of statistic stat of c (its data in memory) and of p (that statistic packed),
 * decoded with lens_packed_decoder_next, at the lengths lens_cube_slices_pick chooses; errors
 * measured. Errors: LENS_EINVAL (stat absent from c, p of another size), LENS_ENOMEM,
 * decoder errors. */
int lens_cube_slices_from_packed(const struct lens_cube *c, int stat, const struct lens_packed *p,
                                 const int *want, int nwant, struct lens_cube_slices **out,
                                 struct lens_err *e);

/* The same from a cube streamed from disk (cube.h): only the picked lengths are read, with
 * lens_cube_stream_read. Errors as lens_cube_slices_from_packed plus the reader's. */
int lens_cube_slices_from_stream(struct lens_cube_stream *in, int stat, const struct lens_packed *p,
                                 const int *want, int nwant, struct lens_cube_slices **out,
                                 struct lens_err *e);

/* What `mpilens compress --plot` shows: the median, else the first statistic both in the
 * stream and packed in p[], sliced as lens_cube_slices_from_stream does. Errors: LENS_EINVAL
 * "no statistic both in the cube and packed", and those of lens_cube_slices_from_stream. */
int lens_cube_slices_from_stream_packed(struct lens_cube_stream *in,
                                        struct lens_packed *const p[/* LENS_STAT_COUNT */],
                                        const int *want, int nwant, struct lens_cube_slices **out,
                                        struct lens_err *e);

/* One line for people: "median: 0 B max error 1.2% RMS 0.5%; 4096 B max error ...",
 * cut to n bytes (n > 0). */
void lens_cube_slices_summary(const struct lens_cube_slices *s, char *buf, size_t n);

#endif
