/* Bounds of the text readers (docs/problems.md, "Limits of the text readers"): the bounded
 * line reader itself at and around its cap, and for each reader built on it or bounded in its
 * own way (profile CSV, p2p CSV, Newick, templates) a case just inside the bound that is read
 * and one just outside that is refused with file and line. The stage log and the rules have
 * theirs in test_stages.sh and test_rules.c, the runs CSV in test_runs.c. */
#include "analysis/structure/newick.h"
#include "analysis/cube/p2pfile.h"
#include "analysis/profile/profile.h"
#include "common/textline.h"
#include "render/doc/template.h"
#include "lens_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char dir[] = "/tmp/mpilens-limits-XXXXXX";

/* Writes n bytes of text to dir/name; returns the path (static buffer). */
static const char *put(const char *name, const char *text, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(text, 1, n, fp);
        fclose(fp);
    }
    return path;
}

/* head, then `len` bytes 'x', then suffix and '\n' (the last line is head's tail + x + suffix). */
static char *long_line(const char *head, size_t len, const char *suffix)
{
    size_t h = strlen(head), t = strlen(suffix);
    char *s = malloc(h + len + t + 2);
    if (!s)
        return NULL;
    memcpy(s, head, h);
    memset(s + h, 'x', len);
    memcpy(s + h + len, suffix, t);
    s[h + len + t] = '\n';
    s[h + len + t + 1] = '\0';
    return s;
}

static void test_textline(void)
{
    /* max 8: "12345678" is read, "123456789" is refused; the newline is not counted; a last
     * line without newline is a line; a NUL is reported, not cut */
    const char *path = put("tl.txt", "12345678\n\n123\n123456789\nabc", 28);
    FILE *fp = fopen(path, "r");
    struct lens_textline l = {0};
    static const char *const want[3] = {"12345678\n", "\n", "123\n"};
    for (int k = 0; k < 3; k++) {
        int rc = fp ? lens_textline_read(fp, &l, 8) : -9;
        LENS_TEST(rc == LENS_TEXTLINE_OK && l.len == strlen(want[k]) && !strcmp(l.s, want[k]),
                  "line %d: rc %d", k, rc);
    }
    int rc0 = fp ? lens_textline_read(fp, &l, 8) : -9;
    LENS_TEST(rc0 == LENS_TEXTLINE_LONG && l.len == 9, "9 bytes refused after reading 9: %d %zu", rc0, l.len);
    LENS_TEST(l.cap <= 8 + 2, "buffer never beyond the cap: %zu", l.cap);
    if (fp)
        fclose(fp);
    int rc[2];
    path = put("tl2.txt", "abc", 3);
    fp = fopen(path, "r");
    rc[0] = fp ? lens_textline_read(fp, &l, 8) : -9;
    rc[1] = fp ? lens_textline_read(fp, &l, 8) : -9;
    LENS_TEST(rc[0] == LENS_TEXTLINE_OK && !strcmp(l.s, "abc") && rc[1] == LENS_TEXTLINE_EOF,
              "last line without newline");
    if (fp)
        fclose(fp);
    path = put("tl3.txt", "a\0b\nc\n", 6);
    fp = fopen(path, "r");
    rc[0] = fp ? lens_textline_read(fp, &l, 8) : -9;
    rc[1] = fp ? lens_textline_read(fp, &l, 8) : -9;
    LENS_TEST(rc[0] == LENS_TEXTLINE_NUL && rc[1] == LENS_TEXTLINE_OK && !strcmp(l.s, "c\n"),
              "NUL reported, next line intact");
    if (fp)
        fclose(fp);
    lens_textline_release(&l);
    /* allocation failure: the buffer's first growth */
    fp = fopen(put("tl4.txt", "abc\n", 4), "r");
    lens_malloc_fail_after(1);
    rc[0] = fp ? lens_textline_read(fp, &l, 8) : -9;
    lens_malloc_fail_after(0);
    LENS_TEST(rc[0] == LENS_TEXTLINE_NOMEM, "out of memory reported: %d", rc[0]);
    if (fp)
        fclose(fp);
    lens_textline_release(&l);
}

static void test_profile(void)
{
    struct lens_err e = {0};
    struct lens_profile *p = NULL;
    /* a line over 1 MiB, and one of exactly 1 MiB (a long function name) */
    char *s = long_line("0,", LENS_TEXTLINE_MAX - 4, ",1"); /* "0," + name + ",1" = 1 MiB */
    if (s) {
        int rc = lens_profile_read_csv(put("p_ok.csv", s, strlen(s)), &p, &e);
        LENS_TEST(rc == LENS_OK && p && p->nfunc == 1 && strlen(p->funcs[0]) == LENS_TEXTLINE_MAX - 4,
                  "1 MiB line read: %s", e.msg);
        lens_profile_free(p);
        p = NULL;
        free(s);
    }
    s = long_line("0,", LENS_TEXTLINE_MAX - 3, ",1");
    if (s) {
        int rc = lens_profile_read_csv(put("p_long.csv", s, strlen(s)), &p, &e);
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "p_long.csv:1: line longer than 1048576 bytes"),
                  "1 MiB + 1 line: rc %d '%s'", rc, e.msg);
        lens_profile_free(p);
        p = NULL;
        free(s);
    }
    /* the largest rank is read without a rank-sized table (it was 512 MiB, all written) */
    const char *t = "67108863,f,1\n0,f,2\n67108864,f,1\n";
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    int rc = lens_profile_read_csv(put("p_rank.csv", t, 19), &p, &e);
    getrusage(RUSAGE_SELF, &ru1);
    LENS_TEST(ru1.ru_maxrss - ru0.ru_maxrss < 100 * 1024, "rank 2^26 - 1 took %ld KiB",
              ru1.ru_maxrss - ru0.ru_maxrss);
    LENS_TEST(rc == LENS_OK && p && p->nproc == 2 && p->ranks[0] == 0 && p->ranks[1] == 67108863 &&
              p->sec[0] == 2 && p->sec[1] == 1, "ranks 0 and 2^26 - 1: %s", e.msg);
    lens_profile_free(p);
    p = NULL;
    rc = lens_profile_read_csv(put("p_rank2.csv", t, strlen(t)), &p, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "p_rank2.csv:3: process '67108864' is not a rank"),
              "rank 2^26: rc %d '%s'", rc, e.msg);
    lens_profile_free(p);
    /* many names: the hash finds what a linear search finds (the bound of 2^26 cells is
     * checked before each growth but not reached here: that takes 512 MiB) */
    p = lens_profile_new();
    rc = p ? LENS_OK : LENS_ENOMEM;
    char name[32];
    for (long k = 0; rc == LENS_OK && k < 20000; k++) {
        snprintf(name, sizeof name, "f%ld", k);
        rc = lens_profile_add(p, k % 3, name, 0.5, &e);
    }
    int bad = rc != LENS_OK || p->nfunc != 20000 || p->nproc != 3;
    for (long k = 0; !bad && k < 20000; k += 7) {
        snprintf(name, sizeof name, "f%ld", k);
        long f = lens_profile_find(p, name);
        bad += f != k || strcmp(p->funcs[f], name);
    }
    LENS_TEST(!bad && lens_profile_find(p, "f20000") < 0, "20000 names by hash: %s", e.msg);
    lens_profile_free(p);
}

static void test_p2p(void)
{
    char head[2048];
    size_t n = (size_t)snprintf(head, sizeof head, "size_bytes");
    for (int k = 0; k < LENS_P2P_NCOLS; k++)
        n += (size_t)snprintf(head + n, sizeof head - n, ",%s", lens_p2p_col_names[k]);
    n += (size_t)snprintf(head + n, sizeof head - n, ",kind\n8");
    for (int k = 0; k < LENS_P2P_NCOLS; k++)
        n += (size_t)snprintf(head + n, sizeof head - n, ",1e-6");
    n += (size_t)snprintf(head + n, sizeof head - n, ",");
    size_t row = strlen(strrchr(head, '\n') + 1); /* the data row before the kind value */
    for (int k = 0; k < 2; k++) {
        /* the kind column fills the row to 1 MiB, then to 1 MiB + 1 */
        char *s = long_line(head, LENS_TEXTLINE_MAX - row + (size_t)k, "");
        if (!s)
            return;
        struct lens_p2pfile *f = NULL;
        struct lens_err e = {0};
        char name[32];
        snprintf(name, sizeof name, "long%d_p2p.csv", k);
        int rc = lens_p2pfile_read(put(name, s, strlen(s)), &f, &e);
        if (k == 0)
            LENS_TEST(rc == LENS_OK && f && f->npairs == 1 && f->pair[0].nsize == 1, "1 MiB row read: %s", e.msg);
        else
            LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "long1_p2p.csv:2: line longer than 1048576 bytes"),
                      "1 MiB + 1 row: rc %d '%s'", rc, e.msg);
        lens_p2pfile_free(f);
        free(s);
    }
}

static void test_newick(void)
{
    const char *ab[4] = {"a", "b", "c", "d"};
    struct lens_err e = {0};
    const char *bad[] = {"(a:nan,b);", "(a:inf,b);", "(a:1e999,b);", "(a,b)(c,d);", "((a,b)(c,d));"};
    const char *want[] = {"branch length at byte 3 is not a finite number",
                          "branch length at byte 3 is not a finite number",
                          "branch length at byte 3 is not a finite number", "unexpected '(' at byte 5",
                          "unexpected '(' at byte 6"};
    for (int k = 0; k < 5; k++) {
        struct lens_newick *t = NULL;
        int rc = lens_newick_parse(bad[k], ab, k < 3 ? 2 : 4, &t, &e);
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, want[k]), "'%s': rc %d '%s'", bad[k], rc, e.msg);
        lens_newick_free(t);
    }
    struct lens_newick *t = NULL;
    LENS_TEST(lens_newick_parse("((a:1e300,b:0.5),(c,d));", ab, 4, &t, &e) == LENS_OK && t &&
              t->len[0] == 1e300, "finite lengths read: %s", e.msg);
    lens_newick_free(t);
    /* deep nesting is iterative and bounded by the leaves: 100000 '(' on 3 leaves */
    char *s = malloc(100016);
    if (s) {
        memset(s, '(', 100000);
        strcpy(s + 100000, "a,b),c);");
        t = NULL;
        int rc = lens_newick_parse(s, ab, 3, &t, &e);
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "newick: too deep at byte 3"), "100000 '(': rc %d '%s'",
                  rc, e.msg);
        lens_newick_free(t);
        free(s);
    }
}

static void test_template(void)
{
    struct lens_template *t = NULL;
    struct lens_err e = {0};
    /* a file of 1 MiB + 1 byte (comments) is refused without reading it all */
    size_t big = LENS_TEMPLATE_MAX_FILE + 1;
    char *s = malloc(big + 1);
    if (!s)
        return;
    for (size_t k = 0; k < big; k += 64) {
        size_t m = big - k < 64 ? big - k : 64;
        memset(s + k, ' ', m);
        s[k] = '#';
        s[k + m - 1] = '\n';
    }
    s[big] = '\0';
    int rc = lens_template_load(put("big.tmpl", s, big), &t, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "big.tmpl: more than 1048576 bytes"), "1 MiB + 1 file: rc %d '%s'",
              rc, e.msg);
    lens_template_free(t);
    t = NULL;
    rc = lens_template_parse(s, "mem.tmpl", &t, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "mem.tmpl: 1048577 bytes, more than"), "1 MiB + 1 text: '%s'",
              e.msg);
    lens_template_free(t);
    /* a text continued over 64 KiB: 20 lines of 3300 bytes reach 66019 + 20 joining spaces */
    size_t n = (size_t)sprintf(s, "section s\npara start\n");
    size_t first_bad = 0;
    for (int k = 0; k < 20; k++) {
        s[n++] = ' ';
        memset(s + n, 'y', 3300);
        n += 3300;
        s[n++] = '\n';
        /* "start" (5) + k + 1 lines of " " + 3300 bytes: over the cap at this line */
        if (!first_bad && 5 + (size_t)(k + 1) * 3301 + 1 > LENS_TEMPLATE_MAX_TEXT)
            first_bad = (size_t)k + 3;
    }
    s[n] = '\0';
    t = NULL;
    rc = lens_template_parse(s, "cont.tmpl", &t, &e);
    char want[96];
    snprintf(want, sizeof want, "cont.tmpl:%zu: text longer than 65536 bytes", first_bad);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, want), "continued text: rc %d '%s', want '%s'", rc, e.msg,
              want);
    lens_template_free(t);
    /* 19 lines stay under the cap */
    s[n - 2 * 3302 + 3302] = '\0';
    t = NULL;
    rc = lens_template_parse(s, "cont.tmpl", &t, &e);
    LENS_TEST(rc == LENS_OK && t && strlen(t->sections[0].items[0].text) == 5 + 19 * 3301,
              "19 continuation lines: %s", e.msg);
    lens_template_free(t);
    /* a placeholder name of 128 bytes is refused, one of 127 expanded */
    struct lens_template_vars v;
    lens_template_vars_init(&v);
    memset(s, 'n', 128);
    s[128] = '\0';
    lens_template_vars_set(&v, s, "long", NULL);
    s[127] = '\0';
    lens_template_vars_set(&v, s, "short", NULL);
    char text[300], *out = NULL;
    snprintf(text, sizeof text, "<${%s}>", s);
    rc = lens_template_expand(text, &v, "x.tmpl", 4, &out, &e);
    LENS_TEST(rc == LENS_OK && out && !strcmp(out, "<short>"), "127-byte name: %s", out ? out : e.msg);
    lens_free(out);
    out = NULL;
    snprintf(text, sizeof text, "<${%sn}>", s);
    rc = lens_template_expand(text, &v, "x.tmpl", 4, &out, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "x.tmpl:4: placeholder name longer than 127 bytes"),
              "128-byte name: rc %d '%s'", rc, e.msg);
    lens_free(out);
    lens_template_vars_release(&v);
    /* NaN passed the range checks of column widths and spaces */
    static const char *const nan_cases[2] = {"section s\ntable t\ncolumn left nan H\n",
                                             "section s\nspace nan\n"};
    static const char *const nan_want[2] = {"nan.tmpl:3: expected 'column",
                                            "nan.tmpl:2: expected 'space POINTS'"};
    for (int k = 0; k < 2; k++) {
        t = NULL;
        rc = lens_template_parse(nan_cases[k], "nan.tmpl", &t, &e);
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, nan_want[k]), "NaN %d: rc %d '%s'", k, rc, e.msg);
        lens_template_free(t);
    }
    free(s);
}

int main(void)
{
    if (!mkdtemp(dir))
        return 1;
    test_textline();
    test_profile();
    test_p2p();
    test_newick();
    test_template();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return LENS_TEST_DONE("test_text_limits");
}
