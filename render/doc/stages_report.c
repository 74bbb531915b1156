/* The stages report (stages_report.h). The template decides the order, headings and prose;
 * this file supplies the placeholders, the stage rows and the two figures, all from the
 * caller's finished log and comparison: nothing here reads a log or bins an occupancy. Each
 * section is a row of the `sections` table near the end, drawn by render/doc/doc.c. */
#include "stages_report.h"

#include "common/time.h"
#include "doc.h"
#include "pdf.h"
#include "render/fig/fig.h"
#include "template.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* height / width of the profile_plot figures (900 x 540) */
#define FIG_ASPECT (540.0 / 900.0)

/* The context every section function receives. */
struct stages_report {
    const struct lens_stages_report_opts *o;
    const struct lens_stages_report_input *in;
    const struct lens_template *t;
    const struct lens_template_section *sec; /* section being drawn */
    struct lens_pdf *pdf;
    struct lens_template_vars vars;
    int figure;                              /* figures drawn so far (numbering) */
    char font_path[PATH_MAX + 32];
};

void lens_stages_report_opts_init(struct lens_stages_report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->date = lens_time_source_date();
}

static int text(struct stages_report *r, const char *name, char *buf, size_t n, struct lens_err *e)
{
    return lens_template_text_buf(r->t, r->sec, name, &r->vars, buf, n, e);
}

/* Seconds as the text output prints them (%.4g), so the PDF and `mpilens stages` agree digit
 * for digit. */
static void fmt_s(double v, char *buf, size_t n) { snprintf(buf, n, "%.4g", v); }

/* A log's headline numbers under a prefix ("" the log, "base_" the baseline): the title page
 * names the first, the comparison page both. */
static int log_vars(struct stages_report *r, const char *prefix, const struct lens_stagelog *l,
                    struct lens_err *e)
{
    /* placeholder names are built per prefix so both logs share one formatting path and
     * their numbers cannot drift apart in format */
    char name[64], mig[512], dur[32];
    struct lens_template_vars *v = &r->vars;
    size_t o = 0;
    mig[0] = '\0';
    /* [A0, A1, ...] as the text output writes it; a log whose tasks moved dozens of times
     * would overflow a cell, so the list is cut with an ellipsis */
    for (size_t k = 0; k < l->nmig && o + 24 < sizeof mig; k++)
        o += (size_t)snprintf(mig + o, sizeof mig - o, "%s%zu", k ? ", " : "", l->mig_hist[k]);
    if (o + 24 >= sizeof mig)
        snprintf(mig + o, sizeof mig - o, ", ...");
    fmt_s(l->t1 - l->t0, dur, sizeof dur);
    snprintf(name, sizeof name, "%sntask", prefix);
    int rc = lens_template_vars_setf(v, e, name, "%zu", l->ntask);
    snprintf(name, sizeof name, "%swaited", prefix);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, name, "%zu", l->waited);
    snprintf(name, sizeof name, "%swaited_share", prefix);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(v, e, name, "%.1f", l->ntask ? 100.0 * (double)l->waited / (double)l->ntask : 0.0);
    snprintf(name, sizeof name, "%snrecord", prefix);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, name, "%zu", l->nrecord);
    snprintf(name, sizeof name, "%sncross", prefix);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, name, "%zu", l->ncross);
    snprintf(name, sizeof name, "%smigrations", prefix);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, name, "[%s]", mig);
    snprintf(name, sizeof name, "%sduration", prefix);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, name, dur, e);
    return rc;
}

/* ---- title page ---- */

static int title_vars(void *ctx, struct lens_err *e)
{
    struct stages_report *r = ctx;
    const struct lens_stagelog *l = r->in->log;
    char date[64], buf[512];
    lens_time_format_date(r->o->date, date, sizeof date);
    int rc = lens_template_vars_set(&r->vars, "date", date, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "version", LENS_VERSION, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "log", r->in->log_name ? r->in->log_name : "-", e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "points", "%zu", r->in->points);
    if (rc == LENS_OK) rc = log_vars(r, "", l, e);
    /* the clock caveat of docs/icappa.md in one phrase: whether stays across two nodes were
     * timed, and how many there were */
    if (rc == LENS_OK)
        rc = text(r, !l->ncross ? "clocks_none" : l->clocks == LENS_STAGELOG_SYNCED ? "clocks_synced" : "clocks_per_node",
                  buf, sizeof buf, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "clocks", buf, e);
    if (rc == LENS_OK && r->in->cmp)
        rc = lens_template_vars_set(&r->vars, "baseline", r->in->base_name ? r->in->base_name : "-", e);
    else if (rc == LENS_OK && (rc = text(r, "no_baseline", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "baseline", buf, e);
    if (rc == LENS_OK && r->o->title)
        rc = lens_template_vars_set(&r->vars, "title", r->o->title, e);
    else if (rc == LENS_OK && (rc = text(r, "default_title", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "title", buf, e);
    return rc;
}

/* ---- the one log ---- */

static int stages_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct stages_report *r = ctx;
    if (strcmp(it->name, "stages"))
        return lens_template_unknown_item(r->t, r->sec, it, e);
    if (it->ncols != 5)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'stages' needs 5 columns (stage, tasks, mean, max, "
                            "peak), got %d", r->t->path, it->line, it->ncols);
    const struct lens_stagelog *l = r->in->log;
    int rc = LENS_OK;
    for (size_t s = 0; s < l->nstage && rc == LENS_OK; s++) {
        /* rows are in the log's stage order, like the text output's table */
        const struct lens_stages_report_stage *g = &r->in->stages[s];
        char tasks[32], mean[32], max[32], peak[32];
        snprintf(tasks, sizeof tasks, "%zu", g->tasks);
        fmt_s(g->mean, mean, sizeof mean);
        fmt_s(g->max, max, sizeof max);
        snprintf(peak, sizeof peak, "%zu", g->peak);
        const char *cells[5] = {l->stages[s], tasks, mean, max, peak};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

/* A figure in the memory form lens_doc_write chose, at text width, with its caption kept on
 * the same page (40 points for two caption lines). */
static int place(struct stages_report *r, unsigned char *png, size_t len, const char *capname, struct lens_err *e)
{
    char caption[2048];
    int rc = lens_template_vars_setf(&r->vars, e, "figure", "%d", ++r->figure);
    if (rc == LENS_OK) rc = text(r, capname, caption, sizeof caption, e);
    if (rc == LENS_OK) rc = lens_pdf_image_png(r->pdf, png, len, lens_pdf_text_width(r->pdf) * FIG_ASPECT, e);
    if (rc == LENS_OK) rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, caption, e);
    if (rc == LENS_OK) lens_pdf_space(r->pdf, 10);
    return rc;
}

static int occupancy_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct stages_report *r = ctx;
    if (strcmp(it->name, "occupancy"))
        return lens_template_unknown_item(r->t, r->sec, it, e);
    unsigned char *png = NULL;
    size_t len = 0;
    /* page break before drawing, so a figure never starts at a page's foot and its caption
     * never lands alone on the next page */
    int rc = lens_pdf_need(r->pdf, lens_pdf_text_width(r->pdf) * FIG_ASPECT + 40, e);
    if (rc == LENS_OK)
        rc = lens_profile_plot_stagelog_occupancy_mem(r->in->log, r->in->points, r->in->times, r->in->counts,
                                                      r->font_path, &png, &len, e);
    if (rc == LENS_OK)
        rc = place(r, png, len, "occupancy_caption", e);
    lens_free(png);
    return rc;
}

/* ---- two logs side by side ---- */

static int compare_vars(void *ctx, struct lens_err *e)
{
    struct stages_report *r = ctx;
    return log_vars(r, "base_", r->in->cmp->log[0], e);
}

/* One row per stage of the comparison (the new log's order, then stages only the baseline
 * has), old then new, as `mpilens stages --baseline` prints them. */
static int compare_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct stages_report *r = ctx;
    if (strcmp(it->name, "compare"))
        return lens_template_unknown_item(r->t, r->sec, it, e);
    if (it->ncols != 7)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'compare' needs 7 columns (stage, tasks, mean old, "
                            "mean new, change, max old, max new), got %d", r->t->path, it->line, it->ncols);
    const struct lens_stagecmp *c = r->in->cmp;
    int rc = LENS_OK;
    for (size_t s = 0; s < c->nstage && rc == LENS_OK; s++) {
        const struct lens_stagecmp_stage *g = &c->stages[s];
        char tasks[64], m0[32], m1[32], change[32] = "-", x0[32], x1[32];
        snprintf(tasks, sizeof tasks, "%zu -> %zu", g->tasks[0], g->tasks[1]);
        fmt_s(g->mean[0], m0, sizeof m0);
        fmt_s(g->mean[1], m1, sizeof m1);
        /* The change of the mean, relative to the baseline: a dash when either log timed no
         * task in the stage, since a mean of nothing is no time to compare (the text
         * output's ratio is a dash for the same baseline case). */
        if (g->tasks[0] && g->tasks[1] && g->mean[0] > 0)
            snprintf(change, sizeof change, "%+.1f %%", 100.0 * (g->mean[1] - g->mean[0]) / g->mean[0]);
        fmt_s(g->max[0], x0, sizeof x0);
        fmt_s(g->max[1], x1, sizeof x1);
        const char *cells[7] = {g->name, tasks, m0, m1, change, x0, x1};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

static int compare_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct stages_report *r = ctx;
    if (strcmp(it->name, "figure"))
        return lens_template_unknown_item(r->t, r->sec, it, e);
    unsigned char *png = NULL;
    size_t len = 0;
    int rc = lens_pdf_need(r->pdf, lens_pdf_text_width(r->pdf) * FIG_ASPECT + 40, e);
    if (rc == LENS_OK)
        rc = lens_profile_plot_stagecmp_mem(r->in->cmp, r->font_path, &png, &len, e);
    if (rc == LENS_OK)
        rc = place(r, png, len, "compare_caption", e);
    lens_free(png);
    return rc;
}

/* ---- the section table ---- */

static const struct lens_doc_section sections[] = {
    {"title", LENS_DOC_NONE, title_vars, NULL, NULL},
    {"stages", LENS_DOC_NONE, NULL, stages_table, occupancy_block},
    {"compare", LENS_DOC_NONE, compare_vars, compare_table, compare_block},
    {"references", LENS_DOC_NONE, NULL, NULL, NULL},
};

/* Without a baseline the comparison pages are left out whole, heading included. */
static int shown(void *ctx, const char *name)
{
    const struct stages_report *r = ctx;
    return strcmp(name, "compare") || r->in->cmp; /* compare_vars reads cmp: never without it */
}

static const struct lens_doc_kind kind = {"stages_report.tmpl", "Stages of a task runtime", sections,
                                          (int)(sizeof sections / sizeof sections[0]), NULL, shown, NULL};

int lens_stages_report_write(const struct lens_stages_report_opts *o, const struct lens_stages_report_input *in,
                             const char *path, struct lens_err *e)
{
    if (!in->log || !in->stages || !in->points || !in->times || (!in->counts && in->log->nstage))
        return lens_err_set(e, LENS_EINVAL, "%s: stages report: no log, stage rows or occupancy", path);
    /* the comparison's new side must be this log, or the title page and the side-by-side
     * pages would describe two different runs */
    if (in->cmp && in->cmp->log[1] != in->log)
        return lens_err_set(e, LENS_EINVAL, "%s: stages report: the comparison is of another log", path);
    /* no per-input sections: every section is about the whole document (inputs 0) */
    struct stages_report r = {.o = o, .in = in};
    const struct lens_doc d = {.kind = &kind, .datadir = o->datadir, .template_path = o->template_path,
                               .date = o->date, .ninputs = 0, .every = LENS_DOC_NONE, .ctx = &r,
                               .t = &r.t, .sec = &r.sec, .pdf = &r.pdf, .vars = &r.vars,
                               .font_path = r.font_path, .font_path_size = sizeof r.font_path};
    return lens_doc_write(&d, path, e);
}
