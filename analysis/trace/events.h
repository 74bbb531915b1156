/* Composite events built from a lens_trace: point-to-point transfers matched by MPI's
 * ordering rules, collective instances per communicator (window creation, fence and free
 * count as collectives on the window), and one-sided lock and post/start epochs.
 * Building also applies the logical-clock fix to the trace (receives completed before their
 * send began are moved later). A lens_events owns its arrays; lens_events_free() frees them. */
#ifndef LENS_EVENTS_H
#define LENS_EVENTS_H

#include "trace.h"

/* Collective ops beyond OTF2's: one-sided synchronisation grouped as collectives. */
enum { LENS_COLL_WIN_CREATE = 100, LENS_COLL_WIN_FENCE = 101, LENS_COLL_WIN_FREE = 102 };

struct lens_p2p {
    int32_t src, dst;        /* world ranks */
    uint32_t send_call;      /* call on src holding the send (Send or Isend) */
    uint32_t send_done;      /* call on src completing it (== send_call when blocking) */
    uint32_t recv_post;      /* call on dst posting the receive (Recv or Irecv) */
    uint32_t recv_done;      /* call on dst completing it (Recv or the Wait family) */
    uint32_t comm, tag;
    uint64_t bytes;
    uint8_t wrong_order;     /* a message sent earlier to dst is received after this one */
};

struct lens_coll_member {
    int32_t rank;            /* world rank */
    uint32_t call;           /* index into that rank's calls */
    double prefix_max_enter; /* max enter over members of lower or equal rank (for scans) */
};

struct lens_coll {
    uint32_t comm;           /* communicator (window for LENS_COLL_WIN_*) */
    uint32_t op;             /* OTF2_CollectiveOp or LENS_COLL_WIN_* */
    int32_t root;            /* world rank of the root, -1 when none */
    uint32_t first, n;       /* members[first .. first+n), in world-rank order */
    double min_enter, max_enter, min_leave, max_leave; /* seconds */
    double root_enter;       /* NaN when there is no root or it is missing */
    double max_enter_nonroot;
};

/* A lock epoch (Win_lock .. Win_unlock on one target) and the holder it had to wait for. */
struct lens_lock_epoch {
    int32_t rank, target;
    uint32_t win;
    uint32_t lock_call, unlock_call;
    uint8_t exclusive;
    int32_t prev;            /* conflicting epoch released last before this one, -1 none */
    uint32_t wait_call;      /* call of this epoch blocked across prev's release */
};

/* An access epoch (Win_start .. Win_complete on origin) paired with the target's exposure
 * epoch (Win_post .. Win_wait). */
struct lens_pscw {
    int32_t origin, target;
    uint32_t win;
    uint32_t start_call, complete_call; /* on origin */
    uint32_t post_call, wait_call;      /* on target */
    uint32_t blocked_call;              /* origin call blocked across the post (or start_call) */
    double last_complete_enter;         /* latest Win_complete enter among the target's origins */
};

struct lens_events {
    struct lens_p2p *p2p;
    size_t np2p;
    struct lens_coll *coll;
    size_t ncoll;
    struct lens_coll_member *members;
    size_t nmembers;
    struct lens_lock_epoch *locks;
    size_t nlocks;
    struct lens_pscw *pscw;
    size_t npscw;
    size_t unmatched_sends, unmatched_recvs; /* messages whose partner is not in the trace */
    size_t clock_fixes;                      /* receives moved by the logical-clock fix */
};

/* Builds the composite events of t and applies the logical-clock fix to t's call times.
 * LENS_ENOMEM is the only failure. */
int lens_events_build(struct lens_trace *t, struct lens_events **out, struct lens_err *e);
void lens_events_free(struct lens_events *ev);
/* How many times lens_events_build ran in this process: a debug counter, so tests can check
 * that one `mpilens problems` run builds the events of a trace once (trace_analysis.h). */
unsigned long lens_events_builds(void);

#endif
