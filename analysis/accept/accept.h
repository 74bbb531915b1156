/* Acceptance: every criterion of a contract (criteria.h) measured on the inputs (latency
 * cubes, p2p sweeps and bisection runs) and judged, for `mpilens accept` (docs/accept.md). A criterion must
 * hold for every length (without length=), every pair of a sweep in its scope and every input
 * of its kind; the value reported is the one with the least margin, and `where` names it.
 * Units: every value here is in the metric's SI base unit (seconds, bytes/s, 1/s, a ratio,
 * a count). Nothing prints. */
#ifndef LENS_ACCEPT_H
#define LENS_ACCEPT_H

#include "common/err.h"
#include "criteria.h"

#include <stddef.h>

struct lens_cube;
struct lens_p2pfile;
struct lens_bisection;
struct lens_compare;

/* One input: exactly one of cube, p2p and bisection is set. Borrowed: the caller keeps them
 * alive. */
struct lens_accept_input {
    const char *name;                 /* as given on the command line, for `where` */
    const struct lens_cube *cube;     /* read with at least the stats of lens_criteria_stats */
    const struct lens_p2pfile *p2p;
    const struct lens_bisection *bisection; /* PREFIX_bisection.csv of mpilens-bench */
    /* With a cube only, NULL otherwise: the cube compared with its baseline
     * (lens_compare_cubes(baseline, name)), the evidence of compare.regressions. */
    const struct lens_compare *compare;
    const char *baseline;             /* the baseline as named, for `where` and messages */
};

/* The outcome of one criterion. */
struct lens_accept_result {
    double measured;      /* the worst value over lengths, pairs and inputs (SI) */
    double margin;        /* how far measured is inside the limit, in the same unit: limit -
                           * measured for <= and <, measured - limit for >= and >, -|measured -
                           * limit| for ==; negative when it fails (< and > also fail at 0) */
    int pass;
    char where[256];      /* "3 -> 17 at 4096 B", "intra vm, ranks 0-1 at 4096 B", "node03 ..." */
    char hosts[256];      /* the host names of the ranks `where` names, "node01 -> node03";
                           * "" when the input has no hosts file or `where` names no rank */
    int input;            /* index into the inputs of the worst value */
};

struct lens_accept {
    int n;                            /* = the criteria's n, in file order */
    struct lens_accept_result *r;     /* owned (lens_accept_free) */
    int failed;                       /* criteria that do not hold */
};

/* Evaluates every criterion of cr on the inputs. Errors name the criteria file, line and
 * column, and the input: LENS_EDATA when a metric has no data (no input of its kind, no pair
 * in the scope, no host names for scope=intra/inter, a length or size the input does not
 * have, no finite value, a statistic the cube was read without, compare.regressions
 * without a cube compared with a baseline), those of
 * lens_structure_run for the anomaly metrics, and LENS_ENOMEM. The first criterion that
 * cannot be measured ends the run: *out stays NULL, so no partial verdict escapes. */
int lens_accept_run(const struct lens_criteria *cr, const struct lens_accept_input *in, int nin,
                    struct lens_accept **out, struct lens_err *e);
void lens_accept_free(struct lens_accept *a);

/* One criterion's outcome worded for a reader: the text output of `mpilens accept` and the
 * verdict page of its report (render/doc/report_verdict.c) lay these strings out as they
 * are, so both show the same numbers in the same units. */
struct lens_accept_line {
    char criterion[256];  /* "cube.delay.max <= 5 us length=4096": the parsed line, no label */
    char limit[48], measured[48]; /* in the unit the line was written with: "5 us", "11.4 us" */
    char margin[48];      /* margin / |limit| as a signed percentage, "-128%"; the margin
                           * itself ("-1") when the limit is 0 */
    const char *label;    /* the contract clause (label="..."), borrowed; NULL when none */
    int pass;
    int source;           /* enum lens_criteria_source: the kind of evidence */
    const char *input;    /* name of the input the worst value is on (borrowed from in[]) */
    char where[256], hosts[256]; /* as in lens_accept_result */
};

/* The whole verdict: one line per criterion in file order. Owns lines (lens_accept_view_free). */
struct lens_accept_view {
    int n, failed;
    const char *criteria;         /* the criteria file as named, borrowed */
    struct lens_accept_line *line;
};

/* Words the results a of cr measured on in[0..nin) (the inputs lens_accept_run was given).
 * Values are rounded to four digits; the exact doubles stay in a. Errors: LENS_ENOMEM. */
int lens_accept_describe(const struct lens_criteria *cr, const struct lens_accept *a,
                         const struct lens_accept_input *in, int nin, struct lens_accept_view **out,
                         struct lens_err *e);
void lens_accept_view_free(struct lens_accept_view *v);
/* A value of criterion c (SI) in the unit c was written with, else in the SI base unit;
 * sign: with an explicit + or -. */
void lens_accept_value_text(const struct lens_criterion *c, double v, int sign, char *buf, size_t cap);
/* The criterion as parsed, "cube.delay.max <= 3 us length=4096 scope=inter stat=min". */
void lens_accept_criterion_text(const struct lens_criterion *c, char *buf, size_t cap);

/* The nearest-rank percentile of v[0..n) (reordered in place), n > 0, 0 < pct <= 100: the
 * smallest value with at least pct% of the values at or below it, x_(ceil(pct/100 * n)).
 * Always one of the values, so a limit can be checked against the element it names. */
double lens_accept_percentile(double *v, size_t n, int pct);

#endif
