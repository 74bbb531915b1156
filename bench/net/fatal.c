/* The fatal-error path: message with the rank, then MPI_Abort (see fatal.h). */
#include "fatal.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void lens_bench_fatal(const struct lens_err *e)
{
    int rank = -1; /* -1 if asked before MPI_Init */
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "mpilens-bench: rank %d: %s\n", rank,
            e && e->msg[0] ? e->msg : "unknown error");
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    /* MPI_Abort does not return; should an implementation return, this process must still
     * stop rather than carry on with a broken run. */
    abort();
}
