/* The p2p sweep's CSV and NetCDF files (see p2p_out.h). The CSV is for people and
 * spreadsheets; the NetCDF file holds the same columns plus every iteration's time. */
#include "p2p_out.h"
#include "common/atomic.h"

#include "stats.h"

#include "analysis/cube/cube.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Host names and kinds are fixed-width char rows in the NetCDF file (classic format has no
 * strings); 256 bytes holds MPI_MAX_PROCESSOR_NAME of every common MPI. */
#define LABEL_LEN 256

int lens_bench_p2p_out_init(struct lens_bench_p2p_out *r, int npairs, int nsize, int max_lat,
                             int max_bw, struct lens_err *e)
{
    memset(r, 0, sizeof *r);
    size_t P = (size_t)npairs, Q = P * (size_t)nsize;
    r->npairs = npairs;
    r->nsize = nsize;
    r->max_lat = max_lat;
    r->max_bw = max_bw;
    r->sizes = lens_calloc((size_t)nsize, sizeof(int));
    r->batch = lens_calloc((size_t)nsize, sizeof(int));
    r->rank_a = lens_calloc(P, sizeof(int));
    r->rank_b = lens_calloc(P, sizeof(int));
    r->host_a = lens_calloc(P, sizeof(char *));
    r->host_b = lens_calloc(P, sizeof(char *));
    r->kind = lens_calloc(P, sizeof(char *));
    r->lat_iters = lens_calloc(Q, sizeof(int));
    r->bw_iters = lens_calloc(Q, sizeof(int));
    r->lat_raw = lens_malloc(Q * (size_t)max_lat * sizeof(double));
    r->bw_raw = lens_malloc(Q * (size_t)max_bw * sizeof(double));
    if (!r->sizes || !r->batch || !r->rank_a || !r->rank_b || !r->host_a || !r->host_b || !r->kind ||
        !r->lat_iters || !r->bw_iters || !r->lat_raw || !r->bw_raw) {
        lens_bench_p2p_out_release(r);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for %d pairs x %d sizes", npairs, nsize);
    }
    /* NaN pads the raw rows past each size's iteration count: large sizes run fewer iterations than
     * the array's last dimension, and NaN (not 0) cannot be mistaken for a measured time. */
    for (size_t x = 0; x < Q * (size_t)max_lat; x++)
        r->lat_raw[x] = NAN;
    for (size_t x = 0; x < Q * (size_t)max_bw; x++)
        r->bw_raw[x] = NAN;
    return LENS_OK;
}

void lens_bench_p2p_out_release(struct lens_bench_p2p_out *r)
{
    /* The label arrays may be missing when init failed halfway: release copes with any state. */
    for (int p = 0; p < r->npairs; p++) {
        if (r->host_a)
            lens_free(r->host_a[p]);
        if (r->host_b)
            lens_free(r->host_b[p]);
        if (r->kind)
            lens_free(r->kind[p]);
    }
    lens_free(r->sizes);
    lens_free(r->batch);
    lens_free(r->rank_a);
    lens_free(r->rank_b);
    lens_free(r->host_a);
    lens_free(r->host_b);
    lens_free(r->kind);
    lens_free(r->lat_iters);
    lens_free(r->bw_iters);
    lens_free(r->lat_raw);
    lens_free(r->bw_raw);
    memset(r, 0, sizeof *r);
}

int lens_bench_p2p_out_set_pair(struct lens_bench_p2p_out *r, int p, int a, int b,
                                const char *host_a, const char *host_b, const char *kind,
                                struct lens_err *e)
{
    r->rank_a[p] = a;
    r->rank_b[p] = b;
    /* Setting a pair twice replaces its labels without leaking the first ones. */
    lens_free(r->host_a[p]);
    lens_free(r->host_b[p]);
    lens_free(r->kind[p]);
    r->host_a[p] = lens_strdup(host_a);
    r->host_b[p] = lens_strdup(host_b);
    r->kind[p] = lens_strdup(kind);
    if (!r->host_a[p] || !r->host_b[p] || !r->kind[p])
        return lens_err_set(e, LENS_ENOMEM, "out of memory for the pair labels");
    return LENS_OK;
}

/* The 13 columns of pair/size q from the raw times; scratch holds max(max_lat, max_bw). */
static void columns(const struct lens_bench_p2p_out *r, size_t q, double *scratch, double *col)
{
    /* q = pair * nsize + size: the size is q mod nsize */
    double s = r->sizes[q % (size_t)r->nsize], k = r->window, c2 = 2.0 * r->batch[q % (size_t)r->nsize];
    int nl = r->lat_iters[q], nb = r->bw_iters[q];
    const double *lat = r->lat_raw + q * (size_t)r->max_lat, *bw = r->bw_raw + q * (size_t)r->max_bw;
    struct lens_bench_stats st;
    /* Latency: T / 2c per iteration of c round trips; the mean is over every round trip. */
    lens_bench_stats_compute(lat, (size_t)nl, scratch, &st);
    col[LENS_P2P_LAT] = st.average / c2;
    col[LENS_P2P_LAT_MIN] = st.min / c2;
    col[LENS_P2P_LAT_MED] = st.median / c2;
    col[LENS_P2P_LAT_MAX] = st.max / c2;
    /* Bandwidth and rate fall as the window time grows: min comes from the slowest window. */
    lens_bench_stats_compute(bw, (size_t)nb, scratch, &st);
    col[LENS_P2P_BW_TIME] = st.average; /* the mean window time, from which B is derived */
    col[LENS_P2P_BW] = k * s / st.average; /* so B * bw_time == k * s exactly (p2p_out.h) */
    col[LENS_P2P_BW_MIN] = k * s / st.max;
    col[LENS_P2P_BW_MED] = k * s / st.median;
    col[LENS_P2P_BW_MAX] = k * s / st.min;
    col[LENS_P2P_RATE] = k / st.average; /* messages per second, same windows */
    col[LENS_P2P_RATE_MIN] = k / st.max;
    col[LENS_P2P_RATE_MED] = k / st.median;
    col[LENS_P2P_RATE_MAX] = k / st.min;
}

/* PREFIX + suffix, allocated: a prefix may be any length, so no fixed buffer. */
static char *path_with(const char *prefix, const char *suffix)
{
    size_t n = strlen(prefix) + strlen(suffix) + 1;
    char *p = lens_malloc(n);
    if (p)
        snprintf(p, n, "%s%s", prefix, suffix);
    return p;
}

/* One row per pair and size, the pair's labels repeated on each row: every row stands alone,
 * so a filtered or sorted CSV keeps its meaning. */
static int write_csv(const struct lens_bench_p2p_out *r, const char *path, double *scratch, struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc != LENS_OK)
        return rc;
    /* The column order is the reader's contract (analysis/cube/p2pfile.c finds columns by name, but
     * network tools and spreadsheets read by position): new columns go at the end. */
    fprintf(a.fp, "size_bytes");
    for (int c = 0; c < LENS_P2P_NCOLS; c++)
        fprintf(a.fp, ",%s", lens_p2p_col_names[c]);
    fprintf(a.fp, ",window,round_trips_per_iter,lat_iters,bw_iters,pair,kind,rank_a,rank_b,host_a,host_b\n");
    for (int p = 0; p < r->npairs; p++)
        for (int k = 0; k < r->nsize; k++) {
            size_t q = (size_t)p * r->nsize + k;
            double col[LENS_P2P_NCOLS];
            columns(r, q, scratch, col);
            fprintf(a.fp, "%d", r->sizes[k]);
            for (int c = 0; c < LENS_P2P_NCOLS; c++)
                fprintf(a.fp, ",%.9g", col[c]); /* 9 digits: microsecond values to 1e-15 s */
            fprintf(a.fp, ",%d,%d,%d,%d,%d,%s,%d,%d,%s,%s\n", r->window, r->batch[k], r->lat_iters[q], r->bw_iters[q],
                    p, r->kind[p], r->rank_a[p], r->rank_b[p], r->host_a[p], r->host_b[p]);
        }
    return lens_atomic_commit(&a, e);
}

/* Defines and fills the NetCDF file; returns a NetCDF status. */
static int fill_nc(int id, const struct lens_bench_p2p_out *r, const char *const *attrs, double *scratch)
{
    /* NetCDF calls return a status: each chain stops at the first failure, which write_nc turns
     * into one message naming the file. */
    int st, dp, ds, dl, db, dc, v_size, v_batch, v_ra, v_rb, v_ha, v_hb, v_kind, v_li, v_bi, v_lraw, v_braw;
    int v_col[LENS_P2P_NCOLS];
    /* Dimensions: pair x size for the statistics, the largest iteration counts for the raw times. */
    if ((st = nc_def_dim(id, "pair", (size_t)r->npairs, &dp)) || (st = nc_def_dim(id, "size", (size_t)r->nsize, &ds)) ||
        (st = nc_def_dim(id, "lat_iter", (size_t)r->max_lat, &dl)) ||
        (st = nc_def_dim(id, "bw_iter", (size_t)r->max_bw, &db)) || (st = nc_def_dim(id, "label", LABEL_LEN, &dc)))
        return st;
    int d_ps[2] = {dp, ds}, d_pc[2] = {dp, dc}, d_psl[3] = {dp, ds, dl}, d_psb[3] = {dp, ds, db};
    if ((st = nc_def_var(id, "size_bytes", NC_INT, 1, &ds, &v_size)) ||
        (st = nc_def_var(id, "round_trips_per_iter", NC_INT, 1, &ds, &v_batch)) ||
        (st = nc_def_var(id, "rank_a", NC_INT, 1, &dp, &v_ra)) || (st = nc_def_var(id, "rank_b", NC_INT, 1, &dp, &v_rb)) ||
        (st = nc_def_var(id, "host_a", NC_CHAR, 2, d_pc, &v_ha)) || (st = nc_def_var(id, "host_b", NC_CHAR, 2, d_pc, &v_hb)) ||
        (st = nc_def_var(id, "kind", NC_CHAR, 2, d_pc, &v_kind)) ||
        (st = nc_def_var(id, "lat_iters", NC_INT, 2, d_ps, &v_li)) || (st = nc_def_var(id, "bw_iters", NC_INT, 2, d_ps, &v_bi)) ||
        (st = nc_def_var(id, "lat_iter_time", NC_DOUBLE, 3, d_psl, &v_lraw)) ||
        (st = nc_def_var(id, "bw_window_time", NC_DOUBLE, 3, d_psb, &v_braw)))
        return st;
    for (int c = 0; c < LENS_P2P_NCOLS; c++)
        if ((st = nc_def_var(id, lens_p2p_col_names[c], NC_DOUBLE, 2, d_ps, &v_col[c])))
            return st;
    /* the raw times are seconds */
    if ((st = nc_put_att_text(id, v_lraw, "units", 1, "s")) || (st = nc_put_att_text(id, v_braw, "units", 1, "s")))
        return st;
    int window = r->window;
    /* k, needed to turn window times into B and M */
    if ((st = nc_put_att_int(id, NC_GLOBAL, "window", NC_INT, 1, &window)))
        return st;
    /* The caller's attributes (versions, date, command line) make the file self-describing. */
    for (size_t i = 0; attrs && attrs[i] && attrs[i + 1]; i += 2)
        if ((st = nc_put_att_text(id, NC_GLOBAL, attrs[i], strlen(attrs[i + 1]), attrs[i + 1])))
            return st;
    if ((st = nc_enddef(id))) /* define mode ends: only data from here */
        return st;
    if ((st = nc_put_var_int(id, v_size, r->sizes)) || (st = nc_put_var_int(id, v_batch, r->batch)) || (st = nc_put_var_int(id, v_ra, r->rank_a)) ||
        (st = nc_put_var_int(id, v_rb, r->rank_b)) || (st = nc_put_var_int(id, v_li, r->lat_iters)) ||
        (st = nc_put_var_int(id, v_bi, r->bw_iters)) || (st = nc_put_var_double(id, v_lraw, r->lat_raw)) ||
        (st = nc_put_var_double(id, v_braw, r->bw_raw)))
        return st;
    for (int p = 0; p < r->npairs; p++) {
        const char *const strs[3] = {r->host_a[p], r->host_b[p], r->kind[p]};
        const int vars[3] = {v_ha, v_hb, v_kind};
        for (int s = 0; s < 3; s++) {
            /* Zero-filled and cut to the row: a longer name is truncated, never written past the row. */
            char buf[LABEL_LEN] = {0};
            snprintf(buf, sizeof buf, "%s", strs[s]);
            size_t start[2] = {(size_t)p, 0}, count[2] = {1, LABEL_LEN};
            if ((st = nc_put_vara_text(id, vars[s], start, count, buf)))
                return st;
        }
        for (int k = 0; k < r->nsize; k++) {
            double col[LENS_P2P_NCOLS];
            columns(r, (size_t)p * r->nsize + k, scratch, col);
            for (int c = 0; c < LENS_P2P_NCOLS; c++) {
                size_t idx[2] = {(size_t)p, (size_t)k};
                if ((st = nc_put_var1_double(id, v_col[c], idx, &col[c])))
                    return st;
            }
        }
    }
    return NC_NOERR;
}

/* Written through the atomic writer's temporary, as every mpilens output: a crash mid-write
 * leaves the previous file or none, never a truncated NetCDF file. */
static int write_nc(const struct lens_bench_p2p_out *r, const char *path, const char *const *attrs,
                    double *scratch, struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, NULL, e);
    if (rc != LENS_OK)
        return rc;
    /* The temporary of the atomic writer: the final name appears only on commit. 64-bit offsets,
     * because the raw times of many pairs can pass the 2 GiB offsets of classic NetCDF. */
    int id, st = nc_create(a.tmp, NC_NOCLOBBER | NC_64BIT_OFFSET, &id);
    if (st != NC_NOERR) {
        lens_atomic_abort(&a);
        return lens_err_set(e, LENS_EIO, "%s: cannot create: %s", path, nc_strerror(st));
    }
    st = fill_nc(id, r, attrs, scratch);
    /* Close even after a failure (the id would leak otherwise); the first error wins. */
    int st2 = nc_close(id);
    if (st == NC_NOERR)
        st = st2;
    if (st != NC_NOERR) {
        lens_atomic_abort(&a);
        return lens_err_set(e, LENS_EIO, "%s: cannot write: %s", path, nc_strerror(st));
    }
    return lens_atomic_commit(&a, e);
}

int lens_bench_p2p_out_write(const struct lens_bench_p2p_out *r, const char *prefix,
                             const char *const *attrs, struct lens_err *e)
{
    char *csv = path_with(prefix, "_p2p.csv"), *nc = path_with(prefix, "_p2p.nc");
    /* scratch for sorting one size's raw times */
    int m = r->max_lat > r->max_bw ? r->max_lat : r->max_bw;
    double *scratch = lens_malloc((size_t)(m > 0 ? m : 1) * sizeof(double));
    int rc = csv && nc && scratch ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
    /* An output prefix in a new directory is the common case (-f out/run1/pair). */
    const char *slash = strrchr(prefix, '/');
    if (rc == LENS_OK && slash && slash != prefix) {
        char *dir = lens_strdup(prefix);
        if (!dir)
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
        else {
            dir[slash - prefix] = '\0';
            rc = lens_atomic_mkdir_p(dir, e);
            lens_free(dir);
        }
    }
    /* The CSV and the NetCDF file appear together or not at all. */
    lens_atomic_group_begin();
    if (rc == LENS_OK)
        rc = write_csv(r, csv, scratch, e);
    if (rc == LENS_OK)
        rc = write_nc(r, nc, attrs, scratch, e);
    if (rc == LENS_OK)
        rc = lens_atomic_group_commit(e);
    else
        lens_atomic_group_abort();
    lens_free(csv);
    lens_free(nc);
    lens_free(scratch);
    return rc;
}

int lens_bench_p2p_out_exists(const char *prefix)
{
    /* Either file counts: a half-deleted result is still a result --force must be asked to replace. */
    static const char *const names[] = {"_p2p.csv", "_p2p.nc"};
    for (int i = 0; i < 2; i++) {
        char *p = path_with(prefix, names[i]);
        struct stat sb;
        int found = p && stat(p, &sb) == 0;
        lens_free(p);
        if (found)
            return 1;
    }
    return 0;
}
