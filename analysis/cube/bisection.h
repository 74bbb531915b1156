/* PREFIX_bisection.csv of mpilens-bench -t bisection (docs/bench.md "Bisection bandwidth"):
 * one row per round of random halves matched across the split. Bytes, seconds and bytes per
 * second (B/s). A struct lens_bisection owns its rounds (lens_bisection_free). */
#ifndef LENS_BISECTION_H
#define LENS_BISECTION_H

#include "common/err.h"

/* The bench's header, exactly. */
#define LENS_BISECTION_HEADER "round,pairs,bytes,seconds,bandwidth_Bps,slowest_pair_Bps,slowest_sender,slowest_receiver"

struct lens_bisection_round {
    int round, pairs;
    double bytes;              /* moved across the split in the round (an integer below 2^53) */
    double seconds;            /* the slowest flow's time, > 0 */
    double bandwidth_Bps;      /* bytes / seconds: the aggregate across the bisection */
    double slowest_pair_Bps;   /* the slowest flow's rate */
    int slowest_sender, slowest_receiver;
};

struct lens_bisection {
    char *path;                /* the file read (owned) */
    int n;
    struct lens_bisection_round *r; /* in file order */
};

/* What info and accept say about a run. */
struct lens_bisection_summary {
    int rounds;
    double median_Bps, min_Bps, avg_Bps; /* of bandwidth_Bps over the rounds (median: the mean
                                            of the two middle ones for an even count) */
    int min_round;             /* the round of min_Bps */
    double worst_pair_Bps;     /* the smallest slowest_pair_Bps ... */
    int worst_round, worst_sender, worst_receiver; /* ... and where it was */
};

/* 1 when input names a bisection CSV (a file ending in _bisection.csv) or a prefix with
 * PREFIX_bisection.csv beside it. No allocation, no message. */
int lens_bisection_probe(const char *input);
/* Reads input (the CSV or its prefix). LENS_EIO, LENS_EFORMAT (header not exact, a field that
 * is not a whole number, rounds not 0, 1, 2 ..., a non-positive time, a bandwidth that is
 * not bytes / seconds, at FILE:LINE:COLUMN), LENS_EDATA (no rows), LENS_ENOMEM. */
int lens_bisection_read(const char *input, struct lens_bisection **out, struct lens_err *e);
void lens_bisection_free(struct lens_bisection *b);
/* The summary of b (at least one round, as lens_bisection_read guarantees). LENS_ENOMEM. */
int lens_bisection_summarise(const struct lens_bisection *b, struct lens_bisection_summary *s,
                             struct lens_err *e);

#endif
