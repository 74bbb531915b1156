/* One colour per host for every figure of a report: the host's place in the sorted list of
 * distinct host names picks its colour, so host "n03" has the same colour in the NJ tree, the
 * link map's host bands and any other figure drawn from the same map, whatever the rank
 * placement or the figure. Built once by the caller (a command, the report over all its
 * cubes) and handed to each figure, which only reads it. */
#ifndef LENS_HOSTCOLOUR_H
#define LENS_HOSTCOLOUR_H

#include "common/err.h"

/* The distinct host names, sorted by strcmp (byte order), owned by the map. Zero it (or use
 * LENS_HOSTCOLOUR_INIT) before the first lens_hostcolour_add. */
struct lens_hostcolour {
    char **name; /* n names, sorted, distinct */
    int n;
};
#define LENS_HOSTCOLOUR_INIT {NULL, 0}

/* Adds the n host names of hosts (rank order, repeats and NULL entries allowed; NULL hosts
 * adds nothing) to the map, keeping it sorted and distinct: calling it once per cube gives
 * the union of a report's hosts. Colours of hosts already in the map may move when a name
 * sorting before them is added, so add every input before drawing. LENS_ENOMEM (the map is
 * unchanged then). */
int lens_hostcolour_add(struct lens_hostcolour *hc, const char *const *hosts, int n, struct lens_err *e);

/* Index of host in the sorted list, -1 when it is not in the map (or host is NULL). */
int lens_hostcolour_index(const struct lens_hostcolour *hc, const char *host);

/* For each of n processes, the colour number of its host (hosts[i], rank order; hosts may
 * be NULL) into group[i], -1 where the host is missing or not in the map: the `group` the NJ
 * tree takes. Returns how many processes got a colour number. */
int lens_hostcolour_groups(const struct lens_hostcolour *hc, const char *const *hosts, int n, int *group);

/* Colour number k (an index from lens_hostcolour_index) as cairo doubles: the tree figures'
 * qualitative palette (lens_treefig_color, tab10 without grey; 9 colours, then repeating),
 * so that a map whose hosts sort in rank order draws the NJ tree as before; k < 0 gives the
 * dark grey of lens_treefig_color_none. */
void lens_hostcolour_rgb(int k, double rgb[3]);

/* The colour of host (by name) in the map: lens_hostcolour_rgb of its index. */
void lens_hostcolour_of(const struct lens_hostcolour *hc, const char *host, double rgb[3]);

/* Frees the names and zeroes the map; a zeroed map is fine. */
void lens_hostcolour_free(struct lens_hostcolour *hc);

#endif
