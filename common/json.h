/* A minimal streaming JSON writer for machine-readable command output (--json). Numbers are
 * printed in the shortest form that reads back exactly (NaN and infinities as null), so the same values give the same bytes.
 * The writer does not own fp. Nesting is tracked only to place commas (64 levels). Nothing
 * here fails: write errors stay in fp (ferror) for the caller's commit to report. */
#ifndef LENS_JSON_H
#define LENS_JSON_H

#include <stdio.h>

struct lens_json {
    FILE *fp;
    int depth;
    unsigned char first[64]; /* per depth: no element written yet */
    int after_key;           /* a key was just written: no comma before the value */
};

void lens_json_init(struct lens_json *j, FILE *fp);
void lens_json_begin_object(struct lens_json *j);
void lens_json_end_object(struct lens_json *j);
void lens_json_begin_array(struct lens_json *j);
void lens_json_end_array(struct lens_json *j);
void lens_json_key(struct lens_json *j, const char *key);
void lens_json_string(struct lens_json *j, const char *s); /* NULL prints null */
void lens_json_number(struct lens_json *j, double v);
void lens_json_int(struct lens_json *j, long long v);
void lens_json_bool(struct lens_json *j, int v);
void lens_json_null(struct lens_json *j);
/* key: [v0, v1, ...], n ints (a list of ranks, lengths): the commands' common array */
void lens_json_int_array(struct lens_json *j, const char *key, const int *v, int n);
/* Writes s as a JSON string literal with escapes (UTF-8 passes through). */
void lens_json_escape(FILE *fp, const char *s);

#endif
