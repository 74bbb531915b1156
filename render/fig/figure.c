/* Shared cairo helpers: FreeType fonts, text, ticks, formats, status and deterministic
 * PNG/SVG output. See figure.h for the contracts. */
#include "figure.h"
#include "common/atomic.h"

#include <cairo-ft.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <string.h>

#include <ft2build.h>
#include FT_FREETYPE_H

/* ---- fonts ---- */

/* One FreeType library per face, released when cairo drops its last reference to the face
 * (cairo may keep faces in its font cache after the figure is done). */
struct ft_holder {
    FT_Library lib;
    FT_Face face;
};

static const cairo_user_data_key_t ft_key;

static void ft_holder_free(void *p)
{
    struct ft_holder *h = p;
    if (!h)
        return;
    if (h->face)
        FT_Done_Face(h->face);
    if (h->lib)
        FT_Done_FreeType(h->lib);
    lens_free(h);
}

int lens_figure_font_load(const char *font_path, cairo_font_face_t **face, struct lens_err *e)
{
    *face = NULL;
    if (!font_path) {
        *face = cairo_toy_font_face_create("sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
        if (cairo_font_face_status(*face) != CAIRO_STATUS_SUCCESS) {
            cairo_font_face_destroy(*face);
            *face = NULL;
            return lens_err_set(e, LENS_ELIB, "sans: cairo cannot make a font face");
        }
        return LENS_OK;
    }
    /* fopen first so a missing file reads as the usual errno message */
    FILE *fp = fopen(font_path, "rb");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open font: %s", font_path, strerror(errno));
    fclose(fp);

    struct ft_holder *h = lens_calloc(1, sizeof *h);
    if (!h)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", font_path);
    FT_Error fe = FT_Init_FreeType(&h->lib);
    if (fe) {
        h->lib = NULL;
        ft_holder_free(h);
        return lens_err_set(e, LENS_ELIB, "%s: freetype init failed (error %d)", font_path, fe);
    }
    fe = FT_New_Face(h->lib, font_path, 0, &h->face);
    if (fe) {
        h->face = NULL;
        ft_holder_free(h);
        return lens_err_set(e, LENS_EFORMAT, "%s: not a font freetype can read (error %d)", font_path, fe);
    }
    cairo_font_face_t *f = cairo_ft_font_face_create_for_ft_face(h->face, 0);
    if (cairo_font_face_status(f) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(f);
        ft_holder_free(h);
        return lens_err_set(e, LENS_ELIB, "%s: cairo cannot use the font", font_path);
    }
    if (cairo_font_face_set_user_data(f, &ft_key, h, ft_holder_free) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(f);
        ft_holder_free(h);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", font_path);
    }
    *face = f;
    return LENS_OK;
}

void lens_figure_set_font(cairo_t *cr, cairo_font_face_t *face, double size)
{
    cairo_set_font_face(cr, face);
    cairo_set_font_size(cr, size);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
}

double lens_figure_text_width(cairo_t *cr, const char *s)
{
    cairo_text_extents_t te;
    cairo_text_extents(cr, s, &te);
    return te.x_advance;
}

void lens_figure_text(cairo_t *cr, double x, double y, const char *s, double ha, double va,
                      double angle)
{
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    double w = lens_figure_text_width(cr, s);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    if (angle != 0.0)
        cairo_rotate(cr, angle);
    cairo_move_to(cr, -ha * w, fe.ascent - va * (fe.ascent + fe.descent));
    cairo_show_text(cr, s);
    cairo_restore(cr);
}

void lens_figure_ellipsize(const char *s, int maxcp, char *buf, size_t n)
{
    static const char ell[] = "\xe2\x80\xa6"; /* U+2026 */
    size_t i = 0;
    int cp = 0;
    if (n == 0)
        return;
    /* count code points: bytes that are not UTF-8 continuation bytes start one */
    while (s[i]) {
        if (((unsigned char)s[i] & 0xc0) != 0x80) {
            if (cp == maxcp)
                break;
            cp++;
        }
        i++;
    }
    if (!s[i]) {
        snprintf(buf, n, "%s", s);
        return;
    }
    if (i + sizeof ell > n)
        i = n > sizeof ell ? n - sizeof ell : 0;
    while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80) /* never split a character */
        i--;
    memcpy(buf, s, i);
    memcpy(buf + i, ell, sizeof ell);
}

/* ---- ticks and formats ---- */

static double nice_step(double raw)
{
    double mag = pow(10.0, floor(log10(raw)));
    double f = raw / mag;
    double nice = f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0;
    return nice * mag;
}

static int linear_ticks(double lo, double hi, int max_ticks, double *ticks, double *step)
{
    double st = nice_step((hi - lo) / (max_ticks > 1 ? max_ticks - 1 : 1));
    double k0 = ceil(lo / st - 1e-9), k1 = floor(hi / st + 1e-9);
    int n = 0;
    for (double k = k0; k <= k1 && n < max_ticks; k++) {
        double v = k * st;
        ticks[n++] = fabs(v) < st * 1e-9 ? 0.0 : v;
    }
    *step = st;
    return n;
}

int lens_figure_ticks(double lo, double hi, int log_scale, int max_ticks, double *ticks,
                      double *step)
{
    *step = 0.0;
    if (!(hi > lo) || max_ticks < 1)
        return 0;
    if (log_scale && lo > 0.0) {
        int d0 = (int)ceil(log10(lo) - 1e-9), d1 = (int)floor(log10(hi) + 1e-9);
        if (d1 - d0 + 1 >= 2) {
            int n = 0, every = (d1 - d0 + max_ticks) / max_ticks; /* thin out many decades */
            int sub = d1 - d0 + 1 <= 3 && 3 * (d1 - d0 + 2) <= max_ticks;
            for (int d = d0 - 1; d <= d1 && n < max_ticks; d++) {
                static const double mult[3] = {1.0, 2.0, 5.0};
                for (int m = 0; m < (sub ? 3 : 1); m++) {
                    double v = mult[m] * pow(10.0, d);
                    if (m == 0 && (d - d0) % every != 0)
                        continue;
                    if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9) && n < max_ticks)
                        ticks[n++] = v;
                }
            }
            return n;
        }
    }
    return linear_ticks(lo, hi, max_ticks, ticks, step);
}

void lens_figure_format_value(double v, double step, char *buf, size_t n)
{
    double a = fabs(v);
    if (v == 0.0) {
        snprintf(buf, n, "0");
    } else if (a >= 1e6 || a < 1e-4) {
        snprintf(buf, n, "%.3g", v);
    } else if (step > 0.0) {
        int dec = (int)ceil(-log10(step) - 1e-9);
        dec = dec < 0 ? 0 : dec > 6 ? 6 : dec;
        snprintf(buf, n, "%.*f", dec, v);
    } else {
        snprintf(buf, n, "%g", v);
    }
}

void lens_figure_format_count(double v, char *buf, size_t n)
{
    static const char suffix[] = " kMGT";
    int s = 0;
    while (fabs(v) >= 10000.0 && s < 4) {
        v /= 1000.0;
        s++;
    }
    if (s == 0)
        snprintf(buf, n, "%.0f", v);
    else
        snprintf(buf, n, "%g%c", v, suffix[s]);
}

/* ---- status and output ---- */

int lens_figure_status(cairo_t *cr, const char *name, struct lens_err *e)
{
    cairo_status_t st = cairo_status(cr);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(cairo_get_target(cr));
    if (st == CAIRO_STATUS_SUCCESS)
        return LENS_OK;
    return lens_err_set(e, st == CAIRO_STATUS_NO_MEMORY ? LENS_ENOMEM : LENS_ELIB,
                        "%s: cairo: %s", name, cairo_status_to_string(st));
}

cairo_status_t lens_figure_buf_write(void *closure, const unsigned char *data, unsigned int len)
{
    struct lens_figure_buf *b = closure;
    if (b->failed)
        return CAIRO_STATUS_WRITE_ERROR;
    if (b->len + len > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + len)
            cap *= 2;
        unsigned char *p = lens_realloc(b->data, cap);
        if (!p) {
            b->failed = 1;
            return CAIRO_STATUS_NO_MEMORY;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return CAIRO_STATUS_SUCCESS;
}

static cairo_status_t file_write(void *closure, const unsigned char *data, unsigned int len)
{
    return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

int lens_figure_png_mem(cairo_surface_t *img, const char *name, unsigned char **buf,
                        size_t *len, struct lens_err *e)
{
    struct lens_figure_buf b = {0};
    *buf = NULL;
    *len = 0;
    cairo_status_t st = cairo_surface_write_to_png_stream(img, lens_figure_buf_write, &b);
    if (st != CAIRO_STATUS_SUCCESS || b.failed) {
        lens_free(b.data);
        if (b.failed || st == CAIRO_STATUS_NO_MEMORY)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory encoding png", name);
        return lens_err_set(e, LENS_ELIB, "%s: cairo: %s", name, cairo_status_to_string(st));
    }
    *buf = b.data;
    *len = b.len;
    return LENS_OK;
}

int lens_figure_png_write(cairo_surface_t *img, const char *path, struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "wb", e);
    if (rc)
        return rc;
    cairo_status_t st = cairo_surface_write_to_png_stream(img, file_write, a.fp);
    if (st == CAIRO_STATUS_WRITE_ERROR) /* the system's reason, kept by the atomic writer */
        return lens_atomic_fail(&a, LENS_EIO, e);
    if (st != CAIRO_STATUS_SUCCESS) {
        lens_atomic_abort(&a);
        return lens_err_set(e, LENS_ELIB, "%s: cairo: %s", path, cairo_status_to_string(st));
    }
    return lens_atomic_commit(&a, e);
}

cairo_surface_t *lens_figure_svg_create(struct lens_figure_buf *svg, double w, double h)
{
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(lens_figure_buf_write, svg, w, h);
    cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
    return s;
}

/* Ids cairo 1.16 takes from process-wide counters; the others are numbered per document. */
static const char *const counter_ids[] = {"surface", "image", "source-"};
enum { NCOUNTER = 3, MAXIDS = 256 };

struct renumber {
    long old[NCOUNTER][MAXIDS]; /* distinct old numbers per prefix, in order of appearance */
    int n[NCOUNTER];
};

/* At p (just after `id="`, `#` or `url(#`): if a counter id follows, writes the renumbered
 * id into out and returns the input bytes consumed, else 0. */
static size_t renumber_at(struct renumber *r, const char *p, const char *end, char *out,
                          size_t outn)
{
    for (int k = 0; k < NCOUNTER; k++) {
        size_t pl = strlen(counter_ids[k]);
        if ((size_t)(end - p) <= pl || memcmp(p, counter_ids[k], pl) != 0)
            continue;
        const char *q = p + pl;
        long v = 0;
        while (q < end && *q >= '0' && *q <= '9' && v < 100000000)
            v = v * 10 + (*q++ - '0');
        if (q == p + pl || q >= end || (*q != '"' && *q != ')'))
            continue;
        int i;
        for (i = 0; i < r->n[k] && r->old[k][i] != v; i++)
            ;
        if (i == r->n[k]) {
            if (r->n[k] == MAXIDS)
                return 0; /* more ids than any figure makes: leave them as they are */
            r->old[k][r->n[k]++] = v;
        }
        snprintf(out, outn, "%s%d", counter_ids[k], i + 1);
        return (size_t)(q - p);
    }
    return 0;
}

int lens_figure_svg_commit(cairo_surface_t *surface, struct lens_figure_buf *svg,
                           const char *path, struct lens_err *e)
{
    static const char pixelated[] = "<image style=\"image-rendering:optimizeSpeed;"
                                    "image-rendering:pixelated\" ";
    cairo_surface_finish(surface);
    cairo_status_t st = cairo_surface_status(surface);
    cairo_surface_destroy(surface);
    if (st != CAIRO_STATUS_SUCCESS || svg->failed) {
        int oom = svg->failed || st == CAIRO_STATUS_NO_MEMORY;
        lens_free(svg->data);
        memset(svg, 0, sizeof *svg);
        if (oom)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory writing svg", path);
        return lens_err_set(e, LENS_ELIB, "%s: cairo: %s", path, cairo_status_to_string(st));
    }
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "wb", e);
    if (rc) {
        lens_free(svg->data);
        memset(svg, 0, sizeof *svg);
        return rc;
    }
    struct renumber *r = lens_calloc(1, sizeof *r);
    if (!r) {
        lens_atomic_abort(&a);
        lens_free(svg->data);
        memset(svg, 0, sizeof *svg);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    const char *p = (const char *)svg->data, *end = p + svg->len, *flushed = p;
    while (p < end) {
        size_t skip = 0;
        char id[64];
        const char *at = NULL;
        if (*p == '#')
            at = p + 1;
        else if (*p == 'i' && end - p > 4 && !memcmp(p, "id=\"", 4))
            at = p + 4;
        else if (*p == '<' && end - p > 7 && !memcmp(p, "<image ", 7)) {
            fwrite(flushed, 1, (size_t)(p - flushed), a.fp);
            fputs(pixelated, a.fp);
            p += 7;
            flushed = p;
            continue;
        }
        if (at && (skip = renumber_at(r, at, end, id, sizeof id)) > 0) {
            fwrite(flushed, 1, (size_t)(at - flushed), a.fp);
            fputs(id, a.fp);
            p = at + skip;
            flushed = p;
            continue;
        }
        p++;
    }
    fwrite(flushed, 1, (size_t)(end - flushed), a.fp);
    lens_free(r);
    lens_free(svg->data);
    memset(svg, 0, sizeof *svg);
    return lens_atomic_commit(&a, e);
}

int lens_figure_format(const char *path, struct lens_err *e)
{
    size_t n = strlen(path);
    if (n > 4 && !strcmp(path + n - 4, ".svg"))
        return 1;
    if (n > 4 && !strcmp(path + n - 4, ".png"))
        return 0;
    return lens_err_set(e, LENS_EINVAL, "%s: the picture must end in .png or .svg", path);
}

int lens_figure_output(const char *path, const char *name, int w, int h, lens_figure_draw_fn draw,
                       void *ctx, unsigned char **buf, size_t *len, struct lens_err *e)
{
    int svg = 0;
    if (path) {
        name = path;
        if ((svg = lens_figure_format(path, e)) < 0)
            return svg;
    }
    struct lens_figure_buf sb = {0};
    cairo_surface_t *sf = svg ? lens_figure_svg_create(&sb, w, h)
                              : cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    cairo_t *cr = cairo_create(sf);
    int rc = lens_figure_status(cr, name, e);
    if (rc == LENS_OK)
        rc = draw(ctx, cr, w, h, name, e);
    cairo_destroy(cr);
    if (rc) {
        cairo_surface_destroy(sf);
        lens_free(sb.data);
        return rc;
    }
    if (svg)
        return lens_figure_svg_commit(sf, &sb, path, e);
    cairo_surface_flush(sf);
    rc = path ? lens_figure_png_write(sf, path, e) : lens_figure_png_mem(sf, name, buf, len, e);
    cairo_surface_destroy(sf);
    return rc;
}
