/* The reference for divisive link clustering in tests and benchmarks: the steps of
 * docs/methods.md §3 on a precomputed full N x N matrix of squared distances, the naive way that
 * analysis/structure/links.c avoids. Shared by tests/test_links.c and tests/perf_links.c. */
#ifndef LENS_LINKS_NAIVE_H
#define LENS_LINKS_NAIVE_H

#include <stdlib.h>

/* farthest in set from a (ties: smaller id) */
static int farthest(const double *D, int N, const int *set, int ns, int a)
{
    int best = -1;
    for (int t = 0; t < ns; t++)
        if (best < 0 || D[(size_t)a * N + set[t]] > D[(size_t)a * N + best] ||
            (D[(size_t)a * N + set[t]] == D[(size_t)a * N + best] && set[t] < best))
            best = set[t];
    return best;
}

/* The steps of docs/methods.md §3 on a precomputed N x N matrix; K clusters. */
static void naive(const double *D, int N, int K, int *lab)
{
    if (N < 2 || K < 1)
        return;
    int *r = malloc(K * sizeof *r), *s = malloc(K * sizeof *s), nc = 1, *set = malloc(N * sizeof *set);
    int *A = malloc(N * sizeof *A), *B = malloc(N * sizeof *B);
    for (int x = 0; x < N; x++)
        lab[x] = 0, set[x] = x;
    r[0] = farthest(D, N, set, N, 0);
    s[0] = farthest(D, N, set, N, r[0]);
    while (nc < K) {
        int best = -1, bmin = 0;
        for (int c = 0; c < nc; c++) {
            int mn = N;
            for (int x = 0; x < N; x++)
                mn = lab[x] == c && x < mn ? x : mn;
            double d = D[(size_t)r[c] * N + s[c]];
            if (d > 0 && (best < 0 || d > D[(size_t)r[best] * N + s[best]] ||
                          (d == D[(size_t)r[best] * N + s[best]] && mn < bmin)))
                best = c, bmin = mn;
        }
        if (best < 0)
            break;
        int R = r[best], S = s[best], na = 0, nb = 0;
        for (int x = 0; x < N; x++)
            if (lab[x] == best) {
                if (D[(size_t)R * N + x] <= D[(size_t)S * N + x])
                    A[na++] = x;
                else
                    B[nb++] = x, lab[x] = nc;
            }
        r[best] = farthest(D, N, A, na, R);
        s[best] = farthest(D, N, A, na, r[best]);
        r[nc] = farthest(D, N, B, nb, S);
        s[nc] = farthest(D, N, B, nb, r[nc]);
        nc++;
    }
    free(r), free(s), free(set), free(A), free(B);
}

/* Same partition up to the numbering of the clusters. */
static int same_partition(const int *a, const int *b, int n)
{
    for (int x = 0; x < n; x++)
        for (int y = x + 1; y < n; y++)
            if ((a[x] == a[y]) != (b[x] == b[y]))
                return 0;
    return 1;
}

#endif
