/* Message-size profile (docs/methods.md §5.2): distinct sizes kept sorted with their counts, grouped
 * into bins on demand, so one read of a trace can be rebinned and given a time model. */
#include "msgsize.h"

#include "common/json.h"
#include "common/textline.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Why these edges: msgsize.h. They are lower edges, so bin k is [edge k, edge k+1 - 1] and the
 * last bin is open; the 0 edge gives empty messages (a zero-byte Send is a pure
 * synchronisation) a bin of their own. */
const uint64_t lens_msgsize_default_edges[] = {0, 1, 64, 1024, 4096, 65536, 1048576};
const size_t lens_msgsize_default_nedges =
    sizeof lens_msgsize_default_edges / sizeof lens_msgsize_default_edges[0];

/* The model total starts as NaN, not 0: "no model yet" must stay distinguishable from "the
 * model says these messages cost nothing" in the text, JSON and CSV outputs. */
int lens_msgsize_new(struct lens_msgsize **out, struct lens_err *e)
{
    *out = lens_calloc(1, sizeof **out);
    if (!*out)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for the message-size profile");
    (*out)->total_model_s = NAN;
    return LENS_OK;
}

void lens_msgsize_free(struct lens_msgsize *m)
{
    if (!m)
        return;
    lens_free(m->sizes);
    lens_free(m->bins);
    lens_free(m);
}

/* Drops the bins: they no longer describe the sizes. */
/* Every mutation of the sizes goes through here first, so a profile never holds bins whose
 * counts disagree with its sizes (lens_msgsize_bin must run again before output). */
static void unbin(struct lens_msgsize *m)
{
    lens_free(m->bins);
    m->bins = NULL;
    m->nbins = 0;
    m->total_model_s = NAN;
}

int lens_msgsize_add(struct lens_msgsize *m, uint64_t bytes, uint64_t count, double call_s,
                     struct lens_err *e)
{
    /* Written as !(x >= 0) so that NaN is refused too: a NaN time would silently poison every
     * share of the profile. */
    if (!(call_s >= 0.0) || isinf(call_s))
        return lens_err_set(e, LENS_EDATA, "message of %" PRIu64 " bytes: call time %g s is not a "
                            "finite non-negative number", bytes, call_s);
    /* Zero messages add nothing, and must not create a size with count 0 (sizes hold sent
     * sizes). */
    if (count == 0)
        return LENS_OK;
    unbin(m);
    /* binary search: first size >= bytes */
    /* The sizes stay sorted and distinct (the invariant binning relies on): find the insertion
     * point of bytes, then either bump the existing entry or open a new one there. */
    size_t lo = 0, hi = m->nsizes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->sizes[mid].bytes < bytes)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == m->nsizes || m->sizes[lo].bytes != bytes) {
        if (lens_reserve((void **)&m->sizes, &m->cap_sizes, m->nsizes + 1, sizeof *m->sizes))
            return lens_err_set(e, LENS_ENOMEM, "out of memory for %zu message sizes",
                                m->nsizes + 1);
        /* Insertion is O(distinct sizes), not O(messages): applications send few distinct sizes
         * (a handful of halo and reduction lengths), so the sorted array beats a hash here. */
        memmove(m->sizes + lo + 1, m->sizes + lo, (m->nsizes - lo) * sizeof *m->sizes);
        m->sizes[lo] = (struct lens_msgsize_size){bytes, 0, 0.0};
        m->nsizes++;
    }
    m->sizes[lo].count += count;
    m->sizes[lo].call_s += call_s;
    m->total_messages += count;
    /* Wraps only beyond 16 EiB of traffic, far outside any trace that fits on a disk. */
    m->total_bytes += bytes * count;
    m->total_call_s += call_s;
    return LENS_OK;
}

/* Walks every call of every rank once. Only point-to-point sends count as messages: each
 * message is counted on its sender, so a matched pair is not counted twice and a send whose
 * receive is missing from the trace still counts (the application did send it). */
int lens_msgsize_add_trace(struct lens_msgsize *m, const struct lens_trace *t,
                           struct lens_err *e)
{
    m->nranks = t->nranks;
    for (int r = 0; r < t->nranks; r++) {
        const struct lens_trace_rank *rk = &t->ranks[r];
        for (uint32_t c = 0; c < rk->ncalls; c++) {
            const struct lens_trace_call *call = &rk->calls[c];
            /* Count the sends of this call first: the call's time is divided between them
             * below. */
            uint32_t nsend = 0;
            for (uint32_t k = 0; k < call->nrec; k++) {
                uint8_t kind = rk->recs[call->rec + k].kind;
                nsend += kind == LENS_TREC_SEND || kind == LENS_TREC_ISEND;
            }
            /* the call's time is shared by the sends it issued (Sendrecv: one) */
            double dur = call->leave - call->enter;
            /* A call with a non-finite or negative duration (a truncated trace) adds no time
             * rather than failing the whole profile: lens_msgsize_add would refuse it. */
            double share = nsend && dur > 0.0 && isfinite(dur) ? dur / nsend : 0.0;
            for (uint32_t k = 0; k < call->nrec; k++) {
                const struct lens_trace_record *rec = &rk->recs[call->rec + k];
                switch (rec->kind) {
                case LENS_TREC_SEND:
                case LENS_TREC_ISEND: {
                    int rc = lens_msgsize_add(m, rec->bytes, 1, share, e);
                    if (rc)
                        return rc;
                    break;
                }
                /* Collectives and one-sided transfers are kept aside, not binned: the report
                 * says what the profile left out instead of mixing other traffic into the
                 * message counts. */
                case LENS_TREC_COLL_END:
                    m->coll_calls++;
                    m->coll_bytes += rec->bytes;
                    break;
                case LENS_TREC_RMA_PUT:
                case LENS_TREC_RMA_GET:
                    m->rma_ops++;
                    m->rma_bytes += rec->bytes;
                    break;
                default:
                    break;
                }
            }
        }
    }
    return LENS_OK;
}

/* The profile keeps no pointer into the trace, so the trace is freed as soon as it is counted. */
int lens_msgsize_read(const char *path, struct lens_msgsize **out, struct lens_err *e)
{
    struct lens_trace *t = NULL;
    *out = NULL;
    int rc = lens_trace_read(path, &t, e);
    if (rc)
        return rc;
    struct lens_msgsize *m = NULL;
    rc = lens_msgsize_new(&m, e);
    if (rc == LENS_OK)
        rc = lens_msgsize_add_trace(m, t, e);
    lens_trace_free(t);
    if (rc) {
        lens_msgsize_free(m);
        return rc;
    }
    *out = m;
    return LENS_OK;
}

int lens_msgsize_is_profile(const char *path)
{
    struct stat st;
    size_t n = strlen(path);
    /* A trace is a folder or its .otf2 anchor; anything else that is a plain file is taken as a
     * profile, so `mpilens msgsizes sizes.txt` needs no extra option. */
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
           !(n >= 5 && !strcmp(path + n - 5, ".otf2"));
}

/* A whole decimal number starting at *p (digits only: no sign, no blank, no suffix, so "-1"
 * cannot wrap and "1e3" or "4k" is refused rather than half read). Advances *p past it.
 * 0 ok, 1 not a number, 2 beyond 2^64 - 1. */
static int whole_number(const char **p, uint64_t *v)
{
    const char *s = *p;
    if (!isdigit((unsigned char)*s))
        return 1;
    uint64_t x = 0;
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        /* x * 10 + d <= UINT64_MAX, tested without overflowing: strtoull's ERANGE would need
         * errno juggling and accepts the sign we refuse */
        if (x > (UINT64_MAX - d) / 10)
            return 2;
        x = x * 10 + d;
    }
    *v = x;
    *p = s;
    return 0;
}

static const char *skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* One line of a profile: sets *has to 1 and fills count and size for a pair, 0 for a blank or
 * comment line. The line ends at '#', '\n' or "\r\n" (files written on Windows). */
static int profile_line(const char *path, long line, const char *s, int *has, uint64_t *count,
                        uint64_t *size, struct lens_err *e)
{
    *has = 0;
    /* leading blanks allowed: profilers right-align their count column */
    s = skip_blanks(s);
    if (!*s || *s == '#' || *s == '\n' || (*s == '\r' && s[1] == '\n'))
        return LENS_OK;
    int bad = whole_number(&s, count);
    if (bad)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: %s", path, line, bad == 2 ?
                            "count is larger than 2^64 - 1" : "expected 'COUNT : SIZE' (whole "
                            "numbers of messages and bytes)");
    s = skip_blanks(s);
    if (*s != ':')
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: expected ':' after the count, 'COUNT : "
                            "SIZE'", path, line);
    s = skip_blanks(s + 1);
    bad = whole_number(&s, size);
    if (bad)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: %s", path, line, bad == 2 ?
                            "size is larger than 2^64 - 1 bytes" : "size after ':' is not a whole "
                            "number of bytes");
    s = skip_blanks(s);
    /* a lone \r before the newline is a CRLF file, not data */
    if (*s == '\r')
        s++;
    /* anything else after the size (a unit, a third field) is refused: it may change meaning */
    if (*s && *s != '\n' && *s != '#')
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: unexpected text after the size: '%.20s'",
                            path, line, s);
    *has = 1;
    return LENS_OK;
}

/* The file is read whole before the profile is returned: on any error the caller gets no
 * profile, so no output is ever made from a half-read file. */
int lens_msgsize_read_profile(const char *path, struct lens_msgsize **out, struct lens_err *e)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: %s", path, strerror(errno));
    struct lens_msgsize *m = NULL;
    int rc = lens_msgsize_new(&m, e);
    struct lens_textline l = {0};
    long line = 0;
    uint64_t pairs = 0;
    while (rc == LENS_OK) {
        int got = lens_textline_read(fp, &l, LENS_TEXTLINE_MAX);
        if (got == LENS_TEXTLINE_EOF)
            break;
        line++;
        if (got != LENS_TEXTLINE_OK) {
            rc = lens_textline_fail(got, path, line, 0, LENS_TEXTLINE_MAX, e);
            break;
        }
        /* a NUL inside is caught by the reader; strings below stop at the line's end */
        int has;
        uint64_t count, size;
        rc = profile_line(path, line, l.s, &has, &count, &size, e);
        if (rc || !has)
            continue;
        /* The byte total must stay exact: a wrapped total would give silently wrong volume
         * shares, so a profile beyond 2^64 - 1 bytes is refused with its line. */
        if (size && (count > (UINT64_MAX - m->total_bytes) / size)) {
            rc = lens_err_set(e, LENS_EDATA, "%s:%ld: total volume exceeds 2^64 - 1 bytes", path,
                              line);
            break;
        }
        if (count > UINT64_MAX - m->total_messages) {
            rc = lens_err_set(e, LENS_EDATA, "%s:%ld: total messages exceed 2^64 - 1", path,
                              line);
            break;
        }
        /* no call time: a profile file records none (from_profile makes the outputs say so) */
        rc = lens_msgsize_add(m, size, count, 0.0, e);
        /* counted even for count 0: a file of zero-count lines is a valid, empty profile */
        pairs++;
    }
    lens_textline_release(&l);
    fclose(fp);
    /* An empty profile is most likely the wrong file; refusing it beats an all-zero table. */
    if (rc == LENS_OK && pairs == 0)
        rc = lens_err_set(e, LENS_EDATA, "%s: no 'COUNT : SIZE' line", path);
    if (rc) {
        lens_msgsize_free(m);
        return rc;
    }
    m->from_profile = 1;
    *out = m;
    return LENS_OK;
}

/* One edge of a --bins list: digits with an optional k/K/M/G (powers of 1024). */
/* The item is copied out because s is not NUL-terminated at the comma; 64 bytes hold any 64-bit
 * number with a suffix, longer items are refused rather than truncated. */
static int parse_edge(const char *s, size_t len, uint64_t *v, struct lens_err *e)
{
    char item[64];
    if (len == 0)
        return lens_err_set(e, LENS_EINVAL, "--bins: empty item in the list");
    if (len >= sizeof item)
        return lens_err_set(e, LENS_EINVAL, "--bins: item '%.20s...' is too long", s);
    memcpy(item, s, len);
    item[len] = 0;
    /* strtoull would accept leading blanks, a sign or "-1" (wrapping to a huge value): refuse
     * anything that does not start with a digit before calling it. */
    if (!isdigit((unsigned char)item[0]))
        return lens_err_set(e, LENS_EINVAL, "--bins: '%s' is not a non-negative integer", item);
    char *end;
    errno = 0;
    /* Base 10 only: "0x40" is refused by the suffix check below, and "010" is ten, not the
     * octal eight a C reader might expect. */
    unsigned long long x = strtoull(item, &end, 10);
    unsigned shift = 0;
    /* One suffix letter at most, and only as the last character ("64kB" is refused). */
    if (*end && !end[1]) {
        switch (*end) {
        case 'k': case 'K': shift = 10; end++; break;
        case 'm': case 'M': shift = 20; end++; break;
        case 'g': case 'G': shift = 30; end++; break;
        default: break;
        }
    }
    if (*end)
        return lens_err_set(e, LENS_EINVAL, "--bins: '%s' is not a size (digits and an optional "
                            "k, M or G)", item);
    /* The shift must not overflow, and UINT64_MAX is reserved as LENS_MSGSIZE_OPEN, the "no
     * upper bound" marker, so it cannot be an edge either. */
    if (errno == ERANGE || (shift && x > (UINT64_MAX >> shift)) || (x << shift) == UINT64_MAX)
        return lens_err_set(e, LENS_EINVAL, "--bins: '%s' is too large", item);
    *v = (uint64_t)x << shift;
    return LENS_OK;
}

/* The --bins option: "pow2" or a comma-separated list of increasing sizes (k, M, G suffixes).
 * The edges are allocated for the caller, who frees them after lens_msgsize_bin. */
int lens_msgsize_parse_bins(const char *spec, uint64_t **edges, size_t *n, int *drop_empty,
                            struct lens_err *e)
{
    *edges = NULL;
    *n = 0;
    *drop_empty = 0;
    /* "pow2": 0 and every power of two up to 2^62 (64 edges), with empty bins dropped, so the
     * table shows only the octaves the application used. */
    if (!strcmp(spec, "pow2")) {
        uint64_t *v = lens_malloc(64 * sizeof *v);
        if (!v)
            return lens_err_set(e, LENS_ENOMEM, "--bins: out of memory");
        v[0] = 0;
        /* 0 and 2^0 .. 2^62 fill the 64 edges; the last bin, open above 2^62, holds anything
         * larger. */
        for (int k = 0; k <= 62; k++)
            v[k + 1] = (uint64_t)1 << k;
        *edges = v;
        *n = 64;
        *drop_empty = 1;
        return LENS_OK;
    }
    /* One edge per comma-separated item, plus room for the 0 edge added in front when the list
     * does not start with it (bins always start at 0 bytes). */
    size_t items = 1;
    for (const char *p = spec; *p; p++)
        items += *p == ',';
    uint64_t *v = lens_malloc((items + 1) * sizeof *v);
    if (!v)
        return lens_err_set(e, LENS_ENOMEM, "--bins: out of memory for %zu edges", items);
    size_t k = 0;
    v[k++] = 0; /* overwritten when the list starts at 0 */
    const char *p = spec;
    for (int first = 1;; first = 0) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        uint64_t x = 0;
        int rc = parse_edge(p, len, &x, e);
        /* Increasing edges are checked here with the item in the message; lens_msgsize_bin
         * checks again for callers that build edges themselves. */
        if (rc == LENS_OK && !first && x <= v[k - 1])
            rc = lens_err_set(e, LENS_EINVAL, "--bins: edges must increase, but %" PRIu64
                              " follows %" PRIu64, x, v[k - 1]);
        if (rc) {
            lens_free(v);
            return rc;
        }
        if (first && x == 0)
            k = 0; /* the list gives the 0 edge itself */
        v[k++] = x;
        if (!comma)
            break;
        p = comma + 1;
    }
    *edges = v;
    *n = k;
    return LENS_OK;
}

/* Bins are rebuilt from the sizes on every call, so one read of a trace can be binned several
 * ways (--bins) without reading it again. */
int lens_msgsize_bin(struct lens_msgsize *m, const uint64_t *edges, size_t n, int drop_empty,
                     struct lens_err *e)
{
    if (!edges) {
        edges = lens_msgsize_default_edges;
        n = lens_msgsize_default_nedges;
    }
    /* Edges starting at 0 guarantee that every size falls in some bin: the walk below never
     * runs past the last bin, which is open-ended. */
    if (n == 0 || edges[0] != 0)
        return lens_err_set(e, LENS_EINVAL, "message-size bins must start at 0 bytes");
    for (size_t k = 1; k < n; k++)
        if (edges[k] <= edges[k - 1])
            return lens_err_set(e, LENS_EINVAL, "message-size bin edges must increase (edge %zu: "
                                "%" PRIu64 " after %" PRIu64 ")", k, edges[k], edges[k - 1]);
    struct lens_msgsize_bin *b = lens_calloc(n, sizeof *b);
    if (!b)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for %zu message-size bins", n);
    for (size_t k = 0; k < n; k++) {
        b[k].lo = edges[k];
        /* hi is inclusive (edges[k + 1] - 1): a message of exactly an edge's size opens the
         * next bin, so "64 B" counts in 64-1023, the cache-line bin, not in 1-63. */
        b[k].hi = k + 1 < n ? edges[k + 1] - 1 : LENS_MSGSIZE_OPEN;
        /* NaN until lens_msgsize_model runs: the outputs print "-" or null, never a false 0 %. */
        b[k].model_s = NAN;
        b[k].share_time = NAN;
    }
    size_t k = 0;
    for (size_t i = 0; i < m->nsizes; i++) { /* sizes ascend: walk the bins along */
        const struct lens_msgsize_size *s = &m->sizes[i];
        while (s->bytes > b[k].hi)
            k++;
        b[k].count += s->count;
        b[k].bytes += s->bytes * s->count;
        b[k].call_s += s->call_s;
    }
    /* Compacting in place is safe: kept <= k, so a bin is copied only over one already read. */
    size_t kept = 0;
    for (k = 0; k < n; k++) {
        if (drop_empty && b[k].count == 0)
            continue;
        struct lens_msgsize_bin *d = &b[kept++];
        *d = b[k];
        /* Shares of an empty total are 0 (msgsize.h), so an empty trace prints zeros, not NaN. */
        d->share_messages = m->total_messages ? (double)d->count / (double)m->total_messages : 0;
        d->share_volume = m->total_bytes ? (double)d->bytes / (double)m->total_bytes : 0;
        /* A profile file records no call time: NaN prints "-"/null, never a false 0 %. */
        d->share_call_time = m->from_profile ? NAN
                             : m->total_call_s > 0 ? d->call_s / m->total_call_s : 0;
    }
    lens_free(m->bins);
    m->bins = b;
    m->nbins = kept;
    m->total_model_s = NAN;
    return LENS_OK;
}

/* The model is evaluated per distinct size, not per bin: a bin's modelled time is the sum of
 * t(size) x count over its sizes, which is exact where t(midpoint) x count would not be. */
int lens_msgsize_model(struct lens_msgsize *m, lens_msgsize_time_fn time, void *ctx,
                       struct lens_err *e)
{
    /* Modelling needs the bins it fills; an empty profile has nothing to model and is allowed. */
    if (!m->bins && m->nsizes)
        return lens_err_set(e, LENS_EINVAL, "message-size profile: model before binning");
    for (size_t k = 0; k < m->nbins; k++)
        m->bins[k].model_s = 0.0;
    double total = 0.0;
    size_t k = 0;
    for (size_t i = 0; i < m->nsizes; i++) {
        const struct lens_msgsize_size *s = &m->sizes[i];
        double t;
        int rc = time(ctx, s->bytes, &t, e);
        if (rc)
            return rc;
        /* A model from a p2p sweep may extrapolate badly; a negative, NaN or infinite time is
         * an error naming the size, not a silent wrong share. */
        if (!(t >= 0.0) || isinf(t))
            return lens_err_set(e, LENS_EDATA, "time model: %g s to send %" PRIu64 " bytes is "
                                "not a finite non-negative time", t, s->bytes);
        double add = t * (double)s->count;
        total += add;
        /* Sizes and bins both ascend, so one forward walk maps sizes to bins. Bins dropped as
         * empty held no size, so every size lands in a kept bin; the lo test only guards a
         * profile whose bins were edited by hand. */
        while (k < m->nbins && s->bytes > m->bins[k].hi)
            k++;
        if (k < m->nbins && s->bytes >= m->bins[k].lo)
            m->bins[k].model_s += add;
    }
    for (k = 0; k < m->nbins; k++)
        m->bins[k].share_time = total > 0 ? m->bins[k].model_s / total : 0;
    m->total_model_s = total;
    return LENS_OK;
}

/* Labels show inclusive byte ranges as the bins hold them; one-size bins (0 B, 1 B) show one
 * number. */
void lens_msgsize_bin_label(const struct lens_msgsize_bin *b, char *buf, size_t n)
{
    if (b->hi == LENS_MSGSIZE_OPEN)
        snprintf(buf, n, ">= %" PRIu64 " B", b->lo);
    else if (b->hi == b->lo)
        snprintf(buf, n, "%" PRIu64 " B", b->lo);
    else
        snprintf(buf, n, "%" PRIu64 "-%" PRIu64 " B", b->lo, b->hi);
}

/* "1.50 MiB" for a byte count. */
/* Binary units (KiB, MiB) match the k/M/G suffixes of --bins, which are powers of 1024. */
static void human_bytes(uint64_t v, char *buf, size_t n)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = (double)v;
    int u = 0;
    while (x >= 1024.0 && u < 6) {
        x /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%" PRIu64 " B", v);
    else
        snprintf(buf, n, "%.2f %s", x, unit[u]);
}

/* NaN shares (no time model) print as "-", so a missing column cannot be read as 0 %. */
static void pct(char *buf, size_t n, double share)
{
    if (isnan(share))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f%%", 100.0 * share);
}

/* The text table: one row per kept bin, then a total row. The "% time" column appears only with
 * a model; "% call" (recorded time in the send calls) is always there. */
int lens_msgsize_write_text(const struct lens_msgsize *m, const char *source, const char *model,
                            FILE *fp)
{
    char hb[32], cb[32];
    human_bytes(m->total_bytes, hb, sizeof hb);
    human_bytes(m->coll_bytes, cb, sizeof cb);
    fprintf(fp, "message sizes of %s\n", source ? source : "(profile)");
    if (m->from_profile)
        fprintf(fp, "profile file, %" PRIu64 " messages, %" PRIu64 " bytes (%s), %zu distinct "
                "sizes\n", m->total_messages, m->total_bytes, hb, m->nsizes);
    else
        fprintf(fp, "%d ranks, %" PRIu64 " point-to-point messages, %" PRIu64 " bytes (%s), "
                "%zu distinct sizes\n", m->nranks, m->total_messages, m->total_bytes, hb,
                m->nsizes);
    /* Said every time, so a profile of a collective-heavy code is not mistaken for a quiet one;
     * a profile file lists messages only, so it cannot say. */
    if (m->from_profile)
        fprintf(fp, "not counted: whatever the profiler left out (collectives, one-sided)\n");
    else
        fprintf(fp, "not counted: %" PRIu64 " collective calls (%s sent), %" PRIu64
                " one-sided transfers (%" PRIu64 " B)\n", m->coll_calls, cb, m->rma_ops,
                m->rma_bytes);
    if (model && m->from_profile)
        fprintf(fp, "%% time: %s (%.6f s in total); no recorded call time in a profile file\n",
                model, m->total_model_s);
    else if (model)
        fprintf(fp, "%% time: %s (%.6f s in total); "
                "%% call: recorded time in the send calls (%.6f s)\n", model,
                m->total_model_s, m->total_call_s);
    else if (m->from_profile)
        fprintf(fp, "no --p2p file, so no send time; no recorded call time in a profile file\n");
    else
        fprintf(fp, "%% call: recorded time in the send calls (%.6f s); no --p2p file, so no "
                "modelled send time\n", m->total_call_s);
    /* Fixed-width columns wide enough for 2^64 - 1 messages and bytes, so the table stays
     * aligned whatever the trace. */
    fprintf(fp, "\n%-24s %12s %8s %16s %9s", "size", "messages", "% msgs", "bytes", "% volume");
    if (model)
        fprintf(fp, " %8s", "% time");
    fprintf(fp, " %8s\n", "% call");
    char label[64], a[16], b[16], c[16], d[16];
    for (size_t k = 0; k < m->nbins; k++) {
        const struct lens_msgsize_bin *x = &m->bins[k];
        lens_msgsize_bin_label(x, label, sizeof label);
        pct(a, sizeof a, x->share_messages);
        pct(b, sizeof b, x->share_volume);
        pct(c, sizeof c, x->share_time);
        pct(d, sizeof d, x->share_call_time);
        fprintf(fp, "%-24s %12" PRIu64 " %8s %16" PRIu64 " %9s", label, x->count, a, x->bytes, b);
        if (model)
            fprintf(fp, " %8s", c);
        fprintf(fp, " %8s\n", d);
    }
    /* The total row prints 100 % only when its total is non-zero, matching the per-bin shares. */
    const char *full = m->total_messages ? "100.0%" : "0.0%";
    fprintf(fp, "%-24s %12" PRIu64 " %8s %16" PRIu64 " %9s", "total", m->total_messages, full,
            m->total_bytes, m->total_bytes ? "100.0%" : "0.0%");
    if (model)
        fprintf(fp, " %8s", m->total_model_s > 0 ? "100.0%" : "0.0%");
    fprintf(fp, " %8s\n", m->from_profile ? "-" : m->total_call_s > 0 ? "100.0%" : "0.0%");
    return ferror(fp) ? -1 : 0;
}

/* JSON integers above 2^63 - 1 are written as numbers (doubles): lens_json_int takes a signed
 * 64-bit value and would print them negative. */
static void json_u64(struct lens_json *j, const char *key, uint64_t v)
{
    lens_json_key(j, key);
    if (v <= (uint64_t)INT64_MAX)
        lens_json_int(j, (long long)v);
    else
        lens_json_number(j, (double)v);
}

static void json_num(struct lens_json *j, const char *key, double v)
{
    lens_json_key(j, key);
    lens_json_number(j, v); /* NaN -> null */
}

/* JSON keeps every column, with null where a value does not exist (no model, open hi bound), so
 * a consumer sees the same keys whatever the options were. */
int lens_msgsize_write_json(const struct lens_msgsize *m, const char *source, const char *model,
                            FILE *fp)
{
    struct lens_json j;
    lens_json_init(&j, fp);
    lens_json_begin_object(&j);
    lens_json_key(&j, "trace");
    lens_json_string(&j, source);
    lens_json_key(&j, "nranks");
    lens_json_int(&j, m->nranks);
    json_u64(&j, "total_messages", m->total_messages);
    json_u64(&j, "total_bytes", m->total_bytes);
    json_u64(&j, "distinct_sizes", m->nsizes);
    lens_json_key(&j, "time_model");
    lens_json_string(&j, model);
    /* which measurement the time column comes from, machine-readable (docs/msgsizes.md) */
    lens_json_key(&j, "time_source");
    lens_json_string(&j, model ? m->time_source : NULL);
    lens_json_key(&j, "source_kind");
    lens_json_string(&j, m->from_profile ? "profile" : "trace");
    json_num(&j, "total_time_s", model ? m->total_model_s : NAN);
    json_num(&j, "total_call_s", m->from_profile ? NAN : m->total_call_s);
    json_u64(&j, "collective_calls", m->coll_calls);
    json_u64(&j, "collective_bytes", m->coll_bytes);
    json_u64(&j, "rma_transfers", m->rma_ops);
    json_u64(&j, "rma_bytes", m->rma_bytes);
    lens_json_key(&j, "bins");
    lens_json_begin_array(&j);
    char label[64];
    for (size_t k = 0; k < m->nbins; k++) {
        const struct lens_msgsize_bin *b = &m->bins[k];
        lens_json_begin_object(&j);
        json_u64(&j, "lo", b->lo);
        lens_json_key(&j, "hi");
        if (b->hi == LENS_MSGSIZE_OPEN)
            lens_json_null(&j);
        else
            lens_json_int(&j, (long long)b->hi);
        lens_msgsize_bin_label(b, label, sizeof label);
        lens_json_key(&j, "label");
        lens_json_string(&j, label);
        json_u64(&j, "count", b->count);
        json_num(&j, "share_messages", b->share_messages);
        json_u64(&j, "bytes", b->bytes);
        json_num(&j, "share_volume", b->share_volume);
        json_num(&j, "time_s", model ? b->model_s : NAN);
        json_num(&j, "share_time", model ? b->share_time : NAN);
        json_num(&j, "call_s", m->from_profile ? NAN : b->call_s);
        json_num(&j, "share_call_time", b->share_call_time);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    /* The raw distinct sizes follow the bins, so a consumer can rebin without the trace. */
    lens_json_key(&j, "sizes");
    lens_json_begin_array(&j);
    for (size_t i = 0; i < m->nsizes; i++) {
        lens_json_begin_object(&j);
        json_u64(&j, "bytes", m->sizes[i].bytes);
        json_u64(&j, "count", m->sizes[i].count);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    lens_json_end_object(&j);
    fputc('\n', fp);
    return ferror(fp) ? -1 : 0;
}

/* %.17g round-trips a double exactly; NaN (no model) is an empty CSV field. */
static void csv_num(FILE *fp, double v, int last)
{
    if (isfinite(v))
        fprintf(fp, "%.17g", v);
    fputc(last ? '\n' : ',', fp);
}

/* CSV: the bins only, same columns as the JSON bins; an open hi bound is an empty field. */
int lens_msgsize_write_csv(const struct lens_msgsize *m, FILE *fp)
{
    fprintf(fp, "lo,hi,label,count,share_messages,bytes,share_volume,time_s,share_time,call_s,"
            "share_call_time\n");
    char label[64];
    for (size_t k = 0; k < m->nbins; k++) {
        const struct lens_msgsize_bin *b = &m->bins[k];
        lens_msgsize_bin_label(b, label, sizeof label);
        fprintf(fp, "%" PRIu64 ",", b->lo);
        if (b->hi != LENS_MSGSIZE_OPEN)
            fprintf(fp, "%" PRIu64, b->hi);
        fprintf(fp, ",%s,%" PRIu64 ",", label, b->count);
        csv_num(fp, b->share_messages, 0);
        fprintf(fp, "%" PRIu64 ",", b->bytes);
        csv_num(fp, b->share_volume, 0);
        csv_num(fp, b->model_s, 0);
        csv_num(fp, b->share_time, 0);
        csv_num(fp, m->from_profile ? NAN : b->call_s, 0);
        csv_num(fp, b->share_call_time, 1);
    }
    return ferror(fp) ? -1 : 0;
}
