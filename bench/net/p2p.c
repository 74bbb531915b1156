/* The point-to-point sweep (see p2p.h). Rank A of each pair times, rank B answers; the raw
 * times go to rank 0, which computes the statistics and writes the files (p2p_out.c). */
#include "p2p.h"
#include "common/time.h"
#include "common/units.h"

#include "fatal.h"
#include "job.h"
#include "p2p_out.h"
#include "stats.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Tags apart from the all-pairs modes' (11-15), and one per phase, so a late message of one
 * phase can never complete a receive of the next. */
enum { TAG_LAT = 21, TAG_BW = 22, TAG_ACK = 23, TAG_SYNC = 24, TAG_RESULT = 25 };

int lens_bench_p2p_exists(const char *prefix) { return lens_bench_p2p_out_exists(prefix); }

void lens_bench_p2p_iters(int n, int s, int *lat, int *bw, int *batch)
{
    /* OSU: latency 10000 / 1000 round trips, bandwidth 100 / 20 windows; ours scale with n
     * (n = 1000: n iterations of c = 10 round trips up to 8 KiB, n of 1 above). */
    int small = s <= LENS_BENCH_P2P_LARGE;
    *lat = n;
    *bw = small ? (n / 10 > 10 ? n / 10 : 10) : (n / 50 > 5 ? n / 50 : 5);
    *batch = small ? LENS_BENCH_P2P_BATCH : 1;
}

/* Warm-up scales with the iteration count (a tenth, as OSU's skip), unless --warmup fixes it. */
static int warmup_of(const struct lens_bench_opts *o, int iters)
{
    if (o->warmup_set)
        return o->warmup;
    return iters / 10 > 2 ? iters / 10 : 2;
}

/* Both ranks of the pair leave this together, so the timed loop starts in step. */
/* An exchange of empty messages, not a barrier: only the two ranks of the pair take part, so
 * the other ranks stay asleep and the timed loop starts with both partners ready. */
static void pair_sync(int peer)
{
    MPI_Sendrecv(NULL, 0, MPI_BYTE, peer, TAG_SYNC, NULL, 0, MPI_BYTE, peer, TAG_SYNC,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* Ping-pong of s bytes both ways; an iteration is c round trips, A keeps each one's time
 * in t[0..iters). */
static void latency(int am_a, int peer, char *sbuf, char *rbuf, int s, int c, int warm, int iters,
                    double *t)
{
    if (!am_a) { /* B only echoes: it times nothing */
        for (int r = 0; r < warm * c; r++) {
            MPI_Recv(rbuf, s, MPI_BYTE, peer, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, s, MPI_BYTE, peer, TAG_LAT, MPI_COMM_WORLD);
        }
        pair_sync(peer);
        for (int r = 0; r < iters * c; r++) {
            MPI_Recv(rbuf, s, MPI_BYTE, peer, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, s, MPI_BYTE, peer, TAG_LAT, MPI_COMM_WORLD);
        }
        return;
    }
    /* Warm-up round trips first: connection set-up, queue allocation and cache misses of the
     * first messages stay out of the timed iterations. */
    for (int r = 0; r < warm * c; r++) {
        MPI_Send(sbuf, s, MPI_BYTE, peer, TAG_LAT, MPI_COMM_WORLD);
        MPI_Recv(rbuf, s, MPI_BYTE, peer, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    pair_sync(peer);
    /* One clock read per iteration: consecutive differences sum to the total, as OSU's
     * single start/stop pair does, and the read costs under 1% of c round trips. */
    double prev = MPI_Wtime();
    for (int r = 0; r < iters; r++) {
        for (int x = 0; x < c; x++) {
            MPI_Send(sbuf, s, MPI_BYTE, peer, TAG_LAT, MPI_COMM_WORLD);
            MPI_Recv(rbuf, s, MPI_BYTE, peer, TAG_LAT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        double now = MPI_Wtime();
        t[r] = now - prev;
        prev = now;
    }
}

/* One bandwidth iteration: A sends a window of k messages, B answers with an empty one.
 * Like OSU, B receives every message of the window into the same buffer. */
/* The reply closes the window: A's clock stops only when B has every message, so T is the time
 * to deliver k messages, not to hand them to the library. */
static void window_once(int am_a, int peer, char *sbuf, char *rbuf, int s, MPI_Request *req)
{
    int k = LENS_BENCH_P2P_WINDOW;
    if (am_a) {
        for (int w = 0; w < k; w++)
            /* all k in flight at once */
            MPI_Isend(sbuf, s, MPI_BYTE, peer, TAG_BW, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        MPI_Recv(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (int w = 0; w < k; w++)
            /* posted at once: no unexpected queue */
            MPI_Irecv(rbuf, s, MPI_BYTE, peer, TAG_BW, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
        MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
    }
}

/* Windows back to back with one clock read between them, as the latency loop: the time of each
 * window is kept, so the median can set aside windows hit by a preemption. */
static void bandwidth(int am_a, int peer, char *sbuf, char *rbuf, int s, int warm, int iters, double *t)
{
    MPI_Request req[LENS_BENCH_P2P_WINDOW]; /* k requests on the stack: k is a small constant */
    for (int r = 0; r < warm; r++)
        window_once(am_a, peer, sbuf, rbuf, s, req);
    pair_sync(peer);
    double prev = MPI_Wtime();
    for (int r = 0; r < iters; r++) {
        window_once(am_a, peer, sbuf, rbuf, s, req);
        double now = MPI_Wtime();
        t[r] = now - prev;
        prev = now;
    }
}

/* The pairs to measure, identical on every rank. */
/* The plan is computed from the gathered host names on every rank alike, so all ranks agree on
 * which pairs run and in which order without a message. */
struct plan {
    int n;
    int *pa, *pb;         /* n pairs (owned) */
    const char **kind;    /* n static strings */
    char note[256];       /* "one node: no inter-node pair" and the like */
};

static void plan_pairs(struct plan *pl, const struct lens_bench_opts *o, char **hosts, int P)
{
    struct lens_err e;
    memset(pl, 0, sizeof *pl);
    /* one intra pair plus at most one per node pair */
    int cap = o->pairs_per_node ? 1 + P * (P - 1) / 2 : 1;
    pl->pa = lens_malloc((size_t)cap * sizeof(int));
    pl->pb = lens_malloc((size_t)cap * sizeof(int));
    pl->kind = lens_malloc((size_t)cap * sizeof(char *));
    int *first = lens_malloc((size_t)P * sizeof(int)), *second = lens_malloc((size_t)P * sizeof(int));
    if (!pl->pa || !pl->pb || !pl->kind || !first || !second) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for the pair plan");
        lens_bench_fatal(&e);
    }
    if (!o->pairs_per_node) {
        pl->pa[0] = o->pair_a;
        pl->pb[0] = o->pair_b;
        pl->kind[0] = strcmp(hosts[o->pair_a], hosts[o->pair_b]) ? "inter" : "intra";
        pl->n = 1;
    } else {
        /* Nodes in order of their first rank; each node's first two ranks. */
        /* A node is a distinct host name; its first two ranks are its representatives, so the pairs
         * across nodes use the same rank of each node and the intra pair stays within one node. */
        int nodes = 0;
        for (int r = 0; r < P; r++) {
            int u = 0;
            while (u < nodes && strcmp(hosts[first[u]], hosts[r]))
                u++;
            if (u == nodes) {
                first[nodes] = r;
                second[nodes++] = -1;
            } else if (second[u] < 0) {
                second[u] = r;
            }
        }
        /* The intra-node pair comes from the first node with two ranks: one such pair is enough to
         * compare with the inter-node pairs (docs/methods.md section 5.1). */
        int intra = -1;
        for (int u = 0; u < nodes && intra < 0; u++)
            if (second[u] >= 0)
                intra = u;
        if (intra >= 0) {
            pl->pa[pl->n] = first[intra];
            pl->pb[pl->n] = second[intra];
            pl->kind[pl->n++] = "intra";
        }
        for (int u = 0; u < nodes; u++)
            for (int v = u + 1; v < nodes; v++) {
                pl->pa[pl->n] = first[u];
                pl->pb[pl->n] = first[v];
                pl->kind[pl->n++] = "inter";
            }
        if (nodes == 1)
            snprintf(pl->note, sizeof pl->note, "all %d ranks run on one node (%s): there is no "
                     "second node, so no inter-node pair", P, hosts[0]);
        else if (intra < 0)
            snprintf(pl->note, sizeof pl->note, "no node runs two ranks: no intra-node pair");
    }
    lens_free(first);
    lens_free(second);
}

/* A page-aligned view of a buffer of n bytes, as OSU's posix_memalign gives: the copy of a
 * large message then starts on a page boundary on both sides. *base is what to free. */
static char *page_alloc(size_t n, char **base)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t a = pg > 0 ? (size_t)pg : 4096;
    *base = lens_malloc(n + a);
    if (!*base)
        return NULL;
    /* round up: the page size is a power of two */
    return (char *)(((uintptr_t)*base + a - 1) & ~(uintptr_t)(a - 1));
}

/* Every rank needs every host name (to plan the pairs), so an allgather, unlike the cube's
 * gather to rank 0; one block of fixed-size names and an array of pointers into it. */
static char **all_hosts(int P)
{
    char name[MPI_MAX_PROCESSOR_NAME];
    int len = 0;
    memset(name, 0, sizeof name);
    MPI_Get_processor_name(name, &len);
    char *all = lens_malloc((size_t)P * MPI_MAX_PROCESSOR_NAME);
    char **h = lens_calloc((size_t)P, sizeof *h);
    struct lens_err e;
    if (!all || !h) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for %d host names", P);
        lens_bench_fatal(&e);
    }
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    for (int i = 0; i < P; i++) {
        /* a full-length name has no terminator */
        all[(size_t)(i + 1) * MPI_MAX_PROCESSOR_NAME - 1] = '\0';
        h[i] = all + (size_t)i * MPI_MAX_PROCESSOR_NAME;
    }
    return h; /* h[0] is the block: free h[0] then h */
}

/* The format attribute lets the compiler check every say_line call's arguments. */
static void say_line(lens_bench_say_fn say, void *arg, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say_line(lens_bench_say_fn say, void *arg, const char *fmt, ...)
{
    if (!say)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    say(arg, buf);
}

void lens_bench_p2p_run(const struct lens_bench_opts *o, lens_bench_say_fn say, void *arg)
{
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    struct lens_err e;
    char **hosts = all_hosts(P); /* every rank: the plan is computed everywhere */
    int over = lens_bench_job_oversubscribed(); /* ranks not measuring then sleep as they wait */
    struct plan pl;
    plan_pairs(&pl, o, hosts, P);

    /* Sizes 0, 1, 2, 4, ... up to 4 MiB, or below -e. */
    /* -e is exclusive as in the cube: the largest size is below it, and never above 4 MiB. */
    int top = o->end_set && o->end - 1 < LENS_BENCH_P2P_MAX ? o->end - 1 : LENS_BENCH_P2P_MAX;
    /* 0 and 23 powers of two up to 4 MiB fit in 32 */
    int sizes[32], ns = 0, n = o->repeats_set ? o->repeats : LENS_BENCH_P2P_ITERS;
    sizes[ns++] = 0;
    for (int s = 1; s <= top; s *= 2)
        sizes[ns++] = s;
    int max_lat, max_bw, c0; /* the small sizes' counts are the largest */
    lens_bench_p2p_iters(n, 0, &max_lat, &max_bw, &c0); /* size 0 has the most iterations */

    /* Only ranks in a pair need message buffers; the others only wait, so on many ranks only
     * the few in a pair allocate the two buffers of up to 4 MiB. */
    int mine = 0;
    for (int p = 0; p < pl.n; p++)
        mine |= pl.pa[p] == rank || pl.pb[p] == rank;
    size_t blen = (size_t)(top > 0 ? top : 1);
    char *sbase = NULL, *rbase = NULL;
    char *sbuf = mine ? page_alloc(blen, &sbase) : NULL, *rbuf = mine ? page_alloc(blen, &rbase) : NULL;
    double *tl = lens_malloc((size_t)ns * max_lat * sizeof(double));
    double *tb = lens_malloc((size_t)ns * max_bw * sizeof(double));
    double *scratch = lens_malloc((size_t)(max_lat > max_bw ? max_lat : max_bw) * sizeof(double));
    if ((mine && (!sbuf || !rbuf)) || !tl || !tb || !scratch) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for %zu-byte message buffers", blen);
        lens_bench_fatal(&e);
    }
    if (mine) {
        memset(sbuf, 0xa5, blen); /* touched before timing */
        memset(rbuf, 0x5a, blen);
    }
    struct lens_bench_p2p_out out;
    memset(&out, 0, sizeof out);
    if (rank == 0) {
        if (lens_bench_p2p_out_init(&out, pl.n, ns, max_lat, max_bw, &e) != LENS_OK)
            lens_bench_fatal(&e);
        out.window = LENS_BENCH_P2P_WINDOW;
        memcpy(out.sizes, sizes, (size_t)ns * sizeof(int)); /* every rank computed the same sizes */
        for (int k = 0; k < ns; k++) {
            int li, bi;
            lens_bench_p2p_iters(n, sizes[k], &li, &bi, &out.batch[k]);
        }
        for (int p = 0; p < pl.n; p++) {
            if (lens_bench_p2p_out_set_pair(&out, p, pl.pa[p], pl.pb[p], hosts[pl.pa[p]], hosts[pl.pb[p]],
                                      pl.kind[p], &e) != LENS_OK)
                lens_bench_fatal(&e);
            for (int k = 0; k < ns; k++)
                lens_bench_p2p_iters(n, sizes[k], &out.lat_iters[p * ns + k], &out.bw_iters[p * ns + k], &c0);
        }
        if (pl.note[0]) /* say why a pair kind is missing, not just omit it */
            say_line(say, arg, "%s", pl.note);
    }
    /* Pairs run one after the other, never together: each measures an idle machine, and a barrier
     * after every pair keeps the next one from starting while rank 0 still collects. */
    double start = MPI_Wtime();
    for (int p = 0; p < pl.n; p++) {
        int a = pl.pa[p], b = pl.pb[p];
        if (rank == a || rank == b) {
            int am_a = rank == a, peer = am_a ? b : a;
            for (int k = 0; k < ns; k++) {
                int li, bi, c;
                /* the same counts rank 0 allocated for */
                lens_bench_p2p_iters(n, sizes[k], &li, &bi, &c);
                /* As OSU: the size's bytes written again just before it is timed, so every
                 * size starts from buffers in this core's cache, whatever ran before. */
                memset(sbuf, 'a', (size_t)sizes[k]);
                memset(rbuf, 'b', (size_t)sizes[k]);
                latency(am_a, peer, sbuf, rbuf, sizes[k], c, warmup_of(o, li), li, tl + (size_t)k * max_lat);
                bandwidth(am_a, peer, sbuf, rbuf, sizes[k], warmup_of(o, bi), bi, tb + (size_t)k * max_bw);
            }
        }
        /* The times travel to rank 0 whole; it keeps the first iters of each size. */
        if (rank == a && a != 0) { /* rank A holds the times; rank 0 keeps its own */
            MPI_Send(tl, ns * max_lat, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
            MPI_Send(tb, ns * max_bw, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
        }
        if (rank == 0) {
            if (a != 0) {
                MPI_Request rq[2];
                MPI_Irecv(tl, ns * max_lat, MPI_DOUBLE, a, TAG_RESULT, MPI_COMM_WORLD, &rq[0]);
                MPI_Irecv(tb, ns * max_bw, MPI_DOUBLE, a, TAG_RESULT, MPI_COMM_WORLD, &rq[1]);
                lens_bench_job_wait(&rq[0], over); /* rank 0 may share a core with the pair */
                lens_bench_job_wait(&rq[1], over);
            }
            for (int k = 0; k < ns; k++) {
                size_t q = (size_t)p * ns + k;
                memcpy(out.lat_raw + q * max_lat, tl + (size_t)k * max_lat, (size_t)out.lat_iters[q] * sizeof(double));
                memcpy(out.bw_raw + q * max_bw, tb + (size_t)k * max_bw, (size_t)out.bw_iters[q] * sizeof(double));
            }
            /* Headline figures for the log: medians, robust to preemption stalls. */
            struct lens_bench_stats s0, s1;
            size_t q0 = (size_t)p * ns, q1 = (size_t)p * ns + (size_t)(ns - 1);
            /* size 0: the latency headline */
            lens_bench_stats_compute(out.lat_raw + q0 * max_lat, (size_t)out.lat_iters[q0], scratch, &s0);
            /* the largest size: the bandwidth headline */
            lens_bench_stats_compute(out.bw_raw + q1 * max_bw, (size_t)out.bw_iters[q1], scratch, &s1);
            /* the latency in the reports' voice (common/units.h): "226.0 ns", "1.934 µs" */
            char lat[48];
            lens_units_time(s0.median / (2.0 * out.batch[0]), lat, sizeof lat);
            say_line(say, arg, "p2p pair %d (%s, ranks %d,%d, %s - %s): latency %s at 0 B, "
                     "bandwidth %.4g MB/s at %d B (medians), %.1f s", p, pl.kind[p], a, b, hosts[a],
                     hosts[b], lat, (double)LENS_BENCH_P2P_WINDOW * sizes[ns - 1] / s1.median / 1e6,
                     sizes[ns - 1], MPI_Wtime() - start);
        }
        lens_bench_job_barrier(over); /* the next pair starts on a quiet machine */
    }
    if (rank == 0) {
        char mpiv[256], date[64], wnd[32];
        lens_bench_job_mpi_version(mpiv, sizeof mpiv);
        lens_time_format_date(lens_time_source_date(), date, sizeof date);
        snprintf(wnd, sizeof wnd, "%d", LENS_BENCH_P2P_WINDOW);
        const char *attrs[] = {
            "mpilens_version", LENS_VERSION,
            "tool", "mpilens-bench -t p2p",
            "mpi_library_version", mpiv,
            "date", date,
            "command_line", o->cmdline,
            "latency_definition", "ping-pong with the same size both ways; an iteration is c = "
                                  "round_trips_per_iter round trips taking T (lat_iter_time), "
                                  "latency = T / 2c; the mean is over every round trip",
            "bandwidth_definition", "window of k messages of s bytes (MPI_Isend, MPI_Waitall), then "
                                    "an empty reply; bandwidth = k*s / T, message rate = k / T for "
                                    "the window time T; mean = k*s*c / sum T",
            NULL, NULL};
        if (lens_bench_p2p_out_write(&out, o->prefix, attrs, &e) != LENS_OK)
            lens_bench_fatal(&e);
        say_line(say, arg, "wrote %s_p2p.csv and %s_p2p.nc (%d pair%s, %d sizes)", o->prefix,
                 o->prefix, pl.n, pl.n == 1 ? "" : "s", ns);
        lens_bench_p2p_out_release(&out);
    }
    lens_free(sbase);
    lens_free(rbase);
    lens_free(tl);
    lens_free(tb);
    lens_free(scratch);
    lens_free(pl.pa);
    lens_free(pl.pb);
    lens_free(pl.kind);
    lens_free(hosts[0]); /* the block of names, then the pointers */
    lens_free(hosts);
}
