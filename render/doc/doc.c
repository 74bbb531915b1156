/* The document driver (see doc.h): template → check → PDF → footer → sections (with the
 * running header of each input) → save, shared by the four reports. */
#include "doc.h"
#include "render/fig/fig.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

const char *lens_doc_input_name(int input)
{
    /* "p2p" is the word the latency report's template and docs use for a sweep */
    static const char *const names[LENS_DOC_NINPUTS] = {"document", "cube", "p2p", "trace", "runs", "bisection"};
    return input >= 0 && input < LENS_DOC_NINPUTS ? names[input] : "unknown";
}

/* A linear search over about ten rows, called once per section drawn: a table is simpler to extend
 * than any index. */
const struct lens_doc_section *lens_doc_find(const struct lens_doc_kind *k, const char *name)
{
    for (int i = 0; i < k->nsections; i++)
        if (!strcmp(k->sections[i].name, name))
            return &k->sections[i];
    return NULL;
}

/* Every section of t is known and sits where its input kind says; the sections of one
 * "repeat inputs" group are all about the same kind of input, which the group repeats over. */
static int check(const struct lens_doc_kind *k, const struct lens_template *t, struct lens_err *e)
{
    for (int i = 0; i < t->nsections; i++) {
        const struct lens_template_section *s = &t->sections[i];
        const struct lens_doc_section *d = lens_doc_find(k, s->name);
        /* An unknown section lists the known ones: the usual cause is a typo or a template written
         * for another report. */
        if (!d) {
            char known[512];
            size_t o = 0;
            for (int j = 0; j < k->nsections && o < sizeof known; j++)
                o += (size_t)snprintf(known + o, sizeof known - o, "%s%s", j ? ", " : "", k->sections[j].name);
            return lens_err_set(e, LENS_EFORMAT, "%s:%d: unknown section '%s' (known: %s)", t->path, s->line,
                                s->name, known);
        }
        /* A per-input section outside a repeat would have no current input, a document section
         * inside one would be drawn once per input: both are template mistakes, named by line. */
        if (d->input != LENS_DOC_NONE && !s->repeat)
            return lens_err_set(e, LENS_EFORMAT, "%s:%d: section '%s' belongs inside 'repeat inputs'", t->path,
                                s->line, s->name);
        if (d->input == LENS_DOC_NONE && s->repeat)
            return lens_err_set(e, LENS_EFORMAT, "%s:%d: section '%s' cannot sit inside 'repeat inputs'",
                                t->path, s->line, s->name);
    }
    /* a second pass, so that an unknown or misplaced section is named first */
    for (int i = 1; i < t->nsections; i++) {
        const struct lens_template_section *a = &t->sections[i - 1], *s = &t->sections[i];
        const struct lens_doc_section *da = lens_doc_find(k, a->name), *d = lens_doc_find(k, s->name);
        /* A group repeats over the inputs of one kind; a cube section next to a sweep section would
         * be drawn for inputs it cannot read. */
        if (a->repeat && a->repeat == s->repeat && da->input != d->input)
            return lens_err_set(e, LENS_EFORMAT,
                                "%s:%d: section '%s' is about %s inputs, '%s' above it in the same 'repeat inputs' is "
                                "about %s inputs; give each its own repeat",
                                t->path, s->line, s->name, lens_doc_input_name(d->input), a->name,
                                lens_doc_input_name(da->input));
    }
    return LENS_OK;
}

/* What the item hooks of lens_template_render need to reach the section's functions. */
/* The template interpreter calls one pair of hooks for every section; this carries which section is
 * being drawn so the hooks reach its own functions. */
struct hook_ctx {
    const struct lens_template *t;
    const struct lens_template_section *s;
    const struct lens_doc_section *d;
    void *ctx;
};

static int hook_table(void *ctx, const struct lens_template_item *it, struct lens_pdf *pdf, struct lens_err *e)
{
    struct hook_ctx *h = ctx;
    (void)pdf; /* the section draws into the report's PDF, which it holds */
    /* a table in a section that supplies no rows is a template mistake, named by line */
    return h->d->table ? h->d->table(h->ctx, it, e) : lens_template_unknown_item(h->t, h->s, it, e);
}

static int hook_block(void *ctx, const struct lens_template_item *it, struct lens_pdf *pdf, struct lens_err *e)
{
    struct hook_ctx *h = ctx;
    (void)pdf;
    return h->d->block ? h->d->block(h->ctx, it, e) : lens_template_unknown_item(h->t, h->s, it, e);
}

/* One section (known: checked above): its placeholders, then its items. */
static int draw_section(const struct lens_doc *d, const struct lens_template *t, const struct lens_template_section *s,
                        struct lens_err *e)
{
    static const struct lens_template_hooks hooks = {hook_table, hook_block};
    struct hook_ctx h = {t, s, lens_doc_find(d->kind, s->name), d->ctx};
    *d->sec = s; /* the section's functions read their texts from the section being drawn */
    /* Placeholders first: the section's headings and prose are expanded while its items are drawn. */
    int rc = h.d->vars ? h.d->vars(d->ctx, e) : LENS_OK;
    return rc == LENS_OK ? lens_template_render(t, s, d->vars, &hooks, &h, *d->pdf, e) : rc;
}

/* The kind's running header for what is drawn next (the current input already set). */
static int set_header(const struct lens_doc *d, struct lens_err *e)
{
    return d->kind->header ? lens_pdf_set_header(*d->pdf, d->kind->header(d->ctx), e) : LENS_OK;
}

/* The template in runs: a section drawn once, or a "repeat inputs" group drawn once per input
 * of the kind its sections are about. */
static int draw_all(const struct lens_doc *d, const struct lens_template *t, struct lens_err *e)
{
    int rc = LENS_OK, none = -1, *cur = d->cur ? d->cur : &none;
    for (int i = 0; i < t->nsections && rc == LENS_OK;) {
        int end = i + 1;
        /* The sections of one "repeat inputs" group are consecutive and share its number; [i, end)
         * is the group. */
        while (t->sections[i].repeat && end < t->nsections && t->sections[end].repeat == t->sections[i].repeat)
            end++;
        if (!t->sections[i].repeat) {
            /* Outside a repeat there is no current input; a stale index must not leak into a
             * document section */
            *cur = -1;
            rc = set_header(d, e);
            /* a document section may be left out too (a report of bisection runs alone cites
             * no work, so it has no References heading over nothing) */
            if (rc == LENS_OK && (!d->kind->shown || d->kind->shown(d->ctx, t->sections[i].name)))
                rc = draw_section(d, t, &t->sections[i], e);
        } else {
            int kind = lens_doc_find(d->kind, t->sections[i].name)->input;
            /* Inputs in the order given, skipping those of other kinds: with cubes and sweeps
             * mixed, a cube group draws the cubes only, in their command-line order. */
            for (int k = 0; k < d->ninputs && rc == LENS_OK; k++) {
                if ((d->inputs ? d->inputs[k] : d->every) != kind)
                    continue;
                *cur = k;
                /* the input's placeholders before any section of the group uses them */
                if (d->kind->input_vars)
                    rc = d->kind->input_vars(d->ctx, e);
                /* a page this input starts names it; a page it shares with the one before
                 * keeps the header it was made with */
                if (rc == LENS_OK)
                    rc = set_header(d, e);
                for (int j = i; j < end && rc == LENS_OK; j++)
                    /* a section the report leaves out for this input draws nothing, not even its heading */
                    if (!d->kind->shown || d->kind->shown(d->ctx, t->sections[j].name))
                        rc = draw_section(d, t, &t->sections[j], e);
            }
            *cur = -1;
        }
        i = end;
    }
    return rc;
}

int lens_doc_template(const struct lens_doc_kind *k, const char *datadir, const char *template_path,
                      struct lens_template **out, struct lens_err *e)
{
    char tpath[PATH_MAX];
    /* An explicit --template wins; otherwise the kind's default under the data directory, found
     * next to the program (common/datadir.h). */
    if (template_path)
        snprintf(tpath, sizeof tpath, "%s", template_path);
    else
        snprintf(tpath, sizeof tpath, "%s/templates/%s", datadir ? datadir : ".", k->template_name);
    int rc = lens_template_load(tpath, out, e);
    /* Checked whole before anything is drawn: a misplaced section late in the template must not
     * cost a half-drawn document. */
    if (rc == LENS_OK && (rc = check(k, *out, e)) != LENS_OK) {
        lens_template_free(*out);
        *out = NULL;
    }
    return rc;
}

int lens_doc_write(const struct lens_doc *d, const char *path, struct lens_err *e)
{
    const char *dd = d->datadir ? d->datadir : ".";
    char fontdir[PATH_MAX];
    snprintf(fontdir, sizeof fontdir, "%s/fonts", dd);
    /* The figures draw with the same font file the PDF embeds, so text in a figure matches the text
     * around it. */
    snprintf(d->font_path, d->font_path_size, "%s/DejaVuSans.ttf", fontdir);
    lens_template_vars_init(d->vars);
    *d->pdf = NULL;
    if (d->cur)
        *d->cur = -1;
    struct lens_template *t = NULL;
    int rc = lens_doc_template(d->kind, d->datadir, d->template_path, &t, e);
    *d->t = t; /* the sections read the template through the report's context from here on */
    /* The report's own set-up runs after the template is known good and before the PDF exists: a
     * report that refuses its inputs (or its results) creates nothing. */
    if (rc == LENS_OK && d->prepare)
        rc = d->prepare(d->ctx, e);
    if (rc == LENS_OK)
        rc = lens_pdf_new(d->pdf, fontdir, e);
    if (rc == LENS_OK)
        rc = lens_pdf_set_footer(*d->pdf, t->footer, e);
    /* Figures come to lens_pdf_image_png as raw pixels, not PNG (figure.h): no encode and decode
     * on the way into the PDF. A layout pass (no path) is never saved, so its figures are only
     * sized, not painted. Restored below, whatever happened. */
    int form = lens_figure_memory_form(path ? LENS_FIGURE_MEM_RAW : LENS_FIGURE_MEM_SIZE);
    if (rc == LENS_OK)
        rc = draw_all(d, t, e);
    if (rc == LENS_OK)
        /* The title is whatever the title section set (--title or the template's default), read
         * back from the placeholders, so the PDF's metadata and its first page agree. */
        rc = lens_pdf_set_info(*d->pdf, lens_template_vars_get(d->vars, "title"), d->kind->subject, d->date, e);
    if (rc == LENS_OK && path)
        /* temporary file and rename (common/atomic.h): a failure leaves no PDF; no path is a
         * layout pass whose only result is what the sections recorded (page numbers) */
        rc = lens_pdf_save(*d->pdf, path, e);
    lens_figure_memory_form(form);
    lens_pdf_free(*d->pdf);
    *d->pdf = NULL;
    /* Everything below runs on success and failure alike, and the context's pointers are cleared so
     * nothing dangles once the document is gone. */
    lens_template_free(t);
    *d->t = NULL;
    lens_template_vars_release(d->vars);
    return rc;
}
