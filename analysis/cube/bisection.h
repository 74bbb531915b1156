/* PREFIX_bisection.csv of mpilens-bench -t bisection (docs/bench.md "Bisection bandwidth"):
 * one row per round of random halves matched across the split. Bytes, seconds and bytes per
 * second (B/s). A struct lens_bisection owns its rounds (lens_bisection_free). */
#ifndef LENS_BISECTION_H
#define LENS_BISECTION_H

#include "common/err.h"

/* The bench's header, exactly. */
#define LENS_BISECTION_HEADER "round,pairs,bytes,seconds,bandwidth_Bps,slowest_pair_Bps,slowest_sender,slowest_receiver"

struct lens_bisection_round {
    int round, pairs;
    double bytes;              /* moved across the split in the round (an integer below 2^53) */
    double seconds;            /* the slowest flow's time, > 0 */
    double bandwidth_Bps;      /* bytes / seconds: the aggregate across the bisection */
    double slowest_pair_Bps;   /* the slowest flow's rate */
    int slowest_sender, slowest_receiver;
};

/* How the run was made, from the "# key: value" comment lines ahead of the header (bench
 * since issue 14; the keys are the cube's provenance attribute names). Each owned, NULL when
 * the file has no such line (an older run). */
struct lens_bisection_prov {
    char *measured_at;         /* start of the measurement, ISO 8601 UTC */
    char *mpi;                 /* mpi_library_version: the MPI library's first line */
    char *launcher;            /* mpirun, Hydra or Slurm, as the environment told */
    char *binding;             /* the binding policy and rank 0's affinity */
    char *cores_per_host;      /* rank 0's node's online processors (text, as written) */
};

struct lens_bisection {
    char *path;                /* the file read (owned) */
    int n;
    struct lens_bisection_round *r; /* in file order */
    struct lens_bisection_prov prov;
};

/* The comment keys of struct lens_bisection_prov, in its field order: the writer
 * (bench/net/bisect_run.c) and the reader share them. */
#define LENS_BISECTION_PROV_KEYS {"measured_at", "mpi_library_version", "launcher", "binding", "cores_per_host"}
#define LENS_BISECTION_NPROV 5

/* What info and accept say about a run. */
struct lens_bisection_summary {
    int rounds;
    double median_Bps, min_Bps, avg_Bps; /* of bandwidth_Bps over the rounds (median: the mean
                                            of the two middle ones for an even count) */
    int min_round;             /* the round of min_Bps */
    double max_Bps;            /* the largest bandwidth_Bps ... */
    int max_round;             /* ... and its round (ties: the first) */
    double worst_pair_Bps;     /* the smallest slowest_pair_Bps ... */
    int worst_round, worst_sender, worst_receiver; /* ... and where it was */
};

/* 1 when input names a bisection CSV (a file ending in _bisection.csv) or a prefix with
 * PREFIX_bisection.csv beside it. No allocation, no message. */
int lens_bisection_probe(const char *input);
/* Reads input (the CSV or its prefix), with the provenance comments ahead of the header (other
 * comment lines are skipped). LENS_EIO, LENS_EFORMAT (header not exact, a field that
 * is not a whole number, rounds not 0, 1, 2 ..., a non-positive time, a bandwidth that is
 * not bytes / seconds, a provenance key given twice, at FILE:LINE:COLUMN), LENS_EDATA (no
 * rows), LENS_ENOMEM. */
int lens_bisection_read(const char *input, struct lens_bisection **out, struct lens_err *e);
void lens_bisection_free(struct lens_bisection *b);
/* The summary of b (at least one round, as lens_bisection_read guarantees). LENS_ENOMEM. */
int lens_bisection_summarise(const struct lens_bisection *b, struct lens_bisection_summary *s,
                             struct lens_err *e);

/* ---- what `mpilens report` shows of a run (bisection_nc.c) ---- */

/* One direction sender -> receiver over the rounds it was a flow in. */
struct lens_bisection_link {
    int sender, receiver;      /* ranks */
    double min_Bps;            /* its slowest flow, B/s */
    int round;                 /* the round of min_Bps (ties: the first) */
    int rounds;                /* rounds it was a flow in */
};

/* One node (ranks with the same host name) when ranks share nodes. */
struct lens_bisection_node {
    char *name;                /* host name (owned) */
    int ranks;                 /* ranks on it */
    double share_avg, share_min, share_max; /* node_share over the rounds: the fraction of a
                                               round's bytes its ranks received */
    double Bps_avg;            /* mean over the rounds of node_Bps (its incoming flows' rates) */
};

/* A run as the report lays it out, computed once by lens_bisection_detail_read: owns all. */
struct lens_bisection_detail {
    struct lens_bisection *run;        /* the CSV's rounds */
    struct lens_bisection_summary s;   /* lens_bisection_summarise of run */
    char *nc_path;                     /* PREFIX_bisection.nc read, NULL when absent */
    int size_bytes, window;            /* message size (bytes) and window (.nc; 0 without) */
    int nranks;                        /* ranks (.nc; 0 without) */
    char **hosts;                      /* nranks host names (.nc), NULL without */
    int nlinks;                        /* links, slowest first (by min_Bps, then sender and */
    struct lens_bisection_link *links; /* receiver): every flow of the .nc, or without it the
                                          CSV's slowest pair of each round */
    int nnodes;                        /* nodes when ranks share nodes (the .nc's node_*
                                          variables), else 0 */
    struct lens_bisection_node *nodes; /* in order of first rank */
};

/* Reads input (the CSV or its prefix) with lens_bisection_read, summarises it and, when
 * PREFIX_bisection.nc is beside the CSV, reads its hosts, flows and per-node shares. *out is
 * NULL on failure. Errors: those of lens_bisection_read; for the .nc LENS_EFORMAT (through
 * lens_nc_guard_open; a variable missing or of another shape, a rank or node index out of
 * range, a round count or round values other than the CSV's, naming the file), LENS_ENOMEM. */
int lens_bisection_detail_read(const char *input, struct lens_bisection_detail **out, struct lens_err *e);
void lens_bisection_detail_free(struct lens_bisection_detail *d);

#endif
