/* A sub-region of an efficiency grid (docs/scale.md, "Marks of a sub-region"): Teplov's remedy
 * when a mark near zero averages a rise and a fall is to take the marks over part of the range,
 * so the cut keeps every layer of the grid and the marks are computed on it as on any grid. */
#include "runs.h"

#include <math.h>
#include <string.h>

/* First index of the ascending v[0..n) with v >= lo, and one past the last with v <= hi. NaN
 * bounds are open ends. */
static void span(const double *v, size_t n, double lo, double hi, size_t *a, size_t *b)
{
    /* linear scans: an axis has at most a few hundred values, and this runs once per grid */
    *a = 0;
    while (*a < n && !isnan(lo) && v[*a] < lo)
        (*a)++;
    *b = *a;
    while (*b < n && (isnan(hi) || v[*b] <= hi))
        (*b)++;
}

/* Copies the [i0, i0 + np) x [j0, j0 + nd) block of a layer of width w; src NULL gives NULL. */
static void *cut(const void *src, size_t elem, size_t w, size_t i0, size_t np, size_t j0, size_t nd,
                 int *oom)
{
    if (!src)
        return NULL;
    /* + 1: an empty cut still gets a block, so NULL only ever means "absent" or out of memory */
    unsigned char *dst = lens_malloc(np * nd * elem + 1);
    if (!dst) {
        *oom = 1;
        return NULL;
    }
    /* Row by row: the layers are stored size-major (cell j * np + i). */
    for (size_t j = 0; j < nd; j++)
        memcpy(dst + j * np * elem, (const unsigned char *)src + ((j0 + j) * w + i0) * elem, np * elem);
    return dst;
}

int lens_runs_subgrid(const struct lens_grid *g, double plo, double phi, double dlo, double dhi,
                      struct lens_grid *out, struct lens_err *e)
{
    memset(out, 0, sizeof *out);
    if (plo > phi || dlo > dhi)
        return lens_err_set(e, LENS_EINVAL, "%s: empty range: processes %g:%g, sizes %g:%g",
                            g->app ? g->app : "grid", plo, phi, dlo, dhi);
    /* The axes are sorted, so each range is one contiguous block of indices and the cut is a
     * rectangle of every layer. */
    size_t i0, i1, j0, j1;
    span(g->procs, g->np, plo, phi, &i0, &i1);
    span(g->size, g->nd, dlo, dhi, &j0, &j1);
    size_t np = i1 - i0, nd = j1 - j0, cells = g->np * g->nd;
    /* One side empty: the grid is empty on both, so nothing reads a row of nothing. */
    if (!np || !nd)
        np = nd = 0;
    /* oom collects every failed allocation, so the copies go on and one release frees all */
    int oom = 0;
    out->app = lens_strdup(g->app ? g->app : "");
    out->np = np;
    out->nd = nd;
    out->n_failed = g->n_failed;
    out->procs = cut(g->procs + i0, sizeof(double), np, 0, np, 0, 1, &oom);
    out->size = cut(g->size + j0, sizeof(double), nd, 0, nd, 0, 1, &oom);
    out->eff = cut(g->eff, sizeof(double), g->np, i0, np, j0, nd, &oom);
    out->perf = cut(g->perf, sizeof(double), g->np, i0, np, j0, nd, &oom);
    out->extra = cut(g->extra, sizeof(double), g->np, i0, np, j0, nd, &oom);
    out->zero = cut(g->zero, 1, g->np, i0, np, j0, nd, &oom);
    out->kept = cut(g->kept, sizeof(int), g->np, i0, np, j0, nd, &oom);
    out->t_med = cut(g->t_med, sizeof(double), g->np, i0, np, j0, nd, &oom);
    out->t_min = cut(g->t_min, sizeof(double), g->np, i0, np, j0, nd, &oom);
    out->t_max = cut(g->t_max, sizeof(double), g->np, i0, np, j0, nd, &oom);
    out->t_n = cut(g->t_n, sizeof(size_t), g->np, i0, np, j0, nd, &oom);
    /* cut, not recomputed: a part without p = 1 keeps the speed-ups of the whole grid */
    out->t_speedup = cut(g->t_speedup, sizeof(double), g->np, i0, np, j0, nd, &oom);
    /* var_eff holds one grid per placement back to back: each is cut on its own */
    if (g->n_var && g->var_eff) {
        out->var = lens_calloc(g->n_var, sizeof *out->var);
        out->var_eff = lens_malloc(g->n_var * np * nd * sizeof(double) + 1);
        oom |= !out->var || !out->var_eff;
        for (size_t v = 0; !oom && v < g->n_var; v++) {
            oom |= !(out->var[v] = lens_strdup(g->var[v]));
            out->n_var = v + 1; /* counted as soon as var[v] is set, for the release */
            double *blk = cut(g->var_eff + v * cells, sizeof(double), g->np, i0, np, j0, nd, &oom);
            if (blk)
                memcpy(out->var_eff + v * np * nd, blk, np * nd * sizeof(double));
            lens_free(blk);
        }
    }
    if (!out->app || oom) {
        lens_runs_grid_release(out);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for a sub-grid", g->app ? g->app : "grid");
    }
    return LENS_OK;
}
