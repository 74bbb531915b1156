/* Lossy compression of a latency cube with a guaranteed per-element relative error
 * (docs/methods.md §4). Streaming: one P x P matrix per length goes in, in length order,
 * and only the current partition of the P^2 pairs into groups is kept. Each group holds one
 * value per length; a group whose values no longer fit the bound splits, groups that come
 * together merge, and when that costs more than a new partition the partition is stored anew.
 * Every decoded element v' of an element v satisfies |v' - v| <= max_error * |v| (NaN and
 * infinities decode exactly). packed_nc.c stores the result in one NetCDF file. */
#ifndef LENS_PACKED_H
#define LENS_PACKED_H

#include "cube.h"

enum { LENS_PACK_MOVE = 0, LENS_PACK_MERGE = 1 };

/* The compressed form of one statistic. All arrays are owned. */
struct lens_packed {
    int procs, nlen;
    double max_error;     /* the bound, relative */
    int nreset;           /* partitions stored whole: at length reset_k[r], pair p is in group */
    int *reset_k;         /*   reset_group[r * P^2 + p]; reset_k[0] == 0 */
    int *reset_group;
    long nevent;          /* changes between lengths, in order: {k, kind, a, b}: */
    int *event;           /*   MOVE: pair a joins new group b; MERGE: group a joins group b */
    long nvalue;          /* values of the live groups, ascending group id, length by length: */
    double *value;        /*   length k's are value[value_start[k] .. value_start[k+1]) */
    long *value_start;    /* nlen + 1 */
    int *value_group;     /* nvalue: the group each value belongs to (ascending within a length);
                           * NULL in files written before it existed (lens_packed_index_new
                           * rebuilds it by decoding) */
    long only_pair;       /* 0: reset_group holds every pair; else it holds only pair
                           * only_pair - 1, one entry per partition (lens_packed_read_pair), and
                           * only that pair can be asked for (0 so that a zeroed struct is whole) */
    /* measured while compressing, over the off-diagonal elements that are finite */
    double err_max;       /* largest relative error */
    double err_sum2;      /* sum of squared relative errors */
    long err_n;
    long splits, merges;  /* groups split, groups merged into another */
};

struct lens_packed_encoder; /* streaming state */

/* Errors: LENS_EINVAL (procs < 1, nlen < 1, max_error not in [0, 1)), LENS_ENOMEM. */
int lens_packed_encoder_new(struct lens_packed_encoder **out, int procs, int nlen, double max_error,
                      struct lens_err *e);
/* Adds the next length: mat is P x P, row-major, not kept. LENS_EINVAL after nlen matrices. */
int lens_packed_encoder_put(struct lens_packed_encoder *z, const double *mat, struct lens_err *e);
/* After the nlen-th put: moves the result to *out (caller frees) and frees z in any case.
 * LENS_EINVAL when fewer than nlen matrices were put. */
int lens_packed_encoder_finish(struct lens_packed_encoder *z, struct lens_packed **out, struct lens_err *e);
void lens_packed_encoder_free(struct lens_packed_encoder *z);

/* Bytes of the packed payload: 4 per group number and event field, 8 per value and start. */
double lens_packed_bytes(const struct lens_packed *p);
void lens_packed_free(struct lens_packed *p);
/* Checks the internal consistency of p (after reading a file): LENS_EFORMAT naming what. */
int lens_packed_check(const struct lens_packed *p, const char *name, struct lens_err *e);

/* Streaming decoder: length after length into a P x P matrix. */
struct lens_packed_decoder;
int lens_packed_decoder_new(struct lens_packed_decoder **out, const struct lens_packed *p, struct lens_err *e);
/* Decodes the next length into mat (P x P); LENS_EINVAL after nlen lengths, LENS_EFORMAT when
 * a length's groups and values disagree (a damaged file), LENS_ENOMEM. The decoder reads p,
 * which must outlive it. */
int lens_packed_decoder_next(struct lens_packed_decoder *u, double *mat, struct lens_err *e);
void lens_packed_decoder_free(struct lens_packed_decoder *u);

/* Positional access (Salnikov, Maysuradze, Andreev, Kostin: the compressed format keeps any
 * element reachable without decoding the cube; docs/methods.md §4). The index holds, per length,
 * that length's events sorted by pair (moves) and by group (merges), and the group of every
 * value: O(events + values) memory, nothing of size P^2. An element (i, j, k) then costs one
 * binary search per length since the last stored partition before k, plus one in the length's
 * values; a pair's whole curve costs O(L log). Results equal the streaming decoder's bit for bit.
 * The index reads p, which must outlive it. Errors: LENS_ENOMEM, LENS_EFORMAT (a damaged file
 * whose groups and values disagree). */
struct lens_packed_index;
int lens_packed_index_new(struct lens_packed_index **out, struct lens_packed *p, struct lens_err *e);
void lens_packed_index_free(struct lens_packed_index *x);
/* The element of sender/row i, column j at length index k. LENS_EINVAL names an i, j or k out of
 * range (or a pair other than the one read by lens_packed_read_pair). */
int lens_packed_at(const struct lens_packed_index *x, int i, int j, int k, double *v, struct lens_err *e);
/* The curve of pair (i, j): out[k] for every length index k (nlen doubles). Errors as above. */
int lens_packed_curve(const struct lens_packed_index *x, int i, int j, double *out, struct lens_err *e);

/* packed_nc.c: one NetCDF (64-bit offset) file holding the packed statistics of a cube
 * and its metadata (processes, lengths, mode, repeats, hosts). stats[s] is NULL for an absent
 * statistic. meta's data arrays are not used. The file is written through a temporary name.
 * LENS_EINVAL (more values or events than an int counts), LENS_EIO naming path, LENS_ENOMEM. */
int lens_packed_write(const char *path, const struct lens_cube *meta,
                      struct lens_packed *const stats[LENS_STAT_COUNT], struct lens_err *e);
/* Reads such a file: *meta is a cube without data (lens_cube_free), stats[s] NULL if absent.
 * Errors: LENS_EIO, LENS_EFORMAT (not a packed cube, inconsistent), LENS_ENOMEM. */
int lens_packed_read(const char *path, struct lens_cube **meta,
                     struct lens_packed *stats[LENS_STAT_COUNT], struct lens_err *e);
/* The same, but the stored partitions are read for pair (i, j) only (only_pair): memory does not
 * grow with P^2, for lens_packed_at / lens_packed_curve of that pair. LENS_EINVAL names an i or j
 * outside [0, procs). */
int lens_packed_read_pair(const char *path, int i, int j, struct lens_cube **meta,
                          struct lens_packed *stats[LENS_STAT_COUNT], struct lens_err *e);

#endif
