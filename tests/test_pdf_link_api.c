/* Tests for the link block of render/doc/pdf.c (issue 15): the rectangles of drawn text and
 * table cells, links to pages drawn later, and every error path; the links are read back
 * with poppler (pdftohtml -xml lists each link with the words it covers and its target). */
#include "render/doc/pdf.h"
#include "lens_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs a shell command and returns its stdout (malloc'd, NUL-terminated; "" on failure). */
static char *run(const char *cmd)
{
    FILE *fp = popen(cmd, "r");
    size_t n = 0, cap = 1 << 16, k;
    char *out = malloc(cap);
    if (!fp || !out) {
        if (fp)
            pclose(fp);
        free(out);
        return strdup("");
    }
    while ((k = fread(out + n, 1, cap - n - 1, fp)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *np = realloc(out, cap *= 2);
            if (!np)
                break;
            out = np;
        }
    }
    out[n] = '\0';
    pclose(fp);
    return out;
}

/* Occurrences of s in text. */
static int count(const char *text, const char *s)
{
    int n = 0;
    for (const char *q = text; (q = strstr(q, s)); q += strlen(s))
        n++;
    return n;
}

/* Three pages: page one links its paragraph forward to page three and a table cell to page
 * two, both made before those pages exist. Returns the status of lens_pdf_save. */
static int three_pages(const char *path, int target, struct lens_err *e)
{
    struct lens_pdf *p;
    if (lens_pdf_new(&p, "fonts", e) != LENS_OK)
        return -100;
    struct lens_pdf_rect r;
    lens_pdf_set_info(p, "links", NULL, 1700000000, e);
    lens_pdf_heading(p, 1, "Page one", e);
    lens_pdf_paragraph(p, "see page three", e);
    LENS_TEST(lens_pdf_text_rect(p, &r) == 1 && r.page == 0, "paragraph rect on page one");
    LENS_TEST(lens_pdf_link(p, &r, target, e) == LENS_OK, "forward link: %s", e->msg);
    const struct lens_pdf_column cols[2] = {{"name", LENS_PDF_LEFT, 0.5}, {"where", LENS_PDF_LEFT, 0}};
    lens_pdf_table_begin(p, cols, 2, LENS_PDF_SANS, e);
    lens_pdf_table_row(p, (const char *const[]){"row", "see page two"}, e);
    LENS_TEST(lens_pdf_table_cell_rect(p, 1, &r) == 1 && r.page == 0, "cell rect");
    LENS_TEST(lens_pdf_link(p, &r, 1, e) == LENS_OK, "cell link: %s", e->msg);
    lens_pdf_table_end(p, e);
    lens_pdf_new_page(p, e);
    lens_pdf_heading(p, 1, "Page two", e);
    lens_pdf_new_page(p, e);
    lens_pdf_heading(p, 1, "Page three", e);
    int rc = lens_pdf_save(p, path, e);
    lens_pdf_free(p);
    return rc;
}

int main(void)
{
    struct lens_err e = {0};
    struct lens_pdf *p = NULL;
    struct lens_pdf_rect r;
    char dir[] = "/tmp/lens-link-XXXXXX", a[64], b[64], bad[64], cmd[256];
    LENS_TEST(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(a, sizeof a, "%s/a.pdf", dir);
    snprintf(b, sizeof b, "%s/b.pdf", dir);
    snprintf(bad, sizeof bad, "%s/bad.pdf", dir);

    /* ---- rectangles ---- */
    LENS_TEST(lens_pdf_new(&p, "fonts", &e) == LENS_OK, "new: %s", e.msg);
    LENS_TEST(lens_pdf_text_rect(p, &r) == 0 && r.page == -1, "no text yet: no rectangle");
    r = (struct lens_pdf_rect){0, 0, 0, 10, 10};
    LENS_TEST(lens_pdf_link(p, &r, 0, &e) == LENS_EINVAL, "link before any page");
    LENS_TEST(lens_pdf_link(p, NULL, 0, &e) == LENS_EINVAL, "link without a rectangle");
    lens_pdf_paragraph(p, "one line", &e);
    LENS_TEST(lens_pdf_text_rect(p, &r) == 1, "text rectangle");
    /* the left margin is 56 points, the first baseline one body size (10) below the top margin
     * (841.89 - 56): the box reaches from the descender to the ascender of that line */
    LENS_TEST_REL(r.x0, 56.0, 1e-9, "left edge at the margin");
    LENS_TEST(r.x1 > r.x0 + 20 && r.x1 < r.x0 + 100, "width of \"one line\": %g", r.x1 - r.x0);
    LENS_TEST_REL(r.y0, 841.89 - 56 - 10 - 2.5, 1e-9, "bottom at the descender");
    LENS_TEST_REL(r.y1, 841.89 - 56 - 10 + 9.3, 1e-9, "top at the ascender");
    r.page = 1;
    LENS_TEST(lens_pdf_link(p, &r, 0, &e) == LENS_EINVAL, "link from a page that does not exist");
    r.page = 0;
    LENS_TEST(lens_pdf_link(p, &r, -1, &e) == LENS_EINVAL, "negative target");
    /* a text broken across a page: the rectangle is the part on the new page */
    lens_pdf_space(p, lens_pdf_remaining(p) - 15);
    lens_pdf_paragraph(p, "first line\nsecond line\nthird line", &e);
    LENS_TEST(lens_pdf_page_count(p) == 2, "the text broke across pages: %d", lens_pdf_page_count(p));
    LENS_TEST(lens_pdf_text_rect(p, &r) == 1 && r.page == 1, "rectangle on the last page: %d", r.page);
    LENS_TEST(r.y1 - r.y0 > 20 && r.y1 - r.y0 < 30, "two lines high: %g", r.y1 - r.y0);
    const struct lens_pdf_column cols[2] = {{"", LENS_PDF_LEFT, 0.5}, {"", LENS_PDF_RIGHT, 0}};
    LENS_TEST(lens_pdf_table_cell_rect(p, 0, &r) == 0 && r.page == -1, "no table: no cell");
    lens_pdf_table_begin(p, cols, 2, LENS_PDF_SANS, &e);
    lens_pdf_table_row(p, (const char *const[]){"", "right"}, &e);
    LENS_TEST(lens_pdf_table_cell_rect(p, 0, &r) == 0, "empty cell: no rectangle");
    LENS_TEST(lens_pdf_table_cell_rect(p, 2, &r) == 0, "column out of range");
    LENS_TEST(lens_pdf_table_cell_rect(p, 1, &r) == 1 && r.page == 1, "right-aligned cell");
    /* right-aligned: the text ends at the column's right edge less the 4-point cell padding */
    LENS_TEST_REL(r.x1, 595.276 - 56 - 4, 1e-9, "right edge");
    lens_pdf_table_end(p, &e);
    LENS_TEST(lens_pdf_table_cell_rect(p, 1, &r) == 0, "table ended: no cell");
    lens_pdf_table_begin(p, cols, 2, LENS_PDF_SANS, &e);
    LENS_TEST(lens_pdf_table_cell_rect(p, 1, &r) == 0, "a new table: no cell of the old one");
    lens_pdf_table_end(p, &e);
    lens_pdf_free(p);

    /* ---- links read back by poppler ---- */
    LENS_TEST(three_pages(a, 2, &e) == LENS_OK, "save: %s", e.msg);
    snprintf(cmd, sizeof cmd, "pdftohtml -xml -i -stdout %s 2>&1", a);
    char *xml = run(cmd);
    LENS_TEST(count(xml, "<a href=\"a.html#3\">see page three</a>") == 1, "paragraph link to page 3:\n%s", xml);
    LENS_TEST(count(xml, "<a href=\"a.html#2\">see page two</a>") == 1, "cell link to page 2");
    LENS_TEST(count(xml, "<a ") == 2, "two links, no more");
    LENS_TEST(!strstr(xml, "Error") && !strstr(xml, "Warning"), "poppler is silent");
    free(xml);
    snprintf(cmd, sizeof cmd, "grep -ac '/Border \\[ 0 0 0 \\]' %s", a);
    xml = run(cmd);
    LENS_TEST(atoi(xml) == 2, "both links without a border: %s", xml);
    free(xml);
    LENS_TEST(three_pages(b, 2, &e) == LENS_OK, "save again: %s", e.msg);
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", a, b);
    LENS_TEST(system(cmd) == 0, "byte-identical");
    /* a target that never came to exist fails the save, which writes nothing */
    LENS_TEST(three_pages(bad, 3, &e) == LENS_EINVAL, "target page 4 of 3");
    LENS_TEST(strstr(e.msg, "page 4 of a 3-page document") != NULL, "message: %s", e.msg);
    LENS_TEST(access(bad, F_OK) != 0, "no file after a failed save");

    unlink(a);
    unlink(b);
    rmdir(dir);
    return LENS_TEST_DONE("test_pdf_link_api");
}
