/* mpilens cluster: agglomerative clustering of processes from a latency cube or a square CSV
 * distance matrix; writes scipy's linkage matrix Z as CSV and the dendrogram as Newick. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/cube.h"
#include "../analysis/distmat.h"
#include "../analysis/hclust.h"
#include "../analysis/newick.h"

LENS_COMMAND(cluster, "hierarchical clustering of processes (scipy linkage Z, Newick)");

static void cluster_help(void)
{
    printf("usage: mpilens cluster INPUT [--method M] [--linkage Z.csv] [--newick tree.nwk]\n"
           "                       [--stat S] [--length BYTES]\n\n"
           "Clusters the processes of INPUT, a network_test2 prefix or a square CSV matrix of\n"
           "distances (n lines of n numbers, optionally after a header line of n labels).\n"
           "The matrix is symmetrised as (A + A^T)/2; its asymmetry is reported on stderr.\n\n"
           "  -m, --method M     single, complete, average (default), weighted, centroid,\n"
           "                     median or ward, as scipy.cluster.hierarchy.linkage\n"
           "  -z, --linkage F    write Z as CSV: left,right,height,size (leaves 0..n-1,\n"
           "                     merge i creates cluster n+i); without -z and -n, Z goes to stdout\n"
           "  -n, --newick F     write the dendrogram as Newick (branch = height difference)\n"
           "  -s, --stat S       cube statistic: median (default), average, min, deviation\n"
           "  -l, --length B     cube message length in bytes (default: median over lengths)\n\n"
           "example:\n"
           "  mpilens cluster run/network --method average --linkage Z.csv --newick tree.nwk\n");
}

/* Reads INPUT into a distance matrix and reports what the symmetrisation found. */
int lens_cli_read_distances(const char *cmd, const char *input, int stat, long length,
                            struct lens_distmat **out);

int lens_cli_read_distances(const char *cmd, const char *input, int stat, long length,
                            struct lens_distmat **out)
{
    struct lens_err e = {0};
    if (lens_distmat_read(input, stat, length, out, &e) < 0)
        return lens_cli_fail(&e);
    const struct lens_distmat *m = *out;
    char a[32], b[32];
    for (int i = 0; i < m->nwarn; i++)
        lens_cli_warn("%s", m->warnings[i]);
    if (!m->from_cube && (stat != LENS_STAT_MEDIAN || length >= 0))
        lens_cli_warn("%s: --stat and --length choose from a cube; ignored for a CSV matrix",
                      input);
    fprintf(stderr, "mpilens %s: %s: %d processes; asymmetry |a-b|/(a+b) mean %.2f %%, max %.2f %% "
            "(%s, %s)\n", cmd, input, m->n, 100 * m->asym_mean, 100 * m->asym_max,
            lens_distmat_label(m, m->asym_i, a, sizeof a), lens_distmat_label(m, m->asym_j, b, sizeof b));
    if (m->asym_over > 0)
        lens_cli_warn("%s: %ld of %zu pairs are more than %.0f %% asymmetric; their mean is used",
                      input, m->asym_over, lens_distmat_pairs(m->n), 100 * LENS_DISTMAT_ASYM_NOTE);
    if (m->diag_nonzero > 0)
        lens_cli_warn("%s: %d non-zero diagonal entries ignored", input, m->diag_nonzero);
    if (m->one_sided > 0)
        lens_cli_warn("%s: %d pairs measured in one direction only", input, m->one_sided);
    return LENS_EXIT_OK;
}

/* Parses --stat and --length; returns LENS_EXIT_OK or the usage status. */
int lens_cli_parse_input_opts(const char *cmd, int opt, const char *arg, int *stat, long *length);

int lens_cli_parse_input_opts(const char *cmd, int opt, const char *arg, int *stat, long *length)
{
    if (opt == 's') {
        *stat = lens_cube_stat_parse(arg);
        if (*stat < 0)
            return lens_cli_usage(cmd, "unknown statistic '%s' (average, median, deviation, min)",
                                  arg);
        return LENS_EXIT_OK;
    }
    char *end;
    *length = strtol(arg, &end, 10);
    if (end == arg || *end || *length < 0)
        return lens_cli_usage(cmd, "--length wants a message length in bytes, got '%s'", arg);
    return LENS_EXIT_OK;
}

int cmd_cluster(int argc, char **argv)
{
    static const struct option opts[] = {
        {"method", required_argument, 0, 'm'}, {"linkage", required_argument, 0, 'z'},
        {"newick", required_argument, 0, 'n'}, {"stat", required_argument, 0, 's'},
        {"length", required_argument, 0, 'l'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int method = LENS_HCLUST_AVERAGE, stat = LENS_STAT_MEDIAN, c, st;
    long length = -1;
    const char *zpath = NULL, *npath = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "m:z:n:s:l:h", opts, NULL)) != -1) {
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
            if ((st = lens_cli_parse_input_opts("cluster", c, optarg, &stat, &length)))
                return st;
            break;
        case 'h': cluster_help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("cluster", "bad option");
        }
    }
    if (optind != argc - 1)
        return lens_cli_usage("cluster", optind >= argc ? "missing INPUT" : "one INPUT expected");

    struct lens_distmat *m = NULL;
    if ((st = lens_cli_read_distances("cluster", argv[optind], stat, length, &m)) != 0)
        return st;
    struct lens_err e = {0};
    struct lens_newick *t = NULL;
    int n = m->n, rc;
    struct lens_hclust_step *z = lens_malloc((size_t)(n - 1) * sizeof *z);
    if (!z)
        rc = lens_err_set(&e, LENS_ENOMEM, "out of memory for %d merges", n - 1);
    else
        rc = lens_hclust_run(m->d, n, method, z, &e); /* m->d is consumed as working space */
    if (rc == LENS_OK && zpath)
        rc = lens_hclust_write_csv(z, n, zpath, &e);
    if (rc == LENS_OK && npath && (rc = lens_newick_from_hclust(z, n, &t, &e)) == LENS_OK)
        rc = lens_newick_save(t, (const char *const *)m->labels, npath, &e);
    if (rc == LENS_OK && !zpath && !npath) {
        printf("left,right,height,size\n");
        for (int k = 0; k < n - 1; k++)
            printf("%d,%d,%.17g,%d\n", z[k].left, z[k].right, z[k].height, z[k].size);
    }
    if (rc == LENS_OK)
        fprintf(stderr, "mpilens cluster: %s linkage of %d processes, root height %.6g\n",
                lens_hclust_method_name(method), n, z[n - 2].height);
    if (rc < 0 && e.code != LENS_ENOMEM && e.code != LENS_EIO)
        lens_err_prefix(&e, argv[optind]);
    lens_newick_free(t);
    lens_free(z);
    lens_distmat_free(m);
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
