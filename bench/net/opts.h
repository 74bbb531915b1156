/* Options of mpilens-bench: network_test2's short and long options plus ours. Every rank
 * parses its own argv identically, so a bad option is detected on every rank at once and the
 * run ends collectively without MPI_Abort. Serial code: no MPI here. */
#ifndef LENS_BENCH_OPTS_H
#define LENS_BENCH_OPTS_H

#include "common/err.h"

/* p2p sweep defaults: sizes 0, 1, 2, 4, ... up to 4 MiB. */
#define LENS_BENCH_P2P_MAX (4 << 20)

/* --schedule: serial measures one pair at a time (network_test2's order); parallel measures
 * the disjoint pairs of a round-robin round at once (schedule.h). */
enum { LENS_BENCH_SCHEDULE_SERIAL = 0, LENS_BENCH_SCHEDULE_PARALLEL = 1 };

/* -t bisection: not a cube mode (no P x P matrix), so a value outside enum lens_mode. */
#define LENS_BENCH_MODE_BISECTION 100

struct lens_bench_opts {
    int mode;             /* enum lens_mode (analysis/cube/cube.h), LENS_MODE_P2P for -t p2p */
    int begin, end, step; /* message lengths in bytes: begin, begin+step, ... < end */
    int nlen;             /* number of lengths: ceil((end - begin) / step) */
    int repeats;          /* -n: timed repeats per pair and length (p2p: iterations, small sizes) */
    int repeats_set;      /* 1 if -n was given */
    int end_set;          /* 1 if -e was given (p2p: caps the sizes) */
    int warmup;           /* untimed repeats before the timed ones, per pair and length */
    int warmup_set;       /* 1 if --warmup was given (p2p scales its own otherwise) */
    int noise_len;        /* -l: noise message length in bytes */
    int noise_msgs;       /* -m: noise messages per repeat and noise process */
    int noise_procs;      /* -p: noise processes (rounded down to an even count) */
    const char *prefix;   /* -f: output prefix (points into argv) */
    int raw;              /* --raw: also write every repeat to <prefix>_all.nc */
    int force;            /* --force: overwrite an existing result */
    int progress;         /* --progress: progress line drawn in place even without a terminal */
    int timing;           /* --timing: per length, seconds measuring / gathering / writing */
    int pair_a, pair_b;   /* --pair A,B for p2p (default 0,1) */
    int pairs_per_node;   /* --pairs per-node: one intra-node pair and one per pair of nodes */
    int schedule;         /* LENS_BENCH_SCHEDULE_SERIAL (default) or _PARALLEL */
    int shuffle;          /* --shuffle given: seed permutes the parallel schedule */
    unsigned long long seed; /* --shuffle SEED */
    int retest;           /* --retest K: cells retested alone per length (K worst + flagged);
                             default LENS_BENCH_RETEST_DEFAULT under parallel, 0 under serial */
    int rounds;           /* -r: bisection rounds (default LENS_BENCH_BISECTION_ROUNDS) */
    int rounds_set;       /* 1 if -r was given */
    int size;             /* bisection: -s as a message size in bytes (16 MiB default) */
    const char *step_arg; /* -s as given: a step for the cube, a size (64KiB) for bisection */
    int estimate;         /* --estimate: calibrate and print the expected time and memory first;
                             2 for --estimate-only (print, measure nothing, write nothing) */
    int die_after;        /* testing (--die-after-length K): rank 0 is killed after K lengths */
    int help, version;    /* -h / -v */
    char *cmdline;        /* owned: the command line, arguments joined by spaces */
};

/* Parses argv into o (defaults first). Returns LENS_OK, LENS_EUSAGE with a message naming
 * the option (also for --schedule parallel with a mode it cannot run, --shuffle without
 * it, and --estimate with a mode that has no pairs), or LENS_ENOMEM. On failure o holds nothing to release. */
int lens_bench_opts_parse(struct lens_bench_opts *o, int argc, char **argv, struct lens_err *e);

/* Checks o against the job size: at least two processes, --pair ranks inside the job,
 * noise processes available. Returns LENS_OK or LENS_EUSAGE. */
int lens_bench_opts_check(const struct lens_bench_opts *o, int procs, struct lens_err *e);

/* Frees what parse allocated; safe on a zeroed struct. */
void lens_bench_opts_release(struct lens_bench_opts *o);

#endif
