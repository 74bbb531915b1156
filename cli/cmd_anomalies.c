/* mpilens anomalies: slow nodes, bad links, asymmetric pairs and structure changes of a
 * latency cube, ranked, each with its evidence in robust units; with mpilens-bench's
 * PREFIX_retest.csv beside the cube, whether each retested link stayed slow alone. */
#include "cli.h"

#include "analysis/structure/structure.h"
#include "common/json.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LENS_COMMAND(anomalies, "find slow nodes, bad links, asymmetric pairs and protocol switches in a cube");

static void help(void)
{
    printf("usage: mpilens anomalies [options] INPUT\n\n"
           "Looks for anomalies in a latency cube (a network_test2 prefix, a directory holding one\n"
           "result, or one <prefix>_<stat>.nc file) and prints them ranked by robust z, each with\n"
           "its evidence: the numbers and how many robust standard deviations (1.4826 MAD, on a\n"
           "log scale) they lie from the typical value.\n\n"
           "  slow_node         ranks whose links are uniformly slower than the other ranks'\n"
           "  bad_link          a link slower than the typical link between the same two classes\n"
           "  asymmetric_pair   one direction of a pair much slower than the other\n"
           "  structure_change  two consecutive lengths between which groups of links scale\n"
           "                    differently (protocol or route switch)\n\n"
           "When <prefix>_retest.csv (mpilens-bench --retest) is beside the cube, a bad link or\n"
           "asymmetric pair whose slow link was measured again alone at one of its lengths says\n"
           "whether it survived the retest (retest z >= 5: a bad link) or vanished (contention).\n\n"
           "options:\n"
           "  --json            print {\"anomalies\":[{kind, ranks, lengths, score, evidence, ...}]}\n"
           "  --stat NAME       statistic: median (default), average, min\n"
           "  --z X             robust z a finding needs (default 5)\n"
           "  -h, --help        show this help\n\n"
           "example:\n"
           "  mpilens anomalies samples/cubes/synth32/network\n"
           "  mpilens anomalies --json results/network\n");
}

/* The table first, for a glance at what is wrong and how badly; the evidence after it, one
 * numbered paragraph per finding, because a sentence of numbers does not fit a column. */
static void print_text(const struct lens_cube *c, const struct lens_anomalies *a, const struct lens_retest *rt)
{
    /* the statistic printed is the one used: without --stat the analysis takes the median, or
     * the first statistic the cube has (lens_anomaly_opts_default leaves stat at -1) */
    printf("%d anomal%s in %s (%s, %d processes, %d lengths, %d classes of interchangeable ranks)\n",
           a->n, a->n == 1 ? "y" : "ies", c->source ? c->source : "cube", lens_cube_stat_name(a->stat),
           c->procs, c->nlen, a->nclasses);
    /* a healthy machine: the summary line alone says so, no empty table */
    if (a->n == 0)
        return;
    printf("\n%3s  %-16s  %7s  %7s  %s\n", "#", "kind", "z", "factor", "subject");
    for (int i = 0; i < a->n; i++) {
        const struct lens_anomaly *f = &a->items[i];
        printf("%3d  %-16s  %7.1f  %6.2fx  %s\n", i + 1, lens_anomaly_kind_name(f->kind), f->score,
               f->ratio, f->subject);
    }
    printf("\n");
    for (int i = 0; i < a->n; i++) {
        int v = lens_anomaly_retest_verdict(rt, &a->items[i]);
        /* the verdict closes the paragraph: the evidence is the sweep's, the verdict the retest's */
        printf("%d. %s%s\n", i + 1, a->items[i].evidence,
               v < 0 ? "" : v ? "; survives retest alone (bad link)" : "; vanished on retest alone (contention)");
    }
}

/* {"anomalies":[...], "stat":...} as docs/links.md shows it: kind, ranks, lengths, score and
 * evidence are the interface scripts read; the keys after them feed the report's table. */
static void print_json(const struct lens_anomalies *a, const struct lens_retest *rt)
{
    struct lens_json j;
    lens_json_init(&j, stdout);
    lens_json_begin_object(&j);
    lens_json_key(&j, "anomalies");
    lens_json_begin_array(&j);
    for (int i = 0; i < a->n; i++) {
        const struct lens_anomaly *f = &a->items[i];
        lens_json_begin_object(&j);
        lens_json_key(&j, "kind");
        lens_json_string(&j, lens_anomaly_kind_name(f->kind));
        lens_json_key(&j, "ranks");
        lens_json_begin_array(&j);
        for (int r = 0; r < f->nranks; r++)
            lens_json_int(&j, f->ranks[r]);
        lens_json_end_array(&j);
        lens_json_key(&j, "lengths");
        lens_json_begin_array(&j);
        for (int k = 0; k < f->nlengths; k++)
            lens_json_int(&j, f->lengths[k]);
        lens_json_end_array(&j);
        lens_json_key(&j, "score");
        lens_json_number(&j, f->score);
        lens_json_key(&j, "evidence");
        lens_json_string(&j, f->evidence);
        /* extensions: added, never renamed */
        lens_json_key(&j, "subject");
        lens_json_string(&j, f->subject);
        lens_json_key(&j, "ratio");
        lens_json_number(&j, f->ratio);
        lens_json_key(&j, "value");
        lens_json_number(&j, f->value);
        lens_json_key(&j, "typical");
        lens_json_number(&j, f->typical);
        lens_json_key(&j, "unit");
        lens_json_string(&j, f->unit);
        lens_json_key(&j, "ref_length");
        lens_json_int(&j, f->ref_length);
        /* only with a retest file, so the JSON of other cubes stays as it was */
        if (rt) {
            int v = lens_anomaly_retest_verdict(rt, f);
            lens_json_key(&j, "retest");
            if (v < 0)
                lens_json_null(&j);
            else
                lens_json_string(&j, v ? "survived" : "vanished");
        }
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    /* the statistic used, for the same reason as in the text's first line */
    lens_json_key(&j, "stat");
    lens_json_string(&j, lens_cube_stat_name(a->stat));
    lens_json_end_object(&j);
}

int cmd_anomalies(int argc, char **argv)
{
    /* long-only options take codes above 255, where no short option letter can collide */
    enum { O_JSON = 256, O_STAT, O_Z };
    static const struct option opts[] = {{"json", no_argument, NULL, O_JSON},
                                         {"stat", required_argument, NULL, O_STAT},
                                         {"z", required_argument, NULL, O_Z},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    struct lens_anomaly_opts o;
    lens_anomaly_opts_default(&o);
    /* The defaults are the analysis's own (lens_anomaly_opts_default: median, z >= 5), so
     * that this command and the report's "Anomalies" section find the same things. */
    int json = 0, ch;
    char *end;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case O_JSON: json = 1; break;
        /* deviation is a spread, not a latency: slowness and link ratios make no sense on it */
        case O_STAT:
            o.stat = lens_cube_stat_parse(optarg);
            if (o.stat < 0 || o.stat == LENS_STAT_DEVIATION)
                return lens_cli_usage("anomalies", "--stat must be median, average or min, not '%s'", optarg);
            break;
        /* z must be positive (the analysis refuses 0, which would flag half of every set);
         * the upper bound only catches typos, no finding reaches it */
        case O_Z:
            o.z_min = strtod(optarg, &end);
            if (end == optarg || *end || !(o.z_min > 0 && o.z_min < 1e6))
                return lens_cli_usage("anomalies", "--z must be a positive number, not '%s'", optarg);
            break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("anomalies", "unknown option");
        }
    }
    /* one cube per run: the ranking compares findings of one machine only; status 2 */
    if (optind != argc - 1)
        return lens_cli_usage("anomalies", "expected one INPUT, got %d", argc - optind);
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_cube *c;
    if (lens_cube_read(argv[optind], &c, &e) != LENS_OK)
        return lens_cli_fail(&e);
    /* only the anomaly part of the structure pipeline */
    struct lens_structure_opts so;
    lens_structure_opts_default(&so);
    so.parts = LENS_STRUCTURE_ANOMALIES;
    so.anomaly = o;
    struct lens_structure s;
    if (lens_structure_run(c, &so, &s, &e) != LENS_OK) {
        /* release is safe on a failed run: it frees whatever parts were made */
        lens_structure_release(&s);
        lens_cube_free(c);
        return lens_cli_fail(&e);
    }
    const struct lens_anomalies *a = s.an;
    /* the retests beside a bench cube; a damaged file fails the command before any output */
    struct lens_retest *rt = NULL;
    if (c->source && c->format && !strcmp(c->format, "network_test2") &&
        lens_retest_beside(c->source, &rt, &e) != LENS_OK) {
        lens_structure_release(&s);
        lens_cube_free(c);
        return lens_cli_fail(&e);
    }
    /* the reader's warnings go out only now, after the analysis succeeded, so a failing run
     * prints its error alone instead of burying it under warnings */
    for (int w = 0; w < c->nwarn; w++)
        lens_cli_warn("%s", c->warnings[w]);
    /* Status 0 also when anomalies are found (docs/links.md): finding them is the command
     * working, and a script reads the count from the output, not from the status. */
    if (json)
        print_json(a, rt);
    else
        print_text(c, a, rt);
    lens_retest_free(rt);
    lens_structure_release(&s);
    lens_cube_free(c);
    return LENS_EXIT_OK;
}
