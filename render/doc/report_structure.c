/* "Structure of the machine" of the latency-cube report (section structure of
 * templates/report.tmpl): the groups of processes at the automatic cut of the average-linkage
 * tree, compared with the hosts in words (one host each, groups of hosts, split hosts, or no
 * relation), a table of the groups and one of the link clusters, and the figures: dendrogram,
 * heatmap in tree order, neighbor-joining tree, link-cluster map and per-cluster curves.
 * Everything shown comes finished from the input's results (lens_structure_report_run, which
 * runs lens_structure_run before the document is drawn; analysis/structure/structure.h); this
 * file only lays them out. */
#include "report_ctx.h"

#include "render/fig/fig.h"

#include "analysis/structure/structure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL LENS_REPORT_CELL /* bytes of one table cell or list; longer ones end in "..." */

/* ---- words ---- */

/* Ranks of group g (or, with host set, the ranks on that host) as "0-7, 12, 14-15". */
static void rank_list(const struct lens_cube *c, const int *label, int g, const char *host, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < c->procs;) {
        int in = host ? !strcmp(c->hosts[i], host) : label[i] == g;
        if (!in) {
            i++;
            continue;
        }
        int j = i;
        /* Extend the run while the next rank belongs too: consecutive ranks print as one range,
         * which keeps a group of 64 ranks on one line when a node's ranks are contiguous. */
        while (j + 1 < c->procs && (host ? !strcmp(c->hosts[j + 1], host) : label[j + 1] == g))
            j++;
        char part[48];
        if (j == i)
            snprintf(part, sizeof part, "%s%d", o ? ", " : "", i);
        else
            snprintf(part, sizeof part, "%s%d-%d", o ? ", " : "", i, j);
        lens_report_append(buf, n, &o, part);
        i = j + 1;
    }
}

/* Distinct hosts of the cube in rank order: host[i] = index into names; returns the count. */
static int host_ids(const struct lens_cube *c, int *host, const char **names)
{
    int nh = 0;
    for (int i = 0; i < c->procs; i++) {
        int h = 0;
        /* Linear in the hosts seen so far: a few hundred at most, once per cube. */
        while (h < nh && strcmp(names[h], c->hosts[i]))
            h++;
        if (h == nh)
            names[nh++] = c->hosts[i];
        host[i] = h;
    }
    return nh;
}

static int by_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* "node01..node04" when the names are one prefix and consecutive numbers of one width, else
 * the names separated by ", " (sorted). */
static void host_range(const char **names, int nh, char *buf, size_t n)
{
    const char **s = lens_malloc((size_t)nh * sizeof *s);
    if (!s) {
        snprintf(buf, n, "%d hosts", nh);
        return;
    }
    memcpy(s, names, (size_t)nh * sizeof *s);
    /* Sorted by name, so the range reads the same whatever order the ranks were placed in. */
    qsort(s, (size_t)nh, sizeof *s, by_name);
    size_t len = strlen(s[0]), digits = 0;
    while (digits < len && s[0][len - 1 - digits] >= '0' && s[0][len - 1 - digits] <= '9')
        digits++;
    /* A range needs three hosts (two read better listed) and a numeric suffix short enough for
     * strtol to read exactly. */
    int range = nh >= 3 && digits > 0 && digits < 10;
    long first = range ? strtol(s[0] + len - digits, NULL, 10) : 0;
    for (int i = 1; i < nh && range; i++)
        /* Same length, same prefix, digits only, and the next number: node01..node04 is a range,
         * node01, node03 is not (a missing node must show). */
        range = strlen(s[i]) == len && !strncmp(s[i], s[0], len - digits) &&
                strspn(s[i] + len - digits, "0123456789") == digits && strtol(s[i] + len - digits, NULL, 10) == first + i;
    size_t o = 0;
    buf[0] = '\0';
    if (range) {
        snprintf(buf, n, "%s..%s", s[0], s[nh - 1]);
    } else {
        for (int i = 0; i < nh; i++) {
            lens_report_append(buf, n, &o, i ? ", " : "");
            lens_report_append(buf, n, &o, s[i]);
        }
    }
    lens_free(s);
}

/* Sets ${groups} ("4 groups of 8 processes") and ${structure_words}: what the groups are
 * in terms of hosts, from the section's texts. */
static int words(struct lens_report_ctx *r, const struct lens_structure *st, struct lens_err *e)
{
    const struct lens_cube *c = lens_report_cube(r);
    int P = c->procs, k = st->k, rc, equal = 1;
    const int *size = st->group_size, *label = st->label;
    char sizes[CELL] = "", buf[2 * CELL];
    int *host = lens_malloc((size_t)P * sizeof *host);
    const char **names = lens_malloc((size_t)P * sizeof *names);
    if (!host || !names) {
        rc = lens_err_set(e, LENS_ENOMEM, "report: out of memory");
        goto out;
    }
    size_t o = 0;
    for (int g = 0; g < k; g++) {
        /* "4 groups of 8 processes" when all sizes agree, else the list of sizes: the common case
         * reads as one phrase. */
        equal &= size[g] == size[0];
        snprintf(buf, sizeof buf, "%s%d", g ? ", " : "", size[g]);
        lens_report_append(sizes, sizeof sizes, &o, buf);
    }
    rc = lens_template_vars_setf(&r->vars, e, "ngroups", "%d", k);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "sizes", equal ? (snprintf(buf, sizeof buf, "%d", size[0]), buf) : sizes, e);
    if (rc == LENS_OK)
        rc = lens_report_text(r, k == 1 ? "groups_one" : equal ? "groups_equal" : "groups_unequal", buf, sizeof buf, e);
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "groups", buf, e);
    /* Without a hosts file there is nothing to compare the groups with: one sentence says so. */
    if (rc != LENS_OK || !c->hosts) {
        if (rc == LENS_OK)
            rc = lens_report_text(r, "words_no_hosts", buf, sizeof buf, e);
        goto set;
    }
    int nh = host_ids(c, host, names);
    /* a group is pure when it lies on one host; a host is whole when one group holds it */
    char spans[CELL] = "", splits[CELL] = "", list[CELL];
    size_t so = 0, po = 0;
    int impure = 0, split = 0;
    for (int g = 0; g < k; g++) {
        /* h0: host of the previous member; a member on another host makes the group impure */
        int h0 = -1, pure = 1;
        for (int i = 0; i < P; i++)
            if (label[i] == g) {
                pure &= h0 < 0 || host[i] == h0;
                h0 = host[i];
            }
        if (pure)
            continue;
        impure++;
        size_t lo = 0;
        list[0] = '\0';
        /* The hosts a spanning group lies on, in the order the hosts first appear by rank; each
         * host listed once (break after its first member). */
        for (int h = 0; h < nh; h++)
            for (int i = 0; i < P; i++)
                if (label[i] == g && host[i] == h) {
                    lens_report_append(list, sizeof list, &lo, lo ? ", " : "");
                    lens_report_append(list, sizeof list, &lo, names[h]);
                    break;
                }
        snprintf(buf, sizeof buf, "%s%d: %s", so ? "; " : "", g, list);
        lens_report_append(spans, sizeof spans, &so, buf);
    }
    for (int h = 0; h < nh; h++) {
        int g0 = -1, whole = 1; /* g0: group of the previous process of host h; another group splits the host */
        for (int i = 0; i < P; i++)
            if (host[i] == h) {
                whole &= g0 < 0 || label[i] == g0;
                g0 = label[i];
            }
        if (whole)
            continue;
        split++;
        size_t lo = 0;
        list[0] = '\0';
        for (int g = 0; g < k; g++)
            for (int i = 0; i < P; i++)
                if (host[i] == h && label[i] == g) {
                    snprintf(buf, sizeof buf, "%s%d", lo ? ", " : "", g);
                    lens_report_append(list, sizeof list, &lo, buf);
                    break;
                }
        snprintf(buf, sizeof buf, "%s%s: %s", po ? "; " : "", names[h], list);
        lens_report_append(splits, sizeof splits, &po, buf);
    }
    host_range(names, nh, list, sizeof list);
    rc = lens_template_vars_set(&r->vars, "host_range", list, e);
    if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "nhosts", "%d", nh);
    if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "spanning", spans, e);
    if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "split", splits, e);
    /* The relation in one word: exact (each group is one host), coarser (groups of whole hosts,
     * e.g. one group per switch), finer (hosts split into groups, e.g. per socket), or mixed. The
     * template words each case. */
    const char *which = k == 1 && nh == 1 ? "words_one_host"
                        : k == 1          ? "words_one"
                        : !impure && !split ? "words_exact"
                        : !split            ? "words_coarser"
                        : !impure           ? "words_finer"
                                            : "words_mixed";
    if (rc == LENS_OK)
        rc = lens_report_text(r, which, buf, sizeof buf, e);
set:
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "structure_words", buf, e);
out:
    lens_free(host);
    lens_free(names);
    return rc;
}

/* ---- structure section ---- */

/* Column headers: placeholders set from the texts of the same name, empty without rows. */
static const char *const group_columns[] = {"col_group", "col_processes", "col_ranks", "col_hosts", "col_inside"};
static const char *const link_columns[] = {"col_cluster", "col_links",   "col_share", "col_diameter",
                                           "col_first",   "col_last",    "col_within"};

int lens_report_structure_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_structure *st = &lens_report_results(r)->st;
    char buf[2 * CELL], lo[32], hi[32];
    int rc;
    /* No tree: say why in words (the error lens_structure_run kept) and leave the cut sentence
     * empty, so the section still reads. */
    if (!st->z) {
        rc = lens_template_vars_set(&r->vars, "error", st->tree_err.msg, e);
        if (rc == LENS_OK)
            rc = lens_report_text(r, "words_failed", buf, sizeof buf, e);
        if (rc == LENS_OK)
            rc = lens_template_vars_set(&r->vars, "structure_words", buf, e);
        if (rc == LENS_OK)
            rc = lens_template_vars_set(&r->vars, "cut", "", e);
    } else {
        /* The heights between which the automatic cut was made (microseconds) and their ratio, so
         * the reader can judge how clear the gap was against LENS_HCLUST_GAP_MIN. */
        lens_report_fmt_us(st->autocut.low, lo, sizeof lo);
        lens_report_fmt_us(st->autocut.high, hi, sizeof hi);
        rc = lens_template_vars_set(&r->vars, "cut_low", lo, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "cut_high", hi, e);
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "gap_ratio", "%.2f", st->autocut.ratio);
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "gap_min", "%.2f", (double)LENS_HCLUST_GAP_MIN);
        if (rc == LENS_OK) rc = words(r, st, e);
        if (rc == LENS_OK) rc = lens_report_text(r, st->k > 1 ? "cut_gap" : "cut_none", buf, sizeof buf, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "cut", buf, e);
    }
    /* the link clusters */
    const struct lens_links *l = st->links;
    if (rc == LENS_OK && l) {
        /* ordered pairs: a link is one direction of a pair */
        rc = lens_template_vars_setf(&r->vars, e, "nlinks", "%ld", (long)l->procs * (l->procs - 1));
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "nlinkclusters", "%d", l->k);
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "first_length", "%d", l->lengths[0]);
        if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "last_length", "%d", l->lengths[l->nlen - 1]);
        /* links_forced: k was given; links_scree: the scree curve had an elbow; else the search
         * found none and says what it did (docs/links.md). */
        if (rc == LENS_OK)
            rc = lens_report_text(r, l->forced ? "links_forced" : l->elbow ? "links_scree" : "links_no_elbow", buf,
                                  sizeof buf, e);
        /* The agreement of average linkage on the same distance (computed only for cubes whose
         * condensed matrix fits the bound, lens_links_opts.agglo_max_bytes): one sentence after
         * the links' own, nothing for larger cubes, where it was never computed. */
        if (rc == LENS_OK && l->agglo >= 0 && isfinite(l->ari)) {
            /* the sentence is the template's (links_agree), so a translation carries it too;
             * the method name stays scipy's word (average, complete, ...) */
            char agree[512];
            size_t o = strlen(buf);
            rc = lens_template_vars_set(&r->vars, "agglo_method", lens_hclust_method_name(l->agglo), e);
            if (rc == LENS_OK) rc = lens_template_vars_setf(&r->vars, e, "ari", "%.2f", l->ari);
            if (rc == LENS_OK) rc = lens_report_text(r, "links_agree", agree, sizeof agree, e);
            if (rc == LENS_OK) {
                lens_report_append(buf, sizeof buf, &o, " ");
                lens_report_append(buf, sizeof buf, &o, agree);
            }
        }
    /* No link clusters: the reason in words, and the lengths emptied because the sentence templates
     * may name them. */
    } else if (rc == LENS_OK) {
        rc = lens_template_vars_set(&r->vars, "error", st->links_err.msg, e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "first_length", "", e);
        if (rc == LENS_OK) rc = lens_template_vars_set(&r->vars, "last_length", "", e);
        if (rc == LENS_OK) rc = lens_report_text(r, "links_failed", buf, sizeof buf, e);
    }
    if (rc == LENS_OK)
        rc = lens_template_vars_set(&r->vars, "links_words", buf, e);
    if (rc == LENS_OK)
        /* Headers only over tables that have rows: without a tree or links the two tables draw
         * nothing at all. */
        rc = lens_report_headers(r, group_columns, 5, st->z != NULL, e);
    return rc == LENS_OK ? lens_report_headers(r, link_columns, 7, l != NULL, e) : rc;
}

/* Distinct hosts of group g with their process counts: "node01 (4), node02 (4)". */
static void group_hosts(const struct lens_cube *c, const int *label, int g, char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    int distinct = 0;
    for (int i = 0; i < c->procs; i++) {
        if (label[i] != g)
            continue;
        int seen = 0, count = 0;
        /* Hosts in the order their first rank appears in the group, each with its count: quadratic
         * in the group, as in hosts_summary. */
        for (int j = 0; j < i && !seen; j++)
            seen = label[j] == g && !strcmp(c->hosts[j], c->hosts[i]);
        if (seen)
            continue;
        for (int j = i; j < c->procs; j++)
            count += label[j] == g && !strcmp(c->hosts[j], c->hosts[i]);
        char part[CELL];
        snprintf(part, sizeof part, "%s%s (%d)", distinct++ ? ", " : "", c->hosts[i], count);
        lens_report_append(buf, n, &o, part);
    }
}

static int groups_table(struct lens_report_ctx *r, const struct lens_structure *st, struct lens_err *e)
{
    const struct lens_cube *c = lens_report_cube(r);
    int rc = LENS_OK;
    /* One row per group, numbered as the cut numbers them (by lowest rank), with the mean distance
     * inside the group (NaN, "n/a", for a group of one). */
    for (int g = 0; st->z && g < st->k && rc == LENS_OK; g++) {
        char id[16], size[16], ranks[CELL], hosts[CELL], within[32];
        snprintf(id, sizeof id, "%d", g);
        snprintf(size, sizeof size, "%d", st->group_size[g]);
        rank_list(c, st->label, g, NULL, ranks, sizeof ranks);
        if (c->hosts)
            group_hosts(c, st->label, g, hosts, sizeof hosts);
        else
            snprintf(hosts, sizeof hosts, "-");
        lens_report_fmt_us(st->group_within[g], within, sizeof within);
        const char *cells[5] = {id, size, ranks, hosts, within};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

static int links_table(struct lens_report_ctx *r, const struct lens_structure *st, struct lens_err *e)
{
    const struct lens_links *l = st->links;
    int rc = LENS_OK;
    for (int id = 0; l && id < l->k && rc == LENS_OK; id++) {
        struct lens_links_row row;
        char sentence[256], cells[7][48];
        /* The row accessor gives the numbers as `mpilens links` prints them; the sentence is not
         * used in the table. */
        lens_links_row(l, id, &row, sentence, sizeof sentence);
        snprintf(cells[0], sizeof cells[0], "%d", row.id);
        snprintf(cells[1], sizeof cells[1], "%ld", row.size);
        snprintf(cells[2], sizeof cells[2], "%.1f%%", 100 * row.share);
        snprintf(cells[3], sizeof cells[3], "%.4g", row.diameter);
        lens_report_fmt_us(row.first, cells[4], sizeof cells[4]);
        lens_report_fmt_us(row.last, cells[5], sizeof cells[5]);
        if (isfinite(row.same_host)) /* the share of links inside one host; "-" when no hosts are known */
            snprintf(cells[6], sizeof cells[6], "%.0f%%", 100 * row.same_host);
        else
            snprintf(cells[6], sizeof cells[6], "-");
        const char *p[7] = {cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6]};
        rc = lens_pdf_table_row(r->pdf, p, e);
    }
    return rc;
}

int lens_report_structure_table(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_structure *st = &lens_report_results(r)->st;
    /* The page page one cites for this input's structure: the page of the section's heading
     * (h2), which the template drew before its prose and this table; the table may start on
     * the next page when the prose fills this one, and the reader should land on the heading. */
    if (!strcmp(it->name, "groups") && r->page_structure)
        r->page_structure[r->cur] = lens_pdf_heading_page(r->pdf, 2);
    if (!strcmp(it->name, "groups"))
        return groups_table(r, st, e);
    if (!strcmp(it->name, "link_clusters"))
        return links_table(r, st, e);
    return lens_report_unknown_item(r, it, e);
}

/* ---- figures ---- */

/* The five figures of the section share one drawing path (fig_draw): each renders twice or three
 * times (the PDF's PNG, and the files with --figures) from the same options, so the options live in
 * the struct below and the kind picks the renderer. */
enum fig_kind { FIG_DENDROGRAM, FIG_HEATMAP, FIG_NJ, FIG_LINKMAP, FIG_CURVES };

/* One figure of the section: which renderer, its options, and what it draws. */
struct fig {
    int kind;                      /* enum fig_kind */
    const char *name;              /* texts <name>_heading, _title, _caption; the file name */
    int w, h;                      /* pixels */
    const struct lens_structure *st; /* what it draws, finished */
    const char *const *labels;     /* FIG_HEATMAP: rank labels by original index */
    struct lens_dendrogram_opts dendro;
    struct lens_heatmap_opts heat;
    struct lens_njtree_opts tree;
    struct lens_linkmap_opts map;
    struct lens_linkcurves_opts curves;
};

/* The figure into path (PNG or SVG by its extension), or with path NULL as PNG bytes. */
static int fig_render(const struct fig *f, const char *path, unsigned char **png, size_t *len, struct lens_err *e)
{
    const struct lens_structure *st = f->st;
    int n = st->n; /* processes: the leaves of the trees and the side of the matrix */
    switch (f->kind) {
    case FIG_DENDROGRAM:
        return path ? lens_dendrogram_write(st->z, n, &f->dendro, path, e)
                    : lens_dendrogram_png_mem(st->z, n, &f->dendro, png, len, e);
    case FIG_HEATMAP:
        return path ? lens_dendrogram_heatmap_write(st->matrix, n, st->order, f->labels, &f->heat, path, e)
                    : lens_dendrogram_heatmap_png_mem(st->matrix, n, st->order, f->labels, &f->heat, png, len, e);
    case FIG_NJ:
        return path ? lens_njtree_write(st->nj, &f->tree, path, e) : lens_njtree_png_mem(st->nj, &f->tree, png, len, e);
    case FIG_LINKMAP:
        return path ? lens_linkmap_write(path, st->links, &f->map, e) : lens_linkmap_png_mem(st->links, &f->map, png, len, e);
    default:
        return path ? lens_linkcurves_write(path, st->links, &f->curves, e)
                    : lens_linkcurves_png_mem(st->links, &f->curves, png, len, e);
    }
}

/* Sets ${figure} to the number the next figure gets and expands <name>_title into title: the
 * title is drawn inside the image, so it must be known before the figure is rendered. */
static int fig_title(struct lens_report_ctx *r, const char *name, char *title, size_t n, struct lens_err *e)
{
    char key[64];
    snprintf(key, sizeof key, "%s_title", name);
    int rc = lens_template_vars_setf(&r->vars, e, "figure", "%d", r->figure + 1);
    return rc == LENS_OK ? lens_report_text(r, key, title, n, e) : rc;
}

/* Numbers the figure, draws heading, figure and caption from the texts named after it, and
 * writes name.png and name.svg with --figures. */
static int fig_draw(struct lens_report_ctx *r, struct fig *f, struct lens_err *e)
{
    char key[64], heading[512], caption[2048], path[PATH_MAX + 64];
    r->figure++; /* numbered before the texts are expanded: captions may say "Figure ${figure}" */
    snprintf(key, sizeof key, "%s_heading", f->name);
    int rc = lens_report_text(r, key, heading, sizeof heading, e);
    snprintf(key, sizeof key, "%s_caption", f->name);
    if (rc == LENS_OK)
        rc = lens_report_text(r, key, caption, sizeof caption, e);
    unsigned char *png = NULL;
    size_t len = 0;
    if (rc == LENS_OK)
        rc = fig_render(f, NULL, &png, &len, e);
    if (rc == LENS_OK)
        rc = lens_report_place_figure(r, heading, png, len, f->w, f->h, caption, e);
    /* The files are rendered again from the results rather than converted from the PNG in the
     * PDF: the SVG is vector output, which no PNG can give back. */
    lens_free(png);
    for (int k = 0; k < 2 && rc == LENS_OK && r->o->figures_dir; k++) {
        lens_report_figure_path(r, f->name, k ? "svg" : "png", path, sizeof path);
        rc = fig_render(f, path, NULL, NULL, e);
    }
    return rc;
}

/* One host -> colour map for the whole document: every cube's hosts, sorted, so that a host
 * has one colour in every figure and every input of the report (render/fig/hostcolour.h).
 * Rebuilt per figure block rather than kept in the context: O(total ranks log hosts), far
 * below drawing one figure. */
int lens_report_hosts(const struct lens_report_ctx *r, struct lens_hostcolour *hc, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int k = 0; rc == LENS_OK && k < r->nin; k++)
        if (r->in[k].cube)
            rc = lens_hostcolour_add(hc, (const char *const *)r->in[k].cube->hosts, r->in[k].cube->procs, e);
    return rc;
}

/* Dendrogram, heatmap in tree order and NJ tree. */
static int tree_figures(struct lens_report_ctx *r, const struct lens_structure *st, struct lens_err *e)
{
    const struct lens_cube *c = lens_report_cube(r);
    int P = c->procs, rc = LENS_OK, dir = lens_report_direction(c->mode);
    char title[3][512], unit[32], note[128], xl[128], yl[128];
    char *leaf = lens_malloc((size_t)P * 64), *rank = lens_malloc((size_t)P * 12);
    const char **leaves = lens_malloc((size_t)P * sizeof *leaves), **ranks = lens_malloc((size_t)P * sizeof *ranks);
    int *group = lens_malloc((size_t)P * sizeof *group);
    struct fig *f = lens_calloc(3, sizeof *f);
    struct lens_hostcolour hc = LENS_HOSTCOLOUR_INIT; /* the document's host colours */
    /* The figures are drawn only with a tree (lens_report_structure_block checks st->z); NJ can
     * still fail alone, and then its kept error fails the section. */
    if (!st->nj) { /* the one part of the tree figures that can fail on its own */
        *e = st->nj_err;
        rc = e->code;
        goto out;
    }
    /* st->matrix is among the parts prepare() checked, and with keep_going only an allocation
     * failure leaves it out (and fails the run): this is a guard, reported as that. */
    if (!leaf || !rank || !leaves || !ranks || !group || !st->matrix || !f) {
        rc = lens_err_set(e, LENS_ENOMEM, "report: out of memory drawing the trees of %d processes", P);
        goto out;
    }
    for (int i = 0; i < P; i++) {
        /* Tree leaves are labelled "node03:17" (host and rank) when the distances carry host labels;
         * the heatmap uses bare ranks, which fit its axis ticks. */
        lens_treefig_leaf_label(st->dm->labels ? st->dm->labels[i] : NULL, i, leaf + 64 * i, 64);
        leaves[i] = leaf + 64 * i;
        snprintf(rank + 12 * i, 12, "%d", i);
        ranks[i] = rank + 12 * i;
    }
    /* The NJ tree colours leaves by host, so a host whose ranks scatter over the tree shows at a
     * glance; leaf i is rank i (lens_distmat_from_cube), whose host is c->hosts[i]. */
    rc = lens_report_hosts(r, &hc, e);
    int hosts = rc == LENS_OK && c->hosts ? lens_hostcolour_groups(&hc, (const char *const *)c->hosts, P, group) : 0;
    if (rc == LENS_OK) rc = lens_report_text(r, "unit", unit, sizeof unit, e);
    if (rc == LENS_OK) rc = lens_report_text(r, st->k > 1 ? "cut_note" : "cut_note_none", note, sizeof note, e);
    if (rc == LENS_OK) rc = lens_report_text(r, dir == 1 ? "axis_sender" : "axis_column", xl, sizeof xl, e);
    if (rc == LENS_OK) rc = lens_report_text(r, dir == 1 ? "axis_receiver" : "axis_row", yl, sizeof yl, e);

    if (rc == LENS_OK) rc = fig_title(r, "dendrogram", title[0], sizeof title[0], e);
    f[0] = (struct fig){.kind = FIG_DENDROGRAM, .name = "dendrogram", .w = LENS_REPORT_FIG_W, .h = LENS_REPORT_FIG_H, .st = st};
    lens_dendrogram_opts_init(&f[0].dendro);
    f[0].dendro.title = title[0];
    f[0].dendro.method = lens_hclust_method_name(LENS_HCLUST_AVERAGE);
    f[0].dendro.unit = unit;
    f[0].dendro.labels = leaves;
    f[0].dendro.order = st->order;
    f[0].dendro.k = st->k;
    f[0].dendro.cluster = st->label;
    f[0].dendro.cut_note = note;
    f[0].dendro.host_group = hosts > 0 ? group : NULL; /* "node03:17" in node03's colour */
    f[0].dendro.width = f[0].w;
    f[0].dendro.height = f[0].h;
    f[0].dendro.font_path = r->font_path;
    if (rc == LENS_OK) rc = fig_draw(r, &f[0], e);

    if (rc == LENS_OK) rc = fig_title(r, "structure_heatmap", title[1], sizeof title[1], e);
    f[1] = (struct fig){.kind = FIG_HEATMAP, .name = "structure_heatmap", .w = LENS_REPORT_FIG_W,
                        .h = LENS_REPORT_FIG_H, .st = st, .labels = ranks};
    lens_heatmap_opts_init(&f[1].heat);
    f[1].heat.title = title[1];
    f[1].heat.unit = unit;
    f[1].heat.log_scale = 1; /* one bad link must not wash out the blocks */
    f[1].heat.xlabel = xl;
    f[1].heat.ylabel = yl;
    f[1].heat.width = f[1].w;
    f[1].heat.height = f[1].h;
    f[1].heat.font_path = r->font_path;
    /* host bands in tree order (the heatmap permutes them with the rows), coloured as the NJ tree */
    f[1].heat.hosts = (const char *const *)c->hosts;
    f[1].heat.hostcol = &hc;
    if (rc == LENS_OK) rc = fig_draw(r, &f[1], e);

    if (rc == LENS_OK) rc = fig_title(r, "nj_tree", title[2], sizeof title[2], e);
    f[2] = (struct fig){.kind = FIG_NJ, .name = "nj_tree", .w = LENS_REPORT_FIG_W, .h = LENS_REPORT_TREE_H, .st = st};
    lens_njtree_opts_init(&f[2].tree);
    f[2].tree.title = title[2];
    f[2].tree.unit = unit;
    f[2].tree.labels = leaves;
    f[2].tree.group = hosts > 0 ? group : NULL;
    f[2].tree.width = f[2].w;
    f[2].tree.height = f[2].h;
    f[2].tree.font_path = r->font_path;
    if (rc == LENS_OK) rc = fig_draw(r, &f[2], e);
out:
    lens_hostcolour_free(&hc);
    lens_free(f);
    lens_free(group);
    lens_free(leaf);
    lens_free(rank);
    lens_free(leaves);
    lens_free(ranks);
    return rc;
}

/* Link-cluster map (Figure 6 of Salnikov et al.) and the mean curve of each cluster. */
/* Drawn only when the link clusters exist (lens_report_structure_block): a failed clustering has
 * its sentence and no figure. */
static int link_figures(struct lens_report_ctx *r, const struct lens_structure *st, struct lens_err *e)
{
    char title[2][512];
    struct lens_hostcolour hc = LENS_HOSTCOLOUR_INIT;
    struct fig *f = lens_calloc(2, sizeof *f);
    if (!f)
        return lens_err_set(e, LENS_ENOMEM, "report: out of memory");
    int rc = lens_report_hosts(r, &hc, e);
    if (rc == LENS_OK) rc = fig_title(r, "link_clusters", title[0], sizeof title[0], e);
    f[0] = (struct fig){.kind = FIG_LINKMAP, .name = "link_clusters", .w = LENS_REPORT_FIG_W, .h = LENS_REPORT_FIG_H, .st = st};
    lens_linkmap_opts_init(&f[0].map);
    f[0].map.title = title[0];
    f[0].map.labels = (const char *const *)lens_report_cube(r)->hosts;
    f[0].map.hostcol = &hc; /* host bands in the colours of the NJ tree's leaves */
    f[0].map.width = f[0].w;
    f[0].map.height = f[0].h;
    f[0].map.font_path = r->font_path;
    if (rc == LENS_OK) rc = fig_draw(r, &f[0], e);

    if (rc == LENS_OK) rc = fig_title(r, "link_curves", title[1], sizeof title[1], e);
    f[1] = (struct fig){.kind = FIG_CURVES, .name = "link_curves", .w = LENS_REPORT_FIG_W, .h = LENS_REPORT_FIG_H, .st = st};
    lens_linkcurves_opts_init(&f[1].curves);
    f[1].curves.title = title[1];
    f[1].curves.cube = lens_report_cube(r);
    f[1].curves.width = f[1].w;
    f[1].curves.height = f[1].h;
    f[1].curves.font_path = r->font_path;
    if (rc == LENS_OK) rc = fig_draw(r, &f[1], e);
    lens_free(f);
    lens_hostcolour_free(&hc);
    return rc;
}

int lens_report_structure_block(void *ctx, const struct lens_template_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    const struct lens_structure *st = &lens_report_results(r)->st;
    /* A block whose part failed draws nothing: the section's words already say why. */
    if (!strcmp(it->name, "figures"))
        return st->z ? tree_figures(r, st, e) : LENS_OK;
    if (!strcmp(it->name, "link_figures"))
        return st->links ? link_figures(r, st, e) : LENS_OK;
    return lens_report_unknown_item(r, it, e);
}
