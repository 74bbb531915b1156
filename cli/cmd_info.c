/* mpilens info: a summary of a latency cube (network_test2 or mpilens-bench result):
 * processes, hosts, mode, lengths, repeats, per-statistic min/median/max over the
 * off-diagonal elements, asymmetry, and the defects found on reading; with mpilens-bench's
 * schedule attributes and retests when present. Also a bisection run (PREFIX_bisection.csv). */
#include "cli.h"

#include "analysis/cube/cube.h"
#include "common/json.h"

#include <getopt.h>
#include <math.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LENS_COMMAND(info, "summarise a latency cube: processes, hosts, lengths, statistics, defects");

static void help(void)
{
    printf("usage: mpilens info [--json] INPUT\n\n"
           "Summarises a latency cube. INPUT is a network_test2 prefix (dir/network), a directory\n"
           "holding one result, one <prefix>_median.nc file, or a packed cube written by\n"
           "'mpilens compress'. Values are seconds over the off-diagonal elements of every\n"
           "length; asymmetry is |A - A^T| / (A + A^T) of the median (or the first statistic\n"
           "present). An mpilens-bench cube also shows its schedule and, when <prefix>_retest.csv\n"
           "is beside it, the cells measured again alone: a flagged cell whose retest z is still\n"
           ">= 5 survives (a bad link), else it vanished (contention).\n"
           "INPUT may also be <prefix>_bisection.csv (or a prefix with one and no cube): the\n"
           "rounds, median, min and mean aggregate bandwidth (B/s) and the slowest pair.\n\n"
           "options:\n"
           "  --json      print the summary as JSON\n"
           "  -h, --help  show this help\n\n"
           "example:\n"
           "  mpilens info results/network\n"
           "  mpilens info --json results/network_median.nc\n"
           "  mpilens info results/bis_bisection.csv\n");
}

/* The statistic asymmetry and the headline use: median when present, as every other command
 * defaults to it; else the first one present (a cube may hold only averages); -1 for none. */
static int main_stat(const struct lens_cube *c)
{
    if (c->data[LENS_STAT_MEDIAN])
        return LENS_STAT_MEDIAN;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (c->data[s])
            return s;
    return -1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The number of distinct host names, for "hosts: 2 distinct": sorted copies of the pointers,
 * then the changes counted. The pairwise comparison this replaces made 2.9 million strcmp
 * calls at 2400 processes, 4 % of `mpilens info`; it stays as the fallback when the copy
 * cannot be allocated, so the count never depends on memory. */
static int count_distinct(char **hosts, int n)
{
    char **s = lens_malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    if (!s) {
        int d = 0;
        for (int i = 0; i < n; i++) {
            int seen = 0;
            for (int j = 0; j < i && !seen; j++)
                seen = !strcmp(hosts[i], hosts[j]);
            d += !seen;
        }
        return d;
    }
    memcpy(s, hosts, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_str);
    int d = n > 0;
    for (int i = 1; i < n; i++)
        d += strcmp(s[i], s[i - 1]) != 0;
    lens_free(s);
    return d;
}

/* What mpilens-bench adds beside a cube: its schedule attributes (NULL when the file has
 * none, e.g. network_test2's) and the retests (NULL without PREFIX_retest.csv). */
struct extras {
    char *schedule, *rounds, *seed;
    struct lens_retest *rt;
    int flagged, survived; /* flagged rows, and those with retest_z >= LENS_RETEST_Z */
};

static int extras_read(const struct lens_cube *c, struct extras *x, struct lens_err *e)
{
    memset(x, 0, sizeof *x);
    /* only the network_test2 row keeps its files under a prefix; a packed cube has no
     * schedule attributes and no retest file of its own */
    if (!c->source || !c->format || strcmp(c->format, "network_test2"))
        return LENS_OK;
    int rc = lens_cube_attr_text(c->source, "schedule", &x->schedule, e);
    if (rc == LENS_OK)
        rc = lens_cube_attr_text(c->source, "rounds", &x->rounds, e);
    if (rc == LENS_OK)
        rc = lens_cube_attr_text(c->source, "shuffle_seed", &x->seed, e);
    if (rc == LENS_OK)
        rc = lens_retest_beside(c->source, &x->rt, e);
    for (int t = 0; rc == LENS_OK && x->rt && t < x->rt->n; t++)
        if (x->rt->rows[t].role == LENS_RETEST_FLAGGED) {
            x->flagged++;
            x->survived += lens_retest_survived(&x->rt->rows[t]);
        }
    return rc;
}

static void extras_free(struct extras *x)
{
    lens_free(x->schedule);
    lens_free(x->rounds);
    lens_free(x->seed);
    lens_retest_free(x->rt);
}

static const char *verdict_text(const struct lens_retest_row *w)
{
    return lens_retest_survived(w) ? "survives retest (bad link)" : "vanished on retest (contention)";
}

/* The retests in words: the count, then each flagged cell with its verdict. worst and control
 * rows are context (docs/bench.md), counted but not listed one by one. */
static void print_retests(const struct extras *x)
{
    const struct lens_retest *rt = x->rt;
    printf("retests:    %d cells measured again alone (%s), %d flagged: %d survive%s retest, %d vanished\n",
           rt->n, rt->path, x->flagged, x->survived, x->survived == 1 ? "s" : "", x->flagged - x->survived);
    for (int t = 0; t < rt->n; t++) {
        const struct lens_retest_row *w = &rt->rows[t];
        if (w->role == LENS_RETEST_FLAGGED)
            printf("            %d -> %d at %d B: z %.1f, retest z %.1f: %s\n", w->sender, w->receiver,
                   w->length, w->z, w->retest_z, verdict_text(w));
    }
}

/* One "key:  value" line per fact, aligned for people; scripts have --json. */
/* The asymmetry per length (lens_cube_asymmetry_length), nlen each, and the first length from
 * which every longer one has a median below 5 %, the paper's reading (-1: none). */
struct asym_len {
    double *median, *max;
    int below;
};

static void print_text(const struct lens_cube *c, const struct lens_summary *sum, double am, double ax,
                       const struct asym_len *al,
                       const struct extras *x)
{
    printf("source:     %s\n", c->source ? c->source : "-");
    printf("processes:  %d\n", c->procs);
    if (c->hosts)
        printf("hosts:      %d distinct\n", count_distinct(c->hosts, c->procs));
    printf("mode:       %s (%s)\n", lens_cube_mode_name(c->mode), lens_cube_mode_semantics(c->mode));
    /* a cube has at least one length, the reader refuses an empty one, so [0] and [nlen-1] exist */
    printf("lengths:    %d, from %d to %d bytes step %d\n", c->nlen, c->lengths[0],
           c->lengths[c->nlen - 1], c->step);
    printf("repeats:    %d%s\n", c->repeats, c->nraw ? " (raw repeats present)" : "");
    /* a packed cube keeps the network_test2 metadata but not its layout */
    /* the layout says which writer made the file, which tells where a defect came from */
    int packed = c->format && !strcmp(c->format, "packed");
    printf("layout:     %s\n", packed ? "packed cube (mpilens compress; values within its bound)"
                               : c->new_layout ? "plugins branch (test_type string)" : "network_test2 classic");
    /* mpilens-bench's schedule: a parallel cube is latency under load (docs/bench.md) */
    /* one line: "parallel, 7 rounds, shuffle seed 42"; "none" (not shuffled) is left out */
    int seeded = x->seed && strcmp(x->seed, "none");
    if (x->schedule)
        printf("schedule:   %s%s%s%s%s%s\n", x->schedule, x->rounds ? ", " : "", x->rounds ? x->rounds : "",
               x->rounds ? " rounds" : "", seeded ? ", shuffle seed " : "", seeded ? x->seed : "");
    if (x->rt)
        print_retests(x);
    /* only the statistics the file holds: a missing one is not a zero */
    printf("\n%-10s %14s %14s %14s\n", "statistic", "min (s)", "median (s)", "max (s)");
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (!c->data[s])
            continue;
        printf("%-10s %14.6g %14.6g %14.6g\n", lens_cube_stat_name(s), sum[s].min, sum[s].median,
               sum[s].max);
    }
    /* of one statistic only (main_stat, the median when present), as the help says */
    printf("\nasymmetry |A-A^T|/(A+A^T): median %.4g, max %.4g\n", am, ax);
    /* per length on one line (median/max), then where it stays small: the whole-cube number
     * mixes short messages, where the direction matters, with long ones, where it does not */
    printf("asymmetry per length (median/max):");
    for (int k = 0; k < c->nlen; k++)
        printf("%s %d B %.3g/%.3g", k ? "," : "", c->lengths[k], al->median[k], al->max[k]);
    printf("\n");
    if (al->below >= 0)
        printf("asymmetry median below 5%% for lengths >= %d B\n", c->lengths[al->below]);
    else
        printf("asymmetry median not below 5%% at the longest length\n");
    /* the rank-to-host table only when the result names its hosts (hosts.txt may be missing) */
    if (c->hosts) {
        printf("\nrank  host\n");
        for (int i = 0; i < c->procs; i++)
            printf("%4d  %s\n", i, c->hosts[i]);
    }
    /* The repairs made while reading close the listing, in it rather than on stderr: they are
     * part of what info is asked to describe. */
    for (int w = 0; w < c->nwarn; w++)
        printf("%swarning: %s\n", w == 0 ? "\n" : "", c->warnings[w]);
}

/* The documented keys (procs ... warnings) first, in a fixed order, so the output of two
 * cubes can be compared with diff; stats holds only the statistics present. */
static void print_json(const struct lens_cube *c, const struct lens_summary *sum, double am, double ax,
                       const struct asym_len *al,
                       const struct extras *x)
{
    struct lens_json j;
    lens_json_init(&j, stdout);
    lens_json_begin_object(&j);
    lens_json_key(&j, "procs");
    lens_json_int(&j, c->procs);
    lens_json_key(&j, "mode");
    lens_json_string(&j, lens_cube_mode_name(c->mode));
    lens_json_key(&j, "lengths");
    lens_json_begin_array(&j);
    for (int k = 0; k < c->nlen; k++)
        lens_json_int(&j, c->lengths[k]);
    lens_json_end_array(&j);
    lens_json_key(&j, "repeats");
    lens_json_int(&j, c->repeats);
    lens_json_key(&j, "hosts");
    lens_json_begin_array(&j);
    for (int i = 0; c->hosts && i < c->procs; i++)
        lens_json_string(&j, c->hosts[i]);
    lens_json_end_array(&j);
    lens_json_key(&j, "stats");
    lens_json_begin_object(&j);
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (!c->data[s])
            continue;
        lens_json_key(&j, lens_cube_stat_name(s));
        lens_json_begin_object(&j);
        lens_json_key(&j, "min");
        lens_json_number(&j, sum[s].min);
        lens_json_key(&j, "median");
        lens_json_number(&j, sum[s].median);
        lens_json_key(&j, "max");
        lens_json_number(&j, sum[s].max);
        lens_json_end_object(&j);
    }
    lens_json_end_object(&j);
    lens_json_key(&j, "asymmetry");
    lens_json_begin_object(&j);
    lens_json_key(&j, "median");
    lens_json_number(&j, am);
    lens_json_key(&j, "max");
    lens_json_number(&j, ax);
    lens_json_end_object(&j);
    lens_json_key(&j, "asymmetry_per_length");
    lens_json_begin_array(&j);
    for (int k = 0; k < c->nlen; k++) {
        lens_json_begin_object(&j);
        lens_json_key(&j, "length");
        lens_json_int(&j, c->lengths[k]);
        lens_json_key(&j, "median");
        lens_json_number(&j, al->median[k]);
        lens_json_key(&j, "max");
        lens_json_number(&j, al->max[k]);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    /* the repairs as sentences: the same text as the listing, so people and scripts agree */
    lens_json_key(&j, "warnings");
    lens_json_begin_array(&j);
    for (int w = 0; w < c->nwarn; w++)
        lens_json_string(&j, c->warnings[w]);
    lens_json_end_array(&j);
    /* Extensions beyond the documented keys: added, never renamed. */
    lens_json_key(&j, "semantics");
    lens_json_string(&j, lens_cube_mode_semantics(c->mode));
    lens_json_key(&j, "raw_repeats");
    lens_json_int(&j, c->nraw);
    lens_json_key(&j, "source");
    lens_json_string(&j, c->source);
    /* mpilens-bench's additions, only when present, so that other cubes' JSON is unchanged */
    const char *attr[3][2] = {{"schedule", x->schedule}, {"rounds", x->rounds}, {"shuffle_seed", x->seed}};
    for (int a = 0; a < 3; a++)
        if (attr[a][1]) {
            lens_json_key(&j, attr[a][0]);
            /* rounds is an integer written as text by the bench; a number for scripts */
            if (a == 1 && atoi(attr[a][1]) > 0)
                lens_json_int(&j, atoi(attr[a][1]));
            else
                lens_json_string(&j, attr[a][1]);
        }
    /* the counts first (what a dashboard shows), then every row as the CSV has it plus its
     * verdict, so a script need not re-derive the threshold of docs/bench.md */
    if (x->rt) {
        lens_json_key(&j, "retest");
        lens_json_begin_object(&j);
        lens_json_key(&j, "file");
        lens_json_string(&j, x->rt->path);
        lens_json_key(&j, "cells");
        lens_json_int(&j, x->rt->n);
        lens_json_key(&j, "flagged");
        lens_json_int(&j, x->flagged);
        lens_json_key(&j, "survived");
        lens_json_int(&j, x->survived);
        lens_json_key(&j, "vanished");
        lens_json_int(&j, x->flagged - x->survived);
        lens_json_key(&j, "rows");
        lens_json_begin_array(&j);
        for (int t = 0; t < x->rt->n; t++) {
            const struct lens_retest_row *w = &x->rt->rows[t];
            lens_json_begin_object(&j);
            lens_json_key(&j, "length");
            lens_json_int(&j, w->length);
            lens_json_key(&j, "sender");
            lens_json_int(&j, w->sender);
            lens_json_key(&j, "receiver");
            lens_json_int(&j, w->receiver);
            lens_json_key(&j, "first");
            lens_json_number(&j, w->first);
            lens_json_key(&j, "retest");
            lens_json_number(&j, w->retest);
            lens_json_key(&j, "z");
            lens_json_number(&j, w->z);
            lens_json_key(&j, "retest_z");
            lens_json_number(&j, w->retest_z);
            lens_json_key(&j, "role");
            lens_json_string(&j, lens_retest_role_name(w->role));
            /* the verdict of every measured cell, also worst ones (scripts filter on role);
             * the control is the yardstick (its retest_z is 0 by definition): null */
            lens_json_key(&j, "verdict");
            if (w->role == LENS_RETEST_CONTROL)
                lens_json_null(&j);
            else
                lens_json_string(&j, lens_retest_survived(w) ? "survived" : "vanished");
            lens_json_end_object(&j);
        }
        lens_json_end_array(&j);
        lens_json_end_object(&j);
    }
    lens_json_end_object(&j);
}

/* info on a bisection run: the rounds' aggregate bandwidth (median, min, mean) and the
 * slowest pair of all rounds, B/s. Status 1 on a bad file, naming file:line:column. */
static int info_bisection(const char *input, int json)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_bisection *b;
    struct lens_bisection_summary s;
    if (lens_bisection_read(input, &b, &e) != LENS_OK)
        return lens_cli_fail(&e);
    if (lens_bisection_summarise(b, &s, &e) != LENS_OK) {
        lens_bisection_free(b);
        return lens_cli_fail(&e);
    }
    /* rounds are numbered from 0 in file order (the reader checks it), so a round number is
     * its index */
    const struct lens_bisection_round *w = &b->r[s.worst_round];
    static const char *const keys[] = LENS_BISECTION_PROV_KEYS;
    const char *pv[LENS_BISECTION_NPROV] = {b->prov.measured_at, b->prov.mpi, b->prov.launcher, b->prov.binding,
                                            b->prov.cores_per_host};
    if (json) {
        struct lens_json j;
        lens_json_init(&j, stdout);
        lens_json_begin_object(&j);
        lens_json_key(&j, "kind");
        lens_json_string(&j, "bisection");
        lens_json_key(&j, "source");
        lens_json_string(&j, b->path);
        lens_json_key(&j, "rounds");
        lens_json_int(&j, s.rounds);
        /* every round pairs the same ranks' halves: the first round's count is the run's */
        lens_json_key(&j, "pairs");
        lens_json_int(&j, b->r[0].pairs);
        lens_json_key(&j, "bandwidth_Bps");
        lens_json_begin_object(&j);
        lens_json_key(&j, "median");
        lens_json_number(&j, s.median_Bps);
        lens_json_key(&j, "min");
        lens_json_number(&j, s.min_Bps);
        lens_json_key(&j, "avg");
        lens_json_number(&j, s.avg_Bps);
        lens_json_key(&j, "min_round");
        lens_json_int(&j, s.min_round);
        lens_json_end_object(&j);
        /* the slowest single flow of the whole run: the link a bisection test points at */
        lens_json_key(&j, "slowest_pair");
        lens_json_begin_object(&j);
        lens_json_key(&j, "Bps");
        lens_json_number(&j, s.worst_pair_Bps);
        lens_json_key(&j, "round");
        lens_json_int(&j, s.worst_round);
        lens_json_key(&j, "sender");
        lens_json_int(&j, s.worst_sender);
        lens_json_key(&j, "receiver");
        lens_json_int(&j, s.worst_receiver);
        lens_json_end_object(&j);
        /* how the run was made, the keys as the CSV's comments name them; an older run
         * without them has no "provenance" key */
        int any = 0;
        for (int k = 0; k < LENS_BISECTION_NPROV; k++) {
            if (!pv[k])
                continue;
            if (!any++) {
                lens_json_key(&j, "provenance");
                lens_json_begin_object(&j);
            }
            lens_json_key(&j, keys[k]);
            lens_json_string(&j, pv[k]);
        }
        if (any)
            lens_json_end_object(&j);
        lens_json_end_object(&j);
    } else {
        printf("source:     %s\n", b->path);
        printf("test:       bisection bandwidth, %d pairs per round\n", b->r[0].pairs);
        printf("rounds:     %d\n", s.rounds);
        /* B/s exactly for scripts that scrape, MB/s for people */
        printf("aggregate:  median %.9g B/s (%.4g MB/s), min %.9g B/s (%.4g MB/s, round %d), mean %.9g B/s\n",
               s.median_Bps, s.median_Bps / 1e6, s.min_Bps, s.min_Bps / 1e6, s.min_round, s.avg_Bps);
        printf("slowest:    pair %d -> %d at %.9g B/s (%.4g MB/s), round %d (%.6g s)\n", s.worst_sender,
               s.worst_receiver, s.worst_pair_Bps, s.worst_pair_Bps / 1e6, s.worst_round, w->seconds);
        /* the provenance lines the run recorded, short labels padded like the lines above */
        static const char *const labels[LENS_BISECTION_NPROV] = {"measured:", "mpi:", "launcher:", "binding:",
                                                                 "cores:"};
        for (int k = 0; k < LENS_BISECTION_NPROV; k++)
            if (pv[k])
                printf("%-12s%s%s\n", labels[k], pv[k], k == LENS_BISECTION_NPROV - 1 && isdigit((unsigned char)pv[k][0]) ? " per host" : "");
    }
    lens_bisection_free(b);
    return LENS_EXIT_OK;
}

int cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {
        {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    /* text by default: info is the first thing people run on a new result */
    int json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
        switch (ch) {
        case 'j': json = 1; break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("info", "unknown option");
        }
    }
    /* one INPUT: a summary of several cubes side by side is the report's job */
    if (optind != argc - 1)
        return lens_cli_usage("info", "expected one INPUT, got %d", argc - optind);
    /* a bisection CSV by name, or a prefix that has one and no cube (a cube wins a shared
     * prefix: that is what info always read) */
    const char *in = argv[optind];
    size_t il = strlen(in);
    if ((il >= 14 && !strcmp(in + il - 14, "_bisection.csv")) ||
        (!lens_cube_probe(in) && lens_bisection_probe(in)))
        return info_bisection(in, json);
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_cube *c;
    /* every statistic, but not the raw repeats: only how many there are is shown */
    if (lens_cube_read_stats(argv[optind], LENS_CUBE_ALL & ~LENS_CUBE_EXTRAS, &c, &e) != LENS_OK)
        return lens_cli_fail(&e);
    struct lens_summary sum[LENS_STAT_COUNT];
    /* Every statistic's summary and the asymmetry are computed before anything is printed, so
     * a failure (status 1) leaves no half listing on stdout. */
    double am = NAN, ax = NAN;
    int rc = LENS_OK;
    /* -1: over every length at once, the range a person wants first */
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++)
        if (c->data[s])
            rc = lens_cube_summary(c, s, -1, &sum[s], &e);
    if (rc == LENS_OK)
        rc = lens_cube_asymmetry(c, main_stat(c), &am, &ax, &e);
    /* + 1: a request of 0 bytes may return NULL, which would read as out of memory */
    struct asym_len al = {lens_malloc((c->nlen + 1) * sizeof(double)), lens_malloc((c->nlen + 1) * sizeof(double)), -1};
    if (rc == LENS_OK && (!al.median || !al.max))
        rc = lens_err_set(&e, LENS_ENOMEM, "info: out of memory");
    if (rc == LENS_OK)
        rc = lens_cube_asymmetry_length(c, main_stat(c), al.median, al.max, &e);
    /* the shortest suffix of lengths all below 5 %: walk back from the longest (NaN stops it) */
    for (int k = c->nlen - 1; rc == LENS_OK && k >= 0 && al.median[k] < 0.05; k--)
        al.below = k;
    /* the side files too, before printing: a damaged retest file fails the command whole */
    struct extras x;
    if (rc == LENS_OK)
        rc = extras_read(c, &x, &e);
    else
        memset(&x, 0, sizeof x);
    if (rc != LENS_OK) {
        extras_free(&x);
        lens_free(al.median);
        lens_free(al.max);
        lens_cube_free(c);
        return lens_cli_fail(&e);
    }
    if (json)
        print_json(c, sum, am, ax, &al, &x);
    else
        print_text(c, sum, am, ax, &al, &x);
    extras_free(&x);
    lens_free(al.median);
    lens_free(al.max);
    /* With --json the warnings are inside the object and also on stderr, where a person
     * piping the JSON into a script still sees them; the text listing already shows them. */
    for (int w = 0; w < c->nwarn && json; w++)
        lens_cli_warn("%s", c->warnings[w]);
    lens_cube_free(c);
    return LENS_EXIT_OK;
}
