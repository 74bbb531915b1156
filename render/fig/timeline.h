/* The timeline of a trace: a time window with one lane per rank, the MPI calls coloured by
 * class (point-to-point, collective, one-sided, wait/test) against computation (the gaps),
 * messages as lines from the send's enter to the receive's leave, and the detected problem
 * instances as shaded spans labelled with the problem's name. The window is chosen around the
 * worst instance (what Jumpshot shows by hand). Drawn with cairo into any cairo_t, written as
 * PNG or SVG (by the file name) or PNG bytes for the PDF report; output is deterministic. */
#ifndef LENS_TIMELINE_H
#define LENS_TIMELINE_H

#include "analysis/trace/trace.h"
#include "common/err.h"

#include <cairo.h>
#include <stddef.h>

/* What a timeline shows is a trace analysis (analysis/trace/trace_analysis.h), borrowed: its trace
 * (times carry the clock fix), its composite events (the message lines) and its problems,
 * found with LENS_PROBLEMS_KEEP_CHARGES (without charges only the ten largest instances of
 * each problem can be highlighted; problems may be NULL for a plain timeline). Nothing here
 * builds events or runs detection. */

struct lens_timeline_opts {
    double t0, t1;         /* window in seconds of trace time; t1 <= t0: chosen automatically */
    const char *problem;   /* centre on this problem id's worst instance; NULL: the worst of all */
    int lang;              /* 0 English, 1 Russian problem names */
    int width, height;     /* pixels (PNG) or points (SVG); default 1200 x (by the lanes) */
    size_t max_calls;      /* automatic window: narrowed until at most this many calls show
                              (default 4000); drawing merges calls below half a pixel */
    size_t max_messages;   /* message lines drawn at most (default 2000), the first by send */
    int max_lanes;         /* ranks drawn at most (default 64), a block around the instance */
    const char *title;     /* NULL: automatic ("Late sender on rank 1: 24.0 ms ...") */
    const char *font_path; /* TTF (fonts/DejaVuSans.ttf); NULL: cairo's toy "sans" */
    double font_size;      /* base size in pixels/points; 0: by the width (12.6 at 1200) */
};

/* Defaults as above, window automatic. */
void lens_timeline_opts_init(struct lens_timeline_opts *o);

/* The chosen window and what it holds (filled by lens_timeline_select). */
struct lens_timeline_window {
    double t0, t1;          /* seconds of trace time */
    int problem;            /* index into p->res of the centred instance's problem, -1: none */
    int32_t rank;           /* the centred instance: charged rank (-1: none) */
    uint32_t call;          /* its call on that rank (index into lens_trace_rank.calls) */
    double time, seconds;   /* its wasted span [time, time + seconds], seconds of trace time:
                               from the call's enter, or up to its leave for the rules
                               declared with waits = "until_leave" in the rules file
                               (lens_rule_problem.waits_until_leave, e.g. barrier_completion);
                               the problem's id plays no part */
    int lane0, nlanes;      /* ranks lane0 .. lane0 + nlanes - 1 are drawn */
    size_t ncalls;          /* MPI calls overlapping the window on the drawn ranks */
    size_t nmessages;       /* message lines drawn (at most max_messages) */
    size_t nmessages_all;   /* messages between drawn ranks whose line crosses the window */
    size_t ninstances;      /* problem instances overlapping the window on the drawn ranks */
};

/* Chooses the window: o->t0/t1 when given (checked against the trace; the centred instance
 * is then the largest one overlapping it, if any), else the charged call of the worst
 * instance (of o->problem when set) widened by 1.5 times its length on each side (at least
 * 1 ms) and clipped to the trace, then narrowed towards the call while more than max_calls
 * calls would show. A trace without instances gets its first second. Errors: LENS_EINVAL (a
 * window outside the trace or t1 <= t0 given, an unknown problem id, a problem with no
 * instance, no MPI call in the trace). */
int lens_timeline_select(const struct lens_trace_analysis *s, const struct lens_timeline_opts *o,
                         struct lens_timeline_window *w, struct lens_err *e);

/* Draws the timeline of window w into cr over the box (x, y, width, height), background
 * included. LENS_EINVAL for a box below 320 x 120, LENS_ELIB for cairo errors. */
int lens_timeline_draw(cairo_t *cr, double x, double y, double width, double height,
                       const struct lens_trace_analysis *s, const struct lens_timeline_opts *o,
                       const struct lens_timeline_window *w, struct lens_err *e);

/* The figure size the writers use: o->width/height, or the defaults for w's lanes. */
void lens_timeline_size(const struct lens_timeline_opts *o, const struct lens_timeline_window *w,
                        int *width, int *height);

/* Writes the figure to path atomically: ".svg" is SVG, ".png" PNG, anything else LENS_EINVAL.
 * Errors name path: LENS_EIO, LENS_ELIB, LENS_ENOMEM, and those of lens_timeline_draw. */
int lens_timeline_write(const char *path, const struct lens_trace_analysis *s,
                        const struct lens_timeline_opts *o, const struct lens_timeline_window *w,
                        struct lens_err *e);

/* The figure as PNG bytes: *buf is lens_malloc'd (the caller lens_frees it), *len its size. */
int lens_timeline_png_mem(const struct lens_trace_analysis *s, const struct lens_timeline_opts *o,
                          const struct lens_timeline_window *w, unsigned char **buf, size_t *len,
                          struct lens_err *e);

/* Class of an MPI function by name, for colours and legends. */
enum lens_timeline_class {
    LENS_TL_P2P = 0, LENS_TL_COLL, LENS_TL_RMA, LENS_TL_WAIT, /* Wait/Test family */
    LENS_TL_OTHER, /* Init, Finalize, communicators, ... */
    LENS_TL_NCLASS
};
int lens_timeline_class(const char *mpi_name);

#endif
