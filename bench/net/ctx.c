/* The all-pairs state of one rank (see ctx.h): every buffer a mode may touch is allocated
 * here, once, and written before the first timed repeat. */
#include "ctx.h"

#include "job.h"
#include "mode.h"
#include "retest.h"
#include "analysis/cube/cube.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The test hook MPILENS_BENCH_INJECT="SENDER,RECEIVER,SECONDS": every rank reads the same
 * environment (mpirun forwards it), so all agree on the cell without a message. Sender and
 * receiver become row and column by the mode's sender_index (retest.h). */
static int read_inject(struct lens_bench_ctx *c, struct lens_err *e)
{
    c->inject_row = c->inject_col = -1;
    const char *v = getenv("MPILENS_BENCH_INJECT");
    if (!v || !*v)
        return LENS_OK;
    int snd, rcv, used = 0;
    double sec;
    if (sscanf(v, "%d,%d,%lf%n", &snd, &rcv, &sec, &used) != 3 || v[used] || snd < 0 || rcv < 0 ||
        snd >= c->procs || rcv >= c->procs || snd == rcv || !isfinite(sec) || sec < 0)
        return lens_err_set(e, LENS_EUSAGE, "MPILENS_BENCH_INJECT='%s': want SENDER,RECEIVER,SECONDS "
                            "with two different ranks below %d and seconds >= 0", v, c->procs);
    int recv_row = lens_bench_retest_row_is_receiver(c->o->mode);
    c->inject_row = recv_row ? rcv : snd;
    c->inject_col = recv_row ? snd : rcv;
    c->inject_s = sec;
    return LENS_OK;
}

int lens_bench_ctx_init(struct lens_bench_ctx *c, const struct lens_bench_opts *o, struct lens_err *e)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    /* Release tests the window against MPI_WIN_NULL, so a failure before it exists is safe. */
    c->win = MPI_WIN_NULL;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->procs);
    size_t P = (size_t)c->procs;
    c->maxlen = o->begin + (o->nlen - 1) * o->step; /* the last length of the sweep, below end */
    size_t blen = c->maxlen > 0 ? (size_t)c->maxlen : 1; /* a 0-byte sweep still gets a valid pointer */
    size_t nlen = o->noise_len > 0 ? (size_t)o->noise_len : 1;
    size_t n = (size_t)o->repeats;
    /* all_to_all: P - 1 receives and sends; noise: m of each */
    size_t nreq = 2 * (P > (size_t)o->noise_msgs ? P : (size_t)o->noise_msgs);
    int mode = o->mode;
    if (read_inject(c, e) != LENS_OK)
        return e->code;
    c->sbuf = lens_malloc(blen);
    c->rbuf = lens_malloc(blen);
    /* all_to_all times P cells at once; every other mode one cell (bcast: one root) at a
     * time, so n samples: at 10^6 ranks P x n would be 800 MB per rank (docs/bench.md). The
     * sort of store_cell always takes one cell's n. */
    c->samples = lens_malloc((mode == LENS_MODE_ALL_TO_ALL ? P : 1) * n * sizeof(double));
    c->scratch = lens_malloc(n * sizeof(double));
    c->req = lens_malloc(nreq * sizeof(MPI_Request));
    c->iw = lens_malloc(2 * P * sizeof(int));
    for (int s = 0; s < 4; s++)
        c->row[s] = lens_calloc(P, sizeof(double));
    if (o->raw)
        c->rawrow = lens_calloc(P * (size_t)o->repeats, sizeof(double));
    if (mode == LENS_MODE_ALL_TO_ALL)
        c->a2a = lens_malloc(P * blen);
    /* Every rank builds the same tournament from the same options: no message needed. */
    int sched_rc = LENS_OK;
    if (o->schedule == LENS_BENCH_SCHEDULE_PARALLEL) {
        sched_rc = lens_bench_schedule_init(&c->sched, c->procs, o->shuffle, o->seed, e);
        c->partner = lens_malloc(P * sizeof(int));
    }
    if (lens_bench_mode_noisy(mode)) {
        c->nsbuf = lens_malloc(nlen);
        c->nrbuf = lens_malloc(nlen);
    }
    /* Every allocation is tried before any is checked, so one test covers them all and release
     * frees whatever did succeed (lens_free(NULL) is a no-op). */
    int bad = !c->sbuf || !c->rbuf || !c->samples || !c->scratch || !c->req || !c->iw ||
              !c->row[0] || !c->row[1] || !c->row[2] || !c->row[3] || (o->raw && !c->rawrow) ||
              (mode == LENS_MODE_ALL_TO_ALL && !c->a2a) || (lens_bench_mode_noisy(mode) && (!c->nsbuf || !c->nrbuf)) ||
              sched_rc != LENS_OK || (o->schedule == LENS_BENCH_SCHEDULE_PARALLEL && !c->partner);
    if (bad) {
        lens_bench_ctx_release(c);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for the message buffers (%zu bytes, %zu "
                            "processes)", blen, P);
    }
    /* Touch every page before timing, so no first-touch page fault lands in a measurement. */
    memset(c->sbuf, 0xa5, blen);
    memset(c->rbuf, 0x5a, blen);
    if (c->a2a)
        memset(c->a2a, 0x3c, P * blen);
    if (c->nsbuf) {
        memset(c->nsbuf, 0xc3, nlen);
        memset(c->nrbuf, 0x96, nlen);
    }
    c->transposed = mode == LENS_MODE_BCAST; /* bcast cells are per receiver: rows are roots */
    c->oversubscribed = lens_bench_job_oversubscribed();
    long pp = (long)P * (long)(P - 1);
    /* one exchange gives two cells; bcast counts roots */
    c->pairs = lens_bench_mode_symmetric(mode) ? pp / 2 : mode == LENS_MODE_BCAST ? (long)P : pp;
    /* char *base = NULL;
     * The window is collective and created last: every rank reaches it, so an allocation failure
     * above on one rank cannot leave the others blocked in MPI_Win_allocate while it aborts. */
    if (lens_bench_mode_rma(mode)) {
        char *base = NULL;
        MPI_Win_allocate((MPI_Aint)blen, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &c->win);
        memset(base, 0x69, blen); /* touched like the other buffers */
    }
    return LENS_OK;
}

void lens_bench_ctx_release(struct lens_bench_ctx *c)
{
    /* MPI_Win_free is collective: every rank frees its window here, at the same point of the run. */
    if (c->win != MPI_WIN_NULL)
        MPI_Win_free(&c->win);
    lens_free(c->sbuf);
    lens_free(c->rbuf);
    lens_free(c->a2a);
    lens_free(c->nsbuf);
    lens_free(c->nrbuf);
    lens_free(c->req);
    lens_free(c->iw);
    lens_free(c->samples);
    lens_free(c->scratch);
    for (int s = 0; s < 4; s++)
        lens_free(c->row[s]);
    lens_free(c->rawrow);
    lens_free(c->partner);
    lens_bench_schedule_release(&c->sched);
    memset(c, 0, sizeof *c); /* a second release is harmless */
    c->win = MPI_WIN_NULL;
}
