/* Overhead driver for scripts/bench.d/trace.sh: loops of 0-byte Send/Recv between ranks 0 and
 * 1. Usage: trace_pingpong ITERS REPEATS. Repeats alternate between calling PMPI_Send/PMPI_Recv
 * (never traced: what the application costs without the collector) and MPI_Send/MPI_Recv
 * (traced when libmpilens-trace.so is loaded), so both are measured in the same process under
 * the same load. Rank 0 prints the smallest time per call of each ("pmpi_ns X", "mpi_ns Y");
 * each iteration is two calls on each rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double loop(int rank, int iters, int traced)
{
    char b = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (int i = 0; i < iters; i++) {
        if (rank == 0 && traced) {
            MPI_Send(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 0) {
            PMPI_Send(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
            PMPI_Recv(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1 && traced) {
            MPI_Recv(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        } else if (rank == 1) {
            PMPI_Recv(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            PMPI_Send(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t) / (2.0 * iters) * 1e9;
}

int main(int argc, char **argv)
{
    int rank, iters = argc > 1 ? atoi(argv[1]) : 20000, reps = argc > 2 ? atoi(argv[2]) : 20;
    double best[2] = {1e30, 1e30};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    loop(rank, iters, 0); /* warm-up */
    loop(rank, iters, 1);
    for (int r = 0; r < 2 * reps; r++) {
        double ns = loop(rank, iters, r % 2);
        if (ns < best[r % 2])
            best[r % 2] = ns;
    }
    if (rank == 0)
        printf("pmpi_ns %.1f\nmpi_ns %.1f\n", best[0], best[1]);
    MPI_Finalize();
    return 0;
}
