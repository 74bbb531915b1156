/* Errors, allocation with fault injection, atomic file output and clocks.
 * This file is compiled into every program (serial tool, benchmark, trace library). */
#define _POSIX_C_SOURCE 200809L
#include "err.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int lens_err_set_at(struct lens_err *e, int code, const char *where, int line, const char *fmt, ...)
{
    if (!e)
        return code;
    e->code = code;
    e->where = where;
    e->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

void lens_err_clear(struct lens_err *e)
{
    if (!e)
        return;
    e->code = LENS_OK;
    e->msg[0] = '\0';
    e->where = NULL;
    e->line = 0;
}

int lens_err_prefix(struct lens_err *e, const char *ctx)
{
    if (!e || !ctx)
        return e ? e->code : LENS_OK;
    char tmp[sizeof e->msg];
    size_t n = strlen(ctx);
    if (n > sizeof tmp / 2)
        n = sizeof tmp / 2;
    memcpy(tmp, ctx, n);
    tmp[n++] = ':';
    tmp[n++] = ' ';
    size_t m = strnlen(e->msg, sizeof e->msg);
    if (m > sizeof tmp - n - 1)
        m = sizeof tmp - n - 1;
    memcpy(tmp + n, e->msg, m);
    tmp[n + m] = '\0';
    memcpy(e->msg, tmp, sizeof tmp);
    return e->code;
}

/* Countdown for injected failures; 0 means never fail. Not thread-safe by design: fault
 * injection runs in single-threaded tests only. */
static long fail_countdown;
static long alloc_count;

void lens_malloc_fail_after(long n) { fail_countdown = n > 0 ? n : 0; }
long lens_malloc_count(void) { return alloc_count; }

static int inject_failure(void)
{
    alloc_count++;
    if (fail_countdown > 0 && --fail_countdown == 0)
        return 1;
    return 0;
}

void *lens_malloc(size_t n)
{
    if (inject_failure())
        return NULL;
    return malloc(n ? n : 1);
}

void *lens_calloc(size_t count, size_t size)
{
    if (inject_failure())
        return NULL;
    if (count == 0 || size == 0)
        count = size = 1;
    return calloc(count, size);
}

void *lens_realloc(void *p, size_t n)
{
    if (inject_failure())
        return NULL;
    return realloc(p, n ? n : 1);
}

char *lens_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = lens_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void lens_free(void *p) { free(p); }

int lens_reserve(void **p, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity)
        return LENS_OK;
    size_t cap = *capacity ? *capacity : 64;
    while (cap < need)
        cap *= 2;
    void *q = lens_realloc(*p, cap * size);
    if (!q)
        return LENS_ENOMEM;
    *p = q;
    *capacity = cap;
    return LENS_OK;
}

int lens_atomic_open(struct lens_atomic *a, const char *path, const char *mode, struct lens_err *e)
{
    memset(a, 0, sizeof *a);
    size_t n = strlen(path) + 40;
    a->path = lens_strdup(path);
    a->tmp = lens_malloc(n);
    if (!a->path || !a->tmp) {
        lens_atomic_abort(a);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    /* Keep the extension last: cairo and libharu do not care, but people opening a
     * leftover temporary file do. */
    snprintf(a->tmp, n, "%s.tmp%ld", path, (long)getpid());
    if (mode) {
        a->fp = fopen(a->tmp, mode);
        if (!a->fp) {
            int err = errno;
            lens_atomic_abort(a);
            return lens_err_set(e, LENS_EIO, "%s: cannot create: %s", path, strerror(err));
        }
    }
    return LENS_OK;
}

static void atomic_release(struct lens_atomic *a)
{
    lens_free(a->path);
    lens_free(a->tmp);
    a->path = a->tmp = NULL;
    a->fp = NULL;
}

int lens_atomic_commit(struct lens_atomic *a, struct lens_err *e)
{
    int rc = LENS_OK;
    if (a->fp) {
        int bad = fflush(a->fp) != 0 || ferror(a->fp);
        if (!bad)
            (void)fsync(fileno(a->fp));
        if (fclose(a->fp) != 0)
            bad = 1;
        a->fp = NULL;
        if (bad) {
            rc = lens_err_set(e, LENS_EIO, "%s: write failed: %s", a->path, strerror(errno));
            lens_atomic_abort(a);
            return rc;
        }
    }
    if (rename(a->tmp, a->path) != 0) {
        rc = lens_err_set(e, LENS_EIO, "%s: cannot rename temporary file: %s", a->path, strerror(errno));
        lens_atomic_abort(a);
        return rc;
    }
    atomic_release(a);
    return rc;
}

void lens_atomic_abort(struct lens_atomic *a)
{
    if (!a)
        return;
    if (a->fp)
        fclose(a->fp);
    if (a->tmp)
        (void)unlink(a->tmp);
    atomic_release(a);
}

double lens_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long long lens_source_date(void)
{
    const char *s = getenv("SOURCE_DATE_EPOCH");
    if (s && *s) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno == 0 && end && *end == '\0' && v >= 0)
            return v;
    }
    return (long long)time(NULL);
}

void lens_format_date(long long t, char *buf, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void lens_format_duration(double s, char *buf, size_t n)
{
    if (!isfinite(s))
        snprintf(buf, n, "n/a");
    else if (s < 1e-6)
        snprintf(buf, n, "%.0f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, n, "%.2f us", s * 1e6);
    else
        snprintf(buf, n, "%.2f ms", s * 1e3);
}

int lens_mkdir_p(const char *path, struct lens_err *e)
{
    char *p = lens_strdup(path);
    if (!p)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
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
