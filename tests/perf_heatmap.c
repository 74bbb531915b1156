/* Heatmap render timing for `make bench` (scripts/bench.d/heatmap.sh): PNG and SVG of
 * 1024 x 1024 and 8192 x 8192 matrices (median of 3 runs), against the naive approach of one
 * cairo rectangle + fill per cell, measured in the same run on 1024 x 1024.
 * Usage: perf_heatmap FONT.ttf SCRATCH_DIR   (exit 1 when 8192 PNG misses the 2 s target) */
#include "render/fig/heatmap.h"
#include "common/time.h"

#include <cairo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RUNS 3
#define TARGET_S 2.0

static double median3(double a, double b, double c)
{
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    if (b > c)
        b = c;
    return a > b ? a : b;
}

/* A latency-like matrix: 16-process nodes, a slower tier across halves, 20% noise, NaN
 * diagonal; a fixed LCG keeps it the same in every run. */
static double *make_matrix(int n)
{
    double *m = malloc(sizeof *m * (size_t)n * n);
    if (!m)
        return NULL;
    unsigned s = 2463534242u;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            double base = i / 16 == j / 16 ? 0.9e-6 : (i < n / 2) == (j < n / 2) ? 2.1e-6 : 3.7e-6;
            m[(size_t)i * n + j] = i == j ? __builtin_nan("") : base * (1.0 + 0.2 * (s >> 8) / 16777216.0);
        }
    return m;
}

static long file_size(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 ? (long)st.st_size : -1;
}

/* The peer: every cell its own cairo_rectangle + cairo_fill into an image, then PNG. */
static int naive_png(const double *m, int n, int w, int h, const char *path)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(s);
    double lo = 1e300, hi = -1e300;
    for (size_t k = 0; k < (size_t)n * n; k++)
        if (m[k] == m[k]) {
            lo = m[k] < lo ? m[k] : lo;
            hi = m[k] > hi ? m[k] : hi;
        }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    double cw = (double)w / n, ch = (double)h / n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = m[(size_t)i * n + j], rgb[3] = {0.75, 0.75, 0.75};
            if (v == v)
                lens_colormap_rgb(LENS_CMAP_VIRIDIS, lens_colormap_index((v - lo) / (hi - lo)), rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_rectangle(cr, j * cw, i * ch, cw, ch);
            cairo_fill(cr);
        }
    cairo_destroy(cr);
    int rc = cairo_surface_write_to_png(s, path) == CAIRO_STATUS_SUCCESS ? 0 : -1;
    cairo_surface_destroy(s);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: perf_heatmap FONT.ttf SCRATCH_DIR\n");
        return 2;
    }
    struct lens_heatmap_opts o;
    lens_heatmap_opts_init(&o);
    o.font_path = argv[1];
    o.title = "median delay, 4096 B";
    o.xlabel = "sender rank";
    o.ylabel = "receiver rank";
    char png[512], svg[512], naive[512];
    snprintf(png, sizeof png, "%s/perf.png", argv[2]);
    snprintf(svg, sizeof svg, "%s/perf.svg", argv[2]);
    snprintf(naive, sizeof naive, "%s/naive.png", argv[2]);
    static const int sizes[2] = {1024, 8192};
    double png_s[2] = {0, 0}, svg_s[2] = {0, 0}, mem_s[2] = {0, 0}, naive_s = 0;
    long png_b[2], svg_b[2];
    struct lens_err e;

    printf("heatmap render, figure %dx%d, histogram on, median of %d runs\n", o.width, o.height, RUNS);
    printf("%-11s %9s %9s %9s %11s %11s\n", "matrix", "png_s", "png_mem_s", "svg_s", "png_bytes", "svg_bytes");
    for (int k = 0; k < 2; k++) {
        int n = sizes[k];
        double *m = make_matrix(n);
        if (!m) {
            fprintf(stderr, "perf_heatmap: out of memory for %dx%d\n", n, n);
            return 1;
        }
        double t[3][RUNS];
        for (int r = 0; r < RUNS; r++) {
            double t0 = lens_time_now();
            if (lens_heatmap_write_png(m, n, n, &o, png, &e)) {
                fprintf(stderr, "perf_heatmap: %s\n", e.msg);
                return 1;
            }
            double t1 = lens_time_now();
            unsigned char *buf;
            size_t len;
            if (lens_heatmap_png_mem(m, n, n, &o, &buf, &len, &e)) {
                fprintf(stderr, "perf_heatmap: %s\n", e.msg);
                return 1;
            }
            lens_free(buf);
            double t2 = lens_time_now();
            if (lens_heatmap_write_svg(m, n, n, &o, svg, &e)) {
                fprintf(stderr, "perf_heatmap: %s\n", e.msg);
                return 1;
            }
            double t3 = lens_time_now();
            t[0][r] = t1 - t0;
            t[1][r] = t2 - t1;
            t[2][r] = t3 - t2;
        }
        png_s[k] = median3(t[0][0], t[0][1], t[0][2]);
        mem_s[k] = median3(t[1][0], t[1][1], t[1][2]);
        svg_s[k] = median3(t[2][0], t[2][1], t[2][2]);
        png_b[k] = file_size(png);
        svg_b[k] = file_size(svg);
        printf("%5dx%-5d %9.3f %9.3f %9.3f %11ld %11ld\n", n, n, png_s[k], mem_s[k], svg_s[k],
               png_b[k], svg_b[k]);
        if (k == 0) {
            double nt[RUNS];
            for (int r = 0; r < RUNS; r++) {
                double t0 = lens_time_now();
                if (naive_png(m, n, 640, 640, naive)) {
                    fprintf(stderr, "perf_heatmap: naive peer failed to write %s\n", naive);
                    return 1;
                }
                nt[r] = lens_time_now() - t0;
            }
            naive_s = median3(nt[0], nt[1], nt[2]);
        }
        free(m);
    }
    printf("peer: naive cairo (one rectangle + fill per cell, map only, 640x640) 1024x1024 png: %.3f s\n", naive_s);
    printf("ratio naive / mpilens, 1024x1024 png: %.1fx\n", png_s[0] > 0 ? naive_s / png_s[0] : 0.0);
    int pass = png_s[1] < TARGET_S;
    printf("%s target 8192 PNG < %.0f s (%.3f s)\n", pass ? "PASS" : "FAIL", TARGET_S, png_s[1]);
    return pass ? 0 : 1;
}
