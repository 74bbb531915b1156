/* The profile report "Where the time goes": draws templates/profile_report.tmpl with a profile
 * and its ICAPPA result into a PDF (title page; the answer in words with the ranked functions
 * and the process groups; the bar chart of every round and the PCA scatter of the processes
 * from render/fig/profile_plot.h, and the box plots of the dominating functions per process
 * cluster when opts.dist is given; the rounds with their BIC). The sections are rows of a table in
 * profile_report.c, drawn by the document driver (render/doc/doc.h). */
#ifndef LENS_PROFILE_REPORT_H
#define LENS_PROFILE_REPORT_H

#include "analysis/profile/profile.h"
#include "common/err.h"
#include "common/time.h"

struct lens_profile_report_opts {
    const char *title;         /* UTF-8; NULL: the template's default_title text */
    const char *input;         /* the INPUT as the user named it (title page); NULL: "-" */
    const char *datadir;       /* holds fonts/ and templates/ (see lens_report_datadir) */
    const char *template_path; /* NULL: <datadir>/templates/profile_report.tmpl */
    const char *tmpdir;        /* where the figures are drawn before they are embedded (a
                                  private directory is made inside and removed); NULL:
                                  $TMPDIR, else /tmp */
    int max_functions;         /* rows of the ranked function table (default 25) */
    int max_rounds;            /* bar charts drawn, one per round from the first (default 8) */
    long long date;            /* Unix seconds printed and stored (lens_time_source_date()) */
    const struct lens_icappa_dist *dist; /* box plots per process cluster (borrowed, from
                                  lens_icappa_dist_build on the same p and r); NULL: the
                                  template's distribution block draws nothing */
};

/* Defaults: no title, the limits above, date = lens_time_source_date(). */
void lens_profile_report_opts_init(struct lens_profile_report_opts *o);

/* Writes the report of p (finished) and r (lens_icappa_run on p), both borrowed, to path
 * through a temporary file and rename: a failure leaves nothing. With a fixed date
 * (SOURCE_DATE_EPOCH) the output is byte-identical across runs. Errors name the file (the
 * template with its line, a font, the output path, the figure directory): LENS_EINVAL (a
 * result of another profile), LENS_EFORMAT, LENS_EIO, LENS_ELIB, LENS_ENOMEM. */
int lens_profile_report_write(const struct lens_profile_report_opts *o, const struct lens_profile *p,
                              const struct lens_icappa *r, const char *path, struct lens_err *e);

#endif
