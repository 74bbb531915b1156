/* Tests for render/fig/linkmap.c, linkcurves.c and slices.c: every cell of the link map read back
 * from the PNG has the colour of its link's cluster (small, host-labelled, large raster, and
 * drawn into a box of a bigger surface), the SVG map fills each cluster's colour, output is
 * byte-identical run to run and equal in memory and on disk; slices decoded from a packed
 * cube have the errors an independent decoder pass measures, the pixels of both panels are
 * the viridis entries of their values on the row's shared range; every error path names its
 * file and leaves none. */
#include "analysis/cube/packed.h"
#include "analysis/structure/links.h"
#include "render/fig/colormap.h"
#include "render/fig/figure.h"
#include "render/fig/linkcurves.h"
#include "render/fig/linkmap.h"
#include "render/fig/slices.h"
#include "lens_test.h"
#include "lens_scratch.h"

#include <cairo-pdf.h>
#include <cairo.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FONT "fonts/DejaVuSans.ttf"

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }

/* png_mem is the file drawn for print (figure.h): the file's size times the print scale. */
static int print_of(const unsigned char *mem, size_t len, const unsigned char *file, size_t flen)
{
    if (!mem || !file || len < 24 || flen < 24 || memcmp(mem, file, 8))
        return 0;
    unsigned fw = (unsigned)file[16] << 24 | (unsigned)file[17] << 16 | (unsigned)file[18] << 8 | file[19];
    unsigned fh = (unsigned)file[20] << 24 | (unsigned)file[21] << 16 | (unsigned)file[22] << 8 | file[23];
    unsigned mw = (unsigned)mem[16] << 24 | (unsigned)mem[17] << 16 | (unsigned)mem[18] << 8 | mem[19];
    unsigned mh = (unsigned)mem[20] << 24 | (unsigned)mem[21] << 16 | (unsigned)mem[22] << 8 | mem[23];
    double k = lens_figure_print_scale(fw);
    return mw == (unsigned)ceil(fw * k) && mh == (unsigned)ceil(fh * k);
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    *len = fread(b, 1, (size_t)n, fp);
    b[*len] = 0;
    fclose(fp);
    return b;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* xorshift, so the labels are high-entropy but reproducible */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next_u32(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

/* A clustering built by hand: P processes, k clusters, random labels, curves rising with
 * length; every cluster non-empty. */
static struct lens_links *fake_links(int P, int k, int nlen)
{
    struct lens_links *r = calloc(1, sizeof *r);
    r->procs = P;
    r->nlen = nlen;
    r->k = k;
    r->lengths = calloc((size_t)nlen, sizeof *r->lengths);
    for (int l = 0; l < nlen; l++)
        r->lengths[l] = l * 1536;
    r->label = calloc((size_t)P * P, sizeof *r->label);
    r->clusters = calloc((size_t)k, sizeof *r->clusters);
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            r->label[i * P + j] = i == j ? -1 : (i * P + j) < k + 1 ? (i * P + j - 1) % k : (int)(next_u32() % (uint32_t)k);
    for (int u = 0; u < k; u++) {
        r->clusters[u].id = u;
        r->clusters[u].mean = calloc((size_t)nlen, sizeof(double));
        for (int l = 0; l < nlen; l++)
            r->clusters[u].mean[l] = (0.4 + 0.37 * u) * 1e-6 + l * 1.7e-7 * (1 + 0.1 * u);
    }
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++)
            if (i != j)
                r->clusters[r->label[i * P + j]].size++;
    return r;
}

static void fake_free(struct lens_links *r)
{
    for (int u = 0; u < r->k; u++)
        free(r->clusters[u].mean);
    free(r->clusters);
    free(r->label);
    free(r->lengths);
    free(r);
}

/* How many fill:rgb(r%,g%,b%) of colour rgb the SVG text has (cairo prints %g-like values). */
static int svg_fills(const char *text, const double rgb[3])
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, "fill:rgb(")); p++) {
        double c[3];
        if (sscanf(p, "fill:rgb(%lf%%,%lf%%,%lf%%)", &c[0], &c[1], &c[2]) == 3 && fabs(c[0] - 100 * rgb[0]) < 0.01 &&
            fabs(c[1] - 100 * rgb[1]) < 0.01 && fabs(c[2] - 100 * rgb[2]) < 0.01)
            n++;
    }
    return n;
}

/* Cells of at least 3 pixels: the pixel at each cell's centre has its cluster's colour. */
static int check_cells(cairo_surface_t *img, const struct lens_links *r, double ox, double oy,
                       const struct lens_linkmap_layout *L, const char *what)
{
    int P = r->procs, bad = 0;
    unsigned char *d = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    double c = L->map_w / P;
    if (c < 3)
        return -1;
    for (int i = 0; i < P; i++)
        for (int j = 0; j < P; j++) {
            int x = (int)floor(ox + L->map_x + (j + 0.5) * c), y = (int)floor(oy + L->map_y + (i + 0.5) * c);
            uint32_t px = *(uint32_t *)(void *)(d + (size_t)y * stride + 4 * x);
            unsigned char want[3];
            lens_linkmap_rgb8(r->label[i * P + j], want);
            uint32_t w = (uint32_t)want[0] << 16 | (uint32_t)want[1] << 8 | want[2];
            if ((px & 0xffffff) != w && bad++ < 3)
                fprintf(stderr, "%s: cell (%d,%d) pixel %06x want %06x (cluster %d)\n", what, i, j,
                        (unsigned)(px & 0xffffff), (unsigned)w, r->label[i * P + j]);
        }
    return bad;
}

static void test_map(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    /* distinct colours: the first 64 ids differ, then they repeat; the diagonal is grey */
    unsigned char a[3], b[3];
    /* sum of channel differences: >= 100 among the first 16, >= 30 among all */
    int closest16 = 1000, closest = 1000;
    for (int u = 0; u < LENS_LINKMAP_PALETTE; u++)
        for (int v = u + 1; v < LENS_LINKMAP_PALETTE; v++) {
            lens_linkmap_rgb8(u, a);
            lens_linkmap_rgb8(v, b);
            int d = abs(a[0] - b[0]) + abs(a[1] - b[1]) + abs(a[2] - b[2]);
            closest = d < closest ? d : closest;
            if (v < 16)
                closest16 = d < closest16 ? d : closest16;
        }
    LENS_TEST(closest16 >= 100 && closest >= 30, "palette: closest pair %d among 16, %d among all", closest16, closest);
    lens_linkmap_rgb8(LENS_LINKMAP_PALETTE + 3, a);
    lens_linkmap_rgb8(3, b);
    LENS_TEST(!memcmp(a, b, 3), "palette repeats after %d", LENS_LINKMAP_PALETTE);
    lens_linkmap_rgb8(-1, a);
    LENS_TEST(a[0] == a[1] && a[1] == a[2] && a[0] > 200, "diagonal is a light grey");

    static const char *const hosts[11] = {"nodeA", "nodeA", "nodeA", "nodeA", "nodeB", "nodeB",
                                          "nodeB", "nodeC", "nodeC", "nodeC", "nodeC"};
    for (int variant = 0; variant < 3; variant++) {
        int P = variant == 2 ? 300 : 11, k = variant == 2 ? 23 : 7;
        struct lens_links *r = fake_links(P, k, 6);
        struct lens_linkmap_opts o;
        lens_linkmap_opts_init(&o);
        o.font_path = FONT;
        if (variant == 2) {
            o.width = 1900;
            o.height = 1300;
        }
        if (variant == 1)
            o.labels = hosts;
        struct lens_linkmap_layout L;
        LENS_TEST(lens_linkmap_layout(r, &o, &L, &e) == LENS_OK, "layout: %s", e.msg);
        char *png = lens_scratch_path("map.png");
        LENS_TEST(lens_linkmap_write(png, r, &o, &e) == LENS_OK, "write png: %s", e.msg);
        cairo_surface_t *img = cairo_image_surface_create_from_png(png);
        LENS_TEST(cairo_surface_status(img) == CAIRO_STATUS_SUCCESS, "png reads back");
        LENS_TEST(cairo_image_surface_get_width(img) == o.width && cairo_image_surface_get_height(img) == o.height,
                  "png size");
        if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS)
            LENS_TEST(check_cells(img, r, 0, 0, &L, "png") == 0, "variant %d: cells have their cluster's colour",
                      variant);
        cairo_surface_destroy(img);
        /* the same bytes again, and in memory */
        LENS_TEST(lens_linkmap_write(lens_scratch_path("map2.png"), r, &o, &e) == LENS_OK, "write again: %s", e.msg);
        LENS_TEST(same_file(png, lens_scratch_path("map2.png")), "variant %d: png byte-identical", variant);
        unsigned char *mem = NULL;
        size_t len = 0, flen = 0;
        LENS_TEST(lens_linkmap_png_mem(r, &o, &mem, &len, &e) == LENS_OK, "png_mem: %s", e.msg);
        unsigned char *file = slurp(png, &flen);
        LENS_TEST(print_of(mem, len, file, flen), "png_mem is the file at the print scale");
        lens_free(mem);
        free(file);
        /* SVG: vector cells (runs) in each cluster's colour up to 256 processes, else an image */
        char *svg = lens_scratch_path("map.svg");
        LENS_TEST(lens_linkmap_write(svg, r, &o, &e) == LENS_OK, "write svg: %s", e.msg);
        LENS_TEST(lens_linkmap_write(lens_scratch_path("map2.svg"), r, &o, &e) == LENS_OK, "write svg again: %s", e.msg);
        LENS_TEST(same_file(svg, lens_scratch_path("map2.svg")), "variant %d: svg byte-identical", variant);
        size_t sl;
        char *text = (char *)slurp(svg, &sl);
        if (variant < 2) {
            for (int u = 0; u < k; u++) {
                double rgb[3];
                lens_linkmap_colour(u, rgb);
                /* the legend swatch and at least one run of cells */
                LENS_TEST(text && svg_fills(text, rgb) >= 2, "svg fills cluster %d's colour", u);
            }
            LENS_TEST(text && !strstr(text, "<image"), "small svg map has no raster");
        } else {
            LENS_TEST(text && strstr(text, "<image"), "large svg map is a raster");
        }
        free(text);
        /* drawn into a box of a bigger surface: the same cells, shifted */
        if (variant < 2) {
            cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, o.width + 90, o.height + 70);
            cairo_t *cr = cairo_create(s);
            LENS_TEST(lens_linkmap_draw(cr, 60, 40, o.width, o.height, r, &o, &e) == LENS_OK, "draw: %s", e.msg);
            cairo_destroy(cr);
            cairo_surface_flush(s);
            LENS_TEST(check_cells(s, r, 60, 40, &L, "draw") == 0, "draw into a box: cells in place");
            cairo_surface_destroy(s);
        }
        /* the curves: PNG and SVG, deterministic, in memory as on disk */
        struct lens_linkcurves_opts co;
        lens_linkcurves_opts_init(&co);
        co.font_path = FONT;
        LENS_TEST(lens_linkcurves_write(lens_scratch_path("c.svg"), r, &co, &e) == LENS_OK, "curves svg: %s", e.msg);
        LENS_TEST(lens_linkcurves_write(lens_scratch_path("c2.svg"), r, &co, &e) == LENS_OK, "curves svg again: %s", e.msg);
        LENS_TEST(same_file(lens_scratch_path("c.svg"), lens_scratch_path("c2.svg")), "curves svg byte-identical");
        LENS_TEST(lens_linkcurves_write(lens_scratch_path("c.png"), r, &co, &e) == LENS_OK, "curves png: %s", e.msg);
        LENS_TEST(lens_linkcurves_png_mem(r, &co, &mem, &len, &e) == LENS_OK, "curves png_mem: %s", e.msg);
        file = slurp(lens_scratch_path("c.png"), &flen);
        LENS_TEST(print_of(mem, len, file, flen), "curves png_mem is the file at the print scale");
        lens_free(mem);
        free(file);
        fake_free(r);
    }
}

static void test_map_errors(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_links *r = fake_links(9, 3, 4);
    struct lens_linkmap_opts o;
    lens_linkmap_opts_init(&o);
    o.font_path = FONT;
    char *bad = lens_scratch_path("map.jpg");
    LENS_TEST(lens_linkmap_write(bad, r, &o, &e) == LENS_EINVAL && strstr(e.msg, bad), "bad extension: %s", e.msg);
    LENS_TEST(!lens_scratch_exists(bad), "nothing written for a bad extension");
    LENS_TEST(lens_linkcurves_write(bad, r, NULL, &e) == LENS_EINVAL && strstr(e.msg, bad), "curves bad extension");
    char *nodir = lens_scratch_path("no/such/dir/map.png");
    LENS_TEST(lens_linkmap_write(nodir, r, &o, &e) == LENS_EIO && strstr(e.msg, "no/such/dir/map.png"),
              "unwritable png: %s", e.msg);
    nodir = lens_scratch_path("no/such/dir/map.svg");
    LENS_TEST(lens_linkmap_write(nodir, r, &o, &e) == LENS_EIO && strstr(e.msg, "no/such/dir/map.svg"),
              "unwritable svg: %s", e.msg);
    LENS_TEST(lens_linkcurves_write(nodir, r, &(struct lens_linkcurves_opts){.log_x = -1, .log_y = -1, .width = 800,
                                                                               .height = 500},
                                    &e) == LENS_EIO,
              "curves unwritable: %s", e.msg);
    o.font_path = lens_scratch_path("missing.ttf");
    LENS_TEST(lens_linkmap_write(lens_scratch_path("m.png"), r, &o, &e) == LENS_EIO && strstr(e.msg, "missing.ttf"),
              "missing font: %s", e.msg);
    o.font_path = FONT;
    o.width = 100;
    LENS_TEST(lens_linkmap_write(lens_scratch_path("m.png"), r, &o, &e) == LENS_EINVAL, "figure too small");
    LENS_TEST(!lens_scratch_exists(lens_scratch_path("m.png")), "nothing written for a bad size");
    LENS_TEST(lens_linkmap_write(lens_scratch_path("m.png"), NULL, NULL, &e) == LENS_EINVAL, "no clustering");
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 200, 200);
    cairo_t *cr = cairo_create(s);
    LENS_TEST(lens_linkmap_draw(cr, 0, 0, 60, 40, r, NULL, &e) == LENS_EINVAL && strstr(e.msg, "too small"),
              "box too small: %s", e.msg);
    LENS_TEST(lens_linkcurves_draw(cr, 0, 0, 60, 40, r, NULL, &e) == LENS_EINVAL, "curves box too small");
    LENS_TEST(cairo_status(cr) == CAIRO_STATUS_SUCCESS, "cr still usable");
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    /* a forced log axis over a zero delay */
    struct lens_linkcurves_opts co;
    lens_linkcurves_opts_init(&co);
    co.log_y = 1;
    for (int u = 0; u < r->k; u++)
        r->clusters[u].mean[0] = 0;
    LENS_TEST(lens_linkcurves_write(lens_scratch_path("c.png"), r, &co, &e) == LENS_OK, "log y with some zeros: %s", e.msg);
    for (int u = 0; u < r->k; u++)
        for (int l = 0; l < r->nlen; l++)
            r->clusters[u].mean[l] = 0;
    LENS_TEST(lens_linkcurves_write(lens_scratch_path("c0.png"), r, &co, &e) == LENS_EINVAL && strstr(e.msg, "log"),
              "log y over zeros only: %s", e.msg);
    co.log_y = 3;
    LENS_TEST(lens_linkcurves_write(lens_scratch_path("c0.png"), r, &co, &e) == LENS_EINVAL, "log_y out of range");
    LENS_TEST(!lens_scratch_exists(lens_scratch_path("c0.png")), "nothing written");
    LENS_TEST(lens_scratch_leftovers() == 0, "no temporary files left");
    fake_free(r);
}

/* A cube with blocks of 4 processes, noise, one slow link; stat median. */
static struct lens_cube *make_cube(int P, int L)
{
    struct lens_cube *c;
    struct lens_err e;
    if (lens_cube_new(&c, P, L, 0, 1000, 1u << LENS_STAT_MEDIAN, &e) != LENS_OK)
        return NULL;
    for (int k = 0; k < L; k++)
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                double base = i / 4 == j / 4 ? 0.8e-6 : i / 8 == j / 8 ? 1.9e-6 : 3.3e-6;
                double noise = 1 + 0.06 * ((next_u32() % 20001) / 10000.0 - 1);
                double v = i == j ? 0 : (base + k * 2.1e-10 * (1 + (i + j) % 3)) * noise;
                if (i == 5 && j == 17)
                    v *= 3.1;
                LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j) = v;
            }
    return c;
}

static void test_slices(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    int P = 24, L = 7;
    struct lens_cube *c = make_cube(P, L);
    LENS_TEST(c != NULL, "cube");
    if (!c)
        return;
    struct lens_packed_encoder *z;
    struct lens_packed *p[LENS_STAT_COUNT] = {NULL};
    LENS_TEST(lens_packed_encoder_new(&z, P, L, 0.05, &e) == LENS_OK, "compress: %s", e.msg);
    for (int k = 0; k < L; k++)
        lens_packed_encoder_put(z, c->data[LENS_STAT_MEDIAN] + (size_t)k * P * P, &e);
    LENS_TEST(lens_packed_encoder_finish(z, &p[LENS_STAT_MEDIAN], &e) == LENS_OK, "finish: %s", e.msg);

    /* picking: nearest, deduplicated, sorted; default first/middle/last */
    int idx[LENS_CUBE_SLICES_MAX];
    int want[4] = {5999, 1000000, 1499, 1501};
    int n = lens_cube_slices_pick(c->lengths, L, want, 4, idx);
    LENS_TEST(n == 3 && idx[0] == 1 && idx[1] == 2 && idx[2] == 6, "pick: n=%d %d %d %d", n, idx[0], idx[1], idx[2]);
    n = lens_cube_slices_pick(c->lengths, L, NULL, 0, idx);
    LENS_TEST(n == 3 && idx[0] == 0 && idx[1] == 3 && idx[2] == 6, "pick default");

    struct lens_cube_slices *s;
    int w2[3] = {0, 3000, 6000};
    LENS_TEST(lens_cube_slices_from_packed(c, LENS_STAT_MEDIAN, p[LENS_STAT_MEDIAN], w2, 3, &s, &e) == LENS_OK,
              "from_packed: %s", e.msg);
    /* independent pass: decode everything, recompute the errors of the chosen lengths */
    struct lens_packed_decoder *u;
    double *mat = malloc(sizeof(double) * P * P);
    lens_packed_decoder_new(&u, p[LENS_STAT_MEDIAN], &e);
    int t = 0;
    for (int k = 0; k < L; k++) {
        lens_packed_decoder_next(u, mat, &e);
        if (t < s->n && c->lengths[k] == s->lengths[t]) {
            double mx = 0, s2 = 0;
            long cnt = 0;
            int same = 1;
            for (int i = 0; i < P; i++)
                for (int j = 0; j < P; j++) {
                    double v = LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j), d = mat[i * P + j];
                    same &= s->dec[(size_t)t * P * P + i * P + j] == d &&
                            s->orig[(size_t)t * P * P + i * P + j] == v;
                    if (i == j)
                        continue;
                    double r = fabs(d - v) / fabs(v);
                    mx = r > mx ? r : mx;
                    s2 += r * r;
                    cnt++;
                }
            LENS_TEST(same, "slice %d: matrices are length %d's", t, c->lengths[k]);
            LENS_TEST_REL(s->err_max[t], mx, 1e-12, "slice %d max error", t);
            LENS_TEST_REL(s->err_rms[t], sqrt(s2 / cnt), 1e-12, "slice %d rms error", t);
            LENS_TEST(s->err_n[t] == (long)P * (P - 1), "slice %d counts the off-diagonal", t);
            LENS_TEST(s->err_max[t] <= 0.05 + 1e-9 && s->err_max[t] > 0.001, "slice %d error within the bound", t);
            t++;
        }
    }
    LENS_TEST(t == 3 && s->lengths[0] == 0 && s->lengths[1] == 3000 && s->lengths[2] == 6000, "three slices");
    lens_packed_decoder_free(u);
    free(mat);

    /* pixels: both panels are the viridis entries of their values on the row's range */
    struct lens_slices_opts o;
    lens_slices_opts_init(&o);
    o.font_path = FONT;
    struct lens_slices_layout Lo;
    LENS_TEST(lens_slices_layout(s, &o, &Lo, &e) == LENS_OK, "layout: %s", e.msg);
    LENS_TEST(Lo.height == 110 + 330 * 3 && Lo.width == 1200, "automatic size %dx%d", Lo.width, Lo.height);
    char *png = lens_scratch_path("slices.png");
    LENS_TEST(lens_slices_write(png, s, &o, &e) == LENS_OK, "write: %s", e.msg);
    cairo_surface_t *img = cairo_image_surface_create_from_png(png);
    LENS_TEST(cairo_surface_status(img) == CAIRO_STATUS_SUCCESS, "png reads back");
    if (cairo_surface_status(img) == CAIRO_STATUS_SUCCESS) {
        uint32_t lut[LENS_CMAP_SIZE], grey[LENS_CMAP_SIZE];
        lens_colormap_lut(LENS_CMAP_VIRIDIS, lut);
        lens_colormap_lut(LENS_CMAP_GREY, grey);
        unsigned char *d = cairo_image_surface_get_data(img);
        int stride = cairo_image_surface_get_stride(img), bad = 0;
        double cw = Lo.side / P;
        for (t = 0; t < s->n; t++) {
            double lo = INFINITY, hi = -INFINITY;
            for (int q = 0; q < 2 * P * P; q++) {
                int i = (q % (P * P)) / P, j = q % P;
                double v = (q < P * P ? s->orig : s->dec)[(size_t)t * P * P + q % (P * P)];
                if (i != j) {
                    lo = fmin(lo, v);
                    hi = fmax(hi, v);
                }
            }
            LENS_TEST(Lo.vmin[t] == lo && Lo.vmax[t] == hi, "slice %d: range", t);
            LENS_TEST(Lo.emax[t] == 0.05, "slice %d: error scale up to the bound", t);
            /* the error panel: grey entry of |dec - orig| / |orig| over [0, bound] */
            for (int i = 0; i < P; i++)
                for (int j = 0; j < P; j++) {
                    if (i == j)
                        continue;
                    size_t q = (size_t)t * P * P + i * P + j;
                    double r = fabs(s->dec[q] - s->orig[q]) / fabs(s->orig[q]);
                    int x = (int)floor(Lo.err_x[t] + (j + 0.5) * cw), y = (int)floor(Lo.y[t] + (i + 0.5) * cw);
                    uint32_t px = *(uint32_t *)(void *)(d + (size_t)y * stride + 4 * x) & 0xffffff;
                    bad += px != (grey[lens_colormap_index(r / 0.05)] & 0xffffff);
                }
            for (int b = 0; b < 2; b++)
                for (int i = 0; i < P; i++)
                    for (int j = 0; j < P; j++) {
                        if (i == j)
                            continue;
                        double v = (b ? s->dec : s->orig)[(size_t)t * P * P + i * P + j];
                        int x = (int)floor((b ? Lo.dec_x[t] : Lo.orig_x[t]) + (j + 0.5) * cw);
                        int y = (int)floor(Lo.y[t] + (i + 0.5) * cw);
                        uint32_t px = *(uint32_t *)(void *)(d + (size_t)y * stride + 4 * x) & 0xffffff;
                        uint32_t wpx = lut[lens_colormap_index((v - lo) / (hi - lo))] & 0xffffff;
                        bad += px != wpx;
                    }
        }
        LENS_TEST(bad == 0, "%d panel cells with the wrong colour", bad);
    }
    cairo_surface_destroy(img);
    LENS_TEST(lens_slices_write(lens_scratch_path("slices2.png"), s, &o, &e) == LENS_OK, "write again");
    LENS_TEST(same_file(png, lens_scratch_path("slices2.png")), "slices png byte-identical");
    LENS_TEST(lens_slices_write(lens_scratch_path("s.svg"), s, &o, &e) == LENS_OK, "svg: %s", e.msg);
    LENS_TEST(lens_slices_write(lens_scratch_path("s2.svg"), s, &o, &e) == LENS_OK, "svg again");
    LENS_TEST(same_file(lens_scratch_path("s.svg"), lens_scratch_path("s2.svg")), "slices svg byte-identical");
    unsigned char *mem;
    size_t len, flen;
    LENS_TEST(lens_slices_png_mem(s, &o, &mem, &len, &e) == LENS_OK, "png_mem: %s", e.msg);
    unsigned char *file = slurp(png, &flen);
    LENS_TEST(print_of(mem, len, file, flen), "slices png_mem is the file at the print scale");
    lens_free(mem);
    free(file);

    /* from the cube written to disk and streamed back: the same slices; the one-call form */
    char *prefix = lens_scratch_path("n");
    struct lens_cube_stream *in = NULL;
    LENS_TEST(lens_cube_write(c, prefix, NULL, &e) == LENS_OK, "cube write: %s", e.msg);
    LENS_TEST(lens_cube_stream_open(prefix, &in, &e) == LENS_OK, "stream open: %s", e.msg);
    struct lens_cube_slices *fs = NULL;
    LENS_TEST(in && lens_cube_slices_from_stream(in, LENS_STAT_MEDIAN, p[LENS_STAT_MEDIAN], w2, 3, &fs, &e) == LENS_OK,
              "from_stream: %s", e.msg);
    LENS_TEST(fs && fs->n == 3 && !memcmp(fs->orig, s->orig, sizeof(double) * 3 * P * P) &&
                  !memcmp(fs->dec, s->dec, sizeof(double) * 3 * P * P) && fs->err_max[2] == s->err_max[2],
              "streamed slices equal the in-memory ones");
    lens_cube_slices_free(fs);
    /* what `compress --plot` slices: the median when it is packed, the same matrices */
    char sum[512];
    LENS_TEST(in && lens_cube_slices_from_stream_packed(in, p, w2, 3, &fs, &e) == LENS_OK, "from_stream_packed: %s",
              e.msg);
    LENS_TEST(fs && fs->stat == LENS_STAT_MEDIAN && fs->n == 3 && !memcmp(fs->orig, s->orig, sizeof(double) * 3 * P * P) &&
                  !memcmp(fs->dec, s->dec, sizeof(double) * 3 * P * P),
              "the median is sliced, as in memory");
    if (fs)
        lens_cube_slices_summary(fs, sum, sizeof sum);
    LENS_TEST(fs && strstr(sum, "median: 0 B max error") && strstr(sum, "; 6000 B max error"), "summary: %s", sum);
    lens_cube_slices_free(fs);
    fs = NULL;
    /* a statistic packed but not in the cube (only the median is) does not count */
    struct lens_packed *only_min[LENS_STAT_COUNT] = {NULL};
    only_min[LENS_STAT_MIN] = p[LENS_STAT_MEDIAN];
    LENS_TEST(in && lens_cube_slices_from_stream_packed(in, only_min, NULL, 0, &fs, &e) == LENS_EINVAL && !fs,
              "packed but absent from the cube: %s", e.msg);
    LENS_TEST(in && lens_cube_slices_from_stream_packed(in, (struct lens_packed *[LENS_STAT_COUNT]){NULL}, NULL, 0, &fs,
                                                        &e) == LENS_EINVAL &&
                  !fs && strstr(e.msg, "no statistic both in the cube and packed"),
              "nothing packed: %s", e.msg);
    /* a tiny summary buffer is cut, never overrun */
    char tiny[8];
    memset(tiny, 'x', sizeof tiny);
    if (s)
        lens_cube_slices_summary(s, tiny, 6);
    LENS_TEST(tiny[5] == '\0' && tiny[6] == 'x', "summary cut to its buffer");
    LENS_TEST(in && lens_cube_slices_from_stream(in, LENS_STAT_MIN, p[LENS_STAT_MEDIAN], NULL, 0, &fs, &e) == LENS_EINVAL &&
                  strstr(e.msg, "min"),
              "statistic not in the stream: %s", e.msg);
    lens_cube_stream_close(in);

    /* errors */
    char *bad = lens_scratch_path("s.gif");
    LENS_TEST(lens_slices_write(bad, s, &o, &e) == LENS_EINVAL && strstr(e.msg, bad), "bad extension: %s", e.msg);
    LENS_TEST(lens_slices_write(lens_scratch_path("x/y/s.png"), s, &o, &e) == LENS_EIO && strstr(e.msg, "x/y/s.png"),
              "unwritable: %s", e.msg);
    LENS_TEST(!lens_scratch_exists(bad), "nothing written");
    o.height = 200;
    LENS_TEST(lens_slices_write(lens_scratch_path("small.png"), s, &o, &e) == LENS_EINVAL, "too small: %s", e.msg);
    LENS_TEST(!lens_scratch_exists(lens_scratch_path("small.png")), "nothing written for a bad size");
    struct lens_cube_slices *s2 = s;
    LENS_TEST(lens_cube_slices_new(&s2, 4, LENS_CUBE_SLICES_MAX + 1, &e) == LENS_EINVAL && s2 == NULL, "too many slices");
    LENS_TEST(lens_cube_slices_from_packed(c, LENS_STAT_AVERAGE, p[LENS_STAT_MEDIAN], NULL, 0, &s2, &e) == LENS_EINVAL &&
                  strstr(e.msg, "average"),
              "absent statistic: %s", e.msg);
    LENS_TEST(lens_scratch_leftovers() == 0, "no temporary files left");
    /* every allocation failing in turn */
    int clean = 1;
    for (long k = 1; k < 200; k++) {
        struct lens_cube_slices *f = NULL;
        lens_malloc_fail_after(k);
        int rc = lens_cube_slices_from_packed(c, LENS_STAT_MEDIAN, p[LENS_STAT_MEDIAN], NULL, 0, &f, &e);
        lens_malloc_fail_after(0);
        clean &= rc == LENS_OK ? f != NULL : (f == NULL && rc == LENS_ENOMEM);
        lens_cube_slices_free(f);
        if (rc == LENS_OK)
            break;
    }
    LENS_TEST(clean, "allocation failures give LENS_ENOMEM and no result");
    lens_cube_slices_free(s);
    lens_packed_free(p[LENS_STAT_MEDIAN]);
    lens_cube_free(c);
}

static cairo_status_t count_bytes(void *closure, const unsigned char *data, unsigned int len)
{
    (void)data;
    *(size_t *)closure += len;
    return CAIRO_STATUS_SUCCESS;
}

/* All three figures drawn side by side into boxes of one PDF page (vector cells for the map). */
static void test_pdf(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    size_t bytes = 0;
    cairo_surface_t *pdf = cairo_pdf_surface_create_for_stream(count_bytes, &bytes, 1800, 700);
    cairo_t *cr = cairo_create(pdf);
    struct lens_links *r = fake_links(12, 4, 5);
    struct lens_cube *c = make_cube(12, 5);
    struct lens_cube_slices *s = NULL;
    LENS_TEST(lens_cube_slices_new(&s, 12, 2, &e) == LENS_OK, "slices_new: %s", e.msg);
    for (int t = 0; s && t < 2; t++) {
        s->lengths[t] = t * 4000;
        for (int q = 0; q < 144; q++) {
            s->orig[t * 144 + q] = c->data[LENS_STAT_MEDIAN][t * 4 * 144 + q];
            s->dec[t * 144 + q] = s->orig[t * 144 + q] * (1 + 0.01 * ((q * 7) % 5 - 2));
        }
    }
    if (s)
        lens_cube_slices_measure(s);
    LENS_TEST(s && s->err_max[1] > 0.0199 && s->err_max[1] < 0.0201, "measure: 2%% off at most");
    LENS_TEST(lens_linkmap_draw(cr, 0, 0, 700, 500, r, NULL, &e) == LENS_OK, "pdf map: %s", e.msg);
    LENS_TEST(lens_linkcurves_draw(cr, 700, 0, 600, 400, r, NULL, &e) == LENS_OK, "pdf curves: %s", e.msg);
    LENS_TEST(lens_slices_draw(cr, 1300, 0, 500, 700, s, NULL, &e) == LENS_OK, "pdf slices: %s", e.msg);
    cairo_destroy(cr);
    cairo_surface_finish(pdf);
    LENS_TEST(cairo_surface_status(pdf) == CAIRO_STATUS_SUCCESS && bytes > 1000, "pdf written (%zu bytes)", bytes);
    cairo_surface_destroy(pdf);
    lens_cube_slices_free(s);
    lens_cube_free(c);
    fake_free(r);
}

int main(void)
{
    if (lens_scratch_open("mpilens-linkpics") != 0)
        return 1;
    test_map();
    test_map_errors();
    test_slices();
    test_pdf();
    lens_scratch_close();
    return LENS_TEST_DONE("test_linkpics");
}
