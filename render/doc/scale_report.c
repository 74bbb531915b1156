/* The scalability report (see scale_report.h). The template decides the order, headings and
 * prose; this file supplies, per section, the placeholder values, table rows and figures.
 * Each section is a row of the `sections` table near the end, drawn by render/doc/doc.c; the
 * marks come finished from the caller. */
#include "scale_report.h"
#include "common/atomic.h"
#include "common/time.h"
#include "common/units.h"

#include "analysis/scale/scale.h"
#include "doc.h"
#include "pdf.h"
#include "render/fig/fig.h"
#include "template.h"

#include <limits.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define FIG_W 1100 /* surface figure in pixels (PNG) or points (SVG) */
#define FIG_H 520

/* The context every section function receives: the caller's grids, marks and rankings (borrowed,
 * computed once by cli/cmd_scale.c as `scale marks` does), what the driver fills through struct
 * lens_doc, and the sentences of the marks. */
struct scale_report {
    const struct lens_scale_report_opts *o;
    const struct lens_template *t;
    const struct lens_template_section *sec; /* section being drawn */
    struct lens_pdf *pdf;
    struct lens_template_vars vars;          /* document and current-application placeholders */
    const struct lens_grid *g;           /* all applications (borrowed) */
    size_t n;
    const struct lens_marks *m;          /* n marks (borrowed: the caller computed them) */
    const size_t *order[3];              /* ascending ranks by enum lens_marks_key (borrowed) */
    struct lens_marks_text *texts;       /* sentences of the marks, owned */
    int cur;                             /* current application inside a repeat, -1 outside */
    char font_path[PATH_MAX + 32];       /* TTF handed to the surface renderer */
};

void lens_scale_report_opts_init(struct lens_scale_report_opts *o)
{
    memset(o, 0, sizeof *o);
    /* matplotlib's default 3-D view, so the surface compares with plots made in Python */
    o->azimuth = -60;
    o->elevation = 30;
    o->date = lens_time_source_date();
}

/* A number for the tables in the reports' one voice (common/units.h): 4 significant digits,
 * fixed notation, "-" if missing. */
static void fmt_num(double v, char *buf, size_t n)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        lens_units_num(v, LENS_UNITS_DIGITS, buf, n);
}

/* A grid coordinate (processes, problem size): a whole number is a label and is written whole
 * ("16000000", where %g wrote "1.6e+07"); a fractional size gets the reports' digits. */
static void fmt_axis(double v, char *buf, size_t n)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, n, "%.0f", v);
    else
        lens_units_num(v, LENS_UNITS_DIGITS, buf, n);
}

/* A section text expanded with the current placeholders into buf (truncated safely). */
static int text(struct scale_report *r, const char *name, char *buf, size_t n, struct lens_err *e)
{
    char *s = NULL;
    int rc = lens_template_text(r->t, r->sec, name, &r->vars, &s, e);
    if (rc == LENS_OK)
        snprintf(buf, n, "%s", s);
    lens_free(s);
    return rc;
}

static int unknown_item(struct scale_report *r, const struct lens_template_item *it, struct lens_err *e)
{
    return lens_template_unknown_item(r->t, r->sec, it, e);
}

/* "a, b, c" of the n strings get(ctx, i) into buf; "and k more" after 40 of them. */
static void join(const char *(*get)(const void *, size_t), const void *ctx, size_t n, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < size; i++) {
        if (i == 40) { /* forty names fill a paragraph; a long list is cut with a count */
            snprintf(buf + o, size - o, " and %zu more", n - 40);
            return;
        }
        o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", get(ctx, i));
    }
}

/* Accessors for join(): one list writer serves the file names and the application names; a
 * file shows its last two parts (lens_report_path_tail), never the absolute path. */
static const char *source_name(const void *ctx, size_t i)
{
    return lens_report_path_tail(((const char *const *)ctx)[i]);
}
static const char *app_name(const void *ctx, size_t i) { return ((const struct lens_grid *)ctx)[i].app; }

/* "1, 2, 4, 8" (or "1 .. 64 (7 values)" for long axes). */
static void axis_values(const double *v, size_t n, char *buf, size_t size)
{
    if (n == 0) {
        snprintf(buf, size, "none");
        return;
    }
    char a[64], b[64];
    if (n > 8) { /* a long axis (a sweep of sizes) as its range and count, not a list */
        fmt_axis(v[0], a, sizeof a);
        fmt_axis(v[n - 1], b, sizeof b);
        snprintf(buf, size, "%s .. %s (%zu values)", a, b, n);
        return;
    }
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < size; i++) {
        fmt_axis(v[i], a, sizeof a);
        o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", a);
    }
}

/* ---- title page ---- */

static int title_vars(void *ctx, struct lens_err *e)
{
    struct scale_report *r = ctx;
    char date[64], buf[4096];
    lens_time_format_date(r->o->date, date, sizeof date);
    struct lens_template_vars *v = &r->vars;
    int rc = lens_template_vars_set(v, "date", date, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(v, "version", LENS_VERSION, e);
    if (rc == LENS_OK) {
        join(app_name, r->g, r->n, buf, sizeof buf);
        rc = lens_template_vars_set(v, "apps", buf, e);
    }
    if (rc == LENS_OK) {
        join(source_name, r->o->sources, (size_t)(r->o->sources ? r->o->nsources : 0), buf, sizeof buf);
        rc = lens_template_vars_set(v, "sources", r->o->sources && r->o->nsources ? buf : "-", e);
    }
    if (rc == LENS_OK && r->o->title)
        rc = lens_template_vars_set(v, "title", r->o->title, e);
    else if (rc == LENS_OK && (rc = text(r, "default_title", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_template_vars_set(v, "title", buf, e);
    return rc;
}

/* ---- one application ---- */

/* Configurations --missing zero filled (0 in gap mode). */
static size_t zero_count(const struct lens_grid *g)
{
    size_t z = 0;
    for (size_t c = 0; g->zero && c < g->np * g->nd; c++)
        z += g->zero[c];
    return z;
}

static int app_vars(void *ctx, struct lens_err *e)
{
    struct scale_report *r = ctx;
    const struct lens_grid *g = &r->g[r->cur];
    char procs[512], sizes[512];
    size_t nconf = 0;
    /* Configurations with a measured efficiency: holes in the grid (NaN) are runs that failed or
     * were never made. */
    for (size_t k = 0; k < g->np * g->nd; k++)
        nconf += !isnan(g->eff[k]) && !(g->zero && g->zero[k]); /* an assumed zero had no run */
    axis_values(g->procs, g->np, procs, sizeof procs);
    axis_values(g->size, g->nd, sizes, sizeof sizes);
    struct lens_template_vars *v = &r->vars;
    int rc = lens_template_vars_set(v, "app", g->app, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "app_index", "%d", r->cur + 1);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "procs", procs, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "sizes", sizes, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nconfigs", "%zu", nconf);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nelements", "%zu", r->m[r->cur].n_elements);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "failed", "%zu", g->n_failed);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "zeros", "%zu", zero_count(g));
    return rc;
}

/* app with every character outside [A-Za-z0-9._@-] replaced by '_', for file names. */
/* Application names come from the runs CSV and may hold "/" or spaces: they must not escape the
 * figure folder or need quoting. */
static void safe_name(const char *app, char *buf, size_t n)
{
    size_t i = 0;
    for (; app[i] && i + 1 < n; i++) {
        unsigned char c = (unsigned char)app[i];
        int keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                   c == '_' || c == '@' || c == '-';
        buf[i] = keep ? (char)c : '_';
    }
    buf[i] = '\0';
}

/* The figure files of application k without extension: <dir>/<safe name>_<what>, with the
 * index added when an earlier application has the same safe name ("a/b" and "a_b"). */
static void figure_base(const struct scale_report *r, size_t k, const char *what, char *buf, size_t n)
{
    char mine[256], other[256];
    safe_name(r->g[k].app, mine, sizeof mine);
    /* "." and ".." would name a directory: number them like a clash */
    int clash = !strcmp(mine, ".") || !strcmp(mine, "..");
    for (size_t j = 0; j < k && !clash; j++) {
        safe_name(r->g[j].app, other, sizeof other);
        clash = !strcmp(mine, other);
    }
    if (clash)
        snprintf(buf, n, "%s/%s_%zu_%s", r->o->figures_dir, mine, k + 1, what);
    else
        snprintf(buf, n, "%s/%s_%s", r->o->figures_dir, mine, what);
}

static int surface_block(struct scale_report *r, const struct lens_template_item *it, struct lens_err *e)
{
    if (strcmp(it->name, "surface"))
        return unknown_item(r, it, e);
    const struct lens_grid *g = &r->g[r->cur];
    char title[512], caption[2048], note[1024];
    int rc = LENS_OK;
    /* A grid with no process count or no size has no surface to draw: a sentence says so, the
     * tables follow. */
    if (g->np == 0 || g->nd == 0) {
        rc = text(r, "no_surface", note, sizeof note, e);
        if (rc == LENS_OK)
            rc = lens_pdf_paragraph(r->pdf, note, e);
    } else {
        struct lens_surface_opts so;
        lens_surface_opts_default(&so);
        so.azimuth = r->o->azimuth;
        so.elevation = r->o->elevation;
        so.log_procs = r->o->log_procs;
        so.log_size = r->o->log_size;
        so.width = FIG_W;
        so.height = FIG_H;
        so.font_path = r->font_path;
        so.title = title;
        if ((rc = text(r, "figure_title", title, sizeof title, e)) == LENS_OK)
            rc = text(r, "caption", caption, sizeof caption, e);
        unsigned char *png = NULL;
        size_t len = 0;
        if (rc == LENS_OK)
            rc = lens_surface_png_mem(g, &so, &png, &len, e);
        if (rc == LENS_OK)
            /* at full text width, its own aspect ratio */
            rc = lens_pdf_image_png(r->pdf, png, len, lens_pdf_text_width(r->pdf) * FIG_H / FIG_W, e);
        lens_free(png);
        if (rc == LENS_OK)
            rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, caption, e);
        /* With --figures, the same surface as PNG and SVG, rendered again (the format follows the
         * extension). */
        if (rc == LENS_OK && r->o->figures_dir) {
            char base[PATH_MAX], path[PATH_MAX + 8];
            figure_base(r, (size_t)r->cur, "surface", base, sizeof base);
            snprintf(path, sizeof path, "%s.png", base);
            rc = lens_surface_write(path, g, &so, e);
            snprintf(path, sizeof path, "%s.svg", base);
            if (rc == LENS_OK)
                rc = lens_surface_write(path, g, &so, e);
        }
    }
    /* failed runs are left out of the surface, and the note says how many */
    if (rc == LENS_OK && g->n_failed) {
        lens_pdf_space(r->pdf, 4);
        if ((rc = text(r, "failed", note, sizeof note, e)) == LENS_OK)
            rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, note, e);
    }
    /* --missing zero: the zeros enter the marks, so the page says how many were assumed */
    if (rc == LENS_OK && zero_count(g)) {
        lens_pdf_space(r->pdf, 4);
        if ((rc = text(r, "zero", note, sizeof note, e)) == LENS_OK)
            rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, note, e);
    }
    if (rc == LENS_OK)
        lens_pdf_space(r->pdf, 6);
    return rc;
}

static int metrics_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct scale_report *r = ctx;
    if (strcmp(it->name, "metrics"))
        return unknown_item(r, it, e);
    /* The row below fills nine cells; a template with another count would read or leave cells out
     * of bounds. */
    if (it->ncols != 9)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'metrics' needs 9 columns (min p, max p, min d, "
                            "max d, MarkProcs, MarkData, MarkAll, max E, min E), got %d",
                            r->t->path, it->line, it->ncols);
    const struct lens_marks *m = &r->m[r->cur];
    /* The marks as the caller computed them (Teplov's MarkProcs, MarkData, MarkAll, docs/scale.md):
     * laid out, never recomputed here, which tests/test_scale_report_api.c checks. */
    const double vals[9] = {m->min_p, m->max_p, m->min_d, m->max_d, m->mark_procs,
                            m->mark_data, m->mark_all, m->max_e, m->min_e};
    char s[9][32];
    const char *cells[9];
    for (int k = 0; k < 9; k++) {
        /* the grid's corners are labels, the marks and efficiencies values */
        if (k < 4 && !isnan(vals[k]))
            fmt_axis(vals[k], s[k], sizeof s[k]);
        else
            fmt_num(vals[k], s[k], sizeof s[k]);
        cells[k] = s[k];
    }
    return lens_pdf_table_row(r->pdf, cells, e);
}

static int sentences_block(struct scale_report *r, const struct lens_template_item *it, struct lens_err *e)
{
    if (strcmp(it->name, "sentences"))
        return unknown_item(r, it, e);
    static const char *const labels[3] = {"procs", "data", "all"};
    int rc = LENS_OK;
    for (int k = 0; k < 3 && rc == LENS_OK; k++) {
        char label[256], sentence[1024], line[1400];
        rc = text(r, labels[k], label, sizeof label, e);
        if (rc == LENS_OK)
            /* The sentence for each mark comes from templates/scale.txt (loaded in prepare), so its
             * wording can be changed or translated without code. */
            rc = lens_marks_describe(r->texts, k, lens_marks_get(&r->m[r->cur], k), sentence, sizeof sentence, e);
        if (rc != LENS_OK)
            break;
        snprintf(line, sizeof line, "%s: %s", label, sentence);
        rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 10, LENS_PDF_LEFT, 8, line, e);
        lens_pdf_space(r->pdf, 3);
    }
    return rc;
}

static int app_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct scale_report *r = ctx;
    return !strcmp(it->name, "sentences") ? sentences_block(r, it, e) : surface_block(r, it, e);
}

/* ---- other layers on the same axes: performance, the --value column (Teplov's Fig. 1, 9) ---- */

/* The layer a section draws: perf for "performance", extra for "value". */
static const double *layer_of(const struct scale_report *r, const char *section)
{
    const struct lens_grid *g = &r->g[r->cur];
    return !strcmp(section, "performance") ? g->perf : !strcmp(section, "value") ? g->extra : NULL;
}

/* Placeholders of a layer's caption: its range and where it is reached, so a reader can check
 * the figure against the runs file (the values are those of the run kept per configuration). */
static int layer_vars(void *ctx, struct lens_err *e)
{
    struct scale_report *r = ctx;
    const struct lens_grid *g = &r->g[r->cur];
    const double *v = layer_of(r, r->sec->name);
    size_t lo = SIZE_MAX, hi = SIZE_MAX;
    for (size_t c = 0; v && c < g->np * g->nd; c++) {
        if (isnan(v[c]) || (g->zero && g->zero[c])) /* an assumed zero is no measurement */
            continue;
        if (lo == SIZE_MAX || v[c] < v[lo])
            lo = c;
        if (hi == SIZE_MAX || v[c] > v[hi])
            hi = c;
    }
    struct lens_template_vars *tv = &r->vars;
    int rc = lens_template_vars_set(tv, "unit", r->o->perf_unit ? r->o->perf_unit : "work units/s", e);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(tv, "column", r->o->value_label ? r->o->value_label : "value", e);
    /* shown() only lets a layer with a value through, so lo and hi are set here */
    if (rc == LENS_OK && lo != SIZE_MAX) {
        char x[64], pp[64], dd[64];
        fmt_num(v[lo], x, sizeof x);
        rc = lens_template_vars_set(tv, "min", x, e);
        fmt_num(v[hi], x, sizeof x);
        if (rc == LENS_OK) rc = lens_template_vars_set(tv, "max", x, e);
        fmt_axis(g->procs[lo % g->np], pp, sizeof pp);
        fmt_axis(g->size[lo / g->np], dd, sizeof dd);
        if (rc == LENS_OK) rc = lens_template_vars_setf(tv, e, "min_at", "p = %s, d = %s", pp, dd);
        fmt_axis(g->procs[hi % g->np], pp, sizeof pp);
        fmt_axis(g->size[hi / g->np], dd, sizeof dd);
        if (rc == LENS_OK) rc = lens_template_vars_setf(tv, e, "max_at", "p = %s, d = %s", pp, dd);
    }
    return rc;
}

static int layer_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct scale_report *r = ctx;
    const struct lens_grid *g = &r->g[r->cur];
    const double *v = layer_of(r, r->sec->name);
    if (strcmp(it->name, r->sec->name) || !v)
        return unknown_item(r, it, e);
    char title[512], caption[2048];
    struct lens_surface_opts so;
    lens_surface_opts_default(&so);
    so.azimuth = r->o->azimuth;
    so.elevation = r->o->elevation;
    so.log_procs = r->o->log_procs;
    so.log_size = r->o->log_size;
    so.width = FIG_W;
    so.height = FIG_H;
    so.font_path = r->font_path;
    so.title = title;
    so.values = v;
    so.value_label = !strcmp(r->sec->name, "performance") ? "performance" : r->o->value_label;
    int rc = text(r, "figure_title", title, sizeof title, e);
    if (rc == LENS_OK)
        rc = text(r, "caption", caption, sizeof caption, e);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = lens_surface_png_mem(g, &so, &png, &len, e);
    if (rc == LENS_OK)
        rc = lens_pdf_image_png(r->pdf, png, len, lens_pdf_text_width(r->pdf) * FIG_H / FIG_W, e);
    lens_free(png);
    if (rc == LENS_OK)
        rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, caption, e);
    if (rc == LENS_OK && r->o->figures_dir) {
        char base[PATH_MAX], path[PATH_MAX + 8];
        figure_base(r, (size_t)r->cur, r->sec->name, base, sizeof base);
        snprintf(path, sizeof path, "%s.png", base);
        rc = lens_surface_write(path, g, &so, e);
        snprintf(path, sizeof path, "%s.svg", base);
        if (rc == LENS_OK)
            rc = lens_surface_write(path, g, &so, e);
    }
    if (rc == LENS_OK)
        lens_pdf_space(r->pdf, 6);
    return rc;
}

/* ---- placements folded into the grid ---- */

/* One row per configuration run: processes, size, the placement kept, its efficiency, and
 * every variant's best ("core 1, socket 0.83"), so the fold can be checked by eye. */
static int placements_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct scale_report *r = ctx;
    if (strcmp(it->name, "placements"))
        return unknown_item(r, it, e);
    if (it->ncols != 5)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'placements' needs 5 columns (procs, size, kept, "
                            "efficiency, variants), got %d", r->t->path, it->line, it->ncols);
    const struct lens_grid *g = &r->g[r->cur];
    size_t cells = g->np * g->nd;
    int rc = LENS_OK;
    for (size_t c = 0; g->kept && c < cells && rc == LENS_OK; c++) {
        if (g->kept[c] < 0)
            continue;
        char p[32], d[32], eff[32], all[1024];
        fmt_axis(g->procs[c % g->np], p, sizeof p);
        fmt_axis(g->size[c / g->np], d, sizeof d);
        fmt_num(g->eff[c], eff, sizeof eff);
        size_t o = 0;
        all[0] = '\0';
        for (size_t v = 0; v < g->n_var && o < sizeof all; v++) {
            char x[32];
            fmt_num(g->var_eff[v * cells + c], x, sizeof x);
            o += (size_t)snprintf(all + o, sizeof all - o, "%s%s %s", v ? ", " : "", g->var[v], x);
        }
        const char *cells5[5] = {p, d, g->var[g->kept[c]], eff, all};
        rc = lens_pdf_table_row(r->pdf, cells5, e);
    }
    return rc;
}

static int placements_vars(void *ctx, struct lens_err *e)
{
    struct scale_report *r = ctx;
    const struct lens_grid *g = &r->g[r->cur];
    char buf[1024];
    size_t o = 0;
    buf[0] = '\0';
    for (size_t v = 0; v < g->n_var && o < sizeof buf; v++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", v ? ", " : "", g->var[v]);
    int rc = lens_template_vars_set(&r->vars, "placements", buf, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&r->vars, e, "nplacements", "%zu", g->n_var);
    return rc;
}

/* ---- the raw times behind the efficiencies ---- */

/* Configurations with timed runs and the runs behind them, for the section's paragraph. */
static int times_vars(void *ctx, struct lens_err *e)
{
    struct scale_report *r = ctx;
    const struct lens_grid *g = &r->g[r->cur];
    size_t nconf = 0, nruns = 0;
    for (size_t c = 0; g->t_n && c < g->np * g->nd; c++) {
        nconf += g->t_n[c] > 0;
        nruns += g->t_n[c];
    }
    int rc = lens_template_vars_setf(&r->vars, e, "timed_configs", "%zu", nconf);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&r->vars, e, "timed_runs", "%zu", nruns);
    /* heading, paragraph, the table's header and a few rows together (sizes as ranking_vars
     * estimates them), so the heading never ends a page alone */
    if (rc == LENS_OK)
        rc = lens_pdf_need(r->pdf, 40 + 70 + 4 * (10 * 1.35 + 2 * 4 + 1), e);
    return rc;
}

/* One row per configuration with a timed run, sizes then processes ascending as the grid is
 * stored: the runs, the best time (the one the efficiency uses), median and slowest, the
 * spread (slowest - best) / median, "-" for a single run, which has none to show, and the
 * speed-up analysis/scale computed (lens_grid.t_speedup, "-" without a p = 1 run). */
static int times_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct scale_report *r = ctx;
    if (strcmp(it->name, "times"))
        return unknown_item(r, it, e);
    if (it->ncols != 9)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'times' needs 9 columns (procs, size, "
                            "runs, best, median, max, spread, speed-up, efficiency), got %d",
                            r->t->path, it->line, it->ncols);
    const struct lens_grid *g = &r->g[r->cur];
    int rc = LENS_OK;
    for (size_t c = 0; g->t_n && c < g->np * g->nd && rc == LENS_OK; c++) {
        if (!g->t_n[c])
            continue;
        char s[9][32];
        fmt_axis(g->procs[c % g->np], s[0], sizeof s[0]);
        fmt_axis(g->size[c / g->np], s[1], sizeof s[1]);
        snprintf(s[2], sizeof s[2], "%zu", g->t_n[c]);
        fmt_num(g->t_min[c], s[3], sizeof s[3]);
        fmt_num(g->t_med[c], s[4], sizeof s[4]);
        fmt_num(g->t_max[c], s[5], sizeof s[5]);
        /* a median of 0 s (a clock too coarse for the run) has no relative spread */
        if (g->t_n[c] > 1 && g->t_med[c] > 0)
            snprintf(s[6], sizeof s[6], "%.1f %%", 100 * (g->t_max[c] - g->t_min[c]) / g->t_med[c]);
        else
            snprintf(s[6], sizeof s[6], "-");
        fmt_num(g->t_speedup ? g->t_speedup[c] : NAN, s[7], sizeof s[7]);
        fmt_num(g->eff[c], s[8], sizeof s[8]);
        const char *cells[9] = {s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

/* Which per-application sections the current application has: a layer only with a value, the
 * placements only when the runs named some. Everything else is always drawn. */
static int shown(void *ctx, const char *name)
{
    struct scale_report *r = ctx;
    if (r->cur < 0)
        return 1;
    const struct lens_grid *g = &r->g[r->cur];
    if (!strcmp(name, "placements"))
        return g->n_var > 0 && g->kept != NULL;
    if (!strcmp(name, "times")) /* runs files of efficiencies carry no times */
        return g->t_n != NULL;
    if (!strcmp(name, "performance") || !strcmp(name, "value")) {
        const double *v = layer_of(r, name);
        for (size_t c = 0; v && c < g->np * g->nd; c++)
            if (!isnan(v[c]) && !(g->zero && g->zero[c]))
                return 1;
        return 0;
    }
    return 1;
}

/* ---- rankings ---- */

/* Keeps a ranking section on one page when it fits on a page: its headings and table rows
 * (one line each) are estimated from pdf.c's sizes. */
static int ranking_vars(void *ctx, struct lens_err *e)
{
    struct scale_report *r = ctx;
    /* These mirror BODY_SIZE, LEADING and CELL_PAD of pdf.c; an estimate is enough, since it only
     * decides whether to start a new page. */
    double need = 0, row = 10 * 1.35 + 2 * 4 + 1; /* body size, leading, cell padding */
    for (int i = 0; i < r->sec->nitems; i++) {
        const struct lens_template_item *it = &r->sec->items[i];
        if (it->kind == LENS_TMPL_HEADING)
            need += 40;
        else if (it->kind == LENS_TMPL_TABLE)
            need += (double)(r->n + 1) * row + 10;
        else
            need += 20;
    }
    /* About a page body (842 - 2 x 56 points, less headroom): a longer ranking breaks across pages
     * anyway, so it starts where it is. */
    return need < 700 ? lens_pdf_need(r->pdf, need, e) : LENS_OK;
}

static int rank_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct scale_report *r = ctx;
    static const char *const names[3] = {"rank_procs", "rank_data", "rank_all"};
    int key = -1;
    for (int k = 0; k < 3; k++)
        if (!strcmp(it->name, names[k]))
            key = k;
    if (key < 0)
        return unknown_item(r, it, e);
    if (it->ncols != 3)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table '%s' needs 3 columns (rank, application, mark), got %d",
                            r->t->path, it->line, it->name, it->ncols);
    int rc = LENS_OK;
    for (size_t i = 0; i < r->n && rc == LENS_OK; i++) {
        /* the caller's ranking: row i is the i-th best application for this mark */
        size_t a = r->order[key][i];
        char rank[32], mark[32];
        snprintf(rank, sizeof rank, "%zu", i + 1);
        fmt_num(lens_marks_get(&r->m[a], key), mark, sizeof mark);
        const char *cells[3] = {rank, r->g[a].app, mark};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

/* ---- the section table: one row per section a template may name ---- */

static const struct lens_doc_section sections[] = {
    {"title", LENS_DOC_NONE, title_vars, NULL, NULL},
    {"app", LENS_DOC_RUNS, app_vars, metrics_table, app_block},
    /* beside the efficiency: performance and the --value column on the same axes, and the
     * placements folded into the grid; each left out where the application has none */
    {"performance", LENS_DOC_RUNS, layer_vars, NULL, layer_block},
    {"value", LENS_DOC_RUNS, layer_vars, NULL, layer_block},
    {"placements", LENS_DOC_RUNS, placements_vars, placements_table, NULL},
    /* the raw times behind each efficiency, so a mark can be traced to its runs */
    {"times", LENS_DOC_RUNS, times_vars, times_table, NULL},
    /* the same tables under another heading: a template may use either */
    {"comparison", LENS_DOC_NONE, NULL, rank_table, NULL},
    {"ranking", LENS_DOC_NONE, ranking_vars, rank_table, NULL},
    /* the works the methods come from: all template text, drawn once at the end */
    {"references", LENS_DOC_NONE, NULL, NULL, NULL},
};

/* No per-input callback: the app section sets its placeholders in app_vars. */
static const struct lens_doc_kind kind = {"scale_report.tmpl", "Scalability report", sections,
                                          (int)(sizeof sections / sizeof sections[0]), NULL, shown, NULL};

/* The sections' context and what only the set-up below needs. */
struct scale_doc {
    struct scale_report r; /* first, so the sections' context is this struct too */
    struct lens_scale_report_opts ow; /* figures_dir: the folder being built */
    char *figdir;
    const char *texts_path;
};

/* After the template is checked: the sentences of the marks, the figure folder (it appears
 * with the PDF, lens_atomic_dir) and the document placeholders. */
static int prepare(void *ctx, struct lens_err *e)
{
    struct scale_doc *w = ctx;
    /* The sentences are loaded after the template is checked, so a template error is reported first
     * and a bad scale.txt is still reported before any page. */
    int rc = (w->r.texts = lens_marks_text_new()) ? LENS_OK
                                                  : lens_err_set(e, LENS_ENOMEM, "scale report: out of memory");
    if (rc == LENS_OK)
        rc = lens_marks_text_load(w->r.texts, w->texts_path, e);
    if (rc == LENS_OK && w->ow.figures_dir && (rc = lens_atomic_dir(w->ow.figures_dir, &w->figdir, e)) == LENS_OK)
        w->ow.figures_dir = w->figdir;
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&w->r.vars, e, "napps", "%zu", w->r.n);
    /* the strength scale as loaded (scale.txt or --texts), so the note the template prints
     * beside the sentences states the very thresholds that chose their words */
    double thr[3];
    const char *word[3];
    lens_marks_strength_get(w->r.texts, thr, word);
    static const char *const tnames[3] = {"thr_flat", "thr_moderate", "thr_strong"};
    static const char *const wnames[3] = {"word_weak", "word_moderate", "word_strong"};
    for (int k = 0; k < 3 && rc == LENS_OK; k++) {
        char t[64];
        lens_units_num(thr[k], LENS_UNITS_DIGITS, t, sizeof t);
        lens_units_trim(t); /* a threshold is a round number: "0.01", not "0.01000" */
        rc = lens_template_vars_set(&w->r.vars, tnames[k], t, e);
        if (rc == LENS_OK)
            rc = lens_template_vars_set(&w->r.vars, wnames[k], word[k], e);
    }
    return rc;
}

int lens_scale_report_write(const struct lens_scale_report_opts *o, const struct lens_grid *grids,
                            const struct lens_marks *marks, const size_t *const order[3], size_t n,
                            const char *path, struct lens_err *e)
{
    if (n == 0 || !grids || !marks || !order)
        return lens_err_set(e, LENS_EINVAL, "%s: no application to report", path);
    for (int k = 0; k < 3; k++) /* the rankings index grids[] and marks[] */
        for (size_t i = 0; i < n; i++)
            if (!order[k] || order[k][i] >= n)
                return lens_err_set(e, LENS_EINVAL, "%s: ranking %d does not fit %zu applications", path, k, n);
    char xpath[PATH_MAX];
    /* the sentences of the marks: --texts, else templates/scale.txt of the data directory */
    snprintf(xpath, sizeof xpath, "%s", o->texts_path ? o->texts_path : "");
    if (!o->texts_path)
        snprintf(xpath, sizeof xpath, "%s/templates/scale.txt", o->datadir);
    struct scale_doc w = {.r = {.g = grids, .n = n, .m = marks, .cur = -1}, .ow = *o, .texts_path = xpath};
    w.r.o = &w.ow;
    for (int k = 0; k < 3; k++)
        w.r.order[k] = order[k];
    if (n > INT_MAX) /* the driver counts inputs in an int */
        return lens_err_set(e, LENS_EINVAL, "%s: %zu applications are too many", path, n);
    const struct lens_doc d = {.kind = &kind, .datadir = o->datadir, .template_path = o->template_path,
                               .date = o->date, .ninputs = (int)n, .every = LENS_DOC_RUNS, .ctx = &w, .prepare = prepare,
                               .t = &w.r.t, .sec = &w.r.sec, .pdf = &w.r.pdf, .vars = &w.r.vars, .cur = &w.r.cur,
                               .font_path = w.r.font_path, .font_path_size = sizeof w.r.font_path};
    int rc = lens_doc_write(&d, path, e);
    lens_free(w.figdir);
    lens_marks_text_free(w.r.texts);
    return rc;
}
