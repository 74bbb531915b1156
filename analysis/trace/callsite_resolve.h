/* Turns a call site stored as (module path, byte offset of the return address) into the
 * function and file:line, offline, with libdw (elfutils). Offsets are relative to the
 * module's load address, so position-independent executables and ASLR do not matter. */
#ifndef LENS_CALLSITE_RESOLVE_H
#define LENS_CALLSITE_RESOLVE_H

#include "common/err.h"

#include <stddef.h>

/* Fills func (the enclosing function's name), file (source file, base name) and *line for the
 * instruction at ELF virtual address offset of module (the collector stores return address
 * - 1 - load bias, i.e. inside the call instruction). func is set even when no line
 * information exists (file = "", *line = 0).
 * Errors: LENS_EIO when module cannot be opened, LENS_EDATA when no symbol covers offset. */
int lens_callsite_resolve(const char *module, unsigned long offset, char *func, size_t funcsz,
                          char *file, size_t filesz, int *line, struct lens_err *e);

#endif
