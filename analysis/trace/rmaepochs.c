/* One-sided epochs (rmaepochs.h): lock epochs with the conflicting holder each one waited for,
 * and access epochs (Win_start..Win_complete) paired with the target's exposure epochs
 * (Win_post..Win_wait) per (origin, target, window) in order. */
#include "rmaepochs.h"

#include "common/keymap.h"

#include <math.h>
#include <otf2/OTF2_Events.h>
#include <stdlib.h>
#include <string.h>

/* Region classes of the general active-target synchronisation calls. Regions are classified
 * once by name, so the epoch walks below compare small integers, not strings, per call. */
enum { RC_OTHER, RC_POST, RC_WAIT, RC_START, RC_COMPLETE };

/* One byte per region, plus one so that a trace without regions still gets a non-NULL table
 * (NULL means out of memory). */
static uint8_t *region_classes(const struct lens_trace *t)
{
    static const char *const names[] = {NULL, "MPI_Win_post", "MPI_Win_wait", "MPI_Win_start",
                                        "MPI_Win_complete"};
    uint8_t *cls = lens_calloc((size_t)t->nregions + 1, 1);
    for (uint32_t i = 0; cls && i < t->nregions; i++)
        for (int k = 1; k < (int)(sizeof names / sizeof names[0]); k++)
            if (!strcmp(lens_trace_region_name(t, i), names[k]))
                cls[i] = (uint8_t)k;
    return cls;
}

/* Pseudo-calls (records outside any MPI call) have region LENS_NONE: they are no epoch
 * boundary. */
static int class_of(const struct lens_trace *t, const uint8_t *cls, uint32_t region)
{
    return region < t->nregions ? cls[region] : RC_OTHER;
}

/* ---- one-sided: lock epochs ---- */

/* The lock epochs are built once per analysis on one thread; these two are set just before the
 * qsort that reads them and are not used afterwards. */
static const struct lens_trace *sort_trace; /* qsort has no context argument in C11 */
static const struct lens_lock_epoch *sort_locks;

/* The lock is released inside MPI_Win_unlock: a waiter cannot get it before the holder
 * entered that call, and in practice gets it right after, so the unlock's enter is used. */
static double release_of(const struct lens_lock_epoch *l)
{
    return sort_trace->ranks[l->rank].calls[l->unlock_call].enter;
}

/* Lock epochs by window, target and release time. */
static int by_release(const void *a, const void *b)
{
    const struct lens_lock_epoch *x = &sort_locks[*(const uint32_t *)a];
    const struct lens_lock_epoch *y = &sort_locks[*(const uint32_t *)b];
    if (x->win != y->win)
        return x->win < y->win ? -1 : 1;
    if (x->target != y->target)
        return x->target < y->target ? -1 : 1;
    double rx = release_of(x), ry = release_of(y);
    return rx < ry ? -1 : rx > ry;
}

/* The call of rank r in [from, to] running at time tm (blocked across it), LENS_NONE. */
static uint32_t call_at(const struct lens_trace *t, int32_t r, uint32_t from, uint32_t to,
                        double tm)
{
    for (uint32_t c = from; c <= to && c < t->ranks[r].ncalls; c++)
        if (t->ranks[r].calls[c].enter <= tm && t->ranks[r].calls[c].leave >= tm)
            return c;
    return LENS_NONE;
}

/* Lock contention after Scalasca's RMA wait states: an epoch that asked for a lock which a
 * conflicting epoch (another rank, at least one of them exclusive) held must wait for that
 * holder's release. Pass 1 collects the epochs per rank; pass 2 sorts them by release and gives
 * each the conflicting epoch released last before it, when the epoch was blocked across that
 * release. */
static int build_locks(struct lens_events *ev, const struct lens_trace *t)
{
    size_t cap = 0;
    for (int r = 0; r < t->nranks; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        size_t open0 = ev->nlocks;
        for (uint32_t c = 0; c < k->ncalls; c++)
            for (uint32_t i = k->calls[c].rec; i < k->calls[c].rec + k->calls[c].nrec; i++) {
                const struct lens_trace_record *x = &k->recs[i];
                if (x->kind != LENS_TREC_RMA_LOCK && x->kind != LENS_TREC_RMA_UNLOCK)
                    continue;
                /* Epochs of this rank only (from open0): a rank holds few locks at a time, so
                 * the scan is short. */
                size_t j = open0; /* the open epoch of this (window, target) */
                while (j < ev->nlocks && !(ev->locks[j].win == x->comm &&
                                           ev->locks[j].target == x->peer &&
                                           ev->locks[j].unlock_call == LENS_NONE))
                    j++;
                /* An unlock without an open epoch (the lock was taken before the trace started)
                 * is dropped. */
                if (x->kind == LENS_TREC_RMA_UNLOCK) {
                    if (j < ev->nlocks)
                        ev->locks[j].unlock_call = c;
                    continue;
                }
                /* A lock record on an already open epoch is the acquire after a request (tools
                 * may write both); a target that maps to no rank cannot be matched to a holder. */
                if (j < ev->nlocks || x->peer < 0)
                    continue; /* request then acquire of the same lock */
                if (lens_reserve((void **)&ev->locks, &cap, (size_t)(ev->nlocks) + 1, sizeof *ev->locks))
                    return LENS_ENOMEM;
                ev->locks[ev->nlocks++] = (struct lens_lock_epoch){
                    r,  x->peer,  x->comm, c, LENS_NONE, x->req == OTF2_LOCK_EXCLUSIVE,
                    -1, LENS_NONE};
            }
        /* A truncated trace may leave a lock open: closing it at the rank's last call keeps the
         * epoch (it did hold the lock) with a release no later than the trace shows. */
        for (size_t j = open0; j < ev->nlocks; j++) /* never unlocked: ends at its last call */
            if (ev->locks[j].unlock_call == LENS_NONE)
                ev->locks[j].unlock_call = k->ncalls - 1;
    }
    if (!ev->nlocks)
        return LENS_OK;
    /* Sort indices, not the epochs: the epochs keep their order (by rank, as built), which is
     * the order the problem rules see and the one prev indexes. */
    uint32_t *idx = lens_malloc(ev->nlocks * sizeof *idx);
    if (!idx)
        return LENS_ENOMEM;
    for (size_t i = 0; i < ev->nlocks; i++)
        idx[i] = (uint32_t)i;
    sort_trace = t, sort_locks = ev->locks;
    qsort(idx, ev->nlocks, sizeof *idx, by_release);
    for (size_t i = 1; i < ev->nlocks; i++) {
        struct lens_lock_epoch *l = &ev->locks[idx[i]];
        /* Walk back through the same (window, target) only; the first conflicting epoch found
         * is the last released before this one, the one this epoch actually waited for. Shared-
         * shared pairs and the rank's own earlier epochs do not conflict. */
        for (size_t j = i; j-- > 0;) { /* latest earlier release that conflicts */
            const struct lens_lock_epoch *p = &ev->locks[idx[j]];
            if (p->win != l->win || p->target != l->target)
                break;
            if (p->rank == l->rank || !(p->exclusive || l->exclusive))
                continue;
            double rel = release_of(p);
            /* The waiting call is the one of this epoch running at the release (MPI may block
             * in Win_lock or defer to the first put or to Win_unlock); when none was, the epoch
             * did not wait and keeps prev = -1. */
            uint32_t w = call_at(t, l->rank, l->lock_call, l->unlock_call, rel);
            if (w != LENS_NONE) {
                l->prev = (int32_t)idx[j];
                l->wait_call = w;
            }
            break;
        }
    }
    lens_free(idx);
    return LENS_OK;
}

/* ---- one-sided: post/start/complete/wait ---- */

/* One exposure (post..wait) or access (start..complete) epoch of one rank. */
struct epoch {
    int32_t rank;
    uint32_t win, group;  /* group LENS_NONE: not recorded (our collector) */
    uint32_t open, close; /* calls */
};

/* Post..wait or start..complete epochs; the window and group come from a group-sync record
 * (Score-P) or from the window record of our collector's Enter attribute. */
/* An opening call without a window is skipped: its epoch cannot be paired. A closing call
 * without an open epoch (trace started inside one) is ignored; an epoch never closed keeps
 * close == open. */
static int collect_epochs(const struct lens_trace *t, const uint8_t *cls, int open_class,
                          int close_class, struct epoch **out, size_t *n)
{
    size_t cap = 0;
    for (int r = 0; r < t->nranks; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        size_t cur = SIZE_MAX;
        for (uint32_t c = 0; c < k->ncalls; c++) {
            int rc = class_of(t, cls, k->calls[c].region);
            if (rc == open_class) {
                uint32_t win = LENS_NONE, group = LENS_NONE;
                for (uint32_t i = k->calls[c].rec; i < k->calls[c].rec + k->calls[c].nrec; i++)
                    if (k->recs[i].kind == LENS_TREC_RMA_GROUP_SYNC)
                        win = k->recs[i].comm, group = k->recs[i].tag;
                    else if (k->recs[i].kind == LENS_TREC_RMA_WINDOW && win == LENS_NONE)
                        win = k->recs[i].comm;
                if (win == LENS_NONE)
                    continue;
                if (lens_reserve((void **)out, &cap, (size_t)(*n) + 1, sizeof **out))
                    return LENS_ENOMEM;
                cur = (*n)++;
                (*out)[cur] = (struct epoch){r, win, group, c, c};
            } else if (rc == close_class && cur != SIZE_MAX) {
                (*out)[cur].close = c;
                cur = SIZE_MAX;
            }
        }
    }
    return LENS_OK;
}

/* Stands for "every origin" in the exposure keys when the trace recorded no group; UINT32_MAX
 * itself is LENS_NONE, so the two never meet. */
#define ANY_ORIGIN (UINT32_MAX - 1)

/* The ranks of an epoch's group; without a group, the targets of an access epoch are those
 * of its puts and gets on the window (written into buf, at most max). */
static uint32_t epoch_ranks(const struct lens_trace *t, const struct epoch *x, int access,
                            int32_t *buf, uint32_t max)
{
    if (x->group != LENS_NONE) {
        const struct lens_trace_comm *g = x->group < t->ngroups ? &t->groups[x->group] : NULL;
        uint32_t n = 0;
        for (uint32_t m = 0; g && g->world && m < g->size && n < max; m++)
            buf[n++] = g->world[m];
        return n;
    }
    /* Without a group an exposure epoch cannot say who its origins are; it is paired by count
     * instead (ANY_ORIGIN in build_pscw). */
    if (!access)
        return 0;
    const struct lens_trace_rank *k = &t->ranks[x->rank];
    uint32_t n = 0;
    for (uint32_t c = x->open; c <= x->close; c++)
        for (uint32_t i = k->calls[c].rec; i < k->calls[c].rec + k->calls[c].nrec; i++) {
            const struct lens_trace_record *q = &k->recs[i];
            if ((q->kind != LENS_TREC_RMA_PUT && q->kind != LENS_TREC_RMA_GET) ||
                q->comm != x->win || q->peer < 0)
                continue;
            uint32_t j = 0;
            /* Distinct targets only, linear: an access epoch names a few neighbours. */
            while (j < n && buf[j] != q->peer)
                j++;
            if (j == n && n < max)
                buf[n++] = q->peer;
        }
    return n;
}

/* Pairs the k-th access epoch of origin o to target tg on a window with the k-th exposure epoch
 * of tg that includes o, which is how MPI matches them (each post matches one start of each
 * origin in its group, in order). Then Late Post and Early Wait (Scalasca) have what they need:
 * the origin's call blocked across the post, and the latest Win_complete of the exposure. */
static int build_pscw(struct lens_events *ev, const struct lens_trace *t, const uint8_t *cls)
{
    struct epoch *xs = NULL, *as = NULL;
    size_t nx = 0, na = 0, cap = 0;
    struct lens_keymap seq = {0}, pair = {0};
    /* A group or the targets of one epoch have at most nranks distinct ranks; + 1 keeps the
     * buffer non-empty for an empty trace. */
    int32_t *ranks = lens_malloc(((size_t)t->nranks + 1) * sizeof *ranks);
    int rc = ranks ? collect_epochs(t, cls, RC_POST, RC_WAIT, &xs, &nx) : LENS_ENOMEM;
    if (!rc)
        rc = collect_epochs(t, cls, RC_START, RC_COMPLETE, &as, &na);
    int added, found;
    /* exposure k of target tg for origin o is keyed (o, tg, win, k); without a recorded
     * group, (ANY_ORIGIN, tg, win, k) counts the target's exposures on the window */
    for (size_t i = 0; i < nx && !rc; i++) {
        uint32_t n = epoch_ranks(t, &xs[i], 0, ranks, (uint32_t)t->nranks);
        int any = xs[i].group == LENS_NONE;
        for (uint32_t m = 0; m < (any ? 1 : n) && !rc; m++) {
            struct lens_key sk = {{any ? ANY_ORIGIN : (uint32_t)ranks[m], (uint32_t)xs[i].rank,
                              xs[i].win, 1u << 31}};
            /* seq counts exposures per key: k is this exposure's sequence number, stored + 1
             * for the next. The high bit in w[3] keeps exposure counters apart from the access
             * counters below, which share the map. */
            int32_t k = lens_keymap_get(&seq, sk, 0, &added);
            if (k < 0 || lens_keymap_get(&pair, (struct lens_key){{sk.w[0], sk.w[1], sk.w[2], (uint32_t)k}},
                                 (int32_t)i, &added) < 0)
                rc = LENS_ENOMEM;
            else
                seq.vals[lens_keymap_slot(&seq, &sk, &found)] = k + 1;
        }
    }
    for (size_t i = 0; i < na && !rc; i++) {
        uint32_t n = epoch_ranks(t, &as[i], 1, ranks, (uint32_t)t->nranks);
        for (uint32_t m = 0; m < n && !rc; m++) {
            struct lens_key sk = {{(uint32_t)as[i].rank, (uint32_t)ranks[m], as[i].win, 0}};
            int32_t k = lens_keymap_get(&seq, sk, 0, &added);
            if (k < 0) {
                rc = LENS_ENOMEM;
                break;
            }
            seq.vals[lens_keymap_slot(&seq, &sk, &found)] = k + 1;
            /* No exposure recorded at all: nothing to pair with, but the access counters still
             * advance. */
            if (!pair.cap)
                continue;
            struct lens_key pk = {{sk.w[0], sk.w[1], sk.w[2], (uint32_t)k}};
            size_t j = lens_keymap_slot(&pair, &pk, &found);
            /* An exposure recorded without its group counts for any origin. */
            if (!found) {
                pk.w[0] = ANY_ORIGIN;
                j = lens_keymap_slot(&pair, &pk, &found);
            }
            if (!found)
                continue;
            const struct epoch *x = &xs[pair.vals[j]];
            double post = t->ranks[x->rank].calls[x->open].enter;
            if (lens_reserve((void **)&ev->pscw, &cap, (size_t)(ev->npscw) + 1, sizeof *ev->pscw)) {
                rc = LENS_ENOMEM;
                break;
            }
            /* The origin's call running at the post's enter is the one that blocked for it
             * (Win_start, a put or get, or Win_complete, depending on the MPI library);
             * LENS_NONE: nothing blocked. */
            uint32_t b = call_at(t, as[i].rank, as[i].open, as[i].close, post);
            ev->pscw[ev->npscw++] = (struct lens_pscw){as[i].rank, x->rank, as[i].win, as[i].open,
                                                       as[i].close, x->open, x->close, b, 0};
        }
    }
    /* the latest Win_complete among the origins of each exposure */
    /* Quadratic in access-exposure pairs, which are one per neighbour per epoch: small next to
     * the messages of a trace. */
    for (size_t i = 0; i < ev->npscw && !rc; i++) {
        struct lens_pscw *p = &ev->pscw[i];
        double last = -INFINITY;
        for (size_t j = 0; j < ev->npscw; j++) {
            const struct lens_pscw *q = &ev->pscw[j];
            if (q->target == p->target && q->post_call == p->post_call)
                last = fmax(last, t->ranks[q->origin].calls[q->complete_call].enter);
        }
        p->last_complete_enter = last;
    }
    lens_keymap_release(&seq);
    lens_keymap_release(&pair);
    lens_free(xs);
    lens_free(as);
    lens_free(ranks);
    return rc;
}

/* Called by lens_events_build after the clock fix, so epochs see corrected times. On failure
 * the caller frees ev, including the partial arrays built here. */
int lens_rmaepochs_build(struct lens_events *ev, const struct lens_trace *t)
{
    uint8_t *cls = region_classes(t);
    if (!cls)
        return LENS_ENOMEM;
    int rc = build_locks(ev, t);
    if (!rc)
        rc = build_pscw(ev, t, cls);
    lens_free(cls);
    return rc;
}
