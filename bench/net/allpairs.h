/* The all-pairs run of mpilens-bench: measures every message length of the sweep in one
 * mode (mode.c), gathers each length's P x P statistics to rank 0 and writes them at once
 * through the streaming cube writer, so a run killed halfway leaves readable files. */
#ifndef LENS_BENCH_ALLPAIRS_H
#define LENS_BENCH_ALLPAIRS_H

#include "opts.h"

/* What rank 0 knows after each length, for the progress line. */
struct lens_bench_progress {
    int k, nlen;        /* lengths done (k of nlen) */
    int len;            /* the length just finished, bytes */
    long pairs_done;    /* measurements done so far (pairs, or roots for bcast) */
    long pairs_total;
    double elapsed;     /* seconds since the first length started */
    double remaining;   /* estimated seconds left */
    /* This length's phases on rank 0, seconds; with --timing every rank waits for the last
     * pair (a barrier) before the gather, so gather_s holds no measuring. */
    double measure_s;   /* lens_bench_mode_run (and the barrier with --timing) */
    double gather_s;    /* MPI_Gather of the statistics (and the raw repeats) to rank 0 */
    double write_s;     /* rank 0: reordering, writing and syncing the files */
    long rss0_kb;       /* --timing: rank 0's peak resident set (VmHWM), kB, -1 if unknown */
    long rss_kb;        /* --timing: the largest peak of the other ranks, kB, -1 if unknown */
};

/* Called on rank 0 after each length (may be NULL). */
typedef void (*lens_bench_progress_fn)(void *arg, const struct lens_bench_progress *p);

/* Runs the sweep (collective). Rank 0 writes <prefix>_{average,median,deviation,min}.nc,
 * _hosts.txt and, with --raw, _all.nc. Errors after the start are fatal (MPI_Abort), so
 * this returns only on success. */
void lens_bench_allpairs_run(const struct lens_bench_opts *o, lens_bench_progress_fn fn, void *arg);

#endif
