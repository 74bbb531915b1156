/* Fuzz target "sentences": the `key = text` file that overrides the sentences of the
 * scalability report (analysis/scale/marks.c, templates/scale.txt), then every sentence drawn from
 * it for marks of each kind and strength, into a buffer too short on purpose for some.
 * Seeds: templates/scale.txt and short hand-made files. */
#include "fuzz_common.h"
#include "analysis/scale/marks.h"

#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("scale.txt", data, size);
    struct lens_err e = {0};
    struct lens_marks_text *t = lens_marks_text_new();
    if (!t)
        fuzz_die("allocate", "texts");
    if (fuzz_said("load", lens_marks_text_load(t, path, &e), &e) == LENS_OK) {
        static const double marks[] = {-1, -0.2, -0.01, 0, 0.003, 0.05, 1e300, NAN};
        char buf[256], small[8];
        for (int key = LENS_MARKS_PROCS; key <= LENS_MARKS_ALL; key++)
            for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
                lens_marks_describe(t, key, marks[i], buf, sizeof buf, &e);
                lens_marks_describe(t, key, marks[i], small, sizeof small, &e);
            }
    }
    lens_marks_text_free(t);
    return 0;
}
