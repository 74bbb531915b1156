/* The all-pairs measurement modes of mpilens-bench, with network_test2's meaning of each
 * (docs/methods.md §1) and its defects fixed: warm-up repeats before timing, buffers
 * touched before timing, a zero diagonal, and every statistic over the same per-repeat delay.
 * One call measures one message length on every rank; allpairs.c gathers and writes it. */
#ifndef LENS_BENCH_MODE_H
#define LENS_BENCH_MODE_H

#include "ctx.h"

/* Measures message length `len` (bytes) in mode o->mode on every rank (collective). Fills
 * row[] (and rawrow) for the cells this rank holds; the diagonal is 0. */
void lens_bench_mode_run(struct lens_bench_ctx *c, int len);

/* Measures cell (i, j) (row i, column j) at length len alone, with the serial schedule's
 * kernels, while every other rank waits (collective). Returns the cell's median in seconds
 * on rank 0, 0 elsewhere. For --retest (allpairs.c). */
double lens_bench_mode_cell(struct lens_bench_ctx *c, int len, int i, int j);

/* The cells i * P + j of cells[0..ncells-1], one after the other with the serial
 * schedule's hand-over from pair to pair (collective; every rank passes the same list, and
 * a symmetric mode's cell is its whole exchange). No barrier: the caller makes sure
 * nobody else is on the wire. The calibration of --estimate. */
void lens_bench_mode_pairs(struct lens_bench_ctx *c, int len, const int *cells, int ncells);

/* Round r of the parallel schedule c->sched at length len (collective): every rank
 * measures both directions with its partner of the round, then a barrier closes it. What
 * run_rounds plays for each length; alone, the calibration of --estimate (estimate_run.c).
 * c->sched and c->partner must be set. */
void lens_bench_mode_round(struct lens_bench_ctx *c, int r, int len);

/* What one element of the files holds in this mode, for the "delay_definition" attribute
 * and --help. */
const char *lens_bench_mode_definition(int mode);

/* Properties of a mode (enum lens_mode), shared by the buffers (ctx.c) and the kernels:
 * symmetric modes measure both directions of a pair in one exchange (async_one_to_one,
 * noise); noisy ones run noise processes beside the pair; rma ones use a window (put, get). */
int lens_bench_mode_symmetric(int mode);
int lens_bench_mode_noisy(int mode);
int lens_bench_mode_rma(int mode);

#endif
