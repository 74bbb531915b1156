/* Binding and evaluation of parsed rules (ruleeval.h): names become member, field and
 * parameter slots once, so evaluating an instance never compares strings; a division by
 * zero is reported with the rule's file:line:col instead of producing inf or NaN. */
#include "ruleeval.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LENS_STR_(x) #x
#define LENS_STR(x) LENS_STR_(x)

/* What a name may refer to while binding one expression. Parameters are visible only after
 * their declaration, so a composite's parameters cannot refer to themselves or to later ones
 * (no cycles, and evaluation in declaration order is always valid). */
struct scope {
    const struct lens_rule_composite *c;
    const struct lens_ruleeval_type *types;
    int nparams;   /* parameters of c visible (those declared before) */
    int events;    /* bare member names allowed (problem location) */
};

/* Binding errors point at the node's own file:line:col, which the parser recorded per node. */
static int berr(struct lens_rules *r, int n, struct lens_err *e, const char *fmt, const char *a,
                const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    const struct lens_rule_node *x = &r->nodes[n];
    return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: %s", x->file, x->line, x->col, msg);
}

/* Linear over at most LENS_RULES_MAX_MEMBERS names, once per name at binding time only. */
static int member_slot(const struct lens_rule_composite *c, const char *name)
{
    for (int i = 0; i < c->nmembers; i++)
        if (!strcmp(c->members[i].name, name))
            return i;
    return -1;
}

/* depth counts the nodes above n: the parser bounds a tree's height, this bound holds for
 * nodes built by other means too, so the recursion never outgrows the stack. */
static int bind_expr(struct lens_rules *r, int n, const struct scope *s, int depth,
                     struct lens_err *e)
{
    struct lens_rule_node *x = &r->nodes[n];
    int rc;
    if (depth > LENS_RULES_MAX_DEPTH)
        return berr(r, n, e, "expression nested deeper than %s levels (the limit of the rule "
                    "language)%s", LENS_STR(LENS_RULES_MAX_DEPTH), "");
    switch (x->op) {
    /* Leaves that need no binding; FIELD, PARAM and MEMBER are already bound when a tree is
     * bound twice (lens_problems_bind runs again for each detection on the same rules). */
    case LENS_RN_NUM:
    case LENS_RN_STR:
    case LENS_RN_FIELD:
    case LENS_RN_PARAM:
    case LENS_RN_MEMBER:
        return LENS_OK;
    /* A bare name is a parameter of the composite; a member name alone is an event, which has
     * no value, and the message says how to take one of its fields. */
    case LENS_RN_NAME: {
        for (int i = 0; i < s->nparams; i++)
            if (!strcmp(s->c->params[i].name, x->name)) {
                x->op = LENS_RN_PARAM, x->index = i, x->type = r->nodes[s->c->params[i].expr].type;
                return LENS_OK;
            }
        int m = member_slot(s->c, x->name);
        if (m >= 0)
            return berr(r, n, e, "'%s' is an event, not a value: use %s.<field>", x->name, x->name);
        return berr(r, n, e, "unknown name '%s' in composite event '%s'", x->name, s->c->name);
    }
    /* member.field becomes (slot, index), so evaluation reads member[slot][index] with no
     * lookup. The field's kind (string or number) comes from the host's table. */
    case LENS_RN_DOTTED: {
        int m = member_slot(s->c, x->name);
        if (m < 0)
            return berr(r, n, e, "unknown member '%s' in composite event '%s'", x->name,
                        s->c->name);
        const struct lens_ruleeval_type *t = &s->types[s->c->members[m].type_index];
        for (int f = 0; t->fields[f]; f++)
            if (!strcmp(t->fields[f], x->field)) {
                x->op = LENS_RN_FIELD, x->slot = m, x->index = f;
                int str =
                    t->str_fields && (int)strlen(t->str_fields) > f && t->str_fields[f] == 's';
                x->type = str ? LENS_RV_STR : LENS_RV_NUM;
                return LENS_OK;
            }
        return berr(r, n, e, "event type '%s' has no field '%s'", t->name, x->field);
    }
    default:
        break;
    }
    if ((rc = bind_expr(r, x->a, s, depth + 1, e)) ||
        (x->b >= 0 && (rc = bind_expr(r, x->b, s, depth + 1, e))))
        return rc;
    /* The children's types decide this node's: strings may only be compared for (in)equality
     * with strings, since their values are intern ids and any other arithmetic on them is
     * meaningless. */
    x = &r->nodes[n];
    int ta = r->nodes[x->a].type, tb = x->b >= 0 ? r->nodes[x->b].type : LENS_RV_NUM;
    if ((x->op == LENS_RN_EQ || x->op == LENS_RN_NE) && ta == LENS_RV_STR && tb == LENS_RV_STR) {
        x->type = LENS_RV_NUM;
        return LENS_OK;
    }
    if (ta == LENS_RV_STR || tb == LENS_RV_STR)
        return berr(r, n, e, "a string cannot be used here%s%s",
                    x->op == LENS_RN_EQ || x->op == LENS_RN_NE ? " (compare strings with strings)"
                                                               : "",
                    "");
    x->type = LENS_RV_NUM;
    return LENS_OK;
}

/* ---- description and advice templates ---- */

/* A template error is reported where its brace was written: the string node kept the file
 * position of every brace (rules.c), by its offset in the decoded text. */
static int tpl_err(struct lens_rules *r, int node, int off, struct lens_err *e, const char *fmt,
                   const char *a, const char *b)
{
    char msg[512];
    snprintf(msg, sizeof msg, fmt, a, b);
    const struct lens_rule_node *x = &r->nodes[node];
    int line = x->line, col = x->col;
    for (int i = 0; i < x->nmarks; i++)
        if (x->marks[i].off == off)
            line = x->marks[i].line, col = x->marks[i].col;
    return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: %s", x->file, line, col, msg);
}

/* Length of the identifier at s ([A-Za-z_][A-Za-z0-9_]*), 0 when there is none. */
static int ident_len(const char *s)
{
    int n = 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return 0;
    while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') || s[n] == '_' ||
           (s[n] >= '0' && s[n] <= '9'))
        n++;
    return n;
}

/* What a member's call site offers a template beside the type's own fields (problems.c fills
 * them from the resolved call): caller function, MPI function, file, line, the whole text. */
static const char *const site_items[LENS_TPL_NSITE] = {"caller", "function", "file", "line",
                                                        "site"};

/* Resolves one placeholder "{name[.field][:unit]}" starting at text offset i into t; the
 * offset of the closing brace is t->end - 1. */
static int tpl_one(struct lens_rules *r, const struct lens_rule_composite *c,
                   const struct lens_ruleeval_type *types, int node, const char *s, int i,
                   struct lens_rule_tpl *t, struct lens_err *e)
{
    char a[64], b[64] = "", unit[64] = "";
    int j = i + 1, n = ident_len(s + j);
    if (!n || n >= (int)sizeof a)
        return tpl_err(r, node, i, e, "'{' opens no placeholder: write a name ({duration}, "
                       "{member.field}) or '{{' for a brace%s%s", "", "");
    snprintf(a, sizeof a, "%.*s", n, s + j);
    j += n;
    if (s[j] == '.') {
        n = ident_len(s + j + 1);
        if (!n || n >= (int)sizeof b)
            return tpl_err(r, node, i, e, "expected a field name after '%s.' in a placeholder%s",
                           a, "");
        snprintf(b, sizeof b, "%.*s", n, s + j + 1);
        j += 1 + n;
    }
    int has_unit = s[j] == ':';
    if (has_unit) {
        n = ident_len(s + j + 1);
        if (n >= (int)sizeof unit)
            n = 0;
        snprintf(unit, sizeof unit, "%.*s", n, s + j + 1);
        j += 1 + n;
    }
    if (s[j] != '}')
        return tpl_err(r, node, i, e, "placeholder '{%s' is not closed by '}' (write '{{' for "
                       "a brace)%s", a, "");
    *t = (struct lens_rule_tpl){LENS_TPL_PARAM, -1, -1, 0, 0, i, j + 1};
    if (!b[0]) {
        /* A bare name: the duration, or a parameter of the composite (all of them: the
         * template is expanded after the instance was evaluated). */
        if (!strcmp(a, "duration")) {
            t->what = LENS_TPL_DURATION;
        } else {
            for (int k = 0; k < c->nparams && t->index < 0; k++)
                if (!strcmp(c->params[k].name, a))
                    t->index = k, t->str = r->nodes[c->params[k].expr].type == LENS_RV_STR;
            if (t->index < 0 && member_slot(c, a) >= 0)
                return tpl_err(r, node, i, e, "'%s' is an event, not a value: name one of its "
                               "fields, {%s.rank}", a, a);
            if (t->index < 0)
                return tpl_err(r, node, i, e, "unknown name '%s' in a placeholder (known: "
                               "duration, the parameters and members of '%s')", a, c->name);
        }
    } else {
        int m = member_slot(c, a);
        if (m < 0)
            return tpl_err(r, node, i, e, "unknown member '%s' in a placeholder of a problem "
                           "for '%s'", a, c->name);
        const struct lens_ruleeval_type *ty = &types[c->members[m].type_index];
        t->slot = m;
        for (int f = 0; ty->fields[f] && t->index < 0; f++)
            if (!strcmp(ty->fields[f], b)) {
                t->what = LENS_TPL_FIELD, t->index = f;
                t->str = ty->str_fields && (int)strlen(ty->str_fields) > f &&
                         ty->str_fields[f] == 's';
            }
        /* the type's fields win over the site items, so a vocabulary may define its own */
        for (int k = 0; k < LENS_TPL_NSITE && t->index < 0; k++)
            if (!strcmp(site_items[k], b))
                t->what = LENS_TPL_SITE, t->index = k, t->str = k != LENS_TPL_SITE_LINE;
        if (t->index < 0)
            return tpl_err(r, node, i, e, "event type '%s' has no field '%s' (nor a call-site "
                           "item: caller, function, file, line, site)", ty->name, b);
    }
    if (has_unit) {
        t->unit = !strcmp(unit, "s") ? 1 : !strcmp(unit, "ms") ? 2 : !strcmp(unit, "us") ? 3 : 0;
        if (!t->unit)
            return tpl_err(r, node, i, e, "unknown unit ':%s' in a placeholder (known: s, ms, "
                           "us)%s", unit, "");
        if (t->str)
            return tpl_err(r, node, i, e, "unit ':%s' given to '%s', which is a string", unit,
                           b[0] ? b : a);
    }
    return LENS_OK;
}

/* Parses the placeholders of text s (string node node) of problem p into *out; a text
 * without any keeps *out NULL and is shown as written. Binding again (the rules are bound
 * once per detection) replaces the list. */
static int bind_template(struct lens_rules *r, const struct lens_rule_problem *p, const char *s,
                         int node, struct lens_rule_tpl **out, int *nout,
                         const struct lens_rule_composite *c,
                         const struct lens_ruleeval_type *types, struct lens_err *e)
{
    int n = 0, rc;
    lens_free(*out);
    *out = NULL;
    *nout = 0;
    if (!s || node < 0)
        return LENS_OK;
    struct lens_rule_tpl *v = NULL;
    for (int i = 0; s[i]; i++) {
        if (s[i] != '{' && s[i] != '}')
            continue;
        struct lens_rule_tpl t = {LENS_TPL_BRACE, -1, s[i], 0, 0, i, i + 2};
        /* "{{" and "}}" stand for one brace, as in Python's str.format */
        if (s[i + 1] != s[i]) {
            if (s[i] == '}') {
                lens_free(v);
                return tpl_err(r, node, i, e, "'}' closes no placeholder (write '}}' for a "
                               "brace)%s%s", "", "");
            }
            if ((rc = tpl_one(r, c, types, node, s, i, &t, e))) {
                lens_free(v);
                return rc;
            }
        }
        struct lens_rule_tpl *q = lens_realloc(v, (size_t)(n + 1) * sizeof *q);
        if (!q) {
            lens_free(v);
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", p->file);
        }
        v = q;
        v[n++] = t;
        i = t.end - 1;
    }
    *out = v;
    *nout = n;
    return LENS_OK;
}

/* The tests of a conditional advice name a member and one of its string items: a string
 * field of the member's type (the type's fields win, as in templates) or a call-site item
 * (caller, function, file, site); a number cannot be compared with a list of strings. */
static int bind_cond(struct lens_rule_cond *c, const char *file,
                     const struct lens_rule_composite *k, const struct lens_ruleeval_type *types,
                     struct lens_err *e)
{
    c->slot = member_slot(k, c->member);
    if (c->slot < 0)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: unknown member '%s' in an advice "
                            "condition of a problem for '%s'", file, c->line, c->col, c->member,
                            k->name);
    const struct lens_ruleeval_type *ty = &types[k->members[c->slot].type_index];
    c->index = -1;
    for (int f = 0; ty->fields[f] && c->index < 0; f++)
        if (!strcmp(ty->fields[f], c->item)) {
            if (!(ty->str_fields && (int)strlen(ty->str_fields) > f && ty->str_fields[f] == 's'))
                return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: field '%s.%s' is a number: an "
                                    "advice condition compares strings (function, caller, file, "
                                    "site, or a string field)", file, c->line, c->col, c->member,
                                    c->item);
            c->what = LENS_TPL_FIELD, c->index = f;
        }
    for (int i = 0; i < LENS_TPL_NSITE && c->index < 0; i++)
        if (i != LENS_TPL_SITE_LINE && !strcmp(site_items[i], c->item))
            c->what = LENS_TPL_SITE, c->index = i;
    if (c->index < 0)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: event type '%s' has no string item '%s' "
                            "for an advice condition (known: function, caller, file, site, and "
                            "its string fields)", file, c->line, c->col, ty->name, c->item);
    return LENS_OK;
}

/* Binding is idempotent over the same types and all-or-nothing: bound is set only at the end,
 * so rules that failed to bind are never evaluated. */
int lens_ruleeval_bind(struct lens_rules *r, const struct lens_ruleeval_type *types, int ntypes,
                    struct lens_err *e)
{
    int rc;
    r->bound = 0;
    for (int c = 0; c < r->ncomposites; c++) {
        struct lens_rule_composite *k = &r->composites[c];
        for (int m = 0; m < k->nmembers; m++) {
            struct lens_rule_member *mb = &k->members[m];
            mb->type_index = -1;
            /* The last type of a name wins; lens_problems_vocab_check has already refused
             * duplicates. */
            for (int t = 0; t < ntypes; t++)
                if (!strcmp(types[t].name, mb->type))
                    mb->type_index = t;
            if (mb->type_index < 0)
                return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: unknown event type '%s'",
                                    k->file, mb->line, mb->col, mb->type);
        }
        struct scope s = {k, types, 0, 0};
        if (k->when >= 0 && (rc = bind_expr(r, k->when, &s, 1, e)))
            return rc;
        for (int i = 0; i < k->nparams; i++) {
            /* Parameter i sees parameters 0..i-1 only. */
            s.nparams = i;
            if ((rc = bind_expr(r, k->params[i].expr, &s, 1, e)))
                return rc;
        }
    }
    for (int i = 0; i < r->nproblems; i++) {
        /* Problems see every parameter of their composite, and the members' fields directly. */
        struct lens_rule_problem *p = &r->problems[i];
        const struct lens_rule_composite *k = &r->composites[p->composite];
        struct scope s = {k, types, k->nparams, 0};
        if ((p->when >= 0 && (rc = bind_expr(r, p->when, &s, 1, e))) ||
            (rc = bind_expr(r, p->duration, &s, 1, e)))
            return rc;
        if (r->nodes[p->duration].type != LENS_RV_NUM)
            return berr(r, p->duration, e, "duration must be a number, not a string%s%s", "", "");
        /* The parser stored the location member's name node as -2 - node (rules.c), since the
         * member list was not bound yet; here it becomes the member slot the problem's time is
         * charged to. */
        if (p->location <= -2) {
            int n = -2 - p->location;
            p->location = member_slot(k, r->nodes[n].name);
            if (p->location < 0)
                return berr(r, n, e, "location '%s' is not a member of '%s'", r->nodes[n].name,
                            k->name);
        }
        /* cause: a member (slot), or member.field (slot and the field's index in the member's
         * type); which fields pick a call is the host's to check (problems.c). */
        if (p->cause_node >= 0) {
            const struct lens_rule_node *cn = &r->nodes[p->cause_node];
            p->cause = member_slot(k, cn->name);
            if (p->cause < 0)
                return berr(r, p->cause_node, e, "cause '%s' is not a member of '%s'", cn->name,
                            k->name);
            if (cn->op == LENS_RN_DOTTED) {
                const struct lens_ruleeval_type *ty = &types[k->members[p->cause].type_index];
                for (int f = 0; ty->fields[f]; f++)
                    if (!strcmp(ty->fields[f], cn->field))
                        p->cause_field = f;
                if (p->cause_field < 0)
                    return berr(r, p->cause_node, e, "event type '%s' has no field '%s'",
                                ty->name, cn->field);
            }
        }
        /* Templates are checked here, when the rules load, so an unknown name is an error
         * before any trace is read; names stay literal (they title tables and the timeline). */
        for (int l = 0; l < 2; l++)
            for (int t = LENS_RULE_DESCRIPTION; t < LENS_RULE_NTEXT; t++)
                if ((rc = bind_template(r, p, p->text[l][t], p->text_node[l][t], &p->tpl[l][t],
                                        &p->ntpl[l][t], k, types, e)))
                    return rc;
        /* conditional advice: its tests and its own template, checked at load like the rest */
        for (int v = 0; v < p->nadvice_when; v++) {
            struct lens_rule_advice *a = &p->advice_when[v];
            for (int c = 0; c < a->ncond; c++)
                if ((rc = bind_cond(&a->cond[c], p->file, k, types, e)))
                    return rc;
            if ((rc = bind_template(r, p, a->text, a->text_node, &a->tpl, &a->ntpl, k, types, e)))
                return rc;
        }
    }
    r->bound = 1;
    return LENS_OK;
}

/* ---- evaluation ---- */

/* Evaluation does not fail on the first error: it records the first bad node and returns 0 for
 * the offending operation, so one walk finds the error and the caller reports it with its
 * file:line:col. */
struct eval {
    const struct lens_rules *r;
    const struct lens_ruleeval_ctx *x;
    int bad;        /* node of the first division by zero, -1 when none */
    int deep;       /* node where LENS_RULES_MAX_DEPTH was crossed, -1 when never */
};

/* depth: nodes above n, bounded like the binder's (a bound tree never reaches the limit). */
/* All values are doubles: numbers as they are, booleans as 0/1, strings as intern ids (only
 * compared for equality, see bind_expr). */
static double ev(struct eval *v, int n, int depth)
{
    const struct lens_rule_node *x = &v->r->nodes[n];
    double a, b;
    /* Unreachable for bound trees (bind_expr refused deeper ones); kept so that a tree built by
     * other means cannot recurse without bound. */
    if (depth > LENS_RULES_MAX_DEPTH) {
        if (v->deep < 0)
            v->deep = n;
        return 0;
    }
    depth++;
    switch (x->op) {
    case LENS_RN_NUM:
    case LENS_RN_STR:
        return x->num;
    case LENS_RN_FIELD:
        return v->x->member[x->slot][x->index];
    case LENS_RN_PARAM:
        return v->x->params[x->index];
    case LENS_RN_NEG:
        return -ev(v, x->a, depth);
    case LENS_RN_NOT:
        return ev(v, x->a, depth) == 0;
    case LENS_RN_ABS:
        return fabs(ev(v, x->a, depth));
    /* and/or short-circuit, so a guard such as "x != 0 and y / x > 1" never divides by zero. */
    case LENS_RN_AND:
        return ev(v, x->a, depth) != 0 && ev(v, x->b, depth) != 0;
    case LENS_RN_OR:
        return ev(v, x->a, depth) != 0 || ev(v, x->b, depth) != 0;
    default:
        break;
    }
    a = ev(v, x->a, depth);
    b = ev(v, x->b, depth);
    switch (x->op) {
    case LENS_RN_ADD: return a + b;
    case LENS_RN_SUB: return a - b;
    case LENS_RN_MUL: return a * b;
    /* Division by zero is an error rather than inf or NaN: a rule producing inf would charge an
     * infinite wait, which the aggregation would then have to guess how to show. */
    case LENS_RN_DIV:
        if (b == 0) {
            if (v->bad < 0)
                v->bad = n;
            return 0;
        }
        return a / b;
    case LENS_RN_LT: return a < b;
    case LENS_RN_LE: return a <= b;
    case LENS_RN_GT: return a > b;
    case LENS_RN_GE: return a >= b;
    case LENS_RN_EQ: return a == b;
    case LENS_RN_NE: return a != b;
    case LENS_RN_MIN: return a < b ? a : b;
    case LENS_RN_MAX: return a > b ? a : b;
    default: return 0; /* unbound names cannot reach here: lens_ruleeval_bind refuses them */
    }
}

/* LENS_EDATA (a property of the trace's values, not of the rule text) so the caller can disable
 * the one rule and keep analysing with the others (problems.c). */
static int eval_checked(const struct lens_rules *r, int n, const struct lens_ruleeval_ctx *x,
                        const char *what, double *out, struct lens_err *e)
{
    struct eval v = {r, x, -1, -1};
    *out = ev(&v, n, 1);
    if (v.deep >= 0) {
        const struct lens_rule_node *b = &r->nodes[v.deep];
        return lens_err_set(e, LENS_EDATA, "%s:%d:%d: expression nested deeper than %d levels in %s",
                            b->file, b->line, b->col, LENS_RULES_MAX_DEPTH, what);
    }
    if (v.bad >= 0) {
        const struct lens_rule_node *b = &r->nodes[v.bad];
        return lens_err_set(e, LENS_EDATA, "%s:%d:%d: division by zero in %s", b->file, b->line,
                            b->col, what);
    }
    return LENS_OK;
}

int lens_ruleeval_node(const struct lens_rules *r, int n, const struct lens_ruleeval_ctx *x,
                         double *v, struct lens_err *e)
{
    if (!r->bound || n < 0 || n >= r->nnodes)
        return lens_err_set(e, LENS_EINVAL, "rules: node %d cannot be evaluated", n);
    return eval_checked(r, n, x, "expression", v, e);
}

/* The composite's condition first: parameters are computed only for instances that pass it, and
 * the problems of the composite then read them from x->params. */
int lens_ruleeval_composite(const struct lens_rules *r, int c, struct lens_ruleeval_ctx *x,
                              struct lens_err *e)
{
    const struct lens_rule_composite *k = &r->composites[c];
    double v;
    int rc;
    if (k->when >= 0) {
        if ((rc = eval_checked(r, k->when, x, k->name, &v, e)))
            return rc;
        if (v == 0)
            return 0;
    }
    for (int i = 0; i < k->nparams; i++)
        if ((rc = eval_checked(r, k->params[i].expr, x, k->name, &x->params[i], e)))
            return rc;
    return 1;
}

/* Returns the raw duration; whether it is positive and finite, and so charged, is the caller's
 * decision (problems.c charges only d > 0). */
int lens_ruleeval_problem(const struct lens_rules *r, int p, const struct lens_ruleeval_ctx *x,
                            double *duration, struct lens_err *e)
{
    const struct lens_rule_problem *pr = &r->problems[p];
    double v;
    int rc;
    if (pr->when >= 0) {
        if ((rc = eval_checked(r, pr->when, x, pr->id, &v, e)))
            return rc;
        if (v == 0)
            return 0;
    }
    if ((rc = eval_checked(r, pr->duration, x, pr->id, duration, e)))
        return rc;
    return 1;
}


/* Tests compare strings, not intern ids: a call site's function or caller is text of the
 * trace, which the rules never interned. A NULL value (no such call) matches no list, so
 * "not in" holds for it. */
int lens_ruleeval_advice_pick(const struct lens_rules *r, int p, int lang,
                              lens_ruleeval_item_fn item, void *arg)
{
    const struct lens_rule_problem *pr = &r->problems[p];
    for (int v = 0; v < pr->nadvice_when; v++) {
        const struct lens_rule_advice *a = &pr->advice_when[v];
        int all = a->lang == lang;
        for (int c = 0; c < a->ncond && all; c++) {
            const struct lens_rule_cond *t = &a->cond[c];
            const char *s = item(arg, t->slot, t->what, t->index);
            int in = 0;
            for (int i = 0; i < t->nvalues && s && !in; i++)
                in = !strcmp(s, r->strings[t->values[i]]);
            all = in != t->negate;
        }
        if (all)
            return v;
    }
    return -1;
}
