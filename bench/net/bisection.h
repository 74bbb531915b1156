/* The rounds of the bisection bandwidth test (-t bisection): each round a random split of
 * the ranks into two halves and a random perfect matching across it, from a seed, so every
 * rank computes the same round without a message. Serial code (no MPI), unit-tested on its
 * own (tests/test_bench_bisection.c); the measuring side is bisect_run.c. */
#ifndef LENS_BENCH_BISECTION_H
#define LENS_BENCH_BISECTION_H

#include <stdint.h>

#define LENS_BENCH_BISECTION_SEED 1          /* the seed without --shuffle: runs repeat */
#define LENS_BENCH_BISECTION_ROUNDS 10       /* -r default */
#define LENS_BENCH_BISECTION_SIZE (16 << 20) /* -s default, bytes */

/* Round r (r >= 0) of n ranks (n >= 2) from seed: side[x] is 0 or 1 (the half of rank x), or
 * -1 for the rank that sits out when n is odd; partner[x] is the rank x exchanges with (on
 * the other side), -1 when sitting out. Each half holds n / 2 ranks (rounded down), and the
 * n / 2 pairs are a perfect matching between them. side and partner hold n ints. */
void lens_bench_bisection_round(int n, uint64_t seed, int r, int *side, int *partner);

#endif
