/* Module table capture (dl_iterate_phdr in the traced process) and offline resolution of
 * return addresses to (module, ELF offset). See callsite.h for the encoding. */
#include "callsite.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* dl_iterate_phdr's callback can return only "stop or go on": the write failure travels here. */
struct write_ctx {
    int fd;
    int failed;
};

/* write(2) with retries: the module lines go to the same O_APPEND journal as the crash path. */
static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One line per loaded object: its load bias and the span of its PT_LOAD segments. After the
 * run an address is mapped back to (object, offset in the ELF file), which addr2line and
 * the DWARF reader understand whatever address the object was loaded at. */
static int module_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    struct write_ctx *c = data;
    uint64_t lo = UINT64_MAX, hi = 0;
    char exe[4096], line[4096 + 128];
    const char *name = info->dlpi_name;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    if (hi == 0) /* no loadable segment: no address can point into it */
        return 0;
    if (name == NULL || name[0] == '\0') {
        /* the main program has no name here; the kernel knows its path */
        ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (k <= 0)
            return 0;
        exe[k] = '\0';
        name = exe;
    }
    int n = snprintf(line, sizeof line, "module %" PRIx64 " %" PRIx64 " %" PRIx64 " %s\n",
                     (uint64_t)info->dlpi_addr, lo, hi, name);
    /* A path too long for the line is left out rather than written cut: a wrong path would resolve
     * call sites to the wrong file. */
    if (n < 0 || (size_t)n >= sizeof line)
        return 0;
    if (write_all(c->fd, line, (size_t)n) != 0) {
        c->failed = 1;
        return 1;
    }
    return 0;
}

/* Called at MPI_Init and again whenever objects were loaded since (dlopen), before the events
 * that may point into them are flushed. */
int lens_callsite_write_modules(int fd)
{
    struct write_ctx c = {fd, 0};
    dl_iterate_phdr(module_cb, &c);
    return c.failed ? LENS_EIO : LENS_OK;
}

/* glibc counts objects added (dlpi_adds) globally: an unchanged count means no new object, so
 * the module table need not be written again at each flush. */
static int adds_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    /* dlpi_adds exists when size covers it (glibc >= 2.4) */
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *(unsigned long long *)data = info->dlpi_adds;
    return 1; /* the first object is enough: the counters are global */
}

unsigned long long lens_callsite_generation(void)
{
    unsigned long long adds = 0;
    dl_iterate_phdr(adds_cb, &adds);
    return adds;
}

void lens_callsite_init(struct lens_callsite_table *t)
{
    memset(t, 0, sizeof *t);
}

void lens_callsite_release(struct lens_callsite_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        lens_free(t->mod[i].path);
    lens_free(t->mod);
    memset(t, 0, sizeof *t);
}

/* Reads one "module BIAS LO HI PATH" line of a rank's journal; the same object written again
 * after a dlopen is kept once. */
int lens_callsite_add_line(struct lens_callsite_table *t, const char *args, struct lens_err *e)
{
    uint64_t bias, lo, hi;
    int used = 0;
    if (sscanf(args, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %n", &bias, &lo, &hi, &used) != 3 ||
        used == 0 || args[used] == '\0' || hi <= lo) /* a path is required and the span must be real */
        return lens_err_set(e, LENS_EFORMAT, "bad module line '%.80s'", args);
    const char *path = args + used;
    /* The path runs to the end of the line: it may contain spaces. */
    size_t len = strcspn(path, "\n");
    for (size_t i = 0; i < t->n; i++)
        if (t->mod[i].lo == lo && strlen(t->mod[i].path) == len &&
            !strncmp(t->mod[i].path, path, len))
            return LENS_OK;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        void *m = lens_realloc(t->mod, cap * sizeof *t->mod);
        if (!m)
            return lens_err_set(e, LENS_ENOMEM, "out of memory for the module table");
        t->mod = m;
        t->cap = cap;
    }
    char *p = lens_malloc(len + 1);
    if (!p)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for the module table");
    memcpy(p, path, len);
    p[len] = '\0';
    t->mod[t->n++] = (struct lens_callsite_module){bias, lo, hi, p};
    memset(t->cache_addr, 0, sizeof t->cache_addr); /* ranges changed */
    return LENS_OK;
}

/* Return addresses repeat (a loop calls MPI from one place): a 256-slot cache keyed by the
 * address skips the search of the module table for most events. */
long lens_callsite_resolve(struct lens_callsite_table *t, uint64_t addr, uint64_t *offset)
{
    if (addr == 0)
        return -1;
    unsigned slot = (unsigned)((addr ^ (addr >> 8) ^ (addr >> 16)) & 255u);
    long m = -1;
    if (t->cache_addr[slot] == addr) {
        m = t->cache_mod[slot];
    } else {
        /* Searched from the last module added: an object loaded later at a reused address range
         * (dlclose then dlopen) must win over the old one. */
        for (size_t i = t->n; i-- > 0;)
            if (addr > t->mod[i].lo && addr <= t->mod[i].hi) { /* addr - 1 inside [lo, hi) */
                m = (long)i;
                break;
            }
        if (m < 0)
            return -1;
        t->cache_addr[slot] = addr;
        t->cache_mod[slot] = (uint32_t)m;
    }
    /* A return address points after the call instruction, possibly into the next line or function:
     * one byte back lands inside the call itself. */
    *offset = addr - 1 - t->mod[m].bias;
    return m;
}
