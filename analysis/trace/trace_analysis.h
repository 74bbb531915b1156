/* The analysis of one trace, built once and handed whole to every consumer: the trace read
 * from OTF2, its composite events (events.h) and the problems the rule base finds in them
 * (problems.h). `mpilens problems` builds one per TRACE; the listing, the timeline
 * (render/fig/timeline.h) and the problems report (render/doc/problems_report.h) only read it.
 * Owns all three; lens_trace_analysis_free() frees them. */
#ifndef LENS_TRACE_ANALYSIS_H
#define LENS_TRACE_ANALYSIS_H

#include "events.h"
#include "problems.h"

struct lens_trace_analysis {
    struct lens_trace *trace;       /* owned; once run, call times carry the clock fix */
    struct lens_events *events;     /* owned; built once by lens_trace_analysis_run */
    struct lens_problems *problems; /* owned; holds the rules */
    struct lens_rules *rules;       /* owned until run hands them to problems, then NULL */
};

/* Step 1: loads the rules of rules_dir, then reads the trace at trace_path; nothing is
 * computed yet, so a caller can look at the trace (its events per rank) first. Errors: those
 * of lens_rules_load_dir (file:line:col) and lens_trace_read, LENS_ENOMEM. */
int lens_trace_analysis_read(const char *trace_path, const char *rules_dir,
                             struct lens_trace_analysis **out, struct lens_err *e);
/* Step 2: binds the rules, builds the composite events (once; the clock fix is applied to
 * the trace) and detects the problems with flags (LENS_PROBLEMS_KEEP_CHARGES for the
 * timeline and report). Errors: those of lens_problems_bind and lens_problems_detect;
 * LENS_EINVAL when already run. A failed run leaves a to be freed. */
int lens_trace_analysis_run(struct lens_trace_analysis *a, unsigned flags, struct lens_err *e);
/* Both steps. */
int lens_trace_analysis_new(const char *trace_path, const char *rules_dir, unsigned flags,
                            struct lens_trace_analysis **out, struct lens_err *e);
void lens_trace_analysis_free(struct lens_trace_analysis *a);

#endif
