/* The rule language of Dergunov's Performance Expert (docs/methods.md §6): a lexer and
 * a parser into expression trees (binding and evaluation: ruleeval.h). Rules are text so an
 * expert adds a problem without recompiling:
 *   declare composite event T member ([shared] type as name, ...) when EXPR
 *       parameters (p = EXPR, ...);
 *   declare problem for T when EXPR parameters (id = "...", name = "...", description = "...",
 *       advice = "...", name_ru = ..., description_ru = ..., advice_ru = ...,
 *       duration = EXPR, location = member, cause = member[.field]);
 * Expressions: numbers, "strings", true/false, name.field, bare names (composite parameters or
 * members), + - * /, comparisons, and/or/not, min(), max(), abs(). A member type is an event
 * type of the vocabulary ("call", "send", ...) or a composite declared before (nesting).
 * Descriptions and advice may hold placeholders ({recv.rank}, {duration:ms}), resolved by
 * lens_ruleeval_bind into lens_rule_problem.tpl. Advice may depend on the calls made:
 *   advice when recv.function in ("MPI_Wait", "MPI_Waitall") [and ...] = "...",
 * (lens_rule_advice; the plain advice is the fallback). Every error names file:line:column. A lens_rules owns all its memory; lens_rules_free() releases it. */
#ifndef LENS_RULES_H
#define LENS_RULES_H

#include "common/err.h"

/* Bounds of the rule language (docs/problems.md, "Limits of the text readers"), each
 * refused with file:line:col: nesting of parentheses, function arguments, 'not' and unary
 * '-', and the height of an expression tree (a chain a + a + ... of 256 operators is 257 levels deep), so that the
 * recursive parser, binder and evaluator never run out of stack; the size of one rules
 * text; declarations, members and parameters, whose names are compared pairwise. */
#define LENS_RULES_MAX_DEPTH 256
#define LENS_RULES_MAX_TEXT ((size_t)16 << 20) /* bytes of one rules file */
#define LENS_RULES_MAX_DECLS 4096               /* composite events, and problems */
#define LENS_RULES_MAX_MEMBERS 64               /* members of one composite event */
#define LENS_RULES_MAX_PARAMS 64                /* parameters of one declaration */

struct lens_rule_member {
    char *type, *name;
    int shared;      /* declared "shared": one event common to several composites */
    int type_index;  /* index into the bound types, -1 before lens_ruleeval_bind */
    int line, col;
};

/* One test of a conditional advice, "recv.function in ("MPI_Wait", "MPI_Waitall")": the
 * member's item (a call-site item or a string field of its type) is one of the strings, or
 * none of them with "not in". Bound by lens_ruleeval_bind (slot, what, index). */
struct lens_rule_cond {
    char *member, *item;  /* as written (owned) */
    int *values;          /* interned string ids (owned) */
    int nvalues;
    int negate;           /* "not in" */
    int slot;             /* member slot, -1 before binding */
    int what, index;      /* LENS_TPL_FIELD with a string field's index, or LENS_TPL_SITE with
                             LENS_TPL_SITE_* */
    int line, col;
};

struct lens_rule_param {
    char *name;
    int expr;        /* node index */
    int line, col;
    struct lens_rule_cond *cond; /* "name when TEST and TEST = ...": only advice and advice_ru
                                    take one (owned, moved into the problem's variant) */
    int ncond;
};

struct lens_rule_composite {
    char *name;
    struct lens_rule_member *members;
    int nmembers;
    int when;        /* node index, -1 when absent (always true) */
    struct lens_rule_param *params;
    int nparams;
    const char *file; /* points into lens_rules.files */
    int line, col;
};

enum { LENS_RULE_NAME, LENS_RULE_DESCRIPTION, LENS_RULE_ADVICE, LENS_RULE_NTEXT };

/* Where a brace of a string literal stands in the source: the offset in the decoded (and
 * joined) string, and the file line and column, so a bad placeholder is reported where it
 * was written even when the text spans several literals. */
struct lens_rule_mark {
    int off, line, col;
};

/* One placeholder of a description or advice template ("{recv.rank}", "{duration:ms}"),
 * resolved by lens_ruleeval_bind so that expanding a text never looks a name up. */
enum lens_rule_tpl_what {
    LENS_TPL_DURATION,  /* the charged seconds of the instance shown */
    LENS_TPL_PARAM,     /* index: a parameter of the composite */
    LENS_TPL_FIELD,     /* slot.index: a field of a member */
    LENS_TPL_SITE,      /* slot, index LENS_TPL_SITE_*: the member's call site */
    LENS_TPL_BRACE      /* "{{" or "}}": one literal brace, index is the character */
};
enum { LENS_TPL_SITE_CALLER, LENS_TPL_SITE_FUNCTION, LENS_TPL_SITE_FILE, LENS_TPL_SITE_LINE,
       LENS_TPL_SITE_TEXT, LENS_TPL_NSITE };
struct lens_rule_tpl {
    int what, slot, index;
    int str;            /* the value is an interned string (a string field or parameter) */
    int unit;           /* 0 as is; 1 seconds, 2 milliseconds, 3 microseconds (":s", ":ms",
                           ":us"), the value being seconds */
    int begin, end;     /* bytes [begin, end) of the text it replaces, braces included */
};

/* A conditional advice ("advice when recv.function in (...) = "..."", docs/problems.md):
 * shown instead of the plain advice of its language when every test holds on the problem's
 * instance shown; variants are tried in file order, the first that holds wins. */
struct lens_rule_advice {
    int lang;                    /* 0 advice, 1 advice_ru */
    struct lens_rule_cond *cond; /* all must hold (owned) */
    int ncond;
    char *text;                  /* owned */
    int text_node;               /* its string node (template error positions) */
    struct lens_rule_tpl *tpl;   /* its placeholders (lens_ruleeval_bind; owned) */
    int ntpl;
    int line, col;
};

struct lens_rule_problem {
    char *id;                       /* "late_sender" */
    char *text[2][LENS_RULE_NTEXT]; /* [0] English, [1] Russian; Russian may be NULL */
    char *for_name;                 /* composite type named after "for" */
    int composite;                  /* index into composites */
    int when, duration;             /* node indices; when may be -1 */
    int location;                   /* member slot charged with the time (default 0) */
    int text_node[2][LENS_RULE_NTEXT]; /* the string node of each text (-1: none), whose
                                          marks place template errors */
    struct lens_rule_tpl *tpl[2][LENS_RULE_NTEXT]; /* placeholders of description and
                                          advice in text order (lens_ruleeval_bind; owned) */
    int ntpl[2][LENS_RULE_NTEXT];
    struct lens_rule_advice *advice_when; /* conditional advice, in file order (owned) */
    int nadvice_when;
    int cause;                      /* member slot named the cause (cause = m or m.field);
                                       -1: the first member other than location */
    int cause_field;                /* field of that member whose call is the cause (a set's
                                       aggregate: "all.root_enter" is the root's call); -1:
                                       the call the member stands for */
    int cause_node;                 /* the parameter's node until bound (-1: not given) */
    int waits_until_leave;          /* 1: the wasted time is the end of the charged call
                                       (waits = "until_leave", completion problems); 0: it
                                       starts at the call's enter (the default) */
    const char *file;
    int line, col;
};

/* Expression tree nodes (the parser builds them, ruleeval.c binds and evaluates them). */
enum lens_rule_nop {
    LENS_RN_NUM, LENS_RN_STR, LENS_RN_NAME, LENS_RN_DOTTED, LENS_RN_FIELD, LENS_RN_PARAM,
    LENS_RN_MEMBER, LENS_RN_NEG, LENS_RN_NOT, LENS_RN_ABS, LENS_RN_ADD, LENS_RN_SUB, LENS_RN_MUL,
    LENS_RN_DIV, LENS_RN_LT, LENS_RN_LE, LENS_RN_GT, LENS_RN_GE, LENS_RN_EQ, LENS_RN_NE,
    LENS_RN_AND, LENS_RN_OR, LENS_RN_MIN, LENS_RN_MAX
};
enum lens_rule_vtype { LENS_RV_NUM, LENS_RV_STR, LENS_RV_EVENT };

struct lens_rule_node {
    int op;
    int a, b;         /* operand nodes, -1 when unused */
    double num;       /* LENS_RN_NUM value; LENS_RN_STR interned id */
    char *name;       /* LENS_RN_NAME, LENS_RN_DOTTED: identifier (owned) */
    char *field;      /* LENS_RN_DOTTED: field name (owned) */
    int slot, index;  /* FIELD: member slot and field; PARAM: index; MEMBER: slot */
    int type;         /* enum lens_rule_vtype after binding */
    const char *file;
    int line, col;
    int depth;        /* height of the tree rooted here, 1 for a leaf, <= LENS_RULES_MAX_DEPTH */
    struct lens_rule_mark *marks; /* LENS_RN_STR: every '{' and '}' of the literal (owned) */
    int nmarks;
};

struct lens_rules {
    struct lens_rule_composite *composites;
    int ncomposites;
    struct lens_rule_problem *problems;
    int nproblems;
    struct lens_rule_node *nodes;   /* expression trees (rules.c) */
    int nnodes, cap_nodes;
    char **strings;                 /* interned strings; a string value is its index here */
    int nstrings, cap_strings;
    int *string_slot;               /* hash of strings: index + 1, 0 empty; nslot a power of 2 */
    int nslot;
    char **files;                   /* names of the parsed files, for messages */
    int nfiles;
    int bound;                      /* lens_ruleeval_bind succeeded */
};

struct lens_rules *lens_rules_new(void);
void lens_rules_free(struct lens_rules *r);
/* Parses text (NUL-terminated) whose messages name file. Declarations add to r.
 * LENS_EFORMAT with "file:line:col: ..." for a syntax error or a bound above exceeded,
 * LENS_ENOMEM. */
int lens_rules_parse(struct lens_rules *r, const char *file, const char *text, struct lens_err *e);
/* Parses every *.rules file of dir in name order. LENS_EIO when dir has none. */
int lens_rules_load_dir(struct lens_rules *r, const char *dir, struct lens_err *e);
/* Id of string s (added when new); negative LENS_ENOMEM on failure. */
int lens_rules_intern(struct lens_rules *r, const char *s);
/* Index of composite name, -1 when not declared. */
int lens_rules_composite_find(const struct lens_rules *r, const char *name);

#endif
