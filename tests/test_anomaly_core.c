/* Tests for analysis/structure/anomaly.c on cubes with known faults: the synthetic generator's slow node
 * and bad link, an asymmetric pair and a two-way bad link edited into a clean cube, a protocol
 * switch built by hand; a clean cube must give nothing; errors and allocation failures. */
#include "analysis/structure/anomaly.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct lens_cube *synth(int procs, int nodes, unsigned long seed, int slow, int bs, int bd)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = procs;
    o.nodes = nodes;
    o.seed = seed;
    o.slow_node = slow;
    o.bad_src = bs;
    o.bad_dst = bd;
    struct lens_cube *c = NULL;
    struct lens_err e;
    if (lens_synth_cube(&o, &c, &e) != LENS_OK)
        fprintf(stderr, "synth: %s\n", e.msg);
    return c;
}

static struct lens_anomalies *find(const struct lens_cube *c)
{
    struct lens_anomalies *a = NULL;
    struct lens_err e;
    if (lens_anomaly_find(c, NULL, &a, &e) != LENS_OK)
        fprintf(stderr, "find: %s\n", e.msg);
    return a;
}

static void dump(const struct lens_anomalies *a)
{
    for (int i = 0; a && i < a->n; i++)
        fprintf(stderr, "  found: %s\n", a->items[i].evidence);
}

/* Multiplies element (i, j) of every statistic at every length by f. */
static void scale(struct lens_cube *c, int i, int j, double f)
{
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        for (int k = 0; c->data[s] && k < c->nlen; k++)
            LENS_CUBE_AT(c, s, k, i, j) *= f;
}

static void test_clean(void)
{
    static const int shapes[][2] = {{32, 4}, {16, 4}, {64, 8}, {48, 3}};
    for (int t = 0; t < 4; t++)
        for (unsigned long seed = 7; seed < 7 + 3 * 1311; seed += 1311) {
            struct lens_cube *c = synth(shapes[t][0], shapes[t][1], seed, -1, -1, -1);
            struct lens_anomalies *a = find(c);
            LENS_TEST(a && a->n == 0, "clean %dx%d seed %lu: %d findings", shapes[t][0],
                      shapes[t][1], seed, a ? a->n : -1);
            if (a && a->n)
                dump(a);
            lens_anomaly_free(a);
            lens_cube_free(c);
        }
}

static void test_slow_node(void)
{
    struct lens_cube *c = synth(32, 4, 91733, 1, -1, -1);
    struct lens_anomalies *a = find(c);
    LENS_TEST(a && a->n == 1, "slow node: %d findings, want 1", a ? a->n : -1);
    if (a && a->n == 1) {
        const struct lens_anomaly *f = &a->items[0];
        LENS_TEST(f->kind == LENS_ANOMALY_SLOW_NODE, "kind %d", f->kind);
        LENS_TEST(f->nranks == 8 && f->ranks[0] == 8 && f->ranks[7] == 15, "ranks %d..", f->ranks[0]);
        LENS_TEST_REL(f->ratio, 1.6, 0.04, "slow factor");
        LENS_TEST(f->score > 10, "z %g", f->score);
        LENS_TEST(!strcmp(f->subject, "node02 (ranks 8-15)"), "subject '%s'", f->subject);
        LENS_TEST(f->nlengths == c->nlen, "slow at %d lengths", f->nlengths);
        LENS_TEST(strstr(f->evidence, "robust z = ") != NULL, "evidence '%s'", f->evidence);
    } else
        dump(a);
    lens_anomaly_free(a);
    /* without host names every slow rank is its own finding */
    for (int i = 0; i < c->procs; i++)
        lens_free(c->hosts[i]);
    lens_free(c->hosts);
    c->hosts = NULL;
    a = find(c);
    LENS_TEST(a && a->n == 8, "no hosts: %d findings, want 8", a ? a->n : -1);
    for (int i = 0; a && i < a->n; i++)
        LENS_TEST(a->items[i].nranks == 1 && a->items[i].ranks[0] >= 8 && a->items[i].ranks[0] < 16,
                  "rank finding '%s'", a->items[i].subject);
    lens_anomaly_free(a);
    lens_cube_free(c);
}

static void test_bad_link(int procs, int nodes, int src, int dst)
{
    struct lens_cube *c = synth(procs, nodes, 2718281, -1, src, dst);
    struct lens_anomalies *a = find(c);
    LENS_TEST(a && a->n == 1, "bad link %d->%d (P=%d): %d findings", src, dst, procs, a ? a->n : -1);
    if (a && a->n == 1) {
        const struct lens_anomaly *f = &a->items[0];
        LENS_TEST(f->kind == LENS_ANOMALY_BAD_LINK, "kind %d", f->kind);
        LENS_TEST(f->nranks == 2 && f->ranks[0] == src && f->ranks[1] == dst, "ranks %d %d",
                  f->ranks[0], f->ranks[1]);
        LENS_TEST_REL(f->ratio, 3.0, 0.06, "bad factor");
        LENS_TEST(f->score > 20, "z %g", f->score);
        LENS_TEST_REL(f->value / f->typical, 3.0, 0.1, "value against typical");
    } else
        dump(a);
    lens_anomaly_free(a);
    /* put mode: the row is the origin, so the same element is link dst->src */
    c->mode = LENS_MODE_PUT;
    a = find(c);
    LENS_TEST(a && a->n == 1 && a->items[0].ranks[0] == dst && a->items[0].ranks[1] == src,
              "put mode names the row first");
    lens_anomaly_free(a);
    lens_cube_free(c);
}

static void test_both(void)
{
    struct lens_cube *c = synth(32, 4, 1618033, 2, 3, 17);
    struct lens_anomalies *a = find(c);
    int slow = 0, bad = 0;
    for (int i = 0; a && i < a->n; i++) {
        slow += a->items[i].kind == LENS_ANOMALY_SLOW_NODE && a->items[i].nranks == 8 &&
                a->items[i].ranks[0] == 16;
        bad += a->items[i].kind == LENS_ANOMALY_BAD_LINK && a->items[i].ranks[0] == 3 &&
               a->items[i].ranks[1] == 17;
    }
    LENS_TEST(a && a->n == 2 && slow == 1 && bad == 1, "slow node + bad link: %d findings", a ? a->n : -1);
    if (a && a->n > 1)
        LENS_TEST(a->items[0].score >= a->items[1].score, "ranked by score");
    lens_anomaly_free(a);
    lens_cube_free(c);
}

static void test_asymmetric(void)
{
    struct lens_cube *c = synth(32, 4, 314159, -1, -1, -1);
    scale(c, 6, 25, 1.45); /* 25 -> 6 slower, 6 -> 25 faster: a route asymmetry */
    scale(c, 25, 6, 1 / 1.45);
    struct lens_anomalies *a = find(c);
    LENS_TEST(a && a->n == 1, "asymmetric pair: %d findings", a ? a->n : -1);
    if (a && a->n == 1) {
        const struct lens_anomaly *f = &a->items[0];
        LENS_TEST(f->kind == LENS_ANOMALY_ASYMMETRIC_PAIR, "kind %s", lens_anomaly_kind_name(f->kind));
        LENS_TEST(f->ranks[0] == 25 && f->ranks[1] == 6, "slow direction first: %d %d", f->ranks[0], f->ranks[1]);
        LENS_TEST_REL(f->ratio, 1.45 * 1.45, 0.05, "ratio between directions");
        LENS_TEST(f->score > 10, "z %g", f->score);
    } else
        dump(a);
    lens_anomaly_free(a);
    lens_cube_free(c);
    /* a cable bad both ways is one bad link, not an asymmetry */
    c = synth(32, 4, 271, -1, -1, -1);
    scale(c, 2, 30, 2.2);
    scale(c, 30, 2, 2.2);
    a = find(c);
    LENS_TEST(a && a->n == 1 && a->items[0].kind == LENS_ANOMALY_BAD_LINK &&
              !strcmp(a->items[0].subject, "link 30<->2"), "two-way bad link: %d findings '%s'",
              a ? a->n : -1, a && a->n ? a->items[0].subject : "");
    lens_anomaly_free(a);
    lens_cube_free(c);
}

/* 16 ranks on 2 nodes, lengths 0..15 KiB; inter-node messages switch to rendezvous at 9 KiB,
 * which adds a 4 us handshake. 1% multiplicative noise from a fixed LCG. */
static void test_protocol_switch(void)
{
    struct lens_cube *c;
    struct lens_err e;
    if (lens_cube_new(&c, 16, 16, 0, 1024, 1u << LENS_STAT_MEDIAN, &e) != LENS_OK) {
        LENS_TEST(0, "cube_new: %s", e.msg);
        return;
    }
    unsigned long long s = 88172645463325252ULL;
    for (int k = 0; k < 16; k++)
        for (int i = 0; i < 16; i++)
            for (int j = 0; j < 16; j++) {
                double l = c->lengths[k], t = 0;
                if (i != j && i / 8 == j / 8)
                    t = 0.4e-6 + l / 9e9;
                else if (i != j)
                    t = 1.7e-6 + l / 11e9 + (l >= 9216 ? 4e-6 : 0);
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                t *= 1 + 0.01 * ((double)(s >> 11) / 9007199254740992.0);
                LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j) = t;
            }
    struct lens_anomalies *a = find(c);
    LENS_TEST(a && a->n == 1, "protocol switch: %d findings", a ? a->n : -1);
    if (a && a->n == 1) {
        const struct lens_anomaly *f = &a->items[0];
        LENS_TEST(f->kind == LENS_ANOMALY_STRUCTURE_CHANGE, "kind %s", lens_anomaly_kind_name(f->kind));
        LENS_TEST(f->nlengths == 2 && f->lengths[0] == 8192 && f->lengths[1] == 9216,
                  "between %d and %d", f->lengths[0], f->lengths[1]);
        LENS_TEST(f->nranks == 0 && f->score > 10, "z %g", f->score);
        /* 128 inter-node links of 240 jump by (1.7+9216/11e3+4)/(1.7+8192/11e3) */
        double want = (1.7 + 9216 / 11e3 + 4) / (1.7 + 8192 / 11e3) / ((0.4 + 9216 / 9e3) / (0.4 + 8192 / 9e3));
        LENS_TEST_REL(f->ratio, want, 0.03, "jump of one group against the other");
    } else
        dump(a);
    lens_anomaly_free(a);
    lens_cube_free(c);
}

static void test_errors(void)
{
    struct lens_cube *c;
    struct lens_err e;
    lens_cube_new(&c, 8, 6, 0, 100, 1u << LENS_STAT_DEVIATION, &e);
    struct lens_anomalies *a = NULL;
    LENS_TEST(lens_anomaly_find(c, NULL, &a, &e) == LENS_EINVAL && a == NULL, "no delay statistic");
    LENS_TEST(strstr(e.msg, "no delay statistic") != NULL, "message '%s'", e.msg);
    struct lens_anomaly_opts o;
    lens_anomaly_opts_default(&o);
    o.stat = LENS_STAT_MIN;
    LENS_TEST(lens_anomaly_find(c, &o, &a, &e) == LENS_EINVAL && strstr(e.msg, "no min statistic"),
              "absent statistic: '%s'", e.msg);
    lens_anomaly_opts_default(&o);
    o.slow_min = 0.5;
    LENS_TEST(lens_anomaly_find(c, &o, &a, &e) == LENS_EINVAL, "factor below 1 refused");
    lens_cube_free(c);
    /* two processes: nothing to compare with, no findings, no failure */
    c = synth(2, 1, 5, -1, -1, -1);
    LENS_TEST(lens_anomaly_find(c, NULL, &a, &e) == LENS_OK && a && a->n == 0, "P = 2");
    lens_anomaly_free(a);
    lens_cube_free(c);
    /* every allocation failing in turn: ENOMEM, nothing leaked (ASan checks) */
    c = synth(16, 4, 11, 1, 2, 9);
    int fails = 0, oks = 0;
    for (long n = 1; n < 200; n++) {
        lens_malloc_fail_after(n);
        a = NULL;
        int rc = lens_anomaly_find(c, NULL, &a, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            oks++;
            lens_anomaly_free(a);
            break;
        }
        fails += rc == LENS_ENOMEM && a == NULL;
    }
    LENS_TEST(oks == 1 && fails > 10, "allocation failures: %d ENOMEM then success %d", fails, oks);
    lens_cube_free(c);
}

static void test_rows(void)
{
    struct lens_cube *c = synth(32, 4, 424242, 2, 3, 17);
    struct lens_anomalies *a = find(c);
    for (int i = 0; a && i < a->n; i++) {
        struct lens_anomaly_row r;
        lens_anomaly_row(a, i, &r);
        LENS_TEST(r.z == a->items[i].score && r.text == a->items[i].evidence && r.value > r.typical,
                  "row %d", i);
        LENS_TEST(!strcmp(r.kind, "slow_node") || !strcmp(r.kind, "bad_link"), "row kind %s", r.kind);
    }
    lens_anomaly_free(a);
    lens_cube_free(c);
}

int main(void)
{
    test_clean();
    test_slow_node();
    test_bad_link(32, 4, 3, 17);
    test_bad_link(16, 4, 5, 1);   /* same node, other socket, small classes */
    test_bad_link(64, 8, 40, 41); /* same socket */
    test_both();
    test_asymmetric();
    test_protocol_switch();
    test_errors();
    test_rows();
    return LENS_TEST_DONE("test_anomaly_core");
}
