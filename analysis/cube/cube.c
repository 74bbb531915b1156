/* The latency cube in memory: lifecycle, names, off-diagonal statistics, asymmetry, and the
 * repair of network_test2's known defects (docs/methods.md §1). NetCDF I/O is in
 * cube_nc.c so this file builds and tests without touching files. */
#include "cube_readers.h"
#include "common/units.h"

#include <limits.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Indexed by enum lens_mode: network_test2's test_type numbers 1..9, 0 for unknown, and
 * mpilens's own p2p sweep last. The names are those of the newer layout's char test_type, so
 * lens_cube_mode_parse reads that layout directly. */
static const char *const mode_names[] = {
    "unknown", "one_to_one", "all_to_all", "async_one_to_one", "send_recv_and_recv_send",
    "noise", "noise_blocking", "bcast", "put", "get", "p2p"};

static const char *const stat_names[LENS_STAT_COUNT] = {"average", "median", "deviation", "min"};

const char *lens_cube_mode_name(int mode)
{
    return (mode >= 0 && mode <= LENS_MODE_LAST) ? mode_names[mode] : "unknown";
}

/* From 1: "unknown" in a file is not a mode, it parses as LENS_MODE_UNKNOWN like any other
 * unknown word. */
int lens_cube_mode_parse(const char *name)
{
    for (int m = 1; m <= LENS_MODE_LAST; m++)
        if (name && !strcmp(name, mode_names[m]))
            return m;
    return LENS_MODE_UNKNOWN;
}

const char *lens_cube_stat_name(int stat)
{
    return (stat >= 0 && stat < LENS_STAT_COUNT) ? stat_names[stat] : "unknown";
}

int lens_cube_stat_parse(const char *name)
{
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (name && !strcmp(name, stat_names[s]))
            return s;
    return -1;
}

/* Row i is the rank that measured in network_test2 (docs/methods.md §1); what the columns mean
 * depends on the mode. info, the report and the files mpilens writes quote these sentences, so
 * a reader of a heatmap knows which way a delay goes. */
const char *lens_cube_mode_semantics(int mode)
{
    switch (mode) {
    case LENS_MODE_ONE_TO_ONE:
    case LENS_MODE_NOISE_BLOCKING:
        return "one-way delay of a blocking send/recv; row = receiver (the rank that measured), "
               "column = sender";
    case LENS_MODE_ASYNC_ONE_TO_ONE:
        return "one-way delay of an Isend/Irecv exchange; row = the rank that measured, "
               "column = its partner";
    case LENS_MODE_ALL_TO_ALL:
        return "delay of one message while every rank exchanges with every other; row = receiver, "
               "column = sender";
    case LENS_MODE_SEND_RECV_AND_RECV_SEND:
        return "half a send-then-receive round trip; row = the rank that started it, column = its "
               "partner";
    case LENS_MODE_NOISE:
        return "one-way delay under background noise traffic; row = receiver, column = sender";
    case LENS_MODE_BCAST:
        return "time until the broadcast from the root arrives; row = root, column = receiver";
    case LENS_MODE_PUT:
        return "time of one MPI_Put and its completion; row = origin, column = target";
    case LENS_MODE_GET:
        return "time of one MPI_Get and its completion; row = origin, column = target";
    case LENS_MODE_P2P:
        return "ping-pong latency T/2c between two ranks";
    default:
        return "unknown mode: which index is the sender is not known";
    }
}

/* Checks the lengths a file declares before any cube is made from them, so the error names the
 * file: every l_k = begin + k step must be a non-negative int. Taking long long arguments, the
 * readers pass values straight from the file without a narrowing that could hide an overflow. */
int lens_cube_check_lengths(const char *src, long long nlen, long long begin, long long step,
                            struct lens_err *e)
{
    if (nlen < 1 || nlen > INT_MAX)
        return lens_err_set(e, LENS_EFORMAT, "%s: %lld message lengths (1 to %d allowed)", src, nlen, INT_MAX);
    if (begin < 0 || begin > INT_MAX)
        return lens_err_set(e, LENS_EFORMAT, "%s: begin_mes_length = %lld, not a length in bytes", src, begin);
    /* A step of 0 is valid only for a single length: otherwise two lengths would be equal. */
    if (step < 0 || step > INT_MAX || (step == 0 && nlen > 1))
        return lens_err_set(e, LENS_EFORMAT, "%s: step_length = %lld for %lld lengths (must be positive)", src,
                            step, nlen);
    /* nlen and step are below 2^31, so the product fits a long long: no overflow here */
    if (begin + nlen * step > INT_MAX)
        return lens_err_set(e, LENS_EFORMAT, "%s: %lld lengths from begin_mes_length = %lld by step_length = "
                            "%lld end at %lld bytes, beyond %d", src, nlen, begin, step, begin + nlen * step,
                            INT_MAX);
    return LENS_OK;
}

int lens_cube_new(struct lens_cube **out, int procs, int nlen, int begin, int step,
                  unsigned stat_mask, struct lens_err *e)
{
    *out = NULL;
    if (procs < 1 || nlen < 1)
        return lens_err_set(e, LENS_EINVAL, "cube: invalid size %d processes x %d lengths", procs, nlen);
    /* readers check with the file's name first; this keeps begin + k*step from overflowing int
     * (the sequence is monotone, so its extremes are begin and the end) */
    long long end = (long long)begin + (long long)nlen * step;
    if (end < INT_MIN || end > INT_MAX - (step > 0 ? 0 : 1))
        return lens_err_set(e, LENS_EINVAL, "cube: %d lengths from %d by %d overflow int", nlen, begin, step);
    struct lens_cube *c = lens_calloc(1, sizeof *c);
    if (!c)
        return lens_err_set(e, LENS_ENOMEM, "cube: out of memory");
    c->procs = procs;
    c->nlen = nlen;
    c->begin = begin;
    c->step = step;
    /* end is exclusive, as end_mes_length in network_test2; with one length and step 0 it is
     * begin + 1 so that [begin, end) still holds the length. */
    c->end = begin + nlen * step + (step > 0 ? 0 : 1);
    c->lengths = lens_calloc((size_t)nlen, sizeof *c->lengths);
    if (!c->lengths)
        goto nomem;
    for (int k = 0; k < nlen; k++)
        c->lengths[k] = begin + k * step;
    /* Zeroed (calloc): a cube built by a writer or synth starts from defined values. */
    size_t cells = (size_t)procs * procs * nlen;
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (!(stat_mask & (1u << s)))
            continue;
        c->data[s] = lens_calloc(cells, sizeof(double));
        if (!c->data[s])
            goto nomem;
    }
    *out = c;
    return LENS_OK;
nomem:
    lens_cube_free(c);
    return lens_err_set(e, LENS_ENOMEM, "cube: out of memory for %d x %d x %d", procs, procs, nlen);
}

static void free_strings(char **v, int n)
{
    if (!v)
        return;
    for (int i = 0; i < n; i++)
        lens_free(v[i]);
    lens_free(v);
}

/* Safe on a half-built cube (lens_cube_new's error path, a reader's): every pointer is NULL or
 * owned, hosts and warnings arrays hold NULL in their unused slots. */
void lens_cube_free(struct lens_cube *c)
{
    if (!c)
        return;
    lens_free(c->lengths);
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        lens_free(c->data[s]);
    free_strings(c->hosts, c->procs);
    free_strings(c->warnings, c->nwarn);
    lens_free(c->raw);
    lens_free(c->amount);
    lens_free(c->source);
    lens_free(c);
}

/* Warnings are collected in the cube, not printed (nothing below the commands prints): the
 * command shows them, `info --json` lists them. A warning longer than 511 bytes is cut. */
int lens_cube_warn(struct lens_cube *c, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    /* One slot more per warning: a cube has a handful of them, never enough to need doubling. */
    char **w = lens_realloc(c->warnings, (size_t)(c->nwarn + 1) * sizeof *w);
    if (!w)
        return LENS_ENOMEM;
    c->warnings = w;
    if (!(w[c->nwarn] = lens_strdup(buf)))
        return LENS_ENOMEM;
    c->nwarn++;
    return LENS_OK;
}

/* The nearest measured length; of two equally near, the smaller (the first found). In long so
 * that the difference of two ints cannot overflow. */
int lens_cube_length_index(const struct lens_cube *c, int bytes)
{
    int best = -1;
    long bestd = 0;
    for (int k = 0; k < c->nlen; k++) {
        long d = labs((long)c->lengths[k] - bytes);
        if (best < 0 || d < bestd) {
            best = k;
            bestd = d;
        }
    }
    return best;
}

/* Hoare selection with a median-of-three pivot: O(n) on average, so the summary of a
 * 1024-process cube does not sort 16 million values. */
double lens_cube_select(double *v, size_t n, size_t k)
{
    /* n >= 1 (callers check): hi cannot wrap. */
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        double a = v[lo], b = v[mid], c = v[hi];
        /* The median of three as pivot: sorted or reversed input (a matrix row is often nearly
         * sorted) stays O(n) instead of quadratic. */
        double p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < p)
                i++;
            while (v[j] > p)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                /* j is unsigned: stop before it would wrap below 0. */
                if (j == 0)
                    break;
                j--;
            }
        }
        /* After the partition v[lo..j] <= p <= v[i..hi] and v(j..i) == p: k lies in one of the
         * three. */
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* lens_cube_median by a radix selection on the keys, 16 bits a pass from the top: each pass
 * is a histogram and a partition that moves the bucket holding the middle to the front (a
 * permutation, as the contract says), about 2n branch-free steps where quickselect takes
 * ~3.4n unpredictable ones. The two middle ranks go together until they fall into different
 * buckets: then they are the largest of the lower bucket and the smallest of the upper one.
 * Bits above those where the keys differ are skipped, and the remaining ones share every bit
 * above each pass's 16 (the last pass may overlap the one before: shared bits count nothing).
 * Returns 0 (and leaves v as it was) when v holds a NaN or hist cannot be allocated. */
static int radix_median(double *v, size_t n, double *out)
{
    size_t *hist = lens_malloc(65536 * sizeof *hist);
    if (!hist)
        return 0;
    size_t klo = (n - 1) / 2, khi = n / 2; /* the same rank for odd n */
    /* the keys share their top bits (delays span few exponents): start below what they share */
    uint64_t kmin = UINT64_MAX, kmax = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i])) {
            lens_free(hist);
            return 0;
        }
        /* An order-preserving integer key (cube_readers.h, the mapping the packed encoder sorts
         * by): radix digits of the key are digits of the value's rank. */
        uint64_t k = lens_cube_order_key(v[i]);
        kmin = k < kmin ? k : kmin;
        kmax = k > kmax ? k : kmax;
    }
    int top = 0; /* bits that differ somewhere */
    while (top < 64 && (kmin ^ kmax) >> top)
        top++;
    for (int shift = top > 16 ? top - 16 : 0, last = 0; !last; shift = shift > 16 ? shift - 16 : 0) {
        last = shift == 0;
        memset(hist, 0, 65536 * sizeof *hist);
        for (size_t i = 0; i < n; i++)
            hist[lens_cube_order_key(v[i]) >> shift & 0xFFFF]++;
        /* Digit of rank klo: the first bucket whose cumulative count passes it; below counts the
         * values in lower buckets. The same walk continues for khi. */
        size_t dlo = 0, below = 0;
        while (klo >= below + hist[dlo])
            below += hist[dlo++];
        size_t dhi = dlo, bhi = below;
        while (khi >= bhi + hist[dhi])
            bhi += hist[dhi++];
        /* The two middle ranks split across buckets: the lower one is the largest value of
         * bucket dlo, the upper the smallest of dhi (the buckets in between are empty). */
        if (dhi != dlo) {
            double lo = -INFINITY, hi = INFINITY;
            for (size_t i = 0; i < n; i++) {
                size_t d = lens_cube_order_key(v[i]) >> shift & 0xFFFF;
                if (d == dlo && v[i] > lo)
                    lo = v[i];
                if (d == dhi && v[i] < hi)
                    hi = v[i];
            }
            lens_free(hist);
            *out = 0.5 * (lo + hi);
            return 1;
        }
        /* Both middle ranks are in bucket dlo: keep only its values (moved to the front) and
         * recount the ranks within it. */
        klo -= below;
        khi -= below;
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if ((lens_cube_order_key(v[i]) >> shift & 0xFFFF) == dlo) {
                double t = v[m];
                v[m++] = v[i];
                v[i] = t;
            }
        n = m;
    }
    lens_free(hist);
    /* every key left is equal: one value */
    *out = klo == khi ? v[0] : 0.5 * (v[0] + v[0]);
    return 1;
}

static int cmp_key(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* lens_cube_median by a sample filter (Floyd and Rivest's idea, "Expected time bounds for
 * selection"): the keys of 4096 evenly spaced values give two bounds that the middle ranks lie
 * between with near certainty; one pass counts the values below the lower bound and moves those
 * between to the front, and the selection runs on that ~6 % alone. One cheap pass where the
 * radix selection makes three (min/max, histogram, partition), which was half of `mpilens
 * info`. Returns 0 when it cannot decide, v still a permutation of itself: a NaN, the bounds
 * missed the middle, or the middle is a zero (select compares doubles, -0 == +0, while the
 * radix selection orders by key: the caller's fallback keeps their sign as it always was). */
#define SAMPLE 4096
#define SAMPLE_MARGIN 128 /* 4 standard deviations of the sample rank (sqrt(4096) / 2 = 32) */
static int sample_median(double *v, size_t n, double *out)
{
    uint64_t key[SAMPLE];
    size_t step = n / SAMPLE;
    for (size_t s = 0; s < SAMPLE; s++) {
        if (isnan(v[s * step]))
            return 0;
        key[s] = lens_cube_order_key(v[s * step]);
    }
    qsort(key, SAMPLE, sizeof *key, cmp_key);
    uint64_t klo_key = key[SAMPLE / 2 - SAMPLE_MARGIN], khi_key = key[SAMPLE / 2 + SAMPLE_MARGIN];
    size_t below = 0, m = 0, nan = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = lens_cube_order_key(v[i]);
        nan += v[i] != v[i];
        /* branch-free for the ~94 % outside the window, which fall on either side at random */
        below += k < klo_key;
        if (k >= klo_key && k <= khi_key) {
            double t = v[m];
            v[m++] = v[i];
            v[i] = t;
        }
    }
    size_t klo = (n - 1) / 2, khi = n / 2; /* the same rank for odd n */
    if (nan || klo < below || khi >= below + m)
        return 0;
    /* as lens_cube_median's small path, on the window: the rank khi, then below it the largest */
    double hi = lens_cube_select(v, m, khi - below), lo = hi;
    if (klo != khi) {
        lo = v[0];
        for (size_t i = 1; i < khi - below; i++)
            lo = v[i] > lo ? v[i] : lo;
    }
    if (lo == 0 || hi == 0)
        return 0;
    *out = klo == khi ? hi : 0.5 * (lo + hi);
    return 1;
}

/* The median by selection, never by sorting; for even n the mean of the two middle values,
 * the usual definition. v is permuted. */
double lens_cube_median(double *v, size_t n)
{
    if (n == 0)
        return NAN;
    double r;
    /* large arrays (a cube's worth of delays): the radix selection; the value is the same */
    if (n >= 16384 && (sample_median(v, n, &r) || radix_median(v, n, &r)))
        return r;
    double hi = lens_cube_select(v, n, n / 2);
    if (n % 2)
        return hi;
    double lo = v[0];
    for (size_t i = 1; i < n / 2; i++) /* after selection, v[0..n/2) are all <= hi */
        lo = v[i] > lo ? v[i] : lo;
    return 0.5 * (lo + hi);
}

/* Appends the finite values of x[0..len) to v[*n..], tracking their minimum and maximum. */
static void summary_run(const double *x, size_t len, double *v, size_t *n, double *mn, double *mx)
{
    size_t m = *n;
    double lo = *mn, hi = *mx;
    for (size_t j = 0; j < len; j++) {
        double y = x[j];
        if (!isfinite(y))
            continue;
        v[m++] = y;
        lo = y < lo ? y : lo;
        hi = y > hi ? y : hi;
    }
    *n = m;
    *mn = lo;
    *mx = hi;
}

int lens_cube_summary(const struct lens_cube *c, int stat, int k, struct lens_summary *out,
                      struct lens_err *e)
{
    out->min = out->median = out->max = NAN;
    out->count = 0;
    if (stat < 0 || stat >= LENS_STAT_COUNT || !c->data[stat])
        return lens_err_set(e, LENS_EINVAL, "%s: statistic '%s' not present",
                            c->source ? c->source : "cube", lens_cube_stat_name(stat));
    /* k < 0 summarises every length together, as `mpilens info` does. */
    int k0 = k >= 0 ? k : 0, k1 = k >= 0 ? k + 1 : c->nlen;
    /* A copy: the median permutes its input, and the cube must stay as it is. */
    size_t P = (size_t)c->procs, cap = (size_t)(k1 - k0) * P * P;
    double *v = lens_malloc(cap * sizeof *v);
    if (!v)
        return lens_err_set(e, LENS_ENOMEM, "cube summary: out of memory");
    lens_cube_huge_pages(v, cap * sizeof *v);
    size_t n = 0;
    double mn = INFINITY, mx = -INFINITY;
    /* The diagonal (a rank to itself) is no measurement, and NaN marks a missing delay:
     * neither enters the statistics (docs/methods.md §1, "Summaries"). Each row is copied as
     * the two runs beside its diagonal element, so the hot loop has no i != j test. */
    for (int kk = k0; kk < k1; kk++)
        for (size_t i = 0; i < P; i++) {
            const double *row = &LENS_CUBE_AT(c, stat, kk, i, 0);
            summary_run(row, i, v, &n, &mn, &mx);
            summary_run(row + i + 1, P - i - 1, v, &n, &mn, &mx);
        }
    if (n > 0) {
        out->min = mn;
        out->max = mx;
        out->median = lens_cube_median(v, n);
    }
    out->count = (long)n;
    lens_free(v);
    return LENS_OK;
}

/* The asymmetry ratios of lengths k0..k1-1 into v (room for (k1-k0) P(P-1)/2 values), their
 * count into *n and their largest into *mx; shared by the whole-cube and per-length forms so
 * both leave out the same pairs. */
static void asym_ratios(const struct lens_cube *c, int stat, int k0, int k1, double *v, size_t *n,
                        double *mx)
{
    size_t P = (size_t)c->procs;
    *n = 0;
    *mx = 0;
    for (int k = k0; k < k1; k++)
        for (size_t i = 0; i < P; i++)
            for (size_t j = i + 1; j < P; j++) {
                double a = LENS_CUBE_AT(c, stat, k, i, j), b = LENS_CUBE_AT(c, stat, k, j, i);
                /* asym = |a_ij - a_ji| / (a_ij + a_ji) (methods §1) is undefined when both are 0
                 * or one is missing: such pairs are left out, not counted as symmetric. */
                if (!isfinite(a) || !isfinite(b) || a + b <= 0)
                    continue;
                double r = fabs(a - b) / (a + b);
                v[(*n)++] = r;
                *mx = r > *mx ? r : *mx;
            }
}

int lens_cube_asymmetry(const struct lens_cube *c, int stat, double *median, double *max,
                        struct lens_err *e)
{
    *median = *max = NAN;
    if (stat < 0 || stat >= LENS_STAT_COUNT || !c->data[stat])
        return lens_err_set(e, LENS_EINVAL, "%s: statistic '%s' not present",
                            c->source ? c->source : "cube", lens_cube_stat_name(stat));
    size_t P = (size_t)c->procs;
    /* One value per unordered pair and length; + 1 keeps the request non-zero for P = 1. */
    double *v = lens_malloc(((size_t)c->nlen * P * (P - 1) / 2 + 1) * sizeof *v);
    if (!v)
        return lens_err_set(e, LENS_ENOMEM, "cube asymmetry: out of memory");
    lens_cube_huge_pages(v, ((size_t)c->nlen * P * (P - 1) / 2 + 1) * sizeof *v);
    size_t n;
    double mx;
    asym_ratios(c, stat, 0, c->nlen, v, &n, &mx);
    if (n > 0) {
        *median = lens_cube_median(v, n);
        *max = mx;
    }
    lens_free(v);
    return LENS_OK;
}

int lens_cube_asymmetry_length(const struct lens_cube *c, int stat, double *median, double *max,
                               struct lens_err *e)
{
    for (int k = 0; k < c->nlen; k++)
        median[k] = max[k] = NAN;
    if (stat < 0 || stat >= LENS_STAT_COUNT || !c->data[stat])
        return lens_err_set(e, LENS_EINVAL, "%s: statistic '%s' not present",
                            c->source ? c->source : "cube", lens_cube_stat_name(stat));
    size_t P = (size_t)c->procs;
    /* one length's pairs at a time: P(P-1)/2 doubles, not nlen times that */
    double *v = lens_malloc((P * (P - 1) / 2 + 1) * sizeof *v);
    if (!v)
        return lens_err_set(e, LENS_ENOMEM, "cube asymmetry per length: out of memory");
    for (int k = 0; k < c->nlen; k++) {
        size_t n;
        double mx;
        asym_ratios(c, stat, k, k + 1, v, &n, &mx);
        if (n > 0) {
            median[k] = lens_cube_median(v, n);
            max[k] = mx;
        }
    }
    lens_free(v);
    return LENS_OK;
}

/* A diagonal value network_test2 never wrote: uninitialised memory shows up as subnormals
 * (4.6e-310), huge numbers (2.2e6, 1e217), negatives, or non-finite values. */
static int is_garbage(double x)
{
    return !isfinite(x) || x < 0 || (x != 0 && fabs(x) < 1e-100) || x > 3600.0;
}

/* Whether statistic s has an all-zero diagonal: network_test2 zeroes the diagonal of the
 * average and median in modes that do not measure it, so the min's must be zero too. */
static int zero_diagonal(const struct lens_cube *c, int s)
{
    if (!c->data[s])
        return 0;
    for (int k = 0; k < c->nlen; k++)
        for (int i = 0; i < c->procs; i++)
            if (LENS_CUBE_AT(c, s, k, i, i) != 0.0)
                return 0;
    return 1;
}

/* The rule of docs/methods.md §1 ("Uninitialised diagonal"): one garbage element, or any
 * non-zero element when the mode does not measure the diagonal, and the whole diagonal of this
 * statistic is zeroed. Partial repairs would leave a mix no one could interpret. */
static int repair_diagonal(struct lens_cube *c, int s)
{
    size_t P = (size_t)c->procs;
    long bad = 0;
    double example = 0;
    int unmeasured = zero_diagonal(c, LENS_STAT_AVERAGE) || zero_diagonal(c, LENS_STAT_MEDIAN);
    for (int k = 0; k < c->nlen; k++)
        for (size_t i = 0; i < P; i++) {
            double x = LENS_CUBE_AT(c, s, k, i, i);
            if (is_garbage(x) || (unmeasured && x != 0.0)) {
                if (!bad)
                    example = x;
                bad++;
            }
        }
    if (!bad)
        return LENS_OK;
    /* The diagonal is a rank talking to itself, which no mode measures with the network:
     * zero it, as network_test2 does in the other statistics. */
    for (int k = 0; k < c->nlen; k++)
        for (size_t i = 0; i < P; i++)
            LENS_CUBE_AT(c, s, k, i, i) = 0.0;
    char ex[64];
    lens_units_num(example, 3, ex, sizeof ex); /* a denormal reads "4.66×10^-310", not "e-310" */
    return lens_cube_warn(c, "%s: diagonal holds uninitialised values (%ld of %ld, e.g. %s); "
                          "set to 0, the diagonal is not a measurement",
                          lens_cube_stat_name(s), bad, (long)P * c->nlen, ex);
}

/* Bad delays off the diagonal become missing (NaN) one by one; LENS_EDATA when none is left,
 * since every later step would work on nothing. */
static int repair_offdiagonal(struct lens_cube *c, int s)
{
    size_t P = (size_t)c->procs;
    long bad = 0, total = (long)(c->nlen * P * (P - 1));
    /* each row as the two runs beside its diagonal element, so no i != j test per element */
    for (int k = 0; k < c->nlen; k++)
        for (size_t i = 0; i < P; i++) {
            double *row = &LENS_CUBE_AT(c, s, k, i, 0);
            bad += lens_cube_repair_run(row, i) + lens_cube_repair_run(row + i + 1, P - i - 1);
        }
    if (!bad)
        return LENS_OK;
    if (bad == total)
        return LENS_EDATA;
    return lens_cube_warn(c, "%s: %ld of %ld delays are NaN, infinite or negative; treated as "
                          "missing", lens_cube_stat_name(s), bad, total);
}

/* network_test2's send_recv_and_recv_send stores the average as half a round trip but the
 * median and min as a full one. Detect it from the data (median/average near 2) rather than
 * from the mode alone, so files from a fixed collector are left alone. */
static int repair_round_trip(struct lens_cube *c)
{
    double *avg = c->data[LENS_STAT_AVERAGE], *med = c->data[LENS_STAT_MEDIAN];
    /* Only this mode has the defect, and only network_test2's own files: a file written by
     * mpilens was repaired before it was written. */
    if (c->mode != LENS_MODE_SEND_RECV_AND_RECV_SEND || !avg || !med || c->written_by_mpilens)
        return LENS_OK;
    size_t P = (size_t)c->procs, cells = P * P * c->nlen, n = 0;
    /* The ratio median/average per measured pair; its median over the cube decides, so a few odd
     * pairs cannot trigger the halving or prevent it. */
    double *r = lens_malloc(cells * sizeof *r);
    if (!r)
        return LENS_ENOMEM;
    for (size_t x = 0; x < cells; x++) {
        size_t i = (x / P) % P, j = x % P;
        if (i != j && isfinite(avg[x]) && isfinite(med[x]) && avg[x] > 0)
            r[n++] = med[x] / avg[x];
    }
    double ratio = n ? lens_cube_median(r, n) : NAN;
    lens_free(r);
    /* The window (1.6, 2.6) around 2 of docs/methods.md §1: far from 1, the ratio of a
     * consistent file (median and average of one distribution), and wide enough for noise. */
    if (!(ratio > 1.6 && ratio < 2.6))
        return LENS_OK;
    for (size_t x = 0; x < cells; x++) {
        med[x] *= 0.5;
        if (c->data[LENS_STAT_MIN])
            c->data[LENS_STAT_MIN][x] *= 0.5;
    }
    /* The raw repeats are full round trips too, and the median and min were computed from them. */
    if (c->raw)
        for (size_t x = 0; x < cells * (size_t)c->nraw; x++)
            c->raw[x] *= 0.5;
    return lens_cube_warn(c, "send_recv_and_recv_send: median and min hold a full round trip "
                          "but average half of one (median/average = %.2f); median and min "
                          "halved so every statistic is half a round trip", ratio);
}

/* The order matters: the diagonal first (its rule looks at the average and median diagonals as
 * read), then the bad delays, then the round-trip halving, whose ratio must see only usable
 * delays. */
int lens_cube_repair(struct lens_cube *c, struct lens_err *e)
{
    const char *src = c->source ? c->source : "cube";
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (!c->data[s])
            continue;
        int rc = repair_diagonal(c, s);
        if (rc == LENS_OK)
            rc = repair_offdiagonal(c, s);
        if (rc == LENS_EDATA)
            return lens_err_set(e, LENS_EDATA, "%s: %s: no usable delay (every value is NaN, "
                                "infinite or negative)", src, lens_cube_stat_name(s));
        if (rc != LENS_OK)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", src);
    }
    if (repair_round_trip(c) != LENS_OK)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", src);
    return LENS_OK;
}
