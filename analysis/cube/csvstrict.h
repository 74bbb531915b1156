/* Internal to the cube wing: the strict CSV reading shared by the readers of mpilens-bench's
 * side files (retest.c, bisection.c). The bench writes a fixed header and plain numbers, so
 * anything else is damage and is refused at FILE:LINE:COLUMN. Nothing prints. */
#ifndef LENS_CSVSTRICT_H
#define LENS_CSVSTRICT_H

#include "common/err.h"

#include <stddef.h>

/* One row being read: the fields point into the caller's line, which split modifies. */
struct lens_csvstrict {
    const char *path;  /* for messages */
    long line;         /* 1-based line number */
    int nf;            /* fields found by lens_csvstrict_split */
    char *field[16];   /* at most 16 fields are kept; more are counted */
    int col[16];       /* 1-based character column where each field starts */
};

/* Splits line at commas into r->field (no quoting: the bench writes none). Returns the count,
 * which may exceed 16 (then only the first 16 are kept). */
int lens_csvstrict_split(struct lens_csvstrict *r, char *line);
/* Field f must be a whole decimal integer in [lo, hi]. LENS_EFORMAT naming path:line:col and
 * the column's name otherwise. */
int lens_csvstrict_int(const struct lens_csvstrict *r, int f, const char *name, long long lo,
                       long long hi, long long *v, struct lens_err *e);
/* Field f must be a whole number (strtod syntax, "nan" accepted when allow_nan); infinities
 * are refused. LENS_EFORMAT as above. */
int lens_csvstrict_double(const struct lens_csvstrict *r, int f, const char *name, int allow_nan,
                          double *v, struct lens_err *e);
/* Reads path line by line (common/textline.h), checks the first line equals header exactly
 * and calls row(arg, r, e) for every other non-empty line with r split into the header's
 * field count. LENS_EIO (cannot open / read), LENS_EFORMAT (header, field count, a line too
 * long or holding NUL), LENS_EDATA (no row), LENS_ENOMEM, or what row returns. */
int lens_csvstrict_read(const char *path, const char *header, int nfields,
                        int (*row)(void *arg, const struct lens_csvstrict *r, struct lens_err *e),
                        void *arg, struct lens_err *e);
/* lens_csvstrict_read for a file that may open with comment lines ("#..."): each one before
 * the header is handed to comment(arg, r, text after the '#', e) with r->line set; the header
 * is then the first other line. A '#' line after the header is a row like any other (and so
 * refused by its field count). Errors as lens_csvstrict_read, or what comment returns. */
int lens_csvstrict_read_commented(const char *path, const char *header, int nfields,
                                  int (*comment)(void *arg, const struct lens_csvstrict *r, const char *text,
                                                 struct lens_err *e),
                                  int (*row)(void *arg, const struct lens_csvstrict *r, struct lens_err *e),
                                  void *arg, struct lens_err *e);

#endif
