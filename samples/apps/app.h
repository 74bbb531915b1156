/* Shared by the sample applications of `mpilens scale run` (samples/apps/NAME.c): argument parsing,
 * block distribution, the one fatal-error path (MPI_Abort, never exit) and the timing line.
 * Every application takes `SIZE [ITERATIONS]` and rank 0 prints two lines:
 *   mpilens-time: SECONDS     wall time of the timed part, the maximum over the ranks
 *   mpilens-check: VALUE      a result that does not depend on the number of processes */
#ifndef LENS_APP_H
#define LENS_APP_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void app_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void app_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* not reached: MPI_Abort does not return */
}

/* argv[k] as a positive integer no larger than max, or def when absent. */
static long app_arg(int argc, char **argv, int k, long def, long max, const char *what)
{
    if (argc <= k)
        return def;
    char *end;
    long v = strtol(argv[k], &end, 10);
    if (*end || v < 1 || v > max)
        app_fatal("%s '%s' must be an integer in 1..%ld", what, argv[k], max);
    return v;
}

/* Rows [*lo, *lo + *cnt) of n owned by rank r of p (the first n % p ranks get one more). */
static void app_block(long n, int r, int p, long *lo, long *cnt)
{
    long base = n / p, extra = n % p;
    *cnt = base + (r < extra);
    *lo = r * base + (r < extra ? r : extra);
}

static void *app_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        app_fatal("out of memory for %zu bytes", n);
    return p;
}

/* Prints the maximum of the ranks' times and the check value on rank 0. */
static void app_report(double secs, double check)
{
    double tmax = 0;
    int rank;
    MPI_Reduce(&secs, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("mpilens-time: %.9f\n", tmax);
        printf("mpilens-check: %.12g\n", check);
        fflush(stdout);
    }
}

#endif
