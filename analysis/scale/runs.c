/* Runs CSV reader and the reduction of repeated runs to one efficiency grid per application
 * (docs/methods.md §8: per configuration keep the best of the repeated runs, placements
 * included). The reader refuses what it cannot read exactly, naming file:line:column; failed
 * runs stay missing values unless the caller asks for Teplov's zeros (LENS_RUNS_ZERO). */
#include "runs.h"

#include "common/textline.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { COL_APP, COL_PROCS, COL_SIZE, COL_EFF, COL_TIME, COL_STATUS, COL_PLACE, N_COLS };

/* Accepted header names per column, case-insensitive; the first is the documented one.
 * Aliases let files from other tools ("np", "seconds") load unchanged; a header naming one
 * column twice (e.g. "time" and "seconds") is refused in map_header rather than one silently
 * ignored. */
static const char *const col_names[N_COLS][3] = {
    {"app", "application", NULL}, {"procs", "processes", "np"}, {"size", "d", NULL},
    {"efficiency", "eff", NULL},  {"time", "seconds", NULL},     {"status", NULL, NULL},
    {"placement", NULL, NULL},
};

struct lens_runs *lens_runs_new(void) { return lens_calloc(1, sizeof(struct lens_runs)); }

void lens_runs_free(struct lens_runs *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_apps; i++)
        lens_free(r->apps[i]);
    lens_free(r->apps);
    lens_free(r->app_slot);
    lens_free(r->recs);
    for (size_t i = 0; i < r->n_places; i++)
        lens_free(r->places[i]);
    lens_free(r->places);
    lens_free(r);
}

/* Index of a placement label, added when new. A grid has a handful of placements, so a linear
 * search is enough; the count is bounded by the int of the record. */
static int place_index(struct lens_runs *r, const char *label, struct lens_err *e)
{
    for (size_t i = 0; i < r->n_places; i++)
        if (!strcmp(r->places[i], label))
            return (int)i;
    /* the bound refuses a file whose "placement" column is really something else (a per-run
     * id), which would make every variant table as long as the file */
    if (r->n_places >= 4096)
        return lens_err_set(e, LENS_EFORMAT, "more than 4096 placements");
    char **p = lens_realloc(r->places, (r->n_places + 1) * sizeof *p);
    if (!p)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for a placement");
    r->places = p;
    /* the count grows only once the copy exists, so a failure leaves the list consistent */
    if (!(p[r->n_places] = lens_strdup(label)))
        return lens_err_set(e, LENS_ENOMEM, "out of memory for a placement");
    return (int)r->n_places++;
}

const char *lens_runs_status_name(int status)
{
    switch (status) {
    case LENS_RUNS_OK: return "ok";
    case LENS_RUNS_FAILED: return "failed";
    case LENS_RUNS_TIMEOUT: return "timeout";
    default: return "unknown";
    }
}

/* FNV-1a over the bytes of the name (len bytes: the name is not NUL-terminated while it is still
 * a field of the line being parsed). */
static size_t name_hash(const char *s, size_t len)
{
    size_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h ^ (h >> 29);
}

/* A slot of the hash of application names: the full hash spares comparing strings of other
 * names, and one slot is one cache line access for the common miss. */
struct lens_runs_slot {
    size_t hash;
    size_t idx; /* index + 1 into apps, 0 when empty */
};

/* Rebuilds the hash of application names with room for at least `need` names at half load. */
static int rehash(struct lens_runs *r, size_t need, struct lens_err *e)
{
    /* Half load at most: linear probing stays short, and there is always an empty slot to end a
     * probe. The table is rebuilt from apps[], so it holds no state of its own to lose. */
    size_t n = 64;
    while (n < 2 * need)
        n *= 2;
    struct lens_runs_slot *slot = lens_calloc(n, sizeof *slot);
    if (!slot)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for %zu applications", need);
    for (size_t i = 0; i < r->n_apps; i++) {
        size_t hv = name_hash(r->apps[i], strlen(r->apps[i])), h = hv & (n - 1);
        while (slot[h].idx)
            h = (h + 1) & (n - 1);
        slot[h] = (struct lens_runs_slot){hv, i + 1};
    }
    lens_free(r->app_slot);
    r->app_slot = slot;
    r->n_slot = n;
    return LENS_OK;
}

/* Index of app in r->apps, adding it when new. Rows of one app usually come together, so the
 * last hit is tried first; otherwise a hash lookup, so a file of 250,000 applications reads
 * about as fast as one of a single application (a linear search made it quadratic). */
static int app_index(struct lens_runs *r, const char *app, size_t len, struct lens_err *e)
{
    size_t last = r->last_app;
    if (last < r->n_apps && !strncmp(r->apps[last], app, len) && r->apps[last][len] == '\0')
        return (int)last;
    if (2 * (r->n_apps + 1) > r->n_slot && rehash(r, r->n_apps + 1, e) != LENS_OK)
        return LENS_ENOMEM;
    size_t hv = name_hash(app, len), h = hv & (r->n_slot - 1);
    /* Comparing the full hash first skips nearly every strncmp with another name. */
    for (; r->app_slot[h].idx; h = (h + 1) & (r->n_slot - 1)) {
        if (r->app_slot[h].hash != hv)
            continue;
        const char *s = r->apps[r->app_slot[h].idx - 1];
        if (!strncmp(s, app, len) && s[len] == '\0')
            return (int)(r->last_app = r->app_slot[h].idx - 1);
    }
    /* the record's app field is an int */
    if (r->n_apps >= INT_MAX)
        return lens_err_set(e, LENS_EFORMAT, "more than %d applications", INT_MAX);
    if (r->n_apps == r->cap_apps) {
        size_t cap = r->cap_apps ? 2 * r->cap_apps : 16;
        char **a = lens_realloc(r->apps, cap * sizeof *a);
        if (!a)
            return lens_err_set(e, LENS_ENOMEM, "out of memory for %zu applications", cap);
        r->apps = a;
        r->cap_apps = cap;
    }
    char *s = lens_malloc(len + 1);
    if (!s)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for an application name");
    memcpy(s, app, len);
    s[len] = '\0';
    r->apps[r->n_apps] = s;
    /* h is the empty slot where the probe stopped: the rehash above guaranteed room, and nothing
     * between the probe and here changed the table. */
    r->app_slot[h] = (struct lens_runs_slot){hv, r->n_apps + 1};
    return (int)(r->last_app = r->n_apps++);
}

/* Records are kept in file order, repeats included: the reduction to one value per configuration
 * happens once, in lens_runs_grids, where the model is known. */
static int push_record(struct lens_runs *r, const struct lens_runs_record *rec, struct lens_err *e)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        struct lens_runs_record *p = lens_realloc(r->recs, cap * sizeof *p);
        if (!p)
            return lens_err_set(e, LENS_ENOMEM, "out of memory for %zu runs", cap);
        r->recs = p;
        r->cap = cap;
    }
    r->recs[r->n++] = *rec;
    return LENS_OK;
}

/* Checks a record's numbers: NULL when fine, else the reason, with *bad_col the column at fault.
 * Shared by the reader and lens_runs_add, so both refuse the same records. */
static const char *check_record(const struct lens_runs_record *rec, int *bad_col)
{
    *bad_col = COL_PROCS;
    /* !(x >= 1) also refuses NaN. The bound 1e9 keeps procs exactly representable and far beyond
     * any machine, so a typo (a size in the procs column) is caught here instead of in the
     * marks. */
    if (!(rec->procs >= 1) || rec->procs != floor(rec->procs) || rec->procs > 1e9)
        return "must be a positive integer";
    *bad_col = COL_SIZE;
    if (!(rec->size > 0) || !isfinite(rec->size))
        return "must be a positive number";
    /* A failed or timed-out run is a missing configuration: its value is not checked (it is
     * often empty or a placeholder) and never used. */
    if (rec->status != LENS_RUNS_OK)
        return NULL;
    *bad_col = rec->kind == LENS_RUNS_TIME ? COL_TIME : COL_EFF;
    /* A time of 0 would make E = T1 / (p Tp) infinite; an efficiency of 0 is a legitimate (if
     * dismal) measurement. */
    if (!isfinite(rec->value) || rec->value < 0 || (rec->kind == LENS_RUNS_TIME && rec->value == 0))
        return rec->kind == LENS_RUNS_TIME ? "must be a positive number of seconds"
                                           : "must be a non-negative number";
    return NULL;
}

int lens_runs_add(struct lens_runs *r, const char *app, int kind, int status, double procs,
                  double size, double value, struct lens_err *e)
{
    int a = app_index(r, app, strlen(app), e);
    if (a < 0)
        return a;
    struct lens_runs_record rec = {a, kind, status, procs, size, status == LENS_RUNS_OK ? value : NAN,
                                   -1, NAN};
    int col;
    const char *why = check_record(&rec, &col);
    if (why)
        return lens_err_set(e, LENS_EINVAL, "%s: %s %s", app, col_names[col][0], why);
    return push_record(r, &rec, e);
}

/* One line split in place into fields; col[] keeps each field's 1-based column for messages. */
struct fields {
    char **f;
    int *col;
    size_t n, cap;
};

/* Trims blanks (and the line's CR/LF) around a field and one pair of enclosing double quotes, as
 * spreadsheets write them; quoted commas are not supported, an application name has none. */
static char *trim(char *s, char **end)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *t = *end;
    while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r' || t[-1] == '\n'))
        t--;
    if (t - s >= 2 && *s == '"' && t[-1] == '"') {
        s++;
        t--;
    }
    *t = '\0';
    *end = t;
    return s;
}

static int split(char *line, struct fields *fs, struct lens_err *e)
{
    fs->n = 0;
    char *p = line;
    for (;;) {
        /* f and col grow together, so col[k] always exists for f[k]; the arrays are reused
         * across lines. */
        if (fs->n == fs->cap) {
            size_t cap = fs->cap ? 2 * fs->cap : 16;
            char **f = lens_realloc(fs->f, cap * sizeof *f);
            if (!f)
                return lens_err_set(e, LENS_ENOMEM, "out of memory");
            fs->f = f;
            int *c = lens_realloc(fs->col, cap * sizeof *c);
            if (!c)
                return lens_err_set(e, LENS_ENOMEM, "out of memory");
            fs->col = c;
            fs->cap = cap;
        }
        /* Fields are cut in place: the comma (or the line's end) becomes the field's NUL in
         * trim. */
        char *comma = strchr(p, ',');
        char *end = comma ? comma : p + strlen(p);
        fs->col[fs->n] = (int)(p - line) + 1;
        fs->f[fs->n++] = trim(p, &end);
        if (!comma)
            return LENS_OK;
        p = comma + 1;
    }
}

/* Blank lines and '#' comment lines are skipped anywhere, before the header too. */
static int blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0' || *s == '#';
}

/* Finds the header's columns; returns LENS_OK or a format error naming what is missing. */
static int map_header(const struct fields *fs, int idx[N_COLS + 1], const char *value_col,
                      const char *path, long line, struct lens_err *e)
{
    for (int c = 0; c <= N_COLS; c++)
        idx[c] = -1;
    /* idx[N_COLS] is the caller's extra column, found by its exact (case-insensitive) name; it
     * may also be one of the known columns ("time" as a surface of its own). */
    for (size_t k = 0; value_col && k < fs->n; k++)
        if (!strcasecmp(fs->f[k], value_col))
            idx[N_COLS] = (int)k;
    if (value_col && idx[N_COLS] < 0)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:1: missing column '%s' (asked by --value)",
                            path, line, value_col);
    /* Unknown columns are allowed and ignored (docs/scale.md): `scale run` writes placement and
     * repeat, and users keep notes in extra columns. */
    for (size_t k = 0; k < fs->n; k++)
        for (int c = 0; c < N_COLS; c++)
            for (int a = 0; a < 3 && col_names[c][a]; a++)
                if (!strcasecmp(fs->f[k], col_names[c][a])) {
                    if (idx[c] >= 0)
                        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: column '%s' appears twice",
                                            path, line, fs->col[k], col_names[c][0]);
                    idx[c] = (int)k;
                }
    /* The status column is optional (every run ok); efficiency or time is checked apart because
     * either one will do. */
    static const int need[] = {COL_APP, COL_PROCS, COL_SIZE};
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
        if (idx[need[k]] < 0)
            return lens_err_set(e, LENS_EFORMAT, "%s:%ld:1: missing column '%s' (need app,procs,size "
                                "and efficiency or time)", path, line, col_names[need[k]][0]);
    if (idx[COL_EFF] < 0 && idx[COL_TIME] < 0)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:1: missing column 'efficiency' or 'time'",
                            path, line);
    return LENS_OK;
}

/* The whole field must be a number: "12s" or "1,5" is an error rather than 12 or 1. Overflow
 * (ERANGE), inf and nan are refused, so every stored number is finite. */
static int parse_number(const char *s, double *v)
{
    if (!*s)
        return -1;
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (*end || errno == ERANGE || !isfinite(*v))
        return -1;
    return 0;
}

/* An empty status means ok, so a status column may be filled only for the failures. */
static int parse_status(const char *s)
{
    if (!*s || !strcasecmp(s, "ok"))
        return LENS_RUNS_OK;
    if (!strcasecmp(s, "failed") || !strcasecmp(s, "fail"))
        return LENS_RUNS_FAILED;
    if (!strcasecmp(s, "timeout"))
        return LENS_RUNS_TIMEOUT;
    return -1;
}

/* Parses one data row into a record. */
static int parse_row(struct lens_runs *r, const struct fields *fs, const int idx[N_COLS + 1],
                     size_t n_header, const char *path, long line, struct lens_err *e)
{
    /* A row with a different number of fields is refused: a stray comma would otherwise shift
     * every later column into the wrong meaning. */
    if (fs->n != n_header)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: expected %zu fields as in the header, got %zu",
                            path, line, fs->col[fs->n - 1], n_header, fs->n);
    struct lens_runs_record rec = {0};
    const char *app = fs->f[idx[COL_APP]];
    if (!*app)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: empty app name", path, line,
                            fs->col[idx[COL_APP]]);
    rec.status = LENS_RUNS_OK;
    if (idx[COL_STATUS] >= 0) {
        rec.status = parse_status(fs->f[idx[COL_STATUS]]);
        if (rec.status < 0)
            return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: status '%s' is not ok, failed or timeout",
                                path, line, fs->col[idx[COL_STATUS]], fs->f[idx[COL_STATUS]]);
    }
    /* The efficiency column wins when a file has both. */
    int vcol = idx[COL_EFF] >= 0 ? COL_EFF : COL_TIME;
    rec.kind = vcol == COL_EFF ? LENS_RUNS_EFFICIENCY : LENS_RUNS_TIME;
    const int num_cols[] = {COL_PROCS, COL_SIZE, vcol};
    double *dst[] = {&rec.procs, &rec.size, &rec.value};
    /* procs, size and the value column, in the order a person reads the row, so the first bad
     * field is the one named. */
    for (int k = 0; k < 3; k++) {
        const char *s = fs->f[idx[num_cols[k]]];
        if (k == 2 && rec.status != LENS_RUNS_OK) {
            rec.value = NAN; /* a failed run's value is never used, whatever it says */
            break;
        }
        if (parse_number(s, dst[k]) < 0)
            return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: %s '%s' is not a finite number", path, line,
                                fs->col[idx[num_cols[k]]], col_names[num_cols[k]][0], s);
    }
    int bad;
    const char *why = check_record(&rec, &bad);
    if (why) {
        /* check_record names the value column by kind; the message must point at the column this
         * file actually has. */
        int c = bad == COL_EFF || bad == COL_TIME ? vcol : bad;
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: %s '%s' %s", path, line, fs->col[idx[c]],
                            col_names[c][0], fs->f[idx[c]], why);
    }
    rec.extra = NAN;
    const char *xs = idx[N_COLS] >= 0 ? fs->f[idx[N_COLS]] : "";
    /* The extra column of a failed run, or an empty cell, is unknown rather than an error: a
     * failed run has no time either. */
    if (rec.status == LENS_RUNS_OK && *xs && parse_number(xs, &rec.extra) < 0)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: %s '%s' is not a finite number", path, line,
                            fs->col[idx[N_COLS]], r->value_col, xs);
    /* alen: the length of the app name kept, shortened below by an old "@LABEL" suffix */
    size_t alen = strlen(app);
    rec.place = -1;
    const char *pl = idx[COL_PLACE] >= 0 ? fs->f[idx[COL_PLACE]] : "";
    if (*pl) {
        /* `scale run` before folding wrote the app as NAME@LABEL beside the label: the suffix is
         * dropped so that old and new files fold alike (a name that merely holds '@' stays). */
        size_t pn = strlen(pl);
        if (alen > pn + 1 && app[alen - pn - 1] == '@' && !strcmp(app + alen - pn, pl))
            alen -= pn + 1;
        if ((rec.place = place_index(r, pl, e)) < 0)
            return lens_err_prefix(e, path);
    }
    /* The app is added only after the row passed every check: a bad row leaves no name behind. */
    int a = app_index(r, app, alen, e);
    if (a < 0)
        return lens_err_prefix(e, path);
    rec.app = a;
    int rc = push_record(r, &rec, e);
    return rc < 0 ? lens_err_prefix(e, path) : LENS_OK;
}

int lens_runs_read(struct lens_runs *r, const char *path, struct lens_err *e)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", path, strerror(errno));
    /* All or nothing per file: on any error the records and names this file added are dropped
     * again (runs.h: r keeps the rows of earlier files only). */
    size_t n0 = r->n, apps0 = r->n_apps, places0 = r->n_places;
    struct fields fs = {0};
    struct lens_textline tl = {0};
    long line = 0;
    int idx[N_COLS + 1], have_header = 0, rc = LENS_OK, got;
    size_t n_header = 0;
    while ((got = lens_textline_read(fp, &tl, LENS_RUNS_MAX_LINE)) != LENS_TEXTLINE_EOF) {
        line++;
        if (got != LENS_TEXTLINE_OK) {
            rc = lens_textline_fail(got, path, line, 1, LENS_RUNS_MAX_LINE, e);
            break;
        }
        char *buf = tl.s;
        size_t len = tl.len;
        char *text = buf;
        if (line == 1 && len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
            text += 3; /* UTF-8 byte order mark, as spreadsheets write it */
        if (blank(text))
            continue;
        if ((rc = split(text, &fs, e)) < 0)
            break;
        /* The first line that is neither blank nor a comment is the header. */
        if (!have_header) {
            if ((rc = map_header(&fs, idx, r->value_col, path, line, e)) < 0)
                break;
            have_header = 1;
            n_header = fs.n;
            continue;
        }
        if ((rc = parse_row(r, &fs, idx, n_header, path, line, e)) < 0)
            break;
    }
    if (rc == LENS_OK && !have_header)
        rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld:1: empty file, expected a header such as "
                          "app,procs,size,time", path, line + 1);
    if (rc == LENS_OK && r->n == n0)
        rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld:1: no runs after the header", path, line + 1);
    fclose(fp);
    lens_textline_release(&tl);
    lens_free(fs.f);
    lens_free(fs.col);
    if (rc < 0) {
        r->n = n0;
        while (r->n_apps > apps0)
            lens_free(r->apps[--r->n_apps]);
        while (r->n_places > places0)
            lens_free(r->places[--r->n_places]);
        /* the hash still names the dropped apps: rebuilt on the next lookup */
        lens_free(r->app_slot);
        r->app_slot = NULL;
        r->n_slot = 0;
    }
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v[0..n) and removes duplicates; returns the new count. */
static size_t sort_unique(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

/* Distinct values of v[0..n) into v[0..m), ascending; returns m. An open-addressing hash set
 * drops the repeats first, so only the distinct values are sorted (a 256 x 256 grid has 65536
 * runs but 256 distinct process counts). slots is scratch for cap doubles and then cap flag
 * bytes, cap the smallest power of two >= 2 * n (at least 2), as fill_grid allocates it. */
static size_t distinct(double *v, size_t n, double *slots)
{
    size_t cap = 2;
    int bits_cap = 1;
    while (cap < 2 * n) {
        cap *= 2;
        bits_cap++;
    }
    unsigned char *used = (unsigned char *)(slots + cap);
    memset(used, 0, cap);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        uint64_t bits;
        double x = v[k] == 0 ? 0 : v[k]; /* -0 and 0 hash alike */
        memcpy(&bits, &x, sizeof bits);
        /* Fibonacci hashing: the top bits of the product mix all bits of the key (integral
         * values have long runs of zero low bits) */
        size_t h = (size_t)((bits * 0x9E3779B97F4A7C15ull) >> (64 - bits_cap));
        /* Values are finite (check_record), so != is exact equality and the probe ends at a
         * match or an empty slot; the load is at most one half. */
        while (used[h] && slots[h] != x)
            h = (h + 1) & (cap - 1);
        if (!used[h]) {
            used[h] = 1;
            slots[h] = x;
            v[m++] = x;
        }
    }
    return sort_unique(v, m);
}

/* Index of x in the ascending v[0..n), or -1. Rows of a file usually walk the grid in order,
 * so the previous answer (*hint) and its successor are tried before a binary search. */
static long find(const double *v, size_t n, double x, size_t *hint)
{
    if (*hint < n && v[*hint] == x)
        return (long)*hint;
    if (*hint + 1 < n && v[*hint + 1] == x)
        return (long)++*hint;
    /* A file that starts a new size usually restarts at the smallest process count. */
    if (n && v[0] == x)
        return (long)(*hint = 0);
    /* Lower bound: the first index whose value is >= x. */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && v[lo] == x)
        return (long)(*hint = lo);
    return -1;
}

void lens_runs_grid_release(struct lens_grid *g)
{
    if (!g)
        return;
    lens_free(g->app);
    lens_free(g->procs);
    lens_free(g->size);
    lens_free(g->eff);
    lens_free(g->perf);
    lens_free(g->extra);
    lens_free(g->zero);
    for (size_t v = 0; v < g->n_var; v++)
        lens_free(g->var[v]);
    lens_free(g->var);
    lens_free(g->var_eff);
    lens_free(g->kept);
    lens_free(g->t_med);
    lens_free(g->t_min);
    lens_free(g->t_max);
    lens_free(g->t_n);
    lens_free(g->t_speedup);
    memset(g, 0, sizeof *g);
}

void lens_runs_grids_free(struct lens_grid *grids, size_t n)
{
    if (!grids)
        return;
    for (size_t i = 0; i < n; i++)
        lens_runs_grid_release(&grids[i]);
    lens_free(grids);
}

/* A layer of nd * np doubles, all NaN (missing); + 1 keeps an empty grid's request non-zero. */
static double *nan_layer(size_t cells)
{
    double *v = lens_malloc((cells + 1) * sizeof *v);
    for (size_t k = 0; v && k < cells; k++)
        v[k] = NAN;
    return v;
}

/* The placements of one app's records as its variants, in the order the labels first appear in
 * the files; local[place] receives the variant index (scratch of r->n_places ints). */
static int grid_variants(struct lens_grid *g, const struct lens_runs *r, const size_t *ids, size_t m,
                         int *local, struct lens_err *e)
{
    /* Two passes over the labels: mark those this app uses, then number them in the global
     * order, so every app lists its variants in the order the files introduced them. */
    for (size_t q = 0; q < r->n_places; q++)
        local[q] = -1;
    for (size_t k = 0; k < m; k++)
        if (r->recs[ids[k]].place >= 0)
            local[r->recs[ids[k]].place] = 0;
    size_t nv = 0;
    for (size_t q = 0; q < r->n_places; q++)
        nv += local[q] == 0;
    /* no placement: the grid keeps var, var_eff and kept NULL, as a caller-built grid would */
    if (!nv)
        return LENS_OK;
    g->var = lens_calloc(nv, sizeof *g->var);
    if (!g->var)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %zu placements", g->app, nv);
    for (size_t q = 0; q < r->n_places; q++)
        if (local[q] == 0) {
            if (!(g->var[g->n_var] = lens_strdup(r->places[q])))
                return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for a placement", g->app);
            local[q] = (int)g->n_var++;
        }
    return LENS_OK;
}

/* (cell, seconds) pairs ordered by cell, then time: each cell's runs become one sorted run. */
static int cmp_cell_time(const void *a, const void *b)
{
    const double *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The raw-time layers of g (lens_grid.t_*): every ok timed run of the app, each placement and
 * repeat, sorted per cell; the median is the middle run, or the mean of the two middle ones
 * (the usual definition, which numpy.median also uses). Nothing when no run gave a time. */
static int time_layers(struct lens_grid *g, const struct lens_runs *r, const size_t *ids,
                       size_t m, struct lens_err *e)
{
    size_t nt = 0, cells = g->np * g->nd, hp = 0, hd = 0;
    for (size_t k = 0; k < m; k++)
        nt += r->recs[ids[k]].status == LENS_RUNS_OK && r->recs[ids[k]].kind == LENS_RUNS_TIME;
    if (!nt)
        return LENS_OK;
    double *ct = lens_malloc(2 * nt * sizeof *ct);
    g->t_med = nan_layer(cells);
    g->t_min = nan_layer(cells);
    g->t_max = nan_layer(cells);
    g->t_n = lens_calloc(cells + 1, sizeof *g->t_n);
    g->t_speedup = nan_layer(cells);
    if (!ct || !g->t_med || !g->t_min || !g->t_max || !g->t_n || !g->t_speedup) {
        lens_free(ct);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the raw times", g->app);
    }
    size_t q = 0;
    for (size_t k = 0; k < m; k++) {
        const struct lens_runs_record *rec = &r->recs[ids[k]];
        if (rec->status != LENS_RUNS_OK || rec->kind != LENS_RUNS_TIME)
            continue;
        /* an ok run is always on the axes (fill_grid put its values there) */
        long i = find(g->procs, g->np, rec->procs, &hp), j = find(g->size, g->nd, rec->size, &hd);
        ct[2 * q] = (double)((size_t)j * g->np + (size_t)i);
        ct[2 * q++ + 1] = rec->value;
    }
    qsort(ct, nt, 2 * sizeof *ct, cmp_cell_time);
    for (size_t a = 0; a < nt;) {
        size_t b = a, c = (size_t)ct[2 * a];
        while (b < nt && ct[2 * b] == ct[2 * a])
            b++;
        size_t n = b - a, mid = a + n / 2;
        g->t_n[c] = n;
        g->t_min[c] = ct[2 * a + 1];
        g->t_max[c] = ct[2 * (b - 1) + 1];
        g->t_med[c] = n % 2 ? ct[2 * mid + 1] : (ct[2 * (mid - 1) + 1] + ct[2 * mid + 1]) / 2;
        a = b;
    }
    lens_free(ct);
    /* Speed-up S(p, d) = T(1, d) / T(p, d), both best times, like the efficiency's E = S / p
     * but measured only (never the model's reference): NaN where the size has no timed p = 1
     * run, and where T(p, d) is 0 (a clock too coarse), which would give no finite ratio. */
    long one = -1;
    for (size_t i = 0; i < g->np; i++)
        if (g->procs[i] == 1)
            one = (long)i;
    for (size_t j = 0; one >= 0 && j < g->nd; j++) {
        double t1 = g->t_min[j * g->np + (size_t)one];
        for (size_t i = 0; i < g->np; i++) {
            double tp = g->t_min[j * g->np + i];
            if (!isnan(t1) && tp > 0)
                g->t_speedup[j * g->np + i] = t1 / tp;
        }
    }
    return LENS_OK;
}

/* Fills g from the records of one app (ids[0..m)); eff[] and perf[] hold their efficiencies and
 * performances (NaN when the run failed). In gap mode the axes are the values of the ok runs
 * only, so a configuration that only ever failed adds no row or column of NaN; in zero mode
 * they are the values of every run tried, and what stays missing becomes 0. */
static int fill_grid(struct lens_grid *g, const struct lens_runs *r, const size_t *ids, size_t m,
                     const double *eff, const double *perf, int missing, int *local,
                     struct lens_err *e)
{
    size_t n_ok = 0;
    for (size_t k = 0; k < m; k++)
        n_ok += missing == LENS_RUNS_ZERO || !isnan(eff[k]);
    /* Every ok run's values, repeats included; distinct() below reduces them to the axes in
     * place. The + 1 keeps the request non-zero for an application whose runs all failed. */
    g->procs = lens_malloc((n_ok + 1) * sizeof(double));
    g->size = lens_malloc((n_ok + 1) * sizeof(double));
    if (!g->procs || !g->size)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the grid", g->app);
    size_t q = 0;
    for (size_t k = 0; k < m; k++)
        if (missing == LENS_RUNS_ZERO || !isnan(eff[k])) {
            g->procs[q] = r->recs[ids[k]].procs;
            g->size[q++] = r->recs[ids[k]].size;
        }
    size_t cap = 2;
    while (cap < 2 * n_ok)
        cap *= 2;
    /* cap doubles of slots plus cap bytes of flags.
     * One block serves both axes in turn: distinct() needs the same room for n_ok values of
     * procs and of sizes. */
    double *scratch = lens_malloc(cap * sizeof(double) + cap + 1);
    if (!scratch)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the grid", g->app);
    g->np = distinct(g->procs, n_ok, scratch);
    g->nd = distinct(g->size, n_ok, scratch);
    lens_free(scratch);
    size_t cells = g->np * g->nd;
    /* the variants first: their count sizes var_eff below */
    int rc = grid_variants(g, r, ids, m, local, e);
    if (rc < 0)
        return rc;
    /* NaN marks a configuration never measured successfully: the marks skip it, tables show it
     * empty. */
    g->eff = nan_layer(cells);
    g->perf = nan_layer(cells);
    g->extra = r->value_col ? nan_layer(cells) : NULL;
    g->var_eff = g->n_var ? nan_layer(g->n_var * cells) : NULL;
    g->kept = g->n_var ? lens_malloc((cells + 1) * sizeof *g->kept) : NULL;
    g->zero = missing == LENS_RUNS_ZERO ? lens_calloc(cells + 1, 1) : NULL;
    if (!g->eff || !g->perf || (r->value_col && !g->extra) || (g->n_var && (!g->var_eff || !g->kept)) ||
        (missing == LENS_RUNS_ZERO && !g->zero))
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for a %zu x %zu grid", g->app, g->np,
                            g->nd);
    /* -1 = no run kept: a configuration that never ran in any placement */
    for (size_t k = 0; g->kept && k < cells; k++)
        g->kept[k] = -1;
    size_t hp = 0, hd = 0;
    for (size_t k = 0; k < m; k++) {
        const struct lens_runs_record *rec = &r->recs[ids[k]];
        if (rec->status != LENS_RUNS_OK) {
            g->n_failed++;
            continue;
        }
        /* Separate hints per axis: rows usually step through procs within one size. */
        long i = find(g->procs, g->np, rec->procs, &hp), j = find(g->size, g->nd, rec->size, &hd);
        size_t c = (size_t)j * g->np + (size_t)i;
        /* Best of the repeated runs, every placement competing: the performance, the extra
         * column and the placement shown are those of the run kept, so all layers describe one
         * run per configuration. */
        if (isnan(g->eff[c]) || eff[k] > g->eff[c]) {
            g->eff[c] = eff[k];
            g->perf[c] = perf[k];
            if (g->extra)
                g->extra[c] = rec->extra;
            if (g->kept)
                g->kept[c] = rec->place >= 0 ? local[rec->place] : -1;
        }
        /* each placement's own best, whatever the fold kept: what --variants shows */
        if (g->var_eff && rec->place >= 0) {
            double *ve = &g->var_eff[(size_t)local[rec->place] * cells + c];
            if (isnan(*ve) || eff[k] > *ve)
                *ve = eff[k];
        }
    }
    /* Teplov's convention: a configuration that did not run has efficiency (and performance) 0.
     * The mask keeps them apart from a measured 0 for the tables and the figures. */
    for (size_t c = 0; g->zero && c < cells; c++)
        if (isnan(g->eff[c])) {
            g->eff[c] = 0;
            g->perf[c] = 0;
            g->zero[c] = 1;
        }
    return time_layers(g, r, ids, m, e);
}

/* Efficiencies and performances of one app's records: as given, through the model, or against
 * the best serial time at the same size. ref is scratch for m (size, time) pairs. */
static int app_efficiencies(const struct lens_runs *r, const char *app, const size_t *ids, size_t m,
                            const struct lens_runs_model *model, double *eff, double *perf,
                            double *ref, struct lens_err *e)
{
    /* The serial references: (size, time) of every ok timed run at p = 1. T1 is the best
     * (shortest) of them per size, so that E = T1 / (p Tp) is 1 for the best serial run and
     * repeated serial runs do not lower every efficiency. */
    size_t nref = 0;
    for (size_t k = 0; k < m; k++) {
        const struct lens_runs_record *rec = &r->recs[ids[k]];
        if (rec->status == LENS_RUNS_OK && rec->kind == LENS_RUNS_TIME && rec->procs == 1) {
            ref[2 * nref] = rec->size;
            ref[2 * nref++ + 1] = rec->value;
        }
    }
    /* Sorted by size (cmp_double compares the first double of each pair only); then the first
     * pair of each run of equal sizes is given the run's shortest time, its best serial time. */
    qsort(ref, nref, 2 * sizeof(double), cmp_double);
    for (size_t k = 0; k + 1 < nref;) {
        size_t l = k + 1;
        while (l < nref && ref[2 * l] == ref[2 * k])
            l++;
        for (size_t t = k + 1; t < l; t++)
            if (ref[2 * t + 1] < ref[2 * k + 1])
                ref[2 * k + 1] = ref[2 * t + 1];
        k = l;
    }
    /* The work of a run in the model's units, C d^K; without a model C = K = 1 (the size is the
     * work), so that performance is still "work per second" on the same axes. */
    double coef = model && model->flops_coef > 0 ? model->flops_coef : 1;
    double power = model && model->flops_coef > 0 ? model->flops_power : 1;
    for (size_t k = 0; k < m; k++) {
        const struct lens_runs_record *rec = &r->recs[ids[k]];
        perf[k] = NAN;
        if (rec->status != LENS_RUNS_OK) {
            eff[k] = NAN;
        } else if (rec->kind == LENS_RUNS_EFFICIENCY) {
            eff[k] = rec->value;
            /* E = P / (p F): the performance follows only when the peak F is known */
            if (model && model->peak > 0)
                perf[k] = rec->value * rec->procs * model->peak;
        } else if (model && model->peak > 0) {
            double flops = model->flops_coef * pow(rec->size, model->flops_power);
            /* E = C d^K / (p Tp F): the achieved share of the peak (docs/methods.md §8). */
            eff[k] = flops / (rec->procs * rec->value * model->peak);
            /* d^K or p Tp F can overflow (d = 1e300): inf, or inf / inf = NaN. A NaN from an ok
             * run would be left off the axes by fill_grid yet written into the grid (index -1,
             * out of bounds); an inf would poison every mark. */
            if (!isfinite(eff[k]))
                return lens_err_set(e, LENS_EDATA, "%s: the performance model gives no finite "
                                    "efficiency at procs %g, size %g", app, rec->procs, rec->size);
        } else {
            /* first pair with this size: binary search over the pairs */
            size_t lo = 0, hi = nref;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (ref[2 * mid] < rec->size)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == nref || ref[2 * lo] != rec->size)
                return lens_err_set(e, LENS_EDATA, "%s: no serial reference for size %g: add a run at "
                                    "procs 1 or give a performance model", app, rec->size);
            eff[k] = ref[2 * lo + 1] / (rec->procs * rec->value);
        }
        /* P = W / Tp with W the work C d^K; the model case gives flop/s, the same P the
         * efficiency divides by p F (docs/methods.md §8). */
        if (rec->status == LENS_RUNS_OK && rec->kind == LENS_RUNS_TIME) {
            perf[k] = coef * pow(rec->size, power) / rec->value;
            /* an overflowing work model leaves the performance unknown, not infinite */
            if (!isfinite(perf[k]))
                perf[k] = NAN;
        }
    }
    return LENS_OK;
}

/* The runs with each placement made an application of its own, "NAME@LABEL", as `scale run`
 * named them before placements were folded (--placements separate). */
static int separate_runs(const struct lens_runs *r, struct lens_runs **out, struct lens_err *e)
{
    struct lens_runs *s = lens_runs_new();
    if (!s)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    s->value_col = r->value_col;
    int rc = LENS_OK;
    char *name = NULL;
    size_t cap = 0;
    for (size_t k = 0; k < r->n && rc == LENS_OK; k++) {
        const struct lens_runs_record *rec = &r->recs[k];
        const char *app = r->apps[rec->app], *pl = rec->place >= 0 ? r->places[rec->place] : NULL;
        /* one name buffer grown as needed: labels and names are unbounded in the CSV */
        size_t need = strlen(app) + (pl ? strlen(pl) + 1 : 0) + 1;
        if (need > cap) {
            char *p = lens_realloc(name, need);
            if (!p) {
                rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
                break;
            }
            name = p;
            cap = need;
        }
        snprintf(name, cap, pl ? "%s@%s" : "%s", app, pl);
        int a = app_index(s, name, strlen(name), e);
        if (a < 0) {
            rc = a;
            break;
        }
        struct lens_runs_record c = *rec;
        c.app = a;
        c.place = -1; /* each variant is now an application: nothing left to fold */
        rc = push_record(s, &c, e);
    }
    lens_free(name);
    if (rc < 0) {
        lens_runs_free(s);
        return rc;
    }
    *out = s;
    return LENS_OK;
}

int lens_runs_grids(const struct lens_runs *r, const struct lens_runs_model *model,
                    struct lens_grid **grids, size_t *n, struct lens_err *e)
{
    struct lens_runs_opts o = {model, LENS_RUNS_GAP, 0};
    return lens_runs_build(r, &o, grids, n, e);
}

int lens_runs_build(const struct lens_runs *r, const struct lens_runs_opts *o,
                    struct lens_grid **grids, size_t *n, struct lens_err *e)
{
    *grids = NULL;
    *n = 0;
    /* Separate placements are built as a copy of the runs renamed per placement and folded as
     * usual: one code path for the grids, and each variant gets its own serial time T1. */
    if (o->separate && r->n_places) {
        struct lens_runs *s = NULL;
        int rc = separate_runs(r, &s, e);
        if (rc < 0)
            return rc;
        struct lens_runs_opts so = *o;
        so.separate = 0;
        rc = lens_runs_build(s, &so, grids, n, e);
        lens_runs_free(s);
        return rc;
    }
    const struct lens_runs_model *model = o->model;
    size_t na = r->n_apps;
    /* The scratch arrays are sized for all records at once and reused per application: ids (the
     * records grouped by app), eff, perf and ref (pairs) for the app at hand. + 1 keeps each
     * request non-zero when there are no records. */
    struct lens_grid *g = lens_calloc(na ? na : 1, sizeof *g);
    size_t *start = lens_calloc(na + 1, sizeof *start);
    size_t *ids = lens_malloc((r->n + 1) * sizeof *ids);
    double *eff = lens_malloc((r->n + 1) * sizeof *eff);
    double *perf = lens_malloc((r->n + 1) * sizeof *perf);
    double *ref = lens_malloc((2 * r->n + 2) * sizeof *ref);
    int *local = lens_malloc((r->n_places + 1) * sizeof *local);
    int rc = LENS_OK;
    if (!g || !start || !ids || !eff || !perf || !ref || !local) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory for %zu runs", r->n);
        goto out;
    }
    /* Counting sort of the records by app keeps each app's rows in file order: start[a + 1]
     * first counts app a's records, the prefix sums then make start[a] its first slot in ids. */
    for (size_t k = 0; k < r->n; k++)
        start[r->recs[k].app + 1]++;
    for (size_t a = 0; a < na; a++)
        start[a + 1] += start[a];
    {
        size_t *pos = lens_malloc((na + 1) * sizeof *pos);
        if (!pos) {
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
            goto out;
        }
        memcpy(pos, start, (na + 1) * sizeof *pos);
        for (size_t k = 0; k < r->n; k++)
            ids[pos[r->recs[k].app]++] = k;
        lens_free(pos);
    }
    /* Applications in order of first appearance: the tables and the report list them that way. */
    for (size_t a = 0; a < na && rc == LENS_OK; a++) {
        g[a].app = lens_strdup(r->apps[a]);
        if (!g[a].app) {
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
            break;
        }
        size_t m = start[a + 1] - start[a];
        rc = app_efficiencies(r, r->apps[a], ids + start[a], m, model, eff, perf, ref, e);
        if (rc == LENS_OK)
            rc = fill_grid(&g[a], r, ids + start[a], m, eff, perf, o->missing, local, e);
    }
out:
    lens_free(start);
    lens_free(ids);
    lens_free(eff);
    lens_free(perf);
    lens_free(ref);
    lens_free(local);
    if (rc < 0) {
        lens_runs_grids_free(g, na);
        return rc;
    }
    *grids = g;
    *n = na;
    return LENS_OK;
}
