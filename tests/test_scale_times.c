/* The raw times behind each configuration of a scale grid (lens_grid.t_*, the "Raw times"
 * table of scale.pdf): runs counted over every placement and repeat, failed runs left out,
 * the median of an odd and an even count, best and slowest, a runs file of efficiencies with
 * no times, --missing zero and the sub-region cut. Expected values are worked out by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/scale/runs.h"
#include "lens_test.h"

/* x: (1, 10) three runs over two placements, (2, 10) four runs, (4, 10) one ok and one failed,
 * (1, 20) one run, (2, 20) only failed. y gives efficiencies, so it has no times. */
static const char *csv =
    "app,placement,procs,size,time,status\n"
    "x,a,1,10,8,ok\n"
    "x,b,1,10,10,ok\n"
    "x,a,1,10,9.5,ok\n"
    "x,a,2,10,5,ok\n"
    "x,b,2,10,4,ok\n"
    "x,a,2,10,7,ok\n"
    "x,b,2,10,4.5,ok\n"
    "x,a,4,10,4,ok\n"
    "x,b,4,10,,failed\n"
    "x,a,1,20,16,ok\n"
    "x,a,2,20,,timeout\n";
static const char *csv_eff =
    "app,procs,size,efficiency\n"
    "y,1,10,1\n"
    "y,2,10,0.9\n"
    "y,1,20,1\n"
    "y,2,20,0.95\n";

static size_t at(const struct lens_grid *g, double p, double d)
{
    for (size_t j = 0; j < g->nd; j++)
        for (size_t i = 0; i < g->np; i++)
            if (g->procs[i] == p && g->size[j] == d)
                return j * g->np + i;
    return (size_t)-1;
}

static int put_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (!fp)
        return -1;
    fputs(text, fp);
    return fclose(fp);
}

int main(void)
{
    char dir[] = "/tmp/test_scale_times.XXXXXX", path[128], path2[128];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/runs.csv", dir);
    snprintf(path2, sizeof path2, "%s/eff.csv", dir);
    if (put_file(path, csv) || put_file(path2, csv_eff))
        return 1;
    struct lens_err e = {0};
    struct lens_runs *r = lens_runs_new();
    LENS_TEST(lens_runs_read(r, path, &e) == LENS_OK, "read: %s", e.msg);
    LENS_TEST(lens_runs_read(r, path2, &e) == LENS_OK, "read: %s", e.msg);
    struct lens_grid *g = NULL;
    size_t n = 0;
    struct lens_runs_opts o = {NULL, LENS_RUNS_GAP, 0};
    LENS_TEST(lens_runs_build(r, &o, &g, &n, &e) == LENS_OK && n == 2, "build: %s", e.msg);
    const struct lens_grid *x = &g[0];
    LENS_TEST(x->t_n && x->t_med && x->t_min && x->t_max, "x has raw times");
    size_t c = at(x, 1, 10);
    /* 8, 9.5, 10: median 9.5, over both placements */
    LENS_TEST(x->t_n[c] == 3, "(1, 10): 3 runs, got %zu", x->t_n[c]);
    LENS_TEST_REL(x->t_med[c], 9.5, 1e-15, "(1, 10) median of three");
    LENS_TEST_REL(x->t_min[c], 8, 1e-15, "(1, 10) best");
    LENS_TEST_REL(x->t_max[c], 10, 1e-15, "(1, 10) max");
    /* 4, 4.5, 5, 7: median (4.5 + 5) / 2; the best is the run the efficiency uses */
    c = at(x, 2, 10);
    LENS_TEST(x->t_n[c] == 4, "(2, 10): 4 runs, got %zu", x->t_n[c]);
    LENS_TEST_REL(x->t_med[c], 4.75, 1e-15, "(2, 10) median of four");
    LENS_TEST_REL(x->t_min[c], 4, 1e-15, "(2, 10) best");
    LENS_TEST_REL(x->t_max[c], 7, 1e-15, "(2, 10) max");
    LENS_TEST_REL(x->eff[c], 8 / (2 * x->t_min[c]), 1e-15, "E(2, 10) = T1 / (2 best)");
    c = at(x, 4, 10);
    LENS_TEST(x->t_n[c] == 1 && x->t_med[c] == 4 && x->t_max[c] == 4, "(4, 10): the failed run left out");
    c = at(x, 1, 20);
    LENS_TEST(x->t_n[c] == 1 && x->t_med[c] == 16, "(1, 20): one run");
    c = at(x, 2, 20);
    LENS_TEST(c != (size_t)-1 && x->t_n[c] == 0 && isnan(x->t_max[c]),
              "(2, 20) only timed out: a cell without a raw time");
    /* (4, 20) never ran at all but is a cell of the 3 x 2 grid */
    c = at(x, 4, 20);
    LENS_TEST(c != (size_t)-1 && x->t_n[c] == 0 && isnan(x->t_med[c]), "(4, 20): no run, NaN");
    LENS_TEST(!g[1].t_n && !g[1].t_med, "a runs file of efficiencies has no raw times");
    /* speed-ups T(1, d) / T(p, d) of the best times, by hand: size 10 has T1 = 8, so (2, 10)
     * is 8 / 4 = 2 and (4, 10) 8 / 4 = 2; (1, 20) is 1; cells without a time have none */
    LENS_TEST(x->t_speedup && x->t_speedup[at(x, 1, 10)] == 1 && x->t_speedup[at(x, 2, 10)] == 2 &&
              x->t_speedup[at(x, 4, 10)] == 2 && x->t_speedup[at(x, 1, 20)] == 1,
              "speed-ups 1, 2, 2 at size 10 and 1 at (1, 20)");
    LENS_TEST(isnan(x->t_speedup[at(x, 2, 20)]) && isnan(x->t_speedup[at(x, 4, 20)]),
              "no speed-up where no run gave a time");
    LENS_TEST(!g[1].t_speedup, "a runs file of efficiencies has no speed-ups");

    /* the sub-region keeps the time layers cell for cell */
    struct lens_grid s;
    LENS_TEST(lens_runs_subgrid(x, 2, 4, NAN, NAN, &s, &e) == LENS_OK, "subgrid: %s", e.msg);
    c = at(&s, 2, 10);
    LENS_TEST(s.t_n && c != (size_t)-1 && s.t_n[c] == 4 && s.t_med[c] == 4.75, "subgrid (2, 10) times");
    /* the sub-region has no p = 1 column, yet keeps the speed-ups against the whole grid's T1 */
    LENS_TEST(s.t_speedup && c != (size_t)-1 && s.t_speedup[c] == 2, "subgrid (2, 10) speed-up 2");
    lens_runs_grid_release(&s);
    lens_runs_grids_free(g, n);

    /* --missing zero: (2, 20) is on the grid with efficiency 0 and no time */
    o.missing = LENS_RUNS_ZERO;
    LENS_TEST(lens_runs_build(r, &o, &g, &n, &e) == LENS_OK, "build zero: %s", e.msg);
    c = at(&g[0], 2, 20);
    LENS_TEST(c != (size_t)-1 && g[0].zero[c] && g[0].t_n[c] == 0 && isnan(g[0].t_min[c]),
              "zero-filled (2, 20) has no raw time");
    lens_runs_grids_free(g, n);
    lens_runs_free(r);
    unlink(path);
    unlink(path2);
    rmdir(dir);
    return LENS_TEST_DONE("test_scale_times");
}
