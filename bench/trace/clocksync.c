/* Minimum-round-trip clock offset measurement against rank 0 (see clocksync.h). */
#include "clocksync.h"

#define SYNC_TAG 4242

static int master(MPI_Comm comm, int size, int rounds, struct lens_clock_offset *out)
{
    int rc = MPI_SUCCESS;
    char ping = 0;
    for (int w = 1; w < size && rc == MPI_SUCCESS; w++) {
        uint64_t best_rtt = UINT64_MAX, best_t1 = 0, best_tw = 0;
        for (int i = 0; i < rounds && rc == MPI_SUCCESS; i++) {
            uint64_t tw = 0, t1 = lens_clock_now();
            rc = PMPI_Send(&ping, 1, MPI_CHAR, w, SYNC_TAG, comm);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Recv(&tw, 1, MPI_UINT64_T, w, SYNC_TAG, comm, MPI_STATUS_IGNORE);
            uint64_t t2 = lens_clock_now();
            if (t2 - t1 < best_rtt) {
                best_rtt = t2 - t1;
                best_t1 = t1;
                best_tw = tw;
            }
        }
        /* the worker's clock read best_tw when the master's read best_t1 + rtt/2 */
        int64_t res[3] = {(int64_t)(best_t1 + best_rtt / 2) - (int64_t)best_tw,
                          (int64_t)best_tw, (int64_t)best_rtt};
        if (rc == MPI_SUCCESS)
            rc = PMPI_Send(res, 3, MPI_INT64_T, w, SYNC_TAG, comm);
    }
    out->t_local = lens_clock_now();
    out->offset = 0;
    out->rtt = 0;
    return rc;
}

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
    int64_t res[3] = {0, 0, 0};
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
    if (rounds < 1)
        rounds = 1;
    return rank == 0 ? master(comm, size, rounds, out) : worker(comm, rounds, out);
}
