/* Errors shared by every stage (bench, analysis, render).
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

/* Nearly every function that can fail also allocates: the allocator comes with the errors. */
#include "common/alloc.h"

#endif
