/* Profiles from TAU: a directory of profile.N.C.T text files (node N, context C, thread T),
 * as TAU writes them when TAU_PROFILE is set (TAU User Guide, profile file format). The
 * exclusive time of every function goes to the profile builder of profile.h, in seconds. */
#ifndef LENS_PROFILE_TAU_H
#define LENS_PROFILE_TAU_H

#include "common/err.h"
#include "profile.h"

/* 1 when dir is a directory holding profile.0.0.0 (TAU's first node, context and thread);
 * 0 otherwise (also when unreadable). */
int lens_profile_tau_detect(const char *dir);

/* Reads every file named profile.N.C.T (N, C, T decimal) of dir, in numeric order of
 * (N, C, T). Each file: a line "<nfunc> templated_functions[_MULTI_<metric>]", a line starting
 * with '#' (the column names, maybe followed by metadata), then nfunc lines
 * `"name" calls subrs excl incl profcalls GROUP="..."`; what follows (aggregates, user events)
 * is skipped. The process is the node N: the contexts and threads of a node are summed into
 * it (a node is an MPI rank; its threads share its wall clock, so their sum is the node's
 * work). excl is microseconds; the profile holds seconds. Other files in dir are ignored.
 * The caller owns *out, finished (rows by rank). Errors name dir/file:line: LENS_EIO (cannot
 * open or list), LENS_EFORMAT (bad header or function line, fewer lines than announced,
 * N >= LENS_PROFILE_MAX_RANK), LENS_EDATA (no profile file, no function), LENS_EINVAL (too
 * many cells), LENS_ENOMEM. */
int lens_profile_read_tau(const char *dir, struct lens_profile **out, struct lens_err *e);

#endif
