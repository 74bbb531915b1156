/* Binding a parsed rule base (rules.h) to the event types a host supplies, and evaluating
 * its composite events and problems on one instance at a time. All values are doubles:
 * string fields and literals hold ids from lens_rules_intern. */
#ifndef LENS_RULEEVAL_H
#define LENS_RULEEVAL_H

#include "rules.h"

/* An event type the host can supply, with its fields (all values are doubles; string fields
 * hold ids from lens_rules_intern). */
struct lens_ruleeval_type {
    const char *name;            /* as written in rules: "send", "collective" */
    const char *const *fields;   /* NULL-terminated field names; a field's index is its position */
    const char *str_fields;      /* per field 's' for a string field, anything else numeric;
                                    may be NULL (all numeric) or shorter than fields */
};

/* Evaluation context of one composite instance. */
struct lens_ruleeval_ctx {
    const double *const *member; /* member[m][f]: field f of member m */
    double *params;              /* at least lens_rules.composites[c].nparams slots */
};

/* Resolves member types, fields and names, and checks value types. LENS_EFORMAT with
 * file:line:col for an unknown type, field or name, or a string used as a number. */
int lens_ruleeval_bind(struct lens_rules *r, const struct lens_ruleeval_type *types,
                       int ntypes, struct lens_err *e);
/* Evaluates composite c's condition and parameters on one instance (x->params is filled).
 * Returns 1 when the condition holds, 0 when not, LENS_EDATA with file:line:col on a
 * division by zero. */
int lens_ruleeval_composite(const struct lens_rules *r, int c, struct lens_ruleeval_ctx *x,
                            struct lens_err *e);
/* Evaluates problem p on an instance of its composite (after lens_ruleeval_composite
 * returned 1). Returns 1 and the duration (seconds) when the problem holds, 0 when not,
 * LENS_EDATA on a division by zero. */
int lens_ruleeval_problem(const struct lens_rules *r, int p, const struct lens_ruleeval_ctx *x,
                          double *duration, struct lens_err *e);
/* The value of item (what, index: LENS_TPL_FIELD and a string field, or LENS_TPL_SITE and
 * LENS_TPL_SITE_*) of member slot on the instance the texts show, as a string; NULL when
 * there is none. Supplied by the host (problems.c), which resolves call sites lazily. */
typedef const char *(*lens_ruleeval_item_fn)(void *arg, int slot, int what, int index);
/* The conditional advice of problem p in language lang (0 English, 1 Russian) that applies:
 * the index into advice_when of the first variant whose tests all hold, -1 for the plain
 * advice. Never fails. */
int lens_ruleeval_advice_pick(const struct lens_rules *r, int p, int lang,
                              lens_ruleeval_item_fn item, void *arg);
/* Evaluates node n (for tests): number value into *v. */
int lens_ruleeval_node(const struct lens_rules *r, int n, const struct lens_ruleeval_ctx *x,
                       double *v, struct lens_err *e);

#endif
