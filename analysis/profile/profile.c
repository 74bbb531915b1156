/* Profiles: building the processes x functions matrix cell by cell, reading and writing the
 * CSV form `process,function,seconds`. The matrix grows in both directions as ranks and
 * names appear, so one reader serves CSV files and trace walkers alike. */
#include "profile.h"
#include "common/atomic.h"

#include "common/textline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Ranks must fit the 32-bit keymap key and a row index; 2^26 (67 million) is above the
 * largest MPI jobs. */
#define RANK_LIMIT LENS_PROFILE_MAX_RANK

struct lens_profile *lens_profile_new(void)
{
    return lens_calloc(1, sizeof(struct lens_profile));
}

/* Also frees a half-built profile: every array is either NULL or sized for its counts. */
void lens_profile_free(struct lens_profile *p)
{
    if (!p)
        return;
    for (size_t f = 0; f < p->nfunc; f++)
        lens_free(p->funcs[f]);
    lens_free(p->funcs);
    lens_free(p->ranks);
    lens_free(p->sec);
    lens_keymap_release(&p->row_of);
    lens_free(p->fslot);
    lens_free(p);
}

/* Makes room for nproc rows and nfunc columns; sec keeps its row-major layout with stride
 * fcap while building, and is repacked to stride nfunc by lens_profile_finish. */
static int grow(struct lens_profile *p, size_t nproc, size_t nfunc, struct lens_err *e)
{
    size_t pcap = p->pcap, fcap = p->fcap;
    /* the matrix is dense: a profile of many ranks and many names would need gigabytes */
    if (nproc && nfunc > LENS_PROFILE_MAX_CELLS / nproc)
        return lens_err_set(e, LENS_EINVAL, "profile: %zu processes x %zu functions is more than "
                            "%zu cells", nproc, nfunc, (size_t)LENS_PROFILE_MAX_CELLS);
    /* Doubling in each direction separately: n adds cost O(n) copies amortised, and a profile
     * that only gains functions does not also grow its row capacity. */
    while (pcap < nproc)
        pcap = pcap ? 2 * pcap : 64;
    while (fcap < nfunc)
        fcap = fcap ? 2 * fcap : 16;
    /* The first sizes (64 rows, 16 columns) and the doubling can leave a thin profile with far
     * more capacity than cells: 1 process x 2^26 functions would reserve 64 x 2^26 cells,
     * 32 GiB. Give back the slack of the dimension that has the most (never below its need)
     * until the capacity is at most twice the cell limit. This ends: the needs alone are within
     * the limit (checked above). Doubling one exact dimension stays within twice the limit, so
     * growth remains amortised. */
    while (pcap * fcap > 2 * LENS_PROFILE_MAX_CELLS) {
        if (pcap > nproc && (fcap == nfunc || pcap * nfunc >= fcap * nproc))
            pcap = pcap / 2 > nproc ? pcap / 2 : nproc;
        else
            fcap = fcap / 2 > nfunc ? fcap / 2 : nfunc;
    }
    /* the common case once the capacity is reached: no copy */
    if (pcap == p->pcap && fcap == p->fcap)
        return LENS_OK;
    /* calloc: a cell never written is 0 seconds, which is what "never called" means */
    double *sec = lens_calloc(pcap * fcap, sizeof *sec);
    int bad = !sec;
    if (pcap != p->pcap) {
        long *ranks = lens_realloc(p->ranks, pcap * sizeof *ranks);
        if (ranks)
            p->ranks = ranks;
        bad |= !ranks;
    }
    if (fcap != p->fcap) {
        char **funcs = lens_realloc(p->funcs, fcap * sizeof *funcs);
        if (funcs)
            p->funcs = funcs;
        bad |= !funcs;
    }
    /* The old arrays are still valid (realloc failure leaves them; a successful realloc only made
     * them larger), so the profile stays usable after an ENOMEM here. */
    if (bad) {
        lens_free(sec);
        return lens_err_set(e, LENS_ENOMEM, "profile: out of memory for %zu x %zu cells", nproc, nfunc);
    }
    /* row by row: the stride changes with fcap, so one memcpy of the whole block would not do */
    for (size_t r = 0; r < p->nproc; r++)
        memcpy(sec + r * fcap, p->sec + r * p->fcap, p->nfunc * sizeof *sec);
    lens_free(p->sec);
    p->sec = sec;
    p->pcap = pcap;
    p->fcap = fcap;
    return LENS_OK;
}

/* FNV-1a (64-bit constants) with a final fold of the high bits, since the table is indexed
 * by the low bits of the hash. */
static size_t name_hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h ^ (h >> 29);
}

/* Slot of func in the hash of names (nfslot > 0): holds its column + 1, or 0 to fill.
 * Linear probing: the table is at most half full (fslot_grow), so probes stay short and the
 * loop always meets an empty slot. */
static size_t fslot_of(const struct lens_profile *p, const char *func)
{
    size_t h = name_hash(func) & (p->nfslot - 1);
    while (p->fslot[h] && strcmp(p->funcs[p->fslot[h] - 1], func))
        h = (h + 1) & (p->nfslot - 1);
    return h;
}

long lens_profile_find(const struct lens_profile *p, const char *func)
{
    if (p->nfslot) { /* a profile built by lens_profile_add always has its hash */
        size_t h = fslot_of(p, func);
        return p->fslot[h] ? (long)p->fslot[h] - 1 : -1;
    }
    for (size_t f = 0; f < p->nfunc; f++)
        if (!strcmp(p->funcs[f], func))
            return (long)f;
    return -1;
}

/* Doubles the hash of names so it stays at most half full with one more name.
 * Rehashing rebuilds from funcs, which stays the owner of the names: the table holds only
 * column numbers, so growing it moves no strings. */
static int fslot_grow(struct lens_profile *p, struct lens_err *e)
{
    if (2 * (p->nfunc + 1) <= p->nfslot)
        return LENS_OK;
    size_t n = p->nfslot ? 2 * p->nfslot : 64;
    size_t *slot = lens_calloc(n, sizeof *slot);
    if (!slot)
        return lens_err_set(e, LENS_ENOMEM, "profile: out of memory for %zu function names", p->nfunc + 1);
    lens_free(p->fslot);
    p->fslot = slot;
    p->nfslot = n;
    for (size_t f = 0; f < p->nfunc; f++)
        p->fslot[fslot_of(p, p->funcs[f])] = f + 1;
    return LENS_OK;
}

/* Column of func, created when new. Input usually repeats the same order of names for
 * every process, so the column after the last one is tried first; then the hash, so many
 * distinct names stay linear. */
static long column(struct lens_profile *p, const char *func, struct lens_err *e)
{
    /* next column first: a trace walker or a CSV sorted by process meets the names in the same
     * order for every process, so the common case is one strcmp */
    size_t guess[2] = {p->last_f + 1, p->last_f};
    for (int i = 0; i < 2; i++)
        if (guess[i] < p->nfunc && !strcmp(p->funcs[guess[i]], func))
            return (long)guess[i];
    long f = lens_profile_find(p, func);
    if (f >= 0)
        return f;
    /* both grown before the name is stored, so a failure leaves the profile unchanged */
    if (fslot_grow(p, e) != LENS_OK || grow(p, p->nproc, p->nfunc + 1, e) != LENS_OK)
        return -1;
    char *name = lens_strdup(func);
    if (!name) {
        lens_err_set(e, LENS_ENOMEM, "profile: out of memory for function '%s'", func);
        return -1;
    }
    p->funcs[p->nfunc] = name;
    p->fslot[fslot_of(p, name)] = p->nfunc + 1;
    /* the column exists in funcs, the hash and the matrix before nfunc counts it */
    return (long)p->nfunc++;
}

/* Row of a rank, created on first sight: rows are in order of appearance until
 * lens_profile_finish sorts them, so adding never moves a row. */
static long row(struct lens_profile *p, long rank, struct lens_err *e)
{
    struct lens_key k = {{(uint32_t)rank, 0, 0, 0}};
    int found = 0;
    if (p->row_of.cap) {
        size_t s = lens_keymap_slot(&p->row_of, &k, &found);
        if (found)
            return p->row_of.vals[s];
    }
    if (grow(p, p->nproc + 1, p->nfunc, e) != LENS_OK)
        return -1;
    int added;
    if (lens_keymap_get(&p->row_of, k, (int32_t)p->nproc, &added) < 0) {
        lens_err_set(e, LENS_ENOMEM, "profile: out of memory for rank %ld", rank);
        return -1;
    }
    /* the keymap already maps the rank to this row; ranks[] keeps the reverse */
    p->ranks[p->nproc] = rank;
    return (long)p->nproc++;
}

/* Validation comes first so that a bad call changes nothing. Cells accumulate: a trace walker
 * adds one call at a time, and a CSV may list a (process, function) pair twice. */
int lens_profile_add(struct lens_profile *p, long rank, const char *func, double seconds,
                     struct lens_err *e)
{
    if (rank < 0 || rank >= RANK_LIMIT)
        return lens_err_set(e, LENS_EINVAL, "process %ld out of range 0..%ld", rank, RANK_LIMIT - 1);
    if (!func || !*func)
        return lens_err_set(e, LENS_EINVAL, "empty function name");
    if (!isfinite(seconds) || seconds < 0)
        return lens_err_set(e, LENS_EINVAL, "seconds %g is not a finite number >= 0", seconds);
    long f = column(p, func, e);
    /* column() set e; the fallback code is for a caller that passed no error struct */
    if (f < 0)
        return e ? e->code : LENS_ENOMEM;
    long r = row(p, rank, e);
    if (r < 0)
        return e ? e->code : LENS_ENOMEM;
    p->sec[(size_t)r * p->fcap + (size_t)f] += seconds;
    p->last_f = (size_t)f;
    return LENS_OK;
}

static int rank_cmp(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* Sorting by rank makes every output independent of the order in which a trace or a CSV
 * listed the processes. The matrix is repacked to stride nfunc at the same time (one new
 * array, each row copied once), and the keymap is redirected to the new rows so that
 * lookups by rank keep working. Ranks are unique (one row each), so the sort has no ties. */
int lens_profile_finish(struct lens_profile *p, struct lens_err *e)
{
    /* an empty profile has nothing to cluster or draw: an error, not an empty result */
    if (p->nproc == 0 || p->nfunc == 0)
        return lens_err_set(e, LENS_EDATA, "profile is empty");
    double *sec = lens_malloc(p->nproc * p->nfunc * sizeof *sec);
    long *sorted = lens_malloc(p->nproc * sizeof *sorted);
    if (!sec || !sorted) {
        lens_free(sec);
        lens_free(sorted);
        return lens_err_set(e, LENS_ENOMEM, "profile: out of memory for %zu x %zu cells", p->nproc, p->nfunc);
    }
    memcpy(sorted, p->ranks, p->nproc * sizeof *sorted);
    qsort(sorted, p->nproc, sizeof *sorted, rank_cmp);
    for (size_t i = 0; i < p->nproc; i++) {
        struct lens_key k = {{(uint32_t)sorted[i], 0, 0, 0}};
        int found;
        /* every rank in sorted came from the keymap, so the lookup always finds it */
        size_t s = lens_keymap_slot(&p->row_of, &k, &found);
        size_t from = (size_t)p->row_of.vals[s];
        memcpy(sec + i * p->nfunc, p->sec + from * p->fcap, p->nfunc * sizeof *sec);
        p->row_of.vals[s] = (int32_t)i; /* the row the rank has once sorted */
    }
    lens_free(p->ranks);
    lens_free(p->sec);
    p->ranks = sorted;
    p->sec = sec;
    p->pcap = p->nproc;
    p->fcap = p->nfunc;
    return LENS_OK;
}

/* Summed in row order (ascending rank once finished), the same order for every caller, so the
 * totals and shares in the text and the prose agree to the last bit. */
double lens_profile_func_total(const struct lens_profile *p, size_t f)
{
    double s = 0;
    for (size_t r = 0; r < p->nproc; r++)
        s += p->sec[r * p->fcap + f];
    return s;
}

/* Splits one CSV line into three fields in place. The function field may be quoted.
 * Returns NULL on success or a message for the error.
 * Only the function field may be quoted: a function name can hold a comma (C++ templates,
 * "f(int, int)"), a rank or a number never does. A doubled quote inside quotes is one quote,
 * as RFC 4180 writes it. The messages count fields so the user sees what was found. */
static const char *split_line(char *line, char **proc, char **func, char **secs)
{
    char *s = line;
    *proc = s;
    s = strchr(s, ',');
    if (!s)
        return "expected 3 fields 'process,function,seconds', found 1";
    *s++ = '\0';
    if (*s == '"') {
        char *w = ++s;
        *func = w;
        for (;;) {
            if (*s == '\0')
                return "unterminated quoted function name";
            if (*s == '"' && s[1] == '"') {
                *w++ = '"';
                s += 2;
            } else if (*s == '"') {
                s++;
                break;
            } else {
                *w++ = *s++;
            }
        }
        *w = '\0';
        /* after the closing quote only the separator may follow: 'a"b",1' is refused, not
         * guessed */
        if (*s != ',')
            return *s ? "text after the closing quote of the function name"
                      : "expected 3 fields 'process,function,seconds', found 2";
        s++;
    } else {
        *func = s;
        s = strchr(s, ',');
        if (!s)
            return "expected 3 fields 'process,function,seconds', found 2";
        *s++ = '\0';
    }
    /* the seconds field is the rest of the line */
    *secs = s;
    /* a comma in the seconds field means a fourth field (an unquoted name with a comma) */
    if (strchr(s, ','))
        return "expected 3 fields 'process,function,seconds', found more";
    return NULL;
}

/* CR is trimmed with the blanks so that CRLF files read the same as LF ones */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

/* Parses one data line into p. lineno is for the message only. */
static int parse_line(struct lens_profile *p, char *line, const char *path, long lineno,
                      struct lens_err *e)
{
    char *ps, *fs, *ss;
    const char *why = split_line(line, &ps, &fs, &ss);
    if (why)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: %s", path, lineno, why);
    ps = trim(ps);
    fs = trim(fs);
    ss = trim(ss);
    char *end;
    errno = 0;
    /* errno catches an overflow; *end a trailing word; the range check a negative or huge rank */
    long rank = strtol(ps, &end, 10);
    if (!*ps || *end || errno || rank < 0 || rank >= RANK_LIMIT)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: process '%s' is not a rank in 0..%ld",
                            path, lineno, ps, RANK_LIMIT - 1);
    if (!*fs)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: empty function name", path, lineno);
    errno = 0;
    /* "nan" and "inf" parse as numbers: isfinite refuses them; ERANGE refuses 1e999 */
    double v = strtod(ss, &end);
    if (!*ss || *end || errno == ERANGE || !isfinite(v) || v < 0)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: seconds '%s' is not a finite number >= 0",
                            path, lineno, ss);
    struct lens_err sub;
    lens_err_clear(&sub);
    /* add's own message is prefixed with file:line, so a limit (too many cells) names the line */
    int rc = lens_profile_add(p, rank, fs, v, &sub);
    if (rc != LENS_OK)
        return lens_err_set(e, rc, "%s:%ld: %s", path, lineno, sub.msg);
    return LENS_OK;
}

/* Lines are read through the bounded reader (1 MiB each), so a file without newlines cannot
 * make one line allocate without limit. Only the very first line may be the header; comments
 * and blank lines may appear anywhere. */
int lens_profile_read_csv(const char *path, struct lens_profile **out, struct lens_err *e)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct lens_profile *p = lens_profile_new();
    struct lens_textline tl = {0};
    long lineno = 0;
    int got, rc = p ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    while (rc == LENS_OK && (got = lens_textline_read(fp, &tl, LENS_TEXTLINE_MAX)) != LENS_TEXTLINE_EOF) {
        lineno++;
        if (got != LENS_TEXTLINE_OK) {
            rc = lens_textline_fail(got, path, lineno, 0, LENS_TEXTLINE_MAX, e);
            break;
        }
        char *t = trim(tl.s);
        if (!*t || *t == '#')
            continue;
        /* the header is recognised exactly, so a data line that merely starts with a word fails */
        if (lineno == 1 && !strcmp(t, "process,function,seconds"))
            continue;
        rc = parse_line(p, t, path, lineno, e);
    }
    lens_textline_release(&tl);
    fclose(fp);
    /* a file of comments and a header only: say so rather than hand back an empty profile */
    if (rc == LENS_OK && (!p->nproc || !p->nfunc))
        rc = lens_err_set(e, LENS_EDATA, "%s: no data lines 'process,function,seconds'", path);
    if (rc == LENS_OK) {
        rc = lens_profile_finish(p, e);
        if (rc != LENS_OK)
            lens_err_prefix(e, path);
    }
    if (rc != LENS_OK) {
        lens_profile_free(p);
        return rc;
    }
    *out = p;
    return LENS_OK;
}

/* Whether a name must be quoted in CSV.
 * Quoting what the reader would otherwise split or trim: commas and quotes, a leading '#'
 * (a comment line to the reader) and leading or trailing blanks (trimmed). */
static int needs_quotes(const char *s)
{
    return strpbrk(s, ",\"") != NULL || *s == ' ' || *s == '#' ||
           (*s && s[strlen(s) - 1] == ' ');
}

/* Rows in rank order and cells in column order: the same profile always writes the same bytes.
 * %.17g lets the reader recover every double exactly. Through the atomic writer, so a failed
 * write leaves no partial file; stdout gets a flush and a check instead. */
int lens_profile_write_csv(const struct lens_profile *p, const char *path, struct lens_err *e)
{
    struct lens_atomic a = {0};
    FILE *fp = stdout;
    int to_stdout = !strcmp(path, "-");
    if (!to_stdout) {
        int rc = lens_atomic_open(&a, path, "w", e);
        if (rc != LENS_OK)
            return rc;
        fp = a.fp;
    }
    fputs("process,function,seconds\n", fp);
    for (size_t r = 0; r < p->nproc; r++) {
        int wrote = 0;
        for (size_t f = 0; f < p->nfunc; f++) {
            double v = p->sec[r * p->fcap + f];
            /* zeros are left out (never called), except one for a process that has nothing
               else, so the process and the file survive a round trip through the reader */
            if (v == 0 && (wrote || f + 1 < p->nfunc))
                continue;
            wrote = 1;
            const char *name = p->funcs[f];
            fprintf(fp, "%ld,", p->ranks[r]);
            if (needs_quotes(name)) {
                fputc('"', fp);
                for (const char *c = name; *c; c++) {
                    if (*c == '"')
                        fputc('"', fp);
                    fputc(*c, fp);
                }
                fputc('"', fp);
            } else {
                fputs(name, fp);
            }
            /* the rank is written as stored, never the row: rows are internal */
            fprintf(fp, ",%.17g\n", v);
        }
    }
    if (to_stdout)
        return fflush(fp) == 0 && !ferror(fp) ? LENS_OK
               : lens_err_set(e, LENS_EIO, "standard output: write failed");
    return lens_atomic_commit(&a, e);
}
