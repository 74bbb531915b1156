/* The helpers every subcommand shares: the only functions that print diagnostics, the exit
 * status rules (0 ok, 1 failure, 2 usage) and the one font the pictures use. */
#include "cli.h"

#include "render/doc/doc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int lens_cli_fail(const struct lens_err *e)
{
    /* A library error may come back with no message (a path that forgot lens_err_set): say
     * something rather than print an empty line, and still fail. */
    fprintf(stderr, "mpilens: %s\n", e->msg[0] ? e->msg : "unknown error");
    /* LENS_EUSAGE is how the library says "the options contradict the input" (a cut into more
     * clusters than processes): the caller asked for the impossible, hence status 2. */
    return e->code == LENS_EUSAGE ? LENS_EXIT_USAGE : LENS_EXIT_FAIL;
}

int lens_cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mpilens %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    /* name the command's --help, not the top-level one: that is where its options are */
    fprintf(stderr, "\nTry 'mpilens %s --help'.\n", cmd);
    return LENS_EXIT_USAGE;
}

void lens_cli_warn(const char *fmt, ...)
{
    va_list ap;
    fputs("mpilens: warning: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int lens_cli_finish(int status)
{
    /* A listing sent to a full disk or a closed pipe fails only here, when stdio flushes:
     * checking the close turns that into status 1 instead of a silent truncated output. */
    if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0) {
        fprintf(stderr, "mpilens: error writing standard output: %s\n", strerror(errno));
        return LENS_EXIT_FAIL;
    }
    return status;
}

/* Progress lines redraw themselves with '\r' only on a terminal; into a log they would pile
 * up as one long line, so the commands print them whole there. */
int lens_cli_tty(void) { return isatty(STDERR_FILENO); }

const char *lens_cli_font(void)
{
    /* static: the figures keep the pointer in their options until they are drawn */
    static char path[4096 + 32];
    char dir[4096];
    if (lens_report_datadir(dir, sizeof dir, NULL) != LENS_OK)
        return NULL;
    snprintf(path, sizeof path, "%s/fonts/DejaVuSans.ttf", dir);
    /* NULL lets cairo pick its "sans": a picture in another font beats no picture */
    return access(path, R_OK) == 0 ? path : NULL;
}

/* Open MPI refuses root (containers, CI) without the first flag and more processes than cores
 * without the second; a scalability grid often asks for more, and the marks should show it. */
int lens_cli_launch_words(char **argv, const char *mpirun, const char *np)
{
    argv[0] = (char *)mpirun;
    argv[1] = "--allow-run-as-root";
    argv[2] = "--oversubscribe";
    argv[3] = "-np";
    argv[4] = (char *)np;
    return 5;
}
