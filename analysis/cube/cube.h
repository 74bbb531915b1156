/* The latency cube: P x P x L delays per statistic, as measured by network_test2 or
 * mpilens-bench, with its metadata. Reading goes through the reader table of cube_readers.c
 * (network_test2 NetCDF in cube_nc.c, packed cubes in packed_nc.c); writing the
 * network_test2 layout lives in cube_write.c; statistics and defect repair live in cube.c.
 * A cube owns every pointer inside it; lens_cube_free() releases them all. */
#ifndef LENS_CUBE_H
#define LENS_CUBE_H

#include "common/err.h"

/* Longest host name the readers accept, in bytes (one line of <prefix>_hosts.txt). */
#define LENS_HOST_NAME_MAX 65536

enum lens_stat {
    LENS_STAT_AVERAGE = 0,
    LENS_STAT_MEDIAN = 1,
    LENS_STAT_DEVIATION = 2,
    LENS_STAT_MIN = 3,
    LENS_STAT_COUNT = 4
};

/* network_test2 test_type codes (1-based in the files); 0 means unknown. */
enum lens_mode {
    LENS_MODE_UNKNOWN = 0,
    LENS_MODE_ONE_TO_ONE = 1,
    LENS_MODE_ALL_TO_ALL = 2,
    LENS_MODE_ASYNC_ONE_TO_ONE = 3,
    LENS_MODE_SEND_RECV_AND_RECV_SEND = 4,
    LENS_MODE_NOISE = 5,
    LENS_MODE_NOISE_BLOCKING = 6,
    LENS_MODE_BCAST = 7,
    LENS_MODE_PUT = 8,
    LENS_MODE_GET = 9,
    LENS_MODE_P2P = 10, /* mpilens-bench only: point-to-point sweep */
    LENS_MODE_LAST = 10
};

struct lens_cube {
    int procs;             /* P: matrices are P x P */
    int nlen;              /* L: number of message lengths */
    int *lengths;          /* L message lengths in bytes: begin + k*step */
    int begin, end, step;  /* as in the file; end is exclusive */
    int mode;              /* enum lens_mode */
    int repeats;           /* num_repeates */
    int noise_len, noise_msgs, noise_procs; /* noise parameters (0 in the newer layout) */
    double *data[LENS_STAT_COUNT]; /* seconds, data[s][(k*P + i)*P + j]; NULL if absent */
    char **hosts;          /* P host names in rank order (valid UTF-8, at most LENS_HOST_NAME_MAX
                              bytes each), NULL if no hosts file */
    double *raw;           /* optional _all.nc: raw[((k*P + i)*P + j)*nraw + r], NaN = missing */
    int nraw;              /* repeats stored per pair in _all.nc, 0 if none; raw holds them
                              only when they were loaded (lens_cube_read) */
    double *amount;        /* optional _measurements_amount.nc: L*P*P counts, NULL if absent */
    char **warnings;       /* nwarn messages about defects found and what was done */
    int nwarn;
    char *source;          /* prefix the cube was read from (for messages), may be NULL */
    int new_layout;        /* 1 if test_type was a string (plugins branch) */
    int written_by_mpilens; /* 1 if the files carry our attributes: no round-trip guessing */
    const char *format;    /* the reader table row that read it ("network_test2", "packed"),
                              static, NULL for a cube not read from a file */
};

/* Element (k, i, j) of statistic s. */
#define LENS_CUBE_AT(c, s, k, i, j) ((c)->data[(s)][((size_t)(k) * (c)->procs + (i)) * (c)->procs + (j)])

/* Summary of one statistic over the off-diagonal elements of every length. */
struct lens_summary {
    double min, median, max; /* seconds; NaN when no finite value */
    long count;              /* finite values used */
};

/* Lifecycle. lens_cube_new allocates P*P*L zeroed doubles for each statistic flagged in
 * stat_mask (bit s = statistic s), lengths from begin/step. LENS_EINVAL (P or L below 1, a
 * length beyond int), LENS_ENOMEM. */
int lens_cube_new(struct lens_cube **out, int procs, int nlen, int begin, int step,
                  unsigned stat_mask, struct lens_err *e);
void lens_cube_free(struct lens_cube *c);
/* Checks lengths read from a file before they are used: nlen >= 1, begin >= 0, step >= 0
 * (> 0 when nlen > 1), and every length begin + k*step and the exclusive end begin +
 * nlen*step fit an int. LENS_EFORMAT naming src (the file) and the variables otherwise. */
int lens_cube_check_lengths(const char *src, long long nlen, long long begin, long long step,
                            struct lens_err *e);

/* Appends a warning (printf-style); returns LENS_ENOMEM on allocation failure. */
int lens_cube_warn(struct lens_cube *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Names: "one_to_one", ... and "average", "median", "deviation", "min". */
const char *lens_cube_mode_name(int mode);
int lens_cube_mode_parse(const char *name); /* LENS_MODE_UNKNOWN if not a mode name */
const char *lens_cube_stat_name(int stat);
int lens_cube_stat_parse(const char *name); /* -1 if unknown */
/* What one element means for a mode: "one-way delay, row = receiver, column = sender", ... */
const char *lens_cube_mode_semantics(int mode);

/* Off-diagonal min/median/max of statistic s over all lengths (or one length if k >= 0), NaN
 * and the diagonal left out. LENS_EINVAL (statistic absent), LENS_ENOMEM. */
int lens_cube_summary(const struct lens_cube *c, int stat, int k, struct lens_summary *out,
                      struct lens_err *e);
/* Asymmetry |A - A^T| / (A + A^T) over off-diagonal pairs i<j of statistic s, all lengths;
 * pairs with a missing value or a zero sum are left out (NaN results when none is left).
 * LENS_EINVAL (statistic absent), LENS_ENOMEM. */
int lens_cube_asymmetry(const struct lens_cube *c, int stat, double *median, double *max,
                        struct lens_err *e);
/* The same per length (docs/methods.md §1: the asymmetry shrinks as the length grows, so one
 * number over the cube hides where it stops mattering): median[k] and max[k] for each of the
 * c->nlen lengths, caller-allocated, NaN for a length with no usable pair. Memory: P(P-1)/2
 * doubles. LENS_EINVAL (statistic absent), LENS_ENOMEM. */
int lens_cube_asymmetry_length(const struct lens_cube *c, int stat, double *median, double *max,
                               struct lens_err *e);
/* Order statistics of a scratch array (reordered in place): the k-th smallest of v[0..n),
 * n > 0; and the median (mean of the two middle values for even n, NaN for n == 0). */
double lens_cube_select(double *v, size_t n, size_t k);
double lens_cube_median(double *v, size_t n);
/* cube_order.c. Sorts v[0..n) ascending in place, the NaNs moved after the numbers (in no
 * order); returns how many numbers precede them. scratch: n doubles of the caller's, any
 * content, overwritten. -0 and +0 may come in either order. O(n), no allocation. */
size_t lens_cube_sort(double *v, size_t n, double *scratch);
/* Two order statistics of v[0..n) (no NaN; reordered in place): *x1 the k1-th and *x2 the
 * k2-th smallest, k1 <= k2 < n, by two selections, the second on v[0..k2) only. */
void lens_cube_select_pair(double *v, size_t n, size_t k1, size_t k2, double *x1, double *x2);
/* Index of the length nearest to `bytes`, or -1. */
int lens_cube_length_index(const struct lens_cube *c, int bytes);

/* Detects and repairs network_test2 defects (garbage diagonal, half/full round-trip mix,
 * non-finite or negative delays; docs/methods.md §1) and records a warning for each. Called by
 * the reader. LENS_EDATA when a statistic has no usable delay left, LENS_ENOMEM. */
int lens_cube_repair(struct lens_cube *c, struct lens_err *e);

/* Reading, in any format of the reader table (cube_readers.c): network_test2 NetCDF (cube_nc.c),
 * where input is a prefix ("dir/network"), a directory holding exactly one prefix, or one
 * "<prefix>_<stat>.nc" file, or a packed cube of mpilens compress (packed_nc.c). Reads all
 * statistics present, the hosts, and for
 * NetCDF _all.nc / _measurements_amount.nc. Any one statistic file makes a cube (the others stay
 * NULL). Errors name the file: LENS_EIO (no such file), LENS_EFORMAT (not a readable cube, a
 * bad variable or host name), LENS_EDATA (files of different runs, no usable delay),
 * LENS_ENOMEM. */
int lens_cube_read(const char *input, struct lens_cube **out, struct lens_err *e);
/* Reads only the statistics of mask (bit s = statistic s; absent ones stay NULL), and the raw
 * repeats and counts only with LENS_CUBE_EXTRAS: what a command uses. The matrices equal
 * lens_cube_read's bit for bit; the warnings are those about the statistics read (all of
 * lens_cube_read's when every statistic is). lens_cube_read is mask LENS_CUBE_ALL. */
#define LENS_CUBE_EXTRAS (1u << LENS_STAT_COUNT)
#define LENS_CUBE_ALL (((1u << LENS_STAT_COUNT) - 1) | LENS_CUBE_EXTRAS)
int lens_cube_read_stats(const char *input, unsigned mask, struct lens_cube **out, struct lens_err *e);
/* Whether some row of the reader table recognises input (names and headers only, no data). */
int lens_cube_probe(const char *input);
/* Writes <prefix>_{average,median,deviation,min}.nc (those present) and <prefix>_hosts.txt
 * in the network_test2 layout plus descriptive global attributes. Each file goes through a
 * temporary name. extra_attrs: NULL-terminated list of name, value pairs (may be NULL).
 * LENS_EINVAL (no statistic), LENS_EIO (naming the file, with the library's reason),
 * LENS_ENOMEM; on failure no file of the prefix is left. */
int lens_cube_write(const struct lens_cube *c, const char *prefix, const char *const *extra_attrs,
                    struct lens_err *e);

/* Whether any of <prefix>_{average,median,deviation,min,all}.nc or _hosts.txt exists:
 * writers refuse to overwrite a result unless told to (--force). */
int lens_cube_exists(const char *prefix);

/* Streaming writer (cube_write.c), used by lens_cube_write and by the benchmark, which writes
 * each length as soon as it is measured. The writer copies what it needs from `meta`
 * (procs, lengths, mode, parameters, hosts) at open; the caller keeps ownership of meta.
 * direct = 1 creates the final files at once and syncs after each length, so an interrupted
 * run leaves readable files; a failed length takes every file back to the lengths complete in
 * all of them. direct = 0 writes temporary files renamed together at close (one
 * lens_atomic group, docs/outputs.md).
 * stat_mask: bit s = statistic s. raw_repeats > 0 also creates <prefix>_all.nc with z.
 * Open fails with LENS_EIO (a file cannot be created, or a direct name is a device or a
 * folder) or LENS_ENOMEM, leaving nothing behind. */
struct lens_cube_writer;
int lens_cube_writer_open(struct lens_cube_writer **out, const struct lens_cube *meta,
                          const char *prefix, unsigned stat_mask, int raw_repeats,
                          const char *const *extra_attrs, int direct, struct lens_err *e);
/* Writes length index k: mats[s] is a P x P matrix (row-major, seconds) for each statistic
 * in stat_mask; raw (may be NULL) is P x P x raw_repeats with NaN for missing repeats.
 * LENS_EINVAL (a matrix missing), LENS_EIO (naming the file and the length); direct files are
 * then already back at the lengths complete in all of them. */
int lens_cube_writer_put(struct lens_cube_writer *w, int k, const double *const *mats,
                         const double *raw, struct lens_err *e);
/* Closes every file (renaming temporaries) and frees w, also on failure. */
int lens_cube_writer_close(struct lens_cube_writer *w, struct lens_err *e);
/* Closes and deletes what was written: the temporaries when direct = 0; when direct = 1 the
 * files if not one length was complete, else they keep the complete lengths. Frees w. */
void lens_cube_writer_abort(struct lens_cube_writer *w);

/* Streaming reader (cube_stream.c, opened through the reader table): one P x P matrix of one statistic at a time, with the
 * repairs of lens_cube_read applied, so that every matrix equals the one lens_cube_read would
 * give, bit for bit. Memory is O(P^2) whatever the number of lengths. Open reads the metadata
 * and the hosts, checks every file as lens_cube_read does (the _all.nc and
 * _measurements_amount.nc companions are checked but never read), and decides the repairs
 * that need the whole cube (diagonal, round-trip mix) from the diagonals and, for old
 * send_recv_and_recv_send files only, from extra passes over the average and median. */
struct lens_cube_stream;
int lens_cube_stream_open(const char *input, struct lens_cube_stream **out, struct lens_err *e);
/* The metadata: procs, lengths, mode, hosts, source ... with data[] NULL. Its warnings are
 * those of lens_cube_read, in the same order, once lens_cube_stream_end has succeeded (the
 * off-diagonal repairs are counted as the matrices go by). Owned by the stream. */
const struct lens_cube *lens_cube_stream_meta(const struct lens_cube_stream *st);
/* Bit s set when statistic s is present. */
unsigned lens_cube_stream_stats(const struct lens_cube_stream *st);
/* Reads statistic stat at length index k into mat (P x P, row-major, seconds), repaired.
 * Any order, any number of times. Errors: LENS_EINVAL (absent statistic, k out of range),
 * LENS_EFORMAT (unreadable data, naming the file and the length index). */
int lens_cube_stream_read(struct lens_cube_stream *st, int stat, int k, double *mat, struct lens_err *e);
/* Completes the warnings (reading the matrices that were never read, to count their
 * repairs) and returns LENS_EDATA, as lens_cube_read does, if a statistic has no usable delay. */
int lens_cube_stream_end(struct lens_cube_stream *st, struct lens_err *e);
/* Closes the files and frees st and its metadata; NULL does nothing. */
void lens_cube_stream_close(struct lens_cube_stream *st);

/* ---- the rest of the cube wing (cubes and sweeps: read, write, pack, synthesise) ----
 * This header is the public contract of its folder: code outside the folder includes
 * this header and no other header of the folder (tests/test_layout.sh checks it). */
#include "packed.h" /* the packed (compressed) cube: encoder, decoder, file */
#include "p2pfile.h" /* the point-to-point sweep file (latency, bandwidth, message rate) */
#include "quality.h" /* the data-quality gate: can a cube carry a structure or anomaly analysis */
#include "synth.h" /* synthetic cubes of a known machine, for tests and the demo */
#include "cube_slices.h" /* original against compressed slices, for the slices figure */
#include "retest.h" /* PREFIX_retest.csv: cells measured again alone (bad link or contention) */
#include "bisection.h" /* PREFIX_bisection.csv: bisection bandwidth per round, and its summary */
#include "cube_raw.h" /* PREFIX_all.nc, the raw repeats, one row of one length at a time */

/* Global text attribute name of the first statistic file under prefix (cube_attr.c), e.g.
 * mpilens-bench's "schedule", "rounds", "shuffle_seed". *out is owned by the caller
 * (lens_free), NULL when the attribute or the file is absent. LENS_EFORMAT (a file that does
 * not open as NetCDF), LENS_ENOMEM. */
int lens_cube_attr_text(const char *prefix, const char *name, char **out, struct lens_err *e);

/* Where a cube came from, for the report's provenance table (docs/report.md, "Provenance"):
 * the global text attributes mpilens-bench, mpilens synth and the writer leave, each NULL when
 * the files do not carry it (a network_test2 file carries none). Owned by the struct. */
struct lens_cube_provenance {
    char *tool;        /* "mpilens-bench" for a measured cube */
    char *generator;   /* "mpilens synth" for a synthetic one */
    char *source;      /* synth's "synthetic (...)" */
    char *mpi;         /* mpi_library_version */
    char *measured_at; /* ISO 8601 UTC, start of the measurement */
    char *date;        /* the writer's date (when the files were written) */
    char *launcher, *binding, *cores_per_host;
};
/* Reads them for c from c->source (the prefix; a cube without one gets all NULL). Errors:
 * those of lens_cube_attr_text; *p is then released. */
int lens_cube_attr_provenance(const struct lens_cube *c, struct lens_cube_provenance *p, struct lens_err *e);
void lens_cube_attr_provenance_release(struct lens_cube_provenance *p);

#endif
