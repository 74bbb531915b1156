/* The all-pairs driver (see allpairs.h): per length, every rank measures its cells, then
 * either every rank writes its own rows collectively with PnetCDF (ncwrite.c: O(P) doubles per
 * rank and statistic) or, without PnetCDF or with MPILENS_BENCH_GATHER=1, rank 0 gathers
 * 4 x P x P statistics (and P x P x repeats with --raw), writes them and syncs. */
#include "allpairs.h"

#include "fatal.h"
#include "job.h"
#include "mode.h"
#include "ncwrite.h"
#include "retest.h"
#include "estimate.h"
#include "common/atomic.h"
#include "analysis/cube/cube.h"

#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The output. Gather path: only rank 0 has a sink (the writer and the P x P buffers), the other
 * ranks never hold more than their own row. PnetCDF path: rank 0 creates the files (meta, w)
 * and closes them with no record; then every rank holds pw and writes its rows. */
struct sink {
    int pnc;          /* 1: PnetCDF, every rank writes; 0: gather to rank 0 */
    struct lens_cube *meta;
    struct lens_cube_writer *w;
    struct lens_bench_ncwrite *pw; /* PnetCDF path, every rank */
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

/* Gather path, rank 0: the 4 x P x P statistics (and --raw's P x P x repeats), twice when the
 * file order differs from the gathered one. */
static void gather_alloc(struct sink *s, const struct lens_bench_opts *o, const struct lens_bench_ctx *c,
                         size_t P, size_t n)
{
    struct lens_err e;
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
}

/* Rank 0: the files with their attributes (and, gather path, the buffers). pnc is the path
 * every rank agreed on (lens_bench_ncwrite_enabled). */
static void sink_open(struct sink *s, const struct lens_bench_opts *o, const struct lens_bench_ctx *c,
                      char **hosts, int pnc)
{
    struct lens_err e;
    size_t P = (size_t)c->procs, n = (size_t)o->repeats;
    memset(s, 0, sizeof *s);
    s->pnc = pnc;
    if (lens_cube_new(&s->meta, c->procs, o->nlen, o->begin, o->step, 0, &e) != LENS_OK)
        sink_fail(s, &e);
    s->meta->end = o->end; /* network_test2's end_mes_length: exclusive, as given */
    s->meta->mode = o->mode;
    s->meta->repeats = o->repeats;
    s->meta->noise_len = o->noise_len;
    s->meta->noise_msgs = o->noise_msgs;
    s->meta->noise_procs = o->noise_procs;
    s->meta->hosts = hosts; /* the cube owns them from here */
    if (!s->pnc)
        gather_alloc(s, o, c, P, n);
    char mpiv[256], warm[32], rounds[32], seed[32];
    lens_bench_job_mpi_version(mpiv, sizeof mpiv);
    struct lens_bench_job_prov prov;
    lens_bench_job_provenance(&prov);
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
        /* provenance for the report's page one (job.h): written before the first length */
        "measured_at", prov.measured_at,
        "launcher", prov.launcher,
        "binding", prov.binding,
        "cores_per_host", prov.cores_per_host,
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
    /* PnetCDF path: the serial writer has written and synced the headers, so the layout is the
     * gather path's by construction; closing with no record leaves valid files of 0 lengths. */
    if (pnc) {
        int rc = lens_cube_writer_close(s->w, &e);
        s->w = NULL;
        if (rc != LENS_OK)
            lens_bench_fatal(&e);
    }
}

/* PnetCDF path: every rank agrees on a failure (ncwrite.c), and rank 0 alone reports it and
 * ends the job, so the message appears once; the others wait for the abort. */
static void pnc_fail(const struct lens_bench_ctx *c, const struct lens_err *e) __attribute__((noreturn));
static void pnc_fail(const struct lens_bench_ctx *c, const struct lens_err *e)
{
    if (c->rank != 0)
        MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 0 aborts the job */
    lens_bench_fatal(e);
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
    int rc = s->w ? lens_cube_writer_close(s->w, &e) : LENS_OK;
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

/* ---- --retest: the worst and the flagged cells of every length, measured again alone ---- */

/* One retest of the plan: length index k, cell (i, j), the sweep's median and its z; role
 * says why it is in the plan (ROLE_*), again and zagain are filled by the retest. */
enum { ROLE_WORST, ROLE_FLAGGED, ROLE_CONTROL };
struct retest {
    int k, i, j, role;
    double first, z, again, zagain;
};

/* The plan, built length by length during the sweep (rank 0 holds it): per length the K worst
 * cells and every flagged one (retest.h), then the control. med and sig keep each length's
 * yardstick, so the retest is judged against the same typical delay as the sweep. */
struct plan {
    struct retest *v;
    int n, cap;
    double *med, *sig; /* nlen each */
};

static void plan_oom(int P)
{
    struct lens_err e;
    lens_err_set(&e, LENS_ENOMEM, "out of memory for the retest plan (%d ranks)", P);
    lens_bench_fatal(&e);
}

static void plan_push(struct plan *pl, struct retest r, int P)
{
    if (pl->n == pl->cap) {
        int cap = 2 * pl->cap + 8;
        struct retest *np = lens_realloc(pl->v, (size_t)cap * sizeof *np);
        if (!np)
            plan_oom(P);
        pl->v = np;
        pl->cap = cap;
    }
    pl->v[pl->n++] = r;
}

/* Gather path, rank 0: length k's plan from its whole P x P median matrix m. */
static void plan_full(struct plan *pl, const struct lens_bench_opts *o, int P, int k, const double *m)
{
    size_t PP = (size_t)P * P;
    double *work = lens_malloc(2 * PP * sizeof(double)), *z = lens_malloc(PP * sizeof(double));
    int *cells = lens_malloc(PP * sizeof(int));
    if (!work || !z || !cells)
        plan_oom(P);
    lens_bench_retest_robust(m, P, work, &pl->med[k], &pl->sig[k]);
    int got = lens_bench_retest_pick(m, P, o->retest, LENS_BENCH_RETEST_ZMIN, work, cells, z);
    int ctl = lens_bench_retest_control(m, P, pl->med[k], cells, got);
    for (int t = 0; t < got; t++)
        plan_push(pl, (struct retest){k, cells[t] / P, cells[t] % P,
                                      z[t] >= LENS_BENCH_RETEST_ZMIN ? ROLE_FLAGGED : ROLE_WORST,
                                      m[cells[t]], z[t], NAN, NAN}, P);
    /* the control goes last in its length: every retest of the length is judged by it */
    if (ctl >= 0)
        plan_push(pl, (struct retest){k, ctl / P, ctl % P, ROLE_CONTROL, m[ctl],
                                      lens_bench_retest_z(m[ctl], pl->med[k], pl->sig[k]), NAN, NAN}, P);
    lens_free(work);
    lens_free(z);
    lens_free(cells);
}

static void sum_all(void *arg, long long *counts, int n)
{
    (void)arg;
    MPI_Allreduce(MPI_IN_PLACE, counts, n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* PnetCDF path, collective: length k's plan from the ranks' rows of medians (c->row[1]), the
 * same plan as plan_full on the whole matrix (retest.h). Per rank O(P) doubles; rank 0 holds
 * at most K candidates a rank plus the flagged cells, which the plan keeps anyway. */
static void plan_rows(struct plan *pl, const struct lens_bench_ctx *c, int k)
{
    int P = c->procs, K = c->o->retest, me = c->rank;
    const double *row = c->row[1];
    double *lv = lens_malloc((size_t)P * sizeof(double)), *t = lens_malloc(3 * (size_t)P * sizeof(double));
    int *counts = me == 0 ? lens_malloc((size_t)P * sizeof(int)) : NULL;
    int *displs = me == 0 ? lens_malloc((size_t)P * sizeof(int)) : NULL;
    if (!lv || !t || (me == 0 && (!counts || !displs)))
        plan_oom(P);
    /* this rank's cells: x is the column, or the row when transposed; cell index i * P + j */
#define CELL(x) (c->transposed ? (x) * P + me : me * P + (x))
    size_t n = 0;
    for (int x = 0; x < P; x++)
        if (x != me && isfinite(row[x]) && row[x] > 0)
            lv[n++] = log(row[x]);
    long long total = (long long)n;
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    double med = NAN, sig = NAN;
    if (total > 0) {
        /* lens_anomaly_robust's steps on the union of the rows: median, deviations, MAD */
        med = lens_bench_retest_median(lv, n, total, sum_all, NULL);
        for (size_t i = 0; i < n; i++)
            lv[i] = fabs(lv[i] - med);
        double mad = lens_bench_retest_median(lv, n, total, sum_all, NULL);
        sig = 1.4826 * (mad > LENS_BENCH_RETEST_MAD_FLOOR ? mad : LENS_BENCH_RETEST_MAD_FLOOR);
    }
    if (me == 0) {
        pl->med[k] = med;
        pl->sig[k] = sig;
    }
    if (total == 0) { /* no valid cell anywhere: no pick and no control, as plan_full */
        lens_free(lv), lens_free(t), lens_free(counts), lens_free(displs);
        return;
    }
    /* local candidates (z, cell, value), then rank 0 takes the top of their union */
    size_t nt = 0;
    for (int x = 0; x < P; x++) {
        double z = x != me ? lens_bench_retest_z(row[x], med, sig) : NAN;
        if (isnan(z))
            continue;
        t[3 * nt] = z;
        t[3 * nt + 1] = CELL(x);
        t[3 * nt + 2] = row[x];
        nt++;
    }
    int mine = 3 * lens_bench_retest_top(t, nt, K, LENS_BENCH_RETEST_ZMIN), all = 0;
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    double *u = NULL;
    for (int r = 0; me == 0 && r < P; r++) {
        displs[r] = all;
        all += counts[r];
    }
    if (me == 0 && !(u = lens_malloc(((size_t)all + 1) * sizeof(double))))
        plan_oom(P);
    MPI_Gatherv(t, mine, MPI_DOUBLE, u, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int got = me == 0 ? lens_bench_retest_top(u, (size_t)all / 3, K, LENS_BENCH_RETEST_ZMIN) : 0;
    for (int q = 0; me == 0 && q < got; q++) {
        int cell = (int)u[3 * q + 1];
        plan_push(pl, (struct retest){k, cell / P, cell % P,
                                      u[3 * q] >= LENS_BENCH_RETEST_ZMIN ? ROLE_FLAGGED : ROLE_WORST,
                                      u[3 * q + 2], u[3 * q], NAN, NAN}, P);
    }
    /* every rank learns the picks (sorted, for bsearch), so its control candidate skips them */
    MPI_Bcast(&got, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int *picked = lens_malloc(((size_t)got + 1) * sizeof(int));
    if (!picked)
        plan_oom(P);
    for (int q = 0; me == 0 && q < got; q++)
        picked[q] = (int)u[3 * q + 1];
    MPI_Bcast(picked, got, MPI_INT, 0, MPI_COMM_WORLD);
    qsort(picked, (size_t)got, sizeof *picked, cmp_int);
    /* the control: nearest the median, ties to the lowest cell, as lens_bench_retest_control's
     * scan; MINLOC keeps the smallest index among equal distances */
    struct { double d; int cell; } best = {INFINITY, INT_MAX}, win;
    for (int x = 0; x < P; x++) {
        int cell = CELL(x);
        if (x == me || !isfinite(row[x]) || row[x] <= 0 || bsearch(&cell, picked, (size_t)got, sizeof *picked, cmp_int))
            continue;
        if (fabs(log(row[x]) - med) < best.d)
            best.d = fabs(log(row[x]) - med), best.cell = cell;
    }
#undef CELL
    MPI_Allreduce(&best, &win, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    if (win.d < INFINITY) {
        /* the owner of the control cell sends its value: its row, or its column if transposed */
        int owner = c->transposed ? win.cell % P : win.cell / P;
        double v = me == owner ? row[c->transposed ? win.cell / P : win.cell % P] : 0;
        MPI_Bcast(&v, 1, MPI_DOUBLE, owner, MPI_COMM_WORLD);
        if (me == 0)
            plan_push(pl, (struct retest){k, win.cell / P, win.cell % P, ROLE_CONTROL, v,
                                          lens_bench_retest_z(v, med, sig), NAN, NAN}, P);
    }
    lens_free(picked);
    lens_free(u);
    lens_free(lv);
    lens_free(t);
    lens_free(counts);
    lens_free(displs);
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

/* After the sweep (the cube files are closed and complete): every rank learns rank 0's plan,
 * and each cell is measured alone in turn. The plan travels as ints (k, i, j) so every rank
 * walks the same list; only rank 0 keeps the values. */
static void retest_run(const struct lens_bench_opts *o, struct lens_bench_ctx *c, struct plan *pl)
{
    int n = c->rank == 0 ? pl->n : 0;
    struct retest *plan = pl->v;
    struct lens_err e;
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
        double ref = u < n && plan[u].k == k && plan[u].again > 0 ? log(plan[u].again) : pl->med[k];
        plan[t].zagain = lens_bench_retest_z(plan[t].again, ref, pl->sig[k]);
    }
    if (c->rank == 0)
        retest_write(o, plan, n);
    lens_free(ijk);
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
    int pnc = lens_bench_ncwrite_enabled(); /* collective: every rank takes the same path */
    double *pack = pnc ? NULL : lens_malloc(4 * P * sizeof(double)); /* this rank's four rows, one gather message */
    if (!pnc && !pack) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory");
        lens_bench_fatal(&e);
    }
    struct sink s;
    memset(&s, 0, sizeof s);
    struct plan pl = {NULL, 0, 0, NULL, NULL};
    if (c.rank == 0) {
        sink_open(&s, o, &c, hosts, pnc);
        pl.med = lens_malloc((size_t)o->nlen * sizeof(double));
        pl.sig = lens_malloc((size_t)o->nlen * sizeof(double));
        if (!pl.med || !pl.sig) {
            lens_err_set(&e, LENS_ENOMEM, "out of memory for the retest plan");
            sink_fail(&s, &e);
        }
    }
    if (pnc) {
        /* the files exist once rank 0 passes this barrier: no rank opens them before */
        MPI_Barrier(MPI_COMM_WORLD);
        s.pnc = 1;
        if (lens_bench_ncwrite_open(&s.pw, o->prefix, o->raw, &e) != LENS_OK)
            pnc_fail(&c, &e);
    }
    /* MPI_Wtime, not the system clock: it is what the kernels time with, and it is monotonic. */
    double start = MPI_Wtime();
    long grow = 0; /* --timing: this rank's largest output-step growth of its peak, kB */
    for (int k = 0; k < o->nlen; k++) {
        int len = o->begin + k * o->step;
        double t0 = MPI_Wtime();
        lens_bench_mode_run(&c, len);
        if (o->timing)
            /* the last pair done: the gather waits for no one */
            lens_bench_job_barrier(c.oversubscribed);
        double t1 = MPI_Wtime();
        /* --timing: what the output step adds to this rank's peak, the part of the memory
         * that grows with P^2 on a gathering rank 0 and only with P when every rank writes */
        long hw0 = o->timing ? lens_bench_estimate_peak_kb() : -1;
        if (!pnc) {
            /* Packing the four rows into one buffer makes one MPI_Gather per length, not four. */
            for (int st = 0; st < 4; st++)
                memcpy(pack + (size_t)st * P, c.row[st], P * sizeof(double));
            MPI_Gather(pack, (int)(4 * P), MPI_DOUBLE, c.rank == 0 ? s.gath : NULL, (int)(4 * P),
                       MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (o->raw)
                /* --raw: P x repeats per rank */
                MPI_Gather(c.rawrow, (int)(P * n), MPI_DOUBLE, c.rank == 0 ? s.rawg : NULL, (int)(P * n),
                           MPI_DOUBLE, 0, MPI_COMM_WORLD);
        }
        double t2 = MPI_Wtime();
        /* PnetCDF: every rank writes its rows and syncs (collective), and plans its retests;
         * gather: rank 0 alone writes, while the others go on to the next length, whose first
         * barrier makes them wait for it (unless --timing's reduction below waits first). */
        if (pnc && lens_bench_ncwrite_put(s.pw, k, &c, &e) != LENS_OK)
            pnc_fail(&c, &e);
        if (pnc && o->retest > 0)
            plan_rows(&pl, &c, k);
        if (!pnc && c.rank == 0) {
            sink_put(&s, &c, k);
            if (o->retest > 0)
                plan_full(&pl, o, c.procs, k, s.mats[1]);
        }
        long rss = -1, grow_all = -1;
        if (o->timing) {
            long hw1 = lens_bench_estimate_peak_kb(), mine = c.rank != 0 ? hw1 : -1;
            if (hw0 >= 0 && hw1 >= 0 && hw1 - hw0 > grow)
                grow = hw1 - hw0;
            /* the largest of the other ranks, and the largest growth of all ranks */
            MPI_Reduce(&mine, &rss, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&grow, &grow_all, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        }
        if (c.rank != 0)
            continue;
        double t3 = MPI_Wtime();
        if (o->die_after == k + 1)
            raise(SIGKILL); /* testing: an interrupted run, with k + 1 lengths on disk */
        if (fn) {
            double el = t3 - start; /* seconds since the sweep began, writes included */
            struct lens_bench_progress p = {k + 1, o->nlen, len, (k + 1) * c.pairs,
                                            (long)o->nlen * c.pairs, el, el / (k + 1) * (o->nlen - k - 1),
                                            t1 - t0, t2 - t1, t3 - t2, o->timing ? lens_bench_estimate_peak_kb() : -1, rss,
                                            grow_all};
            fn(arg, &p);
        }
    }
    if (pnc && lens_bench_ncwrite_close(s.pw, &e) != LENS_OK)
        pnc_fail(&c, &e);
    if (c.rank == 0)
        sink_close(&s);
    /* after the close: a failure during the retests (MPI_Abort) leaves the cube complete */
    if (o->retest > 0)
        retest_run(o, &c, &pl);
    lens_free(pl.v);
    lens_free(pl.med);
    lens_free(pl.sig);
    lens_free(pack);
    lens_bench_ctx_release(&c);
}
