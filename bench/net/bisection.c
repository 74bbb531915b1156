/* The bisection rounds (see bisection.h): one random permutation per round; its first half
 * is side 0, the next n / 2 ranks side 1, position t of one half meets position t of the
 * other, and an odd n leaves the last rank out. A uniform permutation gives a uniform split
 * and, given the split, a uniform matching across it. */
#include "bisection.h"

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators"), as
 * schedule.c: the same sequence on every platform and rank, unlike rand(). */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void lens_bench_bisection_round(int n, uint64_t seed, int r, int *side, int *partner)
{
    /* The round's own stream: round r does not depend on how many rounds came before, so a
     * run of 5 rounds is the first 5 of a run of 50 with the same seed. The odd multiplier
     * spreads consecutive rounds apart before splitmix64 mixes them. */
    uint64_t state = seed ^ ((uint64_t)r * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL);
    /* partner doubles as the permutation while it is drawn (Fisher-Yates), then is rewritten */
    int *perm = partner;
    for (int x = 0; x < n; x++)
        perm[x] = x;
    for (int i = n - 1; i > 0; i--) {
        /* the modulo's bias is below n / 2^64: nothing for any job size */
        int k = (int)(splitmix64(&state) % (uint64_t)(i + 1));
        int t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    /* side carries each rank's partner and half in one int while partner still holds the
     * permutation: b >= 0 is side 0 facing b, -a - 2 is side 1 facing a, -1 sits out. */
    int h = n / 2;
    for (int t = 0; t < h; t++) {
        side[perm[t]] = perm[h + t];
        side[perm[h + t]] = -perm[t] - 2;
    }
    if (n % 2)
        side[perm[n - 1]] = -1; /* odd n: the last drawn sits this round out */
    for (int x = 0; x < n; x++) {
        int v = side[x];
        partner[x] = v >= 0 ? v : v == -1 ? -1 : -v - 2;
        side[x] = v >= 0 ? 0 : v == -1 ? -1 : 1;
    }
}
