/* mpilens compare: what changed between a baseline cube and a new one of the same machine,
 * as findings (a link, a node, the whole machine, the clustering) with their ratio, lengths,
 * p-value and hosts; text or --json (docs/compare.md). */
#include "cli.h"

#include "analysis/compare/compare.h"
#include "analysis/cube/cube.h"
#include "common/json.h"
#include "common/units.h"
#include "render/doc/doc.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LENS_COMMAND(compare, "what changed between two cubes: links, nodes, the machine, the clustering");

static void help(void)
{
    printf("usage: mpilens compare [options] BASE NEW\n\n"
           "Compares two latency cubes of the same machine (network_test2 prefixes, directories\n"
           "holding one result, or packed cubes), or two p2p sweeps (PREFIX_p2p.nc/.csv): per pair and length the ratio NEW / BASE of the\n"
           "average delay and Welch's t-test from the average, deviation and repeats, with the\n"
           "false discovery rate over all pairs and lengths held at --alpha (Benjamini-Hochberg).\n"
           "A change needs both significance and --min-change. Findings are grouped as\n"
           "  machine    the median link of a length moved (sign test over all pairs)\n"
           "  structure  groups of the automatic clustering cut merged or split\n"
           "  node       most links touching one host changed the same way\n"
           "  link       one directed link (sender, receiver) changed\n"
           "Ranks are matched by host name and local rank when both hosts files name the same\n"
           "hosts, by rank number otherwise; the output says which.\n\n"
           "options:\n"
           "  --json            print {\"verdict\", \"matched_by\", \"findings\":[{kind, direction,\n"
           "                    ranks, hosts, lengths, ratio, p, ...}]}\n"
           "  --min-change X    smallest change that counts, e.g. 10%% or 0.1 (default 10%%)\n"
           "  --alpha X         false discovery rate (default 0.01)\n"
           "  -o FILE.pdf       also write the report: verdict and findings on page one, the\n"
           "                    ratio map (NEW / BASE per pair, log colours centred on 1) and the\n"
           "                    before/after delay histograms per length (cubes)\n"
           "  --figures DIR     with -o, also the figures as PNG and SVG files in DIR\n"
           "  --title TEXT      with -o, the report's title\n"
           "  -h, --help        show this help\n\n"
           "Exit status 0 whatever the verdict, 1 on an error, 2 on a usage error.\n"
           "The p-values come from Welch's test on the raw repeats when both runs stored them\n"
           "(PREFIX_all.nc, mpilens-bench --raw), else from the average, deviation and repeats;\n"
           "the output names the test (text \"test:\", JSON \"test\").\n\n"
           "example:\n"
           "  mpilens compare results/monday/network results/friday/network\n"
           "  mpilens compare --json --min-change 5%% old/network new/network\n"
           "  mpilens compare -o compare.pdf results/monday/network results/friday/network\n");
}

/* "10%" or "0.1": both mean a tenth; an explicit % is the form the issue gives. */
static int parse_change(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return -1;
    if (*end == '%') {
        v /= 100;
        end++;
    }
    if (*end || !(v >= 0 && v < 1e6))
        return -1;
    *out = v;
    return 0;
}

static void print_ranks(const struct lens_compare_finding *f)
{
    /* a link is a direction, sender first; other findings are sets */
    const char *sep = f->kind == LENS_COMPARE_LINK ? "->" : ",";
    for (int i = 0; i < f->nranks; i++)
        printf("%s%d", i ? sep : "", f->ranks[i]);
}

static void print_text(const struct lens_compare *c, double alpha, const char *base, const char *newer)
{
    /* one line that answers "did anything change?" with the numbers behind it: how many tests,
     * how many significant, at which BH threshold, so a "same" is seen to be a real check */
    /* with no significant test there is no threshold to quote ("p <= 0" read as a bug):
     * the false discovery rate the tests were held to is what was checked */
    char sig[96];
    if (c->significant > 0)
        snprintf(sig, sizeof sig, "%lld significant at p <= %.3g", c->significant, c->threshold);
    else
        snprintf(sig, sizeof sig, "none significant at false discovery rate %g", alpha);
    if (c->sweeps)
        printf("%s -> %s: %s (%d %s matched by %s, %lld tests, %s)\n", base, newer,
               lens_compare_verdict_name(c->verdict), c->procs / 2, lens_units_plural(c->procs / 2, "pair", "pairs"),
               c->matched_by_host ? "hosts" : "position", c->tests, sig);
    else
        printf("%s -> %s: %s (%d processes matched by %s, %d lengths, %lld tests, %s)\n",
               base, newer, lens_compare_verdict_name(c->verdict), c->procs,
               c->matched_by_host ? "host and local rank" : "rank number", c->nlen, c->tests, sig);
    /* the clustering line is shown also when nothing changed: equal group counts are the
     * evidence that no structure finding was missed for lack of a cut */
    /* which test gave the p-values: on the raw repeats when both runs stored them */
    printf("test: %s (%s)\n", lens_compare_test_name(c->test), lens_compare_test_describe(c->test));
    if (c->base_groups)
        printf("clustering at %d bytes: %d groups in BASE, %d in NEW\n", c->structure_length,
               c->base_groups, c->new_groups);
    if (c->nfind == 0)
        return;
    printf("\n%3s  %-9s  %-6s  %7s  %9s  %s\n", "#", "kind", "", "ratio", "p", "subject");
    for (int i = 0; i < c->nfind; i++) {
        const struct lens_compare_finding *f = &c->find[i];
        printf("%3d  %-9s  %-6s  %6.3fx  ", i + 1, lens_compare_kind_name(f->kind),
               f->direction > 0 ? "slower" : "faster", f->ratio);
        /* a structure finding has no test behind it: a dash, not a made-up number */
        if (isnan(f->p))
            printf("%9s  ", "-");
        else
            printf("%9.2g  ", f->p);
        /* the whole machine is every rank: naming them all says nothing */
        if (f->kind == LENS_COMPARE_MACHINE)
            printf("all %d ranks", f->nranks);
        else {
            printf("ranks ");
            print_ranks(f);
        }
        for (int h = 0; h < f->nhosts && f->kind != LENS_COMPARE_MACHINE; h++)
            printf("%s%s", h ? "," : " on ", f->hosts[h]);
        printf("; lengths");
        for (int k = 0; k < f->nlengths; k++)
            printf("%s%d", k ? "," : " ", f->lengths[k]);
        printf("\n");
    }
}

/* The layout of the issue first (verdict, matched_by, findings with kind, direction, ranks,
 * hosts, lengths, ratio, p), extensions after: added, never renamed. */
static void print_json(const struct lens_compare *c)
{
    struct lens_json j;
    lens_json_init(&j, stdout);
    lens_json_begin_object(&j);
    lens_json_key(&j, "verdict");
    lens_json_string(&j, lens_compare_verdict_name(c->verdict));
    lens_json_key(&j, "matched_by");
    lens_json_string(&j, c->matched_by_host ? "host" : "rank");
    lens_json_key(&j, "findings");
    lens_json_begin_array(&j);
    for (int i = 0; i < c->nfind; i++) {
        const struct lens_compare_finding *f = &c->find[i];
        lens_json_begin_object(&j);
        lens_json_key(&j, "kind");
        lens_json_string(&j, lens_compare_kind_name(f->kind));
        lens_json_key(&j, "direction");
        lens_json_string(&j, f->direction > 0 ? "slower" : "faster");
        lens_json_int_array(&j, "ranks", f->ranks, f->nranks);
        lens_json_key(&j, "hosts");
        lens_json_begin_array(&j);
        for (int h = 0; h < f->nhosts; h++)
            lens_json_string(&j, f->hosts[h]);
        lens_json_end_array(&j);
        lens_json_int_array(&j, "lengths", f->lengths, f->nlengths);
        lens_json_key(&j, "ratio");
        lens_json_number(&j, f->ratio);
        lens_json_key(&j, "p");
        lens_json_number(&j, f->p); /* NaN (structure: no test) prints null */
        /* extensions: BASE's numbering (equal to ranks unless matched by host in another
         * order) and the per-length numbers the scipy check in tests/test_compare.sh reads */
        lens_json_int_array(&j, "base_ranks", f->base_ranks, f->nranks);
        lens_json_key(&j, "per_length");
        lens_json_begin_array(&j);
        for (int k = 0; k < f->nlengths; k++) {
            lens_json_begin_object(&j);
            lens_json_key(&j, "length");
            lens_json_int(&j, f->lengths[k]);
            lens_json_key(&j, "ratio");
            lens_json_number(&j, f->len_ratio[k]);
            lens_json_key(&j, "p");
            lens_json_number(&j, f->len_p[k]);
            lens_json_end_object(&j);
        }
        lens_json_end_array(&j);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    /* what the verdict rests on, for scripts that track the comparison over time */
    lens_json_key(&j, "procs");
    lens_json_int(&j, c->procs);
    lens_json_key(&j, "test");
    lens_json_string(&j, lens_compare_test_name(c->test));
    lens_json_key(&j, "tests");
    lens_json_int(&j, c->tests);
    lens_json_key(&j, "significant");
    lens_json_int(&j, c->significant);
    lens_json_key(&j, "threshold");
    lens_json_number(&j, c->threshold);
    lens_json_key(&j, "base_groups");
    lens_json_int(&j, c->base_groups);
    lens_json_key(&j, "new_groups");
    lens_json_int(&j, c->new_groups);
    lens_json_end_object(&j);
    printf("\n");
}

int cmd_compare(int argc, char **argv)
{
    /* long-only options take codes above 255, where no short option letter can collide */
    enum { O_JSON = 256, O_MIN, O_ALPHA, O_FIGURES, O_TITLE };
    static const struct option opts[] = {{"json", no_argument, NULL, O_JSON},
                                         {"min-change", required_argument, NULL, O_MIN},
                                         {"alpha", required_argument, NULL, O_ALPHA},
                                         {"figures", required_argument, NULL, O_FIGURES},
                                         {"title", required_argument, NULL, O_TITLE},
                                         {"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    /* defaults from the analysis (10 %, alpha 0.01), so the library and the command agree */
    struct lens_compare_opts o;
    lens_compare_opts_default(&o);
    int json = 0, ch;
    const char *pdf = NULL, *figures = NULL, *title = NULL;
    char *end;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
        switch (ch) {
        case O_JSON: json = 1; break;
        /* 0 is allowed (every significant change counts); the bound only catches typos */
        case O_MIN:
            if (parse_change(optarg, &o.min_change) != 0)
                return lens_cli_usage("compare", "--min-change must be a share like 10%% or 0.1, not '%s'", optarg);
            break;
        /* alpha is a rate: 0 would find nothing and 1 everything */
        case O_ALPHA:
            o.alpha = strtod(optarg, &end);
            if (end == optarg || *end || !(o.alpha > 0 && o.alpha < 1))
                return lens_cli_usage("compare", "--alpha must be a number in (0, 1), not '%s'", optarg);
            break;
        case 'o': pdf = optarg; break;
        case O_FIGURES: figures = optarg; break;
        case O_TITLE: title = optarg; break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("compare", "unknown option");
        }
    }
    /* exactly two inputs: which one is the baseline decides "slower" or "faster" */
    if (optind != argc - 2)
        return lens_cli_usage("compare", "expected BASE and NEW, got %d argument%s", argc - optind,
                              argc - optind == 1 ? "" : "s");
    const char *base = argv[optind], *newer = argv[optind + 1];
    /* the figures are pages of the report: without it there is nothing to put them beside */
    if ((figures || title) && !pdf)
        return lens_cli_usage("compare", "--figures and --title go with -o FILE.pdf");
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_compare *c;
    /* two sweeps, or two cubes: a sweep has no matrix to put beside a cube's */
    int sb = lens_p2pfile_detect(base), sn = lens_p2pfile_detect(newer);
    if (sb != sn)
        return lens_cli_usage("compare", "%s is %s and %s is not: compare two cubes or two sweeps",
                              sb ? base : newer, "a p2p sweep", sb ? newer : base);
    /* the ratio map and histograms cost one more P x P matrix: computed only for the report */
    if ((sb ? lens_compare_sweeps(base, newer, &o, &c, &e)
            : pdf ? lens_compare_cubes_map(base, newer, &o, &c, &e) : lens_compare_cubes(base, newer, &o, &c, &e)) != LENS_OK)
        return lens_cli_fail(&e);
    if (pdf) {
        char datadir[4096];
        struct lens_compare_report_opts ro;
        lens_compare_report_opts_init(&ro);
        ro.title = title;
        ro.figures_dir = figures;
        ro.base = base;
        ro.newer = newer;
        ro.alpha = o.alpha;
        ro.min_change = o.min_change;
        /* the report is written before anything is printed: a failure prints its error alone */
        int rc = lens_report_datadir(datadir, sizeof datadir, &e) < 0 ? LENS_EIO : LENS_OK;
        ro.datadir = datadir;
        if (rc == LENS_OK)
            rc = lens_compare_report_write(&ro, c, pdf, &e);
        if (rc != LENS_OK) {
            lens_compare_free(c);
            return lens_cli_fail(&e);
        }
    }
    /* Status 0 whatever the verdict: the verdict is in the output, and a script that wants
     * to fail on a regression reads "verdict"; the readers' warnings go out only now, after
     * the analysis, so that a failing run prints its error alone */
    for (int w = 0; w < c->nwarn; w++)
        lens_cli_warn("%s", c->warnings[w]);
    if (json)
        print_json(c);
    else
        print_text(c, o.alpha, base, newer);
    lens_compare_free(c);
    return LENS_EXIT_OK;
}
