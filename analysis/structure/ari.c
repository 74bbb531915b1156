/* The adjusted Rand index from the pair confusion matrix (Hubert and Arabie 1985; the form
 * scikit-learn uses): pairs of objects together in both partitions, in one only, in neither.
 * The contingency table is never stored densely: k_u x k_v cells could be n^2. */
#include "ari.h"
#include "common/alloc.h"

#include <stdint.h>
#include <stdlib.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int lens_ari_compute(const int *u, const int *v, size_t n, double *ari, struct lens_err *e)
{
    *ari = 0;
    if (n < 1)
        return lens_err_set(e, LENS_EINVAL, "ari: no objects");
    for (size_t x = 0; x < n; x++)
        if (u[x] < 0 || (size_t)u[x] >= n || v[x] < 0 || (size_t)v[x] >= n)
            return lens_err_set(e, LENS_EINVAL, "ari: label of object %zu out of range 0..%zu", x, n - 1);
    long *cu = lens_calloc(n, sizeof *cu), *cv = lens_calloc(n, sizeof *cv);
    uint64_t *key = lens_malloc(n * sizeof *key);
    if (!cu || !cv || !key) {
        lens_free(cu);
        lens_free(cv);
        lens_free(key);
        return lens_err_set(e, LENS_ENOMEM, "ari: out of memory for %zu objects", n);
    }
    /* a cell of the contingency table is a run of equal keys once sorted: O(n log n), O(n) */
    for (size_t x = 0; x < n; x++) {
        cu[u[x]]++;
        cv[v[x]]++;
        key[x] = (uint64_t)u[x] * n + (uint64_t)v[x];
    }
    qsort(key, n, sizeof *key, cmp_u64);
    /* Sums of squares in long double: with n = 10^6 objects they reach 10^12, and the
     * products below 10^24, where a double's 53 bits would round the difference tp tn - fn fp. */
    long double ss = 0, su = 0, sv = 0, N = (long double)n;
    for (size_t x = 0, y; x < n; x = y) {
        for (y = x + 1; y < n && key[y] == key[x]; y++)
            ;
        ss += (long double)(y - x) * (long double)(y - x);
    }
    for (size_t x = 0; x < n; x++) {
        su += (long double)cu[x] * cu[x];
        sv += (long double)cv[x] * cv[x];
    }
    lens_free(cu);
    lens_free(cv);
    lens_free(key);
    /* ordered pairs: tp together in both, fp together in v only, fn in u only, tn in neither
     * (scikit-learn's pair_confusion_matrix, which counts each unordered pair twice) */
    long double tp = ss - N, fp = sv - ss, fn = su - ss, tn = N * N - fp - fn - ss;
    /* no pair told apart differently: the partitions are the same (the formula would be 0/0
     * for two one-cluster or two all-singleton partitions) */
    if (fn == 0 && fp == 0) {
        *ari = 1.0;
        return LENS_OK;
    }
    *ari = (double)(2 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn)));
    return LENS_OK;
}
