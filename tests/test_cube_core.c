/* Cube statistics by hand, selection against sorting, and allocation-failure injection over
 * every constructor (reader, synthetic generator, writer). */
#include "analysis/cube/cube.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of large arrays (the sample filter and the radix path of lens_cube_median)
 * against sorting: odd and even sizes, ties, a narrow range (few distinct top bits), negative
 * values and zeros, sorted input, infinities, and a sample that lies (every value the evenly
 * spaced sample picks is far above the rest, so the filter misses and the radix path decides);
 * the array stays a permutation of its values. */
static void test_large_median(void)
{
    static const size_t sizes[] = {16384, 16385, 100000, 100001};
    unsigned seed = 12345;
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; t++)
        for (int kind = 0; kind < 7; kind++) {
            size_t n = sizes[t];
            double *v = malloc(n * sizeof *v), *ref = malloc(n * sizeof *ref);
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                double u = (seed >> 8) / 16777216.0;
                v[i] = kind == 0 ? 3.5e-7 + 1e-8 * u                  /* narrow: one exponent */
                     : kind == 1 ? (double)(int)(u * 5)                /* ties everywhere */
                     : kind == 2 ? (u - 0.5) * 1e3                     /* negatives, both signs */
                     : kind == 3 ? (i % 2 ? 0.0 : 1e-6 * u)            /* half zeros */
                     : kind == 4 ? 1e-6 + 1e-12 * (double)i            /* sorted */
                     : kind == 5 ? (i % 7 ? u : INFINITY)              /* infinities */
                     : (i % (n / 4096) ? u : 1e3 + u);                 /* the sample lies */
                ref[i] = v[i];
            }
            qsort(ref, n, sizeof *ref, cmp);
            double want = n % 2 ? ref[n / 2] : 0.5 * (ref[n / 2 - 1] + ref[n / 2]);
            double got = lens_cube_median(v, n);
            LENS_TEST(got == want, "median n=%zu kind %d: %.17g, sorting gives %.17g", n, kind, got, want);
            qsort(v, n, sizeof *v, cmp);
            LENS_TEST(!memcmp(v, ref, n * sizeof *v), "median n=%zu kind %d: still a permutation", n, kind);
            free(v);
            free(ref);
        }
}

int main(void)
{
    test_large_median();
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_cube *c;
    LENS_TEST(lens_cube_new(&c, 3, 2, 0, 1024, 1u << LENS_STAT_MEDIAN, &e) == LENS_OK, "new: %s", e.msg);
    /* length 0: A = [0 4 7; 2 0 9; 5 1 0] (us); length 1024: doubles */
    double a[9] = {0, 4, 7, 2, 0, 9, 5, 1, 0};
    for (int k = 0; k < 2; k++)
        for (int x = 0; x < 9; x++)
            c->data[LENS_STAT_MEDIAN][k * 9 + x] = a[x] * 1e-6 * (k + 1);
    struct lens_summary s;
    LENS_TEST(lens_cube_summary(c, LENS_STAT_MEDIAN, 0, &s, &e) == LENS_OK, "summary");
    /* off-diagonal of length 0: 4 7 2 9 5 1 -> sorted 1 2 4 5 7 9, median (4+5)/2 */
    LENS_TEST_REL(s.min, 1e-6, 1e-12, "min");
    LENS_TEST_REL(s.median, 4.5e-6, 1e-12, "even median");
    LENS_TEST_REL(s.max, 9e-6, 1e-12, "max");
    LENS_TEST(lens_cube_summary(c, LENS_STAT_MEDIAN, -1, &s, &e) == LENS_OK && s.count == 12, "all lengths");
    /* 4 7 2 9 5 1 8 14 4 18 10 2 -> sorted 1 2 2 4 4 5 7 8 9 10 14 18: median (5+7)/2 */
    LENS_TEST_REL(s.median, 6e-6, 1e-12, "median over lengths");
    double am, ax;
    LENS_TEST(lens_cube_asymmetry(c, LENS_STAT_MEDIAN, &am, &ax, &e) == LENS_OK, "asymmetry");
    /* pairs (4,2) (7,5) (9,1): 2/6, 2/12, 8/10, same at both lengths -> median 1/3, max 0.8 */
    LENS_TEST_REL(am, 1.0 / 3.0, 1e-12, "asymmetry median");
    LENS_TEST_REL(ax, 0.8, 1e-12, "asymmetry max");
    LENS_TEST(lens_cube_summary(c, LENS_STAT_MIN, -1, &s, &e) == LENS_EINVAL, "absent statistic");
    LENS_TEST(lens_cube_length_index(c, 1000) == 1 && lens_cube_length_index(c, 3) == 0, "length index");
    lens_cube_free(c);
    lens_cube_free(NULL);

    /* selection-based median equals the sorted median on random data of odd and even size */
    for (int n = 5; n <= 6; n++) {
        int P = 37 + n;
        LENS_TEST(lens_cube_new(&c, P, 3, 0, 1, 1u << LENS_STAT_AVERAGE, &e) == LENS_OK, "new");
        size_t cells = (size_t)P * P * 3, m = 0;
        double *ref = malloc(cells * sizeof *ref);
        unsigned long long x = 88172645463325252ULL + (unsigned)n;
        for (size_t i = 0; i < cells; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            double v = (double)(x % 1000003) * 1e-9;
            c->data[LENS_STAT_AVERAGE][i] = v;
            size_t r = (i / P) % P, col = i % P;
            if (r != col)
                ref[m++] = v;
        }
        qsort(ref, m, sizeof *ref, cmp);
        double want = m % 2 ? ref[m / 2] : 0.5 * (ref[m / 2 - 1] + ref[m / 2]);
        LENS_TEST(lens_cube_summary(c, LENS_STAT_AVERAGE, -1, &s, &e) == LENS_OK, "summary");
        LENS_TEST_REL(s.median, want, 0, "quickselect median P=%d", P);
        LENS_TEST_REL(s.min, ref[0], 0, "min");
        LENS_TEST_REL(s.max, ref[m - 1], 0, "max");
        free(ref);
        lens_cube_free(c);
    }

    /* names round-trip */
    for (int m = 1; m <= LENS_MODE_LAST; m++)
        LENS_TEST(lens_cube_mode_parse(lens_cube_mode_name(m)) == m, "mode %d", m);
    LENS_TEST(lens_cube_mode_parse("bogus") == LENS_MODE_UNKNOWN, "unknown mode");
    LENS_TEST(lens_cube_stat_parse("deviation") == LENS_STAT_DEVIATION, "stat parse");

    /* every allocation failure inside the constructors returns ENOMEM and leaks nothing
     * (ASan's leak checker verifies the second half of that) */
    const char *data = getenv("DATA");
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "%s/network-tests2/plugins-branch-2024", data ? data : "tests/data");
    struct lens_synth_opts so;
    lens_synth_opts_init(&so);
    for (int which = 0; which < 2; which++) {
        int ok = 0, failures = 0;
        for (long n = 1; n < 400 && !ok; n++) {
            lens_malloc_fail_after(n);
            int rc = which == 0 ? lens_cube_read(prefix, &c, &e) : lens_synth_cube(&so, &c, &e);
            lens_malloc_fail_after(0);
            if (rc == LENS_OK) {
                ok = 1;
                lens_cube_free(c);
            } else if (rc != LENS_ENOMEM) {
                failures++;
                fprintf(stderr, "n=%ld: rc %d: %s\n", n, rc, e.msg);
            }
        }
        LENS_TEST(ok && !failures, "%s: fault injection (ok=%d, wrong codes=%d)",
                  which ? "synth" : "read", ok, failures);
    }
    return LENS_TEST_DONE("test_cube_core");
}
