/* Tests for render/fig/hostcolour.c: the map holds the sorted distinct names of every list
 * added (the union of a report's cubes), indexes hosts by that order whatever the rank
 * placement, gives -1 and the "none" grey to unknown hosts, colours index k as the tree
 * palette's entry k (tab10 without grey, written out here), and leaves itself unchanged when
 * an allocation fails at any point. */
#include "common/alloc.h"
#include "render/fig/hostcolour.h"
#include "render/fig/treefig.h"
#include "lens_test.h"

#include <string.h>

static void test_union(void)
{
    struct lens_err e = {0};
    struct lens_hostcolour hc = LENS_HOSTCOLOUR_INIT;
    /* rank order c, a, b with repeats and a missing name: first appearance would make c 0 */
    static const char *const a[7] = {"c", "c", "a", NULL, "a", "b", "b"};
    LENS_TEST(lens_hostcolour_add(&hc, a, 7, &e) == LENS_OK, "add: %s", e.msg);
    LENS_TEST(hc.n == 3 && !strcmp(hc.name[0], "a") && !strcmp(hc.name[1], "b") && !strcmp(hc.name[2], "c"),
              "sorted distinct a b c (n %d)", hc.n);
    int g[7], want[7] = {2, 2, 0, -1, 0, 1, 1};
    LENS_TEST(lens_hostcolour_groups(&hc, a, 7, g) == 6, "6 processes coloured");
    LENS_TEST(!memcmp(g, want, sizeof g), "groups by the sorted index");
    /* a second cube adds a name sorting first: every later index moves up by one */
    static const char *const b[3] = {"b", "0", "c"};
    LENS_TEST(lens_hostcolour_add(&hc, b, 3, &e) == LENS_OK, "add a second list");
    LENS_TEST(hc.n == 4 && lens_hostcolour_index(&hc, "0") == 0 && lens_hostcolour_index(&hc, "a") == 1 &&
                  lens_hostcolour_index(&hc, "c") == 3,
              "union 0 a b c");
    LENS_TEST(lens_hostcolour_index(&hc, "d") == -1 && lens_hostcolour_index(&hc, NULL) == -1, "unknown host -1");
    LENS_TEST(lens_hostcolour_add(&hc, NULL, 5, &e) == LENS_OK && hc.n == 4, "no hosts file adds nothing");
    LENS_TEST(lens_hostcolour_groups(&hc, NULL, 3, g) == 0 && g[0] == -1 && g[2] == -1, "no hosts: no colour");
    /* tab10 without grey, entry k for index k; 9 colours, then the palette repeats */
    static const unsigned char tab[9][3] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44},
                                           {214, 39, 40},  {148, 103, 189}, {140, 86, 75},
                                           {227, 119, 194}, {188, 189, 34}, {23, 190, 207}};
    for (int k = 0; k < 12; k++) {
        double rgb[3];
        lens_hostcolour_rgb(k, rgb);
        int ok = 1;
        for (int c = 0; c < 3; c++)
            ok &= (int)(rgb[c] * 255 + 0.5) == tab[k % 9][c];
        LENS_TEST(ok, "colour %d is tab10 entry %d", k, k % 9);
    }
    double got[3], none[3];
    lens_hostcolour_of(&hc, "nowhere", got);
    lens_treefig_color_none(none);
    LENS_TEST(!memcmp(got, none, sizeof got), "an unknown host takes the 'none' grey");
    lens_hostcolour_of(&hc, "c", got);
    lens_hostcolour_rgb(3, none);
    LENS_TEST(!memcmp(got, none, sizeof got), "host c has colour 3");
    lens_hostcolour_free(&hc);
    LENS_TEST(hc.n == 0 && hc.name == NULL, "free zeroes the map");
    lens_hostcolour_free(&hc); /* twice is fine */
}

/* Every allocation of an add fails in turn: ENOMEM and the map as it was. */
static void test_faults(void)
{
    static const char *const a[4] = {"n2", "n1", "n2", "n3"};
    static const char *const b[2] = {"n0", "n4"};
    int failures = 0;
    for (long n = 1; n < 16; n++) {
        struct lens_err e = {0};
        struct lens_hostcolour hc = LENS_HOSTCOLOUR_INIT;
        LENS_TEST(lens_hostcolour_add(&hc, a, 4, &e) == LENS_OK, "first list");
        lens_malloc_fail_after(n);
        int rc = lens_hostcolour_add(&hc, b, 2, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            LENS_TEST(hc.n == 5 && lens_hostcolour_index(&hc, "n4") == 4, "fail after %ld: complete", n);
        } else {
            failures++;
            LENS_TEST(rc == LENS_ENOMEM && strstr(e.msg, "host colours"), "fail after %ld: %s", n, e.msg);
            LENS_TEST(hc.n == 3 && lens_hostcolour_index(&hc, "n1") == 0 && lens_hostcolour_index(&hc, "n3") == 2,
                      "fail after %ld: the map unchanged", n);
        }
        lens_hostcolour_free(&hc);
    }
    /* the array, the name array and five names: seven places to fail */
    LENS_TEST(failures == 7, "7 allocations can fail, %d did", failures);
}

int main(void)
{
    test_union();
    test_faults();
    return LENS_TEST_DONE("test_hostcolour_map");
}
