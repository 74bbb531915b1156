/* Tests for common/err.c: error recording, fault injection and atomic output. */
#include "../common/err.h"
#include "lens_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

int main(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    int rc = lens_err_set(&e, LENS_EIO, "%s: cannot open: %s", "run_median.nc", "No such file");
    LENS_TEST(rc == LENS_EIO, "lens_err_set returns its code");
    LENS_TEST(!strcmp(e.msg, "run_median.nc: cannot open: No such file"), "message '%s'", e.msg);
    LENS_TEST(e.line > 0 && e.where && strstr(e.where, "test_err.c"), "source location recorded");
    lens_err_prefix(&e, "cube");
    LENS_TEST(!strncmp(e.msg, "cube: run_median.nc", 19), "prefix '%s'", e.msg);
    LENS_TEST(lens_err_set(NULL, LENS_EDATA, "x") == LENS_EDATA, "NULL err accepted");

    /* fault injection: the 3rd allocation from now fails, the others do not */
    lens_malloc_fail_after(3);
    void *a = lens_malloc(17), *b = lens_calloc(3, 29), *c = lens_malloc(5), *d = lens_malloc(5);
    LENS_TEST(a && b && !c && d, "third allocation fails (a=%p b=%p c=%p d=%p)", a, b, c, d);
    lens_free(a); lens_free(b); lens_free(d);
    lens_malloc_fail_after(0);

    char dir[] = "/tmp/mpilens-err-XXXXXX";
    LENS_TEST(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256];
    snprintf(path, sizeof path, "%s/sub/deeper", dir);
    LENS_TEST(lens_mkdir_p(path, &e) == LENS_OK, "mkdir -p: %s", e.msg);
    LENS_TEST(lens_mkdir_p(path, &e) == LENS_OK, "mkdir -p twice: %s", e.msg);
    snprintf(path, sizeof path, "%s/out.txt", dir);

    /* abort leaves nothing behind; commit leaves exactly the final file */
    struct lens_atomic at;
    LENS_TEST(lens_atomic_open(&at, path, "w", &e) == LENS_OK, "atomic open: %s", e.msg);
    char tmpname[512];
    snprintf(tmpname, sizeof tmpname, "%s", at.tmp);
    fputs("partial", at.fp);
    LENS_TEST(exists(tmpname) && !exists(path), "only the temporary exists while writing");
    lens_atomic_abort(&at);
    LENS_TEST(!exists(tmpname) && !exists(path), "abort removes the temporary");
    LENS_TEST(lens_atomic_open(&at, path, "w", &e) == LENS_OK, "atomic open 2");
    fputs("complete 4711\n", at.fp);
    LENS_TEST(lens_atomic_commit(&at, &e) == LENS_OK, "commit: %s", e.msg);
    FILE *fp = fopen(path, "r");
    char buf[64] = {0};
    LENS_TEST(fp && fgets(buf, sizeof buf, fp) && !strcmp(buf, "complete 4711\n"), "content '%s'", buf);
    if (fp)
        fclose(fp);
    unlink(path);

    LENS_TEST(lens_atomic_open(&at, "/nonexistent-dir-42/x.pdf", "w", &e) == LENS_EIO, "bad dir fails");
    LENS_TEST(strstr(e.msg, "/nonexistent-dir-42/x.pdf") != NULL, "message names the file: %s", e.msg);

    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    LENS_TEST(lens_source_date() == 1700000000LL, "SOURCE_DATE_EPOCH honoured");
    char date[64];
    lens_format_date(lens_source_date(), date, sizeof date);
    LENS_TEST(!strcmp(date, "2023-11-14 22:13:20 UTC"), "date '%s'", date);
    setenv("SOURCE_DATE_EPOCH", "garbage", 1);
    LENS_TEST(lens_source_date() > 1700000000LL, "invalid SOURCE_DATE_EPOCH ignored");

    snprintf(path, sizeof path, "rm -rf %s", dir);
    (void)system(path);
    return LENS_TEST_DONE("test_err");
}
