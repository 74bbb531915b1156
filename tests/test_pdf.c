/* Tests for render/doc/pdf.c: a document with Cyrillic text, a table spanning several pages, a
 * cairo-made PNG and nested outlines, checked independently with poppler (pdfinfo, pdftotext
 * -bbox, pdfimages); byte-identical output for a fixed date; figures as raw pixels (the
 * reports' form) giving the same PDF as their PNG; every error path. */
#include "render/doc/pdf.h"
#include "render/fig/figure.h"
#include "common/alloc.h"
#include "lens_test.h"

#include <cairo.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct membuf {
    unsigned char *p;
    size_t n, cap;
};

static cairo_status_t mem_write(void *closure, const unsigned char *data, unsigned int len)
{
    struct membuf *b = closure;
    if (b->n + len > b->cap) {
        size_t cap = (b->n + len) * 2;
        unsigned char *np = realloc(b->p, cap);
        if (!np)
            return CAIRO_STATUS_NO_MEMORY;
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    return CAIRO_STATUS_SUCCESS;
}

/* A 317 x 211 diagonal gradient, the picture both image paths are checked with. */
static cairo_surface_t *gradient(void)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 317, 211);
    cairo_t *cr = cairo_create(s);
    cairo_pattern_t *g = cairo_pattern_create_linear(0, 0, 317, 211);
    cairo_pattern_add_color_stop_rgb(g, 0, 0.27, 0.0, 0.33);
    cairo_pattern_add_color_stop_rgb(g, 1, 0.99, 0.91, 0.14);
    cairo_set_source(cr, g);
    cairo_paint(cr);
    cairo_pattern_destroy(g);
    cairo_destroy(cr);
    return s;
}

/* A 317 x 211 PNG with a diagonal gradient, made with cairo. */
static struct membuf make_png(void)
{
    struct membuf b = {0};
    cairo_surface_t *s = gradient();
    cairo_surface_write_to_png_stream(s, mem_write, &b);
    cairo_surface_destroy(s);
    return b;
}

/* Runs a shell command and returns its stdout (malloc'd, NUL-terminated). */
static char *run(const char *cmd)
{
    FILE *fp = popen(cmd, "r");
    if (!fp)
        return strdup("");
    size_t n = 0, cap = 4096;
    char *out = malloc(cap);
    size_t k;
    while ((k = fread(out + n, 1, cap - n - 1, fp)) > 0) {
        n += k;
        if (cap - n < 2048) {
            cap *= 2;
            out = realloc(out, cap);
        }
    }
    out[n] = '\0';
    pclose(fp);
    return out;
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static const char *const words[] = {"латентность", "bandwidth", "узел", "rendezvous", "eager",
                                    "коммуникатор", "sender", "матрица", "jitter", "MPI_Send"};

/* Builds the test document; returns its page count or -1. */
static int build(const char *path, const struct membuf *png, struct lens_err *e)
{
    struct lens_pdf *p = NULL;
    if (lens_pdf_new(&p, "fonts", e) != LENS_OK)
        return -1;
    int rc = lens_pdf_set_info(p, "Проверка отчёта", "pdf test", 1715860800LL, e);
    if (rc == LENS_OK)
        rc = lens_pdf_set_footer(p, "page ${page} of ${pages}", e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(p, 0, "Отчёт о задержках: кластер «Ломоносов»", e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(p, 1, "Сводка", e);
    /* a long paragraph with a word wider than the page */
    char para[6000];
    size_t o = 0;
    unsigned seed = 2654435761u;
    for (int i = 0; i < 260 && o < sizeof para - 64; i++) {
        seed = seed * 1103515245u + 12345u;
        o += (size_t)snprintf(para + o, sizeof para - o, "%s ", words[(seed >> 16) % 10]);
    }
    snprintf(para + o, sizeof para - o, "Ж%s", "0123456789abcdefghijklmnopqrstuvwxyz0123456789"
                                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdef");
    if (rc == LENS_OK)
        rc = lens_pdf_paragraph(p, para, e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(p, 2, "Таблица pairs", e);
    struct lens_pdf_column cols[4] = {{"rank", LENS_PDF_RIGHT, 0.1},
                                      {"host", LENS_PDF_LEFT, 0},
                                      {"delay, µs", LENS_PDF_RIGHT, 0.2},
                                      {"note", LENS_PDF_LEFT, 0.35}};
    if (rc == LENS_OK)
        rc = lens_pdf_table_begin(p, cols, 4, LENS_PDF_MONO, e);
    for (int i = 0; i < 137 && rc == LENS_OK; i++) {
        char c0[16], c1[64], c2[32], c3[128];
        seed = seed * 1103515245u + 12345u;
        snprintf(c0, sizeof c0, "%d", i * 7 + 3);
        snprintf(c1, sizeof c1, "узел-%03u", (seed >> 8) % 997);
        snprintf(c2, sizeof c2, "%.4f", ((seed >> 4) % 100000) / 997.0);
        snprintf(c3, sizeof c3, i % 11 == 0 ? "%s %s %s %s %s %s" : "%s", words[i % 10],
                 words[(i + 3) % 10], words[(i + 5) % 10], words[(i + 7) % 10], words[(i + 1) % 10],
                 words[(i + 2) % 10]);
        const char *cells[4] = {c0, c1, c2, c3};
        rc = lens_pdf_table_row(p, cells, e);
    }
    if (rc == LENS_OK)
        rc = lens_pdf_table_end(p, e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(p, 1, "Рисунки", e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(p, 2, "heatmap 4096 B", e);
    if (rc == LENS_OK)
        rc = lens_pdf_image_png(p, png->p, png->n, 300, e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(p, 3, "деталь", e);
    if (rc == LENS_OK)
        rc = lens_pdf_paragraph(p, "конец документа END-MARKER-5521", e);
    int pages = lens_pdf_page_count(p);
    if (rc == LENS_OK)
        rc = lens_pdf_save(p, path, e);
    lens_pdf_free(p);
    return rc == LENS_OK ? pages : -1;
}

/* Occurrences of needle in len bytes of hay (binary-safe). */
static long count_mem(const char *hay, size_t len, const char *needle)
{
    long n = 0;
    size_t k = strlen(needle);
    for (const char *s = hay, *end = hay + len; (s = memmem(s, (size_t)(end - s), needle, k)); s++)
        n++;
    return n;
}

static long count(const char *hay, const char *needle) { return count_mem(hay, strlen(hay), needle); }

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, fp);
    b[*len] = '\0';
    fclose(fp);
    return b;
}

/* A one-page document with img placed 300 points high at most; saved to path (NULL: not saved,
 * the page count is returned). */
static int one_image(const char *path, const unsigned char *img, size_t n, struct lens_err *e)
{
    struct lens_pdf *p = NULL;
    int rc = lens_pdf_new(&p, "fonts", e);
    if (rc == LENS_OK)
        rc = lens_pdf_set_info(p, "raw", NULL, 1715860800LL, e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(p, 1, "figure", e);
    if (rc == LENS_OK)
        rc = lens_pdf_image_png(p, img, n, 300, e);
    for (int i = 0; i < 40 && rc == LENS_OK; i++)
        rc = lens_pdf_paragraph(p, "text after the figure, to see it moves the cursor alike", e);
    int pages = lens_pdf_page_count(p);
    if (rc == LENS_OK && path)
        rc = lens_pdf_save(p, path, e);
    lens_pdf_free(p);
    return rc == LENS_OK ? pages : rc;
}

/* The figure memory forms of the reports (figure.h): RAW pixels must give the very PDF the PNG
 * gave (libharu decoded the PNG to the same RGB stream, deflated alike), SIZE must lay the page
 * out alike and refuse to be saved, a cut RAW image is refused. */
static void test_raw(const char *dir, const struct membuf *png)
{
    struct lens_err e;
    lens_err_clear(&e);
    char a[256], b[256], c[256], cmd[1024];
    snprintf(a, sizeof a, "%s/png.pdf", dir);
    snprintf(b, sizeof b, "%s/raw.pdf", dir);
    snprintf(c, sizeof c, "%s/size.pdf", dir);
    /* the gradient of make_png again, handed over as pixels */
    cairo_surface_t *s = gradient();
    unsigned char *raw = NULL, *sz = NULL;
    size_t nraw = 0, nsz = 0;
    int prev = lens_figure_memory_form(LENS_FIGURE_MEM_RAW);
    LENS_TEST(lens_figure_png_mem(s, "gradient", &raw, &nraw, &e) == LENS_OK && nraw == 16 + 317 * 211 * 3,
              "raw bytes: %zu (%s)", nraw, e.msg);
    lens_figure_memory_form(LENS_FIGURE_MEM_SIZE);
    LENS_TEST(lens_figure_png_mem(s, "gradient", &sz, &nsz, &e) == LENS_OK && nsz == 16, "size bytes: %zu", nsz);
    lens_figure_memory_form(prev);
    cairo_surface_destroy(s);

    int pages = one_image(a, png->p, png->n, &e);
    LENS_TEST(pages >= 2, "png document: %d pages (%s)", pages, e.msg);
    LENS_TEST(raw && one_image(b, raw, nraw, &e) == pages, "raw document: %s", e.msg);
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", a, b);
    LENS_TEST(system(cmd) == 0, "raw pixels give the PNG's PDF byte for byte");
    snprintf(cmd, sizeof cmd, "pdfimages -list %s 2>&1 >/dev/null | wc -c; pdftotext %s - 2>&1 >/dev/null | wc -c", b, b);
    char *out = run(cmd);
    LENS_TEST(!strcmp(out, "0\n0\n"), "poppler prints no warnings: '%s'", out);
    free(out);

    LENS_TEST(sz && one_image(NULL, sz, nsz, &e) == pages, "size only lays out alike: %s", e.msg);
    LENS_TEST(sz && one_image(c, sz, nsz, &e) == LENS_EINVAL && strstr(e.msg, "size only") && !exists(c),
              "a size-only document is not saved: %s", e.msg);
    LENS_TEST(raw && one_image(c, raw, nraw - 3, &e) == LENS_EFORMAT && strstr(e.msg, "header") && !exists(c),
              "a cut raw image: %s", e.msg);
    unlink(a);
    unlink(b);
    lens_free(raw);
    lens_free(sz);
}

/* A section's heading whose prose fills its page: the table it introduces starts on the next
 * page, and the page a citation names (lens_pdf_heading_page) is still the heading's. */
static void test_heading_page(void)
{
    struct lens_pdf *p = NULL;
    struct lens_err e;
    LENS_TEST(lens_pdf_new(&p, "fonts", &e) == LENS_OK, "new: %s", e.msg);
    if (!p)
        return;
    LENS_TEST(lens_pdf_heading_page(p, 2) == 0, "no heading yet: 0");
    int rc = lens_pdf_heading(p, 1, "Input", &e);
    /* fill page 1 until only room for the heading, its four kept lines and a little more */
    while (rc == LENS_OK && lens_pdf_remaining(p) > 140)
        rc = lens_pdf_paragraph(p, "filler line", &e);
    if (rc == LENS_OK)
        rc = lens_pdf_heading(p, 2, "Retests", &e);
    int at = lens_pdf_page_count(p);
    for (int k = 0; rc == LENS_OK && k < 3; k++)
        rc = lens_pdf_paragraph(p, "prose under the heading", &e);
    if (rc == LENS_OK)
        rc = lens_pdf_need(p, 200, &e); /* the table's header and first rows do not fit */
    LENS_TEST(rc == LENS_OK, "drawing: %s", e.msg);
    LENS_TEST(lens_pdf_page_count(p) == at + 1, "the table moved to the next page (%d, heading on %d)",
              lens_pdf_page_count(p), at);
    LENS_TEST(lens_pdf_heading_page(p, 2) == at, "the citation names the heading's page %d, got %d", at,
              lens_pdf_heading_page(p, 2));
    LENS_TEST(lens_pdf_heading_page(p, 1) == 1 && lens_pdf_heading_page(p, 9) == 0,
              "h1 on page 1 (%d); a level out of range is 0", lens_pdf_heading_page(p, 1));
    lens_pdf_free(p);
}

int main(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    char dir[] = "/tmp/mpilens-pdf-XXXXXX";
    LENS_TEST(mkdtemp(dir) != NULL, "mkdtemp");
    char a[256], b[256], cmd[1024];
    snprintf(a, sizeof a, "%s/a.pdf", dir);
    snprintf(b, sizeof b, "%s/b.pdf", dir);
    struct membuf png = make_png();
    LENS_TEST(png.n > 100, "cairo made a png (%zu bytes)", png.n);

    int pages = build(a, &png, &e);
    LENS_TEST(pages >= 4, "document built with %d pages: %s", pages, e.msg);
    snprintf(cmd, sizeof cmd, "pdfinfo %s 2>/dev/null | sed -n 's/^Pages: *//p'", a);
    char *out = run(cmd);
    LENS_TEST(atoi(out) == pages, "pdfinfo pages '%s' want %d", out, pages);
    free(out);
    snprintf(cmd, sizeof cmd, "pdfinfo %s 2>/dev/null", a);
    out = run(cmd);
    LENS_TEST(strstr(out, "Проверка отчёта") != NULL, "utf-8 title in info: %s", out);
    LENS_TEST(strstr(out, "May 16 12:00:00 2024") != NULL, "creation date from the given time: %s", out);
    free(out);

    snprintf(cmd, sizeof cmd, "pdftotext -layout %s - 2>/dev/null", a);
    char *text = run(cmd);
    LENS_TEST(strstr(text, "Отчёт о задержках") != NULL, "cyrillic title extracts");
    LENS_TEST(strstr(text, "«Ломоносов»") != NULL, "guillemets extract");
    LENS_TEST(strstr(text, "delay, µs") != NULL, "micro sign in the table header");
    LENS_TEST(strstr(text, "END-MARKER-5521") != NULL, "last paragraph present");
    LENS_TEST(strstr(text, "955") != NULL, "last table row (rank 955) present");
    char want[64];
    for (int i = 1; i <= pages; i++) {
        snprintf(want, sizeof want, "page %d of %d", i, pages);
        LENS_TEST(strstr(text, want) != NULL, "footer '%s' present", want);
    }
    /* the table header repeats on every page the table spans */
    LENS_TEST(count(text, "delay, µs") >= 2, "table header repeated (%ld times)", count(text, "delay, µs"));
    free(text);

    /* every word lies between the margins: wrapping and long-word cutting work */
    snprintf(cmd, sizeof cmd,
             "pdftotext -bbox %s - 2>/dev/null | sed -n 's/.*xMin=\"\\([0-9.]*\\)\".*xMax=\"\\([0-9.]*\\)\".*/\\1 \\2/p'"
             " | awk '$1 < 55.5 || $2 > 539.8 { bad++ } END { print NR, bad + 0 }'",
             a);
    out = run(cmd);
    int nwords = 0, bad = -1;
    sscanf(out, "%d %d", &nwords, &bad);
    LENS_TEST(nwords > 500 && bad == 0, "words inside the margins: %d words, %d outside", nwords, bad);
    free(out);

    snprintf(cmd, sizeof cmd, "pdfimages -list %s 2>/dev/null | awk 'NR > 2 { print $4, $5 }'", a);
    out = run(cmd);
    LENS_TEST(!strcmp(out, "317 211\n"), "one 317x211 image embedded, got '%s'", out);
    free(out);

    /* outlines: 5 headings of levels 1-3 (the title has none); dictionaries are not compressed */
    size_t len = 0;
    char *raw = slurp(a, &len);
    LENS_TEST(raw && count_mem(raw, len, "/Dest ") == 5, "5 outline entries, got %ld",
              raw ? count_mem(raw, len, "/Dest ") : -1L);
    LENS_TEST(raw && count_mem(raw, len, "/PageMode /UseOutlines") == 1, "outline panel opens");
    LENS_TEST(raw && count_mem(raw, len, "/Filter [ /FlateDecode") > 3, "streams compressed");
    free(raw);

    /* deterministic: the same document twice gives the same bytes */
    LENS_TEST(build(b, &png, &e) == pages, "second build: %s", e.msg);
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", a, b);
    LENS_TEST(system(cmd) == 0, "two builds are byte-identical");
    test_raw(dir, &png);

    /* errors */
    struct lens_pdf *p = NULL;
    LENS_TEST(lens_pdf_new(&p, "/nonexistent/fonts", &e) == LENS_EIO && !p, "missing fonts");
    LENS_TEST(strstr(e.msg, "/nonexistent/fonts/DejaVuSans.ttf") != NULL, "message names the font: %s", e.msg);
    LENS_TEST(lens_pdf_new(&p, "fonts", &e) == LENS_OK, "new: %s", e.msg);
    const char *cells[2] = {"x", "y"};
    LENS_TEST(lens_pdf_table_row(p, cells, &e) == LENS_EINVAL, "row outside a table");
    LENS_TEST(lens_pdf_table_begin(p, NULL, 0, LENS_PDF_SANS, &e) == LENS_EINVAL, "zero columns");
    LENS_TEST(lens_pdf_heading(p, 4, "x", &e) == LENS_EINVAL, "heading level 4");
    unsigned char junk[64];
    for (int i = 0; i < 64; i++)
        junk[i] = (unsigned char)(i * 37 + 11);
    memcpy(junk, "\x89PNG\r\n\x1a\n", 8);
    LENS_TEST(lens_pdf_image_png(p, junk, sizeof junk, 0, &e) == LENS_EFORMAT, "corrupt png: %s", e.msg);
    LENS_TEST(strstr(e.msg, "png") != NULL, "message says png: %s", e.msg);
    LENS_TEST(lens_pdf_paragraph(p, "после ошибки", &e) == LENS_OK, "document usable after a bad png: %s", e.msg);
    char bad_path[300];
    snprintf(bad_path, sizeof bad_path, "%s/no/such/dir/x.pdf", dir);
    LENS_TEST(lens_pdf_save(p, bad_path, &e) < 0, "save into a missing directory fails");
    LENS_TEST(strstr(e.msg, bad_path) != NULL, "message names the file: %s", e.msg);
    lens_pdf_free(p);
    lens_pdf_free(NULL);
    snprintf(cmd, sizeof cmd, "ls %s | wc -l", dir);
    out = run(cmd);
    LENS_TEST(atoi(out) == 2, "only a.pdf and b.pdf in the directory, got %s", out);
    free(out);

    /* every allocation failure is reported as ENOMEM, never a crash or a leak (ASan) */
    int steps = 0, reported = 0;
    for (long n = 1; n < 500; n++, steps++) {
        lens_malloc_fail_after(n);
        struct lens_pdf *q = NULL;
        int rc = lens_pdf_new(&q, "fonts", &e);
        const char *row[3] = {"узел-1", "3.25", "a long cell that has to wrap inside its narrow column"};
        struct lens_pdf_column c3[3] = {{"h", 0, 0.2}, {"v", 1, 0.2}, {"note", 0, 0.1}};
        if (rc == LENS_OK)
            rc = lens_pdf_set_footer(q, "page ${page}", &e);
        if (rc == LENS_OK)
            rc = lens_pdf_heading(q, 1, "раздел", &e);
        if (rc == LENS_OK)
            rc = lens_pdf_paragraph(q, "a paragraph of several words to wrap", &e);
        if (rc == LENS_OK)
            rc = lens_pdf_table_begin(q, c3, 3, LENS_PDF_SANS, &e);
        for (int i = 0; i < 3 && rc == LENS_OK; i++)
            rc = lens_pdf_table_row(q, row, &e);
        if (rc == LENS_OK)
            rc = lens_pdf_table_end(q, &e);
        lens_malloc_fail_after(0);
        lens_pdf_free(q);
        if (rc == LENS_OK)
            break;
        reported += rc == LENS_ENOMEM;
    }
    LENS_TEST(steps >= 5 && reported == steps, "allocation failures: %d of %d reported as ENOMEM", reported, steps);

    free(png.p);
    if (lens_test_failed || getenv("KEEP")) {
        fprintf(stderr, "test_pdf: files kept in %s\n", dir);
    } else {
        unlink(a);
        unlink(b);
        rmdir(dir);
    }
    (void)exists;
    test_heading_page();
    return LENS_TEST_DONE("test_pdf");
}
