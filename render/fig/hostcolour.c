/* The host -> colour map of hostcolour.h: a sorted array of distinct names, searched by
 * bisection, so a figure of thousands of processes looks its colours up in O(P log H). */
#include "hostcolour.h"

#include "treefig.h"
#include "common/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Byte order (strcmp), not the locale's: the colours must not depend on LANG, and a name in
 * Cyrillic sorts the same on every machine. */
static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int lens_hostcolour_add(struct lens_hostcolour *hc, const char *const *hosts, int n, struct lens_err *e)
{
    /* a cube without a hosts file has no names to colour: its figures draw no host colours */
    if (!hosts || n <= 0)
        return LENS_OK;
    /* Old and new names in one array, sorted, then duplicates dropped: simpler than merging,
     * and a report has at most a few thousand ranks per cube. The names are borrowed until the
     * survivors are copied, so a failure leaves the map as it was. */
    size_t total = (size_t)hc->n + (size_t)n;
    const char **all = lens_malloc(total * sizeof *all);
    if (!all)
        return lens_err_set(e, LENS_ENOMEM, "host colours: out of memory for %zu names", total);
    size_t m = 0;
    for (int i = 0; i < hc->n; i++)
        all[m++] = hc->name[i];
    for (int i = 0; i < n; i++)
        if (hosts[i])
            all[m++] = hosts[i];
    qsort(all, m, sizeof *all, cmp_name);
    /* equal names are now neighbours: keep the first of each run */
    size_t d = 0;
    for (size_t i = 0; i < m; i++)
        if (d == 0 || strcmp(all[d - 1], all[i]) != 0)
            all[d++] = all[i];
    /* d >= 1 here (hosts had a name or the map one), but malloc(0) may return NULL: ask for 1 */
    char **name = lens_malloc((d ? d : 1) * sizeof *name);
    int rc = name ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "host colours: out of memory for %zu names", d);
    /* Copy every survivor first; only then free the old names (some survivors point at them). */
    size_t k = 0;
    for (; rc == LENS_OK && k < d; k++)
        if (!(name[k] = lens_strdup(all[k])))
            rc = lens_err_set(e, LENS_ENOMEM, "host colours: out of memory");
    if (rc != LENS_OK) {
        for (size_t i = 0; name && i < k; i++)
            lens_free(name[i]);
        lens_free(name);
        lens_free(all);
        return rc;
    }
    lens_free(all);
    lens_hostcolour_free(hc);
    hc->name = name;
    hc->n = (int)d;
    return LENS_OK;
}

int lens_hostcolour_index(const struct lens_hostcolour *hc, const char *host)
{
    if (!hc || !host || hc->n == 0)
        return -1;
    /* the names are sorted and distinct (add's invariant), so the index is the host's rank */
    const char *const *hit = bsearch(&host, hc->name, (size_t)hc->n, sizeof *hc->name, cmp_name);
    return hit ? (int)(hit - (const char *const *)hc->name) : -1;
}

int lens_hostcolour_groups(const struct lens_hostcolour *hc, const char *const *hosts, int n, int *group)
{
    int coloured = 0;
    for (int i = 0; i < n; i++) {
        group[i] = hosts ? lens_hostcolour_index(hc, hosts[i]) : -1;
        coloured += group[i] >= 0;
    }
    return coloured;
}

/* The tree palette, not a new one: when the hosts in rank order are already sorted (node01,
 * node02, ...) the NJ tree keeps the colours it always had. A host band may share a colour with
 * a link cluster beside it; the band sits outside the map, next to its host's name. */
void lens_hostcolour_rgb(int k, double rgb[3])
{
    if (k < 0)
        lens_treefig_color_none(rgb);
    else
        lens_treefig_color(k, rgb);
}

void lens_hostcolour_of(const struct lens_hostcolour *hc, const char *host, double rgb[3])
{
    lens_hostcolour_rgb(lens_hostcolour_index(hc, host), rgb);
}

void lens_hostcolour_free(struct lens_hostcolour *hc)
{
    for (int i = 0; hc && i < hc->n; i++)
        lens_free(hc->name[i]);
    if (hc) {
        lens_free(hc->name);
        hc->name = NULL;
        hc->n = 0;
    }
}
