/* Test application for traced runs that end badly (tests/test_trace_crash.sh). Usage:
 *   trace_crash MODE N [RANK]
 * Every iteration each rank does one MPI_Sendrecv around a ring and one MPI_Barrier, so after
 * N whole iterations a rank has recorded MPI_Init + 2N calls (1 + 2N Enter events). Then, with
 * RANK the victim (default 2):
 *   segv   RANK writes to a PROT_NONE page (a real SIGSEGV, and no undefined behaviour for
 *          UBSan to stop first); the others wait in the next Sendrecv
 *   abort  RANK calls MPI_Abort(MPI_COMM_WORLD, 3); the others wait in the next Sendrecv
 *   term   RANK sends itself SIGTERM (the collector's handler flushes, then the default
 *          action ends the process: its exit status says SIGTERM)
 *   hang   every rank sleeps without calling MPI until it is killed (SIGTERM from outside)
 *   kill   after N iterations RANK (every rank for -1) sends itself SIGKILL (no handler runs)
 * Iterations are 5 ms apart, so that a run lasts longer than a short flush interval
 * (MPILENS_TRACE_FLUSH_SEC): Open MPI sometimes SIGKILLs a survivor with no SIGTERM first,
 * and then only the time-driven flushes keep its events. Survivors go on until killed.
 * Prints "rank R: N iterations" on stderr before the end it was asked for. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void step(int rank, int size)
{
    int out = rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 5, &in, 1, MPI_INT,
                 (rank + size - 1) % size, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    int rank, size;
    if (argc < 3) {
        fprintf(stderr, "usage: trace_crash segv|abort|term|hang|kill N [RANK]\n");
        return 2;
    }
    const char *mode = argv[1];
    int n = atoi(argv[2]), victim = argc > 3 ? atoi(argv[3]) : 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < n; i++) {
        step(rank, size);
        nap_ms(5);
    }
    fprintf(stderr, "rank %d: %d iterations\n", rank, n);
    if (!strcmp(mode, "segv") && rank == victim) {
        volatile char *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED)
            p[0] = 1;
    } else if (!strcmp(mode, "abort") && rank == victim) {
        MPI_Abort(MPI_COMM_WORLD, 3);
    } else if (!strcmp(mode, "term") && rank == victim) {
        raise(SIGTERM);
    } else if (!strcmp(mode, "hang")) {
        /* tell the test that every rank is past its N iterations (file $TRACE_CRASH_READY), so
         * that its SIGTERM lands in the hang however slowly a loaded machine starts the ranks */
        MPI_Barrier(MPI_COMM_WORLD);
        const char *ready = getenv("TRACE_CRASH_READY");
        if (ready && rank == 0) {
            FILE *f = fopen(ready, "w");
            if (f)
                fclose(f);
        }
        for (;;)
            pause();
    } else if (!strcmp(mode, "kill") && (rank == victim || victim < 0)) {
        raise(SIGKILL);
    }
    for (;;) { /* survivors: blocked on the victim until the runtime kills them */
        step(rank, size);
        nap_ms(5);
    }
}
