/* The problems report: draws templates/problems_report.tmpl with the problems found in one or
 * more traces into a PDF: a title page; when there are several traces, a comparison (time
 * of each run, speed-up against the first, the time of each problem); with opts.gain, the
 * gain over process counts (a table and render/fig/gainplot.h); then per trace a ranked
 * table of its problems and, per problem, description, advice, total and share, a bar chart
 * of the seconds per rank, the top call sites and the timeline around its worst instance
 * (render/fig/timeline.h). The sections are rows of a table in problems_report.c, drawn by the
 * document driver (render/doc/doc.h). */
#ifndef LENS_PROBLEMS_REPORT_H
#define LENS_PROBLEMS_REPORT_H

#include "analysis/trace/trace.h"
#include "common/err.h"
#include "common/time.h"
#include "render/fig/fig.h"

/* One analysed trace, borrowed. The analysis should be run with LENS_PROBLEMS_KEEP_CHARGES
 * (the timelines then highlight every instance); the report builds nothing itself. */
struct lens_problems_report_input {
    const char *name;                      /* how the report names the trace (its path, or
                                              "naive" / "overlapped" in a comparison) */
    const struct lens_trace_analysis *analysis;
    double wall_s;                         /* measured run time in seconds (the speed-up of
                                              a comparison uses it); NaN: unknown, then the
                                              trace's longest rank is used */
    const struct lens_msgsize *msgsizes;   /* binned message-size profile of the trace
                                              (analysis/trace/msgsize.h), borrowed; NULL:
                                              the msgsizes section draws nothing */
};

struct lens_problems_report_opts {
    const char *title;         /* UTF-8; NULL: the template's default_title text */
    const char *datadir;       /* holds fonts/ and templates/ (see lens_report_datadir) */
    const char *template_path; /* NULL: <datadir>/templates/problems_report.tmpl */
    const char *rules;         /* the rule base directory, shown on the title page; NULL: "-" */
    int lang;                  /* 0: English, 1: Russian names, descriptions, advice, sites */
    int max_problems;          /* problems detailed per trace (default 8, largest first) */
    int max_sites;             /* call sites listed per problem (default 5) */
    int timelines;             /* 1 (default): a timeline per problem; 0: none (faster) */
    long long date;            /* Unix seconds printed and stored (lens_time_source_date()) */
    /* `problems --versions`: the times, gains and main problems' shares of each version at
     * each process count, computed by the caller (cli/cmd_problems.c); the section "gain"
     * draws them as a table and a figure. Its labels and font are set by the report. NULL
     * (the default): no such section. */
    const struct lens_gainplot_opts *gain;
};

/* Defaults: the limits above, English, date = lens_time_source_date(). */
void lens_problems_report_opts_init(struct lens_problems_report_opts *o);

/* Writes the report of the nin inputs to path through a temporary file and rename: a failure
 * leaves nothing. With a fixed date (SOURCE_DATE_EPOCH) the output is byte-identical across
 * runs. Errors name the file (the template with its line, a font, the output path):
 * LENS_EINVAL (no input), LENS_EFORMAT, LENS_EIO, LENS_ELIB, LENS_ENOMEM. */
int lens_problems_report_write(const struct lens_problems_report_opts *o,
                               const struct lens_problems_report_input *in, int nin,
                               const char *path, struct lens_err *e);

#endif
