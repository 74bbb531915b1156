/* The point-to-point sweep in the latency-cube report (sections p2p_parameters and p2p of
 * templates/report.tmpl): one group of sections per p2p input, with the latency, bandwidth
 * and message rate against message size on log-log axes (render/fig/p2pplot.h) and one table of
 * medians per measured pair. Values come from analysis/cube/p2pfile.h as read; nothing is
 * recomputed, so every number in the tables is the file's. */
#include "report_ctx.h"

#include "common/units.h"

#include "render/fig/fig.h"

#include "analysis/cube/cube.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The current input's sweep; valid while the driver repeats a p2p group. */
static const struct lens_p2pfile *sweep(const struct lens_report_ctx *r) { return r->in[r->cur].p2p; }

/* "24, from 0 to 4194304 bytes" over all pairs. */
static void size_range(const struct lens_p2pfile *f, char *buf, size_t n)
{
    long long lo = -1, hi = -1;
    int most = 0;
    for (int p = 0; p < f->npairs; p++) {
        const struct lens_p2p_pair *q = &f->pair[p];
        if (q->nsize == 0) /* a pair with no sizes (a run cut short) adds nothing to the range */
            continue;
        /* Points are sorted by size within a pair (p2pfile.h), so the first and last give the
         * pair's range; pairs may have measured different sizes. */
        if (lo < 0 || q->pt[0].size_bytes < lo)
            lo = q->pt[0].size_bytes;
        if (q->pt[q->nsize - 1].size_bytes > hi)
            hi = q->pt[q->nsize - 1].size_bytes;
        if (q->nsize > most) /* the count shown is the most any pair has, not a sum over pairs */
            most = q->nsize;
    }
    snprintf(buf, n, "%d, from %lld to %lld bytes", most, lo, hi);
}

/* The placeholders of the sweep being drawn, set before each repetition of a p2p group
 * (p2p_parameters and p2p both use them). */
int lens_report_p2p_input_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_p2pfile *f = sweep(r);
    struct lens_template_vars *v = &r->vars;
    char sizes[128], pairs[2048] = "", iters[128] = "";
    size_range(f, sizes, sizeof sizes);
    size_t o = 0;
    /* The pairs as "1: 0 -> 1; 2: ..."; the loop stops once the text is full (snprintf returns what
     * it wanted). */
    for (int p = 0; p < f->npairs && o < sizeof pairs; p++)
        o += (size_t)snprintf(pairs + o, sizeof pairs - o, "%s%d: %s", p ? "; " : "", p + 1, f->pair[p].label);
    /* The iteration counts adapt to the message size (fewer for large messages): the first pair's
     * smallest size gives the figure that describes the run; a sweep with none shows "-". */
    const struct lens_p2p_point *pt = f->npairs && f->pair[0].nsize ? &f->pair[0].pt[0] : NULL;
    if (pt && pt->lat_iters > 0)
        snprintf(iters, sizeof iters, "%d latency, %d bandwidth (smallest size)", pt->lat_iters, pt->bw_iters);
    else
        snprintf(iters, sizeof iters, "-");
    int rc = lens_template_vars_setf(v, e, "input_index", "%d", r->cur + 1);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "input_name", lens_report_label(&r->in[r->cur]), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "p2p_file", lens_report_path_tail(f->path), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "p2p_format", f->is_nc ? "NetCDF" : "CSV", e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "npairs", "%d", f->npairs);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "pairs", pairs, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "sizes", sizes, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "window", "%d", f->window);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "round_trips", "%d", pt ? pt->round_trips_per_iter : 0);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "iterations", iters, e);
    return rc;
}

/* ${pair_index} and ${pair_label} of pair p, and its heading from the text pair_heading. */
static int pair_heading(struct lens_report_ctx *r, int p, char *buf, size_t n, struct lens_err *e)
{
    int rc = lens_template_vars_setf(&r->vars, e, "pair_index", "%d", p + 1);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "pair_label", sweep(r)->pair[p].label, e);
    return rc == LENS_OK ? lens_report_text(r, "pair_heading", buf, n, e) : rc;
}

int lens_report_p2p_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    char first[512] = "";
    /* The template draws the first pair's heading itself (${first_pair}) above the table it opens;
     * a sweep without pairs gets an empty heading. */
    int rc = sweep(r)->npairs > 0 ? pair_heading(r, 0, first, sizeof first, e) : LENS_OK;
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "first_pair", first, e);
    /* The captions key only the marker shapes the figures draw: a one-node sweep has no
     * squares, so its caption must not explain them (as the figure's legend does not). */
    const struct lens_p2pfile *f = sweep(r);
    int intra = 0, inter = 0;
    for (int p = 0; p < f->npairs; p++) {
        inter += f->pair[p].inter != 0;
        intra += f->pair[p].inter == 0;
    }
    char key[256] = "";
    if (rc == LENS_OK && (intra || inter))
        rc = lens_report_text(r, intra && inter ? "markers_both" : intra ? "markers_intra" : "markers_inter", key,
                              sizeof key, e);
    return rc == LENS_OK ? lens_template_vars_set(&r->vars, "p2p_markers", key, e) : rc;
}

/* A value scaled to the column's unit with the reports' significant digits (common/units.h),
 * "-" when it is not finite: NaN marks a value the benchmark did not measure (a size it
 * skipped, a bandwidth of 0 bytes), a dash, not "nan". */
static void cell(char *buf, size_t n, double v, double scale)
{
    if (isfinite(v))
        lens_units_in(v, scale, buf, n);
    else
        snprintf(buf, n, "-");
}

static int pair_rows(struct lens_report_ctx *r, const struct lens_p2p_pair *q, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int k = 0; k < q->nsize && rc == LENS_OK; k++) {
        const struct lens_p2p_point *pt = &q->pt[k];
        char c[6][48];
        snprintf(c[0], sizeof c[0], "%lld", pt->size_bytes);
        /* latencies in microseconds, as in the cube tables */
        cell(c[1], sizeof c[1], pt->latency_median_s, 1e6);
        cell(c[2], sizeof c[2], pt->latency_min_s, 1e6);
        /* Bandwidth in MB/s (10^6 bytes); for 0-byte messages it is meaningless and shows "-". */
        cell(c[3], sizeof c[3], pt->size_bytes > 0 ? pt->bandwidth_median_Bps : NAN, 1e-6);
        /* millions of messages per second: a raw count of seven digits claims a precision the
         * median of a noisy window does not have */
        cell(c[4], sizeof c[4], pt->msg_rate_median_per_s, 1e-6);
        const char *cells[5] = {c[0], c[1], c[2], c[3], c[4]};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

/* Pair 0 goes into the table the template opened under ${first_pair}; every further pair
 * gets its own heading and a new table with the same columns. */
int lens_report_p2p_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "sizes"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_p2pfile *f = sweep(r);
    int rc = LENS_OK;
    for (int p = 0; p < f->npairs && rc == LENS_OK; p++) {
        /* The template has one "table sizes" item; the second and later pairs close the table the
         * template opened and open their own, with the same columns, so each pair's rows sit under
         * its heading. */
        if (p > 0) {
            char heading[512];
            struct lens_pdf_column cols[LENS_PDF_MAXCOLS];
            char *heads[LENS_PDF_MAXCOLS] = {0};
            rc = lens_pdf_table_end(r->pdf, e);
            if (rc == LENS_OK)
                rc = pair_heading(r, p, heading, sizeof heading, e);
            if (rc == LENS_OK)
                rc = lens_pdf_heading(r->pdf, 3, heading, e);
            for (int c = 0; c < it->ncols && rc == LENS_OK; c++) {
                cols[c] = it->cols[c];
                /* Expanded as lens_template_render would: the headers may name placeholders, and
                 * errors name the template line. */
                rc = lens_template_expand(it->cols[c].header, &r->vars, r->t->path, it->line, &heads[c], e);
                cols[c].header = heads[c];
            }
            if (rc == LENS_OK)
                rc = lens_pdf_table_begin(r->pdf, cols, it->ncols, LENS_PDF_SANS, e);
            for (int c = 0; c < it->ncols; c++)
                lens_free(heads[c]);
        }
        if (rc == LENS_OK)
            rc = pair_rows(r, &f->pair[p], e);
    }
    return rc;
}

/* The three log-log figures of the sweep, headings, titles and captions from the texts
 * heading_<metric>, title_<metric> and caption_<metric>. */
int lens_report_p2p_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "figures"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_p2pfile *f = sweep(r);
    int rc = LENS_OK;
    /* the page the sweep's part opens on, which the acceptance verdict cites for p2p.* */
    if (r->page_p2p)
        r->page_p2p[r->cur] = lens_pdf_page_count(r->pdf);
    for (int m = 0; m < LENS_P2PPLOT_NMETRICS && rc == LENS_OK; m++) {
        const char *metric = lens_p2pplot_metric_name(m);
        char key[64], heading[256], title[256], caption[2048], path[PATH_MAX + 64];
        /* figures are numbered across the whole document, cube and sweep figures alike */
        rc = lens_template_vars_setf(&r->vars, e, "figure", "%d", ++r->figure);
        snprintf(key, sizeof key, "heading_%s", metric);
        if (rc == LENS_OK)
            rc = lens_report_text(r, key, heading, sizeof heading, e);
        snprintf(key, sizeof key, "title_%s", metric);
        if (rc == LENS_OK)
            rc = lens_report_text(r, key, title, sizeof title, e);
        snprintf(key, sizeof key, "caption_%s", metric);
        if (rc == LENS_OK)
            rc = lens_report_text(r, key, caption, sizeof caption, e);
        struct lens_p2pplot_opts po;
        lens_p2pplot_opts_init(&po);
        po.width = LENS_REPORT_FIG_W;
        po.height = LENS_REPORT_FIG_H;
        po.font_path = r->font_path;
        po.title = title;
        unsigned char *png = NULL;
        size_t len = 0;
        if (rc == LENS_OK)
            rc = lens_p2pplot_png_mem(f, m, &po, &png, &len, e);
        if (rc == LENS_OK)
            rc = lens_report_place_figure(r, heading, png, len, po.width, po.height, caption, e);
        lens_free(png);
        /* With --figures, the same plot as PNG and SVG files, rendered again from the sweep (the
         * format follows the extension). */
        for (int k = 0; k < 2 && rc == LENS_OK && r->o->figures_dir; k++) {
            snprintf(key, sizeof key, "p2p_%s", metric);
            lens_report_figure_path(r, key, k ? "svg" : "png", path, sizeof path);
            rc = lens_p2pplot_write(f, m, &po, path, e);
        }
    }
    return rc;
}
