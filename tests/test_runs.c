/* Runs CSV reader: columns in any order, best of repeated runs, failed runs skipped, time to
 * efficiency by serial reference and by model, and every error path with file:line:column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/scale/marks.h"
#include "analysis/scale/runs.h"
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

/* A model that overflows (d^K = inf, p Tp F = inf) gives no efficiency: an error naming the
 * configuration, never an infinite or NaN cell (a NaN cell was once written out of bounds). */
static void test_model_overflow(void)
{
    struct lens_runs *r = lens_runs_new();
    struct lens_err e = {0};
    LENS_TEST(lens_runs_add(r, "big", LENS_RUNS_TIME, LENS_RUNS_OK, 1, 1e3, 1, &e) == LENS_OK, "add");
    LENS_TEST(lens_runs_add(r, "big", LENS_RUNS_TIME, LENS_RUNS_OK, 2, 1e300, 1e10, &e) == LENS_OK, "add");
    struct lens_grid *g = NULL;
    size_t n = 0;
    struct lens_runs_model nan_model = {1e300, 1, 2}; /* inf / inf */
    LENS_TEST(lens_runs_grids(r, &nan_model, &g, &n, &e) == LENS_EDATA, "inf / inf refused: %s", e.msg);
    LENS_TEST(strstr(e.msg, "big: the performance model gives no finite efficiency at procs 2, size 1e+300"),
              "msg: %s", e.msg);
    LENS_TEST(g == NULL && n == 0, "nothing returned on error");
    struct lens_runs_model inf_model = {1, 1, 2}; /* inf / 2e10 */
    LENS_TEST(lens_runs_grids(r, &inf_model, &g, &n, &e) == LENS_EDATA, "inf refused: %s", e.msg);
    struct lens_runs_model fine = {1, 1, 0.5}; /* sqrt(d): finite everywhere */
    LENS_TEST(lens_runs_grids(r, &fine, &g, &n, &e) == LENS_OK, "finite model: %s", e.msg);
    LENS_TEST(n == 1 && g[0].np == 2 && g[0].nd == 2, "2 x 2 grid");
    LENS_TEST_REL(cell(&g[0], 2, 1e300), 1e150 / (2 * 1e10), 1e-13, "E(2, 1e300)");
    lens_runs_grids_free(g, n);
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


/* Many applications interleaved (the fuzzer's slow case, 1 M rows of 250,000 apps, in small):
 * the hashed reader and the grouping pass must give what the slow path gives, a linear search
 * of each name and, per application, a scan of every row for the best of each configuration. */
#define MA_APPS 3000
#define MA_ROWS 20000
struct ma_row {
    char app[16];
    int procs, size, failed;
    double eff;
};

static void test_many_apps(void)
{
    static struct ma_row rows[MA_ROWS];
    static char names[MA_APPS][16];
    static const int ps[3] = {1, 2, 4}, ds[2] = {10, 20};
    unsigned long x = 12345;
    char path[256];
    snprintf(path, sizeof path, "%s/many.csv", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return;
    fputs("app,procs,size,efficiency,status\n", fp);
    for (int k = 0; k < MA_ROWS; k++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul; /* a fixed LCG: no two runs differ */
        struct ma_row *w = &rows[k];
        snprintf(w->app, sizeof w->app, "a%lu", (x >> 33) % MA_APPS);
        w->procs = ps[(x >> 20) % 3];
        w->size = ds[(x >> 24) % 2];
        w->failed = (x >> 28) % 13 == 0;
        w->eff = (double)((x >> 40) % 1000) / 1000;
        fprintf(fp, "%s,%d,%d,%.3f,%s\n", w->app, w->procs, w->size, w->eff, w->failed ? "failed" : "ok");
    }
    fclose(fp);
    /* the slow path: names in order of first appearance by linear search */
    int napp = 0;
    for (int k = 0; k < MA_ROWS; k++) {
        int a = 0;
        while (a < napp && strcmp(names[a], rows[k].app))
            a++;
        if (a == napp)
            strcpy(names[napp++], rows[k].app);
    }
    struct lens_runs *r = lens_runs_new();
    struct lens_grid *g = NULL;
    size_t n = 0;
    struct lens_err e = {0};
    int rc = lens_runs_read(r, path, &e);
    if (rc == LENS_OK)
        rc = lens_runs_grids(r, NULL, &g, &n, &e);
    LENS_TEST(rc == LENS_OK, "many apps: %s", e.msg);
    LENS_TEST(n == (size_t)napp && napp > MA_APPS * 9 / 10, "%zu grids, %d apps", n, napp);
    int bad_name = 0, bad_cell = 0, bad_axes = 0, bad_failed = 0;
    for (size_t a = 0; rc == LENS_OK && a < n; a++) {
        bad_name += strcmp(g[a].app, names[a]) != 0;
        /* the slow path's grid: every row scanned for this app */
        double best[3][2];
        int have_p[3] = {0, 0, 0}, have_d[2] = {0, 0};
        size_t failed = 0;
        for (int i = 0; i < 3; i++)
            best[i][0] = best[i][1] = NAN;
        for (int k = 0; k < MA_ROWS; k++) {
            if (strcmp(rows[k].app, names[a]))
                continue;
            if (rows[k].failed) {
                failed++;
                continue;
            }
            int i = rows[k].procs == 1 ? 0 : rows[k].procs == 2 ? 1 : 2, j = rows[k].size == 20;
            have_p[i] = have_d[j] = 1;
            if (isnan(best[i][j]) || rows[k].eff > best[i][j])
                best[i][j] = rows[k].eff;
        }
        bad_failed += g[a].n_failed != failed;
        bad_axes += g[a].np != (size_t)(have_p[0] + have_p[1] + have_p[2]) ||
                    g[a].nd != (size_t)(have_d[0] + have_d[1]);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++)
                if (have_p[i] && have_d[j]) {
                    double c = cell(&g[a], ps[i], ds[j]);
                    bad_cell += !(isnan(best[i][j]) ? isnan(c) : c == best[i][j]);
                }
    }
    LENS_TEST(!bad_name && !bad_cell && !bad_axes && !bad_failed,
              "against the slow path: %d names, %d cells, %d axes, %d failure counts differ",
              bad_name, bad_cell, bad_axes, bad_failed);
    lens_runs_grids_free(g, n);

    /* A file that fails after naming new apps drops them: the hash must forget them too,
     * so a name read afterwards gets a fresh index and old names keep theirs. */
    const char *bad = write_file("late_error.csv",
                                 "app,procs,size,efficiency\nnew1,1,10,0.5\nnew2,1,10,0.5\nnew2,x,10,0.5\n");
    size_t apps0 = r->n_apps;
    LENS_TEST(lens_runs_read(r, bad, &e) == LENS_EFORMAT && r->n_apps == apps0, "late error rolls back");
    LENS_TEST(lens_runs_add(r, "new2", LENS_RUNS_EFFICIENCY, LENS_RUNS_OK, 1, 10, 0.5, &e) == LENS_OK &&
              r->n_apps == apps0 + 1 && !strcmp(r->apps[r->recs[r->n - 1].app], "new2"),
              "a dropped name comes back with a fresh index");
    LENS_TEST(lens_runs_add(r, names[7], LENS_RUNS_EFFICIENCY, LENS_RUNS_OK, 1, 10, 0.5, &e) == LENS_OK &&
              r->n_apps == apps0 + 1 && r->recs[r->n - 1].app == 7, "an old name keeps its index");
    lens_runs_free(r);
}

/* A line over the 1 MiB cap, and a NUL byte, are errors naming file:line; one just under the
 * cap is read. */
static void test_line_cap(void)
{
    size_t big = LENS_RUNS_MAX_LINE;
    char *t = malloc(big + 128);
    if (!t)
        return;
    for (int k = 0; k < 2; k++) {
        /* app name of big - 9 or big - 8 bytes + ",1,10,0.5" (9): the line is big - 0 or big + 1 */
        size_t name = big - 9 + (size_t)k;
        size_t n = (size_t)sprintf(t, "app,procs,size,efficiency\n");
        memset(t + n, 'a', name);
        strcpy(t + n + name, ",1,10,0.5\n");
        const char *path = write_file("long.csv", t);
        struct lens_runs *r = lens_runs_new();
        struct lens_err e = {0};
        int rc = lens_runs_read(r, path, &e);
        if (k == 0)
            LENS_TEST(rc == LENS_OK && r->n == 1, "line of exactly 1 MiB: %s", e.msg);
        else
            LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "long.csv:2:1: line longer than 1048576 bytes"),
                      "line of 1 MiB + 1: rc %d '%s'", rc, e.msg);
        lens_runs_free(r);
    }
    free(t);
    char path[256];
    snprintf(path, sizeof path, "%s/nul.csv", dir);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fwrite("app,procs,size,efficiency\nab\0c,1,10,0.5\n", 1, 41, fp);
        fclose(fp);
    }
    struct lens_runs *r = lens_runs_new();
    struct lens_err e = {0};
    int rc = lens_runs_read(r, path, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "nul.csv:2:1: NUL byte"), "NUL byte: rc %d '%s'", rc, e.msg);
    lens_runs_free(r);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_runs.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    test_efficiency();
    test_crlf_bom();
    test_time();
    test_model_overflow();
    test_errors();
    test_fault_injection();
    test_many_apps();
    test_line_cap();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return LENS_TEST_DONE("test_runs");
}
