/* The event side of the OTF2 reader (otf2evt.h): one rank's clock offsets and events
 * folded into MPI calls that hold their message, collective and RMA records. */
#include "otf2evt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Callbacks cannot return an error message to OTF2, only "interrupt": the first failure is kept
 * in s->rc and s->e, later ones (often consequences of the first) are dropped so the message
 * names the cause. */
int lens_otf2evt_fail(struct lens_otf2evt *s, int code, const char *fmt, ...)
{
    char msg[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (s->rc == LENS_OK)
        s->rc = lens_err_set(s->e, code, "%s: %s", s->path, msg);
    return s->rc;
}

/* Clock offsets are local definitions of each rank: forget the previous rank's before reading
 * this one's. The user-region stack restarts empty, as every rank's events start at top level. */
void lens_otf2evt_begin(struct lens_otf2evt *s, int rank)
{
    s->rank = rank;
    s->nclock = 0;
    s->mpi_depth = s->depth = 0;
}

/* Runs after the rank's last event: fixes up what only the end can tell (the event count and a
 * call left open by a crash). */
void lens_otf2evt_end(struct lens_otf2evt *s, uint64_t nevents)
{
    struct lens_trace_rank *r = &s->t->ranks[s->rank];
    r->nevents = nevents; /* every event, also kinds without a callback */
    /* A call still open here would keep leave == enter and no records: closing it at the rank's
     * last event keeps its records (the recovered traces of crashed runs end like this). */
    if (s->mpi_depth > 0) { /* truncated inside a call: close it at the last event */
        r->calls[s->call].leave = r->t_last;
        r->calls[s->call].nrec = r->nrecs - r->calls[s->call].rec;
    }
    /* Counts ranks with clock offsets, so the reader can say whether times were corrected at
     * all. */
    if (s->nclock)
        s->t->clock_offsets++;
    s->t->nevents += r->nevents;
}

static OTF2_CallbackCode on_clock_offset(void *u, OTF2_TimeStamp time, int64_t off, double sd);

/* Only ClockOffset is read from the local definitions; everything else there (local mappings)
 * our writer and Score-P leave empty or identical to the global definitions. */
OTF2_DefReaderCallbacks *lens_otf2evt_def_callbacks(void)
{
    OTF2_DefReaderCallbacks *cb = OTF2_DefReaderCallbacks_New();
    if (cb)
        OTF2_DefReaderCallbacks_SetClockOffsetCallback(cb, on_clock_offset);
    return cb;
}

/* ---- local definitions: clock offsets ---- */

/* Offsets arrive in time order (OTF2 writes them at init and finalize, sometimes in between),
 * which seconds() relies on to interpolate between neighbours. The standard deviation is
 * unused. */
static OTF2_CallbackCode on_clock_offset(void *u, OTF2_TimeStamp time, int64_t off, double sd)
{
    struct lens_otf2evt *s = u;
    (void)sd;
    if (s->nclock == s->capclock) {
        size_t m = s->capclock ? 2 * s->capclock : 4;
        struct lens_otf2evt_clock *p = lens_realloc(s->clock, m * sizeof *p);
        if (!p) {
            lens_otf2evt_fail(s, LENS_ENOMEM, "out of memory reading clock offsets");
            return OTF2_CALLBACK_INTERRUPT;
        }
        s->clock = p;
        s->capclock = m;
    }
    s->clock[s->nclock++] = (struct lens_otf2evt_clock){time, off};
    return OTF2_CALLBACK_SUCCESS;
}

/* Seconds since the global offset, with the rank's offset interpolated linearly between its
 * measurements (extrapolated from the end segments outside them, as Scalasca does). */
static double seconds(const struct lens_otf2evt *s, uint64_t ts)
{
    double off = 0;
    if (s->nclock == 1) {
        off = (double)s->clock[0].offset;
    } else if (s->nclock > 1) {
        size_t i = 0;
        /* Find the segment [i, i+1] around ts; stopping at the last segment makes times after
         * the last measurement extrapolate along it rather than freeze at its offset. Linear in
         * the number of offsets, which is 2 in practice (init and finalize). */
        while (i + 2 < s->nclock && ts > s->clock[i + 1].time)
            i++;
        const struct lens_otf2evt_clock *a = &s->clock[i], *b = &s->clock[i + 1];
        /* Tick differences are taken as signed 64-bit before converting to double, so a
         * timestamp before the first measurement gives a negative fraction (extrapolation)
         * instead of a huge unsigned one. */
        double span = (double)(int64_t)(b->time - a->time);
        double f = span != 0 ? (double)(int64_t)(ts - a->time) / span : 0;
        off = (double)a->offset + f * (double)(b->offset - a->offset);
    }
    /* Subtract the global offset in integer ticks first: timestamps are ~1e18 ticks and a
     * double cannot hold them to the tick, but their difference from the offset it can. */
    return ((double)(int64_t)(ts - s->global_offset) + off) / s->t->resolution;
}

/* ---- events ---- */

static OTF2_CallbackCode oom(struct lens_otf2evt *s)
{
    lens_otf2evt_fail(s, LENS_ENOMEM, "out of memory reading events of rank %d", s->rank);
    return OTF2_CALLBACK_INTERRUPT;
}

/* Call sites are interned: one per (enclosing user region, module, return-address offset), so
 * the problem listing can add up time per site by comparing indices. LENS_NONE on out of
 * memory. */
static uint32_t add_site(struct lens_otf2evt *s, uint32_t caller, uint32_t module, uint64_t offset)
{
    struct lens_trace *t = s->t;
    /* sites are few; a linear scan from the end finds repeated call sites at once */
    for (uint32_t i = t->nsites; i-- > 0;)
        if (t->sites[i].caller == caller && t->sites[i].module == module &&
            t->sites[i].offset == offset)
            return i;
    if (t->nsites == t->cap_sites) {
        uint32_t m = t->cap_sites ? 2 * t->cap_sites : 16;
        struct lens_trace_site *p = lens_realloc(t->sites, m * sizeof *p);
        if (!p)
            return LENS_NONE;
        t->sites = p;
        t->cap_sites = m;
    }
    t->sites[t->nsites] = (struct lens_trace_site){caller, module, offset};
    return t->nsites++;
}

/* A call starts with leave == enter and no records; on_leave closes it. Capacity doubles so a
 * rank with millions of calls costs amortised O(1) per call. */
static int open_call(struct lens_otf2evt *s, double t, uint32_t region, uint32_t site)
{
    struct lens_trace_rank *r = &s->t->ranks[s->rank];
    if (r->ncalls == r->cap_calls) {
        uint32_t m = r->cap_calls ? 2 * r->cap_calls : 256;
        struct lens_trace_call *p = lens_realloc(r->calls, (size_t)m * sizeof *p);
        if (!p)
            return LENS_ENOMEM;
        r->calls = p;
        r->cap_calls = m;
    }
    s->call = r->ncalls++;
    r->calls[s->call] = (struct lens_trace_call){t, t, region, site, r->nrecs, 0};
    return LENS_OK;
}

/* Every event widens the rank's [t_first, t_last], used for the run time of the rank (the share
 * of a problem) and to close truncated calls. Clock correction can make events slightly out of
 * order, hence min/max rather than first/last. */
static void note_time(struct lens_otf2evt *s, double t)
{
    struct lens_trace_rank *r = &s->t->ranks[s->rank];
    if (r->nevents++ == 0 || t < r->t_first) /* counted again exactly after reading */
        r->t_first = t;
    if (t > r->t_last)
        r->t_last = t;
}

static OTF2_CallbackCode add_rec(struct lens_otf2evt *s, uint64_t ts, int kind, int32_t peer,
                                 uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req);

/* Keeps an Enter or Leave when the caller asked for region events (profiles). */
/* Region events double the memory of a trace and only the profile analysis wants them, so they
 * are kept on request only. */
static int add_rev(struct lens_otf2evt *s, double t, uint32_t region, uint32_t enter)
{
    struct lens_trace_rank *r = &s->t->ranks[s->rank];
    if (!(s->flags & LENS_TRACE_READ_REGIONS))
        return LENS_OK;
    if (r->nrevs == r->cap_revs) {
        uint32_t m = r->cap_revs ? 2 * r->cap_revs : 256;
        struct lens_trace_region_event *p = m > r->cap_revs ? lens_realloc(r->revs, (size_t)m * sizeof *p) : NULL;
        if (!p)
            return LENS_ENOMEM;
        r->revs = p;
        r->cap_revs = m;
    }
    r->revs[r->nrevs++] = (struct lens_trace_region_event){t, region, enter};
    return LENS_OK;
}

static OTF2_CallbackCode on_enter(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    struct lens_otf2evt *s = u;
    (void)loc, (void)pos;
    double t = seconds(s, ts);
    note_time(s, t);
    if (add_rev(s, t, region, 1))
        return oom(s);
    /* Regions are classified once when the definitions are read (trace.c): 2 means an MPI
     * function. Everything else is a user region that only matters as the caller of the next
     * MPI call. */
    int mpi = region < s->t->nregions && s->region_mpi[region] == 2;
    if (!mpi) {
        /* User regions entered inside an MPI call (a PMPI wrapper's helpers) are not callers of
         * application code, so the stack only moves at MPI depth 0. Past LENS_OTF2EVT_STACK
         * levels the depth is still counted (leaves must balance) but the region is not stored. */
        if (s->mpi_depth == 0 && s->depth < LENS_OTF2EVT_STACK)
            s->stack[s->depth] = region;
        if (s->mpi_depth == 0)
            s->depth++;
        return OTF2_CALLBACK_SUCCESS;
    }
    if (s->mpi_depth++ > 0)
        return OTF2_CALLBACK_SUCCESS; /* nested MPI call: its records go to the outer one */
    /* The caller is the innermost open user region, when it was stored; deeper recursion than
     * the stack holds reports no caller rather than a wrong one. */
    uint32_t caller =
        s->depth > 0 && s->depth <= LENS_OTF2EVT_STACK ? s->stack[s->depth - 1] : LENS_NONE;
    uint32_t module = LENS_NONE;
    uint64_t offset = 0;
    OTF2_AttributeValue v;
    OTF2_Type type;
    /* Our collector attaches the return address as (module, offset) to each MPI Enter; the type
     * checks refuse an attribute of the same name written by someone else with another type. */
    if (al && s->attr_module != LENS_NONE &&
        OTF2_AttributeList_GetAttributeByID(al, s->attr_module, &type, &v) == OTF2_SUCCESS &&
        type == OTF2_TYPE_STRING)
        module = v.stringRef;
    if (al && s->attr_offset != LENS_NONE &&
        OTF2_AttributeList_GetAttributeByID(al, s->attr_offset, &type, &v) == OTF2_SUCCESS &&
        type == OTF2_TYPE_UINT64)
        offset = v.uint64;
    uint32_t site = add_site(s, caller, module, offset);
    if (site == LENS_NONE || open_call(s, t, region, site))
        return oom(s);
    /* Win_post/start/complete/wait carry no OTF2 RMA record naming their window; our collector
     * puts it on the Enter, and a WINDOW record lets the epoch builder (rmaepochs.c) find it. */
    if (al && s->attr_window != LENS_NONE &&
        OTF2_AttributeList_GetAttributeByID(al, s->attr_window, &type, &v) == OTF2_SUCCESS &&
        type == OTF2_TYPE_RMA_WIN)
        return add_rec(s, ts, LENS_TREC_RMA_WINDOW, -1, v.rmaWinRef, 0, 0, 0);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode on_leave(OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u,
                                  OTF2_AttributeList *al, OTF2_RegionRef region)
{
    struct lens_otf2evt *s = u;
    (void)loc, (void)pos, (void)al;
    double t = seconds(s, ts);
    note_time(s, t);
    if (add_rev(s, t, region, 0))
        return oom(s);
    int mpi = region < s->t->nregions && s->region_mpi[region] == 2;
    if (!mpi) {
        if (s->mpi_depth == 0 && s->depth > 0)
            s->depth--;
        return OTF2_CALLBACK_SUCCESS;
    }
    /* An MPI leave at depth 0 has no matching enter: the archive starts (or a buffer was
     * flushed) inside a call. Ignoring it keeps the depth from going negative. */
    if (s->mpi_depth == 0)
        return OTF2_CALLBACK_SUCCESS; /* leave without enter: trace began inside a call */
    /* Only the outermost MPI call is closed: records of nested MPI calls (an MPI function
     * implemented by calling another) belong to the call the application made. */
    if (--s->mpi_depth == 0) {
        struct lens_trace_rank *r = &s->t->ranks[s->rank];
        struct lens_trace_call *c = &r->calls[s->call];
        c->leave = t;
        c->nrec = r->nrecs - c->rec;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* Appends a record to the open call, or to an instantaneous pseudo-call when none is open. */
static OTF2_CallbackCode add_rec(struct lens_otf2evt *s, uint64_t ts, int kind, int32_t peer,
                                 uint32_t comm, uint32_t tag, uint64_t bytes, uint64_t req)
{
    struct lens_trace_rank *r = &s->t->ranks[s->rank];
    double t = seconds(s, ts);
    note_time(s, t);
    /* A record outside any MPI call (a trace whose MPI regions were filtered out or cut off)
     * becomes a pseudo-call of zero length at its time, with no region, so the message still
     * matches and costs no wait. */
    if (s->mpi_depth == 0) {
        uint32_t site = add_site(
            s, s->depth > 0 && s->depth <= LENS_OTF2EVT_STACK ? s->stack[s->depth - 1] : LENS_NONE,
            LENS_NONE, 0);
        if (site == LENS_NONE || open_call(s, t, LENS_NONE, site))
            return oom(s);
    }
    if (r->nrecs == r->cap_recs) {
        uint32_t m = r->cap_recs ? 2 * r->cap_recs : 256;
        struct lens_trace_record *p = lens_realloc(r->recs, (size_t)m * sizeof *p);
        if (!p)
            return oom(s);
        r->recs = p;
        r->cap_recs = m;
    }
    r->recs[r->nrecs++] = (struct lens_trace_record){t, bytes, req, peer, comm, tag, (uint8_t)kind};
    /* The RMA kinds are numbered last in enum lens_rec_kind (from LENS_TREC_RMA_WIN_CREATE to
     * LENS_TREC_RMA_WINDOW), so one comparison counts them; nrma == 0 lets lens_events_build
     * skip the one-sided epochs. A new non-RMA kind must be added before
     * LENS_TREC_RMA_WIN_CREATE. */
    if (kind >= LENS_TREC_RMA_WIN_CREATE)
        s->t->nrma++;
    if (s->mpi_depth == 0)
        /* The pseudo-call holds exactly this record and is already closed (mpi_depth stays 0). */
        r->calls[s->call].nrec = 1;
    return OTF2_CALLBACK_SUCCESS;
}

/* OTF2 names partners by rank in the communicator; all analyses compare world ranks, so the
 * translation happens once, here (-1 when the communicator or rank is unknown). */
static int32_t world(struct lens_otf2evt *s, uint32_t comm, uint32_t r)
{
    return lens_trace_world_rank(s->t, comm, r, s->rank);
}

/* Every OTF2 event callback starts with the same five arguments; the macro keeps the callbacks
 * below to their payload. Location and position are unused: the reader reads one rank at a
 * time. */
#define EVT_HEAD                                                                                   \
    OTF2_LocationRef loc, OTF2_TimeStamp ts, uint64_t pos, void *u, OTF2_AttributeList *al
#define EVT_UNUSED (void)loc, (void)pos, (void)al

static OTF2_CallbackCode on_send(EVT_HEAD, uint32_t peer, OTF2_CommRef c, uint32_t tag,
                                 uint64_t len)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_SEND, world(u, c, peer), c, tag, len, 0);
}
static OTF2_CallbackCode on_isend(EVT_HEAD, uint32_t peer, OTF2_CommRef c, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_ISEND, world(u, c, peer), c, tag, len, req);
}
/* Completion carries only the request: events.c matches it to the Isend through the request id. */
static OTF2_CallbackCode on_isend_complete(EVT_HEAD, uint64_t req)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_ISEND_COMPLETE, -1, 0, 0, 0, req);
}
static OTF2_CallbackCode on_irecv_request(EVT_HEAD, uint64_t req)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_IRECV_REQUEST, -1, 0, 0, 0, req);
}
static OTF2_CallbackCode on_recv(EVT_HEAD, uint32_t peer, OTF2_CommRef c, uint32_t tag,
                                 uint64_t len)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_RECV, world(u, c, peer), c, tag, len, 0);
}
/* Written at completion (in the Wait call); the posting call is found through the matching
 * IrecvRequest of the same request id. */
static OTF2_CallbackCode on_irecv(EVT_HEAD, uint32_t peer, OTF2_CommRef c, uint32_t tag,
                                  uint64_t len, uint64_t req)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_IRECV, world(u, c, peer), c, tag, len, req);
}
static OTF2_CallbackCode on_cancelled(EVT_HEAD, uint64_t req)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_CANCELLED, -1, 0, 0, 0, req);
}
/* The collective's op and root go into tag and peer (trace.h): the record layout is shared by
 * all kinds to keep one array per rank. A rootless collective has root OTF2_UNDEFINED_UINT32. */
static OTF2_CallbackCode on_coll_end(EVT_HEAD, OTF2_CollectiveOp op, OTF2_CommRef c, uint32_t root,
                                     uint64_t sent, uint64_t received)
{
    EVT_UNUSED;
    int32_t r = root == OTF2_UNDEFINED_UINT32 ? -1 : world(u, c, root);
    return add_rec(u, ts, LENS_TREC_COLL_END, r, c, op, sent, received);
}
static OTF2_CallbackCode on_win_create(EVT_HEAD, OTF2_RmaWinRef w)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_RMA_WIN_CREATE, -1, w, 0, 0, 0);
}
static OTF2_CallbackCode on_win_destroy(EVT_HEAD, OTF2_RmaWinRef w)
{
    EVT_UNUSED;
    return add_rec(u, ts, LENS_TREC_RMA_WIN_DESTROY, -1, w, 0, 0, 0);
}
/* Fences end in an RMA collective end on the window; the sync level and root add nothing to the
 * wait-state patterns. */
static OTF2_CallbackCode on_rma_coll_end(EVT_HEAD, OTF2_CollectiveOp op, OTF2_RmaSyncLevel lvl,
                                         OTF2_RmaWinRef w, uint32_t root, uint64_t sent,
                                         uint64_t received)
{
    EVT_UNUSED;
    (void)lvl, (void)root;
    return add_rec(u, ts, LENS_TREC_RMA_COLL_END, -1, w, op, sent, received);
}
static OTF2_CallbackCode on_group_sync(EVT_HEAD, OTF2_RmaSyncLevel lvl, OTF2_RmaWinRef w,
                                       OTF2_GroupRef g)
{
    EVT_UNUSED;
    (void)lvl;
    return add_rec(u, ts, LENS_TREC_RMA_GROUP_SYNC, -1, w, g, 0, 0);
}
/* RMA partners are ranks in the window's communicator. */
static int32_t win_peer(struct lens_otf2evt *s, OTF2_RmaWinRef w, uint32_t remote)
{
    uint32_t comm = w < s->t->nwins ? s->t->win_comm[w] : LENS_NONE;
    return lens_trace_world_rank(s->t, comm, remote, s->rank);
}
static OTF2_CallbackCode on_lock(EVT_HEAD, OTF2_RmaWinRef w, uint32_t remote, uint64_t id,
                                 OTF2_LockType type)
{
    EVT_UNUSED;
    (void)id;
    return add_rec(u, ts, LENS_TREC_RMA_LOCK, win_peer(u, w, remote), w, 0, 0, type);
}
static OTF2_CallbackCode on_unlock(EVT_HEAD, OTF2_RmaWinRef w, uint32_t remote, uint64_t id)
{
    EVT_UNUSED;
    (void)id;
    return add_rec(u, ts, LENS_TREC_RMA_UNLOCK, win_peer(u, w, remote), w, 0, 0, 0);
}
static OTF2_CallbackCode on_put(EVT_HEAD, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes,
                                uint64_t id)
{
    EVT_UNUSED;
    (void)id;
    return add_rec(u, ts, LENS_TREC_RMA_PUT, win_peer(u, w, remote), w, 0, bytes, 0);
}
static OTF2_CallbackCode on_get(EVT_HEAD, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes,
                                uint64_t id)
{
    EVT_UNUSED;
    (void)id;
    return add_rec(u, ts, LENS_TREC_RMA_GET, win_peer(u, w, remote), w, 0, bytes, 0);
}

/* An atomic (accumulate, fetch-and-op) is counted as a put of the bytes it sent: for the lock
 * and epoch patterns only the access matters, not its arithmetic. */
static OTF2_CallbackCode on_atomic(EVT_HEAD, OTF2_RmaWinRef w, uint32_t remote,
                                   OTF2_RmaAtomicType type, uint64_t sent, uint64_t received,
                                   uint64_t id)
{
    EVT_UNUSED;
    (void)type, (void)received, (void)id;
    return add_rec(u, ts, LENS_TREC_RMA_PUT, win_peer(u, w, remote), w, 0, sent, 0);
}

OTF2_EvtReaderCallbacks *lens_otf2evt_callbacks(void)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    if (!cb)
        return NULL;
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, on_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, on_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, on_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, on_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, on_isend_complete);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, on_irecv_request);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, on_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, on_irecv);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, on_cancelled);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, on_coll_end);
    OTF2_EvtReaderCallbacks_SetRmaWinCreateCallback(cb, on_win_create);
    OTF2_EvtReaderCallbacks_SetRmaWinDestroyCallback(cb, on_win_destroy);
    OTF2_EvtReaderCallbacks_SetRmaCollectiveEndCallback(cb, on_rma_coll_end);
    OTF2_EvtReaderCallbacks_SetRmaGroupSyncCallback(cb, on_group_sync);
    /* Request and acquire both open a lock epoch: a tool may write either or both (request
     * when asked, acquire when granted); build_locks (rmaepochs.c) merges such a pair. */
    OTF2_EvtReaderCallbacks_SetRmaAcquireLockCallback(cb, on_lock);
    OTF2_EvtReaderCallbacks_SetRmaRequestLockCallback(cb, on_lock);
    OTF2_EvtReaderCallbacks_SetRmaReleaseLockCallback(cb, on_unlock);
    OTF2_EvtReaderCallbacks_SetRmaPutCallback(cb, on_put);
    OTF2_EvtReaderCallbacks_SetRmaGetCallback(cb, on_get);
    OTF2_EvtReaderCallbacks_SetRmaAtomicCallback(cb, on_atomic);
    return cb;
}

