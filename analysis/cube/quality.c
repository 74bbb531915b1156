/* The data-quality gate (quality.h): whether a latency cube can carry a structure or anomaly
 * analysis, judged from the spread of the repeats, their number, the placement of ranks on
 * hosts and the size of the delays against the timer. The thresholds are in docs/report.md. */
#include "quality.h"

#include "cube.h"
#include "common/alloc.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lens_quality_opts_default(struct lens_quality_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max_spread = 0.5;
    o->min_repeats = 5;
    o->cores = 0;
    o->tick = 1e-7;
    o->min_ticks = 3;
}

int lens_quality_opts_recorded(struct lens_quality_opts *o, const char *cores_per_host)
{
    /* a count set without a source is the caller's own, as --cores is: it wins too */
    if (!cores_per_host || (o->cores > 0 && o->cores_source != LENS_QUALITY_CORES_RECORDED))
        return 0;
    /* the whole text must be the count: "8 (rank 0's node)" or "unknown" is no count */
    char *end;
    errno = 0;
    long v = strtol(cores_per_host, &end, 10);
    if (end == cores_per_host || *end || errno || v < 1 || v > 1000000)
        return 0;
    o->cores = (int)v;
    o->cores_source = LENS_QUALITY_CORES_RECORDED;
    return 1;
}

/* Nearest rank of the q-quantile (0..1) of n > 0 values, so the quantile is a value that was
 * measured. */
static size_t nearest_rank(size_t n, double q)
{
    size_t i = (size_t)floor(q * (double)(n - 1) + 0.5);
    return i < n ? i : n - 1;
}

/* Distinct hosts and the busiest one. Quadratic in the ranks, string compares only, as the
 * report's host summary; a cube of a few thousand ranks costs milliseconds. */
static void count_hosts(const struct lens_cube *c, struct lens_quality *q)
{
    if (!c->hosts)
        return;
    for (int i = 0; i < c->procs; i++) {
        int seen = 0, count = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !strcmp(c->hosts[j], c->hosts[i]);
        if (seen)
            continue;
        q->nhosts++;
        for (int j = i; j < c->procs; j++)
            count += !strcmp(c->hosts[j], c->hosts[i]);
        if (count > q->max_per_host) {
            q->max_per_host = count;
            q->busiest_host = c->hosts[i];
        }
    }
}

/* The relative spread deviation / median of every off-diagonal element with a positive finite
 * median, over all lengths: its median (the typical pair) and 90th percentile. The median, not
 * the mean, because one preempted pair must not fail a good cube. */
static int spread(const struct lens_cube *c, struct lens_quality *q, struct lens_err *e)
{
    q->spread = q->p90_spread = NAN;
    const double *dev = c->data[LENS_STAT_DEVIATION], *med = c->data[LENS_STAT_MEDIAN];
    /* The average stands in for a missing median: the ratio is then the coefficient of variation. */
    if (!med)
        med = c->data[LENS_STAT_AVERAGE];
    if (!dev || !med)
        return LENS_OK; /* not recorded: the gate cannot judge the spread and does not pretend to */
    size_t P = (size_t)c->procs, total = (size_t)c->nlen * P * P, n = 0;
    double *r = lens_malloc(total * sizeof *r);
    if (!r)
        return lens_err_set(e, LENS_ENOMEM, "quality gate: out of memory");
    /* x runs over data[(k*P + i)*P + j]: i and j come back from the flat index. A zero or missing
     * median (a repaired element, the diagonal) has no relative spread and is left out. */
    for (size_t x = 0; x < total; x++) {
        size_t i = (x / P) % P, j = x % P;
        /* + 0.0 turns a -0 deviation's -0 into +0: selection may pick either of two equal
         * zeros, and the page must not print "-0 %" for one of them */
        if (i != j && isfinite(dev[x]) && isfinite(med[x]) && med[x] > 0 && dev[x] >= 0)
            r[n++] = dev[x] / med[x] + 0.0;
    }
    /* Two order statistics, not a sort: the whole sort of P^2 ratios was 8 % of `mpilens
     * report` (issue 13). The median rank is never above the 90th's, so it is selected among
     * the values the first selection left below. */
    if (n > 0)
        lens_cube_select_pair(r, n, nearest_rank(n, 0.5), nearest_rank(n, 0.9), &q->spread, &q->p90_spread);
    lens_free(r);
    return LENS_OK;
}

int lens_quality_check(const struct lens_cube *c, int stat, const struct lens_quality_opts *o,
                       struct lens_quality *q, struct lens_err *e)
{
    memset(q, 0, sizeof *q);
    if (o)
        q->opts = *o;
    else
        lens_quality_opts_default(&q->opts);
    o = &q->opts;
    if (stat < 0 || stat >= LENS_STAT_COUNT || !c->data[stat] || c->nlen < 1)
        return lens_err_set(e, LENS_EINVAL, "%s: statistic '%s' not present", c->source ? c->source : "cube",
                            lens_cube_stat_name(stat));
    if (!(o->max_spread > 0) || o->min_repeats < 1 || o->cores < 0 || !(o->tick >= 0) || !(o->min_ticks >= 0))
        return lens_err_set(e, LENS_EINVAL, "quality gate: bad thresholds");
    /* the numbers the verdict is made from are kept for the report to print, pass or fail */
    q->repeats = c->repeats;
    q->cores = o->cores;
    /* a count without a source is the caller's own (older callers set only cores) */
    q->cores_source = o->cores > 0 && o->cores_source == LENS_QUALITY_CORES_UNKNOWN ? LENS_QUALITY_CORES_OPTION
                      : o->cores > 0                                            ? o->cores_source
                                                                                : LENS_QUALITY_CORES_UNKNOWN;
    count_hosts(c, q);
    int rc = spread(c, q, e);
    if (rc != LENS_OK)
        return rc;
    struct lens_summary s;
    if ((rc = lens_cube_summary(c, stat, 0, &s, e)) != LENS_OK)
        return rc;
    q->first_median = s.median;

    /* Each test below is one reason; all are evaluated so that the report can list every one. */
    if (isfinite(q->spread) && q->spread > o->max_spread)
        q->reasons |= LENS_QUALITY_NOISY;
    /* The count the file records: network_test2 and mpilens-bench measure every pair that often. */
    if (c->repeats < o->min_repeats)
        q->reasons |= LENS_QUALITY_FEW_REPEATS;
    /* Ranks that outnumber the cores take turns on them: a measured delay is then mostly the
     * scheduler's time slice, whatever the network does. Only checked when the cores are known
     * (--cores, or the cube's cores_per_host); the ranks per host come from the hosts file. */
    if (o->cores > 0 && q->max_per_host > o->cores)
        q->reasons |= LENS_QUALITY_OVERSUBSCRIBED;
    /* The smallest length has the smallest delays: if its typical delay is a few ticks, the
     * differences between pairs are the clock's rounding. */
    if (isfinite(q->first_median) && q->first_median < o->min_ticks * o->tick)
        q->reasons |= LENS_QUALITY_TIMER;
    /* Groups of processes are read against the hosts; with one host they could only be sockets,
     * and nothing in the cube says which core a rank ran on to check that. */
    if (q->nhosts == 1)
        q->reasons |= LENS_QUALITY_ONE_HOST;
    q->pass = q->reasons == 0;
    return LENS_OK;
}
