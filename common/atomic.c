/* Atomic output (common/atomic.h, docs/outputs.md): temporaries beside the target, renamed
 * on commit, and output groups that rename a command's files together. Compiled into every
 * program (serial tool, benchmark, trace library). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fopencookie */
#endif
#include "atomic.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Writes "<pid>-<6 random letters or digits>" so that a name cannot be guessed in advance; the
 * O_EXCL open is what makes the name safe, the randomness only avoids a planted-name DoS. */
static void random_suffix(char *buf, size_t n)
{
    /* Lowercase and digits only: the name must survive case-insensitive file systems and shells
     * without quoting. */
    static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[6] = {0};
    /* Early in boot (or in a seccomp jail) getrandom may fail or block: GRND_NONBLOCK never waits,
     * and the clock is good enough here because O_EXCL, not secrecy, gives the safety. */
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned long x = (unsigned long)ts.tv_nsec * 2654435761u ^ (unsigned long)ts.tv_sec;
        for (size_t i = 0; i < sizeof r; i++, x >>= 5)
            r[i] ^= (unsigned char)x;
    }
    char s[7];
    /* The modulo bias (256 is not a multiple of 36) only makes some names a little likelier. */
    for (size_t i = 0; i < sizeof r; i++)
        s[i] = set[r[i] % (sizeof set - 1)];
    s[6] = '\0';
    snprintf(buf, n, "%ld-%s", (long)getpid(), s);
}

/* The stream under a->fp: stdio reports a failed write only as a flag, and by the time
 * the caller looks errno may say anything. The first failure's errno is kept here, so a full
 * disk is reported as one however much the caller wrote after it. */
struct sink {
    int fd;
    int err;
};

/* fopencookie's write hook: writes all n bytes or fails. A short write is retried (pipes, signals);
 * 0 bytes written counts as EIO so that the loop cannot spin forever. */
static ssize_t sink_write(void *c, const char *buf, size_t n)
{
    struct sink *s = c;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(s->fd, buf + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (!s->err)
                s->err = w < 0 ? errno : EIO;
            return -1;
        }
        off += (size_t)w;
    }
    return (ssize_t)n;
}

/* fclose calls this once; fd = -1 afterwards makes a second call harmless. */
static int sink_close(void *c)
{
    struct sink *s = c;
    int rc = s->fd >= 0 ? close(s->fd) : 0;
    s->fd = -1;
    return rc;
}

/* Frees what the struct owns and zeroes it, touching no file: the callers decide first whether the
 * temporary is to be removed (abort) or is now someone else's (group, rename). */
static void atomic_release(struct lens_atomic *a)
{
    lens_free(a->sink);
    a->sink = NULL;
    lens_free(a->path);
    lens_free(a->tmp);
    lens_free(a->dir);
    a->path = a->tmp = a->dir = NULL;
    a->fp = NULL;
    a->inplace = 0;
}

/* Removes what the writer made: its temporary file and private directory, never the target. */
static void remove_temps(const char *tmp, const char *dir)
{
    if (tmp)
        (void)unlink(tmp);
    if (dir)
        (void)rmdir(dir);
}

/* Defined below with the group it looks into; error messages need it earlier. */
static const char *shown(const char *path, char *buf, size_t n);

/* Every failed open ends here: the message names the target (never the temporary) with the system's
 * reason, and abort removes only what this writer created. */
static int open_failed(struct lens_atomic *a, const char *path, const char *what, int err,
                       struct lens_err *e)
{
    char show[4096];
    int rc = lens_err_set(e, err == ENOMEM ? LENS_ENOMEM : LENS_EIO, "%s: %s: %s",
                          shown(path, show, sizeof show), what, strerror(err));
    lens_atomic_abort(a);
    return rc;
}

int lens_atomic_open(struct lens_atomic *a, const char *path, const char *mode, struct lens_err *e)
{
    memset(a, 0, sizeof *a);
    struct stat st, lst;
    /* The order matters: decide in place or not (stat), then resolve a link (lstat, realpath), then
     * allocate the names, so that every later path works on the real target. */
    int exists = stat(path, &st) == 0;
    /* stat follows links on purpose: /dev/stdout is a link to whatever fd 1 is, and a
     * device or FIFO behind any link is written in place. A link to a regular file keeps
     * pointing at it: the file it names is the one replaced. */
    char *real = NULL;
    if (exists && S_ISREG(st.st_mode) && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
        if (!(real = realpath(path, NULL)))
            return lens_err_set(e, LENS_EIO, "%s: cannot resolve the link: %s", path, strerror(errno));
        path = real;
    }
    /* The same buffer later holds "<path>.tmp<pid>-<6 chars>" (at most 48 bytes of suffix). */
    size_t n = 2 * strlen(path) + 64; /* room for "<dir>/<basename>" */
    a->path = lens_strdup(path);
    a->tmp = lens_malloc(n);
    free(real); /* from realpath */
    path = a->path;
    if (!a->path || !a->tmp)
        return open_failed(a, a->path ? a->path : "output", "cannot create", ENOMEM, e);
    a->tmp[0] = '\0'; /* nothing of ours to remove yet */
    /* A directory is neither written in place nor replaced: renaming a file over it would fail
     * late, after the whole output was produced, so it is refused here. */
    a->inplace = exists && !S_ISREG(st.st_mode);
    if (a->inplace && S_ISDIR(st.st_mode))
        return open_failed(a, path, "cannot write", EISDIR, e);
    if (!mode) {
        /* A library creates the file by name (and may remove and recreate it): give it a
         * directory nobody else can write to, next to the target so rename stays atomic.
         * For a device the copy is only copied into it: the directory goes to TMPDIR
         * rather than into /dev. */
        const char *tdir = getenv("TMPDIR");
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t dn = n + (tdir ? strlen(tdir) : 0) + 32;
        char *dir = lens_malloc(dn);
        if (!dir)
            return open_failed(a, path, "cannot create", ENOMEM, e);
        if (a->inplace)
            snprintf(dir, dn, "%s/mpilens.XXXXXX", tdir && *tdir ? tdir : "/tmp");
        else
            snprintf(dir, dn, "%s.tmpXXXXXX", path);
        /* mkdtemp makes the directory with mode 0700, so the file the library creates in it
         * cannot be replaced or read by another user before our rename. */
        if (!mkdtemp(dir)) {
            int err = errno;
            lens_free(dir);
            return open_failed(a, path, "cannot create a temporary directory", err, e);
        }
        a->dir = dir;
        lens_free(a->tmp);
        if (!(a->tmp = lens_malloc(dn + strlen(base) + 2)))
            return open_failed(a, path, "cannot create", ENOMEM, e);
        /* The target's own base name: the rename needs no new name, and a leftover of a crash
         * says which output it was. */
        snprintf(a->tmp, dn + strlen(base) + 2, "%s/%s", dir, base);
        return LENS_OK;
    }
    int fd = -1;
    if (a->inplace) {
        /* No O_CREAT, no O_TRUNC, no rename: a device or FIFO stays what it is. */
        snprintf(a->tmp, n, "%s", path);
        fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            return open_failed(a, path, "cannot open", errno, e);
    } else {
        /* EEXIST means someone else holds that name (a leftover, or a name planted on purpose):
         * draw another. 100 collisions of a random name are no accident; give up with a clear
         * error. */
        for (int tries = 0; fd < 0 && tries < 100; tries++) {
            char suffix[48];
            random_suffix(suffix, sizeof suffix);
            /* Keep the extension last: people opening a leftover temporary care. */
            snprintf(a->tmp, n, "%s.tmp%s", path, suffix);
            /* O_EXCL with O_NOFOLLOW: a link planted under the name fails instead of being written
             * through. 0666 lets the umask decide, as for any file the user creates; O_CLOEXEC
             * keeps the fd out of the mpirun child of `mpilens trace`. */
            fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
            if (fd < 0 && errno != EEXIST) {
                int err = errno;
                a->tmp[0] = '\0'; /* not ours: abort must not remove it */
                return open_failed(a, path, "cannot create", err, e);
            }
        }
        if (fd < 0) {
            a->tmp[0] = '\0';
            return open_failed(a, path, "cannot create a temporary file", EEXIST, e);
        }
    }
    struct sink *s = lens_malloc(sizeof *s);
    if (s) {
        *s = (struct sink){fd, 0};
        cookie_io_functions_t io = {.write = sink_write, .close = sink_close};
        /* A stdio stream over our own write hook: callers keep fprintf, and sink_write keeps the
         * errno of the first failed write, which stdio would forget. */
        a->fp = fopencookie(s, strchr(mode, 'a') ? "a" : "w", io);
    }
    if (!a->fp) {
        int err = s ? errno : ENOMEM;
        close(fd);
        lens_free(s);
        return open_failed(a, path, "cannot create", err, e);
    }
    a->sink = s;
    return LENS_OK;
}

/* Copies the file `from` to fd, for a library's output whose target is a device or FIFO.
 * Returns 0 or an errno. Plain read/write with EINTR retried: a FIFO's reader may be slow, and
 * sendfile does not write to every kind of descriptor. */
static int copy_to_fd(const char *from, int fd)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return errno;
    char buf[65536];
    int err = 0;
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            err = r < 0 ? errno : 0;
            break;
        }
        for (ssize_t off = 0; off < r && !err;) {
            ssize_t w = write(fd, buf + off, (size_t)(r - off));
            if (w < 0 && errno != EINTR)
                err = errno;
            else if (w > 0)
                off += w;
        }
        if (err)
            break;
    }
    close(in);
    return err;
}

/* The pending renames of the open group, in the order of their commits.
 * The open group is process-wide state: one command at a time, so a static list is enough (atomic.h
 * says so: not thread-safe). group_depth counts nested group_begin calls. */
struct pending {
    char *path, *tmp, *dir;
    int isdir; /* a folder made by lens_atomic_dir: tmp is the folder */
};
static struct pending *group;
static size_t group_n, group_cap;
static int group_depth;

/* The name people asked for: a file inside a folder still being built (lens_atomic_dir)
 * is named by the folder's final name, not by the temporary one. */
static const char *shown(const char *path, char *buf, size_t n)
{
    for (size_t i = 0; path && i < group_n; i++) {
        const struct pending *q = &group[i];
        size_t l = q->isdir && q->tmp ? strlen(q->tmp) : 0;
        if (l && !strncmp(path, q->tmp, l) && path[l] == '/') {
            snprintf(buf, n, "%s%s", q->path, path + l);
            return buf;
        }
    }
    return path;
}

/* nftw callback: FTW_DEPTH visits a folder after its contents, so rmdir finds it empty. */
static int remove_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* FTW_PHYS: a link inside the folder is removed, never followed out of it. */
static void remove_tree(const char *dir) { (void)nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void pending_free(struct pending *q)
{
    lens_free(q->path);
    lens_free(q->tmp);
    lens_free(q->dir);
    memset(q, 0, sizeof *q);
}

static void group_clear(void)
{
    for (size_t i = 0; i < group_n; i++)
        pending_free(&group[i]);
    lens_free(group);
    group = NULL;
    group_n = group_cap = 0;
}

/* Takes over path/tmp/dir (the caller drops its pointers); LENS_ENOMEM leaves them. */
static int group_push(char *path, char *tmp, char *dir, int isdir)
{
    void *p = group;
    if (lens_reserve(&p, &group_cap, group_n + 1, sizeof *group) != LENS_OK)
        return LENS_ENOMEM;
    group = p;
    group[group_n++] = (struct pending){path, tmp, dir, isdir};
    return LENS_OK;
}

int lens_atomic_commit(struct lens_atomic *a, struct lens_err *e)
{
    int err = 0;
    const char *what = "write failed";
    if (a->fp) {
        struct sink *s = a->sink;
        errno = 0;
        /* ferror too: a write that failed earlier leaves the flag set even when this flush
         * succeeds, and the sink's errno is the true reason (ENOSPC, EFBIG) rather than whatever
         * errno is now. */
        if (fflush(a->fp) != 0 || ferror(a->fp))
            err = s->err ? s->err : errno ? errno : EIO;
        /* fsync before rename: after a crash the name points at the whole file. Devices
         * and FIFOs may not support fsync; what was written to them is all that counts. */
        if (!err && !a->inplace && fsync(s->fd) != 0)
            err = errno;
        if (fclose(a->fp) != 0 && !err)
            err = errno;
        a->fp = NULL;
    } else if (a->tmp && a->inplace) {
        /* A library wrote its private copy by name; the device or FIFO receives the bytes now. */
        int fd = open(a->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        err = fd < 0 ? errno : copy_to_fd(a->tmp, fd);
        if (fd >= 0 && close(fd) != 0 && !err)
            err = errno;
    } else if (a->tmp) {
        /* A library wrote and closed the file itself: open it again only to fsync it before the
         * rename. */
        int fd = open(a->tmp, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0)
            err = errno;
        if (fd >= 0)
            close(fd);
        what = "cannot write";
    }
    if (err) {
        char show[4096];
        int rc = lens_err_set(e, LENS_EIO, "%s: %s: %s", shown(a->path, show, sizeof show), what,
                              strerror(err));
        lens_atomic_abort(a);
        return rc;
    }
    if (a->inplace) {
        lens_atomic_abort(a); /* removes the library's private copy, never the target */
        return LENS_OK;
    }
    /* Inside a group the file is complete and synced but stays under its temporary name; the group
     * owns the names from here on (path, tmp, dir move into the pending list). */
    if (group_depth > 0) {
        if (group_push(a->path, a->tmp, a->dir, 0) != LENS_OK) {
            int rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", a->path);
            lens_atomic_abort(a);
            return rc;
        }
        a->path = a->tmp = a->dir = NULL;
        atomic_release(a);
        return LENS_OK;
    }
    /* rename is atomic within one file system, which is why the temporary lives beside the target:
     * readers see the old file or the new one, never a mixture. */
    if (rename(a->tmp, a->path) != 0) {
        int rc = lens_err_set(e, LENS_EIO, "%s: cannot rename temporary file: %s", a->path,
                              strerror(errno));
        lens_atomic_abort(a);
        return rc;
    }
    /* Only the emptied private directory is left of a library's write. */
    remove_temps(NULL, a->dir);
    atomic_release(a);
    return LENS_OK;
}

void lens_atomic_abort(struct lens_atomic *a)
{
    if (!a)
        return;
    if (a->fp)
        fclose(a->fp);
    a->fp = NULL;
    if (a->inplace)
        remove_temps(a->dir ? a->tmp : NULL, a->dir);
    else
        remove_temps(a->tmp && a->tmp[0] ? a->tmp : NULL, a->dir);
    atomic_release(a);
}

/* errno is read first: lens_err_set and abort below may change it. */
int lens_atomic_fail(struct lens_atomic *a, int rc, struct lens_err *e)
{
    int err = a->sink && ((struct sink *)a->sink)->err ? ((struct sink *)a->sink)->err : errno;
    char show[4096];
    if (a->fp && ferror(a->fp))
        rc = lens_err_set(e, LENS_EIO, "%s: write failed: %s", shown(a->path, show, sizeof show),
                          strerror(err ? err : EIO));
    else if (rc == LENS_OK)
        rc = lens_err_set(e, LENS_EIO, "%s: write failed", a->path ? a->path : "output");
    lens_atomic_abort(a);
    return rc;
}

void lens_atomic_group_begin(void) { group_depth++; }

void lens_atomic_group_abort(void)
{
    for (size_t i = 0; i < group_n; i++) {
        if (!group[i].tmp)
            continue; /* renamed by a group commit: in place, not ours to remove */
        if (group[i].isdir)
            remove_tree(group[i].tmp);
        else
            remove_temps(group[i].tmp, group[i].dir);
    }
    group_clear();
    if (group_depth > 0)
        group_depth--;
}

int lens_atomic_group_commit(struct lens_err *e)
{
    if (group_depth > 1) {
        group_depth--;
        return LENS_OK;
    }
    /* Files are renamed before folders because a file may live inside a folder made by
     * lens_atomic_dir; renaming the folder first would leave the file's temporary path stale. */
    size_t done = 0;
    int err = 0;
    const char *bad = NULL;
    for (int pass = 0; pass < 2 && !err; pass++)
        for (size_t i = 0; i < group_n && !err; i++) {
            struct pending *q = &group[i];
            if (q->isdir != pass)
                continue;
            if (rename(q->tmp, q->path) != 0) {
                err = errno;
                bad = q->path;
                break;
            }
            lens_free(q->tmp);
            q->tmp = NULL; /* renamed: q->path is now this run's */
            remove_temps(NULL, q->dir);
            done++;
        }
    int rc = LENS_OK;
    if (err) {
        rc = lens_err_set(e, LENS_EIO, "%s: cannot rename temporary file: %s", bad, strerror(err));
        /* Whole or not at all: take back the parts already in place. */
        for (size_t i = 0; i < group_n; i++) {
            struct pending *q = &group[i];
            if (q->tmp)
                continue;
            if (q->isdir)
                remove_tree(q->path);
            else
                (void)unlink(q->path);
        }
    }
    /* group_abort decrements the depth and removes every temporary that was not renamed: on success
     * that is only the private directories' leftovers, on failure the rest of the group. */
    group_depth = group_depth > 0 ? group_depth : 1;
    lens_atomic_group_abort(); /* removes what is left under temporary names */
    (void)done;
    return rc;
}

const char *lens_atomic_group_find(const char *path)
{
    /* Newest first: a command that wrote the same path twice reads its last content. */
    for (size_t i = group_n; i-- > 0;)
        if (group[i].tmp && !strcmp(group[i].path, path))
            return group[i].tmp;
    return NULL;
}

int lens_atomic_group_suspend(void)
{
    int d = group_depth;
    group_depth = 0;
    return d;
}

void lens_atomic_group_resume(int depth) { group_depth = depth; }

int lens_atomic_dir(const char *dir, char **where, struct lens_err *e)
{
    *where = NULL;
    struct stat st;
    /* Outside a group, or when the folder (or anything under that name) already exists, there is
     * nothing to build aside: files inside it go through the group one by one. */
    if (group_depth == 0 || lstat(dir, &st) == 0) {
        int rc = lens_atomic_mkdir_p(dir, e);
        if (rc == LENS_OK && !(*where = lens_strdup(dir)))
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", dir);
        return rc;
    }
    /* Three copies of dir: the parent to create, the final name the group will rename to, and
     * the temporary folder's name (".tmpXXXXXX" and the NUL fit in the 16 extra bytes). */
    char *parent = lens_strdup(dir), *path = lens_strdup(dir), *tmp = lens_malloc(strlen(dir) + 16);
    int rc = parent && path && tmp ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", dir);
    /* "figs/" names the folder figs */
    for (size_t l = rc == LENS_OK ? strlen(path) : 0; l > 1 && path[l - 1] == '/'; l--)
        path[l - 1] = parent[l - 1] = '\0';
    char *slash = parent ? strrchr(parent, '/') : NULL;
    if (rc == LENS_OK && slash && slash != parent) {
        *slash = '\0';
        rc = lens_atomic_mkdir_p(parent, e);
    }
    if (rc == LENS_OK) {
        /* Beside the final folder, so the group's rename stays on one file system. */
        snprintf(tmp, strlen(dir) + 16, "%s.tmpXXXXXX", path);
        if (!mkdtemp(tmp))
            rc = lens_err_set(e, LENS_EIO, "%s: cannot create directory: %s", dir, strerror(errno));
    }
    if (rc == LENS_OK) {
        /* mkdtemp's 0700 kept others out while nothing was in it; the result gets the
         * permissions of a folder made by mkdir. */
        mode_t mask = umask(022);
        umask(mask);
        (void)chmod(tmp, 0777 & ~mask);
        *where = lens_strdup(tmp);
        if (!*where || group_push(path, tmp, NULL, 1) != LENS_OK) {
            rmdir(tmp);
            lens_free(*where);
            *where = NULL;
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", dir);
        } else {
            path = tmp = NULL;
        }
    }
    lens_free(parent);
    lens_free(path);
    lens_free(tmp);
    return rc;
}

int lens_atomic_mkdir_p(const char *path, struct lens_err *e)
{
    char *p = lens_strdup(path);
    if (!p)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    /* Each prefix of the path in turn ("a", "a/b", "a/b/c"); starting at p + 1 keeps a leading '/'
     * from being cut into an empty name. EEXIST is fine: a prefix that is a file makes the next
     * mkdir fail (ENOTDIR), and the stat below catches the last one. */
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int err = errno;
                lens_free(p);
                return lens_err_set(e, LENS_EIO, "%s: cannot create directory: %s", path, strerror(err));
            }
            *s = c;
            if (c == '\0')
                break;
        }
    }
    lens_free(p);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return lens_err_set(e, LENS_EIO, "%s: not a directory", path);
    return LENS_OK;
}
