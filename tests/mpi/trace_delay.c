/* Ground truth for mpilens problems (tests/test_problems.sh): 2 ranks, each phase injects a
 * known delay with usleep, so each problem's time is known in advance:
 *   late sender: rank 0 sleeps 20 ms before each of 10 sends -> ~200 ms on rank 1 (consume)
 *   wrong order: rank 1 receives tag 3 (sent 20 ms late) before tag 2, 3 times -> ~60 ms
 *   barrier: rank 1 sleeps 40 ms before 3 barriers -> ~120 ms on rank 0
 *   broadcast: root 0 sleeps 40 ms before 2 broadcasts -> ~80 ms on rank 1
 *   reduce: rank 1 sleeps 40 ms before 2 reduces to root 0 -> ~80 ms on rank 0
 *   allreduce: rank 0 sleeps 40 ms before 2 allreduces -> ~80 ms on rank 1
 *   window: rank 1 sleeps 20 ms before MPI_Win_allocate -> ~20 ms on rank 0
 *   lock: rank 0 holds target 1's exclusive lock 30 ms, rank 1 asks 5 ms later -> ~25 ms
 *   late post: rank 1 posts 20 ms late -> ~20 ms on rank 0 (where the MPI blocks)
 *   early wait: rank 0 completes 20 ms late -> ~20 ms on rank 1 in MPI_Win_wait
 * A loaded machine wakes sleepers late, so each rank also prints the seconds it spent in the
 * waiting calls of each phase ("rank R phase SECONDS"; wait_at_barrier: all its barriers), a
 * reference that holds in any run. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

#define MS 1000
/* Adds the seconds spent in call to acc. */
#define TIMED(acc, call)                                                                   \
    do {                                                                                   \
        double t0_ = MPI_Wtime();                                                          \
        call;                                                                              \
        (acc) += MPI_Wtime() - t0_;                                                        \
    } while (0)

enum { LS, WO, BAR, BC, RED, ALL, WIN, LOCK, POST, WAIT, NPHASE };
static const char *const phase[NPHASE] = {"late_sender", "late_sender_wrong_order",
                                          "wait_at_barrier", "late_broadcast", "early_reduce",
                                          "wait_at_nxn", "rma_window_create_wait",
                                          "rma_lock_contention", "rma_late_post",
                                          "rma_early_exposure_end"};

__attribute__((noinline)) static void produce(int *v, int tag)
{
    MPI_Send(v, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
}

__attribute__((noinline)) static void consume(int *v, int tag)
{
    MPI_Recv(v, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* CALLSITE consume */
}

int main(int argc, char **argv)
{
    int rank, size, v = 0, sum = 0;
    double t[NPHASE] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "trace_delay: run with 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 10; i++) { /* late sender */
        v = i;
        if (rank == 0) {
            usleep(20 * MS);
            produce(&v, 1);
        } else {
            TIMED(t[LS], consume(&v, 1));
            sum += v;
        }
    }
    for (int i = 0; i < 3; i++) { /* wrong order */
        TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            produce(&v, 2);
            usleep(20 * MS);
            produce(&v, 3);
        } else {
            TIMED(t[WO], consume(&v, 3));
            consume(&v, 2);
        }
    }
    TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 3; i++) { /* barrier */
        if (rank == 1)
            usleep(40 * MS);
        TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD)); /* CALLSITE barrier phase */
    }
    for (int i = 0; i < 2; i++) { /* broadcast */
        if (rank == 0)
            usleep(40 * MS);
        TIMED(t[BC], MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    }
    TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 2; i++) { /* reduce */
        if (rank == 1)
            usleep(40 * MS);
        TIMED(t[RED], MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD));
    }
    TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < 2; i++) { /* allreduce */
        if (rank == 0)
            usleep(40 * MS);
        TIMED(t[ALL], MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    }
    int *base;
    MPI_Win win;
    TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1)
        usleep(20 * MS);
    TIMED(t[WIN], MPI_Win_allocate(16 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                   &base, &win));
    TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) { /* lock contention on target 1 */
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
        usleep(30 * MS);
        MPI_Win_unlock(1, win);
    } else {
        usleep(5 * MS);
        TIMED(t[LOCK], MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
        TIMED(t[LOCK], MPI_Put(&v, 1, MPI_INT, 1, 1, 1, MPI_INT, win));
        TIMED(t[LOCK], MPI_Win_unlock(1, win));
    }
    TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
    MPI_Group world, other;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int peer = 1 - rank;
    MPI_Group_incl(world, 1, &peer, &other);
    for (int late_post = 1; late_post >= 0; late_post--) {
        if (rank == 1) { /* target */
            if (late_post)
                usleep(20 * MS);
            MPI_Win_post(other, 0, win);
            TIMED(t[WAIT], MPI_Win_wait(win));
        } else { /* origin: the epoch's calls of the late-post round */
            double dummy = 0, *acc = late_post ? &t[POST] : &dummy;
            TIMED(*acc, MPI_Win_start(other, 0, win));
            if (!late_post)
                usleep(20 * MS);
            TIMED(*acc, MPI_Put(&v, 1, MPI_INT, 1, 2, 1, MPI_INT, win));
            TIMED(*acc, MPI_Win_complete(win));
        }
        TIMED(t[BAR], MPI_Barrier(MPI_COMM_WORLD));
    }
    MPI_Group_free(&other);
    MPI_Group_free(&world);
    MPI_Win_free(&win);
    for (int p = 0; p < NPHASE; p++)
        printf("rank %d %s %.6f\n", rank, phase[p], t[p]);
    MPI_Finalize();
    return sum == -1;
}
