/* Synthetic latency cubes with a known machine structure (cores within sockets within nodes
 * within switches), a known placement of ranks on cores, and known injected faults, for the
 * demo, tests and benchmarks. The generator is deterministic for a seed. Delay model per
 * message length l (bytes), one-way, seconds:
 *   t(i, j, l) = (lat + l / bw) * jit(i, j)   with (lat, bw) of the closest level i and j share
 *                                             (socket, node, switch, other switch),
 * times the faults, times (1 + noise * u), u ~ |N(0,1)| drawn per element from the seed.
 * jit(i, j) = max(0.5, 1 + jitter * N(0,1)) is a fixed per-link factor (cable lengths,
 * routes), drawn from a hash of (seed, i, j), so it is the same at every length. With
 * spikes > 0, that share of the elements (drawn from a hash of (seed, k, i, j)) had a few
 * repeats delayed by the operating system: the average gains t * 0.05 / u and the deviation
 * t * 0.5 / u, u uniform in (0, 1] (Pareto tail), while the median and min do not move.
 * With a torus (torus[0] > 0) the hierarchy is replaced: rank r sits alone on the torus node
 * (r mod X, (r / X) mod Y, r / XY), and a message crossing h hops (the shortest way round in
 * each dimension, docs/synth.md) costs
 *   t(i, j, l) = (lat[switch] + h * torus_hop + l / bw[switch]) * jit(i, j),
 * so the delay grows linearly with the hop count; the faults, noise and spikes are as above. */
#ifndef LENS_SYNTH_H
#define LENS_SYNTH_H

#include "cube.h"

/* The four levels of the delay model, closest first. */
enum { LENS_SYNTH_SOCKET = 0, LENS_SYNTH_NODE = 1, LENS_SYNTH_SWITCH = 2, LENS_SYNTH_REMOTE = 3 };

struct lens_synth_opts {
    int procs;              /* total processes; must be divisible by nodes * sockets */
    int nodes;              /* hosts, named node01, node02, ... in physical order */
    int sockets;            /* sockets per node */
    int begin, end, step;   /* message lengths, end exclusive (network_test2's convention) */
    int repeats;            /* written as num_repeates; the statistics are simulated */
    double lat[4];          /* latency (s): same socket, same node, same switch, other switch */
    double bw[4];           /* bandwidth (bytes/s) for the same four levels */
    double noise;           /* relative noise amplitude, e.g. 0.03 */
    unsigned long seed;
    int slow_node;          /* -1 or a node (physical, 0-based) whose every link is slow_factor slower */
    double slow_factor;
    int bad_src, bad_dst;   /* -1 or one directed link (sender, receiver rank) bad_factor slower */
    double bad_factor;
    /* Extensions; their defaults (1, 0, -1, 0, 0) give the cube of the fields above unchanged. */
    int switches;           /* nodes split evenly over this many switches (1: one switch) */
    int shuffle;            /* 1: ranks sit on cores in the order of a permutation drawn from seed */
    int asym_a, asym_b;     /* -1 or a pair: a->b asym_factor slower and b->a asym_factor faster */
    double asym_factor;
    double jitter;          /* relative spread of the fixed per-link factor, e.g. 0.02 */
    double spikes;          /* share of elements hit by OS noise in some repeats: their average
                             * and deviation grow by a heavy-tailed amount, median and min not */
    int torus[3];           /* X, Y, Z of a 3-D torus, procs = X * Y * Z; all 0: no torus */
    double torus_hop;       /* seconds added per hop on the torus (default 0.2e-6) */
};

/* Where one rank runs: all indices 0-based and global (node 5 is node06, on switch 5 / npsw). */
struct lens_synth_place {
    int sw, node, socket, core; /* socket in its node, core in its socket */
};

/* Fills o with a small two-level machine: 16 processes, 4 nodes, 2 sockets, 0..4096 step 512,
 * one switch, no shuffle, no faults, no jitter. */
void lens_synth_opts_init(struct lens_synth_opts *o);
/* Hops between ranks a and b on o's torus: per dimension the shorter way round,
 * min(|da|, D - |da|), summed. -1 when o has no torus or a rank is out of range. */
int lens_synth_torus_hops(const struct lens_synth_opts *o, int a, int b);
/* Checks o; LENS_EINVAL with a message naming the option. */
int lens_synth_check(const struct lens_synth_opts *o, struct lens_err *e);
/* The placement of every rank: place[r] for r < procs (caller-allocated). Identity order
 * (rank r on core slot r) without shuffle. Errors: those of lens_synth_check, LENS_ENOMEM. */
int lens_synth_placement(const struct lens_synth_opts *o, struct lens_synth_place *place,
                         struct lens_err *e);
/* Builds the cube (mode one_to_one, all four statistics, hosts from the placement). Caller frees
 * with lens_cube_free. Returns LENS_EINVAL for inconsistent options (the message says which). */
int lens_synth_cube(const struct lens_synth_opts *o, struct lens_cube **out, struct lens_err *e);
/* Writes the ground truth as JSON to path (atomically): the shape, per rank its host, switch,
 * node, socket and core, and the injected anomalies with the kinds and ranks that
 * `mpilens anomalies --json` uses. Errors: LENS_EINVAL, LENS_ENOMEM, LENS_EIO naming path. */
int lens_synth_truth_write(const struct lens_synth_opts *o, const char *path, struct lens_err *e);

#endif
