/* Fuzz target "packed": a compressed cube (`mpilens compress` output, one NetCDF file) through
 * the reader and decoder that `mpilens decompress` uses (analysis/cube/packed_nc.c, the
 * lens_unpack decoder of packed.c): read, check, then decode every length of every
 * statistic, and build its positional index and read curves through it. Seeds: small cubes of tests/data/network-tests2 and samples/cubes compressed
 * with `mpilens compress`. */
#include "fuzz_common.h"
#include "analysis/cube/packed.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("cube.lcz.nc", data, size);
    struct lens_err e = {0};
    struct lens_cube *m = NULL;
    struct lens_packed *p[LENS_STAT_COUNT] = {NULL};
    if (fuzz_said("read", lens_packed_read(path, &m, p, &e), &e) == LENS_OK) {
        size_t p2 = (size_t)m->procs * (size_t)m->procs;
        /* the reader bounds the sizes it accepts; this only keeps a huge valid header from
           exhausting the fuzzer's memory limit */
        double *mat = p2 <= (1u << 20) ? malloc(p2 * sizeof *mat) : NULL;
        for (int s = 0; mat && s < LENS_STAT_COUNT; s++) {
            struct lens_packed_decoder *u = NULL;
            if (!p[s] || lens_packed_check(p[s], path, &e) != LENS_OK ||
                lens_packed_decoder_new(&u, p[s], &e) != LENS_OK) {
                lens_packed_decoder_free(u);
                continue;
            }
            for (int k = 0; k < m->nlen && lens_packed_decoder_next(u, mat, &e) == LENS_OK; k++)
                ;
            lens_packed_decoder_free(u);
            /* the positional index (lens_packed_at) on the same damaged input: the first and
             * the last pair's curves, and the last element */
            struct lens_packed_index *x = NULL;
            double *curve = malloc((size_t)m->nlen * sizeof *curve), v;
            if (curve && lens_packed_index_new(&x, p[s], &e) == LENS_OK) {
                lens_packed_curve(x, 0, 0, curve, &e);
                lens_packed_curve(x, m->procs - 1, 0, curve, &e);
                lens_packed_at(x, m->procs - 1, m->procs - 1, m->nlen - 1, &v, &e);
            }
            lens_packed_index_free(x);
            free(curve);
        }
        free(mat);
    }
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        lens_packed_free(p[s]);
    lens_cube_free(m);
    return 0;
}
