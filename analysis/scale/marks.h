/* Teplov's scalability marks (docs/methods.md §8): per application the metric
 * (min p, min d, max p, max d, MarkProcs, MarkData, MarkAll, max E, min E) computed from its
 * efficiency grid, the ranking of applications by a mark, and one English sentence per mark
 * whose wording comes from templates/scale.txt. */
#ifndef LENS_MARKS_H
#define LENS_MARKS_H

#include <stddef.h>

#include "common/err.h"
#include "runs.h"

enum lens_marks_key {
    LENS_MARKS_PROCS = 0, /* MarkProcs: how efficiency changes as processes grow */
    LENS_MARKS_DATA = 1,  /* MarkData: how efficiency changes as the problem size grows */
    LENS_MARKS_ALL = 2    /* MarkAll: both together */
};

struct lens_marks {
    double min_p, max_p;   /* processes present; NaN when the grid is empty */
    double min_d, max_d;   /* problem sizes present */
    double mark_procs;     /* mean of markP over the elements; NaN when there is no element */
    double mark_data;      /* mean of markD */
    double mark_all;       /* mean of markA */
    double max_e, min_e;   /* extreme efficiencies over the configurations present */
    size_t n_elements;     /* elements of four configurations the marks average over */
};

/* Marks of one grid. Elements: for each pair of consecutive sizes d1 < d2 (among the sizes
 * present), the processes present at both d1 and d2 taken in consecutive pairs p1 < p2; so a
 * missing configuration is skipped and its neighbour is the next present value. Increments are
 * later minus earlier: a negative mark means efficiency falls as the parameter grows.
 * Never fails on data (no element gives NaN marks); returns LENS_EINVAL for a NULL grid. */
int lens_marks_compute(const struct lens_grid *g, struct lens_marks *m, struct lens_err *e);

/* One element of four configurations (p1, d1), (p2, d1), (p1, d2), (p2, d2) with its
 * efficiencies (Exy = E(p_y, d_x)) and its own marks, the terms the marks average. */
struct lens_marks_element {
    double p1, p2, d1, d2;
    double e11, e12, e21, e22;
    double mark_p, mark_d, mark_a; /* markP, markD, markA (docs/methods.md §8) */
};

/* Every element of g in the order the marks sum them (sizes, then processes, ascending):
 * *el (n entries, lens_malloc'd, the caller lens_frees it; NULL when n is 0). The mean of the
 * mark_p is MarkProcs exactly. LENS_EINVAL for a NULL grid, LENS_ENOMEM. */
int lens_marks_elements(const struct lens_grid *g, struct lens_marks_element **el, size_t *n,
                        struct lens_err *e);

/* The mark selected by key (enum lens_marks_key). */
double lens_marks_get(const struct lens_marks *m, int key);

/* order[0..n) receives the indices of marks[] sorted by ascending mark `key`. Ties (equal
 * marks) are ordered by name in strcmp (byte) order, then by index; NaN marks come last.
 * names[i] is the application of marks[i]. LENS_ENOMEM on allocation failure. */
int lens_marks_rank(const struct lens_marks *marks, const char *const *names, size_t n, int key,
                    size_t *order, struct lens_err *e);

/* The sentences of the report, e.g. "efficiency falls as processes grow, strongly: -0.0436".
 * lens_marks_text_new gives the built-in English texts; lens_marks_text_load overrides them from
 * a `key = text` file (see templates/scale.txt for the keys); unknown keys and malformed lines
 * are LENS_EFORMAT naming path:line, an unreadable file LENS_EIO, LENS_ENOMEM. new returns NULL
 * when out of memory; the caller owns t (lens_marks_text_free). */
struct lens_marks_text;
struct lens_marks_text *lens_marks_text_new(void);
int lens_marks_text_load(struct lens_marks_text *t, const char *path, struct lens_err *e);
void lens_marks_text_free(struct lens_marks_text *t);

/* The strength scale the sentences use (t NULL: the built-in one): thr[0..3) the thresholds on
 * |mark| (flat, moderate, strong) and word[0..3) the words weak, moderate, strong (borrowed
 * from t or the built-in texts), so a report can state the rule behind each adjective. */
void lens_marks_strength_get(const struct lens_marks_text *t, double thr[3], const char *word[3]);

/* Writes the sentence for mark (of kind key) into buf (n bytes, truncated safely). The strength
 * word depends on |mark| against the threshold.* texts. t may be NULL (built-in texts).
 * Returns LENS_EINVAL for a bad key. */
int lens_marks_describe(const struct lens_marks_text *t, int key, double mark, char *buf, size_t n,
                        struct lens_err *e);

#endif
