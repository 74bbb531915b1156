/* Anomalies of a latency cube, with evidence in robust units. Four detectors share one
 * yardstick: a log-scale quantity, its median over its peers, and 1.4826 MAD (floored) as the
 * unit, so "z = 14" means fourteen robust standard deviations from the typical value. */
#include "anomaly.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *lens_anomaly_kind_name(int kind)
{
    static const char *names[] = {"slow_node", "bad_link", "asymmetric_pair", "structure_change"};
    return kind >= 0 && kind < 4 ? names[kind] : "unknown";
}

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

/* Median and robust sigma 1.4826 * max(MAD, floor) of v (destroyed). */
static void robust(double *v, size_t n, double floor, double *med, double *sig)
{
    *med = lens_cube_median(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(v[i] - *med);
    double mad = lens_cube_median(v, n);
    *sig = 1.4826 * (mad > floor ? mad : floor);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* ---- findings --------------------------------------------------------------------------- */

struct ctx {
    const struct lens_cube *c;
    const struct lens_anomaly_opts *o;
    int s, P, L;
    struct lens_anomalies *a;
    int cap;
    struct lens_err *e;
};

static double lt(const struct ctx *x, int k, int i, int j)
{
    double v = LENS_CUBE_AT(x->c, x->s, k, i, j);
    return isfinite(v) && v > 0 ? log(v) : NAN;
}

/* Ascending ranks as runs: "16-23", "1, 3-5, 9". */
static void fmt_ranks(char *buf, size_t n, const int *r, int nr)
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

/* Appends a finding; ranks and lengths (indices into c->lengths) are copied. */
static int add(struct ctx *x, int kind, const int *ranks, int nranks, const int *ks, int nks,
               struct lens_anomaly **out)
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

static int slow_profiles(struct ctx *x, struct slow *sl)
{
    int P = x->P, L = x->L, Q = 2 * (P - 1), nb = Q > L ? Q : L; /* Q >= P when P >= 2 */
    double *prof = lens_malloc((size_t)P * Q * sizeof *prof);
    double *typ = lens_malloc((size_t)Q * sizeof *typ);
    double *buf = lens_malloc((size_t)nb * sizeof *buf);
    if (!prof || !typ || !buf) {
        lens_free(prof);
        lens_free(typ);
        lens_free(buf);
        return lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
    }
    for (int k = 0; k < L; k++) {
        for (int i = 0; i < P; i++) {
            int n = 0;
            for (int j = 0; j < P; j++) {
                if (j == i)
                    continue;
                double a = lt(x, k, i, j), b = lt(x, k, j, i);
                if (!isnan(a))
                    buf[n++] = a;
                if (!isnan(b))
                    buf[n++] = b;
            }
            double *row = prof + (size_t)i * Q;
            if (n > 0)
                qsort(buf, (size_t)n, sizeof *buf, cmp_double);
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
            if (k == L - 1)
                sl->medv[i] = n ? row[Q / 2] : NAN;
        }
        for (int q = 0; q < Q; q++) {
            int m = 0;
            for (int i = 0; i < P; i++)
                if (!isnan(prof[(size_t)i * Q + q]))
                    buf[m++] = prof[(size_t)i * Q + q];
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
            sl->f[(size_t)i * L + k] = lens_cube_median(buf, (size_t)m);
        }
    }
    for (int i = 0; i < P; i++) {
        int m = 0;
        for (int k = 0; k < L; k++)
            if (!isnan(sl->f[(size_t)i * L + k]))
                buf[m++] = sl->f[(size_t)i * L + k];
        sl->fr[i] = lens_cube_median(buf, (size_t)m);
    }
    lens_free(prof);
    lens_free(typ);
    lens_free(buf);
    return LENS_OK;
}

/* One finding for the flagged ranks grp[0..ng) (one host, or one rank without hosts). */
static int slow_finding(struct ctx *x, const struct slow *sl, const int *grp, int ng, int whole_host,
                        double med, double sig, const double *medk, double *buf, int *ks)
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
    int rc = add(x, LENS_ANOMALY_SLOW_NODE, grp, ng, ks, nks, &f);
    if (rc != LENS_OK)
        return rc;
    char rl[64], tv[32], tt[32];
    fmt_ranks(rl, sizeof rl, grp, ng);
    const char *host = x->c->hosts ? x->c->hosts[grp[0]] : NULL;
    if (host && whole_host && ng > 1)
        snprintf(f->subject, sizeof f->subject, "%s (ranks %s)", host, rl);
    else if (host)
        snprintf(f->subject, sizeof f->subject, "rank%s %s (%s)", ng > 1 ? "s" : "", rl, host);
    else
        snprintf(f->subject, sizeof f->subject, "rank%s %s", ng > 1 ? "s" : "", rl);
    f->ratio = exp(fac);
    f->score = fac / sig;
    f->value = exp(val);
    f->typical = exp(sl->typ_ref);
    f->unit = "s";
    f->ref_length = x->c->lengths[L - 1];
    lens_format_duration(f->value, tv, sizeof tv);
    lens_format_duration(f->typical, tt, sizeof tt);
    snprintf(f->evidence, sizeof f->evidence,
             "%s: links %.2fx slower than the median rank's (median link %s against %s at %d B), "
             "robust z = %.1f; at least %.2fx at %d of %d lengths",
             f->subject, f->ratio, tv, tt, f->ref_length, f->score, x->o->slow_min, nks, L);
    return LENS_OK;
}

static int find_slow(struct ctx *x)
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
    robust(buf, (size_t)m, x->o->mad_floor, &med, &sig);
    for (int k = 0; k < L; k++) {
        int n = 0;
        for (int i = 0; i < P; i++)
            if (!isnan(sl.f[(size_t)i * L + k]))
                buf[n++] = sl.f[(size_t)i * L + k];
        medk[k] = lens_cube_median(buf, (size_t)n);
    }
    for (int i = 0; i < P; i++)
        flag[i] = !isnan(sl.fr[i]) && (sl.fr[i] - med) / sig >= x->o->z_min &&
                  sl.fr[i] - med >= log(x->o->slow_min);
    for (int i = 0; i < P && rc == LENS_OK; i++) {
        if (flag[i] != 1)
            continue;
        int ng = 0, nhost = 0;
        for (int j = i; j < P; j++) {
            int same = x->c->hosts ? !strcmp(x->c->hosts[i], x->c->hosts[j]) : j == i;
            if (same && flag[j] == 1) {
                grp[ng++] = j;
                flag[j] = 2; /* reported */
            }
        }
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

/* ---- classes of interchangeable ranks ------------------------------------------------------
 * Ranks i and m are interchangeable when their symmetrised distances to every third rank agree
 * within class_tol (log), allowing max(1, (P-2)/20) exceptions (a bad link, say). Greedy: a
 * rank joins the first class whose first member it matches. The classes make blocks of links
 * of one kind (same socket, other node, ...) without knowing the machine. */
static int rank_classes(struct ctx *x, int *cls, int *ncls)
{
    int P = x->P, L = x->L;
    double *D = lens_malloc((size_t)P * P * sizeof *D), *tmp = lens_malloc((size_t)L * sizeof *tmp);
    int *reps = lens_malloc((size_t)P * sizeof *reps);
    if (!D || !tmp || !reps) {
        lens_free(D);
        lens_free(tmp);
        lens_free(reps);
        return lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
    }
    for (int i = 0; i < P; i++) {
        D[(size_t)i * P + i] = NAN;
        for (int j = i + 1; j < P; j++) {
            int m = 0;
            for (int k = 0; k < L; k++) {
                double a = LENS_CUBE_AT(x->c, x->s, k, i, j), b = LENS_CUBE_AT(x->c, x->s, k, j, i);
                int va = isfinite(a) && a > 0, vb = isfinite(b) && b > 0;
                if (va || vb)
                    tmp[m++] = log(va && vb ? 0.5 * (a + b) : va ? a : b);
            }
            D[(size_t)i * P + j] = D[(size_t)j * P + i] = lens_cube_median(tmp, (size_t)m);
        }
    }
    int allowed = (P - 2) / 20 > 1 ? (P - 2) / 20 : 1, C = 0;
    for (int i = 0; i < P; i++) {
        cls[i] = -1;
        for (int c = 0; c < C && cls[i] < 0; c++) {
            const double *a = D + (size_t)i * P, *b = D + (size_t)reps[c] * P;
            int bad = 0;
            for (int k = 0; k < P && bad <= allowed; k++)
                if (k != i && k != reps[c] && fabs(a[k] - b[k]) > x->o->class_tol)
                    bad++; /* NaN compares false: a missing value is no evidence */
            if (bad <= allowed)
                cls[i] = c;
        }
        if (cls[i] < 0) {
            reps[C] = i;
            cls[i] = C++;
        }
    }
    *ncls = C;
    lens_free(D);
    lens_free(tmp);
    lens_free(reps);
    return LENS_OK;
}

/* ---- bad links and asymmetric pairs -------------------------------------------------------
 * A link's typical value at one length is the median of its block (links from one class of
 * ranks to another, >= 4 values), else its reverse link. Its residual is the median over
 * lengths of log(value / typical); z uses the median and MAD of all residuals. */

struct links {
    float *res;  /* P x P x L: log(value / typical) per length, NaN when unknown */
    double *rl;  /* P x P: median residual over lengths */
    double *aq;  /* P x P, i < j: median over lengths of log(t_ij / t_ji) */
    int *bsize;  /* C x C: links per block */
    int *cls;    /* P: class of each rank */
    int C;
};

static int link_residuals(struct ctx *x, struct links *lk)
{
    int P = x->P, L = x->L, C = lk->C;
    size_t nb = (size_t)C * C, nl = (size_t)P * (P - 1);
    int *off = lens_calloc(nb + 1, sizeof *off), *order = lens_malloc(nl * sizeof *order);
    double *typb = lens_malloc(nb * sizeof *typb), *buf = lens_malloc((nl > (size_t)L ? nl : (size_t)L) * sizeof *buf);
    int rc = LENS_OK;
    if (!off || !order || !typb || !buf) {
        rc = lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
        goto done;
    }
    /* counting sort of the links by block */
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            if (j != i)
                off[(size_t)lk->cls[i] * C + lk->cls[j] + 1]++;
    for (size_t b = 0; b < nb; b++) {
        lk->bsize[b] = off[b + 1];
        off[b + 1] += off[b];
    }
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            if (j != i)
                order[off[(size_t)lk->cls[i] * C + lk->cls[j]]++] = i * P + j;
    for (size_t b = nb; b > 0; b--) /* restore the starts */
        off[b] = off[b - 1];
    off[0] = 0;
    for (int k = 0; k < L; k++) {
        for (size_t b = 0; b < nb; b++) {
            int m = 0;
            for (int t = off[b]; t < off[b + 1]; t++) {
                double v = lt(x, k, order[t] / P, order[t] % P);
                if (!isnan(v))
                    buf[m++] = v;
            }
            typb[b] = m >= 4 ? lens_cube_median(buf, (size_t)m) : NAN;
        }
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                if (j == i)
                    continue;
                double tb = typb[(size_t)lk->cls[i] * C + lk->cls[j]];
                double ref = isnan(tb) ? lt(x, k, j, i) : tb;
                lk->res[((size_t)i * P + j) * L + k] = (float)(lt(x, k, i, j) - ref);
            }
    }
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            if (j == i)
                continue;
            int m = 0, n = 0;
            for (int k = 0; k < L; k++) {
                double r = lk->res[((size_t)i * P + j) * L + k];
                if (!isnan(r))
                    buf[m++] = r;
            }
            lk->rl[(size_t)i * P + j] = lens_cube_median(buf, (size_t)m);
            if (j < i)
                continue;
            for (int k = 0; k < L; k++) {
                double q = lt(x, k, i, j) - lt(x, k, j, i);
                if (!isnan(q))
                    buf[n++] = q;
            }
            lk->aq[(size_t)i * P + j] = lens_cube_median(buf, (size_t)n);
        }
done:
    lens_free(off);
    lens_free(order);
    lens_free(typb);
    lens_free(buf);
    return rc;
}

/* The length index whose residual is nearest the median residual (the one to quote). */
static int ref_index(const float *r, int L, double med)
{
    int best = 0;
    double bd = INFINITY;
    for (int k = 0; k < L; k++)
        if (!isnan(r[k]) && fabs(r[k] - med) < bd) {
            bd = fabs(r[k] - med);
            best = k;
        }
    return best;
}

static void link_names(const struct ctx *x, int i, int j, int *from, int *to)
{
    int rr = lens_anomaly_row_is_receiver(x->c->mode);
    *from = rr ? j : i;
    *to = rr ? i : j;
}

/* Element (i, j) [and (j, i) when both] as a bad link. */
static int bad_link(struct ctx *x, const struct links *lk, int i, int j, int both, double z, int *ks)
{
    int P = x->P, L = x->L, from, to, nks = 0;
    const float *r = lk->res + ((size_t)i * P + j) * L;
    double med = lk->rl[(size_t)i * P + j];
    if (both)
        med = 0.5 * (med + lk->rl[(size_t)j * P + i]);
    for (int k = 0; k < L; k++)
        if (!isnan(r[k]) && r[k] >= log(x->o->link_min))
            ks[nks++] = k;
    link_names(x, i, j, &from, &to);
    int rk[2] = {from, to};
    struct lens_anomaly *f;
    int rc = add(x, LENS_ANOMALY_BAD_LINK, rk, 2, ks, nks, &f);
    if (rc != LENS_OK)
        return rc;
    int kr = ref_index(r, L, lk->rl[(size_t)i * P + j]);
    f->value = LENS_CUBE_AT(x->c, x->s, kr, i, j);
    f->typical = f->value / exp(r[kr]);
    f->unit = "s";
    f->ref_length = x->c->lengths[kr];
    f->ratio = exp(med);
    f->score = z;
    snprintf(f->subject, sizeof f->subject, both ? "link %d<->%d" : "link %d->%d", from, to);
    char tv[32], tt[32];
    lens_format_duration(f->value, tv, sizeof tv);
    lens_format_duration(f->typical, tt, sizeof tt);
    int bs = lk->bsize[(size_t)lk->cls[i] * lk->C + lk->cls[j]];
    snprintf(f->evidence, sizeof f->evidence,
             "%s%s (row %d, column %d): %.2fx slower than the typical link of its class "
             "(%s against %s at %d B, %s), robust z = %.1f; at least %.2fx at %d of %d lengths",
             f->subject, both ? " in both directions" : "", i, j, f->ratio, tv, tt, f->ref_length,
             bs >= 4 ? "class median" : "reverse link", z, x->o->link_min, nks, L);
    return LENS_OK;
}

static int asym_pair(struct ctx *x, int i, int j, double q, double z, int *ks)
{
    int L = x->L, from, to, nks = 0;
    /* (i, j) becomes the slower element */
    if (q < 0) {
        int t = i;
        i = j;
        j = t;
        q = -q;
    }
    double best = INFINITY;
    int kr = 0;
    for (int k = 0; k < L; k++) {
        double qk = lt(x, k, i, j) - lt(x, k, j, i);
        if (isnan(qk))
            continue;
        if (qk >= log(x->o->asym_min))
            ks[nks++] = k;
        if (fabs(qk - q) < best) {
            best = fabs(qk - q);
            kr = k;
        }
    }
    link_names(x, i, j, &from, &to);
    int rk[2] = {from, to};
    struct lens_anomaly *f;
    int rc = add(x, LENS_ANOMALY_ASYMMETRIC_PAIR, rk, 2, ks, nks, &f);
    if (rc != LENS_OK)
        return rc;
    f->value = LENS_CUBE_AT(x->c, x->s, kr, i, j);
    f->typical = LENS_CUBE_AT(x->c, x->s, kr, j, i);
    f->unit = "s";
    f->ref_length = x->c->lengths[kr];
    f->ratio = exp(q);
    f->score = fabs(z);
    snprintf(f->subject, sizeof f->subject, "pair %d<->%d", from, to);
    char tv[32], tt[32];
    lens_format_duration(f->value, tv, sizeof tv);
    lens_format_duration(f->typical, tt, sizeof tt);
    snprintf(f->evidence, sizeof f->evidence,
             "%s: %d->%d takes %.2fx as long as %d->%d (%s against %s at %d B), robust z = %.1f; "
             "at least %.2fx at %d of %d lengths",
             f->subject, from, to, f->ratio, to, from, tv, tt, f->ref_length, f->score,
             x->o->asym_min, nks, L);
    return LENS_OK;
}

static int find_links(struct ctx *x)
{
    int P = x->P, L = x->L, rc;
    size_t nl = (size_t)P * P;
    struct links lk = {0};
    lk.cls = lens_malloc((size_t)P * sizeof(int));
    lk.res = lens_malloc(nl * L * sizeof(float));
    lk.rl = lens_malloc(nl * sizeof(double));
    lk.aq = lens_malloc(nl * sizeof(double));
    double *buf = lens_malloc(nl * sizeof(double));
    int *ks = lens_malloc((size_t)L * sizeof(int));
    if (!lk.cls || !lk.res || !lk.rl || !lk.aq || !buf || !ks) {
        rc = lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
        goto done;
    }
    if ((rc = rank_classes(x, lk.cls, &lk.C)) != LENS_OK)
        goto done;
    x->a->nclasses = lk.C;
    if (!(lk.bsize = lens_malloc((size_t)lk.C * lk.C * sizeof(int)))) {
        rc = lens_err_set(x->e, LENS_ENOMEM, "anomalies: out of memory");
        goto done;
    }
    if ((rc = link_residuals(x, &lk)) != LENS_OK)
        goto done;
    double mr, sr, mq, sq;
    size_t m = 0;
    for (size_t t = 0; t < nl; t++)
        if (t / P != t % P && !isnan(lk.rl[t]))
            buf[m++] = lk.rl[t];
    robust(buf, m, x->o->mad_floor, &mr, &sr);
    m = 0;
    for (int i = 0; i < P; i++)
        for (int j = i + 1; j < P; j++)
            if (!isnan(lk.aq[(size_t)i * P + j]))
                buf[m++] = lk.aq[(size_t)i * P + j];
    robust(buf, m, x->o->mad_floor, &mq, &sq);
    const struct lens_anomaly_opts *o = x->o;
    for (int i = 0; i < P && rc == LENS_OK; i++)
        for (int j = i + 1; j < P && rc == LENS_OK; j++) {
            double rij = lk.rl[(size_t)i * P + j], rji = lk.rl[(size_t)j * P + i];
            double zij = (rij - mr) / sr, zji = (rji - mr) / sr;
            int bij = zij >= o->z_min && rij >= log(o->link_min);
            int bji = zji >= o->z_min && rji >= log(o->link_min);
            double q = lk.aq[(size_t)i * P + j], zq = (q - mq) / sq;
            int asym = fabs(zq) >= o->z_min && fabs(q) >= log(o->asym_min);
            /* a faster-than-typical opposite direction means a routing asymmetry, not a fault */
            double zfast = q > 0 ? zji : zij;
            int bslow = q > 0 ? bij : bji;
            if (asym && (zfast <= -o->z_min || !bslow))
                rc = asym_pair(x, i, j, q, zq, ks);
            else if (bij && bji)
                rc = bad_link(x, &lk, i, j, 1, zij < zji ? zij : zji, ks);
            else if (bij)
                rc = bad_link(x, &lk, i, j, 0, zij, ks);
            else if (bji)
                rc = bad_link(x, &lk, j, i, 0, zji, ks);
        }
done:
    lens_free(lk.cls);
    lens_free(lk.res);
    lens_free(lk.rl);
    lens_free(lk.aq);
    lens_free(lk.bsize);
    lens_free(buf);
    lens_free(ks);
    return rc;
}

/* ---- structure changes -----------------------------------------------------------------
 * Between lengths k-1 and k every link changes by a factor, its step s = log(t_k / t_k-1).
 * A smooth curve changes like its neighbouring steps; a switch shows in one step only. The
 * excess of a link is its step minus the nearer of its two neighbouring steps (the only one
 * at either end), and the spread of the excesses, the 95th percentile of |excess - median|,
 * is compared with its median over all steps. */

/* Excess step of link (i, j) at k, NaN when unknown; *step gets the step itself. */
static double excess(const struct ctx *x, int k, int i, int j, double *step)
{
    double s = lt(x, k, i, j) - lt(x, k - 1, i, j);
    double a = k >= 2 ? lt(x, k - 1, i, j) - lt(x, k - 2, i, j) : NAN;
    double b = k + 1 < x->L ? lt(x, k + 1, i, j) - lt(x, k, i, j) : NAN;
    *step = s;
    if (isnan(a) || (!isnan(b) && fabs(b - s) < fabs(a - s)))
        a = b;
    return s - a; /* NaN when s or both neighbours are unknown */
}

static int find_changes(struct ctx *x)
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
        if (m < 8)
            continue;
        memcpy(d, s, m * sizeof *d);
        double med = lens_cube_median(d, m);
        double lo = lens_cube_select(d, m, (size_t)(0.05 * (m - 1) + 0.5));
        double hi = lens_cube_select(d, m, (size_t)(0.95 * (m - 1) + 0.5)), mid = 0.5 * (lo + hi);
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
    robust(s, m, x->o->mad_floor, &med, &sig);
    for (int k = 1; k < L && rc == LENS_OK; k++) {
        double z = (D[k * 5] - med) / sig;
        if (isnan(D[k * 5]) || z < x->o->z_min || D[k * 5] < x->o->change_min)
            continue;
        int ks[2] = {k - 1, k};
        struct lens_anomaly *f;
        if ((rc = add(x, LENS_ANOMALY_STRUCTURE_CHANGE, NULL, 0, ks, 2, &f)) != LENS_OK)
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

static int cmp_finding(const void *pa, const void *pb)
{
    const struct lens_anomaly *a = pa, *b = pb;
    if (a->score != b->score)
        return a->score < b->score ? 1 : -1;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    return strcmp(a->subject, b->subject);
}

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
    struct ctx x = {c, o, s, c->procs, c->nlen, a, 0, e};
    int rc = LENS_OK;
    if (c->procs >= 3) /* peers to compare with */
        rc = find_slow(&x);
    if (rc == LENS_OK && c->procs >= 3)
        rc = find_links(&x);
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
