/* The per-rank state of an all-pairs run: message buffers, sample space, this rank's row of
 * the four statistics and the RMA window, allocated and touched once before any timing so
 * that no allocation or first-touch page fault lands in a measurement. */
#ifndef LENS_BENCH_CTX_H
#define LENS_BENCH_CTX_H

#include "opts.h"
#include "schedule.h"

#include <mpi.h>

/* Per-rank state of an all-pairs run. Owns every buffer; memory is O(P) doubles per rank
 * plus the message buffers (all_to_all: P messages). */
struct lens_bench_ctx {
    const struct lens_bench_opts *o; /* borrowed */
    int rank, procs;
    int maxlen;           /* largest message length of the sweep, bytes */
    char *sbuf, *rbuf;    /* maxlen bytes each (at least 1) */
    char *a2a;            /* all_to_all: P * maxlen receive bytes, NULL otherwise */
    char *nsbuf, *nrbuf;  /* noise message buffers, noise_len bytes (at least 1) */
    MPI_Request *req;     /* 2 * max(P, noise_msgs) requests */
    MPI_Win win;          /* put/get: maxlen bytes per rank, MPI_WIN_NULL otherwise */
    double *samples;      /* timed repeats of the cell being measured: repeats (all_to_all,
                             which times all P cells at once: P * repeats) */
    double *scratch;      /* sorting space of one cell, repeats */
    double *row[4];       /* statistics of the cells this rank holds, P each, seconds:
                             row[s][x] is cell (rank, x), or (x, rank) if transposed */
    double *rawrow;       /* --raw: P * repeats samples of the same cells, else NULL */
    int *iw;              /* 2 * P ints: participant lists of two consecutive pairs */
    struct lens_bench_schedule sched; /* --schedule parallel: the tournament, else zeroed */
    int *partner;         /* --schedule parallel: P ints, one round's partner of every rank */
    int transposed;       /* 1 when this rank holds column cells (bcast: row = root) */
    int oversubscribed;   /* 1 when this node runs more ranks than it has cores: ranks that
                             wait for their turn sleep between tests instead of spinning */
    long pairs;           /* measurements of one length (cells or pairs), for progress */
    /* Testing only (MPILENS_BENCH_INJECT="SENDER,RECEIVER,SECONDS", docs/bench.md): seconds
     * added to every timed repeat of one cell, a slow link that tests can find and retest. */
    int inject_row, inject_col; /* the cell, -1 when no injection */
    double inject_s;            /* seconds added per repeat */
};

/* Allocates and touches the buffers and creates the window (collective). Returns LENS_OK
 * or LENS_ENOMEM with the rank in the message; on failure nothing is left to release, but
 * the caller must still treat it as fatal (the other ranks went ahead). */
int lens_bench_ctx_init(struct lens_bench_ctx *c, const struct lens_bench_opts *o, struct lens_err *e);

/* Frees the buffers and the window (collective when a window exists). */
void lens_bench_ctx_release(struct lens_bench_ctx *c);

#endif
