/* mpilens: the serial command-line tool. Dispatches to cmd_<name> through a table
 * generated from the LENS_COMMAND lines of cli/cmd_*.c (see the Makefile), as git does. */
#include "cli.h"
#include "common/atomic.h"

#include <stdio.h>
#include <string.h>

/* commands.h is one X(name) line per LENS_COMMAND, sorted: declared here, tabled below, so a
 * new cmd_*.c file is a new command without an edit to this file. */
#define X(name) int cmd_##name(int argc, char **argv); extern const char lens_cmd_summary_##name[];
#include "commands.h"
#undef X

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
#define X(name) {#name, cmd_##name, lens_cmd_summary_##name},
#include "commands.h"
#undef X
};

/* The top-level help: to stdout when asked for (status 0), to stderr when the command is
 * missing (status 2), so a pipe into less shows it and a script's output stays clean. */
static void usage(FILE *fp)
{
    fprintf(fp, "usage: mpilens <command> [options] [args]\n\n"
                "Static reports on how an MPI machine and MPI applications communicate.\n\n"
                "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        char name[64];
        /* 64 bytes hold every command name; snprintf truncates rather than overflows */
        snprintf(name, sizeof name, "%s", commands[i].name);
        for (char *c = name; *c; c++)
            *c = *c == '_' ? '-' : *c; /* C identifiers in the table, hyphens for people */
        fprintf(fp, "  %-17s %s\n", name, commands[i].summary);
    }
    fprintf(fp, "\nRun 'mpilens <command> --help' for the options and an example of each.\n"
                "mpilens %s\n", LENS_VERSION);
}

/* Exit status for every command: 0 ok, 1 failure (bad input, I/O), 2 usage (bad options or
 * arguments, including an unknown command); the commands return it, main only passes it on
 * (`trace` alone passes on the status of the program it ran). */
int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return LENS_EXIT_USAGE;
    }
    /* "help" as a word too, as git accepts it: people type it */
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return lens_cli_finish(LENS_EXIT_OK);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("mpilens %s\n", LENS_VERSION);
        return lens_cli_finish(LENS_EXIT_OK);
    }
    /* people type profile-clusters, the table holds profile_clusters; a longer argument is
     * truncated and then matches no command, which is the right answer */
    char name[64];
    snprintf(name, sizeof name, "%s", argv[1]);
    for (char *c = name; *c; c++)
        *c = *c == '-' ? '_' : *c;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name)) {
            /* Everything a command writes appears when it succeeds, all of it, or not at
             * all (docs/outputs.md): its outputs wait under temporary names until here. */
            lens_atomic_group_begin();
            int st = commands[i].fn(argc - 1, argv + 1);
            /* Commit only after success: a command that failed half-way leaves no output at
             * all, and a commit that fails (disk full while renaming) turns 0 into 1. */
            struct lens_err e;
            lens_err_clear(&e);
            if (st == LENS_EXIT_OK && lens_atomic_group_commit(&e) != LENS_OK)
                st = lens_cli_fail(&e);
            else if (st != LENS_EXIT_OK)
                lens_atomic_group_abort();
            /* finish last: a write error on stdout must be able to turn status 0 into 1 */
            return lens_cli_finish(st);
        }
    fprintf(stderr, "mpilens: '%s' is not a command; see 'mpilens --help'\n", argv[1]);
    return LENS_EXIT_USAGE;
}
