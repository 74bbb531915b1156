/* The all-pairs modes (see mode.h). Pair modes measure one pair at a time: a token passed
 * from the leader of one pair to the ranks of the next keeps measurements from overlapping
 * without a barrier of all P ranks per pair. The delay each mode stores is defined in
 * lens_bench_mode_definition() and written into every file. */
#include "mode.h"

#include "job.h"
#include "stats.h"
#include "analysis/cube/cube.h"

#include <stdint.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One tag per kind of message: a token of the pair order (GO, DONE) can never be taken for a
 * measured message (DATA, PING) of a pair that shares a rank, since MPI matches on the tag. */
enum { TAG_DATA = 11, TAG_PING = 12, TAG_GO = 13, TAG_DONE = 14, TAG_NOISE = 15 };

const char *lens_bench_mode_definition(int mode)
{
    switch (mode) {
    case LENS_MODE_ONE_TO_ONE:
        return "one-way delay of an l-byte blocking MPI_Send from column j to row i: i sends an "
               "empty token to j and times until j's l-byte message has arrived, minus half the "
               "smallest round trip seen between i and j (empty ones interleaved with the repeats, "
               "and the repeats themselves); "
               "row = receiver (the rank that measured), column = sender";
    case LENS_MODE_NOISE_BLOCKING:
        return "one_to_one's one-way delay (column j sends l bytes to row i, i measures) while "
               "-p other ranks, in pairs, exchange -m blocking messages (MPI_Sendrecv) of -l "
               "bytes per repeat; row = receiver, column = sender";
    case LENS_MODE_SEND_RECV_AND_RECV_SEND:
        return "half the round trip of an l-byte message sent by row i (MPI_Send then MPI_Recv) "
               "and sent back by column j; average, median, deviation and min are all of the half "
               "round trip; row = the rank that started it, column = its partner";
    case LENS_MODE_ASYNC_ONE_TO_ONE:
        return "time for row i to complete an MPI_Isend and an MPI_Irecv of l bytes with column j "
               "while j does the same (both directions at once), measured on both ranks; row = the "
               "rank that measured, column = its partner";
    case LENS_MODE_NOISE:
        return "async_one_to_one's delay (simultaneous MPI_Isend/MPI_Irecv of l bytes, row i "
               "measured) while -p other ranks, in pairs, exchange -m nonblocking messages of -l "
               "bytes per repeat; row = the rank that measured, column = its partner";
    case LENS_MODE_ALL_TO_ALL:
        return "time from a common start (after a barrier) until row i has received column j's "
               "l-byte message while every rank sends to and receives from every other at once "
               "(MPI_Isend/MPI_Irecv); row = receiver, column = sender";
    case LENS_MODE_BCAST:
        return "time of an l-byte MPI_Bcast from root i as seen by rank j, from the end of a "
               "barrier until MPI_Bcast returned on j; row = root, column = receiver";
    case LENS_MODE_PUT:
        return "time of MPI_Win_lock (exclusive), an l-byte MPI_Put and MPI_Win_unlock on row i "
               "into column j's window (passive target, completion included); row = origin, "
               "column = target";
    case LENS_MODE_GET:
        return "time of MPI_Win_lock (shared), an l-byte MPI_Get and MPI_Win_unlock on row i from "
               "column j's window (passive target, completion included); row = origin, column = "
               "target";
    default:
        return "unknown mode";
    }
}

/* The properties every schedule and the buffers of ctx.c decide by: one place, so a new mode
 * cannot be symmetric for the kernels and not for the pair count. */
int lens_bench_mode_symmetric(int mode) { return mode == LENS_MODE_ASYNC_ONE_TO_ONE || mode == LENS_MODE_NOISE; }
int lens_bench_mode_noisy(int mode) { return mode == LENS_MODE_NOISE || mode == LENS_MODE_NOISE_BLOCKING; }
int lens_bench_mode_rma(int mode) { return mode == LENS_MODE_PUT || mode == LENS_MODE_GET; }

/* Stores the statistics of x[0..n-1] as cell x of this rank's row (and the raw samples). */
/* All four statistics come from the same samples x, so the four files describe one delay. */
static void store_cell(struct lens_bench_ctx *c, int cell, double *x)
{
    size_t n = (size_t)c->o->repeats;
    /* The test hook: after timing, so the injected seconds never change what runs on the wire
     * and a test knows exactly how much slower the cell must come out. */
    if (c->rank == c->inject_row && cell == c->inject_col && !c->transposed)
        for (size_t r = 0; r < n; r++)
            x[r] += c->inject_s;
    struct lens_bench_stats st;
    lens_bench_stats_compute(x, n, c->scratch, &st);
    c->row[0][cell] = st.average;
    c->row[1][cell] = st.median;
    c->row[2][cell] = st.deviation;
    c->row[3][cell] = st.min;
    if (c->rawrow)
        memcpy(c->rawrow + (size_t)cell * n, x, n * sizeof *x);
}

/* ---- the timed kernels: warm-up repeats first, then the timed ones, one sample each ---- */

/* one_to_one, noise_blocking: row i (receiver) measures the message from column j. The
 * receiver cannot see when the sender started, so each repeat is an empty round trip (i to j
 * and back) followed by i's empty token and j's l-byte answer; the delay is the token-and-
 * answer time minus the token's cost, taken as half the smallest round trip seen between the
 * two (empty ones and the repeats themselves). Stalls only lengthen a round trip, so the
 * smallest is the cleanest; interleaving keeps calibration and repeats under the same
 * conditions, and including the repeats keeps every delay positive even when an
 * oversubscribed node makes all empty round trips slow. */
static void kernel_one_to_one(struct lens_bench_ctx *c, int i, int j, int len)
{
    int w = c->o->warmup, n = c->o->repeats;
    double *x = c->samples, zmin = HUGE_VAL; /* zmin: smallest round trip seen, seconds */
    if (c->rank == j) { /* the sender: answers the probe, then the token with the message */
        for (int r = 0; r < w + n; r++) {
            MPI_Recv(NULL, 0, MPI_BYTE, i, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, i, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, i, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, len, MPI_BYTE, i, TAG_DATA, MPI_COMM_WORLD);
        }
        return;
    }
    /* The warm-up repeats run the same exchange untimed: the first messages between two ranks
     * set up the connection (and shared-memory queues) and must not count. */
    for (int r = 0; r < w + n; r++) {
        double t0 = MPI_Wtime();
        MPI_Send(NULL, 0, MPI_BYTE, j, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, j, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t1 = MPI_Wtime();
        MPI_Send(NULL, 0, MPI_BYTE, j, TAG_PING, MPI_COMM_WORLD);
        MPI_Recv(c->rbuf, len, MPI_BYTE, j, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t2 = MPI_Wtime();
        zmin = t1 - t0 < zmin ? t1 - t0 : zmin; /* the warm-up's round trips calibrate too */
        if (r >= w)
            x[r - w] = t2 - t1;
    }
    /* A repeat's own token-and-answer time is a round trip too (with l bytes one way), so it
     * bounds the token's cost as well; without it the subtraction below could go negative. */
    for (int r = 0; r < n; r++)
        zmin = x[r] < zmin ? x[r] : zmin;
    for (int r = 0; r < n; r++)
        x[r] -= 0.5 * zmin;
    store_cell(c, j, x);
}

/* send_recv_and_recv_send: row i sends, column j sends back; half the round trip. */
static void kernel_send_recv(struct lens_bench_ctx *c, int i, int j, int len)
{
    int w = c->o->warmup, n = c->o->repeats;
    double *x = c->samples;
    if (c->rank == j) {
        for (int r = 0; r < w + n; r++) {
            MPI_Recv(c->rbuf, len, MPI_BYTE, i, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(c->sbuf, len, MPI_BYTE, i, TAG_DATA, MPI_COMM_WORLD);
        }
        return;
    }
    for (int r = 0; r < w + n; r++) {
        double t0 = MPI_Wtime();
        MPI_Send(c->sbuf, len, MPI_BYTE, j, TAG_DATA, MPI_COMM_WORLD);
        MPI_Recv(c->rbuf, len, MPI_BYTE, j, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double t1 = MPI_Wtime();
        if (r >= w)
            x[r - w] = 0.5 * (t1 - t0); /* both directions carry l bytes: half is the one-way delay */
    }
    store_cell(c, j, x);
}

/* async_one_to_one, noise: both ranks exchange at once and both measure. */
/* The receive is posted before the send, so the partner's message never waits in an unexpected
 * queue and the exchange costs what the network costs. */
static void kernel_async(struct lens_bench_ctx *c, int other, int len)
{
    int w = c->o->warmup, n = c->o->repeats;
    double *x = c->samples;
    for (int r = 0; r < w + n; r++) {
        double t0 = MPI_Wtime();
        MPI_Irecv(c->rbuf, len, MPI_BYTE, other, TAG_DATA, MPI_COMM_WORLD, &c->req[0]);
        MPI_Isend(c->sbuf, len, MPI_BYTE, other, TAG_DATA, MPI_COMM_WORLD, &c->req[1]);
        MPI_Waitall(2, c->req, MPI_STATUSES_IGNORE);
        double t1 = MPI_Wtime();
        if (r >= w)
            x[r - w] = t1 - t0;
    }
    store_cell(c, other, x);
}

/* put, get: row i (origin) measures; the target takes no part (passive target). */
/* Lock, transfer and unlock are timed together: the unlock is where a passive-target transfer
 * is known to be complete, so timing MPI_Put alone would time only its start. */
static void kernel_rma(struct lens_bench_ctx *c, int target, int len)
{
    int w = c->o->warmup, n = c->o->repeats, put = c->o->mode == LENS_MODE_PUT;
    double *x = c->samples;
    for (int r = 0; r < w + n; r++) {
        double t0 = MPI_Wtime();
        /* put writes: exclusive, as network_test2 */
        MPI_Win_lock(put ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, target, 0, c->win);
        if (put)
            MPI_Put(c->sbuf, len, MPI_BYTE, target, 0, len, MPI_BYTE, c->win);
        else
            MPI_Get(c->rbuf, len, MPI_BYTE, target, 0, len, MPI_BYTE, c->win);
        MPI_Win_unlock(target, c->win);
        double t1 = MPI_Wtime();
        if (r >= w)
            x[r - w] = t1 - t0;
    }
    store_cell(c, target, x);
}

/* A noise process: one burst of -m messages with its noise partner per repeat. */
/* The noise repeats as many times as the pair measures (warm-up included), so the noise is on
 * for the whole measurement and ends with it; the pair's leader waits for its DONE. */
static void kernel_noise(struct lens_bench_ctx *c, int partner)
{
    const struct lens_bench_opts *o = c->o;
    int m = o->noise_msgs, L = o->noise_len;
    for (int r = 0; r < o->warmup + o->repeats; r++) {
        if (o->mode == LENS_MODE_NOISE_BLOCKING) {
            for (int k = 0; k < m; k++)
                MPI_Sendrecv(c->nsbuf, L, MPI_BYTE, partner, TAG_NOISE, c->nrbuf, L, MPI_BYTE,
                             partner, TAG_NOISE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            continue;
        }
        for (int k = 0; k < m; k++)
            MPI_Irecv(c->nrbuf, L, MPI_BYTE, partner, TAG_NOISE, MPI_COMM_WORLD, &c->req[k]);
        for (int k = 0; k < m; k++)
            MPI_Isend(c->nsbuf, L, MPI_BYTE, partner, TAG_NOISE, MPI_COMM_WORLD, &c->req[m + k]);
        MPI_Waitall(2 * m, c->req, MPI_STATUSES_IGNORE);
    }
}

/* ---- pair modes: one pair at a time, in a fixed order every rank computes ---- */

/* The order is network_test2's: row by row, columns ascending, skipping the diagonal; symmetric
 * modes take each unordered pair once (i < j), as one exchange measures both cells. */
static int next_pair(const struct lens_bench_ctx *c, int *i, int *j)
{
    int P = c->procs;
    if (lens_bench_mode_symmetric(c->o->mode)) {
        if (++*j >= P) {
            ++*i;
            *j = *i + 1;
        }
        return *j < P;
    }
    if (++*j == *i)
        ++*j;
    if (*j >= P) {
        ++*i;
        *j = *i == 0 ? 1 : 0;
    }
    return *i < P;
}

/* The ranks taking part in pair (i, j): the leader i first, then j (not for put/get, whose
 * target is passive), then the noise processes, which pair up as (2, 3), (4, 5), ... */
/* The noise ranks are the next ones after j (mod P), so the noise moves around the machine with
 * the pair instead of always loading ranks 2 and 3. */
static int participants(const struct lens_bench_ctx *c, int i, int j, int *list)
{
    int n = 0, P = c->procs;
    list[n++] = i;
    if (!lens_bench_mode_rma(c->o->mode))
        list[n++] = j;
    if (lens_bench_mode_noisy(c->o->mode)) {
        int want = c->o->noise_procs & ~1; /* noise ranks work in pairs: an even count */
        for (int t = 1; t < P && want > 0; t++) {
            int q = (j + t) % P;
            if (q != i && q != j) {
                list[n++] = q;
                want--;
            }
        }
    }
    return n;
}

/* at is this rank's place in the participant list: 0 the leader i, 1 its partner j, 2 and above
 * the noise ranks, paired as neighbours (2 with 3, 4 with 5: (at - 2) ^ 1). */
static void measure_pair(struct lens_bench_ctx *c, const int *list, int at, int i, int j, int len)
{
    int mode = c->o->mode;
    if (at >= 2) {
        kernel_noise(c, list[2 + ((at - 2) ^ 1)]);
    } else if (lens_bench_mode_rma(mode)) {
        kernel_rma(c, j, len);
    } else if (lens_bench_mode_symmetric(mode)) {
        kernel_async(c, at == 0 ? j : i, len);
    } else if (mode == LENS_MODE_SEND_RECV_AND_RECV_SEND) {
        kernel_send_recv(c, i, j, len);
    } else {
        kernel_one_to_one(c, i, j, len);
    }
}

/* Every rank walks the same pair sequence but acts only on the pairs it belongs to. The leader
 * of a pair collects DONE from its participants and then hands GO to the next pair's ranks, so
 * two pairs never overlap and ranks outside both pairs stay idle (sleeping when oversubscribed). */
/* cells (i * P + j, ncells of them) replaces network_test2's order with a given list: the
 * calibration of --estimate walks a few cells with the same hand-over (estimate_run.c). */
static void run_pairs(struct lens_bench_ctx *c, int len, const int *cells, int ncells)
{
    int me = c->rank, P = c->procs;
    int *cur = c->iw, *nxt = c->iw + P; /* this pair's and the next pair's ranks */
    if (cells && ncells < 1)
        return;
    int i = cells ? cells[0] / P : 0, j = cells ? cells[0] % P : 1, at_cell = 0;
    int ncur = participants(c, i, j, cur), prev_lead = -1, more = 1;
    while (more) {
        int ni = i, nj = j, nnext = 0;
        /* look ahead: the leader hands GO to the next pair */
        if (cells) {
            more = ++at_cell < ncells;
            if (more) {
                ni = cells[at_cell] / P;
                nj = cells[at_cell] % P;
            }
        } else {
            more = next_pair(c, &ni, &nj);
        }
        if (more)
            nnext = participants(c, ni, nj, nxt);
        int at = -1;
        for (int k = 0; k < ncur && at < 0; k++)
            if (cur[k] == me)
                at = k;
        if (at >= 0) {
            /* Start when the previous pair's leader says it has finished. */
            if (prev_lead >= 0 && prev_lead != me) { /* the first pair starts at once */
                MPI_Request rq;
                MPI_Irecv(NULL, 0, MPI_BYTE, prev_lead, TAG_GO, MPI_COMM_WORLD, &rq);
                lens_bench_job_wait(&rq, c->oversubscribed);
            }
            measure_pair(c, cur, at, i, j, len);
            if (at > 0) {
                /* tell the leader this rank is done */
                MPI_Send(NULL, 0, MPI_BYTE, cur[0], TAG_DONE, MPI_COMM_WORLD);
            } else {
                for (int k = 1; k < ncur; k++)
                    MPI_Recv(NULL, 0, MPI_BYTE, cur[k], TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                for (int k = 0; k < nnext; k++)
                    if (nxt[k] != me)
                        MPI_Send(NULL, 0, MPI_BYTE, nxt[k], TAG_GO, MPI_COMM_WORLD);
            }
        }
        prev_lead = cur[0];
        int *t = cur;
        cur = nxt;
        nxt = t;
        ncur = nnext;
        i = ni;
        j = nj;
    }
}

/* ---- the parallel schedule: the disjoint pairs of a round-robin round at once ---- */

/* Both ranks of a pair leave this together, so neither direction's first repeat overlaps
 * the other's last; sleeping waits, because the other pairs of the round need the cores. */
static void pair_sync(struct lens_bench_ctx *c, int peer)
{
    MPI_Request rq[2];
    MPI_Irecv(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(NULL, 0, MPI_BYTE, peer, TAG_GO, MPI_COMM_WORLD, &rq[1]);
    lens_bench_job_wait(&rq[0], c->oversubscribed);
    lens_bench_job_wait(&rq[1], c->oversubscribed);
}

/* Measures both ordered pairs of {me, peer}: the lower rank measures first (cell (lo, hi)),
 * then the higher (cell (hi, lo)), with the same kernels and roles as the serial order, so a
 * cell means the same under either schedule. A symmetric mode measures both in one exchange. */
static void measure_both(struct lens_bench_ctx *c, int peer, int len)
{
    int me = c->rank, mode = c->o->mode;
    int lo = me < peer ? me : peer, hi = me < peer ? peer : me;
    if (lens_bench_mode_symmetric(mode)) {
        pair_sync(c, peer);
        kernel_async(c, peer, len);
        return;
    }
    for (int d = 0; d < 2; d++) {
        int i = d == 0 ? lo : hi, j = d == 0 ? hi : lo; /* i measures, j is its partner */
        pair_sync(c, peer);
        if (lens_bench_mode_rma(mode)) {
            if (me == i) /* passive target: j only waits for the next pair_sync */
                kernel_rma(c, j, len);
        } else if (mode == LENS_MODE_SEND_RECV_AND_RECV_SEND) {
            kernel_send_recv(c, i, j, len);
        } else {
            kernel_one_to_one(c, i, j, len);
        }
    }
}

/* One round: every rank measures with its partner of the round (or sits out its bye); a
 * barrier closes it so that the pairs running side by side are exactly the round's, as the
 * file's `rounds` attribute says. */
void lens_bench_mode_round(struct lens_bench_ctx *c, int r, int len)
{
    lens_bench_schedule_round(&c->sched, r, c->partner);
    int peer = c->partner[c->rank];
    if (peer >= 0)
        measure_both(c, peer, len);
    lens_bench_job_barrier(c->oversubscribed);
}

/* One length under --schedule parallel: the rounds in the schedule's order. */
static void run_rounds(struct lens_bench_ctx *c, int len)
{
    for (int r = 0; r < c->sched.rounds; r++)
        lens_bench_mode_round(c, r, len);
}

/* ---- collective modes ---- */

/* The barrier gives every rank the same start, so the time until each message arrives is
 * comparable across senders; P - 1 receives and sends are in flight at once, as network_test2. */
static void run_all_to_all(struct lens_bench_ctx *c, int len)
{
    int P = c->procs, me = c->rank, w = c->o->warmup, n = c->o->repeats;
    size_t blen = c->maxlen > 0 ? (size_t)c->maxlen : 1;
    MPI_Request *rq = c->req, *sq = c->req + P;
    for (int r = 0; r < w + n; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        /* Staggered partners: rank i first sends to i+1, so no rank is everyone's first. */
        for (int d = 1; d < P; d++) {
            int src = (me - d + P) % P;
            MPI_Irecv(c->a2a + (size_t)src * blen, len, MPI_BYTE, src, TAG_DATA, MPI_COMM_WORLD, &rq[d - 1]);
        }
        for (int d = 1; d < P; d++)
            MPI_Isend(c->sbuf, len, MPI_BYTE, (me + d) % P, TAG_DATA, MPI_COMM_WORLD, &sq[d - 1]);
        for (int got = 0; got < P - 1; got++) {
            int idx;
            MPI_Waitany(P - 1, rq, &idx, MPI_STATUS_IGNORE); /* each arrival timed as it completes */
            double t = MPI_Wtime() - t0;
            int src = (me - (idx + 1) + P) % P; /* request idx was posted for distance idx + 1 */
            if (r >= w)
                c->samples[(size_t)src * n + (r - w)] = t;
        }
        MPI_Waitall(P - 1, sq, MPI_STATUSES_IGNORE); /* sends complete before the buffer is reused */
    }
    for (int src = 0; src < P; src++)
        if (src != me)
            store_cell(c, src, c->samples + (size_t)src * n);
}

/* One root after the other, a barrier before every repeat, so no broadcast overlaps the next:
 * each rank's time is from the barrier's end to its own MPI_Bcast return. The cells are per
 * receiver, so the row this rank holds is a column of the file (c->transposed). */
static void run_bcast(struct lens_bench_ctx *c, int len)
{
    int P = c->procs, me = c->rank, w = c->o->warmup, n = c->o->repeats;
    for (int root = 0; root < P; root++) {
        char *buf = root == me ? c->sbuf : c->rbuf; /* the root sends from its own buffer */
        for (int r = 0; r < w + n; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            MPI_Bcast(buf, len, MPI_BYTE, root, MPI_COMM_WORLD);
            double t1 = MPI_Wtime();
            if (r >= w)
                c->samples[r - w] = t1 - t0;
        }
        if (root != me) /* the root's own time is not a delay: the diagonal stays 0 */
            store_cell(c, root, c->samples);
    }
}

/* The row starts at 0 each length, so the diagonal and the cells other ranks measure are 0 in
 * this rank's gathered row, never a previous length's value. */
void lens_bench_mode_run(struct lens_bench_ctx *c, int len)
{
    size_t P = (size_t)c->procs;
    for (int s = 0; s < 4; s++)
        memset(c->row[s], 0, P * sizeof(double));
    if (c->rawrow)
        memset(c->rawrow, 0, P * (size_t)c->o->repeats * sizeof(double));
    lens_bench_job_barrier(c->oversubscribed); /* every rank finished the previous length */
    switch (c->o->mode) {
    case LENS_MODE_ALL_TO_ALL: run_all_to_all(c, len); break;
    case LENS_MODE_BCAST: run_bcast(c, len); break;
    default:
        if (c->o->schedule == LENS_BENCH_SCHEDULE_PARALLEL)
            run_rounds(c, len);
        else
            run_pairs(c, len, NULL, 0);
        break;
    }
}

void lens_bench_mode_pairs(struct lens_bench_ctx *c, int len, const int *cells, int ncells)
{
    run_pairs(c, len, cells, ncells);
}

/* Cell (i, j) alone: the serial schedule's pair, every other rank waiting. The row is cleared
 * first so the value sent is this measurement's; row i holds cell (i, j) in every pair mode
 * (the measuring rank, or the origin of put and get). */
double lens_bench_mode_cell(struct lens_bench_ctx *c, int len, int i, int j)
{
    size_t P = (size_t)c->procs;
    for (int s = 0; s < 4; s++)
        memset(c->row[s], 0, P * sizeof(double));
    lens_bench_job_barrier(c->oversubscribed); /* nobody else is on the wire */
    int n = participants(c, i, j, c->iw), at = -1;
    for (int k = 0; k < n && at < 0; k++)
        if (c->iw[k] == c->rank)
            at = k;
    if (at >= 0)
        measure_pair(c, c->iw, at, i, j, len);
    double v = c->row[1][j]; /* the median, as the retest file compares medians */
    if (i != 0 && c->rank == i)
        MPI_Send(&v, 1, MPI_DOUBLE, 0, TAG_DONE, MPI_COMM_WORLD);
    if (i != 0 && c->rank == 0) {
        MPI_Request rq;
        MPI_Irecv(&v, 1, MPI_DOUBLE, i, TAG_DONE, MPI_COMM_WORLD, &rq);
        lens_bench_job_wait(&rq, c->oversubscribed);
    }
    return c->rank == 0 ? v : 0.0;
}
