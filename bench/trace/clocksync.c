/* Minimum-round-trip clock offset measurement against rank 0 (see clocksync.h). */
#include "clocksync.h"

/* On the collector's private communicator, so this tag cannot meet an application message;
 * the value only has to differ from the collector's other tags. */
#define SYNC_TAG 4242

/* Rank 0 is the reference clock and measures each worker in turn: one worker at a time keeps
 * the round trips short and free of each other's traffic (Cristian's algorithm, "Probabilistic
 * clock synchronization"). */
static int master(MPI_Comm comm, int size, int rounds, struct lens_clock_offset *out)
{
    int rc = MPI_SUCCESS;
    char ping = 0;
    for (int w = 1; w < size && rc == MPI_SUCCESS; w++) {
        uint64_t best_rtt = UINT64_MAX, best_t1 = 0, best_tw = 0;
        for (int i = 0; i < rounds && rc == MPI_SUCCESS; i++) {
            uint64_t tw = 0, t1 = lens_clock_now(); /* master's clock before the ping */
            rc = PMPI_Send(&ping, 1, MPI_CHAR, w, SYNC_TAG, comm);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Recv(&tw, 1, MPI_UINT64_T, w, SYNC_TAG, comm, MPI_STATUS_IGNORE);
            uint64_t t2 = lens_clock_now();
            /* The fastest round trip bounds the error best: the worker's reading lies within rtt/2 of the
             * midpoint, and a delay (preemption, a busy link) only ever lengthens the trip. */
            if (t2 - t1 < best_rtt) {
                best_rtt = t2 - t1;
                best_t1 = t1;
                best_tw = tw;
            }
        }
        /* the worker's clock read best_tw when the master's read best_t1 + rtt/2 */
        /* The worker learns its own result: the offset to add to its clock, the local time the offset
         * was taken at (for interpolating drift) and the round trip (the uncertainty). */
        int64_t res[3] = {(int64_t)(best_t1 + best_rtt / 2) - (int64_t)best_tw,
                          (int64_t)best_tw, (int64_t)best_rtt};
        if (rc == MPI_SUCCESS)
            rc = PMPI_Send(res, 3, MPI_INT64_T, w, SYNC_TAG, comm);
    }
    out->t_local = lens_clock_now();
    out->offset = 0; /* the reference: no offset */
    out->rtt = 0;
    return rc;
}

/* The worker answers each ping with its clock at once: everything between the receive and the
 * reading adds to the error, so nothing else happens there. */
static int worker(MPI_Comm comm, int rounds, struct lens_clock_offset *out)
{
    int rc = MPI_SUCCESS;
    char ping;
    for (int i = 0; i < rounds && rc == MPI_SUCCESS; i++) {
        rc = PMPI_Recv(&ping, 1, MPI_CHAR, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
        uint64_t tw = lens_clock_now();
        if (rc == MPI_SUCCESS)
            rc = PMPI_Send(&tw, 1, MPI_UINT64_T, 0, SYNC_TAG, comm);
    }
    int64_t res[3] = {0, 0, 0}; /* a failed exchange leaves a zero offset */
    if (rc == MPI_SUCCESS)
        rc = PMPI_Recv(res, 3, MPI_INT64_T, 0, SYNC_TAG, comm, MPI_STATUS_IGNORE);
    out->offset = res[0];
    out->t_local = (uint64_t)res[1];
    out->rtt = (uint64_t)res[2];
    return rc;
}

int lens_clocksync_measure(MPI_Comm comm, int rounds, struct lens_clock_offset *out)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_size(comm, &size);
    /* At least one round, or the offset would be computed from no measurement at all. */
    if (rounds < 1)
        rounds = 1;
    return rank == 0 ? master(comm, size, rounds, out) : worker(comm, rounds, out);
}
