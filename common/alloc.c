/* Allocation with fault injection (common/alloc.h): every allocation of mpilens passes here, so
 * tests can fail the n-th one and walk every error path. Compiled into every program (serial
 * tool, benchmark, trace library). */
#include "alloc.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

/* Countdown for injected failures; 0 means never fail. Not thread-safe by design: fault
 * injection runs in single-threaded tests only. */
static long fail_countdown;
static long alloc_count;

void lens_malloc_fail_after(long n) { fail_countdown = n > 0 ? n : 0; }
long lens_malloc_count(void) { return alloc_count; }

/* Counts every allocation (tests print the count to size their fault loops) and fails the one
 * the countdown reaches; only that one fails, so a test sees exactly one failure per run and
 * checks the error path it leads to. */
static int inject_failure(void)
{
    alloc_count++;
    if (fail_countdown > 0 && --fail_countdown == 0)
        return 1;
    return 0;
}

void *lens_malloc(size_t n)
{
    if (inject_failure())
        return NULL;
    /* malloc(0) may return NULL, which callers would read as out of memory: ask for one byte. */
    return malloc(n ? n : 1);
}

void *lens_calloc(size_t count, size_t size)
{
    if (inject_failure())
        return NULL;
    /* Same reason as lens_malloc. calloc itself checks count * size for overflow, so the
     * multiplication is left to it. */
    if (count == 0 || size == 0)
        count = size = 1;
    return calloc(count, size);
}

void *lens_realloc(void *p, size_t n)
{
    if (inject_failure())
        return NULL;
    /* realloc(p, 0) frees p on glibc and returns NULL: a caller that then keeps p would free it
     * twice. */
    return realloc(p, n ? n : 1);
}

char *lens_strdup(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = lens_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void lens_free(void *p) { free(p); }

int lens_reserve(void **p, size_t *capacity, size_t need, size_t size)
{
    if (need <= *capacity)
        return LENS_OK;
    /* Doubling keeps appends amortised O(1); 64 elements avoids several tiny reallocations for
     * the short arrays most callers build. A need whose bytes do not fit (a count read from a
     * corrupt file) is an allocation that cannot succeed: ENOMEM, never a wrapped product
     * that allocates too little. The doubling stops at need when it would pass the bound. */
    /* No object can exceed PTRDIFF_MAX bytes (glibc refuses them, and ASan aborts on them
     * rather than returning NULL): such a need is ENOMEM before the allocator is asked. */
    size_t most = (size_t)PTRDIFF_MAX;
    if (size == 0 || need > most / size)
        return LENS_ENOMEM;
    size_t cap = *capacity ? *capacity : 64;
    while (cap < need)
        cap = cap > most / 2 ? need : cap * 2;
    if (cap > most / size)
        cap = need;
    void *q = lens_realloc(*p, cap * size);
    if (!q)
        return LENS_ENOMEM;
    *p = q;
    *capacity = cap;
    return LENS_OK;
}
