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
    while ((c = getc_unlocked(fp)) != EOF) {
        /* room for this byte and the final NUL */
        if (l->len + 2 > l->cap) {
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
        nul |= c == '\0';
        if (l->len > max) {
            l->s[l->len] = '\0';
            return LENS_TEXTLINE_LONG;
        }
    }
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
