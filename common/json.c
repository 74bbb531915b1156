/* Streaming JSON writer (json.h): commas, escaping and number formatting in one place, so every
 * --json output agrees and the same values always give the same bytes. Writes straight to the
 * caller's FILE: no document is built in memory. */
#include "json.h"

#include <math.h>
#include <stdlib.h>

void lens_json_init(struct lens_json *j, FILE *fp)
{
    j->fp = fp;
    j->depth = 0;
    /* Depth 0 is the top level: a document written there starts without a comma. */
    j->first[0] = 1;
    j->after_key = 0;
}

/* Before every value or key: a comma unless it is the first element at this depth. A value right
 * after its key takes no comma (the key already placed it). */
static void separate(struct lens_json *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (!j->first[j->depth])
        fputc(',', j->fp);
    j->first[j->depth] = 0;
}

/* Depth beyond 63 is not tracked (commas would then be wrong): no output nests that deep. */
static void open_(struct lens_json *j, char c)
{
    separate(j);
    fputc(c, j->fp);
    if (j->depth < (int)sizeof j->first - 1)
        j->depth++;
    j->first[j->depth] = 1;
}

/* A newline after each top-level value, so a stream of documents is one per line (JSON Lines). */
static void close_(struct lens_json *j, char c)
{
    if (j->depth > 0)
        j->depth--;
    fputc(c, j->fp);
    if (j->depth == 0)
        fputc('\n', j->fp);
}

void lens_json_begin_object(struct lens_json *j) { open_(j, '{'); }
void lens_json_end_object(struct lens_json *j) { close_(j, '}'); }
void lens_json_begin_array(struct lens_json *j) { open_(j, '['); }
void lens_json_end_array(struct lens_json *j) { close_(j, ']'); }

/* The short escapes JSON defines for the common cases (quotes, backslash, newline, carriage
 * return, tab); every other byte below 0x20 as \u00XX. */
void lens_json_escape(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", fp); break;
        case '\\': fputs("\\\\", fp); break;
        case '\n': fputs("\\n", fp); break;
        case '\r': fputs("\\r", fp); break;
        case '\t': fputs("\\t", fp); break;
        default:
            /* The other control characters have no short escape; JSON requires \u form for them.
             * Bytes >= 0x80 pass unchanged: the input is UTF-8 and JSON is UTF-8. */
            if (*p < 0x20)
                fprintf(fp, "\\u%04x", *p);
            else
                fputc(*p, fp);
        }
    }
    fputc('"', fp);
}

void lens_json_key(struct lens_json *j, const char *key)
{
    separate(j);
    lens_json_escape(j->fp, key);
    fputc(':', j->fp);
    j->after_key = 1;
}

void lens_json_string(struct lens_json *j, const char *s)
{
    separate(j);
    if (s)
        lens_json_escape(j->fp, s);
    else
        fputs("null", j->fp);
}

void lens_json_number(struct lens_json *j, double v)
{
    separate(j);
    if (isfinite(v)) {
        /* the shortest of %.15g / %.17g that reads back as the same double */
        char buf[32];
        /* %.15g is exact for every double that came from a decimal of 15 digits (the common
         * case, and shorter to read); %.17g always round-trips. The choice depends only on v, so
         * output is byte-stable across runs. */
        snprintf(buf, sizeof buf, "%.15g", v);
        if (strtod(buf, NULL) != v)
            snprintf(buf, sizeof buf, "%.17g", v);
        fputs(buf, j->fp);
    }
    else
        fputs("null", j->fp);
}

void lens_json_int(struct lens_json *j, long long v)
{
    separate(j);
    fprintf(j->fp, "%lld", v);
}

void lens_json_bool(struct lens_json *j, int v)
{
    separate(j);
    fputs(v ? "true" : "false", j->fp);
}

void lens_json_null(struct lens_json *j)
{
    separate(j);
    fputs("null", j->fp);
}

void lens_json_int_array(struct lens_json *j, const char *key, const int *v, int n)
{
    lens_json_key(j, key);
    lens_json_begin_array(j);
    for (int i = 0; i < n; i++)
        lens_json_int(j, v[i]);
    lens_json_end_array(j);
}
