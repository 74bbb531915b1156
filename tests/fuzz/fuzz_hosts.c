/* Fuzz target "hosts": the hosts file of a cube (<prefix>_hosts.txt, one host name per rank,
 * read by analysis/cube/cube_nc.c) and the consumers of the names: the distance matrix's
 * "r<rank>@<host>" labels (analysis/structure/distmat.c), the grouping of ranks by host that the
 * tree figures draw (render/fig/treefig.c) and the JSON string escaping of `mpilens info --json`
 * (common/json.c). A valid 4-process cube (median only) is written once
 * per process; each input becomes its hosts file. Seeds: the hosts files of
 * tests/data/network-tests2 and samples/cubes, and hand-made edge cases. */
#include "fuzz_common.h"
#include "analysis/cube/cube.h"
#include "analysis/structure/distmat.h"
#include "common/json.h"
#include "render/fig/treefig.h"

#define P 4

static const char *prefix(void)
{
    static int made;
    const char *pre = fuzz_path(1, "network");
    if (made)
        return pre;
    struct lens_err e = {0};
    struct lens_cube *c = NULL;
    if (lens_cube_new(&c, P, 2, 0, 512, 1u << LENS_STAT_MEDIAN, &e) != LENS_OK)
        fuzz_die("make the cube", e.msg);
    c->mode = LENS_MODE_ONE_TO_ONE;
    c->repeats = 10;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++)
                LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j) = i == j ? 0 : 1e-6 * (1 + k + (i / 2 != j / 2));
    if (lens_cube_write(c, pre, NULL, &e) != LENS_OK)
        fuzz_die("write the cube", e.msg);
    lens_cube_free(c);
    made = 1;
    return pre;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *pre = prefix();
    fuzz_write(fuzz_path(2, "network_hosts.txt"), data, size);
    struct lens_err e = {0};
    struct lens_cube *c = NULL;
    if (fuzz_said("read", lens_cube_read(pre, &c, &e), &e) == LENS_OK) {
        struct lens_json j;
        lens_json_init(&j, fuzz_null());
        lens_json_begin_array(&j);
        for (int i = 0; c->hosts && i < c->procs; i++)
            lens_json_string(&j, c->hosts[i]);
        lens_json_end_array(&j);
        struct lens_distmat *m = NULL;
        if (lens_distmat_from_cube(c, LENS_STAT_MEDIAN, -1, &m, &e) == LENS_OK) {
            int group[P];
            lens_treefig_host_groups((const char *const *)m->labels, m->n, group, &e);
        }
        lens_distmat_free(m);
    }
    lens_cube_free(c);
    return 0;
}
