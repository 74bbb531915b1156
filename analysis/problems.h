/* Applies the rule base (rules.h) to the composite events of a trace (events.h) and
 * aggregates each problem: total seconds, share of the total time (sum over ranks of their
 * run time), seconds per rank, the call sites that caused it and the largest instances.
 * Time inside one MPI call counts once per problem: when a call completes several messages
 * (Waitall), only the largest wait is charged, as Scalasca does. */
#ifndef LENS_PROBLEMS_H
#define LENS_PROBLEMS_H

#include "events.h"
#include "ruleeval.h"

#include <stdio.h>

#define LENS_PROBLEMS_TOP 10 /* call sites and instances kept per problem */

struct lens_problem_site {
    char text[320];    /* "MPI_Recv called from foo (jacobi.c:57)" */
    char text_ru[320]; /* "вызов MPI_Recv из foo (jacobi.c:57)" */
    double seconds;
    uint64_t count;
};

struct lens_problem_instance {
    int32_t rank;     /* charged world rank */
    double time;      /* enter of the charged call, seconds */
    double seconds;   /* wait time */
    char call[64];    /* MPI function */
};

/* One charged MPI call (kept with LENS_PROBLEMS_KEEP_CHARGES): the instance-level view the
 * timeline draws. */
struct lens_problem_charge {
    int32_t rank;     /* charged world rank */
    uint32_t call;    /* index into that rank's lens_trace_rank.calls */
    double seconds;   /* wait time charged to the call */
};

struct lens_problem_result {
    const struct lens_rule_problem *rule; /* id and texts (owned by lens_problems.rules) */
    double total_s, share;                /* seconds; share of lens_problems.total_time_s */
    uint64_t count;                       /* instances (charged calls) */
    double *per_rank;                     /* nranks seconds */
    struct lens_problem_site sites[LENS_PROBLEMS_TOP];     /* largest first */
    int nsites;
    struct lens_problem_instance top[LENS_PROBLEMS_TOP];   /* largest first */
    int ntop;
    struct lens_problem_charge *charges; /* with LENS_PROBLEMS_KEEP_CHARGES: every charged call,
                                            ordered by rank then call (owned); else NULL */
    size_t ncharges;
};

struct lens_problems {
    int nranks;
    double total_time_s;              /* sum over ranks of last event - first event */
    struct lens_problem_result *res;  /* sorted by total_s, largest first; ties in rule order */
    int nres;
    struct lens_rules *rules;         /* owned */
    uint64_t nevents, np2p, ncoll, unmatched;
    char warning[1200];              /* a rule skipped after a runtime error, "" when none */
};

/* Loads the rules of rules_dir, reads the trace at trace_path, builds the composite events
 * and evaluates every problem. A rule that fails at run time (division by zero) is skipped
 * and named in warning. Errors: those of lens_trace_read, lens_rules_load_dir and
 * lens_ruleeval_bind (file:line:col), LENS_ENOMEM. */
int lens_problems_run(const char *trace_path, const char *rules_dir, struct lens_problems **out,
                      struct lens_err *e);
/* The same on a trace already read (t is modified by the clock fix) and rules already parsed
 * (taken over: freed with the result, also on failure). */
int lens_problems_analyze(struct lens_trace *t, struct lens_rules *rules,
                          struct lens_problems **out, struct lens_err *e);
/* The same with flags: LENS_PROBLEMS_KEEP_CHARGES keeps every charged call in
 * lens_problem_result.charges (16 bytes each), whose call indices refer to t. */
#define LENS_PROBLEMS_KEEP_CHARGES 1u
int lens_problems_analyze_flags(struct lens_trace *t, struct lens_rules *rules, unsigned flags,
                                struct lens_problems **out, struct lens_err *e);
void lens_problems_free(struct lens_problems *p);

/* Report output. lang is 0 for English, 1 for Russian (falls back to English per text). */
int lens_problems_write_text(const struct lens_problems *p, int lang, FILE *fp);
int lens_problems_write_json(const struct lens_problems *p, int lang, FILE *fp);

/* One row per problem found, for the PDF report table: pointers borrowed from p. */
struct lens_problems_row {
    const char *id, *name, *description, *advice;
    double total_s, share;
    const char *top_site;  /* "" when none */
};
/* Fills up to max rows (problems with time > 0, largest first); returns how many. */
int lens_problems_rows(const struct lens_problems *p, int lang, struct lens_problems_row *rows,
                       int max);

#endif
