/* Reading the collector's raw .defs files; see trace_defs.h. */
#include "trace_defs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_otf2.h"

/* "comm IDX KEY N W0 .. WN-1": the collector numbers communicators in the order it sees them,
 * so IDX must be the next index; a gap means the journal is not what the events refer to. */
static int parse_comm(struct lens_trace_defs *d, const char *a, struct lens_err *e)
{
    struct lens_trace_comm x = {0};
    int used = 0;
    if (sscanf(a, "%" SCNu32 " %" SCNx64 " %d%n", &x.idx, &x.key, &x.n, &used) != 3 || x.n < 0 ||
        x.idx != d->ncomm)
        return lens_err_set(e, LENS_EFORMAT, "bad comm line");
    x.world = lens_malloc((size_t)(x.n + 1) * sizeof *x.world); /* +1: never a zero-size allocation */
    void *p = lens_realloc(d->comms, (d->ncomm + 1) * sizeof *d->comms);
    if (!x.world || !p) {
        lens_free(x.world);
        /* d->comms = p;
         * A realloc that succeeded moved the array: keep the new pointer even though the line failed,
         * or release would free the old one. */
        if (p)
            d->comms = p;
        return lens_err_set(e, LENS_ENOMEM, "out of memory for communicators");
    }
    d->comms = p;
    a += used;
    for (int i = 0; i < x.n; i++) {
        if (sscanf(a, "%d%n", &x.world[i], &used) != 1) {
            lens_free(x.world);
            return lens_err_set(e, LENS_EFORMAT, "comm line with fewer than %d members", x.n);
        }
        a += used;
    }
    d->comms[d->ncomm++] = x;
    return LENS_OK;
}

/* One journal line, by its first word. The journal only grows (O_APPEND), so later lines add to
 * earlier ones: modules after a dlopen, a second clock line at MPI_Finalize, "last" per flush. */
static int parse_line(struct lens_trace_defs *d, int rank, const char *l, struct lens_err *e)
{
    int r;
    if (!strncmp(l, "module ", 7))
        return lens_callsite_add_line(&d->mods, l + 7, e);
    if (!strncmp(l, "comm ", 5))
        return parse_comm(d, l + 5, e);
    if (!strncmp(l, "win ", 4)) {
        struct lens_trace_win w = {0};
        if (sscanf(l + 4, "%" SCNu32 " %" SCNx64 " %" SCNu32, &w.idx, &w.key, &w.comm) != 3 ||
            w.idx != d->nwin || w.comm >= d->ncomm) /* a window names a communicator already defined */
            return lens_err_set(e, LENS_EFORMAT, "bad win line");
        void *p = lens_realloc(d->wins, (d->nwin + 1) * sizeof *d->wins);
        if (!p)
            return lens_err_set(e, LENS_ENOMEM, "out of memory for windows");
        d->wins = p;
        d->wins[d->nwin++] = w;
        return LENS_OK;
    }
    if (!strncmp(l, "clock ", 6)) {
        struct lens_trace_clock k;
        if (sscanf(l + 6, "%" SCNu64 " %" SCNd64 " %" SCNu64, &k.t, &k.off, &k.rtt) != 3)
            return lens_err_set(e, LENS_EFORMAT, "bad clock line");
        /* Two clock lines are written (start and finalize); up to 8 are kept, more ignored. */
        if (d->nclock < 8)
            d->clocks[d->nclock++] = k;
        return LENS_OK;
    }
    if (!strncmp(l, "rank ", 5)) {
        /* a file of another rank under this name is an error */
        if (sscanf(l + 5, "%d size %d", &r, &d->size) != 2 || r != rank || d->size <= 0)
            return lens_err_set(e, LENS_EFORMAT, "bad rank line (expected rank %d)", rank);
        return LENS_OK;
    }
    if (!strncmp(l, "host ", 5)) {
        /* cut to the buffer, newline dropped */
        snprintf(d->host, sizeof d->host, "%.*s", (int)strcspn(l + 5, "\n"), l + 5);
        return LENS_OK;
    }
    if (!strncmp(l, "start ", 6))
        return sscanf(l + 6, "%" SCNu64, &d->start) == 1 ? LENS_OK
               : lens_err_set(e, LENS_EFORMAT, "bad start line");
    /* "last" is the end time of the last flushed record: for a crashed rank it is where the trace
     * ends, since no "end" line was written. */
    if (!strncmp(l, "last ", 5))
        return sscanf(l + 5, "%" SCNu64, &d->last) == 1 ? LENS_OK
               : lens_err_set(e, LENS_EFORMAT, "bad last line");
    if (!strncmp(l, "end ", 4))
        return sscanf(l + 4, "%" SCNu64, &d->end) == 1 ? LENS_OK
               : lens_err_set(e, LENS_EFORMAT, "bad end line");
    if (!strncmp(l, "prov ", 5)) {
        /* "prov KEY VALUE": a key this reader does not know is skipped like an unknown line */
        static const char *const keys[] = LENS_OTF2_PROP_KEYS;
        const char *k = l + 5;
        for (int i = 0; i < LENS_OTF2_NPROP; i++) {
            size_t n = strlen(keys[i]);
            if (!strncmp(k, keys[i], n) && k[n] == ' ')
                snprintf(d->prov[i], sizeof d->prov[i], "%.*s", (int)strcspn(k + n + 1, "\n"), k + n + 1);
        }
        return LENS_OK;
    }
    return LENS_OK; /* unknown lines: newer writers may add some */
}

/* getline, not a fixed buffer: a comm line lists every member and grows with the job size. */
int lens_trace_defs_read(const char *dir, int rank, int nranks, int recovering,
                         struct lens_trace_symbols *sym, struct lens_trace_defs *d,
                         struct lens_err *e)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/raw/%d.defs", dir, rank);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        if (errno == ENOENT && recovering)
            return LENS_OK; /* recovery: a rank that never started leaves an empty location */
        return lens_err_set(e, LENS_EIO, "%s: %s", path, strerror(errno));
    }
    char *line = NULL;
    size_t cap = 0;
    int rc = LENS_OK, lineno = 0;
    while (rc == LENS_OK && getline(&line, &cap, fp) > 0) {
        lineno++;
        if (lineno == 1 && strncmp(line, "mpilens-trace 1", 15) != 0) /* the format's name and version */
            rc = lens_err_set(e, LENS_EFORMAT, "not an mpilens raw definition file");
        else if (line[strlen(line) - 1] != '\n')
            /* A journal line is written with one write(2), so only the very last line can be cut, and only
             * by a crash in the middle of it: what came before is whole and kept. */
            break; /* a line cut by a crash */
        else if (!strncmp(line, "func ", 5))
            /* a user function's address, for -finstrument-functions */
            rc = lens_trace_symbols_add(sym, rank, strtoull(line + 5, NULL, 16), e);
        else
            rc = parse_line(d, rank, line, e);
    }
    free(line);
    fclose(fp);
    if (rc != LENS_OK) {
        char where[4300];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        return lens_err_prefix(e, where); /* the message names file and line */
    }
    /* Every rank's journal must describe the same job, and every journal starts with
     * MPI_COMM_WORLD: anything else is a leftover of another run. */
    if (d->size != nranks || d->ncomm == 0)
        return lens_err_set(e, LENS_EFORMAT, "%s: size %d, expected %d ranks", path, d->size,
                            nranks);
    d->present = 1;
    return LENS_OK;
}

/* The job size comes from rank 0's journal, which exists for any run that reached MPI_Init:
 * recovery then knows how many ranks to look for. */
int lens_trace_otf2_nranks(const char *dir, int *nranks, struct lens_err *e)
{
    char path[4200], line[256];
    int r = -1, n = 0;
    snprintf(path, sizeof path, "%s/raw/0.defs", dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: %s", path, strerror(errno));
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "rank %d size %d", &r, &n) == 2)
            break;
    fclose(fp);
    if (r != 0 || n <= 0)
        return lens_err_set(e, LENS_EFORMAT, "%s: no 'rank 0 size N' line", path);
    *nranks = n;
    return LENS_OK;
}

/* The inverse maps were built lazily by the converter (comm_rank in trace_otf2.c). */
void lens_trace_defs_release(struct lens_trace_defs *d)
{
    for (size_t i = 0; i < d->ncomm; i++) {
        lens_free(d->comms[i].world);
        lens_free(d->comms[i].inverse);
    }
    lens_free(d->comms);
    lens_free(d->wins);
    lens_free(d->modstr);
    lens_callsite_release(&d->mods);
}
