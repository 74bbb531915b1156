/* Results of the point-to-point sweep and their files: PREFIX_p2p.csv and PREFIX_p2p.nc.
 * Serial code (no MPI): rank 0 fills a struct lens_bench_p2p_out from the raw iteration times and
 * writes both files atomically. Times in seconds, sizes in bytes, rates per second. */
#ifndef LENS_BENCH_P2P_OUT_H
#define LENS_BENCH_P2P_OUT_H

#include "common/err.h"

/* Per pair and size: index q = pair * nsize + k. Statistics follow p2p's definitions: a
 * latency iteration is c round trips (c = batch[k]) taking T, L = T / 2c; a bandwidth
 * iteration is one window taking T, B = window * size / T and M = window / T. The mean
 * columns are over the whole run (L = sum T / 2cN, B = window * size * N / sum T), so
 * B * bw_time == window * size exactly. */
struct lens_bench_p2p_out {
    int npairs, nsize;
    int window;           /* k: messages per bandwidth iteration */
    int *sizes;           /* nsize message sizes, bytes */
    int *batch;           /* nsize: round trips per latency iteration (c) */
    int *rank_a, *rank_b; /* npairs ranks: a times, b answers */
    char **host_a, **host_b, **kind; /* npairs strings: host names, "pair"/"intra"/"inter" */
    int max_lat, max_bw;  /* largest iteration counts (the raw arrays' last dimension) */
    int *lat_iters, *bw_iters;  /* npairs * nsize iteration counts */
    double *lat_raw;      /* (q * max_lat + r): time of latency iteration r, NaN padding */
    double *bw_raw;       /* (q * max_bw + r): window time of iteration r, NaN padding */
};

/* Allocates every array for npairs x nsize with the given maximum iteration counts; the raw
 * arrays start as NaN. Frees partial state on failure (LENS_ENOMEM). */
int lens_bench_p2p_out_init(struct lens_bench_p2p_out *r, int npairs, int nsize, int max_lat,
                             int max_bw, struct lens_err *e);
void lens_bench_p2p_out_release(struct lens_bench_p2p_out *r);

/* Sets pair p's ranks and labels (copied). */
int lens_bench_p2p_out_set_pair(struct lens_bench_p2p_out *r, int p, int a, int b,
                                const char *host_a, const char *host_b, const char *kind,
                                struct lens_err *e);

/* Writes PREFIX_p2p.csv and PREFIX_p2p.nc (through temporary files). attrs is a
 * NULL-terminated list of name, value pairs written as global attributes of the .nc file
 * (the tool and MPI versions, date, command line). Returns LENS_OK or LENS_EIO/LENS_ENOMEM. */
int lens_bench_p2p_out_write(const struct lens_bench_p2p_out *r, const char *prefix,
                             const char *const *attrs, struct lens_err *e);

/* Whether PREFIX_p2p.csv or PREFIX_p2p.nc exists. */
int lens_bench_p2p_out_exists(const char *prefix);

#endif
