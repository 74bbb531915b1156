/* mpilens accept: judges latency cubes, p2p sweeps and bisection runs against an acceptance
 * contract (--criteria FILE, docs/accept.md) and prints the verdict, one line per criterion, or JSON.
 * Exit status 0 when every criterion holds, 3 when one does not, 1 on error, 2 on bad usage. */
#include "cli.h"

#include "analysis/accept/accept.h"
#include "analysis/compare/compare.h"
#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"
#include "common/atomic.h"
#include "common/json.h"
#include "common/units.h"
#include "render/doc/doc.h"

#include <getopt.h>
#include <limits.h>
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
    printf("usage: mpilens accept INPUT... --criteria FILE [--baseline BASE...] [-o REPORT.pdf] [--json]\n\n"
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
           "           compare.regressions (needs --baseline)\n"
           "  OP: <= < >= > ==    units: s ms us \xc2\xb5s ns, B KiB MiB GiB, B/s KB/s MB/s GB/s\n"
           "  KiB/s MiB/s GiB/s, /s, %%; a value without a unit is in seconds, bytes/s, 1/s, ...\n\n"
           "options:\n"
           "  --criteria FILE   the contract (required)\n"
           "  --baseline BASE...  one baseline cube per cube INPUT, in order (every argument up to\n"
           "                    the next option): each pair is compared as by 'mpilens compare BASE\n"
           "                    INPUT', which compare.regressions counts (its slower findings)\n"
           "  -o, --output FILE write the report of 'mpilens report' on the same inputs with the\n"
           "                    verdict as page one (and the comparison with --baseline)\n"
           "      --title TEXT  title of that report\n"
           "  --json            print {\"verdict\", \"criteria\":[{line, metric, op, limit, measured,\n"
           "                    unit, pass, where, label, ...}]}, limit and measured in SI units;\n"
           "                    with --baseline also \"baseline\":[{input, base, verdict,\n"
           "                    regressions, findings}]\n"
           "  -h, --help        show this help\n\n"
           "exit status: 0 every criterion holds, 3 some criterion fails, 1 error, 2 bad usage\n\n"
           "example:\n"
           "  mpilens accept samples/cubes/synth32/network --criteria samples/criteria/demo.criteria\n"
           "  mpilens accept results/network results/pair --criteria samples/criteria/acceptance.criteria --json\n"
           "  mpilens accept new/network --criteria c.criteria -o accept.pdf --baseline old/network\n\n"
           "a line of FILE:\n"
           "  cube.delay.max <= 3us length=4096 scope=inter label=\"no link slower than 3 µs\"\n");
}

/* Characters of a UTF-8 string: "µs" is two bytes but one column wide. */
static int text_width(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80; /* continuation bytes add no column */
    return n;
}

/* s left-aligned in w columns (printf's %-*s counts bytes, and the units hold "µ"). */
static void put_col(const char *s, int w)
{
    int n = text_width(s);
    printf("%s%*s", s, w > n ? w - n : 0, "");
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
        lens_accept_criterion_text(&cr->c[i], d, sizeof d);
        width = text_width(d) > width ? text_width(d) : width;
    }
    printf("%-7s %5s  %-*s  %-12s %-12s %s\n", "verdict", "line", width, "criterion", "measured", "margin",
           "where");
    for (int i = 0; i < cr->n; i++) {
        const struct lens_criterion *c = &cr->c[i];
        lens_accept_criterion_text(c, d, sizeof d);
        lens_accept_value_text(c, a->r[i].measured, 0, m, sizeof m);
        lens_accept_value_text(c, a->r[i].margin, 1, g, sizeof g);
        printf("%-7s %5d  ", a->r[i].pass ? "PASS" : "FAIL", c->line);
        put_col(d, width);
        printf("  ");
        put_col(m, 12);
        printf(" ");
        put_col(g, 12);
        printf(" %s", a->r[i].where);
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
static void print_baseline(struct lens_json *j, const struct lens_accept_input *in, int nin);

static void print_json(const struct lens_criteria *cr, const struct lens_accept *a, char **inputs, int nargs,
                       const struct lens_accept_input *in, int nin, int baselines)
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
    for (int i = 0; i < nargs; i++)
        lens_json_string(&j, inputs[i]);
    lens_json_end_array(&j);
    /* the count again, for scripts that do not want to walk the array */
    lens_json_key(&j, "failed");
    lens_json_int(&j, a->failed);
    /* only with --baseline, so that the layout without it stays as docs/accept.md gives it */
    if (baselines)
        print_baseline(&j, in, nin);
    lens_json_end_object(&j);
    fputc('\n', stdout);
}

/* "baseline": one entry per cube compared, its findings with the keys of `mpilens compare
 * --json` (kind, direction, ranks, hosts, lengths, ratio, p), so one script reads both. */
static void print_baseline(struct lens_json *j, const struct lens_accept_input *in, int nin)
{
    lens_json_key(j, "baseline");
    lens_json_begin_array(j);
    for (int i = 0; i < nin; i++) {
        const struct lens_compare *c = in[i].compare;
        if (!c)
            continue;
        int slower = 0;
        for (int f = 0; f < c->nfind; f++)
            slower += c->find[f].direction > 0;
        lens_json_begin_object(j);
        lens_json_key(j, "input");
        lens_json_string(j, in[i].name);
        lens_json_key(j, "base");
        lens_json_string(j, in[i].baseline);
        lens_json_key(j, "verdict");
        lens_json_string(j, lens_compare_verdict_name(c->verdict));
        /* the count compare.regressions judges, for this cube alone */
        lens_json_key(j, "regressions");
        lens_json_int(j, slower);
        lens_json_key(j, "findings");
        lens_json_begin_array(j);
        for (int f = 0; f < c->nfind; f++) {
            const struct lens_compare_finding *x = &c->find[f];
            lens_json_begin_object(j);
            lens_json_key(j, "kind");
            lens_json_string(j, lens_compare_kind_name(x->kind));
            lens_json_key(j, "direction");
            lens_json_string(j, x->direction > 0 ? "slower" : "faster");
            lens_json_int_array(j, "ranks", x->ranks, x->nranks);
            lens_json_key(j, "hosts");
            lens_json_begin_array(j);
            for (int h = 0; h < x->nhosts; h++)
                lens_json_string(j, x->hosts[h]);
            lens_json_end_array(j);
            lens_json_int_array(j, "lengths", x->lengths, x->nlengths);
            lens_json_key(j, "ratio");
            lens_json_number(j, x->ratio);
            lens_json_key(j, "p");
            lens_json_number(j, x->p); /* NaN (structure: no test) prints null */
            lens_json_end_object(j);
        }
        lens_json_end_array(j);
        lens_json_end_object(j);
    }
    lens_json_end_array(j);
}

/* Loads each argument as every kind it is (a prefix may hold a cube and a sweep); one that no
 * kind recognises is read as a cube, whose reader names the file that is missing. A cube
 * comes first, as in `mpilens report`, so the report's inputs keep the same order. whole: read
 * every statistic (the report draws any of them), else only those of mask. */
static int load(char **args, int nargs, unsigned mask, int whole, struct lens_accept_input *in, int *nin,
                struct lens_err *e)
{
    for (int i = 0; i < nargs; i++) {
        /* by name and header only: nothing is read twice, and nothing unrecognised is dropped */
        int p2p = lens_p2pfile_detect(args[i]), bis = lens_bisection_probe(args[i]);
        int cube = lens_cube_probe(args[i]) || (!p2p && !bis);
        /* each kind found takes its own slot: in[] has room for three per argument (cmd_accept) */
        if (cube) {
            struct lens_cube *c;
            /* e names the file; what was loaded so far stays in in[0..*nin) for the caller to free */
            if ((whole ? lens_cube_read(args[i], &c, e) : lens_cube_read_stats(args[i], mask, &c, e)) != LENS_OK)
                return e->code;
            in[*nin].name = args[i];
            in[(*nin)++].cube = c;
            /* repaired defects change what is judged: say so, on stderr, as every command does */
            for (int w = 0; w < c->nwarn; w++)
                lens_cli_warn("%s", c->warnings[w]);
        }
        if (p2p) {
            struct lens_p2pfile *f;
            if (lens_p2pfile_read(args[i], &f, e) != LENS_OK)
                return e->code;
            in[*nin].name = args[i];
            in[(*nin)++].p2p = f;
        }
        if (bis) {
            struct lens_bisection *b;
            if (lens_bisection_read(args[i], &b, e) != LENS_OK)
                return e->code;
            in[*nin].name = args[i];
            in[(*nin)++].bisection = b;
        }
    }
    return LENS_OK;
}

/* Each cube compared with its baseline, the k-th cube with base[k], by the function
 * `mpilens compare` calls (analysis/compare), with its default change and false discovery
 * rate. The count was checked against the cubes before anything was read. */
static int compare_all(struct lens_accept_input *in, int nin, char **base, struct lens_err *e)
{
    struct lens_compare_opts o;
    lens_compare_opts_default(&o);
    for (int i = 0, k = 0; i < nin; i++) {
        if (!in[i].cube)
            continue;
        struct lens_compare *c;
        if (lens_compare_cubes(base[k], in[i].name, &o, &c, e) != LENS_OK)
            return e->code;
        in[i].compare = c;
        in[i].baseline = base[k++];
        /* NEW's warnings were printed when the cube was loaded; BASE's are new here */
        for (int w = 0; w < c->nwarn; w++)
            if (!strncmp(c->warnings[w], "BASE", 4))
                lens_cli_warn("%s", c->warnings[w]);
    }
    return LENS_OK;
}

/* The report of `mpilens report` on the cubes and sweeps among the inputs, in their order,
 * with the verdict v as page one and each cube's comparison as a section. Its results are
 * computed here, as cmd_report.c computes them (the gate first, then the structure parts
 * the template shows), and the document only lays them out. */
static int write_report(const char *path, const char *title, const struct lens_accept_input *in, int nin,
                        const struct lens_accept_view *v, struct lens_err *e)
{
    struct lens_report_opts o;
    lens_report_opts_init(&o);
    o.title = title;
    o.verdict = v;
    char datadir[PATH_MAX];
    int rc = lens_report_datadir(datadir, sizeof datadir, e);
    o.datadir = datadir;
    /* bisection runs have no section of the report: they are judged on page one only */
    struct lens_report_input *ri = lens_calloc((size_t)(nin > 0 ? nin : 1), sizeof *ri);
    struct lens_structure_report *res = lens_calloc((size_t)(nin > 0 ? nin : 1), sizeof *res);
    /* each cube's provenance for its page one, as mpilens report shows it */
    struct lens_cube_provenance *prov = lens_calloc((size_t)(nin > 0 ? nin : 1), sizeof *prov);
    int n = 0;
    if (rc == LENS_OK && (!ri || !res || !prov))
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
    for (int i = 0; i < nin && rc == LENS_OK; i++)
        if (in[i].cube || in[i].p2p)
            ri[n++] = (struct lens_report_input){.name = in[i].name, .cube = in[i].cube, .p2p = in[i].p2p,
                                                 .compare = in[i].compare, .baseline = in[i].baseline};
    unsigned parts = 0;
    if (rc == LENS_OK && n == 0)
        rc = lens_err_set(e, LENS_EINVAL, "%s: the report needs a latency cube or a p2p sweep among the inputs",
                          path);
    if (rc == LENS_OK)
        rc = lens_report_parts(&o, ri, n, &parts, e);
    struct lens_quality_opts q;
    lens_quality_opts_default(&q);
    for (int i = 0; i < n && rc == LENS_OK; i++) {
        if (!ri[i].cube)
            continue;
        /* the provenance first: its cores_per_host tells the gate about oversubscription */
        struct lens_quality_opts qo = q;
        if ((rc = lens_cube_attr_provenance(ri[i].cube, &prov[i], e)) == LENS_OK) {
            ri[i].prov = &prov[i];
            lens_quality_opts_recorded(&qo, prov[i].cores_per_host);
            rc = lens_structure_report_run_gated(ri[i].cube, o.stat, parts, &qo, &res[i], e);
        }
        if (rc == LENS_OK)
            ri[i].results = &res[i];
        if (rc != LENS_OK)
            lens_err_prefix(e, ri[i].name);
    }
    if (rc == LENS_OK) {
        /* The PDF is renamed into place at once, outside the command's output group: main
         * drops the group on any status but 0, and a verdict of FAIL (status 3) is a result
         * the report must carry, not a failure. It is still written whole or not at all
         * (temporary file and rename) and only once everything was measured. */
        int depth = lens_atomic_group_suspend();
        rc = lens_report_write(&o, ri, n, path, e);
        lens_atomic_group_resume(depth);
    }
    for (int i = 0; res && i < n; i++)
        lens_structure_report_release(&res[i]);
    lens_free(res);
    for (int i = 0; prov && i < n; i++)
        lens_cube_attr_provenance_release(&prov[i]); /* zeroed or read: both release */
    lens_free(prov);
    lens_free(ri);
    return rc;
}

/* --baseline takes every argument after it up to the next option (BASE...), which getopt
 * cannot express: they are taken out of argv here, before getopt sees it. "--baseline=B"
 * takes one. Returns the number of baselines, -1 for a --baseline with none. */
static int take_baselines(int *argc, char **argv, char **base)
{
    int n = 0, out = 1, i = 1;
    for (; i < *argc; i++) {
        /* "--" ends the options: what follows is INPUT, even after --baseline */
        if (!strcmp(argv[i], "--"))
            break;
        if (!strncmp(argv[i], "--baseline=", 11)) {
            base[n++] = argv[i] + 11;
            continue;
        }
        if (strcmp(argv[i], "--baseline")) {
            argv[out++] = argv[i];
            continue;
        }
        int before = n;
        while (i + 1 < *argc && argv[i + 1][0] != '-')
            base[n++] = argv[++i];
        if (n == before)
            return -1;
    }
    for (; i < *argc; i++)
        argv[out++] = argv[i];
    *argc = out;
    argv[out] = NULL;
    return n;
}

int cmd_accept(int argc, char **argv)
{
    /* above 255, so that no long-only option can collide with a short option's character */
    enum { O_JSON = 256, O_CRITERIA, O_TITLE };
    static const struct option opts[] = {{"json", no_argument, NULL, O_JSON},
                                         {"criteria", required_argument, NULL, O_CRITERIA},
                                         {"output", required_argument, NULL, 'o'},
                                         {"title", required_argument, NULL, O_TITLE},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    int json = 0, ch;
    const char *criteria = NULL, *output = NULL, *title = NULL;
    /* at most one baseline per argument: argv is the bound */
    char **base = lens_calloc((size_t)argc + 1, sizeof *base);
    if (!base) {
        struct lens_err me;
        lens_err_clear(&me);
        lens_err_set(&me, LENS_ENOMEM, "out of memory");
        return lens_cli_fail(&me);
    }
    int nbase = take_baselines(&argc, argv, base);
    if (nbase < 0) {
        lens_free(base);
        return lens_cli_usage("accept", "--baseline wants BASE... (a baseline cube per cube INPUT)");
    }
    /* getopt keeps its position in a global: restart it at this command's own arguments */
    optind = 1;
    while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (ch) {
        case O_JSON: json = 1; break;
        case O_CRITERIA: criteria = optarg; break;
        case O_TITLE: title = optarg; break;
        case 'o': output = optarg; break;
        case 'h': lens_free(base); help(); return LENS_EXIT_OK;
        default: lens_free(base); return lens_cli_usage("accept", "unknown option");
        }
    }
    /* both are usage errors (exit 2), found before any file is opened */
    const char *bad = !criteria ? "missing --criteria FILE"
                      : optind >= argc ? "missing INPUT (a latency cube, a p2p sweep or a bisection run)" : NULL;
    int ncubes = 0;
    /* one baseline per cube INPUT, counted with the probes load() uses, so that a mismatch
     * is a usage error before a large cube is read */
    for (int i = optind; !bad && nbase && i < argc; i++)
        ncubes += lens_cube_probe(argv[i]) || (!lens_p2pfile_detect(argv[i]) && !lens_bisection_probe(argv[i]));
    if (!bad && nbase && nbase != ncubes) {
        lens_free(base);
        char nb[48], nc[48];
        /* plurals by the count, never "baseline(s)" (common/units.h) */
        lens_units_count(nbase, "baseline", "baselines", nb, sizeof nb);
        lens_units_count(ncubes, "cube INPUT", "cube INPUTs", nc, sizeof nc);
        return lens_cli_usage("accept", "--baseline gives %s for %s: one per cube, in order", nb, nc);
    }
    if (bad) {
        lens_free(base);
        return lens_cli_usage("accept", "%s", bad);
    }
    struct lens_err e;
    lens_err_clear(&e);
    /* the contract before the inputs: a typo in it should not wait for a large cube to load */
    struct lens_criteria *cr;
    if (lens_criteria_read(criteria, &cr, &e) != LENS_OK) {
        lens_free(base);
        return lens_cli_fail(&e);
    }
    int nargs = argc - optind, nin = 0;
    /* median at least: a cube read for a p2p-only contract must still be a valid cube */
    unsigned mask = lens_criteria_stats(cr) | 1u << LENS_STAT_MEDIAN;
    /* three slots per argument: a prefix may be a cube, a sweep and a bisection run */
    struct lens_accept_input *in = lens_calloc((size_t)nargs * 3, sizeof *in);
    struct lens_accept *a = NULL;
    struct lens_accept_view *v = NULL;
    /* with -o every statistic is read: the report shows the same cube as `mpilens report` */
    int rc = in ? load(argv + optind, nargs, mask, output != NULL, in, &nin, &e)
                : lens_err_set(&e, LENS_ENOMEM, "out of memory");
    if (rc == LENS_OK && nbase)
        rc = compare_all(in, nin, base, &e);
    if (rc == LENS_OK)
        /* the run stops at the first criterion it cannot measure (accept.c): exit 1, no verdict */
        rc = lens_accept_run(cr, in, nin, &a, &e);
    if (rc == LENS_OK && output && (rc = lens_accept_describe(cr, a, in, nin, &v, &e)) == LENS_OK)
        rc = write_report(output, title, in, nin, v, &e);
    /* nothing on stdout on error: a half verdict could be read as a whole one */
    /* 0 when every criterion holds; 3 when all were measured and one fails; 1 (lens_cli_fail,
     * which prints the message) on any error */
    int status = rc != LENS_OK ? lens_cli_fail(&e) : a->failed ? EXIT_REJECTED : LENS_EXIT_OK;
    if (rc == LENS_OK) {
        if (json)
            print_json(cr, a, argv + optind, nargs, in, nin, nbase > 0);
        else
            print_text(cr, a);
        /* on stderr: stdout stays the verdict alone, for scripts */
        if (output)
            fprintf(stderr, "mpilens: wrote %s\n", output);
    }
    /* each slot holds one of the three and NULL in the others, which the free functions accept;
     * the casts drop the const of the borrowed view in lens_accept_input: this function owns them */
    for (int i = 0; i < nin; i++) {
        lens_cube_free((struct lens_cube *)in[i].cube);
        lens_p2pfile_free((struct lens_p2pfile *)in[i].p2p);
        lens_bisection_free((struct lens_bisection *)in[i].bisection);
        lens_compare_free((struct lens_compare *)in[i].compare);
    }
    lens_free(in);
    lens_free(base);
    lens_accept_view_free(v);
    lens_accept_free(a);
    lens_criteria_free(cr);
    return status;
}
