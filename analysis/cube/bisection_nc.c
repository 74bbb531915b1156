/* What `mpilens report` shows of a bisection run (bisection.h): the CSV's rounds and summary,
 * and from PREFIX_bisection.nc beside it the host of each rank, every flow (so the slowest
 * links can be named with their hosts) and, when ranks share nodes, each node's share. */
#include "bisection.h"

#include "nc_guard.h"
#include "common/alloc.h"

#include <math.h>
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One flow of one round, before the flows of a link are merged. */
struct flow {
    int s, r, round;
    double Bps;
};

/* By link, then round: the flows of one link become one run of the sorted array. */
static int by_link(const void *x, const void *y)
{
    const struct flow *a = x, *b = y;
    if (a->s != b->s)
        return (a->s > b->s) - (a->s < b->s);
    if (a->r != b->r)
        return (a->r > b->r) - (a->r < b->r);
    return (a->round > b->round) - (a->round < b->round);
}

/* Slowest first; equal rates by ranks, so the order (and the report) never depends on qsort. */
static int by_rate(const void *x, const void *y)
{
    const struct lens_bisection_link *a = x, *b = y;
    if (a->min_Bps != b->min_Bps)
        return (a->min_Bps > b->min_Bps) - (a->min_Bps < b->min_Bps);
    if (a->sender != b->sender)
        return (a->sender > b->sender) - (a->sender < b->sender);
    return (a->receiver > b->receiver) - (a->receiver < b->receiver);
}

/* d->links from n flows (sorted here): per link its slowest flow and in how many rounds it
 * flowed, then the links slowest first. */
static int merge_links(struct lens_bisection_detail *d, struct flow *f, size_t n, struct lens_err *e)
{
    qsort(f, n, sizeof *f, by_link);
    /* at most one link per flow; + 1 so that a run of no flows still gets an array */
    d->links = lens_calloc(n + 1, sizeof *d->links);
    if (!d->links)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", d->run->path);
    for (size_t i = 0; i < n;) {
        /* the run's first flow seeds the link; the loop below counts it again as round 1 */
        struct lens_bisection_link *l = &d->links[d->nlinks++];
        *l = (struct lens_bisection_link){f[i].s, f[i].r, f[i].Bps, f[i].round, 0};
        /* rounds ascend inside a run, so strict < keeps the first round of a tie */
        size_t j = i;
        for (; j < n && f[j].s == f[i].s && f[j].r == f[i].r; j++) {
            l->rounds++;
            if (f[j].Bps < l->min_Bps) {
                l->min_Bps = f[j].Bps;
                l->round = f[j].round;
            }
        }
        i = j;
    }
    qsort(d->links, (size_t)d->nlinks, sizeof *d->links, by_rate);
    return LENS_OK;
}

/* Without the .nc, the CSV names one flow per round: the slowest. */
static int links_from_csv(struct lens_bisection_detail *d, struct lens_err *e)
{
    struct flow *f = lens_malloc((size_t)d->run->n * sizeof *f);
    if (!f)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", d->run->path);
    /* "rounds" of such a link then counts the rounds it was the slowest, which the report's
     * column heading says (col_rounds_csv) */
    for (int r = 0; r < d->run->n; r++) {
        const struct lens_bisection_round *u = &d->run->r[r];
        f[r] = (struct flow){u->slowest_sender, u->slowest_receiver, u->round, u->slowest_pair_Bps};
    }
    int rc = merge_links(d, f, (size_t)d->run->n, e);
    lens_free(f);
    return rc;
}

/* ---- the .nc ---- */

/* Variable name's id, checked to be of type t over the dimensions dims[0..nd): nc_get_var_*
 * fills the whole variable, so a variable of another shape would write past the buffer. */
static int var_of(int id, const char *path, const char *name, nc_type t, int nd, const int *dims, int *var,
                  struct lens_err *e)
{
    int got_nd = 0, got[NC_MAX_VAR_DIMS];
    nc_type got_t;
    if (nc_inq_varid(id, name, var) != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: no variable '%s'", path, name);
    /* got holds NC_MAX_VAR_DIMS ids, so nc_inq_var may write any rank before it is checked */
    if (nc_inq_var(id, *var, NULL, &got_t, &got_nd, got, NULL) != NC_NOERR || got_nd != nd ||
        memcmp(got, dims, (size_t)nd * sizeof *dims) ||
        (t == NC_CHAR ? got_t != NC_CHAR : got_t == NC_CHAR))
        return lens_err_set(e, LENS_EFORMAT, "%s: variable '%s' is not of the bench's shape", path, name);
    return LENS_OK;
}

/* A whole double variable into v (sized by the caller from the dimensions checked). */
static int get_d(int id, const char *path, const char *name, int nd, const int *dims, double *v, struct lens_err *e)
{
    int var, rc = var_of(id, path, name, NC_DOUBLE, nd, dims, &var, e), st;
    if (rc == LENS_OK && (st = nc_get_var_double(id, var, v)) != NC_NOERR)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: variable '%s': %s", path, name, nc_strerror(st));
    return rc;
}

/* A whole int variable into v, as get_d. */
static int get_i(int id, const char *path, const char *name, int nd, const int *dims, int *v, struct lens_err *e)
{
    int var, rc = var_of(id, path, name, NC_INT, nd, dims, &var, e), st;
    if (rc == LENS_OK && (st = nc_get_var_int(id, var, v)) != NC_NOERR)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: variable '%s': %s", path, name, nc_strerror(st));
    return rc;
}

/* n names of a char (dim, label) variable as lens_strdup'd strings into out[0..n). */
static int get_names(int id, const char *path, const char *name, int dim, int dl, size_t n, size_t w, char **out,
                     struct lens_err *e)
{
    int var, dims[2] = {dim, dl}, st;
    int rc = var_of(id, path, name, NC_CHAR, 2, dims, &var, e);
    /* + 1 and the zeroing: the last name ends even when it fills its cells */
    char *buf = rc == LENS_OK ? lens_calloc(n * w + 1, 1) : NULL;
    if (rc == LENS_OK && !buf)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    if (rc == LENS_OK && n * w > 0 && (st = nc_get_var_text(id, var, buf)) != NC_NOERR)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: variable '%s': %s", path, name, nc_strerror(st));
    /* each name a string of its own: the report keeps them after the file is closed, and the
     * caller frees every entry that was set (the array is zeroed) */
    for (size_t i = 0; rc == LENS_OK && i < n; i++) {
        char *s = lens_malloc(w + 1);
        if (!s) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
            break;
        }
        memcpy(s, buf + i * w, w);
        s[w] = '\0';
        /* a host name goes into the PDF and its bookmarks: it must be text */
        if (!lens_nc_guard_utf8(s, strlen(s))) {
            lens_free(s);
            rc = lens_err_set(e, LENS_EFORMAT, "%s: variable '%s': entry %zu is not UTF-8 text", path, name, i);
            break;
        }
        out[i] = s;
    }
    lens_free(buf);
    return rc;
}

/* Dimension name's id and length; LENS_EFORMAT when absent unless optional (then *dim = -1). */
static int dim_of(int id, const char *path, const char *name, int optional, int *dim, size_t *len, struct lens_err *e)
{
    *len = 0;
    if (nc_inq_dimid(id, name, dim) != NC_NOERR) {
        *dim = -1;
        return optional ? LENS_OK : lens_err_set(e, LENS_EFORMAT, "%s: no dimension '%s'", path, name);
    }
    if (nc_inq_dimlen(id, *dim, len) != NC_NOERR)
        return lens_err_set(e, LENS_EFORMAT, "%s: dimension '%s' unreadable", path, name);
    return LENS_OK;
}

/* The flows and nodes of an open .nc, R rounds as in the CSV. Sizes come from the file; the
 * guard bounded the file's variables by its size, so the buffers are too. */
static int read_nc(struct lens_bisection_detail *d, int id, struct lens_err *e)
{
    const char *path = d->nc_path;
    int dr, df, dp, dl, dn;
    size_t R, F, P, W, N;
    int rc = dim_of(id, path, "round", 0, &dr, &R, e);
    if (rc == LENS_OK) rc = dim_of(id, path, "flow", 0, &df, &F, e);
    if (rc == LENS_OK) rc = dim_of(id, path, "rank", 0, &dp, &P, e);
    if (rc == LENS_OK) rc = dim_of(id, path, "label", 0, &dl, &W, e);
    if (rc == LENS_OK) rc = dim_of(id, path, "node", 1, &dn, &N, e);
    if (rc != LENS_OK)
        return rc;
    /* the .nc must be the CSV's run: same rounds, and (below) the same aggregate per round */
    /* 2^24 ranks bounds the per-rank buffers far above any machine; F = 2 floor(P / 2) in the
     * bench, and more flows than ranks would be a damaged file */
    if (R != (size_t)d->run->n || P < 2 || P > (size_t)1 << 24 || F > P)
        return lens_err_set(e, LENS_EFORMAT, "%s: %zu rounds of %zu ranks and %zu flows, the CSV has %d rounds",
                            path, R, P, F, d->run->n);
    d->nranks = (int)P;
    /* + 1 everywhere: a run without flows (F = 0) must not be a zero-byte allocation, which
     * lens_malloc may answer with NULL, read as out of memory */
    int *fs = lens_malloc((R * F + 1) * sizeof *fs), *fr = lens_malloc((R * F + 1) * sizeof *fr);
    double *fb = lens_malloc((R * F + 1) * sizeof *fb), *bw = lens_malloc(R * sizeof *bw);
    struct flow *f = lens_malloc((R * F + 1) * sizeof *f);
    d->hosts = lens_calloc(P, sizeof *d->hosts);
    if (!fs || !fr || !fb || !bw || !f || !d->hosts)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    /* flows are (round, flow), row-major: entry k is round k / F */
    int drf[2] = {dr, df};
    if (rc == LENS_OK) rc = get_d(id, path, "bandwidth_Bps", 1, &dr, bw, e);
    for (size_t r = 0; rc == LENS_OK && r < R; r++)
        if (!(fabs(bw[r] - d->run->r[r].bandwidth_Bps) <= 1e-6 * d->run->r[r].bandwidth_Bps))
            rc = lens_err_set(e, LENS_EFORMAT, "%s: round %zu: bandwidth_Bps %.9g, the CSV says %.9g: not the "
                              "same run", path, r, bw[r], d->run->r[r].bandwidth_Bps);
    if (rc == LENS_OK) rc = get_i(id, path, "flow_sender", 2, drf, fs, e);
    if (rc == LENS_OK) rc = get_i(id, path, "flow_receiver", 2, drf, fr, e);
    if (rc == LENS_OK) rc = get_d(id, path, "flow_Bps", 2, drf, fb, e);
    if (rc == LENS_OK) rc = get_names(id, path, "host", dp, dl, P, W, d->hosts, e);
    for (size_t k = 0; rc == LENS_OK && k < R * F; k++) {
        /* a rank out of range would index hosts[] past its end in the report */
        if (fs[k] < 0 || fr[k] < 0 || (size_t)fs[k] >= P || (size_t)fr[k] >= P || fs[k] == fr[k] ||
            !(fb[k] > 0) || !isfinite(fb[k]))
            rc = lens_err_set(e, LENS_EFORMAT, "%s: round %zu flow %zu: %d -> %d at %g B/s is not a flow "
                              "between two of the %zu ranks", path, k / F, k % F, fs[k], fr[k], fb[k], P);
        else
            f[k] = (struct flow){fs[k], fr[k], (int)(k / F), fb[k]};
    }
    if (rc == LENS_OK) rc = merge_links(d, f, R * F, e);
    /* nc_get_att_int converts any numeric type; a text attribute fails and leaves 0 */
    int att;
    /* the size and window say what a flow carried; informative, so absent is 0, not an error */
    if (rc == LENS_OK && nc_get_att_int(id, NC_GLOBAL, "size_bytes", &att) == NC_NOERR)
        d->size_bytes = att;
    if (rc == LENS_OK && nc_get_att_int(id, NC_GLOBAL, "window", &att) == NC_NOERR)
        d->window = att;
    lens_free(fs);
    lens_free(fr);
    lens_free(fb);
    lens_free(bw);
    lens_free(f);
    if (rc != LENS_OK || dn < 0)
        return rc; /* no node dimension: one rank per node, nothing shared to report */
    /* ---- per node: the bench writes these only when ranks share nodes ---- */
    if (N < 1 || N > P)
        return lens_err_set(e, LENS_EFORMAT, "%s: %zu nodes for %zu ranks", path, N, P);
    int *of = lens_malloc(P * sizeof *of);
    double *share = lens_malloc(R * N * sizeof *share), *nbps = lens_malloc(R * N * sizeof *nbps);
    char **names = lens_calloc(N, sizeof *names);
    d->nodes = lens_calloc(N, sizeof *d->nodes);
    if (!of || !share || !nbps || !names || !d->nodes)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    int drn[2] = {dr, dn};
    if (rc == LENS_OK) rc = get_i(id, path, "node_of_rank", 1, &dp, of, e);
    if (rc == LENS_OK) rc = get_d(id, path, "node_share", 2, drn, share, e);
    if (rc == LENS_OK) rc = get_d(id, path, "node_Bps", 2, drn, nbps, e);
    if (rc == LENS_OK) rc = get_names(id, path, "node_name", dn, dl, N, W, names, e);
    for (size_t x = 0; rc == LENS_OK && x < P; x++)
        if (of[x] < 0 || (size_t)of[x] >= N)
            rc = lens_err_set(e, LENS_EFORMAT, "%s: node_of_rank[%zu] = %d is not one of the %zu nodes", path, x,
                              of[x], N);
    /* node n's share in round r is share[r * N + n]: the (round, node) layout the bench wrote */
    if (rc == LENS_OK) {
        d->nnodes = (int)N;
        for (size_t n = 0; n < N; n++) {
            struct lens_bisection_node *o = &d->nodes[n];
            o->name = names[n];
            names[n] = NULL; /* owned by the node from here */
            o->share_min = INFINITY;
            o->share_max = -INFINITY;
            /* means over the rounds in round order, as the summary sums the CSV */
            for (size_t r = 0; r < R; r++) {
                double v = share[r * N + n];
                o->share_avg += v / (double)R;
                o->Bps_avg += nbps[r * N + n] / (double)R;
                o->share_min = fmin(o->share_min, v);
                o->share_max = fmax(o->share_max, v);
            }
        }
        /* ranks per node from node_of_rank (checked in range above), not from the names:
         * the bench numbers nodes by distinct host names, two nodes never share one */
        for (size_t x = 0; x < P; x++)
            d->nodes[of[x]].ranks++;
    }
    for (size_t n = 0; names && n < N; n++)
        lens_free(names[n]);
    lens_free(names);
    lens_free(of);
    lens_free(share);
    lens_free(nbps);
    return rc;
}

int lens_bisection_detail_read(const char *input, struct lens_bisection_detail **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_bisection_detail *d = lens_calloc(1, sizeof *d);
    if (!d)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
    int rc = lens_bisection_read(input, &d->run, e);
    if (rc == LENS_OK)
        rc = lens_bisection_summarise(d->run, &d->s, e);
    /* the .nc is the CSV's name with .nc for .csv: the bench writes both under one prefix */
    size_t n = d->run ? strlen(d->run->path) : 0;
    if (rc == LENS_OK && !(d->nc_path = lens_malloc(n + 1)))
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
    /* stat, not access: the probe is by name, and a missing .nc is the normal case of a CSV
     * copied alone, not an error */
    struct stat sb;
    if (rc == LENS_OK) {
        /* the reader built path as PREFIX_bisection.csv, so it ends in ".csv" */
        memcpy(d->nc_path, d->run->path, n - 3);
        strcpy(d->nc_path + n - 3, "nc");
        if (stat(d->nc_path, &sb) != 0) {
            /* a CSV alone (copied without its .nc) still has its slowest pair per round */
            lens_free(d->nc_path);
            d->nc_path = NULL;
            rc = links_from_csv(d, e);
        } else {
            /* through the guard: a damaged header must not make libnetcdf allocate gigabytes */
            int id;
            rc = lens_nc_guard_open(d->nc_path, &id, e);
            if (rc == LENS_OK) {
                rc = read_nc(d, id, e);
                nc_close(id);
            }
        }
    }
    if (rc != LENS_OK) {
        lens_bisection_detail_free(d);
        return rc;
    }
    *out = d;
    return LENS_OK;
}

/* Frees whatever a partial read left: the host array is zeroed at allocation (names not yet
 * read are NULL), and nnodes is set only once every node owns its name. */
void lens_bisection_detail_free(struct lens_bisection_detail *d)
{
    if (!d)
        return;
    for (int x = 0; d->hosts && x < d->nranks; x++)
        lens_free(d->hosts[x]);
    lens_free(d->hosts);
    for (int n = 0; n < d->nnodes; n++)
        lens_free(d->nodes[n].name);
    lens_free(d->nodes);
    lens_free(d->links);
    lens_free(d->nc_path);
    lens_bisection_free(d->run);
    lens_free(d);
}
