/* The heat map of an efficiency grid (processes across, problem size up), its colour bar and
 * the tick and label helpers: the flat companion of the 3-D surface (surface.c), drawn into
 * whatever box the surface figure gives it. */
#include "gridmap.h"
#include "figure.h"

#include "colormap.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lens_gridmap_colour(double t, double rgb[3])
{
    /* the project's viridis (render/fig/colormap.c), so every figure maps values alike */
    lens_colormap_rgb(LENS_CMAP_VIRIDIS, lens_colormap_index(t), rgb);
}

/* Round ticks for the grid's axes and colour bar; shared with the surface's 3-D axes. */
size_t lens_gridmap_ticks(double lo, double hi, double *ticks, size_t max)
{
    /* A flat range (one configuration, or all efficiencies equal) still gets its one value as
     * a tick, so the bar is never unlabelled. */
    if (!(hi > lo) || max == 0) {
        if (max > 0 && isfinite(lo)) {
            ticks[0] = lo;
            return 1;
        }
        return 0;
    }
    /* About five ticks: the smallest 1, 2, 5 x 10^k step at least a fifth of the range. */
    double target = (hi - lo) / 5;
    double mag = pow(10, floor(log10(target)));
    /* The first of 1, 2, 5, 10 times the magnitude that reaches the target. */
    double step = mag;
    static const double mult[] = {1, 2, 5, 10};
    for (size_t k = 0; k < 4; k++)
        if (mult[k] * mag >= target) {
            step = mult[k] * mag;
            break;
        }
    /* Ticks counted, not summed: first + n * step stays exact along the axis. */
    size_t n = 0;
    /* The 1e-9 slack keeps a tick that sits on lo or hi despite rounding (0.3 / 0.1 = 2.9999...). */
    double first = ceil(lo / step - 1e-9) * step;
    for (double v = first; v <= hi + step * 1e-9 && n < max; v = first + (double)n * step) {
        /* -1e-17 would print as "-1e-17": snap values at rounding distance of zero to zero. */
        ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    }
    return n;
}

/* Compact numbers for tick labels: the panels are narrow. */
void lens_gridmap_format(double v, char *buf, size_t n)
{
    char tmp[64];
    /* %g: sizes span 1e3 to 1e9 and efficiencies 0 to 1; one format reads well for both. */
    snprintf(tmp, sizeof tmp, "%g", v);
    /* "1e+06" -> "1e6", "2.5e-05" -> "2.5e-5" */
    /* %g writes exponents as e+06 or e-05: shortened below. */
    char *e = strchr(tmp, 'e');
    if (e) {
        /* d writes, s reads: the exponent is compacted in place. */
        char *d = e + 1, *s = e + 1;
        if (*s == '+')
            s++;
        else if (*s == '-')
            *d++ = *s++;
        /* Leading zeros of the exponent go, but one digit always stays. */
        while (*s == '0' && s[1])
            s++;
        memmove(d, s, strlen(s) + 1);
    }
    snprintf(buf, n, "%s", tmp);
}

/* Text anchored at (x, y) by fractions of its advance (ax) and of the font's height (ay). */
void lens_gridmap_text(cairo_t *cr, const char *s, double x, double y, double ax, double ay)
{
    cairo_text_extents_t te;
    cairo_font_extents_t fe;
    cairo_text_extents(cr, s, &te);
    cairo_font_extents(cr, &fe);
    /* Vertical anchoring on the font box, not the ink, so labels of a row line up. */
    double h = fe.ascent + fe.descent;
    cairo_move_to(cr, x - ax * te.x_advance, y - ay * h + fe.ascent);
    cairo_show_text(cr, s);
}

/* The cell area inside the box: room on the left and below for ticks and titles. */
static void cell_area(double x, double y, double w, double h, double *cx, double *cy, double *cw,
                      double *ch)
{
    /* 62 units left for the size labels and the rotated axis title, 58 below for the process
     * labels and their title: fixed, because the surface figure has a fixed layout too. */
    *cx = x + 62;
    *cy = y + 8;
    *cw = w - 70;
    *ch = h - 58;
    /* A box smaller than the margins still gets a 1-unit area instead of a negative one. */
    if (*cw < 1)
        *cw = 1;
    if (*ch < 1)
        *ch = 1;
}

/* The centre of cell (i, j): exported so that tests and image maps find cells as drawn. */
void lens_gridmap_cell(const struct lens_grid *g, double x, double y, double w, double h, size_t i,
                       size_t j, double *cx, double *cy)
{
    double ax, ay, aw, ah;
    cell_area(x, y, w, h, &ax, &ay, &aw, &ah);
    /* An empty grid must not divide by zero; it has no cell to place anyway. */
    double np = g->np ? (double)g->np : 1, nd = g->nd ? (double)g->nd : 1;
    *cx = ax + aw * ((double)i + 0.5) / np;
    *cy = ay + ah * (1 - ((double)j + 0.5) / nd); /* sizes grow upwards */
}

/* Label every k-th value so that labels do not overlap. */
static size_t label_step(size_t n, double room, double need)
{
    size_t k = 1;
    /* need is the width (or height) one label takes; k grows until k cells give that much room. */
    while (k < n && room / (double)n * (double)k < need)
        k++;
    return k;
}

/* The grid as coloured cells, processes across and sizes up, with its labelled axes. */
void lens_gridmap_draw(cairo_t *cr, const struct lens_grid *g, double x, double y, double w,
                       double h, double zlo, double zhi)
{
    double ax, ay, aw, ah;
    cell_area(x, y, w, h, &ax, &ay, &aw, &ah);
    size_t np = g->np, nd = g->nd;
    /* A flat colour range maps every cell to the bottom colour rather than dividing by zero. */
    double span = zhi > zlo ? zhi - zlo : 1;
    cairo_save(cr);
    /* An empty grid draws the frame and labels only. */
    if (np && nd) {
        /* Cell size in units; cells are then snapped to whole units below. */
        double cw = aw / (double)np, ch = ah / (double)nd;
        for (size_t j = 0; j < nd; j++)
            for (size_t i = 0; i < np; i++) {
                double v = g->eff[j * np + i];
                if (isnan(v))
                    continue; /* a missing configuration stays empty */
                double rgb[3];
                lens_gridmap_colour((v - zlo) / span, rgb);
                cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
                /* Snap to whole units so neighbouring cells meet without seams. */
                double x0 = floor(ax + cw * (double)i), x1 = floor(ax + cw * (double)(i + 1));
                double y1 = floor(ay + ah - ch * (double)j), y0 = floor(ay + ah - ch * (double)(j + 1));
                cairo_rectangle(cr, x0, y0, x1 - x0, y1 - y0);
                cairo_fill(cr);
            }
    }
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1);
    /* Half a unit out: a 1-unit line centred on whole coordinates covers whole pixels, crisp. */
    cairo_rectangle(cr, ax - 0.5, ay - 0.5, aw + 1, ah + 1);
    cairo_stroke(cr);
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 11));
    char buf[64];
    /* 40 units fit a label like "1024" across; 16 a line of 11-point text up the side. */
    size_t kp = label_step(np, aw, 40), kd = label_step(nd, ah, 16);
    for (size_t i = 0; i < np; i += kp) {
        double cx, cy;
        lens_gridmap_cell(g, x, y, w, h, i, 0, &cx, &cy);
        lens_gridmap_format(g->procs[i], buf, sizeof buf);
        lens_gridmap_text(cr, buf, cx, ay + ah + 4, 0.5, 0);
    }
    for (size_t j = 0; j < nd; j += kd) {
        double cx, cy;
        lens_gridmap_cell(g, x, y, w, h, 0, j, &cx, &cy);
        lens_gridmap_format(g->size[j], buf, sizeof buf);
        lens_gridmap_text(cr, buf, ax - 5, cy, 1, 0.5);
    }
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 13));
    lens_gridmap_text(cr, "processes", ax + aw / 2, ay + ah + 24, 0.5, 0);
    cairo_save(cr);
    cairo_translate(cr, x + 4, ay + ah / 2);
    cairo_rotate(cr, -M_PI / 2);
    lens_gridmap_text(cr, "problem size", 0, 0, 0.5, 0);
    cairo_restore(cr);
    cairo_restore(cr);
}

/* The efficiency colour bar shared by the surface and the grid beside it. */
void lens_gridmap_colourbar(cairo_t *cr, double x, double y, double w, double h, double zlo,
                            double zhi, const char *label)
{
    cairo_save(cr);
    /* A gradient bottom (zlo) to top (zhi) with 17 stops of the same viridis: smooth enough on
     * screen and in print, and one vector object in SVG instead of 256 strips. */
    cairo_pattern_t *pat = cairo_pattern_create_linear(0, y + h, 0, y);
    for (int k = 0; k <= 16; k++) {
        double rgb[3];
        lens_gridmap_colour(k / 16.0, rgb);
        cairo_pattern_add_color_stop_rgb(pat, k / 16.0, rgb[0], rgb[1], rgb[2]);
    }
    cairo_rectangle(cr, x, y, w, h);
    cairo_set_source(cr, pat);
    cairo_fill(cr);
    cairo_pattern_destroy(pat);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, x - 0.5, y - 0.5, w + 1, h + 1);
    cairo_stroke(cr);
    double ticks[16];
    size_t nt = lens_gridmap_ticks(zlo, zhi, ticks, 16);
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 11));
    for (size_t k = 0; k < nt; k++) {
        /* A flat range has its single tick in the middle of the bar. */
        double ty = zhi > zlo ? y + h - h * (ticks[k] - zlo) / (zhi - zlo) : y + h / 2;
        cairo_move_to(cr, x + w, ty);
        cairo_line_to(cr, x + w + 4, ty);
        cairo_stroke(cr);
        char buf[64];
        lens_gridmap_format(ticks[k], buf, sizeof buf);
        lens_gridmap_text(cr, buf, x + w + 6, ty, 0, 0.5);
    }
    if (label) {
        cairo_set_font_size(cr, lens_figure_font_floor(cr, 13));
        lens_gridmap_text(cr, label, x + w / 2, y - 8, 0.5, 1);
    }
    cairo_restore(cr);
}
