/* The data-quality gate's cores per host (issue 14): the count a cube recorded (cores_per_host,
 * lens_quality_opts_recorded) decides oversubscription when the user gave none, --cores wins
 * over it, and a text that is no count leaves the check off; the verdict says which it used.
 * The expected verdicts are worked by hand from the synthetic placement (P ranks on N hosts). */
#include "lens_test.h"

#include "analysis/cube/cube.h"

#include <string.h>

static struct lens_cube *synth(int procs, int nodes)
{
    struct lens_synth_opts o;
    struct lens_err e;
    struct lens_cube *c = NULL;
    lens_synth_opts_init(&o);
    o.procs = procs;
    o.nodes = nodes;
    if (lens_synth_cube(&o, &c, &e) != LENS_OK)
        return NULL;
    c->repeats = 100;
    return c;
}

/* The gate on c with the cores of recorded (NULL: absent) over opts o; returns the reasons. */
static unsigned gate(const struct lens_cube *c, struct lens_quality_opts o, const char *recorded, int want_taken,
                     struct lens_quality *q)
{
    struct lens_err e;
    int taken = lens_quality_opts_recorded(&o, recorded);
    LENS_TEST(taken == want_taken, "'%s' taken: %d, want %d", recorded ? recorded : "(none)", taken, want_taken);
    LENS_TEST(lens_quality_check(c, LENS_STAT_MEDIAN, &o, q, &e) == LENS_OK, "gate runs: %s", e.msg);
    return q->reasons;
}

int main(void)
{
    struct lens_quality q;
    struct lens_quality_opts def, cli;
    lens_quality_opts_default(&def);
    cli = def;
    cli.cores = 8;
    cli.cores_source = LENS_QUALITY_CORES_OPTION;

    /* 4 ranks on 1 host: one host fails anyway; oversubscription depends on the cores alone */
    struct lens_cube *c = synth(4, 1);
    LENS_TEST(c != NULL, "synth 4 ranks on 1 host");
    if (!c)
        return LENS_TEST_DONE("test_quality_cores");
    gate(c, def, "2", 1, &q);
    LENS_TEST(q.reasons & LENS_QUALITY_OVERSUBSCRIBED, "recorded 2 cores, 4 ranks: oversubscribed (0x%x)", q.reasons);
    LENS_TEST(q.cores == 2 && q.cores_source == LENS_QUALITY_CORES_RECORDED && q.max_per_host == 4,
              "cores 2 recorded, 4 per host: %d %d %d", q.cores, q.cores_source, q.max_per_host);
    gate(c, def, "8", 1, &q);
    LENS_TEST(!(q.reasons & LENS_QUALITY_OVERSUBSCRIBED), "recorded 8 cores: not oversubscribed (0x%x)", q.reasons);
    LENS_TEST(q.cores == 8 && q.cores_source == LENS_QUALITY_CORES_RECORDED, "source recorded");
    gate(c, def, "4", 1, &q);
    LENS_TEST(!(q.reasons & LENS_QUALITY_OVERSUBSCRIBED), "4 ranks on 4 recorded cores: not oversubscribed");
    /* absent or not a count: not checked, and said so */
    static const char *const bad[] = {NULL, "unknown", "", "0", "-2", "8 cores", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gate(c, def, bad[i], 0, &q);
        LENS_TEST(!(q.reasons & LENS_QUALITY_OVERSUBSCRIBED) && q.cores == 0 &&
                      q.cores_source == LENS_QUALITY_CORES_UNKNOWN,
                  "'%s': not checked (0x%x, cores %d, source %d)", bad[i] ? bad[i] : "(none)", q.reasons, q.cores,
                  q.cores_source);
    }
    /* --cores wins over the attribute, both ways */
    gate(c, cli, "2", 0, &q);
    LENS_TEST(!(q.reasons & LENS_QUALITY_OVERSUBSCRIBED) && q.cores == 8 && q.cores_source == LENS_QUALITY_CORES_OPTION,
              "--cores 8 over recorded 2: not oversubscribed, source option");
    cli.cores = 3;
    gate(c, cli, "8", 0, &q);
    LENS_TEST((q.reasons & LENS_QUALITY_OVERSUBSCRIBED) && q.cores == 3 && q.cores_source == LENS_QUALITY_CORES_OPTION,
              "--cores 3 over recorded 8: oversubscribed, source option");
    /* a caller that sets cores without a source (older code) is read as an option */
    struct lens_quality_opts old = def;
    old.cores = 2;
    gate(c, old, "8", 0, &q);
    LENS_TEST((q.reasons & LENS_QUALITY_OVERSUBSCRIBED) && q.cores_source == LENS_QUALITY_CORES_OPTION,
              "cores set without a source: kept, reported as the option");
    lens_cube_free(c);

    /* 16 ranks on 4 hosts (4 per host) with 2 recorded cores: oversubscribed and nothing else
     * but that, since the machine passes otherwise */
    c = synth(16, 4);
    LENS_TEST(c != NULL, "synth 16 ranks on 4 hosts");
    if (c) {
        LENS_TEST(gate(c, def, "2", 1, &q) == LENS_QUALITY_OVERSUBSCRIBED, "4 per host on 2 cores: only oversubscribed (0x%x)",
                  q.reasons);
        LENS_TEST(gate(c, def, "4", 1, &q) == 0 && q.pass, "4 per host on 4 cores passes (0x%x)", q.reasons);
        lens_cube_free(c);
    }
    return LENS_TEST_DONE("test_quality_cores");
}
