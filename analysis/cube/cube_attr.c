/* One text attribute of a cube's NetCDF files, for what the reader table does not carry into
 * struct lens_cube: mpilens-bench's `schedule`, `rounds` and `shuffle_seed` (docs/bench.md),
 * which `mpilens info` shows, and the provenance the report's page one states (who measured,
 * when, with which MPI and launcher). Read from the first statistic file present. */
#include "cube.h"

#include "common/alloc.h"

#include <netcdf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int lens_cube_attr_text(const char *prefix, const char *name, char **out, struct lens_err *e)
{
    *out = NULL;
    /* the median first, as the readers take their metadata from it */
    static const char *const order[] = {"_median.nc", "_average.nc", "_min.nc", "_deviation.nc"};
    char path[4096];
    for (int s = 0; s < 4; s++) {
        struct stat sb;
        if ((size_t)snprintf(path, sizeof path, "%s%s", prefix, order[s]) >= sizeof path ||
            stat(path, &sb) != 0)
            continue;
        int id, st = nc_open(path, NC_NOWRITE, &id);
        if (st != NC_NOERR)
            return lens_err_set(e, LENS_EFORMAT, "%s: cannot open: %s", path, nc_strerror(st));
        nc_type t;
        size_t len;
        int rc = LENS_OK;
        /* absent, or not text (network_test2 writes none of these): no value, not an error */
        if (nc_inq_att(id, NC_GLOBAL, name, &t, &len) == NC_NOERR && t == NC_CHAR) {
            char *v = lens_malloc(len + 1);
            if (!v)
                rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
            else if ((st = nc_get_att_text(id, NC_GLOBAL, name, v)) != NC_NOERR) {
                lens_free(v);
                rc = lens_err_set(e, LENS_EFORMAT, "%s: attribute %s: %s", path, name, nc_strerror(st));
            } else {
                /* NetCDF text is not NUL-terminated; a NUL inside ends it early, harmlessly */
                v[len] = '\0';
                *out = v;
            }
        }
        nc_close(id);
        return rc;
    }
    return LENS_OK;
}

void lens_cube_attr_provenance_release(struct lens_cube_provenance *p)
{
    char **f[] = {&p->tool, &p->generator, &p->source, &p->mpi, &p->measured_at,
                  &p->date, &p->launcher, &p->binding, &p->cores_per_host};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        lens_free(*f[i]);
        *f[i] = NULL;
    }
}

int lens_cube_attr_provenance(const struct lens_cube *c, struct lens_cube_provenance *p, struct lens_err *e)
{
    memset(p, 0, sizeof *p);
    /* A packed cube's source is its file, not a prefix: it has no statistic files and so,
     * harmlessly, no attributes here. */
    if (!c->source || (c->format && strcmp(c->format, "network_test2") != 0))
        return LENS_OK;
    /* names as written by bench/net/allpairs.c, cli/cmd_synth.c and cube_write.c */
    static const char *const names[] = {"tool", "generator", "source", "mpi_library_version", "measured_at",
                                        "date", "launcher", "binding", "cores_per_host"};
    char **f[] = {&p->tool, &p->generator, &p->source, &p->mpi, &p->measured_at,
                  &p->date, &p->launcher, &p->binding, &p->cores_per_host};
    int rc = LENS_OK;
    for (size_t i = 0; i < sizeof f / sizeof *f && rc == LENS_OK; i++)
        rc = lens_cube_attr_text(c->source, names[i], f[i], e);
    if (rc != LENS_OK)
        lens_cube_attr_provenance_release(p);
    return rc;
}
