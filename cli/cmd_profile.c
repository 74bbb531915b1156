/* mpilens profile-clusters: ICAPPA on a profile (processes x functions, exclusive seconds):
 * the dominating functions, the processes where they cost most, and every round's clusters
 * and BIC, in words or as JSON (keys in docs/icappa.md). */
#include "cli.h"
#include "common/atomic.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/profile/profile.h"
#include "render/fig/fig.h"
#include "render/doc/doc.h"

LENS_COMMAND(profile_clusters, "dominating functions and costly processes of a profile (ICAPPA)");

static void help(void)
{
    printf("usage: mpilens profile-clusters INPUT [--json] [--seed N] [--restarts N] [--plots DIR [--svg]]\n"
           "                                [--preprocess pca|threshold=P%%] [--converge each|costlier]\n"
           "                                [--process-attrs dominating|all]\n"
           "                                [--profile-csv FILE] [--report OUT.pdf [--title TEXT]]\n\n"
           "Finds the functions that dominate the run time and the processes where they cost\n"
           "most by iterative 2-means clustering (ICAPPA): PCA drops low-variance attributes,\n"
           "k-means++ splits, the X-means BIC and the 5%% / 80%% criteria decide whether to\n"
           "recurse into the costlier cluster.\n\n"
           "INPUT is a CSV file of lines 'process,function,seconds' (exclusive time), or an OTF2\n"
           "trace (traces.otf2 or its directory, from mpilens trace or Score-P): the exclusive\n"
           "time of every region (MPI and user functions) on every rank, or a TAU profile\n"
           "directory (profile.N.C.T files; the threads of node N are summed into process N).\n\n"
           "options:\n"
           "  --json          print one JSON object (keys in docs/icappa.md)\n"
           "  --seed N        seed of the k-means++ generator (default 20231)\n"
           "  --restarts N    k-means++ restarts per round, best inertia wins (default 10)\n"
           "  --preprocess pca|threshold=P%%\n"
           "                  drop low-variance attributes by PCA (default), or keep an attribute\n"
           "                  when its values differ by at least P%% over the points (few attributes)\n"
           "  --converge each|costlier\n"
           "                  stop when each cluster has converged (80%% of its points within 5%%,\n"
           "                  default, as Zhu, Li and Li) or when the costlier one has\n"
           "  --process-attrs dominating|all\n"
           "                  cluster processes on the dominating functions (default) or on every\n"
           "                  function (the paper's D_p; it can follow noise in minor functions)\n"
           "  --plots DIR     write DIR/round<K>_bars.png (cost per cluster of each round) and\n"
           "                  DIR/pca_scatter.png (processes on two principal components) and\n"
           "                  DIR/distribution.png (box plots of the dominating functions per cluster)\n"
           "  --svg           with --plots: SVG instead of PNG\n"
           "  --profile-csv FILE  also write the profile read (CSV, '-' for stdout)\n"
           "  --report OUT.pdf    also write the PDF report \"Where the time goes\" (layout and\n"
           "                  texts: templates/profile_report.tmpl; SOURCE_DATE_EPOCH fixes the date)\n"
           "  --title TEXT    with --report: the report's title\n"
           "  -h, --help      this text\n\n"
           "example:\n"
           "  mpilens profile-clusters samples/profiles/halo64.csv --json\n"
           "  mpilens profile-clusters mpilens-trace/traces.otf2 --report where.pdf\n"
           "  mpilens profile-clusters samples/profiles/tau16 --plots figs\n");
}

/* A whole decimal number in [0, max]. A leading '-' is refused here because strtoull would
 * wrap "-1" to a huge count instead of failing. */
static int parse_count(const char *s, unsigned long max, unsigned long *v)
{
    char *end;
    if (!*s || *s == '-')
        return -1;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || x > max)
        return -1;
    *v = (unsigned long)x;
    return 0;
}

/* One bar chart per round and the PCA scatter, into dir. */
static int write_plots(const struct lens_profile *p, const struct lens_icappa *r, const char *dir,
                       const char *ext, struct lens_err *e)
{
    char path[4096], *where = NULL; /* a new folder appears whole with the other outputs */
    /* a new DIR is made under a temporary name that main.c renames on success (common/atomic.h) */
    int rc = lens_atomic_dir(dir, &where, e);
    /* rounds are numbered from 1 in the file names: round1 is the first split */
    for (size_t k = 0; rc == LENS_OK && k < r->nrounds; k++) {
        snprintf(path, sizeof path, "%s/round%zu_bars.%s", where, k + 1, ext);
        rc = lens_profile_plot_bars(p, r, k, path, lens_cli_font(), e);
    }
    /* the scatter needs two processes and at most 4096 functions (render/fig/profile_plot.h):
     * outside that it is left out rather than failing the bars already drawn */
    if (rc == LENS_OK && p->nproc >= 2 && p->nfunc <= 4096) {
        snprintf(path, sizeof path, "%s/pca_scatter.%s", where, ext);
        rc = lens_profile_plot_scatter(p, r, path, lens_cli_font(), e);
    }
    /* the box plots per process cluster: numbers from analysis, the figure only draws them */
    if (rc == LENS_OK && r->ndom) {
        struct lens_icappa_dist *d = NULL;
        rc = lens_icappa_dist_build(p, r, &d, e);
        snprintf(path, sizeof path, "%s/distribution.%s", where, ext);
        if (rc == LENS_OK)
            rc = lens_profile_plot_distribution(p, d, path, lens_cli_font(), e);
        lens_icappa_dist_free(d);
    }
    lens_free(where);
    return rc;
}

/* The PDF "Where the time goes" (render/doc/profile_report.h), fonts and template from the data
 * directory that `mpilens report` uses. */
static int write_report(const struct lens_profile *p, const struct lens_icappa *r, const char *in,
                        const char *out, const char *title, struct lens_err *e)
{
    char datadir[4096];
    /* no data directory means no fonts or template: a failure naming where it looked */
    int rc = lens_report_datadir(datadir, sizeof datadir, e);
    if (rc != LENS_OK)
        return rc;
    struct lens_profile_report_opts o;
    lens_profile_report_opts_init(&o);
    o.datadir = datadir;
    o.input = in;
    o.title = title;
    /* the box plots' numbers come from analysis; the report only lays them out */
    struct lens_icappa_dist *d = NULL;
    if (r->ndom && (rc = lens_icappa_dist_build(p, r, &d, e)) != LENS_OK)
        return rc;
    o.dist = d;
    rc = lens_profile_report_write(&o, p, r, out, e);
    lens_icappa_dist_free(d);
    return rc;
}

int cmd_profile_clusters(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"seed", required_argument, NULL, 's'},
        {"restarts", required_argument, NULL, 'r'},
        {"preprocess", required_argument, NULL, 'P'},
        {"converge", required_argument, NULL, 'C'},
        {"process-attrs", required_argument, NULL, 'A'},
        {"plots", required_argument, NULL, 'p'},
        {"svg", no_argument, NULL, 'g'},
        {"profile-csv", required_argument, NULL, 'c'},
        {"report", required_argument, NULL, 'R'},
        {"title", required_argument, NULL, 't'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *cmd = "profile-clusters";
    /* The defaults (lens_icappa_opts_default): seed 20231 and 10 restarts, fixed so that two
     * runs on one profile give the same clusters and the same report. */
    struct lens_icappa_opts o;
    lens_icappa_opts_default(&o);
    int json = 0, svg = 0, c;
    const char *plots = NULL, *profile_csv = NULL, *report = NULL, *title = NULL;
    unsigned long v;
    optind = 1;
    /* getopt's own message would name only argv[0]; ours says `mpilens profile-clusters` and
     * points to its --help */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 's':
            /* the generator takes a 32-bit seed; larger ones would be cut silently */
            if (parse_count(optarg, 0xffffffffUL, &v))
                return lens_cli_usage(cmd, "--seed wants an integer 0..4294967295, got '%s'", optarg);
            o.seed = v;
            break;
        case 'r':
            /* at least one run of k-means; the cap of 1000 keeps a typo from running for hours */
            if (parse_count(optarg, 1000, &v) || v < 1)
                return lens_cli_usage(cmd, "--restarts wants an integer 1..1000, got '%s'", optarg);
            o.restarts = (int)v;
            break;
        case 'P': {
            char *end;
            double t;
            if (!strcmp(optarg, "pca")) {
                o.threshold = 0;
            } else if (!strncmp(optarg, "threshold=", 10) && (t = strtod(optarg + 10, &end)) > 0 && t < 100 &&
                       end != optarg + 10 && (!strcmp(end, "%") || !*end)) {
                o.threshold = t / 100; /* "5%" and "5" both mean five per cent */
            } else {
                return lens_cli_usage(cmd, "--preprocess wants pca or threshold=P%% (0 < P < 100), got '%s'", optarg);
            }
            break;
        }
        case 'C':
            if (!strcmp(optarg, "each") || !strcmp(optarg, "costlier"))
                o.converge = !strcmp(optarg, "each") ? LENS_ICAPPA_CONVERGE_EACH : LENS_ICAPPA_CONVERGE_COSTLIER;
            else
                return lens_cli_usage(cmd, "--converge wants each or costlier, got '%s'", optarg);
            break;
        case 'A':
            if (!strcmp(optarg, "all") || !strcmp(optarg, "dominating"))
                o.process_attrs = !strcmp(optarg, "all") ? LENS_ICAPPA_ATTRS_ALL : LENS_ICAPPA_ATTRS_DOMINATING;
            else
                return lens_cli_usage(cmd, "--process-attrs wants dominating or all, got '%s'", optarg);
            break;
        case 'p':
            plots = optarg;
            break;
        case 'g':
            svg = 1;
            break;
        case 'c':
            profile_csv = optarg;
            break;
        case 'R':
            report = optarg;
            break;
        case 't':
            title = optarg;
            break;
        case 'h':
            help();
            return LENS_EXIT_OK;
        default:
            return lens_cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    /* Options that modify another one are refused alone (status 2): ignoring them would make
     * the user believe they took effect. */
    if (svg && !plots)
        return lens_cli_usage(cmd, "--svg needs --plots DIR");
    if (title && !report)
        return lens_cli_usage(cmd, "--title needs --report OUT.pdf");
    if (optind != argc - 1)
        return lens_cli_usage(cmd, optind == argc ? "missing INPUT" : "more than one INPUT");
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_profile *p = NULL;
    struct lens_icappa *r = NULL;
    const char *in = argv[optind];
    /* the input's kind is told by its content (a folder with traces.otf2 or the anchor's
     * magic bytes; a folder with TAU's profile.0.0.0), not by its name: anything else is read as CSV, whose errors name lines */
    int rc = lens_profile_otf2_detect(in)  ? lens_profile_otf2_read(in, &p, &e)
             : lens_profile_tau_detect(in) ? lens_profile_read_tau(in, &p, &e)
                                           : lens_profile_read_csv(in, &p, &e);
    /* the profile as read (from a CSV or a trace) for other tools; '-' puts it on stdout */
    if (rc == LENS_OK && profile_csv)
        rc = lens_profile_write_csv(p, profile_csv, &e);
    if (rc == LENS_OK)
        rc = lens_icappa_run(p, &o, &r, &e);
    if (rc == LENS_OK && plots)
        rc = write_plots(p, r, plots, svg ? "svg" : "png", &e);
    /* every file before the listing: a failed file leaves stdout empty */
    if (rc == LENS_OK && report)
        rc = write_report(p, r, in, report, title, &e);
    if (rc == LENS_OK)
        rc = json ? lens_icappa_write_json(r, p, stdout, &e) : lens_icappa_write_text(r, p, stdout, &e);
    /* the prose summary follows the table in text mode only: JSON must stay one object */
    if (rc == LENS_OK && !json)
        rc = lens_icappa_write_prose(r, p, stdout, &e);
    lens_icappa_free(r);
    lens_profile_free(p);
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
