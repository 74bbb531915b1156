/* The strip plot of strip.h: each value a dot on one axis, stacked upwards where dots would
 * overlap, and the marks (min, median, mean, max) as dashed lines labelled on rows of their
 * own below the axis, so that marks a hair apart stay readable. */
#include "strip.h"

#include "figure.h"
#include "common/alloc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEF_W 900
#define DEF_H 360

static int check(const void *data, const char *name, struct lens_err *e)
{
    const struct lens_strip_opts *o = data;
    if (o->n < 1 || !o->v)
        return lens_err_set(e, LENS_EINVAL, "%s: a strip plot needs at least one value", name);
    if (o->nmarks < 0 || o->nmarks > LENS_STRIP_MAX_MARKS || (o->nmarks && !o->marks))
        return lens_err_set(e, LENS_EINVAL, "%s: %d marks (at most %d)", name, o->nmarks, LENS_STRIP_MAX_MARKS);
    if (o->width < 0 || o->height < 0 || (o->width && o->width < 200) || (o->height && o->height < 150))
        return lens_err_set(e, LENS_EINVAL, "%s: size %d x %d is too small", name, o->width, o->height);
    /* the axis range comes from the values: one NaN would make every position NaN */
    for (int i = 0; i < o->n; i++)
        if (!isfinite(o->v[i]))
            return lens_err_set(e, LENS_EINVAL, "%s: value %d is not finite", name, i);
    for (int i = 0; i < o->nmarks; i++)
        if (!isfinite(o->marks[i].value))
            return lens_err_set(e, LENS_EINVAL, "%s: mark %d is not finite", name, i);
    return LENS_OK;
}

/* The natural size: the options', or 900 x 360 (a text-wide figure of moderate height). */
static void size(const void *data, double *w, double *h)
{
    const struct lens_strip_opts *o = data;
    *w = o->width ? o->width : DEF_W;
    *h = o->height ? o->height : DEF_H;
}

static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct lens_strip_opts *o = data;
    cairo_t *cr = c->cr;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    /* the base size follows the width; the scaffold's floor keeps it >= 7 pt in print, and the
     * smallest text is 0.9 of it, hence the division */
    double fs = fmax(c->w / 60.0, lens_figure_font_floor(cr, 0) / 0.9);
    double left = 3 * fs, right = c->w - 3 * fs, top = fs;
    cairo_set_source_rgb(cr, 0, 0, 0);
    /* the title wraps (no clipping at either end) and pushes the plot down by its lines */
    lens_figure_set_font(cr, c->face, 1.15 * fs);
    if (o->title)
        top += 1.2 * 1.15 * fs * lens_figure_text_wrap(c->text, cr, c->w / 2, top, o->title, c->w - 2 * fs, 0.5, 1);
    /* the range over values and marks, widened 5% each side (or +-10% of a single value) so
     * that no dot sits on the frame */
    double lo = o->v[0], hi = o->v[0];
    for (int i = 0; i < o->n; i++)
        lo = fmin(lo, o->v[i]), hi = fmax(hi, o->v[i]);
    for (int i = 0; i < o->nmarks; i++)
        lo = fmin(lo, o->marks[i].value), hi = fmax(hi, o->marks[i].value);
    double pad = hi > lo ? 0.05 * (hi - lo) : fmax(0.1 * fabs(lo), 1e-9);
    lo -= pad;
    hi += pad;
    /* rows under the axis: tick labels, axis title, then one row per mark label */
    double row = 1.3 * fs;
    double axis_y = c->h - fs - row * (2 + o->nmarks);
    double dot_r = 0.45 * fs;
    /* a short figure with many marks keeps at least two levels of dots above the axis */
    if (axis_y < top + 4 * dot_r)
        axis_y = top + 4 * dot_r;
    double span = right - left;
/* a value's x: linear over [lo, hi], which holds every value and mark with padding */
#define X(val) (left + ((val) - lo) / (hi - lo) * span)
    /* ticks and labels */
    /* at most 8 ticks: labels of a few digits each fit side by side at the floor size */
    double ticks[16], step;
    int nt = lens_figure_ticks(lo, hi, 0, 8, ticks, &step);
    lens_figure_set_font(cr, c->face, 0.9 * fs);
    cairo_set_line_width(cr, fmax(1, fs / 14));
    cairo_move_to(cr, left, axis_y);
    cairo_line_to(cr, right, axis_y);
    cairo_stroke(cr);
    for (int t = 0; t < nt; t++) {
        char buf[32];
        double x = X(ticks[t]);
        cairo_move_to(cr, x, axis_y);
        cairo_line_to(cr, x, axis_y + 0.4 * fs);
        cairo_stroke(cr);
        lens_figure_format_value(ticks[t], step, buf, sizeof buf);
        lens_figure_label(c->text, cr, x, axis_y + 0.5 * fs, buf, 0.5, 0, 0);
    }
    lens_figure_set_font(cr, c->face, fs);
    if (o->xlabel)
        lens_figure_label(c->text, cr, (left + right) / 2, axis_y + row + 0.3 * fs, o->xlabel, 0.5, 0, 0);
    /* marks: a dashed line over the dot area, its label on its own row below the axis title,
     * at the line's x (kept inside the figure) */
    double dash[2] = {0.5 * fs, 0.3 * fs};
    for (int m = 0; m < o->nmarks; m++) {
        double x = X(o->marks[m].value), ly = axis_y + row * (2 + m) + 0.3 * fs;
        cairo_set_source_rgb(cr, 0.75, 0.2, 0.1);
        cairo_set_dash(cr, dash, 2, 0);
        /* over the dots down to the axis, then again below the tick labels and the axis
         * title, which the line would otherwise strike through */
        cairo_move_to(cr, x, top + dot_r);
        cairo_line_to(cr, x, axis_y);
        cairo_move_to(cr, x, axis_y + 2 * row + 0.1 * fs);
        cairo_line_to(cr, x, ly);
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
        lens_figure_set_font(cr, c->face, 0.9 * fs);
        double tw = lens_figure_text_width(cr, o->marks[m].label);
        /* left-anchored after the line, or right-anchored before it near the right edge */
        int flip = x + 0.3 * fs + tw > c->w - 0.5 * fs;
        cairo_set_source_rgb(cr, 0.55, 0.1, 0.05);
        lens_figure_label(c->text, cr, flip ? x - 0.3 * fs : x + 0.3 * fs, ly, o->marks[m].label, flip ? 1 : 0, 0, 0);
    }
    /* dots: a value lands on the lowest level whose last dot is at least a diameter away, so
     * equal values stack instead of hiding each other (levels capped by the room above) */
    int maxlev = (int)((axis_y - top - dot_r) / (2.2 * dot_r));
    if (maxlev < 1)
        maxlev = 1;
    double *last = lens_malloc((size_t)maxlev * sizeof *last);
    if (!last)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", c->name);
    /* -inf: every level starts free; values are drawn in the caller's order (round order),
     * so the stacking, like the picture, is deterministic */
    for (int l = 0; l < maxlev; l++)
        last[l] = -INFINITY;
    cairo_set_source_rgba(cr, 0.12, 0.35, 0.65, 0.85);
    for (int i = 0; i < o->n; i++) {
        double x = X(o->v[i]);
        int l = 0;
        while (l + 1 < maxlev && x - last[l] < 2.1 * dot_r)
            l++;
        last[l] = x;
        cairo_arc(cr, x, axis_y - 1.4 * dot_r - l * 2.2 * dot_r, dot_r, 0, 2 * M_PI);
        cairo_fill(cr);
    }
#undef X
    lens_free(last);
    return LENS_OK;
}

/* LENS_FIGURE_TEXT: the SVG gets the title and a searchable copy of every label */
static const struct lens_figure_kind strip_kind = {"strip plot", LENS_FIGURE_TEXT, check, size, paint};

int lens_strip_write(const struct lens_strip_opts *o, const char *path, struct lens_err *e)
{
    struct lens_figure fig = {.kind = &strip_kind, .data = o, .font_path = o->font_path, .title = o->title};
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_strip_png_mem(const struct lens_strip_opts *o, unsigned char **buf, size_t *len, struct lens_err *e)
{
    struct lens_figure fig = {.kind = &strip_kind, .data = o, .font_path = o->font_path, .title = o->title};
    return lens_figure_render(&fig, NULL, buf, len, e);
}
