/* Allocation-failure injection over the profile from an OTF2 trace (lens_profile_otf2_read on
 * a Score-P trace) and over the profile report (lens_profile_report_write): every failure is
 * an error with a message, the report leaves no PDF, ASan checks for leaks. Also the library
 * errors the command line cannot reach, and the exclusive-time replay on a hand-made trace. */
#include "analysis/profile/icappa.h"
#include "analysis/profile/profile_otf2.h"
#include "render/doc/profile_report.h"
#include "render/doc/report.h"
#include "lens_test.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* A trace built by hand: rank 0 enters a(0) b(1) c(1.5) leaves c(2.25) b(4) enters c(5)
 * leaves c(5.5) a(8), then a Leave of b without Enter and an unclosed d from 9 (last event
 * 10); rank 1 has no events. Exclusive: a = 8 - 3 - 0.5 = 4.5, b = 3 - 0.75 = 2.25,
 * c = 0.75 + 0.5 = 1.25, d = 10 - 9 = 1. */
static void replay_by_hand(void)
{
    static char *names[4] = {"a", "b", "c", "d"};
    struct lens_trace_region_event ev[] = {{0, 0, 1}, {1, 1, 1}, {1.5, 2, 1}, {2.25, 2, 0},
                                           {4, 1, 0}, {5, 2, 1}, {5.5, 2, 0}, {8, 0, 0},
                                           {8.5, 1, 0}, {9, 3, 1}};
    struct lens_trace_rank ranks[2];
    memset(ranks, 0, sizeof ranks);
    ranks[0].revs = ev;
    ranks[0].nrevs = sizeof ev / sizeof ev[0];
    ranks[0].t_last = 10;
    ranks[1].revs = ev; /* non-NULL, but empty */
    struct lens_trace t;
    memset(&t, 0, sizeof t);
    t.nranks = 2;
    t.ranks = ranks;
    t.regions = names;
    t.nregions = 4;
    t.nevents = 10;
    struct lens_profile *p = NULL;
    struct lens_err e;
    lens_err_clear(&e);
    LENS_TEST(lens_profile_otf2_from_trace(&t, "hand", &p, &e) == LENS_OK, "hand trace: %s", e.msg);
    if (!p)
        return;
    LENS_TEST(p->nproc == 1 && p->ranks[0] == 0 && p->nfunc == 4, "one row, four columns: %zu x %zu", p->nproc,
              p->nfunc);
    const double want[4] = {4.5, 2.25, 1.25, 1};
    for (int i = 0; i < 4; i++) {
        long f = lens_profile_find(p, names[i]);
        LENS_TEST(f >= 0, "column %s", names[i]);
        if (f >= 0)
            LENS_TEST_REL(p->sec[f], want[i], 1e-12, "exclusive %s", names[i]);
    }
    lens_profile_free(p);
    /* without region events: the caller forgot LENS_TRACE_READ_REGIONS */
    ranks[0].revs = ranks[1].revs = NULL;
    LENS_TEST(lens_profile_otf2_from_trace(&t, "hand", &p, &e) == LENS_EINVAL && strstr(e.msg, "hand:"),
              "no region events: %s", e.msg);
    /* events, but nothing ever closes */
    ranks[0].revs = ev + 8;
    ranks[0].nrevs = 1;
    LENS_TEST(lens_profile_otf2_from_trace(&t, "hand", &p, &e) == LENS_EDATA && strstr(e.msg, "no region"),
              "nothing closed: %s", e.msg);
}

int main(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    replay_by_hand();
    const char *data = getenv("DATA") ? getenv("DATA") : "tests/data";
    char trace[PATH_MAX];
    snprintf(trace, sizeof trace, "%s/otf2/casita-4_mpi_ls_barr", data);

    /* profile from the trace: every allocation point fails once, cleanly */
    struct lens_profile *p = NULL;
    int steps = 0, reported = 0;
    for (long n = 1; n < 100000; n++, steps++) {
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        int rc = lens_profile_otf2_read(trace, &p, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            break;
        reported += rc < 0 && p == NULL && e.msg[0] != '\0';
    }
    LENS_TEST(steps > 20 && reported == steps, "trace failures reported: %d of %d", reported, steps);
    LENS_TEST(p != NULL && p->nproc == 4, "the run without failures read 4 ranks");
    if (!p)
        return LENS_TEST_DONE("test_profile_faults");

    struct lens_icappa *r = NULL;
    LENS_TEST(lens_icappa_run(p, NULL, &r, &e) == LENS_OK, "icappa: %s", e.msg);
    char datadir[PATH_MAX];
    LENS_TEST(lens_report_datadir(datadir, sizeof datadir, &e) == LENS_OK, "datadir: %s", e.msg);
    char dir[] = "/tmp/mpilens-pfault-XXXXXX", pdf[256];
    LENS_TEST(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(pdf, sizeof pdf, "%s/r.pdf", dir);
    struct lens_profile_report_opts o;
    lens_profile_report_opts_init(&o);
    o.datadir = datadir;
    o.tmpdir = dir;
    o.input = "casita";
    o.date = 1795219200LL;

    /* library errors: a result that does not belong to the profile, bad limits */
    size_t keep = r->dom[0];
    r->dom[0] = p->nfunc + 3;
    LENS_TEST(lens_profile_report_write(&o, p, r, pdf, &e) == LENS_EINVAL && strstr(e.msg, "out of range"),
              "foreign result: %s", e.msg);
    r->dom[0] = keep;
    o.max_functions = 0;
    LENS_TEST(lens_profile_report_write(&o, p, r, pdf, &e) == LENS_EINVAL, "bad limit");
    o.max_functions = 25;
    LENS_TEST(!exists(pdf), "nothing written by the failures");

    /* every allocation point up to 150, then every 4th (three fonts per run: keep it fast) */
    steps = reported = 0;
    int clean = 0;
    for (long n = 1; n < 40000; n += n < 150 ? 1 : 4, steps++) {
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        int rc = lens_profile_report_write(&o, p, r, pdf, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            break;
        reported += rc < 0 && e.msg[0] != '\0';
        clean += !exists(pdf);
    }
    LENS_TEST(steps > 150 && reported == steps, "report failures reported: %d of %d", reported, steps);
    LENS_TEST(clean == steps, "no pdf after a failure: %d of %d", clean, steps);
    LENS_TEST(exists(pdf), "the run without failures wrote the pdf");
    if (getenv("VERBOSE"))
        fprintf(stderr, "%d allocation points in the report\n", steps);
    unlink(pdf);
    LENS_TEST(rmdir(dir) == 0, "only the pdf was left in %s (figure directories removed)", dir);
    lens_icappa_free(r);
    lens_profile_free(p);
    return LENS_TEST_DONE("test_profile_faults");
}
