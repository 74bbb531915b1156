/* The event side of the OTF2 reader, used only by trace.c: the state of reading one
 * rank (clock offsets, open MPI call, user-region stack for call sites) and the OTF2
 * callbacks that fill lens_trace.ranks[rank]. Times: seconds since the global offset. */
#ifndef LENS_OTF2EVT_H
#define LENS_OTF2EVT_H

#include "trace.h"

#include <otf2/otf2.h>

#define LENS_OTF2EVT_STACK 256 /* user-region nesting kept for call sites */

struct lens_otf2evt_clock {
    uint64_t time;  /* local ticks */
    int64_t offset; /* ticks to add to reach the reference clock */
};

struct lens_otf2evt {
    struct lens_trace *t;        /* being filled (not owned) */
    struct lens_err *e;
    int rc;                      /* first failure inside a callback */
    const char *path;            /* anchor file, for messages */
    uint8_t *region_mpi;         /* per region: 0 undefined, 1 user, 2 MPI call (not owned) */
    uint32_t attr_module, attr_offset; /* our call-site attributes, LENS_NONE when absent */
    uint32_t attr_window;        /* our "mpilens::window" attribute, LENS_NONE when absent */
    uint64_t global_offset;      /* ticks, from the clock properties */
    unsigned flags;              /* LENS_TRACE_READ_* */
    /* per rank while its events are read */
    int rank;
    struct lens_otf2evt_clock *clock; /* owned; the caller frees it at the end */
    size_t nclock, capclock;
    int mpi_depth;               /* nesting of MPI regions (records go to the outermost) */
    uint32_t stack[LENS_OTF2EVT_STACK]; /* open user regions */
    int depth;
    uint32_t call;               /* index of the open MPI call */
};

/* Records the first failure as "path: message"; returns its code. */
int lens_otf2evt_fail(struct lens_otf2evt *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Starts rank's reading (before its local definitions); ends it after its n events. */
void lens_otf2evt_begin(struct lens_otf2evt *s, int rank);
void lens_otf2evt_end(struct lens_otf2evt *s, uint64_t nevents);
/* New callback sets (caller deletes them); their userData is a struct lens_otf2evt. */
OTF2_DefReaderCallbacks *lens_otf2evt_def_callbacks(void);
OTF2_EvtReaderCallbacks *lens_otf2evt_callbacks(void);

#endif
