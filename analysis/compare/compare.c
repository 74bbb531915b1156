/* mpilens compare: streams two cubes one length at a time, tests every pair (Welch), keeps
 * only a histogram of the p-values and the few tests whose change is large enough to be a
 * finding, then sets the Benjamini-Hochberg threshold and groups what is significant into
 * machine, structure, node and link findings (docs/compare.md has the method). */
#include "compare.h"

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* p-values <= alpha are counted in bins of 1/1000 decade down to 1e-330 (below the
 * smallest subnormal); bin 0 holds p == 0. The BH threshold is exact unless the BH line
 * crosses inside a bin, where it is decided conservatively (docs/compare.md). */
#define BINS_PER_DECADE 1000
#define LOG_SPAN 330
#define NBINS (LOG_SPAN * BINS_PER_DECADE + 2)

/* Floating-point slack on --min-change, so that a delay scaled by exactly 1.1 counts as a
 * 10 % change although x * 1.1 / x may round to 1.0999999999999999. */
#define CHANGE_EPS 1e-9

/* One test that may become a finding: significant at alpha on its own and changed by at
 * least min_change beyond the machine's shift. Indices are BASE's ranks. */
struct cand {
    int k, i, j;   /* length index (of the common lengths), receiver (row), sender (column) */
    double ratio;  /* NEW / BASE average */
    double p;      /* two-sided Welch p-value */
    int used;      /* taken by a node finding */
};

/* Everything one comparison holds between its passes. Memory is O(P^2) for the four
 * matrices (allocated by lens_compare_cubes) plus O(nhost x L), O(L) and O(NBINS), never
 * O(P^2 x L): p-values are binned, and only candidates (p <= alpha, changed) are stored. */
struct state {
    const struct lens_compare_opts *o; /* the caller's options, borrowed */
    struct lens_cube_stream *sb, *sn; /* BASE, NEW: owned, closed by state_free */
    const struct lens_cube *mb, *mn; /* their metadata, owned by the streams */
    int P, L;               /* processes, common lengths */
    int *kb, *kn;           /* common length k: index in BASE and in NEW */
    int *lengths;           /* L bytes */
    int *map;               /* BASE rank -> NEW rank */
    int nhost, *host;       /* host id of each BASE rank, -1 without hosts */
    long long *touch;       /* nhost x L: tests touching the host at length k */
    long long *hcount;      /* NBINS */
    double *hmax;           /* NBINS */
    struct cand *cand;
    size_t ncand, capcand;
    double *mach_ratio, *mach_p; /* L: median ratio of the length, sign-test p */
    long long tests;        /* BH's m: every testable pair and length */
    /* the raw-repeats path (both runs have _all.nc): the files, read one row at a time, and
     * the t and df of the row being tested (P each, both paths) */
    struct lens_cube_raw *rb, *rn;
    double *trow, *dfrow;
    /* what the PDF draws (NULL without lens_compare_cubes_map): the result's map and
     * histograms, and per pair the lengths summed into the map (P x P) */
    struct lens_compare *fig;
    int *mapcnt;
    /* summary path, P x P bits by BASE index: the pair changed by min_change beyond the
     * machine's shift, decided while the averages are in memory (before the deviations
     * take their place) */
    unsigned char *changed;
};

const char *lens_compare_kind_name(int kind)
{
    static const char *const n[] = {"link", "node", "machine", "structure"};
    return kind >= 0 && kind < 4 ? n[kind] : "unknown";
}

const char *lens_compare_verdict_name(int verdict)
{
    static const char *const n[] = {"same", "regressed", "improved", "mixed"};
    return verdict >= 0 && verdict < 4 ? n[verdict] : "unknown";
}

const char *lens_compare_test_name(int test)
{
    static const char *const n[] = {"welch-summary", "welch-raw", "welch-range"};
    return test >= 0 && test < 3 ? n[test] : "unknown";
}

const char *lens_compare_test_describe(int test)
{
    static const char *const n[] = {
        "Welch's t-test from each run's average, deviation and number of repeats",
        "Welch's t-test on the raw repeats of each pair (_all.nc: mean, sample deviation and "
        "count of the repeats present)",
        "Welch's t-test from each sweep's mean, with the deviation bounded by (max - min) / 2"};
    return test >= 0 && test < 3 ? n[test] : "unknown";
}

void lens_compare_opts_default(struct lens_compare_opts *o)
{
    o->min_change = 0.10;
    o->alpha = 0.01;
}

static void finding_free(struct lens_compare_finding *f)
{
    lens_free(f->ranks);
    lens_free(f->base_ranks);
    lens_free(f->hosts); /* the strings belong to the hosts table of the result */
    lens_free(f->lengths);
    lens_free(f->len_ratio);
    lens_free(f->len_p);
}

void lens_compare_free(struct lens_compare *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->nfind; i++)
        finding_free(&c->find[i]);
    lens_free(c->find);
    for (int i = 0; i < c->nwarn; i++)
        lens_free(c->warnings[i]);
    lens_free(c->warnings);
    lens_free(c->ratio_map);
    lens_free(c->hist_lo); /* also holds hist_hi */
    lens_free(c->hist);
    lens_free(c->map_lengths);
    lens_free(c->curve);
    /* the host strings the findings point to, one copy per NEW rank */
    if (c->hosttab) {
        for (int i = 0; i < c->procs; i++)
            lens_free(c->hosttab[i]);
        lens_free(c->hosttab);
    }
    lens_free(c);
}

/* A rank keyed by its host name (borrowed from the cube), to sort ranks into host order. */
struct hostkey {
    const char *h;
    int r;
};

static int cmp_hostkey(const void *a, const void *b)
{
    const struct hostkey *x = a, *y = b;
    int c = strcmp(x->h, y->h);
    /* ties broken by rank: qsort is not stable, and local ranks must follow rank order */
    return c ? c : (x->r > y->r) - (x->r < y->r);
}

/* Pairs BASE's and NEW's ranks: by (host, local rank) when both hosts files name the same
 * hosts the same number of times (the same nodes, ranks placed in another order), by rank
 * number otherwise. Also numbers BASE's hosts (s->host) for the node findings. */
static int match_ranks(struct state *s, struct lens_compare *r, struct lens_err *e)
{
    int P = s->P;
    for (int i = 0; i < P; i++)
        s->map[i] = i;
    /* default: by rank number and without hosts; replaced below only when the hosts allow it */
    s->nhost = 0;
    for (int i = 0; i < P; i++)
        s->host[i] = -1;
    /* without BASE's hosts there are no nodes to match or to report */
    if (!s->mb->hosts)
        return LENS_OK;
    /* one block for both runs' keys (2 P entries), freed before returning */
    struct hostkey *b = lens_malloc(2 * (size_t)P * sizeof *b), *n = b + P;
    if (!b)
        return lens_err_set(e, LENS_ENOMEM, "out of memory matching ranks");
    for (int i = 0; i < P; i++) {
        b[i] = (struct hostkey){s->mb->hosts[i], i};
        if (s->mn->hosts)
            n[i] = (struct hostkey){s->mn->hosts[i], i};
    }
    /* sorted by (host, rank), the x-th entry of a host is its local rank x - first */
    qsort(b, P, sizeof *b, cmp_hostkey);
    int same = s->mn->hosts != NULL;
    if (same) {
        qsort(n, P, sizeof *n, cmp_hostkey);
        /* the same sorted host lists = the same hosts, each with as many ranks */
        for (int i = 0; i < P && same; i++)
            same = strcmp(b[i].h, n[i].h) == 0;
    }
    /* walking BASE's sorted keys: a new name starts a new host id, and BASE's i-th key is
     * paired with NEW's i-th key, which is then the same host and the same local rank */
    for (int i = 0; i < P; i++) {
        if (i == 0 || strcmp(b[i].h, b[i - 1].h) != 0)
            s->nhost++;
        s->host[b[i].r] = s->nhost - 1;
        if (same)
            s->map[b[i].r] = n[i].r;
    }
    r->matched_by_host = same;
    lens_free(b);
    return LENS_OK;
}

/* The lengths both cubes measured, by value in bytes: a rerun with a shorter sweep still
 * compares on what they share. */
static int common_lengths(struct state *s, struct lens_err *e)
{
    const struct lens_cube *b = s->mb, *n = s->mn;
    s->kb = lens_malloc(3 * (size_t)b->nlen * sizeof(int));
    if (!s->kb)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    /* kb, kn, lengths: one block of 3 x nlen ints (at most BASE's lengths are common) */
    s->kn = s->kb + b->nlen;
    s->lengths = s->kn + b->nlen;
    s->L = 0;
    /* L x L' comparisons: both are a few dozen lengths at most */
    for (int k = 0; k < b->nlen; k++)
        for (int q = 0; q < n->nlen; q++)
            if (n->lengths[q] == b->lengths[k]) {
                s->kb[s->L] = k;
                s->kn[s->L] = q;
                s->lengths[s->L++] = b->lengths[k];
                break;
            }
    if (s->L == 0)
        return lens_err_set(e, LENS_EDATA, "%s and %s have no message length in common",
                            b->source ? b->source : "BASE", n->source ? n->source : "NEW");
    return LENS_OK;
}

/* The bin of p in (0, alpha]; below 1e-330 (only 0 after underflow) everything is bin 0/1. */
static int hist_bin(double p)
{
    if (p <= 0)
        return 0;
    /* every positive double (subnormals from 4.9e-324 on) is above 1e-330, so x counts
     * bins up from that edge and the clamp only guards rounding; p <= 1 gives <= NBINS - 1 */
    double x = floor((log10(p) + LOG_SPAN) * BINS_PER_DECADE);
    int b = 1 + (x < 0 ? 0 : (int)x);
    return b < NBINS ? b : NBINS - 1;
}

/* Stores a candidate. The array grows by doubling (lens_reserve) as its size is known only
 * after the pass; it is bounded by the tests with p <= alpha and a large enough change. */
static int add_cand(struct state *s, int k, int i, int j, double ratio, double p, struct lens_err *e)
{
    if (lens_reserve((void **)&s->cand, &s->capcand, s->ncand + 1, sizeof *s->cand) != LENS_OK)
        return lens_err_set(e, LENS_ENOMEM, "out of memory storing changed links");
    s->cand[s->ncand++] = (struct cand){k, i, j, ratio, p, 0};
    return LENS_OK;
}

/* Welch's t and df as lens_compare_welch_t computes them, from the difference of the means
 * d = NEW - BASE (NaN when either mean is not finite) instead of the means: the same
 * operations in the same order, so the same bits, with one matrix fewer in memory. */
static double welch_t_diff(double d, double s1, double n1, double s2, double n2, double *df)
{
    *df = NAN;
    if (!isfinite(d) || !isfinite(s1) || !isfinite(s2) || s1 < 0 || s2 < 0)
        return NAN;
    double v1 = s1 * s1 / n1, v2 = s2 * s2 / n2, v = v1 + v2;
    if (v == 0) {
        *df = n1 + n2 - 2;
        return d == 0 ? 0 : (d > 0 ? INFINITY : -INFINITY);
    }
    *df = v * v / (v1 * v1 / (n1 - 1) + v2 * v2 / (n2 - 1));
    return d / sqrt(v);
}

/* Both averages of length k: BASE's into mats[0], NEW's into mats[1] (NEW's numbering). */
static int load_avg(struct state *s, int k, double *const *mats, struct lens_err *e)
{
    int rc = lens_cube_stream_read(s->sb, LENS_STAT_AVERAGE, s->kb[k], mats[0], e);
    return rc == LENS_OK ? lens_cube_stream_read(s->sn, LENS_STAT_AVERAGE, s->kn[k], mats[1], e) : rc;
}

/* The summary path's three matrices from the averages in mats[0], mats[1]: the differences
 * NEW - BASE over NEW's average (mats[1], NEW's numbering), then the deviations into
 * mats[0] (BASE) and mats[2] (NEW). With mk (not NaN) also the changed bits of the pairs,
 * by --min-change beyond mk. Three matrices, where averages and deviations of both runs
 * side by side would be four: the bound of docs/compare.md. */
static int load_summary(struct state *s, int k, double *const *mats, double mk, struct lens_err *e)
{
    int P = s->P;
    const int *map = s->map;
    const double *ab = mats[0];
    double *an = mats[1];
    double mc = s->o->min_change;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            size_t bi = (size_t)i * P + j, ni = (size_t)map[i] * P + map[j];
            double x = ab[bi], y = an[ni];
            if (!isnan(mk)) {
                /* the candidate test of the two-matrix code: a ratio, changed beyond mk */
                double r = y / x;
                int ch = i != j && x > 0 && isfinite(r) && fabs(r / mk - 1) >= mc - CHANGE_EPS;
                if (ch)
                    s->changed[bi >> 3] |= (unsigned char)(1u << (bi & 7));
                else
                    s->changed[bi >> 3] &= (unsigned char)~(1u << (bi & 7));
            }
            /* NaN for a non-finite mean: lens_compare_welch_t refuses those */
            an[ni] = isfinite(x) && isfinite(y) ? y - x : NAN;
        }
    int rc = lens_cube_stream_read(s->sb, LENS_STAT_DEVIATION, s->kb[k], mats[0], e);
    return rc == LENS_OK ? lens_cube_stream_read(s->sn, LENS_STAT_DEVIATION, s->kn[k], mats[2], e) : rc;
}

/* t and df of every pair (i, j) of BASE row i at common length k, into s->trow, s->dfrow
 * (NaN t: untestable). The summary path reads what load_summary left in mats (devB, the
 * difference of the averages, devN); the raw path reads row i of BASE's and row map[i] of NEW's repeats and
 * tests on their mean, sample deviation and count, so both paths feed one loop. */
static int row_tests(struct state *s, int k, int i, double *const *mats, struct lens_err *e)
{
    int P = s->P;
    const int *map = s->map;
    if (!s->rb) {
        double nb = s->mb->repeats, nn = s->mn->repeats;
        for (int j = 0; j < P; j++) {
            size_t bi = (size_t)i * P + j, ni = (size_t)map[i] * P + map[j];
            s->trow[j] = i == j ? NAN : welch_t_diff(mats[1][ni], mats[0][bi], nb, mats[2][ni], nn, &s->dfrow[j]);
        }
        return LENS_OK;
    }
    const double *vb, *vn;
    int rc, zb = lens_cube_raw_repeats(s->rb), zn = lens_cube_raw_repeats(s->rn);
    if ((rc = lens_cube_raw_row(s->rb, s->kb[k], i, &vb, e)) != LENS_OK ||
        (rc = lens_cube_raw_row(s->rn, s->kn[k], map[i], &vn, e)) != LENS_OK)
        return rc;
    for (int j = 0; j < P; j++) {
        double m1, s1, m2, s2;
        int n1, n2;
        s->trow[j] = NAN;
        if (i == j)
            continue;
        /* the pair's own count: a missing repeat lowers n instead of biasing the mean */
        lens_compare_sample(vb + (size_t)j * zb, zb, &m1, &s1, &n1);
        lens_compare_sample(vn + (size_t)map[j] * zn, zn, &m2, &s2, &n2);
        s->trow[j] = lens_compare_welch_t(m1, s1, n1, m2, s2, n2, &s->dfrow[j]);
    }
    return LENS_OK;
}

/* What the PDF draws from length k, while the averages are in memory: the log ratios summed
 * into the map (geometric mean later) and both runs' delays binned between their joint
 * extremes. ab, an as in one_length. */
static void figure_data(struct state *s, int k, const double *ab, const double *an)
{
    struct lens_compare *r = s->fig;
    int P = s->P;
    const int *map = s->map;
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            double x = ab[(size_t)i * P + j], y = an[(size_t)map[i] * P + map[j]];
            if (i == j)
                continue;
            if (x > 0 && isfinite(x)) {
                lo = x < lo ? x : lo;
                hi = x > hi ? x : hi;
            }
            if (y > 0 && isfinite(y)) {
                lo = y < lo ? y : lo;
                hi = y > hi ? y : hi;
            }
            /* the map is in NEW's numbering, as the findings' ranks are */
            if (x > 0 && y > 0 && isfinite(x) && isfinite(y)) {
                size_t q = (size_t)map[i] * P + map[j];
                r->ratio_map[q] += log(y / x);
                s->mapcnt[q]++;
            }
        }
    /* no delay at this length: an empty histogram over a unit range, drawn as such */
    if (!(lo <= hi)) {
        lo = hi = 1e-6;
    }
    double l0 = log10(lo), l1 = log10(hi);
    /* a length whose delays are all equal still gets a visible bin width */
    if (l1 - l0 < 1e-3)
        l0 -= 0.05, l1 += 0.05;
    r->hist_lo[k] = l0;
    r->hist_hi[k] = l1;
    long *hb = r->hist + (size_t)k * 2 * LENS_COMPARE_HIST_BINS, *hn = hb + LENS_COMPARE_HIST_BINS;
    double w = (l1 - l0) / LENS_COMPARE_HIST_BINS;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            if (i == j)
                continue;
            double v[2] = {ab[(size_t)i * P + j], an[(size_t)i * P + j]};
            for (int run = 0; run < 2; run++) {
                if (!(v[run] > 0) || !isfinite(v[run]))
                    continue;
                int b = (int)((log10(v[run]) - l0) / w);
                /* the maximum sits on the upper edge: it belongs to the last bin */
                b = b < 0 ? 0 : b >= LENS_COMPARE_HIST_BINS ? LENS_COMPARE_HIST_BINS - 1 : b;
                (run ? hn : hb)[b]++;
            }
        }
}

/* One common length: reads the matrices, tests every off-diagonal pair, counts the p-values
 * and keeps the candidates. mats: three P x P matrices, the whole memory of the loop: the
 * averages (BASE, NEW) and the ratios whose median is the machine's shift, then what
 * load_summary leaves (the raw path keeps the averages and reads the repeats by rows). */
static int one_length(struct state *s, int k, double *const *mats, struct lens_err *e)
{
    int P = s->P, rc;
    if ((rc = load_avg(s, k, mats, e)) != LENS_OK)
        return rc;
    const double *ab = mats[0], *an = mats[1];
    double *ratio = mats[2];
    const int *map = s->map;
    if (s->fig)
        figure_data(s, k, ab, an);
    /* the machine's shift at this length: median ratio, and a sign test (under no change
     * a pair is as likely to get slower as faster) */
    size_t nr = 0;
    long up = 0, down = 0;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            if (i == j)
                continue;
            double x = ab[(size_t)i * P + j], y = an[(size_t)map[i] * P + map[j]];
            if (!(x > 0) || !isfinite(x) || !isfinite(y))
                continue;
            ratio[nr++] = y / x;
            up += y > x;
            down += y < x;
        }
    /* the median reorders ratio: it is scratch, NEW's deviation is read over it below */
    double mk = lens_cube_median(ratio, nr);
    s->mach_ratio[k] = mk;
    /* ties (y == x) carry no sign and are left out, as the sign test prescribes; the
     * two-sided p is twice the smaller tail of Binomial(nsign, 1/2), capped at 1 */
    unsigned long nsign = (unsigned long)(up + down);
    double ps = nsign ? 2 * gsl_cdf_binomial_P((unsigned)(up < down ? up : down), 0.5, (unsigned)nsign) : 1;
    s->mach_p[k] = ps > 1 ? 1 : ps;
    /* the raw path tests on the repeats: the deviations are not needed */
    if (!s->rb && (rc = load_summary(s, k, mats, mk, e)) != LENS_OK)
        return rc;
    size_t first = s->ncand; /* this length's candidates, whose ratios the summary path fills last */
    /* |t| below the normal's two-sided alpha point means p > alpha for every degree of
     * freedom (Student's tails are heavier), so the t CDF is only evaluated where p may
     * matter to BH: such a test only counts in m */
    double zc = gsl_cdf_ugaussian_Qinv(s->o->alpha / 2);
    double mc = s->o->min_change;
    for (int i = 0; i < P; i++) {
        if ((rc = row_tests(s, k, i, mats, e)) != LENS_OK)
            return rc;
        for (int j = 0; j < P; j++) {
            double t = s->trow[j], df = s->dfrow[j];
            /* an untestable pair (NaN delay or deviation, the diagonal) is not one of the m tests */
            if (isnan(t))
                continue;
            size_t bi = (size_t)i * P + j;
            s->tests++;
            /* the tests touching each host per length: the denominator of the node step's strict
             * majority; a link inside one host touches it once */
            if (s->nhost) {
                s->touch[(size_t)s->host[i] * s->L + k]++;
                if (s->host[j] != s->host[i])
                    s->touch[(size_t)s->host[j] * s->L + k]++;
            }
            if (fabs(t) < zc)
                continue;
            /* infinite t: both deviations 0 and the means differ, p = 0 as in lens_compare_welch */
            double p = isinf(t) ? 0 : 2 * gsl_cdf_tdist_Q(fabs(t), df);
            /* BH never rejects above alpha (i alpha / m <= alpha): such a p only counts in m */
            if (p > s->o->alpha)
                continue;
            /* count and maximum per bin: enough for BH's exact count at each bin maximum */
            int b = hist_bin(p);
            s->hcount[b]++;
            if (p > s->hmax[b])
                s->hmax[b] = p;
            /* a candidate changed by min_change beyond the machine's shift at this length,
             * so that a machine 1.1x slower does not make every link a finding; the summary
             * path decided it in load_summary and fills the ratio below */
            if (!s->rb) {
                if ((s->changed[bi >> 3] >> (bi & 7) & 1) && (rc = add_cand(s, k, i, j, NAN, p, e)) != LENS_OK)
                    return rc;
                continue;
            }
            double r = an[(size_t)map[i] * P + map[j]] / ab[bi];
            if (ab[bi] > 0 && isfinite(r) && fabs(r / mk - 1) >= mc - CHANGE_EPS &&
                (rc = add_cand(s, k, i, j, r, p, e)) != LENS_OK)
                return rc;
        }
    }
    /* the averages again, only when this length has candidates (few lengths of a real
     * comparison do): their ratio NEW / BASE, the same division as the change test */
    if (!s->rb && s->ncand > first) {
        if ((rc = load_avg(s, k, mats, e)) != LENS_OK)
            return rc;
        for (size_t c = first; c < s->ncand; c++) {
            struct cand *x = &s->cand[c];
            x->ratio = mats[1][(size_t)map[x->i] * P + map[x->j]] / mats[0][(size_t)x->i * P + x->j];
        }
    }
    return LENS_OK;
}

/* Lower edge (in p) of histogram bin b. */
static double bin_low(int b)
{
    /* the inverse of hist_bin's scale; bins 0 and 1 (p == 0, underflow) start at 0 */
    return b <= 1 ? 0 : pow(10, (double)(b - 1) / BINS_PER_DECADE - LOG_SPAN);
}

/* The BH threshold from the histogram: the largest bin maximum t with #{p <= t} >= m t /
 * alpha (every p-value of a lower bin is <= t and of a higher bin > t, so the count is exact
 * at bin maxima); *top is the highest bin where the line could still cross inside the bin
 * (#{p <= its max} >= m lo / alpha), or *b1 when none: refine_threshold then looks inside. */
static double bh_threshold(const struct state *s, int *b1, int *top)
{
    /* BH on a histogram: at a bin maximum t, cum counts exactly the p <= t, so cum >= m t /
     * alpha there is BH's own condition at that p-value, and the largest passing maximum is a
     * lower bound on BH's threshold. A p-value inside a higher bin could still pass only while
     * cum >= m lo / alpha (lo, the bin's lower edge, is <= every p in it): hence *top. */
    long long cum = 0;
    double thr = -1;
    *b1 = *top = -1;
    for (int b = 0; b < NBINS; b++) {
        if (!s->hcount[b])
            continue;
        cum += s->hcount[b];
        if ((double)cum >= (double)s->tests * s->hmax[b] / s->o->alpha) {
            thr = s->hmax[b];
            *b1 = b;
        }
        if ((double)cum >= (double)s->tests * bin_low(b) / s->o->alpha)
            *top = b;
    }
    /* top == b1: nothing above b1 can pass, the histogram's threshold is already exact */
    if (*top < *b1)
        *top = *b1;
    return thr;
}

/* Ascending p-values for the step-up scan (no NaN reaches here). */
static int cmp_p(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The exact threshold when the BH line crosses inside bins b1+1..top: a second pass over
 * the averages and deviations collects the p-values of those bins (their number is known)
 * and BH runs on them, above the cum p-values of bins <= b1. The t CDF is evaluated only
 * for |t| that can give such a p: the two-sided quantiles fall as the degrees of freedom
 * rise, so those at floor(df) and ceil(df) bracket the ones at df. Returns the threshold
 * and the count of p-values <= it; mats as in one_length. */
static int refine_threshold(struct state *s, int b1, int top, double *thr, long long *nsig,
                            double *const *mats, struct lens_err *e)
{
    long long below = 0, n = 0;
    /* below: p-values surely <= the threshold (bins <= b1); n: those to collect again */
    for (int b = 0; b <= top; b++)
        *(b <= b1 ? &below : &n) += s->hcount[b];
    *nsig = below;
    if (n == 0)
        return LENS_OK;
    /* the p-values to collect lie in [lo, hi]: above b1's bins, up to top's maximum */
    double lo = bin_low(b1 + 1), hi = s->hmax[top];
    /* Welch's df <= n1 + n2 - 2, n the repeats (of _all.nc on the raw path) */
    int dmax = s->rb ? lens_cube_raw_repeats(s->rb) + lens_cube_raw_repeats(s->rn) : s->mb->repeats + s->mn->repeats;
    double *v = lens_malloc((size_t)n * sizeof *v), *tq = lens_malloc(2 * ((size_t)dmax + 2) * sizeof *tq);
    int rc = LENS_OK;
    if (!v || !tq) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory refining the BH threshold");
        goto out;
    }
    /* tq[2d]: |t| where p = hi, tq[2d+1]: where p = lo, at d degrees of freedom */
    for (int d = 1; d <= dmax + 1; d++) {
        double a = gsl_cdf_tdist_Qinv(hi / 2, d), z = lo > 0 ? gsl_cdf_tdist_Qinv(lo / 2, d) : INFINITY;
        tq[2 * d] = isfinite(a) ? a : 0;
        tq[2 * d + 1] = isnan(z) ? INFINITY : z;
    }
    long long got = 0;
    int P = s->P;
    for (int k = 0; k < s->L && rc == LENS_OK; k++) {
        /* the raw path reads the repeats row by row in row_tests, not the summaries */
        if (!s->rb && ((rc = load_avg(s, k, mats, e)) != LENS_OK || (rc = load_summary(s, k, mats, NAN, e)) != LENS_OK))
            break;
        for (int i = 0; i < P && rc == LENS_OK; i++) {
            if ((rc = row_tests(s, k, i, mats, e)) != LENS_OK)
                break;
            for (int j = 0; j < P; j++) {
                double df = s->dfrow[j], t = s->trow[j];
                if (isnan(t) || isinf(t))
                    continue;
                /* Welch's df is real (>= 1 as n >= 2), the table integer: for df in [d, d + 1], |t|
                 * below hi's quantile at d + 1 has p > hi, above lo's at d has p < lo */
                int d = (int)floor(df);
                d = d < 1 ? 1 : d > dmax ? dmax : d;
                double at = fabs(t);
                if (at < tq[2 * (d + 1)] || at > tq[2 * d + 1])
                    continue;
                double p = 2 * gsl_cdf_tdist_Q(at, df);
                /* the same p as pass one, so the same bin: counts match by construction */
                int b = hist_bin(p);
                /* got < n keeps the writes inside v[] even if that ever failed */
                if (p <= s->o->alpha && b > b1 && b <= top && got < n)
                    v[got++] = p;
            }
        }
    }
    if (rc != LENS_OK)
        goto out;
    /* BH's step-up on the collected p-values, all above the below ones: the rank of v[x]
     * among all m p-values is below + x + 1 */
    qsort(v, (size_t)got, sizeof *v, cmp_p);
    for (long long x = got; x-- > 0;)
        if ((double)(below + x + 1) >= (double)s->tests * v[x] / s->o->alpha) {
            *thr = v[x];
            *nsig = below + x + 1;
            break;
        }
out:
    lens_free(v);
    lens_free(tq);
    return rc;
}

/* ---- findings ---- */

struct acc { /* the findings being built */
    struct lens_compare *r; /* the result, owned by lens_compare_cubes until returned */
    const struct state *s;  /* for the rank map, the hosts and the lengths */
    int cap;                /* allocated entries of r->find */
};

/* Appends a finding over BASE ranks br[0..nr): NEW's ranks, their distinct hosts and the
 * per-length numbers (lens_p may be NULL: no test). */
static int add_finding(struct acc *a, int kind, int dir, const int *br, int nr, const int *ks,
                       int nk, const double *len_ratio, const double *len_p, double ratio,
                       double p, int nlinks, struct lens_err *e)
{
    struct lens_compare *r = a->r;
    const struct state *s = a->s;
    if (r->nfind == a->cap) {
        int nc = a->cap ? 2 * a->cap : 8;
        void *q = lens_realloc(r->find, (size_t)nc * sizeof *r->find);
        if (!q)
            return lens_err_set(e, LENS_ENOMEM, "out of memory");
        r->find = q;
        a->cap = nc;
    }
    /* counted before its arrays exist, so that lens_compare_free releases a half-built
     * finding after an allocation failure */
    struct lens_compare_finding *f = &r->find[r->nfind++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->direction = dir;
    f->ratio = ratio;
    f->p = p;
    f->nlinks = nlinks;
    f->nranks = nr;
    f->nlengths = nk;
    /* +1 everywhere: like malloc, a zero-size lens_malloc may return NULL, read as no memory */
    f->ranks = lens_malloc((size_t)(nr + 1) * sizeof(int));
    f->hosts = lens_malloc((size_t)(nr + 1) * sizeof(char *));
    f->lengths = lens_malloc((size_t)(nk + 1) * sizeof(int));
    f->len_ratio = lens_malloc((size_t)(nk + 1) * sizeof(double));
    if (!f->ranks || !f->hosts || !f->lengths || !f->len_ratio)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    f->base_ranks = lens_malloc((size_t)(nr + 1) * sizeof(int));
    f->len_p = lens_malloc((size_t)(nk + 1) * sizeof(double));
    if (!f->base_ranks || !f->len_p)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    for (int x = 0; x < nr; x++) {
        f->base_ranks[x] = br[x];
        f->ranks[x] = s->map[br[x]];
        /* distinct hosts in rank order; a node's ranks share one, the machine's repeat them */
        const char *h = r->hosttab ? r->hosttab[f->ranks[x]] : NULL;
        int seen = !h;
        for (int y = 0; y < f->nhosts && !seen; y++)
            seen = strcmp(f->hosts[y], h) == 0;
        if (!seen)
            f->hosts[f->nhosts++] = (char *)h;
    }
    /* ks are indices into the common lengths; the finding reports bytes */
    for (int x = 0; x < nk; x++) {
        f->lengths[x] = s->lengths[ks[x]];
        f->len_ratio[x] = len_ratio[x];
        f->len_p[x] = len_p ? len_p[x] : NAN;
    }
    return LENS_OK;
}

/* Step 1 of the grouping (docs/compare.md): one machine finding per direction over the
 * lengths whose median ratio moved by min_change and whose sign test rejects. ks, ps are
 * L long, rs 2 L (the median needs a copy), all P long; the error goes to *rc. */
static void machine_findings(struct acc *a, int *ks, double *rs, double *ps, int *all, struct lens_err *e,
                             int *rc)
{
    const struct state *s = a->s;
    for (int i = 0; i < s->P; i++)
        all[i] = i;
    for (int dir = 1; dir >= -1 && *rc == LENS_OK; dir -= 2) {
        int nk = 0;
        double pmin = 1;
        /* Bonferroni over the L sign tests: they are few and not part of the pair tests */
        for (int k = 0; k < s->L; k++) {
            double m = s->mach_ratio[k];
            if (dir * (m - 1) >= s->o->min_change - CHANGE_EPS && s->mach_p[k] <= s->o->alpha / s->L) {
                ks[nk] = k;
                rs[nk] = m;
                ps[nk++] = s->mach_p[k];
                pmin = s->mach_p[k] < pmin ? s->mach_p[k] : pmin;
            }
        }
        if (!nk)
            continue;
        double *tmp = rs + s->L;
        memcpy(tmp, rs, (size_t)nk * sizeof *tmp);
        double med = lens_cube_median(tmp, nk);
        *rc = add_finding(a, LENS_COMPARE_MACHINE, dir, all, s->P, ks, nk, rs, ps, med, pmin, 0, e);
    }
}

/* Whether candidate c touches BASE host h. */
static int touches(const struct state *s, const struct cand *c, int h)
{
    return s->host[c->i] == h || s->host[c->j] == h;
}

/* Greedy: the host with the most significant links in one direction at lengths where they
 * are a strict majority of the tests touching it becomes a node finding and takes those
 * links; repeat. Strict majority: with two nodes, the links between them touch both, and
 * the first taken leaves the other with nothing. */
static int node_findings(struct acc *a, struct state *s, double thr, int *ks, double *rs,
                         double *ps, int *ranks, double *tmp, struct lens_err *e)
{
    if (!s->nhost)
        return LENS_OK;
    int L = s->L;
    /* nhost x 2 directions x L counters, recounted every round; a (host, direction) once
     * taken scores 0, so there are at most 2 nhost rounds */
    long long *cnt = lens_calloc((size_t)s->nhost * L * 2, sizeof *cnt);
    if (!cnt)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    int rc = LENS_OK;
    for (;;) {
        memset(cnt, 0, (size_t)s->nhost * L * 2 * sizeof *cnt);
        /* counts per (host, direction, length) of the significant links not yet taken; a
         * link between two hosts counts for both */
        for (size_t c = 0; c < s->ncand; c++) {
            const struct cand *x = &s->cand[c];
            if (x->used || x->p > thr)
                continue;
            int d = x->ratio > 1 ? 0 : 1;
            cnt[((size_t)s->host[x->i] * 2 + d) * L + x->k]++;
            if (s->host[x->j] != s->host[x->i])
                cnt[((size_t)s->host[x->j] * 2 + d) * L + x->k]++;
        }
        /* the score of (host, direction): its links summed over the lengths where they are a
         * strict majority; the highest wins, ties going to the lower host id and slower first */
        int best = -1, bestd = 0;
        long long bests = 0;
        for (int h = 0; h < s->nhost; h++)
            for (int d = 0; d < 2; d++) {
                long long sc = 0;
                for (int k = 0; k < L; k++) {
                    long long n = cnt[((size_t)h * 2 + d) * L + k], t = s->touch[(size_t)h * L + k];
                    if (t > 0 && 2 * n > t)
                        sc += n;
                }
                if (sc > bests) {
                    bests = sc;
                    best = h;
                    bestd = d;
                }
            }
        /* no host has a majority at any length: what is left becomes link findings */
        if (best < 0)
            break;
        /* its lengths and, per length, the median ratio and smallest p of its links */
        int nk = 0, nl = 0;
        double pmin = 1;
        for (int k = 0; k < L; k++) {
            long long n = cnt[((size_t)best * 2 + bestd) * L + k], t = s->touch[(size_t)best * L + k];
            if (!(t > 0 && 2 * n > t))
                continue;
            size_t m = 0;
            double pk = 1;
            for (size_t c = 0; c < s->ncand; c++) {
                const struct cand *x = &s->cand[c];
                if (x->used || x->p > thr || x->k != k || (x->ratio > 1 ? 0 : 1) != bestd || !touches(s, x, best))
                    continue;
                tmp[m++] = x->ratio;
                pk = x->p < pk ? x->p : pk;
            }
            ks[nk] = k;
            rs[nk] = lens_cube_median(tmp, m);
            ps[nk++] = pk;
            pmin = pk < pmin ? pk : pmin;
        }
        /* it takes all its links in that direction, at every length (also those outside its
         * majority lengths): each round marks at least one candidate, so the loop ends */
        size_t m = 0;
        for (size_t c = 0; c < s->ncand; c++) {
            struct cand *x = &s->cand[c];
            if (x->used || x->p > thr || (x->ratio > 1 ? 0 : 1) != bestd || !touches(s, x, best))
                continue;
            x->used = 1;
            nl++;
            /* the ratio over the qualifying lengths only, as the lengths listed */
            for (int q = 0; q < nk; q++)
                if (ks[q] == x->k)
                    tmp[m++] = x->ratio;
        }
        /* the node's ranks: BASE's ranks on that host */
        int nr = 0;
        for (int i = 0; i < s->P; i++)
            if (s->host[i] == best)
                ranks[nr++] = i;
        rc = add_finding(a, LENS_COMPARE_NODE, bestd ? -1 : 1, ranks, nr, ks, nk, rs, ps,
                         lens_cube_median(tmp, m), pmin, nl, e);
        if (rc != LENS_OK)
            break;
    }
    lens_free(cnt);
    return rc;
}

static int cmp_cand_link(const void *a, const void *b)
{
    const struct cand *x = a, *y = b;
    /* sender, receiver, direction, length: one run per link finding */
    if (x->j != y->j)
        return x->j < y->j ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    /* slower before faster, the order of the machine and node steps */
    int dx = x->ratio > 1, dy = y->ratio > 1;
    if (dx != dy)
        return dy - dx;
    return (x->k > y->k) - (x->k < y->k);
}

static int link_findings(struct acc *a, struct state *s, double thr, int *ks, double *rs,
                         double *ps, double *tmp, struct lens_err *e)
{
    /* the significant, unused candidates to the front, sorted into runs per link */
    size_t n = 0;
    for (size_t c = 0; c < s->ncand; c++)
        if (!s->cand[c].used && s->cand[c].p <= thr)
            s->cand[n++] = s->cand[c];
    if (n == 0)
        return LENS_OK; /* also: no candidate array at all, which qsort may not be given */
    qsort(s->cand, n, sizeof *s->cand, cmp_cand_link);
    /* each run of equal (sender, receiver, direction) is one finding over its lengths */
    for (size_t c = 0; c < n;) {
        size_t d = c;
        int up = s->cand[c].ratio > 1;
        while (d < n && s->cand[d].i == s->cand[c].i && s->cand[d].j == s->cand[c].j &&
               (s->cand[d].ratio > 1) == up)
            d++;
        /* a run holds one candidate per length, so at most L: ks, rs, ps and tmp fit */
        int nk = 0;
        double pmin = 1;
        for (size_t x = c; x < d; x++) {
            ks[nk] = s->cand[x].k;
            rs[nk] = tmp[nk] = s->cand[x].ratio;
            ps[nk++] = s->cand[x].p;
            pmin = s->cand[x].p < pmin ? s->cand[x].p : pmin;
        }
        int ranks[2] = {s->cand[c].j, s->cand[c].i}; /* sender, receiver */
        int rc = add_finding(a, LENS_COMPARE_LINK, up ? 1 : -1, ranks, 2, ks, nk, rs, ps,
                             lens_cube_median(tmp, nk), pmin, nk, e);
        if (rc != LENS_OK)
            return rc;
        c = d;
    }
    s->ncand = 0;
    return LENS_OK;
}

/* The automatic cut of one run at common length 0, as group labels in BASE's rank order
 * (label[i] for BASE rank i): mat is that run's matrix in BASE's order. The one-length cube
 * and the tree are freed before returning, so the two runs are never in memory together. */
static int cut_labels(double *mat, int stat, int len, int P, int *label, int *k,
                      const char *who, struct lens_err *e)
{
    struct lens_cube *c;
    /* no statistic allocated: the cube borrows mat (handed back before the free), so that
     * the clustering costs its distances and not one more copy of the matrix */
    int rc = lens_cube_new(&c, P, 1, len, 0, 0, e);
    if (rc != LENS_OK)
        return rc;
    c->data[stat] = (double *)mat;
    struct lens_structure_opts so;
    lens_structure_opts_default(&so);
    /* the tree and its automatic cut only: the groups `mpilens cluster` reports */
    so.parts = LENS_STRUCTURE_TREE | LENS_STRUCTURE_CUT;
    so.stat = stat;
    so.length = 0;
    so.cut = LENS_STRUCTURE_CUT_AUTO;
    struct lens_structure st;
    if ((rc = lens_structure_run(c, &so, &st, e)) != LENS_OK)
        lens_err_prefix(e, who);
    else {
        memcpy(label, st.label, (size_t)P * sizeof *label);
        *k = st.k;
    }
    lens_structure_release(&st);
    c->data[stat] = NULL;
    lens_cube_free(c);
    return rc;
}

/* m (P x P) into BASE's rank order in place: row and column i of the result are NEW's
 * map[i]. Rows first, by the cycles of map, then each row's columns, with one row of
 * scratch (buf, P): the structure step then holds two matrices, not three. seen is P bytes. */
static void permute_matrix(double *m, const int *map, int P, double *buf, unsigned char *seen)
{
    size_t rowb = (size_t)P * sizeof *m;
    memset(seen, 0, (size_t)P);
    for (int i = 0; i < P; i++) {
        if (seen[i] || map[i] == i)
            continue;
        /* the cycle i -> map[i] -> ...: row x takes row map[x], the first row saved in buf */
        memcpy(buf, m + (size_t)i * P, rowb);
        int x = i;
        for (;;) {
            seen[x] = 1;
            int y = map[x];
            if (y == i) {
                memcpy(m + (size_t)x * P, buf, rowb);
                break;
            }
            memcpy(m + (size_t)x * P, m + (size_t)y * P, rowb);
            x = y;
        }
    }
    for (int i = 0; i < P; i++) {
        double *row = m + (size_t)i * P;
        memcpy(buf, row, rowb);
        for (int j = 0; j < P; j++)
            row[j] = buf[map[j]];
    }
}

/* Union-find root with path halving; the graph has only kb + kn nodes (the groups). */
static int find_root(int *parent, int x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

/* The automatic cut of lens_structure_run on the first common length of both runs (ranks
 * matched), and a finding per set of groups that merged or split: the connected parts of
 * the graph joining each BASE group to the NEW groups its ranks went to. The median is
 * clustered (as `mpilens cluster` does), the average when a run has no median. */
static int structure_findings(struct acc *a, struct state *s, int *ranks, struct lens_err *e)
{
    int P = s->P, rc;
    if (P < 3)
        return LENS_OK; /* two processes make one tree, nothing can merge or split */
    unsigned both = lens_cube_stream_stats(s->sb) & lens_cube_stream_stats(s->sn);
    int stat = both & (1u << LENS_STAT_MEDIAN) ? LENS_STAT_MEDIAN : LENS_STAT_AVERAGE;
    size_t PP = (size_t)P * P;
    /* BASE's matrix and NEW's in BASE's order: two matrices, each clustered in turn (the
     * tree's distances are the third), the ratio scratch allocated once both cuts are done */
    double *mb = lens_malloc(2 * PP * sizeof *mb), *mn = mb ? mb + PP : NULL, *tmp = NULL, *row = NULL;
    int *lab = lens_malloc((size_t)(2 * P) * sizeof *lab), *parent = NULL;
    unsigned char *seen = lens_malloc((size_t)P);
    row = lens_malloc((size_t)P * sizeof *row);
    if (!mb || !lab || !seen || !row) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
        goto out;
    }
    int *lb = lab, *ln = lab + P, kb, kn;
    if ((rc = lens_cube_stream_read(s->sb, stat, s->kb[0], mb, e)) != LENS_OK ||
        (rc = cut_labels(mb, stat, s->lengths[0], P, lb, &kb, "BASE", e)) != LENS_OK ||
        (rc = lens_cube_stream_read(s->sn, stat, s->kn[0], mn, e)) != LENS_OK)
        goto out;
    /* NEW in BASE's rank order, so that label i means the same process in both cuts */
    permute_matrix(mn, s->map, P, row, seen);
    if ((rc = cut_labels(mn, stat, s->lengths[0], P, ln, &kn, "NEW", e)) != LENS_OK)
        goto out;
    a->r->base_groups = kb;
    a->r->new_groups = kn;
    a->r->structure_length = s->lengths[0];
    parent = lens_malloc((size_t)(kb + kn) * 3 * sizeof *parent);
    if (!parent) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
        goto out;
    }
    /* the ratios of the links inside a regrouped part: at most P x P of them */
    if (!(tmp = lens_malloc(PP * sizeof *tmp))) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
        goto out;
    }
    /* parent, nbg, nng: three arrays of kb + kn in one block */
    int *nbg = parent + kb + kn, *nng = nbg + kb + kn;
    for (int g = 0; g < kb + kn; g++)
        parent[g] = g, nbg[g] = nng[g] = 0;
    /* nodes 0..kb-1 are BASE's groups, kb.. NEW's; rank i joins its group in each run */
    for (int i = 0; i < P; i++) {
        int x = find_root(parent, lb[i]), y = find_root(parent, kb + ln[i]);
        if (x != y)
            parent[y] = x;
    }
    /* groups per part on each side: one and one is a group that stayed as it was */
    for (int g = 0; g < kb; g++)
        nbg[find_root(parent, g)]++;
    for (int g = 0; g < kn; g++)
        nng[find_root(parent, kb + g)]++;
    for (int root = 0; root < kb + kn && rc == LENS_OK; root++) {
        if (find_root(parent, root) != root || (nbg[root] <= 1 && nng[root] <= 1))
            continue;
        /* the part's ranks, through their BASE group (every rank has one, so none is missed) */
        int nr = 0;
        for (int i = 0; i < P; i++)
            if (find_root(parent, lb[i]) == root)
                ranks[nr++] = i;
        /* the ratio of the links inside the part: how the regrouped ranks' delays moved */
        size_t m = 0;
        for (int x = 0; x < nr; x++)
            for (int y = 0; y < nr; y++) {
                size_t q = (size_t)ranks[x] * P + ranks[y];
                if (x != y && mb[q] > 0 && isfinite(mn[q] / mb[q]))
                    tmp[m++] = mn[q] / mb[q];
            }
        double ratio = lens_cube_median(tmp, m);
        /* one length, the one clustered: index 0 of the common lengths */
        int k0 = 0;
        rc = add_finding(a, LENS_COMPARE_STRUCTURE, ratio >= 1 ? 1 : -1, ranks, nr, &k0, 1,
                         &ratio, NULL, ratio, NAN, 0, e);
    }
    /* the changed links inside a regrouped part are what regrouped it: they are explained,
     * and the node and link steps do not report them again */
    for (size_t c = 0; c < s->ncand && rc == LENS_OK; c++) {
        int x = find_root(parent, lb[s->cand[c].i]), y = find_root(parent, lb[s->cand[c].j]);
        if (x == y && (nbg[x] > 1 || nng[x] > 1))
            s->cand[c].used = 1;
    }
out:
    lens_free(parent);
    lens_free(lab);
    lens_free(tmp);
    lens_free(seen);
    lens_free(row);
    lens_free(mb);
    return rc;
}

/* Appends a run's reader warnings prefixed by who ("BASE", "NEW"); r owns the copies. */
static int copy_warnings(struct lens_compare *r, const char *who, const struct lens_cube *m,
                         struct lens_err *e)
{
    if (!m->nwarn)
        return LENS_OK;
    char **w = lens_realloc(r->warnings, (size_t)(r->nwarn + m->nwarn) * sizeof *w);
    if (!w)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    /* nwarn rises per copy, so a failure midway leaves only whole strings to free */
    r->warnings = w;
    for (int i = 0; i < m->nwarn; i++) {
        size_t n = strlen(who) + strlen(m->warnings[i]) + 3;
        char *x = lens_malloc(n);
        if (!x)
            return lens_err_set(e, LENS_ENOMEM, "out of memory");
        snprintf(x, n, "%s: %s", who, m->warnings[i]);
        r->warnings[r->nwarn++] = x;
    }
    return LENS_OK;
}

/* The cubes must describe the same experiment on the same number of processes. */
static int check_pair(const struct state *s, const char *base, const char *newer, struct lens_err *e)
{
    const struct lens_cube *b = s->mb, *n = s->mn;
    if (b->procs != n->procs)
        return lens_err_set(e, LENS_EDATA, "%s has %d processes and %s %d: compare needs the same number",
                            base, b->procs, newer, n->procs);
    if (b->procs < 2)
        return lens_err_set(e, LENS_EDATA, "%s: one process has no links to compare", base);
    if (b->mode != n->mode)
        return lens_err_set(e, LENS_EDATA, "%s measured %s and %s %s: the delays are not comparable",
                            base, lens_cube_mode_name(b->mode), newer, lens_cube_mode_name(n->mode));
    /* Welch's test needs a mean and a deviation per element and n >= 2 repeats in each run */
    const unsigned need = (1u << LENS_STAT_AVERAGE) | (1u << LENS_STAT_DEVIATION);
    if ((lens_cube_stream_stats(s->sb) & need) != need)
        return lens_err_set(e, LENS_EDATA, "%s: the t-test needs the average and the deviation", base);
    if ((lens_cube_stream_stats(s->sn) & need) != need)
        return lens_err_set(e, LENS_EDATA, "%s: the t-test needs the average and the deviation", newer);
    if (b->repeats < 2)
        return lens_err_set(e, LENS_EDATA, "%s: num_repeates is %d, the t-test needs 2 or more", base, b->repeats);
    if (n->repeats < 2)
        return lens_err_set(e, LENS_EDATA, "%s: num_repeates is %d, the t-test needs 2 or more", newer, n->repeats);
    return LENS_OK;
}

/* A structure finding counts by the direction of its ratio, like the others. */
static int verdict_of(const struct lens_compare *r)
{
    int up = 0, down = 0;
    for (int i = 0; i < r->nfind; i++)
        r->find[i].direction > 0 ? up++ : down++;
    return up && down ? LENS_COMPARE_MIXED : up ? LENS_COMPARE_REGRESSED : down ? LENS_COMPARE_IMPROVED : LENS_COMPARE_SAME;
}

/* Releases what the state owns; safe on a half-built state, every field starting NULL.
 * kb also holds kn and lengths, mach_ratio also mach_p. */
static void state_free(struct state *s)
{
    lens_cube_stream_close(s->sb);
    lens_cube_stream_close(s->sn);
    lens_free(s->kb);
    lens_free(s->map);
    lens_free(s->host);
    lens_free(s->touch);
    lens_free(s->hcount);
    lens_free(s->hmax);
    lens_free(s->cand);
    lens_free(s->mach_ratio);
    lens_cube_raw_close(s->rb);
    lens_cube_raw_close(s->rn);
    lens_free(s->trow); /* also holds dfrow */
    lens_free(s->mapcnt);
    lens_free(s->changed);
}

/* The raw-repeats path when both runs have usable _all.nc files (lens_cube_raw_open says
 * which do), the summary path otherwise: one test for every pair, named in the result. */
static int choose_test(struct state *s, struct lens_compare *r, struct lens_err *e)
{
    int rc;
    if ((rc = lens_cube_raw_open(s->mb, &s->rb, e)) != LENS_OK || (rc = lens_cube_raw_open(s->mn, &s->rn, e)) != LENS_OK)
        return rc;
    /* one run without repeats: both summarised, so that the two sides are estimated alike */
    if (!s->rb || !s->rn) {
        lens_cube_raw_close(s->rb);
        lens_cube_raw_close(s->rn);
        s->rb = s->rn = NULL;
    }
    r->test = s->rb ? LENS_COMPARE_WELCH_RAW : LENS_COMPARE_WELCH_SUMMARY;
    return LENS_OK;
}

/* The PDF's data: the ratio map's sums and counts (P x P) and the histograms (L lengths). */
static int figure_alloc(struct state *s, struct lens_compare *r)
{
    size_t PP = (size_t)s->P * s->P;
    r->ratio_map = lens_calloc(PP, sizeof *r->ratio_map);
    s->mapcnt = lens_calloc(PP, sizeof *s->mapcnt);
    r->hist_lo = lens_malloc(2 * (size_t)s->L * sizeof *r->hist_lo);
    r->hist = lens_calloc((size_t)s->L * 2 * LENS_COMPARE_HIST_BINS, sizeof *r->hist);
    r->map_lengths = lens_malloc((size_t)s->L * sizeof *r->map_lengths);
    if (!r->ratio_map || !s->mapcnt || !r->hist_lo || !r->hist || !r->map_lengths)
        return LENS_ENOMEM;
    memcpy(r->map_lengths, s->lengths, (size_t)s->L * sizeof *r->map_lengths);
    r->hist_hi = r->hist_lo + s->L;
    s->fig = r;
    return LENS_OK;
}

/* The map's sums of log ratios into geometric means; pairs never summed stay NaN. */
static void figure_finish(struct state *s)
{
    size_t PP = (size_t)s->P * s->P;
    for (size_t q = 0; q < PP; q++)
        s->fig->ratio_map[q] = s->mapcnt[q] ? exp(s->fig->ratio_map[q] / s->mapcnt[q]) : NAN;
}

static int compare_cubes(const char *base, const char *newer, const struct lens_compare_opts *o,
                         int figures, struct lens_compare **out, struct lens_err *e)
{
    *out = NULL;
    if (!(o->min_change >= 0 && o->min_change < 1e6) || !(o->alpha > 0 && o->alpha < 1))
        return lens_err_set(e, LENS_EINVAL, "compare: min_change must be >= 0 and alpha in (0, 1)");
    /* GSL's default handler aborts; every value it returns here is checked instead */
    gsl_set_error_handler_off();
    struct state s;
    memset(&s, 0, sizeof s);
    s.o = o;
    struct lens_compare *r = NULL;
    double *mats = NULL, *scratch = NULL;
    int *ints = NULL;
    int rc;
    if ((rc = lens_cube_stream_open(base, &s.sb, e)) != LENS_OK ||
        (rc = lens_cube_stream_open(newer, &s.sn, e)) != LENS_OK)
        goto fail;
    s.mb = lens_cube_stream_meta(s.sb);
    s.mn = lens_cube_stream_meta(s.sn);
    s.P = s.mb->procs;
    if ((rc = check_pair(&s, base, newer, e)) != LENS_OK || (rc = common_lengths(&s, e)) != LENS_OK)
        goto fail;
    int P = s.P, L = s.L;
    r = lens_calloc(1, sizeof *r);
    s.map = lens_malloc((size_t)P * sizeof *s.map);
    s.host = lens_malloc((size_t)P * sizeof *s.host);
    s.hcount = lens_calloc(NBINS, sizeof *s.hcount);
    s.hmax = lens_calloc(NBINS, sizeof *s.hmax);
    s.mach_ratio = lens_malloc((size_t)L * 2 * sizeof *s.mach_ratio);
    s.trow = lens_malloc(2 * (size_t)P * sizeof *s.trow);
    rc = LENS_ENOMEM;
    if (!r || !s.map || !s.host || !s.hcount || !s.hmax || !s.mach_ratio || !s.trow)
        goto nomem;
    s.dfrow = s.trow + P;
    if (figures && figure_alloc(&s, r) != LENS_OK)
        goto nomem;
    if ((rc = choose_test(&s, r, e)) != LENS_OK)
        goto fail;
    /* mach_ratio and mach_p share one block of 2 L */
    s.mach_p = s.mach_ratio + L;
    r->procs = P;
    r->nlen = L;
    /* NEW's host names are copied: the findings outlive the streams */
    if (s.mn->hosts) {
        if (!(r->hosttab = lens_calloc((size_t)P, sizeof *r->hosttab)))
            goto nomem;
        for (int i = 0; i < P; i++)
            if (!(r->hosttab[i] = lens_strdup(s.mn->hosts[i])))
                goto nomem;
    }
    if ((rc = match_ranks(&s, r, e)) != LENS_OK)
        goto fail;
    if (s.nhost && !(s.touch = lens_calloc((size_t)s.nhost * L, sizeof *s.touch)))
        goto nomem;
    /* three matrices and P x P bits: the memory of the whole loop, whatever L is */
    if (!(mats = lens_malloc((size_t)3 * P * P * sizeof *mats)) ||
        !(s.changed = lens_malloc(((size_t)P * P + 7) / 8)))
        goto nomem;
    double *m4[3];
    for (int q = 0; q < 3; q++)
        m4[q] = mats + (size_t)q * P * P;
    for (int k = 0; k < L; k++)
        if ((rc = one_length(&s, k, m4, e)) != LENS_OK)
            goto fail;
    if (s.fig)
        figure_finish(&s);
    r->tests = s.tests;
    int b1, top;
    double thr = bh_threshold(&s, &b1, &top);
    /* the second pass only when the BH line crosses inside a bin (it usually does) */
    if (top > b1 && (rc = refine_threshold(&s, b1, top, &thr, &r->significant, m4, e)) != LENS_OK)
        goto fail;
    /* no second pass: the histogram's count up to b1 is exactly #{p <= threshold} */
    if (top <= b1)
        for (int b = 0; b <= b1; b++)
            r->significant += s.hcount[b];
    r->threshold = thr < 0 ? 0 : thr;
    lens_free(mats);
    mats = NULL;
    /* the warnings are complete only once every matrix went by; a cube with no usable
     * delay fails here as lens_cube_read would. After the four matrices are freed: the end
     * reads the statistics compare never used (median, min) into a matrix of its own */
    if ((rc = lens_cube_stream_end(s.sb, e)) != LENS_OK || (rc = lens_cube_stream_end(s.sn, e)) != LENS_OK ||
        (rc = copy_warnings(r, "BASE", s.mb, e)) != LENS_OK || (rc = copy_warnings(r, "NEW", s.mn, e)) != LENS_OK)
        goto fail;
    /* scratch for the findings: per-length arrays and a ratio list as long as the largest
     * set of links a node or link finding can take (every candidate) */
    size_t nscr = s.ncand;
    scratch = lens_malloc((nscr + 3 * (size_t)L + 1) * sizeof *scratch);
    ints = lens_malloc(((size_t)L + P + 1) * sizeof *ints);
    if (!scratch || !ints)
        goto nomem;
    /* The grouping order of docs/compare.md: machine first (its shift was already divided
     * out of every candidate), structure next (it takes the links that regrouped ranks), then
     * node, and a link alone last, only when no host or regrouping explains it. */
    struct acc a = {r, &s, 0};
    /* scratch: nscr ratios for the medians, then rs (2 L: values and a copy) and ps (L) */
    double *rs = scratch + nscr, *ps = rs + 2 * (size_t)L;
    int *ks = ints, *ranks = ints + L; /* L length indices, P ranks */
    machine_findings(&a, ks, rs, ps, ranks, e, &rc);
    if (rc != LENS_OK)
        goto fail;
    if ((rc = structure_findings(&a, &s, ranks, e)) != LENS_OK ||
        (rc = node_findings(&a, &s, thr, ks, rs, ps, ranks, scratch, e)) != LENS_OK ||
        (rc = link_findings(&a, &s, thr, ks, rs, ps, scratch, e)) != LENS_OK)
        goto fail;
    r->verdict = verdict_of(r);
    lens_free(mats);
    lens_free(scratch);
    lens_free(ints);
    state_free(&s);
    *out = r;
    return LENS_OK;
nomem:
    rc = lens_err_set(e, LENS_ENOMEM, "compare: out of memory");
fail:
    lens_free(mats);
    lens_free(scratch);
    lens_free(ints);
    state_free(&s);
    lens_compare_free(r);
    return rc;
}

int lens_compare_cubes(const char *base, const char *newer, const struct lens_compare_opts *o,
                       struct lens_compare **out, struct lens_err *e)
{
    return compare_cubes(base, newer, o, 0, out, e);
}

int lens_compare_cubes_map(const char *base, const char *newer, const struct lens_compare_opts *o,
                           struct lens_compare **out, struct lens_err *e)
{
    return compare_cubes(base, newer, o, 1, out, e);
}
