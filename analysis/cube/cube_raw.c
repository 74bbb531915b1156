/* Row-at-a-time access to the raw repeats (PREFIX_all.nc) of a cube, so that a statistical
 * test on the repeats streams like the matrices do: memory is one row (P x z doubles)
 * whatever P x P x L x z the file holds. */
#include "cube.h"
#include "nc_guard.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

struct lens_cube_raw {
    int id, var;   /* the open file and its data variable */
    int P, L, z;   /* processes, lengths, repeats per pair */
    double *row;   /* P x z: the last row read */
    char *path;    /* for messages */
};

void lens_cube_raw_close(struct lens_cube_raw *r)
{
    if (!r)
        return;
    if (r->id >= 0)
        nc_close(r->id);
    lens_free(r->row);
    lens_free(r->path);
    lens_free(r);
}

int lens_cube_raw_repeats(const struct lens_cube_raw *r)
{
    return r->z;
}

int lens_cube_raw_open(const struct lens_cube *meta, struct lens_cube_raw **out, struct lens_err *e)
{
    *out = NULL;
    /* the old send_recv_and_recv_send layout gets its median and min halved by the reader
     * (docs/methods.md §1); its repeats would then disagree with the statistics, so the
     * caller falls back to the statistics rather than test on another quantity */
    if (!meta->source || !meta->format || strcmp(meta->format, "network_test2") != 0 ||
        (meta->mode == LENS_MODE_SEND_RECV_AND_RECV_SEND && !meta->written_by_mpilens))
        return LENS_OK;
    size_t n = strlen(meta->source) + sizeof "_all.nc";
    struct lens_cube_raw *r = lens_calloc(1, sizeof *r);
    char *path = lens_malloc(n);
    if (!r || !path) {
        lens_free(r);
        lens_free(path);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", meta->source);
    }
    snprintf(path, n, "%s_all.nc", meta->source);
    r->path = path;
    r->id = -1;
    struct stat sb;
    /* no companion file: a cube without raw repeats, which is not an error */
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        lens_cube_raw_close(r);
        return LENS_OK;
    }
    /* the guard first, as every NetCDF read of the project: a header that promises more
     * than the file holds is refused before anything is sized from it */
    int rc = lens_nc_guard_open(path, &r->id, e);
    int ndims, dims[NC_MAX_VAR_DIMS];
    size_t len[4] = {0};
    if (rc == LENS_OK && (nc_inq_varid(r->id, "data", &r->var) != NC_NOERR ||
                          nc_inq_varndims(r->id, r->var, &ndims) != NC_NOERR || ndims != 4 ||
                          nc_inq_vardimid(r->id, r->var, dims) != NC_NOERR))
        rc = lens_err_set(e, LENS_EFORMAT, "%s: no variable data(n, x, y, z)", path);
    for (int d = 0; d < 4 && rc == LENS_OK; d++)
        if (nc_inq_dimlen(r->id, dims[d], &len[d]) != NC_NOERR)
            rc = lens_err_set(e, LENS_EFORMAT, "%s: cannot read the dimensions of 'data'", path);
    /* the repeats must be those of the statistics beside them: same lengths, same P */
    if (rc == LENS_OK && (len[0] != (size_t)meta->nlen || len[1] != (size_t)meta->procs ||
                          len[2] != (size_t)meta->procs || len[3] < 1 || len[3] > 1000000))
        rc = lens_err_set(e, LENS_EFORMAT, "%s: data is %zu x %zu x %zu x %zu, the cube %d x %d x %d x repeats",
                          path, len[0], len[1], len[2], len[3], meta->nlen, meta->procs, meta->procs);
    if (rc != LENS_OK) {
        lens_cube_raw_close(r);
        return rc;
    }
    r->P = meta->procs;
    r->L = meta->nlen;
    r->z = (int)len[3];
    /* fewer than two repeats have no sample deviation: nothing to test on */
    if (r->z < 2) {
        lens_cube_raw_close(r);
        return LENS_OK;
    }
    if (!(r->row = lens_malloc((size_t)r->P * r->z * sizeof *r->row))) {
        lens_cube_raw_close(r);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", meta->source);
    }
    *out = r;
    return LENS_OK;
}

int lens_cube_raw_row(struct lens_cube_raw *r, int k, int row, const double **vals, struct lens_err *e)
{
    if (k < 0 || k >= r->L || row < 0 || row >= r->P)
        return lens_err_set(e, LENS_EINVAL, "%s: length %d, row %d out of range", r->path, k, row);
    /* the hyperslab [k, row, 0..P, 0..z]: contiguous in the file's C order */
    size_t start[4] = {(size_t)k, (size_t)row, 0, 0}, count[4] = {1, 1, (size_t)r->P, (size_t)r->z};
    int st = nc_get_vara_double(r->id, r->var, start, count, r->row);
    if (st != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: length index %d, row %d: %s", r->path, k, row, nc_strerror(st));
    /* missing as the whole-cube reader has it: the plugins branch pads with -1, and no clock
     * gives a negative or infinite delay */
    size_t n = (size_t)r->P * r->z;
    for (size_t x = 0; x < n; x++)
        if (!(r->row[x] >= 0) || !isfinite(r->row[x]))
            r->row[x] = NAN;
    *vals = r->row;
    return LENS_OK;
}
