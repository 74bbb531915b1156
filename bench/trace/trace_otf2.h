/* The trace collector's on-disk formats and its OTF2 writer. No mpi.h here: the collector
 * (trace.c) fills fixed-size records and appends them to raw files; this module turns the raw
 * files into an OTF2 archive, in parallel at MPI_Finalize (one rank per location, collective
 * operations through OTF2_CollectiveCallbacks) or serially after a crash (serial default).
 *
 * Files under DIR (MPILENS_TRACE_DIR, default ./mpilens-trace):
 *   raw/<rank>.evt   struct lens_trace_rec records, appended at each buffer flush
 *   raw/<rank>.defs  text lines, appended (never rewritten), one definition per line:
 *       mpilens-trace 1
 *       rank <r> size <n>
 *       host <hostname>
 *       start <ns>                     local CLOCK_MONOTONIC time of MPI_Init's entry
 *       module <bias> <lo> <hi> <path> hex; a loaded ELF object, bias = load bias
 *       comm <idx> <key> <n> <w0> ...  local comm index, 64-bit key (hex), world ranks
 *       win <idx> <key> <comm idx>     local window index, key, local index of its comm
 *       func <hex address>             a user function recorded (-finstrument-functions)
 *       clock <ns> <offset ns> <rtt>   offset to rank 0 measured at local time <ns>
 *       last <ns>                      time of the last record flushed so far
 *       end <ns>                       written at MPI_Finalize only
 *       signal <n>                     a crash signal n was handled (its flush is done)
 *       abort <code>                   MPI_Abort(comm, code) was called (after its flush)
 *       cont <ns>                      flushed at a SIGCONT (mpirun's warning before a kill)
 *       prov <key> <value>             rank 0 only, at MPI_Init: the run's provenance
 *                                      (common/otf2names.h LENS_OTF2_PROP_KEYS)
 *   traces.otf2, traces.def, traces/   the OTF2 archive (see docs/trace.md for the records)
 *
 * What the OTF2 archive holds (the analyzer relies on this; docs/trace.md has the long form):
 *   - timer: 1 tick = 1 ns of the rank's local CLOCK_MONOTONIC; ClockProperties resolution 1e9.
 *     Timestamps are NOT corrected; each location's local definitions carry ClockOffset records
 *     (time = local ns, offset = ns to add to reach rank 0's clock, stddev = rtt/2 in ns) measured
 *     at MPI_Init and MPI_Finalize; interpolate linearly between them (OTF2 readers can do it
 *     with OTF2_EvtReader_ApplyClockOffsets).
 *   - Trace file properties MPILENS::MEASURED_AT, _MPI_LIBRARY_VERSION, _LAUNCHER, _BINDING,
 *     _CORES_PER_HOST from rank 0's prov lines (absent when the journal has none).
 *   - Location r = world rank r (one location per process), LocationGroup r "MPI Rank r".
 *   - Region id = enum lens_trace_fn value, named by the MPI function ("MPI_Send"). User
 *     functions follow, LENS_FN_COUNT + i, in strcmp order of their names, paradigm COMPILER.
 *   - Attribute 0 "mpilens::callsite_module" (OTF2_TYPE_STRING: the module path) and attribute 1
 *     "mpilens::callsite_offset" (OTF2_TYPE_UINT64) on every Enter of an MPI region: the call
 *     site as ELF virtual address inside that module (return address - 1 - load bias), so
 *     libdw / addr2line on the module path give function and file:line. Attribute 2
 *     "mpilens::window" (OTF2_TYPE_RMA_WIN) on every Enter of an RMA region.
 *   - Per call: Enter(t0) [MpiSend(t0) | MpiRecv(t1) | MpiIsend(t0, req) | MpiIrecvRequest(t0)
 *     | MpiCollectiveBegin(t0) MpiCollectiveEnd(t1) | RmaCollectiveBegin/End, RmaWinCreate/Destroy,
 *     RmaRequestLock/AcquireLock/ReleaseLock, RmaPut/Get/Atomic] then, for each request the call
 *     completed, MpiIsendComplete(t1, req) or MpiIrecv(t1, ..., req), then Leave(t1).
 *   - Peers in MpiSend/MpiRecv/... are ranks in the record's communicator (OTF2 convention);
 *     Comm definitions point to COMM_GROUP groups whose members are world ranks.
 */
#ifndef LENS_TRACE_OTF2_H
#define LENS_TRACE_OTF2_H

#include <stdint.h>

#include <otf2/otf2.h>

#include "common/err.h"

/* Every traced MPI function: X(enum suffix, kind, OTF2 region role, OTF2 collective op).
 * The order gives the region ids, so append only. */
#define LENS_TRACE_FUNCTIONS(X)                                                          \
    X(Init, INIT, FUNCTION, 0)                                                           \
    X(Init_thread, INIT, FUNCTION, 0)                                                    \
    X(Finalize, INIT, FUNCTION, 0)                                                       \
    X(Send, SEND, POINT2POINT, 0)                                                        \
    X(Ssend, SEND, POINT2POINT, 0)                                                       \
    X(Bsend, SEND, POINT2POINT, 0)                                                       \
    X(Rsend, SEND, POINT2POINT, 0)                                                       \
    X(Recv, RECV, POINT2POINT, 0)                                                        \
    X(Sendrecv, SENDRECV, POINT2POINT, 0)                                                \
    X(Sendrecv_replace, SENDRECV, POINT2POINT, 0)                                        \
    X(Isend, ISEND, POINT2POINT, 0)                                                      \
    X(Issend, ISEND, POINT2POINT, 0)                                                     \
    X(Ibsend, ISEND, POINT2POINT, 0)                                                     \
    X(Irsend, ISEND, POINT2POINT, 0)                                                     \
    X(Irecv, IRECV, POINT2POINT, 0)                                                      \
    X(Wait, WAIT, POINT2POINT, 0)                                                        \
    X(Waitall, WAIT, POINT2POINT, 0)                                                     \
    X(Waitany, WAIT, POINT2POINT, 0)                                                     \
    X(Waitsome, WAIT, POINT2POINT, 0)                                                    \
    X(Test, WAIT, POINT2POINT, 0)                                                        \
    X(Testall, WAIT, POINT2POINT, 0)                                                     \
    X(Testany, WAIT, POINT2POINT, 0)                                                     \
    X(Testsome, WAIT, POINT2POINT, 0)                                                    \
    X(Barrier, COLL, BARRIER, OTF2_COLLECTIVE_OP_BARRIER)                                \
    X(Bcast, COLL, COLL_ONE2ALL, OTF2_COLLECTIVE_OP_BCAST)                               \
    X(Reduce, COLL, COLL_ALL2ONE, OTF2_COLLECTIVE_OP_REDUCE)                             \
    X(Allreduce, COLL, COLL_ALL2ALL, OTF2_COLLECTIVE_OP_ALLREDUCE)                       \
    X(Gather, COLL, COLL_ALL2ONE, OTF2_COLLECTIVE_OP_GATHER)                             \
    X(Gatherv, COLL, COLL_ALL2ONE, OTF2_COLLECTIVE_OP_GATHERV)                           \
    X(Scatter, COLL, COLL_ONE2ALL, OTF2_COLLECTIVE_OP_SCATTER)                           \
    X(Scatterv, COLL, COLL_ONE2ALL, OTF2_COLLECTIVE_OP_SCATTERV)                         \
    X(Allgather, COLL, COLL_ALL2ALL, OTF2_COLLECTIVE_OP_ALLGATHER)                       \
    X(Allgatherv, COLL, COLL_ALL2ALL, OTF2_COLLECTIVE_OP_ALLGATHERV)                     \
    X(Alltoall, COLL, COLL_ALL2ALL, OTF2_COLLECTIVE_OP_ALLTOALL)                         \
    X(Alltoallv, COLL, COLL_ALL2ALL, OTF2_COLLECTIVE_OP_ALLTOALLV)                       \
    X(Reduce_scatter, COLL, COLL_ALL2ALL, OTF2_COLLECTIVE_OP_REDUCE_SCATTER)             \
    X(Reduce_scatter_block, COLL, COLL_ALL2ALL, OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK) \
    X(Scan, COLL, COLL_OTHER, OTF2_COLLECTIVE_OP_SCAN)                                   \
    X(Exscan, COLL, COLL_OTHER, OTF2_COLLECTIVE_OP_EXSCAN)                               \
    X(Comm_dup, COMM, FUNCTION, 0)                                                       \
    X(Comm_split, COMM, FUNCTION, 0)                                                     \
    X(Comm_create, COMM, FUNCTION, 0)                                                    \
    X(Comm_split_type, COMM, FUNCTION, 0)                                                \
    X(Cart_create, COMM, FUNCTION, 0)                                                    \
    X(Comm_free, COMM, FUNCTION, 0)                                                      \
    X(Win_create, WIN_CREATE, RMA, OTF2_COLLECTIVE_OP_CREATE_HANDLE)                     \
    X(Win_allocate, WIN_CREATE, RMA, OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE)      \
    X(Win_free, WIN_FREE, RMA, OTF2_COLLECTIVE_OP_DESTROY_HANDLE)                        \
    X(Win_fence, FENCE, RMA, OTF2_COLLECTIVE_OP_BARRIER)                                 \
    X(Win_post, WIN_SYNC, RMA, 0)                                                        \
    X(Win_start, WIN_SYNC, RMA, 0)                                                       \
    X(Win_complete, WIN_SYNC, RMA, 0)                                                    \
    X(Win_wait, WIN_SYNC, RMA, 0)                                                        \
    X(Win_lock, LOCK, RMA, 0)                                                            \
    X(Win_unlock, UNLOCK, RMA, 0)                                                        \
    X(Put, PUT, RMA, 0)                                                                  \
    X(Get, GET, RMA, 0)                                                                  \
    X(Accumulate, ACC, RMA, 0)

enum lens_trace_fn {
#define LENS_X(name, kind, role, op) LENS_FN_##name,
    LENS_TRACE_FUNCTIONS(LENS_X)
#undef LENS_X
    LENS_FN_COUNT
};

/* How the writer turns a record of that function into OTF2 events. */
enum lens_trace_kind {
    LENS_K_INIT, LENS_K_SEND, LENS_K_RECV, LENS_K_SENDRECV, LENS_K_ISEND, LENS_K_IRECV,
    LENS_K_WAIT, LENS_K_COLL, LENS_K_COMM, LENS_K_WIN_CREATE, LENS_K_WIN_FREE, LENS_K_FENCE,
    LENS_K_WIN_SYNC, LENS_K_LOCK, LENS_K_UNLOCK, LENS_K_PUT, LENS_K_GET, LENS_K_ACC
};

/* Record types. A CALL is one MPI call; it is followed by `nsub` sub-records describing what
 * completed inside it (requests finished by the Wait/Test family, the receive of a Sendrecv).
 * FUNC_* are user functions (-finstrument-functions, trace_func.c): aux = entry address, site
 * = call site; FUNC_ENTER at t0 (= t1), FUNC_LEAVE at t1 (= t0), FUNC a whole call t0..t1
 * with nothing recorded inside it. Their names come from "func <hex address>" lines. */
enum { LENS_REC_CALL = 1, LENS_REC_SEND_DONE = 2, LENS_REC_RECV_DONE = 3,
       LENS_REC_FUNC_ENTER = 4, LENS_REC_FUNC_LEAVE = 5, LENS_REC_FUNC = 6 };

#define LENS_TRACE_NONE (-1)   /* peer/root: none (MPI_PROC_NULL, no root) */
#define LENS_TRACE_NOIDX UINT32_MAX

/* One fixed-size record (64 bytes). Times are ns of the local CLOCK_MONOTONIC. */
struct lens_trace_rec {
    uint64_t t0;     /* enter time (sub-records: unused) */
    uint64_t t1;     /* leave time (sub-records: completion time) */
    uint64_t site;   /* return address into the caller, absolute in this process; 0 none */
    uint64_t bytes;  /* p2p: message bytes; coll: bytes sent; RMA: bytes moved */
    uint64_t aux;    /* Isend/Irecv/completions: request id (0 = blocking receive);
                        coll: bytes received; RMA put/get/acc: matching id */
    int32_t peer;    /* world rank of the peer, root or RMA target; LENS_TRACE_NONE */
    int32_t tag;     /* message tag; lock: 0 exclusive, 1 shared */
    uint32_t idx;    /* local comm index, or local window index for RMA kinds */
    uint16_t fn;     /* enum lens_trace_fn */
    uint16_t type;   /* LENS_REC_* */
    uint32_t nsub;   /* CALL: number of sub-records that follow */
    uint32_t pad;
};

/* Name of a function ("MPI_Send") and its kind; NULL/-1 when fn is out of range. */
const char *lens_trace_fn_name(unsigned fn);
int lens_trace_fn_kind(unsigned fn);

/* Options of one conversion. Ranks [first, first + count) of nranks are written by this
 * process. coll == NULL selects OTF2's serial collective callbacks (then first must be 0 and
 * count == nranks); otherwise coll/coll_data/coll_ctx are passed to
 * OTF2_Archive_SetCollectiveCallbacks and also used for one gather of per-rank totals. */
struct lens_trace_otf2_opts {
    const char *dir;                     /* trace directory holding raw/ */
    int nranks, first, count;
    const OTF2_CollectiveCallbacks *coll;
    void *coll_data;
    OTF2_CollectiveContext *coll_ctx;
    int keep_raw;                        /* 0: delete raw/<rank>.* once written */
};

/* Reads the number of ranks from DIR/raw/0.defs. Errors: LENS_EIO, LENS_EFORMAT. */
int lens_trace_otf2_nranks(const char *dir, int *nranks, struct lens_err *e);

/* Writes DIR/traces.otf2 from the raw files. Reads every rank's .defs (small) to build the
 * global ids, and this process's .evt files in bounded blocks. A raw event file cut short
 * (crash) gives the events up to its last whole record. Errors: LENS_EIO (files, OTF2 I/O),
 * LENS_EFORMAT (bad raw files), LENS_ENOMEM, LENS_ELIB (other OTF2 errors). */
int lens_trace_otf2_write(const struct lens_trace_otf2_opts *o, struct lens_err *e);

#endif
