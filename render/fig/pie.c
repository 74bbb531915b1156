/* Pie charts with a table (render/fig/pie.h): wedges clockwise from twelve o'clock in slice
 * order, labels placed per side of the pie and pushed apart so none overlap, and a table
 * whose colour key ties each row to its wedges. */
#include "pie.h"

#include "figure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Tableau 10 without its grey, which is kept for "other". */
static const double PALETTE[9][3] = {
    {0.306, 0.475, 0.655}, {0.949, 0.557, 0.169}, {0.882, 0.341, 0.349},
    {0.463, 0.718, 0.698}, {0.349, 0.631, 0.310}, {0.929, 0.788, 0.282},
    {0.690, 0.478, 0.631}, {1.000, 0.616, 0.655}, {0.612, 0.459, 0.373}};
/* "other" is grey so that it never reads as one more category. */
static const double OTHER[3] = {0.78, 0.78, 0.78};

#define LABEL_MAX 160 /* bytes of one slice label with its percentage */

/* Slices 0-8 take the palette, 9-17 the same colours lightened halfway to white, 18-26
 * darkened by a third; then the cycle repeats. */
static void set_colour(cairo_t *cr, int slice)
{
    if (slice < 0) {
        cairo_set_source_rgb(cr, OTHER[0], OTHER[1], OTHER[2]);
        return;
    }
    /* Nine base colours, each in three shades as the slice number grows. */
    const double *c = PALETTE[slice % 9];
    int variant = (slice / 9) % 3;
    double rgb[3];
    for (int k = 0; k < 3; k++)
        /* Lightened, then darkened variants: 27 distinct colours before any repeats, enough for the
         * message-size bins the profiles use. */
        rgb[k] = variant == 1 ? c[k] + (1 - c[k]) * 0.5 : variant == 2 ? c[k] * (2.0 / 3) : c[k];
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
}

/* Base font size for a figure of width w. */
static double font_size(double w)
{
    /* 72 em across the figure, within 7..15 units: the same proportions at 420 and at 1260 wide. */
    double fs = w / 72.0;
    return fs < 7.0 ? 7.0 : fs > 15.0 ? 15.0 : fs;
}

static int table_rows(const struct lens_pie_chart *c)
{
    /* Heading, one row per slice, and the total row when there is one. */
    return c->ncols > 0 ? c->nslices + 1 + (c->total_cells != NULL) : 0;
}

/* The writers' height: pies, title and table stacked; lens_pie_draw fits any box, this only
 * says what suits. */
double lens_pie_height(const struct lens_pie_chart *c, double w)
{
    double fs = font_size(w);
    int np = c->npies < 1 ? 1 : c->npies;
    /* Pies about 0.62 of a column high, at most 45% of the width (one wide pie), at least 14 em
     * (room for labels above and below). */
    double pies = w / np * 0.62;
    if (pies > w * 0.45)
        pies = w * 0.45;
    if (pies < 14 * fs)
        pies = 14 * fs;
    double title = c->title ? 2.2 * fs : 0.5 * fs;
    double table = table_rows(c) ? table_rows(c) * 1.45 * fs + 1.5 * fs : 0;
    /* Whole units: the PNG has whole pixels and the SVG the same height. */
    return ceil(title + pies + table + fs);
}

/* Counts, arrays and values checked before drawing: a chart comes from the caller's data. */
static int check_chart(const struct lens_pie_chart *c, const char *name, struct lens_err *e)
{
    if (c->npies < 1 || c->npies > LENS_PIE_MAX || c->nslices < 0 || c->ncols < 0)
        return lens_err_set(e, LENS_EINVAL, "%s: pie chart needs 1 to %d pies (got %d), and "
                            "non-negative slice and column counts", name, LENS_PIE_MAX, c->npies);
    if (c->nslices > 0 && (!c->labels || !c->values))
        return lens_err_set(e, LENS_EINVAL, "%s: pie chart without labels or values", name);
    /* A table needs its headings and cells whenever there are rows to fill. */
    if (c->ncols > 0 && c->nslices > 0 && (!c->col_heads || !c->cells))
        return lens_err_set(e, LENS_EINVAL, "%s: pie chart table without headings or cells",
                            name);
    for (int k = 0; k < c->npies * c->nslices; k++)
        /* NaN fails the >= test too: a pie share has to be a real, non-negative amount. */
        if (!(c->values[k] >= 0.0) || isinf(c->values[k]))
            return lens_err_set(e, LENS_EINVAL, "%s: pie %d, slice %d: value %g is not a "
                                "finite non-negative number", name, k / c->nslices,
                                k % c->nslices, c->values[k]);
    return LENS_OK;
}

struct wedge {
    int slice;          /* slice index, -1 for "other" */
    double share;       /* of the pie's total */
    double a0, a1;      /* radians, clockwise from the x axis (cairo's y points down) */
    double want, y;     /* label centre: wanted and placed */
    int labelled;       /* the label is drawn */
    char text[LABEL_MAX + 24]; /* name (cut to LABEL_MAX), two spaces, pct */
    char pct[16];       /* "12.3%", kept when the name is cut */
};

/* Labels top to bottom by where they want to be. */
static int by_want(const void *a, const void *b)
{
    const struct wedge *x = *(const struct wedge *const *)a, *y = *(const struct wedge *const *)b;
    return (x->want > y->want) - (x->want < y->want);
}

/* Largest wedge first: they keep their labels when a side is full. */
static int by_share_desc(const void *a, const void *b)
{
    const struct wedge *x = *(const struct wedge *const *)a, *y = *(const struct wedge *const *)b;
    if (x->share != y->share)
        return (x->share < y->share) - (x->share > y->share);
    /* Ties by slice number: qsort is not stable, and the labels kept must not vary between runs. */
    return (x->slice > y->slice) - (x->slice < y->slice);
}

/* Places the labels of one side between top and bottom, at least sp apart: the largest
 * wedges keep a label when not all fit; then a forward and a backward sweep. */
static void place_side(struct wedge **s, int n, double top, double bottom, double sp)
{
    /* How many labels fit on this side at spacing sp; the smallest wedges lose theirs first. */
    int cap = bottom > top ? (int)floor((bottom - top) / sp) + 1 : 1;
    /* Too many labels: only the largest wedges keep theirs (by_share_desc), in a stable order. */
    if (n > cap) {
        qsort(s, (size_t)n, sizeof *s, by_share_desc);
        for (int i = cap; i < n; i++)
            s[i]->labelled = 0;
        n = cap;
    }
    qsort(s, (size_t)n, sizeof *s, by_want);
    for (int i = 0; i < n; i++) {
        double lo = i ? s[i - 1]->y + sp : top;
        s[i]->y = s[i]->want > lo ? s[i]->want : lo;
    }
    /* The last label cannot go below the side's bottom; the backward sweep makes room above it. */
    if (n > 0 && s[n - 1]->y > bottom)
        s[n - 1]->y = bottom;
    /* Then upwards from the bottom: labels pushed past it move up, keeping the spacing. */
    for (int i = n - 2; i >= 0; i--)
        if (s[i]->y > s[i + 1]->y - sp)
            s[i]->y = s[i + 1]->y - sp;
}

/* "name  pct" into text, the name cut (with an ellipsis) until the whole is at most maxw
 * wide in the current font; maxw <= 0 for no limit. */
static void label_text(cairo_t *cr, const char *name, const char *pct, char *text, size_t n,
                       double maxw)
{
    char cut[LABEL_MAX];
    int cp = 0;
    for (const char *p = name; *p; p++)
        cp += ((unsigned char)*p & 0xc0) != 0x80;
    snprintf(text, n, "%s  %s", name, pct);
    /* One code point shorter at a time: labels are short, and the percentage is always kept. */
    while (maxw > 0 && cp > 1 && lens_figure_text_width(cr, text) > maxw) {
        lens_figure_ellipsize(name, --cp, cut, sizeof cut);
        snprintf(text, n, "%s  %s", cut, pct);
    }
}

static const char *slice_name(const struct lens_pie_chart *c, int slice)
{
    /* "other" is the merged small slices, never a slice of the caller's. */
    if (slice < 0)
        return "other";
    /* The short name beside the pie when the caller gave one; the table keeps the full name. */
    return c->short_labels ? c->short_labels[slice] : c->labels[slice];
}

/* One pie with its title and labels in the column (px, py, pw, ph). */
static int draw_pie(cairo_t *cr, const struct lens_pie_chart *c, int p, double px, double py,
                    double pw, double ph, double fs, cairo_font_face_t *face, const char *name,
                    struct lens_err *e)
{
    const double *v = c->values + (size_t)p * (size_t)c->nslices;
    double title_h = 1.8 * fs;
    /* Each pie's own title above it, slightly larger than the labels. */
    lens_figure_set_font(cr, face, fs * 1.05);
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (c->pie_titles && c->pie_titles[p])
        lens_figure_text(cr, px + pw / 2, py + 0.3 * fs, c->pie_titles[p], 0.5, 0.0, 0.0);
    /* The rest of the column below the title is the pie's area; its centre is the pie's. */
    double top = py + title_h, area = ph - title_h;
    double cx = px + pw / 2, cy = top + area / 2;
    lens_figure_set_font(cr, face, fs * 0.9);

    double total = 0.0;
    int nsmall = 0;
    /* The pie's total first: shares are of it. */
    for (int i = 0; i < c->nslices; i++)
        total += v[i];
    for (int i = 0; i < c->nslices; i++)
        /* Small slices are merged into "other" only when there are two or more of them: a single
         * small slice keeps its own name, since "other" would say less. */
        nsmall += v[i] > 0 && c->group_below > 0 && v[i] / total < c->group_below;
    if (!(total > 0)) { /* nothing to show: an empty disc */
        double r = fmin(area / 2 - fs, pw / 2 - fs);
        cairo_set_source_rgb(cr, 0.5, 0.5, 0.5);
        cairo_set_line_width(cr, 1.0);
        cairo_arc(cr, cx, cy, r > fs ? r : fs, 0, 2 * M_PI);
        cairo_stroke(cr);
        lens_figure_text(cr, cx, cy, "no data", 0.5, 0.5, 0);
        return LENS_OK;
    }
    /* One wedge per slice at most, plus "other". */
    struct wedge *w = lens_calloc((size_t)c->nslices + 1, sizeof *w);
    struct wedge **side = lens_calloc((size_t)c->nslices + 1, sizeof *side);
    if (!w || !side) {
        lens_free(w);
        lens_free(side);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %d pie slices", name,
                            c->nslices);
    }
    /* Wedges in slice order; the merged small ones last as "other". */
    int nw = 0;
    double other = 0.0;
    for (int i = 0; i < c->nslices; i++) {
        /* Empty slices get no wedge (and no label): they stay in the table with their 0. */
        if (!(v[i] > 0))
            continue;
        if (nsmall >= 2 && v[i] / total < c->group_below) {
            other += v[i];
            continue;
        }
        w[nw].slice = i;
        w[nw++].share = v[i] / total;
    }
    if (other > 0) {
        w[nw].slice = -1;
        w[nw++].share = other / total;
    }
    /* Labels as full text first; their widest decides the radius. */
    double maxw = 0.0;
    for (int k = 0; k < nw; k++) {
        snprintf(w[k].pct, sizeof w[k].pct, "%.1f%%", 100.0 * w[k].share);
        label_text(cr, slice_name(c, w[k].slice), w[k].pct, w[k].text, sizeof w[k].text, 0);
        double tw = lens_figure_text_width(cr, w[k].text);
        maxw = tw > maxw ? tw : maxw;
    }
    /* radius: the labels beside the pie first, but the pie at least 0.26 of the column */
    /* The radius that leaves room for the widest label on either side. */
    double r = fmin(area / 2 - 1.2 * fs, pw / 2 - maxw - 2.5 * fs);
    double rmin = fmin(0.26 * fmin(pw, area), area / 2 - 1.2 * fs);
    if (r < rmin) { /* labels too wide: a smaller font (down to 0.7) before cutting names */
        double scale = fmax(0.7, (pw / 2 - rmin - 2.2 * fs) / maxw);
        lens_figure_set_font(cr, face, fs * 0.9 * scale);
        r = fmax(rmin, fmin(area / 2 - 1.2 * fs, pw / 2 - maxw * scale - 2.2 * fs));
    }
    double avail = pw / 2 - r - 2.2 * fs;
    /* From twelve o'clock, clockwise (cairo's y points down, so angles grow clockwise). */
    double a = -M_PI / 2;
    for (int k = 0; k < nw; k++) {
        w[k].a0 = a;
        a += 2 * M_PI * w[k].share;
        /* The last wedge closes the circle exactly, whatever the rounding of the shares. */
        w[k].a1 = k == nw - 1 ? 1.5 * M_PI : a;
        double mid = (w[k].a0 + w[k].a1) / 2;
        /* A label wants to sit level with its wedge's middle, just outside the pie. */
        w[k].want = cy + (r + 0.9 * fs) * sin(mid);
        w[k].labelled = 1;
        /* Labels wider than the room beside the pie are cut, keeping the percentage. */
        if (lens_figure_text_width(cr, w[k].text) > avail)
            label_text(cr, slice_name(c, w[k].slice), w[k].pct, w[k].text, sizeof w[k].text,
                       avail);
    }
    for (int k = 0; k < nw; k++) {
        set_colour(cr, w[k].slice);
        /* A single wedge is a full circle: no spoke from the centre. */
        if (nw == 1) {
            cairo_arc(cr, cx, cy, r, 0, 2 * M_PI);
        } else {
            cairo_move_to(cr, cx, cy);
            cairo_arc(cr, cx, cy, r, w[k].a0, w[k].a1);
            cairo_close_path(cr);
        }
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        /* White separators between wedges; a lone full disc gets none. */
        cairo_set_line_width(cr, nw > 1 ? 1.0 : 0.0);
        cairo_stroke(cr);
    }
    /* labels: right side (cos >= 0) and left side placed separately */
    double sp = 1.2 * fs, ytop = top + 0.5 * fs, ybot = top + area - 0.5 * fs;
    for (int right = 0; right <= 1; right++) {
        int n = 0;
        for (int k = 0; k < nw; k++) {
            double mid = (w[k].a0 + w[k].a1) / 2;
            /* Right side: wedges whose middle points right (cos >= 0, with slack for exactly 12 and 6
             * o'clock), left the others; each side places its labels independently. */
            if ((cos(mid) >= -1e-12) == right)
                side[n++] = &w[k];
        }
        place_side(side, n, ytop, ybot, sp);
        double sgn = right ? 1.0 : -1.0, ex = cx + sgn * (r + 1.4 * fs);
        for (int i = 0; i < n; i++) {
            struct wedge *x = side[i];
            if (!x->labelled)
                continue;
            double mid = (x->a0 + x->a1) / 2;
            cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
            cairo_set_line_width(cr, 0.8);
            /* Leader line: out from the wedge, then across to the label's placed height. */
            cairo_move_to(cr, cx + r * cos(mid), cy + r * sin(mid));
            cairo_line_to(cr, cx + (r + 0.5 * fs) * cos(mid), cy + (r + 0.5 * fs) * sin(mid));
            cairo_line_to(cr, ex, x->y);
            cairo_line_to(cr, ex + sgn * 0.4 * fs, x->y);
            cairo_stroke(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            lens_figure_text(cr, ex + sgn * 0.6 * fs, x->y, x->text, right ? 0.0 : 1.0, 0.5, 0);
        }
    }
    lens_free(side);
    lens_free(w);
    return LENS_OK;
}

/* The table: a colour key and name per slice, then the columns; total row last. */
static int draw_table(cairo_t *cr, const struct lens_pie_chart *c, double x, double y, double w,
                      double fs, cairo_font_face_t *face, const char *name, struct lens_err *e)
{
    int nc = c->ncols + 1;
    double *cw = lens_calloc((size_t)nc, sizeof *cw);
    if (!cw)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the table", name);
    for (int pass = 0; pass < 2; pass++) { /* second pass: shrunk to fit w */
        lens_figure_set_font(cr, face, fs);
        memset(cw, 0, (size_t)nc * sizeof *cw);
        cw[0] = fmax(lens_figure_text_width(cr, "total"),
                     lens_figure_text_width(cr, c->name_head ? c->name_head : ""));
        for (int i = 0; i < c->nslices; i++)
            cw[0] = fmax(cw[0], lens_figure_text_width(cr, c->labels[i]));
        for (int j = 0; j < c->ncols; j++) {
            cw[j + 1] = lens_figure_text_width(cr, c->col_heads[j]);
            for (int i = 0; i < c->nslices; i++)
                cw[j + 1] = fmax(cw[j + 1], lens_figure_text_width(cr, c->cells[i * c->ncols + j]));
            if (c->total_cells)
                cw[j + 1] = fmax(cw[j + 1], lens_figure_text_width(cr, c->total_cells[j]));
        }
        double tw = 1.6 * fs;
        for (int j = 0; j < nc; j++)
            tw += cw[j] + 1.5 * fs;
        /* Too wide: one more pass at the font size that makes the widest row fit. */
        if (pass == 0 && tw > w) {
            fs *= w / tw;
            continue;
        }
        /* The table centred under the pies. */
        double rh = 1.45 * fs, x0 = x + (w - tw) / 2, yy = y;
        cairo_set_source_rgb(cr, 0, 0, 0);
        double cx = x0 + 1.6 * fs;
        for (int j = 0; j < nc; j++) {
            cx += cw[j] + (j ? 1.5 * fs : 0);
            if (j)
                lens_figure_text(cr, cx, yy + rh / 2, c->col_heads[j - 1], 1.0, 0.5, 0);
            else
                lens_figure_text(cr, x0 + 1.6 * fs, yy + rh / 2, c->name_head ? c->name_head : "",
                                 0.0, 0.5, 0);
        }
        cairo_set_line_width(cr, 0.8);
        cairo_move_to(cr, x0, yy + rh);
        cairo_line_to(cr, x0 + tw, yy + rh);
        cairo_stroke(cr);
        int rows = c->nslices + (c->total_cells != NULL);
        for (int i = 0; i < rows; i++) {
            int is_total = i == c->nslices;
            yy += rh;
            if (is_total) {
                cairo_set_source_rgb(cr, 0, 0, 0);
                cairo_move_to(cr, x0, yy);
                cairo_line_to(cr, x0 + tw, yy);
                cairo_stroke(cr);
            } else {
                set_colour(cr, i);
                cairo_rectangle(cr, x0, yy + rh * 0.2, fs, rh * 0.6);
                cairo_fill(cr);
            }
            cairo_set_source_rgb(cr, 0, 0, 0);
            lens_figure_text(cr, x0 + 1.6 * fs, yy + rh / 2, is_total ? "total" : c->labels[i],
                             0.0, 0.5, 0);
            cx = x0 + 1.6 * fs + cw[0];
            for (int j = 0; j < c->ncols; j++) {
                cx += 1.5 * fs + cw[j + 1];
                const char *s = is_total ? c->total_cells[j] : c->cells[i * c->ncols + j];
                lens_figure_text(cr, cx, yy + rh / 2, s, 1.0, 0.5, 0);
            }
        }
        break;
    }
    lens_free(cw);
    return LENS_OK;
}

/* Title, the pies side by side, then the table, in the box; a long table gets a smaller font
 * before it may take more than 60% of the height. */
int lens_pie_draw(cairo_t *cr, const struct lens_pie_chart *c, double x, double y, double w,
                  double h, cairo_font_face_t *face, const char *name, struct lens_err *e)
{
    int rc = check_chart(c, name, e);
    if (rc)
        return rc;
    cairo_save(cr);
    double fs = font_size(w);
    double title_h = c->title ? 2.2 * fs : 0.5 * fs;
    double tfs = fs;
    int rows = table_rows(c);
    double table_h = rows ? rows * 1.45 * tfs + 1.5 * fs : 0;
    if (table_h > 0.6 * h) { /* a long table gets a smaller font, the pies keep 40% */
        tfs *= 0.6 * h / table_h;
        table_h = 0.6 * h;
    }
    if (c->title) {
        cairo_set_source_rgb(cr, 0, 0, 0);
        lens_figure_set_font(cr, face, fs * 1.25);
        lens_figure_text(cr, x + w / 2, y + 0.5 * fs, c->title, 0.5, 0.0, 0.0);
    }
    double pies_h = h - title_h - table_h - 0.5 * fs;
    double pw = w / c->npies;
    for (int p = 0; p < c->npies && rc == LENS_OK; p++)
        rc = draw_pie(cr, c, p, x + p * pw, y + title_h, pw, pies_h, fs, face, name, e);
    if (rows && rc == LENS_OK)
        rc = draw_table(cr, c, x + fs, y + title_h + pies_h + fs, w - 2 * fs, tfs, face, name, e);
    cairo_restore(cr);
    return rc ? rc : lens_figure_status(cr, name, e);
}

/* The default width: LENS_PIE_WIDTH, wider for three pies. */
static int default_width(const struct lens_pie_chart *c)
{
    return c->npies * 420 > LENS_PIE_WIDTH ? c->npies * 420 : LENS_PIE_WIDTH;
}

/* The figure's data for the protocol of figure.h. */
struct job {
    const struct lens_pie_chart *c;
    int width; /* 0: default_width */
};

static int check(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    return check_chart(j->c, name, e);
}

/* The height follows the width (lens_pie_height) and need not be whole: an SVG keeps it,
 * a PNG is cut to whole pixels. */
static void size(const void *data, double *w, double *h)
{
    const struct job *j = data;
    *w = j->width > 0 ? j->width : default_width(j->c);
    *h = lens_pie_height(j->c, *w);
}

/* lens_pie_draw leaves the background alone (it also draws into other figures): a file
 * gets white under it. */
static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct job *j = data;
    cairo_set_source_rgb(c->cr, 1, 1, 1);
    cairo_paint(c->cr);
    return lens_pie_draw(c->cr, j->c, 0, 0, c->w, c->h, c->face, c->name, e);
}

static const struct lens_figure_kind pie_kind = {"pie chart", 0, check, size, paint};

int lens_pie_write(const struct lens_pie_chart *c, const char *path, int width,
                   const char *font_path, struct lens_err *e)
{
    struct job j = {c, width};
    struct lens_figure fig = {.kind = &pie_kind, .data = &j, .font_path = font_path};
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_pie_png_mem(const struct lens_pie_chart *c, int width, const char *font_path,
                     unsigned char **buf, size_t *len, struct lens_err *e)
{
    struct job j = {c, width};
    struct lens_figure fig = {.kind = &pie_kind, .data = &j, .font_path = font_path};
    return lens_figure_render(&fig, NULL, buf, len, e);
}

/* ---- a message-size profile as a chart ---- */

#define CELL 48 /* bytes per string: a 20-digit count or a bin label fits */

static const char *const MSG_TITLES[3] = {"share of messages", "share of volume",
                                          "share of send time (model)"};
static const char *const MSG_HEADS[5] = {"messages", "% messages", "bytes", "% volume",
                                         "% time"};

/* 0, 57, 4K, 64K, 1M, 1G: a whole number of KiB/MiB/GiB gets the unit, else bytes. */
static void compact(uint64_t v, char *buf, size_t n)
{
    static const char unit[] = "KMGTPE";
    int u = -1;
    /* Only exact multiples get a unit: a bin bound of 1000 must not print as "1K". */
    while (v >= 1024 && v % 1024 == 0 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, n, "%llu", (unsigned long long)v);
    else
        snprintf(buf, n, "%llu%c", (unsigned long long)v, unit[u]);
}

/* The bin's name beside the pie: "0 B", "1-63", "4K-64K" (a range ending just below a
 * whole KiB is written up to it), ">=1M". The table gives the exact bounds. */
static void short_label(const struct lens_msgsize_bin *b, char *buf, size_t n)
{
    char lo[24], hi[24];
    compact(b->lo, lo, sizeof lo);
    if (b->hi == LENS_MSGSIZE_OPEN) {
        snprintf(buf, n, ">=%s", lo);
        return;
    }
    if (b->hi == b->lo) {
        snprintf(buf, n, "%s B", lo);
        return;
    }
    /* Bins are inclusive, [4096, 65535]: written up to the next whole unit, "4K-64K", as people
     * name such ranges. */
    uint64_t end = (b->hi + 1) % 1024 == 0 ? b->hi + 1 : b->hi;
    compact(end, hi, sizeof hi);
    snprintf(buf, n, "%s-%s", lo, hi);
}

/* String k of the table: ptrs[k] points at it. */
static char *slot(struct lens_pie_msgsize *p, size_t k)
{
    /* Fixed cells of CELL bytes in one block: one allocation for every string of the chart. */
    p->ptrs[k] = p->text + k * CELL;
    return p->text + k * CELL;
}

/* A binned message-size profile as a chart: every string it points to lives in p, so the
 * chart stays valid as long as p does. */
int lens_pie_msgsize_init(struct lens_pie_msgsize *p, const struct lens_msgsize *m,
                          const char *title, struct lens_err *e)
{
    memset(p, 0, sizeof *p);
    if (!m->bins && m->nsizes)
        return lens_err_set(e, LENS_EINVAL, "message-size chart: the profile is not binned");
    /* A third pie (and column) of modelled send time only when the profile was given a p2p
     * model; without one the time is NaN. */
    int nb = (int)m->nbins, model = !isnan(m->total_model_s);
    int np = model ? 3 : 2, nc = model ? 5 : 4;
    /* Per bin: its label, its short label and nc cells; then nc totals. */
    size_t nstr = (size_t)nb * (size_t)(nc + 2) + (size_t)nc;
    p->text = lens_calloc(nstr, CELL);
    p->ptrs = lens_calloc(nstr, sizeof *p->ptrs);
    /* +1: a profile with no bins still gets a valid (empty) values array. */
    p->values = lens_calloc((size_t)np * (size_t)nb + 1, sizeof *p->values);
    if (!p->text || !p->ptrs || !p->values) {
        lens_pie_msgsize_release(p);
        return lens_err_set(e, LENS_ENOMEM, "message-size chart: out of memory for %d bins", nb);
    }
    size_t next = 0;
    for (int i = 0; i < nb; i++) {
        const struct lens_msgsize_bin *b = &m->bins[i];
        lens_msgsize_bin_label(b, slot(p, next++), CELL);
        /* Values pie-major: messages, then bytes, then modelled time, as lens_pie_chart wants them. */
        p->values[i] = (double)b->count;
        p->values[nb + i] = (double)b->bytes;
        if (model)
            p->values[2 * nb + i] = b->model_s;
    }
    size_t shorts = next;
    for (int i = 0; i < nb; i++)
        short_label(&m->bins[i], slot(p, next++), CELL);
    size_t cells = next;
    for (int i = 0; i < nb; i++) {
        const struct lens_msgsize_bin *b = &m->bins[i];
        snprintf(slot(p, next++), CELL, "%llu", (unsigned long long)b->count);
        snprintf(slot(p, next++), CELL, "%.1f%%", 100.0 * b->share_messages);
        snprintf(slot(p, next++), CELL, "%llu", (unsigned long long)b->bytes);
        snprintf(slot(p, next++), CELL, "%.1f%%", 100.0 * b->share_volume);
        if (model)
            snprintf(slot(p, next++), CELL, "%.1f%%", 100.0 * b->share_time);
    }
    size_t totals = next;
    snprintf(slot(p, next++), CELL, "%llu", (unsigned long long)m->total_messages);
    /* The totals are 100% by definition, 0% when there is nothing at all. */
    snprintf(slot(p, next++), CELL, "%s", m->total_messages ? "100.0%" : "0.0%");
    snprintf(slot(p, next++), CELL, "%llu", (unsigned long long)m->total_bytes);
    snprintf(slot(p, next++), CELL, "%s", m->total_bytes ? "100.0%" : "0.0%");
    if (model)
        snprintf(slot(p, next++), CELL, "%s", m->total_model_s > 0 ? "100.0%" : "0.0%");
    struct lens_pie_chart *c = &p->chart;
    c->title = title;
    c->nslices = nb;
    c->labels = p->ptrs;
    c->short_labels = p->ptrs + shorts;
    c->npies = np;
    c->pie_titles = MSG_TITLES;
    c->values = p->values;
    c->ncols = nc;
    c->name_head = "message size";
    c->col_heads = MSG_HEADS;
    c->cells = p->ptrs + cells;
    c->total_cells = p->ptrs + totals;
    /* Bins under 1% of the pie merge into "other": their labels would only collide. */
    c->group_below = 0.01;
    return LENS_OK;
}

void lens_pie_msgsize_release(struct lens_pie_msgsize *p)
{
    lens_free(p->text);
    lens_free(p->ptrs);
    lens_free(p->values);
    memset(p, 0, sizeof *p);
}
