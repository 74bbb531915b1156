/* Test application for the trace collector (tests/test_trace.sh). Usage:
 *   trace_app ITERS [ABORT_AFTER]
 * Each iteration: a ping-pong between ranks 0 and 1 of (3 + i % 4) ints with MPI_STATUS_IGNORE,
 * a ring of Isend/Irecv/Waitall of 100 doubles, then Bcast (17 ints from root 0), Allreduce
 * (5 doubles) and Barrier. After the loop: a window of 64 ints, fence, Put of 4 ints to the next
 * rank, fence, Get of 2 ints from it, fence, free. Prints a checksum of what it computed, so a
 * traced run can be compared with an untraced one. With ABORT_AFTER, rank 1 calls abort()
 * after that many iterations. Built twice: trace_app (for LD_PRELOAD) and trace_app_linked
 * (linked with -lmpilens-trace, starting with MPI_Init_thread). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The test resolves the call site of this MPI_Send to this file and the line marked below. */
__attribute__((noinline)) static void ping(int *buf, int n, int peer)
{
    MPI_Send(buf, n, MPI_INT, peer, 7, MPI_COMM_WORLD); /* CALLSITE ping */
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 10;
    int abort_after = argc > 2 ? atoi(argv[2]) : -1;
    double check = 0;
#ifdef TRACE_INIT_THREAD
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
#else
    MPI_Init(&argc, &argv);
#endif
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int i = 0; i < iters; i++) {
        int msg[8] = {i, rank, 3, 5, 7, 11, 13, 17}, n = 3 + i % 4;
        if (rank == 0) {
            ping(msg, n, 1);
            MPI_Recv(msg, 8, MPI_INT, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            check += msg[0] + msg[1];
        } else if (rank == 1) {
            MPI_Recv(msg, 8, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            msg[0] += 1000;
            MPI_Send(msg, n, MPI_INT, 0, 8, MPI_COMM_WORLD);
        }
        if (i == abort_after && rank == 1)
            abort();
        double out[100], in[100];
        MPI_Request req[2];
        for (int k = 0; k < 100; k++)
            out[k] = rank * 0.5 + k + i;
        MPI_Irecv(in, 100, MPI_DOUBLE, prev, 3, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out, 100, MPI_DOUBLE, next, 3, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        check += in[99];
        int b[17];
        for (int k = 0; k < 17; k++)
            b[k] = rank == 0 ? 31 * k + i : -1;
        MPI_Bcast(b, 17, MPI_INT, 0, MPI_COMM_WORLD);
        double v[5] = {rank + 0.25, i, 1, 2, 3}, s[5];
        MPI_Allreduce(v, s, 5, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        check += b[16] + s[0];
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int *base, got[2] = {0, 0}, put[4] = {rank, rank + 1, rank + 2, rank + 3};
    MPI_Win win;
    MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int k = 0; k < 64; k++)
        base[k] = 100 * rank + k;
    MPI_Win_fence(0, win);
    MPI_Put(put, 4, MPI_INT, next, 10, 4, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(got, 2, MPI_INT, next, 11, 2, MPI_INT, win);
    MPI_Win_fence(0, win);
    check += got[0] + got[1];
    MPI_Win_free(&win);
    double total = 0;
    MPI_Reduce(&check, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.3f\n", total);
    MPI_Finalize();
    return 0;
}
