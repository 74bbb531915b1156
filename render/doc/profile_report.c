/* The profile report (profile_report.h). The template decides the order, headings and prose;
 * this file supplies, per section, the placeholder values, table rows and figures. Figures
 * come from render/fig/profile_plot.h, which writes files: each is drawn into a private temporary
 * directory, read back into memory, removed, and embedded as PNG. Each section is a row of the
 * `sections` table near the end, drawn by render/doc/doc.c. */
#include "profile_report.h"
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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIG_ASPECT (540.0 / 900.0) /* height / width of the profile_plot figures */

/* The context every section function receives: the caller's profile and ICAPPA result (borrowed),
 * what the driver fills through struct lens_doc, and the order of the functions, sorted once for
 * the table. */
struct prep {
    const struct lens_profile_report_opts *o;
    const struct lens_profile *p;
    const struct lens_icappa *r;
    const struct lens_template *t;
    const struct lens_template_section *sec; /* section being drawn */
    struct lens_pdf *pdf;
    struct lens_template_vars vars;
    size_t *order;                       /* functions, costliest first (owned) */
    double total;                        /* seconds, all functions and processes */
    int figure;                          /* figures drawn so far (numbering) */
    char font_path[PATH_MAX + 32];
    char tmpdir[PATH_MAX];               /* private figure directory, "" until made */
};

void lens_profile_report_opts_init(struct lens_profile_report_opts *o)
{
    memset(o, 0, sizeof *o);
    /* The table shows the 25 costliest functions (a profile may list thousands); the rest are
     * counted in one row. */
    o->max_functions = 25;
    o->max_rounds = 8; /* the bar figures of the first rounds; later rounds refine small groups */
    o->date = lens_time_source_date();
}

/* A section text expanded with the current placeholders into buf. */
static int text(struct prep *s, const char *name, char *buf, size_t n, struct lens_err *e)
{
    return lens_template_text_buf(s->t, s->sec, name, &s->vars, buf, n, e);
}

static int unknown_item(struct prep *s, const struct lens_template_item *it, struct lens_err *e)
{
    return lens_template_unknown_item(s->t, s->sec, it, e);
}

/* Seconds as a bare number under a header that says "seconds": the reports' 4 significant
 * digits in fixed notation (common/units.h), so 1145.2 s of a whole run and 0.3012 s of one
 * function read to the same precision. */
static void fmt_s(double v, char *buf, size_t n)
{
    lens_units_num(v, LENS_UNITS_DIGITS, buf, n);
}

/* Ranks of the given rows as ranges ("0-3, 7, 9-12"), cut with "and N more" when long. */
static void ranges(const struct lens_profile *p, const size_t *rows, size_t n, char *buf, size_t len)
{
    size_t o = 0, shown = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; shown++) {
        size_t j = i;
        /* Rows are processes in profile order: consecutive MPI ranks fold into "a-b". */
        while (j + 1 < n && p->ranks[rows[j + 1]] == p->ranks[rows[j]] + 1)
            j++;
        char item[48];
        if (j > i)
            snprintf(item, sizeof item, "%ld-%ld", p->ranks[rows[i]], p->ranks[rows[j]]);
        else
            snprintf(item, sizeof item, "%ld", p->ranks[rows[i]]);
        /* Keep 24 bytes for " and N more" so the tail always fits; N counts the processes left, not
         * the ranges. */
        if (o + strlen(item) + 24 >= len) {
            snprintf(buf + o, len - o, " and %zu more", n - i);
            return;
        }
        o += (size_t)snprintf(buf + o, len - o, "%s%s", shown ? ", " : "", item);
        i = j + 1;
    }
}

/* seconds of function f on process q: the profile is process-major */
static double cell(const struct lens_profile *p, size_t q, size_t f) { return p->sec[q * p->nfunc + f]; }

/* ---- title ---- */

static int title_vars(void *ctx, struct lens_err *e)
{
    struct prep *s = ctx;
    char date[64], total[64], def[512];
    lens_time_format_date(s->o->date, date, sizeof date);
    fmt_s(s->total, total, sizeof total);
    struct lens_template_vars *v = &s->vars;
    int rc = lens_template_vars_set(v, "date", date, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "version", LENS_VERSION, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "input", s->o->input ? s->o->input : "-", e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nproc", "%zu", s->p->nproc);
    if (rc == LENS_OK) rc = lens_template_vars_setf(v, e, "nfunc", "%zu", s->p->nfunc);
    if (rc == LENS_OK) rc = lens_template_vars_set(v, "total", total, e);
    if (rc == LENS_OK && s->o->title)
        rc = lens_template_vars_set(v, "title", s->o->title, e);
    else if (rc == LENS_OK && (rc = text(s, "default_title", def, sizeof def, e)) == LENS_OK)
        rc = lens_template_vars_set(v, "title", def, e);
    return rc;
}

/* ---- where the time goes ---- */

static int where_vars(void *ctx, struct lens_err *e)
{
    struct prep *s = ctx;
    double dom = 0;
    /* The time of the dominating functions ICAPPA found, as a share of all time: the headline
     * number of the report. */
    for (size_t i = 0; i < s->r->ndom; i++)
        dom += lens_profile_func_total(s->p, s->r->dom[i]);
    int rc = lens_template_vars_setf(&s->vars, e, "ndom", "%zu", s->r->ndom);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&s->vars, e, "ncostly", "%zu", s->r->ncostly);
    if (rc == LENS_OK)
        rc = lens_template_vars_setf(&s->vars, e, "dom_share", "%.1f", s->total > 0 ? 100 * dom / s->total : 0);
    return rc;
}

/* The ICAPPA answer in words (lens_icappa_write_prose) as one paragraph. */
static int prose_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "prose"))
        return unknown_item(s, it, e);
    char *buf = NULL;
    size_t len = 0;
    /* The prose writer prints to a stream (`mpilens profile-clusters` prints it to stdout); a
     * memory stream lets the report reuse it word for word. */
    FILE *fp = open_memstream(&buf, &len);
    if (!fp)
        return lens_err_set(e, LENS_ENOMEM, "profile report: out of memory");
    int rc = lens_icappa_write_prose(s->r, s->p, fp, e);
    if (fclose(fp) != 0 && rc == LENS_OK)
        rc = lens_err_set(e, LENS_ENOMEM, "profile report: out of memory");
    /* trailing newlines would end the paragraph with an empty line */
    while (rc == LENS_OK && len > 0 && buf[len - 1] == '\n')
        buf[--len] = '\0';
    if (rc == LENS_OK)
        rc = lens_pdf_paragraph(s->pdf, buf, e);
    free(buf); /* open_memstream allocates with malloc */
    return rc;
}

static int functions_table(struct prep *s, struct lens_err *e)
{
    const struct lens_profile *p = s->p;
    /* rows in s->order: costliest first, ties by name (cmp_cost) */
    size_t n = p->nfunc < (size_t)s->o->max_functions ? p->nfunc : (size_t)s->o->max_functions;
    int rc = LENS_OK;
    for (size_t i = 0; i < n && rc == LENS_OK; i++) {
        size_t f = s->order[i];
        double t = lens_profile_func_total(p, f), mx = 0;
        for (size_t q = 0; q < p->nproc; q++)
            /* The most one process spent in f: a function costly on one process only shows a max
             * close to its total. */
            mx = cell(p, q, f) > mx ? cell(p, q, f) : mx;
        int dom = 0;
        for (size_t k = 0; k < s->r->ndom; k++)
            dom |= s->r->dom[k] == f; /* marked when ICAPPA named it dominating */
        char num[24], sec[32], share[32], max[32];
        snprintf(num, sizeof num, "%zu", i + 1);
        fmt_s(t, sec, sizeof sec);
        snprintf(share, sizeof share, "%.1f%%", s->total > 0 ? 100 * t / s->total : 0);
        fmt_s(mx, max, sizeof max);
        const char *cells[6] = {num, p->funcs[f], sec, share, max, dom ? "yes" : ""};
        rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    if (rc == LENS_OK && n < p->nfunc) {
        char more[256];
        rc = lens_template_vars_setf(&s->vars, e, "more", "%zu", p->nfunc - n);
        if (rc == LENS_OK)
            rc = text(s, "more", more, sizeof more, e);
        const char *cells[6] = {"", more, "", "", "", ""};
        if (rc == LENS_OK)
            rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    return rc;
}

/* One row of the groups table: the given rows' mean seconds per process. */
static int group_row(struct prep *s, const char *label_text, const size_t *rows, size_t n,
                     struct lens_err *e)
{
    /* Means per process, so a group of 3 costly processes compares with a group of 60 others. */
    double dom = 0, all = 0;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < s->r->ndom; k++)
            dom += cell(s->p, rows[i], s->r->dom[k]);
        for (size_t f = 0; f < s->p->nfunc; f++)
            all += cell(s->p, rows[i], f);
    }
    char label[128], count[32], ranks[512], d[32], a[32];
    int rc = text(s, label_text, label, sizeof label, e);
    if (rc != LENS_OK)
        return rc;
    snprintf(count, sizeof count, "%zu", n);
    ranges(s->p, rows, n, ranks, sizeof ranks);
    fmt_s(n ? dom / (double)n : 0, d, sizeof d);
    fmt_s(n ? all / (double)n : 0, a, sizeof a);
    const char *cells[5] = {label, count, ranks, d, a};
    return lens_pdf_table_row(s->pdf, cells, e);
}

static int groups_table(struct prep *s, struct lens_err *e)
{
    const struct lens_profile *p = s->p;
    size_t *rows = lens_malloc((p->nproc + 1) * sizeof *rows);
    char *mark = lens_calloc(p->nproc + 1, 1);
    int rc = rows && mark ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "profile report: out of memory");
    /* No costly subset (none, or everyone): one row for all processes instead of a "costly" row and
     * an empty "others" row. */
    if (rc == LENS_OK && (s->r->ncostly == 0 || s->r->ncostly == p->nproc)) {
        for (size_t q = 0; q < p->nproc; q++)
            rows[q] = q;
        rc = group_row(s, "everyone", rows, p->nproc, e);
    } else if (rc == LENS_OK) {
        for (size_t i = 0; i < s->r->ncostly; i++)
            mark[s->r->costly[i]] = 1;
        rc = group_row(s, "costly", s->r->costly, s->r->ncostly, e);
        size_t n = 0;
        for (size_t q = 0; q < p->nproc; q++)
            if (!mark[q])
                rows[n++] = q;
        if (rc == LENS_OK)
            rc = group_row(s, "others", rows, n, e);
    }
    lens_free(rows);
    lens_free(mark);
    return rc;
}

static int where_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (!strcmp(it->name, "functions"))
        return functions_table(s, e);
    if (!strcmp(it->name, "groups"))
        return groups_table(s, e);
    return unknown_item(s, it, e);
}

/* ---- figures ---- */

/* Draws one figure (round k's bars; k == -1 the scatter, -2 the box plots) into the private directory and
 * reads it back: *png is lens_malloc'd. */
static int figure_png(struct prep *s, long k, unsigned char **png, size_t *len, struct lens_err *e)
{
    *png = NULL;
    /* The figure functions of render/fig/profile_plot.h write files, so the figures go through one
     * private directory (mkdtemp, made on first use, removed after the report) and never touch the
     * user's folders. */
    if (!s->tmpdir[0]) {
        const char *base = s->o->tmpdir ? s->o->tmpdir : getenv("TMPDIR");
        snprintf(s->tmpdir, sizeof s->tmpdir, "%s/mpilens-profile.XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(s->tmpdir)) {
            int rc = lens_err_set(e, LENS_EIO, "%s: cannot make a directory for the figures", s->tmpdir);
            s->tmpdir[0] = '\0';
            return rc;
        }
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/figure.png", s->tmpdir);
    /* While a command's outputs are grouped (cli/main.c), an atomic write would be renamed only at
     * the end; suspending makes this scratch file appear now, so it can be read back. */
    int depth = lens_atomic_group_suspend(); /* a scratch file, read back at once */
    int rc = k >= 0    ? lens_profile_plot_bars(s->p, s->r, (size_t)k, path, s->font_path, e)
             : k == -1 ? lens_profile_plot_scatter(s->p, s->r, path, s->font_path, e)
                       : lens_profile_plot_distribution(s->p, s->o->dist, path, s->font_path, e);
    lens_atomic_group_resume(depth);
    if (rc != LENS_OK)
        return rc;
    FILE *fp = fopen(path, "rb");
    long n = -1;
    if (fp && fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) > 0 && fseek(fp, 0, SEEK_SET) == 0 &&
        (*png = lens_malloc((size_t)n)) && fread(*png, 1, (size_t)n, fp) == (size_t)n)
        *len = (size_t)n;
    else if (n > 0 && !*png)
        rc = lens_err_set(e, LENS_ENOMEM, "profile report: out of memory for a figure");
    else
        rc = lens_err_set(e, LENS_EIO, "%s: cannot read the figure back", path);
    if (fp)
        fclose(fp);
    unlink(path); /* the next figure reuses the name; the directory goes at the end */
    if (rc != LENS_OK) {
        lens_free(*png);
        *png = NULL;
    }
    return rc;
}

/* A figure with its caption, kept together on one page. */
static int place_figure(struct prep *s, long k, const char *caption, struct lens_err *e)
{
    /* height at full text width, plus 40 points for the caption on the same page */
    double h = lens_pdf_text_width(s->pdf) * FIG_ASPECT;
    int rc = lens_pdf_need(s->pdf, h + 40, e);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = figure_png(s, k, &png, &len, e);
    if (rc == LENS_OK)
        rc = lens_pdf_image_png(s->pdf, png, len, h, e);
    lens_free(png);
    if (rc == LENS_OK)
        rc = lens_pdf_text(s->pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, caption, e);
    if (rc == LENS_OK)
        lens_pdf_space(s->pdf, 10);
    return rc;
}

static int bars_block(struct prep *s, struct lens_err *e)
{
    int rc = LENS_OK;
    /* One bar figure per ICAPPA round (the split it tried, on functions or on processes), up to
     * max_rounds. */
    for (size_t k = 0; k < s->r->nrounds && k < (size_t)s->o->max_rounds && rc == LENS_OK; k++) {
        const struct lens_icappa_round *d = &s->r->rounds[k];
        char caption[2048];
        rc = lens_template_vars_setf(&s->vars, e, "figure", "%d", ++s->figure);
        if (rc == LENS_OK) rc = lens_template_vars_setf(&s->vars, e, "round", "%zu", k + 1);
        if (rc == LENS_OK)
            rc = lens_template_vars_set(&s->vars, "set", d->set == LENS_ICAPPA_FUNCTIONS ? "functions" : "processes", e);
        if (rc == LENS_OK)
            rc = lens_template_vars_setf(&s->vars, e, "sizes", "%zu | %zu points", d->size[0], d->size[1]);
        if (rc == LENS_OK) rc = text(s, "bars_caption", caption, sizeof caption, e);
        if (rc == LENS_OK) rc = place_figure(s, (long)k, caption, e);
    }
    return rc;
}

static int scatter_block(struct prep *s, struct lens_err *e)
{
    char caption[2048];
    /* A scatter needs two processes to compare, and with thousands of functions the points would
     * hide each other: a sentence says why there is no figure. */
    if (s->p->nproc < 2 || s->p->nfunc > 4096) {
        int rc = text(s, "no_scatter", caption, sizeof caption, e);
        return rc == LENS_OK ? lens_pdf_paragraph(s->pdf, caption, e) : rc;
    }
    int rc = lens_template_vars_setf(&s->vars, e, "figure", "%d", ++s->figure);
    if (rc == LENS_OK) rc = lens_template_vars_setf(&s->vars, e, "ncostly", "%zu", s->r->ncostly);
    if (rc == LENS_OK) rc = text(s, "scatter_caption", caption, sizeof caption, e);
    return rc == LENS_OK ? place_figure(s, -1, caption, e) : rc;
}

/* The box plots of the dominating functions per process cluster, when the caller computed
 * them (opts.dist): numbers from analysis, so the report stays a layout. */
static int distribution_block(struct prep *s, struct lens_err *e)
{
    const struct lens_icappa_dist *d = s->o->dist;
    if (!d || !d->nfunc || !d->ngroups)
        return LENS_OK;
    char caption[2048], groups[256] = "";
    /* sizes of the groups in drawing order: "4 | 12" or "5 | 5 | 30" */
    for (size_t g = 0, n = 0; g < d->ngroups && n < sizeof groups; g++)
        n += (size_t)snprintf(groups + n, sizeof groups - n, "%s%zu", g ? " | " : "", d->gsize[g]);
    int rc = lens_template_vars_setf(&s->vars, e, "figure", "%d", ++s->figure);
    if (rc == LENS_OK) rc = lens_template_vars_set(&s->vars, "groups", groups, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(&s->vars, e, "nshown", "%zu", d->nfunc < 12 ? d->nfunc : 12);
    if (rc == LENS_OK) rc = text(s, "distribution_caption", caption, sizeof caption, e);
    return rc == LENS_OK ? place_figure(s, -2, caption, e) : rc;
}

static int figures_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (!strcmp(it->name, "distribution"))
        return distribution_block(s, e);
    if (!strcmp(it->name, "bars"))
        return bars_block(s, e);
    if (!strcmp(it->name, "scatter"))
        return scatter_block(s, e);
    return unknown_item(s, it, e);
}

/* ---- the rounds ---- */

static int iterations_vars(void *ctx, struct lens_err *e)
{
    struct prep *s = ctx;
    int rc = lens_template_vars_setf(&s->vars, e, "nrounds", "%zu", s->r->nrounds);
    if (rc == LENS_OK) rc = lens_template_vars_set(&s->vars, "stop_functions", s->r->stop[0] ? s->r->stop[0] : "-", e);
    if (rc == LENS_OK) rc = lens_template_vars_set(&s->vars, "stop_processes", s->r->stop[1] ? s->r->stop[1] : "-", e);
    return rc;
}

/* BIC values span orders of magnitude; four significant digits show which model won, in
 * fixed notation ("-12346", where %.4g wrote "-1.235e+04"). */
static void fmt_bic(double v, char *buf, size_t n)
{
    lens_units_num(v, LENS_UNITS_DIGITS, buf, n);
}

static int rounds_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct prep *s = ctx;
    if (strcmp(it->name, "rounds"))
        return unknown_item(s, it, e);
    int rc = LENS_OK;
    for (size_t k = 0; k < s->r->nrounds && rc == LENS_OK; k++) {
        const struct lens_icappa_round *d = &s->r->rounds[k];
        char num[24], pts[32], kept[64], sizes[64], b2[32], b1[32], bic[80], what[64], decision[512];
        snprintf(num, sizeof num, "%zu", k + 1);
        snprintf(pts, sizeof pts, "%zu", d->npoints);
        snprintf(kept, sizeof kept, "%zu of %zu", d->nkept, d->nattr);
        snprintf(sizes, sizeof sizes, "%zu | %zu", d->size[0], d->size[1]);
        fmt_bic(d->bic2, b2, sizeof b2);
        fmt_bic(d->bic1, b1, sizeof b1);
        /* two clusters against one: BIC is a penalised log-likelihood (docs/methods.md §7), so a split
         * needs the first to be higher */
        snprintf(bic, sizeof bic, "%s / %s", b2, b1);
        rc = text(s, d->accepted ? "accepted" : "rejected", what, sizeof what, e);
        /* with the reason the search stopped, when this round ended it */
        snprintf(decision, sizeof decision, "%s%s%s", what, d->stop ? "; " : "", d->stop ? d->stop : "");
        const char *cells[7] = {num, d->set == LENS_ICAPPA_FUNCTIONS ? "functions" : "processes", pts, kept,
                                sizes, bic, decision};
        if (rc == LENS_OK)
            rc = lens_pdf_table_row(s->pdf, cells, e);
    }
    return rc;
}

/* ---- the section table: one row per section the template may name ---- */

static const struct lens_doc_section sections[] = {
    {"title", LENS_DOC_NONE, title_vars, NULL, NULL},
    {"where", LENS_DOC_NONE, where_vars, where_table, prose_block},
    {"figures", LENS_DOC_NONE, NULL, NULL, figures_block},
    {"iterations", LENS_DOC_NONE, iterations_vars, rounds_table, NULL},
    /* the works the methods come from: all template text, drawn once at the end */
    {"references", LENS_DOC_NONE, NULL, NULL, NULL},
};

/* No per-input callback: there is one profile and every section is about the whole document. */
static const struct lens_doc_kind kind = {"profile_report.tmpl", "Where the time goes", sections,
                                          (int)(sizeof sections / sizeof sections[0]), NULL, NULL, NULL};

/* Costliest first, ties by name, so the order does not depend on the input's column order. */
static int cmp_cost(const void *a, const void *b, void *ctx)
{
    const struct lens_profile *p = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    double tx = lens_profile_func_total(p, x), ty = lens_profile_func_total(p, y);
    if (tx != ty)
        return tx > ty ? -1 : 1;
    return strcmp(p->funcs[x], p->funcs[y]);
}

/* The result must belong to the profile: every index it holds must be in range. */
static int check_result(const struct lens_profile *p, const struct lens_icappa *r, struct lens_err *e)
{
    /* A result computed on another profile would index outside this one: refuse it rather than read
     * out of bounds. */
    for (size_t i = 0; i < r->ndom; i++)
        if (r->dom[i] >= p->nfunc)
            return lens_err_set(e, LENS_EINVAL, "profile report: dominating function %zu out of range", r->dom[i]);
    for (size_t i = 0; i < r->ncostly; i++)
        if (r->costly[i] >= p->nproc)
            return lens_err_set(e, LENS_EINVAL, "profile report: costly process %zu out of range", r->costly[i]);
    return p->nproc && p->nfunc ? LENS_OK : lens_err_set(e, LENS_EINVAL, "profile report: empty profile");
}

int lens_profile_report_write(const struct lens_profile_report_opts *o, const struct lens_profile *p,
                              const struct lens_icappa *r, const char *path, struct lens_err *e)
{
    int rc = check_result(p, r, e);
    if (rc != LENS_OK)
        return rc;
    if (o->max_functions < 1 || o->max_rounds < 0)
        return lens_err_set(e, LENS_EINVAL, "profile report: bad limits (functions %d, rounds %d)",
                            o->max_functions, o->max_rounds);
    struct prep s = {.o = o, .p = p, .r = r};
    if (!(s.order = lens_malloc(p->nfunc * sizeof *s.order)))
        return lens_err_set(e, LENS_ENOMEM, "profile report: out of memory");
    for (size_t f = 0; f < p->nfunc; f++) {
        s.order[f] = f;
        s.total += lens_profile_func_total(p, f);
    }
    /* Sorted once before drawing; qsort_r passes the profile to the comparison without a global. */
    qsort_r(s.order, p->nfunc, sizeof *s.order, cmp_cost, (void *)p);
    /* one profile: every section is about the whole document */
    const struct lens_doc d = {.kind = &kind, .datadir = o->datadir, .template_path = o->template_path,
                               .date = o->date, .ctx = &s, .t = &s.t, .sec = &s.sec, .pdf = &s.pdf,
                               .vars = &s.vars, .font_path = s.font_path, .font_path_size = sizeof s.font_path};
    rc = lens_doc_write(&d, path, e);
    if (s.tmpdir[0]) /* empty by now: every figure file was removed after it was read */
        rmdir(s.tmpdir);
    lens_free(s.order);
    return rc;
}
