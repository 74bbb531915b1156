/* Internals shared by trace.c (state, tables, start/stop) and trace_wrap.c (the MPI_*
 * wrappers). Not installed; nothing here is exported from libmpilens-trace.so. */
#ifndef LENS_TRACE_INT_H
#define LENS_TRACE_INT_H

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
void lens_tr_abort(void);

/* User functions (trace_func.c): enters not written yet must precede any new record. */
extern int lens_tr_func_pending;
void lens_tr_func_sync(void);
void lens_tr_func_start(uint64_t t0, int provided);
void lens_tr_func_stop(uint64_t t);

/* The next free record; flushes the buffer to disk when it is full. */
static inline struct lens_trace_rec *lens_tr_rec(void)
{
    if (lens_tr_func_pending)
        lens_tr_func_sync();
    if (lens_tr.n == lens_tr.cap)
        lens_tr_flush();
    return &lens_tr.buf[lens_tr.n++];
}

static inline void lens_tr_lock(void)
{
    if (lens_tr.mt)
        while (atomic_flag_test_and_set_explicit(&lens_tr.lock, memory_order_acquire))
            ;
}

static inline void lens_tr_unlock(void)
{
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
}

#endif
