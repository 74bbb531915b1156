/* User functions in the trace: the -finstrument-functions hooks __cyg_profile_func_enter/exit.
 * An application built with -finstrument-functions calls them around every function it
 * compiled; glibc's versions do nothing, ours (preloaded or linked before libc) record the
 * calls of the thread that called MPI_Init, between MPI_Init and MPI_Finalize.
 *
 * Overhead is kept down in three ways (docs/icappa.md, "User functions in traces"):
 *   MPILENS_TRACE_FUNC_DEPTH=N  only the N outermost levels of nesting are recorded (1..128,
 *                               default 128);
 *   MPILENS_TRACE_FUNC_MIN=T    a call shorter than T ("20us", "1ms", "0.5s", a plain number
 *                               is seconds; default 0) is not recorded, unless something
 *                               recorded happened inside it (an MPI call, a long callee);
 *   MPILENS_TRACE_FUNCS=GLOBS   names kept in the archive (trace_symbols.h), applied when the
 *                               raw files are converted, so it shrinks the archive but not
 *                               the run-time cost.
 * A call is written lazily: its enter time waits on a per-thread stack until an event inside
 * it must be written (then the enters of all waiting frames go out first, so the raw file
 * stays in time order) or until it returns having lasted at least T (one FUNC record).
 * MPI_THREAD_SERIALIZED and MULTIPLE runs record no user functions (other threads' MPI calls
 * would interleave with the main thread's frames). */
#include "trace_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define STACK 128 /* frames kept per thread; deeper calls are counted, never recorded */

struct frame {
    uint64_t fn, site; /* entry address, call site (return address) */
    uint64_t t;        /* enter time, ns */
};

/* Per thread: the open calls. Static TLS (the library is preloaded or linked). */
/* Thread-local, initial-exec: the hooks run on every function call of the application, so the
 * stack must be reachable without a lock or a TLS lookup through __tls_get_addr. */
static __thread struct {
    int depth;         /* open calls, also beyond STACK */
    int nwritten;      /* frames [0, nwritten) have their enter in the buffer */
    int mine;          /* 1 on the thread that called MPI_Init */
    struct frame f[STACK];
} fs __attribute__((tls_model("initial-exec")));

int lens_tr_func_pending;       /* read by lens_tr_rec() on every record */
static int active;              /* recording user functions */
static int maxdepth = STACK;    /* MPILENS_TRACE_FUNC_DEPTH */
static uint64_t min_ns;         /* MPILENS_TRACE_FUNC_MIN */
static struct lens_tr_map seen; /* entry addresses already announced in the .defs file */

/* A failure stops user-function tracing only: the MPI events go on being recorded. */
static void func_fail(const char *what)
{
    active = 0;
    lens_tr_func_pending = 0;
    fprintf(stderr, "mpilens-trace: rank %d: %s; user functions are no longer recorded\n",
            lens_tr.rank, what);
}

/* "func <hex>" in the .defs file the first time a function is written. */
/* Each entry address is written to the journal once, so the converter can name it later; the
 * map keeps the repeats (every call of a hot function) from growing the journal. */
static void announce(uint64_t fn)
{
    char line[40];
    if (lens_tr_map_get(&seen, (uintptr_t)fn) >= 0)
        return;
    if (lens_tr_map_put(&seen, (uintptr_t)fn, 1) != 0) {
        func_fail("out of memory for the function table");
        return;
    }
    int n = snprintf(line, sizeof line, "func %llx\n", (unsigned long long)fn);
    if (lens_tr.defs_fd >= 0 && write(lens_tr.defs_fd, line, (size_t)n) != n)
        func_fail("cannot write the function definitions");
}

/* The function's entry address travels in aux, its call site in site, like an MPI call's. */
static void put(int type, uint64_t t0, uint64_t t1, const struct frame *f)
{
    struct lens_trace_rec *r = lens_tr_rec();
    memset(r, 0, sizeof *r);
    r->t0 = t0;
    r->t1 = t1;
    r->site = f->site;
    r->aux = f->fn;
    r->peer = LENS_TRACE_NONE;
    r->idx = LENS_TRACE_NOIDX;
    r->type = (uint16_t)type;
    lens_tr_closed();
    announce(f->fn);
    lens_tr_flush_due(t1);
}

/* Three conditions, cheapest first for the hooks' fast path: user tracing on, MPI tracing on,
 * and the calling thread is the one that called MPI_Init. */
static int recording(void)
{
    return active && lens_tr.on && fs.mine;
}

/* Writes the enters of the frames still waiting, outermost first. */
/* Writes the enters still waiting, outermost first, so that the raw file stays in time order
 * before any record that happens inside them. */
void lens_tr_func_sync(void)
{
    if (!fs.mine)
        return; /* another thread's record: the main thread's frames wait for its own */
    lens_tr_func_pending = 0;
    if (!recording())
        return;
    int top = fs.depth < maxdepth ? fs.depth : maxdepth;
    for (; fs.nwritten < top; fs.nwritten++) {
        const struct frame *f = &fs.f[fs.nwritten];
        put(LENS_REC_FUNC_ENTER, f->t, f->t, f);
    }
}

LENS_TR_EXPORT void __cyg_profile_func_enter(void *fn, void *site);
LENS_TR_EXPORT void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
    /* The depth is counted even past STACK, so the exits of those deep calls balance the enters. */
    int d = fs.depth++;
    if (d >= STACK)
        return;
    fs.f[d].fn = (uint64_t)(uintptr_t)fn;
    fs.f[d].site = (uint64_t)(uintptr_t)site;
    if (recording() && d < maxdepth) {
        fs.f[d].t = lens_clock_now();
        lens_tr_func_pending = 1;
    }
}

void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)fn, (void)site;
    if (fs.depth == 0)
        return; /* entered before the hooks were live */
    int d = --fs.depth;
    if (d >= maxdepth || !recording()) {
        if (fs.nwritten > d)
            fs.nwritten = d;
        return;
    }
    uint64_t t = lens_clock_now();
    struct frame f = fs.f[d];
    if (d < fs.nwritten) { /* its enter is out: close it whatever it lasted */
        fs.nwritten = d;
        put(LENS_REC_FUNC_LEAVE, t, t, &f);
    } else if (t - f.t >= min_ns) { /* long enough: the outer frames go first, then the call */
        lens_tr_func_sync();
        put(LENS_REC_FUNC, f.t, t, &f);
    }
    lens_tr_func_pending = fs.nwritten < fs.depth && fs.nwritten < maxdepth;
}

/* "20us", "1ms", "0.5s", "250ns", "2" (seconds) -> ns; -1 when malformed. */
/* "20us", "1ms", "0.5s" or plain seconds, as nanoseconds; -1 for anything else, so a typo is
 * reported instead of read as 0 (which would record every call). */
static long long parse_duration(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0)
        return -1;
    double unit = 1e9; /* a plain number is seconds */
    if (!strcmp(end, "ns"))
        unit = 1;
    else if (!strcmp(end, "us"))
        unit = 1e3;
    else if (!strcmp(end, "ms"))
        unit = 1e6;
    else if (*end && strcmp(end, "s"))
        return -1;
    return v * unit < 9e18 ? (long long)(v * unit) : -1;
}

void lens_tr_func_start(uint64_t t0, int provided)
{
    const char *depth = getenv("MPILENS_TRACE_FUNC_DEPTH");
    const char *min = getenv("MPILENS_TRACE_FUNC_MIN");
    fs.mine = 1; /* this thread called MPI_Init: only its frames are recorded */
    /* Other threads may call MPI between the main thread's enter and exit: their records would cut
     * into its frames, so no frames are recorded at these levels. */
    if (provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE)
        return;
    /* A bad setting is reported and user functions are left out: a silent default would record
     * more (or less) than the user asked for. */
    if (depth && *depth) {
        char *end;
        long v = strtol(depth, &end, 10);
        if (*end || v < 1 || v > STACK) {
            fprintf(stderr, "mpilens-trace: rank %d: MPILENS_TRACE_FUNC_DEPTH='%s' is not a depth 1..%d; "
                    "user functions are not recorded\n", lens_tr.rank, depth, STACK);
            return;
        }
        maxdepth = (int)v;
    }
    if (min && *min) {
        long long ns = parse_duration(min);
        if (ns < 0) {
            fprintf(stderr, "mpilens-trace: rank %d: MPILENS_TRACE_FUNC_MIN='%s' is not a duration such as "
                    "20us, 1ms or 0.5s; user functions are not recorded\n", lens_tr.rank, min);
            return;
        }
        min_ns = (uint64_t)ns;
    }
    /* the calls open now (main, ...) start with MPI_Init: the trace has no earlier time */
    int top = fs.depth < STACK ? fs.depth : STACK;
    for (int k = 0; k < top; k++)
        fs.f[k].t = t0;
    fs.nwritten = 0;
    active = 1;
    lens_tr_func_pending = top > 0;
}

/* Frames still open at MPI_Finalize (main, the caller of MPI_Finalize) are closed there: the
 * trace ends at MPI_Finalize, and every Enter in it needs its Leave. */
void lens_tr_func_stop(uint64_t t)
{
    if (recording()) {
        lens_tr_func_sync();
        while (fs.nwritten > 0) { /* innermost first, at MPI_Finalize */
            fs.nwritten--;
            put(LENS_REC_FUNC_LEAVE, t, t, &fs.f[fs.nwritten]);
        }
    }
    active = 0;
    lens_tr_func_pending = 0;
    free(seen.key), free(seen.val), free(seen.used);
    memset(&seen, 0, sizeof seen);
}
