/* The data-quality gate (analysis/cube/quality.h, issue 14): a synthetic machine with 3 % noise
 * passes; the same machine with high noise, one repeat, one host, oversubscribed cores or delays
 * at the timer fails with exactly that reason; the spread is checked against a hand-made cube;
 * and the gated report run computes no structure for a failed cube. */
#include "lens_test.h"

#include "analysis/cube/cube.h"
#include "analysis/structure/structure.h"

#include <math.h>
#include <string.h>

static struct lens_cube *synth(double noise, int nodes)
{
    struct lens_synth_opts o;
    struct lens_err e;
    struct lens_cube *c = NULL;
    lens_synth_opts_init(&o);
    o.procs = 16;
    o.nodes = nodes;
    o.noise = noise;
    if (lens_synth_cube(&o, &c, &e) != LENS_OK)
        return NULL;
    c->repeats = 100; /* synth leaves the count to the writer; a real run of 100 repeats */
    return c;
}

static unsigned reasons_of(const struct lens_cube *c, const struct lens_quality_opts *o, struct lens_quality *q)
{
    struct lens_err e;
    int rc = lens_quality_check(c, LENS_STAT_MEDIAN, o, q, &e);
    LENS_TEST(rc == LENS_OK, "gate runs: %s", e.msg);
    return q->reasons;
}

int main(void)
{
    struct lens_quality q;
    struct lens_quality_opts o;
    struct lens_err e;

    /* the default machine (4 nodes, 3 % noise) carries a structure */
    struct lens_cube *c = synth(0.03, 4);
    LENS_TEST(c != NULL, "synth cube");
    if (!c)
        return LENS_TEST_DONE("test_quality");
    LENS_TEST(reasons_of(c, NULL, &q) == 0 && q.pass, "3 %% noise on 4 nodes passes (reasons 0x%x)", q.reasons);
    LENS_TEST(q.nhosts == 4 && q.max_per_host == 4, "4 hosts of 4 ranks: %d, %d", q.nhosts, q.max_per_host);
    /* synth's deviation is noise * t * U(0.5, 1) against a median near t: the ratio is 1.5 to 3 % */
    LENS_TEST(q.spread > 0.01 && q.spread < 0.04, "spread %g near 0.0225", q.spread);

    /* one repeat: only that reason */
    c->repeats = 1;
    LENS_TEST(reasons_of(c, NULL, &q) == LENS_QUALITY_FEW_REPEATS && !q.pass, "1 repeat fails for repeats (0x%x)",
              q.reasons);
    c->repeats = 100;

    /* 4 ranks per host on 2 cores: oversubscribed, known only when the cores are given */
    lens_quality_opts_default(&o);
    o.cores = 2;
    LENS_TEST(reasons_of(c, &o, &q) == LENS_QUALITY_OVERSUBSCRIBED, "4 ranks on 2 cores (0x%x)", q.reasons);
    o.cores = 4;
    LENS_TEST(reasons_of(c, &o, &q) == 0, "4 ranks on 4 cores pass (0x%x)", q.reasons);

    /* a timer of 1 ms: every delay of this machine (microseconds) is below 3 ticks */
    lens_quality_opts_default(&o);
    o.tick = 1e-3;
    LENS_TEST(reasons_of(c, &o, &q) == LENS_QUALITY_TIMER, "delays at the timer (0x%x)", q.reasons);
    lens_cube_free(c);

    /* high noise: synth at noise 5 has deviation / median near 0.6 */
    c = synth(5.0, 4);
    LENS_TEST(c && reasons_of(c, NULL, &q) == LENS_QUALITY_NOISY, "noise 5 fails as noisy (0x%x, spread %g)",
              q.reasons, q.spread);
    lens_cube_free(c);

    /* every rank on one host */
    c = synth(0.03, 1);
    LENS_TEST(c && reasons_of(c, NULL, &q) == LENS_QUALITY_ONE_HOST, "one host (0x%x)", q.reasons);
    LENS_TEST(q.busiest_host && !strcmp(q.busiest_host, "node01"), "the host is named");

    /* the gated report run: no structure for a failed cube, the parts kept as skipped */
    struct lens_structure_report res;
    int rc = lens_structure_report_run_gated(c, LENS_STAT_MEDIAN, LENS_STRUCTURE_ALL, NULL, &res, &e);
    LENS_TEST(rc == LENS_OK && res.gated && !res.quality.pass, "gated run on one host: %s", e.msg);
    LENS_TEST(res.parts == 0 && res.skipped == LENS_STRUCTURE_ALL && !res.st.z && !res.st.an,
              "no structure computed (parts 0x%x, skipped 0x%x)", res.parts, res.skipped);
    LENS_TEST(res.nlen == c->nlen && isfinite(res.len[0].s.median), "the summaries are still there");
    lens_structure_report_release(&res);
    lens_cube_free(c);

    /* a hand-made spread: every median 2 us and every deviation 1 us except one pair: median 0.5 */
    LENS_TEST(lens_cube_new(&c, 3, 1, 0, 0, 1u << LENS_STAT_MEDIAN | 1u << LENS_STAT_DEVIATION, &e) == LENS_OK,
              "hand cube");
    c->repeats = 10;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            LENS_CUBE_AT(c, LENS_STAT_MEDIAN, 0, i, j) = i == j ? 0 : 2e-6;
            LENS_CUBE_AT(c, LENS_STAT_DEVIATION, 0, i, j) = i == j ? 0 : (i == 0 && j == 1 ? 4e-6 : 1e-6);
        }
    /* ratios: five pairs of 0.5 and one of 2; median 0.5 (not above the limit: passes), p90 2 */
    LENS_TEST(reasons_of(c, NULL, &q) == 0, "spread exactly at the limit passes (0x%x)", q.reasons);
    LENS_TEST_REL(q.spread, 0.5, 1e-12, "median ratio");
    LENS_TEST_REL(q.p90_spread, 2.0, 1e-12, "90th percentile ratio");
    /* one more noisy pair does not change the median: one bad pair never fails a cube */
    LENS_CUBE_AT(c, LENS_STAT_DEVIATION, 0, 2, 1) = 4e-6;
    LENS_TEST(reasons_of(c, NULL, &q) == 0, "two noisy pairs of six still pass");
    /* bad thresholds and a missing statistic are errors */
    lens_quality_opts_default(&o);
    o.max_spread = 0;
    LENS_TEST(lens_quality_check(c, LENS_STAT_MEDIAN, &o, &q, &e) == LENS_EINVAL, "zero spread limit refused");
    LENS_TEST(lens_quality_check(c, LENS_STAT_MIN, NULL, &q, &e) == LENS_EINVAL && strstr(e.msg, "min"),
              "missing statistic named: %s", e.msg);
    lens_cube_free(c);
    return LENS_TEST_DONE("test_quality");
}
