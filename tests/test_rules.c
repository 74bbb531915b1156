/* Tests for analysis/trace/rules.c: parsing, binding and evaluation of the rule language against
 * hand-computed values, and every error path with its file:line:column. */
#include "analysis/trace/ruleeval.h"
#include "common/time.h"
#include "lens_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const ev_fields[] = {"enter", "leave", "rank", "op", NULL};
static const char *const agg_fields[] = {"max_enter", "min_leave", NULL};
static const struct lens_ruleeval_type types[] = {{"ev", ev_fields, "...s"},
                                              {"agg", agg_fields, NULL}};

static const char base[] =
    "# a comment\n"
    "declare composite event pair\n"
    "member (ev as a, shared agg as all)\n"
    "when a.enter >= 0 // trailing comment\n"
    "parameters (wait = min(all.max_enter, a.leave) - a.enter, twice = wait * 2,\n"
    "            kind = a.op);\n";

/* Parses base + extra and binds; returns the rc, message in e. */
static int load(struct lens_rules **r, const char *extra, struct lens_err *e)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", base, extra);
    *r = lens_rules_new();
    int rc = lens_rules_parse(*r, "t.rules", text, e);
    if (!rc)
        rc = lens_ruleeval_bind(*r, types, 2, e);
    return rc;
}

/* Expects the rule text to fail with message want (prefix match). */
static void expect_error(const char *extra, const char *want)
{
    struct lens_rules *r;
    struct lens_err e = {0};
    int rc = load(&r, extra, &e);
    LENS_TEST(rc == LENS_EFORMAT, "'%s' rejected (rc %d)", extra, rc);
    LENS_TEST(!strncmp(e.msg, want, strlen(want)), "message '%s', want '%s'", e.msg, want);
    lens_rules_free(r);
}

static void test_eval(void)
{
    struct lens_rules *r;
    struct lens_err e = {0};
    int rc = load(&r,
                  "declare problem for pair when twice > 1.5e-1 and not (kind == \"bcast\")\n"
                  "parameters (id = \"p\", name = \"N\" \" joined\", description = \"d\\\"q\\\"\",\n"
                  "  advice = \"a\", name_ru = \"Имя\", duration = max(wait, 0.25, -3) - -1 / 4,\n"
                  "  location = all);\n",
                  &e);
    LENS_TEST(rc == LENS_OK, "parse and bind: %s", e.msg);
    if (rc) {
        lens_rules_free(r);
        return;
    }
    LENS_TEST(r->ncomposites == 1 && r->nproblems == 1, "counts %d %d", r->ncomposites,
              r->nproblems);
    const struct lens_rule_problem *p = &r->problems[0];
    LENS_TEST(!strcmp(p->text[0][LENS_RULE_NAME], "N joined"), "joined '%s'",
              p->text[0][LENS_RULE_NAME]);
    LENS_TEST(!strcmp(p->text[0][LENS_RULE_DESCRIPTION], "d\"q\""), "escapes '%s'",
              p->text[0][LENS_RULE_DESCRIPTION]);
    LENS_TEST(!strcmp(p->text[1][LENS_RULE_NAME], "Имя"), "russian '%s'", p->text[1][0]);
    LENS_TEST(p->text[1][LENS_RULE_ADVICE] == NULL, "missing russian advice is NULL");
    LENS_TEST(p->location == 1, "location slot %d", p->location);
    int reduce = lens_rules_intern(r, "reduce"), bcast = lens_rules_intern(r, "bcast");
    LENS_TEST(reduce >= 0 && bcast >= 0 && reduce != bcast, "intern %d %d", reduce, bcast);
    LENS_TEST(lens_rules_intern(r, "bcast") == bcast, "intern is stable");

    /* a: enter 3.7, leave 11.3; all: max_enter 9.1 -> wait = min(9.1, 11.3) - 3.7 = 5.4 */
    double a[] = {3.7, 11.3, 5, reduce}, all[] = {9.1, 10.2};
    const double *mem[] = {a, all};
    double params[3];
    struct lens_ruleeval_ctx x = {mem, params};
    rc = lens_ruleeval_composite(r, 0, &x, &e);
    LENS_TEST(rc == 1, "composite holds (%d: %s)", rc, e.msg);
    LENS_TEST_REL(params[0], 5.4, 1e-12, "wait");
    LENS_TEST_REL(params[1], 10.8, 1e-12, "twice");
    LENS_TEST(params[2] == reduce, "string parameter %g", params[2]);
    double d = 0;
    rc = lens_ruleeval_problem(r, 0, &x, &d, &e);
    LENS_TEST(rc == 1, "problem holds (%d)", rc);
    LENS_TEST_REL(d, 5.4 + 0.25, 1e-12, "duration max(...) - -1/4");
    a[3] = bcast; /* not (kind == "bcast") fails */
    LENS_TEST(lens_ruleeval_composite(r, 0, &x, &e) == 1, "composite");
    LENS_TEST(lens_ruleeval_problem(r, 0, &x, &d, &e) == 0, "string comparison excludes");
    a[3] = reduce;
    a[0] = 9.05; /* wait 0.05, twice 0.1 < 0.15: not a problem; max picks 0.25 otherwise */
    LENS_TEST(lens_ruleeval_composite(r, 0, &x, &e) == 1, "composite");
    LENS_TEST(lens_ruleeval_problem(r, 0, &x, &d, &e) == 0, "threshold");
    a[0] = -1.5; /* composite when fails */
    LENS_TEST(lens_ruleeval_composite(r, 0, &x, &e) == 0, "composite when false");
    lens_rules_free(r);
}

static void test_precedence(void)
{
    /* each: expression, expected value with a.enter = 2, a.leave = 7 */
    static const struct {
        const char *expr;
        double want;
    } cases[] = {{"1 + 2 * 3", 7},           {"(1 + 2) * 3", 9},
                 {"a.leave - a.enter - 1", 4}, {"-a.enter * 3", -6},
                 {"8 / 2 / 2", 2},           {"1 < 2 and 3 > 4 or 5 == 5", 1},
                 {"not 1 < 2", 0},           {"abs(a.enter - a.leave)", 5},
                 {"min(a.leave, 4, 9)", 4},  {"1 != 1 or not false", 1},
                 {"true and 2 <= 2 and 3 >= 4", 0}, {".5 + 1e1", 10.5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        snprintf(text, sizeof text, "declare composite event q member (ev as a) "
                                    "parameters (v = %s);", cases[i].expr);
        struct lens_rules *r = lens_rules_new();
        struct lens_err e = {0};
        int rc = lens_rules_parse(r, "p.rules", text, &e);
        if (!rc)
            rc = lens_ruleeval_bind(r, types, 2, &e);
        LENS_TEST(rc == LENS_OK, "'%s': %s", cases[i].expr, e.msg);
        if (!rc) {
            double a[] = {2, 7, 0, 0}, params[1];
            const double *mem[] = {a};
            struct lens_ruleeval_ctx x = {mem, params};
            LENS_TEST(lens_ruleeval_composite(r, 0, &x, &e) == 1, "eval '%s'", cases[i].expr);
            LENS_TEST_REL(params[0], cases[i].want, 1e-12, "'%s'", cases[i].expr);
        }
        lens_rules_free(r);
    }
}

static void test_division_by_zero(void)
{
    struct lens_rules *r;
    struct lens_err e = {0};
    int rc = load(&r,
                  "declare problem for pair parameters (id = \"z\", name = \"n\",\n"
                  "  description = \"d\", advice = \"a\",\n"
                  "  duration = wait / (a.leave - a.leave));\n", &e);
    LENS_TEST(rc == LENS_OK, "load: %s", e.msg);
    double a[] = {1, 2, 0, 0}, all[] = {1.5, 2}, params[3], d;
    const double *mem[] = {a, all};
    struct lens_ruleeval_ctx x = {mem, params};
    LENS_TEST(lens_ruleeval_composite(r, 0, &x, &e) == 1, "composite");
    rc = lens_ruleeval_problem(r, 0, &x, &d, &e);
    LENS_TEST(rc == LENS_EDATA, "division by zero rc %d", rc);
    LENS_TEST(!strcmp(e.msg, "t.rules:9:19: division by zero in z"), "message '%s'", e.msg);
    lens_rules_free(r);
}

static void test_errors(void)
{
    static const char prob[] = "declare problem for pair parameters (id = \"x\", name = \"n\", "
                               "description = \"d\", advice = \"a\", duration = ";
    char buf[1024];
    /* lexer */
    expect_error("declare @", "t.rules:7:9: unexpected character '@'");
    expect_error("\n  \"open", "t.rules:8:3: unterminated string");
    expect_error("x = \"a\\qb\"", "t.rules:7:7: unknown escape '\\q' in string");
    expect_error("12abc", "t.rules:7:1: malformed number");
    /* declarations */
    expect_error("oops", "t.rules:7:1: expected 'declare' at the start of a declaration, got 'oops'");
    expect_error("declare thing", "t.rules:7:9: expected 'composite' or 'problem' after 'declare', got 'thing'");
    expect_error("declare composite x", "t.rules:7:19: expected 'event' after 'composite', got 'x'");
    expect_error("declare composite event 5", "t.rules:7:25: expected the composite event's type name, got 'number'");
    expect_error("declare composite event pair member (ev as b);",
                 "t.rules:7:25: composite event 'pair' declared twice");
    expect_error("declare composite event c2 (", "t.rules:7:28: expected 'member' after the composite event's name, got '('");
    expect_error("declare composite event c2 member ev", "t.rules:7:35: expected '(' after 'member', got 'ev'");
    expect_error("declare composite event c2 member (ev b)", "t.rules:7:39: expected 'as' after the member's event type, got 'b'");
    expect_error("declare composite event c2 member (ev as a, agg as a)", "t.rules:7:52: member name 'a' used twice");
    expect_error("declare composite event c2 member (ev as a when", "t.rules:7:44: expected ')' after the member list, got 'when'");
    expect_error("declare composite event c2 member (ev as a)", "t.rules:7:44: expected ';' at the end of the declaration, got 'end of file'");
    expect_error("declare composite event c2 member (ev as a) parameters (v = 1, v = 2);",
                 "t.rules:7:64: parameter 'v' given twice");
    expect_error("declare composite event c2 member (ev as a) parameters (v 1);",
                 "t.rules:7:59: expected '=' after the parameter name, got 'number'");
    expect_error("declare composite event c2 member (ev as a) parameters (v = 1;",
                 "t.rules:7:62: expected ')' after the parameters, got ';'");
    /* expressions */
    expect_error("declare composite event c2 member (ev as a) when (1 + ;",
                 "t.rules:7:55: expected a value, got ';'");
    expect_error("declare composite event c2 member (ev as a) when 1 < 2 < 3;",
                 "t.rules:7:56: comparisons do not chain: use 'and' before '<'");
    expect_error("declare composite event c2 member (ev as a) when sqrt(4);",
                 "t.rules:7:50: unknown function 'sqrt' (known: min, max, abs)");
    expect_error("declare composite event c2 member (ev as a) when abs(1, 2);",
                 "t.rules:7:55: expected ')' after the argument of abs, got ','");
    expect_error("declare composite event c2 member (ev as a) when a. ;",
                 "t.rules:7:53: expected a field name after '.', got ';'");
    /* problems */
    expect_error("declare problem pair", "t.rules:7:17: expected 'for' after 'problem', got 'pair'");
    expect_error("declare problem for nope parameters (id = \"x\");",
                 "t.rules:7:21: unknown composite event type 'nope' (declare it first)");
    expect_error("declare problem for pair when 1;", "t.rules:7:32: expected 'parameters' in a problem declaration, got ';'");
    expect_error("declare problem for pair parameters (id = \"x\", colour = 1);",
                 "t.rules:7:48: unknown problem parameter 'colour'");
    expect_error("declare problem for pair parameters (id = 3);",
                 "t.rules:7:38: parameter 'id' must be a string literal");
    expect_error("declare problem for pair parameters (id = \"x\", name = \"n\");",
                 "t.rules:7:1: problem lacks the parameter 'description'");
    snprintf(buf, sizeof buf, "%s1, location = 3);", prob);
    expect_error(buf, "t.rules:7:107: parameter 'location' must name a member");
    snprintf(buf, sizeof buf, "%s1);\n%s2);", prob, prob);
    expect_error(buf, "t.rules:8:1: problem id 'x' declared twice");
    snprintf(buf, sizeof buf, "%s1, waits = \"later\");", prob);
    expect_error(buf, "t.rules:7:107: parameter 'waits' must be \"from_enter\" or \"until_leave\"");
    /* waits: the default, and both values */
    const char *const waits[3] = {"", ", waits = \"until_leave\"", ", waits = \"from_enter\""};
    for (int w = 0; w < 3; w++) {
        struct lens_rules *r;
        struct lens_err e = {0};
        snprintf(buf, sizeof buf, "%s1%s);", prob, waits[w]);
        int rc = load(&r, buf, &e);
        LENS_TEST(rc == LENS_OK && r->nproblems == 1 && r->problems[0].waits_until_leave == (w == 1),
                  "waits case %d: rc %d %s", w, rc, e.msg);
        lens_rules_free(r);
    }
    /* binding */
    expect_error("declare composite event c2 member (nosuch as a);",
                 "t.rules:7:36: unknown event type 'nosuch'");
    snprintf(buf, sizeof buf, "%swait + unknown_param);", prob);
    expect_error(buf, "t.rules:7:111: unknown name 'unknown_param' in composite event 'pair'");
    snprintf(buf, sizeof buf, "%sb.enter);", prob);
    expect_error(buf, "t.rules:7:104: unknown member 'b' in composite event 'pair'");
    snprintf(buf, sizeof buf, "%sa.colour);", prob);
    expect_error(buf, "t.rules:7:104: event type 'ev' has no field 'colour'");
    snprintf(buf, sizeof buf, "%sa);", prob);
    expect_error(buf, "t.rules:7:104: 'a' is an event, not a value: use a.<field>");
    snprintf(buf, sizeof buf, "%skind + 1);", prob);
    expect_error(buf, "t.rules:7:109: a string cannot be used here");
    snprintf(buf, sizeof buf, "%s1, location = zz);", prob);
    expect_error(buf, "t.rules:7:118: location 'zz' is not a member of 'pair'");
    snprintf(buf, sizeof buf, "%skind);", prob);
    expect_error(buf, "t.rules:7:104: duration must be a number, not a string");
    expect_error("declare composite event c2 member (ev as a) when a.op == 1;",
                 "t.rules:7:55: a string cannot be used here (compare strings with strings)");
    expect_error("declare composite event c2 member (ev as a) parameters (v = w, w = 1);",
                 "t.rules:7:61: unknown name 'w' in composite event 'c2'");
}

/* Every allocation in parsing and binding may fail: no leak, no crash, a clean error. */
static void test_fault_injection(void)
{
    static const char text[] = "declare composite event p member (ev as a, agg as g)\n"
                               "when a.op == \"x\" parameters (w = min(g.max_enter, a.leave));\n"
                               "declare problem for p parameters (id = \"i\", name = \"n\" \"m\",\n"
                               "  description = \"d\", advice = \"a\", duration = w - a.enter,\n"
                               "  location = a);\n";
    int failures = 0, ok = 0;
    for (long n = 1; n < 400 && !ok; n++) {
        struct lens_err e = {0};
        lens_malloc_fail_after(n);
        struct lens_rules *r = lens_rules_new();
        int rc = r ? lens_rules_parse(r, "f.rules", text, &e) : LENS_ENOMEM;
        if (!rc)
            rc = lens_ruleeval_bind(r, types, 2, &e);
        if (!rc)
            rc = lens_rules_intern(r, "fresh string") < 0 ? LENS_ENOMEM : LENS_OK;
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            ok = 1;
        else if (rc == LENS_ENOMEM)
            failures++;
        else
            LENS_TEST(0, "allocation failure %ld gave rc %d: %s", n, rc, e.msg);
        lens_rules_free(r);
    }
    LENS_TEST(ok && failures > 10, "fault injection walked %d failures to success", failures);
}


/* Parses text as t.rules (no binding); returns the rc, message in e. */
static int parse_only(const char *text, struct lens_err *e)
{
    struct lens_rules *r = lens_rules_new();
    int rc = r ? lens_rules_parse(r, "t.rules", text, e) : LENS_ENOMEM;
    lens_rules_free(r);
    return rc;
}

/* "t.rules:1:COL: expression nested deeper than 256 levels" is the message of both bounds. */
static void expect_deep(const char *what, int rc, const struct lens_err *e, size_t col)
{
    char want[128];
    snprintf(want, sizeof want, "t.rules:1:%zu: expression nested deeper than %d levels", col,
             LENS_RULES_MAX_DEPTH);
    LENS_TEST(rc == LENS_EFORMAT, "%s: rc %d", what, rc);
    LENS_TEST(!strncmp(e->msg, want, strlen(want)), "%s: message '%.200s', want '%s'", what,
              e->msg, want);
}

/* The fuzzer's reproducers: 100,000 nested parentheses, 'not's and unary '-'s, and a 10 MB
 * sum, each overflowed the stack of the parser or the binder. Columns are worked out from the
 * text: the parser refuses the token that would open level 257. */
static void test_depth_limits(void)
{
    static const char head[] = "declare composite event deep member (ev as a) parameters (x = ";
    size_t h = strlen(head), big = 100000;
    char *t = malloc(h + 10 * 1000 * 1000 + 64);
    struct lens_err e = {0};
    if (!t) {
        LENS_TEST(0, "out of memory");
        return;
    }
    /* parentheses: the expression itself is level 1, the k-th '(' opens level k + 1 */
    memcpy(t, head, h);
    memset(t + h, '(', big);
    strcpy(t + h + big, "a.enter");
    memset(t + h + big + 7, ')', big);
    strcpy(t + h + 2 * big + 7, ");\n");
    expect_deep("100000 parentheses", parse_only(t, &e), &e, h + 256 + 1);
    /* 'not': the k-th opens level k + 1, so the 256th is refused */
    size_t n = h;
    for (size_t k = 0; k < big; k++)
        memcpy(t + n, "not ", 4), n += 4;
    strcpy(t + n, "true);\n");
    expect_deep("100000 not", parse_only(t, &e), &e, h + 4 * 255 + 1);
    /* unary minus, the same */
    memset(t + h, '-', big);
    strcpy(t + h + big, "a.enter);\n");
    expect_deep("100000 unary -", parse_only(t, &e), &e, h + 255 + 1);
    /* a 10 MB chain a.enter + a.enter + ...: parsed by a loop, but the k-th '+' makes a tree
     * of height k + 1, so the 256th '+' is refused; it sits after "a.enter" and 255 times
     * " + a.enter", then a space */
    n = h;
    memcpy(t + n, "a.enter", 7), n += 7;
    while (n < h + 10 * 1000 * 1000)
        memcpy(t + n, " + a.enter", 10), n += 10;
    strcpy(t + n, ");\n");
    double t0 = lens_time_now();
    expect_deep("10 MB sum", parse_only(t, &e), &e, h + 7 + 255 * 10 + 2);
    LENS_TEST(lens_time_now() - t0 < 20, "10 MB sum refused in %.1f s", lens_time_now() - t0);

    /* just inside the limits: 255 parentheses, and a sum of 256 terms (255 '+', height 256)
     * that binds and evaluates to 256 * enter */
    memset(t + h, '(', 255);
    strcpy(t + h + 255, "a.enter");
    memset(t + h + 262, ')', 255);
    strcpy(t + h + 517, ");\n");
    LENS_TEST(parse_only(t, &e) == LENS_OK, "255 parentheses: %s", e.msg);
    n = h;
    memcpy(t + n, "a.enter", 7), n += 7;
    for (int k = 0; k < 255; k++)
        memcpy(t + n, " + a.enter", 10), n += 10;
    strcpy(t + n, ", y = ");
    n += 6;
    for (int k = 0; k < 255; k++)
        t[n++] = '-';
    strcpy(t + n, "a.enter);\n");
    struct lens_rules *r = lens_rules_new();
    int rc = lens_rules_parse(r, "t.rules", t, &e);
    if (!rc)
        rc = lens_ruleeval_bind(r, types, 2, &e);
    LENS_TEST(rc == LENS_OK, "256 terms and 255 '-' bind: %s", e.msg);
    if (!rc) {
        double f[4] = {0.5, 1, 0, 0}, params[2] = {0, 0};
        const double *mem[1] = {f};
        struct lens_ruleeval_ctx x = {mem, params};
        LENS_TEST(lens_ruleeval_composite(r, 0, &x, &e) == 1, "evaluates: %s", e.msg);
        LENS_TEST(params[0] == 128 && params[1] == -0.5, "256 * 0.5 = %g, (-)^255 0.5 = %g",
                  params[0], params[1]);
        /* Trees made by hand, not by the parser: y's innermost '-' (node 257, after x's 511
         * nodes and y's leaf) points at x's root (510) -> height 255 + 256 = 511. The
         * evaluator refuses it on the bound tree, the binder on a fresh bind. */
        LENS_TEST(r->nodes[511].op == LENS_RN_FIELD && r->nodes[512].op == LENS_RN_NEG &&
                  r->nodes[512].a == 511 && r->nodes[510].op == LENS_RN_ADD, "node layout");
        r->nodes[512].a = 510;
        rc = lens_ruleeval_composite(r, 0, &x, &e);
        LENS_TEST(rc == LENS_EDATA && strstr(e.msg, "nested deeper than 256 levels"),
                  "evaluator bound: rc %d '%s'", rc, e.msg);
        rc = lens_ruleeval_bind(r, types, 2, &e);
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "nested deeper than 256 levels"),
                  "binder bound: rc %d '%s'", rc, e.msg);
    }
    lens_rules_free(r);

    /* the size bound: one byte over 16 MiB, as text and as a file */
    size_t over = LENS_RULES_MAX_TEXT + 1;
    char *huge = malloc(over + 1);
    if (huge) {
        memset(huge, ' ', over);
        huge[over] = '\0';
        rc = parse_only(huge, &e);
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "t.rules: 16777217 bytes, more than"),
                  "16 MiB + 1 text: rc %d '%s'", rc, e.msg);
        char dir[] = "/tmp/mpilens-rules-XXXXXX", path[64];
        if (mkdtemp(dir)) {
            snprintf(path, sizeof path, "%s/big.rules", dir);
            FILE *fp = fopen(path, "w");
            if (fp) {
                fwrite(huge, 1, over, fp);
                fclose(fp);
            }
            r = lens_rules_new();
            rc = lens_rules_load_dir(r, dir, &e);
            LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "big.rules: more than 16777216 bytes"),
                      "16 MiB + 1 file: rc %d '%s'", rc, e.msg);
            lens_rules_free(r);
            remove(path);
            rmdir(dir);
        }
        free(huge);
    }
    free(t);
}

/* Counts compared pairwise are bounded; interning many literals stays exact. */
static void test_count_limits(void)
{
    char *t = malloc(64 * 1024);
    struct lens_err e = {0};
    if (!t)
        return;
    size_t n = (size_t)sprintf(t, "declare composite event c member (");
    for (int k = 0; k <= LENS_RULES_MAX_MEMBERS; k++)
        n += (size_t)sprintf(t + n, "%sev as m%d", k ? ", " : "", k);
    strcpy(t + n, ");\n");
    int rc = parse_only(t, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "more than 64 members in one composite event (at 'm64')"),
              "65 members: rc %d '%s'", rc, e.msg);
    n = (size_t)sprintf(t, "declare composite event c member (ev as a) parameters (");
    for (int k = 0; k <= LENS_RULES_MAX_PARAMS; k++)
        n += (size_t)sprintf(t + n, "%sp%d = %d", k ? ", " : "", k, k);
    strcpy(t + n, ");\n");
    rc = parse_only(t, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "more than 64 parameters in one declaration (at 'p64')"),
              "65 parameters: rc %d '%s'", rc, e.msg);
    free(t);
    /* 4097 composite events: the last one is refused at its name */
    t = malloc((LENS_RULES_MAX_DECLS + 1) * 64);
    if (t) {
        n = 0;
        for (int k = 0; k <= LENS_RULES_MAX_DECLS; k++)
            n += (size_t)sprintf(t + n, "declare composite event c%d member (ev as a);\n", k);
        rc = parse_only(t, &e);
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "t.rules:4097:25: more than 4096 composite events (at 'c4096')"),
                  "4097 composites: rc %d '%s'", rc, e.msg);
        free(t);
    }
    struct lens_rules *r = lens_rules_new();
    int ok = r != NULL;
    char buf[32];
    for (int k = 0; k < 20000 && ok; k++) {
        snprintf(buf, sizeof buf, "s%d", k);
        ok = lens_rules_intern(r, buf) == k;
    }
    for (int k = 0; k < 20000 && ok; k += 7) {
        snprintf(buf, sizeof buf, "s%d", k);
        ok = lens_rules_intern(r, buf) == k && !strcmp(r->strings[k], buf);
    }
    LENS_TEST(ok && r->nstrings == 20000, "20000 interned strings keep their ids");
    lens_rules_free(r);
}

static void test_load_dir(void)
{
    struct lens_rules *r = lens_rules_new();
    struct lens_err e = {0};
    LENS_TEST(lens_rules_load_dir(r, "/nonexistent-rules", &e) == LENS_EIO, "missing dir");
    LENS_TEST(strstr(e.msg, "/nonexistent-rules: cannot open rule directory") != NULL, "'%s'", e.msg);
    LENS_TEST(lens_rules_load_dir(r, "tests", &e) == LENS_EIO, "dir without rules");
    LENS_TEST(strstr(e.msg, "tests: no *.rules files") != NULL, "'%s'", e.msg);
    int rc = lens_rules_load_dir(r, "templates/rules", &e);
    LENS_TEST(rc == LENS_OK, "shipped rule base parses: %s", e.msg);
    LENS_TEST(r->nproblems == 17, "17 problems in the rule base (15 built-in shapes, 2 sequences), got %d", r->nproblems);
    for (int i = 0; i < r->nproblems; i++)
        for (int k = 0; k < LENS_RULE_NTEXT; k++)
            LENS_TEST(r->problems[i].text[1][k] != NULL, "%s has Russian text %d",
                      r->problems[i].id, k);
    lens_rules_free(r);
    lens_rules_free(NULL);
}

int main(void)
{
    test_eval();
    test_precedence();
    test_division_by_zero();
    test_errors();
    test_fault_injection();
    test_load_dir();
    test_depth_limits();
    test_count_limits();
    return LENS_TEST_DONE("test_rules");
}
