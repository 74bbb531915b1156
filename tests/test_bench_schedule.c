/* Tests for bench/net/schedule.c, the round-robin tournament of --schedule parallel, without
 * MPI: for 2..64 ranks, shuffled or not, every round pairs disjoint ranks and every unordered
 * pair meets exactly once; the reference is a count matrix filled from the rounds, and one
 * small tournament worked out by hand. */
#include "bench/net/schedule.h"
#include "lens_test.h"

#include <stdlib.h>
#include <string.h>

/* Checks the tournament of n ranks; returns the number of failures found (also counted). */
static int check_tournament(int n, int shuffle, uint64_t seed)
{
    struct lens_bench_schedule s;
    struct lens_err e;
    int bad = 0;
    if (lens_bench_schedule_init(&s, n, shuffle, seed, &e) != LENS_OK) {
        LENS_TEST(0, "n %d: init failed: %s", n, e.msg);
        return 1;
    }
    int want_rounds = n % 2 == 0 ? n - 1 : n;
    bad += s.rounds != want_rounds;
    LENS_TEST(s.rounds == want_rounds, "n %d: %d rounds, want %d", n, s.rounds, want_rounds);
    int *met = calloc((size_t)n * n, sizeof(int)), *byes = calloc((size_t)n, sizeof(int));
    int *partner = malloc((size_t)n * sizeof(int));
    for (int r = 0; r < s.rounds; r++) {
        lens_bench_schedule_round(&s, r, partner);
        int paired = 0;
        for (int x = 0; x < n; x++) {
            int y = partner[x];
            if (y < 0) {
                byes[x]++;
                continue;
            }
            /* Disjoint pairs: x's partner has x as partner, and nobody meets itself. */
            if (y >= n || y == x || partner[y] != x) {
                bad++;
                LENS_TEST(0, "n %d seed %llu round %d: rank %d -> %d -> %d", n,
                          (unsigned long long)seed, r, x, y, y >= 0 && y < n ? partner[y] : -9);
                continue;
            }
            paired++;
            if (x < y)
                met[x * n + y]++;
        }
        /* n / 2 pairs per round: everyone plays, except one rank when n is odd. */
        if (paired != 2 * (n / 2)) {
            bad++;
            LENS_TEST(0, "n %d round %d: %d ranks paired, want %d", n, r, paired, 2 * (n / 2));
        }
    }
    for (int x = 0; x < n; x++) {
        for (int y = x + 1; y < n; y++)
            if (met[x * n + y] != 1) {
                bad++;
                LENS_TEST(0, "n %d seed %llu: ranks %d and %d meet %d times", n,
                          (unsigned long long)seed, x, y, met[x * n + y]);
            }
        if (byes[x] != n % 2) {
            bad++;
            LENS_TEST(0, "n %d: rank %d has %d byes, want %d", n, x, byes[x], n % 2);
        }
    }
    free(met);
    free(byes);
    free(partner);
    lens_bench_schedule_release(&s);
    return bad;
}

/* The rounds of n ranks as one string "a-b a-b|a-b ...", pairs listed by their lower rank. */
static void describe(int n, int shuffle, uint64_t seed, char *out, size_t cap)
{
    struct lens_bench_schedule s;
    struct lens_err e;
    int partner[16];
    size_t at = 0;
    out[0] = '\0';
    if (lens_bench_schedule_init(&s, n, shuffle, seed, &e) != LENS_OK)
        return;
    for (int r = 0; r < s.rounds; r++) {
        lens_bench_schedule_round(&s, r, partner);
        for (int x = 0; x < n; x++)
            if (partner[x] > x)
                at += (size_t)snprintf(out + at, cap - at, "%d-%d ", x, partner[x]);
        if (at > 0 && out[at - 1] == ' ')
            at--;
        at += (size_t)snprintf(out + at, cap - at, r + 1 < s.rounds ? "|" : "");
    }
    lens_bench_schedule_release(&s);
}

int main(void)
{
    /* Every size from 2 to 64, in order and with three seeds. */
    int bad = 0;
    for (int n = 2; n <= 64; n++) {
        bad += check_tournament(n, 0, 0);
        for (uint64_t seed = 1; seed <= 3; seed++)
            bad += check_tournament(n, 1, seed * 7919);
    }
    LENS_TEST(bad == 0, "%d faults in the tournaments of 2..64 ranks", bad);

    /* Worked by hand, circle method with rank 3 fixed: rotation t pairs 3-t and (t+1)-(t-1). */
    char got[256], again[256];
    describe(4, 0, 0, got, sizeof got);
    LENS_TEST(strcmp(got, "0-3 1-2|0-2 1-3|0-1 2-3") == 0, "4 ranks: %s", got);
    /* 5 ranks: the empty seat 5 is fixed, so rank t has the bye in rotation t; the others
     * pair as (t+1, t-1) and (t+2, t-2) mod 5. */
    describe(5, 0, 0, got, sizeof got);
    LENS_TEST(strcmp(got, "1-4 2-3|0-2 3-4|0-4 1-3|0-1 2-4|0-3 1-2") == 0, "5 ranks: %s", got);
    describe(2, 0, 0, got, sizeof got);
    LENS_TEST(strcmp(got, "0-1") == 0, "2 ranks: %s", got);

    /* The seed decides the schedule: the same seed twice gives the same rounds, another seed
     * (or none) other rounds. */
    describe(8, 1, 42, got, sizeof got);
    describe(8, 1, 42, again, sizeof again);
    LENS_TEST(strcmp(got, again) == 0, "seed 42 twice: %s vs %s", got, again);
    describe(8, 1, 43, again, sizeof again);
    LENS_TEST(strcmp(got, again) != 0, "seeds 42 and 43 give the same schedule %s", got);
    describe(8, 0, 0, again, sizeof again);
    LENS_TEST(strcmp(got, again) != 0, "seed 42 gives the unshuffled schedule %s", got);

    /* Bad sizes and allocation failures leave nothing behind. */
    struct lens_bench_schedule s;
    struct lens_err e;
    LENS_TEST(lens_bench_schedule_init(&s, 1, 0, 0, &e) == LENS_EINVAL, "1 rank accepted");
    LENS_TEST(strstr(e.msg, "at least 2 ranks, got 1") != NULL, "message: %s", e.msg);
    LENS_TEST(s.seat == NULL && s.order == NULL, "1 rank: state left");
    for (long k = 1; k <= 2; k++) {
        lens_malloc_fail_after(k);
        int rc = lens_bench_schedule_init(&s, 6, 1, 5, &e);
        lens_malloc_fail_after(0);
        LENS_TEST(rc == LENS_ENOMEM && s.seat == NULL && s.order == NULL,
                  "allocation %ld failing: rc %d", k, rc);
    }
    return LENS_TEST_DONE("test_bench_schedule");
}
