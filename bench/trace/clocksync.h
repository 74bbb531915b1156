/* Clock offsets between ranks, as Score-P measures them: rank 0 plays ping-pong with each
 * rank in turn, keeps the round with the smallest round trip, and the offset that maps the
 * worker's clock onto rank 0's is t_master + rtt/2 - t_worker (t_master: master's send time,
 * t_worker: the worker's reply time). Measured at MPI_Init and at MPI_Finalize; the analyzer
 * interpolates linearly between the two (docs/methods.md §6). */
#ifndef LENS_CLOCKSYNC_H
#define LENS_CLOCKSYNC_H

#include <stdint.h>
#include <time.h>

#include <mpi.h>

/* The collector's clock: ns of CLOCK_MONOTONIC (vDSO, about 20 ns a call). */
static inline uint64_t lens_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct lens_clock_offset {
    uint64_t t_local; /* local time of the measurement, ns */
    int64_t offset;   /* ns to add to a local time to get rank 0's time */
    uint64_t rtt;     /* smallest round trip seen, ns (0 on rank 0) */
};

/* Collective over comm (use a private duplicate, never the application's communicator).
 * rounds >= 1 ping-pongs per rank; uses PMPI only, so nothing is traced. Returns the MPI
 * error code of the first failing call, MPI_SUCCESS otherwise; out is filled on every rank. */
int lens_clocksync_measure(MPI_Comm comm, int rounds, struct lens_clock_offset *out);

#endif
