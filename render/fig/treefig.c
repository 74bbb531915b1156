/* What the two tree figures (dendrogram, NJ tree) share besides the figure protocol of
 * figure.c: their size rules, the cluster palette, leaf labels and the thinning of labels.
 * See treefig.h for the contracts. */
#include "treefig.h"

#include "figure.h"
#include "hostcolour.h"
#include "common/alloc.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Kept for the commands that ask before they compute; the rule is the protocol's. */
int lens_treefig_format(const char *path, struct lens_err *e)
{
    return lens_figure_format(path ? path : "(null)", e);
}

int lens_treefig_check_size(const char *name, int w, int h, struct lens_err *e)
{
    /* below 160 x 120 the leaf labels and the legend no longer fit; 16384 a side bounds
     * the image's memory */
    if (w < 160 || h < 120 || w > 16384 || h > 16384)
        return lens_err_set(e, LENS_EINVAL, "%s: figure size %dx%d outside 160x120..16384x16384",
                            name, w, h);
    return LENS_OK;
}

int lens_treefig_check_box(const char *name, double w, double h, struct lens_err *e)
{
    /* The in-place drawings take any finite box of the same minimum as the files; NaN fails too. */
    if (!(w >= 160 && h >= 120 && isfinite(w) && isfinite(h)))
        return lens_err_set(e, LENS_EINVAL, "%s: drawing box %gx%g smaller than 160x120", name, w, h);
    return LENS_OK;
}

/* ---- palette and labels ---- */

void lens_treefig_color(int c, double rgb[3])
{
    /* matplotlib tab10 without its grey (#7f7f7f) */
    static const unsigned int pal[LENS_TREEFIG_NCOLORS] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728, 0x9467bd,
                                                           0x8c564b, 0xe377c2, 0xbcbd22, 0x17becf};
    /* Any c maps into the palette: more clusters than colours repeat them, never index past. */
    unsigned int v = pal[(c < 0 ? -c : c) % LENS_TREEFIG_NCOLORS];
    rgb[0] = ((v >> 16) & 255) / 255.0;
    rgb[1] = ((v >> 8) & 255) / 255.0;
    rgb[2] = (v & 255) / 255.0;
}

void lens_treefig_color_none(double rgb[3])
{
    /* Dark grey, darker than any palette colour: links above the cut belong to no cluster. */
    rgb[0] = rgb[1] = rgb[2] = 0x40 / 255.0;
}

void lens_treefig_leaf_label(const char *label, int index, char *buf, size_t n)
{
    if (!label) {
        snprintf(buf, n, "%d", index);
        return;
    }
    /* "r<digits>" or "r<digits>@<host>", as lens_distmat_from_cube names processes */
    const char *p = label + 1;
    /* Only labels of exactly that shape are rewritten; a CSV header such as "rack1" stays as it is. */
    if (label[0] == 'r' && isdigit((unsigned char)*p)) {
        while (isdigit((unsigned char)*p))
            p++;
        int digits = (int)(p - label - 1);
        if (*p == '\0') {
            snprintf(buf, n, "%.*s", digits, label + 1);
            return;
        }
        if (*p == '@' && p[1]) {
            /* Host first: leaves of one host then share a prefix, which is what a reader scans for. */
            snprintf(buf, n, "%s:%.*s", p + 1, digits, label + 1);
            return;
        }
    }
    snprintf(buf, n, "%s", label);
}

/* The host part of "r<digits>@<host>", or NULL. */
const char *lens_treefig_host_of(const char *l)
{
    if (!l || l[0] != 'r' || !isdigit((unsigned char)l[1]))
        return NULL;
    const char *p = l + 1;
    while (isdigit((unsigned char)*p))
        p++;
    return *p == '@' && p[1] ? p + 1 : NULL;
}

/* Host groups colour the NJ tree's leaves: processes of one node should cluster together.
 * Numbered through the host colour map (hostcolour.h), so a host has the colour number it
 * has in every other figure drawn from the same hosts, whatever the rank placement. */
int lens_treefig_host_groups(const char *const *labels, int n, int *group, struct lens_err *e)
{
    if (!labels || n <= 0)
        return 0;
    for (int i = 0; i < n; i++)
        if (!lens_treefig_host_of(labels[i]))
            return 0;
    const char **host = lens_malloc((size_t)n * sizeof *host);
    if (!host)
        return lens_err_set(e, LENS_ENOMEM, "host colours: out of memory for %d leaves", n);
    /* the host parts point into the labels: nothing to free but the array */
    for (int i = 0; i < n; i++)
        host[i] = lens_treefig_host_of(labels[i]);
    struct lens_hostcolour hc = LENS_HOSTCOLOUR_INIT;
    int rc = lens_hostcolour_add(&hc, host, n, e);
    if (rc == LENS_OK) {
        lens_hostcolour_groups(&hc, host, n, group);
        rc = hc.n;
    }
    lens_hostcolour_free(&hc);
    lens_free(host);
    return rc;
}

int lens_treefig_label_step(int n, double spacing, double size)
{
    static const int m125[3] = {1, 2, 5};
    /* A degenerate spacing labels only the first leaf rather than looping or dividing. */
    if (!(spacing > 0))
        return n > 1 ? n : 1;
    for (long mag = 1; mag <= (1L << 30); mag *= 10)
        for (int k = 0; k < 3; k++) {
            long step = m125[k] * mag;
            /* 10% of the text height between neighbouring labels keeps them apart. */
            if (step * spacing >= 1.1 * size || step >= n)
                return (int)step;
        }
    return n > 1 ? n : 1;
}
