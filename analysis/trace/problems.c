/* Problem detection (problems.h): the rule vocabulary (event types with their fields, and the
 * composite kinds that build instances from the events), the evaluation of every composite
 * instance, and the aggregation per problem. */
#include "problems.h"

#include "callsite_resolve.h"
#include "common/units.h"

#include <math.h>
#include <otf2/OTF2_Events.h>
#include <stdlib.h>
#include <string.h>

/* ---- collective ops as the rules name them ---- */

/* Names of OTF2_CollectiveOp 0..16 (barrier .. reduce_scatter_block), the values the rules
 * compare c.op with; OTF2's handle operations (17..22: create/destroy handle, allocate,
 * deallocate) are no MPI collective the rules name and fall to "other". */
static const char *op_name(uint32_t op)
{
    static const char *const names[] = {
        "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
        "allgatherv", "alltoall", "alltoallv", "alltoallw", "allreduce", "reduce",
        "reduce_scatter", "scan", "exscan", "reduce_scatter_block"};
    if (op < sizeof names / sizeof names[0])
        return names[op];
    return op == LENS_COLL_WIN_CREATE ? "win_create" : op == LENS_COLL_WIN_FENCE ? "win_fence"
         : op == LENS_COLL_WIN_FREE ? "win_free" : "other";
}

/* The class the rules test: barrier, one_to_all, all_to_one, all_to_all, scan, rma_*. */
/* The kinds group ops by the wait-state pattern that applies (Scalasca): barrier (Wait at
 * Barrier), one_to_all (Late Broadcast), all_to_one (Early Reduce), all_to_all (Wait at NxN),
 * scan (Early Scan), and the window operations events.c counts as collectives. */
static const char *op_kind(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return "barrier";
    case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV: return "one_to_all";
    case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV:
    case OTF2_COLLECTIVE_OP_REDUCE: return "all_to_one";
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: return "all_to_all";
    case OTF2_COLLECTIVE_OP_SCAN: case OTF2_COLLECTIVE_OP_EXSCAN: return "scan";
    case LENS_COLL_WIN_CREATE: return "rma_create";
    case LENS_COLL_WIN_FENCE: return "rma_fence";
    case LENS_COLL_WIN_FREE: return "rma_free";
    default: return "other";
    }
}

/* Each op's name and kind are interned once per run (intern_ops) into these 24 slots, so a
 * getter returns a stored id instead of interning a string per instance: slots 0..19 are
 * OTF2 ops 0..19, 20..22 the window ops (LENS_COLL_WIN_*), 23 anything else. */
static int op_slot(uint32_t op)
{
    return op < 20 ? (int)op : op >= 100 && op <= 102 ? 20 + (int)(op - 100) : 23;
}
static const uint32_t slot_op[24] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                     17, 18, 19, 100, 101, 102, 999};

/* ---- the event types: one line per field ----
 * FIELDS lists give (type, field, 'n' number or 's' interned string, value); x is the
 * instance the kind's builder filled (problems.h), and x->call[] holds the calls it resolved
 * (listed at each builder). The list expands once into getters and once into the table, so
 * a field's name and its value cannot drift apart. */
/* GETTER makes one static function per field; FIELD_ROW makes its table row; EVENT_TYPE applies
 * both to a type's list. Every value is a double: the rule language has no other type (strings
 * are intern ids). */
#define GETTER(ty, fl, kind, expr) \
    static double get_##ty##_##fl(const struct lens_problems_inst *x) { return (double)(expr); }
#define FIELD_ROW(ty, fl, kind, expr) {#fl, kind, get_##ty##_##fl},
#define EVENT_TYPE(ty, LIST) \
    LIST(GETTER) static const struct lens_problems_field ty##_fields[] = {LIST(FIELD_ROW)};

/* send and recv: a matched message (p2p builder: call 0 send, 1 send completion, 2 receive
 * post, 3 receive completion) */
/* send.enter/leave are the call that issued the message (Send, Isend), done_* the call that
 * completed it (the same call when blocking, else the Wait): late receiver reads the latter. */
#define SEND_FIELDS(F) \
    F(send, enter, 'n', x->call[0]->enter) \
    F(send, leave, 'n', x->call[0]->leave) \
    F(send, done_enter, 'n', x->call[1]->enter) \
    F(send, done_leave, 'n', x->call[1]->leave) \
    F(send, rank, 'n', x->p2p->src) \
    F(send, peer, 'n', x->p2p->dst) \
    F(send, tag, 'n', x->p2p->tag) \
    F(send, comm, 'n', x->p2p->comm) \
    F(send, bytes, 'n', x->p2p->bytes) \
    F(send, blocking, 'n', x->p2p->send_call == x->p2p->send_done)
EVENT_TYPE(send, SEND_FIELDS)

/* recv.enter/leave are the completing call (Recv or a Wait), where a late sender's wait is
 * spent; post_* the call that posted the receive, which late receiver compares with the send. */
#define RECV_FIELDS(F) \
    F(recv, enter, 'n', x->call[3]->enter) \
    F(recv, leave, 'n', x->call[3]->leave) \
    F(recv, post_enter, 'n', x->call[2]->enter) \
    F(recv, post_leave, 'n', x->call[2]->leave) \
    F(recv, rank, 'n', x->p2p->dst) \
    F(recv, peer, 'n', x->p2p->src) \
    F(recv, tag, 'n', x->p2p->tag) \
    F(recv, comm, 'n', x->p2p->comm) \
    F(recv, bytes, 'n', x->p2p->bytes) \
    F(recv, blocking, 'n', x->p2p->recv_post == x->p2p->recv_done) \
    F(recv, wrong_order, 'n', x->p2p->wrong_order)
EVENT_TYPE(recv, RECV_FIELDS)

/* collective: one member's call (call 0); collective_instance: the whole instance */
/* prefix_max_enter is the latest enter among ranks up to this one (events.c): Early Scan. */
#define COLL_FIELDS(F) \
    F(coll, enter, 'n', x->call[0]->enter) \
    F(coll, leave, 'n', x->call[0]->leave) \
    F(coll, rank, 'n', x->member->rank) \
    F(coll, root, 'n', x->coll->root) \
    F(coll, is_root, 'n', x->member->rank == x->coll->root) \
    F(coll, comm, 'n', x->coll->comm) \
    F(coll, prefix_max_enter, 'n', x->member->prefix_max_enter) \
    F(coll, op, 's', x->opnames[op_slot(x->coll->op)]) \
    F(coll, kind, 's', x->opkinds[op_slot(x->coll->op)])
EVENT_TYPE(coll, COLL_FIELDS)

/* Aggregates over the whole instance, computed once per instance in events.c after the clock
 * fix, so a rule on any member reads the same values. */
#define INST_FIELDS(F) \
    F(inst, min_enter, 'n', x->coll->min_enter) \
    F(inst, max_enter, 'n', x->coll->max_enter) \
    F(inst, min_leave, 'n', x->coll->min_leave) \
    F(inst, max_leave, 'n', x->coll->max_leave) \
    F(inst, root_enter, 'n', x->coll->root_enter) \
    F(inst, max_enter_nonroot, 'n', x->coll->max_enter_nonroot) \
    F(inst, size, 'n', x->coll->n) \
    F(inst, comm, 'n', x->coll->comm) \
    F(inst, op, 's', x->opnames[op_slot(x->coll->op)]) \
    F(inst, kind, 's', x->opkinds[op_slot(x->coll->op)])
EVENT_TYPE(inst, INST_FIELDS)

/* lock_epoch and the lock_holder it waited for (lock builder: call 0 Win_lock, 1 Win_unlock,
 * 2 the blocked call, 3 the holder's Win_unlock; its enter is the release) */
#define LOCK_FIELDS(F) \
    F(lock, enter, 'n', x->call[0]->enter) \
    F(lock, leave, 'n', x->call[1]->leave) \
    F(lock, wait_enter, 'n', x->call[2]->enter) \
    F(lock, wait_leave, 'n', x->call[2]->leave) \
    F(lock, rank, 'n', x->lock->rank) \
    F(lock, target, 'n', x->lock->target) \
    F(lock, exclusive, 'n', x->lock->exclusive)
EVENT_TYPE(lock, LOCK_FIELDS)

#define HOLDER_FIELDS(F) \
    F(holder, release, 'n', x->call[3]->enter) \
    F(holder, rank, 'n', x->holder->rank) \
    F(holder, exclusive, 'n', x->holder->exclusive)
EVENT_TYPE(holder, HOLDER_FIELDS)

/* access_epoch and exposure_epoch (pscw builder: call 0 Win_start, 1 Win_complete, 2 the
 * origin's blocked call (Win_start when none), 3 Win_post, 4 Win_wait) */
#define ACCESS_FIELDS(F) \
    F(access, start_enter, 'n', x->call[0]->enter) \
    F(access, complete_enter, 'n', x->call[1]->enter) \
    F(access, complete_leave, 'n', x->call[1]->leave) \
    F(access, wait_enter, 'n', x->call[2]->enter) \
    F(access, wait_leave, 'n', x->call[2]->leave) \
    F(access, blocked, 'n', x->blocked) \
    F(access, rank, 'n', x->pscw->origin) \
    F(access, target, 'n', x->pscw->target)
EVENT_TYPE(access, ACCESS_FIELDS)

#define EXPO_FIELDS(F) \
    F(expo, post_enter, 'n', x->call[3]->enter) \
    F(expo, wait_enter, 'n', x->call[4]->enter) \
    F(expo, wait_leave, 'n', x->call[4]->leave) \
    F(expo, last_complete_enter, 'n', x->pscw->last_complete_enter) \
    F(expo, rank, 'n', x->pscw->target)
EVENT_TYPE(expo, EXPO_FIELDS)

/* call: one MPI call, the simple event of the general matcher ("General composites" below):
 * x->gc[x->gid] is what the matcher precomputed for it, x->call[0] the call. id, next, prev
 * and match are global ids, so "the next event of this rank" is next.id == this.next and a
 * message match is recv.id == send.match; instance is the collective instance. */
#define GC(x) (&(x)->gc[(x)->gid])
#define CALL_FIELDS(F) \
    F(call, id, 'n', x->gid) \
    F(call, rank, 'n', GC(x)->rank) \
    F(call, next, 'n', GC(x)->next) \
    F(call, prev, 'n', GC(x)->prev) \
    F(call, enter, 'n', x->call[0]->enter) \
    F(call, leave, 'n', x->call[0]->leave) \
    F(call, function, 's', GC(x)->fname) \
    F(call, class, 's', x->gnames[GC(x)->cls]) \
    F(call, op, 's', GC(x)->coll < 0 ? x->gnames[4] \
                                     : x->opnames[op_slot(x->ev->coll[GC(x)->coll].op)]) \
    F(call, kind, 's', GC(x)->coll < 0 ? x->gnames[4] \
                                       : x->opkinds[op_slot(x->ev->coll[GC(x)->coll].op)]) \
    F(call, comm, 'n', GC(x)->comm) \
    F(call, instance, 'n', GC(x)->coll) \
    F(call, peer, 'n', GC(x)->peer) \
    F(call, tag, 'n', GC(x)->tag) \
    F(call, bytes, 'n', GC(x)->bytes) \
    F(call, match, 'n', GC(x)->match)
EVENT_TYPE(call, CALL_FIELDS)

/* calls: a shared member of a general composite, the set of all calls its key ties to the
 * other members (all.instance == c.instance: every call of the collective instance), seen
 * through aggregates the matcher computes over the set (x->agg, in this order). instance and
 * comm are the set's common key values; root is the collective's root (-1 none) and
 * root_enter NaN when no member is the root; prefix_max_enter is relative to the binding:
 * over the calls of ranks up to the first member's (Early Scan). */
#define CALLS_FIELDS(F) \
    F(calls, instance, 'n', x->agg[0]) \
    F(calls, comm, 'n', x->agg[1]) \
    F(calls, count, 'n', x->agg[2]) \
    F(calls, min_enter, 'n', x->agg[3]) \
    F(calls, max_enter, 'n', x->agg[4]) \
    F(calls, min_leave, 'n', x->agg[5]) \
    F(calls, max_leave, 'n', x->agg[6]) \
    F(calls, root_enter, 'n', x->agg[7]) \
    F(calls, max_enter_nonroot, 'n', x->agg[8]) \
    F(calls, root, 'n', x->agg[9]) \
    F(calls, prefix_max_enter, 'n', x->agg[10])
EVENT_TYPE(calls, CALLS_FIELDS)

/* send_msg and recv_msg: the two ends of one matched message as simple events of the general
 * matcher, one per message (a Waitall completing three receives is three recv_msg), with the
 * fields of send and recv and the message's index as id: recv.id == send.id pairs them. The
 * matcher fills x->p2p and x->call[] as the p2p builder does. */
static double get_msg_id(const struct lens_problems_inst *x) { return (double)(x->p2p - x->ev->p2p); }
static const struct lens_problems_field smsg_fields[] = {{"id", 'n', get_msg_id},
                                                         SEND_FIELDS(FIELD_ROW)};
static const struct lens_problems_field rmsg_fields[] = {{"id", 'n', get_msg_id},
                                                         RECV_FIELDS(FIELD_ROW)};

/* lock_ep: one lock epoch as a simple event (events.c: the epoch it waited for is prev, -1
 * none), so "holder.id == l.prev" pairs an epoch with its holder; lock_fields' getters read
 * x->lock and x->call[0..2] (Win_lock, Win_unlock, the blocked call; an epoch that waited for
 * nobody has no blocked call and shows its Win_lock there). release is its own Win_unlock's
 * enter. pscw_access / pscw_exposure: the two ends of one origin-target pair of a PSCW
 * exposure, like the two ends of a message, filled by pscw_build. */
static double get_lock_id(const struct lens_problems_inst *x) { return (double)(x->lock - x->ev->locks); }
static double get_lock_prev(const struct lens_problems_inst *x) { return x->lock->prev; }
static double get_lock_release(const struct lens_problems_inst *x) { return x->call[1]->enter; }
static double get_pscw_id(const struct lens_problems_inst *x) { return (double)(x->pscw - x->ev->pscw); }
static const struct lens_problems_field lockep_fields[] = {
    {"id", 'n', get_lock_id}, {"prev", 'n', get_lock_prev}, LOCK_FIELDS(FIELD_ROW)
    {"release", 'n', get_lock_release}};
static const struct lens_problems_field pacc_fields[] = {{"id", 'n', get_pscw_id},
                                                         ACCESS_FIELDS(FIELD_ROW)};
static const struct lens_problems_field pexp_fields[] = {{"id", 'n', get_pscw_id},
                                                         EXPO_FIELDS(FIELD_ROW)};

#define NFIELDS(a) ((int)(sizeof a / sizeof a[0]))
enum { T_SEND, T_RECV, T_COLL, T_INST, T_LOCK, T_HOLDER, T_ACCESS, T_EXPO, T_CALL, T_CALLS,
       T_SMSG, T_RMSG, T_LOCKEP, T_PACC, T_PEXP, NTYPES };
/* The names are what rules write in "member (send as s, ...)"; the order of T_* is the order
 * the kinds below refer to. */
static const struct lens_problems_type types[NTYPES] = {
    [T_SEND] = {"send", send_fields, NFIELDS(send_fields)},
    [T_RECV] = {"recv", recv_fields, NFIELDS(recv_fields)},
    [T_COLL] = {"collective", coll_fields, NFIELDS(coll_fields)},
    [T_INST] = {"collective_instance", inst_fields, NFIELDS(inst_fields)},
    [T_LOCK] = {"lock_epoch", lock_fields, NFIELDS(lock_fields)},
    [T_HOLDER] = {"lock_holder", holder_fields, NFIELDS(holder_fields)},
    [T_ACCESS] = {"access_epoch", access_fields, NFIELDS(access_fields)},
    [T_EXPO] = {"exposure_epoch", expo_fields, NFIELDS(expo_fields)},
    [T_CALL] = {"call", call_fields, NFIELDS(call_fields)},
    [T_CALLS] = {"calls", calls_fields, NFIELDS(calls_fields)},
    [T_SMSG] = {"send_msg", smsg_fields, NFIELDS(smsg_fields)},
    [T_RMSG] = {"recv_msg", rmsg_fields, NFIELDS(rmsg_fields)},
    [T_LOCKEP] = {"lock_ep", lockep_fields, NFIELDS(lockep_fields)},
    [T_PACC] = {"pscw_access", pacc_fields, NFIELDS(pacc_fields)},
    [T_PEXP] = {"pscw_exposure", pexp_fields, NFIELDS(pexp_fields)}};

/* ---- the composite kinds: builders ---- */

static const struct lens_trace_call *call_at(const struct lens_problems_inst *x, int32_t r,
                                             uint32_t c)
{
    return &x->t->ranks[r].calls[c];
}

static size_t p2p_count(const struct lens_events *ev) { return ev->np2p; }

/* Scalasca charges a late sender to the call that completed the receive (the one that waited)
 * and a late receiver to the call that completed the send: so member 0 (send) is charged on
 * send_done, member 1 (recv) on recv_done. */
static int p2p_build(struct lens_problems_inst *x, size_t i)
{
    const struct lens_p2p *p = x->p2p = &x->ev->p2p[i];
    x->call[0] = call_at(x, p->src, p->send_call);
    x->call[1] = call_at(x, p->src, p->send_done);
    x->call[2] = call_at(x, p->dst, p->recv_post);
    x->call[3] = call_at(x, p->dst, p->recv_done);
    x->rank[0] = p->src, x->charged[0] = p->send_done;
    x->rank[1] = p->dst, x->charged[1] = p->recv_done;
    /* as culprits: the call that issued the send (late sender), the one that posted the
     * receive (late receiver) */
    x->orank[0] = p->src, x->ocall[0] = p->send_call;
    x->orank[1] = p->dst, x->ocall[1] = p->recv_post;
    return 1;
}

/* A call completing more than one message (Waitall) may be charged once per message. */
/* Counting the call's completion records: one Wait completes one message; a Waitall, Waitsome
 * or Sendrecv completing two sends or two receives can meet the same problem twice. A Sendrecv
 * (one send, one receive) cannot repeat one problem, since each problem charges one side. */
static int p2p_may_repeat(const struct lens_trace *t, int32_t rank, uint32_t call)
{
    const struct lens_trace_rank *k = &t->ranks[rank];
    const struct lens_trace_call *c = &k->calls[call];
    int sends = 0, recvs = 0;
    for (uint32_t i = c->rec; i < c->rec + c->nrec; i++) {
        int kind = k->recs[i].kind;
        sends += kind == LENS_TREC_SEND || kind == LENS_TREC_ISEND_COMPLETE;
        recvs += kind == LENS_TREC_RECV || kind == LENS_TREC_IRECV;
    }
    return sends > 1 || recvs > 1;
}

/* Instances are the members: cursor walks the collectives alongside, as members are stored
 * collective by collective. */
static size_t coll_count(const struct lens_events *ev) { return ev->nmembers; }

static double member_enter(const struct lens_problems_inst *x, size_t i)
{
    const struct lens_coll_member *m = &x->ev->members[i];
    return call_at(x, m->rank, m->call)->enter;
}

/* The member the others waited for, by the op's wait-state pattern (Scalasca): the root of a
 * one-to-all, the last non-root to enter an all-to-one, otherwise the last to enter (barrier,
 * many-to-many, window operations). Ties go to the lowest rank. Scans are per member
 * (coll_build). */
static size_t coll_culprit(const struct lens_problems_inst *x, const struct lens_coll *g)
{
    const char *k = op_kind(g->op);
    int root = !strcmp(k, "one_to_all"), nonroot = !strcmp(k, "all_to_one");
    size_t best = g->first;
    for (size_t i = g->first; i < (size_t)g->first + g->n; i++) {
        int32_t r = x->ev->members[i].rank;
        if (root && r == g->root)
            return i;
        if (nonroot && r == g->root)
            continue;
        if ((nonroot && x->ev->members[best].rank == g->root) ||
            member_enter(x, i) > member_enter(x, best))
            best = i;
    }
    return best;
}

/* Both members charge the member's call: the instance has no call of its own, and every
 * collective pattern charges the waiting rank. As a culprit the instance stands for the call
 * of the member the others waited for, found once per instance (cul_coll caches it, so an
 * instance of n ranks costs O(n), not O(n^2)). */
static int coll_build(struct lens_problems_inst *x, size_t i)
{
    const struct lens_events *ev = x->ev;
    while (i >= (size_t)ev->coll[x->cursor].first + ev->coll[x->cursor].n)
        x->cursor++;
    const struct lens_coll_member *m = x->member = &ev->members[i];
    x->coll = &ev->coll[x->cursor];
    x->call[0] = call_at(x, m->rank, m->call);
    x->rank[0] = x->rank[1] = m->rank;
    x->charged[0] = x->charged[1] = m->call;
    if (x->cul_coll != x->cursor + 1) { /* first member of a new instance */
        x->cul_coll = x->cursor + 1;
        x->cul_member = coll_culprit(x, x->coll);
        x->scan_member = i;
    }
    /* a scan member waits for the latest of the ranks up to its own (prefix_max_enter):
     * members come in rank order, so a running maximum names that rank */
    if (member_enter(x, i) > member_enter(x, x->scan_member))
        x->scan_member = i;
    size_t c = !strcmp(op_kind(x->coll->op), "scan") ? x->scan_member : x->cul_member;
    x->orank[0] = m->rank, x->ocall[0] = m->call;
    x->orank[1] = ev->members[c].rank, x->ocall[1] = ev->members[c].call;
    return 1;
}

/* One-sided epochs share calls (a Win_wait waits for several origins). */
static int always_repeats(const struct lens_trace *t, int32_t rank, uint32_t call)
{
    (void)t, (void)rank, (void)call;
    return 1;
}

static size_t lock_count(const struct lens_events *ev) { return ev->nlocks; }

/* Only epochs that waited for a holder are instances (events.c found prev). The waiting epoch
 * is charged on the call blocked across the release; the holder side on its Win_unlock. */
static int lock_build(struct lens_problems_inst *x, size_t i)
{
    const struct lens_lock_epoch *l = x->lock = &x->ev->locks[i];
    if (l->prev < 0) /* it waited for nobody */
        return 0;
    const struct lens_lock_epoch *p = x->holder = &x->ev->locks[l->prev];
    x->call[0] = call_at(x, l->rank, l->lock_call);
    x->call[1] = call_at(x, l->rank, l->unlock_call);
    x->call[2] = call_at(x, l->rank, l->wait_call);
    x->call[3] = call_at(x, p->rank, p->unlock_call);
    x->rank[0] = l->rank, x->charged[0] = l->wait_call;
    x->rank[1] = p->rank, x->charged[1] = p->unlock_call;
    /* culprits: the waiting epoch's lock request, the holder's unlock */
    x->orank[0] = l->rank, x->ocall[0] = l->lock_call;
    x->orank[1] = p->rank, x->ocall[1] = p->unlock_call;
    return 1;
}

static size_t pscw_count(const struct lens_events *ev) { return ev->npscw; }

/* The origin is charged on the call that blocked across the post (Late Post); when none did, on
 * its Win_start, where a rule's zero duration charges nothing. The target is charged on its
 * Win_wait (Early Wait), which one exposure shares among all its origins. */
static int pscw_build(struct lens_problems_inst *x, size_t i)
{
    const struct lens_pscw *p = x->pscw = &x->ev->pscw[i];
    x->blocked = p->blocked_call != LENS_NONE;
    x->call[0] = call_at(x, p->origin, p->start_call);
    x->call[1] = call_at(x, p->origin, p->complete_call);
    x->call[2] = x->blocked ? call_at(x, p->origin, p->blocked_call) : x->call[0];
    x->call[3] = call_at(x, p->target, p->post_call);
    x->call[4] = call_at(x, p->target, p->wait_call);
    x->rank[0] = p->origin, x->charged[0] = x->blocked ? p->blocked_call : p->start_call;
    x->rank[1] = p->target, x->charged[1] = p->wait_call;
    /* culprits: the origin's Win_complete (Early Wait waits for it), the target's Win_post
     * (Late Post waits for it) */
    x->orank[0] = p->origin, x->ocall[0] = p->complete_call;
    x->orank[1] = p->target, x->ocall[1] = p->post_call;
    return 1;
}

/* One row per composite kind; a composite declared in the rules is matched to the row whose two
 * member types it names (in either order). */
static const struct lens_problems_kind kinds[] = {
    {{T_SEND, T_RECV}, p2p_count, p2p_build, p2p_may_repeat},
    /* always_repeats although a collective call is charged once: the merge sorts the
     * charges by (rank, call), so the sums run in the order of the general composite that
     * collective.rules now uses, and the two agree to the bit (test_rules_shapes) */
    {{T_COLL, T_INST}, coll_count, coll_build, always_repeats},
    {{T_LOCK, T_HOLDER}, lock_count, lock_build, always_repeats},
    {{T_ACCESS, T_EXPO}, pscw_count, pscw_build, always_repeats}};

static const struct lens_problems_vocab builtin = {types, NTYPES, kinds, NFIELDS(kinds)};

const struct lens_problems_vocab *lens_problems_vocab_builtin(void)
{
    return &builtin;
}

/* ---- checking and binding a vocabulary ---- */

/* A vocabulary may come from a test or an extension: every bound the evaluator relies on (field
 * count fits the used[] bit masks and the f[][] arrays of run_composite) is checked here once,
 * so evaluation needs no checks. */
int lens_problems_vocab_check(const struct lens_problems_vocab *v, struct lens_err *e)
{
    if (!v || !v->types || v->ntypes < 1 || v->ntypes > LENS_PROBLEMS_MAXTYPES || !v->kinds ||
        v->nkinds < 1)
        return lens_err_set(e, LENS_EINVAL, "rule vocabulary: needs 1..%d types and a kind",
                            LENS_PROBLEMS_MAXTYPES);
    for (int i = 0; i < v->ntypes; i++) {
        const struct lens_problems_type *t = &v->types[i];
        if (!t->name || !t->name[0])
            return lens_err_set(e, LENS_EINVAL, "rule vocabulary: type %d has no name", i);
        for (int j = 0; j < i; j++)
            if (!strcmp(v->types[j].name, t->name))
                return lens_err_set(e, LENS_EINVAL, "rule vocabulary: type '%s' twice",
                                    t->name);
        if (t->nfields < 1 || t->nfields > LENS_PROBLEMS_MAXF || !t->fields)
            return lens_err_set(e, LENS_EINVAL, "rule vocabulary: type '%s' has %d fields "
                                "(1..%d)", t->name, t->nfields, LENS_PROBLEMS_MAXF);
        for (int f = 0; f < t->nfields; f++) {
            const struct lens_problems_field *d = &t->fields[f];
            if (!d->name || !d->name[0] || !d->get || (d->type != 'n' && d->type != 's'))
                return lens_err_set(e, LENS_EINVAL, "rule vocabulary: field %d of '%s' (%s) "
                                    "lacks a name, a getter or a type n/s", f, t->name,
                                    d->name ? d->name : "?");
            for (int g = 0; g < f; g++)
                if (!strcmp(t->fields[g].name, d->name))
                    return lens_err_set(e, LENS_EINVAL, "rule vocabulary: field '%s.%s' twice",
                                        t->name, d->name);
        }
    }
    for (int k = 0; k < v->nkinds; k++) {
        const struct lens_problems_kind *q = &v->kinds[k];
        int a = q->member[0], b = q->member[1];
        if (a < 0 || a >= v->ntypes || b < 0 || b >= v->ntypes || a == b)
            return lens_err_set(e, LENS_EINVAL, "rule vocabulary: kind %d needs two distinct "
                                "member types in 0..%d, has %d and %d", k, v->ntypes - 1, a, b);
        if (!q->count || !q->build || !q->may_repeat)
            return lens_err_set(e, LENS_EINVAL, "rule vocabulary: kind %s+%s lacks count, "
                                "build or may_repeat", v->types[a].name, v->types[b].name);
        /* a composite is matched to its kind by the member types: a pair must be unique */
        for (int j = 0; j < k; j++) {
            const int *m = v->kinds[j].member;
            if ((m[0] == a && m[1] == b) || (m[0] == b && m[1] == a))
                return lens_err_set(e, LENS_EINVAL, "rule vocabulary: kind %s+%s twice",
                                    v->types[a].name, v->types[b].name);
        }
    }
    return LENS_OK;
}

static int general_check(const struct lens_rules *r, const struct lens_problems_vocab *v,
                         struct lens_err *e);

int lens_problems_bind(struct lens_rules *rules, const struct lens_problems_vocab *v,
                       struct lens_err *e)
{
    if (!v)
        v = &builtin;
    int rc = lens_problems_vocab_check(v, e);
    if (rc)
        return rc;
    /* ruleeval takes NULL-terminated name lists; the tables are small, the stack holds them */
    const char *names[LENS_PROBLEMS_MAXTYPES][LENS_PROBLEMS_MAXF + 1];
    char str[LENS_PROBLEMS_MAXTYPES][LENS_PROBLEMS_MAXF + 1];
    /* Every composite is a type too (after the vocabulary's), whose fields are its
     * parameters: a member may be an instance of a composite declared before (nesting). */
    int nt = v->ntypes + rules->ncomposites, np = 0;
    for (int c = 0; c < rules->ncomposites; c++)
        np += rules->composites[c].nparams + 1;
    struct lens_ruleeval_type *rt = lens_calloc((size_t)nt, sizeof *rt);
    const char **pnames = lens_calloc((size_t)np + 1, sizeof *pnames);
    if (!rt || !pnames) {
        lens_free(rt);
        lens_free(pnames);
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    for (int c = 0, at = 0; c < rules->ncomposites; c++) {
        const struct lens_rule_composite *k = &rules->composites[c];
        for (int i = 0; i < v->ntypes; i++)
            if (!strcmp(v->types[i].name, k->name)) {
                lens_free(rt);
                lens_free(pnames);
                return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: composite event '%s' has the "
                                    "name of an event type", k->file, k->line, k->col, k->name);
            }
        /* numeric fields only: a parameter's type is known once its composite is bound */
        rt[v->ntypes + c] = (struct lens_ruleeval_type){k->name, pnames + at, NULL};
        for (int i = 0; i < k->nparams; i++)
            pnames[at++] = k->params[i].name;
        pnames[at++] = NULL;
    }
    for (int i = 0; i < v->ntypes; i++) {
        const struct lens_problems_type *t = &v->types[i];
        for (int f = 0; f < t->nfields; f++) {
            names[i][f] = t->fields[f].name;
            str[i][f] = t->fields[f].type;
        }
        names[i][t->nfields] = NULL;
        str[i][t->nfields] = '\0';
        rt[i] = (struct lens_ruleeval_type){t->name, names[i], str[i]};
    }
    rc = lens_ruleeval_bind(rules, rt, nt, e);
    lens_free(rt);
    lens_free(pnames);
    return rc ? rc : general_check(rules, v, e);
}

/* ---- per-run state ---- */

struct acc {                 /* one charged (rank, call) of a problem */
    int32_t rank;
    uint32_t call;
    double seconds;
    double start;            /* where the charged part begins in the call (charge_once) */
    int32_t orank;           /* the other member's call (its culprit), orank -1: none */
    uint32_t ocall;
    uint64_t inst;           /* the kind's candidate index: the instance is built again from it
                                to expand the problem's texts (expand_texts) */
};

/* Resolved call sites by site index: a site is resolved once per run, although it may head
 * rows of several problems and members. */
#define SITE_CACHE 256
struct site_cache {
    uint32_t site;
    int rc;
    struct lens_callsite c;
};

/* The instances a general composite matched (run_general), kept for the composites that nest
 * it and for expanding its problems' texts: per instance its members' candidate indices, its
 * parameters, and the call it stands for (its first member's). */
struct ginst {
    size_t n, cap;
    int nm, np;          /* members, parameters */
    uint64_t *tuple;     /* n * nm */
    double *vals;        /* n * np */
    int32_t *rank;
    uint32_t *call;
    int naggw;           /* NFIELDS(calls_fields) * nm when a member is a shared set, else 0 */
    double *agg;         /* n * naggw: each set member's aggregates, for the texts */
    int keep;            /* instances are stored only when a later composite nests this one
                            or a problem's texts read them (else only counted: a composite
                            per message would hold 52 bytes per message for nothing) */
};

/* Everything one detection needs, so the functions below take one pointer. Charges are
 * collected per problem first and aggregated at the end: the merging of repeated calls needs
 * all of a problem's charges. */
struct run {
    const struct lens_trace *t;
    const struct lens_events *ev;
    const struct lens_problems_vocab *v;
    struct lens_rules *r;
    struct lens_problems *out;
    struct acc **acc;        /* per problem: charged calls */
    size_t *nacc, *capacc;
    uint8_t *repeat;         /* per problem: a call may have been charged twice */
    int opnames[24], opkinds[24]; /* interned ids by op slot (op_slot) */
    int bad_problem;         /* first problem disabled by a runtime error, -1 */
    struct site_cache *cache; /* SITE_CACHE entries, ncache used (NULL: no caching) */
    int ncache;
    /* the general matcher's state, built when a rule first needs it (build_gcalls) */
    struct lens_problems_gcall *gc; /* per global call id */
    uint64_t ngc;
    int gnames[5];                   /* "p2p", "collective", "rma", "other", "none" */
    struct ginst *gi;                /* per composite: the instances a general one matched */
};

static const struct lens_trace_call *call_of(const struct run *u, int32_t r, uint32_t c)
{
    return &u->t->ranks[r].calls[c];
}

/* ---- evaluation ---- */

/* Records one instance; repeated (rank, call) pairs are merged in aggregate(). */
/* Once any call of problem p may repeat, the whole problem is merged (sorted by call) in
 * aggregate(); otherwise the charges are already unique per call and the sort is skipped. */
static int charge(struct run *u, int p, const struct lens_problems_kind *kind, int32_t rank,
                  uint32_t call, double sec, int32_t orank, uint32_t ocall, uint64_t inst)
{
    if (!u->repeat[p] && kind->may_repeat(u->t, rank, call))
        u->repeat[p] = 1;
    if (u->nacc[p] == u->capacc[p]) {
        size_t m = u->capacc[p] ? 2 * u->capacc[p] : 256;
        struct acc *q = lens_realloc(u->acc[p], m * sizeof *q);
        if (!q)
            return LENS_ENOMEM;
        u->acc[p] = q;
        u->capacc[p] = m;
    }
    u->acc[p][u->nacc[p]++] = (struct acc){rank, call, sec, 0, orank, ocall, inst};
    return LENS_OK;
}

/* The error for a composite no kind matches, listing the kinds of the vocabulary. */
/* The message lists what the vocabulary offers, so a rule author sees the valid pairs. */
static int no_kind(const struct run *u, const struct lens_rule_composite *k, struct lens_err *e)
{
    char list[600] = "";
    size_t n = 0;
    for (int m = 0; m < u->v->nkinds && n < sizeof list; m++) {
        const int *t = u->v->kinds[m].member;
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s+%s",
                              !m ? "" : m == u->v->nkinds - 1 ? " or " : ", ",
                              u->v->types[t[0]].name, u->v->types[t[1]].name);
    }
    return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: composite event '%s' needs the member "
                        "types %s", k->file, k->line, k->col, k->name, list);
}

/* Marks in used[slot] the fields tree n reads (bound rules: FIELD nodes hold slot and index). */
/* Recursion depth is bounded by LENS_RULES_MAX_DEPTH (the parser and binder refuse deeper
 * trees). */
static void mark_fields(const struct lens_rules *r, int n, uint32_t used[2])
{
    if (n < 0)
        return;
    const struct lens_rule_node *x = &r->nodes[n];
    if (x->op == LENS_RN_FIELD && x->slot >= 0 && x->slot < 2 && x->index >= 0 &&
        x->index < LENS_PROBLEMS_MAXF)
        used[x->slot] |= 1u << x->index;
    mark_fields(r, x->a, used);
    mark_fields(r, x->b, used);
}

/* The kind whose member types the composite has, NULL when none; side[s]: the composite's
 * member slot of the kind's side s. A composite may list its members in either order, so rules
 * can write "member (recv as r, send as s)". */
static const struct lens_problems_kind *find_kind(const struct run *u,
                                                  const struct lens_rule_composite *k, int side[2])
{
    side[0] = side[1] = -1;
    for (int m = 0; m < u->v->nkinds && k->nmembers == 2; m++) {
        for (int s = 0; s < 2; s++)
            side[s] = k->members[0].type_index == u->v->kinds[m].member[s] ? 0
                    : k->members[1].type_index == u->v->kinds[m].member[s] ? 1 : -1;
        if (side[0] >= 0 && side[1] >= 0 && side[0] != side[1])
            return &u->v->kinds[m];
    }
    return NULL;
}

/* Evaluates composite c on every instance of its kind and charges the durations of its
 * problems: build the instance, fetch the fields the rules read, test the composite's condition
 * and compute its parameters, then each problem's condition and duration. */
static int run_composite(struct run *u, int c, struct lens_err *e)
{
    const struct lens_rule_composite *k = &u->r->composites[c];
    int probs[64], np = 0;
    /* A composite rarely has more than a few problems; 64 bounds the local list. */
    for (int p = 0; p < u->r->nproblems && np < 64; p++)
        if (u->r->problems[p].composite == c)
            probs[np++] = p;
    if (!np)
        return LENS_OK;
    int side[2];
    const struct lens_problems_kind *kind = find_kind(u, k, side);
    if (!kind)
        return no_kind(u, k, e);
    if (k->nparams > 64)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: more than 64 parameters", k->file,
                            k->line, k->col);
    /* f[j]: the field values of member slot j, as ruleeval reads them */
    double f[2][LENS_PROBLEMS_MAXF] = {{0}}, params[64];
    const double *mem[2] = {f[0], f[1]};
    struct lens_ruleeval_ctx x = {mem, params};
    const struct lens_problems_type *ty[2] = {&u->v->types[kind->member[0]],
                                              &u->v->types[kind->member[1]]};
    struct lens_problems_inst in = {.t = u->t, .ev = u->ev, .opnames = u->opnames,
                                    .opkinds = u->opkinds};
    /* only the fields the rules of this composite read are fetched: most are never named */
    uint32_t used[2] = {0, 0};
    mark_fields(u->r, k->when, used);
    for (int j = 0; j < k->nparams; j++)
        mark_fields(u->r, k->params[j].expr, used);
    for (int j = 0; j < np; j++) {
        mark_fields(u->r, u->r->problems[probs[j]].when, used);
        mark_fields(u->r, u->r->problems[probs[j]].duration, used);
    }
    /* Candidates are visited in ascending order: the collective builder's cursor depends on it. */
    size_t n = kind->count(u->ev);
    for (size_t i = 0; i < n; i++) {
        /* a builder that names no culprit call leaves -1: no culprit site for it */
        in.orank[0] = in.orank[1] = -1;
        if (!kind->build(&in, i))
            continue;
        for (int s = 0; s < 2; s++)
            for (int fl = 0; fl < ty[s]->nfields; fl++)
                if (used[side[s]] >> fl & 1u)
                    f[side[s]][fl] = ty[s]->fields[fl].get(&in);
        int rc = lens_ruleeval_composite(u->r, c, &x, e);
        /* An error in the composite itself (division by zero in its condition or parameters)
         * stops the detection: every problem of the composite depends on it. */
        if (rc < 0)
            return rc;
        if (!rc)
            continue;
        for (int j = 0; j < np; j++) {
            int p = probs[j];
            if (p == u->bad_problem)
                continue;
            double d;
            struct lens_err pe;
            rc = lens_ruleeval_problem(u->r, p, &x, &d, &pe);
            if (rc < 0) { /* a runtime error disables the rule, reported in warning */
                if (u->bad_problem < 0) {
                    u->bad_problem = p;
                    snprintf(u->out->warning, sizeof u->out->warning,
                             "%s (problem '%s' skipped)", pe.msg, u->r->problems[p].id);
                }
                continue;
            }
            /* The problem's location is a slot of the composite; loc is the kind's member it
             * names, whose rank and call the builder set. */
            int loc = u->r->problems[p].location == side[0] ? 0 : 1;
            /* Only positive finite durations are charged: a negative one means the pattern did
             * not occur (the partner was early), and infinity cannot come from a bounded rule. */
            if (rc == 1 && d > 0 && isfinite(d) &&
                charge(u, p, kind, in.rank[loc], in.charged[loc], d, in.orank[1 - loc],
                       in.ocall[1 - loc], i))
                return lens_err_set(e, LENS_ENOMEM, "out of memory evaluating '%s'",
                                    u->r->problems[p].id);
        }
    }
    return LENS_OK;
}

/* ---- general composites ----
 * A composite whose members are MPI calls (type "call") or instances of composites declared
 * before it (nesting), related by its `when`. Candidates are found by key, never by trying
 * all pairs: member 0 runs over all its candidates; every later member m needs at least one
 * equality conjunct of `when`, "m.field == expression of earlier members" (m.id == a.next:
 * the next call of a's rank; r.id == s.match: the message's other end; b.instance ==
 * a.instance: the same collective instance; b.comm == a.comm ...). Its candidates are
 * indexed once by the hash of those fields (a sorted array of (hash, candidate)), so each
 * partial match costs one binary search plus the size of its bucket: O(n log n) to build,
 * and linear in the events when the keys are selective (an id, a message). The whole `when`
 * is evaluated on each complete tuple, so keys only prune. */

#define GKEYS 8 /* equality conjuncts used as one member's key */

#define GFILT 16 /* conjuncts tested as soon as their last member is bound */

struct gplan {
    int nm;
    int src[LENS_RULES_MAX_MEMBERS];   /* -1: a call; -2: a shared set of calls; else the
                                          nested composite */
    int nself[LENS_RULES_MAX_MEMBERS];
    int self[LENS_RULES_MAX_MEMBERS][GFILT]; /* conjuncts reading member m alone: a candidate
                                               failing one is left out of m's index */
    uint32_t used[LENS_RULES_MAX_MEMBERS];   /* call fields the rules read, by member */
    int nfilt[LENS_RULES_MAX_MEMBERS];
    int filt[LENS_RULES_MAX_MEMBERS][GFILT]; /* conjuncts whose last member is m: tested right
                                               after m is bound, so a partial match that
                                               cannot hold is dropped before the next lookup */
    int nkey[LENS_RULES_MAX_MEMBERS];
    int keyf[LENS_RULES_MAX_MEMBERS][GKEYS]; /* field of member m */
    int keyx[LENS_RULES_MAX_MEMBERS][GKEYS]; /* expression over earlier members */
    int nimp[LENS_RULES_MAX_MEMBERS];
    int imp[LENS_RULES_MAX_MEMBERS][GFILT];  /* conjuncts on one field F of member 0 alone,
                                               where a key of m is m.G == first.F: every
                                               candidate of m that can match has G equal to
                                               F, so the conjunct with G put for F leaves
                                               the others out of m's index (c.instance >= 0
                                               keeps the calls of no instance out of the
                                               set's index) */
    int impk[LENS_RULES_MAX_MEMBERS][GFILT]; /* which key of m */
    int impf[LENS_RULES_MAX_MEMBERS][GFILT]; /* F */
    int direct[LENS_RULES_MAX_MEMBERS];      /* keyed by its id alone (b.id == a.next,
                                               recv.id == send.id): a simple event's id is
                                               its candidate number, so the key is the
                                               candidate and no index is built */
    uint32_t used0f;                         /* fields of member 0 its own conjuncts read:
                                               fetched first, the rest once they hold */
};

/* The vocabulary's "call" type: the built-in one, whose getters the matcher feeds. */
static int call_type(const struct lens_problems_vocab *v)
{
    for (int i = 0; i < v->ntypes; i++)
        if (v->types[i].fields == call_fields)
            return i;
    return -1;
}

static int calls_type(const struct lens_problems_vocab *v)
{
    for (int i = 0; i < v->ntypes; i++)
        if (v->types[i].fields == calls_fields)
            return i;
    return -1;
}

/* General: some member is a call, a set of calls, a message end or a composite; the built-in
 * kinds pair two other types. */
static int is_general(const struct lens_problems_vocab *v, const struct lens_rule_composite *k)
{
    int tc = call_type(v), ts = calls_type(v);
    for (int m = 0; m < k->nmembers; m++) {
        int ti = k->members[m].type_index;
        if (ti == tc || ti >= v->ntypes || (ts >= 0 && ti == ts) ||
            (ti >= 0 && (v->types[ti].fields == smsg_fields || v->types[ti].fields == rmsg_fields ||
                         v->types[ti].fields == lockep_fields ||
                         v->types[ti].fields == pacc_fields || v->types[ti].fields == pexp_fields)))
            return 1;
    }
    return 0;
}

/* Candidate sources of a general member (gplan.src): a call, a set of calls, the send or the
 * receive end of a message; a composite's index is >= 0. */
enum { GSRC_CALL = -1, GSRC_SET = -2, GSRC_SEND = -3, GSRC_RECV = -4, GSRC_LOCK = -5,
       GSRC_ACCESS = -6, GSRC_EXPO = -7 };

/* A simple event of the event tables (a message end, a lock epoch, a PSCW end): its id is
 * its index in the table, and it stands for one call. */
static int g_record(int src)
{
    return src <= GSRC_SEND && src >= GSRC_EXPO;
}

static const struct lens_problems_field *g_fields(int src, int *n)
{
    switch (src) {
    case GSRC_SEND: *n = NFIELDS(smsg_fields); return smsg_fields;
    case GSRC_RECV: *n = NFIELDS(rmsg_fields); return rmsg_fields;
    case GSRC_LOCK: *n = NFIELDS(lockep_fields); return lockep_fields;
    case GSRC_ACCESS: *n = NFIELDS(pacc_fields); return pacc_fields;
    default: *n = NFIELDS(pexp_fields); return pexp_fields;
    }
}

/* Which call a record's field is the time of (0: none, such as rank or tag), so that
 * `cause = send.enter` names the Isend rather than the Wait that completed it. Message ends:
 * 1 the issuing call (Send, Isend; the posting Recv, Irecv), 2 the completing one. Lock
 * epochs: 1 Win_lock, 2 Win_unlock (leave, release), 3 the blocked call. PSCW access: 1
 * Win_start, 2 Win_complete, 3 the blocked call; exposure: 1 Win_post, 2 Win_wait. */
static int msg_call_of(int src, int f)
{
    int n;
    lens_problems_get_fn g = g_fields(src, &n)[f].get;
    switch (src) {
    case GSRC_SEND:
        return g == get_send_enter || g == get_send_leave ? 1
             : g == get_send_done_enter || g == get_send_done_leave ? 2 : 0;
    case GSRC_RECV:
        return g == get_recv_post_enter || g == get_recv_post_leave ? 1
             : g == get_recv_enter || g == get_recv_leave ? 2 : 0;
    case GSRC_LOCK:
        return g == get_lock_enter ? 1 : g == get_lock_leave || g == get_lock_release ? 2
             : g == get_lock_wait_enter || g == get_lock_wait_leave ? 3 : 0;
    case GSRC_ACCESS:
        return g == get_access_start_enter ? 1
             : g == get_access_complete_enter || g == get_access_complete_leave ? 2
             : g == get_access_wait_enter || g == get_access_wait_leave ? 3 : 0;
    default:
        return g == get_expo_post_enter ? 1
             : g == get_expo_wait_enter || g == get_expo_wait_leave ? 2 : 0;
    }
}

/* The call field of the same name as field f of "calls" (its key fields), -1 when none. */
static int calls_key(int f)
{
    for (int i = 0; i < NFIELDS(call_fields); i++)
        if (!strcmp(call_fields[i].name, calls_fields[f].name))
            return i;
    return -1;
}

/* The highest member slot tree n reads, -1 for none, LENS_RULES_MAX_MEMBERS when it reads a
 * parameter (computed only once all members are bound, so no key may use one). */
static int max_slot(const struct lens_rules *r, int n)
{
    if (n < 0)
        return -1;
    const struct lens_rule_node *x = &r->nodes[n];
    if (x->op == LENS_RN_PARAM || x->op == LENS_RN_NAME || x->op == LENS_RN_DOTTED)
        return LENS_RULES_MAX_MEMBERS;
    int s = x->op == LENS_RN_FIELD ? x->slot : -1, a = max_slot(r, x->a), b = max_slot(r, x->b);
    return s > a ? (s > b ? s : b) : (a > b ? a : b);
}

/* The lowest member slot tree n reads, LENS_RULES_MAX_MEMBERS when none. */
static int min_slot(const struct lens_rules *r, int n)
{
    if (n < 0)
        return LENS_RULES_MAX_MEMBERS;
    const struct lens_rule_node *x = &r->nodes[n];
    int s = x->op == LENS_RN_FIELD ? x->slot : LENS_RULES_MAX_MEMBERS;
    int a = min_slot(r, x->a), b = min_slot(r, x->b);
    return s < a ? (s < b ? s : b) : (a < b ? a : b);
}

/* The one field of member slot 0 that tree n reads when it reads nothing else (no other
 * member, field or parameter); -1 when none, -2 when it reads more. */
static int only_field0(const struct lens_rules *r, int n)
{
    if (n < 0)
        return -1;
    const struct lens_rule_node *x = &r->nodes[n];
    if (x->op == LENS_RN_PARAM || x->op == LENS_RN_NAME || x->op == LENS_RN_DOTTED ||
        x->op == LENS_RN_MEMBER || (x->op == LENS_RN_FIELD && x->slot != 0))
        return -2;
    int f = x->op == LENS_RN_FIELD ? x->index : -1, a = only_field0(r, x->a),
        b = only_field0(r, x->b);
    if (f == -2 || a == -2 || b == -2)
        return -2;
    int g = f >= 0 ? f : a >= 0 ? a : b;
    if ((f >= 0 && f != g) || (a >= 0 && a != g) || (b >= 0 && b != g))
        return -2;
    return g;
}

/* Marks the fields tree n reads, per member slot (bit f of used[slot]). */
static void gmark(const struct lens_rules *r, int n, uint32_t *used)
{
    if (n < 0)
        return;
    const struct lens_rule_node *x = &r->nodes[n];
    if (x->op == LENS_RN_FIELD && x->slot >= 0 && x->slot < LENS_RULES_MAX_MEMBERS &&
        x->index >= 0 && x->index < 32)
        used[x->slot] |= 1u << x->index;
    gmark(r, x->a, used);
    gmark(r, x->b, used);
}

/* The top-level conjuncts of a condition (a and b and c). */
static void conjuncts(const struct lens_rules *r, int n, int *out, int *nout, int max)
{
    if (n < 0)
        return;
    if (r->nodes[n].op == LENS_RN_AND) {
        conjuncts(r, r->nodes[n].a, out, nout, max);
        conjuncts(r, r->nodes[n].b, out, nout, max);
    } else if (*nout < max) {
        out[(*nout)++] = n;
    }
}

/* Where each member's candidates come from and by which key: checked when the rules are bound
 * (lens_problems_bind), so a composite the matcher cannot run is an error at file:line:col
 * before any trace is read. */
static int general_plan(const struct lens_rules *r, const struct lens_problems_vocab *v, int c,
                        struct gplan *g, struct lens_err *e)
{
    const struct lens_rule_composite *k = &r->composites[c];
    int tc = call_type(v), ts = calls_type(v), conj[256], nconj = 0;
    g->nm = k->nmembers;
    conjuncts(r, k->when, conj, &nconj, 256);
    for (int m = 0; m < k->nmembers; m++) {
        const struct lens_rule_member *mb = &k->members[m];
        int ti = mb->type_index;
        const struct lens_problems_field *tf = ti < v->ntypes ? v->types[ti].fields : NULL;
        g->src[m] = ti == tc ? GSRC_CALL : ti == ts && ts >= 0 ? GSRC_SET
                  : tf == smsg_fields ? GSRC_SEND : tf == rmsg_fields ? GSRC_RECV
                  : tf == lockep_fields ? GSRC_LOCK : tf == pacc_fields ? GSRC_ACCESS
                  : tf == pexp_fields ? GSRC_EXPO : ti - v->ntypes;
        /* a set is aggregated over everything its key ties, which only means something when
         * other members give that key */
        if (g->src[m] == -2 && (!mb->shared || m == 0))
            return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: a 'calls' member is a set: declare "
                                "it 'shared' and after a member that keys it", k->file,
                                mb->line, mb->col);
        if (ti != tc && ti != ts && !g_record(g->src[m]) && ti < v->ntypes)
            return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: '%s' cannot be a member beside "
                                "calls and composites (its kind pairs it with its partner)",
                                k->file, mb->line, mb->col, mb->type);
        /* nested instances must exist when this composite runs: declared before it */
        if (g->src[m] >= c)
            return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: composite event '%s' is used "
                                "before it is declared", k->file, mb->line, mb->col, mb->type);
        if (g->src[m] >= 0 && !is_general(v, &r->composites[g->src[m]]))
            return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: composite event '%s' is a "
                                "built-in kind and cannot be nested", k->file, mb->line,
                                mb->col, mb->type);
        g->nkey[m] = 0;
        int related = 0;
        for (int i = 0; i < nconj && m > 0; i++) {
            const struct lens_rule_node *x = &r->nodes[conj[i]];
            if (x->op != LENS_RN_EQ)
                continue;
            for (int side = 0; side < 2 && g->nkey[m] < GKEYS; side++) {
                int f = side ? x->b : x->a, o = side ? x->a : x->b;
                if (r->nodes[f].op != LENS_RN_FIELD || r->nodes[f].slot != m ||
                    max_slot(r, o) >= m)
                    continue;
                related |= max_slot(r, o) >= 0;
                /* a set is indexed by its calls' fields of the same name */
                if (g->src[m] == -2 && calls_key(r->nodes[f].index) < 0)
                    return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: only instance and comm key "
                                        "a 'calls' member", x->file, x->line, x->col);
                g->keyf[m][g->nkey[m]] = g->src[m] == -2 ? calls_key(r->nodes[f].index)
                                                         : r->nodes[f].index;
                g->keyx[m][g->nkey[m]++] = o;
                break;
            }
        }
        /* conjuncts that only read members up to m prune right after m is bound; those
         * reading m alone already when m's index is built (not for a set, whose fields are
         * aggregates of the bucket) */
        g->nfilt[m] = g->nself[m] = 0;
        for (int i = 0; i < nconj; i++) {
            if (max_slot(r, conj[i]) != m)
                continue;
            if (min_slot(r, conj[i]) == m && m > 0 && g->src[m] != -2) {
                if (g->nself[m] < GFILT)
                    g->self[m][g->nself[m]++] = conj[i];
            } else if (g->nfilt[m] < GFILT) {
                g->filt[m][g->nfilt[m]++] = conj[i];
            }
        }
        /* field 0 of call, send_msg and recv_msg is the id, which numbers the candidates */
        g->direct[m] = m > 0 && g->nkey[m] == 1 && g->keyf[m][0] == 0 &&
                       (g->src[m] == GSRC_CALL || g_record(g->src[m]));
        g->nimp[m] = 0;
        for (int i = 0; i < nconj && m > 0; i++) {
            int f0 = max_slot(r, conj[i]) == 0 ? only_field0(r, conj[i]) : -1;
            for (int kk = 0; f0 >= 0 && kk < g->nkey[m] && g->nimp[m] < GFILT; kk++) {
                const struct lens_rule_node *o = &r->nodes[g->keyx[m][kk]];
                if (o->op == LENS_RN_FIELD && o->slot == 0 && o->index == f0) {
                    g->imp[m][g->nimp[m]] = conj[i], g->impk[m][g->nimp[m]] = kk;
                    g->impf[m][g->nimp[m]++] = f0;
                    break;
                }
            }
        }
        if (m > 0 && !related)
            return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: member '%s' of '%s' is tied to the "
                                "members before it by no equality in 'when' (%s.FIELD == "
                                "EXPRESSION of earlier members, e.g. %s.id == %s.next): the "
                                "matcher finds candidates by key and never tries all pairs",
                                k->file, mb->line, mb->col, mb->name, k->name, mb->name,
                                mb->name, k->members[0].name);
    }
    /* cause = m.field names the call an aggregate of a set came from: only the aggregates
     * that are one call's time pick a call */
    for (int p = 0; p < r->nproblems; p++) {
        const struct lens_rule_problem *rp = &r->problems[p];
        if (rp->composite != c || rp->cause_field < 0)
            continue;
        const struct lens_rule_node *x = &r->nodes[rp->cause_node];
        int f = rp->cause_field, cs = g->src[rp->cause];
        if (g_record(cs) && msg_call_of(cs, f))
            continue;
        if (cs != GSRC_SET || f < 3 || f == 9)
            return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: cause '%s.%s' picks no call: name a "
                                "member, a time of a record that is one call's (send_msg: "
                                "enter, done_enter; recv_msg: enter, post_enter; lock_ep: "
                                "enter, release, wait_enter; pscw_access: start_enter, "
                                "complete_enter, wait_enter; pscw_exposure: post_enter, "
                                "wait_enter, and their leaves), or an aggregate of a 'calls' set that is one "
                                "call's time (min_enter, max_enter, min_leave, max_leave, "
                                "root_enter, max_enter_nonroot, prefix_max_enter)", x->file, x->line,
                                x->col, x->name, x->field);
    }
    /* only the call fields someone reads are fetched: keys, conditions, parameters, the
     * problems' conditions and durations (texts fetch everything, once per problem) */
    memset(g->used, 0, sizeof g->used);
    gmark(r, k->when, g->used);
    for (int i = 0; i < k->nparams; i++)
        gmark(r, k->params[i].expr, g->used);
    for (int p = 0; p < r->nproblems; p++)
        if (r->problems[p].composite == c) {
            gmark(r, r->problems[p].when, g->used);
            gmark(r, r->problems[p].duration, g->used);
        }
    for (int m = 0; m < k->nmembers; m++)
        for (int i = 0; i < g->nkey[m]; i++)
            g->used[m] |= 1u << g->keyf[m][i];
    uint32_t u0[LENS_RULES_MAX_MEMBERS] = {0};
    for (int i = 0; i < g->nfilt[0]; i++)
        gmark(r, g->filt[0][i], u0);
    g->used0f = u0[0] & g->used[0];
    return LENS_OK;
}

/* Checks every general composite of bound rules (lens_problems_bind). */
static int general_check(const struct lens_rules *r, const struct lens_problems_vocab *v,
                         struct lens_err *e)
{
    struct gplan *g = lens_malloc(sizeof *g);
    int rc = g ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "out of memory");
    for (int c = 0; !rc && c < r->ncomposites; c++)
        if (is_general(v, &r->composites[c]))
            rc = general_plan(r, v, c, g, e);
    /* a built-in kind names its cause itself (its builder) */
    for (int p = 0; !rc && p < r->nproblems; p++) {
        const struct lens_rule_problem *rp = &r->problems[p];
        if (rp->cause_node >= 0 && !is_general(v, &r->composites[rp->composite])) {
            const struct lens_rule_node *x = &r->nodes[rp->cause_node];
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: 'cause' needs a composite of calls: "
                              "the built-in kind '%s' names its cause itself", x->file, x->line,
                              x->col, r->composites[rp->composite].name);
        }
    }
    lens_free(g);
    return rc;
}

/* Every MPI call as a simple event, once per detection (O(calls + records + messages)). */
static int build_gcalls(struct run *u)
{
    const struct lens_trace *t = u->t;
    if (u->gc)
        return LENS_OK;
    static const char *const cls[5] = {"p2p", "collective", "rma", "other", "none"};
    for (int i = 0; i < 5; i++)
        if ((u->gnames[i] = lens_rules_intern(u->r, cls[i])) < 0)
            return LENS_ENOMEM;
    uint64_t n = 0, *off = lens_malloc(((size_t)t->nranks + 1) * sizeof *off);
    int *fname = lens_malloc(((size_t)t->nregions + 1) * sizeof *fname);
    if (!off || !fname) {
        lens_free(off);
        lens_free(fname);
        return LENS_ENOMEM;
    }
    for (int r = 0; r < t->nranks; r++)
        off[r] = n, n += t->ranks[r].ncalls;
    for (uint32_t i = 0; i < t->nregions; i++)
        fname[i] = -1;
    u->gc = lens_calloc((size_t)n + 1, sizeof *u->gc);
    u->ngc = n;
    int rc = u->gc ? LENS_OK : LENS_ENOMEM;
    for (int r = 0; !rc && r < t->nranks; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        for (uint32_t c = 0; !rc && c < k->ncalls; c++) {
            struct lens_problems_gcall *g = &u->gc[off[r] + c];
            const struct lens_trace_call *call = &k->calls[c];
            *g = (struct lens_problems_gcall){r, c, c + 1 < k->ncalls ? (int64_t)(off[r] + c + 1)
                                              : -1, c ? (int64_t)(off[r] + c - 1) : -1, -1, -1,
                                              -1, 3, 0, -1, -1, -1};
            /* function names interned once per region: calls share a few dozen */
            if (call->region < t->nregions && fname[call->region] < 0 &&
                (fname[call->region] =
                     lens_rules_intern(u->r, lens_trace_region_name(t, call->region))) < 0)
                rc = LENS_ENOMEM;
            g->fname = call->region < t->nregions ? fname[call->region] : u->gnames[4];
            /* the first record says what the call did: its class and partner */
            if (call->nrec) {
                const struct lens_trace_record *x = &k->recs[call->rec];
                g->cls = x->kind <= LENS_TREC_CANCELLED ? 0 : x->kind == LENS_TREC_COLL_END ? 1 : 2;
                g->peer = x->peer;
                g->comm = x->comm, g->tag = x->tag, g->bytes = (double)x->bytes;
            }
        }
    }
    /* collective instances and messages from the events, so the matcher and the built-in
     * kinds agree on what matched */
    for (size_t i = 0; !rc && i < u->ev->ncoll; i++) {
        const struct lens_coll *q = &u->ev->coll[i];
        for (uint32_t j = q->first; j < q->first + q->n; j++) {
            struct lens_problems_gcall *g =
                &u->gc[off[u->ev->members[j].rank] + u->ev->members[j].call];
            g->coll = (int32_t)i, g->cls = 1, g->comm = q->comm;
        }
    }
    for (size_t i = 0; !rc && i < u->ev->np2p; i++) {
        const struct lens_p2p *p = &u->ev->p2p[i];
        uint64_t sc = off[p->src] + p->send_call, rd = off[p->dst] + p->recv_done,
                 rp = off[p->dst] + p->recv_post;
        if (u->gc[sc].match < 0)
            u->gc[sc].match = (int64_t)rd;
        if (u->gc[rd].match < 0)
            u->gc[rd].match = (int64_t)sc;
        if (u->gc[rp].match < 0)
            u->gc[rp].match = (int64_t)sc;
    }
    lens_free(off);
    lens_free(fname);
    return rc;
}

/* One member's candidates sorted by the hash of its key fields. */
struct gindex {
    uint64_t *h;   /* 2 * n: hash, candidate */
    size_t n;
};

#define GNAGG 11            /* fields of "calls" (CALLS_FIELDS) */
#define GNONE UINT64_MAX    /* no call picked */

/* A shared set member's buckets, each computed once (gaggregate). */
struct gset {
    uint32_t *ent;      /* per index position, at bucket starts: 0 not computed, 1 + entry,
                           UINT32_MAX computed at each use (two keys share the hash) */
    double *agg;        /* per entry GNAGG aggregates */
    uint64_t *pick;     /* per entry GNAGG picked calls */
    size_t *hi;         /* per entry the end of its bucket in the index */
    size_t n, cap;
    double *pmax;       /* per index position: prefix maximum of enters in its bucket (only
                           when the rules read prefix_max_enter; else NULL) */
    uint64_t *parg;     /* the call that gave it */
};

/* The matcher's state for one composite. */
struct gctx {
    struct run *u;
    int c;
    const struct lens_rule_composite *k;
    struct gplan *g;
    struct gindex ix[LENS_RULES_MAX_MEMBERS];
    double *f;                  /* nm * 64 field values */
    const double **mem;
    double params[LENS_RULES_MAX_PARAMS];
    struct lens_ruleeval_ctx x;
    struct lens_problems_inst in;
    uint64_t tuple[LENS_RULES_MAX_MEMBERS];
    struct gset set[LENS_RULES_MAX_MEMBERS];        /* shared set members only */
    uint64_t pick[LENS_RULES_MAX_MEMBERS][GNAGG];   /* a set's picked calls, as bound now */
    int probs[64], np;
    struct lens_err *e;
};

static size_t gcount(const struct run *u, int src)
{
    return src == GSRC_SEND || src == GSRC_RECV ? u->ev->np2p
         : src == GSRC_LOCK ? u->ev->nlocks
         : src == GSRC_ACCESS || src == GSRC_EXPO ? u->ev->npscw
         : src < 0 ? (size_t)u->ngc : u->gi[src].n;
}

/* The calls of message j, as p2p_build resolves them (the getters of send/recv read them). */
static void gmsg(struct run *u, struct lens_problems_inst *in, uint64_t j)
{
    const struct lens_p2p *p = in->p2p = &u->ev->p2p[j];
    in->call[0] = call_of(u, p->src, p->send_call);
    in->call[1] = call_of(u, p->src, p->send_done);
    in->call[2] = call_of(u, p->dst, p->recv_post);
    in->call[3] = call_of(u, p->dst, p->recv_done);
}

/* Fills member m's fields from candidate j: a call through the getters of the call type, a
 * nested instance from its stored parameters. */
static void gfetch(struct run *u, struct lens_problems_inst *in, int src, uint64_t j, double *f,
                   uint32_t used)
{
    if (g_record(src)) {
        int nf;
        const struct lens_problems_field *t = g_fields(src, &nf);
        if (src == GSRC_SEND || src == GSRC_RECV) {
            gmsg(u, in, j);
        } else if (src == GSRC_LOCK) {
            /* an epoch that waited for nobody has no blocked call: its Win_lock stands in */
            const struct lens_lock_epoch *l = in->lock = &u->ev->locks[j];
            in->call[0] = call_of(u, l->rank, l->lock_call);
            in->call[1] = call_of(u, l->rank, l->unlock_call);
            in->call[2] = call_of(u, l->rank, l->prev >= 0 ? l->wait_call : l->lock_call);
        } else {
            pscw_build(in, (size_t)j);
        }
        for (int fl = 0; fl < nf; fl++)
            if (used >> fl & 1u)
                f[fl] = t[fl].get(in);
    } else if (src < 0) { /* a call, or one call of a set (index building) */
        const struct lens_problems_gcall *g = &u->gc[j];
        in->gid = j;
        in->call[0] = call_of(u, g->rank, g->idx);
        for (int fl = 0; fl < NFIELDS(call_fields); fl++)
            if (used >> fl & 1u)
                f[fl] = call_fields[fl].get(in);
    } else {
        const struct ginst *q = &u->gi[src];
        memcpy(f, q->vals + j * (size_t)q->np, (size_t)q->np * sizeof *f);
    }
}

/* The call candidate j of a member stands for (charged, or named as the cause). */
static void gstand(const struct run *u, int src, uint64_t j, int32_t *rank, uint32_t *call)
{
    /* a message end stands for the call that completed it, where Scalasca charges its wait */
    if (src == GSRC_SEND)
        *rank = u->ev->p2p[j].src, *call = u->ev->p2p[j].send_done;
    else if (src == GSRC_RECV)
        *rank = u->ev->p2p[j].dst, *call = u->ev->p2p[j].recv_done;
    /* a lock epoch: its call blocked across the holder's release (else its Win_lock); a PSCW
     * access end its blocked call (else Win_start), an exposure end its Win_wait: where the
     * built-in kinds charged them */
    else if (src == GSRC_LOCK)
        *rank = u->ev->locks[j].rank,
        *call = u->ev->locks[j].prev >= 0 ? u->ev->locks[j].wait_call : u->ev->locks[j].lock_call;
    else if (src == GSRC_ACCESS)
        *rank = u->ev->pscw[j].origin,
        *call = u->ev->pscw[j].blocked_call != LENS_NONE ? u->ev->pscw[j].blocked_call
                                                         : u->ev->pscw[j].start_call;
    else if (src == GSRC_EXPO)
        *rank = u->ev->pscw[j].target, *call = u->ev->pscw[j].wait_call;
    else if (src < 0)
        *rank = u->gc[j].rank, *call = u->gc[j].idx;
    else
        *rank = u->gi[src].rank[j], *call = u->gi[src].call[j];
}

/* The call of record j that role (msg_call_of) names; 0 and the stand-in roles are gstand's. */
static void gpick(const struct run *u, int src, uint64_t j, int role, int32_t *rank,
                  uint32_t *call)
{
    gstand(u, src, j, rank, call);
    if (src == GSRC_SEND && role == 1)
        *call = u->ev->p2p[j].send_call;
    else if (src == GSRC_RECV && role == 1)
        *call = u->ev->p2p[j].recv_post;
    else if (src == GSRC_LOCK && role == 1)
        *call = u->ev->locks[j].lock_call;
    else if (src == GSRC_LOCK && role == 2)
        *call = u->ev->locks[j].unlock_call;
    else if (src == GSRC_ACCESS && role == 1)
        *call = u->ev->pscw[j].start_call;
    else if (src == GSRC_ACCESS && role == 2)
        *call = u->ev->pscw[j].complete_call;
    else if (src == GSRC_EXPO && role == 1)
        *call = u->ev->pscw[j].post_call;
}

static uint64_t ghash(const double *v, int n)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) {
        double d = v[i] == 0 ? 0 : v[i]; /* -0 and 0 are one key, as == says */
        uint64_t b;
        memcpy(&b, &d, sizeof b);
        h = (h ^ b) * 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

static int by_hash(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Index of member m: its candidates sorted by (hash of key fields, candidate), so a bucket is
 * a range found by binary search and visited in candidate order (deterministic output). */
static int gindex_build(struct gctx *q, int m)
{
    size_t n = gcount(q->u, q->g->src[m]);
    struct gindex *ix = &q->ix[m];
    double *f = q->f + (size_t)m * 64, kv[GKEYS];
    ix->n = n;
    if (!(ix->h = lens_malloc((2 * n + 2) * sizeof *ix->h)))
        return LENS_ENOMEM;
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        gfetch(q->u, &q->in, q->g->src[m], j, f, q->g->used[m]);
        int keep = 1;
        for (int i = 0; i < q->g->nself[m] && keep; i++) {
            double v;
            /* an error here (division by zero) reappears, reported, when the tuple is tested */
            keep = lens_ruleeval_node(q->u->r, q->g->self[m][i], &q->x, &v, q->e) || v != 0;
        }
        /* member 0's row is scratch until matching starts: the key value stands in for F */
        for (int i = 0; i < q->g->nimp[m] && keep; i++) {
            double v;
            q->f[q->g->impf[m][i]] = f[q->g->keyf[m][q->g->impk[m][i]]];
            keep = lens_ruleeval_node(q->u->r, q->g->imp[m][i], &q->x, &v, q->e) || v != 0;
        }
        if (!keep)
            continue;
        for (int i = 0; i < q->g->nkey[m]; i++)
            kv[i] = f[q->g->keyf[m][i]];
        ix->h[2 * k] = ghash(kv, q->g->nkey[m]);
        ix->h[2 * k++ + 1] = j;
    }
    ix->n = k;
    qsort(ix->h, k, 2 * sizeof *ix->h, by_hash);
    return LENS_OK;
}

/* The position of the first entry of hash h in the index, ix->n when there is none. */
static size_t gfind(const struct gindex *ix, uint64_t h)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->h[2 * mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n && ix->h[2 * lo] == h ? lo : ix->n;
}

/* A complete tuple: the whole condition, the parameters, then the problems; every match is
 * kept (nesting, texts). */
static int gleaf(struct gctx *q)
{
    struct run *u = q->u;
    int rc = lens_ruleeval_composite(u->r, q->c, &q->x, q->e);
    if (rc <= 0)
        return rc;
    struct ginst *gi = &u->gi[q->c];
    if (gi->keep && gi->n == gi->cap) {
        size_t m = gi->cap ? 2 * gi->cap : 256;
        uint64_t *t = lens_realloc(gi->tuple, m * (size_t)gi->nm * sizeof *t);
        if (t)
            gi->tuple = t;
        double *v = lens_realloc(gi->vals, m * (size_t)(gi->np + 1) * sizeof *v);
        if (v)
            gi->vals = v;
        int32_t *rk = lens_realloc(gi->rank, m * sizeof *rk);
        if (rk)
            gi->rank = rk;
        uint32_t *cl = lens_realloc(gi->call, m * sizeof *cl);
        if (cl)
            gi->call = cl;
        double *ag = !gi->naggw ? gi->agg : lens_realloc(gi->agg, m * (size_t)gi->naggw * sizeof *ag);
        if (ag)
            gi->agg = ag;
        if (!t || !v || !rk || !cl || (gi->naggw && !ag))
            return lens_err_set(q->e, LENS_ENOMEM, "out of memory matching '%s'", q->k->name);
        gi->cap = m;
    }
    size_t id = gi->n++;
    if (gi->keep) {
        memcpy(gi->tuple + id * (size_t)gi->nm, q->tuple, (size_t)gi->nm * sizeof *q->tuple);
        memcpy(gi->vals + id * (size_t)gi->np, q->params, (size_t)gi->np * sizeof *q->params);
        gstand(u, q->g->src[0], q->tuple[0], &gi->rank[id], &gi->call[id]);
    }
    for (int m = 0; gi->keep && gi->naggw && m < gi->nm; m++)
        if (q->g->src[m] == -2)
            memcpy(gi->agg + id * (size_t)gi->naggw + (size_t)m * NFIELDS(calls_fields),
                   q->f + (size_t)m * 64, NFIELDS(calls_fields) * sizeof *gi->agg);
    static const struct lens_problems_kind general_kind = {{0, 0}, NULL, NULL, always_repeats};
    static const struct lens_problems_kind general_msg_kind = {{0, 0}, NULL, NULL,
                                                               p2p_may_repeat};
    for (int j = 0; j < q->np; j++) {
        int p = q->probs[j];
        if (p == u->bad_problem)
            continue;
        double d;
        struct lens_err pe;
        rc = lens_ruleeval_problem(u->r, p, &q->x, &d, &pe);
        if (rc < 0) {
            if (u->bad_problem < 0) {
                u->bad_problem = p;
                snprintf(u->out->warning, sizeof u->out->warning, "%s (problem '%s' skipped)",
                         pe.msg, u->r->problems[p].id);
            }
            continue;
        }
        /* the location member's call is charged; the cause is the member the rule names
         * (or the call one of a set's aggregates came from), else the first other member */
        const struct lens_rule_problem *rp = &u->r->problems[p];
        int loc = rp->location, oth = rp->cause >= 0 ? rp->cause : loc == 0 ? 1 : 0;
        int32_t rank, orank = -1;
        uint32_t call, ocall = 0;
        gstand(u, q->g->src[loc], q->tuple[loc], &rank, &call);
        int os = oth < q->g->nm ? q->g->src[oth] : 0;
        if (oth < q->g->nm && rp->cause_field >= 0 && os == GSRC_SET &&
            q->pick[oth][rp->cause_field] != GNONE) {
            gstand(u, GSRC_CALL, q->pick[oth][rp->cause_field], &orank, &ocall);
        } else if (oth < q->g->nm && rp->cause_field >= 0 && g_record(os)) {
            gpick(u, os, q->tuple[oth], msg_call_of(os, rp->cause_field), &orank, &ocall);
        } else if (oth < q->g->nm) {
            gstand(u, os, q->tuple[oth], &orank, &ocall);
        }
        /* a message end charges its completing call, which repeats only when it completes
         * several messages (p2p_may_repeat): then, and only then, charges are merged and
         * sorted, as for the built-in pair; any other member may be charged by many tuples */
        int msg = q->g->src[loc] == GSRC_SEND || q->g->src[loc] == GSRC_RECV;
        if (rc == 1 && d > 0 && isfinite(d) &&
            charge(u, p, msg ? &general_msg_kind : &general_kind, rank, call, d, orank, ocall,
                   id))
            return lens_err_set(q->e, LENS_ENOMEM, "out of memory evaluating '%s'",
                                u->r->problems[p].id);
    }
    return LENS_OK;
}

/* The conjuncts whose last member is m, on the members bound so far: 1 when all hold, 0 when
 * one fails, negative on an evaluation error (division by zero). */
static int gfilter(struct gctx *q, int m)
{
    for (int i = 0; i < q->g->nfilt[m]; i++) {
        double v;
        int rc = lens_ruleeval_node(q->u->r, q->g->filt[m][i], &q->x, &v, q->e);
        if (rc)
            return rc;
        if (v == 0)
            return 0;
    }
    return 1;
}

/* Keeps a bucket's aggregates and picks as entry s->n; LENS_ENOMEM (then it is recomputed at
 * each use, still correct). */
static int gset_keep(struct gset *s, const double *agg, const uint64_t *pick, size_t hi)
{
    if (s->n == s->cap) {
        size_t m = s->cap ? 2 * s->cap : 64;
        double *a = lens_realloc(s->agg, m * GNAGG * sizeof *a);
        if (a)
            s->agg = a;
        uint64_t *p = lens_realloc(s->pick, m * GNAGG * sizeof *p);
        if (p)
            s->pick = p;
        size_t *h = lens_realloc(s->hi, m * sizeof *h);
        if (h)
            s->hi = h;
        if (!a || !p || !h)
            return LENS_ENOMEM;
        s->cap = m;
    }
    memcpy(s->agg + s->n * GNAGG, agg, GNAGG * sizeof *agg);
    memcpy(s->pick + s->n * GNAGG, pick, GNAGG * sizeof *pick);
    s->hi[s->n++] = hi;
    return LENS_OK;
}

/* A shared set: the aggregates of the calls of bucket [lo, hi) whose key fields equal kv (the
 * CALLS_FIELDS order), and per aggregate that is one call's time the call it came from
 * (pick[f], GNONE: none; ties to the lowest id, so to the lowest rank, as the built-in
 * collective kind chose). The set stands for its latest call to enter (pick[4]). With pmax,
 * the running prefix maximum of enters is written at every position of the bucket (carried
 * over positions of another key), so prefix_max_enter is one binary search away. Returns 1
 * when every call of the bucket had the key kv (the result may be kept for the bucket). */
static int gset_scan(struct gctx *q, int m, size_t lo, size_t hi, const double *kv, double *agg,
                     uint64_t *pick, double *pmax, uint64_t *parg)
{
    struct run *u = q->u;
    const struct gindex *ix = &q->ix[m];
    double row[LENS_PROBLEMS_MAXF], run = -INFINITY;
    uint64_t runarg = GNONE;
    int pure = 1;
    agg[0] = agg[1] = agg[9] = -1, agg[2] = 0;
    agg[3] = agg[5] = INFINITY, agg[4] = agg[6] = agg[8] = -INFINITY, agg[7] = agg[10] = NAN;
    for (int f = 0; f < GNAGG; f++)
        pick[f] = GNONE;
    for (size_t b = lo; b < hi; b++) {
        uint64_t j = ix->h[2 * b + 1];
        gfetch(u, &q->in, -1, j, row, q->g->used[m]);
        int same = 1;
        for (int i = 0; i < q->g->nkey[m] && same; i++)
            same = row[q->g->keyf[m][i]] == kv[i];
        pure &= same;
        if (same) {
            const struct lens_problems_gcall *g = &u->gc[j];
            const struct lens_trace_call *c = call_of(u, g->rank, g->idx);
            int32_t root = g->coll >= 0 ? u->ev->coll[g->coll].root : -1;
            /* strict comparisons: the first call (lowest rank) keeps a tie */
#define GPICK(f, better, v) if (pick[f] == GNONE || (better)) agg[f] = (v), pick[f] = j
            GPICK(3, c->enter < agg[3], c->enter);
            GPICK(4, c->enter > agg[4], c->enter);
            GPICK(5, c->leave < agg[5], c->leave);
            GPICK(6, c->leave > agg[6], c->leave);
            if (g->rank == root)
                agg[7] = c->enter, pick[7] = j;
            else
                GPICK(8, c->enter > agg[8], c->enter);
#undef GPICK
            agg[0] = g->coll, agg[1] = g->comm, agg[2]++, agg[9] = root;
            if (runarg == GNONE || c->enter > run)
                run = c->enter, runarg = j;
        }
        if (pmax)
            pmax[b] = run, parg[b] = runarg;
    }
    return pure;
}

/* Fills member m's fields (a set of calls) for the bucket [lo, hi) of key kv, from the bucket's
 * cache when it was computed before: every call of an instance binds the same set, and
 * computing it once per bucket keeps an instance of n calls O(n), not O(n^2). The prefix
 * maximum is read per binding: over the set's calls of ranks up to the rank of the call the
 * composite's first member stands for (calls are indexed in rank order within a bucket). */
static void gaggregate(struct gctx *q, int m, size_t lo, const double *kv, double *agg)
{
    struct gset *s = &q->set[m];
    uint64_t *pick = q->pick[m];
    double row[LENS_PROBLEMS_MAXF];
    int cached = 0;
    size_t hi;
    if (s->ent[lo] && s->ent[lo] != UINT32_MAX) {
        hi = s->hi[s->ent[lo] - 1];
        /* a pure bucket has one key: kv may still differ from it under the same hash */
        gfetch(q->u, &q->in, -1, q->ix[m].h[2 * lo + 1], row, q->g->used[m]);
        cached = 1;
        for (int i = 0; i < q->g->nkey[m] && cached; i++)
            cached = row[q->g->keyf[m][i]] == kv[i];
        if (!cached)
            return (void)(agg[2] = 0);
        memcpy(agg, s->agg + (size_t)(s->ent[lo] - 1) * GNAGG, GNAGG * sizeof *agg);
        memcpy(pick, s->pick + (size_t)(s->ent[lo] - 1) * GNAGG, GNAGG * sizeof *pick);
    } else {
        /* the bucket's end, once per bucket (a binary search per binding would miss the
         * cache on every step of a large index) */
        for (hi = lo + 1; hi < q->ix[m].n && q->ix[m].h[2 * hi] == q->ix[m].h[2 * lo]; hi++)
            ;
        int pure = gset_scan(q, m, lo, hi, kv, agg, pick, s->pmax, s->parg);
        /* a bucket of two keys (a hash collision) is scanned again at each use */
        if (!pure || s->ent[lo] == UINT32_MAX || gset_keep(s, agg, pick, hi))
            s->ent[lo] = UINT32_MAX;
        else
            s->ent[lo] = (uint32_t)s->n; /* 1 + the entry just kept */
    }
    q->tuple[m] = pick[4];
    agg[10] = NAN, pick[10] = GNONE;
    if (s->pmax && agg[2] > 0) {
        int32_t r0;
        uint32_t c0;
        gstand(q->u, q->g->src[0], q->tuple[0], &r0, &c0);
        /* the last position of the bucket whose call's rank is at most r0 */
        size_t a = lo, b = hi;
        while (a < b) {
            size_t mid = a + (b - a) / 2;
            if (q->u->gc[q->ix[m].h[2 * mid + 1]].rank <= r0)
                a = mid + 1;
            else
                b = mid;
        }
        /* a mixed bucket's prefix was written for this kv just now; a pure one's stays valid */
        if (a > lo && s->parg[a - 1] != GNONE)
            agg[10] = s->pmax[a - 1], pick[10] = s->parg[a - 1];
    }
}

/* Binds member m to each of its candidates (member 0: all; later: the bucket of the key the
 * bound members give; a shared set: the whole bucket at once) and recurses; depth is the
 * member count, at most 64. */
static int gmatch(struct gctx *q, int m)
{
    if (m == q->g->nm)
        return gleaf(q);
    struct run *u = q->u;
    int src = q->g->src[m], rc;
    double *f = q->f + (size_t)m * 64;
    if (m == 0) {
        size_t n = gcount(u, src);
        /* the fields member 0's own conjuncts read first: most calls fail them (a call of
         * no collective instance) and need no other field */
        uint32_t first = src < 0 ? q->g->used0f : q->g->used[0];
        for (size_t j = 0; j < n; j++) {
            gfetch(u, &q->in, src, j, f, first);
            q->tuple[0] = j;
            if ((rc = gfilter(q, 0)) < 0)
                return rc;
            if (!rc)
                continue;
            if (src < 0 && (q->g->used[0] & ~first))
                gfetch(u, &q->in, src, j, f, q->g->used[0] & ~first);
            if ((rc = gmatch(q, 1)))
                return rc;
        }
        return LENS_OK;
    }
    double kv[GKEYS];
    for (int i = 0; i < q->g->nkey[m]; i++)
        if ((rc = lens_ruleeval_node(u->r, q->g->keyx[m][i], &q->x, &kv[i], q->e)))
            return rc;
    if (q->g->direct[m]) {
        /* the id is the candidate: no lookup; the conjuncts on m alone, which an index would
         * have applied, are tested here (an error keeps the candidate, as there) */
        if (!(kv[0] >= 0 && kv[0] < (double)gcount(u, src) && kv[0] == floor(kv[0])))
            return LENS_OK;
        uint64_t j = (uint64_t)kv[0];
        gfetch(u, &q->in, src, j, f, q->g->used[m]);
        for (int i = 0; i < q->g->nself[m]; i++) {
            double v;
            if (!lens_ruleeval_node(u->r, q->g->self[m][i], &q->x, &v, q->e) && v == 0)
                return LENS_OK;
        }
        q->tuple[m] = j;
        return (rc = gfilter(q, m)) <= 0 ? rc : gmatch(q, m + 1);
    }
    uint64_t h = ghash(kv, q->g->nkey[m]);
    const struct gindex *ix = &q->ix[m];
    size_t lo = gfind(ix, h);
    if (src == -2) {
        if (lo == ix->n || ix->h[2 * lo] != h)
            return LENS_OK;
        gaggregate(q, m, lo, kv, f);
        if (f[2] == 0)
            return LENS_OK;
        return (rc = gfilter(q, m)) <= 0 ? rc : gmatch(q, m + 1);
    }
    for (size_t b = lo; b < ix->n && ix->h[2 * b] == h; b++) {
        uint64_t j = ix->h[2 * b + 1];
        gfetch(u, &q->in, src, j, f, q->g->used[m]);
        int same = 1;
        /* equal hashes need not be equal keys */
        for (int i = 0; i < q->g->nkey[m] && same; i++)
            same = f[q->g->keyf[m][i]] == kv[i];
        if (!same)
            continue;
        q->tuple[m] = j;
        if ((rc = gfilter(q, m)) < 0 || (rc && (rc = gmatch(q, m + 1))))
            return rc;
    }
    return LENS_OK;
}

/* Runs general composite c (problems.h "lens_problems_detect"): every composite runs, also one
 * without problems, since a later one may nest it. */
static int run_general(struct run *u, int c, struct lens_err *e)
{
    const struct lens_rule_composite *k = &u->r->composites[c];
    struct gctx *q = lens_calloc(1, sizeof *q);
    if (!q)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    q->u = u, q->c = c, q->k = k, q->e = e;
    int rc = (q->g = lens_malloc(sizeof *q->g)) ? general_plan(u->r, u->v, c, q->g, e)
                                                : lens_err_set(e, LENS_ENOMEM, "out of memory");
    if (!rc && build_gcalls(u))
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
    if (!rc) {
        q->f = lens_calloc((size_t)k->nmembers * 64 + 1, sizeof *q->f);
        q->mem = lens_calloc((size_t)k->nmembers + 1, sizeof *q->mem);
        if (!q->f || !q->mem)
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    for (int m = 0; !rc && m < k->nmembers; m++)
        q->mem[m] = q->f + (size_t)m * 64;
    q->x = (struct lens_ruleeval_ctx){q->mem, q->params};
    q->in = (struct lens_problems_inst){.t = u->t, .ev = u->ev, .opnames = u->opnames,
                                        .opkinds = u->opkinds, .gc = u->gc,
                                        .gnames = u->gnames};
    u->gi[c].nm = k->nmembers, u->gi[c].np = k->nparams;
    /* a set's aggregates cannot be fetched again from one call: they are kept per instance,
     * but only for the texts of its problems (a nested user reads parameters): without a
     * template they would cost 88 bytes per member and instance for nothing */
    int texts = 0;
    for (int p = 0; p < u->r->nproblems; p++) {
        if (u->r->problems[p].composite != c)
            continue;
        /* conditional advice reads the shown instance's members as a template does */
        texts |= u->r->problems[p].nadvice_when > 0;
        for (int l = 0; l < 2; l++)
            for (int t = 0; t < LENS_RULE_NTEXT; t++)
                texts |= u->r->problems[p].ntpl[l][t] > 0;
    }
    for (int m = 0; !rc && texts && m < k->nmembers; m++)
        if (q->g->src[m] == -2)
            u->gi[c].naggw = NFIELDS(calls_fields) * k->nmembers;
    u->gi[c].keep = texts;
    for (int c2 = c + 1; c2 < u->r->ncomposites; c2++)
        for (int m = 0; m < u->r->composites[c2].nmembers; m++)
            u->gi[c].keep |= u->r->composites[c2].members[m].type_index == u->v->ntypes + c;
    for (int p = 0; p < u->r->nproblems && q->np < 64; p++)
        if (u->r->problems[p].composite == c)
            q->probs[q->np++] = p;
    for (int m = 1; !rc && m < k->nmembers; m++)
        if (!q->g->direct[m] && gindex_build(q, m))
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
    /* a set's bucket cache; its prefix maxima only when a rule reads them (a field or a
     * cause), as they take 16 bytes per indexed call */
    for (int m = 1; !rc && m < k->nmembers; m++) {
        if (q->g->src[m] != -2)
            continue;
        int prefix = q->g->used[m] >> 10 & 1u;
        for (int j = 0; j < q->np; j++)
            prefix |= u->r->problems[q->probs[j]].cause == m &&
                      u->r->problems[q->probs[j]].cause_field == 10;
        struct gset *st = &q->set[m];
        st->ent = lens_calloc(q->ix[m].n + 1, sizeof *st->ent);
        if (prefix) {
            st->pmax = lens_malloc((q->ix[m].n + 1) * sizeof *st->pmax);
            st->parg = lens_malloc((q->ix[m].n + 1) * sizeof *st->parg);
        }
        if (!st->ent || (prefix && (!st->pmax || !st->parg)))
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    if (!rc)
        rc = gmatch(q, 0);
    for (int m = 0; m < k->nmembers; m++) {
        lens_free(q->ix[m].h);
        lens_free(q->set[m].ent), lens_free(q->set[m].agg), lens_free(q->set[m].pick);
        lens_free(q->set[m].hi);
        lens_free(q->set[m].pmax), lens_free(q->set[m].parg);
    }
    lens_free(q->f);
    lens_free(q->mem);
    lens_free(q->g);
    lens_free(q);
    return rc;
}

/* ---- aggregation ---- */

/* Resolves site k through the run's cache (LENS_OK or the error of lens_callsite_resolve_frame). */
static int resolve_site(struct run *u, uint32_t site, const char *mod, uint64_t off,
                        struct lens_callsite *c)
{
    for (int i = 0; u->cache && i < u->ncache; i++)
        if (u->cache[i].site == site) {
            *c = u->cache[i].c;
            return u->cache[i].rc;
        }
    int rc = lens_callsite_resolve_frame(mod, (unsigned long)off, c, NULL);
    if (u->cache && u->ncache < SITE_CACHE)
        u->cache[u->ncache++] = (struct site_cache){site, rc, *c};
    return rc;
}

/* "MPI_Send called from calculate (jacobi.c:57)" in English and Russian, and the same as
 * fields: the caller is the resolved return address (our traces; the innermost source
 * function, "exchange (inlined into main)" when inlined) or the enclosing user region
 * (Score-P). */
static void site_text(struct run *u, const struct lens_trace_call *k,
                      struct lens_problem_site *out)
{
    const struct lens_trace *t = u->t;
    const char *fn = lens_trace_region_name(t, k->region);
    const struct lens_trace_site *s = &t->sites[k->site];
    /* 300 leaves room for "вызов FN из " in the 320 bytes of text (FN: an MPI name) */
    char from[300] = "";
    snprintf(out->function, sizeof out->function, "%s", fn);
    out->caller[0] = out->inlined_into[0] = out->file[0] = 0;
    out->line = 0;
    /* Our collector's return address is resolved offline with the module's debug info; when the
     * module is gone or stripped the site still names module+offset, which addr2line can
     * resolve later, rather than failing the listing. */
    if (s->module != LENS_NONE && s->module < t->nstrings && t->strings[s->module]) {
        struct lens_callsite c;
        const char *mod = t->strings[s->module], *base = strrchr(mod, '/');
        if (resolve_site(u, k->site, mod, s->offset, &c) != LENS_OK) {
            snprintf(out->caller, sizeof out->caller, "%s+0x%llx", base ? base + 1 : mod,
                     (unsigned long long)s->offset);
            snprintf(from, sizeof from, "%s", out->caller);
        } else {
            snprintf(out->caller, sizeof out->caller, "%s", c.func);
            snprintf(out->inlined_into, sizeof out->inlined_into, "%s", c.inlined_into);
            snprintf(out->file, sizeof out->file, "%s", c.file);
            out->line = c.line;
            /* the file:line stays the last parenthesis, as in a site that is not inlined;
             * strlen, not snprintf's return, so a truncated part never moves past the end */
            snprintf(from, sizeof from, "%s", c.func);
            if (c.inlined_into[0])
                snprintf(from + strlen(from), sizeof from - strlen(from), " (inlined into %s)",
                         c.inlined_into);
            if (c.file[0])
                snprintf(from + strlen(from), sizeof from - strlen(from), " (%s:%d)", c.file,
                         c.line);
        }
    /* Score-P records no return address; its enclosing user region is the best caller we have. */
    } else if (s->caller != LENS_NONE) {
        snprintf(out->caller, sizeof out->caller, "%s", lens_trace_region_name(t, s->caller));
        snprintf(from, sizeof from, "%s", out->caller);
    }
    /* Both languages are built here at once, so the listing and the report can switch language
     * without resolving sites again. */
    if (from[0]) {
        snprintf(out->text, sizeof out->text, "%s called from %s", fn, from);
        snprintf(out->text_ru, sizeof out->text_ru, "вызов %s из %s", fn, from);
    } else {
        snprintf(out->text, sizeof out->text, "%s", fn);
        snprintf(out->text_ru, sizeof out->text_ru, "вызов %s", fn);
    }
}

/* Ties are broken by rank and call, so the lists of largest instances are the same on every
 * platform (qsort is not stable) and the golden outputs stay byte-identical. */
static int by_seconds_desc(const void *a, const void *b)
{
    const struct acc *x = a, *y = b;
    if (x->seconds != y->seconds)
        return x->seconds > y->seconds ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->call < y->call ? -1 : x->call > y->call;
}

struct site_sum { uint32_t region, site; double seconds; uint64_t count; };

/* Same reason: a total order over (seconds, site, region). */
static int by_site_seconds(const void *a, const void *b)
{
    const struct site_sum *x = a, *y = b;
    if (x->seconds != y->seconds)
        return x->seconds > y->seconds ? -1 : 1;
    return x->site != y->site ? (x->site < y->site ? -1 : 1)
                              : (x->region < y->region ? -1 : x->region > y->region);
}

static int by_call(const void *a, const void *b)
{
    const struct acc *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->call < y->call ? -1 : x->call > y->call;
}

/* Hands the (merged) charged calls of problem p to res, sorted by rank then call. */
/* The timeline looks charges up by (rank, call) with a binary search, hence the order. */
static int keep_charges(struct run *u, int p, size_t n, struct lens_problem_result *res)
{
    struct acc *a = u->acc[p];
    if (!n)
        return LENS_OK;
    if (!u->repeat[p])
        qsort(a, n, sizeof *a, by_call);
    struct lens_problem_charge *c = lens_malloc(n * sizeof *c);
    if (!c)
        return LENS_ENOMEM;
    for (size_t i = 0; i < n; i++)
        c[i] = (struct lens_problem_charge){a[i].rank, a[i].call, a[i].seconds, a[i].start};
    res->charges = c;
    res->ncharges = n;
    return LENS_OK;
}

/* One MPI call counts once per problem: a Waitall completing several late messages, or a
 * Win_wait waiting for several origins, is charged its largest wait (Scalasca). Sorting by
 * (rank, call) brings the charges of one call together; each run is folded into its first
 * entry. Problems whose calls cannot repeat are already one charge per call. */
static void merge_repeats(struct run *u, int p)
{
    struct acc *a = u->acc[p];
    size_t n = u->nacc[p], m = 0;
    if (n < 2 || !u->repeat[p])
        return;
    qsort(a, n, sizeof *a, by_call);
    for (size_t i = 0; i < n; i++) {
        if (m && a[m - 1].rank == a[i].rank && a[m - 1].call == a[i].call) {
            if (a[i].seconds > a[m - 1].seconds) /* its culprit with it */
                a[m - 1] = a[i];
        } else {
            a[m++] = a[i];
        }
    }
    u->nacc[p] = m;
}

/* ---- each interval of waiting charged to one problem ---- */

/* One charge of problem p (u->acc[p][i]) on a call, for grouping the charges of all problems
 * by call. After merge_repeats a problem has at most one charge per call, and 2^32 calls would
 * take a trace of over 100 GiB, so i fits 32 bits and the entry stays 16 bytes. */
struct owner {
    int32_t rank;
    uint32_t call;
    int p;
    uint32_t i;
};

/* By call, then by precedence: the problem declared first (lower index) comes first. */
static int by_owner(const void *a, const void *b)
{
    const struct owner *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->call != y->call)
        return x->call < y->call ? -1 : 1;
    if (x->p != y->p)
        return x->p < y->p ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Charges every interval of waiting time on a rank to one problem (docs/methods.md, "Each wait
 * charged once"). Two problems can charge the same call: a Waitall completing both an Isend
 * and an Irecv is a late receiver on the send and a late sender on the receive, and the two
 * waits are the same wall time. Within one call, a problem's charge is an interval anchored
 * at the call's enter (the default) or at its leave (waits = "until_leave"), of the charged
 * length clipped to the call; the problems take their intervals in precedence order
 * (declaration order: rule files in name order, problems in file order) and each keeps only
 * the part no earlier problem covered. Calls of one rank do not overlap in time, so after
 * this the problems' times on a rank add up to at most its time in MPI calls, and their sum
 * is the wasted time without double counting. LENS_ENOMEM is the only failure. */
static int charge_once(struct run *u)
{
    int np = u->r->nproblems;
    size_t n = 0;
    for (int p = 0; p < np; p++)
        n += u->nacc[p];
    if (!n)
        return LENS_OK;
    struct owner *o = lens_malloc(n * sizeof *o);
    if (!o)
        return LENS_ENOMEM;
    size_t k = 0;
    for (int p = 0; p < np; p++)
        for (size_t i = 0; i < u->nacc[p]; i++)
            o[k++] = (struct owner){u->acc[p][i].rank, u->acc[p][i].call, p, (uint32_t)i};
    qsort(o, n, sizeof *o, by_owner);
    for (size_t g = 0, h; g < n; g = h) {
        for (h = g + 1; h < n && o[h].rank == o[g].rank && o[h].call == o[g].call; h++)
            ;
        const struct lens_trace_call *c = call_of(u, o[g].rank, o[g].call);
        double dur = c->leave - c->enter;
        if (!(dur > 0)) /* also NaN: a call without length holds no waiting time */
            dur = 0;
        /* What earlier problems hold of this call is always [0, head] from its enter and
         * [dur - tail, dur] before its leave: a union of intervals that share an anchor is
         * the longest of them. So the part of a new interval nobody holds is one number. */
        double head = 0, tail = 0;
        for (size_t j = g; j < h; j++) {
            struct acc *a = &u->acc[o[j].p][o[j].i];
            double sec = fmin(a->seconds, dur);
            int until = u->r->problems[o[j].p].waits_until_leave;
            /* with head = tail = 0 this is sec itself, bit for bit: calls that only one
             * problem charges keep the exact duration the rule computed */
            double own = until ? fmin(sec, dur - head) - tail : fmin(sec, dur - tail) - head;
            /* the free part of [0, sec] is [head, ...); of [dur - sec, dur] it is
             * [max(dur - sec, head), dur - tail] */
            a->start = until ? fmax(dur - sec, head) : head;
            a->seconds = own > 0 ? own : 0;
            if (until)
                tail = fmax(tail, sec);
            else
                head = fmax(head, sec);
        }
    }
    lens_free(o);
    /* A charge left with nothing is no instance of its problem: drop it, keeping the order
     * (keep_charges and the merging rely on it). */
    for (int p = 0; p < np; p++) {
        size_t m = 0;
        for (size_t i = 0; i < u->nacc[p]; i++)
            if (u->acc[p][i].seconds > 0)
                u->acc[p][m++] = u->acc[p][i];
        u->nacc[p] = m;
    }
    return LENS_OK;
}

/* Rows of one site table first (sums per (region, site)) are resolved up to this many, the
 * largest first: the rows kept are LENS_PROBLEMS_TOP after merging equal texts, and sites
 * beyond the 64 largest could only merge into a kept row with a small share. */
#define SITE_RESOLVE 64

/* Texts then sites order rows of equal seconds, so the lists are the same on every run. */
static int by_row(const void *a, const void *b)
{
    const struct lens_problem_site *x = a, *y = b;
    if (x->seconds != y->seconds)
        return x->seconds > y->seconds ? -1 : 1;
    return strcmp(x->text, y->text);
}

/* Fills rows (up to LENS_PROBLEMS_TOP, largest first) with the call sites of the charged calls
 * of a[0..n) (culprit 0) or of the calls of their other member (culprit 1), labelled member.
 * Sums are per (region, site) pair: the same site calling two MPI functions is two lines, as
 * the advice differs ("MPI_Send called from x" against "MPI_Recv called from x"). Then rows
 * whose texts are equal are merged: two return addresses in one source function and line
 * (an inlined helper used twice in main) are one call site. LENS_ENOMEM. */
static int site_rows(struct run *u, const struct acc *a, size_t n, int culprit,
                     const char *member, struct lens_problem_site *rows, int *nrows)
{
    struct site_sum *ss = NULL;
    size_t ns = 0, cap = 0;
    *nrows = 0;
    for (size_t i = 0; i < n; i++) {
        if (culprit && a[i].orank < 0)
            continue;
        const struct lens_trace_call *k = culprit ? call_of(u, a[i].orank, a[i].ocall)
                                                  : call_of(u, a[i].rank, a[i].call);
        size_t j = 0;
        /* sites are few per problem: a linear list suffices */
        while (j < ns && !(ss[j].region == k->region && ss[j].site == k->site))
            j++;
        if (j == ns) {
            if (ns == cap) {
                cap = cap ? 2 * cap : 16;
                struct site_sum *q = lens_realloc(ss, cap * sizeof *q);
                if (!q) {
                    lens_free(ss);
                    return LENS_ENOMEM;
                }
                ss = q;
            }
            ss[ns++] = (struct site_sum){k->region, k->site, 0, 0};
        }
        ss[j].seconds += a[i].seconds;
        ss[j].count++;
    }
    if (!ns)
        return LENS_OK;
    qsort(ss, ns, sizeof *ss, by_site_seconds);
    size_t nr = ns < SITE_RESOLVE ? ns : SITE_RESOLVE, m = 0;
    struct lens_problem_site *r = lens_calloc(nr, sizeof *r);
    if (!r) {
        lens_free(ss);
        return LENS_ENOMEM;
    }
    for (size_t j = 0; j < nr; j++) {
        struct lens_trace_call k = {0, 0, ss[j].region, ss[j].site, 0, 0};
        site_text(u, &k, &r[m]);
        size_t q = 0;
        while (q < m && strcmp(r[q].text, r[m].text))
            q++;
        r[q].seconds += ss[j].seconds;
        r[q].count += ss[j].count;
        m += q == m;
    }
    qsort(r, m, sizeof *r, by_row);
    for (size_t j = 0; j < m && *nrows < LENS_PROBLEMS_TOP; j++) {
        rows[*nrows] = r[j];
        rows[*nrows].member = member;
        rows[(*nrows)++].culprit = culprit;
    }
    lens_free(r);
    lens_free(ss);
    return LENS_OK;
}

/* ---- description and advice templates ---- */

/* A growing text for one expansion; texts are a few hundred bytes. */
struct sbuf {
    char *s;
    size_t n, cap;
    int oom;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t m = 2 * (b->n + n + 1);
        char *q = lens_realloc(b->s, m);
        if (!q) {
            b->oom = 1;
            return;
        }
        b->s = q, b->cap = m;
    }
    memcpy(b->s + b->n, s, n);
    b->s[b->n += n] = 0;
}

/* A number as a template shows it: with a unit, seconds scaled to the unit the rule chose,
 * ms and µs to the reports' 4 significant digits (common/units.h: "12.35 ms", "85.77 µs");
 * without, integers (ranks, tags, bytes) as integers and anything else to 4
 * digits in fixed notation. Units are written in the text's language. */
static void tpl_number(char *buf, size_t n, double v, int unit, int lang)
{
    static const char *const units[2][4] = {{"", "s", "ms", "\xc2\xb5s"}, {"", "с", "мс", "мкс"}};
    static const double scale[4] = {1, 1, 1e3, 1e6};
    char num[64];
    /* ":s" marks a moment of the trace ("the last in at 12.250142 s"), whose microseconds
     * tell two arrivals apart: it keeps its six decimals */
    if (unit == 1) {
        snprintf(buf, n, "%.6f %s", v, units[lang][1]);
    } else if (unit) {
        lens_units_num(v * scale[unit], LENS_UNITS_DIGITS, num, sizeof num);
        snprintf(buf, n, "%s %s", num, units[lang][unit]);
    } else if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, n, "%.0f", v);
    } else {
        lens_units_num(v, LENS_UNITS_DIGITS, buf, n);
    }
}

/* Expands the description and advice templates of problem p on its largest charged instance
 * (top): the instance is built again from its candidate index (builders keep state across
 * ascending candidates, so all candidates up to it are built, O(n) once per problem with a
 * template), its fields fetched and the composite's parameters computed as detection did;
 * the duration is the charged seconds (after charge_once), the number top[0] shows; a
 * member's call site is its charged call (location) or the call that stands for it as the
 * culprit. LENS_ENOMEM is the only failure. */
/* The instance expand_texts shows, as its templates and advice conditions read it: the
 * members' fields and call sites, the latter resolved at the first use (have[m]). */
struct shown {
    struct run *u;
    const struct lens_rule_problem *rp;
    const struct acc *top;
    const double *f;                   /* members x 64 fields */
    struct lens_problem_site *site;
    int *have;
    struct { int32_t rank; uint32_t call; } stand[LENS_RULES_MAX_MEMBERS];
};

/* Member m's call site: the charged member names its charged call, the other the call that
 * stands for it as the cause (or, in general composites, the call the matcher bound). */
static const struct lens_problem_site *shown_site(struct shown *sh, int m)
{
    if (!sh->have[m]) {
        struct run *u = sh->u;
        int charged = m == sh->rp->location || sh->top->orank < 0;
        site_text(u, sh->stand[m].rank >= 0 ? call_of(u, sh->stand[m].rank, sh->stand[m].call)
                     : charged ? call_of(u, sh->top->rank, sh->top->call)
                               : call_of(u, sh->top->orank, sh->top->ocall), &sh->site[m]);
        sh->have[m] = 1;
    }
    return &sh->site[m];
}

/* lens_ruleeval_item_fn: a string field (an intern id of the rules) or a call-site item. */
static const char *shown_item(void *arg, int m, int what, int index)
{
    struct shown *sh = arg;
    if (what == LENS_TPL_FIELD) {
        double d = sh->f[(size_t)m * 64 + (size_t)index];
        return d >= 0 && d < sh->u->r->nstrings ? sh->u->r->strings[(int)d] : NULL;
    }
    const struct lens_problem_site *q = shown_site(sh, m);
    return index == LENS_TPL_SITE_CALLER ? q->caller : index == LENS_TPL_SITE_FUNCTION
         ? q->function : index == LENS_TPL_SITE_FILE ? q->file : q->text;
}

static int expand_texts(struct run *u, int p, const struct acc *top,
                        struct lens_problem_result *res)
{
    const struct lens_rule_problem *rp = &u->r->problems[p];
    int any = rp->nadvice_when > 0;
    for (int l = 0; l < 2; l++)
        for (int k = 0; k < LENS_RULE_NTEXT; k++)
            any |= rp->ntpl[l][k] > 0;
    if (!any)
        return LENS_OK;
    int c = rp->composite, side[2];
    const struct lens_rule_composite *comp = &u->r->composites[c];
    const struct lens_problems_kind *kind = find_kind(u, comp, side);
    int nm = comp->nmembers;
    /* members x 64 fields (a nested member's fields are its composite's parameters) */
    double *f = lens_calloc((size_t)nm * 64 + 1, sizeof *f), params[64] = {0};
    const double **mem = lens_calloc((size_t)nm + 1, sizeof *mem);
    struct lens_problem_site *site = lens_calloc((size_t)nm + 1, sizeof *site);
    /* have[m]: 0 site not resolved yet, 1 resolved; stand: the call member m stands for when
     * the matcher knows it (general composites), rank -1 otherwise */
    int *have = lens_calloc((size_t)nm + 1, sizeof *have);
    struct shown *sh = lens_calloc(1, sizeof *sh);
    if (!f || !mem || !site || !have || !sh) {
        lens_free(sh);
        lens_free(f), lens_free(mem), lens_free(site), lens_free(have);
        return LENS_ENOMEM;
    }
    *sh = (struct shown){.u = u, .rp = rp, .top = top, .f = f, .site = site, .have = have};
    for (int m = 0; m < LENS_RULES_MAX_MEMBERS; m++)
        sh->stand[m].rank = -1, sh->stand[m].call = 0;
    for (int m = 0; m < nm; m++)
        mem[m] = f + (size_t)m * 64;
    struct lens_ruleeval_ctx x = {mem, params};
    struct lens_problems_inst in = {.t = u->t, .ev = u->ev, .opnames = u->opnames,
                                    .opkinds = u->opkinds, .gc = u->gc, .gnames = u->gnames};
    if (kind) {
        for (uint64_t j = 0; j <= top->inst; j++) {
            in.orank[0] = in.orank[1] = -1;
            kind->build(&in, (size_t)j);
        }
        for (int s = 0; s < 2; s++) {
            const struct lens_problems_type *ty = &u->v->types[kind->member[s]];
            for (int fl = 0; fl < ty->nfields; fl++)
                f[(size_t)side[s] * 64 + (size_t)fl] = ty->fields[fl].get(&in);
        }
        struct lens_err ignore;
        /* it evaluated without error on this very instance during detection */
        (void)lens_ruleeval_composite(u->r, c, &x, &ignore);
    } else {
        /* a general composite kept its tuple and parameters (run_general) */
        const struct ginst *gi = &u->gi[c];
        struct gplan *g = lens_malloc(sizeof *g);
        struct lens_err ignore;
        if (!g || general_plan(u->r, u->v, c, g, &ignore)) {
            lens_free(f), lens_free(mem), lens_free(site), lens_free(have), lens_free(g);
            lens_free(sh);
            return g ? LENS_OK : LENS_ENOMEM;
        }
        for (int m = 0; m < nm; m++) {
            uint64_t j = gi->tuple[top->inst * (size_t)nm + (size_t)m];
            if (g->src[m] == -2) /* a set: its aggregates as the matcher computed them */
                memcpy(f + (size_t)m * 64,
                       gi->agg + top->inst * (size_t)gi->naggw + (size_t)m * NFIELDS(calls_fields),
                       NFIELDS(calls_fields) * sizeof *f);
            else
                gfetch(u, &in, g->src[m], j, f + (size_t)m * 64, ~0u);
            gstand(u, g->src[m], j, &sh->stand[m].rank, &sh->stand[m].call);
        }
        memcpy(params, gi->vals + top->inst * (size_t)gi->np, (size_t)gi->np * sizeof *params);
        /* the cause member names the call that was the cause (cause = send.enter: the Isend,
         * not the Wait that completed it), as the built-in kinds did */
        int cm = rp->cause >= 0 ? rp->cause : rp->location == 0 ? 1 : 0;
        if (cm < nm && top->orank >= 0)
            sh->stand[cm].rank = top->orank, sh->stand[cm].call = top->ocall;
        lens_free(g);
    }
    /* the sites of the member slots are resolved only when a template names one */
    for (int l = 0; l < 2; l++)
        for (int k = LENS_RULE_DESCRIPTION; k < LENS_RULE_NTEXT; k++) {
            const char *s = rp->text[l][k];
            const struct lens_rule_tpl *tp = rp->tpl[l][k];
            int nt = rp->ntpl[l][k], w;
            /* advice that depends on the calls made: the first variant whose tests hold on
             * this instance replaces the plain text (docs/problems.md) */
            if (k == LENS_RULE_ADVICE &&
                (w = lens_ruleeval_advice_pick(u->r, p, l, shown_item, sh)) >= 0) {
                s = res->text[l][k] = rp->advice_when[w].text;
                tp = rp->advice_when[w].tpl, nt = rp->advice_when[w].ntpl;
            }
            if (!nt)
                continue;
            struct sbuf b = {0};
            int at = 0;
            for (int i = 0; i < nt; i++) {
                const struct lens_rule_tpl *t = &tp[i];
                char num[96];
                const char *v = num;
                double d = 0;
                sb_add(&b, s + at, (size_t)(t->begin - at));
                at = t->end;
                switch (t->what) {
                case LENS_TPL_BRACE: num[0] = (char)t->index, num[1] = 0; break;
                case LENS_TPL_DURATION: d = top->seconds; break;
                case LENS_TPL_PARAM: d = params[t->index]; break;
                case LENS_TPL_FIELD: d = f[(size_t)t->slot * 64 + (size_t)t->index]; break;
                default: { /* LENS_TPL_SITE */
                    const struct lens_problem_site *q = shown_site(sh, t->slot);
                    v = t->index == LENS_TPL_SITE_CALLER ? q->caller
                      : t->index == LENS_TPL_SITE_FUNCTION ? q->function
                      : t->index == LENS_TPL_SITE_FILE ? q->file
                      : t->index == LENS_TPL_SITE_TEXT ? (l ? q->text_ru : q->text) : num;
                    d = q->line;
                }
                }
                /* string values are intern ids of the rules' table (op names, kinds) */
                if (v == num && t->what != LENS_TPL_BRACE) {
                    if (t->str && d >= 0 && d < u->r->nstrings)
                        v = u->r->strings[(int)d];
                    else
                        tpl_number(num, sizeof num, d, t->unit, l);
                }
                sb_add(&b, v, strlen(v));
            }
            sb_add(&b, s + at, strlen(s + at));
            if (b.oom) {
                lens_free(b.s);
                lens_free(f), lens_free(mem), lens_free(site), lens_free(have), lens_free(sh);
                return LENS_ENOMEM;
            }
            res->text[l][k] = res->expanded[l][k] = b.s;
        }
    lens_free(f), lens_free(mem), lens_free(site), lens_free(have), lens_free(sh);
    return LENS_OK;
}

static int aggregate(struct run *u, int p, struct lens_problem_result *res, unsigned flags)
{
    const struct lens_trace *t = u->t;
    struct acc *a = u->acc[p];
    size_t n = u->nacc[p];
    /* The rule stays owned by the rules (kept in lens_problems.rules): the result only points
     * to it. */
    res->rule = &u->r->problems[p];
    for (int l = 0; l < 2; l++)
        for (int k = 0; k < LENS_RULE_NTEXT; k++)
            res->text[l][k] = res->rule->text[l][k];
    if (!(res->per_rank = lens_calloc((size_t)t->nranks, sizeof(double))))
        return LENS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        res->total_s += a[i].seconds;
        res->per_rank[a[i].rank] += a[i].seconds;
    }
    res->count = n;
    /* The share is of the total time of all ranks (sum of their run times), so shares of the
     * problems add up to the fraction of the run's CPU time spent waiting. */
    res->share = u->out->total_time_s > 0 ? res->total_s / u->out->total_time_s : 0;
    if (!n)
        return LENS_OK;
    if ((flags & LENS_PROBLEMS_KEEP_CHARGES) && keep_charges(u, p, n, res))
        return LENS_ENOMEM;
    /* the call sites of the charged member (where the time was lost), then of the other
     * member (the calls that made it wait); both labelled with their names in the rule */
    const struct lens_rule_problem *rp = &u->r->problems[p];
    const struct lens_rule_composite *comp = &u->r->composites[rp->composite];
    int loc = rp->location, other = rp->cause >= 0 ? rp->cause : 1 - rp->location;
    if (site_rows(u, a, n, 0, loc < comp->nmembers ? comp->members[loc].name : "", res->sites,
                  &res->nsites) ||
        site_rows(u, a, n, 1,
                  other >= 0 && other < comp->nmembers ? comp->members[other].name : "",
                  res->culprits, &res->nculprits))
        return LENS_ENOMEM;
    /* the largest instances: a selection into a small sorted array, not a full sort */
    /* Insertion into a sorted array of 10 is O(n) over the charges where a full sort would be
     * O(n log n) on millions of charged calls. */
    struct acc best[LENS_PROBLEMS_TOP];
    int nb = 0;
    for (size_t i = 0; i < n; i++) {
        if (nb == LENS_PROBLEMS_TOP && by_seconds_desc(&a[i], &best[nb - 1]) >= 0)
            continue;
        int j = nb < LENS_PROBLEMS_TOP ? nb++ : nb - 1;
        while (j > 0 && by_seconds_desc(&a[i], &best[j - 1]) < 0) {
            best[j] = best[j - 1];
            j--;
        }
        best[j] = a[i];
    }
    for (int i = 0; i < nb; i++) {
        const struct lens_trace_call *k = call_of(u, best[i].rank, best[i].call);
        struct lens_problem_instance *x = &res->top[res->ntop++];
        x->rank = best[i].rank;
        x->time = k->enter;
        x->seconds = best[i].seconds;
        snprintf(x->call, sizeof x->call, "%s", lens_trace_region_name(t, k->region));
    }
    return expand_texts(u, p, &best[0], res);
}

/* Problems with equal totals (often 0) keep rule order: the listing is deterministic. */
static int by_total(const void *a, const void *b)
{
    const struct lens_problem_result *x = a, *y = b;
    if (x->total_s != y->total_s)
        return x->total_s > y->total_s ? -1 : 1;
    return x->rule < y->rule ? -1 : x->rule > y->rule;
}

/* The op names and kinds become ids in the rules' string table, the same table the rules'
 * literals ("barrier") were interned into, so c.kind == "barrier" compares two ids. */
static int intern_ops(struct run *u)
{
    for (int s = 0; s < 24; s++) {
        u->opnames[s] = lens_rules_intern(u->r, op_name(slot_op[s]));
        u->opkinds[s] = lens_rules_intern(u->r, op_kind(slot_op[s]));
        if (u->opnames[s] < 0 || u->opkinds[s] < 0)
            return LENS_ENOMEM;
    }
    return LENS_OK;
}

/* The events are built here and freed before returning: the result keeps no pointer into them. */
int lens_problems_analyze(struct lens_trace *t, struct lens_rules *rules,
                          struct lens_problems **out, struct lens_err *e)
{
    struct lens_events *ev = NULL;
    *out = NULL;
    int rc = lens_problems_bind(rules, NULL, e); /* rule errors before building the events */
    if (!rc)
        rc = lens_events_build(t, &ev, e);
    if (rc) {
        lens_rules_free(rules);
        return rc;
    }
    rc = lens_problems_detect(t, ev, rules, NULL, 0, out, e);
    lens_events_free(ev);
    return rc;
}

/* Owns rules from the first line on: every exit frees them (directly or through
 * lens_problems_free), which is what callers rely on when they hand them over. */
int lens_problems_detect(const struct lens_trace *t, const struct lens_events *ev,
                         struct lens_rules *rules, const struct lens_problems_vocab *v,
                         unsigned flags, struct lens_problems **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_problems *res = lens_calloc(1, sizeof *res);
    struct run u = {0};
    int rc;
    if (!res) {
        lens_rules_free(rules);
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    res->rules = rules;
    res->nranks = t->nranks;
    if ((rc = lens_problems_bind(rules, v, e)))
        goto fail;
    u = (struct run){t, ev, v ? v : &builtin, rules, res, NULL, NULL, NULL, NULL, {0}, {0}, -1,
                     NULL, 0, NULL, 0, {0}, NULL};
    int np = rules->nproblems;
    /* np + 1: a rule base without problems still gets non-NULL arrays (NULL means out of
     * memory). */
    u.acc = lens_calloc((size_t)np + 1, sizeof *u.acc);
    u.nacc = lens_calloc((size_t)np + 1, sizeof *u.nacc);
    u.capacc = lens_calloc((size_t)np + 1, sizeof *u.capacc);
    u.repeat = lens_calloc((size_t)np + 1, 1);
    u.cache = lens_malloc(SITE_CACHE * sizeof *u.cache);
    res->res = lens_calloc((size_t)np + 1, sizeof *res->res);
    res->mpi_s = lens_calloc((size_t)t->nranks + 1, sizeof *res->mpi_s);
    if (!u.acc || !u.nacc || !u.capacc || !u.repeat || !u.cache || !res->res || !res->mpi_s ||
        intern_ops(&u)) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
        goto fail;
    }
    /* A rank without events contributes no time (its t_first and t_last are meaningless). */
    for (int r = 0; r < t->nranks; r++)
        if (t->ranks[r].nevents)
            res->total_time_s += t->ranks[r].t_last - t->ranks[r].t_first;
    /* Time in MPI per rank, from the same (clock-fixed) call times charge_once clips waits
     * to, so the bound "problems <= MPI time" holds exactly and anyone can check it from the
     * JSON. A call with a negative length (a damaged trace) counts 0, as in charge_once. */
    for (int r = 0; r < t->nranks; r++)
        for (uint32_t c = 0; c < t->ranks[r].ncalls; c++) {
            double d = t->ranks[r].calls[c].leave - t->ranks[r].calls[c].enter;
            res->mpi_s[r] += d > 0 ? d : 0;
        }
    if (!(u.gi = lens_calloc((size_t)rules->ncomposites + 1, sizeof *u.gi))) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
        goto fail;
    }
    /* in declaration order: a nested composite's instances exist before its users run */
    for (int c = 0; c < rules->ncomposites; c++)
        if ((rc = is_general(u.v, &rules->composites[c]) ? run_general(&u, c, e)
                                                         : run_composite(&u, c, e)))
            goto fail;
    /* first one charge per call and problem, then one problem per interval of a call */
    for (int p = 0; p < np; p++)
        merge_repeats(&u, p);
    if (charge_once(&u)) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
        goto fail;
    }
    for (int p = 0; p < np; p++) {
        if ((rc = aggregate(&u, p, &res->res[p], flags))) {
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
            goto fail;
        }
        res->nres++;
    }
    qsort(res->res, (size_t)res->nres, sizeof *res->res, by_total);
    /* Counts for the listing's first line, so a reader sees how much of the trace was matched. */
    res->nevents = t->nevents;
    res->np2p = ev->np2p;
    res->ncoll = ev->ncoll;
    res->unmatched = ev->unmatched_sends + ev->unmatched_recvs;
    rc = LENS_OK;
fail:
    /* The per-run arrays are freed on success too: the results hold copies of what they keep. */
    for (int p = 0; u.acc && p < rules->nproblems; p++)
        lens_free(u.acc[p]);
    lens_free(u.acc);
    lens_free(u.nacc);
    lens_free(u.capacc);
    lens_free(u.repeat);
    lens_free(u.cache);
    lens_free(u.gc);
    for (int c = 0; u.gi && c < rules->ncomposites; c++) {
        lens_free(u.gi[c].tuple);
        lens_free(u.gi[c].vals);
        lens_free(u.gi[c].rank);
        lens_free(u.gi[c].call);
        lens_free(u.gi[c].agg);
    }
    lens_free(u.gi);
    if (rc) {
        lens_problems_free(res);
        return rc;
    }
    *out = res;
    return LENS_OK;
}

/* The one-call form for callers that need no trace or events afterwards (tests, benchmarks);
 * the commands use trace_analysis.h, which keeps all three. */
int lens_problems_run(const char *trace_path, const char *rules_dir, struct lens_problems **out,
                      struct lens_err *e)
{
    *out = NULL;
    struct lens_rules *r = lens_rules_new();
    struct lens_trace *t = NULL;
    if (!r)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    int rc = lens_rules_load_dir(r, rules_dir, e);
    if (!rc)
        rc = lens_problems_bind(r, NULL, e); /* rule errors before reading a big trace */
    if (!rc)
        rc = lens_trace_read(trace_path, &t, e);
    if (rc) {
        lens_rules_free(r);
        return rc;
    }
    rc = lens_problems_analyze(t, r, out, e);
    lens_trace_free(t);
    return rc;
}

/* res has one entry per problem of the rules (nres may be smaller after a failure), so the loop
 * runs over nproblems: entries never filled are zeroed. */
void lens_problems_free(struct lens_problems *p)
{
    if (!p)
        return;
    for (int i = 0; p->res && i < p->rules->nproblems; i++) {
        lens_free(p->res[i].per_rank);
        lens_free(p->res[i].charges);
        for (int l = 0; l < 2; l++)
            for (int k = 0; k < LENS_RULE_NTEXT; k++)
                lens_free(p->res[i].expanded[l][k]);
    }
    lens_free(p->res);
    lens_free(p->mpi_s);
    lens_rules_free(p->rules);
    lens_free(p);
}

/* ---- output ---- */

/* Russian texts are optional in the rules: a missing one falls back to English per text, so a
 * user rule without _ru fields still shows in a Russian report. */
static const char *text_of(const struct lens_problem_result *r, int lang, int k)
{
    return lang == 1 && r->text[1][k] ? r->text[1][k] : r->text[0][k];
}

/* Problems with no time are left out of the rows: the report's table lists what was found, in
 * the order of res (largest first). */
int lens_problems_rows(const struct lens_problems *p, int lang, struct lens_problems_row *rows,
                       int max)
{
    int n = 0;
    for (int i = 0; i < p->nres && n < max; i++) {
        const struct lens_problem_result *r = &p->res[i];
        if (r->total_s <= 0)
            continue;
        rows[n++] = (struct lens_problems_row){r->rule->id, text_of(r, lang, 0),
                                               text_of(r, lang, 1),
                                               text_of(r, lang, 2), r->total_s, r->share,
                                               !r->nsites ? ""
                                               : lang == 1 ? r->sites[0].text_ru
                                                           : r->sites[0].text};
    }
    return n;
}

/* The problems' seconds on rank k, summed in result order (the JSON's problems_per_rank). */
static double problems_on_rank(const struct lens_problems *p, int k)
{
    double sum = 0;
    for (int i = 0; i < p->nres; i++)
        sum += p->res[i].per_rank[k];
    return sum;
}

/* The English line puts the count first ("3 instances"), the Russian one after its label:
 * positional printf arguments keep one format call for both orders. */
int lens_problems_write_text(const struct lens_problems *p, int lang, FILE *fp)
{
    static const char *const lab[2][11] = {
        {"total time (sum over ranks)", "problems found", "per rank", "call sites",
         "advice", "no problems found", "of the total time", "instances",
         "time in MPI per rank", "problems per rank", "cause"},
        {"общее время (сумма по процессам)", "найдено проблем", "по процессам", "места вызова",
         "совет", "проблем не найдено", "общего времени", "число случаев",
         "время в MPI по процессам", "проблемы по процессам", "причина"}};
    int L = lang == 1;
    int found = 0;
    for (int i = 0; i < p->nres; i++)
        found += p->res[i].total_s > 0;
    /* Microseconds (%.6f) are the precision of the listing; the JSON carries the exact values. */
    fprintf(fp, "%s: %.6f s, %d ranks, %llu events, %llu messages, %llu collectives\n",
            lab[L][0], p->total_time_s, p->nranks, (unsigned long long)p->nevents,
            (unsigned long long)p->np2p, (unsigned long long)p->ncoll);
    fprintf(fp, "%s: %d\n", lab[L][1], found);
    /* the bound of docs/methods.md §6 made visible: per rank, problems <= time in MPI */
    fprintf(fp, "%s:", lab[L][8]);
    for (int k = 0; k < p->nranks; k++)
        fprintf(fp, " %d=%.6f", k, p->mpi_s[k]);
    fprintf(fp, "\n%s:", lab[L][9]);
    for (int k = 0; k < p->nranks; k++)
        fprintf(fp, " %d=%.6f", k, problems_on_rank(p, k));
    fputc('\n', fp);
    if (!found)
        fprintf(fp, "\n%s\n", lab[L][5]);
    for (int i = 0; i < p->nres; i++) {
        const struct lens_problem_result *r = &p->res[i];
        if (r->total_s <= 0)
            continue;
        fprintf(fp, "\n%s [%s]: %.6f s, %.2f%% %s, ", text_of(r, lang, 0), r->rule->id,
                r->total_s, 100 * r->share, lab[L][6]);
        fprintf(fp, L ? "%s: %llu\n" : "%2$llu %1$s\n", lab[L][7], (unsigned long long)r->count);
        fprintf(fp, "  %s\n", text_of(r, lang, 1));
        fprintf(fp, "  %s:", lab[L][2]);
        for (int k = 0; k < p->nranks; k++)
            fprintf(fp, " %d=%.6f", k, r->per_rank[k]);
        fprintf(fp, "\n  %s:\n", lab[L][3]);
        /* the waiting member's sites, then the culprits', each named as in the rule */
        for (int k = 0; k < r->nsites + r->nculprits; k++) {
            const struct lens_problem_site *q = k < r->nsites ? &r->sites[k]
                                                              : &r->culprits[k - r->nsites];
            fprintf(fp, "    %.6f s (%llu) %s%s%s%s: %s\n", q->seconds,
                    (unsigned long long)q->count, q->member ? q->member : "",
                    q->culprit ? " (" : "", q->culprit ? lab[L][10] : "", q->culprit ? ")" : "",
                    L ? q->text_ru : q->text);
        }
        fprintf(fp, "  %s: %s\n", lab[L][4], text_of(r, lang, 2));
    }
    return ferror(fp) ? LENS_EIO : LENS_OK;
}

/* Only what JSON requires is escaped; UTF-8 (the Russian texts) passes through unchanged. */
static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

/* %.17g keeps doubles exact; JSON has no NaN or infinity, so those become null. */
static void json_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.17g", v);
    else
        fputs("null", fp);
}

/* Every problem of the rule base is written, also those with 0 s, so a consumer can tell "not
 * found" from "not checked". The warning key appears only when a rule was skipped. */
int lens_problems_write_json(const struct lens_problems *p, int lang, FILE *fp)
{
    return lens_problems_write_json_trace(p, NULL, lang, fp);
}

/* ,"provenance":{...}: the MPILENS::* properties t records, under the keys the cube's
 * provenance uses (LENS_OTF2_PROP_KEYS); nothing at all when none is recorded, so the JSON of
 * a foreign trace stays what it was. */
static void json_provenance(FILE *fp, const struct lens_trace *t)
{
    static const char *const keys[LENS_OTF2_NPROP] = LENS_OTF2_PROP_KEYS;
    int n = 0;
    for (int k = 0; t && k < LENS_OTF2_NPROP; k++) {
        if (!t->prov[k])
            continue;
        fputs(n++ ? "," : ",\"provenance\":{", fp);
        json_str(fp, keys[k]);
        fputc(':', fp);
        json_str(fp, t->prov[k]);
    }
    if (n)
        fputc('}', fp);
}

int lens_problems_write_json_trace(const struct lens_problems *p, const struct lens_trace *t, int lang, FILE *fp)
{
    fputs("{\"total_time_s\":", fp);
    json_num(fp, p->total_time_s);
    fprintf(fp, ",\"nranks\":%d,\"events\":%llu,\"messages\":%llu,\"collectives\":%llu,"
                "\"unmatched\":%llu",
            p->nranks, (unsigned long long)p->nevents, (unsigned long long)p->np2p,
            (unsigned long long)p->ncoll, (unsigned long long)p->unmatched);
    /* per rank, time in MPI and the problems' sum, side by side: the second never exceeds
     * the first (docs/methods.md §6), and a reader can check it without the trace */
    fputs(",\"mpi_time_per_rank\":[", fp);
    for (int k = 0; k < p->nranks; k++) {
        if (k)
            fputc(',', fp);
        json_num(fp, p->mpi_s[k]);
    }
    fputs("],\"problems_per_rank\":[", fp);
    for (int k = 0; k < p->nranks; k++) {
        if (k)
            fputc(',', fp);
        json_num(fp, problems_on_rank(p, k));
    }
    fputs("],\"problems\":[", fp);
    for (int i = 0; i < p->nres; i++) {
        const struct lens_problem_result *r = &p->res[i];
        fputs(i ? ",\n{\"id\":" : "\n{\"id\":", fp);
        json_str(fp, r->rule->id);
        static const char *const keys[] = {"name", "description", "advice"};
        for (int k = 0; k < 3; k++) {
            fprintf(fp, ",\"%s\":", keys[k]);
            json_str(fp, text_of(r, lang, k));
        }
        fputs(",\"total_s\":", fp);
        json_num(fp, r->total_s);
        fputs(",\"share\":", fp);
        json_num(fp, r->share);
        fprintf(fp, ",\"count\":%llu,\"per_rank\":[", (unsigned long long)r->count);
        for (int k = 0; k < p->nranks; k++) {
            if (k)
                fputc(',', fp);
            json_num(fp, r->per_rank[k]);
        }
        fputs("],\"callsites\":[", fp);
        /* the waiting member's sites first (callsites[0] stays the largest wait), then the
         * culprits'; "role" says which */
        for (int k = 0; k < r->nsites + r->nculprits; k++) {
            const struct lens_problem_site *q = k < r->nsites ? &r->sites[k]
                                                              : &r->culprits[k - r->nsites];
            fputs(k ? ",{\"site\":" : "{\"site\":", fp);
            json_str(fp, lang == 1 ? q->text_ru : q->text);
            fputs(",\"member\":", fp);
            json_str(fp, q->member ? q->member : "");
            fprintf(fp, ",\"role\":\"%s\",\"function\":", q->culprit ? "cause" : "waits");
            json_str(fp, q->function);
            fputs(",\"caller\":", fp);
            json_str(fp, q->caller);
            if (q->inlined_into[0]) {
                fputs(",\"inlined_into\":", fp);
                json_str(fp, q->inlined_into);
            }
            fputs(",\"file\":", fp);
            json_str(fp, q->file);
            fprintf(fp, ",\"line\":%d,\"seconds\":", q->line);
            json_num(fp, q->seconds);
            fprintf(fp, ",\"count\":%llu}", (unsigned long long)q->count);
        }
        fputs("],\"instances\":[", fp);
        for (int k = 0; k < r->ntop; k++) {
            fprintf(fp, "%s{\"rank\":%d,\"call\":", k ? "," : "", r->top[k].rank);
            json_str(fp, r->top[k].call);
            fputs(",\"time\":", fp);
            json_num(fp, r->top[k].time);
            fputs(",\"seconds\":", fp);
            json_num(fp, r->top[k].seconds);
            fputc('}', fp);
        }
        fputs("]}", fp);
    }
    fputs("\n]", fp);
    if (p->warning[0]) {
        fputs(",\"warning\":", fp);
        json_str(fp, p->warning);
    }
    /* last, so every key before it keeps its place for readers that stream the object */
    json_provenance(fp, t);
    fputs("}\n", fp);
    return ferror(fp) ? LENS_EIO : LENS_OK;
}
