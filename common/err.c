/* Errors: lens_err_set_at is the one place a failure is recorded (a breakpoint there catches
 * every error). Compiled into every program (serial tool, benchmark, trace library). */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int lens_err_set_at(struct lens_err *e, int code, const char *where, int line, const char *fmt, ...)
{
    /* A NULL e is allowed for callers that only need the code (probing, cleanup paths). */
    if (!e)
        return code;
    e->code = code;
    e->where = where;
    e->line = line;
    va_list ap;
    va_start(ap, fmt);
    /* Truncates at 1023 bytes rather than failing: an error path must not need memory. */
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return code;
}

/* Resets e for reuse, e.g. after a keep_going caller has reported a failed part. */
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
    /* The context takes at most half the buffer, so a long path cannot push the original message
     * (the part that says what went wrong) out entirely; the rest is cut to fit. Built in a
     * copy: the message moves right by the context's length, and ctx may even point into e->msg. */
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
