/* Reading an OTF2 archive (ours or Score-P's) into per-rank lists of MPI calls, each with the
 * message, collective and RMA records written inside it. Times are seconds since the trace's
 * global offset, corrected by the archive's ClockOffset records (linear interpolation).
 * A lens_trace owns every pointer inside it; lens_trace_free() releases them all. */
#ifndef LENS_OTF2READ_H
#define LENS_OTF2READ_H

#include "common/otf2names.h"
#include "common/err.h"

#include <stdint.h>

#define LENS_NONE UINT32_MAX /* "no region / site / string" */

enum lens_rec_kind {
    LENS_TREC_SEND = 1,         /* blocking send: peer, comm, tag, bytes */
    LENS_TREC_ISEND,            /* non-blocking send: peer, comm, tag, bytes, req */
    LENS_TREC_ISEND_COMPLETE,   /* req completed (Wait/Test family) */
    LENS_TREC_IRECV_REQUEST,    /* receive posted: req */
    LENS_TREC_RECV,             /* blocking receive completed: peer, comm, tag, bytes */
    LENS_TREC_IRECV,            /* non-blocking receive completed: peer, comm, tag, bytes, req */
    LENS_TREC_CANCELLED,        /* req cancelled */
    LENS_TREC_COLL_END,         /* collective: tag = OTF2 op, comm, peer = root (world), bytes
                                  sent, req = bytes received */
    LENS_TREC_RMA_WIN_CREATE,   /* comm = window index */
    LENS_TREC_RMA_WIN_DESTROY,  /* comm = window index */
    LENS_TREC_RMA_COLL_END,     /* comm = window index, tag = OTF2 op */
    LENS_TREC_RMA_GROUP_SYNC,   /* comm = window index, tag = group index */
    LENS_TREC_RMA_LOCK,         /* lock requested or acquired: comm = window, peer, req = type */
    LENS_TREC_RMA_UNLOCK,       /* comm = window, peer */
    LENS_TREC_RMA_PUT,          /* comm = window, peer, bytes */
    LENS_TREC_RMA_GET,          /* comm = window, peer, bytes */
    LENS_TREC_RMA_WINDOW        /* the call concerns window comm (our collector's attribute on
                                   Enter: Win_post/start/complete/wait have no other record) */
};

struct lens_trace_record {
    double t;       /* seconds */
    uint64_t bytes; /* message length or bytes sent */
    uint64_t req;   /* request id; bytes received for collectives; lock type for locks */
    int32_t peer;   /* partner or root as a world rank, -1 for none */
    uint32_t comm;  /* communicator index (window index for RMA records) */
    uint32_t tag;   /* message tag; collective op; group index for group syncs */
    uint8_t kind;   /* enum lens_rec_kind */
};

struct lens_trace_call {
    double enter, leave; /* seconds, clock-corrected */
    uint32_t region;     /* index into lens_trace.regions */
    uint32_t site;       /* index into lens_trace.sites */
    uint32_t rec, nrec;  /* the records written inside the call: rank.recs[rec .. rec+nrec) */
};

/* One Enter or Leave of any region (MPI or user), kept only when the archive is read with
 * LENS_TRACE_READ_REGIONS (profiles need them; the MPI analyses do not). */
struct lens_trace_region_event {
    double t;        /* seconds, clock-corrected */
    uint32_t region; /* index into lens_trace.regions */
    uint32_t enter;  /* 1: Enter, 0: Leave */
};

struct lens_trace_rank {
    struct lens_trace_call *calls; /* MPI calls in time order (outermost MPI regions only) */
    struct lens_trace_record *recs;   /* records of all calls, in time order */
    uint32_t ncalls, nrecs;
    uint32_t cap_calls, cap_recs;  /* allocated lengths */
    double t_first, t_last;        /* first and last event of the rank, seconds */
    uint64_t nevents;              /* OTF2 events read on this rank */
    struct lens_trace_region_event *revs; /* with LENS_TRACE_READ_REGIONS: every Enter and
                                             Leave in file order; NULL otherwise */
    uint32_t nrevs, cap_revs;
};

/* Where an MPI call was made from: the enclosing user region (Score-P) and/or the return
 * address as (module, offset) (our collector). */
struct lens_trace_site {
    uint32_t caller;  /* region index, LENS_NONE when the call was made outside any region */
    uint32_t module;  /* index into lens_trace.strings, LENS_NONE when not recorded */
    uint64_t offset;  /* byte offset of the return address inside module */
};

struct lens_trace_comm {
    int32_t *world; /* world rank of each communicator rank; NULL: identity (or self) */
    uint32_t size;  /* length of world */
    int self;       /* MPI_COMM_SELF-like: rank 0 is the calling rank */
    uint32_t name;  /* string index */
};

struct lens_trace {
    int nranks;
    struct lens_trace_rank *ranks; /* nranks entries, indexed by world rank */
    char **strings;                /* OTF2 string definitions by id (NULL holes) */
    uint32_t nstrings;
    char **regions;                /* region names by region index (owned copies) */
    uint32_t nregions;
    struct lens_trace_site *sites;
    uint32_t nsites, cap_sites;
    struct lens_trace_comm *comms; /* by OTF2 comm id */
    uint32_t ncomms;
    uint32_t *win_comm;            /* communicator of each RMA window, LENS_NONE unknown */
    uint32_t nwins;
    struct lens_trace_comm *groups; /* OTF2 groups (for RMA group syncs), same mapping */
    uint32_t ngroups;
    double resolution;             /* timer ticks per second */
    uint64_t nevents;              /* all OTF2 events read */
    uint64_t nrma;                 /* one-sided records (0: the RMA analysis is skipped) */
    int clock_offsets;             /* number of ranks that had ClockOffset records */
    int ours;                      /* 1: written by mpilens' collector (creator "mpilens ...") */
    /* How the traced run was made: the archive's MPILENS::* trace file properties, in
     * LENS_OTF2_PROP_KEYS order (common/otf2names.h: measured_at, mpi_library_version,
     * launcher, binding, cores_per_host). Owned; NULL when absent (an older or foreign trace). */
    char *prov[LENS_OTF2_NPROP];
};

/* How one rank's events end (lens_trace_ends): what a run that crashed or was killed kept. */
struct lens_trace_end {
    uint64_t nevents; /* OTF2 events read on the rank */
    double t_last;    /* seconds, its last event (0 when it has none) */
    int finalized;    /* it has an MPI_Finalize call */
    int early;        /* 1: its events stop before the run ended */
};

/* Fills out[t->nranks] and returns the number of ranks whose trace ends early: a rank
 * without events while another has some; a rank without MPI_Finalize when another rank has
 * it or the archive is ours (our collector always records it; Score-P too); in a foreign
 * archive where no rank has it, a rank whose last event is more than 10% of the run's span
 * before the latest one. *t_end is the latest last event of all ranks (seconds). */
int lens_trace_ends(const struct lens_trace *t, struct lens_trace_end *out, double *t_end);
/* The same as text for the commands: counts gets "events per rank: 0=102 1=102 ..." (a
 * summary beyond 16 ranks), warning "" or which ranks end early, why, and until when their
 * events are kept. Returns the number of early ranks, LENS_ENOMEM on failure. */
int lens_trace_ends_text(const struct lens_trace *t, char *counts, size_t ncounts, char *warning,
                         size_t nwarning);

/* Reads the archive whose anchor file is path ("traces.otf2") or the directory holding it.
 * Fills *out (caller-owned, release with lens_trace_free). Errors: LENS_EIO when the anchor
 * cannot be opened, LENS_EFORMAT for a damaged or truncated archive, LENS_ENOMEM. */
int lens_trace_read(const char *path, struct lens_trace **out, struct lens_err *e);
/* The same with flags: LENS_TRACE_READ_REGIONS also keeps every region Enter/Leave in
 * lens_trace_rank.revs (16 bytes per event). */
#define LENS_TRACE_READ_REGIONS 1u
int lens_trace_read_flags(const char *path, unsigned flags, struct lens_trace **out,
                          struct lens_err *e);
void lens_trace_free(struct lens_trace *t);

/* World rank of rank r of communicator comm as seen from world rank me; -1 when unknown. */
int32_t lens_trace_world_rank(const struct lens_trace *t, uint32_t comm, uint32_t r, int me);
/* Name of region idx ("?" when out of range). */
const char *lens_trace_region_name(const struct lens_trace *t, uint32_t idx);

/* ---- the rest of the trace wing (events, problems, rules, message sizes) ----
 * This header is the public contract of its folder: code outside the folder includes
 * this header and no other header of the folder (tests/test_layout.sh checks it). */
#include "trace_analysis.h" /* one trace analysed once: events and problems */
#include "rules.h" /* the problem rule base, parsed */
#include "ruleeval.h" /* rule conditions evaluated on events */
#include "msgsize.h" /* message-size distributions */
#include "callsite_resolve.h" /* call sites resolved to function, file and line */

#endif
