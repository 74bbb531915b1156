/* Report templates: the parser for the line-based format of templates/NAME.tmpl, placeholder
 * expansion, and the interpreter that draws a section's items into a lens_pdf (see
 * template.h; the format itself is documented at the top of templates/report.tmpl). */
#include "template.h"

#include "common/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- placeholder values ---- */

void lens_template_vars_init(struct lens_template_vars *v) { memset(v, 0, sizeof *v); }

void lens_template_vars_release(struct lens_template_vars *v)
{
    for (int i = 0; i < v->n; i++) {
        lens_free(v->names[i]);
        lens_free(v->values[i]);
    }
    lens_free(v->names);
    lens_free(v->values);
    lens_template_vars_init(v);
}

/* A linear search: a report sets a few dozen placeholders, and a hash would cost more than it saves
 * at that size. */
const char *lens_template_vars_get(const struct lens_template_vars *v, const char *name)
{
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->names[i], name))
            return v->values[i];
    return NULL;
}

int lens_template_vars_set(struct lens_template_vars *v, const char *name, const char *value, struct lens_err *e)
{
    /* Copy the value before touching the list: on failure the list is exactly as it was, and an old
     * value is only freed once its replacement exists. */
    char *val = lens_strdup(value ? value : "");
    if (!val)
        return lens_err_set(e, LENS_ENOMEM, "template: out of memory");
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->names[i], name)) {
            lens_free(v->values[i]);
            v->values[i] = val;
            return LENS_OK;
        }
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 16;
        /* names and values grow in turn; if the second fails the first has only grown, which is
         * harmless since cap still says the old size. */
        char **nn = lens_realloc(v->names, (size_t)cap * sizeof *nn);
        if (nn)
            v->names = nn;
        char **nv = nn ? lens_realloc(v->values, (size_t)cap * sizeof *nv) : NULL;
        if (!nv) {
            lens_free(val);
            return lens_err_set(e, LENS_ENOMEM, "template: out of memory");
        }
        v->values = nv;
        v->cap = cap;
    }
    if (!(v->names[v->n] = lens_strdup(name))) {
        lens_free(val);
        return lens_err_set(e, LENS_ENOMEM, "template: out of memory");
    }
    v->values[v->n++] = val;
    return LENS_OK;
}

int lens_template_vars_setf(struct lens_template_vars *v, struct lens_err *e, const char *name, const char *fmt, ...)
{
    /* Formatted values are numbers and short phrases; one longer than 4096 bytes is cut, never
     * overflowed. */
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return lens_template_vars_set(v, name, buf, e);
}

/* ---- expansion ---- */

/* A growing string that is always terminated, so an expansion that stops early still frees cleanly. */
struct sbuf {
    char *s;
    size_t n, cap;
};

static int sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->n + n + 1) * 2; /* doubling keeps the appends of one expansion linear */
        char *ns = lens_realloc(b->s, cap);
        if (!ns)
            return LENS_ENOMEM;
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
    return LENS_OK;
}

int lens_template_expand(const char *text, const struct lens_template_vars *v, const char *path, int line,
                         char **out, struct lens_err *e)
{
    struct sbuf b = {0};
    int rc = sb_add(&b, "", 0);
    const char *s = text ? text : ""; /* b starts as "": an empty text expands to "", not NULL */
    while (rc == LENS_OK && *s) {
        const char *d = strchr(s, '$');
        if (!d) {
            rc = sb_add(&b, s, strlen(s));
            break;
        }
        if ((rc = sb_add(&b, s, (size_t)(d - s))) != LENS_OK)
            break;
        /* "$$" is a literal dollar sign, checked before "${" so that "$${x}" stays the text "${x}". */
        if (d[1] == '$') {
            rc = sb_add(&b, "$", 1);
            s = d + 2;
            continue;
        }
        const char *close = d[1] == '{' ? strchr(d + 2, '}') : NULL;
        /* A lone "$" is an error, not text: a typo such as "$name" or "${name" would otherwise
         * reach the PDF unnoticed. */
        if (!close) {
            lens_free(b.s);
            return lens_err_set(e, LENS_EFORMAT, "%s:%d: '$' must start ${name} or be written $$", path, line);
        }
        char name[LENS_TEMPLATE_MAX_NAME + 1];
        size_t n = (size_t)(close - d - 2);
        if (n > LENS_TEMPLATE_MAX_NAME) { /* cut short it would name another placeholder */
            lens_free(b.s);
            return lens_err_set(e, LENS_EFORMAT, "%s:%d: placeholder name longer than %d bytes", path,
                                line, LENS_TEMPLATE_MAX_NAME);
        }
        memcpy(name, d + 2, n);
        name[n] = '\0';
        /* "${n|host|hosts}": the count and its noun, singular only for exactly 1, so a
         * template never writes "host(s)" (common/units.h) */
        char *one = strchr(name, '|'), *many = one ? strchr(one + 1, '|') : NULL;
        if (one && !many) {
            lens_free(b.s);
            return lens_err_set(e, LENS_EFORMAT, "%s:%d: plural ${%s} needs ${count|one|many}", path, line, name);
        }
        if (one) {
            *one++ = '\0';
            *many++ = '\0';
        }
        const char *val = v ? lens_template_vars_get(v, name) : NULL;
        /* An unknown placeholder is an error naming the template line, never an empty string: a
         * misspelt name must not silently print nothing. */
        if (!val) {
            lens_free(b.s);
            return lens_err_set(e, LENS_EFORMAT, "%s:%d: unknown placeholder ${%s}", path, line, name);
        }
        rc = sb_add(&b, val, strlen(val));
        if (one && rc == LENS_OK) {
            const char *noun = lens_units_plural(strcmp(val, "1") ? 2 : 1, one, many);
            if ((rc = sb_add(&b, " ", 1)) == LENS_OK)
                rc = sb_add(&b, noun, strlen(noun));
        }
        s = close + 1;
    }
    if (rc != LENS_OK) {
        lens_free(b.s);
        return lens_err_set(e, LENS_ENOMEM, "template: out of memory");
    }
    *out = b.s;
    return LENS_OK;
}

int lens_template_text(const struct lens_template *t, const struct lens_template_section *s, const char *name,
                       const struct lens_template_vars *v, char **out, struct lens_err *e)
{
    for (int i = 0; i < s->ntexts; i++)
        /* Texts are looked up in the section being drawn only: two sections may give the same name
         * (heading, caption) different words. */
        if (!strcmp(s->texts[i].name, name))
            return lens_template_expand(s->texts[i].text, v, t->path, s->texts[i].line, out, e);
    return lens_err_set(e, LENS_EFORMAT, "%s:%d: section '%s' has no 'text %s' line", t->path, s->line,
                        s->name, name);
}

int lens_template_text_buf(const struct lens_template *t, const struct lens_template_section *s, const char *name,
                           const struct lens_template_vars *v, char *buf, size_t n, struct lens_err *e)
{
    char *x = NULL;
    int rc = lens_template_text(t, s, name, v, &x, e);
    if (rc == LENS_OK)
        snprintf(buf, n, "%s", x); /* a text longer than the caller's line is cut, not overrun */
    lens_free(x);
    return rc;
}

/* ---- parsing ---- */

/* Column headers are const in struct lens_pdf_column but owned by the item here: the cast frees
 * what parse_column duplicated. */
static void item_release(struct lens_template_item *it)
{
    lens_free(it->name);
    lens_free(it->text);
    for (int c = 0; c < it->ncols; c++)
        lens_free((char *)it->cols[c].header);
}

static void section_release(struct lens_template_section *s)
{
    for (int i = 0; i < s->nitems; i++)
        item_release(&s->items[i]);
    for (int i = 0; i < s->ntexts; i++) {
        lens_free(s->texts[i].name);
        lens_free(s->texts[i].text);
    }
    lens_free(s->items);
    lens_free(s->texts);
    lens_free(s->name);
}

void lens_template_free(struct lens_template *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->nsections; i++)
        section_release(&t->sections[i]);
    lens_free(t->sections);
    lens_free(t->path);
    lens_free(t->footer);
    lens_free(t);
}

/* Grows an array of elements of size sz by one zeroed element; returns it or NULL. */
/* Growing by one element at a time is quadratic in theory, but a template has at most a few hundred
 * items per section and the simplicity keeps the parser easy to audit. */
static void *grow(void **arr, int *n, size_t sz)
{
    char *na = lens_realloc(*arr, (size_t)(*n + 1) * sz);
    if (!na)
        return NULL;
    *arr = na;
    memset(na + (size_t)*n * sz, 0, sz);
    return na + (size_t)(*n)++ * sz;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = lens_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Appends " more" to *target (a continuation line). LENS_EFORMAT beyond
 * LENS_TEMPLATE_MAX_TEXT: each append measures the text, so an unbounded one is quadratic. */
static int append(char **target, const char *more)
{
    size_t a = strlen(*target), b = strlen(more);
    if (a + b + 1 > LENS_TEMPLATE_MAX_TEXT)
        return LENS_EFORMAT;
    char *n = lens_realloc(*target, a + b + 2);
    if (!n)
        return LENS_ENOMEM;
    if (a)
        n[a++] = ' ';
    memcpy(n + a, more, b + 1);
    *target = n;
    return LENS_OK;
}

/* The parser's state between lines: the section items go to, the text the next indented line
 * continues, and whether we are inside "repeat inputs" (nrepeat numbers the groups, so the driver
 * can tell two consecutive groups apart). */
struct parser {
    struct lens_template *t;
    struct lens_template_section *sec; /* current section or NULL */
    char **cont;                   /* text a continuation line appends to, or NULL */
    int in_repeat, nrepeat, line;
    struct lens_err *e;
};

/* Every parse error is LENS_EFORMAT with "path:line", the callers format both. */
#define PFAIL(P, ...) lens_err_set((P)->e, LENS_EFORMAT, __VA_ARGS__)
#define PNOMEM(P) lens_err_set((P)->e, LENS_ENOMEM, "%s: out of memory", (P)->t->path)

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* The item a keyword line adds to the current section. */
static struct lens_template_item *new_item(struct parser *P, int kind, const char *kw)
{
    if (!P->sec) {
        PFAIL(P, "%s:%d: '%s' outside a section (start one with 'section NAME')", P->t->path, P->line, kw);
        return NULL;
    }
    struct lens_template_item *it = grow((void **)&P->sec->items, &P->sec->nitems, sizeof *it);
    if (!it) {
        PNOMEM(P);
        return NULL;
    }
    it->kind = kind;
    it->line = P->line;
    return it;
}

static int parse_column(struct parser *P, const char *rest)
{
    struct lens_template_item *it = P->sec && P->sec->nitems ? &P->sec->items[P->sec->nitems - 1] : NULL;
    if (!it || it->kind != LENS_TMPL_TABLE)
        return PFAIL(P, "%s:%d: 'column' must follow a 'table' line or another column", P->t->path, P->line);
    if (it->ncols == LENS_PDF_MAXCOLS)
        return PFAIL(P, "%s:%d: more than %d columns", P->t->path, P->line, LENS_PDF_MAXCOLS);
    char align[16];
    double width;
    int used = 0;
    /* %n after the width finds where the header starts; the header may hold spaces and
     * ${placeholders}. */
    if (sscanf(rest, "%15s %lf %n", align, &width, &used) < 2 || !(width >= 0 && width <= 1)) /* NaN too */
        return PFAIL(P, "%s:%d: expected 'column left|right|center WIDTH HEADER' with 0 <= WIDTH <= 1",
                     P->t->path, P->line);
    struct lens_pdf_column *c = &it->cols[it->ncols];
    if (!strcmp(align, "left"))
        c->align = LENS_PDF_LEFT;
    else if (!strcmp(align, "right"))
        c->align = LENS_PDF_RIGHT;
    else if (!strcmp(align, "center"))
        c->align = LENS_PDF_CENTER;
    else
        return PFAIL(P, "%s:%d: column alignment '%s' is not left, right or center", P->t->path, P->line, align);
    c->width = width;
    if (!(c->header = lens_strdup(rest + used)))
        return PNOMEM(P);
    it->ncols++;
    return LENS_OK;
}

static int parse_line(struct parser *P, const char *l)
{
    const char *ws = skip_ws(l);
    /* A comment line does not end a continuation, so a long text may carry a comment between its
     * lines. */
    if (*ws == '\0' || *ws == '#') { /* blank lines end a continuation */
        if (*ws == '\0')
            P->cont = NULL;
        return LENS_OK;
    }
    if (ws != l) { /* continuation of the previous line's text */
        if (!P->cont)
            return PFAIL(P, "%s:%d: indented line continues nothing (keywords start in column 1)",
                         P->t->path, P->line);
        int rc = append(P->cont, ws);
        if (rc == LENS_EFORMAT)
            return PFAIL(P, "%s:%d: text longer than %zu bytes with its continuation lines",
                         P->t->path, P->line, (size_t)LENS_TEMPLATE_MAX_TEXT);
        return rc == LENS_OK ? LENS_OK : PNOMEM(P);
    }
    char kw[16];
    /* The keyword is the first word, cut to 15 bytes: a longer word is no keyword, and the
     * unknown-keyword error shows its start. */
    size_t k = strcspn(l, " \t");
    if (k >= sizeof kw)
        k = sizeof kw - 1;
    memcpy(kw, l, k);
    kw[k] = '\0';
    /* a keyword line ends any continuation; the ones with text set it again below */
    const char *rest = skip_ws(l + k);
    P->cont = NULL;
    struct lens_template_item *it;
    if (!strcmp(kw, "section")) {
        if (!*rest || strcspn(rest, " \t") != strlen(rest))
            return PFAIL(P, "%s:%d: expected 'section NAME'", P->t->path, P->line);
        struct lens_template_section *s = grow((void **)&P->t->sections, &P->t->nsections, sizeof *s);
        if (!s || !(s->name = lens_strdup(rest)))
            return PNOMEM(P);
        s->line = P->line;
        /* the group number, so the driver draws the group's sections together */
        s->repeat = P->in_repeat ? P->nrepeat : 0;
        P->sec = s;
    } else if (!strcmp(kw, "repeat")) {
        if (strcmp(rest, "inputs"))
            return PFAIL(P, "%s:%d: expected 'repeat inputs'", P->t->path, P->line);
        /* No nesting: the driver repeats a group over the inputs of one kind, and a group inside a
         * group would have no meaning. */
        if (P->in_repeat)
            return PFAIL(P, "%s:%d: 'repeat' inside a repeat", P->t->path, P->line);
        P->in_repeat = 1;
        P->nrepeat++;
        P->sec = NULL;
    } else if (!strcmp(kw, "end")) {
        if (!P->in_repeat)
            return PFAIL(P, "%s:%d: 'end' without 'repeat'", P->t->path, P->line);
        P->in_repeat = 0;
        P->sec = NULL;
    } else if (!strcmp(kw, "footer")) {
        lens_free(P->t->footer);
        if (!(P->t->footer = lens_strdup(rest)))
            return PNOMEM(P);
        P->cont = &P->t->footer;
    } else if (!strcmp(kw, "page")) {
        if (!new_item(P, LENS_TMPL_PAGE, kw))
            return P->e ? P->e->code : LENS_EFORMAT;
    } else if (!strcmp(kw, "title") || !strcmp(kw, "h1") || !strcmp(kw, "h2") || !strcmp(kw, "h3") ||
               !strcmp(kw, "para") || !strcmp(kw, "note")) {
        /* The keywords were matched above, so the first letters tell them apart: p(ara), n(ote),
         * else a heading whose level is h1..h3's digit (0 for the title). */
        int kind = kw[0] == 'p' ? LENS_TMPL_PARA : kw[0] == 'n' ? LENS_TMPL_NOTE : LENS_TMPL_HEADING;
        if (!(it = new_item(P, kind, kw)))
            return P->e ? P->e->code : LENS_EFORMAT;
        it->level = kw[0] == 'h' ? kw[1] - '0' : 0;
        if (!(it->text = lens_strdup(rest)))
            return PNOMEM(P);
        P->cont = &it->text;
    } else if (!strcmp(kw, "field")) {
        /* The first "|" splits label from value, so a value may hold "|" but a label may not;
         * trailing blanks of the label are dropped. */
        const char *bar = strchr(rest, '|');
        if (!bar)
            return PFAIL(P, "%s:%d: expected 'field LABEL | VALUE'", P->t->path, P->line);
        if (!(it = new_item(P, LENS_TMPL_FIELD, kw)))
            return P->e ? P->e->code : LENS_EFORMAT;
        size_t n = (size_t)(bar - rest);
        while (n > 0 && (rest[n - 1] == ' ' || rest[n - 1] == '\t'))
            n--;
        if (!(it->name = dup_n(rest, n)) || !(it->text = lens_strdup(skip_ws(bar + 1))))
            return PNOMEM(P);
        P->cont = &it->text;
    } else if (!strcmp(kw, "table") || !strcmp(kw, "block")) {
        if (!*rest || strcspn(rest, " \t") != strlen(rest))
            return PFAIL(P, "%s:%d: expected '%s NAME'", P->t->path, P->line, kw);
        if (!(it = new_item(P, kw[0] == 't' ? LENS_TMPL_TABLE : LENS_TMPL_BLOCK, kw)))
            return P->e ? P->e->code : LENS_EFORMAT;
        if (!(it->name = lens_strdup(rest)))
            return PNOMEM(P);
    } else if (!strcmp(kw, "column")) {
        return parse_column(P, rest);
    } else if (!strcmp(kw, "space")) {
        char *end;
        double pts = strtod(rest, &end);
        /* At most a page height (842 points), rounded down; written so that NaN fails too. */
        if (end == rest || *skip_ws(end) || !(pts >= 0 && pts <= 800))
            return PFAIL(P, "%s:%d: expected 'space POINTS' (0..800)", P->t->path, P->line);
        if (!(it = new_item(P, LENS_TMPL_SPACE, kw)))
            return P->e ? P->e->code : LENS_EFORMAT;
        it->points = pts;
    } else if (!strcmp(kw, "text")) {
        if (!P->sec) /* a text belongs to the section that asks for it by name */
            return PFAIL(P, "%s:%d: 'text' outside a section", P->t->path, P->line);
        size_t n = strcspn(rest, " \t");
        if (n == 0)
            return PFAIL(P, "%s:%d: expected 'text NAME TEXT'", P->t->path, P->line);
        struct lens_template_text *tx = grow((void **)&P->sec->texts, &P->sec->ntexts, sizeof *tx);
        if (!tx || !(tx->name = dup_n(rest, n)) || !(tx->text = lens_strdup(skip_ws(rest + n))))
            return PNOMEM(P);
        tx->line = P->line;
        P->cont = &tx->text;
    } else {
        return PFAIL(P, "%s:%d: unknown keyword '%s'", P->t->path, P->line, kw);
    }
    return LENS_OK;
}

int lens_template_parse(const char *text, const char *path, struct lens_template **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_template *t = lens_calloc(1, sizeof *t);
    if (!t || !(t->path = lens_strdup(path))) {
        lens_free(t);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    struct parser P = {.t = t, .e = e};
    int rc = LENS_OK;
    char line[LENS_TEMPLATE_MAX_LINE + 1];
    size_t len = strlen(text);
    /* Bounded before parsing: a template comes from --template, which may be any file. */
    if (len > LENS_TEMPLATE_MAX_FILE) { /* line numbers and item counts are ints */
        lens_template_free(t);
        return lens_err_set(e, LENS_EFORMAT, "%s: %zu bytes, more than the %zu a template may hold", path,
                            len, (size_t)LENS_TEMPLATE_MAX_FILE);
    }
    for (const char *s = text; *s && rc == LENS_OK;) {
        size_t n = strcspn(s, "\n");
        P.line++;
        if (n >= sizeof line) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%d: line longer than %zu bytes", path, P.line, sizeof line - 1);
            break;
        }
        memcpy(line, s, n);
        line[n] = '\0';
        if (n && line[n - 1] == '\r') /* a template saved with CRLF line ends reads the same */
            line[n - 1] = '\0';
        rc = parse_line(&P, line);
        s += n + (s[n] == '\n'); /* the last line may lack its "\n" */
    }
    if (rc == LENS_OK && P.in_repeat)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: 'repeat inputs' without 'end'", path);
    if (rc == LENS_OK && t->nsections == 0)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: no sections", path);
    for (int i = 0; rc == LENS_OK && i < t->nsections; i++)
        for (int j = 0; j < t->sections[i].nitems; j++) {
            struct lens_template_item *it = &t->sections[i].items[j];
            /* A table without columns could not draw a row; say so at load time, naming the line,
             * rather than when the section is drawn. */
            if (it->kind == LENS_TMPL_TABLE && it->ncols == 0) {
                rc = lens_err_set(e, LENS_EFORMAT, "%s:%d: table '%s' has no column lines", path, it->line, it->name);
                break;
            }
        }
    if (rc != LENS_OK) {
        lens_template_free(t);
        return rc;
    }
    *out = t;
    return LENS_OK;
}

int lens_template_load(const char *path, struct lens_template **out, struct lens_err *e)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open template: %s", path, strerror(errno));
    struct sbuf b = {0};
    char chunk[8192];
    size_t k;
    int rc = sb_add(&b, "", 0);
    /* Stops one chunk past the cap: a huge file (or /dev/zero) is refused without reading it all. */
    while (rc == LENS_OK && b.n <= LENS_TEMPLATE_MAX_FILE && (k = fread(chunk, 1, sizeof chunk, fp)) > 0)
        rc = sb_add(&b, chunk, k);
    int bad = ferror(fp);
    fclose(fp);
    if (rc == LENS_OK && !bad && b.n > LENS_TEMPLATE_MAX_FILE) { /* read no further than the cap */
        lens_free(b.s);
        return lens_err_set(e, LENS_EFORMAT, "%s: more than %zu bytes, too large for a template", path,
                            (size_t)LENS_TEMPLATE_MAX_FILE);
    }
    if (rc != LENS_OK || bad) {
        lens_free(b.s);
        return rc != LENS_OK ? lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path)
                             : lens_err_set(e, LENS_EIO, "%s: read error", path);
    }
    /* A NUL would end the text early and hide the rest of the file from the parser: refuse binary
     * input instead. */
    if (memchr(b.s, '\0', b.n)) {
        lens_free(b.s);
        return lens_err_set(e, LENS_EFORMAT, "%s: not a text file (holds NUL bytes)", path);
    }
    rc = lens_template_parse(b.s, path, out, e);
    lens_free(b.s);
    return rc;
}

/* ---- drawing ---- */

/* Draws the run of field items starting at i as one label/value table; returns the index
 * after the run. */
static int render_fields(const struct lens_template *t, const struct lens_template_section *s, int *i,
                         const struct lens_template_vars *v, struct lens_pdf *pdf, struct lens_err *e)
{
    /* Labels are short ("processes", "date"), values may be long lists of hosts or files: give the
     * values most of the width. No headers: a field table draws none. */
    static const struct lens_pdf_column cols[2] = {{NULL, LENS_PDF_LEFT, 0.28}, {NULL, LENS_PDF_LEFT, 0.72}};
    int rc = lens_pdf_table_begin(pdf, cols, 2, LENS_PDF_SANS, e);
    for (; rc == LENS_OK && *i < s->nitems && s->items[*i].kind == LENS_TMPL_FIELD; (*i)++) {
        const struct lens_template_item *it = &s->items[*i];
        char *label = NULL, *value = NULL;
        rc = lens_template_expand(it->name, v, t->path, it->line, &label, e);
        if (rc == LENS_OK)
            rc = lens_template_expand(it->text, v, t->path, it->line, &value, e);
        if (rc == LENS_OK) {
            const char *cells[2] = {label, value};
            rc = lens_pdf_table_row(pdf, cells, e);
        }
        lens_free(label);
        lens_free(value);
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_end(pdf, e);
    return rc;
}

int lens_template_render(const struct lens_template *t, const struct lens_template_section *s,
                         const struct lens_template_vars *v, const struct lens_template_hooks *h, void *ctx,
                         struct lens_pdf *pdf, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int i = 0; rc == LENS_OK && i < s->nitems;) {
        const struct lens_template_item *it = &s->items[i];
        char *txt = NULL;
        switch (it->kind) {
        /* Each item is expanded when drawn, not when parsed: the same section is drawn once per
         * input with that input's placeholders. */
        case LENS_TMPL_PAGE:
            rc = lens_pdf_new_page(pdf, e);
            break;
        case LENS_TMPL_SPACE:
            lens_pdf_space(pdf, it->points);
            break;
        case LENS_TMPL_HEADING:
        case LENS_TMPL_PARA:
        case LENS_TMPL_NOTE:
            rc = lens_template_expand(it->text, v, t->path, it->line, &txt, e);
            if (rc == LENS_OK && it->kind == LENS_TMPL_HEADING)
                rc = lens_pdf_heading(pdf, it->level, txt, e);
            else if (rc == LENS_OK && it->kind == LENS_TMPL_PARA)
                rc = lens_pdf_paragraph(pdf, txt, e);
            else if (rc == LENS_OK)
                /* a note: 8-point small print, no paragraph spacing */
                rc = lens_pdf_text(pdf, LENS_PDF_SANS, 8, LENS_PDF_LEFT, 0, txt, e);
            lens_free(txt);
            break;
        /* Consecutive fields form one table so that their labels line up; render_fields consumes
         * the whole run. */
        case LENS_TMPL_FIELD:
            rc = render_fields(t, s, &i, v, pdf, e);
            continue; /* i already moved past the fields */
        case LENS_TMPL_TABLE: {
            if (!h || !h->table) {
                rc = lens_err_set(e, LENS_EFORMAT, "%s:%d: section '%s' has no tables", t->path, it->line, s->name);
                break;
            }
            struct lens_pdf_column cols[LENS_PDF_MAXCOLS];
            char *heads[LENS_PDF_MAXCOLS] = {0};
            /* Headers may hold placeholders (${col_rank}), expanded per drawing: a section empties
             * them when it has no rows, and the table then draws no header. */
            for (int c = 0; c < it->ncols && rc == LENS_OK; c++) {
                cols[c] = it->cols[c];
                rc = lens_template_expand(it->cols[c].header, v, t->path, it->line, &heads[c], e);
                cols[c].header = heads[c];
            }
            if (rc == LENS_OK)
                rc = lens_pdf_table_begin(pdf, cols, it->ncols, LENS_PDF_SANS, e);
            for (int c = 0; c < it->ncols; c++)
                lens_free(heads[c]);
            if (rc == LENS_OK)
                rc = h->table(ctx, it, pdf, e);
            if (rc == LENS_OK)
                rc = lens_pdf_table_end(pdf, e);
            break;
        }
        case LENS_TMPL_BLOCK:
            rc = h && h->block ? h->block(ctx, it, pdf, e)
                               : lens_err_set(e, LENS_EFORMAT, "%s:%d: section '%s' has no blocks", t->path,
                                              it->line, s->name);
            break;
        }
        i++;
    }
    return rc;
}

/* ---- shared by the section functions of every report (render/doc/doc.h) ---- */

int lens_template_unknown_item(const struct lens_template *t, const struct lens_template_section *s,
                               const struct lens_template_item *it, struct lens_err *e)
{
    return lens_err_set(e, LENS_EFORMAT, "%s:%d: section '%s' has no %s '%s'", t->path, it->line, s->name,
                        it->kind == LENS_TMPL_TABLE ? "table" : "block", it->name);
}
