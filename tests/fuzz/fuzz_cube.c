/* Fuzz target "cube": one NetCDF statistic file through the cube reader (analysis/cube/cube_nc.c,
 * cube.c repairs) and the streaming reader (cube_stream.c). The input is written as
 * <scratch>/network_median.nc and read as a one-file cube, so every header, dimension,
 * attribute and data path of network_test2's two layouts is reachable; libnetcdf parses the
 * header first, so its own parser is fuzzed too. Seeds: tests/data/network-tests2.
 * Oracle besides the sanitizers: cube.h promises that the stream gives lens_cube_read's
 * matrices bit for bit, so a difference aborts. */
#include "fuzz_common.h"
#include "analysis/cube/cube.h"

#include <math.h>

static int same(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("network_median.nc", data, size);
    struct lens_err e = {0};
    struct lens_cube *c = NULL;
    if (fuzz_said("read", lens_cube_read(path, &c, &e), &e) == LENS_OK) {
        struct lens_summary s;
        double med, max;
        for (int st = 0; st < LENS_STAT_COUNT; st++)
            if (c->data[st]) {
                lens_cube_summary(c, st, -1, &s, &e);
                lens_cube_asymmetry(c, st, &med, &max, &e);
            }
    } else {
        lens_cube_free(c);
        c = NULL;
    }

    struct lens_cube_stream *sm = NULL;
    if (fuzz_said("stream", lens_cube_stream_open(path, &sm, &e), &e) == LENS_OK) {
        const struct lens_cube *m = lens_cube_stream_meta(sm);
        size_t p2 = (size_t)m->procs * (size_t)m->procs;
        double *mat = p2 <= (1u << 20) ? malloc(p2 * sizeof *mat) : NULL;
        unsigned stats = lens_cube_stream_stats(sm);
        int ok = 1;
        for (int k = 0; mat && ok && k < m->nlen; k++)
            for (int st = 0; ok && st < LENS_STAT_COUNT; st++) {
                if (!(stats & (1u << st)))
                    continue;
                ok = lens_cube_stream_read(sm, st, k, mat, &e) == LENS_OK;
                if (!ok || !c)
                    continue;
                if (c->procs != m->procs || c->nlen != m->nlen || !c->data[st])
                    fuzz_die("agree on the shape between stream and reader for", path);
                for (size_t q = 0; q < p2; q++)
                    if (!same(mat[q], c->data[st][(size_t)k * p2 + q]))
                        fuzz_die("agree on a value between stream and reader for", path);
            }
        free(mat);
        lens_cube_stream_end(sm, &e);
    }
    lens_cube_stream_close(sm);
    lens_cube_free(c);
    return 0;
}
