/* Order of scratch arrays of doubles for the per-cube numbers of a report (cube.h): a radix
 * sort, for the places that need every order statistic, and two order statistics by
 * selection, for the places that need only a percentile pair. */
#include "cube.h"
#include "cube_readers.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Below this many values insertion sort beats eight histogram passes of 256 buckets. */
#define SMALL 64

static void insertion(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* The key's bits stored in a double's place (memcpy: no aliasing through a cast), so the
 * passes move keys between v and the scratch without a third array. */
static inline uint64_t key_at(const double *a, size_t i)
{
    uint64_t k;
    memcpy(&k, &a[i], sizeof k);
    return k;
}

static inline void key_put(double *a, size_t i, uint64_t k)
{
    memcpy(&a[i], &k, sizeof k);
}

/* The inverse of lens_cube_order_key: a set top bit was a positive value's added sign. */
static inline double key_value(uint64_t k)
{
    uint64_t b = k >> 63 ? k & ~(1ULL << 63) : ~k;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

size_t lens_cube_sort(double *v, size_t n, double *scratch)
{
    /* NaN has no place in the order (the key's order would put a negative NaN first): move
     * them to the end, so the numbers before them are sorted and the caller knows how many. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            double t = v[m];
            v[m++] = v[i];
            v[i] = t;
        }
    if (m <= SMALL) {
        insertion(v, m);
        return m;
    }
    /* LSD radix sort on the order keys, 8 bits a pass: the counts of all eight digits in one
     * read, then one stable scatter per digit, skipping a digit every key shares (the sign
     * and exponent of delays or their logs mostly are). Branch-free passes where a
     * comparison sort mispredicts half its branches on random data: 12.5 us of CPU against
     * qsort's 71 us for the 2(P-1) values of a 600-rank profile (issue 13). */
    size_t cnt[8][256];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < m; i++) {
        uint64_t k = lens_cube_order_key(v[i]);
        key_put(v, i, k);
        for (int d = 0; d < 8; d++)
            cnt[d][k >> (8 * d) & 255]++;
    }
    double *a = v, *b = scratch;
    for (int d = 0; d < 8; d++) {
        size_t *c = cnt[d];
        if (c[key_at(a, 0) >> (8 * d) & 255] == m)
            continue;
        /* bucket starts; the scatter keeps equal digits in their order (LSD needs stable) */
        for (size_t j = 0, sum = 0; j < 256; j++) {
            size_t t = c[j];
            c[j] = sum;
            sum += t;
        }
        for (size_t i = 0; i < m; i++) {
            uint64_t k = key_at(a, i);
            key_put(b, c[k >> (8 * d) & 255]++, k);
        }
        double *t = a;
        a = b;
        b = t;
    }
    /* an odd number of passes left the keys in the scratch */
    for (size_t i = 0; i < m; i++)
        v[i] = key_value(key_at(a, i));
    return m;
}

void lens_cube_select_pair(double *v, size_t n, size_t k1, size_t k2, double *x1, double *x2)
{
    /* The larger rank first: selection leaves v[0..k2) <= v[k2], so the smaller rank is the
     * k1-th of that prefix and the second selection runs on it alone. */
    *x2 = lens_cube_select(v, n, k2);
    *x1 = k1 < k2 ? lens_cube_select(v, k2, k1) : *x2;
}
