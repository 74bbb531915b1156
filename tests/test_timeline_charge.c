/* Where the timeline draws a kept charge: at enter + start of its call (struct
 * lens_problem_charge), so two problems sharing one wait (docs/methods.md, "Each wait charged
 * once") are drawn side by side. A hand-built trace and problem list, spans worked out by hand. */
#include "render/fig/timeline_int.h"
#include "analysis/trace/trace_analysis.h"
#include "lens_test.h"

#include <string.h>

struct span {
    int n;
    const char *id[8];
    double a[8], b[8];
};

static void collect(void *ctx, const struct lens_problem_result *r, int32_t rank, uint32_t call,
                    double a, double b)
{
    struct span *s = ctx;
    (void)rank, (void)call;
    if (s->n < 8) {
        s->id[s->n] = r->rule->id;
        s->a[s->n] = a, s->b[s->n] = b;
        s->n++;
    }
}

int main(void)
{
    /* One rank, one MPI_Waitall entered at 2.0 and left at 4.6 (2.6 s). The first problem
     * (declared first) holds [2.0, 3.0] from the enter; the second keeps only what is left
     * of its own [2.0, 4.6]: 1.6 s from start 1.0, i.e. [3.0, 4.6]. A third, a completion
     * problem, keeps 0.3 s up to the leave: start 2.3, [4.3, 4.6]. */
    struct lens_trace_call call = {.enter = 2.0, .leave = 4.6};
    struct lens_trace_rank rank = {.calls = &call, .ncalls = 1, .t_first = 0, .t_last = 5};
    struct lens_trace t;
    memset(&t, 0, sizeof t);
    t.nranks = 1;
    t.ranks = &rank;

    struct lens_rule_problem rules[3];
    memset(rules, 0, sizeof rules);
    char *ids[3] = {"late_sender", "late_receiver", "wait_completion"};
    for (int i = 0; i < 3; i++) {
        rules[i].id = ids[i];
        rules[i].text[0][0] = ids[i];
    }
    rules[2].waits_until_leave = 1;
    struct lens_problem_charge ch[3] = {{0, 0, 1.0, 0.0}, {0, 0, 1.6, 1.0}, {0, 0, 0.3, 2.3}};
    struct lens_problem_result res[3];
    memset(res, 0, sizeof res);
    for (int i = 0; i < 3; i++) {
        res[i].rule = &rules[i];
        res[i].total_s = ch[i].seconds;
        res[i].count = 1;
        res[i].charges = &ch[i];
        res[i].ncharges = 1;
    }
    struct lens_problems p;
    memset(&p, 0, sizeof p);
    p.nranks = 1;
    p.res = res;
    p.nres = 3;
    struct lens_trace_analysis s = {.trace = &t, .problems = &p};
    struct lens_timeline_window w;
    memset(&w, 0, sizeof w);
    w.t0 = 0, w.t1 = 5, w.lane0 = 0, w.nlanes = 1;

    struct span got = {0};
    lens_timeline_each_instance(&s, &w, collect, &got);
    LENS_TEST(got.n == 3, "3 instances walked, got %d", got.n);
    const double want[3][2] = {{2.0, 3.0}, {3.0, 4.6}, {4.3, 4.6}};
    for (int i = 0; i < got.n && i < 3; i++) {
        LENS_TEST(!strcmp(got.id[i], ids[i]), "instance %d is %s, got %s", i, ids[i], got.id[i]);
        LENS_TEST_REL(got.a[i], want[i][0], 1e-12, "%s starts", ids[i]);
        LENS_TEST_REL(got.b[i], want[i][1], 1e-12, "%s ends", ids[i]);
    }
    /* The second problem must not overlap the first: the old drawing put it at [2.0, 3.6]. */
    if (got.n >= 2)
        LENS_TEST(got.a[1] >= got.b[0] - 1e-12, "kept remainder overlaps the earlier problem: "
                  "[%g, %g] vs [%g, %g]", got.a[1], got.b[1], got.a[0], got.b[0]);
    /* A window that ends before the remainder still walks the call (it is in the window),
     * and the span is unchanged by the window. */
    w.t1 = 2.5;
    got.n = 0;
    lens_timeline_each_instance(&s, &w, collect, &got);
    LENS_TEST(got.n == 3 && lens_test_rel_ok(got.a[1], 3.0, 1e-12), "narrow window: n %d", got.n);

    printf("test_timeline_charge: %d passed, %d failed\n", lens_test_passed, lens_test_failed);
    return lens_test_failed != 0;
}
