/* Condensed distance matrices from square CSV files or latency cubes: parsing with exact error
 * positions, symmetrisation (A + A^T) / 2 and the asymmetry record. The CSV reader streams row
 * by row into the condensed array, so reading needs no more memory than the result. Optional
 * normalisation by each rank's slowness, so that a slow node does not hide the switches. */
#include "distmat.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/cube/cube.h"

/* Two objects is the least that has a distance; one process is a user error (LENS_EDATA), which
 * lens_distmat_from_square turns into LENS_EINVAL because there n is the caller's argument.
 * The condensed array is zeroed so that an unfilled pair reads 0, never garbage. */
int lens_distmat_new(struct lens_distmat **out, int n, struct lens_err *e)
{
    *out = NULL;
    if (n < 2)
        return lens_err_set(e, LENS_EDATA, "need at least 2 processes to compare, got %d", n);
    struct lens_distmat *m = lens_calloc(1, sizeof *m);
    if (!m)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for a %d x %d distance matrix", n, n);
    m->n = n;
    m->d = lens_calloc(lens_distmat_pairs(n), sizeof *m->d);
    if (!m->d) {
        lens_free(m);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for a %d x %d distance matrix", n, n);
    }
    *out = m;
    return LENS_OK;
}

/* Frees what a half-built matrix holds too (labels may be partly filled), so every error path
 * of the readers can end in this one call. */
void lens_distmat_free(struct lens_distmat *m)
{
    if (!m)
        return;
    if (m->labels)
        for (int i = 0; i < m->n; i++)
            lens_free(m->labels[i]);
    lens_free(m->labels);
    for (int i = 0; i < m->nwarn; i++)
        lens_free(m->warnings[i]);
    lens_free(m->warnings);
    lens_free(m->d);
    lens_free(m);
}

/* A CSV without a header has no labels: the index is the only name the user can match. */
const char *lens_distmat_label(const struct lens_distmat *m, int i, char *buf, size_t n)
{
    if (m->labels && m->labels[i])
        return m->labels[i];
    snprintf(buf, n, "%d", i);
    return buf;
}

/* Combines a = A(i,j) and b = A(j,i) into the symmetric distance and records the asymmetry.
 * The distance is the mean of the two directions, as in Salnikov et al. (docs/methods.md §2.1);
 * the asymmetry |a - b| / (a + b) is kept because a large one means the symmetric tree hides
 * something (a one-way slow link). Pairs are offered in increasing (i, j) order by every
 * builder, and only a strictly larger asymmetry replaces the record, so the reported pair is
 * the first maximum: the same on every run. */
static inline void distmat_pair(struct lens_distmat *m, int i, int j, size_t at, double a, double b,
                                double *sum)
{
    double s = a + b;
    double asym = s > 0 ? fabs(a - b) / s : 0.0;
    /* a + b == 0 (two zero delays) has no direction to prefer: asymmetry 0, not 0/0 */
    *sum += asym;
    if (asym > m->asym_max || m->asym_i == m->asym_j) { /* i == j: nothing recorded yet */
        m->asym_max = asym;
        m->asym_i = i < j ? i : j;
        m->asym_j = i < j ? j : i;
    }
    /* the 5 % bound is the paper's: counted here, the warning is the command's to print */
    if (asym > LENS_DISTMAT_ASYM_NOTE)
        m->asym_over++;
    m->d[at] = s / 2; /* at = lens_distmat_index(n, i, j), which the callers count up */
}

/* ---- CSV ---- */

/* One line of the file and where it is: every error of the reader names path:line. */
struct csv_line {
    char *buf;     /* getline buffer (owned) */
    size_t cap;
    long lineno;   /* 1-based number of the line in buf */
};

/* Reads the next line, strips CR/LF; returns its length, -1 at end of file.
 * Counting every line read, blank or not, keeps lineno equal to the editor's line number.
 * CR is stripped with LF so that a file saved on Windows parses the same. */
static long csv_next(FILE *fp, struct csv_line *l)
{
    ssize_t len = getline(&l->buf, &l->cap, fp);
    if (len < 0)
        return -1;
    l->lineno++;
    while (len > 0 && (l->buf[len - 1] == '\n' || l->buf[len - 1] == '\r'))
        l->buf[--len] = '\0';
    return len;
}

/* A line of spaces counts as blank: editors leave them at the end of files. */
static int csv_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t')
            return 0;
    return 1;
}

/* Fields are counted before parsing so that a short or long row is reported as "not square"
 * with both counts, rather than as a confusing bad cell. No quoting in data rows: numbers
 * never contain commas. */
static int csv_count_fields(const char *s)
{
    int k = 1;
    for (; *s; s++)
        k += *s == ',';
    return k;
}

/* Parses one field starting at s (ends at ',' or NUL); *ok = 0 if it is not a whole number.
 * strtod alone would accept "1.5abc" as 1.5: the trailing-text check makes a cell whole or
 * wrong. ERANGE (an overflow such as 1e999, or an underflow) is refused rather than silently
 * rounded to infinity or 0. Leading blanks are the caller's to skip, so the column it reports
 * points at the first character of the value. */
static double csv_number(const char *s, const char **end, int *ok)
{
    char *p;
    errno = 0;
    double v = strtod(s, &p);
    *ok = p != s && errno != ERANGE;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != ',' && *p != '\0')
        *ok = 0;
    *end = p;
    return v;
}

/* Splits a header line into n labels (trimmed, surrounding double quotes removed).
 * Runs only after the whole matrix was read, when n is known from the data rows; the line is
 * cut in place (it is the reader's own copy). An empty label is refused: it would be an
 * invisible leaf in the Newick output and the dendrogram. */
static int csv_labels(struct lens_distmat *m, char *line, const char *path, long lineno,
                      struct lens_err *e)
{
    m->labels = lens_calloc((size_t)m->n, sizeof *m->labels);
    if (!m->labels)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for labels", path);
    char *p = line;
    for (int i = 0; i < m->n; i++) {
        char *f = p;
        while (*p && *p != ',')
            p++;
        char *fend = p;
        if (*p)
            p++;
        while (*f == ' ' || *f == '\t')
            f++;
        while (fend > f && (fend[-1] == ' ' || fend[-1] == '\t'))
            fend--;
        if (fend - f >= 2 && *f == '"' && fend[-1] == '"') {
            f++;
            fend--;
        }
        *fend = '\0';
        if (!*f)
            return lens_err_set(e, LENS_EFORMAT, "%s:%ld: label %d is empty", path, lineno, i + 1);
        m->labels[i] = lens_strdup(f);
        if (!m->labels[i])
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for labels", path);
    }
    return LENS_OK;
}

/* Parses data row i (n fields) into the condensed matrix: for j > i the value waits in its
 * slot, for j < i it is combined with the waiting A(j,i).
 * Streaming in condensed form: the upper triangle is stored raw as it arrives, and the lower
 * triangle, which arrives later, meets its mirror and replaces it by the mean. A square n x n
 * buffer is never needed, so memory is n(n-1)/2 doubles however large the file. */
static int csv_row(struct lens_distmat *m, int i, const char *line, const char *path,
                   long lineno, double *asum, struct lens_err *e)
{
    const char *p = line;
    for (int j = 0; j < m->n; j++) {
        const char *f = p, *end;
        int ok;
        while (*f == ' ' || *f == '\t')
            f++;
        double v = csv_number(f, &end, &ok);
        /* 1-based column of the value itself, as an editor shows it */
        int col = (int)(f - line) + 1;
        if (!ok) {
            int w = 0;
            /* quote at most 40 characters: a binary file must not flood the terminal */
            while (f[w] && f[w] != ',' && w < 40)
                w++;
            return lens_err_set(e, LENS_EFORMAT, "%s:%ld:%d: cell %d '%.*s' is not a number",
                                path, lineno, col, j + 1, w, f);
        }
        /* strtod accepts "nan" and "inf"; neither, nor a negative delay, is a distance the Lance-
         * Williams updates can use (a NaN would poison every merge height after it) */
        if (isnan(v) || isinf(v) || v < 0)
            return lens_err_set(e, LENS_EDATA, "%s:%ld:%d: distance %g (row %d, column %d) "
                                "must be finite and not negative", path, lineno, col, v,
                                i + 1, j + 1);
        /* the diagonal is not a measurement: counted for the user's warning, never used */
        if (j == i) {
            m->diag_nonzero += v != 0;
        } else if (j > i) {
            m->d[lens_distmat_index(m->n, i, j)] = v;
        } else {
            size_t at = lens_distmat_index(m->n, i, j);
            distmat_pair(m, j, i, at, m->d[at], v, asum);
        }
        p = *end ? end + 1 : end;
    }
    return LENS_OK;
}

/* Owns everything it allocates until the matrix is complete: on any error the partial matrix
 * and the buffers are freed at `done` and *out stays NULL, so a caller never sees half a
 * matrix. The first non-blank line fixes n (by its field count, header or not). */
static int csv_read(FILE *fp, const char *path, struct lens_distmat **out, struct lens_err *e)
{
    struct csv_line l = {0};
    struct lens_distmat *m = NULL;
    int rc = LENS_OK, i = 0, have_header = 0;
    char *header = NULL;
    long header_line = 0, len;
    double asum = 0;

    while ((len = csv_next(fp, &l)) >= 0 && csv_blank(l.buf))
        ;
    if (len < 0) {
        rc = ferror(fp) ? lens_err_set(e, LENS_EIO, "%s: read error", path)
                        : lens_err_set(e, LENS_EFORMAT, "%s: empty file, expected a square "
                                       "matrix of distances", path);
        goto done;
    }
    int n = csv_count_fields(l.buf);
    {
        const char *f = l.buf, *end;
        int ok;
        while (*f == ' ' || *f == '\t')
            f++;
        csv_number(f, &end, &ok);
        /* A numeric header ("0,1,2") therefore reads as data: the row count then exceeds n by one
         * and the error says so, which is the honest answer for an ambiguous file. */
        have_header = !ok; /* a first cell that is not a number starts a header line */
    }
    if (n < 2) {
        rc = lens_err_set(e, LENS_EDATA, "%s:%ld: need at least 2 processes, the first line "
                          "has %d value", path, l.lineno, n);
        goto done;
    }
    if ((rc = lens_distmat_new(&m, n, e)) < 0) {
        lens_err_prefix(e, path);
        goto done;
    }
    if (have_header) {
        /* the line buffer is reused by getline: the header must be copied until n is confirmed */
        header = lens_strdup(l.buf);
        header_line = l.lineno;
        if (!header) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
            goto done;
        }
        len = csv_next(fp, &l);
    }
    for (; len >= 0; len = csv_next(fp, &l)) {
        if (csv_blank(l.buf)) {
            /* only trailing blank lines are allowed */
            while ((len = csv_next(fp, &l)) >= 0 && csv_blank(l.buf))
                ;
            if (len >= 0) {
                rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: blank line inside the matrix",
                                  path, l.lineno - 1);
                goto done;
            }
            break;
        }
        int k = csv_count_fields(l.buf);
        /* before the field count, so that one row too many is named as such */
        if (i >= n) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: matrix is not square: more than %d "
                              "rows of %d values", path, l.lineno, n, n);
            goto done;
        }
        if (k != n) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: matrix is not square: row %d has %d "
                              "values, expected %d", path, l.lineno, i + 1, k, n);
            goto done;
        }
        if ((rc = csv_row(m, i, l.buf, path, l.lineno, &asum, e)) < 0)
            goto done;
        i++;
    }
    if (ferror(fp)) {
        rc = lens_err_set(e, LENS_EIO, "%s: read error", path);
        goto done;
    }
    /* n was guessed from the first row: fewer rows than columns is the other "not square" */
    if (i < n) {
        rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: matrix is not square: the file ends after %d "
                          "rows of %d values", path, l.lineno, i, n);
        goto done;
    }
    if (header && (rc = csv_labels(m, header, path, header_line, e)) < 0)
        goto done;
    /* every pair went through distmat_pair exactly once (when its lower cell arrived) */
    m->asym_mean = asum / (double)lens_distmat_pairs(n);
    *out = m;
    m = NULL;
done:
    lens_free(header);
    free(l.buf); /* allocated by getline, not lens_malloc */
    lens_distmat_free(m);
    return rc;
}

int lens_distmat_read_csv(const char *path, struct lens_distmat **out, struct lens_err *e)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: %s", path, strerror(errno));
    int rc = csv_read(fp, path, out, e);
    fclose(fp);
    return rc;
}

/* The whole array is validated before anything is combined, so the error names the first
 * bad element in row-major order, which is where a user looking at the array starts. */
int lens_distmat_from_square(const double *a, int n, struct lens_distmat **out,
                             struct lens_err *e)
{
    struct lens_distmat *m = NULL;
    int rc = lens_distmat_new(&m, n, e);
    *out = NULL;
    if (rc < 0)
        return rc == LENS_EDATA ? LENS_EINVAL : rc;
    for (size_t k = 0; k < (size_t)n * n; k++)
        if (!isfinite(a[k]) || a[k] < 0) {
            lens_distmat_free(m);
            return lens_err_set(e, LENS_EDATA, "distance %g at row %zu, column %zu must be "
                                "finite and not negative", a[k], k / n, k % n);
        }
    double asum = 0;
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        m->diag_nonzero += a[(size_t)i * n + i] != 0;
        for (int j = i + 1; j < n; j++)
            distmat_pair(m, i, j, at++, a[(size_t)i * n + j], a[(size_t)j * n + i], &asum);
    }
    m->asym_mean = asum / (double)lens_distmat_pairs(n);
    *out = m;
    return LENS_OK;
}

/* ---- cube ---- */

/* Element (i, j) of the median over lengths of the finite values (NaN if none). tmp holds
 * nlen doubles. The median over lengths (not the mean) keeps a few odd lengths, a preempted
 * measurement or a protocol switch, from moving the distance (docs/methods.md §2.1). Missing
 * lengths (NaN after the reader's repairs) are skipped rather than making the whole pair
 * missing. */
static double median_over_lengths(const struct lens_cube *c, int stat, int i, int j, double *tmp)
{
    int m = 0;
    for (int l = 0; l < c->nlen; l++) {
        double v = LENS_CUBE_AT(c, stat, l, i, j);
        if (isfinite(v))
            tmp[m++] = v;
    }
    if (m == 0)
        return NAN;
    if (m <= 2) /* one or two lengths (a cube of one length is common): no sort needed */
        return m == 1 ? tmp[0] : (tmp[0] + tmp[1]) / 2;
    /* selection, not a sort per pair (P^2 of them): the same middle values, and the same
     * mean of the two for an even count (issue 13) */
    return lens_cube_median(tmp, (size_t)m);
}

/* The P x P matrix the distances come from: length k's own slice of the cube (no copy), or
 * with k < 0 the median over lengths, computed once per element into *own (the caller frees
 * it). A cube of one length is its own median (an infinite element stays infinite rather than
 * NaN, which the caller treats alike: not finite). Row-major here, so that the pair loop reads
 * plain memory instead of calling per element (that call was 27 % of `mpilens cluster`). */
static const double *source_matrix(const struct lens_cube *c, int stat, int k, double **own)
{
    size_t P = (size_t)c->procs;
    *own = NULL;
    if (k >= 0 || c->nlen == 1)
        return c->data[stat] + (size_t)(k > 0 ? k : 0) * P * P;
    /* at least one element of scratch, so that an empty cube (nlen 0) has a valid pointer */
    double *tmp = lens_malloc((size_t)(c->nlen > 0 ? c->nlen : 1) * sizeof *tmp);
    double *med = lens_malloc(P * P * sizeof *med);
    if (!tmp || !med) {
        lens_free(tmp);
        lens_free(med);
        return NULL;
    }
    for (size_t i = 0; i < P; i++)
        for (size_t j = 0; j < P; j++)
            med[i * P + j] = i == j ? 0.0 : median_over_lengths(c, stat, (int)i, (int)j, tmp);
    lens_free(tmp);
    return *own = med;
}

/* "r<rank>@<host>" so the leaves of a tree show which node a rank lives on, the thing a user
 * checks the tree against. 300 characters of host is far above any real host name; the
 * cap only keeps buf bounded. */
static int cube_labels(struct lens_distmat *m, const struct lens_cube *c, struct lens_err *e)
{
    m->labels = lens_calloc((size_t)m->n, sizeof *m->labels);
    if (!m->labels)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for labels");
    for (int i = 0; i < m->n; i++) {
        char buf[320];
        if (c->hosts && c->hosts[i])
            snprintf(buf, sizeof buf, "r%d@%.300s", i, c->hosts[i]);
        else
            snprintf(buf, sizeof buf, "r%d", i);
        if (!(m->labels[i] = lens_strdup(buf)))
            return lens_err_set(e, LENS_ENOMEM, "out of memory for labels");
    }
    return LENS_OK;
}

/* Cost: O(P^2 L log L) for the median over L lengths, with one L-sized scratch array reused
 * for every element and, when L > 1, P x P doubles for the medians. A pair measured in one
 * direction only (the other NaN) takes that direction: one lost measurement should not stop
 * the analysis of a whole machine. */
int lens_distmat_from_cube(const struct lens_cube *c, int stat, int k, struct lens_distmat **out,
                           struct lens_err *e)
{
    const char *src = c->source ? c->source : "cube";
    *out = NULL;
    if (stat < 0 || stat >= LENS_STAT_COUNT || !c->data[stat])
        return lens_err_set(e, LENS_EDATA, "%s: statistic '%s' is not in the cube", src,
                            lens_cube_stat_name(stat));
    if (k >= c->nlen)
        return lens_err_set(e, LENS_EINVAL, "%s: length index %d out of range", src, k);
    struct lens_distmat *m = NULL;
    int rc = lens_distmat_new(&m, c->procs, e);
    if (rc < 0)
        return lens_err_prefix(e, src), rc;
    double *own;
    const double *src_m = source_matrix(c, stat, k, &own);
    if (!src_m) {
        lens_distmat_free(m);
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", src);
    }
    size_t P = (size_t)m->n, at = 0;
    double asum = 0;
    /* rc in the outer condition: the inner break ends both loops on the first bad pair */
    for (int i = 0; i < m->n && rc == LENS_OK; i++) {
        /* a is read along row i, b down column i: the column's cache lines are reused by the
         * next seven rows, so the strided reads cost little for P in the thousands */
        const double *row = src_m + (size_t)i * P, *col = src_m + i;
        for (int j = i + 1; j < m->n; j++) {
            double a = row[j], b = col[(size_t)j * P];
            /* one comparison chain passes a pair with both delays finite and >= 0 (NaN fails
             * it), nearly every pair: the checks below only run for the others */
            if (!(a >= 0 && a <= DBL_MAX && b >= 0 && b <= DBL_MAX)) {
                if (!isfinite(a) || !isfinite(b)) {
                    /* no direction at all: there is no honest distance to invent, so it is an
                     * error naming the pair */
                    if (!isfinite(a) && !isfinite(b)) {
                        rc = lens_err_set(e, LENS_EDATA, "%s: no finite %s delay between "
                                          "ranks %d and %d", src, lens_cube_stat_name(stat), i,
                                          j);
                        break;
                    }
                    m->one_sided++;
                    if (!isfinite(a))
                        a = b;
                    else
                        b = a;
                }
                /* the cube reader turns negative delays into NaN; a negative here is a caller's
                 * cube */
                if (a < 0 || b < 0) {
                    rc = lens_err_set(e, LENS_EDATA, "%s: negative %s delay %g between ranks %d "
                                      "and %d", src, lens_cube_stat_name(stat), a < 0 ? a : b, i,
                                      j);
                    break;
                }
            }
            distmat_pair(m, i, j, at++, a, b, &asum);
        }
    }
    lens_free(own);
    if (rc == LENS_OK)
        rc = cube_labels(m, c, e);
    if (rc < 0) {
        lens_distmat_free(m);
        return rc;
    }
    m->asym_mean = asum / (double)lens_distmat_pairs(m->n);
    m->from_cube = 1;
    *out = m;
    return LENS_OK;
}

/* Length in bytes must be one the cube measured exactly: lens_cube_length_index rounds to the
 * nearest step, and silently clustering a neighbouring length would be a wrong answer. */
static int read_cube(const char *input, int statistic, long length, struct lens_distmat **out,
                     struct lens_err *e)
{
    struct lens_cube *c = NULL;
    /* one statistic is used: load only it (a quarter of the bytes to read and convert) */
    unsigned mask = statistic >= 0 && statistic < LENS_STAT_COUNT ? 1u << statistic : 15u;
    int rc = lens_cube_read_stats(input, mask, &c, e);
    if (rc < 0)
        return rc;
    int k = -1;
    if (length >= 0) {
        k = lens_cube_length_index(c, (int)length);
        if (k < 0 || c->lengths[k] != length) {
            rc = lens_err_set(e, LENS_EINVAL, "%s: no message length %ld bytes in the cube "
                              "(lengths %d..%d step %d)", input, length, c->begin,
                              c->end - 1, c->step);
            lens_cube_free(c);
            return rc;
        }
    }
    rc = lens_distmat_from_cube(c, statistic, k, out, e);
    if (rc == LENS_OK) {
        /* the repairs the reader made are the user's business: hand them over */
        (*out)->warnings = c->warnings;
        (*out)->nwarn = c->nwarn;
        c->warnings = NULL;
        c->nwarn = 0;
    }
    lens_cube_free(c);
    return rc;
}

/* The kind is decided by content, not by name alone, because network_test2 inputs are named by
 * prefix ("run_median.nc" or just "run"): an existing regular file that is not NetCDF is CSV;
 * anything else, a prefix included, goes to the cube reader, which names what it tried. A
 * ".csv" name that does not exist is reported as missing instead of as a missing cube. */
int lens_distmat_read(const char *input, int statistic, long length, struct lens_distmat **out,
                      struct lens_err *e)
{
    struct stat st;
    size_t len = strlen(input);
    int csv = len >= 4 && !strcmp(input + len - 4, ".csv");
    *out = NULL;
    if (csv && stat(input, &st) != 0)
        return lens_err_set(e, LENS_EIO, "%s: %s", input, strerror(errno));
    if (stat(input, &st) == 0 && S_ISREG(st.st_mode)) {
        if (!csv) {
            /* NetCDF classic starts with "CDF", NetCDF-4 with the HDF5 signature */
            unsigned char magic[4] = {0};
            FILE *fp = fopen(input, "rb");
            if (!fp)
                return lens_err_set(e, LENS_EIO, "%s: %s", input, strerror(errno));
            size_t got = fread(magic, 1, sizeof magic, fp);
            fclose(fp);
            csv = !(got >= 3 && !memcmp(magic, "CDF", 3)) &&
                  !(got >= 4 && !memcmp(magic, "\x89HDF", 4));
        }
        if (csv)
            return lens_distmat_read_csv(input, out, e);
    }
    return read_cube(input, statistic, length, out, e);
}

/* ---- slowness normalisation ---- */

/* The option's words; -1 lets the command name the bad value in its own error. */
int lens_distmat_norm_parse(const char *name)
{
    if (!strcmp(name, "none"))
        return LENS_DISTMAT_NORM_NONE;
    if (!strcmp(name, "slowness"))
        return LENS_DISTMAT_NORM_SLOWNESS;
    return -1;
}

const char *lens_distmat_norm_name(int norm)
{
    return norm == LENS_DISTMAT_NORM_SLOWNESS ? "slowness" : "none";
}

/* docs/methods.md §2.1 and the block in distmat.h: two passes of medians, O(n^2 log n) time
 * and O(n) extra memory, since the condensed matrix is read by index rather than copied into
 * a square. */
int lens_distmat_slowness(const struct lens_distmat *m, double *s, struct lens_err *e)
{
    int n = m->n;
    /* med: the typical link of each peer; buf: one column or one row of ratios */
    double *med = lens_malloc((size_t)n * sizeof *med), *buf = lens_malloc((size_t)n * sizeof *buf);
    if (!med || !buf) {
        lens_free(med);
        lens_free(buf);
        return lens_err_set(e, LENS_ENOMEM, "out of memory for the slowness of %d processes", n);
    }
    for (int k = 0; k < n; k++) {
        size_t c = 0;
        for (int j = 0; j < n; j++)
            if (j != k)
                buf[c++] = m->d[lens_distmat_index(n, j, k)];
        /* med_k: the typical link of peer k, over its whole column (n - 1 >= 1 values) */
        med[k] = lens_cube_median(buf, c);
    }
    for (int i = 0; i < n; i++) {
        size_t c = 0;
        /* A peer whose typical link is 0 (an exact-zero input) would divide by zero: skipped.
         * The ratio d(i,k)/med_k cancels k's own slowness, so only i's shows in the median. */
        for (int k = 0; k < n; k++)
            if (k != i && med[k] > 0)
                buf[c++] = m->d[lens_distmat_index(n, i, k)] / med[k];
        double v = lens_cube_median(buf, c); /* NaN when c == 0 */
        /* 1 is "not slow": the neutral factor when nothing could be measured */
        s[i] = v > 0 && isfinite(v) ? v : 1.0;
    }
    lens_free(med);
    lens_free(buf);
    return LENS_OK;
}

/* All slowness values are computed before any distance is divided, so the result does not depend on
 * the order of the pairs. Dividing by the larger factor undoes a link that is slow because either
 * end is slow; every s_i is positive (1.0 when unmeasurable), so no division by 0. */
int lens_distmat_normalize_slowness(struct lens_distmat *m, double *s, struct lens_err *e)
{
    double *own = s ? NULL : lens_malloc((size_t)m->n * sizeof *own);
    double *sl = s ? s : own;
    if (!sl)
        return lens_err_set(e, LENS_ENOMEM, "out of memory for the slowness of %d processes", m->n);
    int rc = lens_distmat_slowness(m, sl, e);
    if (rc == LENS_OK)
        for (int i = 0; i < m->n; i++)
            for (int j = i + 1; j < m->n; j++) {
                double f = sl[i] > sl[j] ? sl[i] : sl[j];
                m->d[lens_distmat_index(m->n, i, j)] /= f;
            }
    lens_free(own);
    return rc;
}
