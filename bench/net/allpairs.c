/* The all-pairs driver (see allpairs.h): per length, every rank measures its cells, rank 0
 * gathers 4 x P x P statistics (and, with --raw, P x P x repeats samples), writes them and
 * syncs. Memory: O(P) doubles per rank, O(P^2) on rank 0 (times the repeats with --raw). */
#include "allpairs.h"

#include "fatal.h"
#include "job.h"
#include "mode.h"
#include "retest.h"
#include "common/atomic.h"
#include "analysis/cube/cube.h"

#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Rank 0's side: the writer and the gather buffers. */
/* Only rank 0 has a sink: the other ranks never hold more than their own row (O(P) doubles). */
struct sink {
    struct lens_cube *meta;
    struct lens_cube_writer *w;
    double *gath;     /* P x 4 x P as gathered: rank, statistic, cell */
    double *mats[4];  /* P x P per statistic */
    double *rawg;     /* --raw: P x P x repeats as gathered */
    double *rawm;     /* --raw, transposed modes: the same in file order */
};

/* A failure on rank 0 removes what it started writing (the writer's abort keeps only complete
 * lengths), then ends the job: the other ranks cannot learn of it in time to stop cleanly. */
static void sink_fail(struct sink *s, struct lens_err *e)
{
    if (s->w)
        lens_cube_writer_abort(s->w);
    s->w = NULL;
    lens_bench_fatal(e);
}

static void sink_open(struct sink *s, const struct lens_bench_opts *o, const struct lens_bench_ctx *c,
                      char **hosts)
{
    struct lens_err e;
    size_t P = (size_t)c->procs, n = (size_t)o->repeats;
    memset(s, 0, sizeof *s);
    if (lens_cube_new(&s->meta, c->procs, o->nlen, o->begin, o->step, 0, &e) != LENS_OK)
        sink_fail(s, &e);
    s->meta->end = o->end; /* network_test2's end_mes_length: exclusive, as given */
    s->meta->mode = o->mode;
    s->meta->repeats = o->repeats;
    s->meta->noise_len = o->noise_len;
    s->meta->noise_msgs = o->noise_msgs;
    s->meta->noise_procs = o->noise_procs;
    s->meta->hosts = hosts; /* the cube owns them from here */
    s->gath = lens_malloc(4 * P * P * sizeof(double)); /* 4 statistics x P rows x P cells */
    for (int k = 0; k < 4; k++)
        s->mats[k] = lens_malloc(P * P * sizeof(double));
    if (o->raw) {
        s->rawg = lens_malloc(P * P * n * sizeof(double));
        /* file order differs only when transposed */
        s->rawm = c->transposed ? lens_malloc(P * P * n * sizeof(double)) : s->rawg;
    }
    if (!s->gath || !s->mats[0] || !s->mats[1] || !s->mats[2] || !s->mats[3] ||
        (o->raw && (!s->rawg || !s->rawm))) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for the %zu x %zu matrices", P, P);
        sink_fail(s, &e);
    }
    char mpiv[256], warm[32], rounds[32], seed[32];
    lens_bench_job_mpi_version(mpiv, sizeof mpiv);
    snprintf(warm, sizeof warm, "%d", o->warmup);
    /* The schedule's attributes say how the pairs were ordered; a parallel run's rounds and
     * seed rebuild its exact tournament (bench/net/schedule.h). */
    int parallel = o->schedule == LENS_BENCH_SCHEDULE_PARALLEL;
    snprintf(rounds, sizeof rounds, "%d", c->sched.rounds);
    snprintf(seed, sizeof seed, "%llu", o->seed);
    /* The attributes say what the numbers are, so a file read years later needs no command line:
     * the delay's definition, the statistics' definitions, the diagonal and the warm-up. */
    const char *attrs[] = {
        "tool", "mpilens-bench",
        "mpi_library_version", mpiv,
        "command_line", o->cmdline,
        "delay_definition", lens_bench_mode_definition(o->mode),
        "statistics", "average = arithmetic mean; median = middle value, the mean of the two "
                      "middle values for an even count; deviation = population standard "
                      "deviation (divide by N); min = smallest; all four over the same "
                      "per-repeat delay defined in delay_definition",
        "diagonal", "0 in every statistic: a rank is not measured against itself",
        "warmup_repeats", warm,
        "schedule", parallel ? "parallel" : "serial",
        /* a serial run's list ends here: it has no rounds and no seed */
        parallel ? "rounds" : NULL, rounds,
        "shuffle_seed", o->shuffle ? seed : "none",
        NULL, NULL};
    /* --force over a run that kept its raw repeats or retests: a stale _all.nc or
     * _retest.csv would not match the new files. */
    for (int f = 0; f < 2 && o->force; f++) {
        const char *suffix = f == 0 ? "_all.nc" : "_retest.csv";
        if (f == 0 ? o->raw : o->retest > 0)
            continue;
        size_t plen = strlen(o->prefix) + strlen(suffix) + 1;
        char *stale = lens_malloc(plen);
        if (stale) {
            snprintf(stale, plen, "%s%s", o->prefix, suffix);
            (void)unlink(stale);
        }
        lens_free(stale);
    }
    /* direct = 1: the files are written in place and synced per length, so a killed run leaves
     * the lengths done readable (docs/outputs.md); 0xf: all four statistics. */
    if (lens_cube_writer_open(&s->w, s->meta, o->prefix, 0xf, o->raw ? o->repeats : 0, attrs, 1, &e) != LENS_OK)
        sink_fail(s, &e);
}

/* The gathered block is rank-major (rank, statistic, cell); the files want one P x P matrix per
 * statistic with row = the rank that measured, or row = the cell for transposed modes (bcast). */
static void sink_put(struct sink *s, const struct lens_bench_ctx *c, int k)
{
    size_t P = (size_t)c->procs, n = (size_t)c->o->repeats;
    for (size_t i = 0; i < P; i++)
        for (int st = 0; st < 4; st++)
            for (size_t x = 0; x < P; x++) {
                double v = s->gath[(i * 4 + (size_t)st) * P + x];
                s->mats[st][c->transposed ? x * P + i : i * P + x] = v;
            }
    /* The raw repeats need the same transpose, a whole repeat vector per cell. */
    if (s->rawg && c->transposed)
        for (size_t i = 0; i < P; i++)
            for (size_t x = 0; x < P; x++)
                memcpy(s->rawm + (x * P + i) * n, s->rawg + (i * P + x) * n, n * sizeof(double));
    const double *mats[4] = {s->mats[0], s->mats[1], s->mats[2], s->mats[3]};
    struct lens_err e;
    if (lens_cube_writer_put(s->w, k, mats, s->rawm, &e) != LENS_OK)
        sink_fail(s, &e);
}

/* Closing renames and syncs; its failure is fatal only after every buffer is freed, so the
 * abort message is the last thing the run does. */
static void sink_close(struct sink *s)
{
    struct lens_err e;
    int rc = lens_cube_writer_close(s->w, &e);
    s->w = NULL;
    lens_free(s->gath);
    for (int k = 0; k < 4; k++)
        lens_free(s->mats[k]);
    if (s->rawm != s->rawg)
        lens_free(s->rawm);
    lens_free(s->rawg);
    lens_cube_free(s->meta);
    if (rc != LENS_OK)
        lens_bench_fatal(&e);
}

/* This process's peak resident set in kB (VmHWM of /proc/self/status), -1 if unknown. */
/* VmHWM, not VmRSS: the peak is what a job's memory limit is checked against. */
static long peak_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

/* ---- --retest: the worst and the flagged cells of every length, measured again alone ---- */

/* One retest of the plan: length index k, cell (i, j), the sweep's median and its z; role
 * says why it is in the plan (ROLE_*), again and zagain are filled by the retest. */
enum { ROLE_WORST, ROLE_FLAGGED, ROLE_CONTROL };
struct retest {
    int k, i, j, role;
    double first, z, again, zagain;
};

/* Rank 0: the plan from the sweep's medians (first: nlen x P x P), per length the K worst
 * cells and every flagged one (retest.h). med and sig keep each length's yardstick, so the
 * retest is judged against the same typical delay as the sweep. */
static struct retest *retest_plan(const struct lens_bench_opts *o, int P, const double *first,
                                  double *med, double *sig, int *count)
{
    size_t PP = (size_t)P * P;
    double *work = lens_malloc(2 * PP * sizeof(double)), *z = lens_malloc(PP * sizeof(double));
    int *cells = lens_malloc(PP * sizeof(int));
    struct retest *plan = NULL;
    int n = 0, cap = 0;
    struct lens_err e;
    if (!work || !z || !cells)
        goto oom;
    for (int k = 0; k < o->nlen; k++) {
        const double *m = first + (size_t)k * PP;
        lens_bench_retest_robust(m, P, work, &med[k], &sig[k]);
        int got = lens_bench_retest_pick(m, P, o->retest, LENS_BENCH_RETEST_ZMIN, work, cells, z);
        int ctl = lens_bench_retest_control(m, P, med[k], cells, got);
        if (n + got + 1 > cap) {
            cap = 2 * (n + got + 1);
            struct retest *np = lens_realloc(plan, (size_t)cap * sizeof *plan);
            if (!np)
                goto oom;
            plan = np;
        }
        for (int t = 0; t < got; t++)
            plan[n++] = (struct retest){k, cells[t] / P, cells[t] % P,
                                        z[t] >= LENS_BENCH_RETEST_ZMIN ? ROLE_FLAGGED : ROLE_WORST,
                                        m[cells[t]], z[t], NAN, NAN};
        /* the control goes last in its length: every retest of the length is judged by it */
        if (ctl >= 0)
            plan[n++] = (struct retest){k, ctl / P, ctl % P, ROLE_CONTROL, m[ctl],
                                        lens_bench_retest_z(m[ctl], med[k], sig[k]), NAN, NAN};
    }
    lens_free(work);
    lens_free(z);
    lens_free(cells);
    *count = n;
    return plan;
oom:
    lens_err_set(&e, LENS_ENOMEM, "out of memory for the retest plan (%d ranks)", P);
    lens_bench_fatal(&e);
}

/* PREFIX_retest.csv, written whole through a temporary (docs/bench.md): one line per
 * retest; delays in seconds, z in robust units of the length (retest.h). */
static void retest_write(const struct lens_bench_opts *o, const struct retest *plan, int n)
{
    struct lens_err e;
    size_t plen = strlen(o->prefix) + sizeof "_retest.csv";
    char *path = lens_malloc(plen);
    if (!path) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory");
        lens_bench_fatal(&e);
    }
    snprintf(path, plen, "%s_retest.csv", o->prefix);
    struct lens_atomic a;
    if (lens_atomic_open(&a, path, "w", &e) != LENS_OK)
        lens_bench_fatal(&e);
    int recv_row = lens_bench_retest_row_is_receiver(o->mode);
    static const char *const roles[] = {"worst", "flagged", "control"};
    fprintf(a.fp, "length,sender,receiver,first,retest,z,retest_z,role\n");
    for (int t = 0; t < n; t++) {
        const struct retest *r = &plan[t];
        /* sender and receiver, not row and column: the file reads the same in every mode */
        fprintf(a.fp, "%d,%d,%d,%.9g,%.9g,%.4f,%.4f,%s\n", o->begin + r->k * o->step, recv_row ? r->j : r->i,
                recv_row ? r->i : r->j, r->first, r->again, r->z, r->zagain, roles[r->role]);
    }
    lens_free(path);
    if (lens_atomic_commit(&a, &e) != LENS_OK)
        lens_bench_fatal(&e);
}

/* After the sweep (the cube files are closed and complete): rank 0 plans, every rank learns
 * the plan, and each cell is measured alone in turn. The plan travels as ints (k, i, j) so
 * every rank walks the same list; only rank 0 keeps the values. */
static void retest_run(const struct lens_bench_opts *o, struct lens_bench_ctx *c, const double *first)
{
    int n = 0;
    struct retest *plan = NULL;
    double *med = NULL, *sig = NULL;
    struct lens_err e;
    if (c->rank == 0) {
        med = lens_malloc((size_t)o->nlen * sizeof(double));
        sig = lens_malloc((size_t)o->nlen * sizeof(double));
        if (!med || !sig) {
            lens_err_set(&e, LENS_ENOMEM, "out of memory");
            lens_bench_fatal(&e);
        }
        plan = retest_plan(o, c->procs, first, med, sig, &n);
    }
    /* the count first, so every rank can size the list it receives */
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int *ijk = lens_malloc((size_t)(3 * n + 1) * sizeof(int));
    if (!ijk) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for %d retests", n);
        lens_bench_fatal(&e);
    }
    for (int t = 0; c->rank == 0 && t < n; t++) {
        ijk[3 * t] = plan[t].k;
        ijk[3 * t + 1] = plan[t].i;
        ijk[3 * t + 2] = plan[t].j;
    }
    MPI_Bcast(ijk, 3 * n, MPI_INT, 0, MPI_COMM_WORLD);
    for (int t = 0; t < n; t++) {
        double v = lens_bench_mode_cell(c, o->begin + ijk[3 * t] * o->step, ijk[3 * t + 1], ijk[3 * t + 2]);
        if (c->rank == 0)
            plan[t].again = v;
    }
    /* retest_z: against the control measured alone when the length has one (a parallel
     * sweep's median includes the other pairs' traffic, a retest does not), else against the
     * sweep's median; always in the length's sigma. */
    for (int t = 0; c->rank == 0 && t < n; t++) {
        int k = plan[t].k, u = t;
        while (u < n && plan[u].k == k && plan[u].role != ROLE_CONTROL)
            u++;
        double ref = u < n && plan[u].k == k && plan[u].again > 0 ? log(plan[u].again) : med[k];
        plan[t].zagain = lens_bench_retest_z(plan[t].again, ref, sig[k]);
    }
    if (c->rank == 0)
        retest_write(o, plan, n);
    lens_free(ijk);
    lens_free(plan);
    lens_free(med);
    lens_free(sig);
}

void lens_bench_allpairs_run(const struct lens_bench_opts *o, lens_bench_progress_fn fn, void *arg)
{
    struct lens_bench_ctx c;
    struct lens_err e;
    if (lens_bench_ctx_init(&c, o, &e) != LENS_OK)
        lens_bench_fatal(&e);
    char **hosts;
    lens_bench_job_hosts(&hosts);
    size_t P = (size_t)c.procs, n = (size_t)o->repeats;
    double *pack = lens_malloc(4 * P * sizeof(double)); /* this rank's four rows, one gather message */
    if (!pack) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory");
        lens_bench_fatal(&e);
    }
    struct sink s;
    double *first = NULL; /* --retest, rank 0: every length's median matrix */
    if (c.rank == 0) {
        sink_open(&s, o, &c, hosts);
        if (o->retest > 0 && !(first = lens_malloc((size_t)o->nlen * P * P * sizeof(double)))) {
            lens_err_set(&e, LENS_ENOMEM, "out of memory for the retest medians");
            sink_fail(&s, &e);
        }
    }
    /* MPI_Wtime, not the system clock: it is what the kernels time with, and it is monotonic. */
    double start = MPI_Wtime();
    for (int k = 0; k < o->nlen; k++) {
        int len = o->begin + k * o->step;
        double t0 = MPI_Wtime();
        lens_bench_mode_run(&c, len);
        if (o->timing)
            /* the last pair done: the gather waits for no one */
            lens_bench_job_barrier(c.oversubscribed);
        double t1 = MPI_Wtime();
        /* Packing the four rows into one buffer makes one MPI_Gather per length, not four. */
        for (int st = 0; st < 4; st++)
            memcpy(pack + (size_t)st * P, c.row[st], P * sizeof(double));
        MPI_Gather(pack, (int)(4 * P), MPI_DOUBLE, c.rank == 0 ? s.gath : NULL, (int)(4 * P),
                   MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (o->raw)
            /* --raw: P x repeats per rank */
            MPI_Gather(c.rawrow, (int)(P * n), MPI_DOUBLE, c.rank == 0 ? s.rawg : NULL, (int)(P * n),
                       MPI_DOUBLE, 0, MPI_COMM_WORLD);
        double t2 = MPI_Wtime();
        long rss = -1, mine = o->timing && c.rank != 0 ? peak_rss_kb() : -1;
        if (o->timing)
            /* the largest of the other ranks */
            MPI_Reduce(&mine, &rss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        /* From here on rank 0 alone: it writes while the others go on to the next length,
         * whose first barrier makes them wait for it. */
        if (c.rank != 0)
            continue;
        sink_put(&s, &c, k);
        if (first)
            memcpy(first + (size_t)k * P * P, s.mats[1], P * P * sizeof(double));
        double t3 = MPI_Wtime();
        if (o->die_after == k + 1)
            raise(SIGKILL); /* testing: an interrupted run, with k + 1 lengths on disk */
        if (fn) {
            double el = t3 - start; /* seconds since the sweep began, writes included */
            struct lens_bench_progress p = {k + 1, o->nlen, len, (k + 1) * c.pairs,
                                            (long)o->nlen * c.pairs, el, el / (k + 1) * (o->nlen - k - 1),
                                            t1 - t0, t2 - t1, t3 - t2, o->timing ? peak_rss_kb() : -1, rss};
            fn(arg, &p);
        }
    }
    if (c.rank == 0)
        sink_close(&s);
    /* after the close: a failure during the retests (MPI_Abort) leaves the cube complete */
    if (o->retest > 0)
        retest_run(o, &c, first);
    lens_free(first);
    lens_free(pack);
    lens_bench_ctx_release(&c);
}
