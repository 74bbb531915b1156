/* Stage logs of a task runtime (docs/methods.md §5.3): JSON lines
 * {"task": id, "stage": name, "t": seconds, "node": n}, one per task entering a stage, as a
 * runtime like LuNA writes for its computation fragments. Gives the number of tasks, how many
 * waited for inputs, the histogram of migrations [A0, A1, ...], the time each task spent in
 * each stage against its arrival time, and the number of tasks in each stage over time.
 * A log owns every pointer inside it; lens_stagelog_free() releases them all. */
#ifndef LENS_STAGELOG_H
#define LENS_STAGELOG_H

#include <stdio.h>

#include "common/err.h"

/* Bounds of the reader (docs/problems.md, "Limits of the text readers"): a longer line or
 * more stage names is LENS_EFORMAT naming file:line, never a silent split or a slow scan. */
#define LENS_STAGELOG_MAX_LINE ((size_t)1 << 20) /* bytes per record line */
#define LENS_STAGELOG_MAX_STAGES 256            /* distinct stage names */

struct lens_stagelog_task {
    char *id;          /* the "task" value as written (number or string), owned */
    double arrival;    /* t of its first record, seconds */
    double end;        /* t of its last record: the last record marks the end (e.g. "done") */
    int migrations;    /* times the node changed between consecutive records */
    int waited;        /* 1 when it spent > 0 s in the wait stage */
    double *in_stage;  /* nstage seconds in each stage (t of next record - t), into a pool */
};

struct lens_stagelog_span { /* one stay of a task in a stage, for occupancy */
    size_t stage;
    double from, to;   /* seconds, from <= to */
};

/* Whose clock stamps a record (docs/icappa.md, "Clocks"). A stay that starts on one node and
 * ends on another subtracts two clocks: with per-node clocks (the default, since a runtime's
 * nodes are rarely synchronised to better than the stays it measures) such a stay has no
 * measurable length, and is left out of the time in stage and of the occupancy; with synced
 * clocks every stay counts. */
enum lens_stagelog_clocks { LENS_STAGELOG_PER_NODE = 0, LENS_STAGELOG_SYNCED = 1 };

struct lens_stagelog {
    size_t ntask;
    struct lens_stagelog_task *tasks; /* ordered by arrival, then by id */
    size_t nstage;
    char **stages;                    /* stage names in order of first appearance, owned */
    size_t nspan;
    struct lens_stagelog_span *spans; /* every stay, owned */
    size_t nrecord;                   /* lines read */
    double t0, t1;                    /* first and last t of the whole log */
    size_t waited;                    /* tasks that waited for inputs */
    size_t nmig;                      /* histogram length: max migrations + 1 */
    size_t *mig_hist;                 /* mig_hist[k] = A_k, tasks with k migrations */
    enum lens_stagelog_clocks clocks; /* how the stays below were counted */
    size_t *cross;                    /* nstage: stays that began and ended on different nodes */
    size_t ncross;                    /* their sum; with per-node clocks none is in in_stage/spans */
    double *pool;                     /* ntask x nstage seconds behind tasks[i].in_stage */
};

/* Reads a log. wait_stage names the stage that means "waiting for inputs" (NULL: "wait").
 * clocks says whether a stay across two nodes is measurable (see enum lens_stagelog_clocks);
 * tasks, waits and migrations count every record either way.
 * Lines are JSON objects with "task" (number or string), "stage" (string), "t" (number,
 * seconds) and "node" (integer), each once; other keys are ignored; empty lines are skipped.
 * Records of a task are taken in order of t (then of lines). The caller owns *out
 * (lens_stagelog_free). Errors name file:line: LENS_EIO, LENS_EFORMAT (bad JSON, missing key,
 * bad value, a line or stage count beyond the bounds above), LENS_EDATA (no records),
 * LENS_ENOMEM. */
int lens_stagelog_read(const char *path, const char *wait_stage, enum lens_stagelog_clocks clocks,
                       struct lens_stagelog **out, struct lens_err *e);
void lens_stagelog_free(struct lens_stagelog *l);

/* Stage index of a name, or -1. */
long lens_stagelog_find(const struct lens_stagelog *l, const char *stage);

/* Tasks in each stage at nbins times tau_i = t0 + (i + 0.5) (t1 - t0) / nbins: a task is in
 * stage s at tau when one of its records enters s at t <= tau and its next record is later
 * than tau. Fills times[nbins] (seconds) and counts[nbins * nstage] (row i, column s), both
 * the caller's.
 * Errors: LENS_EINVAL (nbins == 0), LENS_ENOMEM. */
int lens_stagelog_occupancy(const struct lens_stagelog *l, size_t nbins, double *times,
                            size_t *counts, struct lens_err *e);

/* The JSON summary documented in docs/icappa.md: tasks, waited, migrations, stages, per stage
 * mean/max seconds, and the occupancy on nbins times. Returns LENS_EIO on a stream error. */
int lens_stagelog_write_json(const struct lens_stagelog *l, size_t nbins, FILE *fp,
                             struct lens_err *e);
/* One line per task: id,arrival,migrations,waited,<seconds in each stage>, with a header:
 * the data of the time-in-stage against arrival plots. An id or stage name holding a comma,
 * a quote or a line break is double-quoted (RFC 4180). Returns LENS_EIO on a stream error. */
int lens_stagelog_write_tasks_csv(const struct lens_stagelog *l, FILE *fp, struct lens_err *e);

#endif
