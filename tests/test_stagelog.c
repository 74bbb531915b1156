/* Tests for analysis/profile/stagelog.c at the C level: a hand-made log whose stays, migrations,
 * waits and occupancy are worked out below, the time-point edges, and allocation failures
 * walked over the reader under ASan. The sample log against its generator is in
 * tests/test_stages.sh. */
#include "analysis/profile/stagelog.h"
#include "lens_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Task 7: distribute on node 1 at 0.25, distribute on node 3 at 1.75 (a migration), wait at
 * 2.0, execute at 3.5, done at 4.0 -> distribute 1.75 s, wait 1.5 s, execute 0.5 s, 1 migration,
 * waited. Task "b": distribute on 2 at 1.0, execute on 2 at 1.5, done at 2.25 -> 0 migrations,
 * no wait. Lines are shuffled. t0 = 0.25, t1 = 4.0; with 3 points dt = 1.25 and the times are
 * 0.875, 2.125, 3.375; stage columns in order of first appearance: wait, distribute, done,
 * execute:
 *   0.875: task 7 distributes                               -> [0, 1, 0, 0]
 *   2.125: task 7 waits (2.0 <= t < 3.5), b executes (< 2.25) -> [1, 0, 0, 1]
 *   3.375: task 7 still waits, b is done                     -> [1, 0, 0, 0] */
static const char LOG[] =
    "{\"task\": 7, \"stage\": \"wait\", \"t\": 2.0, \"node\": 3}\n"
    "{\"stage\": \"distribute\", \"task\": \"b\", \"node\": 2, \"t\": 1.0}\n"
    "{\"task\": 7, \"stage\": \"distribute\", \"t\": 0.25, \"node\": 1}\n"
    "\n"
    "{\"task\": 7, \"stage\": \"done\", \"t\": 4.0, \"node\": 3}\n"
    "{\"task\": \"b\", \"stage\": \"execute\", \"t\": 1.5, \"node\": 2}\n"
    "{\"task\": 7, \"stage\": \"distribute\", \"t\": 1.75, \"node\": 3}\n"
    "{\"task\": \"b\", \"stage\": \"done\", \"t\": 2.25, \"node\": 2, \"note\": \"ok \\\"x\\\"\"}\n"
    "{\"task\": 7, \"stage\": \"execute\", \"t\": 3.5, \"node\": 3}\n";

int main(void)
{
    char path[] = "/tmp/mpilens-stagelog-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp)
        return 1;
    fputs(LOG, fp);
    fclose(fp);
    struct lens_stagelog *l = NULL;
    struct lens_err e;
    LENS_TEST(lens_stagelog_read(path, NULL, LENS_STAGELOG_SYNCED, &l, &e) == LENS_OK, "read: %s", e.msg);
    if (l) {
        long d = lens_stagelog_find(l, "distribute"), w = lens_stagelog_find(l, "wait");
        long x = lens_stagelog_find(l, "execute"), n = lens_stagelog_find(l, "done");
        LENS_TEST(l->ntask == 2 && l->nstage == 4 && l->nrecord == 8, "counts %zu %zu %zu", l->ntask, l->nstage, l->nrecord);
        LENS_TEST(w == 0 && d == 1 && x == 3 && n == 2, "stages in order of first appearance");
        /* ordered by arrival: task 7 (0.25) before b (1.0) */
        const struct lens_stagelog_task *a = &l->tasks[0], *b = &l->tasks[1];
        LENS_TEST(!strcmp(a->id, "7") && !strcmp(b->id, "b"), "ids '%s' '%s'", a->id, b->id);
        LENS_TEST(a->migrations == 1 && a->waited && b->migrations == 0 && !b->waited, "migrations and waits");
        LENS_TEST(a->in_stage[d] == 1.75 && a->in_stage[w] == 1.5 && a->in_stage[x] == 0.5 && a->in_stage[n] == 0,
                  "task 7 stays");
        LENS_TEST(b->in_stage[d] == 0.5 && b->in_stage[x] == 0.75, "task b stays");
        LENS_TEST(l->waited == 1 && l->nmig == 2 && l->mig_hist[0] == 1 && l->mig_hist[1] == 1, "histogram");
        double times[3];
        size_t counts[12];
        LENS_TEST(lens_stagelog_occupancy(l, 3, times, counts, &e) == LENS_OK, "occupancy");
        LENS_TEST(times[0] == 0.875 && times[1] == 2.125 && times[2] == 3.375, "time points");
        static const size_t want[12] = {0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0};
        LENS_TEST(!memcmp(counts, want, sizeof want), "occupancy counts %zu %zu %zu %zu / %zu %zu %zu %zu",
                  counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7]);
        /* 15 points: dt = 0.25, times 0.375 + 0.25 i; at i = 3 (1.125) b is in distribute and
         * task 7 too; at i = 5 (1.625) b executes; at i = 14 (3.875) task 7 executes */
        double t15[15];
        size_t c15[60];
        lens_stagelog_occupancy(l, 15, t15, c15, &e);
        LENS_TEST(c15[3 * 4 + d] == 2 && c15[5 * 4 + x] == 1 && c15[5 * 4 + d] == 1 && c15[14 * 4 + x] == 1 &&
                  c15[14 * 4 + w] == 0, "15 points");
        LENS_TEST(lens_stagelog_occupancy(l, 0, t15, c15, &e) == LENS_EINVAL, "0 points refused");
        lens_stagelog_free(l);
    }
    /* "blocked" names no stage: nobody waited */
    l = NULL;
    LENS_TEST(lens_stagelog_read(path, "blocked", LENS_STAGELOG_SYNCED, &l, &e) == LENS_OK && l && l->waited == 0, "other wait stage");
    lens_stagelog_free(l);

    /* allocation failures: each one a clean LENS_ENOMEM, nothing leaked (checked by ASan) */
    int others = 0, done = 0;
    for (long k = 1; k < 200 && !done; k++) {
        l = NULL;
        lens_malloc_fail_after(k);
        int rc = lens_stagelog_read(path, NULL, LENS_STAGELOG_SYNCED, &l, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            done = 1;
        else
            others += rc != LENS_ENOMEM || l != NULL;
        lens_stagelog_free(l);
    }
    LENS_TEST(done && others == 0, "injected failures give LENS_ENOMEM (%d others)", others);
    unlink(path);
    return LENS_TEST_DONE("test_stagelog");
}
