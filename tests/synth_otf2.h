/* Writes small synthetic OTF2 archives with OTF2's own writer, for the analyzer's tests and
 * its benchmark: events are given in seconds per rank (must be in time order per rank);
 * regions come from a fixed table; comm 0 is the world, window 0 lives on it. */
#ifndef LENS_SYNTH_OTF2_H
#define LENS_SYNTH_OTF2_H

#include "common/otf2names.h"

#include <otf2/otf2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    SR_MAIN, SR_COMPUTE, SR_SEND, SR_RECV, SR_ISEND, SR_IRECV, SR_WAIT, SR_WAITALL, SR_BARRIER,
    SR_BCAST, SR_REDUCE, SR_ALLREDUCE, SR_SCAN, SR_WIN_CREATE, SR_WIN_LOCK, SR_WIN_UNLOCK,
    SR_PUT, SR_WIN_POST, SR_WIN_START, SR_WIN_COMPLETE, SR_WIN_WAIT, SR_WIN_FENCE, SR_NREGIONS
};
static const char *const synth_region_names[SR_NREGIONS] = {
    "main", "compute", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
    "MPI_Waitall", "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Scan",
    "MPI_Win_create", "MPI_Win_lock", "MPI_Win_unlock", "MPI_Put", "MPI_Win_post",
    "MPI_Win_start", "MPI_Win_complete", "MPI_Win_wait", "MPI_Win_fence"};

#define SYNTH_MAX_RANKS 64
#define SYNTH_MAX_GROUPS 16

struct synth {
    OTF2_Archive *ar;
    int nranks;
    OTF2_EvtWriter *w[SYNTH_MAX_RANKS];
    uint64_t nev[SYNTH_MAX_RANKS];
    struct { uint64_t time; int64_t off; } clk[SYNTH_MAX_RANKS][2];
    int nclk[SYNTH_MAX_RANKS];
    uint64_t groups[SYNTH_MAX_GROUPS][SYNTH_MAX_RANKS]; /* extra COMM_GROUP groups (ids 2..) */
    int gsize[SYNTH_MAX_GROUPS], ngroups;
    OTF2_AttributeList *attrs;
    uint64_t last; /* largest timestamp, ticks */
};

static inline OTF2_FlushType synth_pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *c,
                                             bool fin)
{
    (void)u, (void)ft, (void)l, (void)c, (void)fin;
    return OTF2_FLUSH;
}
static inline OTF2_TimeStamp synth_post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)u, (void)ft, (void)l;
    return 0;
}
static const OTF2_FlushCallbacks synth_flush = {synth_pre_flush, synth_post_flush};

static inline uint64_t synth_ts(struct synth *s, double t)
{
    uint64_t v = (uint64_t)(t * 1e9 + 0.5);
    if (v > s->last)
        s->last = v;
    return v;
}

/* Opens DIR/traces.otf2 for writing nranks locations. 0 on success. */
static inline int synth_open(struct synth *s, const char *dir, int nranks)
{
    memset(s, 0, sizeof *s);
    s->nranks = nranks;
    s->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, 4 << 20,
                              OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!s->ar)
        return -1;
    OTF2_Archive_SetFlushCallbacks(s->ar, &synth_flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(s->ar);
    OTF2_Archive_OpenEvtFiles(s->ar);
    for (int r = 0; r < nranks; r++)
        s->w[r] = OTF2_Archive_GetEvtWriter(s->ar, (OTF2_LocationRef)r);
    s->attrs = OTF2_AttributeList_New();
    return 0;
}

static inline void synth_enter(struct synth *s, int r, double t, int region)
{
    OTF2_EvtWriter_Enter(s->w[r], NULL, synth_ts(s, t), (OTF2_RegionRef)region);
    s->nev[r]++;
}
static inline void synth_leave(struct synth *s, int r, double t, int region)
{
    OTF2_EvtWriter_Leave(s->w[r], NULL, synth_ts(s, t), (OTF2_RegionRef)region);
    s->nev[r]++;
}
/* Enter with our collector's call-site attributes (module string id, offset). */
static inline void synth_enter_site(struct synth *s, int r, double t, int region, uint32_t module,
                             uint64_t offset)
{
    OTF2_AttributeValue v;
    v.stringRef = module;
    OTF2_AttributeList_AddAttribute(s->attrs, 0, OTF2_TYPE_STRING, v);
    v.uint64 = offset;
    OTF2_AttributeList_AddAttribute(s->attrs, 1, OTF2_TYPE_UINT64, v);
    OTF2_EvtWriter_Enter(s->w[r], s->attrs, synth_ts(s, t), (OTF2_RegionRef)region);
    s->nev[r]++;
}
static inline void synth_send(struct synth *s, int r, double t, int peer, int tag, uint64_t bytes)
{
    OTF2_EvtWriter_MpiSend(s->w[r], NULL, synth_ts(s, t), (uint32_t)peer, 0, (uint32_t)tag, bytes);
    s->nev[r]++;
}
static inline void synth_isend(struct synth *s, int r, double t, int peer, int tag, uint64_t bytes,
                        uint64_t req)
{
    OTF2_EvtWriter_MpiIsend(s->w[r], NULL, synth_ts(s, t), (uint32_t)peer, 0, (uint32_t)tag,
                            bytes, req);
    s->nev[r]++;
}
static inline void synth_isend_complete(struct synth *s, int r, double t, uint64_t req)
{
    OTF2_EvtWriter_MpiIsendComplete(s->w[r], NULL, synth_ts(s, t), req);
    s->nev[r]++;
}
static inline void synth_irecv_request(struct synth *s, int r, double t, uint64_t req)
{
    OTF2_EvtWriter_MpiIrecvRequest(s->w[r], NULL, synth_ts(s, t), req);
    s->nev[r]++;
}
static inline void synth_recv(struct synth *s, int r, double t, int peer, int tag, uint64_t bytes)
{
    OTF2_EvtWriter_MpiRecv(s->w[r], NULL, synth_ts(s, t), (uint32_t)peer, 0, (uint32_t)tag, bytes);
    s->nev[r]++;
}
static inline void synth_irecv(struct synth *s, int r, double t, int peer, int tag, uint64_t bytes,
                        uint64_t req)
{
    OTF2_EvtWriter_MpiIrecv(s->w[r], NULL, synth_ts(s, t), (uint32_t)peer, 0, (uint32_t)tag,
                            bytes, req);
    s->nev[r]++;
}
/* A whole collective call: enter, begin, end (op, root or -1), leave. */
static inline void synth_coll(struct synth *s, int r, double t0, double t1, int region, int op,
                              int root)
{
    synth_enter(s, r, t0, region);
    OTF2_EvtWriter_MpiCollectiveBegin(s->w[r], NULL, synth_ts(s, t0));
    OTF2_EvtWriter_MpiCollectiveEnd(s->w[r], NULL, synth_ts(s, t1), (OTF2_CollectiveOp)op, 0,
                                    root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, 8, 8);
    s->nev[r] += 2;
    synth_leave(s, r, t1, region);
}
/* The same with our collector's call-site attributes on the Enter (module string id, offset). */
static inline void synth_coll_site(struct synth *s, int r, double t0, double t1, int region,
                                   int op, int root, uint32_t module, uint64_t offset)
{
    synth_enter_site(s, r, t0, region, module, offset);
    OTF2_EvtWriter_MpiCollectiveBegin(s->w[r], NULL, synth_ts(s, t0));
    OTF2_EvtWriter_MpiCollectiveEnd(s->w[r], NULL, synth_ts(s, t1), (OTF2_CollectiveOp)op, 0,
                                    root < 0 ? OTF2_UNDEFINED_UINT32 : (uint32_t)root, 8, 8);
    s->nev[r] += 2;
    synth_leave(s, r, t1, region);
}
static inline void synth_call(struct synth *s, int r, double t0, double t1, int region)
{
    synth_enter(s, r, t0, region);
    synth_leave(s, r, t1, region);
}
static inline void synth_win_create(struct synth *s, int r, double t0, double t1)
{
    synth_enter(s, r, t0, SR_WIN_CREATE);
    OTF2_EvtWriter_RmaWinCreate(s->w[r], NULL, synth_ts(s, t1), 0);
    s->nev[r]++;
    synth_leave(s, r, t1, SR_WIN_CREATE);
}
static inline void synth_lock(struct synth *s, int r, double t0, double t1, int target,
                              int exclusive)
{
    synth_enter(s, r, t0, SR_WIN_LOCK);
    OTF2_EvtWriter_RmaAcquireLock(s->w[r], NULL, synth_ts(s, t0), 0, (uint32_t)target, 0,
                                  exclusive ? OTF2_LOCK_EXCLUSIVE : OTF2_LOCK_SHARED);
    s->nev[r]++;
    synth_leave(s, r, t1, SR_WIN_LOCK);
}
static inline void synth_unlock(struct synth *s, int r, double t0, double t1, int target)
{
    synth_enter(s, r, t0, SR_WIN_UNLOCK);
    OTF2_EvtWriter_RmaReleaseLock(s->w[r], NULL, synth_ts(s, t1), 0, (uint32_t)target, 0);
    s->nev[r]++;
    synth_leave(s, r, t1, SR_WIN_UNLOCK);
}
/* MPI_Win_fence on window 0 as Score-P and our collector write it: an RmaCollectiveEnd record
 * inside the call, which makes the fence a collective instance of the window (events.c). */
static inline void synth_fence(struct synth *s, int r, double t0, double t1)
{
    synth_enter(s, r, t0, SR_WIN_FENCE);
    OTF2_EvtWriter_RmaCollectiveEnd(s->w[r], NULL, synth_ts(s, t1), OTF2_COLLECTIVE_OP_BARRIER,
                                    OTF2_RMA_SYNC_LEVEL_PROCESS, 0,
                                    OTF2_COLLECTIVE_ROOT_NONE, 0, 0);
    s->nev[r]++;
    synth_leave(s, r, t1, SR_WIN_FENCE);
}
/* A post/start/complete/wait call as our collector writes it: the window only as the Enter
 * attribute "mpilens::window", no group record. */
static inline void synth_pscw_attr(struct synth *s, int r, double t0, double t1, int region)
{
    OTF2_AttributeValue v;
    v.rmaWinRef = 0;
    OTF2_AttributeList_AddAttribute(s->attrs, 2, OTF2_TYPE_RMA_WIN, v);
    OTF2_EvtWriter_Enter(s->w[r], s->attrs, synth_ts(s, t0), (OTF2_RegionRef)region);
    s->nev[r]++;
    synth_leave(s, r, t1, region);
}
/* MPI_Put of 64 bytes to target (rank in the window's communicator). */
static inline void synth_put(struct synth *s, int r, double t0, double t1, int target)
{
    synth_enter(s, r, t0, SR_PUT);
    OTF2_EvtWriter_RmaPut(s->w[r], NULL, synth_ts(s, t0), 0, (uint32_t)target, 64, 0);
    s->nev[r]++;
    synth_leave(s, r, t1, SR_PUT);
}
/* Defines a group of world ranks (for post/start); returns its id. */
static inline int synth_group(struct synth *s, int n, const int *ranks)
{
    int g = s->ngroups++;
    for (int i = 0; i < n; i++)
        s->groups[g][i] = (uint64_t)ranks[i];
    s->gsize[g] = n;
    return g + 2;
}
/* A post/start/complete/wait call; post and start carry the group sync record. */
static inline void synth_pscw(struct synth *s, int r, double t0, double t1, int region, int group)
{
    synth_enter(s, r, t0, region);
    if (group >= 0) {
        OTF2_EvtWriter_RmaGroupSync(s->w[r], NULL, synth_ts(s, t0), OTF2_RMA_SYNC_LEVEL_PROCESS,
                                    0, (OTF2_GroupRef)group);
        s->nev[r]++;
    }
    synth_leave(s, r, t1, region);
}
static inline void synth_clock(struct synth *s, int r, double local, double offset)
{
    s->clk[r][s->nclk[r]].time = (uint64_t)(local * 1e9 + 0.5);
    s->clk[r][s->nclk[r]++].off = (int64_t)(offset * 1e9 + (offset < 0 ? -0.5 : 0.5));
}

/* Writes the definitions (extra_string: one more string, id 100, e.g. a module path) and
 * closes the archive. 0 on success. */
static inline int synth_close(struct synth *s, const char *extra_string)
{
    int bad = 0;
    for (int r = 0; r < s->nranks; r++)
        bad |= OTF2_Archive_CloseEvtWriter(s->ar, s->w[r]) != OTF2_SUCCESS;
    OTF2_Archive_CloseEvtFiles(s->ar);
    OTF2_Archive_OpenDefFiles(s->ar);
    for (int r = 0; r < s->nranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(s->ar, (OTF2_LocationRef)r);
        for (int k = 0; k < s->nclk[r]; k++)
            OTF2_DefWriter_WriteClockOffset(dw, s->clk[r][k].time, s->clk[r][k].off, 0);
        OTF2_Archive_CloseDefWriter(s->ar, dw);
    }
    OTF2_Archive_CloseDefFiles(s->ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(s->ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, s->last + 1,
                                              OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(g, 0, "");
    for (int i = 0; i < SR_NREGIONS; i++)
        OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)(i + 1), synth_region_names[i]);
    OTF2_GlobalDefWriter_WriteString(g, 40, "node");
    OTF2_GlobalDefWriter_WriteString(g, 41, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteString(g, 42, LENS_OTF2_ATTR_MODULE);
    OTF2_GlobalDefWriter_WriteString(g, 43, LENS_OTF2_ATTR_OFFSET);
    OTF2_GlobalDefWriter_WriteString(g, 44, "win");
    OTF2_GlobalDefWriter_WriteString(g, 45, LENS_OTF2_ATTR_WINDOW);
    if (extra_string)
        OTF2_GlobalDefWriter_WriteString(g, 100, extra_string);
    for (int r = 0; r < s->nranks; r++) {
        char name[32];
        snprintf(name, sizeof name, "MPI Rank %d", r);
        OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)(200 + r), name);
    }
    for (int i = 0; i < SR_NREGIONS; i++)
        OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, (OTF2_StringRef)(i + 1),
                                         (OTF2_StringRef)(i + 1), 0, OTF2_REGION_ROLE_FUNCTION,
                                         i < 2 ? OTF2_PARADIGM_USER : OTF2_PARADIGM_MPI,
                                         OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 40, 40, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t members[SYNTH_MAX_RANKS];
    for (int r = 0; r < s->nranks; r++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (OTF2_LocationGroupRef)r,
                                                (OTF2_StringRef)(200 + r),
                                                OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, (OTF2_LocationRef)r, (OTF2_StringRef)(200 + r),
                                           OTF2_LOCATION_TYPE_CPU_THREAD, s->nev[r],
                                           (OTF2_LocationGroupRef)r);
        members[r] = (uint64_t)r;
    }
    OTF2_GlobalDefWriter_WriteAttribute(g, 0, 42, 42, OTF2_TYPE_STRING);
    OTF2_GlobalDefWriter_WriteAttribute(g, 1, 43, 43, OTF2_TYPE_UINT64);
    OTF2_GlobalDefWriter_WriteAttribute(g, 2, 45, 45, OTF2_TYPE_RMA_WIN);
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)s->nranks, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)s->nranks, members);
    for (int k = 0; k < s->ngroups; k++)
        OTF2_GlobalDefWriter_WriteGroup(g, (OTF2_GroupRef)(k + 2), 0, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)s->gsize[k], s->groups[k]);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 41, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteRmaWin(g, 0, 44, 0, OTF2_RMA_WIN_FLAG_NONE);
    OTF2_AttributeList_Delete(s->attrs);
    bad |= OTF2_Archive_Close(s->ar) != OTF2_SUCCESS;
    return bad ? -1 : 0;
}

#endif
