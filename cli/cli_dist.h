/* What `mpilens cluster` and `mpilens nj` share (defined in cli_dist.c): reading INPUT into
 * a distance matrix, the --stat/--length and --normalize options, and the leaf labels.
 * Each function prints its own diagnostics and returns an exit status (cli.h). */
#ifndef LENS_CLI_DIST_H
#define LENS_CLI_DIST_H

struct lens_distmat;

/* Reads INPUT (a cube or a square CSV) into *out (caller frees with lens_distmat_free) and
 * reports on stderr what the symmetrisation found; returns LENS_EXIT_OK or the failure status. */
int lens_cli_dist_read(const char *cmd, const char *input, int stat, long length,
                       struct lens_distmat **out);
/* Parses the argument of --stat (opt 's') or --length (any other opt, in bytes) into *stat or
 * *length; returns LENS_EXIT_OK or the usage status. */
int lens_cli_dist_parse_opt(const char *cmd, int opt, const char *arg, int *stat, long *length);
/* Leaf labels for the pictures ("node03:17", "17" or the CSV label) in one allocation: n
 * pointers followed by the strings (caller lens_frees the whole). NULL when m has no labels or
 * on ENOMEM (then the plots fall back to indices, which name the ranks too). */
char **lens_cli_dist_tree_labels(const struct lens_distmat *m);
/* Applies --normalize to m and reports the slowest rank on stderr: LENS_EXIT_OK or the
 * failure status. */
int lens_cli_dist_normalize(const char *cmd, struct lens_distmat *m, int norm);

#endif
