/* Two stage logs side by side (stagecmp.h): per-stage figures of both, matched by name, and
 * both occupancies on a common stage order with times from each log's own start. */
#include "stagecmp.h"

#include <math.h>
#include <string.h>

#include "common/alloc.h"
#include "common/json.h"

void lens_stagecmp_stage_stats(const struct lens_stagelog *l, size_t s, size_t *tasks, double *mean,
                               double *max)
{
    double sum = 0, hi = 0;
    size_t n = 0;
    for (size_t t = 0; t < l->ntask; t++) {
        double v = l->tasks[t].in_stage[s];
        /* a stage's mean is over the tasks that spent measured time in it, so a stage few
         * tasks visit is not diluted by the others' zeros (docs/icappa.md) */
        if (v > 0) {
            sum += v;
            n++;
        }
        hi = fmax(hi, v); /* times are >= 0, so 0 is the maximum of no stay */
    }
    *tasks = n;
    *mean = n ? sum / (double)n : 0.0;
    *max = hi;
}

void lens_stagecmp_free(struct lens_stagecmp *c)
{
    if (!c)
        return;
    for (int k = 0; k < 2; k++) {
        lens_free(c->times[k]);
        lens_free(c->counts[k]);
    }
    lens_free(c->stages);
    lens_free(c);
}

/* One log's occupancy, moved to the comparison's stage order and to times from its t0. */
static int occupancy(struct lens_stagecmp *c, int k, struct lens_err *e)
{
    const struct lens_stagelog *l = c->log[k];
    size_t P = c->points, S = c->nstage, LS = l->nstage ? l->nstage : 1;
    double *t = lens_malloc(P * sizeof *t);
    size_t *own = lens_malloc(P * LS * sizeof *own);
    c->times[k] = t;
    c->counts[k] = lens_calloc(P * (S ? S : 1), sizeof *c->counts[k]);
    int rc = t && own && c->counts[k] ? lens_stagelog_occupancy(l, P, t, own, e)
                                       : lens_err_set(e, LENS_ENOMEM, "stages: out of memory");
    if (rc == LENS_OK) {
        for (size_t i = 0; i < P; i++) {
            t[i] -= l->t0; /* seconds since the log began: two runs overlay from their start */
            for (size_t s = 0; s < S; s++) {
                long x = c->stages[s].index[k];
                c->counts[k][i * S + s] = x < 0 ? 0 : own[i * l->nstage + (size_t)x];
            }
        }
    }
    lens_free(own);
    return rc;
}

int lens_stagecmp_build(const struct lens_stagelog *base, const struct lens_stagelog *cur, size_t points,
                        struct lens_stagecmp **out, struct lens_err *e)
{
    *out = NULL;
    if (points == 0)
        return lens_err_set(e, LENS_EINVAL, "stages: the number of time points must be >= 1");
    struct lens_stagecmp *c = lens_calloc(1, sizeof *c);
    /* the union is at most both logs' stages; +1 so that two empty logs never mean malloc(0) */
    if (c)
        c->stages = lens_calloc(base->nstage + cur->nstage + 1, sizeof *c->stages);
    if (!c || !c->stages) {
        lens_stagecmp_free(c);
        return lens_err_set(e, LENS_ENOMEM, "stages: out of memory");
    }
    c->log[0] = base;
    c->log[1] = cur;
    c->points = points;
    /* the new log's order first (it is the one being read), then stages only the old one had;
     * names are matched by strcmp: at most LENS_STAGELOG_MAX_STAGES each, so S x S is nothing */
    for (int k = 1; k >= 0; k--) {
        const struct lens_stagelog *l = c->log[k];
        for (size_t s = 0; s < l->nstage; s++) {
            if (k == 0 && lens_stagelog_find(cur, l->stages[s]) >= 0)
                continue;
            struct lens_stagecmp_stage *g = &c->stages[c->nstage++];
            g->name = l->stages[s];
            g->index[k] = (long)s;
            g->index[1 - k] = lens_stagelog_find(c->log[1 - k], l->stages[s]);
        }
    }
    for (size_t s = 0; s < c->nstage; s++) {
        struct lens_stagecmp_stage *g = &c->stages[s];
        for (int k = 0; k < 2; k++)
            if (g->index[k] >= 0) {
                lens_stagecmp_stage_stats(c->log[k], (size_t)g->index[k], &g->tasks[k], &g->mean[k], &g->max[k]);
                g->cross[k] = c->log[k]->cross[g->index[k]];
            }
    }
    int rc = occupancy(c, 0, e);
    if (rc == LENS_OK)
        rc = occupancy(c, 1, e);
    if (rc != LENS_OK) {
        lens_stagecmp_free(c);
        return rc;
    }
    *out = c;
    return LENS_OK;
}

static void pair_int(struct lens_json *j, const char *key, size_t a, size_t b)
{
    lens_json_key(j, key);
    lens_json_begin_array(j);
    lens_json_int(j, (long long)a);
    lens_json_int(j, (long long)b);
    lens_json_end_array(j);
}

static void pair_num(struct lens_json *j, const char *key, double a, double b)
{
    lens_json_key(j, key);
    lens_json_begin_array(j);
    lens_json_number(j, a);
    lens_json_number(j, b);
    lens_json_end_array(j);
}

/* Every pair is [baseline, new]; mean_ratio is new / baseline, null when the baseline has no
 * measured stay in the stage (no ratio exists, and 0 or inf would read as a finding). */
int lens_stagecmp_write_json(const struct lens_stagecmp *c, FILE *fp, struct lens_err *e)
{
    struct lens_json j;
    lens_json_init(&j, fp);
    lens_json_begin_object(&j);
    const struct lens_stagelog *b = c->log[0], *n = c->log[1];
    pair_int(&j, "tasks", b->ntask, n->ntask);
    pair_int(&j, "waited", b->waited, n->waited);
    pair_num(&j, "duration_seconds", b->t1 - b->t0, n->t1 - n->t0);
    pair_int(&j, "cross_node_stays", b->ncross, n->ncross);
    lens_json_key(&j, "clocks");
    lens_json_string(&j, n->clocks == LENS_STAGELOG_SYNCED ? "synced" : "per-node");
    lens_json_key(&j, "stages");
    lens_json_begin_array(&j);
    for (size_t s = 0; s < c->nstage; s++) {
        const struct lens_stagecmp_stage *g = &c->stages[s];
        lens_json_begin_object(&j);
        lens_json_key(&j, "name");
        lens_json_string(&j, g->name);
        pair_int(&j, "tasks", g->tasks[0], g->tasks[1]);
        pair_num(&j, "mean_seconds", g->mean[0], g->mean[1]);
        pair_num(&j, "max_seconds", g->max[0], g->max[1]);
        pair_int(&j, "cross_node_stays", g->cross[0], g->cross[1]);
        lens_json_key(&j, "mean_ratio");
        if (g->tasks[0] && g->mean[0] > 0)
            lens_json_number(&j, g->mean[1] / g->mean[0]);
        else
            lens_json_null(&j);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    /* occupancy: t[k] and counts[k] for k = baseline, new; counts in the stage order above */
    lens_json_key(&j, "occupancy");
    lens_json_begin_object(&j);
    lens_json_key(&j, "t");
    lens_json_begin_array(&j);
    for (int k = 0; k < 2; k++) {
        lens_json_begin_array(&j);
        for (size_t i = 0; i < c->points; i++)
            lens_json_number(&j, c->times[k][i]);
        lens_json_end_array(&j);
    }
    lens_json_end_array(&j);
    lens_json_key(&j, "counts");
    lens_json_begin_array(&j);
    for (int k = 0; k < 2; k++) {
        lens_json_begin_array(&j);
        for (size_t i = 0; i < c->points; i++) {
            lens_json_begin_array(&j);
            for (size_t s = 0; s < c->nstage; s++)
                lens_json_int(&j, (long long)c->counts[k][i * c->nstage + s]);
            lens_json_end_array(&j);
        }
        lens_json_end_array(&j);
    }
    lens_json_end_array(&j);
    lens_json_end_object(&j);
    lens_json_end_object(&j);
    fputc('\n', fp);
    if (ferror(fp))
        return lens_err_set(e, LENS_EIO, "stages: write error");
    return LENS_OK;
}
