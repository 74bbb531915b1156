/* Runs of applications over a grid of launch configurations (processes p, problem size d), read
 * from CSV, reduced to one efficiency grid E(p, d) per application (docs/methods.md §8).
 * A runs file has a header naming its columns: app, procs, size and efficiency or time, plus
 * optional status (ok, failed, timeout) and placement columns, and one more numeric column the
 * caller may ask for (lens_runs.value_col); other columns are ignored, '#' lines are comments.
 * Times are turned into efficiency by a serial reference (E = T1 / (p * Tp), T1 = best time at
 * p = 1 for the same app and size) or by a performance model (E = flops(d) / (p * Tp * peak)). */
#ifndef LENS_RUNS_H
#define LENS_RUNS_H

#include <stddef.h>

#include "common/err.h"

/* A runs CSV line longer than this (bytes) is LENS_EFORMAT naming file:line (docs/problems.md,
 * "Limits of the text readers"). */
#define LENS_RUNS_MAX_LINE ((size_t)1 << 20)

enum lens_runs_status {
    LENS_RUNS_OK = 0,     /* the run finished and its value is valid */
    LENS_RUNS_FAILED = 1, /* the program failed or printed no time: a missing configuration */
    LENS_RUNS_TIMEOUT = 2 /* the run was killed after its time limit: a missing configuration */
};

enum lens_runs_kind {
    LENS_RUNS_EFFICIENCY = 0, /* value is a parallel efficiency (1 = ideal) */
    LENS_RUNS_TIME = 1        /* value is a wall time in seconds */
};

struct lens_runs_record {
    int app;       /* index into lens_runs.apps */
    int kind;      /* enum lens_runs_kind */
    int status;    /* enum lens_runs_status */
    double procs;  /* number of MPI processes, a positive integer */
    double size;   /* problem size in the application's own unit, > 0 */
    double value;  /* efficiency or seconds; NaN unless status is LENS_RUNS_OK */
    int place;     /* index into lens_runs.places, -1 when the row names no placement */
    double extra;  /* the value_col column of the row; NaN when not asked, empty or failed */
};

/* All records read so far; owns the application names and the records. */
struct lens_runs {
    char **apps;                     /* distinct application names in order of appearance */
    size_t n_apps, cap_apps;
    size_t last_app;                 /* cache: index of the last name looked up */
    struct lens_runs_slot *app_slot; /* hash of apps (private to runs.c) */
    size_t n_slot;                   /* slots, a power of two, or 0 before the first name */
    struct lens_runs_record *recs;   /* every row, repeated runs included */
    size_t n, cap;
    char **places;                   /* distinct placement labels in order of appearance */
    size_t n_places;
    /* Set by the caller before reading: one more numeric column to keep per row (e.g.
     * "gflops"); a file without it is LENS_EFORMAT. NULL: none. Borrowed. */
    const char *value_col;
};

/* How times become efficiencies. Zeroed = serial reference from the runs at p = 1. */
struct lens_runs_model {
    double peak;        /* peak flop/s of one process; > 0 selects the model */
    double flops_coef;  /* flops(d) = flops_coef * d^flops_power */
    double flops_power;
};

/* How missing configurations enter the grid (docs/scale.md, "Missing configurations"). */
enum lens_runs_missing {
    LENS_RUNS_GAP = 0, /* left out (NaN): the marks skip them; axes hold ok runs only */
    LENS_RUNS_ZERO = 1 /* efficiency 0, as Teplov fills them; axes hold every run tried */
};

/* One application's grid: the axis values present (ok runs only) and the best efficiency per
 * configuration. Owns every pointer. Only app, np, nd, procs, size and eff are required: a
 * caller-built grid may leave the other pointers NULL (absent). */
struct lens_grid {
    char *app;
    size_t np, nd;   /* number of distinct processes and sizes present */
    double *procs;   /* np values, ascending */
    double *size;    /* nd values, ascending */
    double *eff;     /* nd * np, eff[j * np + i] = E(procs[i], size[j]); NaN = missing */
    size_t n_failed; /* runs of this app recorded as failed or timed out */
    /* Performance of the run kept per configuration, nd * np like eff: C d^K / Tp (work per
     * second, the model's flops or size units when no --peak) from a time, E p F from an
     * efficiency with a peak F; NaN when it cannot be known. NULL: absent. */
    double *perf;
    double *extra;        /* lens_runs.value_col of the run kept; NULL when not asked */
    unsigned char *zero;  /* nd * np, 1 where LENS_RUNS_ZERO filled a missing configuration */
    /* Placements folded into this grid: n_var labels, their own best efficiency per
     * configuration (var_eff[v * nd * np + cell], NaN = not run there) and which one the grid
     * kept (kept[cell], -1 = none). All NULL / 0 when the runs name no placement. */
    size_t n_var;
    char **var;
    double *var_eff;
    int *kept;
    /* The raw times behind each configuration, nd * np like eff: t_n[cell] ok timed runs over
     * every placement and repeat, t_med their median, t_min (the run the efficiency uses) and
     * t_max, in seconds; NaN and 0 where none. NULL when no run of the app gave a time (its
     * runs file gave efficiencies) or for a caller-built grid. */
    double *t_med, *t_min, *t_max;
    size_t *t_n;
    /* Speed-up per configuration, nd * np like eff: T(1, d) / T(p, d) of the best times
     * (t_min), measured runs only; NaN where the size has no timed p = 1 run or T(p, d) is 0.
     * Present exactly when t_min is (the scale PDF's raw-times table). */
    double *t_speedup;
};

/* Everything lens_runs_build needs besides the runs. Zeroed = lens_runs_grids. */
struct lens_runs_opts {
    const struct lens_runs_model *model; /* NULL: serial reference; performance as C = K = 1 */
    int missing;     /* enum lens_runs_missing */
    int separate;    /* 1: each placement its own application "NAME@LABEL", as before folding */
};

struct lens_runs *lens_runs_new(void);
void lens_runs_free(struct lens_runs *r);

/* Appends every row of the CSV file at path. Errors (LENS_EIO, LENS_EFORMAT, LENS_ENOMEM) name
 * "path:line:column"; on error r keeps the rows of earlier files only. */
int lens_runs_read(struct lens_runs *r, const char *path, struct lens_err *e);

/* Appends one record; value is ignored (stored as NaN) unless status is LENS_RUNS_OK. */
int lens_runs_add(struct lens_runs *r, const char *app, int kind, int status, double procs,
                  double size, double value, struct lens_err *e);

/* Builds one grid per application, in order of first appearance. Repeated runs keep the best
 * (highest efficiency, i.e. shortest time). model may be NULL (serial reference). An app whose
 * ok runs are all missing yields a grid with np = nd = 0. A time without a reference (no ok run
 * at p = 1 for that app and size, and no model) is LENS_EDATA naming app and size, and so is a
 * model that overflows to no finite efficiency (a huge size or peak).
 * On success *grids (n entries) belongs to the caller: free it with lens_runs_grids_free. */
int lens_runs_grids(const struct lens_runs *r, const struct lens_runs_model *model,
                    struct lens_grid **grids, size_t *n, struct lens_err *e);
void lens_runs_grids_free(struct lens_grid *grids, size_t n);

/* lens_runs_grids with the options above. Placements are folded by default: the runs of every
 * placement of an app are repeats of its configurations (the best is kept, Teplov's rule), and
 * the grid lists the variants. Errors as lens_runs_grids. */
int lens_runs_build(const struct lens_runs *r, const struct lens_runs_opts *o,
                    struct lens_grid **grids, size_t *n, struct lens_err *e);

/* The part of g with procs in [plo, phi] and sizes in [dlo, dhi] (inclusive; NaN = open end),
 * every layer copied, as a new grid in *out (free its members with lens_runs_grids_free(out, 1)
 * on a lens_calloc'd grid, or lens_runs_grid_release). LENS_EINVAL when plo > phi or dlo > dhi,
 * LENS_ENOMEM. An empty range gives a grid with np or nd 0 (no marks). */
int lens_runs_subgrid(const struct lens_grid *g, double plo, double phi, double dlo, double dhi,
                      struct lens_grid *out, struct lens_err *e);
void lens_runs_grid_release(struct lens_grid *g);

/* Status names used in CSV files: "ok", "failed", "timeout". */
const char *lens_runs_status_name(int status);

#endif
