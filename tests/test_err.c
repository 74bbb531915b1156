/* Tests for common/err.c: error recording, fault injection and atomic output. */
#include "common/err.h"
#include "common/atomic.h"
#include "common/time.h"
#include "lens_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* The names in dir, sorted by readdir order joined with spaces (few entries here). */
static void listing(const char *dir, char *buf, size_t n)
{
    buf[0] = '\0';
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            snprintf(buf + strlen(buf), n - strlen(buf), "%s ", de->d_name);
    if (d)
        closedir(d);
}

static void slurp(const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (fp) {
        size_t k = fread(buf, 1, n - 1, fp);
        buf[k] = '\0';
        fclose(fp);
    }
}

/* Devices, FIFOs, links, library temporaries, groups, folders and write errors. */
static void test_targets(const char *dir)
{
    struct lens_err e;
    struct lens_atomic at;
    char path[256], other[1024], buf[256];

    /* a character device (the null device's numbers, in our folder) is written in place */
    snprintf(path, sizeof path, "%s/t/dev.csv", dir);
    snprintf(other, sizeof other, "%s/t", dir);
    mkdir(other, 0755);
    if (mknod(path, S_IFCHR | 0644, makedev(1, 3)) == 0) {
        LENS_TEST(lens_atomic_open(&at, path, "w", &e) == LENS_OK && at.inplace, "device open: %s", e.msg);
        fputs("a,b\n", at.fp);
        LENS_TEST(lens_atomic_commit(&at, &e) == LENS_OK, "device commit: %s", e.msg);
        struct stat st;
        LENS_TEST(stat(path, &st) == 0 && S_ISCHR(st.st_mode), "still a character device");
        listing(other, buf, sizeof buf);
        LENS_TEST(!strcmp(buf, "dev.csv "), "nothing beside the device: '%s'", buf);
        /* a library's output (netCDF, libharu) for a device is copied into it */
        LENS_TEST(lens_atomic_open(&at, path, NULL, &e) == LENS_OK && at.dir, "device, library: %s", e.msg);
        FILE *fp = fopen(at.tmp, "w");
        LENS_TEST(fp && fputs("pdf", fp) >= 0 && fclose(fp) == 0, "library writes %s", at.tmp);
        LENS_TEST(lens_atomic_commit(&at, &e) == LENS_OK, "device copy commit: %s", e.msg);
        LENS_TEST(stat(path, &st) == 0 && S_ISCHR(st.st_mode), "still a device after the copy");
        unlink(path);
    } else {
        printf("note: mknod not permitted, the device case is skipped\n");
    }

    /* a FIFO with a reader gets the bytes and stays a FIFO */
    snprintf(path, sizeof path, "%s/t/fifo.txt", dir);
    LENS_TEST(mkfifo(path, 0600) == 0, "mkfifo");
    int rd = open(path, O_RDONLY | O_NONBLOCK);
    LENS_TEST(rd >= 0 && lens_atomic_open(&at, path, "w", &e) == LENS_OK, "fifo open: %s", e.msg);
    fputs("through the pipe", at.fp);
    LENS_TEST(lens_atomic_commit(&at, &e) == LENS_OK, "fifo commit: %s", e.msg);
    ssize_t got = rd >= 0 ? read(rd, buf, sizeof buf - 1) : -1;
    buf[got > 0 ? got : 0] = '\0';
    LENS_TEST(!strcmp(buf, "through the pipe"), "reader got '%s'", buf);
    struct stat st;
    LENS_TEST(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "still a FIFO");
    if (rd >= 0)
        close(rd);
    unlink(path);

    /* a link to a regular file: the link stays, the file it names gets the content */
    snprintf(path, sizeof path, "%s/t/real.txt", dir);
    snprintf(other, sizeof other, "%s/t/link.txt", dir);
    FILE *fp = fopen(path, "w");
    if (fp)
        fclose(fp);
    LENS_TEST(symlink("real.txt", other) == 0, "symlink");
    LENS_TEST(lens_atomic_open(&at, other, "w", &e) == LENS_OK, "open through link: %s", e.msg);
    LENS_TEST(at.tmp && strstr(at.tmp, "/real.txt.tmp") != NULL, "temporary beside the real file: %s", at.tmp);
    fputs("new", at.fp);
    LENS_TEST(lens_atomic_commit(&at, &e) == LENS_OK, "commit through link: %s", e.msg);
    slurp(path, buf, sizeof buf);
    LENS_TEST(lstat(other, &st) == 0 && S_ISLNK(st.st_mode) && !strcmp(buf, "new"), "link kept, file '%s'", buf);
    unlink(path);
    unlink(other);

    /* the temporary is fresh (O_EXCL): never a planted link, never the old "<path>.tmp<pid>" */
    snprintf(path, sizeof path, "%s/t/out.csv", dir);
    snprintf(other, sizeof other, "%s.tmp%ld", path, (long)getpid());
    LENS_TEST(symlink("/nonexistent-victim", other) == 0, "plant the old name");
    LENS_TEST(lens_atomic_open(&at, path, "w", &e) == LENS_OK, "open beside a planted link: %s", e.msg);
    LENS_TEST(strcmp(at.tmp, other) != 0 && lstat(at.tmp, &st) == 0 && S_ISREG(st.st_mode),
              "temporary %s is a new regular file", at.tmp);
    lens_atomic_abort(&at);
    LENS_TEST(lstat(other, &st) == 0 && S_ISLNK(st.st_mode), "abort leaves others' files alone");
    unlink(other);

    /* a library's temporary lives in a private folder (mode 0700) that commit removes */
    LENS_TEST(lens_atomic_open(&at, path, NULL, &e) == LENS_OK, "library open: %s", e.msg);
    LENS_TEST(at.dir && stat(at.dir, &st) == 0 && (st.st_mode & 0777) == 0700, "private folder %s", at.dir);
    fp = fopen(at.tmp, "w");
    if (fp) {
        fputs("lib", fp);
        fclose(fp);
    }
    LENS_TEST(lens_atomic_commit(&at, &e) == LENS_OK, "library commit: %s", e.msg);
    slurp(path, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "lib"), "library output '%s'", buf);
    listing(other[0] ? dir : dir, buf, sizeof buf);
    snprintf(other, sizeof other, "%s/t", dir);
    listing(other, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "out.csv "), "only the output is left: '%s'", buf);
    unlink(path);

    /* a group: nothing appears before the commit, nothing after an abort; a failed rename
     * takes back the parts already renamed */
    char a1[1024], a2[1024];
    snprintf(a1, sizeof a1, "%s/t/one.txt", dir);
    snprintf(a2, sizeof a2, "%s/t/two.txt", dir);
    for (int round = 0; round < 3; round++) {
        lens_atomic_group_begin();
        int rc = lens_atomic_open(&at, a1, "w", &e);
        if (rc == LENS_OK) {
            fputs("1", at.fp);
            rc = lens_atomic_commit(&at, &e);
        }
        LENS_TEST(rc == LENS_OK && !exists(a1), "round %d: first part waits: %s", round, e.msg);
        if (rc == LENS_OK && (rc = lens_atomic_open(&at, a2, "w", &e)) == LENS_OK) {
            fputs("2", at.fp);
            rc = lens_atomic_commit(&at, &e);
        }
        if (round == 2) {
            mkdir(a2, 0755); /* a non-empty folder in the way of the second rename */
            snprintf(other, sizeof other, "%.900s/keep", a2);
            fp = fopen(other, "w");
            if (fp)
                fclose(fp);
        }
        if (round == 0) {
            lens_atomic_group_abort();
            LENS_TEST(!exists(a1) && !exists(a2), "abort: no part appears");
        } else if (round == 1) {
            LENS_TEST(lens_atomic_group_commit(&e) == LENS_OK && exists(a1) && exists(a2), "commit: both: %s", e.msg);
            unlink(a1);
            unlink(a2);
        } else {
            LENS_TEST(lens_atomic_group_commit(&e) == LENS_EIO && strstr(e.msg, "two.txt"), "failed rename: %s", e.msg);
            LENS_TEST(!exists(a1), "the part renamed before is taken back");
            unlink(other);
            rmdir(a2);
        }
    }
    snprintf(other, sizeof other, "%s/t", dir);
    listing(other, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, ""), "no temporaries after the groups: '%s'", buf);

    /* a folder of results is built aside and appears whole */
    snprintf(path, sizeof path, "%s/t/figs", dir);
    for (int round = 0; round < 2; round++) {
        char *where = NULL;
        lens_atomic_group_begin();
        LENS_TEST(lens_atomic_dir(path, &where, &e) == LENS_OK && where && strcmp(where, path) && !exists(path),
                  "folder aside: %s", where ? where : e.msg);
        snprintf(a1, sizeof a1, "%s/fig.png", where ? where : path);
        if (lens_atomic_open(&at, a1, "w", &e) == LENS_OK) {
            fputs("png", at.fp);
            LENS_TEST(lens_atomic_commit(&at, &e) == LENS_OK, "figure commit: %s", e.msg);
        }
        lens_free(where);
        if (round == 0) {
            lens_atomic_group_abort();
            listing(other, buf, sizeof buf);
            LENS_TEST(!strcmp(buf, ""), "abort removes the folder: '%s'", buf);
        } else {
            LENS_TEST(lens_atomic_group_commit(&e) == LENS_OK, "folder commit: %s", e.msg);
            snprintf(a1, sizeof a1, "%s/fig.png", path);
            slurp(a1, buf, sizeof buf);
            LENS_TEST(!strcmp(buf, "png"), "the folder holds its figure: '%s'", buf);
            unlink(a1);
            rmdir(path);
        }
    }

    /* a write error says why (here the file-size limit: "File too large"), leaves nothing */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = 100;
    signal(SIGXFSZ, SIG_IGN);
    snprintf(path, sizeof path, "%s/t/big.txt", dir);
    if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
        LENS_TEST(lens_atomic_open(&at, path, "w", &e) == LENS_OK, "open under the limit: %s", e.msg);
        for (int i = 0; i < 2000; i++)
            fputs("0123456789", at.fp);
        int rc = lens_atomic_commit(&at, &e);
        setrlimit(RLIMIT_FSIZE, &old);
        LENS_TEST(rc == LENS_EIO && strstr(e.msg, strerror(EFBIG)) && strstr(e.msg, "big.txt"), "message '%s'", e.msg);
        listing(other, buf, sizeof buf);
        LENS_TEST(!strcmp(buf, ""), "no partial file: '%s'", buf);
        /* ... also when the writer noticed first (lens_atomic_fail) */
        setrlimit(RLIMIT_FSIZE, &lim);
        LENS_TEST(lens_atomic_open(&at, path, "w", &e) == LENS_OK, "open 2 under the limit");
        for (int i = 0; i < 2000; i++)
            fputs("0123456789", at.fp);
        fflush(at.fp);
        errno = EPERM; /* what a later unrelated call might leave */
        lens_err_set(&e, LENS_EIO, "generic write error");
        rc = lens_atomic_fail(&at, LENS_EIO, &e);
        setrlimit(RLIMIT_FSIZE, &old);
        LENS_TEST(rc == LENS_EIO && strstr(e.msg, strerror(EFBIG)), "fail message '%s'", e.msg);
        listing(other, buf, sizeof buf);
        LENS_TEST(!strcmp(buf, ""), "no partial file after fail: '%s'", buf);
    }
    signal(SIGXFSZ, SIG_DFL);
    rmdir(other);
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
    LENS_TEST(lens_atomic_mkdir_p(path, &e) == LENS_OK, "mkdir -p: %s", e.msg);
    LENS_TEST(lens_atomic_mkdir_p(path, &e) == LENS_OK, "mkdir -p twice: %s", e.msg);
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

    test_targets(dir);

    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    LENS_TEST(lens_time_source_date() == 1700000000LL, "SOURCE_DATE_EPOCH honoured");
    char date[64];
    lens_time_format_date(lens_time_source_date(), date, sizeof date);
    LENS_TEST(!strcmp(date, "2023-11-14 22:13:20 UTC"), "date '%s'", date);
    setenv("SOURCE_DATE_EPOCH", "garbage", 1);
    LENS_TEST(lens_time_source_date() > 1700000000LL, "invalid SOURCE_DATE_EPOCH ignored");

    snprintf(path, sizeof path, "rm -rf %s", dir);
    (void)system(path);
    return LENS_TEST_DONE("test_err");
}
