/* The bisection bandwidth test (see bisect_run.h). Every rank computes the round's matching
 * itself (bisection.c), measures its flow, and sends one number to rank 0: the seconds until
 * its partner's window had arrived. Rank 0 derives everything else from those numbers and
 * the matching, so the files' per-round figures and per-flow values agree by construction. */
#include "bisect_run.h"

#include "bisection.h"
#include "fatal.h"
#include "job.h"
#include "analysis/cube/cube.h"
#include "common/atomic.h"
#include "common/time.h"

#include <math.h>
#include <mpi.h>
#include <netcdf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Tags apart from the cube modes' (11-15) and p2p's (21-25). */
enum { TAG_BIS = 31, TAG_WARM = 32 };

/* Host names are fixed-width char rows in the NetCDF file, as p2p_out.c's. */
#define LABEL_LEN 256

/* Rank 0's record of the run: R rounds of P ranks. */
struct bis {
    int P, R, S, k;      /* ranks, rounds, message size (bytes), window (messages) */
    uint64_t seed;
    char **hosts;        /* P names (owned by the caller) */
    int *side, *partner; /* R x P: the matching of each round (bisection.h) */
    double *recv_s;      /* R x P: seconds until rank x had its partner's window, NaN if out */
    int nodes;           /* distinct host names */
    int *node_of;        /* P: index of each rank's node, in order of first appearance */
    /* the provenance lines of the CSV, LENS_BISECTION_PROV_KEYS order (borrowed texts) */
    const char *prov[LENS_BISECTION_NPROV];
};

/* Per round: the aggregate and the slowest flow, from recv_s (the CSV's columns). */
struct round_sum {
    int pairs, out, slow_s, slow_r; /* out: the rank sitting out, -1 if none */
    double bytes, seconds, bps, slow_bps;
};

/* Computed again wherever it is needed (log line, CSV, .nc) from the same recv_s, rather than
 * stored: the three outputs cannot drift apart. */
static void summarize(const struct bis *b, int r, struct round_sum *u)
{
    const int *pa = b->partner + (size_t)r * b->P;
    const double *t = b->recv_s + (size_t)r * b->P;
    double flow = (double)b->S * b->k; /* bytes of one direction's window */
    memset(u, 0, sizeof *u);
    u->out = u->slow_s = u->slow_r = -1;
    u->slow_bps = INFINITY;
    for (int x = 0; x < b->P; x++) {
        if (pa[x] < 0) {
            u->out = x;
            continue;
        }
        u->pairs += x < pa[x]; /* each pair counted once, from its lower rank */
        /* the round lasts until the last window has arrived: the pairs started together */
        if (t[x] > u->seconds)
            u->seconds = t[x];
        double bps = flow / t[x];
        if (bps < u->slow_bps) { /* strict: ties keep the lowest receiving rank */
            u->slow_bps = bps;
            u->slow_s = pa[x];
            u->slow_r = x;
        }
    }
    /* In double: pairs x 2 x 16 MiB x 64 passes 2^31 at 2 pairs; a double holds it exactly
     * up to 2^53 bytes. */
    u->bytes = 2.0 * u->pairs * flow; /* both directions of every pair */
    u->bps = u->bytes / u->seconds;
}

int lens_bench_bisect_run_exists(const char *prefix)
{
    /* Either file counts: a half-deleted result is still one --force must be asked to replace. */
    static const char *const names[] = {"_bisection.csv", "_bisection.nc"};
    for (int i = 0; i < 2; i++) {
        /* PATH_MAX-sized: a longer prefix is not a file this process could open anyway */
        char path[4096];
        struct stat sb;
        if ((size_t)snprintf(path, sizeof path, "%s%s", prefix, names[i]) < sizeof path && stat(path, &sb) == 0)
            return 1;
    }
    return 0;
}

/* The CSV holds exactly the per-round columns of the issue, in that order (docs/bench.md). */
static int write_csv(const struct bis *b, const char *path, struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc != LENS_OK)
        return rc;
    /* How the run was made, as "# key: value" lines ahead of the header (the cube's attribute
     * names; lens_bisection_read takes them, pandas with comment='#' skips them). A value is
     * kept to one line: a newline from the environment would end the comment early. */
    static const char *const keys[] = LENS_BISECTION_PROV_KEYS;
    for (int k = 0; k < LENS_BISECTION_NPROV; k++) {
        fprintf(a.fp, "# %s: ", keys[k]);
        for (const char *v = b->prov[k] ? b->prov[k] : "unknown"; *v; v++)
            fputc(*v == '\n' || *v == '\r' ? ' ' : *v, a.fp);
        fputc('\n', a.fp);
    }
    fprintf(a.fp, "%s\n", LENS_BISECTION_HEADER);
    for (int r = 0; r < b->R; r++) {
        struct round_sum u;
        summarize(b, r, &u);
        /* bytes is an integer below 2^53: %.0f prints it exactly */
        fprintf(a.fp, "%d,%d,%.0f,%.9g,%.9g,%.9g,%d,%d\n", r, u.pairs, u.bytes, u.seconds, u.bps,
                u.slow_bps, u.slow_s, u.slow_r);
    }
    return lens_atomic_commit(&a, e);
}

/* Puts one (round, index) double or int; the helpers keep fill_nc's chains short. */
static int put_d(int id, int v, int r, int x, double val)
{
    size_t idx[2] = {(size_t)r, (size_t)x};
    return nc_put_var1_double(id, v, idx, &val);
}
static int put_i(int id, int v, int r, int x, int val)
{
    size_t idx[2] = {(size_t)r, (size_t)x};
    return nc_put_var1_int(id, v, idx, &val);
}

/* Defines and fills the NetCDF file; returns a NetCDF status (the first failure). */
static int fill_nc(int id, const struct bis *b, const char *const *attrs)
{
    /* F flows per round: one per direction of each pair; an odd P leaves one rank out, so F is
     * the same every round and the flow variables are rectangular. */
    int st, P = b->P, R = b->R, F = 2 * (P / 2), per_node = b->nodes < P;
    int dr, df, dp, dl, dn = -1;
    if ((st = nc_def_dim(id, "round", (size_t)R, &dr)) || (st = nc_def_dim(id, "flow", (size_t)F, &df)) ||
        (st = nc_def_dim(id, "rank", (size_t)P, &dp)) || (st = nc_def_dim(id, "label", LABEL_LEN, &dl)))
        return st;
    /* Per-node variables only when ranks share nodes: with one rank per node they would
     * repeat the per-rank ones. */
    if (per_node && (st = nc_def_dim(id, "node", (size_t)b->nodes, &dn)))
        return st;
    /* per round, the CSV's columns */
    static const char *const rnames[] = {"pairs", "bytes", "seconds", "bandwidth_Bps", "slowest_pair_Bps",
                                         "slowest_sender", "slowest_receiver", "sitting_out"};
    static const nc_type rtypes[] = {NC_INT, NC_DOUBLE, NC_DOUBLE, NC_DOUBLE, NC_DOUBLE, NC_INT, NC_INT, NC_INT};
    int vr[8], vfs, vfr, vft, vfb, vside, vhost, vnn = -1, vno = -1, vnb = -1, vnbps = -1, vnsh = -1;
    for (int i = 0; i < 8; i++)
        if ((st = nc_def_var(id, rnames[i], rtypes[i], 1, &dr, &vr[i])))
            return st;
    int d_rf[2] = {dr, df}, d_rp[2] = {dr, dp}, d_pl[2] = {dp, dl}, d_nl[2] = {dn, dl}, d_rn[2] = {dr, dn};
    if ((st = nc_def_var(id, "flow_sender", NC_INT, 2, d_rf, &vfs)) ||
        (st = nc_def_var(id, "flow_receiver", NC_INT, 2, d_rf, &vfr)) ||
        (st = nc_def_var(id, "flow_seconds", NC_DOUBLE, 2, d_rf, &vft)) ||
        (st = nc_def_var(id, "flow_Bps", NC_DOUBLE, 2, d_rf, &vfb)) ||
        (st = nc_def_var(id, "side", NC_INT, 2, d_rp, &vside)) ||
        (st = nc_def_var(id, "host", NC_CHAR, 2, d_pl, &vhost)))
        return st;
    if (per_node && ((st = nc_def_var(id, "node_name", NC_CHAR, 2, d_nl, &vnn)) ||
                     (st = nc_def_var(id, "node_of_rank", NC_INT, 1, &dp, &vno)) ||
                     (st = nc_def_var(id, "node_bytes", NC_DOUBLE, 2, d_rn, &vnb)) ||
                     (st = nc_def_var(id, "node_Bps", NC_DOUBLE, 2, d_rn, &vnbps)) ||
                     (st = nc_def_var(id, "node_share", NC_DOUBLE, 2, d_rn, &vnsh))))
        return st;
    /* window and size are what turn flow_seconds into flow_Bps: a reader needs no command line */
    int ints[3] = {b->k, b->S, R};
    if ((st = nc_put_att_int(id, NC_GLOBAL, "window", NC_INT, 1, &ints[0])) ||
        (st = nc_put_att_int(id, NC_GLOBAL, "size_bytes", NC_INT, 1, &ints[1])) ||
        (st = nc_put_att_int(id, NC_GLOBAL, "rounds", NC_INT, 1, &ints[2])))
        return st;
    for (size_t i = 0; attrs && attrs[i] && attrs[i + 1]; i += 2)
        if ((st = nc_put_att_text(id, NC_GLOBAL, attrs[i], strlen(attrs[i + 1]), attrs[i + 1])))
            return st;
    if ((st = nc_enddef(id)))
        return st;
    double flow = (double)b->S * b->k;
    for (int r = 0; r < R; r++) {
        struct round_sum u;
        summarize(b, r, &u);
        /* one array in rnames' order: the ints pass through a double exactly (small values) */
        double rv[8] = {u.pairs, u.bytes, u.seconds, u.bps, u.slow_bps, u.slow_s, u.slow_r, u.out};
        for (int i = 0; i < 8; i++) {
            size_t idx = (size_t)r;
            if ((st = rtypes[i] == NC_INT ? nc_put_var1_int(id, vr[i], &idx, &(int){(int)rv[i]})
                                          : nc_put_var1_double(id, vr[i], &idx, &rv[i])))
                return st;
        }
        const int *pa = b->partner + (size_t)r * P;
        const double *t = b->recv_s + (size_t)r * P;
        /* flows by receiving rank, ascending: F of them, since exactly one rank sits out for odd P */
        for (int x = 0, f = 0; x < P; x++) {
            if ((st = put_i(id, vside, r, x, b->side[(size_t)r * P + x])))
                return st;
            if (pa[x] < 0)
                continue;
            if ((st = put_i(id, vfs, r, f, pa[x])) || (st = put_i(id, vfr, r, f, x)) ||
                (st = put_d(id, vft, r, f, t[x])) || (st = put_d(id, vfb, r, f, flow / t[x])))
                return st;
            f++;
        }
        for (int n = 0; per_node && n < b->nodes; n++) {
            /* a node's share: the bytes its ranks received this round, and their flows' rates */
            double nb = 0, nbps = 0;
            for (int x = 0; x < P; x++)
                if (b->node_of[x] == n && pa[x] >= 0) {
                    nb += flow;
                    nbps += flow / t[x];
                }
            if ((st = put_d(id, vnb, r, n, nb)) || (st = put_d(id, vnbps, r, n, nbps)) ||
                (st = put_d(id, vnsh, r, n, nb / u.bytes)))
                return st;
        }
    }
    /* Host names per rank, and per node the name of its first rank (node_of numbers nodes by
     * first appearance, so writing every rank's name there writes the same name again). */
    for (int x = 0; x < P; x++) {
        char buf[LABEL_LEN] = {0}; /* zero-filled, cut to the row */
        snprintf(buf, sizeof buf, "%s", b->hosts[x]);
        size_t start[2] = {(size_t)x, 0}, count[2] = {1, LABEL_LEN};
        if ((st = nc_put_vara_text(id, vhost, start, count, buf)))
            return st;
        if (per_node) {
            size_t idx = (size_t)x;
            if ((st = nc_put_var1_int(id, vno, &idx, &b->node_of[x])))
                return st;
            start[0] = (size_t)b->node_of[x];
            if ((st = nc_put_vara_text(id, vnn, start, count, buf)))
                return st;
        }
    }
    return NC_NOERR;
}

/* Through the atomic writer's temporary, as every mpilens output. */
static int write_nc(const struct bis *b, const char *path, const char *const *attrs, struct lens_err *e)
{
    struct lens_atomic a;
    int rc = lens_atomic_open(&a, path, NULL, e);
    if (rc != LENS_OK)
        return rc;
    /* 64-bit offsets as p2p_out.c: many rounds of many flows can pass classic's 2 GiB */
    int id, st = nc_create(a.tmp, NC_NOCLOBBER | NC_64BIT_OFFSET, &id);
    if (st != NC_NOERR) {
        lens_atomic_abort(&a);
        return lens_err_set(e, LENS_EIO, "%s: cannot create: %s", path, nc_strerror(st));
    }
    st = fill_nc(id, b, attrs);
    int st2 = nc_close(id); /* closed even after a failure; the first error wins */
    if (st == NC_NOERR)
        st = st2;
    if (st != NC_NOERR) {
        lens_atomic_abort(&a);
        return lens_err_set(e, LENS_EIO, "%s: cannot write: %s", path, nc_strerror(st));
    }
    return lens_atomic_commit(&a, e);
}

/* Both files or neither (an atomic group), in the prefix's directory, created if needed. */
static int write_files(const struct bis *b, const char *prefix, const char *const *attrs, struct lens_err *e)
{
    size_t n = strlen(prefix) + sizeof "_bisection.csv";
    char *csv = lens_malloc(n), *nc = lens_malloc(n), *dir = lens_strdup(prefix);
    /* every allocation is tried before any is checked: one test, and lens_free(NULL) is a no-op */
    int rc = csv && nc && dir ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
    if (rc == LENS_OK) {
        snprintf(csv, n, "%s_bisection.csv", prefix);
        snprintf(nc, n, "%s_bisection.nc", prefix);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = '\0';
            rc = lens_atomic_mkdir_p(dir, e);
        }
    }
    lens_atomic_group_begin();
    if (rc == LENS_OK)
        rc = write_csv(b, csv, e);
    if (rc == LENS_OK)
        rc = write_nc(b, nc, attrs, e);
    if (rc == LENS_OK)
        rc = lens_atomic_group_commit(e);
    else
        lens_atomic_group_abort();
    lens_free(csv);
    lens_free(nc);
    lens_free(dir);
    return rc;
}

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

/* A page-aligned view of n bytes (as p2p.c): large copies start on a page boundary. */
static char *page_alloc(size_t n, char **base)
{
    long pg = sysconf(_SC_PAGESIZE);
    size_t a = pg > 0 ? (size_t)pg : 4096;
    *base = lens_malloc(n + a);
    return *base ? (char *)(((uintptr_t)*base + a - 1) & ~(uintptr_t)(a - 1)) : NULL;
}

/* One round on this rank: a warm-up message each way (a new partner may need a connection),
 * a common start, then k messages each way at once. Returns the seconds until the partner's
 * whole window had arrived, NaN when sitting out. */
static double one_round(int peer, int S, int k, char *sbuf, char *rbuf, MPI_Request *req, int over)
{
    if (peer >= 0)
        MPI_Sendrecv(sbuf, S, MPI_BYTE, peer, TAG_WARM, rbuf, S, MPI_BYTE, peer, TAG_WARM,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* every pair starts together: the round measures the pairs' traffic at the same time */
    lens_bench_job_barrier(over);
    if (peer < 0)
        return NAN;
    /* Local clocks only: each rank times its own receives from its own barrier exit, so no
     * global clock is needed; the barrier's exits differ by its latency (microseconds), small
     * against a window of megabytes. */
    double t0 = MPI_Wtime();
    /* receives first, so no message of the window waits in an unexpected queue */
    for (int w = 0; w < k; w++)
        MPI_Irecv(rbuf, S, MPI_BYTE, peer, TAG_BIS, MPI_COMM_WORLD, &req[w]);
    for (int w = 0; w < k; w++)
        MPI_Isend(sbuf, S, MPI_BYTE, peer, TAG_BIS, MPI_COMM_WORLD, &req[k + w]);
    /* the receives alone end the flow into this rank; the sends finish the partner's flow,
     * which the partner times itself */
    MPI_Waitall(k, req, MPI_STATUSES_IGNORE);
    double t = MPI_Wtime() - t0;
    MPI_Waitall(k, req + k, MPI_STATUSES_IGNORE); /* the buffer is reused next round */
    return t;
}

void lens_bench_bisect_run(const struct lens_bench_opts *o, lens_bench_say_fn say, void *arg)
{
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    struct lens_err e;
    struct bis b;
    memset(&b, 0, sizeof b);
    b.P = P;
    b.R = o->rounds;
    b.S = o->size;
    b.k = LENS_BENCH_P2P_WINDOW; /* the p2p bandwidth test's window */
    /* a fixed default seed: two runs without --shuffle measure the same rounds, comparable */
    b.seed = o->shuffle ? o->seed : LENS_BENCH_BISECTION_SEED;
    lens_bench_job_hosts(&b.hosts);
    int over = lens_bench_job_oversubscribed();
    /* taken before the first round: measured_at is when the measurement started */
    struct lens_bench_job_prov prov;
    char mpiv[256];
    lens_bench_job_provenance(&prov);
    lens_bench_job_mpi_version(mpiv, sizeof mpiv);
    /* LENS_BISECTION_PROV_KEYS order: measured_at, mpi_library_version, launcher, binding, cores */
    const char *pv[LENS_BISECTION_NPROV] = {prov.measured_at, mpiv, prov.launcher, prov.binding, prov.cores_per_host};
    memcpy(b.prov, pv, sizeof pv);
    char *sbase = NULL, *rbase = NULL;
    char *sbuf = page_alloc((size_t)b.S, &sbase), *rbuf = page_alloc((size_t)b.S, &rbase);
    MPI_Request *req = lens_malloc(2 * (size_t)b.k * sizeof *req);
    int *side = lens_malloc((size_t)P * sizeof(int)), *partner = lens_malloc((size_t)P * sizeof(int));
    /* Only rank 0 keeps the run (R x P numbers); the others hold one round's matching. */
    size_t RP = (size_t)b.R * P;
    if (rank == 0) {
        b.side = lens_malloc(RP * sizeof(int));
        b.partner = lens_malloc(RP * sizeof(int));
        b.recv_s = lens_malloc(RP * sizeof(double));
        b.node_of = lens_malloc((size_t)P * sizeof(int));
    }
    if (!sbuf || !rbuf || !req || !side || !partner ||
        (rank == 0 && (!b.side || !b.partner || !b.recv_s || !b.node_of))) {
        lens_err_set(&e, LENS_ENOMEM, "out of memory for %d-byte message buffers", b.S);
        lens_bench_fatal(&e);
    }
    memset(sbuf, 0xa5, (size_t)b.S); /* touched before timing */
    memset(rbuf, 0x5a, (size_t)b.S);
    if (rank == 0) {
        /* nodes are distinct host names, numbered in order of their first rank */
        for (int x = 0; x < P; x++) {
            int y = 0;
            while (y < x && strcmp(b.hosts[y], b.hosts[x]))
                y++;
            b.node_of[x] = y < x ? b.node_of[y] : b.nodes++;
        }
        if (P % 2)
            say_line(say, arg, "%d ranks is odd: one rank sits out each round (sitting_out in "
                     "%s_bisection.nc)", P, o->prefix);
    }
    for (int r = 0; r < b.R; r++) {
        /* every rank draws the same round from (seed, r): no message says who pairs with whom */
        lens_bench_bisection_round(P, b.seed, r, side, partner);
        double t = one_round(partner[rank], b.S, b.k, sbuf, rbuf, req, over);
        /* one number per rank: rank 0 has the matching already (it computed it too) */
        MPI_Gather(&t, 1, MPI_DOUBLE, rank == 0 ? b.recv_s + (size_t)r * P : NULL, 1, MPI_DOUBLE, 0,
                   MPI_COMM_WORLD);
        if (rank != 0)
            continue;
        memcpy(b.side + (size_t)r * P, side, (size_t)P * sizeof(int));
        memcpy(b.partner + (size_t)r * P, partner, (size_t)P * sizeof(int));
        struct round_sum u;
        summarize(&b, r, &u);
        say_line(say, arg, "bisection round %d: %d pairs, %.0f bytes in %.6f s, %.4g MB/s; slowest "
                 "pair %d -> %d at %.4g MB/s%s%.0d", r, u.pairs, u.bytes, u.seconds, u.bps / 1e6, u.slow_s,
                 u.slow_r, u.slow_bps / 1e6, u.out >= 0 ? "; sitting out: rank " : "", u.out >= 0 ? u.out : 0);
    }
    if (rank == 0) {
        char date[64], seed[32];
        lens_time_format_date(lens_time_source_date(), date, sizeof date);
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)b.seed);
        const char *attrs[] = {
            "mpilens_version", LENS_VERSION,
            "tool", "mpilens-bench -t bisection",
            "mpi_library_version", mpiv,
            "date", date,
            /* the all-pairs cube's provenance attributes (allpairs.c), under the same names */
            "measured_at", prov.measured_at,
            "launcher", prov.launcher,
            "binding", prov.binding,
            "cores_per_host", prov.cores_per_host,
            "command_line", o->cmdline,
            "seed", seed,
            "bisection_definition", "each round: a random split of the ranks into two halves and a "
                                    "random perfect matching across it (seed, round); after a "
                                    "barrier every pair exchanges a window of k messages of "
                                    "size_bytes both ways at once (MPI_Isend/MPI_Irecv); a flow is "
                                    "one direction, flow_seconds the time until its receiver had "
                                    "the whole window, flow_Bps = k * size_bytes / flow_seconds; "
                                    "seconds = the slowest flow's time, bytes = pairs * 2 * k * "
                                    "size_bytes, bandwidth_Bps = bytes / seconds; odd rank counts: "
                                    "sitting_out is the rank left out of the round (-1: none)",
            "node_definition", "ranks on one host name form a node; node_bytes = bytes its ranks "
                               "received in the round, node_share = node_bytes / bytes, node_Bps "
                               "= the sum of flow_Bps into its ranks (only when ranks share nodes)",
            NULL, NULL};
        if (write_files(&b, o->prefix, attrs, &e) != LENS_OK)
            lens_bench_fatal(&e);
        say_line(say, arg, "wrote %s_bisection.csv and %s_bisection.nc (%d rounds of %d ranks)",
                 o->prefix, o->prefix, b.R, P);
        for (int x = 0; x < P; x++)
            lens_free(b.hosts[x]);
        lens_free(b.hosts);
    }
    lens_free(b.side);
    lens_free(b.partner);
    lens_free(b.recv_s);
    lens_free(b.node_of);
    lens_free(sbase);
    lens_free(rbase);
    lens_free(req);
    lens_free(side);
    lens_free(partner);
}
