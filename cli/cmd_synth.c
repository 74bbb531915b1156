/* mpilens synth: writes a synthetic latency cube with a known node/socket structure and
 * optional injected faults, in the network_test2 layout. */
#include "cli.h"

#include "analysis/cube/cube.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

LENS_COMMAND(synth, "write a synthetic latency cube with a known machine structure");

static void help(void)
{
    printf("usage: mpilens synth -o PREFIX [options]\n\n"
           "Writes PREFIX_{average,median,deviation,min}.nc and PREFIX_hosts.txt: a one_to_one\n"
           "cube of a machine with NODES nodes of SOCKETS sockets, where a message between two\n"
           "ranks costs latency + length / bandwidth of the closest level they share (socket, node,\n"
           "switch, other switch). --truth writes what a correct analysis must find.\n\n"
           "options:\n"
           "  -o, --output PREFIX     output prefix (required)\n"
           "  -n, --procs N           processes (default 16)\n"
           "      --nodes N           nodes (default 4)\n"
           "      --sockets N         sockets per node (default 2)\n"
           "      --switches N        switches, each with nodes/N nodes (default 1)\n"
           "      --shuffle           place ranks on cores by a permutation drawn from the seed\n"
           "      --torus X,Y,Z       instead of the hierarchy, one rank per node of a 3-D torus\n"
           "                          (procs X*Y*Z); delay grows with the hops (docs/synth.md)\n"
           "      --torus-hop S       seconds per hop on the torus (default 2e-07)\n"
           "  -l, --lengths B:E:S     lengths from B to E (exclusive) step S (default 0:4097:512)\n"
           "      --noise X           relative noise (default 0.03)\n"
           "      --seed N            random seed (default 20261121)\n"
           "      --slow-node N       make every link of node N (0-based) 1.6x slower\n"
           "      --bad-link S,R      make the link from rank S to rank R 3x slower\n"
           "      --asym-pair A,B     make A->B 1.5x slower and B->A 1.5x faster\n"
           "      --jitter X          fixed per-link relative spread (default 0)\n"
           "      --spikes X          share of elements whose average and deviation carry OS\n"
           "                          noise spikes, median and min untouched (default 0)\n"
           "      --truth FILE        write the ground truth (placement, faults) as JSON\n"
           "      --force             overwrite an existing result\n"
           "  -h, --help              show this help\n\n"
           "example:\n"
           "  mpilens synth -o out/synth/network --procs 32 --nodes 4 --slow-node 2 --bad-link 3,17\n"
           "  mpilens synth -o out/gt/network --procs 64 --switches 2 --nodes 8 --sockets 2 --shuffle \\\n"
           "      --jitter 0.02 --slow-node 5 --bad-link 9,40 --asym-pair 12,33 --truth out/gt/truth.json\n");
}

/* An int, the whole argument. The range is only a guard against overflow in the cast:
 * whether a count makes sense (procs divisible by nodes x sockets, a node that exists) is
 * lens_synth_check's question, which names the option in its error. */
static int parse_int(const char *s, int *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    if (end == s || *end || x < -1000000000L || x > 1000000000L)
        return -1;
    *v = (int)x;
    return 0;
}

/* n ints separated by sep ("0:4096:512", "3,17"), the whole argument: sscanf alone would
 * accept "0:1024:512junk" and silently drop the tail. */
static int parse_ints(const char *s, char sep, int n, int *const v[])
{
    char buf[128];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    char *p = buf;
    for (int i = 0; i < n; i++) {
        char *q = i + 1 < n ? strchr(p, sep) : p + strlen(p);
        if (!q)
            return -1;
        *q = '\0';
        if (parse_int(p, v[i]) != 0)
            return -1;
        p = q + 1;
    }
    return 0;
}

/* A seed: a whole unsigned decimal number. strtoul alone would take "abc" as 0 and "-1" as
 * ULONG_MAX, so two different typos would give the same cube without a word. */
static int parse_seed(const char *s, unsigned long *v)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return -1;
    unsigned long x = strtoul(s, &end, 10);
    if (*end || errno)
        return -1;
    *v = x;
    return 0;
}

/* A number in [lo, hi), the whole argument. */
static int parse_real(const char *s, double lo, double hi, double *v)
{
    char *end;
    double x = strtod(s, &end);
    /* written !(in range) so that a NaN argument is refused too */
    if (end == s || *end || !(x >= lo && x < hi))
        return -1;
    *v = x;
    return 0;
}

int cmd_synth(int argc, char **argv)
{
    enum { O_NODES = 256, O_SOCKETS, O_NOISE, O_SEED, O_SLOW, O_BAD, O_FORCE, O_SWITCHES, O_SHUFFLE, O_ASYM,
           O_JITTER, O_TRUTH, O_SPIKES, O_TORUS, O_TORUS_HOP };
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"procs", required_argument, NULL, 'n'},
        {"nodes", required_argument, NULL, O_NODES}, {"sockets", required_argument, NULL, O_SOCKETS},
        {"lengths", required_argument, NULL, 'l'}, {"noise", required_argument, NULL, O_NOISE},
        {"seed", required_argument, NULL, O_SEED}, {"slow-node", required_argument, NULL, O_SLOW},
        {"bad-link", required_argument, NULL, O_BAD}, {"force", no_argument, NULL, O_FORCE},
        {"switches", required_argument, NULL, O_SWITCHES}, {"shuffle", no_argument, NULL, O_SHUFFLE},
        {"asym-pair", required_argument, NULL, O_ASYM}, {"jitter", required_argument, NULL, O_JITTER},
        {"truth", required_argument, NULL, O_TRUTH}, {"spikes", required_argument, NULL, O_SPIKES},
        {"torus", required_argument, NULL, O_TORUS}, {"torus-hop", required_argument, NULL, O_TORUS_HOP},
        {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    /* The defaults (lens_synth_opts_init) make a small two-level machine: 16 processes on 4
     * nodes of 2 sockets, lengths 0..4096 step 512, 3 % noise, no faults; big enough to show a
     * structure, small enough for a test to write in a blink. */
    struct lens_synth_opts o;
    lens_synth_opts_init(&o);
    const char *prefix = NULL, *truth = NULL;
    int force = 0, ch, bad = 0, given_procs = 0, given_nodes = 0, given_sockets = 0;
    optind = 1;
    /* Each option only parses; consistency is checked as a whole by the generator. */
    while ((ch = getopt_long(argc, argv, "o:n:l:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': prefix = optarg; break;
        case 'n': bad = parse_int(optarg, &o.procs), given_procs = 1; break;
        case O_NODES: bad = parse_int(optarg, &o.nodes), given_nodes = 1; break;
        case O_SOCKETS: bad = parse_int(optarg, &o.sockets), given_sockets = 1; break;
        case O_TORUS: bad = parse_ints(optarg, ',', 3, (int *const[]){&o.torus[0], &o.torus[1], &o.torus[2]}); break;
        /* up to a millisecond per hop: more is no interconnect */
        case O_TORUS_HOP: bad = parse_real(optarg, 0, 1e-3, &o.torus_hop); break;
        /* B:E:S as network_test2 gives lengths, E exclusive; the generator checks their sense */
        case 'l': bad = parse_ints(optarg, ':', 3, (int *const[]){&o.begin, &o.end, &o.step}); break;
        /* --noise is relative (0.03 is 3 %); the upper bound only refuses absurd values */
        case O_NOISE: bad = parse_real(optarg, 0, 10, &o.noise); break;
        /* the seed is taken as given: any number is a valid seed; the default is fixed so that
         * two runs with the same options write the same cube */
        case O_SEED: bad = parse_seed(optarg, &o.seed); break;
        case O_SLOW: bad = parse_int(optarg, &o.slow_node); break;
        case O_BAD: bad = parse_ints(optarg, ',', 2, (int *const[]){&o.bad_src, &o.bad_dst}); break;
        case O_FORCE: force = 1; break;
        case O_SWITCHES: bad = parse_int(optarg, &o.switches); break;
        case O_SHUFFLE: o.shuffle = 1; break;
        case O_ASYM: bad = parse_ints(optarg, ',', 2, (int *const[]){&o.asym_a, &o.asym_b}); break;
        /* jitter below 0.5: the per-link factor is clamped at 0.5, so a larger spread would pile
         * links onto the clamp (analysis/cube/synth.h) */
        case O_JITTER: bad = parse_real(optarg, 0, 0.5, &o.jitter); break;
        case O_TRUTH: truth = optarg; break;
        /* a share in [0, 1]: the upper bound is just above 1 because the interval is half-open */
        case O_SPIKES: bad = parse_real(optarg, 0, 1.0000001, &o.spikes); break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("synth", "unknown option");
        }
        /* every option parse error is a usage error, status 2 */
        if (bad)
            return lens_cli_usage("synth", "bad value '%s' for an option", optarg);
    }
    if (!prefix)
        return lens_cli_usage("synth", "missing -o PREFIX");
    /* A torus has one rank per node: the counts follow from X,Y,Z unless given, and given ones
     * that disagree are refused by lens_synth_check, naming them. */
    if (o.torus[0] || o.torus[1] || o.torus[2]) {
        long n = (long)o.torus[0] * o.torus[1] * o.torus[2];
        if (!given_procs)
            o.procs = n > 0 && n <= 1 << 20 ? (int)n : -1;
        if (!given_nodes)
            o.nodes = o.procs;
        if (!given_sockets)
            o.sockets = 1;
    }
    if (optind != argc)
        return lens_cli_usage("synth", "unexpected argument '%s'", argv[optind]);
    struct lens_err e;
    lens_err_clear(&e);
    /* refuse to replace a measured result under the same prefix unless asked */
    if (!force && lens_cube_exists(prefix)) {
        lens_err_set(&e, LENS_EIO, "%s: a result with this prefix exists; use --force to overwrite", prefix);
        return lens_cli_fail(&e);
    }
    struct lens_cube *c;
    if (lens_synth_cube(&o, &c, &e) != LENS_OK)
        return lens_cli_fail(&e);
    /* the seed travels with the files: with the same options it makes the same cube again */
    char seed[32];
    snprintf(seed, sizeof seed, "%lu", o.seed);
    /* source says in words that nothing was measured: the report's provenance reads it */
    char source[64];
    snprintf(source, sizeof source, "synthetic (mpilens synth, seed %lu)", o.seed);
    const char *attrs[] = {"generator", "mpilens synth", "seed", seed, "source", source, NULL, NULL};
    /* the truth first: it cannot fail for want of room after the cube is written */
    int rc = truth ? lens_synth_truth_write(&o, truth, &e) : LENS_OK;
    if (rc == LENS_OK) /* the truth waits with the cube: on failure neither appears */
        rc = lens_cube_write(c, prefix, attrs, &e);
    lens_cube_free(c);
    if (rc != LENS_OK)
        return lens_cli_fail(&e);
    fprintf(stderr, "mpilens: wrote %s_{average,median,deviation,min}.nc and %s_hosts.txt%s%s\n", prefix, prefix,
            truth ? " and " : "", truth ? truth : "");
    return LENS_EXIT_OK;
}
