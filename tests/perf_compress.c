/* Timing and memory driver for `make bench` (scripts/bench.d/compress.sh): compression of a
 * cube on disk, the way `mpilens compress` did it before streaming (the whole cube read first)
 * against the streaming reader (one P x P matrix at a time), in separate processes so that
 * each peak RSS is its own. Nothing is written: the packed result is only measured.
 *   perf_compress whole  PREFIX BOUND   lens_cube_read, then every statistic compressed
 *   perf_compress stream PREFIX BOUND   lens_cube_stream_read length by length
 * Prints: mode, seconds, MB of matrices, MB/s, packed ratio, peak RSS (MB). */
#include "analysis/cube/packed.h"
#include "common/time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static double maxrss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0;
}

/* Compresses nlen matrices of one statistic given by get(); adds the packed bytes to *packed. */
static int pack(int P, int L, double bound, int (*get)(void *, int, double **, struct lens_err *), void *arg,
                double *packed, struct lens_err *e)
{
    struct lens_packed_encoder *z;
    struct lens_packed *p;
    int rc = lens_packed_encoder_new(&z, P, L, bound, e);
    for (int k = 0; k < L && rc == LENS_OK; k++) {
        double *mat;
        rc = get(arg, k, &mat, e);
        if (rc == LENS_OK)
            rc = lens_packed_encoder_put(z, mat, e);
    }
    if (rc != LENS_OK) {
        lens_packed_encoder_free(z);
        return rc;
    }
    if ((rc = lens_packed_encoder_finish(z, &p, e)) == LENS_OK) {
        *packed += lens_packed_bytes(p);
        lens_packed_free(p);
    }
    return rc;
}

struct whole_arg {
    const struct lens_cube *c;
    int s;
};

static int whole_get(void *arg, int k, double **mat, struct lens_err *e)
{
    const struct whole_arg *w = arg;
    (void)e;
    *mat = w->c->data[w->s] + (size_t)k * w->c->procs * w->c->procs;
    return LENS_OK;
}

struct stream_arg {
    struct lens_cube_stream *st;
    int s;
    double *buf;
};

static int stream_get(void *arg, int k, double **mat, struct lens_err *e)
{
    struct stream_arg *a = arg;
    *mat = a->buf;
    return lens_cube_stream_read(a->st, a->s, k, a->buf, e);
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "whole") && strcmp(argv[1], "stream"))) {
        fprintf(stderr, "usage: perf_compress whole|stream PREFIX BOUND\n");
        return 2;
    }
    double bound = atof(argv[3]), packed = 0, raw = 0;
    struct lens_err e;
    lens_err_clear(&e);
    int rc;
    double t0 = lens_time_now();
    if (!strcmp(argv[1], "whole")) {
        struct lens_cube *c;
        if ((rc = lens_cube_read(argv[2], &c, &e)) == LENS_OK) {
            for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
                if (!c->data[s])
                    continue;
                struct whole_arg w = {c, s};
                rc = pack(c->procs, c->nlen, bound, whole_get, &w, &packed, &e);
                raw += 8.0 * c->procs * c->procs * c->nlen;
            }
            lens_cube_free(c);
        }
    } else {
        struct lens_cube_stream *st;
        if ((rc = lens_cube_stream_open(argv[2], &st, &e)) == LENS_OK) {
            const struct lens_cube *m = lens_cube_stream_meta(st);
            struct stream_arg a = {st, 0, malloc((size_t)m->procs * m->procs * sizeof(double))};
            for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK && a.buf; s++) {
                if (!(lens_cube_stream_stats(st) >> s & 1))
                    continue;
                a.s = s;
                rc = pack(m->procs, m->nlen, bound, stream_get, &a, &packed, &e);
                raw += 8.0 * m->procs * m->procs * m->nlen;
            }
            if (rc == LENS_OK)
                rc = lens_cube_stream_end(st, &e);
            free(a.buf);
            lens_cube_stream_close(st);
        }
    }
    double t = lens_time_now() - t0;
    if (rc != LENS_OK) {
        fprintf(stderr, "perf_compress: %s\n", e.msg);
        return 1;
    }
    printf("%s %.3f %.0f %.0f %.1f %.0f\n", argv[1], t, raw / 1e6, raw / 1e6 / t, raw / packed, maxrss_mb());
    return 0;
}
