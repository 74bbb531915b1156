/* "Structure of the machine" of the latency-cube report (section structure of
 * templates/report.tmpl): the groups of processes at the automatic cut of the average-linkage
 * tree, compared with the hosts in words (one host each, groups of hosts, split hosts, or no
 * relation), a table of the groups and one of the link clusters, and the figures: dendrogram,
 * heatmap in tree order, neighbor-joining tree, link-cluster map and per-cluster curves. */
#include "report_ctx.h"

#include "heatmap.h"

#include "../analysis/distmat.h"
#include "../analysis/hclust.h"
#include "../analysis/links.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL LENS_REPORT_CELL

/* ---- words ---- */

/* Ranks of group g (or all ranks of host h when g < 0) as "0-7, 12, 14-15". */
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
    qsort(s, (size_t)nh, sizeof *s, by_name);
    size_t len = strlen(s[0]), digits = 0;
    while (digits < len && s[0][len - 1 - digits] >= '0' && s[0][len - 1 - digits] <= '9')
        digits++;
    int range = nh >= 3 && digits > 0 && digits < 10;
    long first = range ? strtol(s[0] + len - digits, NULL, 10) : 0;
    for (int i = 1; i < nh && range; i++)
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
static int words(struct lens_report_ctx *r, const struct lens_report_analysis *a, struct lens_err *e)
{
    const struct lens_cube *c = lens_report_cube(r);
    int P = c->procs, k = a->k, rc;
    char sizes[CELL] = "", buf[2 * CELL];
    int *size = lens_calloc((size_t)k, sizeof *size), equal = 1;
    int *host = lens_malloc((size_t)P * sizeof *host);
    const char **names = lens_malloc((size_t)P * sizeof *names);
    if (!size || !host || !names) {
        rc = lens_err_set(e, LENS_ENOMEM, "report: out of memory");
        goto out;
    }
    for (int i = 0; i < P; i++)
        size[a->label[i]]++;
    size_t o = 0;
    for (int g = 0; g < k; g++) {
        equal &= size[g] == size[0];
        snprintf(buf, sizeof buf, "%s%d", g ? ", " : "", size[g]);
        lens_report_append(sizes, sizeof sizes, &o, buf);
    }
    rc = lens_tmpl_vars_setf(&r->vars, e, "ngroups", "%d", k);
    if (rc == LENS_OK)
        rc = lens_tmpl_vars_set(&r->vars, "sizes", equal ? (snprintf(buf, sizeof buf, "%d", size[0]), buf) : sizes, e);
    if (rc == LENS_OK)
        rc = lens_report_text(r, k == 1 ? "groups_one" : equal ? "groups_equal" : "groups_unequal", buf, sizeof buf, e);
    if (rc == LENS_OK)
        rc = lens_tmpl_vars_set(&r->vars, "groups", buf, e);
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
        int h0 = -1, pure = 1;
        for (int i = 0; i < P; i++)
            if (a->label[i] == g) {
                pure &= h0 < 0 || host[i] == h0;
                h0 = host[i];
            }
        if (pure)
            continue;
        impure++;
        size_t lo = 0;
        list[0] = '\0';
        for (int h = 0; h < nh; h++)
            for (int i = 0; i < P; i++)
                if (a->label[i] == g && host[i] == h) {
                    lens_report_append(list, sizeof list, &lo, lo ? ", " : "");
                    lens_report_append(list, sizeof list, &lo, names[h]);
                    break;
                }
        snprintf(buf, sizeof buf, "%s%d: %s", so ? "; " : "", g + 1, list);
        lens_report_append(spans, sizeof spans, &so, buf);
    }
    for (int h = 0; h < nh; h++) {
        int g0 = -1, whole = 1;
        for (int i = 0; i < P; i++)
            if (host[i] == h) {
                whole &= g0 < 0 || a->label[i] == g0;
                g0 = a->label[i];
            }
        if (whole)
            continue;
        split++;
        size_t lo = 0;
        list[0] = '\0';
        for (int g = 0; g < k; g++)
            for (int i = 0; i < P; i++)
                if (host[i] == h && a->label[i] == g) {
                    snprintf(buf, sizeof buf, "%s%d", lo ? ", " : "", g + 1);
                    lens_report_append(list, sizeof list, &lo, buf);
                    break;
                }
        snprintf(buf, sizeof buf, "%s%s: %s", po ? "; " : "", names[h], list);
        lens_report_append(splits, sizeof splits, &po, buf);
    }
    host_range(names, nh, list, sizeof list);
    rc = lens_tmpl_vars_set(&r->vars, "host_range", list, e);
    if (rc == LENS_OK) rc = lens_tmpl_vars_setf(&r->vars, e, "nhosts", "%d", nh);
    if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "spanning", spans, e);
    if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "split", splits, e);
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
        rc = lens_tmpl_vars_set(&r->vars, "structure_words", buf, e);
out:
    lens_free(size);
    lens_free(host);
    lens_free(names);
    return rc;
}

/* ---- structure section ---- */

/* Column headers: placeholders set from the texts of the same name, empty without rows. */static const char *const group_columns[] = {"col_group", "col_processes", "col_ranks", "col_hosts", "col_inside"};
static const char *const link_columns[] = {"col_cluster", "col_links",   "col_share", "col_diameter",
                                           "col_first",   "col_last",    "col_within"};

int lens_report_structure_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    struct lens_report_analysis *a;
    int rc = lens_report_analysis_get(r, &a, e);
    char buf[2 * CELL], lo[32], hi[32];
    if (rc != LENS_OK)
        return rc;
    if (!a->dm) {
        rc = lens_tmpl_vars_set(&r->vars, "error", a->cluster_err, e);
        if (rc == LENS_OK)
            rc = lens_report_text(r, "words_failed", buf, sizeof buf, e);
        if (rc == LENS_OK)
            rc = lens_tmpl_vars_set(&r->vars, "structure_words", buf, e);
        if (rc == LENS_OK)
            rc = lens_tmpl_vars_set(&r->vars, "cut", "", e);
    } else {
        lens_report_fmt_us(a->low, lo, sizeof lo);
        lens_report_fmt_us(a->high, hi, sizeof hi);
        rc = lens_tmpl_vars_set(&r->vars, "cut_low", lo, e);
        if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "cut_high", hi, e);
        if (rc == LENS_OK) rc = lens_tmpl_vars_setf(&r->vars, e, "gap_ratio", "%.2f", a->ratio);
        if (rc == LENS_OK) rc = lens_tmpl_vars_setf(&r->vars, e, "gap_min", "%.2f", a->ratio_min);
        if (rc == LENS_OK) rc = words(r, a, e);
        if (rc == LENS_OK) rc = lens_report_text(r, a->k > 1 ? "cut_gap" : "cut_none", buf, sizeof buf, e);
        if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "cut", buf, e);
    }
    /* the link clusters */
    const struct lens_links *l = a->links;
    if (rc == LENS_OK && l) {
        rc = lens_tmpl_vars_setf(&r->vars, e, "nlinks", "%ld", (long)l->procs * (l->procs - 1));
        if (rc == LENS_OK) rc = lens_tmpl_vars_setf(&r->vars, e, "nlinkclusters", "%d", l->k);
        if (rc == LENS_OK) rc = lens_tmpl_vars_setf(&r->vars, e, "first_length", "%d", l->lengths[0]);
        if (rc == LENS_OK) rc = lens_tmpl_vars_setf(&r->vars, e, "last_length", "%d", l->lengths[l->nlen - 1]);
        if (rc == LENS_OK)
            rc = lens_report_text(r, l->forced ? "links_forced" : l->elbow ? "links_scree" : "links_no_elbow", buf,
                                  sizeof buf, e);
    } else if (rc == LENS_OK) {
        rc = lens_tmpl_vars_set(&r->vars, "error", a->links_err, e);
        if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "first_length", "", e);
        if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "last_length", "", e);
        if (rc == LENS_OK) rc = lens_report_text(r, "links_failed", buf, sizeof buf, e);
    }
    if (rc == LENS_OK)
        rc = lens_tmpl_vars_set(&r->vars, "links_words", buf, e);
    if (rc == LENS_OK)
        rc = lens_report_headers(r, group_columns, 5, a->dm != NULL, e);
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

static int groups_table(struct lens_report_ctx *r, const struct lens_report_analysis *a, struct lens_err *e)
{
    const struct lens_cube *c = lens_report_cube(r);
    int rc = LENS_OK;
    for (int g = 0; a->dm && g < a->k && rc == LENS_OK; g++) {
        char id[16], size[16], ranks[CELL], hosts[CELL], within[32];
        int n = 0;
        double sum = 0;
        long pairs = 0;
        for (int i = 0; i < c->procs; i++) {
            n += a->label[i] == g;
            for (int j = i + 1; j < c->procs; j++)
                if (a->label[i] == g && a->label[j] == g) {
                    sum += a->dm->d[lens_distmat_index(c->procs, i, j)];
                    pairs++;
                }
        }
        snprintf(id, sizeof id, "%d", g + 1);
        snprintf(size, sizeof size, "%d", n);
        rank_list(c, a->label, g, NULL, ranks, sizeof ranks);
        if (c->hosts)
            group_hosts(c, a->label, g, hosts, sizeof hosts);
        else
            snprintf(hosts, sizeof hosts, "-");
        lens_report_fmt_us(pairs ? sum / pairs : NAN, within, sizeof within);
        const char *cells[5] = {id, size, ranks, hosts, within};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}

static int links_table(struct lens_report_ctx *r, const struct lens_report_analysis *a, struct lens_err *e)
{
    const struct lens_links *l = a->links;
    int rc = LENS_OK;
    for (int id = 0; l && id < l->k && rc == LENS_OK; id++) {
        struct lens_links_row row;
        char sentence[256], cells[7][48];
        lens_links_row(l, id, &row, sentence, sizeof sentence);
        snprintf(cells[0], sizeof cells[0], "%d", row.id);
        snprintf(cells[1], sizeof cells[1], "%ld", row.size);
        snprintf(cells[2], sizeof cells[2], "%.1f%%", 100 * row.share);
        snprintf(cells[3], sizeof cells[3], "%.4g", row.diameter);
        lens_report_fmt_us(row.first, cells[4], sizeof cells[4]);
        lens_report_fmt_us(row.last, cells[5], sizeof cells[5]);
        if (isfinite(row.same_host))
            snprintf(cells[6], sizeof cells[6], "%.0f%%", 100 * row.same_host);
        else
            snprintf(cells[6], sizeof cells[6], "-");
        const char *p[7] = {cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6]};
        rc = lens_pdf_table_row(r->pdf, p, e);
    }
    return rc;
}

int lens_report_structure_table(void *ctx, const struct lens_tmpl_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    struct lens_report_analysis *a;
    int rc = lens_report_analysis_get(r, &a, e);
    if (rc != LENS_OK)
        return rc;
    if (!strcmp(it->name, "groups"))
        return groups_table(r, a, e);
    if (!strcmp(it->name, "link_clusters"))
        return links_table(r, a, e);
    return lens_report_unknown_item(r, it, e);
}

/* The median-over-lengths matrix of the report's statistic with rows and columns in the
 * tree's leaf order, as the heatmap of the structure (lens_malloc'd, P x P, seconds). */
static double *reordered(const struct lens_cube *c, int stat, const int *order)
{
    int P = c->procs, L = c->nlen;
    double *m = lens_malloc((size_t)P * P * sizeof *m), *v = lens_malloc((size_t)L * sizeof *v);
    for (int i = 0; m && v && i < P; i++)
        for (int j = 0; j < P; j++) {
            int n = 0;
            for (int k = 0; k < L; k++) {
                double x = LENS_CUBE_AT(c, stat, k, order[i], order[j]);
                if (isfinite(x)) {
                    int p = n++;
                    while (p > 0 && v[p - 1] > x) { /* insertion: L is small */
                        v[p] = v[p - 1];
                        p--;
                    }
                    v[p] = x;
                }
            }
            m[(size_t)i * P + j] = n == 0 ? NAN : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        }
    lens_free(v);
    return m;
}

static int tree_heatmap(struct lens_report_ctx *r, const struct lens_report_analysis *a, struct lens_err *e)
{
    const struct lens_cube *c = lens_report_cube(r);
    int P = c->procs, rc = lens_tmpl_vars_setf(&r->vars, e, "figure", "%d", ++r->figure);
    char heading[512], title[512], caption[2048], xl[128], yl[128], unit[32];
    int dir = lens_report_direction(c->mode);
    if (rc == LENS_OK) rc = lens_report_text(r, "heatmap_heading", heading, sizeof heading, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "heatmap_title", title, sizeof title, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "heatmap_caption", caption, sizeof caption, e);
    if (rc == LENS_OK) rc = lens_report_text(r, "unit", unit, sizeof unit, e);
    if (rc == LENS_OK) rc = lens_report_text(r, dir == 1 ? "axis_sender" : "axis_column", xl, sizeof xl, e);
    if (rc == LENS_OK) rc = lens_report_text(r, dir == 1 ? "axis_receiver" : "axis_row", yl, sizeof yl, e);
    if (rc != LENS_OK)
        return rc;
    double *m = reordered(c, r->o->stat, a->order);
    char *labels = lens_malloc((size_t)P * 12);
    const char **lab = lens_malloc((size_t)P * sizeof *lab);
    if (!m || !labels || !lab) {
        rc = lens_err_set(e, LENS_ENOMEM, "report: out of memory");
        goto out;
    }
    for (int i = 0; i < P; i++) {
        snprintf(labels + 12 * i, 12, "%d", a->order[i]);
        lab[i] = labels + 12 * i;
    }
    struct lens_heatmap_opts ho;
    lens_heatmap_opts_init(&ho);
    ho.title = title;
    ho.unit = unit;
    ho.scale = 1e6;
    ho.labels = lab;
    ho.log_scale = 1; /* one bad link must not wash out the blocks */
    ho.xlabel = xl;
    ho.ylabel = yl;
    ho.histogram = 1;
    ho.width = LENS_REPORT_FIG_W;
    ho.height = LENS_REPORT_FIG_H;
    ho.font_path = r->font_path;
    unsigned char *png = NULL;
    size_t len = 0;
    rc = lens_heatmap_png_mem(m, P, P, &ho, &png, &len, e);
    if (rc == LENS_OK)
        rc = lens_report_place_figure(r, heading, png, len, LENS_REPORT_FIG_W, LENS_REPORT_FIG_H, caption, e);
    lens_free(png);
    char path[PATH_MAX + 64];
    if (rc == LENS_OK && r->o->figures_dir) {
        lens_report_figure_path(r, "structure_heatmap", "png", path, sizeof path);
        rc = lens_heatmap_write_png(m, P, P, &ho, path, e);
    }
    if (rc == LENS_OK && r->o->figures_dir) {
        lens_report_figure_path(r, "structure_heatmap", "svg", path, sizeof path);
        rc = lens_heatmap_write_svg(m, P, P, &ho, path, e);
    }
out:
    lens_free(m);
    lens_free(labels);
    lens_free(lab);
    return rc;
}

int lens_report_structure_block(void *ctx, const struct lens_tmpl_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    struct lens_report_analysis *a;
    int rc = lens_report_analysis_get(r, &a, e);
    if (rc != LENS_OK)
        return rc;
    if (!strcmp(it->name, "figures"))
        return a->dm ? tree_heatmap(r, a, e) : LENS_OK;
    if (!strcmp(it->name, "link_figures"))
        return LENS_OK;
    return lens_report_unknown_item(r, it, e);
}
