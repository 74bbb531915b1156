/* The packed cube file: one NetCDF classic (64-bit offset) file, written through a temporary
 * name. Per statistic s (average, median, deviation, min) present:
 *   int    s_reset_length(s_resets)          length index of each stored partition
 *   int    s_reset_group(s_resets, pairs)    group of pair row*P + col
 *   int    s_event(s_events, four)           {length index, 0 move | 1 merge, a, b}
 *   double s_value(s_values)                 group values, ascending group, length by length
 *   int    s_value_start(lengths1)           where each length's values start
 *   int    s_value_group(s_values)           the group of each value: the positional index
 *                                            (lens_packed_at); files without it still read,
 *                                            the index is then rebuilt by decoding
 * and attributes on s_value: nevents, splits, merges, err_max, err_rms. Global attributes
 * carry the cube's metadata (procs, begin, end, step, mode, repeats, hosts, max_error).
 * The reader side is also a row of the cube reader table (cube_readers.c): every command that
 * reads a cube reads a packed one, decoded length by length through the streaming reader. */
#include "packed.h"
#include "common/atomic.h"
#include "common/time.h"
#include "cube_readers.h"
#include "nc_guard.h"

#include <limits.h>
#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The global attribute "format" says what the file is: a NetCDF file without it is a plain cube
 * or something else, never guessed at from its variables. The trailing number is the layout's
 * version, to be raised when the layout changes. */
#define PACK_FORMAT "mpilens packed cube 1"

/* The integer metadata of the cube, in the order of iv[] in lens_packed_write and
 * lens_packed_read: the two must agree index by index. */
static const char *const int_attrs[] = {"procs", "begin", "end", "step", "mode", "repeats",
                                        "noise_len", "noise_msgs", "noise_procs"};

/* Defines (in define mode) the dimensions, variables and attributes of statistic sn; put_data
 * writes the values after nc_enddef. Returns a NetCDF status. */
static int put_stat(int id, int dpairs, int dlen1, int dfour, const char *sn, const struct lens_packed *p)
{
    char name[64];
    int st, dr, de, dv, vr, vg, ve, vv, vs, vgr;
    snprintf(name, sizeof name, "%s_resets", sn);
    if ((st = nc_def_dim(id, name, (size_t)p->nreset, &dr)))
        return st;
    snprintf(name, sizeof name, "%s_events", sn);
    /* A dimension of length 0 would be the record dimension in the classic format: a cube
     * without events gets one dummy event row, and the count that matters is the nevents
     * attribute. */
    if ((st = nc_def_dim(id, name, (size_t)(p->nevent > 0 ? p->nevent : 1), &de)))
        return st;
    snprintf(name, sizeof name, "%s_values", sn);
    if ((st = nc_def_dim(id, name, (size_t)p->nvalue, &dv)))
        return st;
    /* reset_group is (resets, pairs) and event (events, four): each row one partition or one
     * event, so a reader can take them row by row. */
    int d2[2] = {dr, dpairs}, d4[2] = {de, dfour};
    snprintf(name, sizeof name, "%s_reset_length", sn);
    if ((st = nc_def_var(id, name, NC_INT, 1, &dr, &vr)))
        return st;
    snprintf(name, sizeof name, "%s_reset_group", sn);
    if ((st = nc_def_var(id, name, NC_INT, 2, d2, &vg)))
        return st;
    snprintf(name, sizeof name, "%s_event", sn);
    if ((st = nc_def_var(id, name, NC_INT, 2, d4, &ve)))
        return st;
    snprintf(name, sizeof name, "%s_value", sn);
    if ((st = nc_def_var(id, name, NC_DOUBLE, 1, &dv, &vv)))
        return st;
    snprintf(name, sizeof name, "%s_value_start", sn);
    if ((st = nc_def_var(id, name, NC_INT, 1, &dlen1, &vs)))
        return st;
    snprintf(name, sizeof name, "%s_value_group", sn);
    if (p->value_group && (st = nc_def_var(id, name, NC_INT, 1, &dv, &vgr)))
        return st;
    /* The measured errors travel with the data: the file says how far it is from the cube it
     * came from (err_max, err_rms), readable with ncdump and without decoding. */
    int ne = (int)p->nevent, sp = (int)p->splits, mg = (int)p->merges;
    double rms = p->err_n ? sqrt(p->err_sum2 / p->err_n) : 0;
    if ((st = nc_put_att_int(id, vv, "nevents", NC_INT, 1, &ne)) || (st = nc_put_att_int(id, vv, "splits", NC_INT, 1, &sp)) ||
        (st = nc_put_att_int(id, vv, "merges", NC_INT, 1, &mg)) ||
        (st = nc_put_att_double(id, vv, "err_max", NC_DOUBLE, 1, &p->err_max)) ||
        (st = nc_put_att_double(id, vv, "err_rms", NC_DOUBLE, 1, &rms)) ||
        (st = nc_put_att_text(id, vv, "units", 1, "s")))
        return st;
    return NC_NOERR;
}

static int put_data(int id, const char *sn, const struct lens_packed *p)
{
    char name[64];
    int st, var;
    /* The dummy event row of a cube without events (see put_stat). */
    static const int none[4] = {0, 0, 0, 0};
    snprintf(name, sizeof name, "%s_reset_length", sn);
    if ((st = nc_inq_varid(id, name, &var)) || (st = nc_put_var_int(id, var, p->reset_k)))
        return st;
    snprintf(name, sizeof name, "%s_reset_group", sn);
    if ((st = nc_inq_varid(id, name, &var)) || (st = nc_put_var_int(id, var, p->reset_group)))
        return st;
    snprintf(name, sizeof name, "%s_event", sn);
    if ((st = nc_inq_varid(id, name, &var)) || (st = nc_put_var_int(id, var, p->nevent ? p->event : none)))
        return st;
    snprintf(name, sizeof name, "%s_value", sn);
    if ((st = nc_inq_varid(id, name, &var)) || (st = nc_put_var_double(id, var, p->value)))
        return st;
    snprintf(name, sizeof name, "%s_value_group", sn);
    if (p->value_group && ((st = nc_inq_varid(id, name, &var)) || (st = nc_put_var_int(id, var, p->value_group))))
        return st;
    /* value_start is long in memory but int in the file (NetCDF classic has no 64-bit integer);
     * lens_packed_write checked nvalue < INT_MAX, so the narrowing is exact. */
    int *vs = lens_malloc((size_t)(p->nlen + 1) * sizeof *vs);
    if (!vs)
        return NC_ENOMEM;
    for (int k = 0; k <= p->nlen; k++)
        vs[k] = (int)p->value_start[k];
    snprintf(name, sizeof name, "%s_value_start", sn);
    if (!(st = nc_inq_varid(id, name, &var)))
        st = nc_put_var_int(id, var, vs);
    lens_free(vs);
    return st;
}

/* All host names in one text attribute, one per line (rank order): a variable of strings would
 * need a second dimension of the longest name. Missing names are written as "unknown" so that
 * line i stays rank i. */
static char *join_hosts(const struct lens_cube *m)
{
    size_t n = 1;
    for (int i = 0; m->hosts && i < m->procs; i++)
        n += strlen(m->hosts[i] ? m->hosts[i] : "unknown") + 1;
    char *s = lens_malloc(n);
    if (!s)
        return NULL;
    s[0] = 0;
    for (int i = 0; m->hosts && i < m->procs; i++) {
        strcat(s, m->hosts[i] ? m->hosts[i] : "unknown");
        if (i + 1 < m->procs)
            strcat(s, "\n");
    }
    return s;
}

int lens_packed_write(const char *path, const struct lens_cube *m, struct lens_packed *const stats[LENS_STAT_COUNT],
                      struct lens_err *e)
{
    /* Checked before anything is created: a cube that cannot be stored leaves no file behind. */
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (stats[s] && (stats[s]->nvalue >= INT_MAX || stats[s]->nevent >= INT_MAX))
            return lens_err_set(e, LENS_EINVAL, "%s: %s: too many values for the classic format", path,
                                lens_cube_stat_name(s));
    struct lens_atomic a;
    /* mode NULL: netCDF creates the file by name, so the atomic writer gives it a name in a
     * private folder beside the target (docs/outputs.md); commit renames it into place. */
    int rc = lens_atomic_open(&a, path, NULL, e);
    if (rc != LENS_OK)
        return rc;
    char *hosts = join_hosts(m);
    int id = -1, st, dpairs, dlen1, dfour;
    if (!hosts) {
        lens_atomic_abort(&a);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    /* 64-bit offset (CDF-2): the reset_group variable of a large machine exceeds the 2 GiB
     * offsets of CDF-1. NC_NOCLOBBER: the private name must be new; anything there is not ours. */
    if ((st = nc_create(a.tmp, NC_NOCLOBBER | NC_64BIT_OFFSET, &id)))
        goto fail;
    if ((st = nc_def_dim(id, "pairs", (size_t)m->procs * m->procs, &dpairs)) ||
        (st = nc_def_dim(id, "lengths1", (size_t)m->nlen + 1, &dlen1)) || (st = nc_def_dim(id, "four", 4, &dfour)))
        goto fail;
    char date[64];
    /* SOURCE_DATE_EPOCH when set: the same cube compresses to the same bytes. */
    lens_time_format_date(lens_time_source_date(), date, sizeof date);
    /* Name/value pairs of the text attributes; "sender_index" says in words what the mode
     * measures and which index is the sender, for a person reading the file with ncdump. */
    const char *text[] = {"format", PACK_FORMAT, "mpilens_version", LENS_VERSION, "date", date,
                          "test_type_name", lens_cube_mode_name(m->mode), "sender_index", lens_cube_mode_semantics(m->mode),
                          "hosts", hosts, "source", m->source ? m->source : ""};
    for (size_t i = 0; i < sizeof text / sizeof *text; i += 2)
        if ((st = nc_put_att_text(id, NC_GLOBAL, text[i], strlen(text[i + 1]), text[i + 1])))
            goto fail;
    int iv[] = {m->procs, m->begin, m->end, m->step, m->mode, m->repeats, m->noise_len, m->noise_msgs, m->noise_procs};
    for (int i = 0; i < 9; i++)
        if ((st = nc_put_att_int(id, NC_GLOBAL, int_attrs[i], NC_INT, 1, &iv[i])))
            goto fail;
    /* The statistics of one cube are compressed with one bound; the global attribute records it
     * (the last present statistic's, equal to all the others). */
    double bound = 0;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (stats[s]) {
            bound = stats[s]->max_error;
            if ((st = put_stat(id, dpairs, dlen1, dfour, lens_cube_stat_name(s), stats[s])))
                goto fail;
        }
    /* The header is complete: from here on the file is in data mode and only values are written. */
    if ((st = nc_put_att_double(id, NC_GLOBAL, "max_error", NC_DOUBLE, 1, &bound)) || (st = nc_enddef(id)))
        goto fail;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (stats[s] && (st = put_data(id, lens_cube_stat_name(s), stats[s])))
            goto fail;
    /* nc_close flushes: its status is the last write's, so it is checked before the commit. */
    st = nc_close(id);
    id = -1;
    if (st)
        goto fail;
    lens_free(hosts);
    return lens_atomic_commit(&a, e);
fail:
    if (id >= 0)
        nc_close(id);
    lens_free(hosts);
    lens_atomic_abort(&a);
    return lens_err_set(e, LENS_EIO, "%s: cannot write: %s", path, nc_strerror(st));
}

/* ---- reading ----------------------------------------------------------------------------- */

/* One-value attributes: nc_get_att_* writes every value, so a longer one would overrun. */
static int att1_int(int id, int var, const char *name, int *v)
{
    size_t n;
    int st = nc_inq_attlen(id, var, name, &n);
    return st ? st : n != 1 ? NC_EINVAL : nc_get_att_int(id, var, name, v);
}

static int att1_double(int id, int var, const char *name, double *v)
{
    size_t n;
    int st = nc_inq_attlen(id, var, name, &n);
    return st ? st : n != 1 ? NC_EINVAL : nc_get_att_double(id, var, name, v);
}

static int dim_len(int id, const char *name, size_t *n)
{
    int d, st = nc_inq_dimid(id, name, &d);
    return st ? st : nc_inq_dimlen(id, d, n);
}

/* Whether variable name has exactly the dimensions d0 (and d1 when not NULL): nc_get_var_*
 * fills the whole variable, so its shape must be the one the buffers are sized for. */
static int var_shape(int id, const char *name, const char *d0, const char *d1)
{
    int var, nd, dims[2], st = nc_inq_varid(id, name, &var);
    char dn[NC_MAX_NAME + 1];
    if (st || (st = nc_inq_varndims(id, var, &nd)))
        return st;
    /* The rank is checked first: nc_inq_vardimid writes nd ids, and dims holds two. */
    if (nd != (d1 ? 2 : 1) || (st = nc_inq_vardimid(id, var, dims)))
        return st ? st : NC_EDIMSIZE;
    for (int d = 0; d < nd; d++)
        if ((st = nc_inq_dimname(id, dims[d], dn)) || strcmp(dn, d ? d1 : d0))
            return st ? st : NC_EBADDIM;
    return NC_NOERR;
}

/* Reads statistic sn into a new lens_packed, checks it (lens_packed_check) and returns it in
 * *out. LENS_EFORMAT names the file, the statistic and what is wrong; LENS_ENOMEM. */
static int get_stat(int id, const char *sn, int P, int L, long only_pair, struct lens_packed **out, const char *path,
                    struct lens_err *e)
{
    char name[64];
    size_t nr, ne, nv;
    int st, var, ival = 0;
    struct lens_packed *p = lens_calloc(1, sizeof *p);
    if (!p)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    p->procs = P;
    p->nlen = L;
    p->only_pair = only_pair;
    snprintf(name, sizeof name, "%s_resets", sn);
    if ((st = dim_len(id, name, &nr)))
        goto fail;
    snprintf(name, sizeof name, "%s_events", sn);
    if ((st = dim_len(id, name, &ne)))
        goto fail;
    snprintf(name, sizeof name, "%s_values", sn);
    if ((st = dim_len(id, name, &nv)))
        goto fail;
    snprintf(name, sizeof name, "%s_value", sn);
    if ((st = nc_inq_varid(id, name, &var)) || (st = att1_int(id, var, "nevents", &ival)))
        goto fail;
    /* the shapes the buffers below are sized for (the guard bounded them by the file size).
     * Per variable: its suffix and its dimensions' suffixes; value_start's single dimension,
     * "lengths1", is shared by all statistics and so has no statistic prefix (NULL first). */
    static const char *const shape[5][3] = {{"reset_length", "resets", NULL}, {"reset_group", "resets", "pairs"},
                                            {"event", "events", "four"}, {"value", "values", NULL},
                                            {"value_start", NULL, "lengths1"}};
    for (int t = 0; t < 5; t++) {
        char vn[64], d0[64];
        snprintf(vn, sizeof vn, "%s_%s", sn, shape[t][0]);
        snprintf(d0, sizeof d0, "%s_%s", sn, shape[t][1] ? shape[t][1] : "");
        const char *a = shape[t][1] ? d0 : shape[t][2], *b = shape[t][1] ? shape[t][2] : NULL;
        if (var_shape(id, vn, a, b) != NC_NOERR) {
            lens_packed_free(p);
            return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s' is missing or not (%s%s%s)", path, vn, a,
                                b ? ", " : "", b ? b : "");
        }
    }
    /* At least one stored partition (length 0 always has one) and at most one per length; every
     * length has at least one value. */
    if (ival < 0 || (size_t)ival > ne || nr < 1 || nr > (size_t)L || nv < 1) {
        lens_packed_free(p);
        return lens_err_set(e, LENS_EFORMAT, "%s: %s: inconsistent sizes (%zu partitions, %d events, %zu values)",
                            path, sn, nr, ival, nv);
    }
    int isp = 0, img = 0;
    /* Informational counters: a file without them still decodes, so their absence is no error. */
    att1_int(id, var, "splits", &isp);
    att1_int(id, var, "merges", &img);
    att1_double(id, var, "err_max", &p->err_max);
    p->splits = isp;
    p->merges = img;
    p->nreset = (int)nr;
    p->nevent = ival;
    p->nvalue = (long)nv;
    p->reset_k = lens_malloc(nr * sizeof(int));
    /* nr <= L and P^2 = the pairs dimension, both bounded by the file size (the guard and the
     * check in lens_packed_read): the allocation cannot exceed what the file holds. */
    p->reset_group = lens_malloc(nr * (only_pair ? 1 : (size_t)P * P) * sizeof(int));
    p->event = lens_malloc(4 * (ne > 0 ? ne : 1) * sizeof(int));
    p->value = lens_malloc(nv * sizeof(double));
    p->value_start = lens_malloc((size_t)(L + 1) * sizeof(long));
    int *vs = lens_malloc((size_t)(L + 1) * sizeof(int));
    if (!p->reset_k || !p->reset_group || !p->event || !p->value || !p->value_start || !vs) {
        lens_free(vs);
        lens_packed_free(p);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    /* var is still the s_value variable looked up above for the nevents attribute. */
    if ((st = nc_get_var_double(id, var, p->value)))
        goto fail_vs;
    const char *vars[] = {"reset_length", "reset_group", "event", "value_start"};
    int *dst[] = {p->reset_k, p->reset_group, p->event, vs};
    for (int t = 0; t < 4; t++) {
        snprintf(name, sizeof name, "%s_%s", sn, vars[t]);
        if ((st = nc_inq_varid(id, name, &var)))
            goto fail_vs;
        /* A pair-only read takes the pair's column of reset_group: nr values, not nr x P^2. */
        size_t start[2] = {0, only_pair ? (size_t)(only_pair - 1) : 0}, count[2] = {nr, 1};
        if ((st = t == 1 && only_pair ? nc_get_vara_int(id, var, start, count, dst[t]) : nc_get_var_int(id, var, dst[t])))
            goto fail_vs;
    }
    /* The value groups are optional (older files): present, they must span the values. */
    snprintf(name, sizeof name, "%s_value_group", sn);
    if (!nc_inq_varid(id, name, &var)) {
        char dv[64];
        snprintf(dv, sizeof dv, "%s_values", sn);
        if (var_shape(id, name, dv, NULL) != NC_NOERR) {
            lens_free(vs);
            lens_packed_free(p);
            return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s' is not (%s)", path, name, dv);
        }
        if (!(p->value_group = lens_malloc(nv * sizeof(int)))) {
            lens_free(vs);
            lens_packed_free(p);
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
        }
        if ((st = nc_get_var_int(id, var, p->value_group)))
            goto fail_vs;
    }
    for (int k = 0; k <= L; k++)
        p->value_start[k] = vs[k];
    lens_free(vs);
    /* The bound is descriptive only (decoding does not need it); a missing one reads as 0. */
    double bound = 0;
    att1_double(id, NC_GLOBAL, "max_error", &bound);
    p->max_error = bound;
    /* lens_packed_check names "<file>: <statistic>" in its messages. */
    snprintf(name, sizeof name, "%s: %s", path, sn);
    int rc = lens_packed_check(p, name, e);
    if (rc != LENS_OK) {
        lens_packed_free(p);
        return rc;
    }
    *out = p;
    return LENS_OK;
fail_vs:
    lens_free(vs);
fail:
    lens_packed_free(p);
    return lens_err_set(e, LENS_EFORMAT, "%s: %s: %s", path, sn, nc_strerror(st));
}

/* No hosts attribute is fine (a cube may have no host names); one that is present must name
 * exactly one host per process. */
static int get_hosts(int id, struct lens_cube *m, const char *path, struct lens_err *e)
{
    size_t n;
    if (nc_inq_attlen(id, NC_GLOBAL, "hosts", &n) || n == 0)
        return LENS_OK;
    char *s = lens_malloc(n + 1);
    m->hosts = lens_calloc((size_t)m->procs, sizeof *m->hosts);
    if (!s || !m->hosts) {
        lens_free(s);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    if (nc_get_att_text(id, NC_GLOBAL, "hosts", s)) {
        lens_free(s);
        return lens_err_set(e, LENS_EFORMAT, "%s: attribute 'hosts' is not text", path);
    }
    s[n] = 0;
    /* the names go to JSON and PDF output: valid UTF-8 only (the hosts file's rule) */
    if (!lens_nc_guard_utf8(s, n))
        return lens_free(s), lens_err_set(e, LENS_EFORMAT, "%s: attribute 'hosts' is not valid UTF-8", path);
    int i = 0;
    /* Cut at each newline in place; lines beyond the process count are not read. */
    for (char *t = s, *nl; i < m->procs && t; t = nl ? nl + 1 : NULL, i++) {
        nl = strchr(t, '\n');
        if (nl)
            *nl = 0;
        if (!(m->hosts[i] = lens_strdup(t))) {
            lens_free(s);
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
        }
    }
    lens_free(s);
    if (i != m->procs)
        return lens_err_set(e, LENS_EFORMAT, "%s: %d host names for %d processes", path, i, m->procs);
    return LENS_OK;
}

/* Whether open file id carries the format attribute of a packed cube (the probe's test too).
 * The attribute must fit the buffer and start with PACK_FORMAT; nc_get_att_text does not
 * terminate the text, hence the zeroed buffer and n < sizeof fmt. */
static int has_pack_format(int id)
{
    char fmt[64] = "";
    size_t n = 0;
    return !nc_inq_attlen(id, NC_GLOBAL, "format", &n) && n < sizeof fmt &&
           !nc_get_att_text(id, NC_GLOBAL, "format", fmt) && !strncmp(fmt, PACK_FORMAT, strlen(PACK_FORMAT));
}

/* only_pair: 0 reads every stored partition whole, q + 1 only pair q's entries. */
static int packed_read(const char *path, long only_pair, int pi, int pj, struct lens_cube **meta,
                       struct lens_packed *stats[LENS_STAT_COUNT], struct lens_err *e)
{
    *meta = NULL;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        stats[s] = NULL;
    int id, st = 0, rc = lens_nc_guard_open(path, &id, e);
    if (rc != LENS_OK)
        return rc;
    if (!has_pack_format(id)) {
        nc_close(id);
        return lens_err_set(e, LENS_EFORMAT, "%s: not a packed cube (no format \"%s\"); use 'mpilens compress'", path,
                            PACK_FORMAT);
    }
    int iv[9] = {0};
    size_t nl1 = 0, np = 0;
    for (int i = 0; i < 9 && !st; i++)
        st = att1_int(id, NC_GLOBAL, int_attrs[i], &iv[i]);
    if (!st)
        st = dim_len(id, "lengths1", &nl1);
    if (!st)
        st = dim_len(id, "pairs", &np);
    size_t four = 0;
    if (!st)
        st = dim_len(id, "four", &four);
    /* procs at most 2^15 keeps P^2 within an int (the pair numbers are ints); the pairs
     * dimension must agree with procs, and there must be at least one length. */
    if (st || iv[0] < 1 || iv[0] > 1 << 15 || nl1 < 2 || np != (size_t)iv[0] * iv[0] || iv[3] < 1 || four != 4) {
        nc_close(id);
        return lens_err_set(e, LENS_EFORMAT, "%s: bad or missing metadata (procs, lengths, step)", path);
    }
    /* Every pair has a group number and every length a value start (4 bytes each), so the
     * file bounds both before anything is allocated from them. */
    struct stat sb;
    unsigned long long fsize = stat(path, &sb) == 0 ? (unsigned long long)sb.st_size : 0;
    if (np > fsize / 4 || nl1 > fsize / 4) {
        nc_close(id);
        return lens_err_set(e, LENS_EFORMAT, "%s: the header declares %zu pairs and %zu lengths, but the file holds "
                            "%llu bytes", path, np, nl1 - 1, fsize);
    }
    /* The same length checks as every cube reader (begin + k * step must not overflow an int). */
    if ((rc = lens_cube_check_lengths(path, (long long)nl1 - 1, iv[1], iv[3], e)) != LENS_OK) {
        nc_close(id);
        return rc;
    }
    for (int i = 5; i < 9; i++)
        if (iv[i] < 0) {
            nc_close(id);
            return lens_err_set(e, LENS_EFORMAT, "%s: attribute %s = %d is negative", path, int_attrs[i], iv[i]);
        }
    /* The pair is checked against procs before anything is read with it. */
    if (only_pair && (pi < 0 || pj < 0 || pi >= iv[0] || pj >= iv[0])) {
        nc_close(id);
        return lens_err_set(e, LENS_EINVAL, "%s: pair %d,%d out of range: ranks are 0..%d", path, pi, pj, iv[0] - 1);
    }
    if (only_pair)
        only_pair = (long)pi * iv[0] + pj + 1;
    struct lens_cube *m;
    if ((rc = lens_cube_new(&m, iv[0], (int)nl1 - 1, iv[1], iv[3], 0, e)) != LENS_OK) {
        nc_close(id);
        return rc;
    }
    m->end = iv[2];
    m->mode = iv[4];
    m->repeats = iv[5];
    m->noise_len = iv[6];
    m->noise_msgs = iv[7];
    m->noise_procs = iv[8];
    /* Packed cubes are only written by mpilens, from cubes already repaired on reading: the
     * round-trip mix of network_test2 is not guessed at again. */
    m->written_by_mpilens = 1;
    m->source = lens_strdup(path);
    rc = m->source ? get_hosts(id, m, path, e) : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    /* A packed file without any statistic is refused: there would be nothing to read. */
    int found = 0;
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
        char name[64];
        int var;
        snprintf(name, sizeof name, "%s_value", lens_cube_stat_name(s));
        /* A statistic is present when its value variable is; an absent one stays NULL. */
        if (nc_inq_varid(id, name, &var))
            continue;
        rc = get_stat(id, lens_cube_stat_name(s), m->procs, m->nlen, only_pair, &stats[s], path, e);
        found++;
    }
    nc_close(id);
    if (rc == LENS_OK && !found)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: no statistic in the packed cube", path);
    if (rc != LENS_OK) {
        for (int s = 0; s < LENS_STAT_COUNT; s++) {
            lens_packed_free(stats[s]);
            stats[s] = NULL;
        }
        lens_cube_free(m);
        return rc;
    }
    *meta = m;
    return LENS_OK;
}

int lens_packed_read(const char *path, struct lens_cube **meta, struct lens_packed *stats[LENS_STAT_COUNT],
                     struct lens_err *e)
{
    return packed_read(path, 0, 0, 0, meta, stats, e);
}

int lens_packed_read_pair(const char *path, int i, int j, struct lens_cube **meta,
                          struct lens_packed *stats[LENS_STAT_COUNT], struct lens_err *e)
{
    return packed_read(path, 1, i, j, meta, stats, e);
}

/* ---- the row of the reader table -------------------------------------------------------- */

/* The reader table asks each row whether it recognises an input: a regular file that passes the
 * guard and carries the format attribute. 1 yes, 0 no. */
int lens_packed_probe(const char *input)
{
    struct stat sb;
    if (stat(input, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0;
    /* the guard checks the header before libnetcdf sees it; its message is not wanted here */
    struct lens_err scratch;
    lens_err_clear(&scratch);
    int id, rc = lens_nc_guard_open(input, &id, &scratch);
    if (rc != LENS_OK)
        return rc == LENS_ENOMEM; /* undecided: the read reports the allocation failure */
    int yes = has_pack_format(id);
    nc_close(id);
    return yes;
}

/* The stream source: one decoder per statistic, restarted when a length before the last one
 * decoded is asked for (the stream reads in length order, so that is rare). */
struct packsrc {
    struct lens_packed *p[LENS_STAT_COUNT];
    struct lens_packed_decoder *u[LENS_STAT_COUNT];
    int next[LENS_STAT_COUNT]; /* the length u[s] decodes next */
};

static int packsrc_get(void *state, int stat, int k, double *mat, struct lens_err *e)
{
    struct packsrc *q = state;
    int rc = LENS_OK;
    /* The decoder only moves forward (each length is the previous plus events): going back means
     * starting again from length 0. */
    if (!q->u[stat] || k < q->next[stat]) {
        lens_packed_decoder_free(q->u[stat]);
        q->u[stat] = NULL;
        q->next[stat] = 0;
        if ((rc = lens_packed_decoder_new(&q->u[stat], q->p[stat], e)) != LENS_OK)
            return rc;
    }
    /* Decodes every length up to k into mat; the earlier ones are overwritten, only k remains. */
    while (rc == LENS_OK && q->next[stat] <= k) {
        rc = lens_packed_decoder_next(q->u[stat], mat, e);
        q->next[stat]++;
    }
    return rc;
}

/* Frees the decoders and the packed statistics; called by the stream when it is closed. */
static void packsrc_free(void *state)
{
    struct packsrc *q = state;
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        lens_packed_decoder_free(q->u[s]);
        lens_packed_free(q->p[s]);
    }
    lens_free(q);
}

/* The whole packed form is read (it is small: that is the point of it); the matrices are decoded
 * on demand by the stream, one length at a time. */
int lens_packed_stream_open(const char *input, struct lens_cube_stream **out, struct lens_err *e)
{
    *out = NULL;
    struct packsrc *q = lens_calloc(1, sizeof *q);
    if (!q)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
    struct lens_cube *meta;
    int rc = lens_packed_read(input, &meta, q->p, e);
    if (rc != LENS_OK) {
        lens_free(q);
        return rc;
    }
    unsigned mask = 0;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (q->p[s])
            mask |= 1u << s;
    /* no diagonal reader: a decoded matrix costs what its diagonal would */
    struct lens_cube_source src = {q, packsrc_get, NULL, packsrc_free};
    return lens_cube_stream_new(meta, mask, &src, out, e);
}
