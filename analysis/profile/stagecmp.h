/* Two stage logs side by side: a runtime revision against the previous one, as the NSU thesis
 * on testing LuNA compares two implementations of its fragment manager (tasks waiting for data
 * over time, their wait against arrival, the execution queue over time). Stages are matched by
 * name; times are taken from each log's own start, so runs started at different wall times
 * overlay. A struct lens_stagecmp owns its arrays, not the logs (lens_stagecmp_free). */
#ifndef LENS_STAGECMP_H
#define LENS_STAGECMP_H

#include <stdio.h>

#include "common/err.h"
#include "stagelog.h"

/* One stage's figures in the two logs: [0] the baseline, [1] the new log. A stage missing from
 * one log has tasks 0 there and stage index -1. */
struct lens_stagecmp_stage {
    const char *name;           /* borrowed from the log that names it first (new, then base) */
    long index[2];              /* the stage's index in each log, -1 when absent */
    size_t tasks[2];            /* tasks with measured time > 0 in it */
    double mean[2], max[2];     /* seconds over those tasks; 0 when none */
    size_t cross[2];            /* stays across two nodes (not timed with per-node clocks) */
};

struct lens_stagecmp {
    const struct lens_stagelog *log[2]; /* borrowed: [0] baseline, [1] new */
    size_t nstage;                      /* the union of stage names: new's order, then base-only */
    struct lens_stagecmp_stage *stages; /* owned */
    size_t points;                      /* occupancy time points per log */
    double *times[2];                   /* points seconds since each log's t0, owned */
    size_t *counts[2];                  /* points x nstage tasks, columns in this struct's stage
                                           order (0 for a stage the log lacks), owned */
};

/* The per-stage figures of one log: tasks with measured time > 0 in stage s, their mean and
 * maximum seconds (0 when none). Shared by the text, the JSON and the comparison. */
void lens_stagecmp_stage_stats(const struct lens_stagelog *l, size_t s, size_t *tasks, double *mean,
                               double *max);

/* Compares base (older) with cur (newer) over `points` occupancy points each. Both logs must
 * outlive *out. Errors: LENS_EINVAL (points 0), LENS_ENOMEM. */
int lens_stagecmp_build(const struct lens_stagelog *base, const struct lens_stagelog *cur, size_t points,
                        struct lens_stagecmp **out, struct lens_err *e);
void lens_stagecmp_free(struct lens_stagecmp *c);

/* The comparison as a JSON object (keys in docs/icappa.md, "Two stage logs"), on its own line.
 * Returns LENS_EIO on a stream error. */
int lens_stagecmp_write_json(const struct lens_stagecmp *c, FILE *fp, struct lens_err *e);

#endif
