/* The bisection bandwidth test (-t bisection, docs/bench.md): each round a random split of
 * the ranks into halves and a matching across it (bisection.h); every pair exchanges a window
 * of large messages both ways at once. Rank 0 writes PREFIX_bisection.csv (per round: bytes,
 * seconds, aggregate and slowest pair bandwidth) and PREFIX_bisection.nc (the same plus every
 * flow's and node's bandwidth). Bytes, seconds, bytes per second. */
#ifndef LENS_BENCH_BISECT_RUN_H
#define LENS_BENCH_BISECT_RUN_H

#include "opts.h"
#include "p2p.h"

/* Whether PREFIX_bisection.csv or PREFIX_bisection.nc exists. */
int lens_bench_bisect_run_exists(const char *prefix);

/* Runs o->rounds rounds of o->size-byte windows (collective). Errors are fatal (MPI_Abort). */
void lens_bench_bisect_run(const struct lens_bench_opts *o, lens_bench_say_fn say, void *arg);

#endif
