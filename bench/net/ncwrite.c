/* Parallel-NetCDF output of the all-pairs cube (see ncwrite.h): per length one collective
 * ncmpi_put_vara_double_all per file, each rank its own row, then ncmpi_sync. Memory per rank
 * is the rows it already holds: O(P) doubles per statistic (times the repeats with --raw). */
#define _XOPEN_SOURCE 700 /* pwrite, ftruncate: the rollback after a failed length */
#include "ncwrite.h"

#include "common/alloc.h"

#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef LENS_HAVE_PNETCDF

#include <fcntl.h>
#include <pnetcdf.h>
#include <sys/stat.h>
#include <unistd.h>

/* The four statistics in cube_write.c's order, then the raw repeats. */
#define NFILES 5
static const char *const suffixes[NFILES] = {"_average.nc", "_median.nc", "_deviation.nc",
                                             "_min.nc", "_all.nc"};

struct lens_bench_ncwrite {
    int nfiles;             /* 4, or 5 with the raw repeats */
    int done;               /* lengths complete in every file */
    int id[NFILES], var[NFILES];
    char *path[NFILES];     /* for messages and rank 0's rollback */
    char *hosts;            /* <prefix>_hosts.txt: removed with the files if no length completes */
    MPI_Offset good[NFILES]; /* rank 0: each file's size after the last complete length */
    MPI_Offset base[NFILES]; /* rank 0: the size with no record, where the records begin */
};

/* <prefix><suffix>, the names the serial writer gave the files (cube_write.c). */
static char *join(const char *prefix, const char *suffix)
{
    size_t n = strlen(prefix) + strlen(suffix) + 1;
    char *p = lens_malloc(n);
    if (p)
        snprintf(p, n, "%s%s", prefix, suffix);
    return p;
}

int lens_bench_ncwrite_enabled(void)
{
    int on = 0, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const char *g = getenv("MPILENS_BENCH_GATHER");
        on = !g || !*g || !strcmp(g, "0");
    }
    /* every rank must take the same path: the two write through different collectives */
    MPI_Bcast(&on, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return on;
}

/* Every rank learns whether any rank failed, and the first failing rank's message: the ranks
 * then leave the collective calls together instead of some waiting forever in the next one. */
static int agree(int rc, struct lens_err *e)
{
    int rank, first;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int mine = rc == LENS_OK ? INT_MAX : rank;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == INT_MAX) /* nobody failed: the common case costs one reduction */
        return LENS_OK;
    /* the code and the text travel together; LENS_EIO when the failing rank's code is lost */
    struct { int code; char msg[sizeof e->msg]; } m;
    memset(&m, 0, sizeof m);
    if (rank == first) {
        m.code = rc;
        snprintf(m.msg, sizeof m.msg, "%s", e->msg);
    }
    MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, first, MPI_COMM_WORLD);
    if (rank == first) /* its own message, already in e */
        return rc;
    /* rank 0 reports it (lens_bench_fatal names rank 0): say which rank failed */
    return lens_err_set(e, m.code < 0 ? m.code : LENS_EIO, "rank %d: %s", first, m.msg);
}

/* Frees the names; the handles are closed (or abandoned to the abort) by the caller. */
static void release(struct lens_bench_ncwrite *w)
{
    for (int f = 0; f < NFILES; f++)
        lens_free(w->path[f]);
    lens_free(w->hosts);
    lens_free(w);
}

/* Rank 0 after a failed length: every file back to the lengths complete in all of them (the
 * serial writer's rollback, cube_write.c), or no file at all when none is. In CDF-2 the record
 * count is the big-endian 32-bit word at byte 4. The PnetCDF handles are left open: the job
 * ends next. */
static void rollback(struct lens_bench_ncwrite *w)
{
    for (int f = 0; f < w->nfiles && w->path[f]; f++) {
        if (w->done == 0) {
            (void)unlink(w->path[f]);
            continue;
        }
        int fd = open(w->path[f], O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) /* O_NOFOLLOW: a name replaced by a link since is not ours to cut */
            continue;
        unsigned char n[4] = {(unsigned char)(w->done >> 24), (unsigned char)(w->done >> 16),
                              (unsigned char)(w->done >> 8), (unsigned char)w->done};
        if (ftruncate(fd, (off_t)w->good[f]) == 0 && pwrite(fd, n, 4, 4) == 4)
            (void)fsync(fd);
        close(fd);
    }
    if (w->done == 0 && w->hosts)
        (void)unlink(w->hosts); /* a retry must not need --force */
}

int lens_bench_ncwrite_open(struct lens_bench_ncwrite **out, const char *prefix, int raw,
                            struct lens_err *e)
{
    *out = NULL;
    struct lens_bench_ncwrite *w = lens_calloc(1, sizeof *w);
    int rc = w ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "out of memory");
    if (w) {
        w->nfiles = raw ? 5 : 4;
        for (int f = 0; f < NFILES; f++)
            w->id[f] = -1;
        w->hosts = join(prefix, "_hosts.txt");
        if (!w->hosts)
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    for (int f = 0; rc == LENS_OK && f < w->nfiles; f++)
        if (!(w->path[f] = join(prefix, suffixes[f])))
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
    /* a rank short of memory must not leave the others alone in ncmpi_open, a collective */
    rc = agree(rc, e);
    for (int f = 0; rc == LENS_OK && f < w->nfiles; f++) {
        /* NC_WRITE on the header rank 0 wrote: PnetCDF keeps its layout (CDF-2, the record
         * variable's offset) and only appends records and updates their count */
        int st = ncmpi_open(MPI_COMM_WORLD, w->path[f], NC_WRITE, MPI_INFO_NULL, &w->id[f]);
        if (st == NC_NOERR)
            st = ncmpi_inq_varid(w->id[f], "data", &w->var[f]);
        if (st != NC_NOERR)
            rc = lens_err_set(e, LENS_EIO, "%s: cannot open for the parallel write: %s", w->path[f],
                              ncmpi_strerror(st));
        rc = agree(rc, e);
    }
    /* the size with no record: what a failure at the first length cuts back to, were the
     * files kept (they are removed then, as the serial writer's abort does) */
    struct stat sb;
    for (int f = 0; rc == LENS_OK && f < w->nfiles; f++)
        w->base[f] = w->good[f] = stat(w->path[f], &sb) == 0 ? sb.st_size : 0;
    if (rc != LENS_OK) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        for (int f = 0; w && f < NFILES; f++)
            if (w->id[f] >= 0)
                (void)ncmpi_close(w->id[f]);
        /* files with no record are no result: removed, as the serial writer's abort does */
        if (w && rank == 0)
            rollback(w);
        if (w)
            release(w);
        return rc;
    }
    *out = w;
    return LENS_OK;
}

/* Rank 0 after a length's writes and syncs: each file must hold every byte of records 0..k.
 * Open MPI's OMPIO prints a failed write (ENOSPC) but returns success, so the library's status
 * alone would let a full disk pass as a complete run: the size, and no hole in the records
 * (SEEK_HOLE; a file system without it reports none), are checked here. */
static int verify(const struct lens_bench_ncwrite *w, int k, const struct lens_bench_ctx *c,
                  struct lens_err *e)
{
    off_t cells = (off_t)c->procs * c->procs * (off_t)sizeof(double);
    for (int f = 0; f < w->nfiles; f++) {
        off_t want = (off_t)w->base[f] + (off_t)(k + 1) * cells * (f < 4 ? 1 : c->o->repeats);
        int fd = open(w->path[f], O_RDONLY | O_CLOEXEC);
        struct stat sb;
        off_t hole = fd >= 0 ? lseek(fd, (off_t)w->base[f], SEEK_HOLE) : -1;
        off_t size = fd >= 0 && fstat(fd, &sb) == 0 ? sb.st_size : -1;
        if (fd >= 0)
            close(fd);
        if (size < want || (hole >= 0 && hole < want))
            return lens_err_set(e, LENS_EIO, "%s: cannot write length %d: the file holds %lld of "
                                "its %lld bytes (No space left on device?)", w->path[f], k,
                                (long long)(hole >= 0 && hole < size ? hole : size), (long long)want);
    }
    return LENS_OK;
}

int lens_bench_ncwrite_put(struct lens_bench_ncwrite *w, int k, const struct lens_bench_ctx *c,
                           struct lens_err *e)
{
    MPI_Offset P = c->procs, n = c->o->repeats, me = c->rank;
    /* row = the rank that measured: start (k, rank, 0), count (1, 1, P); a transposed mode
     * (bcast: row = root) holds a column instead: start (k, 0, rank), count (1, P, 1). The raw
     * repeats add z whole: rawrow is cell-major, repeats inner, as the file orders them. */
    MPI_Offset start[4] = {k, c->transposed ? 0 : me, c->transposed ? me : 0, 0};
    MPI_Offset count[4] = {1, c->transposed ? P : 1, c->transposed ? 1 : P, n};
    int rc = LENS_OK;
    /* every rank calls every file's collectives even after a failure of its own, so none is
     * left waiting in a put the others skipped; the first error is the one reported */
    for (int f = 0; f < w->nfiles; f++) {
        const double *src = f < 4 ? c->row[f] : c->rawrow;
        int st = ncmpi_put_vara_double_all(w->id[f], w->var[f], start, count, src);
        /* synced per length, as the serial writer: a killed run keeps what it measured */
        if (st == NC_NOERR)
            st = ncmpi_sync(w->id[f]);
        if (st != NC_NOERR && rc == LENS_OK)
            rc = lens_err_set(e, LENS_EIO, "%s: cannot write length %d: %s", w->path[f], k,
                              ncmpi_strerror(st));
    }
    if (rc == LENS_OK && me == 0)
        rc = verify(w, k, c, e);
    rc = agree(rc, e);
    if (rc != LENS_OK) {
        if (me == 0)
            rollback(w);
        return rc;
    }
    /* every file holds length k now: the state a later failure goes back to (rank 0 alone
     * cuts files, so only it needs the sizes) */
    w->done = k + 1;
    struct stat sb;
    for (int f = 0; me == 0 && f < w->nfiles; f++)
        if (stat(w->path[f], &sb) == 0)
            w->good[f] = sb.st_size;
    return LENS_OK;
}

int lens_bench_ncwrite_close(struct lens_bench_ncwrite *w, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int f = 0; f < w->nfiles; f++) {
        /* the close writes the final record count: its failure is a write failure */
        int st = ncmpi_close(w->id[f]);
        if (st != NC_NOERR && rc == LENS_OK)
            rc = lens_err_set(e, LENS_EIO, "%s: cannot close: %s", w->path[f], ncmpi_strerror(st));
    }
    rc = agree(rc, e);
    release(w);
    return rc;
}

#else /* no PnetCDF in this build: rank 0 gathers (allpairs.c), these are never reached */

int lens_bench_ncwrite_enabled(void)
{
    return 0;
}

int lens_bench_ncwrite_open(struct lens_bench_ncwrite **out, const char *prefix, int raw,
                            struct lens_err *e)
{
    (void)raw;
    *out = NULL;
    return lens_err_set(e, LENS_EINVAL, "%s: this mpilens-bench was built without PnetCDF", prefix);
}

int lens_bench_ncwrite_put(struct lens_bench_ncwrite *w, int k, const struct lens_bench_ctx *c,
                           struct lens_err *e)
{
    (void)w, (void)c;
    return lens_err_set(e, LENS_EINVAL, "length %d: built without PnetCDF", k);
}

int lens_bench_ncwrite_close(struct lens_bench_ncwrite *w, struct lens_err *e)
{
    (void)w, (void)e;
    return LENS_OK;
}

#endif
