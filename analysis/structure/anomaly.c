/* Anomalies of a latency cube, with evidence in robust units. Four detectors share one
 * yardstick: a log-scale quantity, its median over its peers, and 1.4826 MAD (floored) as the
 * unit, so "z = 14" means fourteen robust standard deviations from the typical value. */
#include "anomaly.h"
#include "common/time.h"
#include "anomaly_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The thresholds of docs/methods.md §9. z >= 5 is Iglewicz and Hoaglin's robust z well past
 * their 3.5 outlier mark, because a cube has thousands of links and a lower bar would flag
 * a few by chance on every machine; the effect minima (15 % slower, 30 % over the class)
 * keep a statistically clear but harmless difference out of the report. */
void lens_anomaly_opts_default(struct lens_anomaly_opts *o)
{
    o->stat = -1;
    o->z_min = 5.0;
    o->slow_min = 1.15;
    o->link_min = 1.3;
    o->asym_min = 1.3;
    o->change_min = 0.1;
    o->mad_floor = 0.01;
    o->class_tol = 0.1;
}

int lens_anomaly_retest_verdict(const struct lens_retest *rt, const struct lens_anomaly *f)
{
    /* only findings about one link were retested as cells; a node or the machine was not */
    if (!rt || f->nranks != 2 || (f->kind != LENS_ANOMALY_BAD_LINK && f->kind != LENS_ANOMALY_ASYMMETRIC_PAIR))
        return -1;
    int both = f->kind == LENS_ANOMALY_BAD_LINK && strstr(f->subject, "<->") != NULL;
    return lens_retest_link_verdict(rt, f->ranks[0], f->ranks[1], both, f->lengths, f->nlengths);
}

const char *lens_anomaly_kind_name(int kind)
{
    /* the JSON and the report use these words: indexed by enum lens_anomaly_kind */
    static const char *names[] = {"slow_node", "bad_link", "asymmetric_pair", "structure_change"};
    return kind >= 0 && kind < 4 ? names[kind] : "unknown";
}

/* Which end of a link the row is, per network_test2 mode (docs/methods.md §1): only used to
 * name a link "s->r" the right way round; the detectors themselves treat (i, j) as given. */
int lens_anomaly_row_is_receiver(int mode)
{
    switch (mode) {
    case LENS_MODE_ASYNC_ONE_TO_ONE:
    case LENS_MODE_SEND_RECV_AND_RECV_SEND:
    case LENS_MODE_BCAST:
    case LENS_MODE_PUT:
    case LENS_MODE_GET:
    case LENS_MODE_P2P:
        return 0;
    default:
        return 1;
    }
}

/* ---- robust statistics ------------------------------------------------------------------ */

/* Median and robust sigma 1.4826 * max(MAD, floor) of v (destroyed).
 * 1.4826 makes the MAD a consistent estimate of the standard deviation for normal data
 * (Iglewicz and Hoaglin), so z reads like a classical z but one outlier cannot inflate it. The
 * floor (in log units: 0.01 is 1 %) keeps a nearly noiseless cube, whose MAD is almost 0,
 * from turning a 2 % difference into z = 100. n == 0 gives a NaN median, which makes every
 * later z NaN and its comparison false: nothing is flagged from no data. */
void lens_anomaly_robust(double *v, size_t n, double floor, double *med, double *sig)
{
    *med = lens_cube_median(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(v[i] - *med);
    double mad = lens_cube_median(v, n);
    *sig = 1.4826 * (mad > floor ? mad : floor);
}

/* ---- findings --------------------------------------------------------------------------- */

/* Ascending ranks as runs: "16-23", "1, 3-5, 9".
 * Runs keep a whole node's ranks short ("16-23" rather than eight numbers). Output that does
 * not fit is cut (snprintf stops at n; used then reaches n and the loop ends), which only
 * shortens a subject line. */
void lens_anomaly_fmt_ranks(char *buf, size_t n, const int *r, int nr)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < nr && used < n; i++) {
        int j = i;
        while (j + 1 < nr && r[j + 1] == r[j] + 1)
            j++;
        int w = j > i ? snprintf(buf + used, n - used, "%s%d-%d", i ? ", " : "", r[i], r[j])
                      : snprintf(buf + used, n - used, "%s%d", i ? ", " : "", r[i]);
        used += w > 0 ? (size_t)w : 0;
        i = j;
    }
}

/* Appends a finding; ranks and lengths (indices into c->lengths) are copied.
 * Capacity doubles so that adding is amortised O(1). a->n grows only after both arrays are
 * allocated, so on failure the result holds only complete findings, all freeable by
 * lens_anomaly_free. Lengths are stored in bytes, not indices: the finding outlives the cube. */
int lens_anomaly_add(struct lens_anomaly_ctx *x, int kind, const int *ranks, int nranks,
                     const int *ks, int nks, struct lens_anomaly **out)
{
    struct lens_anomalies *a = x->a;
    if (a->n == x->cap) {
        int cap = x->cap ? 2 * x->cap : 8;
        struct lens_anomaly *p = lens_realloc(a->items, (size_t)cap * sizeof *p);
        if (!p)
            return lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
        a->items = p;
        x->cap = cap;
    }
    struct lens_anomaly *f = &a->items[a->n];
    memset(f, 0, sizeof *f);
    /* at least one element: a structure change has no ranks, and malloc(0) may return NULL */
    f->ranks = lens_malloc((size_t)(nranks > 0 ? nranks : 1) * sizeof(int));
    f->lengths = lens_malloc((size_t)(nks > 0 ? nks : 1) * sizeof(int));
    if (!f->ranks || !f->lengths) {
        lens_free(f->ranks);
        lens_free(f->lengths);
        return lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
    }
    a->n++;
    f->kind = kind;
    f->nranks = nranks;
    f->nlengths = nks;
    for (int i = 0; i < nranks; i++)
        f->ranks[i] = ranks[i];
    for (int i = 0; i < nks; i++)
        f->lengths[i] = x->c->lengths[ks[i]];
    f->ref_length = -1;
    *out = f;
    return LENS_OK;
}

/* ---- slow processes and nodes ------------------------------------------------------------
 * Each rank's links (both directions) sorted form its profile; the typical profile is the
 * median over ranks, point by point. A rank's slowness at one length is the median over the
 * profile of its log-ratio to the typical profile; its slowness is the median over lengths.
 * Sorting makes ranks comparable without knowing which links are of which kind. */

struct slow {
    double *f;     /* P x L log slowness per rank and length */
    double *fr;    /* P: median over lengths */
    double *medv;  /* P: log median link at the last length */
    double typ_ref; /* log median of the typical profile at the last length */
};

/* O(L P^2 log P) time for the sorts, O(P^2) memory for the profiles of one length. Working in
 * logs makes the slowness a factor (log ratio), and medians everywhere mean a rank with a few
 * bad links is not slow, and a minority of slow ranks does not move the typical profile. */
static int slow_profiles(struct lens_anomaly_ctx *x, struct slow *sl)
{
    int P = x->P, L = x->L, Q = 2 * (P - 1), nb = Q > L ? Q : L; /* Q >= P when P >= 2 */
    double *prof = lens_malloc((size_t)P * Q * sizeof *prof);
    double *typ = lens_malloc((size_t)Q * sizeof *typ);
    double *buf = lens_malloc((size_t)nb * sizeof *buf), *scratch = lens_malloc((size_t)nb * sizeof *scratch);
    if (!prof || !typ || !buf || !scratch) {
        lens_free(prof);
        lens_free(typ);
        lens_free(buf);
        lens_free(scratch);
        return lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
    }
    for (int k = 0; k < L; k++) {
        for (int i = 0; i < P; i++) {
            int n = 0;
            for (int j = 0; j < P; j++) {
                if (j == i)
                    continue;
                double a = lens_anomaly_lt(x, k, i, j), b = lens_anomaly_lt(x, k, j, i);
                if (!isnan(a))
                    buf[n++] = a;
                if (!isnan(b))
                    buf[n++] = b;
            }
            /* The profile is resampled onto Q points by linear interpolation between order
             * statistics, so ranks that lost some measurements (NaN) still have a comparable
             * profile: point q of every rank is the same quantile. */
            double *row = prof + (size_t)i * Q;
            /* every quantile is needed, so a whole sort: P sorts of up to 2(P-1) values per
             * length, radix (lens_cube_sort) since qsort was a tenth of a report (issue 13) */
            lens_cube_sort(buf, (size_t)n, scratch);
            for (int q = 0; q < Q; q++) { /* quantiles on a common grid: missing values allowed */
                if (n == 0) {
                    row[q] = NAN;
                    continue;
                }
                double pos = Q > 1 ? (double)q * (n - 1) / (Q - 1) : 0;
                int lo = (int)pos;
                double fr = pos - lo;
                row[q] = lo + 1 < n ? buf[lo] * (1 - fr) + buf[lo + 1] * fr : buf[lo];
            }
            /* the rank's median link at the longest length is what the evidence sentence quotes */
            if (k == L - 1)
                sl->medv[i] = n ? row[Q / 2] : NAN;
        }
        for (int q = 0; q < Q; q++) {
            int m = 0;
            for (int i = 0; i < P; i++)
                if (!isnan(prof[(size_t)i * Q + q]))
                    buf[m++] = prof[(size_t)i * Q + q];
            /* the typical profile: the median rank at each quantile, not any one real rank */
            typ[q] = lens_cube_median(buf, (size_t)m);
        }
        if (k == L - 1)
            sl->typ_ref = typ[Q / 2];
        for (int i = 0; i < P; i++) {
            int m = 0;
            for (int q = 0; q < Q; q++) {
                double d = prof[(size_t)i * Q + q] - typ[q];
                if (!isnan(d))
                    buf[m++] = d;
            }
            /* median of the log ratios: the factor by which most of the rank's links are slower */
            sl->f[(size_t)i * L + k] = lens_cube_median(buf, (size_t)m);
        }
    }
    for (int i = 0; i < P; i++) {
        int m = 0;
        for (int k = 0; k < L; k++)
            if (!isnan(sl->f[(size_t)i * L + k]))
                buf[m++] = sl->f[(size_t)i * L + k];
        /* over lengths: slowness that holds across lengths, not a one-length spike */
        sl->fr[i] = lens_cube_median(buf, (size_t)m);
    }
    lens_free(prof);
    lens_free(typ);
    lens_free(buf);
    lens_free(scratch);
    return LENS_OK;
}

/* One finding for the flagged ranks grp[0..ng) (one host, or one rank without hosts).
 * The reported factor is the group's median slowness relative to the median rank (med), so a
 * whole slow node is one finding with one factor. The lengths listed are those where the
 * group is at least slow_min slower than that length's median rank (medk[k]), which tells a
 * user whether the slowness is in latency (short lengths) or bandwidth (long ones). */
static int slow_finding(struct lens_anomaly_ctx *x, const struct slow *sl, const int *grp, int ng,
                        int whole_host, double med, double sig, const double *medk, double *buf, int *ks)
{
    int L = x->L;
    for (int g = 0; g < ng; g++)
        buf[g] = sl->fr[grp[g]];
    double fac = lens_cube_median(buf, (size_t)ng) - med;
    for (int g = 0; g < ng; g++)
        buf[g] = sl->medv[grp[g]];
    double val = lens_cube_median(buf, (size_t)ng);
    int nks = 0;
    for (int k = 0; k < L; k++) {
        int m = 0;
        for (int g = 0; g < ng; g++)
            if (!isnan(sl->f[(size_t)grp[g] * L + k]))
                buf[m++] = sl->f[(size_t)grp[g] * L + k] - medk[k];
        double fk = lens_cube_median(buf, (size_t)m);
        if (!isnan(fk) && fk >= log(x->o->slow_min))
            ks[nks++] = k;
    }
    struct lens_anomaly *f;
    int rc = lens_anomaly_add(x, LENS_ANOMALY_SLOW_NODE, grp, ng, ks, nks, &f);
    if (rc != LENS_OK)
        return rc;
    char rl[64], tv[32], tt[32];
    lens_anomaly_fmt_ranks(rl, sizeof rl, grp, ng);
    const char *host = x->c->hosts ? x->c->hosts[grp[0]] : NULL;
    if (host && whole_host && ng > 1)
        snprintf(f->subject, sizeof f->subject, "%s (ranks %s)", host, rl);
    else if (host)
        snprintf(f->subject, sizeof f->subject, "rank%s %s (%s)", ng > 1 ? "s" : "", rl, host);
    else
        snprintf(f->subject, sizeof f->subject, "rank%s %s", ng > 1 ? "s" : "", rl);
    f->ratio = exp(fac);
    /* the same z the flag was decided by, for the group as a whole */
    f->score = fac / sig;
    f->value = exp(val);
    f->typical = exp(sl->typ_ref);
    f->unit = "s";
    f->ref_length = x->c->lengths[L - 1];
    lens_time_format_duration(f->value, tv, sizeof tv);
    lens_time_format_duration(f->typical, tt, sizeof tt);
    snprintf(f->evidence, sizeof f->evidence,
             "%s: links %.2fx slower than the median rank's (median link %s against %s at %d B), "
             "robust z = %.1f; at least %.2fx at %d of %d lengths",
             f->subject, f->ratio, tv, tt, f->ref_length, f->score, x->o->slow_min, nks, L);
    return LENS_OK;
}

/* Slowness of each rank, robust z over ranks, flagged when both z >= z_min and the factor
 * >= slow_min; then flagged ranks are grouped by host. flag: 0 not slow, 1 slow and not yet
 * reported, 2 reported as part of a group, so each rank is in exactly one finding. */
static int find_slow(struct lens_anomaly_ctx *x)
{
    int P = x->P, L = x->L, rc = LENS_OK;
    struct slow sl = {0};
    sl.f = lens_malloc((size_t)P * L * sizeof(double));
    sl.fr = lens_malloc((size_t)P * sizeof(double));
    sl.medv = lens_malloc((size_t)P * sizeof(double));
    double *buf = lens_malloc((size_t)(P > L ? P : L) * sizeof(double));
    double *medk = lens_malloc((size_t)L * sizeof(double));
    int *flag = lens_calloc((size_t)P, sizeof(int)), *grp = lens_malloc((size_t)P * sizeof(int));
    int *ks = lens_malloc((size_t)L * sizeof(int));
    if (!sl.f || !sl.fr || !sl.medv || !buf || !medk || !flag || !grp || !ks) {
        rc = lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
        goto done;
    }
    if ((rc = slow_profiles(x, &sl)) != LENS_OK)
        goto done;
    int m = 0;
    for (int i = 0; i < P; i++)
        if (!isnan(sl.fr[i]))
            buf[m++] = sl.fr[i];
    double med, sig;
    /* med: the typical rank's slowness (about 0 on a healthy machine) */
    lens_anomaly_robust(buf, (size_t)m, x->o->mad_floor, &med, &sig);
    for (int k = 0; k < L; k++) {
        int n = 0;
        for (int i = 0; i < P; i++)
            if (!isnan(sl.f[(size_t)i * L + k]))
                buf[n++] = sl.f[(size_t)i * L + k];
        /* per length, for slow_finding's list of lengths where the group is slow */
        medk[k] = lens_cube_median(buf, (size_t)n);
    }
    for (int i = 0; i < P; i++)
        flag[i] = !isnan(sl.fr[i]) && (sl.fr[i] - med) / sig >= x->o->z_min &&
                  sl.fr[i] - med >= log(x->o->slow_min);
    for (int i = 0; i < P && rc == LENS_OK; i++) {
        if (flag[i] != 1)
            continue;
        int ng = 0, nhost = 0;
        /* a host's flagged ranks, in rank order; without hosts each rank is its own group */
        for (int j = i; j < P; j++) {
            int same = x->c->hosts ? !strcmp(x->c->hosts[i], x->c->hosts[j]) : j == i;
            if (same && flag[j] == 1) {
                grp[ng++] = j;
                flag[j] = 2; /* reported */
            }
        }
        /* whole_host: every rank of the host is flagged, so the node itself is named */
        for (int j = 0; j < P && x->c->hosts; j++)
            nhost += !strcmp(x->c->hosts[i], x->c->hosts[j]);
        rc = slow_finding(x, &sl, grp, ng, ng == nhost, med, sig, medk, buf, ks);
    }
done:
    lens_free(sl.f);
    lens_free(sl.fr);
    lens_free(sl.medv);
    lens_free(buf);
    lens_free(medk);
    lens_free(flag);
    lens_free(grp);
    lens_free(ks);
    return rc;
}

/* ---- structure changes -----------------------------------------------------------------
 * Between lengths k-1 and k every link changes by a factor, its step s = log(t_k / t_k-1).
 * A smooth curve changes like its neighbouring steps; a switch shows in one step only. The
 * excess of a link is its step minus the nearer of its two neighbouring steps (the only one
 * at either end), and the spread of the excesses, the 95th percentile of |excess - median|,
 * is compared with its median over all steps. */

/* Excess step of link (i, j) at k, NaN when unknown; *step gets the step itself.
 * Comparing with the nearer neighbouring step (rather than the mean of both) leaves a curve
 * that bends smoothly with no excess, and a single step that jumps with its full size. */
static double excess(const struct lens_anomaly_ctx *x, int k, int i, int j, double *step)
{
    double s = lens_anomaly_lt(x, k, i, j) - lens_anomaly_lt(x, k - 1, i, j);
    double a = k >= 2 ? lens_anomaly_lt(x, k - 1, i, j) - lens_anomaly_lt(x, k - 2, i, j) : NAN;
    double b = k + 1 < x->L ? lens_anomaly_lt(x, k + 1, i, j) - lens_anomaly_lt(x, k, i, j) : NAN;
    *step = s;
    if (isnan(a) || (!isnan(b) && fabs(b - s) < fabs(a - s)))
        a = b;
    return s - a; /* NaN when s or both neighbours are unknown */
}

/* O(L P^2) with quickselect for the percentiles. The 95th percentile of |excess - median|
 * rather than the MAD is the spread because a switch may move only a minority of links (the
 * ones crossing a switch, say); the median of the spreads over steps is the typical one. */
static int find_changes(struct lens_anomaly_ctx *x)
{
    int P = x->P, L = x->L, rc = LENS_OK;
    if (L < 5)
        return LENS_OK; /* fewer than 4 steps: no typical spread to compare with */
    size_t nl = (size_t)P * P;
    double *s = lens_malloc(nl * sizeof *s), *d = lens_malloc(nl * sizeof *d);
    double *st = lens_malloc(nl * sizeof *st), *D = lens_malloc((size_t)L * 5 * sizeof *D);
    if (!s || !d || !st || !D) {
        rc = lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
        goto done;
    }
    /* D[k*5 + 0..4]: spread, links below / above the split, their median steps */
    for (int k = 1; k < L; k++) {
        size_t m = 0;
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                double v = j == i ? NAN : excess(x, k, i, j, &st[m]);
                if (!isnan(v))
                    s[m++] = v;
            }
        D[k * 5] = NAN;
        /* too few links for a 5 %/95 % percentile to mean anything */
        if (m < 8)
            continue;
        memcpy(d, s, m * sizeof *d);
        double med = lens_cube_median(d, m);
        /* lo, hi: the 5th and 95th percentile of the excesses (nearest rank); mid splits the links
         * into the two groups that scaled differently, for the evidence sentence only */
        double lo, hi;
        lens_cube_select_pair(d, m, (size_t)(0.05 * (m - 1) + 0.5), (size_t)(0.95 * (m - 1) + 0.5), &lo, &hi);
        double mid = 0.5 * (lo + hi);
        for (size_t t = 0; t < m; t++)
            d[t] = fabs(s[t] - med);
        D[k * 5] = lens_cube_select(d, m, (size_t)(0.95 * (m - 1) + 0.5));
        size_t na = 0, nb = 0;
        for (size_t t = 0; t < m; t++) /* steps of links below the split to the front of d */
            if (s[t] < mid)
                d[na++] = st[t];
        for (size_t t = 0; t < m; t++)
            if (s[t] >= mid)
                d[m - 1 - nb++] = st[t];
        D[k * 5 + 1] = (double)na;
        D[k * 5 + 2] = (double)nb;
        /* the two groups' median steps: "n links changed by a, the others by b" */
        D[k * 5 + 3] = lens_cube_median(d, na);
        D[k * 5 + 4] = lens_cube_median(d + m - nb, nb);
    }
    size_t m = 0;
    for (int k = 1; k < L; k++)
        if (!isnan(D[k * 5]))
            s[m++] = D[k * 5];
    if (m < 4)
        goto done;
    double med, sig;
    lens_anomaly_robust(s, m, x->o->mad_floor, &med, &sig);
    for (int k = 1; k < L && rc == LENS_OK; k++) {
        /* Both the z and an absolute spread (change_min, 10 % in log) are needed: a cube of
         * perfectly smooth curves has a tiny MAD over steps, and any noise would otherwise be a
         * "switch". */
        double z = (D[k * 5] - med) / sig;
        if (isnan(D[k * 5]) || z < x->o->z_min || D[k * 5] < x->o->change_min)
            continue;
        int ks[2] = {k - 1, k};
        struct lens_anomaly *f;
        rc = lens_anomaly_add(x, LENS_ANOMALY_STRUCTURE_CHANGE, NULL, 0, ks, 2, &f);
        if (rc != LENS_OK)
            break;
        f->value = exp(D[k * 5]);
        f->typical = exp(med);
        f->unit = "x";
        f->ref_length = x->c->lengths[k];
        f->ratio = exp(D[k * 5 + 4] - D[k * 5 + 3]);
        f->score = z;
        snprintf(f->subject, sizeof f->subject, "%d->%d B", x->c->lengths[k - 1], x->c->lengths[k]);
        snprintf(f->evidence, sizeof f->evidence,
                 "between %d and %d B the links stop scaling alike: %.0f links changed by %.2fx, "
                 "the other %.0f by %.2fx (excess spread %.2fx against a typical %.2fx), "
                 "robust z = %.1f",
                 x->c->lengths[k - 1], x->c->lengths[k], D[k * 5 + 2], exp(D[k * 5 + 4]),
                 D[k * 5 + 1], exp(D[k * 5 + 3]), f->value, f->typical, z);
    }
done:
    lens_free(s);
    lens_free(d);
    lens_free(st);
    lens_free(D);
    return rc;
}

/* ---- driver ------------------------------------------------------------------------------ */

/* Highest z first; ties by kind then subject, so the order (and the JSON) is the same on every
 * run and platform, whatever qsort does with equal keys. */
static int cmp_finding(const void *pa, const void *pb)
{
    const struct lens_anomaly *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score < b->score ? 1 : -1;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    return strcmp(a->subject, b->subject);
}

/* Factors below 1 would flag fast ranks as slow; a zero MAD floor would allow an infinite z:
 * both are refused. The statistic defaults to the median, which preempted repeats move least,
 * then the average, then the minimum. */
int lens_anomaly_find(const struct lens_cube *c, const struct lens_anomaly_opts *o,
                      struct lens_anomalies **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_anomaly_opts def;
    if (!o) {
        lens_anomaly_opts_default(&def);
        o = &def;
    }
    if (!(o->z_min > 0) || !(o->slow_min >= 1) || !(o->link_min >= 1) || !(o->asym_min >= 1) ||
        !(o->change_min >= 0) || !(o->mad_floor > 0) || !(o->class_tol > 0))
        return lens_err_set(e, LENS_EINVAL, "anomalies: thresholds must be positive (factors >= 1)");
    int s = o->stat;
    if (s < 0) {
        static const int pref[] = {LENS_STAT_MEDIAN, LENS_STAT_AVERAGE, LENS_STAT_MIN};
        for (int t = 0; t < 3 && s < 0; t++)
            if (c->data[pref[t]])
                s = pref[t];
    }
    if (s < 0 || s >= LENS_STAT_COUNT || !c->data[s])
        return lens_err_set(e, LENS_EINVAL, "%s: no %s statistic to look for anomalies in",
                            c->source ? c->source : "cube",
                            s >= 0 && s < LENS_STAT_COUNT ? lens_cube_stat_name(s) : "delay");
    struct lens_anomalies *a = lens_calloc(1, sizeof *a);
    if (!a)
        return lens_err_set(e, LENS_ENOMEM, "anomalies: out of memory");
    a->stat = s;
    struct lens_anomaly_ctx x = {c, o, s, c->procs, c->nlen, a, 0, e};
    int rc = LENS_OK;
    /* With 2 ranks each rank's only peer is the other: "slower than its peers" has no meaning. */
    if (c->procs >= 3) /* peers to compare with */
        rc = find_slow(&x);
    if (rc == LENS_OK && c->procs >= 3)
        rc = lens_anomaly_find_links(&x);
    if (rc == LENS_OK)
        rc = find_changes(&x);
    if (rc != LENS_OK) {
        lens_anomaly_free(a);
        return rc;
    }
    if (a->n > 1)
        qsort(a->items, (size_t)a->n, sizeof *a->items, cmp_finding);
    *out = a;
    return LENS_OK;
}

void lens_anomaly_free(struct lens_anomalies *a)
{
    if (!a)
        return;
    for (int i = 0; i < a->n; i++) {
        lens_free(a->items[i].ranks);
        lens_free(a->items[i].lengths);
    }
    lens_free(a->items);
    lens_free(a);
}

void lens_anomaly_row(const struct lens_anomalies *a, int i, struct lens_anomaly_row *row)
{
    const struct lens_anomaly *f = &a->items[i];
    row->kind = lens_anomaly_kind_name(f->kind);
    row->subject = f->subject;
    row->value = f->value;
    row->typical = f->typical;
    row->unit = f->unit;
    row->z = f->score;
    row->text = f->evidence;
}
