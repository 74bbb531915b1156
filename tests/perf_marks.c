/* Timing driver for `make bench` (scripts/bench.d/scale.sh), never run by `make check`:
 *   marks of 100 applications on 256 x 256 grids (issue: well under a second),
 *   building those grids from 6.5 million runs (best of repeats, as from a CSV),
 *   rendering a 64 x 64 surface to PNG and to SVG (issue: under 0.5 s).
 * usage: perf_marks OUTDIR   prints "name seconds" lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scale/marks.h"
#include "common/time.h"
#include "analysis/scale/runs.h"
#include "render/fig/surface.h"

#define N_APPS 100
#define N_GRID 256

/* A smooth falling surface with a deterministic ripple, so that no two apps tie. */
static double eff(int a, int i, int j)
{
    double x = i / (double)(N_GRID - 1), y = j / (double)(N_GRID - 1);
    return 0.95 - (0.3 + 0.004 * a) * x + 0.1 * y + 0.02 * sin(7 * x + a) * cos(5 * y);
}

int main(int argc, char **argv)
{
    const char *outdir = argc > 1 ? argv[1] : "/tmp";
    struct lens_err e = {0};
    /* 1. marks on ready grids */
    struct lens_grid *g = lens_calloc(N_APPS, sizeof *g);
    struct lens_marks *m = lens_calloc(N_APPS, sizeof *m);
    const char **names = lens_calloc(N_APPS, sizeof *names);
    size_t *order = lens_calloc(N_APPS, sizeof *order);
    char name[N_APPS][16];
    for (int a = 0; a < N_APPS; a++) {
        snprintf(name[a], sizeof name[a], "app%03d", a);
        g[a].app = name[a];
        g[a].np = g[a].nd = N_GRID;
        g[a].procs = lens_malloc(N_GRID * sizeof(double));
        g[a].size = lens_malloc(N_GRID * sizeof(double));
        g[a].eff = lens_malloc(N_GRID * N_GRID * sizeof(double));
        for (int k = 0; k < N_GRID; k++) {
            g[a].procs[k] = 1 + 4 * k;
            g[a].size[k] = 1000 + 250.0 * k;
        }
        for (int j = 0; j < N_GRID; j++)
            for (int i = 0; i < N_GRID; i++)
                g[a].eff[j * N_GRID + i] = eff(a, i, j);
        names[a] = name[a];
    }
    double t0 = lens_time_now();
    for (int a = 0; a < N_APPS; a++)
        lens_marks_compute(&g[a], &m[a], &e);
    for (int k = 0; k < 3; k++)
        lens_marks_rank(m, names, N_APPS, k, order, &e);
    double t_marks = lens_time_now() - t0;
    printf("marks_256x256x100 %.6f\n", t_marks);
    printf("marks_check %.12g %.12g\n", m[0].mark_procs, m[N_APPS - 1].mark_all);

    /* 2. the same configurations as runs, two repeats of a tenth of them, grouped into grids */
    struct lens_runs *r = lens_runs_new();
    int rc = LENS_OK;
    for (int a = 0; a < N_APPS && rc == LENS_OK; a++)
        for (int j = 0; j < N_GRID && rc == LENS_OK; j++)
            for (int i = 0; i < N_GRID && rc == LENS_OK; i++)
                rc = lens_runs_add(r, name[a], LENS_RUNS_EFFICIENCY, LENS_RUNS_OK, g[a].procs[i],
                                   g[a].size[j], eff(a, i, j) - ((i + j) % 10 == 0 ? 0.05 : 0), &e);
    size_t n = 0;
    struct lens_grid *built = NULL;
    t0 = lens_time_now();
    if (rc == LENS_OK)
        rc = lens_runs_grids(r, NULL, &built, &n, &e);
    double t_build = lens_time_now() - t0;
    if (rc < 0) {
        fprintf(stderr, "perf_marks: %s\n", e.msg);
        return 1;
    }
    printf("grids_from_6.5M_runs %.6f\n", t_build);
    lens_runs_grids_free(built, n);
    lens_runs_free(r);

    /* 3. a 64 x 64 surface */
    struct lens_grid s = {.app = "surface64", .np = 64, .nd = 64, .procs = NULL, .size = NULL, .eff = NULL};
    s.procs = lens_malloc(64 * sizeof(double));
    s.size = lens_malloc(64 * sizeof(double));
    s.eff = lens_malloc(64 * 64 * sizeof(double));
    for (int k = 0; k < 64; k++) {
        s.procs[k] = 1 + k;
        s.size[k] = 1e4 * (k + 1);
    }
    for (int j = 0; j < 64; j++)
        for (int i = 0; i < 64; i++)
            s.eff[j * 64 + i] = eff(3, i * 4, j * 4);
    struct lens_surface_opts o;
    lens_surface_opts_default(&o);
    char path[1024];
    const char *ext[2] = {"png", "svg"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/surface64.%s", outdir, ext[k]);
        t0 = lens_time_now();
        rc = lens_surface_write(path, &s, &o, &e);
        double t = lens_time_now() - t0;
        if (rc < 0) {
            fprintf(stderr, "perf_marks: %s\n", e.msg);
            return 1;
        }
        printf("surface_64x64_%s %.6f\n", ext[k], t);
    }
    lens_free(s.procs);
    lens_free(s.size);
    lens_free(s.eff);
    for (int a = 0; a < N_APPS; a++) {
        lens_free(g[a].procs);
        lens_free(g[a].size);
        lens_free(g[a].eff);
    }
    lens_free(g);
    lens_free(m);
    lens_free(names);
    lens_free(order);
    return 0;
}
