/* Applies the rule base (rules.h) to the composite events of a trace (events.h) and
 * aggregates each problem: total seconds, share of the total time (sum over ranks of their
 * run time), seconds per rank, the call sites of both members (where the time was lost and
 * where the call that caused it was made) and the largest instances; and each rank's time
 * in MPI calls, the bound of the problems' times on that rank.
 * Time inside one MPI call counts once per problem: when a call completes several messages
 * (Waitall), only the largest wait is charged, as Scalasca does. And each interval of a call
 * counts for one problem only: problems take their waits in declaration order (precedence)
 * and each keeps the part no earlier problem holds, so the problems' times on a rank add up
 * to at most its time in MPI calls (docs/methods.md §6, "Each wait charged once"). */
#ifndef LENS_PROBLEMS_H
#define LENS_PROBLEMS_H

#include "events.h"
#include "ruleeval.h"

#include <stdio.h>

#define LENS_PROBLEMS_TOP 10 /* call sites and instances kept per problem */

/* One call site of one member of a problem's composite: where the charged member waited (the
 * receive of a late sender, the early ranks of a barrier) or where the member that caused the
 * wait made its call (the send, the last rank to arrive). Rows with the same text are one
 * site: an inlined helper called from two places of one function is one row. */
struct lens_problem_site {
    char text[320];    /* "MPI_Recv called from foo (jacobi.c:57)", with an inlined caller
                          "MPI_Recv called from foo (inlined into main) (jacobi.c:57)" */
    char text_ru[320]; /* "вызов MPI_Recv из foo (jacobi.c:57)" */
    double seconds;    /* wait time charged (waiting member) or caused (the other member) */
    uint64_t count;    /* charged calls */
    const char *member;      /* the member's name in the rule ("recv", "send", "c", "all"):
                                borrowed from lens_problems.rules */
    int culprit;             /* 0: the charged (waiting) member, 1: the member that caused it */
    char function[64];       /* the MPI function */
    char caller[128];        /* innermost source function (inlined or not); Score-P: the
                                enclosing user region; "module+0xOFF" when unresolved; "" */
    char inlined_into[128];  /* the function caller was inlined into, "" when not inlined */
    char file[120];          /* base name, "" when unknown */
    int line;                /* 0 when unknown */
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
    double seconds;   /* the part of the call's wait charged to this problem: the whole wait
                         unless an earlier problem holds part of it */
    double start;     /* seconds from the call's enter to where that part begins: 0 for a
                         wait from the enter that nobody else holds, leave - enter - seconds
                         for one up to the leave; the charged span is [enter + start,
                         enter + start + seconds] */
};

struct lens_problem_result {
    const struct lens_rule_problem *rule; /* id and texts (owned by lens_problems.rules) */
    /* [language][LENS_RULE_NAME/DESCRIPTION/ADVICE] as shown: the rule's texts, except that a
     * description or advice with placeholders ("{recv.rank}", "{duration:ms}") is expanded
     * once per problem, on its largest charged instance (top[0]); with no instance it stays as
     * written. [1][k] is NULL when the rule has no Russian text k. Borrowed from the rule or
     * from expanded[][] (owned). */
    const char *text[2][LENS_RULE_NTEXT];
    char *expanded[2][LENS_RULE_NTEXT];
    double total_s, share;                /* seconds; share of lens_problems.total_time_s */
    uint64_t count;                       /* instances (calls charged more than 0 s) */
    double *per_rank;                     /* nranks seconds */
    struct lens_problem_site sites[LENS_PROBLEMS_TOP];     /* the charged member's call
                                                              sites, largest first */
    int nsites;
    struct lens_problem_site culprits[LENS_PROBLEMS_TOP];  /* the other member's: where the
                                                              calls that caused the waits
                                                              were made, largest first */
    int nculprits;
    struct lens_problem_instance top[LENS_PROBLEMS_TOP];   /* largest first */
    int ntop;
    struct lens_problem_charge *charges; /* with LENS_PROBLEMS_KEEP_CHARGES: every charged call,
                                            ordered by rank then call (owned); else NULL */
    size_t ncharges;
};

struct lens_problems {
    int nranks;
    double total_time_s;              /* sum over ranks of last event - first event */
    double *mpi_s;                    /* nranks seconds: each rank's time inside MPI calls
                                         (after the clock fix); the problems' seconds on a
                                         rank add up to at most this (charge_once) */
    struct lens_problem_result *res;  /* sorted by total_s, largest first; ties in rule order */
    int nres;
    struct lens_rules *rules;         /* owned */
    uint64_t nevents, np2p, ncoll, unmatched;
    char warning[1200];              /* a rule skipped after a runtime error, "" when none */
};

/* General composites (members of type "call", "send_msg", "recv_msg", a shared "calls" set,
 * or nested composites, problems.c) need no kind: they are matched by the keys their
 * conditions give (docs/problems.md, "General composite events"); a plan they cannot run, or
 * a 'cause' that names no call, is a LENS_EFORMAT of lens_problems_bind. The shipped
 * collective.rules and p2p.rules use them; the collective and send+recv kinds remain for
 * comparison (tests/test_rules_shapes.c). */

/* ---- the rule vocabulary ----
 * What rules may name: event types, each a table of {name, getter} fields, and composite
 * kinds, each a pair of member types with the builder that enumerates its instances from the
 * composite events (events.h). A new field is one line in its type's table in problems.c; a
 * new kind is its events (events.c) plus two types and one kind row in problems.c and a
 * pointer in lens_problems_inst below (docs/design.md). */

#define LENS_PROBLEMS_MAXTYPES 32 /* event types in a vocabulary */
#define LENS_PROBLEMS_MAXF 16     /* fields per event type */

/* One instance of a composite kind, as its builder found it; getters read it. Only the
 * pointers of the kind being evaluated are set. */
struct lens_problems_inst {
    const struct lens_trace *t;          /* call times carry the logical-clock fix */
    const struct lens_events *ev;
    const int *opnames, *opkinds;        /* interned op name / class ids by op slot */
    size_t cursor;                       /* builder state across instances (0 at the start) */
    size_t cul_coll;                     /* collectives: cursor + 1 of the instance whose
                                            culprit cul_member holds (0: none yet) */
    size_t cul_member, scan_member;      /* member indices (coll_build) */
    const struct lens_p2p *p2p;          /* send+recv */
    const struct lens_coll *coll;        /* collective+collective_instance */
    const struct lens_coll_member *member;
    const struct lens_lock_epoch *lock, *holder; /* lock_epoch+lock_holder */
    const struct lens_pscw *pscw;        /* access_epoch+exposure_epoch */
    const struct lens_trace_call *call[5]; /* calls the builder resolved (meaning per kind) */
    int blocked;                         /* pscw: the origin blocked across the post */
    int32_t rank[2];                     /* per member: the rank charged for it */
    uint32_t charged[2];                 /* per member: the call charged (index on rank[m]) */
    int32_t orank[2];                    /* per member: the call that stands for it when the
                                            other member is charged (the culprit's call site:
                                            the send of a late sender, the last rank to enter
                                            a barrier); -1 (the default) when the kind has
                                            none */
    uint32_t ocall[2];
    /* the general matcher (composites of calls, problems.c "General composites"): the call
     * a "call" member stands for, by global id (calls of rank 0, then rank 1, ...) */
    const struct lens_problems_gcall *gc; /* per global id (owned by the run) */
    uint64_t gid;
    const int *gnames;                    /* interned class names and "none" */
    const double *agg;                    /* a shared "calls" member: its aggregates */
};

/* One MPI call as the general matcher sees it (a simple event of type "call"). */
struct lens_problems_gcall {
    int32_t rank;        /* world rank */
    uint32_t idx;        /* index into that rank's calls */
    int64_t next, prev;  /* global id of the rank's next / previous call, -1 at the ends */
    int64_t match;       /* the call at the other end of its first message (the receive that
                            completed a send; the send of a receive), -1 none */
    int32_t coll;        /* collective instance (index into lens_events.coll), -1 none */
    int32_t peer;        /* first record's partner, -1 none */
    int cls;             /* 0 p2p, 1 collective, 2 rma, 3 other (its first record) */
    int fname;           /* interned MPI function name */
    double comm, tag, bytes; /* first record's (the instance's comm for collectives), -1 none */
};

typedef double (*lens_problems_get_fn)(const struct lens_problems_inst *x);

struct lens_problems_field {
    const char *name;          /* as written in rules after "member." */
    char type;                 /* 'n' number, 's' string (an id from lens_rules_intern) */
    lens_problems_get_fn get;
};

struct lens_problems_type {
    const char *name;          /* as written in rules: "send", "collective" */
    const struct lens_problems_field *fields;
    int nfields;
};

struct lens_problems_kind {
    int member[2];             /* type indices of the two members */
    /* how many candidate instances the events hold */
    size_t (*count)(const struct lens_events *ev);
    /* fills x for candidate i (i ascending); 0 when i is no instance (skipped) */
    int (*build)(struct lens_problems_inst *x, size_t i);
    /* whether a call charged for this kind may be charged twice for one problem (then the
     * charges of a call are merged to its largest, Scalasca's rule) */
    int (*may_repeat)(const struct lens_trace *t, int32_t rank, uint32_t call);
};

struct lens_problems_vocab {
    const struct lens_problems_type *types;
    int ntypes;
    const struct lens_problems_kind *kinds;
    int nkinds;
};

/* The built-in vocabulary (docs/problems.md lists its fields). */
const struct lens_problems_vocab *lens_problems_vocab_builtin(void);
/* Checks a vocabulary: names present and unique (types; fields within a type), every field
 * with a getter and a type 'n' or 's', at most LENS_PROBLEMS_MAXTYPES types and
 * LENS_PROBLEMS_MAXF fields, every kind with count/build/may_repeat and two distinct member
 * types in range, no two kinds on the same pair. LENS_EINVAL naming the entry. */
int lens_problems_vocab_check(const struct lens_problems_vocab *v, struct lens_err *e);
/* Binds rules to vocabulary v (NULL: the built-in one) after checking v: the errors of
 * lens_problems_vocab_check and lens_ruleeval_bind (file:line:col). */
int lens_problems_bind(struct lens_rules *rules, const struct lens_problems_vocab *v,
                       struct lens_err *e);

/* ---- detection ---- */

/* Loads the rules of rules_dir, reads the trace at trace_path, builds the composite events
 * and evaluates every problem. A rule that fails at run time (division by zero) is skipped
 * and named in warning. Errors: those of lens_trace_read, lens_rules_load_dir and
 * lens_ruleeval_bind (file:line:col), LENS_ENOMEM. (trace_analysis.h keeps the trace and
 * events as well.) */
int lens_problems_run(const char *trace_path, const char *rules_dir, struct lens_problems **out,
                      struct lens_err *e);
/* The same on a trace already read (t is modified by the clock fix) and rules already parsed
 * (taken over: freed with the result, also on failure); the events are built and freed. */
int lens_problems_analyze(struct lens_trace *t, struct lens_rules *rules,
                          struct lens_problems **out, struct lens_err *e);
/* Evaluates the rules on events ev already built from t (lens_events_build), with vocabulary
 * v (NULL: built-in). rules are taken over as above. Flags: LENS_PROBLEMS_KEEP_CHARGES keeps
 * every charged call in lens_problem_result.charges (24 bytes each), whose call indices
 * refer to t. */
#define LENS_PROBLEMS_KEEP_CHARGES 1u
int lens_problems_detect(const struct lens_trace *t, const struct lens_events *ev,
                         struct lens_rules *rules, const struct lens_problems_vocab *v,
                         unsigned flags, struct lens_problems **out, struct lens_err *e);
void lens_problems_free(struct lens_problems *p);

/* Report output. lang is 0 for English, 1 for Russian (falls back to English per text). */
int lens_problems_write_text(const struct lens_problems *p, int lang, FILE *fp);
int lens_problems_write_json(const struct lens_problems *p, int lang, FILE *fp);
/* The same JSON, plus "provenance": {key: value} of the MPILENS::* properties t recorded
 * (struct lens_trace.prov, keys LENS_OTF2_PROP_KEYS), only those present and only when one
 * is; t NULL writes exactly lens_problems_write_json. Returns LENS_OK or LENS_EIO. */
int lens_problems_write_json_trace(const struct lens_problems *p, const struct lens_trace *t, int lang,
                                   FILE *fp);

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
