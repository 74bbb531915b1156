/* Teplov's scalability marks over an efficiency grid, their ranking across applications and
 * the sentences that explain them (docs/methods.md §8; A. M. Teplov, "An approach to the
 * comparison of parallel program scalability"). Pure computation on a grid built by runs.c:
 * no files except the optional texts file, nothing printed. */
#include "marks.h"

#include "common/textline.h"
#include "common/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Calls visit(ctx, el) for every element of g in order (sizes, then processes, ascending) and
 * fills the metric's ranges and extremes in m; the one walk behind the marks and the element
 * listing, so the two cannot disagree. */
static void walk(const struct lens_grid *g, struct lens_marks *m,
                 void (*visit)(void *, const struct lens_marks_element *), void *ctx)
{
    /* Everything starts as NaN ("no value") rather than 0: an empty grid or one without an
     * element must read as missing in the tables, never as a mark of zero (docs/methods.md §8:
     * failed runs are missing, never zero). */
    m->min_p = m->max_p = m->min_d = m->max_d = NAN;
    m->mark_procs = m->mark_data = m->mark_all = NAN;
    m->max_e = m->min_e = NAN;
    m->n_elements = 0;
    size_t np = g->np, nd = g->nd;
    /* Extreme efficiencies and the axis ranges over the configurations present; the axes hold
     * only values with at least one present configuration (lens_runs_grids guarantees it, but a
     * caller-built grid might not).
     * Index bounds of the present configurations; ip0 = np marks "none seen yet". */
    size_t ip0 = np, ip1 = 0, jd0 = nd, jd1 = 0;
    for (size_t j = 0; j < nd; j++)
        for (size_t i = 0; i < np; i++) {
            double v = g->eff[j * np + i];
            if (isnan(v))
                continue;
            if (isnan(m->max_e) || v > m->max_e)
                m->max_e = v;
            if (isnan(m->min_e) || v < m->min_e)
                m->min_e = v;
            ip0 = i < ip0 ? i : ip0;
            ip1 = i > ip1 ? i : ip1;
            jd0 = j < jd0 ? j : jd0;
            jd1 = j > jd1 ? j : jd1;
        }
    /* No configuration at all: the metric stays all NaN. */
    if (isnan(m->max_e))
        return;
    m->min_p = g->procs[ip0];
    m->max_p = g->procs[ip1];
    m->min_d = g->size[jd0];
    m->max_d = g->size[jd1];
    double rp = m->max_p - m->min_p, rd = m->max_d - m->min_d;
    /* One process count or one size: the normalisations (max p - min p), (max d - min d) would
     * be zero and no element of four configurations exists, so the marks stay NaN ("none"
     * sentence). */
    if (rp <= 0 || rd <= 0)
        return;
    /* d1 = the previous size with any present configuration, d2 = the current one. */
    long j1 = -1;
    for (size_t j2 = 0; j2 < nd; j2++) {
        const double *row2 = g->eff + j2 * np;
        int any = 0;
        /* A size with no present configuration is skipped entirely, so d1 and d2 are consecutive
         * among the sizes actually measured (the paper's grid assumes every cell present; see
         * "Where mpilens differs" in docs/methods.md §8). */
        for (size_t i = 0; i < np && !any; i++)
            any = !isnan(row2[i]);
        if (!any)
            continue;
        if (j1 >= 0) {
            const double *row1 = g->eff + (size_t)j1 * np;
            /* The axes are sorted ascending (lens_runs_grids), so dd > 0 and dp > 0 below. */
            double dd = g->size[j2] - g->size[j1];
            long i1 = -1; /* previous p present at both d1 and d2 */
            for (size_t i2 = 0; i2 < np; i2++) {
                if (isnan(row1[i2]) || isnan(row2[i2]))
                    continue;
                if (i1 >= 0) {
                    /* Naming as in Teplov, "An approach to the comparison of parallel program
                     * scalability": Exy = E(p_y, d_x), first index the size, second the process
                     * count. */
                    struct lens_marks_element el = {g->procs[i1], g->procs[i2], g->size[j1], g->size[j2],
                                                    row1[i1], row1[i2], row2[i1], row2[i2], 0, 0, 0};
                    double dp = el.p2 - el.p1;
                    /* dEP: the change of efficiency along p, averaged over the two sizes; dED
                     * along d over the two process counts; dEA the mean of both. Later minus
                     * earlier, so a negative increment means efficiency falls as the parameter
                     * grows (the paper prints earlier minus later but reads its results this
                     * way). */
                    double dep = ((el.e12 - el.e11) + (el.e22 - el.e21)) / 2;
                    double ded = ((el.e21 - el.e11) + (el.e22 - el.e12)) / 2;
                    double dea = (dep + ded) / 2;
                    /* Each increment is weighted by the share of the whole range its step
                     * covers: markP = dEP (p2 - p1) / (max p - min p), markD likewise, markA by
                     * the product of both shares. The weighting makes grids with uneven steps
                     * comparable, and a constant added to every E cancels in the differences. */
                    el.mark_p = dep * dp / rp;
                    el.mark_d = ded * dd / rd;
                    el.mark_a = dea * (dp * dd) / (rp * rd);
                    visit(ctx, &el);
                    m->n_elements++;
                }
                i1 = (long)i2;
            }
        }
        j1 = (long)j2;
    }
}

/* The running sums of the three marks, in element order (the order fixes the rounding). */
struct sums {
    double p, d, a;
};

static void add_element(void *ctx, const struct lens_marks_element *el)
{
    struct sums *s = ctx;
    s->p += el->mark_p;
    s->d += el->mark_d;
    s->a += el->mark_a;
}

int lens_marks_compute(const struct lens_grid *g, struct lens_marks *m, struct lens_err *e)
{
    if (!g || !m)
        return lens_err_set(e, LENS_EINVAL, "marks: no grid");
    struct sums s = {0, 0, 0};
    walk(g, m, add_element, &s);
    /* MarkProcs, MarkData, MarkAll: plain means over the elements, as in the paper. */
    if (m->n_elements) {
        m->mark_procs = s.p / (double)m->n_elements;
        m->mark_data = s.d / (double)m->n_elements;
        m->mark_all = s.a / (double)m->n_elements;
    }
    return LENS_OK;
}

/* The growing list of elements that lens_marks_elements hands back. */
struct list {
    struct lens_marks_element *el;
    size_t n, cap;
    int oom;
};

static void keep_element(void *ctx, const struct lens_marks_element *el)
{
    struct list *l = ctx;
    /* after a failed growth the walk goes on, but nothing more is kept: the caller reports it */
    if (l->oom)
        return;
    /* doubling keeps the appends linear over a 256 x 256 grid's 65025 elements */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        struct lens_marks_element *p = lens_realloc(l->el, cap * sizeof *p);
        if (!p) {
            l->oom = 1;
            return;
        }
        l->el = p;
        l->cap = cap;
    }
    l->el[l->n++] = *el;
}

int lens_marks_elements(const struct lens_grid *g, struct lens_marks_element **el, size_t *n,
                        struct lens_err *e)
{
    *el = NULL;
    *n = 0;
    if (!g)
        return lens_err_set(e, LENS_EINVAL, "marks: no grid");
    /* the metric is filled too but not needed: the caller has it from lens_marks_compute */
    struct lens_marks m;
    struct list l = {0};
    walk(g, &m, keep_element, &l);
    if (l.oom) {
        lens_free(l.el);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %zu elements", g->app ? g->app : "grid",
                            m.n_elements);
    }
    *el = l.el;
    *n = l.n;
    return LENS_OK;
}

double lens_marks_get(const struct lens_marks *m, int key)
{
    switch (key) {
    case LENS_MARKS_PROCS: return m->mark_procs;
    case LENS_MARKS_DATA: return m->mark_data;
    case LENS_MARKS_ALL: return m->mark_all;
    default: return NAN;
    }
}

/* One entry per application for qsort: the mark, the name and the index, so the comparison is a
 * total order and the ranking does not depend on qsort's (unstable) handling of ties. */
struct rank_item {
    double v;
    const char *name;
    size_t idx;
};

static int cmp_rank(const void *a, const void *b)
{
    const struct rank_item *x = a, *y = b;
    int nx = isnan(x->v), ny = isnan(y->v);
    if (nx != ny)
        return nx - ny; /* NaN last */
    if (!nx && x->v != y->v)
        return x->v < y->v ? -1 : 1;
    /* Equal marks: by name in byte order (locale-independent, hence reproducible), then by input
     * position for equal names. */
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

int lens_marks_rank(const struct lens_marks *marks, const char *const *names, size_t n, int key,
                    size_t *order, struct lens_err *e)
{
    if (key < LENS_MARKS_PROCS || key > LENS_MARKS_ALL)
        return lens_err_set(e, LENS_EINVAL, "marks: unknown mark %d", key);
    struct rank_item *it = lens_malloc((n + 1) * sizeof *it);
    if (!it)
        return lens_err_set(e, LENS_ENOMEM, "marks: out of memory ranking %zu applications", n);
    for (size_t i = 0; i < n; i++)
        it[i] = (struct rank_item){lens_marks_get(&marks[i], key), names[i] ? names[i] : "", i};
    qsort(it, n, sizeof *it, cmp_rank);
    for (size_t i = 0; i < n; i++)
        order[i] = it[i].idx;
    lens_free(it);
    return LENS_OK;
}

/* ---- sentences ---- */

/* The keys of templates/scale.txt and their built-in English texts.
 * Index layout shared by text_keys and text_defaults: three thresholds, three strength words,
 * then per mark (procs, data, all) three sentences in the order falls, rises, flat, then "none".
 * lens_marks_describe computes T_SENTENCES + 3 * key + variant from it. */
enum { T_FLAT, T_MODERATE, T_STRONG, S_WEAK, S_MODERATE, S_STRONG, T_SENTENCES, T_NONE = T_SENTENCES + 9,
       N_TEXTS };
static const char *const text_keys[N_TEXTS] = {
    "threshold.flat", "threshold.moderate", "threshold.strong",
    "strength.weak", "strength.moderate", "strength.strong",
    "procs.falls", "procs.rises", "procs.flat",
    "data.falls", "data.rises", "data.flat",
    "all.falls", "all.rises", "all.flat",
    "none",
};
/* The built-in thresholds are those of docs/methods.md §8 and templates/scale.txt: |mark| below
 * 1e-5 "hardly changes", below 1e-3 weakly, below 1e-2 moderately, else strongly. */
static const char *const text_defaults[N_TEXTS] = {
    "1e-5", "1e-3", "1e-2",
    "weakly", "moderately", "strongly",
    "efficiency falls as processes grow, {strength}: {mark}",
    "efficiency rises as processes grow, {strength}: {mark}",
    "efficiency hardly changes as processes grow: {mark}",
    "efficiency falls as the problem size grows, {strength}: {mark}",
    "efficiency rises as the problem size grows, {strength}: {mark}",
    "efficiency hardly changes as the problem size grows: {mark}",
    "efficiency falls as processes and problem size grow together, {strength}: {mark}",
    "efficiency rises as processes and problem size grow together, {strength}: {mark}",
    "efficiency hardly changes as processes and problem size grow together: {mark}",
    "no mark: the grid needs at least two process counts and two sizes",
};

struct lens_marks_text {
    char *text[N_TEXTS]; /* owned; NULL = built-in default */
    double thr[3];       /* parsed thresholds: flat, moderate, strong */
};

struct lens_marks_text *lens_marks_text_new(void)
{
    /* Thresholds are kept parsed so that describing a mark never parses text; the built-in
     * strings are the single source of the default numbers. */
    struct lens_marks_text *t = lens_calloc(1, sizeof *t);
    if (t)
        for (int k = 0; k < 3; k++)
            t->thr[k] = strtod(text_defaults[T_FLAT + k], NULL);
    return t;
}

void lens_marks_text_free(struct lens_marks_text *t)
{
    if (!t)
        return;
    for (int k = 0; k < N_TEXTS; k++)
        lens_free(t->text[k]);
    lens_free(t);
}

/* Trims in place and returns the start inside s: keys and texts may be indented or aligned. */
static char *strip(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

int lens_marks_text_load(struct lens_marks_text *t, const char *path, struct lens_err *e)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", path, strerror(errno));
    /* Keys already loaded stay loaded when a later line fails: the caller treats any error as
     * fatal and frees t (cmd_scale, the scale report), so no half-loaded set is ever used. */
    struct lens_textline tl = {0};
    long line = 0;
    int rc = LENS_OK, got;
    while (rc == LENS_OK && (got = lens_textline_read(fp, &tl, LENS_TEXTLINE_MAX)) != LENS_TEXTLINE_EOF) {
        line++;
        if (got != LENS_TEXTLINE_OK) {
            rc = lens_textline_fail(got, path, line, 0, LENS_TEXTLINE_MAX, e);
            break;
        }
        char *s = strip(tl.s);
        if (!*s || *s == '#')
            continue;
        /* The first '=' splits: a text may itself contain '=' ("mark = {mark}"). */
        char *eq = strchr(s, '=');
        if (!eq) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: expected 'key = text'", path, line);
            break;
        }
        *eq = '\0';
        char *key = strip(s), *val = strip(eq + 1);
        int k = 0;
        while (k < N_TEXTS && strcmp(key, text_keys[k]))
            k++;
        /* An unknown key is an error, not ignored: a misspelt key would otherwise leave the
         * built-in text in place without a word. */
        if (k == N_TEXTS) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: unknown key '%s'", path, line, key);
            break;
        }
        /* Thresholds must parse entirely and be finite and >= 0 (!(v >= 0) also refuses NaN);
         * the raw text is kept as well so that every key is stored the same way. */
        if (k <= T_STRONG) {
            char *end;
            double v = strtod(val, &end);
            if (end == val || *end || !(v >= 0) || !isfinite(v)) {
                rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: %s '%s' is not a finite number >= 0",
                                  path, line, key, val);
                break;
            }
            t->thr[k] = v;
        }
        char *copy = lens_strdup(val);
        if (!copy) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
            break;
        }
        lens_free(t->text[k]);
        t->text[k] = copy;
    }
    lens_textline_release(&tl);
    fclose(fp);
    return rc;
}

/* A loaded text replaces its default; keys absent from the file keep the built-in English. */
static const char *text_of(const struct lens_marks_text *t, int k)
{
    return t && t->text[k] ? t->text[k] : text_defaults[k];
}

/* Appends src to buf[*len..n), always leaving buf terminated. */
static void append(char *buf, size_t n, size_t *len, const char *src, size_t m)
{
    /* Truncation, never overflow: the template is user text, so the sentence's length is not
     * known in advance. */
    if (*len + 1 >= n)
        return;
    size_t room = n - 1 - *len;
    if (m > room)
        m = room;
    memcpy(buf + *len, src, m);
    *len += m;
    buf[*len] = '\0';
}

/* The same numbers and words lens_marks_describe chooses from, never a copy of them. */
void lens_marks_strength_get(const struct lens_marks_text *t, double thr[3], const char *word[3])
{
    for (int k = 0; k < 3; k++) {
        thr[k] = t ? t->thr[k] : strtod(text_defaults[T_FLAT + k], NULL);
        word[k] = text_of(t, S_WEAK + k);
    }
}

int lens_marks_describe(const struct lens_marks_text *t, int key, double mark, char *buf, size_t n,
                        struct lens_err *e)
{
    if (key < LENS_MARKS_PROCS || key > LENS_MARKS_ALL || !buf || n == 0)
        return lens_err_set(e, LENS_EINVAL, "marks: unknown mark %d", key);
    buf[0] = '\0';
    double thr[3];
    const char *word[3];
    lens_marks_strength_get(t, thr, word);
    const char *tmpl, *strength = "";
    double a = fabs(mark);
    /* Which sentence: NaN has none; below the flat threshold the direction means nothing;
     * otherwise the sign picks falls/rises and |mark| against the two other thresholds the
     * strength word. */
    if (isnan(mark))
        tmpl = text_of(t, T_NONE);
    else if (a < thr[0])
        tmpl = text_of(t, T_SENTENCES + 3 * key + 2);
    else {
        tmpl = text_of(t, T_SENTENCES + 3 * key + (mark < 0 ? 0 : 1));
        strength = word[a < thr[1] ? 0 : a < thr[2] ? 1 : 2];
    }
    char num[64];
    /* Four significant digits, as templates/scale.txt documents {mark}, in the reports' one
     * voice (common/units.h): fixed notation, a power of ten below 1e-4, never "e-06". */
    lens_units_num(mark, 4, num, sizeof num);
    size_t len = 0;
    /* Only {strength} and {mark} are placeholders; any other brace is copied as it stands. */
    for (const char *p = tmpl; *p;) {
        if (!strncmp(p, "{strength}", 10)) {
            append(buf, n, &len, strength, strlen(strength));
            p += 10;
        } else if (!strncmp(p, "{mark}", 6)) {
            append(buf, n, &len, num, strlen(num));
            p += 6;
        } else {
            append(buf, n, &len, p, 1);
            p++;
        }
    }
    return LENS_OK;
}
