/* Profiles from OTF2 traces (ours and Score-P's): exclusive seconds per region per rank,
 * MPI functions and user functions alike (Score-P compiler or manual regions, our collector's
 * -finstrument-functions mode). The archive is read by analysis/trace/trace.h with its region
 * Enter/Leave events; the time of a region minus the time of the regions called inside it
 * goes to the profile builder of analysis/profile/profile.h under the region's name. */
#ifndef LENS_PROFILE_OTF2_H
#define LENS_PROFILE_OTF2_H

#include "common/err.h"
#include "analysis/trace/trace.h"
#include "profile.h"

/* 1 when path looks like an OTF2 archive: a directory holding traces.otf2, or a file whose
 * first bytes are the OTF2 anchor magic ("\3BOTF2"). 0 otherwise (also when unreadable). */
int lens_profile_otf2_detect(const char *path);

/* Builds a finished profile from a trace read with LENS_TRACE_READ_REGIONS. Per rank, the
 * Enter/Leave events are matched on a stack: a Leave closes the innermost open instance of
 * its region (instances opened above it are closed at the same time); a Leave with no open
 * instance (the trace began inside the region) is skipped; regions still open at the rank's
 * last event are closed there. exclusive = (leave - enter) - sum of the durations of the
 * instances directly nested in it, clamped at 0 against rounding. Regions with the same name
 * share a column; times in seconds, as the trace reader gives them. name (the archive, NULL:
 * "trace") starts the messages. The caller owns *out (lens_profile_free). Errors: LENS_EINVAL
 * (trace read without region events), LENS_EDATA (no region closed on any rank),
 * LENS_ENOMEM. */
int lens_profile_otf2_from_trace(const struct lens_trace *t, const char *name,
                                 struct lens_profile **out, struct lens_err *e);

/* lens_trace_read_flags(path, LENS_TRACE_READ_REGIONS) then lens_profile_otf2_from_trace.
 * Errors: those of both; messages name the archive. */
int lens_profile_otf2_read(const char *path, struct lens_profile **out, struct lens_err *e);

#endif
