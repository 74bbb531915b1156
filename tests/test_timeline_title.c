/* The timeline's plain title (a window given, no instance centred) counts ranks with the one
 * formatter's plural: "Timeline of 2 ranks", never "rank(s)". The figure is drawn onto a
 * cairo PDF surface and read back with pdftotext, so the check sees the drawn words. */
#include "analysis/trace/trace_analysis.h"
#include "render/fig/timeline.h"
#include "lens_test.h"

#include <cairo-pdf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The words of the figure drawn with opts o over window w, as pdftotext reads them. */
static void drawn_text(const struct lens_trace_analysis *a, const struct lens_timeline_opts *o,
                       const struct lens_timeline_window *w, char *out, size_t n)
{
    char pdf[] = "/tmp/mpilens-tltitle-XXXXXX";
    int fd = mkstemp(pdf);
    out[0] = '\0';
    if (fd < 0)
        return;
    close(fd);
    struct lens_err e;
    cairo_surface_t *sf = cairo_pdf_surface_create(pdf, 1200, 400);
    cairo_t *cr = cairo_create(sf);
    LENS_TEST(lens_timeline_draw(cr, 0, 0, 1200, 400, a, o, w, &e) == LENS_OK, "draw: %s", e.msg);
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "pdftotext -raw %s - 2>/dev/null", pdf);
    FILE *p = popen(cmd, "r");
    size_t got = p ? fread(out, 1, n - 1, p) : 0;
    out[got] = '\0';
    if (p)
        pclose(p);
    unlink(pdf);
}

int main(void)
{
    struct lens_err e;
    const char *data = getenv("DATA") ? getenv("DATA") : "tests/data";
    char path[PATH_MAX];
    /* pipit-ping-pong has 2 ranks, casita 4: both want the plural */
    const char *traces[2] = {"/otf2/pipit-ping-pong", "/otf2/casita-4_mpi_ls_barr"};
    const char *want[2] = {"Timeline of 2 ranks", "Timeline of 4 ranks"};
    static char text[1 << 16];
    for (int t = 0; t < 2; t++) {
        snprintf(path, sizeof path, "%s%s", data, traces[t]);
        struct lens_trace_analysis *a = NULL;
        LENS_TEST(lens_trace_analysis_new(path, "templates/rules", 0, &a, &e) == LENS_OK, "%s: %s", path,
                  e.msg);
        if (!a)
            continue;
        struct lens_timeline_opts o;
        struct lens_timeline_window w;
        lens_timeline_opts_init(&o);
        /* a window in the first millisecond with no instance: the plain title */
        o.t0 = 0;
        o.t1 = 1e-3;
        o.problem = NULL;
        LENS_TEST(lens_timeline_select(a, &o, &w, &e) == LENS_OK, "select: %s", e.msg);
        w.problem = -1;
        w.rank = -1;
        drawn_text(a, &o, &w, text, sizeof text);
        LENS_TEST(strstr(text, want[t]) != NULL, "%s: no '%s' in the drawn text", traces[t], want[t]);
        LENS_TEST(strstr(text, "(s)") == NULL, "%s: a '(s)' plural in the drawn text", traces[t]);
        /* the subtitle's counts by the same rule: n calls and messages as the window holds */
        char sub[160];
        snprintf(sub, sizeof sub, "%zu MPI call%s, %zu message%s", w.ncalls, w.ncalls == 1 ? "" : "s",
                 w.nmessages_all, w.nmessages_all == 1 ? "" : "s");
        LENS_TEST(strstr(text, sub) != NULL, "%s: no '%s' in the drawn text", traces[t], sub);
        snprintf(sub, sizeof sub, "%zu problem instance%s", w.ninstances, w.ninstances == 1 ? "" : "s");
        LENS_TEST(strstr(text, sub) != NULL, "%s: no '%s' in the drawn text", traces[t], sub);
        lens_trace_analysis_free(a);
    }
    return LENS_TEST_DONE("test_timeline_title");
}
