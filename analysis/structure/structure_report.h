/* The results a latency-cube report shows of one cube, computed before the document is drawn
 * so that render/doc only lays them out: per message length the summary of the statistic and
 * its slowest pair, and the structure (lens_structure_run, the function `mpilens cluster`,
 * `nj`, `links` and `anomalies` call) with the parts the report's template shows. */
#ifndef LENS_STRUCTURE_REPORT_H
#define LENS_STRUCTURE_REPORT_H

#include "analysis/cube/cube.h"
#include "common/err.h"
#include "structure.h"

/* One message length of the cube. */
struct lens_structure_report_length {
    struct lens_summary s; /* off-diagonal min, median, max of the statistic, seconds (NaN: none) */
    int slow_row, slow_col; /* matrix indices of the largest finite off-diagonal element (the
                             * first in row-major order on a tie); -1 when none is finite */
    /* median of the statistic over the off-diagonal pairs on one host (intra) and on two hosts
     * (inter), seconds; NaN when the cube has no hosts file or no such pair */
    double intra_median, inter_median;
    /* |A - A^T| / (A + A^T) of the statistic over the pairs i < j at this length
     * (lens_cube_asymmetry_length): median and max, dimensionless; NaN when no pair has both */
    double asym_median, asym_max;
};

/* Everything is owned by the struct (lens_structure_report_release). */
struct lens_structure_report {
    int stat;      /* enum lens_stat the summaries and the structure are of */
    int nlen;      /* the cube's lengths: one entry each in len */
    struct lens_structure_report_length *len;
    unsigned parts; /* enum lens_structure_part bits computed into st; 0: st is zeroed */
    /* run with keep_going (a part that fails is NULL with its reason in st.*_err, for the
     * report to put in words), average linkage cut automatically, anomalies of stat except
     * for the deviation, a spread and not a delay (then the anomaly search's own choice:
     * median, else average, else min) */
    struct lens_structure st;
    /* The data-quality gate (analysis/cube/quality.h), set by lens_structure_report_run_gated
     * only (gated 1). When the cube fails it, the structure parts asked are not computed (parts
     * is 0, skipped holds them): a cube that cannot carry a structure gets none drawn from
     * its noise, and the report says why instead. */
    int gated;
    struct lens_quality quality;
    unsigned skipped;
};

/* Computes the results of cube c for statistic stat and the structure parts asked (0: none).
 * *out is zeroed first and must be released whatever is returned. Errors: LENS_EINVAL for
 * a statistic the cube lacks or a bad part mask, LENS_ENOMEM; a structure part that fails
 * for another reason is kept in st.*_err, not returned. */
int lens_structure_report_run(const struct lens_cube *c, int stat, unsigned parts,
                              struct lens_structure_report *out, struct lens_err *e);

/* lens_structure_report_run after the data-quality gate (lens_quality_check with qopts, NULL:
 * the defaults): the summaries always, the structure parts only when the cube passes. The
 * verdict is in out->quality. Errors: those of lens_structure_report_run and
 * lens_quality_check. */
int lens_structure_report_run_gated(const struct lens_cube *c, int stat, unsigned parts,
                                    const struct lens_quality_opts *qopts, struct lens_structure_report *out,
                                    struct lens_err *e);

/* Frees what r holds and zeroes it; NULL or a zeroed struct does nothing. */
void lens_structure_report_release(struct lens_structure_report *r);

#endif
