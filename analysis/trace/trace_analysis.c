/* The analysis of one trace (trace_analysis.h): the composite events are built here and only
 * here, so the problems, the timeline and the report all see the same events. */
#include "trace_analysis.h"

int lens_trace_analysis_read(const char *trace_path, const char *rules_dir,
                             struct lens_trace_analysis **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_trace_analysis *a = lens_calloc(1, sizeof *a);
    /* Nothing is read yet, so a failed allocation leaves nothing half built to free but a. */
    if (!a || !(a->rules = lens_rules_new())) {
        lens_free(a);
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    /* the rules first, parsed and bound (unknown types, fields and template names): a typo
     * in them is found before reading a large trace */
    int rc = lens_rules_load_dir(a->rules, rules_dir, e);
    if (rc == LENS_OK)
        rc = lens_problems_bind(a->rules, NULL, e);
    if (rc == LENS_OK)
        rc = lens_trace_read(trace_path, &a->trace, e);
    if (rc != LENS_OK) {
        lens_trace_analysis_free(a);
        return rc;
    }
    *out = a;
    return LENS_OK;
}

/* Binding before building: a rule error is reported without spending the time to build the
 * events, and a second run is refused because the trace's times were already moved by the clock
 * fix (a second fix would see different inputs). */
int lens_trace_analysis_run(struct lens_trace_analysis *a, unsigned flags, struct lens_err *e)
{
    if (!a->rules || a->events)
        return lens_err_set(e, LENS_EINVAL, "trace analysis already run");
    int rc = lens_problems_bind(a->rules, NULL, e);
    if (rc == LENS_OK)
        rc = lens_events_build(a->trace, &a->events, e);
    if (rc != LENS_OK)
        return rc;
    struct lens_rules *r = a->rules;
    a->rules = NULL; /* taken over by the problems, also when detection fails */
    return lens_problems_detect(a->trace, a->events, r, NULL, flags, &a->problems, e);
}

/* Read and run in one step; on failure nothing is returned, so the caller frees nothing. */
int lens_trace_analysis_new(const char *trace_path, const char *rules_dir, unsigned flags,
                            struct lens_trace_analysis **out, struct lens_err *e)
{
    int rc = lens_trace_analysis_read(trace_path, rules_dir, out, e);
    if (rc == LENS_OK && (rc = lens_trace_analysis_run(*out, flags, e)) != LENS_OK) {
        lens_trace_analysis_free(*out);
        *out = NULL;
    }
    return rc;
}

/* The problems point into the trace (call indices) and own the rules once run: free them before
 * the trace. a->rules is non-NULL only when the run never took them over. */
void lens_trace_analysis_free(struct lens_trace_analysis *a)
{
    if (!a)
        return;
    lens_problems_free(a->problems);
    lens_rules_free(a->rules);
    lens_events_free(a->events);
    lens_trace_free(a->trace);
    lens_free(a);
}
