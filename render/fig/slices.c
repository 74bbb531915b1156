/* The figure of original against compressed slices of a cube (analysis/cube/cube_slices.h
 * makes them): one row per length, the two matrices as rasters on one viridis scale with its
 * colour bar, and the relative error on a grey scale with its own. See slices.h. */
#include "slices.h"

#include "colormap.h"
#include "figure.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RASTER_MAX 2048 /* larger matrices are sampled down to a raster this wide */
#define MAX_TICKS 12

/* A relative error as a percentage, three significant digits. */
static void format_pct(double r, char *buf, size_t n)
{
    /* An error over a zero original is infinite: "inf", not the "inf%" printf would give. */
    if (!isfinite(r))
        snprintf(buf, n, "inf");
    else
        snprintf(buf, n, "%.3g%%", 100 * r);
}

/* 1200 wide holds three panels and two colour bars per row at a readable size. */
void lens_slices_opts_init(struct lens_slices_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1200;
}

static int auto_height(const struct lens_cube_slices *s, const struct lens_slices_opts *o)
{
    /* 110 units for the title and the axis title, 330 per row of panels. */
    return o->height > 0 ? o->height : 110 + 330 * s->n;
}

struct fig {
    const struct lens_cube_slices *s;
    const struct lens_slices_opts *o;
    const char *name;
    cairo_font_face_t *face; /* the canvas's, borrowed */
    double x, y, w, h, fs, lab_fs; /* the box (x = y = 0: the canvas is the box), fonts */
    double mult;            /* seconds -> displayed unit, per figure */
    const char *unit;
    double cbar_x, ecbar_x, cbar_w; /* the delay and the error colour bars */
    int rank_step;
    struct lens_slices_layout L;
};

static int check_args(const struct lens_cube_slices *s, const char *name, struct lens_err *e)
{
    /* The slices come finished from the cube wing; a half-made one is the caller's mistake. */
    if (!s || s->n < 1 || s->n > LENS_CUBE_SLICES_MAX || s->procs < 1 || !s->orig || !s->dec || !s->lengths)
        return lens_err_set(e, LENS_EINVAL, "%s: no slices to draw", name);
    return LENS_OK;
}

/* Colour range of slice t over both matrices (off-diagonal, finite). */
static void slice_range(const struct lens_cube_slices *s, int t, double *lo, double *hi)
{
    size_t P = (size_t)s->procs;
    double mn = INFINITY, mx = -INFINITY;
    for (int b = 0; b < 2; b++) {
        const double *m = (b ? s->dec : s->orig) + t * P * P;
        for (size_t q = 0; q < P * P; q++)
            /* The diagonal is not a measurement (self-delay): it would stretch the scale for nothing. */
            if (q / P != q % P && isfinite(m[q])) {
                mn = fmin(mn, m[q]);
                mx = fmax(mx, m[q]);
            }
    }
    /* No finite value at all: any range, so the bar can still be drawn. */
    if (!isfinite(mn)) {
        mn = 0;
        mx = 1e-6;
    } else if (!(mx > mn)) {
        /* One value everywhere: 5% either side so that it lands mid-scale. */
        double d = fabs(mn) > 0 ? fabs(mn) * 0.05 : 1e-9;
        mn -= d;
        mx += d;
    }
    *lo = mn;
    *hi = mx;
}

/* Each row: caption, then original, decoded, delay bar, error panel, error bar, all panels
 * the same square side; rows stacked under the title. */
static int layout(struct fig *f, cairo_t *cr, struct lens_err *e)
{
    const struct lens_cube_slices *s = f->s;
    int n = s->n, P = s->procs;
    /* The font follows one row's height (times 1.6), not the whole figure: eight rows must not
     * shrink the text to nothing, one row must not blow it up. */
    double fs = fmin(f->w, f->h / n * 1.6) / 52.0;
    fs = fs < 7 ? 7 : fs > 14 ? 14 : fs;
    f->fs = fs;
    f->lab_fs = fs * 0.88;
    double pad = fs * 1.1, tick = fs * 0.35;
    char buf[64];
    /* Each row's colour range first: the unit for the whole figure follows the largest of them. */
    double vmax = 0;
    for (int t = 0; t < n; t++) {
        slice_range(s, t, &f->L.vmin[t], &f->L.vmax[t]);
        vmax = fmax(vmax, fabs(f->L.vmax[t]));
    }
    static const char *const unit[] = {"ns", "\xc2\xb5s", "ms", "s"};
    /* One unit for all rows, that of the largest delay, so that rows compare directly. */
    int ui = vmax < 1e-6 ? 0 : vmax < 1e-3 ? 1 : vmax < 1 ? 2 : 3;
    f->unit = unit[ui];
    f->mult = ui == 0 ? 1e9 : ui == 1 ? 1e6 : ui == 2 ? 1e3 : 1;
    lens_figure_set_font(cr, f->face, f->lab_fs);
    snprintf(buf, sizeof buf, "%d", P - 1);
    double rank_w = lens_figure_text_width(cr, buf);
    /* Room for the widest tick label the unit choice allows (below 1000 with one decimal). */
    double tw = lens_figure_text_width(cr, "0000.0");
    double top = f->y + pad + fs * 1.3 * 1.25 + fs * 1.4;
    double bottom = pad + fs * 1.5;                                /* the column axis title */
    double row_extra = fs * 1.6 + f->lab_fs * 1.5 + tick + f->lab_fs * 1.4; /* caption, headers, ticks */
    double left = pad + fs * 1.5 + rank_w + tick + fs * 0.3;
    double cbar_part = fs * 1.2 + tick + fs * 0.3 + tw + fs * 0.5;
    double gap = fs * 1.5, gbar = fs * 0.8, fixed = gap + gbar + cbar_part + gap * 1.5 + gbar + cbar_part;
    double rh = (f->y + f->h - bottom - top) / n;
    /* Three square panels per row, as large as both the row height and the width allow. */
    double side = floor(fmin(rh - row_extra - fs * 0.6, (f->w - left - pad - fixed) / 3));
    /* Below 24 units a panel shows nothing readable: refuse rather than draw specks. */
    if (side < 24)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for %d slices", f->name, f->w, f->h, n);
    /* The three panels and two bars centred in the width as one block. */
    double x0 = floor(f->x + left + (f->w - left - pad - 3 * side - fixed) / 2);
    f->L.side = side;
    f->cbar_x = x0 + 2 * side + gap + gbar;
    f->ecbar_x = f->cbar_x + cbar_part + gap * 1.5 + side + gbar;
    f->cbar_w = fs * 1.2;
    /* Every row has the same x positions; only y moves down a row at a time. */
    for (int t = 0; t < n; t++) {
        f->L.orig_x[t] = x0;
        f->L.dec_x[t] = x0 + side + gap;
        f->L.err_x[t] = floor(f->cbar_x + cbar_part + gap * 1.5);
        f->L.y[t] = floor(top + t * rh + fs * 1.6 + f->lab_fs * 1.5);
        /* the error scale: 0 to the bound, or to the largest error when the bound is unknown */
        double em = isfinite(s->bound) && s->bound > 0 ? s->bound : s->err_max[t];
        /* A lossless slice (no error at all) still gets a 0.1% scale, so the grey bar has an extent. */
        f->L.emax[t] = isfinite(em) && em > 0 ? em : 1e-3;
    }
    int step = 1;
    while ((P + step - 1) / step > side / (fmax(rank_w, f->lab_fs) + f->lab_fs * 1.5))
        /* 1, 2, 5, 10, 25, 50, 100 ...: round rank numbers on the axes. */
        step = step == 1 ? 2 : step == 2 ? 5 : step % 5 == 0 ? step * 2 : step * 5 / 2;
    f->rank_step = step;
    return LENS_OK;
}

/* One matrix as a raster on colour map cmap over [lo, hi] (values above are the top colour),
 * the diagonal and NaNs as missing. */
static int draw_panel(const struct fig *f, cairo_t *cr, const double *m, double px, double py, double lo, double hi,
                      int cmap, struct lens_err *e)
{
    int P = f->s->procs, n = P < RASTER_MAX ? P : RASTER_MAX;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, n, n);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return lens_err_set(e, LENS_ENOMEM, "%s: cannot make a %dx%d image", f->name, n, n);
    }
    /* The colour map as pixels, and the missing colour for the diagonal and NaN. */
    uint32_t lut[LENS_CMAP_SIZE];
    unsigned char miss[3];
    lens_colormap_lut(cmap, lut);
    lens_colormap_missing(cmap, miss);
    uint32_t missing = 0xff000000u | (uint32_t)miss[0] << 16 | (uint32_t)miss[1] << 8 | miss[2];
    /* Pixels written straight into the image: flush so that cairo holds nothing pending. */
    cairo_surface_flush(img);
    uint32_t *pix = (uint32_t *)(void *)cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img) / 4;
    /* Reciprocal once: the loop below runs per pixel. */
    double inv = 1.0 / (hi - lo);
    for (int y = 0; y < n; y++) {
        int i = (int)(((double)y + 0.5) * P / n);
        for (int x = 0; x < n; x++) {
            int j = (int)(((double)x + 0.5) * P / n);
            double v = m[(size_t)i * P + j];
            /* The same colour rule for all three panels; values above hi clamp to the top colour (an
             * error past the bound shows as the darkest grey). */
            pix[(size_t)y * stride + x] = i == j || !isfinite(v) ? missing : lut[lens_colormap_index((v - lo) * inv)];
        }
    }
    cairo_surface_mark_dirty(img);
    double side = f->L.side;
    cairo_save(cr);
    cairo_translate(cr, px, py);
    /* Nearest filtering when scaled up: each element a sharp square, as in the heat maps. */
    cairo_scale(cr, side / n, side / n);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, 0, 0, n, n);
    cairo_fill(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    /* A thin frame: light cells would otherwise fade into the white page. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, f->fs * 0.08);
    cairo_rectangle(cr, px, py, side, side);
    cairo_stroke(cr);
    return LENS_OK;
}

static double panel_x(const struct fig *f, int t, int b)
{
    /* Panel b of row t: 0 original, 1 decoded, 2 relative error. */
    return b == 0 ? f->L.orig_x[t] : b == 1 ? f->L.dec_x[t] : f->L.err_x[t];
}

static void draw_ranks(const struct fig *f, cairo_t *cr, int t)
{
    int P = f->s->procs;
    double side = f->L.side, c = side / P, tick = f->fs * 0.35, y0 = f->L.y[t];
    char buf[32];
    /* Ticks at every rank_step-th rank, in one path. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, f->fs * 0.08);
    for (int i = 0; i < P; i += f->rank_step) {
        /* Row ticks only on the first panel (the rows are the same in all three), column ticks
         * under each. */
        cairo_move_to(cr, f->L.orig_x[t], y0 + (i + 0.5) * c);
        cairo_rel_line_to(cr, -tick, 0);
        for (int b = 0; b < 3; b++) {
            cairo_move_to(cr, panel_x(f, t, b) + (i + 0.5) * c, y0 + side);
            cairo_rel_line_to(cr, 0, tick);
        }
    }
    cairo_stroke(cr);
    /* Rank numbers left of the first panel and under all three. */
    lens_figure_set_font(cr, f->face, f->lab_fs);
    for (int i = 0; i < P; i += f->rank_step) {
        snprintf(buf, sizeof buf, "%d", i);
        lens_figure_text(cr, f->L.orig_x[t] - tick - f->fs * 0.2, y0 + (i + 0.5) * c, buf, 1.0, 0.5, 0.0);
        for (int b = 0; b < 3; b++)
            lens_figure_text(cr, panel_x(f, t, b) + (i + 0.5) * c, y0 + side + tick + f->fs * 0.15, buf, 0.5, 0.0, 0.0);
    }
}

/* Colour bar of map cmap at x0 beside row t for displayed values [lo, hi], titled unit. */
static void draw_cbar(const struct fig *f, cairo_t *cr, int t, double x0, int cmap, double lo, double hi,
                      const char *unit)
{
    double y0 = f->L.y[t], hgt = f->L.side, w = f->cbar_w, tick = f->fs * 0.35;
    /* the bar is a 1 x 256 image scaled up: no seams between strips */
    cairo_surface_t *bar = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, LENS_CMAP_SIZE);
    if (cairo_surface_status(bar) == CAIRO_STATUS_SUCCESS) {
        /* Top of the bar = largest value: the table is written bottom-up into the 1-pixel-wide image. */
        uint32_t lut[LENS_CMAP_SIZE];
        lens_colormap_lut(cmap, lut);
        cairo_surface_flush(bar);
        unsigned char *px = cairo_image_surface_get_data(bar);
        int stride = cairo_image_surface_get_stride(bar);
        for (int k = 0; k < LENS_CMAP_SIZE; k++)
            *(uint32_t *)(void *)(px + (size_t)(LENS_CMAP_SIZE - 1 - k) * stride) = lut[k];
        cairo_surface_mark_dirty(bar);
        cairo_save(cr);
        cairo_translate(cr, x0, y0);
        cairo_scale(cr, w, hgt / LENS_CMAP_SIZE);
        cairo_set_source_surface(cr, bar, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(cr, 0, 0, 1, LENS_CMAP_SIZE);
        cairo_fill(cr);
        cairo_restore(cr);
    }
    cairo_surface_destroy(bar); /* an error shows in cr's status at the end of the figure */
    double ticks[MAX_TICKS], step;
    /* Ticks one per 2.4 label heights, 2..8 of them. */
    int maxt = (int)(hgt / (f->lab_fs * 2.4));
    int nt = lens_figure_ticks(lo, hi, 0, maxt < 2 ? 2 : maxt > 8 ? 8 : maxt, ticks, &step);
    /* The bar's frame and its ticks in one stroke, then the tick labels to the right. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, f->fs * 0.08);
    cairo_rectangle(cr, x0, y0, w, hgt);
    for (int k = 0; k < nt; k++) {
        cairo_move_to(cr, x0 + w, y0 + hgt * (1 - (ticks[k] - lo) / (hi - lo)));
        cairo_rel_line_to(cr, tick, 0);
    }
    cairo_stroke(cr);
    char buf[64];
    lens_figure_set_font(cr, f->face, f->lab_fs);
    for (int k = 0; k < nt; k++) {
        lens_figure_format_value(ticks[k], step, buf, sizeof buf);
        lens_figure_text(cr, x0 + w + tick + f->fs * 0.2, y0 + hgt * (1 - (ticks[k] - lo) / (hi - lo)), buf, 0.0,
                         0.5, 0.0);
    }
    /* The unit above the bar. */
    lens_figure_text(cr, x0 + w / 2, y0 - f->fs * 0.35, unit, 0.5, 1.0, 0.0);
}

/* Row by row: the three panels, their rank axes and bars, the headers and the caption with
 * the measured error; then the axis titles and the two title lines. */
static int draw_fig(struct fig *f, cairo_t *cr, struct lens_err *e)
{
    const struct lens_cube_slices *s = f->s;
    size_t P2 = (size_t)s->procs * s->procs;
    double fs = f->fs;
    char buf[256], a[32], b[32], bound[48];
    /* White under the whole box: the figure may be drawn onto a page that is not. */
    cairo_rectangle(cr, f->x, f->y, f->w, f->h);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill(cr);
    /* One scratch matrix for the relative errors, reused by every row. */
    double *err = lens_malloc(P2 * sizeof *err);
    if (!err)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", f->name);
    for (int t = 0; t < s->n; t++) {
        const double *o = s->orig + t * P2, *d = s->dec + t * P2;
        for (size_t q = 0; q < P2; q++) /* the rule of lens_cube_slices_measure */
            err[q] = !isfinite(o[q]) ? NAN : o[q] != 0 ? fabs(d[q] - o[q]) / fabs(o[q]) : d[q] == o[q] ? 0 : INFINITY;
        /* Original and decoded share the row's range; the error panel has its own grey scale. */
        int rc = draw_panel(f, cr, o, f->L.orig_x[t], f->L.y[t], f->L.vmin[t], f->L.vmax[t], LENS_CMAP_VIRIDIS, e);
        if (rc == LENS_OK)
            rc = draw_panel(f, cr, d, f->L.dec_x[t], f->L.y[t], f->L.vmin[t], f->L.vmax[t], LENS_CMAP_VIRIDIS, e);
        if (rc == LENS_OK)
            rc = draw_panel(f, cr, err, f->L.err_x[t], f->L.y[t], 0, f->L.emax[t], LENS_CMAP_GREY, e);
        /* A panel that cannot be made (no memory for the image) ends the figure with the error. */
        if (rc) {
            lens_free(err);
            return rc;
        }
        draw_ranks(f, cr, t);
        draw_cbar(f, cr, t, f->cbar_x, LENS_CMAP_VIRIDIS, f->L.vmin[t] * f->mult, f->L.vmax[t] * f->mult, f->unit);
        /* The error bar in percent, from 0 to the bound: a cell at the top colour is at the bound. */
        draw_cbar(f, cr, t, f->ecbar_x, LENS_CMAP_GREY, 0, 100 * f->L.emax[t], "%");
        /* Panel headings a little above each panel. */
        double side = f->L.side, hy = f->L.y[t] - f->lab_fs * 0.4;
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
        lens_figure_set_font(cr, f->face, f->lab_fs);
        lens_figure_text(cr, f->L.orig_x[t] + side / 2, hy, "original", 0.5, 1.0, 0.0);
        lens_figure_text(cr, f->L.dec_x[t] + side / 2, hy, "compressed (decoded)", 0.5, 1.0, 0.0);
        lens_figure_text(cr, f->L.err_x[t] + side / 2, hy, "relative error |v' - v| / |v|", 0.5, 1.0, 0.0);
        /* The caption quotes the measured errors from the slices, not re-measured here. */
        format_pct(s->err_max[t], a, sizeof a);
        format_pct(s->err_rms[t], b, sizeof b);
        snprintf(buf, sizeof buf, "%d B: relative error max %s, RMS %s over %ld elements", s->lengths[t], a, b,
                 s->err_n[t]);
        cairo_set_source_rgb(cr, 0, 0, 0);
        lens_figure_set_font(cr, f->face, fs);
        lens_figure_text(cr, f->L.orig_x[t], hy - f->lab_fs * 1.3, buf, 0.0, 1.0, 0.0);
    }
    lens_free(err);
    lens_figure_set_font(cr, f->face, fs);
    double ly = f->y + f->h - fs * 1.1;
    lens_figure_text(cr, (f->L.orig_x[0] + f->L.err_x[0] + f->L.side) / 2, ly, "column (rank)", 0.5, 1.0, 0.0);
    char rw[32];
    lens_figure_set_font(cr, f->face, f->lab_fs);
    snprintf(rw, sizeof rw, "%d", s->procs - 1);
    /* The row axis title left of the widest rank label. */
    double rx = f->L.orig_x[0] - fs * 0.35 - lens_figure_text_width(cr, rw) - fs * 0.6;
    lens_figure_set_font(cr, f->face, fs);
    lens_figure_text(cr, rx, f->L.y[0] + (f->L.y[s->n - 1] + f->L.side - f->L.y[0]) / 2, "row (rank)", 0.5, 1.0,
                     -M_PI / 2);
    if (f->o->title)
        snprintf(buf, sizeof buf, "%s", f->o->title);
    else
        snprintf(buf, sizeof buf, "%s delay sliced along message length: original against compressed",
                 lens_cube_stat_name(s->stat));
    /* The statistic's name starts the title: capitalised (ASCII only, statistic names are). */
    buf[0] = (char)(buf[0] >= 'a' && buf[0] <= 'z' ? buf[0] - 32 : buf[0]);
    double cx = f->x + f->w / 2, ty = f->y + fs * 1.1;
    lens_figure_set_font(cr, f->face, fs * 1.3);
    lens_figure_text(cr, cx, ty, buf, 0.5, 0.0, 0.0);
    /* The subtitle states the bound when the packed cube recorded one. */
    if (isfinite(s->bound))
        snprintf(bound, sizeof bound, "bound %.3g%% per element; ", 100 * s->bound);
    else
        bound[0] = 0;
    snprintf(buf, sizeof buf, "%d processes; %sone delay scale per length; the diagonal is not a measurement",
             s->procs, bound);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    lens_figure_set_font(cr, f->face, f->lab_fs);
    lens_figure_text(cr, cx, ty + fs * 1.3 * 1.3, buf, 0.5, 0.0, 0.0);
    return lens_figure_status(cr, f->name, e);
}

/* Sets f up for the canvas c: the layout measures text in c's font. */
static int fig_begin(struct fig *f, const struct lens_cube_slices *s, const struct lens_slices_opts *o,
                     const struct lens_figure_canvas *c, struct lens_err *e)
{
    memset(f, 0, sizeof *f);
    f->s = s;
    f->o = o;
    f->name = c->name;
    f->face = c->face;
    f->w = c->w;
    f->h = c->h;
    f->L.width = o->width;
    f->L.height = auto_height(s, o);
    return layout(f, c->cr, e);
}

/* The figure's data for the protocol of figure.h. */
struct job {
    const struct lens_cube_slices *s;
    const struct lens_slices_opts *o; /* never NULL */
};

/* Drawn into a caller's box, the slices only need to be there. */
static int check_box(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    return check_args(j->s, name, e);
}

/* Files and PNG bytes also bound the figure: 320 x 240 holds one row, 16384 a side bounds
 * the image's memory. */
static int check_file(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    int rc = check_args(j->s, name, e);
    if (rc)
        return rc;
    int W = j->o->width, H = auto_height(j->s, j->o);
    if (W < 320 || H < 240 || W > 16384 || H > 16384)
        return lens_err_set(e, LENS_EINVAL, "%s: figure size %dx%d outside 320x240..16384x16384", name, W, H);
    return LENS_OK;
}

static void size(const void *data, double *w, double *h)
{
    const struct job *j = data;
    *w = j->o->width;
    *h = auto_height(j->s, j->o);
}

static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct job *j = data;
    struct fig f;
    int rc = fig_begin(&f, j->s, j->o, c, e);
    return rc ? rc : draw_fig(&f, c->cr, e);
}

static const struct lens_figure_kind slices_kind = {"slices", 0, check_file, size, paint};
static const struct lens_figure_kind slices_box_kind = {"slices", 0, check_box, size, paint};

/* The figure of s with options o (NULL: the defaults, kept in *def). */
static struct lens_figure figure(struct job *j, const struct lens_cube_slices *s, const struct lens_slices_opts *o,
                                 struct lens_slices_opts *def, const struct lens_figure_kind *k)
{
    if (!o) {
        lens_slices_opts_init(def);
        o = def;
    }
    j->s = s;
    j->o = o;
    return (struct lens_figure){.kind = k, .data = j, .font_path = o->font_path};
}

int lens_slices_draw(cairo_t *cr, double x, double y, double w, double h, const struct lens_cube_slices *s,
                     const struct lens_slices_opts *o, struct lens_err *e)
{
    struct job j;
    struct lens_slices_opts def;
    struct lens_figure fig = figure(&j, s, o, &def, &slices_box_kind);
    return lens_figure_draw(&fig, cr, x, y, w, h, e);
}

int lens_slices_write(const char *path, const struct lens_cube_slices *s, const struct lens_slices_opts *o,
                      struct lens_err *e)
{
    struct job j;
    struct lens_slices_opts def;
    struct lens_figure fig = figure(&j, s, o, &def, &slices_kind);
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_slices_png_mem(const struct lens_cube_slices *s, const struct lens_slices_opts *o, unsigned char **buf,
                        size_t *len, struct lens_err *e)
{
    struct job j;
    struct lens_slices_opts def;
    struct lens_figure fig = figure(&j, s, o, &def, &slices_kind);
    return lens_figure_render(&fig, NULL, buf, len, e);
}

/* lens_figure_measure callback: the layout fig_begin computes, into out. */
static int measure(const void *data, const struct lens_figure_canvas *c, void *out, struct lens_err *e)
{
    const struct job *j = data;
    struct fig f;
    int rc = fig_begin(&f, j->s, j->o, c, e);
    if (rc == LENS_OK)
        *(struct lens_slices_layout *)out = f.L;
    return rc;
}

/* The tests check every panel cell's colour against the positions and ranges reported here. */
int lens_slices_layout(const struct lens_cube_slices *s, const struct lens_slices_opts *o, struct lens_slices_layout *l,
                       struct lens_err *e)
{
    struct job j;
    struct lens_slices_opts def;
    /* the box kind: a layout is asked for whatever the size, as the writers would lay it out */
    struct lens_figure fig = figure(&j, s, o, &def, &slices_box_kind);
    memset(l, 0, sizeof *l);
    return lens_figure_measure(&fig, measure, l, e);
}
