/* The latency-cube report (see report.h). The template decides the order, headings and
 * prose; this file supplies, per section, the placeholder values, table rows and figures.
 * Each section is a row of the `sections` table near the end of the file, which names the
 * kind of input it is about; render/doc/doc.c draws them. */
#include "report.h"
#include "common/atomic.h"
#include "common/time.h"
#include "common/units.h"

#include "common/datadir.h"
#include "doc.h"
#include "render/fig/fig.h"
#include "pdf.h"
#include "report_ctx.h"
#include "template.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void lens_report_opts_init(struct lens_report_opts *o)
{
    memset(o, 0, sizeof *o);
    /* The median by default: network_test2's average is pulled up by the occasional preempted
     * repeat, the median is what a typical message sees. */
    o->stat = LENS_STAT_MEDIAN;
    o->date = lens_time_source_date(); /* SOURCE_DATE_EPOCH when set, so a rebuilt report is byte-identical */
}

/* The current input's data: valid only while the driver repeats a cube group (r->cur >= 0), which
 * is when the per-cube sections are called. */
const struct lens_cube *lens_report_cube(const struct lens_report_ctx *r) { return r->in[r->cur].cube; }

const struct lens_structure_report *lens_report_results(const struct lens_report_ctx *r)
{
    return r->in[r->cur].results;
}

/* Which matrix index is the sender, from the mode's semantics (docs/methods.md §1):
 * 1: row = receiver, column = sender; 2: row = sender; 0: only "row -> column" is known. */
int lens_report_direction(int mode)
{
    switch (mode) {
    case LENS_MODE_ONE_TO_ONE:
    case LENS_MODE_ALL_TO_ALL:
    case LENS_MODE_NOISE:
    case LENS_MODE_NOISE_BLOCKING:
        return 1;
    case LENS_MODE_BCAST: /* the root (row) sends to each column */
        return 2;
    default:
        return 0;
    }
}

/* A delay in seconds as microseconds for the tables and captions. */
void lens_report_fmt_us(double s, char *buf, size_t n)
{
    /* The reports' significant digits (common/units.h): a few hundred nanoseconds keep their
     * fourth digit ("0.4860"), 11.4 µs is not written "11.400". NaN (nothing finite was
     * measured) prints "n/a". */
    lens_units_in(s, 1e6, buf, n);
}

/* A section text expanded with the current placeholders into buf. */
int lens_report_text(struct lens_report_ctx *r, const char *name, char *buf, size_t n, struct lens_err *e)
{
    char *s = NULL;
    int rc = lens_template_text(r->t, r->sec, name, &r->vars, &s, e);
    if (rc == LENS_OK)
        /* Cut to the caller's buffer, sized for its use (a heading, a caption): a template text
         * longer than that is shortened, not an error. */
        snprintf(buf, n, "%s", s);
    lens_free(s);
    return rc;
}

int lens_report_unknown_item(struct lens_report_ctx *r, const struct lens_template_item *it, struct lens_err *e)
{
    return lens_template_unknown_item(r->t, r->sec, it, e);
}

/* ---- document-wide and per-input placeholders ---- */

const char *lens_report_path_tail(const char *path)
{
    /* Two parts, not one: "synth32/network" says which run, "network" alone would not. A
     * trailing "/" stays with its part. */
    const char *s = path;
    size_t n = strlen(s), b = n;
    while (n > 1 && s[n - 1] == '/')
        n--;
    int slashes = 0;
    for (b = n; b > 0; b--)
        if (s[b - 1] == '/' && ++slashes == 2)
            break;
    return s + b;
}

const char *lens_report_label(const struct lens_report_input *in)
{
    if (in->label)
        return in->label;
    /* The default: the tail of the path, so that mpilens report and mpilens accept call an
     * input alike and the folder the report was made in never shows. */
    return lens_report_path_tail(in->name);
}

/* Placeholders every section may use: set once in prepare(), before the title page, and never
 * changed while drawing. */
static int document_vars(struct lens_report_ctx *r, struct lens_err *e)
{
    char date[64], sources[2048] = "";
    lens_time_format_date(r->o->date, date, sizeof date);
    size_t o = 0;
    /* snprintf returns the length it wanted: o may pass the end, and the loop condition then stops
     * appending (the list is cut, never overrun). */
    for (int i = 0; i < r->nin && o < sizeof sources; i++)
        o += (size_t)snprintf(sources + o, sizeof sources - o, "%s%s", i ? ", " : "", lens_report_label(&r->in[i]));
    int rc = lens_template_vars_set(&r->vars, "date", date, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "version", LENS_VERSION, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&r->vars, e, "ninputs", "%d", r->nin);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "sources", sources, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "stat", lens_cube_stat_name(r->o->stat), e);
    return rc;
}

/* "vm (4 processes)" or "n01 (2), n02 (2), ... and 30 more": distinct hosts in rank order. */
static void hosts_summary(const struct lens_cube *c, char *buf, size_t n, int *distinct)
{
    *distinct = 0;
    buf[0] = '\0';
    if (!c->hosts) {
        snprintf(buf, n, "not recorded");
        return;
    }
    size_t o = 0;
    for (int i = 0; i < c->procs; i++) {
        int seen = 0, count = 0;
        /* Quadratic in the processes, but only string compares on a few thousand ranks at most,
         * once per input; counting in rank order keeps the first-seen order the reader expects. */
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(c->hosts[j], c->hosts[i]);
        if (seen)
            continue;
        for (int j = i; j < c->procs; j++)
            count += !strcmp(c->hosts[j], c->hosts[i]);
        /* Twelve hosts fit the field on one or two lines; the rest are counted, so a 300-node job
         * does not fill a page with host names. */
        if (++*distinct <= 12 && o < n)
            o += (size_t)snprintf(buf + o, n - o, "%s%s (%d %s)", *distinct > 1 ? ", " : "", c->hosts[i], count,
                                  count == 1 ? "process" : "processes");
    }
    if (*distinct > 12 && o < n)
        snprintf(buf + o, n - o, " and %d more", *distinct - 12);
}

/* The placeholders of the cube being drawn, set before each repetition of a cube group so that
 * every section of the group (parameters, input, summary, ...) can use them. */
static int input_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_cube *c = lens_report_cube(r);
    char hosts[2048], lengths[256], stats[128] = "", files[2048] = "";
    int nhosts;
    hosts_summary(c, hosts, sizeof hosts, &nhosts);
    snprintf(lengths, sizeof lengths, "%d, from %d to %d bytes step %d", c->nlen, c->lengths[0],
             c->lengths[c->nlen - 1], c->step);
    size_t so = 0;
    /* The reader's resolved prefix names the files exactly (dir/network for a directory input); the
     * argument as given is the fallback for a cube not read from files. Only its tail is
     * printed: an absolute path would put the machine's folders into a report meant to be
     * passed on (issue 14). */
    const char *src = lens_report_path_tail(c->source ? c->source : r->in[r->cur].name);
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (c->data[s])
            so += (size_t)snprintf(stats + so, sizeof stats - so, "%s%s", so ? "," : "", lens_cube_stat_name(s));
    /* the files as one brace pattern: prefix_{average,median}.nc, prefix_hosts.txt */
    snprintf(files, sizeof files, "%s_{%s}.nc%s%s%s", src, stats, c->hosts ? ", " : "",
             c->hosts ? src : "", c->hosts ? "_hosts.txt" : "");
    for (char *p = stats; *p; p++) /* "average, median" for the statistics field */
        /* The same list serves the brace pattern above (no spaces) and the statistics field (", "):
         * spaces are inserted after the pattern is written, as long as they fit. */
        if (*p == ',' && so + 1 < sizeof stats) {
            memmove(p + 2, p + 1, strlen(p + 1) + 1);
            p[1] = ' ';
            so++;
        }
    struct lens_template_vars *v = &r->vars;
    int rc = lens_template_vars_setf(v, e, "input_index", "%d", r->cur + 1);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "input_name", lens_report_label(&r->in[r->cur]), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "mode", lens_cube_mode_name(c->mode), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "semantics", lens_cube_mode_semantics(c->mode), e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "procs", "%d", c->procs);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "hosts", hosts, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nhosts", "%d", nhosts);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "lengths", lengths, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nlengths", "%d", c->nlen);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "repeats", "%d%s", c->repeats, c->nraw ? " (raw repeats present)" : "");
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "stats", stats, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(v, "layout", c->new_layout ? "plugins branch (test_type string)" : "network_test2 classic", e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "files", files, e);
    /* the gate's numbers are the cube's too: page one and the gate section both word them */
    if (rc == LENS_OK) rc = lens_report_gate_vars(r, e);
    return rc;
}

static int title_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    char def[512];
    if (r->o->title) /* --title wins over the template's default_title text */
        return lens_template_vars_set(&r->vars, "title", r->o->title, e);
    int rc = lens_report_text(r, "default_title", def, sizeof def, e);
    return rc == LENS_OK ? lens_template_vars_set(&r->vars, "title", def, e) : rc;
}

/* ---- summary ---- */

/* The slowest pair of a length (found by lens_structure_report_run) as "s -> d (host)", in
 * the sender -> receiver direction the mode gives the matrix indices. */
static void slowest_pair(const struct lens_cube *c, const struct lens_structure_report_length *l, char *buf, size_t n)
{
    /* In the modes where the row is the receiver the sender is the column: swap, so that the pair
     * always reads sender -> receiver as the table note says. */
    int bi = l->slow_row, bj = l->slow_col;
    if (bi < 0) {
        snprintf(buf, n, "n/a");
        return;
    }
    int from = lens_report_direction(c->mode) == 1 ? bj : bi, to = lens_report_direction(c->mode) == 1 ? bi : bj;
    if (!c->hosts)
        snprintf(buf, n, "%d -> %d", from, to);
    else if (!strcmp(c->hosts[from], c->hosts[to]))
        snprintf(buf, n, "%d -> %d (%s)", from, to, c->hosts[from]);
    else
        snprintf(buf, n, "%d -> %d (%s -> %s)", from, to, c->hosts[from], c->hosts[to]);
}

static int summary_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    char order[128];
    /* The note under the table says how to read a pair: "sender -> receiver" when the mode tells,
     * "row rank -> column rank" when it does not. */
    const char *name = lens_report_direction(lens_report_cube(r)->mode) ? "pair_sender" : "pair_row";
    int rc = lens_report_text(r, name, order, sizeof order, e);
    return rc == LENS_OK ? lens_template_vars_set(&r->vars, "pair_order", order, e) : rc;
}

static int summary_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "lengths"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_cube *c = lens_report_cube(r);
    const struct lens_structure_report *res = lens_report_results(r);
    int rc = LENS_OK;
    for (int k = 0; k < c->nlen && rc == LENS_OK; k++) {
        /* One row per length in the cube's order, from the summaries lens_structure_report_run
         * computed before drawing; nothing is recomputed here. */
        const struct lens_summary *s = &res->len[k].s;
        char len[32], mn[32], md[32], mx[32], pair[600];
        snprintf(len, sizeof len, "%d", c->lengths[k]);
        lens_report_fmt_us(s->min, mn, sizeof mn);
        lens_report_fmt_us(s->median, md, sizeof md);
        lens_report_fmt_us(s->max, mx, sizeof mx);
        slowest_pair(c, &res->len[k], pair, sizeof pair);
        const char *cells[5] = {len, mn, md, mx, pair};
        rc = lens_pdf_table_row(r->pdf, cells, e);
        /* the page of the first row: where the acceptance verdict sends a cube.* reader */
        if (k == 0 && r->page_summary)
            r->page_summary[r->cur] = lens_pdf_page_count(r->pdf);
    }
    return rc;
}

/* ---- heatmaps ---- */

/* Indices of the lengths to draw (deduplicated, in the order asked). */
static int figure_lengths(const struct lens_report_ctx *r, int *idx)
{
    const struct lens_cube *c = lens_report_cube(r);
    int n = 0;
    if (!r->o->lengths || r->o->nlengths == 0) {
        /* First, middle and last length: small messages show latency, large ones bandwidth, and the
         * middle one the change between. A cube of one or two lengths gives fewer figures (equal
         * neighbours are dropped). */
        int want[3] = {0, (c->nlen - 1) / 2, c->nlen - 1};
        for (int i = 0; i < 3; i++)
            if (n == 0 || want[i] != idx[n - 1])
                idx[n++] = want[i];
        return n;
    }
    for (int i = 0; i < r->o->nlengths; i++) {
        /* --lengths takes the nearest measured length, so two requests may land on the same one:
         * draw it once. */
        int k = lens_cube_length_index(c, r->o->lengths[i]), dup = 0;
        for (int j = 0; j < n; j++)
            dup |= idx[j] == k;
        if (k >= 0 && !dup)
            idx[n++] = k;
    }
    return n;
}

void lens_report_figure_path(const struct lens_report_ctx *r, const char *name, const char *ext, char *buf,
                             size_t n)
{
    char prefix[32] = "";
    /* With several inputs every cube draws the same figures: the input number keeps their files
     * apart. */
    if (r->nin > 1)
        snprintf(prefix, sizeof prefix, "input%d_", r->cur + 1);
    snprintf(buf, n, "%s/%s%s.%s", r->o->figures_dir, prefix, name, ext);
}

static int write_figure_files(struct lens_report_ctx *r, const double *m, const struct lens_heatmap_opts *ho, int len,
                              struct lens_err *e)
{
    char name[128], path[PATH_MAX + 8];
    snprintf(name, sizeof name, "heatmap_%s_%dB", lens_cube_stat_name(r->o->stat), len);
    int P = lens_report_cube(r)->procs;
    lens_report_figure_path(r, name, "png", path, sizeof path);
    int rc = lens_heatmap_write_png(m, P, P, ho, path, e);
    if (rc == LENS_OK) {
        lens_report_figure_path(r, name, "svg", path, sizeof path);
        rc = lens_heatmap_write_svg(m, P, P, ho, path, e);
    }
    return rc;
}

int lens_report_place_figure(struct lens_report_ctx *r, const char *heading, const unsigned char *png, size_t len,
                             int w, int h, const char *caption, struct lens_err *e)
{
    /* The figure at full text width, plus about 80 points for its heading and a two-line caption. A
     * figure that almost fits is shrunk (down to 75% of its height) rather than moved, which would
     * leave most of a page empty; one that does not fit even so starts a new page. */
    double fig_h = lens_pdf_text_width(r->pdf) * h / w, extra = 80;
    double room = lens_pdf_remaining(r->pdf) - extra;
    int rc;
    if (room < 0.75 * fig_h) {
        if ((rc = lens_pdf_new_page(r->pdf, e)) != LENS_OK)
            return rc;
    } else if (room < fig_h) {
        fig_h = room;
    }
    if ((rc = lens_pdf_heading(r->pdf, 3, heading, e)) != LENS_OK)
        return rc;
    /* heading, image and caption in this order, with no page break between (the room was checked
     * above) */
    rc = lens_pdf_image_png(r->pdf, png, len, fig_h, e);
    if (rc == LENS_OK)
        rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, caption, e);
    if (rc == LENS_OK)
        lens_pdf_space(r->pdf, 8);
    return rc;
}

/* One heatmap of length index k: its placeholders (numbers from the results, not the cube), its
 * texts, the PNG placed in the PDF and, with --figures, the PNG and SVG files. The figure number
 * counts every figure of the document, across inputs. */
static int one_figure(struct lens_report_ctx *r, int k, struct lens_err *e)
{
    const struct lens_cube *c = lens_report_cube(r);
    int P = c->procs, rc;
    const struct lens_summary *s = &lens_report_results(r)->len[k].s;
    char buf[4][64];
    lens_report_fmt_us(s->min, buf[0], sizeof buf[0]);
    lens_report_fmt_us(s->max, buf[1], sizeof buf[1]);
    lens_report_fmt_us(s->median, buf[2], sizeof buf[2]);
    struct lens_template_vars *v = &r->vars;
    rc = lens_template_vars_setf(v, e, "length", "%d", c->lengths[k]);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "figure", "%d", ++r->figure);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "min", buf[0], e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "max", buf[1], e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "median", buf[2], e);
    char heading[512], title[512], caption[2048], xl[128], yl[128], unit[32];
    int dir = lens_report_direction(c->mode);
    /* Axis titles follow the mode's semantics (lens_report_direction): sender and receiver when the
     * mode says which is which, row and column otherwise. */
    const char *xname = dir == 1 ? "axis_sender" : dir == 2 ? "axis_receiver" : "axis_column";
    const char *yname = dir == 1 ? "axis_receiver" : dir == 2 ? "axis_sender" : "axis_row";
    if (rc == LENS_OK) rc = lens_report_text(r, "heading", heading, sizeof heading, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "figure_title", title, sizeof title, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "caption", caption, sizeof caption, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "unit", unit, sizeof unit, e);
    if (rc == LENS_OK) rc = lens_report_text(r, xname, xl, sizeof xl, e);
    if (rc == LENS_OK) rc = lens_report_text(r, yname, yl, sizeof yl, e);
    if (rc != LENS_OK)
        return rc;

    /* the P x P matrix of length k, drawn as measured (the cube owns it) */
    const double *m = &c->data[r->o->stat][(size_t)k * P * P];
    struct lens_heatmap_opts ho;
    lens_heatmap_opts_init(&ho);
    ho.title = title;
    ho.unit = unit;
    ho.scale = 1e6;
    ho.xlabel = xl;
    ho.ylabel = yl;
    ho.histogram = 1;
    ho.hide_diagonal = 1; /* the diagonal is not a measurement (garbage in min) */
    ho.width = LENS_REPORT_FIG_W;
    ho.height = LENS_REPORT_FIG_H;
    ho.font_path = r->font_path;
    /* One colour means one delay on every length of the cube (issue 14, item 8): the caller's
     * shared range on a log scale, which spans the short and the long lengths' orders of
     * magnitude; no shared range (API callers that give none) keeps each length's own. */
    const struct lens_report_input *in = &r->in[r->cur];
    if (in->heat_lo > 0 && in->heat_hi > in->heat_lo) {
        ho.log_scale = 1;
        ho.fixed_range = 1;
        ho.vmin = in->heat_lo * ho.scale; /* vmin/vmax are in displayed units (µs) */
        ho.vmax = in->heat_hi * ho.scale;
    }

    /* host bands in the colours the structure figures give the same hosts */
    struct lens_hostcolour hc = LENS_HOSTCOLOUR_INIT;
    ho.hosts = (const char *const *)c->hosts;
    ho.hostcol = &hc;
    unsigned char *png = NULL;
    size_t len = 0;
    if ((rc = lens_report_hosts(r, &hc, e)) == LENS_OK)
        rc = lens_heatmap_png_mem(m, P, P, &ho, &png, &len, e);
    if (rc == LENS_OK)
        rc = lens_report_place_figure(r, heading, png, len, LENS_REPORT_FIG_W, LENS_REPORT_FIG_H, caption, e);
    lens_free(png);
    if (rc == LENS_OK && r->o->figures_dir)
        rc = write_figure_files(r, m, &ho, c->lengths[k], e);
    lens_hostcolour_free(&hc);
    return rc;
}

/* The "figures" block of the heatmaps section: one figure per length figure_lengths chose. */
static int heatmap_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "figures"))
        return lens_report_unknown_item(r, it, e);
    /* at most the lengths asked, or the three defaults */
    int *idx = lens_malloc((size_t)(r->o->nlengths + 3) * sizeof *idx);
    int rc = idx ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "report: out of memory");
    int n = rc == LENS_OK ? figure_lengths(r, idx) : 0;
    for (int i = 0; i < n && rc == LENS_OK; i++)
        rc = one_figure(r, idx[i], e);
    lens_free(idx);
    return rc;
}

/* ---- data quality ---- */

/* The "warnings" block of the quality section: the defects the reader found in this cube and what
 * it did about them (cube.c), one bullet each, or the template's "none" text. */
static int quality_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "warnings"))
        return lens_report_unknown_item(r, it, e);
    const struct lens_cube *c = lens_report_cube(r);
    if (c->nwarn == 0) {
        char none[512];
        int rc = lens_report_text(r, "none", none, sizeof none, e);
        return rc == LENS_OK ? lens_pdf_paragraph(r->pdf, none, e) : rc;
    }
    int rc = LENS_OK;
    for (int i = 0; i < c->nwarn && rc == LENS_OK; i++) {
        char line[2048];
        snprintf(line, sizeof line, "• %s", c->warnings[i]);
        rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 10, LENS_PDF_LEFT, 8, line, e);
        lens_pdf_space(r->pdf, 3);
    }
    return rc;
}

/* ---- references ---- */

static unsigned template_parts(const struct lens_template *t);

/* Which methods the document shows, for the reference list: bit 0 a cube, 1 a structure section
 * drawn for a cube, 2 an anomalies section drawn for a cube, 3 a sweep. A cube that failed the
 * data-quality gate draws neither, so its methods are not cited. */
static unsigned methods_used(const struct lens_report_ctx *r)
{
    unsigned parts = template_parts(r->t), used = 0;
    for (int i = 0; i < r->nin; i++) {
        const struct lens_structure_report *res = r->in[i].results;
        int failed = res && res->gated && !res->quality.pass;
        if (r->in[i].p2p)
            used |= 8;
        if (!r->in[i].cube)
            continue;
        used |= 1;
        if (!failed && (parts & LENS_STRUCTURE_TREE))
            used |= 2;
        if (!failed && (parts & LENS_STRUCTURE_ANOMALIES))
            used |= 4;
    }
    return used;
}

/* The "list" block of the references section: the works whose methods the document used, in
 * the order of the template's texts (by first author), cited in the prose by author and year. */
static int references_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "list"))
        return lens_report_unknown_item(r, it, e);
    /* {text, the methods_used bit that cites it}, in the list's order */
    static const struct {
        const char *text;
        unsigned bit;
    } refs[] = {{"ref_cattell", 2},  {"ref_iglewicz", 4}, {"ref_lance", 2}, {"ref_network_test2", 1},
                {"ref_osu", 8},      {"ref_saitou", 2},   {"ref_salnikov", 2}};
    unsigned used = methods_used(r);
    int rc = LENS_OK;
    for (size_t i = 0; i < sizeof refs / sizeof refs[0] && rc == LENS_OK; i++) {
        char buf[1024];
        if (!(used & refs[i].bit))
            continue;
        if ((rc = lens_report_text(r, refs[i].text, buf, sizeof buf, e)) == LENS_OK)
            rc = lens_pdf_text(r->pdf, LENS_PDF_SANS, 9, LENS_PDF_LEFT, 0, buf, e);
        lens_pdf_space(r->pdf, 3);
    }
    return rc;
}

/* ---- the section table: one row per section a template may name ---- */

/* Which kind of input each section is about decides where it may stand in the template and how
 * often it is drawn (render/doc/doc.h); a section with no functions is all template text and
 * placeholders. */
static const struct lens_doc_section sections[] = {
    {"verdict", LENS_DOC_NONE, NULL, NULL, lens_report_verdict_block},
    {"title", LENS_DOC_NONE, title_vars, NULL, NULL},
    {"answer", LENS_DOC_CUBE, lens_report_answer_vars, lens_report_answer_table, lens_report_answer_block},
    {"gate", LENS_DOC_CUBE, NULL, NULL, lens_report_gate_block},
    {"parameters", LENS_DOC_CUBE, NULL, NULL, NULL},
    {"input", LENS_DOC_CUBE, NULL, NULL, NULL},
    {"summary", LENS_DOC_CUBE, summary_vars, summary_table, NULL},
    {"structure", LENS_DOC_CUBE, lens_report_structure_vars, lens_report_structure_table, lens_report_structure_block},
    {"anomalies", LENS_DOC_CUBE, lens_report_anomalies_vars, lens_report_anomalies_table, NULL},
    {"retest", LENS_DOC_CUBE, lens_report_retest_vars, lens_report_retest_table, NULL},
    {"heatmaps", LENS_DOC_CUBE, NULL, NULL, heatmap_block},
    {"quality", LENS_DOC_CUBE, NULL, NULL, quality_block},
    {"compare", LENS_DOC_CUBE, lens_report_compare_vars, lens_report_compare_table, NULL},
    {"p2p_parameters", LENS_DOC_SWEEP, NULL, NULL, NULL},
    {"p2p", LENS_DOC_SWEEP, lens_report_p2p_vars, lens_report_p2p_table, lens_report_p2p_block},
    {"bisection", LENS_DOC_BISECTION, lens_report_bisection_vars, lens_report_bisection_table, lens_report_bisection_block},
    {"references", LENS_DOC_NONE, NULL, NULL, references_block},
};

/* The placeholders of the input a "repeat inputs" group is drawn for. */
static int repeat_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    /* A group repeats over one kind of input (the driver checks it), so the current input tells
     * which placeholders the group needs. */
    return r->in[r->cur].cube ? input_vars(ctx, e)
           : r->in[r->cur].bisection ? lens_report_bisection_input_vars(ctx, e)
                                     : lens_report_p2p_input_vars(ctx, e);
}

/* The running header: the current input's label; outside the inputs (title page, verdict,
 * references) every label, so page one, which holds the first input's answer, names it too. */
static const char *running_header(void *ctx)
{
    struct lens_report_ctx *r = ctx;
    if (r->cur >= 0)
        return lens_report_label(&r->in[r->cur]);
    size_t o = 0;
    r->header[0] = '\0';
    for (int i = 0; i < r->nin; i++) {
        lens_report_append(r->header, sizeof r->header, &o, i ? ", " : "");
        lens_report_append(r->header, sizeof r->header, &o, lens_report_label(&r->in[i]));
    }
    return r->header;
}

static const struct lens_doc_kind kind = {"report.tmpl", "MPI latency report", sections,
                                          (int)(sizeof sections / sizeof sections[0]), repeat_vars,
                                          lens_report_verdict_shown, running_header};

/* The structure parts the sections of t lay out (lens_report_parts): the structure section
 * every part but the anomalies, the anomalies section only those, so a template without them
 * costs no clustering. */
static unsigned template_parts(const struct lens_template *t)
{
    unsigned parts = 0;
    for (int i = 0; i < t->nsections; i++) {
        /* The structure section draws the tree, cut, NJ tree, matrix and link clusters; the
         * anomalies section only the anomalies. Asking per section is what lets a short template
         * skip the clustering. */
        if (!strcmp(t->sections[i].name, "structure"))
            parts |= LENS_STRUCTURE_ALL & ~(unsigned)LENS_STRUCTURE_ANOMALIES;
        else if (!strcmp(t->sections[i].name, "anomalies"))
            parts |= LENS_STRUCTURE_ANOMALIES;
    }
    return parts;
}

/* The sections' context and what only the set-up below needs: the options with the figure
 * folder being built in place of the one asked for. */
struct report_doc {
    struct lens_report_ctx r; /* first, so the sections' context is this struct too */
    struct lens_report_opts ow;
    char *figdir;
};

/* After the template is checked: every cube's results hold what its sections show (checked
 * here, before the PDF is opened, so that a missing part is an error and not a section
 * drawn from NULL), the figure folder, which appears with the PDF (lens_atomic_dir), and the
 * document-wide placeholders. */
static int prepare(void *ctx, struct lens_err *e)
{
    struct report_doc *w = ctx;
    /* The template in hand is the one being drawn (loaded by the driver): the parts checked are
     * exactly those its sections will read. */
    unsigned need = template_parts(w->r.t);
    for (int i = 0; i < w->r.nin; i++)
        /* parts the gate dropped (skipped) count as present: their sections are left out */
        if (w->r.in[i].results && ((w->r.in[i].results->parts | w->r.in[i].results->skipped) & need) != need)
            return lens_err_set(e, LENS_EINVAL, "report: the results of %s lack structure parts 0x%x the template "
                                "shows (see lens_report_parts)", w->r.in[i].name, need & ~w->r.in[i].results->parts);
    int rc = LENS_OK;
    /* A new figure folder is written under a temporary name renamed with the PDF (lens_atomic_dir),
     * so a failed report leaves neither; an existing folder is written into. */
    if (w->ow.figures_dir && (rc = lens_atomic_dir(w->ow.figures_dir, &w->figdir, e)) == LENS_OK)
        w->ow.figures_dir = w->figdir;
    return rc == LENS_OK ? document_vars(&w->r, e) : rc;
}

/* The inputs as lens_report_parts and lens_report_write take them; with results 1 every
 * cube must also carry results of the statistic drawn, whose lengths are the cube's. */
static int check_inputs(const struct lens_report_opts *o, const struct lens_report_input *in, int nin, int results,
                        struct lens_err *e)
{
    if (nin < 1)
        return lens_err_set(e, LENS_EINVAL, "report: no input");
    if (o->stat < 0 || o->stat >= LENS_STAT_COUNT)
        return lens_err_set(e, LENS_EINVAL, "report: bad statistic %d", o->stat);
    for (int i = 0; i < nin; i++) {
        if (!!in[i].cube + !!in[i].p2p + !!in[i].bisection != 1)
            return lens_err_set(e, LENS_EINVAL, "report: input %s must be one of a cube, a p2p sweep or a "
                                "bisection run", in[i].name);
        /* Checked before anything else: every section of a cube reads this statistic, and the
         * message names the input as the user gave it. */
        if (in[i].cube && (!in[i].cube->data[o->stat] || in[i].cube->nlen < 1))
            return lens_err_set(e, LENS_EDATA, "%s: statistic '%s' not present", in[i].name,
                                lens_cube_stat_name(o->stat));
        const struct lens_structure_report *res = in[i].results;
        /* Results of another statistic or another cube would put one set of numbers under another's
         * heading: refuse them before drawing. */
        if (results && in[i].cube && (!res || res->stat != o->stat || res->nlen != in[i].cube->nlen))
            return lens_err_set(e, LENS_EINVAL, "report: input %s has no results of statistic '%s' "
                                "(lens_structure_report_run)", in[i].name, lens_cube_stat_name(o->stat));
    }
    return LENS_OK;
}

int lens_report_parts(const struct lens_report_opts *o, const struct lens_report_input *in, int nin,
                      unsigned *parts, struct lens_err *e)
{
    *parts = 0;
    struct lens_template *t = NULL;
    int rc = check_inputs(o, in, nin, 0, e); /* no results yet: they are computed from what this returns */
    if (rc == LENS_OK)
        /* The same loader and checks as the driver, so a template error found here reads exactly as
         * it would from lens_report_write, and costs no clustering first. */
        rc = lens_doc_template(&kind, o->datadir, o->template_path, &t, e);
    if (rc == LENS_OK)
        *parts = template_parts(t);
    lens_template_free(t);
    return rc;
}

int lens_report_write(const struct lens_report_opts *o, const struct lens_report_input *in, int nin,
                      const char *path, struct lens_err *e)
{
    int rc = check_inputs(o, in, nin, 1, e);
    if (rc != LENS_OK)
        return rc;
    int *kinds = lens_malloc((size_t)nin * sizeof *kinds);
    if (!kinds)
        return lens_err_set(e, LENS_ENOMEM, "report: out of memory");
    for (int i = 0; i < nin; i++) /* a section says which of the two it is about */
        kinds[i] = in[i].cube ? LENS_DOC_CUBE : in[i].p2p ? LENS_DOC_SWEEP : LENS_DOC_BISECTION;
    /* A copy of the options: prepare() points its figures_dir at the temporary folder without
     * touching the caller's struct. */
    struct report_doc w = {.r = {.in = in, .nin = nin, .cur = -1}, .ow = *o};
    w.r.o = &w.ow;
    const struct lens_doc d = {.kind = &kind, .datadir = o->datadir, .template_path = o->template_path,
                               .date = o->date, .inputs = kinds, .ninputs = nin, .ctx = &w, .prepare = prepare,
                               .t = &w.r.t, .sec = &w.r.sec, .pdf = &w.r.pdf, .vars = &w.r.vars, .cur = &w.r.cur,
                               .font_path = w.r.font_path, .font_path_size = sizeof w.r.font_path};
    /* Two passes: the first lays the document out in memory, without figure files, and records
     * the pages the sections land on; the second draws it with page one naming those pages.
     * Page one's text differs only in those short numbers, so the pages do not move between. */
    w.r.page_structure = lens_calloc((size_t)nin, sizeof *w.r.page_structure);
    w.r.page_anomalies = lens_calloc((size_t)nin, sizeof *w.r.page_anomalies);
    w.r.page_retest = lens_calloc((size_t)nin, sizeof *w.r.page_retest);
    w.r.page_bisection = lens_calloc((size_t)nin, sizeof *w.r.page_bisection);
    w.r.page_summary = lens_calloc((size_t)nin, sizeof *w.r.page_summary);
    w.r.page_p2p = lens_calloc((size_t)nin, sizeof *w.r.page_p2p);
    w.r.page_compare = lens_calloc((size_t)nin, sizeof *w.r.page_compare);
    if (!w.r.page_structure || !w.r.page_anomalies || !w.r.page_retest || !w.r.page_bisection || !w.r.page_summary ||
        !w.r.page_p2p || !w.r.page_compare)
        rc = lens_err_set(e, LENS_ENOMEM, "report: out of memory");
    if (rc == LENS_OK) {
        w.ow.figures_dir = NULL;
        rc = lens_doc_write(&d, NULL, e);
        w.ow.figures_dir = o->figures_dir;
        w.r.figure = 0; /* figure numbers start again on the drawn pass */
    }
    if (rc == LENS_OK)
        rc = lens_doc_write(&d, path, e);
    lens_free(w.r.page_structure);
    lens_free(w.r.page_anomalies);
    lens_free(w.r.page_retest);
    lens_free(w.r.page_bisection);
    lens_free(w.r.page_summary);
    lens_free(w.r.page_p2p);
    lens_free(w.r.page_compare);
    lens_free(w.figdir);
    lens_free(kinds);
    return rc;
}

/* ---- locating fonts/ and templates/ ---- */

int lens_report_datadir(char *buf, size_t n, struct lens_err *e) { return lens_datadir_find(buf, n, e); }
