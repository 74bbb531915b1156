/* network_test2's NetCDF layout, reading: both layouts (int test_type and the plugins
 * branch's char test_type(strings), with _all.nc raw repeats and _measurements_amount.nc),
 * whole (lens_cube_nc_read) or matrix by matrix for the streaming reader of cube_stream.c.
 * It is the first row of the reader table (cube_readers.c). Writing the classic layout is in
 * cube_write.c (docs/methods.md §1). */
#include "cube_readers.h"
#include "nc_guard.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* network_test2's names, in the order of its data_type values 1..4 (docs/methods.md §1), which
 * is also lens_stat order: file_stats[s] has data_type s + 1. */
static const char *const file_stats[LENS_STAT_COUNT] = {"average", "median", "deviation", "min"};

/* Every file name of one result, after the prefix: the statistics (in lens_stat order), the
 * two companions of the newer layout, and the hosts. The one list the probe, the prefix
 * resolution and lens_cube_exists share. */
enum { SUFFIX_ALL = LENS_STAT_COUNT, SUFFIX_AMOUNT, SUFFIX_HOSTS, SUFFIX_COUNT };
static const char *const suffixes[SUFFIX_COUNT] = {"_average.nc", "_median.nc", "_deviation.nc", "_min.nc",
                                                   "_all.nc", "_measurements_amount.nc", "_hosts.txt"};

/* The open statistic files of one cube, values unrepaired: the state of the stream source. */
struct ncfiles {
    char *prefix;                   /* resolved prefix (owned) */
    char *path[LENS_STAT_COUNT];    /* file of each statistic, NULL if absent (owned) */
    int id[LENS_STAT_COUNT];        /* NetCDF ids, -1 if absent */
    int var[LENS_STAT_COUNT];       /* the data variable */
    int procs, nlen;
};

/* Defined below with the other source functions; files_open needs it on its error path. */
static void ncfiles_close(struct ncfiles *f);

/* stat follows links: a cube reached through a symbolic link is read like any other file. */
static int is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *path_join(const char *prefix, const char *suffix)
{
    size_t n = strlen(prefix) + strlen(suffix) + 1;
    char *p = lens_malloc(n);
    if (p)
        snprintf(p, n, "%s%s", prefix, suffix);
    return p;
}

/* "<prefix>_<suffix>.nc" when name ends that way: returns the prefix length, else 0.
 * The hosts file is left out (i < SUFFIX_HOSTS): a name ending in _hosts.txt alone does not make
 * a cube, there must be a NetCDF file. */
static size_t strip_suffix(const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < SUFFIX_HOSTS; i++) {
        size_t m = strlen(suffixes[i]);
        if (n > m && !strcmp(name + n - m, suffixes[i]))
            return n - m;
    }
    return 0;
}

/* A directory must hold the files of exactly one prefix. */
static int prefix_from_dir(const char *dir, char **prefix, struct lens_err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return lens_err_set(e, LENS_EIO, "%s: cannot open directory: %s", dir, strerror(errno));
    char *found = NULL;
    int rc = LENS_OK;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t m = strip_suffix(de->d_name);
        /* Only the statistic files name the result: "x_all.nc" also ends in a known suffix, and
         * its prefix "x" is the same result anyway. */
        if (!m || strstr(de->d_name, suffixes[SUFFIX_ALL]) || strstr(de->d_name, suffixes[SUFFIX_AMOUNT]))
            continue;
        size_t n = strlen(dir) + m + 2;
        char *p = lens_malloc(n);
        if (!p) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", dir);
            break;
        }
        size_t dl = strlen(dir);
        while (dl > 1 && dir[dl - 1] == '/')
            dl--; /* "dir/" and "dir" name the same prefix */
        snprintf(p, n, "%.*s/%.*s", (int)dl, dir, (int)m, de->d_name);
        /* Every statistic file of one result gives the same prefix; a second, different prefix
         * means two results, and choosing one silently would analyse the wrong run. */
        if (!found) {
            found = p;
        } else if (strcmp(found, p)) {
            rc = lens_err_set(e, LENS_EINVAL, "%s: holds more than one result (%s and %s); give "
                              "the prefix", dir, found, p);
            lens_free(p);
            break;
        } else {
            lens_free(p);
        }
    }
    closedir(d);
    if (rc == LENS_OK && !found)
        rc = lens_err_set(e, LENS_EIO, "%s: no network_test2 files (*_median.nc) in directory", dir);
    if (rc != LENS_OK) {
        lens_free(found);
        return rc;
    }
    *prefix = found;
    return LENS_OK;
}

/* What a user may give for a cube: the folder holding it, any one of its files (run_median.nc),
 * or the prefix network_test2 was given (-f run). All three become the prefix. */
static int resolve_prefix(const char *input, char **prefix, struct lens_err *e)
{
    if (is_dir(input))
        return prefix_from_dir(input, prefix, e);
    size_t m = strip_suffix(input);
    if (m) {
        if (!is_file(input))
            return lens_err_set(e, LENS_EIO, "%s: no such file", input);
        *prefix = lens_malloc(m + 1);
        if (!*prefix)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
        memcpy(*prefix, input, m);
        (*prefix)[m] = '\0';
        return LENS_OK;
    }
    *prefix = lens_strdup(input);
    return *prefix ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
}

/* What one statistic file says about the run; compared across files. */
struct ncmeta {
    int procs, nlen, begin, end, step, mode, data_type, repeats;
    int noise_len, noise_msgs, noise_procs, new_layout, ours, nraw;
};

static int nc_fail(struct lens_err *e, const char *path, const char *what, int status)
{
    return lens_err_set(e, LENS_EFORMAT, "%s: %s: %s", path, what, nc_strerror(status));
}

/* A scalar int variable of the header (begin_mes_length and the like). An optional one that is
 * absent leaves *v as the caller set it, so callers preset the default. */
static int get_int(int id, const char *name, int *v, int required, const char *path, struct lens_err *e)
{
    int var, st = nc_inq_varid(id, name, &var);
    if (st != NC_NOERR) {
        if (!required)
            return LENS_OK;
        return lens_err_set(e, LENS_EFORMAT, "%s: missing variable '%s'", path, name);
    }
    /* nc_get_var_int writes every element: more than one would overrun *v */
    int ndims, dims[NC_MAX_VAR_DIMS];
    size_t n = 1, len;
    if ((st = nc_inq_varndims(id, var, &ndims)) || ndims > NC_MAX_VAR_DIMS || (st = nc_inq_vardimid(id, var, dims)))
        return nc_fail(e, path, name, st);
    for (int d = 0; d < ndims; d++) {
        if ((st = nc_inq_dimlen(id, dims[d], &len)))
            return nc_fail(e, path, name, st);
        n *= len;
    }
    if (n != 1)
        return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s' holds %zu values, expected one", path, name, n);
    st = nc_get_var_int(id, var, v);
    return st == NC_NOERR ? LENS_OK : nc_fail(e, path, name, st);
}

/* test_type is an int (1 one_to_one .. 9 get) in the original layout and the mode's name in char
 * test_type(strings) in the newer one; which layout a file has is known from this alone. */
static int read_mode(int id, struct ncmeta *m, const char *path, struct lens_err *e)
{
    int var;
    nc_type type;
    /* test_type is required: without it rows and columns cannot be interpreted at all. */
    if (nc_inq_varid(id, "test_type", &var) != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: missing variable 'test_type'", path);
    if (nc_inq_vartype(id, var, &type) != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: cannot read variable 'test_type'", path);
    if (type == NC_CHAR) {
        char buf[256] = {0};
        int dim, ndims = 0;
        size_t len = 0;
        /* One dimension (strings = 101 in network_test2) and room for the terminating NUL in
         * buf: nc_get_var_text does not terminate. */
        if (nc_inq_varndims(id, var, &ndims) != NC_NOERR || ndims != 1 || nc_inq_vardimid(id, var, &dim) != NC_NOERR ||
            nc_inq_dimlen(id, dim, &len) != NC_NOERR || len >= sizeof buf)
            return lens_err_set(e, LENS_EFORMAT, "%s: variable 'test_type' has a bad shape", path);
        int st = nc_get_var_text(id, var, buf);
        if (st != NC_NOERR)
            return nc_fail(e, path, "test_type", st);
        m->mode = lens_cube_mode_parse(buf);
        m->new_layout = 1;
        return LENS_OK;
    }
    int st = nc_get_var_int(id, var, &m->mode);
    if (st != NC_NOERR)
        return nc_fail(e, path, "test_type", st);
    /* An unknown number is kept as "unknown" rather than refused: the delays are still delays,
     * only the interpretation of rows and columns is lost. */
    if (m->mode < 1 || m->mode > 9)
        m->mode = LENS_MODE_UNKNOWN;
    return LENS_OK;
}

/* Opens path and checks the shape of data(n, x, y[, z]); fills m.
 * want_dims is 3 for a statistic or the amounts, data(n, x, y), and 4 for the raw repeats,
 * data(n, x, y, z). On success the file stays open (*idp) for the data reads. */
static int open_stat(const char *path, int want_dims, int *idp, int *varp, struct ncmeta *m,
                     struct lens_err *e)
{
    /* the guard checks the header (and that the file holds what it promises) first */
    int id, rc = lens_nc_guard_open(path, &id, e);
    if (rc != LENS_OK)
        return rc;
    memset(m, 0, sizeof *m);
    int var, ndims, dims[NC_MAX_VAR_DIMS];
    nc_type type;
    size_t len[4] = {0};
    if (nc_inq_varid(id, "data", &var) != NC_NOERR) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s: missing variable 'data'", path);
        goto out;
    }
    /* Float and int data are converted by nc_get_var_double; other types (text, 64-bit) are not
     * something network_test2 writes. */
    if (nc_inq_var(id, var, NULL, &type, &ndims, dims, NULL) != NC_NOERR || ndims != want_dims ||
        (type != NC_DOUBLE && type != NC_FLOAT && type != NC_INT)) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s: variable 'data' has %d dims, expected %d (n, x, y%s)",
                          path, ndims, want_dims, want_dims == 4 ? ", z" : "");
        goto out;
    }
    for (int d = 0; d < ndims; d++)
        if (nc_inq_dimlen(id, dims[d], &len[d]) != NC_NOERR) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s: cannot read the dimensions of 'data'", path);
            goto out;
        }
    /* x and y are both P (receivers and senders): a non-square matrix is no delay matrix. */
    if (len[1] != len[2]) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s: variable 'data' is not square: x = %zu, y = %zu",
                          path, len[1], len[2]);
        goto out;
    }
    /* A million processes is beyond any run measured all-pairs (P^2 matrices); the bound keeps P
     * * P * n products far from overflowing size_t. */
    if (len[1] < 1 || len[1] > 1000000) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s: bad number of processes x = %zu", path, len[1]);
        goto out;
    }
    /* The record dimension n is the number of lengths: an interrupted run with no complete
     * length has nothing to read. */
    if (len[0] == 0) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s: zero message lengths (dimension n is 0)", path);
        goto out;
    }
    /* the dimensions become ints: a length beyond INT_MAX would wrap */
    if (len[0] > INT_MAX || (want_dims == 4 && (len[3] < 1 || len[3] > INT_MAX))) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s: dimension %s = %zu does not fit an int", path,
                          len[0] > INT_MAX ? "n" : "z", len[0] > INT_MAX ? len[0] : len[3]);
        goto out;
    }
    m->procs = (int)len[1];
    m->nlen = (int)len[0];
    m->nraw = want_dims == 4 ? (int)len[3] : 0;
    /* begin and step are required (they give every length l_k = begin + k step); the rest is
     * descriptive and the newer layout drops the noise variables. */
    if ((rc = read_mode(id, m, path, e)) || (rc = get_int(id, "begin_mes_length", &m->begin, 1, path, e)) ||
        (rc = get_int(id, "end_mes_length", &m->end, 0, path, e)) ||
        (rc = get_int(id, "step_length", &m->step, 1, path, e)) ||
        (rc = get_int(id, "num_repeates", &m->repeats, 0, path, e)) ||
        (rc = get_int(id, "data_type", &m->data_type, 0, path, e)) ||
        (rc = get_int(id, "noise_mes_length", &m->noise_len, 0, path, e)) ||
        (rc = get_int(id, "num_noise_mes", &m->noise_msgs, 0, path, e)) ||
        (rc = get_int(id, "num_noise_proc", &m->noise_procs, 0, path, e)))
        goto out;
    /* every length must fit an int, and counts cannot be negative */
    if ((rc = lens_cube_check_lengths(path, m->nlen, m->begin, m->step, e)))
        goto out;
    /* The first negative count is named; zero is fine (the newer layout writes no noise). */
    const char *neg = m->repeats < 0 ? "num_repeates" : m->noise_len < 0 ? "noise_mes_length"
                      : m->noise_msgs < 0 ? "num_noise_mes" : m->noise_procs < 0 ? "num_noise_proc" : NULL;
    if (neg) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s: %s = %d is negative", path, neg,
                          m->repeats < 0 ? m->repeats : m->noise_len < 0 ? m->noise_len
                          : m->noise_msgs < 0 ? m->noise_msgs : m->noise_procs);
        goto out;
    }
    int proc_num = m->procs;
    if ((rc = get_int(id, "proc_num", &proc_num, 0, path, e)))
        goto out;
    /* proc_num is optional but, when present, must agree with the matrices: a mismatch means a
     * damaged header or a file from another run. */
    if (proc_num != m->procs) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s: proc_num = %d but the matrices are %d x %d", path,
                          proc_num, m->procs, m->procs);
        goto out;
    }
    /* Files written by mpilens carry this attribute: they were repaired when first read, so
     * lens_cube_repair does not guess at the round-trip mix again (methods §1: "Files written by
     * mpilens are left alone"). */
    size_t alen = 0;
    m->ours = nc_inq_attlen(id, NC_GLOBAL, "mpilens_version", &alen) == NC_NOERR;
out:
    if (rc != LENS_OK) {
        nc_close(id);
        return rc;
    }
    *idp = id;
    *varp = var;
    return LENS_OK;
}

/* The whole variable into dst, which the caller sized P * P * n (times z for raw repeats) from
 * the dimensions open_stat checked. */
static int read_data(int id, int var, double *dst, const char *path, struct lens_err *e)
{
    int st = nc_get_var_double(id, var, dst);
    if (st != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: cannot read variable 'data' (truncated or corrupt "
                            "file?): %s", path, nc_strerror(st));
    return LENS_OK;
}

/* The files of one cube must describe the same run: the same P and the same lengths. Files of
 * two runs mixed under one prefix are refused rather than combined. */
static int same_shape(const struct ncmeta *a, const struct ncmeta *b, const char *pa,
                      const char *pb, struct lens_err *e)
{
    if (a->procs != b->procs)
        return lens_err_set(e, LENS_EDATA, "%s: %d processes, but %s has %d", pb, b->procs, pa, a->procs);
    if (a->nlen != b->nlen || a->begin != b->begin || a->step != b->step)
        return lens_err_set(e, LENS_EDATA, "%s: %d lengths from %d step %d, but %s has %d from %d step %d",
                            pb, b->nlen, b->begin, b->step, pa, a->nlen, a->begin, a->step);
    return LENS_OK;
}

/* Reads one line of fp into *buf (grown as needed, NUL-terminated, without "\n" or "\r\n")
 * and its length into *len, up to max bytes: 1 a line, 0 at the end of the file, -1 a line
 * longer than max (the rest of it is skipped), LENS_ENOMEM. Bytes are kept as they are, NULs
 * included, so the caller sees exactly what the file holds. */
static int read_line(FILE *fp, char **buf, size_t *cap, size_t *len, size_t max)
{
    int ch, any = 0, over = 0;
    *len = 0;
    while ((ch = getc(fp)) != EOF && ch != '\n') {
        any = 1;
        /* Past max the bytes are consumed but not stored: memory stays bounded by max whatever
         * the file holds, and the next call starts at the next line. */
        if (over || *len >= max) {
            over = 1;
            continue;
        }
        if (lens_reserve((void **)buf, cap, *len + 2, 1) != LENS_OK)
            return LENS_ENOMEM;
        (*buf)[(*len)++] = (char)ch;
    }
    if (!any && ch == EOF)
        return 0;
    if (over)
        return -1;
    if (*len > 0 && (*buf)[*len - 1] == '\r')
        (*len)--;
    if (lens_reserve((void **)buf, cap, *len + 1, 1) != LENS_OK)
        return LENS_ENOMEM;
    (*buf)[*len] = '\0';
    return 1;
}

/* One host name per line, in rank order; blank lines are skipped. A name is never split: it
 * may be up to LENS_HOST_NAME_MAX bytes of UTF-8 (what JSON output and the PDF need). */
static int read_hosts(struct lens_cube *c, const char *prefix, struct lens_err *e)
{
    char *path = path_join(prefix, "_hosts.txt");
    if (!path)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        /* A missing hosts file is a warning, not an error: the delays are complete without it. */
        int rc = lens_cube_warn(c, "%s: no hosts file; processes are named by rank", path);
        lens_free(path);
        return rc == LENS_OK ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
    }
    /* n counts the names read so far; it keeps counting past P (without storing) so that the
     * message can say how many names the file has. */
    int rc = LENS_OK, n = 0, got;
    long lineno = 0;
    char *line = NULL;
    size_t cap = 0, len;
    c->hosts = lens_calloc((size_t)c->procs, sizeof *c->hosts);
    if (!c->hosts)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    while (rc == LENS_OK && (got = read_line(fp, &line, &cap, &len, LENS_HOST_NAME_MAX)) != 0) {
        lineno++;
        if (got == LENS_ENOMEM) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
        } else if (got < 0) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: host name longer than %d bytes", path, lineno,
                              LENS_HOST_NAME_MAX);
        } else if (len == 0) {
            continue;
        } else if (!lens_nc_guard_utf8(line, len)) {
            /* the check also refuses NUL bytes, so lens_strdup below copies the whole name */
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: host name is not valid UTF-8", path, lineno);
        } else if (n >= c->procs) {
            n++; /* counted for the message below */
        } else if (!(c->hosts[n++] = lens_strdup(line))) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
        }
    }
    if (rc == LENS_OK && ferror(fp))
        rc = lens_err_set(e, LENS_EIO, "%s: read error: %s", path, strerror(errno));
    fclose(fp);
    lens_free(line);
    /* Host i names rank i: a count that differs from P cannot be matched to the ranks. */
    if (rc == LENS_OK && n != c->procs)
        rc = lens_err_set(e, LENS_EDATA, "%s: %d host names for %d processes", path, n, c->procs);
    lens_free(path);
    return rc;
}

/* Optional companions of the newer layout; a damaged one is an error like any other file. */
static int read_extras(struct lens_cube *c, const char *prefix, const struct ncmeta *ref,
                       const char *refpath, struct lens_err *e)
{
    /* which 0 is _all.nc (raw repeats, data(n, x, y, z)), which 1 _measurements_amount.nc
     * (counts, data(n, x, y)); both are optional and only read when the file exists. */
    for (int which = 0; which < 2; which++) {
        char *path = path_join(prefix, suffixes[SUFFIX_ALL + which]);
        if (!path)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
        if (!is_file(path)) {
            lens_free(path);
            continue;
        }
        /* zeroed: cells below reads m.nraw even when open_stat failed before filling m */
        struct ncmeta m = {0};
        int id = -1, var, rc = open_stat(path, which == 0 ? 4 : 3, &id, &var, &m, e);
        if (rc == LENS_OK)
            rc = same_shape(ref, &m, refpath, path, e);
        /* Sized from dimensions the guard checked against the file size, so the allocation is at
         * most about the file's size. */
        size_t cells = (size_t)c->procs * c->procs * c->nlen * (which == 0 ? (size_t)m.nraw : 1);
        double *buf = NULL;
        if (rc == LENS_OK && !(buf = lens_malloc(cells * sizeof *buf)))
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %zu values", path, cells);
        if (rc == LENS_OK)
            rc = read_data(id, var, buf, path, e);
        if (id >= 0)
            nc_close(id);
        if (rc != LENS_OK) {
            lens_free(buf);
            lens_free(path);
            return rc;
        }
        if (which == 0) {
            /* The plugins branch pads unmeasured repeats with -1. NaN is "missing" everywhere
             * in mpilens, and so is any other negative or infinite delay (no clock gives one). */
            for (size_t x = 0; x < cells; x++)
                if (!(buf[x] >= 0) || !isfinite(buf[x]))
                    buf[x] = NAN;
            c->raw = buf;
            c->nraw = m.nraw;
        } else {
            c->amount = buf;
        }
        lens_free(path);
    }
    return LENS_OK;
}

/* Opens every statistic file of input and checks them against each other, as one cube: *out
 * gets the metadata (no data, no hosts) and the reader's warnings, f the open files, ref what
 * the first file said. On failure everything is closed and freed. */
static int files_open(const char *input, struct lens_cube **out, struct ncfiles *f,
                      struct ncmeta *ref, struct lens_err *e)
{
    *out = NULL;
    /* f is zeroed and its ids set to -1 first, so ncfiles_close is safe whatever step fails. */
    memset(f, 0, sizeof *f);
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        f->id[s] = -1;
    memset(ref, 0, sizeof *ref);
    int rc = resolve_prefix(input, &f->prefix, e);
    if (rc != LENS_OK)
        return rc;
    struct lens_cube *c = NULL;
    const char *refpath = NULL;
    /* Any subset of the four statistics makes a cube; the first file found is the reference the
     * others are compared with, and its header fills the metadata. */
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
        char *path = path_join(f->prefix, suffixes[s]);
        if (!path) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", f->prefix);
            break;
        }
        if (!is_file(path)) {
            lens_free(path);
            continue;
        }
        f->path[s] = path;
        struct ncmeta m;
        rc = open_stat(path, 3, &f->id[s], &f->var[s], &m, e);
        if (rc == LENS_OK && c)
            rc = same_shape(ref, &m, refpath, path, e);
        if (rc == LENS_OK && !c) {
            rc = lens_cube_new(&c, m.procs, m.nlen, m.begin, m.step, 0, e);
            if (rc == LENS_OK) {
                *ref = m;
                refpath = path;
                /* The rest of the run's description comes from the reference file; the other
                 * files only have to agree on the shape and the mode. */
                c->end = m.end;
                c->mode = m.mode;
                c->repeats = m.repeats;
                c->noise_len = m.noise_len;
                c->noise_msgs = m.noise_msgs;
                c->noise_procs = m.noise_procs;
                c->new_layout = m.new_layout;
                c->written_by_mpilens = m.ours;
                c->source = lens_strdup(f->prefix);
                if (!c->source)
                    rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
            }
        }
        if (rc == LENS_OK && m.mode != ref->mode)
            rc = lens_err_set(e, LENS_EDATA, "%s: test_type %s, but %s has %s", path,
                              lens_cube_mode_name(m.mode), refpath, lens_cube_mode_name(ref->mode));
        /* A file named _median.nc whose data_type says average is suspicious but readable: the
         * name decides, the warning tells the user. */
        if (rc == LENS_OK && m.data_type && m.data_type != s + 1)
            rc = lens_cube_warn(c, "%s: data_type is %d, expected %d for %s", path, m.data_type,
                                s + 1, file_stats[s]) == LENS_OK ? LENS_OK
                 : lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    /* No statistic file at all: the message names the median file, the one a user expects. */
    if (rc == LENS_OK && !c) {
        char *path = path_join(f->prefix, suffixes[LENS_STAT_MEDIAN]);
        rc = lens_err_set(e, LENS_EIO, "%s: no such file", path ? path : f->prefix);
        lens_free(path);
    }
    if (rc != LENS_OK) {
        ncfiles_close(f);
        lens_cube_free(c);
        return rc;
    }
    /* The stream source needs the shape of the matrices it reads; the cube's metadata is handed
     * on separately (*out). */
    f->procs = c->procs;
    f->nlen = c->nlen;
    *out = c;
    return LENS_OK;
}

static void ncfiles_close(struct ncfiles *f)
{
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (f->id[s] >= 0)
            nc_close(f->id[s]);
        f->id[s] = -1;
        lens_free(f->path[s]);
        f->path[s] = NULL;
    }
    lens_free(f->prefix);
    f->prefix = NULL;
}

/* The companions are only checked here: a stream never reads raw repeats or counts. */
static int check_extras(const struct ncfiles *f, const struct ncmeta *ref, struct lens_cube *c, struct lens_err *e)
{
    /* The companions are compared with the first statistic file, the reference of files_open;
     * they are read before the repair, which needs the raw repeats to halve them with the rest. */
    const char *refpath = NULL;
    for (int s = 0; s < LENS_STAT_COUNT && !refpath; s++)
        refpath = f->path[s];
    for (int which = 0; which < 2; which++) {
        char *path = path_join(f->prefix, suffixes[SUFFIX_ALL + which]);
        if (!path)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", f->prefix);
        int rc = LENS_OK;
        /* The companions are opened and checked (shape, guard) so that a damaged one fails here
         * as it would in lens_cube_nc_read, but their data are left in the file. */
        if (is_file(path)) {
            struct ncmeta m;
            int id = -1, var;
            rc = open_stat(path, which == 0 ? 4 : 3, &id, &var, &m, e);
            if (rc == LENS_OK)
                rc = same_shape(ref, &m, refpath, path, e);
            if (rc == LENS_OK && which == 0)
                c->nraw = m.nraw; /* how many there are, for the summary; never read here */
            if (id >= 0)
                nc_close(id);
        }
        lens_free(path);
        if (rc != LENS_OK)
            return rc;
    }
    return LENS_OK;
}

/* Opens and checks the files as lens_cube_nc_read does and reads the hosts: *meta has no data. */
static int ncfiles_open(const char *input, struct lens_cube **meta, struct ncfiles *f, struct lens_err *e)
{
    struct ncmeta ref;
    struct lens_cube *c;
    int rc = files_open(input, &c, f, &ref, e);
    if (rc != LENS_OK)
        return rc;
    if ((rc = read_hosts(c, f->prefix, e)) == LENS_OK)
        rc = check_extras(f, &ref, c, e);
    if (rc != LENS_OK) {
        ncfiles_close(f);
        lens_cube_free(c);
        return rc;
    }
    *meta = c;
    return LENS_OK;
}

/* Matrix k of statistic stat (P x P): the source's get. */
static int ncfiles_get(void *state, int stat, int k, double *mat, struct lens_err *e)
{
    const struct ncfiles *f = state;
    if (stat < 0 || stat >= LENS_STAT_COUNT || f->id[stat] < 0 || k < 0 || k >= f->nlen)
        return lens_err_set(e, LENS_EINVAL, "%s: no statistic %s at length index %d",
                            f->prefix ? f->prefix : "cube", lens_cube_stat_name(stat), k);
    /* One record of data(n, x, y): the hyperslab [k, 0..P, 0..P], values unrepaired (the stream
     * applies the repairs, cube_stream.c). */
    size_t start[3] = {(size_t)k, 0, 0}, count[3] = {1, (size_t)f->procs, (size_t)f->procs};
    int st = nc_get_vara_double(f->id[stat], f->var[stat], start, count, mat);
    if (st != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: cannot read variable 'data' at length index %d (truncated "
                            "or corrupt file?): %s", f->path[stat], k, nc_strerror(st));
    return LENS_OK;
}

/* Its diagonal (P values): the source's diagonal. */
static int ncfiles_diagonal(void *state, int stat, int k, double *diag, struct lens_err *e)
{
    const struct ncfiles *f = state;
    if (stat < 0 || stat >= LENS_STAT_COUNT || f->id[stat] < 0 || k < 0 || k >= f->nlen)
        return lens_err_set(e, LENS_EINVAL, "%s: no statistic %s at length index %d",
                            f->prefix ? f->prefix : "cube", lens_cube_stat_name(stat), k);
    /* element (k, i, i) is the first of row i from column i: one strided read per row would
     * cost as much as the row, so read the P elements one by one (P calls, no buffer) */
    for (int i = 0; i < f->procs; i++) {
        size_t at[3] = {(size_t)k, (size_t)i, (size_t)i};
        int st = nc_get_var1_double(f->id[stat], f->var[stat], at, &diag[i]);
        if (st != NC_NOERR)
            return lens_err_set(e, LENS_EFORMAT, "%s: cannot read variable 'data' at length index %d "
                                "(truncated or corrupt file?): %s", f->path[stat], k, nc_strerror(st));
    }
    return LENS_OK;
}

static void ncfiles_free(void *state)
{
    ncfiles_close(state);
    lens_free(state);
}

int lens_cube_nc_stream_open(const char *input, struct lens_cube_stream **out, struct lens_err *e)
{
    *out = NULL;
    struct ncfiles *f = lens_calloc(1, sizeof *f);
    if (!f)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
    struct lens_cube *meta;
    int rc = ncfiles_open(input, &meta, f, e);
    if (rc != LENS_OK) {
        lens_free(f);
        return rc;
    }
    /* Bit s set: statistic s is present and the stream may ask for it. */
    unsigned mask = 0;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (f->id[s] >= 0)
            mask |= 1u << s;
    struct lens_cube_source src = {f, ncfiles_get, ncfiles_diagonal, ncfiles_free};
    return lens_cube_stream_new(meta, mask, &src, out, e);
}

/* A directory, a file named <prefix>_<stat>.nc (or a companion), or a prefix with one of the
 * files: the names alone decide, so a missing prefix still gets this row's messages. */
int lens_cube_nc_probe(const char *input)
{
    if (is_dir(input)) {
        /* a folder is ours when it holds a statistic file (which prefix is the reader's business) */
        DIR *d = opendir(input);
        struct dirent *de;
        int found = 0;
        while (d && !found && (de = readdir(d)) != NULL)
            for (int s = 0; s < LENS_STAT_COUNT && !found; s++) {
                size_t n = strlen(de->d_name), m = strlen(suffixes[s]);
                found = n > m && !strcmp(de->d_name + n - m, suffixes[s]);
            }
        if (d)
            closedir(d);
        return found;
    }
    if (strip_suffix(input))
        return is_file(input);
    /* no allocation: a probe cannot fail, and an allocation failure must reach the reader */
    char p[PATH_MAX];
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (snprintf(p, sizeof p, "%s%s", input, suffixes[s]) >= (int)sizeof p)
            return 1; /* too long for a path: this row says so */
        if (is_file(p))
            return 1;
    }
    return 0;
}

/* The whole cube in memory, then repaired (lens_cube_repair) as docs/methods.md §1 describes:
 * the order matters, the repairs look at all statistics and the raw repeats together. */
int lens_cube_nc_read(const char *input, struct lens_cube **out, struct lens_err *e)
{
    *out = NULL;
    struct ncfiles f;
    struct ncmeta ref;
    struct lens_cube *c;
    int rc = files_open(input, &c, &f, &ref, e);
    if (rc != LENS_OK)
        return rc;
    size_t cells = (size_t)c->procs * c->procs * c->nlen;
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
        if (f.id[s] < 0)
            continue;
        if (!(c->data[s] = lens_malloc(cells * sizeof(double))))
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %zu values", f.path[s], cells);
        if (rc == LENS_OK)
            rc = read_data(f.id[s], f.var[s], c->data[s], f.path[s], e);
    }
    const char *refpath = NULL;
    for (int s = 0; s < LENS_STAT_COUNT && !refpath; s++)
        refpath = f.path[s];
    if (rc == LENS_OK)
        rc = read_hosts(c, f.prefix, e);
    if (rc == LENS_OK)
        rc = read_extras(c, f.prefix, &ref, refpath, e);
    if (rc == LENS_OK)
        rc = lens_cube_repair(c, e);
    ncfiles_close(&f);
    if (rc != LENS_OK) {
        lens_cube_free(c);
        return rc;
    }
    *out = c;
    return LENS_OK;
}

/* Whether writing a cube under prefix would replace something of a result: convert, synth and
 * decompress refuse then (without --force). */
int lens_cube_exists(const char *prefix)
{
    for (int i = 0; i < SUFFIX_COUNT; i++) {
        if (i == SUFFIX_AMOUNT)
            continue; /* never written by mpilens */
        char *p = path_join(prefix, suffixes[i]);
        int found = p && is_file(p);
        lens_free(p);
        if (found)
            return 1;
    }
    return 0;
}
