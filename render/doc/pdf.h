/* A small flowing-layout PDF writer on top of libharu: A4 pages, embedded DejaVu fonts with
 * UTF-8 text (Cyrillic host names print and extract), headings with outline entries,
 * word-wrapped paragraphs, tables that break across pages, images (PNG or raw figure pixels)
 * scaled to fit, and "page N of M" footers. A cursor moves down the page; whatever does not
 * fit starts a new page.
 * Every function that can fail returns LENS_OK or a negative LENS_E* code (LENS_ELIB for
 * libharu errors, recorded by an error handler instead of longjmp) and fills e. */
#ifndef LENS_PDF_H
#define LENS_PDF_H

#include "common/err.h"
#include "common/atomic.h"
#include "common/time.h"

struct lens_pdf; /* opaque: owns the libharu document, its pages and fonts */

enum lens_pdf_font { LENS_PDF_SANS = 0, LENS_PDF_BOLD = 1, LENS_PDF_MONO = 2, LENS_PDF_NFONTS = 3 };
enum lens_pdf_align { LENS_PDF_LEFT = 0, LENS_PDF_RIGHT = 1, LENS_PDF_CENTER = 2 };

/* Most columns a table can have. */
#define LENS_PDF_MAXCOLS 16

struct lens_pdf_column {
    const char *header; /* UTF-8, drawn bold; NULL or "" for a table without a header row */
    int align;          /* enum lens_pdf_align for the header and the cells */
    double width;       /* fraction of the text width; 0 shares what the others leave */
};

/* Opens a document with the fonts DejaVuSans.ttf, DejaVuSans-Bold.ttf and DejaVuSansMono.ttf
 * from fontdir. Errors: LENS_EIO naming the missing font file, LENS_ELIB, LENS_ENOMEM.
 * No page exists until the first call that draws (or lens_pdf_new_page). */
int lens_pdf_new(struct lens_pdf **out, const char *fontdir, struct lens_err *e);
void lens_pdf_free(struct lens_pdf *p); /* NULL does nothing */

/* Document information: title and subject are UTF-8 (either may be NULL); date is Unix
 * seconds (use lens_time_source_date()) and becomes CreationDate and ModDate. */
int lens_pdf_set_info(struct lens_pdf *p, const char *title, const char *subject, long long date,
                      struct lens_err *e);
/* Footer drawn centred on every page at save time; "${page}" and "${pages}" are replaced by
 * the page number and the page count, e.g. "page ${page} of ${pages}". NULL: no footer. */
int lens_pdf_set_footer(struct lens_pdf *p, const char *fmt, struct lens_err *e);

/* Running header: text (UTF-8) drawn small at the top left of every page added from now on,
 * until set again; NULL or "" stops it. The pages already made keep theirs. LENS_ENOMEM. */
int lens_pdf_set_header(struct lens_pdf *p, const char *text, struct lens_err *e);

/* Starts a new page (a no-op on a page that nothing was drawn on yet). */
int lens_pdf_new_page(struct lens_pdf *p, struct lens_err *e);
/* Starts a new page unless `points` of height remain below the cursor. */
int lens_pdf_need(struct lens_pdf *p, double points, struct lens_err *e);
/* Moves the cursor down (points); does not start a page. */
void lens_pdf_space(struct lens_pdf *p, double points);
int lens_pdf_page_count(const struct lens_pdf *p);
/* The page count when the last heading of level (0..3) was drawn, 0 if none: the page a
 * citation of that section names, which is where its heading stands even when the heading's
 * prose fills the page and the table it introduces starts on the next one. */
int lens_pdf_heading_page(const struct lens_pdf *p, int level);
/* Height left below the cursor on the current page, in points (0 before the first page). */
double lens_pdf_remaining(const struct lens_pdf *p);
/* Text width available between the margins, in points. */
double lens_pdf_text_width(const struct lens_pdf *p);

/* Level 0: document title (large, centred, no outline entry). Levels 1-3: headings with an
 * outline entry nested under the last heading of the level above. Kept with what follows. */
int lens_pdf_heading(struct lens_pdf *p, int level, const char *text, struct lens_err *e);
/* Word-wrapped text in the body style; "\n" forces a line break. */
int lens_pdf_paragraph(struct lens_pdf *p, const char *text, struct lens_err *e);
/* Word-wrapped text in any font, size (points) and alignment, indented by indent points. */
int lens_pdf_text(struct lens_pdf *p, int font, double size, int align, double indent,
                  const char *text, struct lens_err *e);

/* A framed, lightly filled box across the text width: a bold title line and word-wrapped body
 * text, kept whole on one page (a warning the reader must not miss). Errors: LENS_ENOMEM, LENS_ELIB. */
int lens_pdf_box(struct lens_pdf *p, const char *title, const char *text, struct lens_err *e);
/* Tables: begin, any number of rows, end. Cells wrap inside their column; a row that does
 * not fit starts a new page and the header row is repeated. font applies to the cells.
 * Errors: LENS_EINVAL for ncols outside 1..LENS_PDF_MAXCOLS or a row without a table. */
int lens_pdf_table_begin(struct lens_pdf *p, const struct lens_pdf_column *cols, int ncols,
                         int font, struct lens_err *e);
int lens_pdf_table_row(struct lens_pdf *p, const char *const *cells, struct lens_err *e);
int lens_pdf_table_end(struct lens_pdf *p, struct lens_err *e);

/* An image (bytes in memory, not kept after the call) centred and scaled to the text width,
 * no taller than max_height points (0: the page body height). The bytes are a PNG, or a
 * figure's RAW pixels (embedded as they are, no PNG round trip) or SIZE header (placed, not
 * drawn: lens_pdf_save then refuses the document with LENS_EINVAL), see lens_figure_memory_form.
 * Errors: LENS_EFORMAT for bytes that are not a valid PNG (checked with cairo first: libharu
 * 2.3 would abort) or a RAW/SIZE whose length does not match its header, LENS_ELIB. */
int lens_pdf_image_png(struct lens_pdf *p, const unsigned char *png, size_t len, double max_height,
                       struct lens_err *e);

/* Draws the footers, has libharu write the document to memory, replaces libharu's invalid
 * ToUnicode CMaps (render/doc/pdf_fix.h, so text extracts without warnings) and writes the bytes
 * to path through a temporary file and rename (lens_atomic_*). The document stays usable for
 * nothing but lens_pdf_free afterwards. With a fixed date (SOURCE_DATE_EPOCH) the output is
 * byte-identical across runs. */
int lens_pdf_save(struct lens_pdf *p, const char *path, struct lens_err *e);

/* ---- links ---- */

/* A rectangle on one page: page is the 0-based page index (-1: nothing), x0,y0 the lower left
 * and x1,y1 the upper right corner in points from the bottom left of the page. */
struct lens_pdf_rect {
    int page;
    double x0, y0, x1, y1;
};

/* Where the last lens_pdf_text (or lens_pdf_paragraph, lens_pdf_heading) drew its text: the part on its last page
 * when it broke across pages. Returns 1, or 0 with out->page = -1 when it drew nothing. */
int lens_pdf_text_rect(const struct lens_pdf *p, struct lens_pdf_rect *out);
/* Where the text of column col of the last body row of the open table was drawn. Returns 1, or
 * 0 with out->page = -1 for an empty cell, a column out of range or no open table. */
int lens_pdf_table_cell_rect(const struct lens_pdf *p, int col, struct lens_pdf_rect *out);
/* Makes the rectangle at a link (border width 0) to the top of page target (0-based, so
 * lens_pdf_page_count() - 1 is the current page). The target may be a page not drawn yet: the
 * link is made by lens_pdf_save, which fails with LENS_EINVAL if target is not a page by then.
 * Errors: LENS_EINVAL for a source page that does not exist or a negative target, LENS_ENOMEM. */
int lens_pdf_link(struct lens_pdf *p, const struct lens_pdf_rect *at, int target, struct lens_err *e);

#endif
