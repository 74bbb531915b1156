/* Tests for render/doc/doc.c, following the recipe of docs/design.md ("a report section"):
 * a dummy document kind registers one section per kind of input (one row each) and a
 * template lists them; each section must be drawn once per input of its kind, in input order,
 * with the current input set, and the document sections once outside any repeat. The
 * expected calls are written out by hand from the inputs array. Also: every template error
 * the driver checks names file:line and leaves no PDF, a failing section leaves no PDF, and
 * the text of the PDF (pdftotext) holds the headings in the order drawn. */
#include "render/doc/doc.h"
#include "lens_test.h"
#include "lens_scratch.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The dummy report's context: the fields the driver fills, and a log of the calls. */
struct dummy {
    const struct lens_template *t;
    const struct lens_template_section *sec;
    struct lens_pdf *pdf;
    struct lens_template_vars vars;
    int cur;
    char font_path[PATH_MAX + 32];
    char log[512];     /* "name@cur " per section drawn, "i@cur " per input_vars */
    int fail_at_input; /* the "cubes" block fails on this input, -1: never */
};

static void note(struct dummy *x, const char *what)
{
    size_t o = strlen(x->log);
    snprintf(x->log + o, sizeof x->log - o, "%s@%d ", what, x->cur);
}

static int cover_vars(void *ctx, struct lens_err *e)
{
    struct dummy *x = ctx;
    note(x, "cover");
    return lens_template_vars_set(&x->vars, "title", "Dummy document", e);
}

static int input_vars(void *ctx, struct lens_err *e)
{
    struct dummy *x = ctx;
    note(x, "i");
    return lens_template_vars_setf(&x->vars, e, "idx", "%d", x->cur + 1);
}

/* The one section function a new section needs: here it draws a paragraph per call. */
static int mark_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct dummy *x = ctx;
    if (strcmp(it->name, "mark"))
        return lens_template_unknown_item(x->t, x->sec, it, e);
    note(x, x->sec->name);
    if (x->cur == x->fail_at_input)
        return lens_err_set(e, LENS_EDATA, "input %d: injected failure", x->cur + 1);
    char buf[64];
    snprintf(buf, sizeof buf, "%s of input %d", x->sec->name, x->cur + 1);
    return lens_pdf_paragraph(x->pdf, buf, e);
}

static const struct lens_doc_section sections[] = {
    {"cover", LENS_DOC_NONE, cover_vars, NULL, NULL},
    {"cubes", LENS_DOC_CUBE, NULL, NULL, mark_block},
    {"sweeps", LENS_DOC_SWEEP, NULL, NULL, mark_block},
    {"traces", LENS_DOC_TRACE, NULL, NULL, mark_block}, /* the dummy section the recipe adds */
};
static const struct lens_doc_kind kind = {"dummy.tmpl", "Dummy", sections, 4, input_vars, NULL, NULL};

static const char *const good = "footer page ${page} of ${pages}\n"
                                "section cover\n"
                                "title ${title}\n"
                                "repeat inputs\n"
                                "section cubes\n"
                                "h2 Cube heading ${idx}\n"
                                "block mark\n"
                                "end\n"
                                "repeat inputs\n"
                                "section traces\n"
                                "h2 Trace heading ${idx}\n"
                                "block mark\n"
                                "end\n"
                                "repeat inputs\n"
                                "section sweeps\n"
                                "block mark\n"
                                "end\n";

static void put(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
}

/* Writes the dummy document of inputs[0..n) with template text to out.pdf; x receives the log. */
static int write_doc(struct dummy *x, const char *text, const int *inputs, int n, struct lens_err *e)
{
    char tpath[600]; /* in a folder of its own: lens_scratch_leftovers counts names holding ".tmp" */
    snprintf(tpath, sizeof tpath, "%s/t", lens_scratch_dir);
    mkdir(tpath, 0700);
    snprintf(tpath, sizeof tpath, "%s/t/dummy.tmpl", lens_scratch_dir);
    put(tpath, text);
    x->log[0] = '\0';
    const struct lens_doc d = {.kind = &kind, .datadir = ".", .template_path = tpath, .date = 1700000000,
                               .inputs = inputs, .ninputs = n, .ctx = x, .t = &x->t, .sec = &x->sec,
                               .pdf = &x->pdf, .vars = &x->vars, .cur = &x->cur, .font_path = x->font_path,
                               .font_path_size = sizeof x->font_path};
    return lens_doc_write(&d, lens_scratch_path("out.pdf"), e);
}

/* A template error: the message holds want, and no PDF (nor temporary file) is left; checked:
 * the driver finds it before drawing anything. */
static void bad_template(const char *text, const char *want, int checked)
{
    struct dummy x = {.fail_at_input = -1};
    struct lens_err e = {0};
    const int inputs[2] = {LENS_DOC_CUBE, LENS_DOC_SWEEP};
    int rc = write_doc(&x, text, inputs, 2, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, want), "want '%s', got %d '%s'", want, rc, e.msg);
    LENS_TEST(!lens_scratch_exists(lens_scratch_path("out.pdf")) && lens_scratch_leftovers() == 0,
              "no PDF after '%s'", want);
    LENS_TEST(!checked || x.log[0] == '\0', "nothing drawn before the template is checked: %s", x.log);
}

int main(void)
{
    if (lens_scratch_open("test_document") != 0)
        return 1;
    struct lens_err e = {0};

    /* cubes at 0, 2, 4, a sweep at 1, a trace at 3: each group once per input of its kind */
    const int inputs[5] = {LENS_DOC_CUBE, LENS_DOC_SWEEP, LENS_DOC_CUBE, LENS_DOC_TRACE, LENS_DOC_CUBE};
    struct dummy x = {.fail_at_input = -1};
    int rc = write_doc(&x, good, inputs, 5, &e);
    LENS_TEST(rc == LENS_OK, "write: %s", e.msg);
    LENS_TEST(!strcmp(x.log, "cover@-1 i@0 cubes@0 i@2 cubes@2 i@4 cubes@4 i@3 traces@3 i@1 sweeps@1 "),
              "calls: %s", x.log);
    LENS_TEST(x.cur == -1 && !x.pdf && !x.t, "driver fields reset after the write");
    LENS_TEST(!strcmp(x.font_path, "./fonts/DejaVuSans.ttf"), "font path %s", x.font_path);
    FILE *fp = fopen(lens_scratch_path("out.pdf"), "rb");
    char head[5] = "";
    LENS_TEST(fp && fread(head, 1, 4, fp) == 4 && !memcmp(head, "%PDF", 4), "a PDF is written");
    if (fp)
        fclose(fp);

    /* the PDF's text: the headings in the order drawn, the footer counts the pages */
    char cmd[1400], text[4096] = "";
    snprintf(cmd, sizeof cmd, "pdftotext '%s' - 2>/dev/null", lens_scratch_path("out.pdf"));
    FILE *pp = popen(cmd, "r");
    size_t len = pp ? fread(text, 1, sizeof text - 1, pp) : 0;
    text[len] = '\0';
    if (pp)
        pclose(pp);
    const char *c1 = strstr(text, "Cube heading 1"), *c3 = strstr(text, "Cube heading 3"),
               *c5 = strstr(text, "Cube heading 5"), *t4 = strstr(text, "Trace heading 4"),
               *s2 = strstr(text, "sweeps of input 2");
    LENS_TEST(c1 && c3 && c5 && t4 && s2 && c1 < c3 && c3 < c5 && c5 < t4 && t4 < s2, "headings in order: %s", text);
    LENS_TEST(!strstr(text, "Cube heading 2") && !strstr(text, "Cube heading 4"), "no cube section for other inputs");
    LENS_TEST(strstr(text, "Dummy document") && strstr(text, "page 1 of"), "title and footer");

    /* byte-identical on a second run */
    char first[600];
    snprintf(first, sizeof first, "%s", lens_scratch_path("first.pdf"));
    LENS_TEST(rename(lens_scratch_path("out.pdf"), first) == 0, "keep the first PDF");
    LENS_TEST(write_doc(&x, good, inputs, 5, &e) == LENS_OK, "second write: %s", e.msg);
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", first, lens_scratch_path("out.pdf"));
    LENS_TEST(system(cmd) == 0, "same bytes on a second run");
    remove(first);
    remove(lens_scratch_path("out.pdf"));

    /* no input of a kind: its group is not drawn, the document is */
    const int only_sweeps[2] = {LENS_DOC_SWEEP, LENS_DOC_SWEEP};
    LENS_TEST(write_doc(&x, good, only_sweeps, 2, &e) == LENS_OK, "only sweeps: %s", e.msg);
    LENS_TEST(!strcmp(x.log, "cover@-1 i@0 sweeps@0 i@1 sweeps@1 "), "only sweeps: %s", x.log);
    remove(lens_scratch_path("out.pdf"));

    /* every input of one kind, said once: three traces */
    struct dummy z = {.fail_at_input = -1};
    const struct lens_doc same = {.kind = &kind, .datadir = ".", .template_path = lens_scratch_path("t/dummy.tmpl"),
                                  .ninputs = 3, .every = LENS_DOC_TRACE, .ctx = &z, .t = &z.t, .sec = &z.sec,
                                  .pdf = &z.pdf, .vars = &z.vars, .cur = &z.cur, .font_path = z.font_path,
                                  .font_path_size = sizeof z.font_path};
    LENS_TEST(lens_doc_write(&same, lens_scratch_path("out.pdf"), &e) == LENS_OK, "every: %s", e.msg);
    LENS_TEST(!strcmp(z.log, "cover@-1 i@0 traces@0 i@1 traces@1 i@2 traces@2 "), "every: %s", z.log);
    remove(lens_scratch_path("out.pdf"));

    /* a failing section: its error, no PDF */
    x.fail_at_input = 2;
    rc = write_doc(&x, good, inputs, 5, &e);
    LENS_TEST(rc == LENS_EDATA && strstr(e.msg, "input 3: injected failure"), "section error: %d %s", rc, e.msg);
    LENS_TEST(!strcmp(x.log, "cover@-1 i@0 cubes@0 i@2 cubes@2 "), "stopped at the failure: %s", x.log);
    LENS_TEST(!lens_scratch_exists(lens_scratch_path("out.pdf")) && lens_scratch_leftovers() == 0,
              "no PDF after a failing section");

    /* the template errors the driver checks, each naming file:line */
    bad_template("section nosuch\n", "dummy.tmpl:1: unknown section 'nosuch' (known: cover, cubes, sweeps, traces)", 1);
    bad_template("section cubes\nblock mark\n", "dummy.tmpl:1: section 'cubes' belongs inside 'repeat inputs'", 1);
    bad_template("repeat inputs\nsection cover\nend\n", "dummy.tmpl:2: section 'cover' cannot sit inside", 1);
    bad_template("repeat inputs\nsection cubes\nsection sweeps\nend\n",
                 "dummy.tmpl:3: section 'sweeps' is about p2p inputs, 'cubes' above it in the same 'repeat inputs' "
                 "is about cube inputs", 1);
    bad_template("section cover\npara ${nosuch}\n", "dummy.tmpl:2", 0);
    struct dummy y = {.fail_at_input = -1};
    const struct lens_doc none = {.kind = &kind, .datadir = "/nonexistent", .date = 0, .ctx = &y, .t = &y.t,
                                  .sec = &y.sec, .pdf = &y.pdf, .vars = &y.vars, .cur = &y.cur,
                                  .font_path = y.font_path, .font_path_size = sizeof y.font_path};
    rc = lens_doc_write(&none, lens_scratch_path("out.pdf"), &e);
    LENS_TEST(rc == LENS_EIO && strstr(e.msg, "/nonexistent/templates/dummy.tmpl"),
              "default template under the data directory: %d %s", rc, e.msg);

    LENS_TEST(!strcmp(lens_doc_input_name(LENS_DOC_SWEEP), "p2p") && !strcmp(lens_doc_input_name(99), "unknown"),
              "input names");
    LENS_TEST(lens_doc_find(&kind, "traces") == &sections[3] && !lens_doc_find(&kind, "p2p"), "find");

    lens_scratch_close();
    return LENS_TEST_DONE("test_document");
}
