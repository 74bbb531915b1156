/* The raw repeats of a network_test2 / mpilens-bench cube (PREFIX_all.nc, data(n, x, y, z)),
 * read one row of one length at a time, for the callers that test on the repeats themselves
 * (mpilens compare) without holding the P x P x L x repeats array. */
#ifndef LENS_CUBE_RAW_H
#define LENS_CUBE_RAW_H

#include "common/err.h"

struct lens_cube;
struct lens_cube_raw;

/* Opens PREFIX_all.nc beside the cube whose metadata is meta (a stream's or a read cube's:
 * meta->source is the prefix) and checks that its shape is meta's (nlen x P x P x z). *out
 * is NULL, with LENS_OK, when the cube has no usable raw repeats: no source, another format
 * than network_test2, no _all.nc, fewer than 2 repeats, or an old send_recv_and_recv_send
 * file whose statistics the reader halves (its repeats would no longer match them).
 * Errors: LENS_EFORMAT (a damaged _all.nc, naming it), LENS_ENOMEM. The caller owns *out. */
int lens_cube_raw_open(const struct lens_cube *meta, struct lens_cube_raw **out, struct lens_err *e);
/* Repeats per pair (z). */
int lens_cube_raw_repeats(const struct lens_cube_raw *r);
/* Row `row` (receiver) of length index k: *vals points to P x z values (seconds), sender j's
 * repeats at vals[j * z .. j * z + z), NaN where missing (negative, infinite, padded -1).
 * Owned by r, valid until the next call. LENS_EINVAL (k or row out of range), LENS_EFORMAT. */
int lens_cube_raw_row(struct lens_cube_raw *r, int k, int row, const double **vals, struct lens_err *e);
/* Closes the file and frees r; NULL does nothing. */
void lens_cube_raw_close(struct lens_cube_raw *r);

#endif
