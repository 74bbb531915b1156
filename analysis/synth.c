/* Synthetic cubes with a known structure: the ground truth for clustering and anomaly tests
 * and the input of the demo until a live measurement is available. */
#include "synth.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void lens_synth_opts_init(struct lens_synth_opts *o)
{
    memset(o, 0, sizeof *o);
    o->procs = 16;
    o->nodes = 4;
    o->sockets = 2;
    o->begin = 0;
    o->end = 4097;
    o->step = 512;
    o->repeats = 100;
    /* Shared memory within a socket, across sockets, and a ~100 Gb/s network. */
    o->lat[0] = 0.35e-6;
    o->lat[1] = 0.65e-6;
    o->lat[2] = 1.9e-6;
    o->bw[0] = 12e9;
    o->bw[1] = 8e9;
    o->bw[2] = 10e9;
    o->noise = 0.03;
    o->seed = 20261121;
    o->slow_node = -1;
    o->slow_factor = 1.6;
    o->bad_src = o->bad_dst = -1;
    o->bad_factor = 3.0;
}

/* xorshift64*: small, fast and the same on every platform, unlike rand(). */
static double uniform(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(unsigned long long *s)
{
    double u = uniform(s), v = uniform(s);
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

static int check_opts(const struct lens_synth_opts *o, struct lens_err *e)
{
    if (o->procs < 2 || o->nodes < 1 || o->sockets < 1)
        return lens_err_set(e, LENS_EINVAL, "synth: need at least 2 processes, 1 node, 1 socket");
    if (o->procs % (o->nodes * o->sockets))
        return lens_err_set(e, LENS_EINVAL, "synth: %d processes do not divide into %d nodes x %d sockets",
                            o->procs, o->nodes, o->sockets);
    if (o->step <= 0 || o->begin < 0 || o->end <= o->begin)
        return lens_err_set(e, LENS_EINVAL, "synth: bad length range %d..%d step %d", o->begin, o->end, o->step);
    if (o->slow_node >= o->nodes)
        return lens_err_set(e, LENS_EINVAL, "synth: slow node %d, but only %d nodes", o->slow_node, o->nodes);
    if (o->bad_src >= o->procs || o->bad_dst >= o->procs || (o->bad_src >= 0) != (o->bad_dst >= 0) ||
        (o->bad_src >= 0 && o->bad_src == o->bad_dst))
        return lens_err_set(e, LENS_EINVAL, "synth: bad link %d -> %d is not a pair of distinct ranks",
                            o->bad_src, o->bad_dst);
    return LENS_OK;
}

int lens_synth_cube(const struct lens_synth_opts *o, struct lens_cube **out, struct lens_err *e)
{
    *out = NULL;
    int rc = check_opts(o, e);
    if (rc != LENS_OK)
        return rc;
    int nlen = (o->end - o->begin + o->step - 1) / o->step;
    struct lens_cube *c;
    if ((rc = lens_cube_new(&c, o->procs, nlen, o->begin, o->step, 0xF, e)) != LENS_OK)
        return rc;
    c->end = o->end;
    c->mode = LENS_MODE_ONE_TO_ONE;
    c->repeats = o->repeats;
    c->written_by_mpilens = 1;
    c->hosts = lens_calloc((size_t)o->procs, sizeof *c->hosts);
    c->source = lens_strdup("synthetic");
    if (!c->hosts || !c->source)
        goto nomem;
    int per_node = o->procs / o->nodes, per_socket = per_node / o->sockets;
    for (int i = 0; i < o->procs; i++) {
        char name[32];
        snprintf(name, sizeof name, "node%02d", i / per_node + 1);
        if (!(c->hosts[i] = lens_strdup(name)))
            goto nomem;
    }
    unsigned long long s = o->seed * 0x9E3779B97F4A7C15ULL + 1;
    size_t P = (size_t)o->procs;
    for (int k = 0; k < nlen; k++)
        for (size_t i = 0; i < P; i++)
            for (size_t j = 0; j < P; j++) {
                if (i == j)
                    continue; /* the diagonal stays 0: not a measurement */
                int ni = (int)i / per_node, nj = (int)j / per_node;
                int level = ni != nj ? 2 : ((int)i / per_socket != (int)j / per_socket ? 1 : 0);
                double t = o->lat[level] + c->lengths[k] / o->bw[level];
                if (o->slow_node >= 0 && (ni == o->slow_node || nj == o->slow_node))
                    t *= o->slow_factor;
                /* i is the receiver (row), j the sender (column), as in one_to_one */
                if ((int)j == o->bad_src && (int)i == o->bad_dst)
                    t *= o->bad_factor;
                double spread = o->noise * t;
                double mn = t * (1.0 + 0.2 * o->noise * fabs(gauss(&s)));
                double med = mn + spread * (0.5 + 0.5 * fabs(gauss(&s)));
                double avg = med + spread * 0.3 * fabs(gauss(&s));
                double dev = spread * (0.5 + 0.5 * uniform(&s));
                LENS_CUBE_AT(c, LENS_STAT_MIN, k, i, j) = mn;
                LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j) = med;
                LENS_CUBE_AT(c, LENS_STAT_AVERAGE, k, i, j) = avg;
                LENS_CUBE_AT(c, LENS_STAT_DEVIATION, k, i, j) = dev;
            }
    *out = c;
    return LENS_OK;
nomem:
    lens_cube_free(c);
    return lens_err_set(e, LENS_ENOMEM, "synth: out of memory");
}
