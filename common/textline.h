/* Reading text files line by line with a cap on the line length, for every text parser of
 * mpilens: getline() would read a line of any length into memory and fgets() into a fixed
 * buffer splits long lines silently; this reader refuses a line longer than the cap after
 * reading at most cap + 1 bytes of it. Nothing here prints; the caller names file and line. */
#ifndef LENS_TEXTLINE_H
#define LENS_TEXTLINE_H

#include <stddef.h>
#include <stdio.h>

/* Line length caps (bytes, the newline not counted) of the readers, documented in
 * docs/problems.md ("Limits of the text readers"). */
#define LENS_TEXTLINE_MAX ((size_t)1 << 20) /* 1 MiB: CSV rows, stage-log records */

enum {
    LENS_TEXTLINE_OK = 1,      /* a line was read */
    LENS_TEXTLINE_EOF = 0,     /* end of file, nothing read */
    LENS_TEXTLINE_LONG = -1,   /* the line is longer than max bytes */
    LENS_TEXTLINE_NUL = -2,    /* the line holds a NUL byte: not a text file */
    LENS_TEXTLINE_NOMEM = -3,  /* the buffer could not grow */
    LENS_TEXTLINE_IOERR = -4   /* the stream reported a read error */
};

/* A reusable line buffer; zero it before the first call, lens_textline_release() after. */
struct lens_textline {
    char *s;      /* the line, NUL-terminated, with its '\n' when it had one */
    size_t len;   /* bytes in s, the newline included */
    size_t cap;   /* bytes allocated */
};

/* Reads the next line of fp into l (at most max bytes before the newline). Returns one of
 * the LENS_TEXTLINE_* codes; after LENS_TEXTLINE_LONG the rest of the file is unread. */
int lens_textline_read(FILE *fp, struct lens_textline *l, size_t max);
void lens_textline_release(struct lens_textline *l);

struct lens_err;
/* Turns a failed lens_textline_read result `got` (not OK, not EOF) into the error every text
 * reader gives: "PATH:LINE[:COL]: line longer than MAX bytes", "... NUL byte in a text line",
 * "... read error: <errno text>" or "PATH: out of memory". col 0 leaves the column out (readers
 * that report columns, such as the runs CSV, pass 1). Returns the negative LENS_E* code. */
int lens_textline_fail(int got, const char *path, long line, int col, size_t max, struct lens_err *e);

#endif
