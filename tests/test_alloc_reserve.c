/* Tests for lens_reserve (common/alloc.c), the growth of every appended array: capacities
 * doubling from 64, a need already met costs nothing, a need whose bytes do not fit a size_t
 * (a count from a corrupt file) is ENOMEM with the array untouched instead of a wrapped
 * product, and an allocation failure leaves the old array and capacity as they were. */
#include "common/alloc.h"
#include "common/err.h"
#include "lens_test.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static void test_growth(void)
{
    int *a = NULL;
    size_t cap = 0;
    LENS_TEST(lens_reserve((void **)&a, &cap, 1, sizeof *a) == LENS_OK && a && cap == 64, "first: cap %zu", cap);
    for (int i = 0; i < 64; i++)
        a[i] = i;
    int *before = a;
    LENS_TEST(lens_reserve((void **)&a, &cap, 64, sizeof *a) == LENS_OK && a == before && cap == 64,
              "need met: no reallocation (cap %zu)", cap);
    LENS_TEST(lens_reserve((void **)&a, &cap, 65, sizeof *a) == LENS_OK && cap == 128, "65: cap %zu, want 128", cap);
    LENS_TEST(lens_reserve((void **)&a, &cap, 1000, sizeof *a) == LENS_OK && cap == 1024, "1000: cap %zu, want 1024", cap);
    int kept = 1;
    for (int i = 0; i < 64; i++)
        kept &= a[i] == i;
    LENS_TEST(kept, "the elements survive the growth");
    a[999] = 7; /* ASan: the capacity is really allocated */
    lens_free(a);
}

static void test_overflow(void)
{
    char *a = NULL;
    size_t cap = 0;
    LENS_TEST(lens_reserve((void **)&a, &cap, 16, 8) == LENS_OK, "16 x 8");
    char *before = a;
    /* need x size wraps: 2^61 x 16 = 2^65 */
    LENS_TEST(lens_reserve((void **)&a, &cap, (size_t)1 << 61, 16) == LENS_ENOMEM, "2^61 x 16 bytes: ENOMEM");
    LENS_TEST(a == before && cap == 64, "overflow: array and capacity untouched (cap %zu)", cap);
    /* the product fits a size_t but no object can be that large (over PTRDIFF_MAX): refused
     * before the allocator is asked, which under ASan would abort instead of returning NULL */
    size_t need = SIZE_MAX / 8 - 1;
    LENS_TEST(lens_reserve((void **)&a, &cap, need, 8) == LENS_ENOMEM && a == before && cap == 64,
              "SIZE_MAX/8 - 1 elements of 8 B: ENOMEM, untouched (cap %zu)", cap);
    LENS_TEST(lens_reserve((void **)&a, &cap, (size_t)PTRDIFF_MAX / 4 + 1, 4) == LENS_ENOMEM && a == before,
              "just over PTRDIFF_MAX bytes: ENOMEM");
    LENS_TEST(lens_reserve((void **)&a, &cap, SIZE_MAX, 1) == LENS_ENOMEM && a == before, "SIZE_MAX bytes: ENOMEM");
    LENS_TEST(lens_reserve((void **)&a, &cap, 100, 0) == LENS_ENOMEM && a == before, "element size 0: ENOMEM");
    lens_free(a);
}

static void test_failure(void)
{
    double *a = NULL;
    size_t cap = 0;
    LENS_TEST(lens_reserve((void **)&a, &cap, 10, sizeof *a) == LENS_OK, "10 doubles");
    a[0] = 3.5;
    double *before = a;
    lens_malloc_fail_after(1); /* the next allocation fails */
    int rc = lens_reserve((void **)&a, &cap, 200, sizeof *a);
    lens_malloc_fail_after(0);
    LENS_TEST(rc == LENS_ENOMEM && a == before && cap == 64 && a[0] == 3.5,
              "failed allocation: ENOMEM, the old array and capacity kept (rc %d, cap %zu)", rc, cap);
    lens_free(a);
}

int main(void)
{
    test_growth();
    test_overflow();
    test_failure();
    return LENS_TEST_DONE("test_alloc_reserve");
}
