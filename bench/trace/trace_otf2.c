/* Raw collector files -> OTF2 archive. Every process reads all ranks' small .defs files and
 * numbers the definitions the same way (sorted keys), so no definition has to be exchanged;
 * it then converts its own ranks' .evt files block by block. The master also writes the
 * global definitions. Collective steps go through OTF2's collective callbacks (serial default). */
#include "trace_otf2.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/otf2names.h"
#include "callsite.h"
#include "trace_defs.h"
#include "trace_symbols.h"

/* The attributes attached to calls: the call site as module and offset (resolved to a source
 * line after the run, by `mpilens problems`), and the window of an RMA call. */
enum { ATTR_MODULE, ATTR_OFFSET, ATTR_WINDOW, ATTR_COUNT };
#define BLOCK 4096 /* records read at a time */

/* The OTF2 region of each MPI call, generated from the one function list (trace_defs.h) that
 * also generates the wrappers, so the region ids and the records' fn can never disagree. */
static const struct {
    const char *name;
    int kind;
    OTF2_RegionRole role;
    OTF2_CollectiveOp op;
} fns[LENS_FN_COUNT] = {
#define LENS_X(n, kind, role, op) {"MPI_" #n, LENS_K_##kind, OTF2_REGION_ROLE_##role, op},
    LENS_TRACE_FUNCTIONS(LENS_X)
#undef LENS_X
};

/* Accessors for the reader side (`mpilens problems` names calls by them); NULL and -1 for a
 * number outside the table, as a newer collector could write. */
const char *lens_trace_fn_name(unsigned fn) { return fn < LENS_FN_COUNT ? fns[fn].name : NULL; }
int lens_trace_fn_kind(unsigned fn) { return fn < LENS_FN_COUNT ? fns[fn].kind : -1; }

/* A communicator's global entry: its key and the first rank's description (members as world
 * ranks), which every member describes alike. */
struct gcomm {
    uint64_t key;
    const struct lens_trace_comm *c;     /* first rank's description of it */
};

/* The conversion's state on one process: every rank's definitions (read by all), the global
 * numbering, the string table and the archive being written. */
struct conv {
    const struct lens_trace_otf2_opts *o;
    struct lens_err *e;
    struct lens_trace_defs *rd;          /* nranks entries */
    struct gcomm *gc;
    size_t ngc;
    uint64_t *gw;              /* sorted unique window keys */
    uint64_t *gwcomm;          /* key of each window's communicator */
    size_t ngw;
    char **str;                /* string table, id = index */
    size_t nstr, capstr;
    OTF2_Archive *ar;
    OTF2_AttributeList *al;
    uint64_t last_t; /* last timestamp written on the current location */
    struct lens_trace_symbols *sym; /* user functions (-finstrument-functions) */
};

/* A linear search: the table holds some hundreds of strings (names of calls, ranks, modules),
 * looked up once each while numbering, never per event. */
static int str_id(struct conv *c, const char *s, uint32_t *id)
{
    for (size_t i = 0; i < c->nstr; i++)
        if (!strcmp(c->str[i], s)) {
            *id = (uint32_t)i;
            return LENS_OK;
        }
    if (c->nstr == c->capstr) {
        size_t cap = c->capstr ? 2 * c->capstr : 256;
        char **p = lens_realloc(c->str, cap * sizeof *p);
        if (!p)
            return lens_err_set(c->e, LENS_ENOMEM, "out of memory for the string table");
        c->str = p;
        c->capstr = cap;
    }
    if (!(c->str[c->nstr] = lens_strdup(s)))
        return lens_err_set(c->e, LENS_ENOMEM, "out of memory for the string table");
    *id = (uint32_t)c->nstr++;
    return LENS_OK;
}

static uint32_t sid(struct conv *c, const char *s) /* for strings known to be present */
{
    uint32_t id = 0;
    str_id(c, s, &id);
    return id;
}

/* ---- global numbering */

static int cmp_gcomm(const void *a, const void *b)
{
    uint64_t x = ((const struct gcomm *)a)->key, y = ((const struct gcomm *)b)->key;
    return x < y ? -1 : x > y;
}

/* Pairs (window key, communicator key) sort by window key alone: duplicates of one window from
 * several ranks carry the same communicator. */
static int cmp_u64pair(const void *a, const void *b)
{
    uint64_t x = ((const uint64_t *)a)[0], y = ((const uint64_t *)b)[0];
    return x < y ? -1 : x > y;
}

/* Communicators and windows of all ranks, sorted by key and made unique: their positions are
 * the global ids. Every process computes the same list from the same files, so no id has to
 * be exchanged; a communicator seen by several ranks appears once. */
static int number_defs(struct conv *c)
{
    size_t nc = 0, nw = 0;
    for (int r = 0; r < c->o->nranks; r++)
        nc += c->rd[r].ncomm, nw += c->rd[r].nwin;
    c->gc = lens_calloc(nc + 1, sizeof *c->gc); /* +1: never a zero-size allocation */
    uint64_t *pairs = lens_calloc(2 * nw + 2, sizeof *pairs);
    c->gw = lens_calloc(nw + 1, sizeof *c->gw);
    c->gwcomm = lens_calloc(nw + 1, sizeof *c->gwcomm);
    if (!c->gc || !pairs || !c->gw || !c->gwcomm) {
        lens_free(pairs);
        return lens_err_set(c->e, LENS_ENOMEM, "out of memory numbering definitions");
    }
    nc = nw = 0;
    for (int r = 0; r < c->o->nranks; r++) {
        struct lens_trace_defs *d = &c->rd[r];
        for (size_t i = 0; i < d->ncomm; i++)
            c->gc[nc++] = (struct gcomm){d->comms[i].key, &d->comms[i]};
        for (size_t i = 0; i < d->nwin; i++, nw++) {
            pairs[2 * nw] = d->wins[i].key;
            pairs[2 * nw + 1] = d->comms[d->wins[i].comm].key; /* the window's communicator, by key */
        }
    }
    qsort(c->gc, nc, sizeof *c->gc, cmp_gcomm);
    for (size_t i = 0; i < nc; i++)
        if (c->ngc == 0 || c->gc[c->ngc - 1].key != c->gc[i].key)
            c->gc[c->ngc++] = c->gc[i];
    qsort(pairs, nw, 2 * sizeof *pairs, cmp_u64pair); /* (key, comm) pairs sorted by key */
    for (size_t i = 0; i < nw; i++)
        if (c->ngw == 0 || c->gw[c->ngw - 1] != pairs[2 * i]) {
            c->gw[c->ngw] = pairs[2 * i];
            c->gwcomm[c->ngw++] = pairs[2 * i + 1];
        }
    lens_free(pairs);
    return LENS_OK;
}

/* Binary search in the sorted unique keys: the global id of a communicator key. */
static uint32_t gcomm_of(const struct conv *c, uint64_t key)
{
    size_t lo = 0, hi = c->ngc;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->gc[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->ngc && c->gc[lo].key == key ? (uint32_t)lo : OTF2_UNDEFINED_COMM;
}

/* Binary search, as for communicators: the global id of a window key. */
static uint32_t gwin_of(const struct conv *c, uint64_t key)
{
    for (size_t lo = 0, hi = c->ngw; lo < hi;) {
        size_t mid = (lo + hi) / 2;
        if (c->gw[mid] == key)
            return (uint32_t)mid;
        if (c->gw[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return OTF2_UNDEFINED_RMA_WIN;
}

/* Strings in a fixed order, so every process gives them the same ids. */
static int number_strings(struct conv *c)
{
    /* The fixed strings first, then names derived from the definitions in a fixed order: string
     * ids then agree on every process, as OTF2 requires of global definitions. */
    static const char *fixed[] = {"", "MPI", LENS_OTF2_ATTR_MODULE, LENS_OTF2_ATTR_MODULE_DESCR,
                                  LENS_OTF2_ATTR_OFFSET, LENS_OTF2_ATTR_OFFSET_DESCR,
                                  LENS_OTF2_ATTR_WINDOW, LENS_OTF2_ATTR_WINDOW_DESCR, "machine",
                                  "mpilens", "node", "Master thread", "MPI_COMM_WORLD"};
    char buf[64];
    uint32_t id;
    int rc = LENS_OK;
    for (size_t i = 0; rc == LENS_OK && i < sizeof fixed / sizeof *fixed; i++)
        rc = str_id(c, fixed[i], &id);
    for (unsigned f = 0; rc == LENS_OK && f < LENS_FN_COUNT; f++)
        rc = str_id(c, fns[f].name, &id);
    for (int r = 0; rc == LENS_OK && r < c->o->nranks; r++) {
        snprintf(buf, sizeof buf, "MPI Rank %d", r);
        rc = str_id(c, buf, &id);
        if (rc == LENS_OK)
            rc = str_id(c, c->rd[r].present ? c->rd[r].host : "unknown", &id);
        /* Each module's id is kept: looking the path up in the string table for every event
         * was half of the conversion's time (a strcmp per string per event). */
        struct lens_trace_defs *d = &c->rd[r];
        if (rc == LENS_OK && d->mods.n &&
            !(d->modstr = lens_calloc(d->mods.n, sizeof *d->modstr)))
            rc = lens_err_set(c->e, LENS_ENOMEM, "out of memory for the string table");
        for (size_t m = 0; rc == LENS_OK && m < d->mods.n; m++)
            rc = str_id(c, d->mods.mod[m].path, &d->modstr[m]);
    }
    /* Communicator 0 is MPI_COMM_WORLD (key 0 sorts first), already named in the fixed list. */
    for (size_t i = 1; rc == LENS_OK && i < c->ngc; i++) {
        snprintf(buf, sizeof buf, "MPI comm %zu", i);
        rc = str_id(c, buf, &id);
    }
    for (size_t i = 0; rc == LENS_OK && i < c->ngw; i++) {
        snprintf(buf, sizeof buf, "MPI window %zu", i);
        rc = str_id(c, buf, &id);
    }
    for (size_t i = 0; rc == LENS_OK && i < lens_trace_symbols_count(c->sym); i++) {
        rc = str_id(c, lens_trace_symbols_name(c->sym, i), &id);
        if (rc == LENS_OK)
            rc = str_id(c, lens_trace_symbols_module(c->sym, i), &id);
    }
    return rc;
}

/* ---- events */

/* The first OTF2 failure is kept and later calls are skipped, so the error names the call that
 * failed first, not one that failed because of it. */
#define OK2(call) (c->e->code == LENS_OK && (call) != OTF2_SUCCESS ? otf2_fail(c, #call) : 0)

/* The macro's text of the failed call goes into the message, cut to 60 characters. */
static int otf2_fail(struct conv *c, const char *what)
{
    lens_err_set(c->e, LENS_ELIB, "%s/traces.otf2: otf2 call failed: %.60s", c->o->dir, what);
    return -1;
}

/* Rank of world rank w in communicator rc (OTF2 wants communicator ranks). */
/* The inverse map is built on first use per communicator and kept: a trace with many messages
 * on one communicator pays for it once. */
static uint32_t comm_rank(struct lens_trace_comm *rc, int w, int nranks)
{
    if (w < 0 || !rc) /* no peer, or a communicator we never saw */
        return OTF2_UNDEFINED_UINT32;
    if (rc->key == 0) /* MPI_COMM_WORLD: the world rank is the rank */
        return (uint32_t)w;
    if (!rc->inverse) {
        rc->inverse = lens_malloc((size_t)nranks * sizeof *rc->inverse);
        if (!rc->inverse)
            return OTF2_UNDEFINED_UINT32;
        for (int i = 0; i < nranks; i++)
            rc->inverse[i] = -1;
        for (int i = 0; i < rc->n; i++)
            if (rc->world[i] >= 0 && rc->world[i] < nranks)
                rc->inverse[rc->world[i]] = i;
    }
    return w < nranks && rc->inverse[w] >= 0 ? (uint32_t)rc->inverse[w] : OTF2_UNDEFINED_UINT32;
}

/* The completions a wait or test call reported (sub-records), written inside the call's
 * Enter/Leave at its end time, as OTF2 readers expect an MPI_Wait's events. */
static void emit_sub(struct conv *c, OTF2_EvtWriter *w, struct lens_trace_defs *d,
                     const struct lens_trace_rec *s, uint64_t t)
{
    struct lens_trace_comm *rc = s->idx < d->ncomm ? &d->comms[s->idx] : NULL;
    uint32_t g = rc ? rc->gid : OTF2_UNDEFINED_COMM;
    uint32_t peer = comm_rank(rc, s->peer, c->o->nranks);
    if (s->type == LENS_REC_SEND_DONE)
        OK2(OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, s->aux));
    else if (s->aux != 0) /* a request id: the receive was nonblocking */
        OK2(OTF2_EvtWriter_MpiIrecv(w, NULL, t, peer, g, (uint32_t)s->tag, s->bytes, s->aux));
    else
        OK2(OTF2_EvtWriter_MpiRecv(w, NULL, t, peer, g, (uint32_t)s->tag, s->bytes));
}

static void emit_call(struct conv *c, OTF2_EvtWriter *w, struct lens_trace_defs *d,
                      const struct lens_trace_rec *r, const struct lens_trace_rec *sub, size_t nsub)
{
    /* A function number beyond the table comes from a newer collector: skipped, not guessed. */
    if (r->fn >= LENS_FN_COUNT)
        return;
    int kind = fns[r->fn].kind, rma = kind >= LENS_K_WIN_CREATE; /* RMA kinds come last in the list */
    /* OTF2 requires the events of one location in time order; clock corrections of a few ns could
     * otherwise put a call's Enter before the previous Leave. */
    uint64_t t0 = r->t0 < c->last_t ? c->last_t : r->t0; /* keep timestamps ordered */
    uint64_t t1 = r->t1 < t0 ? t0 : r->t1;
    struct lens_trace_comm *rc = NULL;
    uint32_t g = OTF2_UNDEFINED_COMM, win = OTF2_UNDEFINED_RMA_WIN, peer;
    /* RMA records index the window table, the others the communicator table: one field, two
     * meanings, decided by the call's kind. */
    if (rma && r->idx < d->nwin) {
        win = d->wins[r->idx].gid;
        rc = &d->comms[d->wins[r->idx].comm];
    } else if (!rma && r->idx < d->ncomm) {
        rc = &d->comms[r->idx];
        g = rc->gid;
    }
    peer = comm_rank(rc, r->peer, c->o->nranks);
    uint64_t off;
    /* The call site is stored as module + offset, not as an address: addresses differ between runs
     * and ranks (ASLR), the offset in a module does not. */
    long m = lens_callsite_resolve(&d->mods, r->site, &off);
    if (m >= 0) {
        OTF2_AttributeList_AddStringRef(c->al, ATTR_MODULE, d->modstr[m]);
        OTF2_AttributeList_AddUint64(c->al, ATTR_OFFSET, off);
    }
    if (rma && win != OTF2_UNDEFINED_RMA_WIN)
        OTF2_AttributeList_AddRmaWinRef(c->al, ATTR_WINDOW, win);
    /* The attribute list is consumed by the Enter event (OTF2 empties it), ready for the next call. */
    OK2(OTF2_EvtWriter_Enter(w, c->al, t0, r->fn));
    uint32_t tag = (uint32_t)r->tag;
    int has_peer = peer != OTF2_UNDEFINED_UINT32;
    /* fence, create and free synchronise both */
    OTF2_RmaSyncLevel all = OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY;
    switch (kind) {
    case LENS_K_SEND:
    case LENS_K_SENDRECV:
        if (has_peer)
            OK2(OTF2_EvtWriter_MpiSend(w, NULL, t0, peer, g, tag, r->bytes));
        break;
    /* A receive's message is known when it arrives: its event is at the end of the call (t1). */
    case LENS_K_RECV:
        if (has_peer)
            OK2(OTF2_EvtWriter_MpiRecv(w, NULL, t1, peer, g, tag, r->bytes));
        break;
    /* A nonblocking send without a request id was not started (MPI_PROC_NULL, an error). */
    case LENS_K_ISEND:
        if (has_peer && r->aux)
            OK2(OTF2_EvtWriter_MpiIsend(w, NULL, t0, peer, g, tag, r->bytes, r->aux));
        break;
    case LENS_K_IRECV:
        if (r->aux)
            OK2(OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t0, r->aux));
        break;
    /* One begin and end per collective; root is a communicator rank, NONE for rootless collectives. */
    case LENS_K_COLL:
        OK2(OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t0));
        OK2(OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t1, fns[r->fn].op, g,
                                            r->peer < 0 ? OTF2_COLLECTIVE_ROOT_NONE : peer,
                                            r->bytes, r->aux));
        break;
    /* Window creation, destruction and fences are collective over the window's group: one
     * collective begin/end pair around the window event, with every sync level. */
    case LENS_K_WIN_CREATE:
    case LENS_K_WIN_FREE:
    case LENS_K_FENCE:
        if (win == OTF2_UNDEFINED_RMA_WIN)
            break;
        OK2(OTF2_EvtWriter_RmaCollectiveBegin(w, NULL, t0));
        if (kind == LENS_K_WIN_CREATE)
            OK2(OTF2_EvtWriter_RmaWinCreate(w, NULL, t1, win));
        else if (kind == LENS_K_WIN_FREE)
            OK2(OTF2_EvtWriter_RmaWinDestroy(w, NULL, t1, win));
        OK2(OTF2_EvtWriter_RmaCollectiveEnd(w, NULL, t1, fns[r->fn].op, all, win,
                                            OTF2_COLLECTIVE_ROOT_NONE, 0, 0));
        break;
    /* A lock is requested when the call starts and held when it returns: the wait between the two
     * is what lock-contention rules measure. */
    case LENS_K_LOCK:
        if (win != OTF2_UNDEFINED_RMA_WIN && has_peer) {
            /* the wrapper stores the lock type in tag */
            OTF2_LockType lt = r->tag ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE;
            OK2(OTF2_EvtWriter_RmaRequestLock(w, NULL, t0, win, peer, peer, lt));
            OK2(OTF2_EvtWriter_RmaAcquireLock(w, NULL, t1, win, peer, peer, lt));
        }
        break;
    /* The release is at the end of the unlock: the transfers of the epoch completed inside it. */
    case LENS_K_UNLOCK:
        if (win != OTF2_UNDEFINED_RMA_WIN && has_peer)
            OK2(OTF2_EvtWriter_RmaReleaseLock(w, NULL, t1, win, peer, peer));
        break;
    /* Transfers are written at their start; the matching id (aux) ties them to their completion. */
    case LENS_K_PUT:
    case LENS_K_GET:
    case LENS_K_ACC:
        if (win == OTF2_UNDEFINED_RMA_WIN || !has_peer)
            break;
        if (kind == LENS_K_PUT)
            OK2(OTF2_EvtWriter_RmaPut(w, NULL, t0, win, peer, r->bytes, r->aux));
        else if (kind == LENS_K_GET)
            OK2(OTF2_EvtWriter_RmaGet(w, NULL, t0, win, peer, r->bytes, r->aux));
        else
            /* the accumulate is OTF2's atomic kind */
            OK2(OTF2_EvtWriter_RmaAtomic(w, NULL, t0, win, peer, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE,
                                         r->bytes, 0, r->aux));
        break;
    default:
        break;
    }
    for (size_t i = 0; i < nsub; i++)
        emit_sub(c, w, d, &sub[i], t1);
    /* The Leave closes the call after its sub-events, and becomes the floor of the next timestamp. */
    OK2(OTF2_EvtWriter_Leave(w, NULL, t1, r->fn));
    c->last_t = t1;
}

/* A user function's Enter and/or Leave; functions the filter dropped are skipped. */
static void emit_func(struct conv *c, OTF2_EvtWriter *w, int rank, const struct lens_trace_rec *r)
{
    uint32_t i = lens_trace_symbols_index(c->sym, rank, r->aux);
    if (i == LENS_TRACE_SYMBOL_NONE)
        return;
    /* user functions follow the MPI regions */
    OTF2_RegionRef region = (OTF2_RegionRef)(LENS_FN_COUNT + i);
    uint64_t t0 = r->t0 < c->last_t ? c->last_t : r->t0;
    uint64_t t1 = r->t1 < t0 ? t0 : r->t1;
    if (r->type != LENS_REC_FUNC_LEAVE)
        OK2(OTF2_EvtWriter_Enter(w, NULL, t0, region));
    if (r->type != LENS_REC_FUNC_ENTER)
        OK2(OTF2_EvtWriter_Leave(w, NULL, t1, region));
    c->last_t = r->type == LENS_REC_FUNC_ENTER ? t0 : t1;
}

/* The records of one raw file, block by block: mapped when the file can be (the collector
 * wrote it a moment ago, so its pages are in the page cache and mapping them saves copying
 * 64 bytes per call, about a tenth of the conversion), read into a bounded block otherwise. */
struct raw_src {
    FILE *fp;
    const struct lens_trace_rec *map; /* whole records of the file, or NULL */
    size_t nmap, done;                /* records mapped, records handed out */
    struct lens_trace_rec *blk;       /* BLOCK records, for the fread path */
};

static void raw_open(struct raw_src *s, FILE *fp, struct lens_trace_rec *blk)
{
    struct stat sb;
    *s = (struct raw_src){fp, NULL, 0, 0, blk};
    /* whole records only: a crash can leave a partial one at the end */
    if (fp && fstat(fileno(fp), &sb) == 0 && sb.st_size >= (off_t)sizeof *blk) {
        size_t n = (size_t)sb.st_size / sizeof *blk;
        void *m = mmap(NULL, n * sizeof *blk, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(fp), 0);
        if (m != MAP_FAILED) {
            s->map = m;
            s->nmap = n;
        }
    }
}

/* The next block of records (*r) and their count; 0 at the end. */
static size_t raw_next(struct raw_src *s, const struct lens_trace_rec **r)
{
    if (s->map) {
        size_t n = s->nmap - s->done < BLOCK ? s->nmap - s->done : BLOCK;
        *r = s->map + s->done;
        s->done += n;
        return n;
    }
    *r = s->blk;
    return s->fp ? fread(s->blk, sizeof *s->blk, BLOCK, s->fp) : 0;
}

static void raw_close(struct raw_src *s)
{
    if (s->map)
        munmap((void *)s->map, s->nmap * sizeof *s->map);
    s->map = NULL;
}

/* Converts raw/<rank>.evt; a trailing partial record or group (crash) is dropped. */
/* Blocks of BLOCK records keep memory flat however long the run: a rank's events are converted
 * as they are read, never loaded whole. */
static int convert_rank(struct conv *c, int rank, uint64_t *nevents)
{
    char path[4200];
    struct lens_trace_defs *d = &c->rd[rank];
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(c->ar, (OTF2_LocationRef)rank);
    if (!w)
        return lens_err_set(c->e, LENS_ELIB, "%s: cannot open the event writer of rank %d",
                            c->o->dir, rank);
    snprintf(path, sizeof path, "%s/raw/%d.evt", c->o->dir, rank);
    /* a rank with no files still gets an (empty) location */
    FILE *fp = d->present ? fopen(path, "rb") : NULL;
    if (d->present && !fp && c->o->coll) /* recovery (no coll) keeps going without it */
        return lens_err_set(c->e, LENS_EIO, "%s: %s", path, strerror(errno));
    struct lens_trace_rec *blk = lens_malloc(BLOCK * sizeof *blk), *sub = NULL;
    size_t nsub = 0, capsub = 0, n;
    if (!blk) {
        if (fp)
            fclose(fp);
        return lens_err_set(c->e, LENS_ENOMEM, "out of memory converting %s", path);
    }
    c->last_t = 0; /* time order is per location */
    struct raw_src src;
    const struct lens_trace_rec *rb;
    raw_open(&src, fp, blk);
    while (fp && c->e->code == LENS_OK && (n = raw_next(&src, &rb)) > 0) {
        for (size_t i = 0; i < n && c->e->code == LENS_OK; i++) {
            const struct lens_trace_rec *r = &rb[i];
            if (r->type == LENS_REC_CALL) {
                /* sub-records precede their call; a count mismatch means a lost group */
                if (r->nsub != nsub)
                    nsub = 0;
                emit_call(c, w, d, r, sub, nsub);
                nsub = 0;
            } else if (r->type == LENS_REC_SEND_DONE || r->type == LENS_REC_RECV_DONE) {
                if (nsub == capsub) {
                    size_t cap = capsub ? 2 * capsub : 64;
                    void *p = lens_realloc(sub, cap * sizeof *sub);
                    if (!p) {
                        lens_err_set(c->e, LENS_ENOMEM, "out of memory converting %s", path);
                        break;
                    }
                    sub = p;
                    capsub = cap;
                }
                sub[nsub++] = *r;
            } else if (r->type >= LENS_REC_FUNC_ENTER && r->type <= LENS_REC_FUNC) {
                emit_func(c, w, rank, r);
            } else {
                /* Not a crash remnant (those are cut at a record boundary): a file from another version. */
                lens_err_set(c->e, LENS_EFORMAT, "%s: record %zu has unknown type %u", path, i,
                             r->type);
            }
        }
    }
    raw_close(&src);
    if (fp && ferror(fp) && c->e->code == LENS_OK)
        lens_err_set(c->e, LENS_EIO, "%s: read error", path);
    if (fp)
        fclose(fp);
    lens_free(blk);
    lens_free(sub);
    uint64_t ne = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &ne); /* the location definition needs the count */
    *nevents = ne;
    if (OTF2_Archive_CloseEvtWriter(c->ar, w) != OTF2_SUCCESS && c->e->code == LENS_OK)
        lens_err_set(c->e, LENS_EIO, "%s: cannot write the events of rank %d", c->o->dir, rank);
    return c->e->code;
}

/* A rank's local definitions are its clock offsets: one pair of (time, offset) per measurement. */
static int write_local_defs(struct conv *c, int rank)
{
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(c->ar, (OTF2_LocationRef)rank);
    if (!dw)
        return lens_err_set(c->e, LENS_ELIB, "%s: cannot open the definitions of rank %d",
                            c->o->dir, rank);
    /* The clock offsets measured at MPI_Init and MPI_Finalize: OTF2 readers interpolate linearly
     * between them; half the round trip is the uncertainty of each offset. */
    for (int k = 0; k < c->rd[rank].nclock; k++) {
        const struct lens_trace_clock *ck = &c->rd[rank].clocks[k];
        OK2(OTF2_DefWriter_WriteClockOffset(dw, ck->t, ck->off, (double)ck->rtt / 2));
    }
    if (OTF2_Archive_CloseDefWriter(c->ar, dw) != OTF2_SUCCESS && c->e->code == LENS_OK)
        lens_err_set(c->e, LENS_EIO, "%s: cannot write the definitions of rank %d", c->o->dir, rank);
    return c->e->code;
}

/* ---- global definitions (master only) */

/* The global time range, corrected by each rank's first and last offsets, so that every event
 * of every rank lies inside the ClockProperties' range, as OTF2 requires. */
static void time_range(const struct conv *c, uint64_t *lo, uint64_t *len)
{
    int64_t a = INT64_MAX, b = INT64_MIN;
    for (int r = 0; r < c->o->nranks; r++) {
        const struct lens_trace_defs *d = &c->rd[r];
        if (!d->present)
            continue;
        int64_t o0 = d->nclock ? d->clocks[0].off : 0, o1 = d->nclock ? d->clocks[d->nclock - 1].off : 0;
        /* a crashed rank has no end: its last flush */
        uint64_t end = d->end ? d->end : d->last > d->start ? d->last : d->start;
        if ((int64_t)d->start + o0 < a)
            a = (int64_t)d->start + o0;
        if ((int64_t)end + o1 > b)
            b = (int64_t)end + o1;
    }
    if (a > b)
        a = b = 0;
    *lo = (uint64_t)(a < 0 ? 0 : a);
    *len = (uint64_t)(b - a);
}

/* The global definitions, from the master alone: clock, strings, attributes, the system tree
 * (machine, nodes, ranks), locations, regions, groups, communicators and windows. */
static void write_globals(struct conv *c, const uint64_t *nevents)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(c->ar);
    int n = c->o->nranks;
    char buf[64];
    uint64_t lo, len;
    if (!g) {
        otf2_fail(c, "OTF2_Archive_GetGlobalDefWriter");
        return;
    }
    time_range(c, &lo, &len);
    /* nanoseconds */
    OK2(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000u, lo, len, OTF2_UNDEFINED_TIMESTAMP));
    for (size_t i = 0; i < c->nstr; i++)
        OK2(OTF2_GlobalDefWriter_WriteString(g, (uint32_t)i, c->str[i]));
    /* The attribute names are shared with the reader (common/otf2names.h): a rename cannot desync. */
    OK2(OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_MODULE, sid(c, LENS_OTF2_ATTR_MODULE),
                                            sid(c, LENS_OTF2_ATTR_MODULE_DESCR), OTF2_TYPE_STRING));
    OK2(OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_OFFSET, sid(c, LENS_OTF2_ATTR_OFFSET),
                                            sid(c, LENS_OTF2_ATTR_OFFSET_DESCR), OTF2_TYPE_UINT64));
    OK2(OTF2_GlobalDefWriter_WriteAttribute(g, ATTR_WINDOW, sid(c, LENS_OTF2_ATTR_WINDOW),
                                            sid(c, LENS_OTF2_ATTR_WINDOW_DESCR), OTF2_TYPE_RMA_WIN));
    /* system tree: one machine, one node per host name (first seen order) */
    OK2(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, sid(c, "mpilens"), sid(c, "machine"),
                                                 OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    uint32_t *node = lens_calloc((size_t)n, sizeof *node); /* each rank's system tree node */
    uint32_t nnode = 0;
    if (!node) {
        lens_err_set(c->e, LENS_ENOMEM, "out of memory writing definitions");
        return;
    }
    for (int r = 0; r < n; r++) {
        const char *h = c->rd[r].present ? c->rd[r].host : "unknown";
        int q = 0;
        /* A quadratic search over ranks, once per archive: thousands of ranks are a few million compares. */
        while (q < r && strcmp(c->rd[q].present ? c->rd[q].host : "unknown", h))
            q++;
        if (q < r) {
            node[r] = node[q];
            continue;
        }
        node[r] = ++nnode;
        OK2(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, nnode, sid(c, h), sid(c, "node"), 0));
    }
    for (int r = 0; r < n; r++) {
        snprintf(buf, sizeof buf, "MPI Rank %d", r);
        OK2(OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)r, sid(c, buf),
                                                    OTF2_LOCATION_GROUP_TYPE_PROCESS, node[r],
                                                    OTF2_UNDEFINED_LOCATION_GROUP));
    }
    lens_free(node);
    for (int r = 0; r < n; r++)
        OK2(OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)r, sid(c, "Master thread"),
                                               OTF2_LOCATION_TYPE_CPU_THREAD, nevents[r],
                                               (uint32_t)r));
    /* MPI calls are regions 0 .. LENS_FN_COUNT-1, in the order of the function list; user
     * functions follow from LENS_FN_COUNT on. */
    for (unsigned f = 0; f < LENS_FN_COUNT; f++)
        OK2(OTF2_GlobalDefWriter_WriteRegion(g, f, sid(c, fns[f].name), sid(c, fns[f].name), 0,
                                             fns[f].role, OTF2_PARADIGM_MPI,
                                             OTF2_REGION_FLAG_NONE, sid(c, "MPI"), 0, 0));
    for (size_t i = 0; i < lens_trace_symbols_count(c->sym); i++) {
        uint32_t name = sid(c, lens_trace_symbols_name(c->sym, i));
        OK2(OTF2_GlobalDefWriter_WriteRegion(g, (uint32_t)(LENS_FN_COUNT + i), name, name, 0,
                                             OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_COMPILER,
                                             OTF2_REGION_FLAG_NONE,
                                             sid(c, lens_trace_symbols_module(c->sym, i)), 0, 0));
    }
    /* group 0: all locations; group 1 + i: the world ranks of communicator i */
    uint64_t *mem = lens_malloc((size_t)(n + 1) * sizeof *mem);
    if (!mem) {
        lens_err_set(c->e, LENS_ENOMEM, "out of memory writing definitions");
        return;
    }
    for (int r = 0; r < n; r++)
        mem[r] = (uint64_t)r;
    /* The group of all MPI locations: communicator groups list their members as ranks, which
     * OTF2 maps to locations through this group. */
    OK2(OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, (uint32_t)n, mem));
    for (size_t i = 0; i < c->ngc; i++) {
        const struct lens_trace_comm *rc = c->gc[i].c;
        uint32_t k = 0;
        /* Members are world ranks, which are also location ids (one location per rank). */
        for (int j = 0; j < rc->n && j < n; j++)
            mem[k++] = (uint64_t)(rc->world[j] < 0 ? 0 : rc->world[j]);
        OK2(OTF2_GlobalDefWriter_WriteGroup(g, (uint32_t)(1 + i), 0, OTF2_GROUP_TYPE_COMM_GROUP,
                                            OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, k, mem));
        if (i == 0)
            snprintf(buf, sizeof buf, "MPI_COMM_WORLD");
        else
            snprintf(buf, sizeof buf, "MPI comm %zu", i);
        OK2(OTF2_GlobalDefWriter_WriteComm(g, (uint32_t)i, sid(c, buf), (uint32_t)(1 + i),
                                           OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    }
    lens_free(mem);
    for (size_t i = 0; i < c->ngw; i++) {
        snprintf(buf, sizeof buf, "MPI window %zu", i);
        OK2(OTF2_GlobalDefWriter_WriteRmaWin(g, (uint32_t)i, sid(c, buf),
                                             gcomm_of(c, c->gwcomm[i]), OTF2_RMA_WIN_FLAG_NONE));
    }
    if (OTF2_Archive_CloseGlobalDefWriter(c->ar, g) != OTF2_SUCCESS && c->e->code == LENS_OK)
        lens_err_set(c->e, LENS_EIO, "%s/traces.def: cannot write the global definitions",
                     c->o->dir);
}

/* ---- driver */

/* OTF2 asks before each flush of a full chunk whether to write it or to keep buffering. */
static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void *cb,
                                bool final)
{
    (void)u, (void)ft, (void)loc, (void)cb, (void)final;
    return OTF2_FLUSH; /* always write full chunks out: memory stays at one chunk per file */
}

static const OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush,
                                                    .otf2_post_flush = NULL};

/* OTF2's chunks, one pool per buffer. By default OTF2 mallocs every chunk afresh (a 1 MiB
 * malloc is a new mmap, so each of its pages faults once) and keeps all of a location's
 * chunks until the writer closes: converting 200,000 calls took 2,300 page faults per rank,
 * a quarter of the conversion's time. An event buffer here owns ONE chunk: when it is full
 * the allocator answers NULL, OTF2 then flushes the buffer (pre_flush says so), hands its
 * chunks back (free_all) and asks again, getting the same, already mapped, chunk. The archive
 * is the same; only the moments of the writes change. Definitions keep getting new chunks. */
struct chunk_pool {
    void **chunk;       /* owned, each of the archive's chunk size */
    size_t n, cap, used;
};

static void *pool_allocate(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void **pbd,
                           uint64_t size)
{
    struct chunk_pool *p = *pbd;
    (void)u, (void)loc;
    if (!p && !(p = *pbd = lens_calloc(1, sizeof *p)))
        return NULL;
    if (p->used < p->n)
        return p->chunk[p->used++];
    if (ft == OTF2_FILETYPE_EVENTS && p->n >= 1)
        return NULL; /* full: OTF2 flushes, frees all and asks again */
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 4;
        void **c = lens_realloc(p->chunk, cap * sizeof *c);
        if (!c)
            return NULL;
        p->chunk = c;
        p->cap = cap;
    }
    void *m = lens_malloc((size_t)size);
    if (!m)
        return NULL;
    p->chunk[p->n++] = m;
    p->used = p->n;
    return m;
}

/* Not final: the chunks were written; they stay mapped for the next allocation. Final: the
 * writer is closed, everything goes. */
static void pool_free_all(void *u, OTF2_FileType ft, OTF2_LocationRef loc, void **pbd, bool final)
{
    struct chunk_pool *p = *pbd;
    (void)u, (void)ft, (void)loc;
    if (!p)
        return;
    p->used = 0;
    if (!final)
        return;
    for (size_t i = 0; i < p->n; i++)
        lens_free(p->chunk[i]);
    lens_free(p->chunk);
    lens_free(p);
    *pbd = NULL;
}

static const OTF2_MemoryCallbacks memory_callbacks = {.otf2_allocate = pool_allocate,
                                                      .otf2_free_all = pool_free_all};

/* Frees whatever prepare got to: every pointer may be NULL after a failure. */
static void conv_free(struct conv *c)
{
    for (int r = 0; c->rd && r < c->o->nranks; r++)
        lens_trace_defs_release(&c->rd[r]);
    lens_free(c->rd);
    lens_free(c->gc);
    lens_free(c->gw);
    lens_free(c->gwcomm);
    for (size_t i = 0; i < c->nstr; i++)
        lens_free(c->str[i]);
    lens_free(c->str);
    if (c->al)
        OTF2_AttributeList_Delete(c->al);
    lens_trace_symbols_free(c->sym);
}

/* Reads every rank's definitions on every process (they are small), then numbers everything in
 * the same order: the ids then agree across processes without any message. */
static void prepare(struct conv *c)
{
    const struct lens_trace_otf2_opts *o = c->o;
    c->rd = lens_calloc((size_t)o->nranks, sizeof *c->rd);
    c->al = OTF2_AttributeList_New();
    /* MPILENS_TRACE_FUNCS is applied here, when the names are known (trace_func.c) */
    c->sym = lens_trace_symbols_new(o->nranks, getenv("MPILENS_TRACE_FUNCS"));
    if (!c->rd || !c->al || !c->sym) {
        lens_err_set(c->e, LENS_ENOMEM, "out of memory reading %s/raw", o->dir);
        return;
    }
    for (int r = 0; r < o->nranks; r++)
        lens_callsite_init(&c->rd[r].mods);
    for (int r = 0; r < o->nranks && c->e->code == LENS_OK; r++)
        /* serial (recovery): a missing rank is tolerated */
        lens_trace_defs_read(o->dir, r, o->nranks, o->coll == NULL, c->sym, &c->rd[r], c->e);
    if (c->e->code == LENS_OK && !c->rd[0].present) /* rank 0's journal holds the run's start */
        lens_err_set(c->e, LENS_EIO, "%s/raw/0.defs: missing", o->dir);
    if (c->e->code == LENS_OK)
        number_defs(c);
    for (int r = 0; r < o->nranks && c->e->code == LENS_OK; r++)
        lens_trace_symbols_resolve(c->sym, r, &c->rd[r].mods, c->e);
    if (c->e->code == LENS_OK)
        lens_trace_symbols_number(c->sym, c->e);
    if (c->e->code == LENS_OK)
        number_strings(c);
    for (int r = 0; r < o->nranks && c->e->code == LENS_OK; r++) {
        struct lens_trace_defs *d = &c->rd[r];
        for (size_t i = 0; i < d->ncomm; i++)
            d->comms[i].gid = gcomm_of(c, d->comms[i].key);
        for (size_t i = 0; i < d->nwin; i++)
            d->wins[i].gid = gwin_of(c, d->wins[i].key);
    }
}

int lens_trace_otf2_write(const struct lens_trace_otf2_opts *o, struct lens_err *e)
{
    struct lens_err local;
    struct conv c = {0};
    if (!e)
        e = &local;
    lens_err_clear(e);
    /* Serial mode (no callbacks, `mpilens trace` recovering a crash) converts all ranks in one
     * process; collective mode, each process its own ranks. */
    if (!o || !o->dir || o->nranks <= 0 || o->first < 0 || o->count < 1 ||
        o->first + o->count > o->nranks || (!o->coll && (o->first != 0 || o->count != o->nranks)))
        return lens_err_set(e, LENS_EINVAL, "bad trace conversion options");
    c.o = o;
    c.e = e;
    /* a local failure must not skip the collective steps below (it would deadlock) */
    prepare(&c);
    uint64_t *nev = lens_calloc((size_t)o->nranks, sizeof *nev);
    if (!nev && e->code == LENS_OK)
        lens_err_set(e, LENS_ENOMEM, "out of memory");
    /* 1 MiB event chunks, 4 MiB definition chunks */
    c.ar = OTF2_Archive_Open(o->dir, "traces", OTF2_FILEMODE_WRITE, 1 << 20, OTF2_CHUNK_SIZE_MIN,
                             OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!c.ar) {
        if (e->code == LENS_OK)
            lens_err_set(e, LENS_EIO, "%s/traces.otf2: cannot create the archive", o->dir);
        lens_free(nev);
        conv_free(&c);
        return e->code;
    }
    OTF2_Archive_SetFlushCallbacks(c.ar, &flush_callbacks, NULL);
    OTF2_Archive_SetMemoryCallbacks(c.ar, &memory_callbacks, NULL);
    if (o->coll)
        OTF2_Archive_SetCollectiveCallbacks(c.ar, o->coll, o->coll_data, o->coll_ctx, NULL);
    else
        OTF2_Archive_SetSerialCollectiveCallbacks(c.ar);
    /* the creator string names the writer's version */
    OTF2_Archive_SetCreator(c.ar, "mpilens " LENS_VERSION);
    /* The run's provenance from rank 0's journal, as trace file properties (in the anchor
     * file). Every process sets the same values: it read rank 0's .defs in prepare(). A trace
     * from an older collector has none, and none are set. */
    if (e->code == LENS_OK && c.rd) {
        static const char *const names[] = LENS_OTF2_PROP_NAMES;
        for (int k = 0; k < LENS_OTF2_NPROP; k++)
            if (c.rd[0].prov[k][0] && OTF2_Archive_SetProperty(c.ar, names[k], c.rd[0].prov[k], true) != OTF2_SUCCESS)
                lens_err_set(e, LENS_ELIB, "%s/traces.otf2: cannot set property %s", o->dir, names[k]);
    }
    /* Event files, local definitions, then global definitions: OTF2's required order, and every
     * step is taken by every process even after a local failure, because each one is collective. */
    OTF2_Archive_OpenEvtFiles(c.ar);
    uint64_t mine = 0;
    for (int r = o->first; r < o->first + o->count; r++) {
        if (e->code == LENS_OK)
            convert_rank(&c, r, nev ? &nev[r] : &mine);
        else
            OTF2_Archive_CloseEvtWriter(c.ar, OTF2_Archive_GetEvtWriter(c.ar, (OTF2_LocationRef)r));
    }
    OTF2_Archive_CloseEvtFiles(c.ar);
    OTF2_Archive_OpenDefFiles(c.ar);
    for (int r = o->first; r < o->first + o->count; r++) {
        if (e->code == LENS_OK)
            write_local_defs(&c, r);
        else
            OTF2_Archive_CloseDefWriter(c.ar, OTF2_Archive_GetDefWriter(c.ar, (OTF2_LocationRef)r));
    }
    OTF2_Archive_CloseDefFiles(c.ar);
    if (o->coll) {
        /* the master needs every location's event count */
        mine = nev ? nev[o->first] : 0;
        o->coll->otf2_gather(o->coll_data, o->coll_ctx, &mine, nev ? nev : &mine, 1,
                             OTF2_TYPE_UINT64, 0);
    }
    /* The master (OTF2's primary process) writes the global definitions for all ranks. */
    bool master = false;
    OTF2_Archive_IsPrimary(c.ar, &master);
    if (master && nev && e->code == LENS_OK)
        write_globals(&c, nev);
    if (OTF2_Archive_Close(c.ar) != OTF2_SUCCESS && e->code == LENS_OK)
        lens_err_set(e, LENS_EIO, "%s/traces.otf2: cannot close the archive", o->dir);
    /* Every process reads every rank's .defs in prepare(); a fast rank must not remove its
     * raw files before the slowest one has read them (seen under load: "raw/1.defs: No such
     * file" on rank 2, and rank 2's events missing). */
    if (o->coll)
        o->coll->otf2_barrier(o->coll_data, o->coll_ctx);
    if (e->code == LENS_OK && !o->keep_raw) {
        char path[4200];
        for (int r = o->first; r < o->first + o->count; r++) {
            snprintf(path, sizeof path, "%s/raw/%d.evt", o->dir, r);
            unlink(path);
            snprintf(path, sizeof path, "%s/raw/%d.defs", o->dir, r);
            unlink(path);
        }
    }
    lens_free(nev);
    conv_free(&c);
    return e->code;
}
