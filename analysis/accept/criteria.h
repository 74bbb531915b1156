/* The acceptance contract as a file (docs/accept.md): one criterion a line,
 *   METRIC OP VALUE[UNIT] [key=value ...] [label="text"]     # comment
 * parsed into limits in SI base units, so that evaluation (accept.c) never sees a unit.
 * Every error names FILE:LINE:COLUMN (columns count characters, from 1). Nothing prints. */
#ifndef LENS_CRITERIA_H
#define LENS_CRITERIA_H

#include "common/err.h"

/* What a value measures; the SI base unit of each is in lens_criteria_kind_unit. */
enum lens_criteria_kind {
    LENS_CRITERIA_NONE = 0,  /* no unit was written */
    LENS_CRITERIA_TIME,      /* seconds */
    LENS_CRITERIA_SIZE,      /* bytes (length= and size=, never a metric) */
    LENS_CRITERIA_BANDWIDTH, /* bytes per second */
    LENS_CRITERIA_RATE,      /* per second */
    LENS_CRITERIA_RATIO,     /* a plain number; written with % it is divided by 100 */
    LENS_CRITERIA_COUNT      /* a number of findings: no unit allowed */
};

enum lens_criteria_op { LENS_CRITERIA_LE, LENS_CRITERIA_LT, LENS_CRITERIA_GE, LENS_CRITERIA_GT,
                        LENS_CRITERIA_EQ };

/* Where a metric's numbers come from. */
enum lens_criteria_source { LENS_CRITERIA_CUBE, LENS_CRITERIA_ANOMALIES, LENS_CRITERIA_P2P,
                            LENS_CRITERIA_BISECTION,
                            LENS_CRITERIA_COMPARE /* a cube against its --baseline (compare.h) */ };

enum lens_criteria_metric {
    LENS_METRIC_DELAY_MEDIAN, LENS_METRIC_DELAY_MIN, LENS_METRIC_DELAY_MAX, LENS_METRIC_DELAY_P95,
    LENS_METRIC_DELAY_P99, LENS_METRIC_SPREAD, LENS_METRIC_ASYMMETRY_MAX,
    LENS_METRIC_SLOW_NODE, LENS_METRIC_BAD_LINK, LENS_METRIC_ASYMMETRIC_PAIR,
    LENS_METRIC_STRUCTURE_CHANGE, LENS_METRIC_ANOMALIES_TOTAL,
    LENS_METRIC_P2P_LATENCY, LENS_METRIC_P2P_BANDWIDTH, LENS_METRIC_P2P_MSGRATE,
    LENS_METRIC_BISECTION_MIN, LENS_METRIC_BISECTION_AVG,
    LENS_METRIC_COMPARE_REGRESSIONS,
    LENS_METRIC_COUNT
};

enum lens_criteria_scope { LENS_SCOPE_ALL = 0, LENS_SCOPE_INTRA, LENS_SCOPE_INTER };

/* One line of the file. Columns (from 1, in characters) point at the token for messages. */
struct lens_criterion {
    int line, col;        /* of the metric */
    int metric;           /* enum lens_criteria_metric */
    int op;               /* enum lens_criteria_op */
    double limit;         /* SI base unit of the metric */
    char unit[16];        /* the unit as written ("us", "GB/s"), "" when none: for display */
    int value_col;
    long long length;     /* length= in bytes, -1 when absent: then every length counts */
    long long size;       /* size= in bytes, -1 when absent */
    int length_col, size_col, scope_col;
    int scope;            /* enum lens_criteria_scope, default all */
    int stat;             /* enum lens_stat, default median */
    char *label;          /* label="..." unescaped (owned), NULL when absent */
};

/* A parsed file. Owns everything in it (lens_criteria_free). */
struct lens_criteria {
    char *path;           /* the file as named, for messages (owned) */
    int n;
    struct lens_criterion *c;
};

/* Reads and parses path. Errors: LENS_EIO (cannot open or read), LENS_EFORMAT (a bad line:
 * unknown metric, operator, unit or key, a unit of the wrong kind, a bad
 * value, a duplicate key, an unterminated label, no criterion at all), LENS_ENOMEM. */
int lens_criteria_read(const char *path, struct lens_criteria **out, struct lens_err *e);
/* The same from text in memory; name stands for the file in messages. */
int lens_criteria_parse(const char *text, const char *name, struct lens_criteria **out,
                        struct lens_err *e);
void lens_criteria_free(struct lens_criteria *cr);

/* Bit s set for each enum lens_stat the cube and anomaly criteria use (0 when none does). */
unsigned lens_criteria_stats(const struct lens_criteria *cr);

/* Names and properties, static strings. */
const char *lens_criteria_metric_name(int metric);
int lens_criteria_metric_kind(int metric);   /* enum lens_criteria_kind */
int lens_criteria_metric_source(int metric); /* enum lens_criteria_source */
const char *lens_criteria_op_name(int op);
const char *lens_criteria_scope_name(int scope);
/* SI base unit of a kind: "s", "B", "B/s", "1/s", "ratio", "count". */
const char *lens_criteria_kind_unit(int kind);

/* Looks a unit up: its kind, and the value in SI units of `x` written with it (exact for
 * decimal units: the power of ten is applied to the decimal text, not by a multiplication).
 * text is the number as written (digits, '.', exponent). LENS_EINVAL for an unknown unit;
 * LENS_EDATA when the result is not finite. Used by the parser and by the tests. */
int lens_criteria_unit_value(const char *text, const char *unit, int *kind, double *value);

/* Whether `measured op limit` holds (NaN never does). */
int lens_criteria_holds(int op, double measured, double limit);

#endif
