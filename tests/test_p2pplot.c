/* The p2p figures and tables on a sweep built here (an intra pair following 1.37 us + s/9.1 GB/s
 * and an inter pair 4.2 us + s/1.17 GB/s): the PNG in memory equals the file, the drawing stays
 * inside the box it is given, each pair's colour and the marker shapes appear where the
 * log-log mapping puts them, the 0 B column, an empty figure, captions, table cells, the PDF
 * section, argument errors and allocation failures. */
#include "render/fig/figure.h"
#include "render/fig/p2pplot.h"
#include "lens_test.h"

#include <cairo-pdf.h>

#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/mpilens-p2pplot-XXXXXX";
#define NS 14

static struct lens_p2p_point pts[2][NS];
static struct lens_p2p_pair pairs[2];
static struct lens_p2pfile file;

static void build(void)
{
    const double alpha[2] = {1.37e-6, 4.2e-6}, beta[2] = {9.1e9, 1.17e9};
    static char *labels[2] = {"intra n1, ranks 0-1", "inter n1-n2, ranks 0-7"};
    static char *kinds[2] = {"intra", "inter"};
    for (int p = 0; p < 2; p++) {
        for (int k = 0; k < NS; k++) {
            struct lens_p2p_point *q = &pts[p][k];
            long long s = k ? 1LL << (2 * (k - 1)) : 0; /* 0, 1, 4, 16, ... 4 MiB */
            double L = alpha[p] + (double)s / beta[p], T = 64 * L * 1.3;
            memset(q, 0, sizeof *q);
            q->size_bytes = s;
            q->latency_median_s = L;
            q->latency_min_s = 0.93 * L;
            q->latency_max_s = 7.1 * L;
            q->latency_s = 1.21 * L;
            q->bandwidth_median_Bps = 64 * (double)s / T;
            q->bandwidth_min_Bps = 0.5 * q->bandwidth_median_Bps;
            q->bandwidth_max_Bps = 1.1 * q->bandwidth_median_Bps;
            q->bandwidth_Bps = 0.9 * q->bandwidth_median_Bps;
            q->msg_rate_median_per_s = 64 / T;
            q->msg_rate_per_s = 0.9 * 64 / T;
            q->msg_rate_min_per_s = 0.5 * 64 / T;
            q->msg_rate_max_per_s = 1.1 * 64 / T;
            q->bw_time_s = T;
        }
        pairs[p].label = labels[p];
        pairs[p].kind = kinds[p];
        pairs[p].host_a = "n1";
        pairs[p].host_b = p ? "n2" : "n1";
        pairs[p].rank_a = 0;
        pairs[p].rank_b = p ? 7 : 1;
        pairs[p].inter = p;
        pairs[p].nsize = NS;
        pairs[p].pt = pts[p];
    }
    file.path = "synthetic_p2p.nc";
    file.is_nc = 1;
    file.window = 64;
    file.npairs = 2;
    file.pair = pairs;
}

/* Pixels of (r, g, b) (0..255) in the image inside [x0, x1) x [y0, y1). */
static long count_rgb(cairo_surface_t *s, int r, int g, int b, int x0, int y0, int x1, int y1)
{
    cairo_surface_flush(s);
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    long n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            uint32_t px = *(uint32_t *)(d + (size_t)y * stride + (size_t)x * 4);
            n += (int)((px >> 16) & 255) == r && (int)((px >> 8) & 255) == g && (int)(px & 255) == b;
        }
    return n;
}

static long count_not_white(cairo_surface_t *s, int x0, int y0, int x1, int y1, int inside)
{
    cairo_surface_flush(s);
    int W = cairo_image_surface_get_width(s), H = cairo_image_surface_get_height(s);
    unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    long n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int in = x >= x0 && x < x1 && y >= y0 && y < y1;
            uint32_t px = *(uint32_t *)(d + (size_t)y * stride + (size_t)x * 4);
            n += in == inside && (px & 0xFFFFFF) != 0xFFFFFF;
        }
    return n;
}

static void draw_in_box(void)
{
    struct lens_err e;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1300, 900);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_font_face_t *face = NULL;
    LENS_TEST(lens_figure_font_load("fonts/DejaVuSans.ttf", &face, &e) == LENS_OK, "font: %s", e.msg);
    struct lens_p2pplot_opts o;
    lens_p2pplot_opts_init(&o);
    lens_err_clear(&e);
    LENS_TEST(lens_p2pplot_draw(cr, &file, LENS_P2PPLOT_LATENCY, &o, face, 217, 143, 800, 520, &e) == LENS_OK,
              "draw: %s", e.msg);
    LENS_TEST(cairo_status(cr) == CAIRO_STATUS_SUCCESS, "cairo status");
    LENS_TEST(count_not_white(s, 217, 143, 217 + 800, 143 + 520, 0) == 0, "nothing drawn outside the box");
    LENS_TEST(count_not_white(s, 217, 143, 217 + 800, 143 + 520, 1) > 5000, "the box is drawn in");
    /* both pair colours appear (vermilion and blue of the palette) */
    long c0 = count_rgb(s, 213, 94, 0, 217, 143, 1017, 663), c1 = count_rgb(s, 0, 114, 178, 217, 143, 1017, 663);
    LENS_TEST(c0 > 300 && c1 > 300, "pair colours: %ld and %ld pixels", c0, c1);

    /* Marker shapes: an inter square fills its corners, an intra circle does not. The legend
     * puts the circle of pair 0 and the square of pair 1 at known rows: find them by colour
     * in the legend column (right third) and compare their bounding boxes' fill ratio. */
    for (int p = 0; p < 2; p++) {
        int r = p ? 0 : 213, g = p ? 114 : 94, b = p ? 178 : 0;
        int xmin = 9999, xmax = -1, ymin = 9999, ymax = -1;
        cairo_surface_flush(s);
        unsigned char *d = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s);
        /* markers of the 0 B column: left part of the plot, the only coloured pixels there */
        for (int y = 143; y < 663; y++)
            for (int x = 217; x < 318; x++) {
                uint32_t px = *(uint32_t *)(d + (size_t)y * stride + (size_t)x * 4);
                if ((int)((px >> 16) & 255) == r && (int)((px >> 8) & 255) == g && (int)(px & 255) == b) {
                    xmin = x < xmin ? x : xmin, xmax = x > xmax ? x : xmax;
                    ymin = y < ymin ? y : ymin, ymax = y > ymax ? y : ymax;
                }
            }
        long area = (long)(xmax - xmin + 1) * (ymax - ymin + 1), filled = count_rgb(s, r, g, b, xmin, ymin, xmax + 1, ymax + 1);
        LENS_TEST(xmax >= 0 && xmax - xmin < 20, "pair %d: one 0 B marker (%d..%d)", p, xmin, xmax);
        if (xmax >= 0 && area > 0) {
            double ratio = (double)filled / (double)area;
            if (p)
                LENS_TEST(ratio > 0.9, "inter: a square marker (fill %.2f)", ratio);
            else
                LENS_TEST(ratio < 0.85, "intra: a round marker (fill %.2f)", ratio);
        }
        /* the 0 B latency is lower for pair 0 (1.37 us) than pair 1 (4.2 us): higher on the page */
        static int y0mark[2];
        y0mark[p] = (ymin + ymax) / 2;
        if (p)
            LENS_TEST(y0mark[0] > y0mark[1], "0 B markers: intra at y %d below inter at y %d", y0mark[0], y0mark[1]);
    }
    LENS_TEST(lens_p2pplot_draw(cr, &file, 7, &o, face, 0, 0, 800, 500, &e) == LENS_EINVAL && strstr(e.msg, "synthetic_p2p.nc"),
              "bad metric: %s", e.msg);
    LENS_TEST(lens_p2pplot_draw(cr, &file, 0, &o, face, 0, 0, 50, 500, &e) == LENS_EINVAL && strstr(e.msg, "too small"),
              "small box: %s", e.msg);
    cairo_font_face_destroy(face);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

static void files(void)
{
    struct lens_err e;
    struct lens_p2pplot_opts o;
    lens_p2pplot_opts_init(&o);
    o.font_path = "fonts/DejaVuSans.ttf";
    unsigned char *png = NULL;
    size_t len = 0;
    char path[512];
    for (int m = 0; m < LENS_P2PPLOT_NMETRICS; m++) {
        lens_err_clear(&e);
        LENS_TEST(lens_p2pplot_png_mem(&file, m, &o, &png, &len, &e) == LENS_OK && len > 1000, "png_mem %d: %s", m, e.msg);
        snprintf(path, sizeof path, "%s/%s.png", dir, lens_p2pplot_metric_name(m));
        LENS_TEST(lens_p2pplot_write(&file, m, &o, path, &e) == LENS_OK, "write %s: %s", path, e.msg);
        FILE *fp = fopen(path, "rb");
        unsigned char *disk = malloc(len + 16);
        size_t n = fp ? fread(disk, 1, len + 16, fp) : 0;
        if (fp)
            fclose(fp);
        /* the file has the natural size, the bytes for the PDF the print size (figure.h) */
        LENS_TEST(n > 24 && disk[19] == (900 & 255) && disk[18] == (900 >> 8) && disk[23] == (560 & 255) &&
                      disk[22] == (560 >> 8), "%s is 900x560", path);
        double k = lens_figure_print_scale(900);
        unsigned pw = (unsigned)ceil(900 * k), ph = (unsigned)ceil(560 * k);
        LENS_TEST(len > 24 && png[19] == (pw & 255) && png[18] == (pw >> 8) && png[23] == (ph & 255) && png[22] == (ph >> 8),
                  "png_mem is %ux%u", pw, ph);
        free(disk);
        lens_free(png);
        png = NULL;
    }
    LENS_TEST(lens_p2pplot_write_dir(&file, &o, dir, "s", &e) == LENS_OK, "write_dir: %s", e.msg);
    static const char *const names[6] = {"s_latency.png", "s_latency.svg", "s_bandwidth.png", "s_bandwidth.svg",
                                         "s_msg_rate.png", "s_msg_rate.svg"};
    for (int i = 0; i < 6; i++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        LENS_TEST(stat(path, &st) == 0 && st.st_size > 1000, "%s written", names[i]);
    }
    o.width = 90;
    LENS_TEST(lens_p2pplot_png_mem(&file, 0, &o, &png, &len, &e) == LENS_EINVAL && !png && strstr(e.msg, "90x560"),
              "tiny figure: %s", e.msg);
    o.width = 900;
    o.font_path = "/nonexistent/font.ttf";
    snprintf(path, sizeof path, "%s/nofont.svg", dir);
    LENS_TEST(lens_p2pplot_write(&file, 0, &o, path, &e) == LENS_EIO && access(path, F_OK) != 0, "missing font: %s", e.msg);
    o.font_path = "fonts/DejaVuSans.ttf";
    snprintf(path, sizeof path, "%s/no/such/dir/x.png", dir);
    LENS_TEST(lens_p2pplot_write(&file, 0, &o, path, &e) == LENS_EIO && strstr(e.msg, "x.png"), "unwritable: %s", e.msg);

    /* A sweep of 0 B only: no bandwidth to draw, the figure still comes out. */
    struct lens_p2p_pair one = pairs[0];
    one.nsize = 1;
    struct lens_p2pfile z = file;
    z.pair = &one;
    z.npairs = 1;
    LENS_TEST(lens_p2pplot_png_mem(&z, LENS_P2PPLOT_BANDWIDTH, &o, &png, &len, &e) == LENS_OK && len > 100, "empty: %s", e.msg);
    lens_free(png);
    png = NULL;
    LENS_TEST(lens_p2pplot_png_mem(&z, LENS_P2PPLOT_LATENCY, &o, &png, &len, &e) == LENS_OK, "0 B only: %s", e.msg);
    lens_free(png);
}

static void texts(void)
{
    char buf[1024];
    lens_p2pplot_caption(&file, LENS_P2PPLOT_LATENCY, buf, sizeof buf);
    LENS_TEST(strstr(buf, "L = T/2c") && strstr(buf, "\"0\" column") && strstr(buf, "Circles: pairs within a node; squares"),
              "latency caption: %s", buf);
    lens_p2pplot_caption(&file, LENS_P2PPLOT_BANDWIDTH, buf, sizeof buf);
    LENS_TEST(strstr(buf, "k = 64") && strstr(buf, "its bandwidth is 0 and is not drawn"), "bandwidth caption: %s", buf);
    lens_p2pplot_caption(&file, LENS_P2PPLOT_RATE, buf, sizeof buf);
    LENS_TEST(strstr(buf, "M = k/T") && strstr(buf, "\"0\" column"), "rate caption: %s", buf);
    const long long sz[6] = {0, 1023, 1024, 1536, 4194304, 3 * 1073741824LL};
    const char *want[6] = {"0 B", "1023 B", "1 KiB", "1.5 KiB", "4 MiB", "3 GiB"};
    for (int i = 0; i < 6; i++) {
        lens_p2pplot_format_size(sz[i], buf, sizeof buf);
        LENS_TEST(!strcmp(buf, want[i]), "size %lld: '%s' want '%s'", sz[i], buf, want[i]);
    }
    char cells[LENS_P2PPLOT_NCOLS][32];
    lens_p2pplot_format_row(&pts[0][0], cells);
    LENS_TEST(!strcmp(cells[0], "0 B") && !strcmp(cells[1], "1.37") && !strcmp(cells[2], "1.274") && !strcmp(cells[3], "-"),
              "0 B row: %s %s %s %s", cells[0], cells[1], cells[2], cells[3]);
    /* 1 KiB on the inter pair: L = 4.2 us + 1024 B / 1.17 GB/s = 5.0752 us; B = 64*1024/(64*1.3*L) */
    lens_p2pplot_format_row(&pts[1][6], cells);
    LENS_TEST(!strcmp(cells[0], "1 KiB") && !strcmp(cells[1], "5.075") && !strcmp(cells[3], "155.2") && !strcmp(cells[4], "1.516e+05"),
              "1 KiB row: %s %s %s %s", cells[0], cells[1], cells[3], cells[4]);
}

static void pdf(void)
{
    struct lens_err e;
    struct lens_pdf *p = NULL;
    struct lens_p2pplot_opts o;
    lens_p2pplot_opts_init(&o);
    o.font_path = "fonts/DejaVuSans.ttf";
    char path[512];
    snprintf(path, sizeof path, "%s/p2p.pdf", dir);
    LENS_TEST(lens_pdf_new(&p, "fonts", &e) == LENS_OK, "pdf: %s", e.msg);
    if (!p)
        return;
    LENS_TEST(lens_pdf_heading(p, 1, "Point-to-point", &e) == LENS_OK, "heading");
    LENS_TEST(lens_p2pplot_pdf(p, &file, &o, &e) == LENS_OK, "p2p section: %s", e.msg);
    LENS_TEST(lens_pdf_page_count(p) >= 3, "three figures and two tables take %d pages", lens_pdf_page_count(p));
    LENS_TEST(lens_pdf_save(p, path, &e) == LENS_OK, "save: %s", e.msg);
    lens_pdf_free(p);

    /* allocation failures anywhere in the section: an error, never a crash or leak */
    int clean = 0, n;
    for (n = 1; n < 3000 && !clean; n += 7) {
        struct lens_pdf *q = NULL;
        if (lens_pdf_new(&q, "fonts", &e) != LENS_OK)
            break;
        lens_malloc_fail_after(n);
        int rc = lens_p2pplot_pdf(q, &file, &o, &e);
        lens_malloc_fail_after(0);
        lens_pdf_free(q);
        if (rc == LENS_OK)
            clean = 1;
        else if (rc != LENS_ENOMEM && rc != LENS_ELIB) {
            LENS_TEST(0, "fail at %d: rc %d %s", n, rc, e.msg);
            break;
        }
    }
    LENS_TEST(clean, "the section succeeds once allocations do (n = %d)", n);
    for (n = 1; n < 200; n++) {
        unsigned char *png = NULL;
        size_t len = 0;
        lens_malloc_fail_after(n);
        int rc = lens_p2pplot_png_mem(&file, 1, &o, &png, &len, &e);
        lens_malloc_fail_after(0);
        lens_free(png);
        if (rc == LENS_OK)
            break;
        LENS_TEST(rc == LENS_ENOMEM && !png, "png_mem fail at %d: rc %d %s", n, rc, e.msg);
    }
}

/* The legend keys only the marker shapes drawn (issue 14, item 8): the figure drawn on a
 * cairo PDF page keeps its text, which pdftotext reads back. */
static int legend_text(int npairs, char *out, size_t n)
{
    struct lens_err e;
    cairo_font_face_t *face = NULL;
    if (lens_figure_font_load("fonts/DejaVuSans.ttf", &face, &e) != LENS_OK)
        return -1;
    char path[600], cmd[1300];
    snprintf(path, sizeof path, "%s/legend%d.pdf", dir, npairs);
    cairo_surface_t *sf = cairo_pdf_surface_create(path, 900, 560);
    cairo_t *cr = cairo_create(sf);
    int saved = file.npairs;
    file.npairs = npairs;
    int rc = lens_p2pplot_draw(cr, &file, 0, NULL, face, 0, 0, 900, 560, &e);
    file.npairs = saved;
    cairo_destroy(cr);
    cairo_surface_finish(sf);
    cairo_surface_destroy(sf);
    cairo_font_face_destroy(face);
    if (rc != LENS_OK)
        return -1;
    snprintf(cmd, sizeof cmd, "pdftotext '%s' - 2>/dev/null", path);
    FILE *f = popen(cmd, "r");
    if (!f)
        return -1;
    size_t got = fread(out, 1, n - 1, f);
    out[got] = 0;
    return pclose(f) == 0 ? 0 : -1;
}

static void legends(void)
{
    static char t[65536];
    /* pair 0 alone is within node n1: no square is drawn, none is keyed */
    LENS_TEST(legend_text(1, t, sizeof t) == 0, "one-node plot drawn and read");
    LENS_TEST(strstr(t, "within a node") && !strstr(t, "across nodes"),
              "one-node legend keys circles only: [%s]", t);
    LENS_TEST(legend_text(2, t, sizeof t) == 0, "two-node plot drawn and read");
    LENS_TEST(strstr(t, "within a node") && strstr(t, "across nodes"), "both shapes keyed");
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    build();
    draw_in_box();
    files();
    texts();
    pdf();
    legends();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return LENS_TEST_DONE("test_p2pplot");
}
