/* The reader of PREFIX_retest.csv (retest.h, docs/bench.md "Retests") and the verdict that
 * `info` and `anomalies` give a retested cell: survived (a bad link) or vanished (it was the
 * contention of a parallel sweep). */
#include "retest.h"

#include "csvstrict.h"
#include "common/alloc.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* The role names as the bench writes them, indexed by enum lens_retest_role; "?" for a value
 * no reader produces, so a caller's bug prints rather than reads past the table. */
const char *lens_retest_role_name(int role)
{
    static const char *const names[] = {"worst", "flagged", "control"};
    return role >= 0 && role <= LENS_RETEST_CONTROL ? names[role] : "?";
}

/* The rows read so far; cap doubles, so a file of n rows costs O(n) copies in all. */
struct acc {
    struct lens_retest *r;
    int cap;
};

/* One row, fields in the header's order (LENS_RETEST_HEADER): three integers, four values,
 * the role. The bench writes exactly this, so every check below is a check for damage. */
static int row(void *arg, const struct lens_csvstrict *c, struct lens_err *e)
{
    struct acc *a = arg;
    struct lens_retest_row w;
    long long v[3];
    static const char *const inames[] = {"length", "sender", "receiver"};
    /* ranks and lengths are ints in the cube; a negative one is damage */
    int rc = LENS_OK;
    for (int f = 0; f < 3 && rc == LENS_OK; f++)
        rc = lens_csvstrict_int(c, f, inames[f], 0, INT_MAX, &v[f], e);
    if (rc != LENS_OK)
        return rc;
    w.length = (int)v[0];
    w.sender = (int)v[1];
    w.receiver = (int)v[2];
    /* NaN is the bench's "no value" (a retest that timed nothing); the verdict reads it as no
     * survival rather than failing the whole file */
    static const char *const dnames[] = {"first", "retest", "z", "retest_z"};
    double *dv[] = {&w.first, &w.retest, &w.z, &w.retest_z};
    for (int f = 0; f < 4 && rc == LENS_OK; f++)
        rc = lens_csvstrict_double(c, 3 + f, dnames[f], 1, dv[f], e);
    if (rc != LENS_OK)
        return rc;
    /* the role by name: the names are the bench's (allpairs.c), in enum order */
    w.role = -1;
    for (int k = 0; k <= LENS_RETEST_CONTROL; k++)
        if (!strcmp(c->field[7], lens_retest_role_name(k)))
            w.role = k;
    if (w.role < 0)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: column 'role': '%s' is not flagged, worst "
                            "or control", c->path, c->line, c->col[7], c->field[7]);
    /* a link from a rank to itself is the diagonal, never measured */
    if (w.sender == w.receiver)
        return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: sender and receiver are both rank %d",
                            c->path, c->line, c->col[1], w.sender);
    /* grow before storing: on ENOMEM the rows read so far stay valid and are freed whole */
    if (a->r->n == a->cap) {
        int cap = a->cap ? 2 * a->cap : 16;
        struct lens_retest_row *p = lens_realloc(a->r->rows, (size_t)cap * sizeof *p);
        if (!p)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", c->path);
        a->r->rows = p;
        a->cap = cap;
    }
    a->r->rows[a->r->n++] = w;
    return LENS_OK;
}

int lens_retest_read(const char *path, struct lens_retest **out, struct lens_err *e)
{
    /* *out stays NULL on every failure: a caller never sees half a file */
    *out = NULL;
    struct lens_retest *r = lens_calloc(1, sizeof *r);
    if (!r || !(r->path = lens_strdup(path))) {
        lens_free(r);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    }
    /* the path is kept for messages of the commands that use the rows later ("... in X") */
    struct acc a = {r, 0};
    int rc = lens_csvstrict_read(path, LENS_RETEST_HEADER, 8, row, &a, e);
    if (rc != LENS_OK) {
        lens_retest_free(r);
        return rc;
    }
    *out = r;
    return LENS_OK;
}

int lens_retest_beside(const char *prefix, struct lens_retest **out, struct lens_err *e)
{
    *out = NULL;
    size_t n = strlen(prefix) + sizeof "_retest.csv";
    char *path = lens_malloc(n);
    if (!path)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", prefix);
    /* n counted the suffix and the NUL (sizeof a literal): the name always fits */
    snprintf(path, n, "%s_retest.csv", prefix);
    /* the name is the bench's (allpairs.c retest_write): PREFIX_retest.csv beside the cube */
    struct stat sb;
    /* no file is the normal case (serial sweeps, --retest 0); a file that exists must read */
    int rc = stat(path, &sb) == 0 ? lens_retest_read(path, out, e) : LENS_OK;
    lens_free(path);
    return rc;
}

void lens_retest_free(struct lens_retest *r)
{
    if (!r)
        return;
    lens_free(r->path);
    lens_free(r->rows);
    lens_free(r);
}

int lens_retest_survived(const struct lens_retest_row *row)
{
    /* written so that NaN (no retest value) compares false: vanished, not survived */
    return row->retest_z >= LENS_RETEST_Z;
}

int lens_retest_verdict(const struct lens_retest *r, int sender, int receiver, const int *lengths,
                        int nlengths)
{
    /* -1 until a row of this link at one of the lengths is seen; a linear scan, as a file
     * holds (K + 1 + flagged) rows per length, a few dozen in practice */
    int verdict = -1;
    for (int t = 0; r && t < r->n; t++) {
        const struct lens_retest_row *w = &r->rows[t];
        /* the control is the yardstick, not a finding */
        if (w->role == LENS_RETEST_CONTROL || w->sender != sender || w->receiver != receiver)
            continue;
        for (int k = 0; k < nlengths; k++)
            if (lengths[k] == w->length) {
                /* one survival at any length is enough: a link slow alone is a bad link */
                if (lens_retest_survived(w))
                    return 1;
                verdict = 0;
            }
    }
    return verdict;
}

int lens_retest_link_verdict(const struct lens_retest *r, int from, int to, int both, const int *lengths,
                             int nlengths)
{
    int v = lens_retest_verdict(r, from, to, lengths, nlengths);
    /* the other direction only matters while this one did not survive: a survival anywhere
     * decides, and "vanished" (0) outranks "not retested" (-1) */
    if (both && v < 1) {
        int w = lens_retest_verdict(r, to, from, lengths, nlengths);
        v = w > v ? w : v;
    }
    return v;
}

int lens_retest_summarise(const struct lens_retest *r, struct lens_retest_summary *s, struct lens_err *e)
{
    memset(s, 0, sizeof *s);
    s->cells = r->n;
    /* one byte per row, +1 so a file of no rows still gets a pointer (the reader refuses
     * those, but a caller's struct may come from elsewhere) */
    s->verdict = lens_malloc((size_t)r->n + 1);
    if (!s->verdict)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", r->path ? r->path : "retest");
    for (int t = 0; t < r->n; t++) {
        const struct lens_retest_row *w = &r->rows[t];
        /* the control is the yardstick its length's retest_z is measured against, not a finding */
        if (w->role == LENS_RETEST_CONTROL) {
            s->verdict[t] = -1;
            continue;
        }
        int v = lens_retest_survived(w);
        s->verdict[t] = (signed char)v;
        s->retested++;
        s->persisted += v;
        s->vanished += !v;
        if (w->role == LENS_RETEST_FLAGGED) {
            s->flagged++;
            s->flagged_survived += v;
        }
    }
    return LENS_OK;
}

void lens_retest_summary_release(struct lens_retest_summary *s)
{
    lens_free(s->verdict);
    s->verdict = NULL;
}
