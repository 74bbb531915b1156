/* mpilens trace -- mpirun -np 4 ./app: runs an MPI command with the trace collector preloaded
 * into every rank, recovers the trace of a run that crashed, and says what the trace holds. */
#include "cli.h"
#include "common/atomic.h"

#include "analysis/trace/trace.h"
#include "common/datadir.h"
#include "common/time.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
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
            "  -b, --buffer SIZE  event buffer per rank before a flush to disk (default 1M)\n"
            "  -f, --flush SEC    also flush when SEC seconds passed since the last flush\n"
            "                     (default $MPILENS_TRACE_FLUSH_SEC or 1): what a SIGKILL loses\n"
            "  --procs LIST       trace at each process count of LIST (e.g. 1,2,4): COMMAND is then\n"
            "                     the program and its arguments, launched as scale run does\n"
            "                     (MPIRUN --allow-run-as-root --oversubscribe -np P COMMAND...),\n"
            "                     into DIR/p1, DIR/p2, ... with the wall times in DIR/walls.csv\n"
            "  --mpirun PATH      the launcher of --procs (default mpirun)\n"
            "  --time-pattern W   with --procs: the time of a run is the number after W on the\n"
            "                     last line of the program's output that starts with W (e.g.\n"
            "                     'time' for the sample Jacobis, 'mpilens-time:' as scale run\n"
            "                     reads it) instead of the launch's wall time; the output is\n"
            "                     kept in DIR/pP.out and a run without such a line fails\n"
            "  -h, --help         this text\n\n"
            "After the run it prints the events per rank and warns about ranks whose trace ends\n"
            "early (crash, MPI_Abort, kill); the trace keeps what they recorded until then.\n"
            "MPILENS_TRACE_KEEP_RAW=1 keeps DIR/raw. Exit status: the command's (128 + N when a\n"
            "signal N ended it), or 1 when no trace could be written, 2 for bad usage.\n\n"
            "example:\n"
            "  mpilens trace -o jacobi-trace -- mpirun -np 4 ./jacobi\n"
            "  mpilens trace --procs 1,2,4 -o naive -- build/bin/samples/jacobi_naive -n 256\n");
}

/* Whether cmd is Open MPI's launcher (by its base name): only it takes "-x VAR" to forward
 * a variable to remote ranks; other launchers get the variables in the environment. */
static int is_mpirun(const char *cmd)
{
    const char *b = strrchr(cmd, '/');
    b = b ? b + 1 : cmd;
    return !strcmp(b, "mpirun") || !strcmp(b, "mpiexec") || !strcmp(b, "orterun");
}

static volatile pid_t child; /* the command being waited for */

/* SIGTERM/SIGHUP to mpilens go on to the command (mpirun then ends the ranks, which flush
 * their traces) and mpilens waits to recover the trace. SIGINT from a terminal reaches the
 * whole process group, mpirun included, so it is only not fatal here. */
static void on_signal(int sig)
{
    if (sig != SIGINT && child > 0)
        kill(child, sig);
}

/* Runs argv, waits, returns its exit status (128 + signal when killed), -1 if it cannot run.
 * With out_path, the command's standard output goes to that file (created or truncated). */
static int run(char **argv, const char *out_path)
{
    pid_t pid;
    int st;
    struct sigaction sa, old[3];
    static const int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    /* no SA_RESTART: waitpid returns EINTR after a signal and the loop below waits again */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out_path)
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    /* handlers only once the child exists, so that a signal before has its default effect */
    child = pid;
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, &old[i]);
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            st = -1;
            break;
        }
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    child = 0;
    if (st == -1)
        return -1;
    /* as a shell reports it, so that scripts see the same status with or without mpilens */
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Reads the archive and says what it holds per rank; returns 0 or -1 (e filled). */
static int summarise(const char *dir, struct lens_err *e)
{
    struct lens_trace *t = NULL;
    /* enough room: the counts are summarised beyond 16 ranks (analysis/trace/trace.h) */
    char counts[2048], warning[4096];
    if (lens_trace_read(dir, &t, e) != LENS_OK)
        return -1;
    int early = lens_trace_ends_text(t, counts, sizeof counts, warning, sizeof warning);
    if (early < 0) {
        lens_trace_free(t);
        lens_err_set(e, LENS_ENOMEM, "out of memory");
        return -1;
    }
    /* on stderr: stdout carries only the anchor's path, for scripts */
    fprintf(stderr, "mpilens: %s\n", counts);
    if (t->nevents == 0)
        lens_cli_warn("%s: no rank kept any event (the run ended before its first flush)", dir);
    else if (early)
        lens_cli_warn("%s", warning);
    lens_trace_free(t);
    return 0;
}

/* Whether dir/name exists; the path is cut at PATH_MAX + 64, which then names nothing. */
static int exists(const char *dir, const char *name)
{
    char p[PATH_MAX + 64];
    struct stat sb;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &sb) == 0;
}

/* One traced run of cmdv (ncmd words) into the folder out; *wall (when not NULL) gets the
 * seconds the command took. Returns the exit status as documented in usage(). */
static int trace_once(const char *out, const char *buffer, int ncmd, char **cmdv, double *wall,
                      const char *stdout_path)
{
    char dir[PATH_MAX], so[PATH_MAX], recover[PATH_MAX];
    struct lens_err e;
    /* The collector and the recovery tool are found before anything runs: a missing install
     * fails at once (status 1), not after an hour-long MPI job. */
    if (lens_datadir_find_lib("libmpilens-trace.so", so, sizeof so, &e) != LENS_OK)
        return lens_cli_fail(&e);
    if (lens_atomic_mkdir_p(out, &e) != LENS_OK)
        return lens_cli_fail(&e);
    /* an absolute path: the ranks may start in another working directory */
    if (!realpath(out, dir)) {
        lens_err_set(&e, LENS_EIO, "%s: %s", out, strerror(errno));
        return lens_cli_fail(&e);
    }
    char anchor[PATH_MAX + 16];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    unlink(anchor); /* so that an anchor after the run is this run's */

    /* the collector's other settings reach remote ranks only with -x */
    static const char *const fwd[] = {"MPILENS_TRACE_FLUSH_SEC", "MPILENS_TRACE_KEEP_RAW",
                                      "MPILENS_TRACE_FUNCS", "MPILENS_TRACE_FUNC_DEPTH",
                                      "MPILENS_TRACE_FUNC_MIN", "MPILENS_TRACE_STATS"};
    const int nfwd = (int)(sizeof fwd / sizeof fwd[0]);
    int n = ncmd;
    /* the command, 3 pairs of -x (preload, folder, buffer), the forwarded settings, NULL */
    char **cmd = calloc((size_t)n + 7 + 2 * (size_t)nfwd, sizeof *cmd);
    char pre[PATH_MAX + 16], tdir[PATH_MAX + 24], tbuf[64];
    if (!cmd) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory");
        return lens_cli_fail(&e);
    }
    snprintf(pre, sizeof pre, "LD_PRELOAD=%s", so);
    snprintf(tdir, sizeof tdir, "MPILENS_TRACE_DIR=%s", dir);
    snprintf(tbuf, sizeof tbuf, "MPILENS_TRACE_BUFFER=%s", buffer ? buffer : "");
    int k = 0;
    cmd[k++] = cmdv[0];
    if (is_mpirun(cmdv[0])) {
        cmd[k++] = "-x", cmd[k++] = pre, cmd[k++] = "-x", cmd[k++] = tdir;
        if (buffer)
            cmd[k++] = "-x", cmd[k++] = tbuf;
        for (int i = 0; i < nfwd; i++)
            if (getenv(fwd[i]))
                cmd[k++] = "-x", cmd[k++] = (char *)fwd[i];
    } else {
        setenv("LD_PRELOAD", so, 1);
        setenv("MPILENS_TRACE_DIR", dir, 1);
        if (buffer)
            setenv("MPILENS_TRACE_BUFFER", buffer, 1);
    }
    /* the rest of the command as given, after the inserted -x pairs */
    for (int i = 1; i < ncmd; i++)
        cmd[k++] = cmdv[i];
    cmd[k] = NULL;
    fprintf(stderr, "mpilens: tracing into %s\n", dir);
    double t0 = lens_time_now();
    int status = run(cmd, stdout_path);
    /* wall time of the whole launch, start-up included: what a user waits for */
    if (wall)
        *wall = lens_time_now() - t0;
    free(cmd);
    if (status < 0) {
        lens_err_set(&e, LENS_EIO, "cannot run '%s': %s", cmdv[0], strerror(errno));
        return lens_cli_fail(&e);
    }
    /* Exit status from here on: the command's own when it failed (the more useful news),
     * else 1 when no trace could be written or read; 0 only when both went well. */
    if (!exists(dir, "traces.otf2") && exists(dir, "raw/0.defs")) {
        /* A run that ends without MPI_Finalize (crash, abort, kill) leaves only the raw
         * files: they are turned into an OTF2 archive holding each rank's events up to its
         * last buffer flush, by mpilens-trace-recover, which shares the collector's OTF2
         * writer (bench/trace) and says on stderr how each rank ended. */
        if (lens_datadir_find_lib("mpilens-trace-recover", recover, sizeof recover, &e) != LENS_OK)
            return lens_cli_fail(&e);
        char *rargv[] = {recover, dir, NULL};
        fprintf(stderr, "mpilens: the run ended without MPI_Finalize; recovering the trace up "
                        "to the last flush of each rank\n");
        if (run(rargv, NULL) != 0) {
            lens_err_set(&e, LENS_EIO, "%s/raw: could not recover a trace", dir);
            lens_cli_fail(&e);
            return status > 0 ? status : LENS_EXIT_FAIL;
        }
    }
    if (!exists(dir, "traces.otf2")) {
        lens_err_set(&e, LENS_EIO, "%s: no trace written (exit status %d; did the program call "
                     "MPI_Init?)", dir, status);
        lens_cli_fail(&e);
        return status > 0 ? status : LENS_EXIT_FAIL;
    }
    if (summarise(dir, &e) != 0) {
        lens_cli_fail(&e);
        return status > 0 ? status : LENS_EXIT_FAIL;
    }
    printf("%s\n", anchor);
    if (status > 128 && status < 128 + NSIG)
        fprintf(stderr, "mpilens: the command exited with status %d (signal %d, %s)\n", status,
                status - 128, strsignal(status - 128));
    else if (status != 0)
        fprintf(stderr, "mpilens: the command exited with status %d\n", status);
    /* the application's status, as the shell would give it (128 + N for signal N) */
    return status;
}

/* --procs: process counts at most (a fixed array; each one is a whole traced run) */
#define MAX_PROCS 64

/* "1,2,4" into p[]: integers from 1 to 1000000, no repeats; returns how many, -1 if malformed. */
static int parse_procs(const char *s, int *p)
{
    int n = 0;
    for (;;) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 1000000 || n == MAX_PROCS || (*end && *end != ','))
            return -1;
        /* a repeated count would overwrite its own folder and row */
        for (int i = 0; i < n; i++)
            if (p[i] == v)
                return -1;
        p[n++] = (int)v;
        if (!*end)
            return n;
        s = end + 1;
    }
}

/* The number after word on the last line of path that starts with word: 0, or -1 when
 * there is none or it is not a time > 0 (a program may print progress times before its
 * total, hence the last). */
static int program_time(const char *path, const char *word, double *secs)
{
    FILE *fp = fopen(path, "r");
    char line[4096];
    size_t n = strlen(word);
    int found = -1;
    if (!fp)
        return -1;
    while (fgets(line, sizeof line, fp))
        if (!strncmp(line, word, n)) {
            char *end;
            double v = strtod(line + n, &end);
            found = end > line + n && isfinite(v) && v > 0 ? (*secs = v, 0) : -1;
        }
    fclose(fp);
    return found;
}

/* --procs: one traced run per process count into out/pP, launched with the words of `scale
 * run` (cli/cmd_scale.c), then out/walls.csv (procs,seconds,status) that `problems
 * --versions` reads. Every count runs even after a failure, whose row has no time; the
 * status is then the first failed run's. */
static int trace_procs(const char *out, const char *buffer, const char *list, const char *mpirun,
                       const char *pattern, int ncmd, char **cmdv)
{
    int procs[MAX_PROCS], status[MAX_PROCS], first_bad = 0;
    double wall[MAX_PROCS];
    int n = parse_procs(list, procs);
    if (n < 0)
        return lens_cli_usage("trace", "--procs '%s' is not a list of distinct process counts "
                              "such as 1,2,4 (at most %d)", list, MAX_PROCS);
    struct lens_err e = {0};
    if (lens_atomic_mkdir_p(out, &e) != LENS_OK)
        return lens_cli_fail(&e);
    /* launcher, its 4 words, the program and its arguments, NULL */
    char **argv = calloc((size_t)ncmd + 6, sizeof *argv);
    if (!argv) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory");
        return lens_cli_fail(&e);
    }
    for (int i = 0; i < n; i++) {
        char np[16], sub[PATH_MAX];
        snprintf(np, sizeof np, "%d", procs[i]);
        snprintf(sub, sizeof sub, "%s/p%d", out, procs[i]);
        /* the same launch as `scale run` */
        int a = lens_cli_launch_words(argv, mpirun, np);
        for (int k = 0; k < ncmd; k++)
            argv[a++] = cmdv[k];
        argv[a] = NULL;
        wall[i] = 0; /* a launch that never started has no time */
        char outp[PATH_MAX + 16];
        snprintf(outp, sizeof outp, "%s/p%d.out", out, procs[i]);
        status[i] = trace_once(sub, buffer, a, argv, &wall[i], pattern ? outp : NULL);
        /* the program's own time: start-up and tracing set-up left out, which for short
         * runs are most of the wall time and would hide the gain */
        if (pattern && status[i] == 0 && program_time(outp, pattern, &wall[i]) != 0) {
            lens_cli_warn("%s: no line starting with '%s' and a time > 0", outp, pattern);
            status[i] = LENS_EXIT_FAIL;
        }
        if (status[i] != 0 && first_bad == 0)
            first_bad = status[i];
        fprintf(stderr, "mpilens: p=%d: %.6f s, status %d\n", procs[i], wall[i], status[i]);
    }
    free(argv);
    char path[PATH_MAX + 16];
    struct lens_atomic f;
    snprintf(path, sizeof path, "%s/walls.csv", out);
    /* written whatever happened: a failed count is a row with an empty time and its status,
     * so that the reader can say which count failed rather than find it missing */
    if (lens_atomic_open(&f, path, "w", &e) != LENS_OK)
        return lens_cli_fail(&e);
    fprintf(f.fp, "procs,seconds,status\n");
    for (int i = 0; i < n; i++) {
        if (status[i] == 0)
            fprintf(f.fp, "%d,%.6f,0\n", procs[i], wall[i]);
        else
            fprintf(f.fp, "%d,,%d\n", procs[i], status[i]);
    }
    int depth = lens_atomic_group_suspend();
    int rc = lens_atomic_commit(&f, &e);
    lens_atomic_group_resume(depth);
    if (rc != LENS_OK)
        return lens_cli_fail(&e);
    fprintf(stderr, "mpilens: wrote %s\n", path);
    return first_bad;
}

int cmd_trace(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"buffer", required_argument, NULL, 'b'},
                                             {"flush", required_argument, NULL, 'f'},
                                             {"procs", required_argument, NULL, 'P'},
                                             {"mpirun", required_argument, NULL, 'M'},
                                             {"time-pattern", required_argument, NULL, 'T'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    /* Default folder: the collector's own variable when set, so that `mpilens trace` and a
     * hand-made LD_PRELOAD run write to the same place; else ./mpilens-trace. */
    const char *out = getenv("MPILENS_TRACE_DIR"), *buffer = NULL, *flush = NULL;
    const char *procs = NULL, *mpirun = "mpirun", *pattern = NULL;
    int c;
    if (!out || !*out)
        out = "mpilens-trace";
    optind = 1;
    /* "+": stop at the first non-option, so that the command's own options (mpirun -np 4)
     * are left to it even without "--" */
    while ((c = getopt_long(argc, argv, "+o:b:f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'b': buffer = optarg; break;
        case 'f': flush = optarg; break;
        case 'P': procs = optarg; break;
        case 'M': mpirun = optarg; break;
        case 'T': pattern = optarg; break;
        case 'h': usage(stdout); return LENS_EXIT_OK;
        default: return lens_cli_usage("trace", "unknown option");
        }
    }
    if (optind >= argc)
        return lens_cli_usage("trace", "missing the command to run (mpilens trace -- mpirun ...)");
    /* The size is checked here (digits, one k/M/G suffix, not 0), before the run: inside the
     * ranks a bad value would surface only once the job is under way, once per rank. */
    if (buffer) {
        char *end;
        unsigned long long v = strtoull(buffer, &end, 10);
        if (end == buffer || (*end && strchr("kKmMgG", *end) == NULL) || (*end && end[1]) || v == 0)
            return lens_cli_usage("trace", "--buffer '%s' is not a size such as 65536, 64k or 8M",
                                  buffer);
    }
    if (flush) {
        char *end;
        /* 0 turns the timed flush off; the bound (about 11 days) only refuses typos */
        double v = strtod(flush, &end);
        if (end == flush || *end || !(v >= 0 && v <= 1e6))
            return lens_cli_usage("trace", "--flush '%s' is not a number of seconds such as 1 "
                                  "or 0.25", flush);
        /* set in our environment: forwarded below with the other collector settings */
        setenv("MPILENS_TRACE_FLUSH_SEC", flush, 1);
    }
    if (procs)
        return trace_procs(out, buffer, procs, mpirun, pattern, argc - optind, argv + optind);
    if (pattern)
        return lens_cli_usage("trace", "--time-pattern needs --procs");
    return trace_once(out, buffer, argc - optind, argv + optind, NULL, NULL);
}
