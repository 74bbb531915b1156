/* The streaming cube reader against lens_cube_read, the reference: every matrix bit for bit,
 * the metadata and the warnings, on every reference file of network_test2 (with their garbage
 * diagonals and round-trip mix) and on written cubes with each defect (garbage and unmeasured
 * diagonals, negative, infinite and NaN delays, the round-trip mix with an odd and an even
 * number of ratios, a statistic without any usable delay); errors and allocation failures. */
#include "analysis/cube/cube.h"
#include "lens_test.h"

#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int same_value(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof a) == 0;
}

/* Compares the stream of input with lens_cube_read's cube; returns the number of warnings. */
static int compare(const char *input)
{
    struct lens_err e, f;
    lens_err_clear(&e);
    lens_err_clear(&f);
    struct lens_cube *ref = NULL;
    struct lens_cube_stream *st = NULL;
    int rr = lens_cube_read(input, &ref, &e);
    int rs = lens_cube_stream_open(input, &st, &f);
    LENS_TEST(rs == LENS_OK, "%s: stream open: %s", input, f.msg);
    if (rs != LENS_OK) {
        lens_cube_free(ref);
        return -1;
    }
    const struct lens_cube *m = lens_cube_stream_meta(st);
    size_t P = (size_t)m->procs, P2 = P * P;
    double *mat = malloc(P2 * sizeof *mat);
    long diff = 0, absent = 0;
    /* read backwards and twice: order must not matter */
    for (int pass = 0; pass < 2 && rr == LENS_OK; pass++)
        for (int s = LENS_STAT_COUNT - 1; s >= 0; s--)
            for (int k = m->nlen - 1; k >= 0; k--) {
                int rc = lens_cube_stream_read(st, s, k, mat, &f);
                if (!ref->data[s]) {
                    absent += rc == LENS_EINVAL;
                    continue;
                }
                LENS_TEST(rc == LENS_OK, "%s: read %d %d: %s", input, s, k, f.msg);
                for (size_t x = 0; x < P2 && rc == LENS_OK; x++)
                    diff += !same_value(mat[x], ref->data[s][k * P2 + x]);
            }
    int re = lens_cube_stream_end(st, &f);
    LENS_TEST(re == rr, "%s: end %d (%s) but read %d (%s)", input, re, f.msg, rr, e.msg);
    if (rr != LENS_OK) {
        LENS_TEST(!strcmp(e.msg, f.msg), "%s: messages differ: '%s' / '%s'", input, e.msg, f.msg);
        free(mat);
        lens_cube_stream_close(st);
        return -1;
    }
    int nwarn = ref->nwarn;
    LENS_TEST(diff == 0, "%s: %ld values differ", input, diff);
    unsigned mask = 0;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        mask |= ref->data[s] ? 1u << s : 0;
    LENS_TEST(lens_cube_stream_stats(st) == mask, "%s: statistics %x, want %x", input, lens_cube_stream_stats(st),
              mask);
    LENS_TEST(absent == 2 * (long)(LENS_STAT_COUNT - __builtin_popcount(mask)) * m->nlen, "%s: absent %ld", input,
              absent);
    LENS_TEST(m->procs == ref->procs && m->nlen == ref->nlen && m->begin == ref->begin && m->end == ref->end &&
                  m->step == ref->step && m->mode == ref->mode && m->repeats == ref->repeats &&
                  m->new_layout == ref->new_layout && m->written_by_mpilens == ref->written_by_mpilens &&
                  !memcmp(m->lengths, ref->lengths, (size_t)m->nlen * sizeof *m->lengths) &&
                  !strcmp(m->source, ref->source),
              "%s: metadata differ", input);
    int hosts_same = (m->hosts == NULL) == (ref->hosts == NULL);
    for (int i = 0; hosts_same && m->hosts && i < m->procs; i++)
        hosts_same = !strcmp(m->hosts[i], ref->hosts[i]);
    LENS_TEST(hosts_same, "%s: hosts differ", input);
    LENS_TEST(m->nwarn == ref->nwarn, "%s: %d warnings, want %d", input, m->nwarn, ref->nwarn);
    for (int w = 0; w < m->nwarn && w < ref->nwarn; w++)
        LENS_TEST(!strcmp(m->warnings[w], ref->warnings[w]), "%s: warning %d: '%s' want '%s'", input, w,
                  m->warnings[w], ref->warnings[w]);
    free(mat);
    lens_cube_stream_close(st);
    lens_cube_free(ref);
    return nwarn;
}

/* xorshift for high-entropy values */
static unsigned long long rng = 0x2545F4914F6CDD1DULL;
static double unif(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Writes a P x L cube of mode `mode` with median ~ `trip` x average, then applies `defect`,
 * and (foreign) deletes our attribute so the reader treats it as network_test2's. */
static void make(const char *prefix, int P, int L, int mode, double trip, int foreign, void (*defect)(struct lens_cube *))
{
    struct lens_err e;
    struct lens_cube *c;
    if (lens_cube_new(&c, P, L, 128, 4096, 0xF, &e) != LENS_OK)
        return;
    c->mode = mode;
    c->repeats = 17;
    for (int k = 0; k < L; k++)
        for (int i = 0; i < P; i++)
            for (int j = 0; j < P; j++) {
                if (i == j)
                    continue;
                double a = 1e-6 * (1.3 + 2.1 * unif()) * (1 + 0.37 * k);
                LENS_CUBE_AT(c, LENS_STAT_AVERAGE, k, i, j) = a;
                LENS_CUBE_AT(c, LENS_STAT_MEDIAN, k, i, j) = a * trip * (0.93 + 0.14 * unif());
                LENS_CUBE_AT(c, LENS_STAT_MIN, k, i, j) = a * trip * (0.7 + 0.1 * unif());
                LENS_CUBE_AT(c, LENS_STAT_DEVIATION, k, i, j) = a * 0.05 * unif();
            }
    if (defect)
        defect(c);
    int rc = lens_cube_write(c, prefix, NULL, &e);
    LENS_TEST(rc == LENS_OK, "write %s: %s", prefix, e.msg);
    lens_cube_free(c);
    const char *names[] = {"_average.nc", "_median.nc", "_deviation.nc", "_min.nc"};
    for (int s = 0; s < 4 && foreign; s++) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", prefix, names[s]);
        int id;
        if (nc_open(path, NC_WRITE, &id) == NC_NOERR) {
            nc_redef(id);
            nc_del_att(id, NC_GLOBAL, "mpilens_version");
            nc_close(id);
        }
    }
}

static void garbage_min_diagonal(struct lens_cube *c)
{
    for (int k = 0; k < c->nlen; k++)
        for (int i = 0; i < c->procs; i += 2)
            LENS_CUBE_AT(c, LENS_STAT_MIN, k, i, i) = k % 2 ? 4.6e-310 : 1e217;
}

static void bad_values(struct lens_cube *c)
{
    garbage_min_diagonal(c);
    LENS_CUBE_AT(c, LENS_STAT_AVERAGE, 1, 0, 3) = -2e-6;
    LENS_CUBE_AT(c, LENS_STAT_AVERAGE, 0, 4, 2) = INFINITY;
    LENS_CUBE_AT(c, LENS_STAT_MEDIAN, 2, 1, 5) = -INFINITY;
    LENS_CUBE_AT(c, LENS_STAT_MEDIAN, 2, 5, 1) = NAN;
    LENS_CUBE_AT(c, LENS_STAT_DEVIATION, 0, 6, 0) = NAN;
    LENS_CUBE_AT(c, LENS_STAT_AVERAGE, 3, 2, 2) = -1.0; /* garbage in the average's diagonal */
}

/* The average's diagonal is all zero (unmeasured): the median's small values become bad. */
static void unmeasured_median_diagonal(struct lens_cube *c)
{
    for (int i = 1; i < c->procs; i += 3)
        LENS_CUBE_AT(c, LENS_STAT_MEDIAN, c->nlen - 1, i, i) = 3.3e-6;
}

/* One more excluded ratio (average <= 0) makes the count of ratios odd. */
static void odd_ratios(struct lens_cube *c)
{
    bad_values(c);
    LENS_CUBE_AT(c, LENS_STAT_AVERAGE, 2, 3, 4) = 0.0;
}

static void no_usable_min(struct lens_cube *c)
{
    size_t n = (size_t)c->procs * c->procs * c->nlen;
    for (size_t x = 0; x < n; x++)
        c->data[LENS_STAT_MIN][x] = x % 3 ? -1e-6 : NAN;
}

static void test_errors(const char *dir)
{
    struct lens_err e;
    struct lens_cube_stream *st = (void *)1;
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s/none/network", dir);
    LENS_TEST(lens_cube_stream_open(prefix, &st, &e) == LENS_EIO && !st && strstr(e.msg, "none/network_median.nc"),
              "missing: %s", e.msg);
    lens_cube_stream_close(NULL);
    snprintf(prefix, sizeof prefix, "%s/bad/network", dir);
    if (lens_cube_stream_open(prefix, &st, &e) != LENS_OK)
        return;
    double mat[49];
    LENS_TEST(lens_cube_stream_read(st, LENS_STAT_MEDIAN, 4, mat, &e) == LENS_EINVAL && strstr(e.msg, "index 4"),
              "k out of range: %s", e.msg);
    LENS_TEST(lens_cube_stream_read(st, 7, 0, mat, &e) == LENS_EINVAL, "bad statistic");
    LENS_TEST(lens_cube_stream_read(st, LENS_STAT_MEDIAN, -1, mat, &e) == LENS_EINVAL, "negative k");
    lens_cube_stream_close(st);
    /* a truncated statistic: the same message as lens_cube_read's */
    char path[600], cmd[2600];
    snprintf(path, sizeof path, "%s/bad/network_median.nc", dir);
    snprintf(cmd, sizeof cmd, "head -c 1500 %s > %s.t && mv %s.t %s", path, path, path, path);
    if (system(cmd) != 0)
        return;
    struct lens_err f;
    struct lens_cube *c = NULL;
    int rr = lens_cube_read(prefix, &c, &f);
    int rs = lens_cube_stream_open(prefix, &st, &e);
    LENS_TEST(rr != LENS_OK && rs == rr && !strcmp(e.msg, f.msg) && strstr(e.msg, "network_median.nc"),
              "truncated: '%s' / '%s'", e.msg, f.msg);
}

static void test_alloc(const char *prefix)
{
    int fails = 0, oks = 0;
    struct lens_err e;
    double *mat = malloc(7 * 7 * sizeof *mat);
    for (long n = 1; n < 400 && !oks; n++) {
        struct lens_cube_stream *st = NULL;
        lens_malloc_fail_after(n);
        int rc = lens_cube_stream_open(prefix, &st, &e); /* st stays NULL on failure */
        for (int k = 0; k < 2 && rc == LENS_OK; k++)
            rc = lens_cube_stream_read(st, LENS_STAT_MEDIAN, k, mat, &e);
        if (rc == LENS_OK)
            rc = lens_cube_stream_end(st, &e);
        lens_malloc_fail_after(0);
        oks = rc == LENS_OK;
        fails += rc == LENS_ENOMEM;
        lens_cube_stream_close(st);
    }
    free(mat);
    LENS_TEST(oks && fails > 5, "allocation failures: %d then success", fails);
}

int main(void)
{
    const char *data = getenv("DATA");
    static const char *const nt[] = {
        "all_to_all_np2", "all_to_all_np4", "async_one_to_one_np2", "async_one_to_one_np4", "bcast_np2",
        "bcast_np4", "get_np2", "get_np4", "noise_blocking_np4", "noise_np2", "noise_np4", "one_to_one_np2",
        "one_to_one_np4", "plugins-branch-2024", "put_np2", "put_np4", "send_recv_and_recv_send_np2",
        "send_recv_and_recv_send_np4"};
    int warned = 0, seen = 0;
    for (size_t t = 0; data && t < sizeof nt / sizeof *nt; t++) {
        char dir[1024];
        snprintf(dir, sizeof dir, "%s/network-tests2/%s", data, nt[t]);
        if (access(dir, R_OK) != 0)
            continue;
        seen++;
        int w = compare(dir);
        warned += w > 0;
    }
    LENS_TEST(!data || seen == 0 || warned >= 6, "reference files: only %d of %d have repairs", warned, seen);

    char tmpl[] = "/tmp/test_cube_stream.XXXXXX";
    char *dir = mkdtemp(tmpl);
    if (!dir)
        return 1;
    char p[5][600];
    const char *sub[5] = {"bad", "unmeasured", "odd", "even", "nousable"};
    for (int t = 0; t < 5; t++)
        snprintf(p[t], sizeof p[t], "%s/%s/network", dir, sub[t]);
    make(p[0], 7, 4, LENS_MODE_ONE_TO_ONE, 1.0, 1, bad_values);
    make(p[1], 6, 3, LENS_MODE_ONE_TO_ONE, 1.0, 1, unmeasured_median_diagonal);
    make(p[2], 7, 4, LENS_MODE_SEND_RECV_AND_RECV_SEND, 2.0, 1, odd_ratios);
    make(p[3], 7, 4, LENS_MODE_SEND_RECV_AND_RECV_SEND, 2.0, 1, bad_values);
    make(p[4], 5, 2, LENS_MODE_ONE_TO_ONE, 1.0, 1, no_usable_min);
    int w[5];
    for (int t = 0; t < 5; t++)
        w[t] = compare(p[t]);
    /* no hosts file; diagonals of min and average; off-diagonal average, median, deviation; round trip */
    LENS_TEST(w[0] == 6 && w[1] == 2 && w[2] == 7 && w[3] == 7 && w[4] == -1,
              "warnings per defect cube: %d %d %d %d %d", w[0], w[1], w[2], w[3], w[4]);
    for (int t = 2; t <= 3; t++) {
        struct lens_cube *c = NULL;
        struct lens_err e;
        int rc = lens_cube_read(p[t], &c, &e);
        LENS_TEST(rc == LENS_OK && c->nwarn > 0 && strstr(c->warnings[c->nwarn - 1], "median and min halved"),
                  "%s: the round-trip repair is exercised", p[t]);
        lens_cube_free(c);
    }
    /* ours (with the attribute): no round-trip guess, so no halving */
    char q[600];
    snprintf(q, sizeof q, "%s/ours/network", dir);
    make(q, 7, 4, LENS_MODE_SEND_RECV_AND_RECV_SEND, 2.0, 0, NULL);
    LENS_TEST(compare(q) == 1, "our own send_recv cube: only the hosts warning");
    test_alloc(p[2]);
    test_errors(dir);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return LENS_TEST_DONE("test_cube_stream");
}
