/* Internals shared by trace.c (state, tables, start/stop) and trace_wrap.c (the MPI_*
 * wrappers). Not installed; nothing here is exported from libmpilens-trace.so. */
#ifndef LENS_TRACE_INT_H
#define LENS_TRACE_INT_H

#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include <mpi.h>

#include "callsite.h"
#include "clocksync.h"
#include "trace.h"
#include "trace_otf2.h"

#define LENS_TR_HKEY(h) ((uintptr_t)(h)) /* handles are pointers (Open MPI) or ints (MPICH) */
#define LENS_TR_EXPORT __attribute__((visibility("default")))

/* Open-addressing map from handles to small indices. */
struct lens_tr_map {
    uintptr_t *key;
    uint32_t *val;
    unsigned char *used;
    size_t n, cap; /* cap is 0 or a power of two */
};

struct lens_tr_comm {
    uint64_t key;        /* same on every member; 0 = MPI_COMM_WORLD */
    int size, me;        /* size of the (remote) group, own rank */
    int *world;          /* world rank of each rank of the (remote) group, owned */
    uint64_t nchild;     /* communicators created from this one so far */
    uint64_t nwins;      /* windows created on this one so far */
};

struct lens_tr_req {
    uint64_t id, bytes;  /* request id in the trace, bytes (sends) */
    int32_t peer, tag;   /* world rank of the destination (sends) */
    uint32_t idx;        /* local comm index */
    uint32_t next_free;  /* free-list link while unused */
    uint16_t fn;         /* the call that started it */
    uint8_t recv;        /* 1: receive request */
};

/* The phases of the collector's own work, for its statistics: MPI_Init's setup (files,
 * communicator, clock sync), buffer flushes, MPI_Finalize's clock sync, and the conversion of
 * the raw files into the OTF2 archive (with its barriers). */
enum { LENS_TR_START, LENS_TR_FLUSH, LENS_TR_SYNC, LENS_TR_ARCHIVE, LENS_TR_NPHASE };
struct lens_tr_mark {
    uint64_t wall, cpu;
};

struct lens_tr_state {
    int started, stopped, on, failed, mt, rank, size;
    MPI_Comm dup;                  /* private MPI_COMM_WORLD duplicate for our collectives */
    MPI_Group world_group;
    char dir[4096], evt_path[4200], defs_path[4200];
    int evt_fd, defs_fd;
    struct lens_trace_rec *buf;    /* preallocated, cap records */
    size_t n, cap;
    unsigned long long gen;        /* dl_iterate_phdr generation when modules were written */
    struct lens_tr_comm *comms;
    size_t ncomm, capcomm;
    struct lens_tr_map commmap;
    uint32_t *wincomm;             /* local comm index of each window */
    size_t nwin, capwin;
    struct lens_tr_map winmap;
    struct lens_tr_req *reqs;
    size_t nreq, capreq;
    uint32_t reqfree;
    struct lens_tr_map reqmap;
    uint64_t next_req, next_match;
    atomic_flag lock;              /* taken only under MPI_THREAD_MULTIPLE */
    uint64_t flush_ns;             /* MPILENS_TRACE_FLUSH_SEC: flush when this much time passed */
    uint64_t flushed_at;           /* local ns of the last flush (or of MPI_Init) */
    /* Read by the crash-signal handler (trace.c), which writes buf[0, n) itself: `open` says
     * that buf[n - 1] may be half filled, `flushing` that a write of the buffer is under way. */
    volatile sig_atomic_t open, flushing;
    int pid;                       /* getpid() at MPI_Init: a forked child writes nothing */
    /* Where the collector's time goes outside the wrappers (MPILENS_TRACE_STATS=1 prints it at
     * MPI_Finalize, docs/trace.md "Overhead"): wall and thread CPU ns of each phase, measured
     * around whole phases only, so that measuring adds nothing per call. CPU time is the figure
     * that survives a loaded machine, where wall time stretches with the other jobs. */
    struct {
        uint64_t wall[LENS_TR_NPHASE], cpu[LENS_TR_NPHASE];
        uint64_t nflush, records;   /* buffer writes to raw/<rank>.evt, records they wrote */
    } st;
};
extern struct lens_tr_state lens_tr;

void lens_tr_flush(void);
long lens_tr_map_get(const struct lens_tr_map *m, uintptr_t k);
int lens_tr_map_put(struct lens_tr_map *m, uintptr_t k, uint32_t v);
void lens_tr_map_del(struct lens_tr_map *m, uintptr_t k);
uint64_t lens_tr_mix(uint64_t a, uint64_t b);
uint32_t lens_tr_comm_add(MPI_Comm comm, uint64_t seed, uint64_t fixed);
uint32_t lens_tr_comm_slow(MPI_Comm comm);
uint64_t lens_tr_child_seed(uint32_t parent);
uint32_t lens_tr_win_add(MPI_Win win, uint32_t comm);
void lens_tr_req_add(MPI_Request h, const struct lens_tr_req *r);
/* Appends the sub-record of a finished request known to the table; returns 1 if it did. */
int lens_tr_req_done(MPI_Request h, const MPI_Status *st, uint64_t t);
void lens_tr_start(unsigned fn, uint64_t t0, uint64_t site, int provided);
void lens_tr_stop(uint64_t t0, uint64_t site);
/* MPI_Abort(comm, code) on this rank: flushes and notes the code in the .defs file. */
void lens_tr_abort(int code);

/* User functions (trace_func.c): enters not written yet must precede any new record. */
extern int lens_tr_func_pending;
void lens_tr_func_sync(void);
void lens_tr_func_start(uint64_t t0, int provided);
void lens_tr_func_stop(uint64_t t);

/* The next free record; flushes the buffer to disk when it is full. The record stays `open`
 * (not written by a signal handler) until lens_tr_closed(): records are filled one after the
 * other, so only the last one can be incomplete. */
static inline struct lens_trace_rec *lens_tr_rec(void)
{
    if (lens_tr_func_pending)
        lens_tr_func_sync();
    if (lens_tr.n == lens_tr.cap)
        lens_tr_flush();
    lens_tr.open = 1;
    atomic_signal_fence(memory_order_seq_cst); /* compiler barrier only: same thread */
    return &lens_tr.buf[lens_tr.n++];
}

/* The last record is complete. */
static inline void lens_tr_closed(void)
{
    atomic_signal_fence(memory_order_seq_cst);
    lens_tr.open = 0;
}

/* Flushes when MPILENS_TRACE_FLUSH_SEC passed since the last flush (t: now, local ns), so that
 * a SIGKILL loses at most that much of the run. Only between complete call groups. */
static inline void lens_tr_flush_due(uint64_t t)
{
    if ((int64_t)(t - lens_tr.flushed_at) >= (int64_t)lens_tr.flush_ns)
        lens_tr_flush();
}

static inline void lens_tr_lock(void)
{
    if (lens_tr.mt)
        while (atomic_flag_test_and_set_explicit(&lens_tr.lock, memory_order_acquire))
            ;
}

static inline void lens_tr_unlock(void)
{
    lens_tr_closed();
    if (lens_tr.mt)
        atomic_flag_clear_explicit(&lens_tr.lock, memory_order_release);
}

static inline uint32_t lens_tr_comm(MPI_Comm c)
{
    return c == MPI_COMM_WORLD ? 0 : lens_tr_comm_slow(c);
}

/* World rank of rank r of local comm idx; LENS_TRACE_NONE for MPI_PROC_NULL/ANY_SOURCE. */
static inline int32_t lens_tr_world(uint32_t idx, int r)
{
    if (r < 0 || idx == LENS_TRACE_NOIDX)
        return LENS_TRACE_NONE;
    if (idx == 0)
        return r;
    const struct lens_tr_comm *c = &lens_tr.comms[idx];
    return r < c->size ? c->world[r] : LENS_TRACE_NONE;
}

static inline uint64_t lens_tr_bytes(int count, MPI_Datatype dt)
{
    int sz = 0;
    if (count <= 0 || dt == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(dt, &sz);
    return sz > 0 ? (uint64_t)count * (uint64_t)sz : 0;
}

/* Appends one CALL record. */
static inline void lens_tr_call(unsigned fn, uint64_t t0, uint64_t t1, uint64_t site,
                                int32_t peer, int32_t tag, uint32_t idx, uint64_t bytes,
                                uint64_t aux, uint32_t nsub)
{
    struct lens_trace_rec *r = lens_tr_rec();
    r->t0 = t0;
    r->t1 = t1;
    r->site = site;
    r->bytes = bytes;
    r->aux = aux;
    r->peer = peer;
    r->tag = tag;
    r->idx = idx;
    r->fn = (uint16_t)fn;
    r->type = LENS_REC_CALL;
    r->nsub = nsub;
    r->pad = 0;
    lens_tr_closed();
    lens_tr_flush_due(t1); /* a call record ends its group: a flush here splits none */
}

#endif
