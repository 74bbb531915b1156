/* OTF2 trace -> profile (profile_otf2.h): each rank's Enter/Leave events are replayed on a
 * stack that carries, per open region instance, its enter time and the time of the instances
 * nested directly in it; exclusive seconds accumulate per region in a dense array per rank
 * and go to the profile builder once per (rank, region). */
#include "profile_otf2.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Carrying the nested time in the parent's frame makes the exclusive time O(1) per event:
 * no second pass over the children when a region closes. */
struct frame {
    uint32_t region;
    double enter;   /* seconds */
    double nested;  /* seconds spent in instances directly nested in this one */
};

struct replay {
    struct frame *stack;  /* owned */
    size_t depth, cap;
    double *excl;         /* nregions exclusive seconds of the current rank (owned) */
    unsigned char *seen;  /* nregions: 1 once an instance of the region closed */
    int closed;           /* instances closed on the current rank */
};

/* Cheap and side-effect free (a stat and 6 bytes), so a command can try it before deciding
 * whether its input is a trace or a profile CSV. */
int lens_profile_otf2_detect(const char *path)
{
    struct stat st;
    char anchor[4096];
    if (stat(path, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode)) {
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", path);
        return stat(anchor, &st) == 0 && S_ISREG(st.st_mode);
    }
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    unsigned char magic[6] = {0};
    size_t n = fread(magic, 1, sizeof magic, fp);
    fclose(fp);
    /* the anchor file starts with a one-byte length (3) followed by "BOTF2" */
    return n == sizeof magic && !memcmp(magic, "\3BOTF2", 6);
}

/* Closes the innermost open instance: its exclusive time is what its children did not use. */
static void close_top(struct replay *r, double t)
{
    struct frame *f = &r->stack[--r->depth];
    /* a Leave stamped before its Enter (a clock step) counts as 0, never negative */
    double dur = t > f->enter ? t - f->enter : 0;
    double excl = dur - f->nested;
    r->excl[f->region] += excl > 0 ? excl : 0;
    r->seen[f->region] = 1;
    r->closed++;
    if (r->depth > 0)
        r->stack[r->depth - 1].nested += dur;
}

/* The stack grows by doubling: recursion depth is unknown in advance and the same stack is
 * reused for every rank, so only the deepest rank costs allocations. */
static int push(struct replay *r, uint32_t region, double t)
{
    if (r->depth == r->cap) {
        size_t m = r->cap ? 2 * r->cap : 64;
        struct frame *p = lens_realloc(r->stack, m * sizeof *p);
        if (!p)
            return LENS_ENOMEM;
        r->stack = p;
        r->cap = m;
    }
    r->stack[r->depth++] = (struct frame){region, t, 0};
    return LENS_OK;
}

/* Replays one rank; leaves its exclusive seconds in r->excl / r->seen. */
static int replay_rank(struct replay *r, const struct lens_trace *t, const struct lens_trace_rank *rk)
{
    /* a fresh stack and fresh sums per rank: ranks are independent timelines */
    r->depth = 0;
    r->closed = 0;
    memset(r->excl, 0, t->nregions * sizeof *r->excl);
    memset(r->seen, 0, t->nregions);
    for (uint32_t i = 0; i < rk->nrevs; i++) {
        const struct lens_trace_region_event *ev = &rk->revs[i];
        if (ev->region >= t->nregions)
            continue; /* undefined region: nothing to name it by */
        /* Enter: open an instance; its exclusive time is settled when it closes */
        if (ev->enter) {
            if (push(r, ev->region, ev->t) != LENS_OK)
                return LENS_ENOMEM;
            continue;
        }
        size_t k = r->depth;
        /* search down for the innermost open instance of this region (recursion opens several) */
        while (k > 0 && r->stack[k - 1].region != ev->region)
            k--;
        if (k == 0)
            continue; /* leave without enter: the trace began inside the region */
        /* a missing Leave of an inner region: the inner ones end where this one ends */
        while (r->depth >= k)
            close_top(r, ev->t);
    }
    while (r->depth > 0) /* truncated trace: close what is open at the last event */
        close_top(r, rk->t_last);
    return LENS_OK;
}

int lens_profile_otf2_from_trace(const struct lens_trace *t, const char *name,
                                 struct lens_profile **out, struct lens_err *e)
{
    if (!name)
        name = "trace";
    *out = NULL;
    int any_revs = 0;
    for (int i = 0; i < t->nranks; i++)
        any_revs |= t->ranks[i].revs != NULL;
    if (!any_revs && t->nevents > 0)
        return lens_err_set(e, LENS_EINVAL, "%s: read without region events (LENS_TRACE_READ_REGIONS)", name);
    struct replay r = {0};
    struct lens_profile *p = lens_profile_new();
    size_t nreg = t->nregions ? t->nregions : 1;
    r.excl = lens_calloc(nreg, sizeof *r.excl);
    r.seen = lens_calloc(nreg, 1);
    int rc = p && r.excl && r.seen ? LENS_OK : lens_err_set(e, LENS_ENOMEM, "%s: out of memory for the profile", name);
    int closed = 0;
    struct lens_err sub;
    lens_err_clear(&sub);
    for (int i = 0; rc == LENS_OK && i < t->nranks; i++) {
        if (replay_rank(&r, t, &t->ranks[i]) != LENS_OK) {
            rc = lens_err_set(e, LENS_ENOMEM, "%s: out of memory replaying rank %d", name, i);
            break;
        }
        closed += r.closed;
        /* One add per (rank, region) with the rank's total, in region order: the profile's columns
         * then appear in the order regions are defined, the same on every run. */
        for (uint32_t g = 0; rc == LENS_OK && g < t->nregions; g++) {
            if (!r.seen[g])
                continue;
            rc = lens_profile_add(p, i, lens_trace_region_name(t, g), r.excl[g], &sub);
            /* the builder's reason (an empty region name, too many cells) and where it arose */
            if (rc != LENS_OK)
                rc = lens_err_set(e, rc, "%s: rank %d, region %u: %s", name, i, g, sub.msg);
        }
    }
    /* a trace with regions but no complete instance would give an all-zero profile */
    if (rc == LENS_OK && closed == 0)
        rc = lens_err_set(e, LENS_EDATA, "%s: no region entered and left on any rank", name);
    if (rc == LENS_OK)
        rc = lens_profile_finish(p, e);
    lens_free(r.stack);
    lens_free(r.excl);
    lens_free(r.seen);
    if (rc != LENS_OK) {
        lens_profile_free(p);
        return rc;
    }
    *out = p;
    return LENS_OK;
}

int lens_profile_otf2_read(const char *path, struct lens_profile **out, struct lens_err *e)
{
    struct lens_trace *t = NULL;
    *out = NULL;
    int rc = lens_trace_read_flags(path, LENS_TRACE_READ_REGIONS, &t, e);
    if (rc == LENS_OK)
        rc = lens_profile_otf2_from_trace(t, path, out, e);
    lens_trace_free(t);
    return rc;
}
