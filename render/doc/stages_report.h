/* The stages report of `mpilens stages LOG -o OUT.pdf`: a task runtime's stage log (tasks,
 * waits, migrations, time per stage and the occupancy figure) and, with --baseline OLD, the
 * two logs side by side (both occupancies on one figure, a table of stage times old against
 * new and the change). templates/stages_report.tmpl holds the layout and every text; the
 * numbers come finished from the caller (analysis/profile: stagelog, stagecmp). */
#ifndef LENS_STAGES_REPORT_H
#define LENS_STAGES_REPORT_H

#include <stddef.h>

#include "analysis/profile/profile.h"
#include "common/err.h"

/* One stage of the log as the text output prints it (lens_stagecmp_stage_stats and the
 * occupancy's peak), computed by the caller. */
struct lens_stages_report_stage {
    size_t tasks;      /* tasks with measured time > 0 in the stage */
    double mean, max;  /* seconds over those tasks; 0 when none */
    size_t peak;       /* most tasks in the stage at one occupancy point */
};

/* What the report lays out; every pointer is borrowed and must outlive the call. */
struct lens_stages_report_input {
    const struct lens_stagelog *log;                /* the log (the new one with a baseline) */
    const char *log_name;                           /* LOG as the user named it */
    const struct lens_stages_report_stage *stages;  /* log->nstage rows, in the log's order */
    size_t points;                                  /* occupancy points (>= 1) */
    const double *times;                            /* points seconds (lens_stagelog_occupancy) */
    const size_t *counts;                           /* points x log->nstage tasks */
    const struct lens_stagecmp *cmp;                /* baseline against log (lens_stagecmp_build,
                                                       log[1] == log); NULL: no comparison pages */
    const char *base_name;                          /* OLD as the user named it; with cmp */
};

struct lens_stages_report_opts {
    const char *title;         /* UTF-8; NULL: the template's default_title */
    const char *datadir;       /* holds fonts/ and templates/ (lens_report_datadir) */
    const char *template_path; /* NULL: <datadir>/templates/stages_report.tmpl */
    long long date;            /* Unix seconds printed and stored (lens_time_source_date()) */
};

/* Defaults: no title, the default template, date = lens_time_source_date(). */
void lens_stages_report_opts_init(struct lens_stages_report_opts *o);

/* Writes the report of in to path through a temporary file and rename: a failure leaves
 * nothing; byte-identical for a fixed date (SOURCE_DATE_EPOCH). Errors name the file:
 * LENS_EINVAL (no log or stage rows, points 0, a comparison of another log), LENS_EFORMAT
 * (template, with its line), LENS_EIO, LENS_ELIB, LENS_ENOMEM. */
int lens_stages_report_write(const struct lens_stages_report_opts *o, const struct lens_stages_report_input *in,
                             const char *path, struct lens_err *e);

#endif
