/* The all-pairs run of mpilens-bench: measures every message length of the sweep in one
 * mode (mode.c) and writes each length at once, so a run killed halfway leaves readable files:
 * every rank its own rows with PnetCDF (ncwrite.h), or, without it, gathered to rank 0 and
 * written through the streaming cube writer. */
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
    double gather_s;    /* MPI_Gather of the statistics (and the raw repeats) to rank 0; 0 with PnetCDF */
    double write_s;     /* rank 0: reordering, writing and syncing the files; with PnetCDF the
                           collective write and sync of every rank's rows (and --retest's plan) */
    long rss0_kb;       /* --timing: rank 0's peak resident set (VmHWM), kB, -1 if unknown */
    long rss_kb;        /* --timing: the largest peak of the other ranks, kB, -1 if unknown */
    long out_kb;        /* --timing: the most any rank's peak grew during one output step
                           (gather or parallel write, and the retest planning) so far, kB:
                           O(P^2) on a gathering rank 0, O(P) when every rank writes its rows */
};

/* Called on rank 0 after each length (may be NULL). */
typedef void (*lens_bench_progress_fn)(void *arg, const struct lens_bench_progress *p);

/* Runs the sweep (collective). Writes <prefix>_{average,median,deviation,min}.nc,
 * _hosts.txt and, with --raw, _all.nc (rank 0 alone without PnetCDF or with
 * MPILENS_BENCH_GATHER=1). Errors after the start are fatal (MPI_Abort), so
 * this returns only on success. */
void lens_bench_allpairs_run(const struct lens_bench_opts *o, lens_bench_progress_fn fn, void *arg);

#endif
