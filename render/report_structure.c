/* "Structure of the machine" and "Anomalies" of the latency-cube report (sections structure
 * and anomalies of templates/report.tmpl). The processes are clustered by average linkage on
 * the cube's distance matrix and the tree is cut where the merge heights jump; the groups are
 * compared with the hosts in words; the links are clustered by their latency curves; the
 * anomalies are ranked by robust z. The analyses run once per input and are kept in the
 * report context until the next input. */
#include "report_ctx.h"

#include "heatmap.h"

#include "../analysis/anomaly.h"
#include "../analysis/distmat.h"
#include "../analysis/hclust.h"
#include "../analysis/links.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The automatic cut. Cutting after the first m merges leaves k = n - m groups; each group
 * was formed by its highest merge inside, and the groups start to join at the next merge
 * height. The cut is placed where that next height is the most times higher than the median
 * over the groups of their inside heights (singletons left out), if at least GAP_MIN times;
 * else the processes form one group. The median, not the largest inside height, keeps one
 * slow node (all its delays higher) from hiding the level of the nodes. A cut must also sit
 * in a real step, the next merge at least CUT_STEP_MIN times the last one below it, so that
 * it never falls between merges of one level that differ only by noise. Heights below
 * GAP_FLOOR x the root height count as that, so that identical processes do not give huge
 * ratios. Only k <= CUT_KMAX groups are considered, which bounds the cost. */
#define GAP_MIN 1.5
#define CUT_STEP_MIN 1.1
#define GAP_FLOOR 1e-3
#define CUT_KMAX 256
#define CELL 400 /* longest table cell or list we write, bytes */

struct lens_report_analysis {
    int input;                      /* index into in[] these results are for */
    struct lens_distmat *dm;        /* NULL when the clustering failed (why in cluster_err) */
    struct lens_hclust_step *z;     /* n-1 merges */
    int *order, *label;             /* leaf order of the tree; group of each process */
    int k;                          /* groups at the cut */
    double low, high, ratio;        /* heights around the largest gap (seconds) and their ratio */
    char cluster_err[1024];
    struct lens_links *links;       /* NULL when the link clustering failed (links_err) */
    char links_err[1024];
    struct lens_anomalies *an;      /* NULL when the search failed (anomaly_err) */
    char anomaly_err[1024];
};

void lens_report_analysis_free(struct lens_report_analysis *a)
{
    if (!a)
        return;
    lens_distmat_free(a->dm);
    lens_free(a->z);
    lens_free(a->order);
    lens_free(a->label);
    lens_links_free(a->links);
    lens_anomaly_free(a->an);
    lens_free(a);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Picks the number of groups a->k (see GAP_MIN); z must be in merge (height) order. */
static int auto_cut(struct lens_report_analysis *a, int n, struct lens_err *e)
{
    const struct lens_hclust_step *z = a->z;
    a->k = 1;
    a->ratio = 1;
    a->low = a->high = z[n - 2].height;
    int *pos = lens_malloc((size_t)(n - 1) * sizeof *pos), nact = 0;
    double *act = lens_malloc((size_t)(n - 1) * sizeof *act), *tmp = lens_malloc((size_t)(n - 1) * sizeof *tmp);
    int *who = lens_malloc((size_t)(n - 1) * sizeof *who); /* act[i] is the top of merge who[i] */
    if (!pos || !act || !tmp || !who) {
        lens_free(pos), lens_free(act), lens_free(tmp), lens_free(who);
        return lens_err_set(e, LENS_ENOMEM, "report: out of memory cutting the tree of %d processes", n);
    }
    double floor = GAP_FLOOR * z[n - 2].height, best = 0;
    for (int j = 0; j < n - 1; j++) {
        int child[2] = {z[j].left, z[j].right};
        for (int c = 0; c < 2; c++)
            if (child[c] >= n) { /* the child group stops being a group: drop its top */
                int p = pos[child[c] - n];
                act[p] = act[--nact];
                who[p] = who[nact];
                pos[who[p]] = p;
            }
        pos[j] = nact;
        who[nact] = j;
        act[nact++] = z[j].height;
        int k = n - 1 - j;
        if (k < 2 || k > CUT_KMAX)
            continue;
        memcpy(tmp, act, (size_t)nact * sizeof *tmp);
        qsort(tmp, (size_t)nact, sizeof *tmp, by_value);
        double within = nact % 2 ? tmp[nact / 2] : (tmp[nact / 2 - 1] + tmp[nact / 2]) / 2;
        double ratio = z[j + 1].height / (within > floor ? within : floor);
        int step = z[j + 1].height >= CUT_STEP_MIN * (z[j].height > floor ? z[j].height : floor);
        if (z[n - 2].height > 0 && step && ratio >= best) { /* ties: fewer groups */
            best = ratio;
            a->ratio = ratio;
            a->low = within;
            a->high = z[j + 1].height;
            a->k = k;
        }
    }
    if (a->ratio < GAP_MIN)
        a->k = 1;
    lens_free(pos), lens_free(act), lens_free(tmp), lens_free(who);
    return LENS_OK;
}

/* Runs the clustering; a cube it cannot cluster is reported in words, not as an error. */
static int cluster(struct lens_report_analysis *a, const struct lens_cube *c, int stat, struct lens_err *e)
{
    struct lens_err ce;
    lens_err_clear(&ce);
    int n = c->procs, rc = lens_distmat_from_cube(c, stat, -1, &a->dm, &ce);
    double *work = NULL;
    if (rc == LENS_OK) {
        size_t np = lens_distmat_pairs(n);
        work = lens_malloc(np * sizeof *work);
        a->z = lens_malloc((size_t)(n - 1) * sizeof *a->z);
        a->order = lens_malloc((size_t)n * sizeof *a->order);
        a->label = lens_malloc((size_t)n * sizeof *a->label);
        if (!work || !a->z || !a->order || !a->label)
            rc = lens_err_set(&ce, LENS_ENOMEM, "report: out of memory clustering %d processes", n);
        else
            memcpy(work, a->dm->d, np * sizeof *work);
    }
    if (rc == LENS_OK)
        rc = lens_hclust_run(work, n, LENS_HCLUST_AVERAGE, a->z, &ce);
    lens_free(work);
    if (rc == LENS_OK)
        rc = lens_hclust_leaf_order(a->z, n, a->order, &ce);
    if (rc == LENS_OK)
        rc = auto_cut(a, n, &ce);
    if (rc == LENS_OK)
        rc = lens_hclust_cut(a->z, n, a->k, a->label, &ce);
    if (rc == LENS_ENOMEM) {
        *e = ce;
        return rc;
    }
    if (rc != LENS_OK) {
        snprintf(a->cluster_err, sizeof a->cluster_err, "%s", ce.msg);
        lens_distmat_free(a->dm);
        a->dm = NULL;
    }
    return LENS_OK;
}

/* The analyses of the current input, computed on first use. */
static int analysis(struct lens_report_ctx *r, struct lens_report_analysis **out, struct lens_err *e)
{
    if (r->an && r->an->input == r->cur) {
        *out = r->an;
        return LENS_OK;
    }
    lens_report_analysis_free(r->an);
    r->an = lens_calloc(1, sizeof *r->an);
    if (!r->an)
        return lens_err_set(e, LENS_ENOMEM, "report: out of memory");
    struct lens_report_analysis *a = r->an;
    a->input = r->cur;
    const struct lens_cube *c = lens_report_cube(r);
    int rc = cluster(a, c, r->o->stat, e);

    struct lens_err le;
    lens_err_clear(&le);
    struct lens_links_opts lo;
    lens_links_opts_default(&lo);
    int lrc = rc == LENS_OK ? lens_links_run(c, &lo, &a->links, &le) : LENS_OK;
    if (lrc == LENS_ENOMEM)
        rc = (*e = le, lrc);
    else if (lrc != LENS_OK)
        snprintf(a->links_err, sizeof a->links_err, "%s", le.msg);

    struct lens_anomaly_opts ao;
    lens_anomaly_opts_default(&ao);
    ao.stat = r->o->stat == LENS_STAT_DEVIATION ? -1 : r->o->stat; /* a spread is not a delay */
    lens_err_clear(&le);
    int arc = rc == LENS_OK ? lens_anomaly_find(c, &ao, &a->an, &le) : LENS_OK;
    if (arc == LENS_ENOMEM)
        rc = (*e = le, arc);
    else if (arc != LENS_OK)
        snprintf(a->anomaly_err, sizeof a->anomaly_err, "%s", le.msg);
    *out = a;
    return rc;
}

/* ---- words ---- */

/* Appends s to buf (size n) at *o, cut with "..." when full. */
static void put(char *buf, size_t n, size_t *o, const char *s)
{
    if (*o + strlen(s) + 4 >= n) {
        if (*o + 4 < n)
            *o += (size_t)snprintf(buf + *o, n - *o, "...");
        return;
    }
    *o += (size_t)snprintf(buf + *o, n - *o, "%s", s);
}

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
        put(buf, n, &o, part);
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
            put(buf, n, &o, i ? ", " : "");
            put(buf, n, &o, s[i]);
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
        put(sizes, sizeof sizes, &o, buf);
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
                    put(list, sizeof list, &lo, lo ? ", " : "");
                    put(list, sizeof list, &lo, names[h]);
                    break;
                }
        snprintf(buf, sizeof buf, "%s%d: %s", so ? "; " : "", g + 1, list);
        put(spans, sizeof spans, &so, buf);
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
                    put(list, sizeof list, &lo, buf);
                    break;
                }
        snprintf(buf, sizeof buf, "%s%s: %s", po ? "; " : "", names[h], list);
        put(splits, sizeof splits, &po, buf);
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

/* Table headers are placeholders set from the texts of the same name, or empty (no header
 * row is drawn) when the table has no rows. */
static const char *const group_columns[] = {"col_group", "col_processes", "col_ranks", "col_hosts", "col_inside"};
static const char *const link_columns[] = {"col_cluster", "col_links",   "col_share", "col_diameter",
                                           "col_first",   "col_last",    "col_within"};
static const char *const anomaly_columns[] = {"col_rank",  "col_kind",  "col_ranks_hosts",
                                              "col_lengths", "col_score", "col_evidence"};

static int headers(struct lens_report_ctx *r, const char *const *names, int n, int rows, struct lens_err *e)
{
    int rc = LENS_OK;
    for (int i = 0; i < n && rc == LENS_OK; i++) {
        char buf[256] = "";
        if (rows)
            rc = lens_report_text(r, names[i], buf, sizeof buf, e);
        if (rc == LENS_OK)
            rc = lens_tmpl_vars_set(&r->vars, names[i], buf, e);
    }
    return rc;
}

int lens_report_structure_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    struct lens_report_analysis *a;
    int rc = analysis(r, &a, e);
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
        if (rc == LENS_OK) rc = lens_tmpl_vars_setf(&r->vars, e, "gap_min", "%.2f", GAP_MIN);
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
        rc = headers(r, group_columns, 5, a->dm != NULL, e);
    return rc == LENS_OK ? headers(r, link_columns, 7, l != NULL, e) : rc;
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
        put(buf, n, &o, part);
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
    int rc = analysis(r, &a, e);
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
    int rc = analysis(r, &a, e);
    if (rc != LENS_OK)
        return rc;
    if (!strcmp(it->name, "figures"))
        return a->dm ? tree_heatmap(r, a, e) : LENS_OK;
    if (!strcmp(it->name, "link_figures"))
        return LENS_OK;
    return lens_report_unknown_item(r, it, e);
}

/* ---- anomalies section ---- */


int lens_report_anomalies_vars(void *ctx, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    struct lens_report_analysis *a;
    int rc = analysis(r, &a, e);
    char buf[2 * CELL];
    if (rc != LENS_OK)
        return rc;
    int n = a->an ? a->an->n : 0;
    if (a->an) {
        char z[32], link[32], slow[32];
        struct lens_anomaly_opts ao;
        lens_anomaly_opts_default(&ao);
        snprintf(z, sizeof z, "%g", ao.z_min);
        snprintf(slow, sizeof slow, "%g", ao.slow_min);
        snprintf(link, sizeof link, "%g", ao.link_min);
        rc = lens_tmpl_vars_setf(&r->vars, e, "nanomalies", "%d", n);
        if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "anomaly_stat", lens_cube_stat_name(a->an->stat), e);
        if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "z_min", z, e);
        if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "slow_min", slow, e);
        if (rc == LENS_OK) rc = lens_tmpl_vars_set(&r->vars, "link_min", link, e);
        if (rc == LENS_OK)
            rc = lens_report_text(r, n == 0 ? "none" : n == 1 ? "one" : "some", buf, sizeof buf, e);
    } else {
        rc = lens_tmpl_vars_set(&r->vars, "error", a->anomaly_err, e);
        if (rc == LENS_OK)
            rc = lens_report_text(r, "failed", buf, sizeof buf, e);
    }
    if (rc == LENS_OK)
        rc = lens_tmpl_vars_set(&r->vars, "anomaly_words", buf, e);
    return rc == LENS_OK ? headers(r, anomaly_columns, 6, n > 0, e) : rc;
}

/* The ranks a finding is about: "3 -> 17 (node01 -> node03)", "16-23 (node03)", "4 <-> 9". */
static void finding_ranks(const struct lens_cube *c, const struct lens_anomaly *f, char *buf, size_t n)
{
    buf[0] = '\0';
    if (f->nranks == 0)
        return;
    if (f->kind == LENS_ANOMALY_BAD_LINK || f->kind == LENS_ANOMALY_ASYMMETRIC_PAIR) {
        int s = f->ranks[0], d = f->ranks[1];
        const char *arrow = f->kind == LENS_ANOMALY_BAD_LINK ? "->" : "<->";
        if (!c->hosts)
            snprintf(buf, n, "%d %s %d", s, arrow, d);
        else if (!strcmp(c->hosts[s], c->hosts[d]))
            snprintf(buf, n, "%d %s %d (%s)", s, arrow, d, c->hosts[s]);
        else
            snprintf(buf, n, "%d %s %d (%s %s %s)", s, arrow, d, c->hosts[s], arrow, c->hosts[d]);
        return;
    }
    size_t o = 0;
    for (int i = 0; i < f->nranks;) {
        int j = i;
        while (j + 1 < f->nranks && f->ranks[j + 1] == f->ranks[j] + 1)
            j++;
        char part[48];
        if (j == i)
            snprintf(part, sizeof part, "%s%d", o ? ", " : "", f->ranks[i]);
        else
            snprintf(part, sizeof part, "%s%d-%d", o ? ", " : "", f->ranks[i], f->ranks[j]);
        put(buf, n, &o, part);
        i = j + 1;
    }
    /* the host when every rank of the finding is on one */
    int one = c->hosts != NULL;
    for (int i = 1; one && i < f->nranks; i++)
        one = !strcmp(c->hosts[f->ranks[i]], c->hosts[f->ranks[0]]);
    if (one) {
        char part[CELL];
        snprintf(part, sizeof part, " (%s)", c->hosts[f->ranks[0]]);
        put(buf, n, &o, part);
    }
}

/* The lengths of a finding: "0..4096 (9 of 9)" or the list when there are at most 3. */
static void finding_lengths(const struct lens_cube *c, const struct lens_anomaly *f, char *buf, size_t n)
{
    buf[0] = '\0';
    if (f->nlengths > 3) {
        snprintf(buf, n, "%d..%d (%d of %d)", f->lengths[0], f->lengths[f->nlengths - 1], f->nlengths, c->nlen);
        return;
    }
    size_t o = 0;
    for (int i = 0; i < f->nlengths; i++) {
        char part[32];
        snprintf(part, sizeof part, "%s%d", i ? ", " : "", f->lengths[i]);
        put(buf, n, &o, part);
    }
}

int lens_report_anomalies_table(void *ctx, const struct lens_tmpl_item *it, struct lens_err *e)
{
    struct lens_report_ctx *r = ctx;
    if (strcmp(it->name, "ranked"))
        return lens_report_unknown_item(r, it, e);
    struct lens_report_analysis *a;
    int rc = analysis(r, &a, e);
    const struct lens_cube *c = lens_report_cube(r);
    for (int i = 0; rc == LENS_OK && a->an && i < a->an->n; i++) {
        struct lens_anomaly_row row;
        lens_anomaly_row(a->an, i, &row);
        char num[16], kind[64], ranks[CELL], lengths[64], score[32], name[40];
        snprintf(num, sizeof num, "%d", i + 1);
        snprintf(name, sizeof name, "kind_%s", row.kind);
        if ((rc = lens_report_text(r, name, kind, sizeof kind, e)) != LENS_OK)
            break;
        finding_ranks(c, &a->an->items[i], ranks, sizeof ranks);
        finding_lengths(c, &a->an->items[i], lengths, sizeof lengths);
        snprintf(score, sizeof score, "%.1f", row.z);
        const char *cells[6] = {num, kind, ranks, lengths, score, row.text};
        rc = lens_pdf_table_row(r->pdf, cells, e);
    }
    return rc;
}
