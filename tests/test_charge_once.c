/* Each interval of waiting time on a rank is charged to one problem (docs/methods.md, "Each
 * wait charged once"): synthetic OTF2 traces where one MPI_Waitall is both a late sender (on
 * the receive it completes) and a late receiver (on the send it completes), with the overlap
 * worked out by hand; and rule bases whose problems charge the same call from its enter and
 * up to its leave, in both declaration orders, against the interval arithmetic done by hand. */
#include "analysis/trace/trace_analysis.h"
#include "lens_test.h"
#include "synth_otf2.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256];

/* Two ranks exchanging one message each way with Irecv, Isend and Waitall, as a halo
 * exchange does. Rank 0 enters its Waitall at 2.0 and leaves at 4.6; rank 1 sends at 3.0
 * (so rank 0 waits 1.0 for the data: late sender) and posts its receive at post (so rank 0's
 * send completes no earlier than post: late receiver, post - 2.0). */
static int write_exchange(const char *dir, double post)
{
    struct synth s;
    if (synth_open(&s, dir, 2) != 0)
        return -1;
    synth_enter(&s, 0, 0.0, SR_MAIN);
    synth_enter(&s, 0, 1.0, SR_IRECV);
    synth_irecv_request(&s, 0, 1.0005, 1);
    synth_leave(&s, 0, 1.001, SR_IRECV);
    synth_enter(&s, 0, 1.1, SR_ISEND);
    synth_isend(&s, 0, 1.1005, 1, 7, 1024, 2);
    synth_leave(&s, 0, 1.101, SR_ISEND);
    synth_enter(&s, 0, 2.0, SR_WAITALL);
    synth_irecv(&s, 0, 4.55, 1, 7, 1024, 1);
    synth_isend_complete(&s, 0, 4.56, 2);
    synth_leave(&s, 0, 4.6, SR_WAITALL);
    synth_leave(&s, 0, 5.5, SR_MAIN);

    synth_enter(&s, 1, 0.0, SR_MAIN);
    int posted = 0;
    if (post < 3.0) { /* the receive is posted before the send */
        synth_enter(&s, 1, post, SR_IRECV);
        synth_irecv_request(&s, 1, post + 0.0005, 11);
        synth_leave(&s, 1, post + 0.001, SR_IRECV);
        posted = 1;
    }
    synth_enter(&s, 1, 3.0, SR_ISEND);
    synth_isend(&s, 1, 3.0005, 0, 7, 1024, 12);
    synth_leave(&s, 1, 3.001, SR_ISEND);
    if (!posted) {
        synth_enter(&s, 1, post, SR_IRECV);
        synth_irecv_request(&s, 1, post + 0.0005, 11);
        synth_leave(&s, 1, post + 0.001, SR_IRECV);
    }
    synth_enter(&s, 1, 5.0, SR_WAITALL);
    synth_isend_complete(&s, 1, 5.05, 12);
    synth_irecv(&s, 1, 5.06, 0, 7, 1024, 11);
    synth_leave(&s, 1, 5.1, SR_WAITALL);
    synth_leave(&s, 1, 5.5, SR_MAIN);
    return synth_close(&s, NULL);
}

static const struct lens_problem_result *find(const struct lens_problems *p, const char *id)
{
    for (int i = 0; p && i < p->nres; i++)
        if (!strcmp(p->res[i].rule->id, id))
            return &p->res[i];
    return NULL;
}

/* Seconds rank r spent inside MPI calls, from the trace itself. */
static double mpi_time(const struct lens_trace *t, int r)
{
    double s = 0;
    for (uint32_t c = 0; c < t->ranks[r].ncalls; c++)
        s += t->ranks[r].calls[c].leave - t->ranks[r].calls[c].enter;
    return s;
}

/* The sum of every problem's time on each rank stays within the rank's time in MPI, and the
 * sum over problems and ranks is want, the hand union of the waits. */
static void check_totals(const struct lens_trace_analysis *a, double want, const char *what)
{
    const struct lens_problems *p = a->problems;
    double all = 0;
    for (int r = 0; r < p->nranks; r++) {
        double rank = 0;
        for (int i = 0; i < p->nres; i++)
            rank += p->res[i].per_rank[r];
        LENS_TEST(rank <= mpi_time(a->trace, r) + 1e-12, "%s: rank %d has %.9f s of problems in "
                  "%.9f s of MPI", what, r, rank, mpi_time(a->trace, r));
        all += rank;
    }
    double total = 0;
    for (int i = 0; i < p->nres; i++)
        total += p->res[i].total_s;
    LENS_TEST_REL(total, want, 1e-9, "%s: wasted time, each interval once", what);
    LENS_TEST_REL(all, want, 1e-9, "%s: the same over the ranks", what);
}

/* The receiver posts at 4.5: late sender [2.0, 3.0] and late receiver [2.0, 4.5] overlap by
 * 1.0 s. Late sender is declared first (p2p.rules), keeps its 1.0 s; late receiver keeps
 * [3.0, 4.5], 1.5 s. Rank 0 waited 2.5 s, not 3.5 s (more than its 2.6 s Waitall). */
static void partial_overlap(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/partial", tmp);
    LENS_TEST(write_exchange(dir, 4.5) == 0, "write %s", dir);
    struct lens_trace_analysis *a = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_trace_analysis_new(dir, "templates/rules", LENS_PROBLEMS_KEEP_CHARGES, &a, &e)
              == LENS_OK, "analysis: %s", e.msg);
    if (!a)
        return;
    LENS_TEST(a->problems->np2p == 2 && a->events->clock_fixes == 0, "2 messages, no clock fix");
    const struct lens_problem_result *ls = find(a->problems, "late_sender"),
                                     *lr = find(a->problems, "late_receiver");
    LENS_TEST(ls && lr, "both problems");
    if (ls && lr) {
        LENS_TEST_REL(ls->per_rank[0], 1.0, 1e-9, "late sender on rank 0: min(3.0, 4.6) - 2.0");
        LENS_TEST_REL(lr->per_rank[0], 1.5, 1e-9, "late receiver on rank 0: 2.5 - 1.0 already "
                      "charged");
        LENS_TEST(ls->per_rank[1] == 0 && lr->per_rank[1] == 0, "rank 1 waited for nobody");
        LENS_TEST(ls->count == 1 && lr->count == 1, "one instance each");
        LENS_TEST(lr->ncharges == 1 && lr->charges[0].rank == 0 &&
                  lr->charges[0].seconds == lr->total_s, "the kept charge is the reduced one");
        LENS_TEST(ls->ncharges == 1 && ls->charges[0].start == 0, "late sender from the enter");
        LENS_TEST(lr->ncharges == 1 && fabs(lr->charges[0].start - 1.0) < 1e-9,
                  "late receiver's part starts where late sender's ends: %g",
                  lr->ncharges ? lr->charges[0].start : -1);
        LENS_TEST(lr->ntop == 1 && lr->top[0].seconds == lr->total_s, "the largest instance too");
    }
    check_totals(a, 2.5, "partial overlap");
    lens_trace_analysis_free(a);
}

/* The receiver posts at 2.5: the late receiver [2.0, 2.5] lies inside the late sender
 * [2.0, 3.0] and is charged nothing (the demo's 8.1 ms Waitall counted twice). */
static void full_overlap(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/full", tmp);
    LENS_TEST(write_exchange(dir, 2.5) == 0, "write %s", dir);
    struct lens_trace_analysis *a = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_trace_analysis_new(dir, "templates/rules", LENS_PROBLEMS_KEEP_CHARGES, &a, &e)
              == LENS_OK, "analysis: %s", e.msg);
    if (!a)
        return;
    const struct lens_problem_result *ls = find(a->problems, "late_sender"),
                                     *lr = find(a->problems, "late_receiver");
    LENS_TEST(ls && lr, "both problems");
    if (ls && lr) {
        LENS_TEST_REL(ls->total_s, 1.0, 1e-9, "late sender 1.0 s");
        LENS_TEST(lr->total_s == 0 && lr->count == 0 && lr->ncharges == 0 && lr->ntop == 0,
                  "late receiver covered: nothing charged (%g s, %llu)", lr->total_s,
                  (unsigned long long)lr->count);
    }
    struct lens_problems_row rows[8];
    int n = lens_problems_rows(a->problems, 0, rows, 8);
    LENS_TEST(n == 1 && !strcmp(rows[0].id, "late_sender"), "the report lists one problem (%d)",
              n);
    check_totals(a, 1.0, "full overlap");
    lens_trace_analysis_free(a);
}

/* A rule base of four problems on the receive of the message to rank 0, charged to rank 0's
 * Waitall (2.6 s): from the enter 1.0 s (A), up to the leave 0.5 s (B), from the enter 2.0 s
 * (C) and 5.0 s (D, longer than the call). */
static const char *const problem_text[4] = {
    "declare problem for m parameters (id = \"a\", name = \"a\", description = \"d\", "
    "advice = \"x\", duration = 1.0, location = r);\n",
    "declare problem for m parameters (id = \"b\", name = \"b\", description = \"d\", "
    "advice = \"x\", duration = 0.5, waits = \"until_leave\", location = r);\n",
    "declare problem for m parameters (id = \"c\", name = \"c\", description = \"d\", "
    "advice = \"x\", duration = 2.0, location = r);\n",
    "declare problem for m parameters (id = \"d\", name = \"d\", description = \"d\", "
    "advice = \"x\", duration = 5.0, location = r);\n"};

/* Declares the problems in the order given by order[] and checks each one's share of the
 * call against want[] and where that share starts in the call against start[] (both indexed
 * like problem_text). */
static void mixed(const struct lens_trace *t, const struct lens_events *ev, const int order[4],
                  const double want[4], const double start[4], const char *what)
{
    char text[2048];
    size_t n = (size_t)snprintf(text, sizeof text, "declare composite event m member (send as s, "
                                "recv as r) when r.rank == 0;\n");
    for (int k = 0; k < 4; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s", problem_text[order[k]]);
    struct lens_err e = {0};
    struct lens_rules *r = lens_rules_new();
    struct lens_problems *p = NULL;
    LENS_TEST(r && lens_rules_parse(r, "mixed.rules", text, &e) == LENS_OK, "%s: parse: %s",
              what, e.msg);
    if (!r)
        return;
    LENS_TEST(lens_problems_detect(t, ev, r, NULL, LENS_PROBLEMS_KEEP_CHARGES, &p, &e) == LENS_OK,
              "%s: detect: %s", what, e.msg);
    if (!p)
        return;
    double sum = 0;
    for (int k = 0; k < 4; k++) {
        const struct lens_problem_result *x = find(p, (const char[]){(char)('a' + k), 0});
        LENS_TEST(x != NULL, "%s: problem %c", what, 'a' + k);
        if (!x)
            continue;
        LENS_TEST_REL(x->per_rank[0], want[k], 1e-9, "%s: problem %c", what, 'a' + k);
        LENS_TEST(x->count == (want[k] > 0), "%s: problem %c has %llu instances", what, 'a' + k,
                  (unsigned long long)x->count);
        if (x->ncharges == 1)
            LENS_TEST(fabs(x->charges[0].start - start[k]) < 1e-9, "%s: problem %c starts at "
                      "%g, want %g", what, 'a' + k, x->charges[0].start, start[k]);
        sum += x->total_s;
    }
    LENS_TEST_REL(sum, 2.6, 1e-9, "%s: together exactly the Waitall", what);
    lens_problems_free(p);
}

static void mixed_anchors(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/mixed", tmp);
    LENS_TEST(write_exchange(dir, 4.5) == 0, "write %s", dir);
    struct lens_trace *t = NULL;
    struct lens_events *ev = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_trace_read(dir, &t, &e) == LENS_OK, "read: %s", e.msg);
    LENS_TEST(t && lens_events_build(t, &ev, &e) == LENS_OK, "events: %s", e.msg);
    if (t && ev) {
        /* A [0, 1.0]; B [2.1, 2.6]; C [0, 2.0] less A: [1.0, 2.0]; D [0, 2.6] (clipped to the
         * call) less all the above: [2.0, 2.1] */
        mixed(t, ev, (const int[]){0, 1, 2, 3}, (const double[]){1.0, 0.5, 1.0, 0.1},
              (const double[]){0, 2.1, 1.0, 2.0}, "A B C D");
        /* D first takes the whole call, nothing is left for the others */
        mixed(t, ev, (const int[]){3, 0, 1, 2}, (const double[]){0, 0, 0, 2.6},
              (const double[]){0, 0, 0, 0}, "D A B C");
        /* B first holds the last 0.5 s: C [0, 2.0] is free, A inside it gets nothing, D the
         * gap [2.0, 2.1] */
        mixed(t, ev, (const int[]){1, 2, 0, 3}, (const double[]){0, 0.5, 2.0, 0.1},
              (const double[]){0, 2.1, 0, 2.0}, "B C A D");
    }
    lens_events_free(ev);
    lens_trace_free(t);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/mpilens-charge-XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    partial_overlap();
    full_overlap();
    mixed_anchors();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmp);
    return LENS_TEST_DONE("test_charge_once");
}
