/* What changed between two latency cubes of the same machine (`mpilens compare BASE NEW`):
 * per pair and length a Welch t-test on the average delay, Benjamini-Hochberg over all of
 * them, and the significant changes grouped as a link, a node, the whole machine or the
 * clustering (docs/compare.md). Both cubes are streamed one length at a time.
 * A struct lens_compare owns everything inside it (lens_compare_free). Units: seconds for
 * delays, bytes for lengths; ratios are NEW / BASE (> 1 means slower). */
#ifndef LENS_COMPARE_H
#define LENS_COMPARE_H

#include "common/err.h"

#include <stddef.h>

enum lens_compare_kind {
    LENS_COMPARE_LINK = 0,     /* one directed link: ranks = {sender, receiver} */
    LENS_COMPARE_NODE = 1,     /* the links touching one host changed together: its ranks */
    LENS_COMPARE_MACHINE = 2,  /* the typical link of the whole machine moved: every rank */
    LENS_COMPARE_STRUCTURE = 3 /* groups of the clustering merged or split: their ranks */
};

enum lens_compare_verdict {
    LENS_COMPARE_SAME = 0, LENS_COMPARE_REGRESSED = 1, LENS_COMPARE_IMPROVED = 2, LENS_COMPARE_MIXED = 3
};

/* The test behind the p-values (the JSON "test" key, docs/compare.md). */
enum lens_compare_test {
    LENS_COMPARE_WELCH_SUMMARY = 0, /* Welch from each run's average, deviation and repeats */
    LENS_COMPARE_WELCH_RAW = 1,     /* Welch on the raw repeats of _all.nc (both runs have them) */
    LENS_COMPARE_WELCH_RANGE = 2    /* sweeps: Welch with the deviation bounded by the range */
};

struct lens_compare_opts {
    double min_change; /* a finding needs |ratio - 1| >= this (default 0.10) */
    double alpha;      /* false discovery rate over all pairs and lengths (default 0.01) */
};

struct lens_compare_finding {
    int kind;          /* enum lens_compare_kind */
    int direction;     /* +1 slower (ratio > 1), -1 faster */
    int nranks;
    int *ranks;        /* NEW's rank numbers (link: sender, receiver) */
    int *base_ranks;   /* the same processes in BASE's numbering */
    int nhosts;
    char **hosts;      /* distinct host names of ranks (NEW's hosts file), none without one */
    int nlengths;
    int *lengths;      /* message lengths (bytes) at which the change is significant */
    double ratio;      /* NEW / BASE: median over the finding's links and lengths */
    double p;          /* smallest p-value of the finding (NaN for structure: no test) */
    double *len_ratio; /* nlengths: per length, the median ratio of the finding's links */
    double *len_p;     /* nlengths: per length, the smallest p-value (NaN for structure) */
    int nlinks;        /* significant pair-and-length tests behind the finding */
};

struct lens_compare {
    int verdict;             /* enum lens_compare_verdict */
    int matched_by_host;     /* 1: ranks matched by (host, local rank); 0: by rank number */
    int procs, nlen;         /* processes, lengths compared (those both cubes have) */
    int sweeps;              /* 1: two p2p sweeps were compared (procs = 2 x pairs) */
    long long tests;         /* pair-and-length tests (finite delays and deviations) */
    double threshold;        /* the BH threshold on p (0 when nothing is significant) */
    long long significant;   /* tests with p <= threshold */
    int structure_length;    /* the length (bytes) whose median clustering is compared */
    int base_groups, new_groups; /* groups of the automatic cut in each run */
    int nfind;
    struct lens_compare_finding *find; /* machine first, then structure, nodes, links */
    char **hosttab;          /* procs host names of NEW's ranks (the findings' hosts point
                              * here), NULL when NEW has no hosts file */
    char **warnings;         /* the readers' warnings, "BASE: ..." / "NEW: ..." */
    int nwarn;
    int test;                /* enum lens_compare_test: the same for every pair and length */
    /* For the PDF, filled only by lens_compare_cubes_map (NULL / 0 otherwise):
     * ratio_map[i * procs + j], receiver i and sender j in NEW's numbering, is the geometric
     * mean over the common lengths of NEW / BASE average (NaN on the diagonal and where no
     * length had both delays); hist holds per common length k the delays of both runs in
     * LENS_COMPARE_HIST_BINS bins even in log10(seconds) from hist_lo[k] to hist_hi[k]:
     * hist[(k * 2 + run) * LENS_COMPARE_HIST_BINS + b], run 0 BASE, 1 NEW. */
    double *ratio_map;
    double *hist_lo, *hist_hi; /* nlen each, log10 of seconds */
    long *hist;
    int *map_lengths;          /* nlen: the common lengths in bytes, in hist's order */
    /* Two sweeps only (lens_compare_sweeps): every tested point as 4 doubles, NEW's pair
     * number, the size in bytes, BASE's and NEW's mean latency in seconds, in pair and size
     * order (ncurve points; NULL / 0 for cubes): the two curves the PDF draws per pair. */
    double *curve;
    int ncurve;
};

/* Bins of the per-length before/after delay histograms of struct lens_compare. */
#define LENS_COMPARE_HIST_BINS 40

/* Defaults as documented in struct lens_compare_opts. */
void lens_compare_opts_default(struct lens_compare_opts *o);

/* Compares the cubes base and newer (any input lens_cube_stream_open takes). Needs the
 * average and the deviation in both, repeats >= 2, the same number of processes and at least
 * one common length. Errors: LENS_EINVAL (bad options), LENS_EDATA (the cubes do not match:
 * the message says how), those of the stream readers and of lens_structure_run, LENS_ENOMEM.
 * *out is the caller's (lens_compare_free), NULL on failure. */
int lens_compare_cubes(const char *base, const char *newer, const struct lens_compare_opts *o,
                       struct lens_compare **out, struct lens_err *e);
void lens_compare_free(struct lens_compare *c);

/* lens_compare_cubes, and also what the PDF draws: the ratio map (one more P x P matrix of
 * doubles, beside the four of the streaming) and the before/after histograms per length.
 * Errors as lens_compare_cubes. */
int lens_compare_cubes_map(const char *base, const char *newer, const struct lens_compare_opts *o,
                           struct lens_compare **out, struct lens_err *e);

/* The same for two p2p sweeps (any input lens_p2pfile_read takes; compare_sweep.c), with
 * the same number of pairs, matched by (host_a, host_b) or by position: per pair and common
 * size, Welch's test on the mean latency with the deviation bounded by (max - min) / 2 and
 * n = lat_iters, BH over all of them, and one link finding per pair and direction. procs is
 * twice the pairs (hosttab holds host_a, host_b of each), nlen the sizes of the first pair.
 * Errors: LENS_EINVAL, LENS_EDATA (other numbers of pairs), those of lens_p2pfile_read. */
int lens_compare_sweeps(const char *base, const char *newer, const struct lens_compare_opts *o,
                        struct lens_compare **out, struct lens_err *e);

/* "link", "node", "machine", "structure"; "same", "regressed", "improved", "mixed". */
const char *lens_compare_kind_name(int kind);
const char *lens_compare_verdict_name(int verdict);
/* "welch-summary", "welch-raw", "welch-range"; and one sentence saying what it is. */
const char *lens_compare_test_name(int test);
const char *lens_compare_test_describe(int test);

/* ---- the statistics (compare_stat.c), public for the tests ---- */

/* Welch's two-sample t-test from summary statistics (means, standard deviations, counts):
 * the two-sided p-value, and t (NEW minus BASE over its standard error) and the
 * Welch-Satterthwaite degrees of freedom when the pointers are not NULL. NaN for n < 2 or a
 * non-finite input; when both deviations are 0, p is 1 for equal means and 0 otherwise. */
double lens_compare_welch(double m1, double s1, double n1, double m2, double s2, double n2,
                          double *t, double *df);

/* Only t and the degrees of freedom of that test (NaN when it is not defined), for callers
 * that need the p-value only when |t| is large enough to matter. */
double lens_compare_welch_t(double m1, double s1, double n1, double m2, double s2, double n2,
                            double *df);

/* The Benjamini-Hochberg threshold of the n p-values p[] (NaN ignored) among m >= n tests
 * in all (the others count as p > alpha): the largest p[i] with #{p <= p[i]} >= m p[i] /
 * alpha, or -1 when none. Reorders p. */
double lens_compare_bh(double *p, size_t n, long long m, double alpha);

/* Mean, sample deviation (n - 1 in the denominator, as scipy's ttest_ind) and count of the
 * finite values among x[0..n) (NaN = a missing repeat); mean and deviation NaN for fewer
 * than one and two values. */
void lens_compare_sample(const double *x, int n, double *mean, double *sd, int *count);

#endif
