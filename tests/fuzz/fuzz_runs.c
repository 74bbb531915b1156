/* Fuzz target "runs": a runs CSV of `mpilens scale` (analysis/scale/runs.c: the reader, then the
 * per-application efficiency grids with and without a serial model). Seeds:
 * samples/scale/paper.csv and short hand-made files. */
#include "fuzz_common.h"
#include "analysis/scale/runs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("runs.csv", data, size);
    struct lens_err e = {0};
    struct lens_runs *r = lens_runs_new();
    if (!r)
        fuzz_die("allocate", "runs");
    if (fuzz_said("read", lens_runs_read(r, path, &e), &e) == LENS_OK) {
        struct lens_grid *g = NULL;
        size_t n = 0;
        if (fuzz_said("grids", lens_runs_grids(r, NULL, &g, &n, &e), &e) == LENS_OK)
            lens_runs_grids_free(g, n);
        /* a model turns times into efficiencies without a serial reference */
        struct lens_runs_model model = {1e9, 2.0, 3.0};
        g = NULL;
        n = 0;
        if (lens_runs_grids(r, &model, &g, &n, &e) == LENS_OK)
            lens_runs_grids_free(g, n);
    }
    lens_runs_free(r);
    return 0;
}
