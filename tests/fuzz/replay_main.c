/* Replays inputs through a fuzz harness without libFuzzer, so any C compiler (and the
 * ASan/UBSan build of make asan) can check that the seed corpus and every past crash still
 * run cleanly. Linked with one tests/fuzz/fuzz_<target>.c.
 *
 * Usage: replay_<target> [-t SECONDS] PATH...
 * Each PATH is a file or a directory whose regular files are replayed in name order (one
 * level, dot files skipped). Every input runs in its own child process, so a crash, a
 * sanitizer abort, a leak report (non-zero exit) or a hang (killed after SECONDS, default
 * 60) is counted as one failure naming the file, and the next input still runs. Ends with
 * "replay_<target>: N passed, N failed"; exit status 1 when something failed.
 * For the replay's own test: with REPLAY_SELFTEST_CRASH=NAME in the environment, the child
 * for the input whose file name ends in NAME dies by SIGKILL instead of running it. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int passed, failed;
static unsigned timeout_s = 60;

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Child: read the whole file and hand it to the harness, as libFuzzer would (a private copy
 * of exactly size bytes, so ASan sees reads past the end). */
static int run_one(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 3;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, fp)) > 0;) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    int err = ferror(fp);
    fclose(fp);
    if (!buf || err) {
        fprintf(stderr, "replay: %s: cannot read\n", path);
        free(buf);
        return 3;
    }
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return 3;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

static void replay(const char *path)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "FAIL: %s: fork: %s\n", path, strerror(errno));
        failed++;
        return;
    }
    if (pid == 0) {
        alarm(timeout_s); /* SIGALRM's default action ends a hung child */
        const char *crash = getenv("REPLAY_SELFTEST_CRASH");
        size_t lp = strlen(path), lc = crash ? strlen(crash) : 0;
        if (crash && *crash && lp >= lc && !strcmp(path + lp - lc, crash)) {
            raise(SIGKILL); /* no sanitizer can catch it: the plain death of a crash */
        }
        exit(run_one(path)); /* exit, not _exit: LeakSanitizer checks at exit */
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "FAIL: %s: waitpid: %s\n", path, strerror(errno));
            failed++;
            return;
        }
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
        passed++;
        return;
    }
    failed++;
    if (WIFSIGNALED(st))
        fprintf(stderr, "FAIL: %s: %s (signal %d)\n", path,
                WTERMSIG(st) == SIGALRM ? "timeout" : strsignal(WTERMSIG(st)), WTERMSIG(st));
    else
        fprintf(stderr, "FAIL: %s: exit status %d\n", path, WEXITSTATUS(st));
}

static void replay_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "FAIL: %s: %s\n", dir, strerror(errno));
        failed++;
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (!nn)
                break;
            names = nn;
        }
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        if (!(names[n] = malloc(len)))
            break;
        snprintf(names[n++], len, "%s/%s", dir, de->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
            replay(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    int i = 1;
    if (argc > 2 && !strcmp(argv[1], "-t")) {
        timeout_s = (unsigned)strtoul(argv[2], NULL, 10);
        i = 3;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: %s [-t SECONDS] FILE_OR_DIR...\n", name);
        return 2;
    }
    for (; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            replay_dir(argv[i]);
        else
            replay(argv[i]);
    }
    printf("%s: %d passed, %d failed\n", name, passed, failed);
    return failed ? 1 : 0;
}
