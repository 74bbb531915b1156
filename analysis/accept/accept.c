/* The evaluation of an acceptance contract (accept.h): each criterion measured on every
 * input of its kind, at every length or pair it covers, keeping the worst value. Anomalies
 * come from lens_structure_run, as `mpilens anomalies` finds them, run once per cube and
 * statistic however many criteria ask. Values are in SI base units; errors name the
 * criteria file:line:column. Nothing prints. */
#include "accept.h"

#include "analysis/compare/compare.h"
#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Errors name the criterion (file:line:column and metric) before what is missing; the
 * column is that of the key at fault (length=, size=, scope=) when there is one, else the
 * metric's. */
static int cfail_at(struct lens_err *e, int code, const struct lens_criteria *cr, const struct lens_criterion *c,
                    int col, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int cfail_at(struct lens_err *e, int code, const struct lens_criteria *cr, const struct lens_criterion *c,
                    int col, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return lens_err_set(e, code, "%s:%d:%d: %s: %s", cr->path, c->line, col > 0 ? col : c->col,
                        lens_criteria_metric_name(c->metric), msg);
}
#define cfail(e, code, cr, c, ...) cfail_at((e), (code), (cr), (c), 0, __VA_ARGS__)

/* Nearest rank (accept.h, docs/accept.md) rather than an interpolating definition: the result
 * is a measured delay of one real link, never a value between two links that no link has. */
double lens_accept_percentile(double *v, size_t n, int pct)
{
    /* rank = ceil(pct * n / 100) in integers, so that 95% of 20 values is exactly rank 19 */
    /* (no overflow: pct <= 100 and n is at most P*P of a cube held in memory) */
    size_t rank = ((size_t)pct * n + 99) / 100;
    /* the clamps only matter for a pct outside (0, 100], which no caller passes; they keep
     * the index inside v whatever happens */
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    /* selection, not a sort: a 2400-process cube has 5.8 million delays per length; the
     * k-th smallest value is unique, so the result does not depend on the pivots */
    return lens_cube_select(v, n, rank - 1);
}

/* The worst value seen so far: the largest for <= and <, the smallest for >= and >, the
 * farthest from the limit for ==. Ties keep the first, so `where` does not depend on luck. */
struct worst {
    /* 0 until a value is seen */
    int have;
    /* v as measured; badness the key consider() maximises; where names it ("3 -> 17 at 4096 B") */
    double v, badness;
    char where[256];
    /* the host names of where's ranks ("" without a hosts file), kept with the value they name */
    char hosts[256];
    /* cur: the input being measured (set by evaluate); input: the one the worst value is on */
    int cur, input;
};

static void consider(struct worst *w, const struct lens_criterion *c, double v, const char *hosts,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void consider(struct worst *w, const struct lens_criterion *c, double v, const char *hosts,
                     const char *fmt, ...)
{
    /* NaN is skipped, not taken as the worst: it would compare false with everything and
     * never be replaced; missing data is reported as an error by the callers themselves */
    if (isnan(v))
        return;
    /* one "badness" to maximise whatever the operator, so the caller need not know it */
    double bad = c->op == LENS_CRITERIA_LE || c->op == LENS_CRITERIA_LT ? v
                 : c->op == LENS_CRITERIA_EQ ? fabs(v - c->limit) : -v;
    /* strictly greater replaces: ties keep the value seen first (row order, then input
     * order), so the same data always names the same pair */
    if (w->have && !(bad > w->badness))
        return;
    w->have = 1;
    w->v = v;
    w->badness = bad;
    w->input = w->cur;
    snprintf(w->hosts, sizeof w->hosts, "%s", hosts ? hosts : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->where, sizeof w->where, fmt, ap);
    va_end(ap);
}

/* "name: " before `where` when there is more than one input, so the reader knows which. */
static const char *prefix_of(const struct lens_accept_input *in, int nin, char *buf, size_t cap)
{
    if (nin > 1)
        snprintf(buf, cap, "%s: ", in->name);
    else
        buf[0] = '\0';
    return buf;
}

/* Host names decide the scope (the cube's hosts file, one name per rank): two ranks on the
 * same name share a node. The caller checked that hosts exist when scope is not all, and
 * skipped the diagonal (i == j) before asking. */
static int in_scope(const struct lens_cube *cb, int scope, int i, int j)
{
    if (scope == LENS_SCOPE_ALL)
        return 1;
    int same = !strcmp(cb->hosts[i], cb->hosts[j]);
    return scope == LENS_SCOPE_INTRA ? same : !same;
}

/* "node01 -> node03" for ranks a and b joined by sep, "" when the cube has no hosts file:
 * the worst offender named as the machine's owner knows it. */
static const char *pair_hosts(const struct lens_cube *cb, int a, int b, const char *sep, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (cb->hosts && a >= 0 && b >= 0)
        snprintf(buf, cap, "%s%s%s", cb->hosts[a], sep, cb->hosts[b]);
    return buf;
}

/* Words for messages and `where`: "intra-node pairs at 4096 B". */
static const char *scope_words(int scope)
{
    return scope == LENS_SCOPE_INTRA ? "intra-node pairs" : scope == LENS_SCOPE_INTER ? "inter-node pairs"
                                                                                      : "all pairs";
}

/* One cube metric at length index k into w. buf holds P*P doubles. Every value is one
 * direction of one link at one length, LENS_CUBE_AT(stat, k, i, j), in seconds; the worst
 * of this length goes into w, which already holds the other lengths'. */
static int cube_length(const struct lens_criteria *cr, const struct lens_criterion *c,
                       const struct lens_accept_input *in, const char *pre, int k, double *buf,
                       struct worst *w, struct lens_err *e)
{
    const struct lens_cube *cb = in->cube;
    int P = cb->procs, L = cb->lengths[k];
    /* a link s -> r is element (r, s) when rows are receivers (lens_anomaly_row_is_receiver) */
    int recv_rows = lens_anomaly_row_is_receiver(cb->mode);
    /* one pass gathers the values for the order statistics and tracks the extremes with
     * their pairs; strict comparisons keep the first pair in row order on ties */
    size_t n = 0;
    int imax = -1, jmax = -1, imin = -1, jmin = -1;
    double vmax = -INFINITY, vmin = INFINITY;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            double v = LENS_CUBE_AT(cb, c->stat, k, i, j);
            /* the diagonal is a rank talking to itself, not a link; NaN is a missing delay */
            if (i == j || !isfinite(v) || !in_scope(cb, c->scope, i, j))
                continue;
            buf[n++] = v;
            if (v > vmax)
                vmax = v, imax = i, jmax = j;
            if (v < vmin)
                vmin = v, imin = i, jmin = j;
        }
    /* a whole length without data cannot satisfy "every length": an error, not a skip */
    if (n == 0)
        return cfail(e, LENS_EDATA, cr, c, "%s: no finite %s delay among the %s at %d B", in->name,
                     lens_cube_stat_name(c->stat), scope_words(c->scope), L);
    /* `where` always reads sender -> receiver, whatever the cube's row convention */
    int from = recv_rows ? jmax : imax, to = recv_rows ? imax : jmax;
    char hosts[256];
    switch (c->metric) {
    case LENS_METRIC_DELAY_MAX:
        consider(w, c, vmax, pair_hosts(cb, from, to, " -> ", hosts, sizeof hosts), "%s%d -> %d at %d B", pre,
                 from, to, L);
        break;
    case LENS_METRIC_DELAY_MIN: {
        int a = recv_rows ? jmin : imin, b = recv_rows ? imin : jmin;
        consider(w, c, vmin, pair_hosts(cb, a, b, " -> ", hosts, sizeof hosts), "%s%d -> %d at %d B", pre, a, b, L);
        break;
    }
    case LENS_METRIC_DELAY_MEDIAN:
        /* the median every other command prints (cube.c), so the numbers agree with info */
        consider(w, c, lens_cube_median(buf, n), NULL, "%s%s at %d B", pre, scope_words(c->scope), L);
        break;
    case LENS_METRIC_DELAY_P95:
    case LENS_METRIC_DELAY_P99:
        consider(w, c, lens_accept_percentile(buf, n, c->metric == LENS_METRIC_DELAY_P95 ? 95 : 99), NULL,
                 "%s%s at %d B", pre, scope_words(c->scope), L);
        break;
    /* spread = the slowest link over the median link of the same length and scope: a
     * ratio, 1 on a perfectly uniform network, independent of how fast the network is */
    case LENS_METRIC_SPREAD: {
        double med = lens_cube_median(buf, n);
        /* a zero median (all delays 0, a broken cube) would make the ratio infinite */
        if (!(med > 0))
            return cfail(e, LENS_EDATA, cr, c, "%s: the median delay of the %s at %d B is 0: no spread",
                         in->name, scope_words(c->scope), L);
        consider(w, c, vmax / med, pair_hosts(cb, from, to, " -> ", hosts, sizeof hosts),
                 "%s%d -> %d over the median of %s at %d B", pre, from, to, scope_words(c->scope), L);
        break;
    }
    default: { /* asymmetry |a - b| / (a + b) of each unordered pair, as lens_cube_asymmetry;
                * the scope of (i, j) is that of (j, i), so the pair is in or out as a whole */
        int ai = -1, aj = -1;
        double amax = -1;
        for (int i = 0; i < P; i++)
            for (int j = i + 1; j < P; j++) {
                double a = LENS_CUBE_AT(cb, c->stat, k, i, j), b = LENS_CUBE_AT(cb, c->stat, k, j, i);
                if (!isfinite(a) || !isfinite(b) || !(a + b > 0) || !in_scope(cb, c->scope, i, j))
                    continue;
                /* a + b > 0 above also skips two zeros, whose ratio would be 0/0; r is in [0, 1] */
                double r = fabs(a - b) / (a + b);
                if (r > amax)
                    amax = r, ai = i, aj = j;
            }
        if (ai < 0)
            return cfail(e, LENS_EDATA, cr, c, "%s: no pair of the %s has both directions at %d B",
                         in->name, scope_words(c->scope), L);
        consider(w, c, amax, pair_hosts(cb, ai, aj, " <-> ", hosts, sizeof hosts), "%spair %d <-> %d at %d B",
                 pre, ai, aj, L);
    }
    }
    return LENS_OK;
}

/* A cube metric on one cube: at length= or at every length. */
static int cube_metric(const struct lens_criteria *cr, const struct lens_criterion *c,
                       const struct lens_accept_input *in, int nin, struct worst *w, struct lens_err *e)
{
    const struct lens_cube *cb = in->cube;
    char pre[300];
    prefix_of(in, nin, pre, sizeof pre);
    /* a cube given as one *_median.nc file has only that statistic */
    if (!cb->data[c->stat])
        return cfail(e, LENS_EDATA, cr, c, "%s has no %s statistic", in->name, lens_cube_stat_name(c->stat));
    if (c->scope != LENS_SCOPE_ALL && !cb->hosts)
        return cfail_at(e, LENS_EDATA, cr, c, c->scope_col, "scope=%s needs host names, and %s has no hosts file",
                     lens_criteria_scope_name(c->scope), in->name);
    /* An empty scope would measure nothing and pass: refuse it. */
    int pairs = 0;
    for (int i = 0; i < cb->procs && !pairs; i++)
        for (int j = 0; j < cb->procs && !pairs; j++)
            pairs = i != j && in_scope(cb, c->scope, i, j);
    if (!pairs)
        return cfail_at(e, LENS_EDATA, cr, c, c->scope_col, "%s has no %s", in->name, scope_words(c->scope));
    /* length= must match a measured length exactly: the nearest one would judge a message
     * size the contract did not name */
    int k0 = 0, k1 = cb->nlen;
    if (c->length >= 0) {
        k0 = -1;
        for (int k = 0; k < cb->nlen && k0 < 0; k++)
            if (cb->lengths[k] == c->length)
                k0 = k;
        if (k0 < 0)
            return cfail_at(e, LENS_EDATA, cr, c, c->length_col, "%s has no length %lld B (its lengths: %d to %d B, step %d)",
                         in->name, c->length, cb->lengths[0], cb->lengths[cb->nlen - 1], cb->step);
        k1 = k0 + 1;
    }
    /* one P*P buffer for every length: the median and percentile reorder it in place */
    double *buf = lens_malloc((size_t)cb->procs * (size_t)cb->procs * sizeof *buf);
    if (!buf)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    int rc = LENS_OK;
    /* without length=, every length counts: the worst over them stays in w */
    for (int k = k0; k < k1 && rc == LENS_OK; k++)
        rc = cube_length(cr, c, in, pre, k, buf, w, e);
    lens_free(buf);
    return rc;
}

/* The anomalies of each (input, statistic), found at most once.
 * A contract naming slow nodes, bad links and the total asks three times for the same
 * findings; the search is the costly part, so it runs once per (input, statistic). */
struct anomaly_cache {
    struct lens_structure *s; /* nin * LENS_STAT_COUNT */
    /* done[slot]: s[slot] was run (or tried) */
    unsigned char *done;
};

static int anomaly_metric(const struct lens_criteria *cr, const struct lens_criterion *c,
                          const struct lens_accept_input *in, int idx, int nin, struct anomaly_cache *ac,
                          struct worst *w, struct lens_err *e)
{
    const struct lens_cube *cb = in->cube;
    if (!cb->data[c->stat])
        return cfail(e, LENS_EDATA, cr, c, "%s has no %s statistic", in->name, lens_cube_stat_name(c->stat));
    /* stat=min and stat=median criteria need two searches: the slot is per statistic */
    size_t slot = (size_t)idx * LENS_STAT_COUNT + (size_t)c->stat;
    struct lens_structure *s = &ac->s[slot];
    if (!ac->done[slot]) {
        /* only the anomaly part, as cli/cmd_anomalies.c asks for it */
        struct lens_structure_opts so;
        lens_structure_opts_default(&so);
        so.parts = LENS_STRUCTURE_ANOMALIES;
        so.anomaly.stat = c->stat;
        int rc = lens_structure_run(cb, &so, s, e);
        /* done even on failure: s is released with the cache whatever it holds */
        ac->done[slot] = 1;
        if (rc != LENS_OK)
            return lens_err_prefix(e, in->name), rc;
    }
    /* metric -> anomaly kind; anomalies.total takes every kind and needs no entry */
    static const int kind_of[] = {[LENS_METRIC_SLOW_NODE] = LENS_ANOMALY_SLOW_NODE,
                                  [LENS_METRIC_BAD_LINK] = LENS_ANOMALY_BAD_LINK,
                                  [LENS_METRIC_ASYMMETRIC_PAIR] = LENS_ANOMALY_ASYMMETRIC_PAIR,
                                  [LENS_METRIC_STRUCTURE_CHANGE] = LENS_ANOMALY_STRUCTURE_CHANGE};
    /* the subjects, in the ranked order of `mpilens anomalies`, until `where` is full */
    int count = 0;
    char where[256], hosts[256] = "";
    prefix_of(in, nin, where, sizeof where);
    size_t used = strlen(where), hused = 0;
    for (int i = 0; i < s->an->n; i++) {
        const struct lens_anomaly *f = &s->an->items[i];
        if (c->metric != LENS_METRIC_ANOMALIES_TOTAL && f->kind != kind_of[c->metric])
            continue;
        /* snprintf stops at the end of where while returning the full length, so used may pass
         * sizeof where: that ends the appends, and count goes on counting every finding */
        if (used < sizeof where)
            used += (size_t)snprintf(where + used, sizeof where - used, "%s%s", count ? ", " : "", f->subject);
        /* the hosts of each finding: a link or pair as "a -> b" (its two ranks), a node as
         * its one host; a structure change names no rank and adds nothing */
        char one[128] = "";
        if (cb->hosts && f->nranks == 2 && f->kind != LENS_ANOMALY_SLOW_NODE)
            pair_hosts(cb, f->ranks[0], f->ranks[1], f->kind == LENS_ANOMALY_BAD_LINK ? " -> " : " <-> ", one,
                       sizeof one);
        else if (cb->hosts && f->nranks > 0)
            snprintf(one, sizeof one, "%s", cb->hosts[f->ranks[0]]);
        if (one[0] && hused < sizeof hosts)
            hused += (size_t)snprintf(hosts + hused, sizeof hosts - hused, "%s%s", hused ? ", " : "", one);
        count++;
    }
    if (!count)
        snprintf(where + used, sizeof where - used, "none");
    /* a count of findings: with the usual <= N or == 0 the worst input is the one with most */
    consider(w, c, count, hosts, "%s", where);
    return LENS_OK;
}

/* A p2p metric on one sweep: every pair in the scope at size=. */
static int p2p_metric(const struct lens_criteria *cr, const struct lens_criterion *c,
                      const struct lens_accept_input *in, int nin, struct worst *w, struct lens_err *e)
{
    const struct lens_p2pfile *f = in->p2p;
    char pre[300];
    prefix_of(in, nin, pre, sizeof pre);
    /* pairs in the scope; none at all is an error, not a vacuous pass */
    int used = 0;
    for (int p = 0; p < f->npairs; p++) {
        const struct lens_p2p_pair *q = &f->pair[p];
        /* the sweep says inter from its kind column, or from two different host labels */
        if (c->scope != LENS_SCOPE_ALL && q->inter != (c->scope == LENS_SCOPE_INTER))
            continue;
        const struct lens_p2p_point *pt = NULL;
        /* both are whole bytes, so the match is exact */
        for (int s = 0; s < q->nsize && !pt; s++)
            if (q->pt[s].size_bytes == c->size)
                pt = &q->pt[s];
        /* no interpolation: the contract names a size, and only a measured one is evidence */
        if (!pt)
            return cfail_at(e, LENS_EDATA, cr, c, c->size_col, "%s: pair '%s' was not measured at %lld B", in->name,
                         q->label, c->size);
        /* medians over the timed iterations: one slow repeat does not decide acceptance */
        double v = c->metric == LENS_METRIC_P2P_LATENCY ? pt->latency_median_s
                   : c->metric == LENS_METRIC_P2P_BANDWIDTH ? pt->bandwidth_median_Bps
                                                             : pt->msg_rate_median_per_s;
        if (!isfinite(v))
            return cfail(e, LENS_EDATA, cr, c, "%s: pair '%s' has no finite value at %lld B", in->name,
                         q->label, c->size);
        /* the sweep's own host columns, when it has them, name the pair's machines */
        char hosts[256] = "";
        if (q->host_a[0] && q->host_b[0])
            snprintf(hosts, sizeof hosts, "%s -> %s", q->host_a, q->host_b);
        consider(w, c, v, hosts, "%s%s at %lld B", pre, q->label, c->size);
        used++;
    }
    if (!used)
        return cfail_at(e, LENS_EDATA, cr, c, c->scope_col, "%s has no %s pair", in->name,
                        lens_criteria_scope_name(c->scope));
    return LENS_OK;
}

/* A bisection metric on one run: the smallest aggregate bandwidth of its rounds (.min) or
 * their mean (.avg), bytes/s as the CSV has them (bytes / seconds of the round). */
static int bisection_metric(const struct lens_criteria *cr, const struct lens_criterion *c,
                            const struct lens_accept_input *in, int nin, struct worst *w, struct lens_err *e)
{
    /* no criterion-specific check here: the summary can fail only for lack of memory */
    (void)cr;
    struct lens_bisection_summary s;
    int rc = lens_bisection_summarise(in->bisection, &s, e);
    if (rc != LENS_OK)
        return rc;
    char pre[300];
    prefix_of(in, nin, pre, sizeof pre);
    /* the minimum is a real round, named in `where`; the mean can hide one slow round, so
     * the contract chooses which of the two it means */
    if (c->metric == LENS_METRIC_BISECTION_MIN)
        consider(w, c, s.min_Bps, NULL, "%sround %d of %d", pre, s.min_round, s.rounds);
    else
        consider(w, c, s.avg_Bps, NULL, "%smean of %d rounds", pre, s.rounds);
    return LENS_OK;
}

/* compare.regressions on one cube: the slower findings of its comparison with the baseline,
 * whatever their kind (a link, a node, the machine, a change of the clustering), as
 * `mpilens compare` lists them; `where` names them in that order. */
static int compare_metric(const struct lens_criterion *c, const struct lens_accept_input *in, int nin,
                          struct worst *w)
{
    const struct lens_compare *cmp = in->compare;
    char where[256], hosts[256] = "";
    prefix_of(in, nin, where, sizeof where);
    size_t used = strlen(where), hused = 0;
    int count = 0;
    for (int i = 0; i < cmp->nfind; i++) {
        const struct lens_compare_finding *f = &cmp->find[i];
        if (f->direction <= 0)
            continue;
        /* "link 5 -> 12 1.50x": a link is directed, sender first; other kinds are sets of
         * ranks too long for one line, so they are named by kind and first rank */
        char subject[96];
        if (f->kind == LENS_COMPARE_LINK && f->nranks == 2)
            snprintf(subject, sizeof subject, "link %d -> %d", f->ranks[0], f->ranks[1]);
        else if (f->kind == LENS_COMPARE_MACHINE)
            snprintf(subject, sizeof subject, "machine");
        else
            snprintf(subject, sizeof subject, "%s of %d ranks from %d", lens_compare_kind_name(f->kind), f->nranks,
                     f->nranks > 0 ? f->ranks[0] : -1);
        /* the same bounded appends as anomaly_metric: count goes on when where is full */
        if (used < sizeof where)
            used += (size_t)snprintf(where + used, sizeof where - used, "%s%s %.2fx slower", count ? ", " : "",
                                     subject, f->ratio);
        /* a link's hosts as "a -> b", as the cube metrics write a pair; the machine has none */
        if (f->kind != LENS_COMPARE_MACHINE && f->nhosts > 0 && hused < sizeof hosts)
            hused += (size_t)snprintf(hosts + hused, sizeof hosts - hused, "%s%s%s%s", hused ? ", " : "",
                                      f->hosts[0], f->nhosts > 1 ? (f->kind == LENS_COMPARE_LINK ? " -> " : ", ") : "",
                                      f->nhosts > 1 ? f->hosts[1] : "");
        count++;
    }
    if (!count)
        snprintf(where + used, sizeof where - used, "none against %s", in->baseline ? in->baseline : "the baseline");
    consider(w, c, count, hosts, "%s", where);
    return LENS_OK;
}

static int evaluate(const struct lens_criteria *cr, const struct lens_criterion *c,
                    const struct lens_accept_input *in, int nin, struct anomaly_cache *ac,
                    struct lens_accept_result *r, struct lens_err *e)
{
    int src = lens_criteria_metric_source(c->metric), rc = LENS_OK, any = 0;
    struct worst w;
    memset(&w, 0, sizeof w);
    /* every input of the metric's kind must satisfy it: the worst over all of them counts */
    for (int i = 0; i < nin && rc == LENS_OK; i++) {
        /* an input of another kind is no evidence for this metric: skipped, not failed */
        if (src == LENS_CRITERIA_P2P         ? !in[i].p2p
            : src == LENS_CRITERIA_BISECTION ? !in[i].bisection
            : src == LENS_CRITERIA_COMPARE   ? !in[i].compare
                                             : !in[i].cube)
            continue;
        any = 1;
        w.cur = i;
        if (src == LENS_CRITERIA_COMPARE)
            rc = compare_metric(c, &in[i], nin, &w);
        else if (src == LENS_CRITERIA_CUBE)
            rc = cube_metric(cr, c, &in[i], nin, &w, e);
        else if (src == LENS_CRITERIA_ANOMALIES)
            rc = anomaly_metric(cr, c, &in[i], i, nin, ac, &w, e);
        else if (src == LENS_CRITERIA_BISECTION)
            rc = bisection_metric(cr, c, &in[i], nin, &w, e);
        else
            rc = p2p_metric(cr, c, &in[i], nin, &w, e);
    }
    if (rc != LENS_OK)
        return rc;
    /* a metric no input can give is an error, never a silent pass */
    if (!any || !w.have)
        return cfail(e, LENS_EDATA, cr, c, "no %s among the inputs",
                     src == LENS_CRITERIA_P2P ? "p2p sweep"
                     : src == LENS_CRITERIA_BISECTION ? "bisection run (PREFIX_bisection.csv)"
                     : src == LENS_CRITERIA_COMPARE ? "cube compared with a baseline (give --baseline BASE)"
                                                    : "latency cube");
    r->measured = w.v;
    /* judging the worst value is enough: it is extreme with respect to the operator, so if
     * it holds, every other value holds too (for ==, the farthest value equals the limit) */
    r->pass = lens_criteria_holds(c->op, w.v, c->limit);
    /* margin > 0 inside the limit, < 0 outside, 0 exactly on it (which passes <= and fails
     * <), in the limit's unit, so one sign reads the same for every operator */
    r->margin = c->op == LENS_CRITERIA_LE || c->op == LENS_CRITERIA_LT ? c->limit - w.v
                : c->op == LENS_CRITERIA_EQ ? -fabs(w.v - c->limit) : w.v - c->limit;
    r->margin += 0.0; /* -0 (an exact ==) prints as 0 */
    snprintf(r->where, sizeof r->where, "%s", w.where);
    snprintf(r->hosts, sizeof r->hosts, "%s", w.hosts);
    r->input = w.input;
    return LENS_OK;
}

void lens_accept_free(struct lens_accept *a)
{
    if (!a)
        return;
    lens_free(a->r);
    lens_free(a);
}

int lens_accept_run(const struct lens_criteria *cr, const struct lens_accept_input *in, int nin,
                    struct lens_accept **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_accept *a = lens_calloc(1, sizeof *a);
    struct anomaly_cache ac;
    /* at least one slot, so that a zero-sized calloc cannot be mistaken for a failure */
    size_t slots = (size_t)(nin > 0 ? nin : 1) * LENS_STAT_COUNT;
    ac.s = lens_calloc(slots, sizeof *ac.s);
    ac.done = lens_calloc(slots, 1);
    if (a)
        a->r = lens_calloc((size_t)(cr->n > 0 ? cr->n : 1), sizeof *a->r);
    int rc = !a || !a->r || !ac.s || !ac.done ? lens_err_set(e, LENS_ENOMEM, "out of memory") : LENS_OK;
    if (a)
        a->n = cr->n;
    /* the first criterion that cannot be measured stops the run: a verdict computed on part
     * of the contract would be a verdict on another contract */
    for (int i = 0; i < cr->n && rc == LENS_OK; i++) {
        rc = evaluate(cr, &cr->c[i], in, nin, &ac, &a->r[i], e);
        /* failed counts criteria measured and not holding; an error adds nothing */
        a->failed += rc == LENS_OK && !a->r[i].pass;
    }
    /* every slot, run or not: a zeroed lens_structure releases as nothing */
    for (size_t s = 0; ac.s && s < slots; s++)
        lens_structure_release(&ac.s[s]);
    lens_free(ac.s);
    lens_free(ac.done);
    if (rc != LENS_OK) {
        lens_accept_free(a);
        return rc;
    }
    *out = a;
    return LENS_OK;
}
