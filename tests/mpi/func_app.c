/* Test application for the collector's -finstrument-functions mode (tests/test_profile_otf2.sh).
 * Usage: func_app. Built with -finstrument-functions. On every rank: sleepy() sleeps 50 ms,
 * 10 times (0.5 s); exchange() calls MPI_Allreduce inside a user function, 10 times; tiny()
 * runs 20000 times for well under a microsecond each; outer() -> middle() -> inner() sleep
 * 10 ms each, twice (20 ms exclusive in each). Rank 1 also runs slow_rank(), 0.3 s of sleep,
 * so that ICAPPA names it. Prints the sum of what tiny() computed. nap() is not instrumented, so
 * the sleeps count as exclusive time of its callers. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

/* not instrumented: its time belongs to the caller */
__attribute__((no_instrument_function)) static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

__attribute__((noinline)) static void sleepy(void) { nap(50); }
__attribute__((noinline)) static void inner(void) { nap(10); }
__attribute__((noinline)) static void middle(void) { nap(10); inner(); }
__attribute__((noinline)) static void outer(void) { nap(10); middle(); }
__attribute__((noinline)) static void slow_rank(void) { nap(300); }

__attribute__((noinline)) static double tiny(int i)
{
    return (double)(i % 7) * 0.5;
}

__attribute__((noinline)) static double exchange(double x)
{
    double y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return y;
}

int main(int argc, char **argv)
{
    int rank;
    double sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 10; i++) {
        sleepy();
        sum += exchange(i + rank);
    }
    for (int i = 0; i < 20000; i++)
        sum += tiny(i);
    for (int i = 0; i < 2; i++)
        outer();
    if (rank == 1)
        slow_rank();
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %.1f\n", sum);
    MPI_Finalize();
    return 0;
}
