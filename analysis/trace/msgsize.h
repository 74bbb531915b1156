/* Message-size profile of an application (docs/methods.md §5.2): the pairs
 * count_n : size_n of the point-to-point messages a trace sent, grouped into size bins, with
 * each bin's share of the messages, of the volume and of the send time. Collectives and
 * one-sided transfers are not messages here (the profile counts messages); they are counted
 * aside so that reports can say what was left out. Sizes are bytes, times seconds. */
#ifndef LENS_MSGSIZE_H
#define LENS_MSGSIZE_H

#include "trace.h"

#include <stdint.h>
#include <stdio.h>

#define LENS_MSGSIZE_OPEN UINT64_MAX /* hi of the last bin: no upper bound */

/* One distinct message size and how often it was sent. */
struct lens_msgsize_size {
    uint64_t bytes;  /* message length */
    uint64_t count;  /* messages of that length */
    double call_s;   /* seconds inside the calls that issued them (see lens_msgsize_add) */
};

/* One bin [lo, hi] (both inclusive) and its totals. Shares are fractions in [0, 1]; a share
 * whose total is 0 is 0, and the time columns are NaN without a time model. */
struct lens_msgsize_bin {
    uint64_t lo, hi;         /* bytes; hi == LENS_MSGSIZE_OPEN for the open last bin */
    uint64_t count, bytes;   /* messages in the bin and their bytes */
    double model_s;          /* modelled send time of those messages, NaN without a model */
    double call_s;           /* recorded seconds in the calls that issued them */
    double share_messages, share_volume, share_time, share_call_time;
};

struct lens_msgsize {
    struct lens_msgsize_size *sizes; /* distinct sizes, ascending (owned) */
    size_t nsizes, cap_sizes;
    struct lens_msgsize_bin *bins;   /* after lens_msgsize_bin (owned) */
    size_t nbins;
    uint64_t total_messages, total_bytes;
    double total_call_s;             /* seconds */
    double total_model_s;            /* seconds, NaN until lens_msgsize_model */
    int nranks;                      /* of the trace, 0 when filled by hand or from a profile */
    int from_profile;                /* 1: read from a `count : size` file, no call times */
    const char *time_source;         /* "message_rate", "latency" or NULL: what model_s is from
                                      * (static string, set by the caller of lens_msgsize_model) */
    uint64_t coll_calls;             /* collective calls seen and not counted */
    uint64_t coll_bytes;             /* bytes those calls sent */
    uint64_t rma_ops, rma_bytes;     /* puts, gets, accumulates seen and not counted */
};

/* The default lower bin edges (bytes): 0, 1, 64, 1 KiB, 4 KiB, 64 KiB, 1 MiB. 64 B is a
 * cache line and the smallest inline message, 4 KiB Open MPI's shared-memory eager limit,
 * 64 KiB its TCP eager limit, beyond 1 MiB transfers are bandwidth-bound. */
extern const uint64_t lens_msgsize_default_edges[];
extern const size_t lens_msgsize_default_nedges;

/* An empty profile (caller-owned, lens_msgsize_free). LENS_ENOMEM. */
int lens_msgsize_new(struct lens_msgsize **out, struct lens_err *e);
void lens_msgsize_free(struct lens_msgsize *m);

/* Adds count messages of bytes each that spent call_s seconds in total inside the MPI calls
 * that issued them. Clears any binning. LENS_ENOMEM, LENS_EDATA (call_s negative or NaN). */
int lens_msgsize_add(struct lens_msgsize *m, uint64_t bytes, uint64_t count, double call_s,
                     struct lens_err *e);

/* Adds every point-to-point send of t: MpiSend and MpiIsend records (Send, Ssend, Bsend,
 * Rsend, Isend family, Sendrecv). A call that issued k sends gives each 1/k of its duration.
 * Collective and one-sided records go to coll_* and rma_*. LENS_ENOMEM. */
int lens_msgsize_add_trace(struct lens_msgsize *m, const struct lens_trace *t,
                           struct lens_err *e);

/* Reads the OTF2 archive at path (anchor file or folder) into a new profile: the errors of
 * lens_trace_read, LENS_ENOMEM. */
int lens_msgsize_read(const char *path, struct lens_msgsize **out, struct lens_err *e);

/* Reads a message-size profile file (docs/msgsizes.md "Profile files"): one `COUNT : SIZE`
 * pair of whole decimal numbers a line (messages, bytes), blanks around the colon, `#` to the
 * end of a line is a comment, blank lines skipped; a size given twice adds its counts. The
 * profile has no call times (from_profile set). Errors name path:line: LENS_EIO (unreadable),
 * LENS_EFORMAT (not two whole numbers around a colon, too large, NUL byte, line over
 * LENS_TEXTLINE_MAX), LENS_EDATA (no pair at all, byte total beyond 2^64 - 1), LENS_ENOMEM. */
int lens_msgsize_read_profile(const char *path, struct lens_msgsize **out, struct lens_err *e);

/* Whether path is given as a profile file rather than a trace: an existing regular file whose
 * name does not end in ".otf2" (a trace is its folder or its traces.otf2 anchor). 1 or 0. */
int lens_msgsize_is_profile(const char *path);

/* Parses "0,64,1k,64K,1M" (lower edges: non-negative integers, strictly increasing, k/K/M/G
 * binary suffixes) into *edges (lens_malloc'd, caller frees) and *n. An edge list that does
 * not start at 0 gets 0 prepended, so every message falls in a bin. "pow2" gives 0, 1, 2, 4,
 * ..., 2^62 and sets *drop_empty (show only bins that hold messages); otherwise *drop_empty
 * is 0. LENS_EINVAL with a message naming the bad item, LENS_ENOMEM. */
int lens_msgsize_parse_bins(const char *spec, uint64_t **edges, size_t *n, int *drop_empty,
                            struct lens_err *e);

/* Groups the sizes into the bins with lower edges edges[0..n) (strictly increasing, edges[0]
 * == 0; NULL for the default), bin k = [edges[k], edges[k+1] - 1], the last one open. With
 * drop_empty, bins without messages are left out. Fills shares; keeps a model already set.
 * LENS_EINVAL (bad edges), LENS_ENOMEM. */
int lens_msgsize_bin(struct lens_msgsize *m, const uint64_t *edges, size_t n, int drop_empty,
                     struct lens_err *e);

/* The modelled time to send one message of bytes (seconds, finite, >= 0), or a negative
 * LENS_E* code after filling e. */
typedef int (*lens_msgsize_time_fn)(void *ctx, uint64_t bytes, double *seconds,
                                    struct lens_err *e);
/* Sets each bin's model_s = sum over its sizes of count * time(bytes) and share_time.
 * Call after lens_msgsize_bin. Errors: those of time, LENS_EDATA for a negative or
 * non-finite time, LENS_EINVAL before binning. */
int lens_msgsize_model(struct lens_msgsize *m, lens_msgsize_time_fn time, void *ctx,
                       struct lens_err *e);

/* "0 B", "1-63 B", "65536-1048575 B", ">= 1048576 B" (ASCII, so columns align). */
void lens_msgsize_bin_label(const struct lens_msgsize_bin *b, char *buf, size_t n);

/* Outputs of a binned profile. source names the trace, model the time model (NULL: none).
 * Return 0, or -1 when writing to fp failed. */
int lens_msgsize_write_text(const struct lens_msgsize *m, const char *source, const char *model,
                            FILE *fp);
int lens_msgsize_write_json(const struct lens_msgsize *m, const char *source, const char *model,
                            FILE *fp);
/* One row per bin: lo,hi,label,count,share_messages,bytes,share_volume,time_s,share_time,
 * call_s,share_call_time (hi empty for the open bin, time columns empty without a model). */
int lens_msgsize_write_csv(const struct lens_msgsize *m, FILE *fp);

#endif
