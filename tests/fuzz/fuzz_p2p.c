/* Fuzz target "p2p": a point-to-point sweep CSV of `mpilens-bench -t p2p` through the reader
 * (analysis/cube/p2pfile.c), then what `mpilens p2p` computes from a pair: pair lookup, the
 * interpolated send time and the latency/bandwidth fit. An input that starts with a NetCDF
 * magic number is written as run_p2p.nc and goes through the NetCDF reader instead. Seeds:
 * hand-made CSVs in the bench's column layout (tests/test_p2pfile.c's shapes) and a small
 * run_p2p.nc of the bench. */
#include "fuzz_common.h"
#include "analysis/cube/p2pfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* NetCDF magic ("CDF" classic, "\x89HDF" netCDF-4): the .nc reader, else the CSV one */
    int nc = size >= 4 && (!memcmp(data, "CDF", 3) || !memcmp(data, "\x89HDF", 4));
    const char *path = fuzz_put(nc ? "run_p2p.nc" : "run_p2p.csv", data, size);
    struct lens_err e = {0};
    struct lens_p2pfile *f = NULL;
    if (fuzz_said("read", lens_p2pfile_read(path, &f, &e), &e) == LENS_OK) {
        lens_p2pfile_find(f, "inter", &e);
        lens_p2pfile_find(f, "1", &e);
        for (int i = 0; i < f->npairs; i++) {
            double a, b;
            lens_p2pfile_send_time(&f->pair[i], 0);
            lens_p2pfile_send_time(&f->pair[i], 1e6);
            lens_p2pfile_fit(&f->pair[i], &a, &b, &e);
        }
    }
    lens_p2pfile_free(f);
    return 0;
}
