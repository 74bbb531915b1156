/* Fuzz target "otf2": an OTF2 archive through the project's reader (analysis/trace/trace.c,
 * otf2evt.c, with region events kept), the composite events and logical-clock fix
 * (analysis/trace/events.c) and the profile builder (analysis/profile/profile_otf2.c). The OTF2 library
 * decodes the files first, so its parser is fuzzed too.
 *
 * An archive is several files, so the input is split at the marker OTF2_FUZZ_MARK into
 * parts written as:  traces.otf2 (anchor), traces.def (global definitions), then for
 * location 0, 1, ...: traces/<n>.def, traces/<n>.evt. A missing part is a missing file. Seeds
 * are the archives of tests/data/otf2 joined this way (tests/fuzz/otf2_seed.sh), so every
 * mutation changes one real file of a real archive; tests/fuzz/otf2.dict holds the marker. */
#include "fuzz_common.h"
#include "analysis/trace/events.h"
#include "analysis/trace/trace.h"
#include "analysis/profile/profile.h"
#include "analysis/profile/profile_otf2.h"

#include <sys/stat.h>

#define OTF2_FUZZ_MARK "\n--mpilens-otf2-part--\n"
#define MAXPARTS (2 + 2 * 16) /* anchor, global defs, 16 locations */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = fuzz_path(1, "archive");
    fuzz_rmtree(dir, 0); /* the last input may have had more locations */
    if (mkdir(dir, 0700) || mkdir(fuzz_path(2, "archive/traces"), 0700))
        fuzz_die("create", dir);
    const size_t mlen = sizeof OTF2_FUZZ_MARK - 1;
    size_t at = 0;
    for (int part = 0; part < MAXPARTS && at <= size; part++) {
        const uint8_t *end = memmem(data + at, size - at, OTF2_FUZZ_MARK, mlen);
        size_t n = end ? (size_t)(end - (data + at)) : size - at;
        char name[64];
        if (part == 0)
            snprintf(name, sizeof name, "archive/traces.otf2");
        else if (part == 1)
            snprintf(name, sizeof name, "archive/traces.def");
        else
            snprintf(name, sizeof name, "archive/traces/%d.%s", (part - 2) / 2, part % 2 ? "evt" : "def");
        fuzz_write(fuzz_path(3, name), data + at, n);
        if (!end)
            break;
        at += n + mlen;
    }

    struct lens_err e = {0};
    struct lens_trace *t = NULL;
    if (fuzz_said("read", lens_trace_read_flags(fuzz_path(2, "archive/traces.otf2"), LENS_TRACE_READ_REGIONS,
                                                &t, &e), &e) == LENS_OK) {
        struct lens_profile *p = NULL;
        if (fuzz_said("profile", lens_profile_otf2_from_trace(t, "fuzz", &p, &e), &e) == LENS_OK)
            lens_profile_free(p);
        struct lens_events *ev = NULL;
        if (fuzz_said("events", lens_events_build(t, &ev, &e), &e) == LENS_OK)
            lens_events_free(ev);
    }
    lens_trace_free(t);
    return 0;
}
