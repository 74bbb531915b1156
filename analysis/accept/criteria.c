/* The parser of acceptance criteria files (criteria.h, docs/accept.md): a hand-written
 * scanner over one line at a time, so that every complaint can point at the column of the
 * token it is about, and every limit is turned into SI base units here, once. */
#include "criteria.h"

#include "analysis/cube/cube.h"
#include "common/textline.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys a metric accepts (bit per key). label= goes with every metric. A key a metric does
 * not take is an error rather than ignored: `anomalies.total == 0 length=4096` would
 * otherwise read as a promise about one length that nothing checks. */
enum { K_LENGTH = 1, K_SIZE = 2, K_SCOPE = 4, K_STAT = 8, K_LABEL = 16 };
static const char *const key_names[] = {"length", "size", "scope", "stat", "label"};
#define NKEYS ((int)(sizeof key_names / sizeof *key_names))

/* The vocabulary, indexed by enum lens_criteria_metric (designated initialisers keep a row
 * from drifting away from its enum value). kind decides which units a limit may carry,
 * source which inputs feed it (accept.c), keys what may follow the limit. The cube metrics
 * take scope and length because they are measured per pair and per length; the anomaly
 * counts are one number per cube and statistic; the p2p metrics are per pair at one size;
 * the bisection metrics one number per run (PREFIX_bisection.csv), over its rounds; the
 * regressions one count per cube compared with its baseline (accept --baseline). */
static const struct metric {
    const char *name;
    int kind, source, keys;
} metrics[LENS_METRIC_COUNT] = {
    [LENS_METRIC_DELAY_MEDIAN] = {"cube.delay.median", LENS_CRITERIA_TIME, LENS_CRITERIA_CUBE, K_LENGTH | K_SCOPE | K_STAT | K_LABEL},
    [LENS_METRIC_DELAY_MIN] = {"cube.delay.min", LENS_CRITERIA_TIME, LENS_CRITERIA_CUBE, K_LENGTH | K_SCOPE | K_STAT | K_LABEL},
    [LENS_METRIC_DELAY_MAX] = {"cube.delay.max", LENS_CRITERIA_TIME, LENS_CRITERIA_CUBE, K_LENGTH | K_SCOPE | K_STAT | K_LABEL},
    [LENS_METRIC_DELAY_P95] = {"cube.delay.p95", LENS_CRITERIA_TIME, LENS_CRITERIA_CUBE, K_LENGTH | K_SCOPE | K_STAT | K_LABEL},
    [LENS_METRIC_DELAY_P99] = {"cube.delay.p99", LENS_CRITERIA_TIME, LENS_CRITERIA_CUBE, K_LENGTH | K_SCOPE | K_STAT | K_LABEL},
    [LENS_METRIC_SPREAD] = {"cube.spread", LENS_CRITERIA_RATIO, LENS_CRITERIA_CUBE, K_LENGTH | K_SCOPE | K_STAT | K_LABEL},
    [LENS_METRIC_ASYMMETRY_MAX] = {"cube.asymmetry.max", LENS_CRITERIA_RATIO, LENS_CRITERIA_CUBE, K_LENGTH | K_SCOPE | K_STAT | K_LABEL},
    [LENS_METRIC_SLOW_NODE] = {"anomalies.slow_node", LENS_CRITERIA_COUNT, LENS_CRITERIA_ANOMALIES, K_STAT | K_LABEL},
    [LENS_METRIC_BAD_LINK] = {"anomalies.bad_link", LENS_CRITERIA_COUNT, LENS_CRITERIA_ANOMALIES, K_STAT | K_LABEL},
    [LENS_METRIC_ASYMMETRIC_PAIR] = {"anomalies.asymmetric_pair", LENS_CRITERIA_COUNT, LENS_CRITERIA_ANOMALIES, K_STAT | K_LABEL},
    [LENS_METRIC_STRUCTURE_CHANGE] = {"anomalies.structure_change", LENS_CRITERIA_COUNT, LENS_CRITERIA_ANOMALIES, K_STAT | K_LABEL},
    [LENS_METRIC_ANOMALIES_TOTAL] = {"anomalies.total", LENS_CRITERIA_COUNT, LENS_CRITERIA_ANOMALIES, K_STAT | K_LABEL},
    [LENS_METRIC_P2P_LATENCY] = {"p2p.latency", LENS_CRITERIA_TIME, LENS_CRITERIA_P2P, K_SIZE | K_SCOPE | K_LABEL},
    [LENS_METRIC_P2P_BANDWIDTH] = {"p2p.bandwidth", LENS_CRITERIA_BANDWIDTH, LENS_CRITERIA_P2P, K_SIZE | K_SCOPE | K_LABEL},
    [LENS_METRIC_P2P_MSGRATE] = {"p2p.msgrate", LENS_CRITERIA_RATE, LENS_CRITERIA_P2P, K_SIZE | K_SCOPE | K_LABEL},
    [LENS_METRIC_BISECTION_MIN] = {"bisection.bandwidth.min", LENS_CRITERIA_BANDWIDTH, LENS_CRITERIA_BISECTION, K_LABEL},
    [LENS_METRIC_BISECTION_AVG] = {"bisection.bandwidth.avg", LENS_CRITERIA_BANDWIDTH, LENS_CRITERIA_BISECTION, K_LABEL},
    [LENS_METRIC_COMPARE_REGRESSIONS] = {"compare.regressions", LENS_CRITERIA_COUNT, LENS_CRITERIA_COMPARE, K_LABEL},
};

/* Decimal units carry a power of ten applied to the decimal text (exact), binary ones a
 * power of two applied by multiplication (also exact). µs is written with the micro sign
 * U+00B5 or the Greek mu U+03BC, which look the same. */
static const struct unit {
    const char *name;
    int kind, exp10; /* exp10: the value is the text times 10^exp10 */
    double mult;     /* then times this power of two (1 for decimal units) */
} units[] = {
    {"s", LENS_CRITERIA_TIME, 0, 1}, {"ms", LENS_CRITERIA_TIME, -3, 1},
    {"us", LENS_CRITERIA_TIME, -6, 1}, {"\xc2\xb5s", LENS_CRITERIA_TIME, -6, 1},
    {"\xce\xbcs", LENS_CRITERIA_TIME, -6, 1}, {"ns", LENS_CRITERIA_TIME, -9, 1},
    {"B", LENS_CRITERIA_SIZE, 0, 1}, {"KiB", LENS_CRITERIA_SIZE, 0, 1024.0},
    {"MiB", LENS_CRITERIA_SIZE, 0, 1048576.0}, {"GiB", LENS_CRITERIA_SIZE, 0, 1073741824.0},
    {"B/s", LENS_CRITERIA_BANDWIDTH, 0, 1}, {"KB/s", LENS_CRITERIA_BANDWIDTH, 3, 1},
    {"MB/s", LENS_CRITERIA_BANDWIDTH, 6, 1}, {"GB/s", LENS_CRITERIA_BANDWIDTH, 9, 1},
    {"KiB/s", LENS_CRITERIA_BANDWIDTH, 0, 1024.0}, {"MiB/s", LENS_CRITERIA_BANDWIDTH, 0, 1048576.0},
    {"GiB/s", LENS_CRITERIA_BANDWIDTH, 0, 1073741824.0},
    /* "/s" alone: a rate has no quantity to name ("msg/s" would invite "pkt/s", "op/s") */
    {"/s", LENS_CRITERIA_RATE, 0, 1}, {"%", LENS_CRITERIA_RATIO, -2, 1},
};
#define NUNITS ((int)(sizeof units / sizeof *units))

/* The units a kind of metric may be written with, for messages. Units carry a kind so that
 * "cube.delay.max <= 3GB/s" is refused: a number with the wrong kind of unit is a mistake in
 * the contract, and converting it anyway would check a limit nobody meant. */
static const char *kind_units(int kind)
{
    switch (kind) {
    case LENS_CRITERIA_TIME: return "a time (s, ms, us, \xc2\xb5s, ns)";
    case LENS_CRITERIA_SIZE: return "a size (B, KiB, MiB, GiB)";
    case LENS_CRITERIA_BANDWIDTH: return "a bandwidth (B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s)";
    case LENS_CRITERIA_RATE: return "a rate (/s)";
    case LENS_CRITERIA_RATIO: return "a ratio (no unit, or %)";
    default: return "a count (no unit)";
    }
}

const char *lens_criteria_metric_name(int metric)
{
    return metric >= 0 && metric < LENS_METRIC_COUNT ? metrics[metric].name : "?";
}

int lens_criteria_metric_kind(int metric)
{
    return metric >= 0 && metric < LENS_METRIC_COUNT ? metrics[metric].kind : LENS_CRITERIA_NONE;
}

int lens_criteria_metric_source(int metric)
{
    return metric >= 0 && metric < LENS_METRIC_COUNT ? metrics[metric].source : -1;
}

const char *lens_criteria_op_name(int op)
{
    static const char *const names[] = {"<=", "<", ">=", ">", "=="};
    return op >= 0 && op <= LENS_CRITERIA_EQ ? names[op] : "?";
}

const char *lens_criteria_scope_name(int scope)
{
    static const char *const names[] = {"all", "intra", "inter"};
    return scope >= 0 && scope <= LENS_SCOPE_INTER ? names[scope] : "?";
}

const char *lens_criteria_kind_unit(int kind)
{
    static const char *const names[] = {"", "s", "B", "B/s", "1/s", "ratio", "count"};
    return kind >= 0 && kind <= LENS_CRITERIA_COUNT ? names[kind] : "";
}

/* Written so that NaN fails every operator: each comparison with NaN is false. */
int lens_criteria_holds(int op, double measured, double limit)
{
    switch (op) {
    case LENS_CRITERIA_LE: return measured <= limit;
    case LENS_CRITERIA_LT: return measured < limit;
    case LENS_CRITERIA_GE: return measured >= limit;
    case LENS_CRITERIA_GT: return measured > limit;
    default: return measured == limit;
    }
}

int lens_criteria_unit_value(const char *text, const char *unit, int *kind, double *value)
{
    const struct unit *u = NULL;
    /* no unit: the text is already in the SI base unit */
    static const struct unit none = {"", LENS_CRITERIA_NONE, 0, 1};
    if (!*unit)
        u = &none;
    for (int i = 0; !u && i < NUNITS; i++)
        if (!strcmp(unit, units[i].name))
            u = &units[i];
    if (!u)
        return LENS_EINVAL;
    /* the kind is set even when the value then fails, so the parser can name a unit of the
     * wrong kind before a range error */
    *kind = u->kind;
    /* Shift the decimal exponent in the text rather than multiply by 1e-6, which is not a
     * double: "2.71us" then reads exactly as "2.71e-6" does. The exponent is clamped far
     * outside the range of a double, so the sum cannot overflow a long. */
    char buf[128];
    /* m: the mantissa's length; text passed number_len, so an 'e' can only start the exponent */
    size_t m = strcspn(text, "eE");
    long ex = 0;
    if (text[m]) {
        errno = 0;
        /* an exponent past LONG_MAX saturates and is clamped below like any large one */
        ex = strtol(text + m + 1, NULL, 10);
        ex = ex > 100000 ? 100000 : ex < -100000 ? -100000 : ex;
    }
    ex += u->exp10;
    /* the parser caps numbers at 64 characters; a longer mantissa would not fit buf */
    if (m > 64)
        return LENS_EDATA;
    snprintf(buf, sizeof buf, "%.*se%ld", (int)m, text, ex);
    errno = 0;
    double v = strtod(buf, NULL);
    /* Overflow is refused; an underflow to 0 or a subnormal is kept as the nearest double
     * (glibc sets ERANGE for both), since 1e-320 s is a silly but well-defined limit. */
    if (errno == ERANGE && isinf(v))
        return LENS_EDATA;
    v *= u->mult; /* a power of two: exact unless it overflows, checked next */
    if (!isfinite(v))
        return LENS_EDATA;
    *value = v;
    return LENS_OK;
}

/* ---- the scanner of one line ---- */

/* The line being parsed, with what a message needs to point into it. Positions inside the
 * scanner are byte offsets; column() turns one into what the user sees only for messages. */
struct scan {
    /* path and line: the FILE:LINE: of every message */
    const char *path;
    long line;
    const char *s;      /* the line, comment cut off */
};

/* Column (from 1, in characters) of byte offset pos: UTF-8 continuation bytes do not count. */
static int column(const struct scan *sc, size_t pos)
{
    int col = 1;
    for (size_t i = 0; i < pos && sc->s[i]; i++)
        col += ((unsigned char)sc->s[i] & 0xC0) != 0x80;
    return col;
}

/* Every parse error goes through here: FILE:LINE:COLUMN: message, LENS_EFORMAT. The column
 * is that of the token at fault, not of the line, because a line holds several keys and
 * "line 7 is wrong" would leave the user to guess which; editors also jump to it. */
static int fail(const struct scan *sc, size_t pos, struct lens_err *e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(const struct scan *sc, size_t pos, struct lens_err *e, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: %s", sc->path, sc->line, column(sc, pos), msg);
}

/* '\r' counts as a blank so that files saved with CRLF line ends parse the same. */
static size_t skip_space(const char *s, size_t p)
{
    while (s[p] == ' ' || s[p] == '\t' || s[p] == '\r')
        p++;
    return p;
}

static int is_space_or_end(char c) { return !c || c == ' ' || c == '\t' || c == '\r'; }

/* Length of the decimal number at s (digits, an optional fraction, an optional exponent), 0
 * if none. Hex, inf and nan, which strtod would take, are not numbers here. An 'e' not
 * followed by digits is left to the unit ("3es" is 3 with the unknown unit "es"). */
static size_t number_len(const char *s)
{
    size_t p = 0, digits = 0;
    while (s[p] >= '0' && s[p] <= '9')
        p++, digits++;
    if (s[p] == '.')
        for (p++; s[p] >= '0' && s[p] <= '9'; p++)
            digits++;
    /* digits counts both sides of '.': ".5" and "5." are numbers, "." alone is not */
    if (!digits)
        return 0;
    if (s[p] == 'e' || s[p] == 'E') {
        size_t q = p + 1;
        if (s[q] == '+' || s[q] == '-')
            q++;
        if (s[q] >= '0' && s[q] <= '9') {
            while (s[q] >= '0' && s[q] <= '9')
                q++;
            p = q;
        }
    }
    return p;
}

/* Copies s[p, p+n) into a bounded buffer for messages and lookups. */
static void token(char *dst, size_t cap, const char *s, size_t n)
{
    /* truncation is safe: callers have bounded n already, or want only a prefix for a message */
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* A value with an optional unit attached, for length= and size=: a whole number of bytes. */
static int parse_bytes(const struct scan *sc, size_t p, size_t n, const char *key, long long max,
                       long long *out, struct lens_err *e)
{
    char text[80], unit[32];
    /* same number syntax as a limit, so "4KiB" and "4096" and "4.0KiB" all mean 4096 */
    size_t nl = number_len(sc->s + p);
    if (!nl || nl > 64)
        return fail(sc, p, e, "%s= needs a number of bytes, such as %s=4096 or %s=4KiB", key, key, key);
    token(text, sizeof text, sc->s + p, nl);
    token(unit, sizeof unit, sc->s + p + nl, n - nl);
    int kind;
    double v;
    int rc = lens_criteria_unit_value(text, unit, &kind, &v);
    if (rc == LENS_EINVAL)
        return fail(sc, p + nl, e, "unknown unit '%s' in %s=: a size is B, KiB, MiB or GiB", unit, key);
    if (kind != LENS_CRITERIA_NONE && kind != LENS_CRITERIA_SIZE)
        return fail(sc, p + nl, e, "unit '%s' of %s= is %s, not a size (B, KiB, MiB, GiB)", unit, key,
                    kind_units(kind));
    /* the range check comes first: the cast below is undefined for values out of range */
    if (rc != LENS_OK || v > (double)max)
        return fail(sc, p, e, "%s=%.*s is out of range (at most %lld bytes)", key, (int)n, sc->s + p, max);
    /* a fraction of a byte survives only from input such as 1.5B or 0.3KiB (4.5KiB is 4608 B) */
    if (v != floor(v))
        return fail(sc, p, e, "%s=%.*s is not a whole number of bytes", key, (int)n, sc->s + p);
    *out = (long long)v;
    return LENS_OK;
}

/* label="text": \" and \\ are the only escapes. *end is the offset after the closing quote. */
static int parse_label(const struct scan *sc, size_t p, char **out, size_t *end, struct lens_err *e)
{
    if (sc->s[p] != '"')
        return fail(sc, p, e, "label= needs a quoted text, such as label=\"latency of a node\"");
    size_t q = p + 1, n = 0;
    /* the unescaped label is never longer than the rest of the line */
    char *buf = lens_malloc(strlen(sc->s + p) + 1);
    if (!buf)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", sc->path);
    /* an unknown escape keeps its backslash: "a\nb" stays as written, not a newline */
    for (; sc->s[q] && sc->s[q] != '"'; q++) {
        if (sc->s[q] == '\\' && (sc->s[q + 1] == '"' || sc->s[q + 1] == '\\'))
            q++;
        buf[n++] = sc->s[q];
    }
    buf[n] = '\0';
    if (sc->s[q] != '"') {
        lens_free(buf);
        return fail(sc, p, e, "unterminated label: no closing '\"'");
    }
    *out = buf;
    *end = q + 1;
    return LENS_OK;
}

/* The value of METRIC OP VALUE [UNIT]: p at the number; *end after the unit, if any. */
static int parse_limit(const struct scan *sc, size_t p, struct lens_criterion *c, size_t *end,
                       struct lens_err *e)
{
    const char *s = sc->s;
    const struct metric *m = &metrics[c->metric];
    /* Every metric is non-negative; a sign is a typo ("<= -3us" for "<= 3us"), and a
     * negative limit would make a criterion that can never hold or always holds. */
    if (s[p] == '-' || s[p] == '+')
        return fail(sc, p, e, "the limit must be a number without a sign, such as 3us");
    size_t nl = number_len(s + p);
    if (!nl)
        return fail(sc, p, e, "expected a number after '%s'", lens_criteria_op_name(c->op));
    if (nl > 64)
        return fail(sc, p, e, "the number is too long");
    char text[80], unit[sizeof c->unit];
    token(text, sizeof text, s + p, nl);
    c->value_col = column(sc, p);
    /* The unit follows at once ("3us") or after blanks ("3 GB/s"); a word with '=' after
     * blanks is already the first key. */
    size_t u = p + nl, un = 0;
    if (is_space_or_end(s[u])) {
        size_t q = skip_space(s, u), r = q;
        while (!is_space_or_end(s[r]))
            r++;
        if (r > q && !memchr(s + q, '=', r - q))
            u = q, un = r - q;
    } else {
        while (!is_space_or_end(s[u + un]))
            un++;
    }
    /* no unit is that long: refuse before copying, so the message shows it whole */
    if (un >= sizeof c->unit)
        return fail(sc, u, e, "unknown unit '%.*s'", (int)un, s + u);
    token(unit, sizeof unit, s + u, un);
    int kind;
    double v;
    int rc = lens_criteria_unit_value(text, unit, &kind, &v);
    if (rc == LENS_EINVAL)
        return fail(sc, u, e, "unknown unit '%s' (units: s ms us \xc2\xb5s ns, B KiB MiB GiB, B/s KB/s "
                    "MB/s GB/s KiB/s MiB/s GiB/s, /s, %%)", unit);
    /* the kind is checked before the range, so "1e999 GB/s" on a latency names the real
     * mistake (the unit) first */
    if (kind != LENS_CRITERIA_NONE && kind != m->kind)
        return fail(sc, u, e, "unit '%s' is %s, but %s is %s", unit, kind_units(kind), m->name,
                    kind_units(m->kind));
    if (rc != LENS_OK)
        return fail(sc, p, e, "%s%s is out of range", text, unit);
    c->limit = v;
    snprintf(c->unit, sizeof c->unit, "%s", unit);
    *end = un ? u + un : p + nl;
    return LENS_OK;
}

/* One key=value at p (not at the end of the line); *end after it. seen: keys already given. */
static int parse_key(const struct scan *sc, size_t p, struct lens_criterion *c, int *seen, size_t *end,
                     struct lens_err *e)
{
    const char *s = sc->s;
    const struct metric *m = &metrics[c->metric];
    size_t k = p;
    /* key names are lowercase words; anything else before '=' is not a key at all */
    while ((s[k] >= 'a' && s[k] <= 'z') || s[k] == '_')
        k++;
    if (k == p || s[k] != '=') {
        size_t r = p;
        while (!is_space_or_end(s[r]))
            r++;
        return fail(sc, p, e, "expected key=value, found '%.*s'", (int)(r - p > 64 ? 64 : r - p), s + p);
    }
    int key = -1;
    for (int i = 0; i < NKEYS; i++)
        /* the length test first, so that "len=" is not taken for a prefix of length= */
        if (strlen(key_names[i]) == k - p && !strncmp(s + p, key_names[i], k - p))
            key = i;
    if (key < 0)
        return fail(sc, p, e, "unknown key '%.*s' (keys: length, size, scope, stat, label)",
                    (int)(k - p > 64 ? 64 : k - p), s + p);
    if (!(m->keys & (1 << key))) {
        char ok[96] = "";
        for (int i = 0; i < NKEYS; i++)
            if (m->keys & (1 << i))
                snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s%s", *ok ? ", " : "", key_names[i]);
        return fail(sc, p, e, "key '%s' does not apply to %s (it takes %s)", key_names[key], m->name, ok);
    }
    if (*seen & (1 << key))
        return fail(sc, p, e, "key '%s' given twice", key_names[key]);
    *seen |= 1 << key;
    size_t v = k + 1, n = 0;
    /* the label is the one value that may hold blanks: it has its own scanner */
    /* 4: label's index in key_names */
    if (key == 4)
        return parse_label(sc, v, &c->label, end, e);
    while (!is_space_or_end(s[v + n]))
        n++;
    *end = v + n;
    if (!n)
        return fail(sc, v, e, "%s= has no value", key_names[key]);
    char val[64];
    /* only scope= and stat= read val, short words: a longer value is cut and then refused */
    token(val, sizeof val, s + v, n);
    switch (key) {
    /* length= is compared with the cube's int lengths, hence INT_MAX; size= with a sweep's
     * sizes, capped at 2^50 B (1 PiB), far beyond any message and still exact in a double */
    case 0:
        c->length_col = column(sc, p);
        return parse_bytes(sc, v, n, "length", INT_MAX, &c->length, e);
    case 1:
        c->size_col = column(sc, p);
        return parse_bytes(sc, v, n, "size", (long long)1 << 50, &c->size, e);
    case 2:
        c->scope_col = column(sc, p);
        for (int i = LENS_SCOPE_ALL; i <= LENS_SCOPE_INTER; i++)
            if (!strcmp(val, lens_criteria_scope_name(i)))
                return c->scope = i, LENS_OK;
        return fail(sc, v, e, "scope must be intra, inter or all, not '%s'", val);
    default:
        /* the deviation is not a delay: a limit on it would mean something else */
        c->stat = lens_cube_stat_parse(val);
        if (c->stat < 0 || c->stat == LENS_STAT_DEVIATION)
            return fail(sc, v, e, "stat must be median, average or min, not '%s'", val);
        return LENS_OK;
    }
}

/* Offset of the first byte of s that is not well-formed UTF-8 (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF), or -1. Labels reach the JSON output as they are,
 * and a stray Latin-1 byte there would make the whole output unreadable to a JSON parser. */
static long bad_utf8(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    for (long i = 0; s[i];) {
        int n = s[i] < 0x80 ? 0 : s[i] >= 0xC2 && s[i] <= 0xDF ? 1 : s[i] >= 0xE0 && s[i] <= 0xEF ? 2
                : s[i] >= 0xF0 && s[i] <= 0xF4 ? 3 : -1;
        if (n < 0)
            return i;
        /* the second byte's range excludes overlong forms, surrogates and > U+10FFFF */
        unsigned lo = 0x80, hi = 0xBF;
        if (s[i] == 0xE0) lo = 0xA0;
        if (s[i] == 0xED) hi = 0x9F;
        if (s[i] == 0xF0) lo = 0x90;
        if (s[i] == 0xF4) hi = 0x8F;
        for (int k = 1; k <= n; k++)
            if (s[i + k] < (k == 1 ? lo : 0x80) || s[i + k] > (k == 1 ? hi : 0xBF))
                return i;
        i += n + 1;
    }
    return -1;
}

/* Cuts the comment off (a '#' outside a label's quotes) in place. */
static void cut_comment(char *s)
{
    /* the same escape rule as parse_label, so a \" inside a label does not end it here */
    int quoted = 0;
    for (char *p = s; *p; p++) {
        if (quoted && *p == '\\' && p[1])
            p++;
        else if (*p == '"')
            quoted = !quoted;
        else if (*p == '#' && !quoted) {
            *p = '\0';
            return;
        }
    }
}

/* Parses one line into c (zeroed by the caller). Returns 1 when the line holds a criterion,
 * 0 when it is blank or a comment, or a negative LENS_E* code. */
static int parse_line(const char *path, long line, char *s, struct lens_criterion *c, struct lens_err *e)
{
    /* comment first: "# cube.delay.max <= x" must not be parsed at all */
    cut_comment(s);
    struct scan sc = {path, line, s};
    long bad = bad_utf8(s);
    if (bad >= 0)
        return fail(&sc, (size_t)bad, e, "not valid UTF-8 (byte 0x%02x)", (unsigned char)s[bad]);
    size_t p = skip_space(s, 0), q = p;
    if (!s[p] || s[p] == '\n')
        return 0;
    s[strcspn(s, "\n")] = '\0';
    c->line = (int)line;
    c->col = column(&sc, p);
    /* the defaults of docs/accept.md: every length or size (-1), all pairs, the median */
    c->length = c->size = -1;
    c->stat = LENS_STAT_MEDIAN;
    c->scope = LENS_SCOPE_ALL;
    /* a metric name is a dotted word; capitals are taken here only to be refused by name */
    while ((s[q] >= 'a' && s[q] <= 'z') || (s[q] >= 'A' && s[q] <= 'Z') || (s[q] >= '0' && s[q] <= '9') ||
           s[q] == '.' || s[q] == '_')
        q++;
    if (q == p)
        return fail(&sc, p, e, "expected a metric name, such as cube.delay.max");
    char name[64];
    token(name, sizeof name, s + p, q - p);
    c->metric = -1;
    for (int i = 0; i < LENS_METRIC_COUNT; i++)
        /* a name that filled name[] was cut and must not match a real metric by its prefix */
        if (!strcmp(name, metrics[i].name) && q - p < sizeof name)
            c->metric = i;
    if (c->metric < 0)
        return fail(&sc, p, e, "unknown metric '%s' (docs/accept.md lists them)", name);
    p = skip_space(s, q);
    /* two-character operators first, so that "<=" is not read as "<" followed by "=" */
    static const struct { const char *text; int op; } ops[] = {
        {"<=", LENS_CRITERIA_LE}, {">=", LENS_CRITERIA_GE}, {"==", LENS_CRITERIA_EQ},
        {"<", LENS_CRITERIA_LT}, {">", LENS_CRITERIA_GT}};
    c->op = -1;
    for (size_t i = 0; c->op < 0 && i < sizeof ops / sizeof *ops; i++)
        if (!strncmp(s + p, ops[i].text, strlen(ops[i].text)))
            c->op = ops[i].op, q = p + strlen(ops[i].text);
    /* "<==" or "=<" are typos, not "<=" or "<" followed by garbage */
    if (c->op < 0 || s[q] == '=' || s[q] == '<' || s[q] == '>')
        return fail(&sc, p, e, "expected an operator (<= < >= > ==) after %s", name);
    /* the keys are parsed only after a valid limit (rc), and each from where the last ended */
    int rc = parse_limit(&sc, skip_space(s, q), c, &p, e);
    int seen = 0;
    for (p = skip_space(s, p); rc == LENS_OK && s[p]; p = skip_space(s, p))
        rc = parse_key(&sc, p, c, &seen, &p, e);
    /* p2p metrics need one size: at 0 B a sweep's bandwidth is 0, so "every size" cannot be
     * what a bandwidth criterion means */
    if (rc == LENS_OK && metrics[c->metric].source == LENS_CRITERIA_P2P && c->size < 0)
        rc = fail(&sc, c->col - 1, e, "%s needs size= (the message size of the sweep, such as size=4096)",
                  name);
    return rc == LENS_OK ? 1 : rc;
}

void lens_criteria_free(struct lens_criteria *cr)
{
    if (!cr)
        return;
    for (int i = 0; i < cr->n; i++)
        lens_free(cr->c[i].label);
    lens_free(cr->c);
    lens_free(cr->path);
    lens_free(cr);
}

/* Appends the criterion of line s, if it has one. cap: capacity of cr->c. */
static int add_line(struct lens_criteria *cr, size_t *cap, long line, char *s, struct lens_err *e)
{
    struct lens_criterion c;
    memset(&c, 0, sizeof c);
    int rc = parse_line(cr->path, line, s, &c, e);
    if (rc <= 0) {
        lens_free(c.label);
        return rc;
    }
    void *buf = cr->c;
    if (lens_reserve(&buf, cap, (size_t)cr->n + 1, sizeof c) != LENS_OK) {
        lens_free(c.label);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", cr->path);
    }
    cr->c = buf;
    cr->c[cr->n++] = c;
    return LENS_OK;
}

static struct lens_criteria *criteria_new(const char *name, struct lens_err *e)
{
    struct lens_criteria *cr = lens_calloc(1, sizeof *cr);
    if (cr && !(cr->path = lens_strdup(name))) {
        lens_free(cr);
        cr = NULL;
    }
    if (!cr)
        lens_err_set(e, LENS_ENOMEM, "%s: out of memory", name);
    return cr;
}

/* An empty contract is refused: an acceptance that checks nothing must not pass. */
static int finish(struct lens_criteria *cr, int rc, struct lens_criteria **out, struct lens_err *e)
{
    if (rc == LENS_OK && cr->n == 0)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: no criterion (every line is blank or a comment)", cr->path);
    if (rc != LENS_OK) {
        lens_criteria_free(cr);
        return rc;
    }
    *out = cr;
    return LENS_OK;
}

int lens_criteria_parse(const char *text, const char *name, struct lens_criteria **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_criteria *cr = criteria_new(name, e);
    if (!cr)
        return LENS_ENOMEM;
    size_t cap = 0;
    int rc = LENS_OK;
    long line = 0;
    /* one line at a time into its own buffer, as the file reader hands them over, so the
     * line numbers and the in-place scanning are the same for both */
    for (const char *p = text; rc == LENS_OK && *p;) {
        size_t n = strcspn(p, "\n");
        char *s = lens_malloc(n + 1);
        if (!s) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", name);
            break;
        }
        token(s, n + 1, p, n);
        rc = add_line(cr, &cap, ++line, s, e);
        lens_free(s);
        p += n + (p[n] == '\n');
    }
    return finish(cr, rc, out, e);
}

/* Lines longer than this are not a hand-written contract. */
#define CRITERIA_LINE_MAX ((size_t)4096)

int lens_criteria_read(const char *path, struct lens_criteria **out, struct lens_err *e)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: %s", path, strerror(errno));
    struct lens_criteria *cr = criteria_new(path, e);
    if (!cr) {
        fclose(fp);
        return LENS_ENOMEM;
    }
    struct lens_textline l = {0};
    size_t cap = 0;
    int rc = LENS_OK, got;
    long line = 0;
    while (rc == LENS_OK && (got = lens_textline_read(fp, &l, CRITERIA_LINE_MAX)) != LENS_TEXTLINE_EOF) {
        /* an over-long or unreadable line becomes a FILE:LINE error, as a bad criterion does */
        if (got != LENS_TEXTLINE_OK)
            rc = lens_textline_fail(got, path, line + 1, 0, CRITERIA_LINE_MAX, e);
        else
            rc = add_line(cr, &cap, ++line, l.s, e);
    }
    lens_textline_release(&l);
    fclose(fp);
    return finish(cr, rc, out, e);
}

/* The p2p and bisection metrics read no cube statistic; their stat field keeps its default. */
unsigned lens_criteria_stats(const struct lens_criteria *cr)
{
    unsigned mask = 0;
    for (int i = 0; i < cr->n; i++)
        if (metrics[cr->c[i].metric].source == LENS_CRITERIA_CUBE ||
            metrics[cr->c[i].metric].source == LENS_CRITERIA_ANOMALIES)
            /* stat < LENS_STAT_COUNT (lens_cube_stat_parse), so the shift stays inside the mask */
            mask |= 1u << cr->c[i].stat;
    return mask;
}
