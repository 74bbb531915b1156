/* One-sided (RMA) composite events: lock epochs and post/start/complete/wait epoch pairs,
 * built from a trace's RMA records into lens_events.locks and lens_events.pscw. */
#ifndef LENS_RMAEPOCHS_H
#define LENS_RMAEPOCHS_H

#include "events.h"

/* Appends the lock epochs and access/exposure pairs of t to ev (after the clock fix, which
 * their waiting calls depend on). LENS_ENOMEM is the only failure (ev keeps what was built). */
int lens_rmaepochs_build(struct lens_events *ev, const struct lens_trace *t);

#endif
