/* Errors, allocation and atomic output shared by every stage (bench, analysis, render).
 * Every function that can fail returns LENS_OK or a negative LENS_E* code and fills a
 * caller-owned struct lens_err through lens_err_set(); nothing here prints or exits. */
#ifndef LENS_ERR_H
#define LENS_ERR_H

#include <stddef.h>
#include <stdio.h>

#define LENS_VERSION "0.1.0"

enum {
    LENS_OK = 0,
    LENS_EINVAL = -1,  /* bad argument or option value */
    LENS_ENOMEM = -2,  /* allocation failed */
    LENS_EIO = -3,     /* open/read/write/rename failed */
    LENS_EFORMAT = -4, /* file exists but is not what we expect */
    LENS_EDATA = -5,   /* values unusable (NaN everywhere, inconsistent files) */
    LENS_EUSAGE = -6,  /* command-line misuse: exit status 2 */
    LENS_ELIB = -7     /* a library (cairo, libharu, GSL, MPI) reported an error */
};

struct lens_err {
    int code;           /* LENS_OK when nothing failed */
    char msg[1024];     /* "file: what went wrong", lowercase, no final full stop */
    const char *where;  /* source file of the lens_err_set call, for debugging */
    int line;           /* source line of the lens_err_set call */
};

/* The one place where errors are recorded: a breakpoint here catches every failure.
 * Returns code so callers can write `return lens_err_set(e, LENS_EIO, ...)`.
 * e may be NULL (the message is dropped). */
int lens_err_set_at(struct lens_err *e, int code, const char *where, int line,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
#define lens_err_set(e, code, ...) lens_err_set_at((e), (code), __FILE__, __LINE__, __VA_ARGS__)
void lens_err_clear(struct lens_err *e);
/* Prefix an existing message with "ctx: " (used to add a file name on the way up). */
int lens_err_prefix(struct lens_err *e, const char *ctx);

/* Allocation through one hook so tests can inject failures (hiredis/Lua style).
 * lens_malloc_fail_after(n): the n-th allocation from now fails (n >= 1); 0 disables. */
void *lens_malloc(size_t n);
void *lens_calloc(size_t count, size_t size);
void *lens_realloc(void *p, size_t n);
char *lens_strdup(const char *s);
void lens_free(void *p);
void lens_malloc_fail_after(long n);
long lens_malloc_count(void); /* allocations made since start, for fault-injection loops */

/* Grows the array *p of elements of size `size` so that *capacity >= need, doubling;
 * LENS_ENOMEM (and *p untouched) on failure. */
int lens_reserve(void **p, size_t *capacity, size_t need, size_t size);

/* Atomic output: write to "<path>.tmp.<pid>" then rename over path on commit, so a failure
 * never leaves a half-written file. The struct owns tmp and the open FILE until commit/abort. */
struct lens_atomic {
    char *path; /* final name (owned copy) */
    char *tmp;  /* temporary name in the same directory (owned) */
    FILE *fp;   /* open on tmp in write mode, NULL when the writer is a library */
};
/* Opens tmp with fopen(mode) unless mode is NULL (then only the names are set, for libraries
 * such as cairo or libharu that write by file name). */
int lens_atomic_open(struct lens_atomic *a, const char *path, const char *mode, struct lens_err *e);
/* Flushes, fsyncs, closes and renames; on failure removes tmp. Always releases a. */
int lens_atomic_commit(struct lens_atomic *a, struct lens_err *e);
/* Removes tmp and releases a; safe on a zeroed or already released struct. */
void lens_atomic_abort(struct lens_atomic *a);

/* Seconds on a monotonic clock. */
double lens_now(void);
/* SOURCE_DATE_EPOCH when set and valid, else the current time: keeps outputs reproducible. */
long long lens_source_date(void);
/* Formats t (UTC) as "YYYY-MM-DD HH:MM:SS UTC" into buf. */
void lens_format_date(long long t, char *buf, size_t n);

/* A duration in seconds for people: "352 ns", "1.93 us", "4.10 ms", "n/a" if not finite. */
void lens_format_duration(double s, char *buf, size_t n);

/* Makes a directory and its parents; an existing directory is fine. */
int lens_mkdir_p(const char *path, struct lens_err *e);

#endif
