/* mpilens report: reads one or more latency cubes and point-to-point sweeps and writes the
 * PDF report through render/doc/report.c. What an INPUT is comes from the table `kinds` below:
 * a cube when a row of the cube reader table recognises it (network_test2 NetCDF, packed
 * cube), a p2p sweep when it is a *_p2p.nc or *_p2p.csv file or a PREFIX with PREFIX_p2p.nc
 * or PREFIX_p2p.csv, a bisection run when it is a *_bisection.csv or a PREFIX with one; a
 * PREFIX that holds several gives each. A cube's PREFIX_retest.csv is read with it. */
#include "cli.h"

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"
#include "common/units.h"
#include "render/doc/doc.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

LENS_COMMAND(report, "write a PDF report of latency cubes (structure, anomalies, heatmaps) and p2p sweeps");

static void help(void)
{
    printf("usage: mpilens report INPUT... -o REPORT.pdf [options]\n\n"
           "Writes a PDF report of latency cubes and point-to-point sweeps. Page one is the answer:\n"
           "per cube what was measured, the key numbers, the data-quality gate's verdict, the\n"
           "findings and what to do next. Then the parameters; per cube a table per message length\n"
           "(min, median, max, slowest pair), the gate, and when the cube passes it the structure of\n"
           "the machine (process groups against hosts, link clusters) and the ranked anomalies,\n"
           "heatmaps for the first, middle and last length and the data-quality warnings; per sweep\n"
           "log-log plots of latency, bandwidth and message rate with tables; the references.\n"
           "A cube INPUT is a prefix (dir/network), a directory holding one result, a\n"
           "*_median.nc file, or a packed cube of 'mpilens compress'; a sweep is the -f PREFIX\n"
           "of mpilens-bench -t p2p (PREFIX_p2p.nc or PREFIX_p2p.csv exists) or one of those\n"
           "files; a bisection run is the -f PREFIX of mpilens-bench -t bisection\n"
           "(PREFIX_bisection.csv, with PREFIX_bisection.nc when present) or the CSV; an OTF2\n"
           "trace is refused with the command that reports on it. A cube with\n"
           "PREFIX_retest.csv beside it (mpilens-bench --retest) gets a Retests section.\n\n"
           "options:\n"
           "  -o, --output FILE       the PDF to write (required)\n"
           "      --figures DIR       also write every figure as PNG and SVG into DIR:\n"
           "                          heatmap_<stat>_<length>B, dendrogram, structure_heatmap,\n"
           "                          nj_tree, link_clusters, link_curves (cubes),\n"
           "                          p2p_latency, p2p_bandwidth, p2p_msg_rate (sweeps),\n"
           "                          bisection (bisection runs);\n"
           "                          prefixed input<k>_ when there are several inputs\n"
           "      --title TEXT        report title (UTF-8)\n"
           "      --lengths A,B,...   message lengths in bytes to draw (nearest present length)\n"
           "      --stat NAME         median (default), average, min or deviation\n"
           "      --own-range         each length's heatmap on its own linear colour range\n"
           "                          (default: one log range per cube, its 0.5-99.5th\n"
           "                          percentiles, so colours compare across lengths)\n"
           "      --template FILE     layout and texts (default: templates/report.tmpl)\n"
           "      --label TEXT        what headings, bookmarks and the running header call an\n"
           "                          INPUT; repeat once per INPUT, in order (default: the\n"
           "                          prefix's folder and name, e.g. synth32/network)\n"
           "      --cores N           cores per host, for the data-quality gate's oversubscription\n"
           "                          check (default: the cube's recorded cores_per_host)\n"
           "  -h, --help              show this help\n\n"
           "Fonts and templates are looked up next to the program; set MPILENS_DATADIR to the\n"
           "directory holding fonts/ and templates/ to override. With SOURCE_DATE_EPOCH set the\n"
           "PDF is byte-identical across runs.\n\n"
           "example:\n"
           "  mpilens report tests/data/network-tests2/one_to_one_np4/network -o out/report.pdf \\\n"
           "      --figures out/figures --title 'Кластер vm: one_to_one'\n"
           "  mpilens report samples/cubes/synth32/network out/demo/live/pair -o out/both.pdf\n");
}

/* whether s ends with tail; names, not contents, decide the cheap probes below */
static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

/* Whether input names a p2p sweep (see the file comment). */
static int is_p2p(const char *input)
{
    /* A file named like mpilens-bench's sweep output, or a -f PREFIX that has one: the same PREFIX
     * may also hold a cube, and then both kinds load. */
    if (ends_with(input, "_p2p.nc") || ends_with(input, "_p2p.csv"))
        return 1;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s_p2p.nc", input);
    if (access(path, F_OK) == 0)
        return 1;
    snprintf(path, sizeof path, "%s_p2p.csv", input);
    return access(path, F_OK) == 0;
}

/* An OTF2 trace: the anchor file or the folder holding traces.otf2. */
static int is_trace(const char *input)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/traces.otf2", input);
    /* Recognised only to refuse it with the right command: a trace folder holds no cube files, and
     * the cube reader would say "no such file", which misleads. */
    return ends_with(input, ".otf2") || access(path, F_OK) == 0;
}

static int load_cube(const char *name, struct lens_report_input *in, struct lens_err *e)
{
    struct lens_cube *c;
    /* Every statistic is read: the report may be asked for any of them (--stat), and the parameters
     * page lists those present. */
    int rc = lens_cube_read(name, &c, e);
    if (rc != LENS_OK)
        return rc;
    in->cube = c;
    /* the provenance attributes for page one; the report owns nothing, unload() frees them */
    struct lens_cube_provenance *p = lens_calloc(1, sizeof *p);
    if (!p)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", name);
    if ((rc = lens_cube_attr_provenance(c, p, e)) != LENS_OK) {
        lens_free(p);
        return rc;
    }
    in->prov = p;
    /* The repairs the reader made are printed now, as every command that reads a cube does; the
     * quality section shows them again in the PDF. */
    for (int w = 0; w < c->nwarn; w++)
        lens_cli_warn("%s", c->warnings[w]);
    return LENS_OK;
}

/* A bisection run, with the .nc's flows and nodes when it is beside the CSV: everything the
 * section shows is computed here, before drawing. */
static int load_bisection(const char *name, struct lens_report_input *in, struct lens_err *e)
{
    struct lens_bisection_detail *d;
    int rc = lens_bisection_detail_read(name, &d, e);
    in->bisection = rc == LENS_OK ? d : NULL;
    return rc;
}

static int load_sweep(const char *name, struct lens_report_input *in, struct lens_err *e)
{
    struct lens_p2pfile *p;
    int rc = lens_p2pfile_read(name, &p, e);
    in->p2p = rc == LENS_OK ? p : NULL; /* NULL on failure: unload() frees nothing it does not own */
    return rc;
}

/* A trace has its own report: say which instead of looking for a cube in it. */
static int load_trace(const char *name, struct lens_report_input *in, struct lens_err *e)
{
    (void)in; /* nothing is loaded: the error is the whole point of this row */
    return lens_err_set(e, LENS_EINVAL, "%s: an OTF2 trace; 'mpilens problems %s -o REPORT.pdf' writes "
                        "its report", name, name);
}

/* The kinds of INPUT, tried in order on every argument; every kind whose probe accepts it is
 * loaded. An argument no probe accepts is read as a cube (the first row), whose messages say
 * which file is missing. */
static const struct input_kind {
    const char *name;
    int (*probe)(const char *input);
    int (*load)(const char *input, struct lens_report_input *in, struct lens_err *e);
} kinds[] = {
    {"cube", lens_cube_probe, load_cube},
    {"p2p sweep", is_p2p, load_sweep},
    {"bisection run", lens_bisection_probe, load_bisection},
    {"trace", is_trace, load_trace},
};
#define NKINDS ((int)(sizeof kinds / sizeof *kinds))

/* The inputs hold const pointers (the report only reads them); this command made them, so it casts
 * back to free them. */
static void unload(struct lens_report_input *in)
{
    lens_cube_free((struct lens_cube *)in->cube);
    if (in->prov)
        lens_cube_attr_provenance_release((struct lens_cube_provenance *)in->prov);
    lens_free((void *)in->prov);
    lens_free((void *)in->label);
    lens_p2pfile_free((struct lens_p2pfile *)in->p2p);
    lens_bisection_detail_free((struct lens_bisection_detail *)in->bisection);
}

/* What a cube's retests own until the report is written. */
struct retest_hold {
    struct lens_retest *rt;
    struct lens_report_retest x;
    signed char *finding;
};

static void retest_release(struct retest_hold *h)
{
    lens_retest_free(h->rt);
    lens_retest_summary_release(&h->x.s);
    lens_free(h->finding);
}

/* The retest verdict of each anomaly, as `mpilens anomalies` gives it: only a bad link and
 * the slow direction of an asymmetric pair are one cell (ranks[0] -> ranks[1]); a bad link
 * "a <-> b" (both directions slow) takes either; a slow node or a structure change is many
 * cells and never one retest (-1). */
static int retest_findings(struct retest_hold *h, const struct lens_anomalies *an, struct lens_err *e)
{
    if (!an || an->n == 0)
        return LENS_OK;
    h->finding = lens_malloc((size_t)an->n);
    if (!h->finding)
        return lens_err_set(e, LENS_ENOMEM, "report: out of memory");
    for (int i = 0; i < an->n; i++) {
        h->finding[i] = (signed char)lens_anomaly_retest_verdict(h->rt, &an->items[i]);
    }
    h->x.finding = h->finding;
    return LENS_OK;
}

/* PREFIX_retest.csv beside the cube of in, with its counts and the verdicts on the cube's
 * findings; in->retest stays NULL without one (the report then has no Retests section). */
static int load_retest(struct lens_report_input *in, struct retest_hold *h, struct lens_err *e)
{
    if (!in->cube->source)
        return LENS_OK;
    int rc = lens_retest_beside(in->cube->source, &h->rt, e);
    if (rc != LENS_OK || !h->rt)
        return rc;
    h->x.rt = h->rt;
    rc = lens_retest_summarise(h->rt, &h->x.s, e);
    if (rc == LENS_OK)
        rc = retest_findings(h, in->results->st.an, e);
    if (rc == LENS_OK)
        in->retest = &h->x;
    return rc;
}

/* Parses "512,4096,65536" into a lens_malloc'd array. */
static int parse_lengths(const char *s, int **out, int *n)
{
    int cap = 1;
    for (const char *p = s; *p; p++) /* one more value than commas: an upper bound, checked while parsing */
        cap += *p == ',';
    int *v = lens_malloc((size_t)cap * sizeof *v);
    if (!v)
        return -1;
    *n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        long x = strtol(p, &end, 10);
        /* A length is a byte count: no sign, no fraction, no trailing text; "512,,4096" and "512,"
         * fail here too (an empty field has no digits). */
        if (end == p || x < 0 || x > INT_MAX || (*end && *end != ',')) {
            lens_free(v);
            return -1;
        }
        v[(*n)++] = (int)x;
        p = *end ? end + 1 : end;
    }
    if (*n == 0) {
        lens_free(v);
        return -1;
    }
    *out = v;
    return 0;
}

/* Values read for the heat range at most: a sample this size fixes the percentiles well enough
 * and bounds the selection's scratch for a large cube (P = 1024, 20 lengths would be 20 M values). */
#define HEAT_SAMPLE (1u << 20)

/* The colour range that every per-length heatmap of c shares (issue 14, item 8): the 0.5th to
 * the 99.5th percentile of the statistic's off-diagonal positive cells over all lengths, so one
 * outlying cell (a retried message, a spike) neither stretches the range of every length nor,
 * drawn in the end colour, hides in it. Seconds into *lo, *hi; both 0 when the cube has too
 * few distinct values (the report then keeps each length's own range). LENS_ENOMEM. */
static int heat_range(const struct lens_cube *c, int stat, double *lo, double *hi,
                      struct lens_err *e)
{
    *lo = *hi = 0;
    const double *d = c->data[stat];
    size_t P = (size_t)c->procs, n = (size_t)c->nlen * P * P;
    if (!d || n == 0)
        return LENS_OK;
    size_t stride = n / HEAT_SAMPLE + 1, m = 0; /* every stride-th cell: deterministic */
    double *v = lens_malloc((n / stride + 1) * sizeof *v);
    if (!v)
        return lens_err_set(e, LENS_ENOMEM, "report: out of memory for the heatmap range");
    for (size_t x = 0; x < n; x += stride) {
        size_t i = x / P % P, j = x % P;
        /* the diagonal is no measurement (the heatmaps hide it); log scale needs > 0 */
        if (i != j && isfinite(d[x]) && d[x] > 0)
            v[m++] = d[x];
    }
    if (m >= 2) {
        /* two ranks by selection, not a sort of up to 2^20 values (issue 13) */
        lens_cube_select_pair(v, m, (size_t)floor(0.005 * (double)(m - 1)), (size_t)ceil(0.995 * (double)(m - 1)),
                              lo, hi);
        if (!(*hi > *lo)) { /* a flat cube: the whole range, or none */
            double mn = v[0], mx = v[0];
            for (size_t i = 1; i < m; i++) {
                mn = v[i] < mn ? v[i] : mn;
                mx = v[i] > mx ? v[i] : mx;
            }
            *lo = mn;
            *hi = mx > mn ? mx : 0;
        }
    }
    lens_free(v);
    return LENS_OK;
}

int cmd_report(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"figures", required_argument, NULL, 'f'},
        {"title", required_argument, NULL, 't'},  {"lengths", required_argument, NULL, 'l'},
        {"stat", required_argument, NULL, 's'},   {"template", required_argument, NULL, 'T'},
        {"cores", required_argument, NULL, 'c'},  {"label", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},        {"own-range", no_argument, NULL, 'R'},
        {NULL, 0, NULL, 0}};
    struct lens_report_opts o;
    lens_report_opts_init(&o);
    struct lens_quality_opts qopts;
    lens_quality_opts_default(&qopts);
    const char *output = NULL;
    int *lengths = NULL, c, own_range = 0, nlabels = 0;
    /* at most one --label per argument; argc bounds the count */
    const char **labels = lens_calloc((size_t)argc, sizeof *labels);
    if (!labels) {
        struct lens_err oom;
        lens_err_set(&oom, LENS_ENOMEM, "report: out of memory");
        return lens_cli_fail(&oom);
    }
    opterr = 0; /* getopt stays quiet: lens_cli_usage prints the one message, with the command's name */
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'f': o.figures_dir = optarg; break;
        case 'R': own_range = 1; break;
        case 't': o.title = optarg; break;
        case 'T': o.template_path = optarg; break;
        case 'L': labels[nlabels++] = optarg; break;
        case 'l':
            lens_free(lengths);
            lengths = NULL;
            /* the last --lengths wins, like any repeated option */
            if (parse_lengths(optarg, &lengths, &o.nlengths) != 0) {
                lens_free(labels);
                return lens_cli_usage("report", "--lengths wants byte counts like 512,4096, got '%s'", optarg);
            }
            o.lengths = lengths;
            break;
        case 's':
            o.stat = lens_cube_stat_parse(optarg);
            if (o.stat < 0) {
                lens_free(lengths);
                lens_free(labels);
                return lens_cli_usage("report", "unknown statistic '%s' (average, median, deviation, min)", optarg);
            }
            break;
        case 'c': {
            char *end;
            long v = strtol(optarg, &end, 10);
            /* cores per host for the data-quality gate, for cubes that record none (network_test2)
             * or to override mpilens-bench's cores_per_host (rank 0's node only) */
            if (end == optarg || *end || v < 1 || v > 1000000) {
                lens_free(lengths);
                lens_free(labels);
                return lens_cli_usage("report", "--cores wants a positive core count per host, got '%s'", optarg);
            }
            qopts.cores = (int)v;
            qopts.cores_source = LENS_QUALITY_CORES_OPTION;
            break;
        }
        case 'h':
            lens_free(lengths);
            lens_free(labels);
            help();
            return LENS_EXIT_OK;
        default:
            lens_free(lengths);
            lens_free(labels);
            return lens_cli_usage("report", "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (!output || optind >= argc || nlabels > argc - optind) {
        lens_free(lengths);
        lens_free(labels);
        if (output && optind < argc) {
            char ni[48];
            lens_units_count(argc - optind, "INPUT", "INPUTs", ni, sizeof ni);
            return lens_cli_usage("report", "%d --label for %s: give at most one per INPUT, in order",
                                  nlabels, ni);
        }
        return lens_cli_usage("report", "%s", !output ? "missing -o REPORT.pdf" : "missing INPUT");
    }
    struct lens_err e;
    lens_err_clear(&e);
    char datadir[PATH_MAX];
    /* Fonts and templates first: without them no report can be drawn, and the inputs (possibly
     * large cubes) need not be read to find that out. */
    if (lens_report_datadir(datadir, sizeof datadir, &e) != LENS_OK) {
        lens_free(lengths);
        lens_free(labels);
        return lens_cli_fail(&e);
    }
    o.datadir = datadir;
    int nargs = argc - optind, nin = 0, rc = LENS_OK;
    /* an argument may be several kinds of input (a prefix holding a cube and a sweep) */
    struct lens_report_input *in = lens_calloc((size_t)nargs * NKINDS, sizeof *in);
    if (!in)
        rc = lens_err_set(&e, LENS_ENOMEM, "out of memory");
    for (int i = 0; i < nargs && rc == LENS_OK; i++) {
        const char *name = argv[optind + i];
        int any = 0;
        /* Every kind whose probe accepts the argument is loaded, in table order, so the inputs
         * appear in the report in command-line order, a cube before the sweep of the same PREFIX. */
        for (int k = 0; k <= NKINDS && rc == LENS_OK; k++) {
            /* k == NKINDS: no kind took it, so it is read as a cube for the message */
            if (k < NKINDS ? !kinds[k].probe(name) : any)
                continue;
            any = 1;
            in[nin].name = name;
            /* the label is the input's own copy, freed by unload() with the rest; without
             * one the report calls the input by the end of its path (lens_report_label) */
            if (i < nlabels && !(in[nin].label = lens_strdup(labels[i])))
                rc = lens_err_set(&e, LENS_ENOMEM, "out of memory");
            if (rc == LENS_OK)
                rc = kinds[k < NKINDS ? k : 0].load(name, &in[nin], &e);
            if (rc != LENS_OK)
                unload(&in[nin]); /* what the failed load took, and the label */
            nin += rc == LENS_OK;
        }
    }
    /* The results are computed here, once per cube and before anything is drawn, so that the
     * document only lays them out; the template says which structure parts it shows. */
    unsigned parts = 0;
    struct lens_structure_report *res = NULL;
    struct retest_hold *hold = NULL;
    if (rc == LENS_OK)
        /* The template is read and checked before any clustering: a typo in --template costs
         * nothing, and a template without the structure sections asks for no structure at all. */
        rc = lens_report_parts(&o, in, nin, &parts, &e);
    /* zeroed: releasing an entry that was never run (a sweep, a failure) does nothing */
    if (rc == LENS_OK && (!(res = lens_calloc((size_t)nin, sizeof *res)) ||
                          !(hold = lens_calloc((size_t)nin, sizeof *hold))))
        rc = lens_err_set(&e, LENS_ENOMEM, "report: out of memory");
    for (int i = 0; i < nin && rc == LENS_OK; i++) {
        if (!in[i].cube)
            continue; /* a sweep is laid out as read: it has no results to compute */
        /* the data-quality gate decides whether the structure parts are computed at all; a
         * cube's recorded cores per host tell it about oversubscription unless --cores did */
        struct lens_quality_opts qo = qopts;
        if (in[i].prov)
            lens_quality_opts_recorded(&qo, in[i].prov->cores_per_host);
        rc = lens_structure_report_run_gated(in[i].cube, o.stat, parts, &qo, &res[i], &e);
        if (rc == LENS_OK)
            in[i].results = &res[i];
        /* one colour range for all the cube's heatmaps, unless --own-range asks for the old
         * per-length ranges */
        if (rc == LENS_OK && !own_range)
            rc = heat_range(in[i].cube, o.stat, &in[i].heat_lo, &in[i].heat_hi, &e);
        /* the retests after the results: their verdicts are about the cube's findings */
        if (rc == LENS_OK)
            rc = load_retest(&in[i], &hold[i], &e);
        if (rc != LENS_OK)
            lens_err_prefix(&e, in[i].name); /* with several cubes, say which one failed */
    }
    if (rc == LENS_OK)
        /* the document only lays out what it is handed; it writes nothing on failure */
        rc = lens_report_write(&o, in, nin, output, &e);
    for (int i = 0; res && i < nin; i++)
        lens_structure_report_release(&res[i]);
    lens_free(res);
    for (int i = 0; hold && i < nin; i++)
        retest_release(&hold[i]);
    lens_free(hold);
    for (int i = 0; i < nin; i++)
        unload(&in[i]);
    lens_free(in);
    lens_free(lengths);
    lens_free(labels);
    if (rc != LENS_OK)
        return lens_cli_fail(&e);
    /* on stderr: stdout stays free for whatever a script pipes */
    fprintf(stderr, "mpilens: wrote %s\n", output);
    return LENS_EXIT_OK;
}
