/* TAU profiles (TAU User Guide, profile file format): one text file per node, context and
 * thread, each a count line, a column-name line and one quoted function per line. Only the
 * function section is read; exclusive microseconds become seconds of the node's row. */
#include "profile_tau.h"

#include "common/alloc.h"
#include "common/textline.h"
#include "common/units.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One profile file found in the directory: its (node, context, thread) and name. */
struct tau_file {
    long id[3];
    char *name;
};

int lens_profile_tau_detect(const char *dir)
{
    struct stat st;
    char path[4096];
    /* node 0, context 0, thread 0 exists in every TAU run: it is the probe, not the name */
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    /* a path that does not fit is no TAU directory we could read anyway */
    if ((size_t)snprintf(path, sizeof path, "%s/profile.0.0.0", dir) >= sizeof path)
        return 0;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* A decimal number without sign made of the whole of [s, end): "profile.01.0.0" is accepted
 * as node 1, "profile.1.0.0.bak" or "profile.-1.0.0" are not profile files. */
static int parse_id(const char *s, char stop, long *v, const char **next)
{
    char *end;
    /* strtol would take a sign or blanks: only digits make a TAU file name */
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtol(s, &end, 10);
    if (errno || *end != stop)
        return -1;
    *next = end + 1;
    return 0;
}

static int file_ids(const char *name, long id[3])
{
    const char *s;
    if (strncmp(name, "profile.", 8))
        return -1;
    s = name + 8;
    /* node and context end at a dot, the thread at the end of the name */
    return parse_id(s, '.', &id[0], &s) || parse_id(s, '.', &id[1], &s) || parse_id(s, '\0', &id[2], &s) ? -1 : 0;
}

/* Numeric order of (node, context, thread): the columns then appear in the order of node 0's
 * file, whatever order readdir gives, so the same directory always gives the same profile. */
static int cmp_file(const void *a, const void *b)
{
    const struct tau_file *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x->id[i] != y->id[i])
            return x->id[i] < y->id[i] ? -1 : 1;
    return 0;
}

/* Parses `"name" calls subrs excl incl profcalls GROUP="..."`. The name may hold spaces and
 * quotes (C++ signatures), so it ends at the last quote before the numbers: the quote before
 * ` GROUP=` is the group's, so the search starts left of it. Returns NULL or why not. */
static const char *split_func(char *line, char **name, double *excl)
{
    if (*line != '"')
        return "expected a quoted function name";
    char *g = strstr(line, " GROUP=\"");
    char *tail_end = g ? g : line + strlen(line);
    /* the closing quote of the name: the last one before the numeric fields */
    char *q = tail_end;
    while (q > line + 1 && q[-1] != '"')
        q--;
    if (q <= line + 1)
        return "unterminated quoted function name";
    q--;
    *q = '\0';
    *name = line + 1;
    /* calls subrs excl incl profcalls: five numbers, TAU writes them with %g-like forms */
    char *s = q + 1, *end;
    double v[5];
    for (int i = 0; i < 5; i++) {
        errno = 0;
        v[i] = strtod(s, &end);
        if (end == s || errno == ERANGE || (*end != ' ' && *end != '\t' && *end != '\0' && *end != '\r' &&
                                           *end != '\n'))
            return "expected 5 numbers after the name: calls subrs excl incl profcalls";
        s = end;
    }
    /* exclusive time: a negative or non-finite value would poison every mean downstream */
    if (!isfinite(v[2]) || v[2] < 0)
        return "exclusive time is not a finite number >= 0";
    *excl = v[2];
    return NULL;
}

/* Reads one file into rank node of p. path is for the messages. */
static int read_file(struct lens_profile *p, const char *path, long node, struct lens_err *e)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct lens_textline tl = {0};
    long lineno = 0, nfunc = -1, done = 0;
    int got, rc = LENS_OK;
    /* lines 1 and 2 are the header; then nfunc function lines; the rest is not ours */
    while (rc == LENS_OK && (nfunc < 0 || done < nfunc) &&
           (got = lens_textline_read(fp, &tl, LENS_TEXTLINE_MAX)) != LENS_TEXTLINE_EOF) {
        lineno++;
        if (got != LENS_TEXTLINE_OK) {
            rc = lens_textline_fail(got, path, lineno, 0, LENS_TEXTLINE_MAX, e);
            break;
        }
        /* CRLF files (copied from Windows) read the same as LF ones */
        char *t = tl.s, *end;
        size_t n = strlen(t);
        while (n && (t[n - 1] == '\n' || t[n - 1] == '\r'))
            t[--n] = '\0';
        if (lineno == 1) {
            errno = 0;
            long c = strtol(t, &end, 10);
            /* "templated_functions" alone, or with _MULTI_<metric> when TAU measured several */
            if (end == t || errno || c < 0 || c > (long)LENS_PROFILE_MAX_CELLS ||
                strncmp(end, " templated_functions", 20))
                rc = lens_err_set(e, LENS_EFORMAT, "%s:1: expected '<count> templated_functions...', "
                                  "not a TAU profile", path);
            /* the count bounds the lines read: aggregates and user events follow unannounced */
            nfunc = c;
        } else if (lineno == 2) {
            if (*t != '#')
                rc = lens_err_set(e, LENS_EFORMAT, "%s:2: expected the column line '# Name Calls ...'", path);
        } else {
            char *name;
            double us;
            const char *why = split_func(t, &name, &us);
            if (why) {
                rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: %s", path, lineno, why);
            } else if (!*name) {
                rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: empty function name", path, lineno);
            } else {
                struct lens_err sub;
                lens_err_clear(&sub);
                /* microseconds to seconds; threads of one node accumulate in its cell */
                rc = lens_profile_add(p, node, name, us * 1e-6, &sub);
                if (rc != LENS_OK)
                    lens_err_set(e, rc, "%s:%ld: %s", path, lineno, sub.msg);
                done++;
            }
        }
    }
    /* a file cut short (a crashed run) is refused rather than read as fewer functions */
    if (rc == LENS_OK && nfunc < 0)
        rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: empty file, not a TAU profile", path, lineno + 1);
    else if (rc == LENS_OK && done < nfunc)
        rc = lens_err_set(e, LENS_EFORMAT, "%s:%ld: %ld function %s announced, %ld found", path, lineno + 1,
                          nfunc, lens_units_plural(nfunc, "line", "lines"), done);
    lens_textline_release(&tl);
    fclose(fp);
    return rc;
}

int lens_profile_read_tau(const char *dir, struct lens_profile **out, struct lens_err *e)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return lens_err_set(e, LENS_EIO, "%s: cannot open directory: %s", dir, strerror(errno));
    struct tau_file *files = NULL;
    size_t n = 0, cap = 0;
    int rc = LENS_OK;
    struct dirent *de;
    while (rc == LENS_OK && (de = readdir(d))) {
        long id[3];
        /* TAU writes other files beside the profiles (events, metadata): they are not ours */
        if (file_ids(de->d_name, id))
            continue;
        if (id[0] >= LENS_PROFILE_MAX_RANK) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s/%s: node %ld is beyond the rank limit %ld", dir,
                              de->d_name, id[0], (long)LENS_PROFILE_MAX_RANK - 1);
            break;
        }
        /* doubling: a run of 100 000 threads lists its files in O(n) copies */
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 64;
            struct tau_file *f = lens_realloc(files, nc * sizeof *f);
            if (!f) {
                rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", dir);
                break;
            }
            files = f;
            cap = nc;
        }
        files[n].name = lens_strdup(de->d_name);
        if (!files[n].name) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", dir);
            break;
        }
        memcpy(files[n].id, id, sizeof id);
        n++;
    }
    closedir(d);
    if (rc == LENS_OK && !n)
        rc = lens_err_set(e, LENS_EDATA, "%s: no TAU profile files profile.N.C.T", dir);
    struct lens_profile *p = rc == LENS_OK ? lens_profile_new() : NULL;
    if (rc == LENS_OK && !p)
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", dir);
    if (rc == LENS_OK)
        qsort(files, n, sizeof *files, cmp_file);
    char path[4096];
    /* a truncated path would name another file: refused rather than read */
    for (size_t i = 0; rc == LENS_OK && i < n; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, files[i].name) >= sizeof path)
            rc = lens_err_set(e, LENS_EINVAL, "%s: path too long", dir);
        else
            rc = read_file(p, path, files[i].id[0], e);
    }
    /* the names are freed on every path, the profile only on failure (then *out stays NULL) */
    for (size_t i = 0; i < n; i++)
        lens_free(files[i].name);
    lens_free(files);
    /* files announcing 0 functions each: nothing to cluster */
    if (rc == LENS_OK && (!p->nproc || !p->nfunc))
        rc = lens_err_set(e, LENS_EDATA, "%s: the TAU profiles hold no function", dir);
    if (rc == LENS_OK) {
        rc = lens_profile_finish(p, e);
        if (rc != LENS_OK)
            lens_err_prefix(e, dir);
    }
    if (rc != LENS_OK) {
        lens_profile_free(p);
        return rc;
    }
    *out = p;
    return LENS_OK;
}
