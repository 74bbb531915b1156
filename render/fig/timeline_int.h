/* Shared by render/fig/timeline.c (drawing) and render/fig/timeline_window.c (the window and what it
 * holds); not for other modules. Ranks and calls index the trace of the
 * lens_trace_analysis drawn. */
#ifndef LENS_TIMELINE_INT_H
#define LENS_TIMELINE_INT_H

#include "timeline.h"

/* Name of a problem in language lang (0 English, 1 Russian, falling back to English). */
const char *lens_timeline_problem_name(const struct lens_problem_result *r, int lang);

/* First call of rank k ending at or after t0; one past the last call entered at or before t1. */
uint32_t lens_timeline_first_call(const struct lens_trace_rank *k, double t0);
uint32_t lens_timeline_end_call(const struct lens_trace_rank *k, double t1);

/* Calls f for every problem instance of a drawn rank overlapping w's window, with its wasted
 * span [a, b] in seconds: from the kept charges when there are, else the top instances. */
typedef void (*lens_timeline_instance_fn)(void *ctx, const struct lens_problem_result *r,
                                          int32_t rank, uint32_t call, double a, double b);
void lens_timeline_each_instance(const struct lens_trace_analysis *s,
                                 const struct lens_timeline_window *w,
                                 lens_timeline_instance_fn f, void *ctx);

/* Calls f for the first max messages between drawn ranks whose line (send enter ts to receive
 * leave tr) crosses w's window (f may be NULL); returns how many messages cross it in all. */
typedef void (*lens_timeline_message_fn)(void *ctx, const struct lens_p2p *m, double ts,
                                         double tr);
size_t lens_timeline_each_message(const struct lens_trace_analysis *s,
                                  const struct lens_timeline_window *w,
                                  lens_timeline_message_fn f, void *ctx, size_t max);

#endif
