/* The profile builder's memory stays bounded for thin profiles: one process with millions of
 * functions (or the reverse) once reserved 64 rows (or 16 columns) of capacity for each, up to
 * 64 times the cells the profile holds. The capacity must stay within twice the cell limit
 * (profile.h), and the finished profile must still hold exactly what was added. */
#include "analysis/profile/profile.h"
#include "lens_test.h"

#include <stdio.h>
#include <string.h>

/* Adds n functions "f<k>" with k + 1 microseconds to one process (rank 7) and checks the
 * builder's capacity along the way. */
static void thin_row(size_t n)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_profile *p = lens_profile_new();
    LENS_TEST(p != NULL, "new profile");
    if (!p)
        return;
    int ok = 1;
    size_t worst = 0;
    char name[32];
    for (size_t k = 0; k < n && ok; k++) {
        snprintf(name, sizeof name, "f%zu", k);
        ok = lens_profile_add(p, 7, name, (double)(k + 1) * 1e-6, &e) == LENS_OK;
        if (p->pcap * p->fcap > worst)
            worst = p->pcap * p->fcap;
    }
    LENS_TEST(ok, "adding %zu functions: %s", n, e.msg);
    LENS_TEST(worst <= 2 * LENS_PROFILE_MAX_CELLS,
              "capacity %zu cells for 1 x %zu (limit %zu)", worst, n,
              (size_t)(2 * LENS_PROFILE_MAX_CELLS));
    LENS_TEST(lens_profile_finish(p, &e) == LENS_OK, "finish: %s", e.msg);
    LENS_TEST(p->nproc == 1 && p->nfunc == n, "%zu x %zu", p->nproc, p->nfunc);
    /* spot checks against the values as added, independent of the layout */
    size_t probe[] = {0, 1, n / 2, n - 1};
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "f%zu", probe[i]);
        long f = lens_profile_find(p, name);
        LENS_TEST(f >= 0, "find %s", name);
        if (f >= 0)
            LENS_TEST_REL(lens_profile_func_total(p, (size_t)f), (double)(probe[i] + 1) * 1e-6,
                          1e-15, "seconds of %s", name);
    }
    lens_profile_free(p);
}

/* A small profile is unaffected: the usual doubling, values in place after growth in both
 * directions. */
static void small_grid(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_profile *p = lens_profile_new();
    int ok = p != NULL;
    char name[32];
    for (int r = 99; r >= 0 && ok; r--)
        for (int f = 0; f < 40 && ok; f++) {
            snprintf(name, sizeof name, "g%d", f);
            ok = lens_profile_add(p, r, name, r * 100 + f, &e) == LENS_OK;
        }
    LENS_TEST(ok, "small grid: %s", e.msg);
    if (!ok) {
        lens_profile_free(p);
        return;
    }
    LENS_TEST(p->pcap == 128 && p->fcap == 64, "capacity %zu x %zu", p->pcap, p->fcap);
    LENS_TEST(lens_profile_finish(p, &e) == LENS_OK, "finish: %s", e.msg);
    int bad = 0;
    for (size_t r = 0; r < p->nproc; r++)
        for (size_t f = 0; f < p->nfunc; f++) {
            snprintf(name, sizeof name, "g%zu", f);
            bad += p->ranks[r] != (long)r || strcmp(p->funcs[f], name) ||
                   p->sec[r * p->nfunc + f] != (double)(r * 100 + f);
        }
    LENS_TEST(bad == 0, "%d cells differ", bad);
    lens_profile_free(p);
}

int main(void)
{
    small_grid();
    /* 64 rows x 2^22 columns would be 2^28 cells: twice the limit */
    thin_row(((size_t)1 << 21) + 1);
    return LENS_TEST_DONE("test_profile_grow");
}
