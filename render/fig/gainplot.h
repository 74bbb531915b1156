/* The gain figure of the problems report (`problems --versions`): versions of one program
 * traced at several process counts, drawn against the process count: on the left each
 * version's run time, on the right the share of the main problems in each version. Numbers
 * come finished from the caller (cli/cmd_problems.c); this only draws them. */
#ifndef LENS_GAINPLOT_H
#define LENS_GAINPLOT_H

#include "common/err.h"

#include <stddef.h>

#define LENS_GAINPLOT_MAX_VERSIONS 4
#define LENS_GAINPLOT_MAX_PROBLEMS 4

/* Everything borrowed. Arrays are indexed version-major: time[v * nprocs + p]. */
struct lens_gainplot_opts {
    int nprocs;                 /* >= 1 process counts ... */
    const int *procs;           /* ... in the order drawn (left to right), each >= 1 */
    int nversions;              /* 1..LENS_GAINPLOT_MAX_VERSIONS */
    const char *const *version; /* their names ("naive", "overlapped") */
    const double *time;         /* seconds, finite and > 0 */
    const double *gain;         /* time of version 0 / time of version v (1 for v = 0) */
    int nproblems;              /* 0..LENS_GAINPLOT_MAX_PROBLEMS main problems ... */
    const char *const *problem; /* ... their names */
    const double *share;        /* [(v * nproblems + k) * nprocs + p]: fraction of the total
                                 * time, 0..1 (0 where the problem was not found) */
    const char *xlabel, *time_label, *share_label; /* axis titles; NULL: none */
    int width, height;          /* pixels (PNG) / points (SVG); 0: 1000 x 420 */
    const char *font_path;      /* TTF, NULL: cairo's "sans" */
};

/* Writes o to path (.png or .svg), atomically. Errors: LENS_EINVAL (counts out of range, a
 * time not finite and positive, a share outside 0..1, bad size or extension), font errors,
 * LENS_ELIB, LENS_EIO; messages name path. */
int lens_gainplot_write(const struct lens_gainplot_opts *o, const char *path, struct lens_err *e);
/* The same as PNG bytes at print resolution: *buf (lens_malloc'd, caller frees) / *len. */
int lens_gainplot_png_mem(const struct lens_gainplot_opts *o, unsigned char **buf, size_t *len,
                          struct lens_err *e);

#endif
