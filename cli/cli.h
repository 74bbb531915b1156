/* Shared by the cmd_*.c files of the mpilens command: the subcommand declaration macro and
 * the only functions that print diagnostics (defined in cli.c). Each subcommand is
 *   LENS_COMMAND(name, "one-line summary");
 *   int cmd_name(int argc, char **argv);   returns the exit status (0 ok, 1 failure, 2 usage)
 * and the Makefile collects the LENS_COMMAND lines into the command table. A cmd_*.c file
 * exports only cmd_<name> and lens_cmd_summary_<name>, what the table needs; everything else
 * in it is static, and helpers two commands share live in cli.c or cli_dist.c. */
#ifndef LENS_CLI_H
#define LENS_CLI_H

#include "common/err.h"

#define LENS_COMMAND(name, summary)                                              \
    int cmd_##name(int argc, char **argv);                                       \
    const char lens_cmd_summary_##name[] = summary

enum { LENS_EXIT_OK = 0, LENS_EXIT_FAIL = 1, LENS_EXIT_USAGE = 2 };

/* Prints "mpilens: <msg>" for e to stderr and returns the exit status for its code. */
int lens_cli_fail(const struct lens_err *e);
/* Prints "mpilens <cmd>: <msg>" and a hint to use --help; returns LENS_EXIT_USAGE. */
int lens_cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints a warning line "mpilens: warning: ..." to stderr. */
void lens_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Closes stdout and reports a write error (full disk, closed pipe): the exit status to use. */
int lens_cli_finish(int status);
/* The DejaVu Sans of the installed or source data directory (lens_report_datadir), or NULL
 * for cairo's "sans" when none is found. The string is static. */
const char *lens_cli_font(void);
/* Whether progress lines should be drawn in place (stderr is a terminal). */
int lens_cli_tty(void);
/* The launch words of `scale run` and `trace --procs` into argv[0..4]: MPIRUN
 * --allow-run-as-root --oversubscribe -np NP (strings borrowed). Returns 5, the words used. */
int lens_cli_launch_words(char **argv, const char *mpirun, const char *np);

#endif
