/* The verdict of an acceptance contract in words (accept.h): each criterion as parsed, its
 * limit, measured value and margin in the unit the line was written with, and where the worst
 * value is. The text output of `mpilens accept` and the verdict page of its report both use
 * these strings, so the two never disagree on a number. Nothing prints. */
#include "accept.h"

#include "analysis/cube/cube.h"
#include "common/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lens_accept_value_text(const struct lens_criterion *c, double v, int sign, char *buf, size_t cap)
{
    int kind = lens_criteria_metric_kind(c->metric);
    /* one unit in SI, from the parser's own table, so display and parsing cannot disagree */
    double one = 1;
    /* cannot fail: the parser accepted this unit from the same table */
    if (c->unit[0])
        lens_criteria_unit_value("1", c->unit, &(int){0}, &one);
    /* a ratio or a count has no unit to print; other kinds fall back to s, B/s, 1/s */
    const char *u = c->unit[0] ? c->unit : kind == LENS_CRITERIA_RATIO || kind == LENS_CRITERIA_COUNT
                                           ? "" : lens_criteria_kind_unit(kind);
    /* the unit as the reports write it: "us" and the Greek mu read back as the micro sign */
    if (!strcmp(u, "us") || !strcmp(u, "\xce\xbcs"))
        u = "\xc2\xb5s";
    /* four digits for people in fixed notation (common/units.h), trailing zeros dropped so a
     * limit reads as written ("5 µs", not "5.000 µs"); the exact doubles are in --json. "%"
     * sticks to its number */
    char num[64];
    lens_units_num(v / one, 4, num, sizeof num);
    if (!strchr(num, '^')) /* a power-of-ten form is trimmed already */
        lens_units_trim(num);
    snprintf(buf, cap, "%s%s%s%s", sign && v / one >= 0 ? "+" : "", num, *u && strcmp(u, "%") ? " " : "", u);
}

/* Rebuilt from the parsed fields, not copied from the file: it shows what was understood,
 * with defaults (all pairs, the median) left out. */
void lens_accept_criterion_text(const struct lens_criterion *c, char *buf, size_t cap)
{
    char lim[64];
    lens_accept_value_text(c, c->limit, 0, lim, sizeof lim);
    size_t n = (size_t)snprintf(buf, cap, "%s %s %s", lens_criteria_metric_name(c->metric),
                                lens_criteria_op_name(c->op), lim);
    /* snprintf returns what it would have written: n < cap stops the appends once buf is full,
     * so the arithmetic on buf + n never leaves it (a long criterion is cut, not overflowed) */
    if (c->length >= 0 && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, " length=%lld", c->length);
    if (c->size >= 0 && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, " size=%lld", c->size);
    if (c->scope != LENS_SCOPE_ALL && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, " scope=%s", lens_criteria_scope_name(c->scope));
    /* only the cube and anomaly metrics read a statistic: the others keep the default */
    if (c->stat != LENS_STAT_MEDIAN && n < cap)
        snprintf(buf + n, cap - n, " stat=%s", lens_cube_stat_name(c->stat));
}

/* The margin relative to the limit: "+12.5%" inside, "-128%" outside, so margins of a time
 * and of a count read on one scale. A limit of 0 (anomalies == 0) has no scale: the margin is
 * given as it is, in the limit's unit. */
static void margin_text(const struct lens_criterion *c, double margin, char *buf, size_t cap)
{
    double pct = 100 * margin / fabs(c->limit) + 0.0;
    /* one decimal reads at a glance; a margin under 1% keeps two significant digits, so a
     * near miss does not print as +0.0% */
    if (c->limit != 0 && isfinite(margin))
        snprintf(buf, cap, fabs(pct) >= 1 || pct == 0 ? "%+.1f%%" : "%+.2g%%", pct);
    else
        lens_accept_value_text(c, margin, 1, buf, cap);
}

void lens_accept_view_free(struct lens_accept_view *v)
{
    if (!v)
        return;
    lens_free(v->line);
    lens_free(v);
}

int lens_accept_describe(const struct lens_criteria *cr, const struct lens_accept *a,
                         const struct lens_accept_input *in, int nin, struct lens_accept_view **out,
                         struct lens_err *e)
{
    *out = NULL;
    struct lens_accept_view *v = lens_calloc(1, sizeof *v);
    /* at least one line, so that a zero-sized calloc cannot read as a failure */
    if (v)
        v->line = lens_calloc((size_t)(a->n > 0 ? a->n : 1), sizeof *v->line);
    if (!v || !v->line) {
        lens_accept_view_free(v);
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    v->n = a->n;
    v->failed = a->failed;
    v->criteria = cr->path;
    for (int i = 0; i < a->n; i++) {
        const struct lens_criterion *c = &cr->c[i];
        const struct lens_accept_result *r = &a->r[i];
        struct lens_accept_line *l = &v->line[i];
        lens_accept_criterion_text(c, l->criterion, sizeof l->criterion);
        lens_accept_value_text(c, c->limit, 0, l->limit, sizeof l->limit);
        lens_accept_value_text(c, r->measured, 0, l->measured, sizeof l->measured);
        margin_text(c, r->margin, l->margin, sizeof l->margin);
        l->label = c->label;
        l->pass = r->pass;
        l->source = lens_criteria_metric_source(c->metric);
        /* the index comes from lens_accept_run over the same in[]; checked all the same, since
         * a caller handing other inputs must get no name rather than a wild pointer */
        l->input = r->input >= 0 && r->input < nin ? in[r->input].name : NULL;
        snprintf(l->where, sizeof l->where, "%s", r->where);
        snprintf(l->hosts, sizeof l->hosts, "%s", r->hosts);
    }
    *out = v;
    return LENS_OK;
}
