/* mpilens trace [-o DIR] [-b SIZE] -- mpirun -np 4 ./app: runs an MPI command with the trace
 * collector preloaded into every rank (mpirun -x LD_PRELOAD=...), then says where the OTF2
 * trace went. A run that ends without MPI_Finalize (crash, abort, kill) leaves raw files;
 * they are turned into an OTF2 archive holding the events up to the last buffer flush. */
#include "cli.h"

#include "../common/datadir.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

LENS_COMMAND(trace, "run an MPI program under the trace collector (OTF2)");

extern char **environ;

static void usage(FILE *fp)
{
    fprintf(fp,
            "usage: mpilens trace [-o DIR] [-b SIZE] -- COMMAND...\n\n"
            "Runs COMMAND (normally mpirun/mpiexec) with libmpilens-trace.so preloaded into every\n"
            "rank and writes the OTF2 trace DIR/traces.otf2 (open it with otf2-print, Vampir or\n"
            "'mpilens problems'). For mpirun, '-x LD_PRELOAD=... -x MPILENS_TRACE_DIR=...' is\n"
            "inserted after the mpirun word; other commands get the variables in their environment.\n\n"
            "options:\n"
            "  -o, --output DIR   trace directory (default $MPILENS_TRACE_DIR or ./mpilens-trace)\n"
            "  -b, --buffer SIZE  event buffer per rank before a flush to disk (default 8M)\n"
            "  -h, --help         this text\n\n"
            "example:\n"
            "  mpilens trace -o jacobi-trace -- mpirun -np 4 ./jacobi\n");
}

static int is_mpirun(const char *cmd)
{
    const char *b = strrchr(cmd, '/');
    b = b ? b + 1 : cmd;
    return !strcmp(b, "mpirun") || !strcmp(b, "mpiexec") || !strcmp(b, "orterun");
}

/* Runs argv, waits, returns its exit status (128 + signal when killed), -1 if it cannot run. */
static int run(char **argv)
{
    pid_t pid;
    int st;
    int rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int exists(const char *dir, const char *name)
{
    char p[PATH_MAX + 64];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &sb) == 0;
}

int cmd_trace(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"buffer", required_argument, NULL, 'b'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    const char *out = getenv("MPILENS_TRACE_DIR"), *buffer = NULL;
    char dir[PATH_MAX], so[PATH_MAX], recover[PATH_MAX];
    int c;
    if (!out || !*out)
        out = "mpilens-trace";
    optind = 1;
    while ((c = getopt_long(argc, argv, "+o:b:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'b': buffer = optarg; break;
        case 'h': usage(stdout); return LENS_EXIT_OK;
        default: return lens_cli_usage("trace", "unknown option");
        }
    }
    if (optind >= argc)
        return lens_cli_usage("trace", "missing the command to run (mpilens trace -- mpirun ...)");
    if (buffer) {
        char *end;
        unsigned long long v = strtoull(buffer, &end, 10);
        if (end == buffer || (*end && strchr("kKmMgG", *end) == NULL) || (*end && end[1]) || v == 0)
            return lens_cli_usage("trace", "--buffer '%s' is not a size such as 65536, 64k or 8M",
                                  buffer);
    }
    struct lens_err e;
    if (lens_datadir_find_lib("libmpilens-trace.so", so, sizeof so, &e) != LENS_OK)
        return lens_cli_fail(&e);
    if (lens_mkdir_p(out, &e) != LENS_OK)
        return lens_cli_fail(&e);
    if (!realpath(out, dir)) {
        lens_err_set(&e, LENS_EIO, "%s: %s", out, strerror(errno));
        return lens_cli_fail(&e);
    }
    char anchor[PATH_MAX + 16];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    unlink(anchor); /* so that an anchor after the run is this run's */

    int n = argc - optind;
    char **cmd = calloc((size_t)n + 7, sizeof *cmd);
    char pre[PATH_MAX + 16], tdir[PATH_MAX + 24], tbuf[64];
    if (!cmd) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory");
        return lens_cli_fail(&e);
    }
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", so);
    snprintf(tdir, sizeof tdir, "MPILENS_TRACE_DIR=%s", dir);
    snprintf(tbuf, sizeof tbuf, "MPILENS_TRACE_BUFFER=%s", buffer ? buffer : "");
    int k = 0;
    cmd[k++] = argv[optind];
    if (is_mpirun(argv[optind])) {
        cmd[k++] = "-x", cmd[k++] = pre, cmd[k++] = "-x", cmd[k++] = tdir;
        if (buffer)
            cmd[k++] = "-x", cmd[k++] = tbuf;
    } else {
        setenv("LD_PRELOAD", so, 1);
        setenv("MPILENS_TRACE_DIR", dir, 1);
        if (buffer)
            setenv("MPILENS_TRACE_BUFFER", buffer, 1);
    }
    for (int i = optind + 1; i < argc; i++)
        cmd[k++] = argv[i];
    cmd[k] = NULL;
    fprintf(stderr, "mpilens: tracing into %s\n", dir);
    int status = run(cmd);
    free(cmd);
    if (status < 0) {
        lens_err_set(&e, LENS_EIO, "cannot run '%s': %s", argv[optind], strerror(errno));
        return lens_cli_fail(&e);
    }
    if (!exists(dir, "traces.otf2") && exists(dir, "raw/0.defs")) {
        /* no MPI_Finalize: convert what the ranks flushed */
        if (lens_datadir_find_lib("mpilens-trace-recover", recover, sizeof recover, &e) != LENS_OK)
            return lens_cli_fail(&e);
        char *rargv[] = {recover, dir, NULL};
        fprintf(stderr, "mpilens: the run ended without MPI_Finalize; recovering the trace up "
                        "to the last flush of each rank\n");
        if (run(rargv) != 0) {
            lens_err_set(&e, LENS_EIO, "%s/raw: could not recover a trace", dir);
            return lens_cli_fail(&e);
        }
    }
    if (!exists(dir, "traces.otf2")) {
        lens_err_set(&e, LENS_EIO, "%s: no trace written (exit status %d; did the program call "
                     "MPI_Init?)", dir, status);
        return lens_cli_fail(&e);
    }
    printf("%s\n", anchor);
    if (status != 0) {
        fprintf(stderr, "mpilens: the command exited with status %d\n", status);
        return LENS_EXIT_FAIL;
    }
    return LENS_EXIT_OK;
}
