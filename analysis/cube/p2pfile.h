/* Reader for the point-to-point sweep of `mpilens-bench -t p2p` (PREFIX_p2p.nc or
 * PREFIX_p2p.csv, written by bench/net/p2p_out.c), one or several pairs, and the time to send a
 * message of any size interpolated from the measured sweep. Serial, no MPI.
 * Units: sizes in bytes, times in seconds, bandwidth in bytes/s, message rate per second. */
#ifndef LENS_P2PFILE_H
#define LENS_P2PFILE_H

#include "common/err.h"

/* The file format's double columns, in CSV order: the CSV header names and the NetCDF variable
 * names are the same. Shared by the writer (bench/net/p2p_out.c) and the reader (p2pfile.c), so
 * the two cannot drift apart. */
enum { LENS_P2P_LAT, LENS_P2P_LAT_MIN, LENS_P2P_LAT_MED, LENS_P2P_LAT_MAX, LENS_P2P_BW,
       LENS_P2P_BW_MIN, LENS_P2P_BW_MED, LENS_P2P_BW_MAX, LENS_P2P_RATE, LENS_P2P_RATE_MIN,
       LENS_P2P_RATE_MED, LENS_P2P_RATE_MAX, LENS_P2P_BW_TIME, LENS_P2P_NCOLS };
extern const char *const lens_p2p_col_names[LENS_P2P_NCOLS];

/* One message size of one pair. The plain columns are means over the whole run; min,
 * median and max are over the timed iterations (bandwidth and rate min come from the
 * slowest window). At 0 bytes the bandwidth is 0. */
struct lens_p2p_point {
    long long size_bytes;
    double latency_s, latency_min_s, latency_median_s, latency_max_s; /* one-way, ping-pong */
    double bandwidth_Bps, bandwidth_min_Bps, bandwidth_median_Bps, bandwidth_max_Bps;
    double msg_rate_per_s, msg_rate_min_per_s, msg_rate_median_per_s, msg_rate_max_per_s;
    double bw_time_s;         /* mean window time (NaN when the file does not say) */
    int round_trips_per_iter; /* c: round trips per latency iteration (0 when unknown) */
    int lat_iters, bw_iters;  /* timed iterations behind the statistics (0 when unknown) */
};

/* One measured pair: rank_a timed, rank_b answered. */
struct lens_p2p_pair {
    char *label;          /* for legends and tables: "intra vm, ranks 0-1" (owned) */
    char *kind;           /* as in the file: "intra", "inter" (owned, "" when absent) */
    char *host_a, *host_b; /* host names (owned, "" when absent) */
    int rank_a, rank_b;   /* -1 when the file does not say */
    int inter;            /* 1: across two nodes (kind "inter", or different hosts) */
    int nsize;            /* points in pt, sizes strictly increasing */
    struct lens_p2p_point *pt; /* nsize points (owned) */
};

struct lens_p2pfile {
    char *path;           /* the file actually read (owned) */
    int is_nc;            /* 1: NetCDF, 0: CSV */
    int window;           /* k: messages per bandwidth window (0 when unknown) */
    int npairs;
    struct lens_p2p_pair *pair; /* npairs pairs in file order (owned) */
};

/* Reads input, which is a .nc or .csv file from `mpilens-bench -t p2p`, or the -f PREFIX
 * given to it (PREFIX_p2p.nc is read when it exists, else PREFIX_p2p.csv). *out is owned by
 * the caller (lens_p2pfile_free). Errors name the file and the line (CSV) or variable
 * (NetCDF): LENS_EIO (missing or unreadable), LENS_EFORMAT (not a p2p file, missing or
 * misshapen column/variable, bad number, truncated row), LENS_EDATA (sizes not increasing,
 * no rows, inconsistent pair labels), LENS_ENOMEM. */
int lens_p2pfile_read(const char *input, struct lens_p2pfile **out, struct lens_err *e);
void lens_p2pfile_free(struct lens_p2pfile *f);

/* Whether input looks like a p2p result, by name only (no parsing): an existing file named
 * *_p2p.nc or *_p2p.csv, or a prefix with PREFIX_p2p.nc or PREFIX_p2p.csv next to it. For
 * commands that take several kinds of input (mpilens report). 1 or 0. */
int lens_p2pfile_detect(const char *input);

/* Picks a pair: which NULL or "" is pair 0; a decimal number is that pair index; "intra" or
 * "inter" is the first pair of that kind; anything else must equal a label. Returns the
 * index, or LENS_EINVAL naming the choices. */
int lens_p2pfile_find(const struct lens_p2pfile *f, const char *which, struct lens_err *e);

/* Time in seconds to send one message of `bytes` bytes (>= 0) from pair p's sweep, by
 * piecewise-linear interpolation in bytes of the median one-way latency between the two
 * measured sizes around it (an alpha + bytes/beta model on each segment, so exact where the
 * transport follows one). Below the smallest measured size: that size's latency. Above the
 * largest: the last segment extended, or, when its slope is not positive, the largest
 * size's latency plus the extra bytes at its median bandwidth. NaN when p has no points or
 * bytes is negative or NaN. */
double lens_p2pfile_send_time(const struct lens_p2p_pair *p, double bytes);

/* Least-squares fit of the median latency to L(s) = alpha + s / beta over pair p's sizes,
 * weighted by 1/L(s)^2 (relative errors, so small sizes count as much as large ones).
 * alpha in seconds, beta in bytes/s. LENS_EDATA when fewer than two distinct sizes have a
 * finite positive latency or the fitted slope is not positive. */
int lens_p2pfile_fit(const struct lens_p2p_pair *p, double *alpha_s, double *beta_Bps,
                     struct lens_err *e);

#endif
