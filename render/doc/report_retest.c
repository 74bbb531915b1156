/* "Retests" of the latency-cube report (section retest of templates/report.tmpl): the cells of
 * a parallel sweep that mpilens-bench --retest measured again alone, each with its verdict
 * (still slow alone: a bad link; fast alone: the sweep's contention), and the wording of that
 * verdict for the anomalies table. Counts and verdicts come finished from the input. */
#include "report_ctx.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The current cube's retests, or NULL (the section is then left out, lens_report_shown). */
static const struct lens_report_retest *retest(const struct lens_report_ctx *r)
{
    return r->cur >= 0 ? r->in[r->cur].retest : NULL;
}

int lens_report_retest_count_vars(struct lens_report_ctx *r, struct lens_err *e)
{
    const struct lens_report_retest *x = retest(r);
    if (!x) /* never worded without retests; the placeholders stay unset */
        return LENS_OK;
    const struct lens_retest_summary *s = &x->s;
    char zmin[16];
    snprintf(zmin, sizeof zmin, "%g", LENS_RETEST_Z);
    /* the counts under names of their own (retest_*), so that page one and the section word
     * them from one set, and no other section's placeholder is overwritten */
    struct lens_template_vars *v = &r->vars;
    int rc = lens_template_vars_setf(v, e, "retest_cells", "%d", s->cells);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "retest_retested", "%d", s->retested);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "retest_persisted", "%d", s->persisted);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "retest_vanished", "%d", s->vanished);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "retest_flagged", "%d", s->flagged);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "retest_flagged_persisted", "%d", s->flagged_survived);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(v, e, "retest_flagged_vanished", "%d", s->flagged - s->flagged_survived);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "retest_z_min", zmin, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "retest_file", lens_report_path_tail(x->rt->path), e);
    return rc;
}

int lens_report_retest_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_report_retest *x = retest(r);
    char words[1200];
    int rc = lens_report_retest_count_vars(r, e);
    if (!x || rc != LENS_OK)
        return rc;
    const struct lens_retest_summary *s = &x->s;
    /* the flagged cells are the findings the retest is for; a file without any (only the K
     * worst, all ordinary) gets its own sentence rather than "0 of 0" */
    if (rc == LENS_OK)
        rc = lens_report_text(r, s->flagged ? "words" : "words_none_flagged", words, sizeof words, e);
    return rc == LENS_OK ? lens_template_vars_set(&r->vars, "retest_words", words, e) : rc;
}

/* "3 -> 1 (vm)" or "3 -> 1 (n01 -> n02)": the retest file names sender and receiver. */
static void link_text(const struct lens_cube *c, int s, int d, char *buf, size_t n)
{
    /* the reader bounds ranks to ints, not to the cube: a file of another run must not index
     * the hosts past their end */
    if (!c->hosts || s >= c->procs || d >= c->procs)
        snprintf(buf, n, "%d -> %d", s, d);
    else if (!strcmp(c->hosts[s], c->hosts[d]))
        snprintf(buf, n, "%d -> %d (%s)", s, d, c->hosts[s]);
    else
        snprintf(buf, n, "%d -> %d (%s -> %s)", s, d, c->hosts[s], c->hosts[d]);
}

/* A robust z with one decimal, "n/a" for the NaN of a cell that timed nothing. */
static void fmt_z(double z, char *buf, size_t n)
{
    if (isfinite(z))
        snprintf(buf, n, "%.1f", z);
    else
        snprintf(buf, n, "n/a");
}

int lens_report_retest_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "cells"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_report_retest *x = retest(r);
    if (!x)
        return LENS_OK;
    /* the page page one cites: the header and first rows are made to fit first */
    int rc = lens_pdf_need(r->pdf, 60, e);
    if (rc != LENS_OK)
        return rc;
    if (r->page_retest)
        r->page_retest[r->cur] = lens_pdf_heading_page(r->pdf, 2); /* "Retests": its heading's page */
    const struct lens_cube *c = lens_report_cube(r);
    char verdict[4][128];
    /* the verdicts worded once by the template: 1 persists, 0 vanished, -1 control; a cell
     * retested only for being among the slowest (role worst), which was never flagged, did
     * not "vanish" when fast alone: it gets its own words (index 3) */
    static const char *const vnames[4] = {"verdict_control", "verdict_vanished", "verdict_persists",
                                          "verdict_worst_vanished"};
    for (int k = 0; k < 4 && rc == LENS_OK; k++)
        rc = lens_report_text(r, vnames[k], verdict[k], sizeof verdict[k], e);
    for (int t = 0; t < x->rt->n && rc == LENS_OK; t++) {
        const struct lens_retest_row *w = &x->rt->rows[t];
        char link[LENS_REPORT_CELL], len[24], first[32], again[32], z[16], rz[16];
        link_text(c, w->sender, w->receiver, link, sizeof link);
        /* delays in µs with three decimals, as every table of the report; a NaN retest (the
         * bench timed nothing) prints n/a */
        snprintf(len, sizeof len, "%d", w->length);
        lens_report_fmt_us(w->first, first, sizeof first);
        lens_report_fmt_us(w->retest, again, sizeof again);
        fmt_z(w->z, z, sizeof z);
        fmt_z(w->retest_z, rz, sizeof rz);
        int k = x->s.verdict[t] == 0 && w->role == LENS_RETEST_WORST ? 3 : x->s.verdict[t] + 1;
        const char *cells[7] = {link, len, first, again, z, rz, verdict[k]};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

int lens_report_retest_finding(struct lens_report_ctx *r, int i, char *buf, size_t n, struct lens_err *e)
{
    buf[0] = '\0';
    const struct lens_report_retest *x = retest(r);
    /* only findings that are one retested link have a verdict (a slow node is many cells) */
    if (!x || !x->finding || x->finding[i] < 0)
        return LENS_OK;
    return lens_report_text(r, x->finding[i] ? "retest_persists" : "retest_vanished", buf, n, e);
}
