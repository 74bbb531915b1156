/* The figure protocol of render/fig/figure.h against a test kind whose picture is known by
 * construction: a white figure with one red square at a fixed place. Its PNG is decoded with
 * cairo and read pixel by pixel; its SVG is read as text. Checks: the size a kind gives (also
 * a fractional one), RGB24 or ARGB32 PNGs by the ALPHA flag, the forced format, the extension
 * rule, check and paint errors leaving nothing behind, byte-identical SVGs (renumbered ids),
 * the text layer of LENS_FIGURE_TEXT kinds, drawing into a box of a caller's surface, the
 * measuring canvas, and the stage-occupancy plot refusing an occupancy it was not given. */
#include "lens_test.h"
#include "lens_scratch.h"

#include "render/fig/figure.h"
#include "render/fig/profile_plot.h"

#include <cairo.h>
#include <stdint.h>
#include <string.h>

/* The test figure: w x h, white, a red square of side sq at (sx, sy); fail makes paint fail
 * after drawing, bad makes check refuse, label draws one text through lens_figure_label. */
struct sq {
    double w, h, sx, sy, sq;
    int fail, bad, label;
    int clear;       /* leave the background transparent (no white paint) */
    int painted;     /* paint calls, to see that a refused figure is never painted */
    int vector_seen; /* the canvas's vector flag at the last paint */
    double font;     /* with label: the size asked for (0: 12) */
    double font_seen; /* the size cairo was given */
};

static int sq_check(const void *data, const char *name, struct lens_err *e)
{
    const struct sq *s = data;
    return s->bad ? lens_err_set(e, LENS_EINVAL, "%s: refused by check", name) : LENS_OK;
}

static void sq_size(const void *data, double *w, double *h)
{
    const struct sq *s = data;
    *w = s->w;
    *h = s->h;
}

static int sq_paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    struct sq *s = (struct sq *)(uintptr_t)data; /* the test's own struct: counts its paints */
    s->painted++;
    s->vector_seen = c->vector;
    if (!s->clear) {
        cairo_set_source_rgb(c->cr, 1, 1, 1);
        cairo_paint(c->cr);
    }
    cairo_set_source_rgb(c->cr, 1, 0, 0);
    cairo_rectangle(c->cr, s->sx, s->sy, s->sq, s->sq);
    cairo_fill(c->cr);
    if (s->label) {
        lens_figure_set_font(c->cr, c->face, s->font > 0 ? s->font : 12);
        cairo_matrix_t fm;
        cairo_get_font_matrix(c->cr, &fm);
        s->font_seen = fm.xx;
        cairo_set_source_rgb(c->cr, 0, 0, 0);
        lens_figure_label(c->text, c->cr, 10, 10, "node03 & <17>", 0, 0, 0);
    }
    return s->fail ? lens_err_set(e, LENS_ELIB, "%s: paint failed on purpose", c->name) : LENS_OK;
}

static const struct lens_figure_kind sq_kind = {"square", 0, sq_check, sq_size, sq_paint};
static const struct lens_figure_kind sq_alpha_kind = {"square", LENS_FIGURE_ALPHA, sq_check, sq_size, sq_paint};
static const struct lens_figure_kind sq_text_kind = {"square", LENS_FIGURE_TEXT, sq_check, sq_size, sq_paint};

/* PNG bytes back to an image surface. */
struct reader {
    const unsigned char *p;
    size_t n, at;
};

static cairo_status_t read_png(void *closure, unsigned char *data, unsigned int len)
{
    struct reader *r = closure;
    if (r->at + len > r->n)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->p + r->at, len);
    r->at += len;
    return CAIRO_STATUS_SUCCESS;
}

/* The pixel at (x, y) as 0xRRGGBB, or -1 when the image is not there. */
static long pixel(cairo_surface_t *img, int x, int y)
{
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS || x >= cairo_image_surface_get_width(img) ||
        y >= cairo_image_surface_get_height(img))
        return -1;
    cairo_surface_flush(img);
    const unsigned char *d = cairo_image_surface_get_data(img);
    uint32_t v = *(const uint32_t *)(const void *)(d + (size_t)y * cairo_image_surface_get_stride(img) + 4 * (size_t)x);
    return (long)(v & 0xffffff);
}

static unsigned char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    *n = b && fread(b, 1, (size_t)len, f) == (size_t)len ? (size_t)len : 0;
    if (b)
        b[*n] = 0;
    fclose(f);
    return b;
}

/* PNG colour type, byte 25 of the file (IHDR): 2 RGB, 6 RGBA. */
static int png_colour_type(const unsigned char *p, size_t n)
{
    return n > 25 && !memcmp(p + 1, "PNG", 3) ? p[25] : -1;
}

static void test_png(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct sq s = {200, 120, 50, 30, 20, 0, 0, 0, 0, 0, 0, 0, 0};
    struct lens_figure f = {.kind = &sq_kind, .data = &s};
    unsigned char *buf = NULL;
    size_t len = 0;
    LENS_TEST(lens_figure_render(&f, NULL, &buf, &len, &e) == LENS_OK && buf && len > 8, "png in memory: %s", e.msg);
    LENS_TEST(png_colour_type(buf, len) == 2, "opaque kinds write RGB PNGs (type %d)", png_colour_type(buf, len));
    LENS_TEST(s.vector_seen == 0, "a PNG canvas is not vector");
    /* PNG bytes are for the PDF: drawn at k pixels per unit, 300 ppi at the text width */
    double k = lens_figure_print_scale(200);
    int pw = (int)ceil(200 * k), ph = (int)ceil(120 * k);
    LENS_TEST(k * 72.0 * 200 / LENS_FIGURE_PRINT_W >= 300 && k < 300 / 72.0 * LENS_FIGURE_PRINT_W / 200 + 1.0 / 64,
              "print scale %g", k);
    struct reader r = {buf, len, 0};
    cairo_surface_t *img = cairo_image_surface_create_from_png_stream(read_png, &r);
    LENS_TEST(cairo_image_surface_get_width(img) == pw && cairo_image_surface_get_height(img) == ph,
              "the print size: %dx%d, want %dx%d", cairo_image_surface_get_width(img),
              cairo_image_surface_get_height(img), pw, ph);
    /* the square [50, 70) x [30, 50) units, scaled: one pixel inside and outside its edges */
    LENS_TEST(pixel(img, (int)(60 * k), (int)(40 * k)) == 0xff0000, "print: red inside the square");
    LENS_TEST(pixel(img, (int)ceil(50 * k), (int)ceil(30 * k)) == 0xff0000 &&
                  pixel(img, (int)floor(70 * k) - 1, (int)floor(50 * k) - 1) == 0xff0000,
              "print: the square's corner pixels");
    LENS_TEST(pixel(img, (int)floor(50 * k) - 1, (int)(40 * k)) == 0xffffff &&
                  pixel(img, (int)ceil(70 * k), (int)(40 * k)) == 0xffffff,
              "print: white just outside the square");
    LENS_TEST(pixel(img, pw - 1, ph - 1) == 0xffffff, "print: white background");
    cairo_surface_destroy(img);

    /* the same figure to a file: its natural size, one pixel per unit */
    char *p = lens_scratch_path("sq.png");
    LENS_TEST(lens_figure_render(&f, p, NULL, NULL, &e) == LENS_OK, "png file: %s", e.msg);
    img = cairo_image_surface_create_from_png(p);
    LENS_TEST(cairo_image_surface_get_width(img) == 200 && cairo_image_surface_get_height(img) == 120,
              "the kind's size: %dx%d", cairo_image_surface_get_width(img), cairo_image_surface_get_height(img));
    /* inside the square, its corners just inside and just outside, and far away */
    LENS_TEST(pixel(img, 60, 40) == 0xff0000, "red inside the square: %06lx", pixel(img, 60, 40));
    LENS_TEST(pixel(img, 50, 30) == 0xff0000 && pixel(img, 69, 49) == 0xff0000, "the square's corner pixels");
    LENS_TEST(pixel(img, 49, 30) == 0xffffff && pixel(img, 70, 49) == 0xffffff && pixel(img, 50, 50) == 0xffffff,
              "white just outside the square");
    LENS_TEST(pixel(img, 199, 119) == 0xffffff, "white background");
    cairo_surface_destroy(img);
    size_t fn = 0;
    unsigned char *fb = NULL;
    lens_free(buf);

    /* a fractional height: a file is cut to whole pixels, print bytes round up */
    s.h = 120.7;
    LENS_TEST(lens_figure_render(&f, p, NULL, NULL, &e) == LENS_OK, "fractional: %s", e.msg);
    img = cairo_image_surface_create_from_png(p);
    LENS_TEST(cairo_image_surface_get_height(img) == 120, "a 120.7 high figure is a 120-pixel PNG (%d)",
              cairo_image_surface_get_height(img));
    cairo_surface_destroy(img);
    LENS_TEST(lens_figure_render(&f, NULL, &buf, &len, &e) == LENS_OK, "fractional: %s", e.msg);
    r = (struct reader){buf, len, 0};
    img = cairo_image_surface_create_from_png_stream(read_png, &r);
    LENS_TEST(cairo_image_surface_get_height(img) == (int)ceil(120.7 * k), "print height %d",
              cairo_image_surface_get_height(img));
    cairo_surface_destroy(img);
    lens_free(buf);
    s.h = 120;

    /* the print font floor: a 4-unit label of a 200-unit figure would print at 4 * 483 / 200
     * = 9.7 pt, kept; on a 900-unit figure at 2.1 pt, raised to 7 pt = 7 * 900 / 483.276
     * units. Files keep the size asked for. */
    s.label = 1, s.font = 4;
    LENS_TEST(lens_figure_render(&f, NULL, &buf, &len, &e) == LENS_OK && s.font_seen == 4,
              "small figure keeps its font: %g", s.font_seen);
    lens_free(buf);
    s.w = 900;
    LENS_TEST(lens_figure_render(&f, NULL, &buf, &len, &e) == LENS_OK &&
                  fabs(s.font_seen - 7 * 900 / LENS_FIGURE_PRINT_W) < 1e-9,
              "print floor: %g units, want %g", s.font_seen, 7 * 900 / LENS_FIGURE_PRINT_W);
    lens_free(buf);
    LENS_TEST(lens_figure_render(&f, p, NULL, NULL, &e) == LENS_OK && s.font_seen == 4,
              "a file keeps the font asked for: %g", s.font_seen);
    s.label = 0, s.font = 0, s.w = 200;

    /* ALPHA kinds keep what paint leaves transparent (cairo then writes RGBA); opaque kinds
     * cannot hold transparency at all, so the same paint gives an RGB PNG */
    s.clear = 1;
    f.kind = &sq_alpha_kind;
    LENS_TEST(lens_figure_render(&f, NULL, &buf, &len, &e) == LENS_OK && png_colour_type(buf, len) == 6,
              "alpha kinds keep transparency: RGBA PNG (type %d)", png_colour_type(buf, len));
    lens_free(buf);
    f.kind = &sq_kind;
    LENS_TEST(lens_figure_render(&f, NULL, &buf, &len, &e) == LENS_OK && png_colour_type(buf, len) == 2,
              "opaque kinds stay RGB (type %d)", png_colour_type(buf, len));
    lens_free(buf);
    s.clear = 0;

    /* the forced format: PNG whatever the name */
    f.as = LENS_FIGURE_AS_PNG;
    p = lens_scratch_path("sq.data");
    LENS_TEST(lens_figure_render(&f, p, NULL, NULL, &e) == LENS_OK, "forced png: %s", e.msg);
    fb = slurp(p, &fn);
    LENS_TEST(fb && png_colour_type(fb, fn) == 2, "sq.data is a PNG");
    free(fb);
    f.as = LENS_FIGURE_BY_NAME;
    LENS_TEST(lens_figure_render(&f, lens_scratch_path("UPPER.PNG"), NULL, NULL, &e) == LENS_OK,
              "the extension in any case: %s", e.msg);
}

static void test_errors(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct sq s = {200, 120, 50, 30, 20, 0, 0, 0, 0, 0, 0, 0, 0};
    struct lens_figure f = {.kind = &sq_kind, .data = &s};
    int before = lens_scratch_leftovers();
    char *p = lens_scratch_path("x.gif");
    LENS_TEST(lens_figure_render(&f, p, NULL, NULL, &e) == LENS_EINVAL && strstr(e.msg, "x.gif: output must end in .png or .svg"),
              "extension: %s", e.msg);
    LENS_TEST(s.painted == 0 && !lens_scratch_exists(p), "a refused name paints and writes nothing");

    s.bad = 1;
    p = lens_scratch_path("bad.png");
    LENS_TEST(lens_figure_render(&f, p, NULL, NULL, &e) == LENS_EINVAL && strstr(e.msg, "bad.png: refused by check"),
              "check's error names the file: %s", e.msg);
    LENS_TEST(s.painted == 0 && !lens_scratch_exists(p), "a refused figure is never painted");
    unsigned char *buf = (unsigned char *)"stale";
    size_t len = 99;
    LENS_TEST(lens_figure_render(&f, NULL, &buf, &len, &e) == LENS_EINVAL && !buf && len == 0 &&
                  strstr(e.msg, "square png (memory)"),
              "in memory: no stale buffer, the memory name: %s", e.msg);
    s.bad = 0;

    s.fail = 1;
    const char *names[2] = {"fail.png", "fail.svg"};
    for (int k = 0; k < 2; k++) {
        p = lens_scratch_path(names[k]);
        LENS_TEST(lens_figure_render(&f, p, NULL, NULL, &e) == LENS_ELIB && strstr(e.msg, "paint failed"),
                  "%s: paint's error: %s", names[k], e.msg);
        LENS_TEST(!lens_scratch_exists(p), "%s: nothing left after a failed paint", names[k]);
    }
    s.fail = 0;
    LENS_TEST(lens_figure_render(&f, "/nonexistent-mpilens-dir/x.png", NULL, NULL, &e) == LENS_EIO &&
                  strstr(e.msg, "/nonexistent-mpilens-dir/x.png"),
              "unwritable: %s", e.msg);
    struct lens_figure nofont = {.kind = &sq_kind, .data = &s, .font_path = "/nonexistent-mpilens-dir/none.ttf"};
    LENS_TEST(lens_figure_render(&nofont, lens_scratch_path("nf.png"), NULL, NULL, &e) == LENS_EIO &&
                  strstr(e.msg, "none.ttf"),
              "missing font: %s", e.msg);
    LENS_TEST(lens_scratch_leftovers() == before, "no temporary file left by any failure");

    /* allocation failures at every step: an error, never a crash or a half file */
    int fails = 0, oks = 0;
    for (long n = 1; n < 400; n++) {
        lens_malloc_fail_after(n);
        p = lens_scratch_path(n % 2 ? "oom.svg" : "oom.png");
        int rc = lens_figure_render(&f, p, NULL, NULL, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            oks++;
            remove(p);
        } else {
            fails += rc == LENS_ENOMEM && !lens_scratch_exists(p);
        }
        if (oks > 4)
            break;
    }
    LENS_TEST(fails > 0 && lens_scratch_leftovers() == before, "allocation failures: ENOMEM and nothing left (%d)",
              fails);
}

static void test_svg(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct sq s = {200, 120, 50, 30, 20, 0, 0, 1, 0, 0, 0, 0, 0};
    struct lens_figure f = {.kind = &sq_kind, .data = &s};
    char *a = lens_scratch_path("a.svg"), *b = lens_scratch_path("b.svg");
    LENS_TEST(lens_figure_render(&f, a, NULL, NULL, &e) == LENS_OK && lens_figure_render(&f, b, NULL, NULL, &e) == LENS_OK,
              "svg twice: %s", e.msg);
    LENS_TEST(s.vector_seen == 1, "an SVG canvas is vector");
    size_t na = 0, nb = 0;
    unsigned char *da = slurp(a, &na), *db = slurp(b, &nb);
    /* cairo numbers glyph surfaces process-wide: without the renumbering b would differ */
    LENS_TEST(da && db && na == nb && !memcmp(da, db, na), "the second SVG of a process has the same bytes");
    LENS_TEST(da && strstr((char *)da, "width=\"200\"") && strstr((char *)da, "height=\"120\""), "SVG size in points");
    LENS_TEST(da && !strstr((char *)da, "<title>") && !strstr((char *)da, "id=\"labels\""),
              "no text layer for plain kinds");
    free(da);
    free(db);

    /* the text layer: title and label escaped, as text */
    f.kind = &sq_text_kind;
    f.title = "squares & <things>";
    a = lens_scratch_path("t.svg");
    LENS_TEST(lens_figure_render(&f, a, NULL, NULL, &e) == LENS_OK, "text svg: %s", e.msg);
    da = slurp(a, &na);
    LENS_TEST(da && strstr((char *)da, "<title>squares &amp; &lt;things&gt;</title>"), "escaped title");
    LENS_TEST(da && strstr((char *)da, ">node03 &amp; &lt;17&gt;</text>"), "the label as searchable text");
    free(da);
    /* a PNG of a text kind has no layer to make: the same picture as a plain kind */
    unsigned char *p1 = NULL, *p2 = NULL;
    size_t l1 = 0, l2 = 0;
    lens_figure_render(&f, NULL, &p1, &l1, &e);
    f.kind = &sq_kind;
    lens_figure_render(&f, NULL, &p2, &l2, &e);
    LENS_TEST(p1 && p2 && l1 == l2 && !memcmp(p1, p2, l1), "text kinds' PNGs equal plain ones");
    lens_free(p1);
    lens_free(p2);
}

/* lens_figure_measure callback: reports the canvas it was given. */
static int measured(const void *data, const struct lens_figure_canvas *c, void *out, struct lens_err *e)
{
    (void)data;
    (void)e;
    double *o = out;
    o[0] = c->w;
    o[1] = c->h;
    o[2] = c->face != NULL;
    o[3] = lens_figure_text_width(c->cr, "abc") > 0;
    return LENS_OK;
}

static void test_draw_and_measure(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct sq s = {200, 120, 5, 6, 10, 0, 0, 0, 0, 0, 0, 0, 0};
    struct lens_figure f = {.kind = &sq_kind, .data = &s};
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 400, 300);
    cairo_t *cr = cairo_create(img);
    cairo_set_source_rgb(cr, 0, 0, 1);
    cairo_paint(cr);
    LENS_TEST(lens_figure_draw(&f, cr, 100, 50, 200, 120, &e) == LENS_OK, "draw into a box: %s", e.msg);
    /* the square lands at (100 + 5, 50 + 6); outside the box the caller's blue stays */
    LENS_TEST(pixel(img, 107, 58) == 0xff0000, "the figure is translated to its box: %06lx", pixel(img, 107, 58));
    LENS_TEST(pixel(img, 101, 51) == 0xffffff && pixel(img, 99, 49) == 0x0000ff, "box drawn, outside untouched");
    cairo_matrix_t mx;
    cairo_get_matrix(cr, &mx);
    LENS_TEST(mx.x0 == 0 && mx.y0 == 0, "the caller's transform is restored");
    s.bad = 1;
    LENS_TEST(lens_figure_draw(&f, cr, 0, 0, 200, 120, &e) == LENS_EINVAL && strstr(e.msg, "square: refused"),
              "draw checks too, naming the kind: %s", e.msg);
    s.bad = 0;
    cairo_destroy(cr);
    cairo_surface_destroy(img);

    double out[4] = {0};
    LENS_TEST(lens_figure_measure(&f, measured, out, &e) == LENS_OK && out[0] == 200 && out[1] == 120 && out[2] == 1 &&
                  out[3] == 1,
              "measure: the natural size, a face and a cr that measures text");
}

/* The stage-occupancy plot only draws the occupancy it is handed. */
static void test_occupancy(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    char *stages[2] = {"queued", "running"};
    struct lens_stagelog l;
    memset(&l, 0, sizeof l);
    l.nstage = 2;
    l.stages = stages;
    l.t0 = 0;
    l.t1 = 10;
    double times[3] = {0, 5, 10};
    size_t counts[6] = {1, 0, 2, 1, 0, 3};
    char *p = lens_scratch_path("occ.png");
    LENS_TEST(lens_profile_plot_stagelog_occupancy(&l, 3, times, counts, p, NULL, &e) == LENS_OK && lens_scratch_exists(p),
              "occupancy plot: %s", e.msg);
    p = lens_scratch_path("occ2.png");
    LENS_TEST(lens_profile_plot_stagelog_occupancy(&l, 3, NULL, counts, p, NULL, &e) == LENS_EINVAL &&
                  strstr(e.msg, "no occupancy") && !lens_scratch_exists(p),
              "no occupancy given: %s", e.msg);
}

/* The memory forms (figure.h) the PDF reports use. RAW must be the PNG's pixels composited over
 * white: checked against the PNG form decoded by cairo (another path: encode, decode, our
 * compositing here) and against the square known by construction. SIZE paints nothing. */
static void test_memory_forms(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    struct sq s = {200, 120, 50.3, 30.7, 20, 0, 0, 0, 0, 0, 0, 0, 0};
    s.clear = 1; /* transparent background with antialiased edges: the compositing is seen */
    struct lens_figure f = {.kind = &sq_alpha_kind, .data = &s};
    double k = lens_figure_print_scale(200);
    int pw = (int)ceil(200 * k), ph = (int)ceil(120 * k);
    unsigned char *png = NULL, *raw = NULL, *sz = NULL;
    size_t npng = 0, nraw = 0, nsz = 0;
    LENS_TEST(lens_figure_memory_form(LENS_FIGURE_MEM_RAW) == LENS_FIGURE_MEM_PNG, "PNG is the default form");
    LENS_TEST(lens_figure_render(&f, NULL, &raw, &nraw, &e) == LENS_OK, "raw: %s", e.msg);
    lens_figure_memory_form(LENS_FIGURE_MEM_SIZE);
    int painted = s.painted;
    LENS_TEST(lens_figure_render(&f, NULL, &sz, &nsz, &e) == LENS_OK && s.painted == painted,
              "size: not painted (%s)", e.msg);
    LENS_TEST(lens_figure_memory_form(LENS_FIGURE_MEM_PNG) == LENS_FIGURE_MEM_SIZE, "the previous form is returned");
    LENS_TEST(lens_figure_render(&f, NULL, &png, &npng, &e) == LENS_OK && png_colour_type(png, npng) == 6,
              "png: %s", e.msg);

    int w = 0, h = 0;
    const unsigned char *rgb = NULL;
    LENS_TEST(lens_figure_raw_parse(png, npng, &w, &h, &rgb) == 0, "a PNG is in neither form");
    LENS_TEST(lens_figure_raw_parse(sz, nsz, &w, &h, &rgb) == 1 && w == pw && h == ph && !rgb,
              "size form: %dx%d, want %dx%d, no pixels", w, h, pw, ph);
    LENS_TEST(lens_figure_raw_parse(raw, nraw - 1, &w, &h, &rgb) == LENS_EFORMAT, "a cut raw image is refused");
    LENS_TEST(lens_figure_raw_parse(raw, nraw, &w, &h, &rgb) == 1 && w == pw && h == ph && rgb &&
                  nraw == 16 + (size_t)pw * ph * 3,
              "raw form: %dx%d, %zu bytes", w, h, nraw);

    struct reader r = {png, npng, 0};
    cairo_surface_t *img = cairo_image_surface_create_from_png_stream(read_png, &r);
    int worst = 0, edges = 0;
    const unsigned char *d = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    for (int y = 0; rgb && y < ph && cairo_surface_status(img) == CAIRO_STATUS_SUCCESS; y++)
        for (int x = 0; x < pw; x++) {
            uint32_t v = *(const uint32_t *)(const void *)(d + (size_t)y * stride + 4 * x);
            int a = (int)(v >> 24);
            edges += a > 0 && a < 255;
            for (int c = 0; c < 3; c++) {
                /* over white: premultiplied colour plus the white the pixel lets through */
                int want = (int)((v >> (16 - 8 * c)) & 0xff) + 255 - a;
                int got = rgb[((size_t)y * pw + x) * 3 + c];
                worst = abs(want - got) > worst ? abs(want - got) : worst;
            }
        }
    /* PNG stores unpremultiplied colour: decoding rounds edge pixels by at most one step */
    LENS_TEST(edges > 0 && worst <= 1, "raw = png over white: worst difference %d over %d edge pixels", worst, edges);
    cairo_surface_destroy(img);
    if (rgb) {
        const unsigned char *in = rgb + ((size_t)(int)(40 * k) * pw + (int)(60 * k)) * 3, *out = rgb + 3 * 1;
        LENS_TEST(in[0] == 255 && in[1] == 0 && in[2] == 0, "raw: red inside the square");
        LENS_TEST(out[0] == 255 && out[1] == 255 && out[2] == 255, "raw: transparent is white");
    }
    lens_free(png);
    lens_free(raw);
    lens_free(sz);
}

int main(void)
{
    if (lens_scratch_open("test_figure") != 0)
        return 1;
    test_png();
    test_memory_forms();
    test_errors();
    test_svg();
    test_draw_and_measure();
    test_occupancy();
    lens_scratch_close();
    return LENS_TEST_DONE("test_figure");
}
