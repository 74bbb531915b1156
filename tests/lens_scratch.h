/* A scratch directory for C tests that write files: created under $TMPDIR (default /tmp),
 * names inside it, and a count of the temporary files lens_atomic leaves when a write is not
 * committed ("PATH.tmpPID", common/err.c), so tests can assert that a failure wrote nothing.
 * Include once per test program, after lens_test.h. */
#ifndef LENS_SCRATCH_H
#define LENS_SCRATCH_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char lens_scratch_dir[256];

/* Creates the directory "<$TMPDIR>/<name>.XXXXXX"; 0, or -1 after printing why. */
static int lens_scratch_open(const char *name)
{
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(lens_scratch_dir, sizeof lens_scratch_dir, "%s/%s.XXXXXX", base, name);
    if (!mkdtemp(lens_scratch_dir)) {
        perror("mkdtemp");
        return -1;
    }
    return 0;
}

/* "<dir>/<name>"; the last 8 results stay valid, so a call may take several paths. */
static char *lens_scratch_path(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", lens_scratch_dir, name);
    return buf[k];
}

static int lens_scratch_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* Temporary files of uncommitted atomic writes left in the directory. */
static int lens_scratch_leftovers(void)
{
    DIR *d = opendir(lens_scratch_dir);
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)))
        n += strstr(de->d_name, ".tmp") != NULL;
    if (d)
        closedir(d);
    return n;
}

static void lens_scratch_close(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", lens_scratch_dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", lens_scratch_dir);
}

#endif
