/* Shared helpers of the libFuzzer harnesses tests/fuzz/fuzz_<target>.c (docs/fuzz.md).
 * Each harness defines LLVMFuzzerTestOneInput; it is linked either with libFuzzer (make fuzz,
 * clang) or with tests/fuzz/replay_main.c (make all, any C compiler, run by make check).
 * The readers take file names, so a harness writes the input into a scratch directory that
 * the process creates on first use and removes at exit. Nothing here prints unless a step
 * that cannot fail on valid input (writing the scratch file) fails: then it aborts, since a
 * harness that silently skips its input would report coverage it does not have. */
#ifndef LENS_FUZZ_COMMON_H
#define LENS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir_path[4096];
static pid_t fuzz_dir_owner;

/* Removes the scratch directory and its files and subdirectories (two levels: the OTF2
 * harness writes traces/N.evt). Only the process that made it removes it: the replay forks a
 * child per input, and a child's exit must not delete its parent's directory. */
static inline void fuzz_rmtree(const char *path, int depth)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *de;
        char sub[4352];
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            if (snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) >= (int)sizeof sub)
                continue;
            struct stat st;
            if (depth < 3 && lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
                fuzz_rmtree(sub, depth + 1);
            else
                unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

static inline void fuzz_cleanup(void)
{
    if (fuzz_dir_path[0] && getpid() == fuzz_dir_owner)
        fuzz_rmtree(fuzz_dir_path, 0);
}

static inline void fuzz_die(const char *what, const char *path)
{
    fprintf(stderr, "fuzz harness: cannot %s %s\n", what, path);
    abort();
}

/* The process's scratch directory ($TMPDIR/mpilens-fuzz.XXXXXX), made on first call. */
static inline const char *fuzz_dir(void)
{
    if (!fuzz_dir_path[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/mpilens-fuzz.XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(fuzz_dir_path))
            fuzz_die("create", fuzz_dir_path);
        fuzz_dir_owner = getpid();
        atexit(fuzz_cleanup);
    }
    return fuzz_dir_path;
}

/* "<scratch>/name" in a static buffer per slot (slot 0..3), so a harness can hold a few. */
static inline const char *fuzz_path(int slot, const char *name)
{
    static char buf[4][4352];
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", fuzz_dir(), name);
    return buf[slot];
}

/* Writes size bytes to path (replacing it). */
static inline void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp) != 0)
        fuzz_die("write", path);
}

/* Writes the input to <scratch>/name and returns that path. */
static inline const char *fuzz_put(const char *name, const uint8_t *data, size_t size)
{
    const char *p = fuzz_path(0, name);
    fuzz_write(p, data, size);
    return p;
}

/* A NUL-terminated copy of the input (the in-memory parsers take C strings); free() it.
 * An embedded NUL simply ends the text early, as it would for a file read with fgets. */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        fuzz_die("allocate", "text");
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A stream that swallows what the writers print, opened once. */
static inline FILE *fuzz_null(void)
{
    static FILE *fp;
    if (!fp && !(fp = fopen("/dev/null", "w")))
        fuzz_die("open", "/dev/null");
    return fp;
}

/* With FUZZ_VERBOSE set in the environment, says what a reader returned: to check by hand
 * that a seed reaches the code behind the parser (docs/fuzz.md). Returns rc. */
static inline int fuzz_said(const char *step, int rc, const struct lens_err *e)
{
    if (getenv("FUZZ_VERBOSE"))
        fprintf(stderr, "%s: %s\n", step, rc == LENS_OK ? "ok" : e->msg);
    return rc;
}

#endif
