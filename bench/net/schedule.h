/* The concurrent schedule of mpilens-bench (--schedule parallel): a round-robin tournament by
 * the circle method, so each round pairs every rank with at most one partner and every
 * unordered pair meets in exactly one round. Serial code (no MPI), unit-tested on its own
 * (tests/test_bench_schedule.c); the measuring side is mode.c. */
#ifndef LENS_BENCH_SCHEDULE_H
#define LENS_BENCH_SCHEDULE_H

#include "common/err.h"

#include <stdint.h>

/* A tournament of n ranks. Owns seat and order. */
struct lens_bench_schedule {
    int n;        /* ranks, n >= 2 */
    int seats;    /* n rounded up to even: an odd n gets one empty seat, the bye */
    int rounds;   /* seats - 1: n - 1 for even n, n for odd n */
    int *seat;    /* seats entries: the rank sitting at each seat of the circle, -1 = the bye */
    int *order;   /* rounds entries: the circle's rotation played as round r */
};

/* Builds the schedule for n ranks. Without shuffle the ranks sit in order and the rounds are
 * played in order; with shuffle = 1, seed drives a permutation of the seats and one of the
 * rounds, so the same seed gives the same schedule everywhere (own generator, not libc's).
 * Returns LENS_OK, LENS_EINVAL for n < 2 or LENS_ENOMEM; on failure s holds nothing. */
int lens_bench_schedule_init(struct lens_bench_schedule *s, int n, int shuffle, uint64_t seed,
                             struct lens_err *e);

/* Round r (0 <= r < s->rounds): partner[x] is the rank x meets, or -1 when x has the bye
 * (odd n). partner holds s->n ints; partner[partner[x]] == x for every x with a partner. */
void lens_bench_schedule_round(const struct lens_bench_schedule *s, int r, int *partner);

/* Frees seat and order; safe on a zeroed struct. */
void lens_bench_schedule_release(struct lens_bench_schedule *s);

#endif
