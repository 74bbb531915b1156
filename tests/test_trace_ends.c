/* lens_trace_ends / lens_trace_ends_text (analysis/trace/trace.c) on synthetic archives written
 * with OTF2's own writer (tests/synth_otf2.h, which records no MPI_Finalize and no creator, so
 * the archives are "foreign"): a rank whose last event is more than 10% of the run before the
 * latest ends early, a rank without events while others have some ends early, an archive whose
 * creator is mpilens without MPI_Finalize ends early on every rank. Event counts are compared
 * with what the writer counted. */
#include "analysis/trace/trace.h"
#include "lens_test.h"
#include "lens_scratch.h"
#include "synth_otf2.h"

#include <stdio.h>
#include <string.h>

/* Ranks do barriers every half second from 0 s to end[r] s (end < 0: no events). */
static int write_trace(const char *dir, int n, const double *end, const char *creator,
                       uint64_t *nev)
{
    struct synth s;
    if (synth_open(&s, dir, n) != 0)
        return -1;
    if (creator)
        OTF2_Archive_SetCreator(s.ar, creator);
    for (int r = 0; r < n; r++)
        for (double t = 0; end[r] >= 0 && t <= end[r] + 1e-9; t += 0.5)
            synth_coll(&s, r, t, t + 0.01, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    for (int r = 0; r < n; r++)
        nev[r] = s.nev[r];
    return synth_close(&s, NULL);
}

/* Reads dir and fills ends; returns the number of early ranks, -100 when it cannot read. */
static int ends_of(const char *dir, struct lens_trace_end *o, double *t_end, char *counts,
                   char *warning)
{
    struct lens_trace *t = NULL;
    struct lens_err e;
    if (lens_trace_read(dir, &t, &e) != LENS_OK) {
        fprintf(stderr, "%s\n", e.msg);
        return -100;
    }
    int early = lens_trace_ends(t, o, t_end);
    LENS_TEST(lens_trace_ends_text(t, counts, 2048, warning, 4096) == early,
              "text and struct agree on %s", dir);
    lens_trace_free(t);
    return early;
}

int main(void)
{
    struct lens_trace_end o[20];
    uint64_t nev[20];
    double t_end;
    char counts[2048], warning[4096], want[256];
    if (lens_scratch_open("test_trace_ends"))
        return 1;

    /* 1. rank 1 stops at 4 s of a 10 s run: 6 s > 10% of 10.01 s */
    double e1[3] = {10, 4, 10};
    char *d = lens_scratch_path("a");
    LENS_TEST(write_trace(d, 3, e1, NULL, nev) == 0, "write %s", d);
    LENS_TEST(lens_scratch_exists(lens_scratch_path("a/traces.otf2")), "anchor written");
    LENS_TEST(ends_of(d, o, &t_end, counts, warning) == 1, "one early rank");
    LENS_TEST(!o[0].early && o[1].early && !o[2].early, "rank 1 early: %d %d %d", o[0].early,
              o[1].early, o[2].early);
    LENS_TEST_REL(o[1].t_last, 4.01, 1e-9, "rank 1 kept until 4.01 s");
    LENS_TEST_REL(t_end, 10.01, 1e-9, "run ends at 10.01 s");
    for (int r = 0; r < 3; r++)
        LENS_TEST(o[r].nevents == nev[r], "rank %d: %llu events, writer wrote %llu", r,
                  (unsigned long long)o[r].nevents, (unsigned long long)nev[r]);
    snprintf(want, sizeof want, "events per rank: 0=%llu 1=%llu 2=%llu",
             (unsigned long long)nev[0], (unsigned long long)nev[1], (unsigned long long)nev[2]);
    LENS_TEST(!strcmp(counts, want), "counts '%s' want '%s'", counts, want);
    snprintf(want, sizeof want, "rank 1 kept until 4.010000 s (%llu events)",
             (unsigned long long)nev[1]);
    LENS_TEST(strstr(warning, "1 of 3 ranks ends early") && strstr(warning, want) &&
              strstr(warning, "last event of any rank is at 10.010000 s"), "warning '%s'", warning);

    /* 2. rank 1 stops at 9.5 s: 0.5 s is not more than 10% of the run */
    double e2[3] = {10, 9.5, 10};
    d = lens_scratch_path("b");
    LENS_TEST(write_trace(d, 3, e2, NULL, nev) == 0, "write %s", d);
    LENS_TEST(ends_of(d, o, &t_end, counts, warning) == 0, "no early rank");
    LENS_TEST(warning[0] == '\0', "no warning: '%s'", warning);

    /* 3. rank 2 has no events at all */
    double e3[3] = {10, 10, -1};
    d = lens_scratch_path("c");
    LENS_TEST(write_trace(d, 3, e3, NULL, nev) == 0, "write %s", d);
    LENS_TEST(ends_of(d, o, &t_end, counts, warning) == 1 && o[2].early && !o[2].nevents,
              "rank 2 without events is early");
    LENS_TEST(strstr(warning, "rank 2 kept no events") != NULL, "warning '%s'", warning);

    /* 4. our collector's archive without MPI_Finalize: every rank ended early */
    double e4[3] = {10, 10, 10};
    d = lens_scratch_path("d");
    LENS_TEST(write_trace(d, 3, e4, "mpilens test", nev) == 0, "write %s", d);
    LENS_TEST(ends_of(d, o, &t_end, counts, warning) == 3, "all early (ours, no Finalize)");
    LENS_TEST(strstr(warning, "no MPI_Finalize") != NULL, "warning '%s'", warning);

    /* 5. beyond 16 ranks the counts are a summary: rank 7 has the fewest, rank 0 the most */
    double e5[20];
    for (int r = 0; r < 20; r++)
        e5[r] = r == 7 ? 2 : 10;
    e5[0] = 11;
    d = lens_scratch_path("e");
    LENS_TEST(write_trace(d, 20, e5, NULL, nev) == 0, "write %s", d);
    ends_of(d, o, &t_end, counts, warning);
    snprintf(want, sizeof want, "events per rank: min %llu (rank 7), max %llu (rank 0)",
             (unsigned long long)nev[7], (unsigned long long)nev[0]);
    LENS_TEST(!strncmp(counts, want, strlen(want)), "counts '%s' want '%s...'", counts, want);

    LENS_TEST(lens_scratch_leftovers() == 0, "no temporary files");
    lens_scratch_close();
    printf("test_trace_ends: %d passed, %d failed\n", lens_test_passed, lens_test_failed);
    return lens_test_failed != 0;
}
