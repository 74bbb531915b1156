/* Tests for analysis/structure/ari.c and the agglomerative comparison of links.c: the
 * adjusted Rand index on contingency tables worked by hand with Hubert and Arabie's formula
 * (sum C(n_ij,2) against its expectation), scikit-learn's documented values, the special cases;
 * then links' comparison: the bound (skipped or refused with the bytes) and its labels. */
#include "analysis/structure/ari.h"
#include "analysis/structure/links.h"
#include "analysis/structure/hclust.h"
#include "analysis/cube/synth.h"
#include "lens_test.h"

#include <math.h>
#include <string.h>

static double ari(const int *u, const int *v, size_t n)
{
    double r = NAN;
    struct lens_err e;
    if (lens_ari_compute(u, v, n, &r, &e) != LENS_OK)
        fprintf(stderr, "ari: %s\n", e.msg);
    return r;
}

static void hand_tables(void)
{
    /* u {0,0,0 | 1,1,1}, v {0,0 | 1,1 | 2,2}: n_ij = 2,1 / 1,2, sum C(n_ij,2) = 2; rows
     * C(3,2) x 2 = 6, columns C(2,2) x 3 = 3, C(6,2) = 15: expected 6 x 3 / 15 = 1.2, max 4.5,
     * ARI = (2 - 1.2) / (4.5 - 1.2) = 0.2424... */
    int u[] = {0, 0, 0, 1, 1, 1}, v[] = {0, 0, 1, 1, 2, 2};
    LENS_TEST_REL(ari(u, v, 6), 0.8 / 3.3, 1e-12, "hand table 2x3");
    LENS_TEST_REL(ari(v, u, 6), 0.8 / 3.3, 1e-12, "symmetric");
    /* scikit-learn's documentation: [0,0,1,1] vs [0,0,1,2] is 0.57 (4/7), a relabelling is 1,
     * one cluster against all singletons is 0 */
    int a[] = {0, 0, 1, 1}, b[] = {0, 0, 1, 2}, c[] = {1, 1, 0, 0}, one[] = {0, 0, 0, 0}, sing[] = {0, 1, 2, 3};
    LENS_TEST_REL(ari(a, b, 4), 4.0 / 7.0, 1e-12, "sklearn doc 0.57");
    LENS_TEST_REL(ari(a, c, 4), 1.0, 1e-15, "relabelled: 1");
    LENS_TEST(ari(one, sing, 4) == 0.0, "one cluster vs singletons: 0, got %g", ari(one, sing, 4));
    LENS_TEST(ari(one, one, 4) == 1.0, "both one cluster: 1");
    LENS_TEST(ari(sing, sing, 4) == 1.0, "both singletons: 1");
    /* below chance: [0,0,1,1] vs [0,1,0,1], C(n_ij,2) all 0, expected 2 x 2 / 6, max 2:
     * (0 - 2/3) / (2 - 2/3) = -0.5 */
    int d[] = {0, 1, 0, 1};
    LENS_TEST_REL(ari(a, d, 4), -0.5, 1e-12, "below chance: -0.5");
    /* a 3x3 table (n = 10), by hand: n_ij = [[3,1,0],[0,2,1],[0,0,3]], sum C = 3+1+3 = 7;
     * rows 4,3,3: 6+3+3 = 12; columns 3,3,4: 12; C(10,2) = 45: expected 144/45 = 3.2, max 12,
     * ARI = 3.8 / 8.8 */
    int p[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2}, q[] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 2};
    LENS_TEST_REL(ari(p, q, 10), 3.8 / 8.8, 1e-12, "hand table 3x3");
    struct lens_err e;
    double r;
    int bad[] = {0, 4, 0, 0};
    LENS_TEST(lens_ari_compute(a, bad, 4, &r, &e) == LENS_EINVAL && strstr(e.msg, "object 1"), "label out of range");
    LENS_TEST(lens_ari_compute(a, a, 0, &r, &e) == LENS_EINVAL, "no objects");
}

static void links_comparison(void)
{
    struct lens_synth_opts so;
    lens_synth_opts_init(&so);
    so.procs = 8;
    so.nodes = 2;
    so.sockets = 2;
    so.noise = 0;
    struct lens_cube *c = NULL;
    struct lens_err e;
    LENS_TEST(lens_synth_cube(&so, &c, &e) == LENS_OK, "synth");
    if (!c)
        return;
    struct lens_links_opts o;
    lens_links_opts_default(&o);
    struct lens_links *r = NULL;
    /* default: average linkage, optional; 56 links need 56 x 55 / 2 x 8 = 12320 bytes */
    LENS_TEST(lens_links_run(c, &o, &r, &e) == LENS_OK, "run: %s", e.msg);
    if (r) {
        LENS_TEST(r->agglo == LENS_HCLUST_AVERAGE && r->agglo_label, "average ran by default");
        LENS_TEST(r->agglo_bytes == 12320.0, "bytes %g", r->agglo_bytes);
        /* the three link classes of 2 nodes x 2 sockets without noise: both methods find them */
        LENS_TEST(r->ari == 1.0, "noise-free levels: ARI 1, got %g (k %d)", r->ari, r->k);
        /* the ARI is the one of the two label matrices, off the diagonal */
        int u[56], v[56], n = 0;
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 8; j++)
                if (i != j) {
                    u[n] = r->label[i * 8 + j];
                    v[n++] = r->agglo_label[i * 8 + j];
                }
        LENS_TEST(ari(u, v, 56) == r->ari, "ARI of the labels");
        LENS_TEST(r->agglo_label[0] == -1 && r->agglo_label[9] == -1, "diagonal -1");
        lens_links_free(r);
    }
    /* over the bound: skipped quietly when optional, refused with the bytes otherwise */
    o.agglo_max_bytes = 12319;
    LENS_TEST(lens_links_run(c, &o, &r, &e) == LENS_OK && r && r->agglo == -1 && !r->agglo_label && isnan(r->ari),
              "optional: skipped");
    lens_links_free(r);
    o.agglo_optional = 0;
    o.agglo = LENS_HCLUST_COMPLETE;
    LENS_TEST(lens_links_run(c, &o, &r, &e) == LENS_EINVAL && !r, "refused over the bound");
    LENS_TEST(strstr(e.msg, "12320 bytes") && strstr(e.msg, "complete") && strstr(e.msg, "56 links"), "message: %s", e.msg);
    o.agglo = -1;
    LENS_TEST(lens_links_run(c, &o, &r, &e) == LENS_OK && r && r->agglo == -1, "divisive only");
    lens_links_free(r);
    o.agglo = 99;
    LENS_TEST(lens_links_run(c, &o, &r, &e) == LENS_EINVAL, "bad method refused");
    lens_cube_free(c);
}

int main(void)
{
    hand_tables();
    links_comparison();
    return LENS_TEST_DONE("test_ari");
}
