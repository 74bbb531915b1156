/* The cube input formats: one table row per format, consulted by every place that opens a
 * cube (lens_cube_read, lens_cube_read_stats, lens_cube_stream_open, lens_cube_probe), so a
 * new format is one row and one file (docs/design.md, "A cube input format").
 * For the files that implement a format (cube_nc.c, packed_nc.c) and for tests; commands
 * use cube.h only. */
#ifndef LENS_CUBE_READERS_H
#define LENS_CUBE_READERS_H

#include "cube.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

/* Values that are NaN, infinite or negative become NaN; returns how many. !(x >= 0 && x <=
 * DBL_MAX) says all three in one comparison chain (NaN fails both): the whole-cube reader
 * (cube.c) and the streaming one (cube_stream.c) run it on every off-diagonal delay, so it is
 * kept to one test per element and shared, so both repair alike. */
static inline long lens_cube_repair_run(double *x, size_t n)
{
    long bad = 0;
    for (size_t j = 0; j < n; j++)
        if (!(x[j] >= 0 && x[j] <= DBL_MAX)) {
            x[j] = NAN;
            bad++;
        }
    return bad;
}

/* Asks the kernel to back the block with 2 MB pages where it can (Linux's transparent huge
 * pages, in "madvise" mode on Debian): a 46 MB matrix is otherwise 11,000 page faults, a
 * large part of `mpilens cluster` and `info` on the bench cube (for the statistics read and
 * the summaries' copies). Advice only: any failure, or a system without it, leaves the
 * block as it was; only whole 2 MB pages inside the block are advised. */
static inline void lens_cube_huge_pages(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* Order-preserving integer key of a double that is not NaN (the sign folded): the radix
 * selections of cube.c (the median) and cube_stream.c (the round-trip ratio) sort by it. */
static inline uint64_t lens_cube_order_key(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b >> 63 ? ~b : b | 0x8000000000000000ULL;
}

/* One format. probe is cheap (names, a header) and never sets an error: 1 when input is in
 * this format. read fills a whole cube as lens_cube_read documents (NULL: the table reads
 * it through stream_open, see lens_cube_read_streamed). stream_open opens a
 * lens_cube_stream, usually by handing a lens_cube_source to lens_cube_stream_new. */
struct lens_cube_reader {
    const char *name;
    int (*probe)(const char *input);
    int (*read)(const char *input, struct lens_cube **out, struct lens_err *e);
    int (*stream_open)(const char *input, struct lens_cube_stream **out, struct lens_err *e);
};

/* The row that reads input: the first whose probe accepts it, else the first row (network_test2,
 * whose messages say which file is missing). Never NULL. */
const struct lens_cube_reader *lens_cube_readers_find(const char *input);
/* Adds a row after the built-in ones (test-only formats; at most 8). LENS_EINVAL when full. */
int lens_cube_readers_add(const struct lens_cube_reader *row, struct lens_err *e);

/* What a format hands the streaming reader: its open files, values unrepaired. get fills
 * matrix k of statistic stat (P x P, row-major, seconds); diagonal its P diagonal values (may be
 * NULL: the stream then reads the matrix); close frees state (may be NULL). */
struct lens_cube_source {
    void *state;
    int (*get)(void *state, int stat, int k, double *mat, struct lens_err *e);
    int (*diagonal)(void *state, int stat, int k, double *diag, struct lens_err *e);
    void (*close)(void *state);
};

/* Makes a stream of meta (a cube without data: procs, lengths, mode, hosts, source ...; the
 * stream owns it) from src, with statistic s present when bit s of mask is set (cube_stream.c).
 * Owns meta and src from the call on, also on failure. Nothing is readable before
 * lens_cube_stream_plan, which the table calls (a row never does). */
int lens_cube_stream_new(struct lens_cube *meta, unsigned mask, const struct lens_cube_source *src,
                         struct lens_cube_stream **out, struct lens_err *e);
/* Decides the repairs that need the whole cube for the statistics of want, reading only the
 * diagonals (and, for old send_recv_and_recv_send files, the passes) they depend on; then
 * those statistics are readable. lens_cube_stream_open plans all of them. */
int lens_cube_stream_plan(struct lens_cube_stream *st, unsigned want, struct lens_err *e);
/* Sets the format the stream's metadata names (lens_cube.format). */
void lens_cube_stream_set_format(struct lens_cube_stream *st, const char *format);
/* A whole cube read through the row's stream_open: every statistic, no raw repeats. */
int lens_cube_read_streamed(const struct lens_cube_reader *row, const char *input, struct lens_cube **out,
                            struct lens_err *e);

/* The built-in rows. cube_nc.c: network_test2 NetCDF, both layouts. */
int lens_cube_nc_probe(const char *input);
int lens_cube_nc_read(const char *input, struct lens_cube **out, struct lens_err *e);
int lens_cube_nc_stream_open(const char *input, struct lens_cube_stream **out, struct lens_err *e);
/* packed_nc.c: the packed cube of mpilens compress (one file, lossy within its bound). */
int lens_packed_probe(const char *input);
int lens_packed_stream_open(const char *input, struct lens_cube_stream **out, struct lens_err *e);

#endif
