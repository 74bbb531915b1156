/* Order of scratch arrays of doubles for the per-cube numbers of a report (cube.h): a sort
 * with the comparison inlined, for the places that need every order statistic, and two order
 * statistics by selection, for the places that need only a percentile pair. */
#include "cube.h"

#include <math.h>
#include <stddef.h>

/* Below this many values insertion sort beats partitioning (fewer moves, no recursion). */
#define SMALL 16

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

static void sift_down(double *v, size_t root, size_t n)
{
    for (size_t c; (c = 2 * root + 1) < n; root = c) {
        if (c + 1 < n && v[c + 1] > v[c])
            c++;
        if (!(v[c] > v[root]))
            return;
        double t = v[c];
        v[c] = v[root];
        v[root] = t;
    }
}

/* The fallback when partitioning keeps going badly: O(n log n) whatever the input. */
static void heapsort_d(double *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t i = n; i-- > 1;) {
        double t = v[0];
        v[0] = v[i];
        v[i] = t;
        sift_down(v, 0, i);
    }
}

/* Introsort (Musser, "Introspective sorting and selection algorithms"): quicksort with the
 * median of three and Hoare's partition, as lens_cube_select, recursing into the smaller side
 * so the stack stays O(log n); after 2 log2 n levels a range is heap-sorted. */
static void introsort(double *v, size_t n, int depth)
{
    while (n > SMALL) {
        if (depth-- == 0) {
            heapsort_d(v, n);
            return;
        }
        size_t mid = n / 2;
        double a = v[0], b = v[mid], c = v[n - 1];
        double p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        /* The scans stop at a value not below (not above) p: the pivot itself bounds the
         * first pass, each swapped value the next, so neither runs off the range. */
        size_t i = 0, j = n - 1;
        for (;;) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i >= j)
                break;
            double t = v[i];
            v[i++] = v[j];
            v[j--] = t;
        }
        /* v[0..j] <= p <= v[j+1..n), both non-empty: j never passes below a value <= p, and
         * j == n - 1 would need every value left of the end below p, yet the median of
         * three is p or above p somewhere left of the end */
        size_t nl = j + 1, nr = n - nl;
        if (nl < nr) {
            introsort(v, nl, depth);
            v += nl;
            n = nr;
        } else {
            introsort(v + nl, nr, depth);
            n = nl;
        }
    }
    insertion(v, n);
}

size_t lens_cube_sort(double *v, size_t n)
{
    /* NaN compares false both ways and would land anywhere: move them to the end first, so
     * the numbers before them are in order and the caller knows how many there are. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i])) {
            double t = v[m];
            v[m++] = v[i];
            v[i] = t;
        }
    int depth = 0;
    for (size_t k = m; k > 1; k >>= 1)
        depth += 2;
    introsort(v, m, depth);
    return m;
}

void lens_cube_select_pair(double *v, size_t n, size_t k1, size_t k2, double *x1, double *x2)
{
    /* The larger rank first: selection leaves v[0..k2) <= v[k2], so the smaller rank is the
     * k1-th of that prefix and the second selection runs on it alone. */
    *x2 = lens_cube_select(v, n, k2);
    *x1 = k1 < k2 ? lens_cube_select(v, k2, k1) : *x2;
}
