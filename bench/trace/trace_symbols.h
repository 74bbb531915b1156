/* Names of the user functions the collector recorded in -finstrument-functions mode, for the
 * OTF2 writer (trace_otf2.c). No mpi.h: the writer also runs serially in the recovery tool.
 * Each rank's raw definitions list the entry addresses of the functions it recorded
 * ("func <hex>" lines); an address becomes (module, ELF virtual address) through the rank's
 * module table (callsite.h) and a name through the module's ELF symbol table (.symtab, else
 * .dynsym), read once per module. The filter MPILENS_TRACE_FUNCS keeps some names; the kept
 * names of all ranks, sorted, are numbered the same way on every process, so the global
 * region ids agree without any message. */
#ifndef LENS_TRACE_SYMBOLS_H
#define LENS_TRACE_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "callsite.h"

#define LENS_TRACE_SYMBOL_NONE UINT32_MAX /* address filtered out or unknown */

struct lens_trace_symbols; /* opaque: per-rank addresses, cached symbol tables, names */

/* filter: MPILENS_TRACE_FUNCS (NULL or "" keeps every function), a list of shell globs
 * (fnmatch) separated by commas or blanks; a glob starting with '!' excludes. A name is kept
 * when it matches no excluding glob and, if there is any other glob, at least one of them.
 * Returns NULL when out of memory. */
struct lens_trace_symbols *lens_trace_symbols_new(int nranks, const char *filter);
void lens_trace_symbols_free(struct lens_trace_symbols *s); /* NULL does nothing */

/* Notes that rank recorded the function at absolute address addr. Errors: LENS_EINVAL (rank
 * out of range), LENS_ENOMEM. */
int lens_trace_symbols_add(struct lens_trace_symbols *s, int rank, uint64_t addr,
                           struct lens_err *e);
/* Names every address of rank through its module table (the table's lookup cache changes).
 * An address outside every module, or in a module whose symbols cannot be read, gets the name
 * "0x<offset>@<module base name>" (or "0x<address>"). Errors: LENS_ENOMEM. */
int lens_trace_symbols_resolve(struct lens_trace_symbols *s, int rank,
                               struct lens_callsite_table *mods, struct lens_err *e);
/* After every rank is resolved: sorts and numbers the kept names. Errors: LENS_ENOMEM. */
int lens_trace_symbols_number(struct lens_trace_symbols *s, struct lens_err *e);

/* Kept functions, numbered 0 .. count-1 in strcmp order of their names. */
size_t lens_trace_symbols_count(const struct lens_trace_symbols *s);
const char *lens_trace_symbols_name(const struct lens_trace_symbols *s, size_t i);
/* Path of the module the function was first found in (rank order), "" when unknown. */
const char *lens_trace_symbols_module(const struct lens_trace_symbols *s, size_t i);
/* Number of the function at addr on rank, or LENS_TRACE_SYMBOL_NONE (filtered, never added). */
uint32_t lens_trace_symbols_index(const struct lens_trace_symbols *s, int rank, uint64_t addr);

/* 1 when name passes filter (the rule above), else 0. */
int lens_trace_symbols_match(const char *filter, const char *name);

#endif
