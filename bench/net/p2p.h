/* The point-to-point sweep (-t p2p, docs/methods.md §5.1): latency by ping-pong with the
 * same size both ways, L = T / 2c for an iteration of c round trips; bandwidth and message rate by a window of k messages of
 * s bytes answered by an empty reply, B = k*s / T and M = k / T (the LuNA thesis prints these
 * inverted). OSU's loop: warm-up, pair synchronisation, MPI_Wtime, fewer iterations for
 * sizes above 8 KiB, every iteration's time kept. */
#ifndef LENS_BENCH_P2P_H
#define LENS_BENCH_P2P_H

#include "opts.h"

#define LENS_BENCH_P2P_WINDOW 64  /* k: messages per bandwidth iteration, OSU's window */
#define LENS_BENCH_P2P_LARGE 8192 /* sizes above this use the smaller iteration counts */
#define LENS_BENCH_P2P_ITERS 1000 /* latency iterations for small sizes unless -n is given */
#define LENS_BENCH_P2P_BATCH 10   /* round trips per latency iteration up to 8 KiB (c) */

/* Receives one line of progress or information for the user (rank 0 only). */
typedef void (*lens_bench_say_fn)(void *arg, const char *line);

/* Whether PREFIX_p2p.csv or PREFIX_p2p.nc exists. */
int lens_bench_p2p_exists(const char *prefix);

/* Iteration counts for size s given -n (n = LENS_BENCH_P2P_ITERS by default), and c, the
 * round trips per latency iteration: LENS_BENCH_P2P_BATCH up to 8 KiB so the clock read
 * between iterations costs under 1% of a 0-byte round trip, 1 above. Latency: n iterations
 * (OSU's 10000 and 1000 round trips for n = 1000); bandwidth: n/10 windows, n/50 above 8 KiB. */
void lens_bench_p2p_iters(int n, int s, int *lat, int *bw, int *batch);

/* Runs the sweep for ranks --pair A,B, or with --pairs per-node for one intra-node pair and
 * one pair across each pair of nodes (collective). Rank 0 writes PREFIX_p2p.csv and
 * PREFIX_p2p.nc. Errors are fatal (MPI_Abort). */
void lens_bench_p2p_run(const struct lens_bench_opts *o, lens_bench_say_fn say, void *arg);

#endif
