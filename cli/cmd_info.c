/* mpilens info: a summary of a latency cube (network_test2 or mpilens-bench result):
 * processes, hosts, mode, lengths, repeats, per-statistic min/median/max over the
 * off-diagonal elements, asymmetry, and the defects found on reading. */
#include "cli.h"

#include "analysis/cube/cube.h"
#include "common/json.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

LENS_COMMAND(info, "summarise a latency cube: processes, hosts, lengths, statistics, defects");

static void help(void)
{
    printf("usage: mpilens info [--json] INPUT\n\n"
           "Summarises a latency cube. INPUT is a network_test2 prefix (dir/network), a directory\n"
           "holding one result, one <prefix>_median.nc file, or a packed cube written by\n"
           "'mpilens compress'. Values are seconds over the off-diagonal elements of every\n"
           "length; asymmetry is |A - A^T| / (A + A^T) of the median (or the first statistic\n"
           "present).\n\n"
           "options:\n"
           "  --json      print the summary as JSON\n"
           "  -h, --help  show this help\n\n"
           "example:\n"
           "  mpilens info results/network\n"
           "  mpilens info --json results/network_median.nc\n");
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

/* The number of distinct host names, for "hosts: 2 distinct". Quadratic, but in the number
 * of processes, which is small next to the n^2 x lengths values the reader has just read. */
static int count_distinct(char **hosts, int n)
{
    int d = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(hosts[i], hosts[j]);
        d += !seen;
    }
    return d;
}

/* One "key:  value" line per fact, aligned for people; scripts have --json. */
static void print_text(const struct lens_cube *c, const struct lens_summary *sum, double am, double ax)
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
static void print_json(const struct lens_cube *c, const struct lens_summary *sum, double am, double ax)
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
    lens_json_end_object(&j);
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
    if (rc != LENS_OK) {
        lens_cube_free(c);
        return lens_cli_fail(&e);
    }
    if (json)
        print_json(c, sum, am, ax);
    else
        print_text(c, sum, am, ax);
    /* With --json the warnings are inside the object and also on stderr, where a person
     * piping the JSON into a script still sees them; the text listing already shows them. */
    for (int w = 0; w < c->nwarn && json; w++)
        lens_cli_warn("%s", c->warnings[w]);
    lens_cube_free(c);
    return LENS_EXIT_OK;
}
