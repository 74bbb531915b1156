/* Tests for analysis/cube/packed.c and packed_nc.c: the error bound on every element of
 * synthetic and random cubes at several bounds, independently recomputed; a ratio above 1 on
 * a structured cube; a merge and a split across lengths, each seen as such; special values;
 * lossless at bound 0; the file round trip; corrupted files; errors and allocation failures. */
#include "analysis/cube/packed.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    if (lens_packed_encoder_finish(z, &p, &e) != LENS_OK)
        fprintf(stderr, "finish: %s\n", e.msg);
    return p;
}

/* Decodes p and checks every element against cube: returns the number outside the bound;
 * *max and *rms get the relative errors over the off-diagonal finite elements. */
static long verify(const struct lens_packed *p, const double *cube, double bound, double *max, double *rms)
{
    int P = p->procs, L = p->nlen;
    size_t P2 = (size_t)P * P;
    struct lens_packed_decoder *u;
    struct lens_err e;
    double *m = malloc(P2 * sizeof *m), s2 = 0;
    long bad = 0, n = 0;
    *max = 0;
    lens_packed_decoder_new(&u, p, &e);
    for (int k = 0; k < L; k++) {
        if (lens_packed_decoder_next(u, m, &e) != LENS_OK) {
            fprintf(stderr, "unpack: %s\n", e.msg);
            bad++;
            break;
        }
        for (size_t q = 0; q < P2; q++) {
            double v = cube[k * P2 + q], d = m[q];
            if (!isfinite(v)) {
                bad += isnan(v) ? !isnan(d) : d != v;
                continue;
            }
            double r = v != 0 ? fabs(d - v) / fabs(v) : fabs(d) > 0 ? INFINITY : 0;
            bad += !(r <= bound);
            if (q / P != q % P) {
                *max = fmax(*max, r);
                s2 += r * r;
                n++;
            }
        }
    }
    lens_packed_decoder_free(u);
    free(m);
    *rms = n ? sqrt(s2 / n) : 0;
    return bad;
}

static void test_bound_synth(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = 48;
    o.nodes = 6;
    o.slow_node = 2;
    o.bad_src = 7;
    o.bad_dst = 40;
    o.end = 16385;
    o.step = 1024;
    struct lens_cube *c;
    struct lens_err e;
    lens_synth_cube(&o, &c, &e);
    static const double bounds[] = {0.2, 0.05, 0.01, 0.001};
    for (int b = 0; b < 4; b++)
        for (int s = 0; s < LENS_STAT_COUNT; s++) {
            struct lens_packed *p = pack(c->data[s], c->procs, c->nlen, bounds[b]);
            LENS_TEST(p != NULL, "pack");
            if (!p)
                continue;
            double mx = 0, rms = 0;
            long bad = verify(p, c->data[s], bounds[b], &mx, &rms);
            LENS_TEST(bad == 0, "bound %g %s: %ld elements outside", bounds[b], lens_cube_stat_name(s), bad);
            LENS_TEST(mx <= bounds[b], "max error %g over %g", mx, bounds[b]);
            /* the measured errors the compressor reports are the decoder's */
            LENS_TEST_REL(p->err_max, mx, 1e-12, "reported max error, bound %g", bounds[b]);
            LENS_TEST_REL(sqrt(p->err_sum2 / p->err_n), rms, 1e-9, "reported RMS error");
            LENS_TEST(p->err_n == (long)c->procs * (c->procs - 1) * c->nlen, "elements counted %ld", p->err_n);
            double raw = 8.0 * c->procs * c->procs * c->nlen;
            /* delays have structure (8 classes) and 3% noise: far above 1 at bounds >= 5%, above 1
             * at 1%; deviations are noise, yet values of one length still share groups */
            double want = s == LENS_STAT_DEVIATION || bounds[b] < 0.05 ? 1 : 20;
            if (bounds[b] >= 0.01)
                LENS_TEST(raw / lens_packed_bytes(p) > want, "%s at %g: ratio %.2f", lens_cube_stat_name(s),
                          bounds[b], raw / lens_packed_bytes(p));
            if (s == LENS_STAT_MEDIAN && b == 1)
                LENS_TEST(p->nreset == 1, "median at 5%%: one partition for all lengths, then events");
            lens_packed_free(p);
        }
    lens_cube_free(c);
}

/* xorshift: a high-entropy cube without structure (log-uniform over 3 decades). */
static void test_random(void)
{
    int P = 20, L = 7;
    size_t n = (size_t)P * P * L;
    double *cube = malloc(n * sizeof *cube);
    unsigned long long s = 0x9E3779B97F4A7C15ULL;
    for (size_t t = 0; t < n; t++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        cube[t] = 1e-7 * pow(10, 3.0 * (double)(s >> 11) / 9007199254740992.0);
        if (t % 97 == 5)
            cube[t] = -cube[t]; /* negative values keep the bound too */
    }
    for (double b = 0.3; b > 1e-4; b /= 7) {
        struct lens_packed *p = pack(cube, P, L, b);
        double mx = 0, rms = 0;
        LENS_TEST(p && verify(p, cube, b, &mx, &rms) == 0, "random, bound %g", b);
        LENS_TEST(p && mx <= b && rms <= mx, "random max %g rms %g", mx, rms);
        lens_packed_free(p);
    }
    /* bound 0: lossless */
    struct lens_packed *p = pack(cube, P, L, 0);
    double mx = 0, rms = 0;
    LENS_TEST(p && verify(p, cube, 0, &mx, &rms) == 0 && mx == 0, "lossless at 0");
    lens_packed_free(p);
    free(cube);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The first partition is the fewest groups: the greedy cover of the sorted values, computed
 * here independently, on a matrix large enough for the radix sort (80 x 80 = 6400 values). */
static void test_fewest_groups(void)
{
    int P = 80;
    size_t P2 = (size_t)P * P;
    double *m = malloc(P2 * sizeof *m), *v = malloc(P2 * sizeof *v);
    unsigned long long s = 977;
    for (size_t t = 0; t < P2; t++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        m[t] = 1e-6 * pow(10, 2.0 * (double)(s >> 11) / 9007199254740992.0) * (t % 11 == 3 ? -1 : 1);
    }
    m[17] = NAN;
    m[99] = NAN;
    m[1234] = -INFINITY;
    m[4321] = INFINITY;
    for (double b = 0.01; b < 0.5; b *= 3) {
        int n = 0, want = 3; /* NaN, -inf, +inf: one group each */
        for (size_t t = 0; t < P2; t++)
            if (isfinite(m[t]))
                v[n++] = m[t];
        qsort(v, (size_t)n, sizeof *v, cmp_double);
        for (int i = 0; i < n; want++) {
            double lo = v[i] - b * (1 - 1e-9) * fabs(v[i]), hi = v[i] + b * (1 - 1e-9) * fabs(v[i]);
            for (i++; i < n; i++) {
                double l2 = v[i] - b * (1 - 1e-9) * fabs(v[i]), h2 = v[i] + b * (1 - 1e-9) * fabs(v[i]);
                if (fmax(lo, l2) > fmin(hi, h2))
                    break;
                lo = fmax(lo, l2), hi = fmin(hi, h2);
            }
        }
        struct lens_packed *p = pack(m, P, 1, b);
        double mx, rms;
        LENS_TEST(p && p->value_start[1] == want, "bound %g: %ld groups, want %d", b, p ? p->value_start[1] : -1, want);
        LENS_TEST(p && verify(p, m, b, &mx, &rms) == 0, "bound %g: within", b);
        lens_packed_free(p);
    }
    free(m);
    free(v);
}

/* 16 ranks, 12 lengths. Links of rows 0-7 (A) and rows 8-15 (B) differ by 2x at lengths 0-3,
 * are equal at 4-7 (merge), and at 8-11 the links of row 3 leave A by 1.5x (split). The
 * diagonal is 0. Each value jitters by up to 0.5%. */
static void test_merge_split(void)
{
    int P = 16, L = 12;
    size_t P2 = 256;
    double *cube = malloc(P2 * L * sizeof *cube);
    unsigned long long s = 42;
    for (int k = 0; k < L; k++)
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                double base = 1e-6 * (1 + 0.25 * k), v = base;
                if (i >= 8 && k < 4)
                    v = 2 * base;
                if (i == 3 && k >= 8)
                    v = 1.5 * base;
                s = s * 6364136223846793005ULL + 1442695040888963407ULL;
                v *= 1 + 0.005 * ((double)(s >> 11) / 9007199254740992.0);
                cube[k * P2 + i * P + j] = i == j ? 0 : v;
            }
    struct lens_packed *p = pack(cube, P, L, 0.05);
    LENS_TEST(p != NULL, "pack");
    if (!p)
        return;
    int want[12] = {3, 3, 3, 3, 2, 2, 2, 2, 3, 3, 3, 3}; /* zeros, A, B | zeros, A+B | zeros, A+B, row 3 */
    for (int k = 0; k < L; k++)
        LENS_TEST(p->value_start[k + 1] - p->value_start[k] == want[k], "length %d: %ld groups, want %d", k,
                  p->value_start[k + 1] - p->value_start[k], want[k]);
    LENS_TEST(p->nreset == 1, "one partition: changes as events (%d)", p->nreset);
    LENS_TEST(p->merges == 1 && p->splits == 1, "merges %ld splits %ld", p->merges, p->splits);
    long merge_at = -1, moves = 0, move_at = -1;
    for (long t = 0; t < p->nevent; t++) {
        const int *ev = p->event + 4 * t;
        if (ev[1] == LENS_PACK_MERGE)
            merge_at = ev[0];
        else
            moves++, move_at = ev[0];
    }
    LENS_TEST(merge_at == 4, "merge at length index %ld", merge_at);
    LENS_TEST(move_at == 8 && moves == 15, "split at %ld moving %ld links (the 15 of row 3)", move_at, moves);
    double mx = 0, rms = 0;
    LENS_TEST(verify(p, cube, 0.05, &mx, &rms) == 0, "merge/split: bound");
    LENS_TEST(8.0 * P2 * L / lens_packed_bytes(p) > 1, "ratio > 1");
    lens_packed_free(p);
    /* a split too large for events: a new partition is cheaper */
    for (int k = 8; k < L; k++)
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++)
                if (i != j)
                    cube[k * P2 + i * P + j] *= 1 + 0.3 * ((i * 5 + j * 3) % 4);
    p = pack(cube, P, L, 0.05);
    LENS_TEST(p && p->nreset == 2 && p->reset_k[1] == 8, "reshuffle stored as a new partition");
    LENS_TEST(p && verify(p, cube, 0.05, &mx, &rms) == 0, "reshuffle: bound");
    lens_packed_free(p);
    free(cube);
}

static void test_special(void)
{
    int P = 5, L = 3;
    double cube[75];
    for (int t = 0; t < 75; t++)
        cube[t] = 1e-6 * (1 + 0.001 * (t % 3));
    cube[7] = NAN;
    cube[8] = INFINITY;
    cube[33] = NAN;
    cube[34] = -INFINITY;
    cube[60] = 0;
    cube[61] = -2e-6;
    struct lens_packed *p = pack(cube, P, L, 0.05);
    double mx = 0, rms = 0;
    LENS_TEST(p && verify(p, cube, 0.05, &mx, &rms) == 0, "NaN, infinities, zero, negative decode within the bound");
    lens_packed_free(p);
}

static void test_file(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = 24;
    o.nodes = 3;
    struct lens_cube *c, *m;
    struct lens_err e;
    lens_synth_cube(&o, &c, &e);
    struct lens_packed *p[LENS_STAT_COUNT] = {NULL}, *q[LENS_STAT_COUNT];
    p[LENS_STAT_MEDIAN] = pack(c->data[LENS_STAT_MEDIAN], 24, c->nlen, 0.02);
    p[LENS_STAT_MIN] = pack(c->data[LENS_STAT_MIN], 24, c->nlen, 0.02);
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_compress.%ld.nc", (long)getpid());
    LENS_TEST(lens_packed_write(path, c, p, &e) == LENS_OK, "write: %s", e.msg);
    LENS_TEST(lens_packed_read(path, &m, q, &e) == LENS_OK, "read: %s", e.msg);
    if (m) {
        LENS_TEST(m->procs == 24 && m->nlen == c->nlen && m->begin == c->begin && m->step == c->step &&
                      m->mode == c->mode && m->repeats == c->repeats && m->hosts && !strcmp(m->hosts[23], "node03"),
                  "metadata");
        LENS_TEST(!q[LENS_STAT_AVERAGE] && !q[LENS_STAT_DEVIATION] && q[LENS_STAT_MEDIAN] && q[LENS_STAT_MIN],
                  "statistics present");
        double mx = 0, rms = 0;
        LENS_TEST(q[LENS_STAT_MIN] && verify(q[LENS_STAT_MIN], c->data[LENS_STAT_MIN], 0.02, &mx, &rms) == 0,
                  "min through the file");
        LENS_TEST(q[LENS_STAT_MEDIAN] && q[LENS_STAT_MEDIAN]->nvalue == p[LENS_STAT_MEDIAN]->nvalue &&
                      !memcmp(q[LENS_STAT_MEDIAN]->value, p[LENS_STAT_MEDIAN]->value,
                              p[LENS_STAT_MEDIAN]->nvalue * sizeof(double)),
                  "values bit for bit");
        for (int s = 0; s < LENS_STAT_COUNT; s++)
            lens_packed_free(q[s]);
        lens_cube_free(m);
    }
    /* a corrupted event is refused with the file's name */
    struct lens_packed *bad = p[LENS_STAT_MEDIAN];
    bad->value_start[2] = bad->value_start[1];
    LENS_TEST(lens_packed_check(bad, "x.nc", &e) == LENS_EFORMAT && strstr(e.msg, "x.nc"), "check: %s", e.msg);
    bad->value_start[2] = bad->value_start[3] - 1;
    bad->reset_group[5] = 1 << 20;
    LENS_TEST(lens_packed_check(bad, "x.nc", &e) == LENS_EFORMAT && strstr(e.msg, "out of range"), "check: %s", e.msg);
    /* not a packed cube: a cube file, a text file, a missing file */
    LENS_TEST(lens_packed_read("samples/cubes/synth32/network_median.nc", &m, q, &e) == LENS_EFORMAT &&
                  strstr(e.msg, "not a packed cube"), "cube file refused: %s", e.msg);
    FILE *fp = fopen(path, "w");
    fputs("hello", fp);
    fclose(fp);
    LENS_TEST(lens_packed_read(path, &m, q, &e) != LENS_OK && strstr(e.msg, path) && !m, "text file: %s", e.msg);
    unlink(path);
    LENS_TEST(lens_packed_read(path, &m, q, &e) == LENS_EIO && strstr(e.msg, path), "missing file: %s", e.msg);
    LENS_TEST(lens_packed_write("/nonexistent-dir/x.nc", c, p, &e) == LENS_EIO && strstr(e.msg, "/nonexistent-dir/x.nc"),
              "unwritable: %s", e.msg);
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        lens_packed_free(p[s]);
    lens_cube_free(c);
}

static void test_errors(void)
{
    struct lens_packed_encoder *z;
    struct lens_packed *p;
    struct lens_err e;
    LENS_TEST(lens_packed_encoder_new(&z, 4, 2, 1.0, &e) == LENS_EINVAL && !z, "bound 1 refused");
    LENS_TEST(lens_packed_encoder_new(&z, 0, 2, 0.1, &e) == LENS_EINVAL, "P = 0 refused");
    double m[16] = {0};
    lens_packed_encoder_new(&z, 4, 2, 0.1, &e);
    lens_packed_encoder_put(z, m, &e);
    LENS_TEST(lens_packed_encoder_finish(z, &p, &e) == LENS_EINVAL && !p && strstr(e.msg, "1 of 2"), "early finish: %s", e.msg);
    lens_packed_encoder_new(&z, 4, 1, 0.1, &e);
    lens_packed_encoder_put(z, m, &e);
    LENS_TEST(lens_packed_encoder_put(z, m, &e) == LENS_EINVAL, "too many lengths");
    lens_packed_encoder_finish(z, &p, &e);
    struct lens_packed_decoder *u;
    lens_packed_decoder_new(&u, p, &e);
    lens_packed_decoder_next(u, m, &e);
    LENS_TEST(lens_packed_decoder_next(u, m, &e) == LENS_EINVAL, "decode past the end");
    lens_packed_decoder_free(u);
    lens_packed_free(p);
    /* allocation failures anywhere: ENOMEM, nothing leaked */
    double cube[3 * 36];
    for (int t = 0; t < 108; t++)
        cube[t] = 1e-6 * (1 + (t * 7919 % 13) * 0.1);
    int fails = 0, oks = 0;
    for (long n = 1; n < 200 && !oks; n++) {
        lens_malloc_fail_after(n);
        int rc = lens_packed_encoder_new(&z, 6, 3, 0.05, &e);
        for (int k = 0; k < 3 && rc == LENS_OK; k++)
            rc = lens_packed_encoder_put(z, cube + 36 * k, &e);
        if (rc == LENS_OK)
            rc = lens_packed_encoder_finish(z, &p, &e);
        else
            lens_packed_encoder_free(z);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            oks = 1;
            lens_packed_free(p);
        } else
            fails += rc == LENS_ENOMEM;
    }
    LENS_TEST(oks && fails > 5, "allocation failures: %d then success", fails);
}

int main(void)
{
    test_bound_synth();
    test_random();
    test_fewest_groups();
    test_merge_split();
    test_special();
    test_file();
    test_errors();
    return LENS_TEST_DONE("test_compress");
}
