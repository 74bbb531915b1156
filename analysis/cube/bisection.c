/* The reader of PREFIX_bisection.csv (bisection.h) and its summary over the rounds, for
 * `mpilens info` and the bisection.bandwidth metrics of `mpilens accept` (docs/accept.md). */
#include "bisection.h"

#include "csvstrict.h"
#include "common/alloc.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The bench's file name after its -f prefix (bisect_run.c). */
static const char suffix[] = "_bisection.csv";

/* Whether input names the CSV itself rather than the -f prefix it was written under. */
static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && !strcmp(s + n - m, tail);
}

int lens_bisection_probe(const char *input)
{
    /* by name and existence only, like the other probes (the p2p sweep's): reading is the
     * reader's job, so a damaged file is reported by it and not mistaken for "not mine" */
    struct stat sb;
    if (ends_with(input, suffix))
        return stat(input, &sb) == 0;
    /* a prefix: the path is built on the stack, the probe must not allocate */
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s%s", input, suffix) >= sizeof path)
        return 0;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The rounds read so far; cap doubles as rows arrive (the count is not in the file). */
struct acc {
    struct lens_bisection *b;
    int cap;
};

/* One round in LENS_BISECTION_HEADER's order: round, pairs, bytes, seconds, the two rates,
 * the slowest flow's ranks. Beyond the syntax, the columns must agree with each other the
 * way bisect_run.c computes them, so a hand-edited value cannot pass unnoticed. */
static int row(void *arg, const struct lens_csvstrict *c, struct lens_err *e)
{
    struct acc *a = arg;
    struct lens_bisection_round u;
    long long v[4];
    static const char *const inames[] = {"round", "pairs", "slowest_sender", "slowest_receiver"};
    static const int icol[] = {0, 1, 6, 7};
    int rc = LENS_OK;
    /* a round has at least one pair (two ranks): the bench refuses fewer */
    for (int f = 0; f < 4 && rc == LENS_OK; f++)
        rc = lens_csvstrict_int(c, icol[f], inames[f], f == 1, INT_MAX, &v[f], e);
    static const char *const dnames[] = {"bytes", "seconds", "bandwidth_Bps", "slowest_pair_Bps"};
    double *dv[] = {&u.bytes, &u.seconds, &u.bandwidth_Bps, &u.slowest_pair_Bps};
    for (int f = 0; f < 4 && rc == LENS_OK; f++)
        rc = lens_csvstrict_double(c, 2 + f, dnames[f], 0, dv[f], e);
    if (rc != LENS_OK)
        return rc;
    /* the bounds above make these casts exact */
    u.round = (int)v[0];
    u.pairs = (int)v[1];
    u.slowest_sender = (int)v[2];
    u.slowest_receiver = (int)v[3];
    /* rounds in order from 0: a missing or repeated round is a damaged or concatenated file */
    if (u.round != a->b->n)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: round %d, expected %d", c->path, c->line,
                            c->col[0], u.round, a->b->n);
    if (!(u.seconds > 0))
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: column 'seconds': %s is not positive",
                            c->path, c->line, c->col[3], c->field[3]);
    if (!(u.bytes > 0) || u.bytes != floor(u.bytes))
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: column 'bytes': %s is not a positive "
                            "whole number", c->path, c->line, c->col[2], c->field[2]);
    /* the bench prints bandwidth_Bps = bytes / seconds with 9 digits: more than a part in 1e6
     * off means the columns do not belong together; the slowest flow is at most the aggregate */
    if (!(fabs(u.bandwidth_Bps - u.bytes / u.seconds) <= 1e-6 * u.bandwidth_Bps))
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: column 'bandwidth_Bps': %s is not bytes / "
                            "seconds (%.9g)", c->path, c->line, c->col[4], c->field[4], u.bytes / u.seconds);
    if (!(u.slowest_pair_Bps > 0 && u.slowest_pair_Bps <= u.bandwidth_Bps * (1 + 1e-6)))
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: column 'slowest_pair_Bps': %s is not in "
                            "(0, bandwidth_Bps]", c->path, c->line, c->col[5], c->field[5]);
    if (u.slowest_sender == u.slowest_receiver)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: slowest sender and receiver are both rank %d",
                            c->path, c->line, c->col[6], u.slowest_sender);
    /* grow before storing: on ENOMEM the rounds read so far stay valid and are freed whole */
    if (a->b->n == a->cap) {
        int cap = a->cap ? 2 * a->cap : 16;
        struct lens_bisection_round *p = lens_realloc(a->b->r, (size_t)cap * sizeof *p);
        if (!p)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", c->path);
        a->b->r = p;
        a->cap = cap;
    }
    a->b->r[a->b->n++] = u;
    return LENS_OK;
}

/* The fields of struct lens_bisection_prov in LENS_BISECTION_PROV_KEYS order. */
static char **prov_field(struct lens_bisection_prov *p, int k)
{
    char **f[LENS_BISECTION_NPROV] = {&p->measured_at, &p->mpi, &p->launcher, &p->binding, &p->cores_per_host};
    return f[k];
}

/* "# key: value" ahead of the header. Unknown keys and free text are skipped, so a later bench
 * may add lines; a known key twice is two runs pasted together and refused. */
static int comment(void *arg, const struct lens_csvstrict *c, const char *text, struct lens_err *e)
{
    struct acc *a = arg;
    static const char *const keys[] = LENS_BISECTION_PROV_KEYS;
    while (*text == ' ')
        text++;
    for (int k = 0; k < LENS_BISECTION_NPROV; k++) {
        size_t n = strlen(keys[k]);
        if (strncmp(text, keys[k], n) || text[n] != ':')
            continue;
        char **f = prov_field(&a->b->prov, k);
        if (*f)
            return lens_err_set(e, LENS_EFORMAT, "%s:%ld:1: '%s' given twice", c->path, c->line, keys[k]);
        const char *v = text + n + 1;
        while (*v == ' ')
            v++;
        if (!(*f = lens_strdup(v)))
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", c->path);
        return LENS_OK;
    }
    return LENS_OK;
}

int lens_bisection_read(const char *input, struct lens_bisection **out, struct lens_err *e)
{
    /* *out stays NULL on every failure: a caller never sees half a run */
    *out = NULL;
    struct lens_bisection *b = lens_calloc(1, sizeof *b);
    size_t n = strlen(input) + sizeof suffix;
    if (b)
        b->path = lens_malloc(n);
    if (!b || !b->path) {
        lens_free(b);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", input);
    }
    /* the CSV itself, or its prefix as the bench's -f took it */
    snprintf(b->path, n, "%s%s", input, ends_with(input, suffix) ? "" : suffix);
    /* eight fields: the header's count, which lens_csvstrict_read holds every row to */
    struct acc a = {b, 0};
    int rc = lens_csvstrict_read_commented(b->path, LENS_BISECTION_HEADER, 8, comment, row, &a, e);
    if (rc != LENS_OK) {
        lens_bisection_free(b);
        return rc;
    }
    *out = b;
    return LENS_OK;
}

void lens_bisection_free(struct lens_bisection *b)
{
    if (!b)
        return;
    lens_free(b->path);
    lens_free(b->r);
    for (int k = 0; k < LENS_BISECTION_NPROV; k++)
        lens_free(*prov_field(&b->prov, k));
    lens_free(b);
}

/* Ascending order for qsort; the values are finite (the reader refuses NaN and inf), so the
 * comparison is a total order. */
static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int lens_bisection_summarise(const struct lens_bisection *b, struct lens_bisection_summary *s,
                             struct lens_err *e)
{
    memset(s, 0, sizeof *s);
    s->rounds = b->n;
    double *v = lens_malloc((size_t)b->n * sizeof *v);
    if (!v)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", b->path);
    /* the sum in file order: accept's .avg is documented as this mean, and a test recomputes
     * it in the same order, so the two agree to the last bit */
    double sum = 0;
    s->min_Bps = s->worst_pair_Bps = INFINITY;
    for (int r = 0; r < b->n; r++) {
        const struct lens_bisection_round *u = &b->r[r];
        v[r] = u->bandwidth_Bps;
        sum += u->bandwidth_Bps;
        /* strict <: ties keep the earliest round */
        if (u->bandwidth_Bps < s->min_Bps) {
            s->min_Bps = u->bandwidth_Bps;
            s->min_round = u->round;
        }
        if (u->bandwidth_Bps > s->max_Bps) {
            s->max_Bps = u->bandwidth_Bps;
            s->max_round = u->round;
        }
        if (u->slowest_pair_Bps < s->worst_pair_Bps) {
            s->worst_pair_Bps = u->slowest_pair_Bps;
            s->worst_round = u->round;
            s->worst_sender = u->slowest_sender;
            s->worst_receiver = u->slowest_receiver;
        }
    }
    /* a sort, not a selection: the rounds are few (the bench's -r, default 10) */
    qsort(v, (size_t)b->n, sizeof *v, cmp_double);
    /* the median as docs/bench.md's statistics define it: the mean of the middle two */
    s->median_Bps = b->n % 2 ? v[b->n / 2] : 0.5 * (v[b->n / 2 - 1] + v[b->n / 2]);
    s->avg_Bps = sum / b->n;
    lens_free(v);
    return LENS_OK;
}
