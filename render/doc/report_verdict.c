/* The acceptance verdict of `mpilens accept -o` (section "verdict", page one) and the
 * comparison of a cube with its baseline (section "compare"). Both lay out finished results:
 * the verdict worded by lens_accept_describe, the comparison of lens_compare_cubes; the
 * evidence column cites the pages the other sections recorded on the layout pass. */
#include "report_ctx.h"

#include "analysis/accept/accept.h"
#include "analysis/compare/compare.h"
#include "common/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- page one: the verdict ---- */

/* The report input a line's evidence is on: the input named by the line whose kind the
 * metric reads (a sweep for p2p.*, a cube otherwise), or -1 (a bisection run, which has no
 * section). Names are the command-line arguments, shared by both lists. */
static int evidence_input(const struct lens_report_ctx *r, const struct lens_accept_line *l)
{
    if (!l->input || l->source == LENS_CRITERIA_BISECTION)
        return -1;
    for (int i = 0; i < r->nin; i++)
        if (!strcmp(r->in[i].name, l->input) && (l->source == LENS_CRITERIA_P2P ? r->in[i].p2p != NULL
                                                                                : r->in[i].cube != NULL))
            return i;
    return -1;
}

/* The evidence cell: "page 4: Summary, input 1". The page comes from the arrays the
 * sections fill as they draw; on the layout pass they are still 0 and print "99", as wide
 * as any page number of a report under a hundred pages, so that the drawn pass wraps the
 * cell as the layout pass did and no page moves under the numbers it cites. *target is the
 * 0-based index of the cited page for the cell's link, -1 when the cell cites no page (no
 * section, a gated cube, or the layout pass). */
static int evidence_text(struct lens_report_ctx *r, const struct lens_accept_line *l, char *buf, size_t n,
                         int *target, struct lens_err *e)
{
    *target = -1;
    int k = evidence_input(r, l);
    const int *pages = l->source == LENS_CRITERIA_P2P         ? r->page_p2p
                       : l->source == LENS_CRITERIA_ANOMALIES ? r->page_anomalies
                       : l->source == LENS_CRITERIA_COMPARE   ? r->page_compare
                                                              : r->page_summary;
    const char *name = l->source == LENS_CRITERIA_P2P         ? "evidence_p2p"
                       : l->source == LENS_CRITERIA_ANOMALIES ? "evidence_anomalies"
                       : l->source == LENS_CRITERIA_COMPARE   ? "evidence_compare"
                                                              : "evidence_cube";
    /* the section the evidence is in, which a shorter template may leave out */
    const char *sec = l->source == LENS_CRITERIA_P2P         ? "p2p"
                      : l->source == LENS_CRITERIA_ANOMALIES ? "anomalies"
                      : l->source == LENS_CRITERIA_COMPARE   ? "compare"
                                                             : "summary";
    int in_template = 0;
    for (int i = 0; i < r->t->nsections && !in_template; i++)
        in_template = !strcmp(r->t->sections[i].name, sec);
    if (k < 0 || !in_template)
        name = "evidence_none";
    /* anomalies of a cube that failed the data-quality gate are measured but not drawn */
    else if (l->source == LENS_CRITERIA_ANOMALIES && r->in[k].results && r->in[k].results->gated &&
             !r->in[k].results->quality.pass)
        name = "evidence_gated";
    char page[16] = "99";
    if (k >= 0 && pages && pages[k] > 0) {
        snprintf(page, sizeof page, "%d", pages[k]);
        /* only the texts that print ${page} get a link: the others name no page to go to */
        if (strcmp(name, "evidence_none") && strcmp(name, "evidence_gated"))
            *target = pages[k] - 1;
    }
    int rc = lens_template_vars_set(&r->vars, "page", page, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&r->vars, e, "input_index", "%d", k + 1);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "input", l->input ? l->input : "", e);
    return rc == LENS_OK ? lens_report_text(r, name, buf, n, e) : rc;
}

/* The criteria table: one row per criterion in file order, the label (the contract clause)
 * under the criterion in the same cell, so the two cannot be read apart. */
static int verdict_table(struct lens_report_ctx *r, const struct lens_accept_view *v, struct lens_err *e)
{
    static const char *const names[6] = {"col_criterion", "col_limit", "col_measured", "col_margin",
                                         "col_result", "col_evidence"};
    /* widths as fractions of the text width: the numbers are short, the criterion and the
     * evidence take what is left */
    static const double widths[6] = {0, 0.09, 0.14, 0.11, 0.09, 0.22};
    static const int aligns[6] = {LENS_PDF_LEFT, LENS_PDF_RIGHT, LENS_PDF_RIGHT, LENS_PDF_RIGHT, LENS_PDF_CENTER,
                                  LENS_PDF_LEFT};
    /* the headers are template texts, so a translated template translates the table; the
     * table is begun here (not by a template `table` line) because the section is a block
     * that must draw nothing at all without a verdict */
    char heads[6][64];
    struct lens_pdf_column cols[6];
    int rc = LENS_OK;
    for (int i = 0; i < 6 && rc == LENS_OK; i++) {
        rc = lens_report_text(r, names[i], heads[i], sizeof heads[i], e);
        cols[i] = (struct lens_pdf_column){heads[i], aligns[i], widths[i]};
    }
    /* PASS and FAIL as the template words them, once for all rows */
    char pass[32], fail[32];
    if (rc == LENS_OK) rc = lens_report_text(r, "result_pass", pass, sizeof pass, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "result_fail", fail, sizeof fail, e);
    if (rc == LENS_OK) rc = lens_pdf_table_begin(r->pdf, cols, 6, LENS_PDF_SANS, e);
    for (int i = 0; i < v->n && rc == LENS_OK; i++) {
        const struct lens_accept_line *l = &v->line[i];
        char crit[LENS_REPORT_CELL], ev[256];
        /* "\n" breaks the cell's line: the label reads as the clause under its criterion */
        if (l->label)
            snprintf(crit, sizeof crit, "%s\n\xe2\x80\x9c%s\xe2\x80\x9d", l->criterion, l->label);
        else
            snprintf(crit, sizeof crit, "%s", l->criterion);
        int target;
        if ((rc = evidence_text(r, l, ev, sizeof ev, &target, e)) != LENS_OK)
            break;
        /* the numbers come worded by lens_accept_describe: the same strings as the text output */
        const char *cells[6] = {crit, l->limit, l->measured, l->margin, l->pass ? pass : fail, ev};
        rc = lens_pdf_table_row(r->pdf, cells, e);
        /* the evidence text itself is the link to the page it cites (issue 15): the rectangle
         * of the drawn text, known only once the row is laid out */
        struct lens_pdf_rect at;
        if (rc == LENS_OK && target >= 0 && lens_pdf_table_cell_rect(r->pdf, 5, &at))
            rc = lens_pdf_link(r->pdf, &at, target, e);
    }
    return rc == LENS_OK ? lens_pdf_table_end(r->pdf, e) : rc;
}

/* The worst offenders: for each failing criterion, what and where, with the host names the
 * measurement's hosts file gives, so the reader knows which machine to walk to. */
static int offenders(struct lens_report_ctx *r, const struct lens_accept_view *v, struct lens_err *e)
{
    char buf[1024];
    int rc = lens_report_text(r, "offenders_heading", buf, sizeof buf, e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(r->pdf, 2, buf, e);
    for (int i = 0; i < v->n && rc == LENS_OK; i++) {
        const struct lens_accept_line *l = &v->line[i];
        if (l->pass)
            continue;
        /* the clause when the contract names one, else the criterion as parsed */
        rc = lens_template_vars_set(&r->vars, "clause", l->label ? l->label : l->criterion, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "where", l->where, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "hosts", l->hosts, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "measured", l->measured, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "limit", l->limit, e);
        if (rc == LENS_OK)
            rc = lens_report_text(r, l->hosts[0] ? "offender_hosts" : "offender", buf, sizeof buf, e);
        if (rc == LENS_OK) {
            char line[1100];
            snprintf(line, sizeof line, "\xe2\x80\xa2 %s", buf);
            rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 10, LENS_PDF_LEFT, 8, line, e);
            lens_pdf_space(r->pdf, 2);
        }
    }
    if (rc == LENS_OK && !v->failed && (rc = lens_report_text(r, "no_offenders", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_paragraph(r->pdf, buf, e);
    return rc;
}

int lens_report_verdict_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "verdict"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_accept_view *v = r->o->verdict;
    /* `mpilens report` has no verdict: nothing is drawn, not even a heading, so its PDF
     * stays byte for byte what it was before this section existed */
    if (!v)
        return LENS_OK;
    char buf[2048];
    /* the counts and the contract's name for the summary sentence under PASS / FAIL */
    int rc = lens_template_vars_setf(&r->vars, e, "failed", "%d", v->failed);
    if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "ncriteria", "%d", v->n);
    if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "criteria", v->criteria ? v->criteria : "", e);
    if (rc == LENS_OK) rc = lens_report_text(r, "heading", buf, sizeof buf, e);
    if (rc == LENS_OK) rc = lens_pdf_heading(r->pdf, 1, buf, e);
    /* the answer in large type first: PASS or FAIL is what the page is for */
    if (rc == LENS_OK) rc = lens_report_text(r, v->failed ? "fail" : "pass", buf, sizeof buf, e);
    if (rc == LENS_OK) rc = lens_pdf_text(r->pdf, LENS_PDF_BOLD, 40, LENS_PDF_CENTER, 0, buf, e);
    if (rc == LENS_OK) {
        lens_pdf_space(r->pdf, 6);
        rc = lens_report_text(r, "summary", buf, sizeof buf, e);
    }
    if (rc == LENS_OK) rc = lens_pdf_paragraph(r->pdf, buf, e);
    if (rc == LENS_OK) {
        lens_pdf_space(r->pdf, 4);
        rc = verdict_table(r, v, e);
    }
    /* how to read the margin column, in small print right under the table it explains */
    if (rc == LENS_OK && (rc = lens_report_text(r, "margin_note", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, buf, e);
    if (rc == LENS_OK)
        rc = offenders(r, v, e);
    /* the report proper starts on the next page: page one is the verdict alone */
    return rc == LENS_OK ? lens_pdf_new_page(r->pdf, e) : rc;
}

/* ---- the comparison with the baseline (one per cube) ---- */

static const char *const cmp_columns[7] = {"cmp_col_kind", "cmp_col_direction", "cmp_col_ranks", "cmp_col_hosts",
                                           "cmp_col_lengths", "cmp_col_ratio", "cmp_col_p"};

int lens_report_compare_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    /* shown only for a cube with a comparison (lens_report_verdict_shown), so c is set */
    const struct lens_compare *c = r->in[r->cur].compare;
    /* the slower findings are what compare.regressions counts: the prose gives the same
     * number the verdict page judged */
    int slower = 0;
    for (int i = 0; i < c->nfind; i++)
        slower += c->find[i].direction > 0;
    /* the numbers the verdict of the comparison rests on, as `mpilens compare` prints them */
    struct lens_template_vars *v = &r->vars;
    int rc = lens_template_vars_set(v, "baseline", r->in[r->cur].baseline ? r->in[r->cur].baseline : "", e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "verdict", lens_compare_verdict_name(c->verdict), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "matched_by", c->matched_by_host ? "host and local rank" : "rank number", e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "cmp_procs", "%d", c->procs);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "cmp_lengths", "%d", c->nlen);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "tests", "%lld", c->tests);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "significant", "%lld", c->significant);
    char thr[64];
    lens_units_num(c->threshold, 3, thr, sizeof thr); /* the BH threshold can be 4.84×10^-156 */
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "threshold", thr, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nslower", "%d", slower);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nfaster", "%d", c->nfind - slower);
    /* no findings: empty headers, and the table vanishes instead of showing bare columns */
    return rc == LENS_OK ? lens_report_headers(r, cmp_columns, 7, c->nfind > 0, e) : rc;
}

/* The ranks of a finding: a link as "sender -> receiver", the machine as "all N", a node or
 * a structure change as its list of ranks (cut with "..." when long). */
static void finding_ranks(const struct lens_compare_finding *f, char *buf, size_t n)
{
    size_t o = 0;
    char part[32];
    buf[0] = '\0';
    if (f->kind == LENS_COMPARE_LINK && f->nranks == 2) {
        snprintf(buf, n, "%d -> %d", f->ranks[0], f->ranks[1]);
        return;
    }
    if (f->kind == LENS_COMPARE_MACHINE) {
        snprintf(buf, n, "all %d", f->nranks);
        return;
    }
    for (int i = 0; i < f->nranks; i++) {
        snprintf(part, sizeof part, "%s%d", i ? ", " : "", f->ranks[i]);
        lens_report_append(buf, n, &o, part);
    }
}

int lens_report_compare_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "findings"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_compare *c = r->in[r->cur].compare;
    /* the header and first rows fit before the page is recorded, as the anomalies table does */
    int rc = c->nfind > 0 ? lens_pdf_need(r->pdf, 60, e) : LENS_OK;
    if (rc == LENS_OK && r->page_compare)
        r->page_compare[r->cur] = lens_pdf_page_count(r->pdf);
    for (int i = 0; i < c->nfind && rc == LENS_OK; i++) {
        const struct lens_compare_finding *f = &c->find[i];
        char ranks[LENS_REPORT_CELL], hosts[LENS_REPORT_CELL], lengths[LENS_REPORT_CELL], ratio[32], p[32], part[64];
        size_t o = 0;
        finding_ranks(f, ranks, sizeof ranks);
        hosts[0] = lengths[0] = '\0';
        /* a link's two hosts in its direction; the machine is every host, which says nothing */
        for (int h = 0; h < f->nhosts && f->kind != LENS_COMPARE_MACHINE; h++) {
            snprintf(part, sizeof part, "%s%s", h ? (f->kind == LENS_COMPARE_LINK ? " -> " : ", ") : "", f->hosts[h]);
            lens_report_append(hosts, sizeof hosts, &o, part);
        }
        o = 0;
        for (int k = 0; k < f->nlengths; k++) {
            snprintf(part, sizeof part, "%s%d", k ? ", " : "", f->lengths[k]);
            lens_report_append(lengths, sizeof lengths, &o, part);
        }
        /* NEW / BASE with three decimals, as `mpilens compare` prints it */
        snprintf(ratio, sizeof ratio, "%.3fx", f->ratio);
        /* a structure finding has no test behind it: a dash, not a made-up number */
        if (isnan(f->p))
            snprintf(p, sizeof p, "-");
        else
            lens_units_num(f->p, 2, p, sizeof p); /* 2 digits; "6.1×10^-209", never "6.1e-209" */
        const char *cells[7] = {lens_compare_kind_name(f->kind), f->direction > 0 ? "slower" : "faster", ranks, hosts,
                                lengths, ratio, p};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

int lens_report_verdict_shown(void *ctx, const char *name)
{
    struct lens_report_ctx *r = ctx;
    /* the comparison exists only for a cube given a baseline (accept --baseline) */
    if (!strcmp(name, "compare"))
        return r->cur >= 0 && r->in[r->cur].compare != NULL;
    return lens_report_shown(ctx, name);
}
