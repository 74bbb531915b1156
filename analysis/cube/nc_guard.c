/* NetCDF header validation before nc_open (contract in nc_guard.h). The classic header is
 *   magic numrecs dim_list gatt_list var_list
 * with big-endian counts of 4 bytes (8 in CDF-5), offsets of 4 bytes (8 in CDF-2 and CDF-5),
 * names and values padded to 4 bytes. The header is read from the file on demand, so a large
 * data file costs only its header. */
#include "nc_guard.h"

#include <errno.h>
#include <netcdf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define NOT_NC "not a readable NetCDF file"
/* numrecs all ones marks a file still being written ("streaming"): the record count is then
 * unknown, and the record part cannot be checked against the file size. */
#define STREAMING32 0xFFFFFFFFULL

/* NC_DIMENSION, NC_VARIABLE, NC_ATTRIBUTE of the format specification, spelled out here so the
 * check does not depend on a libnetcdf internal header. */
enum { TAG_DIMENSION = 10, TAG_VARIABLE = 11, TAG_ATTRIBUTE = 12 };

/* The parse state. Every reader checks rc first and does nothing once it is set, so a long chain
 * of reads needs one check at its end, and the first error (the one that explains) is kept. */
struct rd {
    FILE *fp;
    const char *path;
    struct lens_err *e;
    unsigned char *buf; /* bytes [0, len) of the file, cap allocated */
    size_t len, cap, pos;
    unsigned long long fsize;
    int cnt;   /* bytes of a count: 4, or 8 in CDF-5 */
    int off;   /* bytes of an offset: 4 in CDF-1, else 8 */
    int cdf5;
    int rc;    /* first error, LENS_OK while parsing goes well */
    const char *what; /* the part being read, for truncation messages */
};

__attribute__((format(printf, 2, 3))) static int fail(struct rd *r, const char *fmt, ...)
{
    if (r->rc != LENS_OK)
        return r->rc;
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->rc = lens_err_set(r->e, LENS_EFORMAT, "%s: " NOT_NC ": %s", r->path, what);
    return r->rc;
}

/* Makes bytes [pos, pos + n) available in buf, reading the file; a header that runs past the
 * end of the file is truncated. Growth is geometric and bounded by the file size. */
static int need(struct rd *r, unsigned long long n)
{
    if (r->rc != LENS_OK)
        return r->rc;
    if (n > r->fsize || r->pos > r->fsize - n)
        return fail(r, "the header is truncated (the file of %llu bytes ends inside %s)", r->fsize, r->what);
    /* Fits in size_t: pos + n <= fsize was just checked, and the buffer never exceeds the file. */
    size_t want = r->pos + (size_t)n;
    if (want <= r->len)
        return LENS_OK;
    if (want > r->cap) {
        size_t cap = r->cap ? r->cap : 65536;
        while (cap < want)
            cap *= 2;
        if (cap > r->fsize)
            cap = (size_t)r->fsize;
        void *p = lens_realloc(r->buf, cap);
        if (!p)
            return r->rc = lens_err_set(r->e, LENS_ENOMEM, "%s: out of memory reading the header", r->path);
        r->buf = p;
        r->cap = cap;
    }
    /* Reads ahead to fill the buffer: headers are parsed front to back, so one fread usually
     * serves many small needs. */
    size_t got = fread(r->buf + r->len, 1, r->cap - r->len, r->fp);
    r->len += got;
    if (r->len < want)
        return r->rc = lens_err_set(r->e, LENS_EIO, "%s: read error at byte %zu: %s", r->path, r->len,
                                    ferror(r->fp) ? strerror(errno) : "the file shrank");
    return LENS_OK;
}

/* Big-endian unsigned integer of 4 or 8 bytes (the classic format is big-endian throughout); 0
 * once an error is recorded. */
static unsigned long long get_uint(struct rd *r, int bytes)
{
    if (need(r, (unsigned)bytes) != LENS_OK)
        return 0;
    unsigned long long v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | r->buf[r->pos++];
    return v;
}

/* NON_NEG: a count or size, signed in the format, so at most 2^31 - 1 (2^63 - 1 in CDF-5). */
static unsigned long long get_count(struct rd *r, const char *what)
{
    unsigned long long v = get_uint(r, r->cnt);
    if (r->rc == LENS_OK && v >> (r->cnt * 8 - 1))
        fail(r, "%s is negative (%llu as unsigned)", what, v);
    return r->rc == LENS_OK ? v : 0;
}

static void skip(struct rd *r, unsigned long long n)
{
    /* n < 2^63 here (a checked count or product), so the rounding cannot wrap. */
    n = (n + 3) & ~3ULL; /* names and values are padded to 4 bytes */
    if (need(r, n) == LENS_OK)
        r->pos += (size_t)n;
}

/* Every product of header values goes through here: counts are up to 2^63 in CDF-5, and a
 * wrapped product would turn a huge variable into a small one that "fits" the file. */
static int mul_ok(unsigned long long a, unsigned long long b, unsigned long long *out)
{
    if (a && b > UINT64_MAX / a)
        return 0;
    *out = a * b;
    return 1;
}

/* The ranges of RFC 3629: lead bytes C2..DF take one continuation byte, E0..EF two, F0..F4
 * three; the decoded value must need that many bytes (no overlong form), and surrogates and
 * values above U+10FFFF are refused. Shared with the readers for host names. */
int lens_nc_guard_utf8(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], cp, min;
        size_t k;
        if (c == 0)
            return 0;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            k = 1, cp = c & 0x1F, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF)
            k = 2, cp = c & 0x0F, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4)
            k = 3, cp = c & 0x07, min = 0x10000;
        else
            return 0; /* a continuation byte first, an overlong C0/C1 lead, or beyond U+10FFFF */
        /* The sequence would run past the end. */
        if (n - i <= k)
            return 0;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* A set of names (offsets into r->buf, which only grows) to find duplicates: open addressing
 * on FNV-1a, at most half full, grown as names are added, so memory follows the names read,
 * not the count the header declares. */
struct names {
    size_t *at; /* offset + 1 of the name's bytes, 0 = empty slot */
    size_t *len;
    size_t mask, count;
};

static void names_free(struct names *h)
{
    lens_free(h->at);
    lens_free(h->len);
    h->at = h->len = NULL;
    h->mask = h->count = 0;
}

static uint64_t fnv(const unsigned char *s, size_t n)
{
    uint64_t x = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        x = (x ^ s[i]) * 1099511628211ULL;
    return x;
}

/* Rebuilds h with size slots (a power of two above twice the names held). */
static int names_grow(struct rd *r, struct names *h, size_t size)
{
    size_t *at = lens_calloc(size, sizeof *at), *len = lens_calloc(size, sizeof *len);
    if (!at || !len) {
        lens_free(at);
        lens_free(len);
        return r->rc = lens_err_set(r->e, LENS_ENOMEM, "%s: out of memory reading the header", r->path);
    }
    /* Re-insert every name into the larger table; the probe ends because the new table is at
     * most a quarter full. */
    for (size_t i = 0; h->at && i <= h->mask; i++)
        if (h->at[i]) {
            size_t j = (size_t)fnv(r->buf + h->at[i] - 1, h->len[i]) & (size - 1);
            while (at[j])
                j = (j + 1) & (size - 1);
            at[j] = h->at[i];
            len[j] = h->len[i];
        }
    lens_free(h->at);
    lens_free(h->len);
    h->at = at;
    h->len = len;
    h->mask = size - 1;
    return LENS_OK;
}

/* 1 if the name buf[at..at+n) is there already, 0 after adding it, LENS_ENOMEM. */
static int names_add(struct rd *r, struct names *h, size_t at, size_t n)
{
    /* Grow at half load, before inserting: the probe loop below needs an empty slot to end. */
    if (2 * (h->count + 1) > (h->at ? h->mask + 1 : 0) && names_grow(r, h, h->at ? 2 * (h->mask + 1) : 16))
        return LENS_ENOMEM;
    for (size_t i = (size_t)fnv(r->buf + at, n) & h->mask;; i = (i + 1) & h->mask) {
        if (!h->at[i]) {
            h->at[i] = at + 1;
            h->len[i] = n;
            h->count++;
            return 0;
        }
        if (h->len[i] == n && !memcmp(r->buf + h->at[i] - 1, r->buf + at, n))
            return 1;
    }
}

/* A name for messages: printable ASCII as is, other bytes as '?', at most cap - 1 bytes.
 * Messages are printed to a terminal and written to JSON: a hostile name must not carry escape
 * sequences or invalid UTF-8 into them. */
static const char *show(const struct rd *r, size_t at, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < cap; i++)
        out[k++] = r->buf[at + i] >= 0x20 && r->buf[at + i] < 0x7F ? (char)r->buf[at + i] : '?';
    out[k] = '\0';
    return out;
}

/* Reads a name: *at is its offset in buf, *n its length. kind/idx say whose, for messages. */
static void get_name(struct rd *r, const char *kind, unsigned long long idx, size_t *at, size_t *n)
{
    char what[160];
    snprintf(what, sizeof what, "the name of %s %llu", kind, idx);
    /* Truncation inside the name reports "the name of dimension 3", then the caller's context
     * returns. */
    const char *was = r->what;
    r->what = what;
    unsigned long long len = get_count(r, what);
    *at = r->pos;
    *n = 0;
    /* NC_MAX_NAME (256) is the library's own limit; a longer name would be refused only after
     * nc_open had allocated for the whole header. */
    if (r->rc == LENS_OK && (len == 0 || len > NC_MAX_NAME))
        fail(r, "%s is %llu bytes long (1 to %d allowed)", what, len, NC_MAX_NAME);
    skip(r, len);
    r->what = was;
    if (r->rc != LENS_OK)
        return;
    *n = (size_t)len;
    const unsigned char *s = r->buf + *at;
    if (!lens_nc_guard_utf8((const char *)s, *n))
        fail(r, "%s is not valid UTF-8", what);
    /* Control characters break messages and CSV output, and '/' is the group separator of
     * NetCDF-4 paths: the library refuses both in names it creates, so a file holding them was
     * not written by it. */
    for (size_t i = 0; i < *n && r->rc == LENS_OK; i++)
        if (s[i] < 0x20 || s[i] == 0x7F || s[i] == '/')
            fail(r, "%s holds a control character or '/' at byte %zu", what, i);
}

/* A list header: tag and count, ABSENT being ZERO ZERO. Each entry takes at least min bytes,
 * so the count is bounded by the bytes left in the file. */
static unsigned long long get_list(struct rd *r, unsigned tag, const char *kind, unsigned long long min)
{
    char what[160];
    snprintf(what, sizeof what, "the count of %s", kind);
    r->what = what;
    unsigned long long t = get_uint(r, 4), n = get_count(r, what);
    if (r->rc != LENS_OK)
        return 0;
    /* The specification allows an empty list written as ABSENT (tag 0, count 0) or with its own
     * tag and count 0; a non-empty list must carry its tag. */
    if (n > 0 && t != tag)
        fail(r, "the list of %s has tag %llu, expected %u", kind, t, tag);
    else if (n == 0 && t != 0 && t != tag)
        fail(r, "the empty list of %s has tag %llu", kind, t);
    /* The key bound of the whole guard: entries cannot outnumber the bytes that could hold them,
     * so what libnetcdf allocates for the lists is at most the file size. */
    else if (n > (r->fsize - r->pos) / min)
        fail(r, "the header declares %llu %s, but the file holds %llu bytes", n, kind, r->fsize);
    return r->rc == LENS_OK ? n : 0;
}

static unsigned type_size(const struct rd *r, unsigned long long t)
{
    /* Bytes per value of NC_BYTE .. NC_DOUBLE (types 1 to 6, every format) and NC_UBYTE ..
     * NC_UINT64 (7 to 11, CDF-5 only); 0 is not a type. */
    static const unsigned sizes[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
    return t >= 1 && t <= (r->cdf5 ? 11u : 6u) ? sizes[t] : 0;
}

/* Reads the name of entry idx of a list (kind, e.g. "variable") into nm, for messages, and
 * adds it to h: a repeated name is an error, since libnetcdf 4.9 silently resolves it to the
 * last entry of that name. Returns 0, or -1 when reading stopped (r->rc says why). */
static int get_unique_name(struct rd *r, struct names *h, const char *kind, const char *plural,
                           unsigned long long idx, char *nm, size_t cap)
{
    size_t at, len;
    get_name(r, kind, idx, &at, &len);
    if (r->rc != LENS_OK)
        return -1;
    show(r, at, len, nm, cap);
    int dup = names_add(r, h, at, len);
    if (dup > 0)
        fail(r, "two %s are named '%s'", plural, nm);
    return dup ? -1 : 0;
}

/* An attribute list (global or a variable's): name, type, count and the values, padded. The
 * values themselves are skipped, never interpreted. */
static void get_atts(struct rd *r, const char *owner)
{
    char kind[160];
    snprintf(kind, sizeof kind, "attributes of %s", owner);
    /* Smallest attribute: name length, a name of 4 padded bytes, type (4), count, no values. */
    unsigned long long n = get_list(r, TAG_ATTRIBUTE, kind, (unsigned long long)(2 * r->cnt + 8));
    if (r->rc != LENS_OK || n == 0)
        return;
    struct names h = {0};
    snprintf(kind, sizeof kind, "attribute of %s", owner);
    char nm[80];
    char plural[160];
    snprintf(plural, sizeof plural, "attributes of %s", owner);
    for (unsigned long long a = 0; a < n && r->rc == LENS_OK; a++) {
        if (get_unique_name(r, &h, kind, plural, a, nm, sizeof nm))
            break;
        r->what = kind;
        unsigned long long t = get_uint(r, 4), cnt = get_count(r, "an attribute's length"), bytes = 0;
        unsigned size = type_size(r, t);
        if (r->rc != LENS_OK)
            break;
        if (!size)
            fail(r, "attribute '%s' of %s has an invalid type %llu", nm, owner, t);
        else if (!mul_ok(cnt, size, &bytes) || bytes > r->fsize - r->pos)
            fail(r, "attribute '%s' of %s declares %llu values, but the file holds %llu bytes",
                 nm, owner, cnt, r->fsize);
        else
            skip(r, bytes);
    }
    names_free(&h);
}

/* What the variables need from the file, gathered while parsing (no per-variable storage). */
struct extent {
    unsigned long long first_begin; /* smallest begin */
    unsigned long long need;        /* largest begin + size of a fixed-size variable */
    unsigned long long recbegin;    /* smallest begin of a record variable */
    unsigned long long recsize;     /* bytes of one record: the record variables' sizes */
    unsigned long long last_recvar; /* unpadded size of the last record variable read */
    unsigned long long tail_begin;  /* begin of the record variable stored last in a record */
    unsigned long long tail_pad;    /* its padding, which the last record may lack */
    int nrec;                       /* record variables */
    char first[80];                 /* name of the variable at first_begin */
};

static void get_vars(struct rd *r, const unsigned long long *dimlen, unsigned long long ndims,
                     unsigned long long unlimited, struct extent *x)
{
    unsigned long long n = get_list(r, TAG_VARIABLE, "variables",
                                    (unsigned long long)(4 * r->cnt + r->off + 12));
    if (r->rc != LENS_OK || n == 0)
        return;
    struct names h = {0};
    for (unsigned long long v = 0; v < n && r->rc == LENS_OK; v++) {
        char nm[80], owner[120];
        if (get_unique_name(r, &h, "variable", "variables", v, nm, sizeof nm))
            break;
        snprintf(owner, sizeof owner, "variable '%s'", nm);
        r->what = owner;
        unsigned long long rank = get_count(r, "a variable's rank");
        /* Each dimension id takes cnt bytes, so the rank is bounded by the file as the lists
         * are. */
        if (r->rc == LENS_OK && (rank > NC_MAX_VAR_DIMS || rank > (r->fsize - r->pos) / (unsigned)r->cnt)) {
            fail(r, "variable '%s' has %llu dimensions (at most %d, and the file holds %llu bytes)", nm, rank,
                 NC_MAX_VAR_DIMS, r->fsize);
            break;
        }
        /* size of the variable (of one record for a record variable), in elements so far */
        unsigned long long elems = 1;
        int isrec = 0, toobig = 0;
        for (unsigned long long d = 0; d < rank && r->rc == LENS_OK; d++) {
            unsigned long long id = get_uint(r, r->cnt);
            if (r->rc != LENS_OK)
                break;
            if (id >= ndims)
                fail(r, "variable '%s' uses dimension id %llu, but there are %llu dimensions", nm, id, ndims);
            /* Only the first dimension may be the record dimension (the format stores a record
             * variable record by record); the library would misplace the data otherwise. */
            else if (id == unlimited && d > 0)
                fail(r, "variable '%s' has the record dimension in position %llu (only the first may be)", nm, d);
            else if (id == unlimited)
                isrec = 1;
            else if (!mul_ok(elems, dimlen[id], &elems))
                toobig = 1;
        }
        get_atts(r, owner);
        r->what = owner;
        unsigned long long t = get_uint(r, 4), vsize = get_uint(r, r->cnt), begin = get_uint(r, r->off);
        if (r->rc != LENS_OK)
            break;
        unsigned size = type_size(r, t);
        unsigned long long bytes = 0;
        if (!size) {
            fail(r, "variable '%s' has an invalid type %llu", nm, t);
            break;
        }
        /* bytes <= 2^64 - 4 keeps the padding below from wrapping. */
        if (toobig || !mul_ok(elems, size, &bytes) || bytes > UINT64_MAX - 3) {
            fail(r, "variable '%s' is larger than 2^64 bytes", nm);
            break;
        }
        unsigned long long padded = (bytes + 3) & ~3ULL;
        /* vsize is the padded size (unpadded for a lone record variable); in CDF-1 and CDF-2
         * a variable too large for 32 bits has vsize 2^32 - 1. The library recomputes it, so
         * a disagreement means a damaged header rather than a misread. */
        if (vsize != padded && vsize != bytes && !(r->cnt == 4 && vsize == STREAMING32 && padded >= STREAMING32 - 3)) {
            fail(r, "variable '%s' has vsize %llu, but its shape and type make %llu bytes", nm, vsize, padded);
            break;
        }
        /* The variable that starts first must start after the header: data overlapping the
         * header would be read as values by the library. */
        if (begin < x->first_begin) {
            x->first_begin = begin;
            snprintf(x->first, sizeof x->first, "%s", nm);
        }
        if (isrec) {
            x->recsize += padded;
            x->last_recvar = bytes;
            if (x->nrec == 0 || begin >= x->tail_begin) {
                x->tail_begin = begin;
                x->tail_pad = padded - bytes;
            }
            x->recbegin = begin < x->recbegin ? begin : x->recbegin;
            x->nrec++;
            /* The sum wrapped. */
            if (x->recsize < padded) {
                fail(r, "the record variables need more than 2^64 bytes per record");
                break;
            }
        } else if (begin > r->fsize || bytes > r->fsize - begin) {
            /* A fixed-size variable must lie wholly inside the file: the library would return
             * fill values for the missing part without an error. */
            fail(r, "truncated NetCDF file: %llu bytes, variable '%s' needs bytes %llu to %llu", r->fsize, nm,
                 begin, begin + bytes > begin ? begin + bytes : UINT64_MAX);
            break;
        } else if (begin + bytes > x->need) {
            x->need = begin + bytes;
        }
    }
    names_free(&h);
}

static int check_classic(struct rd *r, unsigned version)
{
    r->cdf5 = version == 5;
    r->cnt = r->cdf5 ? 8 : 4;
    r->off = version == 1 ? 4 : 8;
    r->pos = 4;
    r->what = "numrecs";
    unsigned long long numrecs = get_uint(r, r->cnt);
    int streaming = numrecs == (r->cdf5 ? UINT64_MAX : STREAMING32);
    if (r->rc == LENS_OK && !streaming && numrecs >> (r->cnt * 8 - 1))
        fail(r, "numrecs is negative (%llu as unsigned)", numrecs);
    /* Smallest dimension: name length, a 4-byte padded name, its size. */
    unsigned long long ndims = get_list(r, TAG_DIMENSION, "dimensions", (unsigned long long)(2 * r->cnt + 4));
    if (r->rc != LENS_OK)
        return r->rc;
    /* grown as dimensions are read: a declared count costs nothing until its entries are there */
    unsigned long long *dimlen = NULL, unlimited = UINT64_MAX;
    size_t dimcap = 0;
    struct names h = {0};
    for (unsigned long long d = 0; d < ndims && r->rc == LENS_OK; d++) {
        if (lens_reserve((void **)&dimlen, &dimcap, (size_t)d + 1, sizeof *dimlen) != LENS_OK) {
            r->rc = lens_err_set(r->e, LENS_ENOMEM, "%s: out of memory reading the header", r->path);
            break;
        }
        char nm[80];
        if (get_unique_name(r, &h, "dimension", "dimensions", d, nm, sizeof nm))
            break;
        r->what = "a dimension's size";
        dimlen[d] = get_count(r, "a dimension's size");
        /* Size 0 declares the record (unlimited) dimension; the classic formats allow one. */
        if (r->rc == LENS_OK && dimlen[d] == 0) {
            if (unlimited != UINT64_MAX)
                fail(r, "dimensions %llu and %llu are both the record dimension (size 0)", unlimited, d);
            unlimited = d;
        }
    }
    names_free(&h);
    get_atts(r, "the file (global)");
    /* first_begin and recbegin start at the maximum so that the first variable read sets them. */
    struct extent x = {UINT64_MAX, 0, UINT64_MAX, 0, 0, 0, 0, 0, ""};
    if (r->rc == LENS_OK)
        get_vars(r, dimlen, ndims, unlimited, &x);
    lens_free(dimlen);
    if (r->rc != LENS_OK)
        return r->rc;
    /* Everything parsed so far is the header (its padding excepted): the end of the variable
     * list. */
    unsigned long long header = r->pos;
    if (x.first_begin < header)
        return fail(r, "variable '%s' begins at byte %llu, inside the header of %llu bytes", x.first, x.first_begin,
                    header);
    /* a lone record variable is not padded: records are packed at its own size */
    unsigned long long recsize = x.nrec == 1 ? x.last_recvar : x.recsize, need = x.need, recs = 0;
    /* Record data start at recbegin and take numrecs records of recsize bytes each. */
    if (x.nrec > 0 && !streaming) {
        if (!mul_ok(numrecs, recsize, &recs) || x.recbegin > UINT64_MAX - recs)
            return fail(r, "the header declares %llu records of %llu bytes, more than 2^64 bytes", numrecs, recsize);
        /* the padding of the last variable of the last record need not be written */
        if (recs > 0 && x.nrec > 1)
            recs -= x.tail_pad;
        if (x.recbegin + recs > need)
            need = x.recbegin + recs;
    }
    /* need is the furthest byte any variable or record claims; a shorter file was cut off. */
    if (r->fsize < need)
        return r->rc = lens_err_set(r->e, LENS_EFORMAT, "%s: truncated NetCDF file: %llu bytes, the header "
                                    "promises %llu", r->path, r->fsize, need);
    return LENS_OK;
}

/* Reads n <= 64 bytes at offset off straight from the file (the HDF5 checks jump around:
 * no need to buffer what lies between). 0 if the file is shorter. */
static int read_at(struct rd *r, unsigned long long off, unsigned char *out, size_t n)
{
    if (off > r->fsize || n > r->fsize - off || fseeko(r->fp, (off_t)off, SEEK_SET) != 0)
        return 0;
    return fread(out, 1, n, r->fp) == n;
}

static unsigned long long le(const unsigned char *p, unsigned n)
{
    unsigned long long v = 0;
    while (n--) /* HDF5 is little-endian */
        v = v << 8 | p[n];
    return v;
}

/* NetCDF-4: the HDF5 signature at base, the superblock's version, address size and end of file. */
static int check_hdf5(struct rd *r, unsigned long long base)
{
    unsigned char sb[64] = {0};
    size_t got = (size_t)(r->fsize - base < sizeof sb ? r->fsize - base : sizeof sb);
    if (!read_at(r, base, sb, got) || got < 16)
        return fail(r, "the HDF5 superblock is truncated (%llu bytes)", r->fsize);
    /* Superblock layout (HDF5 file format specification): the 8-byte signature, the version at
     * byte 8; versions 0 and 1 keep the size of offsets at byte 13, versions 2 and 3 at byte 9. */
    unsigned version = sb[8], osize = version < 2 ? sb[13] : sb[9];
    if (version > 3)
        return fail(r, "HDF5 superblock version %u is unknown", version);
    /* The specification allows 2, 4, 8 (and 16, which no library writes); anything else would
     * misplace the addresses read below. */
    if (osize != 2 && osize != 4 && osize != 8)
        return fail(r, "the HDF5 superblock declares %u-byte addresses", osize);
    /* Three addresses follow the fields: base, free-space (or extension) and end of file.
     * Offset of the base address: versions 0 and 1 have the versions, sizes, two K values and
     * flags before it (version 1 four bytes more: the indexed-storage K and padding), versions 2
     * and 3 only the sizes and flags. */
    size_t fields = version == 0 ? 24 : version == 1 ? 28 : 12;
    if (got < fields + 3 * osize)
        return fail(r, "the HDF5 superblock is truncated (%llu bytes)", r->fsize);
    unsigned long long addr_base = le(sb + fields, osize), eof = le(sb + fields + 2 * osize, osize);
    /* The end-of-file address is relative to the base address; a file shorter than it was cut
     * off, and the HDF5 library would fail deep inside a read, or return garbage. */
    if (addr_base > UINT64_MAX - eof || addr_base + eof > r->fsize)
        return r->rc = lens_err_set(r->e, LENS_EFORMAT, "%s: truncated NetCDF-4 (HDF5) file: %llu bytes, the "
                                    "superblock promises %llu", r->path, r->fsize,
                                    addr_base > UINT64_MAX - eof ? UINT64_MAX : addr_base + eof);
    return LENS_OK;
}

int lens_nc_guard_check(const char *path, struct lens_err *e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    /* A regular file only: every bound below is the file size, which a FIFO or device lacks,
     * and a FIFO read by the guard would be empty for nc_open. */
    if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        fclose(fp);
        return lens_err_set(e, LENS_EIO, "%s: not a regular file", path);
    }
    struct rd r = {.fp = fp, .path = path, .e = e, .fsize = (unsigned long long)sb.st_size, .rc = LENS_OK,
                   .what = "the magic number"};
    int rc;
    if (r.fsize < 4) {
        rc = fail(&r, "%llu bytes, too short for a header", r.fsize);
    } else if (need(&r, 4) == LENS_OK && !memcmp(r.buf, "CDF", 3) && (r.buf[3] == 1 || r.buf[3] == 2 || r.buf[3] == 5)) {
        rc = check_classic(&r, r.buf[3]);
    } else {
        rc = r.rc;
        static const unsigned char hdf5[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
        unsigned char sig[8];
        unsigned long long at = 0;
        int found = 0;
        /* HDF5 looks for its signature at 0, 512, 1024, 2048 ... */
        while (rc == LENS_OK && !found && r.fsize >= 8 && at <= r.fsize - 8) {
            found = read_at(&r, at, sig, 8) && !memcmp(sig, hdf5, 8);
            if (!found)
                at = at ? 2 * at : 512;
        }
        if (rc == LENS_OK)
            rc = found ? check_hdf5(&r, at) : fail(&r, "no NetCDF (CDF1, CDF2, CDF5) or HDF5 signature");
    }
    lens_free(r.buf);
    fclose(fp);
    return rc;
}

int lens_nc_guard_open(const char *path, int *id, struct lens_err *e)
{
    *id = -1;
    int rc = lens_nc_guard_check(path, e);
    if (rc != LENS_OK)
        return rc;
    /* The file could change between the check and the open; the guard protects against damaged
     * files, not against someone racing us, and the library's own checks still apply. */
    int st = nc_open(path, NC_NOWRITE, id);
    if (st != NC_NOERR) {
        *id = -1;
        return lens_err_set(e, LENS_EFORMAT, "%s: " NOT_NC ": %s", path, nc_strerror(st));
    }
    return LENS_OK;
}
