/* Tests for analysis/trace/trace.c, events.c, problems.c and callsite_resolve.c on synthetic
 * OTF2 archives written with OTF2's writer, where every wait is worked out by hand from the
 * Scalasca definitions of docs/methods.md §6. */
#include "analysis/trace/callsite_resolve.h"
#include "analysis/trace/problems.h"
#include "lens_test.h"
#include "synth_otf2.h"

#include <otf2/OTF2_Events.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256];

static struct lens_problems *analyze(const char *dir)
{
    struct lens_problems *p = NULL;
    struct lens_err e = {0};
    int rc = lens_problems_run(dir, "templates/rules", &p, &e);
    LENS_TEST(rc == LENS_OK, "analysis of %s: %s", dir, e.msg);
    return rc ? NULL : p;
}

static const struct lens_problem_result *find(const struct lens_problems *p, const char *id)
{
    for (int i = 0; p && i < p->nres; i++)
        if (!strcmp(p->res[i].rule->id, id))
            return &p->res[i];
    return NULL;
}

/* Checks problem id's seconds on each rank (nranks values). */
static void expect(const struct lens_problems *p, const char *id, int n, const double *want)
{
    const struct lens_problem_result *r = find(p, id);
    LENS_TEST(r != NULL, "problem %s present", id);
    if (!r)
        return;
    double total = 0;
    for (int k = 0; k < n; k++) {
        LENS_TEST_REL(r->per_rank[k], want[k], 1e-6, "%s rank %d", id, k);
        total += want[k];
    }
    LENS_TEST_REL(r->total_s, total, 1e-6, "%s total", id);
    LENS_TEST_REL(r->share, total / p->total_time_s, 1e-9, "%s share", id);
}

/* Non-blocking receives completed by one Waitall: only the largest late sender counts. */
static void test_nonblocking(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/nb", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open %s", dir);
    synth_enter(&s, 0, 0.0, SR_MAIN);
    synth_enter(&s, 0, 1.0, SR_IRECV);
    synth_irecv_request(&s, 0, 1.0005, 71);
    synth_leave(&s, 0, 1.001, SR_IRECV);
    synth_enter(&s, 0, 1.101, SR_IRECV);
    synth_irecv_request(&s, 0, 1.1015, 72);
    synth_leave(&s, 0, 1.102, SR_IRECV);
    synth_enter(&s, 0, 2.0, SR_WAITALL); /* completes 72 (from 2) before 71 (from 1) */
    synth_irecv(&s, 0, 7.4, 2, 5, 4096, 72);
    synth_irecv(&s, 0, 7.45, 1, 5, 1024, 71);
    synth_leave(&s, 0, 7.5, SR_WAITALL);
    synth_leave(&s, 0, 8.0, SR_MAIN);
    synth_enter(&s, 1, 0.5, SR_MAIN);
    synth_enter(&s, 1, 6.0, SR_SEND);
    synth_send(&s, 1, 6.05, 0, 5, 1024);
    synth_leave(&s, 1, 6.1, SR_SEND);
    synth_leave(&s, 1, 8.0, SR_MAIN);
    synth_enter(&s, 2, 0.25, SR_MAIN);
    synth_enter(&s, 2, 7.0, SR_ISEND);
    synth_isend(&s, 2, 7.005, 0, 5, 4096, 9);
    synth_leave(&s, 2, 7.01, SR_ISEND);
    synth_enter(&s, 2, 7.2, SR_WAIT);
    synth_isend_complete(&s, 2, 7.25, 9);
    synth_leave(&s, 2, 7.3, SR_WAIT);
    synth_leave(&s, 2, 8.0, SR_MAIN);
    LENS_TEST(synth_close(&s, NULL) == 0, "close");
    struct lens_problems *p = analyze(dir);
    if (!p)
        return;
    LENS_TEST(p->np2p == 2 && p->unmatched == 0, "2 matched messages (%llu, %llu unmatched)",
              (unsigned long long)p->np2p, (unsigned long long)p->unmatched);
    LENS_TEST_REL(p->total_time_s, 8.0 + 7.5 + 7.75, 1e-12, "total time");
    /* message from 1: min(6.0, 7.5) - 2.0 = 4.0; from 2: min(7.0, 7.5) - 2.0 = 5.0; max */
    expect(p, "late_sender", 3, (double[]){5.0, 0, 0});
    const struct lens_problem_result *r = find(p, "late_sender");
    LENS_TEST(r && r->count == 1, "one charged call");
    LENS_TEST(r && r->nsites == 1 && !strcmp(r->sites[0].text, "MPI_Waitall called from main"),
              "site '%s'", r && r->nsites ? r->sites[0].text : "");
    LENS_TEST(r && r->ntop == 1 && r->top[0].rank == 0 && !strcmp(r->top[0].call, "MPI_Waitall"),
              "instance");
    LENS_TEST(find(p, "late_sender_wrong_order")->total_s == 0, "no wrong order");
    lens_problems_free(p);
}

/* Wrong order, the logical-clock fix and clock offsets. */
static void test_order_and_clock(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/wo", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open");
    /* rank 1 sends tag 1 at 1.0 then tag 2 at 3.0; rank 0 receives tag 2 first */
    synth_call(&s, 1, 0.1, 0.2, SR_COMPUTE);
    synth_enter(&s, 1, 1.0, SR_SEND);
    synth_send(&s, 1, 1.01, 0, 1, 8);
    synth_leave(&s, 1, 1.02, SR_SEND);
    synth_enter(&s, 1, 3.0, SR_SEND);
    synth_send(&s, 1, 3.01, 0, 2, 8);
    synth_leave(&s, 1, 3.02, SR_SEND);
    synth_coll(&s, 1, 5.0, 8.0, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    synth_enter(&s, 0, 2.0, SR_RECV);
    synth_recv(&s, 0, 3.15, 1, 2, 8);
    synth_leave(&s, 0, 3.2, SR_RECV);
    synth_enter(&s, 0, 3.3, SR_RECV);
    synth_recv(&s, 0, 3.35, 1, 1, 8);
    synth_leave(&s, 0, 3.4, SR_RECV);
    synth_enter(&s, 0, 3.5, SR_SEND);
    synth_send(&s, 0, 3.55, 2, 3, 8);
    synth_leave(&s, 0, 3.6, SR_SEND);
    synth_coll(&s, 0, 4.0, 8.0, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    /* rank 2 receives from rank 0 at [1.0, 1.5] but rank 0 only sends at 3.5: with rank 2's
     * clock offset of +0.1 s at 0 and +0.3 s at 10 s, the receive ends (corrected) at
     * 1.5 + 0.13 = 1.63 < 3.5; the fix moves it to 3.5 and later calls by the same 1.87 s. */
    synth_clock(&s, 2, 0.0, 0.1);
    synth_clock(&s, 2, 10.0, 0.3);
    synth_enter(&s, 2, 1.0, SR_RECV);
    synth_recv(&s, 2, 1.4, 0, 3, 8);
    synth_leave(&s, 2, 1.5, SR_RECV);
    synth_coll(&s, 2, 2.0, 4.0, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    LENS_TEST(synth_close(&s, NULL) == 0, "close");

    struct lens_trace *t = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_trace_read(dir, &t, &e) == LENS_OK, "read: %s", e.msg);
    if (t) {
        LENS_TEST(t->nranks == 3 && t->clock_offsets == 1, "ranks %d offsets %d", t->nranks,
                  t->clock_offsets);
        /* offset at local 1.0 = 0.1 + 0.2 * 0.1 = 0.12 */
        LENS_TEST_REL(t->ranks[2].calls[0].enter, 1.12, 1e-9, "interpolated clock offset");
        LENS_TEST_REL(t->ranks[2].calls[0].leave, 1.5 + 0.13, 1e-9, "offset at 1.5");
        lens_trace_free(t);
    }
    struct lens_problems *p = analyze(dir);
    if (!p)
        return;
    /* tag 2: min(3.0, 3.2) - 2.0 = 1.0, wrong order (tag 1 sent at 1.0, received later);
     * rank 2: min(3.5, 3.5) - 1.12 = 2.38 after the fix */
    expect(p, "late_sender_wrong_order", 3, (double[]){1.0, 0, 0});
    expect(p, "late_sender", 3, (double[]){0, 0, 3.5 - 1.12});
    /* barrier enters: r0 4.0, r1 5.0, r2 2.0 + 0.14 + 1.87 = 4.01 (moved by the fix) */
    double b2 = 2.0 + 0.1 + 0.2 * 0.2 + (3.5 - 1.63);
    expect(p, "wait_at_barrier", 3, (double[]){1.0, 0, 5.0 - b2});
    lens_problems_free(p);
}

/* Collectives on 3 ranks: broadcast with a late root, reduce, allreduce and scan. */
static void test_collectives(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/coll", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open");
    static const double bc[3] = {1.0, 3.0, 2.0}, rd[3] = {5.0, 6.0, 8.0},
                        ar[3] = {10.0, 11.0, 12.5}, arl[3] = {13.0, 13.1, 13.2},
                        sc[3] = {20.0, 19.0, 21.5};
    for (int r = 0; r < 3; r++) {
        synth_coll(&s, r, bc[r], 3.5, SR_BCAST, OTF2_COLLECTIVE_OP_BCAST, 1);
        synth_coll(&s, r, rd[r], 8.5, SR_REDUCE, OTF2_COLLECTIVE_OP_REDUCE, 0);
        synth_coll(&s, r, ar[r], arl[r], SR_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE, -1);
        synth_coll(&s, r, sc[r], 22.0, SR_SCAN, OTF2_COLLECTIVE_OP_SCAN, -1);
    }
    LENS_TEST(synth_close(&s, NULL) == 0, "close");
    struct lens_problems *p = analyze(dir);
    if (!p)
        return;
    LENS_TEST(p->ncoll == 4, "4 collective instances, got %llu", (unsigned long long)p->ncoll);
    expect(p, "late_broadcast", 3, (double[]){2.0, 0, 1.0});        /* min(3, 3.5) - b_i */
    expect(p, "early_reduce", 3, (double[]){3.0, 0, 0});            /* min(8, 8.5) - 5 */
    expect(p, "wait_at_nxn", 3, (double[]){2.5, 1.5, 0});           /* min(12.5, e_i) - b_i */
    expect(p, "nxn_completion", 3, (double[]){0, 0.1, 0.2});        /* e_i - max(13, ...) */
    expect(p, "early_scan", 3, (double[]){0, 1.0, 0});              /* prefix max 20 - 19 */
    lens_problems_free(p);
}

/* The logical-clock fix for collectives: rank 0 leaves a barrier at 1.2 before rank 1
 * enters it at 3.0, so its leave (and its later calls) move to 3.0. */
static void test_coll_clock(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/cclock", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 2) == 0, "open");
    synth_coll(&s, 0, 1.0, 1.2, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    synth_coll(&s, 0, 1.5, 1.7, SR_BCAST, OTF2_COLLECTIVE_OP_BCAST, 1);
    synth_coll(&s, 1, 3.0, 3.1, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    synth_coll(&s, 1, 4.0, 4.2, SR_BCAST, OTF2_COLLECTIVE_OP_BCAST, 1);
    LENS_TEST(synth_close(&s, NULL) == 0, "close");
    struct lens_problems *p = analyze(dir);
    /* barrier: min(3.0, 3.0) - 1.0; bcast (moved by 1.8 to [3.3, 3.5], root enters at 4.0,
     * so it moves again to leave at 4.0): min(4.0, 4.0) - 3.3 */
    expect(p, "wait_at_barrier", 2, (double[]){2.0, 0});
    expect(p, "late_broadcast", 2, (double[]){4.0 - 3.3, 0});
    lens_problems_free(p);
}

/* One-sided: window creation, lock contention, late post and early wait. */
static void test_rma(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/rma", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open");
    int g01 = synth_group(&s, 2, (int[]){0, 1}), g2 = synth_group(&s, 1, (int[]){2});
    synth_win_create(&s, 0, 0.5, 1.6);
    synth_win_create(&s, 1, 1.5, 1.6);
    synth_win_create(&s, 2, 1.2, 1.6);
    /* rank 0 holds target 2's lock until its unlock at 3.99; rank 1 waits in its lock call
     * [2.5, 4.0]; a shared lock of rank 2 meanwhile conflicts with neither */
    synth_lock(&s, 0, 2.0, 2.01, 2, 1);
    synth_call(&s, 0, 2.01, 2.02, SR_PUT);
    synth_unlock(&s, 0, 3.99, 4.0, 2);
    synth_lock(&s, 1, 2.5, 4.0, 2, 1);
    synth_unlock(&s, 1, 4.1, 4.2, 2);
    /* target 2 posts at 6.0 and waits [6.5, 9.0]; rank 0's start [5.0, 6.02] waits for the
     * post; rank 1 completes at 8.0 */
    synth_pscw(&s, 2, 6.0, 6.01, SR_WIN_POST, g01);
    synth_pscw(&s, 2, 6.5, 9.0, SR_WIN_WAIT, -1);
    synth_pscw(&s, 0, 5.0, 6.02, SR_WIN_START, g2);
    synth_call(&s, 0, 6.02, 6.03, SR_PUT);
    synth_pscw(&s, 0, 6.03, 6.05, SR_WIN_COMPLETE, -1);
    synth_pscw(&s, 1, 5.5, 5.51, SR_WIN_START, g2);
    synth_call(&s, 1, 5.51, 5.52, SR_PUT);
    synth_pscw(&s, 1, 8.0, 8.1, SR_WIN_COMPLETE, -1);
    LENS_TEST(synth_close(&s, NULL) == 0, "close");
    struct lens_problems *p = analyze(dir);
    if (!p)
        return;
    expect(p, "rma_window_create_wait", 3, (double[]){1.0, 0, 0.3});
    expect(p, "rma_lock_contention", 3, (double[]){0, 3.99 - 2.5, 0});
    expect(p, "rma_late_post", 3, (double[]){1.0, 0, 0});
    expect(p, "rma_early_exposure_end", 3, (double[]){0, 0, 8.0 - 6.5});
    lens_problems_free(p);
}

/* Wait at Fence: two fences on window 0 with 3 ranks; each rank waits from its enter to the
 * last rank's enter (Scalasca's Wait at Fence), worked out by hand below. */
static void test_fence(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/fence", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open");
    synth_win_create(&s, 0, 0.5, 0.6);
    synth_win_create(&s, 1, 0.5, 0.6);
    synth_win_create(&s, 2, 0.5, 0.6);
    /* fence 1: rank 2 enters last at 2.0, so ranks 0 and 1 wait 1.0 and 0.5 */
    synth_fence(&s, 0, 1.0, 2.05);
    synth_fence(&s, 1, 1.5, 2.05);
    synth_fence(&s, 2, 2.0, 2.05);
    /* fence 2: rank 1 is last at 3.5: rank 0 waits 0.5, rank 2 0.3 */
    synth_fence(&s, 0, 3.0, 3.6);
    synth_fence(&s, 1, 3.5, 3.6);
    synth_fence(&s, 2, 3.2, 3.6);
    LENS_TEST(synth_close(&s, NULL) == 0, "close");
    struct lens_problems *p = analyze(dir);
    if (!p)
        return;
    expect(p, "rma_wait_at_fence", 3, (double[]){1.0 + 0.5, 0.5, 0.3});
    const struct lens_problem_result *r = find(p, "rma_wait_at_fence");
    LENS_TEST(r && r->count == 4, "4 fence calls waited, got %llu",
              r ? (unsigned long long)r->count : 0ULL);
    /* a fence is no barrier: the barrier rules see nothing */
    expect(p, "wait_at_barrier", 3, (double[]){0, 0, 0});
    lens_problems_free(p);
}

/* Post/start/complete/wait as our collector records them (window attribute, no groups): the
 * targets of an access epoch are those of its puts; same times as test_rma. */
static void test_rma_attr(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/rma2", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open");
    synth_pscw_attr(&s, 2, 6.0, 6.01, SR_WIN_POST);
    synth_pscw_attr(&s, 2, 6.5, 9.0, SR_WIN_WAIT);
    synth_pscw_attr(&s, 0, 5.0, 6.02, SR_WIN_START);
    synth_put(&s, 0, 6.02, 6.03, 2);
    synth_pscw_attr(&s, 0, 6.03, 6.05, SR_WIN_COMPLETE);
    synth_pscw_attr(&s, 1, 5.5, 5.51, SR_WIN_START);
    synth_put(&s, 1, 5.51, 5.52, 2);
    synth_pscw_attr(&s, 1, 8.0, 8.1, SR_WIN_COMPLETE);
    /* a second round: the post is early, rank 0 completes last at 12.0 */
    synth_pscw_attr(&s, 2, 10.0, 10.01, SR_WIN_POST);
    synth_pscw_attr(&s, 2, 10.5, 12.2, SR_WIN_WAIT);
    synth_pscw_attr(&s, 0, 10.2, 10.21, SR_WIN_START);
    synth_put(&s, 0, 10.21, 10.22, 2);
    synth_pscw_attr(&s, 0, 12.0, 12.1, SR_WIN_COMPLETE);
    synth_pscw_attr(&s, 1, 10.3, 10.31, SR_WIN_START);
    synth_put(&s, 1, 10.31, 10.32, 2);
    synth_pscw_attr(&s, 1, 10.4, 10.41, SR_WIN_COMPLETE);
    LENS_TEST(synth_close(&s, NULL) == 0, "close");
    struct lens_problems *p = analyze(dir);
    if (!p)
        return;
    expect(p, "rma_late_post", 3, (double[]){1.0, 0, 0});
    expect(p, "rma_early_exposure_end", 3, (double[]){0, 0, (8.0 - 6.5) + (12.0 - 10.5)});
    lens_problems_free(p);
}

/* A program compiled here with -g: its function resolves to name and file:line, also
 * through a trace that stores the call site the way our collector does. */
static void test_callsite(void)
{
    char src[300], bin[300], cmd[1024];
    snprintf(src, sizeof src, "%s/site.c", tmp);
    snprintf(bin, sizeof bin, "%s/site", tmp);
    FILE *fp = fopen(src, "w");
    LENS_TEST(fp != NULL, "write %s", src);
    if (!fp)
        return;
    fputs("static volatile int sink;\n"
          "int calculate(int x);\n"
          "int calculate(int x)\n"
          "{\n"
          "    sink = x * 3;\n"
          "    return sink + 1;\n"
          "}\n"
          "int main(void) { return calculate(2) == 7 ? 0 : 1; }\n", fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "cc -g -O0 -fPIE -pie -o %s %s", bin, src);
    LENS_TEST(system(cmd) == 0, "compile %s", cmd);
    snprintf(cmd, sizeof cmd, "nm %s | awk '$3 == \"calculate\" { print $1 }'", bin);
    FILE *nm = popen(cmd, "r");
    unsigned long addr = 0;
    LENS_TEST(nm && fscanf(nm, "%lx", &addr) == 1 && addr, "nm address of calculate");
    if (nm)
        pclose(nm);
    char func[128], file[128];
    int line = 0;
    struct lens_err e = {0};
    int rc = lens_callsite_resolve(bin, addr + 8, func, sizeof func, file, sizeof file, &line, &e);
    LENS_TEST(rc == LENS_OK, "resolve: %s", e.msg);
    LENS_TEST(!strcmp(func, "calculate"), "function '%s'", func);
    LENS_TEST(!strcmp(file, "site.c"), "file '%s'", file);
    LENS_TEST(line >= 3 && line <= 6, "line %d in calculate's lines 3-6", line);
    int site_line = line;
    rc = lens_callsite_resolve("/nonexistent/module.so", 16, func, sizeof func, file,
                               sizeof file, &line, &e);
    LENS_TEST(rc == LENS_EIO && strstr(e.msg, "/nonexistent/module.so: cannot open module"),
              "missing module: %d '%s'", rc, e.msg);
    rc = lens_callsite_resolve(bin, 0x7fffff00, func, sizeof func, file, sizeof file, &line, &e);
    LENS_TEST(rc == LENS_EDATA && strstr(e.msg, "no function covers offset 0x7fffff00"),
              "offset outside: %d '%s'", rc, e.msg);

    /* the same site through a trace with our collector's attributes */
    char dir[300];
    snprintf(dir, sizeof dir, "%s/site", tmp);
    strcat(dir, "trace");
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 2) == 0, "open");
    synth_enter_site(&s, 0, 1.0, SR_RECV, 100, addr + 8);
    synth_recv(&s, 0, 2.9, 1, 0, 8);
    synth_leave(&s, 0, 3.0, SR_RECV);
    synth_enter(&s, 1, 0.5, SR_SEND);
    synth_leave(&s, 1, 0.5, SR_SEND); /* a call without records, before the real one */
    synth_enter(&s, 1, 2.5, SR_SEND);
    synth_send(&s, 1, 2.6, 0, 0, 8);
    synth_leave(&s, 1, 2.7, SR_SEND);
    LENS_TEST(synth_close(&s, bin) == 0, "close");
    struct lens_problems *p = analyze(dir);
    const struct lens_problem_result *r = find(p, "late_sender");
    char want[300];
    snprintf(want, sizeof want, "MPI_Recv called from calculate (site.c:%d)", site_line);
    LENS_TEST(r && r->nsites == 1 && !strcmp(r->sites[0].text, want), "site '%s' want '%s'",
              r && r->nsites ? r->sites[0].text : "", want);
    LENS_TEST(r && lens_test_rel_ok(r->total_s, 1.5, 1e-9), "late sender 2.5 - 1.0");
    struct lens_problems_row rows[4];
    int n = p ? lens_problems_rows(p, 1, rows, 4) : 0;
    snprintf(want, sizeof want, "вызов MPI_Recv из calculate (site.c:%d)", site_line);
    LENS_TEST(n == 1 && !strcmp(rows[0].id, "late_sender") &&
                  !strcmp(rows[0].name, "Поздний отправитель") && !strcmp(rows[0].top_site, want),
              "rows for the report: %d", n);
    lens_problems_free(p);
}

/* Allocation failures anywhere in reading and analysis give ENOMEM, never a crash. */
static void test_fault_injection(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/coll", tmp);
    int failures = 0, ok = 0;
    for (long n = 1; n < 2000 && !ok; n++) {
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
    snprintf(tmp, sizeof tmp, "/tmp/mpilens-events-XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    test_nonblocking();
    test_order_and_clock();
    test_collectives();
    test_coll_clock();
    test_rma();
    test_rma_attr();
    test_fence();
    test_callsite();
    test_fault_injection();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmp);
    return LENS_TEST_DONE("test_events");
}
