/* Original against compressed slices of a cube: picking the lengths, decoding them from the
 * packed cube, reading the originals (from memory or a stream) and measuring the relative
 * errors. The data of the slices figure; see cube_slices.h for the contracts. */
#include "cube.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lens_cube_slices_new(struct lens_cube_slices **out, int procs, int n, struct lens_err *e)
{
    *out = NULL;
    if (procs < 1 || procs > (1 << 16) || n < 1 || n > LENS_CUBE_SLICES_MAX)
        return lens_err_set(e, LENS_EINVAL, "slices: need 1..%d slices of 1..%d processes (got %d of %d)",
                            LENS_CUBE_SLICES_MAX, 1 << 16, n, procs);
    struct lens_cube_slices *s = lens_calloc(1, sizeof *s);
    size_t m = (size_t)n * procs * procs;
    if (s) {
        s->procs = procs;
        s->n = n;
        s->stat = LENS_STAT_MEDIAN;
        s->bound = NAN;
        s->lengths = lens_calloc((size_t)n, sizeof *s->lengths);
        s->orig = lens_calloc(m, sizeof *s->orig);
        s->dec = lens_calloc(m, sizeof *s->dec);
        s->err_max = lens_calloc((size_t)n, sizeof *s->err_max);
        s->err_rms = lens_calloc((size_t)n, sizeof *s->err_rms);
        s->err_n = lens_calloc((size_t)n, sizeof *s->err_n);
    }
    if (!s || !s->lengths || !s->orig || !s->dec || !s->err_max || !s->err_rms || !s->err_n) {
        lens_cube_slices_free(s);
        return lens_err_set(e, LENS_ENOMEM, "slices: out of memory for %d slices of %d x %d", n, procs, procs);
    }
    *out = s;
    return LENS_OK;
}

void lens_cube_slices_free(struct lens_cube_slices *s)
{
    if (!s)
        return;
    lens_free(s->lengths);
    lens_free(s->orig);
    lens_free(s->dec);
    lens_free(s->err_max);
    lens_free(s->err_rms);
    lens_free(s->err_n);
    lens_free(s);
}

void lens_cube_slices_measure(struct lens_cube_slices *s)
{
    size_t P = (size_t)s->procs;
    for (int t = 0; t < s->n; t++) {
        const double *o = s->orig + t * P * P, *d = s->dec + t * P * P;
        double mx = 0, sum2 = 0;
        long cnt = 0;
        for (size_t q = 0; q < P * P; q++) {
            double v = o[q];
            if (q / P == q % P || !isfinite(v))
                continue;
            double a = fabs(d[q] - v), r = v != 0 ? a / fabs(v) : (a == 0 ? 0 : INFINITY);
            mx = fmax(mx, r);
            sum2 += r * r;
            cnt++;
        }
        s->err_max[t] = mx;
        s->err_rms[t] = cnt ? sqrt(sum2 / cnt) : 0;
        s->err_n[t] = cnt;
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int lens_cube_slices_pick(const int *lengths, int nlen, const int *want, int nwant, int idx[LENS_CUBE_SLICES_MAX])
{
    int n = 0;
    if (nlen < 1)
        return 0;
    if (!want) {
        int def[3] = {0, nlen / 2, nlen - 1};
        for (int t = 0; t < 3; t++)
            idx[n++] = def[t];
    } else {
        for (int t = 0; t < nwant && n < LENS_CUBE_SLICES_MAX; t++) {
            int best = 0;
            for (int l = 1; l < nlen; l++)
                if (llabs((long long)lengths[l] - want[t]) < llabs((long long)lengths[best] - want[t]))
                    best = l;
            idx[n++] = best;
        }
    }
    qsort(idx, (size_t)n, sizeof *idx, cmp_int);
    int m = 0;
    for (int t = 0; t < n; t++)
        if (m == 0 || idx[t] != idx[m - 1])
            idx[m++] = idx[t];
    return m;
}

/* Where the original matrices come from: the cube in memory, or a stream from disk. */
struct source {
    const struct lens_cube *c;      /* with data, or */
    struct lens_cube_stream *in;    /* the stream (then c is its metadata) */
};

static int source_read(const struct source *src, int stat, int k, double *mat, struct lens_err *e)
{
    if (src->in)
        return lens_cube_stream_read(src->in, stat, k, mat, e);
    size_t P2 = (size_t)src->c->procs * src->c->procs;
    memcpy(mat, src->c->data[stat] + (size_t)k * P2, P2 * sizeof *mat);
    return LENS_OK;
}

/* Slices of statistic stat (present in src) and of its packed form p, at the picked lengths. */
static int collect(const struct source *src, int stat, const struct lens_packed *p, const int *want, int nwant,
                   struct lens_cube_slices **out, struct lens_err *e)
{
    const struct lens_cube *c = src->c;
    *out = NULL;
    if (!p)
        return lens_err_set(e, LENS_EINVAL, "slices: statistic %s is not packed", lens_cube_stat_name(stat));
    if (p->procs != c->procs || p->nlen != c->nlen)
        return lens_err_set(e, LENS_EINVAL, "slices: packed %s is %d processes x %d lengths, the cube %d x %d",
                            lens_cube_stat_name(stat), p->procs, p->nlen, c->procs, c->nlen);
    int idx[LENS_CUBE_SLICES_MAX];
    int n = lens_cube_slices_pick(c->lengths, c->nlen, want, nwant, idx);
    struct lens_cube_slices *s;
    int rc = lens_cube_slices_new(&s, c->procs, n, e);
    if (rc)
        return rc;
    s->stat = stat;
    s->bound = p->max_error;
    struct lens_packed_decoder *u = NULL;
    size_t P2 = (size_t)c->procs * c->procs;
    double *mat = lens_malloc(P2 * sizeof *mat);
    if (!mat)
        rc = lens_err_set(e, LENS_ENOMEM, "slices: out of memory");
    if (rc == LENS_OK)
        rc = lens_packed_decoder_new(&u, p, e);
    /* the decoder streams: walk the lengths up to the last one shown */
    for (int k = 0, t = 0; rc == LENS_OK && t < n && k <= idx[n - 1]; k++) {
        rc = lens_packed_decoder_next(u, mat, e);
        if (rc == LENS_OK && k == idx[t]) {
            s->lengths[t] = c->lengths[k];
            memcpy(s->dec + t * P2, mat, P2 * sizeof *mat);
            rc = source_read(src, stat, k, s->orig + t * P2, e);
            t++;
        }
    }
    lens_packed_decoder_free(u);
    lens_free(mat);
    if (rc) {
        lens_cube_slices_free(s);
        return rc;
    }
    lens_cube_slices_measure(s);
    *out = s;
    return LENS_OK;
}

int lens_cube_slices_from_packed(const struct lens_cube *c, int stat, const struct lens_packed *p, const int *want,
                            int nwant, struct lens_cube_slices **out, struct lens_err *e)
{
    *out = NULL;
    if (stat < 0 || stat >= LENS_STAT_COUNT || !c->data[stat])
        return lens_err_set(e, LENS_EINVAL, "slices: statistic %s is not in the cube",
                            stat >= 0 && stat < LENS_STAT_COUNT ? lens_cube_stat_name(stat) : "?");
    struct source src = {c, NULL};
    return collect(&src, stat, p, want, nwant, out, e);
}

int lens_cube_slices_from_stream(struct lens_cube_stream *in, int stat, const struct lens_packed *p, const int *want,
                            int nwant, struct lens_cube_slices **out, struct lens_err *e)
{
    *out = NULL;
    if (stat < 0 || stat >= LENS_STAT_COUNT || !(lens_cube_stream_stats(in) >> stat & 1))
        return lens_err_set(e, LENS_EINVAL, "slices: statistic %s is not in the cube",
                            stat >= 0 && stat < LENS_STAT_COUNT ? lens_cube_stat_name(stat) : "?");
    struct source src = {lens_cube_stream_meta(in), in};
    return collect(&src, stat, p, want, nwant, out, e);
}

int lens_cube_slices_from_stream_packed(struct lens_cube_stream *in,
                                        struct lens_packed *const p[/* LENS_STAT_COUNT */],
                                        const int *want, int nwant, struct lens_cube_slices **out,
                                        struct lens_err *e)
{
    *out = NULL;
    /* the median is the statistic people read first; any other present one will do */
    unsigned have = lens_cube_stream_stats(in);
    int stat = have >> LENS_STAT_MEDIAN & 1 && p[LENS_STAT_MEDIAN] ? LENS_STAT_MEDIAN : -1;
    for (int t = 0; t < LENS_STAT_COUNT && stat < 0; t++)
        if (have >> t & 1 && p[t])
            stat = t;
    if (stat < 0)
        return lens_err_set(e, LENS_EINVAL, "no statistic both in the cube and packed");
    return lens_cube_slices_from_stream(in, stat, p[stat], want, nwant, out, e);
}

/* A relative error as a percentage, three significant digits. */
static void format_pct(double r, char *buf, size_t n)
{
    if (!isfinite(r))
        snprintf(buf, n, "inf");
    else
        snprintf(buf, n, "%.3g%%", 100 * r);
}

void lens_cube_slices_summary(const struct lens_cube_slices *s, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "%s:", lens_cube_stat_name(s->stat));
    /* snprintf returns what it would have written: stop once the line is full */
    for (int t = 0; t < s->n && k < n; t++) {
        char a[32], b[32];
        format_pct(s->err_max[t], a, sizeof a);
        format_pct(s->err_rms[t], b, sizeof b);
        k += (size_t)snprintf(buf + k, n - k, "%s %d B max error %s RMS %s", t ? ";" : "", s->lengths[t], a, b);
    }
}
