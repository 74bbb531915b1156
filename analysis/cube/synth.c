/* Synthetic cubes with a known structure: the ground truth for clustering and anomaly tests
 * and the input of the demo until a live measurement is available. The default options give
 * the cube of the first version byte for byte (samples/cubes/synth32): every extension draws
 * from its own random stream, and only when it is switched on. */
#include "synth.h"
#include "common/atomic.h"

#include "common/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The defaults are part of the output: changing any of them changes samples/cubes/synth32 and
 * the golden files made from it, so they stay as they are and new options default to "off". */
void lens_synth_opts_init(struct lens_synth_opts *o)
{
    memset(o, 0, sizeof *o);
    o->procs = 16;
    o->nodes = 4;
    o->sockets = 2;
    o->begin = 0;
    /* Lengths 0, 512, .., 4096: end is exclusive, as network_test2's end_mes_length. */
    o->end = 4097;
    o->step = 512;
    o->repeats = 100;
    /* Shared memory within a socket, across sockets, a ~100 Gb/s network behind one switch,
     * and one more hop (and a shared uplink) to the nodes of another switch. */
    o->lat[0] = 0.35e-6;
    o->lat[1] = 0.65e-6;
    o->lat[2] = 1.9e-6;
    o->lat[3] = 2.7e-6;
    o->bw[0] = 12e9;
    o->bw[1] = 8e9;
    o->bw[2] = 10e9;
    o->bw[3] = 7e9;
    /* Spread of the repeats relative to the delay: 3 % keeps the four levels well apart. */
    o->noise = 0.03;
    o->seed = 20261121;
    o->slow_node = -1;
    o->slow_factor = 1.6;
    o->bad_src = o->bad_dst = -1;
    o->bad_factor = 3.0;
    o->switches = 1;
    o->asym_a = o->asym_b = -1;
    o->asym_factor = 1.5;
    /* ~ one router traversal on a 3-D torus interconnect: a tenth of the network latency, well
     * above the 3 % noise, so one hop more is always visible. */
    o->torus_hop = 0.2e-6;
}

int lens_synth_torus_hops(const struct lens_synth_opts *o, int a, int b)
{
    int P = o->torus[0] * o->torus[1] * o->torus[2];
    if (o->torus[0] < 1 || a < 0 || b < 0 || a >= P || b >= P)
        return -1;
    int h = 0;
    /* coordinates: x fastest, then y, then z (rank r = x + X * (y + Y * z)) */
    for (int d = 0; d < 3; d++) {
        int D = o->torus[d], da = a % D - b % D;
        da = da < 0 ? -da : da;
        /* the wrap-around link: going the other way costs D - |da| hops */
        h += da < D - da ? da : D - da;
        a /= D;
        b /= D;
    }
    return h;
}

/* xorshift64*: small, fast and the same on every platform, unlike rand().
 * The top 53 bits of the product, scaled by 2^-53: a double uniform in [0, 1) with every
 * mantissa bit random. The state must be non-zero (xorshift stays at 0 forever). */
static double uniform(unsigned long long *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

/* Box-Muller, one normal deviate per two uniforms (the sine half is dropped: simpler, and speed
 * does not matter here). u is kept away from 0 so that log(u) is finite. */
static double gauss(unsigned long long *s)
{
    double u = uniform(s), v = uniform(s);
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* splitmix64: a well-mixed nonzero state from any key, for the per-link streams. */
static unsigned long long mix(unsigned long long x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    /* 0 is the one state xorshift cannot leave. */
    return x ? x : 1;
}

/* Both unset (-1, the feature is off) or two distinct ranks in range. */
static int pair_ok(int a, int b, int procs)
{
    return (a < 0 && b < 0) || (a >= 0 && b >= 0 && a < procs && b < procs && a != b);
}

/* Every option in one place, before anything is allocated: the placement and the cube need nodes
 * x sockets to divide the processes and switches to divide the nodes, or some rank would have no
 * core. */
int lens_synth_check(const struct lens_synth_opts *o, struct lens_err *e)
{
    if (o->torus[0] || o->torus[1] || o->torus[2]) {
        /* A torus replaces the hierarchy: one rank per torus node, and the placement options
         * have nothing to place. */
        if (o->torus[0] < 1 || o->torus[1] < 1 || o->torus[2] < 1 || o->torus[0] > 1024 || o->torus[1] > 1024 ||
            o->torus[2] > 1024)
            return lens_err_set(e, LENS_EINVAL, "synth: torus %d,%d,%d: each dimension must be 1..1024", o->torus[0],
                                o->torus[1], o->torus[2]);
        if ((long)o->torus[0] * o->torus[1] * o->torus[2] != o->procs)
            return lens_err_set(e, LENS_EINVAL, "synth: torus %d x %d x %d has %ld nodes, but %d processes",
                                o->torus[0], o->torus[1], o->torus[2], (long)o->torus[0] * o->torus[1] * o->torus[2],
                                o->procs);
        if (o->nodes != o->procs || o->sockets != 1 || o->switches != 1 || o->shuffle)
            return lens_err_set(e, LENS_EINVAL, "synth: --torus places one rank per node: no --nodes, --sockets, "
                                "--switches or --shuffle");
        if (!(o->torus_hop >= 0))
            return lens_err_set(e, LENS_EINVAL, "synth: torus hop delay must be >= 0 (got %g)", o->torus_hop);
    }
    if (o->procs < 2 || o->nodes < 1 || o->sockets < 1)
        return lens_err_set(e, LENS_EINVAL, "synth: need at least 2 processes, 1 node, 1 socket");
    if (o->procs % (o->nodes * o->sockets))
        return lens_err_set(e, LENS_EINVAL, "synth: %d processes do not divide into %d nodes x %d sockets",
                            o->procs, o->nodes, o->sockets);
    if (o->switches < 1 || o->nodes % o->switches)
        return lens_err_set(e, LENS_EINVAL, "synth: %d nodes do not divide into %d switches", o->nodes,
                            o->switches);
    if (o->step <= 0 || o->begin < 0 || o->end <= o->begin)
        return lens_err_set(e, LENS_EINVAL, "synth: bad length range %d..%d step %d", o->begin, o->end, o->step);
    if (o->slow_node >= o->nodes)
        return lens_err_set(e, LENS_EINVAL, "synth: slow node %d, but only %d nodes", o->slow_node, o->nodes);
    if (!pair_ok(o->bad_src, o->bad_dst, o->procs))
        return lens_err_set(e, LENS_EINVAL, "synth: bad link %d -> %d is not a pair of distinct ranks",
                            o->bad_src, o->bad_dst);
    if (!pair_ok(o->asym_a, o->asym_b, o->procs))
        return lens_err_set(e, LENS_EINVAL, "synth: asymmetric pair %d, %d is not a pair of distinct ranks",
                            o->asym_a, o->asym_b);
    if (!(o->spikes >= 0 && o->spikes <= 1))
        return lens_err_set(e, LENS_EINVAL, "synth: spikes must be a share in [0, 1] (got %g)", o->spikes);
    /* jitter below 0.5 keeps the per-link factor 1 + jitter * N(0, 1) mostly positive (it is
     * clamped at 0.5 besides); the !(x ...) forms refuse NaN. */
    if (!(o->jitter >= 0 && o->jitter < 0.5) || !(o->asym_factor >= 1) || !(o->slow_factor > 0) ||
        !(o->bad_factor > 0))
        return lens_err_set(e, LENS_EINVAL, "synth: need 0 <= jitter < 0.5, asymmetry factor >= 1 and "
                            "positive fault factors (got %g, %g, %g, %g)", o->jitter, o->asym_factor,
                            o->slow_factor, o->bad_factor);
    return LENS_OK;
}

/* Rank r sits in slot slot[r]: slots are filled node by node, socket by socket, core by
 * core, so without --shuffle consecutive ranks share a socket and a node (block placement). */
int lens_synth_placement(const struct lens_synth_opts *o, struct lens_synth_place *place, struct lens_err *e)
{
    int rc = lens_synth_check(o, e);
    if (rc != LENS_OK)
        return rc;
    int P = o->procs, per_node = P / o->nodes, per_socket = per_node / o->sockets;
    int *slot = lens_malloc((size_t)P * sizeof *slot);
    if (!slot)
        return lens_err_set(e, LENS_ENOMEM, "synth: out of memory");
    for (int r = 0; r < P; r++)
        slot[r] = r;
    if (o->shuffle) {
        /* Fisher-Yates from a stream of its own, so the noise stream stays the same */
        unsigned long long s = mix(o->seed ^ 0x53485546464C45ULL);
        for (int r = P - 1; r > 0; r--) {
            /* q in [0, r]: uniform() < 1, so the product stays below r + 1. */
            int q = (int)(uniform(&s) * (r + 1));
            int t = slot[r];
            slot[r] = slot[q];
            slot[q] = t;
        }
    }
    int nodes_per_switch = o->nodes / o->switches;
    for (int r = 0; r < P; r++) {
        int p = slot[r];
        place[r].node = p / per_node;
        place[r].socket = p % per_node / per_socket;
        place[r].core = p % per_socket;
        place[r].sw = place[r].node / nodes_per_switch;
    }
    lens_free(slot);
    return LENS_OK;
}

/* The level of a link is the highest boundary it crosses: switch, node, socket, or none (two
 * cores of one socket), indexing lat[] and bw[]. */
static int level(const struct lens_synth_place *a, const struct lens_synth_place *b)
{
    if (a->sw != b->sw)
        return LENS_SYNTH_REMOTE;
    if (a->node != b->node)
        return LENS_SYNTH_SWITCH;
    return a->socket != b->socket ? LENS_SYNTH_NODE : LENS_SYNTH_SOCKET;
}

/* The fixed factor of link (receiver i, sender j). */
static double jitter(const struct lens_synth_opts *o, size_t i, size_t j)
{
    if (o->jitter <= 0)
        return 1.0;
    /* A stream per link, keyed by the seed and the pair ("JITTER" in ASCII as the salt): the
     * factor of a link does not depend on the order of generation, and the noise stream is
     * untouched. */
    unsigned long long s = mix(mix(o->seed ^ 0x4A4954544552ULL) ^ (i * (size_t)o->procs + j));
    double f = 1.0 + o->jitter * gauss(&s);
    return f > 0.5 ? f : 0.5;
}

/* The delay of link (receiver i, sender j) at length index k, without noise.
 * Hockney's model per level, t = latency + length / bandwidth, times the link's fixed jitter;
 * then the planted anomalies, each applied only when its option is set. */
static double delay(const struct lens_synth_opts *o, const struct lens_synth_place *pl, const struct lens_cube *c,
                    int k, size_t i, size_t j)
{
    double t;
    if (o->torus[0]) {
        /* the torus model (synth.h): the network's latency and bandwidth plus a cost per hop */
        int h = lens_synth_torus_hops(o, (int)i, (int)j);
        t = (o->lat[LENS_SYNTH_SWITCH] + h * o->torus_hop + c->lengths[k] / o->bw[LENS_SYNTH_SWITCH]) *
            jitter(o, i, j);
    } else {
        int lv = level(&pl[i], &pl[j]);
        t = (o->lat[lv] + c->lengths[k] / o->bw[lv]) * jitter(o, i, j);
    }
    if (o->slow_node >= 0 && (pl[i].node == o->slow_node || pl[j].node == o->slow_node))
        t *= o->slow_factor;
    if ((int)j == o->bad_src && (int)i == o->bad_dst)
        t *= o->bad_factor;
    /* The asymmetric pair is slower one way (a to b) and faster the other by the same factor, so
     * its mean stays near the level's delay and only the asymmetry stands out. */
    if ((int)j == o->asym_a && (int)i == o->asym_b)
        t *= o->asym_factor;
    if ((int)j == o->asym_b && (int)i == o->asym_a)
        t /= o->asym_factor;
    return t;
}

int lens_synth_cube(const struct lens_synth_opts *o, struct lens_cube **out, struct lens_err *e)
{
    *out = NULL;
    int rc = lens_synth_check(o, e);
    if (rc != LENS_OK)
        return rc;
    struct lens_synth_place *pl = lens_malloc((size_t)o->procs * sizeof *pl);
    if (!pl)
        return lens_err_set(e, LENS_ENOMEM, "synth: out of memory");
    if ((rc = lens_synth_placement(o, pl, e)) != LENS_OK) {
        lens_free(pl);
        return rc;
    }
    /* The lengths begin, begin + step, .. below end: the ceiling of (end - begin) / step. */
    int nlen = (o->end - o->begin + o->step - 1) / o->step;
    struct lens_cube *c;
    if ((rc = lens_cube_new(&c, o->procs, nlen, o->begin, o->step, 0xF, e)) != LENS_OK) {
        lens_free(pl);
        return rc;
    }
    c->end = o->end;
    c->mode = LENS_MODE_ONE_TO_ONE;
    c->repeats = o->repeats;
    /* Nothing to repair: the cube has no network_test2 defects. */
    c->written_by_mpilens = 1;
    c->hosts = lens_calloc((size_t)o->procs, sizeof *c->hosts);
    c->source = lens_strdup("synthetic");
    if (!c->hosts || !c->source)
        goto nomem;
    /* Host names follow the nodes ("node01" ..), so the hosts file says which ranks share a
     * node. */
    for (int i = 0; i < o->procs; i++) {
        char name[32];
        snprintf(name, sizeof name, "node%02d", pl[i].node + 1);
        if (!(c->hosts[i] = lens_strdup(name)))
            goto nomem;
    }
    /* The noise stream: one sequence for the whole cube, consumed in the fixed order k, i, j.
     * The default cube depends on this order; the extensions use keyed streams of their own. */
    unsigned long long s = o->seed * 0x9E3779B97F4A7C15ULL + 1;
    size_t P = (size_t)o->procs;
    for (int k = 0; k < nlen; k++)
        for (size_t i = 0; i < P; i++)
            for (size_t j = 0; j < P; j++) {
                if (i == j)
                    continue; /* the diagonal stays 0: not a measurement */
                /* i is the receiver (row), j the sender (column), as in one_to_one */
                double t = delay(o, pl, c, k, i, j);
                double spread = o->noise * t;
                /* The four statistics keep the order of real repeated delays: min <= median <=
                 * average (a distribution skewed to the right, as delays are), with a deviation
                 * of the noise's size. */
                double mn = t * (1.0 + 0.2 * o->noise * fabs(gauss(&s)));
                double med = mn + spread * (0.5 + 0.5 * fabs(gauss(&s)));
                double avg = med + spread * 0.3 * fabs(gauss(&s));
                double dev = spread * (0.5 + 0.5 * uniform(&s));
                if (o->spikes > 0) {
                    unsigned long long h = mix(mix(o->seed ^ 0x5350494B4553ULL) ^ ((size_t)k * P * P + i * P + j));
                    /* A spike is a rare very slow repeat: it raises the average and the
                     * deviation by a heavy-tailed amount (1 / u), while the min and median,
                     * robust to one repeat, stay put. */
                    if (uniform(&h) < o->spikes) {
                        double u = 1.0 - uniform(&h); /* (0, 1] */
                        avg += t * 0.05 / u;
                        dev += t * 0.5 / u;
                    }
                }
                LENS_CUBE_AT(c, LENS_STAT_MIN, k, i, j) = mn;
                LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j) = med;
                LENS_CUBE_AT(c, LENS_STAT_AVERAGE, k, i, j) = avg;
                LENS_CUBE_AT(c, LENS_STAT_DEVIATION, k, i, j) = dev;
            }
    lens_free(pl);
    *out = c;
    return LENS_OK;
nomem:
    lens_free(pl);
    lens_cube_free(c);
    return lens_err_set(e, LENS_ENOMEM, "synth: out of memory");
}

static void json_ranks(struct lens_json *j, const int *r, int n)
{
    lens_json_key(j, "ranks");
    lens_json_begin_array(j);
    for (int t = 0; t < n; t++)
        lens_json_int(j, r[t]);
    lens_json_end_array(j);
}

/* The planted anomalies, as the ground truth that tests and the demo compare the anomaly
 * detection with; the absent ones are simply not listed. */
static void json_anomalies(struct lens_json *j, const struct lens_synth_opts *o, const struct lens_synth_place *pl)
{
    lens_json_key(j, "anomalies");
    lens_json_begin_array(j);
    if (o->slow_node >= 0) {
        lens_json_begin_object(j);
        lens_json_key(j, "kind");
        lens_json_string(j, "slow_node");
        char host[32];
        snprintf(host, sizeof host, "node%02d", o->slow_node + 1);
        lens_json_key(j, "host");
        lens_json_string(j, host);
        lens_json_key(j, "node");
        lens_json_int(j, o->slow_node);
        lens_json_key(j, "ranks");
        lens_json_begin_array(j);
        for (int r = 0; r < o->procs; r++)
            if (pl[r].node == o->slow_node)
                lens_json_int(j, r);
        lens_json_end_array(j);
        lens_json_key(j, "factor");
        lens_json_number(j, o->slow_factor);
        lens_json_end_object(j);
    }
    const char *kind[2] = {"bad_link", "asymmetric_pair"};
    int pair[2][2] = {{o->bad_src, o->bad_dst}, {o->asym_a, o->asym_b}};
    double factor[2] = {o->bad_factor, o->asym_factor};
    for (int w = 0; w < 2; w++) {
        if (pair[w][0] < 0)
            continue;
        lens_json_begin_object(j);
        lens_json_key(j, "kind");
        lens_json_string(j, kind[w]);
        json_ranks(j, pair[w], 2); /* sender, receiver of the slow direction */
        lens_json_key(j, "factor");
        lens_json_number(j, factor[w]);
        lens_json_end_object(j);
    }
    lens_json_end_array(j);
}

/* The truth file (JSON) next to a synthetic cube: its placement and its anomalies. Written
 * through the atomic writer, so it joins the command's output group with the cube. */
int lens_synth_truth_write(const struct lens_synth_opts *o, const char *path, struct lens_err *e)
{
    /* Allocated before the options are checked (lens_synth_placement checks them): a bad procs
     * must not make a negative size. */
    struct lens_synth_place *pl = lens_malloc((size_t)(o->procs > 0 ? o->procs : 1) * sizeof *pl);
    if (!pl)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    int rc = lens_synth_placement(o, pl, e);
    const char *slash = strrchr(path, '/');
    if (rc == LENS_OK && slash && slash != path) {
        /* beside the cube, whose writer makes its directory too */
        char *dir = lens_strdup(path);
        if (dir) {
            dir[slash - path] = '\0';
            rc = lens_atomic_mkdir_p(dir, e);
            lens_free(dir);
        } else {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
        }
    }
    struct lens_atomic a;
    if (rc == LENS_OK)
        rc = lens_atomic_open(&a, path, "w", e);
    if (rc != LENS_OK) {
        lens_free(pl);
        return rc;
    }
    struct lens_json j;
    /* Write errors are not checked call by call: the stream keeps them, and lens_atomic_commit
     * reports the first one with its reason. */
    lens_json_init(&j, a.fp);
    lens_json_begin_object(&j);
    const char *shape[] = {"procs", "switches", "nodes", "sockets", "cores"};
    long long v[] = {o->procs, o->switches, o->nodes, o->sockets, o->procs / o->nodes / o->sockets};
    for (int t = 0; t < 5; t++) {
        lens_json_key(&j, shape[t]);
        lens_json_int(&j, v[t]);
    }
    lens_json_key(&j, "seed");
    lens_json_int(&j, (long long)o->seed);
    if (o->torus[0]) {
        /* the torus shape: a rank's coordinates follow from it (synth.h) */
        lens_json_key(&j, "torus");
        lens_json_begin_array(&j);
        for (int d = 0; d < 3; d++)
            lens_json_int(&j, o->torus[d]);
        lens_json_end_array(&j);
        lens_json_key(&j, "torus_hop");
        lens_json_number(&j, o->torus_hop);
    }
    lens_json_key(&j, "shuffle");
    lens_json_bool(&j, o->shuffle);
    lens_json_key(&j, "placement");
    lens_json_begin_array(&j);
    for (int r = 0; r < o->procs; r++) {
        char host[32];
        snprintf(host, sizeof host, "node%02d", pl[r].node + 1);
        lens_json_begin_object(&j);
        lens_json_key(&j, "rank");
        lens_json_int(&j, r);
        lens_json_key(&j, "host");
        lens_json_string(&j, host);
        const char *k[] = {"switch", "node", "socket", "core"};
        int x[] = {pl[r].sw, pl[r].node, pl[r].socket, pl[r].core};
        for (int t = 0; t < 4; t++) {
            lens_json_key(&j, k[t]);
            lens_json_int(&j, x[t]);
        }
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    json_anomalies(&j, o, pl);
    lens_json_end_object(&j); /* ends the line */
    lens_free(pl);
    return lens_atomic_commit(&a, e);
}
