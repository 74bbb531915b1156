/* mpilens decompress: restores a network_test2 cube from a packed cube, and/or checks the
 * decoded values against the original cube element by element, or prints one pair's curve
 * through the positional index without decoding the cube (--pair). */
#include "cli.h"

#include "analysis/cube/cube.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LENS_COMMAND(decompress, "restore a cube packed by 'mpilens compress', or verify it against the original");

static void help(void)
{
    printf("usage: mpilens decompress PACKED.nc [-o PREFIX] [--force] [--verify INPUT]\n"
           "       mpilens decompress PACKED.nc --pair I,J\n\n"
           "Decodes a packed cube length by length. -o writes PREFIX_{stat}.nc and PREFIX_hosts.txt\n"
           "in the network_test2 layout. --verify compares every decoded element with the cube\n"
           "INPUT, prints the max and RMS relative errors, and fails (exit 1) if any element is\n"
           "outside the bound the cube was packed with. --pair prints the curve of row I, column J\n"
           "(one line per length, one column per statistic; the first line says which rank is the\n"
           "sender) read through the file's\n"
           "index: time and memory do not grow with the number of pairs.\n\n"
           "options:\n"
           "  -o, --output PREFIX   write the decoded cube\n"
           "  --force               overwrite an existing result\n"
           "  --verify INPUT        compare with the original cube\n"
           "  --pair I,J            print the decoded curve of pair I,J (ranks from 0)\n"
           "  -h, --help            show this help\n\n"
           "example:\n"
           "  mpilens decompress synth32.lcz.nc -o restored/network\n"
           "  mpilens decompress synth32.lcz.nc --verify samples/cubes/synth32/network\n"
           "  mpilens decompress synth32.lcz.nc --pair 3,17\n");
}

/* What --verify gathers per statistic: the largest and the sum of squared relative errors
 * over the n finite elements compared, and how many elements broke the bound. */
struct check {
    double max, sum2;
    long n, bad;
};

/* Relative error of decoded d against v; NaN and infinities must match exactly. */
static void compare(struct check *ck, double d, double v, double bound)
{
    /* a non-finite original (a failed measurement) has no relative error: the packer decodes
     * NaN and infinities exactly, so anything else is a defect */
    if (!isfinite(v)) {
        ck->bad += !(isnan(v) ? isnan(d) : d == v);
        return;
    }
    /* A zero original allows only a zero: any other value is an infinite relative error. The
     * test is !(r <= bound), not r > bound, so that a NaN decoded from a finite value fails. */
    double r = v != 0 ? fabs(d - v) / fabs(v) : (d == 0 ? 0 : INFINITY);
    ck->max = fmax(ck->max, r);
    ck->sum2 += r * r;
    ck->n++;
    ck->bad += !(r <= bound);
}

/* Decodes PACKED.nc one length at a time (one P x P matrix per statistic in memory, not
 * the whole cube), writing and/or comparing as it goes. Errors: those of the packed reader
 * and the cube reader and writer, LENS_EDATA for a mismatched original or an element out of
 * the bound, LENS_EIO for an existing output without --force. */
static int run(const char *path, const char *prefix, const char *verify, int force, struct lens_err *e)
{
    struct lens_cube *m = NULL, *orig = NULL;
    struct lens_packed *p[LENS_STAT_COUNT];
    struct lens_packed_decoder *u[LENS_STAT_COUNT] = {NULL};
    struct lens_cube_writer *w = NULL;
    double *mats[LENS_STAT_COUNT] = {NULL};
    struct check ck[LENS_STAT_COUNT];
    memset(ck, 0, sizeof ck);
    int rc = lens_packed_read(path, &m, p, e);
    if (rc != LENS_OK)
        return rc;
    size_t P2 = (size_t)m->procs * m->procs;
    unsigned mask = 0;
    double bound = 0;
    /* every statistic is packed with the one --max-error of `compress`, so any p[s] gives it */
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
        if (!p[s])
            continue;
        mask |= 1u << s;
        bound = p[s]->max_error;
        rc = lens_packed_decoder_new(&u[s], p[s], e);
        if (rc == LENS_OK && !(mats[s] = lens_malloc(P2 * sizeof(double))))
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    /* The original must have the same shape: comparing a 32-process cube with a 64-process one
     * element by element would report nonsense errors, not a mismatch. */
    if (rc == LENS_OK && verify && (rc = lens_cube_read(verify, &orig, e)) == LENS_OK &&
        (orig->procs != m->procs || orig->nlen != m->nlen))
        rc = lens_err_set(e, LENS_EDATA, "%s: %d processes x %d lengths, but %s has %d x %d", verify, orig->procs,
                          orig->nlen, path, m->procs, m->nlen);
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK && orig; s++)
        if (p[s] && !orig->data[s])
            rc = lens_err_set(e, LENS_EDATA, "%s: no %s statistic to compare with", verify, lens_cube_stat_name(s));
    if (rc == LENS_OK && prefix) {
        /* refuse to replace a result unless asked, as `convert` does */
        if (!force && lens_cube_exists(prefix))
            rc = lens_err_set(e, LENS_EIO, "%s: a result with this prefix exists; use --force to overwrite", prefix);
        char b[32];
        snprintf(b, sizeof b, "%g", bound);
        /* the bound travels with the restored files: their values are not the measured ones */
        const char *attrs[] = {"mpilens_decompressed_from", path, "mpilens_max_error", b, NULL, NULL};
        if (rc == LENS_OK)
            rc = lens_cube_writer_open(&w, m, prefix, mask, 0, attrs, 0, e);
    }
    /* Lengths in order: the decoder is a stream that carries the partition of the pairs into
     * groups from one length to the next (analysis/cube/packed.h). */
    for (int k = 0; k < m->nlen && rc == LENS_OK; k++) {
        for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
            if (!p[s])
                continue;
            rc = lens_packed_decoder_next(u[s], mats[s], e);
            for (size_t q = 0; q < P2 && orig && rc == LENS_OK; q++)
                /* the finite diagonal is a process's time to itself, not a measurement, and is not
                 * compared; a non-finite one is, since the packer must keep it */
                if (q / m->procs != q % m->procs || !isfinite(orig->data[s][k * P2 + q]))
                    compare(&ck[s], mats[s][q], orig->data[s][k * P2 + q], bound);
        }
        if (rc == LENS_OK && w)
            rc = lens_cube_writer_put(w, k, (const double *const *)mats, NULL, e);
    }
    /* a failed run aborts the writer: no half-written cube is left under PREFIX */
    if (w) {
        if (rc == LENS_OK)
            rc = lens_cube_writer_close(w, e);
        else
            lens_cube_writer_abort(w);
    }
    if (rc == LENS_OK && prefix)
        fprintf(stderr, "mpilens: wrote %s_*.nc (%d processes, %d lengths)\n", prefix, m->procs, m->nlen);
    long bad = 0;
    /* The table goes to stdout whether or not the bound held: the errors are the answer a
     * person asked for; an element out of the bound then makes the status 1. */
    if (rc == LENS_OK && orig) {
        printf("%-10s %12s %12s %12s  %s\n", "statistic", "elements", "max error", "RMS error", "within the bound");
        for (int s = 0; s < LENS_STAT_COUNT; s++) {
            if (!p[s])
                continue;
            printf("%-10s %12ld %11.4f%% %11.4f%%  %s\n", lens_cube_stat_name(s), ck[s].n + ck[s].bad,
                   100 * ck[s].max, ck[s].n ? 100 * sqrt(ck[s].sum2 / ck[s].n) : 0.0,
                   ck[s].bad ? "NO" : "yes");
            bad += ck[s].bad;
        }
        /* says what was compared, so that "elements" above is not read as P x P x lengths */
        printf("bound %g%% (off-diagonal elements, and non-finite diagonal ones)\n", 100 * bound);
        if (bad)
            rc = lens_err_set(e, LENS_EDATA, "%s: %ld elements outside the bound of %g", path, bad, bound);
    }
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        lens_packed_decoder_free(u[s]);
        lens_packed_free(p[s]);
        lens_free(mats[s]);
    }
    lens_cube_free(orig);
    lens_cube_free(m);
    return rc;
}

/* --pair: the pair's column of the stored partitions only, then the index (docs/links.md,
 * "Packed cubes"). A file written before the index existed is read whole and its index rebuilt
 * by one decode. %.17g: the printed values are the decoded doubles exactly. */
static int run_pair(const char *path, int i, int j, struct lens_err *e)
{
    struct lens_cube *m = NULL;
    struct lens_packed *p[LENS_STAT_COUNT];
    struct lens_packed_index *x[LENS_STAT_COUNT] = {NULL};
    double *curve[LENS_STAT_COUNT] = {NULL};
    int rc = lens_packed_read_pair(path, i, j, &m, p, e);
    int old = 0;
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++)
        old |= p[s] && !p[s]->value_group;
    if (rc == LENS_OK && old) {
        for (int s = 0; s < LENS_STAT_COUNT; s++)
            lens_packed_free(p[s]);
        lens_cube_free(m);
        m = NULL;
        rc = lens_packed_read(path, &m, p, e);
    }
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
        if (!p[s])
            continue;
        if ((rc = lens_packed_index_new(&x[s], p[s], e)) != LENS_OK)
            break;
        if (!(curve[s] = lens_malloc((size_t)m->nlen * sizeof(double))))
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
        else
            rc = lens_packed_curve(x[s], i, j, curve[s], e);
    }
    if (rc == LENS_OK) {
        printf("# %s: pair %d,%d (%s), seconds\n%-10s", path, i, j, lens_cube_mode_semantics(m->mode), "length");
        for (int s = 0; s < LENS_STAT_COUNT; s++)
            if (p[s])
                printf(" %24s", lens_cube_stat_name(s));
        printf("\n");
        for (int k = 0; k < m->nlen; k++) {
            printf("%-10d", m->begin + k * m->step);
            for (int s = 0; s < LENS_STAT_COUNT; s++)
                if (p[s])
                    printf(" %24.17g", curve[s][k]);
            printf("\n");
        }
    } else if (m && !strstr(e->msg, path)) {
        /* the library names the pair; the file is named here */
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        lens_err_set(e, e->code, "%s: %s", path, msg);
    }
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        lens_packed_index_free(x[s]);
        lens_packed_free(p[s]); /* NULL after a failed read */
        lens_free(curve[s]);
    }
    lens_cube_free(m);
    return rc;
}

/* "I,J": two ranks, nothing else. */
static int parse_pair(const char *s, int *i, int *j)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || *end != ',')
        return 0;
    const char *t = end + 1;
    long b = strtol(t, &end, 10);
    if (end == t || *end || a < 0 || b < 0 || a > 1 << 15 || b > 1 << 15)
        return 0;
    *i = (int)a;
    *j = (int)b;
    return 1;
}

int cmd_decompress(int argc, char **argv)
{
    enum { O_FORCE = 256, O_VERIFY, O_PAIR };
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"force", no_argument, NULL, O_FORCE},
                                         {"verify", required_argument, NULL, O_VERIFY},
                                         {"pair", required_argument, NULL, O_PAIR},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *prefix = NULL, *verify = NULL, *pair = NULL;
    /* --force and --verify are long only: one letter each would be too easy to mistype for -o */
    int force = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': prefix = optarg; break;
        case O_FORCE: force = 1; break;
        case O_VERIFY: verify = optarg; break;
        case O_PAIR: pair = optarg; break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("decompress", "unknown option");
        }
    }
    if (optind != argc - 1)
        return lens_cli_usage("decompress", "expected one PACKED.nc, got %d", argc - optind);
    struct lens_err e;
    lens_err_clear(&e);
    if (pair) {
        int i, j;
        if (prefix || verify)
            return lens_cli_usage("decompress", "--pair prints one curve: not with -o or --verify");
        if (!parse_pair(pair, &i, &j))
            return lens_cli_usage("decompress", "--pair '%s': expected I,J, two ranks from 0", pair);
        if (run_pair(argv[optind], i, j, &e) != LENS_OK)
            return lens_cli_fail(&e);
        return LENS_EXIT_OK;
    }
    /* decoding into nothing would be a run that checks and writes nothing: a usage error */
    if (!prefix && !verify)
        return lens_cli_usage("decompress", "nothing to do: give -o PREFIX, --verify INPUT or --pair I,J");
    if (run(argv[optind], prefix, verify, force, &e) != LENS_OK)
        return lens_cli_fail(&e);
    return LENS_EXIT_OK;
}
