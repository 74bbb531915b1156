/* mpilens nj: the neighbor-joining tree of processes from a latency cube or a square CSV
 * distance matrix, written as Newick with branch lengths and drawn as a phylogram. */
#include "cli.h"
#include "common/time.h"
#include "cli_dist.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"
#include "render/fig/fig.h"

LENS_COMMAND(nj, "neighbor-joining tree of processes (Newick)");


static void nj_help(void)
{
    printf("usage: mpilens nj INPUT [--newick tree.nwk] [--stat S] [--length BYTES] "
           "[--canonical]\n"
           "                  [--plot F.png|F.svg] [--root midpoint|nj] [--normalize none|slowness]\n\n"
           "Builds the Saitou-Nei neighbor-joining tree of the processes of INPUT, a\n"
           "network_test2 prefix or a square CSV matrix of distances (n lines of n numbers,\n"
           "optionally after a header line of n labels), symmetrised as (A + A^T)/2.\n"
           "The tree is unrooted (root of degree 3); branch lengths are in the input's unit.\n\n"
           "  -n, --newick F     write the tree there (default: standard output)\n"
           "  -s, --stat S       cube statistic: median (default), average, min, deviation\n"
           "  -l, --length B     cube message length in bytes (default: median over lengths)\n"
           "  -c, --canonical    use the O(n^3) reference search instead of the exact fast one\n"
           "  -p, --plot F       draw the tree as a phylogram (PNG or SVG by the extension):\n"
           "                     branch lengths to scale, leaves host:rank (rank only above\n"
           "                     128 processes), leaves and clades coloured by host\n"
           "  -r, --root R       where the drawing is rooted: midpoint (default: the middle\n"
           "                     of the longest leaf-to-leaf path) or nj (the last join)\n"
           "  -N, --normalize N  none (default: the raw distance) or slowness: divide d(i,j)\n"
           "                     by max(s_i, s_j), s_i = median over peers k of d(i,k) over\n"
           "                     k's median link (1 on a healthy machine). Use it when\n"
           "                     a slow node hides the switch level (its long branches pull\n"
           "                     it out of its switch); the anomaly report (mpilens\n"
           "                     anomalies) names the slow node separately. Branch lengths\n"
           "                     are then in normalised units\n\n"
           "example:\n"
           "  mpilens nj run/network --newick tree.nwk --plot tree.svg\n"
           "  mpilens nj run/network --normalize slowness --plot tree.svg\n");
}

/* The phylogram of t, leaves labelled host:rank and coloured by host when the labels name one. */
static int draw_tree(const struct lens_distmat *m, const struct lens_newick *t, int root,
                     const char *input, const char *path, struct lens_err *e)
{
    /* labels may be NULL (a CSV without a header): the figure then names leaves by index */
    char **labels = lens_cli_dist_tree_labels(m), title[512];
    int *group = lens_malloc((size_t)m->n * sizeof *group);
    if (!group) {
        lens_free(labels);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for %d processes", m->n);
    }
    /* colour by host only when there are two or more: one colour says nothing */
    int hosts = lens_treefig_host_groups((const char *const *)m->labels, m->n, group, e);
    if (hosts < 0) {
        lens_free(group);
        lens_free(labels);
        return hosts;
    }
    struct lens_njtree_opts o;
    lens_njtree_opts_init(&o);
    snprintf(title, sizeof title, "Neighbor-joining tree of %s", input);
    o.title = title;
    /* a cube is in seconds, drawn in microseconds; a CSV matrix keeps its own unit */
    o.unit = m->from_cube ? "\xc2\xb5s" : NULL;
    o.scale = m->from_cube ? 1e6 : 1.0;
    o.labels = (const char *const *)labels;
    o.group = hosts > 1 ? group : NULL;
    o.root = root;
    o.font_path = lens_cli_font();
    /* the picture's format follows the extension checked at parse time */
    int rc = lens_njtree_write(t, &o, path, e);
    lens_free(group);
    lens_free(labels);
    return rc;
}

int cmd_nj(int argc, char **argv)
{
    static const struct option opts[] = {
        {"newick", required_argument, 0, 'n'}, {"stat", required_argument, 0, 's'},
        {"length", required_argument, 0, 'l'}, {"canonical", no_argument, 0, 'c'},
        {"plot", required_argument, 0, 'p'},   {"root", required_argument, 0, 'r'},
        {"normalize", required_argument, 0, 'N'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    /* Defaults: raw distances, the median statistic (robust to a few slow repeats), the exact
     * fast search (same tree as the O(n^3) one, much faster), and a midpoint root, which
     * draws a balanced picture of an unrooted tree. length -1: the median over the lengths. */
    int norm = LENS_DISTMAT_NORM_NONE, stat = LENS_STAT_MEDIAN, search = LENS_NJ_FAST, root = LENS_NJTREE_MIDPOINT, c, st;
    long length = -1;
    const char *npath = NULL, *plot = NULL;
    struct lens_err e = {0};
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:s:l:cp:r:N:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n': npath = optarg; break;
        case 's':
        case 'l':
            if ((st = lens_cli_dist_parse_opt("nj", c, optarg, &stat, &length)))
                return st;
            break;
        case 'c': search = LENS_NJ_CANONICAL; break;
        /* the picture's format is checked before reading the input, so a typo costs nothing */
        case 'p':
            if (lens_treefig_format(optarg, &e) < 0)
                return lens_cli_usage("nj", "--plot %s: the file name must end in .png or .svg", optarg);
            plot = optarg;
            break;
        /* nj keeps the root of the last join: the tree exactly as the algorithm built it */
        case 'r':
            if (!strcmp(optarg, "midpoint"))
                root = LENS_NJTREE_MIDPOINT;
            else if (!strcmp(optarg, "nj"))
                root = LENS_NJTREE_AS_BUILT;
            else
                return lens_cli_usage("nj", "--root wants midpoint or nj, got '%s'", optarg);
            break;
        case 'N':
            if ((norm = lens_distmat_norm_parse(optarg)) < 0)
                return lens_cli_usage("nj", "--normalize wants none or slowness, got '%s'", optarg);
            break;
        case 'h': nj_help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("nj", "bad option");
        }
    }
    /* exactly one INPUT: a tree is of one machine */
    if (optind != argc - 1)
        return lens_cli_usage("nj", optind >= argc ? "missing INPUT" : "one INPUT expected");

    struct lens_distmat *m = NULL;
    if ((st = lens_cli_dist_read("nj", argv[optind], stat, length, &m)) != 0)
        return st;
    if ((st = lens_cli_dist_normalize("nj", m, norm)) != 0) {
        /* m is still ours here: lens_structure_run_distances has not taken it yet */
        lens_distmat_free(m);
        return st;
    }
    /* only the NJ part of the structure pipeline */
    /* only the NJ part: no hierarchical tree, cut, links or anomalies to pay for */
    struct lens_structure_opts so;
    lens_structure_opts_default(&so);
    so.parts = LENS_STRUCTURE_NJ;
    so.nj_search = search;
    struct lens_structure s;
    /* the join is timed because its cost grows as n^3: the line tells people when to expect it */
    double t0 = lens_time_now();
    int rc = lens_structure_run_distances(m, NULL, &so, &s, &e);
    const struct lens_newick *t = s.nj;
    if (rc == LENS_OK) {
        fprintf(stderr, "mpilens nj: %d processes joined in %.3f s (%s search)\n", m->n,
                lens_time_now() - t0, search == LENS_NJ_FAST ? "fast" : "canonical");
        const char *const *labels = (const char *const *)m->labels;
        /* Newick to stdout only when nothing else is asked: with --plot alone the picture is the
         * output and a tree on the terminal would be noise. */
        if (npath)
            rc = lens_newick_save(t, labels, npath, &e);
        else if (!plot)
            rc = lens_newick_write(t, labels, stdout, &e);
    }
    /* drawn only when the tree was saved: one failure, one message, and main.c discards
     * whatever the command had written */
    if (rc == LENS_OK && plot)
        rc = draw_tree(m, t, root, argv[optind], plot, &e);
    lens_structure_release(&s); /* frees m too */
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
