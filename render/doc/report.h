/* The latency-cube report: draws templates/report.tmpl with the values of one or more cubes
 * and point-to-point sweeps into a PDF (title page; per cube the summary, structure of the
 * machine, anomalies, retests, heatmaps and data quality; per sweep the latency, bandwidth and
 * message rate; per bisection run its rounds, slowest links and node shares), and optionally writes every figure as PNG and SVG. Each section is a row of the
 * section table in report.c that names the kind of input it is about (render/doc/doc.h), so
 * a new section is a row, its functions and a `section` in the template (docs/design.md).
 * The report computes nothing: each cube comes with its results (summaries per length and
 * the structure parts lens_report_parts names, from lens_structure_report_run), computed by
 * the caller before drawing, and the sections lay them out. */
#ifndef LENS_REPORT_H
#define LENS_REPORT_H

#include "analysis/cube/cube.h"
#include "common/err.h"
#include "common/time.h"

struct lens_p2pfile; /* analysis/cube/p2pfile.h */
struct lens_structure_report; /* analysis/structure/structure.h */
struct lens_compare;          /* analysis/compare/compare.h */
struct lens_accept_view;      /* analysis/accept/accept.h */

/* A cube's retests (PREFIX_retest.csv of mpilens-bench --retest beside it), finished by the
 * caller: the rows, their counts and verdicts (lens_retest_summarise) and the verdict on each
 * anomaly of the cube's results (lens_retest_link_verdict: 1 persists alone, a bad link; 0
 * vanished, contention; -1 not one retested link). All borrowed. */
struct lens_report_retest {
    const struct lens_retest *rt;
    struct lens_retest_summary s;
    const signed char *finding; /* results->st.an->n entries, NULL when there are no findings */
};

/* One input: a cube, a p2p sweep or a bisection run (exactly one of the three is set). */
struct lens_report_input {
    const char *name;            /* the INPUT as the user gave it (messages) */
    /* what headings, bookmarks and the running header call it (--label); NULL: the last two
     * parts of name (lens_report_label) */
    const char *label;
    /* A cube's provenance attributes (lens_cube_attr_provenance), borrowed; NULL: the
     * provenance table says "not recorded" in every row the cube itself cannot fill. */
    const struct lens_cube_provenance *prov;
    const struct lens_cube *cube; /* borrowed, not freed; NULL for a p2p sweep */
    const struct lens_p2pfile *p2p; /* borrowed, not freed; NULL for a cube */
    /* A cube's finished results, borrowed: lens_structure_report_run(cube, opts.stat,
     * parts, ...) with the parts lens_report_parts asks for. The report computes nothing
     * itself, it lays these out. NULL for a p2p sweep. */
    const struct lens_structure_report *results;
    /* A cube's retests, borrowed; NULL when no PREFIX_retest.csv is beside it (no section). */
    const struct lens_report_retest *retest;
    /* A bisection run (lens_bisection_detail_read), borrowed; NULL for a cube or sweep. */
    const struct lens_bisection_detail *bisection;
    /* `mpilens accept --baseline`: this cube compared with its baseline (lens_compare_cubes),
     * drawn as the "compare" section; NULL leaves the section out. Borrowed. */
    const struct lens_compare *compare;
    const char *baseline;        /* the baseline as the user named it */
    /* The colour range, seconds, that every per-length heatmap of this cube shares, on a log
     * scale (heat_range in cli/cmd_report.c, over all lengths of opts.stat); cells
     * outside get the end colours. 0 < heat_lo < heat_hi, else (zeroed) each length is drawn
     * on its own linear range, as before issue 14. */
    double heat_lo, heat_hi;
};

struct lens_report_opts {
    const char *title;       /* UTF-8; NULL: the template's default_title text */
    const char *datadir;     /* holds fonts/ and templates/ (see lens_report_datadir) */
    const char *template_path; /* NULL: <datadir>/templates/report.tmpl */
    const char *figures_dir; /* NULL: no figure files; else PNG + SVG of every figure */
    int stat;                /* enum lens_stat shown in the summary and heatmaps */
    const int *lengths;      /* message lengths (bytes) to draw, nearest present length is used;
                                NULL: the first, middle and last length */
    int nlengths;
    long long date;          /* Unix seconds printed and stored (lens_time_source_date()) */
    /* `mpilens accept -o`: the verdict worded by lens_accept_describe, drawn as page one
     * (section "verdict"); NULL (mpilens report) draws nothing there. Borrowed. */
    const struct lens_accept_view *verdict;
};

/* What the report calls input in: its label, else the last two parts of its name
 * ("synth32/network"), a suffix of in->name. */
const char *lens_report_label(const struct lens_report_input *in);

/* The last two parts of path ("synth32/network_median.nc"), a suffix of it: how the report
 * names an input's files, so an absolute path never shows the folder it was made in. */
const char *lens_report_path_tail(const char *path);

void lens_report_opts_init(struct lens_report_opts *o); /* median, no figures, date now */

/* The structure parts (enum lens_structure_part bits) the template of o shows for each cube:
 * every part but the anomalies for a "structure" section, the anomalies for an "anomalies"
 * section, 0 for neither. Checks the inputs and loads and checks the template as
 * lens_report_write does, so that a missing statistic or a bad template is reported before
 * anything is computed; the results are then computed and handed to lens_report_write.
 * Errors: those of lens_report_write's checks (LENS_EDATA, LENS_EINVAL, LENS_EFORMAT,
 * LENS_EIO, LENS_ENOMEM). */
int lens_report_parts(const struct lens_report_opts *o, const struct lens_report_input *in, int nin,
                      unsigned *parts, struct lens_err *e);

/* Writes the report to path (temporary file + rename: a failure leaves nothing). Errors name
 * the input, template line or file: LENS_EDATA (statistic missing from a cube), LENS_EINVAL
 * (an input with none or several of cube, p2p and bisection; a cube without results, with results of
 * another statistic, or without a structure part the template shows), LENS_EFORMAT
 * (template), LENS_EIO, LENS_ELIB, LENS_ENOMEM. Figure file names are heatmap_<stat>_<length>B, structure_heatmap,
 * dendrogram, nj_tree, link_clusters, link_curves (cubes) and p2p_{latency,bandwidth,msg_rate}
 * (sweeps), bisection (bisection runs), .png and .svg, prefixed with input<k>_ when there are several inputs. */
int lens_report_write(const struct lens_report_opts *o, const struct lens_report_input *in, int nin,
                      const char *path, struct lens_err *e);

/* Finds the directory holding fonts/ and templates/: lens_datadir_find (common/datadir.h), the
 * one lookup of the build and installed trees, under the name the report modules use. */
int lens_report_datadir(char *buf, size_t n, struct lens_err *e);

#endif
