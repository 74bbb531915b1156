/* Option parsing for mpilens-bench (see opts.h). network_test2's options keep their letters
 * and long names (-t/--type, -f/--file, -n/--num_iterations, -b/--begin, -e/--end,
 * -s/--step, -l/--length_noise_message, -m/--num_noise_message, -p/--procs_noise,
 * -h/--help, -v/--version) so its scripts run unchanged; an unknown mode is an error here,
 * not a silent fallback to one_to_one as in network_test2. */
#include "opts.h"

#include "bisection.h"
#include "retest.h"
#include "analysis/cube/cube.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    /* Long-only options take values above 255, so they can never collide with a short option's
     * character in getopt_long's return value. */
    O_RAW = 256, O_FORCE, O_PROGRESS, O_TIMING, O_PAIR, O_PAIRS, O_WARMUP, O_DIE, O_SCHEDULE,
    O_SHUFFLE, O_RETEST, O_ESTIMATE, O_ESTIMATE_ONLY,
};

/* network_test2's long names come first and are spelled as it spells them (num_iterations,
 * with underscores), so its scripts run unchanged. */
static const struct option long_opts[] = {
    {"type", required_argument, NULL, 't'},
    {"file", required_argument, NULL, 'f'},
    {"num_iterations", required_argument, NULL, 'n'},
    {"begin", required_argument, NULL, 'b'},
    {"end", required_argument, NULL, 'e'},
    {"step", required_argument, NULL, 's'},
    {"length_noise_message", required_argument, NULL, 'l'},
    {"num_noise_message", required_argument, NULL, 'm'},
    {"procs_noise", required_argument, NULL, 'p'},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'v'},
    {"raw", no_argument, NULL, O_RAW},
    {"force", no_argument, NULL, O_FORCE},
    {"progress", no_argument, NULL, O_PROGRESS},
    {"timing", no_argument, NULL, O_TIMING},
    {"pair", required_argument, NULL, O_PAIR},
    {"pairs", required_argument, NULL, O_PAIRS},
    {"warmup", required_argument, NULL, O_WARMUP},
    {"schedule", required_argument, NULL, O_SCHEDULE},
    {"shuffle", required_argument, NULL, O_SHUFFLE},
    {"retest", required_argument, NULL, O_RETEST},
    {"rounds", required_argument, NULL, 'r'},
    {"estimate", no_argument, NULL, O_ESTIMATE},
    {"estimate-only", no_argument, NULL, O_ESTIMATE_ONLY},
    {"die-after-length", required_argument, NULL, O_DIE}, /* testing only, not in --help */
    {NULL, 0, NULL, 0}};

/* A whole decimal integer in [lo, hi]. */
/* strtol with the whole string consumed: atoi would read "10k" as 10 and "x" as 0, network_test2's
 * silent misreadings of a typo. */
static int parse_int(const char *s, long lo, long hi, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || *end || errno || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

/* The command line goes into every file (attribute command_line) so a result says how it was
 * made; arguments are joined with single spaces, unquoted, as a reader would retype them. */
static char *join_args(int argc, char **argv)
{
    size_t n = 1;
    for (int i = 0; i < argc; i++)
        n += strlen(argv[i]) + 1;
    char *s = lens_malloc(n), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < argc; i++) {
        size_t k = strlen(argv[i]);
        memcpy(p, argv[i], k);
        p += k;
        *p++ = i + 1 < argc ? ' ' : '\0';
    }
    if (argc == 0)
        *p = '\0';
    return s;
}

static void set_defaults(struct lens_bench_opts *o)
{
    memset(o, 0, sizeof *o);
    /* network_test2's defaults, so a script that relies on them measures the same sweep. */
    o->mode = LENS_MODE_ONE_TO_ONE;
    o->begin = 0;
    o->end = 1000000;
    o->step = 100;
    o->repeats = 100; /* network_test2's -n default */
    o->warmup = -1; /* chosen from the repeats below */
    o->noise_len = 0;
    o->noise_msgs = 1;
    o->noise_procs = 0;
    o->prefix = "network";
    o->pair_a = 0;
    o->pair_b = 1;
    o->retest = -1; /* decided by the schedule once all options are read */
    o->rounds = LENS_BENCH_BISECTION_ROUNDS;
    o->size = LENS_BENCH_BISECTION_SIZE;
}

/* A message size: decimal bytes with an optional binary suffix K/KiB or M/MiB (64KiB =
 * 65536), in [1, 1 GiB]: a window of 64 such messages must stay addressable. */
static int parse_size(const char *s, int *v)
{
    char *end;
    errno = 0;
    long x = strtol(s, &end, 10);
    if (end == s || errno || x < 1)
        return -1;
    long mult = 1;
    if (!strcmp(end, "K") || !strcmp(end, "KiB"))
        mult = 1L << 10;
    else if (!strcmp(end, "M") || !strcmp(end, "MiB"))
        mult = 1L << 20;
    else if (*end)
        return -1;
    if (x > (1L << 30) / mult)
        return -1;
    *v = (int)(x * mult);
    return 0;
}

/* The option value check for one option letter; returns 0 or -1. */
/* A bad value returns -1 and the caller names the option in the message: the checks live in
 * one place per option, the wording in one place for all. */
static int take(struct lens_bench_opts *o, int ch, const char *arg)
{
    switch (ch) {
    case 't':
        if (!strcmp(arg, "bisection")) {
            o->mode = LENS_BENCH_MODE_BISECTION;
            return 0;
        }
        o->mode = lens_cube_mode_parse(arg);
        return o->mode == LENS_MODE_UNKNOWN ? -1 : 0;
    case 'f': o->prefix = arg; return *arg ? 0 : -1; /* an empty prefix would write "_median.nc" */
    /* at least one timed repeat: a statistic of nothing is NaN */
    case 'n': o->repeats_set = 1; return parse_int(arg, 1, 100000000, &o->repeats);
    /* range checked after the loop, with -e and -s known */
    case 'b': return parse_int(arg, INT_MIN, INT_MAX, &o->begin);
    case 'e': o->end_set = 1; return parse_int(arg, INT_MIN, INT_MAX, &o->end);
    /* read once the mode is known: a length step, or bisection's message size */
    case 's': o->step_arg = arg; return 0;
    case 'r': o->rounds_set = 1; return parse_int(arg, 1, 1000000, &o->rounds);
    case O_RETEST: return parse_int(arg, 0, 1000000, &o->retest);
    case 'l': return parse_int(arg, 0, INT_MAX, &o->noise_len);
    /* bounded: 2m requests are allocated per rank */
    case 'm': return parse_int(arg, 1, 1000000, &o->noise_msgs);
    case 'p': return parse_int(arg, 0, INT_MAX, &o->noise_procs);
    case O_WARMUP: o->warmup_set = 1; return parse_int(arg, 0, 100000000, &o->warmup);
    case O_DIE: return parse_int(arg, 1, INT_MAX, &o->die_after);
    case O_SCHEDULE:
        if (!strcmp(arg, "serial"))
            o->schedule = LENS_BENCH_SCHEDULE_SERIAL;
        else if (!strcmp(arg, "parallel"))
            o->schedule = LENS_BENCH_SCHEDULE_PARALLEL;
        else
            return -1;
        return 0;
    case O_SHUFFLE: {
        /* A seed is any unsigned 64-bit decimal; strtoull would take "-1" as 2^64 - 1. */
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)arg[0]))
            return -1;
        o->seed = strtoull(arg, &end, 10);
        o->shuffle = 1;
        return *end || errno ? -1 : 0;
    }
    case O_PAIRS:
        if (strcmp(arg, "per-node"))
            return -1;
        o->pairs_per_node = 1;
        return 0;
    /* "A,B": two decimal ranks; 15 digits is more than any rank number needs, and bounds the copy. */
    case O_PAIR: {
        char *comma = strchr(arg, ',');
        if (!comma || comma - arg > 15)
            return -1;
        char a[16];
        memcpy(a, arg, (size_t)(comma - arg));
        a[comma - arg] = '\0';
        return parse_int(a, 0, INT_MAX, &o->pair_a) || parse_int(comma + 1, 0, INT_MAX, &o->pair_b) ? -1 : 0;
    }
    default: return -1;
    }
}

/* Names an option both ways (-n/--num_iterations) in messages, so a user of either spelling
 * recognises it. */
static const char *option_name(int ch, char *buf, size_t n)
{
    for (const struct option *p = long_opts; p->name; p++) {
        if (p->val != ch)
            continue;
        if (ch < 256)
            snprintf(buf, n, "-%c/--%s", ch, p->name);
        else
            snprintf(buf, n, "--%s", p->name);
        return buf;
    }
    return "option";
}

/* Why a mode cannot run under --schedule parallel, or NULL when it can. Parallel rounds keep
 * every rank in a pair, so a mode that needs ranks outside the pair, or that is one collective
 * already, has no place in them (docs/bench.md). */
static const char *parallel_refused(int mode)
{
    switch (mode) {
    case LENS_MODE_NOISE:
    case LENS_MODE_NOISE_BLOCKING:
        return "its noise comes from ranks outside the measured pair, and in a parallel round "
               "every rank is in a pair, so the noise would be the other pairs' traffic";
    case LENS_MODE_ALL_TO_ALL:
    case LENS_MODE_BCAST:
        return "it is a collective of all ranks, measured in one go: it has no pairs to schedule";
    case LENS_BENCH_MODE_BISECTION:
        return "every round already runs all its pairs at once";
    case LENS_MODE_P2P:
        return "the p2p sweep measures its few pairs one after the other on purpose, so that no "
               "other traffic shares the link";
    default:
        return NULL;
    }
}

int lens_bench_opts_parse(struct lens_bench_opts *o, int argc, char **argv, struct lens_err *e)
{
    set_defaults(o);
    int ch;
    const char *why;
    optind = 1; /* parse may run twice in one process (tests) */
    opterr = 0; /* every rank parses: the messages are printed once, by rank 0, from e */
    while ((ch = getopt_long(argc, argv, ":t:f:n:b:e:s:r:l:m:p:hv", long_opts, NULL)) != -1) {
        char name[64];
        if (ch == 'h') {
            o->help = 1;
        } else if (ch == 'v') {
            o->version = 1;
        } else if (ch == O_RAW) {
            o->raw = 1;
        } else if (ch == O_FORCE) {
            o->force = 1;
        } else if (ch == O_PROGRESS) {
            o->progress = 1;
        } else if (ch == O_TIMING) {
            o->timing = 1;
        } else if (ch == O_ESTIMATE || ch == O_ESTIMATE_ONLY) {
            /* --estimate-only wins over --estimate, whichever comes first */
            o->estimate = ch == O_ESTIMATE_ONLY || o->estimate == 2 ? 2 : 1;
        /* the leading ':' of the optstring makes getopt report a missing value apart */
        } else if (ch == ':') {
            return lens_err_set(e, LENS_EUSAGE, "option %s needs a value",
                                optopt ? option_name(optopt, name, sizeof name) : argv[optind - 1]);
        } else if (ch == '?') {
            /* a long flag given a value (--raw=1): getopt reports the flag's own code */
            if (optopt >= 256)
                return lens_err_set(e, LENS_EUSAGE, "option %s takes no value",
                                    option_name(optopt, name, sizeof name));
            if (optopt)
                return lens_err_set(e, LENS_EUSAGE, "unknown option -%c", optopt);
            return lens_err_set(e, LENS_EUSAGE, "unknown option %s", argv[optind - 1]);
        } else if (take(o, ch, optarg) != 0) {
            if (ch == 't')
                return lens_err_set(e, LENS_EUSAGE, "unknown mode '%s' (one_to_one, all_to_all, "
                                    "async_one_to_one, send_recv_and_recv_send, noise, "
                                    "noise_blocking, bcast, put, get, p2p, bisection)", optarg);
            return lens_err_set(e, LENS_EUSAGE, "bad value '%s' for %s", optarg,
                                option_name(ch, name, sizeof name));
        }
    }
    if (optind < argc) /* network_test2 takes no operands: a stray word is a typo */
        return lens_err_set(e, LENS_EUSAGE, "unexpected argument '%s'", argv[optind]);
    if (o->help || o->version) /* no range to check: nothing will be measured */
        return LENS_OK;
    int bis = o->mode == LENS_BENCH_MODE_BISECTION;
    /* -s is a step for the cube and a message size for bisection; a bad value names -s */
    if (o->step_arg && (bis ? parse_size(o->step_arg, &o->size) : parse_int(o->step_arg, INT_MIN, INT_MAX, &o->step)))
        return lens_err_set(e, LENS_EUSAGE, "bad value '%s' for -s/--step%s", o->step_arg,
                            bis ? " (bisection: a message size such as 65536, 64KiB or 16MiB)" : "");
    if (o->rounds_set && !bis)
        return lens_err_set(e, LENS_EUSAGE, "-r/--rounds: only -t bisection has rounds");
    if (bis) {
        /* no length range: -b and -e do not apply */
    } else if (o->mode != LENS_MODE_P2P) {
        /* Lengths begin, begin+step, ... below end (exclusive, as network_test2); checked here, before
         * MPI work, so every rank refuses the same range with the same message. */
        if (o->begin < 0 || o->step <= 0 || o->end <= o->begin)
            return lens_err_set(e, LENS_EUSAGE, "bad length range: begin %d, end %d (exclusive), "
                                "step %d; need 0 <= begin < end and step > 0", o->begin, o->end, o->step);
        /* ceil in long: end - begin may not fit an int */
        o->nlen = (int)(((long)o->end - o->begin + o->step - 1) / o->step);
    } else if (o->end_set && o->end < 1) { /* p2p: -e caps the sizes, which start at 1 */
        return lens_err_set(e, LENS_EUSAGE, "bad length range: end %d; p2p needs end >= 1", o->end);
    }
    if (o->shuffle && o->schedule != LENS_BENCH_SCHEDULE_PARALLEL && !bis)
        return lens_err_set(e, LENS_EUSAGE, "--shuffle %llu: only the parallel schedule is "
                            "shuffled (add --schedule parallel)", o->seed);
    if (o->schedule == LENS_BENCH_SCHEDULE_PARALLEL && (why = parallel_refused(o->mode)))
        return lens_err_set(e, LENS_EUSAGE, "--schedule parallel cannot run mode %s: %s",
                            bis ? "bisection" : lens_cube_mode_name(o->mode), why);
    /* Retests measure single cells again: a mode without pairs (collectives, the p2p sweep,
     * bisection) has no cell to measure alone. Default: on for parallel, whose delays include
     * the other pairs' traffic; off for serial, whose files stay network_test2's. */
    int no_cells = bis || o->mode == LENS_MODE_P2P || o->mode == LENS_MODE_ALL_TO_ALL ||
                   o->mode == LENS_MODE_BCAST;
    if (o->retest > 0 && no_cells)
        return lens_err_set(e, LENS_EUSAGE, "--retest %d: mode %s has no pairs to measure again",
                            o->retest, bis ? "bisection" : lens_cube_mode_name(o->mode));
    if (o->retest < 0)
        o->retest = o->schedule == LENS_BENCH_SCHEDULE_PARALLEL && !no_cells ? LENS_BENCH_RETEST_DEFAULT : 0;
    /* The model prices pairs and rounds: a collective or a sweep of a few pairs has neither,
     * and its cost is one run of the mode, as cheap to measure as to estimate. */
    if (o->estimate && no_cells)
        return lens_err_set(e, LENS_EUSAGE, "--estimate%s: mode %s has no pair schedule to "
                            "model (pair modes only: one_to_one, send_recv_and_recv_send, "
                            "async_one_to_one, noise, noise_blocking, put, get)",
                            o->estimate == 2 ? "-only" : "",
                            bis ? "bisection" : lens_cube_mode_name(o->mode));
    if (o->pair_a == o->pair_b) /* a rank cannot ping itself */
        return lens_err_set(e, LENS_EUSAGE, "--pair %d,%d: need two different ranks", o->pair_a, o->pair_b);
    /* A tenth of the repeats, at least 2 (connection set-up needs one, the second shows it done)
     * and at most 10 (enough to fill caches and queues; more only lengthens the run). */
    if (o->warmup < 0)
        o->warmup = o->repeats / 10 < 2 ? 2 : o->repeats / 10 > 10 ? 10 : o->repeats / 10;
    if (!(o->cmdline = join_args(argc, argv)))
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    return LENS_OK;
}

int lens_bench_opts_check(const struct lens_bench_opts *o, int procs, struct lens_err *e)
{
    /* Checked against the job size on every rank alike, so all ranks return the same verdict and
     * the job ends through MPI_Finalize, without MPI_Abort. */
    if (procs < 2)
        return lens_err_set(e, LENS_EUSAGE, "needs at least 2 MPI processes, got %d "
                            "(run it with mpirun -np N, N >= 2)", procs);
    if (o->mode == LENS_MODE_P2P && !o->pairs_per_node &&
        (o->pair_a >= procs || o->pair_b >= procs || o->pair_a == o->pair_b))
        return lens_err_set(e, LENS_EUSAGE, "--pair %d,%d: need two different ranks below %d",
                            o->pair_a, o->pair_b, procs);
    if ((o->mode == LENS_MODE_NOISE || o->mode == LENS_MODE_NOISE_BLOCKING) && o->noise_procs > procs - 2)
        return lens_err_set(e, LENS_EUSAGE, "-p %d noise processes, but only %d ranks are not in "
                            "the measured pair", o->noise_procs, procs - 2);
    return LENS_OK;
}

void lens_bench_opts_release(struct lens_bench_opts *o)
{
    if (!o)
        return;
    lens_free(o->cmdline);
    o->cmdline = NULL;
}
