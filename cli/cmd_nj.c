/* mpilens nj: the neighbor-joining tree of processes from a latency cube or a square CSV
 * distance matrix, written as Newick with branch lengths. */
#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "../analysis/cube.h"
#include "../analysis/distmat.h"
#include "../analysis/newick.h"
#include "../analysis/nj.h"

LENS_COMMAND(nj, "neighbor-joining tree of processes (Newick)");

/* In cmd_cluster.c: input reading and the --stat/--length options shared by both commands. */
int lens_cli_read_distances(const char *cmd, const char *input, int stat, long length,
                            struct lens_distmat **out);
int lens_cli_parse_input_opts(const char *cmd, int opt, const char *arg, int *stat, long *length);

static void nj_help(void)
{
    printf("usage: mpilens nj INPUT [--newick tree.nwk] [--stat S] [--length BYTES] "
           "[--canonical]\n\n"
           "Builds the Saitou-Nei neighbor-joining tree of the processes of INPUT, a\n"
           "network_test2 prefix or a square CSV matrix of distances (n lines of n numbers,\n"
           "optionally after a header line of n labels), symmetrised as (A + A^T)/2.\n"
           "The tree is unrooted (root of degree 3); branch lengths are in the input's unit.\n\n"
           "  -n, --newick F     write the tree there (default: standard output)\n"
           "  -s, --stat S       cube statistic: median (default), average, min, deviation\n"
           "  -l, --length B     cube message length in bytes (default: median over lengths)\n"
           "  -c, --canonical    use the O(n^3) reference search instead of the exact fast one\n\n"
           "example:\n"
           "  mpilens nj run/network --newick tree.nwk\n");
}

int cmd_nj(int argc, char **argv)
{
    static const struct option opts[] = {
        {"newick", required_argument, 0, 'n'}, {"stat", required_argument, 0, 's'},
        {"length", required_argument, 0, 'l'}, {"canonical", no_argument, 0, 'c'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int stat = LENS_STAT_MEDIAN, search = LENS_NJ_FAST, c, st;
    long length = -1;
    const char *npath = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:s:l:ch", opts, NULL)) != -1) {
        switch (c) {
        case 'n': npath = optarg; break;
        case 's':
        case 'l':
            if ((st = lens_cli_parse_input_opts("nj", c, optarg, &stat, &length)))
                return st;
            break;
        case 'c': search = LENS_NJ_CANONICAL; break;
        case 'h': nj_help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("nj", "bad option");
        }
    }
    if (optind != argc - 1)
        return lens_cli_usage("nj", optind >= argc ? "missing INPUT" : "one INPUT expected");

    struct lens_distmat *m = NULL;
    if ((st = lens_cli_read_distances("nj", argv[optind], stat, length, &m)) != 0)
        return st;
    struct lens_err e = {0};
    struct lens_newick *t = NULL;
    double t0 = lens_now();
    int rc = lens_nj_run(m->d, m->n, search, &t, &e);
    if (rc == LENS_OK) {
        fprintf(stderr, "mpilens nj: %d processes joined in %.3f s (%s search)\n", m->n,
                lens_now() - t0, search == LENS_NJ_FAST ? "fast" : "canonical");
        const char *const *labels = (const char *const *)m->labels;
        rc = npath ? lens_newick_save(t, labels, npath, &e) : lens_newick_write(t, labels, stdout, &e);
    }
    lens_newick_free(t);
    lens_distmat_free(m);
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
