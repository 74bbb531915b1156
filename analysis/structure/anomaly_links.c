/* Bad links and strongly asymmetric pairs of a latency cube: each link's residual against the
 * typical link between the same two classes of interchangeable ranks, in robust units. Part of
 * the anomaly detectors; the shared context and helpers are in anomaly_int.h. */
#include "anomaly_int.h"
#include "common/time.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- classes of interchangeable ranks ------------------------------------------------------
 * Ranks i and m are interchangeable when their symmetrised distances to every third rank agree
 * within class_tol (log), allowing max(1, (P-2)/20) exceptions (a bad link, say). Greedy: a
 * rank joins the first class whose first member it matches. The classes make blocks of links
 * of one kind (same socket, other node, ...) without knowing the machine. */
/* Cost: O(P^2 L log L) for D, then O(P^2 C) for the classes, C the number of classes (a few on
 * a regular machine, P at worst). Comparing with the class's first member only, not all of
 * them, keeps the greedy pass linear in C and makes the classes depend on rank order alone:
 * the same cube always gives the same classes. */
static int rank_classes(struct lens_anomaly_ctx *x, int *cls, int *ncls)
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
                /* the symmetrised delay, or the one direction measured; logs so that class_tol
                 * is relative */
                if (va || vb)
                    tmp[m++] = log(va && vb ? 0.5 * (a + b) : va ? a : b);
            }
            /* median over lengths: a class is about which level of the machine joins two ranks,
             * which every length shows, so a few odd lengths must not split a class */
            D[(size_t)i * P + j] = D[(size_t)j * P + i] = lens_cube_median(tmp, (size_t)m);
        }
    }
    /* 5 % of the third ranks may disagree (at least one): a bad link of i must not throw i out of
     * its class, or the link would be compared with nothing and never found */
    int allowed = (P - 2) / 20 > 1 ? (P - 2) / 20 : 1, C = 0;
    for (int i = 0; i < P; i++) {
        cls[i] = -1;
        for (int c = 0; c < C && cls[i] < 0; c++) {
            const double *a = D + (size_t)i * P, *b = D + (size_t)reps[c] * P;
            int bad = 0;
            /* the pair (i, reps[c]) itself is skipped: their distance to each other is not a third
             * rank */
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

/* Residuals are float: P^2 L of them is the largest array of the detectors, and a residual
 * needs far fewer than float's 7 digits against a 1 % MAD floor. */
struct links {
    float *res;  /* P x P x L: log(value / typical) per length, NaN when unknown */
    double *rl;  /* P x P: median residual over lengths */
    double *aq;  /* P x P, i < j: median over lengths of log(t_ij / t_ji) */
    int *bsize;  /* C x C: links per block */
    int *cls;    /* P: class of each rank */
    int C;
};

/* Time O(L P^2) plus the medians; the links are sorted by block once (counting sort, O(P^2))
 * so that each length's block medians read contiguous index lists instead of scanning all
 * P^2 links per block. */
static int link_residuals(struct lens_anomaly_ctx *x, struct links *lk)
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
    /* off[b+1] holds block b's count; the prefix sum turns counts into starts */
    for (size_t b = 0; b < nb; b++) {
        lk->bsize[b] = off[b + 1];
        off[b + 1] += off[b];
    }
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            if (j != i)
                order[off[(size_t)lk->cls[i] * C + lk->cls[j]]++] = i * P + j;
    /* the placement loop advanced each start to the next block's start: shift back by one */
    for (size_t b = nb; b > 0; b--) /* restore the starts */
        off[b] = off[b - 1];
    off[0] = 0;
    for (int k = 0; k < L; k++) {
        for (size_t b = 0; b < nb; b++) {
            int m = 0;
            for (int t = off[b]; t < off[b + 1]; t++) {
                double v = lens_anomaly_lt(x, k, order[t] / P, order[t] % P);
                if (!isnan(v))
                    buf[m++] = v;
            }
            /* Fewer than 4 values have no trustworthy median (one bad link of two would be
             * "typical"): the link is then compared with its own reverse direction instead. */
            typb[b] = m >= 4 ? lens_cube_median(buf, (size_t)m) : NAN;
        }
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                if (j == i)
                    continue;
                double tb = typb[(size_t)lk->cls[i] * C + lk->cls[j]];
                double ref = isnan(tb) ? lens_anomaly_lt(x, k, j, i) : tb;
                /* NaN when the link or its reference is missing, skipped by the medians below */
                lk->res[((size_t)i * P + j) * L + k] = (float)(lens_anomaly_lt(x, k, i, j) - ref);
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
            /* the asymmetry log(t_ij / t_ji) is antisymmetric: stored once, for i < j */
            if (j < i)
                continue;
            for (int k = 0; k < L; k++) {
                double q = lens_anomaly_lt(x, k, i, j) - lens_anomaly_lt(x, k, j, i);
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

/* The length index whose residual is nearest the median residual (the one to quote).
 * Quoting the length nearest the median makes the sentence's numbers (value against typical)
 * agree with the factor it states, rather than showing the one extreme length. */
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

/* Names follow the message's direction, not the matrix's: a user reading "link 3->17" looks
 * for the sender 3, whichever index the mode stores it in. */
static void link_names(const struct lens_anomaly_ctx *x, int i, int j, int *from, int *to)
{
    int rr = lens_anomaly_row_is_receiver(x->c->mode);
    *from = rr ? j : i;
    *to = rr ? i : j;
}

/* Element (i, j) [and (j, i) when both] as a bad link.
 * both: the two directions of a pair are bad together (a slow cable), reported as one finding
 * with their mean factor and, as its z, the smaller of the two z, so the claim holds for each
 * direction. */
static int bad_link(struct lens_anomaly_ctx *x, const struct links *lk, int i, int j, int both,
                    double z, int *ks)
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
    int rc = lens_anomaly_add(x, LENS_ANOMALY_BAD_LINK, rk, 2, ks, nks, &f);
    if (rc != LENS_OK)
        return rc;
    int kr = ref_index(r, L, lk->rl[(size_t)i * P + j]);
    f->value = LENS_CUBE_AT(x->c, x->s, kr, i, j);
    /* the reference the residual was measured against: the block median or the reverse link */
    f->typical = f->value / exp(r[kr]);
    f->unit = "s";
    f->ref_length = x->c->lengths[kr];
    f->ratio = exp(med);
    f->score = z;
    snprintf(f->subject, sizeof f->subject, both ? "link %d<->%d" : "link %d->%d", from, to);
    char tv[32], tt[32];
    lens_time_format_duration(f->value, tv, sizeof tv);
    lens_time_format_duration(f->typical, tt, sizeof tt);
    int bs = lk->bsize[(size_t)lk->cls[i] * lk->C + lk->cls[j]];
    snprintf(f->evidence, sizeof f->evidence,
             "%s%s (row %d, column %d): %.2fx slower than the typical link of its class "
             "(%s against %s at %d B, %s), robust z = %.1f; at least %.2fx at %d of %d lengths",
             f->subject, both ? " in both directions" : "", i, j, f->ratio, tv, tt, f->ref_length,
             bs >= 4 ? "class median" : "reverse link", z, x->o->link_min, nks, L);
    return LENS_OK;
}

/* q is the median over lengths of log(t_ij / t_ji); its sign says which way is slower. The
 * score is |z| since a pair is anomalous either way round. */
static int asym_pair(struct lens_anomaly_ctx *x, int i, int j, double q, double z, int *ks)
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
        double qk = lens_anomaly_lt(x, k, i, j) - lens_anomaly_lt(x, k, j, i);
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
    int rc = lens_anomaly_add(x, LENS_ANOMALY_ASYMMETRIC_PAIR, rk, 2, ks, nks, &f);
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
    lens_time_format_duration(f->value, tv, sizeof tv);
    lens_time_format_duration(f->typical, tt, sizeof tt);
    snprintf(f->evidence, sizeof f->evidence,
             "%s: %d->%d takes %.2fx as long as %d->%d (%s against %s at %d B), robust z = %.1f; "
             "at least %.2fx at %d of %d lengths",
             f->subject, from, to, f->ratio, to, from, tv, tt, f->ref_length, f->score,
             x->o->asym_min, nks, L);
    return LENS_OK;
}

/* Memory: 4 P^2 L bytes of residuals plus a few P^2 arrays. Each unordered pair gives at most
 * one finding (asymmetric pair, bad pair, or one bad link), so one fault is not reported twice
 * under two names. */
int lens_anomaly_find_links(struct lens_anomaly_ctx *x)
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
    /* one yardstick for all links: a bad link is an outlier among every residual of the cube */
    lens_anomaly_robust(buf, m, x->o->mad_floor, &mr, &sr);
    m = 0;
    for (int i = 0; i < P; i++)
        for (int j = i + 1; j < P; j++)
            if (!isnan(lk.aq[(size_t)i * P + j]))
                buf[m++] = lk.aq[(size_t)i * P + j];
    lens_anomaly_robust(buf, m, x->o->mad_floor, &mq, &sq);
    const struct lens_anomaly_opts *o = x->o;
    for (int i = 0; i < P && rc == LENS_OK; i++)
        for (int j = i + 1; j < P && rc == LENS_OK; j++) {
            double rij = lk.rl[(size_t)i * P + j], rji = lk.rl[(size_t)j * P + i];
            double zij = (rij - mr) / sr, zji = (rji - mr) / sr;
            int bij = zij >= o->z_min && rij >= log(o->link_min);
            int bji = zji >= o->z_min && rji >= log(o->link_min);
            double q = lk.aq[(size_t)i * P + j], zq = (q - mq) / sq;
            /* asymmetric when the ratio is both unusual (z) and large (asym_min), in either
             * direction */
            int asym = fabs(zq) >= o->z_min && fabs(q) >= log(o->asym_min);
            /* a faster-than-typical opposite direction means a routing asymmetry, not a fault */
            double zfast = q > 0 ? zji : zij;
            int bslow = q > 0 ? bij : bji;
            /* Asymmetry wins when the fast side is itself abnormally fast or the slow side alone is
             * not a bad link; otherwise one slow direction is reported as the bad link it is
             * (docs/methods.md §9). */
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
