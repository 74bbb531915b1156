/* "Bisection bandwidth" of the latency-cube report (section bisection of
 * templates/report.tmpl): one bisection run of mpilens-bench -t bisection, laid out from
 * lens_bisection_detail_read's results: the rounds' aggregate bandwidth (a strip plot and its
 * min, median, mean and max), the slowest links with their hosts, and each node's share. */
#include "common/units.h"
#include "report_ctx.h"

#include "render/fig/fig.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Links listed: the table points at the few worth a look, the .nc has every flow. */
#define SLOWEST_LINKS 8

const struct lens_bisection_detail *lens_report_bisection(const struct lens_report_ctx *r)
{
    return r->cur >= 0 ? r->in[r->cur].bisection : NULL;
}

const struct lens_bisection_detail *lens_report_bisection_first(const struct lens_report_ctx *r, int *index)
{
    /* page one of the first cube only: the run is about the machine, not about one cube */
    for (int i = 0; i < r->cur; i++)
        if (r->in[i].cube)
            return NULL;
    for (int i = 0; i < r->nin; i++)
        if (r->in[i].bisection) {
            *index = i;
            return r->in[i].bisection;
        }
    return NULL;
}

void lens_report_fmt_GBps(double Bps, char *buf, size_t n)
{
    /* three significant digits in fixed notation ("12.0", not %g's "12"), so that every figure
     * of the section reads to the same precision as accept's limits are usually written */
    lens_units_num(Bps / 1e9, 3, buf, n);
}

/* Column headers of the tables: placeholders from the texts of the same name, empty (no
 * header row) for a table without rows. */
static const char *const node_columns[] = {"col_node", "col_node_ranks", "col_share_avg", "col_share_range",
                                           "col_node_Bps"};

int lens_report_bisection_input_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_bisection_detail *d = lens_report_bisection(r);
    const struct lens_bisection_summary *s = &d->s;
    char mn[32], md[32], av[32], mx[32];
    lens_report_fmt_GBps(s->min_Bps, mn, sizeof mn);
    lens_report_fmt_GBps(s->median_Bps, md, sizeof md);
    lens_report_fmt_GBps(s->avg_Bps, av, sizeof av);
    lens_report_fmt_GBps(s->max_Bps, mx, sizeof mx);
    struct lens_template_vars *v = &r->vars;
    /* input_index and input_name as a cube's group sets them, so a template may head every
     * group alike; the rest are this run's own (bis_*), set before any section of the group */
    int rc = lens_template_vars_setf(v, e, "input_index", "%d", r->cur + 1);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "input_name", lens_report_label(&r->in[r->cur]), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "bis_file", lens_report_path_tail(d->run->path), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "bis_nc", d->nc_path ? lens_report_path_tail(d->nc_path) : "", e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_rounds", "%d", s->rounds);
    /* every round has the same pairs (an odd rank count leaves one rank out of each) */
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_pairs", "%d", d->run->r[0].pairs);
    /* ranks, size and window come from the .nc: 0 without it, and only words_nc names them */
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_ranks", "%d", d->nranks);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_size", "%d", d->size_bytes);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_window", "%d", d->window);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "bis_min", mn, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "bis_median", md, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "bis_avg", av, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "bis_max", mx, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_min_round", "%d", s->min_round);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_max_round", "%d", s->max_round);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_nlinks", "%d", d->nlinks);
    /* the table shows at most SLOWEST_LINKS: the prose says how many of how many */
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(v, e, "bis_shown_links", "%d", d->nlinks < SLOWEST_LINKS ? d->nlinks : SLOWEST_LINKS);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "bis_nnodes", "%d", d->nnodes);
    return rc;
}

int lens_report_bisection_vars(void *ctx, struct lens_err *e)
{
    /* the section's texts, once the section is the current one (input_vars runs before it) */
    struct lens_report_ctx *r = ctx;
    const struct lens_bisection_detail *d = lens_report_bisection(r);
    struct lens_template_vars *v = &r->vars;
    char words[1024];
    int rc = LENS_OK;
    /* the texts that depend on what the .nc added: the run's description, the links' source
     * (every flow, or only each round's slowest) and whether there are shared nodes */
    const char *const texts[4][2] = {{"bis_words", d->nc_path ? "words_nc" : "words_csv"},
                                     {"col_link_rounds", d->nc_path ? "col_rounds_nc" : "col_rounds_csv"},
                                     {"links_words", d->nc_path ? "links_nc" : "links_csv"},
                                     {"nodes_words", d->nnodes ? "nodes_shared" : d->nc_path ? "nodes_own" : "nodes_csv"}};
    for (int k = 0; k < 4 && rc == LENS_OK; k++)
        if ((rc = lens_report_text(r, texts[k][1], words, sizeof words, e)) == LENS_OK)
            rc = lens_template_vars_set(v, texts[k][0], words, e);
    /* How the run was made, from the CSV's "# key: value" lines (lens_bisection_read): one
     * sentence, or one saying an older run has none. A line missing from a newer run reads
     * "not recorded" in its place. */
    const struct lens_bisection_prov *p = &d->run->prov;
    const char *pv[5] = {p->measured_at, p->mpi, p->launcher, p->binding, p->cores_per_host};
    static const char *const pn[5] = {"bis_measured", "bis_mpi", "bis_launcher", "bis_binding", "bis_cores"};
    int any = 0;
    for (int k = 0; k < 5; k++)
        any |= pv[k] != NULL;
    for (int k = 0; k < 5 && rc == LENS_OK; k++)
        rc = lens_template_vars_set(v, pn[k], pv[k] ? pv[k] : "not recorded", e);
    if (rc == LENS_OK && (rc = lens_report_text(r, any ? "prov_bis" : "prov_bis_none", words, sizeof words, e)) == LENS_OK)
        rc = lens_template_vars_set(v, "bis_prov_words", words, e);
    /* no node rows (one rank per node, or no .nc): no header row over an empty table */
    return rc == LENS_OK ? lens_report_headers(r, node_columns, 5, d->nnodes > 0, e) : rc;
}

/* The summary rows: min, median, mean and max of the rounds' aggregate bandwidth. */
static int summary_rows(struct lens_report_ctx *r, const struct lens_bisection_detail *d, struct lens_err *e)
{
    const struct lens_bisection_summary *s = &d->s;
    /* the four numbers `mpilens info` and accept's bisection.bandwidth metrics read, in the
     * order of the strip plot's marks; the labels of min and max name their rounds */
    const double val[4] = {s->min_Bps, s->median_Bps, s->avg_Bps, s->max_Bps};
    static const char *const names[4] = {"row_min", "row_median", "row_avg", "row_max"};
    int rc = LENS_OK;
    for (int k = 0; k < 4 && rc == LENS_OK; k++) {
        char label[256], num[32];
        lens_report_fmt_GBps(val[k], num, sizeof num);
        if ((rc = lens_report_text(r, names[k], label, sizeof label, e)) == LENS_OK)
            rc = lens_pdf_table_row(r->pdf, (const char *const[]){label, num}, e);
    }
    return rc;
}

/* "2 -> 3 (vm)" or "2 -> 3 (n01 -> n02)": hosts from the .nc, ranks alone without it. */
static void link_text(const struct lens_bisection_detail *d, const struct lens_bisection_link *l, char *buf,
                      size_t n)
{
    /* the CSV-only links may name ranks the .nc never described: hosts only within range */
    int known = d->hosts && l->sender < d->nranks && l->receiver < d->nranks;
    if (!known)
        snprintf(buf, n, "%d -> %d", l->sender, l->receiver);
    else if (!strcmp(d->hosts[l->sender], d->hosts[l->receiver]))
        snprintf(buf, n, "%d -> %d (%s)", l->sender, l->receiver, d->hosts[l->sender]);
    else
        snprintf(buf, n, "%d -> %d (%s -> %s)", l->sender, l->receiver, d->hosts[l->sender], d->hosts[l->receiver]);
}

/* The slowest links: number, link with hosts, its slowest flow, that flow's round and the
 * rounds the link flowed in (or was the slowest, without the .nc). */
static int link_rows(struct lens_report_ctx *r, const struct lens_bisection_detail *d, struct lens_err *e)
{
    int rc = LENS_OK;
    /* the links come slowest first from the analysis */
    for (int i = 0; i < d->nlinks && i < SLOWEST_LINKS && rc == LENS_OK; i++) {
        const struct lens_bisection_link *l = &d->links[i];
        char num[16], link[LENS_REPORT_CELL], bps[32], round[16], rounds[16];
        snprintf(num, sizeof num, "%d", i + 1);
        link_text(d, l, link, sizeof link);
        lens_report_fmt_GBps(l->min_Bps, bps, sizeof bps);
        snprintf(round, sizeof round, "%d", l->round);
        snprintf(rounds, sizeof rounds, "%d", l->rounds);
        rc = lens_pdf_table_row(r->pdf, (const char *const[]){num, link, bps, round, rounds}, e);
    }
    return rc;
}

/* Per shared node: name, ranks, mean share, range of shares, mean incoming rate. */
static int node_rows(struct lens_report_ctx *r, const struct lens_bisection_detail *d, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int n = 0; n < d->nnodes && rc == LENS_OK; n++) {
        const struct lens_bisection_node *o = &d->nodes[n];
        char ranks[16], avg[32], range[64], bps[32];
        snprintf(ranks, sizeof ranks, "%d", o->ranks);
        /* shares as percentages of the round's bytes, one decimal: they sum to 100 per round */
        snprintf(avg, sizeof avg, "%.1f %%", 100 * o->share_avg);
        snprintf(range, sizeof range, "%.1f - %.1f %%", 100 * o->share_min, 100 * o->share_max);
        lens_report_fmt_GBps(o->Bps_avg, bps, sizeof bps);
        rc = lens_pdf_table_row(r->pdf, (const char *const[]){o->name, ranks, avg, range, bps}, e);
    }
    return rc;
}

int lens_report_bisection_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_bisection_detail *d = lens_report_bisection(r);
    if (!strcmp(it->name, "summary")) {
        /* the page page one cites: this table carries the numbers page one repeats */
        int rc = lens_pdf_need(r->pdf, 80, e);
        if (rc == LENS_OK && r->page_bisection)
            r->page_bisection[r->cur] = lens_pdf_heading_page(r->pdf, 2); /* "Bisection bandwidth" */
        return rc == LENS_OK ? summary_rows(r, d, e) : rc;
    }
    /* the links and nodes tables break across pages freely: no page is recorded for them */
    if (!strcmp(it->name, "links"))
        return link_rows(r, d, e);
    if (!strcmp(it->name, "nodes"))
        return node_rows(r, d, e);
    return lens_report_unknown_item(r, it, e);
}

/* The "figure" block: the rounds' aggregate bandwidth as a strip plot with its four marks,
 * placed like every figure of the report, and with --figures written as PNG and SVG. */
int lens_report_bisection_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "figure"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_bisection_detail *d = lens_report_bisection(r);
    char heading[256], title[512], caption[1024], xlabel[256], lab[4][96], num[32];
    int rc = lens_template_vars_setf(&r->vars, e, "figure", "%d", ++r->figure);
    if (rc == LENS_OK) rc = lens_report_text(r, "figure_heading", heading, sizeof heading, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "figure_title", title, sizeof title, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "figure_caption", caption, sizeof caption, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "figure_axis", xlabel, sizeof xlabel, e);
    /* the marks' words from the template (translatable), their numbers as the table prints
     * them, so the figure and the table never disagree in the last digit */
    static const char *const names[4] = {"mark_min", "mark_median", "mark_avg", "mark_max"};
    const double val[4] = {d->s.min_Bps, d->s.median_Bps, d->s.avg_Bps, d->s.max_Bps};
    struct lens_strip_mark marks[4];
    for (int k = 0; k < 4 && rc == LENS_OK; k++) {
        char word[48];
        if ((rc = lens_report_text(r, names[k], word, sizeof word, e)) != LENS_OK)
            break;
        lens_report_fmt_GBps(val[k], num, sizeof num);
        snprintf(lab[k], sizeof lab[k], "%s %s", word, num);
        marks[k] = (struct lens_strip_mark){val[k] / 1e9, lab[k]};
    }
    double *v = rc == LENS_OK ? lens_malloc((size_t)d->run->n * sizeof *v) : NULL;
    if (rc == LENS_OK && !v)
        rc = lens_err_set(e, LENS_ENOMEM, "report: out of memory");
    if (rc != LENS_OK)
        return rc;
    /* GB/s, as the tables: the figure shows the rounds, the analysis already summarised them */
    for (int k = 0; k < d->run->n; k++)
        v[k] = d->run->r[k].bandwidth_Bps / 1e9;
    struct lens_strip_opts so = {.title = title, .xlabel = xlabel, .v = v, .n = d->run->n, .marks = marks,
                                 .nmarks = 4, .width = LENS_REPORT_FIG_W, .height = 360, .font_path = r->font_path};
    /* PNG bytes at print resolution for the page; the files keep the natural size */
    unsigned char *png = NULL;
    size_t len = 0;
    rc = lens_strip_png_mem(&so, &png, &len, e);
    if (rc == LENS_OK)
        rc = lens_report_place_figure(r, heading, png, len, LENS_REPORT_FIG_W, 360, caption, e);
    lens_free(png);
    /* --figures: the same figure as PNG and SVG; the layout pass has figures_dir NULL, so the
     * files are written once, on the drawn pass */
    if (rc == LENS_OK && r->o->figures_dir) {
        char path[PATH_MAX + 8];
        lens_report_figure_path(r, "bisection", "png", path, sizeof path);
        rc = lens_strip_write(&so, path, e);
        if (rc == LENS_OK) {
            lens_report_figure_path(r, "bisection", "svg", path, sizeof path);
            rc = lens_strip_write(&so, path, e);
        }
    }
    lens_free(v);
    return rc;
}
