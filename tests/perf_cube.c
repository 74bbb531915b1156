/* Timing driver for `make bench`: loads a cube N times and prints the median load time and
 * throughput. Usage: perf_cube PREFIX [REPEATS] */
#include "analysis/cube/cube.h"
#include "common/time.h"

#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: perf_cube PREFIX [REPEATS]\n");
        return 2;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    if (reps < 1 || reps > 100)
        reps = 3;
    double t[100], bytes = 0;
    struct lens_err e;
    lens_err_clear(&e);
    for (int r = 0; r < reps; r++) {
        struct lens_cube *c;
        double t0 = lens_time_now();
        if (lens_cube_read(argv[1], &c, &e) != LENS_OK) {
            fprintf(stderr, "perf_cube: %s\n", e.msg);
            return 1;
        }
        t[r] = lens_time_now() - t0;
        bytes = 0;
        for (int s = 0; s < LENS_STAT_COUNT; s++)
            if (c->data[s])
                bytes += (double)c->procs * c->procs * c->nlen * sizeof(double);
        lens_cube_free(c);
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    double med = t[reps / 2];
    printf("cube load: %.0f MB in %.3f s (median of %d) = %.2f GB/s\n", bytes / 1e6, med, reps,
           bytes / med / 1e9);
    return 0;
}
