/* The analyses behind the report's "Structure of the machine" and "Anomalies" sections, run
 * once per cube input and kept in the report context until the next input: the processes
 * clustered by average linkage on the cube's distance matrix with an automatic cut, the
 * links clustered by their latency curves, and the anomalies. A cube that cannot be analysed
 * is described in words by the sections, not reported as an error (only ENOMEM is). Also the
 * small text helpers the sections share. */
#include "report_ctx.h"

#include "../analysis/anomaly.h"
#include "../analysis/distmat.h"
#include "../analysis/hclust.h"
#include "../analysis/links.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lens_report_analysis_free(struct lens_report_analysis *a)
{
    if (!a)
        return;
    lens_distmat_free(a->dm);
    lens_free(a->z);
    lens_free(a->order);
    lens_free(a->label);
    lens_links_free(a->links);
    lens_anomaly_free(a->an);
    lens_free(a);
}


/* Runs the clustering; a cube it cannot cluster is reported in words, not as an error. */
static int cluster(struct lens_report_analysis *a, const struct lens_cube *c, int stat, struct lens_err *e)
{
    struct lens_err ce;
    lens_err_clear(&ce);
    int n = c->procs, rc = lens_distmat_from_cube(c, stat, -1, &a->dm, &ce);
    double *work = NULL;
    if (rc == LENS_OK) {
        size_t np = lens_distmat_pairs(n);
        work = lens_malloc(np * sizeof *work);
        a->z = lens_malloc((size_t)(n - 1) * sizeof *a->z);
        a->order = lens_malloc((size_t)n * sizeof *a->order);
        a->label = lens_malloc((size_t)n * sizeof *a->label);
        if (!work || !a->z || !a->order || !a->label)
            rc = lens_err_set(&ce, LENS_ENOMEM, "report: out of memory clustering %d processes", n);
        else
            memcpy(work, a->dm->d, np * sizeof *work);
    }
    if (rc == LENS_OK)
        rc = lens_hclust_run(work, n, LENS_HCLUST_AVERAGE, a->z, &ce);
    lens_free(work);
    if (rc == LENS_OK)
        rc = lens_hclust_leaf_order(a->z, n, a->order, &ce);
    if (rc == LENS_OK)
        rc = lens_hclust_cut_auto(a->z, n, &a->cut, &ce);
    if (rc == LENS_OK)
        rc = lens_hclust_cut(a->z, n, a->cut.k, a->label, &ce);
    if (rc == LENS_ENOMEM) {
        *e = ce;
        return rc;
    }
    if (rc != LENS_OK) {
        snprintf(a->cluster_err, sizeof a->cluster_err, "%s", ce.msg);
        lens_distmat_free(a->dm);
        a->dm = NULL;
    }
    return LENS_OK;
}

int lens_report_analysis_get(struct lens_report_ctx *r, struct lens_report_analysis **out, struct lens_err *e)
{
    if (r->an && r->an->input == r->cur) {
        *out = r->an;
        return LENS_OK;
    }
    lens_report_analysis_free(r->an);
    r->an = lens_calloc(1, sizeof *r->an);
    if (!r->an)
        return lens_err_set(e, LENS_ENOMEM, "report: out of memory");
    struct lens_report_analysis *a = r->an;
    a->input = r->cur;
    const struct lens_cube *c = lens_report_cube(r);
    int rc = cluster(a, c, r->o->stat, e);

    struct lens_err le;
    lens_err_clear(&le);
    struct lens_links_opts lo;
    lens_links_opts_default(&lo);
    int lrc = rc == LENS_OK ? lens_links_run(c, &lo, &a->links, &le) : LENS_OK;
    if (lrc == LENS_ENOMEM)
        rc = (*e = le, lrc);
    else if (lrc != LENS_OK)
        snprintf(a->links_err, sizeof a->links_err, "%s", le.msg);

    struct lens_anomaly_opts ao;
    lens_anomaly_opts_default(&ao);
    ao.stat = r->o->stat == LENS_STAT_DEVIATION ? -1 : r->o->stat; /* a spread is not a delay */
    lens_err_clear(&le);
    int arc = rc == LENS_OK ? lens_anomaly_find(c, &ao, &a->an, &le) : LENS_OK;
    if (arc == LENS_ENOMEM)
        rc = (*e = le, arc);
    else if (arc != LENS_OK)
        snprintf(a->anomaly_err, sizeof a->anomaly_err, "%s", le.msg);
    *out = a;
    return rc;
}

/* ---- text helpers ---- */

/* Appends s to buf (size n) at *o, cut with "..." when full. */
void lens_report_append(char *buf, size_t n, size_t *o, const char *s)
{
    if (*o + strlen(s) + 4 >= n) {
        if (*o + 4 < n)
            *o += (size_t)snprintf(buf + *o, n - *o, "...");
        return;
    }
    *o += (size_t)snprintf(buf + *o, n - *o, "%s", s);
}

int lens_report_headers(struct lens_report_ctx *r, const char *const *names, int n, int rows, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int i = 0; i < n && rc == LENS_OK; i++) {
        char buf[256] = "";
        if (rows)
            rc = lens_report_text(r, names[i], buf, sizeof buf, e);
        if (rc == LENS_OK)
            rc = lens_tmpl_vars_set(&r->vars, names[i], buf, e);
    }
    return rc;
}
