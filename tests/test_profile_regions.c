/* Profiles from region events, on traces built in memory (no OTF2 archive): exclusive seconds
 * worked out by hand for nesting, recursion, an inner region whose Leave is missing, a Leave
 * without its Enter and a region left open at the end; and an unusable region name (empty)
 * refused with the archive, rank and region named. */
#include "analysis/profile/profile.h"
#include "lens_test.h"

#include <string.h>

#define EV(time, reg, in) {.t = (time), .region = (reg), .enter = (in)}

/* One rank, regions main, work, io, wait:
 *   0    Enter main
 *   1    Enter work, 2 Enter work (recursion), 3 Leave (inner: 1 s), 4 Leave (outer: 3 - 1 = 2 s)
 *   4.5  Enter wait, never left: main's Leave at 5 closes it (0.5 s)
 *   5    Leave main: 5 - 3 (work) - 0.5 (wait) = 1.5 s
 *   5.5  Leave io without an Enter (the trace began inside io): skipped
 *   6    Enter io, still open at the rank's last event, 9: 3 s
 * so main 1.5 s, work 3 s, io 3 s, wait 0.5 s. */
static struct lens_trace_region_event revs[] = {
    EV(0, 0, 1), EV(1, 1, 1),   EV(2, 1, 1), EV(3, 1, 0), EV(4, 1, 0),
    EV(4.5, 3, 1), EV(5, 0, 0), EV(5.5, 2, 0), EV(6, 2, 1),
};

static void build(struct lens_trace *t, struct lens_trace_rank *rk, char **names)
{
    memset(t, 0, sizeof *t);
    memset(rk, 0, sizeof *rk);
    rk->revs = revs;
    rk->nrevs = sizeof revs / sizeof *revs;
    rk->t_first = 0;
    rk->t_last = 9;
    t->nranks = 1;
    t->ranks = rk;
    t->regions = names;
    t->nregions = 4;
    t->nevents = rk->nrevs;
}

int main(void)
{
    struct lens_trace t;
    struct lens_trace_rank rk;
    struct lens_err e;
    lens_err_clear(&e);
    char *good[4] = {"main", "work", "io", "wait"};
    build(&t, &rk, good);
    struct lens_profile *p = NULL;
    int rc = lens_profile_otf2_from_trace(&t, "mem.otf2", &p, &e);
    LENS_TEST(rc == LENS_OK, "profile: %s", e.msg);
    if (rc == LENS_OK) {
        static const char *name[4] = {"main", "work", "io", "wait"};
        static const double want[4] = {1.5, 3, 3, 0.5};
        for (int i = 0; i < 4; i++) {
            long f = lens_profile_find(p, name[i]);
            LENS_TEST(f >= 0, "column %s", name[i]);
            if (f >= 0)
                LENS_TEST_REL(lens_profile_func_total(p, (size_t)f), want[i], 1e-12, "%s", name[i]);
        }
        LENS_TEST(p->nproc == 1 && p->ranks[0] == 0, "one process, rank 0");
        lens_profile_free(p);
    }

    /* an empty region name cannot be a profile column: the error says where it came from */
    char *bad[4] = {"main", "", "io", "wait"};
    build(&t, &rk, bad);
    p = NULL;
    rc = lens_profile_otf2_from_trace(&t, "mem.otf2", &p, &e);
    LENS_TEST(rc == LENS_EINVAL && !p, "empty region name refused (%d)", rc);
    LENS_TEST(strstr(e.msg, "mem.otf2: rank 0, region 1: ") && strstr(e.msg, "empty function name"),
              "message names archive, rank and region: %s", e.msg);
    return LENS_TEST_DONE("test_profile_regions");
}
