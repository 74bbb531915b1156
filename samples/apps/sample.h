/* Shared by the sample applications of samples/apps/ (each one provokes a known performance
 * problem, or is one of the two Jacobi versions of Dergunov's experiment): the fatal-error path
 * (MPI_Abort, never exit), option parsing and a millisecond sleep. Header-only so that each
 * sample stays one file to read. */
#ifndef LENS_SAMPLE_H
#define LENS_SAMPLE_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void sample_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
static inline void sample_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 2);
    abort(); /* not reached */
}

/* Options every sample takes: -i ROUNDS (or iterations), -d MS (the injected delay),
 * -n SIZE (Jacobi grid), -j MS (Jacobi jitter), -w MS (Jacobi extra work). Unknown options
 * are fatal. */
struct sample_opts {
    long rounds;  /* -i */
    double ms;    /* -d: injected delay, milliseconds */
    long n;       /* -n: grid size */
    double jitter_ms; /* -j */
    double work_ms;   /* -w */
};

static inline double sample_number(const char *opt, const char *s, double lo, double hi)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi))
        sample_fatal("%s '%s' must be a number in %g..%g", opt, s, lo, hi);
    return v;
}

static inline void sample_parse(int argc, char **argv, struct sample_opts *o, const char *usage)
{
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            int rank;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            if (rank == 0)
                printf("usage: %s %s\n", argv[0], usage);
            MPI_Finalize();
            exit(0); /* every rank got here: nothing is left hanging */
        }
        if (k + 1 >= argc || a[0] != '-' || strlen(a) != 2 || !strchr("idnjw", a[1]))
            sample_fatal("unknown or incomplete option '%s'; usage: %s %s", a, argv[0], usage);
        const char *v = argv[++k];
        switch (a[1]) {
        case 'i': o->rounds = (long)sample_number("-i", v, 1, 1e7); break;
        case 'd': o->ms = sample_number("-d", v, 0, 1e5); break;
        case 'n': o->n = (long)sample_number("-n", v, 8, 1e5); break;
        case 'j': o->jitter_ms = sample_number("-j", v, 0, 1e4); break;
        default: o->work_ms = sample_number("-w", v, 0, 1e4); break;
        }
    }
}

/* Sleeps ms milliseconds (the injected delay: it frees the CPU, as waiting on I/O would). */
static inline void sample_sleep_ms(double ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000.0 * (time_t)(ms / 1000)) * 1e6)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Checks the number of ranks: at least min. */
static inline void sample_need_ranks(int min, const char *name)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < min)
        sample_fatal("%s needs at least %d ranks (got %d)", name, min, size);
}

#endif
