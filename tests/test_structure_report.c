/* The results of a cube report are computed before it is drawn (issue 13): lens_structure_report_run
 * gives per-length summaries and slowest pairs equal to a sort of the off-diagonal values done
 * here, and the structure of lens_structure_run itself for the parts asked; lens_report_parts
 * reads which parts a template shows; lens_report_write lays out what it is handed: values no
 * cube gives (a min of 1234.567 us, a gap ratio of 42.42, a score of 99.9) are what the PDF
 * shows, and results that lack a part the template shows are an error that writes nothing. */
#include "analysis/structure/structure.h"
#include "render/doc/report.h"
#include "lens_test.h"
#include "lens_scratch.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The reference summary of length k: every finite off-diagonal value sorted; the slowest pair
 * is the first maximum in row-major order. */
static void reference(const struct lens_cube *c, int stat, int k, struct lens_summary *s, int *row, int *col)
{
    size_t P = (size_t)c->procs, n = 0;
    double *v = malloc(P * P * sizeof *v);
    *row = *col = -1;
    for (size_t i = 0; v && i < P; i++)
        for (size_t j = 0; j < P; j++) {
            double x = LENS_CUBE_AT(c, stat, k, i, j);
            if (i == j || !isfinite(x))
                continue;
            if (n == 0 || x > LENS_CUBE_AT(c, stat, k, *row, *col)) {
                *row = (int)i;
                *col = (int)j;
            }
            v[n++] = x;
        }
    s->count = (long)n;
    s->min = s->median = s->max = NAN;
    if (n > 0) {
        qsort(v, n, sizeof *v, cmp_double);
        s->min = v[0];
        s->max = v[n - 1];
        s->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
    free(v);
}

/* The PDF's text (pdftotext -layout, spaces squeezed) into buf. */
static void pdf_text(const char *path, char *buf, size_t n)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "pdftotext -layout '%s' - 2>/dev/null | tr -s ' '", path);
    FILE *pp = popen(cmd, "r");
    size_t len = pp ? fread(buf, 1, n - 1, pp) : 0;
    buf[len] = '\0';
    if (pp)
        pclose(pp);
}

/* Writes text into the scratch file name and returns its path. */
static const char *scratch_file(const char *name, const char *text)
{
    const char *p = lens_scratch_path(name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    return p;
}

/* lens_report_parts of a template holding the given per-cube sections. */
static unsigned parts_of(struct lens_report_opts *o, const struct lens_report_input *in, const char *sections,
                         int *rc, struct lens_err *e)
{
    char text[1024];
    snprintf(text, sizeof text, "section title\ntitle t\nrepeat inputs\n%send\n", sections);
    o->template_path = scratch_file("sections.txt", text);
    unsigned parts = 0;
    *rc = lens_report_parts(o, in, 1, &parts, e);
    o->template_path = NULL;
    return parts;
}

int main(void)
{
    if (lens_scratch_open("test_structure_report") != 0)
        return 1;
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_cube *c = NULL;
    LENS_TEST(lens_cube_read("samples/cubes/synth32/network", &c, &e) == LENS_OK, "read: %s", e.msg);
    if (!c)
        return LENS_TEST_DONE("test_structure_report");

    /* ---- the summaries against a sort, for two statistics ---- */
    static const int stats[2] = {LENS_STAT_MEDIAN, LENS_STAT_MIN};
    for (int si = 0; si < 2; si++) {
        struct lens_structure_report res;
        int rc = lens_structure_report_run(c, stats[si], 0, &res, &e);
        LENS_TEST(rc == LENS_OK && res.nlen == c->nlen && res.parts == 0 && !res.st.z && !res.st.an,
                  "summaries only: %s", e.msg);
        int bad = 0;
        for (int k = 0; rc == LENS_OK && k < c->nlen; k++) {
            struct lens_summary want;
            int row, col;
            reference(c, stats[si], k, &want, &row, &col);
            const struct lens_structure_report_length *l = &res.len[k];
            bad += l->s.min != want.min || l->s.max != want.max || l->s.count != want.count ||
                   !lens_test_rel_ok(l->s.median, want.median, 1e-12) || l->slow_row != row || l->slow_col != col;
        }
        LENS_TEST(bad == 0, "%s: %d of %d lengths differ from the sorted reference", lens_cube_stat_name(stats[si]),
                  bad, c->nlen);
        lens_structure_report_release(&res);
    }

    /* ---- the structure is lens_structure_run's, the parts as asked ---- */
    struct lens_structure_opts so;
    lens_structure_opts_default(&so);
    struct lens_structure ref;
    LENS_TEST(lens_structure_run(c, &so, &ref, &e) == LENS_OK && ref.z && ref.an, "reference structure: %s", e.msg);
    struct lens_structure_report all, an;
    LENS_TEST(lens_structure_report_run(c, LENS_STAT_MEDIAN, LENS_STRUCTURE_ALL, &all, &e) == LENS_OK, "all: %s",
              e.msg);
    LENS_TEST(all.st.k == ref.k && all.st.k > 1 &&
                  !memcmp(all.st.label, ref.label, (size_t)c->procs * sizeof *ref.label),
              "the cut is lens_structure_run's: %d groups against %d", all.st.k, ref.k);
    LENS_TEST(all.st.an && all.st.an->n == ref.an->n && all.st.links && all.st.nj && all.st.matrix,
              "every part present, %d anomalies against %d", all.st.an ? all.st.an->n : -1, ref.an->n);
    LENS_TEST(lens_structure_report_run(c, LENS_STAT_MEDIAN, LENS_STRUCTURE_ANOMALIES, &an, &e) == LENS_OK &&
                  !an.st.z && !an.st.links && an.st.an && an.st.an->n == ref.an->n,
              "anomalies only: no tree, the same %d findings", ref.an->n);
    lens_structure_report_release(&an);
    LENS_TEST(lens_structure_report_run(c, LENS_STAT_DEVIATION, LENS_STRUCTURE_ANOMALIES, &an, &e) == LENS_OK &&
                  an.st.an && an.st.an->stat != LENS_STAT_DEVIATION,
              "a spread is not searched for delays: anomalies of %s",
              an.st.an ? lens_cube_stat_name(an.st.an->stat) : "none");
    lens_structure_report_release(&an);
    lens_structure_release(&ref);

    /* ---- bad arguments ---- */
    struct lens_structure_report none;
    double *avg = c->data[LENS_STAT_AVERAGE];
    c->data[LENS_STAT_AVERAGE] = NULL;
    LENS_TEST(lens_structure_report_run(c, LENS_STAT_AVERAGE, 0, &none, &e) == LENS_EINVAL &&
                  strstr(e.msg, "average"), "absent statistic: %s", e.msg);
    c->data[LENS_STAT_AVERAGE] = avg;
    lens_structure_report_release(&none);
    LENS_TEST(lens_structure_report_run(c, LENS_STAT_MEDIAN, 1u << 20, &none, &e) == LENS_EINVAL, "bad parts");
    lens_structure_report_release(&none);

    /* ---- allocation failures: each one reported, nothing leaked (ASan) ---- */
    int steps = 0, reported = 0;
    for (long n = 1; n < 100000; n += n < 200 ? 1 : 7, steps++) {
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        int rc = lens_structure_report_run(c, LENS_STAT_MEDIAN, LENS_STRUCTURE_ALL, &none, &e);
        lens_malloc_fail_after(0);
        lens_structure_report_release(&none);
        if (rc == LENS_OK)
            break;
        reported += rc == LENS_ENOMEM && e.msg[0] != '\0';
    }
    LENS_TEST(steps > 50 && reported == steps, "allocation failures reported: %d of %d", reported, steps);

    /* ---- which parts a template shows ---- */
    char datadir[PATH_MAX];
    LENS_TEST(lens_report_datadir(datadir, sizeof datadir, &e) == LENS_OK, "datadir: %s", e.msg);
    struct lens_report_input in = {.name = "synth32", .cube = c};
    struct lens_report_opts o;
    lens_report_opts_init(&o);
    o.datadir = datadir;
    o.date = 1795219200LL;
    int rc;
    unsigned parts = parts_of(&o, &in, "section summary\n", &rc, &e);
    LENS_TEST(rc == LENS_OK && parts == 0, "summary only: parts %#x %s", parts, e.msg);
    parts = parts_of(&o, &in, "section anomalies\n", &rc, &e);
    LENS_TEST(rc == LENS_OK && parts == LENS_STRUCTURE_ANOMALIES, "anomalies: parts %#x %s", parts, e.msg);
    parts = parts_of(&o, &in, "section structure\n", &rc, &e);
    LENS_TEST(rc == LENS_OK && parts == (LENS_STRUCTURE_ALL & ~(unsigned)LENS_STRUCTURE_ANOMALIES),
              "structure: parts %#x %s", parts, e.msg);
    parts = parts_of(&o, &in, "section nosuch\n", &rc, &e);
    LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, "sections.txt:4") && strstr(e.msg, "nosuch"),
              "an unknown section is found before anything is computed: %s", e.msg);
    o.stat = LENS_STAT_AVERAGE;
    c->data[LENS_STAT_AVERAGE] = NULL;
    LENS_TEST(lens_report_parts(&o, &in, 1, &parts, &e) == LENS_EDATA && strstr(e.msg, "synth32"),
              "absent statistic: %s", e.msg);
    c->data[LENS_STAT_AVERAGE] = avg;
    o.stat = LENS_STAT_MEDIAN;
    LENS_TEST(lens_report_parts(&o, &in, 1, &parts, &e) == LENS_OK && parts == LENS_STRUCTURE_ALL,
              "the default template shows every part: %#x", parts);

    /* allocation failures while the template is read for its parts: reported, nothing leaked */
    int psteps = 0, preported = 0;
    for (long n = 1; n < 10000; n++, psteps++) {
        lens_err_clear(&e);
        lens_malloc_fail_after(n);
        rc = lens_report_parts(&o, &in, 1, &parts, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK)
            break;
        preported += rc == LENS_ENOMEM && e.msg[0] != '\0';
    }
    LENS_TEST(psteps > 10 && preported == psteps, "template allocation failures reported: %d of %d", preported,
              psteps);

    /* ---- the report lays out what it is handed ---- */
    const char *pdf = lens_scratch_path("r.pdf");
    int lengths[1] = {0};
    o.lengths = lengths;
    o.nlengths = 1;
    LENS_TEST(lens_report_write(&o, &in, 1, pdf, &e) == LENS_EINVAL && strstr(e.msg, "synth32") &&
                  !lens_scratch_exists(pdf), "a cube without results: %s", e.msg);
    struct lens_structure_report part;
    LENS_TEST(lens_structure_report_run(c, LENS_STAT_MEDIAN, LENS_STRUCTURE_ANOMALIES, &part, &e) == LENS_OK, "%s",
              e.msg);
    in.results = &part;
    LENS_TEST(lens_report_write(&o, &in, 1, pdf, &e) == LENS_EINVAL && strstr(e.msg, "synth32") &&
                  !lens_scratch_exists(pdf), "results without the structure the template shows: %s", e.msg);
    lens_structure_report_release(&part);
    in.results = &all;
    o.stat = LENS_STAT_MIN;
    LENS_TEST(lens_report_write(&o, &in, 1, pdf, &e) == LENS_EINVAL && !lens_scratch_exists(pdf),
              "results of another statistic: %s", e.msg);
    o.stat = LENS_STAT_MEDIAN;

    /* values no cube gives (4 significant digits in the table: 1235 µs, 2500 µs); the mode is
     * one_to_one, so row 5, column 9 is "9 -> 5" */
    all.len[0].s.min = 1.234567e-3;
    all.len[0].s.median = 2.5e-3;
    all.len[0].slow_row = 5;
    all.len[0].slow_col = 9;
    all.st.autocut.ratio = 42.42;
    if (all.st.an && all.st.an->n > 0)
        all.st.an->items[0].score = 99.9;
    LENS_TEST(lens_report_write(&o, &in, 1, pdf, &e) == LENS_OK, "report: %s", e.msg);
    static char text[1 << 20];
    pdf_text(pdf, text, sizeof text);
    char pair[128];
    snprintf(pair, sizeof pair, "9 -> 5 (%s -> %s)", c->hosts[9], c->hosts[5]);
    LENS_TEST(strstr(text, "1235") && strstr(text, "2500"), "the handed summary is in the table");
    LENS_TEST(strstr(text, pair) != NULL, "the handed slowest pair %s is in the table", pair);
    LENS_TEST(strstr(text, "42.42 times") != NULL, "the handed gap ratio is in the words");
    LENS_TEST(strstr(text, " 99.9 ") != NULL, "the handed score heads the anomalies");

    LENS_TEST(lens_scratch_leftovers() == 0, "no temporary file left by the refused reports");

    lens_structure_report_release(&all);
    lens_cube_free(c);
    if (!lens_test_failed)
        lens_scratch_close();
    return LENS_TEST_DONE("test_structure_report");
}
