/* Profiles: a matrix processes x functions of exclusive time in seconds, with the names of
 * the functions and the ranks of the processes. Sources: a CSV `process,function,seconds`
 * (lens_profile_read_csv) and, through lens_profile_add, any tool that walks a trace.
 * A profile owns every pointer inside it; lens_profile_free() releases them all. */
#ifndef LENS_PROFILE_H
#define LENS_PROFILE_H

#include "common/err.h"
#include "common/keymap.h"

/* Bounds (docs/problems.md, "Limits of the text readers"): ranks are 0 ..
 * LENS_PROFILE_MAX_RANK - 1; the dense matrix holds at most LENS_PROFILE_MAX_CELLS processes x
 * functions (512 MiB of seconds; while building, its capacity is at most twice that, however
 * thin the profile); CSV lines are at most LENS_TEXTLINE_MAX bytes (1 MiB).
 * Beyond them: LENS_EINVAL/LENS_EFORMAT, never a multi-gigabyte allocation. */
#define LENS_PROFILE_MAX_RANK (1L << 26)
#define LENS_PROFILE_MAX_CELLS ((size_t)1 << 26)

struct lens_profile {
    size_t nproc;     /* rows: processes */
    size_t nfunc;     /* columns: functions */
    long *ranks;      /* nproc process ids (MPI ranks, >= 0); ascending after _finish */
    char **funcs;     /* nfunc function names, each an owned NUL-terminated string */
    double *sec;      /* exclusive seconds, row-major: sec[p * nfunc + f] once finished (the
                        builder uses stride fcap); 0 = never called */
    /* builder state, private to profile.c */
    size_t pcap, fcap; /* allocated rows and columns of sec (and of ranks, funcs) */
    struct lens_keymap row_of; /* rank -> row: a hash, so a sparse rank costs no table */
    size_t *fslot;     /* hash of funcs: column + 1, 0 empty; nfslot a power of two */
    size_t nfslot;
    size_t last_f;     /* column of the last lens_profile_add, a cheap cache */
};

/* An empty profile to fill with lens_profile_add(); the caller owns it (lens_profile_free).
 * Returns NULL when out of memory. */
struct lens_profile *lens_profile_new(void);
void lens_profile_free(struct lens_profile *p);

/* Adds seconds (finite, >= 0) to the cell (rank, func), creating the row and the column on
 * first use; repeated cells accumulate. Rows keep first-seen order until lens_profile_finish.
 * Errors: LENS_EINVAL (rank < 0 or rank >= 2^26, bad seconds, empty name, more than
 * LENS_PROFILE_MAX_CELLS cells), LENS_ENOMEM. */
int lens_profile_add(struct lens_profile *p, long rank, const char *func, double seconds,
                     struct lens_err *e);
/* Sorts the rows by rank. Call once after the last add; the CSV reader does.
 * Errors: LENS_EDATA when the profile is empty, LENS_ENOMEM. */
int lens_profile_finish(struct lens_profile *p, struct lens_err *e);

/* Reads a CSV file of lines `process,function,seconds`: process a rank (integer >= 0),
 * function a name (double-quote it when it holds a comma; "" is a quote inside), seconds a
 * number >= 0. An optional first line `process,function,seconds` is a header; empty lines and
 * lines starting with '#' are skipped. Missing cells are 0. *out is the caller's, finished
 * (rows by rank). Errors name file:line: LENS_EIO (cannot open/read), LENS_EFORMAT (bad or
 * too long line), LENS_EINVAL (more cells than LENS_PROFILE_MAX_CELLS), LENS_EDATA (no data),
 * LENS_ENOMEM. */
int lens_profile_read_csv(const char *path, struct lens_profile **out, struct lens_err *e);
/* Writes the profile as CSV with a header, one line per nonzero cell, through an atomic file
 * (path "-" writes to stdout). Errors: LENS_EIO. */
int lens_profile_write_csv(const struct lens_profile *p, const char *path, struct lens_err *e);

/* Column of a function name, or -1. O(1) on a profile built by lens_profile_add. */
long lens_profile_find(const struct lens_profile *p, const char *func);
/* Total seconds of a function (column f < nfunc) over all processes, summed in row order. */
double lens_profile_func_total(const struct lens_profile *p, size_t f);

/* ---- the rest of the profile wing (ICAPPA clustering, stage logs) ----
 * This header is the public contract of its folder: code outside the folder includes
 * this header and no other header of the folder (tests/test_layout.sh checks it). */
#include "icappa.h" /* ICAPPA profile clustering */
#include "icappa_dist.h" /* box plots of the dominating functions per process cluster */
#include "profile_otf2.h" /* profiles from OTF2 traces */
#include "profile_tau.h" /* profiles from TAU profile.N.C.T files */
#include "stagelog.h" /* LuNA stage logs */
#include "stagecmp.h" /* two stage logs side by side */

#endif
