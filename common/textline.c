/* Bounded line reader (textline.h). getc_unlocked keeps it as fast as getline on the
 * million-row CSV files `make bench` reads, while the cap is checked byte by byte. */
#include "textline.h"

#include "err.h"

#include <errno.h>
#include <string.h>

int lens_textline_read(FILE *fp, struct lens_textline *l, size_t max)
{
    l->len = 0;
    int nul = 0, c;
    /* Byte by byte so that the cap is enforced before memory is spent: a file with no newline at
     * all costs at most max + 2 bytes, never the file's size. */
    while ((c = getc_unlocked(fp)) != EOF) {
        /* room for this byte and the final NUL */
        if (l->len + 2 > l->cap) {
            /* Never beyond max + 2 (max bytes, the newline or the byte that proves the line too
             * long, and the NUL): the check below stops before len can pass max + 1. */
            size_t cap = l->cap ? 2 * l->cap : 256;
            if (cap > max + 2)
                cap = max + 2;
            char *s = lens_realloc(l->s, cap);
            if (!s)
                return LENS_TEXTLINE_NOMEM;
            l->s = s;
            l->cap = cap;
        }
        l->s[l->len++] = (char)c;
        if (c == '\n')
            break;
        /* A NUL would silently cut the line for every string function after us: remember it and
         * refuse the line once it is whole, so the error names the right line. */
        nul |= c == '\0';
        if (l->len > max) {
            l->s[l->len] = '\0';
            return LENS_TEXTLINE_LONG;
        }
    }
    /* A read error is reported even when some bytes came first: a partial last line must not be
     * mistaken for the end of the file. */
    if (ferror(fp))
        return LENS_TEXTLINE_IOERR;
    if (l->len == 0)
        return LENS_TEXTLINE_EOF;
    l->s[l->len] = '\0';
    return nul ? LENS_TEXTLINE_NUL : LENS_TEXTLINE_OK;
}

void lens_textline_release(struct lens_textline *l)
{
    lens_free(l->s);
    l->s = NULL;
    l->len = l->cap = 0;
}

int lens_textline_fail(int got, const char *path, long line, int col, size_t max, struct lens_err *e)
{
    int err = errno; /* of the failed read, before anything else can change it */
    char at[32] = "";
    if (col > 0)
        snprintf(at, sizeof at, ":%d", col);
    /* LENS_TEXTLINE_LONG falls to the default; OK and EOF are no failures and must not reach
     * here. */
    switch (got) {
    case LENS_TEXTLINE_NOMEM:
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    case LENS_TEXTLINE_IOERR:
        return lens_err_set(e, LENS_EIO, "%s:%ld: read error: %s", path, line, strerror(err));
    case LENS_TEXTLINE_NUL:
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld%s: NUL byte in a text line", path, line, at);
    default:
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld%s: line longer than %zu bytes", path, line, at, max);
    }
}
