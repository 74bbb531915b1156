/* network_test2's NetCDF layout, writing: the classic layout plus descriptive global
 * attributes, whole (lens_cube_write) or length by length as a benchmark measures
 * (lens_cube_writer_*). Reading is in cube_nc.c (docs/methods.md §1). */
#include "cube.h"
#include "common/atomic.h"
#include "common/time.h"

/* pwrite and ftruncate (rollback_direct) are POSIX 2008. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file name and data_type of statistic s: "_<name>.nc" with data_type s + 1, as
 * network_test2 numbers them (docs/methods.md §1). */
static const char *const file_stats[LENS_STAT_COUNT] = {"average", "median", "deviation", "min"};

static char *path_join(const char *prefix, const char *suffix)
{
    size_t n = strlen(prefix) + strlen(suffix) + 1;
    char *p = lens_malloc(n);
    if (p)
        snprintf(p, n, "%s%s", prefix, suffix);
    return p;
}

/* One output file. Two ways to write: through the atomic writer (convert, synth, decompress: the
 * files appear at the end, together), or direct (the benchmark: the final names exist from the
 * start and are readable after every length). */
struct ncout {
    int id;          /* NetCDF id, -1 when closed */
    int var;         /* the data variable */
    char *path;      /* final name, for messages */
    char *at;        /* where it is written: path, or inside a folder being built */
    char *tmp;       /* name written to: a.tmp, or path when direct */
    struct lens_atomic a; /* !direct: the private temporary netCDF creates */
    off_t good;      /* direct: file size after the last length written to every file */
    int created;     /* direct: this run created path */
};

struct lens_cube_writer {
    int procs, nraw, direct;
    int done;        /* lengths complete in every file */
    unsigned mask;
    char *hosts;     /* direct: the hosts file this run wrote, or NULL */
    struct ncout f[LENS_STAT_COUNT + 1]; /* the statistics, then _all.nc */
};

/* Defines the file's dimensions, scalars and attributes, then writes the scalar values. */
static int define_file(struct ncout *o, const struct lens_cube *m, int data_type, int nraw,
                       int direct, const char *const *extra, struct lens_err *e)
{
    /* NC_NOCLOBBER opens with O_EXCL: never through a link planted under the name. The
     * temporary lives in a private directory; the direct name was cleared by the caller. */
    int id, st = nc_create(o->tmp, NC_NOCLOBBER | NC_64BIT_OFFSET, &id);
    o->created = direct && st != NC_EEXIST; /* a failed create may leave the file behind */
    if (st != NC_NOERR)
        return lens_err_set(e, LENS_EIO, "%s: cannot create: %s", o->path, nc_strerror(st));
    o->id = id;
    int dx, dy, dn, dz = -1, ds;
    /* network_test2's scalar ints, all of them, so its own tools read our files; noise_* are 0
     * outside the noise modes. An unknown mode is written as 0, a test_type no tool claims. */
    const char *scalars[] = {"proc_num", "test_type", "data_type", "begin_mes_length",
                             "end_mes_length", "step_length", "noise_mes_length", "num_noise_mes",
                             "num_noise_proc", "num_repeates"};
    int values[] = {m->procs, m->mode >= 1 && m->mode <= 9 ? m->mode : 0, data_type, m->begin,
                    m->end, m->step, m->noise_len, m->noise_msgs, m->noise_procs, m->repeats};
    int vars[10];
    /* n is the record dimension: a length is appended as one record, so a benchmark can write
     * and sync length by length. strings = 101 is network_test2's, kept for compatibility. */
    if ((st = nc_def_dim(id, "x", (size_t)m->procs, &dx)) || (st = nc_def_dim(id, "y", (size_t)m->procs, &dy)) ||
        (st = nc_def_dim(id, "n", NC_UNLIMITED, &dn)) || (nraw > 0 && (st = nc_def_dim(id, "z", (size_t)nraw, &dz))) ||
        (st = nc_def_dim(id, "strings", 101, &ds)))
        goto fail;
    for (int i = 0; i < 10; i++)
        if ((st = nc_def_var(id, scalars[i], NC_INT, 0, NULL, &vars[i])))
            goto fail;
    int dims[4] = {dn, dx, dy, dz};
    if ((st = nc_def_var(id, "data", NC_DOUBLE, nraw > 0 ? 4 : 3, dims, &o->var)))
        goto fail;
    /* What network_test2 leaves implicit, stated once in every file. */
    char date[64];
    lens_time_format_date(lens_time_source_date(), date, sizeof date);
    const char *attrs[] = {
        "mpilens_version", LENS_VERSION,
        "date", date,
        "test_type_name", lens_cube_mode_name(m->mode),
        "statistic", data_type >= 1 && data_type <= 4 ? file_stats[data_type - 1] : "raw",
        "units", "seconds",
        "sender_index", lens_cube_mode_semantics(m->mode),
        "layout", "data(n, x, y): matrix n is message length begin_mes_length + n*step_length bytes",
    };
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i += 2)
        if ((st = nc_put_att_text(id, NC_GLOBAL, attrs[i], strlen(attrs[i + 1]), attrs[i + 1])))
            goto fail;
    for (size_t i = 0; extra && extra[i] && extra[i + 1]; i += 2)
        if ((st = nc_put_att_text(id, NC_GLOBAL, extra[i], strlen(extra[i + 1]), extra[i + 1])))
            goto fail;
    if ((st = nc_put_att_text(id, o->var, "units", 1, "s")) || (st = nc_enddef(id)))
        goto fail;
    for (int i = 0; i < 10; i++)
        if ((st = nc_put_var_int(id, vars[i], &values[i])))
            goto fail;
    /* The header on disk before any data: o->good below is then the size of a file with no
     * record, the state rollback_direct returns to when not one length completes. */
    if ((st = nc_sync(id)))
        goto fail;
    struct stat sb;
    o->good = stat(o->tmp, &sb) == 0 ? sb.st_size : 0;
    return LENS_OK;
fail:
    return lens_err_set(e, LENS_EIO, "%s: cannot write: %s", o->path, nc_strerror(st));
}

static int write_hosts(struct lens_cube_writer *w, const struct lens_cube *m, const char *prefix,
                       struct lens_err *e)
{
    if (!m->hosts)
        return LENS_OK;
    char *path = path_join(prefix, "_hosts.txt");
    if (!path)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc == LENS_OK) {
        /* One name per line in rank order, "unknown" for a gap, so line i is always rank i.
         * Write errors are left to the commit, which reports the first one. */
        for (int i = 0; i < m->procs; i++)
            fprintf(a.fp, "%s\n", m->hosts[i] ? m->hosts[i] : "unknown");
        rc = lens_atomic_commit(&a, e);
    }
    if (rc == LENS_OK && w->direct)
        w->hosts = path; /* removed again if not one length gets written */
    else
        lens_free(path);
    return rc;
}

/* Direct mode: the final name must be ours to create. A stale result (--force) or a link
 * is removed rather than written through; anything else (a device, a folder) is refused. */
static int clear_direct(const char *path, struct lens_err *e)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return LENS_OK;
    if (!S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode))
        return lens_err_set(e, LENS_EIO, "%s: exists and is not a regular file", path);
    if (unlink(path) != 0)
        return lens_err_set(e, LENS_EIO, "%s: cannot remove the old result: %s", path, strerror(errno));
    return LENS_OK;
}

/* Direct mode after a failed length: every file goes back to the lengths complete in all
 * of them (docs/bench.md: an interrupted run stays readable). In the 64-bit-offset
 * classic format the record count is the big-endian 32-bit word at byte 4. */
static void rollback_direct(struct lens_cube_writer *w)
{
    for (int s = 0; s <= LENS_STAT_COUNT; s++) {
        struct ncout *o = &w->f[s];
        if (o->id >= 0)
            (void)nc_close(o->id);
        o->id = -1;
        /* Files this run did not create (a failed create) are not ours to touch. */
        if (!o->created)
            continue;
        /* O_NOFOLLOW: the name was ours a moment ago; if it is a link now, someone replaced it
         * and it is left alone. */
        int fd = open(o->path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        unsigned char n[4] = {(unsigned char)(w->done >> 24), (unsigned char)(w->done >> 16),
                              (unsigned char)(w->done >> 8), (unsigned char)w->done};
        /* Shrinking and rewriting 4 bytes in place need no free space. */
        if (ftruncate(fd, o->good) == 0 && pwrite(fd, n, 4, 4) == 4)
            (void)fsync(fd);
        close(fd);
    }
}

int lens_cube_writer_open(struct lens_cube_writer **out, const struct lens_cube *meta,
                          const char *prefix, unsigned stat_mask, int raw_repeats,
                          const char *const *extra_attrs, int direct, struct lens_err *e)
{
    *out = NULL;
    struct lens_cube_writer *w = lens_calloc(1, sizeof *w);
    if (!w)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
    /* All files of the prefix appear together or not at all (ended by close or abort). */
    if (!direct)
        lens_atomic_group_begin();
    /* An output prefix in a new directory is the common case (-o out/run1/network). Unless
     * direct, a new directory is built aside and appears with the files (lens_atomic_dir). */
    const char *slash = strrchr(prefix, '/'), *wprefix = prefix;
    char *inside = NULL;
    /* A prefix "/x" lives in the root: no folder to make. */
    if (slash && slash != prefix) {
        char *dir = lens_strdup(prefix), *where = NULL;
        int rc = dir ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
        if (dir) {
            dir[slash - prefix] = '\0';
            rc = direct ? lens_atomic_mkdir_p(dir, e) : lens_atomic_dir(dir, &where, e);
            lens_free(dir);
        }
        if (rc == LENS_OK && where && !(inside = path_join(where, slash)))
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
        lens_free(where);
        if (rc != LENS_OK) {
            if (!direct)
                lens_atomic_group_abort();
            lens_free(w);
            return rc;
        }
        if (inside)
            wprefix = inside;
    }
    w->procs = meta->procs;
    w->nraw = raw_repeats;
    w->direct = direct;
    w->mask = stat_mask;
    for (int s = 0; s <= LENS_STAT_COUNT; s++)
        w->f[s].id = -1;
    int rc = LENS_OK;
    for (int s = 0; s <= LENS_STAT_COUNT && rc == LENS_OK; s++) {
        /* Slot LENS_STAT_COUNT is the raw repeats (_all.nc), written only when the cube has
         * them. */
        if (s < LENS_STAT_COUNT ? !(stat_mask & (1u << s)) : raw_repeats <= 0)
            continue;
        char suffix[32];
        snprintf(suffix, sizeof suffix, "_%s.nc", s < LENS_STAT_COUNT ? file_stats[s] : "all");
        struct ncout *o = &w->f[s];
        /* o->path is the name people asked for (messages, the final rename), o->at the name
         * written inside a folder still being built aside; they differ only while it is new. */
        o->path = path_join(prefix, suffix);
        o->at = path_join(wprefix, suffix);
        if (!o->path || !o->at) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
        } else if (!direct) {
            if ((rc = lens_atomic_open(&o->a, o->at, NULL, e)) == LENS_OK)
                o->tmp = o->a.tmp;
        } else if ((rc = clear_direct(o->path, e)) == LENS_OK) {
            o->tmp = o->path;
        }
        if (rc == LENS_OK)
            rc = define_file(o, meta, s < LENS_STAT_COUNT ? s + 1 : 5,
                             s < LENS_STAT_COUNT ? 0 : raw_repeats, direct, extra_attrs, e);
    }
    if (rc == LENS_OK)
        rc = write_hosts(w, meta, wprefix, e);
    lens_free(inside);
    if (rc != LENS_OK) {
        lens_cube_writer_abort(w);
        return rc;
    }
    *out = w;
    return LENS_OK;
}

int lens_cube_writer_put(struct lens_cube_writer *w, int k, const double *const *mats,
                         const double *raw, struct lens_err *e)
{
    size_t P = (size_t)w->procs;
    for (int s = 0; s <= LENS_STAT_COUNT; s++) {
        struct ncout *o = &w->f[s];
        if (o->id < 0)
            continue;
        const double *src = s < LENS_STAT_COUNT ? mats[s] : raw;
        if (!src)
            return lens_err_set(e, LENS_EINVAL, "%s: no values given for length %d", o->path, k);
        /* Record k: one P x P matrix (x P x z for the raw repeats; a 3-D variable ignores
         * count[3]). */
        size_t start[4] = {(size_t)k, 0, 0, 0}, count[4] = {1, P, P, (size_t)w->nraw};
        /* Synced after every length: an interrupted benchmark keeps what it measured
         * (docs/bench.md). */
        int st = nc_put_vara_double(o->id, o->var, start, count, src);
        if (st == NC_NOERR)
            st = nc_sync(o->id);
        if (st != NC_NOERR) {
            int rc = lens_err_set(e, LENS_EIO, "%s: cannot write length %d: %s", o->path, k,
                                  nc_strerror(st));
            if (w->direct)
                rollback_direct(w);
            return rc;
        }
    }
    /* Every file holds length k: this is the state a later failure goes back to. */
    for (int s = 0; s <= LENS_STAT_COUNT && w->direct; s++) {
        struct stat sb;
        if (w->f[s].id >= 0 && stat(w->f[s].path, &sb) == 0)
            w->f[s].good = sb.st_size;
    }
    if (k + 1 > w->done)
        w->done = k + 1;
    return LENS_OK;
}

static void writer_free(struct lens_cube_writer *w)
{
    for (int s = 0; s <= LENS_STAT_COUNT; s++) {
        lens_atomic_abort(&w->f[s].a); /* a no-op once committed */
        lens_free(w->f[s].path);
        lens_free(w->f[s].at);
    }
    lens_free(w->hosts);
    lens_free(w);
}

int lens_cube_writer_close(struct lens_cube_writer *w, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int s = 0; s <= LENS_STAT_COUNT; s++) {
        struct ncout *o = &w->f[s];
        if (o->id < 0)
            continue;
        /* nc_close writes what the library still buffers: its failure (a full disk) is a write
         * failure. */
        int st = nc_close(o->id);
        o->id = -1;
        if (st != NC_NOERR && rc == LENS_OK)
            rc = lens_err_set(e, LENS_EIO, "%s: cannot close: %s", o->path, nc_strerror(st));
    }
    /* Direct files are already in place: only a failed close needs them put back to the last
     * complete length. */
    if (w->direct) {
        if (rc != LENS_OK)
            rollback_direct(w);
        writer_free(w);
        return rc;
    }
    /* fsync each temporary, then rename them all together. */
    for (int s = 0; s <= LENS_STAT_COUNT && rc == LENS_OK; s++)
        if (w->f[s].a.path)
            rc = lens_atomic_commit(&w->f[s].a, e);
    if (rc == LENS_OK)
        rc = lens_atomic_group_commit(e);
    else
        lens_atomic_group_abort();
    writer_free(w);
    return rc;
}

void lens_cube_writer_abort(struct lens_cube_writer *w)
{
    if (!w)
        return;
    for (int s = 0; s <= LENS_STAT_COUNT; s++) {
        struct ncout *o = &w->f[s];
        if (o->id >= 0)
            nc_close(o->id);
        o->id = -1;
    }
    if (w->direct && w->done == 0) {
        /* Not one length measured: nothing worth keeping, and a retry must not need --force. */
        for (int s = 0; s <= LENS_STAT_COUNT; s++)
            if (w->f[s].created)
                (void)unlink(w->f[s].path);
        if (w->hosts)
            (void)unlink(w->hosts);
    } else if (w->direct) {
        /* Some lengths were written: keep them, consistent across the files. */
        rollback_direct(w);
    } else {
        lens_atomic_group_abort();
    }
    writer_free(w);
}

/* A whole cube in memory through the streaming writer, length by length: one code path for every
 * writer, and the atomic group makes the files appear together. */
int lens_cube_write(const struct lens_cube *c, const char *prefix, const char *const *extra_attrs,
                    struct lens_err *e)
{
    unsigned mask = 0;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        if (c->data[s])
            mask |= 1u << s;
    if (!mask)
        return lens_err_set(e, LENS_EINVAL, "%s: the cube holds no statistic to write", prefix);
    struct lens_cube_writer *w;
    int rc = lens_cube_writer_open(&w, c, prefix, mask, c->raw ? c->nraw : 0, extra_attrs, 0, e);
    if (rc != LENS_OK)
        return rc;
    size_t P = (size_t)c->procs, cells = P * P;
    for (int k = 0; k < c->nlen && rc == LENS_OK; k++) {
        const double *mats[LENS_STAT_COUNT];
        for (int s = 0; s < LENS_STAT_COUNT; s++)
            mats[s] = c->data[s] ? c->data[s] + k * cells : NULL;
        rc = lens_cube_writer_put(w, k, mats, c->raw ? c->raw + k * cells * c->nraw : NULL, e);
    }
    if (rc != LENS_OK) {
        lens_cube_writer_abort(w);
        return rc;
    }
    return lens_cube_writer_close(w, e);
}
