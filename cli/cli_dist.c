/* The distance input that `mpilens cluster` and `mpilens nj` share: --stat/--length, reading a
 * cube or a square CSV into one symmetric matrix, --normalize, and the leaf labels. */
#include "cli.h"
#include "cli_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"
#include "render/fig/fig.h"

/* The slowness above which a rank is counted on stderr: the same threshold as the anomaly
 * report's slow nodes (its slow_min), so that both commands count the same ranks. */
#define SLOW_NOTE 1.15

int lens_cli_dist_read(const char *cmd, const char *input, int stat, long length,
                       struct lens_distmat **out)
{
    struct lens_err e = {0};
    if (lens_distmat_read(input, stat, length, out, &e) < 0)
        return lens_cli_fail(&e);
    const struct lens_distmat *m = *out;
    char a[32], b[32];
    /* the reader only collects its warnings: printing them is the command's job */
    for (int i = 0; i < m->nwarn; i++)
        lens_cli_warn("%s", m->warnings[i]);
    /* A CSV matrix has one number per pair, so --stat and --length cannot apply; a warning,
     * not a usage error, because a script may pass them to cubes and CSVs alike. */
    if (!m->from_cube && (stat != LENS_STAT_MEDIAN || length >= 0))
        lens_cli_warn("%s: --stat and --length choose from a cube; ignored for a CSV matrix",
                      input);
    /* The matrix is symmetrised as (A + A^T)/2: say how much that averaged away, and where
     * the worst pair is, so that a broken link does not vanish silently into a mean. */
    fprintf(stderr, "mpilens %s: %s: %d processes; asymmetry |a-b|/(a+b) mean %.2f %%, max %.2f %% "
            "(%s, %s)\n", cmd, input, m->n, 100 * m->asym_mean, 100 * m->asym_max,
            lens_distmat_label(m, m->asym_i, a, sizeof a), lens_distmat_label(m, m->asym_j, b, sizeof b));
    if (m->asym_over > 0)
        lens_cli_warn("%s: %ld of %zu pairs are more than %.0f %% asymmetric; their mean is used",
                      input, m->asym_over, lens_distmat_pairs(m->n), 100 * LENS_DISTMAT_ASYM_NOTE);
    /* a process's distance to itself is 0 by definition; a measured one is noise or a
     * mislabelled file, worth a line but not a failure */
    if (m->diag_nonzero > 0)
        lens_cli_warn("%s: %d non-zero diagonal entries ignored", input, m->diag_nonzero);
    if (m->one_sided > 0)
        lens_cli_warn("%s: %d pairs measured in one direction only", input, m->one_sided);
    return LENS_EXIT_OK;
}

int lens_cli_dist_normalize(const char *cmd, struct lens_distmat *m, int norm)
{
    /* none is the default: heights in microseconds are what people compare across runs */
    if (norm != LENS_DISTMAT_NORM_SLOWNESS)
        return LENS_EXIT_OK;
    struct lens_err e = {0};
    double *s = lens_malloc((size_t)m->n * sizeof *s);
    if (!s) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for the slowness of %d processes", m->n);
        return lens_cli_fail(&e);
    }
    if (lens_distmat_normalize_slowness(m, s, &e) < 0) {
        lens_free(s);
        return lens_cli_fail(&e);
    }
    /* The slowest rank is what the normalisation hides from the tree, so it is named here
     * (the anomaly report names it too); ties keep the lowest rank. */
    int worst = 0, over = 0;
    for (int i = 0; i < m->n; i++) {
        worst = s[i] > s[worst] ? i : worst;
        over += s[i] > SLOW_NOTE;
    }
    char b[32];
    fprintf(stderr, "mpilens %s: distances divided by the slower rank's slowness; slowest %s "
            "%.3g, %d of %d ranks above %.2f\n", cmd, lens_distmat_label(m, worst, b, sizeof b),
            s[worst], over, m->n, SLOW_NOTE);
    lens_free(s);
    return LENS_EXIT_OK;
}

int lens_cli_dist_parse_opt(const char *cmd, int opt, const char *arg, int *stat, long *length)
{
    if (opt == 's') {
        *stat = lens_cube_stat_parse(arg);
        if (*stat < 0)
            return lens_cli_usage(cmd, "unknown statistic '%s' (average, median, deviation, min)",
                                  arg);
        return LENS_EXIT_OK;
    }
    /* --length: a whole number of bytes; -1 (no option) means the median over the lengths,
     * so a negative one is refused rather than taken for that default */
    char *end;
    *length = strtol(arg, &end, 10);
    if (end == arg || *end || *length < 0)
        return lens_cli_usage(cmd, "--length wants a message length in bytes, got '%s'", arg);
    return LENS_EXIT_OK;
}

char **lens_cli_dist_tree_labels(const struct lens_distmat *m)
{
    if (!m->labels)
        return NULL;
    /* One block, pointers first and strings after, so the caller frees it with one call.
     * Each label gets 16 bytes of slack: the rewrite "r17@node03" -> "node03:17" never
     * grows a label, so this covers it and its NUL with room to spare. */
    size_t bytes = (size_t)m->n * sizeof(char *);
    for (int i = 0; i < m->n; i++)
        bytes += strlen(m->labels[i]) + 16;
    char **out = lens_malloc(bytes);
    if (!out)
        return NULL;
    char *p = (char *)(out + m->n);
    for (int i = 0; i < m->n; i++) {
        size_t room = strlen(m->labels[i]) + 16;
        lens_treefig_leaf_label(m->labels[i], i, p, room);
        out[i] = p;
        p += room;
    }
    return out;
}
