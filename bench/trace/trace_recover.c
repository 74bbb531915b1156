/* mpilens-trace-recover DIR: writes DIR/traces.otf2 from the raw files a traced run left
 * when it ended without MPI_Finalize (crash, abort, kill). Serial: one process writes every
 * location, through OTF2's serial collective callbacks. `mpilens trace` runs it for you.
 * Before converting it says on stderr how each rank ended, from the marks the collector
 * appends to raw/<rank>.defs: "signal N" (a crash signal was handled), "abort N" (MPI_Abort),
 * "end" (MPI_Finalize), "cont T" (flushed at a SIGCONT, which Open MPI's mpirun sends before
 * it kills a rank), none of them (SIGKILL, or a rank that never flushed).
 * MPILENS_TRACE_KEEP_RAW=1 keeps raw/ as it is after the conversion. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_otf2.h"

/* How rank r ended, as one short text in out. */
static void rank_end(const char *dir, int r, char *out, size_t n)
{
    char path[4200], line[512];
    int sig = 0, code = 0, aborted = 0, ended = 0, cont = 0;
    snprintf(path, sizeof path, "%s/raw/%d.defs", dir, r);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        snprintf(out, n, "no raw files (it never started tracing)");
        return;
    }
    while (fgets(line, sizeof line, fp)) {
        if (sscanf(line, "signal %d", &sig) == 1) /* the last signal mark wins */
            continue;
        if (sscanf(line, "abort %d", &code) == 1)
            aborted = 1;
        else if (!strncmp(line, "end ", 4))
            ended = 1;
        else if (!strncmp(line, "cont ", 5))
            cont = 1;
    }
    fclose(fp);
    /* The strongest evidence first: a rank that reached MPI_Finalize ended cleanly whatever came
     * before; an abort explains a later signal (MPI_Abort kills with one). */
    if (ended)
        snprintf(out, n, "reached MPI_Finalize");
    else if (aborted)
        snprintf(out, n, "called MPI_Abort (error code %d); everything it recorded is kept", code);
    else if (sig)
        snprintf(out, n, "ended by signal %d (%s); everything it recorded before is kept", sig,
                 strsignal(sig));
    else if (cont)
        snprintf(out, n, "flushed when mpirun sent SIGCONT before killing it, then ended with no "
                 "handler running (SIGKILL): events after that flush, if any, are lost");
    else
        snprintf(out, n, "no end mark (SIGKILL or a crash no handler saw): events after its "
                 "last flush are lost");
}

/* One line per way of ending, with its ranks as ranges ("ranks 0-1,3: ..."). */
/* Grouped by outcome, so a 1024-rank job that crashed on one rank prints two lines, not 1024. */
static void report_ends(const char *dir, int n)
{
    char (*how)[256] = malloc((size_t)n * sizeof *how); /* one outcome text per rank */
    char *done = calloc((size_t)n, 1);
    if (!how || !done) {
        free(how), free(done);
        return;
    }
    for (int r = 0; r < n; r++)
        rank_end(dir, r, how[r], sizeof how[r]);
    for (int r = 0; r < n; r++) {
        char list[512];
        size_t len = 0;
        int members = 0;
        if (done[r])
            continue;
        for (int q = r; q < n; q++) {
            if (done[q] || strcmp(how[q], how[r]))
                continue;
            int last = q; /* a run of consecutive ranks that ended the same way */
            while (last + 1 < n && !strcmp(how[last + 1], how[r]))
                last++;
            for (int k = q; k <= last; k++)
                done[k] = 1;
            members += last - q + 1;
            if (len < sizeof list - 32) /* room for one more range; else an ellipsis */
                len += (size_t)snprintf(list + len, sizeof list - len, last > q ? "%s%d-%d" : "%s%d",
                                        len ? "," : "", q, last);
            else if (len < sizeof list - 4)
                len += (size_t)snprintf(list + len, sizeof list - len, ",...");
            q = last;
        }
        fprintf(stderr, "mpilens-trace-recover: rank%s %s: %s\n", members > 1 ? "s" : "", list,
                how[r]);
    }
    free(how);
    free(done);
}

int main(int argc, char **argv)
{
    struct lens_err e;
    int n = 0;
    if (argc != 2 || !strcmp(argv[1], "--help")) { /* usage on stderr and status 2 when misused */
        fprintf(argc == 2 ? stdout : stderr, "usage: mpilens-trace-recover DIR\n");
        return argc == 2 ? 0 : 2;
    }
    const char *keep = getenv("MPILENS_TRACE_KEEP_RAW");
    int keep_raw = keep && *keep == '1';
    lens_err_clear(&e);
    /* The job size from rank 0's journal, then the outcome of every rank before converting: if the
     * conversion fails the user still learns how the run ended. */
    if (lens_trace_otf2_nranks(argv[1], &n, &e) == LENS_OK) {
        report_ends(argv[1], n);
        struct lens_trace_otf2_opts o = {.dir = argv[1], .nranks = n, .first = 0, .count = n,
                                         /* no callbacks: OTF2's serial mode, one process */
                                         .coll = NULL, .keep_raw = keep_raw};
        lens_trace_otf2_write(&o, &e);
    }
    if (e.code != LENS_OK) {
        fprintf(stderr, "mpilens-trace-recover: %s\n", e.msg);
        return 1;
    }
    if (!keep_raw) {
        char raw[4200];
        snprintf(raw, sizeof raw, "%s/raw", argv[1]);
        rmdir(raw); /* empty once every rank's files were converted */
    }
    return 0;
}
