/* Heatmap figure: colour range, layout, the map as a raster (or vector cells for small
 * SVGs), labels, colour bar and histogram. Cairo does the drawing; the map pixels are written
 * straight into an image buffer through a 256-entry lookup table, which is what makes
 * 8192 x 8192 matrices render in well under two seconds. */
#include "heatmap.h"

#include "figure.h"
#include "histogram.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define MAX_TICKS 12
#define LABEL_CP 20 /* axis labels longer than this many characters are cut with "…" */

/* Everything one figure needs while it is being laid out and drawn. */
struct fig {
    const double *m;
    int rows, cols;
    const struct lens_heatmap_opts *o;
    const char *name;          /* output name for messages */
    int hide_diag;             /* diagonal drawn as missing (square matrices only) */
    double lo, hi;             /* colour range, displayed units */
    double llo, inv;           /* colour position t = (x - lo) * inv, or (log10 x - llo) * inv */
    long long finite;          /* cells with a colour */
    cairo_font_face_t *face;
    double fs, lab_fs;         /* base and axis-label font sizes */
    int title_lines;           /* lines of the wrapped title (1 without a title) */
    double row_w, col_h;       /* space taken by row labels / column labels */
    int col_rot;               /* column labels drawn upwards */
    double ticks[MAX_TICKS], tstep;
    int nticks;
    struct lens_histogram hist;
    struct lens_heatmap_layout L;
};

/* Defaults for latency matrices in seconds: shown in µs, rank axes, the self-delay diagonal
 * hidden (it is 0 or noise and would stretch the colour range). */
void lens_heatmap_opts_init(struct lens_heatmap_opts *o)
{
    memset(o, 0, sizeof *o);
    o->unit = "\xc2\xb5s"; /* µs */
    o->scale = 1e6;
    o->cmap = LENS_CMAP_VIRIDIS;
    o->xlabel = "column (rank)";
    o->ylabel = "row (rank)";
    o->histogram = 1;
    o->hide_diagonal = 1;
    o->width = 1000;
    o->height = 760;
}

/* Everything the layout and the drawing rely on, checked before any allocation. */
static int check_args(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                      const char *name, struct lens_err *e)
{
    /* 2^20 a side keeps rows * cols and the pixel arithmetic inside size_t and int. */
    if (rows <= 0 || cols <= 0 || rows > (1 << 20) || cols > (1 << 20))
        return lens_err_set(e, LENS_EINVAL, "%s: matrix must have 1..%d rows and columns (got rows=%d, cols=%d)",
                            name, 1 << 20, rows, cols);
    if (!m)
        return lens_err_set(e, LENS_EINVAL, "%s: no matrix given", name);
    /* Below 160 x 120 the labels leave no map; 16384 a side bounds the image (1 GiB of pixels). */
    if (o->width < 160 || o->height < 120 || o->width > 16384 || o->height > 16384)
        return lens_err_set(e, LENS_EINVAL, "%s: figure size %dx%d outside 160x120..16384x16384",
                            name, o->width, o->height);
    if (!(o->scale > 0.0) || !isfinite(o->scale))
        return lens_err_set(e, LENS_EINVAL, "%s: scale must be finite and > 0 (got %g)", name, o->scale);
    if (o->cmap != LENS_CMAP_VIRIDIS && o->cmap != LENS_CMAP_GREY && o->cmap != LENS_CMAP_DIVERGING)
        return lens_err_set(e, LENS_EINVAL, "%s: unknown colour map %d", name, o->cmap);
    if (o->fixed_range && !(isfinite(o->vmin) && isfinite(o->vmax) && o->vmin < o->vmax))
        return lens_err_set(e, LENS_EINVAL, "%s: fixed range needs finite vmin < vmax (got %g, %g)",
                            name, o->vmin, o->vmax);
    /* A log scale cannot start at zero or below. */
    if (o->fixed_range && o->log_scale && !(o->vmin > 0.0))
        return lens_err_set(e, LENS_EINVAL, "%s: log scale needs vmin > 0 (got %g)", name, o->vmin);
    return LENS_OK;
}

/* Colour range: the fixed one, or the finite (positive under log) data range, widened when
 * it is a single value so that the colour bar still has an extent. */
static void find_range(struct fig *f)
{
    const struct lens_heatmap_opts *o = f->o;
    size_t n = (size_t)f->rows * f->cols;
    double mn = INFINITY, mx = -INFINITY;
    long long cnt = 0;
    for (int i = 0; i < f->rows; i++) {
        const double *row = f->m + (size_t)i * f->cols;
        for (int j = 0; j < f->cols; j++) {
            double v = row[j];
            /* Scaled first: a finite delay times 1e6 can still overflow to infinity. */
            if (!isfinite(v * o->scale) || (o->log_scale && !(v > 0.0)) || (f->hide_diag && i == j))
                continue;
            cnt++;
            if (v < mn)
                mn = v;
            if (v > mx)
                mx = v;
        }
    }
    /* finite: cells with a colour; the rest are drawn in the missing colour and counted for the
     * key under the colour bar. */
    f->finite = cnt;
    f->L.missing = (long long)n - cnt;
    /* A fixed range (the report's common scale across lengths) wins over the data's. */
    if (o->fixed_range) {
        f->lo = o->vmin;
        f->hi = o->vmax;
    /* Nothing to colour: any range will do, as long as the colour bar can be drawn. */
    } else if (cnt == 0) {
        f->lo = o->log_scale ? 1.0 : 0.0;
        f->hi = o->log_scale ? 10.0 : 1.0;
    } else {
        f->lo = mn * o->scale;
        f->hi = mx * o->scale;
        if (!(f->hi > f->lo)) {
            /* One value everywhere (a uniform network): widen by 5% (10% on a log scale) so the bar has
             * an extent and every cell lands in the middle colour, not at an end. */
            double d = fabs(f->lo) * 0.05;
            if (o->log_scale) {
                f->lo /= 1.1;
                f->hi *= 1.1;
            } else {
                f->lo -= d > 0 ? d : 1.0;
                f->hi += d > 0 ? d : 1.0;
            }
        }
    }
    /* The log scale works on log10 of the values: positions, ticks and histogram bins alike. */
    if (o->log_scale) {
        f->llo = log10(f->lo);
        /* Kept as a reciprocal: scale_pos runs once per pixel of the map. */
        f->inv = 1.0 / (log10(f->hi) - f->llo);
    } else {
        f->inv = 1.0 / (f->hi - f->lo);
    }
    f->L.vmin = f->lo;
    f->L.vmax = f->hi;
}

/* Position of displayed value x on the colour scale, 0 at lo and 1 at hi (not clamped). */
static double scale_pos(const struct fig *f, double x)
{
    return f->o->log_scale ? (log10(x) - f->llo) * f->inv : (x - f->lo) * f->inv;
}

/* Colour of raw cell value v as a 0xffRRGGBB pixel. */
static uint32_t cell_pixel(const struct fig *f, const uint32_t *lut, uint32_t missing, double v)
{
    double x = v * f->o->scale;
    /* The same rule as find_range: what has no place on the scale is missing. */
    if (!isfinite(x) || (f->o->log_scale && !(x > 0.0)))
        return missing;
    return lut[lens_colormap_index(scale_pos(f, x))];
}

static const char *label_of(const struct fig *f, int i, char *buf, size_t n)
{
    const char *s = f->o->labels ? f->o->labels[i] : NULL;
    if (s)
        /* Host names can be long: cut them so that the map keeps its width. */
        lens_figure_ellipsize(s, LABEL_CP, buf, n);
    else
        snprintf(buf, n, "%d", i);
    return buf;
}

/* The widest of n axis labels in the current font: decides the margins. */
static double max_label_width(const struct fig *f, cairo_t *cr, int n)
{
    double w = 0;
    char buf[128];
    for (int i = 0; i < n; i++) {
        double t = lens_figure_text_width(cr, label_of(f, i, buf, sizeof buf));
        if (t > w)
            w = t;
        if (!f->o->labels && i >= 10) /* rank numbers: the widest is the last */
            i = i < n - 2 ? n - 2 : i;
    }
    return w;
}

/* Smallest step from 1, 2, 5, 10, 20, ... with n / step labels fitting into fit slots. */
static int label_step(int n, double fit)
{
    if (fit < 1)
        fit = 1;
    int step = 1;
    /* 1, 2, 5 steps: the labels then land on round ranks (0, 5, 10, ...) people can count on. */
    for (int mag = 1; mag < (1 << 24); mag *= 10) {
        static const int m125[3] = {1, 2, 5};
        for (int k = 0; k < 3; k++) {
            step = m125[k] * mag;
            if ((n + step - 1) / step <= fit)
                return step;
        }
    }
    return step;
}

static double tick_len(const struct fig *f) { return f->fs * 0.35; }

/* The colour bar's tick labels need a column as wide as the widest of them. */
static void tick_label_width(struct fig *f, cairo_t *cr, double *w)
{
    char buf[64];
    *w = 0;
    for (int i = 0; i < f->nticks; i++) {
        lens_figure_format_value(f->ticks[i], f->tstep, buf, sizeof buf);
        double t = lens_figure_text_width(cr, buf);
        if (t > *w)
            *w = t;
    }
}

/* Places map, colour bar and histogram in the W x H figure (font sizes follow the figure). */
static int layout(struct fig *f, cairo_t *cr, struct lens_err *e)
{
    const struct lens_heatmap_opts *o = f->o;
    double W = o->width, H = o->height;
    /* The base font follows the figure: 55 lines of text fit the short side, within 7..13 units
     * so that small figures stay readable and large ones do not shout. */
    double fs = fmin(W, H) / 55.0;
    fs = fs < 7 ? 7 : fs > 13 ? 13 : fs;
    /* For print the axis labels (0.85 fs) keep the print floor; the layout grows with it. */
    fs = fmax(fs, lens_figure_font_floor(cr, 0) / 0.85);
    f->fs = fs;
    f->lab_fs = fs * 0.85;
    double pad = fs, tick = tick_len(f);

    lens_figure_set_font(cr, f->face, f->lab_fs);
    f->row_w = fmin(max_label_width(f, cr, f->rows), 0.2 * W);
    double col_w = max_label_width(f, cr, f->cols);
    /* Host names under the map are rotated to read upwards; rank numbers fit upright. */
    f->col_rot = o->labels != NULL;
    f->col_h = f->col_rot ? fmin(col_w, 0.2 * H) : f->lab_fs * 1.3;
    /* A first guess at the ticks, only to measure the widest tick label for the layout; the
     * real ones follow once the bar's height is known. */
    f->nticks = lens_figure_ticks(f->lo, f->hi, o->log_scale, 10, f->ticks, &f->tstep);
    double tw;
    tick_label_width(f, cr, &tw);
    if (f->L.missing > 0) /* the "missing" key under the colour bar needs the same column */
        tw = fmax(tw, lens_figure_text_width(cr, "missing"));

    /* A long title wraps: each line past the first takes one title line from the map. */
    f->title_lines = 1;
    if (o->title) {
        lens_figure_set_font(cr, f->face, fs * 1.25);
        f->title_lines = lens_figure_text_wrap(NULL, cr, W / 2, fs, o->title, W - 2 * pad, 0.5, 0);
        f->title_lines = f->title_lines < 1 ? 1 : f->title_lines;
        lens_figure_set_font(cr, f->face, f->lab_fs);
    }
    double top = pad + (o->title ? fs * 1.25 * (1.6 + 1.2 * (f->title_lines - 1)) : 0) + fs * 1.6;
    double left = pad + (o->ylabel ? fs * 1.5 : 0) + f->row_w + tick + fs * 0.3;
    double bottom = pad + (o->xlabel ? fs * 1.5 : 0) + f->col_h + tick + fs * 0.3;
    double hist_w = o->histogram ? fmax(0.2 * W, 6 * fs) : 0;
    if (o->histogram && bottom < pad + 3.4 * fs)
        bottom = pad + 3.4 * fs;
    /* Gap, bar, tick, gap, tick labels, gap: the colour bar's column to the right of the map. */
    double cbar_part = fs + fs * 1.3 + tick + fs * 0.3 + tw + fs * 0.8;
    double right = cbar_part + (o->histogram ? hist_w + fs * 1.5 : 0) + pad;
    double aw = W - left - right, ah = H - top - bottom;
    /* Less than 16 units for the map: the labels took everything, refuse rather than draw a dot. */
    if (aw < 16 || ah < 16)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %dx%d too small for its labels",
                            f->name, o->width, o->height);
    /* square cells, unless that makes the map thinner than a third of the space */
    double cell = fmin(aw / f->cols, ah / f->rows);
    double mw = fmax(cell * f->cols, aw / 3), mh = fmax(cell * f->rows, ah / 3);
    mw = floor(fmin(mw, aw));
    mh = floor(fmin(mh, ah));
    struct lens_heatmap_layout *L = &f->L;
    L->map_w = mw < 1 ? 1 : mw;
    L->map_h = mh < 1 ? 1 : mh;
    /* Whole units: the PNG raster then covers whole pixels and nearest filtering adds no seams. */
    /* The map centred in its area, the colour bar right of it and the histogram right of that,
     * all as tall as the map. */
    L->map_x = floor(left + (aw - L->map_w) / 2);
    L->map_y = floor(top + (ah - L->map_h) / 2);
    L->cbar_x = L->map_x + L->map_w + fs;
    L->cbar_y = L->map_y;
    L->cbar_w = fs * 1.3;
    L->cbar_h = L->map_h;
    if (o->histogram) {
        L->hist_x = L->cbar_x + cbar_part - fs;
        L->hist_y = L->map_y;
        L->hist_w = hist_w;
        L->hist_h = L->map_h;
    }
    /* thin labels out to what fits; upright column labels need their width */
    L->row_step = label_step(f->rows, L->map_h / (f->lab_fs * 1.3));
    L->col_step = label_step(f->cols, L->map_w / (f->col_rot ? f->lab_fs * 1.3 : col_w + f->lab_fs));
    /* One colour-bar tick per 2.5 label heights, between 2 and 10. */
    int maxt = (int)(L->map_h / (f->lab_fs * 2.5));
    f->nticks = lens_figure_ticks(f->lo, f->hi, o->log_scale, maxt < 2 ? 2 : maxt > 10 ? 10 : maxt,
                                  f->ticks, &f->tstep);
    return LENS_OK;
}

/* Fills a w x h pixel buffer with the map, each pixel taking the nearest cell: for big
 * matrices this samples only the cells that show, for small ones it repeats each cell. */
static int fill_raster(const struct fig *f, uint32_t *pix, int stride, int w, int h,
                       struct lens_err *e)
{
    uint32_t lut[LENS_CMAP_SIZE];
    unsigned char miss[3];
    lens_colormap_lut(f->o->cmap, lut);
    lens_colormap_missing(f->o->cmap, miss);
    uint32_t missing = 0xff000000u | (uint32_t)miss[0] << 16 | (uint32_t)miss[1] << 8 | miss[2];
    /* The column of every pixel x, computed once: the inner loop then has no division. */
    int *colmap = lens_malloc((size_t)w * sizeof *colmap);
    if (!colmap)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the map", f->name);
    for (int x = 0; x < w; x++) {
        /* The cell under the pixel's centre. */
        int j = (int)(((double)x + 0.5) * f->cols / w);
        colmap[x] = j >= f->cols ? f->cols - 1 : j;
    }
    /* Consecutive pixel rows over the same matrix row are equal: copy the previous one. */
    int prev_i = -1;
    for (int y = 0; y < h; y++) {
        /* The matrix row under the pixel row's centre; the clamp guards the last row against rounding. */
        int i = (int)(((double)y + 0.5) * f->rows / h);
        i = i >= f->rows ? f->rows - 1 : i;
        uint32_t *row = pix + (size_t)y * stride;
        if (i == prev_i) {
            memcpy(row, row - stride, (size_t)w * sizeof *row);
            continue;
        }
        /* The matrix row, then pixels left to right taking each cell's colour once. */
        const double *mrow = f->m + (size_t)i * f->cols;
        int prev_j = -1;
        uint32_t c = 0;
        for (int x = 0; x < w; x++) {
            if (colmap[x] != prev_j) {
                prev_j = colmap[x];
                c = f->hide_diag && prev_j == i ? missing : cell_pixel(f, lut, missing, mrow[prev_j]);
            }
            row[x] = c;
        }
        prev_i = i;
    }
    lens_free(colmap);
    return LENS_OK;
}

/* Paints the map as a w x h raster scaled onto the map rectangle with nearest filtering. */
static int draw_map_raster(const struct fig *f, cairo_t *cr, int w, int h, struct lens_err *e)
{
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return lens_err_set(e, LENS_ENOMEM, "%s: cannot make a %dx%d image for the map", f->name, w, h);
    }
    cairo_surface_flush(img);
    int rc = fill_raster(f, (uint32_t *)(void *)cairo_image_surface_get_data(img),
                         cairo_image_surface_get_stride(img) / 4, w, h, e);
    /* We wrote the pixels behind cairo's back: it must drop any cached copy of the surface. */
    cairo_surface_mark_dirty(img);
    if (rc == LENS_OK) {
        const struct lens_heatmap_layout *L = &f->L;
        cairo_save(cr);
        cairo_translate(cr, L->map_x, L->map_y);
        /* Nearest filtering: scaled up, each cell stays a sharp block of one colour instead of a blur. */
        cairo_scale(cr, L->map_w / w, L->map_h / h);
        cairo_set_source_surface(cr, img, 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
        cairo_rectangle(cr, 0, 0, w, h);
        cairo_fill(cr);
        cairo_restore(cr);
    }
    cairo_surface_destroy(img);
    return rc;
}

/* Small SVG maps: one rectangle per cell, so the figure stays vector. */
static void draw_map_vector(const struct fig *f, cairo_t *cr)
{
    const struct lens_heatmap_layout *L = &f->L;
    uint32_t lut[LENS_CMAP_SIZE];
    unsigned char miss[3];
    lens_colormap_lut(f->o->cmap, lut);
    lens_colormap_missing(f->o->cmap, miss);
    uint32_t missing = 0xff000000u | (uint32_t)miss[0] << 16 | (uint32_t)miss[1] << 8 | miss[2];
    /* Cells in figure units: every cell is a rectangle of exactly its colour. */
    double cw = L->map_w / f->cols, ch = L->map_h / f->rows;
    /* each cell reaches a little under its right and lower neighbours, which are painted
     * after it, so viewers that anti-alias each path show no hairlines between cells */
    double ov = fmin(0.3, 0.25 * fmin(cw, ch));
    for (int i = 0; i < f->rows; i++)
        for (int j = 0; j < f->cols; j++) {
            uint32_t c = f->hide_diag && i == j ? missing
                                                : cell_pixel(f, lut, missing, f->m[(size_t)i * f->cols + j]);
            cairo_set_source_rgb(cr, ((c >> 16) & 255) / 255.0, ((c >> 8) & 255) / 255.0, (c & 255) / 255.0);
            cairo_rectangle(cr, L->map_x + j * cw, L->map_y + i * ch, cw + (j < f->cols - 1 ? ov : 0),
                            ch + (i < f->rows - 1 ? ov : 0));
            cairo_fill(cr);
        }
}

/* Frame, ticks and labels of the map, then the axis titles and the figure's title. */
static void draw_axes(const struct fig *f, cairo_t *cr)
{
    const struct lens_heatmap_opts *o = f->o;
    const struct lens_heatmap_layout *L = &f->L;
    double tick = tick_len(f), fs = f->fs;
    char buf[128];
    /* Host bands under the ticks and the frame: one rectangle per run of rows (columns) on
     * one host, so a tree order that keeps hosts together shows as few long bands. */
    double ch = L->map_h / f->rows, cw = L->map_w / f->cols;
    for (int ax = 0; o->hosts && o->hostcol && ax < 2; ax++) {
        int n = ax ? f->cols : f->rows;
        for (int i = 0, j; i < n; i = j) {
            const char *h = o->hosts[i];
            for (j = i + 1; j < n && (h && o->hosts[j] ? !strcmp(h, o->hosts[j]) : h == o->hosts[j]);)
                j++;
            double rgb[3];
            lens_hostcolour_of(o->hostcol, h, rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            if (ax)
                cairo_rectangle(cr, L->map_x + i * cw, L->map_y + L->map_h, (j - i) * cw, tick);
            else
                cairo_rectangle(cr, L->map_x - tick, L->map_y + i * ch, tick, (j - i) * ch);
            cairo_fill(cr);
        }
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, fs * 0.08);
    cairo_rectangle(cr, L->map_x, L->map_y, L->map_w, L->map_h);
    cairo_stroke(cr);

    /* Ticks at the centres of the labelled rows and columns, all in one path and one stroke. */
    /* Row ticks on the left edge, column ticks under the bottom edge, one path for all. */
    for (int i = 0; i < f->rows; i += L->row_step) {
        cairo_move_to(cr, L->map_x, L->map_y + (i + 0.5) * ch);
        cairo_rel_line_to(cr, -tick, 0);
    }
    for (int j = 0; j < f->cols; j += L->col_step) {
        cairo_move_to(cr, L->map_x + (j + 0.5) * cw, L->map_y + L->map_h);
        cairo_rel_line_to(cr, 0, tick);
    }
    cairo_stroke(cr);

    /* Row labels right-aligned against the ticks. */
    lens_figure_set_font(cr, f->face, f->lab_fs);
    for (int i = 0; i < f->rows; i += L->row_step)
        lens_figure_text(cr, L->map_x - tick - fs * 0.2, L->map_y + (i + 0.5) * ch,
                         label_of(f, i, buf, sizeof buf), 1.0, 0.5, 0.0);
    /* The column labels start under the ticks; the axis title goes under the tallest of them. */
    double ly = L->map_y + L->map_h + tick + fs * 0.2;
    for (int j = 0; j < f->cols; j += L->col_step) {
        label_of(f, j, buf, sizeof buf);
        if (f->col_rot)
            lens_figure_text(cr, L->map_x + (j + 0.5) * cw, ly, buf, 1.0, 0.5, -M_PI / 2);
        else
            lens_figure_text(cr, L->map_x + (j + 0.5) * cw, ly, buf, 0.5, 0.0, 0.0);
    }
    /* Axis titles outside the labels: the y title rotated, left of the widest row label. */
    lens_figure_set_font(cr, f->face, fs);
    if (o->xlabel)
        lens_figure_text(cr, L->map_x + L->map_w / 2, ly + f->col_h + fs * 0.3, o->xlabel, 0.5, 0.0, 0.0);
    if (o->ylabel)
        lens_figure_text(cr, L->map_x - tick - fs * 0.5 - f->row_w, L->map_y + L->map_h / 2,
                         o->ylabel, 0.5, 1.0, -M_PI / 2);
    /* The title centred on the whole figure, not the map: it also spans the colour bar. */
    if (o->title) {
        lens_figure_set_font(cr, f->face, fs * 1.25);
        lens_figure_text_wrap(NULL, cr, o->width / 2.0, fs, o->title, o->width - 2 * fs, 0.5, 1);
    }
}

/* The bar right of the map: its strips in the map's colours, ticks on the same scale,
 * the unit above and, when cells are missing, a key for their colour below. */
static void draw_colour_bar(const struct fig *f, cairo_t *cr)
{
    const struct lens_heatmap_layout *L = &f->L;
    double tick = tick_len(f), fs = f->fs;
    char buf[96];
    /* one strip per colour map entry, top = largest values */
    double sh = L->cbar_h / LENS_CMAP_SIZE;
    for (int k = 0; k < LENS_CMAP_SIZE; k++) {
        double rgb[3];
        lens_colormap_rgb(f->o->cmap, k, rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        /* overlap by a little so no hairline of background shows between strips */
        cairo_rectangle(cr, L->cbar_x, L->cbar_y + L->cbar_h - (k + 1) * sh, L->cbar_w,
                        k == LENS_CMAP_SIZE - 1 ? sh : sh * 1.5);
        cairo_fill(cr);
    }
    /* Frame of the bar on top of the strips, with its ticks, in one stroke. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, fs * 0.08);
    cairo_rectangle(cr, L->cbar_x, L->cbar_y, L->cbar_w, L->cbar_h);
    for (int i = 0; i < f->nticks; i++) {
        double ty = L->cbar_y + L->cbar_h * (1.0 - scale_pos(f, f->ticks[i]));
        cairo_move_to(cr, L->cbar_x + L->cbar_w, ty);
        cairo_rel_line_to(cr, tick, 0);
    }
    cairo_stroke(cr);
    /* Tick labels left-aligned right of the ticks: the column layout() reserved for them. */
    lens_figure_set_font(cr, f->face, f->lab_fs);
    for (int i = 0; i < f->nticks; i++) {
        double ty = L->cbar_y + L->cbar_h * (1.0 - scale_pos(f, f->ticks[i]));
        lens_figure_format_value(f->ticks[i], f->tstep, buf, sizeof buf);
        lens_figure_text(cr, L->cbar_x + L->cbar_w + tick + fs * 0.2, ty, buf, 0.0, 0.5, 0.0);
    }
    if (L->missing > 0) {
        /* key for the missing-cell colour, under the bar */
        unsigned char miss[3];
        double sy = L->cbar_y + L->cbar_h + fs * 0.6;
        lens_colormap_missing(f->o->cmap, miss);
        cairo_rectangle(cr, L->cbar_x, sy, L->cbar_w, f->lab_fs);
        cairo_set_source_rgb(cr, miss[0] / 255.0, miss[1] / 255.0, miss[2] / 255.0);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_stroke(cr);
        lens_figure_text(cr, L->cbar_x + L->cbar_w + fs * 0.3, sy + f->lab_fs / 2, "missing", 0.0, 0.5, 0.0);
    }
    lens_figure_set_font(cr, f->face, fs);
    /* The unit above the bar, with ", log" when the colours follow log10 of the values. */
    snprintf(buf, sizeof buf, "%s%s", f->o->unit ? f->o->unit : "",
             f->o->log_scale ? (f->o->unit ? ", log" : "log") : "");
    lens_figure_text(cr, L->cbar_x + L->cbar_w / 2, L->cbar_y - fs * 0.4, buf, 0.5, 1.0, 0.0);
}

/* Sets up f (range, histogram) for drawing on cr in font face and lays it out. */
static int fig_begin(struct fig *f, const double *m, int rows, int cols,
                     const struct lens_heatmap_opts *o, const char *name, cairo_t *cr,
                     cairo_font_face_t *face, int want_hist, struct lens_err *e)
{
    memset(f, 0, sizeof *f);
    f->m = m;
    f->rows = rows;
    f->cols = cols;
    f->o = o;
    f->name = name;
    /* Only a square matrix has a diagonal of self-delays to hide. */
    f->hide_diag = o->hide_diagonal && rows == cols;
    f->face = face;
    find_range(f); /* before the layout: the colour bar's tick labels depend on the range */
    int rc = layout(f, cr, e);
    if (rc == LENS_OK && o->histogram && want_hist)
        rc = lens_histogram_compute(&f->hist, m, (size_t)rows * cols, f->hide_diag ? rows : 0,
                                    o->scale, f->lo, f->hi, o->log_scale,
                                    lens_histogram_bins_for(f->finite), name, e);
    return rc;
}

/* The face is the canvas's: only the histogram is ours to free. */
static void fig_end(struct fig *f)
{
    lens_histogram_release(&f->hist);
}

/* Draws the whole figure on cr. raster_max 0: the map is pixel-exact at the map's size
 * (PNG); otherwise vector cells up to vector_max a side, else a raster of at most
 * raster_max pixels a side (SVG). */
static int draw(struct fig *f, cairo_t *cr, int vector_max, int raster_max, struct lens_err *e)
{
    const struct lens_heatmap_layout *L = &f->L;
    cairo_set_source_rgb(cr, 1, 1, 1);
    /* White under everything: PNGs have no transparency, SVGs would show the viewer's background. */
    cairo_paint(cr);
    int rc = LENS_OK;
    /* PNG: a raster of exactly the map's pixels, one pixel per pixel, nothing resampled. */
    /* PNG: pixel-exact raster. SVG: vector cells when the matrix is small enough, else a raster
     * of at most raster_max a side embedded in the SVG. */
    if (raster_max == 0)
        rc = draw_map_raster(f, cr, (int)L->map_w, (int)L->map_h, e);
    else if (f->rows <= vector_max && f->cols <= vector_max)
        draw_map_vector(f, cr);
    else
        rc = draw_map_raster(f, cr, f->cols < raster_max ? f->cols : raster_max,
                             f->rows < raster_max ? f->rows : raster_max, e);
    if (rc)
        return rc;
    /* Axes and the colour bar over the map: its frame must not be covered by cells. */
    draw_axes(f, cr);
    draw_colour_bar(f, cr);
    if (f->o->histogram) {
        /* Beside the colour bar and on its scale: each bar sits level with its colours. */
        lens_histogram_draw(cr, &f->hist, L->hist_x, L->hist_y, L->hist_w, L->hist_h,
                            f->o->cmap, f->ticks, f->nticks, f->face, f->fs);
        cairo_set_source_rgb(cr, 0, 0, 0);
        lens_figure_set_font(cr, f->face, f->fs);
        lens_figure_text(cr, L->hist_x + L->hist_w / 2, L->hist_y - f->fs * 0.4, "histogram",
                         0.5, 1.0, 0.0);
    }
    return lens_figure_status(cr, f->name, e);
}

/* The figure's data for the protocol of figure.h. */
struct job {
    const double *m;
    int rows, cols;
    const struct lens_heatmap_opts *o; /* never NULL */
};

static int check(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    return check_args(j->m, j->rows, j->cols, j->o, name, e);
}

static void size(const void *data, double *w, double *h)
{
    const struct job *j = data;
    *w = j->o->width;
    *h = j->o->height;
}

/* A PNG gets the map pixel-exact at its size; a vector target (SVG) gets rectangles for
 * small maps and one bounded raster for large ones, so the file stays small either way. */
static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct job *j = data;
    struct fig f;
    int rc = fig_begin(&f, j->m, j->rows, j->cols, j->o, c->name, c->cr, c->face, 1, e);
    if (rc == LENS_OK)
        rc = c->vector ? draw(&f, c->cr, LENS_HEATMAP_SVG_VECTOR_MAX, LENS_HEATMAP_SVG_RASTER_MAX, e)
                       : draw(&f, c->cr, 0, 0, e);
    fig_end(&f);
    return rc;
}

static const struct lens_figure_kind heatmap_kind = {"heatmap", 0, check, size, paint};

/* The figure of m with options o (NULL: the defaults, kept in *def). */
static struct lens_figure figure(struct job *j, const double *m, int rows, int cols,
                                 const struct lens_heatmap_opts *o, struct lens_heatmap_opts *def)
{
    if (!o) {
        lens_heatmap_opts_init(def);
        o = def;
    }
    *j = (struct job){m, rows, cols, o};
    return (struct lens_figure){.kind = &heatmap_kind, .data = j, .font_path = o->font_path};
}

/* The PNG and SVG writers differ only in the format they force, whatever the name. */
static int write_as(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                    const char *path, int as, struct lens_err *e)
{
    struct job j;
    struct lens_heatmap_opts def;
    struct lens_figure fig = figure(&j, m, rows, cols, o, &def);
    fig.as = as;
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_heatmap_write_png(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                           const char *path, struct lens_err *e)
{
    return write_as(m, rows, cols, o, path, LENS_FIGURE_AS_PNG, e);
}

/* What the report embeds: the same figure as the PNG file, byte for byte. */
int lens_heatmap_png_mem(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                         unsigned char **buf, size_t *len, struct lens_err *e)
{
    struct job j;
    struct lens_heatmap_opts def;
    struct lens_figure fig = figure(&j, m, rows, cols, o, &def);
    return lens_figure_render(&fig, NULL, buf, len, e);
}

int lens_heatmap_write_svg(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                           const char *path, struct lens_err *e)
{
    return write_as(m, rows, cols, o, path, LENS_FIGURE_AS_SVG, e);
}

/* lens_figure_measure callback: the layout without the histogram (it moves nothing). */
static int measure(const void *data, const struct lens_figure_canvas *c, void *out, struct lens_err *e)
{
    const struct job *j = data;
    struct fig f;
    int rc = fig_begin(&f, j->m, j->rows, j->cols, j->o, c->name, c->cr, c->face, 0, e);
    if (rc == LENS_OK)
        *(struct lens_heatmap_layout *)out = f.L;
    fig_end(&f);
    return rc;
}

/* The tests read cell positions from here and check the pixels of the PNG against them. */
int lens_heatmap_layout(const double *m, int rows, int cols, const struct lens_heatmap_opts *o,
                        struct lens_heatmap_layout *l, struct lens_err *e)
{
    struct job j;
    struct lens_heatmap_opts def;
    struct lens_figure fig = figure(&j, m, rows, cols, o, &def);
    memset(l, 0, sizeof *l);
    fig.name = "heatmap";
    return lens_figure_measure(&fig, measure, l, e);
}
