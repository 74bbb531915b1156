/* The structure pipeline of a latency cube, computed once for whoever shows it: distances
 * between processes -> average-linkage (or any lens_hclust) tree -> cut (automatic, by k or
 * by height) -> leaf order -> neighbor-joining tree -> link clusters -> anomalies. `mpilens
 * cluster`, `nj`, `links`, `anomalies` and the report's "Structure of the machine" and
 * "Anomalies" sections all call lens_structure_run (or lens_structure_run_distances) and only
 * lay out the finished struct lens_structure; the figures take its leaf order and cut as
 * inputs. Which parts are computed is chosen by opts.parts, so `cluster` does not pay for NJ.
 * Units: distances, heights and the matrix are in the input's unit (seconds for a cube). */
#ifndef LENS_STRUCTURE_H
#define LENS_STRUCTURE_H

#include "common/err.h"
#include "anomaly.h"
#include "hclust.h"
#include "links.h"

struct lens_cube;
struct lens_distmat;
struct lens_newick;

/* What to compute (opts.parts, OR-ed). A part that needs another computes it too. */
enum lens_structure_part {
    LENS_STRUCTURE_TREE = 1 << 0,      /* hierarchical tree z and its leaf order */
    LENS_STRUCTURE_CUT = 1 << 1,       /* the cut opts.cut: k, label, group sizes (with TREE) */
    LENS_STRUCTURE_NJ = 1 << 2,        /* neighbor-joining tree of the distances */
    LENS_STRUCTURE_MATRIX = 1 << 3,    /* P x P median over lengths of opts.stat (a cube only) */
    LENS_STRUCTURE_LINKS = 1 << 4,     /* link clusters (a cube only) */
    LENS_STRUCTURE_ANOMALIES = 1 << 5, /* ranked anomalies (a cube only) */
    LENS_STRUCTURE_ALL = (1 << 6) - 1
};

/* How the tree is cut into groups (opts.cut). */
enum lens_structure_cut {
    LENS_STRUCTURE_CUT_NONE = 0,   /* no cut: k = 0, no labels */
    LENS_STRUCTURE_CUT_K = 1,      /* opts.k groups (1..n) */
    LENS_STRUCTURE_CUT_AUTO = 2,   /* lens_hclust_cut_auto; details in out->autocut */
    LENS_STRUCTURE_CUT_HEIGHT = 3  /* lens_structure_cut_height at opts.height (Z units) */
};

struct lens_structure_opts {
    unsigned parts;      /* enum lens_structure_part bits (default LENS_STRUCTURE_ALL) */
    int stat;            /* enum lens_stat of the distances and the matrix (default median) */
    int length;          /* length index of the distances, < 0: median over lengths (default) */
    int method;          /* enum lens_hclust_method (default average) */
    int cut;             /* enum lens_structure_cut (default AUTO) */
    int k;               /* groups for CUT_K */
    double height;       /* height for CUT_HEIGHT, Z units (seconds for a cube) */
    int nj_search;       /* enum lens_nj_search (default fast) */
    int keep_going;      /* 0: the first failure is returned. 1 (the report): a part that fails
                          * for a reason other than LENS_ENOMEM is left NULL with the reason
                          * in its *_err, and the other parts still run; a failed tree drops
                          * the distances, so NJ is left out too with the tree's reason */
    const char *source;  /* names the input in errors of the tree (NULL: no prefix) */
    struct lens_links_opts links;     /* default lens_links_opts_default */
    struct lens_anomaly_opts anomaly; /* default lens_anomaly_opts_default */
};

/* Every pointer is owned by the struct (lens_structure_release) and NULL when its part was
 * not asked for or failed (then the matching *_err says why, keep_going only). */
struct lens_structure {
    int n;                          /* processes */
    struct lens_distmat *dm;        /* the distances, intact (the tree works on a copy);
                                     * NULL after a tree failure kept in words */
    struct lens_hclust_step *z;     /* TREE: n-1 merges, scipy's Z */
    int *order;                     /* TREE: leaves in dendrogram order (scipy's leaves_list) */
    int k;                          /* CUT: groups, 0 without a cut */
    struct lens_hclust_autocut autocut; /* CUT_AUTO: the gap it chose (heights in Z units) */
    int *label;                     /* CUT: group 0..k-1 of each process, numbered by lowest rank */
    int *group_size;                /* CUT: processes per group (k) */
    double *group_within;           /* CUT: mean distance between two processes of a group
                                     * (k; NAN for a group of one) */
    double *matrix;                 /* MATRIX: P x P row-major, NAN where no length is finite */
    struct lens_newick *nj;         /* NJ: leaves 0..n-1 */
    struct lens_links *links;       /* LINKS */
    struct lens_anomalies *an;      /* ANOMALIES */
    struct lens_err tree_err, nj_err, links_err, anomaly_err; /* why a part is missing */
};

/* Defaults as documented in struct lens_structure_opts. */
void lens_structure_opts_default(struct lens_structure_opts *o);

/* Runs the parts of o on cube c; the distances come from statistic o->stat at o->length
 * (docs/methods.md §2.1). *out is filled (zeroed first) and must be released with
 * lens_structure_release whatever is returned. Errors: those of lens_distmat_from_cube,
 * lens_hclust_run, lens_hclust_cut*, lens_nj_run, lens_links_run, lens_anomaly_find, and
 * LENS_EINVAL for bad options; with keep_going only LENS_ENOMEM. */
int lens_structure_run(const struct lens_cube *c, const struct lens_structure_opts *o,
                       struct lens_structure *out, struct lens_err *e);

/* The same from distances already built (a CSV matrix, or a cube's after normalisation):
 * takes ownership of dm (also on error). c may be NULL; the parts that need a cube (MATRIX,
 * LINKS, ANOMALIES) are then LENS_EINVAL. */
int lens_structure_run_distances(struct lens_distmat *dm, const struct lens_cube *c,
                                 const struct lens_structure_opts *o,
                                 struct lens_structure *out, struct lens_err *e);

/* Frees what s holds and zeroes it; NULL or a zeroed struct does nothing. */
void lens_structure_release(struct lens_structure *s);

/* The cut at a height (Z units): the merges done before the first one higher than height
 * are kept, *k = n - their number (1..n). LENS_EINVAL for n < 2 or a NaN height. */
int lens_structure_cut_height(const struct lens_hclust_step *z, int n, double height, int *k,
                              struct lens_err *e);

/* ---- the rest of the structure wing (distances, trees, links, anomalies) ----
 * This header is the public contract of its folder: code outside the folder includes
 * this header and no other header of the folder (tests/test_layout.sh checks it). */
#include "distmat.h" /* process distances from a cube */
#include "nj.h" /* neighbour-joining trees */
#include "newick.h" /* trees as Newick text */
#include "ari.h" /* agreement of two partitions (adjusted Rand index) */
#include "structure_report.h" /* the results of a cube report, computed before drawing */

#endif
