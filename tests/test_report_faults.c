/* Allocation-failure injection over lens_report_write (template, PDF, heatmaps, figure files):
 * every failure is reported with an error and leaves no PDF; ASan checks for leaks. Also the
 * data-directory lookup and the library-level errors that the command line cannot reach. */
#include "render/doc/report.h"
#include "analysis/structure/structure.h"
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

int main(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    char datadir[PATH_MAX];
    LENS_TEST(lens_report_datadir(datadir, sizeof datadir, &e) == LENS_OK, "datadir: %s", e.msg);
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/templates/report.tmpl", datadir);
    LENS_TEST(exists(probe), "datadir %s holds the template", datadir);

    struct lens_cube *c = NULL;
    LENS_TEST(lens_cube_read("samples/cubes/synth32/network", &c, &e) == LENS_OK, "read: %s", e.msg);
    if (!c)
        return LENS_TEST_DONE("test_report_faults");
    char dir[] = "/tmp/mpilens-rfault-XXXXXX", pdf[256], figs[256];
    LENS_TEST(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(pdf, sizeof pdf, "%s/r.pdf", dir);
    snprintf(figs, sizeof figs, "%s/fig", dir);
    struct lens_report_input in = {.name = "synth32", .cube = c};
    struct lens_report_opts o;
    lens_report_opts_init(&o);
    o.datadir = datadir;
    o.date = 1795219200LL;
    int lengths[1] = {4000};
    o.lengths = lengths;
    o.nlengths = 1;
    o.figures_dir = figs;
    /* the results the report lays out, computed first as mpilens report does */
    unsigned parts = 0;
    struct lens_structure_report res;
    LENS_TEST(lens_report_parts(&o, &in, 1, &parts, &e) == LENS_OK && parts == LENS_STRUCTURE_ALL,
              "parts of the default template: %#x %s", parts, e.msg);
    LENS_TEST(lens_structure_report_run(c, o.stat, parts, &res, &e) == LENS_OK, "results: %s", e.msg);
    in.results = &res;

    /* library errors: no input, a statistic that is absent, a bad statistic */
    LENS_TEST(lens_report_write(&o, &in, 0, pdf, &e) == LENS_EINVAL, "no input");
    o.stat = 9;
    LENS_TEST(lens_report_write(&o, &in, 1, pdf, &e) == LENS_EINVAL, "bad statistic");
    o.stat = LENS_STAT_DEVIATION;
    double *dev = c->data[LENS_STAT_DEVIATION];
    c->data[LENS_STAT_DEVIATION] = NULL;
    LENS_TEST(lens_report_write(&o, &in, 1, pdf, &e) == LENS_EDATA && strstr(e.msg, "synth32") &&
                  strstr(e.msg, "deviation"), "absent statistic: %s", e.msg);
    c->data[LENS_STAT_DEVIATION] = dev;
    o.stat = LENS_STAT_MEDIAN;
    LENS_TEST(!exists(pdf), "nothing written by the failures");

    /* walk the n-th allocation over the whole report: every point up to 150 (template,
     * placeholders, first page), then every 4th, and every 16th past 600 (the structure
     * section's figures: each run embeds fonts and eleven figures) */
    int steps = 0, reported = 0, clean = 0;
    for (long n = 1; n < 20000; n += n < 150 ? 1 : n < 600 ? 4 : 16, steps++) {
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        int rc = lens_report_write(&o, &in, 1, pdf, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            break;
        reported += rc < 0 && e.msg[0] != '\0';
        clean += !exists(pdf);
    }
    LENS_TEST(steps > 150 && reported == steps, "failures reported: %d of %d", reported, steps);
    if (getenv("VERBOSE"))
        fprintf(stderr, "%d allocation points\n", steps);
    LENS_TEST(clean == steps, "no pdf after a failure: %d of %d", clean, steps);
    LENS_TEST(exists(pdf), "the run without failures wrote the pdf");
    char png[300];
    snprintf(png, sizeof png, "%s/heatmap_median_4096B.png", figs);
    LENS_TEST(exists(png), "figure file for --lengths 4000 -> 4096");

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (!lens_test_failed && system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    lens_structure_report_release(&res);
    lens_cube_free(c);
    return LENS_TEST_DONE("test_report_faults");
}
