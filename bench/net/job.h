/* Facts about the MPI job that every part of mpilens-bench needs: the host of each rank, the
 * MPI library's name, and whether this node runs more ranks than it has cores, which decides
 * how a rank waits for its turn (spinning or sleeping between tests). */
#ifndef LENS_BENCH_JOB_H
#define LENS_BENCH_JOB_H

#include <mpi.h>
#include <stddef.h>

/* Hosts, for the files and the p2p labels. Collective. On rank 0 hosts receives P strings
 * (owned by the caller: free each and the array with lens_free); on other ranks *hosts is
 * NULL. Any failure is fatal (MPI_Abort). */
void lens_bench_job_hosts(char ***hosts);

/* The MPI library version string's first line, into buf (n bytes, truncated to fit). */
void lens_bench_job_mpi_version(char *buf, size_t n);

/* What a report needs to say how a cube was measured (docs/report.md, "Provenance"), as
 * NUL-terminated texts for the cube's global attributes. Local: rank 0 fills it for itself,
 * so cores_per_host is rank 0's node (the others are assumed alike). */
struct lens_bench_job_prov {
    char cores_per_host[32]; /* online processors of this node (sysconf), "unknown" if none */
    char launcher[128];      /* from the environment the launcher leaves: mpirun, Hydra, Slurm */
    char binding[160];       /* the binding policy asked for, and what this rank is bound to */
    char measured_at[32];    /* start of the measurement, ISO 8601 UTC, wall clock */
};
void lens_bench_job_provenance(struct lens_bench_job_prov *p);

/* Whether this node runs more ranks of the job than it has online processors (collective). */
int lens_bench_job_oversubscribed(void);

/* Completes rq: MPI_Wait when every rank has a core; when oversubscribed, tests and sleeps
 * between tests so that the ranks measuring keep the cores. Never inside timed code. */
void lens_bench_job_wait(MPI_Request *rq, int oversubscribed);

/* MPI_Barrier, or with oversubscribed = 1 a barrier waited for as lens_bench_job_wait does. */
void lens_bench_job_barrier(int oversubscribed);

#endif
