/* The comparison report (compare_report.h). The template decides the order, headings and
 * prose; this file supplies the placeholders, the findings rows and the two figures, all from
 * the finished struct lens_compare: nothing here tests, bins or groups. Each section is a row
 * of the `sections` table near the end, drawn by render/doc/doc.c. */
#include "compare_report.h"

#include "common/atomic.h"
#include "common/time.h"
#include "common/units.h"
#include "doc.h"
#include "pdf.h"
#include "render/fig/fig.h"
#include "template.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The context every section function receives. */
struct compare_report {
    const struct lens_compare_report_opts *o;
    const struct lens_compare *c;             /* borrowed, finished */
    const struct lens_template *t;
    const struct lens_template_section *sec;  /* section being drawn */
    struct lens_pdf *pdf;
    struct lens_template_vars vars;
    int cur;
    char *figdir;                             /* the --figures folder being built, or NULL */
    char font_path[PATH_MAX + 32];
};

void lens_compare_report_opts_init(struct lens_compare_report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->alpha = 0.01;
    o->min_change = 0.10;
    o->date = lens_time_source_date();
}

/* A section text expanded with the current placeholders into buf. */
static int text(struct compare_report *r, const char *name, char *buf, size_t n, struct lens_err *e)
{
    char *s = NULL;
    int rc = lens_template_text(r->t, r->sec, name, &r->vars, &s, e);
    if (rc == LENS_OK)
        snprintf(buf, n, "%s", s);
    lens_free(s);
    return rc;
}

/* Integers joined by sep into buf; a long list (a node's ranks, the machine's) is cut after
 * 12 with a count, so a row stays a few lines high. */
static void join_ints(const int *v, int n, const char *sep, char *buf, size_t size)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && o < size; i++) {
        if (i == 12) {
            snprintf(buf + o, size - o, " and %d more", n - 12);
            return;
        }
        o += (size_t)snprintf(buf + o, size - o, "%s%d", i ? sep : "", v[i]);
    }
}

/* ---- page one ---- */

static int answer_vars(void *ctx, struct lens_err *e)
{
    struct compare_report *r = ctx;
    const struct lens_compare *c = r->c;
    struct lens_template_vars *v = &r->vars;
    char date[64], buf[512];
    lens_time_format_date(r->o->date, date, sizeof date);
    int rc = lens_template_vars_set(v, "date", date, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "version", LENS_VERSION, e);
    /* the runs by their paths' last two parts: the folder the PDF was made in never shows */
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "base", r->o->base ? lens_report_path_tail(r->o->base) : "-", e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "new", r->o->newer ? lens_report_path_tail(r->o->newer) : "-", e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "verdict", lens_compare_verdict_name(c->verdict), e);
    /* the words of the text output: how a rank of BASE was paired with one of NEW */
    if (rc == LENS_OK)
        rc = lens_template_vars_set(v, "matched_by", c->sweeps ? (c->matched_by_host ? "hosts of each pair" : "position")
                                                  : c->matched_by_host ? "host and local rank" : "rank number", e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "procs", "%d", c->procs);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nlen", "%d", c->nlen);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "tests", "%lld", c->tests);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "significant", "%lld", c->significant);
    char thr[64];
    lens_units_num(c->threshold, 3, thr, sizeof thr); /* the BH threshold can be 4.84×10^-156 */
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "threshold", thr, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "test", lens_compare_test_name(c->test), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "test_text", lens_compare_test_describe(c->test), e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "alpha", "%g", r->o->alpha);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "min_change", "%g %%", 100 * r->o->min_change);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nfind", "%d", c->nfind);
    /* the groups of both cuts, also when equal: the evidence that the clustering was compared */
    if (c->base_groups)
        snprintf(buf, sizeof buf, "%d groups in BASE, %d in NEW (automatic cut at %d bytes)", c->base_groups,
                 c->new_groups, c->structure_length);
    else
        snprintf(buf, sizeof buf, "not compared (%s)", c->sweeps ? "sweeps" : "fewer than 3 processes");
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "clustering", buf, e);
    if (rc == LENS_OK && r->o->title)
        rc = lens_template_vars_set(v, "title", r->o->title, e);
    else if (rc == LENS_OK && (rc = text(r, "default_title", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_template_vars_set(v, "title", buf, e);
    return rc;
}

/* One row per finding, in the order of the analysis (machine, structure, node, link): the
 * columns of the --json output's first seven keys. */
static int findings_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct compare_report *r = ctx;
    if (strcmp(it->name, "findings"))
        return lens_template_unknown_item(r->t, r->sec, it, e);
    if (it->ncols != 7)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'findings' needs 7 columns (kind, direction, ranks, "
                            "hosts, lengths, ratio, p), got %d", r->t->path, it->line, it->ncols);
    const struct lens_compare *c = r->c;
    int rc = LENS_OK;
    if (c->nfind == 0) {
        /* an empty table would read as a drawing fault: one row saying so */
        char none[1024];
        if ((rc = text(r, "none", none, sizeof none, e)) != LENS_OK)
            return rc;
        const char *cells[7] = {"-", "-", "-", "-", "-", "-", "-"};
        rc = lens_pdf_table_row(r->pdf, cells, e);
        return rc == LENS_OK ? lens_pdf_text(r->pdf, LENS_PDF_SANS, 9, LENS_PDF_LEFT, 0, none, e) : rc;
    }
    for (int i = 0; i < c->nfind && rc == LENS_OK; i++) {
        const struct lens_compare_finding *f = &c->find[i];
        char ranks[256], hosts[512], lengths[256], ratio[32], p[32];
        /* a link is directed, sender first; the whole machine is every rank */
        if (f->kind == LENS_COMPARE_MACHINE)
            snprintf(ranks, sizeof ranks, "all %d", f->nranks);
        else
            join_ints(f->ranks, f->nranks, f->kind == LENS_COMPARE_LINK ? " -> " : ", ", ranks, sizeof ranks);
        size_t o = 0;
        hosts[0] = '\0';
        for (int h = 0; h < f->nhosts && o < sizeof hosts && f->kind != LENS_COMPARE_MACHINE; h++)
            o += (size_t)snprintf(hosts + o, sizeof hosts - o, "%s%s", h ? ", " : "", f->hosts[h]);
        if (!hosts[0])
            snprintf(hosts, sizeof hosts, "-");
        join_ints(f->lengths, f->nlengths, ", ", lengths, sizeof lengths);
        snprintf(ratio, sizeof ratio, "%.3fx", f->ratio);
        /* a structure finding has no test behind it: a dash, as in the text output */
        if (isnan(f->p))
            snprintf(p, sizeof p, "-");
        else
            lens_units_num(f->p, 2, p, sizeof p); /* 2 digits; "6.1×10^-209", never "6.1e-209" */
        const char *cells[7] = {lens_compare_kind_name(f->kind), f->direction > 0 ? "slower" : "faster",
                                ranks, hosts, lengths, ratio, p};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

/* ---- the figures ---- */

/* PNG bytes at text width with their caption, and with --figures the same figure as PNG and
 * SVG files named stem; draw_png / write_file are the figure's two outputs. */
static int figure(struct compare_report *r, const char *stem, const char *capname, double aspect, unsigned char *png,
                  size_t len, int (*write_file)(struct compare_report *, const char *, struct lens_err *),
                  struct lens_err *e)
{
    char caption[2048];
    int rc = lens_pdf_image_png(r->pdf, png, len, lens_pdf_text_width(r->pdf) * aspect, e);
    if (rc == LENS_OK && (rc = text(r, capname, caption, sizeof caption, e)) == LENS_OK)
        rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, caption, e);
    static const char *const ext[2] = {"png", "svg"};
    for (int x = 0; x < 2 && rc == LENS_OK && r->figdir; x++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/%s.%s", r->figdir, stem, ext[x]);
        rc = write_file(r, path, e);
    }
    return rc;
}

static void map_opts(struct compare_report *r, char *title, struct lens_ratiomap_opts *o)
{
    lens_ratiomap_opts_init(o);
    o->title = title;
    o->font_path = r->font_path;
}

static int map_file(struct compare_report *r, const char *path, struct lens_err *e)
{
    char title[512];
    struct lens_ratiomap_opts o;
    int rc = text(r, "figure_title", title, sizeof title, e);
    map_opts(r, title, &o);
    return rc == LENS_OK ? lens_ratiomap_write(r->c->ratio_map, r->c->procs, &o, path, e) : rc;
}

/* Two sweeps: "host_a -> host_b" per pair from the result's hosts table (2 per pair). */
struct curve_labels {
    char text[4096][160];
    const char *ptr[4096];
};

static void curves_data(struct compare_report *r, const char *title, struct curve_labels *l,
                        struct lens_ratiomap_curves *c)
{
    const struct lens_compare *x = r->c;
    int np = x->procs / 2 < 4096 ? x->procs / 2 : 4096;
    for (int q = 0; q < np; q++) {
        const char *a = x->hosttab ? x->hosttab[2 * q] : "", *b = x->hosttab ? x->hosttab[2 * q + 1] : "";
        /* a sweep without hosts names the pair by its number */
        if (a[0] && b[0])
            snprintf(l->text[q], sizeof l->text[q], "pair %d: %s -> %s", q, a, b);
        else
            snprintf(l->text[q], sizeof l->text[q], "pair %d", q);
        l->ptr[q] = l->text[q];
    }
    *c = (struct lens_ratiomap_curves){np, x->ncurve, x->curve, l->ptr, title, 1000, r->font_path};
}

static int curves_file(struct compare_report *r, const char *path, struct lens_err *e)
{
    char title[512];
    static struct curve_labels l; /* 2.6 MB of labels: off the stack; one report at a time */
    struct lens_ratiomap_curves c;
    int rc = text(r, "curves_title", title, sizeof title, e);
    curves_data(r, title, &l, &c);
    return rc == LENS_OK ? lens_ratiomap_curves_write(&c, path, e) : rc;
}

/* The sweeps' figure in the map's place: both runs' latency per pair on one plot. */
static int curves_figure(struct compare_report *r, struct lens_err *e)
{
    char title[512];
    static struct curve_labels l;
    struct lens_ratiomap_curves c;
    int rc = text(r, "curves_title", title, sizeof title, e);
    curves_data(r, title, &l, &c);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = lens_ratiomap_curves_png_mem(&c, &png, &len, e);
    /* 70 units of legend and 300 per row of two panels, over 1000 */
    double aspect = (70.0 + 300.0 * ((c.npairs + 1) / 2)) / 1000.0;
    if (rc == LENS_OK)
        rc = figure(r, "curves", "curves_caption", aspect, png, len, curves_file, e);
    lens_free(png);
    return rc;
}

static int ratiomap_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct compare_report *r = ctx;
    if (strcmp(it->name, "ratiomap"))
        return lens_template_unknown_item(r->t, r->sec, it, e);
    char title[512];
    if (!r->c->ratio_map && r->c->sweeps && r->c->ncurve > 0)
        return curves_figure(r, e);
    /* a caller that did not ask for the map has no matrix: a sentence instead */
    if (!r->c->ratio_map) {
        int rc = text(r, "no_map", title, sizeof title, e);
        return rc == LENS_OK ? lens_pdf_paragraph(r->pdf, title, e) : rc;
    }
    struct lens_ratiomap_opts o;
    int rc = text(r, "figure_title", title, sizeof title, e);
    map_opts(r, title, &o);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = lens_ratiomap_png_mem(r->c->ratio_map, r->c->procs, &o, &png, &len, e);
    if (rc == LENS_OK)
        rc = figure(r, "ratiomap", "caption", (double)o.height / o.width, png, len, map_file, e);
    lens_free(png);
    return rc;
}

static void hist_data(struct compare_report *r, const char *title, struct lens_ratiomap_hist *h)
{
    const struct lens_compare *c = r->c;
    *h = (struct lens_ratiomap_hist){c->nlen, LENS_COMPARE_HIST_BINS, c->map_lengths, c->hist_lo, c->hist_hi,
                                     c->hist, title, 1000, r->font_path};
}

static int hist_file(struct compare_report *r, const char *path, struct lens_err *e)
{
    char title[512];
    struct lens_ratiomap_hist h;
    int rc = text(r, "figure_title", title, sizeof title, e);
    hist_data(r, title, &h);
    return rc == LENS_OK ? lens_ratiomap_hist_write(&h, path, e) : rc;
}

static int histograms_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct compare_report *r = ctx;
    if (strcmp(it->name, "histograms"))
        return lens_template_unknown_item(r->t, r->sec, it, e);
    char title[512];
    if (!r->c->hist) {
        int rc = text(r, "no_hist", title, sizeof title, e);
        return rc == LENS_OK ? lens_pdf_paragraph(r->pdf, title, e) : rc;
    }
    struct lens_ratiomap_hist h;
    int rc = text(r, "figure_title", title, sizeof title, e);
    hist_data(r, title, &h);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = lens_ratiomap_hist_png_mem(&h, &png, &len, e);
    /* the figure's height grows with the panels: 70 units of legend and 190 per row of four */
    double aspect = (70.0 + 190.0 * ((h.nlen + 3) / 4)) / 1000.0;
    if (rc == LENS_OK)
        rc = figure(r, "histograms", "caption", aspect, png, len, hist_file, e);
    lens_free(png);
    return rc;
}

/* ---- the section table ---- */

static const struct lens_doc_section sections[] = {
    {"answer", LENS_DOC_NONE, answer_vars, findings_table, NULL},
    {"ratiomap", LENS_DOC_NONE, NULL, NULL, ratiomap_block},
    {"histograms", LENS_DOC_NONE, NULL, NULL, histograms_block},
    /* the works the methods come from: template text only */
    {"references", LENS_DOC_NONE, NULL, NULL, NULL},
};

static const struct lens_doc_kind kind = {"compare_report.tmpl", "Comparison of two runs", sections,
                                          (int)(sizeof sections / sizeof sections[0]), NULL, NULL, NULL};

/* After the template is checked: the figure folder, which appears with the PDF. */
static int prepare(void *ctx, struct lens_err *e)
{
    struct compare_report *r = ctx;
    return r->o->figures_dir ? lens_atomic_dir(r->o->figures_dir, &r->figdir, e) : LENS_OK;
}

int lens_compare_report_write(const struct lens_compare_report_opts *o, const struct lens_compare *c,
                              const char *path, struct lens_err *e)
{
    struct compare_report r = {.o = o, .c = c, .cur = -1};
    const struct lens_doc d = {.kind = &kind, .datadir = o->datadir, .template_path = o->template_path,
                               .date = o->date, .ninputs = 0, .every = LENS_DOC_NONE, .ctx = &r, .prepare = prepare,
                               .t = &r.t, .sec = &r.sec, .pdf = &r.pdf, .vars = &r.vars, .cur = &r.cur,
                               .font_path = r.font_path, .font_path_size = sizeof r.font_path};
    int rc = lens_doc_write(&d, path, e);
    lens_free(r.figdir);
    return rc;
}
