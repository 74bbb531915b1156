/* Allocation through one hook, so that tests can make the n-th allocation fail and walk n
 * over every constructor (fault injection as in hiredis and Lua's ltests.c). The names mirror
 * libc's on purpose: lens_malloc is a drop-in for malloc, and lens_free(NULL) does nothing. */
#ifndef LENS_ALLOC_H
#define LENS_ALLOC_H

#include <stddef.h>

/* lens_malloc_fail_after(n): the n-th allocation from now fails (n >= 1); 0 disables. */
void *lens_malloc(size_t n);
void *lens_calloc(size_t count, size_t size);
void *lens_realloc(void *p, size_t n);
char *lens_strdup(const char *s);
void lens_free(void *p);
void lens_malloc_fail_after(long n);
long lens_malloc_count(void); /* allocations made since start, for fault-injection loops */

/* Grows the array *p of elements of size `size` so that *capacity >= need, doubling;
 * LENS_ENOMEM (and *p untouched) on failure, also when need x size exceeds PTRDIFF_MAX bytes
 * (no object can be larger) or size is 0. */
int lens_reserve(void **p, size_t *capacity, size_t need, size_t size);

#endif
