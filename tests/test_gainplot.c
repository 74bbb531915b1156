/* The gain figure (render/fig/gainplot.c) on two versions at 1, 2, 4 processes: PNG bytes
 * and files come out, the SVG names versions and problems (its text layer), each version's
 * colour appears in the left (time) panel, and bad data is refused with LENS_EINVAL. */
#include "render/fig/gainplot.h"
#include "render/fig/figure.h"
#include "common/alloc.h"
#include "lens_test.h"

#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int procs[3] = {1, 2, 4};
static const char *const names[2] = {"naive", "overlapped"};
static const char *const probs[2] = {"Late sender", "Wait at barrier"};
static double times[6] = {1.0, 0.8, 0.7, 0.9, 0.5, 0.35};
static double gains[6];
static double shares[12] = {0, 0.2, 0.3, 0, 0.05, 0.1, 0, 0.1, 0.15, 0, 0.02, 0.04};

static struct lens_gainplot_opts base(void)
{
    for (int i = 0; i < 6; i++)
        gains[i] = times[i % 3] / times[i];
    return (struct lens_gainplot_opts){.nprocs = 3, .procs = procs, .nversions = 2, .version = names,
                                       .time = times, .gain = gains, .nproblems = 2,
                                       .problem = probs, .share = shares, .xlabel = "processes",
                                       .time_label = "time, s", .share_label = "share, %",
                                       /* a TTF: cairo's toy font goes through fontconfig, which
                                        * keeps allocations LeakSanitizer reports */
                                       .font_path = "fonts/DejaVuSans.ttf"};
}

/* Pixels of the left half close to colour (r, g, b), 0..255. */
static int count_colour(cairo_surface_t *img, int r, int g, int b)
{
    int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
    int stride = cairo_image_surface_get_stride(img), n = 0;
    unsigned char *d = cairo_image_surface_get_data(img);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w / 2; x++) {
            unsigned px = *(unsigned *)(d + y * stride + 4 * x);
            int pr = (px >> 16) & 255, pg = (px >> 8) & 255, pb = px & 255;
            n += abs(pr - r) < 20 && abs(pg - g) < 20 && abs(pb - b) < 20;
        }
    return n;
}

int main(void)
{
    struct lens_err e = {0};
    struct lens_gainplot_opts o = base();
    unsigned char *png = NULL;
    size_t len = 0;
    LENS_TEST(lens_gainplot_png_mem(&o, &png, &len, &e) == LENS_OK && len > 1000, "png: %s", e.msg);
    LENS_TEST(png && !memcmp(png, "\x89PNG", 4), "PNG signature");
    lens_free(png);

    char dir[] = "/tmp/mpilens-gainplot-XXXXXX", svg[128];
    LENS_TEST(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(svg, sizeof svg, "%s/g.svg", dir);
    LENS_TEST(lens_gainplot_write(&o, svg, &e) == LENS_OK, "svg: %s", e.msg);
    FILE *fp = fopen(svg, "r");
    char buf[1 << 16];
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    buf[n] = '\0';
    if (fp)
        fclose(fp);
    for (int k = 0; k < 2; k++) {
        LENS_TEST(strstr(buf, names[k]) != NULL, "svg names version %s", names[k]);
        LENS_TEST(strstr(buf, probs[k]) != NULL, "svg names problem %s", probs[k]);
    }
    unlink(svg);
    rmdir(dir);

    /* as a PNG file read back: the first version's red and the second's blue (gainplot.c's
     * first two colours) in the time panel */
    char pngpath[128];
    snprintf(pngpath, sizeof pngpath, "%s.png", dir);
    LENS_TEST(lens_gainplot_write(&o, pngpath, &e) == LENS_OK, "png file: %s", e.msg);
    cairo_surface_t *img = cairo_image_surface_create_from_png(pngpath);
    LENS_TEST(cairo_surface_status(img) == CAIRO_STATUS_SUCCESS, "png read back");
    if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        cairo_surface_flush(img);
        LENS_TEST(cairo_image_surface_get_width(img) == 1000, "natural width 1000");
        LENS_TEST(count_colour(img, 204, 26, 26) > 100, "naive's red line in the time panel");
        LENS_TEST(count_colour(img, 31, 89, 166) > 100, "overlapped's blue line in the time panel");
    }
    cairo_surface_destroy(img);
    unlink(pngpath);

    /* bad data: every check names the figure and returns LENS_EINVAL */
    o = base();
    double bad[6];
    memcpy(bad, times, sizeof bad);
    bad[4] = NAN;
    o.time = bad;
    LENS_TEST(lens_gainplot_png_mem(&o, &png, &len, &e) == LENS_EINVAL, "NaN time refused");
    bad[4] = 0;
    LENS_TEST(lens_gainplot_png_mem(&o, &png, &len, &e) == LENS_EINVAL, "zero time refused");
    o = base();
    double bs[12];
    memcpy(bs, shares, sizeof bs);
    bs[3] = 1.5;
    o.share = bs;
    LENS_TEST(lens_gainplot_png_mem(&o, &png, &len, &e) == LENS_EINVAL, "share > 1 refused");
    o = base();
    o.nversions = 0;
    LENS_TEST(lens_gainplot_png_mem(&o, &png, &len, &e) == LENS_EINVAL, "no version refused");
    o = base();
    o.nproblems = LENS_GAINPLOT_MAX_PROBLEMS + 1;
    LENS_TEST(lens_gainplot_png_mem(&o, &png, &len, &e) == LENS_EINVAL, "too many problems refused");
    o = base();
    o.nprocs = 0;
    LENS_TEST(lens_gainplot_png_mem(&o, &png, &len, &e) == LENS_EINVAL, "no process count refused");
    LENS_TEST(strstr(e.msg, "gain figure") != NULL, "message names the figure: %s", e.msg);
    /* a single process count and no problems still draw (one dot per version) */
    o = base();
    o.nprocs = 1;
    o.nproblems = 0;
    LENS_TEST(lens_gainplot_png_mem(&o, &png, &len, &e) == LENS_OK, "one count: %s", e.msg);
    lens_free(png);
    return LENS_TEST_DONE("test_gainplot");
}
