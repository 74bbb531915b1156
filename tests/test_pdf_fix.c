/* Tests for render/doc/pdf_fix.c. A PDF made here with libharu 2.3 directly (UTF-8 TrueType
 * fonts, the defect present: poppler warns "begincidrange") with ASCII, Cyrillic, symbols and
 * accented letters; after lens_pdf_fix_tounicode: poppler prints nothing on stderr and
 * extracts exactly the lines drawn, qpdf --check passes, and tests/test_pdfvalid.py decodes
 * every shown string through the ToUnicode CMaps as qpdf reads them (not our parser) back to
 * the lines drawn. Also: the CMap text by hand, unchanged input for a PDF without the defect,
 * idempotence, determinism, the whole path through lens_pdf_save, malformed and truncated
 * input (LENS_EFORMAT, never a crash), and every allocation failure (LENS_ENOMEM). */
#include "render/doc/pdf.h"
#include "render/doc/pdf_fix.h"
#include "lens_test.h"

#include <hpdf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What the test draws: one line per Tj, font 0 = DejaVuSans, 1 = DejaVuSans-Bold. */
static const char *const lines[] = {
    "ASCII: The quick brown fox jumps over 13 lazy dogs (x) [y] {z} <a> \\ % # ~",
    "Кириллица: латентность, узел, матрица, ЁЖЩЪ ёжщъ",
    "Symbols: 2.5 µs ≥ 1·10³ ± 0.1 ° € — – … « » ≠ ≤ → ∞",
    "Accents: café naïve résumé Ångström Dvořák Łódź straße señor",
    "Задержки кластера «Ломоносов»",
};
static const int line_font[] = {0, 0, 0, 1, 1};
#define NLINES 5

static void on_herr(HPDF_STATUS err, HPDF_STATUS detail, void *user)
{
    (void)detail;
    *(HPDF_STATUS *)user = err;
}

/* The lines on two pages through libharu alone, saved to memory: libharu's bytes as they are. */
static unsigned char *libharu_pdf(size_t *n)
{
    HPDF_STATUS herr = 0;
    HPDF_Doc doc = HPDF_New(on_herr, &herr);
    if (!doc)
        return NULL;
    HPDF_SetCompressionMode(doc, HPDF_COMP_ALL);
    HPDF_UseUTFEncodings(doc);
    HPDF_SetCurrentEncoder(doc, "UTF-8");
    HPDF_Font f[2];
    const char *files[2] = {"fonts/DejaVuSans.ttf", "fonts/DejaVuSans-Bold.ttf"};
    for (int i = 0; i < 2; i++)
        f[i] = HPDF_GetFont(doc, HPDF_LoadTTFontFromFile(doc, files[i], HPDF_TRUE), "UTF-8");
    for (int pg = 0; pg < 2; pg++) {
        HPDF_Page page = HPDF_AddPage(doc);
        for (int i = pg * 3; i < NLINES && i < pg * 3 + 3; i++) {
            HPDF_Page_BeginText(page);
            HPDF_Page_SetFontAndSize(page, f[line_font[i]], 11);
            HPDF_Page_TextOut(page, 40, (HPDF_REAL)(780 - 30 * i), lines[i]);
            HPDF_Page_EndText(page);
        }
    }
    HPDF_SaveToStream(doc);
    HPDF_UINT32 size = HPDF_GetStreamSize(doc), got = size;
    unsigned char *b = size ? malloc(size) : NULL;
    HPDF_ResetStream(doc);
    if (b)
        HPDF_ReadFromStream(doc, b, &got);
    HPDF_Free(doc);
    if (!b || herr || got != size) {
        free(b);
        return NULL;
    }
    *n = size;
    return b;
}

static char *run(const char *cmd)
{
    FILE *fp = popen(cmd, "r");
    size_t n = 0, cap = 1 << 16;
    char *out = malloc(cap);
    if (!fp || !out) {
        if (fp)
            pclose(fp);
        free(out);
        return strdup("");
    }
    size_t k;
    while ((k = fread(out + n, 1, cap - n - 1, fp)) > 0) {
        n += k;
        if (cap - n < 4096) {
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

static int write_file(const char *path, const unsigned char *b, size_t n)
{
    FILE *fp = fopen(path, "wb");
    int ok = fp && fwrite(b, 1, n, fp) == n;
    if (fp && fclose(fp) != 0)
        ok = 0;
    return ok;
}

/* Every drawn line, in order, one per line of text (what both extractors must give back). */
static int has_lines_in_order(const char *text)
{
    const char *s = text;
    for (int i = 0; i < NLINES; i++) {
        const char *hit = strstr(s, lines[i]);
        if (!hit)
            return 0;
        s = hit + strlen(lines[i]);
    }
    return 1;
}

/* The checks of a repaired file with the tools (poppler, qpdf, the ToUnicode decoder). */
static void check_tools(const char *path, const char *what)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "pdftotext %s - 2>&1 >/dev/null", path);
    char *err = run(cmd);
    LENS_TEST(err[0] == '\0', "%s: pdftotext warns: %.300s", what, err);
    free(err);
    snprintf(cmd, sizeof cmd, "pdftotext %s - 2>/dev/null", path);
    char *t = run(cmd);
    LENS_TEST(has_lines_in_order(t), "%s: pdftotext does not give the lines drawn:\n%s", what, t);
    free(t);
    snprintf(cmd, sizeof cmd, "qpdf --check %s 2>&1; echo \"exit $?\"", path);
    char *q = run(cmd);
    LENS_TEST(strstr(q, "No syntax or stream encoding errors") && strstr(q, "exit 0") &&
                  !strstr(q, "WARNING") && !strstr(q, "error:"),
              "%s: qpdf --check: %s", what, q);
    free(q);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 tests/test_pdfvalid.py tounicode %s 2>&1", path);
    char *d = run(cmd);
    LENS_TEST(has_lines_in_order(d), "%s: the shown codes through qpdf's ToUnicode: %s", what, d);
    free(d);
}

static void test_cmap_text(void)
{
    size_t n = lens_pdf_fix_cmap(NULL, 0);
    char *c = malloc(n + 1);
    LENS_TEST(c && lens_pdf_fix_cmap(c, n + 1) == n && strlen(c) == n, "cmap length %zu", n);
    if (!c)
        return;
    /* by hand: 0x00 row from U+0020, 0x01..0xD7 and 0xE0..0xFF rows, no surrogate rows:
     * 1 + 215 + 32 = 248 ranges in blocks of 100, 100, 48 */
    long ranges = 0;
    for (const char *s = c; (s = strstr(s, "> <")); s++)
        ranges++;
    LENS_TEST(ranges == 2 * 248 + 1, "range lines: %ld '> <' pairs, want 2*248 + codespace", ranges);
    LENS_TEST(strstr(c, "100 beginbfrange") && strstr(c, "48 beginbfrange") && !strstr(c, "cidrange"), "blocks");
    LENS_TEST(strstr(c, "<0020> <00FF> <0020>\n<0100> <01FF> <0100>\n"), "first rows");
    LENS_TEST(strstr(c, "<0400> <04FF> <0400>\n"), "Cyrillic row");
    LENS_TEST(strstr(c, "<D700> <D7FF> <D700>\n<E000> <E0FF> <E000>\n"), "surrogates skipped");
    LENS_TEST(strstr(c, "<FE00> <FEFE> <FE00>\n<FF00> <FFFD> <FF00>\n"), "U+FEFF and noncharacters skipped");
    LENS_TEST(strstr(c, "/CMapType 2 def") && strstr(c, "/Ordering (UCS)") && strstr(c, "<0000> <FFFF>"),
              "ToUnicode preamble");
    char small[16];
    LENS_TEST(lens_pdf_fix_cmap(small, sizeof small) == n && strlen(small) == sizeof small - 1, "truncated");
    free(c);
}

static void test_fix(const unsigned char *raw, size_t n, const char *dir)
{
    char path[512];
    /* the premise: libharu's file has the defect, and poppler says so */
    LENS_TEST(memmem(raw, n, "/CMapName /UTF-8", 16) != NULL, "libharu wrote its encoding CMap as ToUnicode");
    snprintf(path, sizeof path, "%s/raw.pdf", dir);
    LENS_TEST(write_file(path, raw, n), "write %s", path);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "pdftotext %s - 2>&1 >/dev/null", path);
    char *w = run(cmd);
    LENS_TEST(strstr(w, "begincidrange") != NULL, "poppler warns on libharu's own file: '%s'", w);
    free(w);

    unsigned char *out = NULL, *again = NULL, *twice = NULL;
    size_t on = 0, an = 0, tn = 0;
    int nf = -1, nf2 = -1;
    struct lens_err e = {0};
    LENS_TEST(lens_pdf_fix_tounicode(raw, n, &out, &on, &nf, &e) == LENS_OK, "fix: %s", e.msg);
    LENS_TEST(nf == 2, "two Type0 fonts repaired, got %d", nf);
    if (!out)
        return;
    LENS_TEST(!memmem(out, on, "/CMapName /UTF-8", 16), "no encoding CMap left in the file");
    LENS_TEST(on > n && memcmp(out, raw, 15) == 0, "header kept, %zu -> %zu bytes", n, on);
    snprintf(path, sizeof path, "%s/fixed.pdf", dir);
    LENS_TEST(write_file(path, out, on), "write %s", path);
    check_tools(path, "repaired");
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import sys; from pdfminer.high_level import extract_text;"
                              " sys.stdout.write(extract_text(sys.argv[1]))' %s 2>&1", path);
    char *m = run(cmd);
    LENS_TEST(has_lines_in_order(m), "pdfminer gives the lines drawn: %s", m);
    free(m);
    /* deterministic, and a repaired file has nothing left to repair */
    LENS_TEST(lens_pdf_fix_tounicode(raw, n, &again, &an, NULL, &e) == LENS_OK && an == on &&
                  !memcmp(again, out, on), "same input, same bytes");
    LENS_TEST(lens_pdf_fix_tounicode(out, on, &twice, &tn, &nf2, &e) == LENS_OK && nf2 == 0 && tn == on &&
                  !memcmp(twice, out, on), "idempotent (repaired %d)", nf2);
    free(again);
    free(twice);
    free(out);
}

/* Every allocation failing in turn: LENS_ENOMEM and no output, then success. */
static void test_nomem(const unsigned char *raw, size_t n)
{
    int failures = 0, other = 0, k;
    for (k = 1; k < 100; k++) {
        unsigned char *out = NULL;
        size_t on = 0;
        struct lens_err e = {0};
        lens_malloc_fail_after(k);
        int rc = lens_pdf_fix_tounicode(raw, n, &out, &on, NULL, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            lens_free(out);
            break;
        }
        if (rc == LENS_ENOMEM && !out)
            failures++;
        else
            other++;
    }
    LENS_TEST(k < 100 && failures == k - 1 && failures >= 3 && other == 0,
              "allocation failures: %d ENOMEM of %d, %d other", failures, k - 1, other);
}

static int fix_rc(const unsigned char *b, size_t n, unsigned char **out, struct lens_err *e)
{
    size_t on;
    /* an exact-size heap copy, so a sanitizer sees any read past the end */
    unsigned char *c = malloc(n ? n : 1);
    memcpy(c, b, n);
    int rc = lens_pdf_fix_tounicode(c, n, out, &on, NULL, e);
    free(c);
    return rc;
}

/* Replaces the first occurrence of what in a copy of raw by with (same length). */
static unsigned char *patched(const unsigned char *raw, size_t n, const char *what, const char *with)
{
    unsigned char *c = malloc(n);
    memcpy(c, raw, n);
    unsigned char *hit = memmem(c, n, what, strlen(what));
    if (hit)
        memcpy(hit, with, strlen(with));
    return c;
}

static void expect_format(const unsigned char *b, size_t n, const char *needle, const char *what)
{
    unsigned char *out = (unsigned char *)1;
    struct lens_err e = {0};
    int rc = fix_rc(b, n, &out, &e);
    LENS_TEST(rc == LENS_EFORMAT && !out && strstr(e.msg, "pdf: ") && strstr(e.msg, needle),
              "%s: rc %d, message '%s' (want '%s')", what, rc, e.msg, needle);
    if (rc == LENS_OK)
        lens_free(out);
}

static void test_bad(const unsigned char *raw, size_t n)
{
    expect_format((const unsigned char *)"", 0, "header", "empty");
    expect_format((const unsigned char *)"GIF89a not a pdf at all", 23, "header", "not a pdf");
    expect_format(raw, n / 2, "startxref", "cut in half");
    const unsigned char *sx = memmem(raw, n, "startxref", 9);
    size_t xref = 0;
    for (const unsigned char *p = sx + 10; *p >= '0' && *p <= '9'; p++)
        xref = xref * 10 + (size_t)(*p - '0');
    expect_format(raw, (size_t)(sx - raw), "startxref", "cut before startxref");
    expect_format(raw, xref + 30, "startxref", "cut inside the xref table");

    /* the first digit of the startxref offset changed: it points elsewhere */
    unsigned char *c = malloc(n);
    memcpy(c, raw, n);
    c[sx - raw + 10] = (unsigned char)(c[sx - raw + 10] == '1' ? '2' : '1');
    expect_format(c, n, "xref", "startxref elsewhere");
    free(c);
    /* object 4's entry pointing one byte late (or 9 bytes early) */
    c = malloc(n);
    memcpy(c, raw, n);
    unsigned char *first = memmem(c + xref, n - xref, "\n0000000000 65535 f", 19);
    LENS_TEST(first != NULL, "libharu's xref table starts with the free entry of object 0");
    if (first) {
        unsigned char *digit = first + 1 + 4 * 20 + 9; /* last digit of the offset of object 4 */
        *digit = (unsigned char)(*digit == '9' ? '0' : *digit + 1);
    }
    expect_format(c, n, "does not start it", "xref entry off by one byte");
    free(c);
    c = patched(raw, n, "/Size", "/Prev");
    expect_format(c, n, "incremental", "an incremental update");
    free(c);
    c = patched(raw, n, "/Root", "/Encr");
    unsigned char *out = NULL;
    struct lens_err e = {0};
    /* "/Encr" is no /Encrypt: only a key we do not know, the file is still repaired */
    LENS_TEST(fix_rc(c, n, &out, &e) == LENS_OK, "unknown trailer key: %s", e.msg);
    lens_free(out);
    free(c);

    /* byte flips everywhere in the structure (xref, trailer, dictionaries): never a crash,
     * only a repaired file or LENS_EFORMAT */
    unsigned seed = 12345u;
    int ok = 0, fmt = 0, other = 0;
    for (int i = 0; i < 3000; i++) {
        c = malloc(n);
        memcpy(c, raw, n);
        for (int k = 0; k < 1 + i % 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = i % 2 ? xref + (seed >> 8) % (n - xref) : (seed >> 8) % (xref < 4096 ? xref : 4096);
            seed = seed * 1103515245u + 12345u;
            c[at] = (unsigned char)(seed >> 16);
        }
        out = NULL;
        int rc = fix_rc(c, i % 5 ? n : n - (seed >> 20) % 64, &out, &e);
        if (rc == LENS_OK)
            ok++;
        else if (rc == LENS_EFORMAT && !out)
            fmt++;
        else
            other++;
        lens_free(out);
        free(c);
    }
    LENS_TEST(other == 0 && ok > 0 && fmt > 0, "byte flips: %d repaired, %d format errors, %d other", ok, fmt,
              other);
}

/* The whole path: lens_pdf_save repairs what libharu writes. */
static void test_save(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/save.pdf", dir);
    struct lens_pdf *p = NULL;
    struct lens_err e = {0};
    int rc = lens_pdf_new(&p, "fonts", &e);
    if (rc == LENS_OK)
        rc = lens_pdf_set_footer(p, "стр. ${page} из ${pages}", &e);
    for (int i = 0; i < NLINES && rc == LENS_OK; i++)
        rc = i == 4 ? lens_pdf_heading(p, 1, lines[i], &e) : lens_pdf_paragraph(p, lines[i], &e);
    if (rc == LENS_OK)
        rc = lens_pdf_save(p, path, &e);
    lens_pdf_free(p);
    LENS_TEST(rc == LENS_OK, "lens_pdf_save: %s", e.msg);
    check_tools(path, "lens_pdf_save");
    snprintf(path, sizeof path, "%s/save.pdf.tmp%ld", dir, (long)getpid());
    LENS_TEST(access(path, F_OK) != 0, "no temporary file left");
}

int main(void)
{
    char dir[] = "/tmp/mpilens-pdffix.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_cmap_text();
    size_t n = 0;
    unsigned char *raw = libharu_pdf(&n);
    LENS_TEST(raw != NULL, "libharu made the test document");
    if (raw) {
        test_fix(raw, n, dir);
        test_nomem(raw, n);
        test_bad(raw, n);
    }
    test_save(dir);
    free(raw);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return LENS_TEST_DONE("test_pdf_fix");
}
