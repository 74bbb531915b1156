/* One rank's raw definition file (<dir>/raw/<rank>.defs, written by trace.c as the run goes):
 * its communicators, windows, clock offsets, loaded modules and time marks. Read by the OTF2
 * conversion (trace_otf2.c) at finalize and by mpilens-trace-recover after a crash. The format
 * is line-based text; a line cut by a crash ends the file, unknown lines are skipped. */
#ifndef LENS_TRACE_DEFS_H
#define LENS_TRACE_DEFS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/otf2names.h"
#include "callsite.h"
#include "trace_symbols.h"

struct lens_trace_comm {
    uint32_t idx;
    uint64_t key;
    int n;
    int *world;    /* owned */
    int *inverse;  /* world rank -> rank in comm, built on first use (owned) */
    uint32_t gid;
};

struct lens_trace_win {
    uint32_t idx, comm, gid;
    uint64_t key;
};

struct lens_trace_clock {
    uint64_t t;
    int64_t off;
    uint64_t rtt;
};

struct lens_trace_defs {       /* one rank's .defs file */
    int present;
    int size;
    char host[256];
    uint64_t start, last, end;
    struct lens_callsite_table mods;
    uint32_t *modstr;          /* string id of each module's path, set by the OTF2 writer (owned) */
    struct lens_trace_comm *comms;
    size_t ncomm;
    struct lens_trace_win *wins;
    size_t nwin;
    struct lens_trace_clock clocks[8];
    int nclock;
    /* rank 0 only: the run's provenance, LENS_OTF2_PROP_KEYS order ("" when not written) */
    char prov[LENS_OTF2_NPROP][256];
};

/* Reads rank's file into d (zeroed, with d->mods initialised by lens_callsite_init); user
 * function addresses go to sym. With recovering set, a missing file is not an error (a rank
 * that never started) and d->present stays 0. Errors name "path:line". d owns what it holds
 * afterwards, also on failure: release it with lens_trace_defs_release. */
int lens_trace_defs_read(const char *dir, int rank, int nranks, int recovering,
                         struct lens_trace_symbols *sym, struct lens_trace_defs *d,
                         struct lens_err *e);
void lens_trace_defs_release(struct lens_trace_defs *d);

#endif
