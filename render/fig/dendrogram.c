/* Dendrogram figure and cuts of a linkage, and the heatmap reordered by the tree. The layout
 * follows scipy's dendrogram: leaf i of the leaf order sits at x = i + 1/2 (in leaf units), a
 * merge sits at the mean x of its two children and at its height, and is drawn as a U. */
#include "dendrogram.h"

#include "figure.h"
#include "treefig.h"
#include "hostcolour.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_TICKS 12
#define LABEL_CP 24     /* leaf labels longer than this many characters are cut with "…" */
#define LEGEND_MAX 24   /* clusters listed with a colour swatch, at most */

void lens_dendrogram_opts_init(struct lens_dendrogram_opts *o)
{
    memset(o, 0, sizeof *o);
    o->unit = "\xc2\xb5s"; /* µs */
    o->scale = 1e6;
    o->width = 1000;
    o->height = 640;
}

/* Every cluster named in z must exist already and be joined once: the rows of a linkage. */
static int check_linkage(const struct lens_hclust_step *z, int n, const char *name,
                         struct lens_err *e)
{
    /* 2^24 leaves bounds the 2n - 1 node arrays in int; one leaf has no linkage to draw. */
    if (n < 2 || n > (1 << 24))
        return lens_err_set(e, LENS_EINVAL, "%s: a dendrogram needs 2..%d leaves (got %d)", name, 1 << 24, n);
    if (!z)
        return lens_err_set(e, LENS_EINVAL, "%s: no linkage given", name);
    /* One flag per node (n leaves, then merge s as node n + s): each may be joined only once. */
    unsigned char *used = lens_calloc((size_t)(2 * n - 1), 1);
    if (!used)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %d leaves", name, n);
    int rc = LENS_OK;
    for (int s = 0; s < n - 1 && rc == LENS_OK; s++) {
        int l = z[s].left, r = z[s].right;
        /* Row s may only join nodes that exist before it (leaves and merges 0..s-1): a linkage read
         * from a file that breaks this would make the drawing loop on or index past its arrays. */
        if (l < 0 || r < 0 || l >= n + s || r >= n + s || l == r || used[l] || used[r])
            rc = lens_err_set(e, LENS_EINVAL, "%s: linkage row %d joins %d and %d, which are not two "
                              "clusters available at that step", name, s, l, r);
        /* A NaN or infinite height has no place on the axis. */
        else if (!isfinite(z[s].height))
            rc = lens_err_set(e, LENS_EINVAL, "%s: linkage row %d has height %g", name, s, z[s].height);
        else
            used[l] = used[r] = 1;
    }
    lens_free(used);
    return rc;
}

/* Where the dashed cut line is drawn for k clusters: between the merges kept and cut, so that
 * the line crosses exactly k links (contract in dendrogram.h). */
double lens_dendrogram_cut_level(const struct lens_hclust_step *z, int n, int k)
{
    if (k <= 1)
        return z[n - 2].height;
    int kept = n - k; /* merges 0..kept-1 stay inside clusters */
    double below = 0.0;
    for (int s = 0; s < kept; s++)
        below = fmax(below, z[s].height);
    /* Halfway between the highest merge kept and the lowest one cut, so the dashed line never
     * touches a link; merges are sorted by height only for monotone linkages, hence the max. */
    return kept == 0 ? z[0].height / 2 : (below + z[kept].height) / 2;
}

/* The caller's leaf order must be a permutation and its clusters 0..k-1 (when cut): the
 * drawing indexes arrays with them. */
static int check_order(const int *order, const int *cluster, int n, int k, const char *name,
                       struct lens_err *e)
{
    if (!order)
        return lens_err_set(e, LENS_EINVAL, "%s: no leaf order given", name);
    /* The colours come from the caller's clusters (the cut of lens_structure_run), never from
     * a cut of our own: the figure must agree with the clusters CSV. */
    if (k >= 1 && !cluster)
        return lens_err_set(e, LENS_EINVAL, "%s: a cut into %d clusters needs the cluster of each leaf", name, k);
    /* seen[] catches a leaf listed twice, which would leave another one undrawn. */
    unsigned char *seen = lens_calloc((size_t)n, 1);
    if (!seen)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %d leaves", name, n);
    int rc = LENS_OK;
    for (int i = 0; i < n && rc == LENS_OK; i++) {
        if (order[i] < 0 || order[i] >= n || seen[order[i]])
            rc = lens_err_set(e, LENS_EINVAL, "%s: leaf order is not a permutation of 0..%d (entry %d is %d)",
                              name, n - 1, i, order[i]);
        /* cluster[] indexes the colour and size arrays: out of range would read past them. */
        else if (cluster && (cluster[i] < 0 || cluster[i] >= k))
            rc = lens_err_set(e, LENS_EINVAL, "%s: leaf %d is in cluster %d, expected 0..%d", name, i,
                              cluster[i], k - 1);
        else
            seen[order[i]] = 1;
    }
    lens_free(seen);
    return rc;
}

/* ---- the figure ---- */

struct dfig {
    const struct lens_hclust_step *z;
    int n;
    const struct lens_dendrogram_opts *o;
    const char *name;
    /* filled while drawing */
    const int *order, *cluster;           /* leaf order; cluster of each leaf (the caller's,
                                           * or all 0 without a cut: then owned in nocut) */
    int *nocut, *color, *csize;           /* colour number per cluster (left to right);
                                           * leaves per cluster */
    double *nx;                           /* x of every node in leaf units, 2n-1 */
    cairo_font_face_t *face;              /* the canvas's, borrowed */
};

/* Frees what dfig_prepare made; the caller's order and clusters are only borrowed. */
static void dfig_release(struct dfig *f)
{
    lens_free(f->nocut);
    lens_free(f->color);
    lens_free(f->csize);
    lens_free(f->nx);
    f->nocut = f->color = f->csize = NULL;
    f->nx = NULL;
}

/* Node positions from the given leaf order, and the colours of the given clusters. */
static int dfig_prepare(struct dfig *f, struct lens_err *e)
{
    int n = f->n;
    f->order = f->o->order;
    /* Without a cut every leaf is in cluster 0, so the drawing below needs no special case. */
    f->cluster = f->o->k >= 1 ? f->o->cluster : (f->nocut = lens_calloc((size_t)n, sizeof *f->nocut));
    f->color = lens_malloc((size_t)n * sizeof *f->color);
    f->csize = lens_calloc((size_t)n, sizeof *f->csize);
    f->nx = lens_malloc((size_t)(2 * n - 1) * sizeof *f->nx);
    if (!f->cluster || !f->color || !f->csize || !f->nx)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %d leaves", f->name, n);
    /* -1: no colour yet; the leaf walk below hands them out. */
    for (int c = 0; c < n; c++)
        f->color[c] = -1;
    int next = 0;
    for (int i = 0; i < n; i++) {
        int leaf = f->order[i], c = f->cluster[leaf];
        f->nx[leaf] = i + 0.5;
        f->csize[c]++;
        /* Colours are handed out left to right in the picture, so neighbouring clusters differ
         * whatever numbers the clustering gave them. */
        if (f->color[c] < 0)
            f->color[c] = next++;
    }
    for (int s = 0; s < n - 1; s++)
        /* scipy's rule: a merge sits midway between its children; rows come after their children,
         * so one pass in row order is enough. */
        f->nx[n + s] = (f->nx[f->z[s].left] + f->nx[f->z[s].right]) / 2;
    return LENS_OK;
}

/* darken < 1 gives the label shade of a cluster colour: light colours are unreadable as text. */
static void set_rgb(cairo_t *cr, const double rgb[3], double darken)
{
    cairo_set_source_rgb(cr, rgb[0] * darken, rgb[1] * darken, rgb[2] * darken);
}

static const char *leaf_text(const struct dfig *f, int leaf, int full, char *buf, size_t n)
{
    /* Host-and-rank labels only while every leaf is labelled; thinned-out axes show indices, which
     * say where a leaf is without a dictionary. */
    if (full && f->o->labels && f->o->labels[leaf])
        lens_figure_ellipsize(f->o->labels[leaf], LABEL_CP, buf, n);
    else
        snprintf(buf, n, "%d", leaf);
    return buf;
}

/* The legend's first words: method, processes, cut. */
static void legend_text(const struct dfig *f, char *buf, size_t n)
{
    const struct lens_dendrogram_opts *o = f->o;
    int k = o->k;
    /* "%.0s" swallows the empty method so that one format serves both cases. */
    size_t p = (size_t)snprintf(buf, n, o->method ? "%s linkage of %d processes" : "%.0s%d processes",
                                o->method ? o->method : "", f->n);
    /* The cut is described in the figure's own words, so a PNG alone says what was cut. */
    if (k == 1 && p < n)
        snprintf(buf + p, n - p, "  \xc2\xb7  1 cluster");
    if (k > 1 && p < n) {
        char num[64];
        snprintf(num, sizeof num, "%.3g", lens_dendrogram_cut_level(f->z, f->n, k) * o->scale);
        p += (size_t)snprintf(buf + p, n - p, "  \xc2\xb7  k = %d clusters, cut at %s%s%s", k, num,
                              o->unit ? " " : "", o->unit ? o->unit : "");
        /* A note from the caller, e.g. how k was chosen ("automatic: largest gap"). */
        if (o->cut_note && p < n)
            snprintf(buf + p, n - p, " (%s)", o->cut_note);
    }
}

/* The legend from (x0, y) to xmax: its text, then a swatch per cluster in picture order
 * ("■ cluster 2 (8)": cluster 2 has 8 processes), wrapping once to a second row that starts
 * at x0 and ending in "…" when even that is full. Draws only when draw is set; returns the
 * rows used (1 or 2). */
static int legend(const struct dfig *f, cairo_t *cr, double fs, double x0, double y, double xmax,
                  struct lens_figure_text *log, int draw)
{
    char buf[512];
    legend_text(f, buf, sizeof buf);
    lens_figure_set_font(cr, f->face, fs);
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (draw)
        lens_figure_label(log, cr, x0, y, buf, 0.0, 0.5, 0.0);
    /* The swatches follow the text on the same row. */
    double x = x0 + lens_figure_text_width(cr, buf) + fs * 1.5;
    int k = f->o->k, rows = 1;
    if (k < 2 || k > LEGEND_MAX)
        return rows;
    /* Swatches in a smaller font than the legend's text, as in matplotlib's legends. */
    lens_figure_set_font(cr, f->face, fs * 0.85);
    for (int i = 0; i < f->n; i++) {
        int c = f->cluster[f->order[i]];
        /* One swatch per run of leaves: in leaf order each cluster is one run when the order is the
         * tree's, which is what the caller passes. */
        if (i > 0 && f->cluster[f->order[i - 1]] == c)
            continue;
        snprintf(buf, sizeof buf, "cluster %d (%d)", c, f->csize[c]);
        double need = fs * 1.1 + lens_figure_text_width(cr, buf) + fs * 0.9;
        /* One wrap only: a legend taller than two rows would eat the tree, "…" says there is more. */
        if (x + need > xmax && rows == 1) {
            rows = 2;
            x = x0;
            y += fs * 1.5;
        }
        if (x + need > xmax) {
            if (draw) {
                cairo_set_source_rgb(cr, 0, 0, 0);
                lens_figure_label(log, cr, x, y, "\xe2\x80\xa6", 0.0, 0.5, 0.0);
            }
            break;
        }
        /* Measured (draw 0) and drawn (draw 1) by the same walk, so the layout's row count is exact. */
        if (draw) {
            double rgb[3];
            lens_treefig_color(f->color[c], rgb);
            set_rgb(cr, rgb, 1.0);
            cairo_rectangle(cr, x, y - fs * 0.4, fs * 0.8, fs * 0.8);
            cairo_fill(cr);
            cairo_set_source_rgb(cr, 0, 0, 0);
            lens_figure_label(log, cr, x + fs * 1.1, y, buf, 0.0, 0.5, 0.0);
        }
        x += need;
    }
    return rows;
}

/* Where things go in the w x h box. */
struct dlayout {
    double fs, lab_fs, lw;      /* base and leaf-label font sizes, link width */
    double px, py, pw, ph;      /* plot area: height 0 at py + ph */
    double top;                 /* displayed height at py */
    double legend_y;            /* baseline row of the legend */
    double strip_h;             /* cluster strip under the leaves, 0 without a cut */
    int step, full;             /* every step-th leaf is labelled; full labels or indices */
    double ticks[MAX_TICKS], tstep;
    int nticks;
};

/* Top to bottom: title, legend (measured first), the tree, the cluster strip and the leaf
 * labels; left of the tree the height axis. Fails only when the labels leave no tree. */
static int dfig_layout(struct dfig *f, cairo_t *cr, double w, double h, struct dlayout *L,
                       struct lens_err *e)
{
    const struct lens_dendrogram_opts *o = f->o;
    int n = f->n;
    memset(L, 0, sizeof *L);
    /* Font sizes follow the box as in the heatmap, so the two figures of a report match. */
    double fs = fmin(w, h) / 55.0;
    fs = fs < 7 ? 7 : fs > 13 ? 13 : fs;
    /* For print the tick and leaf labels (0.85 fs) keep the print floor (figure.h). */
    fs = fmax(fs, lens_figure_font_floor(cr, 0) / 0.85);
    L->fs = fs;
    double pad = fs;
    double hmax = 0.0;
    for (int s = 0; s < n - 1; s++)
        hmax = fmax(hmax, f->z[s].height * o->scale);
    /* 4% headroom above the root so its link does not touch the frame; all-zero heights (identical
     * processes) still get a unit axis. */
    L->top = hmax > 0 ? hmax * 1.04 : 1.0;
    /* A first set of ticks only to measure the widest tick label for the left margin. */
    L->nticks = lens_figure_ticks(0.0, L->top, 0, 8, L->ticks, &L->tstep);

    lens_figure_set_font(cr, f->face, fs * 0.85);
    double tw = 0;
    char buf[128];
    for (int i = 0; i < L->nticks; i++) {
        lens_figure_format_value(L->ticks[i], L->tstep, buf, sizeof buf);
        tw = fmax(tw, lens_figure_text_width(cr, buf));
    }
    double tick = fs * 0.35;
    /* A long title wraps: every line past the first moves the legend and tree down. */
    int tl = 1;
    if (o->title) {
        lens_figure_set_font(cr, f->face, fs * 1.25);
        tl = lens_figure_text_wrap(NULL, cr, w / 2, fs, o->title, w - 2 * pad, 0.5, 0);
        tl = tl < 1 ? 1 : tl;
        lens_figure_set_font(cr, f->face, fs * 0.85);
    }
    L->legend_y = pad + (o->title ? fs * 1.25 * (1.5 + 1.2 * (tl - 1)) : 0);
    double left = pad + fs * 1.5 + tw + tick + fs * 0.3;
    /* The legend is measured (draw 0) before it is drawn: its rows decide where the plot starts. */
    int rows = o->method || o->k >= 1 ? legend(f, cr, fs, left, 0, w - fs, NULL, 0) : 0;
    double top = L->legend_y + (rows ? fs * (0.3 + 1.5 * rows) : 0) + fs * 0.6;
    double right = pad * 1.5;
    L->pw = w - left - right;
    L->px = left;
    if (L->pw < 40)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for its labels", f->name, w, h);

    /* leaf labels: as large as the spacing allows, thinned out when even 6 units is too big */
    double sp = L->pw / n;
    /* Labels as large as the leaf spacing allows, but never below 6 units; below that they are
     * thinned out by label_step instead of shrinking to specks. */
    L->lab_fs = fmin(fs * 0.85, fmax(6.0, sp / 1.15));
    L->step = lens_treefig_label_step(n, sp, L->lab_fs);
    L->full = o->labels && n <= LENS_TREEFIG_FULL_LABELS && L->step == 1;
    /* Links thinner with many leaves, so that thousands of them do not merge into a block. */
    L->lw = fmin(1.5, fmax(0.3, sp * 0.3));
    lens_figure_set_font(cr, f->face, L->lab_fs);
    double lab_w = 0;
    for (int i = 0; i < n; i += L->step)
        lab_w = fmax(lab_w, lens_figure_text_width(cr, leaf_text(f, f->order[i], L->full, buf, sizeof buf)));
    /* Long labels may take at most 30% of the height; the rest is the tree's. */
    lab_w = fmin(lab_w, 0.3 * h);
    L->strip_h = o->k > 1 ? fmax(3.0, fs * 0.5) : 0.0;
    double bottom = pad + lab_w + fs * 0.3 + L->strip_h + fs * 0.3;
    L->py = top;
    L->ph = h - top - bottom;
    if (L->ph < 40)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for its labels", f->name, w, h);
    /* The final ticks, now that the plot's height is known: one per 2.2 lines of text. */
    int maxt = (int)(L->ph / (fs * 2.2));
    L->nticks = lens_figure_ticks(0.0, L->top, 0, maxt < 2 ? 2 : maxt > 10 ? 10 : maxt, L->ticks, &L->tstep);
    return LENS_OK;
}

/* Height 0 at the bottom of the plot, top at its top: dendrograms grow upwards. */
static double ypos(const struct dlayout *L, double v) { return L->py + L->ph * (1.0 - v / L->top); }
static double xpos(const struct dlayout *L, int n, double leafx) { return L->px + L->pw * leafx / n; }

/* The height axis with a light grid: merge heights are what a cut is read against. */
static void draw_axis(const struct dfig *f, const struct dlayout *L, cairo_t *cr,
                      struct lens_figure_text *log)
{
    const struct lens_dendrogram_opts *o = f->o;
    double fs = L->fs, tick = fs * 0.35;
    char buf[128];
    /* light grid first so the links draw over it */
    cairo_set_line_width(cr, 0.5);
    cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
    for (int i = 0; i < L->nticks; i++) {
        double ty = ypos(L, L->ticks[i]);
        cairo_move_to(cr, L->px, ty);
        cairo_line_to(cr, L->px + L->pw, ty);
    }
    cairo_stroke(cr);
    /* The axis line and its ticks, then the labels right-aligned against the ticks. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, fs * 0.08);
    cairo_move_to(cr, L->px, L->py);
    cairo_line_to(cr, L->px, L->py + L->ph);
    for (int i = 0; i < L->nticks; i++) {
        cairo_move_to(cr, L->px, ypos(L, L->ticks[i]));
        cairo_rel_line_to(cr, -tick, 0);
    }
    cairo_stroke(cr);
    lens_figure_set_font(cr, f->face, fs * 0.85);
    double tw = 0;
    for (int i = 0; i < L->nticks; i++) {
        lens_figure_format_value(L->ticks[i], L->tstep, buf, sizeof buf);
        tw = fmax(tw, lens_figure_text_width(cr, buf));
        lens_figure_label(log, cr, L->px - tick - fs * 0.3, ypos(L, L->ticks[i]), buf, 1.0, 0.5, 0.0);
    }
    lens_figure_set_font(cr, f->face, fs);
    snprintf(buf, sizeof buf, o->unit ? "height (%s)" : "height", o->unit);
    lens_figure_label(log, cr, L->px - tick - fs * 0.6 - tw, L->py + L->ph / 2, buf, 0.5, 1.0, -M_PI / 2);
}

/* Each merge as a U from its two children up to its height, coloured by its cluster below
 * the cut and grey above it, as scipy's dendrogram does. */
static void draw_links(const struct dfig *f, const struct dlayout *L, cairo_t *cr)
{
    int n = f->n, kept = f->o->k >= 1 ? n - f->o->k : 0;
    double none[3], rgb[3];
    lens_treefig_color_none(none);
    cairo_set_line_width(cr, L->lw);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
    /* one path per colour run would be smaller, but one stroke per link keeps it simple and
     * the SVG is still small (a few hundred bytes per link) */
    for (int s = 0; s < n - 1; s++) {
        const struct lens_hclust_step *m = &f->z[s];
        /* A child's own height: 0 for a leaf, its merge's height otherwise; the U's legs start there. */
        double hl = m->left < n ? 0.0 : f->z[m->left - n].height;
        double hr = m->right < n ? 0.0 : f->z[m->right - n].height;
        double sc = f->o->scale;
        if (s < kept) {
            /* a merge before the cut lies inside one cluster: the cluster of any leaf below */
            int leaf = m->left;
            /* Down the left children to a leaf: all leaves under a kept merge share one cluster. */
            while (leaf >= n)
                leaf = f->z[leaf - n].left;
            lens_treefig_color(f->color[f->cluster[leaf]], rgb);
            set_rgb(cr, rgb, 1.0);
        } else {
            set_rgb(cr, none, 1.0);
        }
        /* The U: up the left child's leg, across at the merge height, down the right child's leg. */
        cairo_move_to(cr, xpos(L, n, f->nx[m->left]), ypos(L, hl * sc));
        cairo_line_to(cr, xpos(L, n, f->nx[m->left]), ypos(L, m->height * sc));
        cairo_line_to(cr, xpos(L, n, f->nx[m->right]), ypos(L, m->height * sc));
        cairo_line_to(cr, xpos(L, n, f->nx[m->right]), ypos(L, hr * sc));
        cairo_stroke(cr);
    }
}

/* Under the tree: the cluster strip (a colour bar of the cut) and the leaf labels, rotated to
 * read upwards so that many leaves fit. */
static void draw_leaves(const struct dfig *f, const struct dlayout *L, cairo_t *cr,
                        struct lens_figure_text *log)
{
    int n = f->n;
    double rgb[3], sp = L->pw / n, y0 = L->py + L->ph + L->fs * 0.3;
    char buf[128];
    if (L->strip_h > 0) {
        /* the cluster strip: one rectangle per run of leaves in the same cluster */
        for (int i = 0, j; i < n; i = j) {
            int c = f->cluster[f->order[i]];
            for (j = i + 1; j < n && f->cluster[f->order[j]] == c; j++)
                ;
            /* One rectangle per run, not per leaf: a cut of 4000 leaves is then a handful of objects. */
            lens_treefig_color(f->color[c], rgb);
            set_rgb(cr, rgb, 1.0);
            cairo_rectangle(cr, L->px + i * sp, y0, (j - i) * sp, L->strip_h);
            cairo_fill(cr);
        }
        y0 += L->strip_h + L->fs * 0.3;
    }
    /* Leaf labels after the strip; every step-th one when they would not fit. */
    lens_figure_set_font(cr, f->face, L->lab_fs);
    for (int i = 0; i < n; i += L->step) {
        int leaf = f->order[i];
        if (f->o->host_group && f->o->host_group[leaf] >= 0) {
            /* a label names a host: it takes that host's colour in every figure (hostcolour.h) */
            lens_hostcolour_rgb(f->o->host_group[leaf], rgb);
            set_rgb(cr, rgb, 0.72);
        } else if (f->o->k > 1) {
            lens_treefig_color(f->color[f->cluster[leaf]], rgb);
            set_rgb(cr, rgb, 0.72); /* darker than the links, to read on white */
        } else {
            cairo_set_source_rgb(cr, 0, 0, 0);
        }
        lens_figure_label(log, cr, L->px + (i + 0.5) * sp, y0, leaf_text(f, leaf, L->full, buf, sizeof buf),
                           1.0, 0.5, -M_PI / 2);
    }
}

/* The cut as a dashed line at lens_dendrogram_cut_level, labelled at the right end. */
static void draw_cut(const struct dfig *f, const struct dlayout *L, cairo_t *cr,
                     struct lens_figure_text *log)
{
    int k = f->o->k;
    if (k < 2)
        return;
    double cy = ypos(L, lens_dendrogram_cut_level(f->z, f->n, k) * f->o->scale);
    /* Dashed and grey: the cut is a reading aid, not part of the tree. */
    double dash[2] = {L->fs * 0.5, L->fs * 0.35};
    cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
    cairo_set_line_width(cr, 0.9);
    cairo_set_dash(cr, dash, 2, 0);
    cairo_move_to(cr, L->px, cy);
    cairo_line_to(cr, L->px + L->pw, cy);
    cairo_stroke(cr);
    /* Back to solid lines for whatever is drawn next. */
    cairo_set_dash(cr, NULL, 0, 0);
    char buf[64];
    /* Right-aligned above the line's end, out of the links' way. */
    snprintf(buf, sizeof buf, "cut: %d clusters", k);
    lens_figure_set_font(cr, f->face, L->fs * 0.85);
    lens_figure_label(log, cr, L->px + L->pw, cy - L->fs * 0.25, buf, 1.0, 1.0, 0.0);
}

/* Title, then the legend. */
static void draw_header(const struct dfig *f, const struct dlayout *L, cairo_t *cr, double w,
                        struct lens_figure_text *log)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (f->o->title) {
        lens_figure_set_font(cr, f->face, L->fs * 1.25);
        lens_figure_text_wrap(log, cr, w / 2, L->fs, f->o->title, w - 2 * L->fs, 0.5, 1);
    }
    if (f->o->method || f->o->k >= 1)
        legend(f, cr, L->fs, L->px, L->legend_y + L->fs * 0.9, w - L->fs, log, 1);
}

/* paint of the figure protocol: data is the caller's struct dfig (arguments only), copied
 * so that the working arrays belong to this one painting. */
static int dfig_paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    struct dfig f = *(const struct dfig *)data;
    cairo_t *cr = c->cr;
    /* The canvas's name and face for messages and text; the rest are the caller's arguments. */
    f.name = c->name;
    f.face = c->face;
    int rc = dfig_prepare(&f, e);
    struct dlayout L;
    if (rc == LENS_OK)
        rc = dfig_layout(&f, cr, c->w, c->h, &L, e);
    if (rc == LENS_OK) {
        /* back to front: axis and links first, so labels and the legend stay readable */
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_rectangle(cr, 0, 0, c->w, c->h);
        cairo_fill(cr);
        draw_axis(&f, &L, cr, c->text);
        draw_links(&f, &L, cr);
        draw_cut(&f, &L, cr, c->text);
        draw_leaves(&f, &L, cr, c->text);
        draw_header(&f, &L, cr, c->w, c->text);
    }
    dfig_release(&f);
    return rc;
}

/* check of the figure protocol: the linkage, the cut, the order and the scale. */
static int dfig_check(const void *data, const char *name, struct lens_err *e)
{
    const struct dfig *f = data;
    const struct lens_dendrogram_opts *o = f->o;
    int rc = check_linkage(f->z, f->n, name, e);
    if (rc)
        return rc;
    if (o->k < 0 || o->k > f->n)
        return lens_err_set(e, LENS_EINVAL, "%s: cut into %d clusters, expected 0..%d", name, o->k, f->n);
    rc = check_order(o->order, o->k >= 1 ? o->cluster : NULL, f->n, o->k, name, e);
    if (rc)
        return rc;
    if (!(o->scale > 0.0) || !isfinite(o->scale))
        return lens_err_set(e, LENS_EINVAL, "%s: scale must be finite and > 0 (got %g)", name, o->scale);
    return LENS_OK;
}

/* The file and memory outputs add the size rule of the tree figures to the check. */
static int dfig_check_file(const void *data, const char *name, struct lens_err *e)
{
    const struct dfig *f = data;
    int rc = dfig_check(data, name, e);
    return rc ? rc : lens_treefig_check_size(name, f->o->width, f->o->height, e);
}

/* The tree figures have the size the options say; the data never changes it. */
static void dfig_size(const void *data, double *w, double *h)
{
    const struct dfig *f = data;
    *w = f->o->width;
    *h = f->o->height;
}

static const struct lens_figure_kind dendrogram_kind = {
    "dendrogram", LENS_FIGURE_TEXT, dfig_check_file, dfig_size, dfig_paint};
/* In a caller's box the box is the size; the caller's surface is no file to bound. */
static const struct lens_figure_kind dendrogram_box_kind = {
    "dendrogram", 0, dfig_check, dfig_size, dfig_paint};

/* The figure's data: the arguments, with o NULL replaced by the defaults in *def. */
static struct lens_figure dfig_init(struct dfig *f, const struct lens_hclust_step *z, int n,
                                    const struct lens_dendrogram_opts *o,
                                    struct lens_dendrogram_opts *def, const struct lens_figure_kind *k)
{
    memset(f, 0, sizeof *f);
    if (!o) {
        lens_dendrogram_opts_init(def);
        o = def;
    }
    f->z = z;
    f->n = n;
    f->o = o;
    return (struct lens_figure){.kind = k, .data = f, .font_path = o->font_path, .title = o->title};
}

/* The box kind: no file size rule, but the box must hold the labels (check_box). */
int lens_dendrogram_draw(cairo_t *cr, double x, double y, double w, double h,
                         const struct lens_hclust_step *z, int n,
                         const struct lens_dendrogram_opts *o, struct lens_err *e)
{
    struct dfig f;
    struct lens_dendrogram_opts def;
    struct lens_figure fig = dfig_init(&f, z, n, o, &def, &dendrogram_box_kind);
    /* the box is checked after the data, so a bad linkage is reported first */
    int rc = dendrogram_box_kind.check(&f, "dendrogram", e);
    if (rc == LENS_OK)
        rc = lens_treefig_check_box("dendrogram", w, h, e);
    return rc ? rc : lens_figure_draw(&fig, cr, x, y, w, h, e);
}

int lens_dendrogram_write(const struct lens_hclust_step *z, int n,
                          const struct lens_dendrogram_opts *o, const char *path,
                          struct lens_err *e)
{
    struct dfig f;
    struct lens_dendrogram_opts def;
    struct lens_figure fig = dfig_init(&f, z, n, o, &def, &dendrogram_kind);
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_dendrogram_png_mem(const struct lens_hclust_step *z, int n,
                            const struct lens_dendrogram_opts *o, unsigned char **buf,
                            size_t *len, struct lens_err *e)
{
    struct dfig f;
    struct lens_dendrogram_opts def;
    struct lens_figure fig = dfig_init(&f, z, n, o, &def, &dendrogram_kind);
    return lens_figure_render(&fig, NULL, buf, len, e);
}

/* ---- the reordered heatmap ---- */

void lens_dendrogram_permute(const double *a, int n, const int *order, double *out)
{
    for (int i = 0; i < n; i++) {
        const double *row = a + (size_t)order[i] * n;
        double *o = out + (size_t)i * n;
        for (int j = 0; j < n; j++)
            o[j] = row[order[j]];
    }
}

/* The permuted matrix and the axis labels naming the original processes; PNG (fmt 0, into
 * buf/len when path is NULL) or SVG. */
static int reordered_heatmap(const double *a, int n, const int *order, const char *const *labels,
                             const struct lens_heatmap_opts *o, const char *path,
                             unsigned char **buf, size_t *len, struct lens_err *e)
{
    const char *name = path ? path : "heatmap png (memory)";
    int fmt = path ? lens_treefig_format(path, e) : LENS_TREEFIG_PNG;
    if (fmt < 0)
        return fmt;
    if (n < 1 || n > (1 << 20) || !a || !order)
        return lens_err_set(e, LENS_EINVAL, "%s: need a square matrix of 1..%d processes and its order", name, 1 << 20);
    struct lens_heatmap_opts ho;
    if (o)
        ho = *o;
    else
        lens_heatmap_opts_init(&ho);
    double *m = lens_malloc((size_t)n * n * sizeof *m);
    const char **lab = lens_malloc((size_t)n * sizeof *lab);
    /* host bands follow the rows they belong to: the hosts are permuted with the matrix */
    const char **hosts = o && o->hosts ? lens_malloc((size_t)n * sizeof *hosts) : NULL;
    char *num = labels ? NULL : lens_malloc((size_t)n * 12);
    unsigned char *seen = lens_calloc((size_t)n, 1);
    int rc = LENS_OK;
    if (!m || !lab || (!labels && !num) || !seen || (o && o->hosts && !hosts))
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory for a %dx%d matrix", name, n, n);
    for (int i = 0; i < n && rc == LENS_OK; i++) {
        if (order[i] < 0 || order[i] >= n || seen[order[i]])
            rc = lens_err_set(e, LENS_EINVAL, "%s: order is not a permutation of 0..%d (entry %d is %d)",
                              name, n - 1, i, order[i]);
        else
            seen[order[i]] = 1;
    }
    if (rc == LENS_OK) {
        lens_dendrogram_permute(a, n, order, m);
        for (int i = 0; i < n; i++) {
            if (labels) {
                lab[i] = labels[order[i]];
            } else {
                snprintf(num + (size_t)i * 12, 12, "%d", order[i]);
                lab[i] = num + (size_t)i * 12;
            }
        }
        ho.labels = lab;
        for (int i = 0; hosts && i < n; i++)
            hosts[i] = o->hosts[order[i]];
        ho.hosts = hosts;
        if (!path)
            rc = lens_heatmap_png_mem(m, n, n, &ho, buf, len, e);
        else if (fmt == LENS_TREEFIG_PNG)
            rc = lens_heatmap_write_png(m, n, n, &ho, path, e);
        else
            rc = lens_heatmap_write_svg(m, n, n, &ho, path, e);
    }
    lens_free(m);
    lens_free(lab);
    lens_free(hosts);
    lens_free(num);
    lens_free(seen);
    return rc;
}

/* The matrix reordered by the tree's leaf order, so that clusters show as blocks on the
 * diagonal; drawn by the heatmap figure. */
int lens_dendrogram_heatmap_write(const double *a, int n, const int *order,
                                  const char *const *labels, const struct lens_heatmap_opts *o,
                                  const char *path, struct lens_err *e)
{
    return reordered_heatmap(a, n, order, labels, o, path, NULL, NULL, e);
}

int lens_dendrogram_heatmap_png_mem(const double *a, int n, const int *order,
                                    const char *const *labels,
                                    const struct lens_heatmap_opts *o, unsigned char **buf,
                                    size_t *len, struct lens_err *e)
{
    *buf = NULL;
    *len = 0;
    return reordered_heatmap(a, n, order, labels, o, NULL, buf, len, e);
}
