/* Fuzz target "rules": a rule file (analysis/trace/rules.c: lexer, parser into expression trees)
 * and, when it parses, binding to the analyzer's event types and evaluation on every
 * composite instance of a small trace (analysis/trace/problems.c, ruleeval.c), as
 * `mpilens problems` does. The trace (3 ranks: a late sender into a Waitall, a barrier, an
 * exclusive-lock conflict and a post/start/complete/wait epoch) is written once per process
 * with OTF2's writer. Seeds: the files of templates/rules and short hand-made rules. */
#include "fuzz_common.h"
#include "analysis/trace/trace.h"
#include "analysis/trace/problems.h"
#include "analysis/trace/rules.h"
#include "../synth_otf2.h"

static const char *trace_dir(void)
{
    static int made;
    const char *dir = fuzz_path(1, "trace");
    if (made)
        return dir;
    struct synth s;
    if (synth_open(&s, dir, 3))
        fuzz_die("open the trace", dir);
    int g01 = synth_group(&s, 2, (int[]){0, 1}), g2 = synth_group(&s, 1, (int[]){2});
    /* p2p: rank 0 receives from 1 (blocking send, late) and 2 (isend) in one Waitall */
    synth_enter(&s, 0, 0.0, SR_MAIN);
    synth_enter(&s, 0, 1.0, SR_IRECV);
    synth_irecv_request(&s, 0, 1.0005, 71);
    synth_leave(&s, 0, 1.001, SR_IRECV);
    synth_enter(&s, 0, 1.101, SR_IRECV);
    synth_irecv_request(&s, 0, 1.1015, 72);
    synth_leave(&s, 0, 1.102, SR_IRECV);
    synth_enter(&s, 0, 2.0, SR_WAITALL);
    synth_irecv(&s, 0, 7.4, 2, 5, 4096, 72);
    synth_irecv(&s, 0, 7.45, 1, 5, 1024, 71);
    synth_leave(&s, 0, 7.5, SR_WAITALL);
    synth_enter(&s, 1, 0.5, SR_MAIN);
    synth_enter(&s, 1, 6.0, SR_SEND);
    synth_send(&s, 1, 6.05, 0, 5, 1024);
    synth_leave(&s, 1, 6.1, SR_SEND);
    synth_enter(&s, 2, 0.25, SR_MAIN);
    synth_enter(&s, 2, 7.0, SR_ISEND);
    synth_isend(&s, 2, 7.005, 0, 5, 4096, 9);
    synth_leave(&s, 2, 7.01, SR_ISEND);
    synth_enter(&s, 2, 7.2, SR_WAIT);
    synth_isend_complete(&s, 2, 7.25, 9);
    synth_leave(&s, 2, 7.3, SR_WAIT);
    /* a barrier that rank 2 enters late */
    for (int r = 0; r < 3; r++)
        synth_coll(&s, r, r == 2 ? 9.0 : 8.0, 9.1, SR_BARRIER, 0, -1);
    /* RMA: rank 1 waits for target 2's exclusive lock held by rank 0; then a PSCW epoch */
    for (int r = 0; r < 3; r++)
        synth_win_create(&s, r, 10.0 + 0.1 * r, 10.5);
    synth_lock(&s, 0, 11.0, 11.01, 2, 1);
    synth_put(&s, 0, 11.01, 11.02, 2);
    synth_unlock(&s, 0, 12.99, 13.0, 2);
    synth_lock(&s, 1, 11.5, 13.0, 2, 1);
    synth_unlock(&s, 1, 13.1, 13.2, 2);
    synth_pscw(&s, 2, 15.0, 15.01, SR_WIN_POST, g01);
    synth_pscw(&s, 2, 15.5, 18.0, SR_WIN_WAIT, -1);
    synth_pscw(&s, 0, 14.0, 15.02, SR_WIN_START, g2);
    synth_put(&s, 0, 15.02, 15.03, 2);
    synth_pscw(&s, 0, 15.03, 15.04, SR_WIN_COMPLETE, -1);
    synth_pscw(&s, 1, 14.0, 15.02, SR_WIN_START, g2);
    synth_pscw(&s, 1, 17.0, 17.01, SR_WIN_COMPLETE, -1);
    for (int r = 0; r < 3; r++)
        synth_leave(&s, r, 20.0, SR_MAIN);
    if (synth_close(&s, NULL))
        fuzz_die("write the trace", dir);
    made = 1;
    return dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *dir = trace_dir();
    char *text = fuzz_cstr(data, size);
    struct lens_err e = {0};
    struct lens_rules *r = lens_rules_new();
    struct lens_trace *t = NULL;
    struct lens_problems *p = NULL;
    if (!r)
        fuzz_die("allocate", "rules");
    if (fuzz_said("parse", lens_rules_parse(r, "fuzz.rules", text, &e), &e) == LENS_OK &&
        fuzz_said("trace", lens_trace_read(dir, &t, &e), &e) == LENS_OK) {
        /* analyze owns r from here on, also when it fails */
        if (fuzz_said("analyze", lens_problems_analyze(t, r, &p, &e), &e) == LENS_OK) {
            lens_problems_write_text(p, 0, fuzz_null());
            lens_problems_write_json(p, 1, fuzz_null());
        }
        r = NULL;
    }
    lens_problems_free(p);
    lens_trace_free(t);
    lens_rules_free(r);
    free(text);
    return 0;
}
