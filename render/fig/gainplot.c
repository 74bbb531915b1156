/* The gain figure of gainplot.h: two panels over the same process-count axis, run time per
 * version and the main problems' shares per version, so that a reader sees at once whether
 * the faster version is faster because its main problem shrank (the paper's Figs 9-10). */
#include "gainplot.h"

#include "figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEF_W 1000
#define DEF_H 420

/* version colours (time panel) and problem colours (share panel): the first two are the
 * blue/red pair the other figures use for before/after */
static const double vcol[LENS_GAINPLOT_MAX_VERSIONS][3] = {
    {0.80, 0.10, 0.10}, {0.12, 0.35, 0.65}, {0.20, 0.55, 0.20}, {0.55, 0.35, 0.10}};
static const double pcol[LENS_GAINPLOT_MAX_PROBLEMS][3] = {
    {0.80, 0.10, 0.10}, {0.12, 0.35, 0.65}, {0.20, 0.55, 0.20}, {0.50, 0.20, 0.60}};

static int check(const void *data, const char *name, struct lens_err *e)
{
    const struct lens_gainplot_opts *o = data;
    if (o->nprocs < 1 || !o->procs || !o->time)
        return lens_err_set(e, LENS_EINVAL, "%s: a gain figure needs at least one process count", name);
    if (o->nversions < 1 || o->nversions > LENS_GAINPLOT_MAX_VERSIONS || !o->version)
        return lens_err_set(e, LENS_EINVAL, "%s: %d versions (1 to %d)", name, o->nversions,
                            LENS_GAINPLOT_MAX_VERSIONS);
    if (o->nproblems < 0 || o->nproblems > LENS_GAINPLOT_MAX_PROBLEMS || (o->nproblems && (!o->share || !o->problem)))
        return lens_err_set(e, LENS_EINVAL, "%s: %d problems (at most %d)", name, o->nproblems,
                            LENS_GAINPLOT_MAX_PROBLEMS);
    if (o->width < 0 || o->height < 0 || (o->width && o->width < 300) || (o->height && o->height < 200))
        return lens_err_set(e, LENS_EINVAL, "%s: size %d x %d is too small", name, o->width, o->height);
    for (int p = 0; p < o->nprocs; p++)
        if (o->procs[p] < 1)
            return lens_err_set(e, LENS_EINVAL, "%s: process count %d is %d", name, p, o->procs[p]);
    /* the axis range comes from the times: one NaN or zero would spoil every position */
    for (int i = 0; i < o->nversions * o->nprocs; i++)
        if (!isfinite(o->time[i]) || o->time[i] <= 0)
            return lens_err_set(e, LENS_EINVAL, "%s: time %d is not a positive number", name, i);
    for (int i = 0; i < o->nversions * o->nproblems * o->nprocs; i++)
        if (!(o->share[i] >= 0 && o->share[i] <= 1))
            return lens_err_set(e, LENS_EINVAL, "%s: share %d is outside 0..1", name, i);
    return LENS_OK;
}

static void size(const void *data, double *w, double *h)
{
    const struct lens_gainplot_opts *o = data;
    *w = o->width ? o->width : DEF_W;
    *h = o->height ? o->height : DEF_H;
}

/* Line style of version v: solid, dashed, dotted, dash-dot, so the share panel tells the
 * versions apart while its colours name the problems. */
static void version_dash(cairo_t *cr, int v, double fs)
{
    /* dash lengths in font sizes, so the pattern scales with the figure like the text */
    double d[4][4] = {{0}, {0.6 * fs, 0.35 * fs}, {0.15 * fs, 0.3 * fs},
                      {0.6 * fs, 0.3 * fs, 0.15 * fs, 0.3 * fs}};
    static const int n[4] = {0, 2, 2, 4};
    cairo_set_dash(cr, d[v], n[v], 0);
}

/* One panel: frame, y ticks from 0 to the largest value, x ticks at the process counts
 * (evenly spaced: counts are usually doubled, and index spacing keeps 1, 2, 4 apart). */
struct panel {
    double x0, y0, w, h, top;
};

static void axes(const struct lens_gainplot_opts *o, const struct lens_figure_canvas *c,
                 struct panel *pn, double vmax, const char *ylabel, double fs)
{
    cairo_t *cr = c->cr;
    double ticks[16], step;
    /* at most 6 ticks: the panel is half the figure wide but its height is what they share */
    int nt = lens_figure_ticks(0, vmax > 0 ? vmax : 1, 0, 6, ticks, &step);
    /* the axis runs from 0 (a time or a share is read against zero, not against the
     * smallest value) to the last tick, or to the largest value when that lies above it */
    pn->top = nt ? fmax(ticks[nt - 1], vmax) : 1;
    lens_figure_set_font(cr, c->face, 0.9 * fs);
    cairo_set_line_width(cr, fmax(1, fs / 14));
    for (int i = 0; i < nt; i++) {
        char buf[32];
        double y = pn->y0 + pn->h - ticks[i] / pn->top * pn->h;
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, pn->x0, y);
        cairo_line_to(cr, pn->x0 + pn->w, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        lens_figure_format_value(ticks[i], step, buf, sizeof buf);
        lens_figure_label(c->text, cr, pn->x0 - 0.4 * fs, y, buf, 1, 0.5, 0);
    }
    /* one x label per process count, at the same x as its points (series() below) */
    for (int p = 0; p < o->nprocs; p++) {
        char buf[16];
        double x = o->nprocs > 1 ? pn->x0 + pn->w * p / (o->nprocs - 1) : pn->x0 + pn->w / 2;
        snprintf(buf, sizeof buf, "%d", o->procs[p]);
        lens_figure_label(c->text, cr, x, pn->y0 + pn->h + 0.4 * fs, buf, 0.5, 0, 0);
    }
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_rectangle(cr, pn->x0, pn->y0, pn->w, pn->h);
    cairo_stroke(cr);
    lens_figure_set_font(cr, c->face, fs);
    if (o->xlabel)
        lens_figure_label(c->text, cr, pn->x0 + pn->w / 2, pn->y0 + pn->h + 1.6 * fs, o->xlabel, 0.5, 0, 0);
    /* turned a quarter left, clear of tick labels of up to about four characters */
    if (ylabel)
        lens_figure_label(c->text, cr, pn->x0 - 3.2 * fs, pn->y0 + pn->h / 2, ylabel, 0.5, 0.5, -M_PI / 2);
}

/* A polyline through values[p * stride] (scaled by unit) with a dot at each count. */
static void series(const struct lens_gainplot_opts *o, cairo_t *cr, const struct panel *pn,
                   const double *values, double unit, double fs)
{
    /* one count alone sits mid-panel: there is no span to spread it over */
    for (int p = 0; p < o->nprocs; p++) {
        double x = o->nprocs > 1 ? pn->x0 + pn->w * p / (o->nprocs - 1) : pn->x0 + pn->w / 2;
        double y = pn->y0 + pn->h - values[p] * unit / pn->top * pn->h;
        if (p == 0)
            cairo_move_to(cr, x, y);
        else
            cairo_line_to(cr, x, y);
    }
    cairo_set_line_width(cr, fmax(1.5, fs / 7));
    cairo_stroke(cr);
    /* dots solid whatever the line's dash: a dashed circle would look like a different mark */
    cairo_set_dash(cr, NULL, 0, 0);
    for (int p = 0; p < o->nprocs; p++) {
        double x = o->nprocs > 1 ? pn->x0 + pn->w * p / (o->nprocs - 1) : pn->x0 + pn->w / 2;
        cairo_arc(cr, x, pn->y0 + pn->h - values[p] * unit / pn->top * pn->h, 0.3 * fs, 0, 2 * M_PI);
        cairo_fill(cr);
    }
}

static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    (void)e;
    const struct lens_gainplot_opts *o = data;
    cairo_t *cr = c->cr;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    /* the base size follows the width, floored so the smallest text (0.9 of it) stays >= 7 pt */
    double fs = fmax(c->w / 60.0, lens_figure_font_floor(cr, 0) / 0.9);
    /* legend rows under the panels: one for the versions, one per two problems */
    int lrows = 1 + (o->nproblems + 1) / 2;
    double bottom = c->h - fs * (3.4 + 1.4 * lrows);
    double half = c->w / 2;
    /* two panels of equal width, each with 4.5 font sizes of room on its left for the
     * tick labels and the turned axis title */
    struct panel tp = {4.5 * fs, fs, half - 5.5 * fs, bottom - fs, 1};
    struct panel sp = {half + 4.5 * fs, fs, half - 5.5 * fs, bottom - fs, 1};
    double tmax = 0, smax = 0;
    for (int i = 0; i < o->nversions * o->nprocs; i++)
        tmax = fmax(tmax, o->time[i]);
    /* shares are drawn in percent, as the report's tables print them */
    for (int i = 0; i < o->nversions * o->nproblems * o->nprocs; i++)
        smax = fmax(smax, 100 * o->share[i]);
    axes(o, c, &tp, tmax, o->time_label, fs);
    axes(o, c, &sp, smax, o->share_label, fs);
    for (int v = 0; v < o->nversions; v++) {
        cairo_set_source_rgb(cr, vcol[v][0], vcol[v][1], vcol[v][2]);
        series(o, cr, &tp, o->time + (size_t)v * o->nprocs, 1, fs);
        for (int k = 0; k < o->nproblems; k++) {
            cairo_set_source_rgb(cr, pcol[k][0], pcol[k][1], pcol[k][2]);
            version_dash(cr, v, fs);
            series(o, cr, &sp, o->share + ((size_t)v * o->nproblems + k) * o->nprocs, 100, fs);
        }
    }
    /* legend: each version as a short line in its colour and its dash (which the share panel
     * uses for it), then each problem as a colour swatch */
    lens_figure_set_font(cr, c->face, 0.9 * fs);
    double ly = bottom + 3.4 * fs, lx = tp.x0;
    for (int v = 0; v < o->nversions; v++) {
        cairo_set_source_rgb(cr, vcol[v][0], vcol[v][1], vcol[v][2]);
        version_dash(cr, v, fs);
        cairo_set_line_width(cr, fmax(1.5, fs / 7));
        cairo_move_to(cr, lx, ly);
        cairo_line_to(cr, lx + 2.5 * fs, ly);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        lens_figure_label(c->text, cr, lx + 3 * fs, ly, o->version[v], 0, 0.5, 0);
        /* the next entry after this one's text: names of any length stay apart */
        lx += 4 * fs + lens_figure_text_width(cr, o->version[v]);
    }
    /* problems two to a row, under the two panels, below the versions' row */
    for (int k = 0; k < o->nproblems; k++) {
        double x = k % 2 ? half : tp.x0, y = ly + 1.4 * fs * (1 + k / 2);
        char name[96];
        /* a long rule name is cut so that two fit side by side */
        lens_figure_ellipsize(o->problem[k], 44, name, sizeof name);
        cairo_set_source_rgb(cr, pcol[k][0], pcol[k][1], pcol[k][2]);
        cairo_rectangle(cr, x, y - 0.4 * fs, 2.5 * fs, 0.8 * fs);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        lens_figure_label(c->text, cr, x + 3 * fs, y, name, 0, 0.5, 0);
    }
    return LENS_OK;
}

static const struct lens_figure_kind gain_kind = {"gain figure", LENS_FIGURE_TEXT, check, size, paint};

int lens_gainplot_write(const struct lens_gainplot_opts *o, const char *path, struct lens_err *e)
{
    struct lens_figure fig = {.kind = &gain_kind, .data = o, .font_path = o->font_path};
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_gainplot_png_mem(const struct lens_gainplot_opts *o, unsigned char **buf, size_t *len,
                          struct lens_err *e)
{
    struct lens_figure fig = {.kind = &gain_kind, .data = o, .font_path = o->font_path};
    return lens_figure_render(&fig, NULL, buf, len, e);
}
