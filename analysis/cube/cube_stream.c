/* Reading a cube one P x P matrix at a time (cube.h, "Streaming reader"), for compression and
 * anything else that must not hold P^2 L values. Every matrix equals lens_cube_read's, bit for
 * bit: the per-element repairs of cube.c (off-diagonal NaN, infinite or negative -> NaN) are
 * applied as each matrix is read, and the two that look at the whole cube are decided at open:
 *   - the diagonal: from the diagonals alone (P values per length and statistic), replaying
 *     cube.c's order (a repaired average or median diagonal counts as zero for the next ones);
 *   - the send_recv_and_recv_send round-trip mix: the median of median/average over every
 *     off-diagonal element, found exactly by a radix selection on the bits of the ratios, one
 *     pass over the average and median per 16 bits (old network_test2 files only).
 * Warnings are rebuilt at the end in lens_cube_read's order. tests/test_cube_stream.c checks
 * the equality on the reference files and on cubes with every defect.
 * The stream knows no format: a row of the reader table (cube_readers.h) hands it a
 * lens_cube_source, and the table plans the repairs ("decided at open" above) right after.
 * The same machinery loads the statistics a command asks for (lens_cube_read_stats) and
 * whole cubes of formats without a reader of their own (lens_cube_read_streamed). */
#include "cube_readers.h"
#include "common/units.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct lens_cube_stream {
    struct lens_cube *meta;             /* metadata, data[] NULL; owns the warnings */
    struct lens_cube_source src;        /* the format's open files (cube_readers.h) */
    int procs, nlen;
    const char *name;                   /* meta->source, or "cube": for messages */
    double *scratch;                    /* P x P, for sources without a diagonal reader */
    unsigned mask;                      /* statistics present */
    unsigned planned;                   /* statistics whose repairs are decided: readable */
    int zero_diag[LENS_STAT_COUNT];     /* the diagonal of statistic s is set to 0 */
    char diag_warn[LENS_STAT_COUNT][512]; /* its warning, "" if none */
    int halve;                          /* median and min hold a full round trip: times 0.5 */
    char trip_warn[512];
    long *bad;                          /* [s * L + k]: off-diagonal values repaired, -1 = not read yet */
    int ended;
};

/* cube.c's test for a diagonal value network_test2 never wrote, copied: the two must stay
 * identical, the equality of the two readers depends on it (tests/test_cube_stream.c checks
 * it on every defect). */
static int is_garbage(double x)
{
    return !isfinite(x) || x < 0 || (x != 0 && fabs(x) < 1e-100) || x > 3600.0;
}

/* The repairs of matrix k of statistic s, in place; counts the off-diagonal ones once. halve:
 * also the round-trip correction (off while it is being decided). */
static void repair_matrix(struct lens_cube_stream *st, int s, int k, double *mat, int halve)
{
    size_t P = (size_t)st->procs;
    if (st->zero_diag[s])
        for (size_t i = 0; i < P; i++)
            mat[i * P + i] = 0.0;
    /* Counted into bad[s * L + k] only on the first read of that matrix: a matrix read twice
     * (planning, then use) must not double its count in the warning. */
    long bad = 0;
    for (size_t i = 0; i < P; i++) {
        double *row = mat + i * P;
        /* the row minus its diagonal element, as two runs, so that the loop has no i != j test */
        bad += lens_cube_repair_run(row, i) + lens_cube_repair_run(row + i + 1, P - i - 1);
    }
    long *b = &st->bad[(size_t)s * st->nlen + k];
    if (*b < 0)
        *b = bad;
    /* After the NaN repair, as in cube.c: halving a NaN changes nothing, and the order keeps the
     * two readers bit for bit equal. */
    if (halve && st->halve && (s == LENS_STAT_MEDIAN || s == LENS_STAT_MIN))
        for (size_t x = 0; x < P * P; x++)
            mat[x] *= 0.5;
}

/* Reads matrix k of statistic s with the repairs. */
static int read_repaired(struct lens_cube_stream *st, int s, int k, double *mat, int halve, struct lens_err *e)
{
    int rc = st->src.get(st->src.state, s, k, mat, e);
    if (rc == LENS_OK)
        repair_matrix(st, s, k, mat, halve);
    return rc;
}

/* The P diagonal values of matrix k of statistic s, unrepaired. */
static int read_diagonal(struct lens_cube_stream *st, int s, int k, double *diag, struct lens_err *e)
{
    size_t P = (size_t)st->procs;
    /* a statistic being loaded whole (load_stats) is in memory, unrepaired: no second read */
    const double *held = st->meta->data[s];
    if (held) {
        for (size_t i = 0; i < P; i++)
            diag[i] = held[((size_t)k * P + i) * P + i];
        return LENS_OK;
    }
    /* A source with a diagonal reader (the NetCDF files) reads P values; others decode the whole
     * matrix into scratch and keep its diagonal. */
    if (st->src.diagonal)
        return st->src.diagonal(st->src.state, s, k, diag, e);
    if (!st->scratch && !(st->scratch = lens_malloc(P * P * sizeof *st->scratch)))
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", st->name);
    int rc = st->src.get(st->src.state, s, k, st->scratch, e);
    for (size_t i = 0; i < P && rc == LENS_OK; i++)
        diag[i] = st->scratch[i * P + i];
    return rc;
}

/* Replays cube.c's repair_diagonal over the statistics in order. */
static int plan_diagonal(struct lens_cube_stream *st, unsigned need, struct lens_err *e)
{
    int P = st->procs, L = st->nlen;
    /* Per statistic the two counts repair_diagonal could use, and the first example of each:
     * which one applies is known only after the average and median diagonals are seen. */
    long garbage[LENS_STAT_COUNT] = {0}, nonzero[LENS_STAT_COUNT] = {0};
    double gex[LENS_STAT_COUNT] = {0}, nzex[LENS_STAT_COUNT] = {0};
    double *diag = lens_malloc((size_t)P * sizeof *diag);
    if (!diag)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", st->name);
    int rc = LENS_OK;
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++)
        for (int k = 0; k < L && rc == LENS_OK && (need >> s & 1); k++) {
            rc = read_diagonal(st, s, k, diag, e);
            for (int i = 0; i < P && rc == LENS_OK; i++) {
                double x = diag[i];
                if (is_garbage(x) && !garbage[s]++)
                    gex[s] = x;
                if (x != 0.0 && !nonzero[s]++)
                    nzex[s] = x;
            }
        }
    lens_free(diag);
    if (rc != LENS_OK)
        return rc;
    /* zero_diagonal() of cube.c: present and every diagonal value exactly 0 */
    int zero[2];
    for (int s = 0; s < 2; s++)
        zero[s] = (st->mask >> s & 1) && nonzero[s] == 0;
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (!(need >> s & 1))
            continue;
        /* with an unmeasured diagonal every non-zero value is bad (garbage is never zero) */
        int unmeasured = zero[LENS_STAT_AVERAGE] || zero[LENS_STAT_MEDIAN];
        long bad = unmeasured ? nonzero[s] : garbage[s];
        double example = unmeasured ? nzex[s] : gex[s];
        if (!bad)
            continue;
        st->zero_diag[s] = 1;
        /* A zeroed average or median diagonal is all zero from now on: cube.c tests the
         * statistics after it on the repaired values, so the replay must too. */
        if (s < 2)
            zero[s] = 1;
        char ex[64];
        lens_units_num(example, 3, ex, sizeof ex); /* the same words as cube.c */
        snprintf(st->diag_warn[s], sizeof st->diag_warn[s],
                 "%s: diagonal holds uninitialised values (%ld of %ld, e.g. %s); set to 0, the diagonal "
                 "is not a measurement", lens_cube_stat_name(s), bad, (long)P * L, ex);
    }
    return LENS_OK;
}

/* lens_cube_order_key back to the double. */
static double unkey(uint64_t k)
{
    /* The inverse of the key: a set top bit was a positive double (clear it), a clear one a
     * negative double (flip every bit back). */
    uint64_t b = k >> 63 ? k & 0x7FFFFFFFFFFFFFFFULL : ~k;
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* One pass over every off-diagonal ratio median/average of cube.c's repair_round_trip (both
 * finite, average > 0, after the per-element repairs): counts, into hist[65536], the ratios
 * whose key agrees with prefix above bit shift + 16, by their 16 bits at shift. n: all ratios. */
static int ratio_pass(struct lens_cube_stream *st, double *avg, double *med, uint64_t prefix, int shift,
                      size_t *hist, size_t *n, struct lens_err *e)
{
    size_t P = (size_t)st->procs;
    memset(hist, 0, 65536 * sizeof *hist);
    *n = 0;
    for (int k = 0; k < st->nlen; k++) {
        int rc = read_repaired(st, LENS_STAT_AVERAGE, k, avg, 0, e);
        if (rc == LENS_OK)
            rc = read_repaired(st, LENS_STAT_MEDIAN, k, med, 0, e);
        if (rc != LENS_OK)
            return rc;
        /* The filter of cube.c's repair_round_trip: off the diagonal, both finite, average > 0. */
        for (size_t x = 0; x < P * P; x++) {
            if (x / P == x % P || !isfinite(avg[x]) || !isfinite(med[x]) || !(avg[x] > 0))
                continue;
            uint64_t kk = lens_cube_order_key(med[x] / avg[x]);
            (*n)++;
            /* Only ratios that share the digits already chosen above this pass count; at the top
             * pass (shift 48) there is nothing above. */
            if (shift < 48 && (kk >> (shift + 16)) != (prefix >> (shift + 16)))
                continue;
            hist[(kk >> shift) & 0xFFFF]++;
        }
    }
    return LENS_OK;
}

/* The rank-th smallest ratio (0-based), 16 bits per pass from the top. */
static int ratio_select(struct lens_cube_stream *st, double *avg, double *med, size_t *hist, size_t rank,
                        double *out, struct lens_err *e)
{
    /* Four passes of 16 bits pick the key of the rank-th ratio digit by digit, each pass reading
     * the average and median once: memory stays O(P^2) however many lengths there are. */
    uint64_t prefix = 0;
    for (int shift = 48; shift >= 0; shift -= 16) {
        size_t n;
        int rc = ratio_pass(st, avg, med, prefix, shift, hist, &n, e);
        if (rc != LENS_OK)
            return rc;
        uint64_t d = 0;
        /* rank becomes the rank within the chosen bucket for the next pass. */
        while (d < 65535 && rank >= hist[d])
            rank -= hist[d++];
        prefix |= d << shift;
    }
    *out = unkey(prefix);
    return LENS_OK;
}

/* cube.c's repair_round_trip: decides whether median and min are halved. */
static int plan_round_trip(struct lens_cube_stream *st, struct lens_err *e)
{
    const struct lens_cube *c = st->meta;
    unsigned both = 1u << LENS_STAT_AVERAGE | 1u << LENS_STAT_MEDIAN;
    if (c->mode != LENS_MODE_SEND_RECV_AND_RECV_SEND || (st->mask & both) != both || c->written_by_mpilens)
        return LENS_OK;
    size_t P2 = (size_t)c->procs * c->procs, n;
    double *avg = lens_malloc(P2 * sizeof *avg), *med = lens_malloc(P2 * sizeof *med);
    size_t *hist = lens_malloc(65536 * sizeof *hist);
    int rc = avg && med && hist ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", st->name);
    double ratio = NAN, lo, hi;
    if (rc == LENS_OK)
        rc = ratio_pass(st, avg, med, 0, 48, hist, &n, e);
    /* The first pass counted the ratios (n), which fixes the middle ranks; each rank is then
     * selected from the top digit again. */
    if (rc == LENS_OK && n > 0) {
        /* lens_cube_median: the middle value, or the mean of the two middle values */
        rc = ratio_select(st, avg, med, hist, n / 2, &hi, e);
        if (rc == LENS_OK && n % 2 == 0)
            rc = ratio_select(st, avg, med, hist, n / 2 - 1, &lo, e);
        if (rc == LENS_OK)
            ratio = n % 2 ? hi : 0.5 * (lo + hi);
    }
    lens_free(avg);
    lens_free(med);
    lens_free(hist);
    if (rc != LENS_OK || !(ratio > 1.6 && ratio < 2.6))
        return rc;
    st->halve = 1;
    snprintf(st->trip_warn, sizeof st->trip_warn,
             "send_recv_and_recv_send: median and min hold a full round trip but average half of one "
             "(median/average = %.2f); median and min halved so every statistic is half a round trip", ratio);
    return LENS_OK;
}

int lens_cube_stream_new(struct lens_cube *meta, unsigned mask, const struct lens_cube_source *src,
                         struct lens_cube_stream **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_cube_stream *st = lens_calloc(1, sizeof *st);
    if (!st) {
        int rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", meta->source ? meta->source : "cube");
        if (src->close)
            src->close(src->state);
        lens_cube_free(meta);
        return rc;
    }
    st->meta = meta;
    st->src = *src;
    st->mask = mask;
    st->procs = meta->procs;
    st->nlen = meta->nlen;
    st->name = meta->source ? meta->source : "cube";
    size_t nb = (size_t)LENS_STAT_COUNT * st->nlen;
    int rc = LENS_OK;
    if (!(st->bad = lens_malloc(nb * sizeof *st->bad)))
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", st->name);
    for (size_t x = 0; x < nb && rc == LENS_OK; x++)
        st->bad[x] = -1;
    if (rc != LENS_OK) {
        lens_cube_stream_close(st);
        return rc;
    }
    *out = st;
    return LENS_OK;
}

int lens_cube_stream_plan(struct lens_cube_stream *st, unsigned want, struct lens_err *e)
{
    want &= st->mask;
    /* a statistic's diagonal repair also looks at whether the average and median diagonals
     * are zero (cube.c's order), so those two are read whatever is wanted */
    unsigned need = want | (st->mask & (1u << LENS_STAT_AVERAGE | 1u << LENS_STAT_MEDIAN));
    int rc = plan_diagonal(st, want ? need : 0, e);
    /* halving touches median and min only */
    if (rc == LENS_OK && (want & (1u << LENS_STAT_MEDIAN | 1u << LENS_STAT_MIN)))
        rc = plan_round_trip(st, e);
    if (rc == LENS_OK)
        st->planned = want;
    return rc;
}

const struct lens_cube *lens_cube_stream_meta(const struct lens_cube_stream *st) { return st->meta; }

unsigned lens_cube_stream_stats(const struct lens_cube_stream *st) { return st->mask; }

void lens_cube_stream_set_format(struct lens_cube_stream *st, const char *format) { st->meta->format = format; }

/* A statistic must be planned before it is read: its diagonal and round-trip decisions are made
 * at the plan, and reading it earlier would give unrepaired values. */
int lens_cube_stream_read(struct lens_cube_stream *st, int stat, int k, double *mat, struct lens_err *e)
{
    if (stat < 0 || stat >= LENS_STAT_COUNT || !(st->planned >> stat & 1) || k < 0 || k >= st->nlen)
        return lens_err_set(e, LENS_EINVAL, "%s: no statistic '%s' at length index %d (%d lengths)",
                            st->name, lens_cube_stat_name(stat), k, st->nlen);
    return read_repaired(st, stat, k, mat, 1, e);
}

/* lens_cube_stream_end over the statistics of mask only: a reader that loads only some
 * statistics neither reads nor judges the others. */
static int stream_end(struct lens_cube_stream *st, unsigned mask, struct lens_err *e)
{
    if (st->ended)
        return LENS_OK;
    mask &= st->planned;
    int P = st->procs, L = st->nlen;
    /* Matrices the caller never read are read now (and thrown away) so that the counts of bad
     * delays, and with them the warnings and the LENS_EDATA test, are those of lens_cube_read. */
    double *scratch = NULL;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        for (int k = 0; k < L && (mask >> s & 1); k++) {
            if (st->bad[(size_t)s * L + k] >= 0)
                continue;
            if (!scratch && !(scratch = lens_malloc((size_t)P * P * sizeof *scratch)))
                return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", st->name);
            int rc = read_repaired(st, s, k, scratch, 0, e);
            if (rc != LENS_OK) {
                lens_free(scratch);
                return rc;
            }
        }
    lens_free(scratch);
    struct lens_cube *c = st->meta;
    const char *src = c->source ? c->source : "cube";
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (!(mask >> s & 1))
            continue;
        long bad = 0, total = (long)P * (P - 1) * L;
        for (int k = 0; k < L; k++)
            bad += st->bad[(size_t)s * L + k];
        if (bad && bad == total)
            return lens_err_set(e, LENS_EDATA, "%s: %s: no usable delay (every value is NaN, infinite or "
                                "negative)", src, lens_cube_stat_name(s));
        int rc = LENS_OK;
        if (st->diag_warn[s][0])
            rc = lens_cube_warn(c, "%s", st->diag_warn[s]);
        if (rc == LENS_OK && bad)
            rc = lens_cube_warn(c, "%s: %ld of %ld delays are NaN, infinite or negative; treated as missing",
                                lens_cube_stat_name(s), bad, total);
        if (rc != LENS_OK)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", src);
    }
    /* The round-trip warning comes last, as repair_round_trip runs last in lens_cube_repair. */
    if (st->trip_warn[0] && lens_cube_warn(c, "%s", st->trip_warn) != LENS_OK)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", src);
    st->ended = 1;
    return LENS_OK;
}

int lens_cube_stream_end(struct lens_cube_stream *st, struct lens_err *e) { return stream_end(st, st->mask, e); }

/* Reads the matrices of the statistics in mask into st->meta, all lengths each, as the source
 * gives them (no repair yet). */
static int load_matrices(struct lens_cube_stream *st, unsigned mask, struct lens_err *e)
{
    struct lens_cube *c = st->meta;
    size_t P2 = (size_t)st->procs * st->procs;
    int rc = LENS_OK;
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
        if (!(mask >> s & 1))
            continue;
        if (!(c->data[s] = lens_malloc(P2 * st->nlen * sizeof(double))))
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %zu values", st->name, P2 * st->nlen);
        else
            lens_cube_huge_pages(c->data[s], P2 * st->nlen * sizeof(double));
        for (int k = 0; k < st->nlen && rc == LENS_OK; k++)
            rc = st->src.get(st->src.state, s, k, c->data[s] + (size_t)k * P2, e);
    }
    return rc;
}

/* Moves the statistics of mask into the stream's metadata, repaired, and hands it out: the
 * matrices go straight into the cube, so nothing is held twice, and are repaired in place once
 * the plan (which takes their diagonals from memory) is made. */
static int load_stats(struct lens_cube_stream *st, unsigned mask, struct lens_cube **out, struct lens_err *e)
{
    struct lens_cube *c = st->meta;
    size_t P2 = (size_t)st->procs * st->procs;
    mask &= st->mask;
    int rc = load_matrices(st, mask, e);
    /* only the diagonals the wanted statistics' repairs depend on are read */
    if (rc == LENS_OK)
        rc = lens_cube_stream_plan(st, mask, e);
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++)
        for (int k = 0; k < st->nlen && (mask >> s & 1); k++)
            repair_matrix(st, s, k, c->data[s] + (size_t)k * P2, 1);
    if (rc == LENS_OK)
        rc = stream_end(st, mask, e);
    if (rc != LENS_OK)
        return rc;
    *out = c;
    st->meta = NULL;
    return LENS_OK;
}

/* Every statistic: the matrices as the source gives them, then cube.c's repairs over the
 * whole cube, exactly lens_cube_read's order and warnings, without the diagonal passes a
 * stream needs when it never holds the cube. */
static int load_whole(struct lens_cube_stream *st, struct lens_cube **out, struct lens_err *e)
{
    struct lens_cube *c = st->meta;
    int rc = load_matrices(st, st->mask, e);
    if (rc == LENS_OK)
        rc = lens_cube_repair(c, e);
    if (rc != LENS_OK)
        return rc;
    *out = c;
    st->meta = NULL;
    return LENS_OK;
}

int lens_cube_read_streamed(const struct lens_cube_reader *row, const char *input, struct lens_cube **out,
                            struct lens_err *e)
{
    *out = NULL;
    struct lens_cube_stream *st;
    int rc = row->stream_open(input, &st, e);
    if (rc != LENS_OK)
        return rc;
    rc = load_whole(st, out, e);
    lens_cube_stream_close(st);
    return rc;
}

int lens_cube_read_stats(const char *input, unsigned mask, struct lens_cube **out, struct lens_err *e)
{
    *out = NULL;
    const struct lens_cube_reader *row = lens_cube_readers_find(input);
    /* everything: the row's own reader, which also loads the raw repeats */
    if (mask == LENS_CUBE_ALL && row->read) {
        int rc = row->read(input, out, e);
        if (rc == LENS_OK)
            (*out)->format = row->name;
        return rc;
    }
    struct lens_cube_stream *st;
    int rc = row->stream_open(input, &st, e);
    if (rc != LENS_OK)
        return rc;
    st->meta->format = row->name;
    if ((mask & 15u) == 15u) /* every statistic, no raw repeats: held whole, repaired whole */
        rc = load_whole(st, out, e);
    else
        rc = load_stats(st, mask, out, e);
    lens_cube_stream_close(st);
    return rc;
}

void lens_cube_stream_close(struct lens_cube_stream *st)
{
    if (!st)
        return;
    if (st->src.close)
        st->src.close(st->src.state);
    lens_cube_free(st->meta);
    lens_free(st->scratch);
    lens_free(st->bad);
    lens_free(st);
}
