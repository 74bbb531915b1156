/* The library side of the timeline and the problems report on the Score-P trace
 * casita-4_mpi_ls_barr (4 ranks, a chain of late senders 0 -> 1 -> 2 -> 3, then a barrier):
 * kept charges against the aggregates, the window choice (worst instance, lanes, narrowing),
 * the errors the command line cannot reach, a two-trace comparison (speed-up from the wall
 * times given), and allocation failures walked over the report: always an error, no PDF. */
#include "analysis/trace/trace_analysis.h"
#include "render/doc/problems_report.h"
#include "render/doc/report.h"
#include "render/fig/timeline.h"
#include "lens_test.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRACE "/otf2/casita-4_mpi_ls_barr"

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static const struct lens_problem_result *find(const struct lens_problems *p, const char *id)
{
    for (int i = 0; i < p->nres; i++)
        if (!strcmp(p->res[i].rule->id, id))
            return &p->res[i];
    return NULL;
}

static void charges(const struct lens_problems *p)
{
    int checked = 0;
    for (int i = 0; i < p->nres; i++) {
        const struct lens_problem_result *r = &p->res[i];
        double sum = 0;
        int sorted = 1;
        for (size_t k = 0; k < r->ncharges; k++) {
            sum += r->charges[k].seconds;
            if (k && (r->charges[k].rank < r->charges[k - 1].rank ||
                      (r->charges[k].rank == r->charges[k - 1].rank &&
                       r->charges[k].call <= r->charges[k - 1].call)))
                sorted = 0;
        }
        LENS_TEST(r->ncharges == r->count, "%s: %zu charges, %llu instances", r->rule->id,
                  r->ncharges, (unsigned long long)r->count);
        LENS_TEST_REL(sum, r->total_s, 1e-12, "%s: charges add up to the total", r->rule->id);
        LENS_TEST(sorted, "%s: charges by rank then call", r->rule->id);
        checked += r->ncharges > 0;
    }
    LENS_TEST(checked == 3, "three problems with charges, got %d", checked);
}

static void windows(const struct lens_trace_analysis *a)
{
    struct lens_err e;
    struct lens_trace_analysis s = *a; /* a view whose problems are swapped below */
    const struct lens_problems *p = a->problems;
    struct lens_timeline_opts o;
    struct lens_timeline_window w, full;
    lens_timeline_opts_init(&o);
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_OK, "select: %s", e.msg);
    const struct lens_problem_result *ls = find(p, "late_sender");
    LENS_TEST(w.problem >= 0 && &p->res[w.problem] == ls, "the worst problem is the late sender");
    LENS_TEST(w.rank == 3 && w.time == ls->top[0].time && w.seconds == ls->top[0].seconds,
              "centred on rank 3's wait (rank %d)", w.rank);
    LENS_TEST(w.t0 <= w.time && w.time + w.seconds <= w.t1, "window holds the instance");
    LENS_TEST(w.lane0 == 0 && w.nlanes == 4 && w.nmessages == 3 && w.nmessages_all == 3,
              "4 lanes, 3 messages (%d, %zu)", w.nlanes, w.nmessages);
    full = w;
    /* a cap on the calls narrows the window towards the instance */
    o.max_calls = 8;
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_OK, "capped: %s", e.msg);
    LENS_TEST(w.t1 - w.t0 < full.t1 - full.t0 && w.t0 <= w.time && w.time + w.seconds <= w.t1,
              "capped window narrower and still around the instance");
    LENS_TEST(w.ncalls < full.ncalls, "fewer calls (%zu < %zu)", w.ncalls, full.ncalls);
    o.max_calls = 0;
    /* a cap on the lanes keeps the instance's rank */
    o.max_lanes = 2;
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_OK && w.lane0 == 2 && w.nlanes == 2,
              "two lanes around rank 3 (%d + %d)", w.lane0, w.nlanes);
    o.max_lanes = 0;
    /* a named problem */
    o.problem = "wait_at_barrier";
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_OK && w.rank == 1 &&
                  !strcmp(p->res[w.problem].rule->id, "wait_at_barrier"),
              "wait at barrier worst on rank 1 (%d)", w.rank);
    o.problem = "early_scan";
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_EINVAL &&
                  strstr(e.msg, "no instance"), "no instance: %s", e.msg);
    o.problem = NULL;
    /* explicit windows */
    o.t0 = 5, o.t1 = 6;
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_OK && w.t0 == 5 && w.t1 == 6,
              "explicit window");
    o.t0 = 6, o.t1 = 5;
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_EINVAL, "reversed window");
    o.t0 = 1000, o.t1 = 1001;
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_EINVAL && strstr(e.msg, "outside"),
              "window outside: %s", e.msg);
    o.t0 = o.t1 = 0;
    /* drawing: a box too small, a window of another trace */
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 400, 200);
    cairo_t *cr = cairo_create(img);
    LENS_TEST(lens_timeline_draw(cr, 0, 0, 200, 100, &s, &o, &full, &e) == LENS_EINVAL,
              "small box");
    LENS_TEST(lens_timeline_draw(cr, 0, 0, 400, 200, &s, &o, &full, &e) == LENS_OK, "draw: %s",
              e.msg);
    w = full;
    w.nlanes = 9;
    LENS_TEST(lens_timeline_draw(cr, 0, 0, 400, 200, &s, &o, &w, &e) == LENS_EINVAL,
              "lanes beyond the trace");
    cairo_destroy(cr);
    cairo_surface_destroy(img);
    /* without kept charges the ten largest instances stand in */
    struct lens_problems q = *p;
    struct lens_problem_result res[32];
    LENS_TEST(p->nres <= 32, "few problems");
    for (int i = 0; i < p->nres && i < 32; i++) {
        res[i] = p->res[i];
        res[i].charges = NULL;
        res[i].ncharges = 0;
    }
    q.res = res;
    s.problems = &q;
    LENS_TEST(lens_timeline_select(&s, &o, &w, &e) == LENS_OK && w.ninstances == full.ninstances &&
                  w.t0 == full.t0 && w.t1 == full.t1, "same window and instances from the top lists");
    LENS_TEST(lens_timeline_class("MPI_Waitall") == 3 && lens_timeline_class("MPI_Win_fence") == 2 &&
                  lens_timeline_class("MPI_Allreduce") == 1 && lens_timeline_class("MPI_Isend") == 0 &&
                  lens_timeline_class("MPI_Comm_split") == 4, "call classes");
}

/* A comparison of two runs: the same trace as "naive" (20 s) and "overlapped" (8 s). */
static void comparison(const char *datadir, const struct lens_trace_analysis *a,
                       const char *dir)
{
    struct lens_err e;
    struct lens_problems_report_opts o;
    lens_problems_report_opts_init(&o);
    o.datadir = datadir;
    o.date = 1700000000;
    o.timelines = 0;
    struct lens_problems_report_input in[2] = {{"naive", a, 20, NULL}, {"overlapped", a, 8, NULL}};
    char pdf[PATH_MAX], cmd[PATH_MAX + 64], text[65536];
    snprintf(pdf, sizeof pdf, "%s/cmp.pdf", dir);
    LENS_TEST(lens_problems_report_write(&o, in, 2, pdf, &e) == LENS_OK, "comparison: %s", e.msg);
    snprintf(cmd, sizeof cmd, "pdftotext -layout %s - 2>/dev/null", pdf);
    FILE *fp = popen(cmd, "r");
    size_t n = fp ? fread(text, 1, sizeof text - 1, fp) : 0;
    text[n] = '\0';
    if (fp)
        pclose(fp);
    LENS_TEST(strstr(text, "Comparison of the runs") != NULL, "comparison heading");
    LENS_TEST(strstr(text, "2.50x") != NULL && strstr(text, "1.00x") != NULL, "speed-ups 1.00x, 2.50x");
    LENS_TEST(strstr(text, "overlapped") != NULL && strstr(text, "Late sender (37.44%)") != NULL,
              "largest problem per run");
    LENS_TEST(lens_problems_report_write(&o, in, 0, pdf, &e) == LENS_EINVAL, "no input");
    struct lens_trace_analysis bare = *a;
    bare.problems = NULL;
    in[1].analysis = &bare;
    LENS_TEST(lens_problems_report_write(&o, in, 2, pdf, &e) == LENS_EINVAL, "input without problems");
}

int main(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    const char *data = getenv("DATA") ? getenv("DATA") : "tests/data";
    char path[PATH_MAX], datadir[PATH_MAX];
    snprintf(path, sizeof path, "%s" TRACE, data);
    LENS_TEST(lens_report_datadir(datadir, sizeof datadir, &e) == LENS_OK, "datadir: %s", e.msg);
    struct lens_trace_analysis *a = NULL;
    unsigned long builds = lens_events_builds();
    LENS_TEST(lens_trace_analysis_new(path, "templates/rules", LENS_PROBLEMS_KEEP_CHARGES, &a,
                                      &e) == LENS_OK, "analysis: %s", e.msg);
    if (!a)
        return LENS_TEST_DONE("test_timeline_api");
    LENS_TEST(lens_events_builds() == builds + 1, "the analysis built the events once, not %lu",
              lens_events_builds() - builds);
    charges(a->problems);
    windows(a);
    char dir[] = "/tmp/mpilens-tlapi-XXXXXX", pdf[PATH_MAX];
    LENS_TEST(mkdtemp(dir) != NULL, "mkdtemp");
    comparison(datadir, a, dir);

    /* allocation failures over the whole report (with timelines): every point up to 120,
     * then every 9th (each run embeds three fonts and six figures) */
    struct lens_problems_report_opts o;
    lens_problems_report_opts_init(&o);
    o.datadir = datadir;
    o.date = 1700000000;
    struct lens_problems_report_input in = {"casita", a, NAN, NULL};
    snprintf(pdf, sizeof pdf, "%s/r.pdf", dir);
    int steps = 0, reported = 0, clean = 0;
    for (long n = 1; n < 200000; n += n < 120 ? 1 : 9, steps++) {
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        int rc = lens_problems_report_write(&o, &in, 1, pdf, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            break;
        reported += rc < 0 && e.msg[0] != '\0';
        clean += !exists(pdf);
    }
    LENS_TEST(steps > 120 && reported == steps, "failures reported: %d of %d", reported, steps);
    LENS_TEST(clean == steps, "no pdf after a failure: %d of %d", clean, steps);
    LENS_TEST(exists(pdf), "the run without failures wrote the pdf");
    if (getenv("VERBOSE"))
        fprintf(stderr, "%d allocation points\n", steps);
    /* and over the timeline PNG alone */
    struct lens_timeline_opts to;
    struct lens_timeline_window w;
    lens_timeline_opts_init(&to);
    LENS_TEST(lens_timeline_select(a, &to, &w, &e) == LENS_OK, "select");
    steps = reported = 0;
    for (long n = 1; n < 100000; n++, steps++) {
        unsigned char *buf = NULL;
        size_t len = 0;
        lens_malloc_fail_after(n);
        int rc = lens_timeline_png_mem(a, &to, &w, &buf, &len, &e);
        lens_malloc_fail_after(0);
        lens_free(buf);
        if (rc == LENS_OK)
            break;
        reported += rc < 0;
    }
    LENS_TEST(steps > 0 && reported == steps, "timeline failures reported: %d of %d", reported, steps);
    unlink(pdf);
    snprintf(pdf, sizeof pdf, "%s/cmp.pdf", dir);
    unlink(pdf);
    rmdir(dir);
    /* the timelines, the report and its comparison drew from the one analysis */
    LENS_TEST(lens_events_builds() == builds + 1, "nothing after the analysis built events: %lu "
              "builds", lens_events_builds() - builds);
    lens_trace_analysis_free(a);
    return LENS_TEST_DONE("test_timeline_api");
}
