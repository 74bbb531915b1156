/* Fuzz target "bisection": PREFIX_bisection.csv of mpilens-bench -t bisection through the
 * strict reader (analysis/cube/bisection.c, csvstrict.c), then the summary `info` and
 * `accept` use. *Oracle*: min <= median <= max of the rounds, min <= mean <= max, and the
 * slowest pair is no faster than any round's. Seeds: a bench run and hand-made edge cases. */
#include "fuzz_common.h"
#include "analysis/cube/cube.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("run_bisection.csv", data, size);
    struct lens_err e = {0};
    struct lens_bisection *b = NULL;
    struct lens_bisection_summary s;
    if (fuzz_said("read", lens_bisection_read(path, &b, &e), &e) == LENS_OK &&
        fuzz_said("summary", lens_bisection_summarise(b, &s, &e), &e) == LENS_OK) {
        double mx = 0;
        for (int r = 0; r < b->n; r++) {
            mx = b->r[r].bandwidth_Bps > mx ? b->r[r].bandwidth_Bps : mx;
            if (s.worst_pair_Bps > b->r[r].slowest_pair_Bps)
                abort();
        }
        /* the mean of finite values can round a hair outside [min, max]: a relative slack */
        if (!(s.min_Bps <= s.median_Bps && s.median_Bps <= mx && s.min_Bps <= s.avg_Bps * (1 + 1e-12) &&
              s.avg_Bps <= mx * (1 + 1e-12)) || s.rounds != b->n)
            abort();
    }
    lens_bisection_free(b);
    return 0;
}
