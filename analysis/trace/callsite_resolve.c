/* Offline call-site resolution with libdw (callsite_resolve.h). The module is opened as a
 * plain ELF file, so the offset is an ELF virtual address: what the collector stores
 * (return address - 1 - load bias). */
#include "callsite_resolve.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <string.h>

/* Offline callbacks: the module is a file on disk, not a running process; separate debug info
 * is looked up by build id and the standard paths, as gdb does. */
static const Dwfl_Callbacks offline_cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

int lens_callsite_resolve(const char *module, unsigned long offset, char *func, size_t funcsz,
                          char *file, size_t filesz, int *line, struct lens_err *e)
{
    func[0] = file[0] = 0;
    *line = 0;
    /* One session per lookup keeps the function stateless; call sites are resolved once per
     * site in the listing (a handful per problem), so reopening the module costs little. */
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
    snprintf(func, funcsz, "%s", name);
    Dwfl_Line *ln = dwfl_module_getsrc(m, addr);
    if (ln) {
        int lno = 0;
        const char *src = dwfl_lineinfo(ln, NULL, &lno, NULL, NULL, NULL);
        if (src) {
            const char *base = strrchr(src, '/');
            snprintf(file, filesz, "%s", base ? base + 1 : src);
            *line = lno;
        }
    }
out:
    dwfl_end(dwfl);
    return rc;
}
