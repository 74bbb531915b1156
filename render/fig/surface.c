/* 3-D efficiency surface E(p, d) with the heatmap beside it (render/fig/gridmap.c) and a colour bar.
 * Orthographic projection; quads are painted far to near in grid order, which is exact for a
 * height field: two cells in different columns are separated by a vertical plane p = const, and a
 * line of sight crosses it once, so the cell on the viewer's side can hide the other but never
 * the reverse (the same holds for rows within a column). */
#include "surface.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "figure.h"
#include "gridmap.h"

#define TITLE_H 34.0
#define ZSCALE 0.75 /* height of the efficiency axis relative to the floor's side */

void lens_surface_opts_default(struct lens_surface_opts *o)
{
    /* An azimuth of -60 and elevation of 30 degrees (matplotlib's 3-D default view) show both
     * axes and the surface's slope; 1100 x 520 fits the surface and its map side by side. */
    memset(o, 0, sizeof *o);
    o->azimuth = -60;
    o->elevation = 30;
    o->width = 1100;
    o->height = 520;
}

/* Everything needed to map (p, d, E) to the figure. */
struct view {
    double ca, sa, ce, se;  /* cos/sin of azimuth and elevation */
    double scale, ox, oy;   /* screen transform of the projected unit cube */
    double p0, p1, d0, d1;  /* axis ranges (log2 / log10 applied when the axis is logarithmic) */
    double zlo, zhi;        /* efficiency range of the vertical axis and the colour bar */
    int logp, logd;
    double W, H;            /* figure size */
    double px0, pw;         /* the 3-D panel's horizontal extent */
};

/* Data to unit-cube coordinates, log2 of processes and log10 of sizes on log axes. */
static double axis_p(const struct view *v, double p)
{
    double f = v->logp ? log2(p) : p;
    /* Into [0, 1] of the unit cube; a single process count sits in the middle of its axis. */
    return v->p1 > v->p0 ? (f - v->p0) / (v->p1 - v->p0) : 0.5;
}

static double axis_d(const struct view *v, double d)
{
    double f = v->logd ? log10(d) : d;
    return v->d1 > v->d0 ? (f - v->d0) / (v->d1 - v->d0) : 0.5;
}

/* Efficiency onto the box's height; view_init has made zhi > zlo. */
static double axis_e(const struct view *v, double e) { return (e - v->zlo) / (v->zhi - v->zlo); }

/* Unit-cube coordinates to screen-space before the fit: (sx, up). */
static void rotate(const struct view *v, double X, double Y, double Z, double *sx, double *up)
{
    /* About the cube's centre, so that the view turns in place; the efficiency axis squashed to
     * ZSCALE of the floor, or steep surfaces would hide the far cells. */
    double x = X - 0.5, y = Y - 0.5, z = (Z - 0.5) * ZSCALE;
    double xr = x * v->ca - y * v->sa;
    double yr = x * v->sa + y * v->ca;
    *sx = xr;
    /* Orthographic: no perspective divide, so equal grid steps stay equal on screen. */
    *up = yr * v->se + z * v->ce;
}

/* Unit cube to figure units: rotate, then the fit computed by view_init. */
static void project(const struct view *v, double X, double Y, double Z, double *px, double *py)
{
    double sx, up;
    rotate(v, X, Y, Z, &sx, &up);
    *px = v->ox + v->scale * sx;
    /* Screen y grows downwards, "up" upwards. */
    *py = v->oy - v->scale * up;
}

/* Everything the projection needs, and the checks of the options and the grid; called by
 * check, paint and the locate functions alike, so all agree on where things land. */
static int view_init(struct view *v, const struct lens_grid *g, const struct lens_surface_opts *o,
                     struct lens_err *e)
{
    memset(v, 0, sizeof *v);
    if (!(o->elevation >= 0 && o->elevation <= 90) || !isfinite(o->azimuth))
        return lens_err_set(e, LENS_EINVAL, "surface: elevation %g outside [0, 90] or bad azimuth",
                            o->elevation);
    /* 300 x 200 fits the two panels with their labels; 20000 bounds the image surface. */
    if (o->width < 300 || o->height < 200 || o->width > 20000 || o->height > 20000)
        return lens_err_set(e, LENS_EINVAL, "surface: size %d x %d outside 300x200 .. 20000x20000",
                            o->width, o->height);
    if (g->np == 0 || g->nd == 0)
        return lens_err_set(e, LENS_EINVAL, "surface: %s has no configuration with a valid run",
                            g->app ? g->app : "grid");
    /* Axis ranges from the sorted grid: the first and last process counts and sizes. */
    v->logp = o->log_procs;
    v->logd = o->log_size;
    v->p0 = v->logp ? log2(g->procs[0]) : g->procs[0];
    v->p1 = v->logp ? log2(g->procs[g->np - 1]) : g->procs[g->np - 1];
    /* Sizes are sorted, so size[0] > 0 covers them all; procs are >= 1 by the runs reader. */
    if (v->logd && !(g->size[0] > 0))
        return lens_err_set(e, LENS_EINVAL, "surface: logarithmic size axis needs sizes > 0");
    v->d0 = v->logd ? log10(g->size[0]) : g->size[0];
    v->d1 = v->logd ? log10(g->size[g->nd - 1]) : g->size[g->nd - 1];
    /* The efficiency axis spans at least [0, 1] (ideal is 1), wider when superlinear or negative
     * values occur, so that surfaces of different applications compare at a glance. Another
     * layer (o->values, drawn through a copy of the grid) has no ideal: its axis starts at
     * min(0, min) and ends at its maximum, or one unit higher when every value is equal. */
    double lo = 0, hi = o->values ? -INFINITY : 1;
    for (size_t k = 0; k < g->np * g->nd; k++)
        if (!isnan(g->eff[k])) {
            lo = g->eff[k] < lo ? g->eff[k] : lo;
            hi = g->eff[k] > hi ? g->eff[k] : hi;
        }
    if (!(hi > lo))
        hi = lo + 1;
    v->zlo = lo;
    v->zhi = hi;
    /* Degrees to radians once: rotate() runs for every corner of every cell. */
    double az = o->azimuth * M_PI / 180, el = o->elevation * M_PI / 180;
    v->ca = cos(az);
    v->sa = sin(az);
    v->ce = cos(el);
    v->se = sin(el);
    /* The figure's size in units: the panels and margins below are fractions of it. */
    v->W = o->width;
    v->H = o->height;
    /* The 3-D panel takes the left 54 %; fit the projected cube with room for labels. */
    v->px0 = 0;
    v->pw = 0.54 * v->W;
    double minx = 1e9, maxx = -1e9, minu = 1e9, maxu = -1e9;
    /* The eight corners of the unit cube, projected: their extent is what must fit the panel. */
    for (int c = 0; c < 8; c++) {
        double sx, up;
        rotate(v, c & 1, (c >> 1) & 1, (c >> 2) & 1, &sx, &up);
        minx = fmin(minx, sx);
        maxx = fmax(maxx, sx);
        minu = fmin(minu, up);
        maxu = fmax(maxu, up);
    }
    /* 85 units each side, 60 above and below, for the axis labels around the box. */
    double mx = 85, my = 60;
    double aw = v->pw - 2 * mx, ah = v->H - TITLE_H - 2 * my;
    double sw = aw / fmax(maxx - minx, 1e-9), sh = ah / fmax(maxu - minu, 1e-9);
    /* One scale for both directions: the box is not distorted to fill the panel. */
    v->scale = fmin(sw, sh);
    v->ox = v->px0 + v->pw / 2 - v->scale * (minx + maxx) / 2;
    v->oy = TITLE_H + my + ah / 2 + v->scale * (minu + maxu) / 2;
    return LENS_OK;
}

/* Screen direction (unit, y down) of the world vector (dx, dy, 0) — for placing labels. */
static void screen_dir(const struct view *v, double dx, double dy, double *ux, double *uy)
{
    double sx, up, sx0, up0;
    /* The direction of a world step on screen, from the centre: labels are pushed outwards
     * along it, away from the box, whatever the view angle. */
    rotate(v, 0.5 + dx, 0.5 + dy, 0.5, &sx, &up);
    rotate(v, 0.5, 0.5, 0.5, &sx0, &up0);
    double x = sx - sx0, y = -(up - up0), n = hypot(x, y);
    *ux = n > 1e-12 ? x / n : 0;
    *uy = n > 1e-12 ? y / n : 1;
}

/* A straight segment of the cube: orthographic projection keeps it straight. */
static void line3(cairo_t *cr, const struct view *v, double X0, double Y0, double Z0, double X1,
                  double Y1, double Z1)
{
    /* Project both ends, then draw: cairo has no 3-D. */
    double x, y;
    project(v, X0, Y0, Z0, &x, &y);
    cairo_move_to(cr, x, y);
    project(v, X1, Y1, Z1, &x, &y);
    cairo_line_to(cr, x, y);
    cairo_stroke(cr);
}

/* Tick values of an axis in data units: nice linear ticks, or powers of base on a log axis. */
static size_t axis_ticks(double lo, double hi, int logbase, double *t, size_t max)
{
    if (!logbase)
        return lens_gridmap_ticks(lo, hi, t, max);
    size_t n = 0;
    double lb = log(logbase);
    /* Powers of the base inside the range (2 for processes, 10 for sizes). */
    for (double k = ceil(log(lo) / lb - 1e-9); k <= floor(log(hi) / lb + 1e-9) && n < max; k++)
        t[n++] = pow(logbase, k);
    /* Fewer than two powers inside: the ends themselves, so the axis is still readable. */
    if (n < 2 && max >= 2) {
        t[0] = lo;
        t[1] = hi;
        n = hi > lo ? 2 : 1;
    }
    return n;
}

/* Back panes with grid lines, then (after the surface) the labelled front edges. */
static void draw_panes(cairo_t *cr, const struct view *v, const struct lens_grid *g, double xf,
                       double yf)
{
    double pt[32], dt[32], zt[32];
    size_t npt = axis_ticks(g->procs[0], g->procs[g->np - 1], v->logp ? 2 : 0, pt, 32);
    size_t ndt = axis_ticks(g->size[0], g->size[g->nd - 1], v->logd ? 10 : 0, dt, 32);
    size_t nzt = lens_gridmap_ticks(v->zlo, v->zhi, zt, 32);
    /* floor, wall at X = xf (far p side), wall at Y = yf (far d side) */
    double fl[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    double wx[4][3] = {{xf, 0, 0}, {xf, 1, 0}, {xf, 1, 1}, {xf, 0, 1}};
    double wy[4][3] = {{0, yf, 0}, {1, yf, 0}, {1, yf, 1}, {0, yf, 1}};
    /* The three panes behind the surface: floor and the two far walls, light grey. */
    double (*panes[3])[3] = {fl, wx, wy};
    for (int k = 0; k < 3; k++) {
        /* each pane a closed quadrilateral: its four corners projected */
        for (int c = 0; c < 4; c++) {
            double x, y;
            project(v, panes[k][c][0], panes[k][c][1], panes[k][c][2], &x, &y);
            c ? cairo_line_to(cr, x, y) : cairo_move_to(cr, x, y);
        }
        cairo_close_path(cr);
        /* Panes in a light grey with a darker outline, as in matplotlib's 3-D axes. */
        cairo_set_source_rgb(cr, 0.965, 0.965, 0.965);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
        cairo_set_line_width(cr, 0.8);
        cairo_stroke(cr);
    }
    /* Grid lines on the panes at every tick: reading a height off the walls. */
    cairo_set_source_rgb(cr, 0.82, 0.82, 0.82);
    cairo_set_line_width(cr, 0.6);
    /* Constant-p lines on the floor and up the far d wall. */
    for (size_t k = 0; k < npt; k++) {
        double X = axis_p(v, pt[k]);
        line3(cr, v, X, 0, 0, X, 1, 0);
        line3(cr, v, X, yf, 0, X, yf, 1);
    }
    /* Constant-d lines on the floor and up the far p wall. */
    for (size_t k = 0; k < ndt; k++) {
        double Y = axis_d(v, dt[k]);
        line3(cr, v, 0, Y, 0, 1, Y, 0);
        line3(cr, v, xf, Y, 0, xf, Y, 1);
    }
    /* Constant-efficiency lines on both far walls. */
    for (size_t k = 0; k < nzt; k++) {
        double Z = axis_e(v, zt[k]);
        line3(cr, v, xf, 0, Z, xf, 1, Z);
        line3(cr, v, 0, yf, Z, 1, yf, Z);
    }
}

/* Tick labels on the near floor edges and the efficiency axis on the left edge, pushed
 * outwards from the box. */
static void draw_labels(cairo_t *cr, const struct view *v, const struct lens_grid *g, double xf,
                        double yf, const char *zlabel)
{
    double pt[32], dt[32], zt[32], ux, uy, x, y;
    char buf[64];
    /* The same ticks as the grid lines of draw_panes, so labels sit at their ends. */
    size_t npt = axis_ticks(g->procs[0], g->procs[g->np - 1], v->logp ? 2 : 0, pt, 32);
    size_t ndt = axis_ticks(g->size[0], g->size[g->nd - 1], v->logd ? 10 : 0, dt, 32);
    size_t nzt = lens_gridmap_ticks(v->zlo, v->zhi, zt, 32);
    double yn = 1 - yf, xn = 1 - xf; /* near edges carry the labels */
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 11));
    /* Process labels along the near p edge, pushed away from the box by 8 units. */
    screen_dir(v, 0, yn - 0.5, &ux, &uy);
    for (size_t k = 0; k < npt; k++) {
        project(v, axis_p(v, pt[k]), yn, 0, &x, &y);
        lens_gridmap_format(pt[k], buf, sizeof buf);
        lens_gridmap_text(cr, buf, x + 8 * ux, y + 8 * uy, 0.5 - 0.5 * ux, 0.5 - 0.5 * uy);
    }
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 13));
    /* The axis title further out (34 units), clear of the tick labels. */
    project(v, 0.5, yn, 0, &x, &y);
    lens_gridmap_text(cr, "processes", x + 34 * ux, y + 34 * uy, 0.5 - 0.5 * ux, 0.5 - 0.5 * uy);
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 11));
    /* Size labels along the near d edge, likewise. */
    screen_dir(v, xn - 0.5, 0, &ux, &uy);
    for (size_t k = 0; k < ndt; k++) {
        project(v, xn, axis_d(v, dt[k]), 0, &x, &y);
        lens_gridmap_format(dt[k], buf, sizeof buf);
        lens_gridmap_text(cr, buf, x + 8 * ux, y + 8 * uy, 0.5 - 0.5 * ux, 0.5 - 0.5 * uy);
    }
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 13));
    project(v, xn, 0.5, 0, &x, &y);
    lens_gridmap_text(cr, "problem size", x + 34 * ux, y + 34 * uy, 0.5 - 0.5 * ux, 0.5 - 0.5 * uy);
    /* Efficiency ticks on the left-most vertical edge of the box. */
    double best = 1e18, cx = 0, cy = 0;
    /* the vertical edge furthest left on screen: it is never behind the surface */
    for (int c = 0; c < 4; c++) {
        double sx;
        project(v, c & 1, c >> 1, 0, &sx, &y);
        if (sx < best) {
            best = sx;
            cx = c & 1;
            cy = c >> 1;
        }
    }
    /* Efficiency labels right-aligned left of that edge. */
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 11));
    double widest = 0;
    for (size_t k = 0; k < nzt; k++) {
        project(v, cx, cy, axis_e(v, zt[k]), &x, &y);
        lens_gridmap_format(zt[k], buf, sizeof buf);
        lens_gridmap_text(cr, buf, x - 6, y, 1, 0.5);
        cairo_text_extents_t te;
        cairo_text_extents(cr, buf, &te);
        widest = te.x_advance > widest ? te.x_advance : widest;
    }
    /* The title clears the widest tick label: 44 units fit efficiency's "0.8", a performance
     * axis has labels like "100000". Efficiency keeps 44, so its figures stay as they were. */
    double title_dx = zlabel && strcmp(zlabel, "efficiency") && widest + 20 > 44 ? widest + 20 : 44;
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 13));
    project(v, cx, cy, 0.5, &x, &y);
    /* The efficiency title rotated, left of its tick labels. */
    cairo_save(cr);
    cairo_translate(cr, x - title_dx, y);
    cairo_rotate(cr, -M_PI / 2);
    lens_gridmap_text(cr, zlabel, 0, 0, 0.5, 1);
    cairo_restore(cr);
}

/* The surface: one quad per element (a triangle when one corner is missing), far to near. */
static void draw_quads(cairo_t *cr, const struct view *v, const struct lens_grid *g)
{
    size_t np = g->np, nd = g->nd;
    if (np < 2 || nd < 2)
        return;
    /* depth grows with X when sin(az) > 0 and with Y when cos(az) > 0 (see rotate) */
    int far_hi_i = v->sa > 0, far_hi_j = v->ca > 0;
    /* Dark cell edges show the grid on small surfaces; on large ones they would turn it black. */
    int edges = np <= 48 && nd <= 48;
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (size_t a = 0; a + 1 < np; a++) {
        /* Far columns first: a cell can only hide cells behind it (see the header), so painting far
         * to near gives a correct picture without a depth buffer. */
        size_t i = far_hi_i ? np - 2 - a : a;
        for (size_t b = 0; b + 1 < nd; b++) {
            size_t j = far_hi_j ? nd - 2 - b : b;
            const double c[4] = {g->eff[j * np + i], g->eff[j * np + i + 1],
                                 g->eff[(j + 1) * np + i + 1], g->eff[(j + 1) * np + i]};
            /* A missing configuration leaves a gap: with one corner missing the triangle of
             * the other three is drawn, so the hole is the diamond around the missing point. */
            int present = 0, filled = 0;
            double sum = 0;
            for (int k = 0; k < 4; k++)
                if (!isnan(c[k])) {
                    present++;
                    sum += c[k];
                }
            /* a corner filled with zero (--missing zero) was never measured: the cell says so */
            if (g->zero) {
                const size_t at[4] = {j * np + i, j * np + i + 1, (j + 1) * np + i + 1, (j + 1) * np + i};
                for (int k = 0; k < 4; k++)
                    filled |= g->zero[at[k]];
            }
            /* Two or more corners missing: no cell at all, the gap shows that nothing was measured. */
            if (present < 3)
                continue;
            /* The cell's corners in order around it, so the path is a simple polygon. */
            const double P[4] = {g->procs[i], g->procs[i + 1], g->procs[i + 1], g->procs[i]};
            const double D[4] = {g->size[j], g->size[j], g->size[j + 1], g->size[j + 1]};
            int first = 1;
            /* Missing corners are skipped: three corners make the triangle that keeps the gap honest. */
            for (int k = 0; k < 4; k++) {
                if (isnan(c[k]))
                    continue;
                double x, y;
                project(v, axis_p(v, P[k]), axis_d(v, D[k]), axis_e(v, c[k]), &x, &y);
                first ? cairo_move_to(cr, x, y) : cairo_line_to(cr, x, y);
                first = 0;
            }
            cairo_close_path(cr);
            /* The cell in the colour of its mean efficiency, the colour bar's mapping. */
            double rgb[3];
            lens_gridmap_colour(axis_e(v, sum / present), rgb);
            if (filled) /* grey, not the colour of a measured value: the zero is assumed */
                rgb[0] = rgb[1] = rgb[2] = 0.78;
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_fill_preserve(cr);
            /* Outline: dark mesh on small grids, own colour on large ones to hide seams. */
            if (edges || filled)
                cairo_set_source_rgba(cr, 0, 0, 0, 0.45);
            cairo_set_line_width(cr, edges ? 0.7 : 0.5);
            if (filled) {
                const double dash[2] = {3, 2};
                cairo_set_dash(cr, dash, 2, 0);
            }
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
    }
}

/* Heatmap cells filled with zero: grey, crossed out, and a line under the colour bar saying
 * what grey means. hx..hh is the heatmap's box as handed to lens_gridmap_draw. */
static void draw_zero_cells(cairo_t *cr, const struct view *v, const struct lens_grid *g, double hx,
                            double hy, double hw, double hh)
{
    if (!g->zero || !g->np || !g->nd)
        return;
    /* The spacing of cell centres is the cell's size; index np / nd is one past the last
     * centre, which lens_gridmap_cell computes the same way. */
    double x0, y0, x1, y1;
    lens_gridmap_cell(g, hx, hy, hw, hh, 0, 0, &x0, &y0);
    lens_gridmap_cell(g, hx, hy, hw, hh, 1, 1, &x1, &y1);
    double cw = fabs(x1 - x0), ch = fabs(y1 - y0);
    int any = 0;
    for (size_t j = 0; j < g->nd; j++)
        for (size_t i = 0; i < g->np; i++) {
            if (!g->zero[j * g->np + i])
                continue;
            any = 1;
            double cx, cy;
            lens_gridmap_cell(g, hx, hy, hw, hh, i, j, &cx, &cy);
            cairo_rectangle(cr, cx - cw / 2, cy - ch / 2, cw, ch);
            cairo_set_source_rgb(cr, 0.78, 0.78, 0.78);
            cairo_fill(cr);
            /* the cross spans the middle half of the cell, clear of its neighbours */
            cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
            cairo_set_line_width(cr, 1);
            cairo_move_to(cr, cx - cw / 4, cy - ch / 4);
            cairo_line_to(cr, cx + cw / 4, cy + ch / 4);
            cairo_move_to(cr, cx + cw / 4, cy - ch / 4);
            cairo_line_to(cr, cx - cw / 4, cy + ch / 4);
            cairo_stroke(cr);
        }
    if (any) {
        cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
        cairo_set_font_size(cr, lens_figure_font_floor(cr, 11));
        lens_gridmap_text(cr, "grey: not run, taken as 0", hx + hw / 2, v->H - 14, 0.5, 1);
    }
}

/* The figure's data for the protocol of figure.h: alt is the grid with the layer to draw as its
 * eff, so the projection, the heatmap and the colour bar serve every layer unchanged. */
struct job {
    const struct lens_grid *g;
    const struct lens_surface_opts *o;
    struct lens_grid alt;
};

/* The view's own checks (angles, size, an empty grid), prefixed with the figure's name. */
static int check(const void *data, const char *name, struct lens_err *e)
{
    const struct job *j = data;
    struct view v;
    int rc = view_init(&v, j->g, j->o, e);
    return rc < 0 ? lens_err_prefix(e, name) : LENS_OK;
}

static void size(const void *data, double *w, double *h)
{
    const struct job *j = data;
    *w = j->o->width;
    *h = j->o->height;
}

static int paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    const struct job *j = data;
    const struct lens_grid *g = j->g;
    const struct lens_surface_opts *o = j->o;
    cairo_t *cr = c->cr;
    struct view v;
    int rc = view_init(&v, g, o, e);
    if (rc < 0)
        return rc;
    cairo_save(cr);
    lens_figure_set_font(cr, c->face, 12); /* hinting off: the layout does not depend on the device */
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    char title[512];
    const char *zlabel = o->values ? (o->value_label ? o->value_label : "value") : "efficiency";
    if (o->title)
        snprintf(title, sizeof title, "%s", o->title);
    else if (o->values)
        snprintf(title, sizeof title, "%s: %s over (p, d)", g->app ? g->app : "", zlabel);
    else
        snprintf(title, sizeof title, "%s: parallel efficiency E(p, d)", g->app ? g->app : "");
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_font_size(cr, lens_figure_font_floor(cr, 16));
    lens_gridmap_text(cr, title, v.W / 2, 10, 0.5, 0);
    /* painter's order: the far walls, the surface back to front, then the labels over it */
    double xf = v.sa > 0 ? 1 : 0, yf = v.ca > 0 ? 1 : 0; /* far walls */
    draw_panes(cr, &v, g, xf, yf);
    draw_quads(cr, &v, g);
    draw_labels(cr, &v, g, xf, yf, zlabel);
    /* the heatmap of the same grid and the shared colour bar take the right 44% */
    lens_gridmap_draw(cr, g, 0.56 * v.W, TITLE_H + 30, 0.31 * v.W, v.H - TITLE_H - 60, v.zlo, v.zhi);
    draw_zero_cells(cr, &v, g, 0.56 * v.W, TITLE_H + 30, 0.31 * v.W, v.H - TITLE_H - 60);
    lens_gridmap_colourbar(cr, 0.905 * v.W, TITLE_H + 50, 18, v.H - TITLE_H - 120, v.zlo, v.zhi,
                           zlabel);
    cairo_restore(cr);
    return LENS_OK;
}

static const struct lens_figure_kind surface_kind = {"surface", LENS_FIGURE_ALPHA, check, size, paint};

static struct lens_figure figure(struct job *j, const struct lens_grid *g, const struct lens_surface_opts *o)
{
    j->g = g;
    j->o = o;
    if (o->values) {
        j->alt = *g;
        j->alt.eff = (double *)o->values; /* read only: the figure never writes a layer */
        j->g = &j->alt;
    }
    return (struct lens_figure){.kind = &surface_kind, .data = j, .font_path = o->font_path,
                                .name = g->app ? g->app : "surface"};
}

int lens_surface_draw(cairo_t *cr, const struct lens_grid *g, const struct lens_surface_opts *o,
                      struct lens_err *e)
{
    struct job j;
    struct lens_figure fig = figure(&j, g, o);
    return lens_figure_draw(&fig, cr, 0, 0, o->width, o->height, e);
}

int lens_surface_write(const char *path, const struct lens_grid *g,
                       const struct lens_surface_opts *o, struct lens_err *e)
{
    struct job j;
    struct lens_figure fig = figure(&j, g, o);
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_surface_png_mem(const struct lens_grid *g, const struct lens_surface_opts *o,
                         unsigned char **buf, size_t *len, struct lens_err *e)
{
    struct job j;
    struct lens_figure fig = figure(&j, g, o);
    return lens_figure_render(&fig, NULL, buf, len, e);
}

/* For tests and image maps: the same projection the drawing uses. */
int lens_surface_locate(const struct lens_grid *g, const struct lens_surface_opts *o, double p,
                        double d, double eff, double *x, double *y, struct lens_err *e)
{
    struct view v;
    struct job j;
    figure(&j, g, o); /* the layer drawn decides the vertical axis */
    int rc = view_init(&v, j.g, o, e);
    if (rc < 0)
        return rc;
    project(&v, axis_p(&v, p), axis_d(&v, d), axis_e(&v, eff), x, y);
    return LENS_OK;
}

int lens_surface_locate_cell(const struct lens_grid *g, const struct lens_surface_opts *o, size_t i,
                             size_t j, double *x, double *y, struct lens_err *e)
{
    struct view v;
    int rc = view_init(&v, g, o, e);
    if (rc < 0)
        return rc;
    if (i >= g->np || j >= g->nd)
        return lens_err_set(e, LENS_EINVAL, "surface: cell (%zu, %zu) outside %zu x %zu", i, j, g->np,
                            g->nd);
    lens_gridmap_cell(g, 0.56 * v.W, TITLE_H + 30, 0.31 * v.W, v.H - TITLE_H - 60, i, j, x, y);
    return LENS_OK;
}
