/* Figures for profiles and stage logs, drawn with cairo: bar charts of function cost per
 * ICAPPA cluster (as in figures 1-5 of Zhu, Li and Li), a PCA scatter of the processes coloured by
 * cluster, and the two stage-log plots (time in stage against arrival time, tasks in each
 * stage against time). The format follows the file name: ".svg" is SVG, anything else PNG.
 * Every file is written through a temporary name and renamed when complete. font_path is a
 * TTF for the text (fonts/DejaVuSans.ttf), NULL for cairo's "sans". Output is deterministic. */
#ifndef LENS_PROFILE_PLOT_H
#define LENS_PROFILE_PLOT_H

#include "analysis/profile/profile.h"

/* Cost per cluster for round k of r. A processes round: for each of the (at most 16)
 * costliest functions, the mean seconds per process in each cluster, side by side. A
 * functions round: the total seconds of each function, coloured by its cluster.
 * Errors: LENS_EINVAL (k out of range), LENS_ELIB (cairo), LENS_EIO (output or font file),
 * LENS_EFORMAT (font), LENS_ENOMEM. */
int lens_profile_plot_bars(const struct lens_profile *p, const struct lens_icappa *r, size_t k,
                           const char *path, const char *font_path, struct lens_err *e);

/* Processes on the first two principal components of their function times, the costly
 * processes of r in one colour and the others in another. Needs 2 processes and at most
 * 4096 functions. Errors: LENS_EDATA, LENS_ELIB, LENS_EIO, LENS_ENOMEM. */
int lens_profile_plot_scatter(const struct lens_profile *p, const struct lens_icappa *r,
                              const char *path, const char *font_path, struct lens_err *e);

/* Box plots of d (lens_icappa_dist_build): for each of the (at most 12) first dominating
 * functions, one box per process group (median, quartiles, whiskers at 1.5 IQR, outliers as
 * circles), seconds per process. Only draws d. Errors: LENS_EDATA (no function), LENS_ELIB,
 * LENS_EIO, LENS_EFORMAT (font), LENS_ENOMEM. */
int lens_profile_plot_distribution(const struct lens_profile *p, const struct lens_icappa_dist *d,
                                   const char *path, const char *font_path, struct lens_err *e);

/* Seconds each task spent in each stage (one colour per stage) against its arrival time. */
int lens_profile_plot_stagelog_times(const struct lens_stagelog *l, const char *path, const char *font_path,
                                     struct lens_err *e);
/* Tasks in each stage against time: the occupancy the caller computed with
 * lens_stagelog_occupancy(l, points, times, counts), i.e. times[points] (seconds) and
 * counts[points x nstage] (tasks, row-major by time point). The figure only draws it.
 * Errors: LENS_EINVAL (times or counts missing), LENS_ELIB, LENS_EIO, LENS_ENOMEM. */
int lens_profile_plot_stagelog_occupancy(const struct lens_stagelog *l, size_t points, const double *times,
                                         const size_t *counts, const char *path, const char *font_path,
                                         struct lens_err *e);

/* Two stage logs' occupancies on one chart (thesis-style revision against revision): one
 * colour per stage, the baseline dashed and the new log solid, time from each log's start.
 * Draws c as built by lens_stagecmp_build. Errors: LENS_ELIB, LENS_EIO, LENS_ENOMEM. */
int lens_profile_plot_stagecmp(const struct lens_stagecmp *c, const char *path, const char *font_path,
                               struct lens_err *e);

/* The occupancy and the comparison figures in memory for a PDF (render/doc/stages_report.c):
 * *buf (lens_malloc'd, the caller's) in the thread's figure memory form
 * (lens_figure_memory_form), *len its bytes. Errors as the file forms, without LENS_EIO. */
int lens_profile_plot_stagelog_occupancy_mem(const struct lens_stagelog *l, size_t points, const double *times,
                                             const size_t *counts, const char *font_path, unsigned char **buf,
                                             size_t *len, struct lens_err *e);
int lens_profile_plot_stagecmp_mem(const struct lens_stagecmp *c, const char *font_path, unsigned char **buf,
                                   size_t *len, struct lens_err *e);

#endif
