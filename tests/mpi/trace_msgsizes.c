/* Ground truth for mpilens msgsizes (tests/test_msgsizes.sh): every rank sends to the next
 * rank of a ring count(r, i) messages of SIZES[i] bytes, through MPI_Send (i % 4 == 0),
 * MPI_Isend + MPI_Waitall (1), MPI_Ssend (2) and MPI_Sendrecv (3), so the test knows the
 * exact number of messages per size. Also makes what must not count as a message: a send
 * to MPI_PROC_NULL, a broadcast, an allreduce, a barrier and one MPI_Put per rank.
 * Prints "rank R sent SIZE COUNT" per size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS 13
static const int SIZES[NS] = {0,     1,     57,    64,     1023,    1024,   4095,
                              4096,  65535, 65536, 300001, 1048576, 1048583};

/* Messages of SIZES[i] that rank r sends; the Sendrecv sizes do not depend on r, since every
 * rank's Sendrecv also receives one. Keep in step with the test's copy of this formula. */
static int count(int r, int i)
{
    return i % 4 == 3 ? 2 + i % 3 : 1 + (7 * i + 3 * r) % 5;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    size_t rbytes = 0;
    int nreq = 0;
    for (int i = 0; i < NS; i++)
        if (i % 4 != 3) {
            rbytes += (size_t)count(prev, i) * (size_t)SIZES[i];
            nreq += count(prev, i) + count(rank, i);
        }
    char *sbuf = malloc((size_t)SIZES[NS - 1]), *rbuf = malloc(rbytes + 1);
    char *xbuf = malloc((size_t)SIZES[NS - 1]);
    MPI_Request *req = malloc((size_t)nreq * sizeof *req);
    if (!sbuf || !rbuf || !xbuf || !req)
        MPI_Abort(MPI_COMM_WORLD, 1);
    memset(sbuf, rank + 1, (size_t)SIZES[NS - 1]);
    int n = 0;
    size_t off = 0;
    for (int i = 0; i < NS; i++) /* every receive posted first: no send can block forever */
        for (int k = 0; i % 4 != 3 && k < count(prev, i); k++) {
            MPI_Irecv(rbuf + off, SIZES[i], MPI_BYTE, prev, i, MPI_COMM_WORLD, &req[n++]);
            off += (size_t)SIZES[i];
        }
    for (int i = 0; i < NS; i++)
        for (int k = 0; k < count(rank, i); k++) {
            switch (i % 4) {
            case 0: MPI_Send(sbuf, SIZES[i], MPI_BYTE, next, i, MPI_COMM_WORLD); break;
            case 1: MPI_Isend(sbuf, SIZES[i], MPI_BYTE, next, i, MPI_COMM_WORLD, &req[n++]); break;
            case 2: MPI_Ssend(sbuf, SIZES[i], MPI_BYTE, next, i, MPI_COMM_WORLD); break;
            default:
                MPI_Sendrecv(sbuf, SIZES[i], MPI_BYTE, next, 100 + i, xbuf, SIZES[i], MPI_BYTE,
                             prev, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    MPI_Send(sbuf, 10, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD); /* no message */
    int v = rank, sum = 0;
    MPI_Bcast(sbuf, 777, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    int *base;
    MPI_Win win;
    MPI_Win_allocate(10 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_fence(0, win);
    MPI_Put(&v, 1, MPI_INT, next, 0, 1, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);
    for (int i = 0; i < NS; i++)
        printf("rank %d sent %d %d\n", rank, SIZES[i], count(rank, i));
    free(req);
    free(xbuf);
    free(rbuf);
    free(sbuf);
    MPI_Finalize();
    return sum != size * (size - 1) / 2;
}
