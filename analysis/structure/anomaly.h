/* Anomalies of a latency cube, each named with its evidence in robust units (median/MAD):
 * slow or overloaded processes and nodes, single bad links, strongly asymmetric pairs, and the
 * message lengths where the links stop scaling alike (a protocol or route switch).
 * Works on one statistic (median by default); values <= 0 or not finite are ignored.
 * docs/links.md states every rule and threshold. */
#ifndef LENS_ANOMALY_H
#define LENS_ANOMALY_H

#include "analysis/cube/cube.h"

enum lens_anomaly_kind {
    LENS_ANOMALY_SLOW_NODE = 0,       /* ranks whose links are uniformly slower than their peers' */
    LENS_ANOMALY_BAD_LINK = 1,        /* one link (or one pair, both ways) slower than its class */
    LENS_ANOMALY_ASYMMETRIC_PAIR = 2, /* one direction faster, the other slower than typical */
    LENS_ANOMALY_STRUCTURE_CHANGE = 3 /* between two lengths, groups of links scale differently */
};

struct lens_anomaly_opts {
    int stat;           /* enum lens_stat, or -1: median, else average, min (first present) */
    double z_min;       /* robust z a finding needs (default 5) */
    double slow_min;    /* slowness factor a slow rank needs (default 1.15) */
    double link_min;    /* factor over its class a bad link needs (default 1.3) */
    double asym_min;    /* ratio between directions an asymmetric pair needs (default 1.3) */
    double change_min;  /* step spread (natural log) a structure change needs (default 0.1) */
    double mad_floor;   /* floor of every MAD, natural-log units (default 0.01, i.e. 1%) */
    double class_tol;   /* log tolerance for ranks to be interchangeable (default 0.1) */
};

struct lens_anomaly {
    int kind;            /* enum lens_anomaly_kind */
    char subject[96];    /* "node03 (ranks 16-23)", "link 3->17", "pair 4<->9", "3584->4096 B" */
    int *ranks;          /* owned; slow: the ranks; bad link: from, to; pair: a, b; change: none */
    int nranks;
    int *lengths;        /* owned; bytes at which the effect is at least its minimum factor;
                          * for a structure change: the two lengths it happens between */
    int nlengths;
    double value;        /* measured value at ref_length, in unit */
    double typical;      /* the typical value it is compared with, in unit */
    const char *unit;    /* "s" (seconds) or "x" (a factor) */
    int ref_length;      /* bytes, the length value and typical are taken at (-1: all) */
    double ratio;        /* robust effect size: median over lengths of value / typical */
    double score;        /* robust z: (x - median) / (1.4826 MAD), in log units */
    char evidence[512];  /* one sentence with the numbers */
};

struct lens_anomalies {
    struct lens_anomaly *items; /* owned, ranked by score, highest first */
    int n;
    int stat;                   /* statistic used */
    int nclasses;               /* classes of interchangeable ranks found */
};

/* A plain row for the report's ranked table; the strings belong to the lens_anomalies. */
struct lens_anomaly_row {
    const char *kind;    /* "slow_node", "bad_link", "asymmetric_pair", "structure_change" */
    const char *subject;
    double value, typical; /* in unit */
    const char *unit;
    double z;            /* robust z */
    const char *text;    /* the evidence sentence */
};

void lens_anomaly_opts_default(struct lens_anomaly_opts *o);
/* Finds the anomalies of cube c. *out is owned by the caller (lens_anomaly_free).
 * With fewer than 3 processes only structure changes are looked for (no peers to compare).
 * Errors: LENS_EINVAL (bad options, no usable statistic),
 * LENS_ENOMEM. */
int lens_anomaly_find(const struct lens_cube *c, const struct lens_anomaly_opts *o,
                      struct lens_anomalies **out, struct lens_err *e);
void lens_anomaly_free(struct lens_anomalies *a);
const char *lens_anomaly_kind_name(int kind);
/* What the retests (PREFIX_retest.csv, rt may be NULL) say of finding f: 1 survives alone (a
 * bad link), 0 vanished (contention), -1 not retested or not about one link. A bad link named
 * "a <-> b" counts a survival in either direction. The one rule `anomalies` and `report` use. */
int lens_anomaly_retest_verdict(const struct lens_retest *rt, const struct lens_anomaly *f);
/* Row i (0 <= i < a->n) for the report table. */
void lens_anomaly_row(const struct lens_anomalies *a, int i, struct lens_anomaly_row *row);

/* Whether the message of element (row, column) goes column -> row in this mode (one_to_one,
 * all_to_all, noise, noise_blocking: every mode but async_one_to_one, send_recv_and_recv_send,
 * bcast, put, get and p2p): then a link "s->r" is element (r, s). Otherwise row -> column. */
int lens_anomaly_row_is_receiver(int mode);

/* Median and robust sigma 1.4826 * max(MAD, floor) of v (destroyed; log units for delays):
 * the yardstick of every score here, shared with mpilens-bench's retest choice so that both
 * flag the same cells. n == 0 gives NaN for both. */
void lens_anomaly_robust(double *v, size_t n, double floor, double *med, double *sig);

#endif
