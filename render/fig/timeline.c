/* Drawing the timeline of a trace window (timeline.h): lanes, MPI calls by class, messages
 * and the problem instances, and the PNG/SVG output. The window and what it holds come from
 * timeline_window.c; drawing costs what the window holds, not what the trace holds. */
#include "timeline.h"
#include "common/time.h"
#include "common/units.h"

#include "figure.h"
#include "timeline_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAXLAB 32         /* problem labels per lane */


/* Colours (colour-blind safe, after Okabe-Ito), computation, lane band, problems, messages. */
static const double class_rgb[LENS_TL_NCLASS][3] = {
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
/* Format strings per language: the Russian ones take the same arguments in the same order. */
static const char *const words[2][NSTR] = {
    {"computation", "point-to-point", "collective", "one-sided", "wait/test", "other MPI",
     "message", "problem instance",
     "time since the window start [ms]; the window starts %.3f ms into the trace",
     "%s on rank %d: %s lost in %s at %.3f ms", "Timeline of %s",
     "window of %s; ranks %d-%d of %d; %s, %s%s, %s",
     " (not all drawn)", "rank %d"},
    {"вычисления", "точка-точка", "коллективные", "односторонние", "ожидание/проверка",
     "прочие MPI", "сообщение", "случай проблемы",
     "время от начала окна [мс]; окно начинается через %.3f мс от начала трассы",
     "%s, процесс %d: потеряно %s в %s на %.3f мс", "Временная диаграмма, процессов: %s",
     "окно %s; процессы %d-%d из %d; вызовов MPI %s, сообщений %s%s, случаев проблем %s",
     " (нарисованы не все)", "процесс %d"}};

static const char *word(const struct lens_timeline_opts *o, int k)
{
    /* Any language but Russian falls back to English: a bad code never indexes past the table. */
    return words[o->lang == 1][k];
}

/* Limits that keep a figure readable and its drawing time bounded by the window, not the
 * trace: 4000 calls, 2000 message lines, 64 lanes. */
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
    /* Under a second the shared formatter picks ms or µs; above, seconds with two decimals. */
    if (sec >= 1)
        snprintf(buf, n, "%.2f s", sec);
    else
        lens_time_format_duration(sec, buf, n);
}

/* ---- drawing ---- */

struct layout {
    const struct lens_trace_analysis *s;
    const struct lens_timeline_opts *o;
    const struct lens_timeline_window *w;
    cairo_t *cr;
    double px, py, pw, ph; /* plot area */
    double lh;             /* lane height */
    double fs;             /* base font size */
    double *labels;        /* per lane: MAXLAB placed label intervals [x0, x1] */
    int *nlabels;          /* per lane: how many */
    double *marks;         /* per lane: pixel column of the last narrow instance mark */
    int pass;              /* instances: 0 shading, 1 centred label, 2 other labels */
    int dry;               /* lanes: only record what would be drawn (the legend's pre-pass) */
    unsigned *drawn;       /* bits of what the lanes draw: LEG_* and 1 << call class */
};

/* Legend bits beyond the call classes (0 .. LENS_TL_NCLASS-1): the legend keys only what the
 * figure draws, so a window without one-sided calls or messages lists neither. */
enum { LEG_COMP = LENS_TL_NCLASS, LEG_MSG, LEG_PROB };

static double xof(const struct layout *L, double t)
{
    /* Trace seconds to the plot's x: the window spans the plot's width exactly. */
    return L->px + (t - L->w->t0) / (L->w->t1 - L->w->t0) * L->pw;
}

static double lane_y(const struct layout *L, int32_t rank)
{
    return L->py + (rank - L->w->lane0) * L->lh;
}

/* The bar of the calls inside a lane: [y + top, y + top + height). */
static void bar_box(const struct layout *L, int32_t rank, double *y, double *h)
{
    /* Room above the bar for the problem brackets and labels; thin lanes keep just a sliver. */
    double gap = L->lh > 14 ? 0.30 * L->lh : 0.12 * L->lh;
    *y = lane_y(L, rank) + gap;
    /* Below the bar a small gap to the next lane, so neighbouring lanes never touch. */
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

/* A box of a lane in colour rgb, recorded under legend bit `bit`; a dry pass only records. */
static void lane_box(const struct layout *L, int bit, const double *rgb, double x0, double x1, double y, double h)
{
    *L->drawn |= 1u << bit;
    if (L->dry)
        return;
    set_rgb(L->cr, rgb);
    fill_rect(L->cr, x0, x1, y, h);
}

/* Draws a run of merged calls in the class that took the most of it. */
static void flush_run(const struct layout *L, double x0, double x1, const double *best, double y, double h)
{
    int m = 0;
    /* The class that took the most of the run's time names the merged box. */
    for (int j = 1; j < LENS_TL_NCLASS; j++)
        if (best[j] > best[m])
            m = j;
    lane_box(L, m, class_rgb[m], x0, x1, y, h);
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
    const struct lens_trace_rank *k = &L->s->trace->ranks[rank];
    double by, bh;
    bar_box(L, rank, &by, &bh);
    /* A rank without calls keeps its band only: nothing ran there that the trace recorded. */
    if (!k->ncalls)
        return;
    /* Computation under the whole life of the rank in the window: the calls are drawn over it,
     * so what stays visible between them is time spent computing. */
    double a = fmax(L->w->t0, fmin(k->t_first, k->calls[0].enter));
    double b = fmin(L->w->t1, fmax(k->t_last, k->calls[k->ncalls - 1].leave));
    if (b > a)
        lane_box(L, LEG_COMP, comp_rgb, xof(L, a), xof(L, b), by, bh);
    /* Only the calls overlapping the window (binary searches): cost follows the window. */
    uint32_t c0 = lens_timeline_first_call(k, L->w->t0), c1 = lens_timeline_end_call(k, L->w->t1);
    double run0 = 0, run1 = 0, best[LENS_TL_NCLASS];
    int have = 0; /* a run of sub-pixel calls is pending */
    for (uint32_t i = c0; i < c1; i++) {
        const struct lens_trace_call *q = &k->calls[i];
        double x0 = xof(L, fmax(q->enter, L->w->t0)), x1 = xof(L, fmin(q->leave, L->w->t1));
        int c = q->region < L->s->trace->nregions ? cls[q->region] : LENS_TL_OTHER, tiny = x1 - x0 < 1;
        /* Sub-pixel calls within a pixel of the pending run join it; each class tallies its share. */
        if (have && tiny && x0 - run1 < 1) {
            run1 = fmax(run1, x1);
            /* +1e-9: a zero-length call still counts for its class. */
            best[c] += x1 - x0 + 1e-9;
            continue;
        }
        /* A call that does not join the pending run ends it. */
        if (have)
            flush_run(L, run0, run1, best, by, bh);
        have = tiny;
        if (tiny) {
            /* A new run starts with this call alone. */
            memset(best, 0, sizeof best);
            best[c] = x1 - x0 + 1e-9;
            run0 = x0, run1 = x1;
        } else {
            /* A call wide enough is drawn as itself, in its class's colour. */
            lane_box(L, c, class_rgb[c], x0, x1, by, bh);
        }
    }
    /* The last pending run. */
    if (have)
        flush_run(L, run0, run1, best, by, bh);
}

/* Diagonal hatching over [x0, x1] x [y, y + h]. */
static void hatch(cairo_t *cr, double x0, double x1, double y, double h)
{
    cairo_save(cr);
    cairo_rectangle(cr, x0, y, x1 - x0, h);
    cairo_clip(cr);
    cairo_set_line_width(cr, 1.2);
    /* Translucent strokes: the call's colour stays visible under the hatching. */
    cairo_set_source_rgba(cr, prob_rgb[0], prob_rgb[1], prob_rgb[2], 0.75);
    /* 45-degree strokes every 6 units, started one height early so the left edge is covered too. */
    for (double x = x0 - h; x < x1; x += 6) {
        cairo_move_to(cr, x, y + h);
        cairo_line_to(cr, x + h, y);
    }
    /* All strokes in one path: one stroke call per instance. */
    cairo_stroke(cr);
    cairo_restore(cr);
}

static int is_centred(const struct layout *L, const struct lens_problem_result *r, int32_t rank,
                      uint32_t call)
{
    /* The instance the window was chosen for: it is framed and always labelled. */
    return rank == L->w->rank && call == L->w->call && L->w->problem >= 0 &&
           r == &L->s->problems->res[L->w->problem];
}

/* Pass 0 draws the shading of every instance, pass 1 (after the messages) the label of the
 * centred one, pass 2 the labels that fit beside those already drawn (one label band per
 * lane, left to right). */
static void draw_instance(void *ctx, const struct lens_problem_result *r, int32_t rank,
                          uint32_t call, double a, double b)
{
    const struct layout *L = ctx;
    cairo_t *cr = L->cr;
    int centred = is_centred(L, r, rank, call);
    /* The instance's span clipped to the window; the centred one gets a thicker bracket. */
    double x0 = xof(L, fmax(a, L->w->t0)), x1 = xof(L, fmin(b, L->w->t1));
    double by, bh, th = centred ? 3.5 : 2.0;
    bar_box(L, rank, &by, &bh);
    if (x1 - x0 < 2 && !centred) {
        /* a narrow instance is a solid mark; one per pixel column and lane is enough */
        double *last = &L->marks[rank - L->w->lane0];
        if (L->pass != 0 || floor(x0) == *last)
            return;
        *last = floor(x0);
        /* The mark spans the bracket and the bar, in the problem colour. */
        set_rgb(cr, prob_rgb);
        cairo_rectangle(cr, floor(x0), by - th, 1.5, bh + th);
        cairo_fill(cr);
        return;
    }
    /* Wider than 2 units or centred but still thin: widen to 1.5 units around its middle. */
    if (x1 - x0 < 1.5) {
        double m = 0.5 * (x0 + x1);
        x0 = m - 0.75, x1 = m + 0.75;
    }
    if (L->pass == 0) {
        cairo_set_source_rgba(cr, 1, 1, 1, 0.35); /* lighten what is below, then hatch */
        cairo_rectangle(cr, x0, by, x1 - x0, bh);
        cairo_fill(cr);
        hatch(cr, x0, x1, by, bh);
        if (L->lh >= 16 || centred) { /* a bracket above the bar (thin lanes: none) */
            set_rgb(cr, prob_rgb);
            cairo_rectangle(cr, x0, by - th, x1 - x0, th);
            cairo_fill(cr);
        }
        if (centred) { /* the instance the window is about: framed */
            cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
            cairo_set_line_width(cr, 1.6);
            cairo_rectangle(cr, x0 - 0.8, by - th - 0.8, x1 - x0 + 1.6, bh + th + 1.6);
            cairo_stroke(cr);
        }
    }
    /* Labels only on lanes tall enough for text, after the message lines (pass 0 draws the
     * spans); the centred instance is labelled in pass 1, before any other label (pass 2)
     * can take its place. */
    if (L->lh < 16 || L->pass == 0 || (L->pass == 1) != centred || (!centred && x1 - x0 < 3))
        return;
    char label[160], dur[32];
    /* The label names the problem and the time it lost. */
    duration(b - a, dur, sizeof dur);
    snprintf(label, sizeof label, "%s %s", lens_timeline_problem_name(r, L->o->lang), dur);
    /* A little smaller than the base font: labels sit in the narrow space above a bar. */
    cairo_set_font_size(cr, 0.85 * L->fs);
    double tw = lens_figure_text_width(cr, label), lx = fmax(x0, L->px + 2);
    /* A label near the right edge slides left to stay inside the plot. */
    if (lx + tw > L->px + L->pw - 2)
        lx = L->px + L->pw - 2 - tw;
    double *lab = &L->labels[2 * MAXLAB * (rank - L->w->lane0)];
    int *n = &L->nlabels[rank - L->w->lane0];
    /* Skip a label that would touch one already on this lane (8 units of margin). */
    /* Labels collide on a lane when their intervals, widened by 8 units, overlap. */
    for (int i = 0; i < *n; i++)
        if (lx < lab[2 * i + 1] + 8 && lx + tw > lab[2 * i] - 8)
            return;
    if (*n == MAXLAB)
        return;
    lab[2 * *n] = lx, lab[2 * *n + 1] = lx + tw;
    ++*n;
    /* A light backing under the label: message lines drawn before it pass behind the
     * text instead of through it. */
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.8);
    cairo_rectangle(cr, lx - 1, by - th - 2 - fe.ascent - fe.descent, tw + 2, fe.ascent + fe.descent);
    cairo_fill(cr);
    set_rgb(cr, prob_rgb);
    lens_figure_text(cr, lx, by - th - 2, label, 0, 1, 0);
}

/* The legend's pre-pass: an instance or a message in the window is drawn (draw_instance's
 * pass 0 shades or marks every one; draw_message draws every line it is given). */
static void note_instance(void *ctx, const struct lens_problem_result *r, int32_t rank, uint32_t call, double a,
                          double b)
{
    (void)r, (void)rank, (void)call, (void)a, (void)b;
    *((const struct layout *)ctx)->drawn |= 1u << LEG_PROB;
}

static void note_message(void *ctx, const struct lens_p2p *m, double ts, double tr)
{
    (void)m, (void)ts, (void)tr;
    *((const struct layout *)ctx)->drawn |= 1u << LEG_MSG;
}

static void draw_message(void *ctx, const struct lens_p2p *m, double ts, double tr)
{
    const struct layout *L = ctx;
    cairo_t *cr = L->cr;
    double sy, sh, ry, rh;
    /* From the middle of the sender's bar to the middle of the receiver's. */
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
    /* Too short for a head: the line alone says enough. */
    if (len < 4)
        return;
    /* The head at most 8 units and 40% of the line, so short messages keep a visible shaft. */
    double ux = dx / len, uy = dy / len, hl = fmin(8, 0.4 * len), hw = 0.45 * hl;
    cairo_move_to(cr, x1, y1);
    cairo_line_to(cr, x1 - hl * ux + hw * uy, y1 - hl * uy - hw * ux);
    cairo_line_to(cr, x1 - hl * ux - hw * uy, y1 - hl * uy + hw * ux);
    cairo_close_path(cr);
    cairo_fill(cr);
}

/* Entry i of the legend (-1 computation, the call classes, then message and problem
 * instance: the order of words[]) as its LEG_* / class bit. */
static int legend_bit(int i)
{
    return i < 0 ? LEG_COMP : i == LENS_TL_NCLASS ? LEG_MSG : i == LENS_TL_NCLASS + 1 ? LEG_PROB : i;
}

/* The call classes, computation, message and problem instance, in the figure's language;
 * only those the figure draws (*L->drawn), so no entry names something absent. */
static void draw_legend(const struct layout *L, double x, double y)
{
    const char *const *names = words[L->o->lang == 1];
    cairo_t *cr = L->cr;
    /* one row: the font shrinks until every entry fits the plot's width */
    double fs = 0.9 * L->fs, total = 0;
    cairo_set_font_size(cr, fs);
    for (int i = 0; i < LENS_TL_NCLASS + 3; i++)
        if (*L->drawn >> legend_bit(i - 1) & 1)
            total += 1.44 * L->fs + 4 + lens_figure_text_width(cr, names[i]) + 1.2 * L->fs;
    double k = total > L->pw ? L->pw / total : 1;
    /* but never below the print floor (figure.h): a row that long runs past the plot's edge
     * rather than print unreadably small */
    k = fmin(1, fmax(k, lens_figure_font_floor(cr, 0) / fs));
    cairo_set_font_size(cr, fs * k);
    double sw = 1.3 * L->fs * k, sh = 0.8 * L->fs * k;
    for (int i = -1; i < LENS_TL_NCLASS + 2; i++) {
        const char *name = names[i + 1];
        if (!(*L->drawn >> legend_bit(i) & 1))
            continue;
        if (i == LENS_TL_NCLASS) { /* a horizontal line: not counted as a message */
            set_rgb(cr, msg_rgb);
            cairo_set_line_width(cr, 1.1);
            cairo_move_to(cr, x, y + 0.5 * sh);
            cairo_line_to(cr, x + sw, y + 0.5 * sh);
            cairo_stroke(cr);
        } else if (i == LENS_TL_NCLASS + 1) {
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
    /* Time since the window start in ms: round numbers, unlike absolute trace times. */
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
    /* Half a unit down: a 1-unit line on a whole coordinate would straddle two pixel rows. */
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
    /* The automatic title names the centred instance: problem, rank, time lost, call, when. */
    } else if (w->problem >= 0 && w->rank >= 0) {
        const struct lens_problem_result *r = &L->s->problems->res[w->problem];
        const struct lens_trace_call *c = &L->s->trace->ranks[w->rank].calls[w->call];
        duration(w->seconds, a, sizeof a);
        snprintf(title, tn, word(L->o, S_TITLE), lens_timeline_problem_name(r, L->o->lang),
                 w->rank, a, lens_trace_region_name(L->s->trace, c->region),
                 w->time * 1e3);
    } else {
        /* English counts with its noun ("1 rank", "2 ranks", common/units.h); the Russian
         * title already names the noun before the colon, so it takes the bare number. */
        char cnt[48];
        if (L->o->lang == 1)
            snprintf(cnt, sizeof cnt, "%d", L->s->trace->nranks);
        else
            lens_units_count(L->s->trace->nranks, "rank", "ranks", cnt, sizeof cnt);
        snprintf(title, tn, word(L->o, S_PLAIN), cnt);
    }
    duration(w->t1 - w->t0, b, sizeof b);
    /* English puts each count before its noun, singular for 1 (common/units.h); the Russian
     * words name the noun first and take the bare numbers */
    char nc[64], nm[64], ni[64];
    if (L->o->lang == 1) {
        snprintf(nc, sizeof nc, "%zu", w->ncalls);
        snprintf(nm, sizeof nm, "%zu", w->nmessages_all);
        snprintf(ni, sizeof ni, "%zu", w->ninstances);
    } else {
        lens_units_count((long long)w->ncalls, "MPI call", "MPI calls", nc, sizeof nc);
        lens_units_count((long long)w->nmessages_all, "message", "messages", nm, sizeof nm);
        lens_units_count((long long)w->ninstances, "problem instance", "problem instances", ni, sizeof ni);
    }
    snprintf(sub, sn, word(L->o, S_SUB), b, w->lane0, w->lane0 + w->nlanes - 1, L->s->trace->nranks, nc, nm,
             w->nmessages < w->nmessages_all ? word(L->o, S_PARTIAL) : "", ni);
}

/* The figure's data for the protocol of figure.h. */
struct job {
    const struct lens_trace_analysis *s;
    const struct lens_timeline_opts *o;
    const struct lens_timeline_window *w;
};

/* A window from lens_timeline_select for this very trace: lanes inside its ranks. */
static int check(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    const struct lens_timeline_window *w = j->w;
    if (!(w->t1 > w->t0) || w->nlanes <= 0 || w->lane0 < 0 || w->lane0 + w->nlanes > j->s->trace->nranks)
        return lens_err_set(e, LENS_EINVAL, "%s: window not chosen for this trace", name);
    return LENS_OK;
}

/* lens_timeline_size: the height grows with the lanes shown. */
static void size(const void *data, double *w, double *h)
{
    const struct job *j = data;
    int W, H;
    lens_timeline_size(j->o, j->w, &W, &H);
    *w = W;
    *h = H;
}

/* Title and subtitle, legend, then bands, axis, lanes, rank labels, instances and messages. */
static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct job *j = data;
    const struct lens_trace_analysis *s = j->s;
    const struct lens_timeline_opts *o = j->o;
    const struct lens_timeline_window *w = j->w;
    cairo_t *cr = c->cr;
    double width = c->w, height = c->h;
    /* below this the title, legend and axis leave no room for a lane */
    if (width < 320 || height < 120)
        return lens_err_set(e, LENS_EINVAL, "timeline: box %.0f x %.0f is below 320 x 120",
                            width, height);
    /* The class of every region, looked up once: the lanes then index it per call. */
    unsigned char *cls = lens_malloc(s->trace->nregions + 1);
    /* Per lane, the x intervals its problem labels already take, so later ones never overlap. */
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
    for (uint32_t i = 0; i < s->trace->nregions; i++)
        cls[i] = (unsigned char)lens_timeline_class(lens_trace_region_name(s->trace, i));
    for (int i = 0; i < w->nlanes; i++)
        /* No mark drawn yet on any lane: no pixel column can equal this. */
        marks[i] = -1e9;
    unsigned drawn = 0;
    struct layout L = {s, o, w, cr, 0, 0, 0, 0, 0, 0, labels, nlabels, marks, 0, 0, &drawn};
    /* 12.6 units at the default 1200 wide; within 9..16 whatever the width. */
    L.fs = o->font_size > 0 ? o->font_size : fmin(16, fmax(9, width / 95));
    /* For print the smallest text (0.85 fs, the problem labels) keeps the print floor, and the layout grows with
     * it instead of letters overrunning their places (figure.h, LENS_FIGURE_MIN_PT). */
    L.fs = fmax(L.fs, lens_figure_font_floor(cr, 0) / 0.85);
    cairo_save(cr);
    lens_figure_set_font(cr, c->face, L.fs);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_rectangle(cr, 0, 0, width, height);
    cairo_fill(cr);
    /* title, subtitle and legend on top, rank labels on the left, axis below */
    char title[512], sub[512], lab[32];
    titles(&L, title, sizeof title, sub, sizeof sub);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_font_size(cr, 1.3 * L.fs);
    /* A long title (a long problem or call name) wraps; every line it adds moves what is
     * below it down by one title line, out of the plot's height. */
    int tl = lens_figure_text_wrap(NULL, cr, 0.5 * width, 0.6 * L.fs, title, width - 2 * L.fs, 0.5, 1);
    double down = (tl > 1 ? tl - 1 : 0) * 1.2 * 1.3 * L.fs;
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_set_font_size(cr, 0.95 * L.fs);
    int sl = lens_figure_text_wrap(NULL, cr, 0.5 * width, 2.4 * L.fs + down, sub, width - 2 * L.fs, 0.5, 1);
    down += (sl > 1 ? sl - 1 : 0) * 1.2 * 0.95 * L.fs;
    cairo_set_font_size(cr, 0.9 * L.fs);
    snprintf(lab, sizeof lab, word(o, S_RANK), w->lane0 + w->nlanes - 1);
    /* The plot starts after the widest rank label (the last rank has the most digits). */
    L.px = lens_figure_text_width(cr, lab) + 1.4 * L.fs;
    L.pw = width - L.px - 1.2 * L.fs;
    L.py = 6.2 * L.fs + down;
    /* many wrapped lines on a short figure still leave each lane a unit */
    L.ph = fmax(height - L.py - 4.2 * L.fs, w->nlanes);
    L.lh = L.ph / w->nlanes;
    /* What the lanes, instances and messages will draw, for the legend drawn before them (a
     * dry pass over the same calls: the legend must key exactly the boxes drawn, merged runs
     * included). */
    L.dry = 1;
    for (int32_t r = w->lane0; r < w->lane0 + w->nlanes; r++)
        draw_lane(&L, r, cls);
    L.dry = 0;
    lens_timeline_each_instance(s, w, note_instance, &L);
    lens_timeline_each_message(s, w, note_message, &L, w->nmessages);
    /* Back to front: bands, then the axis grid over them, then the lanes' bars over the grid. */
    draw_legend(&L, L.px, 4.1 * L.fs + down);
    for (int32_t r = w->lane0; r < w->lane0 + w->nlanes; r++)
        draw_band(&L, r);
    draw_axis(&L);
    for (int32_t r = w->lane0; r < w->lane0 + w->nlanes; r++)
        draw_lane(&L, r, cls);
    int every = (int)ceil(1.1 * L.fs / L.lh); /* rank labels that fit */
    /* thin lanes: smaller rank labels, but not below the print floor; `every` keeps labelled
     * lanes 1.1 fs apart, so floored labels still do not touch */
    cairo_set_font_size(cr, lens_figure_font_floor(cr, fmin(0.9 * L.fs, 0.8 * L.lh)));
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
    /* Instances and messages clipped to the plot, with room above the first lane for its labels. */
    cairo_rectangle(cr, L.px, L.py - 1.5 * L.fs, L.pw, L.ph + 1.5 * L.fs);
    cairo_clip(cr);
    lens_timeline_each_instance(s, w, draw_instance, &L);
    /* Messages over the spans: the line from send to receive is what explains a wait. */
    lens_timeline_each_message(s, w, draw_message, &L, w->nmessages);
    /* Labels last, so that no message line crosses one: the centred instance's first, then
     * the others', which skip places already taken. */
    L.pass = 1;
    lens_timeline_each_instance(s, w, draw_instance, &L);
    L.pass = 2;
    lens_timeline_each_instance(s, w, draw_instance, &L);
    cairo_restore(cr);
    cairo_restore(cr);
    lens_free(cls);
    lens_free(labels);
    lens_free(nlabels);
    lens_free(marks);
    return LENS_OK;
}

/* ARGB32 PNGs, as the timeline has always written them (its bytes must not change). */
static const struct lens_figure_kind timeline_kind = {"timeline", LENS_FIGURE_ALPHA, check, size, paint};

static struct lens_figure figure(struct job *j, const struct lens_trace_analysis *s,
                                 const struct lens_timeline_opts *o, const struct lens_timeline_window *w)
{
    *j = (struct job){s, o, w};
    return (struct lens_figure){.kind = &timeline_kind, .data = j, .font_path = o->font_path, .name = "timeline"};
}

int lens_timeline_draw(cairo_t *cr, double x, double y, double width, double height,
                       const struct lens_trace_analysis *s, const struct lens_timeline_opts *o,
                       const struct lens_timeline_window *w, struct lens_err *e)
{
    struct job j;
    struct lens_figure fig = figure(&j, s, o, w);
    return lens_figure_draw(&fig, cr, x, y, width, height, e);
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

int lens_timeline_write(const char *path, const struct lens_trace_analysis *s,
                        const struct lens_timeline_opts *o, const struct lens_timeline_window *w,
                        struct lens_err *e)
{
    struct job j;
    struct lens_figure fig = figure(&j, s, o, w);
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_timeline_png_mem(const struct lens_trace_analysis *s, const struct lens_timeline_opts *o,
                          const struct lens_timeline_window *w, unsigned char **buf, size_t *len,
                          struct lens_err *e)
{
    struct job j;
    struct lens_figure fig = figure(&j, s, o, w);
    return lens_figure_render(&fig, NULL, buf, len, e);
}
