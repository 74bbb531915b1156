/* Fuzz target "criteria": an acceptance contract (analysis/accept/criteria.c: the tokenizer,
 * units, keys, quoted labels, UTF-8 checks). Seeds: the contracts of samples/criteria and short
 * hand-made lines with every unit and error kind. */
#include "fuzz_common.h"
#include "analysis/accept/accept.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_put("contract.criteria", data, size);
    struct lens_err e = {0};
    struct lens_criteria *cr = NULL;
    /* both entry points: the file reader adds the size and NUL checks to the text parser */
    if (fuzz_said("read", lens_criteria_read(path, &cr, &e), &e) == LENS_OK)
        lens_criteria_free(cr);
    return 0;
}
