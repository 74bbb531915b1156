/* Delay-against-length curves per link cluster: scales (linear or log, a zero length kept on a
 * log axis as a slot left of the first positive length), ticks in bytes, min..max bands from
 * the cube, the mean curves with markers, and the legend. See linkcurves.h. */
#include "linkcurves.h"

#include "figure.h"
#include "linkmap.h"

#include <math.h>
#include <string.h>

#define MAX_TICKS 24
#define MARKERS_MAX 40   /* markers on the points up to this many lengths */
#define LOG_X_SPAN 100.0 /* automatic log length axis from this max / min positive length */
#define LOG_Y_SPAN 20.0  /* automatic log delay axis from this max / min delay */

struct axis {
    int log;
    double lo, hi;       /* data range shown (displayed units; log10 of them on a log axis) */
    double zero;         /* log length axis: share of the axis given to a zero length, else 0 */
    double pos, len;     /* where the axis lies on the figure, and its length (y: grows upwards) */
    double ticks[MAX_TICKS];
    int nticks;
    double step;
    int kib;             /* length axis: ticks in KiB (format_bytes) */
};

struct fig {
    const struct lens_links *r;
    const struct lens_linkcurves_opts *o;
    const char *name;
    cairo_font_face_t *face;     /* the canvas's, borrowed */
    double x, y, w, h, fs, lab_fs, row_h; /* box (x = y = 0: the canvas is the box), fonts */
    double mult;                 /* seconds -> displayed unit */
    const char *unit;
    double *lo, *hi;             /* k x nlen band, seconds, or NULL */
    struct axis ax, ay;
    double px, py, pw, ph;       /* plot area */
    double leg_x, leg_y, leg_col_w;
    int leg_rows, leg_cols;
};

/* Both axes automatic (-1): the data decide between linear and log scales. */
void lens_linkcurves_opts_init(struct lens_linkcurves_opts *o)
{
    memset(o, 0, sizeof *o);
    o->log_x = o->log_y = -1;
    o->width = 1000;
    o->height = 620;
}

/* sized: the options' figure size counts (files, PNG bytes), not when drawing into a box. */
static int check_args(const struct lens_links *r, const struct lens_linkcurves_opts *o, const char *name,
                      int sized, struct lens_err *e)
{
    if (!r || !r->clusters || r->k < 1 || r->nlen < 1 || !r->lengths)
        return lens_err_set(e, LENS_EINVAL, "%s: no link clustering to draw", name);
    if (sized && (o->width < 320 || o->height < 240 || o->width > 16384 || o->height > 16384))
        return lens_err_set(e, LENS_EINVAL, "%s: figure size %dx%d outside 320x240..16384x16384", name,
                            o->width, o->height);
    /* -1 is "choose from the data", 0 and 1 force a scale; anything else is a caller's mistake. */
    if (o->log_x < -1 || o->log_x > 1 || o->log_y < -1 || o->log_y > 1)
        return lens_err_set(e, LENS_EINVAL, "%s: log_x and log_y must be -1, 0 or 1", name);
    /* The cube for the bands must be the one clustered: its links index the same label matrix. */
    const struct lens_cube *c = o->cube;
    if (c && (c->procs != r->procs || c->nlen != r->nlen || (!c->data[LENS_STAT_AVERAGE] && !c->data[LENS_STAT_MEDIAN])))
        return lens_err_set(e, LENS_EINVAL, "%s: cube (%d processes, %d lengths) is not the clustered one "
                            "(%d processes, %d lengths) or has neither average nor median", name, c->procs,
                            c->nlen, r->procs, r->nlen);
    return LENS_OK;
}

/* Min and max over each cluster's links at each length, of the statistic links.h clustered. */
static int find_band(struct fig *f, struct lens_err *e)
{
    const struct lens_cube *c = f->o->cube;
    const struct lens_links *r = f->r;
    /* No cube given: curves without bands, which is all the clustering itself holds. */
    if (!c)
        return LENS_OK;
    size_t n = (size_t)r->k * r->nlen;
    f->lo = lens_malloc(n * sizeof *f->lo);
    f->hi = lens_malloc(n * sizeof *f->hi);
    if (!f->lo || !f->hi)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", f->name);
    /* Empty bands start inverted, so the first value sets both ends. */
    for (size_t t = 0; t < n; t++) {
        f->lo[t] = INFINITY;
        f->hi[t] = -INFINITY;
    }
    /* The statistic the links were clustered on (links.h: the average, else the median), so the
     * band surrounds the curve it belongs to. */
    const double *d = c->data[LENS_STAT_AVERAGE] ? c->data[LENS_STAT_AVERAGE] : c->data[LENS_STAT_MEDIAN];
    int P = r->procs;
    for (int l = 0; l < r->nlen; l++)
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                int u = r->label[(size_t)i * P + j];
                double v = d[((size_t)l * P + i) * P + j];
                /* The diagonal (no link) and missing delays stay out of every band. */
                if (u < 0 || !isfinite(v))
                    continue;
                size_t t = (size_t)u * r->nlen + l;
                f->lo[t] = fmin(f->lo[t], v);
                f->hi[t] = fmax(f->hi[t], v);
            }
    return LENS_OK;
}

/* A length tick: "512", "1.5 KiB", "2 MiB"; kib: the axis reaches 10 KiB, so every multiple
 * of 256 from 1 KiB on is written in KiB, consistently along the axis. */
static void format_bytes(double v, int kib, char *buf, size_t n)
{
    /* Whole mebibytes as MiB, whole quarters of a KiB as KiB on long axes, anything else in bytes:
     * network_test2 lengths are multiples of 256 or small numbers. */
    if (v >= 1 << 20 && fmod(v, 1 << 20) == 0)
        snprintf(buf, n, "%g MiB", v / (1 << 20));
    else if (kib && v >= 1024 && fmod(v, 256) == 0)
        snprintf(buf, n, "%g KiB", v / 1024);
    else
        snprintf(buf, n, "%g", v);
}

/* Length ticks: multiples of a power of two (linear) or powers of two (log), at most max. */
static void length_ticks(struct axis *a, double vmin, double vmax, int max)
{
    a->nticks = 0;
    if (a->log) {
        /* A log axis cannot show 0 B: it gets its own tick in a strip left of the axis (zero > 0). */
        if (a->zero > 0)
            a->ticks[a->nticks++] = 0;
        /* Powers of two inside the range (a->lo, a->hi are log10); every se-th so that max fit. */
        int e0 = (int)ceil(a->lo / log10(2.0) - 1e-9), e1 = (int)floor(a->hi / log10(2.0) + 1e-9);
        int se = 1;
        /* Every se-th power of two, se as small as lets the ticks fit. */
        while ((e1 - e0) / se + 1 > max - a->nticks)
            se++;
        for (int k = e0; k <= e1 && a->nticks < MAX_TICKS; k += se)
            a->ticks[a->nticks++] = ldexp(1.0, k);
        return;
    }
    /* Linear axis: a flat range (one length) gets one tick. */
    double span = vmax - vmin;
    if (!(span > 0)) {
        a->ticks[a->nticks++] = vmin;
        return;
    }
    /* Linear: a power-of-two step, because message lengths are (256, 1024, 4096 ...). */
    double step = ldexp(1.0, (int)floor(log2(span / max)));
    while (span / step + 1 > max)
        step *= 2;
    for (double v = ceil(vmin / step) * step; v <= vmax + 1e-9 && a->nticks < MAX_TICKS; v += step)
        a->ticks[a->nticks++] = v;
}

/* Scales: which axes are logarithmic, the ranges, the unit of the delays. */
static int scales(struct fig *f, struct lens_err *e)
{
    const struct lens_links *r = f->r;
    int L = r->nlen;
    double lmin = INFINITY, lmax = -INFINITY, lpos = INFINITY;
    /* The length range, and the smallest positive length a log axis can start from. */
    for (int l = 0; l < L; l++) {
        double v = r->lengths[l];
        lmin = fmin(lmin, v);
        lmax = fmax(lmax, v);
        if (v > 0)
            lpos = fmin(lpos, v);
    }
    /* The delay range covers the means and, when drawn, the bands around them. */
    double ymin = INFINITY, ymax = -INFINITY, ypos = INFINITY;
    for (int u = 0; u < r->k; u++)
        for (int l = 0; l < L; l++)
            for (int b = 0; b < 3; b++) {
                /* b = 0: the mean curve; 1 and 2: the band's low and high edges (when there is a band). */
                const double *src = b == 0 ? r->clusters[u].mean : b == 1 ? f->lo : f->hi;
                double v = src ? (b == 0 ? src[l] : src[(size_t)u * L + l]) : NAN;
                if (!isfinite(v))
                    continue;
                ymin = fmin(ymin, v);
                ymax = fmax(ymax, v);
                if (v > 0)
                    ypos = fmin(ypos, v);
            }
    /* Not one finite delay: there is nothing to scale an axis on. */
    if (!isfinite(ymax))
        return lens_err_set(e, LENS_EINVAL, "%s: no finite delay to draw", f->name);
    struct axis *ax = &f->ax, *ay = &f->ay;
    /* Automatic: a log axis once the values span enough decades to crowd the small end; the
     * delay axis only when no delay is <= 0 (ypos == ymin), as log scales need. */
    ax->log = f->o->log_x >= 0 ? f->o->log_x : isfinite(lpos) && lmax / lpos >= LOG_X_SPAN;
    ay->log = f->o->log_y >= 0 ? f->o->log_y : ypos == ymin && ymax / ypos >= LOG_Y_SPAN;
    /* A forced log scale needs one positive value; an automatic one never chooses log without it. */
    if (ax->log && !isfinite(lpos))
        return lens_err_set(e, LENS_EINVAL, "%s: log length axis needs a length > 0", f->name);
    if (ay->log && !isfinite(ypos))
        return lens_err_set(e, LENS_EINVAL, "%s: log delay axis needs a delay > 0", f->name);
    /* the unit follows the largest delay */
    static const char *const unit[] = {"ns", "\xc2\xb5s", "ms", "s"};
    /* The unit of the largest delay: tick labels then stay below 1000. */
    int ui = ymax < 1e-6 ? 0 : ymax < 1e-3 ? 1 : ymax < 1 ? 2 : 3;
    f->unit = unit[ui];
    f->mult = ui == 0 ? 1e9 : ui == 1 ? 1e6 : ui == 2 ? 1e3 : 1;
    if (ax->log) {
        /* 3% of the span (at least of 0.3 decade) beyond the ends, so end markers are not cut in half. */
        double a = log10(lpos), b = log10(lmax), pad = fmax(b - a, 0.3) * 0.03;
        ax->lo = a - pad;
        ax->hi = b + pad;
        /* 8% of the axis for the 0 B column when there is a 0-byte length. */
        ax->zero = lmin <= 0 ? 0.08 : 0;
    } else {
        /* 3% padding on a linear axis too, at least of one byte. */
        double pad = fmax(lmax - lmin, 1.0) * 0.03;
        ax->lo = lmin - pad;
        ax->hi = lmax + pad;
    }
    if (ay->log) {
        double a = log10(ypos * f->mult), b = log10(ymax * f->mult), pad = fmax(b - a, 0.2) * 0.05;
        ay->lo = a - pad;
        ay->hi = b + pad;
    } else {
        double a = ymin * f->mult, b = ymax * f->mult;
        a = a > 0 && a < 0.6 * b ? 0 : a; /* a delay axis starts at 0 unless that squashes the curves */
        /* 5% padding, and some even for a flat range; 1e-30 keeps an all-zero range from collapsing. */
        double pad = fmax(b - a, fabs(b) * 0.1 + 1e-30) * 0.05;
        ay->lo = a == 0 ? 0 : a - pad;
        ay->hi = b + pad;
    }
    return LENS_OK;
}

/* A length to x: linear, or log10 right of the zero strip, with 0 B inside that strip. */
static double xpos(const struct fig *f, double v)
{
    const struct axis *a = &f->ax;
    if (!a->log)
        return a->pos + (v - a->lo) / (a->hi - a->lo) * a->len;
    if (v <= 0)
        /* 0 B (and anything at or below) sits inside the zero strip, left of the log axis. */
        return a->pos + 0.3 * a->zero * a->len;
    double z = a->zero * a->len;
    return a->pos + z + (log10(v) - a->lo) / (a->hi - a->lo) * (a->len - z);
}

/* v in seconds */
static double ypos(const struct fig *f, double v)
{
    const struct axis *a = &f->ay;
    double d = v * f->mult;
    /* Upwards from the axis: pos is the bottom of the plot. */
    double t = a->log ? (log10(d) - a->lo) / (a->hi - a->lo) : (d - a->lo) / (a->hi - a->lo);
    return a->pos - t * a->len;
}

/* Margins from what they must hold (tick labels, the legend's columns), then the plot area
 * and the axes' final ticks. */
static int layout(struct fig *f, cairo_t *cr, struct lens_err *e)
{
    const struct lens_links *r = f->r;
    /* 45 lines on the short side: a little larger than the map's text, the curves are sparse. */
    double fs = fmin(f->w, f->h) / 45.0;
    fs = fs < 7 ? 7 : fs > 14 ? 14 : fs;
    /* For print the labels (0.88 fs) keep the print floor and the legend rows grow with them. */
    fs = fmax(fs, lens_figure_font_floor(cr, 0) / 0.88);
    f->fs = fs;
    f->lab_fs = fs * 0.88;
    f->row_h = f->lab_fs * 1.5;
    double pad = fs * 1.1, tick = fs * 0.35;
    char buf[64];
    /* y ticks first: their labels decide the left margin */
    /* Title and subtitle above, the length ticks and axis title below the plot. */
    double top = f->y + pad + fs * 1.3 * 1.25 + fs * 1.5;
    double bottom = f->y + f->h - (pad + fs * 1.5 + tick + f->lab_fs * 1.4);
    /* One delay tick per 2.6 label heights, 2..10 of them. */
    int maxt = (int)((bottom - top) / (f->lab_fs * 2.6));
    maxt = maxt < 2 ? 2 : maxt > 10 ? 10 : maxt;
    struct axis *ay = &f->ay, *ax = &f->ax;
    double tl[MAX_TICKS];
    /* The axis stores log10 ends for a log scale; the tick helper wants values. */
    int nt = lens_figure_ticks(ay->log ? pow(10, ay->lo) : ay->lo, ay->log ? pow(10, ay->hi) : ay->hi, ay->log,
                               maxt, tl, &ay->step);
    ay->nticks = nt;
    /* The ticks kept in the axis for drawing; the copy goes through a local array the tick
     * helper fills. */
    memcpy(ay->ticks, tl, sizeof tl);
    lens_figure_set_font(cr, f->face, f->lab_fs);
    double tw = 0;
    /* The widest delay label sets the left margin. */
    for (int t = 0; t < nt; t++) {
        lens_figure_format_value(ay->ticks[t], ay->step, buf, sizeof buf);
        tw = fmax(tw, lens_figure_text_width(cr, buf));
    }
    /* legend: swatch line, id, "(n links)" */
    double lw = 0;
    for (int u = 0; u < r->k; u++) {
        snprintf(buf, sizeof buf, "%d  (%ld link%s)", u, r->clusters[u].size, r->clusters[u].size == 1 ? "" : "s");
        lw = fmax(lw, lens_figure_text_width(cr, buf));
    }
    /* The legend's column: as wide as its widest entry, heading or band key. */
    f->leg_col_w = fs * 2.7 + lw;
    lw = lens_figure_text_width(cr, "cluster  (size)");
    if (f->lo)
        lw = fmax(lw, fs * 2.7 + lens_figure_text_width(cr, "fastest..slowest link"));
    /* The legend column as wide as its widest line: heading, entries, the band's key. */
    f->leg_col_w = fmax(f->leg_col_w, lw);
    /* Rows beside the plot, less the heading and the band's key; more clusters wrap into columns. */
    int fit = (int)floor((bottom - top) / f->row_h) - 2;
    if (fit < 1)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for its legend", f->name, f->w, f->h);
    f->leg_cols = (r->k + fit - 1) / fit;
    f->leg_rows = (r->k + f->leg_cols - 1) / f->leg_cols;
    double legend_w = f->leg_cols * f->leg_col_w + (f->leg_cols - 1) * fs;
    double left = f->x + pad + fs * 1.5 + tw + tick + fs * 0.3;
    /* Whole units: axis lines and grid land on pixel boundaries in the PNG. */
    f->px = floor(left);
    f->py = floor(top);
    f->pw = floor(f->x + f->w - pad - legend_w - fs * 1.5 - left);
    f->ph = floor(bottom - top);
    if (f->pw < 40 || f->ph < 40)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for its labels", f->name, f->w, f->h);
    /* The legend starts at the plot's top, right of it. */
    f->leg_x = f->px + f->pw + fs * 1.5;
    f->leg_y = f->py;
    /* The axes' screen positions, for xpos/ypos: the y axis grows upwards from the bottom edge. */
    ax->pos = f->px;
    ax->len = f->pw;
    ay->pos = f->py + f->ph;
    ay->len = f->ph;
    double lmin = r->lengths[0], lmax = r->lengths[0];
    for (int l = 1; l < r->nlen; l++) {
        lmin = fmin(lmin, r->lengths[l]);
        lmax = fmax(lmax, r->lengths[l]);
    }
    /* KiB labels only once the axis reaches 10 KiB; below, bytes read better. */
    ax->kib = lmax >= 10240;
    format_bytes(lmax, ax->kib, buf, sizeof buf);
    /* As many length ticks as the widest label (the largest length) allows, 2..12. */
    int mx = (int)(f->pw / (lens_figure_text_width(cr, buf) + fs * 1.5));
    length_ticks(ax, lmin, lmax, mx < 2 ? 2 : mx > 12 ? 12 : mx);
    return LENS_OK;
}

/* Grid, frame, ticks, the zero-length break and the axis titles. */
static void draw_frame(const struct fig *f, cairo_t *cr)
{
    double fs = f->fs, tick = fs * 0.35;
    char buf[64];
    /* grid */
    /* Light grid first, so that the frame, bands and curves all draw over it. */
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    cairo_set_line_width(cr, fmax(0.5, fs * 0.06));
    for (int t = 0; t < f->ay.nticks; t++) {
        double y = ypos(f, f->ay.ticks[t] / f->mult);
        cairo_move_to(cr, f->px, y);
        cairo_line_to(cr, f->px + f->pw, y);
    }
    for (int t = 0; t < f->ax.nticks; t++) {
        double x = xpos(f, f->ax.ticks[t]);
        cairo_move_to(cr, x, f->py);
        cairo_line_to(cr, x, f->py + f->ph);
    }
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, fs * 0.08);
    cairo_rectangle(cr, f->px, f->py, f->pw, f->ph);
    for (int t = 0; t < f->ay.nticks; t++) {
        cairo_move_to(cr, f->px, ypos(f, f->ay.ticks[t] / f->mult));
        cairo_rel_line_to(cr, -tick, 0);
    }
    for (int t = 0; t < f->ax.nticks; t++) {
        cairo_move_to(cr, xpos(f, f->ax.ticks[t]), f->py + f->ph);
        cairo_rel_line_to(cr, 0, tick);
    }
    cairo_stroke(cr);
    if (f->ax.log && f->ax.zero > 0) {
        /* axis break between the zero length and the log scale */
        /* White gap across the axis line, then two slanted strokes: the usual "//" axis break. */
        double bx = f->px + f->ax.zero * f->ax.len * 0.7, by = f->py + f->ph, s = fs * 0.35;
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_rectangle(cr, bx - s * 0.4, by - s, s * 0.8, 2 * s);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        for (int t = -1; t <= 1; t += 2) {
            cairo_move_to(cr, bx + t * s * 0.4 - s * 0.3, by + s);
            cairo_rel_line_to(cr, s * 0.6, -2 * s);
        }
        cairo_stroke(cr);
    }
    lens_figure_set_font(cr, f->face, f->lab_fs);
    double tw = 0;
    for (int t = 0; t < f->ay.nticks; t++) {
        lens_figure_format_value(f->ay.ticks[t], f->ay.step, buf, sizeof buf);
        tw = fmax(tw, lens_figure_text_width(cr, buf));
        lens_figure_text(cr, f->px - tick - fs * 0.25, ypos(f, f->ay.ticks[t] / f->mult), buf, 1.0, 0.5, 0.0);
    }
    for (int t = 0; t < f->ax.nticks; t++) {
        format_bytes(f->ax.ticks[t], f->ax.kib, buf, sizeof buf);
        lens_figure_text(cr, xpos(f, f->ax.ticks[t]), f->py + f->ph + tick + fs * 0.25, buf, 0.5, 0.0, 0.0);
    }
    lens_figure_set_font(cr, f->face, f->fs);
    /* The axis titles say when a scale is logarithmic: automatic choice must not go unnoticed. */
    snprintf(buf, sizeof buf, "message length (bytes%s)", f->ax.log ? ", log scale" : "");
    lens_figure_text(cr, f->px + f->pw / 2, f->py + f->ph + tick + fs * 0.25 + f->lab_fs * 1.4, buf, 0.5, 0.0, 0.0);
    snprintf(buf, sizeof buf, "mean delay (%s%s)", f->unit, f->ay.log ? ", log scale" : "");
    lens_figure_text(cr, f->px - tick - fs * 0.55 - tw, f->py + f->ph / 2, buf, 0.5, 1.0, -M_PI / 2);
}

/* Points of cluster u's curve (mean, or the band's lo/hi) that can be drawn on the axes. */
static int drawable(const struct fig *f, double v)
{
    return isfinite(v) && (!f->ay.log || v > 0);
}

/* Bands first (translucent), then the mean curves over them, then the markers. */
static void draw_curves(const struct fig *f, cairo_t *cr)
{
    const struct lens_links *r = f->r;
    int L = r->nlen;
    double rgb[3];
    cairo_save(cr);
    cairo_rectangle(cr, f->px, f->py, f->pw, f->ph);
    cairo_clip(cr);
    if (f->lo)
        for (int u = 0; u < r->k; u++) {
            const double *lo = f->lo + (size_t)u * L, *hi = f->hi + (size_t)u * L;
            int ok = 1, l0 = 0;
            while (f->ax.log && l0 < L && r->lengths[l0] <= 0) /* no band across the axis break */
                l0++;
            for (int l = l0; l < L; l++)
                ok &= drawable(f, lo[l]) && drawable(f, hi[l]);
            if (!ok || L - l0 < 2)
                continue;
            lens_linkmap_colour(u, rgb);
            /* Bands at 16% opacity under the curves: overlapping clusters stay readable. */
            cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], 0.16);
            for (int l = l0; l < L; l++)
                cairo_line_to(cr, xpos(f, r->lengths[l]), ypos(f, hi[l]));
            /* Along hi forwards and lo backwards: one closed polygon per band. */
            for (int l = L - 1; l >= l0; l--)
                cairo_line_to(cr, xpos(f, r->lengths[l]), ypos(f, lo[l]));
            cairo_close_path(cr);
            cairo_fill(cr);
        }
    /* Round joins: the curves bend sharply at few points and mitred corners would spike. */
    cairo_set_line_width(cr, f->fs * 0.17);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (int u = 0; u < r->k; u++) {
        const double *m = r->clusters[u].mean;
        lens_linkmap_colour(u, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        /* A missing point breaks the curve instead of bridging it with a line that claims a value. */
        int open = 0;
        for (int l = 0; l < L; l++) {
            if (!drawable(f, m[l]) || (f->ax.log && r->lengths[l] <= 0)) { /* a zero length stands apart */
                if (open)
                    cairo_stroke(cr);
                open = 0;
                continue;
            }
            if (open)
                cairo_line_to(cr, xpos(f, r->lengths[l]), ypos(f, m[l]));
            else
                cairo_move_to(cr, xpos(f, r->lengths[l]), ypos(f, m[l]));
            open = 1;
        }
        if (open)
            cairo_stroke(cr);
        for (int l = 0; l < L; l++)
            /* Markers on every point for short curves; long ones only mark the lone 0 B point, which has
             * no line through it. */
            if (drawable(f, m[l]) && (L <= MARKERS_MAX || (f->ax.log && r->lengths[l] <= 0))) {
                cairo_new_sub_path(cr);
                cairo_arc(cr, xpos(f, r->lengths[l]), ypos(f, m[l]), f->fs * 0.27, 0, 2 * M_PI);
                cairo_fill(cr);
            }
    }
    cairo_restore(cr);
}

/* A line and marker per cluster in its link-map colour, with its number of links. */
static void draw_legend(const struct fig *f, cairo_t *cr)
{
    const struct lens_links *r = f->r;
    double fs = f->fs, rgb[3];
    char buf[64];
    lens_figure_set_font(cr, f->face, f->lab_fs);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    lens_figure_text(cr, f->leg_x, f->leg_y + f->row_h / 2, "cluster  (size)", 0.0, 0.5, 0.0);
    cairo_set_line_width(cr, fs * 0.17);
    for (int u = 0; u < r->k; u++) {
        /* Column-major: clusters read downwards, in the order of their numbers (fastest first). */
        int col = u / f->leg_rows, row = u % f->leg_rows;
        double x = f->leg_x + col * (f->leg_col_w + fs), y = f->leg_y + (row + 1.5) * f->row_h;
        lens_linkmap_colour(u, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_move_to(cr, x, y);
        cairo_rel_line_to(cr, fs * 2.2, 0);
        cairo_stroke(cr);
        cairo_arc(cr, x + fs * 1.1, y, fs * 0.27, 0, 2 * M_PI);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "%d  (%ld link%s)", u, r->clusters[u].size, r->clusters[u].size == 1 ? "" : "s");
        lens_figure_text(cr, x + fs * 2.7, y, buf, 0.0, 0.5, 0.0);
    }
    if (f->lo) {
        double y = f->leg_y + (f->leg_rows + 1.9) * f->row_h;
        /* The band's key: a grey swatch of the bands' look, when bands are drawn at all. */
        cairo_set_source_rgba(cr, 0.3, 0.3, 0.3, 0.2);
        cairo_rectangle(cr, f->leg_x, y - f->lab_fs * 0.45, fs * 2.2, f->lab_fs * 0.9);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
        lens_figure_text(cr, f->leg_x + fs * 2.7, y, "fastest..slowest link", 0.0, 0.5, 0.0);
    }
}

static void fig_end(struct fig *f)
{
    lens_free(f->lo);
    lens_free(f->hi);
    f->lo = f->hi = NULL;
}

/* Sets f up and draws the whole figure into the box. */
static int render(struct fig *f, cairo_t *cr, const struct lens_links *r, const struct lens_linkcurves_opts *o,
                  const char *name, cairo_font_face_t *face, double x, double y, double w, double h,
                  struct lens_err *e)
{
    memset(f, 0, sizeof *f);
    f->r = r;
    f->o = o;
    f->name = name;
    f->face = face;
    f->x = x;
    f->y = y;
    f->w = w;
    f->h = h;
    /* band, scales and layout in that order: the axes span the band, the layout the axes */
    int rc = find_band(f, e);
    if (rc == LENS_OK)
        rc = scales(f, e);
    if (rc == LENS_OK)
        rc = layout(f, cr, e);
    if (rc)
        return rc;
    cairo_rectangle(cr, x, y, w, h);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill(cr);
    draw_frame(f, cr);
    draw_curves(f, cr);
    draw_legend(f, cr);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", o->title ? o->title : "Mean delay against message length per link cluster");
    double cx = x + w / 2, ty = y + f->fs * 1.1;
    cairo_set_source_rgb(cr, 0, 0, 0);
    lens_figure_set_font(cr, f->face, f->fs * 1.3);
    lens_figure_text(cr, cx, ty, buf, 0.5, 0.0, 0.0);
    snprintf(buf, sizeof buf, "%d cluster%s of %ld links, colours as in the link map%s", r->k, r->k == 1 ? "" : "s",
             (long)r->procs * (r->procs - 1), f->lo ? "; bands from the fastest to the slowest link" : "");
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    lens_figure_set_font(cr, f->face, f->lab_fs);
    lens_figure_text(cr, cx, ty + f->fs * 1.3 * 1.3, buf, 0.5, 0.0, 0.0);
    return lens_figure_status(cr, name, e);
}

/* The figure's data for the protocol of figure.h. */
struct job {
    const struct lens_links *r;
    const struct lens_linkcurves_opts *o; /* never NULL */
};

static int check_file(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    return check_args(j->r, j->o, name, 1, e);
}

/* Drawn into a caller's box, the options' width and height play no part. */
static int check_box(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    return check_args(j->r, j->o, name, 0, e);
}

static void size(const void *data, double *w, double *h)
{
    const struct job *j = data;
    *w = j->o->width;
    *h = j->o->height;
}

/* The canvas is the box: x = y = 0, its size c->w x c->h. */
static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct job *j = data;
    struct fig f;
    int rc = render(&f, c->cr, j->r, j->o, c->name, c->face, 0, 0, c->w, c->h, e);
    fig_end(&f);
    return rc;
}

static const struct lens_figure_kind linkcurves_kind = {"link curves", 0, check_file, size, paint};
static const struct lens_figure_kind linkcurves_box_kind = {"link curves", 0, check_box, size, paint};

/* The figure of r with options o (NULL: the defaults, kept in *def). */
static struct lens_figure figure(struct job *j, const struct lens_links *r, const struct lens_linkcurves_opts *o,
                                 struct lens_linkcurves_opts *def, const struct lens_figure_kind *k)
{
    if (!o) {
        lens_linkcurves_opts_init(def);
        o = def;
    }
    j->r = r;
    j->o = o;
    return (struct lens_figure){.kind = k, .data = j, .font_path = o->font_path};
}

int lens_linkcurves_draw(cairo_t *cr, double x, double y, double w, double h, const struct lens_links *r,
                         const struct lens_linkcurves_opts *o, struct lens_err *e)
{
    struct job j;
    struct lens_linkcurves_opts def;
    struct lens_figure fig = figure(&j, r, o, &def, &linkcurves_box_kind);
    return lens_figure_draw(&fig, cr, x, y, w, h, e);
}

int lens_linkcurves_write(const char *path, const struct lens_links *r, const struct lens_linkcurves_opts *o,
                          struct lens_err *e)
{
    struct job j;
    struct lens_linkcurves_opts def;
    struct lens_figure fig = figure(&j, r, o, &def, &linkcurves_kind);
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_linkcurves_png_mem(const struct lens_links *r, const struct lens_linkcurves_opts *o,
                            unsigned char **buf, size_t *len, struct lens_err *e)
{
    struct job j;
    struct lens_linkcurves_opts def;
    struct lens_figure fig = figure(&j, r, o, &def, &linkcurves_kind);
    return lens_figure_render(&fig, NULL, buf, len, e);
}
