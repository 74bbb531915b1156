/* Timing driver for `make bench` (scripts/bench.d/links.sh): divisive clustering of the links
 * of a synthetic cube, and, as a peer in the same run, the same algorithm on a full distance
 * matrix (the naive way), and a dump of the objects for scipy's complete linkage.
 *   perf_links run   P NODES B:E:S THREADS   time of lens_links_run, clusters, peak memory
 *   perf_links naive P NODES B:E:S           full-matrix version: time, same partition?
 *   perf_links dump  P NODES B:E:S FILE      objects, weights and our labels for scipy
 *   perf_links compress P NODES B:E:S BOUND  streaming compression rate of each statistic */
#include "analysis/cube/packed.h"
#include "common/time.h"
#include "analysis/structure/links.h"
#include "analysis/cube/synth.h"
#include "links_naive.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static struct lens_cube *make(int P, int nodes, const char *range)
{
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    o.procs = P;
    o.nodes = nodes;
    if (sscanf(range, "%d:%d:%d", &o.begin, &o.end, &o.step) != 3)
        return NULL;
    struct lens_cube *c = NULL;
    struct lens_err e;
    if (lens_synth_cube(&o, &c, &e) != LENS_OK)
        fprintf(stderr, "perf_links: %s\n", e.msg);
    return c;
}

static double maxrss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

/* the objects exactly as links.c builds them (same floors) */
static void objects(const struct lens_cube *c, double **a, double **w, int *N)
{
    int P = c->procs, L = c->nlen;
    *N = P * (P - 1);
    *a = malloc((size_t)*N * L * sizeof **a);
    *w = malloc((size_t)*N * L * sizeof **w);
    for (int x = 0; x < *N; x++) {
        int i = x / (P - 1), j = x % (P - 1);
        j += j >= i;
        for (int l = 0; l < L; l++) {
            double v = LENS_CUBE_AT(c, LENS_STAT_AVERAGE, l, i, j), sd = LENS_CUBE_AT(c, LENS_STAT_DEVIATION, l, i, j);
            sd = fmax(sd, fmax(1e-3 * v, 1e-9));
            (*a)[(size_t)x * L + l] = v;
            (*w)[(size_t)x * L + l] = 1 / (sd * sd);
        }
    }
}

static int *our_labels(const struct lens_links *r, int P)
{
    int *lab = malloc((size_t)P * (P - 1) * sizeof *lab);
    for (int x = 0; x < P * (P - 1); x++) {
        int i = x / (P - 1), j = x % (P - 1);
        j += j >= i;
        lab[x] = r->label[i * P + j];
    }
    return lab;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: perf_links run|naive|dump P NODES B:E:S [THREADS|FILE]\n");
        return 2;
    }
    int P = atoi(argv[2]), nodes = atoi(argv[3]);
    struct lens_cube *c = make(P, nodes, argv[4]);
    if (!c)
        return 1;
    if (!strcmp(argv[1], "compress") && argc > 5) {
        double bound = atof(argv[5]), raw = 0, packed = 0, t = 0;
        size_t P2 = (size_t)P * P;
        for (int s = 0; s < LENS_STAT_COUNT; s++) {
            struct lens_packed_encoder *z;
            struct lens_packed *p;
            struct lens_err e;
            double t0 = lens_time_now();
            lens_packed_encoder_new(&z, P, c->nlen, bound, &e);
            for (int k = 0; k < c->nlen; k++)
                lens_packed_encoder_put(z, c->data[s] + k * P2, &e);
            if (lens_packed_encoder_finish(z, &p, &e) != LENS_OK)
                return 1;
            double ts = lens_time_now() - t0, rs = 8.0 * P2 * c->nlen;
            t += ts;
            raw += rs;
            packed += lens_packed_bytes(p);
            printf("  %-9s %.3f s, %.0f MB/s, ratio %.1fx, max error %.3f%%, RMS %.3f%%, partitions %d, splits %ld, merges %ld\n",
                   lens_cube_stat_name(s), ts, rs / 1e6 / ts, rs / lens_packed_bytes(p), 100 * p->err_max,
                   100 * sqrt(p->err_sum2 / p->err_n), p->nreset, p->splits, p->merges);
            lens_packed_free(p);
        }
        printf("compress P=%d L=%d bound %g: %.0f MB in %.3f s = %.0f MB/s, ratio %.1fx, peak RSS %.0f MB\n", P,
               c->nlen, bound, raw / 1e6, t, raw / 1e6 / t, raw / packed, maxrss_mb());
        lens_cube_free(c);
        return 0;
    }
    struct lens_links_opts o;
    lens_links_opts_default(&o);
    o.threads = !strcmp(argv[1], "run") && argc > 5 ? atoi(argv[5]) : 2;
    o.agglo = -1; /* the divisive method alone is timed, as before the comparison existed */
    struct lens_links *r = NULL;
    struct lens_err e;
    double t0 = lens_time_now();
    if (lens_links_run(c, &o, &r, &e) != LENS_OK) {
        fprintf(stderr, "perf_links: %s\n", e.msg);
        return 1;
    }
    double t = lens_time_now() - t0;
    int N = P * (P - 1);
    if (!strcmp(argv[1], "run")) {
        printf("links P=%d L=%d objects=%d threads=%d: %.3f s, %d clusters, %d splits, peak RSS %.0f MB\n",
               P, c->nlen, N, o.threads, t, r->k, r->ndiam, maxrss_mb());
    } else if (!strcmp(argv[1], "naive")) {
        double *a, *w, t1 = lens_time_now();
        objects(c, &a, &w, &N);
        int L = c->nlen;
        double *D = malloc((size_t)N * N * sizeof *D);
        for (int x = 0; x < N; x++)
            for (int y = x; y < N; y++) {
                double s = 0;
                for (int l = 0; l < L; l++) {
                    double d = a[(size_t)x * L + l] - a[(size_t)y * L + l];
                    s += d * d * (w[(size_t)x * L + l] + w[(size_t)y * L + l]);
                }
                D[(size_t)x * N + y] = D[(size_t)y * N + x] = s;
            }
        int *lab = malloc(N * sizeof *lab), *ours = our_labels(r, P);
        naive(D, N, r->k, lab);
        double tn = lens_time_now() - t1;
        int same = same_partition(lab, ours, N);
        printf("naive P=%d L=%d objects=%d: %.3f s (full matrix %.0f MB), ours %.4f s, ratio naive/ours %.0fx, same partition: %s\n",
               P, L, N, tn, (double)N * N * 8 / 1048576, t, tn / t, same ? "yes" : "NO");
        free(a), free(w), free(D), free(lab), free(ours);
    } else if (!strcmp(argv[1], "dump") && argc > 5) {
        double *a, *w;
        objects(c, &a, &w, &N);
        int hdr[3] = {N, c->nlen, r->k}, *ours = our_labels(r, P);
        FILE *fp = fopen(argv[5], "wb");
        if (!fp)
            return 1;
        fwrite(hdr, sizeof(int), 3, fp);
        fwrite(a, sizeof(double), (size_t)N * c->nlen, fp);
        fwrite(w, sizeof(double), (size_t)N * c->nlen, fp);
        fwrite(ours, sizeof(int), (size_t)N, fp);
        fclose(fp);
        printf("%.6f\n", t);
        free(a), free(w), free(ours);
    }
    lens_links_free(r);
    lens_cube_free(c);
    return 0;
}
