/* Tests for analysis/profile/icappa.c and analysis/profile/profile.c: planted structure found exactly, BIC
 * against a hand computation, PCA dropping constant attributes on both paths, k-means
 * against scikit-learn from the same initial centres, determinism, the stop rule on noise,
 * CSV parsing and its errors, and allocation failures. */
#include "analysis/profile/icappa.h"
#include "analysis/profile/profile.h"
#include "lens_test.h"

#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *FUNCS[12] = {"main", "compute_flux", "exchange_halo", "MPI_Allreduce",
                                "MPI_Wait", "io_write", "update_ghosts", "MPI_Isend",
                                "MPI_Irecv", "apply_bc", "residual", "MPI_Barrier"};

/* 64 x 12 profile. Planted: each function a base cost in [0.2, 1.9) s, each cell times
 * uniform noise in [0.98, 1.02), and processes 48..63 spend 10x in exchange_halo. Not planted:
 * every cell 1 s times noise in [0.9, 1.1). Rows are added in a shuffled order so that
 * _finish has to sort them. */
static struct lens_profile *synthetic(unsigned long seed, int planted)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    double base[12];
    for (int f = 0; f < 12; f++)
        base[f] = planted ? 0.2 + 1.7 * gsl_rng_uniform(rng) : 1.0;
    /* the planted function must also be the costliest: 10x on a quarter of the processes
     * with a base of 1.0..1.5 s beats any other function's 64 x 1.9 s */
    if (planted)
        base[2] = 1.0 + 0.5 * gsl_rng_uniform(rng);
    double noise = planted ? 0.02 : 0.1;
    int order[64];
    for (int i = 0; i < 64; i++)
        order[i] = (i * 37 + 11) % 64; /* 37 is odd: a permutation of 0..63 */
    struct lens_profile *p = lens_profile_new();
    struct lens_err e;
    for (int k = 0; k < 64; k++)
        for (int f = 0; f < 12; f++) {
            int r = order[k];
            double t = base[f] * (1 - noise + 2 * noise * gsl_rng_uniform(rng));
            if (planted && f == 2 && r >= 48)
                t *= 10;
            lens_profile_add(p, r, FUNCS[f], t, &e);
        }
    lens_profile_finish(p, &e);
    gsl_rng_free(rng);
    return p;
}

static char *json_of(const struct lens_profile *p, unsigned long seed)
{
    struct lens_icappa_opts o;
    lens_icappa_opts_default(&o);
    o.seed = seed;
    struct lens_icappa *r = NULL;
    struct lens_err e;
    if (lens_icappa_run(p, &o, &r, &e) != LENS_OK)
        return NULL;
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    lens_icappa_write_json(r, p, fp, &e);
    fclose(fp);
    lens_icappa_free(r);
    return buf;
}

static void test_planted(void)
{
    for (unsigned long seed = 1001; seed < 1009; seed++) {
        struct lens_profile *p = synthetic(seed, 1);
        struct lens_icappa *r = NULL;
        struct lens_err e;
        LENS_TEST(lens_icappa_run(p, NULL, &r, &e) == LENS_OK, "run: %s", e.msg);
        if (!r) {
            lens_profile_free(p);
            continue;
        }
        LENS_TEST(r->ndom == 1 && !strcmp(p->funcs[r->dom[0]], "exchange_halo"),
                  "seed %lu: %zu dominating, first '%s'", seed, r->ndom, r->ndom ? p->funcs[r->dom[0]] : "");
        int exact = r->ncostly == 16;
        for (size_t i = 0; exact && i < r->ncostly; i++)
            exact = p->ranks[r->costly[i]] == 48 + (long)i;
        LENS_TEST(exact, "seed %lu: costly processes are 48..63 (got %zu, first %ld)", seed,
                  r->ncostly, r->ncostly ? p->ranks[r->costly[0]] : -1L);
        /* first round: functions, exchange_halo alone in the costlier cluster, split accepted */
        LENS_TEST(r->nrounds >= 2 && r->rounds[0].set == LENS_ICAPPA_FUNCTIONS && r->rounds[0].accepted &&
                  r->rounds[0].size[0] == 1 && r->rounds[0].bic2 > r->rounds[0].bic1,
                  "seed %lu: first round", seed);
        lens_icappa_free(r);
        lens_profile_free(p);
    }
}

static void test_noise_stops(void)
{
    for (unsigned long seed = 77; seed < 81; seed++) {
        struct lens_profile *p = synthetic(seed, 0);
        struct lens_icappa *r = NULL;
        struct lens_err e;
        LENS_TEST(lens_icappa_run(p, NULL, &r, &e) == LENS_OK, "run: %s", e.msg);
        if (r) {
            /* one rejected round per phase, and everything is the answer */
            LENS_TEST(r->nrounds == 2 && !r->rounds[0].accepted && !r->rounds[1].accepted,
                      "seed %lu: %zu rounds, accepted %d %d", seed, r->nrounds,
                      r->nrounds > 0 && r->rounds[0].accepted, r->nrounds > 1 && r->rounds[1].accepted);
            LENS_TEST(r->ndom == 12 && r->ncostly == 64, "seed %lu: %zu funcs, %zu procs", seed, r->ndom, r->ncostly);
            LENS_TEST(r->stop[0] && !strcmp(r->stop[0], "bic prefers one cluster"), "stop '%s'", r->stop[0]);
        }
        lens_icappa_free(r);
        lens_profile_free(p);
    }
}

static void test_bic_by_hand(void)
{
    /* 5 points in M = 2 dimensions, K = 2:
     *   A = (0.37,2.11) (0.52,1.93) (0.44,2.30)   mean (0.443333, 2.113333)
     *   B = (3.18,0.61) (2.95,0.47)               mean (3.065, 0.54)
     * SS_A = 0.0053778 + 0.0058778 + 0.0000111 (x) + 0.0000111 + 0.0336111 + 0.0348444 (y)
     *      = 0.0797333;  SS_B = 2 * 0.115^2 + 2 * 0.07^2 = 0.03625;  SS = 0.1159833
     * sigma^2 = SS / (R - K) = 0.1159833 / 3 = 0.0386611
     * l = 3 log(3/5) + 2 log(2/5) - 5 * (2/2) log(2 pi 0.0386611) - SS / (2 sigma^2)
     *   = -1.5324769 - 1.8325815 + 7.0752200 - 1.5 = 2.2101617
     * p = (K-1) + M K + 1 = 1 + 4 + 1 = 6;  (p/2) log R = 3 log 5 = 4.8283137
     * BIC = 2.2101617 - 4.8283137 = -2.6181521
     * K = 1: mean (1.492, 1.484), SS = 11.3342, sigma^2 = 11.3342 / 4 = 2.83355,
     *   l = 5 log 1 - 5 log(2 pi 2.83355) - 2 = -16.3970370, p = 0 + 2 + 1 = 3,
     *   BIC = -16.3970370 - 1.5 log 5 = -18.8111939 */
    const double x[10] = {0.37, 2.11, 0.52, 1.93, 0.44, 2.30, 3.18, 0.61, 2.95, 0.47};
    const int lab[5] = {0, 0, 0, 1, 1}, one[5] = {0};
    const double c2[4] = {1.33 / 3, 6.34 / 3, 3.065, 0.54}, c1[2] = {1.492, 1.484};
    LENS_TEST_REL(lens_icappa_bic(x, 5, 2, 2, lab, c2), -2.6181521, 1e-7, "BIC K=2");
    LENS_TEST_REL(lens_icappa_bic(x, 5, 2, 1, one, c1), -18.8111939, 1e-7, "BIC K=1");
    LENS_TEST(isnan(lens_icappa_bic(x, 2, 2, 2, lab, c2)), "R <= K gives NaN");
    /* k-means++ from any seed finds the same split of these two blobs */
    double c[4], in;
    int l[5];
    struct lens_err e;
    LENS_TEST(lens_icappa_kmeans2(x, 5, 2, 99, 3, 100, c, l, &in, &e) == LENS_OK, "kmeans2: %s", e.msg);
    LENS_TEST(l[0] == l[1] && l[1] == l[2] && l[3] == l[4] && l[0] != l[3], "blobs split");
    LENS_TEST_REL(in, 0.1159833333333333, 1e-12, "inertia = SS");
    const double same[6] = {0.61, 2.2, 0.61, 2.2, 0.61, 2.2};
    LENS_TEST(lens_icappa_kmeans2(same, 3, 2, 99, 3, 100, c, l, &in, &e) == LENS_EDATA, "coinciding points");
}

static void test_pca(void)
{
    /* covariance path (M <= R): 40 points, attribute 2 constant, attribute 4 nearly so */
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 31337);
    double x[40 * 5];
    for (int i = 0; i < 40; i++) {
        x[i * 5 + 0] = 3.7 + gsl_rng_uniform(rng);
        x[i * 5 + 1] = 12.9 * gsl_rng_uniform(rng);
        x[i * 5 + 2] = 0.8125;
        x[i * 5 + 3] = 0.4 * gsl_rng_uniform(rng) + 0.3 * x[i * 5 + 1];
        x[i * 5 + 4] = 5.5 + 1e-4 * gsl_rng_uniform(rng);
    }
    int keep[5];
    size_t nk;
    struct lens_err e;
    LENS_TEST(lens_icappa_pca_keep(x, 40, 5, 0.95, 0.01, keep, &nk, &e) == LENS_OK, "pca: %s", e.msg);
    LENS_TEST(!keep[2] && !keep[4] && keep[1] && keep[3], "constant dropped: keep %d %d %d %d %d",
              keep[0], keep[1], keep[2], keep[3], keep[4]);
    /* attribute 0 has variance 1/12 against 13.9 for attribute 1: below 1% of the largest */
    LENS_TEST(!keep[0] && nk == 2, "low-variance attribute 0 dropped (nk=%zu)", nk);
    /* Gram path (M > R): 4 points, 9 attributes, attributes 0 and 5 constant */
    double g[4 * 9];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 9; j++)
            g[i * 9 + j] = (j == 0 || j == 5) ? 2.25 : 1.0 + gsl_rng_uniform(rng);
    int gk[9];
    LENS_TEST(lens_icappa_pca_keep(g, 4, 9, 1.0, 0.0, gk, &nk, &e) == LENS_OK, "pca gram: %s", e.msg);
    LENS_TEST(!gk[0] && !gk[5] && nk == 7, "gram: constants dropped, 7 kept (nk=%zu)", nk);
    /* with every component and no floor, each attribute gets its own variance: the Gram and
     * covariance paths agree, checked through the transposed problem's constant columns */
    double flat[3 * 2] = {1.5, 1.5, 1.5, 1.5, 1.5, 1.5};
    LENS_TEST(lens_icappa_pca_keep(flat, 3, 2, 0.95, 0.01, gk, &nk, &e) == LENS_OK && nk == 0,
              "all constant: nothing kept");
    LENS_TEST(lens_icappa_pca_keep(flat, 1, 2, 0.95, 0.01, gk, &nk, &e) == LENS_EINVAL, "one point refused");
    gsl_rng_free(rng);
}

/* Lloyd from fixed centres against scikit-learn's KMeans(init=..., n_init=1, lloyd, tol=0). */
static void test_sklearn(void)
{
    enum { R = 300, M = 4 };
    static double x[R * M];
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 271828);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < M; j++)
            x[i * M + j] = gsl_rng_uniform(rng) * (1 + j) + (i % 3 == 0 && j < 2 ? 1.3 : 0.0);
    gsl_rng_free(rng);
    /* initial centres: two data points that are not the final centres */
    double c[2 * M];
    memcpy(c, x + 5 * M, sizeof(double) * M);
    memcpy(c + M, x + 17 * M, sizeof(double) * M);
    char dpath[] = "/tmp/mpilens-icappa-XXXXXX";
    int fd = mkstemp(dpath);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp) {
        LENS_TEST(0, "cannot create temporary file");
        return;
    }
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < M; j++)
            fprintf(fp, "%.17g%c", c[k * M + j], j == M - 1 ? '\n' : ' ');
    for (int i = 0; i < R; i++)
        for (int j = 0; j < M; j++)
            fprintf(fp, "%.17g%c", x[i * M + j], j == M - 1 ? '\n' : ' ');
    fclose(fp);
    int labels[R];
    double inertia;
    struct lens_err e;
    int it = lens_icappa_lloyd(x, R, M, 2, c, labels, 300, &inertia, &e);
    LENS_TEST(it >= 2, "lloyd iterations %d: %s", it, e.msg);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import numpy as np, sys, warnings; from sklearn.cluster import KMeans\n"
             "a = np.loadtxt('%s'); init, x = a[:2], a[2:]\n"
             "warnings.simplefilter('ignore')\n"
             "k = KMeans(n_clusters=2, init=init, n_init=1, algorithm='lloyd', tol=0, max_iter=300).fit(x)\n"
             "print(repr(k.inertia_)); print(''.join(str(v) for v in k.labels_))\" 2>&1",
             dpath);
    FILE *py = popen(cmd, "r");
    char line1[128] = "", line2[R + 16] = "";
    if (py) {
        if (!fgets(line1, sizeof line1, py) || !fgets(line2, sizeof line2, py))
            line2[0] = '\0';
        pclose(py);
    }
    unlink(dpath);
    LENS_TEST(strlen(line2) >= R, "scikit-learn ran (python3-sklearn installed?): %s", line1);
    if (strlen(line2) < R)
        return;
    LENS_TEST_REL(inertia, strtod(line1, NULL), 1e-10, "inertia against scikit-learn");
    int same = 1;
    for (int i = 0; i < R; i++)
        same &= labels[i] == line2[i] - '0';
    LENS_TEST(same, "labels against scikit-learn");
}

static void test_determinism(void)
{
    struct lens_profile *p = synthetic(4711, 1);
    char *a = json_of(p, 12345), *b = json_of(p, 12345), *c = json_of(p, 8);
    LENS_TEST(a && b && !strcmp(a, b), "same seed, same bytes");
    LENS_TEST(a && strstr(a, "{\"dominating_functions\":[\"exchange_halo\"],\"costly_processes\":[48,49,"),
              "json head: %.80s", a ? a : "");
    /* another seed may order the restarts differently but must find the same answer */
    LENS_TEST(a && c && !strncmp(a, c, strcspn(a, "i")), "other seed, same answer");
    free(a);
    free(b);
    free(c);
    lens_profile_free(p);
}

/* The words for the report: the planted answer, and nothing for noise. */
static void test_prose(void)
{
    for (int planted = 1; planted >= 0; planted--) {
        struct lens_profile *p = synthetic(planted ? 5003 : 5004, planted);
        struct lens_icappa *r = NULL;
        struct lens_err e;
        char *buf = NULL;
        size_t n = 0;
        FILE *fp = open_memstream(&buf, &n);
        LENS_TEST(lens_icappa_run(p, NULL, &r, &e) == LENS_OK && lens_icappa_write_prose(r, p, fp, &e) == LENS_OK,
                  "prose: %s", e.msg);
        fclose(fp);
        if (planted)
            LENS_TEST(buf && strstr(buf, "One function dominates the run: exchange_halo (") &&
                      strstr(buf, "It costs most on 16 of 64 processes (ranks 48-63)"), "prose '%s'", buf ? buf : "");
        else
            LENS_TEST(buf && strstr(buf, "No function stands out") && strstr(buf, "No group of processes"),
                      "noise prose '%s'", buf ? buf : "");
        free(buf);
        lens_icappa_free(r);
        lens_profile_free(p);
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
}

static void test_csv(void)
{
    char dir[] = "/tmp/mpilens-profile-XXXXXX";
    if (!mkdtemp(dir))
        return;
    char path[256];
    snprintf(path, sizeof path, "%s/p.csv", dir);
    write_file(path, "process,function,seconds\n# comment\n\n3,\"f<a,b>\",0.25\n1,MPI_Send,1.5\n"
                     "3,MPI_Send, 2.75 \n1,\"say \"\"hi\"\"\",0.125\n3,MPI_Send,0.5\n");
    struct lens_profile *p = NULL;
    struct lens_err e;
    LENS_TEST(lens_profile_read_csv(path, &p, &e) == LENS_OK, "read: %s", e.msg);
    if (p) {
        LENS_TEST(p->nproc == 2 && p->nfunc == 3 && p->ranks[0] == 1 && p->ranks[1] == 3, "shape and rank order");
        long q = lens_profile_find(p, "f<a,b>"), s = lens_profile_find(p, "MPI_Send"), h = lens_profile_find(p, "say \"hi\"");
        LENS_TEST(q >= 0 && s >= 0 && h >= 0, "quoted names");
        if (q >= 0 && s >= 0 && h >= 0) {
            LENS_TEST(p->sec[1 * 3 + s] == 3.25 && p->sec[0 * 3 + s] == 1.5, "repeated cells add up");
            LENS_TEST(p->sec[0 * 3 + q] == 0 && p->sec[1 * 3 + q] == 0.25, "missing cells are 0");
        }
        /* round trip through the writer */
        char out[256];
        snprintf(out, sizeof out, "%s/out.csv", dir);
        LENS_TEST(lens_profile_write_csv(p, out, &e) == LENS_OK, "write: %s", e.msg);
        struct lens_profile *p2 = NULL;
        LENS_TEST(lens_profile_read_csv(out, &p2, &e) == LENS_OK, "reread: %s", e.msg);
        int same = p2 && p2->nproc == p->nproc && p2->nfunc == p->nfunc;
        for (size_t f = 0; same && f < p->nfunc; f++) { /* columns may come in another order */
            long f2 = lens_profile_find(p2, p->funcs[f]);
            for (size_t r = 0; same && r < p->nproc; r++)
                same = f2 >= 0 && p2->sec[r * p2->nfunc + (size_t)f2] == p->sec[r * p->nfunc + f];
        }
        LENS_TEST(same, "round trip keeps every cell");
        lens_profile_free(p2);
        lens_profile_free(p);
        unlink(out);
    }
    static const struct { const char *text, *want; } bad[] = {
        {"0,a,1\n1,b\n", ":2: expected 3 fields"},
        {"0,a,1\n\n-4,b,2\n", ":3: process '-4'"},
        {"0,a,1\n1,b,fast\n", ":2: seconds 'fast'"},
        {"0,a,1\n1,b,-0.5\n", ":2: seconds '-0.5'"},
        {"0,a,nan\n", ":1: seconds 'nan'"},
        {"0,a,1,2\n", ":1: expected 3 fields 'process,function,seconds', found more"},
        {"7,\"open,1.0\n", ":1: unterminated quoted"},
        {"7,,1.0\n", ":1: empty function name"},
        {"process,function,seconds\n# nothing\n", "no data lines"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_file(path, bad[i].text);
        lens_err_clear(&e);
        int rc = lens_profile_read_csv(path, &p, &e);
        LENS_TEST(rc < 0 && !p && strstr(e.msg, path) && strstr(e.msg, bad[i].want),
                  "bad csv %zu: rc %d '%s' wants '%s'", i, rc, e.msg, bad[i].want);
    }
    unlink(path);
    LENS_TEST(lens_profile_read_csv(path, &p, &e) == LENS_EIO && strstr(e.msg, path), "missing file: %s", e.msg);
    rmdir(dir);
}

/* Every allocation of the reader and of a run fails once in turn: clean error, no leak. */
static void test_faults(void)
{
    char path[] = "/tmp/mpilens-faults-XXXXXX";
    int fd = mkstemp(path);
    FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!fp)
        return;
    for (int r = 0; r < 9; r++)
        for (int f = 0; f < 4; f++)
            fprintf(fp, "%d,fn%d,%.3f\n", (r * 5) % 9, f, 1.0 + f * 0.7 + (r > 5 && f == 1 ? 9.0 : 0.01 * r));
    fclose(fp);
    int failures = 0, leaks_checked = 0;
    for (long n = 1; n < 400; n++) {
        struct lens_err e;
        struct lens_profile *p = NULL;
        struct lens_icappa *r = NULL;
        lens_malloc_fail_after(n);
        int rc = lens_profile_read_csv(path, &p, &e);
        if (rc == LENS_OK)
            rc = lens_icappa_run(p, NULL, &r, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            leaks_checked = 1;
            lens_icappa_free(r);
            lens_profile_free(p);
            break;
        }
        failures += rc != LENS_ENOMEM;
        LENS_TEST(!r, "no result on failure");
        lens_profile_free(p);
    }
    LENS_TEST(failures == 0 && leaks_checked, "every injected failure gives LENS_ENOMEM (%d others)", failures);
    unlink(path);
}

int main(void)
{
    test_bic_by_hand();
    test_pca();
    test_planted();
    test_noise_stops();
    test_determinism();
    test_prose();
    test_sklearn();
    test_csv();
    test_faults();
    return LENS_TEST_DONE("test_icappa");
}
