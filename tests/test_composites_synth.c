/* The general composites of templates/rules/sequence.rules on a synthetic two-rank trace whose
 * waits are worked out by hand (tests/synth_otf2.h): redundant_barrier keeps what
 * wait_at_barrier leaves of each barrier, unsafe_exchange (nested) what late_receiver leaves of
 * each send; their texts are expanded on the largest instance; and allocation failures
 * anywhere in the matcher give ENOMEM, never a crash or a leak. */
#include "analysis/trace/problems.h"
#include "lens_test.h"
#include "synth_otf2.h"

#include <otf2/OTF2_Events.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256];

static const struct lens_problem_result *find(const struct lens_problems *p, const char *id)
{
    for (int i = 0; p && i < p->nres; i++)
        if (!strcmp(p->res[i].rule->id, id))
            return &p->res[i];
    return NULL;
}

/* Rank 0: Barrier [1.0, 2.0], Allreduce [2.1, 2.5], Send to 1 [3.0, 3.2], Recv [3.3, 4.0].
 * Rank 1: Barrier [1.5, 2.0], Allreduce [2.2, 2.5], Send to 0 [3.1, 3.4], Recv [3.5, 3.6].
 * By hand: wait_at_barrier holds [1.0, 1.5] of rank 0's barrier, barrier_completion nothing
 * (both leave at 2.0), so redundant_barrier keeps 0.5 s on each rank. Rank 1's send is a late
 * receiver's until rank 0 posts its receive: min(3.3, 3.4) - 3.1 = 0.2 s, so unsafe_exchange
 * keeps 0.3 - 0.2 = 0.1 s there and the whole 0.2 s of rank 0's send. */
static void write_trace(const char *dir)
{
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 2) == 0, "open %s", dir);
    synth_enter(&s, 0, 0.0, SR_MAIN);
    synth_coll(&s, 0, 1.0, 2.0, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    synth_coll(&s, 0, 2.1, 2.5, SR_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, -1);
    synth_enter(&s, 0, 3.0, SR_SEND);
    synth_send(&s, 0, 3.0, 1, 5, 8);
    synth_leave(&s, 0, 3.2, SR_SEND);
    synth_enter(&s, 0, 3.3, SR_RECV);
    synth_recv(&s, 0, 4.0, 1, 5, 8);
    synth_leave(&s, 0, 4.0, SR_RECV);
    synth_leave(&s, 0, 5.0, SR_MAIN);
    synth_enter(&s, 1, 0.0, SR_MAIN);
    synth_coll(&s, 1, 1.5, 2.0, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    synth_coll(&s, 1, 2.2, 2.5, SR_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, -1);
    synth_enter(&s, 1, 3.1, SR_SEND);
    synth_send(&s, 1, 3.1, 0, 5, 8);
    synth_leave(&s, 1, 3.4, SR_SEND);
    synth_enter(&s, 1, 3.5, SR_RECV);
    synth_recv(&s, 1, 3.6, 0, 5, 8);
    synth_leave(&s, 1, 3.6, SR_RECV);
    synth_leave(&s, 1, 5.0, SR_MAIN);
    LENS_TEST(synth_close(&s, NULL) == 0, "close");
}

static void expect(const struct lens_problems *p, const char *id, double r0, double r1,
                   uint64_t count)
{
    const struct lens_problem_result *r = find(p, id);
    LENS_TEST(r && r->count == count, "%s: %llu instances, want %llu", id,
              r ? (unsigned long long)r->count : 0ULL, (unsigned long long)count);
    LENS_TEST(r && fabs(r->per_rank[0] - r0) < 1e-9 && fabs(r->per_rank[1] - r1) < 1e-9,
              "%s: %.9f %.9f, want %g %g", id, r ? r->per_rank[0] : -1, r ? r->per_rank[1] : -1,
              r0, r1);
}

static void test_hand(const char *dir)
{
    struct lens_problems *p = NULL;
    struct lens_err e = {0};
    int rc = lens_problems_run(dir, "templates/rules", &p, &e);
    LENS_TEST(rc == LENS_OK, "analysis: %s", e.msg);
    if (rc)
        return;
    expect(p, "wait_at_barrier", 0.5, 0, 1);
    expect(p, "redundant_barrier", 0.5, 0.5, 2);
    expect(p, "late_receiver", 0, 0.2, 1);
    expect(p, "unsafe_exchange", 0.2, 0.1, 2);
    const struct lens_problem_result *r = find(p, "unsafe_exchange");
    /* the nested member's fields are its composite's parameters; the send of rank 0 is the
     * largest charge */
    const char *want = "Largest: rank 0 with rank 1, 200.0 ms in the send.";
    LENS_TEST(r && strstr(r->text[0][LENS_RULE_DESCRIPTION], want), "description '%s'",
              r ? r->text[0][LENS_RULE_DESCRIPTION] : "");
    LENS_TEST(r && strstr(r->text[1][LENS_RULE_DESCRIPTION], "процесс 0 с процессом 1, 200.0 мс"),
              "Russian '%s'", r ? r->text[1][LENS_RULE_DESCRIPTION] : "");
    r = find(p, "redundant_barrier");
    LENS_TEST(r && strstr(r->text[0][LENS_RULE_DESCRIPTION], "rank 0 lost 500.0 ms in the "
                                                             "barrier at MPI_Barrier called from "
                                                             "main before "
                                                             "MPI_Allreduce."),
              "description '%s'", r ? r->text[0][LENS_RULE_DESCRIPTION] : "");
    /* the cause of a redundant barrier is the collective after it */
    LENS_TEST(r && r->nculprits == 1 && !strcmp(r->culprits[0].function, "MPI_Allreduce"),
              "cause %s", r && r->nculprits ? r->culprits[0].function : "none");
    lens_problems_free(p);
}

/* Every allocation of reading, matching and expanding may fail: ENOMEM each time, then OK. */
static void test_fault_injection(const char *dir)
{
    int failures = 0, ok = 0;
    for (long n = 1; n < 4000 && !ok; n++) {
        struct lens_problems *p = NULL;
        struct lens_err e = {0};
        lens_malloc_fail_after(n);
        int rc = lens_problems_run(dir, "templates/rules", &p, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            ok = 1;
        else if (rc == LENS_ENOMEM)
            failures++;
        else
            LENS_TEST(0, "failure %ld gave %d: %s", n, rc, e.msg);
        lens_problems_free(p);
    }
    LENS_TEST(ok && failures > 20, "walked %d allocation failures", failures);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/mpilens-composites-XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/seq", tmp);
    write_trace(dir);
    test_hand(dir);
    test_fault_injection(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmp);
    return LENS_TEST_DONE("test_composites_synth");
}
