/* PREFIX_retest.csv of mpilens-bench --retest (docs/bench.md "Retests"): cells of a cube
 * measured again alone, to tell a bad link (still slow alone) from contention (fast alone).
 * Delays in seconds, z in robust units of the length (log delays, 1.4826 MAD). A struct
 * lens_retest owns its rows (lens_retest_free). */
#ifndef LENS_RETEST_H
#define LENS_RETEST_H

#include "common/err.h"

/* The bench's header, exactly. */
#define LENS_RETEST_HEADER "length,sender,receiver,first,retest,z,retest_z,role"
/* A flagged cell survives its retest when retest_z is at least this (the anomalies' default
 * threshold, which also flagged it). */
#define LENS_RETEST_Z 5.0

enum lens_retest_role { LENS_RETEST_WORST = 0, LENS_RETEST_FLAGGED = 1, LENS_RETEST_CONTROL = 2 };

struct lens_retest_row {
    int length;          /* bytes */
    int sender, receiver; /* ranks (not row/column: the file reads the same in every mode) */
    double first;        /* the cell of PREFIX_median.nc, seconds */
    double retest;       /* median of the repeats measured alone, seconds (NaN: none) */
    double z, retest_z;  /* robust z of first and of retest (against the control alone) */
    int role;            /* enum lens_retest_role */
};

struct lens_retest {
    char *path;          /* the file read (owned) */
    int n;
    struct lens_retest_row *rows; /* in file order (per length, worst first) */
};

/* Reads a retest CSV. LENS_EIO, LENS_EFORMAT (header not exact, a field that is not a whole
 * number or a role, at FILE:LINE:COLUMN), LENS_EDATA (no rows), LENS_ENOMEM. */
int lens_retest_read(const char *path, struct lens_retest **out, struct lens_err *e);
/* PREFIX_retest.csv beside a cube read from prefix (the cube's source): *out = NULL and
 * LENS_OK when there is none; else as lens_retest_read. */
int lens_retest_beside(const char *prefix, struct lens_retest **out, struct lens_err *e);
void lens_retest_free(struct lens_retest *r);
const char *lens_retest_role_name(int role);
/* 1 when row survived its retest (retest_z >= LENS_RETEST_Z), else 0 (NaN: vanished). */
int lens_retest_survived(const struct lens_retest_row *row);
/* The verdict on the link sender -> receiver at any of lengths[0..n) (bytes): 1 when one of
 * its non-control retests there survived, 0 when it was retested and none survived, -1 when
 * it was not retested at those lengths. */
int lens_retest_verdict(const struct lens_retest *r, int sender, int receiver, const int *lengths,
                        int nlengths);
/* The verdict on a finding about the link from -> to, as lens_retest_verdict; with both, a
 * finding about either direction ("a <-> b"): 1 when either survived, else 0 when either was
 * retested, else -1. */
int lens_retest_link_verdict(const struct lens_retest *r, int from, int to, int both, const int *lengths,
                             int nlengths);

/* What the report says about a retest file: counts and each row's verdict. */
struct lens_retest_summary {
    int cells;            /* rows, controls included */
    int retested;         /* rows that are not a control */
    int persisted;        /* of them, retest_z >= LENS_RETEST_Z: a bad link */
    int vanished;         /* the others: contention of the parallel sweep */
    int flagged, flagged_survived; /* rows of role flagged, and those that survived */
    signed char *verdict; /* per row: 1 persisted, 0 vanished, -1 control (owned) */
};
/* Fills s from r. LENS_ENOMEM. lens_retest_summary_release frees it (also after a failure). */
int lens_retest_summarise(const struct lens_retest *r, struct lens_retest_summary *s, struct lens_err *e);
void lens_retest_summary_release(struct lens_retest_summary *s);

#endif
