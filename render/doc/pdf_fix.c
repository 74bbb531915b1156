/* ToUnicode repair for libharu 2.3 PDFs (see pdf_fix.h). A small reader for exactly the
 * PDF that libharu writes: header, numbered objects, one classic xref table, trailer. The
 * input is not NUL-terminated, so every scan below is bounded by an end pointer. */
#include "pdf_fix.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More objects than this is not a report (libharu writes a few per page and image). */
#define MAX_OBJECTS 10000000UL

/* A value inside the input: [p, end), not terminated (the input may hold NUL bytes in streams). */
struct span {
    const unsigned char *p, *end;
};

/* One entry of the xref table, indexed by object number. The output keeps every number and
 * generation, only offsets change, so references elsewhere in the file stay valid. */
struct obj {
    size_t off;  /* byte offset of "N G obj" in the input, from the xref table */
    size_t end;  /* where the next object (or the xref table) starts */
    size_t noff; /* offset in the output */
    unsigned gen;
    int seen, inuse, replace; /* listed in the xref table, in use, to be replaced */
    unsigned char entry[20]; /* the input's xref entry, reused for free entries */
};

/* The output, grown as it is written. An allocation failure sets nomem and turns later writes into
 * no-ops, so the writer checks once at the end instead of after every put. */
struct buf {
    unsigned char *p;
    size_t n, cap;
    int nomem;
};

static void put(struct buf *b, const void *s, size_t n)
{
    if (b->nomem)
        return;
    if (lens_reserve((void **)&b->p, &b->cap, b->n + n + 1, 1) != LENS_OK) {
        b->nomem = 1;
        return;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void putf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(struct buf *b, const char *fmt, ...)
{
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (k > 0)
        /* Everything formatted here is a number or an xref line, far shorter than tmp; a longer one
         * would be cut rather than overflow. */
        put(b, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

/* ---- lexical level (PDF 32000-1 §7.2): whitespace, delimiters, tokens ---- */

/* NUL counts as whitespace in PDF (§7.2.2), so a NUL between tokens is skipped, never taken as an
 * end. */
static int is_ws(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0; }
static int is_delim(unsigned char c) { return strchr("()<>[]{}/%", c) != NULL && c != 0; }
static int is_regular(unsigned char c) { return !is_ws(c) && !is_delim(c); }

/* Skips whitespace and comments. */
static const unsigned char *skip_ws(const unsigned char *p, const unsigned char *end)
{
    while (p < end) {
        if (*p == '%') {
            while (p < end && *p != '\n' && *p != '\r')
                p++;
        } else if (is_ws(*p)) {
            p++;
        } else {
            break;
        }
    }
    return p;
}

/* Reads an unsigned decimal integer of at most 19 digits; NULL if there is none. */
static const unsigned char *read_uint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
    const unsigned char *s = p;
    uint64_t x = 0;
    /* 19 digits always fit 64 bits: a longer number (a hostile offset) is refused below instead of
     * wrapping around. */
    while (p < end && *p >= '0' && *p <= '9' && p - s < 19)
        x = x * 10 + (uint64_t)(*p++ - '0');
    if (p == s || (p < end && *p >= '0' && *p <= '9'))
        return NULL;
    *v = x;
    return p;
}

/* True when the token at p is exactly kw (followed by a non-regular character). */
static int is_keyword(const unsigned char *p, const unsigned char *end, const char *kw)
{
    size_t k = strlen(kw);
    /* A prefix is not a match: "objx" is not "obj", "Ref" not "R". */
    return (size_t)(end - p) >= k && !memcmp(p, kw, k) && (p + k == end || !is_regular(p[k]));
}

/* mutual recursion with skip_until for arrays and dictionaries */
static const unsigned char *skip_value(const unsigned char *p, const unsigned char *end, int depth);

/* Skips a literal string "( ... )": balanced parentheses, backslash escapes. */
static const unsigned char *skip_literal(const unsigned char *p, const unsigned char *end)
{
    int nest = 0;
    for (; p < end; p++) {
        if (*p == '\\') {
            if (end - p < 2)
                break;
            p++; /* the escaped byte, whatever it is */
        /* Unescaped parentheses nest in a literal string (§7.3.4.2): count them. */
        } else if (*p == '(') {
            nest++;
        } else if (*p == ')' && --nest == 0) {
            return p + 1;
        }
    }
    return NULL;
}

/* Skips values up to the closing delimiter close ("]" or ">>"). */
static const unsigned char *skip_until(const unsigned char *p, const unsigned char *end, const char *close,
                                       int depth)
{
    size_t k = strlen(close);
    for (;;) {
        p = skip_ws(p, end);
        if (p >= end)
            return NULL;
        /* The closer is checked before a value is skipped, so ">>" is not read as the start of a
         * hexadecimal string. */
        if ((size_t)(end - p) >= k && !memcmp(p, close, k))
            return p + k;
        if (!(p = skip_value(p, end, depth + 1)))
            return NULL;
    }
}

/* Skips one object: a name, number, string, array, dictionary, keyword or "N G R" reference.
 * Depth guards against stack exhaustion on hostile nesting. */
static const unsigned char *skip_value(const unsigned char *p, const unsigned char *end, int depth)
{
    p = skip_ws(p, end);
    if (p >= end || depth > 64)
        return NULL;
    /* "<<" opens a dictionary, a single "<" a hexadecimal string: test the longer first. */
    if (end - p >= 2 && p[0] == '<' && p[1] == '<')
        return skip_until(p + 2, end, ">>", depth);
    if (*p == '<') {
        const unsigned char *q = memchr(p, '>', (size_t)(end - p));
        return q ? q + 1 : NULL;
    }
    if (*p == '(')
        return skip_literal(p, end);
    if (*p == '[')
        return skip_until(p + 1, end, "]", depth);
    /* A name is a slash and regular characters; numbers, keywords (true, null, R) and bare
     * operators are regular characters alone. */
    int name = *p == '/';
    if (name)
        p++;
    else if (!is_regular(*p))
        return NULL; /* a stray ')', '>', ']' or '{' */
    const unsigned char *s = p;
    while (p < end && is_regular(*p))
        p++;
    uint64_t v;
    /* an integer may be the start of a reference "N G R": take all three tokens */
    if (!name && read_uint(s, p, &v) == p) {
        const unsigned char *q = skip_ws(p, end), *r = read_uint(q, end, &v);
        if (r && (r = skip_ws(r, end)) < end && is_keyword(r, end, "R"))
            return r + 1;
    }
    return p;
}

/* Finds key (with its slash, "/ToUnicode") among the top-level entries of the dictionary
 * that starts at d; *val gets the value's bytes. 0 when d is no dictionary or lacks key. */
static int dict_get(const unsigned char *d, const unsigned char *end, const char *key, struct span *val)
{
    size_t k = strlen(key);
    d = skip_ws(d, end);
    if (end - d < 2 || d[0] != '<' || d[1] != '<')
        return 0;
    const unsigned char *p = d + 2;
    for (;;) {
        p = skip_ws(p, end);
        if (p >= end || *p != '/')
            return 0; /* ">>" or malformed: either way the key is not there */
        /* Entries alternate key, value; the value is skipped whole, so a nested dictionary with the
         * same key (a font descriptor inside a font) is never mistaken for a top-level one. */
        const unsigned char *ks = p, *ke = skip_value(p, end, 0);
        if (!ke)
            return 0;
        const unsigned char *vs = skip_ws(ke, end), *ve = skip_value(vs, end, 0);
        if (!ve)
            return 0;
        if ((size_t)(ke - ks) == k && !memcmp(ks, key, k)) {
            val->p = vs;
            val->end = ve;
            return 1;
        }
        p = ve;
    }
}

/* True when the dictionary at d has key with the name value name ("/Type0"). */
static int dict_has_name(const unsigned char *d, const unsigned char *end, const char *key, const char *name)
{
    struct span v;
    size_t k = strlen(name);
    return dict_get(d, end, key, &v) && (size_t)(v.end - v.p) == k && !memcmp(v.p, name, k);
}

/* Reads the object number of a reference value "N G R". */
static int span_ref(struct span v, uint64_t *num)
{
    const unsigned char *q = read_uint(v.p, v.end, num);
    /* a number followed by more: the generation and R (a bare integer is not a reference) */
    return q && q < v.end && is_ws(*q);
}

/* ---- the replacement CMap ---- */

/* The bfrange entries of the identity: [lo, hi] inside one high byte each, as the CMap
 * format demands (a range may only vary in its last byte). Skips U+0000..U+001F (control
 * codes, which libharu's own CMap declares notdef), the surrogates D800..DFFF (not
 * characters), U+FEFF (a byte-order mark, which PDF/A forbids as a ToUnicode value) and the
 * noncharacters U+FFFE and U+FFFF. */
static int cmap_ranges(unsigned lo[300], unsigned hi[300])
{
    int n = 0;
    for (unsigned h = 0; h <= 0xFF; h++) {
        if (h >= 0xD8 && h <= 0xDF) /* the surrogates D800..DFFF, a whole high byte each */
            continue;
        unsigned a = h << 8, b = a | 0xFF;
        if (h == 0) /* U+0000..U+001F are control codes */
            a = 0x20;
        if (h == 0xFE) /* stop before U+FEFF, the byte-order mark */
            b = 0xFEFE;
        if (h == 0xFF) /* stop before the noncharacters U+FFFE and U+FFFF */
            b = 0xFFFD;
        lo[n] = a;
        hi[n++] = b;
    }
    return n;
}

size_t lens_pdf_fix_cmap(char *out, size_t cap)
{
    unsigned lo[300], hi[300];
    int n = cmap_ranges(lo, hi);
    struct buf b = {0};
    /* the standard ToUnicode preamble (Adobe TN 5411, PDF 32000-1 §9.10.3) */
    static const char head[] =
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n";
    static const char tail[] = "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n";
    put(&b, head, sizeof head - 1);
    /* at most 100 entries per begin/end block (PostScript's operand stack limit) */
    for (int i = 0; i < n; i += 100) {
        int k = n - i < 100 ? n - i : 100;
        putf(&b, "%d beginbfrange\n", k);
        for (int j = i; j < i + k; j++)
            putf(&b, "<%04X> <%04X> <%04X>\n", lo[j], hi[j], lo[j]);
        put(&b, "endbfrange\n", 11);
    }
    put(&b, tail, sizeof tail - 1);
    /* snprintf-like: the full length is returned even when cap cuts the copy, so
     * lens_pdf_fix_cmap(NULL, 0) sizes the buffer for a second call. */
    size_t len = b.nomem ? 0 : b.n;
    if (cap > 0) {
        size_t c = len < cap ? len : cap - 1;
        if (c)
            memcpy(out, b.p, c);
        out[c] = '\0';
    }
    lens_free(b.p);
    return len;
}

/* ---- the file level ---- */

/* Every refusal names the byte offset: the input is our own libharu output, so a refusal is a bug
 * worth locating. */
static int bad(struct lens_err *e, size_t off, const char *what)
{
    return lens_err_set(e, LENS_EFORMAT, "pdf: %s at byte %zu", what, off);
}

/* Finds the last "startxref" and returns the offset it gives. */
static int find_startxref(const unsigned char *in, size_t n, size_t *xref, struct lens_err *e)
{
    static const char kw[] = "startxref";
    /* startxref ends the file (§7.5.5); 1024 bytes leave room for trailing bytes, and searching
     * backwards finds the last one, the one a reader uses. */
    size_t k = sizeof kw - 1, from = n > 1024 ? n - 1024 : 0;
    for (size_t i = n >= k ? n - k + 1 : 0; i-- > from;) {
        if (memcmp(in + i, kw, k))
            continue;
        uint64_t v;
        const unsigned char *end = in + n, *p = skip_ws(in + i + k, end);
        if (!read_uint(p, end, &v) || v >= n)
            return bad(e, i, "startxref does not give an offset inside the file");
        *xref = (size_t)v;
        return LENS_OK;
    }
    return bad(e, n, "no startxref near the end (truncated file?)");
}

/* Parses the xref table at off into objs (lens_malloc'd, *nobj entries indexed by object
 * number) and sets *trailer to the trailer dictionary. */
static int read_xref(const unsigned char *in, size_t n, size_t off, struct obj **objs, size_t *nobj,
                     struct span *trailer, struct lens_err *e)
{
    const unsigned char *end = in + n, *p = in + off;
    struct obj *o = NULL;
    size_t cap = 0, count = 0;
    if (!is_keyword(p, end, "xref"))
        return bad(e, off, "startxref does not point at an xref table (cross-reference streams are not supported)");
    p += 4;
    for (;;) {
        p = skip_ws(p, end);
        if (is_keyword(p, end, "trailer"))
            break;
        uint64_t first, cnt;
        const unsigned char *q = read_uint(p, end, &first);
        if (q)
            q = read_uint(skip_ws(q, end), end, &cnt);
        /* Bounds before allocating: a subsection cannot hold more entries than the bytes left can
         * carry (20 each), so a corrupt count cannot make us reserve gigabytes. */
        if (!q || first > MAX_OBJECTS || cnt > MAX_OBJECTS || first + cnt > MAX_OBJECTS ||
            cnt > (uint64_t)(end - q) / 20) {
            lens_free(o);
            return bad(e, (size_t)(p - in), "bad xref subsection header");
        }
        /* the EOL after the header, then fixed 20-byte entries "oooooooooo ggggg n\r\n" */
        while (q < end && (*q == ' ' || *q == '\r' || *q == '\n'))
            q++;
        /* Subsections may come in any order and leave gaps: grow to the highest number seen and
         * zero the new entries (seen = 0 marks a gap). */
        size_t need = (size_t)(first + cnt);
        if (need > count && lens_reserve((void **)&o, &cap, need, sizeof *o) != LENS_OK) {
            lens_free(o);
            return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
        }
        if (need > count) {
            memset(o + count, 0, (need - count) * sizeof *o);
            count = need;
        }
        for (uint64_t i = 0; i < cnt; i++, q += 20) {
            uint64_t v, g;
            const unsigned char *r = q + 20 <= end ? read_uint(q, q + 10, &v) : NULL;
            if (r == q + 10)
                r = read_uint(q + 11, q + 16, &g);
            if (r != q + 16 || q[10] != ' ' || q[16] != ' ' || (q[17] != 'n' && q[17] != 'f')) {
                lens_free(o);
                return bad(e, (size_t)(q - in), "bad xref entry");
            }
            struct obj *x = &o[first + i];
            memcpy(x->entry, q, 20);
            x->seen = 1;
            x->gen = (unsigned)g;
            x->inuse = q[17] == 'n';
            x->off = (size_t)v;
            /* An object lives between the header and the xref table; anything else would make
             * obj_body read outside the objects. */
            if (x->inuse && (v == 0 || v >= off)) {
                lens_free(o);
                return bad(e, (size_t)(q - in), "xref entry points outside the objects");
            }
        }
        p = q;
    }
    p = skip_ws(p + 7, end); /* past "trailer" */
    const unsigned char *t = skip_value(p, end, 0);
    if (!t || *p != '<') {
        lens_free(o);
        return bad(e, (size_t)(p - in), "no trailer dictionary");
    }
    trailer->p = p;
    trailer->end = t;
    *objs = o;
    *nobj = count;
    return LENS_OK;
}

/* An object's offset with its number, to sort the objects into file order. */
struct placed {
    size_t off, num;
};

static int by_offset(const void *a, const void *b)
{
    size_t x = ((const struct placed *)a)->off, y = ((const struct placed *)b)->off;
    return x < y ? -1 : x > y;
}

/* Checks that each in-use entry points at "N G obj" and sets each object's end to the
 * start of the next one in file order (or of the xref table). */
static int locate_objects(const unsigned char *in, size_t xref, struct obj *o, size_t nobj,
                          size_t **order_out, size_t *norder, struct lens_err *e)
{
    size_t *ord = lens_malloc((nobj ? nobj : 1) * sizeof *ord), k = 0;
    struct placed *pl = lens_malloc((nobj ? nobj : 1) * sizeof *pl);
    if (!ord || !pl) {
        lens_free(ord);
        lens_free(pl);
        return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
    }
    const unsigned char *end = in + xref;
    for (size_t i = 0; i < nobj; i++) {
        if (!o[i].inuse)
            continue;
        uint64_t num, gen;
        const unsigned char *p = in + o[i].off, *q = read_uint(p, end, &num);
        if (q)
            q = read_uint(skip_ws(q, end), end, &gen);
        /* The entry must point at the object it numbers: an off-by-some offset would otherwise copy
         * the wrong bytes under the right number. */
        if (!q || num != i || !is_keyword(skip_ws(q, end), end, "obj")) {
            lens_free(ord);
            lens_free(pl);
            lens_err_set(e, LENS_EFORMAT, "pdf: xref entry of object %zu points at byte %zu, which does not start it",
                         i, o[i].off);
            return LENS_EFORMAT;
        }
        pl[k].off = o[i].off;
        pl[k++].num = i;
    }
    /* libharu writes objects in number order, but nothing in the format says so */
    qsort(pl, k, sizeof *pl, by_offset);
    for (size_t j = 0; j < k; j++)
        ord[j] = pl[j].num;
    lens_free(pl);
    for (size_t j = 0; j < k; j++) {
        /* An object ends where the next one starts: the bytes between (the "endobj" and line ends)
         * are copied with it, so the output keeps libharu's layout byte for byte. */
        o[ord[j]].end = j + 1 < k ? o[ord[j + 1]].off : xref;
        if (j + 1 < k && o[ord[j + 1]].off == o[ord[j]].off) {
            lens_free(ord);
            return bad(e, o[ord[j]].off, "two xref entries point at the same object");
        }
    }
    *order_out = ord;
    *norder = k;
    return LENS_OK;
}

/* The value of object i: the bytes after "N G obj". */
static const unsigned char *obj_body(const unsigned char *in, const struct obj *x)
{
    const unsigned char *p = in + x->off, *end = in + x->end;
    /* locate_objects checked that "N G obj" starts the object, so this scan stops within the first
     * few bytes. */
    while (p < end && !is_keyword(p, end, "obj"))
        p++;
    return p + 3 <= end ? p + 3 : end;
}

/* Marks the ToUnicode streams that are libharu's encoding CMap: referenced by a Type0 font
 * with /Encoding /Identity-H, and carrying /CMapName /UTF-8 in their own dictionary (a real
 * ToUnicode CMap names no encoding). Returns how many were marked. */
static int mark_broken(const unsigned char *in, struct obj *o, size_t nobj)
{
    int marked = 0;
    for (size_t i = 0; i < nobj; i++) {
        if (!o[i].inuse)
            continue;
        const unsigned char *d = obj_body(in, &o[i]), *end = in + o[i].end;
        struct span v;
        uint64_t t;
        /* Only libharu's UTF-8 Type0 fonts carry the broken CMap; the checks are all on names
         * libharu writes, so a font of another kind is never touched. */
        if (!dict_has_name(d, end, "/Type", "/Font") || !dict_has_name(d, end, "/Subtype", "/Type0") ||
            !dict_has_name(d, end, "/Encoding", "/Identity-H") || !dict_get(d, end, "/ToUnicode", &v) ||
            !span_ref(v, &t) || t >= nobj || !o[t].inuse || o[t].replace)
            continue;
        const unsigned char *cd = obj_body(in, &o[t]), *cend = in + o[t].end;
        /* The encoding CMap names itself /UTF-8; a real ToUnicode CMap names no encoding. The
         * codes in these fonts' content streams are UTF-16 code units, so the identity that
         * replaces it is the right map (pdf_fix.h). */
        if (dict_has_name(cd, cend, "/CMapName", "/UTF-8")) {
            o[t].replace = 1;
            marked++;
        }
    }
    return marked;
}

int lens_pdf_fix_tounicode(const unsigned char *in, size_t n, unsigned char **out, size_t *outn,
                           int *nfixed, struct lens_err *e)
{
    *out = NULL;
    *outn = 0;
    if (nfixed)
        *nfixed = 0;
    if (n < 8 || memcmp(in, "%PDF-", 5)) /* "%PDF-1.x" is eight bytes */
        return bad(e, 0, "no %PDF- header");
    size_t xref = 0, nobj = 0, norder = 0, *ord = NULL;
    struct obj *o = NULL;
    struct span trailer = {0};
    int rc = find_startxref(in, n, &xref, e);
    if (rc == LENS_OK)
        rc = read_xref(in, n, xref, &o, &nobj, &trailer, e);
    if (rc != LENS_OK)
        return rc;
    /* an incremental update or encryption would need more than one table or re-encrypting
     * our stream; libharu writes neither for us, so refuse rather than guess */
    struct span v;
    if (dict_get(trailer.p, trailer.end, "/Prev", &v))
        rc = bad(e, (size_t)(trailer.p - in), "incremental updates are not supported");
    else if (dict_get(trailer.p, trailer.end, "/Encrypt", &v))
        rc = bad(e, (size_t)(trailer.p - in), "encrypted files are not supported");
    if (rc == LENS_OK)
        rc = locate_objects(in, xref, o, nobj, &ord, &norder, e);
    if (rc != LENS_OK) {
        lens_free(o);
        return rc;
    }
    /* "replace" is per object: a CMap two fonts point at is marked, counted and rewritten once. */
    int marked = mark_broken(in, o, nobj);
    struct buf b = {0};
    if (marked == 0 || norder == 0) {
        put(&b, in, n); /* nothing to repair: the input as it is */
    } else {
        size_t cmlen = lens_pdf_fix_cmap(NULL, 0); /* 0 only when out of memory */
        char *cmap = cmlen ? lens_malloc(cmlen + 1) : NULL;
        if (cmap)
            lens_pdf_fix_cmap(cmap, cmlen + 1);
        else
            b.nomem = 1;
        /* The objects are rewritten in their file order, each at its new offset (noff), which the
         * new xref table lists. */
        put(&b, in, o[ord[0]].off); /* header and binary-marker comment */
        for (size_t j = 0; j < norder && !b.nomem; j++) {
            struct obj *x = &o[ord[j]];
            x->noff = b.n;
            if (!x->replace) {
                put(&b, in + x->off, x->end - x->off);
                continue;
            }
            /* same number, a direct /Length: libharu's indirect length object is left
             * unreferenced, which is legal and keeps every other object untouched */
            putf(&b, "%zu %u obj\n<<\n/Length %zu\n>>\nstream\n", ord[j], x->gen, cmlen);
            put(&b, cmap, cmlen);
            put(&b, "endstream\nendobj\n", 17);
        }
        lens_free(cmap);
        size_t nxref = b.n;
        /* One subsection from object 0: the input's gaps become free entries, which every reader
         * accepts. */
        putf(&b, "xref\n0 %zu\n", nobj);
        for (size_t i = 0; i < nobj; i++) {
            if (o[i].inuse)
                putf(&b, "%010zu %05u n\r\n", o[i].noff, o[i].gen);
            else if (o[i].seen) /* free entries link the free list: keep them as they are */
                put(&b, o[i].entry, 20);
            else /* a gap between subsections: free, never to be reused */
                put(&b, "0000000000 65535 f\r\n", 20);
        }
        put(&b, "trailer\n", 8);
        /* The trailer is kept as it was: /Size, /Root and /Info still hold, since no object was
         * added or renumbered. */
        put(&b, trailer.p, (size_t)(trailer.end - trailer.p));
        putf(&b, "\nstartxref\n%zu\n%%%%EOF\n", nxref);
    }
    lens_free(o);
    lens_free(ord);
    if (b.nomem) {
        lens_free(b.p);
        return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
    }
    *out = b.p;
    *outn = b.n;
    if (nfixed)
        *nfixed = marked;
    return LENS_OK;
}
