/* The results of a latency-cube report (structure_report.h), computed once per cube by the
 * command before the document is drawn: per-length summaries with the slowest pair, and the
 * structure through lens_structure_run, the one pipeline the commands share. */
#include "structure_report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The largest finite off-diagonal element of length k. Strict ">" in row-major order keeps
 * the first of equal maxima, so the pair named is stable across runs and platforms. */
static void slowest_pair(const struct lens_cube *c, int stat, int k, int *row, int *col)
{
    double best = -INFINITY;
    *row = *col = -1;
    for (int i = 0; i < c->procs; i++)
        for (int j = 0; j < c->procs; j++) {
            double v = LENS_CUBE_AT(c, stat, k, i, j);
            if (i != j && isfinite(v) && v > best) {
                best = v;
                *row = i;
                *col = j;
            }
        }
}

/* The medians of length k over pairs within a host and across hosts (page one's key numbers):
 * the two levels any cluster has, whatever its switches and sockets. buf holds P*P doubles. */
static void host_medians(const struct lens_cube *c, int stat, int k, double *buf, struct lens_structure_report_length *l)
{
    l->intra_median = l->inter_median = NAN;
    if (!c->hosts)
        return;
    size_t P = (size_t)c->procs, ni = 0, nx = 0;
    /* intra values fill buf from the front, inter values from the back: one buffer, no overlap,
     * since there are at most P*P of both together */
    for (size_t i = 0; i < P; i++)
        for (size_t j = 0; j < P; j++) {
            double v = LENS_CUBE_AT(c, stat, k, i, j);
            if (i == j || !isfinite(v))
                continue;
            if (!strcmp(c->hosts[i], c->hosts[j]))
                buf[ni++] = v;
            else
                buf[P * P - 1 - nx++] = v;
        }
    /* By selection (NaN for none, the mean of the two middle values for an even count, as
     * network_test2 defines its median): sorting both halves was 6 % of `mpilens report`
     * (issue 13). Same value as the sort's, up to the sign of a zero median. */
    l->intra_median = lens_cube_median(buf, ni);
    l->inter_median = lens_cube_median(buf + P * P - nx, nx);
}

int lens_structure_report_run(const struct lens_cube *c, int stat, unsigned parts,
                              struct lens_structure_report *out, struct lens_err *e)
{
    memset(out, 0, sizeof *out);
    out->stat = stat;
    /* The same check and message as lens_cube_summary, made once up front so that no half-filled
     * result is returned for a cube that lacks the statistic. */
    if (stat < 0 || stat >= LENS_STAT_COUNT || !c->data[stat] || c->nlen < 1)
        return lens_err_set(e, LENS_EINVAL, "%s: statistic '%s' not present", c->source ? c->source : "cube",
                            lens_cube_stat_name(stat));
    /* an unknown bit is a caller's mistake: refuse it rather than compute a subset silently */
    if (parts & ~(unsigned)LENS_STRUCTURE_ALL)
        return lens_err_set(e, LENS_EINVAL, "cube report: unknown structure parts 0x%x", parts);
    out->len = lens_calloc((size_t)c->nlen, sizeof *out->len);
    if (!out->len)
        return lens_err_set(e, LENS_ENOMEM, "cube report: out of memory");
    /* set only once len exists: release frees len whatever nlen says, and the report checks nlen */
    out->nlen = c->nlen;
    int rc = LENS_OK;
    double *buf = lens_malloc((size_t)c->procs * (size_t)c->procs * sizeof *buf);
    if (!buf)
        return lens_err_set(e, LENS_ENOMEM, "cube report: out of memory");
    for (int k = 0; k < c->nlen && rc == LENS_OK; k++) {
        /* One summary per length (k >= 0), the table's rows and the heatmap captions; the
         * all-lengths summary (k < 0) is `mpilens info`'s, not the report's. */
        rc = lens_cube_summary(c, stat, k, &out->len[k].s, e);
        slowest_pair(c, stat, k, &out->len[k].slow_row, &out->len[k].slow_col);
        host_medians(c, stat, k, buf, &out->len[k]);
    }
    lens_free(buf);
    /* the asymmetry per length for page one: long messages are nearly symmetric, short ones
     * need not be, so one number over the cube would say neither */
    double *am = rc == LENS_OK ? lens_malloc(2 * (size_t)c->nlen * sizeof *am) : NULL;
    if (rc == LENS_OK && !am)
        rc = lens_err_set(e, LENS_ENOMEM, "cube report: out of memory");
    if (rc == LENS_OK)
        rc = lens_cube_asymmetry_length(c, stat, am, am + c->nlen, e);
    for (int k = 0; k < c->nlen && rc == LENS_OK; k++) {
        out->len[k].asym_median = am[k];
        out->len[k].asym_max = am[c->nlen + k];
    }
    lens_free(am);
    if (rc != LENS_OK || !parts)
        return rc;
    struct lens_structure_opts so;
    lens_structure_opts_default(&so);
    /* The distances, tree, cut and anomalies use the statistic the report shows, so the words, the
     * tables and the heatmaps describe the same numbers. */
    so.parts = parts;
    so.stat = stat;
    /* a report describes a part that fails on this cube in words instead of failing */
    so.keep_going = 1;
    so.anomaly.stat = stat == LENS_STAT_DEVIATION ? -1 : stat;
    out->parts = parts; /* recorded before the run: the report checks it against the template's sections */
    return lens_structure_run(c, &so, &out->st, e);
}

int lens_structure_report_run_gated(const struct lens_cube *c, int stat, unsigned parts,
                                    const struct lens_quality_opts *qopts, struct lens_structure_report *out,
                                    struct lens_err *e)
{
    struct lens_quality q;
    memset(out, 0, sizeof *out);
    /* The gate first: a failed cube costs no clustering, and a gate error (a missing statistic)
     * reads as the ungated run's would. */
    int rc = lens_quality_check(c, stat, qopts, &q, e);
    if (rc != LENS_OK)
        return rc;
    /* parts are checked even when the gate drops them: a bad mask is the caller's mistake either way */
    if (parts & ~(unsigned)LENS_STRUCTURE_ALL)
        return lens_err_set(e, LENS_EINVAL, "cube report: unknown structure parts 0x%x", parts);
    rc = lens_structure_report_run(c, stat, q.pass ? parts : 0, out, e);
    /* set after the run, which zeroes *out first */
    out->gated = 1;
    out->quality = q;
    out->skipped = q.pass ? 0 : parts;
    return rc;
}

void lens_structure_report_release(struct lens_structure_report *r)
{
    if (!r)
        return;
    lens_structure_release(&r->st);
    lens_free(r->len);
    memset(r, 0, sizeof *r);
}
