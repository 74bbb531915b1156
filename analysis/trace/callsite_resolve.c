/* Offline call-site resolution with libdw (callsite_resolve.h). The module is opened as a
 * plain ELF file, so the offset is an ELF virtual address: what the collector stores
 * (return address - 1 - load bias). Inlined frames come from the DWARF scopes at that
 * address, so a call in an inlined helper names the helper and the function it sits in. */
#include "callsite_resolve.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Offline callbacks: the module is a file on disk, not a running process; separate debug info
 * is looked up by build id and the standard paths, as gdb does. */
static const Dwfl_Callbacks offline_cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* The name of a subprogram or inlined-subroutine DIE: an inlined instance carries no name of
 * its own, only DW_AT_abstract_origin, which dwarf_attr_integrate follows. */
static const char *die_name(Dwarf_Die *d)
{
    Dwarf_Attribute a;
    return dwarf_attr_integrate(d, DW_AT_name, &a) ? dwarf_formstring(&a) : NULL;
}

/* Fills out->func/inlined_into from the scopes around addr when the innermost function there
 * is inlined; leaves them as they are (the symbol) otherwise. dwarf_getscopes gives the
 * innermost scope first, but past an inlined instance it continues with the scopes of the
 * abstract definition (the CU), not of the code it sits in: the function it was inlined into
 * comes from the instance's own chain of parents, dwarf_getscopes_die (as eu-addr2line -i
 * does). A missing CU or name is no error: the symbol stays. */
static void inline_frame(Dwfl_Module *m, Dwarf_Addr addr, struct lens_callsite *out)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(m, addr, &bias);
    Dwarf_Die *scopes = NULL, *chain = NULL;
    int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
    int inner = -1;
    for (int i = 0; i < n && inner < 0; i++)
        if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
            inner = i;
    const char *fn = inner >= 0 ? die_name(&scopes[inner]) : NULL;
    const char *into = NULL;
    /* chain[0] is the instance itself; the next function scope outwards holds its code */
    int nc = fn ? dwarf_getscopes_die(&scopes[inner], &chain) : 0;
    for (int i = 1; i < nc && !into; i++) {
        int tag = dwarf_tag(&chain[i]);
        if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
            into = die_name(&chain[i]);
    }
    if (fn && into) {
        snprintf(out->inlined_into, sizeof out->inlined_into, "%s", into);
        snprintf(out->func, sizeof out->func, "%s", fn);
    }
    free(chain);
    free(scopes);
}

int lens_callsite_resolve_frame(const char *module, unsigned long offset,
                                struct lens_callsite *out, struct lens_err *e)
{
    memset(out, 0, sizeof *out);
    /* One session per lookup keeps the function stateless; call sites are resolved once per
     * site in the listing (a few dozen per problem), so reopening the module costs little. */
    Dwfl *dwfl = dwfl_begin(&offline_cb);
    if (!dwfl)
        return lens_err_set(e, LENS_ELIB, "%s: libdw: %s", module, dwfl_errmsg(-1));
    int rc = LENS_OK;
    /* report at address 0 so module addresses equal ELF virtual addresses */
    Dwfl_Module *m = dwfl_report_elf(dwfl, module, module, -1, 0, 0);
    dwfl_report_end(dwfl, NULL, NULL);
    if (!m) {
        rc = lens_err_set(e, LENS_EIO, "%s: cannot open module: %s", module, dwfl_errmsg(-1));
        goto out;
    }
    Dwarf_Addr addr = offset;
    GElf_Sym sym;
    GElf_Off off;
    const char *name = dwfl_module_addrinfo(m, addr, &off, &sym, NULL, NULL, NULL);
    if (!name) {
        rc = lens_err_set(e, LENS_EDATA, "%s: no function covers offset 0x%lx", module, offset);
        goto out;
    }
    /* The symbol name is enough without line info (a binary built without -g still names its
     * functions); the file keeps only its base name, as the reports print it. */
    snprintf(out->symbol, sizeof out->symbol, "%s", name);
    snprintf(out->func, sizeof out->func, "%s", name);
    inline_frame(m, addr, out);
    /* the line of the call instruction itself: inside the inlined body when there is one */
    Dwfl_Line *ln = dwfl_module_getsrc(m, addr);
    if (ln) {
        int lno = 0;
        const char *src = dwfl_lineinfo(ln, NULL, &lno, NULL, NULL, NULL);
        if (src) {
            const char *base = strrchr(src, '/');
            snprintf(out->file, sizeof out->file, "%s", base ? base + 1 : src);
            out->line = lno;
        }
    }
out:
    dwfl_end(dwfl);
    return rc;
}

/* The symbol-only form (the enclosing symbol, never an inlined function), kept for callers that
 * want the function the linker knows. */
int lens_callsite_resolve(const char *module, unsigned long offset, char *func, size_t funcsz,
                          char *file, size_t filesz, int *line, struct lens_err *e)
{
    struct lens_callsite c;
    func[0] = file[0] = 0;
    *line = 0;
    int rc = lens_callsite_resolve_frame(module, offset, &c, e);
    if (rc)
        return rc;
    snprintf(func, funcsz, "%s", c.symbol);
    snprintf(file, filesz, "%s", c.file);
    *line = c.line;
    return rc;
}
