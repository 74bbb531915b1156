/* Tests for analysis/trace/msgsize.c and render/fig/pie.c: binning and the time model against a naive
 * per-message reference, --bins parsing and its errors, reading sends from a synthetic OTF2
 * archive, pie areas measured in pixels, deterministic PNG/SVG, and every allocation
 * failing in turn. */
#include "analysis/trace/msgsize.h"
#include "render/fig/pie.h"
#include "render/fig/figure.h"
#include "lens_test.h"
#include "synth_otf2.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256];

/* xorshift64*: high-entropy sizes without libc's rand */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_rand(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

/* A size from a spread of scales, with the bin edges and their neighbours often. */
static uint64_t random_size(void)
{
    static const uint64_t edge[] = {0, 1, 63, 64, 65, 1023, 1024, 4095, 4096, 65535, 65536,
                                    1048575, 1048576};
    uint64_t r = next_rand();
    if (r % 3 == 0)
        return edge[(r >> 8) % (sizeof edge / sizeof edge[0])];
    return (r >> 16) % ((uint64_t)1 << ((r >> 4) % 23));
}

static double model_time(void *ctx, uint64_t bytes)
{
    (void)ctx;
    return 1.7e-6 + (double)bytes / 3.1e9;
}

static int model_cb(void *ctx, uint64_t bytes, double *s, struct lens_err *e)
{
    (void)e;
    *s = model_time(ctx, bytes);
    return LENS_OK;
}

static int model_fail(void *ctx, uint64_t bytes, double *s, struct lens_err *e)
{
    (void)ctx;
    *s = 0;
    if (bytes > 1000)
        return lens_err_set(e, LENS_EDATA, "model fails at %" PRIu64, bytes);
    return LENS_OK;
}

static int model_nan(void *ctx, uint64_t bytes, double *s, struct lens_err *e)
{
    (void)ctx, (void)e;
    *s = bytes > 64 ? NAN : 1e-6;
    return LENS_OK;
}

/* Random messages added one by one; every bin compared with a naive count of the same
 * messages; shares sum to 1; the model matches a direct sum. */
static void test_binning(void)
{
    enum { N = 5000 };
    static uint64_t size[N];
    static double call[N];
    struct lens_err e = {0};
    struct lens_msgsize *m = NULL;
    LENS_TEST(lens_msgsize_new(&m, &e) == LENS_OK, "new: %s", e.msg);
    if (!m)
        return;
    for (int i = 0; i < N; i++) {
        size[i] = random_size();
        call[i] = (double)(next_rand() % 1000003) * 1e-9;
        LENS_TEST(lens_msgsize_add(m, size[i], 1, call[i], &e) == LENS_OK, "add: %s", e.msg);
    }
    static const uint64_t edges[][8] = {{0, 1, 64, 1024, 4096, 65536, 1048576},
                                        {0, 65, 1000, 4095, 77777}};
    static const size_t nedges[] = {7, 5};
    for (int set = 0; set < 2; set++) {
        const uint64_t *ed = edges[set];
        size_t ne = nedges[set];
        LENS_TEST(lens_msgsize_bin(m, set ? ed : NULL, ne, 0, &e) == LENS_OK, "bin: %s", e.msg);
        LENS_TEST(lens_msgsize_model(m, model_cb, NULL, &e) == LENS_OK, "model: %s", e.msg);
        LENS_TEST(m->nbins == ne, "set %d: %zu bins, want %zu", set, m->nbins, ne);
        double sm = 0, sv = 0, st = 0, sc = 0, tmodel = 0;
        for (size_t k = 0; k < m->nbins && k < ne; k++) {
            uint64_t lo = ed[k], hi = k + 1 < ne ? ed[k + 1] - 1 : UINT64_MAX;
            uint64_t cnt = 0, bytes = 0;
            double model = 0, calls = 0;
            for (int i = 0; i < N; i++)
                if (size[i] >= lo && size[i] <= hi) {
                    cnt++;
                    bytes += size[i];
                    model += model_time(NULL, size[i]);
                    calls += call[i];
                }
            const struct lens_msgsize_bin *b = &m->bins[k];
            LENS_TEST(b->lo == lo && b->hi == (k + 1 < ne ? hi : LENS_MSGSIZE_OPEN),
                      "set %d bin %zu bounds %" PRIu64 "-%" PRIu64, set, k, b->lo, b->hi);
            LENS_TEST(b->count == cnt, "set %d bin %zu: count %" PRIu64 " want %" PRIu64, set, k,
                      b->count, cnt);
            LENS_TEST(b->bytes == bytes, "set %d bin %zu: bytes %" PRIu64 " want %" PRIu64, set,
                      k, b->bytes, bytes);
            LENS_TEST_REL(b->model_s, model, 1e-12, "set %d bin %zu model", set, k);
            LENS_TEST_REL(b->call_s, calls, 1e-12, "set %d bin %zu call time", set, k);
            LENS_TEST_REL(b->share_messages, (double)cnt / N, 1e-15, "share %zu", k);
            sm += b->share_messages;
            sv += b->share_volume;
            st += b->share_time;
            sc += b->share_call_time;
            tmodel += model;
        }
        LENS_TEST_REL(sm, 1.0, 1e-12, "set %d: message shares sum to 1", set);
        LENS_TEST_REL(sv, 1.0, 1e-12, "set %d: volume shares sum to 1", set);
        LENS_TEST_REL(st, 1.0, 1e-12, "set %d: time shares sum to 1", set);
        LENS_TEST_REL(sc, 1.0, 1e-12, "set %d: call-time shares sum to 1", set);
        LENS_TEST_REL(m->total_model_s, tmodel, 1e-12, "set %d: total model", set);
    }
    LENS_TEST(m->total_messages == N, "total messages %" PRIu64, m->total_messages);
    /* pow2 with empty bins dropped: each kept bin holds [2^k, 2^(k+1)) and is not empty */
    uint64_t *ed = NULL;
    size_t ne = 0;
    int drop = 0;
    LENS_TEST(lens_msgsize_parse_bins("pow2", &ed, &ne, &drop, &e) == LENS_OK && drop && ne == 64,
              "pow2: %s", e.msg);
    LENS_TEST(lens_msgsize_bin(m, ed, ne, drop, &e) == LENS_OK, "pow2 bin: %s", e.msg);
    uint64_t total = 0;
    for (size_t k = 0; k < m->nbins; k++) {
        const struct lens_msgsize_bin *b = &m->bins[k];
        LENS_TEST(b->count > 0, "pow2 bin %zu is empty", k);
        LENS_TEST(b->lo == 0 ? b->hi == 0 : (b->hi == 2 * b->lo - 1), "pow2 bin %" PRIu64
                  "-%" PRIu64, b->lo, b->hi);
        LENS_TEST(isnan(b->model_s), "rebinning drops the model");
        total += b->count;
    }
    LENS_TEST(total == N, "pow2 bins hold every message");
    lens_free(ed);
    /* model errors are passed on; a NaN time is refused */
    LENS_TEST(lens_msgsize_model(m, model_fail, NULL, &e) == LENS_EDATA &&
                  strstr(e.msg, "model fails at"), "model error passed on: %s", e.msg);
    LENS_TEST(lens_msgsize_model(m, model_nan, NULL, &e) == LENS_EDATA &&
                  strstr(e.msg, "not a finite"), "NaN model refused: %s", e.msg);
    LENS_TEST(lens_msgsize_add(m, 5, 1, -1.0, &e) == LENS_EDATA, "negative call time refused");
    LENS_TEST(lens_msgsize_add(m, 5, 1, NAN, &e) == LENS_EDATA, "NaN call time refused");
    static const uint64_t bad1[] = {1, 5}, bad2[] = {0, 5, 5};
    LENS_TEST(lens_msgsize_bin(m, bad1, 2, 0, &e) == LENS_EINVAL, "bins must start at 0");
    LENS_TEST(lens_msgsize_bin(m, bad2, 3, 0, &e) == LENS_EINVAL && strstr(e.msg, "increase"),
              "bins must increase: %s", e.msg);
    /* the model needs bins */
    LENS_TEST(lens_msgsize_add(m, 77, 3, 0.0, &e) == LENS_OK, "add clears the bins");
    LENS_TEST(m->nbins == 0 && lens_msgsize_model(m, model_cb, NULL, &e) == LENS_EINVAL,
              "model before binning: %s", e.msg);
    lens_msgsize_free(m);
    lens_msgsize_free(NULL);
}

static void test_parse(void)
{
    struct lens_err e = {0};
    uint64_t *ed = NULL;
    size_t n = 0;
    int drop = 1;
    LENS_TEST(lens_msgsize_parse_bins("0,64,1k,64K,1M,3G", &ed, &n, &drop, &e) == LENS_OK,
              "parse: %s", e.msg);
    static const uint64_t want[] = {0, 64, 1024, 65536, 1048576, 3221225472ull};
    LENS_TEST(n == 6 && !drop && ed && !memcmp(ed, want, sizeof want), "edges with suffixes");
    lens_free(ed);
    LENS_TEST(lens_msgsize_parse_bins("41685,43289", &ed, &n, &drop, &e) == LENS_OK && n == 3 &&
                  ed[0] == 0 && ed[1] == 41685 && ed[2] == 43289, "0 prepended");
    lens_free(ed);
    LENS_TEST(lens_msgsize_parse_bins("0", &ed, &n, &drop, &e) == LENS_OK && n == 1 && ed[0] == 0,
              "one bin");
    lens_free(ed);
    static const char *const bad[][2] = {
        {"", "empty item"},          {"64,,128", "empty item"},   {"64,", "empty item"},
        {"abc", "not a non-negative"}, {"-5", "not a non-negative"}, {"12x", "not a size"},
        {"1kk", "not a size"},       {"64,32", "must increase"},  {"0,0", "must increase"},
        {"5,5", "must increase"},    {"99999999999999999999", "too large"},
        {"17179869184G", "too large"}, {"18446744073709551615", "too large"},
        {" 64", "not a non-negative"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ed = (uint64_t *)&n; /* must be reset */
        int rc = lens_msgsize_parse_bins(bad[i][0], &ed, &n, &drop, &e);
        LENS_TEST(rc == LENS_EINVAL && ed == NULL && strstr(e.msg, bad[i][1]) &&
                      !strncmp(e.msg, "--bins: ", 8),
                  "'%s' rejected with '%s': rc %d '%s'", bad[i][0], bad[i][1], rc, e.msg);
    }
}

/* Sends in a synthetic archive: blocking, non-blocking (completion not counted twice), two
 * sends in one call sharing its time, a collective and a put counted aside. */
static void test_trace(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/sends", tmp);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open %s", dir);
    for (int r = 0; r < 3; r++)
        synth_enter(&s, r, 0.0, SR_MAIN);
    synth_win_create(&s, 0, 0.01, 0.02);
    synth_win_create(&s, 1, 0.01, 0.02);
    synth_win_create(&s, 2, 0.01, 0.02);
    synth_enter(&s, 0, 1.0, SR_SEND); /* 0.25 s call */
    synth_send(&s, 0, 1.0, 1, 5, 4096);
    synth_leave(&s, 0, 1.25, SR_SEND);
    synth_enter(&s, 0, 2.0, SR_ISEND); /* 0.5 s call holding two sends */
    synth_isend(&s, 0, 2.0, 2, 6, 77, 1);
    synth_isend(&s, 0, 2.1, 1, 6, 100000, 2);
    synth_leave(&s, 0, 2.5, SR_ISEND);
    synth_enter(&s, 0, 3.0, SR_WAITALL);
    synth_isend_complete(&s, 0, 3.2, 1);
    synth_isend_complete(&s, 0, 3.2, 2);
    synth_leave(&s, 0, 3.2, SR_WAITALL);
    synth_enter(&s, 1, 1.0, SR_RECV);
    synth_recv(&s, 1, 1.3, 0, 5, 4096);
    synth_leave(&s, 1, 1.3, SR_RECV);
    synth_enter(&s, 2, 1.5, SR_SEND);
    synth_send(&s, 2, 1.5, 0, 1, 0);
    synth_leave(&s, 2, 1.625, SR_SEND);
    for (int r = 0; r < 3; r++)
        synth_coll(&s, r, 4.0, 4.5, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1);
    synth_put(&s, 1, 5.0, 5.1, 2);
    for (int r = 0; r < 3; r++)
        synth_leave(&s, r, 6.0, SR_MAIN);
    LENS_TEST(synth_close(&s, NULL) == 0, "close %s", dir);
    struct lens_err e = {0};
    struct lens_msgsize *m = NULL;
    LENS_TEST(lens_msgsize_read(dir, &m, &e) == LENS_OK, "read %s: %s", dir, e.msg);
    if (!m)
        return;
    LENS_TEST(m->nranks == 3 && m->total_messages == 4 && m->total_bytes == 4096 + 77 + 100000,
              "4 messages, %" PRIu64 " bytes", m->total_bytes);
    LENS_TEST(m->nsizes == 4 && m->sizes[0].bytes == 0 && m->sizes[1].bytes == 77 &&
                  m->sizes[2].bytes == 4096 && m->sizes[3].bytes == 100000, "sizes ascend");
    if (m->nsizes == 4) {
        LENS_TEST_REL(m->sizes[0].call_s, 0.125, 1e-9, "blocking send time");
        LENS_TEST_REL(m->sizes[1].call_s, 0.25, 1e-9, "half of the two-send call");
        LENS_TEST_REL(m->sizes[3].call_s, 0.25, 1e-9, "other half");
        LENS_TEST_REL(m->sizes[2].call_s, 0.25, 1e-9, "send of 4096");
    }
    LENS_TEST(m->coll_calls == 3 && m->coll_bytes == 24, "3 barriers aside (%" PRIu64 ")",
              m->coll_calls);
    LENS_TEST(m->rma_ops == 1 && m->rma_bytes == 64, "one put aside");
    lens_msgsize_free(m);
    /* errors of the reader come through with the path */
    char bad[300];
    snprintf(bad, sizeof bad, "%s/none", tmp);
    LENS_TEST(lens_msgsize_read(bad, &m, &e) == LENS_EIO && m == NULL && strstr(e.msg, bad),
              "missing trace: %s", e.msg);
}

struct png_src {
    const unsigned char *p;
    size_t len, off;
};

static cairo_status_t png_read(void *c, unsigned char *d, unsigned int n)
{
    struct png_src *s = c;
    if (s->off + n > s->len)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(d, s->p + s->off, n);
    s->off += n;
    return CAIRO_STATUS_SUCCESS;
}

/* Pixels within 2 of an 8-bit colour. */
static long count_colour(cairo_surface_t *img, int r, int g, int b)
{
    int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
    int stride = cairo_image_surface_get_stride(img);
    const unsigned char *d = cairo_image_surface_get_data(img);
    long n = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            uint32_t px = *(const uint32_t *)(d + (size_t)y * stride + (size_t)x * 4);
            int pr = (px >> 16) & 255, pg = (px >> 8) & 255, pb = px & 255;
            n += abs(pr - r) <= 2 && abs(pg - g) <= 2 && abs(pb - b) <= 2;
        }
    return n;
}

static cairo_surface_t *decode(const unsigned char *buf, size_t len)
{
    struct png_src src = {buf, len, 0};
    return cairo_image_surface_create_from_png_stream(png_read, &src);
}

static int file_equal(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int ca = fgetc(fa), cb = fgetc(fb);
        same = ca == cb;
        if (ca == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* Wedge areas in pixels follow the values; tiny slices merge into grey "other". */
static void test_pie(void)
{
    static const char *const labels[] = {"alpha", "beta", "gamma", "delta", "epsilon"};
    static const double v[] = {2.5, 7.5, 0.02, 0.03, 0.04}; /* last three: 0.9% in total */
    struct lens_pie_chart c = {.nslices = 5, .labels = labels, .npies = 1, .values = v,
                               .group_below = 0.01};
    struct lens_err e = {0};
    unsigned char *buf = NULL, *buf2 = NULL;
    size_t len = 0, len2 = 0;
    LENS_TEST(lens_pie_png_mem(&c, 600, "fonts/DejaVuSans.ttf", &buf, &len, &e) == LENS_OK,
              "pie png: %s", e.msg);
    LENS_TEST(lens_pie_png_mem(&c, 600, "fonts/DejaVuSans.ttf", &buf2, &len2, &e) == LENS_OK &&
                  len == len2 && buf && buf2 && !memcmp(buf, buf2, len), "pie png deterministic");
    lens_free(buf2);
    cairo_surface_t *img = buf ? decode(buf, len) : NULL;
    LENS_TEST(img && cairo_surface_status(img) == CAIRO_STATUS_SUCCESS, "png decodes");
    if (img && cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        /* PNG bytes are for the PDF: drawn at the print scale (300 ppi at the text width) */
        double k = lens_figure_print_scale(600);
        LENS_TEST(cairo_image_surface_get_width(img) == (int)ceil(600 * k) &&
                      cairo_image_surface_get_height(img) == (int)ceil(lens_pie_height(&c, 600) * k),
                  "size 600 x height at the print scale %g", k);
        /* Tableau blue (78,121,167), orange (242,142,43), grey "other" (199,199,199) */
        long a = count_colour(img, 78, 121, 167), b = count_colour(img, 242, 142, 43);
        long o = count_colour(img, 199, 199, 199), g = count_colour(img, 225, 87, 89);
        double total = 10.09;
        LENS_TEST(a > 1000 && b > 3000, "wedges drawn (%ld, %ld pixels)", a, b);
        LENS_TEST_REL((double)a / (double)(a + b + o), 2.5 / total, 0.03, "alpha's area");
        LENS_TEST_REL((double)b / (double)(a + b + o), 7.5 / total, 0.03, "beta's area");
        LENS_TEST(o > 10 && g == 0, "tiny slices merged into grey other (%ld), none red (%ld)",
                  o, g);
        cairo_surface_destroy(img);
    }
    lens_free(buf);
    /* SVG and PNG files: byte-identical twice, bad extension and bad values refused */
    char p1[300], p2[300];
    snprintf(p1, sizeof p1, "%s/a.svg", tmp);
    snprintf(p2, sizeof p2, "%s/b.svg", tmp);
    LENS_TEST(lens_pie_write(&c, p1, 0, "fonts/DejaVuSans.ttf", &e) == LENS_OK &&
                  lens_pie_write(&c, p2, 0, "fonts/DejaVuSans.ttf", &e) == LENS_OK &&
                  file_equal(p1, p2), "svg deterministic: %s", e.msg);
    snprintf(p1, sizeof p1, "%s/a.jpg", tmp);
    LENS_TEST(lens_pie_write(&c, p1, 0, NULL, &e) == LENS_EINVAL && strstr(e.msg, "a.jpg") &&
                  access(p1, F_OK) != 0, "jpg refused: %s", e.msg);
    static const double neg[] = {1, -1, 0, 0, 0};
    struct lens_pie_chart bad = c;
    bad.values = neg;
    snprintf(p1, sizeof p1, "%s/neg.png", tmp);
    LENS_TEST(lens_pie_write(&bad, p1, 0, NULL, &e) == LENS_EINVAL && access(p1, F_OK) != 0 &&
                  strstr(e.msg, "slice 1"), "negative value refused: %s", e.msg);
    bad = c;
    bad.npies = 0;
    LENS_TEST(lens_pie_write(&bad, p1, 0, NULL, &e) == LENS_EINVAL, "no pies refused");
    snprintf(p1, sizeof p1, "%s/no/such/dir/x.png", tmp);
    LENS_TEST(lens_pie_write(&c, p1, 0, NULL, &e) == LENS_EIO, "unwritable path: %s", e.msg);
    /* all zero: drawn as an empty disc, not an error */
    static const double zero[] = {0, 0, 0, 0, 0};
    bad = c;
    bad.values = zero;
    LENS_TEST(lens_pie_png_mem(&bad, 300, NULL, &buf, &len, &e) == LENS_OK, "empty pie: %s",
              e.msg);
    lens_free(buf);
}

/* A profile as a chart: two pies and a table, three with a model; many slices with long
 * labels still render. */
static void test_msgsize_chart(void)
{
    struct lens_err e = {0};
    struct lens_msgsize *m = NULL;
    lens_msgsize_new(&m, &e);
    for (int i = 0; i < 3000; i++)
        lens_msgsize_add(m, random_size(), 1 + next_rand() % 4, 1e-6, &e);
    struct lens_pie_msgsize p;
    LENS_TEST(lens_pie_msgsize_init(&p, m, "x", &e) == LENS_EINVAL, "unbinned refused");
    uint64_t *ed;
    size_t n;
    int drop;
    lens_msgsize_parse_bins("pow2", &ed, &n, &drop, &e);
    lens_msgsize_bin(m, ed, n, drop, &e);
    lens_free(ed);
    LENS_TEST(lens_pie_msgsize_init(&p, m, "sizes", &e) == LENS_OK && p.chart.npies == 2 &&
                  p.chart.ncols == 4 && p.chart.nslices == (int)m->nbins, "chart: %s", e.msg);
    if (p.chart.nslices > 3) {
        LENS_TEST(!strcmp(p.chart.labels[0], "0 B") && !strcmp(p.chart.short_labels[0], "0 B"),
                  "first label '%s'", p.chart.labels[0]);
        LENS_TEST(!strcmp(p.chart.short_labels[2], "2-3") && !strcmp(p.chart.labels[2], "2-3 B"),
                  "third label '%s'", p.chart.short_labels[2]);
    }
    unsigned char *buf = NULL;
    size_t len = 0;
    LENS_TEST(lens_pie_png_mem(&p.chart, 0, NULL, &buf, &len, &e) == LENS_OK && len > 1000,
              "profile png: %s", e.msg);
    lens_free(buf);
    lens_pie_msgsize_release(&p);
    lens_msgsize_model(m, model_cb, NULL, &e);
    LENS_TEST(lens_pie_msgsize_init(&p, m, NULL, &e) == LENS_OK && p.chart.npies == 3 &&
                  p.chart.ncols == 5, "chart with model: %s", e.msg);
    lens_pie_msgsize_release(&p);
    lens_msgsize_free(m);
}

/* Every allocation of profile, binning, chart and rendering fails in turn: an error, never a
 * crash or a leak (run under ASan by make asan). */
static void test_faults(void)
{
    int finished = 0;
    for (long n = 1; n < 200 && !finished; n++) {
        struct lens_err e = {0};
        struct lens_msgsize *m = NULL;
        struct lens_pie_msgsize p = {0};
        unsigned char *buf = NULL;
        size_t len;
        lens_malloc_fail_after(n);
        int rc = lens_msgsize_new(&m, &e);
        for (uint64_t k = 0; rc == LENS_OK && k < 40; k++)
            rc = lens_msgsize_add(m, k * 977, 2, 1e-6, &e);
        if (rc == LENS_OK)
            rc = lens_msgsize_bin(m, NULL, 0, 0, &e);
        if (rc == LENS_OK)
            rc = lens_pie_msgsize_init(&p, m, "t", &e);
        if (rc == LENS_OK)
            rc = lens_pie_png_mem(&p.chart, 300, NULL, &buf, &len, &e);
        lens_malloc_fail_after(0);
        LENS_TEST(rc == LENS_OK || rc == LENS_ENOMEM, "failure %ld: rc %d %s", n, rc, e.msg);
        finished = rc == LENS_OK;
        lens_free(buf);
        lens_pie_msgsize_release(&p);
        lens_msgsize_free(m);
    }
    LENS_TEST(finished, "fault walk reached the end");
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "%s/msgsize.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    test_binning();
    test_parse();
    test_trace();
    test_pie();
    test_msgsize_chart();
    test_faults();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
    return LENS_TEST_DONE("test_msgsize");
}
