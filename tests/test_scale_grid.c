/* The layers of a scale grid (issue 18 items 14-17) at the C level: placements folded with the
 * variant kept per configuration, performance d / T of the run kept, zero filling over every
 * configuration tried, a sub-region cut that keeps every layer cell for cell, and the elements
 * whose mean is the mark. Expected values are worked out by hand from the CSV below. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/scale/marks.h"
#include "analysis/scale/runs.h"
#include "lens_test.h"

/* p = 1, 2, 4 at d = 10 and 20; two placements a, b; (4, 20) only failed. */
static const char *csv =
    "app,placement,procs,size,time,status\n"
    "x,a,1,10,8,ok\n"
    "x,b,1,10,10,ok\n"
    "x,a,2,10,5,ok\n"
    "x,b,2,10,4,ok\n"
    "x,a,4,10,4,ok\n"
    "x,b,4,10,,failed\n"
    "x,a,1,20,16,ok\n"
    "x,b,1,20,20,ok\n"
    "x,a,2,20,10,ok\n"
    "x,b,2,20,9,ok\n"
    "x,a,4,20,,timeout\n";

/* The cell of (p, d) in g, or (size_t)-1. */
static size_t at(const struct lens_grid *g, double p, double d)
{
    for (size_t j = 0; j < g->nd; j++)
        for (size_t i = 0; i < g->np; i++)
            if (g->procs[i] == p && g->size[j] == d)
                return j * g->np + i;
    return (size_t)-1;
}

int main(void)
{
    char dir[] = "/tmp/test_scale_grid.XXXXXX", path[128];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    FILE *fp = fopen(path, "w");
    fputs(csv, fp);
    fclose(fp);
    struct lens_err e = {0};
    struct lens_runs *r = lens_runs_new();
    LENS_TEST(lens_runs_read(r, path, &e) == LENS_OK, "read: %s", e.msg);
    LENS_TEST(r->n_places == 2 && r->n_apps == 1, "2 placements, 1 app: %zu %zu", r->n_places, r->n_apps);

    /* --- folded, gaps: T1(10) = 8 (best of a and b), T1(20) = 16 --- */
    struct lens_grid *g = NULL;
    size_t n = 0;
    struct lens_runs_opts o = {NULL, LENS_RUNS_GAP, 0};
    LENS_TEST(lens_runs_build(r, &o, &g, &n, &e) == LENS_OK && n == 1, "build: %s", e.msg);
    LENS_TEST(g[0].np == 3 && g[0].nd == 2 && g[0].n_var == 2, "3 x 2 grid, 2 variants");
    /* (2, 10): a 8 / (2 * 5) = 0.8, b 8 / (2 * 4) = 1 -> b kept; (4, 20) a gap */
    size_t c = at(&g[0], 2, 10), cells = g[0].np * g[0].nd;
    LENS_TEST_REL(g[0].eff[c], 1.0, 1e-15, "E(2, 10) is the best placement's");
    LENS_TEST(g[0].kept[c] == 1 && !strcmp(g[0].var[1], "b"), "(2, 10) kept b");
    LENS_TEST_REL(g[0].var_eff[c], 0.8, 1e-15, "a's own E(2, 10)");
    LENS_TEST_REL(g[0].perf[c], 10.0 / 4, 1e-15, "performance d / T of the run kept");
    c = at(&g[0], 1, 10);
    LENS_TEST(g[0].kept[c] == 0, "(1, 10) kept a (8 s against 10 s)");
    LENS_TEST_REL(g[0].var_eff[cells + c], 0.8, 1e-15, "b's own E(1, 10) = 8 / 10");
    c = at(&g[0], 4, 10);
    LENS_TEST(isnan(g[0].var_eff[cells + c]) && g[0].kept[c] == 0, "b failed at (4, 10): NaN, a kept");
    c = at(&g[0], 4, 20);
    LENS_TEST(isnan(g[0].eff[c]) && g[0].kept[c] == -1 && !g[0].zero, "(4, 20) a gap, no zero mask");
    /* elements in gap mode: only (1, 2) x (10, 20) */
    struct lens_marks m;
    struct lens_marks_element *el = NULL;
    size_t ne = 0;
    lens_marks_compute(&g[0], &m, &e);
    LENS_TEST(lens_marks_elements(&g[0], &el, &ne, &e) == LENS_OK && ne == 1, "one element: %zu", ne);
    /* E11 = 1, E12 = 1, E21 = 1, E22 = 16 / 18; markP = dEP (2 - 1) / (4 - 1) */
    if (ne == 1) {
        double dep = ((1 - 1.0) + (16.0 / 18 - 1)) / 2;
        LENS_TEST_REL(el[0].mark_p, dep / 3, 1e-14, "markP by hand");
        LENS_TEST_REL(m.mark_procs, el[0].mark_p, 0, "MarkProcs is the one element's markP");
    }
    lens_free(el);

    /* --- the sub-region p 2..4 keeps every layer cell for cell --- */
    struct lens_grid s;
    LENS_TEST(lens_runs_subgrid(&g[0], 2, NAN, NAN, 10, &s, &e) == LENS_OK, "subgrid: %s", e.msg);
    LENS_TEST(s.np == 2 && s.nd == 1 && s.procs[0] == 2 && s.size[0] == 10, "2 x 1 part");
    int same = 1;
    for (size_t j = 0; j < s.nd; j++)
        for (size_t i = 0; i < s.np; i++) {
            size_t k = at(&g[0], s.procs[i], s.size[j]), q = j * s.np + i;
            same &= s.eff[q] == g[0].eff[k] && s.perf[q] == g[0].perf[k] && s.kept[q] == g[0].kept[k];
            for (size_t v = 0; v < s.n_var; v++) {
                double x = s.var_eff[v * s.np * s.nd + q], y = g[0].var_eff[v * cells + k];
                same &= (isnan(x) && isnan(y)) || x == y;
            }
        }
    LENS_TEST(same && s.n_var == 2, "every layer of the part equals the grid's");
    lens_runs_grid_release(&s);
    LENS_TEST(lens_runs_subgrid(&g[0], 5, 9, NAN, NAN, &s, &e) == LENS_OK && s.np == 0 && s.nd == 0,
              "a range with no value gives an empty grid");
    lens_marks_compute(&s, &m, &e);
    LENS_TEST(isnan(m.mark_procs), "an empty part has no mark");
    lens_runs_grid_release(&s);
    LENS_TEST(lens_runs_subgrid(&g[0], 4, 2, NAN, NAN, &s, &e) == LENS_EINVAL, "inverted range refused");
    lens_runs_grids_free(g, n);

    /* --- zero: (4, 20) was tried (timeout), so it is on the grid with E = 0 --- */
    o.missing = LENS_RUNS_ZERO;
    LENS_TEST(lens_runs_build(r, &o, &g, &n, &e) == LENS_OK, "build zero: %s", e.msg);
    c = at(&g[0], 4, 20);
    LENS_TEST(g[0].eff[c] == 0 && g[0].perf[c] == 0 && g[0].zero[c] == 1, "(4, 20) filled with 0");
    LENS_TEST(g[0].zero[at(&g[0], 4, 10)] == 0, "(4, 10) ran: not filled");
    LENS_TEST(lens_marks_elements(&g[0], &el, &ne, &e) == LENS_OK && ne == 2, "two elements: %zu", ne);
    if (ne == 2) {
        /* the second element: E11 = E(2,10) = 1, E12 = E(4,10) = 8 / 16, E21 = E(2,20) = 16 / 18,
         * E22 = 0; markD = dED (20 - 10) / (20 - 10) */
        double ded = ((16.0 / 18 - 1) + (0 - 0.5)) / 2;
        LENS_TEST_REL(el[1].mark_d, ded, 1e-14, "markD with the zero");
        LENS_TEST_REL(el[1].e22, 0, 0, "E22 is the filled zero");
    }
    lens_free(el);
    lens_runs_grids_free(g, n);

    /* --- separate: one application per placement, each with its own T1 --- */
    o.missing = LENS_RUNS_GAP;
    o.separate = 1;
    LENS_TEST(lens_runs_build(r, &o, &g, &n, &e) == LENS_OK && n == 2, "separate: 2 apps");
    if (n == 2) {
        LENS_TEST(!strcmp(g[0].app, "x@a") && !strcmp(g[1].app, "x@b") && g[0].n_var == 0, "NAME@LABEL");
        /* b alone: T1(10) = 10, E(2, 10) = 10 / 8 */
        LENS_TEST_REL(g[1].eff[at(&g[1], 2, 10)], 10.0 / 8, 1e-15, "b's own serial time");
    }
    lens_runs_grids_free(g, n);
    lens_runs_free(r);
    unlink(path);
    rmdir(dir);
    return LENS_TEST_DONE("test_scale_grid");
}
