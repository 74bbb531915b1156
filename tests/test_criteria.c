/* The acceptance criteria parser and evaluation (analysis/accept): every unit against the
 * decimal text it stands for, every unit of a wrong kind, every error with its line and
 * column, exact limits at a cube's known maximum (equal passes <=, fails <, one ulp below
 * fails), percentiles and scopes on a hand-made cube whose sorted values are written out here. */
#include "analysis/accept/accept.h"
#include "analysis/compare/compare.h"
#include "analysis/cube/cube.h"
#include "lens_test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parses text and evaluates it on one cube; returns the code, fills *res when it succeeds. */
static int judge(const char *text, const struct lens_cube *c, struct lens_accept_result *res,
                 struct lens_err *e)
{
    struct lens_criteria *cr;
    lens_err_clear(e);
    int rc = lens_criteria_parse(text, "t.criteria", &cr, e);
    if (rc != LENS_OK)
        return rc;
    struct lens_accept_input in = {.name = "cube", .cube = c};
    struct lens_accept *a;
    rc = lens_accept_run(cr, &in, 1, &a, e);
    if (rc == LENS_OK) {
        *res = a->r[0];
        lens_accept_free(a);
    }
    lens_criteria_free(cr);
    return rc;
}

static void units(void)
{
    /* unit, its kind, and the decimal text 1.5 UNIT stands for (or a binary factor) */
    static const struct { const char *unit; int kind; const char *dec; double bin; } t[] = {
        {"s", LENS_CRITERIA_TIME, "1.5", 0}, {"ms", LENS_CRITERIA_TIME, "1.5e-3", 0},
        {"us", LENS_CRITERIA_TIME, "1.5e-6", 0}, {"\xc2\xb5s", LENS_CRITERIA_TIME, "1.5e-6", 0},
        {"\xce\xbcs", LENS_CRITERIA_TIME, "1.5e-6", 0}, {"ns", LENS_CRITERIA_TIME, "1.5e-9", 0},
        {"B", LENS_CRITERIA_SIZE, "1.5", 0}, {"KiB", LENS_CRITERIA_SIZE, NULL, 1536},
        {"MiB", LENS_CRITERIA_SIZE, NULL, 1.5 * 1048576}, {"GiB", LENS_CRITERIA_SIZE, NULL, 1.5 * 1073741824.0},
        {"B/s", LENS_CRITERIA_BANDWIDTH, "1.5", 0}, {"KB/s", LENS_CRITERIA_BANDWIDTH, "1.5e3", 0},
        {"MB/s", LENS_CRITERIA_BANDWIDTH, "1.5e6", 0}, {"GB/s", LENS_CRITERIA_BANDWIDTH, "1.5e9", 0},
        {"KiB/s", LENS_CRITERIA_BANDWIDTH, NULL, 1536}, {"MiB/s", LENS_CRITERIA_BANDWIDTH, NULL, 1.5 * 1048576},
        {"GiB/s", LENS_CRITERIA_BANDWIDTH, NULL, 1.5 * 1073741824.0}, {"/s", LENS_CRITERIA_RATE, "1.5", 0},
        {"%", LENS_CRITERIA_RATIO, "1.5e-2", 0}, {"", LENS_CRITERIA_NONE, "1.5", 0}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        int kind = -1;
        double v = NAN;
        int rc = lens_criteria_unit_value("1.5", t[i].unit, &kind, &v);
        double want = t[i].dec ? strtod(t[i].dec, NULL) : t[i].bin;
        LENS_TEST(rc == LENS_OK && kind == t[i].kind && v == want, "1.5 %s: rc %d kind %d value %.17g want %.17g",
                  t[i].unit, rc, kind, v, want);
    }
    /* the power of ten goes into the text: 2.71us is exactly the double of "2.71e-6" */
    int kind;
    double v;
    LENS_TEST(lens_criteria_unit_value("2.71", "us", &kind, &v) == LENS_OK && v == strtod("2.71e-6", NULL),
              "2.71us is %.17g", v);
    LENS_TEST(lens_criteria_unit_value("3e2", "ns", &kind, &v) == LENS_OK && v == strtod("3e-7", NULL),
              "3e2ns is %.17g", v);
    static const char *const bad[] = {"sec", "S", "kB/s", "Kib", "GBps", "1/s", "x", "us/s"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        LENS_TEST(lens_criteria_unit_value("1", bad[i], &kind, &v) == LENS_EINVAL, "'%s' is not a unit", bad[i]);
    LENS_TEST(lens_criteria_unit_value("1e400", "", &kind, &v) == LENS_EDATA, "1e400 is out of range");

    /* the same through the parser: one criterion per unit of the metric's kind */
    struct lens_criteria *cr;
    struct lens_err e;
    const char *text = "cube.delay.max <= 2.71us\n"
                       "cube.delay.max <= 2.71 ms\n"
                       "p2p.bandwidth >= 12.5GB/s size=4MiB\n"
                       "p2p.msgrate >= 3e6 /s size=8\n"
                       "cube.asymmetry.max < 12.5%\n"
                       "anomalies.total == 0\n"
                       "cube.spread <= 1.5 length=1KiB\n";
    int rc = lens_criteria_parse(text, "u.criteria", &cr, &e);
    LENS_TEST(rc == LENS_OK && cr->n == 7, "unit lines parse: %s", rc ? e.msg : "");
    if (rc == LENS_OK && cr->n == 7) {
        LENS_TEST(cr->c[0].limit == strtod("2.71e-6", NULL) && !strcmp(cr->c[0].unit, "us"), "2.71us");
        LENS_TEST(cr->c[1].limit == strtod("2.71e-3", NULL) && !strcmp(cr->c[1].unit, "ms"), "2.71 ms");
        LENS_TEST(cr->c[2].limit == 12.5e9 && cr->c[2].size == 4194304 && cr->c[2].op == LENS_CRITERIA_GE,
                  "12.5GB/s size=4MiB: %.17g %lld", cr->c[2].limit, cr->c[2].size);
        LENS_TEST(cr->c[3].limit == 3e6 && cr->c[3].size == 8, "3e6 /s");
        LENS_TEST(cr->c[4].limit == strtod("12.5e-2", NULL) && cr->c[4].op == LENS_CRITERIA_LT, "12.5%%");
        LENS_TEST(cr->c[5].limit == 0 && cr->c[5].op == LENS_CRITERIA_EQ && cr->c[5].line == 6, "== 0");
        LENS_TEST(cr->c[6].length == 1024 && cr->c[6].limit == 1.5, "length=1KiB");
        LENS_TEST(lens_criteria_stats(cr) == 1u << LENS_STAT_MEDIAN, "stats: median only");
        lens_criteria_free(cr);
    }
}

/* Every unit of a kind the metric is not: refused, naming the unit's column. */
static void wrong_kinds(void)
{
    static const char *const all[] = {"s", "ms", "us", "\xc2\xb5s", "ns", "B", "KiB", "MiB", "GiB", "B/s",
                                      "KB/s", "MB/s", "GB/s", "KiB/s", "MiB/s", "GiB/s", "/s", "%"};
    static const char *const metric[] = {"cube.delay.max", "cube.spread", "anomalies.total",
                                         "p2p.latency", "p2p.bandwidth", "p2p.msgrate"};
    for (size_t m = 0; m < sizeof metric / sizeof *metric; m++)
        for (size_t u = 0; u < sizeof all / sizeof *all; u++) {
            int kind, mkind = -1;
            double v;
            lens_criteria_unit_value("1", all[u], &kind, &v);
            for (int i = 0; i < LENS_METRIC_COUNT; i++)
                if (!strcmp(lens_criteria_metric_name(i), metric[m]))
                    mkind = lens_criteria_metric_kind(i);
            char text[128], want[64];
            snprintf(text, sizeof text, "%s <= 3 %s size=8", metric[m], all[u]);
            struct lens_criteria *cr = NULL;
            struct lens_err e;
            lens_err_clear(&e);
            int rc = lens_criteria_parse(text, "k", &cr, &e);
            /* the unit starts after "METRIC <= 3 " */
            snprintf(want, sizeof want, "k:1:%d: unit '%s' is ", (int)strlen(metric[m]) + 7, all[u]);
            if (kind == mkind)
                LENS_TEST(rc == LENS_OK || strstr(e.msg, "size") , "%s: %s", text, e.msg);
            else
                LENS_TEST(rc == LENS_EFORMAT && !strncmp(e.msg, want, strlen(want)), "%s: got '%s' want '%s...'",
                          text, e.msg, want);
            lens_criteria_free(cr);
        }
}

/* Each error with its file, line and column (characters, from 1). */
static void errors(void)
{
    static const struct { const char *text, *want; } t[] = {
        {"cube.foo <= 1", "e:1:1: unknown metric 'cube.foo'"},
        {"\n  # comment\n   cube.delay.max <= 3 parsecs", "e:3:24: unknown unit 'parsecs'"},
        {"p2p.latency <= 3 GB/s size=4", "e:1:18: unit 'GB/s' is a bandwidth"},
        {"bisection.bandwidth.min >= 1us", "e:1:29: unit 'us' is a time (s, ms, us, \xc2\xb5s, ns), but bisection.bandwidth.min is a bandwidth"},
        {"bisection.bandwidth.avg >= 1GB/s length=4096", "e:1:34: key 'length' does not apply to bisection.bandwidth.avg (it takes label)"},
        {"compare.regressions == 0 length=4096", "e:1:26: key 'length' does not apply to compare.regressions"},
        {"cube.delay.max =< 3us", "e:1:16: expected an operator"},
        {"cube.delay.max != 3us", "e:1:16: expected an operator"},
        {"cube.delay.max <== 3us", "e:1:16: expected an operator"},
        {"cube.delay.max", "e:1:15: expected an operator"},
        {"cube.delay.max <=", "e:1:18: expected a number after '<='"},
        {"cube.delay.max <= fast", "e:1:19: expected a number"},
        {"cube.delay.max <= -3us", "e:1:19: the limit must be a number without a sign"},
        {"cube.delay.max <= 0x10", "e:1:20: unknown unit 'x10'"},
        {"cube.delay.max <= inf", "e:1:19: expected a number"},
        {"cube.delay.max <= 1e999", "e:1:19: 1e999 is out of range"},
        {"cube.delay.max <= 3us colour=red", "e:1:23: unknown key 'colour'"},
        {"cube.delay.max <= 3us size=4", "e:1:23: key 'size' does not apply to cube.delay.max"},
        {"anomalies.total <= 3 length=4", "e:1:22: key 'length' does not apply to anomalies.total"},
        {"p2p.latency <= 3us size=4 stat=min", "e:1:27: key 'stat' does not apply to p2p.latency"},
        {"cube.delay.max <= 3us scope=inter scope=intra", "e:1:35: key 'scope' given twice"},
        {"cube.delay.max <= 3us scope=rack", "e:1:29: scope must be intra, inter or all, not 'rack'"},
        {"cube.delay.max <= 3us stat=deviation", "e:1:28: stat must be median, average or min"},
        {"cube.delay.max <= 3us stat=", "e:1:28: stat= has no value"},
        {"cube.delay.max <= 3us length=4.5", "e:1:30: length=4.5 is not a whole number of bytes"},
        {"cube.delay.max <= 3us length=4GB/s", "e:1:31: unit 'GB/s' of length= is a bandwidth"},
        {"cube.delay.max <= 3us length=4Kb", "e:1:31: unknown unit 'Kb' in length="},
        {"cube.delay.max <= 3us length=big", "e:1:30: length= needs a number of bytes"},
        {"cube.delay.max <= 3us length=4GiB", "e:1:30: length=4GiB is out of range"},
        {"cube.delay.max <= 3us label=\"abc", "e:1:29: unterminated label"},
        {"cube.delay.max <= 3us label=abc", "e:1:29: label= needs a quoted text"},
        {"cube.delay.max <= 3us junk", "e:1:23: expected key=value, found 'junk'"},
        {"cube.delay.max <= 3 us junk", "e:1:24: expected key=value, found 'junk'"},
        {"p2p.latency <= 3us", "e:1:1: p2p.latency needs size="},
        {"anomalies.total <= 1 s", "e:1:22: unit 's' is a time"},
        {"anomalies.total <= 1 %", "e:1:22: unit '%' is a ratio"},
        {"  \xc2\xb5 <= 1", "e:1:3: expected a metric name"},
        /* columns count characters: the micro sign is one column, not two bytes */
        {"cube.delay.max <= 3\xc2\xb5s label=\"\xc2\xb5\" x", "e:1:33: expected key=value"},
        {"# nothing\n\n   \n", "e: no criterion"},
        {"cube.delay.max <= 3us label=\"caf\xe9\"", "e:1:33: not valid UTF-8 (byte 0xe9)"},
        {"cube.delay.max <= 3us label=\"\xc0\xaf\"", "e:1:30: not valid UTF-8 (byte 0xc0)"},
        {"cube.delay.max <= 3us label=\"\xed\xa0\x80\"", "e:1:30: not valid UTF-8 (byte 0xed)"},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        struct lens_criteria *cr = NULL;
        struct lens_err e;
        lens_err_clear(&e);
        int rc = lens_criteria_parse(t[i].text, "e", &cr, &e);
        LENS_TEST(rc == LENS_EFORMAT && !strncmp(e.msg, t[i].want, strlen(t[i].want)),
                  "'%s': rc %d, got '%s' want '%s...'", t[i].text, rc, e.msg, t[i].want);
        LENS_TEST(cr == NULL, "no criteria on error");
        lens_criteria_free(cr);
    }
    /* comments, labels with '#' and escapes, the unit after blanks or attached */
    struct lens_criteria *cr;
    struct lens_err e;
    int rc = lens_criteria_parse("# head\ncube.delay.max<=3us label=\"a # \\\"b\\\\\" # tail\n"
                                 "  cube.delay.p99 >= 1 us scope=inter stat=min # x\n", "c", &cr, &e);
    LENS_TEST(rc == LENS_OK && cr->n == 2, "comments: %s", rc ? e.msg : "");
    if (rc == LENS_OK && cr->n == 2) {
        LENS_TEST(cr->c[0].line == 2 && cr->c[0].label && !strcmp(cr->c[0].label, "a # \"b\\"), "label '%s'",
                  cr->c[0].label ? cr->c[0].label : "(null)");
        LENS_TEST(cr->c[1].line == 3 && cr->c[1].col == 3 && cr->c[1].scope == LENS_SCOPE_INTER &&
                      cr->c[1].stat == LENS_STAT_MIN && cr->c[1].limit == 1e-6 && !cr->c[1].label,
                  "second line");
        LENS_TEST(lens_criteria_stats(cr) == (1u << LENS_STAT_MEDIAN | 1u << LENS_STAT_MIN), "stats");
        lens_criteria_free(cr);
    }
    LENS_TEST(lens_criteria_read("/nonexistent/x.criteria", &cr, &e) == LENS_EIO &&
                  strstr(e.msg, "/nonexistent/x.criteria"), "missing file: %s", e.msg);
}

/* P = 5, two lengths; element (i, j) at length k is (1 + i + 5j + 100k) microseconds, so the
 * off-diagonal values at length 0, sorted, are 2 3 4 5 6 8 9 10 11 12 14 15 16 17 18 20 21 22
 * 23 24 (the diagonal takes 1 7 13 19 25). Ranks 0-1 on host a, 2-4 on host b. */
static struct lens_cube *hand_cube(void)
{
    struct lens_cube *c;
    struct lens_err e;
    if (lens_cube_new(&c, 5, 2, 0, 1024, 1u << LENS_STAT_MEDIAN | 1u << LENS_STAT_MIN, &e) != LENS_OK)
        return NULL;
    c->mode = LENS_MODE_ONE_TO_ONE;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++) {
                /* a division by 1e6 rounds once, like reading "23e-6" */
                LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j) = (1 + i + 5 * j + 100 * k) / 1e6;
                LENS_CUBE_AT(c, LENS_STAT_MIN, k, i, j) = (1 + i + 5 * j + 100 * k) / 2e6;
            }
    c->hosts = lens_calloc(5, sizeof *c->hosts);
    for (int i = 0; c->hosts && i < 5; i++)
        c->hosts[i] = lens_strdup(i < 2 ? "a" : "b");
    return c;
}

static void on_hand_cube(void)
{
    struct lens_cube *c = hand_cube();
    LENS_TEST(c != NULL, "hand cube");
    if (!c)
        return;
    struct lens_accept_result r;
    struct lens_err e;
    /* nearest rank: p95 of 20 values is the 19th (23), p99 the 20th (24) */
    static const struct { const char *text; double want; const char *where; } t[] = {
        {"cube.delay.max <= 1 length=0", 24e-6, "4 -> 3 at 0 B"},
        {"cube.delay.max <= 1", 124e-6, "4 -> 3 at 1024 B"},
        {"cube.delay.min >= 0 length=0", 2e-6, "0 -> 1 at 0 B"},
        {"cube.delay.p95 <= 1 length=0", 23e-6, "all pairs at 0 B"},
        {"cube.delay.p99 <= 1 length=0", 24e-6, "all pairs at 0 B"},
        {"cube.delay.median <= 1 length=0", 13e-6, "all pairs at 0 B"},
        {"cube.delay.max <= 1 length=0 stat=min", 12e-6, "4 -> 3 at 0 B"},
        /* intra: 2 6 14 15 18 20 23 24; inter: 3 4 5 8 9 10 11 12 16 17 21 22 */
        {"cube.delay.max <= 1 length=0 scope=intra", 24e-6, "4 -> 3 at 0 B"},
        {"cube.delay.median <= 1 length=0 scope=intra", 16.5e-6, "intra-node pairs at 0 B"},
        {"cube.delay.max <= 1 length=0 scope=inter", 22e-6, "4 -> 1 at 0 B"},
        {"cube.delay.min >= 0 length=0 scope=inter", 3e-6, "0 -> 2 at 0 B"},
        {"cube.delay.median <= 1 length=0 scope=inter", 10.5e-6, "inter-node pairs at 0 B"},
        {"cube.delay.p95 <= 1 length=0 scope=inter", 22e-6, "inter-node pairs at 0 B"},
        /* the lowest median is at length 0: >= keeps the smallest value */
        {"cube.delay.median >= 0", 13e-6, "all pairs at 0 B"},
        {"cube.spread <= 9", 24.0 / 13, "4 -> 3 over the median of all pairs at 0 B"},
        /* |a - b| / (a + b) = 4|i - j| / (2 + 6(i + j)): largest for 0, 4 */
        {"cube.asymmetry.max <= 1", 16.0 / 26, "pair 0 <-> 4 at 0 B"},
        {"cube.asymmetry.max <= 1 scope=intra", 0.5, "pair 0 <-> 1 at 0 B"},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        int rc = judge(t[i].text, c, &r, &e);
        LENS_TEST(rc == LENS_OK, "%s: %s", t[i].text, e.msg);
        if (rc != LENS_OK)
            continue;
        LENS_TEST_REL(r.measured, t[i].want, 1e-12, "%s", t[i].text);
        LENS_TEST(!strcmp(r.where, t[i].where), "%s: where '%s' want '%s'", t[i].text, r.where, t[i].where);
    }
    /* limits at exactly an element: percentiles are elements, so the comparisons are exact */
    static const struct { const char *text; int pass; } v[] = {
        {"cube.delay.p95 <= 23us length=0", 1}, {"cube.delay.p95 < 23us length=0", 0},
        {"cube.delay.p99 == 24us length=0", 1}, {"cube.delay.max <= 124us", 1},
        {"cube.delay.max < 124us", 0}, {"cube.delay.max == 24us length=0", 1},
        /* without length= every length must hold: the max at 0 B (24 us) is not 124 us */
        {"cube.delay.max == 124us", 0}, {"cube.delay.max == 124us length=1024", 1},
        {"cube.delay.max >= 24us", 1}, {"cube.delay.max > 24us", 0}, {"cube.delay.min >= 2us length=0", 1},
        {"cube.delay.min > 2us length=0", 0}, {"cube.delay.max <= 0.124ms", 1},
        {"cube.delay.max <= 124000ns", 1}, {"cube.delay.max <= 124\xc2\xb5s", 1},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        int rc = judge(v[i].text, c, &r, &e);
        LENS_TEST(rc == LENS_OK && r.pass == v[i].pass, "%s: rc %d pass %d", v[i].text, rc, r.pass);
    }
    /* no data is an error, never a pass */
    static const struct { const char *text, *want; } bad[] = {
        {"cube.delay.max <= 1 length=512", "t.criteria:1:21: cube.delay.max: cube has no length 512 B"},
        {"cube.delay.max <= 1 stat=average", "t.criteria:1:1: cube.delay.max: cube has no average statistic"},
        {"p2p.latency <= 1 size=8", "t.criteria:1:1: p2p.latency: no p2p sweep among the inputs"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = judge(bad[i].text, c, &r, &e);
        LENS_TEST(rc == LENS_EDATA && !strncmp(e.msg, bad[i].want, strlen(bad[i].want)), "%s: got '%s'",
                  bad[i].text, e.msg);
    }
    /* every rank on one host: no inter-node pair; no hosts at all: no scope */
    for (int i = 0; i < 5; i++)
        c->hosts[i][0] = 'a';
    int rc = judge("cube.delay.max <= 1 scope=inter", c, &r, &e);
    LENS_TEST(rc == LENS_EDATA && strstr(e.msg, "has no inter-node pairs"), "one host: %s", e.msg);
    for (int i = 0; i < 5; i++)
        lens_free(c->hosts[i]);
    lens_free(c->hosts);
    c->hosts = NULL;
    rc = judge("cube.delay.max <= 1 scope=intra", c, &r, &e);
    LENS_TEST(rc == LENS_EDATA && strstr(e.msg, "scope=intra needs host names"), "no hosts: %s", e.msg);
    lens_cube_free(c);
}

/* A synthetic cube: its maximum, found here by a plain loop, as the limit. */
static void exact_limits(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.slow_node = 2;
    o.slow_factor = 1.5;
    struct lens_cube *c;
    struct lens_err e;
    if (lens_synth_cube(&o, &c, &e) != LENS_OK) {
        LENS_TEST(0, "synth: %s", e.msg);
        return;
    }
    double max = -1, min = INFINITY;
    int kmax = 0;
    for (int k = 0; k < c->nlen; k++)
        for (int i = 0; i < c->procs; i++)
            for (int j = 0; j < c->procs; j++)
                if (i != j) {
                    double x = LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j);
                    if (x > max)
                        max = x, kmax = k;
                    min = x < min ? x : min;
                }
    /* ==, >= and > hold at every length only where the maximum is: ask for that length */
    static const struct { const char *fmt; int pass; } t[] = {
        {"cube.delay.max <= %.17g", 1}, {"cube.delay.max < %.17g", 0}, {"cube.delay.max == %.17g length=%d", 1},
        {"cube.delay.max <= %.17gs", 1}, {"cube.delay.max < %.17g s", 0}, {"cube.delay.max >= %.17g length=%d", 1},
        {"cube.delay.max > %.17g length=%d", 0}};
    struct lens_accept_result r;
    char text[128];
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        snprintf(text, sizeof text, t[i].fmt, max, c->lengths[kmax]);
        int rc = judge(text, c, &r, &e);
        LENS_TEST(rc == LENS_OK && r.pass == t[i].pass && r.measured == max, "%s: rc %d pass %d %s", text, rc,
                  r.pass, e.msg);
    }
    /* one ulp below the maximum fails; one ulp above passes <; the same at the minimum */
    snprintf(text, sizeof text, "cube.delay.max <= %.17g", nextafter(max, 0));
    LENS_TEST(judge(text, c, &r, &e) == LENS_OK && !r.pass && r.margin < 0, "%s passed", text);
    snprintf(text, sizeof text, "cube.delay.max < %.17g", nextafter(max, 1));
    LENS_TEST(judge(text, c, &r, &e) == LENS_OK && r.pass && r.margin > 0, "%s failed", text);
    snprintf(text, sizeof text, "cube.delay.min >= %.17g", min);
    LENS_TEST(judge(text, c, &r, &e) == LENS_OK && r.pass && r.margin == 0, "%s failed", text);
    snprintf(text, sizeof text, "cube.delay.min >= %.17g", nextafter(min, 1));
    LENS_TEST(judge(text, c, &r, &e) == LENS_OK && !r.pass, "%s passed", text);
    /* the slow node is found by the anomaly metrics, as `mpilens anomalies` finds it */
    LENS_TEST(judge("anomalies.slow_node == 0", c, &r, &e) == LENS_OK && !r.pass && r.measured == 1 &&
                  strstr(r.where, "node03"), "slow node: %g '%s' %s", r.measured, r.where, e.msg);
    LENS_TEST(judge("anomalies.bad_link <= 0", c, &r, &e) == LENS_OK && r.pass && !strcmp(r.where, "none"),
              "no bad link: %g '%s'", r.measured, r.where);
    lens_cube_free(c);
}

static void percentile(void)
{
    double v[] = {5, 1, 4, 2, 3};
    LENS_TEST(lens_accept_percentile(v, 5, 50) == 3, "p50 of 1..5");
    LENS_TEST(lens_accept_percentile(v, 5, 95) == 5, "p95 of 1..5: rank ceil(4.75) = 5");
    LENS_TEST(lens_accept_percentile(v, 5, 20) == 1, "p20 of 1..5: rank 1");
    LENS_TEST(lens_accept_percentile(v, 5, 21) == 2, "p21 of 1..5: rank ceil(1.05) = 2");
    double w[100];
    for (int i = 0; i < 100; i++)
        w[i] = 99 - i;
    LENS_TEST(lens_accept_percentile(w, 100, 99) == 98, "p99 of 0..99 is the 99th value");
    LENS_TEST(lens_accept_percentile(w, 1, 99) == w[0], "one value");
}

/* The n-th allocation fails, for every n until the run succeeds: each failure is reported
 * (ASan's leak check sees what is not freed), and the final run still gives the verdict. */
static void faults(void)
{
    const char *text = "cube.delay.max <= 200us label=\"a\"\ncube.delay.p95 <= 1 scope=inter\n"
                       "anomalies.total == 0 label=\"b\"\nanomalies.slow_node == 0\n";
    struct lens_cube *c = hand_cube();
    struct lens_err e;
    int steps = 0, reported = 0, done = 0;
    for (long n = 1; n < 100000 && !done && c; n++, steps++) {
        struct lens_criteria *cr = NULL;
        struct lens_accept *a = NULL;
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        int rc = lens_criteria_parse(text, "f", &cr, &e);
        struct lens_accept_input in = {.name = "cube", .cube = c};
        if (rc == LENS_OK)
            rc = lens_accept_run(cr, &in, 1, &a, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            done = 1;
            LENS_TEST(a->n == 4 && a->failed == 0, "the run without failures: %d criteria, %d failed", a->n,
                      a->failed);
        } else {
            reported += rc == LENS_ENOMEM && e.msg[0] && a == NULL;
        }
        lens_accept_free(a);
        lens_criteria_free(cr);
    }
    LENS_TEST(done && steps > 10 && reported == steps - 1, "allocation failures reported: %d of %d", reported,
              steps - 1);
    lens_cube_free(c);
}

/* bisection.bandwidth.min / .avg on a hand-made PREFIX_bisection.csv of three rounds whose
 * bandwidths are worked out by hand: 1000 B in 0.5, 0.25 and 2 s are 2000, 4000 and 500 B/s;
 * min 500 (round 2), mean 6500 / 3, median 2000, slowest pair 100 B/s (round 2, 1 -> 0). */
static void bisection_metrics(void)
{
    char dir[300], path[400];
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/test_criteria_bis.XXXXXX", base);
    if (!mkdtemp(dir))
        return;
    snprintf(path, sizeof path, "%s/run_bisection.csv", dir);
    FILE *fp = fopen(path, "w");
    if (!fp)
        return;
    fputs(LENS_BISECTION_HEADER "\n0,2,1000,0.5,2000,400,0,1\n1,2,1000,0.25,4000,900,2,3\n"
          "2,2,1000,2,500,100,1,0\n", fp);
    fclose(fp);
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_bisection *b = NULL;
    char prefix[600];
    snprintf(prefix, sizeof prefix, "%s", path);
    prefix[strlen(prefix) - strlen("_bisection.csv")] = '\0';
    /* the prefix reads the same file as its name */
    LENS_TEST(lens_bisection_probe(prefix) == 1 && lens_bisection_probe(path) == 1, "probe by prefix and name");
    int rc = lens_bisection_read(prefix, &b, &e);
    LENS_TEST(rc == LENS_OK && b->n == 3, "read 3 rounds: %s", e.msg);
    if (rc != LENS_OK)
        return;
    struct lens_bisection_summary s;
    rc = lens_bisection_summarise(b, &s, &e);
    LENS_TEST(rc == LENS_OK && s.min_Bps == 500 && s.min_round == 2 && s.median_Bps == 2000 &&
              fabs(s.avg_Bps - 6500.0 / 3) < 1e-9 && s.worst_pair_Bps == 100 && s.worst_round == 2 &&
              s.worst_sender == 1 && s.worst_receiver == 0, "summary: min %g (round %d), median %g, avg %g, "
              "worst %g", s.min_Bps, s.min_round, s.median_Bps, s.avg_Bps, s.worst_pair_Bps);
    static const struct { const char *text; double measured, margin; int pass; const char *where; } t[] = {
        {"bisection.bandwidth.min >= 500B/s", 500, 0, 1, "round 2 of 3"},
        {"bisection.bandwidth.min > 0.5KB/s", 500, 0, 0, "round 2 of 3"},
        {"bisection.bandwidth.avg >= 2KB/s", 6500.0 / 3, 6500.0 / 3 - 2000, 1, "mean of 3 rounds"},
        {"bisection.bandwidth.avg >= 2.2KB/s", 6500.0 / 3, 6500.0 / 3 - 2200, 0, "mean of 3 rounds"},
    };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
        struct lens_criteria *cr = NULL;
        struct lens_accept *a = NULL;
        lens_err_clear(&e);
        struct lens_accept_input in = {.name = "bis", .bisection = b};
        rc = lens_criteria_parse(t[i].text, "t.criteria", &cr, &e);
        if (rc == LENS_OK)
            rc = lens_accept_run(cr, &in, 1, &a, &e);
        LENS_TEST(rc == LENS_OK && fabs(a->r[0].measured - t[i].measured) < 1e-9 &&
                  fabs(a->r[0].margin - t[i].margin) < 1e-9 && a->r[0].pass == t[i].pass &&
                  !strcmp(a->r[0].where, t[i].where), "%s: measured %g margin %g pass %d at '%s' %s", t[i].text,
                  a ? a->r[0].measured : NAN, a ? a->r[0].margin : NAN, a ? a->r[0].pass : -1, a ? a->r[0].where : "",
                  e.msg);
        lens_accept_free(a);
        lens_criteria_free(cr);
    }
    /* a cube-only input list gives no bisection run: an error naming the criterion */
    struct lens_cube *c = hand_cube();
    struct lens_accept_result res;
    rc = judge("bisection.bandwidth.min >= 1B/s", c, &res, &e);
    LENS_TEST(rc == LENS_EDATA && strstr(e.msg, "t.criteria:1:1: bisection.bandwidth.min: no bisection run"),
              "no bisection input: %s", e.msg);
    lens_cube_free(c);
    lens_bisection_free(b);
    remove(path);
    rmdir(dir);
}

/* compare.regressions on a comparison made by hand: two slower findings (a link and the
 * machine) and one faster count 2, `where` names them in order, the link's hosts are
 * "a -> b"; the verdict's words carry the same count and a margin in the unit (limit 0);
 * without a comparison the metric is an error, not a pass. */
static void regressions(void)
{
    char *h[4] = {"n1", "n2", "n1", "n2"};
    int link[2] = {1, 2}, all[4] = {0, 1, 2, 3}, other[2] = {3, 0};
    char *lh[2] = {h[1], h[2]}, *oh[2] = {h[3], h[0]};
    struct lens_compare_finding f[3] = {
        {.kind = LENS_COMPARE_MACHINE, .direction = 1, .nranks = 4, .ranks = all, .ratio = 1.2},
        {.kind = LENS_COMPARE_LINK, .direction = 1, .nranks = 2, .ranks = link, .nhosts = 2, .hosts = lh, .ratio = 1.5},
        {.kind = LENS_COMPARE_LINK, .direction = -1, .nranks = 2, .ranks = other, .nhosts = 2, .hosts = oh, .ratio = 0.5},
    };
    struct lens_compare cmp = {.verdict = LENS_COMPARE_MIXED, .procs = 4, .nfind = 3, .find = f};
    struct lens_cube cube;
    memset(&cube, 0, sizeof cube);
    struct lens_accept_input in = {.name = "new", .cube = &cube, .compare = &cmp, .baseline = "old"};
    struct lens_criteria *cr = NULL;
    struct lens_accept *a = NULL;
    struct lens_accept_view *v = NULL;
    struct lens_err e;
    lens_err_clear(&e);
    int rc = lens_criteria_parse("compare.regressions == 0 label=\"no regression\"\n", "t.criteria", &cr, &e);
    if (rc == LENS_OK)
        rc = lens_accept_run(cr, &in, 1, &a, &e);
    LENS_TEST(rc == LENS_OK, "regressions: %s", e.msg);
    if (rc == LENS_OK) {
        LENS_TEST(a->r[0].measured == 2 && !a->r[0].pass && a->failed == 1, "measured %g pass %d", a->r[0].measured,
                  a->r[0].pass);
        LENS_TEST(!strcmp(a->r[0].where, "machine 1.20x slower, link 1 -> 2 1.50x slower"), "where '%s'", a->r[0].where);
        LENS_TEST(!strcmp(a->r[0].hosts, "n2 -> n1"), "hosts '%s'", a->r[0].hosts);
        LENS_TEST(lens_accept_describe(cr, a, &in, 1, &v, &e) == LENS_OK, "describe: %s", e.msg);
        if (v) {
            LENS_TEST(!strcmp(v->line[0].measured, "2") && !strcmp(v->line[0].margin, "-2") &&
                          v->line[0].source == LENS_CRITERIA_COMPARE && !strcmp(v->line[0].input, "new") &&
                          !strcmp(v->line[0].label, "no regression"),
                      "line: '%s' '%s' %d", v->line[0].measured, v->line[0].margin, v->line[0].source);
        }
    }
    lens_accept_view_free(v);
    lens_accept_free(a);
    /* the same cube without a baseline: no evidence, an error naming the option */
    in.compare = NULL;
    a = NULL;
    if (cr)
        rc = lens_accept_run(cr, &in, 1, &a, &e);
    LENS_TEST(rc == LENS_EDATA && strstr(e.msg, "t.criteria:1:1: compare.regressions") && strstr(e.msg, "--baseline") && !a,
              "no baseline: rc %d '%s'", rc, e.msg);
    lens_criteria_free(cr);
}

/* The margin as a share of the limit on the verdict page: -100 * (measured - limit) / limit. */
static void margins(void)
{
    struct lens_criteria *cr = NULL;
    struct lens_err e;
    lens_err_clear(&e);
    int rc = lens_criteria_parse("cube.delay.max <= 4us\n", "m.criteria", &cr, &e);
    LENS_TEST(rc == LENS_OK, "parse: %s", e.msg);
    if (rc != LENS_OK)
        return;
    struct lens_accept_result r = {.measured = 5e-6, .margin = 4e-6 - 5e-6, .input = 0};
    struct lens_accept a = {.n = 1, .r = &r, .failed = 1};
    struct lens_accept_input in = {.name = "x"};
    struct lens_accept_view *v = NULL;
    LENS_TEST(lens_accept_describe(cr, &a, &in, 1, &v, &e) == LENS_OK, "describe: %s", e.msg);
    if (v)
        LENS_TEST(!strcmp(v->line[0].margin, "-25.0%") && !strcmp(v->line[0].measured, "5 µs") &&
                      !strcmp(v->line[0].limit, "4 µs") && !strcmp(v->line[0].criterion, "cube.delay.max <= 4 µs"),
                  "margin '%s' measured '%s' limit '%s' criterion '%s'", v->line[0].margin, v->line[0].measured,
                  v->line[0].limit, v->line[0].criterion);
    lens_accept_view_free(v);
    lens_criteria_free(cr);
}

int main(void)
{
    units();
    wrong_kinds();
    errors();
    on_hand_cube();
    exact_limits();
    percentile();
    faults();
    bisection_metrics();
    regressions();
    margins();
    return LENS_TEST_DONE("test_criteria");
}
