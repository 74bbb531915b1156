/* Timing driver for scripts/bench.d/icappa.sh: ICAPPA on a synthetic profile of P processes x
 * F functions (default 100000 x 20): base costs 0.2..1.9 s, Gaussian noise of 4%, and function
 * 3 costing 8x on the last eighth of the processes (the planted answer), one core. Prints
 *   icappa_seconds <s> kmeans_seconds <s> rounds <n> dominating <name> costly <n> exact yes|no
 * where kmeans_seconds is one lens_icappa_kmeans2 run with 10 restarts on the D_p matrix
 * (the figure comparable to scikit-learn's KMeans(n_init=10)). Usage: perf_icappa [P F [CSV]]
 * With CSV, the profile is also written there (for the peer in the bench script). */
#include "analysis/profile/icappa.h"
#include "common/time.h"
#include "analysis/profile/profile.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t P = argc > 2 ? strtoul(argv[1], NULL, 10) : 100000;
    size_t F = argc > 2 ? strtoul(argv[2], NULL, 10) : 20;
    const char *csv = argc > 3 ? argv[3] : NULL;
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_profile *p = lens_profile_new();
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 4242);
    char name[32];
    double *base = malloc(F * sizeof *base);
    for (size_t f = 0; f < F; f++)
        base[f] = 0.2 + 1.7 * gsl_rng_uniform(rng);
    base[3] = 1.5;
    /* function 3 costs 8x on the last eighth of the processes */
    for (size_t r = 0; r < P; r++)
        for (size_t f = 0; f < F; f++) {
            snprintf(name, sizeof name, "func_%02zu", f);
            double t = base[f] * fmax(0.5, 1 + gsl_ran_gaussian(rng, 0.04));
            if (f == 3 && r >= P - P / 8)
                t *= 8;
            if (lens_profile_add(p, (long)r, name, t, &e) != LENS_OK) {
                fprintf(stderr, "perf_icappa: %s\n", e.msg);
                return 1;
            }
        }
    if (lens_profile_finish(p, &e) != LENS_OK || (csv && lens_profile_write_csv(p, csv, &e) != LENS_OK)) {
        fprintf(stderr, "perf_icappa: %s\n", e.msg);
        return 1;
    }
    struct lens_icappa_opts o;
    lens_icappa_opts_default(&o);
    struct lens_icappa *res = NULL;
    double t0 = lens_time_now();
    int rc = lens_icappa_run(p, &o, &res, &e);
    double t1 = lens_time_now();
    if (rc != LENS_OK) {
        fprintf(stderr, "perf_icappa: %s\n", e.msg);
        return 1;
    }
    double *c = malloc(2 * F * sizeof *c), in;
    int *lab = malloc(P * sizeof *lab);
    double t2 = lens_time_now();
    rc = lens_icappa_kmeans2(p->sec, P, F, o.seed, 10, o.max_iter, c, lab, &in, &e);
    double t3 = lens_time_now();
    if (rc != LENS_OK) {
        fprintf(stderr, "perf_icappa: %s\n", e.msg);
        return 1;
    }
    int exact = res->ncostly == P / 8;
    for (size_t i = 0; exact && i < res->ncostly; i++)
        exact = p->ranks[res->costly[i]] == (long)(P - P / 8 + i);
    printf("icappa_seconds %.4f kmeans_seconds %.4f rounds %zu dominating %s costly %zu exact %s\n",
           t1 - t0, t3 - t2, res->nrounds, res->ndom ? p->funcs[res->dom[0]] : "-", res->ncostly,
           exact ? "yes" : "no");
    free(c);
    free(lab);
    free(base);
    gsl_rng_free(rng);
    lens_icappa_free(res);
    lens_profile_free(p);
    return 0;
}
