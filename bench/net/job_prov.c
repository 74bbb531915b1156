/* The provenance part of job.h: what the files say about how a run was made (MPI library,
 * launcher, binding, cores per host, start time). Apart from job.c because the trace collector
 * (bench/trace.mk) links it into libmpilens-trace.so, which has no use for the rest of the job. */
#include "job.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void lens_bench_job_mpi_version(char *buf, size_t n)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(v, &len);
    /* The standard does not promise a terminator inside len: put one there ourselves. */
    v[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING - 1] = '\0';
    /* MPICH's string runs over many lines (version, date, configure options) and Open MPI's is
     * one long line: the first line names library and version, which is what the attribute
     * and --version want; trailing separators are trimmed. */
    size_t k = strcspn(v, "\r\n");
    while (k > 0 && (v[k - 1] == ' ' || v[k - 1] == ','))
        k--;
    v[k] = '\0';
    snprintf(buf, n, "%s", v);
}

/* The launcher is known only by the variables it sets: Open MPI's mpirun/prterun sets
 * OMPI_COMM_WORLD_SIZE, MPICH's Hydra PMI_RANK with HYDRA_*, Slurm SLURM_JOB_ID (srun or an
 * mpirun inside an allocation: both are said). */
static void launcher(char *buf, size_t n)
{
    const char *ompi = getenv("OMPI_COMM_WORLD_SIZE"), *slurm = getenv("SLURM_JOB_ID");
    const char *hydra = getenv("HYDRA_CONTROL_FD") ? "1" : getenv("PMI_RANK");
    const char *who = ompi ? "Open MPI mpirun" : hydra ? "MPICH Hydra" : NULL;
    if (who && slurm)
        snprintf(buf, n, "%s inside Slurm job %s", who, slurm);
    else if (slurm)
        snprintf(buf, n, "Slurm job %s (srun)", slurm);
    else
        snprintf(buf, n, "%s", who ? who : "unknown (no launcher variables set)");
}

/* The policy as asked (Open MPI passes --bind-to to the ranks as an MCA variable; PRRTE's
 * name differs), then the fact: how many of the node's processors this rank may run on. The
 * fact is what matters when no policy is visible (taskset, Slurm's --cpu-bind). */
static void binding(char *buf, size_t n, long cores)
{
    const char *pol = getenv("OMPI_MCA_hwloc_base_binding_policy");
    if (!pol)
        pol = getenv("PRTE_MCA_hwloc_default_binding_policy");
    if (!pol)
        pol = getenv("SLURM_CPU_BIND_TYPE");
    cpu_set_t set;
    CPU_ZERO(&set);
    int mine = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    char fact[64];
    if (mine < 0)
        snprintf(fact, sizeof fact, "affinity unknown");
    else if (cores > 0 && mine >= cores)
        snprintf(fact, sizeof fact, "rank 0 unbound (all %d cores)", mine);
    else
        snprintf(fact, sizeof fact, "rank 0 bound to %d core%s", mine, mine == 1 ? "" : "s");
    snprintf(buf, n, "%s%s%s", pol ? pol : "", pol ? "; " : "", fact);
}

void lens_bench_job_provenance(struct lens_bench_job_prov *p)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores > 0)
        snprintf(p->cores_per_host, sizeof p->cores_per_host, "%ld", cores);
    else
        snprintf(p->cores_per_host, sizeof p->cores_per_host, "unknown");
    launcher(p->launcher, sizeof p->launcher);
    binding(p->binding, sizeof p->binding, cores);
    /* The wall clock, not SOURCE_DATE_EPOCH: this is a fact about the run, and a measured
     * cube is never byte-reproducible anyway. */
    time_t now = time(NULL);
    struct tm tm;
    if (now == (time_t)-1 || !gmtime_r(&now, &tm) ||
        !strftime(p->measured_at, sizeof p->measured_at, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(p->measured_at, sizeof p->measured_at, "unknown");
}
