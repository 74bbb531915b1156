/* The circle method of round-robin tournaments (see schedule.h). Seat m-1 stays put while
 * seats 0..m-2 turn one step per round; in rotation t, seat m-1 meets seat t and seat
 * (t+k) meets seat (t-k) (mod m-1) for k = 1..m/2-1. */
#include "schedule.h"

#include <string.h>

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators"):
 * a few lines, the same sequence on every platform and every rank, unlike rand(). */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Fisher-Yates over a[0..n-1]. The modulo's bias is below n / 2^64: nothing for n < 2^31. */
static void shuffle_ints(int *a, int n, uint64_t *state)
{
    for (int i = n - 1; i > 0; i--) {
        int k = (int)(splitmix64(state) % (uint64_t)(i + 1));
        int t = a[i];
        a[i] = a[k];
        a[k] = t;
    }
}

int lens_bench_schedule_init(struct lens_bench_schedule *s, int n, int shuffle, uint64_t seed,
                             struct lens_err *e)
{
    memset(s, 0, sizeof *s);
    if (n < 2)
        return lens_err_set(e, LENS_EINVAL, "a schedule needs at least 2 ranks, got %d", n);
    s->n = n;
    s->seats = n + (n & 1); /* the circle method needs an even count */
    s->rounds = s->seats - 1; /* each seat meets the seats - 1 others once */
    s->seat = lens_malloc((size_t)s->seats * sizeof(int));
    s->order = lens_malloc((size_t)s->rounds * sizeof(int));
    if (!s->seat || !s->order) {
        lens_bench_schedule_release(s);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for the schedule of %d ranks", n);
    }
    for (int i = 0; i < s->seats; i++)
        s->seat[i] = i < n ? i : -1; /* odd n: the last seat is empty, its neighbour has the bye */
    for (int r = 0; r < s->rounds; r++)
        s->order[r] = r;
    if (shuffle) {
        /* Relabelling the seats and reordering the rounds keeps every property of the
         * tournament (disjoint pairs per round, each pair once) and changes which pairs run
         * side by side and when. */
        uint64_t state = seed; /* one stream: seats first, then rounds */
        shuffle_ints(s->seat, s->seats, &state);
        shuffle_ints(s->order, s->rounds, &state);
    }
    return LENS_OK;
}

void lens_bench_schedule_round(const struct lens_bench_schedule *s, int r, int *partner)
{
    int m = s->seats, t = s->order[r]; /* t: the rotation played in round r */
    for (int x = 0; x < s->n; x++)
        partner[x] = -1;
    /* Seat pairs of rotation t: (m-1, t) and (t+k, t-k) mod (m-1). A rank facing the empty
     * seat keeps partner -1: that is its bye. */
    for (int k = 0; k < m / 2; k++) {
        int u = k == 0 ? m - 1 : (t + k) % (m - 1);
        int v = k == 0 ? t : (t - k + (m - 1)) % (m - 1);
        int a = s->seat[u], b = s->seat[v];
        if (a >= 0 && b >= 0) {
            partner[a] = b;
            partner[b] = a;
        }
    }
}

void lens_bench_schedule_release(struct lens_bench_schedule *s)
{
    lens_free(s->seat);
    lens_free(s->order);
    memset(s, 0, sizeof *s);
}
