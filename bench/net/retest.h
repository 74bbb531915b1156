/* Which cells of a sweep are measured again alone (--retest K): the same robust z as
 * `mpilens anomalies` uses (log delay, median and 1.4826 MAD with a floor, docs/methods.md),
 * here over the off-diagonal cells of one length. Serial code (no MPI), unit-tested on its
 * own (tests/test_bench_retest.c); the measuring side is allpairs.c. */
#ifndef LENS_BENCH_RETEST_H
#define LENS_BENCH_RETEST_H

#include <stddef.h>

/* The anomaly detector's defaults (z_min and mad_floor of analysis/structure/anomaly.c): a
 * cell this far above its length's typical delay is what `mpilens anomalies` would flag. */
#define LENS_BENCH_RETEST_ZMIN 5.0
#define LENS_BENCH_RETEST_MAD_FLOOR 0.01 /* log units: 1% of the delay */
#define LENS_BENCH_RETEST_DEFAULT 3      /* K under --schedule parallel unless --retest says */

/* Median med and robust sigma sig = 1.4826 * max(MAD, floor) of log(m[i][j]) over the cells
 * i != j of the P x P matrix m (seconds) that are finite and positive; work holds P * P
 * doubles. Returns the number of cells used (med and sig are NaN when 0). */
int lens_bench_retest_robust(const double *m, int P, double *work, double *med, double *sig);

/* z of one delay v (seconds) against med and sig: (log v - med) / sig; NaN when v <= 0. */
double lens_bench_retest_z(double v, double med, double sig);

/* The cells to retest of one P x P matrix m: every cell with z >= zmin and the k cells of
 * largest z, each cell once, in descending z (ties: ascending index i * P + j). cells
 * receives up to P * (P - 1) indices, z (optional) their z; work holds 2 * P * P doubles.
 * Returns the count. */
int lens_bench_retest_pick(const double *m, int P, int k, double zmin, double *work, int *cells,
                           double *z);

/* The control cell of one length: the valid off-diagonal cell (not among the npicked cells)
 * whose log delay is nearest med, ties to the lowest index; -1 if none is left. Measured
 * alone beside the picks, it is the typical delay under the retests' own conditions. */
int lens_bench_retest_control(const double *m, int P, double med, const int *picked, int npicked);

/* ---- the same choice without a P x P matrix on one rank (allpairs.c, the PnetCDF path) ----
 * Each rank holds one row of a length's medians; the median and MAD of the log delays come
 * from a distributed selection (exact: the same values as lens_bench_retest_robust), each
 * rank's candidates are its own top by lens_bench_retest_top, and rank 0 takes the top of
 * their union, which holds the global top: a cell among the k worst of all is among the k
 * worst of its row, and a flagged cell is a candidate wherever it is. */

/* Sums n counts over every rank, in place (MPI_Allreduce; the identity for one process). */
typedef void (*lens_bench_retest_sum_fn)(void *arg, long long *counts, int n);

/* The k-th smallest (0-based) of the values of every rank, each rank passing its own v[0..n-1]
 * (no NaN) and the same k below the total count; collective through sum (8 calls of 256
 * counts: a radix selection on an order-preserving key, one byte a pass). */
double lens_bench_retest_kth(const double *v, size_t n, long long k, lens_bench_retest_sum_fn sum,
                             void *arg);

/* The median of the values of every rank (total: their count, >= 1), as lens_cube_median: the
 * mean of the two middle values for an even count. Collective through sum. */
double lens_bench_retest_median(const double *v, size_t n, long long total,
                                lens_bench_retest_sum_fn sum, void *arg);

/* Sorts n triples (z, cell index, value) of t in lens_bench_retest_pick's order (descending z,
 * ascending index) and returns how many lead: the k first plus any further with z >= zmin. */
int lens_bench_retest_top(double *t, size_t n, int k, double zmin);

/* Whether a row of the cube in mode (enum lens_mode) is the receiver: one_to_one,
 * noise_blocking, noise and all_to_all; otherwise the row is the sender. Names the ends of a
 * cell in the retest file and the injection hook, as `mpilens anomalies` names them. */
int lens_bench_retest_row_is_receiver(int mode);

#endif
