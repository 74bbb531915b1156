/* Tests for bench/net/bisection.c, the rounds of -t bisection, without MPI: for 2..64 ranks
 * and many rounds and seeds, the halves have n / 2 ranks each, every rank but the one sitting
 * out (odd n) has exactly one partner, on the other side, and partner is an involution; the
 * same seed and round give the same round, and the draws vary between rounds and seeds. */
#include "bench/net/bisection.h"
#include "lens_test.h"

#include <string.h>

/* Failures of round r of n ranks (0 when it is a perfect matching across a bisection). */
static int check_round(int n, uint64_t seed, int r)
{
    int side[64], partner[64], count[3] = {0, 0, 0}, bad = 0;
    lens_bench_bisection_round(n, seed, r, side, partner);
    for (int x = 0; x < n; x++) {
        count[side[x] + 1]++; /* -1, 0, 1 */
        int y = partner[x];
        if (side[x] < 0) {
            bad += y != -1;
            continue;
        }
        /* a partner exists, is another rank, faces back, and sits on the other half */
        if (y < 0 || y >= n || y == x || partner[y] != x || side[y] != 1 - side[x])
            bad++;
    }
    bad += count[0] != n % 2 || count[1] != n / 2 || count[2] != n / 2;
    if (bad)
        LENS_TEST(0, "n %d seed %llu round %d: %d problems (halves %d/%d, out %d)", n,
                  (unsigned long long)seed, r, bad, count[1], count[2], count[0]);
    return bad;
}

int main(void)
{
    static const uint64_t seeds[] = {LENS_BENCH_BISECTION_SEED, 0, 12345, 0xffffffffffffffffULL};
    int bad = 0;
    for (int n = 2; n <= 64; n++)
        for (int s = 0; s < 4; s++)
            for (int r = 0; r < 25; r++)
                bad += check_round(n, seeds[s], r);
    LENS_TEST(bad == 0, "%d rounds are not perfect matchings across a split", bad);

    /* Deterministic: the same seed and round twice, and a round does not depend on others. */
    int s1[64], p1[64], s2[64], p2[64];
    lens_bench_bisection_round(37, 99, 7, s1, p1);
    lens_bench_bisection_round(37, 99, 3, s2, p2);
    lens_bench_bisection_round(37, 99, 7, s2, p2);
    LENS_TEST(!memcmp(s1, s2, sizeof(int) * 37) && !memcmp(p1, p2, sizeof(int) * 37), "same round twice differs");

    /* Random: 20 rounds of 16 ranks give more than one split, and another seed another round. */
    int distinct = 0;
    for (int r = 1; r < 20; r++) {
        lens_bench_bisection_round(16, 1, r, s2, p2);
        lens_bench_bisection_round(16, 1, 0, s1, p1);
        distinct += memcmp(p1, p2, sizeof(int) * 16) != 0;
    }
    LENS_TEST(distinct >= 18, "only %d of 19 rounds differ from round 0", distinct);
    lens_bench_bisection_round(16, 1, 0, s1, p1);
    lens_bench_bisection_round(16, 2, 0, s2, p2);
    LENS_TEST(memcmp(p1, p2, sizeof(int) * 16) != 0, "seeds 1 and 2 give the same round 0");

    /* Every rank sits out now and then (odd n): over 500 rounds of 5 ranks each about 100. */
    int out[5] = {0};
    for (int r = 0; r < 500; r++) {
        lens_bench_bisection_round(5, 1, r, s1, p1);
        for (int x = 0; x < 5; x++)
            out[x] += s1[x] < 0;
    }
    for (int x = 0; x < 5; x++)
        LENS_TEST(out[x] > 60 && out[x] < 140, "rank %d sat out %d of 500 rounds, want about 100", x, out[x]);

    /* Two ranks: always the one pair, on opposite sides. */
    lens_bench_bisection_round(2, 5, 0, s1, p1);
    LENS_TEST(p1[0] == 1 && p1[1] == 0 && s1[0] + s1[1] == 1, "n 2: %d %d", p1[0], p1[1]);
    return LENS_TEST_DONE("test_bench_bisection");
}
