/* Log-log figures of the p2p sweep with cairo. The x axis is log2 of the size with ticks at
 * powers of two labelled in B/KiB/MiB, plus a "0" column left of a break for 0-byte
 * messages; the y axis is log10 with decade ticks. One layout function places everything
 * relative to the box it is given, so the same drawing serves files, PDF and callers. */
#include "p2pplot.h"
#include "common/atomic.h"
#include "figure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FIG_W 900
#define FIG_H 560

/* Okabe-Ito without the yellow, which is unreadable on white, plus a grey. */
static const double PALETTE[8][3] = {
    {0.835, 0.369, 0.000}, {0.000, 0.447, 0.698}, {0.000, 0.620, 0.451}, {0.800, 0.475, 0.655},
    {0.902, 0.624, 0.000}, {0.337, 0.706, 0.914}, {0.000, 0.000, 0.000}, {0.500, 0.500, 0.500}};

/* File names, figure titles and axis titles per metric, indexed by enum lens_p2pplot_metric. */
static const char *const metric_names[LENS_P2PPLOT_NMETRICS] = {"latency", "bandwidth", "msg_rate"};
static const char *const metric_titles[LENS_P2PPLOT_NMETRICS] = {
    "One-way latency (ping-pong)", "Bandwidth (window of messages)", "Message rate (window of messages)"};
static const char *const metric_axis[LENS_P2PPLOT_NMETRICS] = {"latency (µs)", "bandwidth (MB/s)",
                                                               "messages per second"};

/* The table's headings, shared by the command's output and the PDF. */
const char *const lens_p2pplot_headers[LENS_P2PPLOT_NCOLS] = {
    "size", "latency median (µs)", "latency min (µs)", "bandwidth median (MB/s)", "msg rate median (/s)"};

/* 900 x 560 reads well on a screen and at the PDF's text width; the mean is shown because a
 * mean far above the median is the sign of outliers. */
void lens_p2pplot_opts_init(struct lens_p2pplot_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = FIG_W;
    o->height = FIG_H;
    o->show_mean = 1;
    o->max_legend = 12;
}

const char *lens_p2pplot_metric_name(int metric)
{
    /* NULL outside the enum: callers building file names must not get a stray pointer. */
    return metric >= 0 && metric < LENS_P2PPLOT_NMETRICS ? metric_names[metric] : NULL;
}

void lens_p2pplot_format_size(long long bytes, char *buf, size_t n)
{
    static const char *const unit[4] = {"B", "KiB", "MiB", "GiB"};
    double v = (double)bytes;
    int u = 0;
    /* Binary units: message sizes are powers of two, and 4 KiB reads better than 4.1 kB. */
    while (u < 3 && fabs(v) >= 1024) {
        v /= 1024;
        u++;
    }
    /* Bytes are exact: "512 B", not "512.0 B"; the larger units get three significant digits. */
    if (u == 0)
        snprintf(buf, n, "%lld B", bytes);
    else
        snprintf(buf, n, "%.3g %s", v, unit[u]);
}

/* A rate tick: 500, 20k, 1M, 2.5G. */
static void format_rate(double v, char *buf, size_t n)
{
    static const char suffix[4] = {'\0', 'k', 'M', 'G'};
    int u = 0;
    while (u < 3 && v >= 1000) {
        v /= 1000;
        u++;
    }
    /* "%.1s" prints the one suffix letter, or nothing for plain numbers. */
    snprintf(buf, n, "%g%.1s", v, u ? &suffix[u] : "");
}

/* The displayed value of metric at pt: median (mean = 0) or mean (mean = 1); NaN when it
 * cannot go on a log axis. */
static double value(const struct lens_p2p_point *pt, int metric, int mean)
{
    double v;
    if (metric == LENS_P2PPLOT_LATENCY)
        /* Drawn in µs, MB/s (10^6, as OSU reports it) and messages per second. */
        v = (mean ? pt->latency_s : pt->latency_median_s) * 1e6;
    else if (metric == LENS_P2PPLOT_BANDWIDTH)
        /* A 0-byte message carries no data: its bandwidth is 0, which a log axis cannot show. */
        v = pt->size_bytes > 0 ? (mean ? pt->bandwidth_Bps : pt->bandwidth_median_Bps) * 1e-6 : NAN;
    else
        v = mean ? pt->msg_rate_per_s : pt->msg_rate_median_per_s;
    /* NaN is "not drawn" for every caller: zero, negative and missing alike. */
    return isfinite(v) && v > 0 ? v : NAN;
}

struct frame {
    double px0, py0, px1, py1;  /* plot area */
    double lx0;                 /* left end of the log-size area (px0 without a 0 column) */
    double zx;                  /* x of the 0 B column, NaN without one */
    double e0, e1;              /* log2 size range shown */
    double d0, d1;              /* log10 value range shown */
    double fs;                  /* base font size */
};

static double fx(const struct frame *fr, double bytes)
{
    /* log2 across: each doubling of the size is one step, which is how the sweep samples it. */
    return fr->lx0 + (log2(bytes) - fr->e0) / (fr->e1 - fr->e0) * (fr->px1 - fr->lx0);
}

static double fy(const struct frame *fr, double v)
{
    /* log10 up: latency spans microseconds to milliseconds over the sizes, bandwidth decades. */
    return fr->py1 - (log10(v) - fr->d0) / (fr->d1 - fr->d0) * (fr->py1 - fr->py0);
}

/* A marker: circle within a node, square across nodes. */
static void marker(cairo_t *cr, double x, double y, double r, int inter)
{
    if (inter)
        cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r);
    else
        /* The circle a little larger than the square's half side, so both look the same size. */
        cairo_arc(cr, x, y, r * 1.12, 0, 2 * M_PI);
    cairo_fill(cr);
}

static void colour(cairo_t *cr, int p)
{
    /* Pairs past the eighth repeat colours; their markers and legend order still tell them apart. */
    const double *c = PALETTE[p % 8];
    cairo_set_source_rgb(cr, c[0], c[1], c[2]);
}

/* The value and size ranges over every drawable point; returns 0 when there is none. */
static int ranges(const struct lens_p2pfile *f, int metric, int show_mean, double *vlo, double *vhi,
                  double *slo, double *shi, int *zero)
{
    int any = 0;
    /* Empty ranges start inverted: the first drawable value sets both ends. */
    *vlo = INFINITY, *vhi = -INFINITY, *slo = INFINITY, *shi = -INFINITY;
    *zero = 0;
    for (int p = 0; p < f->npairs; p++)
        for (int k = 0; k < f->pair[p].nsize; k++) {
            const struct lens_p2p_point *pt = &f->pair[p].pt[k];
            /* The mean counts for the ranges only when it is drawn. */
            for (int m = 0; m <= show_mean; m++) {
                double v = value(pt, metric, m);
                if (isnan(v))
                    continue;
                any = 1;
                *vlo = fmin(*vlo, v);
                *vhi = fmax(*vhi, v);
                /* 0 B widens the value range but not the size range: it has its own column. */
                if (pt->size_bytes == 0) {
                    *zero = 1;
                } else {
                    *slo = fmin(*slo, (double)pt->size_bytes);
                    *shi = fmax(*shi, (double)pt->size_bytes);
                }
            }
        }
    if (!(*slo <= *shi)) /* only 0 B drawable: a nominal 1 B .. 1 KiB axis */
        *slo = 1, *shi = 1024;
    return any;
}

/* Log-log axes: value decades with a grid, size ticks at powers of two, the frame, and the
 * 0 B column with its break when there is one. */
static void axes(cairo_t *cr, const struct frame *fr, int metric)
{
    double fs = fr->fs, ticks[16], step;
    char buf[64];
    /* horizontal grid and value ticks */
    /* Decade ticks (with 2x and 5x when there are few decades) from the log helper. */
    int nt = lens_figure_ticks(pow(10, fr->d0), pow(10, fr->d1), 1, 10, ticks, &step);
    /* Grid lines first, each with its label at the left end. */
    cairo_set_line_width(cr, 0.06 * fs);
    for (int i = 0; i < nt; i++) {
        double y = fy(fr, ticks[i]);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, fr->px0, y);
        cairo_line_to(cr, fr->px1, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        /* Rates run to millions: 2.5M reads better than 2500000 or 2.5e+06. */
        if (metric == LENS_P2PPLOT_RATE)
            format_rate(ticks[i], buf, sizeof buf);
        else
            lens_figure_format_value(ticks[i], 0, buf, sizeof buf);
        lens_figure_text(cr, fr->px0 - 0.5 * fs, y, buf, 1, 0.5, 0);
    }
    /* size ticks at powers of two, labelled every st-th so that at most 8 labels show */
    int a = (int)ceil(fr->e0 - 1e-9), b = (int)floor(fr->e1 + 1e-9), st = 1;
    while ((b - a) / st + 1 > 8)
        st *= 2;
    cairo_set_source_rgb(cr, 0, 0, 0);
    /* A tick at every power of two, long and labelled on every st-th, short in between. */
    for (int k = a; k <= b; k++) {
        double x = fx(fr, ldexp(1, k));
        int major = k % st == 0;
        cairo_move_to(cr, x, fr->py1);
        cairo_line_to(cr, x, fr->py1 + (major ? 0.45 : 0.25) * fs);
        cairo_stroke(cr);
        if (major) {
            lens_p2pplot_format_size((long long)ldexp(1, k), buf, sizeof buf);
            lens_figure_text(cr, x, fr->py1 + 0.6 * fs, buf, 0.5, 0, 0);
        }
    }
    /* The frame after the ticks, so the tick stubs start at its edge. */
    cairo_set_line_width(cr, 0.08 * fs);
    cairo_rectangle(cr, fr->px0, fr->py0, fr->px1 - fr->px0, fr->py1 - fr->py0);
    cairo_stroke(cr);
    if (!isnan(fr->zx)) {
        /* the 0 column: its tick, a dotted separator and a break mark on the size axis */
        cairo_move_to(cr, fr->zx, fr->py1);
        cairo_line_to(cr, fr->zx, fr->py1 + 0.45 * fs);
        cairo_stroke(cr);
        lens_figure_text(cr, fr->zx, fr->py1 + 0.6 * fs, "0", 0.5, 0, 0);
        /* The break sits between the 0 column and the log axis, a little towards the axis. */
        double bx = (fr->zx + fr->lx0) / 2 + 0.1 * (fr->lx0 - fr->zx), g = 0.22 * fs;
        /* A dotted grey line up from the break separates the 0 column from the log axis. */
        double dash[2] = {0.15 * fs, 0.25 * fs};
        cairo_save(cr);
        cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, bx, fr->py0);
        cairo_line_to(cr, bx, fr->py1);
        cairo_stroke(cr);
        cairo_restore(cr);
        /* White gap in the axis line, then the "//" strokes across it: the scale is broken here. */
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_rectangle(cr, bx - g, fr->py1 - 0.3 * fs, 2 * g, 0.6 * fs);
        cairo_fill(cr);
        /* Two short slanted strokes across the gap: the break mark. */
        cairo_set_source_rgb(cr, 0, 0, 0);
        for (int s = -1; s <= 1; s += 2) {
            cairo_move_to(cr, bx + s * g - 0.2 * fs, fr->py1 + 0.35 * fs);
            cairo_line_to(cr, bx + s * g + 0.2 * fs, fr->py1 - 0.35 * fs);
            cairo_stroke(cr);
        }
    }
}

/* One pair: the mean dashed (no markers), the median solid with markers, the 0 B median. */
static void series(cairo_t *cr, const struct frame *fr, const struct lens_p2p_pair *q, int p, int metric,
                   int show_mean)
{
    double fs = fr->fs, r = 0.26 * fs;
    colour(cr, p);
    /* Mean first and thinner, dashed; the median drawn over it, solid: the median is the number
     * the tables quote. */
    for (int m = show_mean; m >= 0; m--) {
        int open = 0;
        cairo_set_line_width(cr, (m ? 0.07 : 0.14) * fs);
        double dash[2] = {0.5 * fs, 0.3 * fs};
        cairo_set_dash(cr, dash, m ? 2 : 0, 0);
        for (int k = 0; k < q->nsize; k++) {
            double v = value(&q->pt[k], metric, m);
            /* 0 B stays out of the lines: it sits in its own column, left of the break. */
            if (q->pt[k].size_bytes == 0 || isnan(v)) {
                open = 0; /* a gap where a value is missing */
                continue;
            }
            /* Consecutive points joined; after a gap the line starts afresh with move_to. */
            double x = fx(fr, (double)q->pt[k].size_bytes), y = fy(fr, v);
            if (open)
                cairo_line_to(cr, x, y);
            else
                cairo_move_to(cr, x, y);
            open = 1;
        }
        cairo_stroke(cr);
    }
    cairo_set_dash(cr, NULL, 0, 0);
    for (int k = 0; k < q->nsize; k++) {
        double v = value(&q->pt[k], metric, 0);
        if (isnan(v))
            continue;
        /* Markers on the median only, 0 B in its column; without a 0 column (zx NaN) it is skipped. */
        double x = q->pt[k].size_bytes == 0 ? fr->zx : fx(fr, (double)q->pt[k].size_bytes);
        if (!isnan(x))
            marker(cr, x, fy(fr, v), r, q->inter);
    }
}

/* Legend in the column (x, y0 .. w): one entry per pair up to max, then the key. */
static void legend(cairo_t *cr, const struct lens_p2pfile *f, const int *drawn, int max, int show_mean,
                   double x, double y0, double w, double ymax, double fs)
{
    double lh = 1.45 * fs, y = y0 + 0.5 * fs, sw = 1.8 * fs;
    char buf[256];
    int shown = 0, total = 0;
    for (int p = 0; p < f->npairs; p++) {
        if (!drawn[p])
            continue;
        /* Every drawable pair counts, shown or not, for the "+ N more" line. */
        total++;
        /* Room is kept for the "+ N more" line and the key below the entries. */
        if (shown >= max || y + lh > ymax - 4 * lh)
            continue;
        /* The entry repeats the series' look: its colour, line and marker shape. */
        colour(cr, p);
        cairo_set_line_width(cr, 0.14 * fs);
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + sw, y);
        cairo_stroke(cr);
        marker(cr, x + sw / 2, y, 0.26 * fs, f->pair[p].inter);
        cairo_set_source_rgb(cr, 0, 0, 0);
        /* Labels cut to the column: 0.55 em is about DejaVu Sans' mean advance. */
        int maxcp = (int)((w - sw - 0.5 * fs) / (0.55 * fs));
        lens_figure_ellipsize(f->pair[p].label, maxcp > 4 ? maxcp : 4, buf, sizeof buf);
        lens_figure_text(cr, x + sw + 0.5 * fs, y, buf, 0, 0.5, 0);
        /* One line height per entry; labels cut so that they never run off the figure. */
        y += lh;
        shown++;
    }
    /* What did not fit is counted rather than dropped silently. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (shown < total) {
        snprintf(buf, sizeof buf, "+ %d more", total - shown);
        lens_figure_text(cr, x, y, buf, 0, 0.5, 0);
        y += lh;
    }
    /* the key: line styles and marker shapes */
    y += 0.4 * lh;
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    cairo_set_line_width(cr, 0.14 * fs);
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x + sw, y);
    cairo_stroke(cr);
    lens_figure_text(cr, x + sw + 0.5 * fs, y, "median", 0, 0.5, 0);
    y += lh;
    /* The mean's key only when the mean is drawn. */
    if (show_mean) {
        double dash[2] = {0.5 * fs, 0.3 * fs};
        cairo_set_line_width(cr, 0.07 * fs);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + sw, y);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        lens_figure_text(cr, x + sw + 0.5 * fs, y, "mean", 0, 0.5, 0);
        y += lh;
    }
    /* Marker shapes: circles for pairs inside a node, squares for pairs across nodes; a
     * shape is keyed only when a drawn pair has it (a one-node sweep has no squares). */
    int intra = 0, inter = 0;
    for (int p = 0; p < f->npairs; p++) {
        intra += drawn[p] && !f->pair[p].inter;
        inter += drawn[p] && f->pair[p].inter;
    }
    if (intra) {
        marker(cr, x + sw / 2, y, 0.26 * fs, 0);
        lens_figure_text(cr, x + sw + 0.5 * fs, y, "within a node", 0, 0.5, 0);
        y += lh;
    }
    if (inter) {
        marker(cr, x + sw / 2, y, 0.26 * fs, 1);
        lens_figure_text(cr, x + sw + 0.5 * fs, y, "across nodes", 0, 0.5, 0);
    }
}

/* Everything placed relative to the box (x, y, w, h): the same code draws files and pages. */
int lens_p2pplot_draw(cairo_t *cr, const struct lens_p2pfile *f, int metric,
                      const struct lens_p2pplot_opts *o, cairo_font_face_t *face, double x,
                      double y, double w, double h, struct lens_err *e)
{
    struct lens_p2pplot_opts def;
    if (!o) {
        lens_p2pplot_opts_init(&def);
        o = &def;
    }
    /* Checked here too: this is also a public function drawing into a caller's box. */
    if (metric < 0 || metric >= LENS_P2PPLOT_NMETRICS)
        return lens_err_set(e, LENS_EINVAL, "%s: no p2p figure %d", f->path, metric);
    if (!(w >= 100 && h >= 80))
        return lens_err_set(e, LENS_EINVAL, "%s: figure box %gx%g is too small (100x80 at least)",
                            f->path, w, h);
    /* Which pairs have a drawable point: only those get a legend entry. +1: a file of no pairs
     * still allocates. */
    int *drawn = lens_calloc((size_t)f->npairs + 1, sizeof *drawn);
    if (!drawn)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", f->path);
    struct frame fr;
    /* The font follows the box (68 em across, 40 down), within 6..16 units. */
    fr.fs = fmin(fmax(fmin(w / 68, h / 40), 6), 16);
    /* For print the smallest text (0.85 fs) keeps the print floor; the frame grows with it. */
    fr.fs = fmax(fr.fs, lens_figure_font_floor(cr, 0) / 0.85);
    double fs = fr.fs;
    cairo_save(cr);
    lens_figure_set_font(cr, face, fs);

    /* legend column: as wide as the longest label, at most a third of the figure */
    double lw = lens_figure_text_width(cr, "within a node");
    for (int p = 0; p < f->npairs; p++) {
        double tw = lens_figure_text_width(cr, f->pair[p].label);
        lw = tw > lw ? tw : lw;
    }
    lw = fmin(lw + 3.2 * fs, w / 3);
    /* Room left for the value labels and the rotated axis title, below for the size labels. */
    fr.px0 = x + 5.2 * fs;
    fr.px1 = x + w - lw - 1.2 * fs;
    fr.py0 = y + 2.6 * fs;
    fr.py1 = y + h - 3.4 * fs;

    double vlo, vhi, slo, shi;
    int sm = o->show_mean != 0;
    int zero, any = ranges(f, metric, sm, &vlo, &vhi, &slo, &shi, &zero);
    /* decades that enclose the values; the size axis a little wider than the sizes */
    fr.d0 = any ? floor(log10(vlo)) : 0;
    fr.d1 = any ? ceil(log10(vhi)) : 1;
    if (fr.d1 <= fr.d0)
        fr.d1 = fr.d0 + 1;
    /* Half a doubling of margin at each end, so end markers are not cut by the frame. */
    fr.e0 = log2(slo) - 0.5;
    fr.e1 = log2(shi) + 0.5;
    fr.zx = NAN;
    fr.lx0 = fr.px0;
    /* 9% of the plot for the 0 B column, its tick at 45% of that, the axis break in the rest. */
    if (zero) {
        double zw = 0.09 * (fr.px1 - fr.px0);
        fr.zx = fr.px0 + zw * 0.45;
        fr.lx0 = fr.px0 + zw;
    }

    /* The title centred over the plot, not the whole figure, so that it does not sit over the legend. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    lens_figure_set_font(cr, face, 1.2 * fs);
    lens_figure_text(cr, (fr.px0 + fr.px1) / 2, y + 0.5 * fs, o->title ? o->title : metric_titles[metric],
                     0.5, 0, 0);
    /* Axis labels a little smaller than the titles. */
    lens_figure_set_font(cr, face, 0.85 * fs);
    axes(cr, &fr, metric);
    lens_figure_set_font(cr, face, fs);
    /* Axis titles: size under the plot, the metric and its unit rotated on the left. */
    lens_figure_text(cr, (fr.px0 + fr.px1) / 2, y + h - 0.3 * fs, "message size", 0.5, 1, 0);
    lens_figure_text(cr, x + 0.2 * fs, (fr.py0 + fr.py1) / 2, metric_axis[metric], 0.5, 0, -M_PI / 2);
    if (!any) {
        lens_figure_text(cr, (fr.px0 + fr.px1) / 2, (fr.py0 + fr.py1) / 2, "no positive values to plot",
                         0.5, 0.5, 0);
    } else {
        cairo_save(cr);
        /* The decades are rounded outwards, but a thick line may still cross the frame: clip. */
        cairo_rectangle(cr, fr.px0, fr.py0, fr.px1 - fr.px0, fr.py1 - fr.py0);
        cairo_clip(cr);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        for (int p = 0; p < f->npairs; p++) {
            /* A pair with no positive median at any size (bandwidth of a 0 B-only sweep) is left out. */
            for (int k = 0; k < f->pair[p].nsize && !drawn[p]; k++)
                drawn[p] = !isnan(value(&f->pair[p].pt[k], metric, 0));
            if (drawn[p])
                series(cr, &fr, &f->pair[p], p, metric, sm);
        }
        cairo_restore(cr);
    }
    lens_figure_set_font(cr, face, 0.85 * fs);
    legend(cr, f, drawn, o->max_legend > 0 ? o->max_legend : 12, sm, fr.px1 + 1.2 * fs, fr.py0,
           lw - 0.2 * fs, fr.py1, 0.85 * fs);
    cairo_restore(cr);
    lens_free(drawn);
    return LENS_OK;
}

/* The figure's data for the protocol of figure.h. */
struct job {
    const struct lens_p2pfile *f;
    int metric;
    const struct lens_p2pplot_opts *o; /* never NULL */
};

static int check(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    /* below 100 x 80 the axes leave no plot area; 16384 a side bounds the image's memory */
    if (j->o->width < 100 || j->o->height < 80 || j->o->width > 16384 || j->o->height > 16384)
        return lens_err_set(e, LENS_EINVAL, "%s: figure size %dx%d outside 100x80 .. 16384x16384", name,
                            j->o->width, j->o->height);
    return LENS_OK;
}

static void size(const void *data, double *w, double *h)
{
    const struct job *j = data;
    *w = j->o->width;
    *h = j->o->height;
}

/* lens_p2pplot_draw leaves the background alone (it also draws into report pages): a file
 * gets white under it. */
static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct job *j = data;
    cairo_set_source_rgb(c->cr, 1, 1, 1);
    cairo_paint(c->cr);
    return lens_p2pplot_draw(c->cr, j->f, j->metric, j->o, c->face, 0, 0, c->w, c->h, e);
}

static const struct lens_figure_kind p2pplot_kind = {"p2p plot", LENS_FIGURE_ALPHA, check, size, paint};

static struct lens_figure figure(struct job *j, const struct lens_p2pfile *f, int metric,
                                 const struct lens_p2pplot_opts *o, struct lens_p2pplot_opts *def)
{
    if (!o) {
        lens_p2pplot_opts_init(def);
        o = def;
    }
    *j = (struct job){f, metric, o};
    /* messages about a figure in memory name the sweep it shows */
    return (struct lens_figure){.kind = &p2pplot_kind, .data = j, .font_path = o->font_path, .name = f->path};
}

int lens_p2pplot_write(const struct lens_p2pfile *f, int metric, const struct lens_p2pplot_opts *o,
                       const char *path, struct lens_err *e)
{
    struct job j;
    struct lens_p2pplot_opts def;
    struct lens_figure fig = figure(&j, f, metric, o, &def);
    size_t n = strlen(path);
    /* the contract of this writer: ".svg" is SVG, any other name PNG */
    fig.as = n >= 4 && !strcmp(path + n - 4, ".svg") ? LENS_FIGURE_AS_SVG : LENS_FIGURE_AS_PNG;
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_p2pplot_png_mem(const struct lens_p2pfile *f, int metric, const struct lens_p2pplot_opts *o,
                         unsigned char **buf, size_t *len, struct lens_err *e)
{
    struct job j;
    struct lens_p2pplot_opts def;
    struct lens_figure fig = figure(&j, f, metric, o, &def);
    return lens_figure_render(&fig, NULL, buf, len, e);
}

int lens_p2pplot_write_dir(const struct lens_p2pfile *f, const struct lens_p2pplot_opts *o,
                           const char *dir, const char *stem, struct lens_err *e)
{
    char *where = NULL; /* a new folder is built aside and appears with the other outputs */
    int rc = lens_atomic_dir(dir, &where, e);
    static const char *const ext[2] = {"png", "svg"};
    for (int m = 0; rc == LENS_OK && m < LENS_P2PPLOT_NMETRICS; m++)
        for (int x = 0; rc == LENS_OK && x < 2; x++) {
            char path[4096];
            if ((size_t)snprintf(path, sizeof path, "%s/%s_%s.%s", where, stem, metric_names[m], ext[x]) >= sizeof path)
                rc = lens_err_set(e, LENS_EINVAL, "%s: path too long", dir);
            else
                rc = lens_p2pplot_write(f, m, o, path, e);
        }
    lens_free(where);
    return rc;
}

/* The formula of the metric, the statistics shown and what the markers mean: a figure in the
 * report must be readable without the manual. */
void lens_p2pplot_caption(const struct lens_p2pfile *f, int metric, char *buf, size_t n)
{
    int zero = 0, inter = 0, intra = 0;
    for (int p = 0; p < f->npairs; p++) {
        inter += f->pair[p].inter;
        intra += !f->pair[p].inter;
        zero |= f->pair[p].nsize > 0 && f->pair[p].pt[0].size_bytes == 0;
    }
    char k[32] = "k";
    if (f->window > 0)
        snprintf(k, sizeof k, "k = %d", f->window);
    char head[256];
    if (metric == LENS_P2PPLOT_LATENCY)
        snprintf(head, sizeof head, "One-way latency L = T/2c from a ping-pong of c round trips with the same "
                 "size both ways");
    else if (metric == LENS_P2PPLOT_BANDWIDTH)
        snprintf(head, sizeof head, "Bandwidth B = k*s/T for a window of %s messages of s bytes answered by an "
                 "empty reply", k);
    else
        snprintf(head, sizeof head, "Message rate M = k/T for a window of %s messages answered by an empty reply", k);
    /* Say how 0 B is shown in words too: readers of the PDF may not notice the axis break. */
    const char *zero_text = !zero ? ""
                            : metric == LENS_P2PPLOT_BANDWIDTH ? " A 0-byte message carries no data: its bandwidth is 0 and is not drawn."
                                                               : " 0-byte messages are drawn in the separate \"0\" column left of the axis break.";
    snprintf(buf, n, "%s; median over the iterations (solid, markers) and mean over the run (dashed), "
             "log-log axes.%s %s", head, zero_text,
             /* Name only the marker shapes that occur. */
             inter && intra ? "Circles: pairs within a node; squares: pairs across nodes."
             : inter        ? "Squares: pairs across nodes."
                            : "Circles: pairs within a node.");
}

static void cell(char *buf, double v, const char *fmt, double scale)
{
    if (isfinite(v))
        snprintf(buf, 32, fmt, v * scale);
    else
        snprintf(buf, 32, "-");
}

/* One formatter for the command's table and the PDF's, so the two never disagree. */
void lens_p2pplot_format_row(const struct lens_p2p_point *pt, char cells[LENS_P2PPLOT_NCOLS][32])
{
    lens_p2pplot_format_size(pt->size_bytes, cells[0], 32);
    cell(cells[1], pt->latency_median_s, "%.4g", 1e6);
    cell(cells[2], pt->latency_min_s, "%.4g", 1e6);
    /* No bandwidth at 0 B: "-" rather than a 0 that looks like a measurement. */
    cell(cells[3], pt->size_bytes > 0 ? pt->bandwidth_median_Bps : NAN, "%.4g", 1e-6);
    cell(cells[4], pt->msg_rate_median_per_s, "%.4g", 1);
}

int lens_p2pplot_pdf(struct lens_pdf *pdf, const struct lens_p2pfile *f,
                     const struct lens_p2pplot_opts *o, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int m = 0; rc == LENS_OK && m < LENS_P2PPLOT_NMETRICS; m++) {
        unsigned char *png = NULL;
        size_t len = 0;
        char caption[1024];
        if ((rc = lens_p2pplot_png_mem(f, m, o, &png, &len, e)) != LENS_OK)
            break;
        /* The figure embedded as PNG bytes, scaled to the text width and at most 300 points tall. */
        rc = lens_pdf_image_png(pdf, png, len, 300, e);
        lens_free(png);
        lens_p2pplot_caption(f, m, caption, sizeof caption);
        if (rc == LENS_OK)
            rc = lens_pdf_text(pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, caption, e);
        lens_pdf_space(pdf, 8);
    }
    struct lens_pdf_column cols[LENS_P2PPLOT_NCOLS];
    for (int c = 0; c < LENS_P2PPLOT_NCOLS; c++) {
        cols[c].header = lens_p2pplot_headers[c];
        cols[c].align = c ? LENS_PDF_RIGHT : LENS_PDF_LEFT;
        /* The size column fixed at 14% of the width; the numeric ones share the rest. */
        cols[c].width = c ? 0 : 0.14;
    }
    for (int p = 0; rc == LENS_OK && p < f->npairs; p++) {
        const struct lens_p2p_pair *q = &f->pair[p];
        char title[512];
        snprintf(title, sizeof title, "Pair %d: %s", p, q->label);
        /* Keep a pair's heading with the first rows of its table: a new page when less than 60 points remain. */
        rc = lens_pdf_need(pdf, 60, e);
        if (rc == LENS_OK)
            rc = lens_pdf_text(pdf, LENS_PDF_BOLD, 10, LENS_PDF_LEFT, 0, title, e);
        if (rc == LENS_OK)
            rc = lens_pdf_table_begin(pdf, cols, LENS_P2PPLOT_NCOLS, LENS_PDF_SANS, e);
        for (int k = 0; rc == LENS_OK && k < q->nsize; k++) {
            char cells[LENS_P2PPLOT_NCOLS][32];
            const char *row[LENS_P2PPLOT_NCOLS];
            lens_p2pplot_format_row(&q->pt[k], cells);
            for (int c = 0; c < LENS_P2PPLOT_NCOLS; c++)
                row[c] = cells[c];
            rc = lens_pdf_table_row(pdf, row, e);
        }
        if (rc == LENS_OK)
            rc = lens_pdf_table_end(pdf, e);
        lens_pdf_space(pdf, 8);
    }
    return rc;
}
