/* Report templates (templates/NAME.tmpl): a line-based description of a report's layout and
 * texts, parsed into sections of items, plus the interpreter that draws a section into a
 * lens_pdf with ${placeholders} expanded. The C side (the reports, through the document
 * driver render/doc/doc.h) only supplies the values, table rows and figures a section names. The format is documented at the top
 * of templates/report.tmpl. */
#ifndef LENS_TEMPLATE_H
#define LENS_TEMPLATE_H

#include "common/err.h"
#include "pdf.h"

/* Bounds of the template reader, each LENS_EFORMAT naming file:line (docs/problems.md,
 * "Limits of the text readers"): bytes of a template file, of one line, of one text with its
 * continuation lines, of a placeholder name. */
#define LENS_TEMPLATE_MAX_FILE ((size_t)1 << 20)
#define LENS_TEMPLATE_MAX_LINE 4095
#define LENS_TEMPLATE_MAX_TEXT ((size_t)64 << 10)
#define LENS_TEMPLATE_MAX_NAME 127

enum lens_template_kind {
    LENS_TMPL_PAGE = 0, /* page: start a new page */
    LENS_TMPL_HEADING,  /* title (level 0), h1..h3 */
    LENS_TMPL_PARA,     /* para TEXT: a wrapped paragraph */
    LENS_TMPL_NOTE,     /* note TEXT: small print (captions, footnotes) */
    LENS_TMPL_FIELD,    /* field LABEL | VALUE: consecutive fields form one two-column table */
    LENS_TMPL_TABLE,    /* table NAME + column lines: rows come from the section renderer */
    LENS_TMPL_BLOCK,    /* block NAME: drawn by the section renderer (figures, lists) */
    LENS_TMPL_SPACE     /* space POINTS */
};

struct lens_template_item {
    int kind;   /* enum lens_template_kind */
    int line;   /* line number in the template file, for messages */
    int level;  /* heading level 0..3 */
    char *name; /* table or block name; field label (may hold placeholders) */
    char *text; /* heading, para, note text or field value, with ${placeholders} */
    double points; /* space */
    int ncols;  /* table columns */
    struct lens_pdf_column cols[LENS_PDF_MAXCOLS]; /* headers are owned strings */
};

struct lens_template_text {
    char *name, *text; /* "text NAME TEXT": strings a renderer asks for by name */
    int line;
};

struct lens_template_section {
    char *name;  /* selects the renderer, e.g. "summary" */
    int line;
    int repeat;  /* 0: drawn once; k > 0: inside the k-th "repeat inputs" group */
    struct lens_template_item *items;
    int nitems;
    struct lens_template_text *texts;
    int ntexts;
};

struct lens_template {
    char *path;   /* file it was read from, for messages */
    char *footer; /* "footer TEXT" (may hold ${page} and ${pages}); NULL if none */
    struct lens_template_section *sections; /* in drawing order */
    int nsections;
};

/* Parses path. Errors name the file and line: LENS_EIO (cannot read), LENS_EFORMAT (unknown
 * keyword, bad column, item outside a section, unbalanced repeat/end), LENS_ENOMEM. */
int lens_template_load(const char *path, struct lens_template **out, struct lens_err *e);
/* Parses a template held in memory; path is only used in messages. */
int lens_template_parse(const char *text, const char *path, struct lens_template **out,
                        struct lens_err *e);
void lens_template_free(struct lens_template *t); /* NULL does nothing */

/* Placeholder values: an owned list of name -> value strings. Setting a name again replaces it. */
struct lens_template_vars {
    char **names, **values;
    int n, cap;
};
void lens_template_vars_init(struct lens_template_vars *v);
void lens_template_vars_release(struct lens_template_vars *v);
int lens_template_vars_set(struct lens_template_vars *v, const char *name, const char *value, struct lens_err *e);
int lens_template_vars_setf(struct lens_template_vars *v, struct lens_err *e, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
const char *lens_template_vars_get(const struct lens_template_vars *v, const char *name); /* NULL if unset */

/* Replaces ${name} by its value and "$$" by "$"; *out is lens_malloc'd. An unknown or
 * unterminated placeholder is LENS_EFORMAT naming "path:line". */
int lens_template_expand(const char *text, const struct lens_template_vars *v, const char *path, int line,
                         char **out, struct lens_err *e);
/* The section's "text NAME" expanded with v; LENS_EFORMAT naming the file if it is missing. */
int lens_template_text(const struct lens_template *t, const struct lens_template_section *s, const char *name,
                       const struct lens_template_vars *v, char **out, struct lens_err *e);
/* The same into the caller's buffer buf of n bytes, cut to fit. */
int lens_template_text_buf(const struct lens_template *t, const struct lens_template_section *s, const char *name,
                           const struct lens_template_vars *v, char *buf, size_t n, struct lens_err *e);

/* What a section renderer supplies: table fills the rows of a "table" item (between the
 * table's begin and end, with lens_pdf_table_row); block draws a "block" item. Either may be
 * NULL when the section has no such items. An unknown name should be a LENS_EFORMAT error. */
struct lens_template_hooks {
    int (*table)(void *ctx, const struct lens_template_item *it, struct lens_pdf *pdf, struct lens_err *e);
    int (*block)(void *ctx, const struct lens_template_item *it, struct lens_pdf *pdf, struct lens_err *e);
};

/* Draws the items of s in order into pdf. */
int lens_template_render(const struct lens_template *t, const struct lens_template_section *s,
                         const struct lens_template_vars *v, const struct lens_template_hooks *h, void *ctx,
                         struct lens_pdf *pdf, struct lens_err *e);

/* "path:line: section 'S' has no table|block 'NAME'" (LENS_EFORMAT), for renderers that do not
 * know an item's name. */
int lens_template_unknown_item(const struct lens_template *t, const struct lens_template_section *s,
                               const struct lens_template_item *it, struct lens_err *e);

#endif
