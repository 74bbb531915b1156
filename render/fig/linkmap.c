/* The link-cluster map (Figure 6 of Salnikov et al.): layout, the categorical map (a raster, or runs
 * of equal cells as vector rectangles on PDF/SVG), host blocks, axes and the legend. See
 * linkmap.h for the contracts. */
#include "linkmap.h"

#include "figure.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define VECTOR_MAX 256   /* PDF/SVG: up to this many processes the cells are rectangles */
#define RASTER_MAX 2048  /* larger maps are sampled down to a raster this wide */
#define HOST_BLOCKS_MAX 64 /* more host blocks than this: rank numbers on the axes */
#define LABEL_CP 16

/* tab10 without its grey, then a greedy max-min extension in CIELAB (L* 35..85, chroma
 * 25..80) over an sRGB grid of step 15, the colours already chosen and white/black/grey kept
 * away (script in docs/links.md). */
static const uint32_t palette[LENS_LINKMAP_PALETTE] = {
    0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd, 0x8c564b, 0xe377c2, 0xbcbd22,
    0x17becf, 0xffc387, 0x4b5a0f, 0xa5e1a5, 0xa5004b, 0x1e695a, 0xc3c3ff, 0x0078ff,
    0xff8787, 0x965a00, 0xa50096, 0x00f096, 0xe178ff, 0x00a578, 0xff3c96, 0xffb4d2,
    0xa5a55a, 0xffb41e, 0xa5e169, 0x784bd2, 0x873c69, 0x5ac3ff, 0xa53c2d, 0x698700,
    0x00691e, 0x8778a5, 0xf0784b, 0xff3c69, 0xd29687, 0x2d5ab4, 0xa58700, 0xff5ad2,
    0x0096ff, 0x00e1c3, 0x96e1d2, 0x69875a, 0xe1a5ff, 0xf0d269, 0xe1963c, 0x78b400,
    0x96784b, 0x0087a5, 0xc35a78, 0x9696ff, 0xb40f78, 0x5aa596, 0xb43c00, 0x69a55a,
    0xc3784b, 0x69d278, 0x5a4b87, 0xb47896, 0x872d87, 0x78a5f0, 0xff6996, 0xd24b5a,
};
/* A light grey no palette entry is near: the diagonal is not a link and must not look like one. */
#define DIAGONAL 0xe4e4e4u

/* A cluster's colour as a cairo pixel (0x00RRGGBB): the raster writes it directly. */
static uint32_t pixel_of(int id)
{
    /* More clusters than colours repeat the palette; the legend's numbers then tell them apart. */
    return id < 0 ? DIAGONAL : palette[id % LENS_LINKMAP_PALETTE];
}

/* Shared with the curves figure and the report, so a cluster has one colour everywhere. */
void lens_linkmap_rgb8(int id, unsigned char rgb[3])
{
    uint32_t c = pixel_of(id);
    rgb[0] = (unsigned char)(c >> 16);
    rgb[1] = (unsigned char)(c >> 8);
    rgb[2] = (unsigned char)c;
}

void lens_linkmap_colour(int id, double rgb[3])
{
    unsigned char c[3];
    lens_linkmap_rgb8(id, c);
    /* Bytes back to [0, 1], so cairo gets exactly the colour the raster pixels have. */
    for (int t = 0; t < 3; t++)
        rgb[t] = c[t] / 255.0;
}

/* Seconds to the unit that gives at most three digits before the point. */
void lens_linkmap_format_delay(double s, char *buf, size_t n)
{
    static const char *const unit[] = {"ns", "\xc2\xb5s", "ms", "s"};
    /* A cluster whose mean is missing (all its delays NaN) says so instead of "nan ns". */
    if (!isfinite(s)) {
        snprintf(buf, n, "n/a");
        return;
    }
    double v = s * 1e9;
    int u = 0;
    /* Up a unit at 999.5, not 1000: 999.7 ns would otherwise print as "1000 ns". */
    while (u < 3 && fabs(v) >= 999.5) {
        v /= 1e3;
        u++;
    }
    /* Three significant digits whatever the unit: 541 ns, 1.93 µs, 12.4 ms. */
    snprintf(buf, n, "%.*f %s", fabs(v) >= 99.95 ? 0 : fabs(v) >= 9.995 ? 1 : 2, v, unit[u]);
}

void lens_linkmap_opts_init(struct lens_linkmap_opts *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1000;
    o->height = 720;
}

/* Everything one figure needs while it is laid out and drawn. */
struct fig {
    const struct lens_links *r;
    const struct lens_linkmap_opts *o;
    const char *name;                  /* for messages */
    cairo_font_face_t *face;           /* the canvas's, borrowed */
    double x, y, w, h;                 /* the box (x = y = 0: the canvas is the box) */
    double fs, lab_fs, row_h;          /* font sizes, legend row height */
    double lab_w;                      /* room for the row labels */
    int hosts;                         /* axes name host blocks */
    int rot;                           /* host names under the map read upwards */
    int nblock, *block;                /* host blocks: first rank of each, block[nblock] = P */
    double col_id, col_size, col_mean; /* legend column widths */
    int legend_rows;
    struct lens_linkmap_layout L;
};

static int check_args(const struct lens_links *r, const struct lens_linkmap_opts *o, const char *name,
                      int sized, struct lens_err *e)
{
    /* The clustering comes finished from analysis (lens_links); one process has no links at all. */
    if (!r || !r->label || r->procs < 2 || r->k < 1 || !r->clusters)
        return lens_err_set(e, LENS_EINVAL, "%s: no link clustering to draw (needs 2 or more processes)", name);
    /* 320 x 240 holds a small map and its legend; 16384 a side bounds the image's memory. */
    if (sized && (o->width < 320 || o->height < 240 || o->width > 16384 || o->height > 16384))
        return lens_err_set(e, LENS_EINVAL, "%s: figure size %dx%d outside 320x240..16384x16384", name,
                            o->width, o->height);
    return LENS_OK;
}

/* Host blocks: runs of equal host names in rank order. Used when there are few of them. */
static int find_blocks(struct fig *f, struct lens_err *e)
{
    int P = f->r->procs;
    const char *const *lab = f->o->labels;
    if (!lab)
        return LENS_OK;
    int n = 1;
    for (int i = 1; i < P; i++)
        /* A block is a run of equal host names in rank order; a missing name starts a block of its own. */
        n += !lab[i] || !lab[i - 1] || strcmp(lab[i], lab[i - 1]) != 0;
    /* One process per host, or too many hosts, and host names say less than rank numbers. */
    if (n > HOST_BLOCKS_MAX || n == P)
        return LENS_OK;
    f->block = lens_malloc((size_t)(n + 1) * sizeof *f->block);
    if (!f->block)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", f->name);
    /* A block starts where the host name changes; block[nblock] = P closes the last one. */
    f->nblock = 0;
    for (int i = 0; i < P; i++)
        if (i == 0 || !lab[i] || !lab[i - 1] || strcmp(lab[i], lab[i - 1]) != 0)
            f->block[f->nblock++] = i;
    f->block[f->nblock] = P;
    f->hosts = 1;
    return LENS_OK;
}

static const char *block_name(const struct fig *f, int b, char *buf, size_t n)
{
    /* A missing host name shows as "?", not as an empty label. */
    const char *s = f->o->labels[f->block[b]];
    lens_figure_ellipsize(s ? s : "?", LABEL_CP, buf, n);
    return buf;
}

/* Smallest step from 1, 2, 5, 10, ... with P / step labels fitting into fit slots. */
static int rank_step(int n, double fit)
{
    static const int m125[3] = {1, 2, 5};
    int step = 1;
    /* The same 1, 2, 5 ladder as the heatmap, so rank labels land on round numbers. */
    for (int mag = 1; mag < (1 << 24); mag *= 10)
        for (int t = 0; t < 3; t++) {
            step = m125[t] * mag;
            if ((n + step - 1) / step <= (fit < 1 ? 1 : fit))
                return step;
        }
    return step;
}

static double cluster_mean(const struct lens_links *r, int u)
{
    /* The legend's one number per cluster: its mean delay over the lengths, as the CSV gives it. */
    double m = 0;
    /* The legend's one number per cluster: its mean delay over the lengths, as the CSV gives it. */
    for (int l = 0; l < r->nlen; l++)
        m += r->clusters[u].mean[l];
    return m / r->nlen;
}

static void legend_widths(struct fig *f, cairo_t *cr)
{
    char buf[64];
    lens_figure_set_font(cr, f->face, f->lab_fs);
    /* Each legend column as wide as its widest entry or heading, so the numbers line up right. */
    f->col_id = lens_figure_text_width(cr, "00");
    f->col_size = lens_figure_text_width(cr, "links");
    f->col_mean = lens_figure_text_width(cr, "mean delay");
    for (int u = 0; u < f->r->k; u++) {
        snprintf(buf, sizeof buf, "%d", u);
        f->col_id = fmax(f->col_id, lens_figure_text_width(cr, buf));
        snprintf(buf, sizeof buf, "%ld", f->r->clusters[u].size);
        f->col_size = fmax(f->col_size, lens_figure_text_width(cr, buf));
        lens_linkmap_format_delay(cluster_mean(f->r, u), buf, sizeof buf);
        f->col_mean = fmax(f->col_mean, lens_figure_text_width(cr, buf));
    }
}

/* One legend column: swatch, id, links, mean delay. */
static double legend_col_w(const struct fig *f)
{
    return f->fs * 1.1 + f->fs * 0.5 + f->col_id + f->fs * 0.9 + f->col_size + f->fs * 0.9 + f->col_mean;
}

/* Title on top, the square map on the left, the legend right of it; row labels are host
 * blocks or ranks. May lay out twice when the column labels must be rotated. */
static int layout(struct fig *f, cairo_t *cr, struct lens_err *e)
{
    int P = f->r->procs, k = f->r->k;
    /* 52 lines of text on the short side, within 7..14 units: the same scale as the curves figure,
     * which sits next to this one in the report. */
    double fs = fmin(f->w, f->h) / 52.0;
    fs = fs < 7 ? 7 : fs > 14 ? 14 : fs;
    /* For print the labels (0.88 fs) keep the print floor and the legend rows grow with them. */
    fs = fmax(fs, lens_figure_font_floor(cr, 0) / 0.88);
    /* Axis labels a little smaller than the titles; legend rows one and a half label heights. */
    f->fs = fs;
    f->lab_fs = fs * 0.88;
    f->row_h = f->lab_fs * 1.45;
    double pad = fs * 1.1, tick = fs * 0.35;
    char buf[96];

    lens_figure_set_font(cr, f->face, f->lab_fs);
    /* The row labels' width sets the left margin: host names or the largest rank number. */
    if (f->hosts) {
        f->lab_w = 0;
        for (int b = 0; b < f->nblock; b++)
            f->lab_w = fmax(f->lab_w, lens_figure_text_width(cr, block_name(f, b, buf, sizeof buf)));
    } else {
        snprintf(buf, sizeof buf, "%d", P - 1);
        f->lab_w = lens_figure_text_width(cr, buf);
    }
    legend_widths(f, cr);
    double top = f->y + pad + fs * 1.3 * 1.25 + fs * 1.5; /* title, subtitle */
    double bottom = pad + fs * 1.5 + tick + fs * 0.3 + (f->rot ? fmin(f->lab_w, 0.25 * f->h) : f->lab_fs * 1.2);
    double left = pad + fs * 1.5 + f->lab_w + tick + fs * 0.3;
    double ah_all = f->y + f->h - bottom - top;
    /* legend rows that fit beside the map: header, entries, gap, diagonal key */
    int fit = (int)floor(ah_all / f->row_h) - 3;
    if (fit < 1)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for its legend", f->name, f->w, f->h);
    /* Many clusters: the legend wraps into columns instead of running off the figure. */
    int cols = (k + fit - 1) / fit;
    f->legend_rows = (k + cols - 1) / cols;
    f->L.legend_cols = cols;
    f->L.legend_w = cols * legend_col_w(f) + (cols - 1) * fs * 1.5;
    f->L.legend_h = (f->legend_rows + 3) * f->row_h;
    double aw = f->w - left - pad - f->L.legend_w - fs * 2, ah = ah_all;
    if (aw < 32 || ah < 32)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for its labels", f->name, f->w, f->h);
    /* A square map (it is P x P) as large as the space allows, in whole units so the raster
     * lands on whole pixels. */
    double side = floor(fmin(aw, ah));
    f->L.map_w = f->L.map_h = side;
    f->L.map_x = floor(f->x + left + (aw - side) / 2);
    f->L.map_y = floor(top + (ah - side) / 2);
    f->L.legend_x = f->L.map_x + side + fs * 2;
    f->L.legend_y = f->L.map_y;
    if (f->hosts && !f->rot) {
        /* host names under the map read upwards when the narrowest block cannot hold one */
        double narrowest = side;
        for (int b = 0; b < f->nblock; b++)
            narrowest = fmin(narrowest, (f->block[b + 1] - f->block[b]) * side / P);
        if (f->lab_w + fs * 0.5 > narrowest) {
            /* Laid out again: rotated labels change the bottom margin and so the map's size. This
             * recursion happens at most once, rot being set now. */
            f->rot = 1;
            return layout(f, cr, e);
        }
    }
    return LENS_OK;
}

/* The map as a raster of at most RASTER_MAX cells a side, each pixel the nearest cell. */
static int draw_raster(const struct fig *f, cairo_t *cr, struct lens_err *e)
{
    const struct lens_links *r = f->r;
    /* One pixel per link up to RASTER_MAX; beyond, a sample: a 2048 x 2048 raster already has more
     * cells than any page shows. */
    int P = r->procs, n = P < RASTER_MAX ? P : RASTER_MAX;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, n, n);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        return lens_err_set(e, LENS_ENOMEM, "%s: cannot make a %dx%d image for the map", f->name, n, n);
    }
    /* Pixels written behind cairo's back: flush first so no pending drawing overwrites them. */
    cairo_surface_flush(img);
    uint32_t *pix = (uint32_t *)(void *)cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img) / 4;
    for (int y = 0; y < n; y++) {
        int i = (int)(((double)y + 0.5) * P / n);
        for (int x = 0; x < n; x++) {
            int j = (int)(((double)x + 0.5) * P / n);
            /* label[] holds each link's cluster (-1 on the diagonal): its colour straight into the pixel. */
            pix[(size_t)y * stride + x] = 0xff000000u | pixel_of(r->label[(size_t)i * P + j]);
        }
    }
    /* Written behind cairo's back: drop any cached copy before it is drawn. */
    cairo_surface_mark_dirty(img);
    /* Scaled up to the map's size with nearest filtering: sharp cells, no blending of clusters. */
    const struct lens_linkmap_layout *L = &f->L;
    cairo_save(cr);
    cairo_translate(cr, L->map_x, L->map_y);
    cairo_scale(cr, L->map_w / n, L->map_h / n);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_rectangle(cr, 0, 0, n, n);
    cairo_fill(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    return LENS_OK;
}

/* Vector map: one rectangle per run of equal cells in a row, reaching a little under the
 * next run and row so that anti-aliasing viewers show no hairlines. */
static void draw_vector(const struct fig *f, cairo_t *cr)
{
    const struct lens_links *r = f->r;
    const struct lens_linkmap_layout *L = &f->L;
    int P = r->procs;
    /* ov: each rectangle reaches a little under its right and lower neighbours (drawn later),
     * so viewers that antialias every path show no hairlines between cells. */
    double c = L->map_w / P, ov = fmin(0.3, 0.25 * c);
    for (int i = 0; i < P; i++) {
        const int *row = r->label + (size_t)i * P;
        for (int j = 0; j < P;) {
            int j1 = j + 1;
            /* A run of equal clusters is one rectangle: clustered maps have long runs, so the SVG stays
             * a fraction of one rectangle per cell. */
            while (j1 < P && row[j1] == row[j])
                j1++;
            double rgb[3];
            /* The run's colour, then one rectangle for the whole run. */
            lens_linkmap_colour(row[j], rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_rectangle(cr, L->map_x + j * c, L->map_y + i * c, (j1 - j) * c + (j1 < P ? ov : 0),
                            c + (i < P - 1 ? ov : 0));
            cairo_fill(cr);
            j = j1;
        }
    }
}

/* Host separators over the map, its frame, then ticks and labels by host block or by rank. */
static void draw_axes(const struct fig *f, cairo_t *cr)
{
    const struct lens_linkmap_layout *L = &f->L;
    const struct lens_linkmap_opts *o = f->o;
    int P = f->r->procs;
    double fs = f->fs, tick = fs * 0.35, c = L->map_w / P;
    char buf[96];
    /* host blocks: thin separators over the map */
    if (f->hosts) {
        /* Host separators translucent: they frame the blocks without hiding the cells under them. */
        cairo_set_source_rgba(cr, 0, 0, 0, 0.6);
        cairo_set_line_width(cr, fmax(0.5, fs * 0.07));
        for (int b = 1; b < f->nblock; b++) {
            double t = f->block[b] * c;
            cairo_move_to(cr, L->map_x + t, L->map_y);
            cairo_rel_line_to(cr, 0, L->map_h);
            cairo_move_to(cr, L->map_x, L->map_y + t);
            cairo_rel_line_to(cr, L->map_w, 0);
        }
        cairo_stroke(cr);
    }
    /* Host bands in the ticks' room (no layout change): one rectangle per block along
     * each axis, in its host's colour from the caller's map, so the band and the NJ tree
     * agree. The ticks are then left out: the band's middle is where they would be. */
    for (int b = 0; f->hosts && o->hostcol && b < f->nblock; b++) {
        double rgb[3], t0 = f->block[b] * c, t1 = f->block[b + 1] * c;
        lens_hostcolour_of(o->hostcol, o->labels[f->block[b]], rgb);
        cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
        cairo_rectangle(cr, L->map_x - tick, L->map_y + t0, tick, t1 - t0);
        cairo_fill(cr);
        cairo_rectangle(cr, L->map_x + t0, L->map_y + L->map_h, t1 - t0, tick);
        cairo_fill(cr);
    }
    /* The frame over the cells, separators and bands. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, fs * 0.08);
    cairo_rectangle(cr, L->map_x, L->map_y, L->map_w, L->map_h);
    cairo_stroke(cr);
    lens_figure_set_font(cr, f->face, f->lab_fs);
    /* Labels a quarter em off the ticks: lx right edge of row labels, ly top of column labels. */
    double ly = L->map_y + L->map_h + tick + fs * 0.25, lx = L->map_x - tick - fs * 0.25;
    if (f->hosts) {
        /* one label per host block, at its middle; columns read upwards when crowded */
        double narrowest = L->map_w;
        for (int b = 0; b < f->nblock; b++)
            narrowest = fmin(narrowest, (f->block[b + 1] - f->block[b]) * c);
        /* Blocks narrower than a line of text get every rstep-th label, so that names never overlap. */
        int rstep = f->lab_fs * 1.2 > narrowest ? (int)ceil(f->lab_fs * 1.2 / narrowest) : 1;
        /* Ticks at every block's middle, labels only every rstep-th. */
        for (int b = 0; !o->hostcol && b < f->nblock; b++) {
            double mid = (f->block[b] + f->block[b + 1]) / 2.0 * c;
            cairo_move_to(cr, L->map_x - tick, L->map_y + mid);
            cairo_rel_line_to(cr, tick, 0);
            cairo_move_to(cr, L->map_x + mid, L->map_y + L->map_h);
            cairo_rel_line_to(cr, 0, tick);
        }
        cairo_stroke(cr);
        for (int b = 0; b < f->nblock; b += rstep) {
            double mid = (f->block[b] + f->block[b + 1]) / 2.0 * c;
            block_name(f, b, buf, sizeof buf);
            lens_figure_text(cr, lx, L->map_y + mid, buf, 1.0, 0.5, 0.0);
            /* Rotated column labels read upwards, their end against the tick. */
            if (f->rot)
                lens_figure_text(cr, L->map_x + mid, ly, buf, 1.0, 0.5, -M_PI / 2);
            else
                lens_figure_text(cr, L->map_x + mid, ly, buf, 0.5, 0.0, 0.0);
        }
    } else {
        /* Rank labels as dense as the widest of them allows. */
        int step = rank_step(P, L->map_w / (fmax(f->lab_w, f->lab_fs) + f->lab_fs * 1.2));
        for (int i = 0; i < P; i += step) {
            cairo_move_to(cr, L->map_x - tick, L->map_y + (i + 0.5) * c);
            cairo_rel_line_to(cr, tick, 0);
            cairo_move_to(cr, L->map_x + (i + 0.5) * c, L->map_y + L->map_h);
            cairo_rel_line_to(cr, 0, tick);
        }
        cairo_stroke(cr);
        for (int i = 0; i < P; i += step) {
            snprintf(buf, sizeof buf, "%d", i);
            lens_figure_text(cr, lx, L->map_y + (i + 0.5) * c, buf, 1.0, 0.5, 0.0);
            lens_figure_text(cr, L->map_x + (i + 0.5) * c, ly, buf, 0.5, 0.0, 0.0);
        }
    }
    /* Default axis titles say what the labels are (host blocks or ranks). */
    lens_figure_set_font(cr, f->face, fs);
    const char *xl = o->xlabel ? o->xlabel : f->hosts ? "column (host)" : "column (rank)";
    const char *yl = o->ylabel ? o->ylabel : f->hosts ? "row (host)" : "row (rank)";
    /* The axis title goes under the column labels, rotated (as long as the longest name, within a
     * quarter of the figure) or upright (one line). */
    double below = f->rot ? fmin(f->lab_w, 0.25 * f->h) : f->lab_fs * 1.2;
    lens_figure_text(cr, L->map_x + L->map_w / 2, ly + below + fs * 0.3, xl, 0.5, 0.0, 0.0);
    lens_figure_text(cr, lx - f->lab_w - fs * 0.3, L->map_y + L->map_h / 2, yl, 0.5, 1.0, -M_PI / 2);
}

static void swatch(cairo_t *cr, int id, double x, double y, double s)
{
    double rgb[3];
    lens_linkmap_colour(id, rgb);
    cairo_rectangle(cr, x, y, s, s);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_fill_preserve(cr);
    /* A grey outline keeps light swatches (and the diagonal's grey) visible on white. */
    cairo_set_source_rgba(cr, 0, 0, 0, 0.45);
    cairo_stroke(cr);
}

/* A table per column: swatch, cluster number, its links and its mean delay, then the key
 * of the diagonal. */
static void draw_legend(const struct fig *f, cairo_t *cr)
{
    const struct lens_linkmap_layout *L = &f->L;
    const struct lens_links *r = f->r;
    double fs = f->fs, rh = f->row_h, sw = fs * 1.1, cw = legend_col_w(f);
    char buf[64];
    cairo_set_line_width(cr, fmax(0.5, fs * 0.06));
    lens_figure_set_font(cr, f->face, f->lab_fs);
    for (int col = 0; col < L->legend_cols; col++) {
        double x0 = L->legend_x + col * (cw + fs * 1.5);
        /* Right edges of the number columns: numbers are right-aligned so their digits line up. */
        double xi = x0 + sw + fs * 0.5 + f->col_id, xs = xi + fs * 0.9 + f->col_size, xm = x0 + cw;
        double y = L->legend_y + rh / 2;
        /* Column headings in grey, above the entries. */
        cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
        lens_figure_text(cr, xi, y, "#", 1.0, 0.5, 0.0);
        lens_figure_text(cr, xs, y, "links", 1.0, 0.5, 0.0);
        lens_figure_text(cr, xm, y, "mean delay", 1.0, 0.5, 0.0);
        for (int t = 0; t < f->legend_rows; t++) {
            /* Column-major: cluster numbers run down a column, then on in the next. */
            int u = col * f->legend_rows + t;
            if (u >= r->k)
                break;
            y = L->legend_y + (t + 1.5) * rh;
            swatch(cr, u, x0, y - sw / 2, sw);
            cairo_set_source_rgb(cr, 0, 0, 0);
            snprintf(buf, sizeof buf, "%d", u);
            lens_figure_text(cr, xi, y, buf, 1.0, 0.5, 0.0);
            snprintf(buf, sizeof buf, "%ld", r->clusters[u].size);
            lens_figure_text(cr, xs, y, buf, 1.0, 0.5, 0.0);
            lens_linkmap_format_delay(cluster_mean(r, u), buf, sizeof buf);
            lens_figure_text(cr, xm, y, buf, 1.0, 0.5, 0.0);
        }
    }
    double y = L->legend_y + (f->legend_rows + 2.5) * rh;
    swatch(cr, -1, L->legend_x, y - sw / 2, sw);
    cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
    lens_figure_text(cr, L->legend_x + sw + fs * 0.5, y, "diagonal (not a link)", 0.0, 0.5, 0.0);
}

/* Sets f up for the canvas c: host blocks, then the layout, which measures text in c's font. */
static int fig_begin(struct fig *f, const struct lens_links *r, const struct lens_linkmap_opts *o,
                     const struct lens_figure_canvas *c, struct lens_err *e)
{
    memset(f, 0, sizeof *f);
    f->r = r;
    f->o = o;
    f->name = c->name;
    f->face = c->face;
    f->w = c->w;
    f->h = c->h;
    int rc = find_blocks(f, e);
    if (rc == LENS_OK)
        rc = layout(f, c->cr, e);
    return rc;
}

static void fig_end(struct fig *f)
{
    lens_free(f->block);
    f->block = NULL;
}

/* White box, the map (vector cells or raster), axes, legend, then the two title lines. */
static int draw_fig(struct fig *f, cairo_t *cr, int vector_target, struct lens_err *e)
{
    const struct lens_links *r = f->r;
    cairo_rectangle(cr, f->x, f->y, f->w, f->h);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_fill(cr);
    /* one rectangle per cell only where that stays small; otherwise one raster image */
    int vector = vector_target && r->procs <= VECTOR_MAX;
    int rc = LENS_OK;
    if (vector)
        draw_vector(f, cr);
    else
        rc = draw_raster(f, cr, e);
    if (rc)
        return rc;
    draw_axes(f, cr);
    draw_legend(f, cr);
    char buf[256];
    long links = (long)r->procs * (r->procs - 1);
    if (f->o->title)
        snprintf(buf, sizeof buf, "%s", f->o->title);
    else
        snprintf(buf, sizeof buf, "Links by cluster: %d cluster%s of %ld links", r->k, r->k == 1 ? "" : "s", links);
    double fs = f->fs, cx = f->x + f->w / 2, ty = f->y + fs * 1.1;
    cairo_set_source_rgb(cr, 0, 0, 0);
    lens_figure_set_font(cr, f->face, fs * 1.3);
    lens_figure_text(cr, cx, ty, buf, 0.5, 0.0, 0.0);
    snprintf(buf, sizeof buf, "%d processes, %d lengths; cell (row, column) coloured by the cluster of its link; "
             "clusters numbered by mean delay, fastest first", r->procs, r->nlen);
    cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
    lens_figure_set_font(cr, f->face, f->lab_fs);
    lens_figure_text(cr, cx, ty + fs * 1.3 * 1.3, buf, 0.5, 0.0, 0.0);
    return lens_figure_status(cr, f->name, e);
}

/* The figure's data for the protocol of figure.h. */
struct job {
    const struct lens_links *r;
    const struct lens_linkmap_opts *o; /* never NULL */
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

/* The canvas is the box; its target decides between vector cells and a raster. */
static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct job *j = data;
    struct fig f;
    int rc = fig_begin(&f, j->r, j->o, c, e);
    if (rc == LENS_OK)
        rc = draw_fig(&f, c->cr, c->vector, e);
    fig_end(&f);
    return rc;
}

static const struct lens_figure_kind linkmap_kind = {"link map", 0, check_file, size, paint};
static const struct lens_figure_kind linkmap_box_kind = {"link map", 0, check_box, size, paint};

/* The figure of r with options o (NULL: the defaults, kept in *def). */
static struct lens_figure figure(struct job *j, const struct lens_links *r, const struct lens_linkmap_opts *o,
                                 struct lens_linkmap_opts *def, const struct lens_figure_kind *k)
{
    if (!o) {
        lens_linkmap_opts_init(def);
        o = def;
    }
    j->r = r;
    j->o = o;
    return (struct lens_figure){.kind = k, .data = j, .font_path = o->font_path};
}

int lens_linkmap_draw(cairo_t *cr, double x, double y, double w, double h, const struct lens_links *r,
                      const struct lens_linkmap_opts *o, struct lens_err *e)
{
    struct job j;
    struct lens_linkmap_opts def;
    struct lens_figure fig = figure(&j, r, o, &def, &linkmap_box_kind);
    return lens_figure_draw(&fig, cr, x, y, w, h, e);
}

int lens_linkmap_write(const char *path, const struct lens_links *r, const struct lens_linkmap_opts *o,
                       struct lens_err *e)
{
    struct job j;
    struct lens_linkmap_opts def;
    struct lens_figure fig = figure(&j, r, o, &def, &linkmap_kind);
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_linkmap_png_mem(const struct lens_links *r, const struct lens_linkmap_opts *o, unsigned char **buf,
                         size_t *len, struct lens_err *e)
{
    struct job j;
    struct lens_linkmap_opts def;
    struct lens_figure fig = figure(&j, r, o, &def, &linkmap_kind);
    return lens_figure_render(&fig, NULL, buf, len, e);
}

/* lens_figure_measure callback: the layout fig_begin computes, into out. */
static int measure(const void *data, const struct lens_figure_canvas *c, void *out, struct lens_err *e)
{
    const struct job *j = data;
    struct fig f;
    int rc = fig_begin(&f, j->r, j->o, c, e);
    if (rc == LENS_OK)
        *(struct lens_linkmap_layout *)out = f.L;
    fig_end(&f);
    return rc;
}

/* The tests check each cell's pixel colour at the places this reports. */
int lens_linkmap_layout(const struct lens_links *r, const struct lens_linkmap_opts *o,
                        struct lens_linkmap_layout *l, struct lens_err *e)
{
    struct job j;
    struct lens_linkmap_opts def;
    struct lens_figure fig = figure(&j, r, o, &def, &linkmap_kind);
    memset(l, 0, sizeof *l);
    fig.name = "link map";
    return lens_figure_measure(&fig, measure, l, e);
}
