/* Synthetic latency cubes with a known machine structure (nodes, sockets, cores) and known
 * injected faults, for the demo, tests and benchmarks. The generator is deterministic for a
 * seed. Delay model per message length l (bytes), one-way, seconds:
 *   t(i, j, l) = lat + l / bw    with (lat, bw) of the closest level i and j share
 *   (same socket, same node, different nodes), times (1 + noise * u), u ~ |N(0,1)| seeded. */
#ifndef LENS_SYNTH_H
#define LENS_SYNTH_H

#include "cube.h"

struct lens_synth_opts {
    int procs;              /* total processes; must be divisible by nodes * sockets */
    int nodes;              /* hosts, named node01, node02, ... */
    int sockets;            /* sockets per node */
    int begin, end, step;   /* message lengths, end exclusive (network_test2's convention) */
    int repeats;            /* written as num_repeates; the statistics are simulated */
    double lat[3];          /* latency (s): same socket, same node, other node */
    double bw[3];           /* bandwidth (bytes/s) for the same three levels */
    double noise;           /* relative noise amplitude, e.g. 0.03 */
    unsigned long seed;
    int slow_node;          /* -1 or a node whose every link is slow_factor slower */
    double slow_factor;
    int bad_src, bad_dst;   /* -1 or one directed link (sender, receiver) bad_factor slower */
    double bad_factor;
};

/* Fills o with a small two-level machine: 16 processes, 4 nodes, 2 sockets, 0..4096 step 512. */
void lens_synth_opts_init(struct lens_synth_opts *o);
/* Builds the cube (mode one_to_one, all four statistics, hosts). Caller frees with
 * lens_cube_free. Returns LENS_EINVAL for inconsistent options (the message says which). */
int lens_synth_cube(const struct lens_synth_opts *o, struct lens_cube **out, struct lens_err *e);

#endif
