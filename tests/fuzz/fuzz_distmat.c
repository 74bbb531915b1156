/* Fuzz target "distmat": a square distance matrix CSV (analysis/structure/distmat.c), the input
 * `mpilens cluster` and `mpilens nj` take instead of a cube, read as lens_distmat_read does
 * for a .csv name. Seeds: small hand-made matrices, with and without a label line. */
#include "fuzz_common.h"
#include "analysis/cube/cube.h"
#include "analysis/structure/distmat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("dist.csv", data, size);
    struct lens_err e = {0};
    struct lens_distmat *m = NULL;
    fuzz_said("read", lens_distmat_read(path, LENS_STAT_MEDIAN, -1, &m, &e), &e);
    lens_distmat_free(m);
    return 0;
}
