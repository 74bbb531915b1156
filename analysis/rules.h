/* The rule language of paper 001's Performance Expert (ALGORITHMS.md section 6): a lexer, a
 * parser into expression trees and an evaluator. Rules are text so an expert adds a problem
 * without recompiling:
 *   declare composite event T member ([shared] type as name, ...) when EXPR
 *       parameters (p = EXPR, ...);
 *   declare problem for T when EXPR parameters (id = "...", name = "...", description = "...",
 *       advice = "...", name_ru = ..., description_ru = ..., advice_ru = ...,
 *       duration = EXPR, location = member);
 * Expressions: numbers, "strings", true/false, name.field, bare names (composite parameters or
 * members), + - * /, comparisons, and/or/not, min(), max(), abs(). Every error names
 * file:line:column. A lens_rules owns all its memory; lens_rules_free() releases it. */
#ifndef LENS_RULES_H
#define LENS_RULES_H

#include "../common/err.h"

/* An event type the host can supply, with its fields (all values are doubles; string fields
 * hold ids from lens_rules_intern). */
struct lens_rule_type {
    const char *name;            /* as written in rules: "send", "collective" */
    const char *const *fields;   /* NULL-terminated field names; a field's index is its position */
    const char *str_fields;      /* per field 's' for a string field, anything else numeric;
                                    may be NULL (all numeric) or shorter than fields */
};

struct lens_rule_member {
    char *type, *name;
    int shared;      /* declared "shared": one event common to several composites */
    int type_index;  /* index into the bound types, -1 before lens_rules_bind */
    int line, col;
};

struct lens_rule_param {
    char *name;
    int expr;        /* node index */
    int line, col;
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

struct lens_rule_problem {
    char *id;                       /* "late_sender" */
    char *text[2][LENS_RULE_NTEXT]; /* [0] English, [1] Russian; Russian may be NULL */
    char *for_name;                 /* composite type named after "for" */
    int composite;                  /* index into composites */
    int when, duration;             /* node indices; when may be -1 */
    int location;                   /* member slot charged with the time (default 0) */
    const char *file;
    int line, col;
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
    char **files;                   /* names of the parsed files, for messages */
    int nfiles;
    int bound;                      /* lens_rules_bind succeeded */
};

/* Evaluation context of one composite instance. */
struct lens_rule_ctx {
    const double *const *member; /* member[m][f]: field f of member m */
    double *params;              /* at least lens_rules.composites[c].nparams slots */
};

struct lens_rules *lens_rules_new(void);
void lens_rules_free(struct lens_rules *r);
/* Parses text (NUL-terminated) whose messages name file. Declarations add to r.
 * LENS_EFORMAT with "file:line:col: ..." for a syntax error, LENS_ENOMEM. */
int lens_rules_parse(struct lens_rules *r, const char *file, const char *text, struct lens_err *e);
/* Parses every *.rules file of dir in name order. LENS_EIO when dir has none. */
int lens_rules_load_dir(struct lens_rules *r, const char *dir, struct lens_err *e);
/* Resolves member types, fields and names, and checks value types. LENS_EFORMAT with
 * file:line:col for an unknown type, field or name, or a string used as a number. */
int lens_rules_bind(struct lens_rules *r, const struct lens_rule_type *types, int ntypes,
                    struct lens_err *e);
/* Id of string s (added when new); negative LENS_ENOMEM on failure. */
int lens_rules_intern(struct lens_rules *r, const char *s);
/* Index of composite name, -1 when not declared. */
int lens_rules_composite_find(const struct lens_rules *r, const char *name);

/* Evaluates composite c's condition and parameters on one instance (x->params is filled).
 * Returns 1 when the condition holds, 0 when not, LENS_EDATA with file:line:col on a
 * division by zero. */
int lens_rules_composite_eval(const struct lens_rules *r, int c, struct lens_rule_ctx *x,
                              struct lens_err *e);
/* Evaluates problem p on an instance of its composite (after lens_rules_composite_eval
 * returned 1). Returns 1 and the duration (seconds) when the problem holds, 0 when not,
 * LENS_EDATA on a division by zero. */
int lens_rules_problem_eval(const struct lens_rules *r, int p, const struct lens_rule_ctx *x,
                            double *duration, struct lens_err *e);
/* Evaluates node n (for tests): number value into *v. */
int lens_rules_eval_node(const struct lens_rules *r, int n, const struct lens_rule_ctx *x,
                         double *v, struct lens_err *e);

#endif
