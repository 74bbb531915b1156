/* The scalability report: draws templates/scale_report.tmpl with the efficiency grids of
 * several applications into a PDF (title page; per application its efficiency surface, metric
 * table and one sentence per mark, its performance surface, the placements folded into it and
 * an extra column's surface when the grids carry them; then the three ranked comparison tables
 * of Teplov's paper).
 * The sections are rows of a table in scale_report.c, drawn by the document driver
 * (render/doc/doc.h). */
#ifndef LENS_SCALE_REPORT_H
#define LENS_SCALE_REPORT_H

#include <stddef.h>

#include "analysis/scale/scale.h"
#include "common/err.h"
#include "common/time.h"

struct lens_scale_report_opts {
    const char *title;         /* UTF-8; NULL: the template's default_title text */
    const char *datadir;       /* holds fonts/ and templates/ (see lens_report_datadir) */
    const char *template_path; /* NULL: <datadir>/templates/scale_report.tmpl */
    const char *texts_path;    /* sentences of the marks; NULL: <datadir>/templates/scale.txt */
    const char *figures_dir;   /* NULL: no figure files; else <app>_surface.{png,svg} per app */
    const char *const *sources; /* the runs files as the user named them (title page) */
    int nsources;
    double azimuth, elevation; /* surface view, degrees (defaults -60 and 30) */
    int log_procs, log_size;   /* 1: logarithmic axes in the surfaces */
    long long date;            /* Unix seconds printed and stored (lens_time_source_date()) */
    const char *perf_unit;     /* unit of lens_grid.perf for the captions; NULL: "work units/s" */
    const char *value_label;   /* name of lens_grid.extra (the --value column); NULL: none drawn */
};

/* Defaults: no title, no figures, the default view, date = lens_time_source_date(). */
void lens_scale_report_opts_init(struct lens_scale_report_opts *o);

/* Writes the report of grids[0..n) with their marks (marks[a] of grids[a], lens_marks_compute)
 * and the three rankings (order[key], lens_marks_rank by enum lens_marks_key), all borrowed and
 * computed once by the caller, to path through a temporary file and rename: a failure leaves
 * nothing. An application without any valid configuration gets its table and a note instead of
 * a surface. Errors name the file (template or texts file with its line, the output path, a
 * figure file): LENS_EINVAL (n == 0, a ranking index out of range), LENS_EFORMAT, LENS_EIO,
 * LENS_ELIB, LENS_ENOMEM. Figure files are named after the application with every character
 * outside [A-Za-z0-9._@-] replaced by '_'. */
int lens_scale_report_write(const struct lens_scale_report_opts *o, const struct lens_grid *grids,
                            const struct lens_marks *marks, const size_t *const order[3], size_t n,
                            const char *path, struct lens_err *e);

#endif
