/* mpilens accept: judges latency cubes, p2p sweeps and bisection runs against an acceptance
 * contract (--criteria FILE, docs/accept.md) and prints the verdict, one line per criterion, or JSON.
 * Exit status 0 when every criterion holds, 3 when one does not, 1 on error, 2 on bad usage. */
#include "cli.h"

#include "analysis/accept/accept.h"
#include "analysis/cube/cube.h"
#include "common/json.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LENS_COMMAND(accept, "judge cubes, p2p sweeps and bisection runs against acceptance criteria: pass or fail");

/* Not in cli.h's enum: only this command has a verdict to give besides success. */
/* 3 and not 1: a script must tell "the network fails the contract" from "the check could
 * not be made" (a missing file, a bad line, missing data), which is 1; 2 stays bad usage. */
enum { EXIT_REJECTED = 3 };

/* The text mirrors docs/accept.md. The tables in criteria.c are the authority on metrics and
 * units: a name added there must be added here and in the docs too. */
static void help(void)
{
    printf("usage: mpilens accept INPUT... --criteria FILE [--json]\n\n"
           "Measures every criterion of FILE on the inputs (latency cubes: a network_test2 prefix,\n"
           "a directory or a packed cube; p2p sweeps of mpilens-bench -t p2p; bisection runs of\n"
           "-t bisection, PREFIX_bisection.csv or its prefix) and prints, per\n"
           "criterion, the limit, the measured value, the margin, PASS or FAIL and where the worst\n"
           "value is. A criterion must hold at every length (unless length= picks one), for every\n"
           "pair in its scope and on every input of its kind.\n\n"
           "FILE holds one criterion a line, '#' starts a comment (docs/accept.md):\n"
           "  METRIC OP VALUE[UNIT] [length=|size=BYTES] [scope=intra|inter|all]\n"
           "                        [stat=median|average|min] [label=\"text\"]\n"
           "  metrics: cube.delay.{median,min,max,p95,p99} cube.spread cube.asymmetry.max\n"
           "           anomalies.{slow_node,bad_link,asymmetric_pair,structure_change,total}\n"
           "           p2p.latency p2p.bandwidth p2p.msgrate (these need size=)\n"
           "           bisection.bandwidth.{min,avg} (over the rounds of PREFIX_bisection.csv)\n"
           "  OP: <= < >= > ==    units: s ms us \xc2\xb5s ns, B KiB MiB GiB, B/s KB/s MB/s GB/s\n"
           "  KiB/s MiB/s GiB/s, /s, %%; a value without a unit is in seconds, bytes/s, 1/s, ...\n\n"
           "options:\n"
           "  --criteria FILE   the contract (required)\n"
           "  --json            print {\"verdict\", \"criteria\":[{line, metric, op, limit, measured,\n"
           "                    unit, pass, where, label, ...}]}, limit and measured in SI units\n"
           "  -h, --help        show this help\n\n"
           "exit status: 0 every criterion holds, 3 some criterion fails, 1 error, 2 bad usage\n\n"
           "example:\n"
           "  mpilens accept samples/cubes/synth32/network --criteria samples/criteria/demo.criteria\n"
           "  mpilens accept results/network results/pair --criteria samples/criteria/acceptance.criteria --json\n\n"
           "a line of FILE:\n"
           "  cube.delay.max <= 3us length=4096 scope=inter label=\"no link slower than 3 us\"\n");
}

/* A value in the unit the criterion was written with, else in the SI base unit. */
/* sign: margins print with an explicit + or -, so a FAIL's negative margin stands out. */
static void show(char *buf, size_t cap, const struct lens_criterion *c, double v, int sign)
{
    int kind = lens_criteria_metric_kind(c->metric);
    /* one unit in SI, from the parser's own table, so display and parsing cannot disagree */
    double one = 1;
    /* cannot fail: the parser accepted this unit from the same table */
    if (c->unit[0])
        lens_criteria_unit_value("1", c->unit, &(int){0}, &one);
    /* a ratio or a count has no unit to print; other kinds fall back to s, B/s, 1/s */
    const char *u = c->unit[0] ? c->unit : kind == LENS_CRITERIA_RATIO || kind == LENS_CRITERIA_COUNT
                                           ? "" : lens_criteria_kind_unit(kind);
    /* four digits for people; the exact doubles are in --json. "%" sticks to its number */
    snprintf(buf, cap, sign ? "%+.4g%s%s" : "%.4g%s%s", v / one, *u && strcmp(u, "%") ? " " : "", u);
}

/* "cube.delay.max <= 3 us length=4096 scope=inter stat=min": the criterion without its label. */
/* Rebuilt from the parsed fields, not copied from the file: it shows what was understood,
 * with defaults (all pairs, the median) left out. */
static void describe(char *buf, size_t cap, const struct lens_criterion *c)
{
    char lim[64];
    show(lim, sizeof lim, c, c->limit, 0);
    size_t n = (size_t)snprintf(buf, cap, "%s %s %s", lens_criteria_metric_name(c->metric),
                                lens_criteria_op_name(c->op), lim);
    /* snprintf returns what it would have written: n < cap stops the appends once buf is full,
     * so the arithmetic on buf + n never leaves it (a long criterion is cut, not overflowed) */
    if (c->length >= 0 && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, " length=%lld", c->length);
    if (c->size >= 0 && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, " size=%lld", c->size);
    if (c->scope != LENS_SCOPE_ALL && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, " scope=%s", lens_criteria_scope_name(c->scope));
    if (c->stat != LENS_STAT_MEDIAN && n < cap)
        snprintf(buf + n, cap - n, " stat=%s", lens_cube_stat_name(c->stat));
}

/* Columns: verdict, line in FILE, criterion, measured, margin, where; the label goes last,
 * quoted, since it may hold blanks. Measured and margin are in the unit the line was written with. */
static void print_text(const struct lens_criteria *cr, const struct lens_accept *a)
{
    char d[512], m[64], g[64];
    /* the criterion column is as wide as its longest entry, so the columns after it align */
    /* 9 = strlen("criterion"), the heading's own width */
    int width = 9;
    for (int i = 0; i < cr->n; i++) {
        describe(d, sizeof d, &cr->c[i]);
        width = (int)strlen(d) > width ? (int)strlen(d) : width;
    }
    printf("%-7s %5s  %-*s  %-12s %-12s %s\n", "verdict", "line", width, "criterion", "measured", "margin",
           "where");
    for (int i = 0; i < cr->n; i++) {
        const struct lens_criterion *c = &cr->c[i];
        describe(d, sizeof d, c);
        show(m, sizeof m, c, a->r[i].measured, 0);
        show(g, sizeof g, c, a->r[i].margin, 1);
        printf("%-7s %5d  %-*s  %-12s %-12s %s", a->r[i].pass ? "PASS" : "FAIL", c->line, width, d, m, g,
               a->r[i].where);
        if (c->label)
            printf("  \"%s\"", c->label);
        printf("\n");
    }
    /* the summary names the contract, so a log of several runs says which one judged */
    printf("\naccept: %s, %d of %d criteria failed (%s)\n", a->failed ? "FAIL" : "PASS", a->failed, a->n,
           cr->path);
}

/* The keys line to label are the contract of docs/accept.md. limit, measured and margin
 * are exact doubles in the SI base unit that "unit" names, so a script compares numbers
 * without parsing units; the text output rounds to four digits. */
static void print_json(const struct lens_criteria *cr, const struct lens_accept *a, char **inputs, int nin)
{
    struct lens_json j;
    lens_json_init(&j, stdout);
    lens_json_begin_object(&j);
    /* the verdict first, so a reader that stops early still has the answer */
    lens_json_key(&j, "verdict");
    lens_json_string(&j, a->failed ? "fail" : "pass");
    lens_json_key(&j, "criteria");
    lens_json_begin_array(&j);
    for (int i = 0; i < cr->n; i++) {
        const struct lens_criterion *c = &cr->c[i];
        lens_json_begin_object(&j);
        lens_json_key(&j, "line");
        lens_json_int(&j, c->line);
        lens_json_key(&j, "metric");
        lens_json_string(&j, lens_criteria_metric_name(c->metric));
        lens_json_key(&j, "op");
        lens_json_string(&j, lens_criteria_op_name(c->op));
        lens_json_key(&j, "limit");
        lens_json_number(&j, c->limit);
        lens_json_key(&j, "measured");
        lens_json_number(&j, a->r[i].measured);
        lens_json_key(&j, "unit");
        lens_json_string(&j, lens_criteria_kind_unit(lens_criteria_metric_kind(c->metric)));
        lens_json_key(&j, "pass");
        lens_json_bool(&j, a->r[i].pass);
        lens_json_key(&j, "where");
        lens_json_string(&j, a->r[i].where);
        lens_json_key(&j, "label");
        lens_json_string(&j, c->label ? c->label : "");
        /* extensions: added after the contract's keys, never renamed */
        lens_json_key(&j, "margin");
        lens_json_number(&j, a->r[i].margin);
        lens_json_key(&j, "column");
        lens_json_int(&j, c->col);
        lens_json_key(&j, "scope");
        lens_json_string(&j, lens_criteria_scope_name(c->scope));
        lens_json_key(&j, "stat");
        lens_json_string(&j, lens_cube_stat_name(c->stat));
        /* null, not -1, when length= or size= is absent: -1 would read as a length */
        lens_json_key(&j, "length");
        if (c->length >= 0)
            lens_json_int(&j, c->length);
        else
            lens_json_null(&j);
        lens_json_key(&j, "size");
        if (c->size >= 0)
            lens_json_int(&j, c->size);
        else
            lens_json_null(&j);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    lens_json_key(&j, "criteria_file");
    lens_json_string(&j, cr->path);
    /* the arguments as given, one entry each even when a prefix held several kinds */
    lens_json_key(&j, "inputs");
    lens_json_begin_array(&j);
    for (int i = 0; i < nin; i++)
        lens_json_string(&j, inputs[i]);
    lens_json_end_array(&j);
    /* the count again, for scripts that do not want to walk the array */
    lens_json_key(&j, "failed");
    lens_json_int(&j, a->failed);
    lens_json_end_object(&j);
    fputc('\n', stdout);
}

/* Loads each argument as every kind it is (a prefix may hold a cube and a sweep); one that no
 * kind recognises is read as a cube, whose reader names the file that is missing. */
static int load(char **args, int nargs, unsigned mask, struct lens_accept_input *in, int *nin,
                struct lens_err *e)
{
    for (int i = 0; i < nargs; i++) {
        /* by name and header only: nothing is read twice, and nothing unrecognised is dropped */
        int p2p = lens_p2pfile_detect(args[i]), bis = lens_bisection_probe(args[i]);
        int cube = lens_cube_probe(args[i]) || (!p2p && !bis);
        /* each kind found takes its own slot: in[] has room for three per argument (cmd_accept) */
        if (bis) {
            struct lens_bisection *b;
            /* e names the file; what was loaded so far stays in in[0..*nin) for the caller to free */
            if (lens_bisection_read(args[i], &b, e) != LENS_OK)
                return e->code;
            in[*nin].name = args[i];
            in[(*nin)++].bisection = b;
        }
        if (p2p) {
            struct lens_p2pfile *f;
            if (lens_p2pfile_read(args[i], &f, e) != LENS_OK)
                return e->code;
            in[*nin].name = args[i];
            in[(*nin)++].p2p = f;
        }
        if (cube) {
            struct lens_cube *c;
            if (lens_cube_read_stats(args[i], mask, &c, e) != LENS_OK)
                return e->code;
            in[*nin].name = args[i];
            in[(*nin)++].cube = c;
            /* repaired defects change what is judged: say so, on stderr, as every command does */
            for (int w = 0; w < c->nwarn; w++)
                lens_cli_warn("%s", c->warnings[w]);
        }
    }
    return LENS_OK;
}

int cmd_accept(int argc, char **argv)
{
    /* above 255, so that no long-only option can collide with a short option's character */
    enum { O_JSON = 256, O_CRITERIA };
    static const struct option opts[] = {{"json", no_argument, NULL, O_JSON},
                                         {"criteria", required_argument, NULL, O_CRITERIA},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int json = 0, ch;
    const char *criteria = NULL;
    /* getopt keeps its position in a global: restart it at this command's own arguments */
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case O_JSON: json = 1; break;
        case O_CRITERIA: criteria = optarg; break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("accept", "unknown option");
        }
    }
    /* both are usage errors (exit 2), found before any file is opened */
    if (!criteria)
        return lens_cli_usage("accept", "missing --criteria FILE");
    if (optind >= argc)
        return lens_cli_usage("accept", "missing INPUT (a latency cube, a p2p sweep or a bisection run)");
    struct lens_err e;
    lens_err_clear(&e);
    /* the contract before the inputs: a typo in it should not wait for a large cube to load */
    struct lens_criteria *cr;
    if (lens_criteria_read(criteria, &cr, &e) != LENS_OK)
        return lens_cli_fail(&e);
    int nargs = argc - optind, nin = 0;
    /* median at least: a cube read for a p2p-only contract must still be a valid cube */
    unsigned mask = lens_criteria_stats(cr) | 1u << LENS_STAT_MEDIAN;
    /* three slots per argument: a prefix may be a cube, a sweep and a bisection run */
    struct lens_accept_input *in = lens_calloc((size_t)nargs * 3, sizeof *in);
    struct lens_accept *a = NULL;
    int rc = in ? load(argv + optind, nargs, mask, in, &nin, &e) : lens_err_set(&e, LENS_ENOMEM, "out of memory");
    if (rc == LENS_OK)
        /* the run stops at the first criterion it cannot measure (accept.c): exit 1, no verdict */
        rc = lens_accept_run(cr, in, nin, &a, &e);
    /* nothing on stdout on error: a half verdict could be read as a whole one */
    /* 0 when every criterion holds; 3 when all were measured and one fails; 1 (lens_cli_fail,
     * which prints the message) on any error */
    int status = rc != LENS_OK ? lens_cli_fail(&e) : a->failed ? EXIT_REJECTED : LENS_EXIT_OK;
    if (rc == LENS_OK) {
        if (json)
            print_json(cr, a, argv + optind, nargs);
        else
            print_text(cr, a);
    }
    /* each slot holds one of the three and NULL in the others, which the free functions accept;
     * the casts drop the const of the borrowed view in lens_accept_input: this function owns them */
    for (int i = 0; i < nin; i++) {
        lens_cube_free((struct lens_cube *)in[i].cube);
        lens_p2pfile_free((struct lens_p2pfile *)in[i].p2p);
        lens_bisection_free((struct lens_bisection *)in[i].bisection);
    }
    lens_free(in);
    lens_accept_free(a);
    lens_criteria_free(cr);
    return status;
}
