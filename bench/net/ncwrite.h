/* The all-pairs cube written in parallel with Parallel-NetCDF: every rank writes its own row
 * (the cells it measured) of each statistic file collectively, so no rank holds a P x P matrix.
 * Rank 0 first creates the files with the serial writer (cube_write.c, no record yet), so the
 * dims, variables and attributes are the serial path's byte for byte; PnetCDF only appends the
 * records. Built only when PnetCDF is found (LENS_HAVE_PNETCDF); otherwise rank 0 gathers. */
#ifndef LENS_BENCH_NCWRITE_H
#define LENS_BENCH_NCWRITE_H

#include "ctx.h"
#include "common/err.h"

struct lens_bench_ncwrite;

/* 1 when this run writes through PnetCDF: the build has it and the environment variable
 * MPILENS_BENCH_GATHER is unset or "0" (set, it forces the old gather to rank 0: tests and
 * `make bench` compare the two). The same answer on every rank (an environment variable that
 * differs between ranks is the caller's problem: rank 0's answer is broadcast). Collective. */
int lens_bench_ncwrite_enabled(void);

/* Collective: every rank opens <prefix>_{average,median,deviation,min}.nc (and _all.nc when
 * raw) that rank 0 has just created with no record. Owns the handles in *out. LENS_EIO names
 * the file and PnetCDF's reason; LENS_ENOMEM. On failure nothing is open on any rank, and
 * every rank gets the same status and message. */
int lens_bench_ncwrite_open(struct lens_bench_ncwrite **out, const char *prefix, int raw,
                            struct lens_err *e);

/* Collective: writes length index k, this rank's four rows c->row[] (a column when
 * c->transposed) and, when raw, c->rawrow, then syncs every file, so a killed run leaves the
 * lengths written readable. On failure (every rank gets the same status and the failing rank's
 * message) rank 0 has already cut the files back to the lengths complete in all of them, or
 * removed them and the hosts file when none was; the caller ends the job (lens_bench_fatal). */
int lens_bench_ncwrite_put(struct lens_bench_ncwrite *w, int k, const struct lens_bench_ctx *c,
                           struct lens_err *e);

/* Collective: closes every file and frees w, also on failure (LENS_EIO, same on every rank). */
int lens_bench_ncwrite_close(struct lens_bench_ncwrite *w, struct lens_err *e);

#endif
