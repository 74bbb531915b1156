/* mpilens links: divisive clustering of the links (ordered pairs of processes) of a latency
 * cube by their whole latency-against-length curves; per link a cluster, per cluster its
 * size, diameter and mean curve. */
#include "cli.h"
#include "common/atomic.h"

#include "analysis/structure/structure.h"
#include "render/fig/fig.h"
#include "common/json.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LENS_COMMAND(links, "cluster the links of a cube by their latency curves (divisive, scree stop)");

static void help(void)
{
    printf("usage: mpilens links [options] INPUT\n\n"
           "Clusters the P(P-1) links (row, column) of a latency cube, the diagonal left out, by\n"
           "their mean-delay curves over all lengths, weighted by the variances (deviation^2,\n"
           "each deviation floored at max(0.001 x mean, 1 ns)). Splits top-down, larger diameter\n"
           "first, and stops at the elbow of the diameters (scree rule in docs/links.md).\n\n"
           "options:\n"
           "  --csv FILE        per link: row,col,cluster\n"
           "  --clusters FILE   per cluster: cluster,size,diameter,same_host,mean_<length>...\n"
           "  --json            print the result as JSON (with the P x P label matrix)\n"
           "  --plot FILE       the P x P map coloured by link cluster, .png or .svg\n"
           "  --curves FILE     mean delay against length per cluster, same colours, .png or .svg\n"
           "  -k, --k K         cut at K clusters instead of the scree elbow\n"
           "  --max-splits N    longest diameter sequence for the scree (default 64)\n"
           "  --threads N       worker threads (default 2; the result does not depend on it)\n"
           "  --method M        divisive (default), or also cluster the links agglomeratively with\n"
           "                    single, complete, average, weighted or ward linkage on the same\n"
           "                    distance, cut at the divisive number of clusters, and print the\n"
           "                    adjusted Rand index between the two (JSON: ari, agglo_labels;\n"
           "                    --csv gains an agglo column). Needs L(L-1)/2 x 8 bytes for L links\n"
           "  --max-matrix-mb N refuse --method above N MiB for that matrix (default 256)\n"
           "  -h, --help        show this help\n\n"
           "example:\n"
           "  mpilens links samples/cubes/synth32/network --csv links.csv --clusters clusters.csv\n"
           "  mpilens links samples/cubes/synth32/network --plot links.png --curves curves.svg\n");
}

/* An int in [lo, hi], the whole argument; -1 otherwise (the caller names the option). */
static int parse_int(const char *s, int lo, int hi, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}

/* Whether a picture name has an extension the writers know. */
static int picture_name(const char *s)
{
    /* n > 4: ".png" alone names no file */
    size_t n = strlen(s);
    return n > 4 && (!strcmp(s + n - 4, ".png") || !strcmp(s + n - 4, ".svg"));
}

/* row,col,cluster for every ordered pair off the diagonal (docs/links.md), in row-major
 * order so that two runs compare with diff. Through the atomic writer: see cmd_links. */
static int write_links(const char *path, const struct lens_links *r, struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc != LENS_OK)
        return rc;
    int P = r->procs;
    /* the agglo column only when asked for: the divisive file stays as it was */
    fprintf(a.fp, "row,col,cluster%s\n", r->agglo_label ? ",agglo" : "");
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            if (i == j)
                continue;
            fprintf(a.fp, "%d,%d,%d", i, j, r->label[(size_t)i * P + j]);
            if (r->agglo_label)
                fprintf(a.fp, ",%d", r->agglo_label[(size_t)i * P + j]);
            fputc('\n', a.fp);
        }
    return lens_atomic_commit(&a, e);
}

/* One line per cluster; same_host is NA when the cube names no hosts (docs/links.md), so that
 * a spreadsheet sees "unknown", not a share of 0. %.9g: nine digits, far below the noise. */
static int write_clusters(const char *path, const struct lens_links *r, struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc != LENS_OK)
        return rc;
    /* one mean_<bytes> column per length, so the header says the length of each mean */
    fprintf(a.fp, "cluster,size,diameter,same_host");
    for (int l = 0; l < r->nlen; l++)
        fprintf(a.fp, ",mean_%d", r->lengths[l]);
    fputc('\n', a.fp);
    for (int u = 0; u < r->k; u++) {
        const struct lens_links_cluster *cl = &r->clusters[u];
        fprintf(a.fp, "%d,%ld,%.9g,", cl->id, cl->size, cl->diameter);
        if (isnan(cl->same_host))
            fputs("NA", a.fp);
        else
            fprintf(a.fp, "%.6g", cl->same_host);
        for (int l = 0; l < r->nlen; l++)
            fprintf(a.fp, ",%.9g", cl->mean[l]);
        fputc('\n', a.fp);
    }
    return lens_atomic_commit(&a, e);
}

/* The agglomerative partition beside the divisive one: its cluster sizes (numbered by first
 * link, not by speed) and the agreement, which is the point of running it. */
static void print_agglo(const struct lens_links *r)
{
    long P = r->procs, L = P * (P - 1);
    printf("\nagglomerative (%s) at %d cluster%s, condensed matrix %.1f MiB; sizes:", lens_hclust_method_name(r->agglo),
           r->k, r->k == 1 ? "" : "s", r->agglo_bytes / (1024.0 * 1024.0));
    for (int u = 0; u < r->k; u++) {
        long n = 0;
        for (long x = 0; x < P * P; x++)
            n += r->agglo_label[x] == u;
        printf(" %ld", n);
    }
    printf(" (of %ld links)\n", L);
    printf("agglomerative (%s) agrees with the divisive clustering: ARI %.2f\n", lens_hclust_method_name(r->agglo),
           r->ari);
}

/* The text report: what was clustered, the diameter sequence the scree looked at, why the
 * number of clusters is what it is (forced, elbow, or none found), then one line per
 * cluster with an example link, so a person can look that link up in the cube. */
static void print_text(const struct lens_cube *c, const struct lens_links *r, const struct lens_links_opts *o)
{
    /* the statistic is named as the analysis chose it: average when present, else median */
    printf("%ld links of %d processes (diagonal left out), %d lengths, %s statistic, variances %s\n",
           (long)r->procs * (r->procs - 1), r->procs, r->nlen,
           c->data[LENS_STAT_AVERAGE] ? "average" : "median",
           r->no_deviation ? "all at the floor (no deviation in the cube)" : "deviation^2 floored");
    printf("split diameters:");
    for (int t = 0; t < r->ndiam; t++)
        printf(" %.4g", r->diameters[t]);
    printf("\n");
    /* the three reasons for k are told apart: "no elbow" means the answer is 1 cluster by rule */
    if (r->forced)
        printf("cut at %d clusters (--k)\n", r->k);
    else if (r->elbow)
        printf("scree elbow: %d clusters (the next %d drops are below %.2g x the typical drop before)\n",
               r->k, o->scree_window, o->scree_theta);
    else
        printf("no scree elbow within %d splits: %d cluster%s\n", r->ndiam, r->k, r->k == 1 ? "" : "s");
    /* lens_links_row says in words what the links of a cluster share (same host, ...) */
    printf("\n%7s  %8s  %10s  %s\n", "cluster", "links", "diameter", "what they are");
    for (int u = 0; u < r->k; u++) {
        struct lens_links_row row;
        char buf[160];
        lens_links_row(r, u, &row, buf, sizeof buf);
        printf("%7d  %8ld  %10.4g  %s; e.g. %d,%d\n", u, row.size, row.diameter, buf, r->clusters[u].row,
               r->clusters[u].col);
    }
    if (r->agglo_label)
        print_agglo(r);
}

/* The JSON of docs/links.md: labels as the full P x P matrix (-1 on the diagonal) so that a
 * script can index it by (row, column) without knowing the order of the CSV. */
static void print_json(const struct lens_links *r)
{
    struct lens_json j;
    lens_json_init(&j, stdout);
    lens_json_begin_object(&j);
    lens_json_key(&j, "procs");
    lens_json_int(&j, r->procs);
    lens_json_key(&j, "links");
    lens_json_int(&j, (long long)r->procs * (r->procs - 1));
    lens_json_key(&j, "lengths");
    lens_json_begin_array(&j);
    for (int l = 0; l < r->nlen; l++)
        lens_json_int(&j, r->lengths[l]);
    lens_json_end_array(&j);
    lens_json_key(&j, "k");
    lens_json_int(&j, r->k);
    lens_json_key(&j, "elbow");
    lens_json_int(&j, r->elbow);
    lens_json_key(&j, "diameters");
    lens_json_begin_array(&j);
    for (int t = 0; t < r->ndiam; t++)
        lens_json_number(&j, r->diameters[t]);
    lens_json_end_array(&j);
    lens_json_key(&j, "clusters");
    lens_json_begin_array(&j);
    for (int u = 0; u < r->k; u++) {
        const struct lens_links_cluster *cl = &r->clusters[u];
        lens_json_begin_object(&j);
        lens_json_key(&j, "id");
        lens_json_int(&j, cl->id);
        lens_json_key(&j, "size");
        lens_json_int(&j, cl->size);
        lens_json_key(&j, "diameter");
        lens_json_number(&j, cl->diameter);
        /* NaN (no host names) is written as null by the JSON writer, as the CSV writes NA */
        lens_json_key(&j, "same_host");
        lens_json_number(&j, cl->same_host);
        lens_json_key(&j, "mean");
        lens_json_begin_array(&j);
        for (int l = 0; l < r->nlen; l++)
            lens_json_number(&j, cl->mean[l]);
        lens_json_end_array(&j);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    /* the comparison only when asked (--method): the divisive JSON keeps its keys */
    if (r->agglo_label) {
        lens_json_key(&j, "method");
        lens_json_string(&j, lens_hclust_method_name(r->agglo));
        lens_json_key(&j, "matrix_bytes");
        lens_json_number(&j, r->agglo_bytes);
        lens_json_key(&j, "ari");
        lens_json_number(&j, r->ari);
        lens_json_key(&j, "agglo_labels");
        lens_json_begin_array(&j);
        for (int i = 0; i < r->procs; i++) {
            lens_json_begin_array(&j);
            for (int c = 0; c < r->procs; c++)
                lens_json_int(&j, r->agglo_label[(size_t)i * r->procs + c]);
            lens_json_end_array(&j);
        }
        lens_json_end_array(&j);
    }
    lens_json_key(&j, "labels");
    lens_json_begin_array(&j);
    for (int i = 0; i < r->procs; i++) {
        lens_json_begin_array(&j);
        for (int c = 0; c < r->procs; c++)
            lens_json_int(&j, r->label[(size_t)i * r->procs + c]);
        lens_json_end_array(&j);
    }
    lens_json_end_array(&j);
    lens_json_end_object(&j);
}

int cmd_links(int argc, char **argv)
{
    enum { O_CSV = 256, O_CLUSTERS, O_JSON, O_SPLITS, O_THREADS, O_PLOT, O_CURVES, O_METHOD, O_MAXMB };
    static const struct option opts[] = {
        {"csv", required_argument, NULL, O_CSV},         {"clusters", required_argument, NULL, O_CLUSTERS},
        {"json", no_argument, NULL, O_JSON},             {"k", required_argument, NULL, 'k'},
        {"max-splits", required_argument, NULL, O_SPLITS}, {"threads", required_argument, NULL, O_THREADS},
        {"plot", required_argument, NULL, O_PLOT},       {"curves", required_argument, NULL, O_CURVES},
        {"method", required_argument, NULL, O_METHOD},   {"max-matrix-mb", required_argument, NULL, O_MAXMB},
        {"help", no_argument, NULL, 'h'},                {NULL, 0, NULL, 0}};
    /* Defaults from the analysis (lens_links_opts_default), shared with the report: 2 threads,
     * 64 splits at most, k from the scree. */
    struct lens_links_opts o;
    lens_links_opts_default(&o);
    /* the command compares only when asked, and then refuses rather than skips (the report
     * skips quietly over the bound: the default) */
    o.agglo = -1;
    o.agglo_optional = 0;
    int maxmb = 256;
    const char *csv = NULL, *ccsv = NULL, *plot = NULL, *curves = NULL;
    /* text to stdout by default; the files (--csv, --clusters, pictures) are extra */
    int json = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "k:h", opts, NULL)) != -1) {
        switch (ch) {
        case O_CSV: csv = optarg; break;
        case O_CLUSTERS: ccsv = optarg; break;
        case O_JSON: json = 1; break;
        /* the extension is checked now, before the cube is read and clustered */
        case O_PLOT:
        case O_CURVES:
            if (!picture_name(optarg))
                return lens_cli_usage("links", "%s must end in .png or .svg, not '%s'",
                                      ch == O_PLOT ? "--plot" : "--curves", optarg);
            *(ch == O_PLOT ? &plot : &curves) = optarg;
            break;
        /* the upper bounds only keep the int cast safe: the analysis stops at the clusters it can
         * split, whatever k asks */
        case 'k':
            if (parse_int(optarg, 1, 1 << 30, &o.clusters))
                return lens_cli_usage("links", "-k must be a positive integer, not '%s'", optarg);
            break;
        case O_SPLITS:
            if (parse_int(optarg, 1, 1 << 20, &o.max_splits))
                return lens_cli_usage("links", "--max-splits must be a positive integer, not '%s'", optarg);
            break;
        /* at most 8: a batch of splits holds at most 8 clusters (analysis/structure/links.c), so
         * more threads would idle; the result is the same on any number (docs/links.md) */
        case O_THREADS:
            if (parse_int(optarg, 1, 8, &o.threads))
                return lens_cli_usage("links", "--threads must be 1..8, not '%s'", optarg);
            break;
        /* centroid and median need Euclidean distances, which rho is not: not offered */
        case O_METHOD:
            if (!strcmp(optarg, "divisive"))
                o.agglo = -1;
            else if ((o.agglo = lens_hclust_method_parse(optarg)) < 0 || o.agglo == LENS_HCLUST_CENTROID ||
                     o.agglo == LENS_HCLUST_MEDIAN)
                return lens_cli_usage("links", "--method must be divisive, single, complete, average, weighted "
                                      "or ward, not '%s'", optarg);
            break;
        case O_MAXMB:
            if (parse_int(optarg, 1, 1 << 24, &maxmb))
                return lens_cli_usage("links", "--max-matrix-mb must be a positive integer, not '%s'", optarg);
            break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("links", "unknown option");
        }
    }
    /* one cube per run, as `anomalies`; status 2 otherwise */
    if (optind != argc - 1)
        return lens_cli_usage("links", "expected one INPUT, got %d", argc - optind);
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_cube *c;
    /* the whole cube: the distance needs the means and, for the weights, the deviations */
    if (lens_cube_read(argv[optind], &c, &e) != LENS_OK)
        return lens_cli_fail(&e);
    /* only the link part of the structure pipeline */
    /* the same pipeline the report runs, so both find the same link clusters */
    struct lens_structure_opts so;
    lens_structure_opts_default(&so);
    so.parts = LENS_STRUCTURE_LINKS;
    o.agglo_max_bytes = (double)maxmb * 1024 * 1024;
    so.links = o;
    struct lens_structure s;
    int rc = lens_structure_run(c, &so, &s, &e);
    const struct lens_links *r = s.links;
    /* the outputs wait under temporary names: when one fails, none appears (cli/main.c) */
    /* the files before the listing: a failed file leaves stdout empty */
    if (rc == LENS_OK && csv)
        rc = write_links(csv, r, &e);
    if (rc == LENS_OK && ccsv)
        rc = write_clusters(ccsv, r, &e);
    /* the map's axes name hosts when the cube has them (NULL: rank numbers) */
    if (rc == LENS_OK && plot) {
        struct lens_linkmap_opts mo;
        lens_linkmap_opts_init(&mo);
        mo.labels = (const char *const *)c->hosts;
        mo.font_path = lens_cli_font();
        /* host bands in the colours `mpilens nj` gives the same hosts (sorted host names) */
        struct lens_hostcolour hc = LENS_HOSTCOLOUR_INIT;
        rc = lens_hostcolour_add(&hc, (const char *const *)c->hosts, c->procs, &e);
        mo.hostcol = &hc;
        if (rc == LENS_OK)
            rc = lens_linkmap_write(plot, r, &mo, &e);
        lens_hostcolour_free(&hc);
    }
    /* with the cube, each cluster's curve also gets the min..max band of its links */
    if (rc == LENS_OK && curves) {
        struct lens_linkcurves_opts co;
        lens_linkcurves_opts_init(&co);
        co.cube = c;
        co.font_path = lens_cli_font();
        rc = lens_linkcurves_write(curves, r, &co, &e);
    }
    /* the files already written wait under temporary names and are discarded by main.c, so
     * only memory is freed here */
    if (rc != LENS_OK) {
        lens_structure_release(&s);
        lens_cube_free(c);
        return lens_cli_fail(&e);
    }
    /* warnings only after success, before the listing: a failure prints its error alone */
    for (int w = 0; w < c->nwarn; w++)
        lens_cli_warn("%s", c->warnings[w]);
    if (json)
        print_json(r);
    else
        print_text(c, r, &o);
    lens_structure_release(&s);
    lens_cube_free(c);
    return LENS_EXIT_OK;
}
