/* The rule vocabulary of analysis/trace/problems.c as tables (problems.h): the start-up check
 * accepts the built-in one and rejects each kind of broken table (a duplicate name, a field
 * without getter, a kind whose member types are out of range or repeat another kind); a
 * dummy field added the way docs/design.md says ("one line in its type's table") is usable
 * in a rule at once, and its rule finds exactly what the same rule written with the existing
 * fields finds, also in a composite that declares its members in the other order. */
#include "analysis/trace/trace_analysis.h"
#include "lens_test.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRACE "/otf2/pipit-ping-pong"

/* The dummy field: the message size in KiB, a value no built-in field holds. */
static double get_bytes_kib(const struct lens_problems_inst *x)
{
    return (double)x->p2p->bytes / 1024;
}

/* Copies of the built-in tables the cases below break or extend. */
static struct lens_problems_type types[LENS_PROBLEMS_MAXTYPES];
static struct lens_problems_field fields[LENS_PROBLEMS_MAXF];
static struct lens_problems_kind kinds[16];

static struct lens_problems_vocab copy(void)
{
    const struct lens_problems_vocab *b = lens_problems_vocab_builtin();
    memcpy(types, b->types, (size_t)b->ntypes * sizeof *types);
    memcpy(kinds, b->kinds, (size_t)b->nkinds * sizeof *kinds);
    return (struct lens_problems_vocab){types, b->ntypes, kinds, b->nkinds};
}

static int type_index(const struct lens_problems_vocab *v, const char *name)
{
    for (int i = 0; i < v->ntypes; i++)
        if (!strcmp(v->types[i].name, name))
            return i;
    return -1;
}

/* Type t with its fields copied into fields[] (so one can be changed), plus extra rows. */
static void own_fields(struct lens_problems_vocab *v, int t,
                       const struct lens_problems_field *extra, int nextra)
{
    int n = v->types[t].nfields;
    memcpy(fields, v->types[t].fields, (size_t)n * sizeof *fields);
    memcpy(fields + n, extra, (size_t)nextra * sizeof *fields);
    types[t].fields = fields;
    types[t].nfields = n + nextra;
}

static void expect_bad(struct lens_problems_vocab v, const char *what, const char *want)
{
    struct lens_err e = {0};
    int rc = lens_problems_vocab_check(&v, &e);
    LENS_TEST(rc == LENS_EINVAL && strstr(e.msg, want), "%s: rejected naming '%s' (%d: %s)", what,
              want, rc, e.msg);
}

static void check_tables(void)
{
    struct lens_err e = {0};
    LENS_TEST(lens_problems_vocab_check(lens_problems_vocab_builtin(), &e) == LENS_OK,
              "the built-in vocabulary passes: %s", e.msg);
    struct lens_problems_vocab v = copy();
    int send = type_index(&v, "send"), recv = type_index(&v, "recv");
    LENS_TEST(send >= 0 && recv >= 0, "send and recv types");
    if (send < 0 || recv < 0)
        return;

    v = copy();
    types[recv].name = "send";
    expect_bad(v, "duplicate type", "type 'send' twice");

    v = copy();
    own_fields(&v, send, &(struct lens_problems_field){"tag", 'n', get_bytes_kib}, 1);
    expect_bad(v, "duplicate field", "field 'send.tag' twice");

    v = copy();
    own_fields(&v, send, &(struct lens_problems_field){"bytes_kib", 'n', NULL}, 1);
    expect_bad(v, "missing getter", "(bytes_kib) lacks a name, a getter");

    v = copy();
    own_fields(&v, send, &(struct lens_problems_field){"bytes_kib", 'x', get_bytes_kib}, 1);
    expect_bad(v, "bad value type", "(bytes_kib) lacks a name, a getter or a type");

    v = copy(); /* a kind pointing past the type table: the tables are misaligned */
    kinds[1].member[1] = v.ntypes;
    expect_bad(v, "member type out of range", "kind 1 needs two distinct member types");

    v = copy();
    kinds[2].member[0] = kinds[2].member[1];
    expect_bad(v, "same member type twice", "kind 2 needs two distinct member types");

    v = copy();
    kinds[v.nkinds] = kinds[0];
    kinds[v.nkinds].member[0] = kinds[0].member[1];
    kinds[v.nkinds].member[1] = kinds[0].member[0];
    v.nkinds++;
    expect_bad(v, "a kind twice", "kind recv+send twice");

    v = copy();
    kinds[0].build = NULL;
    expect_bad(v, "kind without builder", "lacks count, build or may_repeat");

    v = copy();
    v.ntypes = LENS_PROBLEMS_MAXTYPES + 1;
    expect_bad(v, "too many types", "needs 1..");
}

/* Three problems on messages of at least 512 bytes: one with the dummy field, one with the
 * existing bytes field, and the first again in a composite declaring recv before send. Each
 * is detected in a rule base of its own: in one rule base they would charge the same receive
 * calls, and a call's waiting time goes to one problem only (the first declared). */
static const char *const rules_text[3] = {
    "declare composite event msg member (send as s, recv as r);\n"
    "declare problem for msg when s.bytes_kib >= 0.5 parameters (id = \"kib\", name = \"kib\",\n"
    "  description = \"d\", advice = \"a\", duration = s.bytes_kib, location = r);\n",
    "declare composite event msg member (send as s, recv as r);\n"
    "declare problem for msg when s.bytes / 1024 >= 0.5 parameters (id = \"ref\", name = \"ref\",\n"
    "  description = \"d\", advice = \"a\", duration = s.bytes / 1024, location = r);\n",
    "declare composite event gsm member (recv as r, send as s);\n"
    "declare problem for gsm when s.bytes_kib >= 0.5 parameters (id = \"kib_rev\", name = \"k\",\n"
    "  description = \"d\", advice = \"a\", duration = s.bytes_kib, location = r);\n"};

/* Detects the one problem of rules_text[k] with vocabulary v (NULL when it fails). */
static struct lens_problems *detect_one(int k, const struct lens_trace *t,
                                        const struct lens_events *ev,
                                        const struct lens_problems_vocab *v)
{
    struct lens_err e = {0};
    struct lens_problems *p = NULL;
    struct lens_rules *r = lens_rules_new();
    LENS_TEST(r && lens_rules_parse(r, "dummy.rules", rules_text[k], &e) == LENS_OK,
              "parse %d: %s", k, e.msg);
    if (!r)
        return NULL;
    LENS_TEST(lens_problems_detect(t, ev, r, v, 0, &p, &e) == LENS_OK, "detect %d: %s", k,
              e.msg);
    LENS_TEST(!p || p->nres == 1, "one problem in rule base %d", k);
    return p && p->nres == 1 ? p : NULL;
}

static void dummy_field(const char *path)
{
    struct lens_err e = {0};
    struct lens_problems_vocab v = copy();
    int send = type_index(&v, "send");
    /* the recipe: one row in the type's table */
    own_fields(&v, send, &(struct lens_problems_field){"bytes_kib", 'n', get_bytes_kib}, 1);
    LENS_TEST(lens_problems_vocab_check(&v, &e) == LENS_OK, "extended vocabulary: %s", e.msg);

    struct lens_rules *plain = lens_rules_new();
    lens_rules_parse(plain, "dummy.rules", rules_text[0], &e);
    LENS_TEST(lens_problems_bind(plain, NULL, &e) == LENS_EFORMAT && strstr(e.msg, "bytes_kib"),
              "without the row the field is unknown: %s", e.msg);
    lens_rules_free(plain);

    struct lens_trace *t = NULL;
    struct lens_events *ev = NULL;
    LENS_TEST(lens_trace_read(path, &t, &e) == LENS_OK, "read %s: %s", path, e.msg);
    LENS_TEST(t && lens_events_build(t, &ev, &e) == LENS_OK, "events: %s", e.msg);
    if (!t || !ev) {
        lens_events_free(ev);
        lens_trace_free(t);
        return;
    }
    /* the independent reference, straight from the events: per message of at least 512
     * bytes its size in KiB, charged to the receive's completing call and so no longer than
     * that call (docs/problems.md: a charge never exceeds its call) */
    double want = 0;
    uint64_t nwant = 0;
    for (size_t i = 0; i < ev->np2p; i++) {
        const struct lens_p2p *m = &ev->p2p[i];
        const struct lens_trace_call *c = &t->ranks[m->dst].calls[m->recv_done];
        double d = fmin((double)m->bytes / 1024, c->leave - c->enter);
        if (m->bytes >= 512 && d > 0) {
            want += d;
            nwant++;
        }
    }
    LENS_TEST(nwant > 0, "the trace has messages of 512 bytes or more: %llu",
              (unsigned long long)nwant);
    struct lens_problems *p[3];
    for (int k = 0; k < 3; k++)
        p[k] = detect_one(k, t, ev, &v);
    const struct lens_problem_result *kib = p[0] ? &p[0]->res[0] : NULL,
                                     *ref = p[1] ? &p[1]->res[0] : NULL,
                                     *rev = p[2] ? &p[2]->res[0] : NULL;
    LENS_TEST(kib && ref && rev && !strcmp(kib->rule->id, "kib") && !strcmp(ref->rule->id, "ref")
              && !strcmp(rev->rule->id, "kib_rev"), "three results");
    if (kib && ref && rev) {
        LENS_TEST_REL(kib->total_s, want, 1e-12, "the dummy field's rule: KiB of the messages");
        LENS_TEST(kib->count == nwant, "one instance per message: %llu of %llu",
                  (unsigned long long)kib->count, (unsigned long long)nwant);
        LENS_TEST(kib->total_s == ref->total_s && kib->count == ref->count,
                  "the same as the rule on the existing field");
        LENS_TEST(rev->total_s == kib->total_s && rev->count == kib->count,
                  "members declared recv first: the same (%g, %g)", rev->total_s, kib->total_s);
    }
    for (int k = 0; k < 3; k++)
        lens_problems_free(p[k]);
    lens_events_free(ev);
    lens_trace_free(t);
}

/* The analysis object builds the events once and cannot be run twice. */
static void analysis_once(const char *path)
{
    struct lens_err e = {0};
    struct lens_trace_analysis *a = NULL;
    unsigned long before = lens_events_builds();
    LENS_TEST(lens_trace_analysis_read(path, "templates/rules", &a, &e) == LENS_OK, "read: %s",
              e.msg);
    LENS_TEST(lens_events_builds() == before, "reading builds no events");
    LENS_TEST(a && lens_trace_analysis_run(a, 0, &e) == LENS_OK && a->problems && a->events,
              "run: %s", e.msg);
    LENS_TEST(lens_events_builds() == before + 1, "one build, %lu", lens_events_builds() - before);
    LENS_TEST(a && lens_trace_analysis_run(a, 0, &e) == LENS_EINVAL, "a second run is refused");
    LENS_TEST(lens_events_builds() == before + 1, "still one build");
    lens_trace_analysis_free(a);
    a = NULL;
    LENS_TEST(lens_trace_analysis_new(path, "/nonexistent-rules", 0, &a, &e) != LENS_OK && !a &&
              strstr(e.msg, "nonexistent-rules"), "missing rules: %s", e.msg);
}

int main(void)
{
    const char *data = getenv("DATA") ? getenv("DATA") : "tests/data";
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s" TRACE, data);
    check_tables();
    dummy_field(path);
    analysis_once(path);
    return LENS_TEST_DONE("test_vocab");
}
