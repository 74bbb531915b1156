/* The one document driver of the PDF reports (report.c, problems_report.c, stages_report.c,
 * scale_report.c, profile_report.c). A document kind declares its sections; each section
 * declares which kind of input it is about (a cube, a p2p sweep, a trace, an application's
 * runs, or none: the whole document). The driver reads the template, checks that every section
 * it lists is known and sits where its input kind says, opens the PDF, draws the sections in
 * template order (a "repeat inputs" group once per input of its sections' kind, in input
 * order), adds the footer and the document information, and saves through a temporary file
 * and rename, so a failure leaves nothing. Adding a section to a report is one template
 * section, one row in the kind's table and its functions (docs/design.md). */
#ifndef LENS_DOCUMENT_H
#define LENS_DOCUMENT_H

#include <stddef.h>

#include "common/err.h"
#include "common/time.h"
#include "pdf.h"
#include "template.h"

/* What a section is about. */
enum lens_doc_input {
    LENS_DOC_NONE = 0, /* the whole document: drawn once, outside "repeat inputs" */
    LENS_DOC_CUBE,     /* a latency cube: inside "repeat inputs", once per cube */
    LENS_DOC_SWEEP,    /* a point-to-point sweep */
    LENS_DOC_TRACE,    /* an analysed trace */
    LENS_DOC_RUNS,     /* the runs grid of one application */
    LENS_DOC_BISECTION, /* a bisection bandwidth run (mpilens-bench -t bisection) */
    LENS_DOC_NINPUTS
};

/* "cube", "p2p", "trace", "runs", "bisection" or "document": the word the error messages use. */
const char *lens_doc_input_name(int input);

/* One row of a kind's section table. The functions receive the report's own context; vars
 * sets the section's placeholders before its items are drawn, table fills the rows of a
 * "table" item, block draws a "block" item (NULL: the section has none; an item whose name a
 * function does not know is lens_template_unknown_item). */
struct lens_doc_section {
    const char *name; /* the name after "section" in the template */
    int input;        /* enum lens_doc_input */
    int (*vars)(void *ctx, struct lens_err *e);
    int (*table)(void *ctx, const struct lens_template_item *it, struct lens_err *e);
    int (*block)(void *ctx, const struct lens_template_item *it, struct lens_err *e);
};

/* A kind of document: its default template, the PDF subject and its sections. */
struct lens_doc_kind {
    const char *template_name; /* under <datadir>/templates/, e.g. "report.tmpl" */
    const char *subject;       /* the PDF's Subject entry */
    const struct lens_doc_section *sections;
    int nsections;
    /* Placeholders of the current input, called before each repetition of a "repeat inputs"
     * group (the report's current-input field already set); NULL: none. */
    int (*input_vars)(void *ctx, struct lens_err *e);
    /* Whether section `name` is drawn for the current input (1) or left out whole, headings
     * included (0): a cube that fails the data-quality gate has no structure pages. NULL: every
     * section is drawn. */
    int (*shown)(void *ctx, const char *name);
    /* The running header of the pages drawn next (lens_pdf_set_header): asked once before the
     * document's first page (current input -1) and again as each input's group starts, so
     * every page names the input it is about. NULL, or a NULL answer: no header. The text is
     * the report's, read before the next call. */
    const char *(*header)(void *ctx);
};

/* The section of k called name, or NULL. */
const struct lens_doc_section *lens_doc_find(const struct lens_doc_kind *k, const char *name);

/* One document to write. The sections keep reading the template, the section being drawn, the
 * PDF, the placeholders and the current input from the report's own context: the driver fills
 * those fields through the pointers below (t, sec, pdf, vars required; cur may be NULL when
 * the kind has no per-input section). */
struct lens_doc {
    const struct lens_doc_kind *kind;
    const char *datadir;       /* holds fonts/ and templates/; NULL: "." */
    const char *template_path; /* NULL: <datadir>/templates/<kind->template_name> */
    long long date;            /* Unix seconds stored in the PDF (lens_time_source_date()) */
    const int *inputs;         /* enum lens_doc_input of each input, in the order given */
    int ninputs;
    int every;                 /* with inputs NULL: the kind of every one of the ninputs */
    void *ctx;                 /* handed to every section function */
    /* The report's own set-up once the template is checked and before the PDF is opened
     * (figure folder, texts, document placeholders); NULL: none. */
    int (*prepare)(void *ctx, struct lens_err *e);
    const struct lens_template **t;       /* set after loading, NULL again once freed */
    const struct lens_template_section **sec; /* the section being drawn */
    struct lens_pdf **pdf;                /* set while the document is open, NULL after */
    struct lens_template_vars *vars;          /* initialised here and released at the end */
    int *cur;                             /* index into inputs of the current input, -1 outside */
    char *font_path;                      /* receives <datadir>/fonts/DejaVuSans.ttf */
    size_t font_path_size;
};

/* Loads the template of a document (template_path, else <datadir>/templates/<k->template_name>,
 * datadir NULL meaning ".") and checks its sections as lens_doc_write does, which uses it:
 * a report can see what the template shows before it computes the results. *out is the
 * caller's (lens_template_free), NULL on error. Errors: the LENS_EFORMAT, LENS_EIO and
 * LENS_ENOMEM of lens_doc_write's template checks. */
int lens_doc_template(const struct lens_doc_kind *k, const char *datadir, const char *template_path,
                      struct lens_template **out, struct lens_err *e);

/* Writes the document to path (NULL: lays it out in memory and saves nothing). Errors name the file: LENS_EFORMAT "path:line" for a template
 * that does not parse, names an unknown section (the known ones listed), puts a per-input
 * section outside "repeat inputs", a document section inside one, or sections about different
 * kinds of input in one group; LENS_EIO, LENS_ELIB, LENS_ENOMEM; or what a section returns. */
int lens_doc_write(const struct lens_doc *d, const char *path, struct lens_err *e);

/* ---- the rest of the document wing (the PDF reports) ----
 * This header is the public contract of its folder: code outside the folder includes
 * this header and no other header of the folder (tests/test_layout.sh checks it). */
#include "report.h" /* the cube and sweep report */
#include "problems_report.h" /* the trace problems report */
#include "profile_report.h" /* the profiles report */
#include "scale_report.h" /* the scalability report */
#include "compare_report.h" /* the comparison of two runs (mpilens compare -o) */
#include "stages_report.h" /* a task runtime's stage log, and two side by side (mpilens stages -o) */

#endif
