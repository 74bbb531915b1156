/* The readers of mpilens-bench's side files (analysis/cube/retest.c, bisection.c): hand-made
 * files whose values are written out here, the retest verdicts, and every refusal with the
 * exact FILE:LINE:COLUMN it must name (a damaged file never becomes a number). */
#include "analysis/cube/cube.h"
#include "common/alloc.h"
#include "lens_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[300];

/* Writes text as dir/name and returns the path (one static buffer per call site is enough:
 * each test uses the path before writing the next file). */
static const char *put(const char *name, const char *text)
{
    static char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
    return path;
}

#define RH LENS_RETEST_HEADER "\n"
#define BH LENS_BISECTION_HEADER "\n"

static void retest_good(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_retest *r = NULL;
    /* the docs/bench.md example, CRLF on one line, a blank line at the end */
    const char *p = put("net_retest.csv", RH "0,3,1,0.000504246,0.000500326,12.7340,13.7321,flagged\r\n"
                        "0,3,2,4.307e-06,3.155e-07,1.4662,-3.7010,worst\n"
                        "0,0,1,2.3785e-06,1.508e-06,0.0615,0.0000,control\n"
                        "1024,3,1,0.0006,0.000002,11.0,4.9999,flagged\n"
                        "2048,2,0,0.0006,nan,11.0,nan,flagged\n\n");
    int rc = lens_retest_read(p, &r, &e);
    LENS_TEST(rc == LENS_OK && r->n == 5, "retest read: %d rows, %s", r ? r->n : -1, e.msg);
    if (rc != LENS_OK)
        return;
    const struct lens_retest_row *w = &r->rows[0];
    LENS_TEST(w->length == 0 && w->sender == 3 && w->receiver == 1 && w->first == 0.000504246 &&
              w->retest == 0.000500326 && w->z == 12.7340 && w->retest_z == 13.7321 &&
              w->role == LENS_RETEST_FLAGGED, "row 0 fields");
    LENS_TEST(r->rows[1].role == LENS_RETEST_WORST && r->rows[2].role == LENS_RETEST_CONTROL, "roles");
    /* 13.7 >= 5 survives; 4.9999 does not; NaN (no retest value) does not */
    LENS_TEST(lens_retest_survived(&r->rows[0]) && !lens_retest_survived(&r->rows[3]) &&
              !lens_retest_survived(&r->rows[4]), "survival at retest_z >= 5");
    int all[] = {0, 1024, 2048}, one[] = {1024}, none[] = {4096};
    LENS_TEST(lens_retest_verdict(r, 3, 1, all, 3) == 1, "3->1 at any length: survived");
    LENS_TEST(lens_retest_verdict(r, 3, 1, one, 1) == 0, "3->1 at 1024 only: vanished");
    LENS_TEST(lens_retest_verdict(r, 3, 1, none, 1) == -1, "3->1 at 4096: not retested");
    LENS_TEST(lens_retest_verdict(r, 1, 3, all, 3) == -1, "1->3 (the other direction): not retested");
    LENS_TEST(lens_retest_verdict(r, 0, 1, all, 3) == -1, "the control is no verdict");
    LENS_TEST(lens_retest_verdict(r, 3, 2, all, 3) == 0, "a worst row below 5: vanished");
    lens_retest_free(r);
    /* beside a prefix: present, then absent (LENS_OK and NULL) */
    char prefix[400];
    snprintf(prefix, sizeof prefix, "%s/net", dir);
    rc = lens_retest_beside(prefix, &r, &e);
    LENS_TEST(rc == LENS_OK && r && r->n == 5, "beside net: found");
    lens_retest_free(r);
    snprintf(prefix, sizeof prefix, "%s/other", dir);
    rc = lens_retest_beside(prefix, &r, &e);
    LENS_TEST(rc == LENS_OK && !r, "beside other: none");
}

static void bisection_good(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_bisection *b = NULL;
    /* the docs/bench.md example and a second round: 2^32 B in 2.7498 s and in 4 s */
    put("bis_bisection.csv", BH "0,2,4294967296,2.74979982,1.56191998e+09,390479996,3,2\n"
        "1,2,4294967296,4,1073741824,268435456,0,1\n");
    char prefix[400];
    snprintf(prefix, sizeof prefix, "%s/bis", dir);
    LENS_TEST(lens_bisection_probe(prefix) == 1, "probe by prefix");
    int rc = lens_bisection_read(prefix, &b, &e);
    LENS_TEST(rc == LENS_OK && b->n == 2, "bisection read: %s", e.msg);
    if (rc != LENS_OK)
        return;
    LENS_TEST(b->r[0].bytes == 4294967296.0 && b->r[0].seconds == 2.74979982 && b->r[0].pairs == 2 &&
              b->r[0].slowest_sender == 3 && b->r[0].slowest_receiver == 2, "round 0 fields");
    struct lens_bisection_summary s;
    rc = lens_bisection_summarise(b, &s, &e);
    /* two rounds: the median is the mean of both, (1.56191998e9 + 2^30) / 2 */
    LENS_TEST(rc == LENS_OK && s.rounds == 2 && s.min_Bps == 1073741824.0 && s.min_round == 1 &&
              s.median_Bps == 0.5 * (1.56191998e+09 + 1073741824.0) && s.avg_Bps == s.median_Bps &&
              s.worst_pair_Bps == 268435456.0 && s.worst_sender == 0 && s.worst_receiver == 1,
              "summary: min %.9g median %.9g", s.min_Bps, s.median_Bps);
    lens_bisection_free(b);
    snprintf(prefix, sizeof prefix, "%s/none", dir);
    LENS_TEST(lens_bisection_probe(prefix) == 0, "no file: probe 0");
    /* the same rounds under the bench's provenance comments (a value keeps its inner colons
     * and spaces), an unknown comment skipped, a key left out NULL */
    put("prov_bisection.csv", "# measured_at: 2026-11-25T08:21:29Z\n# mpi_library_version: Open MPI v4.1.4, x: y\n"
        "# a note\n# cores_per_host: 8\n" BH "0,2,4294967296,2.74979982,1.56191998e+09,390479996,3,2\n");
    snprintf(prefix, sizeof prefix, "%s/prov", dir);
    rc = lens_bisection_read(prefix, &b, &e);
    LENS_TEST(rc == LENS_OK && b->n == 1, "bisection with comments read: %s", e.msg);
    if (rc == LENS_OK) {
        LENS_TEST(b->prov.measured_at && !strcmp(b->prov.measured_at, "2026-11-25T08:21:29Z"), "measured_at");
        LENS_TEST(b->prov.mpi && !strcmp(b->prov.mpi, "Open MPI v4.1.4, x: y"), "mpi_library_version keeps its colon");
        LENS_TEST(b->prov.cores_per_host && !strcmp(b->prov.cores_per_host, "8"), "cores_per_host");
        LENS_TEST(!b->prov.launcher && !b->prov.binding, "absent keys are NULL");
        lens_bisection_free(b);
    }
}

/* Each damaged file and the message it must give, FILE:LINE:COLUMN first. */
static void refusals(void)
{
    static const struct { int bis; const char *text, *want; } t[] = {
        {0, "", "x_retest.csv: empty file, expected the header"},
        {0, RH, "x_retest.csv: no data rows after the header"},
        {0, "length,sender,receiver,first,retest,z,retest_z\n", "x_retest.csv:1:1: header is not 'length,"},
        {0, RH "0,3,1,1e-6,1e-6,1,1\n", "x_retest.csv:2:1: 7 fields, the header has 8"},
        {0, RH "0,3,1,1e-6,1e-6,1,1,flagged,x\n", "x_retest.csv:2:1: 9 fields, the header has 8"},
        {0, RH "0,3,1,1e-6,1e-6,1,1,flagged\n0,3,1,1e-6", "x_retest.csv:3:1: 4 fields, the header has 8 (file truncated?)"},
        {0, RH "0,3x,1,1e-6,1e-6,1,1,flagged\n", "x_retest.csv:2:3: column 'sender': '3x' is not an integer"},
        {0, RH "-1,3,1,1e-6,1e-6,1,1,flagged\n", "x_retest.csv:2:1: column 'length': '-1' is not an integer"},
        {0, RH "0,3,1,1e-6,1e-6,1,1,flagged\n1.5,3,1,1e-6,1e-6,1,1,worst\n", "x_retest.csv:3:1: column 'length': '1.5'"},
        {0, RH "0,3,1,1e-6,,1,1,flagged\n", "x_retest.csv:2:12: column 'retest': '' is not a number"},
        {0, RH "0,3,1,1e-6,1e-6,1, 1,flagged\n", "x_retest.csv:2:19: column 'retest_z': ' 1' is not a number"},
        {0, RH "0,3,1,inf,1e-6,1,1,flagged\n", "x_retest.csv:2:7: column 'first': 'inf' is not a number"},
        {0, RH "0,3,1,1e-6,1e-6,1,1,bad\n", "x_retest.csv:2:21: column 'role': 'bad' is not flagged, worst or control"},
        {0, RH "0,2,2,1e-6,1e-6,1,1,worst\n", "x_retest.csv:2:3: sender and receiver are both rank 2"},
        {0, RH "0,99999999999,1,1e-6,1e-6,1,1,worst\n", "x_retest.csv:2:3: column 'sender': '99999999999'"},
        {1, BH "1,2,1000,0.5,2000,400,0,1\n", "x_bisection.csv:2:1: round 1, expected 0"},
        {1, BH "0,2,1000,0.5,2000,400,0,1\n0,2,1000,0.5,2000,400,0,1\n", "x_bisection.csv:3:1: round 0, expected 1"},
        {1, BH "0,0,1000,0.5,2000,400,0,1\n", "x_bisection.csv:2:3: column 'pairs': '0' is not an integer in [1,"},
        {1, BH "0,2,1000,0,2000,400,0,1\n", "x_bisection.csv:2:10: column 'seconds': 0 is not positive"},
        {1, BH "0,2,1000.5,0.5,2001,400,0,1\n", "x_bisection.csv:2:5: column 'bytes': 1000.5 is not a positive whole number"},
        {1, BH "0,2,1000,0.5,3000,400,0,1\n", "x_bisection.csv:2:14: column 'bandwidth_Bps': 3000 is not bytes / seconds (2000)"},
        {1, BH "0,2,1000,0.5,2000,2500,0,1\n", "x_bisection.csv:2:19: column 'slowest_pair_Bps': 2500 is not in (0, bandwidth_Bps]"},
        {1, BH "0,2,1000,0.5,2000,nan,0,1\n", "x_bisection.csv:2:19: column 'slowest_pair_Bps': 'nan' is not a finite number"},
        {1, BH "0,2,1000,0.5,2000,400,1,1\n", "x_bisection.csv:2:23: slowest sender and receiver are both rank 1"},
        {1, "round,pairs,bytes,seconds,bandwidth_Bps,slowest_pair_Bps,slowest_receiver,slowest_sender\n0,2,1000,0.5,2000,400,0,1\n",
         "x_bisection.csv:1:1: header is not"},
        {1, BH "0,2,1000,0.5,2000,400,0,1\n1,2,1000,0.5\0,2000,400,0,1\n", "x_bisection.csv:3:1: NUL byte"},
        /* provenance comments (issue 14): counted as lines, a key twice refused, comments only
         * ahead of the header (a retest file takes none) */
        {1, "# measured_at: a\n# launcher: b\n# measured_at: c\n" BH "0,2,1000,0.5,2000,400,0,1\n",
         "x_bisection.csv:3:1: 'measured_at' given twice"},
        {1, "# launcher: b\n" BH "1,2,1000,0.5,2000,400,0,1\n", "x_bisection.csv:3:1: round 1, expected 0"},
        {1, "# launcher: b\nround,pairs\n", "x_bisection.csv:2:1: header is not"},
        {1, BH "# launcher: b\n0,2,1000,0.5,2000,400,0,1\n", "x_bisection.csv:2:1: 1 fields, the header has 8"},
        {1, "# launcher: b\n", "x_bisection.csv: empty file, expected the header"},
        {0, "# launcher: b\n" RH "0,3,1,1e-6,1e-6,1,1,flagged\n", "x_retest.csv:1:1: header is not"},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        struct lens_err e;
        lens_err_clear(&e);
        const char *name = t[i].bis ? "x_bisection.csv" : "x_retest.csv";
        /* the NUL case is written with its length: fputs would stop at the NUL */
        char path[400];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *fp = fopen(path, "w");
        size_t n = strlen(t[i].text);
        if (strstr(t[i].want, "NUL"))
            n += 1 + strlen(t[i].text + n + 1);
        if (fp) {
            fwrite(t[i].text, 1, n, fp);
            fclose(fp);
        }
        int rc;
        if (t[i].bis) {
            struct lens_bisection *b = (struct lens_bisection *)1;
            rc = lens_bisection_read(path, &b, &e);
            LENS_TEST(b == NULL, "case %zu: nothing returned on failure", i);
        } else {
            struct lens_retest *r = (struct lens_retest *)1;
            rc = lens_retest_read(path, &r, &e);
            LENS_TEST(r == NULL, "case %zu: nothing returned on failure", i);
        }
        /* the message names the file by its full path: compare from the file name on */
        const char *m = strstr(e.msg, name);
        LENS_TEST(rc < 0 && m && !strncmp(m, t[i].want, strlen(t[i].want)), "case %zu: rc %d, got '%s', want '%s'",
                  i, rc, e.msg, t[i].want);
        remove(path);
    }
    struct lens_err e;
    struct lens_retest *r;
    LENS_TEST(lens_retest_read("/nonexistent/x_retest.csv", &r, &e) == LENS_EIO &&
              strstr(e.msg, "/nonexistent/x_retest.csv: cannot open"), "missing file: %s", e.msg);
}

/* Every allocation failure is reported, never a crash or a half-read file. */
static void faults(void)
{
    const char *p = put("f_retest.csv", RH "0,3,1,1e-6,1e-6,9,9,flagged\n0,3,2,1e-6,1e-6,1,1,worst\n");
    int steps = 0, reported = 0, done = 0;
    for (long n = 1; n < 1000 && !done; n++, steps++) {
        struct lens_err e;
        lens_err_clear(&e);
        struct lens_retest *r = NULL;
        lens_malloc_fail_after(n);
        int rc = lens_retest_read(p, &r, &e);
        lens_malloc_fail_after(0);
        done = rc == LENS_OK;
        reported += rc == LENS_ENOMEM && e.msg[0] && !r;
        lens_retest_free(r);
    }
    LENS_TEST(done && reported == steps - 1, "retest: allocation failures reported %d of %d", reported, steps - 1);
    remove(p);
}

int main(void)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/test_bench_files.XXXXXX", base);
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    retest_good();
    bisection_good();
    refusals();
    faults();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return LENS_TEST_DONE("test_bench_files");
}
