/* Tests for render/fig/heatmap.c, colormap.c, histogram.c and figure.c: known cells get known
 * colours in the PNG (viridis, grey, log scale, fixed range, by hand), the SVG parses with
 * Python's XML parser (one rectangle per cell when small, one embedded image when large),
 * output is byte-identical run to run, and every error path names its file and leaves none. */
#include "render/fig/figure.h"
#include "render/fig/heatmap.h"
#include "render/fig/histogram.h"
#include "lens_test.h"
#include "lens_scratch.h"

#include <cairo.h>
#include <dirent.h>
#include <hpdf.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FONT "fonts/DejaVuSans.ttf"
#define PY "/usr/bin/python3"

/* LeakSanitizer reads this when the test is built with ASan: fontconfig (behind cairo's
 * "sans" fallback font) never frees the configuration it parses once per process. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }

/* 3 x 5 in seconds: min 1.29 µs at (0,2), max 9.74 µs at (1,2), NaN at (0,4) */
static const double known[15] = {3.17e-6, 5.83e-6, 1.29e-6, 4.41e-6, NAN,
                                 7.06e-6, 2.52e-6, 9.74e-6, 6.38e-6, 3.95e-6,
                                 8.12e-6, 1.87e-6, 5.09e-6, 2.23e-6, 6.91e-6};
/* colour-map entries by hand: floor(256 t), t from the range (python, see the commit) */
static const int idx_linear[15] = {56, 137, 0, 94, -1, 174, 37, 255, 154, 80, 206, 17, 115, 28, 170};
static const int idx_log[15] = {113, 191, 0, 155, -1, 215, 84, 255, 202, 141, 232, 47, 173, 69, 212};
static const int idx_fixed[15] = {49, 163, 0, 102, -1, 215, 22, 255, 186, 83, 255, 0, 131, 9, 209};

static const char *const hosts[5] = {"узел-01", "узел-02", "node-β", "хост-Ж", "n5"};

static void opts_known(struct lens_heatmap_opts *o)
{
    lens_heatmap_opts_init(o);
    o->title = "median delay, 4096 B — узлы";
    o->labels = hosts;
    o->xlabel = "sender rank";
    o->ylabel = "receiver rank";
    o->width = 640;
    o->height = 480;
    o->font_path = FONT;
}

static void pixel(cairo_surface_t *s, double x, double y, unsigned char rgb[3])
{
    const unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    uint32_t p = *(const uint32_t *)(const void *)(d + (size_t)(int)y * stride + 4 * (int)x);
    rgb[0] = (p >> 16) & 255;
    rgb[1] = (p >> 8) & 255;
    rgb[2] = p & 255;
}

static int close_rgb(const unsigned char a[3], const unsigned char b[3], int tol)
{
    for (int c = 0; c < 3; c++)
        if (abs((int)a[c] - (int)b[c]) > tol)
            return 0;
    return 1;
}

/* sRGB byte of CIE L* (grey ramp reference, written out independently of colormap.c) */
static unsigned char grey_of_lstar(double l)
{
    double y = l > 8 ? pow((l + 16) / 116, 3) : l / 903.3;
    double v = y <= 0.0031308 ? 12.92 * y : 1.055 * pow(y, 1 / 2.4) - 0.055;
    return (unsigned char)lround(v * 255);
}

/* Renders known with o to PNG, reads it back and checks every cell centre against the
 * expected entries idx[] (-1: missing) of map cmap. */
static void check_cells(const struct lens_heatmap_opts *o, const int *idx, const char *what)
{
    struct lens_err e;
    struct lens_heatmap_layout L;
    const char *p = lens_scratch_path("cells.png");
    int rc = lens_heatmap_layout(known, 3, 5, o, &L, &e);
    LENS_TEST(rc == LENS_OK, "%s: layout: %s", what, e.msg);
    rc = lens_heatmap_write_png(known, 3, 5, o, p, &e);
    LENS_TEST(rc == LENS_OK, "%s: write: %s", what, e.msg);
    if (rc)
        return;
    cairo_surface_t *s = cairo_image_surface_create_from_png(p);
    LENS_TEST(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, "%s: png reads back", what);
    LENS_TEST(cairo_image_surface_get_width(s) == o->width && cairo_image_surface_get_height(s) == o->height,
              "%s: size %dx%d", what, cairo_image_surface_get_width(s), cairo_image_surface_get_height(s));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 5; j++) {
            unsigned char got[3], want[3];
            double cx = L.map_x + (j + 0.5) * L.map_w / 5, cy = L.map_y + (i + 0.5) * L.map_h / 3;
            pixel(s, cx, cy, got);
            if (idx[i * 5 + j] < 0)
                lens_colormap_missing(o->cmap, want);
            else
                lens_colormap_rgb8(o->cmap, idx[i * 5 + j], want);
            LENS_TEST(close_rgb(got, want, 0), "%s: cell (%d,%d) is #%02x%02x%02x, want #%02x%02x%02x (entry %d)",
                      what, i, j, got[0], got[1], got[2], want[0], want[1], want[2], idx[i * 5 + j]);
        }
    cairo_surface_destroy(s);
}

static void test_colours(void)
{
    struct lens_heatmap_opts o;
    unsigned char c[3];
    /* the viridis table against matplotlib's published values */
    static const struct { int i; unsigned char rgb[3]; } ref[] = {
        {0, {0x44, 0x01, 0x54}}, {64, {59, 82, 139}}, {128, {33, 145, 140}},
        {192, {94, 201, 98}}, {255, {0xfd, 0xe7, 0x25}}};
    for (size_t k = 0; k < sizeof ref / sizeof ref[0]; k++) {
        lens_colormap_rgb8(LENS_CMAP_VIRIDIS, ref[k].i, c);
        LENS_TEST(close_rgb(c, ref[k].rgb, 0), "viridis[%d] = #%02x%02x%02x", ref[k].i, c[0], c[1], c[2]);
    }
    LENS_TEST(lens_colormap_index(-0.5) == 0 && lens_colormap_index(NAN) == 0, "index clamps low/NaN");
    LENS_TEST(lens_colormap_index(1.0) == 255 && lens_colormap_index(7.0) == 255, "index clamps high");
    LENS_TEST(lens_colormap_index(0.5) == 128 && lens_colormap_index(0.4999) == 127, "index floor(256 t)");

    opts_known(&o);
    struct lens_err e;
    struct lens_heatmap_layout L;
    LENS_TEST(lens_heatmap_layout(known, 3, 5, &o, &L, &e) == LENS_OK, "layout: %s", e.msg);
    LENS_TEST_REL(L.vmin, 1.29, 1e-12, "data range min in µs");
    LENS_TEST_REL(L.vmax, 9.74, 1e-12, "data range max in µs");
    LENS_TEST(L.missing == 1, "one missing cell, got %lld", L.missing);
    LENS_TEST(L.map_w >= 100 && L.map_h >= 60, "map %gx%g", L.map_w, L.map_h);
    check_cells(&o, idx_linear, "viridis");

    /* the min and max cells are the ends of viridis, independent of the table code */
    cairo_surface_t *s = cairo_image_surface_create_from_png(lens_scratch_path("cells.png"));
    static const unsigned char lo_rgb[3] = {0x44, 0x01, 0x54}, hi_rgb[3] = {0xfd, 0xe7, 0x25};
    pixel(s, L.map_x + 2.5 * L.map_w / 5, L.map_y + 0.5 * L.map_h / 3, c);
    LENS_TEST(close_rgb(c, lo_rgb, 2), "min cell #%02x%02x%02x, want #440154", c[0], c[1], c[2]);
    pixel(s, L.map_x + 2.5 * L.map_w / 5, L.map_y + 1.5 * L.map_h / 3, c);
    LENS_TEST(close_rgb(c, hi_rgb, 2), "max cell #%02x%02x%02x, want #fde725", c[0], c[1], c[2]);
    cairo_surface_destroy(s);

    o.cmap = LENS_CMAP_GREY;
    check_cells(&o, idx_linear, "grey");
    /* grey ends by the L* formula: light (L* 85) for the minimum, dark (L* 10) for the maximum */
    s = cairo_image_surface_create_from_png(lens_scratch_path("cells.png"));
    pixel(s, L.map_x + 2.5 * L.map_w / 5, L.map_y + 0.5 * L.map_h / 3, c);
    LENS_TEST(abs(c[0] - grey_of_lstar(85)) <= 1 && c[0] == c[1] && c[1] == c[2], "grey min %d want %d", c[0], grey_of_lstar(85));
    pixel(s, L.map_x + 2.5 * L.map_w / 5, L.map_y + 1.5 * L.map_h / 3, c);
    LENS_TEST(abs(c[0] - grey_of_lstar(10)) <= 1 && c[0] == c[1] && c[1] == c[2], "grey max %d want %d", c[0], grey_of_lstar(10));
    cairo_surface_destroy(s);

    o.cmap = LENS_CMAP_VIRIDIS;
    o.log_scale = 1;
    check_cells(&o, idx_log, "log scale");
    o.log_scale = 0;
    o.fixed_range = 1;
    o.vmin = 2.0;
    o.vmax = 8.0;
    check_cells(&o, idx_fixed, "fixed range");
    LENS_TEST(lens_heatmap_layout(known, 3, 5, &o, &L, &e) == LENS_OK && L.vmin == 2.0 && L.vmax == 8.0,
              "fixed range is used");
    /* another unit scale: values in ms give the same colours */
    o.fixed_range = 0;
    o.scale = 1e3;
    o.unit = "ms";
    check_cells(&o, idx_linear, "scale 1e3");
}

static void test_histogram(void)
{
    /* 10 values over [0, 10) in 5 bins of width 2, one NaN, one clipped above */
    double v[12] = {0.3, 1.1, 2.5, 3.9, 4.0, 5.5, 7.7, 8.1, 9.99, 1.9, NAN, 14.0};
    struct lens_histogram h;
    struct lens_err e;
    LENS_TEST(lens_histogram_compute(&h, v, 12, 0, 1.0, 0.0, 10.0, 0, 5, "t", &e) == LENS_OK, "compute");
    static const long long want[5] = {3, 2, 2, 1, 3};
    for (int k = 0; k < 5; k++)
        LENS_TEST(h.count[k] == want[k], "bin %d: %lld want %lld", k, h.count[k], want[k]);
    LENS_TEST(h.total == 11 && h.clipped == 1 && h.max == 3, "total %lld clipped %lld max %lld",
              h.total, h.clipped, h.max);
    lens_histogram_release(&h);
    /* log bins over [1, 1000): decades */
    double w[6] = {1.5, 9.9, 10.0, 99.0, 500.0, -3.0};
    LENS_TEST(lens_histogram_compute(&h, w, 6, 0, 1.0, 1.0, 1000.0, 1, 3, "t", &e) == LENS_OK, "log compute");
    LENS_TEST(h.count[0] == 2 && h.count[1] == 2 && h.count[2] == 1 && h.total == 5,
              "log bins %lld %lld %lld", h.count[0], h.count[1], h.count[2]);
    lens_histogram_release(&h);
    LENS_TEST(lens_histogram_compute(&h, w, 6, 0, 1.0, 0.0, 10.0, 1, 3, "hist.png", &e) == LENS_EINVAL &&
              strstr(e.msg, "hist.png"), "log with lo = 0 refused: %s", e.msg);
    LENS_TEST(lens_histogram_bins_for(15) == 5 && lens_histogram_bins_for(1024) == 11 &&
              lens_histogram_bins_for(67108864) == 27 && lens_histogram_bins_for(1) == 4, "Sturges bins");

    double t[16], step;
    int n = lens_figure_ticks(1.29, 9.74, 0, 6, t, &step);
    LENS_TEST(n == 4 && step == 2.0 && t[0] == 2.0 && t[3] == 8.0, "linear ticks n=%d step=%g", n, step);
    n = lens_figure_ticks(0.5, 2000, 1, 10, t, &step);
    LENS_TEST(n == 4 && t[0] == 1 && t[3] == 1000 && step == 0, "decade ticks n=%d", n);
    char buf[32];
    lens_figure_format_value(2.5, 0.5, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "2.5"), "format '%s'", buf);
    lens_figure_format_count(35000, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "35k"), "count format '%s'", buf);
    lens_figure_ellipsize("узел-0123456789", 6, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "узел-0…"), "ellipsize '%s'", buf);
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        int x = fgetc(fa), y = fgetc(fb);
        if (x != y)
            same = 0;
        if (x == EOF || y == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

/* Python reads an SVG with xml.etree and prints, for the drawing (not the glyph
 * definitions): one "R x0 y0 x1 y1 r g b" per filled rectangle inside the box given, one
 * "I w h" per embedded image, and "G n" with the number of uses of glyph 0 (.notdef). */
static const char svg_py[] =
    "import re, sys, xml.etree.ElementTree as ET\n"
    "ns = '{http://www.w3.org/2000/svg}'\n"
    "root = ET.parse(sys.argv[1]).getroot()\n"
    "bx, by, bw, bh = map(float, sys.argv[2:6])\n"
    "body = [g for g in root.iter(ns + 'g') if (g.get('id') or '').startswith('surface')][0]\n"
    "for el in body.iter(ns + 'path'):\n"
    "    d = el.get('d', ''); nums = [float(v) for v in re.findall(r'-?[0-9.]+', d)]\n"
    "    m = re.search(r'fill:rgb\\(([0-9.]+)%,([0-9.]+)%,([0-9.]+)%\\)', el.get('style', ''))\n"
    "    if len(nums) != 10 or not m: continue\n"
    "    xs, ys = nums[0:8:2], nums[1:8:2]\n"
    "    if min(xs) < bx - 1e-6 or max(xs) > bx + bw + 1e-6 or min(ys) < by - 1e-6 or max(ys) > by + bh + 1e-6: continue\n"
    "    print('R %g %g %g %g %d %d %d' % ((min(xs), min(ys), max(xs), max(ys)) + tuple(round(float(c) * 2.55) for c in m.groups())))\n"
    "for el in root.iter(ns + 'image'):\n"
    "    print('I %s %s' % (el.get('width'), el.get('height')))\n"
    "href = '{http://www.w3.org/1999/xlink}href'\n"
    "print('G %d' % sum(1 for u in root.iter(ns + 'use') if re.fullmatch(r'#glyph[0-9]+-0', u.get(href, ''))))\n";

struct svg_facts {
    int rects, images, notdef, img_w, img_h;
    int colour_ok;
};

/* Runs the parser on path; cells with expected entries idx (rows x cols) are checked for
 * colour when idx is not NULL. Returns 0 when python failed. */
static int svg_parse(const char *path, const struct lens_heatmap_layout *L, int rows, int cols,
                     const int *idx, int cmap, struct svg_facts *f)
{
    char cmd[2048];
    memset(f, 0, sizeof *f);
    f->colour_ok = 1;
    snprintf(cmd, sizeof cmd, "%s %s %s %.6f %.6f %.6f %.6f", PY, lens_scratch_path("svg.py"), path,
             L->map_x, L->map_y, L->map_w, L->map_h);
    FILE *p = popen(cmd, "r");
    if (!p)
        return 0;
    char line[512];
    while (fgets(line, sizeof line, p)) {
        double x0, y0, x1, y1;
        int r, g, b;
        if (sscanf(line, "R %lf %lf %lf %lf %d %d %d", &x0, &y0, &x1, &y1, &r, &g, &b) == 7) {
            f->rects++;
            int j = (int)(((x0 + x1) / 2 - L->map_x) / L->map_w * cols);
            int i = (int)(((y0 + y1) / 2 - L->map_y) / L->map_h * rows);
            if (idx && i >= 0 && i < rows && j >= 0 && j < cols) {
                unsigned char want[3], got[3] = {(unsigned char)r, (unsigned char)g, (unsigned char)b};
                if (idx[i * cols + j] < 0)
                    lens_colormap_missing(cmap, want);
                else
                    lens_colormap_rgb8(cmap, idx[i * cols + j], want);
                if (!close_rgb(got, want, 0))
                    f->colour_ok = 0;
            }
        } else if (sscanf(line, "I %d %d", &f->img_w, &f->img_h) == 2) {
            f->images++;
        } else {
            sscanf(line, "G %d", &f->notdef);
        }
    }
    return pclose(p) == 0;
}

static void test_svg(void)
{
    struct lens_heatmap_opts o;
    struct lens_heatmap_layout L;
    struct lens_err e;
    struct svg_facts f;
    FILE *py = fopen(lens_scratch_path("svg.py"), "w");
    LENS_TEST(py && fputs(svg_py, py) >= 0 && fclose(py) == 0, "write svg.py");

    opts_known(&o);
    LENS_TEST(lens_heatmap_layout(known, 3, 5, &o, &L, &e) == LENS_OK, "layout: %s", e.msg);
    LENS_TEST(lens_heatmap_write_svg(known, 3, 5, &o, lens_scratch_path("small.svg"), &e) == LENS_OK, "small svg: %s", e.msg);
    LENS_TEST(svg_parse(lens_scratch_path("small.svg"), &L, 3, 5, idx_linear, o.cmap, &f), "python parses small.svg");
    LENS_TEST(f.rects == 15 && f.images == 0, "small svg: %d cell rects (want 15), %d images", f.rects, f.images);
    LENS_TEST(f.colour_ok, "small svg: cell colours match");
    LENS_TEST(f.notdef == 0, "small svg: every character (Cyrillic too) has a glyph, %d .notdef", f.notdef);
    /* same input, same bytes, even within one process (cairo's ids are renumbered) */
    LENS_TEST(lens_heatmap_write_svg(known, 3, 5, &o, lens_scratch_path("small2.svg"), &e) == LENS_OK, "svg again");
    LENS_TEST(same_file(lens_scratch_path("small.svg"), lens_scratch_path("small2.svg")), "svg is byte-identical run to run");

    /* 600 x 600 with node blocks and noise: one embedded image, no per-cell rectangles */
    int n = 600;
    double *m = malloc(sizeof *m * n * n);
    unsigned s = 12345u;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            s = s * 1103515245u + 12345u;
            double noise = ((s >> 8) & 0xffff) / 65536.0;
            m[i * n + j] = i == j ? NAN : (i / 24 == j / 24 ? 1.1e-6 : 3.4e-6) * (1 + 0.2 * noise);
        }
    o.labels = NULL;
    o.width = 900;
    o.height = 700;
    LENS_TEST(lens_heatmap_layout(m, n, n, &o, &L, &e) == LENS_OK, "big layout: %s", e.msg);
    LENS_TEST(L.row_step > 1 && L.col_step > 1, "labels thinned: every %d / %d", L.row_step, L.col_step);
    LENS_TEST(lens_heatmap_write_svg(m, n, n, &o, lens_scratch_path("big.svg"), &e) == LENS_OK, "big svg: %s", e.msg);
    LENS_TEST(svg_parse(lens_scratch_path("big.svg"), &L, n, n, NULL, o.cmap, &f), "python parses big.svg");
    LENS_TEST(f.images == 1 && f.img_w == n && f.img_h == n, "big svg: %d image(s) %dx%d", f.images, f.img_w, f.img_h);
    LENS_TEST(f.rects == 0, "big svg: %d cell rects", f.rects);
    long sz = file_size(lens_scratch_path("big.svg"));
    LENS_TEST(sz > 0 && sz < 1500000, "big svg is %ld bytes", sz);
    LENS_TEST(lens_heatmap_write_svg(m, n, n, &o, lens_scratch_path("big2.svg"), &e) == LENS_OK, "big svg again");
    LENS_TEST(same_file(lens_scratch_path("big.svg"), lens_scratch_path("big2.svg")), "big svg byte-identical");

    /* the PNG in memory is the same bytes as the PNG file, and decodes */
    unsigned char *buf = NULL;
    size_t len = 0;
    LENS_TEST(lens_heatmap_png_mem(m, n, n, &o, &buf, &len, &e) == LENS_OK, "png_mem: %s", e.msg);
    LENS_TEST(len > 8 && buf && !memcmp(buf, "\x89PNG\r\n\x1a\n", 8), "png signature");
    LENS_TEST(lens_heatmap_write_png(m, n, n, &o, lens_scratch_path("big.png"), &e) == LENS_OK, "big png: %s", e.msg);
    LENS_TEST(lens_heatmap_write_png(m, n, n, &o, lens_scratch_path("big2.png"), &e) == LENS_OK, "big png again");
    LENS_TEST(same_file(lens_scratch_path("big.png"), lens_scratch_path("big2.png")), "png byte-identical");
    /* the report embeds this buffer with libharu: it must load as an image of the figure size
     * drawn for print (300 ppi at the text width, figure.h), not the file's natural size */
    double k = lens_figure_print_scale(o.width);
    HPDF_UINT pw = (HPDF_UINT)ceil(o.width * k), ph = (HPDF_UINT)ceil(o.height * k);
    HPDF_Doc pdf = HPDF_New(NULL, NULL);
    HPDF_Image im = pdf ? HPDF_LoadPngImageFromMem(pdf, buf, (HPDF_UINT)len) : NULL;
    LENS_TEST(im && HPDF_Image_GetWidth(im) == pw && HPDF_Image_GetHeight(im) == ph,
              "libharu loads the png_mem image at %ux%u", pw, ph);
    LENS_TEST(pw / (LENS_FIGURE_PRINT_W / 72.0) >= 300, "%u pixels over the text width: %.0f ppi", pw,
              pw / (LENS_FIGURE_PRINT_W / 72.0));
    if (pdf)
        HPDF_Free(pdf);
    lens_free(buf);
    free(m);
}

static void test_errors(void)
{
    struct lens_heatmap_opts o;
    struct lens_err e;
    const char *p = lens_scratch_path("bad.png");
    opts_known(&o);
    int rc = lens_heatmap_write_png(known, 0, 5, &o, p, &e);
    LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, p) && strstr(e.msg, "rows=0"), "rows=0: %s", e.msg);
    rc = lens_heatmap_write_svg(known, 3, -1, &o, lens_scratch_path("bad.svg"), &e);
    LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, "bad.svg"), "cols<0: %s", e.msg);
    LENS_TEST(lens_heatmap_write_png(NULL, 3, 5, &o, p, &e) == LENS_EINVAL, "NULL matrix");
    const char *unw = "/nonexistent-mpilens-dir/heat.png";
    rc = lens_heatmap_write_png(known, 3, 5, &o, unw, &e);
    LENS_TEST(rc == LENS_EIO && strstr(e.msg, unw), "unwritable png: %s", e.msg);
    rc = lens_heatmap_write_svg(known, 3, 5, &o, "/nonexistent-mpilens-dir/heat.svg", &e);
    LENS_TEST(rc == LENS_EIO && strstr(e.msg, "heat.svg"), "unwritable svg: %s", e.msg);
    o.font_path = "fonts/NoSuchFont.ttf";
    rc = lens_heatmap_write_png(known, 3, 5, &o, p, &e);
    LENS_TEST(rc == LENS_EIO && strstr(e.msg, "NoSuchFont.ttf"), "missing font: %s", e.msg);
    o.font_path = "fonts/LICENSE-DejaVu.txt";
    rc = lens_heatmap_write_svg(known, 3, 5, &o, lens_scratch_path("bad.svg"), &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "LICENSE-DejaVu.txt"), "not a font: %s", e.msg);
    o.font_path = FONT;
    o.fixed_range = 1;
    o.vmin = 5;
    o.vmax = 5;
    rc = lens_heatmap_write_png(known, 3, 5, &o, p, &e);
    LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, "vmin") && strstr(e.msg, p), "empty range: %s", e.msg);
    o.vmin = 0;
    o.log_scale = 1;
    rc = lens_heatmap_write_png(known, 3, 5, &o, p, &e);
    LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, "log"), "log with vmin 0: %s", e.msg);
    o.fixed_range = o.log_scale = 0;
    o.width = 20;
    rc = lens_heatmap_write_png(known, 3, 5, &o, p, &e);
    LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, "20x480"), "tiny figure: %s", e.msg);
    o.width = 640;
    o.scale = -1;
    LENS_TEST(lens_heatmap_write_png(known, 3, 5, &o, p, &e) == LENS_EINVAL, "negative scale");
    o.scale = 1e6;
    o.cmap = 7;
    LENS_TEST(lens_heatmap_write_png(known, 3, 5, &o, p, &e) == LENS_EINVAL, "unknown cmap");
    unsigned char *buf = (unsigned char *)"x";
    size_t len = 5;
    rc = lens_heatmap_png_mem(known, -2, 5, &o, &buf, &len, &e);
    LENS_TEST(rc == LENS_EINVAL && !buf && len == 0 && strstr(e.msg, "memory"), "png_mem bad rows: %s", e.msg);
    LENS_TEST(!lens_scratch_exists(p) && !lens_scratch_exists(lens_scratch_path("bad.svg")) && lens_scratch_leftovers() == 0, "errors leave no files");

    /* allocation failures anywhere in a render: an error, no file, no leak (under ASan) */
    opts_known(&o);
    int failures = 0;
    for (long k = 1; k < 40; k++) {
        lens_malloc_fail_after(k);
        rc = lens_heatmap_write_svg(known, 3, 5, &o, lens_scratch_path("oom.svg"), &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            break;
        failures++;
        LENS_TEST(rc == LENS_ENOMEM && !lens_scratch_exists(lens_scratch_path("oom.svg")), "oom %ld: rc %d %s", k, rc, e.msg);
    }
    LENS_TEST(failures > 3 && lens_scratch_exists(lens_scratch_path("oom.svg")), "allocation failures walked: %d", failures);
    LENS_TEST(lens_scratch_leftovers() == 0, "no temporary files after allocation failures");
}

/* Diagonal hidden by default (self-delays are 0 in network_test2 files), shown on request;
 * a one-value outlier bin stays visible in the histogram. */
static void test_diagonal(void)
{
    enum { N = 40 };
    static double m[N * N];
    struct lens_heatmap_opts o;
    struct lens_heatmap_layout L;
    struct lens_err e;
    unsigned s = 99u;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            s = s * 1664525u + 1013904223u;
            m[i * N + j] = i == j ? 0.0 : (2.0 + (s >> 16) / 65536.0) * 1e-6; /* 2..3 µs */
        }
    m[3 * N + 17] = 40e-6; /* the bad link */
    lens_heatmap_opts_init(&o);
    o.font_path = FONT;
    LENS_TEST(lens_heatmap_layout(m, N, N, &o, &L, &e) == LENS_OK, "layout: %s", e.msg);
    LENS_TEST(L.missing == N && L.vmin >= 2.0 && fabs(L.vmax - 40.0) < 1e-9,
              "diagonal hidden: missing %lld, range [%g, %g]", L.missing, L.vmin, L.vmax);
    LENS_TEST(lens_heatmap_write_png(m, N, N, &o, lens_scratch_path("diag.png"), &e) == LENS_OK, "png: %s", e.msg);
    cairo_surface_t *img = cairo_image_surface_create_from_png(lens_scratch_path("diag.png"));
    unsigned char got[3], want[3];
    pixel(img, L.map_x + 5.5 * L.map_w / N, L.map_y + 5.5 * L.map_h / N, got);
    lens_colormap_missing(LENS_CMAP_VIRIDIS, want);
    LENS_TEST(close_rgb(got, want, 0), "diagonal cell drawn as missing");
    pixel(img, L.map_x + 17.5 * L.map_w / N, L.map_y + 3.5 * L.map_h / N, got);
    lens_colormap_rgb8(LENS_CMAP_VIRIDIS, 255, want);
    LENS_TEST(close_rgb(got, want, 0), "bad link is the top colour");
    /* 1559 values, Sturges: 12 bins; the outlier alone in the top bin is 1/1500 of the
     * longest bar but is still drawn */
    int nb = 12;
    lens_colormap_rgb8(LENS_CMAP_VIRIDIS, lens_colormap_index((nb - 0.5) / nb), want);
    pixel(img, L.hist_x + 1.6, L.hist_y + L.hist_h / (2.0 * nb), got);
    LENS_TEST(close_rgb(got, want, 1), "outlier bin visible: #%02x%02x%02x want #%02x%02x%02x",
              got[0], got[1], got[2], want[0], want[1], want[2]);
    pixel(img, L.hist_x + 1.6, L.hist_y + 3 * L.hist_h / (2.0 * nb), got);
    LENS_TEST(got[0] == 255 && got[1] == 255 && got[2] == 255, "empty bin below it is background");
    cairo_surface_destroy(img);

    o.hide_diagonal = 0;
    LENS_TEST(lens_heatmap_layout(m, N, N, &o, &L, &e) == LENS_OK && L.missing == 0 && L.vmin == 0.0,
              "diagonal shown: missing %lld, vmin %g", L.missing, L.vmin);

    struct lens_histogram h;
    double v9[9] = {0, 1, 2, 3, 0, 5, 6, 7, 0};
    LENS_TEST(lens_histogram_compute(&h, v9, 9, 3, 1.0, 0.5, 7.5, 0, 7, "t", &e) == LENS_OK &&
              h.total == 6 && h.clipped == 0 && h.count[0] == 1 && h.count[6] == 1,
              "histogram skips the diagonal: total %lld", h.total);
    lens_histogram_release(&h);
    LENS_TEST(lens_histogram_compute(&h, v9, 8, 3, 1.0, 0.5, 7.5, 0, 7, "x.png", &e) == LENS_EINVAL &&
              strstr(e.msg, "x.png"), "diagonal of a non-square count refused: %s", e.msg);
}

static void test_edge_cases(void)
{
    struct lens_heatmap_opts o;
    struct lens_err e;
    struct lens_heatmap_layout L;
    double allnan[4] = {NAN, NAN, INFINITY, NAN};
    lens_heatmap_opts_init(&o); /* defaults: toy font, no title */
    LENS_TEST(lens_heatmap_write_png(allnan, 2, 2, &o, lens_scratch_path("nan.png"), &e) == LENS_OK, "all missing renders: %s", e.msg);
    LENS_TEST(lens_heatmap_layout(allnan, 2, 2, NULL, &L, &e) == LENS_OK && L.missing == 4, "all missing counted");
    double flat[6] = {2e-6, 2e-6, 2e-6, 2e-6, 2e-6, 2e-6};
    LENS_TEST(lens_heatmap_layout(flat, 2, 3, &o, &L, &e) == LENS_OK && L.vmin < 2.0 && L.vmax > 2.0,
              "constant matrix widens the range [%g, %g]", L.vmin, L.vmax);
    double neg[4] = {-1e-6, 3e-6, 0.0, 7e-6};
    o.log_scale = 1;
    o.hide_diagonal = 0;
    LENS_TEST(lens_heatmap_layout(neg, 2, 2, &o, &L, &e) == LENS_OK && L.missing == 2 &&
              fabs(L.vmin - 3.0) < 1e-9, "log: values <= 0 are missing");
    o.log_scale = 0;
    o.histogram = 0;
    LENS_TEST(lens_heatmap_layout(known, 3, 5, &o, &L, &e) == LENS_OK && L.hist_w == 0, "no histogram");
    /* a tall thin matrix still gets a usable map */
    double col[50];
    for (int i = 0; i < 50; i++)
        col[i] = (i * 37 % 50) * 1e-6;
    LENS_TEST(lens_heatmap_write_png(col, 50, 1, &o, lens_scratch_path("col.png"), &e) == LENS_OK, "50x1: %s", e.msg);
    LENS_TEST(lens_heatmap_layout(col, 50, 1, &o, &L, &e) == LENS_OK && L.map_w >= 20, "50x1 map width %g", L.map_w);
}

int main(void)
{
    if (lens_scratch_open("mpilens-heatmap") != 0)
        return 1;
    test_colours();
    test_histogram();
    test_svg();
    test_errors();
    test_diagonal();
    test_edge_cases();
    cairo_debug_reset_static_data(); /* drops cairo's font caches so LeakSanitizer sees real leaks only */
    lens_scratch_close();
    return LENS_TEST_DONE("test_heatmap");
}
