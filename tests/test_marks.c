/* Teplov's marks on grids worked out by hand (docs/methods.md §8), the ranking's tie
 * order, the sentences and their template file. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/scale/marks.h"
#include "lens_test.h"

/* A grid over caller-owned arrays (no allocation, nothing to free). */
static struct lens_grid grid(const char *app, size_t np, double *p, size_t nd, double *d, double *e)
{
    struct lens_grid g = {.app = (char *)app, .np = np, .nd = nd, .procs = p, .size = d, .eff = e};
    return g;
}

static void test_single_element(void)
{
    /* p = 3, 7; d = 1100, 2900. E11 = .83, E12 = .61 (p2, d1), E21 = .91 (p1, d2), E22 = .72.
     * dEP = ((.61 - .83) + (.72 - .91)) / 2 = -0.205; dED = ((.91 - .83) + (.72 - .61)) / 2 = 0.095;
     * dEA = (-0.205 + 0.095) / 2 = -0.055; one element: the weights are 1. */
    double p[] = {3, 7}, d[] = {1100, 2900}, e[] = {0.83, 0.61, 0.91, 0.72};
    struct lens_grid g = grid("one", 2, p, 2, d, e);
    struct lens_marks m;
    struct lens_err err = {0};
    LENS_TEST(lens_marks_compute(&g, &m, &err) == LENS_OK, "compute: %s", err.msg);
    LENS_TEST_REL(m.mark_procs, -0.205, 1e-12, "single element mark_procs");
    LENS_TEST_REL(m.mark_data, 0.095, 1e-12, "single element mark_data");
    LENS_TEST_REL(m.mark_all, -0.055, 1e-12, "single element mark_all");
    LENS_TEST(m.mark_procs < 0, "paper's sign: efficiency falling with p gives a negative mark");
    LENS_TEST_REL(m.max_e, 0.91, 0, "max E");
    LENS_TEST_REL(m.min_e, 0.61, 0, "min E");
    LENS_TEST(m.min_p == 3 && m.max_p == 7 && m.min_d == 1100 && m.max_d == 2900, "ranges");
    LENS_TEST(m.n_elements == 1, "one element, got %zu", m.n_elements);
}

static void test_constant_shift(void)
{
    /* 4 processes x 3 sizes with uneven spacing; adding 0.137 everywhere moves only max/min E. */
    double p[] = {1, 3, 4, 9}, d[] = {250, 600, 1700};
    double e[] = {0.97, 0.71, 0.66, 0.38, 0.99, 0.83, 0.74, 0.52, 1.00, 0.88, 0.79, 0.61};
    double s[12];
    for (int k = 0; k < 12; k++)
        s[k] = e[k] + 0.137;
    struct lens_grid g = grid("a", 4, p, 3, d, e), h = grid("b", 4, p, 3, d, s);
    struct lens_marks m, n;
    lens_marks_compute(&g, &m, NULL);
    lens_marks_compute(&h, &n, NULL);
    LENS_TEST_REL(n.mark_procs, m.mark_procs, 1e-12, "shift keeps mark_procs");
    LENS_TEST_REL(n.mark_data, m.mark_data, 1e-12, "shift keeps mark_data");
    LENS_TEST_REL(n.mark_all, m.mark_all, 1e-12, "shift keeps mark_all");
    LENS_TEST_REL(n.max_e, m.max_e + 0.137, 1e-12, "shift moves max E");
    LENS_TEST_REL(n.min_e, m.min_e + 0.137, 1e-12, "shift moves min E");
    /* and the full grid by hand: 6 elements; markP_k = dEP_k * dp / 8 */
    double sp = 0, sd = 0, sa = 0;
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 3; i++) {
            double e11 = e[4 * j + i], e12 = e[4 * j + i + 1], e21 = e[4 * (j + 1) + i],
                   e22 = e[4 * (j + 1) + i + 1];
            double dep = ((e12 - e11) + (e22 - e21)) / 2, ded = ((e21 - e11) + (e22 - e12)) / 2;
            double dp = p[i + 1] - p[i], dd = d[j + 1] - d[j];
            sp += dep * dp / 8;
            sd += ded * dd / 1450;
            sa += (dep + ded) / 2 * dp * dd / (8 * 1450.0);
        }
    LENS_TEST_REL(m.mark_procs, sp / 6, 1e-12, "4x3 mark_procs");
    LENS_TEST_REL(m.mark_data, sd / 6, 1e-12, "4x3 mark_data");
    LENS_TEST_REL(m.mark_all, sa / 6, 1e-12, "4x3 mark_all");
    LENS_TEST(m.n_elements == 6, "6 elements, got %zu", m.n_elements);
}

static void test_symmetric_zero(void)
{
    /* Efficiency rises by 0.3 from p = 2 to 4 and falls by 0.3 from 4 to 6 at both sizes:
     * equal weights, so MarkProcs = 0; nothing changes with d, so MarkData = MarkAll = 0. */
    double p[] = {2, 4, 6}, d[] = {5000, 7000}, e[] = {0.5, 0.8, 0.5, 0.5, 0.8, 0.5};
    struct lens_grid g = grid("sym", 3, p, 2, d, e);
    struct lens_marks m;
    lens_marks_compute(&g, &m, NULL);
    LENS_TEST(fabs(m.mark_procs) < 1e-15, "symmetric rise and fall gives 0, got %g", m.mark_procs);
    LENS_TEST(fabs(m.mark_data) < 1e-15, "mark_data 0, got %g", m.mark_data);
    LENS_TEST(fabs(m.mark_all) < 1e-15, "mark_all 0, got %g", m.mark_all);
    LENS_TEST(m.n_elements == 2, "2 elements");
}

static void test_missing(void)
{
    /* p = 1, 2, 4; d = 10, 20, 40; E(2, 20) missing. Rows (10, 20) and (20, 40) each share
     * p = 1 and 4 only, so each gives one element from p = 1 to 4 (dp = 3 = range):
     *  rows 10,20: dEP = ((.4-.9)+(.5-.95))/2 = -.475, dED = ((.95-.9)+(.5-.4))/2 = .075
     *              markP = -.475, markD = .075*10/30 = .025, markA = -.2*3*10/90 = -.0666667
     *  rows 20,40: dEP = ((.5-.95)+(.6-.97))/2 = -.41, dED = ((.97-.95)+(.6-.5))/2 = .06
     *              markP = -.41, markD = .06*20/30 = .04, markA = -.175*3*20/90 = -.1166667 */
    double p[] = {1, 2, 4}, d[] = {10, 20, 40};
    double e[] = {0.9, 0.7, 0.4, 0.95, NAN, 0.5, 0.97, 0.85, 0.6};
    struct lens_grid g = grid("hole", 3, p, 3, d, e);
    struct lens_marks m;
    lens_marks_compute(&g, &m, NULL);
    LENS_TEST(m.n_elements == 2, "2 elements around the hole, got %zu", m.n_elements);
    LENS_TEST_REL(m.mark_procs, (-0.475 - 0.41) / 2, 1e-12, "hole mark_procs");
    LENS_TEST_REL(m.mark_data, (0.025 + 0.04) / 2, 1e-12, "hole mark_data");
    LENS_TEST_REL(m.mark_all, (-0.2 / 3 - 0.175 * 2 / 3) / 2, 1e-12, "hole mark_all");
    LENS_TEST_REL(m.max_e, 0.97, 0, "hole max E");
    LENS_TEST_REL(m.min_e, 0.4, 0, "hole min E");

    /* A whole size without any run: its row is skipped and d jumps from 10 to 40. */
    double e2[] = {0.9, 0.7, 0.4, NAN, NAN, NAN, 0.97, 0.85, 0.6};
    g = grid("row", 3, p, 3, d, e2);
    lens_marks_compute(&g, &m, NULL);
    /* elements (1,2)x(10,40) and (2,4)x(10,40): dEP = -.16, -.275; markP = dEP*dp/3 */
    LENS_TEST(m.n_elements == 2, "2 elements over the missing row, got %zu", m.n_elements);
    LENS_TEST_REL(m.mark_procs, (-0.16 * 1 / 3 + -0.275 * 2 / 3) / 2, 1e-12, "row-gap mark_procs");
    /* dED = (.07 + .15)/2 = .11 and (.15 + .2)/2 = .175, weight 30/30 */
    LENS_TEST_REL(m.mark_data, (0.11 + 0.175) / 2, 1e-12, "row-gap mark_data");

    /* Not enough configurations: no element, NaN marks, but the ranges and extremes. */
    double e3[] = {NAN, 0.7, NAN, NAN, 0.5, NAN, NAN, NAN, NAN};
    g = grid("thin", 3, p, 3, d, e3);
    lens_marks_compute(&g, &m, NULL);
    LENS_TEST(m.n_elements == 0 && isnan(m.mark_procs) && isnan(m.mark_all), "no element -> NaN");
    LENS_TEST(m.min_p == 2 && m.max_p == 2 && m.min_d == 10 && m.max_d == 20, "thin ranges");
    LENS_TEST(m.max_e == 0.7 && m.min_e == 0.5, "thin extremes");
    double e4[] = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    g = grid("empty", 3, p, 3, d, e4);
    lens_marks_compute(&g, &m, NULL);
    LENS_TEST(isnan(m.min_p) && isnan(m.max_e), "empty grid gives NaN");
    struct lens_err err = {0};
    LENS_TEST(lens_marks_compute(NULL, &m, &err) == LENS_EINVAL, "NULL grid");
}

static void test_rank(void)
{
    struct lens_marks m[6];
    memset(m, 0, sizeof m);
    const char *names[6] = {"zeta", "alpha", "mid", "nan-b", "nan-a", "alpha"};
    const double v[6] = {-0.0436, -0.0436, 0.00414, NAN, NAN, -0.0436};
    for (int k = 0; k < 6; k++)
        m[k].mark_procs = m[k].mark_data = m[k].mark_all = v[k];
    m[2].mark_data = -1; /* mid first by data */
    size_t order[6];
    struct lens_err err = {0};
    LENS_TEST(lens_marks_rank(m, names, 6, LENS_MARKS_PROCS, order, &err) == LENS_OK, "rank");
    /* equal marks by name, equal names by index, NaN last (by name) */
    const size_t want[6] = {1, 5, 0, 2, 4, 3};
    for (int k = 0; k < 6; k++)
        LENS_TEST(order[k] == want[k], "rank %d: got %zu want %zu", k, order[k], want[k]);
    lens_marks_rank(m, names, 6, LENS_MARKS_DATA, order, &err);
    LENS_TEST(order[0] == 2, "rank by data puts mid first, got %zu", order[0]);
    LENS_TEST(lens_marks_rank(m, names, 6, 7, order, &err) == LENS_EINVAL, "bad key");
    lens_malloc_fail_after(1);
    LENS_TEST(lens_marks_rank(m, names, 6, 0, order, &err) == LENS_ENOMEM, "rank out of memory");
    lens_malloc_fail_after(0);
}

static void test_describe(void)
{
    char buf[256];
    lens_marks_describe(NULL, LENS_MARKS_PROCS, -0.0436, buf, sizeof buf, NULL);
    LENS_TEST(!strcmp(buf, "efficiency falls as processes grow, strongly: -0.04360"), "got '%s'", buf);
    lens_marks_describe(NULL, LENS_MARKS_DATA, 0.00414, buf, sizeof buf, NULL);
    LENS_TEST(!strcmp(buf, "efficiency rises as the problem size grows, moderately: 0.004140"), "got '%s'", buf);
    lens_marks_describe(NULL, LENS_MARKS_ALL, -0.00059, buf, sizeof buf, NULL);
    LENS_TEST(!strcmp(buf, "efficiency falls as processes and problem size grow together, weakly: -0.0005900"),
              "got '%s'", buf);
    lens_marks_describe(NULL, LENS_MARKS_PROCS, -3.06e-06, buf, sizeof buf, NULL);
    LENS_TEST(!strcmp(buf, "efficiency hardly changes as processes grow: -3.06×10^-6"), "got '%s'", buf);
    lens_marks_describe(NULL, LENS_MARKS_PROCS, NAN, buf, sizeof buf, NULL);
    LENS_TEST(!strncmp(buf, "no mark", 7), "NaN: got '%s'", buf);
    char small[12];
    lens_marks_describe(NULL, LENS_MARKS_PROCS, -0.0436, small, sizeof small, NULL);
    LENS_TEST(!strcmp(small, "efficiency "), "truncated safely: '%s'", small);
    LENS_TEST(lens_marks_describe(NULL, 5, 0, buf, sizeof buf, NULL) == LENS_EINVAL, "bad key");

    /* The template file gives the same sentences as the built-in texts. */
    struct lens_marks_text *t = lens_marks_text_new();
    struct lens_err err = {0};
    LENS_TEST(lens_marks_text_load(t, "templates/scale.txt", &err) == LENS_OK, "load: %s", err.msg);
    const double marks[] = {-0.061256, 0.02, -0.0001, 4e-6, 0.5, -2e-3};
    for (int k = 0; k < 6; k++)
        for (int key = 0; key < 3; key++) {
            char a[256], b[256];
            lens_marks_describe(t, key, marks[k], a, sizeof a, NULL);
            lens_marks_describe(NULL, key, marks[k], b, sizeof b, NULL);
            LENS_TEST(!strcmp(a, b), "file and built-in differ: '%s' vs '%s'", a, b);
        }
    /* Overrides, bad lines and unknown keys name the file and line. */
    const char *path = "build/test_marks_texts.txt";
    FILE *fp = fopen(path, "w");
    fprintf(fp, "# x\nprocs.falls = E drops with p ({strength}) {mark}\nthreshold.strong = 0.05\n");
    fclose(fp);
    LENS_TEST(lens_marks_text_load(t, path, &err) == LENS_OK, "override: %s", err.msg);
    lens_marks_describe(t, LENS_MARKS_PROCS, -0.0436, buf, sizeof buf, NULL);
    LENS_TEST(!strcmp(buf, "E drops with p (moderately) -0.04360"), "override: got '%s'", buf);
    fp = fopen(path, "w");
    fprintf(fp, "strength.weak = a bit\nprocs.fall = typo\n");
    fclose(fp);
    LENS_TEST(lens_marks_text_load(t, path, &err) == LENS_EFORMAT, "unknown key");
    LENS_TEST(strstr(err.msg, "test_marks_texts.txt:2: unknown key 'procs.fall'") != NULL, "msg: %s", err.msg);
    fp = fopen(path, "w");
    fprintf(fp, "\nthreshold.flat = lots\n");
    fclose(fp);
    LENS_TEST(lens_marks_text_load(t, path, &err) == LENS_EFORMAT, "bad threshold");
    LENS_TEST(strstr(err.msg, ":2: threshold.flat 'lots'") != NULL, "msg: %s", err.msg);
    fp = fopen(path, "w");
    fprintf(fp, "no equals sign here\n");
    fclose(fp);
    LENS_TEST(lens_marks_text_load(t, path, &err) == LENS_EFORMAT, "no '='");
    LENS_TEST(strstr(err.msg, ":1: expected 'key = text'") != NULL, "msg: %s", err.msg);
    remove(path);
    LENS_TEST(lens_marks_text_load(t, "build/no/such/texts.txt", &err) == LENS_EIO, "missing file");
    LENS_TEST(strstr(err.msg, "build/no/such/texts.txt: cannot open") != NULL, "msg: %s", err.msg);
    lens_marks_text_free(t);
    lens_marks_text_free(NULL);
    lens_malloc_fail_after(1);
    LENS_TEST(lens_marks_text_new() == NULL, "text_new out of memory");
    lens_malloc_fail_after(0);
    /* every allocation of a load fails in turn: ENOMEM, never a leak (ASan checks) */
    int failures = 0;
    for (long k = 1; k < 40; k++) {
        t = lens_marks_text_new();
        lens_malloc_fail_after(k);
        int rc = lens_marks_text_load(t, "templates/scale.txt", &err);
        lens_malloc_fail_after(0);
        lens_marks_text_free(t);
        if (rc == LENS_OK)
            break;
        failures++;
        LENS_TEST(rc == LENS_ENOMEM, "k=%ld: rc %d", k, rc);
    }
    LENS_TEST(failures == 17, "one allocation per text of the file and the line buffer: %d", failures);
}

int main(void)
{
    test_single_element();
    test_constant_shift();
    test_symmetric_zero();
    test_missing();
    test_rank();
    test_describe();
    return LENS_TEST_DONE("test_marks");
}
