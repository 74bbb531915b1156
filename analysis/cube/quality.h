/* The data-quality gate of a latency cube: before a report reads structure (groups, link
 * clusters, a tree) or ranks anomalies out of a cube, it asks whether the measurement can
 * carry them. Pure analysis of the cube's numbers and metadata; the thresholds and why they
 * are what they are: docs/report.md, "The data-quality gate". */
#ifndef LENS_QUALITY_H
#define LENS_QUALITY_H

#include "common/err.h"

struct lens_cube;

/* Why a cube fails the gate, one bit each (several may hold). */
enum lens_quality_reason {
    LENS_QUALITY_NOISY = 1u << 0,          /* the repeats of a pair spread too widely */
    LENS_QUALITY_FEW_REPEATS = 1u << 1,    /* too few repeats per pair to estimate a delay */
    LENS_QUALITY_OVERSUBSCRIBED = 1u << 2, /* more ranks on a host than it has cores */
    LENS_QUALITY_TIMER = 1u << 3,          /* delays near the timer's resolution */
    LENS_QUALITY_ONE_HOST = 1u << 4,       /* every rank on one host (or no hosts file) */
};

/* Where the gate's cores per host came from, for the report to say which it used. */
enum lens_quality_cores_source {
    LENS_QUALITY_CORES_UNKNOWN = 0, /* neither: oversubscription is not checked */
    LENS_QUALITY_CORES_OPTION,      /* given by the user (mpilens report --cores) */
    LENS_QUALITY_CORES_RECORDED,    /* the cube's cores_per_host attribute (mpilens-bench) */
};

/* The thresholds; lens_quality_opts_default sets the documented values. */
struct lens_quality_opts {
    double max_spread;  /* largest median relative spread (deviation / median) that passes: 0.5 */
    int min_repeats;    /* fewest repeats per pair that passes: 5 */
    int cores;          /* cores per host, 0: unknown (not checked) */
    int cores_source;   /* enum lens_quality_cores_source of cores */
    double tick;        /* timer resolution, seconds: 1e-7 */
    double min_ticks;   /* smallest-length median delay must be at least this many ticks: 3 */
};

/* The verdict and the numbers it was made from (plain values, nothing owned). */
struct lens_quality {
    int pass;           /* 1: structure and anomalies may be read from the cube */
    unsigned reasons;   /* enum lens_quality_reason bits; 0 exactly when pass */
    double spread;      /* median over pairs and lengths of deviation / median; NaN: no
                         * deviation statistic, so not checked */
    double p90_spread;  /* the 90th percentile of the same ratios (how bad the worst pairs are) */
    int repeats;        /* repeats per pair as recorded */
    int nhosts;         /* distinct hosts, 0 without a hosts file */
    int max_per_host;   /* most ranks on one host (0 without a hosts file) */
    const char *busiest_host; /* the host holding max_per_host ranks, borrowed from the cube; NULL: none */
    int cores;          /* as in the options (0: unknown, not checked) */
    int cores_source;   /* as in the options */
    double first_median; /* median delay of the statistic at the smallest length, seconds */
    struct lens_quality_opts opts; /* the thresholds the verdict used */
};

void lens_quality_opts_default(struct lens_quality_opts *o);

/* Takes the cores per host a cube recorded (its cores_per_host attribute, text, NULL when
 * absent) into o, unless o->cores was given by the user (LENS_QUALITY_CORES_OPTION wins: the
 * attribute is rank 0's node only, and the user may know the nodes differ). A text that is not
 * a positive count ("unknown") is ignored. Returns 1 when the attribute was taken, else 0. */
int lens_quality_opts_recorded(struct lens_quality_opts *o, const char *cores_per_host);

/* Checks cube c (statistic stat for the timer check; the deviation statistic for the spread)
 * against o (NULL: the defaults) into *q. Errors: LENS_EINVAL (stat absent from the cube, bad
 * thresholds), LENS_ENOMEM. */
int lens_quality_check(const struct lens_cube *c, int stat, const struct lens_quality_opts *o,
                       struct lens_quality *q, struct lens_err *e);

#endif
