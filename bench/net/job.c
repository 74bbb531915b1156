/* The job and its nodes (see job.h): host names gathered once to rank 0 and the polite wait
 * that keeps oversubscribed runs measurable. The provenance (MPI library, launcher, binding,
 * cores) is job_prov.c, which the trace collector links too. */
#include "job.h"

#include "fatal.h"
#include "common/alloc.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

void lens_bench_job_hosts(char ***hosts)
{
    int rank, P, len = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    /* Fixed-size names, zero-filled, so one MPI_Gather of equal blocks carries them all. */
    char name[MPI_MAX_PROCESSOR_NAME];
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &len);
    char *all = NULL;
    struct lens_err e;
    *hosts = NULL;
    /* Rank 0 fails before the gather: the others then block in it until MPI_Abort ends them,
     * which is what a fatal error must do (no rank may carry on alone). */
    if (rank == 0 && !(all = lens_malloc((size_t)P * MPI_MAX_PROCESSOR_NAME))) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for %d host names", P);
        lens_bench_fatal(&e);
    }
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
               MPI_COMM_WORLD);
    if (rank != 0)
        return;
    char **h = lens_calloc((size_t)P, sizeof *h);
    for (int i = 0; h && i < P; i++) {
        char *s = all + (size_t)i * MPI_MAX_PROCESSOR_NAME;
        /* A name of exactly MPI_MAX_PROCESSOR_NAME bytes has no terminator: cut it. An empty
         * one (some launchers) becomes "unknown" so the hosts file keeps one line per rank. */
        s[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
        if (!(h[i] = lens_strdup(s[0] ? s : "unknown"))) {
            for (int k = 0; k < i; k++)
                lens_free(h[k]);
            lens_free(h);
            h = NULL;
        }
    }
    lens_free(all);
    if (!h) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for %d host names", P);
        lens_bench_fatal(&e);
    }
    *hosts = h;
}

/* Spins (MPI_Wait) when every rank has its own core; on an oversubscribed node tests and
 * sleeps 200 us between tests, because a rank spinning while it waits for its turn takes the
 * core from the pair being measured (8 ranks on 2 cores: 6 spinning, the sweep 100 times
 * slower and its delays full of preemption). 200 us was the best of 20, 50, 200 and 1000 us
 * at 8 and 64 ranks on 2 cores. */
void lens_bench_job_wait(MPI_Request *rq, int oversubscribed)
{
    if (!oversubscribed) {
        MPI_Wait(rq, MPI_STATUS_IGNORE);
        return;
    }
    int done = 0;
    /* Test before the first sleep: a request already complete costs no 200 us. */
    MPI_Test(rq, &done, MPI_STATUS_IGNORE);
    while (!done) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
        MPI_Test(rq, &done, MPI_STATUS_IGNORE);
    }
}

void lens_bench_job_barrier(int oversubscribed)
{
    if (!oversubscribed) {
        MPI_Barrier(MPI_COMM_WORLD);
        return;
    }
    /* MPI_Barrier spins inside the library; a nonblocking barrier lets us sleep instead. */
    MPI_Request rq;
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    lens_bench_job_wait(&rq, 1);
}

int lens_bench_job_oversubscribed(void)
{
    /* The ranks sharing this node's memory are the ranks sharing its cores. If the split
     * fails, assume one rank per node: spinning is the right choice on a dedicated core. */
    MPI_Comm node;
    int local = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &local);
        MPI_Comm_free(&node);
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN); /* online, not configured: what the ranks can use */
    return cores > 0 && local > cores;
}
