/* The figure scaffold and the cairo helpers the figures share: FreeType fonts, text, ticks,
 * formats, status, and the one output path (lens_figure_render: PNG, SVG with renumbered ids
 * and an optional text layer, or PNG bytes for the PDF). See figure.h for the contracts. */
#include "figure.h"
#include "common/atomic.h"

#include <cairo-ft.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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
/* On the cairo_t of a figure rendered for print: the smallest font size, user units. */
static const cairo_user_data_key_t min_font_key;

/* cairo's user-data destructor: runs when the last reference to the face goes, possibly long
 * after the figure (cairo caches faces), never while a surface still needs the glyphs. */
static void ft_holder_free(void *p)
{
    struct ft_holder *h = p;
    if (!h)
        return;
    /* Face before library: FreeType requires faces to go first. */
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
        /* No font file: cairo's toy "sans" through fontconfig. Output then depends on the machine's
         * fonts, which is why the commands always pass fonts/DejaVuSans.ttf. */
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

    /* A FreeType library of our own per face: FreeType libraries are not thread-safe to share,
     * and this one lives exactly as long as cairo holds the face. */
    struct ft_holder *h = lens_calloc(1, sizeof *h);
    if (!h)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", font_path);
    FT_Error fe = FT_Init_FreeType(&h->lib);
    /* A failed init leaves lib undefined: cleared so that the free skips it. */
    if (fe) {
        h->lib = NULL;
        ft_holder_free(h);
        return lens_err_set(e, LENS_ELIB, "%s: freetype init failed (error %d)", font_path, fe);
    }
    fe = FT_New_Face(h->lib, font_path, 0, &h->face);
    /* Not a font (a truncated file, a PNG by mistake): EFORMAT names the file. */
    if (fe) {
        h->face = NULL;
        ft_holder_free(h);
        return lens_err_set(e, LENS_EFORMAT, "%s: not a font freetype can read (error %d)", font_path, fe);
    }
    /* From here on cairo owns the FT_Face's lifetime: the holder is freed by the user-data
     * destructor when the cairo face goes, never before. */
    cairo_font_face_t *f = cairo_ft_font_face_create_for_ft_face(h->face, 0);
    if (cairo_font_face_status(f) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(f);
        ft_holder_free(h);
        return lens_err_set(e, LENS_ELIB, "%s: cairo cannot use the font", font_path);
    }
    /* On failure cairo does not take the holder: we free it ourselves. */
    if (cairo_font_face_set_user_data(f, &ft_key, h, ft_holder_free) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(f);
        ft_holder_free(h);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", font_path);
    }
    *face = f;
    return LENS_OK;
}

double lens_figure_font_floor(cairo_t *cr, double size)
{
    const double *floor_size = cairo_get_user_data(cr, &min_font_key);
    return floor_size && size < *floor_size ? *floor_size : size;
}

/* The current font's size in user units (the font matrix's x scale). */
static double cairo_font_size_of(cairo_t *cr)
{
    cairo_matrix_t m;
    cairo_get_font_matrix(cr, &m);
    return m.xx;
}

int lens_figure_text_wrap(struct lens_figure_text *log, cairo_t *cr, double x, double y, const char *s,
                          double maxw, double ha, int draw)
{
    char line[512];
    double lh = 1.2 * cairo_font_size_of(cr);
    int n = 0;
    const char *p = s;
    /* Greedy: each line takes words while they fit in maxw; a word wider than maxw alone
     * gets a line of its own (it may overflow, but no word is ever dropped). */
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t len = 0, best = 0;
        for (;;) {
            const char *q = p + len;
            while (*q && *q != ' ')
                q++;
            size_t cand = (size_t)(q - p);
            if (cand >= sizeof line)
                break;
            memcpy(line, p, cand);
            line[cand] = 0;
            if (best && lens_figure_text_width(cr, line) > maxw)
                break;
            best = cand;
            len = cand;
            if (!*q)
                break;
            len++; /* the space */
        }
        if (!best) { /* a word longer than the buffer: cut at the buffer (not at a code point) */
            best = strlen(p) < sizeof line - 1 ? strlen(p) : sizeof line - 1;
            while (best > 0 && ((unsigned char)p[best] & 0xc0) == 0x80)
                best--;
        }
        memcpy(line, p, best);
        line[best] = 0;
        if (draw)
            lens_figure_label(log, cr, x, y + n * lh, line, ha, 0, 0);
        n++;
        p += best;
    }
    return n;
}

/* Every figure selects fonts through here, so that all of them get the same device-independent
 * options; set per call because cairo_save/restore also restores font options. */
void lens_figure_set_font(cairo_t *cr, cairo_font_face_t *face, double size)
{
    /* A figure put out for print carries the size (user units) under which its text would
     * print below LENS_FIGURE_MIN_PT; every figure letters through here, so one floor holds
     * for all of them. */
    size = lens_figure_font_floor(cr, size);
    cairo_set_font_face(cr, face);
    cairo_set_font_size(cr, size);
    cairo_font_options_t *fo = cairo_font_options_create();
    /* Hinting snaps glyphs to the device's pixel grid, so PNG, SVG and the PDF would each lay
     * text out differently; with it off, advances are the font's own and layouts agree. */
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    /* Grey rather than subpixel antialiasing: subpixel depends on the screen's layout, and
     * colour fringes would be baked into the PNG. */
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
}

/* The advance, not the ink width: what the next text would start after, as layouts need. */
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
    /* Rotation about the anchor, restored afterwards: callers' transforms stay untouched. */
    cairo_save(cr);
    cairo_translate(cr, x, y);
    if (angle != 0.0)
        cairo_rotate(cr, angle);
    /* Anchored on the font's box (ascent + descent), not on the ink, so that labels of one row
     * share a baseline whatever letters they hold. */
    cairo_move_to(cr, -ha * w, fe.ascent - va * (fe.ascent + fe.descent));
    cairo_show_text(cr, s);
    cairo_restore(cr);
}

/* Cuts by code points, not bytes, so that a host name in Cyrillic is never cut mid-character. */
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
    /* Short enough: copied whole, no ellipsis. */
    if (!s[i]) {
        snprintf(buf, n, "%s", s);
        return;
    }
    /* The cut text and the 3-byte ellipsis with its NUL must fit the buffer. */
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
    /* f in [1, 10): the smallest of 1, 2, 5, 10 not below it gives a round step. */
    double f = raw / mag;
    double nice = f <= 1.0 ? 1.0 : f <= 2.0 ? 2.0 : f <= 5.0 ? 5.0 : 10.0;
    return nice * mag;
}

static int linear_ticks(double lo, double hi, int max_ticks, double *ticks, double *step)
{
    /* max_ticks - 1 intervals between max_ticks ticks. */
    double st = nice_step((hi - lo) / (max_ticks > 1 ? max_ticks - 1 : 1));
    /* Tick numbers, not values: k * st keeps rounding errors from accumulating along the axis. */
    double k0 = ceil(lo / st - 1e-9), k1 = floor(hi / st + 1e-9);
    int n = 0;
    /* Tick k at k * st, clipped to max_ticks whatever rounding did to k1. */
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
    /* A flat or inverted range has no ticks; callers then draw their axis unlabelled. */
    if (!(hi > lo) || max_ticks < 1)
        return 0;
    if (log_scale && lo > 0.0) {
        /* The whole decades inside [lo, hi]; a range within one decade falls back to linear ticks. */
        int d0 = (int)ceil(log10(lo) - 1e-9), d1 = (int)floor(log10(hi) + 1e-9);
        if (d1 - d0 + 1 >= 2) {
            int n = 0, every = (d1 - d0 + max_ticks) / max_ticks; /* thin out many decades */
            /* Few decades and room for them: 2x and 5x ticks too, or the axis would show two labels. */
            int sub = d1 - d0 + 1 <= 3 && 3 * (d1 - d0 + 2) <= max_ticks;
            /* From the decade below d0: its 2x and 5x may lie inside the range. */
            for (int d = d0 - 1; d <= d1 && n < max_ticks; d++) {
                static const double mult[3] = {1.0, 2.0, 5.0};
                for (int m = 0; m < (sub ? 3 : 1); m++) {
                    double v = mult[m] * pow(10.0, d);
                    /* Thinned decades keep every every-th power of ten, counted from the first inside. */
                    if (m == 0 && (d - d0) % every != 0)
                        continue;
                    /* A relative slack: 1e-9 of the value itself, whatever the decade. */
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
    /* Fixed decimals would be long or all zeros out here: three significant digits instead. */
    } else if (a >= 1e6 || a < 1e-4) {
        snprintf(buf, n, "%.3g", v);
    } else if (step > 0.0) {
        /* As many decimals as the step needs (step 0.05 -> 2), so neighbouring labels differ. */
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
    /* Up to 9999 as it is: "12k" is shorter than "12000", but "9999" beats "9.999k". */
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
    /* cairo records the first error on the context or on its surface and then does nothing:
     * one check after drawing catches anything that went wrong while drawing. */
    cairo_status_t st = cairo_status(cr);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(cairo_get_target(cr));
    if (st == CAIRO_STATUS_SUCCESS)
        return LENS_OK;
    /* Out of memory stays ENOMEM so that the fault-injection tests see the cause they caused. */
    return lens_err_set(e, st == CAIRO_STATUS_NO_MEMORY ? LENS_ENOMEM : LENS_ELIB,
                        "%s: cairo: %s", name, cairo_status_to_string(st));
}

/* A growing byte buffer that cairo stream writers fill: the SVG document is built in memory
 * so that its ids can be renumbered and its text layer added before the atomic write. */
struct fbuf {
    unsigned char *data; /* owned, lens_free */
    size_t len, cap;     /* bytes used / allocated */
    int failed;          /* 1 once an allocation failed: the document is incomplete */
};

static cairo_status_t fbuf_write(void *closure, const unsigned char *data, unsigned int len)
{
    struct fbuf *b = closure;
    /* After one failed allocation every later write fails too: cairo then stops the stream
     * and the caller reports ENOMEM once, from failed. */
    if (b->failed)
        return CAIRO_STATUS_WRITE_ERROR;
    if (b->len + len > b->cap) {
        /* doubling from 64 KiB: a figure's SVG is tens of KiB to a few MiB */
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

static void fbuf_free(struct fbuf *b)
{
    lens_free(b->data);
    memset(b, 0, sizeof *b);
}

/* A short write is a write error: errno stays for the atomic writer to report. */
static cairo_status_t file_write(void *closure, const unsigned char *data, unsigned int len)
{
    return fwrite(data, 1, len, closure) == len ? CAIRO_STATUS_SUCCESS : CAIRO_STATUS_WRITE_ERROR;
}

/* Per thread, so that a report drawn in one thread never changes what another's figures are. */
static _Thread_local int memory_form = LENS_FIGURE_MEM_PNG;

int lens_figure_memory_form(int form)
{
    int prev = memory_form;
    memory_form = form;
    return prev;
}

/* The RAW and SIZE headers: 8 bytes of magic (0x89 first, like PNG's, so neither is text and
 * neither is a PNG), then width and height as 4 little-endian bytes each. */
#define RAW_HEADER 16
static const unsigned char raw_magic[8] = {0x89, 'L', 'E', 'N', 'S', 'R', 'G', 'B'};
static const unsigned char size_magic[8] = {0x89, 'L', 'E', 'N', 'S', 'S', 'I', 'Z'};

static void put_u32(unsigned char *p, unsigned v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static unsigned get_u32(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
}

int lens_figure_raw_parse(const unsigned char *buf, size_t len, int *w, int *h,
                          const unsigned char **rgb)
{
    if (!buf || len < RAW_HEADER)
        return 0;
    int sized = !memcmp(buf, size_magic, 8);
    if (!sized && memcmp(buf, raw_magic, 8))
        return 0;
    unsigned uw = get_u32(buf + 8), uh = get_u32(buf + 12);
    /* cairo's image surfaces stop at 32767 pixels a side: anything larger is not ours, and the
     * bound keeps w * h * 3 far from overflowing */
    if (uw == 0 || uh == 0 || uw > 32767 || uh > 32767)
        return LENS_EFORMAT;
    if (len != RAW_HEADER + (sized ? 0 : (size_t)uw * uh * 3))
        return LENS_EFORMAT;
    *w = (int)uw;
    *h = (int)uh;
    *rgb = sized ? NULL : buf + RAW_HEADER;
    return 1;
}

/* The header alone: what a layout pass needs to place a figure it never saves. */
static int size_mem(int w, int h, const char *name, unsigned char **buf, size_t *len, struct lens_err *e)
{
    unsigned char *b = lens_malloc(RAW_HEADER);
    if (!b)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", name);
    memcpy(b, size_magic, 8);
    put_u32(b + 8, (unsigned)w);
    put_u32(b + 12, (unsigned)h);
    *buf = b;
    *len = RAW_HEADER;
    return LENS_OK;
}

/* Packed RGB from cairo's native-endian 32-bit pixels, for libharu's DeviceRGB images. ARGB32
 * is premultiplied, so c + (255 - a) is the pixel composited over white, exactly what the PNG
 * with its alpha channel showed on the white page; RGB24's top byte is unused. */
static int raw_mem(cairo_surface_t *img, const char *name, unsigned char **buf, size_t *len,
                   struct lens_err *e)
{
    int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
    int stride = cairo_image_surface_get_stride(img);
    const unsigned char *px = cairo_image_surface_get_data(img);
    if (!px || w <= 0 || h <= 0)
        return lens_err_set(e, LENS_ELIB, "%s: cairo: no pixels to embed", name);
    int alpha = cairo_image_surface_get_format(img) == CAIRO_FORMAT_ARGB32;
    size_t n = RAW_HEADER + (size_t)w * h * 3;
    unsigned char *b = lens_malloc(n);
    if (!b)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %dx%d pixels", name, w, h);
    memcpy(b, raw_magic, 8);
    put_u32(b + 8, (unsigned)w);
    put_u32(b + 12, (unsigned)h);
    unsigned char *o = b + RAW_HEADER;
    for (int y = 0; y < h; y++) {
        const uint32_t *row = (const uint32_t *)(const void *)(px + (size_t)y * stride);
        for (int x = 0; x < w; x++) {
            uint32_t v = row[x];
            unsigned a = alpha ? v >> 24 : 255, pad = 255 - a;
            *o++ = (unsigned char)(((v >> 16) & 0xff) + pad);
            *o++ = (unsigned char)(((v >> 8) & 0xff) + pad);
            *o++ = (unsigned char)((v & 0xff) + pad);
        }
    }
    *buf = b;
    *len = n;
    return LENS_OK;
}

/* Bytes for lens_pdf_image_png (how the reports embed every figure) in this thread's form. */
int lens_figure_png_mem(cairo_surface_t *img, const char *name, unsigned char **buf,
                        size_t *len, struct lens_err *e)
{
    struct fbuf b = {0};
    *buf = NULL;
    *len = 0;
    /* the surface may be flushed already; flushing twice costs nothing */
    cairo_surface_flush(img);
    if (memory_form == LENS_FIGURE_MEM_RAW)
        return raw_mem(img, name, buf, len, e);
    if (memory_form == LENS_FIGURE_MEM_SIZE)
        return size_mem(cairo_image_surface_get_width(img), cairo_image_surface_get_height(img), name,
                        buf, len, e);
    /* Through our buffer, not cairo's own file writer, so allocation goes through lens_malloc
     * and its fault injection. */
    cairo_status_t st = cairo_surface_write_to_png_stream(img, fbuf_write, &b);
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

static int png_write(cairo_surface_t *img, const char *path, struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "wb", e);
    if (rc)
        return rc;
    /* Into the atomic writer's temporary file: a failure halfway leaves no half PNG under path. */
    cairo_status_t st = cairo_surface_write_to_png_stream(img, file_write, a.fp);
    if (st == CAIRO_STATUS_WRITE_ERROR) /* the system's reason, kept by the atomic writer */
        return lens_atomic_fail(&a, LENS_EIO, e);
    if (st != CAIRO_STATUS_SUCCESS) {
        lens_atomic_abort(&a);
        return lens_err_set(e, LENS_ELIB, "%s: cairo: %s", path, cairo_status_to_string(st));
    }
    return lens_atomic_commit(&a, e);
}

/* ---- the SVG text layer ---- */

/* One label as the SVG text layer repeats it: baseline start in device units. */
struct text_item {
    double x, y, size, angle, width; /* angle in degrees, clockwise as SVG wants it */
    char *s;                         /* owned, UTF-8 */
};

struct lens_figure_text {
    struct text_item *items;
    size_t n, cap;
    int failed; /* an allocation failed: the layer is incomplete, the write reports ENOMEM */
};

void lens_figure_label(struct lens_figure_text *log, cairo_t *cr, double x, double y,
                       const char *s, double ha, double va, double angle)
{
    lens_figure_text(cr, x, y, s, ha, va, angle);
    if (!log || log->failed)
        return;
    /* the baseline start lens_figure_text used, rotated with the text, so the invisible
     * copy lies exactly over the drawn glyphs and a search highlights the right place */
    cairo_font_extents_t fe;
    cairo_font_extents(cr, &fe);
    double w = lens_figure_text_width(cr, s);
    double px = -ha * w, py = fe.ascent - va * (fe.ascent + fe.descent);
    double bx = x + px * cos(angle) - py * sin(angle), by = y + px * sin(angle) + py * cos(angle);
    cairo_user_to_device(cr, &bx, &by);
    /* the user-space scale and rotation also apply to the size, width and angle */
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

static void text_free(struct lens_figure_text *log)
{
    if (!log)
        return;
    for (size_t i = 0; i < log->n; i++)
        lens_free(log->items[i].s);
    lens_free(log->items);
    lens_free(log);
}

/* Appends s to b as XML character data: markup characters escaped, bytes that are not
 * valid UTF-8 or are control characters replaced by '?', so the document stays well formed
 * whatever a label (a host name from a file) holds. */
static void buf_put_xml(struct fbuf *b, const char *s)
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
            fbuf_write(b, (const unsigned char *)rep, (unsigned)strlen(rep));
            p += len ? len : 1;
        } else {
            fbuf_write(b, p, (unsigned)len);
            p += len;
        }
    }
}

static void buf_printf(struct fbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(struct fbuf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        fbuf_write(b, (const unsigned char *)tmp, (unsigned)(n < (int)sizeof tmp ? n : (int)sizeof tmp - 1));
}

/* Rebuilds the finished SVG document in svg with a <title> after the <svg> tag and the text
 * layer before the last </svg>. LENS_ENOMEM; a document without those tags is left as it is. */
static int svg_add_text(struct fbuf *svg, const char *title, const struct lens_figure_text *log,
                        const char *name, struct lens_err *e)
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
    struct fbuf b = {0};
    fbuf_write(&b, svg->data, (unsigned)(gt + 1 - doc));
    if (title) {
        buf_printf(&b, "\n<title>");
        buf_put_xml(&b, title);
        buf_printf(&b, "</title>");
    }
    fbuf_write(&b, (const unsigned char *)gt + 1, (unsigned)(close - gt - 1));
    if (log->n > 0) {
        /* transparent fill: the layer is found and selected but never seen over the glyphs */
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
    fbuf_write(&b, (const unsigned char *)close, (unsigned)(end - close));
    if (b.failed) {
        lens_free(b.data);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory writing svg", name);
    }
    lens_free(svg->data);
    *svg = b;
    return LENS_OK;
}

/* ---- deterministic SVG ---- */

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
        /* Prefix by prefix; ids of other shapes (glyph ids, clip ids) are numbered per document
         * already and pass untouched. */
        size_t pl = strlen(counter_ids[k]);
        if ((size_t)(end - p) <= pl || memcmp(p, counter_ids[k], pl) != 0)
            continue;
        const char *q = p + pl;
        long v = 0;
        /* The number, capped: a run of digits past 10^8 is not one of cairo's counters. */
        while (q < end && *q >= '0' && *q <= '9' && v < 100000000)
            v = v * 10 + (*q++ - '0');
        /* only a whole id counts: digits right up to the closing quote or parenthesis */
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

/* Writes the finished document in svg to path atomically: ids renumbered in order of first
 * appearance (the second figure of a process gets the same bytes as the first), embedded
 * rasters marked pixelated so viewers do not blur a heat map's cells. */
static int svg_save(const struct fbuf *svg, const char *path, struct lens_err *e)
{
    static const char pixelated[] = "<image style=\"image-rendering:optimizeSpeed;"
                                    "image-rendering:pixelated\" ";
    /* The temporary file first: nothing may appear under path until the whole document is in. */
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "wb", e);
    if (rc)
        return rc;
    struct renumber *r = lens_calloc(1, sizeof *r);
    if (!r) {
        lens_atomic_abort(&a);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    const char *p = (const char *)svg->data, *end = p + svg->len, *flushed = p;
    /* one pass; bytes between rewrites are copied in runs from `flushed` */
    while (p < end) {
        size_t skip = 0;
        char id[64];
        const char *at = NULL;
        /* The three places an id occurs: href="#id", url(#id) (both after '#') and id="id". */
        if (*p == '#')
            at = p + 1;
        else if (*p == 'i' && end - p > 4 && !memcmp(p, "id=\"", 4))
            at = p + 4;
        /* Every embedded raster gets the pixelated style: a heat map's cells must stay squares. */
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
    /* The tail after the last rewrite. */
    fwrite(flushed, 1, (size_t)(end - flushed), a.fp);
    lens_free(r);
    /* a write error on a.fp is sticky: the commit finds it and leaves nothing behind */
    return lens_atomic_commit(&a, e);
}

/* Any case: "x.PNG" from a Windows user is a PNG as well. */
int lens_figure_format(const char *path, struct lens_err *e)
{
    /* Only the last four characters count: "x.svg.png" is a PNG. */
    size_t n = strlen(path);
    if (n > 4 && !strcasecmp(path + n - 4, ".svg"))
        return 1;
    if (n > 4 && !strcasecmp(path + n - 4, ".png"))
        return 0;
    return lens_err_set(e, LENS_EINVAL, "%s: output must end in .png or .svg", path);
}

/* ---- the figure protocol ---- */

/* The figure's name in messages when it has no file: its own, or "<what> png (memory)". */
static const char *memory_name(const struct lens_figure *f, char *buf, size_t n)
{
    if (f->name)
        return f->name;
    snprintf(buf, n, "%s png (memory)", f->kind->what);
    return buf;
}

/* Paints f on a fresh cairo_t of surface sf: status checked before (a surface cairo could
 * not make) and after (anything paint left on cr). */
static int paint_on(const struct lens_figure *f, cairo_surface_t *sf, cairo_font_face_t *face,
                    double w, double h, double scale, const char *name,
                    struct lens_figure_text *text, struct lens_err *e)
{
    cairo_t *cr = cairo_create(sf);
    int rc = lens_figure_status(cr, name, e);
    /* Print (scale > 0): the box stays w x h user units, drawn at scale pixels per unit, and
     * text is kept at or above LENS_FIGURE_MIN_PT once the box is placed LENS_FIGURE_PRINT_W
     * points wide. The floor lives as long as cr: user data is not part of save/restore. */
    double floor_size = LENS_FIGURE_MIN_PT * w / LENS_FIGURE_PRINT_W;
    if (rc == LENS_OK && scale > 0) {
        cairo_scale(cr, scale, scale);
        if (cairo_set_user_data(cr, &min_font_key, &floor_size, NULL) != CAIRO_STATUS_SUCCESS)
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", name);
    }
    if (rc == LENS_OK) {
        /* The surface's type says whether paint may draw vectors (SVG) or must rasterise (PNG). */
        cairo_surface_type_t t = cairo_surface_get_type(sf);
        struct lens_figure_canvas c = {cr, face, w, h,
                                       t == CAIRO_SURFACE_TYPE_SVG || t == CAIRO_SURFACE_TYPE_PDF ||
                                           t == CAIRO_SURFACE_TYPE_PS,
                                       name, text};
        rc = f->kind->paint(f->data, &c, e);
    }
    /* An error cairo recorded while painting shows up here, once. */
    if (rc == LENS_OK)
        rc = lens_figure_status(cr, name, e);
    cairo_destroy(cr);
    return rc;
}

double lens_figure_print_scale(double w)
{
    double scale = fmax(1.0, LENS_FIGURE_PRINT_DPI / 72.0 * LENS_FIGURE_PRINT_W / w);
    /* rounded up to 1/64, a binary fraction, so that w * scale is exact in the pixel sizes */
    return ceil(scale * 64) / 64;
}

/* The SVG path: drawn into memory, finished, given its text layer, then saved with stable ids. */
static int render_svg(const struct lens_figure *f, cairo_font_face_t *face, double w, double h,
                      const char *path, struct lens_err *e)
{
    /* Only tree figures keep the text layer; the others would pay for nothing. */
    struct lens_figure_text *text = NULL;
    if ((f->kind->flags & LENS_FIGURE_TEXT) && !(text = lens_calloc(1, sizeof *text)))
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    struct fbuf svg = {0};
    cairo_surface_t *sf = cairo_svg_surface_create_for_stream(fbuf_write, &svg, w, h);
    /* SVG 1.1: what every viewer reads, and cairo writes it the same on every machine */
    cairo_svg_surface_restrict_to_version(sf, CAIRO_SVG_VERSION_1_1);
    /* The surface is in memory: the atomic file is opened only once the figure is drawn, so a
     * drawing error never leaves even a temporary behind. */
    int rc = paint_on(f, sf, face, w, h, 0, path, text, e);
    if (rc == LENS_OK && text && text->failed)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the labels", path);
    if (rc == LENS_OK) {
        /* finish now so that the whole document is in svg before it is edited */
        cairo_surface_finish(sf);
        cairo_status_t st = cairo_surface_status(sf);
        if (svg.failed || st == CAIRO_STATUS_NO_MEMORY)
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory writing svg", path);
        else if (st != CAIRO_STATUS_SUCCESS)
            rc = lens_err_set(e, LENS_ELIB, "%s: cairo: %s", path, cairo_status_to_string(st));
    }
    /* The text layer is spliced into the finished document, before the ids are renumbered. */
    if (rc == LENS_OK && text)
        rc = svg_add_text(&svg, f->title, text, path, e);
    if (rc == LENS_OK)
        rc = svg_save(&svg, path, e);
    /* Destroyed only now: the text layer and the save read the buffer the surface wrote into. */
    cairo_surface_destroy(sf);
    text_free(text);
    fbuf_free(&svg);
    return rc;
}

/* The PNG path: one image surface, written to path atomically or encoded into memory. */
static int render_png(const struct lens_figure *f, cairo_font_face_t *face, double w, double h,
                      const char *path, const char *name, unsigned char **buf, size_t *len,
                      struct lens_err *e)
{
    /* opaque figures keep RGB24: their PNGs have no alpha channel, as they always had */
    cairo_format_t fmt = (f->kind->flags & LENS_FIGURE_ALPHA) ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24;
    /* PNG bytes go into a PDF (libharu embeds rasters only): drawn with enough pixels for
     * LENS_FIGURE_PRINT_DPI at the text width, the widest it is placed. A figure the page
     * narrows to fit its height only gains pixels per inch. Files keep their natural size. */
    double scale = 0, pw = w, ph = h;
    if (!path) {
        scale = lens_figure_print_scale(w);
        pw = ceil(w * scale), ph = ceil(h * scale);
    }
    /* A layout pass only places the figure: its size is all it reads, so nothing is painted
     * (paint errors show on the drawn pass, which paints the same figure). */
    if (!path && memory_form == LENS_FIGURE_MEM_SIZE)
        return size_mem((int)pw, (int)ph, name, buf, len, e);
    /* A fractional height (the pie) is cut to whole pixels; paint still gets the exact box. */
    cairo_surface_t *sf = cairo_image_surface_create(fmt, (int)pw, (int)ph);
    int rc = paint_on(f, sf, face, w, h, scale, name, NULL, e);
    if (rc == LENS_OK) {
        /* Flush before reading the pixels: cairo may still hold drawing operations. */
        cairo_surface_flush(sf);
        rc = path ? png_write(sf, path, e) : lens_figure_png_mem(sf, name, buf, len, e);
    }
    cairo_surface_destroy(sf);
    return rc;
}

/* The one output function of every figure (figure.h): the order is format, check, size,
 * font, surface, paint, output, so the cheapest refusals come first. */
int lens_figure_render(const struct lens_figure *f, const char *path, unsigned char **buf,
                       size_t *len, struct lens_err *e)
{
    char mem[96];
    const char *name = path ? path : memory_name(f, mem, sizeof mem);
    int svg = 0;
    /* Memory output starts empty, so that a failure never hands back a stale pointer. */
    if (buf) {
        *buf = NULL;
        *len = 0;
    }
    /* the cheap refusals first: a wrong extension or bad data allocate nothing */
    if (path && f->as)
        svg = f->as == LENS_FIGURE_AS_SVG;
    else if (path && (svg = lens_figure_format(path, e)) < 0)
        return svg;
    int rc = f->kind->check(f->data, name, e);
    if (rc)
        return rc;
    /* the size may depend on the data (pie, slices, timeline): asked once it is valid */
    double w, h;
    f->kind->size(f->data, &w, &h);
    /* one face per figure, shared by every text of the paint */
    cairo_font_face_t *face = NULL;
    if ((rc = lens_figure_font_load(f->font_path, &face, e)) < 0)
        return rc;
    rc = svg ? render_svg(f, face, w, h, path, e) : render_png(f, face, w, h, path, name, buf, len, e);
    /* cairo holds its own reference while a surface still needs the glyphs */
    cairo_font_face_destroy(face);
    return rc;
}

int lens_figure_draw(const struct lens_figure *f, cairo_t *cr, double x, double y, double w,
                     double h, struct lens_err *e)
{
    const char *name = f->name ? f->name : f->kind->what;
    int rc = f->kind->check(f->data, name, e);
    if (rc)
        return rc;
    cairo_font_face_t *face = NULL;
    if ((rc = lens_figure_font_load(f->font_path, &face, e)) < 0)
        return rc;
    /* a PDF page or an SVG of the caller's counts as vector, as in lens_figure_render */
    cairo_surface_type_t t = cairo_surface_get_type(cairo_get_target(cr));
    struct lens_figure_canvas c = {cr, face, w, h,
                                   t == CAIRO_SURFACE_TYPE_SVG || t == CAIRO_SURFACE_TYPE_PDF ||
                                       t == CAIRO_SURFACE_TYPE_PS,
                                   name, NULL};
    /* paint always draws from (0, 0): the box's corner becomes the origin, and the clip
     * keeps a figure that paints its whole background (cairo_paint) inside its box */
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_clip(cr);
    rc = f->kind->paint(f->data, &c, e);
    cairo_restore(cr);
    cairo_font_face_destroy(face);
    return rc ? rc : lens_figure_status(cr, name, e);
}

int lens_figure_measure(const struct lens_figure *f, lens_figure_measure_fn fn, void *out,
                        struct lens_err *e)
{
    const char *name = f->name ? f->name : f->kind->what;
    int rc = f->kind->check(f->data, name, e);
    if (rc)
        return rc;
    double w, h;
    f->kind->size(f->data, &w, &h);
    cairo_font_face_t *face = NULL;
    if ((rc = lens_figure_font_load(f->font_path, &face, e)) < 0)
        return rc;
    /* text extents need a cairo_t, not a surface of the figure's size: 1 x 1 pixel does */
    cairo_surface_t *sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1);
    cairo_t *cr = cairo_create(sf);
    rc = lens_figure_status(cr, name, e);
    if (rc == LENS_OK) {
        struct lens_figure_canvas c = {cr, face, w, h, 0, name, NULL};
        rc = fn(f->data, &c, out, e);
    }
    cairo_destroy(cr);
    cairo_surface_destroy(sf);
    cairo_font_face_destroy(face);
    return rc;
}
