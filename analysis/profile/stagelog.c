/* Stage logs of a task runtime: reading the JSON-lines log, grouping records by task,
 * migrations, waits, time per stage, and the number of tasks in each stage over time.
 * The JSON reader accepts the flat objects the format needs, nothing nested. */
#include "stagelog.h"
#include "stagecmp.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/json.h"
#include "common/textline.h"

/* One line of the log, with indices instead of strings (a task id or stage name is stored
 * once however many records name it) and the line number, which breaks ties in time and
 * names the line in errors. */
struct rec {
    size_t task, stage;
    double t;
    long node;
    size_t line;
};

/* Reader state: records, task ids in a hash table, stage names.
 * Everything the reader owns until build() hands ids and stage names over to the log;
 * reader_release frees whatever was not handed over, on success and on error alike. */
struct reader {
    const char *path;
    struct rec *recs;
    size_t nrec, rcap;
    char **ids;
    size_t nid, idcap;
    size_t *slot; /* hash of ids: index + 1, 0 empty */
    size_t nslot;
    char **stages;
    size_t nstage, scap;
};

/* FNV-1a, 64-bit: cheap, and good enough for ids like "17" or "frag_3_12" */
static size_t hash(const char *s)
{
    size_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The table doubles when half full (task_index), so linear probing stays short; it holds only
 * id indices + 1, so rehashing reinserts numbers, not strings. */
static int rehash(struct reader *r, struct lens_err *e)
{
    size_t n = r->nslot ? 2 * r->nslot : 1024;
    size_t *slot = lens_calloc(n, sizeof *slot);
    if (!slot)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for task ids", r->path);
    for (size_t i = 0; i < r->nid; i++) {
        size_t h = hash(r->ids[i]) & (n - 1);
        while (slot[h])
            h = (h + 1) & (n - 1);
        slot[h] = i + 1;
    }
    lens_free(r->slot);
    r->slot = slot;
    r->nslot = n;
    return LENS_OK;
}

/* Index of a task id, added when new; -1 on error.
 * Amortised O(1) per record: a log names a new task every few records, so a linear search per
 * record would make reading quadratic. The table is grown before the probe, so the empty slot
 * found below stays valid for the insertion. */
static long task_index(struct reader *r, const char *id, struct lens_err *e)
{
    if (2 * (r->nid + 1) > r->nslot && rehash(r, e) != LENS_OK)
        return -1;
    size_t h = hash(id) & (r->nslot - 1);
    /* probe until the id or an empty slot: the table is never full, so this ends */
    while (r->slot[h]) {
        if (!strcmp(r->ids[r->slot[h] - 1], id))
            return (long)r->slot[h] - 1;
        h = (h + 1) & (r->nslot - 1);
    }
    /* ids and slots grow separately: ids doubles its capacity, the table its slot count */
    if (r->nid == r->idcap) {
        size_t cap = r->idcap ? 2 * r->idcap : 256;
        char **ids = lens_realloc(r->ids, cap * sizeof *ids);
        if (!ids) {
            lens_err_set(e, LENS_ENOMEM, "%s: out of memory for task ids", r->path);
            return -1;
        }
        r->ids = ids;
        r->idcap = cap;
    }
    char *copy = lens_strdup(id);
    if (!copy) {
        lens_err_set(e, LENS_ENOMEM, "%s: out of memory for task ids", r->path);
        return -1;
    }
    r->ids[r->nid] = copy;
    r->slot[h] = r->nid + 1;
    return (long)r->nid++;
}

/* Stages are few (a runtime has a handful), so a linear search beats a hash; the cap of 256
 * makes that true by construction and catches a log whose "stage" holds task names. */
static long stage_index(struct reader *r, const char *name, size_t lineno, struct lens_err *e)
{
    for (size_t s = 0; s < r->nstage; s++)
        if (!strcmp(r->stages[s], name))
            return (long)s;
    /* the search above is linear and every task holds a row of nstage seconds */
    if (r->nstage == LENS_STAGELOG_MAX_STAGES) {
        lens_err_set(e, LENS_EFORMAT, "%s:%zu: more than %d distinct stages (a runtime has a few; "
                     "is \"stage\" a task name?)", r->path, lineno, LENS_STAGELOG_MAX_STAGES);
        return -1;
    }
    if (r->nstage == r->scap) {
        size_t cap = r->scap ? 2 * r->scap : 8;
        char **st = lens_realloc(r->stages, cap * sizeof *st);
        if (!st) {
            lens_err_set(e, LENS_ENOMEM, "%s: out of memory for stages", r->path);
            return -1;
        }
        r->stages = st;
        r->scap = cap;
    }
    if (!(r->stages[r->nstage] = lens_strdup(name))) {
        lens_err_set(e, LENS_ENOMEM, "%s: out of memory for stages", r->path);
        return -1;
    }
    return (long)r->nstage++;
}

static void reader_release(struct reader *r)
{
    for (size_t i = 0; i < r->nid; i++)
        lens_free(r->ids[i]);
    for (size_t i = 0; i < r->nstage; i++)
        lens_free(r->stages[i]);
    lens_free(r->ids);
    lens_free(r->stages);
    lens_free(r->slot);
    lens_free(r->recs);
}

/* JSON whitespace; \r included so that CRLF logs parse */
static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return s;
}

/* Parses a JSON string at s (on the opening quote) into out (at most n bytes, the input
 * line is never longer). \u escapes outside ASCII become '?'. Returns the end or NULL.
 * NULL for any malformed string (a bad escape, a control character, no closing quote): the
 * caller names the key, which is what the user needs to find the problem in the line. */
static const char *parse_string(const char *s, char *out)
{
    s++;
    while (*s && *s != '"') {
        if (*s == '\\') {
            s++;
            switch (*s) {
            /* the escapes JSON defines; anything else after a backslash is an error */
            case '"': case '\\': case '/': *out++ = *s++; break;
            case 'n': *out++ = '\n'; s++; break;
            case 't': *out++ = '\t'; s++; break;
            case 'r': *out++ = '\r'; s++; break;
            case 'b': *out++ = '\b'; s++; break;
            case 'f': *out++ = '\f'; s++; break;
            /* Only printable ASCII is decoded; any other code point (a lone surrogate included)
             * becomes '?', which keeps its position visible in messages. Ids and stage names are
             * compared as bytes, so escaped and unescaped ASCII spellings of one name agree. */
            case 'u': {
                unsigned v = 0;
                for (int i = 1; i <= 4; i++) {
                    char c = s[i];
                    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                    if (d < 0)
                        return NULL;
                    v = v * 16 + (unsigned)d;
                }
                *out++ = v >= 0x20 && v < 0x80 ? (char)v : '?';
                s += 5;
                break;
            }
            default: return NULL;
            }
        } else if ((unsigned char)*s < 0x20) {
            /* a raw control character inside a string is invalid JSON (it must be escaped) */
            return NULL;
        } else {
            *out++ = *s++;
        }
    }
    if (*s != '"')
        return NULL;
    *out = '\0';
    return s + 1;
}

/* Scratch strings of one line, each as long as the line: the key and value being parsed, and
 * the task id and stage name kept until the whole line is known to be good. */
struct scratch {
    char *key, *val, *task, *stage;
};

/* Parses one line into a record. Task ids and stage names are registered only once the line
 * is complete and valid, so a bad or repeated key never leaves a task without records.
 * A hand-written reader for one flat object rather than a general JSON parser: the format
 * has four scalar keys, and a line-by-line parser can name the line of every error and
 * never holds more than one line. Unknown keys are accepted (with scalar values) so that a
 * runtime may log more than mpilens reads. */
static int parse_line(struct reader *r, const char *line, size_t lineno, struct scratch *sc,
                      struct lens_err *e)
{
    char *buf = sc->val, *key = sc->key;
    const char *s = skip_ws(line);
    const char *path = r->path;
    if (*s != '{')
        return lens_err_set(e, LENS_EFORMAT, "%s:%zu: expected a JSON object '{...}'", path, lineno);
    s = skip_ws(s + 1);
    int have_task = 0, have_stage = 0, have_t = 0, have_node = 0;
    long task = -1, stage = -1, node = 0;
    double t = 0;
    while (*s != '}') {
        if (*s != '"' || !(s = parse_string(s, key)))
            return lens_err_set(e, LENS_EFORMAT, "%s:%zu: expected a key string", path, lineno);
        s = skip_ws(s);
        if (*s != ':')
            return lens_err_set(e, LENS_EFORMAT, "%s:%zu: expected ':' after \"%s\"", path, lineno, key);
        s = skip_ws(s + 1);
        /* Values: a string, a number (its text kept in buf), or a literal. Objects and arrays are
         * refused: the format is flat, and skipping a nested value would need a real parser. */
        int is_str = *s == '"';
        double num = 0;
        /* every value is copied into buf as text: a number keeps its spelling, which is what a
         * numeric task id is compared by */
        if (is_str) {
            if (!(s = parse_string(s, buf)))
                return lens_err_set(e, LENS_EFORMAT, "%s:%zu: bad string for \"%s\"", path, lineno, key);
        } else if (*s == '-' || (*s >= '0' && *s <= '9')) {
            char *end;
            errno = 0;
            num = strtod(s, &end);
            /* 1e999 would be inf: refused rather than stored as a time no plot can place */
            if (errno == ERANGE || !isfinite(num))
                return lens_err_set(e, LENS_EFORMAT, "%s:%zu: number out of range for \"%s\"", path, lineno, key);
            /* the number's text, for "task": 17 kept as the id "17" */
            size_t n = (size_t)(end - s);
            memcpy(buf, s, n);
            buf[n] = '\0';
            s = end;
        /* literals are accepted for keys mpilens ignores; as a value of a key it reads they fail
         * the type checks below (buf empty) */
        } else if (!strncmp(s, "true", 4) || !strncmp(s, "null", 4)) {
            s += 4;
            buf[0] = '\0';
        } else if (!strncmp(s, "false", 5)) {
            s += 5;
            buf[0] = '\0';
        } else {
            return lens_err_set(e, LENS_EFORMAT, "%s:%zu: unsupported value for \"%s\" (nested or malformed)",
                                path, lineno, key);
        }
        /* literals leave buf empty, so is_num is 1 exactly for numbers */
        int is_num = !is_str && buf[0];
        /* a repeated key would make the record ambiguous (which task, which time?) */
        int *seen = !strcmp(key, "task") ? &have_task : !strcmp(key, "stage") ? &have_stage
                  : !strcmp(key, "t") ? &have_t : !strcmp(key, "node") ? &have_node : NULL;
        /* checked before the value is used: the first occurrence must not be overwritten */
        if (seen && *seen)
            return lens_err_set(e, LENS_EFORMAT, "%s:%zu: key \"%s\" given twice in one record", path, lineno, key);
        /* a task id may be a number or a string, as runtimes differ; it is kept as written */
        if (!strcmp(key, "task")) {
            if (!buf[0])
                return lens_err_set(e, LENS_EFORMAT, "%s:%zu: \"task\" must be a number or a non-empty string", path, lineno);
            strcpy(sc->task, buf);
            have_task = 1;
        } else if (!strcmp(key, "stage")) {
            if (!is_str || !buf[0])
                return lens_err_set(e, LENS_EFORMAT, "%s:%zu: \"stage\" must be a non-empty string", path, lineno);
            strcpy(sc->stage, buf);
            have_stage = 1;
        } else if (!strcmp(key, "t")) {
            if (!is_num)
                return lens_err_set(e, LENS_EFORMAT, "%s:%zu: \"t\" must be a number of seconds", path, lineno);
            t = num;
            have_t = 1;
        } else if (!strcmp(key, "node")) {
            /* 1e15 keeps the value exact in a double and inside long */
            if (!is_num || num != floor(num) || fabs(num) > 1e15)
                return lens_err_set(e, LENS_EFORMAT, "%s:%zu: \"node\" must be an integer", path, lineno);
            node = (long)num;
            have_node = 1;
        }
        /* after a value: a comma and the next key, or the closing brace */
        s = skip_ws(s);
        if (*s == ',')
            s = skip_ws(s + 1);
        else if (*s != '}')
            return lens_err_set(e, LENS_EFORMAT, "%s:%zu: expected ',' or '}' after \"%s\"", path, lineno, key);
    }
    /* one object per line: "{...}{...}" would be two records in one line, refused */
    if (*skip_ws(s + 1))
        return lens_err_set(e, LENS_EFORMAT, "%s:%zu: text after the JSON object", path, lineno);
    /* all four keys are required: a record without a node cannot count migrations, one without t
     * cannot be placed in time */
    const char *missing = !have_task ? "task" : !have_stage ? "stage" : !have_t ? "t" : !have_node ? "node" : NULL;
    /* keys reported in a fixed order, so the message does not depend on the line's key order */
    if (missing)
        return lens_err_set(e, LENS_EFORMAT, "%s:%zu: missing key \"%s\"", path, lineno, missing);
    /* Registered only now, after the whole line passed, so an error leaves no id without a
     * record (build() relies on every task having at least one). */
    if ((task = task_index(r, sc->task, e)) < 0 || (stage = stage_index(r, sc->stage, lineno, e)) < 0)
        return e ? e->code : LENS_ENOMEM;
    /* records double in capacity: amortised O(1) per line */
    if (r->nrec == r->rcap) {
        size_t cap = r->rcap ? 2 * r->rcap : 1024;
        struct rec *recs = lens_realloc(r->recs, cap * sizeof *recs);
        if (!recs)
            return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %zu records", path, cap);
        r->recs = recs;
        r->rcap = cap;
    }
    r->recs[r->nrec++] = (struct rec){(size_t)task, (size_t)stage, t, node, lineno};
    return LENS_OK;
}

/* By task, then time, then line: a task's records become one run in time order, and two
 * records at the same t keep the order the runtime wrote them (qsort alone is not stable). */
static int cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;
    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->line > y->line) - (x->line < y->line);
}

/* Tasks in arrival order for the tables and plots; equal arrivals by id, shorter first, which
 * puts non-negative numeric ids ("9" before "10") in numeric order without parsing them. */
static int cmp_task(const void *a, const void *b)
{
    const struct lens_stagelog_task *x = a, *y = b;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival ? -1 : 1;
    size_t lx = strlen(x->id), ly = strlen(y->id); /* numeric ids in numeric order */
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return strcmp(x->id, y->id);
}

void lens_stagelog_free(struct lens_stagelog *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->ntask; i++)
        lens_free(l->tasks[i].id);
    for (size_t s = 0; s < l->nstage; s++)
        lens_free(l->stages[s]);
    lens_free(l->tasks);
    lens_free(l->stages);
    lens_free(l->spans);
    lens_free(l->cross);
    lens_free(l->mig_hist);
    lens_free(l->pool);
    lens_free(l);
}

/* Turns sorted records into tasks, spans and the histogram; takes ids and stages from r.
 * One pass over the sorted records, O(records): for each task the run i..j of its records;
 * record q's stay in its stage lasts until record q+1 (docs/methods.md §5.3), so the last
 * record only marks the end (e.g. "done") and has no stay. The pool is one T x S array
 * behind every task's in_stage, so T tasks cost one allocation, not T. Ownership of the ids
 * and stage names moves from the reader to the log; the reader then frees nothing twice. */
static int build(struct reader *r, long wait, struct lens_stagelog *l, struct lens_err *e)
{
    size_t T = r->nid, S = r->nstage;
    /* the product below must not wrap: a wrapped size would allocate too little */
    if (S && T > SIZE_MAX / sizeof *l->pool / S)
        return lens_err_set(e, LENS_ENOMEM, "%s: %zu tasks x %zu stages do not fit in memory", r->path, T, S);
    l->tasks = lens_calloc(T, sizeof *l->tasks);
    l->pool = lens_calloc(T * S, sizeof *l->pool);
    l->spans = lens_malloc(r->nrec * sizeof *l->spans);
    l->cross = lens_calloc(S ? S : 1, sizeof *l->cross);
    if (!l->tasks || !l->pool || !l->spans || !l->cross)
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory for %zu tasks", r->path, T);
    l->stages = r->stages;
    l->nstage = S;
    r->stages = NULL;
    r->nstage = 0;
    /* every task owns its row, even one without records (none can be: ids are registered
     * with their record), so no reader of in_stage meets a NULL */
    for (size_t t = 0; t < T; t++)
        l->tasks[t].in_stage = l->pool + t * S;
    size_t maxmig = 0;
    /* invariant: records before i belong to tasks already complete */
    for (size_t i = 0; i < r->nrec;) {
        size_t j = i;
        /* j: the last record of this task's run */
        while (j + 1 < r->nrec && r->recs[j + 1].task == r->recs[i].task)
            j++;
        struct lens_stagelog_task *k = &l->tasks[r->recs[i].task];
        /* records are in time order, so the run's first and last give arrival and end */
        k->arrival = r->recs[i].t;
        k->end = r->recs[j].t;
        int waited = 0;
        for (size_t q = i; q < j; q++) {
            const struct rec *a = &r->recs[q], *b = &r->recs[q + 1];
            /* a migration is a node change between consecutive records of one task */
            int moved = a->node != b->node;
            k->migrations += moved;
            /* waited: any time in the wait stage, whatever clock measured it (the entry
             * record alone shows the task waited; only its length needs one clock) */
            waited |= (long)a->stage == wait && b->t > a->t;
            l->cross[a->stage] += (size_t)moved;
            /* b->t - a->t subtracts two nodes' clocks when the task moved: per-node clocks
             * make that difference meaningless, so the stay is counted but not measured */
            if (moved && l->clocks == LENS_STAGELOG_PER_NODE)
                continue;
            k->in_stage[a->stage] += b->t - a->t;
            /* at most nrec - 1 stays in all, so the spans array sized nrec never overflows */
            l->spans[l->nspan++] = (struct lens_stagelog_span){a->stage, a->t, b->t};
        }
        /* wait < 0 when no record used that stage, and then no task waited */
        k->waited = waited;
        l->waited += (size_t)k->waited;
        if ((size_t)k->migrations > maxmig)
            maxmig = (size_t)k->migrations;
        i = j + 1;
    }
    /* ids move into the tasks before the sort, so each id travels with its own task */
    for (size_t t = 0; t < T; t++) {
        l->tasks[t].id = r->ids[t];
        r->ids[t] = NULL;
    }
    l->ntask = T;
    r->nid = 0;
    l->nmig = maxmig + 1;
    for (size_t s = 0; s < S; s++)
        l->ncross += l->cross[s];
    if (!(l->mig_hist = lens_calloc(l->nmig, sizeof *l->mig_hist)))
        return lens_err_set(e, LENS_ENOMEM, "%s: out of memory", r->path);
    /* the histogram before the sort: it does not depend on the order of the tasks */
    for (size_t t = 0; t < T; t++)
        l->mig_hist[l->tasks[t].migrations]++;
    qsort(l->tasks, T, sizeof *l->tasks, cmp_task);
    l->nrecord = r->nrec;
    /* the whole log's time range, the axis of the occupancy and of the plots */
    l->t0 = INFINITY;
    l->t1 = -INFINITY;
    for (size_t i = 0; i < r->nrec; i++) {
        l->t0 = fmin(l->t0, r->recs[i].t);
        l->t1 = fmax(l->t1, r->recs[i].t);
    }
    return LENS_OK;
}

int lens_stagelog_read(const char *path, const char *wait_stage, enum lens_stagelog_clocks clocks,
                       struct lens_stagelog **out, struct lens_err *e)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct reader r = {.path = path};
    struct lens_textline tl = {0};
    struct scratch sc = {0};
    size_t bufcap = 0, lineno = 0;
    int rc = LENS_OK, got;
    while ((got = lens_textline_read(fp, &tl, LENS_STAGELOG_MAX_LINE)) != LENS_TEXTLINE_EOF) {
        lineno++;
        if (got != LENS_TEXTLINE_OK) {
            rc = lens_textline_fail(got, path, (long)lineno, 0, LENS_STAGELOG_MAX_LINE, e);
            break;
        }
        const char *line = tl.s;
        size_t n = tl.len;
        if (!*skip_ws(line))
            continue;
        /* The scratch strings are as long as the longest line so far: any key or value of the line
         * fits, so parse_string needs no bounds checks. They only grow, so a log costs as many
         * reallocations as it has new longest lines. */
        if (n + 1 > bufcap) {
            char **bufs[] = {&sc.key, &sc.val, &sc.task, &sc.stage};
            bufcap = n + 1;
            for (int k = 0; k < 4; k++) {
                lens_free(*bufs[k]);
                *bufs[k] = lens_malloc(bufcap);
            }
            if (!sc.key || !sc.val || !sc.task || !sc.stage) {
                rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
                break;
            }
        }
        if ((rc = parse_line(&r, line, lineno, &sc, e)) != LENS_OK)
            break;
    }
    lens_textline_release(&tl);
    lens_free(sc.key);
    lens_free(sc.val);
    lens_free(sc.task);
    lens_free(sc.stage);
    fclose(fp);
    if (rc == LENS_OK && r.nrec == 0)
        rc = lens_err_set(e, LENS_EDATA, "%s: no records", path);
    struct lens_stagelog *l = NULL;
    if (rc == LENS_OK && !(l = lens_calloc(1, sizeof *l)))
        rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory", path);
    if (rc == LENS_OK) {
        /* the records were collected in file order; build() needs them grouped by task in time
         * order */
        qsort(r.recs, r.nrec, sizeof *r.recs, cmp_rec);
        long wait = -1;
        /* a wait stage that no record uses is not an error: then no task waited */
        for (size_t s = 0; s < r.nstage; s++)
            if (!strcmp(r.stages[s], wait_stage ? wait_stage : "wait"))
                wait = (long)s;
        l->clocks = clocks;
        rc = build(&r, wait, l, e);
    }
    reader_release(&r);
    if (rc != LENS_OK) {
        lens_stagelog_free(l);
        return rc;
    }
    *out = l;
    return LENS_OK;
}

long lens_stagelog_find(const struct lens_stagelog *l, const char *stage)
{
    for (size_t s = 0; s < l->nstage; s++)
        if (!strcmp(l->stages[s], stage))
            return (long)s;
    return -1;
}

/* First bin whose time is >= t (n when none), by arithmetic then exact correction.
 * The arithmetic guess can be off by one through rounding of (t - t0) / dt; the two loops
 * fix it against the exact expression used for times[], so a bin is counted exactly when
 * its printed time tau satisfies from <= tau < to. O(1) in practice. */
static size_t first_at_or_after(double t, double t0, double dt, size_t n)
{
    double g = ceil((t - t0) / dt - 0.5);
    size_t i = g <= 0 ? 0 : g >= (double)n ? n : (size_t)g;
    while (i < n && t0 + ((double)i + 0.5) * dt < t)
        i++;
    while (i > 0 && t0 + ((double)(i - 1) + 0.5) * dt >= t)
        i--;
    return i;
}

/* A difference array per stage: each stay adds +1 at its first bin and -1 after its last, and
 * a running sum gives the counts. O(spans + nbins S) instead of O(spans x nbins), which
 * matters for millions of stays on a fine time grid. */
int lens_stagelog_occupancy(const struct lens_stagelog *l, size_t nbins, double *times,
                            size_t *counts, struct lens_err *e)
{
    if (nbins == 0)
        return lens_err_set(e, LENS_EINVAL, "stages: the number of time points must be >= 1");
    size_t S = l->nstage;
    long *diff = lens_calloc((nbins + 1) * S, sizeof *diff);
    if (!diff)
        return lens_err_set(e, LENS_ENOMEM, "stages: out of memory for %zu time points", nbins);
    /* bin centres, as docs/methods.md §5.3 defines the time points */
    double dt = (l->t1 - l->t0) / (double)nbins;
    for (size_t i = 0; i < nbins; i++)
        times[i] = l->t0 + ((double)i + 0.5) * dt;
    /* all records at one instant (dt == 0): no stay covers a bin; counts stay 0 */
    if (dt > 0)
        for (size_t k = 0; k < l->nspan; k++) {
            const struct lens_stagelog_span *sp = &l->spans[k];
            /* bins a..b-1 are the centres with from <= tau < to */
            size_t a = first_at_or_after(sp->from, l->t0, dt, nbins);
            size_t b = first_at_or_after(sp->to, l->t0, dt, nbins); /* tau < to */
            /* a stay shorter than a bin may cover no bin centre at all */
            if (a < b) {
                diff[a * S + sp->stage]++;
                diff[b * S + sp->stage]--;
            }
        }
    for (size_t s = 0; s < S; s++) {
        /* the running sum of the differences is the count at bin i */
        long run = 0;
        for (size_t i = 0; i < nbins; i++) {
            run += diff[i * S + s];
            counts[i * S + s] = (size_t)run;
        }
    }
    lens_free(diff);
    return LENS_OK;
}

/* Key order is the documented, stable form (docs/icappa.md). A stage's mean is over the tasks
 * that spent time in it (n), not over all tasks, so a stage few tasks visit is not diluted.
 * Buffers get at least one element so that nbins or S of 0 never means malloc(0). */
int lens_stagelog_write_json(const struct lens_stagelog *l, size_t nbins, FILE *fp,
                             struct lens_err *e)
{
    size_t S = l->nstage;
    double *times = lens_malloc((nbins ? nbins : 1) * sizeof *times);
    size_t *counts = lens_malloc((nbins ? nbins : 1) * (S ? S : 1) * sizeof *counts);
    int rc = times && counts ? lens_stagelog_occupancy(l, nbins, times, counts, e)
                             : lens_err_set(e, LENS_ENOMEM, "stages: out of memory");
    if (rc != LENS_OK) {
        lens_free(times);
        lens_free(counts);
        return rc;
    }
    struct lens_json j;
    lens_json_init(&j, fp);
    lens_json_begin_object(&j);
    lens_json_key(&j, "records");
    lens_json_int(&j, (long long)l->nrecord);
    lens_json_key(&j, "tasks");
    lens_json_int(&j, (long long)l->ntask);
    lens_json_key(&j, "waited");
    lens_json_int(&j, (long long)l->waited);
    /* the histogram A_0, A_1, ...: entry k counts the tasks that moved k times */
    lens_json_key(&j, "migrations");
    lens_json_begin_array(&j);
    for (size_t k = 0; k < l->nmig; k++)
        lens_json_int(&j, (long long)l->mig_hist[k]);
    lens_json_end_array(&j);
    /* which stays the times below count, and how many were left out for the clocks */
    lens_json_key(&j, "clocks");
    lens_json_string(&j, l->clocks == LENS_STAGELOG_SYNCED ? "synced" : "per-node");
    lens_json_key(&j, "cross_node_stays");
    lens_json_int(&j, (long long)l->ncross);
    lens_json_key(&j, "t0");
    lens_json_number(&j, l->t0);
    lens_json_key(&j, "t1");
    lens_json_number(&j, l->t1);
    lens_json_key(&j, "stages");
    lens_json_begin_array(&j);
    for (size_t s = 0; s < S; s++) {
        double mean, max;
        size_t n;
        lens_stagecmp_stage_stats(l, s, &n, &mean, &max);
        lens_json_begin_object(&j);
        lens_json_key(&j, "name");
        lens_json_string(&j, l->stages[s]);
        lens_json_key(&j, "tasks");
        lens_json_int(&j, (long long)n);
        lens_json_key(&j, "mean_seconds");
        lens_json_number(&j, mean);
        lens_json_key(&j, "max_seconds");
        lens_json_number(&j, max);
        lens_json_key(&j, "cross_node_stays");
        lens_json_int(&j, (long long)l->cross[s]);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    /* counts[i] lists the stages in the order of "stages" above, one array per time point */
    lens_json_key(&j, "occupancy");
    lens_json_begin_object(&j);
    lens_json_key(&j, "t");
    lens_json_begin_array(&j);
    for (size_t i = 0; i < nbins; i++)
        lens_json_number(&j, times[i]);
    lens_json_end_array(&j);
    lens_json_key(&j, "counts");
    lens_json_begin_array(&j);
    for (size_t i = 0; i < nbins; i++) {
        lens_json_begin_array(&j);
        for (size_t s = 0; s < S; s++)
            lens_json_int(&j, (long long)counts[i * S + s]);
        lens_json_end_array(&j);
    }
    lens_json_end_array(&j);
    lens_json_end_object(&j);
    lens_json_end_object(&j);
    fputc('\n', fp);
    lens_free(times);
    lens_free(counts);
    if (ferror(fp))
        return lens_err_set(e, LENS_EIO, "stages: write error");
    return LENS_OK;
}

/* RFC 4180: a field holding a comma, a quote or a line break is quoted with its quotes doubled.
 * Task ids and stage names come from the log as any JSON string, and written bare "a,b" would
 * shift every later column of the row; plain names keep their bytes. */
static void csv_field(FILE *fp, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

/* 10 significant digits: enough for the plots this feeds, short enough to read. Task ids and
 * stage names are written as given, quoted only when CSV needs it (csv_field). */
int lens_stagelog_write_tasks_csv(const struct lens_stagelog *l, FILE *fp, struct lens_err *e)
{
    fputs("task,arrival,migrations,waited", fp);
    for (size_t s = 0; s < l->nstage; s++) {
        fputc(',', fp);
        csv_field(fp, l->stages[s]);
    }
    fputc('\n', fp);
    for (size_t t = 0; t < l->ntask; t++) {
        const struct lens_stagelog_task *k = &l->tasks[t];
        csv_field(fp, k->id);
        fprintf(fp, ",%.10g,%d,%d", k->arrival, k->migrations, k->waited);
        for (size_t s = 0; s < l->nstage; s++)
            fprintf(fp, ",%.10g", k->in_stage[s]);
        fputc('\n', fp);
    }
    if (ferror(fp))
        return lens_err_set(e, LENS_EIO, "stages: write error");
    return LENS_OK;
}
