/* The cube reader table (analysis/cube/cube_readers.h), and the recipe of docs/design.md ("A cube
 * input format: one row + one file") followed by a test-only format: the row below, "dummy:P",
 * makes a P-process, 2-length cube from a hand formula with one injected defect, and every
 * entry point (probe, read, read_stats, stream) must give exactly the formula back. Also
 * lens_cube_read_stats against lens_cube_read, the reference, on the network_test2 files. */
#include "analysis/cube/cube_readers.h"
#include "analysis/structure/distmat.h"
#include "lens_test.h"

#include <stdlib.h>
#include <string.h>

/* ---- the dummy format: what a new format's file holds -------------------------------- */

#define DUMMY_LEN 2

/* The hand formula: statistic s, length k, receiver i, sender j, in seconds; 0 on the
 * diagonal; median (k 1, 0 <- 1) is negative, the defect the reader must repair to NaN. */
static double dummy_value(int s, int k, int i, int j)
{
    if (i == j)
        return 0.0;
    if (s == LENS_STAT_MEDIAN && k == 1 && i == 0 && j == 1)
        return -1.0;
    return (1 + s) * 1e-6 * (1 + k) + (i + 2 * j) * 1e-8;
}

static int dummy_probe(const char *input) { return !strncmp(input, "dummy:", 6); }

static int dummy_get(void *state, int stat, int k, double *mat, struct lens_err *e)
{
    int P = *(int *)state;
    (void)e;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            mat[i * P + j] = dummy_value(stat, k, i, j);
    return LENS_OK;
}

static void dummy_close(void *state) { free(state); }

static int dummy_stream_open(const char *input, struct lens_cube_stream **out, struct lens_err *e)
{
    int P = atoi(input + 6);
    if (P < 2 || P > 64)
        return lens_err_set(e, LENS_EFORMAT, "%s: wants 2..64 processes", input);
    struct lens_cube *meta;
    int rc = lens_cube_new(&meta, P, DUMMY_LEN, 0, 1024, 0, e);
    if (rc != LENS_OK)
        return rc;
    meta->mode = LENS_MODE_ONE_TO_ONE;
    meta->end = DUMMY_LEN * 1024;
    meta->source = lens_strdup(input);
    int *state = malloc(sizeof *state);
    *state = P;
    struct lens_cube_source src = {state, dummy_get, NULL, dummy_close};
    return lens_cube_stream_new(meta, 15u, &src, out, e);
}

/* The one row (read NULL: the table reads the whole cube through the stream). */
static const struct lens_cube_reader dummy_row = {"dummy", dummy_probe, NULL, dummy_stream_open};

/* ---- the checks ------------------------------------------------------------------------ */

/* Every element of statistic s of c equals the formula, the defect repaired to NaN. */
static int matches_formula(const struct lens_cube *c, int s)
{
    for (int k = 0; k < c->nlen; k++)
        for (int i = 0; i < c->procs; i++)
            for (int j = 0; j < c->procs; j++) {
                double want = dummy_value(s, k, i, j), got = LENS_CUBE_AT(c, s, k, i, j);
                if (want < 0 ? !isnan(got) : got != want)
                    return 0;
            }
    return 1;
}

static int has_warning(const struct lens_cube *c, const char *needle)
{
    for (int w = 0; w < c->nwarn; w++)
        if (strstr(c->warnings[w], needle))
            return 1;
    return 0;
}

static void test_dummy_row(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_cube *c = NULL;
    LENS_TEST(!lens_cube_probe("dummy:5"), "no dummy row before it is added");
    LENS_TEST(!strcmp(lens_cube_readers_find("dummy:5")->name, "network_test2"),
              "an input nobody knows goes to the first row, for its messages");
    LENS_TEST(lens_cube_read("dummy:5", &c, &e) != LENS_OK && strstr(e.msg, "dummy:5_median.nc") && !c,
              "before: network_test2's message: %s", e.msg);
    /* the recipe's one line */
    LENS_TEST(lens_cube_readers_add(&dummy_row, &e) == LENS_OK, "add: %s", e.msg);
    LENS_TEST(lens_cube_probe("dummy:5"), "probe after add");
    LENS_TEST(!strcmp(lens_cube_readers_find("dummy:5")->name, "dummy"), "find after add");
    LENS_TEST(!strcmp(lens_cube_readers_find("samples/cubes/synth32/network")->name, "network_test2"),
              "network_test2 inputs keep their row");

    LENS_TEST(lens_cube_read("dummy:5", &c, &e) == LENS_OK, "read: %s", e.msg);
    if (c) {
        LENS_TEST(c->procs == 5 && c->nlen == DUMMY_LEN && c->lengths[1] == 1024, "shape %d x %d", c->procs,
                  c->nlen);
        LENS_TEST(c->format && !strcmp(c->format, "dummy"), "format: %s", c->format ? c->format : "NULL");
        for (int s = 0; s < LENS_STAT_COUNT; s++)
            LENS_TEST(c->data[s] && matches_formula(c, s), "read: statistic %d equals the formula", s);
        LENS_TEST(has_warning(c, "median: 1 of 40 delays are NaN, infinite or negative"),
                  "read: the injected defect is reported (%d warnings)", c->nwarn);
        lens_cube_free(c);
    }
    c = NULL;
    LENS_TEST(lens_cube_read_stats("dummy:4", 1u << LENS_STAT_MIN, &c, &e) == LENS_OK, "read_stats: %s", e.msg);
    if (c) {
        LENS_TEST(c->data[LENS_STAT_MIN] && matches_formula(c, LENS_STAT_MIN), "read_stats: min equals the formula");
        LENS_TEST(!c->data[LENS_STAT_AVERAGE] && !c->data[LENS_STAT_MEDIAN] && !c->data[LENS_STAT_DEVIATION],
                  "read_stats: the other statistics are not loaded");
        LENS_TEST(!has_warning(c, "median:"), "read_stats: no warning about a statistic not read");
        lens_cube_free(c);
    }
    struct lens_cube_stream *st = NULL;
    LENS_TEST(lens_cube_stream_open("dummy:3", &st, &e) == LENS_OK, "stream: %s", e.msg);
    if (st) {
        double mat[9];
        LENS_TEST(lens_cube_stream_read(st, LENS_STAT_MEDIAN, 1, mat, &e) == LENS_OK, "stream read: %s", e.msg);
        LENS_TEST(isnan(mat[1]) && mat[3 * 1 + 0] == dummy_value(LENS_STAT_MEDIAN, 1, 1, 0) && mat[0] == 0,
                  "stream: repaired, the rest as the formula");
        LENS_TEST(lens_cube_stream_end(st, &e) == LENS_OK && lens_cube_stream_meta(st)->nwarn == 1,
                  "stream end: one warning");
        lens_cube_stream_close(st);
    }
    /* the commands' own entry points see the row too: cluster's distance matrix */
    struct lens_distmat *m = NULL;
    LENS_TEST(lens_distmat_read("dummy:4", LENS_STAT_AVERAGE, 0, &m, &e) == LENS_OK, "distmat: %s", e.msg);
    if (m) {
        /* symmetrised (A + A^T)/2 of the formula at length 0, in seconds */
        double want = 0.5 * (dummy_value(0, 0, 1, 2) + dummy_value(0, 0, 2, 1));
        LENS_TEST_REL(m->d[lens_distmat_index(m->n, 1, 2)], want, 1e-12, "distmat (1, 2)");
        lens_distmat_free(m);
    }
    LENS_TEST(lens_cube_read("dummy:1", &c, &e) == LENS_EFORMAT && strstr(e.msg, "dummy:1"), "row's error: %s", e.msg);
    /* a full table refuses more rows instead of overrunning */
    int rc = LENS_OK;
    for (int i = 0; i < 16 && rc == LENS_OK; i++)
        rc = lens_cube_readers_add(&dummy_row, &e);
    LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, "full"), "full table: %s", e.msg);
}

/* lens_cube_read_stats: each statistic alone equals lens_cube_read's, bit for bit, with the
 * warnings about it and none about the others. */
static void test_read_stats(const char *prefix)
{
    struct lens_err e;
    struct lens_cube *ref = NULL;
    if (lens_cube_read(prefix, &ref, &e) != LENS_OK) {
        LENS_TEST(0, "%s: %s", prefix, e.msg);
        return;
    }
    size_t cells = (size_t)ref->procs * ref->procs * ref->nlen;
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        struct lens_cube *c = NULL;
        int rc = lens_cube_read_stats(prefix, 1u << s, &c, &e);
        LENS_TEST(rc == LENS_OK, "%s %d: %s", prefix, s, e.msg);
        if (rc != LENS_OK)
            continue;
        int same = c->data[s] && ref->data[s] && !memcmp(c->data[s], ref->data[s], cells * sizeof(double));
        for (int t = 0; t < LENS_STAT_COUNT; t++)
            same &= t == s || !c->data[t];
        LENS_TEST(same, "%s: statistic %s alone equals the whole read", prefix, lens_cube_stat_name(s));
        /* its warnings are the whole read's that name it, in order, and the round-trip one
         * when it halved this statistic (median, min) */
        int w = 0, ok = 1;
        char tag[32];
        snprintf(tag, sizeof tag, "%s:", lens_cube_stat_name(s));
        for (int r = 0; r < ref->nwarn; r++)
            if (!strncmp(ref->warnings[r], tag, strlen(tag)) ||
                ((s == LENS_STAT_MEDIAN || s == LENS_STAT_MIN) && strstr(ref->warnings[r], "halved")))
                ok &= w < c->nwarn && !strcmp(c->warnings[w++], ref->warnings[r]);
        LENS_TEST(ok && w == c->nwarn, "%s: warnings of %s (%d of %d)", prefix, tag, c->nwarn, ref->nwarn);
        lens_cube_free(c);
    }
    /* every statistic without the raw repeats (what info reads): the same cube and warnings,
     * the number of repeats known, none of them loaded */
    struct lens_cube *c = NULL;
    int rc = lens_cube_read_stats(prefix, LENS_CUBE_ALL & ~LENS_CUBE_EXTRAS, &c, &e);
    LENS_TEST(rc == LENS_OK, "%s all but extras: %s", prefix, e.msg);
    if (rc == LENS_OK) {
        int same = c->nwarn == ref->nwarn && c->nraw == ref->nraw && !c->raw && !c->amount;
        for (int s = 0; s < LENS_STAT_COUNT && same; s++)
            same = !c->data[s] == !ref->data[s] &&
                   (!c->data[s] || !memcmp(c->data[s], ref->data[s], cells * sizeof(double)));
        for (int w = 0; w < c->nwarn && same; w++)
            same = !strcmp(c->warnings[w], ref->warnings[w]);
        LENS_TEST(same, "%s: all statistics without extras equal the whole read (nraw %d/%d, %d/%d warnings)",
                  prefix, c->nraw, ref->nraw, c->nwarn, ref->nwarn);
        lens_cube_free(c);
    }
    lens_cube_free(ref);
}

int main(void)
{
    const char *data = getenv("DATA");
    char p[1024];
    test_dummy_row();
    test_read_stats("samples/cubes/synth32/network");
    /* the garbage min diagonal of network_test2 */
    snprintf(p, sizeof p, "%s/network-tests2/one_to_one_np2/network", data ? data : "tests/data");
    test_read_stats(p);
    snprintf(p, sizeof p, "%s/network-tests2/all_to_all_np4/network", data ? data : "tests/data");
    test_read_stats(p);
    /* the round-trip mix: median and min halved, decided from average and median */
    snprintf(p, sizeof p, "%s/network-tests2/send_recv_and_recv_send_np4/network", data ? data : "tests/data");
    test_read_stats(p);
    snprintf(p, sizeof p, "%s/network-tests2/plugins-branch-2024", data ? data : "tests/data");
    test_read_stats(p);
    printf("test_cube_readers: %d passed, %d failed\n", lens_test_passed, lens_test_failed);
    return lens_test_failed != 0;
}
