/* Strict CSV for the files mpilens-bench writes beside its results (csvstrict.h): the header
 * must be the bench's own, every field a whole number, and every refusal names the file, the
 * line and the column, because a hand-edited or truncated file must not turn into a number. */
#include "csvstrict.h"

#include "common/textline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The column of each field is its offset in the line as read (the commas are still there
 * when it is taken), so a message points at the character a person sees in an editor. */
int lens_csvstrict_split(struct lens_csvstrict *r, char *line)
{
    int n = 0;
    char *s = line;
    for (;;) {
        char *c = strchr(s, ',');
        /* fields past the 16th are counted, not stored: the caller refuses the row */
        if (n < 16) {
            r->field[n] = s;
            r->col[n] = (int)(s - line) + 1;
        }
        n++;
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
    }
    r->nf = n;
    return n;
}

int lens_csvstrict_int(const struct lens_csvstrict *r, int f, const char *name, long long lo,
                       long long hi, long long *v, struct lens_err *e)
{
    const char *s = r->field[f];
    char *end;
    /* errno catches an overflow of long long itself; hi the narrower bound of the caller's
     * field (an int), so nothing is truncated on the way into the struct */
    errno = 0;
    *v = strtoll(s, &end, 10);
    /* leading blanks are strtoll's, not the bench's: refused like trailing ones */
    if (end == s || *end || errno || *s == ' ' || *s == '\t' || *v < lo || *v > hi)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: column '%s': '%s' is not an integer in "
                            "[%lld, %lld]", r->path, r->line, r->col[f], name, s, lo, hi);
    return LENS_OK;
}

int lens_csvstrict_double(const struct lens_csvstrict *r, int f, const char *name, int allow_nan,
                          double *v, struct lens_err *e)
{
    const char *s = r->field[f];
    char *end;
    /* "whole number": strtod must use every byte of the field, so "1e-6x" or "1,5" (split
     * into two fields, then a field count error) never reads as a prefix of itself */
    *v = strtod(s, &end);
    /* an infinity is never measured; NaN only where the bench writes it (no value) */
    if (end == s || *end || *s == ' ' || *s == '\t' || isinf(*v) || (isnan(*v) && !allow_nan))
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: column '%s': '%s' is not a %snumber",
                            r->path, r->line, r->col[f], name, s, allow_nan ? "" : "finite ");
    return LENS_OK;
}

int lens_csvstrict_read(const char *path, const char *header, int nfields,
                        int (*row)(void *arg, const struct lens_csvstrict *r, struct lens_err *e),
                        void *arg, struct lens_err *e)
{
    return lens_csvstrict_read_commented(path, header, nfields, NULL, row, arg, e);
}

int lens_csvstrict_read_commented(const char *path, const char *header, int nfields,
                                  int (*comment)(void *arg, const struct lens_csvstrict *r, const char *text,
                                                 struct lens_err *e),
                                  int (*row)(void *arg, const struct lens_csvstrict *r, struct lens_err *e),
                                  void *arg, struct lens_err *e)
{
    /* the line cap of every text reader (textline.h): a bench row is under 200 bytes, so a
     * longer line is a binary or damaged file, refused after at most 1 MiB is read */
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct lens_textline tl = {0};
    struct lens_csvstrict r;
    memset(&r, 0, sizeof r);
    r.path = path;
    int rc = LENS_OK, got, rows = 0, header_seen = 0;
    while (rc == LENS_OK && (got = lens_textline_read(fp, &tl, LENS_TEXTLINE_MAX)) != LENS_TEXTLINE_EOF) {
        r.line++;
        if (got != LENS_TEXTLINE_OK) {
            rc = lens_textline_fail(got, path, r.line, 1, LENS_TEXTLINE_MAX, e);
            break;
        }
        size_t len = tl.len;
        /* a last line without its newline: the file was cut while written */
        int complete = len > 0 && tl.s[len - 1] == '\n';
        /* CRLF (a file passed through Windows) reads like LF; the header compare then works */
        while (len > 0 && (tl.s[len - 1] == '\n' || tl.s[len - 1] == '\r'))
            tl.s[--len] = '\0';
        /* comments only ahead of the header, and only for a reader that takes them: a file
         * without any reads exactly as before */
        if (!header_seen && comment && tl.s[0] == '#') {
            rc = comment(arg, &r, tl.s + 1, e);
            continue;
        }
        if (!header_seen) {
            header_seen = 1;
            /* the exact header: a column renamed or moved would silently shift every value */
            if (strcmp(tl.s, header))
                rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld:1: header is not '%s'", path, r.line, header);
            continue;
        }
        /* blank lines (a trailing one from an editor) carry nothing; the bench writes none */
        if (len == 0)
            continue;
        if (lens_csvstrict_split(&r, tl.s) != nfields) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld:1: %d fields, the header has %d%s", path,
                              r.line, r.nf, nfields, complete ? "" : " (file truncated?)");
            break;
        }
        rc = row(arg, &r, e);
        rows++;
    }
    /* an empty file and a header alone are both "no data", told apart for the person fixing
     * it: the first was never written, the second was cut before its first row */
    if (rc == LENS_OK && !header_seen)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: empty file, expected the header '%s'", path, header);
    else if (rc == LENS_OK && rows == 0)
        rc = lens_err_set(e, LENS_EDATA, "%s: no data rows after the header", path);
    lens_textline_release(&tl);
    fclose(fp);
    return rc;
}
