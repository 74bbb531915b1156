/* Locating mpilens's data and helper files relative to the running executable (see datadir.h):
 * one build tree or installed prefix, found without environment variables, and an error that
 * lists every place looked in. */
#include "datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef LENS_DATADIR
#define LENS_DATADIR "/usr/local/share/mpilens"
#endif
#ifndef LENS_PKGLIBDIR
#define LENS_PKGLIBDIR "/usr/local/lib/mpilens"
#endif

/* At most three candidates per lookup: build tree, installed prefix, compile-time default. */
#define MAX_TRIED 3

/* The candidates of one lookup, kept for the error message. */
struct tried {
    char path[MAX_TRIED][PATH_MAX];
    int n;
};

/* The directory of the running executable into buf; 0, or -1 when /proc is not mounted. */
static int exe_dir(char *buf, size_t n)
{
    char exe[PATH_MAX];
    /* /proc/self/exe, not argv[0]: argv[0] may be a bare name found through PATH, or anything
     * the caller chose. readlink does not terminate the string, hence the - 1 and the NUL below. */
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k <= 0)
        return -1;
    exe[k] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    int w = snprintf(buf, n, "%s", exe);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* Appends the candidate fmt(a, b); one too long for a path is no candidate. */
static void add(struct tried *t, const char *fmt, const char *a, const char *b)
{
    if (t->n == MAX_TRIED)
        return;
    /* A truncated path would name some other file: it is dropped rather than tried. */
    int w = snprintf(t->path[t->n], PATH_MAX, fmt, a, b);
    if (w > 0 && w < PATH_MAX)
        t->n++;
}

/* Writes the resolved t->path[i] into buf. */
static int found(const struct tried *t, int i, char *buf, size_t n, struct lens_err *e)
{
    char real[PATH_MAX];
    /* Resolved so that the "../.." of the build-tree candidate never shows in messages or in the
     * paths handed on to other programs. */
    const char *p = realpath(t->path[i], real) ? real : t->path[i];
    int w = snprintf(buf, n, "%s", p);
    if (w < 0 || (size_t)w >= n)
        return lens_err_set(e, LENS_EINVAL, "%s: path longer than %zu bytes", p, n);
    return LENS_OK;
}

/* "A, B, C" of the candidates, for the error message. */
static void list(const struct tried *t, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < t->n && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", t->path[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* A directory counts only when it holds both a font and a template: an unrelated share/mpilens
 * or a half-installed prefix is passed over rather than failing later. */
static int datadir_ok(const char *dir)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/fonts/DejaVuSans.ttf", dir);
    if (access(p, R_OK) != 0)
        return 0;
    snprintf(p, sizeof p, "%s/templates/report.tmpl", dir);
    return access(p, R_OK) == 0;
}

int lens_datadir_find(char *buf, size_t n, struct lens_err *e)
{
    const char *env = getenv("MPILENS_DATADIR");
    if (env && *env) {
        /* an explicit choice that is wrong is an error, never a silent fall-back */
        if (!datadir_ok(env))
            return lens_err_set(e, LENS_EIO, "MPILENS_DATADIR=%s: no fonts/DejaVuSans.ttf or "
                                "templates/report.tmpl there", env);
        struct tried t = {.n = 0};
        /* Through the candidate list like the other lookups, so the same length check and
         * realpath apply to the environment's value. */
        add(&t, "%s%s", env, "");
        if (t.n == 0)
            return lens_err_set(e, LENS_EINVAL, "MPILENS_DATADIR: path too long");
        return found(&t, 0, buf, n, e);
    }
    struct tried t = {.n = 0};
    char dir[PATH_MAX];
    if (exe_dir(dir, sizeof dir) == 0) {
        add(&t, "%s%s", dir, "/../..");             /* BUILD/bin/mpilens in the source tree */
        add(&t, "%s%s", dir, "/../share/mpilens");  /* PREFIX/bin/mpilens */
    }
    add(&t, "%s%s", LENS_DATADIR, "");
    /* First match wins, in the order above: a build tree is preferred to an installed copy so
     * that developers run their own templates. */
    for (int i = 0; i < t.n; i++)
        if (datadir_ok(t.path[i]))
            return found(&t, i, buf, n, e);
    char where[3 * PATH_MAX];
    list(&t, where, sizeof where);
    return lens_err_set(e, LENS_EIO, "cannot find fonts/ and templates/ (looked in %s); set "
                        "MPILENS_DATADIR", where);
}

int lens_datadir_locate(const char *rel, char *buf, size_t n, struct lens_err *e)
{
    char dir[PATH_MAX];
    int rc = lens_datadir_find(dir, sizeof dir, e);
    if (rc != LENS_OK)
        return rc;
    struct tried t = {.n = 0};
    add(&t, "%s/%s", dir, rel);
    if (t.n == 0)
        return lens_err_set(e, LENS_EINVAL, "%s/%s: path too long", dir, rel);
    /* Checked here so the error names the missing file, not whatever later fails to open it. */
    if (access(t.path[0], F_OK) != 0)
        return lens_err_set(e, LENS_EIO, "%s: not found in the data directory", t.path[0]);
    return found(&t, 0, buf, n, e);
}

int lens_datadir_find_lib(const char *name, char *buf, size_t n, struct lens_err *e)
{
    struct tried t = {.n = 0};
    char dir[PATH_MAX];
    if (exe_dir(dir, sizeof dir) == 0) {
        add(&t, "%s/../lib/%s", dir, name);        /* BUILD/lib beside BUILD/bin */
        add(&t, "%s/../lib/mpilens/%s", dir, name); /* PREFIX/lib/mpilens */
    }
    add(&t, "%s/%s", LENS_PKGLIBDIR, name);
    /* Existence only (F_OK): the helper is executed or preloaded by others, who report their own
     * permission errors. */
    for (int i = 0; i < t.n; i++)
        if (access(t.path[i], F_OK) == 0)
            return found(&t, i, buf, n, e);
    char where[3 * PATH_MAX];
    list(&t, where, sizeof where);
    return lens_err_set(e, LENS_EIO, "cannot find %s (looked in %s)", name, where);
}
