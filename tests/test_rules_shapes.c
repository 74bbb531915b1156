/* The built-in shapes as rule text: collective.rules (a general composite of a call and the
 * shared set of its instance's calls) on a synthetic four-rank trace with one instance of
 * each collective pattern, and p2p.rules (the two ends of each message as simple events) on
 * a three-rank trace with a Waitall completing two late messages and a late receiver; waits,
 * counts and causes are worked out by hand below. The same rule base with the built-in kinds
 * (collective + collective_instance, send + recv, lock_epoch + lock_holder, access_epoch +
 * exposure_epoch, rewritten from the shipped files) gives byte-identical JSON and text, also
 * on a one-sided trace (lock contention, late post, early wait) whose causes are checked. */
#include "analysis/trace/problems.h"
#include "common/alloc.h"
#include "lens_test.h"
#include "synth_otf2.h"

#include <otf2/OTF2_Events.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[256];

/* Per rank: enter and leave of each collective, in the order written. Ties and orders are
 * chosen so that each cause differs from the set's default (its latest call to enter) where
 * the rule names another: the root of the Bcast enters before the last rank, and the Scan's
 * waiting rank 2 waits for rank 1 while rank 3 enters last. */
static const double T[7][4][2] = {
    /* Barrier: the last in are ranks 1 and 3 at 1.4 (tie: rank 1 is the cause) */
    {{1.0, 1.9}, {1.4, 2.0}, {1.2, 2.0}, {1.4, 2.1}},
    /* Bcast, root 2 (enters 3.5); rank 3 enters last, after the root */
    {{3.0, 3.9}, {3.1, 3.9}, {3.5, 3.55}, {3.8, 3.9}},
    /* Reduce, root 1 (enters 4.1); ranks 2 and 3 are the last senders (tie: rank 2) */
    {{4.0, 4.7}, {4.1, 4.7}, {4.6, 4.7}, {4.6, 4.7}},
    /* Allreduce */
    {{5.0, 5.5}, {5.3, 5.4}, {5.1, 5.5}, {5.2, 5.5}},
    /* Scan: prefix maxima of the enters 6.0, 6.5, 6.5, 6.7: rank 2 waits for rank 1, although
     * rank 3 enters last */
    {{6.0, 6.8}, {6.5, 6.8}, {6.2, 6.8}, {6.7, 6.8}},
    /* Win_create */
    {{7.0, 7.3}, {7.0, 7.3}, {7.2, 7.3}, {7.1, 7.3}},
    /* Win_fence */
    {{8.0, 8.5}, {8.4, 8.5}, {8.1, 8.5}, {8.1, 8.5}}};

/* Each rank's collective calls come from their own return address (module string 100, offset
 * 0x100 * (rank + 1)), which stays unresolved ("shapes.so+0x300" is rank 2): the call sites
 * of a problem's cause then name the rank that caused it. */
static void write_trace(const char *dir)
{
    static const int region[5] = {SR_BARRIER, SR_BCAST, SR_REDUCE, SR_ALLREDUCE, SR_SCAN};
    static const int op[5] = {OTF2_COLLECTIVE_OP_BARRIER, OTF2_COLLECTIVE_OP_BCAST,
                              OTF2_COLLECTIVE_OP_REDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE,
                              OTF2_COLLECTIVE_OP_SCAN};
    static const int root[5] = {-1, 2, 1, -1, -1};
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 4) == 0, "open %s", dir);
    for (int r = 0; r < 4; r++) {
        synth_enter(&s, r, 0.0, SR_MAIN);
        for (int k = 0; k < 5; k++)
            synth_coll_site(&s, r, T[k][r][0], T[k][r][1], region[k], op[k], root[k], 100,
                            0x100u * (unsigned)(r + 1));
        synth_win_create(&s, r, T[5][r][0], T[5][r][1]);
        synth_fence(&s, r, T[6][r][0], T[6][r][1]);
        synth_leave(&s, r, 9.0, SR_MAIN);
    }
    LENS_TEST(synth_close(&s, "/nonexistent/shapes.so") == 0, "close");
}

static const struct lens_problem_result *find(const struct lens_problems *p, const char *id)
{
    for (int i = 0; p && i < p->nres; i++)
        if (!strcmp(p->res[i].rule->id, id))
            return &p->res[i];
    return NULL;
}

/* One-sided, the trace of tests/test_events.c (test_rma): rank 1's exclusive lock of target 2
 * waits [2.5, 4.0] for rank 0's unlock at 3.99; rank 0's Win_start [5.0, 6.02] waits for
 * target 2's post at 6.0; target 2's Win_wait [6.5, 9.0] waits for rank 1's Win_complete at
 * 8.0. By hand: 1.49 s, 1.0 s and 1.5 s, caused by the holder's Win_unlock, the target's
 * Win_post and the origin's Win_complete (not the calls the ends stand for). */
static void write_rma(const char *dir)
{
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open %s", dir);
    int g01 = synth_group(&s, 2, (int[]){0, 1}), g2 = synth_group(&s, 1, (int[]){2});
    synth_win_create(&s, 0, 0.5, 1.6);
    synth_win_create(&s, 1, 1.5, 1.6);
    synth_win_create(&s, 2, 1.2, 1.6);
    synth_lock(&s, 0, 2.0, 2.01, 2, 1);
    synth_call(&s, 0, 2.01, 2.02, SR_PUT);
    synth_unlock(&s, 0, 3.99, 4.0, 2);
    synth_lock(&s, 1, 2.5, 4.0, 2, 1);
    synth_unlock(&s, 1, 4.1, 4.2, 2);
    synth_pscw(&s, 2, 6.0, 6.01, SR_WIN_POST, g01);
    synth_pscw(&s, 2, 6.5, 9.0, SR_WIN_WAIT, -1);
    synth_pscw(&s, 0, 5.0, 6.02, SR_WIN_START, g2);
    synth_call(&s, 0, 6.02, 6.03, SR_PUT);
    synth_pscw(&s, 0, 6.03, 6.05, SR_WIN_COMPLETE, -1);
    synth_pscw(&s, 1, 5.5, 5.51, SR_WIN_START, g2);
    synth_call(&s, 1, 5.51, 5.52, SR_PUT);
    synth_pscw(&s, 1, 8.0, 8.1, SR_WIN_COMPLETE, -1);
    LENS_TEST(synth_close(&s, NULL) == 0, "close");
}

/* id, the charged rank and seconds, the charged call and the cause's call */
static void expect_rma(const struct lens_problems *p, const char *id, int rank, double sec,
                       const char *charged, const char *cause)
{
    const struct lens_problem_result *r = find(p, id);
    LENS_TEST(r && r->count == 1 && fabs(r->per_rank[rank] - sec) < 1e-9 &&
              fabs(r->total_s - sec) < 1e-9, "%s: %llu instances, %.9f on rank %d, want %g", id,
              r ? (unsigned long long)r->count : 0ULL, r ? r->per_rank[rank] : -1, rank, sec);
    LENS_TEST(r && r->nsites == 1 && !strcmp(r->sites[0].function, charged) &&
              r->nculprits == 1 && !strcmp(r->culprits[0].function, cause),
              "%s: charged %s caused by %s, want %s and %s", id,
              r && r->nsites ? r->sites[0].function : "",
              r && r->nculprits ? r->culprits[0].function : "", charged, cause);
}

static void test_rma(const char *dir)
{
    struct lens_problems *p = NULL;
    struct lens_err e = {0};
    int rc = lens_problems_run(dir, "templates/rules", &p, &e);
    LENS_TEST(rc == LENS_OK, "analysis: %s", e.msg);
    if (rc)
        return;
    expect_rma(p, "rma_lock_contention", 1, 3.99 - 2.5, "MPI_Win_lock", "MPI_Win_unlock");
    expect_rma(p, "rma_late_post", 0, 6.0 - 5.0, "MPI_Win_start", "MPI_Win_post");
    expect_rma(p, "rma_early_exposure_end", 2, 8.0 - 6.5, "MPI_Win_wait", "MPI_Win_complete");
    lens_problems_free(p);
}

/* Rank 0 posts two Irecvs (from 1 and 2) and waits for both in one Waitall [2.0, 4.2]; rank 1
 * Isends at 3.0, rank 2 at 4.0 (each completed by a Wait later). By hand: late senders of
 * 1.0 and 2.0 s on the same Waitall, which counts once with the larger (Scalasca), caused by
 * rank 2's Isend (not its Wait). Then rank 1 Sends to rank 2 in [5.0, 6.0] while rank 2 posts
 * its Irecv only at 5.5: a late receiver of 0.5 s on rank 1, caused by that Irecv (not the
 * Wait that completed it). Isend and Irecv calls carry per-rank sites as in write_trace. */
static void write_p2p(const char *dir)
{
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open %s", dir);
    for (int r = 0; r < 3; r++)
        synth_enter(&s, r, 0.0, SR_MAIN);
    for (int k = 1; k <= 2; k++) {
        synth_enter_site(&s, 0, 0.1 * k, SR_IRECV, 100, 0x100);
        synth_irecv_request(&s, 0, 0.1 * k + 0.001, (uint64_t)k);
        synth_leave(&s, 0, 0.1 * k + 0.002, SR_IRECV);
    }
    synth_enter(&s, 0, 2.0, SR_WAITALL);
    synth_irecv(&s, 0, 4.1, 1, 5, 8, 1);
    synth_irecv(&s, 0, 4.15, 2, 5, 8, 2);
    synth_leave(&s, 0, 4.2, SR_WAITALL);
    for (int r = 1; r <= 2; r++) {
        double t = 2.0 + r;
        synth_enter_site(&s, r, t, SR_ISEND, 100, 0x100u * (unsigned)(r + 1));
        synth_isend(&s, r, t + 0.001, 0, 5, 8, 7);
        synth_leave(&s, r, t + 0.01, SR_ISEND);
        synth_enter(&s, r, t + 0.5, SR_WAIT);
        synth_isend_complete(&s, r, t + 0.55, 7);
        synth_leave(&s, r, t + 0.6, SR_WAIT);
    }
    synth_enter_site(&s, 1, 5.0, SR_SEND, 100, 0x200);
    synth_send(&s, 1, 5.001, 2, 6, 1 << 20);
    synth_leave(&s, 1, 6.0, SR_SEND);
    synth_enter_site(&s, 2, 5.5, SR_IRECV, 100, 0x300);
    synth_irecv_request(&s, 2, 5.501, 9);
    synth_leave(&s, 2, 5.51, SR_IRECV);
    synth_enter(&s, 2, 5.6, SR_WAIT);
    synth_irecv(&s, 2, 6.05, 1, 6, 1 << 20, 9);
    synth_leave(&s, 2, 6.1, SR_WAIT);
    for (int r = 0; r < 3; r++)
        synth_leave(&s, r, 7.0, SR_MAIN);
    LENS_TEST(synth_close(&s, "/nonexistent/shapes.so") == 0, "close");
}

static void test_p2p(const char *dir)
{
    struct lens_problems *p = NULL;
    struct lens_err e = {0};
    int rc = lens_problems_run(dir, "templates/rules", &p, &e);
    LENS_TEST(rc == LENS_OK, "analysis: %s", e.msg);
    if (rc)
        return;
    const struct lens_problem_result *r = find(p, "late_sender");
    LENS_TEST(r && r->count == 1 && fabs(r->per_rank[0] - 2.0) < 1e-9 && r->per_rank[1] == 0 &&
              r->per_rank[2] == 0, "late_sender: %llu instances, %.9f on rank 0",
              r ? (unsigned long long)r->count : 0ULL, r ? r->per_rank[0] : -1);
    LENS_TEST(r && r->nsites == 1 && !strcmp(r->sites[0].function, "MPI_Waitall") &&
              !strcmp(r->sites[0].member, "recv"), "late_sender charged on %s",
              r && r->nsites ? r->sites[0].function : "");
    LENS_TEST(r && r->nculprits == 1 &&
              !strcmp(r->culprits[0].text, "MPI_Isend called from shapes.so+0x300") &&
              !strcmp(r->culprits[0].member, "send"), "late_sender cause '%s'",
              r && r->nculprits ? r->culprits[0].text : "");
    r = find(p, "late_receiver");
    LENS_TEST(r && r->count == 1 && fabs(r->per_rank[1] - 0.5) < 1e-9,
              "late_receiver: %llu instances, %.9f on rank 1",
              r ? (unsigned long long)r->count : 0ULL, r ? r->per_rank[1] : -1);
    LENS_TEST(r && r->nsites == 1 && !strcmp(r->sites[0].text, "MPI_Send called from "
                                                               "shapes.so+0x200") &&
              r->nculprits == 1 &&
              !strcmp(r->culprits[0].text, "MPI_Irecv called from shapes.so+0x300") &&
              !strcmp(r->culprits[0].member, "recv"), "late_receiver site '%s' cause '%s'",
              r && r->nsites ? r->sites[0].text : "", r && r->nculprits ? r->culprits[0].text : "");
    lens_problems_free(p);
}


/* The waits by the formulas of docs/problems.md ("The knowledge base"), straight from T:
 * barrier-like  max(0, min(max_j b_j, e_i) - b_i), completion max(0, e_i - max(min_j e_j,
 * min(max_j b_j, e_i))), late broadcast on non-roots with the root's enter, early reduce on
 * the root with the last sender's, early scan with the prefix maximum over ranks <= i. */
static void want_waits(int op, int form, int root, double w[4])
{
    double maxb = -1, mine = 1e9, maxs = -1;
    for (int j = 0; j < 4; j++) {
        maxb = fmax(maxb, T[op][j][0]);
        mine = fmin(mine, T[op][j][1]);
        if (j != root)
            maxs = fmax(maxs, T[op][j][0]);
    }
    for (int i = 0; i < 4; i++) {
        double b = T[op][i][0], e = T[op][i][1], pre = -1;
        for (int j = 0; j <= i; j++)
            pre = fmax(pre, T[op][j][0]);
        double d = form == 0 ? fmin(maxb, e) - b
                 : form == 1 ? e - fmax(mine, fmin(maxb, e))
                 : form == 2 ? (i == root ? 0 : fmin(T[op][root][0], e) - b)
                 : form == 3 ? (i == root ? fmin(maxs, e) - b : 0)
                             : fmin(pre, e) - b;
        w[i] = d > 1e-12 ? d : 0;
    }
}

/* Problem id, the collective (row of T), the formula (want_waits), the root, the MPI function,
 * and the rank whose call caused every wait of it (the argmax of the formula's bound, the
 * lowest rank of a tie; -1: not checked). */
static void expect(const struct lens_problems *p, const char *id, int op, int form, int root,
                   const char *function, int cause_rank)
{
    const struct lens_problem_result *r = find(p, id);
    double w[4];
    want_waits(op, form, root, w);
    uint64_t n = 0;
    for (int i = 0; i < 4; i++)
        n += w[i] > 0;
    LENS_TEST(r && r->count == n, "%s: %llu instances, want %llu", id,
              r ? (unsigned long long)r->count : 0ULL, (unsigned long long)n);
    for (int i = 0; r && i < 4; i++)
        LENS_TEST(fabs(r->per_rank[i] - w[i]) < 1e-9, "%s rank %d: %.9f, want %.9f", id, i,
                  r->per_rank[i], w[i]);
    /* one waiting site per waiting rank (each rank calls from its own address); one cause
     * call for all of them, on cause_rank (-1: a window call, which has no site) */
    LENS_TEST(r && r->nculprits == 1 && r->culprits[0].count == n &&
              !strcmp(r->culprits[0].member, "all") && !strcmp(r->culprits[0].function,
                                                               function),
              "%s: causes %d", id, r ? r->nculprits : -1);
    if (cause_rank >= 0) {
        char want[64];
        snprintf(want, sizeof want, "%s called from shapes.so+0x%x", function,
                 0x100 * (cause_rank + 1));
        LENS_TEST(r && (uint64_t)r->nsites == n && r->nculprits == 1 &&
                  !strcmp(r->culprits[0].text, want), "%s: %d sites, cause '%s', want '%s'", id,
                  r ? r->nsites : -1, r && r->nculprits ? r->culprits[0].text : "", want);
    }
}

/* Replaces the one occurrence of old in *s by new (all occurrences when all is set);
 * returns how many. */
static int replace(char **s, const char *old, const char *new, int all)
{
    int n = 0;
    char *at;
    size_t from = 0;
    while ((at = strstr(*s + from, old))) {
        size_t pre = (size_t)(at - *s), lo = strlen(old), ln = strlen(new);
        char *t = malloc(strlen(*s) - lo + ln + 1);
        memcpy(t, *s, pre);
        memcpy(t + pre, new, ln);
        strcpy(t + pre + ln, at + lo);
        free(*s);
        *s = t;
        from = pre + ln;
        n++;
        if (!all)
            break;
    }
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *s = calloc(1, 1 << 20);
    size_t n = fread(s, 1, (1 << 20) - 1, f);
    s[n] = 0;
    fclose(f);
    return s;
}

static void spill(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    LENS_TEST(f && fputs(text, f) >= 0, "write %s", path);
    if (f)
        fclose(f);
}

/* The shipped rule base with collective.rules turned back into the built-in kind's form: the
 * composite's members and its 'when', is_root for the root test, the member's own prefix
 * maximum, and no 'cause' (the kind's builder names the same calls). */
static void kind_rules(const char *dir)
{
    static const char *const same[] = {"sequence.rules"};
    char path[400];
    char *s = slurp("templates/rules/collective.rules");
    LENS_TEST(s != NULL, "read collective.rules");
    if (!s)
        return;
    LENS_TEST(replace(&s, "member (call as c, shared calls as all)\nwhen c.instance >= 0 and "
                          "all.instance == c.instance\n",
                      "member (collective as c, shared collective_instance as all)\n", 0) == 1,
              "composite head");
    LENS_TEST(replace(&s, "c.rank != all.root", "not c.is_root", 0) == 1, "non-root");
    LENS_TEST(replace(&s, "c.rank == all.root", "c.is_root", 0) == 1, "root");
    LENS_TEST(replace(&s, "all.prefix_max_enter, own_leave", "c.prefix_max_enter, own_leave",
                      0) == 1, "prefix");
    LENS_TEST(replace(&s, "    cause = all.root_enter,\n", "", 0) == 1 &&
              replace(&s, "    cause = all.max_enter_nonroot,\n", "", 0) == 1 &&
              replace(&s, "    cause = all.prefix_max_enter,\n", "", 0) == 1, "causes");
    snprintf(path, sizeof path, "%s/collective.rules", dir);
    spill(path, s);
    free(s);
    /* p2p.rules: the pair of message ends back to the kind's send + recv, without causes */
    s = slurp("templates/rules/p2p.rules");
    LENS_TEST(s != NULL, "read p2p.rules");
    if (!s)
        return;
    LENS_TEST(replace(&s, "member (send_msg as send, recv_msg as recv)\nwhen recv.id == "
                          "send.id\n", "member (send as send, recv as recv)\n", 0) == 1,
              "p2p head");
    LENS_TEST(replace(&s, "    cause = send.enter,\n", "", 1) == 2 &&
              replace(&s, "    cause = recv.post_enter,\n", "", 0) == 1, "p2p causes");
    snprintf(path, sizeof path, "%s/p2p.rules", dir);
    spill(path, s);
    free(s);
    /* rma.rules: lock epochs and PSCW ends back to the kinds' pairs, without causes */
    s = slurp("templates/rules/rma.rules");
    LENS_TEST(s != NULL, "read rma.rules");
    if (!s)
        return;
    LENS_TEST(replace(&s, "member (lock_ep as l, lock_ep as holder)\nwhen holder.id == l.prev;",
                      "member (lock_epoch as l, shared lock_holder as holder);", 0) == 1 &&
              replace(&s, "member (pscw_access as a, pscw_exposure as x)\nwhen x.id == a.id;",
                      "member (access_epoch as a, shared exposure_epoch as x);", 0) == 1,
              "rma heads");
    LENS_TEST(replace(&s, "    cause = holder.release,\n", "", 0) == 1 &&
              replace(&s, "    cause = x.post_enter,\n", "", 0) == 1 &&
              replace(&s, "    cause = a.complete_enter,\n", "", 0) == 1, "rma causes");
    snprintf(path, sizeof path, "%s/rma.rules", dir);
    spill(path, s);
    free(s);
    for (int i = 0; i < 1; i++) {
        char src[300];
        snprintf(src, sizeof src, "templates/rules/%s", same[i]);
        s = slurp(src);
        snprintf(path, sizeof path, "%s/%s", dir, same[i]);
        spill(path, s ? s : "");
        free(s);
    }
}

/* The listing and JSON of one analysis in both languages, into one string (owned). */
static char *outputs(const char *trace, const char *rules)
{
    struct lens_problems *p = NULL;
    struct lens_err e = {0};
    int rc = lens_problems_run(trace, rules, &p, &e);
    LENS_TEST(rc == LENS_OK, "%s with %s: %s", trace, rules, e.msg);
    if (rc)
        return NULL;
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    for (int l = 0; l < 2; l++) {
        lens_problems_write_json(p, l, f);
        lens_problems_write_text(p, l, f);
    }
    fclose(f);
    lens_problems_free(p);
    return buf;
}

static void compare(const char *trace, const char *kind_dir, const char *found)
{
    char *a = outputs(trace, "templates/rules"), *b = outputs(trace, kind_dir);
    LENS_TEST(a && b && !strcmp(a, b), "%s: the rule text and the built-in kind differ", trace);
    /* the comparison is not vacuous: the listing names a problem found */
    LENS_TEST(a && strstr(a, found), "%s: no '%s'", trace, found);
    free(a);
    free(b);
}

static void test_hand(const char *dir)
{
    struct lens_problems *p = NULL;
    struct lens_err e = {0};
    int rc = lens_problems_run(dir, "templates/rules", &p, &e);
    LENS_TEST(rc == LENS_OK, "analysis: %s", e.msg);
    if (rc)
        return;
    expect(p, "wait_at_barrier", 0, 0, -1, "MPI_Barrier", 1);
    expect(p, "barrier_completion", 0, 1, -1, "MPI_Barrier", 1);
    expect(p, "late_broadcast", 1, 2, 2, "MPI_Bcast", 2);
    expect(p, "early_reduce", 2, 3, 1, "MPI_Reduce", 2);
    expect(p, "wait_at_nxn", 3, 0, -1, "MPI_Allreduce", 1);
    expect(p, "nxn_completion", 3, 1, -1, "MPI_Allreduce", 1);
    expect(p, "early_scan", 4, 4, -1, "MPI_Scan", 1);
    expect(p, "rma_window_create_wait", 5, 0, -1, "MPI_Win_create", -1);
    expect(p, "rma_wait_at_fence", 6, 0, -1, "MPI_Win_fence", -1);
    lens_problems_free(p);
}

/* Every allocation of the set's bucket cache and prefix arrays may fail: ENOMEM, then OK. */
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
    snprintf(tmp, sizeof tmp, "/tmp/mpilens-shapes-XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    char dir[300], kind[300];
    snprintf(dir, sizeof dir, "%s/coll", tmp);
    snprintf(kind, sizeof kind, "%s/kind", tmp);
    write_trace(dir);
    LENS_TEST(mkdir(kind, 0700) == 0, "mkdir %s", kind);
    kind_rules(kind);
    test_hand(dir);
    compare(dir, kind, "Early scan [early_scan]");
    char p2p[300];
    snprintf(p2p, sizeof p2p, "%s/p2p", tmp);
    write_p2p(p2p);
    test_p2p(p2p);
    compare(p2p, kind, "Late receiver [late_receiver]");
    char rma[300];
    snprintf(rma, sizeof rma, "%s/rma", tmp);
    write_rma(rma);
    test_rma(rma);
    compare(rma, kind, "[rma_lock_contention]");
    compare("tests/data/otf2/casita-4_mpi_ls_barr", kind, "Late sender [late_sender]");
    compare("tests/data/otf2/pipit-ping-pong", kind, "\"id\":\"late_sender\"");
    test_fault_injection(dir);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmp);
    return LENS_TEST_DONE("test_rules_shapes");
}
