/* Teplov's scalability marks over an efficiency grid, their ranking across applications and
 * the sentences that explain them (docs/methods.md §8). */
#include "marks.h"

#include "common/textline.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int lens_marks_compute(const struct lens_grid *g, struct lens_marks *m, struct lens_err *e)
{
    if (!g || !m)
        return lens_err_set(e, LENS_EINVAL, "marks: no grid");
    m->min_p = m->max_p = m->min_d = m->max_d = NAN;
    m->mark_procs = m->mark_data = m->mark_all = NAN;
    m->max_e = m->min_e = NAN;
    m->n_elements = 0;
    size_t np = g->np, nd = g->nd;
    /* Extreme efficiencies and the axis ranges over the configurations present; the axes hold
     * only values with at least one present configuration (lens_runs_grids guarantees it, but a
     * caller-built grid might not). */
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
    if (isnan(m->max_e))
        return LENS_OK;
    m->min_p = g->procs[ip0];
    m->max_p = g->procs[ip1];
    m->min_d = g->size[jd0];
    m->max_d = g->size[jd1];
    double rp = m->max_p - m->min_p, rd = m->max_d - m->min_d;
    if (rp <= 0 || rd <= 0)
        return LENS_OK;
    double sp = 0, sd = 0, sa = 0;
    size_t count = 0;
    /* d1 = the previous size with any present configuration, d2 = the current one. */
    long j1 = -1;
    for (size_t j2 = 0; j2 < nd; j2++) {
        const double *row2 = g->eff + j2 * np;
        int any = 0;
        for (size_t i = 0; i < np && !any; i++)
            any = !isnan(row2[i]);
        if (!any)
            continue;
        if (j1 >= 0) {
            const double *row1 = g->eff + (size_t)j1 * np;
            double dd = g->size[j2] - g->size[j1];
            long i1 = -1; /* previous p present at both d1 and d2 */
            for (size_t i2 = 0; i2 < np; i2++) {
                if (isnan(row1[i2]) || isnan(row2[i2]))
                    continue;
                if (i1 >= 0) {
                    double e11 = row1[i1], e12 = row1[i2], e21 = row2[i1], e22 = row2[i2];
                    double dp = g->procs[i2] - g->procs[i1];
                    double dep = ((e12 - e11) + (e22 - e21)) / 2;
                    double ded = ((e21 - e11) + (e22 - e12)) / 2;
                    double dea = (dep + ded) / 2;
                    sp += dep * dp / rp;
                    sd += ded * dd / rd;
                    sa += dea * (dp * dd) / (rp * rd);
                    count++;
                }
                i1 = (long)i2;
            }
        }
        j1 = (long)j2;
    }
    if (count) {
        m->mark_procs = sp / (double)count;
        m->mark_data = sd / (double)count;
        m->mark_all = sa / (double)count;
    }
    m->n_elements = count;
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

/* The keys of templates/scale.txt and their built-in English texts. */
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
        if (k == N_TEXTS) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: unknown key '%s'", path, line, key);
            break;
        }
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

static const char *text_of(const struct lens_marks_text *t, int k)
{
    return t && t->text[k] ? t->text[k] : text_defaults[k];
}

/* Appends src to buf[*len..n), always leaving buf terminated. */
static void append(char *buf, size_t n, size_t *len, const char *src, size_t m)
{
    if (*len + 1 >= n)
        return;
    size_t room = n - 1 - *len;
    if (m > room)
        m = room;
    memcpy(buf + *len, src, m);
    *len += m;
    buf[*len] = '\0';
}

int lens_marks_describe(const struct lens_marks_text *t, int key, double mark, char *buf, size_t n,
                        struct lens_err *e)
{
    if (key < LENS_MARKS_PROCS || key > LENS_MARKS_ALL || !buf || n == 0)
        return lens_err_set(e, LENS_EINVAL, "marks: unknown mark %d", key);
    buf[0] = '\0';
    double thr[3];
    for (int k = 0; k < 3; k++)
        thr[k] = t ? t->thr[k] : strtod(text_defaults[T_FLAT + k], NULL);
    const char *tmpl, *strength = "";
    double a = fabs(mark);
    if (isnan(mark))
        tmpl = text_of(t, T_NONE);
    else if (a < thr[0])
        tmpl = text_of(t, T_SENTENCES + 3 * key + 2);
    else {
        tmpl = text_of(t, T_SENTENCES + 3 * key + (mark < 0 ? 0 : 1));
        strength = text_of(t, a < thr[1] ? S_WEAK : a < thr[2] ? S_MODERATE : S_STRONG);
    }
    char num[64];
    snprintf(num, sizeof num, "%.4g", mark);
    size_t len = 0;
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
