/* lens_cube_sort and lens_cube_select_pair against qsort, the reference the code they replace
 * used: random values, ties, few distinct values, sorted and reversed runs, signed zeros,
 * infinities and NaN of either sign, at n = 0, 1, 2, odd and even sizes on both sides of the
 * insertion-sort cut-off (64), and the profile size of a 600-rank cube (2 x 599). */
#include "analysis/cube/cube.h"
#include "lens_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned seed = 2024;
static double uniform(void)
{
    seed = seed * 1103515245u + 12345u;
    return (seed >> 8) / 16777216.0;
}

enum { KINDS = 9 };
static const char *kind_name[KINDS] = {"uniform", "ties",     "two values", "sorted", "reversed",
                                       "organ pipe", "zeros", "infinities", "nan"};

static double value(int kind, size_t i, size_t n)
{
    double u = uniform();
    switch (kind) {
    case 0: return (u - 0.5) * 1e-3;
    case 1: return (double)(int)(u * 7);                        /* ties everywhere */
    case 2: return u < 0.5 ? 1.0 : 2.0;
    case 3: return 1e-6 * (double)i;
    case 4: return -1e-6 * (double)i;
    case 5: return (double)(i < n / 2 ? i : n - i);             /* up then down */
    case 6: return u < 0.3 ? 0.0 : u < 0.6 ? -0.0 : u - 0.6;    /* both zeros */
    case 7: return u < 0.1 ? INFINITY : u < 0.2 ? -INFINITY : u;
    default: return u < 0.1 ? NAN : u < 0.2 ? copysign(NAN, -1.0) : u - 0.5; /* NaN of both signs: last */
    }
}

/* ref: the numbers of v sorted by qsort, NaN left out; returns how many. */
static size_t reference(const double *v, size_t n, double *ref)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            ref[m++] = v[i];
    qsort(ref, m, sizeof *ref, cmp);
    return m;
}

/* == rather than memcmp: -0 and +0 are equal to the reference's comparison too */
static int same(const double *a, const double *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!(a[i] == b[i]))
            return 0;
    return 1;
}

static void test_sort(size_t n, int kind)
{
    double *v = malloc((n + 1) * sizeof *v), *ref = malloc((n + 1) * sizeof *ref);
    double *scratch = malloc((n + 1) * sizeof *scratch);
    for (size_t i = 0; i < n; i++)
        v[i] = value(kind, i, n);
    size_t want = reference(v, n, ref);
    size_t got = lens_cube_sort(v, n, scratch);
    LENS_TEST(got == want, "sort n=%zu %s: %zu numbers, want %zu", n, kind_name[kind], got, want);
    LENS_TEST(got == want && same(v, ref, want), "sort n=%zu %s: the order of qsort", n, kind_name[kind]);
    size_t nan = 0;
    for (size_t i = want; i < n; i++)
        nan += isnan(v[i]) != 0;
    LENS_TEST(nan == n - want, "sort n=%zu %s: the NaNs after the numbers", n, kind_name[kind]);
    free(v);
    free(scratch);
    free(ref);
}

/* Both ranks against the sorted reference, at the ends, equal, adjacent and random; v must
 * stay a permutation of its values. The callers' percentile pairs (nearest rank) included. */
static void test_pair(size_t n, int kind)
{
    if (n == 0 || kind == 8) /* the contract: n > 0, no NaN */
        return;
    double *v = malloc(n * sizeof *v), *w = malloc(n * sizeof *w), *ref = malloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++)
        v[i] = value(kind, i, n);
    reference(v, n, ref);
    size_t ks[8][2] = {{0, n - 1}, {0, 0}, {n - 1, n - 1}, {n / 2, n / 2},
                       {(n - 1) / 2, n / 2}, /* the two middle ranks of an even n */
                       {(size_t)floor(0.5 * (double)(n - 1) + 0.5), (size_t)floor(0.9 * (double)(n - 1) + 0.5)},
                       {(size_t)floor(0.005 * (double)(n - 1)), (size_t)ceil(0.995 * (double)(n - 1))},
                       {0, 0}};
    ks[7][1] = (size_t)(uniform() * (double)n);
    ks[7][0] = (size_t)(uniform() * (double)(ks[7][1] + 1));
    for (int t = 0; t < 8; t++) {
        memcpy(w, v, n * sizeof *w);
        double x1, x2;
        lens_cube_select_pair(w, n, ks[t][0], ks[t][1], &x1, &x2);
        LENS_TEST(x1 == ref[ks[t][0]] && x2 == ref[ks[t][1]],
                  "pair n=%zu %s ranks %zu,%zu: %g,%g, sorting gives %g,%g", n, kind_name[kind], ks[t][0],
                  ks[t][1], x1, x2, ref[ks[t][0]], ref[ks[t][1]]);
        qsort(w, n, sizeof *w, cmp);
        LENS_TEST(same(w, ref, n), "pair n=%zu %s: still a permutation", n, kind_name[kind]);
    }
    free(v);
    free(w);
    free(ref);
}

int main(void)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 17, 33, 64, 65, 100, 101, 1198, 4096, 100001};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int kind = 0; kind < KINDS; kind++) {
            test_sort(sizes[s], kind);
            test_pair(sizes[s], kind);
        }
    /* all NaN: nothing to sort, nothing moved past the end */
    double allnan[5] = {NAN, NAN, NAN, NAN, NAN}, scratch[5];
    LENS_TEST(lens_cube_sort(allnan, 5, scratch) == 0, "sort: all NaN gives no numbers");
    /* one value and NaN: n = 1 of numbers */
    double one[3] = {NAN, 4.0, NAN};
    LENS_TEST(lens_cube_sort(one, 3, scratch) == 1 && one[0] == 4.0, "sort: one number first");
    return LENS_TEST_DONE("test_cube_order");
}
