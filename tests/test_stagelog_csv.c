/* The per-task CSV of a stage log keeps its columns when a task id or a stage name holds a
 * comma or a quote: such fields are quoted as RFC 4180 says, ordinary ones are written bare.
 * The expected text is worked out by hand below. */
#include "analysis/profile/stagelog.h"
#include "lens_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Task "a,b": stage x,"y" on node 1 at 1.0, done on node 2 at 3.0 -> arrival 1, 1 migration,
 * 2 s in x,"y". Task 5: done at 2.0, its only record -> arrival 2, no stay. No "wait" stage,
 * so nobody waited. Stage columns in order of first appearance: x,"y" then done. */
static const char LOG[] =
    "{\"task\": \"a,b\", \"stage\": \"x,\\\"y\\\"\", \"t\": 1.0, \"node\": 1}\n"
    "{\"task\": 5, \"stage\": \"done\", \"t\": 2.0, \"node\": 1}\n"
    "{\"task\": \"a,b\", \"stage\": \"done\", \"t\": 3.0, \"node\": 2}\n";

static const char WANT[] = "task,arrival,migrations,waited,\"x,\"\"y\"\"\",done\n"
                           "\"a,b\",1,1,0,2,0\n"
                           "5,2,0,0,0,0\n";

int main(void)
{
    char path[] = "/tmp/mpilens-stagecsv-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp)
        return 1;
    fputs(LOG, fp);
    fclose(fp);
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_stagelog *l = NULL;
    int rc = lens_stagelog_read(path, NULL, LENS_STAGELOG_SYNCED, &l, &e);
    unlink(path);
    LENS_TEST(rc == LENS_OK, "read: %s", e.msg);
    if (rc == LENS_OK) {
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        LENS_TEST(out && lens_stagelog_write_tasks_csv(l, out, &e) == LENS_OK, "write: %s", e.msg);
        if (out)
            fclose(out);
        LENS_TEST(buf && !strcmp(buf, WANT), "csv:\n%s\nwant:\n%s", buf ? buf : "(none)", WANT);
        free(buf); /* open_memstream's buffer comes from malloc */
        lens_stagelog_free(l);
    }
    return LENS_TEST_DONE("test_stagelog_csv");
}
