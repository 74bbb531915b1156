/* Histogram of matrix values for the heatmap figure: binning in the colour scale and
 * drawing as horizontal bars beside the colour bar. */
#include "histogram.h"

#include "colormap.h"
#include "figure.h"

#include <math.h>
#include <string.h>

int lens_histogram_bins_for(long long n)
{
    int k = 1;
    while (k < 62 && (1LL << k) < n)
        k++;
    k += 1; /* ceil(log2 n) + 1 */
    return k < 4 ? 4 : k > 48 ? 48 : k;
}

int lens_histogram_compute(struct lens_histogram *h, const double *v, size_t n, double scale,
                           double lo, double hi, int log_scale, int nbins, const char *name,
                           struct lens_err *e)
{
    memset(h, 0, sizeof *h);
    if (nbins < 1 || !(hi > lo) || (log_scale && !(lo > 0.0)))
        return lens_err_set(e, LENS_EINVAL, "%s: bad histogram range [%g, %g] or %d bins",
                            name, lo, hi, nbins);
    h->count = lens_calloc((size_t)nbins, sizeof *h->count);
    double *edge = lens_malloc(((size_t)nbins + 1) * sizeof *edge);
    if (!h->count || !edge) {
        lens_free(edge);
        lens_histogram_release(h);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the histogram", name);
    }
    h->nbins = nbins;
    h->lo = lo;
    h->hi = hi;
    h->log_scale = log_scale;
    double llo = log10(lo > 0 ? lo : 1), lhi = log10(hi > 0 ? hi : 1);
    for (int k = 0; k <= nbins; k++)
        edge[k] = pow(10.0, llo + (lhi - llo) * k / nbins);
    double inv = nbins / (hi - lo);
    long long *c = h->count;
    for (size_t i = 0; i < n; i++) {
        double x = v[i] * scale;
        if (!isfinite(x) || (log_scale && x <= 0.0))
            continue;
        int k;
        if (x < lo || x > hi) {
            h->clipped++;
            k = x < lo ? 0 : nbins - 1;
        } else if (log_scale) {
            /* binary search of the edges: log10 per value would dominate at 8192^2 */
            int a = 0, b = nbins; /* edge[a] <= x < edge[b] */
            while (b - a > 1) {
                int mid = (a + b) / 2;
                if (x >= edge[mid])
                    a = mid;
                else
                    b = mid;
            }
            k = a;
        } else {
            k = (int)((x - lo) * inv);
            if (k >= nbins)
                k = nbins - 1;
        }
        c[k]++;
        h->total++;
    }
    for (int k = 0; k < nbins; k++)
        if (c[k] > h->max)
            h->max = c[k];
    lens_free(edge);
    return LENS_OK;
}

void lens_histogram_release(struct lens_histogram *h)
{
    if (!h)
        return;
    lens_free(h->count);
    memset(h, 0, sizeof *h);
}

/* Vertical position of value v in the box: hi at y, lo at y + ht. */
static double value_y(const struct lens_histogram *h, double v, double y, double ht)
{
    double t = h->log_scale ? (log10(v) - log10(h->lo)) / (log10(h->hi) - log10(h->lo))
                            : (v - h->lo) / (h->hi - h->lo);
    return y + ht * (1.0 - t);
}

void lens_histogram_draw(cairo_t *cr, const struct lens_histogram *h, double x, double y,
                         double w, double ht, int cmap, const double *vt, int nt,
                         cairo_font_face_t *face, double fs)
{
    double tick = fs * 0.35;
    cairo_save(cr);
    lens_figure_set_font(cr, face, fs * 0.85);
    if (h->total > 0 && h->max > 0) {
        for (int k = 0; k < h->nbins; k++) {
            if (h->count[k] == 0)
                continue;
            /* bins are equal in the colour scale, so bin k spans [k, k+1] / nbins of it */
            double y1 = y + ht * (1.0 - (double)k / h->nbins);
            double y0 = y + ht * (1.0 - (double)(k + 1) / h->nbins);
            double len = w * (double)h->count[k] / (double)h->max;
            double rgb[3];
            lens_colormap_rgb(cmap, lens_colormap_index((k + 0.5) / h->nbins), rgb);
            cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
            cairo_rectangle(cr, x, y0, len, y1 - y0);
            cairo_fill_preserve(cr);
            cairo_set_source_rgb(cr, 0.25, 0.25, 0.25);
            cairo_set_line_width(cr, fs * 0.05);
            cairo_stroke(cr);
        }
    } else {
        cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
        lens_figure_text(cr, x + w / 2, y + ht / 2, "no data", 0.5, 0.5, 0.0);
    }

    /* axes: value axis on the left with the colour bar's ticks, count axis below */
    cairo_set_source_rgb(cr, 0.0, 0.0, 0.0);
    cairo_set_line_width(cr, fs * 0.08);
    cairo_move_to(cr, x, y);
    cairo_line_to(cr, x, y + ht);
    cairo_line_to(cr, x + w, y + ht);
    cairo_stroke(cr);
    for (int i = 0; i < nt; i++) {
        double ty = value_y(h, vt[i], y, ht);
        cairo_move_to(cr, x, ty);
        cairo_line_to(cr, x + tick, ty);
    }
    double ct[8], step;
    int nct = lens_figure_ticks(0.0, h->max > 0 ? (double)h->max : 1.0, 0, 4, ct, &step);
    for (int i = 0; i < nct; i++) {
        double tx = x + w * ct[i] / (h->max > 0 ? (double)h->max : 1.0);
        cairo_move_to(cr, tx, y + ht);
        cairo_line_to(cr, tx, y + ht + tick);
    }
    cairo_stroke(cr);
    for (int i = 0; i < nct; i++) {
        char lab[32];
        double tx = x + w * ct[i] / (h->max > 0 ? (double)h->max : 1.0);
        lens_figure_format_count(ct[i], lab, sizeof lab);
        lens_figure_text(cr, tx, y + ht + tick * 1.5, lab, 0.5, 0.0, 0.0);
    }
    lens_figure_set_font(cr, face, fs);
    lens_figure_text(cr, x + w / 2, y + ht + tick * 1.5 + fs * 1.2, "count", 0.5, 0.0, 0.0);
    cairo_restore(cr);
}
