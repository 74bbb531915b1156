/* Wrappers for collectives, communicator creation and one-sided calls (see trace_wrap.c for
 * point-to-point). Collective records carry bytes sent (the send buffers this rank supplies)
 * and bytes received (the receive buffers filled on this rank), and the root as a world rank. */
#include "trace_int.h"

/* The call site is the wrapper's return address: the instruction after the application's call,
 * which the reader maps back to a source line. It must be taken in the wrapper itself (a macro,
 * not a helper), or it would name the wrapper. */
#define SITE() ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* The end time is read before the lock: under MPI_THREAD_MULTIPLE waiting for the lock is not
 * part of the call. The root is stored as a world rank, like every peer in the trace. */
static void coll_rec(unsigned fn, uint64_t t0, uint64_t site, MPI_Comm comm, int root,
                     uint64_t sent, uint64_t recvd)
{
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    uint32_t idx = lens_tr_comm(comm);
    lens_tr_call(fn, t0, t1, site, root < 0 ? LENS_TRACE_NONE : lens_tr_world(idx, root), 0, idx,
                 sent, recvd, 0);
    lens_tr_unlock();
}

/* PMPI, not MPI: a query of ours must not appear in the trace as a call of the application. */
static int comm_rank(MPI_Comm c)
{
    int r = 0;
    PMPI_Comm_rank(c, &r);
    return r;
}

static int comm_size(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    return n;
}

/* The v-variants' counts are significant only at the root (or only on some ranks): NULL there
 * counts as nothing, never dereferenced. */
static uint64_t sum_bytes(int n, const int *counts, MPI_Datatype dt)
{
    uint64_t s = 0;
    for (int i = 0; counts && i < n; i++)
        s += lens_tr_bytes(counts[i], dt);
    return s;
}

/* Every wrapper times the PMPI call the same way: the start just before, and the record after
 * it returns, so tracing adds nothing inside the timed interval but the clock read. */
#define TIMED(call)                                                                          \
    uint64_t t0 = lens_clock_now();                                                          \
    int rc = call

/* Before MPI_Init and after MPI_Finalize (lens_tr.on is 0) every wrapper is a plain call of
 * its PMPI twin: nothing is read, locked or recorded. */
LENS_TR_EXPORT int MPI_Barrier(MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Barrier(comm);
    /* A barrier moves no data: sent and received are 0; the time inside is all waiting. */
    TIMED(PMPI_Barrier(comm));
    coll_rec(LENS_FN_Barrier, t0, SITE(), comm, -1, 0, 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Bcast(buf, count, dt, root, comm);
    TIMED(PMPI_Bcast(buf, count, dt, root, comm));
    uint64_t n = lens_tr_bytes(count, dt);
    int me = comm_rank(comm) == root;
    /* The root sends the buffer once (whatever tree the library uses inside), the others receive it. */
    coll_rec(LENS_FN_Bcast, t0, SITE(), comm, root, me ? n : 0, me ? 0 : n);
    return rc;
}

LENS_TR_EXPORT int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                              int root, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
    TIMED(PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm));
    uint64_t n = lens_tr_bytes(count, dt);
    /* Every rank contributes its buffer; only the root's receive buffer is filled. */
    coll_rec(LENS_FN_Reduce, t0, SITE(), comm, root, n, comm_rank(comm) == root ? n : 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                 MPI_Op op, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
    TIMED(PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm));
    uint64_t n = lens_tr_bytes(count, dt);
    /* Rootless: every rank supplies and receives the whole buffer. */
    coll_rec(LENS_FN_Allreduce, t0, SITE(), comm, -1, n, n);
    return rc;
}

LENS_TR_EXPORT int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                            MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Scan(sbuf, rbuf, count, dt, op, comm);
    TIMED(PMPI_Scan(sbuf, rbuf, count, dt, op, comm));
    uint64_t n = lens_tr_bytes(count, dt);
    /* Prefix reductions count like an allreduce on each rank (rank 0's Exscan result is undefined
     * but its buffer is still the receive buffer). */
    coll_rec(LENS_FN_Scan, t0, SITE(), comm, -1, n, n);
    return rc;
}

LENS_TR_EXPORT int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                              MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Exscan(sbuf, rbuf, count, dt, op, comm);
    TIMED(PMPI_Exscan(sbuf, rbuf, count, dt, op, comm));
    uint64_t n = lens_tr_bytes(count, dt);
    coll_rec(LENS_FN_Exscan, t0, SITE(), comm, -1, n, n);
    return rc;
}

LENS_TR_EXPORT int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    TIMED(PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
    int me = comm_rank(comm) == root;
    /* The root receives one block from every rank, itself included (rcount is per rank). */
    coll_rec(LENS_FN_Gather, t0, SITE(), comm, root, lens_tr_bytes(scount, stype),
             me ? (uint64_t)comm_size(comm) * lens_tr_bytes(rcount, rtype) : 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               const int rcounts[], const int displs[], MPI_Datatype rtype,
                               int root, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm);
    TIMED(PMPI_Gatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm));
    int me = comm_rank(comm) == root;
    /* The root's receive counts differ per rank: their sum is what it receives. */
    coll_rec(LENS_FN_Gatherv, t0, SITE(), comm, root, lens_tr_bytes(scount, stype),
             me ? sum_bytes(comm_size(comm), rcounts, rtype) : 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                               int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    TIMED(PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
    int me = comm_rank(comm) == root;
    /* The mirror of a gather: the root sends a block to every rank, each rank receives one. */
    coll_rec(LENS_FN_Scatter, t0, SITE(), comm, root,
             me ? (uint64_t)comm_size(comm) * lens_tr_bytes(scount, stype) : 0,
             lens_tr_bytes(rcount, rtype));
    return rc;
}

LENS_TR_EXPORT int MPI_Scatterv(const void *sbuf, const int scounts[], const int displs[],
                                MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                                int root, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm);
    TIMED(PMPI_Scatterv(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm));
    int me = comm_rank(comm) == root;
    coll_rec(LENS_FN_Scatterv, t0, SITE(), comm, root,
             me ? sum_bytes(comm_size(comm), scounts, stype) : 0, lens_tr_bytes(rcount, rtype));
    return rc;
}

LENS_TR_EXPORT int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                 int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    TIMED(PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
    /* Every rank sends its block and receives all P blocks. */
    coll_rec(LENS_FN_Allgather, t0, SITE(), comm, -1, lens_tr_bytes(scount, stype),
             (uint64_t)comm_size(comm) * lens_tr_bytes(rcount, rtype));
    return rc;
}

LENS_TR_EXPORT int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                  const int rcounts[], const int displs[], MPI_Datatype rtype,
                                  MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm);
    TIMED(PMPI_Allgatherv(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm));
    coll_rec(LENS_FN_Allgatherv, t0, SITE(), comm, -1, lens_tr_bytes(scount, stype),
             sum_bytes(comm_size(comm), rcounts, rtype));
    return rc;
}

LENS_TR_EXPORT int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    TIMED(PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm));
    uint64_t n = (uint64_t)comm_size(comm);
    /* One block to and from every rank: P blocks each way. */
    coll_rec(LENS_FN_Alltoall, t0, SITE(), comm, -1, n * lens_tr_bytes(scount, stype),
             n * lens_tr_bytes(rcount, rtype));
    return rc;
}

/* Per-peer counts: the sums over all peers, both ways. */
LENS_TR_EXPORT int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                                 MPI_Datatype stype, void *rbuf, const int rcounts[],
                                 const int rdispls[], MPI_Datatype rtype, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    TIMED(PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm));
    int n = comm_size(comm);
    coll_rec(LENS_FN_Alltoallv, t0, SITE(), comm, -1, sum_bytes(n, scounts, stype),
             sum_bytes(n, rcounts, rtype));
    return rc;
}

LENS_TR_EXPORT int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[],
                                      MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm);
    TIMED(PMPI_Reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm));
    /* Each rank contributes the whole vector (the sum of all counts) and receives its own share. */
    coll_rec(LENS_FN_Reduce_scatter, t0, SITE(), comm, -1, sum_bytes(comm_size(comm), rcounts, dt),
             lens_tr_bytes(rcounts[comm_rank(comm)], dt));
    return rc;
}

LENS_TR_EXPORT int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
                                            MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    if (!lens_tr.on)
        return PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm);
    TIMED(PMPI_Reduce_scatter_block(sbuf, rbuf, rcount, dt, op, comm));
    uint64_t n = lens_tr_bytes(rcount, dt);
    coll_rec(LENS_FN_Reduce_scatter_block, t0, SITE(), comm, -1, n * (uint64_t)comm_size(comm), n);
    return rc;
}

/* ---- communicators: every creation call advances the parent's counter on every member */

/* The child seed is taken even when the call failed or this rank got MPI_COMM_NULL: every
 * member of the parent makes the call, so every member must advance the same counter, or the
 * keys of later communicators would disagree between ranks. */
static void comm_rec(unsigned fn, uint64_t t0, uint64_t site, int rc, MPI_Comm parent,
                     MPI_Comm *out)
{
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    uint32_t p = lens_tr_comm(parent);
    uint64_t seed = lens_tr_child_seed(p);
    uint32_t idx = LENS_TRACE_NOIDX;
    if (rc == MPI_SUCCESS && *out != MPI_COMM_NULL)
        idx = lens_tr_comm_add(*out, seed, 0);
    /* the new communicator's index travels in aux */
    lens_tr_call(fn, t0, t1, site, LENS_TRACE_NONE, 0, p, 0, idx, 0);
    lens_tr_unlock();
}

/* Communicator creation: comm_rec registers the new communicator under a key every member
 * derives alike (parent key, creation counter, first member). */
LENS_TR_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out)
{
    if (!lens_tr.on)
        return PMPI_Comm_dup(comm, out);
    TIMED(PMPI_Comm_dup(comm, out));
    comm_rec(LENS_FN_Comm_dup, t0, SITE(), rc, comm, out);
    return rc;
}

LENS_TR_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *out)
{
    if (!lens_tr.on)
        return PMPI_Comm_split(comm, color, key, out);
    /* The pieces of a split share the seed; the first member's world rank tells them apart. */
    TIMED(PMPI_Comm_split(comm, color, key, out));
    comm_rec(LENS_FN_Comm_split, t0, SITE(), rc, comm, out);
    return rc;
}

/* Ranks outside the group get MPI_COMM_NULL but took part: comm_rec still advances the seed. */
LENS_TR_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *out)
{
    if (!lens_tr.on)
        return PMPI_Comm_create(comm, group, out);
    TIMED(PMPI_Comm_create(comm, group, out));
    comm_rec(LENS_FN_Comm_create, t0, SITE(), rc, comm, out);
    return rc;
}

LENS_TR_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info,
                                       MPI_Comm *out)
{
    if (!lens_tr.on)
        return PMPI_Comm_split_type(comm, type, key, info, out);
    TIMED(PMPI_Comm_split_type(comm, type, key, info, out));
    comm_rec(LENS_FN_Comm_split_type, t0, SITE(), rc, comm, out);
    return rc;
}

LENS_TR_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                                   int reorder, MPI_Comm *out)
{
    if (!lens_tr.on)
        return PMPI_Cart_create(comm, ndims, dims, periods, reorder, out);
    /* With reorder the ranks may be renumbered: the members are read from the new communicator. */
    TIMED(PMPI_Cart_create(comm, ndims, dims, periods, reorder, out));
    comm_rec(LENS_FN_Cart_create, t0, SITE(), rc, comm, out);
    return rc;
}

/* The handle is read before the call, which sets it to MPI_COMM_NULL; the table keeps the
 * communicator's entry (records refer to its index), only the handle's mapping goes. */
LENS_TR_EXPORT int MPI_Comm_free(MPI_Comm *comm)
{
    if (!lens_tr.on)
        return PMPI_Comm_free(comm);
    MPI_Comm h = *comm;
    TIMED(PMPI_Comm_free(comm));
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    long idx = lens_tr_map_get(&lens_tr.commmap, LENS_TR_HKEY(h));
    /* the handle may come back for a new communicator: forget it */
    lens_tr_map_del(&lens_tr.commmap, LENS_TR_HKEY(h));
    lens_tr_call(LENS_FN_Comm_free, t0, t1, SITE(), LENS_TRACE_NONE, 0,
                 idx < 0 ? LENS_TRACE_NOIDX : (uint32_t)idx, 0, 0, 0);
    lens_tr_unlock();
    return rc;
}

/* ---- one-sided: records carry the local window index; peers are world ranks */

/* A window created before tracing started has no index: its calls are recorded without one
 * and the converter leaves them out of the RMA events. */
static uint32_t win_idx(MPI_Win win)
{
    long v = lens_tr_map_get(&lens_tr.winmap, LENS_TR_HKEY(win));
    return v < 0 ? LENS_TRACE_NOIDX : (uint32_t)v;
}

/* RMA targets are ranks of the window's communicator; the trace stores world ranks. */
static int32_t win_peer(uint32_t w, int rank)
{
    return w == LENS_TRACE_NOIDX ? LENS_TRACE_NONE : lens_tr_world(lens_tr.wincomm[w], rank);
}

/* One record shape for every RMA call: the window index in idx, the target as a world rank,
 * and whatever the call moves in bytes. */
static void win_rec(unsigned fn, uint64_t t0, uint64_t site, MPI_Win win, int rank, int tag,
                    uint64_t bytes, uint64_t aux)
{
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    uint32_t w = win_idx(win);
    lens_tr_call(fn, t0, t1, site, rank < 0 ? LENS_TRACE_NONE : win_peer(w, rank), tag, w, bytes,
                 aux, 0);
    lens_tr_unlock();
}

/* Window creation is collective over comm, so every member numbers the new window alike. */
static void win_create_rec(unsigned fn, uint64_t t0, uint64_t site, int rc, MPI_Comm comm,
                           MPI_Win win)
{
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    uint32_t c = lens_tr_comm(comm);
    uint32_t w = rc == MPI_SUCCESS && c != LENS_TRACE_NOIDX ? lens_tr_win_add(win, c)
                                                            : LENS_TRACE_NOIDX;
    lens_tr_call(fn, t0, t1, site, LENS_TRACE_NONE, 0, w, 0, 0, 0);
    lens_tr_unlock();
}

LENS_TR_EXPORT int MPI_Win_create(void *base, MPI_Aint size, int disp, MPI_Info info,
                                  MPI_Comm comm, MPI_Win *win)
{
    if (!lens_tr.on)
        return PMPI_Win_create(base, size, disp, info, comm, win);
    TIMED(PMPI_Win_create(base, size, disp, info, comm, win));
    win_create_rec(LENS_FN_Win_create, t0, SITE(), rc, comm, *win);
    return rc;
}

LENS_TR_EXPORT int MPI_Win_allocate(MPI_Aint size, int disp, MPI_Info info, MPI_Comm comm,
                                    void *baseptr, MPI_Win *win)
{
    if (!lens_tr.on)
        return PMPI_Win_allocate(size, disp, info, comm, baseptr, win);
    TIMED(PMPI_Win_allocate(size, disp, info, comm, baseptr, win));
    win_create_rec(LENS_FN_Win_allocate, t0, SITE(), rc, comm, *win);
    return rc;
}

/* The index is looked up before the call frees the handle (which becomes MPI_WIN_NULL). */
LENS_TR_EXPORT int MPI_Win_free(MPI_Win *win)
{
    if (!lens_tr.on)
        return PMPI_Win_free(win);
    MPI_Win h = *win;
    uint32_t w = win_idx(h);
    TIMED(PMPI_Win_free(win));
    uint64_t t1 = lens_clock_now();
    lens_tr_lock();
    lens_tr_map_del(&lens_tr.winmap, LENS_TR_HKEY(h));
    lens_tr_call(LENS_FN_Win_free, t0, t1, SITE(), LENS_TRACE_NONE, 0, w, 0, 0, 0);
    lens_tr_unlock();
    return rc;
}

LENS_TR_EXPORT int MPI_Win_fence(int assert_, MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Win_fence(assert_, win);
    /* Fence, post, start, complete and wait are synchronisation only: no peer and no bytes; the
     * time inside is waiting for the other ranks of the epoch. */
    TIMED(PMPI_Win_fence(assert_, win));
    win_rec(LENS_FN_Win_fence, t0, SITE(), win, -1, 0, 0, 0);
    return rc;
}

/* Post/start/complete/wait (general active target): the epochs' waits show as call time. */
LENS_TR_EXPORT int MPI_Win_post(MPI_Group group, int assert_, MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Win_post(group, assert_, win);
    TIMED(PMPI_Win_post(group, assert_, win));
    win_rec(LENS_FN_Win_post, t0, SITE(), win, -1, 0, 0, 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Win_start(MPI_Group group, int assert_, MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Win_start(group, assert_, win);
    TIMED(PMPI_Win_start(group, assert_, win));
    win_rec(LENS_FN_Win_start, t0, SITE(), win, -1, 0, 0, 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Win_complete(MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Win_complete(win);
    TIMED(PMPI_Win_complete(win));
    win_rec(LENS_FN_Win_complete, t0, SITE(), win, -1, 0, 0, 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Win_wait(MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Win_wait(win);
    TIMED(PMPI_Win_wait(win));
    win_rec(LENS_FN_Win_wait, t0, SITE(), win, -1, 0, 0, 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Win_lock(int type, int rank, int assert_, MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Win_lock(type, rank, assert_, win);
    TIMED(PMPI_Win_lock(type, rank, assert_, win));
    /* The lock type goes in the tag field (0 exclusive, 1 shared), which RMA records do not use. */
    win_rec(LENS_FN_Win_lock, t0, SITE(), win, rank, type == MPI_LOCK_EXCLUSIVE ? 0 : 1, 0, 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Win_unlock(int rank, MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Win_unlock(rank, win);
    /* Unlock returns when the epoch's transfers are complete at the target: its time includes
     * them, which is why the trace shows transfer cost on unlock, not on put. */
    TIMED(PMPI_Win_unlock(rank, win));
    win_rec(LENS_FN_Win_unlock, t0, SITE(), win, rank, 0, 0, 0);
    return rc;
}

LENS_TR_EXPORT int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Put(obuf, ocount, otype, rank, disp, tcount, ttype, win);
    /* Put, get and accumulate only start a transfer; each gets a fresh matching id (aux) so a
     * reader can pair it with its completion. */
    TIMED(PMPI_Put(obuf, ocount, otype, rank, disp, tcount, ttype, win));
    win_rec(LENS_FN_Put, t0, SITE(), win, rank, 0, lens_tr_bytes(ocount, otype),
            ++lens_tr.next_match);
    return rc;
}

/* A get moves the target's data into the origin buffer: its size is the bytes moved. */
LENS_TR_EXPORT int MPI_Get(void *obuf, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                           int tcount, MPI_Datatype ttype, MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Get(obuf, ocount, otype, rank, disp, tcount, ttype, win);
    TIMED(PMPI_Get(obuf, ocount, otype, rank, disp, tcount, ttype, win));
    win_rec(LENS_FN_Get, t0, SITE(), win, rank, 0, lens_tr_bytes(ocount, otype),
            ++lens_tr.next_match);
    return rc;
}

/* Bytes of the origin buffer: what travels to the target, whatever op combines it there. */
LENS_TR_EXPORT int MPI_Accumulate(const void *obuf, int ocount, MPI_Datatype otype, int rank,
                                  MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                                  MPI_Win win)
{
    if (!lens_tr.on)
        return PMPI_Accumulate(obuf, ocount, otype, rank, disp, tcount, ttype, op, win);
    TIMED(PMPI_Accumulate(obuf, ocount, otype, rank, disp, tcount, ttype, op, win));
    win_rec(LENS_FN_Accumulate, t0, SITE(), win, rank, 0, lens_tr_bytes(ocount, otype),
            ++lens_tr.next_match);
    return rc;
}
