/* User-function names for the OTF2 writer (trace_symbols.h): addresses -> (module, ELF
 * virtual address) -> symbol names from the module's own symbol table, read with pread (64-bit
 * ELF; no libelf, so the collector keeps its small dependency list), then the name filter and
 * a numbering that every process computes identically. */
#include "trace_symbols.h"

#include <elf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sym {
    uint64_t value, size; /* ELF virtual address and byte size of the function */
    const char *name;     /* into symmod.strtab */
    int local;            /* 1: STB_LOCAL (a global alias is preferred) */
};

struct symmod {           /* one module's function symbols, sorted by value */
    char *path;
    char *strtab;
    struct sym *syms;
    size_t n;
};

struct fn {               /* one recorded function of one rank */
    uint64_t addr;        /* absolute entry address in that process */
    const char *name;     /* NULL: filtered out */
    const char *module;   /* module path, "" when unknown */
    uint32_t index;       /* number after lens_trace_symbols_number */
};

struct rankfns {
    struct fn *f;
    size_t n, cap;
};

struct lens_trace_symbols {
    int nranks;
    char *filter;                 /* owned copy, NULL: keep everything */
    struct rankfns *ranks;        /* nranks */
    struct symmod *mods;          /* cache by path */
    size_t nmods, capmods;
    char **owned;                 /* fallback names "0x...@module" */
    size_t nowned, capowned;
    const char **names, **modules; /* kept functions, sorted by name */
    size_t nnames;
};

/* The filter is copied: it comes from getenv, whose string a later setenv may replace. */
struct lens_trace_symbols *lens_trace_symbols_new(int nranks, const char *filter)
{
    struct lens_trace_symbols *s = lens_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nranks = nranks;
    s->ranks = lens_calloc(nranks > 0 ? (size_t)nranks : 1, sizeof *s->ranks);
    if (filter && *filter)
        s->filter = lens_strdup(filter);
    if (!s->ranks || (filter && *filter && !s->filter)) {
        lens_trace_symbols_free(s);
        return NULL;
    }
    return s;
}

/* Frees in any state new or a failed step left: every array may be NULL or partly filled. */
void lens_trace_symbols_free(struct lens_trace_symbols *s)
{
    if (!s)
        return;
    for (int r = 0; s->ranks && r < s->nranks; r++)
        lens_free(s->ranks[r].f);
    lens_free(s->ranks);
    for (size_t i = 0; i < s->nmods; i++) {
        lens_free(s->mods[i].path);
        lens_free(s->mods[i].strtab);
        lens_free(s->mods[i].syms);
    }
    lens_free(s->mods);
    for (size_t i = 0; i < s->nowned; i++)
        lens_free(s->owned[i]);
    lens_free(s->owned);
    lens_free(s->names);
    lens_free(s->modules);
    lens_free(s->filter);
    lens_free(s);
}

/* Addresses are kept per rank: with ASLR the same function has a different address in every
 * process, so names are only found after each rank's own module table is known. */
int lens_trace_symbols_add(struct lens_trace_symbols *s, int rank, uint64_t addr,
                           struct lens_err *e)
{
    if (rank < 0 || rank >= s->nranks)
        return lens_err_set(e, LENS_EINVAL, "function of rank %d out of range", rank);
    struct rankfns *r = &s->ranks[rank];
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct fn *p = lens_realloc(r->f, cap * sizeof *p);
        if (!p)
            return lens_err_set(e, LENS_ENOMEM, "out of memory for the functions of rank %d", rank);
        r->f = p;
        r->cap = cap;
    }
    r->f[r->n++] = (struct fn){addr, NULL, "", LENS_TRACE_SYMBOL_NONE};
    return LENS_OK;
}

/* ---- ELF symbol tables */

/* pread loops over short reads; a read past the end (k == 0) is a truncated file: fail, never
 * spin on it. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = pread(fd, p, n, (off_t)off);
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

/* Sorted by address, and among aliases of one address global before local, then by name: the
 * same file always gives the same name for an address, on every process that reads it. */
static int cmp_sym(const void *a, const void *b)
{
    const struct sym *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    if (x->local != y->local)
        return x->local - y->local;
    return strcmp(x->name, y->name);
}

/* Fills m from the ELF file m->path; an unreadable or foreign file leaves m empty (n == 0),
 * which only costs the names. Returns LENS_ENOMEM or LENS_OK. */
/* Only 64-bit ELF is read (every platform the collector builds on); anything else gives no
 * names, and the functions keep address-based names instead of failing the conversion. */
static int load_module(struct symmod *m)
{
    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return LENS_OK;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    Elf64_Sym *raw = NULL;
    int rc = LENS_OK;
    /* The header must be ELF, 64-bit, with section headers of the size we read them as. */
    if (read_at(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0)
        goto out;
    if (!(sh = lens_malloc((size_t)eh.e_shnum * sizeof *sh))) {
        rc = LENS_ENOMEM;
        goto out;
    }
    if (read_at(fd, sh, (size_t)eh.e_shnum * sizeof *sh, eh.e_shoff) != 0)
        goto out;
    int symi = -1;
    /* .symtab has every function (static ones too); .dynsym, the exported ones only, is the
     * fallback for stripped objects. */
    for (int i = 0; i < eh.e_shnum; i++)
        if (sh[i].sh_type == SHT_SYMTAB || (symi < 0 && sh[i].sh_type == SHT_DYNSYM))
            symi = i;
    if (symi < 0 || sh[symi].sh_link >= eh.e_shnum || sh[symi].sh_entsize != sizeof(Elf64_Sym))
        goto out;
    /* sh_link of a symbol table names its string table. */
    const Elf64_Shdr *st = &sh[symi], *str = &sh[st->sh_link];
    size_t nsym = st->sh_size / sizeof(Elf64_Sym);
    /* Bounds against a corrupt or hostile header: no allocation may be sized by an unchecked field. */
    if (nsym == 0 || str->sh_size == 0 || str->sh_size > (1u << 30) || nsym > (1u << 24))
        goto out;
    raw = lens_malloc(nsym * sizeof *raw);
    m->strtab = lens_malloc(str->sh_size + 1);
    m->syms = lens_malloc(nsym * sizeof *m->syms);
    if (!raw || !m->strtab || !m->syms) {
        rc = LENS_ENOMEM;
        goto out;
    }
    if (read_at(fd, raw, nsym * sizeof *raw, st->sh_offset) != 0 ||
        read_at(fd, m->strtab, str->sh_size, str->sh_offset) != 0)
        goto out;
    /* A terminator after the table: a name running to its end cannot read past the buffer. */
    m->strtab[str->sh_size] = '\0';
    for (size_t i = 0; i < nsym; i++) {
        int type = ELF64_ST_TYPE(raw[i].st_info);
        /* Functions defined in this object only: undefined symbols are other objects' functions,
         * value 0 is no address, and a name offset outside the table would read out of bounds. */
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || raw[i].st_shndx == SHN_UNDEF ||
            raw[i].st_value == 0 || raw[i].st_name >= str->sh_size || !m->strtab[raw[i].st_name])
            continue;
        m->syms[m->n++] = (struct sym){raw[i].st_value, raw[i].st_size, m->strtab + raw[i].st_name,
                                       ELF64_ST_BIND(raw[i].st_info) == STB_LOCAL};
    }
    if (m->n > 1)
        qsort(m->syms, m->n, sizeof *m->syms, cmp_sym);
out:
    lens_free(sh);
    lens_free(raw);
    close(fd);
    return rc;
}

/* Each object's symbol table is read once per conversion, however many ranks load it. */
static struct symmod *module(struct lens_trace_symbols *s, const char *path)
{
    for (size_t i = 0; i < s->nmods; i++)
        if (!strcmp(s->mods[i].path, path))
            return &s->mods[i];
    if (s->nmods == s->capmods) {
        size_t cap = s->capmods ? 2 * s->capmods : 8;
        struct symmod *p = lens_realloc(s->mods, cap * sizeof *p);
        if (!p)
            return NULL;
        s->mods = p;
        s->capmods = cap;
    }
    struct symmod *m = &s->mods[s->nmods];
    memset(m, 0, sizeof *m);
    if (!(m->path = lens_strdup(path)))
        return NULL;
    s->nmods++;
    if (load_module(m) != LENS_OK)
        return NULL;
    return m;
}

/* The function whose entry is at off (or, failing that, whose body holds off). */
/* -finstrument-functions reports entry addresses, so an exact match is the normal case; the
 * size check catches an address inside a function whose symbol has no alias at its entry. */
static const char *lookup(const struct symmod *m, uint64_t off)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) { /* first symbol with value > off */
        size_t mid = (lo + hi) / 2;
        if (m->syms[mid].value <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    size_t i = lo - 1;
    while (i > 0 && m->syms[i - 1].value == m->syms[i].value)
        i--; /* the first of the aliases in sort order: global before local, then by name */
    const struct sym *y = &m->syms[i];
    return off == y->value || off < y->value + y->size ? y->name : NULL;
}

/* Fallback names ("0x1234@libfoo.so") are owned by the table, like the symbol names are owned
 * by the module cache, so every name lives until lens_trace_symbols_free. */
static const char *own(struct lens_trace_symbols *s, const char *text)
{
    if (s->nowned == s->capowned) {
        size_t cap = s->capowned ? 2 * s->capowned : 16;
        char **p = lens_realloc(s->owned, cap * sizeof *p);
        if (!p)
            return NULL;
        s->owned = p;
        s->capowned = cap;
    }
    char *c = lens_strdup(text);
    if (c)
        s->owned[s->nowned++] = c;
    return c;
}

int lens_trace_symbols_resolve(struct lens_trace_symbols *s, int rank,
                               struct lens_callsite_table *mods, struct lens_err *e)
{
    if (rank < 0 || rank >= s->nranks)
        return lens_err_set(e, LENS_EINVAL, "functions of rank %d out of range", rank);
    struct rankfns *r = &s->ranks[rank];
    for (size_t i = 0; i < r->n; i++) {
        struct fn *f = &r->f[i];
        uint64_t off = 0;
        /* the resolver expects a return address (it subtracts 1); an entry address is exact */
        long m = lens_callsite_resolve(mods, f->addr + 1, &off);
        const char *name = NULL;
        char buf[96];
        if (m >= 0) {
            struct symmod *sm = module(s, mods->mod[m].path);
            if (!sm)
                return lens_err_set(e, LENS_ENOMEM, "out of memory reading %s", mods->mod[m].path);
            f->module = sm->path;
            name = lookup(sm, off);
            if (!name) {
                const char *base = strrchr(sm->path, '/');
                snprintf(buf, sizeof buf, "0x%llx@%.60s", (unsigned long long)off, base ? base + 1 : sm->path);
            }
        } else {
            /* Outside every module (JIT code, a module missing from the journal): the raw address is the
             * only name there is. */
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)f->addr);
        }
        if (!name && !(name = own(s, buf)))
            return lens_err_set(e, LENS_ENOMEM, "out of memory naming functions");
        /* NULL: filtered out, no region */
        f->name = lens_trace_symbols_match(s->filter, name) ? name : NULL;
    }
    return LENS_OK;
}

/* ---- numbering */

struct named {
    const char *name, *module;
    size_t order; /* rank-major position, so the first module seen wins */
};

static int cmp_named(const void *a, const void *b)
{
    const struct named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int cmp_addr(const void *a, const void *b)
{
    uint64_t x = ((const struct fn *)a)->addr, y = ((const struct fn *)b)->addr;
    return (x > y) - (x < y);
}

static int cmp_name(const void *key, const void *elem)
{
    return strcmp(key, *(const char *const *)elem);
}

/* Region ids are positions in the sorted list of distinct names: every process reads the same
 * journals, so it computes the same ids without exchanging them (trace_otf2.c numbers the rest
 * of the definitions the same way). */
int lens_trace_symbols_number(struct lens_trace_symbols *s, struct lens_err *e)
{
    size_t total = 0;
    for (int r = 0; r < s->nranks; r++)
        total += s->ranks[r].n;
    struct named *all = lens_malloc((total + 1) * sizeof *all); /* +1: never a zero-size allocation */
    s->names = lens_malloc((total + 1) * sizeof *s->names);
    s->modules = lens_malloc((total + 1) * sizeof *s->modules);
    if (!all || !s->names || !s->modules) {
        lens_free(all);
        return lens_err_set(e, LENS_ENOMEM, "out of memory numbering functions");
    }
    size_t n = 0;
    for (int r = 0; r < s->nranks; r++)
        for (size_t i = 0; i < s->ranks[r].n; i++)
            if (s->ranks[r].f[i].name) {
                all[n] = (struct named){s->ranks[r].f[i].name, s->ranks[r].f[i].module, n};
                n++;
            }
    if (n > 1)
        qsort(all, n, sizeof *all, cmp_named);
    s->nnames = 0;
    for (size_t i = 0; i < n; i++)
        /* One region per name: a function compiled into two objects (a static helper of the same
         * name) is one region, attributed to the object first seen. */
        if (s->nnames == 0 || strcmp(s->names[s->nnames - 1], all[i].name) != 0) {
            s->names[s->nnames] = all[i].name;
            s->modules[s->nnames++] = all[i].module;
        }
    lens_free(all);
    for (int r = 0; r < s->nranks; r++)
        for (size_t i = 0; i < s->ranks[r].n; i++) {
            struct fn *f = &s->ranks[r].f[i];
            const char **hit = f->name && s->nnames ? bsearch(f->name, s->names, s->nnames, sizeof *s->names, cmp_name) : NULL;
            f->index = hit ? (uint32_t)(hit - s->names) : LENS_TRACE_SYMBOL_NONE;
        }
    for (int r = 0; r < s->nranks; r++) /* by address, for lens_trace_symbols_index */
        if (s->ranks[r].n > 1) /* qsort(NULL, 0) is undefined */
            qsort(s->ranks[r].f, s->ranks[r].n, sizeof *s->ranks[r].f, cmp_addr);
    return LENS_OK;
}

size_t lens_trace_symbols_count(const struct lens_trace_symbols *s) { return s->nnames; }
const char *lens_trace_symbols_name(const struct lens_trace_symbols *s, size_t i) { return s->names[i]; }
const char *lens_trace_symbols_module(const struct lens_trace_symbols *s, size_t i) { return s->modules[i]; }

/* Binary search in the rank's addresses (sorted in lens_trace_symbols_number): the converter
 * looks up every function event, so this must not be linear. */
uint32_t lens_trace_symbols_index(const struct lens_trace_symbols *s, int rank, uint64_t addr)
{
    if (rank < 0 || rank >= s->nranks)
        return LENS_TRACE_SYMBOL_NONE;
    const struct rankfns *r = &s->ranks[rank];
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->f[mid].addr == addr)
            return r->f[mid].index;
        if (r->f[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return LENS_TRACE_SYMBOL_NONE;
}

/* ---- the filter */

/* MPILENS_TRACE_FUNCS: glob patterns separated by commas or spaces; "!pat" excludes and wins
 * over any include; with no include pattern every name not excluded is kept. */
int lens_trace_symbols_match(const char *filter, const char *name)
{
    if (!filter || !*filter)
        return 1;
    int positive = 0, hit = 0;
    char pat[512];
    for (const char *p = filter; *p;) {
        size_t k = strcspn(p, ", \t\n");
        if (k > 0 && k < sizeof pat) { /* an over-long pattern is ignored, not cut */
            memcpy(pat, p, k);
            pat[k] = '\0';
            if (pat[0] == '!') {
                if (fnmatch(pat + 1, name, 0) == 0)
                    return 0;
            } else {
                positive = 1;
                hit |= fnmatch(pat, name, 0) == 0;
            }
        }
        p += k;
        p += strspn(p, ", \t\n");
    }
    return !positive || hit;
}
