/* Timeline of a trace window (timeline.h): choosing the window around the worst problem
 * instance, then drawing lanes, MPI calls by class, messages and the problem instances.
 * Calls on a rank are in time order and do not overlap (outermost MPI regions), so the calls
 * of a window are found by binary search and drawing costs what the window holds. */
#include "timeline.h"

#include "figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MIN_MARGIN 1e-3   /* seconds of context on each side of an instance, at least */
#define MAXLAB 32         /* problem labels per lane */

enum { C_P2P, C_COLL, C_RMA, C_WAIT, C_OTHER, NCLASS };

/* Colours (colour-blind safe, after Okabe-Ito), computation, lane band, problems, messages. */
static const double class_rgb[NCLASS][3] = {
    {0.000, 0.447, 0.698}, /* point-to-point: blue */
    {0.835, 0.369, 0.000}, /* collective: vermilion */
    {0.000, 0.620, 0.451}, /* one-sided: bluish green */
    {0.800, 0.475, 0.655}, /* wait/test: reddish purple */
    {0.550, 0.550, 0.550}  /* other MPI: grey */
};
static const double comp_rgb[3] = {0.835, 0.859, 0.886};  /* computation */
static const double band_rgb[3] = {0.965, 0.969, 0.976};  /* lane band (one per lane) */
static const double prob_rgb[3] = {0.800, 0.000, 0.100};  /* problem instances */
static const double msg_rgb[3] = {0.080, 0.080, 0.080};   /* message lines */

/* The figure's own words in English and Russian (lens_timeline_opts.lang). */
enum { S_COMP, S_P2P, S_COLL, S_RMA, S_WAIT, S_OTHER, S_MSG, S_PROB, S_AXIS, S_TITLE, S_PLAIN,
       S_SUB, S_PARTIAL, S_RANK, NSTR };
static const char *const words[2][NSTR] = {
    {"computation", "point-to-point", "collective", "one-sided", "wait/test", "other MPI",
     "message", "problem instance",
     "time since the window start [ms]; the window starts %.3f ms into the trace",
     "%s on rank %d: %s lost in %s at %.3f ms", "Timeline of %d rank(s)",
     "window of %s; ranks %d-%d of %d; %zu MPI calls, %zu messages%s, %zu problem instances",
     " (not all drawn)", "rank %d"},
    {"вычисления", "точка-точка", "коллективные", "односторонние", "ожидание/проверка",
     "прочие MPI", "сообщение", "случай проблемы",
     "время от начала окна [мс]; окно начинается через %.3f мс от начала трассы",
     "%s, процесс %d: потеряно %s в %s на %.3f мс", "Временная диаграмма, процессов: %d",
     "окно %s; процессы %d-%d из %d; вызовов MPI %zu, сообщений %zu%s, случаев проблем %zu",
     " (нарисованы не все)", "процесс %d"}};

static const char *word(const struct lens_timeline_opts *o, int k)
{
    return words[o->lang == 1][k];
}

void lens_timeline_opts_init(struct lens_timeline_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_calls = 4000;
    o->max_messages = 2000;
    o->max_lanes = 64;
}

/* "24.00 ms", "10.99 s": seconds for people. */
static void duration(double sec, char *buf, size_t n)
{
    if (sec >= 1)
        snprintf(buf, n, "%.2f s", sec);
    else
        lens_format_duration(sec, buf, n);
}

static int starts(const char *s, const char *prefix)
{
    return !strncmp(s, prefix, strlen(prefix));
}

int lens_timeline_class(const char *n)
{
    static const char *const rma[] = {"MPI_Win_", "MPI_Put", "MPI_Get", "MPI_Accumulate",
                                      "MPI_Raccumulate", "MPI_Rput", "MPI_Rget",
                                      "MPI_Fetch_and_op", "MPI_Compare_and_swap", NULL};
    static const char *const coll[] = {
        "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Gather", "MPI_Allgather",
        "MPI_Scatter", "MPI_Alltoall", "MPI_Scan", "MPI_Exscan", "MPI_Ibarrier", "MPI_Ibcast",
        "MPI_Ireduce", "MPI_Iallreduce", "MPI_Igather", "MPI_Iallgather", "MPI_Iscatter",
        "MPI_Ialltoall", "MPI_Iscan", "MPI_Iexscan", "MPI_Neighbor_", "MPI_Ineighbor_", NULL};
    static const char *const p2p[] = {"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv",
                                      "MPI_Ssend", "MPI_Bsend", "MPI_Rsend", "MPI_Issend",
                                      "MPI_Ibsend", "MPI_Irsend", "MPI_Probe", "MPI_Iprobe",
                                      "MPI_Mprobe", "MPI_Improbe", "MPI_Mrecv", "MPI_Imrecv",
                                      "MPI_Start", NULL};
    if (starts(n, "MPI_Wait") || starts(n, "MPI_Test"))
        return C_WAIT;
    for (int i = 0; rma[i]; i++)
        if (starts(n, rma[i]))
            return C_RMA;
    for (int i = 0; coll[i]; i++)
        if (starts(n, coll[i]))
            return C_COLL;
    for (int i = 0; p2p[i]; i++)
        if (starts(n, p2p[i]))
            return C_P2P;
    return C_OTHER;
}

/* ---- where things are in time ---- */

static const char *problem_name(const struct lens_problem_result *r, int lang)
{
    return lang == 1 && r->rule->text[1][0] ? r->rule->text[1][0] : r->rule->text[0][0];
}

/* First call of rank k ending at or after t0 (calls do not overlap, so leaves are sorted). */
static uint32_t first_call(const struct lens_trace_rank *k, double t0)
{
    uint32_t lo = 0, hi = k->ncalls;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k->calls[mid].leave < t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* One past the last call of rank k entered at or before t1. */
static uint32_t end_call(const struct lens_trace_rank *k, double t1)
{
    uint32_t lo = 0, hi = k->ncalls;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k->calls[mid].enter <= t1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The wasted span of a charged call: completion problems end with the call (time after the
 * first process could leave), every other rule waits from the call's enter. */
static void charge_span(const struct lens_trace *t, const struct lens_problem_result *r,
                        int32_t rank, uint32_t call, double sec, double *a, double *b)
{
    const struct lens_trace_call *c = &t->ranks[rank].calls[call];
    size_t n = strlen(r->rule->id);
    if (n >= 11 && !strcmp(r->rule->id + n - 11, "_completion")) {
        *a = c->leave - sec;
        *b = c->leave;
    } else {
        *a = c->enter;
        *b = c->enter + sec;
    }
}

/* The call of a top instance (matched by its enter time); LENS_NONE when not found. */
static uint32_t top_call(const struct lens_trace *t, const struct lens_problem_instance *x)
{
    if (x->rank < 0 || x->rank >= t->nranks)
        return LENS_NONE;
    const struct lens_trace_rank *k = &t->ranks[x->rank];
    uint32_t lo = 0, hi = k->ncalls;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k->calls[mid].enter < x->time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->ncalls && k->calls[lo].enter == x->time ? lo : LENS_NONE;
}

static void trace_range(const struct lens_trace *t, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int r = 0; r < t->nranks; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        if (!k->ncalls)
            continue;
        *lo = fmin(*lo, fmin(k->t_first, k->calls[0].enter));
        *hi = fmax(*hi, fmax(k->t_last, k->calls[k->ncalls - 1].leave));
    }
}

static size_t count_calls(const struct lens_trace *t, const struct lens_timeline_window *w)
{
    size_t n = 0;
    for (int r = w->lane0; r < w->lane0 + w->nlanes; r++) {
        const struct lens_trace_rank *k = &t->ranks[r];
        uint32_t a = first_call(k, w->t0), b = end_call(k, w->t1);
        n += b > a ? b - a : 0;
    }
    return n;
}

/* Calls f(ctx, result, rank, call, seconds, span a, span b) for every instance of a drawn rank
 * overlapping the window; from the kept charges when there are, else the top instances. */
typedef void (*instance_fn)(void *ctx, const struct lens_problem_result *r, int32_t rank,
                            uint32_t call, double a, double b);

static void each_instance(const struct lens_timeline_src *s, const struct lens_timeline_window *w,
                          instance_fn f, void *ctx)
{
    const struct lens_trace *t = s->t;
    for (int i = 0; s->p && i < s->p->nres; i++) {
        const struct lens_problem_result *r = &s->p->res[i];
        double a, b;
        if (r->total_s <= 0)
            continue;
        if (!r->charges) {
            for (int k = 0; k < r->ntop; k++) {
                uint32_t c = top_call(t, &r->top[k]);
                int32_t rank = r->top[k].rank;
                if (c == LENS_NONE || rank < w->lane0 || rank >= w->lane0 + w->nlanes)
                    continue;
                charge_span(t, r, rank, c, r->top[k].seconds, &a, &b);
                if (b >= w->t0 && a <= w->t1)
                    f(ctx, r, rank, c, a, b);
            }
            continue;
        }
        for (int32_t rank = w->lane0; rank < w->lane0 + w->nlanes; rank++) {
            const struct lens_trace_rank *k = &t->ranks[rank];
            uint32_t c0 = first_call(k, w->t0), c1 = end_call(k, w->t1);
            /* lower bound of (rank, c0) in charges ordered by rank then call */
            size_t lo = 0, hi = r->ncharges;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                const struct lens_problem_charge *m = &r->charges[mid];
                if (m->rank < rank || (m->rank == rank && m->call < c0))
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (; lo < r->ncharges && r->charges[lo].rank == rank && r->charges[lo].call < c1;
                 lo++) {
                const struct lens_problem_charge *m = &r->charges[lo];
                charge_span(t, r, rank, m->call, m->seconds, &a, &b);
                f(ctx, r, rank, m->call, a, b);
            }
        }
    }
}

static void count_instance(void *ctx, const struct lens_problem_result *r, int32_t rank,
                           uint32_t call, double a, double b)
{
    (void)r, (void)rank, (void)call, (void)a, (void)b;
    ++*(size_t *)ctx;
}

/* Messages between drawn ranks whose line (send enter to receive leave) crosses the window:
 * calls f for each (NULL to count only); returns how many. */
typedef void (*message_fn)(void *ctx, const struct lens_p2p *m, double ts, double tr);

static size_t each_message(const struct lens_timeline_src *s, const struct lens_timeline_window *w,
                           message_fn f, void *ctx, size_t max)
{
    size_t n = 0;
    const struct lens_trace *t = s->t;
    for (size_t i = 0; s->ev && i < s->ev->np2p; i++) {
        const struct lens_p2p *m = &s->ev->p2p[i];
        if (m->src < w->lane0 || m->src >= w->lane0 + w->nlanes || m->dst < w->lane0 ||
            m->dst >= w->lane0 + w->nlanes)
            continue;
        double ts = t->ranks[m->src].calls[m->send_call].enter;
        double tr = t->ranks[m->dst].calls[m->recv_done].leave;
        if (ts > w->t1 || tr < w->t0)
            continue;
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
    if (!x->r || b - a > x->b - x->a)
        *x = (struct worst_in){r, rank, call, a, b};
}

/* The worst instance of result r (its largest top instance): rank, call, span. */
static int worst_of(const struct lens_trace *t, const struct lens_problem_result *r,
                    int32_t *rank, uint32_t *call, double *sec)
{
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
    int max = o->max_lanes > 0 ? o->max_lanes : 64;
    w->lane0 = 0;
    w->nlanes = t->nranks;
    if (t->nranks > max) {
        int c = centre >= 0 ? centre : 0;
        w->lane0 = c - max / 2;
        if (w->lane0 < 0)
            w->lane0 = 0;
        if (w->lane0 + max > t->nranks)
            w->lane0 = t->nranks - max;
        w->nlanes = max;
    }
}

int lens_timeline_select(const struct lens_timeline_src *s, const struct lens_timeline_opts *o,
                         struct lens_timeline_window *w, struct lens_err *e)
{
    const struct lens_trace *t = s->t;
    memset(w, 0, sizeof *w);
    w->problem = -1;
    w->rank = -1;
    double lo, hi;
    trace_range(t, &lo, &hi);
    if (!(lo <= hi))
        return lens_err_set(e, LENS_EINVAL, "timeline: the trace holds no MPI call");
    const struct lens_problems *p = s->p;
    int want = -1;
    if (o->problem) {
        for (int i = 0; p && i < p->nres && want < 0; i++)
            if (!strcmp(p->res[i].rule->id, o->problem))
                want = i;
        if (want < 0)
            return lens_err_set(e, LENS_EINVAL, "timeline: unknown problem '%s'", o->problem);
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
        w->seconds = sec;
    }
    choose_lanes(t, o, rank, w);
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
        w->t1 = fmin(hi, lo + 1.0);
    } else {
        /* the charged call with its own length of context on each side, narrowed towards
         * the call while the window would hold more than max_calls calls */
        const struct lens_trace_call *c = &t->ranks[rank].calls[call];
        double len = c->leave - c->enter, margin = fmax(1.5 * len, MIN_MARGIN);
        size_t max = o->max_calls ? o->max_calls : 4000;
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
        each_instance(s, w, worst_instance, &x);
        w->problem = x.r ? (int)(x.r - p->res) : -1;
        w->rank = x.r ? x.rank : -1;
        w->call = x.call;
        w->time = x.a;
        w->seconds = x.b - x.a;
    }
    w->ncalls = count_calls(t, w);
    w->nmessages_all = each_message(s, w, NULL, NULL, 0);
    size_t maxm = o->max_messages ? o->max_messages : 2000;
    w->nmessages = w->nmessages_all < maxm ? w->nmessages_all : maxm;
    each_instance(s, w, count_instance, &w->ninstances);
    return LENS_OK;
}

/* ---- drawing ---- */

struct layout {
    const struct lens_timeline_src *s;
    const struct lens_timeline_opts *o;
    const struct lens_timeline_window *w;
    cairo_t *cr;
    double px, py, pw, ph; /* plot area */
    double lh;             /* lane height */
    double fs;             /* base font size */
    double *labels;        /* per lane: MAXLAB placed label intervals [x0, x1] */
    int *nlabels;          /* per lane: how many */
    double *marks;         /* per lane: pixel column of the last narrow instance mark */
    int pass;              /* instances: 0 shading and centred label, 1 other labels */
};

static double xof(const struct layout *L, double t)
{
    return L->px + (t - L->w->t0) / (L->w->t1 - L->w->t0) * L->pw;
}

static double lane_y(const struct layout *L, int32_t rank)
{
    return L->py + (rank - L->w->lane0) * L->lh;
}

/* The bar of the calls inside a lane: [y + top, y + top + height). */
static void bar_box(const struct layout *L, int32_t rank, double *y, double *h)
{
    double gap = L->lh > 14 ? 0.30 * L->lh : 0.12 * L->lh;
    *y = lane_y(L, rank) + gap;
    *h = L->lh - gap - (L->lh > 14 ? 0.10 * L->lh : 0.08 * L->lh);
}

static void set_rgb(cairo_t *cr, const double *c) { cairo_set_source_rgb(cr, c[0], c[1], c[2]); }

static void fill_rect(cairo_t *cr, double x0, double x1, double y, double h)
{
    if (x1 - x0 < 0.6) { /* keep very short calls visible */
        double m = 0.5 * (x0 + x1);
        x0 = m - 0.3, x1 = m + 0.3;
    }
    cairo_rectangle(cr, x0, y, x1 - x0, h);
    cairo_fill(cr);
}

/* Draws a run of merged calls in the class that took the most of it. */
static void flush_run(cairo_t *cr, double x0, double x1, const double *best, double y, double h)
{
    int m = 0;
    for (int j = 1; j < NCLASS; j++)
        if (best[j] > best[m])
            m = j;
    set_rgb(cr, class_rgb[m]);
    fill_rect(cr, x0, x1, y, h);
}

/* The band of a lane (exactly one rectangle of band_rgb per lane: the tests count them). */
static void draw_band(const struct layout *L, int32_t rank)
{
    set_rgb(L->cr, band_rgb);
    cairo_rectangle(L->cr, L->px, lane_y(L, rank) + 1, L->pw, L->lh - 2);
    cairo_fill(L->cr);
}

/* One lane: computation where the rank lives, then its calls, merging runs of calls shorter
 * than a pixel into one box of the class that took the most time in the run. */
static void draw_lane(const struct layout *L, int32_t rank, const unsigned char *cls)
{
    cairo_t *cr = L->cr;
    const struct lens_trace_rank *k = &L->s->t->ranks[rank];
    double by, bh;
    bar_box(L, rank, &by, &bh);
    if (!k->ncalls)
        return;
    double a = fmax(L->w->t0, fmin(k->t_first, k->calls[0].enter));
    double b = fmin(L->w->t1, fmax(k->t_last, k->calls[k->ncalls - 1].leave));
    if (b > a) {
        set_rgb(cr, comp_rgb);
        fill_rect(cr, xof(L, a), xof(L, b), by, bh);
    }
    uint32_t c0 = first_call(k, L->w->t0), c1 = end_call(k, L->w->t1);
    double run0 = 0, run1 = 0, best[NCLASS];
    int have = 0; /* a run of sub-pixel calls is pending */
    for (uint32_t i = c0; i < c1; i++) {
        const struct lens_trace_call *q = &k->calls[i];
        double x0 = xof(L, fmax(q->enter, L->w->t0)), x1 = xof(L, fmin(q->leave, L->w->t1));
        int c = q->region < L->s->t->nregions ? cls[q->region] : C_OTHER, tiny = x1 - x0 < 1;
        if (have && tiny && x0 - run1 < 1) {
            run1 = fmax(run1, x1);
            best[c] += x1 - x0 + 1e-9;
            continue;
        }
        if (have)
            flush_run(cr, run0, run1, best, by, bh);
        have = tiny;
        if (tiny) {
            memset(best, 0, sizeof best);
            best[c] = x1 - x0 + 1e-9;
            run0 = x0, run1 = x1;
        } else {
            set_rgb(cr, class_rgb[c]);
            fill_rect(cr, x0, x1, by, bh);
        }
    }
    if (have)
        flush_run(cr, run0, run1, best, by, bh);
}

/* Diagonal hatching over [x0, x1] x [y, y + h]. */
static void hatch(cairo_t *cr, double x0, double x1, double y, double h)
{
    cairo_save(cr);
    cairo_rectangle(cr, x0, y, x1 - x0, h);
    cairo_clip(cr);
    cairo_set_line_width(cr, 1.2);
    cairo_set_source_rgba(cr, prob_rgb[0], prob_rgb[1], prob_rgb[2], 0.75);
    for (double x = x0 - h; x < x1; x += 6) {
        cairo_move_to(cr, x, y + h);
        cairo_line_to(cr, x + h, y);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
}

static int is_centred(const struct layout *L, const struct lens_problem_result *r, int32_t rank,
                      uint32_t call)
{
    return rank == L->w->rank && call == L->w->call && L->w->problem >= 0 &&
           r == &L->s->p->res[L->w->problem];
}

/* Pass 0 draws the shading of every instance and the label of the centred one, pass 1 the
 * labels that fit beside those already drawn (one label band per lane, left to right). */
static void draw_instance(void *ctx, const struct lens_problem_result *r, int32_t rank,
                          uint32_t call, double a, double b)
{
    const struct layout *L = ctx;
    cairo_t *cr = L->cr;
    int centred = is_centred(L, r, rank, call);
    double x0 = xof(L, fmax(a, L->w->t0)), x1 = xof(L, fmin(b, L->w->t1));
    double by, bh, th = centred ? 3.5 : 2.0;
    bar_box(L, rank, &by, &bh);
    if (x1 - x0 < 2 && !centred) {
        /* a narrow instance is a solid mark; one per pixel column and lane is enough */
        double *last = &L->marks[rank - L->w->lane0];
        if (L->pass == 1 || floor(x0) == *last)
            return;
        *last = floor(x0);
        set_rgb(cr, prob_rgb);
        cairo_rectangle(cr, floor(x0), by - th, 1.5, bh + th);
        cairo_fill(cr);
        return;
    }
    if (x1 - x0 < 1.5) {
        double m = 0.5 * (x0 + x1);
        x0 = m - 0.75, x1 = m + 0.75;
    }
    if (L->pass == 0) {
        cairo_set_source_rgba(cr, 1, 1, 1, 0.35); /* lighten what is below, then hatch */
        cairo_rectangle(cr, x0, by, x1 - x0, bh);
        cairo_fill(cr);
        hatch(cr, x0, x1, by, bh);
        set_rgb(cr, prob_rgb); /* a bracket above the bar, thicker for the centred instance */
        cairo_rectangle(cr, x0, by - th, x1 - x0, th);
        cairo_fill(cr);
    }
    if (L->lh < 16 || (L->pass == 0) != centred || (!centred && x1 - x0 < 3))
        return;
    char label[160], dur[32];
    duration(b - a, dur, sizeof dur);
    snprintf(label, sizeof label, "%s %s", problem_name(r, L->o->lang), dur);
    cairo_set_font_size(cr, 0.85 * L->fs);
    double tw = lens_figure_text_width(cr, label), lx = fmax(x0, L->px + 2);
    if (lx + tw > L->px + L->pw - 2)
        lx = L->px + L->pw - 2 - tw;
    double *lab = &L->labels[2 * MAXLAB * (rank - L->w->lane0)];
    int *n = &L->nlabels[rank - L->w->lane0];
    for (int i = 0; i < *n; i++)
        if (lx < lab[2 * i + 1] + 8 && lx + tw > lab[2 * i] - 8)
            return;
    if (*n == MAXLAB)
        return;
    lab[2 * *n] = lx, lab[2 * *n + 1] = lx + tw;
    ++*n;
    set_rgb(cr, prob_rgb);
    lens_figure_text(cr, lx, by - th - 2, label, 0, 1, 0);
}

static void draw_message(void *ctx, const struct lens_p2p *m, double ts, double tr)
{
    const struct layout *L = ctx;
    cairo_t *cr = L->cr;
    double sy, sh, ry, rh;
    bar_box(L, m->src, &sy, &sh);
    bar_box(L, m->dst, &ry, &rh);
    double x0 = xof(L, ts), y0 = sy + 0.5 * sh, x1 = xof(L, tr), y1 = ry + 0.5 * rh;
    set_rgb(cr, msg_rgb);
    cairo_set_line_width(cr, 1.1);
    cairo_move_to(cr, x0, y0);
    cairo_line_to(cr, x1, y1);
    cairo_stroke(cr);
    /* arrow head at the receive end */
    double dx = x1 - x0, dy = y1 - y0, len = hypot(dx, dy);
    if (len < 4)
        return;
    double ux = dx / len, uy = dy / len, hl = fmin(8, 0.4 * len), hw = 0.45 * hl;
    cairo_move_to(cr, x1, y1);
    cairo_line_to(cr, x1 - hl * ux + hw * uy, y1 - hl * uy - hw * ux);
    cairo_line_to(cr, x1 - hl * ux - hw * uy, y1 - hl * uy + hw * ux);
    cairo_close_path(cr);
    cairo_fill(cr);
}

static void draw_legend(const struct layout *L, double x, double y)
{
    const char *const *names = words[L->o->lang == 1];
    cairo_t *cr = L->cr;
    /* one row: the font shrinks until every entry fits the plot's width */
    double fs = 0.9 * L->fs, total = 0;
    cairo_set_font_size(cr, fs);
    for (int i = 0; i < NCLASS + 3; i++)
        total += 1.44 * L->fs + 4 + lens_figure_text_width(cr, names[i]) + 1.2 * L->fs;
    double k = total > L->pw ? L->pw / total : 1;
    cairo_set_font_size(cr, fs * k);
    double sw = 1.3 * L->fs * k, sh = 0.8 * L->fs * k;
    for (int i = -1; i < NCLASS + 2; i++) {
        const char *name = names[i + 1];
        if (i == NCLASS) { /* a horizontal line: not counted as a message */
            set_rgb(cr, msg_rgb);
            cairo_set_line_width(cr, 1.1);
            cairo_move_to(cr, x, y + 0.5 * sh);
            cairo_line_to(cr, x + sw, y + 0.5 * sh);
            cairo_stroke(cr);
        } else if (i == NCLASS + 1) {
            set_rgb(cr, comp_rgb);
            cairo_rectangle(cr, x, y, sw, sh);
            cairo_fill(cr);
            hatch(cr, x, x + sw, y, sh);
            set_rgb(cr, prob_rgb);
            cairo_rectangle(cr, x, y - 2, sw, 2);
            cairo_fill(cr);
        } else {
            set_rgb(cr, i < 0 ? comp_rgb : class_rgb[i]);
            cairo_rectangle(cr, x, y, sw, sh);
            cairo_fill(cr);
        }
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        lens_figure_text(cr, x + sw + 4 * k, y + 0.5 * sh, name, 0, 0.5, 0);
        x += sw + 4 * k + lens_figure_text_width(cr, name) + 1.2 * L->fs * k;
    }
}

static void draw_axis(const struct layout *L)
{
    cairo_t *cr = L->cr;
    double span_ms = (L->w->t1 - L->w->t0) * 1e3, ticks[16], step;
    int n = lens_figure_ticks(0, span_ms, 0, L->pw > 600 ? 11 : 6, ticks, &step);
    double yb = L->py + L->ph;
    cairo_set_font_size(cr, 0.9 * L->fs);
    for (int i = 0; i < n; i++) {
        double x = L->px + ticks[i] / span_ms * L->pw;
        char buf[48];
        cairo_set_source_rgb(cr, 0.86, 0.86, 0.86); /* grid line over the lanes */
        cairo_set_line_width(cr, 0.6);
        cairo_move_to(cr, x, L->py);
        cairo_line_to(cr, x, yb);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_set_line_width(cr, 1);
        cairo_move_to(cr, x, yb);
        cairo_line_to(cr, x, yb + 4);
        cairo_stroke(cr);
        lens_figure_format_value(ticks[i], step, buf, sizeof buf);
        lens_figure_text(cr, x, yb + 6, buf, 0.5, 0, 0);
    }
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_move_to(cr, L->px, yb + 0.5);
    cairo_line_to(cr, L->px + L->pw, yb + 0.5);
    cairo_stroke(cr);
    char label[160];
    snprintf(label, sizeof label, word(L->o, S_AXIS), L->w->t0 * 1e3);
    lens_figure_text(cr, L->px + 0.5 * L->pw, yb + 8 + 1.3 * L->fs, label, 0.5, 0, 0);
}

static void titles(const struct layout *L, char *title, size_t tn, char *sub, size_t sn)
{
    const struct lens_timeline_window *w = L->w;
    char a[32], b[32];
    if (L->o->title) {
        snprintf(title, tn, "%s", L->o->title);
    } else if (w->problem >= 0 && w->rank >= 0) {
        const struct lens_problem_result *r = &L->s->p->res[w->problem];
        const struct lens_trace_call *c = &L->s->t->ranks[w->rank].calls[w->call];
        duration(w->seconds, a, sizeof a);
        snprintf(title, tn, word(L->o, S_TITLE), problem_name(r, L->o->lang),
                 w->rank, a, lens_trace_region_name(L->s->t, c->region),
                 w->time * 1e3);
    } else {
        snprintf(title, tn, word(L->o, S_PLAIN), L->s->t->nranks);
    }
    duration(w->t1 - w->t0, b, sizeof b);
    snprintf(sub, sn, word(L->o, S_SUB), b, w->lane0, w->lane0 + w->nlanes - 1, L->s->t->nranks, w->ncalls, w->nmessages_all,
             w->nmessages < w->nmessages_all ? word(L->o, S_PARTIAL) : "", w->ninstances);
}

int lens_timeline_draw(cairo_t *cr, double x, double y, double width, double height,
                       const struct lens_timeline_src *s, const struct lens_timeline_opts *o,
                       const struct lens_timeline_window *w, struct lens_err *e)
{
    if (width < 320 || height < 120)
        return lens_err_set(e, LENS_EINVAL, "timeline: box %.0f x %.0f is below 320 x 120",
                            width, height);
    if (!(w->t1 > w->t0) || w->nlanes <= 0 || w->lane0 < 0 || w->lane0 + w->nlanes > s->t->nranks)
        return lens_err_set(e, LENS_EINVAL, "timeline: window not chosen for this trace");
    unsigned char *cls = lens_malloc(s->t->nregions + 1);
    double *labels = lens_calloc((size_t)w->nlanes * 2 * MAXLAB, sizeof *labels);
    int *nlabels = lens_calloc((size_t)w->nlanes, sizeof *nlabels);
    double *marks = lens_malloc((size_t)w->nlanes * sizeof *marks);
    if (!cls || !labels || !nlabels || !marks) {
        lens_free(marks);
        lens_free(labels);
        lens_free(nlabels);
        lens_free(cls);
        return lens_err_set(e, LENS_ENOMEM, "timeline: out of memory");
    }
    for (uint32_t i = 0; i < s->t->nregions; i++)
        cls[i] = (unsigned char)lens_timeline_class(lens_trace_region_name(s->t, i));
    cairo_font_face_t *face = NULL;
    int rc = lens_figure_font_load(o->font_path, &face, e);
    if (rc < 0) {
        lens_free(cls);
        lens_free(labels);
        lens_free(nlabels);
        lens_free(marks);
        return rc;
    }
    for (int i = 0; i < w->nlanes; i++)
        marks[i] = -1e9;
    struct layout L = {s, o, w, cr, 0, 0, 0, 0, 0, 0, labels, nlabels, marks, 0};
    L.fs = o->font_size > 0 ? o->font_size : fmin(16, fmax(9, width / 95));
    cairo_save(cr);
    cairo_translate(cr, x, y);
    lens_figure_set_font(cr, face, L.fs);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, width, height);
    cairo_fill(cr);
    /* title, subtitle and legend on top, rank labels on the left, axis below */
    char title[512], sub[512], lab[32];
    titles(&L, title, sizeof title, sub, sizeof sub);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_font_size(cr, 1.3 * L.fs);
    lens_figure_text(cr, 0.5 * width, 0.6 * L.fs, title, 0.5, 0, 0);
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_set_font_size(cr, 0.95 * L.fs);
    lens_figure_text(cr, 0.5 * width, 2.4 * L.fs, sub, 0.5, 0, 0);
    cairo_set_font_size(cr, 0.9 * L.fs);
    snprintf(lab, sizeof lab, word(o, S_RANK), w->lane0 + w->nlanes - 1);
    L.px = lens_figure_text_width(cr, lab) + 1.4 * L.fs;
    L.pw = width - L.px - 1.2 * L.fs;
    L.py = 6.2 * L.fs;
    L.ph = height - L.py - 4.2 * L.fs;
    L.lh = L.ph / w->nlanes;
    draw_legend(&L, L.px, 4.1 * L.fs);
    for (int32_t r = w->lane0; r < w->lane0 + w->nlanes; r++)
        draw_band(&L, r);
    draw_axis(&L);
    for (int32_t r = w->lane0; r < w->lane0 + w->nlanes; r++)
        draw_lane(&L, r, cls);
    int every = (int)ceil(1.1 * L.fs / L.lh); /* rank labels that fit */
    cairo_set_font_size(cr, fmin(0.9 * L.fs, 0.8 * L.lh));
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    for (int32_t r = w->lane0; r < w->lane0 + w->nlanes; r++) {
        if ((r - w->lane0) % every)
            continue;
        double by, bh;
        bar_box(&L, r, &by, &bh);
        snprintf(lab, sizeof lab, word(o, S_RANK), r);
        lens_figure_text(cr, L.px - 0.5 * L.fs, by + 0.5 * bh, lab, 1, 0.5, 0);
    }
    cairo_save(cr);
    cairo_rectangle(cr, L.px, L.py - 1.5 * L.fs, L.pw, L.ph + 1.5 * L.fs);
    cairo_clip(cr);
    each_instance(s, w, draw_instance, &L);
    L.pass = 1;
    each_instance(s, w, draw_instance, &L);
    each_message(s, w, draw_message, &L, w->nmessages);
    cairo_restore(cr);
    cairo_restore(cr);
    cairo_font_face_destroy(face);
    lens_free(cls);
    lens_free(labels);
    lens_free(nlabels);
    lens_free(marks);
    return lens_figure_status(cr, "timeline", e);
}

/* ---- output ---- */

void lens_timeline_size(const struct lens_timeline_opts *o, const struct lens_timeline_window *w,
                        int *width, int *height)
{
    *width = o->width > 0 ? o->width : 1200;
    int n = w->nlanes > 0 ? w->nlanes : 1;
    int lh = n <= 4 ? 64 : n <= 8 ? 44 : n <= 16 ? 30 : n <= 32 ? 18 : 10;
    double fs = o->font_size > 0 ? o->font_size : fmin(16, fmax(9, *width / 95.0));
    *height = o->height > 0 ? o->height : (int)ceil(10.4 * fs) + n * lh;
}

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcasecmp(s + n - m, suf);
}

static int render_image(const struct lens_timeline_src *s, const struct lens_timeline_opts *o,
                        const struct lens_timeline_window *w, cairo_surface_t **img,
                        struct lens_err *e)
{
    int W, H;
    lens_timeline_size(o, w, &W, &H);
    *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, W, H);
    cairo_t *cr = cairo_create(*img);
    int rc = lens_timeline_draw(cr, 0, 0, W, H, s, o, w, e);
    cairo_destroy(cr);
    if (rc == LENS_OK && cairo_surface_status(*img) != CAIRO_STATUS_SUCCESS)
        rc = lens_err_set(e, LENS_ELIB, "timeline: cairo: %s",
                          cairo_status_to_string(cairo_surface_status(*img)));
    return rc;
}

int lens_timeline_write(const char *path, const struct lens_timeline_src *s,
                        const struct lens_timeline_opts *o, const struct lens_timeline_window *w,
                        struct lens_err *e)
{
    int svg = ends_with(path, ".svg");
    if (!svg && !ends_with(path, ".png"))
        return lens_err_set(e, LENS_EINVAL, "%s: output must end in .png or .svg", path);
    int rc;
    if (svg) {
        int W, H;
        lens_timeline_size(o, w, &W, &H);
        struct lens_figure_buf buf = {0};
        cairo_surface_t *surf = lens_figure_svg_create(&buf, W, H);
        cairo_t *cr = cairo_create(surf);
        rc = lens_timeline_draw(cr, 0, 0, W, H, s, o, w, e);
        cairo_destroy(cr);
        if (rc < 0) {
            cairo_surface_destroy(surf);
            lens_free(buf.data);
            return lens_err_prefix(e, path);
        }
        return lens_figure_svg_commit(surf, &buf, path, e);
    }
    cairo_surface_t *img;
    rc = render_image(s, o, w, &img, e);
    if (rc == LENS_OK)
        rc = lens_figure_png_write(img, path, e);
    else
        lens_err_prefix(e, path);
    cairo_surface_destroy(img);
    return rc;
}

int lens_timeline_png_mem(const struct lens_timeline_src *s, const struct lens_timeline_opts *o,
                          const struct lens_timeline_window *w, unsigned char **buf, size_t *len,
                          struct lens_err *e)
{
    *buf = NULL;
    *len = 0;
    cairo_surface_t *img;
    int rc = render_image(s, o, w, &img, e);
    if (rc == LENS_OK)
        rc = lens_figure_png_mem(img, "timeline", buf, len, e);
    cairo_surface_destroy(img);
    return rc;
}
