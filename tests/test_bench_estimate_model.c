/* Tests for bench/net/estimate.c, the time and memory model of mpilens-bench --estimate,
 * without MPI: the sums against a loop over the lengths (the closed form claims exactness
 * for an affine cost), the errors, the memory against the allocations counted by hand, and
 * the extrapolation table of docs/bench.md ("Estimating a run") recomputed. */
#include "bench/net/estimate.h"
#include "analysis/cube/cube.h"
#include "lens_test.h"

#include <math.h>
#include <string.h>

/* The reference: the sweep walked length by length, cost interpolated between the ends. */
static double walk(int nlen, double first, double last, double per_length)
{
    double sum = 0;
    for (int k = 0; k < nlen; k++)
        sum += per_length * (nlen > 1 ? first + (last - first) * k / (nlen - 1) : first);
    return sum;
}

static void test_rounds(void)
{
    static const int p[][2] = {{1, 0}, {2, 1}, {3, 3}, {4, 3}, {5, 5}, {1024, 1023}, {16384, 16383}, {1000000, 999999}, {1000001, 1000001}};
    for (size_t t = 0; t < sizeof p / sizeof p[0]; t++)
        LENS_TEST(lens_bench_estimate_rounds(p[t][0]) == p[t][1], "rounds(%d) = %d, want %d", p[t][0],
                  lens_bench_estimate_rounds(p[t][0]), p[t][1]);
}

static void test_time(void)
{
    struct lens_bench_estimate_in in = {8, 9, 56, 3, 1e-3, 2e-3, 4e-3, 6e-3, 2.5e-3};
    struct lens_bench_estimate est;
    struct lens_err e;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_OK, "8 ranks: %s", e.msg);
    LENS_TEST(est.rounds == 7, "8 ranks: %d rounds", est.rounds);
    LENS_TEST_REL(est.serial_s, walk(9, 1e-3, 2e-3, 56), 1e-12, "serial = 56 pairs x each length's cost");
    LENS_TEST_REL(est.serial_s, 0.756, 1e-12, "serial by hand: 56 x 9 x 1.5 ms");
    LENS_TEST_REL(est.parallel_s, walk(9, 4e-3, 6e-3, 7), 1e-12, "parallel = 7 rounds x each length's cost");
    LENS_TEST_REL(est.parallel_s, 0.315, 1e-12, "parallel by hand: 7 x 9 x 5 ms");
    LENS_TEST_REL(est.retest_s, walk(9, 1e-3, 2e-3, 4), 1e-12, "retests: K + 1 = 4 cells alone per length");
    LENS_TEST_REL(est.output_s, walk(9, 2.5e-3, 2.5e-3, 1), 1e-12, "output = one step per length");
    LENS_TEST_REL(est.output_s, 0.0225, 1e-12, "output by hand: 9 x 2.5 ms");
    /* odd P: P rounds; one length: both ends are the same */
    in = (struct lens_bench_estimate_in){5, 1, 20, 0, 2e-3, 2e-3, 3e-3, 3e-3, 0};
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_OK, "5 ranks: %s", e.msg);
    LENS_TEST_REL(est.parallel_s, 5 * 3e-3, 1e-12, "5 ranks: 5 rounds of 3 ms");
    LENS_TEST_REL(est.serial_s, 20 * 2e-3, 1e-12, "5 ranks: 20 pairs of 2 ms");
    LENS_TEST(est.retest_s == 0, "no retests: %g s", est.retest_s);
    LENS_TEST(est.output_s == 0, "output not priced: %g s", est.output_s);
    /* a mode that cannot run in parallel: round costs 0, parallel not modelled */
    in.round_first_s = in.round_last_s = 0;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_OK && est.parallel_s == 0,
              "no rounds: parallel %g", est.parallel_s);
}

static void test_errors(void)
{
    struct lens_bench_estimate est;
    struct lens_err e;
    const struct lens_bench_estimate_in ok = {4, 2, 12, 0, 1e-3, 1e-3, 2e-3, 2e-3, 1e-3};
    struct lens_bench_estimate_in in;
    in = ok; in.procs = 1;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL && strstr(e.msg, "procs >= 2"), "1 rank: %s", e.msg);
    in = ok; in.nlen = 0;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL, "no lengths");
    in = ok; in.pair_first_s = NAN;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL && strstr(e.msg, "pair cost"), "NaN pair: %s", e.msg);
    in = ok; in.pair_last_s = 0;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL, "a pair of 0 s");
    in = ok; in.pair_last_s = -1e-3;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL, "a negative pair");
    in = ok; in.round_first_s = INFINITY;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL && strstr(e.msg, "round cost"), "inf round: %s", e.msg);
    in = ok; in.output_s = NAN;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL && strstr(e.msg, "output step"), "NaN output: %s", e.msg);
    in = ok; in.output_s = -1e-3;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL, "a negative output step");
    in = ok; in.retest = -1;
    LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_EINVAL, "negative retests");
}

/* docs/bench.md's table: n = 100, 10 warm-up, one length, a pair = 110 repeats of two round
 * trips of 3 us, a round = both directions = two pairs; the figures as the doc prints them. */
static void test_table(void)
{
    static const struct { int P; double serial, parallel; } t[] = {
        {1024, 691.4, 1.350}, {16384, 177157, 21.63}, {1000000, 6.600e8, 1320.0}};
    double pair = 110 * 2 * 3e-6;
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        double P = t[k].P;
        struct lens_bench_estimate_in in = {t[k].P, 1, (long)(P * (P - 1)), 0, pair, pair, 2 * pair, 2 * pair, 0};
        struct lens_bench_estimate est;
        struct lens_err e;
        LENS_TEST(lens_bench_estimate_time(&in, &est, &e) == LENS_OK, "table P %d: %s", t[k].P, e.msg);
        LENS_TEST_REL(est.serial_s, t[k].serial, 1e-3, "table: serial at %d ranks", t[k].P);
        LENS_TEST_REL(est.parallel_s, t[k].parallel, 1e-3, "table: parallel at %d ranks", t[k].P);
    }
}

/* The allocations of ctx.c and allpairs.c counted by hand for one_to_one, n = 100, lengths
 * 0..4096 step 512 (9, largest 4096 B), 8-byte requests and 256-byte host names. */
static void test_memory(void)
{
    struct lens_bench_opts o;
    memset(&o, 0, sizeof o);
    o.mode = LENS_MODE_ONE_TO_ONE;
    o.begin = 0;
    o.end = 4097;
    o.step = 512;
    o.nlen = 9;
    o.repeats = 100;
    o.noise_msgs = 1;
    struct lens_bench_estimate_mem m;
    for (int P = 2; P <= 1 << 20; P *= 8) {
        double p = P;
        /* 2 buffers + samples and sort of one cell + row 4P + gather 4P doubles + 2P requests + 2P ints */
        double other = 2 * 4096 + 2 * 100 * 8 + 32 * p + 32 * p + 16 * p + 8 * p;
        o.schedule = LENS_BENCH_SCHEDULE_SERIAL;
        o.retest = 0;
        lens_bench_estimate_memory(&o, P, 8, 256, &m);
        LENS_TEST_REL(m.other_bytes, other, 1e-12, "serial P %d: other ranks", P);
        LENS_TEST_REL(m.rank0_bytes, other + 64 * p * p + 256 * p, 1e-12, "serial P %d: rank 0", P);
        o.schedule = LENS_BENCH_SCHEDULE_PARALLEL;
        o.retest = 3;
        lens_bench_estimate_memory(&o, P, 8, 256, &m);
        other += 4 * p + 8 * (p + 1); /* partners, seats and order */
        LENS_TEST_REL(m.other_bytes, other, 1e-12, "parallel P %d: other ranks", P);
        LENS_TEST_REL(m.rank0_bytes, other + 64 * p * p + 256 * p + 9 * 8 * p * p, 1e-12,
                      "parallel P %d: rank 0 keeps 9 lengths of medians", P);
    }
    /* docs/bench.md's memory column: parallel, retests, the sweep above */
    static const struct { int P; double other, rank0; } t[] = {
        {1024, 112200, 142980680}, {16384, 1648200, 36513064520.0}, {1000000, 100009800, 1.360003560098e14}};
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        lens_bench_estimate_memory(&o, t[k].P, 8, 256, &m);
        LENS_TEST_REL(m.other_bytes, t[k].other, 1e-9, "table: other ranks at %d", t[k].P);
        LENS_TEST_REL(m.rank0_bytes, t[k].rank0, 1e-9, "table: rank 0 at %d", t[k].P);
    }
    /* --raw, all_to_all: P x n more samples and the raw row, P receive buffers */
    o.schedule = LENS_BENCH_SCHEDULE_SERIAL;
    o.retest = 0;
    o.raw = 1;
    o.mode = LENS_MODE_ALL_TO_ALL;
    lens_bench_estimate_memory(&o, 4, 8, 256, &m);
    double other = 2 * 4096 + 2 * 100 * 8 + 32 * 4 + 32 * 4 + 16 * 4 + 8 * 4 + 4 * 100 * 8 + 4 * 4096 + 3 * 100 * 8;
    LENS_TEST_REL(m.other_bytes, other, 1e-12, "all_to_all --raw: other ranks");
    LENS_TEST_REL(m.rank0_bytes, other + 64 * 16 + 256 * 4 + 16 * 100 * 8, 1e-12, "all_to_all --raw: rank 0");
}

int main(void)
{
    test_rounds();
    test_time();
    test_errors();
    test_table();
    test_memory();
    return LENS_TEST_DONE("test_bench_estimate_model");
}
