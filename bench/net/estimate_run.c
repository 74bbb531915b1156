/* The calibration of --estimate (see estimate.h): a few cells measured alone and a few
 * parallel rounds, at the first and the last length of the sweep, with the run's own
 * kernels, warm-up and repeats, so the model multiplies real costs of this machine. */
#include "estimate.h"

#include "ctx.h"
#include "fatal.h"
#include "job.h"
#include "mode.h"
#include "ncwrite.h"
#include "retest.h"
#include "analysis/cube/cube.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "A few": enough to average out one unlucky pair, few enough that calibrating 10^4 ranks
 * costs seconds. */
enum { CAL_CELLS = 3, CAL_ROUNDS = 3 };

/* Median of n <= CAL_ROUNDS values (insertion sort: n is tiny); n >= 1. */
static double median_small(double *v, int n)
{
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && v[b] < v[b - 1]; b--) {
            double t = v[b];
            v[b] = v[b - 1];
            v[b - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The gather path's scratch cube is at most Q x Q matrices of one length (2 MB of four
 * statistics at 256, 13 MB of raw repeats at 128 with 100 repeats); beyond it the step is
 * scaled by (P / Q)^2, the bytes a length has to write. */
enum { CAL_OUT_RANKS = 256, CAL_OUT_RAW_RANKS = 128 };

/* Lengths written to the scratch cube; the median of their steps is the price (as for rounds). */
enum { CAL_OUT_LENGTHS = 3 };

/* Rank 0: a private scratch folder beside the output (or in TMPDIR when that folder does not
 * exist yet, as with --estimate-only) into scratch; 0 if none can be made. */
static int scratch_dir(const char *out_prefix, char *scratch, size_t n)
{
    char dir[4096];
    const char *slash = strrchr(out_prefix, '/');
    if (slash && slash > out_prefix && (size_t)(slash - out_prefix) < sizeof dir)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - out_prefix), out_prefix);
    else
        snprintf(dir, sizeof dir, "%s", slash ? "/" : ".");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s", t && *t && strlen(t) < sizeof dir ? t : "/tmp");
    }
    return (size_t)snprintf(scratch, n, "%s/.mpilens-estimate-XXXXXX", dir) < n && mkdtemp(scratch);
}

/* Collective: seconds for the output step of one length on the path the run takes, on a
 * scratch cube removed again: with PnetCDF every rank writes its rows of a P x P cube and
 * syncs (ncwrite.c, rank 0 having created the files with the serial writer, as the run
 * does); when gathering, rank 0 writes and syncs the matrices with the run's writer. 0 on
 * every rank if the scratch cannot be written: the run will say why, and the estimate then
 * leaves the output out. The same on every rank. */
static double price_output(const struct lens_bench_opts *o, const struct lens_bench_ctx *c)
{
    int P = c->procs, pnc = lens_bench_ncwrite_enabled(); /* collective */
    int cap = o->raw ? CAL_OUT_RAW_RANKS : CAL_OUT_RANKS, Q = pnc || P < cap ? P : cap;
    size_t QQ = (size_t)Q * Q, n = o->raw ? (size_t)o->repeats : 0;
    char scratch[4096 + 32], prefix[4096 + 64];
    double secs = 0, *m = NULL, *raw = NULL;
    struct lens_cube *meta = NULL;
    struct lens_cube_writer *w = NULL;
    struct lens_err e;
    int ok = 0, made = c->rank == 0 && scratch_dir(o->prefix, scratch, sizeof scratch);
    if (made) {
        snprintf(prefix, sizeof prefix, "%s/network", scratch);
        m = pnc ? NULL : lens_calloc(QQ, sizeof(double));
        raw = n && !pnc ? lens_calloc(QQ * n, sizeof(double)) : NULL;
        ok = (pnc || (m && (!n || raw))) && lens_cube_new(&meta, Q, o->nlen, o->begin, o->step, 0, &e) == LENS_OK;
        if (ok) {
            const double *mats[4] = {m, m, m, m};
            double t[CAL_OUT_LENGTHS];
            int nt = 0;
            /* open and close happen once in a run: only the steps every length pays are
             * timed, a few of them, and the median kept, so one preempted sync (a shared
             * node stalls for milliseconds) does not set the price of every length */
            ok = lens_cube_writer_open(&w, meta, prefix, 0xf, (int)n, NULL, 1, &e) == LENS_OK;
            for (int k = 0; ok && !pnc && k < CAL_OUT_LENGTHS && k < o->nlen; k++) {
                double t0 = MPI_Wtime();
                ok = lens_cube_writer_put(w, k, mats, raw, &e) == LENS_OK;
                t[nt++] = MPI_Wtime() - t0;
            }
            secs = nt ? median_small(t, nt) : 0;
            if (w)
                ok = lens_cube_writer_close(w, &e) == LENS_OK && ok;
        }
        if (!ok)
            secs = 0;
    }
    if (pnc) {
        /* every rank opens what rank 0 created: the path, and whether it exists */
        MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (ok) {
            MPI_Bcast(prefix, (int)sizeof prefix, MPI_CHAR, 0, MPI_COMM_WORLD);
            struct lens_bench_ncwrite *pw = NULL;
            if (lens_bench_ncwrite_open(&pw, prefix, o->raw, &e) == LENS_OK) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t[CAL_OUT_LENGTHS];
                int nt = 0;
                ok = 1;
                for (int k = 0; ok && k < CAL_OUT_LENGTHS && k < o->nlen; k++) {
                    double t0 = MPI_Wtime();
                    ok = lens_bench_ncwrite_put(pw, k, c, &e) == LENS_OK; /* collective: same status */
                    t[nt++] = MPI_Wtime() - t0;
                }
                secs = median_small(t, nt); /* rank 0's is the one broadcast */
                (void)lens_bench_ncwrite_close(pw, &e);
            } else
                ok = 0;
            if (!ok)
                secs = 0;
        }
    }
    if (made) {
        static const char *const suffix[] = {"_average.nc", "_median.nc", "_deviation.nc", "_min.nc",
                                             "_all.nc", "_hosts.txt"};
        for (size_t f = 0; f < sizeof suffix / sizeof *suffix; f++) {
            char path[4096 + 96];
            snprintf(path, sizeof path, "%s%s", prefix, suffix[f]);
            (void)unlink(path);
        }
        (void)rmdir(scratch);
    }
    lens_cube_free(meta);
    lens_free(m);
    lens_free(raw);
    return secs * ((double)P / Q) * ((double)P / Q);
}

/* Calibration cell k of P ranks: like the serial order, one leader i = P/3 with consecutive
 * partners, so the hand-over is the run's (the leader keeps going, one new partner wakes);
 * but the partners start half the job away, so that with ranks placed in blocks per node
 * (srun's and mpirun's default) the cells cross nodes as most of a cube's P(P-1) cells do,
 * where the first cells of network_test2's order (0, 1), (0, 2) ... stay in rank 0's node. */
static void cal_cell(int k, int P, int *i, int *j)
{
    *i = P / 3;
    *j = (*i + P / 2 + k) % P;
    if (*j == *i) /* P = 2 and 3 wrap around to the leader: skip it */
        *j = (*j + 1) % P;
}

int lens_bench_estimate_calibrate(const struct lens_bench_opts *o, struct lens_bench_estimate_in *in,
                                  double *seconds, long peak_kb[2], struct lens_err *e)
{
    int m = o->mode;
    if (m == LENS_MODE_ALL_TO_ALL || m == LENS_MODE_BCAST || m == LENS_MODE_P2P || m == LENS_BENCH_MODE_BISECTION)
        return lens_err_set(e, LENS_EUSAGE, "--estimate models the pair schedules; mode %s has none",
                            m == LENS_BENCH_MODE_BISECTION ? "bisection" : lens_cube_mode_name(m));
    struct lens_bench_ctx c;
    /* An allocation that fails on one rank only leaves the others in the calibration's
     * collectives: as in the run, it ends the job (fatal.h) rather than returning. */
    int rc = lens_bench_ctx_init(&c, o, e);
    if (rc != LENS_OK)
        lens_bench_fatal(e);
    /* A serial run has no tournament; the calibration builds one to price the other
     * schedule too (ctx release frees it). Noise modes cannot run in parallel: no rounds. */
    int par = !lens_bench_mode_noisy(m);
    if (par && !c.partner) {
        rc = lens_bench_schedule_init(&c.sched, c.procs, o->shuffle, o->seed, e);
        c.partner = lens_malloc((size_t)c.procs * sizeof(int));
        if (rc == LENS_OK && !c.partner)
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory for the schedule of %d ranks", c.procs);
    }
    if (rc != LENS_OK) {
        lens_bench_ctx_release(&c);
        lens_bench_fatal(e);
    }
    int P = c.procs, last = o->begin + (o->nlen - 1) * o->step;
    int nr = c.sched.rounds < CAL_ROUNDS ? c.sched.rounds : CAL_ROUNDS;
    int cells[CAL_CELLS];
    for (int k = 0; k < CAL_CELLS; k++) {
        int i, j;
        cal_cell(k, P, &i, &j);
        cells[k] = i * P + j;
    }
    double cost[2][2] = {{0, 0}, {0, 0}}; /* [first, last length][pair alone, round] */
    lens_bench_job_barrier(c.oversubscribed);
    double start = MPI_Wtime();
    for (int end = 0; end < 2; end++) {
        int len = end == 0 ? o->begin : last;
        if (end == 1 && o->nlen == 1) { /* one length: both ends are the same measurement */
            cost[1][0] = cost[0][0];
            cost[1][1] = cost[0][1];
            break;
        }
        /* The cells are walked as the serial schedule walks its pairs, token hand-over
         * included, all led by rank P/3: its clock from the start of its first cell to the
         * end of its last is the chain alone (a barrier of P sleeping ranks, 64 here, would
         * outweigh 3 short cells five times). The barrier after it frees the rounds. */
        lens_bench_job_barrier(c.oversubscribed);
        double t0 = MPI_Wtime();
        lens_bench_mode_pairs(&c, len, cells, CAL_CELLS);
        cost[end][0] = (MPI_Wtime() - t0) / CAL_CELLS; /* the leader's is the one kept */
        lens_bench_job_barrier(c.oversubscribed);
        double t1 = MPI_Wtime();
        /* Rounds spread over the tournament: with an odd P the bye moves, and a shuffled
         * schedule plays them in its own order, as the run will. */
        /* Each round ends with a barrier, so rank 0's clock between two round ends is one
         * round; the median of the few keeps one preempted round (a shared node) from
         * setting the price of all P - 1. */
        double rt[CAL_ROUNDS], prev = t1;
        for (int q = 0; par && q < nr; q++) {
            lens_bench_mode_round(&c, (int)((long)q * c.sched.rounds / nr), len);
            double now = MPI_Wtime();
            rt[q] = now - prev;
            prev = now;
        }
        cost[end][1] = par && nr > 0 ? median_small(rt, nr) : 0;
    }
    /* rank 0 sends -1, so the maximum is the other ranks' (send and receive must not alias) */
    long mine = lens_bench_estimate_peak_kb(), sent = c.rank == 0 ? -1 : mine, others = -1;
    MPI_Reduce(&sent, &others, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    /* after the peak is read: the scratch cube's matrices are not the run's memory */
    double out = price_output(o, &c);
    /* The cells' leader's clock prices a pair, rank 0's (between barriers: the job's) a
     * round, the output and the whole; every rank gets the same numbers, so no later
     * decision diverges. */
    double v[6] = {cost[0][0], cost[1][0], cost[0][1], cost[1][1], MPI_Wtime() - start, out};
    MPI_Bcast(v, 2, MPI_DOUBLE, cells[0] / P, MPI_COMM_WORLD);
    MPI_Bcast(v + 2, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    peak_kb[0] = mine;
    peak_kb[1] = others;
    *in = (struct lens_bench_estimate_in){
        .procs = P, .nlen = o->nlen, .measurements = c.pairs,
        /* the retests a parallel run does: this run's K, or the default when pricing the
         * parallel schedule for a serial run (which retests only with --retest K) */
        .retest = o->schedule == LENS_BENCH_SCHEDULE_PARALLEL || o->retest > 0 ? o->retest
                                                                               : LENS_BENCH_RETEST_DEFAULT,
        .pair_first_s = v[0], .pair_last_s = v[1], .round_first_s = v[2], .round_last_s = v[3], .output_s = v[5]};
    *seconds = v[4];
    lens_bench_ctx_release(&c);
    return LENS_OK;
}
