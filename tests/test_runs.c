/* Runs CSV reader: columns in any order, best of repeated runs, failed runs skipped, time to
 * efficiency by serial reference and by model, and every error path with file:line:column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/marks.h"
#include "../analysis/runs.h"
#include "lens_test.h"

static char dir[64];

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
    return path;
}

static double cell(const struct lens_grid *g, double p, double d)
{
    for (size_t j = 0; j < g->nd; j++)
        for (size_t i = 0; i < g->np; i++)
            if (g->procs[i] == p && g->size[j] == d)
                return g->eff[j * g->np + i];
    return -1; /* not on the axes */
}

static void test_efficiency(void)
{
    /* Columns shuffled, an extra column, comments, blank lines, repeats, a failed run, two apps. */
    const char *path = write_file("eff.csv",
        "# measured by hand\n"
        "size, note ,procs,efficiency,app,status\n"
        "4096,x,1,0.97,lu,ok\n"
        "4096,x,6,0.58,lu,ok\n"
        "4096,x,6,0.63,lu,ok\n"       /* better repeat wins */
        "4096,x,6,0.41,lu,ok\n"
        "\n"
        "9000,x,1,0.99,lu,ok\n"
        "9000,x,6,0.77,lu,\n"         /* empty status is ok */
        "9000,x,3,,lu,failed\n"       /* p = 3 only failed: not an axis value */
        "9000,x,6,0.1,lu,timeout\n"   /* a timed-out run never counts, whatever it says */
        "\"2500\",x,2,0.88,\"fft\",OK\n");
    struct lens_runs *r = lens_runs_new();
    struct lens_err e = {0};
    LENS_TEST(lens_runs_read(r, path, &e) == LENS_OK, "read: %s", e.msg);
    LENS_TEST(r->n == 9 && r->n_apps == 2, "9 rows, 2 apps: got %zu, %zu", r->n, r->n_apps);
    struct lens_grid *g = NULL;
    size_t n = 0;
    LENS_TEST(lens_runs_grids(r, NULL, &g, &n, &e) == LENS_OK, "grids: %s", e.msg);
    LENS_TEST(n == 2 && !strcmp(g[0].app, "lu") && !strcmp(g[1].app, "fft"), "apps in order");
    LENS_TEST(g[0].np == 2 && g[0].nd == 2, "lu is 2 x 2, got %zu x %zu", g[0].np, g[0].nd);
    LENS_TEST(g[0].procs[0] == 1 && g[0].procs[1] == 6, "failed-only p = 3 is not an axis value");
    LENS_TEST(cell(&g[0], 6, 4096) == 0.63, "best repeat kept: %g", cell(&g[0], 6, 4096));
    LENS_TEST(cell(&g[0], 6, 9000) == 0.77, "timeout ignored: %g", cell(&g[0], 6, 9000));
    LENS_TEST(g[0].n_failed == 2, "2 failed runs counted, got %zu", g[0].n_failed);
    LENS_TEST(g[1].np == 1 && cell(&g[1], 2, 2500) == 0.88, "quoted fields");
    /* Marks over the parsed grid: one element, dEP = ((.63-.97)+(.77-.99))/2 = -0.28. */
    struct lens_marks m;
    lens_marks_compute(&g[0], &m, NULL);
    LENS_TEST_REL(m.mark_procs, -0.28, 1e-12, "marks of the parsed grid");
    lens_runs_grids_free(g, n);
    lens_runs_free(r);
}

/* Windows line ends and a UTF-8 byte order mark, as spreadsheets save CSV. */
static void test_crlf_bom(void)
{
    const char *path = write_file("crlf.csv", "\xef\xbb\xbf" "app,procs,size,efficiency\r\n"
                                              "w,3,50,0.81\r\nw,5,50,0.62\r\n");
    struct lens_runs *r = lens_runs_new();
    struct lens_err e = {0};
    LENS_TEST(lens_runs_read(r, path, &e) == LENS_OK, "crlf + bom: %s", e.msg);
    LENS_TEST(r->n == 2 && !strcmp(r->apps[0], "w") && r->recs[1].value == 0.62, "crlf values");
    lens_runs_free(r);
}

static void test_time(void)
{
    /* Serial reference: T1 = best time at p = 1, E = T1 / (p * Tp), Tp the best repeat. */
    const char *path = write_file("time.csv",
        "app,procs,size,time,status\n"
        "jac,1,300,2.40,ok\n"
        "jac,1,300,2.25,ok\n"
        "jac,4,300,0.90,ok\n"
        "jac,4,300,0.75,ok\n"
        "jac,1,700,9.1,ok\n"
        "jac,4,700,2.6,ok\n"
        "jac,2,700,,failed\n"
        "jac,1,1100,,timeout\n");
    struct lens_runs *r = lens_runs_new();
    struct lens_err e = {0};
    LENS_TEST(lens_runs_read(r, path, &e) == LENS_OK, "read: %s", e.msg);
    struct lens_grid *g = NULL;
    size_t n = 0;
    LENS_TEST(lens_runs_grids(r, NULL, &g, &n, &e) == LENS_OK, "grids: %s", e.msg);
    LENS_TEST(n == 1 && g[0].np == 2 && g[0].nd == 2, "2 x 2 (size 1100 only timed out)");
    LENS_TEST_REL(cell(&g[0], 1, 300), 1.0, 1e-15, "E at p = 1 is 1");
    LENS_TEST_REL(cell(&g[0], 4, 300), 2.25 / (4 * 0.75), 1e-15, "E(4, 300)");
    LENS_TEST_REL(cell(&g[0], 4, 700), 9.1 / (4 * 2.6), 1e-15, "E(4, 700)");
    lens_runs_grids_free(g, n);
    /* Model: flops(d) = 2 d^3, peak 5e8 per process: E = 2 d^3 / (p Tp 5e8). */
    struct lens_runs_model model = {5e8, 2, 3};
    LENS_TEST(lens_runs_grids(r, &model, &g, &n, &e) == LENS_OK, "model grids: %s", e.msg);
    LENS_TEST_REL(cell(&g[0], 4, 300), 2 * 300.0 * 300 * 300 / (4 * 0.75 * 5e8), 1e-13, "model E(4, 300)");
    LENS_TEST_REL(cell(&g[0], 1, 700), 2 * 700.0 * 700 * 700 / (1 * 9.1 * 5e8), 1e-13, "model E(1, 700)");
    lens_runs_grids_free(g, n);
    /* No serial run for a size: LENS_EDATA naming the app and the size. */
    LENS_TEST(lens_runs_add(r, "jac", LENS_RUNS_TIME, LENS_RUNS_OK, 2, 1500, 3.3, &e) == LENS_OK, "add");
    LENS_TEST(lens_runs_grids(r, NULL, &g, &n, &e) == LENS_EDATA, "no reference");
    LENS_TEST(strstr(e.msg, "jac: no serial reference for size 1500") != NULL, "msg: %s", e.msg);
    LENS_TEST(g == NULL && n == 0, "nothing returned on error");
    LENS_TEST(lens_runs_add(r, "jac", LENS_RUNS_TIME, LENS_RUNS_OK, -2, 1500, 3.3, &e) == LENS_EINVAL,
              "add rejects negative procs");
    LENS_TEST(lens_runs_add(r, "jac", LENS_RUNS_TIME, LENS_RUNS_OK, 2, 1500, 0, &e) == LENS_EINVAL,
              "add rejects a zero time");
    lens_runs_free(r);
}

struct bad_case {
    const char *text, *want;
    int code;
};

static void test_errors(void)
{
    const struct bad_case cases[] = {
        {"", "bad.csv:1:1: empty file", LENS_EFORMAT},
        {"# only a comment\n\n", "bad.csv:3:1: empty file", LENS_EFORMAT},
        {"app,size,time\nx,1,2\n", "bad.csv:1:1: missing column 'procs'", LENS_EFORMAT},
        {"app,procs,size\nx,1,2\n", "bad.csv:1:1: missing column 'efficiency' or 'time'", LENS_EFORMAT},
        {"app,procs,size,time,procs\n", "bad.csv:1:21: column 'procs' appears twice", LENS_EFORMAT},
        {"app,procs,size,time\n", "bad.csv:2:1: no runs after the header", LENS_EFORMAT},
        {"app,procs,size,time\nmm,2,100,0.5\nmm,two,100,0.5\n", "bad.csv:3:4: procs 'two' is not a finite number", LENS_EFORMAT},
        {"app,procs,size,time\nmm,-4,100,0.5\n", "bad.csv:2:4: procs '-4' must be a positive integer", LENS_EFORMAT},
        {"app,procs,size,time\nmm,2.5,100,0.5\n", "bad.csv:2:4: procs '2.5' must be a positive integer", LENS_EFORMAT},
        {"app,procs,size,time\nmm,2,0,0.5\n", "bad.csv:2:6: size '0' must be a positive number", LENS_EFORMAT},
        {"app,procs,size,time\nmm,2,100,0\n", "bad.csv:2:10: time '0' must be a positive number of seconds", LENS_EFORMAT},
        {"app,procs,size,efficiency\nmm,2,100,-0.1\n", "bad.csv:2:10: efficiency '-0.1' must be a non-negative number", LENS_EFORMAT},
        {"app,procs,size,efficiency\nmm,2,100,nan\n", "bad.csv:2:10: efficiency 'nan' is not a finite number", LENS_EFORMAT},
        {"app,procs,size,efficiency\nmm,2,100,\n", "bad.csv:2:10: efficiency '' is not a finite number", LENS_EFORMAT},
        {"app,procs,size,efficiency\nmm,2,100\n", "bad.csv:2:6: expected 4 fields as in the header, got 3", LENS_EFORMAT},
        {"app,procs,size,efficiency\n,2,100,0.5\n", "bad.csv:2:1: empty app name", LENS_EFORMAT},
        {"app,procs,size,efficiency,status\nmm,2,100,0.5,crashed\n", "bad.csv:2:14: status 'crashed' is not ok, failed or timeout", LENS_EFORMAT},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const char *path = write_file("bad.csv", cases[k].text);
        struct lens_runs *r = lens_runs_new();
        struct lens_err e = {0};
        lens_runs_add(r, "keep", LENS_RUNS_EFFICIENCY, LENS_RUNS_OK, 1, 1, 1, NULL);
        int rc = lens_runs_read(r, path, &e);
        LENS_TEST(rc == cases[k].code, "case %zu: rc %d", k, rc);
        LENS_TEST(strstr(e.msg, cases[k].want) != NULL, "case %zu: got '%s' want '%s'", k, e.msg,
                  cases[k].want);
        LENS_TEST(r->n == 1 && r->n_apps == 1, "case %zu: earlier rows kept, later dropped", k);
        lens_runs_free(r);
    }
    struct lens_runs *r = lens_runs_new();
    struct lens_err e = {0};
    LENS_TEST(lens_runs_read(r, "/nonexistent/runs.csv", &e) == LENS_EIO, "missing file");
    LENS_TEST(strstr(e.msg, "/nonexistent/runs.csv: cannot open") != NULL, "msg: %s", e.msg);
    lens_runs_free(r);
    lens_runs_free(NULL);
    lens_runs_grids_free(NULL, 3);
}

/* Every allocation of read + grids fails in turn: an error, never a crash or a leak. */
static void test_fault_injection(void)
{
    const char *path = write_file("fi.csv", "app,procs,size,time\na,1,10,4\na,2,10,2.5\nb,1,10,3\nb,2,20,1\nb,1,20,2\n");
    int failures = 0, successes = 0;
    for (long k = 1; k < 200; k++) {
        struct lens_runs *r = NULL;
        struct lens_grid *g = NULL;
        size_t n = 0;
        struct lens_err e = {0};
        lens_malloc_fail_after(k);
        r = lens_runs_new();
        int rc = r ? lens_runs_read(r, path, &e) : LENS_ENOMEM;
        if (rc == LENS_OK)
            rc = lens_runs_grids(r, NULL, &g, &n, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            successes++;
            LENS_TEST(n == 2 && g[1].np == 2 && g[1].nd == 2, "k=%ld: full result", k);
            lens_runs_grids_free(g, n);
            lens_runs_free(r);
            break;
        }
        failures++;
        LENS_TEST(rc == LENS_ENOMEM, "k=%ld: rc %d (%s)", k, rc, e.msg);
        lens_runs_free(r);
    }
    LENS_TEST(failures > 5 && successes == 1, "walked %d failures to success", failures);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_runs.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    test_efficiency();
    test_crlf_bom();
    test_time();
    test_errors();
    test_fault_injection();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return LENS_TEST_DONE("test_runs");
}
