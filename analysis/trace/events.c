/* Composite events (events.h). Messages are matched per channel (source, destination,
 * communicator, tag) in FIFO order: sends in issue order, receives in posting order, which is
 * MPI's non-overtaking rule. Collectives are numbered per communicator on each rank. */
#include "events.h"

#include "common/keymap.h"
#include "rmaepochs.h"

#include <math.h>
#include <otf2/OTF2_Events.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Request ids are 64-bit handles; the key map takes four 32-bit words, so the id fills two and
 * w[2] (0 send, 1 receive) keeps an open send and an open receive with the same id apart. */
static struct lens_key req_key(uint64_t req)
{
    return (struct lens_key){{(uint32_t)req, (uint32_t)(req >> 32), 0, 0}};
}

/* ---- point-to-point ---- */

struct half {            /* one side of a message before matching */
    int32_t rank;        /* owner */
    uint32_t call, done; /* send_call/send_done or recv_post/recv_done */
    uint64_t order;      /* posting order on the owner */
    uint64_t bytes;
    uint32_t comm, tag;
    int32_t chan;        /* channel id */
    int32_t next;        /* next half of the same channel, -1 */
};

/* Linked through half.next rather than per-channel arrays: a trace has millions of messages on
 * thousands of channels, and one array of halves per side holds them all. */
struct chan { int32_t shead, stail, rhead, rtail; }; /* FIFOs of one channel */

struct p2p_build {
    struct half *sends, *recvs;
    size_t ns, nr, caps, capr;
    struct lens_keymap chans;
    struct chan *ch;
    size_t nchan, capchan;
};

/* A channel is (source, destination, communicator, tag) in world ranks: MPI orders messages
 * only within one, so matching per channel in issue order reproduces MPI's matching without
 * wildcards (the trace records the actual source and tag of every receive). */
static int add_half(struct p2p_build *b, int recv, struct half h, int32_t src, int32_t dst,
                    uint32_t comm, uint32_t tag)
{
    int added;
    int32_t c = lens_keymap_get(&b->chans, (struct lens_key){{(uint32_t)src, (uint32_t)dst, comm, tag}},
                        (int32_t)b->nchan, &added);
    if (c < 0)
        return LENS_ENOMEM;
    if (added) {
        if (lens_reserve((void **)&b->ch, &b->capchan, (size_t)(b->nchan) + 1, sizeof(struct chan)))
            return LENS_ENOMEM;
        b->ch[c] = (struct chan){-1, -1, -1, -1};
        b->nchan++;
    }
    struct half **arr = recv ? &b->recvs : &b->sends;
    size_t *n = recv ? &b->nr : &b->ns, *cap = recv ? &b->capr : &b->caps;
    if (lens_reserve((void **)arr, cap, (size_t)(*n) + 1, sizeof(struct half)))
        return LENS_ENOMEM;
    h.comm = comm;
    h.tag = tag;
    h.chan = c;
    h.next = -1;
    (*arr)[*n] = h;
    (*n)++;
    return LENS_OK;
}

/* Collects the sends and receives of rank r; non-blocking ones are completed through their
 * request ids (which MPI reuses, hence the map entry is removed at completion). */
static int collect_rank(struct p2p_build *b, const struct lens_trace *t, int r, struct lens_keymap *reqs)
{
    const struct lens_trace_rank *k = &t->ranks[r];
    size_t s0 = b->ns, r0 = b->nr;
    for (uint32_t c = 0; c < k->ncalls; c++) {
        const struct lens_trace_call *call = &k->calls[c];
        for (uint32_t i = call->rec; i < call->rec + call->nrec; i++) {
            const struct lens_trace_record *x = &k->recs[i];
            int added, rc = LENS_OK;
            struct half h = {r, c, c, i, x->bytes, 0, 0, 0, 0};
            switch (x->kind) {
            case LENS_TREC_SEND:
            case LENS_TREC_ISEND:
                /* A partner that maps to no world rank (unknown communicator) cannot be
                 * matched. */
                if (x->peer < 0)
                    break;
                /* Remember which half this request is, as an index relative to this rank's
                 * first send (s0), so that the map's 31-bit values suffice; an older entry of a
                 * reused id is dropped first. */
                if (x->kind == LENS_TREC_ISEND) { /* done is found at ISEND_COMPLETE */
                    h.done = LENS_NONE;
                    struct lens_key rk = req_key(x->req);
                    lens_keymap_del(reqs, rk);
                    if (lens_keymap_get(reqs, rk, (int32_t)(b->ns - s0), &added) < 0)
                        return LENS_ENOMEM;
                }
                rc = add_half(b, 0, h, r, x->peer, x->comm, x->tag);
                break;
            case LENS_TREC_ISEND_COMPLETE: {
                int found;
                struct lens_key rk = req_key(x->req);
                /* An empty map (no Isend seen) cannot hold the request: the completion belongs
                 * to a send issued before the trace started. */
                if (!reqs->cap)
                    break;
                size_t j = lens_keymap_slot(reqs, &rk, &found);
                /* The bound check guards a damaged map value; the entry is deleted so a reused
                 * request id binds to the next Isend, not this one. */
                if (found && s0 + (size_t)reqs->vals[j] < b->ns)
                    b->sends[s0 + (size_t)reqs->vals[j]].done = c;
                lens_keymap_del(reqs, rk);
                break;
            }
            case LENS_TREC_IRECV_REQUEST: {
                struct lens_key rk = req_key(x->req);
                rk.w[2] = 1; /* receive requests live beside send requests */
                lens_keymap_del(reqs, rk);
                /* remember the posting call and position: (call, rec) packed below 2^31 */
                if (lens_keymap_get(reqs, rk, (int32_t)c, &added) < 0)
                    return LENS_ENOMEM;
                break;
            }
            /* A blocking receive posts and completes in the same call: h already has call ==
             * done == c. */
            case LENS_TREC_RECV:
                if (x->peer >= 0)
                    rc = add_half(b, 1, h, x->peer, r, x->comm, x->tag);
                break;
            /* The completion (in a Wait) carries the source and tag; the posting call comes
             * from the IrecvRequest with the same id. Without one (posted before the trace
             * began) the receive counts as posted in the call that completed it. */
            case LENS_TREC_IRECV: {
                struct lens_key rk = req_key(x->req);
                rk.w[2] = 1;
                int found = 0;
                size_t j = reqs->cap ? lens_keymap_slot(reqs, &rk, &found) : 0;
                if (found) {
                    h.call = (uint32_t)reqs->vals[j];
                    h.order = k->calls[h.call].rec; /* posting order: the Irecv's position */
                    lens_keymap_del(reqs, rk);
                }
                if (x->peer >= 0)
                    rc = add_half(b, 1, h, x->peer, r, x->comm, x->tag);
                break;
            }
            default:
                break;
            }
            if (rc)
                return rc;
        }
    }
    /* A send never completed (a request freed or a trace cut off) keeps its own call as
     * completion, so the send side of the message still has a call to charge. */
    for (size_t i = s0; i < b->ns; i++) /* a send never completed is charged to itself */
        if (b->sends[i].done == LENS_NONE)
            b->sends[i].done = b->sends[i].call;
    (void)r0;
    return LENS_OK;
}

/* Receives are matched in posting order, which for Irecv is the position of the IrecvRequest
 * record (calls are in time order, so record positions are too). */
static int by_order(const void *a, const void *b)
{
    const struct half *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Matches the messages of t into ev->p2p; *order receives the p2p indices grouped by
 * destination rank in posting order (for the wrong-order test), owned by the caller. */
/* Three steps: collect both halves of every message per rank, chain them per channel in issue
 * (sends) or posting (receives) order, then pair the k-th send with the k-th receive of each
 * channel. Leftovers on either side are unmatched messages (their partner is outside the
 * trace). */
static int match_p2p(struct lens_events *ev, const struct lens_trace *t, uint32_t **order)
{
    struct p2p_build b = {0};
    struct lens_keymap reqs = {0};
    int rc = LENS_OK;
    for (int r = 0; r < t->nranks && !rc; r++) {
        size_t r0 = b.nr;
        rc = collect_rank(&b, t, r, &reqs);
        /* Request ids are per process: the map is emptied for the next rank. */
        lens_keymap_release(&reqs);
        /* receives in posting order: Irecv completions arrive in completion order */
        /* Already in order in the common case (blocking receives, or Irecvs waited in posting
         * order), so the sort runs only when needed. */
        int sorted = 1;
        for (size_t i = r0 + 1; !rc && i < b.nr && sorted; i++)
            sorted = b.recvs[i - 1].order <= b.recvs[i].order;
        if (!rc && !sorted)
            qsort(b.recvs + r0, b.nr - r0, sizeof *b.recvs, by_order);
    }
    /* channel FIFOs, then pair the k-th send with the k-th receive of each channel */
    for (size_t i = 0; !rc && i < b.ns; i++) {
        struct chan *c = &b.ch[b.sends[i].chan];
        if (c->stail >= 0)
            b.sends[c->stail].next = (int32_t)i;
        else
            c->shead = (int32_t)i;
        c->stail = (int32_t)i;
    }
    for (size_t i = 0; !rc && i < b.nr; i++) {
        struct chan *c = &b.ch[b.recvs[i].chan];
        if (c->rtail >= 0)
            b.recvs[c->rtail].next = (int32_t)i;
        else
            c->rhead = (int32_t)i;
        c->rtail = (int32_t)i;
    }
    /* At most min(sends, receives) pairs: the array is sized once. */
    size_t want = b.ns < b.nr ? b.ns : b.nr;
    if (!rc && want && !(ev->p2p = lens_malloc(want * sizeof *ev->p2p)))
        rc = LENS_ENOMEM;
    for (size_t c = 0; !rc && c < b.nchan; c++) {
        int32_t s = b.ch[c].shead, q = b.ch[c].rhead;
        for (; s >= 0 && q >= 0; s = b.sends[s].next, q = b.recvs[q].next) {
            const struct half *hs = &b.sends[s], *hr = &b.recvs[q];
            /* The receive half's chan field is reused to remember its transfer, so the
             * destination's posting order can be listed below without another array (-1:
             * unmatched). */
            b.recvs[q].chan = (int32_t)ev->np2p; /* from now on: the matched transfer */
            ev->p2p[ev->np2p++] = (struct lens_p2p){hs->rank, hr->rank, hs->call, hs->done,
                                                    hr->call, hr->done, hs->comm, hs->tag,
                                                    hr->bytes, 0};
        }
        for (; s >= 0; s = b.sends[s].next)
            ev->unmatched_sends++;
        for (; q >= 0; q = b.recvs[q].next) {
            ev->unmatched_recvs++;
            b.recvs[q].chan = -1;
        }
    }
    if (!rc && ev->np2p && !(*order = lens_malloc(ev->np2p * sizeof **order)))
        rc = LENS_ENOMEM;
    /* Receives are stored rank by rank in posting order: this lists the transfers grouped by
     * destination in that order, which wrong_order() walks. */
    for (size_t i = 0, n = 0; !rc && i < b.nr; i++)
        if (b.recvs[i].chan >= 0)
            (*order)[n++] = (uint32_t)b.recvs[i].chan;
    lens_free(b.sends);
    lens_free(b.recvs);
    lens_free(b.ch);
    lens_keymap_release(&b.chans);
    return rc;
}

/* ---- logical-clock fix and wrong order ---- */

/* Asks that call c of rank r leave no earlier than bound; 1 when that is a violation. */
/* need[r] is allocated only for ranks that violate: most traces need no fix at all. need[r][c]
 * is the largest shift call c must get. */
static int require(double **need, const struct lens_trace *t, int32_t r, uint32_t c,
                   double bound, int *oom)
{
    double leave = t->ranks[r].calls[c].leave;
    if (leave >= bound)
        return 0;
    if (!need[r] && !(need[r] = lens_calloc(t->ranks[r].ncalls, sizeof(double)))) {
        *oom = 1;
        return 0;
    }
    if (bound - leave > need[r][c])
        need[r][c] = bound - leave;
    return 1;
}

/* The constraints of one collective instance: nobody leaves a barrier or an N x N operation
 * before the last one entered; a non-root leaves a one-to-N operation only after the root
 * entered; the root leaves an N-to-one operation only after the last sender entered. */
/* These are the causal orders a collective implies (the same ones Scalasca's controlled logical
 * clock uses); an N x N operation cannot complete on any rank before every rank entered. */
static int coll_constraints(const struct lens_events *ev, const struct lens_coll *c,
                            double **need, const struct lens_trace *t, int *oom)
{
    double max_enter = -INFINITY, root_enter = NAN;
    const struct lens_coll_member *m = &ev->members[c->first];
    for (uint32_t j = 0; j < c->n; j++) {
        double b = t->ranks[m[j].rank].calls[m[j].call].enter;
        max_enter = fmax(max_enter, b);
        if (m[j].rank == c->root)
            root_enter = b;
    }
    /* Only the ops whose data flow is known: window ops and anything unknown are treated as N x
     * N (everyone waits for the last), which is what a barrier-like synchronisation implies. */
    int one_to_n = c->op == OTF2_COLLECTIVE_OP_BCAST || c->op == OTF2_COLLECTIVE_OP_SCATTER ||
                   c->op == OTF2_COLLECTIVE_OP_SCATTERV;
    int n_to_one = c->op == OTF2_COLLECTIVE_OP_REDUCE || c->op == OTF2_COLLECTIVE_OP_GATHER ||
                   c->op == OTF2_COLLECTIVE_OP_GATHERV;
    int scan = c->op == OTF2_COLLECTIVE_OP_SCAN || c->op == OTF2_COLLECTIVE_OP_EXSCAN;
    if (scan || ((one_to_n || n_to_one) && isnan(root_enter)))
        return 0; /* scans order by rank; a rootless one-to-N cannot be checked */
    int any = 0;
    for (uint32_t j = 0; j < c->n; j++) {
        double bound = max_enter;
        if (one_to_n)
            bound = m[j].rank == c->root ? -INFINITY : root_enter;
        else if (n_to_one && m[j].rank != c->root)
            continue;
        any |= require(need, t, m[j].rank, m[j].call, bound, oom);
    }
    return any;
}

/* A receive cannot complete before its send began, nor a collective before its partners
 * entered it. Each violation moves the rest of its rank later by the gap (a forward-only
 * controlled logical clock); repeated because a moved rank's own sends and collectives can
 * create new violations further down a chain. */
/* Forward only: a violating call's leave moves later by the gap (the call becomes longer, as if
 * it had waited for its partner) and every later call of its rank moves by the same amount, so
 * the order of the rank's calls and the compute time between them are kept. */
static int clock_fix(struct lens_events *ev, struct lens_trace *t)
{
    double **need = lens_calloc((size_t)t->nranks, sizeof *need);
    if (!need)
        return LENS_ENOMEM;
    int oom = 0;
    /* A shift can only propagate along a chain of messages through distinct ranks, so nranks
     * passes (plus slack) settle every chain; the bound stops a cycle of mutually violating
     * constraints (impossible in a consistent trace) from looping forever. */
    for (int pass = 0; pass < t->nranks + 2 && !oom; pass++) {
        int any = 0;
        for (size_t i = 0; i < ev->np2p && !oom; i++) {
            const struct lens_p2p *p = &ev->p2p[i];
            double s = t->ranks[p->src].calls[p->send_call].enter;
            if (require(need, t, p->dst, p->recv_done, s, &oom)) {
                any = 1;
                ev->clock_fixes++;
            }
        }
        for (size_t i = 0; i < ev->ncoll && !oom; i++)
            if (coll_constraints(ev, &ev->coll[i], need, t, &oom)) {
                any = 1;
                ev->clock_fixes++;
            }
        if (!any || oom)
            break;
        for (int r = 0; r < t->nranks; r++) {
            if (!need[r])
                continue;
            struct lens_trace_rank *k = &t->ranks[r];
            /* run is the shift applied so far on this rank: it only grows, so later calls move
             * at least as much as earlier ones (the order of calls on the rank is kept). */
            double run = 0;
            for (uint32_t c = 0; c < k->ncalls; c++) {
                k->calls[c].enter += run;
                if (need[r][c] > run)
                    run = need[r][c];
                k->calls[c].leave += run;
                need[r][c] = 0;
            }
            /* The rank's end moves with its last call; t_first is left, since nothing moves
             * earlier. */
            k->t_last += run;
        }
    }
    for (int r = 0; r < t->nranks; r++)
        lens_free(need[r]);
    lens_free(need);
    return oom ? LENS_ENOMEM : LENS_OK;
}

/* Scalasca's Late Sender, wrong order: a message whose send began after the send of a message
 * that the same receiver receives later. Walking each destination's receives backwards, the
 * earliest send among the later receives is kept, so the test is one comparison per message. */
static void wrong_order(struct lens_events *ev, const struct lens_trace *t, const uint32_t *order)
{
    size_t i = ev->np2p;
    while (i > 0) {
        int32_t dst = ev->p2p[order[i - 1]].dst;
        double later_min = INFINITY; /* earliest send among messages received later */
        for (; i > 0 && ev->p2p[order[i - 1]].dst == dst; i--) {
            struct lens_p2p *p = &ev->p2p[order[i - 1]];
            double s = t->ranks[p->src].calls[p->send_call].enter;
            p->wrong_order = later_min < s;
            if (s < later_min)
                later_min = s;
        }
    }
}

/* ---- region classes: names compared once per region, not once per call ---- */

enum { RC_OTHER, RC_WIN_CREATE, RC_WIN_FENCE, RC_WIN_FREE };

/* MPI_Win_allocate creates a window as MPI_Win_create does (collectively over its
 * communicator), so both map to RC_WIN_CREATE. One extra byte keeps the table non-NULL for a
 * trace without regions (NULL means out of memory). */
static uint8_t *region_classes(const struct lens_trace *t)
{
    static const char *const names[] = {NULL, "MPI_Win_create", "MPI_Win_fence", "MPI_Win_free"};
    uint8_t *cls = lens_calloc((size_t)t->nregions + 1, 1);
    for (uint32_t i = 0; cls && i < t->nregions; i++) {
        const char *nm = lens_trace_region_name(t, i);
        for (int k = 1; k < (int)(sizeof names / sizeof names[0]); k++)
            if (!strcmp(nm, names[k]))
                cls[i] = (uint8_t)k;
        if (!strcmp(nm, "MPI_Win_allocate"))
            cls[i] = RC_WIN_CREATE;
    }
    return cls;
}

static int class_of(const struct lens_trace *t, const uint8_t *cls, uint32_t region)
{
    return region < t->nregions ? cls[region] : RC_OTHER;
}

/* ---- collectives ---- */

/* One member before the counting sort: which instance, and whose call. */
struct coll_tmp { uint32_t inst; int32_t rank; uint32_t call; };

/* The window a call's RMA record of the given kind names (its comm field), LENS_NONE without
 * one. */
static uint32_t window_of(const struct lens_trace_rank *k, const struct lens_trace_call *c,
                          int kind)
{
    for (uint32_t i = c->rec; i < c->rec + c->nrec; i++)
        if (k->recs[i].kind == kind)
            return k->recs[i].comm;
    return LENS_NONE;
}

/* Which collective a call is: its op and domain key, or 0 when it is not one. */
/* The domain key says which sequence an instance belongs to: w[0] is the kind of domain (0
 * communicator, 1 window creation, 2 fence, 3 free), w[1] the communicator or window, so a
 * fence and a collective on the same numeric id never share a sequence. */
static int coll_kind(const struct lens_trace *t, const uint8_t *cls,
                     const struct lens_trace_rank *k, const struct lens_trace_call *c,
                     uint32_t *op, struct lens_key *dom, int32_t *root)
{
    for (uint32_t i = c->rec; i < c->rec + c->nrec; i++)
        if (k->recs[i].kind == LENS_TREC_COLL_END) {
            *op = k->recs[i].tag;
            *root = k->recs[i].peer;
            *dom = (struct lens_key){{0, k->recs[i].comm, 0, 0}};
            return 1;
        }
    if (!t->nrma)
        return 0;
    int rc = class_of(t, cls, c->region);
    uint32_t w;
    *root = -1;
    if (rc == RC_WIN_CREATE && (w = window_of(k, c, LENS_TREC_RMA_WIN_CREATE)) != LENS_NONE) {
        *op = LENS_COLL_WIN_CREATE;
        /* creation is collective over the window's communicator */
        uint32_t comm = w < t->nwins ? t->win_comm[w] : LENS_NONE;
        /* Without a known communicator, the window id itself is the domain (w[2] = 1 keeps it
         * apart from a communicator with the same number). */
        *dom = (struct lens_key){{1, comm == LENS_NONE ? w : comm, comm == LENS_NONE, 0}};
        return 1;
    }
    if (rc == RC_WIN_FENCE && (w = window_of(k, c, LENS_TREC_RMA_COLL_END)) != LENS_NONE) {
        *op = LENS_COLL_WIN_FENCE;
        *dom = (struct lens_key){{2, w, 0, 0}};
        return 1;
    }
    if (rc == RC_WIN_FREE && (w = window_of(k, c, LENS_TREC_RMA_WIN_DESTROY)) != LENS_NONE) {
        *op = LENS_COLL_WIN_FREE;
        *dom = (struct lens_key){{3, w, 0, 0}};
        return 1;
    }
    return 0;
}

/* The n-th collective a rank calls on a communicator is that communicator's n-th instance (MPI
 * requires all members to call collectives in the same order), so an instance is the key
 * (domain, sequence number) and needs no timestamps to match. */
static int build_coll(struct lens_events *ev, const struct lens_trace *t, const uint8_t *cls)
{
    struct lens_keymap doms = {0}, seqs = {0};
    struct coll_tmp *tmp = NULL;
    size_t ntmp = 0, captmp = 0, capcoll = 0;
    int rc = LENS_OK;
    for (int r = 0; r < t->nranks && !rc; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        lens_keymap_release(&seqs); /* per-rank sequence number of each domain */
        for (uint32_t c = 0; c < k->ncalls && !rc; c++) {
            uint32_t op;
            int32_t root;
            struct lens_key dom;
            if (!coll_kind(t, cls, k, &k->calls[c], &op, &dom, &root))
                continue;
            int added;
            int32_t seq = lens_keymap_get(&seqs, dom, 0, &added);
            if (seq < 0) {
                rc = LENS_ENOMEM;
                break;
            }
            int found;
            seqs.vals[lens_keymap_slot(&seqs, &dom, &found)] = seq + 1;
            struct lens_key ik = dom;
            ik.w[3] = (uint32_t)seq; /* instance = (domain, sequence number) */
            int32_t inst = lens_keymap_get(&doms, ik, (int32_t)ev->ncoll, &added);
            if (inst < 0 || (added && lens_reserve((void **)&ev->coll, &capcoll, (size_t)(ev->ncoll) + 1,
                                              sizeof *ev->coll)) ||
                lens_reserve((void **)&tmp, &captmp, (size_t)(ntmp) + 1, sizeof *tmp)) {
                rc = LENS_ENOMEM;
                break;
            }
            /* A new instance starts with empty aggregates; coll_stats fills them after the
             * clock fix. */
            if (added)
                ev->coll[ev->ncoll++] = (struct lens_coll){dom.w[1], op, root, 0, 0, INFINITY,
                                                           -INFINITY, INFINITY, -INFINITY, NAN,
                                                           -INFINITY};
            tmp[ntmp++] = (struct coll_tmp){(uint32_t)inst, r, c};
        }
    }
    lens_keymap_release(&seqs);
    lens_keymap_release(&doms);
    /* counting sort of members by instance; ranks stay in increasing order within each */
    if (!rc && ntmp && !(ev->members = lens_malloc(ntmp * sizeof *ev->members)))
        rc = LENS_ENOMEM;
    for (size_t i = 0; !rc && i < ntmp; i++)
        ev->coll[tmp[i].inst].n++;
    for (size_t i = 0, acc = 0; !rc && i < ev->ncoll; i++) {
        ev->coll[i].first = (uint32_t)acc;
        acc += ev->coll[i].n;
        ev->coll[i].n = 0;
    }
    for (size_t i = 0; !rc && i < ntmp; i++) {
        struct lens_coll *c = &ev->coll[tmp[i].inst];
        ev->members[c->first + c->n++] = (struct lens_coll_member){tmp[i].rank, tmp[i].call, 0};
    }
    /* On failure the members are not valid: nmembers 0 keeps lens_events_free and any reader
     * safe. */
    ev->nmembers = rc ? 0 : ntmp;
    lens_free(tmp);
    return rc;
}

/* Instance aggregates; done after the clock fix so they see the corrected times. */
/* Members are in world-rank order within an instance (build_coll), so the running maximum of
 * enters is max over ranks <= this one: Scalasca's Early Scan bound. */
static void coll_stats(struct lens_events *ev, const struct lens_trace *t)
{
    for (size_t i = 0; i < ev->ncoll; i++) {
        struct lens_coll *c = &ev->coll[i];
        double pmax = -INFINITY;
        for (uint32_t j = c->first; j < c->first + c->n; j++) {
            struct lens_coll_member *m = &ev->members[j];
            const struct lens_trace_call *k = &t->ranks[m->rank].calls[m->call];
            c->min_enter = fmin(c->min_enter, k->enter);
            c->max_enter = fmax(c->max_enter, k->enter);
            c->min_leave = fmin(c->min_leave, k->leave);
            c->max_leave = fmax(c->max_leave, k->leave);
            if (m->rank == c->root)
                c->root_enter = k->enter;
            else
                c->max_enter_nonroot = fmax(c->max_enter_nonroot, k->enter);
            pmax = fmax(pmax, k->enter);
            m->prefix_max_enter = pmax;
        }
    }
}

/* How many times lens_events_build ran in this process (atomic: tests may build in threads). */
static atomic_ulong builds;

unsigned long lens_events_builds(void)
{
    return atomic_load(&builds);
}

/* The order matters: messages and collectives are matched on the raw times (matching uses
 * order, not time), the clock fix then moves times, and everything computed from times (wrong
 * order, instance aggregates, one-sided epochs) comes after it. */
int lens_events_build(struct lens_trace *t, struct lens_events **out, struct lens_err *e)
{
    *out = NULL;
    atomic_fetch_add(&builds, 1);
    struct lens_events *ev = lens_calloc(1, sizeof *ev);
    uint32_t *order = NULL;
    uint8_t *cls = ev ? region_classes(t) : NULL;
    if (!cls) {
        lens_free(ev);
        return lens_err_set(e, LENS_ENOMEM, "out of memory building composite events");
    }
    int rc = match_p2p(ev, t, &order);
    if (!rc)
        rc = build_coll(ev, t, cls);
    if (!rc)
        rc = clock_fix(ev, t);
    if (!rc) {
        wrong_order(ev, t, order);
        coll_stats(ev, t);
    }
    if (!rc && t->nrma) /* one-sided epochs only when the trace has RMA records */
        rc = lens_rmaepochs_build(ev, t);
    lens_free(order);
    lens_free(cls);
    if (rc) {
        lens_events_free(ev);
        return lens_err_set(e, LENS_ENOMEM, "out of memory building composite events");
    }
    *out = ev;
    return LENS_OK;
}

void lens_events_free(struct lens_events *ev)
{
    if (!ev)
        return;
    lens_free(ev->p2p);
    lens_free(ev->coll);
    lens_free(ev->members);
    lens_free(ev->locks);
    lens_free(ev->pscw);
    lens_free(ev);
}
