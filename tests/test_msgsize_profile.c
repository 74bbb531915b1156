/* Tests for the profile-file reader of analysis/trace/msgsize.c (LuNA profiler output,
 * `COUNT : SIZE` lines): a profile gives the same distribution and bins as a synthetic OTF2
 * trace holding the same messages; comments, blanks and CRLF are accepted; every malformed
 * line is refused with file:line and no profile; allocation failures fail cleanly. */
#include "analysis/trace/msgsize.h"
#include "lens_test.h"
#include "synth_otf2.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256];

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    LENS_TEST(fp != NULL, "create %s", path);
    if (!fp)
        return;
    fputs(text, fp);
    fclose(fp);
}

/* The reference: a trace whose sends are counted by the trace reader, against a profile file
 * written by hand with the same messages (3 x 16 B, 2 x 4096 B, 1 x 0 B, 1 x 100000 B). */
static void test_same_as_trace(void)
{
    char dir[300], prof[300];
    snprintf(dir, sizeof dir, "%s/sends", tmp);
    snprintf(prof, sizeof prof, "%s/same.txt", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 2) == 0, "open %s", dir);
    for (int r = 0; r < 2; r++)
        synth_enter(&s, r, 0.0, SR_MAIN);
    static const uint64_t sizes[] = {16, 4096, 16, 0, 100000, 16, 4096};
    double t = 1.0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++, t += 1.0) {
        int r = (int)(i % 2);
        synth_enter(&s, r, t, SR_SEND);
        synth_send(&s, r, t, 1 - r, 1, sizes[i]);
        synth_leave(&s, r, t + 0.5, SR_SEND);
    }
    for (int r = 0; r < 2; r++)
        synth_leave(&s, r, 20.0, SR_MAIN);
    LENS_TEST(synth_close(&s, NULL) == 0, "close %s", dir);
    /* the same messages, in another order, with a size split over two lines */
    write_file(prof, "# LuNA profile\n\n2 : 4096\n1:0\n  2 :\t16  # small\n1 : 100000\r\n"
                     "1 : 16\n");
    struct lens_err e = {0};
    struct lens_msgsize *a = NULL, *b = NULL;
    LENS_TEST(lens_msgsize_read(dir, &a, &e) == LENS_OK, "trace: %s", e.msg);
    LENS_TEST(lens_msgsize_is_profile(prof) && !lens_msgsize_is_profile(dir),
              "profile detected by being a plain file");
    LENS_TEST(lens_msgsize_read_profile(prof, &b, &e) == LENS_OK, "profile: %s", e.msg);
    if (!a || !b) {
        lens_msgsize_free(a);
        lens_msgsize_free(b);
        return;
    }
    LENS_TEST(b->from_profile && !a->from_profile, "source kind");
    LENS_TEST(a->nsizes == 4 && b->nsizes == a->nsizes, "4 distinct sizes (%zu, %zu)", a->nsizes,
              b->nsizes);
    for (size_t i = 0; i < a->nsizes && i < b->nsizes; i++)
        LENS_TEST(a->sizes[i].bytes == b->sizes[i].bytes && a->sizes[i].count == b->sizes[i].count,
                  "size %zu: trace %" PRIu64 " x %" PRIu64 ", profile %" PRIu64 " x %" PRIu64, i,
                  a->sizes[i].count, a->sizes[i].bytes, b->sizes[i].count, b->sizes[i].bytes);
    LENS_TEST(a->total_messages == 7 && b->total_messages == 7 &&
                  a->total_bytes == 108240 && b->total_bytes == 108240,
              "totals: %" PRIu64 " / %" PRIu64 " B", b->total_messages, b->total_bytes);
    LENS_TEST(lens_msgsize_bin(a, NULL, 0, 0, &e) == LENS_OK &&
                  lens_msgsize_bin(b, NULL, 0, 0, &e) == LENS_OK, "bin: %s", e.msg);
    for (size_t k = 0; k < a->nbins && k < b->nbins; k++) {
        LENS_TEST(a->bins[k].count == b->bins[k].count && a->bins[k].bytes == b->bins[k].bytes &&
                      a->bins[k].share_messages == b->bins[k].share_messages &&
                      a->bins[k].share_volume == b->bins[k].share_volume,
                  "bin %zu equal", k);
        LENS_TEST(b->bins[k].share_call_time != b->bins[k].share_call_time,
                  "profile bin %zu: call share is NaN (no call times)", k);
    }
    lens_msgsize_free(a);
    lens_msgsize_free(b);
}

/* Each malformed line is refused with the path and its line number, and no profile. */
static void test_malformed(void)
{
    static const char *const bad[][2] = {
        {"1 : 8\nx : 3\n", ":2:"},
        {"1 : 8\n-1 : 3\n", ":2:"},
        {"5 8\n", ":1:"},
        {"5 :\n", ":1:"},
        {"# c\n5 : 8 B\n", ":2:"},
        {"5 : 8 : 9\n", ":1:"},
        {"5 : 1e3\n", ":1:"},
        {"5 : 4k\n", ":1:"},
        {"2.5 : 8\n", ":1:"},
        {"+5 : 8\n", ":1:"},
        {"5 : 18446744073709551616\n", ":1:"},
        {"18446744073709551616 : 1\n", ":1:"},
        {"3 : 9223372036854775808\n", ":1:"},
        {"1 : 8\n\n\n: 8\n", ":4:"},
        {"# only comments\n\n", "no 'COUNT : SIZE'"},
        {"", "no 'COUNT : SIZE'"},
    };
    char path[300];
    snprintf(path, sizeof path, "%s/bad.txt", tmp);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i][0]);
        struct lens_err e = {0};
        struct lens_msgsize *m = (struct lens_msgsize *)1;
        int rc = lens_msgsize_read_profile(path, &m, &e);
        LENS_TEST(rc < 0 && m == NULL && strstr(e.msg, path) && strstr(e.msg, bad[i][1]),
                  "case %zu refused with '%s': rc %d '%s'", i, bad[i][1], rc, e.msg);
    }
    /* a NUL byte: not a text file */
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite("1 : 8\n2 \0: 3\n", 1, 13, fp);
        fclose(fp);
    }
    struct lens_err e = {0};
    struct lens_msgsize *m = NULL;
    LENS_TEST(lens_msgsize_read_profile(path, &m, &e) == LENS_EFORMAT && !m &&
                  strstr(e.msg, ":2"), "NUL byte: %s", e.msg);
    snprintf(path, sizeof path, "%s/none.txt", tmp);
    LENS_TEST(lens_msgsize_read_profile(path, &m, &e) == LENS_EIO && !m && strstr(e.msg, path),
              "missing file: %s", e.msg);
}

/* Every allocation failing in turn: an error, never a crash or a leak (ASan checks). */
static void test_faults(void)
{
    char path[300];
    snprintf(path, sizeof path, "%s/f.txt", tmp);
    write_file(path, "1 : 1\n2 : 2\n3 : 3\n4 : 4\n");
    int ok = 0;
    for (int n = 1; n < 50 && !ok; n++) {
        lens_malloc_fail_after(n);
        struct lens_err e = {0};
        struct lens_msgsize *m = NULL;
        int rc = lens_msgsize_read_profile(path, &m, &e);
        lens_malloc_fail_after(0);
        LENS_TEST(rc == LENS_OK ? m != NULL : (m == NULL && rc == LENS_ENOMEM),
                  "fail after %d: rc %d %s", n, rc, e.msg);
        ok = rc == LENS_OK;
        if (ok)
            LENS_TEST(m->total_messages == 10 && m->total_bytes == 30, "totals after faults");
        lens_msgsize_free(m);
    }
    LENS_TEST(ok, "succeeds once allocations work");
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "%s/msgprof.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    test_same_as_trace();
    test_malformed();
    test_faults();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    return LENS_TEST_DONE("test_msgsize_profile");
}
