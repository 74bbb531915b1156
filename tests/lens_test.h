/* Tiny test harness (after GSL's gsl_test and sds): each test program prints failures only
 * and ends with "name: N passed, N failed"; its exit status is 1 when anything failed. */
#ifndef LENS_TEST_H
#define LENS_TEST_H

#include <math.h>
#include <stdio.h>

static int lens_test_passed, lens_test_failed;

#define LENS_TEST(cond, ...)                                                     \
    do {                                                                         \
        if (cond) {                                                              \
            lens_test_passed++;                                                  \
        } else {                                                                 \
            lens_test_failed++;                                                  \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                 \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

/* Relative comparison, NaN-aware: NaN equals NaN, inf equals the same inf. */
static inline int lens_test_rel_ok(double got, double want, double tol)
{
    if (isnan(got) || isnan(want))
        return isnan(got) && isnan(want);
    if (isinf(got) || isinf(want))
        return got == want;
    if (want == 0.0)
        return fabs(got) <= tol;
    return fabs(got - want) <= tol * fabs(want);
}

#define LENS_TEST_REL(got, want, tol, ...)                                       \
    do {                                                                         \
        double g_ = (got), w_ = (want);                                          \
        if (lens_test_rel_ok(g_, w_, (tol))) {                                   \
            lens_test_passed++;                                                  \
        } else {                                                                 \
            lens_test_failed++;                                                  \
            fprintf(stderr, "FAIL %s:%d: got %.17g want %.17g: ", __FILE__,      \
                    __LINE__, g_, w_);                                           \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
        }                                                                        \
    } while (0)

#define LENS_TEST_DONE(name)                                                     \
    (printf("%s: %d passed, %d failed\n", (name), lens_test_passed,              \
            lens_test_failed),                                                   \
     lens_test_failed ? 1 : 0)

#endif
