/* The problems report (problems_report.h). The template decides the order, headings and
 * texts; this file supplies, per section, the placeholder values, table rows and figures:
 * the per-rank bar chart is drawn here with cairo, the timelines by render/fig/timeline.c, both
 * embedded as PNG bytes. Each section is a row of the `sections` table at the end, drawn by
 * render/doc/doc.c. */
#include "problems_report.h"
#include "common/time.h"
#include "common/units.h"

#include "doc.h"
#include "render/fig/fig.h"
#include "pdf.h"
#include "report.h"
#include "template.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHART_W 1000 /* per-rank chart, pixels */
#define CHART_H 250 /* wide and low: one bar per rank, up to hundreds of ranks */
#define TL_W 1000    /* timeline, pixels (its height follows the lanes) */
#define TL_FONT 16.5 /* its base font size: about 8 points once scaled to the text width */

/* The context every section function receives. The driver fills t, sec, pdf, vars and cur through
 * the pointers in struct lens_doc; the rest is the caller's, borrowed for the call. */
struct prep {
    const struct lens_problems_report_opts *o;
    const struct lens_problems_report_input *in;
    int nin;
    const struct lens_template *t;
    const struct lens_template_section *sec; /* section being drawn */
    struct lens_pdf *pdf;
    struct lens_template_vars vars;
    int cur;                             /* current trace inside the repeat, -1 outside */
    int figure;                          /* figures drawn so far (numbering) */
    char font_path[PATH_MAX + 32];
};

void lens_problems_report_opts_init(struct lens_problems_report_opts *o)
{
    memset(o, 0, sizeof *o);
    /* Eight problems with their own page each keep a report of a bad trace readable; the ranked
     * table still lists every problem found. */
    o->max_problems = 8;
    o->max_sites = 5; /* the call sites that account for most of a problem; the tail adds little */
    /* a timeline around the worst instance: the picture most readers need to believe a finding */
    o->timelines = 1;
    o->date = lens_time_source_date();
}

/* A section text expanded with the current placeholders into buf, cut to the caller's buffer. */
static int text(struct prep *s, const char *name, char *buf, size_t n, struct lens_err *e)
{
    return lens_template_text_buf(s->t, s->sec, name, &s->vars, buf, n, e);
}

static int unknown_item(struct prep *s, const struct lens_template_item *it, struct lens_err *e)
{
    return lens_template_unknown_item(s->t, s->sec, it, e);
}

/* A time with its unit, the prefix by magnitude and 4 significant digits (common/units.h):
 * one problem's 30.02 s and another's 68.00 µs share a column. The Russian report writes
 * the units in Russian (с, мс, мкс, нс). */
static void fmt_s(const struct prep *s, double v, char *buf, size_t n)
{
    static const char *const en[] = {" ns", " µs", " ms", " s"};
    static const char *const ru[] = {" нс", " мкс", " мс", " с"};
    char t[64];
    lens_units_time(v, t, sizeof t);
    for (int k = 0; s->o->lang == 1 && k < 4; k++) {
        size_t lt = strlen(t), le = strlen(en[k]);
        /* the unit is the text's end: replace it there, the number stays as written */
        if (lt > le && !strcmp(t + lt - le, en[k])) {
            snprintf(t + lt - le, sizeof t - (lt - le), "%s", ru[k]);
            break;
        }
    }
    snprintf(buf, n, "%s", t);
}

/* Text k (0 name, 1 description, 2 advice) of a problem in language lang (1: Russian), falling
 * back to English when the rule file gives no translation; templates come expanded (problems.h). */
static const char *rule_text(const struct lens_problem_result *r, int lang, int k)
{
    return lang == 1 && r->text[1][k] ? r->text[1][k] : r->text[0][k];
}

/* Problems with time lost: a rule that matched nothing has total 0 and is neither listed nor
 * counted. */
static int found(const struct lens_problems *p)
{
    int n = 0;
    for (int i = 0; i < p->nres; i++)
        n += p->res[i].total_s > 0;
    return n;
}

/* The longest rank of a trace (last event - first event), seconds. */
static double longest(const struct lens_problems_report_input *in)
{
    const struct lens_trace *t = in->analysis->trace;
    double m = 0;
    for (int r = 0; r < t->nranks; r++)
        if (t->ranks[r].nevents)
            /* A rank with no events has no span; the longest rank is the run as the trace saw it
             * (ranks start at different times). */
            m = fmax(m, t->ranks[r].t_last - t->ranks[r].t_first);
    return m;
}

/* Run time of an input: the measured wall time, else the longest rank of the trace. */
static double run_time(const struct lens_problems_report_input *in)
{
    /* The wall time measured outside (--walls) includes start-up and what tracing did not record,
     * so it is preferred for speed-ups; the trace span is the fallback. */
    return isfinite(in->wall_s) && in->wall_s > 0 ? in->wall_s : longest(in);
}

/* Seconds lost to all problems together: the sum of their totals. */
static double wasted(const struct lens_problems *p)
{
    double w = 0;
    for (int i = 0; i < p->nres; i++)
        w += p->res[i].total_s;
    return w;
}

/* ---- title page ---- */

static int title_vars(void *ctx, struct lens_err *e)
{
    struct prep *s = ctx;
    char date[64], def[512], names[4096];
    size_t o = 0;
    names[0] = '\0';
    /* the trace names, comma-separated, cut when the buffer is full; a path shows its last
     * two parts only (lens_report_path_tail), so the folder the report was made in never does */
    for (int i = 0; i < s->nin && o < sizeof names; i++)
        o += (size_t)snprintf(names + o, sizeof names - o, "%s%s", i ? ", " : "",
                              lens_report_path_tail(s->in[i].name));
    lens_time_format_date(s->o->date, date, sizeof date);
    struct lens_template_vars *v = &s->vars;
    int rc = lens_template_vars_set(v, "date", date, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "version", LENS_VERSION, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "traces", names, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "ntraces", "%d", s->nin);
    /* the field's label: a label may not hold the "|" of ${n|one|many} */
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "trace_word", lens_units_plural(s->nin, "trace", "traces"), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "rules", s->o->rules ? lens_report_path_tail(s->o->rules) : "-", e);
    /* every trace was checked with the same rules, so the first one's count is every one's */
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(v, e, "nrules", "%d",
                                 s->in[0].analysis->problems->rules->nproblems);
    if (rc == LENS_OK && s->o->title)
        rc = lens_template_vars_set(v, "title", s->o->title, e);
    else if (rc == LENS_OK && (rc = text(s, "default_title", def, sizeof def, e)) == LENS_OK)
        rc = lens_template_vars_set(v, "title", def, e);
    return rc;
}

/* How each traced run was made (page one): the archive's MPILENS::* properties that the
 * collector recorded at MPI_Init (struct lens_trace.prov), worded as the cube report's
 * provenance table. A trace without any (Score-P's, an older collector's) is said to have
 * none rather than "not recorded" four times. */
static int provenance_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "provenance"))
        return unknown_item(s, it, e);
    if (it->ncols != 2)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'provenance' needs 2 columns (what, value), got %d",
                            s->t->path, it->line, it->ncols);
    static const char *const labels[] = {"prov_measured", "prov_mpi", "prov_launcher", "prov_cores"};
    char lab[4][256], nr[256], v[4][1024], cell[4096];
    int rc = text(s, "prov_not_recorded", nr, sizeof nr, e);
    for (int row = 0; row < 4 && rc == LENS_OK; row++)
        rc = text(s, labels[row], lab[row], sizeof lab[row], e);
    for (int i = 0; i < s->nin && rc == LENS_OK; i++) {
        char *const *p = s->in[i].analysis->trace->prov; /* LENS_OTF2_PROP_KEYS order */
        int any = 0;
        for (int k = 0; k < LENS_OTF2_NPROP; k++)
            any |= p[k] != NULL;
        /* four values of five properties: launcher and binding share one, as in the cube report */
        snprintf(v[0], sizeof v[0], "%s", p[0] ? p[0] : nr);
        snprintf(v[1], sizeof v[1], "%s", p[1] ? p[1] : nr);
        snprintf(v[2], sizeof v[2], "%s; %s", p[2] ? p[2] : nr, p[3] ? p[3] : nr);
        snprintf(v[3], sizeof v[3], "%s", p[4] ? p[4] : nr);
        if (s->nin == 1) {
            /* one trace: a row per value, or one row saying none was recorded */
            char run[256];
            if (!any && (rc = text(s, "prov_run", run, sizeof run, e)) == LENS_OK)
                rc = lens_pdf_table_row(s->pdf, (const char *const[]){run, nr}, e);
            for (int row = 0; any && row < 4 && rc == LENS_OK; row++)
                rc = lens_pdf_table_row(s->pdf, (const char *const[]){lab[row], v[row]}, e);
            break;
        }
        /* Several traces (problems --versions gives one per version and process count): one
         * row each, "trace N" beside the path's last two parts and the values in one cell, so
         * that a dozen traces still fit page one. */
        size_t o = (size_t)snprintf(cell, sizeof cell, "%s: ", lens_report_path_tail(s->in[i].name));
        if (!any)
            snprintf(cell + o, sizeof cell - o, "%s", nr);
        for (int row = 0; any && row < 4 && o < sizeof cell; row++)
            o += (size_t)snprintf(cell + o, sizeof cell - o, "%s%s %s", row ? "; " : "", lab[row], v[row]);
        char idx[256];
        if ((rc = lens_template_vars_setf(&s->vars, e, "trace_index", "%d", i + 1)) == LENS_OK &&
            (rc = text(s, "prov_trace", idx, sizeof idx, e)) == LENS_OK)
            rc = lens_pdf_table_row(s->pdf, (const char *const[]){idx, cell}, e);
    }
    return rc;
}

/* ---- comparison of several traces (drawn only when there are two or more) ---- */

static int comparison_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "comparison"))
        return unknown_item(s, it, e);
    /* A comparison needs two runs; with one trace the section draws nothing and the template needs
     * no variant. */
    if (s->nin < 2)
        return LENS_OK;
    static const char *const heads[7] = {"col_run", "col_ranks", "col_time", "col_speedup",
                                         "col_wasted", "col_share", "col_largest"};
    /* the last column (the largest problem, in words) takes what the numbers leave */
    static const double widths[7] = {0.15, 0.09, 0.12, 0.13, 0.14, 0.10, 0};
    char h[7][128], buf[2048];
    struct lens_pdf_column cols[7];
    /* Speed-ups are against the first trace: the command line order says which run is the baseline
     * (naive, then overlapped). */
    double t0 = run_time(&s->in[0]);
    int rc = lens_template_vars_setf(&s->vars, e, "first", "%s", lens_report_path_tail(s->in[0].name));
    if (rc == LENS_OK)
        rc = lens_pdf_new_page(s->pdf, e);
    if (rc == LENS_OK && (rc = text(s, "heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 1, buf, e);
    if (rc == LENS_OK && (rc = text(s, "intro", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_paragraph(s->pdf, buf, e);
    for (int c = 0; c < 7 && rc == LENS_OK; c++) {
        rc = text(s, heads[c], h[c], sizeof h[c], e);
        cols[c] = (struct lens_pdf_column){h[c], c == 0 || c == 6 ? LENS_PDF_LEFT : LENS_PDF_RIGHT,
                                           widths[c]};
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_begin(s->pdf, cols, 7, LENS_PDF_SANS, e);
    for (int i = 0; i < s->nin && rc == LENS_OK; i++) {
        const struct lens_problems *p = s->in[i].analysis->problems;
        double t = run_time(&s->in[i]), w = wasted(p);
        char ranks[24], time[32], sp[32], ws[32], share[32], largest[512];
        snprintf(ranks, sizeof ranks, "%d", p->nranks);
        fmt_s(s, t, time, sizeof time);
        /* a run of no measurable time has no speed-up rather than an infinite one */
        snprintf(sp, sizeof sp, t > 0 ? "%.2fx" : "n/a", t0 / t);
        fmt_s(s, w, ws, sizeof ws);
        lens_units_percent(p->total_time_s > 0 ? 100 * w / p->total_time_s : 0, share, sizeof share);
        /* Results are sorted by time lost, largest first (problems.h), so the first one is the
         * largest; a clean run shows "-". */
        if (p->nres && p->res[0].total_s > 0) {
            char pct[32];
            lens_units_percent(100 * p->res[0].share, pct, sizeof pct);
            snprintf(largest, sizeof largest, "%s (%s)", rule_text(&p->res[0], s->o->lang, 0), pct);
        } else {
            snprintf(largest, sizeof largest, "-");
        }
        const char *cells[7] = {lens_report_path_tail(s->in[i].name), ranks, time, sp, ws, share, largest};
        rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_end(s->pdf, e);
    if (rc == LENS_OK && (rc = text(s, "note", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_text(s->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, buf, e);
    return rc;
}

/* ---- gain over process counts (only with `problems --versions`) ---- */

static int figure(struct prep *s, const unsigned char *png, size_t len, double h,
                  const char *caption_name, struct lens_err *e);

/* A table procs | time of each version | gain of each later version against the first, then
 * the figure of the times and the main problems' shares. Every number is the caller's
 * (opts.gain): this lays them out with the template's texts. */
static int gain_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "gain"))
        return unknown_item(s, it, e);
    const struct lens_gainplot_opts *g = s->o->gain;
    /* without versions the section draws nothing, and the template needs no variant */
    if (!g)
        return LENS_OK;
    /* procs, then a time per version, then a gain per version after the first */
    enum { MAXC = 2 * LENS_GAINPLOT_MAX_VERSIONS };
    int nv = g->nversions, nc = 2 * nv;
    if (nv < 1 || nv > LENS_GAINPLOT_MAX_VERSIONS)
        return lens_err_set(e, LENS_EINVAL, "gain: %d versions (1 to %d)", nv, LENS_GAINPLOT_MAX_VERSIONS);
    char h[MAXC][160], buf[2048], xl[128], tl[128], sl[128];
    struct lens_pdf_column cols[MAXC];
    int rc = lens_pdf_new_page(s->pdf, e);
    if (rc == LENS_OK && (rc = text(s, "heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 1, buf, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&s->vars, "first", g->version[0], e);
    if (rc == LENS_OK && (rc = text(s, "intro", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_paragraph(s->pdf, buf, e);
    if (rc == LENS_OK)
        rc = text(s, "col_procs", h[0], sizeof h[0], e);
    /* the column titles name their version through ${version} */
    for (int v = 0; v < nv && rc == LENS_OK; v++) {
        rc = lens_template_vars_set(&s->vars, "version", g->version[v], e);
        if (rc == LENS_OK)
            rc = text(s, "col_time", h[1 + v], sizeof h[1 + v], e);
        if (rc == LENS_OK && v > 0)
            rc = text(s, "col_gain", h[nv + v], sizeof h[nv + v], e);
    }
    /* procs + nv times + (nv - 1) gains = 2 nv columns; even widths, the last takes the rest */
    int ncols = nc;
    for (int c = 0; c < ncols; c++)
        cols[c] = (struct lens_pdf_column){h[c], c ? LENS_PDF_RIGHT : LENS_PDF_LEFT,
                                           c == ncols - 1 ? 0 : 1.0 / ncols};
    if (rc == LENS_OK)
        rc = lens_pdf_table_begin(s->pdf, cols, ncols, LENS_PDF_SANS, e);
    for (int p = 0; p < g->nprocs && rc == LENS_OK; p++) {
        char cell[MAXC][32];
        const char *cells[MAXC];
        snprintf(cell[0], sizeof cell[0], "%d", g->procs[p]);
        for (int v = 0; v < nv; v++) {
            fmt_s(s, g->time[v * g->nprocs + p], cell[1 + v], sizeof cell[1 + v]);
            /* as the comparison prints speed-ups: two decimals and an x */
            if (v > 0)
                snprintf(cell[nv + v], sizeof cell[nv + v], "%.2fx", g->gain[v * g->nprocs + p]);
        }
        for (int c = 0; c < ncols; c++)
            cells[c] = cell[c];
        rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_end(s->pdf, e);
    if (rc == LENS_OK && (rc = text(s, "note", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_text(s->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, buf, e);
    lens_pdf_space(s->pdf, 8);
    /* the figure, with the template's axis titles and the report's font */
    struct lens_gainplot_opts fo = *g;
    if (rc == LENS_OK) rc = text(s, "axis_procs", xl, sizeof xl, e);
    if (rc == LENS_OK) rc = text(s, "axis_time", tl, sizeof tl, e);
    if (rc == LENS_OK) rc = text(s, "axis_share", sl, sizeof sl, e);
    fo.xlabel = xl, fo.time_label = tl, fo.share_label = sl;
    fo.font_path = s->font_path;
    fo.width = fo.height = 0;
    double fh = lens_pdf_text_width(s->pdf) * 420 / 1000;
    if (rc == LENS_OK)
        rc = lens_pdf_need(s->pdf, fh + 60, e);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = lens_gainplot_png_mem(&fo, &png, &len, e);
    if (rc == LENS_OK)
        rc = figure(s, png, len, fh, "caption", e);
    lens_free(png);
    return rc;
}

/* ---- problems x runs (issue 14, item 7): drawn only with two or more traces ---- */

#define RUN_COLS (LENS_PDF_MAXCOLS - 2) /* the problem and change columns take two */

/* The result of rule id in a run's problems, NULL when that run's rule base lacks it. */
static const struct lens_problem_result *result_of(const struct lens_problems *p, const char *id)
{
    for (int i = 0; i < p->nres; i++)
        if (!strcmp(p->res[i].rule->id, id))
            return &p->res[i];
    return NULL;
}

/* Seconds of the site text among a result's listed sites; -1 when it is not listed (the lists
 * hold the top LENS_PROBLEMS_TOP sites, so "not listed" is not "0 s"). */
static double site_seconds(const struct lens_problem_result *r, const char *site)
{
    for (int k = 0; r && k < r->nsites; k++)
        if (!strcmp(r->sites[k].text, site))
            return r->sites[k].seconds;
    return -1;
}

/* "+12.3%" of last against first; a problem absent from the first run is "new". Ten times
 * or more is a factor ("2695x"): "+269524.3%" neither reads nor fits the column. */
static void fmt_change(double first, double last, char *buf, size_t n)
{
    if (first > 0 && last >= 10 * first)
        snprintf(buf, n, last >= 100 * first ? "%.0fx" : "%.1fx", last / first);
    else if (first > 0)
        snprintf(buf, n, "%+.1f%%", 100 * (last - first) / first);
    else
        snprintf(buf, n, last > 0 ? "new" : "-");
}

/* The runs shown as columns: all when they fit, else the first RUN_COLS - 1 and the last
 * (the change column compares the last with the first, so both must be visible). */
static int run_column(int nin, int c)
{
    return nin <= RUN_COLS || c < RUN_COLS - 1 ? c : nin - 1;
}

/* One row for a problem, then one per call site of it (in the first run's order, then the sites
 * only later runs have), each with its seconds per run and the change from first to last. */
static int run_problem_rows(struct prep *s, const struct lens_problem_result *r0, int nc,
                            struct lens_err *e)
{
    const char *id = r0->rule->id;
    char cell[RUN_COLS + 2][352];
    const char *cells[RUN_COLS + 2];
    double first = 0, last = 0;
    snprintf(cell[0], sizeof cell[0], "%s", rule_text(r0, s->o->lang, 0));
    for (int c = 0; c < nc; c++) {
        const struct lens_problem_result *r = result_of(s->in[run_column(s->nin, c)].analysis->problems, id);
        double v = r ? r->total_s : 0;
        fmt_s(s, v, cell[1 + c], sizeof cell[1 + c]);
        if (c == 0) first = v;
        last = v;
    }
    fmt_change(first, last, cell[1 + nc], sizeof cell[1 + nc]);
    for (int c = 0; c < nc + 2; c++)
        cells[c] = cell[c];
    int rc = lens_pdf_table_row(s->pdf, cells, e);
    /* Sites: every site listed in any run once, up to max_sites per run, so a site that
     * appeared or vanished between runs shows. A site is the same when its text is. */
    for (int run = 0; run < s->nin && rc == LENS_OK; run++) {
        const struct lens_problem_result *rr = result_of(s->in[run].analysis->problems, id);
        int n = rr ? (rr->nsites < s->o->max_sites ? rr->nsites : s->o->max_sites) : 0;
        for (int k = 0; k < n && rc == LENS_OK; k++) {
            const char *site = rr->sites[k].text;
            int seen = 0;
            for (int q = 0; q < run && !seen; q++)
                seen = site_seconds(result_of(s->in[q].analysis->problems, id), site) >= 0;
            if (seen || rr->sites[k].seconds <= 0)
                continue;
            /* a bullet marks the site rows: the PDF table trims leading blanks */
            snprintf(cell[0], sizeof cell[0], "\xe2\x80\xa2 %s", s->o->lang == 1 ? rr->sites[k].text_ru : site);
            double a = 0, b = 0;
            for (int c = 0; c < nc; c++) {
                double v = site_seconds(result_of(s->in[run_column(s->nin, c)].analysis->problems, id), site);
                if (v < 0)
                    snprintf(cell[1 + c], sizeof cell[1 + c], "-");
                else
                    fmt_s(s, v, cell[1 + c], sizeof cell[1 + c]);
                if (c == 0) a = fmax(v, 0);
                b = fmax(v, 0);
            }
            fmt_change(a, b, cell[1 + nc], sizeof cell[1 + nc]);
            rc = lens_pdf_table_row(s->pdf, cells, e);
        }
    }
    return rc;
}

static int run_problems_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "run_problems"))
        return unknown_item(s, it, e);
    if (s->nin < 2) /* a change needs two runs; with one the section draws nothing */
        return LENS_OK;
    int nc = s->nin < RUN_COLS ? s->nin : RUN_COLS;
    char h[RUN_COLS + 2][128], buf[2048];
    struct lens_pdf_column cols[RUN_COLS + 2];
    int rc = lens_pdf_new_page(s->pdf, e);
    if (rc == LENS_OK && (rc = text(s, "heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 1, buf, e);
    if (rc == LENS_OK && (rc = text(s, "intro", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_paragraph(s->pdf, buf, e);
    if (rc == LENS_OK)
        rc = text(s, "col_problem", h[0], sizeof h[0], e);
    if (rc == LENS_OK)
        rc = text(s, "col_change", h[1 + nc], sizeof h[1 + nc], e);
    /* the names take a third, the runs share the middle, the change the rest */
    cols[0] = (struct lens_pdf_column){h[0], LENS_PDF_LEFT, 0.36};
    for (int c = 0; c < nc; c++) {
        snprintf(h[1 + c], sizeof h[1 + c], "%s, s", lens_report_path_tail(s->in[run_column(s->nin, c)].name));
        cols[1 + c] = (struct lens_pdf_column){h[1 + c], LENS_PDF_RIGHT, 0.50 / nc};
    }
    cols[1 + nc] = (struct lens_pdf_column){h[1 + nc], LENS_PDF_RIGHT, 0};
    if (rc == LENS_OK)
        rc = lens_pdf_table_begin(s->pdf, cols, nc + 2, LENS_PDF_SANS, e);
    /* The rows follow the first run's ranking; problems found only in later runs come after,
     * in their run's order, so nothing found anywhere is left out. */
    for (int run = 0; run < s->nin && rc == LENS_OK; run++) {
        const struct lens_problems *p = s->in[run].analysis->problems;
        for (int i = 0; i < p->nres && rc == LENS_OK; i++) {
            const struct lens_problem_result *r = &p->res[i];
            int before = 0; /* already a row: found in an earlier run */
            for (int q = 0; q < run && !before; q++) {
                const struct lens_problem_result *o = result_of(s->in[q].analysis->problems, r->rule->id);
                before = o && o->total_s > 0;
            }
            if (r->total_s > 0 && !before)
                rc = run_problem_rows(s, r, nc, e);
        }
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_end(s->pdf, e);
    if (rc == LENS_OK && (rc = text(s, "note", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_text(s->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, buf, e);
    return rc;
}

/* ---- one trace: summary and ranked table ---- */

/* The placeholders of the trace being drawn, read by its summary paragraph and the headings of its
 * problem pages. */
static int trace_vars(void *ctx, struct lens_err *e)
{
    struct prep *s = ctx;
    const struct lens_problems_report_input *in = &s->in[s->cur];
    const struct lens_problems *p = in->analysis->problems;
    char total[32], w[32], rt[32], lg[32];
    fmt_s(s, p->total_time_s, total, sizeof total);
    fmt_s(s, wasted(p), w, sizeof w);
    fmt_s(s, run_time(in), rt, sizeof rt);
    fmt_s(s, longest(in), lg, sizeof lg);
    struct lens_template_vars *v = &s->vars;
    int rc = lens_template_vars_set(v, "trace_name", lens_report_path_tail(in->name), e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "trace_index", "%d", s->cur + 1);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nranks", "%d", p->nranks);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "events", "%llu", (unsigned long long)p->nevents);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "messages", "%llu", (unsigned long long)p->np2p);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "collectives", "%llu", (unsigned long long)p->ncoll);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "total_time", total, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "run_time", rt, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "longest", lg, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nfound", "%d", found(p));
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "wasted", w, e);
    char pct[32];
    /* As a share of the time of all ranks together (total_time_s), the same denominator as each
     * problem's share, so the shares add up; with its "%" sign (common/units.h). */
    lens_units_percent(p->total_time_s > 0 ? 100 * wasted(p) / p->total_time_s : 0, pct, sizeof pct);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "wasted_share", pct, e);
    return rc;
}

static int problems_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "problems"))
        return unknown_item(s, it, e);
    /* The rows below fill six cells; a template with another count would read or leave cells out of
     * bounds. */
    if (it->ncols != 6)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'problems' needs 6 columns (#, "
                            "problem, seconds, share, instances, most on rank), got %d",
                            s->t->path, it->line, it->ncols);
    const struct lens_problems *p = s->in[s->cur].analysis->problems;
    int rc = LENS_OK, k = 0;
    for (int i = 0; i < p->nres && rc == LENS_OK; i++) {
        const struct lens_problem_result *r = &p->res[i];
        if (r->total_s <= 0) /* rules that found nothing are not rows; k numbers the rows shown */
            continue;
        int worst = 0;
        /* The rank that lost the most to this problem; ties go to the lowest rank, so the table is
         * stable across runs. */
        for (int q = 1; q < p->nranks; q++)
            if (r->per_rank[q] > r->per_rank[worst])
                worst = q;
        char num[16], sec[32], share[32], count[32], most[64], worst_s[32];
        snprintf(num, sizeof num, "%d", ++k);
        fmt_s(s, r->total_s, sec, sizeof sec);
        lens_units_percent(100 * r->share, share, sizeof share);
        snprintf(count, sizeof count, "%llu", (unsigned long long)r->count);
        fmt_s(s, r->per_rank[worst], worst_s, sizeof worst_s);
        snprintf(most, sizeof most, "%d (%s)", worst, worst_s);
        const char *cells[6] = {num, rule_text(r, s->o->lang, 0), sec, share, count, most};
        rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    /* A clean trace still gets one row saying so: an empty table would look like a failure to draw. */
    if (rc == LENS_OK && k == 0) {
        char none[512];
        rc = text(s, "none", none, sizeof none, e);
        const char *cells[6] = {"", none, "", "", "", ""};
        if (rc == LENS_OK)
            rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    return rc;
}

/* ---- one trace: time in MPI per rank (issue 14, item 7) ---- */

/* Per rank: its span in the trace, the seconds inside MPI calls (lens_problems.mpi_s, the
 * mpi_time_per_rank of `problems --json`) and the rest. A rank that spends most of its time in
 * MPI is where the problems' seconds matter; one that computes most of the time is not. */
static int rank_times_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "rank_times"))
        return unknown_item(s, it, e);
    /* five cells per row below: a template with another count would read past them */
    if (it->ncols != 5)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d: table 'rank_times' needs 5 columns (rank, "
                            "run, in MPI, outside MPI, share), got %d", s->t->path, it->line,
                            it->ncols);
    const struct lens_trace *t = s->in[s->cur].analysis->trace;
    const struct lens_problems *p = s->in[s->cur].analysis->problems;
    int rc = LENS_OK;
    for (int r = 0; r < t->nranks && rc == LENS_OK; r++) {
        /* the rank's own span (first to last event), the same time total_time_s sums; a rank
         * without events has none, and its MPI time is 0 */
        double run = t->ranks[r].nevents ? t->ranks[r].t_last - t->ranks[r].t_first : 0;
        double mpi = p->mpi_s[r];
        char rank[16], rs[32], ms[32], os[32], share[32];
        snprintf(rank, sizeof rank, "%d", r);
        fmt_s(s, run, rs, sizeof rs);
        fmt_s(s, mpi, ms, sizeof ms);
        /* clock jitter can put MPI a hair above the span; outside MPI is never negative */
        fmt_s(s, fmax(run - mpi, 0), os, sizeof os);
        lens_units_percent(run > 0 ? 100 * mpi / run : NAN, share, sizeof share);
        const char *cells[5] = {rank, rs, ms, os, share};
        rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    return rc;
}

/* ---- one trace: the problems under 1 % gathered in one table (issue 14, item 7) ---- */

/* A problem under 1 % of the total time gets a row, not a page of its own: its pages would bury
 * the few problems that matter. Only when the template has the small_problems section, so a
 * template without it still details every problem. */
#define SMALL_SHARE 0.01

static int has_section(const struct lens_template *t, const char *name)
{
    for (int i = 0; i < t->nsections; i++)
        if (!strcmp(t->sections[i].name, name))
            return 1;
    return 0;
}

static int is_small(const struct prep *s, const struct lens_problem_result *r)
{
    return r->total_s > 0 && r->share < SMALL_SHARE && has_section(s->t, "small_problems");
}

/* How many problems found in p go to the small table. */
static int gathered(const struct prep *s, const struct lens_problems *p)
{
    int n = 0;
    for (int i = 0; i < p->nres; i++)
        n += is_small(s, &p->res[i]);
    return n;
}

static int small_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "small_problems"))
        return unknown_item(s, it, e);
    const struct lens_problems *p = s->in[s->cur].analysis->problems;
    if (gathered(s, p) == 0) /* nothing small: no heading over an empty table */
        return LENS_OK;
    static const char *const heads[6] = {"col_num", "col_problem", "col_seconds", "col_share",
                                         "col_count", "col_most"};
    static const double widths[6] = {0.05, 0.35, 0.14, 0.10, 0.14, 0};
    char h[6][128], buf[2048];
    struct lens_pdf_column cols[6];
    int rc = lens_pdf_need(s->pdf, 120, e); /* heading, intro and a first row together */
    if (rc == LENS_OK && (rc = text(s, "heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 2, buf, e);
    if (rc == LENS_OK && (rc = text(s, "intro", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_paragraph(s->pdf, buf, e);
    for (int c = 0; c < 6 && rc == LENS_OK; c++) {
        rc = text(s, heads[c], h[c], sizeof h[c], e);
        cols[c] = (struct lens_pdf_column){h[c], c == 1 ? LENS_PDF_LEFT : LENS_PDF_RIGHT,
                                           widths[c]};
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_begin(s->pdf, cols, 6, LENS_PDF_SANS, e);
    /* k numbers every problem found as the ranked table does, so a row here keeps its rank */
    int k = 0;
    for (int i = 0; i < p->nres && rc == LENS_OK; i++) {
        const struct lens_problem_result *r = &p->res[i];
        if (r->total_s <= 0)
            continue;
        k++;
        if (!is_small(s, r))
            continue;
        int worst = 0; /* ties to the lowest rank, as in the ranked table */
        for (int q = 1; q < p->nranks; q++)
            if (r->per_rank[q] > r->per_rank[worst])
                worst = q;
        char num[16], sec[32], share[32], count[32], most[64], worst_s[32];
        snprintf(num, sizeof num, "%d", k);
        fmt_s(s, r->total_s, sec, sizeof sec);
        lens_units_percent(100 * r->share, share, sizeof share);
        snprintf(count, sizeof count, "%llu", (unsigned long long)r->count);
        fmt_s(s, r->per_rank[worst], worst_s, sizeof worst_s);
        snprintf(most, sizeof most, "%d (%s)", worst, worst_s);
        const char *cells[6] = {num, rule_text(r, s->o->lang, 0), sec, share, count, most};
        rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_end(s->pdf, e);
    return rc;
}

/* ---- one trace: the message-size profile (issue 14, item 7) ---- */

/* The profile the caller binned (cli/cmd_problems.c, as `mpilens msgsizes` does): per size bin
 * the messages, bytes and seconds in the send calls, with their shares. Which sizes dominate
 * says whether latency (many small messages) or bandwidth (few large) is what to improve. */
static int msgsizes_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "msgsizes"))
        return unknown_item(s, it, e);
    const struct lens_msgsize *m = s->in[s->cur].msgsizes;
    if (!m) /* not computed (an API caller without it): no heading over nothing */
        return LENS_OK;
    static const char *const heads[6] = {"col_size", "col_count", "col_share", "col_bytes",
                                         "col_volume", "col_call"};
    static const double widths[6] = {0.26, 0.14, 0.13, 0.17, 0.13, 0};
    char h[6][128], buf[2048];
    struct lens_pdf_column cols[6];
    int rc = lens_template_vars_setf(&s->vars, e, "msg_total", "%llu",
                                     (unsigned long long)m->total_messages);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&s->vars, e, "msg_bytes", "%llu",
                                     (unsigned long long)m->total_bytes);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&s->vars, e, "coll_calls", "%llu",
                                     (unsigned long long)m->coll_calls);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&s->vars, e, "rma_ops", "%llu",
                                     (unsigned long long)m->rma_ops);
    if (rc == LENS_OK)
        rc = lens_pdf_need(s->pdf, 160, e); /* heading, intro and the first rows together */
    if (rc == LENS_OK && (rc = text(s, "heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 2, buf, e);
    if (rc == LENS_OK && (rc = text(s, "intro", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_paragraph(s->pdf, buf, e);
    for (int c = 0; c < 6 && rc == LENS_OK; c++) {
        rc = text(s, heads[c], h[c], sizeof h[c], e);
        cols[c] = (struct lens_pdf_column){h[c], c ? LENS_PDF_RIGHT : LENS_PDF_LEFT, widths[c]};
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_begin(s->pdf, cols, 6, LENS_PDF_SANS, e);
    for (size_t k = 0; k < m->nbins && rc == LENS_OK; k++) {
        const struct lens_msgsize_bin *b = &m->bins[k];
        char size[64], count[32], share[32], bytes[32], vol[32], call[32];
        /* pdftotext joins the lone "0 B" of the empty-message bin into "0B" (the one-letter
         * words sit too close for its word break), so that bin is named in words */
        if (b->hi == 0)
            snprintf(size, sizeof size, "0 bytes");
        else
            lens_msgsize_bin_label(b, size, sizeof size);
        snprintf(count, sizeof count, "%llu", (unsigned long long)b->count);
        lens_units_percent(100 * b->share_messages, share, sizeof share);
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)b->bytes);
        lens_units_percent(100 * b->share_volume, vol, sizeof vol);
        fmt_s(s, b->call_s, call, sizeof call);
        const char *cells[6] = {size, count, share, bytes, vol, call};
        rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_end(s->pdf, e);
    if (rc == LENS_OK && (rc = text(s, "note", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_text(s->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, buf, e);
    return rc;
}

/* ---- one trace: each problem in detail ---- */

/* Seconds of one problem per rank as a bar chart (PNG bytes). */
/* Drawn here rather than in render/fig because it is this report's alone; it uses the figure
 * helpers (fonts, ticks, PNG) so it looks like the other figures. */
static int rank_chart(struct prep *s, const struct lens_problem_result *r, int nranks,
                      unsigned char **png, size_t *len, struct lens_err *e)
{
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, CHART_W, CHART_H);
    cairo_t *cr = cairo_create(img);
    cairo_font_face_t *face = NULL;
    int rc = lens_figure_font_load(s->font_path, &face, e);
    if (rc == LENS_OK) {
        double vmax = 0, ticks[12], step;
        for (int q = 0; q < nranks; q++)
            vmax = fmax(vmax, r->per_rank[q]);
        /* Below a second the axis counts milliseconds, so the tick labels stay short numbers rather
         * than rows of zeros. */
        double unit = vmax >= 1 ? 1 : 1e-3; /* seconds or milliseconds */
        static const char *const lab[2][3] = {{"seconds", "milliseconds", "rank"},
                                              {"секунды", "миллисекунды", "процесс"}};
        int L = s->o->lang == 1;
        const char *ylab = lab[L][vmax >= 1 ? 0 : 1];
        int nt = lens_figure_ticks(0, vmax > 0 ? vmax / unit : 1, 0, 6, ticks, &step);
        double top = nt ? fmax(ticks[nt - 1], vmax / unit) : 1;
        double x0 = 90, y0 = 16, w = CHART_W - x0 - 20, h = CHART_H - y0 - 66;
        lens_figure_set_font(cr, face, 17);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_paint(cr);
        for (int i = 0; i < nt; i++) {
            char buf[48];
            double y = y0 + h - ticks[i] / top * h;
            cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
            cairo_set_line_width(cr, 1);
            cairo_move_to(cr, x0, y);
            cairo_line_to(cr, x0 + w, y);
            cairo_stroke(cr);
            cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
            lens_figure_format_value(ticks[i], step, buf, sizeof buf);
            lens_figure_text(cr, x0 - 8, y, buf, 1, 0.5, 0);
        }
        lens_figure_text(cr, 22, y0 + 0.5 * h, ylab, 0.5, 0.5, -M_PI / 2);
        double bw = w / nranks;
        /* A label needs about 60 pixels: with many ranks only every k-th is labelled, plus the last
         * one when it does not crowd its neighbour. */
        int every = (int)ceil(60.0 / bw);  /* rank labels that fit */
        for (int q = 0; q < nranks; q++) {
            double v = r->per_rank[q] / unit / top * h, gap = bw > 6 ? fmax(0.2 * bw, bw - 110) : 0;
            cairo_set_source_rgb(cr, 0.800, 0.000, 0.100);
            cairo_rectangle(cr, x0 + q * bw + 0.5 * gap, y0 + h - v, fmax(bw - gap, 0.5), v);
            cairo_fill(cr);
            if (q % every == 0 || (q == nranks - 1 && (q % every) * bw > 60)) {
                char buf[16];
                snprintf(buf, sizeof buf, "%d", q);
                cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
                lens_figure_text(cr, x0 + (q + 0.5) * bw, y0 + h + 8, buf, 0.5, 0, 0);
            }
        }
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
        cairo_set_line_width(cr, 1.5);
        cairo_move_to(cr, x0, y0 + h);
        cairo_line_to(cr, x0 + w, y0 + h);
        cairo_stroke(cr);
        lens_figure_text(cr, x0 + 0.5 * w, y0 + h + 34, lab[L][2], 0.5, 0, 0);
        cairo_font_face_destroy(face);
        rc = lens_figure_status(cr, "rank chart", e);
    }
    cairo_destroy(cr);
    if (rc == LENS_OK)
        rc = lens_figure_png_mem(img, "rank chart", png, len, e);
    cairo_surface_destroy(img);
    return rc;
}

/* A numbered figure with its caption from the text caption_name; the caller has made room for it. */
static int figure(struct prep *s, const unsigned char *png, size_t len, double h,
                  const char *caption_name, struct lens_err *e)
{
    char caption[2048];
    int rc = lens_template_vars_setf(&s->vars, e, "figure", "%d", ++s->figure);
    if (rc == LENS_OK)
        rc = text(s, caption_name, caption, sizeof caption, e);
    if (rc == LENS_OK)
        rc = lens_pdf_image_png(s->pdf, png, len, h, e);
    if (rc == LENS_OK)
        rc = lens_pdf_text(s->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, caption, e);
    lens_pdf_space(s->pdf, 8);
    return rc;
}

static int sites_table(struct prep *s, const struct lens_problem_result *r, struct lens_err *e)
{
    char h[3][128];
    int rc = text(s, "col_site", h[0], sizeof h[0], e);
    if (rc == LENS_OK) rc = text(s, "col_seconds", h[1], sizeof h[1], e);
    if (rc == LENS_OK) rc = text(s, "col_count", h[2], sizeof h[2], e);
    const struct lens_pdf_column cols[3] = {{h[0], LENS_PDF_LEFT, 0.66},
                                            {h[1], LENS_PDF_RIGHT, 0.18},
                                            {h[2], LENS_PDF_RIGHT, 0}};
    if (rc == LENS_OK)
        rc = lens_pdf_table_begin(s->pdf, cols, 3, LENS_PDF_SANS, e);
    /* sites come largest first (problems.h): the first max_sites explain most of the problem */
    int n = r->nsites < s->o->max_sites ? r->nsites : s->o->max_sites;
    for (int k = 0; k < n && rc == LENS_OK; k++) {
        char sec[32], count[32];
        fmt_s(s, r->sites[k].seconds, sec, sizeof sec);
        snprintf(count, sizeof count, "%llu", (unsigned long long)r->sites[k].count);
        /* the call site in the report's language */
        const char *cells[3] = {s->o->lang == 1 ? r->sites[k].text_ru : r->sites[k].text, sec,
                                count};
        rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_end(s->pdf, e);
    return rc;
}

static int timeline(struct prep *s, const struct lens_problem_result *r, struct lens_err *e)
{
    const struct lens_problems_report_input *in = &s->in[s->cur];
    struct lens_timeline_opts o;
    struct lens_timeline_window w;
    lens_timeline_opts_init(&o);
    o.problem = r->rule->id;
    o.lang = s->o->lang;
    o.width = TL_W;
    o.font_size = TL_FONT;
    o.font_path = s->font_path;
    char wd[64], sec[64], buf[512];
    /* The window around the worst instance of this problem, chosen by the timeline module from the
     * finished analysis (no events are rebuilt: tests/test_timeline_api.c counts it). */
    int rc = lens_timeline_select(in->analysis, &o, &w, e);
    if (rc != LENS_OK)
        return rc;
    /* windows are short: the prefix follows their length (ms or µs), never seconds with 6 decimals */
    fmt_s(s, w.t1 - w.t0, wd, sizeof wd);
    fmt_s(s, w.seconds, sec, sizeof sec);
    rc = lens_template_vars_set(&s->vars, "window", wd, e);
    fmt_s(s, w.t0, buf, sizeof buf);
    if (rc == LENS_OK) rc = lens_template_vars_set(&s->vars, "window_start", buf, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(&s->vars, e, "rank", "%d", w.rank);
    if (rc == LENS_OK) rc = lens_template_vars_set(&s->vars, "seconds", sec, e);
    fmt_s(s, w.time, buf, sizeof buf);
    if (rc == LENS_OK) rc = lens_template_vars_set(&s->vars, "instance_time", buf, e);
    int W, H;
    /* The timeline's height follows its lanes, so its size is asked before placing it: heading,
     * figure and caption then go on one page. */
    lens_timeline_size(&o, &w, &W, &H);
    double h = lens_pdf_text_width(s->pdf) * H / W;
    if (rc == LENS_OK) /* heading, figure and caption on one page */
        rc = lens_pdf_need(s->pdf, h + 90, e);
    if (rc == LENS_OK && (rc = text(s, "timeline_heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 3, buf, e);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = lens_timeline_png_mem(in->analysis, &o, &w, &png, &len, e);
    if (rc == LENS_OK)
        rc = figure(s, png, len, h, "timeline_caption", e);
    lens_free(png);
    return rc;
}

/* Heading, totals, description, advice, ranks, sites and timeline of one problem. */
static int detail(struct prep *s, const struct lens_problem_result *r, int index,
                  struct lens_err *e)
{
    const struct lens_problems *p = s->in[s->cur].analysis->problems;
    int L = s->o->lang, worst = 0;
    for (int q = 1; q < p->nranks; q++)
        if (r->per_rank[q] > r->per_rank[worst])
            worst = q;
    char total[32], wsec[32], buf[4096];
    fmt_s(s, r->total_s, total, sizeof total);
    fmt_s(s, r->per_rank[worst], wsec, sizeof wsec);
    struct lens_template_vars *v = &s->vars;
    int rc = lens_template_vars_setf(v, e, "index", "%d", index);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "name", rule_text(r, L, 0), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "id", r->rule->id, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "total", total, e);
    char pct[32];
    lens_units_percent(100 * r->share, pct, sizeof pct);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "share", pct, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "count", "%llu", (unsigned long long)r->count);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "worst_rank", "%d", worst);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "worst_rank_s", wsec, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "description", rule_text(r, L, 1), e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "advice", rule_text(r, L, 2), e);
    /* The placeholders are set before the page starts: the heading and paragraphs below expand
     * them. */
    if (rc == LENS_OK) rc = lens_pdf_new_page(s->pdf, e); /* one problem per page */
    static const char *const paras[] = {"totals", "what", "todo"};
    if (rc == LENS_OK && (rc = text(s, "heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 2, buf, e);
    for (int k = 0; k < 3 && rc == LENS_OK; k++) {
        if ((rc = text(s, paras[k], buf, sizeof buf, e)) == LENS_OK)
            rc = lens_pdf_paragraph(s->pdf, buf, e);
        lens_pdf_space(s->pdf, 3);
    }
    if (rc == LENS_OK && (rc = text(s, "sites_heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 3, buf, e);
    if (rc == LENS_OK)
        rc = sites_table(s, r, e);
    /* the chart at full text width, kept on one page with its heading and caption (80 points) */
    double ch = lens_pdf_text_width(s->pdf) * CHART_H / CHART_W;
    if (rc == LENS_OK)
        rc = lens_pdf_need(s->pdf, ch + 80, e);
    if (rc == LENS_OK && (rc = text(s, "ranks_heading", buf, sizeof buf, e)) == LENS_OK)
        rc = lens_pdf_heading(s->pdf, 3, buf, e);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = rank_chart(s, r, p->nranks, &png, &len, e);
    if (rc == LENS_OK)
        rc = figure(s, png, len, ch, "ranks_caption", e);
    lens_free(png);
    if (rc == LENS_OK && s->o->timelines)
        rc = timeline(s, r, e);
    return rc;
}

static int details_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "problems"))
        return unknown_item(s, it, e);
    const struct lens_problems *p = s->in[s->cur].analysis->problems;
    int rc = LENS_OK, shown = 0, nf = found(p) - gathered(s, p);
    /* In rank order, at most max_problems pages; the rest are counted in one sentence so the reader
     * knows the list was cut. The small ones gathered in one table are not among them. */
    for (int i = 0; i < p->nres && rc == LENS_OK && shown < s->o->max_problems; i++)
        if (p->res[i].total_s > 0 && !is_small(s, &p->res[i]))
            rc = detail(s, &p->res[i], ++shown, e);
    if (rc == LENS_OK && nf > shown) {
        char buf[512];
        rc = lens_template_vars_setf(&s->vars, e, "more", "%d", nf - shown);
        if (rc == LENS_OK && (rc = text(s, "more", buf, sizeof buf, e)) == LENS_OK)
            rc = lens_pdf_paragraph(s->pdf, buf, e);
    }
    return rc;
}

/* ---- the section table: one row per section a template may name ---- */

static const struct lens_doc_section sections[] = {
    {"title", LENS_DOC_NONE, title_vars, provenance_table, NULL},
    {"comparison", LENS_DOC_NONE, NULL, NULL, comparison_block},
    {"gain", LENS_DOC_NONE, NULL, NULL, gain_block},
    {"run_problems", LENS_DOC_NONE, NULL, NULL, run_problems_block},
    {"trace", LENS_DOC_TRACE, trace_vars, problems_table, NULL},
    {"rank_times", LENS_DOC_TRACE, NULL, rank_times_table, NULL},
    {"msgsizes", LENS_DOC_TRACE, NULL, NULL, msgsizes_block},
    {"problem_details", LENS_DOC_TRACE, NULL, NULL, details_block},
    {"small_problems", LENS_DOC_TRACE, NULL, NULL, small_block},
    /* the works the methods come from: all template text, drawn once at the end */
    {"references", LENS_DOC_NONE, NULL, NULL, NULL},
};

/* No per-input callback: the trace sections set their own placeholders in trace_vars. */
static const struct lens_doc_kind kind = {"problems_report.tmpl", "Performance problems", sections,
                                          (int)(sizeof sections / sizeof sections[0]), NULL, NULL, NULL};

int lens_problems_report_write(const struct lens_problems_report_opts *o,
                               const struct lens_problems_report_input *in, int nin,
                               const char *path, struct lens_err *e)
{
    if (nin < 1 || !in)
        return lens_err_set(e, LENS_EINVAL, "%s: no trace to report", path);
    for (int i = 0; i < nin; i++)
        /* The report lays out a finished lens_trace_analysis (trace, events, problems); the
         * per-rank arrays are indexed by the trace's ranks, so the two counts must agree. */
        if (!in[i].analysis || !in[i].analysis->trace || !in[i].analysis->problems ||
            !in[i].name || in[i].analysis->problems->nranks != in[i].analysis->trace->nranks)
            return lens_err_set(e, LENS_EINVAL, "%s: input %d lacks its trace or problems",
                                path, i + 1);
    if (o->max_problems < 0 || o->max_sites < 0)
        return lens_err_set(e, LENS_EINVAL, "%s: bad limits (problems %d, sites %d)", path,
                            o->max_problems, o->max_sites);
    char tpath[PATH_MAX];
    const char *dd = o->datadir ? o->datadir : ".", *tp = o->template_path;
    /* the Russian template when there is one, else the kind's default */
    snprintf(tpath, sizeof tpath, "%s/templates/problems_report_ru.tmpl", dd);
    /* an explicit --template always wins over the language's default */
    if (!tp && o->lang == 1 && access(tpath, R_OK) == 0)
        tp = tpath;
    struct prep s = {.o = o, .in = in, .nin = nin, .cur = -1};
    /* every input is a trace: .every instead of a kinds array */
    const struct lens_doc d = {.kind = &kind, .datadir = dd, .template_path = tp, .date = o->date,
                               .ninputs = nin, .every = LENS_DOC_TRACE, .ctx = &s, .t = &s.t, .sec = &s.sec,
                               .pdf = &s.pdf, .vars = &s.vars, .cur = &s.cur, .font_path = s.font_path,
                               .font_path_size = sizeof s.font_path};
    return lens_doc_write(&d, path, e);
}
