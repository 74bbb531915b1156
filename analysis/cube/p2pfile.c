/* Reading the p2p sweep's two files (bench/net/p2p_out.c writes both with the same columns) and
 * the send-time interpolation that message-size profiles use. The CSV is parsed by column
 * name, so extra or reordered columns are fine; the NetCDF file by variable name. */
#include "p2pfile.h"
#include "nc_guard.h"

#include "common/textline.h"

#include <errno.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One table of names for both formats: the CSV header and the NetCDF variables are the same
 * words, in the order of the enum in p2pfile.h. */
const char *const lens_p2p_col_names[LENS_P2P_NCOLS] = {
    "latency_s", "latency_min_s", "latency_median_s", "latency_max_s",
    "bandwidth_Bps", "bandwidth_min_Bps", "bandwidth_median_Bps", "bandwidth_max_Bps",
    "msg_rate_per_s", "msg_rate_min_per_s", "msg_rate_median_per_s", "msg_rate_max_per_s",
    "bw_time_s"};

/* Column c of the enum as a pointer into the point, so the readers fill the 13 statistics in one
 * loop and a new column is one line here and one in the table above. */
static double *point_col(struct lens_p2p_point *pt, int c)
{
    double *const cols[LENS_P2P_NCOLS] = {
        &pt->latency_s, &pt->latency_min_s, &pt->latency_median_s, &pt->latency_max_s,
        &pt->bandwidth_Bps, &pt->bandwidth_min_Bps, &pt->bandwidth_median_Bps, &pt->bandwidth_max_Bps,
        &pt->msg_rate_per_s, &pt->msg_rate_min_per_s, &pt->msg_rate_median_per_s, &pt->msg_rate_max_per_s,
        &pt->bw_time_s};
    return cols[c];
}

/* Safe on a file read halfway: pairs beyond npairs were never filled, and every pointer of a
 * counted pair is either set or NULL (calloc, memset). */
void lens_p2pfile_free(struct lens_p2pfile *f)
{
    if (!f)
        return;
    for (int p = 0; f->pair && p < f->npairs; p++) {
        struct lens_p2p_pair *q = &f->pair[p];
        lens_free(q->label);
        lens_free(q->kind);
        lens_free(q->host_a);
        lens_free(q->host_b);
        lens_free(q->pt);
    }
    lens_free(f->pair);
    lens_free(f->path);
    lens_free(f);
}

/* Sets the owned strings of q (copies) and derives label and inter. */
static int pair_labels(struct lens_p2p_pair *q, int index, const char *kind, const char *ha,
                       const char *hb)
{
    q->kind = lens_strdup(kind);
    q->host_a = lens_strdup(ha);
    q->host_b = lens_strdup(hb);
    /* 64 bytes cover the separators and "ranks <int>-<int>" (two ints of at most 11 characters). */
    size_t n = strlen(kind) + strlen(ha) + strlen(hb) + 64;
    q->label = lens_malloc(n);
    if (!q->kind || !q->host_a || !q->host_b || !q->label)
        return LENS_ENOMEM;
    /* The file's kind decides when it says; otherwise two different host names mean two nodes. */
    q->inter = !strcmp(kind, "inter") || (strcmp(kind, "intra") && *ha && *hb && strcmp(ha, hb));
    /* "intra vm, ranks 0-1", "inter n01-n02, ranks 0-4", "pair 2" when nothing is known */
    size_t used = 0;
    q->label[0] = '\0';
    if (*kind)
        used += (size_t)snprintf(q->label + used, n - used, "%s", kind);
    /* One host name when both ranks ran on the same host, "a-b" otherwise. */
    if (*ha || *hb) {
        const char *sep = used ? " " : "";
        if (!strcmp(ha, hb))
            used += (size_t)snprintf(q->label + used, n - used, "%s%s", sep, ha);
        else
            used += (size_t)snprintf(q->label + used, n - used, "%s%s-%s", sep, ha, hb);
    }
    if (q->rank_a >= 0 && q->rank_b >= 0)
        used += (size_t)snprintf(q->label + used, n - used, "%sranks %d-%d", used ? ", " : "",
                                 q->rank_a, q->rank_b);
    if (!used)
        snprintf(q->label, n, "pair %d", index);
    return LENS_OK;
}

/* ---- CSV ---- */

/* Optional columns after size_bytes and the 13 doubles; NONE marks an absent column.
 * Older single-pair files lack them all: a missing optional column gives "unknown" (0, -1 or
 * ""), never an error, so every file the benchmark ever wrote stays readable. */
enum { O_WINDOW, O_TRIPS, O_LAT_ITERS, O_BW_ITERS, O_PAIR, O_KIND, O_RANK_A, O_RANK_B,
       O_HOST_A, O_HOST_B, O_COUNT };
static const char *const opt_names[O_COUNT] = {"window", "round_trips_per_iter", "lat_iters",
    "bw_iters", "pair", "kind", "rank_a", "rank_b", "host_a", "host_b"};
#define NONE (-1)

struct csv {
    const char *path;
    int nf;              /* fields in the header */
    int size_col, col[LENS_P2P_NCOLS], opt[O_COUNT]; /* field index of each known column */
    char **field;        /* nf pointers into the current line */
};

/* Splits line (modified in place) at commas into at most max fields; returns the count.
 * Counts every field but stores at most max, so a row with too many fields is measured (and
 * refused by the caller) without writing past field[]. No quoting: the benchmark never writes a
 * comma inside a field. */
static int split(char *line, char **field, int max)
{
    int n = 0;
    char *s = line;
    for (;;) {
        char *c = strchr(s, ',');
        if (n < max)
            field[n] = s;
        n++;
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

/* The whole field must be a number. "nan" is accepted: the benchmark writes it for a statistic
 * without timed iterations (an interrupted sweep), and the consumers test isfinite. */
static int parse_double(const struct csv *c, long line, int f, const char *name, double *v,
                        struct lens_err *e)
{
    const char *s = c->field[f];
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (end == s || *end)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: column '%s': '%s' is not a number", c->path,
                            line, name, s);
    return LENS_OK;
}

/* Integers fit an int (the point's fields are ints) and are at least lo; errno catches overflow
 * of strtoll itself. */
static int parse_int(const struct csv *c, long line, int f, const char *name, long long lo,
                     long long *v, struct lens_err *e)
{
    const char *s = c->field[f];
    char *end;
    errno = 0;
    *v = strtoll(s, &end, 10);
    if (end == s || *end || errno || *v < lo || *v > 0x7fffffffLL)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: column '%s': '%s' is not an integer%s",
                            c->path, line, name, s, lo == 0 ? " >= 0" : "");
    return LENS_OK;
}

/* Maps each known column name to its field index. The header's field array is sized by its
 * commas and reused for every row (a row with another field count is an error). */
static int csv_header(struct csv *c, char *line, struct lens_err *e)
{
    int n = 1;
    for (const char *s = line; *s; s++)
        n += *s == ',';
    /* n, the header's commas plus one, is the field count every row must have: the array is
     * allocated once for the header and reused by every row. */
    c->field = lens_malloc((size_t)n * sizeof(char *));
    if (!c->field)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", c->path);
    c->nf = split(line, c->field, n);
    c->size_col = NONE;
    for (int k = 0; k < LENS_P2P_NCOLS; k++)
        c->col[k] = NONE;
    for (int k = 0; k < O_COUNT; k++)
        c->opt[k] = NONE;
    for (int f = 0; f < c->nf; f++) {
        if (!strcmp(c->field[f], "size_bytes"))
            c->size_col = f;
        for (int k = 0; k < LENS_P2P_NCOLS; k++)
            if (!strcmp(c->field[f], lens_p2p_col_names[k]))
                c->col[k] = f;
        for (int k = 0; k < O_COUNT; k++)
            if (!strcmp(c->field[f], opt_names[k]))
                c->opt[k] = f;
    }
    /* size_bytes is what identifies the file as a sweep; without it the input is something else,
     * and the message says which program writes the format. */
    if (c->size_col == NONE)
        return lens_err_set(e, LENS_EFORMAT, "%s:1: no column 'size_bytes': not a p2p file from "
                            "mpilens-bench -t p2p", c->path);
    /* bw_time_s is informative only; every other statistic is required */
    for (int k = 0; k < LENS_P2P_BW_TIME; k++)
        if (c->col[k] == NONE)
            return lens_err_set(e, LENS_EFORMAT, "%s:1: no column '%s'", c->path, lens_p2p_col_names[k]);
    return LENS_OK;
}

/* Per-pair bookkeeping while the CSV rows arrive in any order. */
struct acc {
    int cap;        /* slots allocated in f->pair, seen and ptcap */
    int *seen;      /* 1 once a pair's first row was read */
    size_t *ptcap;  /* capacity of each pair's pt array */
};

/* Grows f->pair to hold index p, zeroing new pairs.
 * Pairs are numbered by the file's "pair" column; rows of several pairs may interleave, so the
 * pair array grows to the largest index seen, and read_csv checks at the end that no index in
 * between was skipped. */
static int csv_pair_slot(struct lens_p2pfile *f, int p, struct acc *a)
{
    if (p < f->npairs)
        return LENS_OK;
    if (p >= a->cap) {
        int ncap = a->cap ? a->cap : 4;
        while (ncap <= p)
            ncap *= 2;
        struct lens_p2p_pair *np = lens_realloc(f->pair, (size_t)ncap * sizeof *np);
        if (!np)
            return LENS_ENOMEM;
        f->pair = np;
        /* Each grown array is stored at once: a later failure leaves all of them valid for the
         * free. */
        int *ns = lens_realloc(a->seen, (size_t)ncap * sizeof *ns);
        if (!ns)
            return LENS_ENOMEM;
        a->seen = ns;
        size_t *nc = lens_realloc(a->ptcap, (size_t)ncap * sizeof *nc);
        if (!nc)
            return LENS_ENOMEM;
        a->ptcap = nc;
        a->cap = ncap;
    }
    for (int k = f->npairs; k <= p; k++) {
        memset(&f->pair[k], 0, sizeof f->pair[k]);
        a->seen[k] = 0;
        a->ptcap[k] = 0;
    }
    f->npairs = p + 1;
    return LENS_OK;
}

/* Appends one data row (already split) to its pair. */
static int csv_row(struct csv *c, struct lens_p2pfile *f, long line, struct acc *a, struct lens_err *e)
{
    long long v = 0, pi = 0, ra = -1, rb = -1;
    struct lens_p2p_point pt;
    memset(&pt, 0, sizeof pt);
    /* bw_time_s is the one optional statistic: NaN says "not in this file" (p2pfile.h). */
    pt.bw_time_s = NAN;
    int rc = parse_int(c, line, c->size_col, "size_bytes", 0, &v, e);
    pt.size_bytes = v;
    for (int k = 0; rc == LENS_OK && k < LENS_P2P_NCOLS; k++)
        if (c->col[k] != NONE)
            rc = parse_double(c, line, c->col[k], lens_p2p_col_names[k], point_col(&pt, k), e);
    /* The first four optional columns are the integers, in enum order: ints[k - O_WINDOW] is the
     * field each one fills. window is the file's, repeated on every row; the last row's wins. */
    int *ints[4] = {&f->window, &pt.round_trips_per_iter, &pt.lat_iters, &pt.bw_iters};
    for (int k = O_WINDOW; rc == LENS_OK && k <= O_BW_ITERS; k++)
        if (c->opt[k] != NONE && (rc = parse_int(c, line, c->opt[k], opt_names[k], 0, &v, e)) == LENS_OK)
            *ints[k - O_WINDOW] = (int)v;
    if (rc == LENS_OK && c->opt[O_PAIR] != NONE)
        rc = parse_int(c, line, c->opt[O_PAIR], "pair", 0, &pi, e);
    if (rc == LENS_OK && c->opt[O_RANK_A] != NONE)
        rc = parse_int(c, line, c->opt[O_RANK_A], "rank_a", 0, &ra, e);
    if (rc == LENS_OK && c->opt[O_RANK_B] != NONE)
        rc = parse_int(c, line, c->opt[O_RANK_B], "rank_b", 0, &rb, e);
    if (rc != LENS_OK)
        return rc;
    /* A pair index sizes the pair array: a typo such as 100000000 must not allocate gigabytes. */
    if (pi >= 1 << 20)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld: pair index %lld is implausible", c->path, line, pi);
    int p = (int)pi;
    if (csv_pair_slot(f, p, a) != LENS_OK)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", c->path);
    struct lens_p2p_pair *q = &f->pair[p];
    /* The labels point into the line buffer: pair_labels copies them on the pair's first row. */
    const char *kind = c->opt[O_KIND] != NONE ? c->field[c->opt[O_KIND]] : "";
    const char *ha = c->opt[O_HOST_A] != NONE ? c->field[c->opt[O_HOST_A]] : "";
    const char *hb = c->opt[O_HOST_B] != NONE ? c->field[c->opt[O_HOST_B]] : "";
    /* The first row of a pair fixes its ranks, hosts and kind; every later row must repeat them,
     * or the file mixes two measurements under one number. */
    if (!a->seen[p]) {
        a->seen[p] = 1;
        q->rank_a = (int)ra;
        q->rank_b = (int)rb;
        if (pair_labels(q, p, kind, ha, hb) != LENS_OK)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", c->path);
    } else if (q->rank_a != ra || q->rank_b != rb || strcmp(q->kind, kind) || strcmp(q->host_a, ha) ||
               strcmp(q->host_b, hb)) {
        return lens_err_set(e, LENS_EDATA, "%s:%ld: pair %d is '%s,%d,%d,%s,%s' here but '%s,%d,%d,%s,%s' "
                            "on its first row", c->path, line, p, kind, (int)ra, (int)rb, ha, hb,
                            q->kind, q->rank_a, q->rank_b, q->host_a, q->host_b);
    }
    /* Sizes strictly increasing per pair: the interpolation and the plots rely on it, and a
     * repeat means two runs were concatenated. */
    if (q->nsize > 0 && pt.size_bytes <= q->pt[q->nsize - 1].size_bytes)
        return lens_err_set(e, LENS_EDATA, "%s:%ld: size %lld of pair %d follows %lld: sizes must "
                            "increase", c->path, line, pt.size_bytes, p, q->pt[q->nsize - 1].size_bytes);
    /* lens_reserve takes a void **: the pair's array goes through a local so that its type stays
     * exact. */
    void *buf = q->pt;
    if (lens_reserve(&buf, &a->ptcap[p], (size_t)q->nsize + 1, sizeof *q->pt) != LENS_OK)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", c->path);
    q->pt = buf;
    q->pt[q->nsize++] = pt;
    return LENS_OK;
}

static int read_csv(struct lens_p2pfile *f, struct lens_err *e)
{
    FILE *fp = fopen(f->path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", f->path, strerror(errno));
    struct csv c;
    memset(&c, 0, sizeof c);
    c.path = f->path;
    struct lens_textline tl = {0};
    struct acc a = {0, NULL, NULL};
    int rc = LENS_OK, have_header = 0, got;
    long line = 0;
    while (rc == LENS_OK && (got = lens_textline_read(fp, &tl, LENS_TEXTLINE_MAX)) != LENS_TEXTLINE_EOF) {
        line++;
        if (got != LENS_TEXTLINE_OK) {
            rc = lens_textline_fail(got, f->path, line, 0, LENS_TEXTLINE_MAX, e);
            break;
        }
        char *buf = tl.s;
        size_t len = tl.len;
        /* A last line without its newline hints at a file cut off while written; the field-count
         * error then says so. */
        int complete = len > 0 && buf[len - 1] == '\n';
        /* CRLF files (edited on Windows) read like LF ones. */
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        /* The first line is the header, always (the benchmark writes no comments). */
        if (!have_header) {
            if ((rc = csv_header(&c, buf, e)) == LENS_OK)
                have_header = 1;
            continue;
        }
        if (len == 0)
            continue; /* blank lines, e.g. at the end */
        int nf = split(buf, c.field, c.nf);
        if (nf != c.nf) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: %d fields, the header has %d%s", f->path,
                              line, nf, c.nf, complete ? "" : " (file truncated?)");
            break;
        }
        rc = csv_row(&c, f, line, &a, e);
    }
    if (rc == LENS_OK && !have_header)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: empty file, expected the p2p CSV header", f->path);
    if (rc == LENS_OK && f->npairs == 0)
        rc = lens_err_set(e, LENS_EDATA, "%s: no data rows after the header", f->path);
    for (int p = 0; rc == LENS_OK && p < f->npairs; p++)
        if (!a.seen[p])
            rc = lens_err_set(e, LENS_EDATA, "%s: pair %d has rows but pair %d has none", f->path,
                              f->npairs - 1, p);
    lens_textline_release(&tl);
    lens_free(c.field);
    lens_free(a.seen);
    lens_free(a.ptcap);
    fclose(fp);
    return rc;
}

/* ---- NetCDF ---- */

/* Variable name's id after checking it has the dimensions dims[0..nd) (by id).
 * nc_get_var_* fills the whole variable: its shape must be the one the buffer was sized for, or
 * a variable of other dimensions would write past it. */
static int nc_var(int id, const char *path, const char *name, int nd, const int *dims,
                  const char *shape, int *var, struct lens_err *e)
{
    int nd_got = 0, dims_got[NC_MAX_VAR_DIMS];
    if (nc_inq_varid(id, name, var) != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: no variable '%s'", path, name);
    if (nc_inq_varndims(id, *var, &nd_got) != NC_NOERR || nd_got != nd ||
        nc_inq_vardimid(id, *var, dims_got) != NC_NOERR || memcmp(dims, dims_got, (size_t)nd * sizeof(int)))
        return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s' has %d dimension%s, expected %s",
                            path, name, nd_got, nd_got == 1 ? "" : "s", shape);
    return LENS_OK;
}

static int nc_get_doubles(int id, const char *path, const char *name, int nd, const int *dims,
                          const char *shape, double *v, struct lens_err *e)
{
    int var, rc = nc_var(id, path, name, nd, dims, shape, &var, e);
    if (rc != LENS_OK)
        return rc;
    int st = nc_get_var_double(id, var, v);
    if (st != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s': %s", path, name, nc_strerror(st));
    return LENS_OK;
}

static int nc_get_ints(int id, const char *path, const char *name, int nd, const int *dims,
                       const char *shape, int *v, struct lens_err *e)
{
    int var, rc = nc_var(id, path, name, nd, dims, shape, &var, e);
    if (rc != LENS_OK)
        return rc;
    int st = nc_get_var_int(id, var, v);
    if (st != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s': %s", path, name, nc_strerror(st));
    return LENS_OK;
}

/* Text variable name(pair, label) into *out: npairs x label characters, NUL padded. */
static int nc_get_labels(int id, const char *path, const char *name, int dp, char **out, size_t *width,
                         struct lens_err *e)
{
    int var, nd, dims[NC_MAX_VAR_DIMS];
    nc_type t;
    if (nc_inq_varid(id, name, &var) != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: no variable '%s'", path, name);
    /* dims holds NC_MAX_VAR_DIMS ids, so nc_inq_var may write any rank before it is checked. */
    if (nc_inq_var(id, var, NULL, &t, &nd, dims, NULL) != NC_NOERR || t != NC_CHAR || nd != 2 || dims[0] != dp)
        return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s' is not char (pair, label)", path, name);
    size_t np, w;
    if (nc_inq_dimlen(id, dims[0], &np) != NC_NOERR || nc_inq_dimlen(id, dims[1], &w) != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s': bad dimensions", path, name);
    /* np * w is bounded by the file (the guard checked the variable lies inside it); + 1 and the
     * zeroing leave a terminated buffer even when the text fills every cell. */
    *out = lens_calloc(np * w + 1, 1);
    if (!*out)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    /* A label dimension of width 0 (all labels empty) holds nothing to read. */
    int st = np > 0 && w > 0 ? nc_get_var_text(id, var, *out) : NC_NOERR;
    if (st != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s': %s", path, name, nc_strerror(st));
    *width = w;
    return LENS_OK;
}

/* Copies the NUL-padded string at s (width w) into a NUL-terminated buffer of w + 1. */
static void label_copy(char *dst, const char *s, size_t w)
{
    size_t n = strnlen(s, w);
    memcpy(dst, s, n);
    dst[n] = '\0';
}

/* The NetCDF layout (bench/net/p2p_out.c): dimensions pair and size; size_bytes and
 * round_trips_per_iter(size); rank_a, rank_b(pair); lat_iters, bw_iters and the 13 statistics
 * (pair, size); host_a, host_b, kind as char(pair, label); the window as a global attribute. */
static int nc_fill(int id, struct lens_p2pfile *f, struct lens_err *e)
{
    const char *path = f->path;
    int dp, ds, rc = LENS_OK;
    size_t P, S;
    if (nc_inq_dimid(id, "pair", &dp) != NC_NOERR || nc_inq_dimid(id, "size", &ds) != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: no dimensions 'pair' and 'size': not a p2p file "
                            "from mpilens-bench -t p2p", path);
    /* The guard checked the header, so the dimensions exist with the ids just found. */
    nc_inq_dimlen(id, dp, &P);
    nc_inq_dimlen(id, ds, &S);
    /* No pair or no size: a sweep with nothing in it is an error, not an empty result. */
    if (P == 0 || S == 0)
        return lens_err_set(e, LENS_EDATA, "%s: %zu pairs x %zu sizes: no data", path, P, S);
    /* Keeps P * S and the int casts below far from overflow. */
    if (P > 1 << 20 || S > 1 << 20)
        return lens_err_set(e, LENS_EFORMAT, "%s: %zu pairs x %zu sizes is implausible", path, P, S);
    /* lat_iters(pair, size) holds 4 bytes per cell in the file (the guard checked that the file
     * holds every variable): a header declaring more cells than that is refused before the
     * buffers below are sized from it */
    struct stat fst;
    if (stat(path, &fst) != 0 || P * S > (size_t)fst.st_size / 4)
        return lens_err_set(e, LENS_EFORMAT, "%s: the header declares %zu pairs x %zu sizes, but the file holds "
                            "%lld bytes", path, P, S, (long long)fst.st_size);
    int window = 0;
    size_t wn = 0; /* one value only: nc_get_att_int writes them all */
    /* The window is optional here too: an absent or malformed attribute leaves "unknown" (0). */
    if (nc_inq_attlen(id, NC_GLOBAL, "window", &wn) == NC_NOERR && wn == 1 &&
        nc_get_att_int(id, NC_GLOBAL, "window", &window) == NC_NOERR)
        f->window = window;
    /* The expected shapes by dimension id: (size), (pair), (pair, size). */
    int d_s[1] = {ds}, d_p[1] = {dp}, d_ps[2] = {dp, ds};
    /* All variables are read whole into flat buffers, then scattered per pair: one library call
     * per variable instead of one per cell. */
    size_t Q = P * S;
    int *sizes = lens_malloc(S * sizeof(int)), *trips = lens_malloc(S * sizeof(int));
    int *ra = lens_malloc(P * sizeof(int)), *rb = lens_malloc(P * sizeof(int));
    int *li = lens_malloc(Q * sizeof(int)), *bi = lens_malloc(Q * sizeof(int));
    double *col = lens_malloc(Q * LENS_P2P_NCOLS * sizeof(double));
    char *ha = NULL, *hb = NULL, *kd = NULL;
    size_t wa = 0, wb = 0, wk = 0;
    f->pair = lens_calloc(P, sizeof *f->pair);
    if (!sizes || !trips || !ra || !rb || !li || !bi || !col || !f->pair)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    if (rc == LENS_OK)
        rc = nc_get_ints(id, path, "size_bytes", 1, d_s, "(size)", sizes, e);
    if (rc == LENS_OK)
        rc = nc_get_ints(id, path, "round_trips_per_iter", 1, d_s, "(size)", trips, e);
    if (rc == LENS_OK)
        rc = nc_get_ints(id, path, "rank_a", 1, d_p, "(pair)", ra, e);
    if (rc == LENS_OK)
        rc = nc_get_ints(id, path, "rank_b", 1, d_p, "(pair)", rb, e);
    if (rc == LENS_OK)
        rc = nc_get_ints(id, path, "lat_iters", 2, d_ps, "(pair, size)", li, e);
    if (rc == LENS_OK)
        rc = nc_get_ints(id, path, "bw_iters", 2, d_ps, "(pair, size)", bi, e);
    for (int c = 0; rc == LENS_OK && c < LENS_P2P_NCOLS; c++)
        rc = nc_get_doubles(id, path, lens_p2p_col_names[c], 2, d_ps, "(pair, size)", col + (size_t)c * Q, e);
    if (rc == LENS_OK)
        rc = nc_get_labels(id, path, "host_a", dp, &ha, &wa, e);
    if (rc == LENS_OK)
        rc = nc_get_labels(id, path, "host_b", dp, &hb, &wb, e);
    if (rc == LENS_OK)
        rc = nc_get_labels(id, path, "kind", dp, &kd, &wk, e);
    /* Sizes are shared by all pairs in the NetCDF file, so one check covers every pair. */
    for (size_t k = 1; rc == LENS_OK && k < S; k++)
        if (sizes[k] <= sizes[k - 1])
            rc = lens_err_set(e, LENS_EDATA, "%s: variable 'size_bytes': size %d at index %zu follows "
                              "%d: sizes must increase", path, sizes[k], k, sizes[k - 1]);
    if (rc == LENS_OK && sizes[0] < 0)
        rc = lens_err_set(e, LENS_EDATA, "%s: variable 'size_bytes': negative size %d", path, sizes[0]);
    size_t wmax = wa > wb ? wa : wb;
    wmax = wmax > wk ? wmax : wk;
    /* One buffer for the three terminated labels of a pair (host_a, host_b, kind), reused per
     * pair. */
    char *sa = rc == LENS_OK ? lens_malloc(3 * (wmax + 1)) : NULL;
    if (rc == LENS_OK && !sa)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    for (size_t p = 0; rc == LENS_OK && p < P; p++) {
        struct lens_p2p_pair *q = &f->pair[p];
        /* Counted before the pair is filled, so lens_p2pfile_free releases a half-built pair
         * too. */
        f->npairs = (int)p + 1;
        q->rank_a = ra[p];
        q->rank_b = rb[p];
        char *sb = sa + wmax + 1, *sk = sb + wmax + 1;
        label_copy(sa, ha + p * wa, wa);
        label_copy(sb, hb + p * wb, wb);
        label_copy(sk, kd + p * wk, wk);
        q->pt = lens_calloc(S, sizeof *q->pt);
        if (!q->pt || pair_labels(q, (int)p, sk, sa, sb) != LENS_OK) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
            break;
        }
        q->nsize = (int)S;
        for (size_t k = 0; k < S; k++) {
            struct lens_p2p_point *pt = &q->pt[k];
            /* Cell (p, k) of a (pair, size) variable, row-major as NetCDF stores it. */
            size_t x = p * S + k;
            pt->size_bytes = sizes[k];
            pt->round_trips_per_iter = trips[k];
            pt->lat_iters = li[x];
            pt->bw_iters = bi[x];
            for (int c = 0; c < LENS_P2P_NCOLS; c++)
                *point_col(pt, c) = col[(size_t)c * Q + x];
        }
    }
    lens_free(sa);
    lens_free(sizes);
    lens_free(trips);
    lens_free(ra);
    lens_free(rb);
    lens_free(li);
    lens_free(bi);
    lens_free(col);
    lens_free(ha);
    lens_free(hb);
    lens_free(kd);
    return rc;
}

/* Through the guard, as every NetCDF file of the project (nc_guard.h). */
static int read_nc(struct lens_p2pfile *f, struct lens_err *e)
{
    int id, rc = lens_nc_guard_open(f->path, &id, e);
    if (rc != LENS_OK)
        return rc;
    rc = nc_fill(id, f, e);
    nc_close(id);
    return rc;
}

/* ---- input, lookup, interpolation ---- */

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Regular files only: a directory named PREFIX_p2p.nc is no result. */
static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int lens_p2pfile_read(const char *input, struct lens_p2pfile **out, struct lens_err *e)
{
    *out = NULL;
    if (!input || !*input)
        return lens_err_set(e, LENS_EINVAL, "no p2p file or prefix given");
    /* Zeroed, so lens_p2pfile_free can release it at any step of a failed read. */
    struct lens_p2pfile *f = lens_calloc(1, sizeof *f);
    if (!f)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
    int rc = LENS_OK;
    if (ends_with(input, ".nc") || ends_with(input, ".csv")) {
        f->path = lens_strdup(input);
        f->is_nc = ends_with(input, ".nc");
    } else {
        /* a -f PREFIX: the NetCDF file keeps full precision, the CSV 9 digits.
         * Room for the longer suffix, "_p2p.csv", and the NUL. */
        size_t n = strlen(input) + 16;
        f->path = lens_malloc(n);
        if (f->path) {
            snprintf(f->path, n, "%s_p2p.nc", input);
            f->is_nc = 1;
            if (!is_file(f->path)) {
                snprintf(f->path, n, "%s_p2p.csv", input);
                f->is_nc = 0;
                if (!is_file(f->path))
                    rc = lens_err_set(e, LENS_EIO, "%s: neither %s_p2p.nc nor %s_p2p.csv exists "
                                      "(give the -f prefix of mpilens-bench -t p2p or a file)",
                                      input, input, input);
            }
        }
    }
    if (!f->path)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
    if (rc == LENS_OK)
        rc = f->is_nc ? read_nc(f, e) : read_csv(f, e);
    if (rc != LENS_OK) {
        lens_p2pfile_free(f);
        return rc;
    }
    *out = f;
    return LENS_OK;
}

/* By name only, so `mpilens report` can sort its inputs cheaply; the read that follows reports
 * anything wrong inside. */
int lens_p2pfile_detect(const char *input)
{
    if (!input || !*input)
        return 0;
    if (ends_with(input, "_p2p.nc") || ends_with(input, "_p2p.csv"))
        return is_file(input);
    /* A prefix: the same two names lens_p2pfile_read would try, in its order. */
    static const char *const suffix[2] = {"_p2p.nc", "_p2p.csv"};
    for (int i = 0; i < 2; i++) {
        size_t n = strlen(input) + 16;
        char *path = lens_malloc(n);
        if (!path)
            return 0;
        snprintf(path, n, "%s%s", input, suffix[i]);
        int found = is_file(path);
        lens_free(path);
        if (found)
            return 1;
    }
    return 0;
}

int lens_p2pfile_find(const struct lens_p2pfile *f, const char *which, struct lens_err *e)
{
    if (!which || !*which)
        return 0;
    char *end;
    /* A whole decimal number selects by index; "2x" or "" falls through to kinds and labels. */
    long v = strtol(which, &end, 10);
    if (!*end && end != which) {
        if (v >= 0 && v < f->npairs)
            return (int)v;
        return lens_err_set(e, LENS_EINVAL, "%s: no pair %s (the file has %d, numbered from 0)",
                            f->path, which, f->npairs);
    }
    /* By kind first ("intra", "inter": the first such pair), then by the full label. */
    for (int p = 0; p < f->npairs; p++)
        if (!strcmp(f->pair[p].kind, which) || !strcmp(f->pair[p].label, which))
            return p;
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    /* The list of choices is cut at 512 bytes: snprintf returns the untruncated length, so used
     * may pass the end, which stops the loop before another write. */
    for (int p = 0; p < f->npairs && used < sizeof list; p++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%d '%s'", p ? ", " : "", p,
                                 f->pair[p].label);
    return lens_err_set(e, LENS_EINVAL, "%s: no pair '%s'; pairs: %s", f->path, which, list);
}

/* Whether point k is usable for the interpolation. */
static int usable(const struct lens_p2p_point *pt)
{
    return isfinite(pt->latency_median_s) && pt->latency_median_s >= 0;
}

double lens_p2pfile_send_time(const struct lens_p2p_pair *p, double bytes)
{
    if (!p || !(bytes >= 0))
        return NAN;
    int lo = -1, hi = -1;
    /* Sizes increase, so one forward scan finds the usable points just below (lo) and at or
     * above (hi) the requested size; unusable points (NaN latency) are stepped over. */
    for (int k = 0; k < p->nsize; k++) {
        if (!usable(&p->pt[k]))
            continue;
        double s = (double)p->pt[k].size_bytes;
        if (s <= bytes)
            lo = k;
        if (s >= bytes) {
            hi = k;
            break;
        }
    }
    /* No usable point at all: nothing to interpolate from. */
    if (lo < 0 && hi < 0)
        return NAN;
    if (lo < 0) /* below the smallest size measured */
        return p->pt[hi].latency_median_s;
    const struct lens_p2p_point *a = &p->pt[lo];
    if (hi >= 0) {
        const struct lens_p2p_point *b = &p->pt[hi];
        if (hi == lo)
            return a->latency_median_s;
        /* Linear in bytes between the two measured sizes: exact for a transport that follows
         * alpha + bytes / beta on the segment (Hockney's model), and never outside the measured
         * latencies. */
        double t = (bytes - (double)a->size_bytes) / (double)(b->size_bytes - a->size_bytes);
        return a->latency_median_s + t * (b->latency_median_s - a->latency_median_s);
    }
    /* Above the largest size: extend the last segment when it rises.
     * The last segment is the last two usable points, skipping NaN latencies in between. */
    int before = -1;
    for (int k = lo - 1; k >= 0 && before < 0; k--)
        if (usable(&p->pt[k]))
            before = k;
    double extra = bytes - (double)a->size_bytes;
    if (before >= 0) {
        const struct lens_p2p_point *z = &p->pt[before];
        double slope = (a->latency_median_s - z->latency_median_s) / (double)(a->size_bytes - z->size_bytes);
        /* A non-rising last segment (noise, a protocol switch) extended would predict shorter
         * times for longer messages: the bandwidth fallback below is used instead. */
        if (slope > 0 && isfinite(slope))
            return a->latency_median_s + extra * slope;
    }
    /* The extra bytes at the measured streaming bandwidth; with no bandwidth either, the largest
     * size's latency is the best estimate there is. */
    if (a->bandwidth_median_Bps > 0 && isfinite(a->bandwidth_median_Bps))
        return a->latency_median_s + extra / a->bandwidth_median_Bps;
    return a->latency_median_s;
}

int lens_p2pfile_fit(const struct lens_p2p_pair *p, double *alpha_s, double *beta_Bps,
                     struct lens_err *e)
{
    /* Weighted means first, then the centred sums: no cancellation between s^2 ~ 1e13 terms. */
    double sw = 0, ss = 0, sl = 0;
    int n = 0;
    for (int k = 0; k < p->nsize; k++) {
        double L = p->pt[k].latency_median_s;
        if (!isfinite(L) || L <= 0)
            continue;
        /* Weights 1 / L^2: the fit minimises relative errors, so the 1 us latencies of small
         * messages count as much as the 10 ms of large ones. */
        double w = 1.0 / (L * L);
        sw += w;
        ss += w * (double)p->pt[k].size_bytes;
        sl += w * L;
        n++;
    }
    if (n < 2)
        return lens_err_set(e, LENS_EDATA, "%s: fewer than two sizes with a positive latency", p->label);
    double ms = ss / sw, ml = sl / sw, sxx = 0, sxy = 0;
    for (int k = 0; k < p->nsize; k++) {
        double L = p->pt[k].latency_median_s;
        if (!isfinite(L) || L <= 0)
            continue;
        double w = 1.0 / (L * L), dx = (double)p->pt[k].size_bytes - ms;
        sxx += w * dx * dx;
        sxy += w * dx * (L - ml);
    }
    /* All usable points at one size: the slope is undefined. */
    if (!(sxx > 0))
        return lens_err_set(e, LENS_EDATA, "%s: fewer than two distinct sizes with a positive latency",
                            p->label);
    /* Weighted least squares of L = alpha + b s: slope b = Sxy / Sxx around the weighted means,
     * intercept alpha = mean L - b mean s, and beta = 1 / b in bytes/s. */
    double b = sxy / sxx;
    /* A latency that falls (or stays flat) with size has no bandwidth: 1 / b would be negative
     * or infinite. */
    if (!(b > 0))
        return lens_err_set(e, LENS_EDATA, "%s: latency does not grow with size (slope %g s/B)",
                            p->label, b);
    *alpha_s = ml - b * ms;
    *beta_Bps = 1.0 / b;
    return LENS_OK;
}
