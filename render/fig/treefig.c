/* Output plumbing of the tree figures: PNG/SVG by extension or PNG in memory, the SVG text
 * layer, the palette and leaf labels. See treefig.h for the contracts. */
#include "treefig.h"

#include "figure.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* One label as the SVG text layer repeats it: baseline start in device units. */
struct text_item {
    double x, y, size, angle, width; /* angle in degrees, clockwise as SVG wants it */
    char *s;                         /* owned, UTF-8 */
};

struct lens_treefig_text {
    struct text_item *items;
    size_t n, cap;
    int failed; /* an allocation failed: the layer is incomplete, the write reports ENOMEM */
};

int lens_treefig_format(const char *path, struct lens_err *e)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    if (dot && strchr(dot, '/') == NULL) {
        if (!strcasecmp(dot, ".png"))
            return LENS_TREEFIG_PNG;
        if (!strcasecmp(dot, ".svg"))
            return LENS_TREEFIG_SVG;
    }
    return lens_err_set(e, LENS_EINVAL, "%s: unknown picture format, the name must end in .png or .svg",
                        path ? path : "(null)");
}

static int check_size(const char *name, int w, int h, struct lens_err *e)
{
    if (w < 160 || h < 120 || w > 16384 || h > 16384)
        return lens_err_set(e, LENS_EINVAL, "%s: figure size %dx%d outside 160x120..16384x16384",
                            name, w, h);
    return LENS_OK;
}

int lens_treefig_check_box(const char *name, double w, double h, struct lens_err *e)
{
    if (!(w >= 160 && h >= 120 && isfinite(w) && isfinite(h)))
        return lens_err_set(e, LENS_EINVAL, "%s: drawing box %gx%g smaller than 160x120", name, w, h);
    return LENS_OK;
}

/* ---- labels ---- */

void lens_treefig_label(struct lens_treefig_text *log, cairo_t *cr, double x, double y,
                        const char *s, double ha, double va, double angle)
{
    lens_figure_text(cr, x, y, s, ha, va, angle);
    if (!log || log->failed)
        return;
    /* the baseline start lens_figure_text used, rotated with the text */
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    double w = lens_figure_text_width(cr, s);
    double px = -ha * w, py = fe.ascent - va * (fe.ascent + fe.descent);
    double bx = x + px * cos(angle) - py * sin(angle), by = y + px * sin(angle) + py * cos(angle);
    cairo_user_to_device(cr, &bx, &by);
    double ux = 1.0, uy = 0.0;
    cairo_user_to_device_distance(cr, &ux, &uy);
    double scale = hypot(ux, uy);
    cairo_matrix_t fm;
    cairo_get_font_matrix(cr, &fm);
    if (lens_reserve((void **)&log->items, &log->cap, log->n + 1, sizeof *log->items) != LENS_OK) {
        log->failed = 1;
        return;
    }
    struct text_item *t = &log->items[log->n];
    if (!(t->s = lens_strdup(s))) {
        log->failed = 1;
        return;
    }
    t->x = bx;
    t->y = by;
    t->size = hypot(fm.xx, fm.yx) * scale;
    t->width = w * scale;
    t->angle = (angle + atan2(uy, ux)) * 180.0 / M_PI;
    log->n++;
}

static void text_free(struct lens_treefig_text *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->n; i++)
        lens_free(log->items[i].s);
    lens_free(log->items);
    lens_free(log);
}

/* Appends s to b as XML character data: markup characters escaped, bytes that are not
 * valid UTF-8 or are control characters replaced by '?', so the document stays well formed. */
static void buf_put_xml(struct lens_figure_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
        for (int i = 1; i < len; i++)
            if ((p[i] & 0xc0) != 0x80)
                len = 0;
        const char *rep = NULL;
        if (len == 0 || (*p < 0x20 && *p != '\t'))
            rep = "?";
        else if (*p == '&')
            rep = "&amp;";
        else if (*p == '<')
            rep = "&lt;";
        else if (*p == '>')
            rep = "&gt;";
        else if (*p == '"')
            rep = "&quot;";
        if (rep) {
            lens_figure_buf_write(b, (const unsigned char *)rep, (unsigned)strlen(rep));
            p += len ? len : 1;
        } else {
            lens_figure_buf_write(b, p, (unsigned)len);
            p += len;
        }
    }
}

static void buf_printf(struct lens_figure_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void buf_printf(struct lens_figure_buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        lens_figure_buf_write(b, (const unsigned char *)tmp, (unsigned)(n < (int)sizeof tmp ? n : (int)sizeof tmp - 1));
}

/* Rebuilds the finished SVG document in svg with a <title> after the <svg> tag and the text
 * layer before </svg>. LENS_ENOMEM; a document without those tags is left as it is. */
static int svg_add_text(struct lens_figure_buf *svg, const char *title,
                        const struct lens_treefig_text *log, const char *name, struct lens_err *e)
{
    const char *doc = (const char *)svg->data, *end = doc + svg->len;
    const char *open = memmem(doc, svg->len, "<svg", 4), *close = NULL;
    for (const char *p = doc; p && p + 6 <= end; p++)
        if ((p = memmem(p, (size_t)(end - p), "</svg>", 6)) != NULL)
            close = p;
        else
            break;
    const char *gt = open ? memchr(open, '>', (size_t)(end - open)) : NULL;
    if (!gt || !close || close < gt)
        return LENS_OK;
    struct lens_figure_buf b = {0};
    lens_figure_buf_write(&b, svg->data, (unsigned)(gt + 1 - doc));
    if (title) {
        buf_printf(&b, "\n<title>");
        buf_put_xml(&b, title);
        buf_printf(&b, "</title>");
    }
    lens_figure_buf_write(&b, (const unsigned char *)gt + 1, (unsigned)(close - gt - 1));
    if (log->n > 0) {
        buf_printf(&b, "<g id=\"labels\" xml:space=\"preserve\" font-family=\"DejaVu Sans, sans-serif\" fill=\"#000\" "
                       "fill-opacity=\"0\" stroke=\"none\">\n");
        for (size_t i = 0; i < log->n; i++) {
            const struct text_item *t = &log->items[i];
            buf_printf(&b, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.2f\" textLength=\"%.2f\" "
                           "lengthAdjust=\"spacingAndGlyphs\"", t->x, t->y, t->size, t->width);
            if (fabs(t->angle) > 1e-9)
                buf_printf(&b, " transform=\"rotate(%.2f %.2f %.2f)\"", t->angle, t->x, t->y);
            buf_printf(&b, ">");
            buf_put_xml(&b, t->s);
            buf_printf(&b, "</text>\n");
        }
        buf_printf(&b, "</g>\n");
    }
    lens_figure_buf_write(&b, (const unsigned char *)close, (unsigned)(end - close));
    if (b.failed) {
        lens_free(b.data);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory writing svg", name);
    }
    lens_free(svg->data);
    *svg = b;
    return LENS_OK;
}

/* ---- output ---- */

static int render_image(int width, int height, lens_treefig_draw_fn draw, void *ctx,
                        const char *name, cairo_surface_t **img, struct lens_err *e)
{
    *img = NULL;
    int rc = check_size(name, width, height, e);
    if (rc)
        return rc;
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, width, height);
    cairo_t *cr = cairo_create(s);
    rc = lens_figure_status(cr, name, e);
    if (rc == LENS_OK)
        rc = draw(ctx, cr, width, height, NULL, e);
    if (rc == LENS_OK)
        rc = lens_figure_status(cr, name, e);
    cairo_destroy(cr);
    if (rc) {
        cairo_surface_destroy(s);
        return rc;
    }
    cairo_surface_flush(s);
    *img = s;
    return LENS_OK;
}

static int write_svg(const char *path, int width, int height, const char *title,
                     lens_treefig_draw_fn draw, void *ctx, struct lens_err *e)
{
    struct lens_treefig_text *log = lens_calloc(1, sizeof *log);
    if (!log)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    struct lens_figure_buf svg = {0};
    cairo_surface_t *s = lens_figure_svg_create(&svg, width, height);
    cairo_t *cr = cairo_create(s);
    int rc = lens_figure_status(cr, path, e);
    if (rc == LENS_OK)
        rc = draw(ctx, cr, width, height, log, e);
    if (rc == LENS_OK)
        rc = lens_figure_status(cr, path, e);
    cairo_destroy(cr);
    if (rc == LENS_OK && log->failed)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the labels", path);
    if (rc == LENS_OK) {
        /* finish now so the whole document is in svg; the commit below finds it finished */
        cairo_surface_finish(s);
        if (cairo_surface_status(s) == CAIRO_STATUS_SUCCESS && !svg.failed)
            rc = svg_add_text(&svg, title, log, path, e);
    }
    text_free(log);
    if (rc) {
        cairo_surface_destroy(s);
        lens_free(svg.data);
        return rc;
    }
    return lens_figure_svg_commit(s, &svg, path, e);
}

int lens_treefig_write(const char *path, int width, int height, const char *title,
                       lens_treefig_draw_fn draw, void *ctx, struct lens_err *e)
{
    int fmt = lens_treefig_format(path, e);
    if (fmt < 0)
        return fmt;
    if (fmt == LENS_TREEFIG_SVG) {
        int rc = check_size(path, width, height, e);
        return rc ? rc : write_svg(path, width, height, title, draw, ctx, e);
    }
    cairo_surface_t *img;
    int rc = render_image(width, height, draw, ctx, path, &img, e);
    if (rc)
        return rc;
    rc = lens_figure_png_write(img, path, e);
    cairo_surface_destroy(img);
    return rc;
}

int lens_treefig_png_mem(int width, int height, lens_treefig_draw_fn draw, void *ctx,
                         unsigned char **buf, size_t *len, struct lens_err *e)
{
    static const char name[] = "tree figure png (memory)";
    cairo_surface_t *img;
    *buf = NULL;
    *len = 0;
    int rc = render_image(width, height, draw, ctx, name, &img, e);
    if (rc)
        return rc;
    rc = lens_figure_png_mem(img, name, buf, len, e);
    cairo_surface_destroy(img);
    return rc;
}

/* ---- palette and labels ---- */

void lens_treefig_color(int c, double rgb[3])
{
    /* matplotlib tab10 without its grey (#7f7f7f) */
    static const unsigned int pal[LENS_TREEFIG_NCOLORS] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                                           0x8c564b, 0xe377c2, 0xbcbd22, 0x17becf};
    unsigned int v = pal[(c < 0 ? -c : c) % LENS_TREEFIG_NCOLORS];
    rgb[0] = ((v >> 16) & 255) / 255.0;
    rgb[1] = ((v >> 8) & 255) / 255.0;
    rgb[2] = (v & 255) / 255.0;
}

void lens_treefig_color_none(double rgb[3])
{
    rgb[0] = rgb[1] = rgb[2] = 0x40 / 255.0;
}

void lens_treefig_leaf_label(const char *label, int index, char *buf, size_t n)
{
    if (!label) {
        snprintf(buf, n, "%d", index);
        return;
    }
    /* "r<digits>" or "r<digits>@<host>", as lens_distmat_from_cube names processes */
    const char *p = label + 1;
    if (label[0] == 'r' && isdigit((unsigned char)*p)) {
        while (isdigit((unsigned char)*p))
            p++;
        int digits = (int)(p - label - 1);
        if (*p == '\0') {
            snprintf(buf, n, "%.*s", digits, label + 1);
            return;
        }
        if (*p == '@' && p[1]) {
            snprintf(buf, n, "%s:%.*s", p + 1, digits, label + 1);
            return;
        }
    }
    snprintf(buf, n, "%s", label);
}

/* The host part of "r<digits>@<host>", or NULL. */
static const char *host_part(const char *l)
{
    if (!l || l[0] != 'r' || !isdigit((unsigned char)l[1]))
        return NULL;
    const char *p = l + 1;
    while (isdigit((unsigned char)*p))
        p++;
    return *p == '@' && p[1] ? p + 1 : NULL;
}

int lens_treefig_host_groups(const char *const *labels, int n, int *group)
{
    if (!labels)
        return 0;
    for (int i = 0; i < n; i++)
        if (!host_part(labels[i]))
            return 0;
    int ng = 0;
    for (int i = 0; i < n; i++) {
        const char *h = host_part(labels[i]);
        int j = 0;
        while (j < i && strcmp(host_part(labels[j]), h) != 0)
            j++;
        group[i] = j < i ? group[j] : ng++;
    }
    return ng;
}

int lens_treefig_label_step(int n, double spacing, double size)
{
    static const int m125[3] = {1, 2, 5};
    if (!(spacing > 0))
        return n > 1 ? n : 1;
    for (long mag = 1; mag <= (1L << 30); mag *= 10)
        for (int k = 0; k < 3; k++) {
            long step = m125[k] * mag;
            if (step * spacing >= 1.1 * size || step >= n)
                return (int)step;
        }
    return n > 1 ? n : 1;
}
