/* lens_scale_report_write takes the marks its caller computed (cmd_scale computes them once
 * for `scale marks` and `scale report`) and only lays them out: a mark replaced by a value no
 * grid gives (7.25, -3.5) must be what the PDF shows, in the metric table and in the ranking
 * order the caller passed; a ranking index outside the applications is LENS_EINVAL and
 * leaves no file. */
#include "analysis/scale/marks.h"
#include "analysis/scale/runs.h"
#include "render/doc/scale_report.h"
#include "lens_test.h"
#include "lens_scratch.h"

#include <stdio.h>
#include <string.h>

/* The PDF's text (pdftotext -layout, spaces squeezed) into buf. */
static void pdf_text(const char *path, char *buf, size_t n)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "pdftotext -layout '%s' - 2>/dev/null | tr -s ' '", path);
    FILE *pp = popen(cmd, "r");
    size_t len = pp ? fread(buf, 1, n - 1, pp) : 0;
    buf[len] = '\0';
    if (pp)
        pclose(pp);
}

int main(void)
{
    if (lens_scratch_open("test_scale_report_api") != 0)
        return 1;
    struct lens_err e = {0};
    struct lens_runs *r = lens_runs_new();
    int rc = r ? LENS_OK : LENS_ENOMEM;
    /* two applications on a 2 x 2 grid: "alpha" falls with p, "beta" stays at 1 */
    static const double p[2] = {1, 4}, d[2] = {100, 200};
    for (int i = 0; i < 2 && rc == LENS_OK; i++)
        for (int j = 0; j < 2 && rc == LENS_OK; j++) {
            rc = lens_runs_add(r, "alpha", LENS_RUNS_EFFICIENCY, LENS_RUNS_OK, p[i], d[j], 1 - 0.1 * i, &e);
            if (rc == LENS_OK)
                rc = lens_runs_add(r, "beta", LENS_RUNS_EFFICIENCY, LENS_RUNS_OK, p[i], d[j], 1, &e);
        }
    struct lens_grid *g = NULL;
    size_t n = 0;
    if (rc == LENS_OK)
        rc = lens_runs_grids(r, NULL, &g, &n, &e);
    LENS_TEST(rc == LENS_OK && n == 2, "grids: %s", e.msg);
    if (rc != LENS_OK || n != 2)
        return LENS_TEST_DONE("test_scale_report_api");

    struct lens_marks m[2];
    LENS_TEST(lens_marks_compute(&g[0], &m[0], &e) == LENS_OK && lens_marks_compute(&g[1], &m[1], &e) == LENS_OK,
              "marks: %s", e.msg);
    LENS_TEST(m[1].mark_procs == 0, "beta's MarkProcs is 0 from its grid");
    /* values the grids cannot give: the report must print these, not recompute */
    m[0].mark_procs = 7.25;
    m[1].mark_procs = -3.5;
    size_t o_procs[2] = {1, 0}, o_data[2] = {0, 1}, o_all[2] = {0, 1};
    const size_t *order[3] = {o_procs, o_data, o_all};

    struct lens_scale_report_opts o;
    lens_scale_report_opts_init(&o);
    o.datadir = ".";
    o.date = 1700000000;
    char *pdf = lens_scratch_path("s.pdf");
    rc = lens_scale_report_write(&o, g, m, order, n, pdf, &e);
    LENS_TEST(rc == LENS_OK, "write: %s", e.msg);
    static char text[1 << 16];
    pdf_text(pdf, text, sizeof text);
    LENS_TEST(strstr(text, " 7.250 ") != NULL, "alpha's given MarkProcs in the PDF");
    LENS_TEST(strstr(text, " -3.500 ") != NULL, "beta's given MarkProcs in the PDF");
    /* the MarkProcs ranking in the order passed: beta (index 1) first */
    const char *b = strstr(text, "1 beta -3.500"), *a = strstr(text, "2 alpha 7.250");
    LENS_TEST(b && a && b < a, "ranking rows in the caller's order");

    remove(pdf);
    o_data[1] = 2; /* no third application */
    rc = lens_scale_report_write(&o, g, m, order, n, pdf, &e);
    LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, "ranking 1"), "bad ranking: %d %s", rc, e.msg);
    LENS_TEST(!lens_scratch_exists(pdf) && lens_scratch_leftovers() == 0, "no file after a bad ranking");
    LENS_TEST(lens_scale_report_write(&o, g, m, order, 0, pdf, &e) == LENS_EINVAL, "no application");

    lens_runs_grids_free(g, n);
    lens_runs_free(r);
    lens_scratch_close();
    return LENS_TEST_DONE("test_scale_report_api");
}
