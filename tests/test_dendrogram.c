/* Tests for render/fig/dendrogram.c, render/fig/njtree.c and render/fig/treefig.c: cuts of a hand-worked
 * linkage, the midpoint root and ladderized order of a hand-made tree, the reordered heatmap
 * against the plain one pixel for pixel, figure sizes and byte-identical output, drawing into
 * a box of a larger surface, every error path (nothing left behind) and every allocation
 * failure. The leaf order against scipy is in tests/test_trees_cli.sh. */
#include "analysis/structure/distmat.h"
#include "analysis/structure/hclust.h"
#include "analysis/structure/nj.h"
#include "analysis/structure/structure.h"
#include "render/fig/dendrogram.h"
#include "render/fig/figure.h"
#include "render/fig/njtree.h"
#include "render/fig/treefig.h"
#include "lens_test.h"
#include "lens_scratch.h"

#include <cairo.h>
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FONT "fonts/DejaVuSans.ttf"

/* fontconfig (behind cairo's "sans") keeps its configuration to the end of the process */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libfontconfig.so\n"; }

static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, fp) != (size_t)n) {
        free(b);
        b = NULL;
    }
    if (b)
        b[n] = '\0';
    fclose(fp);
    *len = (size_t)n;
    return b;
}

/* A deterministic generator so that inputs are high-entropy but reproducible. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Condensed Euclidean distances (seconds scale) of n random points in 5 dimensions, in
 * 4 loose groups so that the trees have structure. */
static double *random_points(int n)
{
    double (*p)[5] = malloc((size_t)n * sizeof *p);
    double *d = malloc(lens_distmat_pairs(n) * sizeof *d);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 5; k++)
            p[i][k] = (i % 4 == k ? 3.1 : 0.0) + uniform();
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double s = 0;
            for (int k = 0; k < 5; k++)
                s += (p[i][k] - p[j][k]) * (p[i][k] - p[j][k]);
            d[lens_distmat_index(n, i, j)] = sqrt(s) * 1e-6;
        }
    free(p);
    return d;
}

/* ---- cuts ---- */

static void test_cuts(void)
{
    struct lens_err e = {0};
    /* 5 leaves: ((0,3) 0.37, ((1,4) 0.52, ...)). Worked by hand: after 2 merges the groups
     * {0,3} and {1,4} have inside heights 0.37 and 0.52 (median 0.445) and the next merge is
     * at 2.91: ratio 6.54, the best (after 1 merge 0.52/0.37 = 1.41; after 3, groups {0,3} and
     * {1,2,4}, median (0.37 + 2.91)/2, next 3.44: 2.10) */
    const struct lens_hclust_step z[4] = {{0, 3, 0.37, 2}, {1, 4, 0.52, 2}, {2, 6, 2.91, 3}, {5, 7, 3.44, 5}};
    int k = -1;
    struct lens_hclust_autocut ac;
    LENS_TEST(lens_hclust_cut_auto(z, 5, &ac, &e) == LENS_OK && ac.k == 3, "auto cut k=%d, want 3", ac.k);
    LENS_TEST_REL(ac.ratio, 2.91 / 0.445, 1e-12, "auto cut ratio");
    LENS_TEST_REL(ac.low, 0.445, 1e-12, "auto cut inside height");
    LENS_TEST_REL(ac.high, 2.91, 1e-12, "auto cut next merge");
    LENS_TEST_REL(lens_dendrogram_cut_level(z, 5, 3), (0.52 + 2.91) / 2, 1e-12, "cut level k=3");
    LENS_TEST_REL(lens_dendrogram_cut_level(z, 5, 5), 0.37 / 2, 1e-12, "cut level k=n");
    LENS_TEST_REL(lens_dendrogram_cut_level(z, 5, 1), 3.44, 1e-12, "cut level k=1");
    static const double hs[6] = {-1, 0.37, 0.4, 2.91, 3.0, 100};
    static const int ks[6] = {5, 4, 4, 2, 2, 1};
    for (int i = 0; i < 6; i++) {
        LENS_TEST(lens_structure_cut_height(z, 5, hs[i], &k, &e) == LENS_OK && k == ks[i],
                  "cut at %g: k=%d want %d", hs[i], k, ks[i]);
    }
    LENS_TEST(lens_structure_cut_height(z, 5, NAN, &k, &e) == LENS_EINVAL, "NaN height");
    /* a chain 1.25, 2.25, 3.25, 4.25: ratios 2.25/1.25 = 1.8 (k=4), 3.25/1.75 = 1.86 (k=3),
     * 4.25/2.75 = 1.55 (k=2): k = 3 */
    const struct lens_hclust_step eq[4] = {{0, 1, 1.25, 2}, {2, 3, 2.25, 2}, {4, 5, 3.25, 3}, {6, 7, 4.25, 5}};
    LENS_TEST(lens_hclust_cut_auto(eq, 5, &ac, &e) == LENS_OK && ac.k == 3, "chain k=%d", ac.k);
    /* one flat level: no step reaches 1.5x, one group */
    const struct lens_hclust_step flat[3] = {{0, 1, 1.0, 2}, {2, 3, 1.05, 2}, {4, 5, 1.2, 4}};
    LENS_TEST(lens_hclust_cut_auto(flat, 4, &ac, &e) == LENS_OK && ac.k == 1, "flat k=%d", ac.k);
    const struct lens_hclust_step two[1] = {{0, 1, 0.5, 2}};
    LENS_TEST(lens_hclust_cut_auto(two, 2, &ac, &e) == LENS_OK && ac.k == 1, "n=2 k=%d", ac.k);
    LENS_TEST(lens_hclust_cut_auto(z, 1, &ac, &e) == LENS_EINVAL, "n=1");
}

static void test_labels(void)
{
    char b[64];
    static const char *const in[7] = {"r17@node03", "r5", "abc", NULL, "r@x", "r12@", "r0@узел-Ж"};
    static const char *const want[7] = {"node03:17", "5", "abc", "6", "r@x", "r12@", "узел-Ж:0"};
    for (int i = 0; i < 7; i++) {
        lens_treefig_leaf_label(in[i], i + 3, b, sizeof b);
        LENS_TEST(!strcmp(b, want[i]), "leaf label of %s: '%s' want '%s'", in[i] ? in[i] : "NULL", b, want[i]);
    }
    static const char *const hl[6] = {"r0@b", "r1@a", "r2@b", "r3@c", "r4@a", "r5@c"};
    /* numbered by the sorted host names (a=0, b=1, c=2), not by first appearance (b would be 0) */
    int g[6], wg[6] = {1, 0, 1, 2, 0, 2};
    struct lens_err e = {0};
    LENS_TEST(lens_treefig_host_groups(hl, 6, g, &e) == 3, "3 hosts");
    LENS_TEST(!memcmp(g, wg, sizeof g), "host groups");
    static const char *const nohost[2] = {"r0@b", "r1"};
    LENS_TEST(lens_treefig_host_groups(nohost, 2, g, &e) == 0, "a label without host");
    LENS_TEST(lens_treefig_label_step(32, 27.3, 11.05) == 1, "step 1");
    LENS_TEST(lens_treefig_label_step(200, 4.55, 6) == 2, "step 2");
    LENS_TEST(lens_treefig_label_step(4000, 0.23, 6) == 50, "step 50, got %d", lens_treefig_label_step(4000, 0.23, 6));
    LENS_TEST(lens_treefig_format("a/B.PNG", &e) == LENS_TREEFIG_PNG, "PNG");
    LENS_TEST(lens_treefig_format("b.svg", &e) == LENS_TREEFIG_SVG, "svg");
    LENS_TEST(lens_treefig_format("x.svg/c", &e) == LENS_EINVAL && strstr(e.msg, "x.svg/c"), "no extension: %s", e.msg);
    LENS_TEST(lens_treefig_format("c.jpg", &e) == LENS_EINVAL, "jpg");
}

static void test_permute(void)
{
    const double a[9] = {0.0, 1.7, 2.9, 1.7, 0.0, 4.3, 2.9, 4.3, 0.0};
    const int order[3] = {2, 0, 1};
    double out[9];
    lens_dendrogram_permute(a, 3, order, out);
    const double want[9] = {0.0, 2.9, 4.3, 2.9, 0.0, 1.7, 4.3, 1.7, 0.0};
    LENS_TEST(!memcmp(out, want, sizeof want), "permuted matrix");
}

/* ---- NJ tree rooting and order ---- */

/* Root 7 of degree 3: A(0):1, node5:1 = (B(1):1, C(2):2), node6:10 = (D(3):1, E(4):8).
 * Longest path E..C = 21; its midpoint lies 2.5 above node6 on the branch to the root. */
static struct lens_newick *hand_tree(void)
{
    struct lens_newick *t;
    struct lens_err e = {0};
    if (lens_newick_new(&t, 5, 3, &e))
        return NULL;
    int *c = t->child;
    c[0] = 1, c[1] = 2;         /* node 5 */
    c[3] = 3, c[4] = 4;         /* node 6 */
    c[6] = 0, c[7] = 5, c[8] = 6; /* root 7 */
    const double len[8] = {1, 1, 2, 1, 8, 1, 10, 0};
    memcpy(t->len, len, sizeof len);
    return t;
}

static void test_njtree_order(void)
{
    struct lens_err e = {0};
    struct lens_newick *t = hand_tree();
    int order[5];
    LENS_TEST(lens_njtree_leaf_order(t, LENS_NJTREE_MIDPOINT, order, &e) == LENS_OK, "%s", e.msg);
    const int mid[5] = {3, 4, 0, 1, 2}, built[5] = {0, 1, 2, 3, 4};
    LENS_TEST(!memcmp(order, mid, sizeof mid), "midpoint order %d %d %d %d %d", order[0], order[1], order[2],
              order[3], order[4]);
    LENS_TEST(lens_njtree_leaf_order(t, LENS_NJTREE_AS_BUILT, order, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(!memcmp(order, built, sizeof built), "as-built order");
    /* D's branch 1 -> 30: the longest path is D..C = 43, its midpoint 21.5 from D inside D's
     * branch; D hangs alone under the root, then node6 with E before root 7's three leaves */
    t->len[3] = 30;
    LENS_TEST(lens_njtree_leaf_order(t, LENS_NJTREE_MIDPOINT, order, &e) == LENS_OK, "%s", e.msg);
    const int mid2[5] = {3, 4, 0, 1, 2};
    LENS_TEST(!memcmp(order, mid2, sizeof mid2), "midpoint in a leaf branch: %d %d %d %d %d", order[0],
              order[1], order[2], order[3], order[4]);
    /* not a tree: node 6 also child of node 5 */
    t->child[2] = 6;
    LENS_TEST(lens_njtree_leaf_order(t, LENS_NJTREE_MIDPOINT, order, &e) == LENS_EINVAL && strstr(e.msg, "shared"),
              "shared child: %s", e.msg);
    t->child[2] = -1;
    t->len[4] = NAN;
    LENS_TEST(lens_njtree_leaf_order(t, LENS_NJTREE_MIDPOINT, order, &e) == LENS_EINVAL, "NaN length");
    t->len[4] = 8;
    LENS_TEST(lens_njtree_leaf_order(t, 7, order, &e) == LENS_EINVAL, "bad root mode");
    lens_newick_free(t);
}

/* NJ on 4 groups of random points: every group comes out contiguous in the drawn order. */
static void test_njtree_groups(void)
{
    struct lens_err e = {0};
    int n = 36, order[36];
    double *d = random_points(n);
    struct lens_newick *t = NULL;
    LENS_TEST(lens_nj_run(d, n, LENS_NJ_FAST, &t, &e) == LENS_OK, "%s", e.msg);
    for (int root = 0; root < 2 && t; root++) {
        LENS_TEST(lens_njtree_leaf_order(t, root, order, &e) == LENS_OK, "%s", e.msg);
        int changes = 0;
        for (int i = 1; i < n; i++)
            changes += order[i] % 4 != order[i - 1] % 4;
        LENS_TEST(changes == 3, "root %d: groups not contiguous (%d changes)", root, changes);
    }
    lens_newick_free(t);
    free(d);
}

/* ---- figures ---- */

struct membuf {
    const unsigned char *p;
    size_t len, pos;
};

static cairo_status_t mem_read(void *closure, unsigned char *data, unsigned int len)
{
    struct membuf *m = closure;
    if (m->pos + len > m->len)
        return CAIRO_STATUS_READ_ERROR;
    memcpy(data, m->p + m->pos, len);
    m->pos += len;
    return CAIRO_STATUS_SUCCESS;
}

static cairo_surface_t *decode(const unsigned char *buf, size_t len)
{
    struct membuf m = {buf, len, 0};
    return cairo_image_surface_create_from_png_stream(mem_read, &m);
}

static uint32_t pixel(cairo_surface_t *s, double x, double y)
{
    const unsigned char *d = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    return ((const uint32_t *)(const void *)(d + (size_t)(int)y * stride))[(int)x] & 0xffffffu;
}

/* The figure's inputs as the structure pipeline gives them: the leaf order and the k
 * clusters of the cut (k <= 40). */
static int tree_order[40], tree_cluster[40];
static void tree_inputs(struct lens_dendrogram_opts *o, const struct lens_hclust_step *z, int n, int k)
{
    struct lens_err e = {0};
    LENS_TEST(lens_hclust_leaf_order(z, n, tree_order, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(k < 1 || lens_hclust_cut(z, n, k, tree_cluster, &e) == LENS_OK, "%s", e.msg);
    o->order = tree_order;
    o->k = k;
    o->cluster = tree_cluster;
}

static void test_png(const struct lens_hclust_step *z, int n, const struct lens_newick *t,
                     const char *const *labels)
{
    struct lens_err e = {0};
    struct lens_dendrogram_opts o;
    lens_dendrogram_opts_init(&o);
    o.labels = labels;
    tree_inputs(&o, z, n, 4);
    o.method = "average";
    o.title = "Dendrogram of 40 points";
    o.font_path = FONT;
    o.width = 913;
    o.height = 587;
    unsigned char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    LENS_TEST(lens_dendrogram_png_mem(z, n, &o, &a, &la, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(lens_dendrogram_png_mem(z, n, &o, &b, &lb, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(la == lb && la > 0 && !memcmp(a, b, la), "dendrogram png not byte-identical");
    cairo_surface_t *s = decode(a, la);
    /* PNG bytes are for print: drawn at lens_figure_print_scale pixels per unit */
    double k = lens_figure_print_scale(913);
    int pw = (int)ceil(913 * k), ph = (int)ceil(587 * k);
    LENS_TEST(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS && cairo_image_surface_get_width(s) == pw &&
                  cairo_image_surface_get_height(s) == ph, "dendrogram png size");
    /* four cluster colours appear (the strip), the none colour appears (links above the cut) */
    int seen[LENS_TREEFIG_NCOLORS] = {0}, none = 0;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            uint32_t p = pixel(s, x, y);
            for (int c = 0; c < LENS_TREEFIG_NCOLORS; c++) {
                double rgb[3];
                lens_treefig_color(c, rgb);
                uint32_t q = (uint32_t)lround(rgb[0] * 255) << 16 | (uint32_t)lround(rgb[1] * 255) << 8 |
                             (uint32_t)lround(rgb[2] * 255);
                seen[c] += p == q;
            }
            none += p == 0x404040u;
        }
    LENS_TEST(seen[0] > 50 && seen[1] > 50 && seen[2] > 50 && seen[3] > 50 && seen[4] == 0,
              "cluster colours %d %d %d %d %d", seen[0], seen[1], seen[2], seen[3], seen[4]);
    LENS_TEST(none > 50, "links above the cut: %d grey pixels", none);
    cairo_surface_destroy(s);
    lens_free(a);
    lens_free(b);

    struct lens_njtree_opts no;
    lens_njtree_opts_init(&no);
    no.labels = labels;
    no.font_path = FONT;
    no.title = "NJ tree";
    LENS_TEST(lens_njtree_png_mem(t, &no, &a, &la, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(lens_njtree_png_mem(t, &no, &b, &lb, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(la == lb && la > 0 && !memcmp(a, b, la), "nj png not byte-identical");
    s = decode(a, la);
    k = lens_figure_print_scale(1000);
    LENS_TEST(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS &&
                  cairo_image_surface_get_width(s) == (int)ceil(1000 * k) &&
                  cairo_image_surface_get_height(s) == (int)ceil(700 * k), "nj png size");
    cairo_surface_destroy(s);
    lens_free(a);
    lens_free(b);
}

/* Drawing into a box of a bigger surface: outside the box stays as it was. */
static void test_draw_box(const struct lens_hclust_step *z, int n, const struct lens_newick *t)
{
    struct lens_err e = {0};
    struct lens_dendrogram_opts o;
    lens_dendrogram_opts_init(&o);
    tree_inputs(&o, z, n, 0);
    for (int which = 0; which < 2; which++) {
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 900, 700);
        cairo_t *cr = cairo_create(s);
        cairo_set_source_rgb(cr, 1, 0, 0);
        cairo_paint(cr);
        cairo_set_source_rgb(cr, 0, 0, 1); /* the caller's source must come back */
        int rc = which == 0 ? lens_dendrogram_draw(cr, 117, 83, 640, 480, z, n, &o, &e)
                            : lens_njtree_draw(cr, 117, 83, 640, 480, t, NULL, &e);
        LENS_TEST(rc == LENS_OK, "draw %d: %s", which, e.msg);
        double r, g, b;
        cairo_pattern_get_rgba(cairo_get_source(cr), &r, &g, &b, NULL);
        LENS_TEST(r == 0 && g == 0 && b == 1, "draw %d: source not restored", which);
        cairo_destroy(cr);
        cairo_surface_flush(s);
        LENS_TEST(pixel(s, 116, 83) == 0xff0000u && pixel(s, 117 + 640, 300) == 0xff0000u &&
                      pixel(s, 300, 82) == 0xff0000u && pixel(s, 300, 83 + 480) == 0xff0000u,
                  "draw %d: painted outside its box", which);
        LENS_TEST(pixel(s, 118, 84) == 0xffffffu && pixel(s, 117 + 638, 83 + 478) == 0xffffffu,
                  "draw %d: box corners not white", which);
        cairo_surface_destroy(s);
    }
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 100, 100);
    cairo_t *cr = cairo_create(s);
    LENS_TEST(lens_dendrogram_draw(cr, 0, 0, 150, 480, z, n, &o, &e) == LENS_EINVAL && strstr(e.msg, "150x480"),
              "narrow box: %s", e.msg);
    /* the order and the cut are inputs now: missing or out of range is an error, not a crash */
    LENS_TEST(lens_dendrogram_draw(cr, 0, 0, 640, 480, z, n, NULL, &e) == LENS_EINVAL && strstr(e.msg, "no leaf order"),
              "no order: %s", e.msg);
    int swapped = tree_order[1];
    tree_order[1] = tree_order[0];
    LENS_TEST(lens_dendrogram_draw(cr, 0, 0, 640, 480, z, n, &o, &e) == LENS_EINVAL && strstr(e.msg, "permutation"),
              "order with a repeat: %s", e.msg);
    tree_order[1] = swapped;
    tree_inputs(&o, z, n, 3);
    tree_cluster[5] = 3;
    LENS_TEST(lens_dendrogram_draw(cr, 0, 0, 640, 480, z, n, &o, &e) == LENS_EINVAL && strstr(e.msg, "cluster 3"),
              "cluster outside 0..k-1: %s", e.msg);
    o.cluster = NULL;
    LENS_TEST(lens_dendrogram_draw(cr, 0, 0, 640, 480, z, n, &o, &e) == LENS_EINVAL, "a cut without clusters");
    LENS_TEST(lens_njtree_draw(cr, 0, 0, 640, NAN, t, NULL, &e) == LENS_EINVAL, "NaN box");
    cairo_destroy(cr);
    cairo_surface_destroy(s);
}

/* The reordered heatmap shows at cell (i, j) what the plain one shows at (order[i], order[j]). */
static void test_heatmap(void)
{
    struct lens_err e = {0};
    int n = 12, order[12];
    double *d = random_points(n), a[144];
    struct lens_hclust_step z[11];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = i == j ? 0 : d[lens_distmat_index(n, i, j)] * (1 + 0.01 * uniform());
    LENS_TEST(lens_hclust_run(d, n, LENS_HCLUST_WARD, z, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(lens_hclust_leaf_order(z, n, order, &e) == LENS_OK, "%s", e.msg);
    char names[12][16], perm[12][16];
    const char *plain_l[12], *perm_l[12];
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "%d", i);
        snprintf(perm[i], sizeof perm[i], "%d", order[i]);
        plain_l[i] = names[i];
        perm_l[i] = perm[i];
    }
    struct lens_heatmap_opts o;
    lens_heatmap_opts_init(&o);
    o.font_path = FONT;
    o.labels = plain_l;
    struct lens_heatmap_layout L1, L2;
    /* PNG files: their pixels lie where lens_heatmap_layout says (PNG bytes are drawn for
     * print, at another scale and with the print font floor) */
    char *fa = lens_scratch_path("reorder_a.png"), *fb = lens_scratch_path("reorder_b.png");
    LENS_TEST(lens_heatmap_write_png(a, n, n, &o, fa, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(lens_heatmap_layout(a, n, n, &o, &L1, &e) == LENS_OK, "%s", e.msg);
    o.labels = NULL; /* ignored: the reordered heatmap names the original processes itself */
    LENS_TEST(lens_dendrogram_heatmap_write(a, n, order, NULL, &o, fb, &e) == LENS_OK, "%s", e.msg);
    o.labels = perm_l;
    LENS_TEST(lens_heatmap_layout(a, n, n, &o, &L2, &e) == LENS_OK, "%s", e.msg);
    cairo_surface_t *s1 = cairo_image_surface_create_from_png(fa), *s2 = cairo_image_surface_create_from_png(fb);
    int bad = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint32_t p2 = pixel(s2, L2.map_x + (j + 0.5) * L2.map_w / n, L2.map_y + (i + 0.5) * L2.map_h / n);
            uint32_t p1 = pixel(s1, L1.map_x + (order[j] + 0.5) * L1.map_w / n,
                                L1.map_y + (order[i] + 0.5) * L1.map_h / n);
            bad += p1 != p2;
        }
    LENS_TEST(bad == 0, "%d reordered cells differ", bad);
    cairo_surface_destroy(s1);
    cairo_surface_destroy(s2);
    /* files, errors */
    LENS_TEST(lens_dendrogram_heatmap_write(a, n, order, NULL, NULL, lens_scratch_path("h.svg"), &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(lens_scratch_exists(lens_scratch_path("h.svg")), "reordered svg written");
    int notperm[12];
    memcpy(notperm, order, sizeof notperm);
    notperm[5] = notperm[7];
    LENS_TEST(lens_dendrogram_heatmap_write(a, n, notperm, NULL, NULL, lens_scratch_path("np.png"), &e) == LENS_EINVAL &&
                  strstr(e.msg, "np.png") && strstr(e.msg, "permutation"), "not a permutation: %s", e.msg);
    LENS_TEST(lens_dendrogram_heatmap_write(a, n, order, NULL, NULL, lens_scratch_path("h.pdf"), &e) == LENS_EINVAL,
              "heatmap extension");
    LENS_TEST(!lens_scratch_exists(lens_scratch_path("np.png")) && !lens_scratch_exists(lens_scratch_path("h.pdf")), "nothing written on errors");
    free(d);
}

static void test_files(const struct lens_hclust_step *z, int n, const struct lens_newick *t,
                       const char *const *labels)
{
    struct lens_err e = {0};
    struct lens_dendrogram_opts o;
    lens_dendrogram_opts_init(&o);
    o.labels = labels;
    tree_inputs(&o, z, n, 3);
    o.cut_note = "a <test> & \"note\"";
    o.title = "Tree & <leaves>";
    o.font_path = FONT;
    LENS_TEST(lens_dendrogram_write(z, n, &o, lens_scratch_path("d.svg"), &e) == LENS_OK, "%s", e.msg);
    size_t len;
    char *svg = slurp(lens_scratch_path("d.svg"), &len);
    int missing = 0;
    for (int i = 0; svg && i < n; i++) {
        char want[64];
        snprintf(want, sizeof want, ">%s</text>", labels[i]);
        missing += strstr(svg, want) == NULL;
    }
    LENS_TEST(svg && missing == 0, "%d leaf labels missing from the svg", missing);
    LENS_TEST(svg && strstr(svg, "<title>Tree &amp; &lt;leaves&gt;</title>"), "escaped svg title");
    LENS_TEST(svg && strstr(svg, "(a &lt;test&gt; &amp; &quot;note&quot;)"), "escaped legend");
    free(svg);
    LENS_TEST(lens_dendrogram_write(z, n, &o, lens_scratch_path("d2.svg"), &e) == LENS_OK, "%s", e.msg);
    char *s1 = slurp(lens_scratch_path("d.svg"), &len), *s2 = NULL;
    size_t len2 = 0;
    s2 = slurp(lens_scratch_path("d2.svg"), &len2);
    LENS_TEST(s1 && s2 && len == len2 && !memcmp(s1, s2, len), "svg not byte-identical");
    free(s1);
    free(s2);

    /* errors: each names the file and leaves nothing */
    LENS_TEST(lens_dendrogram_write(z, n, &o, lens_scratch_path("d.jpg"), &e) == LENS_EINVAL && strstr(e.msg, "d.jpg"),
              "bad extension: %s", e.msg);
    LENS_TEST(lens_dendrogram_write(z, n, &o, "/nonexistent-dir/d.png", &e) == LENS_EIO &&
                  strstr(e.msg, "/nonexistent-dir/d.png"), "unwritable: %s", e.msg);
    LENS_TEST(lens_njtree_write(t, NULL, "/nonexistent-dir/t.svg", &e) == LENS_EIO, "unwritable svg: %s", e.msg);
    o.k = n + 1;
    LENS_TEST(lens_dendrogram_write(z, n, &o, lens_scratch_path("k.png"), &e) == LENS_EINVAL && strstr(e.msg, "k.png"),
              "k > n: %s", e.msg);
    tree_inputs(&o, z, n, 2);
    o.width = 120;
    LENS_TEST(lens_dendrogram_write(z, n, &o, lens_scratch_path("w.png"), &e) == LENS_EINVAL && strstr(e.msg, "120x640"),
              "too narrow: %s", e.msg);
    o.width = 1000;
    o.font_path = "fonts/none.ttf";
    LENS_TEST(lens_dendrogram_write(z, n, &o, lens_scratch_path("f.svg"), &e) == LENS_EIO && strstr(e.msg, "none.ttf"),
              "missing font: %s", e.msg);
    o.font_path = FONT;
    struct lens_hclust_step bad[39];
    memcpy(bad, z, sizeof bad);
    bad[3].right = n + 10; /* not formed yet at row 3 */
    LENS_TEST(lens_dendrogram_write(bad, n, &o, lens_scratch_path("b.png"), &e) == LENS_EINVAL && strstr(e.msg, "row 3"),
              "bad linkage: %s", e.msg);
    memcpy(bad, z, sizeof bad);
    bad[7].height = NAN;
    LENS_TEST(lens_dendrogram_write(bad, n, &o, lens_scratch_path("b.png"), &e) == LENS_EINVAL, "NaN height");
    LENS_TEST(lens_dendrogram_write(z, 1, &o, lens_scratch_path("b.png"), &e) == LENS_EINVAL, "one leaf");
    struct lens_njtree_opts no;
    lens_njtree_opts_init(&no);
    no.scale = 0;
    LENS_TEST(lens_njtree_write(t, &no, lens_scratch_path("s.png"), &e) == LENS_EINVAL && strstr(e.msg, "scale"), "scale 0");
    LENS_TEST(lens_njtree_write(t, NULL, lens_scratch_path("t.gif"), &e) == LENS_EINVAL, "nj bad extension");
    LENS_TEST(!lens_scratch_exists(lens_scratch_path("d.jpg")) && !lens_scratch_exists(lens_scratch_path("k.png")) && !lens_scratch_exists(lens_scratch_path("w.png")) &&
                  !lens_scratch_exists(lens_scratch_path("f.svg")) && !lens_scratch_exists(lens_scratch_path("b.png")) && !lens_scratch_exists(lens_scratch_path("s.png")),
              "nothing written on errors");
    LENS_TEST(lens_scratch_leftovers() == 0, "temporary files left behind");
}

/* Every allocation of the writers fails once in turn: ENOMEM and no file, never a crash. */
static void test_faults(const struct lens_hclust_step *z, int n, const struct lens_newick *t,
                        const char *const *labels)
{
    struct lens_dendrogram_opts o;
    lens_dendrogram_opts_init(&o);
    o.labels = labels;
    tree_inputs(&o, z, n, 4);
    o.font_path = FONT;
    struct lens_njtree_opts no;
    lens_njtree_opts_init(&no);
    no.labels = labels;
    no.font_path = FONT;
    double a[64];
    int order[8] = {3, 1, 7, 0, 2, 6, 5, 4};
    for (int i = 0; i < 64; i++)
        a[i] = (i % 9) ? 1e-6 * (1 + uniform()) : 0;
    for (int which = 0; which < 4; which++) {
        int ok = 0, bad = 0;
        for (long k = 1; k < 400 && !ok; k++) {
            struct lens_err e = {0};
            const char *path = lens_scratch_path(which == 1 ? "ft.png" : "ft.svg");
            unlink(path);
            lens_malloc_fail_after(k);
            int rc = which == 0   ? lens_dendrogram_write(z, n, &o, path, &e)
                     : which == 1 ? lens_njtree_write(t, &no, path, &e)
                     : which == 2 ? lens_njtree_write(t, &no, path, &e)
                                  : lens_dendrogram_heatmap_write(a, 8, order, NULL, NULL, path, &e);
            lens_malloc_fail_after(0);
            if (rc == LENS_OK)
                ok = 1;
            else if (rc != LENS_ENOMEM || lens_scratch_exists(path))
                bad++;
        }
        LENS_TEST(ok && bad == 0, "writer %d under allocation failures: ok %d, bad %d", which, ok, bad);
    }
    LENS_TEST(lens_scratch_leftovers() == 0, "temporary files left behind after faults");
}

int main(void)
{
    if (lens_scratch_open("test_dendrogram") != 0)
        return 1;
    test_cuts();
    test_labels();
    test_permute();
    test_njtree_order();
    test_njtree_groups();

    struct lens_err e = {0};
    int n = 40;
    double *d = random_points(n), *d2 = malloc(lens_distmat_pairs(n) * sizeof *d2);
    memcpy(d2, d, lens_distmat_pairs(n) * sizeof *d2);
    struct lens_hclust_step z[39];
    struct lens_newick *t = NULL;
    char names[40][32];
    const char *labels[40];
    for (int i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "n%02d-%c:%d", i % 4 + 1, "pqxz"[i % 4], i);
        labels[i] = names[i];
    }
    LENS_TEST(lens_hclust_run(d, n, LENS_HCLUST_AVERAGE, z, &e) == LENS_OK, "%s", e.msg);
    LENS_TEST(lens_nj_run(d2, n, LENS_NJ_FAST, &t, &e) == LENS_OK, "%s", e.msg);
    test_png(z, n, t, labels);
    test_draw_box(z, n, t);
    test_heatmap();
    test_files(z, n, t, labels);
    test_faults(z, n, t, labels);
    lens_newick_free(t);
    free(d);
    free(d2);

    lens_scratch_close();
    return LENS_TEST_DONE("test_dendrogram");
}
