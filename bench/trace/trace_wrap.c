/* The MPI_* wrappers of the collector. Each one reads the clock, calls PMPI_*, reads the
 * clock again and appends one record (plus one sub-record per request it finished). The
 * application's arguments are passed through untouched; MPI_STATUS(ES)_IGNORE is replaced by
 * a local status only to learn the source and size of what arrived. */
#include "trace_int.h"

#include <stdlib.h>

/* The application's call site: taken in each exported wrapper (a macro, so never in a helper,
 * which would name the wrapper instead). */
#define SITE() ((uint64_t)(uintptr_t)__builtin_return_address(0))
#define SMALL 64 /* requests handled without allocating in the Wait/Test family */

/* ---- Init / Finalize / Abort */

LENS_TR_EXPORT int MPI_Init(int *argc, char ***argv)
{
    uint64_t t0 = lens_clock_now();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        /* Tracing starts only once MPI works: the collector needs PMPI for its own setup (a private
         * communicator, the clock offsets), and MPI_Init's own time is recorded from t0. */
        lens_tr_start(LENS_FN_Init, t0, SITE(), MPI_THREAD_SINGLE);
    return rc;
}

LENS_TR_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    uint64_t t0 = lens_clock_now();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        /* The thread level provided decides whether records are appended under a lock. */
        lens_tr_start(LENS_FN_Init_thread, t0, SITE(), *provided);
    return rc;
}

LENS_TR_EXPORT int MPI_Finalize(void)
{
    /* The archive is written inside MPI_Finalize, before PMPI_Finalize: OTF2's collective writing
     * needs MPI still running. */
    if (lens_tr.started && !lens_tr.stopped)
        lens_tr_stop(lens_clock_now(), SITE());
    return PMPI_Finalize();
}

LENS_TR_EXPORT int MPI_Abort(MPI_Comm comm, int code)
{
    lens_tr_abort(code); /* keep what was recorded: `mpilens trace` recovers it */
    return PMPI_Abort(comm, code);
}

/* ---- blocking point-to-point */

/* All four send modes record the same: the destination as a world rank, the tag and the bytes.
 * The mode stays in fn, so the analysis can tell a synchronous send's wait from a buffered one. */
static int send_common(unsigned fn, int rc, uint64_t t0, uint64_t site, int count,
                       MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    uint32_t idx = lens_tr_comm(comm);
    lens_tr_call(fn, t0, t1, site, lens_tr_world(idx, dest), tag, idx, lens_tr_bytes(count, dt),
                 0, 0);
    lens_tr_unlock();
    return rc;
}

#define SEND_WRAPPER(NAME)                                                                   \
    LENS_TR_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest,    \
                                  int tag, MPI_Comm comm)                                   \
    {                                                                                        \
        if (!lens_tr.on)                                                                     \
            return PMPI_##NAME(buf, count, dt, dest, tag, comm);                             \
        uint64_t t0 = lens_clock_now();                                                      \
        int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm);                               \
        return send_common(LENS_FN_##NAME, rc, t0, SITE(), count, dt, dest, tag, comm);      \
    }
/* The four blocking send modes share one body; only the PMPI call and the fn differ. */
SEND_WRAPPER(Send)
SEND_WRAPPER(Ssend)
SEND_WRAPPER(Bsend)
SEND_WRAPPER(Rsend)

LENS_TR_EXPORT int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag,
                            MPI_Comm comm, MPI_Status *status)
{
    MPI_Status local;
    if (!lens_tr.on)
        return PMPI_Recv(buf, count, dt, source, tag, comm, status);
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    uint64_t t0 = lens_clock_now();
    /* With MPI_ANY_SOURCE or MPI_ANY_TAG only the status says who sent what: the application may
     * ignore it, the trace may not, hence a local status when it passed MPI_STATUS_IGNORE. */
    int rc = PMPI_Recv(buf, count, dt, source, tag, comm, st);
    uint64_t t1 = lens_clock_now();
    int n = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    lens_tr_lock();
    uint32_t idx = lens_tr_comm(comm);
    lens_tr_call(LENS_FN_Recv, t0, t1, SITE(), lens_tr_world(idx, st->MPI_SOURCE), st->MPI_TAG,
                 idx, n > 0 ? (uint64_t)n : 0, 0, 0);
    lens_tr_unlock();
    return rc;
}

/* A sendrecv is a send and a receive in one call: the call record carries the send, a
 * sub-record the receive, so the matching of messages sees both halves. */
static void sendrecv_rec(unsigned fn, uint64_t t0, uint64_t site, uint64_t sbytes, int dest,
                         int stag, MPI_Comm comm, const MPI_Status *st)
{
    uint64_t t1 = lens_clock_now();
    int n = 0, sub = 0;
    PMPI_Get_count(st, MPI_BYTE, &n);
    lens_tr_lock();
    uint32_t idx = lens_tr_comm(comm);
    int32_t src = lens_tr_world(idx, st->MPI_SOURCE);
    if (src != LENS_TRACE_NONE) { /* the receive half, as a blocking receive (aux 0) */
        struct lens_trace_rec *r = lens_tr_rec();
        memset(r, 0, sizeof *r);
        r->t1 = t1;
        r->peer = src;
        r->tag = st->MPI_TAG;
        r->idx = idx;
        r->bytes = n > 0 ? (uint64_t)n : 0;
        r->fn = (uint16_t)fn;
        r->type = LENS_REC_RECV_DONE;
        sub = 1;
    }
    lens_tr_call(fn, t0, t1, site, lens_tr_world(idx, dest), stag, idx, sbytes, 0, (uint32_t)sub);
    lens_tr_unlock();
}

LENS_TR_EXPORT int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest,
                                int stag, void *rbuf, int rcount, MPI_Datatype rtype, int source,
                                int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status local;
    if (!lens_tr.on)
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                             comm, status);
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    uint64_t t0 = lens_clock_now();
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                           comm, st);
    sendrecv_rec(LENS_FN_Sendrecv, t0, SITE(), lens_tr_bytes(scount, stype), dest, stag, comm, st);
    return rc;
}

/* One buffer both ways: the bytes sent are the buffer's, the bytes received come from the status. */
LENS_TR_EXPORT int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest,
                                        int stag, int source, int rtag, MPI_Comm comm,
                                        MPI_Status *status)
{
    MPI_Status local;
    if (!lens_tr.on)
        return PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, status);
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    uint64_t t0 = lens_clock_now();
    int rc = PMPI_Sendrecv_replace(buf, count, dt, dest, stag, source, rtag, comm, st);
    sendrecv_rec(LENS_FN_Sendrecv_replace, t0, SITE(), lens_tr_bytes(count, dt), dest, stag,
                 comm, st);
    return rc;
}

/* ---- non-blocking point-to-point */

/* The request gets a trace-wide id (aux) that its completion record repeats, so the reader
 * pairs the start with the wait that finished it. A send to MPI_PROC_NULL or a failed call
 * gets id 0: no completion will follow. */
static void isend_rec(unsigned fn, uint64_t t0, uint64_t site, int rc, int count, MPI_Datatype dt,
                      int dest, int tag, MPI_Comm comm, MPI_Request req)
{
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    uint32_t idx = lens_tr_comm(comm);
    struct lens_tr_req q = {++lens_tr.next_req, lens_tr_bytes(count, dt),
                            lens_tr_world(idx, dest), tag, idx, 0, (uint16_t)fn, 0};
    if (rc == MPI_SUCCESS && q.peer != LENS_TRACE_NONE)
        lens_tr_req_add(req, &q);
    else
        q.id = 0;
    lens_tr_call(fn, t0, t1, site, q.peer, tag, idx, q.bytes, q.id, 0);
    lens_tr_unlock();
}

#define ISEND_WRAPPER(NAME)                                                                  \
    LENS_TR_EXPORT int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest,    \
                                  int tag, MPI_Comm comm, MPI_Request *req)                 \
    {                                                                                        \
        if (!lens_tr.on)                                                                     \
            return PMPI_##NAME(buf, count, dt, dest, tag, comm, req);                        \
        uint64_t t0 = lens_clock_now();                                                      \
        int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm, req);                          \
        isend_rec(LENS_FN_##NAME, t0, SITE(), rc, count, dt, dest, tag, comm, *req);         \
        return rc;                                                                           \
    }
ISEND_WRAPPER(Isend)
ISEND_WRAPPER(Issend)
ISEND_WRAPPER(Ibsend)
ISEND_WRAPPER(Irsend)

LENS_TR_EXPORT int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag,
                             MPI_Comm comm, MPI_Request *req)
{
    if (!lens_tr.on)
        return PMPI_Irecv(buf, count, dt, source, tag, comm, req);
    uint64_t t0 = lens_clock_now();
    int rc = PMPI_Irecv(buf, count, dt, source, tag, comm, req);
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    uint32_t idx = lens_tr_comm(comm);
    /* A receive's source and size are known only on completion (any source, a shorter message):
     * the completion record, not this one, carries what arrived. */
    struct lens_tr_req q = {++lens_tr.next_req, 0, lens_tr_world(idx, source), tag, idx, 0,
                            LENS_FN_Irecv, 1};
    if (rc == MPI_SUCCESS && source != MPI_PROC_NULL)
        lens_tr_req_add(*req, &q);
    else
        q.id = 0;
    lens_tr_call(LENS_FN_Irecv, t0, t1, SITE(), q.peer, tag, idx, lens_tr_bytes(count, dt),
                 q.id, 0);
    lens_tr_unlock();
    return rc;
}

/* ---- the Wait/Test family: copy the handles first (PMPI sets them to MPI_REQUEST_NULL) */

/* Records the call after PMPI returned: done[k] = index of the k-th finished request. */
/* The handles were copied before the PMPI call, because it overwrites finished ones with
 * MPI_REQUEST_NULL; the copies find the requests in the table. Inactive handles (already
 * null) complete nothing and are skipped. */
static void wait_rec(unsigned fn, uint64_t t0, uint64_t site, const MPI_Request *h,
                     const MPI_Status *st, const int *done, int ndone)
{
    uint64_t t1 = lens_clock_now();
    uint32_t nsub = 0;
    lens_tr_lock();
    for (int k = 0; k < ndone; k++)
        if (h[done[k]] != MPI_REQUEST_NULL)
            nsub += (uint32_t)lens_tr_req_done(h[done[k]], &st[k], t1);
    /* nsub: how many sub-records precede this call */
    lens_tr_call(fn, t0, t1, site, LENS_TRACE_NONE, 0, LENS_TRACE_NOIDX, 0, 0, nsub);
    lens_tr_unlock();
}

/* The handle is copied before PMPI_Wait sets it to MPI_REQUEST_NULL: the copy finds the request
 * in the table; the status (a local one if ignored) gives a receive's source and size. */
LENS_TR_EXPORT int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    MPI_Status local;
    if (!lens_tr.on)
        return PMPI_Wait(req, status);
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    MPI_Request h = *req;
    int zero = 0;
    uint64_t t0 = lens_clock_now();
    int rc = PMPI_Wait(req, st);
    wait_rec(LENS_FN_Wait, t0, SITE(), &h, st, &zero, 1);
    return rc;
}

LENS_TR_EXPORT int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    MPI_Status local;
    if (!lens_tr.on)
        return PMPI_Test(req, flag, status);
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    MPI_Request h = *req;
    int zero = 0;
    uint64_t t0 = lens_clock_now();
    int rc = PMPI_Test(req, flag, st);
    /* An unsuccessful test still is a call (polling costs time) but finishes nothing. */
    wait_rec(LENS_FN_Test, t0, SITE(), &h, st, &zero, *flag ? 1 : 0);
    return rc;
}

/* Scratch for n handles, statuses and indices: on the stack up to SMALL, else allocated. */
/* Most programs wait on a few requests at a time: up to SMALL the scratch is on the stack and a
 * wait costs no malloc; more are allocated per call. */
struct wait_buf {
    MPI_Request hs[SMALL];
    MPI_Status ss[SMALL];
    int is[SMALL];
    MPI_Request *h;
    MPI_Status *s;
    int *idx;
};

static int wait_buf_init(struct wait_buf *w, int n, const MPI_Request *reqs)
{
    w->h = w->hs, w->s = w->ss, w->idx = w->is;
    if (n > SMALL) {
        w->h = malloc((size_t)n * sizeof *w->h);
        w->s = malloc((size_t)n * sizeof *w->s);
        w->idx = malloc((size_t)n * sizeof *w->idx);
        if (!w->h || !w->s || !w->idx) {
            if (w->h != w->hs) free(w->h);
            if (w->s != w->ss) free(w->s);
            if (w->idx != w->is) free(w->idx);
            return -1;
        }
    }
    if (n > 0)
        memcpy(w->h, reqs, (size_t)n * sizeof *w->h);
    return 0;
}

/* Frees only what wait_buf_init allocated: the stack arrays are the default. */
static void wait_buf_free(struct wait_buf *w)
{
    if (w->h != w->hs) free(w->h);
    if (w->s != w->ss) free(w->s);
    if (w->idx != w->is) free(w->idx);
}

/* If the scratch cannot be had, the call still goes through untraced: the application's wait
 * must never fail because of the collector. */
static int all_common(unsigned fn, int n, MPI_Request *reqs, int *flag, MPI_Status *sts,
                      uint64_t site)
{
    struct wait_buf w;
    if (n < 0 || wait_buf_init(&w, n, reqs) != 0)
        return fn == LENS_FN_Waitall ? PMPI_Waitall(n, reqs, sts) : PMPI_Testall(n, reqs, flag, sts);
    MPI_Status *st = sts == MPI_STATUSES_IGNORE ? w.s : sts;
    int one = 1;
    uint64_t t0 = lens_clock_now();
    /* Waitall and Testall complete all or nothing: on success every handle copied above finished,
     * and status i belongs to request i. */
    int rc = fn == LENS_FN_Waitall ? PMPI_Waitall(n, reqs, st) : PMPI_Testall(n, reqs, flag, st);
    if (fn == LENS_FN_Waitall)
        flag = &one;
    for (int i = 0; i < n; i++)
        w.idx[i] = i;
    /* statuses line up with the requests, so pass the status array itself */
    wait_rec(fn, t0, site, w.h, st, w.idx, *flag ? n : 0);
    wait_buf_free(&w);
    return rc;
}

LENS_TR_EXPORT int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
    if (!lens_tr.on)
        return PMPI_Waitall(n, reqs, sts);
    return all_common(LENS_FN_Waitall, n, reqs, NULL, sts, SITE());
}

LENS_TR_EXPORT int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status sts[])
{
    if (!lens_tr.on)
        return PMPI_Testall(n, reqs, flag, sts);
    return all_common(LENS_FN_Testall, n, reqs, flag, sts, SITE());
}

/* Waitany and Testany finish at most one request, whose index the library returns;
 * MPI_UNDEFINED (all handles null) finishes none. */
static int any_common(unsigned fn, int n, MPI_Request *reqs, int *index, int *flag,
                      MPI_Status *status, uint64_t site)
{
    MPI_Status local;
    struct wait_buf w;
    if (n < 0 || wait_buf_init(&w, n, reqs) != 0)
        return fn == LENS_FN_Waitany ? PMPI_Waitany(n, reqs, index, status)
                                     : PMPI_Testany(n, reqs, index, flag, status);
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &local : status;
    int one = 1;
    uint64_t t0 = lens_clock_now();
    int rc = fn == LENS_FN_Waitany ? PMPI_Waitany(n, reqs, index, st)
                                   : PMPI_Testany(n, reqs, index, flag, st);
    if (fn == LENS_FN_Waitany)
        flag = &one;
    /* a bad index is never used */
    int got = *flag && *index != MPI_UNDEFINED && *index >= 0 && *index < n;
    wait_rec(fn, t0, site, w.h, st, got ? index : NULL, got);
    wait_buf_free(&w);
    return rc;
}

LENS_TR_EXPORT int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    if (!lens_tr.on)
        return PMPI_Waitany(n, reqs, index, status);
    return any_common(LENS_FN_Waitany, n, reqs, index, NULL, status, SITE());
}

LENS_TR_EXPORT int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag,
                               MPI_Status *status)
{
    if (!lens_tr.on)
        return PMPI_Testany(n, reqs, index, flag, status);
    return any_common(LENS_FN_Testany, n, reqs, index, flag, status, SITE());
}

/* Waitsome and Testsome return the finished indices and their statuses packed in order:
 * status k belongs to request indices[k], as wait_rec expects. */
static int some_common(unsigned fn, int n, MPI_Request *reqs, int *outcount, int *indices,
                       MPI_Status *sts, uint64_t site)
{
    struct wait_buf w;
    if (n < 0 || wait_buf_init(&w, n, reqs) != 0)
        return fn == LENS_FN_Waitsome ? PMPI_Waitsome(n, reqs, outcount, indices, sts)
                                      : PMPI_Testsome(n, reqs, outcount, indices, sts);
    MPI_Status *st = sts == MPI_STATUSES_IGNORE ? w.s : sts;
    uint64_t t0 = lens_clock_now();
    /* MPI_UNDEFINED as outcount means no active handle: nothing finished. */
    int rc = fn == LENS_FN_Waitsome ? PMPI_Waitsome(n, reqs, outcount, indices, st)
                                    : PMPI_Testsome(n, reqs, outcount, indices, st);
    int got = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    wait_rec(fn, t0, site, w.h, st, indices, got);
    wait_buf_free(&w);
    return rc;
}

LENS_TR_EXPORT int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                                MPI_Status sts[])
{
    if (!lens_tr.on)
        return PMPI_Waitsome(n, reqs, outcount, indices, sts);
    return some_common(LENS_FN_Waitsome, n, reqs, outcount, indices, sts, SITE());
}

LENS_TR_EXPORT int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                                MPI_Status sts[])
{
    if (!lens_tr.on)
        return PMPI_Testsome(n, reqs, outcount, indices, sts);
    return some_common(LENS_FN_Testsome, n, reqs, outcount, indices, sts, SITE());
}
