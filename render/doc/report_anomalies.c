/* "Anomalies" of the latency-cube report (section anomalies of templates/report.tmpl): the
 * findings of analysis/structure/anomaly.h for the current cube, ranked by robust z, one table row each
 * with its kind, ranks and hosts, lengths, score and evidence; a sentence when there are none
 * or the search failed. */
#include "report_ctx.h"

#include "analysis/structure/structure.h"

#include <stdio.h>
#include <string.h>

/* Column headers: placeholders set from the texts of the same name, empty without rows. */
static const char *const anomaly_columns[] = {"col_rank",    "col_kind",  "col_ranks_hosts",
                                              "col_lengths", "col_score", "col_evidence"};


int lens_report_anomalies_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_structure *st = &lens_report_results(r)->st;
    char buf[800];
    /* The findings come ranked from lens_anomaly_find (through the input's results); a failed
     * search has its reason in st->anomaly_err and gets a sentence instead of a table. */
    int rc, n = st->an ? st->an->n : 0;
    if (st->an) {
        char z[32], link[32], slow[32];
        struct lens_anomaly_opts ao;
        /* The thresholds printed are the defaults, which are the ones lens_structure_report_run
         * searched with: the text tells the reader what a finding had to exceed. */
        lens_anomaly_opts_default(&ao);
        snprintf(z, sizeof z, "%g", ao.z_min);
        snprintf(slow, sizeof slow, "%g", ao.slow_min);
        snprintf(link, sizeof link, "%g", ao.link_min);
        rc = lens_template_vars_setf(&r->vars, e, "nanomalies", "%d", n);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "anomaly_stat", lens_cube_stat_name(st->an->stat), e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "z_min", z, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "slow_min", slow, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "link_min", link, e);
        if (rc == LENS_OK)
            /* three texts so the template can word zero, one and many properly */
            rc = lens_report_text(r, n == 0 ? "none" : n == 1 ? "one" : "some", buf, sizeof buf, e);
    } else {
        rc = lens_template_vars_set(&r->vars, "error", st->anomaly_err.msg, e);
        if (rc == LENS_OK)
            rc = lens_report_text(r, "failed", buf, sizeof buf, e);
    }
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "anomaly_words", buf, e);
    return rc == LENS_OK ? lens_report_headers(r, anomaly_columns, 6, n > 0, e) : rc;
}

/* The ranks a finding is about: "3 -> 17 (node01 -> node03)", "16-23 (node03)", "4 <-> 9". */
void lens_report_finding_ranks(const struct lens_cube *c, const struct lens_anomaly *f, char *buf, size_t n)
{
    buf[0] = '\0';
    if (f->nranks == 0)
        return;
    /* A link has a direction (sender -> receiver); an asymmetric pair compares both directions,
     * hence "<->". Hosts are named once when both ends share one. */
    if (f->kind == LENS_ANOMALY_BAD_LINK || f->kind == LENS_ANOMALY_ASYMMETRIC_PAIR) {
        int s = f->ranks[0], d = f->ranks[1];
        const char *arrow = f->kind == LENS_ANOMALY_BAD_LINK ? "->" : "<->";
        if (!c->hosts)
            snprintf(buf, n, "%d %s %d", s, arrow, d);
        else if (!strcmp(c->hosts[s], c->hosts[d]))
            snprintf(buf, n, "%d %s %d (%s)", s, arrow, d, c->hosts[s]);
        else
            snprintf(buf, n, "%d %s %d (%s %s %s)", s, arrow, d, c->hosts[s], arrow, c->hosts[d]);
        return;
    }
    size_t o = 0;
    for (int i = 0; i < f->nranks;) {
        int j = i;
        /* Runs of consecutive ranks print as ranges, so a slow node of 8 contiguous ranks reads
         * "16-23". */
        while (j + 1 < f->nranks && f->ranks[j + 1] == f->ranks[j] + 1)
            j++;
        char part[48];
        if (j == i)
            snprintf(part, sizeof part, "%s%d", o ? ", " : "", f->ranks[i]);
        else
            snprintf(part, sizeof part, "%s%d-%d", o ? ", " : "", f->ranks[i], f->ranks[j]);
        lens_report_append(buf, n, &o, part);
        i = j + 1;
    }
    /* the host when every rank of the finding is on one */
    int one = c->hosts != NULL;
    for (int i = 1; one && i < f->nranks; i++)
        one = !strcmp(c->hosts[f->ranks[i]], c->hosts[f->ranks[0]]);
    if (one) {
        char part[LENS_REPORT_CELL];
        snprintf(part, sizeof part, " (%s)", c->hosts[f->ranks[0]]);
        lens_report_append(buf, n, &o, part);
    }
}

/* The lengths of a finding: "0..4096 (9/9)" (9 of the 9 lengths) or the list when there are at most 3. */
static void finding_lengths(const struct lens_cube *c, const struct lens_anomaly *f, char *buf, size_t n)
{
    buf[0] = '\0';
    /* More than three lengths print as first..last with how many of the cube's lengths showed the
     * finding: a finding on 9 of 9 lengths is persistent, on 2 of 9 it may be noise. */
    if (f->nlengths > 3) {
        snprintf(buf, n, "%d..%d (%d/%d)", f->lengths[0], f->lengths[f->nlengths - 1], f->nlengths, c->nlen);
        return;
    }
    size_t o = 0;
    for (int i = 0; i < f->nlengths; i++) {
        char part[32];
        snprintf(part, sizeof part, "%s%d", i ? ", " : "", f->lengths[i]);
        lens_report_append(buf, n, &o, part);
    }
}

int lens_report_anomalies_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "ranked"))
        return lens_report_unknown_item(r, it, e);
    /* The page page one cites for this input's anomalies is its heading's; the header and first
     * rows (60 points) are kept together so the table does not leave its header behind. */
    int n = lens_report_results(r)->st.an ? lens_report_results(r)->st.an->n : 0;
    int rc0 = n > 0 ? lens_pdf_need(r->pdf, 60, e) : LENS_OK;
    if (rc0 != LENS_OK)
        return rc0;
    if (r->page_anomalies)
        r->page_anomalies[r->cur] = lens_pdf_heading_page(r->pdf, 2); /* "Anomalies" */
    const struct lens_structure *st = &lens_report_results(r)->st;
    const struct lens_cube *c = lens_report_cube(r);
    int rc = LENS_OK;
    for (int i = 0; rc == LENS_OK && st->an && i < st->an->n; i++) {
        struct lens_anomaly_row row;
        lens_anomaly_row(st->an, i, &row);
        char num[16], kind[64], ranks[LENS_REPORT_CELL], lengths[64], score[32], name[40];
        snprintf(num, sizeof num, "%d", i + 1);
        /* The kind is worded by the template (kind_slow_node, ...), so a translated template
         * translates the table too. */
        snprintf(name, sizeof name, "kind_%s", row.kind);
        if ((rc = lens_report_text(r, name, kind, sizeof kind, e)) != LENS_OK)
            break;
        lens_report_finding_ranks(c, &st->an->items[i], ranks, sizeof ranks);
        finding_lengths(c, &st->an->items[i], lengths, sizeof lengths);
        /* the robust z, one decimal: its order of magnitude is what matters */
        snprintf(score, sizeof score, "%.1f", row.z);
        /* a retested link's verdict closes its evidence, as in `mpilens anomalies`: a column
         * would narrow the evidence of every cube, most of which have no retests */
        char verdict[256], evidence[1400];
        if ((rc = lens_report_retest_finding(r, i, verdict, sizeof verdict, e)) != LENS_OK)
            break;
        snprintf(evidence, sizeof evidence, "%s%s%s", row.text, verdict[0] ? "; " : "", verdict);
        const char *cells[6] = {num, kind, ranks, lengths, score, evidence};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}
