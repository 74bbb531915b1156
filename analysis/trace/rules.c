/* Lexer and recursive-descent parser of the rule language (rules.h); binding and evaluation
 * are in ruleeval.c. Text is tokenised in one pass, then parsed into declarations whose
 * expressions are nodes of one array (lens_rules.nodes), referred to by index.
 *
 * The grammar, one function per rule (keywords are identifiers compared by text, not
 * reserved words; loosest binding first in expr):
 *
 *   file        = { "declare" ( composite | problem ) ";" } EOF           lens_rules_parse
 *   composite   = "composite" "event" NAME "member" "(" member { "," member } ")"
 *                 [ "when" expr ] [ "parameters" params ]                 parse_composite
 *   member      = [ "shared" ] TYPE "as" NAME
 *   problem     = "problem" "for" NAME [ "when" expr ] "parameters" params parse_problem
 *   params      = "(" param { "," param } ")"                             parse_params
 *   param       = NAME [ "when" cond ] "=" expr      (when: advice, advice_ru only)
 *   cond        = test { "and" test }                                     parse_cond
 *   test        = NAME "." NAME [ "not" ] "in" "(" STRING { "," STRING } ")"
 *   expr        = or                                                      parse_expr
 *   or          = and { "or" and }                                        parse_level 0
 *   and         = not { "and" not }                                       parse_level 1
 *   not         = "not" not | compare                                     parse_level 2
 *   compare     = sum [ ( "<" | "<=" | ">" | ">=" | "==" | "!=" ) sum ]   parse_level 3
 *   sum         = product { ( "+" | "-" ) product }                       parse_level 4
 *   product     = unary { ( "*" | "/" ) unary }                           parse_level 5
 *   unary       = "-" unary | primary                                     parse_unary
 *   primary     = NUMBER | STRING | "true" | "false" | "(" expr ")"        parse_primary
 *               | ( "min" | "max" ) "(" expr { "," expr } ")" | "abs" "(" expr ")"
 *               | NAME [ "." FIELD ]
 *
 * Tokens: # or // comment to the end of the line; NUMBER as strtod reads it; STRING in double
 * quotes with \n \t \" \\ escapes, adjacent strings joined; punctuation ( ) , ; . = < > + - * /
 * and <= >= == !=. One token of lookahead decides every choice. Comparisons do not chain:
 * a < b < c is refused rather than read as (a < b) < c, a classic silent mistake. */
#include "rules.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LENS_STR_(x) #x
/* Two levels so the limits (LENS_RULES_MAX_*) are expanded to their numbers before being turned
 * into strings for the messages. */
#define LENS_STR(x) LENS_STR_(x)

/* Keywords are T_IDENT: the parser asks for them by text (accept, expect), so a member may be
 * called "when" and new keywords never break old rule files. */
enum tok { T_EOF, T_IDENT, T_NUM, T_STR, T_PUNCT };

/* Every token has text, also numbers ("number") and the end ("end of file"), so a message can
 * always quote what it found. */
struct token {
    int kind;
    char *text;  /* identifier, punctuation or decoded string (owned) */
    double num;
    int line, col;
    struct lens_rule_mark *marks; /* T_STR: its braces (owned), for template errors */
    int nmarks;
};

/* The whole text is tokenised before parsing, so the parser can peek without a lexer state
 * machine; a rules file is at most LENS_RULES_MAX_TEXT bytes, its tokens fit in memory. */
struct parser {
    struct lens_rules *r;
    struct lens_err *e;
    const char *file;
    struct token *toks;
    int ntoks, cap, pos;
    int depth;   /* nesting of the expression being parsed (parse_expr, not, unary -) */
};

/* Every syntax error goes through here so that all of them read "file:line:col: message" at the
 * offending token, the form editors jump to. */
static int perr(struct parser *p, const struct token *t, const char *fmt, const char *arg)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, arg);
    return lens_err_set(p->e, LENS_EFORMAT, "%s:%d:%d: %s", p->file, t->line, t->col, msg);
}

/* ---- lexer ---- */

/* Takes ownership of t.text: it is stored, joined into the previous string, or freed on
 * failure, so the caller never frees it. */
static int push_tok(struct parser *p, struct token t)
{
    if (t.kind == T_STR && p->ntoks > 0 && p->toks[p->ntoks - 1].kind == T_STR) {
        /* adjacent literals join, as in C, so long texts span lines */
        struct token *last = &p->toks[p->ntoks - 1];
        size_t a = strlen(last->text), b = strlen(t.text);
        char *q = lens_realloc(last->text, a + b + 1);
        struct lens_rule_mark *m = !t.nmarks ? last->marks
            : lens_realloc(last->marks, (size_t)(last->nmarks + t.nmarks) * sizeof *m);
        if (q)
            last->text = q;
        if (m)
            last->marks = m;
        if (!q || (t.nmarks && !m)) {
            lens_free(t.text);
            lens_free(t.marks);
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        }
        memcpy(q + a, t.text, b + 1);
        /* the second literal's braces move by the length of the text before it */
        for (int i = 0; i < t.nmarks; i++)
            m[last->nmarks++] = (struct lens_rule_mark){t.marks[i].off + (int)a, t.marks[i].line,
                                                        t.marks[i].col};
        lens_free(t.text);
        lens_free(t.marks);
        return LENS_OK;
    }
    if (p->ntoks == p->cap) {
        int m = p->cap ? 2 * p->cap : 256;
        struct token *q = lens_realloc(p->toks, (size_t)m * sizeof *q);
        if (!q) {
            lens_free(t.text);
            lens_free(t.marks);
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        }
        p->toks = q;
        p->cap = m;
    }
    p->toks[p->ntoks++] = t;
    return LENS_OK;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = lens_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* Grows a mark array by one slot; the old array is freed when that fails, so the caller
 * only reports. Marks are few (the braces of one literal), so one realloc each is fine. */
static struct lens_rule_mark *grow_marks(struct lens_rule_mark *m, int n)
{
    struct lens_rule_mark *q = lens_realloc(m, (size_t)(n + 1) * sizeof *q);
    if (!q)
        lens_free(m);
    return q;
}

/* A string ends on its line: an unterminated string is reported at its opening quote rather
 * than swallowing the rest of the file. Unknown escapes are errors, not kept literally, so a
 * typo such as "\\d" cannot silently change a text. */
static int lex_string(struct parser *p, const char **sp, int *col, struct token *t)
{
    const char *s = *sp + 1;
    size_t n = 0, cap = 64;
    char *buf = lens_malloc(cap);
    struct lens_rule_mark *marks = NULL;
    int nmarks = 0;
    if (!buf)
        return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    for (;; s++) {
        char c = *s;
        if (c == 0 || c == '\n') {
            lens_free(buf);
            lens_free(marks);
            return perr(p, t, "unterminated string%s", "");
        }
        if (c == '"')
            break;
        /* Braces open template placeholders (description, advice): their source positions
         * are kept so that an unknown name is reported at its column when the rules are
         * bound, long after the tokens are gone. A literal is one line, so the column is the
         * quote's plus the distance from it. */
        if (c == '{' || c == '}') {
            if (nmarks == INT_MAX / 2 || !(marks = grow_marks(marks, nmarks))) {
                lens_free(buf);
                return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
            }
            marks[nmarks++] = (struct lens_rule_mark){(int)n, t->line, t->col + (int)(s - *sp)};
        }
        if (c == '\\') {
            char d = *++s;
            c = d == 'n' ? '\n' : d == 't' ? '\t' : d == '"' ? '"' : d == '\\' ? '\\' : 0;
            if (!c) {
                lens_free(buf);
                lens_free(marks);
                struct token at = {0, NULL, 0, t->line, t->col + (int)(s - *sp) - 1, NULL, 0};
                return perr(p, &at, "unknown escape '\\%s' in string", (char[]){d ? d : '0', 0});
            }
        }
        /* Room for this character and the final NUL. */
        if (n + 2 > cap) {
            char *q = lens_realloc(buf, cap *= 2);
            if (!q) {
                lens_free(buf);
                lens_free(marks);
                return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
            }
            buf = q;
        }
        buf[n++] = c;
    }
    buf[n] = 0;
    /* Strings span one line, so the column advances by the literal's length including both
     * quotes. */
    *col += (int)(s + 1 - *sp);
    *sp = s + 1;
    t->kind = T_STR;
    t->text = buf;
    t->marks = marks;
    t->nmarks = nmarks;
    return LENS_OK;
}

/* One pass over the text keeping line and column for every token; tabs count as one column, as
 * most editors' "column" in a message does. */
static int lex(struct parser *p, const char *s)
{
    int line = 1, col = 1, rc;
    static const char *const two[] = {"<=", ">=", "==", "!="};
    while (*s) {
        if (*s == '\n') {
            line++, col = 1, s++;
            continue;
        }
        if (isspace((unsigned char)*s)) {
            s++, col++;
            continue;
        }
        /* Two comment styles: # as in shell configuration, // for those who write C; a lone /
         * is the division operator. */
        if (*s == '#' || (s[0] == '/' && s[1] == '/')) {
            while (*s && *s != '\n')
                s++;
            continue;
        }
        struct token t = {T_PUNCT, NULL, 0, line, col, NULL, 0};
        /* Identifiers as in C; casts to unsigned char because ctype functions are undefined for
         * the negative chars of UTF-8 bytes (Russian texts are only inside strings). */
        if (isalpha((unsigned char)*s) || *s == '_') {
            const char *b = s;
            while (isalnum((unsigned char)*s) || *s == '_')
                s++;
            t.kind = T_IDENT;
            t.text = dup_n(b, (size_t)(s - b));
            col += (int)(s - b);
        /* Numbers as strtod reads them (1e-3, .5); a letter or _ right after a number (2x, 1e)
         * is an error instead of two tokens, and an overflow to infinity is refused. */
        } else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
            char *end;
            errno = 0;
            t.kind = T_NUM;
            t.num = strtod(s, &end);
            if (errno == ERANGE || isalpha((unsigned char)*end) || *end == '_')
                return perr(p, &t, "malformed number%s", "");
            col += (int)(end - s);
            s = end;
            if (!(t.text = dup_n("number", 6)))
                return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        } else if (*s == '"') {
            if ((rc = lex_string(p, &s, &col, &t)))
                return rc;
        } else {
            size_t n = 1;
            /* Two-character operators first (maximal munch), so "<=" is never "<" then "=". */
            for (size_t i = 0; i < 4; i++)
                if (!strncmp(s, two[i], 2))
                    n = 2;
            if (n == 1 && !strchr("(),;.=<>+-*/", *s)) {
                char c[2] = {*s, 0};
                return perr(p, &t, "unexpected character '%s'", c);
            }
            t.text = dup_n(s, n);
            s += n, col += (int)n;
        }
        if (!t.text)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        if ((rc = push_tok(p, t)))
            return rc;
    }
    /* The end token stops every loop of the parser (nothing matches it), so no rule reads past
     * the last token. */
    return push_tok(p, (struct token){T_EOF, dup_n("end of file", 11), 0, line, col, NULL, 0});
}

/* ---- parser ---- */

/* One token of lookahead is all the grammar needs: peek never moves past the T_EOF token. */
static struct token *peek(struct parser *p) { return &p->toks[p->pos]; }
/* Strings and numbers never match a keyword or punctuation, even when their text does ("("). */
static int is(struct parser *p, const char *text)
{
    struct token *t = peek(p);
    return (t->kind == T_IDENT || t->kind == T_PUNCT) && !strcmp(t->text, text);
}
static int accept(struct parser *p, const char *text)
{
    if (!is(p, text))
        return 0;
    p->pos++;
    return 1;
}
/* The context ("after 'member'") turns "expected '('" into a message that says where. */
static int expect(struct parser *p, const char *text, const char *context)
{
    if (accept(p, text))
        return LENS_OK;
    struct token *t = peek(p);
    char msg[256];
    snprintf(msg, sizeof msg, "expected '%s' %s, got '%s'", text, context, t->text);
    return perr(p, t, "%s", msg);
}
static int expect_ident(struct parser *p, const char *what, struct token **out)
{
    struct token *t = peek(p);
    if (t->kind != T_IDENT) {
        char msg[256];
        snprintf(msg, sizeof msg, "expected %s, got '%s'", what, t->text);
        return perr(p, t, "%s", msg);
    }
    *out = t;
    p->pos++;
    return LENS_OK;
}

/* The one message of both depth bounds, at the token where the limit was crossed. */
static int too_deep(struct parser *p, const struct token *at)
{
    char msg[160];
    snprintf(msg, sizeof msg, "expression nested deeper than %d levels (the limit of the rule "
             "language): split it into composite parameters", LENS_RULES_MAX_DEPTH);
    return perr(p, at, "%s", msg);
}

/* Nodes live in one growing array and refer to each other by index, so growing it never
 * invalidates a reference (pointers would be). Returns the node index, or a negative error. */
static int new_node(struct parser *p, int op, int a, int b, const struct token *at)
{
    struct lens_rules *r = p->r;
    /* the tree height bounds the recursion of bind and eval; a long chain such as
     * a + a + ... is parsed by a loop but builds a tree as deep as it is long */
    int da = a >= 0 ? r->nodes[a].depth : 0, db = b >= 0 ? r->nodes[b].depth : 0;
    int depth = 1 + (da > db ? da : db);
    if (depth > LENS_RULES_MAX_DEPTH)
        return too_deep(p, at);
    if (r->nnodes == r->cap_nodes) {
        int m = r->cap_nodes ? 2 * r->cap_nodes : 256;
        struct lens_rule_node *q = lens_realloc(r->nodes, (size_t)m * sizeof *q);
        if (!q)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        r->nodes = q;
        r->cap_nodes = m;
    }
    /* Every node keeps its position: binding and evaluation errors (ruleeval.c) point into the
     * text long after the tokens are gone. */
    r->nodes[r->nnodes] = (struct lens_rule_node){op, a, b, 0, NULL, NULL, -1, -1, LENS_RV_NUM,
                                                  p->file, at->line, at->col, depth, NULL, 0};
    return r->nnodes++;
}

static int parse_expr(struct parser *p);

/* primary: literals, parentheses, function calls and names. Returns a node index >= 0 or a
 * negative error code (all parse_* functions do), so "n < 0" propagates errors upward. */
static int parse_primary(struct parser *p)
{
    struct token *t = peek(p);
    int n;
    if (t->kind == T_NUM) {
        p->pos++;
        if ((n = new_node(p, LENS_RN_NUM, -1, -1, t)) >= 0)
            p->r->nodes[n].num = t->num;
        return n;
    }
    if (t->kind == T_STR) {
        p->pos++;
        /* String literals become intern ids: comparing two strings at evaluation is comparing
         * numbers. */
        int id = lens_rules_intern(p->r, t->text);
        if (id < 0)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        if ((n = new_node(p, LENS_RN_STR, -1, -1, t)) < 0)
            return n;
        struct lens_rule_node *x = &p->r->nodes[n];
        x->num = id, x->type = LENS_RV_STR;
        /* the node gets its own copy of the braces' positions: tokens are freed after parsing */
        if (t->nmarks) {
            if (!(x->marks = lens_malloc((size_t)t->nmarks * sizeof *x->marks)))
                return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
            memcpy(x->marks, t->marks, (size_t)t->nmarks * sizeof *x->marks);
            x->nmarks = t->nmarks;
        }
        return n;
    }
    if (accept(p, "(")) {
        if ((n = parse_expr(p)) < 0)
            return n;
        int rc = expect(p, ")", "to close the parenthesis");
        return rc ? rc : n;
    }
    if (t->kind != T_IDENT)
        return perr(p, t, "expected a value, got '%s'", t->text);
    p->pos++;
    /* Booleans are the numbers 1 and 0, as comparisons produce. */
    if (!strcmp(t->text, "true") || !strcmp(t->text, "false")) {
        if ((n = new_node(p, LENS_RN_NUM, -1, -1, t)) >= 0)
            p->r->nodes[n].num = t->text[0] == 't';
        return n;
    }
    if (accept(p, "(")) { /* function call */
        int op = !strcmp(t->text, "min") ? LENS_RN_MIN : !strcmp(t->text, "max") ? LENS_RN_MAX
               : !strcmp(t->text, "abs") ? LENS_RN_ABS : -1;
        if (op < 0)
            return perr(p, t, "unknown function '%s' (known: min, max, abs)", t->text);
        /* min and max fold their arguments left to right into a chain of binary nodes, so
         * evaluation only knows two-operand nodes; abs takes exactly one argument. */
        int acc = parse_expr(p);
        if (acc < 0)
            return acc;
        if (op == LENS_RN_ABS) {
            int rc = expect(p, ")", "after the argument of abs");
            return rc ? rc : new_node(p, LENS_RN_ABS, acc, -1, t);
        }
        while (accept(p, ",")) {
            int b = parse_expr(p);
            if (b < 0 || (acc = new_node(p, op, acc, b, t)) < 0)
                return b < 0 ? b : acc;
        }
        /* min(x) and max(x) are x itself: with one argument no node was built */
        int rc = expect(p, ")", "after the arguments");
        return rc ? rc : acc;
    }
    /* A name stays a name until binding decides what it is (parameter, member, member.field):
     * the parser does not know the vocabulary. */
    if ((n = new_node(p, LENS_RN_NAME, -1, -1, t)) < 0)
        return n;
    if (!(p->r->nodes[n].name = lens_strdup(t->text)))
        return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    if (accept(p, ".")) {
        struct token *f;
        int rc = expect_ident(p, "a field name after '.'", &f);
        if (rc)
            return rc;
        p->r->nodes[n].op = LENS_RN_DOTTED;
        if (!(p->r->nodes[n].field = lens_strdup(f->text)))
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    }
    return n;
}

/* unary minus nests by recursion ("- - x"), so it counts against the same depth bound as
 * parentheses: a file of a million minus signs must not overflow the stack. */
static int parse_unary(struct parser *p)
{
    struct token *t = peek(p);
    if (accept(p, "-")) {
        if (p->depth >= LENS_RULES_MAX_DEPTH)
            return too_deep(p, t);
        p->depth++;
        int a = parse_unary(p);
        p->depth--;
        return a < 0 ? a : new_node(p, LENS_RN_NEG, a, -1, t);
    }
    return parse_primary(p);
}

/* Binary levels, loosest first; a comparison does not chain (a < b < c is an error). */
/* One function for all binary levels (table ops[] by level), left-associative by the loop: a -
 * b - c is (a - b) - c. Level 2 is the prefix "not", level 6 hands over to unary. */
static int parse_level(struct parser *p, int level)
{
    static const char *const ops[][6] = {
        {"or"}, {"and"}, {0}, {"<", "<=", ">", ">=", "==", "!="}, {"+", "-"}, {"*", "/"}};
    static const int codes[][6] = {
        {LENS_RN_OR},
        {LENS_RN_AND},
        {0},
        {LENS_RN_LT, LENS_RN_LE, LENS_RN_GT, LENS_RN_GE, LENS_RN_EQ, LENS_RN_NE},
        {LENS_RN_ADD, LENS_RN_SUB},
        {LENS_RN_MUL, LENS_RN_DIV}};
    if (level == 2) { /* not */
        struct token *t = peek(p);
        if (accept(p, "not")) {
            if (p->depth >= LENS_RULES_MAX_DEPTH)
                return too_deep(p, t);
            p->depth++;
            int a = parse_level(p, 2);
            p->depth--;
            return a < 0 ? a : new_node(p, LENS_RN_NOT, a, -1, t);
        }
        return parse_level(p, 3);
    }
    if (level == 6)
        return parse_unary(p);
    int a = parse_level(p, level + 1);
    while (a >= 0) {
        int op = -1;
        struct token *t = peek(p);
        for (int i = 0; i < 6 && ops[level][i]; i++)
            if (is(p, ops[level][i]))
                op = codes[level][i];
        if (op < 0)
            break;
        p->pos++;
        int b = parse_level(p, level + 1);
        if (b < 0)
            return b;
        a = new_node(p, op, a, b, t);
        /* After one comparison another comparison operator is an error with a hint, not a parse
         * of (a < b) < c, which would compare a boolean with a number. */
        if (level == 3 && a >= 0) {
            for (int i = 0; i < 6; i++)
                if (is(p, ops[3][i]))
                    return perr(p, peek(p), "comparisons do not chain: use 'and' before '%s'",
                                peek(p)->text);
            break;
        }
    }
    return a;
}

/* Every parenthesis, argument list and declared expression comes through here: the nesting
 * bound keeps the recursion of the parser itself within a small stack. */
static int parse_expr(struct parser *p)
{
    if (p->depth >= LENS_RULES_MAX_DEPTH)
        return too_deep(p, peek(p));
    p->depth++;
    int n = parse_level(p, 0);
    p->depth--;
    return n;
}

/* Frees the tests of an advice condition; every field is NULL or owned, also after a parse
 * error part-way through a test. */
static void free_conds(struct lens_rule_cond *c, int n)
{
    for (int i = 0; i < n; i++) {
        lens_free(c[i].member);
        lens_free(c[i].item);
        lens_free(c[i].values);
    }
    lens_free(c);
}

/* cond = test { "and" test }, test = NAME "." NAME [ "not" ] "in" "(" STRING { "," STRING } ")".
 * Deliberately not an expression: the items (the MPI function of a call site, its caller) are
 * strings known only when the texts are expanded, not fields evaluated per instance, and a
 * list of names is all a piece of advice needs to tell MPI_Recv from MPI_Irecv + MPI_Wait. */
static int parse_cond(struct parser *p, struct lens_rule_cond **out, int *n)
{
    int rc;
    do {
        struct token *m, *f;
        if ((rc = expect_ident(p, "a member after 'when' (when recv.function in (...))", &m)))
            return rc;
        if (*n == LENS_RULES_MAX_PARAMS)
            return perr(p, m, "more than " LENS_STR(LENS_RULES_MAX_PARAMS) " tests in one advice "
                        "condition (at '%s')", m->text);
        struct lens_rule_cond *q = lens_realloc(*out, (size_t)(*n + 1) * sizeof *q);
        if (!q)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        *out = q;
        struct lens_rule_cond *c = &q[(*n)++];
        *c = (struct lens_rule_cond){lens_strdup(m->text), NULL, NULL, 0, 0, -1, 0, -1,
                                     m->line, m->col};
        if (!c->member)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        if ((rc = expect(p, ".", "after the member of an advice condition (recv.function)")) ||
            (rc = expect_ident(p, "an item after '.' (function, caller, file, or a string field)",
                               &f)))
            return rc;
        if (!(c->item = lens_strdup(f->text)))
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        c->negate = accept(p, "not");
        if ((rc = expect(p, "in", "in an advice condition (recv.function in (\"MPI_Wait\"))")) ||
            (rc = expect(p, "(", "after 'in'")))
            return rc;
        do {
            struct token *t = peek(p);
            if (t->kind != T_STR)
                return perr(p, t, "expected a \"string\" in the list after 'in', got '%s'",
                            t->text);
            if (c->nvalues == LENS_RULES_MAX_PARAMS)
                return perr(p, t, "more than " LENS_STR(LENS_RULES_MAX_PARAMS) " strings after "
                            "'in'%s", "");
            p->pos++;
            int id = lens_rules_intern(p->r, t->text);
            int *v = id < 0 ? NULL : lens_realloc(c->values, (size_t)(c->nvalues + 1) * sizeof *v);
            if (!v)
                return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
            c->values = v;
            v[c->nvalues++] = id;
        } while (accept(p, ","));
        if ((rc = expect(p, ")", "after the strings of 'in'")))
            return rc;
    } while (accept(p, "and"));
    return LENS_OK;
}

/* params: the same list for composites (values computed per instance) and problems (texts,
 * duration, location). Names must be unique in one list, except that a name may come again
 * with a 'when' condition (the advice variants); the bound keeps the pairwise check and the
 * evaluation context (64 parameter slots in problems.c) small. */
static int parse_params(struct parser *p, struct lens_rule_param **out, int *n)
{
    int rc = expect(p, "(", "after 'parameters'");
    if (rc)
        return rc;
    do {
        struct token *name;
        if ((rc = expect_ident(p, "a parameter name", &name)))
            return rc;
        int when = is(p, "when");
        for (int i = 0; i < *n && !when; i++)
            if (!strcmp((*out)[i].name, name->text) && !(*out)[i].ncond)
                return perr(p, name, "parameter '%s' given twice", name->text);
        if (*n == LENS_RULES_MAX_PARAMS)
            return perr(p, name, "more than " LENS_STR(LENS_RULES_MAX_PARAMS) " parameters in one "
                        "declaration (at '%s')", name->text);
        /* Grown by one: declarations have a handful of parameters. The entry exists before its
         * condition is parsed, so a half-parsed condition is freed with the list. */
        struct lens_rule_param *q = lens_realloc(*out, (size_t)(*n + 1) * sizeof *q);
        if (!q)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        *out = q;
        struct lens_rule_param *pa = &q[(*n)++];
        *pa = (struct lens_rule_param){lens_strdup(name->text), -1, name->line, name->col, NULL, 0};
        if (!pa->name)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        if (accept(p, "when") && (rc = parse_cond(p, &pa->cond, &pa->ncond)))
            return rc;
        if ((rc = expect(p, "=", when ? "after the advice condition" : "after the parameter name")))
            return rc;
        int x = parse_expr(p);
        if (x < 0)
            return x;
        pa->expr = x;
    } while (accept(p, ","));
    return expect(p, ")", "after the parameters");
}

/* composite: the declaration is appended before its body is parsed, so on an error the partly
 * filled entry is still owned by r and freed by lens_rules_free (no separate cleanup path). */
static int parse_composite(struct parser *p, const struct token *at)
{
    struct lens_rules *r = p->r;
    struct token *name;
    int rc;
    if ((rc = expect(p, "event", "after 'composite'")) ||
        (rc = expect_ident(p, "the composite event's type name", &name)))
        return rc;
    if (lens_rules_composite_find(r, name->text) >= 0)
        return perr(p, name, "composite event '%s' declared twice", name->text);
    if (r->ncomposites == LENS_RULES_MAX_DECLS)
        return perr(p, name, "more than " LENS_STR(LENS_RULES_MAX_DECLS) " composite events (at '%s')",
                    name->text);
    struct lens_rule_composite *q = lens_realloc(r->composites,
                                                 (size_t)(r->ncomposites + 1) * sizeof *q);
    if (!q)
        return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    r->composites = q;
    struct lens_rule_composite *c = &q[r->ncomposites++];
    /* when = -1: no condition, every instance of the kind counts. */
    *c = (struct lens_rule_composite){lens_strdup(name->text), NULL, 0, -1, NULL, 0,
                                      p->file, at->line, at->col};
    if (!c->name)
        return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    if ((rc = expect(p, "member", "after the composite event's name")) ||
        (rc = expect(p, "(", "after 'member'")))
        return rc;
    do {
        /* "shared" marks a member that several instances have in common (the collective
         * instance of each member's call, the lock holder): documentation for the reader of the
         * rules, the builders in problems.c already know which side is shared. */
        int shared = accept(p, "shared");
        struct token *type, *mname;
        if ((rc = expect_ident(p, "an event type", &type)) ||
            (rc = expect(p, "as", "after the member's event type")) ||
            (rc = expect_ident(p, "the member's name", &mname)))
            return rc;
        for (int i = 0; i < c->nmembers; i++)
            if (!strcmp(c->members[i].name, mname->text))
                return perr(p, mname, "member name '%s' used twice", mname->text);
        if (c->nmembers == LENS_RULES_MAX_MEMBERS)
            return perr(p, mname, "more than " LENS_STR(LENS_RULES_MAX_MEMBERS) " members in one "
                        "composite event (at '%s')", mname->text);
        struct lens_rule_member *m = lens_realloc(c->members,
                                                  (size_t)(c->nmembers + 1) * sizeof *m);
        if (!m)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        c->members = m;
        /* The type stays a name; lens_ruleeval_bind resolves it against the vocabulary
         * (type_index). */
        m[c->nmembers] = (struct lens_rule_member){lens_strdup(type->text),
                                                   lens_strdup(mname->text), shared, -1,
                                                   type->line, type->col};
        if (!m[c->nmembers++].name || !m[c->nmembers - 1].type)
            return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    } while (accept(p, ","));
    if ((rc = expect(p, ")", "after the member list")))
        return rc;
    if (accept(p, "when") && (c->when = parse_expr(p)) < 0)
        return c->when;
    if (accept(p, "parameters") && (rc = parse_params(p, &c->params, &c->nparams)))
        return rc;
    /* a composite's parameters are values of every instance: one value each, no variants */
    for (int i = 0; i < c->nparams; i++)
        if (c->params[i].ncond) {
            struct token pos = {0, NULL, 0, c->params[i].line, c->params[i].col, NULL, 0};
            return perr(p, &pos, "only advice and advice_ru take 'when' (parameter '%s' of a "
                        "composite event)", c->params[i].name);
        }
    return LENS_OK;
}

/* The texts of a problem in English (required) and Russian (optional, English is the fallback). */
static const char *const text_keys[2][LENS_RULE_NTEXT] = {
    {"name", "description", "advice"}, {"name_ru", "description_ru", "advice_ru"}};

/* Moves "advice[_ru] when COND = "..."" into the problem's variants (the condition leaves
 * the parameter list, which is freed after the problem is filled). */
static int advice_variant(struct parser *p, struct lens_rule_problem *pr,
                          struct lens_rule_param *pa, const struct token *pos)
{
    struct lens_rules *r = p->r;
    const struct lens_rule_node *x = &r->nodes[pa->expr];
    int lang = !strcmp(pa->name, "advice") ? 0 : !strcmp(pa->name, "advice_ru") ? 1 : -1;
    if (lang < 0)
        return perr(p, pos, "only advice and advice_ru take 'when' (not '%s')", pa->name);
    if (x->op != LENS_RN_STR)
        return perr(p, pos, "parameter '%s' must be a string literal", pa->name);
    struct lens_rule_advice *q = lens_realloc(pr->advice_when,
                                              (size_t)(pr->nadvice_when + 1) * sizeof *q);
    if (!q)
        return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    pr->advice_when = q;
    q[pr->nadvice_when++] = (struct lens_rule_advice){lang, pa->cond, pa->ncond,
        lens_strdup(r->strings[(int)x->num]), pa->expr, NULL, 0, pa->line, pa->col};
    pa->cond = NULL, pa->ncond = 0;
    if (!q[pr->nadvice_when - 1].text)
        return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    return LENS_OK;
}

static int same_cond(const struct lens_rule_advice *a, const struct lens_rule_advice *b)
{
    if (a->ncond != b->ncond)
        return 0;
    for (int i = 0; i < a->ncond; i++) {
        const struct lens_rule_cond *x = &a->cond[i], *y = &b->cond[i];
        if (strcmp(x->member, y->member) || strcmp(x->item, y->item) ||
            x->negate != y->negate || x->nvalues != y->nvalues ||
            memcmp(x->values, y->values, (size_t)x->nvalues * sizeof *x->values))
            return 0;
    }
    return 1;
}

/* A Russian report must give the advice the English one gives for the same calls: when a
 * problem has Russian advice at all, its 'advice_ru when' lines repeat the English
 * conditions in the same order (a translation that matched other calls would contradict the
 * English text), and conditional advice in either language needs its plain fallback. */
static int advice_mirror(struct parser *p, const struct lens_rule_problem *pr,
                         const struct token *at)
{
    const struct lens_rule_advice *v = pr->advice_when;
    int ru = 0;
    for (int i = 0; i < pr->nadvice_when; i++)
        ru |= v[i].lang;
    if (!pr->nadvice_when || (!ru && !pr->text[1][LENS_RULE_ADVICE]))
        return LENS_OK;
    if (!pr->text[1][LENS_RULE_ADVICE])
        return perr(p, at, "'advice_ru when' needs a plain advice_ru as its fallback%s", "");
    int i = 0, j = 0;
    for (;; i++, j++) {
        while (i < pr->nadvice_when && v[i].lang != 0)
            i++;
        while (j < pr->nadvice_when && v[j].lang != 1)
            j++;
        if (i == pr->nadvice_when && j == pr->nadvice_when)
            return LENS_OK;
        const struct lens_rule_advice *w = j < pr->nadvice_when ? &v[j] : &v[i];
        struct token pos = {0, NULL, 0, w->line, w->col, NULL, 0};
        if (i == pr->nadvice_when || j == pr->nadvice_when || !same_cond(&v[i], &v[j]))
            return perr(p, &pos, "the 'advice_ru when' lines must repeat the conditions of the "
                        "'advice when' lines in the same order (%s)",
                        j == pr->nadvice_when ? "this advice has no Russian variant"
                        : i == pr->nadvice_when ? "this one has no English variant"
                        : "this one differs");
    }
}

/* Problem parameters: texts must be string literals; duration an expression; location a
 * member name (resolved by lens_ruleeval_bind). */
/* Problem parameters are not values but settings: each known name goes to its field, and an
 * unknown name is an error listing the known ones (a typo must not be ignored). */
static int problem_params(struct parser *p, struct lens_rule_problem *pr,
                          struct lens_rule_param *ps, int n, const struct token *at)
{
    struct lens_rules *r = p->r;
    for (int i = 0; i < n; i++) {
        struct lens_rule_node *x = &r->nodes[ps[i].expr];
        struct token pos = {0, NULL, 0, ps[i].line, ps[i].col, NULL, 0};
        char **slot = NULL;
        int tl = -1, tk = -1;
        if (ps[i].ncond) {
            int rc = advice_variant(p, pr, &ps[i], &pos);
            if (rc)
                return rc;
            continue;
        }
        if (!strcmp(ps[i].name, "id"))
            slot = &pr->id;
        for (int l = 0; l < 2; l++)
            for (int k = 0; k < LENS_RULE_NTEXT; k++)
                if (!strcmp(ps[i].name, text_keys[l][k]))
                    slot = &pr->text[l][k], tl = l, tk = k;
        /* Texts must be literals: they are shown as written, never computed per instance. */
        if (slot) {
            if (x->op != LENS_RN_STR)
                return perr(p, &pos, "parameter '%s' must be a string literal", ps[i].name);
            /* the node's marks place template errors found when binding (ruleeval.c) */
            if (tl >= 0)
                pr->text_node[tl][tk] = ps[i].expr;
            if (!(*slot = lens_strdup(r->strings[(int)x->num])))
                return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
        } else if (!strcmp(ps[i].name, "duration")) {
            pr->duration = ps[i].expr;
        /* Where the charged interval lies in the call: from its enter (waiting for a partner to
         * arrive) or up to its leave (completion problems); the timeline draws it there. */
        } else if (!strcmp(ps[i].name, "waits")) {
            const char *v = x->op == LENS_RN_STR ? r->strings[(int)x->num] : "";
            if (strcmp(v, "from_enter") && strcmp(v, "until_leave"))
                return perr(p, &pos, "parameter 'waits' must be \"from_enter\" or \"until_leave\"%s", "");
            pr->waits_until_leave = !strcmp(v, "until_leave");
        } else if (!strcmp(ps[i].name, "location")) {
            if (x->op != LENS_RN_NAME)
                return perr(p, &pos, "parameter 'location' must name a member%s", "");
            /* Encoded as -2 - node so that -1 stays "not given" (member slot 0 by default) and
             * the member's name node can be found again when binding. */
            pr->location = -2 - ps[i].expr; /* resolved in bind */
        /* Which call made the charged one wait: a member, or the call a set's aggregate was
         * taken from (all.root_enter: the root's); resolved in bind, checked by the host. */
        } else if (!strcmp(ps[i].name, "cause")) {
            if (x->op != LENS_RN_NAME && x->op != LENS_RN_DOTTED)
                return perr(p, &pos, "parameter 'cause' must name a member or member.field%s",
                            "");
            pr->cause_node = ps[i].expr;
        } else {
            return perr(p, &pos, "unknown problem parameter '%s' (known: id, name, description, "
                                 "advice, name_ru, description_ru, advice_ru, duration, location, cause, waits)",
                        ps[i].name);
        }
    }
    /* A problem is reported with its id, name, description and advice, and charged by its
     * duration: without any of them it cannot be shown or measured. */
    const char *missing = !pr->id ? "id" : !pr->text[0][0] ? "name"
                        : !pr->text[0][1] ? "description" : !pr->text[0][2] ? "advice"
                        : pr->duration < 0 ? "duration" : NULL;
    if (missing)
        return perr(p, at, "problem lacks the parameter '%s'", missing);
    int rc = advice_mirror(p, pr, at);
    if (rc)
        return rc;
    /* Ids are unique over all files (the new problem is the last entry): they key the JSON
     * output and the report's tables. */
    for (int i = 0; i < r->nproblems - 1; i++)
        if (!strcmp(r->problems[i].id, pr->id))
            return perr(p, at, "problem id '%s' declared twice", pr->id);
    return LENS_OK;
}

/* problem: its composite must be declared before it (in this file or an earlier one in name
 * order), so a problem never refers forward and the index is known here. */
static int parse_problem(struct parser *p, const struct token *at)
{
    struct lens_rules *r = p->r;
    struct token *type;
    int rc;
    if ((rc = expect(p, "for", "after 'problem'")) ||
        (rc = expect_ident(p, "a composite event type after 'for'", &type)))
        return rc;
    if (r->nproblems == LENS_RULES_MAX_DECLS)
        return perr(p, at, "more than " LENS_STR(LENS_RULES_MAX_DECLS) " problems%s", "");
    struct lens_rule_problem *q = lens_realloc(r->problems, (size_t)(r->nproblems + 1) * sizeof *q);
    if (!q)
        return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    r->problems = q;
    struct lens_rule_problem *pr = &q[r->nproblems++];
    memset(pr, 0, sizeof *pr);
    pr->when = pr->duration = -1;
    pr->cause = pr->cause_field = pr->cause_node = -1;
    for (int l = 0; l < 2; l++)
        for (int k = 0; k < LENS_RULE_NTEXT; k++)
            pr->text_node[l][k] = -1;
    pr->file = p->file;
    pr->line = at->line, pr->col = at->col;
    pr->composite = lens_rules_composite_find(r, type->text);
    if (pr->composite < 0)
        return perr(p, type, "unknown composite event type '%s' (declare it first)", type->text);
    if (!(pr->for_name = lens_strdup(type->text)))
        return lens_err_set(p->e, LENS_ENOMEM, "%s: out of memory", p->file);
    if (accept(p, "when") && (pr->when = parse_expr(p)) < 0)
        return pr->when;
    if ((rc = expect(p, "parameters", "in a problem declaration")))
        return rc;
    struct lens_rule_param *ps = NULL;
    int n = 0;
    rc = parse_params(p, &ps, &n);
    if (!rc)
        rc = problem_params(p, pr, ps, n, at);
    /* The parameter list was only needed to fill the problem; its expressions stay in the node
     * array (the duration is one of them). */
    for (int i = 0; i < n; i++) {
        lens_free(ps[i].name);
        free_conds(ps[i].cond, ps[i].ncond);
    }
    lens_free(ps);
    return rc;
}

/* file: the whole text is lexed first (lexical errors before syntax errors), then declarations
 * are parsed until the end or the first error. Adding to r unbinds it: the new declarations
 * need binding too. */
int lens_rules_parse(struct lens_rules *r, const char *file, const char *text, struct lens_err *e)
{
    char **f = lens_realloc(r->files, (size_t)(r->nfiles + 1) * sizeof *f);
    if (!f || !(f[r->nfiles] = lens_strdup(file))) {
        if (f)
            r->files = f;
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", file);
    }
    r->files = f;
    struct parser p = {r, e, f[r->nfiles++], NULL, 0, 0, 0, 0};
    r->bound = 0;
    /* line and column are ints, token and node counts too */
    size_t len = strlen(text);
    if (len > LENS_RULES_MAX_TEXT)
        return lens_err_set(e, LENS_EFORMAT, "%s: %zu bytes, more than the %zu a rules file may hold",
                            p.file, len, (size_t)LENS_RULES_MAX_TEXT);
    int rc = lex(&p, text);
    while (!rc && peek(&p)->kind != T_EOF) {
        struct token *at = peek(&p);
        if ((rc = expect(&p, "declare", "at the start of a declaration")))
            break;
        if (accept(&p, "composite"))
            rc = parse_composite(&p, at);
        else if (accept(&p, "problem"))
            rc = parse_problem(&p, at);
        else
            rc = perr(&p, peek(&p), "expected 'composite' or 'problem' after 'declare', got '%s'",
                      peek(&p)->text);
        if (!rc)
            rc = expect(&p, ";", "at the end of the declaration");
    }
    /* Token texts are copies: the declarations keep their own strings, so the tokens are freed
     * here whatever happened. */
    for (int i = 0; i < p.ntoks; i++) {
        lens_free(p.toks[i].text);
        lens_free(p.toks[i].marks);
    }
    lens_free(p.toks);
    return rc;
}

/* ---- lifecycle, strings, files ---- */

struct lens_rules *lens_rules_new(void) { return lens_calloc(1, sizeof(struct lens_rules)); }

/* FNV-1a: short, and good enough for the few hundred distinct strings of a rule base. */
static size_t str_hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Interning through a hash of the strings: a rule base of many literals stays linear. */
int lens_rules_intern(struct lens_rules *r, const char *s)
{
    /* The table is kept at most half full, so linear probing stays short; it is rebuilt from
     * the strings when it grows (slots hold index + 1, 0 meaning empty). */
    if (2 * (r->nstrings + 1) > r->nslot) {
        int n = r->nslot ? 2 * r->nslot : 128;
        int *slot = lens_calloc((size_t)n, sizeof *slot);
        if (!slot)
            return LENS_ENOMEM;
        for (int i = 0; i < r->nstrings; i++) {
            size_t h = str_hash(r->strings[i]) & (size_t)(n - 1);
            while (slot[h])
                h = (h + 1) & (size_t)(n - 1);
            slot[h] = i + 1;
        }
        lens_free(r->string_slot);
        r->string_slot = slot;
        r->nslot = n;
    }
    size_t h = str_hash(s) & (size_t)(r->nslot - 1);
    for (; r->string_slot[h]; h = (h + 1) & (size_t)(r->nslot - 1))
        if (!strcmp(r->strings[r->string_slot[h] - 1], s))
            return r->string_slot[h] - 1;
    if (r->nstrings == r->cap_strings) {
        int m = r->cap_strings ? 2 * r->cap_strings : 64;
        char **q = lens_realloc(r->strings, (size_t)m * sizeof *q);
        if (!q)
            return LENS_ENOMEM;
        r->strings = q;
        r->cap_strings = m;
    }
    if (!(r->strings[r->nstrings] = lens_strdup(s)))
        return LENS_ENOMEM;
    r->string_slot[h] = r->nstrings + 1;
    return r->nstrings++;
}

/* Linear: called once per declaration while parsing, on at most LENS_RULES_MAX_DECLS entries. */
int lens_rules_composite_find(const struct lens_rules *r, const char *name)
{
    for (int i = 0; i < r->ncomposites; i++)
        if (!strcmp(r->composites[i].name, name))
            return i;
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The whole file as one NUL-terminated string, refused when larger than LENS_RULES_MAX_TEXT or
 * when it holds a NUL (a binary file would otherwise be parsed up to its first NUL and give a
 * misleading syntax error). */
static int read_file(const char *path, char **out, struct lens_err *e)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t n = 0, cap = 4096;
    char *buf = lens_malloc(cap);
    while (buf) {
        /* One byte is always kept for the terminating NUL; the buffer doubles until a short
         * read. */
        n += fread(buf + n, 1, cap - n - 1, fp);
        if (n < cap - 1 || n > LENS_RULES_MAX_TEXT)
            break;
        char *q = lens_realloc(buf, cap *= 2);
        if (!q)
            lens_free(buf);
        buf = q;
    }
    int err = ferror(fp);
    fclose(fp);
    if (!buf)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    if (err) {
        lens_free(buf);
        return lens_err_set(e, LENS_EIO, "%s: read error", path);
    }
    if (n > LENS_RULES_MAX_TEXT) {
        lens_free(buf);
        return lens_err_set(e, LENS_EFORMAT, "%s: more than %zu bytes, too large for a rules file",
                            path, (size_t)LENS_RULES_MAX_TEXT);
    }
    buf[n] = 0;
    if (strlen(buf) != n) {
        lens_free(buf);
        return lens_err_set(e, LENS_EFORMAT, "%s: binary file (NUL byte), not rules", path);
    }
    *out = buf;
    return LENS_OK;
}

/* Files are parsed in name order, which is readdir-independent and the order problems are
 * declared in (the order of ties in the listing and, for waiting time, the precedence:
 * docs/problems.md). Hidden files and anything not ending in ".rules" are skipped. */
int lens_rules_load_dir(struct lens_rules *r, const char *dir, struct lens_err *e)
{
    DIR *d = opendir(dir);
    if (!d)
        return lens_err_set(e, LENS_EIO, "%s: cannot open rule directory: %s", dir,
                            strerror(errno));
    char **names = NULL;
    size_t n = 0;
    int rc = LENS_OK;
    struct dirent *de;
    while (!rc && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 7 || strcmp(de->d_name + len - 6, ".rules") || de->d_name[0] == '.')
            continue;
        char **q = lens_realloc(names, (n + 1) * sizeof *q);
        if (!q || !(q[n] = lens_malloc(strlen(dir) + len + 2))) {
            if (q)
                names = q;
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", dir);
            break;
        }
        names = q;
        /* The buffer was sized above for exactly this string. */
        sprintf(names[n++], "%s/%s", dir, de->d_name);
    }
    closedir(d);
    if (!rc && n == 0)
        rc = lens_err_set(e, LENS_EIO, "%s: no *.rules files", dir);
    if (!rc)
        qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n && !rc; i++) {
        char *text = NULL;
        if (!(rc = read_file(names[i], &text, e)))
            rc = lens_rules_parse(r, names[i], text, e);
        lens_free(text);
    }
    for (size_t i = 0; i < n; i++)
        lens_free(names[i]);
    lens_free(names);
    return rc;
}

/* Frees partial declarations too: every field is NULL or owned, whatever step failed. */
void lens_rules_free(struct lens_rules *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->ncomposites; i++) {
        struct lens_rule_composite *c = &r->composites[i];
        for (int m = 0; m < c->nmembers; m++) {
            lens_free(c->members[m].type);
            lens_free(c->members[m].name);
        }
        lens_free(c->members);
        for (int p = 0; p < c->nparams; p++) {
            lens_free(c->params[p].name);
            free_conds(c->params[p].cond, c->params[p].ncond);
        }
        lens_free(c->params);
        lens_free(c->name);
    }
    lens_free(r->composites);
    for (int i = 0; i < r->nproblems; i++) {
        struct lens_rule_problem *p = &r->problems[i];
        lens_free(p->id);
        lens_free(p->for_name);
        for (int l = 0; l < 2; l++)
            for (int k = 0; k < LENS_RULE_NTEXT; k++) {
                lens_free(p->text[l][k]);
                lens_free(p->tpl[l][k]);
            }
        for (int v = 0; v < p->nadvice_when; v++) {
            free_conds(p->advice_when[v].cond, p->advice_when[v].ncond);
            lens_free(p->advice_when[v].text);
            lens_free(p->advice_when[v].tpl);
        }
        lens_free(p->advice_when);
    }
    lens_free(r->problems);
    for (int i = 0; i < r->nnodes; i++) {
        lens_free(r->nodes[i].name);
        lens_free(r->nodes[i].field);
        lens_free(r->nodes[i].marks);
    }
    lens_free(r->nodes);
    for (int i = 0; i < r->nstrings; i++)
        lens_free(r->strings[i]);
    lens_free(r->strings);
    lens_free(r->string_slot);
    for (int i = 0; i < r->nfiles; i++)
        lens_free(r->files[i]);
    lens_free(r->files);
    lens_free(r);
}
