/* Positional access to the packed cube (lens_packed_at, lens_packed_curve): every (i, j, k) of
 * several cubes equals the streaming decoder bit for bit, and keeps the bound against the
 * original; the index rebuilt for an old file (no value groups) and the pair-only file read give
 * the same; bad pairs and lengths are clear errors. */
#include "analysis/cube/packed.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"
#include "lens_scratch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct lens_packed *pack(const double *cube, int P, int L, double bound)
{
    struct lens_packed_encoder *z;
    struct lens_packed *p = NULL;
    struct lens_err e;
    if (lens_packed_encoder_new(&z, P, L, bound, &e) != LENS_OK)
        return NULL;
    for (int k = 0; k < L; k++)
        if (lens_packed_encoder_put(z, cube + (size_t)k * P * P, &e) != LENS_OK) {
            lens_packed_encoder_free(z);
            return NULL;
        }
    lens_packed_encoder_finish(z, &p, &e);
    return p;
}

/* Bitwise equality: NaN == NaN, and -0 differs from +0. */
static int same(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Full decode of p into an L x P^2 array (the reference). */
static double *decode_all(const struct lens_packed *p)
{
    size_t P2 = (size_t)p->procs * p->procs;
    double *all = malloc(P2 * p->nlen * sizeof *all);
    struct lens_packed_decoder *u;
    struct lens_err e;
    lens_packed_decoder_new(&u, p, &e);
    for (int k = 0; k < p->nlen; k++)
        if (lens_packed_decoder_next(u, all + k * P2, &e) != LENS_OK)
            fprintf(stderr, "decode: %s\n", e.msg);
    lens_packed_decoder_free(u);
    return all;
}

/* Every element through the index against the decode and against the original cube (bound);
 * returns the mismatches. Also checks each pair's curve. */
static long compare_all(struct lens_packed *p, const double *orig, double bound, const char *what)
{
    size_t P2 = (size_t)p->procs * p->procs;
    double *all = decode_all(p), *curve = malloc((size_t)p->nlen * sizeof *curve);
    struct lens_packed_index *x;
    struct lens_err e;
    long bad = 0, outside = 0, n = 0;
    if (lens_packed_index_new(&x, p, &e) != LENS_OK) {
        LENS_TEST(0, "%s: index: %s", what, e.msg);
        free(all);
        free(curve);
        return 1;
    }
    for (int i = 0; i < p->procs; i++)
        for (int j = 0; j < p->procs; j++) {
            size_t q = (size_t)i * p->procs + j;
            bad += lens_packed_curve(x, i, j, curve, &e) != LENS_OK;
            for (int k = 0; k < p->nlen; k++) {
                double v = NAN, ref = all[k * P2 + q], o = orig[k * P2 + q];
                bad += lens_packed_at(x, i, j, k, &v, &e) != LENS_OK || !same(v, ref) || !same(curve[k], ref);
                /* the bound, as the compressor promises it (non-finite values exactly) */
                double r = !isfinite(o) ? (same(v, o) || (isnan(o) && isnan(v)) ? 0 : INFINITY)
                           : o != 0     ? fabs(v - o) / fabs(o)
                                        : (v == 0 ? 0 : INFINITY);
                outside += !(r <= bound);
                n++;
            }
        }
    printf("  %s: %ld elements (%d x %d x %d), %d partitions, %ld events: %ld differ from the decode, %ld outside %g\n",
           what, n, p->procs, p->procs, p->nlen, p->nreset, p->nevent, bad, outside, bound);
    LENS_TEST(bad == 0, "%s: %ld elements differ from the full decode", what, bad);
    LENS_TEST(outside == 0, "%s: %ld elements outside the bound", what, outside);
    lens_packed_index_free(x);
    free(all);
    free(curve);
    return bad + outside;
}

/* The same comparisons with the value groups dropped: the index is rebuilt by decoding, as for
 * a file written before the groups were stored. */
static void compare_old(struct lens_packed *p, const double *orig, double bound, const char *what)
{
    int *vg = p->value_group;
    p->value_group = NULL;
    char w[128];
    snprintf(w, sizeof w, "%s, rebuilt index", what);
    compare_all(p, orig, bound, w);
    p->value_group = vg;
}

static void test_synth(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = 24;
    o.nodes = 6;
    o.slow_node = 2;
    o.bad_src = 7;
    o.bad_dst = 20;
    o.end = 16385;
    o.step = 1024;
    struct lens_cube *c;
    struct lens_err e;
    LENS_TEST(lens_synth_cube(&o, &c, &e) == LENS_OK, "synth");
    static const double bounds[] = {0.2, 0.05, 0.01, 0};
    for (int b = 0; b < 4; b++)
        for (int s = 0; s < LENS_STAT_COUNT; s += 2) {
            struct lens_packed *p = pack(c->data[s], c->procs, c->nlen, bounds[b]);
            char what[96];
            snprintf(what, sizeof what, "synth 24, %s, bound %g", lens_cube_stat_name(s), bounds[b]);
            compare_all(p, c->data[s], bounds[b], what);
            if (b == 1)
                compare_old(p, c->data[s], bounds[b], what);
            lens_packed_free(p);
        }
    lens_cube_free(c);
}

/* Random values with NaN, infinities, negatives and zeros, and lengths where the values jump,
 * so that partitions are stored again and events pile up (splits and merges). */
static void test_random(void)
{
    int P = 13, L = 9;
    size_t P2 = (size_t)P * P, n = P2 * L;
    double *cube = malloc(n * sizeof *cube);
    unsigned long long s = 0x2545F4914F6CDD1DULL;
    for (size_t t = 0; t < n; t++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        int k = (int)(t / P2);
        double class = (double)((t % P2) % (k % 3 + 2)); /* groups that regroup per length */
        cube[t] = 1e-6 * (1 + class) * (1 + 0.02 * (double)(s >> 11) / 9007199254740992.0);
        if (t % 53 == 7)
            cube[t] = NAN;
        if (t % 71 == 3)
            cube[t] = t % 2 ? INFINITY : -INFINITY;
        if (t % 89 == 11)
            cube[t] = -cube[t];
        if (t % 101 == 13)
            cube[t] = 0;
    }
    long splits = 0, merges = 0;
    for (double b = 0.1; b > 1e-3; b /= 4) {
        struct lens_packed *p = pack(cube, P, L, b);
        splits += p->splits, merges += p->merges;
        char what[64];
        snprintf(what, sizeof what, "random 13, bound %g", b);
        compare_all(p, cube, b, what);
        compare_old(p, cube, b, what);
        lens_packed_free(p);
    }
    /* the events the index replays: both kinds must have occurred for the test to mean much */
    printf("  random cubes: %ld splits, %ld merges replayed\n", splits, merges);
    LENS_TEST(splits > 0 && merges > 0, "random cubes exercise moves and merges (%ld, %ld)", splits, merges);
    free(cube);
}

/* The file: written, read whole and read for one pair; the pair read equals the whole one. */
static void test_file(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = 16;
    o.nodes = 4;
    struct lens_cube *c;
    struct lens_err e;
    lens_synth_cube(&o, &c, &e);
    struct lens_packed *st[LENS_STAT_COUNT] = {NULL};
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        st[s] = pack(c->data[s], c->procs, c->nlen, 0.03);
    const char *path = lens_scratch_path("p.nc");
    LENS_TEST(lens_packed_write(path, c, st, &e) == LENS_OK, "write: %s", e.msg);
    struct lens_cube *m;
    struct lens_packed *rd[LENS_STAT_COUNT];
    LENS_TEST(lens_packed_read(path, &m, rd, &e) == LENS_OK, "read: %s", e.msg);
    LENS_TEST(rd[0] && rd[0]->value_group && !memcmp(rd[0]->value_group, st[0]->value_group,
                                                      (size_t)st[0]->nvalue * sizeof(int)),
              "the value groups survive the file");
    compare_all(rd[LENS_STAT_MEDIAN], c->data[LENS_STAT_MEDIAN], 0.03, "file, median");
    double *all = decode_all(rd[LENS_STAT_AVERAGE]), *curve = malloc((size_t)c->nlen * sizeof *curve);
    long bad = 0;
    static const int pairs[][2] = {{0, 0}, {0, 15}, {15, 0}, {7, 9}, {15, 15}};
    for (int t = 0; t < 5; t++) {
        struct lens_cube *m1;
        struct lens_packed *one[LENS_STAT_COUNT];
        struct lens_packed_index *x;
        int i = pairs[t][0], j = pairs[t][1];
        if (lens_packed_read_pair(path, i, j, &m1, one, &e) != LENS_OK || lens_packed_index_new(&x, one[0], &e) != LENS_OK) {
            LENS_TEST(0, "pair read %d,%d: %s", i, j, e.msg);
            continue;
        }
        LENS_TEST(lens_packed_curve(x, i, j, curve, &e) == LENS_OK, "curve %d,%d", i, j);
        for (int k = 0; k < c->nlen; k++)
            bad += !same(curve[k], all[(size_t)k * 256 + (size_t)i * 16 + j]);
        /* another pair than the one read: refused, naming both */
        double v;
        LENS_TEST(lens_packed_at(x, (i + 1) % 16, j, 0, &v, &e) == LENS_EINVAL && strstr(e.msg, "read for pair"),
                  "other pair refused: %s", e.msg);
        LENS_TEST(lens_packed_decoder_new(&(struct lens_packed_decoder *){NULL}, one[0], &e) == LENS_EINVAL,
                  "a pair-only read is not decoded whole");
        lens_packed_index_free(x);
        for (int s = 0; s < LENS_STAT_COUNT; s++)
            lens_packed_free(one[s]);
        lens_cube_free(m1);
    }
    LENS_TEST(bad == 0, "pair-only reads equal the full decode (%ld differ)", bad);
    struct lens_cube *m2;
    struct lens_packed *none[LENS_STAT_COUNT];
    LENS_TEST(!lens_scratch_exists(lens_scratch_path("nothing")) && lens_scratch_leftovers() == 0, "no temporaries left");
    LENS_TEST(lens_packed_read_pair(path, 16, 0, &m2, none, &e) == LENS_EINVAL && strstr(e.msg, "p.nc") &&
                  strstr(e.msg, "16,0 out of range"),
              "pair 16,0 of 16 ranks: %s", e.msg);
    LENS_TEST(lens_packed_read_pair(path, 0, -1, &m2, none, &e) == LENS_EINVAL, "pair 0,-1");
    /* bad positions on the whole index */
    struct lens_packed_index *x;
    double v;
    lens_packed_index_new(&x, rd[0], &e);
    LENS_TEST(lens_packed_at(x, -1, 0, 0, &v, &e) == LENS_EINVAL && strstr(e.msg, "ranks are 0..15"), "i = -1: %s", e.msg);
    LENS_TEST(lens_packed_at(x, 0, 16, 0, &v, &e) == LENS_EINVAL, "j = 16");
    LENS_TEST(lens_packed_at(x, 0, 1, c->nlen, &v, &e) == LENS_EINVAL && strstr(e.msg, "length index"), "k = L: %s", e.msg);
    LENS_TEST(lens_packed_curve(x, 3, 99, curve, &e) == LENS_EINVAL, "curve of 3,99");
    lens_packed_index_free(x);
    free(all);
    free(curve);
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        lens_packed_free(st[s]);
        lens_packed_free(rd[s]);
    }
    lens_cube_free(m);
    lens_cube_free(c);
}

int main(void)
{
    if (lens_scratch_open("test_packed_index"))
        return 1;
    test_synth();
    test_random();
    test_file();
    lens_scratch_close();
    return LENS_TEST_DONE("test_packed_index");
}
