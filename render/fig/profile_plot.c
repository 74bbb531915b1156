/* Profile and stage-log figures with cairo: a small chart frame (axes with round ticks,
 * title, legend) shared by four plots, each a kind of the figure protocol (figure.h), which
 * owns the surfaces, the font and the atomic output. */
#include "profile_plot.h"
#include "figure.h"

#include <cairo.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_matrix.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every plot the same size: they sit side by side in the profile report. */
#define FIG_W 900
#define FIG_H 540

/* Colour-blind-safe palette (Okabe-Ito); cluster 0, the costlier, is the vermilion. */
static const double PALETTE[8][3] = {
    {0.835, 0.369, 0.000}, {0.000, 0.447, 0.698}, {0.000, 0.620, 0.451}, {0.800, 0.475, 0.655},
    {0.902, 0.624, 0.000}, {0.337, 0.706, 0.914}, {0.941, 0.894, 0.259}, {0.0, 0.0, 0.0}};

/* One chart being painted: the canvas's context and the data-to-device mapping. */
struct chart {
    cairo_t *cr;                   /* the canvas's, borrowed */
    double x0, y0, x1, y1;         /* plot area, device units: left, top, right, bottom */
    double xmin, xmax, ymin, ymax; /* data range */
};

/* White background, the base font, and the fixed plot area: 80 points left for the y tick
 * labels and title, 170 right for the legend, 90 below for the x labels. */
static void chart_begin(struct chart *ch, const struct lens_figure_canvas *c)
{
    memset(ch, 0, sizeof *ch);
    ch->cr = c->cr;
    /* White under the chart: PNGs keep their alpha channel, and a transparent chart would show
     * the viewer's background. */
    cairo_set_source_rgb(c->cr, 1, 1, 1);
    cairo_paint(c->cr);
    /* 12 points base; the helpers below set their own sizes per text. */
    lens_figure_set_font(c->cr, c->face, 12);
    ch->x0 = 80;
    ch->y0 = 50;
    ch->x1 = FIG_W - 170;
    ch->y1 = FIG_H - 90;
}

/* Data to device units: nice_range has made both ranges non-empty, so no division by zero. */
static double X(const struct chart *c, double v)
{
    return c->x0 + (v - c->xmin) / (c->xmax - c->xmin) * (c->x1 - c->x0);
}

/* Upwards: larger values nearer the top of the plot. */
static double Y(const struct chart *c, double v)
{
    return c->y1 - (v - c->ymin) / (c->ymax - c->ymin) * (c->y1 - c->y0);
}

/* Baseline text, aligned by its advance: align 0 left, 0.5 centre, 1 right of x. */
static void text(cairo_t *cr, double x, double y, double size, double align, const char *s)
{
    cairo_text_extents_t ext;
    cairo_set_font_size(cr, lens_figure_font_floor(cr, size));
    cairo_text_extents(cr, s, &ext);
    /* cairo's toy text API is enough here: labels are single lines in one font. */
    cairo_move_to(cr, x - align * ext.x_advance, y);
    cairo_show_text(cr, s);
}

/* A round step near range/5: 1, 2 or 5 times a power of ten. */
static double tick_step(double range)
{
    double raw = range / 5, p = pow(10, floor(log10(raw))), m = raw / p;
    /* Nearest of 1, 2, 5, 10 (not the next above): about five ticks, never fewer than three. */
    return p * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

/* Widens a data range to round ends; a flat range gets a unit of room. */
static void nice_range(double *lo, double *hi, int from_zero)
{
    /* Bars and counts start at zero, or their heights would mislead. */
    if (from_zero && *lo > 0)
        *lo = 0;
    /* A flat range (one value) gets room around it, or the axis would have no extent. */
    if (!(*hi > *lo)) {
        double d = fabs(*lo) > 0 ? fabs(*lo) * 0.5 : 1;
        *lo -= d;
        *hi += d;
    }
    double s = tick_step(*hi - *lo);
    /* Ends on whole ticks: the frame then starts and ends on a labelled value. */
    *lo = floor(*lo / s) * s;
    *hi = ceil(*hi / s) * s;
}

/* Frame, ticks and titles. xticks == 0 leaves the x axis to the caller (categories). */
static void chart_axes(struct chart *c, const char *title, const char *xlabel, const char *ylabel, int xticks)
{
    cairo_t *cr = c->cr;
    char buf[64];
    /* The frame first, then the y ticks with their labels right-aligned. */
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, c->x0, c->y0, c->x1 - c->x0, c->y1 - c->y0);
    cairo_stroke(cr);
    double s = tick_step(c->ymax - c->ymin);
    for (double v = ceil(c->ymin / s) * s; v <= c->ymax + s * 1e-9; v += s) {
        snprintf(buf, sizeof buf, "%g", fabs(v) < s * 1e-9 ? 0.0 : v);
        cairo_move_to(cr, c->x0 - 5, Y(c, v));
        cairo_line_to(cr, c->x0, Y(c, v));
        cairo_stroke(cr);
        text(cr, c->x0 - 8, Y(c, v) + 4, 11, 1, buf);
    }
    /* Categorical x axes (the bars) label themselves: only numeric ones get ticks here. */
    if (xticks) {
        s = tick_step(c->xmax - c->xmin);
        for (double v = ceil(c->xmin / s) * s; v <= c->xmax + s * 1e-9; v += s) {
            snprintf(buf, sizeof buf, "%g", fabs(v) < s * 1e-9 ? 0.0 : v);
            cairo_move_to(cr, X(c, v), c->y1);
            cairo_line_to(cr, X(c, v), c->y1 + 5);
            cairo_stroke(cr);
            text(cr, X(c, v), c->y1 + 18, 11, 0.5, buf);
        }
        text(cr, (c->x0 + c->x1) / 2, c->y1 + 42, 13, 0.5, xlabel);
    }
    /* Title centred over the plot area, not the figure, so it lines up with the axes. */
    text(cr, (c->x0 + c->x1) / 2, 30, 15, 0.5, title);
    cairo_save(cr);
    /* The y title rotated to read upwards, centred on the plot. */
    cairo_translate(cr, 24, (c->y0 + c->y1) / 2);
    cairo_rotate(cr, -M_PI / 2);
    text(cr, 0, 0, 13, 0.5, ylabel);
    cairo_restore(cr);
}

static void colour(cairo_t *cr, size_t i)
{
    /* Eight colours, repeated beyond: stage logs rarely have more stages than that. */
    const double *p = PALETTE[i % 8];
    cairo_set_source_rgb(cr, p[0], p[1], p[2]);
}

static void legend(struct chart *c, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* One 22-unit row per entry, swatch then name, in the margin right of the plot. */
        double y = c->y0 + 10 + 22 * (double)i;
        /* Swatch then name, in the right margin reserved by chart_begin. */
        colour(c->cr, i);
        cairo_rectangle(c->cr, c->x1 + 15, y, 14, 14);
        cairo_fill(c->cr);
        cairo_set_source_rgb(c->cr, 0, 0, 0);
        text(c->cr, c->x1 + 35, y + 12, 12, 0, names[i]);
    }
}

/* ---------- the figure protocol ---------- */

/* What any of the four plots needs: the plot picks its fields. */
struct job {
    const struct lens_profile *p;
    const struct lens_icappa *r;
    size_t k;                     /* bars: the ICAPPA round */
    const struct lens_stagelog *l;
    size_t points;                /* occupancy: time points */
    const double *times;          /* occupancy: points times, seconds */
    const size_t *counts;         /* occupancy: points x nstage tasks */
    const struct lens_stagecmp *cmp; /* the comparison of two logs */
    const struct lens_icappa_dist *dist; /* box plots: the numbers computed in analysis */
};

/* Every plot is FIG_W x FIG_H, whatever its data. */
static void size(const void *data, double *w, double *h)
{
    (void)data;
    *w = FIG_W;
    *h = FIG_H;
}

/* Puts out plot kind k of j: ".svg" is SVG and any other name PNG, as this header has always
 * promised. The PNGs keep their alpha channel (their bytes must not change). */
static int output(const struct lens_figure_kind *k, const struct job *j, const char *path,
                  const char *font_path, struct lens_err *e)
{
    /* ".svg" exactly (case-sensitive) has always meant SVG here; anything else is PNG. */
    size_t n = strlen(path);
    struct lens_figure fig = {.kind = k, .data = j, .font_path = font_path,
                              .as = n >= 4 && !strcmp(path + n - 4, ".svg") ? LENS_FIGURE_AS_SVG
                                                                             : LENS_FIGURE_AS_PNG};
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

/* ---------- profile figures ---------- */

static int bars_check(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    if (j->k >= j->r->nrounds)
        return lens_err_set(e, LENS_EINVAL, "%s: round %zu of %zu", name, j->k + 1, j->r->nrounds);
    return LENS_OK;
}

/* The costliest functions of round k as bars: per cluster side by side (a processes round,
 * cluster 0 the costlier), or one bar per function in its cluster's colour. */
static int bars_paint(const void *data, const struct lens_figure_canvas *cv, struct lens_err *e)
{
    const struct job *j = data;
    const struct lens_profile *p = j->p;
    const struct lens_icappa_round *d = &j->r->rounds[j->k];
    size_t k = j->k;
    int procs = d->set == LENS_ICAPPA_PROCESSES;
    /* a processes round shows every function; a functions round the two clusters' members */
    size_t nf = procs ? p->nfunc : d->size[0] + d->size[1];
    size_t *f = lens_malloc(nf * sizeof *f);
    double *tot = lens_malloc(nf * sizeof *tot), *val = lens_calloc(2 * nf, sizeof *val);
    int *cl = lens_calloc(nf, sizeof *cl);
    if (!f || !tot || !val || !cl) {
        lens_free(f); lens_free(tot); lens_free(val); lens_free(cl);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", cv->name);
    }
    /* The bars' functions: all of them (a processes round) or the members of both clusters in
     * cluster order (a functions round), with each one's total over all processes. */
    for (size_t i = 0; i < nf; i++) {
        int c = !procs && i >= d->size[0];
        f[i] = procs ? i : d->members[c][c ? i - d->size[0] : i];
        cl[i] = c;
        tot[i] = lens_profile_func_total(p, f[i]);
    }
    /* costliest first: a selection sort is plenty for a few dozen bars; ties by function
     * index so that the order does not depend on the sort */
    size_t show = nf < (procs ? 16u : 24u) ? nf : (procs ? 16u : 24u);
    for (size_t i = 0; i < show; i++)
        for (size_t j2 = i + 1; j2 < nf; j2++)
            if (tot[j2] > tot[i] || (tot[j2] == tot[i] && f[j2] < f[i])) {
                size_t tf = f[i]; f[i] = f[j2]; f[j2] = tf;
                double tt = tot[i]; tot[i] = tot[j2]; tot[j2] = tt;
                int tc = cl[i]; cl[i] = cl[j2]; cl[j2] = tc;
            }
    /* bar heights: the mean per process of each cluster, or the function's total */
    double ymax = 0;
    for (size_t i = 0; i < show; i++) {
        if (procs)
            for (int c = 0; c < 2; c++) {
                for (size_t m = 0; m < d->size[c]; m++)
                    val[2 * i + (size_t)c] += p->sec[d->members[c][m] * p->nfunc + f[i]];
                /* A cluster's mean per process; an empty cluster (size 0) keeps 0 rather than dividing. */
                val[2 * i + (size_t)c] /= d->size[c] ? (double)d->size[c] : 1.0;
            }
        else
            val[2 * i] = tot[i];
        ymax = fmax(ymax, fmax(val[2 * i], val[2 * i + 1]));
    }
    /* The y axis from zero: bar heights are compared against each other. */
    struct chart c;
    chart_begin(&c, cv);
    c.xmin = 0;
    c.xmax = (double)show;
    c.ymin = 0;
    c.ymax = ymax;
    nice_range(&c.ymin, &c.ymax, 1);
    char title[128];
    snprintf(title, sizeof title, "ICAPPA round %zu: %s, clusters of %zu and %zu", k + 1,
             procs ? "processes" : "functions", d->size[0], d->size[1]);
    chart_axes(&c, title, "", procs ? "mean seconds per process" : "seconds, all processes", 0);
    /* One slot per function; within it the bars leave 10% gaps either side. */
    double bw = (c.x1 - c.x0) / (double)show;
    for (size_t i = 0; i < show; i++) {
        /* two bars side by side per function (processes), or one in its cluster's colour */
        for (int s = 0; s < (procs ? 2 : 1); s++) {
            double w = procs ? bw * 0.4 : bw * 0.7;
            double x = c.x0 + bw * (double)i + bw * 0.1 + (procs ? w * s : bw * 0.05);
            colour(c.cr, procs ? (size_t)s : (size_t)cl[i]);
            cairo_rectangle(c.cr, x, Y(&c, val[2 * i + (size_t)s]), w, c.y1 - Y(&c, val[2 * i + (size_t)s]));
            cairo_fill(c.cr);
        }
        /* names slanted so that long function names do not run into each other */
        cairo_save(c.cr);
        cairo_set_source_rgb(c.cr, 0, 0, 0);
        cairo_translate(c.cr, c.x0 + bw * ((double)i + 0.5), c.y1 + 12);
        cairo_rotate(c.cr, -M_PI / 5);
        text(c.cr, 0, 0, 10, 1, p->funcs[f[i]]);
        cairo_restore(c.cr);
    }
    /* ICAPPA numbers the costlier cluster 0: the legend says so. */
    static const char *const names[2] = {"cluster 0 (costlier)", "cluster 1"};
    legend(&c, names, 2);
    lens_free(f); lens_free(tot); lens_free(val); lens_free(cl);
    return LENS_OK;
}

static const struct lens_figure_kind bars_kind = {"profile bars", LENS_FIGURE_ALPHA, bars_check, size, bars_paint};

int lens_profile_plot_bars(const struct lens_profile *p, const struct lens_icappa *r, size_t k,
                           const char *path, const char *font_path, struct lens_err *e)
{
    struct job j = {.p = p, .r = r, .k = k};
    return output(&bars_kind, &j, path, font_path, e);
}

/* Scores of the rows of x (R x M) on the two leading principal components (covariance). */
static int pca2(const double *x, size_t R, size_t M, double *score, struct lens_err *e)
{
    /* Covariance of the function times over processes: M x M, hence the 4096 bound of the check. */
    double *mean = lens_calloc(M, sizeof *mean), *cov = lens_calloc(M * M, sizeof *cov);
    double *vec = lens_malloc(M * M * sizeof *vec), *val = lens_malloc(M * sizeof *val);
    gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(M);
    int rc = LENS_OK;
    if (!mean || !cov || !vec || !val || !ws) {
        rc = lens_err_set(e, LENS_ENOMEM, "pca: out of memory for %zu functions", M);
        goto out;
    }
    /* Column means, then the upper triangle of the covariance (it is symmetric), mirrored below. */
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < M; j++)
            mean[j] += x[i * M + j] / (double)R;
    for (size_t i = 0; i < R; i++)
        for (size_t j = 0; j < M; j++)
            for (size_t l = j; l < M; l++)
                cov[j * M + l] += (x[i * M + j] - mean[j]) * (x[i * M + l] - mean[l]);
    for (size_t j = 0; j < M; j++)
        for (size_t l = 0; l < j; l++)
            cov[j * M + l] = cov[l * M + j];
    /* GSL's default handler aborts the process; we report its status as an error instead. */
    gsl_set_error_handler_off();
    gsl_matrix_view a = gsl_matrix_view_array(cov, M, M), v = gsl_matrix_view_array(vec, M, M);
    gsl_vector_view ev = gsl_vector_view_array(val, M);
    int g = gsl_eigen_symmv(&a.matrix, &ev.vector, &v.matrix, ws);
    if (g == GSL_SUCCESS)
        /* Largest eigenvalues first: the two leading principal components. */
        g = gsl_eigen_symmv_sort(&ev.vector, &v.matrix, GSL_EIGEN_SORT_VAL_DESC);
    if (g != GSL_SUCCESS) {
        rc = lens_err_set(e, LENS_ELIB, "pca: gsl_eigen_symmv: %s", gsl_strerror(g));
        goto out;
    }
    /* Each process projected onto the two leading eigenvectors, centred by the means. */
    for (size_t i = 0; i < R; i++)
        for (size_t c = 0; c < 2; c++) {
            double s = 0;
            /* With a single function there is no second component: its score stays 0. */
            if (c < M)
                for (size_t j = 0; j < M; j++)
                    s += (x[i * M + j] - mean[j]) * vec[j * M + c];
            score[2 * i + c] = s;
        }
out:
    /* One exit for every path: whatever was allocated is freed. */
    if (ws)
        gsl_eigen_symmv_free(ws);
    lens_free(mean); lens_free(cov); lens_free(vec); lens_free(val);
    return rc;
}

/* The PCA is defined for 2 processes or more; 4096 functions bound its M x M covariance. */
static int scatter_check(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    if (j->p->nproc < 2 || j->p->nfunc > 4096)
        return lens_err_set(e, LENS_EDATA, "%s: a PCA scatter needs >= 2 processes and <= 4096 functions", name);
    return LENS_OK;
}

/* Processes on the first two principal components; the costly ones (ICAPPA's answer) in the
 * first colour, drawn last so that they are never hidden. */
static int scatter_paint(const void *data, const struct lens_figure_canvas *cv, struct lens_err *e)
{
    const struct job *j = data;
    const struct lens_profile *p = j->p;
    const struct lens_icappa *r = j->r;
    double *score = lens_malloc(2 * p->nproc * sizeof *score);
    char *costly = lens_calloc(p->nproc, 1);
    int rc = score && costly ? pca2(p->sec, p->nproc, p->nfunc, score, e)
                             : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", cv->name);
    if (rc == LENS_OK) {
        struct chart c;
        chart_begin(&c, cv);
        /* Flags of the costly processes, so the passes below pick them in O(1). */
        for (size_t i = 0; i < r->ncostly; i++)
            costly[r->costly[i]] = 1;
        c.xmin = c.ymin = INFINITY;
        c.xmax = c.ymax = -INFINITY;
        for (size_t i = 0; i < p->nproc; i++) {
            c.xmin = fmin(c.xmin, score[2 * i]);
            c.xmax = fmax(c.xmax, score[2 * i]);
            c.ymin = fmin(c.ymin, score[2 * i + 1]);
            c.ymax = fmax(c.ymax, score[2 * i + 1]);
        }
        nice_range(&c.xmin, &c.xmax, 0);
        nice_range(&c.ymin, &c.ymax, 0);
        chart_axes(&c, "processes on the first two principal components", "PC 1 (seconds)",
                   "PC 2 (seconds)", 1);
        for (int pass = 1; pass >= 0; pass--) { /* costly processes on top */
            colour(c.cr, pass ? 1 : 0);
            for (size_t i = 0; i < p->nproc; i++)
                if (costly[i] == !pass) {
                    cairo_arc(c.cr, X(&c, score[2 * i]), Y(&c, score[2 * i + 1]), 2.5, 0, 2 * M_PI);
                    cairo_fill(c.cr);
                }
        }
        static const char *const names[2] = {"costly processes", "other processes"};
        legend(&c, names, 2);
    }
    lens_free(score);
    lens_free(costly);
    return rc;
}

static const struct lens_figure_kind scatter_kind = {"pca scatter", LENS_FIGURE_ALPHA, scatter_check, size,
                                                     scatter_paint};

int lens_profile_plot_scatter(const struct lens_profile *p, const struct lens_icappa *r,
                              const char *path, const char *font_path, struct lens_err *e)
{
    struct job j = {.p = p, .r = r};
    return output(&scatter_kind, &j, path, font_path, e);
}

/* At most this many functions get boxes: beyond a dozen the slots get too narrow to read,
 * and the dominating set is ranked, so the first ones are the ones that matter. */
#define DIST_MAX_FUNCS 12

static int dist_check(const void *data, const char *name, struct lens_err *e)
{
    const struct lens_icappa_dist *d = ((const struct job *)data)->dist;
    if (!d || !d->nfunc || !d->ngroups)
        return lens_err_set(e, LENS_EDATA, "%s: no dominating function to draw", name);
    return LENS_OK;
}

/* One box (q1..q3 with the median), whiskers with caps, and the outliers as open circles,
 * centred on x, w wide. */
static void draw_box(const struct chart *c, const struct lens_icappa_box *b, double x, double w)
{
    cairo_t *cr = c->cr;
    cairo_rectangle(cr, x - w / 2, Y(c, b->q3), w, Y(c, b->q1) - Y(c, b->q3));
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    /* the median thicker: it is what the eye compares between clusters */
    cairo_set_line_width(cr, 2);
    cairo_move_to(cr, x - w / 2, Y(c, b->median));
    cairo_line_to(cr, x + w / 2, Y(c, b->median));
    cairo_stroke(cr);
    cairo_set_line_width(cr, 1);
    /* whiskers from the box to the last value inside 1.5 IQR, capped at half the box width */
    double ends[2][2] = {{b->q3, b->whi}, {b->q1, b->wlo}};
    for (int i = 0; i < 2; i++) {
        cairo_move_to(cr, x, Y(c, ends[i][0]));
        cairo_line_to(cr, x, Y(c, ends[i][1]));
        cairo_move_to(cr, x - w / 4, Y(c, ends[i][1]));
        cairo_line_to(cr, x + w / 4, Y(c, ends[i][1]));
    }
    cairo_stroke(cr);
    for (size_t i = 0; i < b->nlow + b->nhigh; i++) {
        double v = i < b->nlow ? b->low[i] : b->high[i - b->nlow];
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, Y(c, v), 3, 0, 2 * M_PI);
    }
    cairo_stroke(cr);
}

/* Per dominating function a slot, in it one box per process group in the group's colour
 * (as Zhu, Li and Li's figures 2-5: the spread of a function's cost inside each cluster). */
static int dist_paint(const void *data, const struct lens_figure_canvas *cv, struct lens_err *e)
{
    const struct job *j = data;
    const struct lens_icappa_dist *d = j->dist;
    (void)e;
    size_t show = d->nfunc < DIST_MAX_FUNCS ? d->nfunc : DIST_MAX_FUNCS;
    struct chart c;
    chart_begin(&c, cv);
    /* the range covers outliers too: every drawn mark must fall inside the frame */
    c.ymin = INFINITY;
    c.ymax = -INFINITY;
    for (size_t i = 0; i < show * d->ngroups; i++) {
        c.ymin = fmin(c.ymin, d->box[i].min);
        c.ymax = fmax(c.ymax, d->box[i].max);
    }
    c.xmin = 0;
    c.xmax = (double)show;
    /* seconds are >= 0: from zero, so boxes of different clusters compare by height */
    nice_range(&c.ymin, &c.ymax, 1);
    char title[128];
    /* the title says when dominating functions were left out for room */
    if (show < d->nfunc)
        snprintf(title, sizeof title, "distribution over the processes of each cluster (first %zu of %zu functions)",
                 show, d->nfunc);
    else
        snprintf(title, sizeof title, "distribution over the processes of each cluster (%zu function%s)", show,
                 show == 1 ? "" : "s");
    chart_axes(&c, title, "", "seconds per process", 0);
    double bw = (c.x1 - c.x0) / (double)show;
    /* boxes fill 80 % of a slot, split among the groups, with a fifth of each left as a gap */
    double w = bw * 0.8 / (double)d->ngroups;
    /* one function would give boxes half the plot wide: past 90 units width says nothing */
    w = fmin(w, 90);
    for (size_t f = 0; f < show; f++) {
        for (size_t g = 0; g < d->ngroups; g++) {
            double x = c.x0 + bw * ((double)f + 0.5) + w * ((double)g + 0.5 - (double)d->ngroups / 2);
            /* colour by group kind; "all processes" (no split) is alone and takes the first */
            colour(c.cr, (size_t)(d->kind[g] == 3 ? 0 : d->kind[g]));
            draw_box(&c, &d->box[f * d->ngroups + g], x, w * 0.8);
        }
        cairo_save(c.cr);
        cairo_set_source_rgb(c.cr, 0, 0, 0);
        cairo_translate(c.cr, c.x0 + bw * ((double)f + 0.5), c.y1 + 12);
        cairo_rotate(c.cr, -M_PI / 5);
        text(c.cr, 0, 0, 10, 1, j->p->funcs[d->func[f]]);
        cairo_restore(c.cr);
    }
    /* the legend's swatches follow the palette's order, which is the groups' order: the kinds
     * come as 0, 1, 2 or as a lone 3 (lens_icappa_dist), each in the colour of its slot */
    static const char *const kinds[4] = {"cluster 0 (costlier)", "cluster 1", "set aside earlier", "all processes"};
    const char *names[LENS_ICAPPA_DIST_MAX_GROUPS];
    for (size_t g = 0; g < d->ngroups; g++)
        names[g] = kinds[d->kind[g]];
    legend(&c, names, d->ngroups);
    return LENS_OK;
}

static const struct lens_figure_kind dist_kind = {"profile distribution", LENS_FIGURE_ALPHA, dist_check, size,
                                                  dist_paint};

int lens_profile_plot_distribution(const struct lens_profile *p, const struct lens_icappa_dist *d,
                                   const char *path, const char *font_path, struct lens_err *e)
{
    struct job j = {.p = p, .dist = d};
    return output(&dist_kind, &j, path, font_path, e);
}

/* ---------- stage-log figures ---------- */

/* A stage log that was read is always drawable; the check is the protocol's, not the data's. */
static int stagelog_check(const void *data, const char *name, struct lens_err *e)
{
    (void)data;
    (void)name;
    (void)e;
    return LENS_OK;
}

/* One dot per task and stage: seconds in the stage against the task's arrival. */
static int times_paint(const void *data, const struct lens_figure_canvas *cv, struct lens_err *e)
{
    const struct lens_stagelog *l = ((const struct job *)data)->l;
    (void)e;
    struct chart c;
    chart_begin(&c, cv);
    c.xmin = l->t0;
    c.xmax = l->t1;
    c.ymin = 0;
    c.ymax = 0;
    for (size_t t = 0; t < l->ntask; t++)
        for (size_t s = 0; s < l->nstage; s++)
            c.ymax = fmax(c.ymax, l->tasks[t].in_stage[s]);
    nice_range(&c.xmin, &c.xmax, 0);
    nice_range(&c.ymin, &c.ymax, 1);
    chart_axes(&c, "time in stage against arrival time", "arrival time (s)", "seconds in stage", 1);
    for (size_t s = 0; s < l->nstage; s++) {
        colour(c.cr, s);
        /* a task that skipped a stage (0 s) is left out rather than drawn on the axis */
        for (size_t t = 0; t < l->ntask; t++) {
            double v = l->tasks[t].in_stage[s];
            if (v > 0) {
                cairo_arc(c.cr, X(&c, l->tasks[t].arrival), Y(&c, v), 2.5, 0, 2 * M_PI);
                cairo_fill(c.cr);
            }
        }
    }
    /* the palette has 8 colours: further stages would repeat them, so the legend stops */
    legend(&c, (const char *const *)l->stages, l->nstage < 8 ? l->nstage : 8);
    return LENS_OK;
}

static const struct lens_figure_kind times_kind = {"stage times", LENS_FIGURE_ALPHA, stagelog_check, size,
                                                   times_paint};

int lens_profile_plot_stagelog_times(const struct lens_stagelog *l, const char *path, const char *font_path,
                                     struct lens_err *e)
{
    struct job j = {.l = l};
    return output(&times_kind, &j, path, font_path, e);
}

/* The occupancy is the caller's (lens_stagelog_occupancy): this only needs it present. */
static int occupancy_check(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    if (j->points > 0 && (!j->times || (!j->counts && j->l->nstage > 0)))
        return lens_err_set(e, LENS_EINVAL, "%s: no occupancy to draw", name);
    return LENS_OK;
}

/* One line per stage over the occupancy the command computed. */
static int occupancy_paint(const void *data, const struct lens_figure_canvas *cv, struct lens_err *e)
{
    const struct job *j = data;
    const struct lens_stagelog *l = j->l;
    size_t S = l->nstage, points = j->points;
    (void)e;
    struct chart c;
    chart_begin(&c, cv);
    c.xmin = l->t0;
    c.xmax = l->t1;
    c.ymin = 0;
    c.ymax = 1; /* at least one task high, so an empty log still gets a y axis */
    for (size_t i = 0; i < points * S; i++)
        c.ymax = fmax(c.ymax, (double)j->counts[i]);
    nice_range(&c.xmin, &c.xmax, 0);
    nice_range(&c.ymin, &c.ymax, 1);
    chart_axes(&c, "tasks in each stage against time", "time (s)", "tasks", 1);
    cairo_set_line_width(c.cr, 1.8);
    for (size_t s = 0; s < S; s++) {
        colour(c.cr, s);
        for (size_t i = 0; i < points; i++) {
            double x = X(&c, j->times[i]), y = Y(&c, (double)j->counts[i * S + s]);
            if (i)
                cairo_line_to(c.cr, x, y);
            else
                cairo_move_to(c.cr, x, y);
        }
        cairo_stroke(c.cr);
    }
    legend(&c, (const char *const *)l->stages, S < 8 ? S : 8);
    return LENS_OK;
}

static const struct lens_figure_kind occupancy_kind = {"stage occupancy", LENS_FIGURE_ALPHA, occupancy_check,
                                                       size, occupancy_paint};

int lens_profile_plot_stagelog_occupancy(const struct lens_stagelog *l, size_t points, const double *times,
                                         const size_t *counts, const char *path, const char *font_path,
                                         struct lens_err *e)
{
    struct job j = {.l = l, .points = points, .times = times, .counts = counts};
    return output(&occupancy_kind, &j, path, font_path, e);
}

int lens_profile_plot_stagelog_occupancy_mem(const struct lens_stagelog *l, size_t points, const double *times,
                                             const size_t *counts, const char *font_path, unsigned char **buf,
                                             size_t *len, struct lens_err *e)
{
    struct job j = {.l = l, .points = points, .times = times, .counts = counts};
    struct lens_figure fig = {.kind = &occupancy_kind, .data = &j, .font_path = font_path};
    return lens_figure_render(&fig, NULL, buf, len, e);
}

/* ---------- two stage logs ---------- */

/* Both occupancies over the longer of the two runs: a stage's colour is the same in both, the
 * line style tells the runs apart (a second colour per run would double the legend). */
static int stagecmp_paint(const void *data, const struct lens_figure_canvas *cv, struct lens_err *e)
{
    const struct lens_stagecmp *m = ((const struct job *)data)->cmp;
    size_t S = m->nstage, P = m->points;
    (void)e;
    struct chart c;
    chart_begin(&c, cv);
    c.xmin = 0;
    c.xmax = 0;
    c.ymin = 0;
    c.ymax = 1; /* at least one task high, so empty logs still get a y axis */
    for (int k = 0; k < 2; k++) {
        /* the last bin centre lies half a bin before the log's end; the run's length is t1 - t0 */
        c.xmax = fmax(c.xmax, m->log[k]->t1 - m->log[k]->t0);
        for (size_t i = 0; i < P * S; i++)
            c.ymax = fmax(c.ymax, (double)m->counts[k][i]);
    }
    nice_range(&c.xmin, &c.xmax, 1);
    nice_range(&c.ymin, &c.ymax, 1);
    chart_axes(&c, "tasks in each stage: baseline (dashed) against new (solid)", "time since the log began (s)",
               "tasks", 1);
    cairo_set_line_width(c.cr, 1.8);
    static const double dash[] = {6, 4};
    for (int k = 0; k < 2; k++) {
        cairo_set_dash(c.cr, dash, k == 0 ? 2 : 0, 0);
        for (size_t s = 0; s < S; s++) {
            colour(c.cr, s);
            for (size_t i = 0; i < P; i++) {
                double x = X(&c, m->times[k][i]), y = Y(&c, (double)m->counts[k][i * S + s]);
                if (i)
                    cairo_line_to(c.cr, x, y);
                else
                    cairo_move_to(c.cr, x, y);
            }
            cairo_stroke(c.cr);
        }
    }
    cairo_set_dash(c.cr, dash, 0, 0);
    /* the legend names the stages; the title says which line style is which run */
    const char *names[8];
    size_t n = S < 8 ? S : 8;
    for (size_t s = 0; s < n; s++)
        names[s] = m->stages[s].name;
    legend(&c, names, n);
    return LENS_OK;
}

static const struct lens_figure_kind stagecmp_kind = {"stage comparison", LENS_FIGURE_ALPHA, stagelog_check,
                                                      size, stagecmp_paint};

int lens_profile_plot_stagecmp(const struct lens_stagecmp *c, const char *path, const char *font_path,
                               struct lens_err *e)
{
    struct job j = {.cmp = c};
    return output(&stagecmp_kind, &j, path, font_path, e);
}

int lens_profile_plot_stagecmp_mem(const struct lens_stagecmp *c, const char *font_path, unsigned char **buf,
                                   size_t *len, struct lens_err *e)
{
    struct job j = {.cmp = c};
    struct lens_figure fig = {.kind = &stagecmp_kind, .data = &j, .font_path = font_path};
    return lens_figure_render(&fig, NULL, buf, len, e);
}
