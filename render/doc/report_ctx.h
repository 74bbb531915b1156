/* Internal to the latency-cube report (render/doc/report*.c, not for other modules): the context
 * every section renderer receives, the helpers they share, and the section functions that
 * live in their own files and are rows of the section table of report.c. */
#ifndef LENS_REPORT_CTX_H
#define LENS_REPORT_CTX_H

#include <limits.h>
#include <stddef.h>

#include "analysis/structure/structure.h"
#include "pdf.h"
#include "report.h"
#include "template.h"

#define LENS_REPORT_FIG_W 900 /* figure size: pixels for PNG, points for SVG */
#define LENS_REPORT_FIG_H 560
#define LENS_REPORT_TREE_H 700 /* the NJ tree: one line per leaf needs more height */
#define LENS_REPORT_CELL 400 /* longest table cell or list the sections write, bytes */

struct lens_report_ctx {
    const struct lens_report_opts *o;
    const struct lens_template *t;
    const struct lens_template_section *sec; /* section being drawn */
    struct lens_pdf *pdf;
    struct lens_template_vars vars;          /* document and current-input placeholders */
    const struct lens_report_input *in;  /* all inputs, cubes and p2p sweeps */
    int nin;
    int cur;                             /* index into in[] of the current input, -1 outside repeats */
    int figure;                          /* figures drawn so far (numbering) */
    /* per input, the page its structure groups table and its anomalies table were drawn on
     * (0: not drawn), recorded by a first layout pass so page one can name them */
    int *page_structure, *page_anomalies;
    int *page_retest, *page_bisection;   /* the same for the retests and bisection sections */
    /* the same for the summary table, a sweep's figures and the comparison, which the
     * acceptance verdict cites as the evidence of its criteria */
    int *page_summary, *page_p2p, *page_compare;
    char font_path[PATH_MAX + 32];       /* TTF handed to the figure renderers */
    char header[512];                    /* the document's running header (every label) */
};

/* The current input's cube (NULL for a p2p input). */
const struct lens_cube *lens_report_cube(const struct lens_report_ctx *r);
/* The current cube's finished results (analysis/structure/structure_report.h), borrowed from
 * the input: summaries per length and the structure, whose failed parts are NULL with their
 * reason in st.*_err, which the sections put in words: st.z NULL means no tree (tree_err),
 * st.links NULL no link clusters (links_err), st.an NULL no anomalies (anomaly_err). */
const struct lens_structure_report *lens_report_results(const struct lens_report_ctx *r);
/* Which matrix index is the sender, from the mode's semantics (docs/methods.md §1):
 * 1: row = receiver, column = sender; 2: row = sender; 0: only "row -> column" is known. */
int lens_report_direction(int mode);
/* A delay in seconds as a bare number of microseconds, 4 significant digits, "n/a" if not
 * finite (lens_units_in). */
void lens_report_fmt_us(double s, char *buf, size_t n);
/* The current section's "text NAME" expanded with the current placeholders into buf. */
int lens_report_text(struct lens_report_ctx *r, const char *name, char *buf, size_t n, struct lens_err *e);
/* LENS_EFORMAT "path:line: section 'S' has no table|block 'NAME'". */
int lens_report_unknown_item(struct lens_report_ctx *r, const struct lens_template_item *it, struct lens_err *e);
/* Draws an h3 heading, a PNG of w x h pixels and a caption kept together on one page: the
 * figure spans the text width, shrinking to 75% of its height to stay on the current page,
 * else a new page is started. The PNG stays the caller's. */
int lens_report_place_figure(struct lens_report_ctx *r, const char *heading, const unsigned char *png, size_t len,
                             int w, int h, const char *caption, struct lens_err *e);
/* DIR/[input<k>_]NAME.EXT for the current input, k shown when there are several inputs. */
void lens_report_figure_path(const struct lens_report_ctx *r, const char *name, const char *ext, char *buf,
                             size_t n);

/* ---- text helpers (report_text.c) ---- */
/* Appends s to buf (size n) at *o, ending with "..." when it does not fit. */
void lens_report_append(char *buf, size_t n, size_t *o, const char *s);
/* Sets each placeholder names[i] to the text of the same name, or to "" when rows is 0: a
 * table whose headers are all empty draws no header row. */
int lens_report_headers(struct lens_report_ctx *r, const char *const *names, int n, int rows, struct lens_err *e);

/* The document's host colours (report_structure.c): the sorted distinct hosts of every cube
 * input added to hc (zeroed by the caller, freed with lens_hostcolour_free), so a host has one
 * colour in every figure of every input. LENS_ENOMEM. */
struct lens_hostcolour;
int lens_report_hosts(const struct lens_report_ctx *r, struct lens_hostcolour *hc, struct lens_err *e);

/* "Structure of the machine" (report_structure.c) and "Anomalies" (report_anomalies.c). */
int lens_report_structure_vars(void *ctx, struct lens_err *e);
int lens_report_structure_table(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_structure_block(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_anomalies_vars(void *ctx, struct lens_err *e);
int lens_report_anomalies_table(void *ctx, const struct lens_template_item *it, struct lens_err *e);

/* The ranks a finding is about: "3 -> 17 (node01 -> node03)", "16-23 (node03)" (report_anomalies.c). */
void lens_report_finding_ranks(const struct lens_cube *c, const struct lens_anomaly *f, char *buf, size_t n);

/* Page one (report_answer.c): per cube what was measured, the key numbers, the data-quality
 * gate's verdict and the findings; the gate section; and which sections a cube that failed
 * the gate leaves out. gate_vars sets the gate's placeholders of the current cube. */
int lens_report_gate_vars(struct lens_report_ctx *r, struct lens_err *e);
int lens_report_gate_block(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_answer_vars(void *ctx, struct lens_err *e);
int lens_report_answer_table(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_answer_block(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_shown(void *ctx, const char *name);

/* The acceptance verdict of `mpilens accept -o` (report_verdict.c): page one, drawn only when
 * the options carry a verdict, and the comparison of a cube with its baseline, shown only for
 * a cube that has one. verdict_shown wraps lens_report_shown for the kind's table. */
int lens_report_verdict_block(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_compare_vars(void *ctx, struct lens_err *e);
int lens_report_compare_table(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_verdict_shown(void *ctx, const char *name);

/* The point-to-point sweep (report_p2p.c): placeholders of the current p2p input (for every
 * section of its "repeat inputs" group) and the p2p section. */
int lens_report_p2p_input_vars(void *ctx, struct lens_err *e);
int lens_report_p2p_vars(void *ctx, struct lens_err *e);
int lens_report_p2p_table(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_p2p_block(void *ctx, const struct lens_template_item *it, struct lens_err *e);

/* "Retests" of a cube with PREFIX_retest.csv (report_retest.c), and the wording of one
 * anomaly's retest verdict for the anomalies table ("" when it has none). */
int lens_report_retest_vars(void *ctx, struct lens_err *e);
int lens_report_retest_table(void *ctx, const struct lens_template_item *it, struct lens_err *e);
/* Sets the counts' placeholders (retest_flagged, ...) of the current cube, for page one too. */
int lens_report_retest_count_vars(struct lens_report_ctx *r, struct lens_err *e);
int lens_report_retest_finding(struct lens_report_ctx *r, int i, char *buf, size_t n, struct lens_err *e);

/* "Bisection bandwidth" of a bisection run (report_bisection.c): the placeholders of the
 * current run (for every section of its "repeat inputs" group), the section's tables and
 * figure; the first run of the document for page one. */
const struct lens_bisection_detail *lens_report_bisection(const struct lens_report_ctx *r);
int lens_report_bisection_input_vars(void *ctx, struct lens_err *e);
int lens_report_bisection_vars(void *ctx, struct lens_err *e);
int lens_report_bisection_table(void *ctx, const struct lens_template_item *it, struct lens_err *e);
int lens_report_bisection_block(void *ctx, const struct lens_template_item *it, struct lens_err *e);
const struct lens_bisection_detail *lens_report_bisection_first(const struct lens_report_ctx *r, int *index);
/* A rate in B/s as a bare number of GB/s (10^9 B/s) with three significant digits: "5.74". */
void lens_report_fmt_GBps(double Bps, char *buf, size_t n);

#endif
