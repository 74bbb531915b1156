/* The small text helpers the sections of the latency-cube report share (report_ctx.h):
 * appending to a bounded cell, and table headers that vanish with the rows. */
#include "report_ctx.h"

#include <stdio.h>
#include <string.h>

/* Appends s to buf (size n) at *o, cut with "..." when full. */
void lens_report_append(char *buf, size_t n, size_t *o, const char *s)
{
    /* Room for s, "..." and the NUL: a piece that does not fit whole is left out and "..." marks
     * the cut, so a cut list reads as unfinished, never as complete. */
    if (*o + strlen(s) + 4 >= n) {
        if (*o + 4 < n)
            *o += (size_t)snprintf(buf + *o, n - *o, "...");
        return;
    }
    *o += (size_t)snprintf(buf + *o, n - *o, "%s", s);
}

int lens_report_headers(struct lens_report_ctx *r, const char *const *names, int n, int rows, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int i = 0; i < n && rc == LENS_OK; i++) {
        char buf[256] = "";
        /* Without rows every header stays empty, and lens_pdf_table_begin then draws no header row:
         * an empty table vanishes instead of showing bare column names. */
        if (rows)
            rc = lens_report_text(r, names[i], buf, sizeof buf, e);
        if (rc == LENS_OK)
            rc = lens_template_vars_set(&r->vars, names[i], buf, e);
    }
    return rc;
}
