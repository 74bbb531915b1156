/* Fuzz target "profile": a per-process profile CSV (process,function,seconds) as
 * `mpilens profile-clusters` reads it (analysis/profile/profile.c), written back and read again.
 * Oracle besides the sanitizers: the profile read back has the same processes and the
 * same non-zero values.
 * Seeds: the heads of the CSV files of samples/profiles and hand-made files. */
#include "fuzz_common.h"
#include "analysis/profile/profile.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("profile.csv", data, size);
    struct lens_err e = {0};
    struct lens_profile *p = NULL, *back = NULL;
    if (fuzz_said("read", lens_profile_read_csv(path, &p, &e), &e) == LENS_OK) {
        const char *again = fuzz_path(1, "again.csv");
        if (lens_profile_write_csv(p, again, &e) == LENS_OK) {
            if (lens_profile_read_csv(again, &back, &e) != LENS_OK)
                fuzz_die("read back the profile written:", e.msg);
            /* zero entries are not written (0 = never called) but for one per process that
               has nothing else, so every process comes back while a function with only zeros
               may vanish; columns are in order of first appearance, which the rank-sorted
               file changes: match functions by name and processes by rank */
            if (back->nproc != p->nproc)
                fuzz_die("read back every process from", again);
            for (size_t r = 0; r < p->nproc; r++)
                for (size_t f = 0; f < p->nfunc; f++) {
                    double x = p->sec[r * p->nfunc + f];
                    if (x == 0)
                        continue;
                    long g = lens_profile_find(back, p->funcs[f]);
                    size_t rb = 0;
                    while (rb < back->nproc && back->ranks[rb] != p->ranks[r])
                        rb++;
                    if (g < 0 || rb == back->nproc)
                        fuzz_die("find a process or function again in", again);
                    double y = back->sec[rb * back->nfunc + (size_t)g];
                    /* %.17g round-trips a double exactly */
                    if (!(x == y || (isnan(x) && isnan(y))))
                        fuzz_die("read back the profile's values from", again);
                }
        }
    }
    lens_profile_free(back);
    lens_profile_free(p);
    return 0;
}
