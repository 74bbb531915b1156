/* Choosing the timeline's window (timeline.h) and walking what it holds: the calls of a rank
 * in a time range (calls on a rank are in time order and do not overlap, the outermost MPI
 * regions, so a binary search finds them), the problem instances and the messages. */
#include "timeline.h"

#include "timeline_int.h"

#include <math.h>
#include <string.h>

#define MIN_MARGIN 1e-3 /* seconds of context on each side of an instance, at least */

static int starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

/* The colour class of an MPI function by its name's prefix. */
int lens_timeline_class(const char *n)
{
    /* One-sided calls: window creation and synchronisation, and the remote accesses. */
    static const char *const rma[] = {"MPI_Win_", "MPI_Put", "MPI_Get", "MPI_Accumulate",
                                      "MPI_Raccumulate", "MPI_Rput", "MPI_Rget",
                                      "MPI_Fetch_and_op", "MPI_Compare_and_swap", NULL};
    /* Blocking and non-blocking collectives share a colour: both are the collective's time. */
    static const char *const coll[] = {
        "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Allgather",
        "MPI_Scatter", "MPI_Alltoall", "MPI_Scan", "MPI_Exscan", "MPI_Ibarrier", "MPI_Ibcast",
        "MPI_Ireduce", "MPI_Iallreduce", "MPI_Igather", "MPI_Iallgather", "MPI_Iscatter",
        "MPI_Ialltoall", "MPI_Iscan", "MPI_Iexscan", "MPI_Neighbor_", "MPI_Ineighbor_", NULL};
    /* Probes and persistent starts count as point-to-point: they belong to a message. */
    static const char *const p2p[] = {"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
                                      "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Issend",
                                      "MPI_Ibsend", "MPI_Irsend", "MPI_Probe", "MPI_Iprobe",
                                      "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv",
                                      "MPI_Start", NULL};
    /* Wait/Test first: their names would otherwise never match a longer family below, and the
     * colour tells completion waiting apart from the call that started the operation. */
    if (starts(n, "MPI_Wait") || starts(n, "MPI_Test"))
        return LENS_TL_WAIT;
    /* Prefixes, so that every variant (MPI_Win_lock_all, MPI_Neighbor_alltoallv ...) falls in
     * its family without a list of every function. */
    for (int i = 0; rma[i]; i++)
        if (starts(n, rma[i]))
            return LENS_TL_RMA;
    /* Checked in this order: RMA, then collectives, then point-to-point; the first match wins. */
    for (int i = 0; coll[i]; i++)
        if (starts(n, coll[i]))
            return LENS_TL_COLL;
    for (int i = 0; p2p[i]; i++)
        if (starts(n, p2p[i]))
            return LENS_TL_P2P;
    /* Init, Finalize, communicator and datatype calls: grey. */
    return LENS_TL_OTHER;
}

/* ---- where things are in time ---- */

const char *lens_timeline_problem_name(const struct lens_problem_result *r, int lang)
{
    /* A rule without a Russian name shows its English one rather than nothing. */
    return lang == 1 && r->rule->text[1][0] ? r->rule->text[1][0] : r->rule->text[0][0];
}

/* First call of rank k ending at or after t0 (calls do not overlap, so leaves are sorted). */
uint32_t lens_timeline_first_call(const struct lens_trace_rank *k, double t0)
{
    uint32_t lo = 0, hi = k->ncalls;
    while (lo < hi) {
        /* Overflow-safe midpoint: lo + hi could wrap for very long ranks. */
        uint32_t mid = lo + (hi - lo) / 2;
        /* First call whose leave is at or after t0: earlier calls end before the window. */
        if (k->calls[mid].leave < t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One past the last call of rank k entered at or before t1. */
uint32_t lens_timeline_end_call(const struct lens_trace_rank *k, double t1)
{
    uint32_t lo = 0, hi = k->ncalls;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        /* Calls entered after t1 start past the window. */
        if (k->calls[mid].enter <= t1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The wasted span of a top instance (no charges kept): for rules declared with waits =
 * "until_leave" (completion problems: time after the first process could leave) it ends
 * with the call, for every other rule it starts at the call's enter. */
static void charge_span(const struct lens_trace *t, const struct lens_problem_result *r,
                        int32_t rank, uint32_t call, double sec, double *a, double *b)
{
    const struct lens_trace_call *c = &t->ranks[rank].calls[call];
    /* Completion problems: the waste is the tail of the call. */
    if (r->rule->waits_until_leave) {
        *a = c->leave - sec;
        *b = c->leave;
    /* Every other problem: the waste starts when the call is entered. */
    } else {
        *a = c->enter;
        *b = c->enter + sec;
    }
}

/* The span of a kept charge: where detection put it (charge_once in analysis/trace/problems.c).
 * A problem that keeps only what an earlier one left of a shared wait starts at
 * enter + start, not at the enter, so the two are drawn side by side, not on top of each
 * other (docs/methods.md, "Each wait charged once"). */
static void kept_span(const struct lens_trace *t, int32_t rank, const struct lens_problem_charge *m,
                      double *a, double *b)
{
    const struct lens_trace_call *c = &t->ranks[rank].calls[m->call];
    *a = c->enter + m->start;
    *b = *a + m->seconds;
}

/* The call of a top instance (matched by its enter time); LENS_NONE when not found. */
static uint32_t top_call(const struct lens_trace *t, const struct lens_problem_instance *x)
{
    /* A top instance from another trace (or a corrupt one) must not index past the ranks. */
    if (x->rank < 0 || x->rank >= t->nranks)
        return LENS_NONE;
    const struct lens_trace_rank *k = &t->ranks[x->rank];
    /* Binary search for the first call entered at or after the instance's time. */
    uint32_t lo = 0, hi = k->ncalls;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k->calls[mid].enter < x->time)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Matched by the exact enter time the detector copied from this very call. */
    return lo < k->ncalls && k->calls[lo].enter == x->time ? lo : LENS_NONE;
}

/* The span of the whole trace over all ranks: the bounds any window must keep to. */
static void trace_range(const struct lens_trace *t, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int r = 0; r < t->nranks; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        /* Ranks that made no MPI call do not stretch the range. */
        if (!k->ncalls)
            continue;
        /* A rank's life may start before its first MPI call (t_first): the window may show it. */
        *lo = fmin(*lo, fmin(k->t_first, k->calls[0].enter));
        *hi = fmax(*hi, fmax(k->t_last, k->calls[k->ncalls - 1].leave));
    }
}

/* Two binary searches per lane: counting is cheap enough to narrow the window repeatedly. */
static size_t count_calls(const struct lens_trace *t, const struct lens_timeline_window *w)
{
    size_t n = 0;
    for (int r = w->lane0; r < w->lane0 + w->nlanes; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        uint32_t a = lens_timeline_first_call(k, w->t0), b = lens_timeline_end_call(k, w->t1);
        /* A lane with no call in the window adds nothing (b <= a). */
        n += b > a ? b - a : 0;
    }
    return n;
}

/* Every problem instance on a drawn lane that overlaps the window, with its wasted span. */
void lens_timeline_each_instance(const struct lens_trace_analysis *s, const struct lens_timeline_window *w,
                          lens_timeline_instance_fn f, void *ctx)
{
    const struct lens_trace *t = s->trace;
    for (int i = 0; s->problems && i < s->problems->nres; i++) {
        const struct lens_problem_result *r = &s->problems->res[i];
        double a, b;
        /* Problems that never occurred have no instances to walk. */
        if (r->total_s <= 0)
            continue;
        /* Without charges (problems found without LENS_PROBLEMS_KEEP_CHARGES) only the top instances
         * are known: those are drawn, the rest of the problem stays invisible. */
        if (!r->charges) {
            for (int k = 0; k < r->ntop; k++) {
                uint32_t c = top_call(t, &r->top[k]);
                int32_t rank = r->top[k].rank;
                /* Top instances outside the drawn lanes, or not found in this trace, are skipped. */
                if (c == LENS_NONE || rank < w->lane0 || rank >= w->lane0 + w->nlanes)
                    continue;
                charge_span(t, r, rank, c, r->top[k].seconds, &a, &b);
                /* Only instances whose span meets the window. */
                if (b >= w->t0 && a <= w->t1)
                    f(ctx, r, rank, c, a, b);
            }
            continue;
        }
        /* With charges: every charged call of every drawn lane inside the window, in call order. */
        for (int32_t rank = w->lane0; rank < w->lane0 + w->nlanes; rank++) {
            const struct lens_trace_rank *k = &t->ranks[rank];
            uint32_t c0 = lens_timeline_first_call(k, w->t0), c1 = lens_timeline_end_call(k, w->t1);
            /* lower bound of (rank, c0) in charges ordered by rank then call */
            /* Charges are sorted by rank, then call: a binary search finds the first in the window, and
             * the walk stops at the first past it. */
            size_t lo = 0, hi = r->ncharges;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const struct lens_problem_charge *m = &r->charges[mid];
                if (m->rank < rank || (m->rank == rank && m->call < c0))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            /* The walk ends at the first charge of another rank or past the window's last call. */
            for (; lo < r->ncharges && r->charges[lo].rank == rank && r->charges[lo].call < c1;
                 lo++) {
                const struct lens_problem_charge *m = &r->charges[lo];
                kept_span(t, rank, m, &a, &b);
                f(ctx, r, rank, m->call, a, b);
            }
        }
    }
}

static void count_instance(void *ctx, const struct lens_problem_result *r, int32_t rank,
                           uint32_t call, double a, double b)
{
    (void)r, (void)rank, (void)call, (void)a, (void)b;
    /* Counting needs nothing but the call: the subtitle's number of instances. */
    ++*(size_t *)ctx;
}

/* The messages between drawn lanes whose line crosses the window, at most max of them drawn. */
size_t lens_timeline_each_message(const struct lens_trace_analysis *s, const struct lens_timeline_window *w,
                           lens_timeline_message_fn f, void *ctx, size_t max)
{
    size_t n = 0;
    const struct lens_trace *t = s->trace;
    for (size_t i = 0; s->events && i < s->events->np2p; i++) {
        const struct lens_p2p *m = &s->events->p2p[i];
        /* Both ends must be drawn lanes: a line into an undrawn lane would end nowhere. */
        if (m->src < w->lane0 || m->src >= w->lane0 + w->nlanes || m->dst < w->lane0 ||
            m->dst >= w->lane0 + w->nlanes)
            continue;
        /* From the send's enter to the receive's completion (recv_done: the Wait of an Irecv):
         * the span in which the data could have moved. */
        double ts = t->ranks[m->src].calls[m->send_call].enter;
        double tr = t->ranks[m->dst].calls[m->recv_done].leave;
        if (ts > w->t1 || tr < w->t0)
            continue;
        /* Counted whether drawn or not: the subtitle says how many were left out. */
        if (f && n < max)
            f(ctx, m, ts, tr);
        n++;
    }
    return n;
}

/* ---- choosing the window ---- */

struct worst_in { /* the largest instance seen by each_instance */
    const struct lens_problem_result *r;
    int32_t rank;
    uint32_t call;
    double a, b;
};

static void worst_instance(void *ctx, const struct lens_problem_result *r, int32_t rank,
                           uint32_t call, double a, double b)
{
    struct worst_in *x = ctx;
    /* Ties keep the first: the walk is in problem, rank, call order, so the choice is stable. */
    if (!x->r || b - a > x->b - x->a)
        *x = (struct worst_in){r, rank, call, a, b};
}

/* The worst instance of result r (its largest top instance): rank, call, span. */
static int worst_of(const struct lens_trace *t, const struct lens_problem_result *r,
                    int32_t *rank, uint32_t *call, double *sec)
{
    /* the top list is sorted largest first: the first one found in the trace is the worst */
    for (int k = 0; k < r->ntop; k++) {
        uint32_t c = top_call(t, &r->top[k]);
        if (c != LENS_NONE) {
            *rank = r->top[k].rank, *call = c, *sec = r->top[k].seconds;
            return 1;
        }
    }
    return 0;
}

static void choose_lanes(const struct lens_trace *t, const struct lens_timeline_opts *o,
                         int32_t centre, struct lens_timeline_window *w)
{
    /* 64 lanes by default: more would be thinner than a line of text at the default height. */
    int max = o->max_lanes > 0 ? o->max_lanes : 64;
    w->lane0 = 0;
    w->nlanes = t->nranks;
    /* Too many ranks: a block of max lanes around the centred rank, kept inside the trace. */
    if (t->nranks > max) {
        /* The block around the centred rank (rank 0 without an instance), kept inside the trace. */
        int c = centre >= 0 ? centre : 0;
        w->lane0 = c - max / 2;
        if (w->lane0 < 0)
            w->lane0 = 0;
        if (w->lane0 + max > t->nranks)
            w->lane0 = t->nranks - max;
        w->nlanes = max;
    }
}

/* Instance first (it decides the lanes and the window), then the window, then what the
 * window holds, which the subtitle reports. */
int lens_timeline_select(const struct lens_trace_analysis *s, const struct lens_timeline_opts *o,
                         struct lens_timeline_window *w, struct lens_err *e)
{
    const struct lens_trace *t = s->trace;
    memset(w, 0, sizeof *w);
    /* No instance yet: -1 for the problem and the rank until one is found. */
    w->problem = -1;
    w->rank = -1;
    double lo, hi;
    trace_range(t, &lo, &hi);
    /* No rank has a call: lo stayed +inf. */
    if (!(lo <= hi))
        return lens_err_set(e, LENS_EINVAL, "timeline: the trace holds no MPI call");
    const struct lens_problems *p = s->problems;
    int want = -1;
    if (o->problem) {
        for (int i = 0; p && i < p->nres && want < 0; i++)
            if (!strcmp(p->res[i].rule->id, o->problem))
                want = i;
        if (want < 0)
            return lens_err_set(e, LENS_EINVAL, "timeline: unknown problem '%s'", o->problem);
        /* A problem that never occurred has no instance to centre on: say so rather than show a
         * random window. */
        if (p->res[want].total_s <= 0)
            return lens_err_set(e, LENS_EINVAL, "timeline: problem '%s' has no instance in the "
                                "trace", o->problem);
    }
    /* the worst instance: of the wanted problem, else the largest over all problems */
    int32_t rank = -1;
    uint32_t call = 0;
    double sec = -1;
    for (int i = 0; p && i < p->nres; i++) {
        int32_t r1;
        uint32_t c1;
        double s1;
        if ((want < 0 || i == want) && p->res[i].total_s > 0 && worst_of(t, &p->res[i], &r1, &c1,
                                                                         &s1) && s1 > sec) {
            rank = r1, call = c1, sec = s1;
            w->problem = i;
        }
    }
    if (rank >= 0) {
        w->rank = rank;
        w->call = call;
        charge_span(t, &p->res[w->problem], rank, call, sec, &w->time, &w->seconds);
        /* The span from charge_span is used for its start; the length is the instance's own. */
        w->seconds = sec;
    }
    choose_lanes(t, o, rank, w);
    /* a window given by the user is checked against the trace, not clipped silently */
    if (o->t1 > o->t0) {
        if (o->t1 < lo || o->t0 > hi)
            return lens_err_set(e, LENS_EINVAL, "timeline: window %.6f-%.6f s lies outside the "
                                "trace (%.6f-%.6f s)", o->t0, o->t1, lo, hi);
        w->t0 = o->t0;
        w->t1 = o->t1;
    } else if (o->t0 != 0 || o->t1 != 0) {
        return lens_err_set(e, LENS_EINVAL, "timeline: window end %.6f s is not after its start "
                            "%.6f s", o->t1, o->t0);
    } else if (rank < 0) {
        w->t0 = lo;
        /* No instance anywhere: the first second of the trace. */
        w->t1 = fmin(hi, lo + 1.0);
    } else {
        /* the charged call with its own length of context on each side, narrowed towards
         * the call while the window would hold more than max_calls calls */
        const struct lens_trace_call *c = &t->ranks[rank].calls[call];
        double len = c->leave - c->enter, margin = fmax(1.5 * len, MIN_MARGIN);
        size_t max = o->max_calls ? o->max_calls : 4000;
        /* Halving the margin 40 times reaches a millionth of it: the loop always ends, with at
         * least the call itself in view. */
        for (int k = 0; k < 40; k++) {
            w->t0 = fmax(lo, c->enter - margin);
            w->t1 = fmin(hi, c->leave + margin);
            if (count_calls(t, w) <= max)
                break;
            margin *= 0.5;
        }
        if (w->t1 <= w->t0) /* a zero-length call in a zero-length trace */
            w->t1 = w->t0 + MIN_MARGIN;
    }
    if (o->t1 > o->t0) { /* an explicit window: its own worst instance, if any */
        struct worst_in x = {0};
        lens_timeline_each_instance(s, w, worst_instance, &x);
        w->problem = x.r ? (int)(x.r - p->res) : -1;
        w->rank = x.r ? x.rank : -1;
        w->call = x.call;
        w->time = x.a;
        w->seconds = x.b - x.a;
    }
    w->ncalls = count_calls(t, w);
    w->nmessages_all = lens_timeline_each_message(s, w, NULL, NULL, 0);
    size_t maxm = o->max_messages ? o->max_messages : 2000;
    w->nmessages = w->nmessages_all < maxm ? w->nmessages_all : maxm;
    lens_timeline_each_instance(s, w, count_instance, &w->ninstances);
    return LENS_OK;
}
