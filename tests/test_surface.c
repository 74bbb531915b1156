/* Efficiency surface: PNG size and pixels (background, colour bar, quads, the gap a missing
 * configuration leaves, hidden-surface order), heatmap cells, errors, determinism, helpers. */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/fig/gridmap.h"
#include "render/fig/surface.h"
#include "lens_test.h"

static char dir[64];

struct img {
    cairo_surface_t *s;
    unsigned char *data;
    int w, h, stride;
};

static int load(struct img *im, const char *path)
{
    im->s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(im->s) != CAIRO_STATUS_SUCCESS)
        return -1;
    im->data = cairo_image_surface_get_data(im->s);
    im->w = cairo_image_surface_get_width(im->s);
    im->h = cairo_image_surface_get_height(im->s);
    im->stride = cairo_image_surface_get_stride(im->s);
    return 0;
}

/* RGB of pixel (x, y) as 0..255 (the figure is opaque, so premultiplication does not matter). */
static void pixel(const struct img *im, double fx, double fy, int rgb[3])
{
    int x = (int)lround(fx), y = (int)lround(fy);
    if (x < 0 || y < 0 || x >= im->w || y >= im->h) {
        rgb[0] = rgb[1] = rgb[2] = -1;
        return;
    }
    unsigned int v = *(const unsigned int *)(im->data + (size_t)y * (size_t)im->stride + 4 * (size_t)x);
    rgb[0] = (int)(v >> 16 & 255);
    rgb[1] = (int)(v >> 8 & 255);
    rgb[2] = (int)(v & 255);
}

static int near_colour(const int rgb[3], double t, int tol)
{
    double want[3];
    lens_gridmap_colour(t, want);
    for (int c = 0; c < 3; c++)
        if (abs(rgb[c] - (int)lround(want[c] * 255)) > tol)
            return 0;
    return 1;
}

/* Grey or white: what panes, grid lines and the background are, and no colour-map colour is. */
static int unsaturated(const int rgb[3])
{
    int mx = rgb[0], mn = rgb[0];
    for (int c = 1; c < 3; c++) {
        mx = rgb[c] > mx ? rgb[c] : mx;
        mn = rgb[c] < mn ? rgb[c] : mn;
    }
    return mn >= 0 && mx - mn <= 12;
}

static void test_flat_with_gap(void)
{
    /* 5 x 5, E = 0.5 everywhere except E(procs[2], size[2]) missing. */
    double p[5] = {2, 4, 8, 12, 16}, d[5] = {1e5, 2e5, 3e5, 5e5, 8e5}, e[25];
    for (int k = 0; k < 25; k++)
        e[k] = 0.5;
    e[2 * 5 + 2] = NAN;
    struct lens_grid g = {.app = "flat", .np = 5, .nd = 5, .procs = p, .size = d, .eff = e};
    struct lens_surface_opts o;
    lens_surface_opts_default(&o);
    o.width = 900;
    o.height = 420;
    char path[128], path2[128];
    snprintf(path, sizeof path, "%s/flat.png", dir);
    snprintf(path2, sizeof path2, "%s/flat2.png", dir);
    struct lens_err err = {0};
    LENS_TEST(lens_surface_write(path, &g, &o, &err) == LENS_OK, "write: %s", err.msg);
    LENS_TEST(lens_surface_write(path2, &g, &o, &err) == LENS_OK, "write again: %s", err.msg);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "cmp -s %s %s", path, path2);
    LENS_TEST(system(cmd) == 0, "same grid, same bytes");
    struct img im;
    LENS_TEST(load(&im, path) == 0, "PNG loads");
    if (!im.data)
        return;
    LENS_TEST(im.w == 900 && im.h == 420, "size %d x %d", im.w, im.h);
    int rgb[3];
    const int corners[4][2] = {{0, 0}, {899, 0}, {0, 419}, {899, 419}};
    for (int k = 0; k < 4; k++) {
        pixel(&im, corners[k][0], corners[k][1], rgb);
        LENS_TEST(rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255, "corner %d white", k);
    }
    /* Colour bar (layout of surface.c: x = 0.905 W, 18 wide, from y = 84 down H - 154): its
     * bottom is the colour of E = 0, its top of E = 1. */
    double bx = 0.905 * 900 + 9, top = 84, h = 420 - 34 - 120;
    pixel(&im, bx, top + h - 2, rgb);
    LENS_TEST(near_colour(rgb, 0, 8), "colour bar bottom (%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
    pixel(&im, bx, top + 2, rgb);
    LENS_TEST(near_colour(rgb, 1, 8), "colour bar top (%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
    pixel(&im, bx, top + h / 2, rgb);
    LENS_TEST(near_colour(rgb, 0.5, 8), "colour bar middle (%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
    /* A present quad shows the colour of 0.5; the missing configuration is a gap. */
    double x, y;
    lens_surface_locate(&g, &o, 3, 1.5e5, 0.5, &x, &y, &err);
    pixel(&im, x, y, rgb);
    LENS_TEST(near_colour(rgb, 0.5, 6), "quad (0,0) at (%.0f,%.0f) is E=0.5: (%d,%d,%d)", x, y, rgb[0],
              rgb[1], rgb[2]);
    lens_surface_locate(&g, &o, 8, 3e5, 0.5, &x, &y, &err);
    pixel(&im, x, y, rgb);
    LENS_TEST(unsaturated(rgb), "the missing configuration at (%.0f,%.0f) is a gap: (%d,%d,%d)", x, y,
              rgb[0], rgb[1], rgb[2]);
    /* Heatmap: the missing cell is background, a present cell has the colour. */
    lens_surface_locate_cell(&g, &o, 2, 2, &x, &y, &err);
    pixel(&im, x, y, rgb);
    LENS_TEST(rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255, "heatmap gap at (%.0f,%.0f) white", x, y);
    lens_surface_locate_cell(&g, &o, 4, 0, &x, &y, &err);
    pixel(&im, x, y, rgb);
    LENS_TEST(near_colour(rgb, 0.5, 3), "heatmap cell (4,0) E=0.5: (%d,%d,%d)", rgb[0], rgb[1], rgb[2]);
    LENS_TEST(lens_surface_locate_cell(&g, &o, 5, 0, &x, &y, &err) == LENS_EINVAL, "cell outside");
    cairo_surface_destroy(im.s);
}

/* Plateau in front, lower surface behind: at the plateau's pixel some point of the lower part
 * also projects (found by search), so only a far-to-near order shows the plateau colour. */
static void test_hidden_surface(void)
{
    double p[6] = {1, 2, 3, 4, 5, 6}, d[6] = {100, 200, 300, 400, 500, 600}, e[36];
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 6; i++)
            e[j * 6 + i] = i >= 4 ? 0.9 : 0.2; /* the near side (high p) is higher */
    struct lens_grid g = {.app = "plateau", .np = 6, .nd = 6, .procs = p, .size = d, .eff = e};
    struct lens_surface_opts o;
    lens_surface_opts_default(&o);
    char path[128];
    snprintf(path, sizeof path, "%s/plateau.png", dir);
    struct lens_err err = {0};
    LENS_TEST(lens_surface_write(path, &g, &o, &err) == LENS_OK, "write: %s", err.msg);
    struct img im;
    if (load(&im, path) != 0)
        return;
    int checked = 0;
    for (double dd = 150; dd <= 350; dd += 100) {
        double x, y;
        lens_surface_locate(&g, &o, 5.5, dd, 0.9, &x, &y, &err);
        /* a point of the low part (p <= 4, E = 0.2) behind the same pixel */
        int behind = 0;
        for (double pp = 1; pp <= 4 && !behind; pp += 0.01)
            for (double q = 100; q <= 600 && !behind; q += 1) {
                double bx, by;
                lens_surface_locate(&g, &o, pp, q, 0.2, &bx, &by, &err);
                behind = fabs(bx - x) < 1 && fabs(by - y) < 1;
            }
        if (!behind)
            continue;
        checked++;
        int rgb[3];
        pixel(&im, x, y, rgb);
        LENS_TEST(near_colour(rgb, 0.9, 6), "plateau at d=%g hides the low part: (%d,%d,%d)", dd, rgb[0],
                  rgb[1], rgb[2]);
    }
    LENS_TEST(checked >= 2, "the plateau hides part of the low surface (%d points)", checked);
    cairo_surface_destroy(im.s);
}

static void test_errors(void)
{
    double p[2] = {1, 2}, d[2] = {10, 20}, e[4] = {1, 0.5, 1, 0.7}, none[4] = {NAN, NAN, NAN, NAN};
    struct lens_grid g = {.app = "err", .np = 2, .nd = 2, .procs = p, .size = d, .eff = e}, empty = {.app = "empty", .procs = p, .size = d, .eff = none};
    struct lens_surface_opts o;
    lens_surface_opts_default(&o);
    struct lens_err err = {0};
    char path[128];
    snprintf(path, sizeof path, "%s/fig.jpg", dir);
    LENS_TEST(lens_surface_write(path, &g, &o, &err) == LENS_EINVAL, "bad extension");
    LENS_TEST(strstr(err.msg, "fig.jpg: output must end in .png or .svg") != NULL, "msg: %s", err.msg);
    LENS_TEST(access(path, F_OK) != 0, "nothing written");
    snprintf(path, sizeof path, "%s/no/such/dir/fig.png", dir);
    LENS_TEST(lens_surface_write(path, &g, &o, &err) < 0, "missing directory");
    LENS_TEST(strstr(err.msg, "no/such/dir/fig.png") != NULL, "msg names the file: %s", err.msg);
    snprintf(path, sizeof path, "%s/empty.png", dir);
    LENS_TEST(lens_surface_write(path, &empty, &o, &err) == LENS_EINVAL, "empty grid");
    LENS_TEST(strstr(err.msg, "empty has no configuration") != NULL, "msg: %s", err.msg);
    LENS_TEST(access(path, F_OK) != 0, "nothing written for an empty grid");
    o.elevation = 95;
    LENS_TEST(lens_surface_write(path, &g, &o, &err) == LENS_EINVAL, "elevation 95");
    lens_surface_opts_default(&o);
    o.width = 100;
    LENS_TEST(lens_surface_write(path, &g, &o, &err) == LENS_EINVAL, "too small");
    lens_surface_opts_default(&o);
    /* log axes, other views and SVG all succeed */
    o.log_procs = o.log_size = 1;
    o.azimuth = 135;
    o.elevation = 90;
    snprintf(path, sizeof path, "%s/log.svg", dir);
    LENS_TEST(lens_surface_write(path, &g, &o, &err) == LENS_OK, "log svg: %s", err.msg);
    FILE *fp = fopen(path, "r");
    char head[6] = "";
    if (fp) {
        LENS_TEST(fread(head, 1, 5, fp) == 5, "svg readable");
        fclose(fp);
    }
    LENS_TEST(!strcmp(head, "<?xml"), "svg starts with <?xml: '%s'", head);
    double zero[2] = {0, 20};
    struct lens_grid gz = {.app = "zero", .np = 2, .nd = 2, .procs = p, .size = zero, .eff = e};
    LENS_TEST(lens_surface_write(path, &gz, &o, &err) == LENS_EINVAL, "log axis over 0");
}

static void test_png_mem(void)
{
    double p[3] = {1, 2, 4}, d[2] = {10, 20}, e[6] = {1, 0.6, 0.3, 1, 0.7, 0.45};
    struct lens_grid g = {.app = "mem", .np = 3, .nd = 2, .procs = p, .size = d, .eff = e};
    struct lens_surface_opts o;
    lens_surface_opts_default(&o);
    o.width = 400;
    o.height = 240;
    unsigned char *buf = NULL;
    size_t len = 0;
    struct lens_err err = {0};
    LENS_TEST(lens_surface_png_mem(&g, &o, &buf, &len, &err) == LENS_OK, "png_mem: %s", err.msg);
    LENS_TEST(len > 1000 && buf && !memcmp(buf, "\x89PNG\r\n\x1a\n", 8), "PNG bytes (%zu)", len);
    lens_free(buf);
    int failures = 0;
    for (long k = 1; k < 100; k++) {
        lens_malloc_fail_after(k);
        int rc = lens_surface_png_mem(&g, &o, &buf, &len, &err);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            lens_free(buf);
            break;
        }
        failures++;
        LENS_TEST(rc == LENS_ENOMEM && buf == NULL, "k=%ld: rc %d", k, rc);
    }
    LENS_TEST(failures >= 1, "png_mem allocation failures walked: %d", failures);
}

static void test_helpers(void)
{
    double t[16];
    size_t n = lens_gridmap_ticks(0, 1, t, 16);
    LENS_TEST(n == 6 && t[0] == 0 && fabs(t[5] - 1) < 1e-12, "ticks 0..1: %zu", n);
    n = lens_gridmap_ticks(1000, 8000, t, 16);
    LENS_TEST(n == 4 && t[0] == 2000 && t[3] == 8000, "ticks 1000..8000: %zu from %g", n, t[0]);
    n = lens_gridmap_ticks(-0.3, 1.37, t, 16);
    LENS_TEST(n == 3 && t[0] == 0 && t[2] == 1 && t[0] >= -0.3 && t[n - 1] <= 1.37, "ticks -0.3..1.37");
    LENS_TEST(lens_gridmap_ticks(5, 5, t, 16) == 1 && t[0] == 5, "one value, one tick");
    char buf[32];
    lens_gridmap_format(1e6, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "1e6"), "1e6: '%s'", buf);
    lens_gridmap_format(2.5e-5, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "2.5e-5"), "2.5e-5: '%s'", buf);
    lens_gridmap_format(4000, buf, sizeof buf);
    LENS_TEST(!strcmp(buf, "4000"), "4000: '%s'", buf);
    double a[3], b[3];
    lens_gridmap_colour(0, a);
    lens_gridmap_colour(1, b);
    LENS_TEST(a[2] > a[1] && b[0] > 0.9 && b[1] > 0.85, "dark blue-purple to yellow");
    lens_gridmap_colour(NAN, b);
    LENS_TEST(b[0] == a[0] && b[2] == a[2], "NaN clamps to 0");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_surface.XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    test_flat_with_gap();
    test_hidden_surface();
    test_errors();
    test_png_mem();
    test_helpers();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return LENS_TEST_DONE("test_surface");
}
