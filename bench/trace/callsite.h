/* Call sites that survive PIE and address-space randomisation: the collector stores raw return
 * addresses; the module table (every loaded ELF object with its load bias and address range)
 * goes into the trace, and the writer turns each address into (module path, offset), where
 * offset = address - 1 - load bias is the ELF virtual address of the calling instruction, the
 * value addr2line/libdw expect. mpiP stores absolute addresses, which PIE + ASLR break. */
#ifndef LENS_CALLSITE_H
#define LENS_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Appends one line per loaded object to fd: "module <bias> <lo> <hi> <path>\n" (hex numbers,
 * [lo, hi) the union of its PT_LOAD segments). The main program is named by /proc/self/exe.
 * Async-signal-unsafe but malloc-free. Returns LENS_OK or LENS_EIO (errno kept). */
int lens_callsite_write_modules(int fd);
/* dl_iterate_phdr's count of objects loaded so far: a change means a dlopen since last time. */
unsigned long long lens_callsite_generation(void);

struct lens_callsite_module {
    uint64_t bias, lo, hi; /* load bias and mapped range, absolute addresses */
    char *path;            /* owned */
};

/* The module table of one process, as read back from its "module" lines, with a small
 * direct-mapped cache so that resolving N events costs N cache probes, not N searches. */
struct lens_callsite_table {
    struct lens_callsite_module *mod; /* owned array, in order of addition */
    size_t n, cap;
    uint64_t cache_addr[256];         /* address cached in each slot (0 = empty) */
    uint32_t cache_mod[256];          /* its module index */
};

void lens_callsite_init(struct lens_callsite_table *t);
void lens_callsite_release(struct lens_callsite_table *t);
/* Parses the part after "module " of a defs line; a module already present (same lo and
 * path) is skipped. Errors: LENS_EFORMAT (message without a file name), LENS_ENOMEM. */
int lens_callsite_add_line(struct lens_callsite_table *t, const char *args, struct lens_err *e);
/* Module index and offset (address - 1 - bias) of a return address; -1 when no module holds
 * it. Later additions win when ranges overlap (a library unloaded and another mapped there). */
long lens_callsite_resolve(struct lens_callsite_table *t, uint64_t addr, uint64_t *offset);

#endif
