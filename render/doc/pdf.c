/* Flowing-layout PDF writer over libharu 2.3 (see pdf.h). libharu reports errors through a
 * callback; ours records the first one in the document struct and every public function
 * turns it into a lens_err, so nothing longjmps or aborts. */
#include "pdf.h"
#include "common/atomic.h"
#include "pdf_fix.h"
#include "render/fig/fig.h"

#include <cairo.h>
#include <errno.h>
#include <hpdf.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A4 portrait and the margins, in points. */
/* A4 is 210 x 297 mm: 595.276 x 841.89 points at 72 points per inch. The 56-point (2 cm) margins
 * leave a text width of about 483 points, which the figures (900 pixels wide) and the tables are
 * scaled to. */
#define PAGE_W 595.276
#define PAGE_H 841.89
#define MARGIN_X 56.0
#define MARGIN_TOP 56.0
#define MARGIN_BOTTOM 56.0
#define FOOTER_Y 30.0 /* baseline of the page footer, inside the bottom margin */
#define BODY_SIZE 10.0 /* points; headings, tables and captions are sized from it */
#define LEADING 1.35 /* line height as a multiple of the font size */
#define CELL_PAD 4.0 /* points between a cell's text and its edges, on every side */

/* A wrapped line points into the text it was cut from, so wrapping allocates one array and copies
 * no strings; the text must outlive the lines. */
struct line {
    const char *s; /* start inside the wrapped text (not terminated) */
    int n;         /* bytes */
};

/* The table being drawn: the geometry fixed at lens_pdf_table_begin and the header kept to repeat
 * it at the top of each page the table continues on. */
struct table {
    int active; /* between table_begin and table_end; a row outside is an error */
    int ncols, font; /* font: enum lens_pdf_font of the body rows */
    double x[LENS_PDF_MAXCOLS], w[LENS_PDF_MAXCOLS]; /* column left edges and widths */
    int align[LENS_PDF_MAXCOLS];
    char *header[LENS_PDF_MAXCOLS]; /* owned copies; NULL when the table has no header */
    int has_header; /* some header is non-empty: draw the header row */
    /* where the text of each cell of the last row landed, for lens_pdf_table_cell_rect */
    struct lens_pdf_rect cell[LENS_PDF_MAXCOLS];
};

/* A link waiting for lens_pdf_save: its target may be a page that does not exist yet. */
struct pending_link {
    struct lens_pdf_rect at;
    int target; /* 0-based page index */
};

struct lens_pdf {
    HPDF_Doc doc;
    HPDF_Font font[LENS_PDF_NFONTS];
    /* Footers say "page i of n", and n is only known at lens_pdf_save: keep every page to draw them
     * all then. */
    HPDF_Page *pages; /* every page in order, for the footers */
    int npages, cap;
    int fresh;        /* nothing drawn yet on the current page */
    double y;         /* cursor: top of the next line, points from the bottom */
    /* A heading of level l is nested under the last heading of the nearest level above it, so the
     * last entry of each level is kept; index 0 (the title) has no bookmark. */
    HPDF_Outline outline[4]; /* last outline entry per heading level (1..3) */
    int heading_page[4];     /* page count when the last heading of each level was drawn */
    char *footer;
    char *header;   /* running header of the pages added from now on, NULL: none */
    HPDF_STATUS herr, hdetail; /* first error reported by libharu, 0 if none */
    long long date; /* Unix seconds of the document information (SOURCE_DATE_EPOCH) */
    struct table tab;
    /* The bounding box of the text drawn since the last reset (page -1: none yet); it restarts on
     * a page break, so it always lies on one page. text_rect is the last lens_pdf_text call's. */
    struct lens_pdf_rect ext, text_rect;
    struct pending_link *links;
    int nlinks, linkcap;
    int sized_only; /* a figure was placed by its size alone (layout pass): lens_pdf_save refuses */
};

/* Indexed by enum lens_pdf_font. DejaVu covers Latin and Cyrillic, so the Russian problems template
 * renders with the same files. */
static const char *const font_files[LENS_PDF_NFONTS] = {
    "DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf"};

/* libharu's error callback: libharu returns to its caller after it, and the call fails on. Only the
 * first error is kept (later ones are usually its consequences); hcheck turns it into a lens_err at
 * the next public call. */
static void on_error(HPDF_STATUS err, HPDF_STATUS detail, void *user)
{
    struct lens_pdf *p = user;
    if (!p->herr) {
        p->herr = err;
        p->hdetail = detail;
    }
}

/* Words for the libharu errors a user can cause (a missing font, a bad PNG, a full disk); the rest
 * keep their hexadecimal code in the message. */
static const char *herr_name(HPDF_STATUS s)
{
    switch (s) {
    case HPDF_FAILD_TO_ALLOC_MEM: return "out of memory";
    case HPDF_FILE_IO_ERROR: return "file i/o error";
    case HPDF_FILE_OPEN_ERROR: return "cannot open file";
    case HPDF_INVALID_PNG_IMAGE: return "invalid png image";
    case HPDF_UNSUPPORTED_FUNC: return "png support not compiled in";
    case HPDF_TTF_INVALID_FOMAT: return "invalid truetype font";
    case HPDF_INVALID_FONT_NAME: return "invalid font name";
    case HPDF_PAGE_OUT_OF_RANGE: return "value out of range";
    case HPDF_INVALID_ENCODER: return "invalid text encoding";
    default: return "error";
    }
}

/* Turns a recorded libharu error into a lens_err; what says what we were doing. */
static int hcheck(struct lens_pdf *p, const char *what, struct lens_err *e)
{
    if (!p->herr)
        return LENS_OK;
    /* for file errors libharu passes errno as the detail */
    if ((p->herr == HPDF_FILE_OPEN_ERROR || p->herr == HPDF_FILE_IO_ERROR) && p->hdetail > 0)
        return lens_err_set(e, LENS_EIO, "%s: %s while %s", herr_name(p->herr), strerror((int)p->hdetail), what);
    return lens_err_set(e, LENS_ELIB, "libharu %s (0x%04X, detail %u) while %s",
                        herr_name(p->herr), (unsigned)p->herr, (unsigned)p->hdetail, what);
}

/* The cursor runs from body_top() down to MARGIN_BOTTOM; PDF y grows upwards from the bottom of the
 * page. */
static double body_top(void) { return PAGE_H - MARGIN_TOP; }
double lens_pdf_text_width(const struct lens_pdf *p) { (void)p; return PAGE_W - 2 * MARGIN_X; }
int lens_pdf_page_count(const struct lens_pdf *p) { return p->npages; }

int lens_pdf_heading_page(const struct lens_pdf *p, int level)
{
    return level >= 0 && level < 4 ? p->heading_page[level] : 0;
}
/* Before the first page there is no room yet: 0 makes a caller that keeps things together ask for a
 * page. */
double lens_pdf_remaining(const struct lens_pdf *p) { return p->npages ? p->y - MARGIN_BOTTOM : 0.0; }

int lens_pdf_new(struct lens_pdf **out, const char *fontdir, struct lens_err *e)
{
    *out = NULL;
    struct lens_pdf *p = lens_calloc(1, sizeof *p);
    if (!p)
        return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
    p->doc = HPDF_New(on_error, p);
    if (!p->doc) {
        lens_free(p);
        return lens_err_set(e, LENS_ELIB, "pdf: libharu cannot create a document");
    }
    /* Deflate streams, images and fonts: an uncompressed report with embedded fonts and a dozen
     * figures is several times larger. Compression is deterministic, so SOURCE_DATE_EPOCH still
     * gives identical bytes. */
    HPDF_SetCompressionMode(p->doc, HPDF_COMP_ALL);
    HPDF_UseUTFEncodings(p->doc);
    HPDF_SetCurrentEncoder(p->doc, "UTF-8"); /* info strings become UTF-16 */
    /* open the viewer with the bookmarks of the headings */
    HPDF_SetPageMode(p->doc, HPDF_PAGE_MODE_USE_OUTLINE);
    int rc = hcheck(p, "setting up utf-8", e);
    for (int i = 0; rc == LENS_OK && i < LENS_PDF_NFONTS; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", fontdir, font_files[i]);
        /* libharu's own message for a missing file is "file open error" with no name: check first
         * so the error names the font and the data directory it was looked up in. */
        if (access(path, R_OK) != 0) {
            rc = lens_err_set(e, LENS_EIO, "%s: font file missing or unreadable", path);
            break;
        }
        /* HPDF_TRUE embeds the font: the PDF must show the same glyphs on a machine without DejaVu */
        const char *name = HPDF_LoadTTFontFromFile(p->doc, path, HPDF_TRUE);
        if (name)
            p->font[i] = HPDF_GetFont(p->doc, name, "UTF-8");
        if (!name || !p->font[i]) {
            rc = hcheck(p, "loading a font", e);
            if (rc == LENS_OK)
                rc = lens_err_set(e, LENS_ELIB, "cannot load font");
            lens_err_prefix(e, path);
        }
    }
    if (rc != LENS_OK) {
        lens_pdf_free(p);
        return rc;
    }
    p->fresh = 1;
    p->ext.page = p->text_rect.page = -1;
    *out = p;
    return LENS_OK;
}

static void table_release(struct table *t)
{
    for (int i = 0; i < LENS_PDF_MAXCOLS; i++) {
        lens_free(t->header[i]);
        t->header[i] = NULL;
        t->cell[i].page = -1; /* a new table has no last row: no rectangle from the previous one */
    }
    t->active = 0;
}

void lens_pdf_free(struct lens_pdf *p)
{
    if (!p)
        return;
    if (p->doc)
        HPDF_Free(p->doc);
    table_release(&p->tab);
    lens_free(p->pages);
    lens_free(p->footer);
    lens_free(p->links);
    lens_free(p->header);
    lens_free(p);
}

int lens_pdf_set_info(struct lens_pdf *p, const char *title, const char *subject, long long date,
                      struct lens_err *e)
{
    p->date = date;
    time_t t = (time_t)date;
    struct tm tm;
    gmtime_r(&t, &tm);
    /* UTC with an explicit Z: the dates must not depend on the time zone of the machine, or two
     * runs with the same SOURCE_DATE_EPOCH would differ. */
    HPDF_Date d = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                   tm.tm_sec, 'Z', 0, 0};
    HPDF_SetInfoDateAttr(p->doc, HPDF_INFO_CREATION_DATE, d);
    HPDF_SetInfoDateAttr(p->doc, HPDF_INFO_MOD_DATE, d);
    /* The creator names the version, so a PDF says which mpilens drew it. */
    HPDF_SetInfoAttr(p->doc, HPDF_INFO_CREATOR, "mpilens " LENS_VERSION);
    if (title)
        HPDF_SetInfoAttr(p->doc, HPDF_INFO_TITLE, title);
    if (subject)
        HPDF_SetInfoAttr(p->doc, HPDF_INFO_SUBJECT, subject);
    return hcheck(p, "setting document information", e);
}

int lens_pdf_set_footer(struct lens_pdf *p, const char *fmt, struct lens_err *e)
{
    char *copy = NULL;
    if (fmt && !(copy = lens_strdup(fmt)))
        return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
    lens_free(p->footer);
    p->footer = copy;
    return LENS_OK;
}

int lens_pdf_set_header(struct lens_pdf *p, const char *text, struct lens_err *e)
{
    char *copy = NULL;
    if (text && *text && !(copy = lens_strdup(text)))
        return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
    lens_free(p->header);
    p->header = copy;
    return LENS_OK;
}

/* A new page with the cursor at the top. An error left by drawing the previous page is reported
 * first, so the message says what failed and not that a page could not be added. */
static int add_page(struct lens_pdf *p, struct lens_err *e)
{
    int rc = hcheck(p, "drawing the previous page", e);
    if (rc != LENS_OK)
        return rc;
    if (p->npages == p->cap) {
        int cap = p->cap ? 2 * p->cap : 16; /* doubling: a long report adds pages in amortised constant time */
        HPDF_Page *np = lens_realloc(p->pages, (size_t)cap * sizeof *np);
        if (!np)
            return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
        p->pages = np;
        p->cap = cap;
    }
    HPDF_Page page = HPDF_AddPage(p->doc);
    if (!page) {
        rc = hcheck(p, "adding a page", e);
        return rc ? rc : lens_err_set(e, LENS_ELIB, "cannot add a page");
    }
    /* libharu's default is A4 already, but the layout constants above must match the page, so say
     * it */
    HPDF_Page_SetWidth(page, (HPDF_REAL)PAGE_W);
    HPDF_Page_SetHeight(page, (HPDF_REAL)PAGE_H);
    p->pages[p->npages++] = page;
    /* The running header is drawn as the page is made, not at save like the footer: it names
     * what the page is about, which is known now and may change on the next page. Its baseline
     * sits inside the top margin, above body_top(). */
    if (p->header) {
        HPDF_Page_BeginText(page);
        HPDF_Page_SetFontAndSize(page, p->font[LENS_PDF_SANS], 8);
        HPDF_Page_TextOut(page, (HPDF_REAL)MARGIN_X, (HPDF_REAL)(PAGE_H - FOOTER_Y), p->header);
        HPDF_Page_EndText(page);
    }
    p->y = body_top();
    p->fresh = 1;
    return hcheck(p, "adding a page", e);
}

static HPDF_Page cur(struct lens_pdf *p) { return p->pages[p->npages - 1]; }

int lens_pdf_new_page(struct lens_pdf *p, struct lens_err *e)
{
    /* An empty current page is reused: a "page" directive right after an automatic page break must
     * not leave a blank page. */
    if (p->npages > 0 && p->fresh)
        return LENS_OK;
    return add_page(p, e);
}

int lens_pdf_need(struct lens_pdf *p, double points, struct lens_err *e)
{
    if (p->npages == 0)
        return add_page(p, e);
    /* Never break on a fresh page: something taller than a page would only leave an empty page
     * behind; it is drawn and runs over the bottom margin instead. */
    if (p->y - points < MARGIN_BOTTOM && !p->fresh)
        return add_page(p, e);
    return LENS_OK;
}

void lens_pdf_space(struct lens_pdf *p, double points)
{
    /* No space at the top of a page: vertical space separates things, and a page break already
     * does. */
    if (p->npages > 0 && !p->fresh)
        p->y -= points;
}

static double text_width(struct lens_pdf *p, int font, double size, const char *s, int n)
{
    if (n <= 0)
        return 0.0;
    /* Glyph widths are in 1/1000 of the font size (the PDF text space unit). libharu measures the
     * UTF-8 bytes through the font's encoder, so n must end on a character boundary. */
    HPDF_TextWidth tw = HPDF_Font_TextWidth(p->font[font], (const HPDF_BYTE *)s, (HPDF_UINT)n);
    return tw.width * size / 1000.0;
}

static void extend(struct lens_pdf *p, double x, double y, double w, double size);

/* Draws n bytes of s with its left edge at x and its baseline at y. */
static int draw(struct lens_pdf *p, int font, double size, double x, double y, const char *s, int n,
                struct lens_err *e)
{
    /* HPDF_Page_TextOut wants a terminated string and lines point into longer texts, so each line
     * is copied; a line is at most one text width of glyphs, well below 2048 bytes. */
    char buf[2048];
    if (n <= 0)
        return LENS_OK;
    if (n >= (int)sizeof buf)
        n = (int)sizeof buf - 1;
    memcpy(buf, s, (size_t)n);
    buf[n] = '\0';
    HPDF_Page pg = cur(p);
    HPDF_Page_BeginText(pg);
    HPDF_Page_SetFontAndSize(pg, p->font[font], (HPDF_REAL)size);
    HPDF_Page_TextOut(pg, (HPDF_REAL)x, (HPDF_REAL)y, buf);
    HPDF_Page_EndText(pg);
    p->fresh = 0;
    extend(p, x, y, text_width(p, font, size, buf, n), size);
    return hcheck(p, "drawing text", e);
}

/* Bytes of the UTF-8 character starting with c. A stray continuation byte counts as one, so cutting
 * a long word always advances, even through invalid text. */
static int utf8_len(unsigned char c)
{
    return c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
}

/* A number and its unit are one word to the wrapper: "2.381 µs" never ends a line at "2.381"
 * (common/units.h writes an ordinary space between them). we is the end of a word that ends in
 * a digit; returns the end of the unit word after one space, or we when none follows. */
static const char *glue_unit(const char *w, const char *we)
{
    static const char *const units[] = {"ns", "µs", "us", "ms", "s", "B", "kB", "KiB", "MB", "MiB", "GB", "GiB",
                                        "B/s", "kB/s", "MB/s", "GB/s", "%", "x"};
    if (we == w || we[-1] < '0' || we[-1] > '9' || we[0] != ' ')
        return we;
    const char *u = we + 1, *ue = u;
    while (*ue && *ue != ' ' && *ue != '\n')
        ue++;
    /* the unit may carry the sentence's punctuation: "4096 B," "12 ms)." */
    const char *core = ue;
    while (core > u && strchr(",.;:)", core[-1]))
        core--;
    for (size_t k = 0; k < sizeof units / sizeof *units; k++)
        if (strlen(units[k]) == (size_t)(core - u) && !strncmp(u, units[k], (size_t)(core - u)))
            return ue;
    return we;
}

/* Splits text into lines no wider than width; *lines is lens_malloc'd (caller frees).
 * Breaks at spaces, at "\n", and inside words longer than a line (at UTF-8 boundaries). */
static int wrap(struct lens_pdf *p, int font, double size, const char *text, double width,
                struct line **lines, int *nlines, struct lens_err *e)
{
    int cap = 8, n = 0;
    struct line *ls = lens_malloc((size_t)cap * sizeof *ls);
    if (!ls)
        return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
    const char *s = text;
    while (*s) {
        /* one line: take words while they fit */
        /* start: first byte of the line; end: end of the last word that fits; q: where the scan
         * stopped. The width is measured from start each time: what is measured is what will be
         * drawn. */
        const char *start = s, *end = s, *q = s;
        while (*q && *q != '\n') {
            const char *w = q;
            while (*w == ' ')
                w++;
            const char *we = w;
            while (*we && *we != ' ' && *we != '\n')
                we++;
            we = glue_unit(w, we);
            if (we == w) { /* trailing spaces */
                q = we;
                break;
            }
            if (text_width(p, font, size, start, (int)(we - start)) <= width) {
                end = q = we;
                continue;
            }
            if (end == start) { /* a word wider than the line: cut it by characters */
                const char *c = w;
                end = w;
                while (c < we) {
                    const char *nc = c + utf8_len((unsigned char)*c);
                    if (nc > we)
                        nc = we;
                    if (end > w && text_width(p, font, size, start, (int)(nc - start)) > width)
                        break;
                    end = c = nc;
                }
                q = end;
            }
            break;
        }
        if (n == cap) {
            cap *= 2;
            struct line *nl = lens_realloc(ls, (size_t)cap * sizeof *nl);
            if (!nl) {
                lens_free(ls);
                return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
            }
            ls = nl;
        }
        /* Leading spaces of a continued line are dropped: a break replaces the space it happened
         * at. */
        while (start < end && *start == ' ')
            start++;
        ls[n].s = start;
        ls[n].n = (int)(end - start);
        n++;
        /* Resume after the words taken; a cut word resumes mid-word, and a "\n" ends the line here
         * and is consumed. */
        s = q > end ? q : end;
        while (*s == ' ')
            s++;
        if (*s == '\n')
            s++;
    }
    *lines = ls;
    *nlines = n;
    return LENS_OK;
}

/* The left edge of line l in a box x..x+w: right and centre alignment need the drawn width, so
 * measure only then. */
static double aligned_x(struct lens_pdf *p, int font, double size, int align, double x, double w,
                        const struct line *l)
{
    if (align == LENS_PDF_LEFT)
        return x;
    double tw = text_width(p, font, size, l->s, l->n);
    return align == LENS_PDF_RIGHT ? x + w - tw : x + (w - tw) / 2;
}

int lens_pdf_text(struct lens_pdf *p, int font, double size, int align, double indent,
                  const char *text, struct lens_err *e)
{
    if (font < 0 || font >= LENS_PDF_NFONTS || size <= 0)
        return lens_err_set(e, LENS_EINVAL, "pdf: bad font %d or size %g", font, size);
    int rc = lens_pdf_need(p, size * LEADING, e); /* at least one line must fit before wrapping starts */
    if (rc != LENS_OK)
        return rc;
    double x = MARGIN_X + indent, w = lens_pdf_text_width(p) - indent;
    struct line *ls;
    int n;
    if ((rc = wrap(p, font, size, text, w, &ls, &n, e)) != LENS_OK)
        return rc;
    double lh = size * LEADING;
    p->ext.page = -1;
    for (int i = 0; i < n && rc == LENS_OK; i++) {
        if ((rc = lens_pdf_need(p, lh, e)) != LENS_OK)
            break;
        /* The baseline sits one font size below the top of the line; the rest of the leading is
         * space under it. */
        rc = draw(p, font, size, aligned_x(p, font, size, align, x, w, &ls[i]), p->y - size, ls[i].s,
                  ls[i].n, e);
        p->y -= lh;
        p->fresh = 0;
    }
    p->text_rect = p->ext;
    lens_free(ls);
    return rc;
}

int lens_pdf_box(struct lens_pdf *p, const char *title, const char *text, struct lens_err *e)
{
    /* 8 points of padding; the title in bold over the body text, both wrapped to the inner width */
    const double pad = 8, lh = BODY_SIZE * LEADING;
    double w = lens_pdf_text_width(p) - 2 * pad;
    struct line *tl = NULL, *bl = NULL;
    int nt = 0, nb = 0;
    int rc = wrap(p, LENS_PDF_BOLD, BODY_SIZE, title, w, &tl, &nt, e);
    if (rc == LENS_OK)
        rc = wrap(p, LENS_PDF_SANS, BODY_SIZE, text, w, &bl, &nb, e);
    double h = (nt + nb) * lh + 2 * pad;
    /* Kept whole on one page: a box split by a page break would lose its frame. A box taller
     * than a page (never, for the texts the reports put in one) is drawn from the top and cut. */
    if (rc == LENS_OK)
        rc = lens_pdf_need(p, h, e);
    if (rc == LENS_OK) {
        HPDF_Page pg = cur(p);
        /* a light fill and a dark frame: the box must stand out on a page of plain prose */
        HPDF_Page_SetRGBFill(pg, 1.0f, 0.95f, 0.85f);
        HPDF_Page_SetRGBStroke(pg, 0.75f, 0.35f, 0.0f);
        HPDF_Page_SetLineWidth(pg, 1.2f);
        HPDF_Page_Rectangle(pg, (HPDF_REAL)MARGIN_X, (HPDF_REAL)(p->y - h), (HPDF_REAL)lens_pdf_text_width(p),
                            (HPDF_REAL)h);
        HPDF_Page_FillStroke(pg);
        /* back to black for the text and for everything drawn after the box */
        HPDF_Page_SetRGBFill(pg, 0, 0, 0);
        HPDF_Page_SetRGBStroke(pg, 0, 0, 0);
        double y = p->y - pad;
        for (int i = 0; i < nt + nb && rc == LENS_OK; i++) {
            const struct line *l = i < nt ? &tl[i] : &bl[i - nt];
            rc = draw(p, i < nt ? LENS_PDF_BOLD : LENS_PDF_SANS, BODY_SIZE, MARGIN_X + pad, y - BODY_SIZE, l->s, l->n, e);
            y -= lh;
        }
        p->y -= h + BODY_SIZE * 0.6;
        p->fresh = 0;
    }
    lens_free(tl);
    lens_free(bl);
    return rc == LENS_OK ? hcheck(p, "drawing a box", e) : rc;
}

int lens_pdf_paragraph(struct lens_pdf *p, const char *text, struct lens_err *e)
{
    int rc = lens_pdf_text(p, LENS_PDF_SANS, BODY_SIZE, LENS_PDF_LEFT, 0, text, e);
    lens_pdf_space(p, BODY_SIZE * 0.6); /* paragraph spacing: 60% of a line, less than a blank line */
    return rc;
}

int lens_pdf_heading(struct lens_pdf *p, int level, const char *text, struct lens_err *e)
{
    static const double sizes[4] = {22, 16, 13, 11}; /* points for the title and h1..h3 */
    if (level < 0 || level > 3)
        return lens_err_set(e, LENS_EINVAL, "pdf: heading level %d outside 0..3", level);
    double size = sizes[level];
    /* keep the heading with about four lines of what follows */
    int rc = lens_pdf_need(p, size * 2 + 4 * BODY_SIZE * LEADING, e);
    if (rc != LENS_OK)
        return rc;
    lens_pdf_space(p, size * 0.6); /* space above scales with the heading, so h1 stands further apart than h3 */
    double top = p->y;
    p->heading_page[level] = p->npages; /* the page a citation of this section sends the reader to */
    rc = lens_pdf_text(p, LENS_PDF_BOLD, size, level == 0 ? LENS_PDF_CENTER : LENS_PDF_LEFT, 0, text, e);
    if (rc != LENS_OK)
        return rc;
    lens_pdf_space(p, size * 0.4);
    if (level == 0)
        return LENS_OK;
    HPDF_Outline parent = NULL;
    /* An h3 right after an h1 (no h2 between) nests under the h1 rather than at the top level. */
    for (int l = level - 1; l >= 1 && !parent; l--)
        parent = p->outline[l];
    HPDF_Outline o = HPDF_CreateOutline(p->doc, parent, text, HPDF_GetEncoder(p->doc, "UTF-8"));
    if (!o) {
        rc = hcheck(p, "adding an outline entry", e);
        return rc ? rc : lens_err_set(e, LENS_ELIB, "cannot add an outline entry");
    }
    /* The bookmark jumps to the top of the heading, fit to the page width. A missing destination
     * only loses the jump, so it is not an error (hcheck below still reports what libharu
     * recorded). */
    HPDF_Destination d = HPDF_Page_CreateDestination(cur(p));
    if (d) {
        HPDF_Destination_SetFitH(d, (HPDF_REAL)(top + size * 0.6));
        HPDF_Outline_SetDestination(o, d);
    }
    /* h1 entries open: the viewer shows the sections of each input but not every figure */
    HPDF_Outline_SetOpened(o, level == 1 ? HPDF_TRUE : HPDF_FALSE);
    p->outline[level] = o;
    /* A new heading closes the deeper levels: the next h3 after an h2 belongs to this h2, not to an
     * earlier one. */
    for (int l = level + 1; l < 4; l++)
        p->outline[l] = NULL;
    return hcheck(p, "adding an outline entry", e);
}

/* A horizontal line across the text width at y (under a table header, at a table's end). */
static void rule(struct lens_pdf *p, double y, double width)
{
    HPDF_Page pg = cur(p);
    HPDF_Page_SetLineWidth(pg, (HPDF_REAL)width);
    HPDF_Page_MoveTo(pg, (HPDF_REAL)MARGIN_X, (HPDF_REAL)y);
    HPDF_Page_LineTo(pg, (HPDF_REAL)(PAGE_W - MARGIN_X), (HPDF_REAL)y);
    HPDF_Page_Stroke(pg);
}

/* Draws one row of cells at the cursor; header rows are bold and underlined. Starts a new
 * page (repeating the header) when the row does not fit. */
static int table_draw_row(struct lens_pdf *p, const char *const *cells, int header, struct lens_err *e)
{
    struct table *t = &p->tab;
    int font = header ? LENS_PDF_BOLD : t->font;
    /* rows slightly smaller than body text: wide tables fit more per line */
    double size = BODY_SIZE * (header ? 1.0 : 0.95), lh = size * LEADING;
    struct line *ls[LENS_PDF_MAXCOLS] = {0};
    int n[LENS_PDF_MAXCOLS] = {0}, maxn = 1, rc = LENS_OK;
    for (int c = 0; c < t->ncols && rc == LENS_OK; c++) {
        /* Every cell is wrapped before anything is drawn: the row is as tall as its tallest cell,
         * and that height decides whether it fits on this page. */
        rc = wrap(p, font, size, cells[c] ? cells[c] : "", t->w[c] - 2 * CELL_PAD, &ls[c], &n[c], e);
        if (n[c] > maxn)
            maxn = n[c];
    }
    double h = maxn * lh + 2 * CELL_PAD;
    if (rc == LENS_OK && p->y - h < MARGIN_BOTTOM && !p->fresh) {
        rc = add_page(p, e);
        /* Repeat the header on the new page; a header row itself never recurses (header is 1
         * there). */
        if (rc == LENS_OK && !header && t->has_header)
            rc = table_draw_row(p, (const char *const *)t->header, 1, e);
    }
    for (int c = 0; c < t->ncols && rc == LENS_OK; c++) {
        /* cells are top-aligned: a one-line cell sits level with the first line of a wrapped
         * neighbour */
        double y = p->y - CELL_PAD - size;
        p->ext.page = -1;
        for (int i = 0; i < n[c] && rc == LENS_OK; i++, y -= lh)
            rc = draw(p, font, size, aligned_x(p, font, size, t->align[c], t->x[c] + CELL_PAD,
                                               t->w[c] - 2 * CELL_PAD, &ls[c][i]),
                      y, ls[c][i].s, ls[c][i].n, e);
        if (!header)
            t->cell[c] = p->ext;
    }
    for (int c = 0; c < t->ncols; c++)
        lens_free(ls[c]);
    if (rc != LENS_OK)
        return rc;
    p->y -= h;
    p->fresh = 0;
    if (header)
        rule(p, p->y, 0.6);
    return hcheck(p, "drawing a table row", e);
}

int lens_pdf_table_begin(struct lens_pdf *p, const struct lens_pdf_column *cols, int ncols, int font,
                         struct lens_err *e)
{
    if (ncols < 1 || ncols > LENS_PDF_MAXCOLS || font < 0 || font >= LENS_PDF_NFONTS)
        return lens_err_set(e, LENS_EINVAL, "pdf: table with %d columns (1..%d allowed)", ncols,
                            LENS_PDF_MAXCOLS);
    struct table *t = &p->tab;
    table_release(t);
    t->ncols = ncols;
    t->font = font;
    double tw = lens_pdf_text_width(p), fixed = 0;
    int nfree = 0;
    for (int c = 0; c < ncols; c++) {
        if (cols[c].width > 0)
            fixed += cols[c].width;
        else
            nfree++;
    }
    /* Columns of width 0 share what the fixed fractions leave. When the fixed ones already take
     * everything a free column still gets a tenth, so it stays visible (the table then runs into
     * the right margin rather than losing a column). */
    double share = nfree && fixed < 1 ? (1 - fixed) / nfree : 0.1;
    double x = MARGIN_X;
    t->has_header = 0;
    for (int c = 0; c < ncols; c++) {
        t->x[c] = x;
        t->w[c] = tw * (cols[c].width > 0 ? cols[c].width : share);
        x += t->w[c];
        t->align[c] = cols[c].align;
        /* A table whose headers are all empty draws no header row (lens_report_headers empties them
         * when there are no rows). */
        if (cols[c].header && cols[c].header[0])
            t->has_header = 1;
    }
    if (t->has_header) {
        for (int c = 0; c < ncols; c++)
            /* Copies: the template's column headers are expanded into temporaries that are gone by
             * the time a page break repeats them. */
            if (!(t->header[c] = lens_strdup(cols[c].header ? cols[c].header : ""))) {
                table_release(t);
                return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
            }
    }
    t->active = 1;
    /* keep the header with at least three rows */
    /* Four one-line rows (the header and three): a header alone at the foot of a page would be
     * separated from its rows. */
    int rc = lens_pdf_need(p, 4 * (BODY_SIZE * LEADING + 2 * CELL_PAD), e);
    if (rc == LENS_OK && t->has_header)
        rc = table_draw_row(p, (const char *const *)t->header, 1, e);
    return rc;
}

int lens_pdf_table_row(struct lens_pdf *p, const char *const *cells, struct lens_err *e)
{
    if (!p->tab.active)
        return lens_err_set(e, LENS_EINVAL, "pdf: table row outside a table");
    return table_draw_row(p, cells, 0, e);
}

int lens_pdf_table_end(struct lens_pdf *p, struct lens_err *e)
{
    if (!p->tab.active)
        return lens_err_set(e, LENS_EINVAL, "pdf: table end outside a table");
    if (p->tab.has_header && p->npages > 0)
        rule(p, p->y, 0.6);
    table_release(&p->tab);
    lens_pdf_space(p, BODY_SIZE);
    return hcheck(p, "ending a table", e);
}

/* A PNG held in memory, read by cairo through png_read in whatever pieces it asks for. */
struct png_reader {
    const unsigned char *p;
    size_t left;
};

static cairo_status_t png_read(void *closure, unsigned char *data, unsigned int len)
{
    struct png_reader *r = closure;
    if (len > r->left) /* a truncated PNG: cairo reports it instead of reading past the buffer */
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->p, len);
    r->p += len;
    r->left -= len;
    return CAIRO_STATUS_SUCCESS;
}

/* libharu 2.3 lets libpng abort() the process on a corrupt PNG, so decode it with cairo
 * first, which reports errors. Costs one decode of a figure-sized image. */
static int png_valid(const unsigned char *png, size_t len)
{
    struct png_reader r = {png, len};
    cairo_surface_t *s = cairo_image_surface_create_from_png_stream(png_read, &r);
    int ok = cairo_surface_status(s) == CAIRO_STATUS_SUCCESS;
    cairo_surface_destroy(s);
    return ok;
}

int lens_pdf_image_png(struct lens_pdf *p, const unsigned char *png, size_t len, double max_height,
                       struct lens_err *e)
{
    /* A figure's own bytes (RAW pixels, or SIZE on a layout pass) or a PNG from elsewhere. */
    int wpx = 0, hpx = 0;
    const unsigned char *rgb = NULL;
    int raw = lens_figure_raw_parse(png, len, &wpx, &hpx, &rgb);
    if (raw < 0)
        return lens_err_set(e, LENS_EFORMAT, "pdf: figure image of %zu bytes does not match its header", len);
    if (!raw && (!png || len < 8 || !png_valid(png, len)))
        return lens_err_set(e, LENS_EFORMAT, "pdf: image is not a valid png (%zu bytes)", len);
    int rc = lens_pdf_need(p, 0, e); /* a page must exist before libharu can place the image */
    if (rc != LENS_OK)
        return rc;
    HPDF_Image img = NULL;
    double iw = wpx, ih = hpx;
    if (raw && !rgb) {
        /* SIZE: placed by its size alone; the document must not be saved with a hole in it */
        p->sized_only = 1;
    } else {
        /* RAW pixels go in as they are and are deflated once, at save (HPDF_COMP_IMAGE): no PNG
         * encode and decode in between, which cost most of a report's time. */
        img = raw ? HPDF_LoadRawImageFromMem(p->doc, rgb, (HPDF_UINT)wpx, (HPDF_UINT)hpx, HPDF_CS_DEVICE_RGB, 8)
                  : HPDF_LoadPngImageFromMem(p->doc, png, (HPDF_UINT)len);
        if (!img) {
            rc = hcheck(p, "loading an image", e);
            /* The failure is this image's alone: clear it so that later calls on the document do
             * not report it again. */
            p->herr = 0; /* the document itself is still fine */
            return rc ? rc : lens_err_set(e, LENS_ELIB, "libharu cannot read the image");
        }
        iw = HPDF_Image_GetWidth(img), ih = HPDF_Image_GetHeight(img);
    }
    if (iw <= 0 || ih <= 0)
        return lens_err_set(e, LENS_ELIB, "png image has no pixels");
    /* The image spans the text width at its aspect ratio, no taller than max_height (at most the
     * body of a page); when the height limits it, it is narrowed and centred instead of being
     * distorted. */
    double body = body_top() - MARGIN_BOTTOM;
    if (max_height <= 0 || max_height > body)
        max_height = body;
    double w = lens_pdf_text_width(p), h = ih * w / iw;
    if (h > max_height) {
        w *= max_height / h;
        h = max_height;
    }
    if ((rc = lens_pdf_need(p, h, e)) != LENS_OK)
        return rc;
    double x = MARGIN_X + (lens_pdf_text_width(p) - w) / 2;
    if (img)
        HPDF_Page_DrawImage(cur(p), img, (HPDF_REAL)x, (HPDF_REAL)(p->y - h), (HPDF_REAL)w, (HPDF_REAL)h);
    p->y -= h + BODY_SIZE * 0.6; /* the same gap under a figure as under a paragraph */
    p->fresh = 0;
    return hcheck(p, "drawing a png image", e);
}

/* Expands ${page} and ${pages} in the footer format. */
/* The footer does not go through the template expander: only ${page} and ${pages} exist there, and
 * they are known only now, one page at a time. The text is cut at n - 1 bytes. */
static void footer_text(const char *fmt, int page, int pages, char *buf, size_t n)
{
    size_t o = 0;
    while (*fmt && o + 1 < n) {
        int k = 0;
        if (!strncmp(fmt, "${page}", 7))
            k = snprintf(buf + o, n - o, "%d", page), fmt += 7;
        else if (!strncmp(fmt, "${pages}", 8))
            k = snprintf(buf + o, n - o, "%d", pages), fmt += 8;
        else
            buf[o] = *fmt++, k = 1;
        o += k > 0 ? (size_t)k : 0;
        if (o >= n)
            o = n - 1;
    }
    buf[o] = '\0';
}

static int links_make(struct lens_pdf *p, struct lens_err *e);

/* Footers, then the bytes: a document with no content still gets one page, since a PDF without
 * pages is not valid. */
int lens_pdf_save(struct lens_pdf *p, const char *path, struct lens_err *e)
{
    int rc = LENS_OK;
    /* A layout pass's figures have no pixels: saving it would write a report with holes. */
    if (p->sized_only)
        return lens_err_set(e, LENS_EINVAL, "%s: pdf: figures were placed by size only (a layout pass); not saved",
                            path);
    if (p->npages == 0)
        rc = add_page(p, e);
    if (rc == LENS_OK)
        rc = links_make(p, e); /* every page exists now: a link may point forward */
    for (int i = 0; p->footer && rc == LENS_OK && i < p->npages; i++) {
        char buf[512];
        footer_text(p->footer, i + 1, p->npages, buf, sizeof buf);
        struct line l = {buf, (int)strlen(buf)};
        /* Drawn last, on every page at once, because ${pages} is the final count. */
        HPDF_Page pg = p->pages[i];
        HPDF_Page_BeginText(pg);
        HPDF_Page_SetFontAndSize(pg, p->font[LENS_PDF_SANS], 8);
        HPDF_Page_TextOut(pg, (HPDF_REAL)aligned_x(p, LENS_PDF_SANS, 8, LENS_PDF_CENTER, MARGIN_X,
                                                   lens_pdf_text_width(p), &l),
                          (HPDF_REAL)FOOTER_Y, buf);
        HPDF_Page_EndText(pg);
        rc = hcheck(p, "drawing the page footers", e);
    }
    if (rc != LENS_OK)
        return rc;
    /* libharu writes into its memory stream; we repair its ToUnicode CMaps (pdf_fix.h) and
     * write the bytes ourselves, so libharu never opens a file */
    unsigned char *raw = NULL, *fixed = NULL;
    size_t nfixed = 0;
    HPDF_SaveToStream(p->doc);
    HPDF_UINT32 n = HPDF_GetStreamSize(p->doc);
    rc = hcheck(p, "writing the document to memory", e);
    if (rc == LENS_OK && n == 0)
        rc = lens_err_set(e, LENS_ELIB, "libharu wrote an empty document");
    if (rc == LENS_OK && !(raw = lens_malloc(n)))
        rc = lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
    if (rc == LENS_OK) {
        HPDF_UINT32 got = n;
        HPDF_ResetStream(p->doc); /* read from the start of what was written */
        HPDF_STATUS st = HPDF_ReadFromStream(p->doc, raw, &got);
        /* HPDF_STREAM_EOF only says the whole stream was read */
        if ((rc = hcheck(p, "reading the document from memory", e)) == LENS_OK &&
            ((st != HPDF_OK && st != HPDF_STREAM_EOF) || got != n))
            rc = lens_err_set(e, LENS_ELIB, "libharu returned %u of %u bytes", (unsigned)got, (unsigned)n);
    }
    if (rc == LENS_OK)
        rc = lens_pdf_fix_tounicode(raw, n, &fixed, &nfixed, NULL, e);
    lens_free(raw);
    if (rc != LENS_OK) {
        lens_err_prefix(e, path);
        return rc; /* fixed is NULL on error */
    }
    struct lens_atomic a;
    if ((rc = lens_atomic_open(&a, path, "wb", e)) == LENS_OK) {
        if (fwrite(fixed, 1, nfixed, a.fp) != nfixed) {
            rc = lens_err_set(e, LENS_EIO, "%s: write failed: %s", path, strerror(errno));
            lens_atomic_abort(&a);
        } else {
            rc = lens_atomic_commit(&a, e);
        }
    }
    lens_free(fixed);
    return rc;
}

/* ---- links: rectangles of drawn text that jump to another page ---- */

/* Grows the text extent by one drawn line: x..x+w, and from the descender (a quarter of the
 * size below the baseline) to the ascender (DejaVu's is 0.93 of the size). A line on another
 * page than the extent so far starts it again: a link rectangle lies on one page. */
static void extend(struct lens_pdf *p, double x, double y, double w, double size)
{
    struct lens_pdf_rect *r = &p->ext;
    double y0 = y - 0.25 * size, y1 = y + 0.93 * size;
    if (r->page != p->npages - 1) {
        *r = (struct lens_pdf_rect){p->npages - 1, x, y0, x + w, y1};
        return;
    }
    if (x < r->x0) r->x0 = x;
    if (x + w > r->x1) r->x1 = x + w;
    if (y0 < r->y0) r->y0 = y0;
    if (y1 > r->y1) r->y1 = y1;
}

int lens_pdf_text_rect(const struct lens_pdf *p, struct lens_pdf_rect *out)
{
    *out = p->text_rect;
    return out->page >= 0;
}

int lens_pdf_table_cell_rect(const struct lens_pdf *p, int col, struct lens_pdf_rect *out)
{
    if (col < 0 || col >= p->tab.ncols || !p->tab.active) {
        out->page = -1;
        return 0;
    }
    *out = p->tab.cell[col];
    return out->page >= 0;
}

int lens_pdf_link(struct lens_pdf *p, const struct lens_pdf_rect *at, int target, struct lens_err *e)
{
    /* the source page must exist now; the target is checked at save, when all pages do */
    if (!at || at->page < 0 || at->page >= p->npages || target < 0)
        return lens_err_set(e, LENS_EINVAL, "pdf: link from page %d to page %d outside the document",
                            at ? at->page + 1 : 0, target + 1);
    if (p->nlinks == p->linkcap) {
        int cap = p->linkcap ? 2 * p->linkcap : 16;
        struct pending_link *nl = lens_realloc(p->links, (size_t)cap * sizeof *nl);
        if (!nl)
            return lens_err_set(e, LENS_ENOMEM, "pdf: out of memory");
        p->links = nl;
        p->linkcap = cap;
    }
    p->links[p->nlinks++] = (struct pending_link){*at, target};
    return LENS_OK;
}

/* Called by lens_pdf_save before the footers. Links are made in the order they were asked for,
 * so the annotation objects, and with them the bytes, do not depend on anything else. */
static int links_make(struct lens_pdf *p, struct lens_err *e)
{
    for (int i = 0; i < p->nlinks; i++) {
        const struct pending_link *l = &p->links[i];
        if (l->target >= p->npages)
            return lens_err_set(e, LENS_EINVAL, "pdf: link on page %d to page %d of a %d-page document",
                                l->at.page + 1, l->target + 1, p->npages);
        /* a destination at the top of the target page, fit to its width, as the bookmarks of the
         * headings do: the reader lands where the page begins, at the zoom that reads it */
        HPDF_Destination d = HPDF_Page_CreateDestination(p->pages[l->target]);
        if (d)
            HPDF_Destination_SetFitH(d, (HPDF_REAL)PAGE_H);
        /* one point of slack around the text: the glyph box is an estimate and a link should be
         * easy to hit */
        HPDF_Rect rect = {(HPDF_REAL)(l->at.x0 - 1), (HPDF_REAL)(l->at.y0 - 1), (HPDF_REAL)(l->at.x1 + 1),
                          (HPDF_REAL)(l->at.y1 + 1)};
        HPDF_Annotation a = d ? HPDF_Page_CreateLinkAnnot(p->pages[l->at.page], rect, d) : NULL;
        /* border width 0: the report prints as before, the link shows only as a hand cursor */
        if (a)
            HPDF_LinkAnnot_SetBorderStyle(a, 0, 0, 0);
        int rc = hcheck(p, "adding a link", e);
        if (rc == LENS_OK && !a)
            rc = lens_err_set(e, LENS_ELIB, "cannot add a link");
        if (rc != LENS_OK)
            return rc;
    }
    return LENS_OK;
}
