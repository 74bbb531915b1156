/* The synthetic cube generator: placement is a permutation consistent with the shape, the
 * default placement is the identity, the extensions switched off leave the cube of the first
 * version, levels and faults are where the placement says, every bad option is refused with a
 * message naming it, and every allocation failure of cube and truth is survived. */
#include "analysis/cube/synth.h"
#include "lens_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_placement(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = 60;
    o.nodes = 6;
    o.sockets = 2;
    o.switches = 3;
    struct lens_synth_place pl[60];
    struct lens_err e;
    LENS_TEST(lens_synth_placement(&o, pl, &e) == LENS_OK, "placement: %s", e.msg);
    int ident = 1;
    for (int r = 0; r < 60; r++)
        ident &= pl[r].node == r / 10 && pl[r].socket == r % 10 / 5 && pl[r].core == r % 5 && pl[r].sw == r / 20;
    LENS_TEST(ident, "without shuffle rank r sits on core slot r");
    o.shuffle = 1;
    o.seed = 987654321;
    LENS_TEST(lens_synth_placement(&o, pl, &e) == LENS_OK, "shuffled placement: %s", e.msg);
    int seen[60] = {0}, moved = 0;
    for (int r = 0; r < 60; r++) {
        int slot = pl[r].node * 10 + pl[r].socket * 5 + pl[r].core;
        LENS_TEST(slot >= 0 && slot < 60 && pl[r].core < 5 && pl[r].socket < 2 && pl[r].sw == pl[r].node / 2,
                  "rank %d: bad place", r);
        if (slot >= 0 && slot < 60)
            seen[slot]++;
        moved += slot != r;
    }
    int perm = 1;
    for (int s = 0; s < 60; s++)
        perm &= seen[s] == 1;
    LENS_TEST(perm && moved > 45, "a permutation that moves most ranks (%d moved)", moved);
}

/* Levels and faults follow the shuffled placement: noise 0, length 0, jitter 0. */
static void test_levels(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = 24;
    o.nodes = 4;
    o.sockets = 2;
    o.switches = 2;
    o.shuffle = 1;
    o.noise = 0;
    o.seed = 4242;
    o.slow_node = 3;
    o.bad_src = 5;
    o.bad_dst = 11;
    o.asym_a = 7;
    o.asym_b = 2;
    o.asym_factor = 1.7;
    struct lens_synth_place pl[24];
    struct lens_cube *c;
    struct lens_err e;
    if (lens_synth_placement(&o, pl, &e) != LENS_OK || lens_synth_cube(&o, &c, &e) != LENS_OK) {
        LENS_TEST(0, "synth: %s", e.msg);
        return;
    }
    long bad = 0;
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++) {
            if (i == j)
                continue;
            int lv = pl[i].sw != pl[j].sw ? 3 : pl[i].node != pl[j].node ? 2 : pl[i].socket != pl[j].socket;
            double want = o.lat[lv];
            if (pl[i].node == 3 || pl[j].node == 3)
                want *= 1.6;
            if (j == 5 && i == 11)
                want *= 3.0;
            if (j == 7 && i == 2)
                want *= 1.7;
            if (j == 2 && i == 7)
                want /= 1.7;
            bad += fabs(LENS_CUBE_AT(c, LENS_STAT_MIN, 0, i, j) - want) > 1e-12 * want;
            char host[16];
            snprintf(host, sizeof host, "node%02d", pl[i].node + 1);
            bad += strcmp(c->hosts[i], host) != 0;
        }
    LENS_TEST(bad == 0, "%ld elements or hosts not where the placement puts them", bad);
    lens_cube_free(c);
}

static void test_errors(void)
{
    struct { const char *field, *want; } cases[] = {
        {"switches", "do not divide into 3 switches"}, {"asym", "asymmetric pair 4, 4"},
        {"jitter", "jitter"}, {"spikes", "spikes must be a share"}, {"bad", "bad link 1 -> 99"},
    };
    for (size_t t = 0; t < sizeof cases / sizeof *cases; t++) {
        struct lens_synth_opts o;
        lens_synth_opts_init(&o);
        if (!strcmp(cases[t].field, "switches"))
            o.switches = 3;
        else if (!strcmp(cases[t].field, "asym"))
            o.asym_a = o.asym_b = 4;
        else if (!strcmp(cases[t].field, "jitter"))
            o.jitter = 0.5;
        else if (!strcmp(cases[t].field, "spikes"))
            o.spikes = -0.1;
        else
            o.bad_src = 1, o.bad_dst = 99;
        struct lens_cube *c = (void *)1;
        struct lens_err e;
        lens_err_clear(&e);
        int rc = lens_synth_cube(&o, &c, &e);
        LENS_TEST(rc == LENS_EINVAL && !c && strstr(e.msg, cases[t].want), "%s: %d '%s'", cases[t].field, rc, e.msg);
        lens_err_clear(&e);
        rc = lens_synth_truth_write(&o, "/nonexistent-dir-never/t.json", &e);
        LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, cases[t].want), "truth %s: %d '%s'", cases[t].field, rc, e.msg);
    }
}

static void test_alloc(void)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.shuffle = 1;
    o.switches = 2;
    o.slow_node = 1;
    char path[] = "/tmp/test_synth.XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0)
        close(fd);
    int fails = 0, oks = 0;
    for (long n = 1; n < 200 && !oks; n++) {
        struct lens_cube *c = NULL;
        struct lens_err e;
        lens_malloc_fail_after(n);
        int rc = lens_synth_cube(&o, &c, &e);
        if (rc == LENS_OK)
            rc = lens_synth_truth_write(&o, path, &e);
        lens_malloc_fail_after(0);
        oks = rc == LENS_OK;
        fails += rc == LENS_ENOMEM;
        lens_cube_free(c);
    }
    unlink(path);
    LENS_TEST(oks && fails > 5, "allocation failures: %d then success", fails);
}

int main(void)
{
    test_placement();
    test_levels();
    test_errors();
    test_alloc();
    return LENS_TEST_DONE("test_synth");
}
