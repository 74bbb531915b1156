/* Streaming compression of a latency cube with a per-element relative error bound, after
 * Andreev and Salnikov's sequential clustering of (src, dst, length) triples, extended to
 * notice merges as well as splits. One matrix at a time:
 *   1. try the previous partition; a group whose values no longer fit the bound splits along
 *      its sorted values (the largest part keeps the group number, the others move);
 *   2. groups whose values fit together within half the bound merge (half, so that groups
 *      drifting apart do not merge and split again at the next length);
 *   3. if those changes cost more bytes than a new partition, store a new partition instead;
 *   4. one value per group: the mean of its members clamped into the interval that keeps
 *      every member within the bound. */
#include "packed.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Value classes: finite values share tolerance intervals; the others decode exactly.
 * The class number indexes `special` in values(): 0 finite, 1 +inf, 2 -inf, 3 NaN. A group never
 * mixes classes, so its decoded value is exact for every non-finite member. */
static int vclass(double v) { return isnan(v) ? 3 : isinf(v) ? (v > 0 ? 1 : 2) : 0; }

struct item {
    double v;
    int pair, cls;
};

/* Order-preserving integer key of a double: -inf < finite ascending < +inf < every NaN.
 * IEEE 754 trick: a positive double's bits already sort as unsigned integers once the sign bit
 * is set; a negative one's sort backwards, so all its bits are flipped. -0 sorts just below +0,
 * which is harmless: their tolerance intervals are both the point 0, so they fit together. */
static uint64_t key(double v)
{
    if (isnan(v))
        return UINT64_MAX;
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b >> 63 ? ~b : b | 0x8000000000000000ULL;
}

static int cmp_item(const void *pa, const void *pb)
{
    const struct item *a = pa, *b = pb;
    uint64_t x = key(a->v), y = key(b->v);
    if (x != y)
        return x < y ? -1 : 1;
    return a->pair - b->pair;
}

/* Sorts it[0..n) by (key, pair): the items come in ascending pair order, and the LSD radix
 * sort (16-bit digits) is stable, so both branches give the same order. tmp holds n items. */
static void sort_items(struct item *it, struct item *tmp, size_t n, size_t *count)
{
    /* Small groups (most splits) are cheaper with qsort; the radix sort pays off on whole
     * matrices (P = 1024 gives a million items per length). */
    if (n < 4096) {
        qsort(it, n, sizeof *it, cmp_item);
        return;
    }
    /* Four passes of 16 bits, least significant first; each pass is a stable counting sort, so
     * the order of the earlier passes (and the initial pair order) survives among equal digits. */
    for (int shift = 0; shift < 64; shift += 16) {
        memset(count, 0, 65537 * sizeof *count);
        for (size_t t = 0; t < n; t++)
            count[((key(it[t].v) >> shift) & 0xFFFF) + 1]++;
        if (count[((key(it[0].v) >> shift) & 0xFFFF) + 1] == n)
            continue; /* one digit value: the pass changes nothing */
        /* Prefix sums: count[d] becomes the first output slot of digit d. */
        for (int d = 0; d < 65536; d++)
            count[d + 1] += count[d];
        for (size_t t = 0; t < n; t++)
            tmp[count[(key(it[t].v) >> shift) & 0xFFFF]++] = it[t];
        memcpy(it, tmp, n * sizeof *it);
    }
}

/* The encoder keeps only the current partition (gid), a trial (tgid) and a fresh one (fgid):
 * working memory is O(P^2 + groups) whatever the number of lengths. */
struct lens_packed_encoder {
    int P, L, k;
    size_t P2;
    double eps;             /* the bound, shrunk by 1e-9 relative so rounding cannot break it */
    int *gid, *tgid, *fgid; /* group per pair: current, tried, fresh */
    int nid, tnid;          /* group numbers in use are < nid */
    int cap;                /* per-group arrays hold cap entries */
    int *cnt, *start, *alias, *cls;
    double *lo, *hi, *sum;
    int *members, *ends;    /* P2 each */
    struct item *items, *tmp; /* P2 each */
    size_t *count;          /* 65537 radix buckets */
    struct lens_packed *p;
    long cap_ev, cap_val, cap_vg;
    long ev0;               /* events before this length */
    int gf;                 /* groups of the fresh partition in fgid, 0 when not made yet */
};

/* Per-group arrays for group numbers < n. */
static int ensure_ids(struct lens_packed_encoder *z, int n)
{
    if (n <= z->cap)
        return LENS_OK;
    int cap = z->cap ? z->cap : 64;
    while (cap < n)
        cap *= 2;
    void **arr[] = {(void **)&z->cnt, (void **)&z->alias, (void **)&z->cls, (void **)&z->lo,
                    (void **)&z->hi, (void **)&z->sum, (void **)&z->start};
    size_t size[] = {sizeof(int), sizeof(int), sizeof(int), sizeof(double), sizeof(double), sizeof(double),
                     sizeof(int)};
    for (int a = 0; a < 7; a++) {
        /* cap + 1 entries: start[] is indexed by n (one past the last group) in members_of. */
        void *q = lens_realloc(*arr[a], (size_t)(cap + 1) * size[a]);
        if (!q)
            return LENS_ENOMEM;
        *arr[a] = q;
    }
    z->cap = cap;
    return LENS_OK;
}

int lens_packed_encoder_new(struct lens_packed_encoder **out, int procs, int nlen, double max_error, struct lens_err *e)
{
    *out = NULL;
    /* A bound of 1 or more would let a value decode as 0 or change sign; !(x >= 0) also refuses
     * NaN. */
    if (procs < 1 || nlen < 1 || !(max_error >= 0 && max_error < 1))
        return lens_err_set(e, LENS_EINVAL, "compress: need P >= 1, L >= 1 and 0 <= max error < 1 (got %d, %d, %g)",
                            procs, nlen, max_error);
    struct lens_packed_encoder *z = lens_calloc(1, sizeof *z);
    if (!z)
        return lens_err_set(e, LENS_ENOMEM, "compress: out of memory");
    z->P = procs;
    z->L = nlen;
    z->P2 = (size_t)procs * procs;
    /* The intervals v +- eps|v| are computed in floating point; shrinking eps by 1e-9 relative
     * absorbs their rounding, so the decoded value is within max_error |v| in exact arithmetic
     * too (docs/methods.md §4, step 6). */
    z->eps = max_error * (1 - 1e-9);
    z->gid = lens_malloc(z->P2 * sizeof(int));
    z->tgid = lens_malloc(z->P2 * sizeof(int));
    z->fgid = lens_malloc(z->P2 * sizeof(int));
    z->members = lens_malloc(z->P2 * sizeof(int));
    z->ends = lens_malloc(z->P2 * sizeof(int));
    z->items = lens_malloc(z->P2 * sizeof(struct item));
    z->tmp = lens_malloc(z->P2 * sizeof(struct item));
    /* 65536 buckets of a 16-bit digit, plus one for the shifted prefix sums. */
    z->count = lens_malloc(65537 * sizeof(size_t));
    z->p = lens_calloc(1, sizeof *z->p);
    if (z->p) {
        z->p->procs = procs;
        z->p->nlen = nlen;
        z->p->max_error = max_error;
        z->p->value_start = lens_calloc((size_t)nlen + 1, sizeof(long));
        /* At most one stored partition per length, so reset_k never grows. */
        z->p->reset_k = lens_malloc((size_t)nlen * sizeof(int));
    }
    if (!z->gid || !z->tgid || !z->fgid || !z->members || !z->ends || !z->items || !z->tmp || !z->count || !z->p || !z->p->value_start ||
        !z->p->reset_k || ensure_ids(z, 64) != LENS_OK) {
        lens_packed_encoder_free(z);
        return lens_err_set(e, LENS_ENOMEM, "compress: out of memory for %d x %d", procs, procs);
    }
    *out = z;
    return LENS_OK;
}

void lens_packed_encoder_free(struct lens_packed_encoder *z)
{
    if (!z)
        return;
    lens_free(z->gid);
    lens_free(z->tgid);
    lens_free(z->fgid);
    lens_free(z->cnt);
    lens_free(z->start);
    lens_free(z->alias);
    lens_free(z->cls);
    lens_free(z->lo);
    lens_free(z->hi);
    lens_free(z->sum);
    lens_free(z->members);
    lens_free(z->ends);
    lens_free(z->items);
    lens_free(z->tmp);
    lens_free(z->count);
    lens_packed_free(z->p);
    lens_free(z);
}

void lens_packed_free(struct lens_packed *p)
{
    if (!p)
        return;
    lens_free(p->reset_k);
    lens_free(p->reset_group);
    lens_free(p->event);
    lens_free(p->value);
    lens_free(p->value_start);
    lens_free(p->value_group);
    lens_free(p);
}

/* The size model that steers the encoder and gives the reported ratio: per stored partition its
 * length index and P^2 group numbers (4 bytes each), 16 bytes per event (four ints), 8 per value
 * and per value_start entry. It is the payload, not the NetCDF file size. */
double lens_packed_bytes(const struct lens_packed *p)
{
    return 4.0 * p->nreset * (1 + (double)p->procs * p->procs) + 16.0 * p->nevent + 8.0 * p->nvalue +
           8.0 * (p->nlen + 1);
}

static int add_event(struct lens_packed_encoder *z, int kind, int a, int b)
{
    struct lens_packed *p = z->p;
    size_t cap = (size_t)z->cap_ev;
    if (lens_reserve((void **)&p->event, &cap, 4 * (size_t)(p->nevent + 1), sizeof(int)) != LENS_OK)
        return LENS_ENOMEM;
    z->cap_ev = (long)cap;
    int *ev = p->event + 4 * p->nevent++;
    ev[0] = z->k;
    ev[1] = kind;
    ev[2] = a;
    ev[3] = b;
    return LENS_OK;
}

/* The tolerance interval of value v: decoded values inside it are within the bound. */
static void tol(double v, double eps, double *lo, double *hi)
{
    *lo = v - eps * fabs(v);
    *hi = v + eps * fabs(v);
}

/* Cuts sorted items[0..n) into the fewest runs that each fit the bound (both ends of the
 * tolerance intervals grow with v, so the greedy cut is optimal); ends[r] is the end of run r.
 * Optimality: with the items sorted by value, both v - eps|v| and v + eps|v| are non-decreasing
 * in v, so a run's intersection is [lo of its last item, hi of its first]; extending a run while
 * that stays non-empty is the classic greedy interval stabbing, which gives the fewest runs.
 * Non-finite classes sort after (or before) all finite values and form one run each. */
static int cover(const struct item *it, int n, double eps, int *ends)
{
    int nr = 0;
    for (int i = 0; i < n;) {
        int j = i + 1;
        if (it[i].cls != 0) {
            while (j < n && it[j].cls == it[i].cls)
                j++;
        } else {
            double lo, hi, l2, h2;
            tol(it[i].v, eps, &lo, &hi);
            for (; j < n && it[j].cls == 0; j++) {
                tol(it[j].v, eps, &l2, &h2);
                if (fmax(lo, l2) > fmin(hi, h2))
                    break;
                lo = fmax(lo, l2);
                hi = fmin(hi, h2);
            }
        }
        ends[nr++] = j;
        i = j;
    }
    return nr;
}

/* Members of every group of g (group numbers < n), ascending pairs: members[start[id]..].
 * A counting sort of the pairs by group: O(P^2 + n), and ascending pairs within each group,
 * which the sorts and the stable tie order rely on. cnt is used as the fill cursor, then
 * restored to the counts. */
static void members_of(struct lens_packed_encoder *z, const int *g, int n)
{
    memset(z->cnt, 0, (size_t)n * sizeof *z->cnt);
    for (size_t q = 0; q < z->P2; q++)
        z->cnt[g[q]]++;
    z->start[0] = 0;
    for (int id = 0; id < n; id++)
        z->start[id + 1] = z->start[id] + z->cnt[id];
    for (int id = 0; id < n; id++)
        z->cnt[id] = z->start[id];
    for (size_t q = 0; q < z->P2; q++)
        z->members[z->cnt[g[q]]++] = (int)q;
    for (int id = 0; id < n; id++)
        z->cnt[id] -= z->start[id];
}

/* A new partition of the whole matrix into fresh groups 0..G-1; returns G.
 * Group numbers follow the sorted order of the values, so they say nothing about pairs; only
 * their consistency from one length to the next matters. */
static int fresh(struct lens_packed_encoder *z, const double *mat, int *g)
{
    for (size_t q = 0; q < z->P2; q++)
        z->items[q] = (struct item){mat[q], (int)q, vclass(mat[q])};
    sort_items(z->items, z->tmp, z->P2, z->count);
    int nr = cover(z->items, (int)z->P2, z->eps, z->ends), from = 0;
    for (int r = 0; r < nr; r++) {
        for (int t = from; t < z->ends[r]; t++)
            g[z->items[t].pair] = r;
        from = z->ends[r];
    }
    return nr;
}

/* Step 1 on tgid: splits the groups that no longer fit. At the first split the fresh
 * partition is made (fgid, gf); as soon as the changes cost more bytes than storing it, the
 * refinement gives up: returns 1. */
static int refine(struct lens_packed_encoder *z, const double *mat, int *give_up)
{
    int n = z->tnid;
    members_of(z, z->tgid, n);
    int *ends = z->ends;
    *give_up = 0;
    for (int id = 0; id < n; id++) {
        int c = z->cnt[id], fits = 1, cl = -1;
        const int *m = z->members + z->start[id];
        /* A group still fits when all its members share one class and, for finite values, the
         * intersection of their tolerance intervals is not empty. */
        double lo = -INFINITY, hi = INFINITY;
        for (int t = 0; t < c && fits; t++) {
            double v = mat[m[t]], l2, h2;
            int vc = vclass(v);
            fits = cl < 0 || vc == cl;
            cl = vc;
            if (vc == 0) {
                tol(v, z->eps, &l2, &h2);
                lo = fmax(lo, l2);
                hi = fmin(hi, h2);
                fits = fits && lo <= hi;
            }
        }
        if (fits)
            continue;
        /* The fresh partition is made lazily: a length where nothing split (the common case on a
         * stable network) never sorts the whole matrix. */
        if (!z->gf)
            z->gf = fresh(z, mat, z->fgid);
        for (int t = 0; t < c; t++)
            z->items[t] = (struct item){mat[m[t]], m[t], vclass(mat[m[t]])};
        sort_items(z->items, z->tmp, (size_t)c, z->count);
        /* The largest run keeps the old group number, so the fewest pairs move (each move is an
         * event of 16 bytes). Ties go to the first run, for a deterministic result. */
        int nr = cover(z->items, c, z->eps, ends), keep = 0;
        for (int r = 1; r < nr; r++)
            if (ends[r] - ends[r - 1] > ends[keep] - (keep ? ends[keep - 1] : 0))
                keep = r;
        for (int r = 0, from = 0; r < nr; from = ends[r++]) {
            if (r == keep)
                continue;
            int nid = z->tnid++;
            for (int t = from; t < ends[r]; t++) {
                z->tgid[z->items[t].pair] = nid;
                if (add_event(z, LENS_PACK_MOVE, z->items[t].pair, nid) != LENS_OK)
                    return LENS_ENOMEM;
            }
        }
        z->p->splits++;
        /* Giving up early is exact, not a guess: any valid partition has at least gf groups (the
         * fresh cover is the fewest), so once the events alone cost more than the fresh
         * partition and its values, put() would choose the fresh partition anyway. */
        if (16.0 * (z->p->nevent - z->ev0) > 4.0 * (1 + z->P2) + 8.0 * z->gf) {
            *give_up = 1;
            return LENS_OK;
        }
    }
    return ensure_ids(z, z->tnid);
}

struct span {
    double lo, hi;
    int cls, id;
};

/* By class, then by the lower end, then by id: a total order, so qsort's result does not depend
 * on its algorithm. */
static int cmp_span(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;
    if (a->cls != b->cls)
        return a->cls - b->cls;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->id - b->id;
}

/* Per group of g: class, count and the interval of tolerance eps of its members. */
static void intervals(struct lens_packed_encoder *z, const double *mat, const int *g, int n, double eps)
{
    for (int id = 0; id < n; id++) {
        z->cnt[id] = 0;
        z->lo[id] = -INFINITY;
        z->hi[id] = INFINITY;
        z->sum[id] = 0;
    }
    for (size_t q = 0; q < z->P2; q++) {
        int id = g[q];
        double v = mat[q], l2, h2;
        z->cnt[id]++;
        /* The last member's class is the group's: a group never mixes classes. */
        z->cls[id] = vclass(v);
        if (z->cls[id] == 0) {
            tol(v, eps, &l2, &h2);
            z->lo[id] = fmax(z->lo[id], l2);
            z->hi[id] = fmin(z->hi[id], h2);
            z->sum[id] += v;
        }
    }
}

/* Step 2 on tgid: merges groups whose members fit within half the bound together. */
static int merge(struct lens_packed_encoder *z, const double *mat)
{
    int n = z->tnid, ns = 0;
    intervals(z, mat, z->tgid, n, 0.5 * z->eps);
    struct span *s = lens_malloc((size_t)n * sizeof *s);
    if (!s)
        return LENS_ENOMEM;
    for (int id = 0; id < n; id++) {
        z->alias[id] = id;
        if (z->cnt[id] > 0)
            s[ns++] = (struct span){z->lo[id], z->hi[id], z->cls[id], id};
    }
    qsort(s, (size_t)ns, sizeof *s, cmp_span);
    int any = 0;
    for (int a = 0; a < ns;) {
        int b = a + 1, keep = s[a].id;
        double hi = s[a].hi;
        /* Spans sorted by lower end: their intersection is [s[b].lo, min hi], not empty while
         * s[b].lo <= hi. Non-finite classes merge whole (their values are equal by class). Each
         * merged group fits within eps/2, so the union fits within eps and stays valid. */
        while (b < ns && s[b].cls == s[a].cls && (s[a].cls != 0 || s[b].lo <= hi)) {
            hi = fmin(hi, s[b].hi);
            /* The smallest id survives: a merge never needs a new group number. */
            keep = s[b].id < keep ? s[b].id : keep;
            b++;
        }
        for (int t = a; t < b && b - a > 1; t++) {
            if (s[t].id == keep)
                continue;
            z->alias[s[t].id] = keep;
            any = 1;
            z->p->merges++;
        }
        a = b;
    }
    /* events in ascending group order, so that decoding needs no sorting */
    for (int id = 0; id < n && any; id++)
        if (z->alias[id] != id && add_event(z, LENS_PACK_MERGE, id, z->alias[id]) != LENS_OK) {
            lens_free(s);
            return LENS_ENOMEM;
        }
    for (size_t q = 0; q < z->P2 && any; q++)
        z->tgid[q] = z->alias[z->tgid[q]];
    lens_free(s);
    return LENS_OK;
}

/* A stored partition: P^2 group numbers at length k. Grown one partition at a time because
 * resets are rare and P^2 may be large. */
static int add_reset(struct lens_packed_encoder *z, const int *g)
{
    struct lens_packed *p = z->p;
    int *q = lens_realloc(p->reset_group, (size_t)(p->nreset + 1) * z->P2 * sizeof *q);
    if (!q)
        return LENS_ENOMEM;
    p->reset_group = q;
    memcpy(q + (size_t)p->nreset * z->P2, g, z->P2 * sizeof *g);
    p->reset_k[p->nreset++] = z->k;
    return LENS_OK;
}

/* Step 4: the values of length k, and the errors they make. */
static int values(struct lens_packed_encoder *z, const double *mat)
{
    struct lens_packed *p = z->p;
    intervals(z, mat, z->gid, z->nid, z->eps);
    size_t cap = (size_t)z->cap_val;
    long nv = 0;
    for (int id = 0; id < z->nid; id++)
        nv += z->cnt[id] > 0;
    if (lens_reserve((void **)&p->value, &cap, (size_t)(p->nvalue + nv), sizeof(double)) != LENS_OK)
        return LENS_ENOMEM;
    z->cap_val = (long)cap;
    /* The group of each value is the positional index (lens_packed_at): kept beside the values. */
    cap = (size_t)z->cap_vg;
    if (lens_reserve((void **)&p->value_group, &cap, (size_t)(p->nvalue + nv), sizeof(int)) != LENS_OK)
        return LENS_ENOMEM;
    z->cap_vg = (long)cap;
    static const double special[4] = {0, INFINITY, -INFINITY, NAN};
    for (int id = 0; id < z->nid; id++) {
        if (z->cnt[id] == 0)
            continue;
        /* The mean is the least-squares choice; clamping it into the intersection of the
         * members' intervals is what guarantees the bound for each member (methods §4, step 6). */
        double v = special[z->cls[id]];
        if (z->cls[id] == 0)
            v = fmin(fmax(z->sum[id] / z->cnt[id], z->lo[id]), z->hi[id]);
        z->sum[id] = v; /* reused: the group's decoded value */
        p->value_group[p->nvalue] = id;
        p->value[p->nvalue++] = v;
    }
    p->value_start[z->k + 1] = p->nvalue;
    for (size_t q = 0; q < z->P2; q++) {
        double v = mat[q];
        /* Errors are measured off the diagonal only (a rank talking to itself is no measurement)
         * and over finite values (the others decode exactly). */
        if (q / z->P == q % z->P || !isfinite(v))
            continue;
        double d = fabs(z->sum[z->gid[q]] - v), r = v != 0 ? d / fabs(v) : (d == 0 ? 0 : INFINITY);
        p->err_max = fmax(p->err_max, r);
        p->err_sum2 += r * r;
        p->err_n++;
    }
    return LENS_OK;
}

static int put(struct lens_packed_encoder *z, const double *mat)
{
    struct lens_packed *p = z->p;
    /* The first length always stores a fresh partition: there is nothing to refine. */
    if (z->k == 0) {
        z->nid = fresh(z, mat, z->gid);
        if (ensure_ids(z, z->nid) != LENS_OK || add_reset(z, z->gid) != LENS_OK)
            return LENS_ENOMEM;
        return values(z, mat);
    }
    /* The counters and the event list are rolled back if this length ends in a reset: the trial
     * (tgid, its events) is discarded whole. */
    long sp0 = p->splits, mg0 = p->merges;
    z->ev0 = p->nevent;
    z->gf = 0;
    /* The trial starts as the previous partition; refine and merge change only the trial, so a
     * reset can still drop it. */
    memcpy(z->tgid, z->gid, z->P2 * sizeof *z->gid);
    z->tnid = z->nid;
    int reset = 0;
    if (refine(z, mat, &reset) != LENS_OK || (!reset && merge(z, mat) != LENS_OK))
        return LENS_ENOMEM;
    if (!reset && z->gf) {
        /* something split: compare the bytes of the changes and values with a new partition.
         * gt: the groups of the trial still in use after splits and merges, each costing one
         * value. */
        int gt = 0;
        memset(z->cnt, 0, (size_t)z->tnid * sizeof *z->cnt);
        for (size_t q = 0; q < z->P2; q++)
            gt += z->cnt[z->tgid[q]]++ == 0;
        reset = 4.0 * (1 + z->P2) + 8.0 * z->gf < 16.0 * (p->nevent - z->ev0) + 8.0 * gt;
    }
    if (reset) {
        p->nevent = z->ev0;
        p->splits = sp0;
        p->merges = mg0;
        z->nid = z->gf;
        memcpy(z->gid, z->fgid, z->P2 * sizeof *z->gid);
        if (ensure_ids(z, z->nid) != LENS_OK || add_reset(z, z->gid) != LENS_OK)
            return LENS_ENOMEM;
    } else {
        /* Swap rather than copy: the trial becomes the current partition in O(1). */
        int *t = z->gid;
        z->gid = z->tgid;
        z->tgid = t;
        z->nid = z->tnid;
    }
    return values(z, mat);
}

int lens_packed_encoder_put(struct lens_packed_encoder *z, const double *mat, struct lens_err *e)
{
    if (z->k >= z->L)
        return lens_err_set(e, LENS_EINVAL, "compress: more than the %d lengths announced", z->L);
    /* put fails only on allocation: every other condition was checked when the encoder was made. */
    if (put(z, mat) != LENS_OK)
        return lens_err_set(e, LENS_ENOMEM, "compress: out of memory at length %d", z->k);
    z->k++;
    return LENS_OK;
}

int lens_packed_encoder_finish(struct lens_packed_encoder *z, struct lens_packed **out, struct lens_err *e)
{
    *out = NULL;
    /* A cube with fewer lengths than announced would decode short: refuse rather than pad. */
    if (z->k != z->L) {
        int k = z->k, L = z->L;
        lens_packed_encoder_free(z);
        return lens_err_set(e, LENS_EINVAL, "compress: %d of %d lengths given", k, L);
    }
    *out = z->p;
    z->p = NULL;
    lens_packed_encoder_free(z);
    return LENS_OK;
}

/* ---- decoding ------------------------------------------------------------------------------ */

/* Everything the decoder indexes with is checked here, once, after reading a file: group
 * numbers, event fields and value ranges. The decoder then trusts them (it only checks the group
 * count per length against the values, which depends on decoding). */
int lens_packed_check(const struct lens_packed *p, const char *name, struct lens_err *e)
{
    /* A group number can never exceed P^2 plus one new group per event: the bound for MOVE
     * targets and MERGE ids. */
    long P2 = (long)p->procs * p->procs, bound = P2 + p->nevent + 1;
    if (p->procs < 1 || p->nlen < 1 || p->nreset < 1 || p->reset_k[0] != 0 || !(p->max_error >= 0 && p->max_error < 1))
        return lens_err_set(e, LENS_EFORMAT, "%s: bad header (processes, lengths, first partition or bound)", name);
    for (int r = 1; r < p->nreset; r++)
        if (p->reset_k[r] <= p->reset_k[r - 1] || p->reset_k[r] >= p->nlen)
            return lens_err_set(e, LENS_EFORMAT, "%s: partition %d at length index %d out of order", name, r, p->reset_k[r]);
    /* A partition read for one pair (lens_packed_read_pair) holds one entry per partition. */
    long per = p->only_pair ? 1 : P2;
    for (long t = 0; t < (long)p->nreset * per; t++)
        if (p->reset_group[t] < 0 || p->reset_group[t] >= P2)
            return lens_err_set(e, LENS_EFORMAT, "%s: group number %d out of range in partition %ld", name,
                                p->reset_group[t], t / per);
    /* Events must be in length order, never at length 0 or at a length with a stored partition
     * (which replaces everything), and name a pair (MOVE) or a group (MERGE) in range. */
    for (long t = 0, r = 0; t < p->nevent; t++) {
        const int *ev = p->event + 4 * t;
        while (r < p->nreset && p->reset_k[r] < ev[0])
            r++;
        int bad = ev[0] < 1 || ev[0] >= p->nlen || (t > 0 && ev[0] < ev[-4]) ||
                  (r < p->nreset && p->reset_k[r] == ev[0]) || ev[2] < 0 || ev[3] < 0 || ev[3] >= bound ||
                  (ev[1] == LENS_PACK_MOVE ? ev[2] >= P2 : ev[1] != LENS_PACK_MERGE || ev[2] >= bound);
        if (bad)
            return lens_err_set(e, LENS_EFORMAT, "%s: event %ld (%d %d %d %d) is not valid", name, t, ev[0], ev[1],
                                ev[2], ev[3]);
    }
    if (p->value_start[0] != 0 || p->value_start[p->nlen] != p->nvalue)
        return lens_err_set(e, LENS_EFORMAT, "%s: value starts do not span the %ld values", name, p->nvalue);
    for (int k = 0; k < p->nlen; k++)
        if (p->value_start[k + 1] <= p->value_start[k])
            return lens_err_set(e, LENS_EFORMAT, "%s: no values at length index %d", name, k);
    /* The index's binary search needs each length's groups strictly ascending and in range. */
    for (int k = 0; p->value_group && k < p->nlen; k++)
        for (long v = p->value_start[k]; v < p->value_start[k + 1]; v++)
            if (p->value_group[v] < 0 || p->value_group[v] >= bound ||
                (v > p->value_start[k] && p->value_group[v] <= p->value_group[v - 1]))
                return lens_err_set(e, LENS_EFORMAT, "%s: value groups of length index %d not ascending", name, k);
    return LENS_OK;
}

struct lens_packed_decoder {
    const struct lens_packed *p;
    int k, ri;
    long ei;
    size_t P2;
    int *gid, *alias, *live;
    double *val;
    size_t cap;
    int *vgroup; /* when set, next() records each value's group here (lens_packed_index_new) */
};

int lens_packed_decoder_new(struct lens_packed_decoder **out, const struct lens_packed *p, struct lens_err *e)
{
    *out = NULL;
    /* A pair-only read lacks the other pairs' partitions: nothing whole can be decoded from it. */
    if (p->only_pair)
        return lens_err_set(e, LENS_EINVAL, "decompress: the packed cube was read for one pair only");
    struct lens_packed_decoder *u = lens_calloc(1, sizeof *u);
    if (!u)
        return lens_err_set(e, LENS_ENOMEM, "decompress: out of memory");
    u->p = p;
    u->P2 = (size_t)p->procs * p->procs;
    /* The per-group arrays (alias, live, val) grow on demand in unpack_ids, as group numbers are
     * met. */
    u->gid = lens_malloc(u->P2 * sizeof *u->gid);
    if (!u->gid) {
        lens_packed_decoder_free(u);
        return lens_err_set(e, LENS_ENOMEM, "decompress: out of memory");
    }
    *out = u;
    return LENS_OK;
}

void lens_packed_decoder_free(struct lens_packed_decoder *u)
{
    if (!u)
        return;
    lens_free(u->gid);
    lens_free(u->alias);
    lens_free(u->live);
    lens_free(u->val);
    lens_free(u);
}

static int unpack_ids(struct lens_packed_decoder *u, size_t n)
{
    if (n <= u->cap)
        return LENS_OK;
    size_t cap = u->cap ? u->cap : 64;
    while (cap < n)
        cap *= 2;
    /* Each realloc result is stored as soon as it succeeds, so a later failure leaves nothing to
     * leak or double free; cap is raised only when all three have grown. */
    int *a = lens_realloc(u->alias, cap * sizeof *a);
    if (a)
        u->alias = a;
    int *l = a ? lens_realloc(u->live, cap * sizeof *l) : NULL;
    if (l)
        u->live = l;
    double *v = l ? lens_realloc(u->val, cap * sizeof *v) : NULL;
    if (!v)
        return LENS_ENOMEM;
    u->val = v;
    u->cap = cap;
    return LENS_OK;
}

int lens_packed_decoder_next(struct lens_packed_decoder *u, double *mat, struct lens_err *e)
{
    const struct lens_packed *p = u->p;
    if (u->k >= p->nlen)
        return lens_err_set(e, LENS_EINVAL, "decompress: all %d lengths decoded already", p->nlen);
    size_t n = 0;
    if (u->ri < p->nreset && p->reset_k[u->ri] == u->k) {
        memcpy(u->gid, p->reset_group + (size_t)u->ri++ * u->P2, u->P2 * sizeof *u->gid);
    } else {
        int merged = 0;
        /* Replays the encoder: MOVEs (from the splits) apply at once; MERGEs are collected as
         * aliases and applied after all of the length's events, as the encoder renumbered tgid
         * once. */
        for (; u->ei < p->nevent && p->event[4 * u->ei] == u->k; u->ei++) {
            const int *ev = p->event + 4 * u->ei;
            if (ev[1] == LENS_PACK_MOVE) {
                u->gid[ev[2]] = ev[3];
                continue;
            }
            /* Aliases are made identity lazily: on the first merge of a length for every id,
             * later only for the ids the growth added. */
            size_t top = (size_t)(ev[2] > ev[3] ? ev[2] : ev[3]) + 1, old = merged ? u->cap : 0;
            if (unpack_ids(u, top) != LENS_OK)
                return lens_err_set(e, LENS_ENOMEM, "decompress: out of memory");
            for (size_t id = old; id < u->cap; id++) /* identity for the entries not set yet */
                u->alias[id] = (int)id;
            merged = 1;
            u->alias[ev[2]] = ev[3];
        }
        /* Ids at or above cap were never named by a merge: they keep their number. */
        for (size_t q = 0; q < u->P2 && merged; q++)
            if ((size_t)u->gid[q] < u->cap)
                u->gid[q] = u->alias[u->gid[q]];
    }
    for (size_t q = 0; q < u->P2; q++)
        n = (size_t)u->gid[q] + 1 > n ? (size_t)u->gid[q] + 1 : n;
    if (unpack_ids(u, n) != LENS_OK)
        return lens_err_set(e, LENS_ENOMEM, "decompress: out of memory");
    /* The values of a length are stored for its live groups in ascending id order (as values()
     * wrote them), so marking the live ids and walking them in order pairs each with its value. */
    memset(u->live, 0, n * sizeof *u->live);
    for (size_t q = 0; q < u->P2; q++)
        u->live[u->gid[q]] = 1;
    long v = p->value_start[u->k];
    for (size_t id = 0; id < n; id++)
        if (u->live[id]) {
            /* A damaged file (consistent by lens_packed_check but not produced by the encoder)
             * can still disagree here: refused, never read past the length's values. */
            if (v >= p->value_start[u->k + 1])
                return lens_err_set(e, LENS_EFORMAT, "decompress: length index %d has more groups than values", u->k);
            if (u->vgroup)
                u->vgroup[v] = (int)id;
            u->val[id] = p->value[v++];
        }
    if (v != p->value_start[u->k + 1])
        return lens_err_set(e, LENS_EFORMAT, "decompress: length index %d has fewer groups than values", u->k);
    for (size_t q = 0; q < u->P2; q++)
        mat[q] = u->val[u->gid[q]];
    u->k++;
    return LENS_OK;
}

/* ---- positional access --------------------------------------------------------------------- */

/* Per length k, its events are ev[ev_start[k] .. ev_start[k+1]) sorted by (kind, key, order):
 * moves (key = pair) before merges (key = group), so each lookup is one binary search. */
struct ev_row {
    int kind, key, to;
    long order; /* position in the file: among equal keys the last one is what the decoder keeps */
};

struct lens_packed_index {
    const struct lens_packed *p;
    long *ev_start; /* nlen + 1 */
    struct ev_row *ev;
    int *vgroup;    /* p->value_group, or rebuilt by decoding (then owned) */
    int own_vgroup;
};

static int cmp_ev(const void *pa, const void *pb)
{
    const struct ev_row *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

void lens_packed_index_free(struct lens_packed_index *x)
{
    if (!x)
        return;
    lens_free(x->ev_start);
    lens_free(x->ev);
    if (x->own_vgroup)
        lens_free(x->vgroup);
    lens_free(x);
}

/* Old files carry no value groups: one streaming decode records them (O(P^2) time and working
 * memory, once, when the index is built; the index itself stays free of P^2). */
static int rebuild_vgroup(struct lens_packed_index *x, struct lens_err *e)
{
    const struct lens_packed *p = x->p;
    struct lens_packed_decoder *u;
    double *mat = lens_malloc((size_t)p->procs * p->procs * sizeof *mat);
    x->vgroup = lens_malloc((size_t)p->nvalue * sizeof *x->vgroup);
    x->own_vgroup = 1;
    if (!mat || !x->vgroup) {
        lens_free(mat);
        return lens_err_set(e, LENS_ENOMEM, "decompress: out of memory for the index");
    }
    int rc = lens_packed_decoder_new(&u, p, e);
    if (rc == LENS_OK)
        u->vgroup = x->vgroup;
    for (int k = 0; k < p->nlen && rc == LENS_OK; k++)
        rc = lens_packed_decoder_next(u, mat, e);
    lens_packed_decoder_free(u);
    lens_free(mat);
    return rc;
}

int lens_packed_index_new(struct lens_packed_index **out, struct lens_packed *p, struct lens_err *e)
{
    *out = NULL;
    struct lens_packed_index *x = lens_calloc(1, sizeof *x);
    if (!x)
        return lens_err_set(e, LENS_ENOMEM, "decompress: out of memory for the index");
    x->p = p;
    x->ev_start = lens_calloc((size_t)p->nlen + 1, sizeof *x->ev_start);
    x->ev = lens_malloc((size_t)(p->nevent > 0 ? p->nevent : 1) * sizeof *x->ev);
    if (!x->ev_start || !x->ev) {
        lens_packed_index_free(x);
        return lens_err_set(e, LENS_ENOMEM, "decompress: out of memory for the index");
    }
    /* lens_packed_check put the events in length order: a count per length, then a sort of each
     * length's slice. */
    for (long t = 0; t < p->nevent; t++) {
        const int *ev = p->event + 4 * t;
        x->ev_start[ev[0] + 1]++;
        x->ev[t] = (struct ev_row){ev[1], ev[2], ev[3], t};
    }
    for (int k = 0; k < p->nlen; k++) {
        x->ev_start[k + 1] += x->ev_start[k];
        qsort(x->ev + x->ev_start[k], (size_t)(x->ev_start[k + 1] - x->ev_start[k]), sizeof *x->ev, cmp_ev);
    }
    int rc = LENS_OK;
    if (p->value_group)
        x->vgroup = p->value_group;
    else if (p->only_pair)
        rc = lens_err_set(e, LENS_EINVAL, "decompress: a pair-only read of a file without value groups");
    else
        rc = rebuild_vgroup(x, e);
    if (rc != LENS_OK) {
        lens_packed_index_free(x);
        return rc;
    }
    *out = x;
    return LENS_OK;
}

/* The target of the last event of kind at length k whose key is key, or dflt: the decoder
 * applies events in file order, so a repeated key (only in a hand-made file) ends at the last. */
static int ev_find(const struct lens_packed_index *x, int k, int kind, int key, int dflt)
{
    long lo = x->ev_start[k], hi = x->ev_start[k + 1];
    /* upper bound of (kind, key): the first row greater than it */
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        const struct ev_row *r = x->ev + mid;
        if (r->kind < kind || (r->kind == kind && r->key <= key))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > x->ev_start[k] && x->ev[lo - 1].kind == kind && x->ev[lo - 1].key == key)
        return x->ev[lo - 1].to;
    return dflt;
}

/* The value of group g at length k: binary search in the length's ascending groups. */
static int value_of(const struct lens_packed_index *x, int k, int g, double *v, struct lens_err *e)
{
    const struct lens_packed *p = x->p;
    long lo = p->value_start[k], hi = p->value_start[k + 1];
    while (lo < hi) {
        long mid = lo + (hi - lo) / 2;
        if (x->vgroup[mid] < g)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == p->value_start[k + 1] || x->vgroup[lo] != g)
        return lens_err_set(e, LENS_EFORMAT, "decompress: length index %d has no value for group %d", k, g);
    *v = p->value[lo];
    return LENS_OK;
}

/* The group of pair q at length k, given its group g at length k - 1 (k not a stored
 * partition): the decoder's rule, moves first, then the merges of the length. */
static int step(const struct lens_packed_index *x, int k, int q, int g)
{
    g = ev_find(x, k, LENS_PACK_MOVE, q, g);
    return ev_find(x, k, LENS_PACK_MERGE, g, g);
}

static int pair_ok(const struct lens_packed_index *x, int i, int j, struct lens_err *e)
{
    const struct lens_packed *p = x->p;
    if (i < 0 || j < 0 || i >= p->procs || j >= p->procs)
        return lens_err_set(e, LENS_EINVAL, "pair %d,%d out of range: ranks are 0..%d", i, j, p->procs - 1);
    if (p->only_pair && (long)i * p->procs + j != p->only_pair - 1)
        return lens_err_set(e, LENS_EINVAL, "pair %d,%d: the packed cube was read for pair %ld,%ld only", i, j,
                            (p->only_pair - 1) / p->procs, (p->only_pair - 1) % p->procs);
    return LENS_OK;
}

/* The group of pair q in stored partition r. */
static int reset_of(const struct lens_packed *p, int r, int q)
{
    return p->only_pair ? p->reset_group[r] : p->reset_group[(size_t)r * p->procs * p->procs + (size_t)q];
}

int lens_packed_at(const struct lens_packed_index *x, int i, int j, int k, double *v, struct lens_err *e)
{
    const struct lens_packed *p = x->p;
    int rc = pair_ok(x, i, j, e);
    if (rc != LENS_OK)
        return rc;
    if (k < 0 || k >= p->nlen)
        return lens_err_set(e, LENS_EINVAL, "length index %d out of range: 0..%d", k, p->nlen - 1);
    int q = i * p->procs + j, lo = 0, hi = p->nreset - 1;
    /* the last stored partition at or before k (reset_k is ascending, reset_k[0] == 0) */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (p->reset_k[mid] <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    int g = reset_of(p, lo, q);
    for (int t = p->reset_k[lo] + 1; t <= k; t++)
        g = step(x, t, q, g);
    return value_of(x, k, g, v, e);
}

int lens_packed_curve(const struct lens_packed_index *x, int i, int j, double *out, struct lens_err *e)
{
    const struct lens_packed *p = x->p;
    int rc = pair_ok(x, i, j, e);
    int q = i * p->procs + j, g = 0;
    /* One walk over the lengths: each is a stored partition or one step from the previous. */
    for (int k = 0, r = 0; k < p->nlen && rc == LENS_OK; k++) {
        if (r < p->nreset && p->reset_k[r] == k)
            g = reset_of(p, r++, q);
        else
            g = step(x, k, q, g);
        rc = value_of(x, k, g, &out[k], e);
    }
    return rc;
}
