/* The NJ tree as a rooted phylogram. The unrooted tree becomes an undirected graph, is rooted
 * at the midpoint of its longest leaf-to-leaf path (or at its own root), then laid out:
 * x = distance from the root, leaves one per row in ladderized depth-first order, an inner
 * node half-way between its first and last child. Traversals use explicit stacks: a tree of
 * thousands of processes can be as deep as it is wide. */
#include "njtree.h"

#include "figure.h"
#include "treefig.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define DEG 4       /* neighbours per node in the graph: 3 in a tree of degree <= 3, + slack */
#define LABEL_CP 24 /* leaf labels longer than this many characters are cut with "…" */

void lens_njtree_opts_init(struct lens_njtree_opts *o)
{
    memset(o, 0, sizeof *o);
    o->unit = "\xc2\xb5s"; /* µs */
    o->scale = 1e6;
    o->root = LENS_NJTREE_MIDPOINT;
    o->width = 1000;
    o->height = 700;
}

/* The rooted layout: nodes of the tree plus one spare for a root inside an edge. */
struct rooted {
    int n, nn, root;   /* leaves, nodes (with the spare), root node */
    int *nb, *deg;     /* graph: nb[DEG * v + i], i < deg[v] */
    double *w;         /* edge lengths (negative ones as 0), parallel to nb */
    int *parent, *kids, *nkid; /* rooted: kids[DEG * v + i], i < nkid[v], ladderized */
    int *cnt, *minleaf;        /* leaves below, smallest leaf below */
    double *x, *y;             /* depth from the root (tree units), row (leaf units) */
    int *order;                /* leaves top to bottom */
    int *stack, *bfs;          /* scratch, nn each; bfs holds the nbfs nodes under the root */
    int nbfs;
    int negative;              /* branch lengths < 0 drawn as 0 */
};

static void rooted_free(struct rooted *r)
{
    lens_free(r->nb);
    lens_free(r->deg);
    lens_free(r->w);
    lens_free(r->parent);
    lens_free(r->kids);
    lens_free(r->nkid);
    lens_free(r->cnt);
    lens_free(r->minleaf);
    lens_free(r->x);
    lens_free(r->y);
    lens_free(r->order);
    lens_free(r->stack);
    lens_free(r->bfs);
    /* Zeroed so that a second free, or a free after a failed build, is harmless. */
    memset(r, 0, sizeof *r);
}

static void add_edge(struct rooted *r, int a, int b, double len)
{
    /* Both directions: the graph is undirected until a root is chosen. */
    r->nb[DEG * a + r->deg[a]] = b;
    r->w[DEG * a + r->deg[a]++] = len;
    r->nb[DEG * b + r->deg[b]] = a;
    r->w[DEG * b + r->deg[b]++] = len;
}

/* Builds the graph of t, checking that it is a tree whose nodes all hang from the root. */
static int build_graph(struct rooted *r, const struct lens_newick *t, const char *name,
                       struct lens_err *e)
{
    /* One node more than the tree: the spare that becomes the root when the midpoint lies
     * inside an edge. */
    int n = t->nleaf, nn = t->nnode + 1;
    r->n = n;
    r->nn = nn;
    /* DEG slots per node for neighbours, edge lengths and children: fixed-stride arrays, no
     * per-node allocation. */
    r->nb = lens_malloc((size_t)DEG * nn * sizeof *r->nb);
    r->w = lens_malloc((size_t)DEG * nn * sizeof *r->w);
    r->kids = lens_malloc((size_t)DEG * nn * sizeof *r->kids);
    r->deg = lens_calloc((size_t)nn, sizeof *r->deg);
    r->nkid = lens_calloc((size_t)nn, sizeof *r->nkid);
    r->parent = lens_malloc((size_t)nn * sizeof *r->parent);
    r->cnt = lens_malloc((size_t)nn * sizeof *r->cnt);
    r->minleaf = lens_malloc((size_t)nn * sizeof *r->minleaf);
    r->x = lens_malloc((size_t)nn * sizeof *r->x);
    r->y = lens_malloc((size_t)nn * sizeof *r->y);
    r->order = lens_malloc((size_t)n * sizeof *r->order);
    r->stack = lens_malloc((size_t)nn * sizeof *r->stack);
    r->bfs = lens_malloc((size_t)nn * sizeof *r->bfs);
    /* One check for all: the error path frees whatever was allocated through rooted_free. */
    if (!r->nb || !r->w || !r->kids || !r->deg || !r->nkid || !r->parent || !r->cnt || !r->minleaf ||
        !r->x || !r->y || !r->order || !r->stack || !r->bfs)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for a tree of %d leaves", name, n);
    int *seen = r->cnt; /* borrowed: parents found per node */
    memset(seen, 0, (size_t)nn * sizeof *seen);
    for (int u = n; u < t->nnode; u++) {
        int nc = 0;
        for (int c = 0; c < 3; c++) {
            int v = t->child[3 * (u - n) + c];
            if (v < 0)
                continue;
            /* The last node is the Newick root, which nothing may hang from; any other node has exactly
             * one parent, or the input is a graph, not a tree. */
            if (v >= t->nnode - 1 || seen[v]++)
                return lens_err_set(e, LENS_EINVAL, "%s: node %d has a child %d that is the root, "
                                    "out of range or shared", name, u, v);
            if (!isfinite(t->len[v]))
                return lens_err_set(e, LENS_EINVAL, "%s: branch to node %d has length %g", name, v, t->len[v]);
            /* NJ can yield negative branch lengths; they are drawn as 0 and the legend counts them. */
            r->negative += t->len[v] < 0;
            add_edge(r, u, v, t->len[v] > 0 ? t->len[v] : 0.0);
            nc++;
        }
        if (nc == 0)
            return lens_err_set(e, LENS_EINVAL, "%s: inner node %d has no children", name, u);
    }
    /* Every node but the root hangs from one: together with the check above, a tree. */
    for (int v = 0; v < t->nnode - 1; v++)
        if (!seen[v])
            return lens_err_set(e, LENS_EINVAL, "%s: node %d hangs from no other node", name, v);
    return LENS_OK;
}

/* Distances from src over the graph (into r->x) and parents (into r->parent); returns the
 * farthest leaf, the smallest numbered among equals. */
static int farthest_leaf(struct rooted *r, int src)
{
    int top = 0, best = src;
    for (int v = 0; v < r->nn; v++)
        r->parent[v] = -2;
    r->parent[src] = -1;
    r->x[src] = 0.0;
    /* depth first with an explicit stack: a caterpillar tree of thousands of leaves would
     * overflow a recursive walk; -2 above marks nodes not reached yet */
    r->stack[top++] = src;
    while (top > 0) {
        int u = r->stack[--top];
        /* Every neighbour not yet reached gets its distance from src along the edge. */
        for (int i = 0; i < r->deg[u]; i++) {
            int v = r->nb[DEG * u + i];
            if (r->parent[v] != -2)
                continue;
            r->parent[v] = u;
            r->x[v] = r->x[u] + r->w[DEG * u + i];
            r->stack[top++] = v;
        }
    }
    /* Leaves only: the longest path runs between two leaves. */
    for (int v = 0; v < r->n; v++)
        /* Ties to the smallest leaf number: the root, and so the picture, does not depend on the order
         * the graph was built in. */
        if (r->x[v] > r->x[best] || (r->x[v] == r->x[best] && v < best))
            best = v;
    return best;
}

/* Replaces edge a-b by a-s-b with lengths la and lb. */
static void split_edge(struct rooted *r, int a, int b, int s, double la, double lb)
{
    /* The edge a-b appears in both adjacency lists; both entries now point at the spare node s. */
    for (int i = 0; i < r->deg[a]; i++)
        if (r->nb[DEG * a + i] == b) {
            r->nb[DEG * a + i] = s;
            r->w[DEG * a + i] = la;
        }
    for (int i = 0; i < r->deg[b]; i++)
        if (r->nb[DEG * b + i] == a) {
            r->nb[DEG * b + i] = s;
            r->w[DEG * b + i] = lb;
        }
    /* The spare node s gets exactly the two halves of the edge. */
    r->nb[DEG * s] = a;
    r->w[DEG * s] = la;
    r->nb[DEG * s + 1] = b;
    r->w[DEG * s + 1] = lb;
    r->deg[s] = 2;
}

/* The midpoint of the longest path b..c: a node when it falls on one, else the spare node
 * inserted into the edge that holds it. */
static int midpoint_root(struct rooted *r, int as_built)
{
    if (r->n < 2)
        return as_built;
    int b = farthest_leaf(r, 0);
    int c = farthest_leaf(r, b); /* x and parent are now from b */
    /* Two sweeps find the longest leaf-to-leaf path b..c (true for trees with lengths >= 0); its
     * midpoint is the root. */
    double half = r->x[c] / 2;
    /* All lengths 0: no midpoint to speak of, keep the tree's own root. */
    if (!(half > 0))
        return as_built;
    int v = c;
    /* Up from c towards b until the edge u-v holds the midpoint. */
    while (r->parent[v] >= 0 && r->x[r->parent[v]] >= half)
        v = r->parent[v];
    int u = r->parent[v];
    /* The midpoint on an inner node (within rounding): root there, no spare needed; a leaf
     * can never be the root of a phylogram. */
    if (r->x[v] - half <= 1e-12 * half && v >= r->n)
        return v;
    split_edge(r, u, v, r->nn - 1, half - r->x[u], r->x[v] - half);
    return r->nn - 1;
}

/* Roots the graph at r->root: parents, depths, leaf counts, ladderized children, rows. */
static void lay_out(struct rooted *r)
{
    int nbfs = 0, root = r->root, *bfs = r->bfs;
    for (int v = 0; v < r->nn; v++) {
        r->parent[v] = -2;
        r->nkid[v] = 0;
    }
    /* breadth first: every parent comes before its children in bfs[] */
    r->parent[root] = -1;
    r->x[root] = 0.0;
    bfs[nbfs++] = root;
    for (int q = 0; q < nbfs; q++) {
        int u = bfs[q];
        /* Neighbours not yet reached become children, in adjacency order; ladderizing sorts them. */
        for (int i = 0; i < r->deg[u]; i++) {
            int v = r->nb[DEG * u + i];
            if (r->parent[v] != -2)
                continue;
            r->parent[v] = u;
            r->x[v] = r->x[u] + r->w[DEG * u + i];
            r->kids[DEG * u + r->nkid[u]++] = v;
            bfs[nbfs++] = v;
        }
    }
    /* leaf counts and smallest leaves, children first */
    for (int q = nbfs - 1; q >= 0; q--) {
        int u = bfs[q], *k = &r->kids[DEG * u];
        /* A leaf counts itself; an inner node sums its children (all later in bfs order, so done). */
        r->cnt[u] = u < r->n;
        r->minleaf[u] = u < r->n ? u : r->nn;
        for (int i = 0; i < r->nkid[u]; i++) {
            r->cnt[u] += r->cnt[k[i]];
            if (r->minleaf[k[i]] < r->minleaf[u])
                r->minleaf[u] = r->minleaf[k[i]];
        }
        /* ladderize: insertion sort of at most DEG children, smaller subtrees first (ties by
         * their smallest leaf), so the picture is the same for the same tree however the
         * Newick text ordered its children */
        for (int i = 1; i < r->nkid[u]; i++)
            for (int j = i; j > 0; j--) {
                int a = k[j - 1], b = k[j];
                if (r->cnt[a] < r->cnt[b] || (r->cnt[a] == r->cnt[b] && r->minleaf[a] < r->minleaf[b]))
                    break;
                k[j - 1] = b;
                k[j] = a;
            }
    }
    /* leaf rows depth first, first child on top */
    int top = 0, nl = 0;
    /* Children pushed last-first so that the first child is popped first and lands on top. */
    r->stack[top++] = root;
    while (top > 0) {
        int u = r->stack[--top];
        if (u < r->n) {
            r->y[u] = nl;
            r->order[nl++] = u;
        }
        for (int i = r->nkid[u] - 1; i >= 0; i--)
            r->stack[top++] = r->kids[DEG * u + i];
    }
    r->nbfs = nbfs;
    /* an inner node half-way between its first and last child, children first */
    for (int q = nbfs - 1; q >= 0; q--) {
        int u = bfs[q];
        if (r->nkid[u] > 0)
            r->y[u] = (r->y[r->kids[DEG * u]] + r->y[r->kids[DEG * u + r->nkid[u] - 1]]) / 2;
    }
}

/* Graph, root (midpoint or as built), then the layout; any shape that is not a tree is
 * refused here, before anything is drawn. */
static int rooted_build(struct rooted *r, const struct lens_newick *t, int root_mode,
                        const char *name, struct lens_err *e)
{
    memset(r, 0, sizeof *r);
    /* 2^25 nodes keeps the DEG x nodes arrays inside int indices. */
    if (!t || t->nleaf < 1 || t->nnode < t->nleaf || t->nnode > (1 << 25))
        return lens_err_set(e, LENS_EINVAL, "%s: no tree to draw", name);
    if (root_mode != LENS_NJTREE_MIDPOINT && root_mode != LENS_NJTREE_AS_BUILT)
        return lens_err_set(e, LENS_EINVAL, "%s: unknown root choice %d", name, root_mode);
    int rc = build_graph(r, t, name, e);
    if (rc)
        return rc;
    /* The Newick root is the last node: NJ's last join. */
    int as_built = t->nnode - 1;
    r->root = root_mode == LENS_NJTREE_MIDPOINT ? midpoint_root(r, as_built) : as_built;
    /* every node must be reachable from the root: a cycle or a second component is not a tree */
    lay_out(r);
    for (int v = 0; v < t->nnode; v++)
        if (r->parent[v] == -2)
            return lens_err_set(e, LENS_EINVAL, "%s: node %d is not connected to the root", name, v);
    return LENS_OK;
}

/* The leaves top to bottom as the figure draws them: the report's tables follow this order. */
int lens_njtree_leaf_order(const struct lens_newick *t, int root, int *order, struct lens_err *e)
{
    struct rooted r;
    int rc = rooted_build(&r, t, root, "tree", e);
    if (rc == LENS_OK)
        memcpy(order, r.order, (size_t)t->nleaf * sizeof *order);
    rooted_free(&r);
    return rc;
}

/* ---- the figure ---- */

struct nfig {
    const struct lens_newick *t;
    const struct lens_njtree_opts *o;
    const char *name;
    struct rooted r;
    int *grp; /* group of every node: the group all its leaves share, or -1 */
    cairo_font_face_t *face; /* the canvas's, borrowed */
};

static void nfig_release(struct nfig *f)
{
    rooted_free(&f->r);
    lens_free(f->grp);
    f->grp = NULL;
}

static const char *leaf_text(const struct nfig *f, int leaf, int full, char *buf, size_t n)
{
    const char *s = f->o->labels ? f->o->labels[leaf] : f->t->labels ? f->t->labels[leaf] : NULL;
    if (full && s)
        lens_figure_ellipsize(s, LABEL_CP, buf, n);
    else
        snprintf(buf, n, "%d", leaf);
    return buf;
}

/* Groups of inner nodes, children first (bfs backwards). */
static int nfig_groups(struct nfig *f, struct lens_err *e)
{
    struct rooted *r = &f->r;
    f->grp = lens_malloc((size_t)r->nn * sizeof *f->grp);
    if (!f->grp)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", f->name);
    for (int v = 0; v < r->nn; v++)
        /* Leaves take their host group; an inner node keeps a group only when all its leaves share it,
         * so that a subtree of one host is drawn in that host's colour. */
        f->grp[v] = v < r->n && f->o->group && f->o->group[v] >= 0 ? f->o->group[v] : -1;
    for (int q = r->nbfs - 1; q >= 0; q--) {
        int u = r->bfs[q];
        if (r->nkid[u] == 0)
            continue;
        int g = f->grp[r->kids[DEG * u]];
        for (int i = 1; i < r->nkid[u]; i++)
            if (f->grp[r->kids[DEG * u + i]] != g)
                g = -1;
        f->grp[u] = g;
    }
    return LENS_OK;
}

struct nlayout {
    double fs, lab_fs, lw;
    double px, py, pw, ph; /* x = px at the root, px + pw at the deepest leaf */
    double maxx;           /* deepest leaf, tree units */
    double legend_y, bar_y;
    int step, full;
};

/* Title and legend on top, the scale bar below, leaf labels right of the deepest leaf. */
static int nfig_layout(struct nfig *f, cairo_t *cr, double w, double h, struct nlayout *L,
                       struct lens_err *e)
{
    const struct rooted *r = &f->r;
    int n = r->n;
    memset(L, 0, sizeof *L);
    double fs = fmin(w, h) / 55.0;
    fs = fs < 7 ? 7 : fs > 13 ? 13 : fs;
    /* For print the smallest labels (0.85 fs) keep the print floor (figure.h). */
    fs = fmax(fs, lens_figure_font_floor(cr, 0) / 0.85);
    L->fs = fs;
    double pad = fs;
    for (int v = 0; v < n; v++)
        L->maxx = fmax(L->maxx, r->x[v]);
    /* A long title wraps: every line past the first moves the legend and tree down. */
    int tl = 1;
    if (f->o->title) {
        lens_figure_set_font(cr, f->face, fs * 1.25);
        tl = lens_figure_text_wrap(NULL, cr, w / 2, fs, f->o->title, w - 2 * pad, 0.5, 0);
        tl = tl < 1 ? 1 : tl;
    }
    L->legend_y = pad + (f->o->title ? fs * 1.25 * (1.5 + 1.2 * (tl - 1)) : 0);
    /* One legend line under the title, then the tree; the scale bar below it. */
    double top = L->legend_y + fs * 1.8 + fs * 0.4;
    double bottom = pad + fs * 2.6; /* scale bar and its label */
    L->py = top;
    L->ph = h - top - bottom;
    if (L->ph < 40)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for the tree", f->name, w, h);
    /* Leaves are one per row: the row height decides the label size, as in the dendrogram. */
    double sp = L->ph / n;
    L->lab_fs = fmin(fs * 0.85, fmax(6.0, sp / 1.15));
    L->step = lens_treefig_label_step(n, sp, L->lab_fs);
    L->full = (f->o->labels || f->t->labels) && n <= LENS_TREEFIG_FULL_LABELS && L->step == 1;
    L->lw = fmin(1.5, fmax(0.3, sp * 0.3));
    lens_figure_set_font(cr, f->face, L->lab_fs);
    double lab_w = 0;
    char buf[128];
    for (int i = 0; i < n; i += L->step)
        lab_w = fmax(lab_w, lens_figure_text_width(cr, leaf_text(f, r->order[i], L->full, buf, sizeof buf)));
    /* Labels take at most 30% of the width: the branch lengths are the point of a phylogram. */
    lab_w = fmin(lab_w, 0.3 * w);
    L->px = pad * 1.5;
    L->pw = w - L->px - pad - fs * 0.4 - lab_w;
    if (L->pw < 40)
        return lens_err_set(e, LENS_EINVAL, "%s: figure %.0fx%.0f too small for the tree", f->name, w, h);
    L->bar_y = h - pad - fs * 1.6;
    return LENS_OK;
}

static double nx(const struct nlayout *L, double x)
{
    /* Depth from the root across: the deepest leaf at the right end of the plot. */
    return L->px + (L->maxx > 0 ? L->pw * x / L->maxx : 0.0);
}
static double ny(const struct nlayout *L, int n, double row) { return L->py + L->ph * (row + 0.5) / n; }

static void set_group_rgb(cairo_t *cr, int g, double darken)
{
    double rgb[3];
    if (g < 0)
        lens_treefig_color_none(rgb);
    else
        lens_treefig_color(g, rgb);
    cairo_set_source_rgb(cr, rgb[0] * darken, rgb[1] * darken, rgb[2] * darken);
}

/* Rectangular phylogram: a horizontal line per branch (its length), a vertical one joining
 * an inner node's children. */
static void draw_branches(const struct nfig *f, const struct nlayout *L, cairo_t *cr)
{
    const struct rooted *r = &f->r;
    cairo_set_line_width(cr, L->lw);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_SQUARE);
    for (int v = 0; v < r->nn; v++) {
        int u = r->parent[v];
        if (u >= 0) { /* the branch to v, horizontal */
            set_group_rgb(cr, f->grp[v], 1.0);
            cairo_move_to(cr, nx(L, r->x[u]), ny(L, r->n, r->y[v]));
            cairo_line_to(cr, nx(L, r->x[v]), ny(L, r->n, r->y[v]));
            cairo_stroke(cr);
        }
        if (u >= -1 && r->nkid[v] > 1) { /* v's children, vertical */
            set_group_rgb(cr, f->grp[v], 1.0);
            cairo_move_to(cr, nx(L, r->x[v]), ny(L, r->n, r->y[r->kids[DEG * v]]));
            cairo_line_to(cr, nx(L, r->x[v]), ny(L, r->n, r->y[r->kids[DEG * v + r->nkid[v] - 1]]));
            cairo_stroke(cr);
        }
    }
}

static void draw_labels(const struct nfig *f, const struct nlayout *L, cairo_t *cr,
                        struct lens_figure_text *log)
{
    const struct rooted *r = &f->r;
    char buf[128];
    lens_figure_set_font(cr, f->face, L->lab_fs);
    for (int i = 0; i < r->n; i += L->step) {
        int leaf = r->order[i];
        if (f->grp[leaf] >= 0)
            set_group_rgb(cr, f->grp[leaf], 0.72);
        else
            cairo_set_source_rgb(cr, 0, 0, 0);
        lens_figure_label(log, cr, nx(L, r->x[leaf]) + L->fs * 0.4, ny(L, r->n, i),
                           leaf_text(f, leaf, L->full, buf, sizeof buf), 0.0, 0.5, 0.0);
    }
}

/* A bar of a round length near a fifth of the deepest leaf, at the bottom left. */
static void draw_scale_bar(const struct nfig *f, const struct nlayout *L, cairo_t *cr,
                           struct lens_figure_text *log)
{
    double shown = L->maxx * f->o->scale;
    if (!(shown > 0))
        return;
    /* A 1, 2 or 5 x 10^k length near a fifth of the tree's depth: long enough to measure against. */
    double raw = shown / 5, mag = pow(10.0, floor(log10(raw))), m = raw / mag;
    double len = (m >= 5 ? 5 : m >= 2 ? 2 : 1) * mag;
    double x0 = L->px, x1 = nx(L, len / f->o->scale), y = L->bar_y, tk = L->fs * 0.3;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1.2);
    cairo_move_to(cr, x0, y - tk);
    cairo_line_to(cr, x0, y + tk);
    cairo_move_to(cr, x0, y);
    cairo_line_to(cr, x1, y);
    cairo_move_to(cr, x1, y - tk);
    cairo_line_to(cr, x1, y + tk);
    cairo_stroke(cr);
    char buf[64];
    snprintf(buf, sizeof buf, "%g%s%s", len, f->o->unit ? " " : "", f->o->unit ? f->o->unit : "");
    lens_figure_set_font(cr, f->face, L->fs * 0.9);
    lens_figure_label(log, cr, x1 + L->fs * 0.5, y, buf, 0.0, 0.5, 0.0);
}

/* Title and one legend line: method, how the tree is rooted, negative lengths drawn as 0. */
static void draw_header(const struct nfig *f, const struct nlayout *L, cairo_t *cr, double w,
                        struct lens_figure_text *log)
{
    const struct lens_njtree_opts *o = f->o;
    double fs = L->fs;
    char buf[512];
    cairo_set_source_rgb(cr, 0, 0, 0);
    if (o->title) {
        lens_figure_set_font(cr, f->face, fs * 1.25);
        lens_figure_text_wrap(log, cr, w / 2, fs, o->title, w - 2 * fs, 0.5, 1);
    }
    int p = snprintf(buf, sizeof buf, "neighbor joining, %d processes  \xc2\xb7  %s", f->r.n,
                     o->root == LENS_NJTREE_MIDPOINT ? "rooted at the midpoint of the longest path"
                                                     : "drawn from the last join");
    if (f->r.negative > 0 && p > 0 && p < (int)sizeof buf)
        snprintf(buf + p, sizeof buf - (size_t)p, "  \xc2\xb7  %d negative branch length%s drawn as 0",
                 f->r.negative, f->r.negative == 1 ? "" : "s");
    lens_figure_set_font(cr, f->face, fs);
    lens_figure_label(log, cr, L->px, L->legend_y + fs * 0.9, buf, 0.0, 0.5, 0.0);
}

/* paint of the figure protocol: data is the caller's struct nfig (arguments only), copied
 * so that the rooted tree and the groups belong to this one painting. */
static int nfig_paint(const void *data, const struct lens_figure_canvas *c, struct lens_err *e)
{
    struct nfig f = *(const struct nfig *)data;
    cairo_t *cr = c->cr;
    f.name = c->name;
    f.face = c->face;
    int rc = rooted_build(&f.r, f.t, f.o->root, f.name, e);
    if (rc == LENS_OK)
        rc = nfig_groups(&f, e);
    struct nlayout L;
    if (rc == LENS_OK)
        rc = nfig_layout(&f, cr, c->w, c->h, &L, e);
    if (rc == LENS_OK) {
        /* branches under the labels, the header last so that nothing covers it */
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_rectangle(cr, 0, 0, c->w, c->h);
        cairo_fill(cr);
        draw_branches(&f, &L, cr);
        draw_labels(&f, &L, cr, c->text);
        draw_scale_bar(&f, &L, cr, c->text);
        draw_header(&f, &L, cr, c->w, c->text);
    }
    nfig_release(&f);
    return rc;
}

/* check of the figure protocol: a tree with leaves to draw, and a usable scale. */
static int nfig_check(const void *data, const char *name, struct lens_err *e)
{
    const struct nfig *f = data;
    if (!f->t || f->t->nleaf < 2)
        return lens_err_set(e, LENS_EINVAL, "%s: a tree picture needs at least 2 leaves", name);
    if (!(f->o->scale > 0.0) || !isfinite(f->o->scale))
        return lens_err_set(e, LENS_EINVAL, "%s: scale must be finite and > 0 (got %g)", name, f->o->scale);
    return LENS_OK;
}

/* Files and PNG bytes also keep to the size rule of the tree figures. */
static int nfig_check_file(const void *data, const char *name, struct lens_err *e)
{
    const struct nfig *f = data;
    int rc = nfig_check(data, name, e);
    return rc ? rc : lens_treefig_check_size(name, f->o->width, f->o->height, e);
}

static void nfig_size(const void *data, double *w, double *h)
{
    const struct nfig *f = data;
    *w = f->o->width;
    *h = f->o->height;
}

static const struct lens_figure_kind njtree_kind = {"nj tree", LENS_FIGURE_TEXT, nfig_check_file, nfig_size,
                                                    nfig_paint};
static const struct lens_figure_kind njtree_box_kind = {"nj tree", 0, nfig_check, nfig_size, nfig_paint};

/* The figure's data: the arguments, with o NULL replaced by the defaults in *def. */
static struct lens_figure nfig_init(struct nfig *f, const struct lens_newick *t, const struct lens_njtree_opts *o,
                                    struct lens_njtree_opts *def, const struct lens_figure_kind *k)
{
    memset(f, 0, sizeof *f);
    if (!o) {
        lens_njtree_opts_init(def);
        o = def;
    }
    f->t = t;
    f->o = o;
    return (struct lens_figure){.kind = k, .data = f, .font_path = o->font_path, .title = o->title};
}

int lens_njtree_draw(cairo_t *cr, double x, double y, double w, double h,
                     const struct lens_newick *t, const struct lens_njtree_opts *o,
                     struct lens_err *e)
{
    struct nfig f;
    struct lens_njtree_opts def;
    struct lens_figure fig = nfig_init(&f, t, o, &def, &njtree_box_kind);
    /* the data first, then the box, as the messages have always come */
    int rc = nfig_check(&f, "nj tree", e);
    if (rc == LENS_OK)
        rc = lens_treefig_check_box("nj tree", w, h, e);
    return rc ? rc : lens_figure_draw(&fig, cr, x, y, w, h, e);
}

int lens_njtree_write(const struct lens_newick *t, const struct lens_njtree_opts *o,
                      const char *path, struct lens_err *e)
{
    struct nfig f;
    struct lens_njtree_opts def;
    struct lens_figure fig = nfig_init(&f, t, o, &def, &njtree_kind);
    return lens_figure_render(&fig, path, NULL, NULL, e);
}

int lens_njtree_png_mem(const struct lens_newick *t, const struct lens_njtree_opts *o,
                        unsigned char **buf, size_t *len, struct lens_err *e)
{
    struct nfig f;
    struct lens_njtree_opts def;
    struct lens_figure fig = nfig_init(&f, t, o, &def, &njtree_kind);
    return lens_figure_render(&fig, NULL, buf, len, e);
}
