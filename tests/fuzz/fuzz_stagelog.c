/* Fuzz target "stagelog": a stage log (JSON lines, analysis/profile/stagelog.c) as `mpilens stages`
 * reads it, then the occupancy, the JSON summary and the per-task CSV it writes.
 * Seeds: the head of samples/stages/luna_sim.jsonl and short hand-made logs. */
#include "fuzz_common.h"
#include "analysis/profile/stagelog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("stages.jsonl", data, size);
    struct lens_err e = {0};
    struct lens_stagelog *l = NULL;
    if (fuzz_said("read", lens_stagelog_read(path, NULL, LENS_STAGELOG_SYNCED, &l, &e), &e) == LENS_OK) {
        lens_stagelog_write_json(l, 16, fuzz_null(), &e);
        lens_stagelog_write_tasks_csv(l, fuzz_null(), &e);
    }
    lens_stagelog_free(l);
    return 0;
}
