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

/* One call site as source code names it. When the call sits in the body of a function the
 * compiler inlined, func is that inlined function and inlined_into the function whose code
 * holds it (the caller one level out, itself possibly inlined); otherwise func is the
 * enclosing function (the symbol) and inlined_into is "". file is a base name, "" without
 * line information (line 0). */
struct lens_callsite {
    char symbol[128];       /* the ELF symbol covering the address (the outermost function) */
    char func[128];
    char inlined_into[128];
    char file[120];
    int line;
};
/* As lens_callsite_resolve, and looks the address up in the DWARF scopes (libdw's
 * dwarf_getscopes, DW_TAG_inlined_subroutine) for the innermost source function. Without
 * DWARF the symbol is all there is (inlined_into ""). Same errors. */
int lens_callsite_resolve_frame(const char *module, unsigned long offset,
                                struct lens_callsite *out, struct lens_err *e);

#endif
