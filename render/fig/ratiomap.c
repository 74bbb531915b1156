/* The ratio map and the before/after histograms of `mpilens compare` (ratiomap.h). The map
 * is heatmap.c's figure with a diverging colour map and a log range symmetric about 1; the
 * histograms are a figure kind of their own, small multiples with one panel per length. */
#include "ratiomap.h"

#include "colormap.h"
#include "figure.h"
#include "heatmap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lens_ratiomap_opts_init(struct lens_ratiomap_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1000;
    o->height = 760;
}

double lens_ratiomap_bound(const double *ratio, int n)
{
    double r = 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double x = ratio[(size_t)i * n + j];
            if (i == j || !(x > 0) || !isfinite(x))
                continue;
            double f = x >= 1 ? x : 1 / x;
            r = f > r ? f : r;
        }
    /* 1.25: a 10 % change (the default --min-change) still takes a visible share of the map */
    return r < 1.25 ? 1.25 : r > 16 ? 16 : r;
}

/* The heatmap options of a ratio map: displayed as the ratio itself (scale 1), log colours
 * over [1/r, r] so that 1 sits on the near-white centre entry of the diverging map. */
static void heat_opts(const double *ratio, int n, const struct lens_ratiomap_opts *o,
                      struct lens_heatmap_opts *h)
{
    lens_heatmap_opts_init(h);
    double r = lens_ratiomap_bound(ratio, n);
    h->title = o->title;
    h->unit = "NEW / BASE";
    h->scale = 1;
    h->log_scale = 1;
    h->fixed_range = 1;
    h->vmin = 1 / r;
    h->vmax = r;
    h->cmap = LENS_CMAP_DIVERGING;
    h->xlabel = "sender rank";
    h->ylabel = "receiver rank";
    h->width = o->width;
    h->height = o->height;
    h->font_path = o->font_path;
}

int lens_ratiomap_write(const double *ratio, int n, const struct lens_ratiomap_opts *o,
                        const char *path, struct lens_err *e)
{
    struct lens_heatmap_opts h;
    int svg = lens_figure_format(path, e);
    if (svg < 0)
        return svg;
    heat_opts(ratio, n, o, &h);
    return svg ? lens_heatmap_write_svg(ratio, n, n, &h, path, e) : lens_heatmap_write_png(ratio, n, n, &h, path, e);
}

int lens_ratiomap_png_mem(const double *ratio, int n, const struct lens_ratiomap_opts *o,
                          unsigned char **buf, size_t *len, struct lens_err *e)
{
    struct lens_heatmap_opts h;
    heat_opts(ratio, n, o, &h);
    return lens_heatmap_png_mem(ratio, n, n, &h, buf, len, e);
}

/* ---- before/after histograms ---- */

#define PANEL_COLS 4   /* panels per row: 16 lengths make a 4 x 4 page */
#define PANEL_H 190.0  /* height of one panel row, units */
#define TOP_H 70.0     /* title and legend */

static int hist_check(const void *data, const char *name, struct lens_err *e)
{
    const struct lens_ratiomap_hist *h = data;
    if (h->nlen < 1 || h->nlen > 4096 || h->nbins < 1 || h->nbins > 1000 || !h->lengths || !h->lo || !h->hi || !h->count)
        return lens_err_set(e, LENS_EINVAL, "%s: histograms need 1 to 4096 lengths and 1 to 1000 bins", name);
    for (int k = 0; k < h->nlen; k++)
        if (!(h->lo[k] < h->hi[k]) || !isfinite(h->lo[k]) || !isfinite(h->hi[k]))
            return lens_err_set(e, LENS_EINVAL, "%s: length %d B: empty range", name, h->lengths[k]);
    return LENS_OK;
}

static void hist_size(const void *data, double *w, double *h)
{
    const struct lens_ratiomap_hist *x = data;
    int rows = (x->nlen + PANEL_COLS - 1) / PANEL_COLS;
    *w = x->width > 0 ? x->width : 1000;
    *h = TOP_H + rows * PANEL_H;
}

/* One panel: BASE as grey bars, NEW as a red outline over them, the x axis in µs on a log
 * scale (the bins are even in log10), counts scaled to the panel's largest bin. */
static void panel(cairo_t *cr, cairo_font_face_t *face, const struct lens_ratiomap_hist *h, int k,
                  double x, double y, double w, double ht, double fs)
{
    const long *cb = h->count + (size_t)k * 2 * h->nbins, *cn = cb + h->nbins;
    long mx = 1;
    for (int b = 0; b < h->nbins; b++) {
        mx = cb[b] > mx ? cb[b] : mx;
        mx = cn[b] > mx ? cn[b] : mx;
    }
    /* the plot box inside the panel: room for the length above and the µs ticks below */
    double px = x + 0.6 * fs, py = y + 1.8 * fs, pw = w - 1.6 * fs, ph = ht - 4.2 * fs;
    double bw = pw / h->nbins;
    cairo_set_source_rgb(cr, 0.62, 0.62, 0.62);
    for (int b = 0; b < h->nbins; b++)
        if (cb[b]) {
            double bh = ph * (double)cb[b] / (double)mx;
            cairo_rectangle(cr, px + b * bw, py + ph - bh, bw, bh);
        }
    cairo_fill(cr);
    /* NEW as a staircase: over the grey bars, both shapes stay visible where they overlap */
    cairo_set_source_rgb(cr, 0.70, 0.09, 0.17);
    cairo_set_line_width(cr, 1.4);
    cairo_move_to(cr, px, py + ph);
    for (int b = 0; b < h->nbins; b++) {
        double top = py + ph - ph * (double)cn[b] / (double)mx;
        cairo_line_to(cr, px + b * bw, top);
        cairo_line_to(cr, px + (b + 1) * bw, top);
    }
    cairo_line_to(cr, px + pw, py + ph);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.8);
    cairo_rectangle(cr, px, py, pw, ph);
    cairo_stroke(cr);
    char buf[64];
    lens_figure_set_font(cr, face, fs);
    snprintf(buf, sizeof buf, "%d B", h->lengths[k]);
    lens_figure_text(cr, px + pw / 2, y + 0.3 * fs, buf, 0.5, 0, 0);
    /* ticks in µs: the range is log10(seconds), +6 for µs */
    double lo = pow(10, h->lo[k] + 6), hi = pow(10, h->hi[k] + 6), t[8], step;
    int nt = lens_figure_ticks(lo, hi, 1, 4, t, &step);
    lens_figure_set_font(cr, face, fs * 0.85);
    for (int q = 0; q < nt; q++) {
        double tx = px + pw * (log10(t[q]) - h->lo[k] - 6) / (h->hi[k] - h->lo[k]);
        cairo_move_to(cr, tx, py + ph);
        cairo_line_to(cr, tx, py + ph + 0.3 * fs);
        cairo_stroke(cr);
        lens_figure_format_value(t[q], step, buf, sizeof buf);
        lens_figure_text(cr, tx, py + ph + 0.4 * fs, buf, 0.5, 0, 0);
    }
}

static int hist_paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct lens_ratiomap_hist *h = data;
    cairo_t *cr = c->cr;
    double fs = 12;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    lens_figure_set_font(cr, c->face, fs * 1.25);
    double y = 0.6 * fs;
    if (h->title)
        y += 1.3 * fs * lens_figure_text_wrap(c->text, cr, c->w / 2, y, h->title, c->w - 2 * fs, 0.5, 1);
    /* the legend: which run is which, and what the axes are */
    lens_figure_set_font(cr, c->face, fs);
    cairo_set_source_rgb(cr, 0.62, 0.62, 0.62);
    cairo_rectangle(cr, fs, y + 0.5 * fs, 1.4 * fs, 0.9 * fs);
    cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    lens_figure_text(cr, 2.8 * fs, y + 0.4 * fs, "BASE", 0, 0, 0);
    cairo_set_source_rgb(cr, 0.70, 0.09, 0.17);
    cairo_set_line_width(cr, 1.4);
    cairo_move_to(cr, 7 * fs, y + 1.4 * fs);
    cairo_line_to(cr, 7 * fs, y + 0.5 * fs);
    cairo_line_to(cr, 8.4 * fs, y + 0.5 * fs);
    cairo_line_to(cr, 8.4 * fs, y + 1.4 * fs);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    lens_figure_text(cr, 9 * fs, y + 0.4 * fs, "NEW", 0, 0, 0);
    lens_figure_text(cr, c->w - fs, y + 0.4 * fs, "delay (µs, log scale); bar height: pairs, per panel", 1, 0, 0);
    double pw = (c->w - fs) / PANEL_COLS;
    for (int k = 0; k < h->nlen; k++)
        panel(cr, c->face, h, k, 0.5 * fs + (k % PANEL_COLS) * pw, TOP_H + (k / PANEL_COLS) * PANEL_H, pw, PANEL_H, fs);
    return lens_figure_status(cr, c->name, e);
}

static const struct lens_figure_kind hist_kind = {"before/after histograms", LENS_FIGURE_TEXT, hist_check, hist_size,
                                                  hist_paint};

int lens_ratiomap_hist_write(const struct lens_ratiomap_hist *h, const char *path, struct lens_err *e)
{
    struct lens_figure f = {.kind = &hist_kind, .data = h, .font_path = h->font_path, .title = h->title};
    return lens_figure_render(&f, path, NULL, NULL, e);
}

int lens_ratiomap_hist_png_mem(const struct lens_ratiomap_hist *h, unsigned char **buf, size_t *len,
                               struct lens_err *e)
{
    struct lens_figure f = {.kind = &hist_kind, .data = h, .font_path = h->font_path, .title = h->title};
    return lens_figure_render(&f, NULL, buf, len, e);
}

/* ---- two sweeps: both curves per pair ---- */

#define CURVE_COLS 2   /* panels per row: a sweep has few pairs, each wants room for its sizes */
#define CURVE_H 300.0  /* height of one row of panels, units */

static int curves_check(const void *data, const char *name, struct lens_err *e)
{
    const struct lens_ratiomap_curves *c = data;
    if (c->npairs < 1 || c->npairs > 4096 || c->npts < 1 || !c->pts)
        return lens_err_set(e, LENS_EINVAL, "%s: sweep curves need 1 to 4096 pairs and a point", name);
    for (int x = 0; x < c->npts; x++) {
        const double *p = c->pts + 4 * (size_t)x;
        /* a log axis cannot place a latency <= 0; the pair indexes the panels */
        if (!(p[0] >= 0 && p[0] < c->npairs) || !(p[2] > 0) || !(p[3] > 0) || !isfinite(p[2]) || !isfinite(p[3]))
            return lens_err_set(e, LENS_EINVAL, "%s: point %d: bad pair or latency", name, x);
    }
    return LENS_OK;
}

static void curves_size(const void *data, double *w, double *h)
{
    const struct lens_ratiomap_curves *c = data;
    *w = c->width > 0 ? c->width : 1000;
    *h = TOP_H + ((c->npairs + CURVE_COLS - 1) / CURVE_COLS) * CURVE_H;
}

/* One pair's panel: sizes evenly spaced in sweep order (powers of two, and 0 B, which a log
 * axis could not place), latency in µs on a log axis over both runs' range. */
static void curve_panel(cairo_t *cr, cairo_font_face_t *face, const struct lens_ratiomap_curves *c, int q,
                        double x, double y, double w, double ht, double fs)
{
    int first = -1, n = 0;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < c->npts; i++)
        if ((int)c->pts[4 * (size_t)i] == q) {
            first = first < 0 ? i : first;
            n++;
            for (int r = 2; r < 4; r++) {
                double v = log10(c->pts[4 * (size_t)i + r] * 1e6);
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
        }
    char buf[128];
    double px = x + 3.5 * fs, py = y + 1.8 * fs, pw = w - 4.5 * fs, ph = ht - 4.6 * fs;
    cairo_set_source_rgb(cr, 0, 0, 0);
    lens_figure_set_font(cr, face, fs);
    if (c->labels && c->labels[q])
        snprintf(buf, sizeof buf, "%s", c->labels[q]);
    else
        snprintf(buf, sizeof buf, "pair %d", q);
    lens_figure_text(cr, px + pw / 2, y + 0.3 * fs, buf, 0.5, 0, 0);
    cairo_set_line_width(cr, 0.8);
    cairo_rectangle(cr, px, py, pw, ph);
    cairo_stroke(cr);
    if (n == 0)
        return;
    /* a little room above and below the extremes, and a visible range for a flat curve */
    if (hi - lo < 0.1)
        lo -= 0.05, hi += 0.05;
    double pad = 0.05 * (hi - lo);
    lo -= pad;
    hi += pad;
    double step, t[8];
    int nt = lens_figure_ticks(pow(10, lo), pow(10, hi), 1, 5, t, &step);
    lens_figure_set_font(cr, face, fs * 0.85);
    for (int k = 0; k < nt; k++) {
        double ty = py + ph - ph * (log10(t[k]) - lo) / (hi - lo);
        cairo_move_to(cr, px - 0.3 * fs, ty);
        cairo_line_to(cr, px, ty);
        cairo_stroke(cr);
        lens_figure_format_value(t[k], step, buf, sizeof buf);
        lens_figure_text(cr, px - 0.4 * fs, ty, buf, 1, 0.5, 0);
    }
    /* every other size labelled when they crowd: 14 sizes fit a half-page panel */
    int every = n > 12 ? 2 : 1;
    for (int i = 0; i < n; i += every) {
        double tx = px + pw * (i + 0.5) / n;
        snprintf(buf, sizeof buf, "%.0f", c->pts[4 * (size_t)(first + i) + 1]);
        lens_figure_text(cr, tx, py + ph + 0.4 * fs, buf, 0.5, 0, 0);
    }
    lens_figure_text(cr, px + pw / 2, py + ph + 1.7 * fs, "message size (bytes)", 0.5, 0, 0);
    /* BASE grey under NEW red, markers at every size so a single changed size shows */
    static const double col[2][3] = {{0.45, 0.45, 0.45}, {0.70, 0.09, 0.17}};
    for (int r = 0; r < 2; r++) {
        cairo_set_source_rgb(cr, col[r][0], col[r][1], col[r][2]);
        cairo_set_line_width(cr, 1.6);
        for (int i = 0; i < n; i++) {
            double v = log10(c->pts[4 * (size_t)(first + i) + 2 + r] * 1e6);
            double tx = px + pw * (i + 0.5) / n, ty = py + ph - ph * (v - lo) / (hi - lo);
            if (i)
                cairo_line_to(cr, tx, ty);
            else
                cairo_move_to(cr, tx, ty);
        }
        cairo_stroke(cr);
        for (int i = 0; i < n; i++) {
            double v = log10(c->pts[4 * (size_t)(first + i) + 2 + r] * 1e6);
            cairo_arc(cr, px + pw * (i + 0.5) / n, py + ph - ph * (v - lo) / (hi - lo), 2.2, 0, 2 * M_PI);
            cairo_fill(cr);
        }
    }
}

static int curves_paint(const void *data, const struct lens_figure_canvas *cv, struct lens_err *e)
{
    const struct lens_ratiomap_curves *c = data;
    cairo_t *cr = cv->cr;
    double fs = 12;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    lens_figure_set_font(cr, cv->face, fs * 1.25);
    double y = 0.6 * fs;
    if (c->title)
        y += 1.3 * fs * lens_figure_text_wrap(cv->text, cr, cv->w / 2, y, c->title, cv->w - 2 * fs, 0.5, 1);
    lens_figure_set_font(cr, cv->face, fs);
    /* the legend: which line is which run */
    static const double col[2][3] = {{0.45, 0.45, 0.45}, {0.70, 0.09, 0.17}};
    static const char *const name[2] = {"BASE", "NEW"};
    for (int r = 0; r < 2; r++) {
        double lx = fs + r * 6 * fs;
        cairo_set_source_rgb(cr, col[r][0], col[r][1], col[r][2]);
        cairo_set_line_width(cr, 1.6);
        cairo_move_to(cr, lx, y + fs);
        cairo_line_to(cr, lx + 1.6 * fs, y + fs);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        lens_figure_text(cr, lx + 2 * fs, y + 0.4 * fs, name[r], 0, 0, 0);
    }
    lens_figure_text(cr, cv->w - fs, y + 0.4 * fs, "mean one-way latency (µs, log scale)", 1, 0, 0);
    double pw = (cv->w - fs) / CURVE_COLS;
    for (int q = 0; q < c->npairs; q++)
        curve_panel(cr, cv->face, c, q, 0.5 * fs + (q % CURVE_COLS) * pw, TOP_H + (q / CURVE_COLS) * CURVE_H, pw,
                    CURVE_H, fs);
    return lens_figure_status(cr, cv->name, e);
}

static const struct lens_figure_kind curves_kind = {"sweep curves", LENS_FIGURE_TEXT, curves_check, curves_size,
                                                    curves_paint};

int lens_ratiomap_curves_write(const struct lens_ratiomap_curves *c, const char *path, struct lens_err *e)
{
    struct lens_figure f = {.kind = &curves_kind, .data = c, .font_path = c->font_path, .title = c->title};
    return lens_figure_render(&f, path, NULL, NULL, e);
}

int lens_ratiomap_curves_png_mem(const struct lens_ratiomap_curves *c, unsigned char **buf, size_t *len,
                                 struct lens_err *e)
{
    struct lens_figure f = {.kind = &curves_kind, .data = c, .font_path = c->font_path, .title = c->title};
    return lens_figure_render(&f, NULL, buf, len, e);
}
