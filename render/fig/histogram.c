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
    /* Sturges' rule, ceil(log2 n) + 1 bins: k stops at 62 so that the shift cannot overflow. */
    while (k < 62 && (1LL << k) < n)
        k++;
    k += 1; /* ceil(log2 n) + 1 */
    /* At least 4 bins so a tiny matrix still shows a shape; at most 48 so that each bar stays
     * taller than a hairline beside a 760-unit figure. */
    return k < 4 ? 4 : k > 48 ? 48 : k;
}

/* Bin edges and scale of one counting run. */
struct binner {
    double lo, hi, inv, scale;
    const double *edge; /* nbins + 1 edges in displayed units (log scale) */
    int nbins, log_scale;
};

/* Counts one run of values into the bins; the diagonal is skipped by calling it per row part. */
static void count_values(struct lens_histogram *h, const struct binner *b, const double *v,
                         size_t n)
{
    long long *c = h->count;
    int nb = b->nbins;
    for (size_t i = 0; i < n; i++) {
        /* Counted in displayed units, the scale the bins and the colour bar use. */
        double x = v[i] * b->scale;
        /* Missing cells (NaN, and values a log scale cannot place) are not counted: the heatmap
         * draws them in the missing colour and leaves them out of its range too. */
        if (!isfinite(x) || (b->log_scale && x <= 0.0))
            continue;
        int k;
        /* With a fixed range, values outside it pile into the end bins, as the map draws them in the
         * end colours; clipped counts them for the caption. */
        if (x < b->lo || x > b->hi) {
            h->clipped++;
            k = x < b->lo ? 0 : nb - 1;
        } else if (b->log_scale) {
            /* binary search of the edges: log10 per value would dominate at 8192^2 */
            int lo = 0, hi = nb; /* edge[lo] <= x < edge[hi] */
            while (hi - lo > 1) {
                int mid = (lo + hi) / 2;
                if (x >= b->edge[mid])
                    lo = mid;
                else
                    hi = mid;
            }
            /* lo: the last edge at or below x. */
            k = lo;
        } else {
            /* Linear bins: one multiply; x == hi would be bin nbins, hence the clamp below. */
            k = (int)((x - b->lo) * b->inv);
            /* x == hi lands one past the last bin: it belongs in the last. */
            if (k >= nb)
                k = nb - 1;
        }
        /* total counts what was binned, clipped or not: the bars scale to the largest bin. */
        c[k]++;
        h->total++;
    }
}

/* Bins in the colour scale (linear or log10 of the displayed values), so that bin k's bar has
 * exactly the colours the map uses for its values. */
int lens_histogram_compute(struct lens_histogram *h, const double *v, size_t n, int diag_n,
                           double scale, double lo, double hi, int log_scale, int nbins,
                           const char *name, struct lens_err *e)
{
    /* Zeroed first, so that release after a failure is safe. */
    memset(h, 0, sizeof *h);
    /* A range the bins cannot divide (or a log range through zero) is the caller's mistake. */
    if (nbins < 1 || !(hi > lo) || (log_scale && !(lo > 0.0)))
        return lens_err_set(e, LENS_EINVAL, "%s: bad histogram range [%g, %g] or %d bins",
                            name, lo, hi, nbins);
    /* Skipping the diagonal only makes sense for a square matrix given whole. */
    if (diag_n > 0 && (size_t)diag_n * (size_t)diag_n != n)
        return lens_err_set(e, LENS_EINVAL, "%s: histogram of %zu values cannot skip the diagonal of %dx%d",
                            name, n, diag_n, diag_n);
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
    /* Edges equal in log10 for the log scale (only read then); a linear range of non-positive
     * values never reaches them, so the guards only keep log10 away from <= 0. */
    double llo = log10(lo > 0 ? lo : 1), lhi = log10(hi > 0 ? hi : 1);
    for (int k = 0; k <= nbins; k++)
        edge[k] = pow(10.0, llo + (lhi - llo) * k / nbins);
    /* inv: bins per displayed unit, so a linear value's bin is one multiply. */
    struct binner b = {lo, hi, nbins / (hi - lo), scale, edge, nbins, log_scale};
    if (diag_n > 0) {
        /* each row in two runs, around its diagonal element */
        size_t dn = (size_t)diag_n;
        for (size_t i = 0; i < dn; i++) {
            count_values(h, &b, v + i * dn, i);
            count_values(h, &b, v + i * dn + i + 1, dn - i - 1);
        }
    } else {
        count_values(h, &b, v, n);
    }
    /* The longest bar spans the box; the others scale to it. */
    for (int k = 0; k < nbins; k++)
        if (h->count[k] > h->max)
            h->max = h->count[k];
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
    /* The colour bar's scale, so that a tick of the bar and the same value here line up. */
    double t = h->log_scale ? (log10(v) - log10(h->lo)) / (log10(h->hi) - log10(h->lo))
                            : (v - h->lo) / (h->hi - h->lo);
    return y + ht * (1.0 - t);
}

/* Horizontal bars, value up and count across, so that the histogram stands beside the
 * colour bar and shares its vertical scale. */
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
            /* a bin with anything in it stays visible: outliers are what people look for */
            double len = fmax(w * (double)h->count[k] / (double)h->max, fs * 0.25);
            double rgb[3];
            /* Each bar in the colour of its bin's middle, so the histogram doubles as a legend. */
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
    /* Four count ticks at most: the histogram is narrow, and counts like 12k take room. */
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
