/* mpilens cluster: agglomerative clustering of processes from a latency cube or a square CSV
 * distance matrix; writes scipy's linkage matrix Z as CSV, the dendrogram as Newick and as a
 * picture, the clusters of a cut, and the distance heatmap reordered by the tree. */
#include "cli.h"
#include "common/atomic.h"
#include "cli_dist.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"
#include "render/fig/fig.h"

LENS_COMMAND(cluster, "hierarchical clustering of processes (scipy linkage Z, Newick)");

static void cluster_help(void)
{
    printf("usage: mpilens cluster INPUT [--method M] [--linkage Z.csv] [--newick tree.nwk]\n"
           "                       [--stat S] [--length BYTES] [--plot F.png|F.svg]\n"
           "                       [--cut K|auto] [--cut-height H] [--clusters F.csv]\n"
           "                       [--heatmap F.png|F.svg] [--normalize none|slowness]\n\n"
           "Clusters the processes of INPUT, a network_test2 prefix or a square CSV matrix of\n"
           "distances (n lines of n numbers, optionally after a header line of n labels).\n"
           "The matrix is symmetrised as (A + A^T)/2; its asymmetry is reported on stderr.\n\n"
           "  -m, --method M     single, complete, average (default), weighted, centroid,\n"
           "                     median or ward, as scipy.cluster.hierarchy.linkage\n"
           "  -z, --linkage F    write Z as CSV: left,right,height,size (leaves 0..n-1,\n"
           "                     merge i creates cluster n+i); Z goes to stdout when no other\n"
           "                     output is asked for\n"
           "  -n, --newick F     write the dendrogram as Newick (branch = height difference)\n"
           "  -s, --stat S       cube statistic: median (default), average, min, deviation\n"
           "  -l, --length B     cube message length in bytes (default: median over lengths)\n"
           "  -p, --plot F       draw the dendrogram (PNG or SVG by the extension); leaves\n"
           "                     labelled host:rank (rank only above 128 processes)\n"
           "  -k, --cut K|auto   cut into K clusters, or automatically where the next merge is\n"
           "                     highest above the groups' median inside height (at least 1.5x,\n"
           "                     else one group; the report uses the same cut); colours the plot\n"
           "                     and writes the clusters\n"
           "  -H, --cut-height H cut at height H (µs for a cube, the matrix's unit for CSV)\n"
           "  -c, --clusters F   write the clusters of the cut as CSV rank,host,cluster\n"
           "                     (default with a cut: standard output); clusters are numbered\n"
           "                     from 0 in the order of their lowest rank\n"
           "  -M, --heatmap F    draw the distance matrix with the processes in dendrogram\n"
           "                     order, so that clusters show as blocks (PNG or SVG)\n"
           "  -N, --normalize N  none (default: the raw distance) or slowness: divide d(i,j)\n"
           "                     by max(s_i, s_j), s_i = median over peers k of d(i,k) over\n"
           "                     k's median link (1 on a healthy machine). Use it when\n"
           "                     a slow node hides the switch level (the cut at the number\n"
           "                     of switches isolates the slow node instead); the anomaly\n"
           "                     report names the slow node separately. Heights,\n"
           "                     --cut-height and the heatmap are then in normalised units\n\n"
           "example:\n"
           "  mpilens cluster run/network --method average --linkage Z.csv --newick tree.nwk\n"
           "  mpilens cluster run/network --cut auto --plot tree.png --heatmap blocks.png\n"
           "  mpilens cluster run/network --normalize slowness --cut 2 --clusters sw.csv\n");
}

/* The host of process i for the clusters CSV: the part after '@' of "r<rank>@<host>", the
 * label itself for a CSV header label, "" without labels or for "r<rank>". */
static const char *host_of(const struct lens_distmat *m, int i)
{
    const char *l = m->labels ? m->labels[i] : NULL;
    if (!l)
        return "";
    const char *p = l + 1;
    /* only a label of the reader's own form is taken apart; "rack1" or "r2d2" stay whole */
    if (l[0] == 'r' && *p >= '0' && *p <= '9') {
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '\0')
            return "";
        if (*p == '@')
            return p + 1;
    }
    return l;
}

/* One CSV field, quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *fp, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    /* RFC 4180: the field in quotes, each quote inside doubled */
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

/* rank,host,cluster: the rank is the row of the input, so a script can join it with the
 * cube's hosts or its own list */
static void write_clusters(FILE *fp, const struct lens_distmat *m, const int *label)
{
    fputs("rank,host,cluster\n", fp);
    for (int i = 0; i < m->n; i++) {
        fprintf(fp, "%d,", i);
        csv_field(fp, host_of(m, i));
        fprintf(fp, ",%d\n", label[i]);
    }
}

/* through the atomic writer, so that a failure later in the command removes the CSV too */
static int save_clusters(const char *path, const struct lens_distmat *m, const int *label,
                         struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc)
        return rc;
    write_clusters(a.fp, m, label);
    return lens_atomic_commit(&a, e);
}

/* The square matrix of the condensed distances d (diagonal 0), lens_malloc'd. */
static double *square_of(const double *d, int n)
{
    double *a = lens_malloc((size_t)n * n * sizeof *a);
    if (!a)
        return NULL;
    /* the heatmap wants the full square, both triangles from the one condensed value */
    for (int i = 0; i < n; i++) {
        a[(size_t)i * n + i] = 0.0;
        for (int j = i + 1; j < n; j++)
            a[(size_t)i * n + j] = a[(size_t)j * n + i] = d[lens_distmat_index(n, i, j)];
    }
    return a;
}

/* What the options asked for beyond Z and Newick. */
struct pictures {
    /* NULL: not asked */
    const char *plot, *heatmap, *clusters;
    int cut;           /* 0 none, 1 by k, 2 auto, 3 by height */
    int k;             /* for cut 1 */
    double height;     /* for cut 3, displayed units */
};

/* The cut's line on stderr, the clusters, the dendrogram and the heatmap of the finished
 * structure st (tree and cut computed by lens_structure_run_distances). */
static int draw_pictures(const struct pictures *pc, const struct lens_structure *st, int method,
                         const char *input, struct lens_err *e)
{
    const struct lens_distmat *m = st->dm;
    int n = st->n, k = st->k, rc = LENS_OK;
    /* a cube is in seconds and shown in microseconds; a CSV keeps its own, unnamed, unit */
    double scale = m->from_cube ? 1e6 : 1.0;
    const char *unit = m->from_cube ? "\xc2\xb5s" : NULL;
    const char *note = pc->cut == 2 ? "automatic cut" : pc->cut == 3 ? "height asked" : NULL;
    /* the cut is said on stderr so that stdout can carry the clusters CSV alone */
    if (k > 0) {
        fprintf(stderr, "mpilens cluster: cut into %d cluster%s at %.4g%s%s", k, k == 1 ? "" : "s",
                lens_dendrogram_cut_level(st->z, n, k) * scale, unit ? " " : "", unit ? unit : "");
        /* the automatic cut says how far above the threshold it was, so that a borderline cut
         * (ratio just above 1.5) can be told from a clear one */
        if (pc->cut == 2)
            fprintf(stderr, " (the next merge is %.3gx the groups' median inside height; %.3gx needed)",
                    st->autocut.ratio, LENS_HCLUST_GAP_MIN);
        fputc('\n', stderr);
        /* without --clusters the CSV goes to stdout: a cut is asked for to see its groups */
        if (pc->clusters)
            rc = save_clusters(pc->clusters, m, st->label, e);
        else
            write_clusters(stdout, m, st->label);
    }
    /* one label set for both pictures; NULL means leaves named by index */
    char **labels = (pc->plot || pc->heatmap) ? lens_cli_dist_tree_labels(m) : NULL;
    char title[512];
    if (rc == LENS_OK && pc->plot) {
        struct lens_dendrogram_opts o;
        lens_dendrogram_opts_init(&o);
        snprintf(title, sizeof title, "Dendrogram of %s", input);
        o.title = title;
        o.method = lens_hclust_method_name(method);
        o.unit = unit;
        o.scale = scale;
        o.labels = (const char *const *)labels;
        /* the figure draws the order and cut computed once above: it runs no clustering itself */
        o.order = st->order;
        o.k = k;
        o.cluster = st->label;
        o.cut_note = note;
        o.font_path = lens_cli_font();
        /* leaf labels naming a host in that host's colour, as `mpilens nj` draws them */
        int *group = lens_malloc((size_t)n * sizeof *group);
        int hosts = group ? lens_treefig_host_groups((const char *const *)m->labels, n, group, e)
                          : lens_err_set(e, LENS_ENOMEM, "out of memory for %d processes", n);
        o.host_group = hosts > 0 ? group : NULL;
        rc = hosts < 0 ? hosts : lens_dendrogram_write(st->z, n, &o, pc->plot, e);
        lens_free(group);
    }
    if (rc == LENS_OK && pc->heatmap) {
        double *sq = square_of(m->d, n);
        if (!sq) {
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory for %d processes", n);
        } else {
            struct lens_heatmap_opts ho;
            lens_heatmap_opts_init(&ho);
            snprintf(title, sizeof title, "%s: distances in dendrogram order (%s linkage)", input,
                     lens_hclust_method_name(method));
            ho.title = title;
            ho.unit = unit;
            ho.scale = scale;
            ho.xlabel = "process (dendrogram order)";
            ho.ylabel = "process (dendrogram order)";
            ho.font_path = lens_cli_font();
            /* host bands when the labels name hosts, in the colours `mpilens nj` gives them */
            struct lens_hostcolour hc = LENS_HOSTCOLOUR_INIT;
            const char **hosts = m->labels ? lens_malloc((size_t)n * sizeof *hosts) : NULL;
            int named = hosts != NULL;
            for (int i = 0; named && i < n; i++)
                named = (hosts[i] = lens_treefig_host_of(m->labels[i])) != NULL;
            if (m->labels && !hosts)
                rc = lens_err_set(e, LENS_ENOMEM, "out of memory for %d processes", n);
            else if (named && (rc = lens_hostcolour_add(&hc, hosts, n, e)) == LENS_OK) {
                ho.hosts = hosts;
                ho.hostcol = &hc;
            }
            if (rc == LENS_OK)
                rc = lens_dendrogram_heatmap_write(sq, n, st->order, (const char *const *)labels, &ho,
                                                   pc->heatmap, e);
            lens_hostcolour_free(&hc);
            lens_free(hosts);
        }
        lens_free(sq);
    }
    /* labels and sq are freed on every path, failed or not */
    lens_free(labels);
    return rc;
}

/* Checks that a picture path ends in .png or .svg: the usage status, or LENS_EXIT_OK. */
static int picture_path(const char *opt, const char *path)
{
    /* checked at parse time: a typo in a picture name must not cost the whole clustering */
    struct lens_err e = {0};
    if (lens_treefig_format(path, &e) < 0)
        return lens_cli_usage("cluster", "%s %s: the file name must end in .png or .svg", opt, path);
    return LENS_EXIT_OK;
}

/* --cut: "auto" or a number of clusters. The upper bound (2^24) only keeps the int cast
 * safe; more clusters than processes is refused after reading, when n is known. */
static int parse_cut(const char *arg, struct pictures *pc)
{
    char *end;
    if (!strcmp(arg, "auto")) {
        pc->cut = 2;
        return LENS_EXIT_OK;
    }
    long k = strtol(arg, &end, 10);
    if (end == arg || *end || k < 1 || k > (1L << 24))
        return lens_cli_usage("cluster", "--cut wants a number of clusters >= 1 or 'auto', got '%s'", arg);
    pc->cut = 1;
    pc->k = (int)k;
    return LENS_EXIT_OK;
}

int cmd_cluster(int argc, char **argv)
{
    static const struct option opts[] = {
        {"method", required_argument, 0, 'm'}, {"linkage", required_argument, 0, 'z'},
        {"newick", required_argument, 0, 'n'}, {"stat", required_argument, 0, 's'},
        {"length", required_argument, 0, 'l'}, {"plot", required_argument, 0, 'p'},
        {"cut", required_argument, 0, 'k'},    {"cut-height", required_argument, 0, 'H'},
        {"clusters", required_argument, 0, 'c'}, {"heatmap", required_argument, 0, 'M'},
        {"normalize", required_argument, 0, 'N'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    /* Defaults: average linkage (UPGMA, docs/hclust.md: a group's height is its mean link,
     * which is what a switch level is), the median statistic (robust to slow repeats), raw
     * distances; length -1 is the median over the lengths. */
    int method = LENS_HCLUST_AVERAGE, stat = LENS_STAT_MEDIAN, norm = LENS_DISTMAT_NORM_NONE, c, st;
    long length = -1;
    const char *zpath = NULL, *npath = NULL;
    struct pictures pc = {0};
    char *end;
    optind = 1;
    while ((c = getopt_long(argc, argv, "m:z:n:s:l:p:k:H:c:M:N:h", opts, NULL)) != -1) {
        switch (c) {
        case 'm':
            if ((method = lens_hclust_method_parse(optarg)) < 0)
                return lens_cli_usage("cluster", "unknown method '%s' (single, complete, "
                                      "average, weighted, centroid, median, ward)", optarg);
            break;
        case 'z': zpath = optarg; break;
        case 'n': npath = optarg; break;
        case 's':
        case 'l':
            if ((st = lens_cli_dist_parse_opt("cluster", c, optarg, &stat, &length)))
                return st;
            break;
        case 'p':
            if ((st = picture_path("--plot", optarg)))
                return st;
            pc.plot = optarg;
            break;
        case 'M':
            if ((st = picture_path("--heatmap", optarg)))
                return st;
            pc.heatmap = optarg;
            break;
        case 'k':
            if ((st = parse_cut(optarg, &pc)))
                return st;
            break;
        /* !(h >= 0) also refuses NaN; the height is in displayed units (µs for a cube) */
        case 'H':
            pc.height = strtod(optarg, &end);
            if (end == optarg || *end || !(pc.height >= 0) || pc.height > 1e300)
                return lens_cli_usage("cluster", "--cut-height wants a height >= 0, got '%s'", optarg);
            pc.cut = 3;
            break;
        case 'c': pc.clusters = optarg; break;
        case 'N':
            if ((norm = lens_distmat_norm_parse(optarg)) < 0)
                return lens_cli_usage("cluster", "--normalize wants none or slowness, got '%s'", optarg);
            break;
        case 'h': cluster_help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("cluster", "bad option");
        }
    }
    if (optind != argc - 1)
        return lens_cli_usage("cluster", optind >= argc ? "missing INPUT" : "one INPUT expected");
    /* --clusters alone has nothing to write: the groups come from a cut */
    if (pc.clusters && !pc.cut)
        return lens_cli_usage("cluster", "--clusters needs --cut or --cut-height");

    struct lens_distmat *m = NULL;
    if ((st = lens_cli_dist_read("cluster", argv[optind], stat, length, &m)) != 0)
        return st;
    if ((st = lens_cli_dist_normalize("cluster", m, norm)) != 0) {
        /* m is still ours: the structure pipeline has not taken it yet */
        lens_distmat_free(m);
        return st;
    }
    struct lens_err e = {0};
    struct lens_newick *t = NULL;
    int n = m->n, rc = LENS_OK;
    /* the tree and the cut in one call; `cluster` does not pay for NJ, links or anomalies */
    struct lens_structure_opts so;
    lens_structure_opts_default(&so);
    /* the cut only when one was asked: an automatic cut nobody reads would still be computed */
    so.parts = LENS_STRUCTURE_TREE | (pc.cut ? LENS_STRUCTURE_CUT : 0);
    so.method = method;
    so.cut = pc.cut == 1 && pc.k > n ? LENS_STRUCTURE_CUT_NONE : pc.cut; /* too many: said below */
    so.k = pc.k;
    /* the pipeline works in the matrix's unit (seconds for a cube), the option in microseconds */
    so.height = pc.height / (m->from_cube ? 1e6 : 1.0);
    so.source = argv[optind];
    struct lens_structure res;
    rc = lens_structure_run_distances(m, NULL, &so, &res, &e);
    const struct lens_hclust_step *z = res.z;
    if (rc == LENS_OK && zpath)
        rc = lens_hclust_write_csv(z, n, zpath, &e);
    if (rc == LENS_OK && npath && (rc = lens_newick_from_hclust(z, n, &t, &e)) == LENS_OK)
        rc = lens_newick_save(t, (const char *const *)m->labels, npath, &e);
    /* Z on stdout only when no output was named, so that `mpilens cluster INPUT` is useful
     * alone and never mixes Z with the clusters CSV; %.17g keeps every bit of the heights. */
    if (rc == LENS_OK && !zpath && !npath && !pc.plot && !pc.heatmap && !pc.cut) {
        printf("left,right,height,size\n");
        for (int k = 0; k < n - 1; k++)
            printf("%d,%d,%.17g,%d\n", z[k].left, z[k].right, z[k].height, z[k].size);
    }
    if (rc == LENS_OK)
        /* n - 1 merges, the last one (z[n - 2]) is the root; the reader refuses fewer than 2 */
        fprintf(stderr, "mpilens cluster: %s linkage of %d processes, root height %.6g\n",
                lens_hclust_method_name(method), n, z[n - 2].height);
    /* status 2 through LENS_EUSAGE: asking for more clusters than processes is a usage error,
     * known only now that n is; Z and the Newick already written are discarded with it */
    if (rc == LENS_OK && pc.cut == 1 && pc.k > n)
        rc = lens_err_set(&e, LENS_EUSAGE, "%s: cannot cut %d processes into %d clusters", argv[optind], n, pc.k);
    if (rc == LENS_OK && (pc.plot || pc.heatmap || pc.cut))
        rc = draw_pictures(&pc, &res, method, argv[optind], &e);
    lens_newick_free(t);
    lens_structure_release(&res); /* frees m too */
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
