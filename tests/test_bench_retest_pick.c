/* Tests for bench/net/retest.c, the choice of cells --retest measures again: the robust z
 * (log delay, median and 1.4826 MAD floored at 0.01 over the off-diagonal cells of a length)
 * against values worked out by hand, the K worst plus the flagged cells in descending z, the
 * diagonal and missing cells ignored, and the sender/receiver reading of each mode. */
#include "bench/net/retest.h"
#include "lens_test.h"
#include "analysis/cube/cube.h"

#include <math.h>

/* A 3 x 3 matrix with off-diagonal cells exp(x[t]) microseconds, row-major order (0,1),
 * (0,2), (1,0), (1,2), (2,0), (2,1); the diagonal gets a large value that must be ignored. */
static void fill3(double *m, const double *x)
{
    int t = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            m[i * 3 + j] = i == j ? 1.0 : 1e-6 * exp(x[t++]);
}

int main(void)
{
    double m[16], work[32], z[16], med, sig;
    int cells[16];

    /* Hand case 1: logs (over 1 us) 0, 0, 0, 0, ln 2, ln 4. Median = mean of the 3rd and 4th
     * sorted = 0; deviations 0, 0, 0, 0, ln 2, ln 4: MAD 0, so the floor: sigma = 0.014826.
     * z(2 us) = ln 2 / 0.014826 = 46.752, z(4 us) = 93.504. */
    const double x1[6] = {0, 0, log(2.0), 0, 0, log(4.0)};
    fill3(m, x1);
    int n = lens_bench_retest_robust(m, 3, work, &med, &sig);
    LENS_TEST(n == 6, "case 1: %d cells used, want 6 (diagonal ignored)", n);
    LENS_TEST_REL(med, log(1e-6), 1e-12, "case 1: median of the logs");
    LENS_TEST_REL(sig, 1.4826 * 0.01, 1e-12, "case 1: sigma from the MAD floor");
    LENS_TEST_REL(lens_bench_retest_z(2e-6, med, sig), 46.7520, 1e-4, "case 1: z of 2 us");
    LENS_TEST_REL(lens_bench_retest_z(4e-6, med, sig), 93.5040, 1e-4, "case 1: z of 4 us");
    LENS_TEST(isnan(lens_bench_retest_z(0, med, sig)), "a 0 delay has no z");
    /* k = 1: both flagged cells come, the worst first: (2,1) = index 7, then (1,0) = 3. */
    n = lens_bench_retest_pick(m, 3, 1, LENS_BENCH_RETEST_ZMIN, work, cells, z);
    LENS_TEST(n == 2 && cells[0] == 7 && cells[1] == 3, "case 1 k=1: %d cells %d %d, want 7 3", n,
              cells[0], cells[1]);
    LENS_TEST_REL(z[0], 93.5040, 1e-4, "case 1: z of the worst");
    /* k = 3: the flagged two and the first of the ties at z = 0, by index: (0,1) = 1. */
    n = lens_bench_retest_pick(m, 3, 3, LENS_BENCH_RETEST_ZMIN, work, cells, NULL);
    LENS_TEST(n == 3 && cells[2] == 1, "case 1 k=3: %d cells, third %d, want 1", n, cells[2]);
    /* k larger than the cells: every cell once */
    n = lens_bench_retest_pick(m, 3, 100, LENS_BENCH_RETEST_ZMIN, work, cells, NULL);
    LENS_TEST(n == 6, "case 1 k=100: %d cells, want 6", n);

    /* Hand case 2: logs 0, 0.1, 0.2, 0.3, 0.4, 2.0. Median (0.2 + 0.3) / 2 = 0.25; deviations
     * 0.25, 0.15, 0.05, 0.05, 0.15, 1.75: MAD = (0.15 + 0.15) / 2 = 0.15, sigma = 0.22239.
     * z(2.0) = 1.75 / 0.22239 = 7.8691 (flagged), z(0.4) = 0.15 / 0.22239 = 0.67449. */
    const double x2[6] = {0.3, 0, 2.0, 0.1, 0.4, 0.2};
    fill3(m, x2);
    lens_bench_retest_robust(m, 3, work, &med, &sig);
    LENS_TEST_REL(med - log(1e-6), 0.25, 1e-9, "case 2: median");
    LENS_TEST_REL(sig, 1.4826 * 0.15, 1e-9, "case 2: sigma");
    n = lens_bench_retest_pick(m, 3, 0, LENS_BENCH_RETEST_ZMIN, work, cells, z);
    LENS_TEST(n == 1 && cells[0] == 3, "case 2 k=0: %d cells, first %d, want only (1,0) = 3", n, cells[0]);
    LENS_TEST_REL(z[0], 1.75 / (1.4826 * 0.15), 1e-9, "case 2: z of the outlier");
    n = lens_bench_retest_pick(m, 3, 2, LENS_BENCH_RETEST_ZMIN, work, cells, z);
    LENS_TEST(n == 2 && cells[1] == 6, "case 2 k=2: second %d, want (2,0) = 6", cells[1]);
    LENS_TEST_REL(z[1], 0.15 / (1.4826 * 0.15), 1e-9, "case 2: z of the second");
    /* The control: the cell nearest the median 0.25 in log, not picked: 0.2 at (2,1) = 7 and
     * 0.3 at (0,1) = 1 are both 0.05 away; the strict test keeps the lower index, 1. */
    int picked[2] = {3, 6};
    LENS_TEST(lens_bench_retest_control(m, 3, med, picked, 2) == 1, "control: %d, want 1",
              lens_bench_retest_control(m, 3, med, picked, 2));
    picked[0] = 1;
    LENS_TEST(lens_bench_retest_control(m, 3, med, picked, 2) == 7, "control with 1 picked: want 7");
    int all[6] = {1, 2, 3, 5, 6, 7};
    LENS_TEST(lens_bench_retest_control(m, 3, med, all, 6) == -1, "control with every cell picked: -1");
    /* A higher threshold: nothing flagged, k = 0 picks nothing. */
    n = lens_bench_retest_pick(m, 3, 0, 8.0, work, cells, z);
    LENS_TEST(n == 0, "case 2 zmin 8: %d cells, want 0", n);

    /* Missing cells (0, NaN, inf) are no evidence: 4 x 4 with only 3 valid cells. */
    for (int t = 0; t < 16; t++)
        m[t] = 0;
    m[1] = 1e-6;
    m[4] = NAN;
    m[6] = 2e-6;
    m[9] = INFINITY;
    m[14] = 4e-6;
    n = lens_bench_retest_robust(m, 4, work, &med, &sig);
    LENS_TEST(n == 3, "missing cells: %d used, want 3", n);
    LENS_TEST_REL(med, log(2e-6), 1e-12, "missing cells: median of the three");
    LENS_TEST_REL(sig, 1.4826 * log(2.0), 1e-12, "missing cells: MAD ln 2");
    n = lens_bench_retest_pick(m, 4, 10, LENS_BENCH_RETEST_ZMIN, work, cells, NULL);
    LENS_TEST(n == 3 && cells[0] == 14 && cells[1] == 6 && cells[2] == 1, "missing cells: picks %d", n);
    for (int t = 0; t < 16; t++)
        m[t] = 0;
    LENS_TEST(lens_bench_retest_robust(m, 4, work, &med, &sig) == 0 && isnan(med), "no cell: 0, NaN");
    LENS_TEST(lens_bench_retest_pick(m, 4, 3, 5, work, cells, NULL) == 0, "no cell: no pick");

    /* Sender and receiver: as the cube's sender_index attribute. */
    LENS_TEST(lens_bench_retest_row_is_receiver(LENS_MODE_ONE_TO_ONE), "one_to_one: row receives");
    LENS_TEST(lens_bench_retest_row_is_receiver(LENS_MODE_NOISE), "noise: row receives");
    LENS_TEST(!lens_bench_retest_row_is_receiver(LENS_MODE_PUT), "put: row is the origin");
    LENS_TEST(!lens_bench_retest_row_is_receiver(LENS_MODE_SEND_RECV_AND_RECV_SEND), "send_recv: row sends");
    return LENS_TEST_DONE("test_bench_retest_pick");
}
