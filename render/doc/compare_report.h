/* The comparison report of `mpilens compare -o FILE.pdf`: page one answers (verdict, how the
 * ranks were matched, the test, the findings table), then the ratio map and the before/after
 * histograms of analysis/compare, and the references; templates/compare_report.tmpl holds
 * the layout and every text. The comparison comes finished from the caller. */
#ifndef LENS_COMPARE_REPORT_H
#define LENS_COMPARE_REPORT_H

#include "analysis/compare/compare.h"
#include "common/err.h"

struct lens_compare_report_opts {
    const char *title;         /* UTF-8; NULL: the template's default_title */
    const char *datadir;       /* holds fonts/ and templates/ (lens_report_datadir) */
    const char *template_path; /* NULL: <datadir>/templates/compare_report.tmpl */
    const char *figures_dir;   /* NULL: none; else ratiomap.{png,svg}, histograms.{png,svg} */
    const char *base, *newer;  /* the inputs as the user named them */
    double alpha, min_change;  /* the options the comparison ran with */
    long long date;            /* Unix seconds printed and stored (lens_time_source_date()) */
};

/* Defaults: no title or figures, alpha 0.01, min_change 0.1, date lens_time_source_date(). */
void lens_compare_report_opts_init(struct lens_compare_report_opts *o);

/* Writes the report of c (borrowed; with the ratio map and histograms of
 * lens_compare_cubes_map for cubes) to path through a temporary file and rename: a failure
 * leaves nothing. Errors name the file: LENS_EFORMAT (template), LENS_EIO, LENS_ELIB,
 * LENS_ENOMEM. */
int lens_compare_report_write(const struct lens_compare_report_opts *o, const struct lens_compare *c,
                              const char *path, struct lens_err *e);

#endif
