/* Tests for render/doc/template.c: parsing every keyword, continuation lines, repeat groups,
 * placeholder expansion (UTF-8, $$), every parse error naming file:line, drawing a section
 * through hooks (checked with pdftotext), allocation-failure injection, and that the shipped
 * templates/report.tmpl parses. */
#include "render/doc/template.h"
#include "lens_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const good =
    "# a comment\n"
    "footer стр. ${page}\n"
    "  из ${pages}\n"
    "section title\n"
    "title Отчёт ${title}\n"
    "para first line of a paragraph\n"
    "    continued here, cost $$${cost}\n"
    "\n"
    "  # an indented comment is still a comment\n"
    "field узел | ${host}\n"
    "field mode | ${mode}\n"
    "text caption Figure ${n}: ${what}\n"
    "  second line of the caption\n"
    "repeat inputs\n"
    "section summary\n"
    "page\n"
    "h1 Input ${idx}\n"
    "h2 Summary\n"
    "table lengths\n"
    "column right 0.2 length, B\n"
    "column left 0 slowest pair\n"
    "column center 0.125 note\n"
    "space 17.5\n"
    "block figures\n"
    "h3 three\n"
    "note small print\r\n"
    "end\n"
    "section tail\n"
    "para the end\n";

struct ctx {
    int tables, blocks;
};

static int tab(void *c, const struct lens_template_item *it, struct lens_pdf *pdf, struct lens_err *e)
{
    struct ctx *x = c;
    x->tables++;
    if (strcmp(it->name, "rows"))
        return lens_err_set(e, LENS_EFORMAT, "no table '%s'", it->name);
    const char *r1[2] = {"4096", "3 -> 1 (узел-7)"}, *r2[2] = {"65536", "0 -> 2 (vm)"};
    int rc = lens_pdf_table_row(pdf, r1, e);
    return rc ? rc : lens_pdf_table_row(pdf, r2, e);
}

static int blk(void *c, const struct lens_template_item *it, struct lens_pdf *pdf, struct lens_err *e)
{
    struct ctx *x = c;
    x->blocks++;
    return lens_pdf_paragraph(pdf, it->name, e);
}

/* Parses text and expects failure with code and a message containing want. */
static void parse_fails(const char *text, int code, const char *want)
{
    struct lens_template *t = (struct lens_template *)1;
    struct lens_err e;
    lens_err_clear(&e);
    int rc = lens_template_parse(text, "bad.tmpl", &t, &e);
    LENS_TEST(rc == code && t == NULL, "parse of %.30s...: rc %d want %d", text, rc, code);
    LENS_TEST(strstr(e.msg, want) != NULL, "message '%s' lacks '%s'", e.msg, want);
}

int main(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_template *t = NULL;
    int rc = lens_template_parse(good, "good.tmpl", &t, &e);
    LENS_TEST(rc == LENS_OK && t, "parse: %s", e.msg);
    if (!t)
        return LENS_TEST_DONE("test_template");
    LENS_TEST(t->nsections == 3, "3 sections, got %d", t->nsections);
    LENS_TEST(t->footer && !strcmp(t->footer, "стр. ${page} из ${pages}"), "footer '%s'", t->footer);
    struct lens_template_section *s0 = &t->sections[0], *s1 = &t->sections[1], *s2 = &t->sections[2];
    LENS_TEST(!strcmp(s0->name, "title") && s0->repeat == 0 && s0->line == 4, "title section");
    LENS_TEST(!strcmp(s1->name, "summary") && s1->repeat == 1 && s1->line == 15, "summary in repeat 1");
    LENS_TEST(!strcmp(s2->name, "tail") && s2->repeat == 0, "tail after end");
    LENS_TEST(s0->nitems == 4, "title items %d", s0->nitems);
    LENS_TEST(s0->items[0].kind == LENS_TMPL_HEADING && s0->items[0].level == 0, "title heading");
    LENS_TEST(s0->items[1].kind == LENS_TMPL_PARA &&
                  !strcmp(s0->items[1].text, "first line of a paragraph continued here, cost $$${cost}"),
              "continued para '%s'", s0->items[1].text);
    LENS_TEST(s0->items[2].kind == LENS_TMPL_FIELD && !strcmp(s0->items[2].name, "узел") &&
                  !strcmp(s0->items[2].text, "${host}") && s0->items[2].line == 10,
              "field label '%s' value '%s'", s0->items[2].name, s0->items[2].text);
    LENS_TEST(s0->ntexts == 1 && !strcmp(s0->texts[0].name, "caption") &&
                  !strcmp(s0->texts[0].text, "Figure ${n}: ${what} second line of the caption"),
              "text '%s'", s0->ntexts ? s0->texts[0].text : "");
    LENS_TEST(s1->nitems == 8, "summary items %d", s1->nitems);
    const struct lens_template_item *tb = &s1->items[3];
    LENS_TEST(tb->kind == LENS_TMPL_TABLE && tb->ncols == 3 && !strcmp(tb->name, "lengths"), "table");
    LENS_TEST(tb->cols[0].align == LENS_PDF_RIGHT && tb->cols[0].width == 0.2 &&
                  !strcmp(tb->cols[0].header, "length, B"), "column 0 '%s'", tb->cols[0].header);
    LENS_TEST(tb->cols[1].align == LENS_PDF_LEFT && tb->cols[1].width == 0 &&
                  !strcmp(tb->cols[1].header, "slowest pair"), "column 1");
    LENS_TEST(tb->cols[2].align == LENS_PDF_CENTER && tb->cols[2].width == 0.125, "column 2");
    LENS_TEST(s1->items[4].kind == LENS_TMPL_SPACE && s1->items[4].points == 17.5, "space");
    LENS_TEST(s1->items[5].kind == LENS_TMPL_BLOCK && !strcmp(s1->items[5].name, "figures"), "block");
    LENS_TEST(s1->items[6].level == 3, "h3");
    LENS_TEST(s1->items[7].kind == LENS_TMPL_NOTE && !strcmp(s1->items[7].text, "small print"), "CRLF stripped");

    /* expansion */
    struct lens_template_vars v;
    lens_template_vars_init(&v);
    LENS_TEST(lens_template_vars_set(&v, "cost", "12.5", &e) == LENS_OK, "set");
    LENS_TEST(lens_template_vars_setf(&v, &e, "n", "%d", 7) == LENS_OK, "setf");
    LENS_TEST(lens_template_vars_set(&v, "what", "задержки", &e) == LENS_OK, "set utf-8");
    LENS_TEST(lens_template_vars_set(&v, "n", "42", &e) == LENS_OK && !strcmp(lens_template_vars_get(&v, "n"), "42"),
              "setting again replaces");
    char *out = NULL;
    LENS_TEST(lens_template_expand(s0->items[1].text, &v, "good.tmpl", 6, &out, &e) == LENS_OK && out &&
                  !strcmp(out, "first line of a paragraph continued here, cost $12.5"),
              "expanded '%s'", out ? out : "");
    lens_free(out);
    out = NULL;
    LENS_TEST(lens_template_text(t, s0, "caption", &v, &out, &e) == LENS_OK && out &&
                  !strcmp(out, "Figure 42: задержки second line of the caption"), "text '%s'", out ? out : "");
    lens_free(out);
    LENS_TEST(lens_template_text(t, s0, "nope", &v, &out, &e) == LENS_EFORMAT && strstr(e.msg, "good.tmpl:4") &&
                  strstr(e.msg, "text nope"), "missing text: %s", e.msg);
    LENS_TEST(lens_template_expand("a ${missing} b", &v, "x.tmpl", 33, &out, &e) == LENS_EFORMAT &&
                  strstr(e.msg, "x.tmpl:33: unknown placeholder ${missing}"), "unknown placeholder: %s", e.msg);
    LENS_TEST(lens_template_expand("cost $5", &v, "x.tmpl", 9, &out, &e) == LENS_EFORMAT &&
                  strstr(e.msg, "x.tmpl:9"), "lone dollar: %s", e.msg);
    LENS_TEST(lens_template_expand("open ${never", &v, "x.tmpl", 2, &out, &e) == LENS_EFORMAT, "unterminated");
    /* plurals: the noun follows the count, singular only for exactly 1 */
    LENS_TEST(lens_template_vars_set(&v, "one", "1", &e) == LENS_OK, "set one");
    LENS_TEST(lens_template_expand("${one|host|hosts}, ${n|host|hosts}", &v, "x.tmpl", 3, &out, &e) == LENS_OK &&
                  out && !strcmp(out, "1 host, 42 hosts"), "plural '%s'", out ? out : "");
    lens_free(out);
    out = NULL;
    LENS_TEST(lens_template_expand("${n|host}", &v, "x.tmpl", 4, &out, &e) == LENS_EFORMAT &&
                  strstr(e.msg, "x.tmpl:4: plural"), "plural without its many form: %s", e.msg);
    LENS_TEST(lens_template_expand("${nope|a|b}", &v, "x.tmpl", 5, &out, &e) == LENS_EFORMAT &&
                  strstr(e.msg, "unknown placeholder ${nope}"), "plural of an unknown count: %s", e.msg);

    /* drawing: a one-section template through the hooks, checked with pdftotext */
    struct lens_template *t2 = NULL;
    rc = lens_template_parse("footer p${page}/${pages}\nsection s\nh1 Раздел ${what}\npara cost $$${cost}\n"
                             "field узел | n${n}\nfield b | 2\ntable rows\ncolumn right 0.3 len\n"
                             "column left 0 pair ${what}\nblock zzblockname\nnote fin\n",
                             "draw.tmpl", &t2, &e);
    LENS_TEST(rc == LENS_OK, "parse draw template: %s", e.msg);
    struct lens_pdf *pdf = NULL;
    struct ctx cx = {0, 0};
    struct lens_template_hooks hooks = {tab, blk};
    char dir[] = "/tmp/mpilens-tmpl-XXXXXX", path[256], cmd[512];
    LENS_TEST(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/t.pdf", dir);
    if (rc == LENS_OK && lens_pdf_new(&pdf, "fonts", &e) == LENS_OK) {
        lens_pdf_set_footer(pdf, t2->footer, &e);
        rc = lens_template_render(t2, &t2->sections[0], &v, &hooks, &cx, pdf, &e);
        LENS_TEST(rc == LENS_OK, "render: %s", e.msg);
        LENS_TEST(cx.tables == 1 && cx.blocks == 1, "hooks called %d %d", cx.tables, cx.blocks);
        LENS_TEST(lens_pdf_save(pdf, path, &e) == LENS_OK, "save: %s", e.msg);
        lens_pdf_free(pdf);
        snprintf(cmd, sizeof cmd, "pdftotext -layout %s - 2>/dev/null", path);
        FILE *fp = popen(cmd, "r");
        char txt[8192] = "";
        size_t n = fp ? fread(txt, 1, sizeof txt - 1, fp) : 0;
        txt[n] = '\0';
        if (fp)
            pclose(fp);
        const char *want[] = {"Раздел задержки", "cost $12.5", "узел", "n42", "pair задержки",
                              "3 -> 1 (узел-7)", "65536", "zzblockname", "fin", "p1/1"};
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
            LENS_TEST(strstr(txt, want[i]) != NULL, "pdf text lacks '%s'", want[i]);
        unlink(path);
    }
    rmdir(dir);
    /* a section without hooks cannot hold tables */
    LENS_TEST(lens_pdf_new(&pdf, "fonts", &e) == LENS_OK, "pdf");
    rc = lens_template_render(t2, &t2->sections[0], &v, NULL, NULL, pdf, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "draw.tmpl:7"), "table without hooks: %s", e.msg);
    lens_pdf_free(pdf);
    lens_template_free(t2);
    lens_template_vars_release(&v);
    lens_template_free(t);
    lens_template_free(NULL);

    /* parse errors name the file and line */
    parse_fails("section a\nbogus word\n", LENS_EFORMAT, "bad.tmpl:2: unknown keyword 'bogus'");
    parse_fails("para before any section\n", LENS_EFORMAT, "bad.tmpl:1: 'para' outside a section");
    parse_fails("section a\ncolumn left 0.2 x\n", LENS_EFORMAT, "bad.tmpl:2: 'column' must follow");
    parse_fails("section a\ntable t\ncolumn middle 0.2 x\n", LENS_EFORMAT, "bad.tmpl:3: column alignment 'middle'");
    parse_fails("section a\ntable t\ncolumn left 1.5 x\n", LENS_EFORMAT, "bad.tmpl:3: expected 'column");
    parse_fails("section a\ntable t\npara x\n", LENS_EFORMAT, "bad.tmpl:2: table 't' has no column lines");
    parse_fails("repeat inputs\nsection a\n", LENS_EFORMAT, "'repeat inputs' without 'end'");
    parse_fails("section a\nend\n", LENS_EFORMAT, "bad.tmpl:2: 'end' without 'repeat'");
    parse_fails("repeat inputs\nrepeat inputs\n", LENS_EFORMAT, "bad.tmpl:2: 'repeat' inside a repeat");
    parse_fails("repeat hosts\n", LENS_EFORMAT, "bad.tmpl:1: expected 'repeat inputs'");
    parse_fails("section a\n\n   orphan\n", LENS_EFORMAT, "bad.tmpl:3: indented line continues nothing");
    parse_fails("section a\nfield no bar\n", LENS_EFORMAT, "bad.tmpl:2: expected 'field LABEL | VALUE'");
    parse_fails("section a\nspace lots\n", LENS_EFORMAT, "bad.tmpl:2: expected 'space POINTS'");
    parse_fails("section two words\n", LENS_EFORMAT, "bad.tmpl:1: expected 'section NAME'");
    parse_fails("# only comments\n\n", LENS_EFORMAT, "bad.tmpl: no sections");

    /* files: missing, binary, and the shipped template */
    LENS_TEST(lens_template_load("/nonexistent/r.tmpl", &t, &e) == LENS_EIO && !t &&
                  strstr(e.msg, "/nonexistent/r.tmpl: cannot open template"), "missing file: %s", e.msg);
    char bin[] = "/tmp/mpilens-tmpl-bin-XXXXXX";
    int fd = mkstemp(bin);
    LENS_TEST(fd >= 0 && write(fd, "section a\n\0\1\2", 13) == 13, "binary file");
    close(fd);
    LENS_TEST(lens_template_load(bin, &t, &e) == LENS_EFORMAT && strstr(e.msg, "NUL"), "binary: %s", e.msg);
    unlink(bin);
    rc = lens_template_load("templates/report.tmpl", &t, &e);
    LENS_TEST(rc == LENS_OK && t && t->nsections >= 6 && t->footer, "shipped template: %s", e.msg);
    lens_template_free(t);

    /* every allocation failure during parsing is reported and leaks nothing (ASan checks) */
    int failures = 0, steps = 0;
    for (long n = 1; n < 2000; n++, steps++) {
        lens_malloc_fail_after(n);
        t = NULL;
        rc = lens_template_parse(good, "good.tmpl", &t, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            lens_template_free(t);
            break;
        }
        failures += rc == LENS_ENOMEM && t == NULL;
    }
    LENS_TEST(steps > 20 && failures == steps, "allocation failures: %d of %d reported as ENOMEM", failures, steps);
    return LENS_TEST_DONE("test_template");
}
