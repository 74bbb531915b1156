/* Page one of the latency-cube report and its data-quality gate (sections answer and gate of
 * templates/report.tmpl): what was measured, the key numbers, whether the data can carry a
 * structure at all, the findings and what to do next. Everything comes finished from the
 * input's results (lens_structure_report_run_gated); the texts come from the template. */
#include "common/units.h"
#include "report_ctx.h"

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The gate's reasons in the order they are worded: bit, text of the reason, text of the advice. */
static const struct {
    unsigned bit;
    const char *reason, *advice;
} reasons[] = {
    {LENS_QUALITY_NOISY, "reason_noisy", "advice_noisy"},
    {LENS_QUALITY_FEW_REPEATS, "reason_repeats", "advice_repeats"},
    {LENS_QUALITY_OVERSUBSCRIBED, "reason_oversubscribed", "advice_oversubscribed"},
    {LENS_QUALITY_TIMER, "reason_timer", "advice_timer"},
    {LENS_QUALITY_ONE_HOST, "reason_one_host", "advice_one_host"},
};
#define NREASONS ((int)(sizeof reasons / sizeof reasons[0]))

/* The template section called name (its texts are shared by the answer and the gate), or NULL. */
static const struct lens_template_section *section_named(const struct lens_report_ctx *r, const char *name)
{
    for (int i = 0; i < r->t->nsections; i++)
        if (!strcmp(r->t->sections[i].name, name))
            return &r->t->sections[i];
    return NULL;
}

/* A text of the gate section expanded with the current placeholders, wherever it is called from:
 * page one words the verdict with the same sentences as the gate section. */
static int gate_text(struct lens_report_ctx *r, const char *name, char *buf, size_t n, struct lens_err *e)
{
    const struct lens_template_section *g = section_named(r, "gate");
    if (!g)
        return lens_err_set(e, LENS_EFORMAT, "%s: page one words the data-quality gate with the texts of "
                            "section 'gate', which this template lacks", r->t->path);
    char *s = NULL;
    int rc = lens_template_text(r->t, g, name, &r->vars, &s, e);
    if (rc == LENS_OK)
        snprintf(buf, n, "%s", s);
    lens_free(s);
    return rc;
}

static const struct lens_quality *quality(const struct lens_report_ctx *r)
{
    const struct lens_structure_report *res = lens_report_results(r);
    return res && res->gated ? &res->quality : NULL;
}

/* A ratio for the prose: "2.33", or "not recorded" when the cube has no deviation. */
static void fmt_ratio(double x, char *buf, size_t n)
{
    if (isfinite(x))
        snprintf(buf, n, "%.2f", x);
    else
        snprintf(buf, n, "not recorded");
}

int lens_report_gate_vars(struct lens_report_ctx *r, struct lens_err *e)
{
    const struct lens_quality *q = quality(r);
    struct lens_quality none;
    /* an ungated cube (a caller of lens_structure_report_run) still gets every placeholder */
    if (!q) {
        memset(&none, 0, sizeof none);
        lens_quality_opts_default(&none.opts);
        none.spread = none.p90_spread = none.first_median = NAN;
        q = &none;
    }
    /* Numbers as the prose prints them: ratios with two decimals, delays in microseconds with
     * three (as the tables), the limit as given (0.5, not 0.50). */
    char sp[32], p90[32], mx[32], med[32], floor_us[32];
    fmt_ratio(q->spread, sp, sizeof sp);
    fmt_ratio(q->p90_spread, p90, sizeof p90);
    snprintf(mx, sizeof mx, "%g", q->opts.max_spread);
    lens_report_fmt_us(q->first_median, med, sizeof med);
    lens_report_fmt_us(q->opts.min_ticks * q->opts.tick, floor_us, sizeof floor_us);
    /* Set for every cube, passed or not: page one and the gate section word both verdicts, and a
     * template may name any of these in any text of the group. */
    struct lens_template_vars *v = &r->vars;
    int rc = lens_template_vars_set(v, "spread", sp, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "p90_spread", p90, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "max_spread", mx, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "min_repeats", "%d", q->opts.min_repeats);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "max_per_host", "%d", q->max_per_host);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "busiest_host", q->busiest_host ? q->busiest_host : "", e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "cores", "%d", q->cores);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "first_median", med, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "timer_floor", floor_us, e);
    /* Which cores the oversubscription check used, worded by the gate's texts: cores_from
     * first, as cores_known names it. A template without a gate section has no use for them
     * (and gate_text would fail): they are left empty. */
    char from[256] = "", words[512] = "";
    if (rc == LENS_OK && section_named(r, "gate")) {
        if (q->cores > 0) {
            rc = gate_text(r, q->cores_source == LENS_QUALITY_CORES_RECORDED ? "cores_recorded" : "cores_option", from,
                           sizeof from, e);
            if (rc == LENS_OK) rc = lens_template_vars_set(v, "cores_from", from, e);
            if (rc == LENS_OK) rc = gate_text(r, "cores_known", words, sizeof words, e);
        } else
            rc = gate_text(r, "cores_unknown", words, sizeof words, e);
    }
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "cores_from", from, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "cores_words", words, e);
    return rc;
}

/* The verdict of a cube that failed: the box's title and its body (every reason, then what to
 * measure instead), from the gate's texts. */
static int failed_words(struct lens_report_ctx *r, const struct lens_quality *q, char *title, size_t tn, char *body,
                        size_t bn, struct lens_err *e)
{
    /* Bounded like every cell of the report: lens_report_append ends a text that does not fit
     * with "...", so five long reasons cannot overrun (they fit with room to spare). */
    char why[2048] = "", advice[2048] = "", part[600];
    size_t wo = 0, ao = 0;
    int rc = gate_text(r, "box_title", title, tn, e);
    for (int i = 0; i < NREASONS && rc == LENS_OK; i++) {
        if (!(q->reasons & reasons[i].bit))
            continue;
        /* reasons joined by "; " into one sentence, advice by " " as separate sentences */
        if ((rc = gate_text(r, reasons[i].reason, part, sizeof part, e)) != LENS_OK)
            break;
        lens_report_append(why, sizeof why, &wo, wo ? "; " : "");
        lens_report_append(why, sizeof why, &wo, part);
        if ((rc = gate_text(r, reasons[i].advice, part, sizeof part, e)) != LENS_OK)
            break;
        lens_report_append(advice, sizeof advice, &ao, ao ? " " : "");
        lens_report_append(advice, sizeof advice, &ao, part);
    }
    /* the box's body text names ${reasons} and ${advice}: set them last, from what was found */
    if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "reasons", why, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "advice", advice, e);
    return rc == LENS_OK ? gate_text(r, "box_body", body, bn, e) : rc;
}

/* The verdict drawn: the box for a cube that failed, one line for one that passed, nothing for a
 * cube the gate was not run on. */
static int draw_verdict(struct lens_report_ctx *r, struct lens_err *e)
{
    const struct lens_quality *q = quality(r);
    if (!q)
        return LENS_OK;
    char title[512], body[4096];
    /* A pass is one plain line: a box is kept for what the reader must not miss. */
    if (q->pass) {
        int rc = gate_text(r, "passed", body, sizeof body, e);
        return rc == LENS_OK ? lens_pdf_paragraph(r->pdf, body, e) : rc;
    }
    int rc = failed_words(r, q, title, sizeof title, body, sizeof body, e);
    return rc == LENS_OK ? lens_pdf_box(r->pdf, title, body, e) : rc;
}

int lens_report_gate_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "verdict"))
        return lens_report_unknown_item(r, it, e);
    return draw_verdict(r, e);
}

/* Structure and anomalies are left out whole for a cube that failed the gate: their groups,
 * trees and rankings would be drawn from noise (docs/report.md, "The data-quality gate"). */
int lens_report_shown(void *ctx, const char *name)
{
    struct lens_report_ctx *r = ctx;
    /* a bisection run cites no work: a report of bisection runs alone has no reference list,
     * rather than a heading over nothing */
    if (r->cur < 0 && !strcmp(name, "references")) {
        int cited = 0;
        for (int i = 0; i < r->nin; i++)
            cited |= !r->in[i].bisection;
        return cited;
    }
    /* document sections and sweeps are never left out: the gate is about one cube */
    if (r->cur < 0 || !r->in[r->cur].cube)
        return 1;
    /* the retests section exists only for a cube with PREFIX_retest.csv beside it */
    if (!strcmp(name, "retest") && !r->in[r->cur].retest)
        return 0;
    const struct lens_quality *q = quality(r);
    return !(q && !q->pass && (!strcmp(name, "structure") || !strcmp(name, "anomalies")));
}

/* ---- page one ---- */

int lens_report_answer_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_cube *c = lens_report_cube(r);
    const struct lens_quality *q = quality(r);
    const struct lens_structure *st = &lens_report_results(r)->st;
    char next[2048];
    int rc = lens_template_vars_setf(&r->vars, e, "len_first", "%d", c->lengths[0]);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&r->vars, e, "len_last", "%d", c->lengths[c->nlen - 1]);
    /* What to do next depends on the verdict: re-measure (the box says how), look into the
     * findings, or nothing to fix. */
    if (rc == LENS_OK)
        rc = lens_report_text(r, q && !q->pass ? "next_failed" : st->an && st->an->n > 0 ? "next_anomalies" : "next_clean",
                              next, sizeof next, e);
    return rc == LENS_OK ? lens_template_vars_set(&r->vars, "next", next, e) : rc;
}

/* "12.345 (3 -> 17)": the slowest pair's delay at length k and who it is, sender first when the
 * mode says which is the sender (as the summary table writes it). */
static void worst_cell(const struct lens_cube *c, const struct lens_structure_report_length *l, char *buf, size_t n)
{
    char us[32];
    if (l->slow_row < 0) {
        snprintf(buf, n, "n/a");
        return;
    }
    int recv_row = lens_report_direction(c->mode) == 1;
    int from = recv_row ? l->slow_col : l->slow_row, to = recv_row ? l->slow_row : l->slow_col;
    lens_report_fmt_us(l->s.max, us, sizeof us);
    snprintf(buf, n, "%s (%d -> %d)", us, from, to);
}

/* The first sweep among the inputs, or NULL: its latency and bandwidth join page one, in the
 * key numbers of the first cube only (the sweep is about the machine, not about one cube). */
static const struct lens_p2pfile *first_sweep(const struct lens_report_ctx *r)
{
    for (int i = 0; i < r->cur; i++)
        if (r->in[i].cube)
            return NULL;
    for (int i = 0; i < r->nin; i++)
        if (r->in[i].p2p && r->in[i].p2p->npairs > 0 && r->in[i].p2p->pair[0].nsize > 0)
            return r->in[i].p2p;
    return NULL;
}

static int provenance_table(struct lens_report_ctx *r, struct lens_err *e); /* below, with its rows */

int lens_report_answer_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (!strcmp(it->name, "provenance"))
        return provenance_table(r, e);
    if (strcmp(it->name, "key"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_cube *c = lens_report_cube(r);
    const struct lens_structure_report *res = lens_report_results(r);
    /* The smallest length shows latency, the largest the bandwidth's share: the two columns are
     * the two ends of the cube, as the heatmaps' first and last figures. */
    const struct lens_structure_report_length *a = &res->len[0], *b = &res->len[c->nlen - 1];
    char label[256], x[64], y[64];
    int rc = LENS_OK;
    /* within and between hosts: the two levels every cluster has; only rows that have a value */
    if (isfinite(a->intra_median) || isfinite(b->intra_median)) {
        lens_report_fmt_us(a->intra_median, x, sizeof x);
        lens_report_fmt_us(b->intra_median, y, sizeof y);
        if ((rc = lens_report_text(r, "row_intra", label, sizeof label, e)) == LENS_OK)
            rc = lens_pdf_table_row(r->pdf, (const char *const[]){label, x, y}, e);
    }
    if (rc == LENS_OK && (isfinite(a->inter_median) || isfinite(b->inter_median))) {
        lens_report_fmt_us(a->inter_median, x, sizeof x);
        lens_report_fmt_us(b->inter_median, y, sizeof y);
        if ((rc = lens_report_text(r, "row_inter", label, sizeof label, e)) == LENS_OK)
            rc = lens_pdf_table_row(r->pdf, (const char *const[]){label, x, y}, e);
    }
    if (rc == LENS_OK) {
        lens_report_fmt_us(a->s.median, x, sizeof x);
        lens_report_fmt_us(b->s.median, y, sizeof y);
        if ((rc = lens_report_text(r, "row_all", label, sizeof label, e)) == LENS_OK)
            rc = lens_pdf_table_row(r->pdf, (const char *const[]){label, x, y}, e);
    }
    /* The slowest pair may differ between the two lengths; each cell names its own. */
    if (rc == LENS_OK) {
        worst_cell(c, a, x, sizeof x);
        worst_cell(c, b, y, sizeof y);
        if ((rc = lens_report_text(r, "row_worst", label, sizeof label, e)) == LENS_OK)
            rc = lens_pdf_table_row(r->pdf, (const char *const[]){label, x, y}, e);
    }
    /* Asymmetry at both ends, median and max over the pairs: whether the direction of a
     * link matters, and for which messages (docs/methods.md §1) */
    if (rc == LENS_OK && (isfinite(a->asym_median) || isfinite(b->asym_median))) {
        snprintf(x, sizeof x, "%.1f %% (max %.0f %%)", 100 * a->asym_median, 100 * a->asym_max);
        snprintf(y, sizeof y, "%.1f %% (max %.0f %%)", 100 * b->asym_median, 100 * b->asym_max);
        if ((rc = lens_report_text(r, "row_asym", label, sizeof label, e)) == LENS_OK)
            rc = lens_pdf_table_row(r->pdf, (const char *const[]){label, x, y}, e);
    }
    const struct lens_p2pfile *p = first_sweep(r);
    if (rc == LENS_OK && p) {
        /* The sweep's own sizes, not the cube's: the smallest message's median one-way latency
         * and the largest median bandwidth over the sizes of the first pair (MB/s, 10^6 B/s). */
        const struct lens_p2p_pair *pp = &p->pair[0];
        double peak = NAN;
        long long at = 0;
        /* "!(v <= peak)" takes the first finite value while peak is still NaN, then only larger
         * ones: the first size of equal peaks is named */
        for (int i = 0; i < pp->nsize; i++)
            if (isfinite(pp->pt[i].bandwidth_median_Bps) && !(pp->pt[i].bandwidth_median_Bps <= peak)) {
                peak = pp->pt[i].bandwidth_median_Bps;
                at = pp->pt[i].size_bytes;
            }
        /* sizes are increasing (lens_p2pfile_read checks it): pt[0] is the smallest message */
        lens_report_fmt_us(pp->pt[0].latency_median_s, x, sizeof x);
        rc = lens_template_vars_set(&r->vars, "p2p_pair", pp->label, e);
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "p2p_size", "%lld", pp->pt[0].size_bytes);
        if (rc == LENS_OK) rc = lens_report_text(r, "row_p2p_latency", label, sizeof label, e);
        if (rc == LENS_OK) rc = lens_pdf_table_row(r->pdf, (const char *const[]){label, x, ""}, e);
        if (isfinite(peak))
            lens_units_si(peak, "B/s", y, sizeof y); /* "9.100 GB/s": the prefix by magnitude */
        else
            snprintf(y, sizeof y, "n/a");
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "p2p_peak_size", "%lld", at);
        if (rc == LENS_OK) rc = lens_report_text(r, "row_p2p_bandwidth", label, sizeof label, e);
        if (rc == LENS_OK) rc = lens_pdf_table_row(r->pdf, (const char *const[]){label, "", y}, e);
    }
    return rc;
}

/* ---- provenance: what the input is and how it was measured (docs/report.md) ---- */

/* One row "label | value" of the provenance table, the label a text of the section. */
static int prov_row(struct lens_report_ctx *r, const char *label_text, const char *value, struct lens_err *e)
{
    char label[256];
    int rc = lens_report_text(r, label_text, label, sizeof label, e);
    return rc == LENS_OK ? lens_pdf_table_row(r->pdf, (const char *const[]){label, value}, e) : rc;
}

/* What the cube is, by the attributes its writer left: mpilens-bench's tool, synth's source
 * (or, in files written before synth wrote one, its generator), none at all for a file of
 * network_test2 itself. */
static int prov_kind(struct lens_report_ctx *r, const struct lens_cube *c, const struct lens_cube_provenance *p,
                     char *buf, size_t n, struct lens_err *e)
{
    if (p && p->source && !strncmp(p->source, "synthetic", 9)) {
        snprintf(buf, n, "%s", p->source);
        return LENS_OK;
    }
    if (p && p->generator && !strcmp(p->generator, "mpilens synth")) {
        snprintf(buf, n, "synthetic (mpilens synth)");
        return LENS_OK;
    }
    const char *t = p && p->tool && !strcmp(p->tool, "mpilens-bench") ? "prov_kind_bench"
                    : c->format && !strcmp(c->format, "packed")      ? "prov_kind_packed"
                    : c->written_by_mpilens                         ? "prov_kind_mpilens"
                                                                    : "prov_kind_nt2";
    return lens_report_text(r, t, buf, n, e);
}

/* "average, median, min; deviation: missing — spreads cannot be shown ...": every statistic
 * the report could draw, present or not, so a missing _deviation.nc is said, not silent. */
static int prov_stats(struct lens_report_ctx *r, const struct lens_cube *c, char *buf, size_t n, struct lens_err *e)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (c->data[s]) {
            lens_report_append(buf, n, &o, o ? ", " : "");
            lens_report_append(buf, n, &o, lens_cube_stat_name(s));
        }
    int rc = LENS_OK;
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
        if (c->data[s])
            continue;
        char name[64], cons[256], line[512];
        snprintf(name, sizeof name, "consequence_%s", lens_cube_stat_name(s));
        rc = lens_report_text(r, name, cons, sizeof cons, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "missing", lens_cube_stat_name(s), e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "consequence", cons, e);
        if (rc == LENS_OK) rc = lens_report_text(r, "prov_missing", line, sizeof line, e);
        if (rc == LENS_OK) {
            lens_report_append(buf, n, &o, o ? "; " : "");
            lens_report_append(buf, n, &o, line);
        }
    }
    return rc;
}

static int provenance_table(struct lens_report_ctx *r, struct lens_err *e)
{
    const struct lens_cube *c = lens_report_cube(r);
    const struct lens_cube_provenance *p = r->in[r->cur].prov;
    char v[1024], nr[128];
    int rc = lens_report_text(r, "prov_not_recorded", nr, sizeof nr, e);
    if (rc == LENS_OK) rc = prov_kind(r, c, p, v, sizeof v, e);
    if (rc == LENS_OK) rc = prov_row(r, "prov_kind", v, e);
    /* the measurement's start when the bench recorded it; else only the files' date, said as
     * such: a converted cube's date is the conversion's, not the measurement's */
    if (rc == LENS_OK && p && p->measured_at)
        snprintf(v, sizeof v, "%s", p->measured_at);
    else if (rc == LENS_OK && p && p->date && !(p->generator || p->source)) {
        rc = lens_template_vars_set(&r->vars, "prov_date", p->date, e);
        if (rc == LENS_OK) rc = lens_report_text(r, "prov_written", v, sizeof v, e);
    } else if (rc == LENS_OK && p && (p->generator || p->source))
        rc = lens_report_text(r, "prov_not_measured", v, sizeof v, e);
    else
        snprintf(v, sizeof v, "%s", nr);
    if (rc == LENS_OK) rc = prov_row(r, "prov_measured", v, e);
    if (rc == LENS_OK) rc = prov_row(r, "prov_mpi", p && p->mpi ? p->mpi : nr, e);
    if (rc == LENS_OK) {
        if (p && (p->launcher || p->binding))
            snprintf(v, sizeof v, "%s; %s", p->launcher ? p->launcher : nr, p->binding ? p->binding : nr);
        else
            snprintf(v, sizeof v, "%s", nr);
        rc = prov_row(r, "prov_launcher", v, e);
    }
    if (rc == LENS_OK) {
        snprintf(v, sizeof v, "%d", c->procs);
        rc = prov_row(r, "prov_ranks", v, e);
    }
    if (rc == LENS_OK) {
        /* ${nhosts} was set with the input's placeholders (distinct host names) */
        const char *nh = lens_template_vars_get(&r->vars, "nhosts");
        rc = prov_row(r, "prov_hosts", c->hosts && nh ? nh : nr, e);
    }
    if (rc == LENS_OK && p && p->cores_per_host)
        rc = prov_row(r, "prov_cores", p->cores_per_host, e);
    else if (rc == LENS_OK && (rc = lens_report_text(r, "prov_cores_missing", v, sizeof v, e)) == LENS_OK)
        rc = prov_row(r, "prov_cores", v, e);
    if (rc == LENS_OK) {
        snprintf(v, sizeof v, "%d", c->repeats);
        rc = prov_row(r, "prov_repeats", v, e);
    }
    if (rc == LENS_OK) rc = prov_stats(r, c, v, sizeof v, e);
    if (rc == LENS_OK) rc = prov_row(r, "prov_stats", v, e);
    return rc;
}

/* One bullet line of the findings. page is the 1-based page the bullet cites ("see page N"),
 * 0 for none (the layout pass, which does not know the pages yet): the bullet's text is then
 * a link to it. */
static int bullet(struct lens_report_ctx *r, const char *text, int page, struct lens_err *e)
{
    char line[2048];
    snprintf(line, sizeof line, "• %s", text);
    int rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 10, LENS_PDF_LEFT, 8, line, e);
    struct lens_pdf_rect at;
    if (rc == LENS_OK && page > 0 && lens_pdf_text_rect(r->pdf, &at))
        rc = lens_pdf_link(r->pdf, &at, page - 1, e);
    lens_pdf_space(r->pdf, 2);
    return rc;
}

/* The findings of a cube that passed: the groups the cut left, then the three strongest
 * anomalies, each naming the section of this input that shows it in full. */
static int passed_findings(struct lens_report_ctx *r, struct lens_err *e)
{
    const struct lens_structure *st = &lens_report_results(r)->st;
    const struct lens_cube *c = lens_report_cube(r);
    char buf[1024];
    int rc = LENS_OK;
    /* "?" on the layout pass, which runs before the pages are known; the drawn pass has them */
    int ps = r->page_structure ? r->page_structure[r->cur] : 0, pa = r->page_anomalies ? r->page_anomalies[r->cur] : 0;
    char sp[16] = "?", ap[16] = "?";
    if (ps > 0)
        snprintf(sp, sizeof sp, "%d", ps);
    if (pa > 0)
        snprintf(ap, sizeof ap, "%d", pa);
    rc = lens_template_vars_set(&r->vars, "page_structure", sp, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "page_anomalies", ap, e);
    if (rc == LENS_OK && st->z) {
        rc = lens_template_vars_setf(&r->vars, e, "ngroups", "%d", st->k > 0 ? st->k : 1);
        if (rc == LENS_OK) rc = lens_report_text(r, "finding_groups", buf, sizeof buf, e);
        if (rc == LENS_OK) rc = bullet(r, buf, ps, e);
    }
    /* Three findings at most: page one points at the ranking, the Anomalies section lists all;
     * they come ranked by score, so these are the strongest. */
    int n = st->an ? st->an->n : 0;
    for (int i = 0; i < n && i < 3 && rc == LENS_OK; i++) {
        struct lens_anomaly_row row;
        char ranks[LENS_REPORT_CELL], name[48], kind[64];
        lens_anomaly_row(st->an, i, &row);
        lens_report_finding_ranks(c, &st->an->items[i], ranks, sizeof ranks);
        /* the kind worded by the template (kind_bad_link, ...), as the Anomalies table does */
        snprintf(name, sizeof name, "kind_%s", row.kind);
        rc = lens_report_text(r, name, kind, sizeof kind, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "kind", kind, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "ranks", ranks, e);
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "score", "%.1f", row.z);
        if (rc == LENS_OK) rc = lens_report_text(r, "finding_anomaly", buf, sizeof buf, e);
        if (rc == LENS_OK) rc = bullet(r, buf, pa, e);
    }
    if (rc == LENS_OK && st->an && n == 0 && (rc = lens_report_text(r, "finding_no_anomaly", buf, sizeof buf, e)) == LENS_OK)
        rc = bullet(r, buf, pa, e);
    return rc;
}

/* A page a section of input i was recorded on, or "?" on the layout pass (not known yet). */
static int page_var(struct lens_report_ctx *r, const char *name, const int *pages, int i, struct lens_err *e)
{
    char p[16] = "?";
    if (pages && pages[i] > 0)
        snprintf(p, sizeof p, "%d", pages[i]);
    return lens_template_vars_set(&r->vars, name, p, e);
}

/* One line each, after the findings and whatever the gate said (both are measurements of
 * their own): the retest counts of this cube, and on the first cube's page one the first
 * bisection run's min and average. */
static int side_findings(struct lens_report_ctx *r, struct lens_err *e)
{
    char buf[1024];
    int rc = LENS_OK, bi = -1;
    if (r->in[r->cur].retest) {
        rc = lens_report_retest_count_vars(r, e);
        if (rc == LENS_OK) rc = page_var(r, "page_retest", r->page_retest, r->cur, e);
        if (rc == LENS_OK) rc = lens_report_text(r, "finding_retest", buf, sizeof buf, e);
        if (rc == LENS_OK) rc = bullet(r, buf, r->page_retest ? r->page_retest[r->cur] : 0, e);
    }
    const struct lens_bisection_detail *d = lens_report_bisection_first(r, &bi);
    if (rc == LENS_OK && d) {
        char mn[32], av[32];
        lens_report_fmt_GBps(d->s.min_Bps, mn, sizeof mn);
        lens_report_fmt_GBps(d->s.avg_Bps, av, sizeof av);
        rc = lens_template_vars_set(&r->vars, "bis_input", lens_report_label(&r->in[bi]), e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "bis_min", mn, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "bis_avg", av, e);
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "bis_rounds", "%d", d->s.rounds);
        if (rc == LENS_OK) rc = page_var(r, "page_bisection", r->page_bisection, bi, e);
        if (rc == LENS_OK) rc = lens_report_text(r, "finding_bisection", buf, sizeof buf, e);
        if (rc == LENS_OK) rc = bullet(r, buf, r->page_bisection ? r->page_bisection[bi] : 0, e);
    }
    return rc;
}

int lens_report_answer_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "findings"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_quality *q = quality(r);
    /* A cube that failed the gate has no findings to list: the box says why and what to do. */
    int rc = q && !q->pass ? draw_verdict(r, e) : passed_findings(r, e);
    return rc == LENS_OK ? side_findings(r, e) : rc;
}
