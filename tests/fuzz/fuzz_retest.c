/* Fuzz target "retest": PREFIX_retest.csv of mpilens-bench --retest through the strict reader
 * (analysis/cube/retest.c, csvstrict.c), then the verdicts `anomalies` and `info` give: per
 * row, and per link over the lengths of the file. *Oracle*: a link's verdict is "survived"
 * exactly when one of its non-control rows has retest_z >= 5 (recomputed here). Seeds: a run
 * of the bench with an injected slow link and hand-made edge cases (CRLF, NaN, one row). */
#include "fuzz_common.h"
#include "analysis/cube/cube.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("net_retest.csv", data, size);
    struct lens_err e = {0};
    struct lens_retest *r = NULL;
    if (fuzz_said("read", lens_retest_read(path, &r, &e), &e) == LENS_OK) {
        for (int t = 0; t < r->n; t++) {
            const struct lens_retest_row *w = &r->rows[t];
            int len = w->length, want = -1;
            /* the oracle: scan the rows of this link at this length by hand */
            for (int u = 0; u < r->n; u++) {
                const struct lens_retest_row *x = &r->rows[u];
                if (x->role == LENS_RETEST_CONTROL || x->sender != w->sender || x->receiver != w->receiver ||
                    x->length != len)
                    continue;
                if (x->retest_z >= LENS_RETEST_Z)
                    want = 1;
                else if (want < 0)
                    want = 0;
            }
            if (lens_retest_verdict(r, w->sender, w->receiver, &len, 1) != want)
                abort();
            (void)lens_retest_role_name(w->role);
        }
    }
    lens_retest_free(r);
    return 0;
}
