/* mpilens compare on two point-to-point sweeps (mpilens-bench -t p2p): per pair and message
 * size the same Welch test and Benjamini-Hochberg as for cubes, with the deviation bounded by
 * the range, since a sweep records the mean, min, median and max but no deviation. */
#include "compare.h"

#include "analysis/cube/cube.h"

#include <math.h>
#include <string.h>

/* Floating-point slack on min_change, as for cubes (compare.c). */
#define CHANGE_EPS 1e-9

/* BASE's pair for each NEW pair: by (host_a, host_b) when every pair has hosts and each
 * NEW pair has exactly one such pair in BASE, else by position. */
static int match_pairs(const struct lens_p2pfile *b, const struct lens_p2pfile *n, int *map)
{
    int by_host = 1;
    for (int q = 0; q < n->npairs && by_host; q++) {
        const struct lens_p2p_pair *x = &n->pair[q];
        int found = -1, count = 0;
        /* pairs x pairs name comparisons: a sweep has far fewer pairs than a cube has links */
        for (int p = 0; p < b->npairs; p++)
            if (x->host_a[0] && x->host_b[0] && strcmp(b->pair[p].host_a, x->host_a) == 0 &&
                strcmp(b->pair[p].host_b, x->host_b) == 0)
                found = p, count++;
        map[q] = found;
        by_host = count == 1;
    }
    /* one NEW pair without hosts, or absent or ambiguous in BASE, matches all by position:
     * a mix of both could pair one BASE pair twice */
    if (!by_host)
        for (int q = 0; q < n->npairs; q++)
            map[q] = q;
    return by_host;
}

/* One (pair, size) test: NEW pair q, its point x, BASE's point y. */
struct stest {
    int q, x;        /* NEW pair, index of its point */
    double ratio, p; /* NEW / BASE mean latency, Welch's two-sided p */
};

int lens_compare_sweeps(const char *base, const char *newer, const struct lens_compare_opts *o,
                        struct lens_compare **out, struct lens_err *e)
{
    *out = NULL;
    /* the option checks of lens_compare_cubes: BH needs alpha in (0, 1) */
    if (!(o->min_change >= 0 && o->min_change < 1e6) || !(o->alpha > 0 && o->alpha < 1))
        return lens_err_set(e, LENS_EINVAL, "compare: min_change must be >= 0 and alpha in (0, 1)");
    struct lens_p2pfile *fb = NULL, *fn = NULL;
    struct lens_compare *r = NULL;
    struct stest *t = NULL;
    double *p = NULL;
    int *map = NULL, rc;
    if ((rc = lens_p2pfile_read(base, &fb, e)) != LENS_OK || (rc = lens_p2pfile_read(newer, &fn, e)) != LENS_OK)
        goto out;
    /* by position needs the same number of pairs; by host a subset would do, but a pair
     * measured in one run only has nothing to be compared with */
    if (fb->npairs != fn->npairs) {
        rc = lens_err_set(e, LENS_EDATA, "%s has %d pairs and %s %d: compare needs the same pairs",
                          fb->path, fb->npairs, fn->path, fn->npairs);
        goto out;
    }
    /* at most one test per NEW point: arrays sized by NEW's points (+1: never a 0-size malloc) */
    size_t cap = 0;
    for (int q = 0; q < fn->npairs; q++)
        cap += (size_t)fn->pair[q].nsize;
    r = lens_calloc(1, sizeof *r);
    map = lens_malloc(((size_t)fn->npairs + 1) * sizeof *map);
    t = lens_malloc((cap + 1) * sizeof *t);
    p = lens_malloc((cap + 1) * sizeof *p);
    /* the findings' hosts point into hosttab: host_a, host_b of each NEW pair */
    if (r)
        r->hosttab = lens_calloc(2 * (size_t)fn->npairs + 1, sizeof *r->hosttab);
    /* the curves of the PDF: 4 doubles per tested point */
    if (r)
        r->curve = lens_malloc((cap + 1) * 4 * sizeof *r->curve);
    if (!r || !map || !t || !p || !r->hosttab || !r->curve) {
        rc = lens_err_set(e, LENS_ENOMEM, "compare: out of memory");
        goto out;
    }
    r->procs = 2 * fn->npairs; /* lens_compare_free frees procs host strings */
    r->sweeps = 1;
    r->test = LENS_COMPARE_WELCH_RANGE;
    for (int q = 0; q < fn->npairs; q++)
        if (!(r->hosttab[2 * q] = lens_strdup(fn->pair[q].host_a)) ||
            !(r->hosttab[2 * q + 1] = lens_strdup(fn->pair[q].host_b))) {
            rc = lens_err_set(e, LENS_ENOMEM, "compare: out of memory");
            goto out;
        }
    r->matched_by_host = match_pairs(fb, fn, map);
    size_t m = 0;
    for (int q = 0; q < fn->npairs; q++) {
        const struct lens_p2p_pair *pn = &fn->pair[q], *pb = &fb->pair[map[q]];
        for (int x = 0; x < pn->nsize; x++)
            /* sizes matched by value: a rerun may sweep fewer or other sizes */
            for (int y = 0; y < pb->nsize; y++) {
                if (pb->pt[y].size_bytes != pn->pt[x].size_bytes)
                    continue;
                const struct lens_p2p_point *a = &pb->pt[y], *c = &pn->pt[x];
                /* Popoviciu: a variable within [min, max] has a deviation of at most
                 * (max - min) / 2, so the test with that bound is conservative */
                double pv = lens_compare_welch(a->latency_s, (a->latency_max_s - a->latency_min_s) / 2,
                                               a->lat_iters, c->latency_s,
                                               (c->latency_max_s - c->latency_min_s) / 2, c->lat_iters,
                                               NULL, NULL);
                if (isnan(pv))
                    continue;
                t[m] = (struct stest){q, x, c->latency_s / a->latency_s, pv};
                double *cv = r->curve + 4 * m;
                cv[0] = q;
                cv[1] = (double)c->size_bytes;
                cv[2] = a->latency_s;
                cv[3] = c->latency_s;
                r->ncurve = (int)m + 1;
                p[m++] = pv;
                /* one test per NEW point: the first BASE point of that size that is testable */
                break;
            }
    }
    r->tests = (long long)m;
    /* as the report shows it: the first pair's sizes (pairs may sweep different ones) */
    r->nlen = fn->npairs ? fn->pair[0].nsize : 0;
    /* every p is kept (a sweep is small), so BH is exact with m = n; it reorders p[], and
     * t[] keeps each test's own p */
    double thr = lens_compare_bh(p, m, (long long)m, o->alpha);
    r->threshold = thr < 0 ? 0 : thr;
    /* one link finding per pair and direction, over its sizes (tests are in pair order) */
    int cap_f = 0;
    /* significant counts every test under the threshold, whatever its change, as for cubes */
    for (size_t i = 0; i < m; i++)
        r->significant += thr >= 0 && t[i].p <= thr;
    /* no machine, node or structure step: a sweep's pairs share no ranks to group */
    for (int q = 0; q < fn->npairs && rc == LENS_OK; q++)
        for (int dir = 1; dir >= -1 && rc == LENS_OK; dir -= 2) {
            int nk = 0;
            for (size_t i = 0; i < m; i++)
                nk += t[i].q == q && thr >= 0 && t[i].p <= thr &&
                      dir * (t[i].ratio - 1) >= o->min_change - CHANGE_EPS;
            if (!nk)
                continue;
            if (r->nfind == cap_f) {
                cap_f = cap_f ? 2 * cap_f : 4;
                void *g = lens_realloc(r->find, (size_t)cap_f * sizeof *r->find);
                if (!g) {
                    rc = lens_err_set(e, LENS_ENOMEM, "compare: out of memory");
                    break;
                }
                r->find = g;
            }
            /* counted before its arrays exist: lens_compare_free releases a half-built finding */
            struct lens_compare_finding *f = &r->find[r->nfind++];
            memset(f, 0, sizeof *f);
            f->kind = LENS_COMPARE_LINK;
            f->direction = dir;
            f->nranks = 2;
            f->ranks = lens_malloc(2 * sizeof *f->ranks);
            f->base_ranks = lens_malloc(2 * sizeof *f->base_ranks);
            f->hosts = lens_malloc(2 * sizeof *f->hosts);
            f->lengths = lens_malloc((size_t)nk * sizeof *f->lengths);
            f->len_ratio = lens_malloc((size_t)nk * sizeof *f->len_ratio);
            f->len_p = lens_malloc((size_t)nk * sizeof *f->len_p);
            if (!f->ranks || !f->base_ranks || !f->hosts || !f->lengths || !f->len_ratio || !f->len_p) {
                rc = lens_err_set(e, LENS_ENOMEM, "compare: out of memory");
                break;
            }
            /* rank_a timed, rank_b answered: the pair as the sweep names it */
            f->ranks[0] = fn->pair[q].rank_a;
            f->ranks[1] = fn->pair[q].rank_b;
            f->base_ranks[0] = fb->pair[map[q]].rank_a;
            f->base_ranks[1] = fb->pair[map[q]].rank_b;
            /* distinct hosts only: a pair on one node names it once */
            for (int h = 0; h < 2; h++)
                if (r->hosttab[2 * q + h][0] && (h == 0 || strcmp(r->hosttab[2 * q], r->hosttab[2 * q + 1])))
                    f->hosts[f->nhosts++] = r->hosttab[2 * q + h];
            /* the smallest p over its sizes; 1 is above every significant one */
            f->p = 1;
            for (size_t i = 0; i < m; i++) {
                if (!(t[i].q == q && t[i].p <= thr && dir * (t[i].ratio - 1) >= o->min_change - CHANGE_EPS))
                    continue;
                long long sz = fn->pair[q].pt[t[i].x].size_bytes;
                /* a finding's lengths are int: a size beyond 2 GiB is clamped, never wrapped */
                f->lengths[f->nlengths] = sz > 2147483647LL ? 2147483647 : (int)sz;
                f->len_ratio[f->nlengths] = t[i].ratio;
                f->len_p[f->nlengths++] = t[i].p;
                f->p = t[i].p < f->p ? t[i].p : f->p;
                f->nlinks++;
            }
            /* the median over the sizes: len_ratio copied into p's room, no longer needed */
            memcpy(p, f->len_ratio, (size_t)nk * sizeof *p);
            f->ratio = lens_cube_median(p, (size_t)nk);
        }
    /* the verdict as for cubes (verdict_of in compare.c) */
    if (rc == LENS_OK) {
        int up = 0, down = 0;
        for (int i = 0; i < r->nfind; i++)
            r->find[i].direction > 0 ? up++ : down++;
        r->verdict = up && down ? LENS_COMPARE_MIXED : up ? LENS_COMPARE_REGRESSED
                                                          : down ? LENS_COMPARE_IMPROVED : LENS_COMPARE_SAME;
    }
out:
    lens_free(map);
    lens_free(t);
    lens_free(p);
    lens_p2pfile_free(fb);
    lens_p2pfile_free(fn);
    if (rc != LENS_OK) {
        lens_compare_free(r);
        return rc;
    }
    *out = r;
    return LENS_OK;
}
