/* The collector's state: the event buffer and its flushes, the communicator, request and
 * window tables, MPI_Init/MPI_Finalize and OTF2's MPI collective callbacks. The per-call
 * wrappers are in trace_wrap.c and use the lens_tr_* helpers declared in trace_int.h. */
#include "trace_int.h"
#include "bench/net/job.h"
#include "common/atomic.h"
#include "common/otf2names.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One state per process, zero at load: the wrappers test lens_tr.on before anything else, so
 * calls made before MPI_Init or after MPI_Finalize cost one branch and record nothing. */
struct lens_tr_state lens_tr;

/* "64k", "8M": the suffixes people type into environment variables; anything else after the
 * number is an error (0), so a typo never silently becomes a tiny buffer. */
size_t lens_trace_parse_size(const char *s)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno)
        return 0;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    return *end == '\0' ? (size_t)v : 0;
}

/* The one diagnostic channel of the library: a line on stderr, then tracing stops on this
 * rank (the application goes on untouched). */
/* The format attribute checks every tr_fail call's arguments at compile time. */
static void tr_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tr_fail(const char *fmt, ...)
{
    va_list ap;
    if (lens_tr.failed) /* report once: later failures follow from the first */
        return;
    lens_tr.failed = 1;
    lens_tr.on = 0;
    fprintf(stderr, "mpilens-trace: rank %d: ", lens_tr.rank);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("; tracing stopped on this rank\n", stderr);
}

/* write(2) in a loop, not stdio: it is async-signal-safe, so the crash handlers use the same
 * path as a normal flush, and a short write (a full pipe, a signal) is finished, not lost. */
static int write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0) {
            if (errno == EINTR) /* interrupted before writing anything: retry */
                continue;
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The .defs file is a line-based text journal next to the binary events: one write(2) per line
 * and O_APPEND, so a crash leaves whole lines, never a line cut in the middle by another write. */
static void defs_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void defs_printf(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    if (lens_tr.defs_fd < 0)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* a truncated line would corrupt the journal: fail instead */
    if (n < 0 || (size_t)n >= sizeof line || write_all(lens_tr.defs_fd, line, (size_t)n) != 0)
        tr_fail("cannot write %s: %s", lens_tr.defs_path, strerror(errno));
}

/* Phase timing for the statistics (struct lens_tr_state's `st`): two clock reads at each end of
 * a phase, the thread CPU clock being a system call (no vDSO), so only around whole phases. */
static struct lens_tr_mark mark_now(void)
{
    struct timespec ts;
    struct lens_tr_mark m = {lens_clock_now(), 0};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        m.cpu = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return m;
}

static void mark_add(int phase, struct lens_tr_mark since)
{
    struct lens_tr_mark m = mark_now();
    lens_tr.st.wall[phase] += m.wall - since.wall;
    lens_tr.st.cpu[phase] += m.cpu - since.cpu;
}

void lens_tr_flush(void)
{
    /* The periodic flush (MPILENS_TRACE_FLUSH_SEC) counts from here, also with nothing written. */
    lens_tr.flushed_at = lens_clock_now();
    if (lens_tr.evt_fd < 0 || lens_tr.n == 0) {
        lens_tr.n = 0;
        return;
    }
    struct lens_tr_mark since = mark_now();
    /* modules first, so that every flushed address has its module on disk */
    unsigned long long gen = lens_callsite_generation();
    if (gen != lens_tr.gen) {
        lens_tr.gen = gen;
        if (lens_callsite_write_modules(lens_tr.defs_fd) != LENS_OK)
            tr_fail("cannot write %s: %s", lens_tr.defs_path, strerror(errno));
    }
    /* a signal handler must not write these records a second time */
    lens_tr.flushing = 1;
    atomic_signal_fence(memory_order_seq_cst);
    int rc = write_all(lens_tr.evt_fd, lens_tr.buf, lens_tr.n * sizeof *lens_tr.buf);
    /* the journal's "last" line marks what is safely on disk */
    uint64_t last = lens_tr.buf[lens_tr.n - 1].t1;
    lens_tr.st.records += lens_tr.n;
    lens_tr.n = 0;
    atomic_signal_fence(memory_order_seq_cst);
    lens_tr.flushing = 0;
    if (rc != 0)
        tr_fail("cannot write %s: %s", lens_tr.evt_path, strerror(errno));
    else
        defs_printf("last %" PRIu64 "\n", last);
    lens_tr.st.nflush++;
    mark_add(LENS_TR_FLUSH, since);
}

/* ---- crash signals: what the handler may do is write(2) what is already encoded */

/* The signals that end a process by default and can be caught: a crash (SEGV, BUS, FPE, ILL),
 * an abort (ABRT, also MPI_Abort in some MPIs) and the launcher's or user's termination (TERM, INT). */
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
#define NCRASH (sizeof crash_signals / sizeof crash_signals[0])
static struct sigaction prev_action[NCRASH]; /* the dispositions before ours */
static int installed[NCRASH];
static char altstack[64 * 1024];             /* so that a stack overflow still flushes */

/* Decimal digits by hand: snprintf is not async-signal-safe (it may take locks or allocate). */
static size_t put_u64(char *p, uint64_t v)
{
    char d[24];
    size_t n = 0, k = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0)
        p[k++] = d[--n];
    return k;
}

/* Appends "<word> <value>\n" to the .defs file without stdio (async-signal-safe). */
static void defs_mark(const char *word, uint64_t v)
{
    char line[64]; /* a word of up to 32 bytes, a 20-digit number, space and newline */
    size_t k = 0;
    while (*word && k < 32)
        line[k++] = *word++;
    line[k++] = ' ';
    k += put_u64(line + k, v);
    line[k++] = '\n';
    if (lens_tr.defs_fd >= 0)
        (void)!write_all(lens_tr.defs_fd, line, k);
}

/* Writes the records of the buffer that are complete, then stops tracing on this rank (the
 * process is about to end; should a handler of the application let it go on, a later flush
 * must not write the same records twice). */
static void signal_flush(int sig)
{
    /* a forked child has a copy of the parent's buffer: it must not write it too */
    if (!lens_tr.on || lens_tr.stopped || lens_tr.evt_fd < 0 || getpid() != lens_tr.pid)
        return;
    lens_tr.on = 0;
    size_t n = lens_tr.n;
    if (lens_tr.open && n > 0)
        n--; /* interrupted while filling it */
    /* If a flush was under way its write may be partly done: writing the buffer again would
     * duplicate records, so the journal keeps the last complete flush instead. */
    if (!lens_tr.flushing && n > 0 &&
        write_all(lens_tr.evt_fd, lens_tr.buf, n * sizeof *lens_tr.buf) == 0)
        defs_mark("last", lens_tr.buf[n - 1].t1);
    defs_mark("signal", (uint64_t)sig);
    close(lens_tr.evt_fd); /* async-signal-safe, like write */
    lens_tr.evt_fd = -1;
}

/* Runs on the alternate stack with the other crash signals blocked: one flush, whatever
 * arrives next. */
static void on_crash_signal(int sig)
{
    int saved = errno; /* the interrupted code may be about to read errno */
    signal_flush(sig);
    /* Give the signal back to whatever had it before MPI_Init (the default action, or the
     * MPI library's or the application's handler): it is blocked while we run, so it is
     * delivered to that disposition as soon as we return, and a default action kills the
     * process with this signal, keeping its exit status. */
    for (size_t i = 0; i < NCRASH; i++)
        if (crash_signals[i] == sig)
            sigaction(sig, &prev_action[i], NULL);
    raise(sig);
    errno = saved;
}

/* SIGCONT: Open MPI's mpirun sends it to every rank one second before SIGTERM when it ends a
 * job, and sometimes SIGKILLs a rank without the SIGTERM (seen with 4.1.4 after an MPI_Abort
 * or a crash of another rank). So it flushes too, but the process goes on: only when no record
 * is being filled or flushed (then nothing else touches buf and n), and only without threads. */
static struct sigaction prev_cont;
static int cont_installed;

static void on_cont_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    if (lens_tr.on && !lens_tr.stopped && !lens_tr.mt && !lens_tr.open && !lens_tr.flushing &&
        lens_tr.evt_fd >= 0 && lens_tr.n > 0 && getpid() == lens_tr.pid) {
        size_t n = lens_tr.n;
        if (write_all(lens_tr.evt_fd, lens_tr.buf, n * sizeof *lens_tr.buf) == 0) {
            defs_mark("last", lens_tr.buf[n - 1].t1);
            defs_mark("cont", lens_tr.buf[n - 1].t1);
            lens_tr.n = 0;
        } else {
            lens_tr.on = 0; /* a half-written flush: writing more would repeat records */
        }
    }
    if (prev_cont.sa_flags & SA_SIGINFO) {
        if (prev_cont.sa_sigaction)
            prev_cont.sa_sigaction(sig, si, uc);
    } else if (prev_cont.sa_handler != SIG_DFL && prev_cont.sa_handler != SIG_IGN) {
        prev_cont.sa_handler(sig);
    }
    errno = saved;
}

/* The handlers run on their own stack, because a stack overflow is one of the crashes to
 * survive: on the overflowed stack the handler itself would fault. An application that set
 * up its own alternate stack keeps it. */
static void install_handlers(void)
{
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_DISABLE)) {
        ss.ss_sp = altstack;
        ss.ss_size = sizeof altstack;
        ss.ss_flags = 0;
        sigaltstack(&ss, NULL);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_crash_signal;
    sa.sa_flags = SA_ONSTACK; /* no SA_RESTART: the process is ending anyway */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NCRASH; i++) /* one handler at a time */
        sigaddset(&sa.sa_mask, crash_signals[i]);
    for (size_t i = 0; i < NCRASH; i++) {
        if (sigaction(crash_signals[i], NULL, &prev_action[i]) != 0)
            continue;
        if (prev_action[i].sa_handler == SIG_IGN)
            continue; /* an ignored SIGINT/SIGTERM stays ignored */
        installed[i] = sigaction(crash_signals[i], &sa, NULL) == 0;
    }
    sa.sa_handler = NULL;
    sa.sa_sigaction = on_cont_signal;
    /* SIGCONT must not break the application's system calls */
    sa.sa_flags = SA_ONSTACK | SA_SIGINFO | SA_RESTART;
    if (sigaction(SIGCONT, NULL, &prev_cont) == 0)
        cont_installed = sigaction(SIGCONT, &sa, NULL) == 0;
}

/* ---- pointer-keyed open-addressing map (handles -> small indices), backward-shift delete */

/* Fibonacci hashing: handles are aligned pointers (low bits zero) or small integers, and the
 * multiplication by 2^64/phi spreads both over the upper bits, from which the slot is taken. */
static size_t map_slot(const struct lens_tr_map *m, uintptr_t k)
{
    uint64_t h = (uint64_t)k * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & (m->cap - 1);
}

/* Linear probing: at most half full, so a miss ends at an empty slot after a few steps. */
long lens_tr_map_get(const struct lens_tr_map *m, uintptr_t k)
{
    if (m->cap == 0)
        return -1;
    for (size_t i = map_slot(m, k);; i = (i + 1) & (m->cap - 1)) {
        if (!m->used[i])
            return -1;
        if (m->key[i] == k)
            return (long)m->val[i];
    }
}

/* Doubling keeps an insertion's amortised cost constant; every entry is inserted again,
 * because its slot depends on the capacity. */
static int map_grow(struct lens_tr_map *m)
{
    struct lens_tr_map g = {0};
    g.cap = m->cap ? 2 * m->cap : 64;
    g.key = calloc(g.cap, sizeof *g.key);
    g.val = calloc(g.cap, sizeof *g.val);
    g.used = calloc(g.cap, 1);
    if (!g.key || !g.val || !g.used) {
        free(g.key), free(g.val), free(g.used);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->used[i])
            lens_tr_map_put(&g, m->key[i], m->val[i]);
    free(m->key), free(m->val), free(m->used);
    *m = g;
    return 0;
}

int lens_tr_map_put(struct lens_tr_map *m, uintptr_t k, uint32_t v)
{
    if (2 * (m->n + 1) > m->cap && map_grow(m) != 0) /* at most half full: probes stay short */
        return -1;
    size_t i = map_slot(m, k);
    while (m->used[i] && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (!m->used[i])
        m->n++;
    m->used[i] = 1;
    m->key[i] = k;
    m->val[i] = v;
    return 0;
}

/* Deletion without tombstones: the entries after the hole that probed past it are moved back,
 * so lookups stay short however many requests come and go. */
void lens_tr_map_del(struct lens_tr_map *m, uintptr_t k)
{
    if (m->cap == 0)
        return;
    size_t i = map_slot(m, k);
    while (m->used[i] && m->key[i] != k)
        i = (i + 1) & (m->cap - 1);
    if (!m->used[i])
        return;
    m->used[i] = 0;
    m->n--;
    /* shift back the following entries of the cluster that would be unreachable */
    for (size_t j = (i + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
        size_t h = map_slot(m, m->key[j]);
        /* Entry j may stay only if its home slot h lies cyclically in (i, j]: then the hole at i does
         * not cut it off from h. Otherwise it moves into the hole, which moves on to j. */
        int between = i <= j ? (i < h && h <= j) : (i < h || h <= j);
        if (between)
            continue;
        m->key[i] = m->key[j];
        m->val[i] = m->val[j];
        m->used[i] = 1;
        m->used[j] = 0;
        i = j;
    }
}

static void map_free(struct lens_tr_map *m)
{
    free(m->key), free(m->val), free(m->used);
    memset(m, 0, sizeof *m);
}

/* ---- communicators: local index, 64-bit key shared by all members, world ranks */

uint64_t lens_tr_mix(uint64_t a, uint64_t b)
{
    /* Boost's hash_combine, then the first steps of MurmurHash3's 64-bit finaliser: a change in
     * a or b spreads over the whole word, so distinct communicators collide only by chance. */
    uint64_t x = a ^ (b + 0x9e3779b97f4a7c15ull + (a << 6) + (a >> 2));
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x | 1; /* never 0: key 0 is MPI_COMM_WORLD */
}

/* Registers comm. Its key is `fixed` when non-zero, else mixed from `seed` (non-zero for the
 * communicators our creation wrappers see) and the world rank of its rank 0, else hashed from
 * the members (communicators made by calls we do not wrap: two such communicators with the
 * same members share a key). Returns the local index or LENS_TRACE_NOIDX. */
uint32_t lens_tr_comm_add(MPI_Comm comm, uint64_t seed, uint64_t fixed)
{
    uint64_t key = fixed;
    MPI_Group g;
    int inter = 0, n = 0;
    if (comm == MPI_COMM_NULL)
        return LENS_TRACE_NOIDX;
    PMPI_Comm_test_inter(comm, &inter); /* PMPI: our own queries must not be traced */
    /* peers of an intercommunicator are ranks of the remote group */
    if ((inter ? PMPI_Comm_remote_group(comm, &g) : PMPI_Comm_group(comm, &g)) != MPI_SUCCESS)
        return LENS_TRACE_NOIDX;
    PMPI_Group_size(g, &n);
    int *ranks = malloc((size_t)(n > 0 ? n : 1) * sizeof *ranks);
    int *world = malloc((size_t)(n > 0 ? n : 1) * sizeof *world);
    char *line = malloc((size_t)n * 12 + 96); /* " %d" of n world ranks plus the header */
    /* A failed realloc leaves the old table in place; the check below then reports the failure. */
    if (lens_tr.ncomm == lens_tr.capcomm) {
        size_t cap = lens_tr.capcomm ? 2 * lens_tr.capcomm : 16;
        void *p = realloc(lens_tr.comms, cap * sizeof *lens_tr.comms);
        if (p) {
            lens_tr.comms = p;
            lens_tr.capcomm = cap;
        }
    }
    if (!ranks || !world || !line || lens_tr.ncomm == lens_tr.capcomm) {
        free(ranks), free(world), free(line);
        PMPI_Group_free(&g);
        tr_fail("out of memory for the communicator table");
        return LENS_TRACE_NOIDX;
    }
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    /* peers are recorded as world ranks */
    PMPI_Group_translate_ranks(g, n, ranks, lens_tr.world_group, world);
    PMPI_Group_free(&g);
    free(ranks);
    /* The world rank of the communicator's rank 0 tells apart the pieces of one MPI_Comm_split,
     * which share the seed: each piece has a different first member. */
    if (key == 0 && seed != 0) {
        key = lens_tr_mix(seed, (uint64_t)(n > 0 ? world[0] + 1 : 0));
    } else if (key == 0) {
        key = lens_tr_mix(0x5eed, (uint64_t)n);
        for (int i = 0; i < n; i++)
            key = lens_tr_mix(key, (uint64_t)world[i]);
    }
    if (comm == MPI_COMM_WORLD)
        key = 0; /* the one key every rank knows */
    uint32_t idx = (uint32_t)lens_tr.ncomm++;
    struct lens_tr_comm *c = &lens_tr.comms[idx];
    memset(c, 0, sizeof *c);
    c->key = key;
    c->size = n;
    c->world = world;
    PMPI_Comm_rank(comm, &c->me);
    /* One journal line per communicator: its index, key and members, whatever their number (the
     * line was sized for n members above). */
    size_t len = (size_t)sprintf(line, "comm %u %" PRIx64 " %d", idx, key, n);
    for (int i = 0; i < n; i++)
        len += (size_t)sprintf(line + len, " %d", world[i]);
    line[len++] = '\n';
    if (lens_tr.defs_fd >= 0 && write_all(lens_tr.defs_fd, line, len) != 0)
        tr_fail("cannot write %s: %s", lens_tr.defs_path, strerror(errno));
    free(line);
    /* world is index 0, found without the map */
    if (comm != MPI_COMM_WORLD && lens_tr_map_put(&lens_tr.commmap, LENS_TR_HKEY(comm), idx) != 0)
        tr_fail("out of memory for the communicator table");
    return idx;
}

/* A communicator we did not see created (made before MPI_Init returned, or by a call we do not
 * wrap) is registered on first use, keyed by its members. */
uint32_t lens_tr_comm_slow(MPI_Comm comm)
{
    long v = lens_tr_map_get(&lens_tr.commmap, LENS_TR_HKEY(comm));
    return v >= 0 ? (uint32_t)v : lens_tr_comm_add(comm, 0, 0);
}

/* Seed of the next communicator made from parent: every member of parent makes the same
 * creation calls in the same order, so (parent key, counter) agrees without any message. */
uint64_t lens_tr_child_seed(uint32_t parent)
{
    if (parent == LENS_TRACE_NOIDX)
        return 0;
    struct lens_tr_comm *p = &lens_tr.comms[parent];
    return lens_tr_mix(p->key, ++p->nchild);
}

uint32_t lens_tr_win_add(MPI_Win win, uint32_t comm)
{
    uint32_t idx = (uint32_t)lens_tr.nwin;
    /* A window's key follows the same agreement as a communicator's: the n-th window created on a
     * communicator gets the same key on every member ("win" xored in keeps it apart from children). */
    uint64_t key = lens_tr_mix(lens_tr.comms[comm].key ^ 0x77696eull, ++lens_tr.comms[comm].nwins);
    if (lens_tr.nwin == lens_tr.capwin) {
        size_t cap = lens_tr.capwin ? 2 * lens_tr.capwin : 16;
        uint32_t *p = realloc(lens_tr.wincomm, cap * sizeof *p);
        if (!p) {
            tr_fail("out of memory for the window table");
            return LENS_TRACE_NOIDX;
        }
        lens_tr.wincomm = p;
        lens_tr.capwin = cap;
    }
    lens_tr.wincomm[lens_tr.nwin++] = comm;
    defs_printf("win %u %" PRIx64 " %u\n", idx, key, comm);
    if (lens_tr_map_put(&lens_tr.winmap, LENS_TR_HKEY(win), idx) != 0)
        tr_fail("out of memory for the window table");
    return idx;
}

/* ---- requests */

/* Finished requests go on a free list: a long run of nonblocking calls reuses a few slots
 * instead of growing the table by one per request. */
void lens_tr_req_add(MPI_Request h, const struct lens_tr_req *r)
{
    uint32_t slot;
    /* A freed slot first: the table only grows when more requests are open at once than ever. */
    if (lens_tr.reqfree != LENS_TRACE_NOIDX) {
        slot = lens_tr.reqfree;
        lens_tr.reqfree = lens_tr.reqs[slot].next_free;
    } else {
        if (lens_tr.nreq == lens_tr.capreq) {
            size_t cap = lens_tr.capreq ? 2 * lens_tr.capreq : 256;
            void *p = realloc(lens_tr.reqs, cap * sizeof *lens_tr.reqs);
            if (!p) {
                tr_fail("out of memory for the request table");
                return;
            }
            lens_tr.reqs = p;
            lens_tr.capreq = cap;
        }
        slot = (uint32_t)lens_tr.nreq++;
    }
    /* The map from handle to slot: MPI reuses handles once freed, which is why completion deletes
     * the mapping before the handle can come back. */
    lens_tr.reqs[slot] = *r;
    if (lens_tr_map_put(&lens_tr.reqmap, LENS_TR_HKEY(h), slot) != 0)
        tr_fail("out of memory for the request table");
}

/* A request not in the map was started before tracing or by a call we do not wrap (persistent,
 * generalised): its completion is not an event of ours, so nothing is recorded. */
int lens_tr_req_done(MPI_Request h, const MPI_Status *st, uint64_t t)
{
    long slot = lens_tr_map_get(&lens_tr.reqmap, LENS_TR_HKEY(h));
    if (slot < 0)
        return 0;
    lens_tr_map_del(&lens_tr.reqmap, LENS_TR_HKEY(h));
    struct lens_tr_req *q = &lens_tr.reqs[slot];
    q->next_free = lens_tr.reqfree;
    lens_tr.reqfree = (uint32_t)slot;
    int cancelled = 0;
    if (q->recv)
        PMPI_Test_cancelled(st, &cancelled); /* a cancelled receive received nothing */
    if (cancelled)
        return 0;
    struct lens_trace_rec *r = lens_tr_rec();
    memset(r, 0, sizeof *r);
    r->t1 = t;
    r->aux = q->id;
    r->idx = q->idx;
    r->fn = q->fn;
    if (q->recv) {
        int count = 0;
        PMPI_Get_count(st, MPI_BYTE, &count); /* bytes actually received, not the posted size */
        r->type = LENS_REC_RECV_DONE;
        /* MPI_ANY_SOURCE: the status names the sender */
        r->peer = lens_tr_world(q->idx, st->MPI_SOURCE);
        r->tag = st->MPI_TAG;
        r->bytes = count > 0 ? (uint64_t)count : 0;
    } else {
        r->type = LENS_REC_SEND_DONE;
        r->peer = q->peer;
        r->tag = q->tag;
        r->bytes = q->bytes;
    }
    return 1;
}

/* ---- OTF2's collective operations over the private duplicate of MPI_COMM_WORLD */

/* OTF2 writes its archive collectively (one anchor and definitions from all ranks) through these
 * callbacks; they run on the private duplicate of MPI_COMM_WORLD, so none of their messages can
 * match a receive the application posted on its own communicators. */
struct OTF2_CollectiveContext {
    MPI_Comm comm;
    int rank, size;
    int *counts, *displs; /* size entries, for gatherv/scatterv */
};

/* OTF2's element types map one to one to MPI's fixed-width types, so the callbacks never convert. */
static MPI_Datatype otf2_type(OTF2_Type t)
{
    switch (t) {
    case OTF2_TYPE_UINT8: return MPI_UINT8_T;
    case OTF2_TYPE_INT8: return MPI_INT8_T;
    case OTF2_TYPE_UINT16: return MPI_UINT16_T;
    case OTF2_TYPE_INT16: return MPI_INT16_T;
    case OTF2_TYPE_UINT32: return MPI_UINT32_T;
    case OTF2_TYPE_INT32: return MPI_INT32_T;
    case OTF2_TYPE_INT64: return MPI_INT64_T;
    case OTF2_TYPE_FLOAT: return MPI_FLOAT;
    case OTF2_TYPE_DOUBLE: return MPI_DOUBLE;
    default: return MPI_UINT64_T; /* OTF2_TYPE_UINT64 and anything newer */
    }
}

/* An MPI failure inside OTF2's collective write is reported to OTF2, which fails the archive. */
#define CB_RC(rc) ((rc) == MPI_SUCCESS ? OTF2_CALLBACK_SUCCESS : OTF2_CALLBACK_ERROR)

static OTF2_CallbackCode cb_size(void *u, OTF2_CollectiveContext *c, uint32_t *size)
{
    (void)u;
    *size = (uint32_t)c->size;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode cb_rank(void *u, OTF2_CollectiveContext *c, uint32_t *rank)
{
    (void)u;
    *rank = (uint32_t)c->rank;
    return OTF2_CALLBACK_SUCCESS;
}

/* Each callback is the PMPI collective of the same name on the private communicator: PMPI so
 * that the collector's own traffic is never recorded as the application's. */
static OTF2_CallbackCode cb_barrier(void *u, OTF2_CollectiveContext *c)
{
    (void)u;
    return CB_RC(PMPI_Barrier(c->comm));
}

static OTF2_CallbackCode cb_bcast(void *u, OTF2_CollectiveContext *c, void *data, uint32_t n,
                                  OTF2_Type t, uint32_t root)
{
    (void)u;
    return CB_RC(PMPI_Bcast(data, (int)n, otf2_type(t), (int)root, c->comm));
}

static OTF2_CallbackCode cb_gather(void *u, OTF2_CollectiveContext *c, const void *in, void *out,
                                   uint32_t n, OTF2_Type t, uint32_t root)
{
    (void)u;
    return CB_RC(PMPI_Gather(in, (int)n, otf2_type(t), out, (int)n, otf2_type(t), (int)root,
                             c->comm));
}

/* Counts and displacements only matter at the root; the buffers were sized for all ranks once,
 * in write_archive, so the callback allocates nothing. */
static void fill_displs(OTF2_CollectiveContext *c, const uint32_t *counts)
{
    int d = 0;
    for (int i = 0; i < c->size; i++) {
        c->counts[i] = (int)counts[i];
        c->displs[i] = d;
        d += (int)counts[i];
    }
}

static OTF2_CallbackCode cb_gatherv(void *u, OTF2_CollectiveContext *c, const void *in,
                                    uint32_t nin, void *out, const uint32_t *nout, OTF2_Type t,
                                    uint32_t root)
{
    (void)u;
    if ((int)root == c->rank)
        fill_displs(c, nout);
    return CB_RC(PMPI_Gatherv(in, (int)nin, otf2_type(t), out, c->counts, c->displs,
                              otf2_type(t), (int)root, c->comm));
}

static OTF2_CallbackCode cb_scatter(void *u, OTF2_CollectiveContext *c, const void *in, void *out,
                                    uint32_t n, OTF2_Type t, uint32_t root)
{
    (void)u;
    return CB_RC(PMPI_Scatter(in, (int)n, otf2_type(t), out, (int)n, otf2_type(t), (int)root,
                              c->comm));
}

static OTF2_CallbackCode cb_scatterv(void *u, OTF2_CollectiveContext *c, const void *in,
                                     const uint32_t *nin, void *out, uint32_t nout, OTF2_Type t,
                                     uint32_t root)
{
    (void)u;
    if ((int)root == c->rank)
        fill_displs(c, nin);
    return CB_RC(PMPI_Scatterv(in, c->counts, c->displs, otf2_type(t), out, (int)nout,
                               otf2_type(t), (int)root, c->comm));
}

/* The contexts belong to write_archive, which frees them after OTF2 is done. */
static void cb_release(void *u, OTF2_CollectiveContext *g, OTF2_CollectiveContext *l)
{
    (void)u, (void)g, (void)l;
}

/* The same context serves as global and local one: every process is its own local group. */
static const OTF2_CollectiveCallbacks mpi_callbacks = {
    .otf2_release = cb_release,
    .otf2_get_size = cb_size,
    .otf2_get_rank = cb_rank,
    .otf2_barrier = cb_barrier,
    .otf2_bcast = cb_bcast,
    .otf2_gather = cb_gather,
    .otf2_gatherv = cb_gatherv,
    .otf2_scatter = cb_scatter,
    .otf2_scatterv = cb_scatterv,
};

/* ---- start and stop */

/* FTW_DEPTH gives a directory after its contents, so rmdir finds it empty. */
static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Rank 0 removes what an earlier run left (only the names the collector writes). */
/* Only the names the collector writes are removed: a user's other files in the directory stay. */
static void clean_dir(const char *dir)
{
    char p[4200];
    snprintf(p, sizeof p, "%s/traces", dir);
    nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    snprintf(p, sizeof p, "%s/raw", dir);
    nftw(p, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    snprintf(p, sizeof p, "%s/traces.otf2", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/traces.def", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/stats.txt", dir); /* MPILENS_TRACE_STATS of an earlier run */
    unlink(p);
}

static void flush_at_exit(void)
{
    /* exit() without MPI_Finalize: keep what was recorded for `mpilens trace` to recover
     * (not from a forked child: its copy of the buffer is the parent's) */
    if (lens_tr.on && !lens_tr.stopped && getpid() == lens_tr.pid)
        lens_tr_flush();
}

/* Two files per rank, named by the rank: no two processes ever write the same file, so no
 * locking and no collective step is needed until MPI_Finalize. */
static void open_files(void)
{
    char raw[4104], host[256] = "unknown";
    struct lens_err e;
    snprintf(raw, sizeof raw, "%s/raw", lens_tr.dir);
    if (lens_atomic_mkdir_p(raw, &e) != LENS_OK) {
        tr_fail("%s", e.msg);
        return;
    }
    snprintf(lens_tr.evt_path, sizeof lens_tr.evt_path, "%s/%d.evt", raw, lens_tr.rank);
    snprintf(lens_tr.defs_path, sizeof lens_tr.defs_path, "%s/%d.defs", raw, lens_tr.rank);
    lens_tr.evt_fd = open(lens_tr.evt_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (lens_tr.evt_fd < 0) {
        tr_fail("cannot create %s: %s", lens_tr.evt_path, strerror(errno));
        return;
    }
    lens_tr.defs_fd = open(lens_tr.defs_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (lens_tr.defs_fd < 0) {
        tr_fail("cannot create %s: %s", lens_tr.defs_path, strerror(errno));
        return;
    }
    gethostname(host, sizeof host - 1); /* the last byte stays '\0' if the name is cut */
    defs_printf("mpilens-trace 1\nrank %d size %d\nhost %s\n", lens_tr.rank, lens_tr.size, host);
}

/* Rank 0's facts about the run (bench/net/job_prov.c, as mpilens-bench records them), one
 * "prov KEY VALUE" line each; the conversion makes them OTF2 trace file properties. Taken at
 * MPI_Init: measured_at is when the traced run started. A newline in a value (from the
 * environment) would split the journal line: it becomes a space. */
static void write_provenance(void)
{
    struct lens_bench_job_prov p;
    char mpiv[256];
    lens_bench_job_provenance(&p);
    lens_bench_job_mpi_version(mpiv, sizeof mpiv);
    static const char *const keys[] = LENS_OTF2_PROP_KEYS;
    const char *v[LENS_OTF2_NPROP] = {p.measured_at, mpiv, p.launcher, p.binding, p.cores_per_host};
    for (int k = 0; k < LENS_OTF2_NPROP; k++) {
        char clean[256];
        snprintf(clean, sizeof clean, "%s", v[k]);
        for (char *c = clean; *c; c++)
            if (*c == '\n' || *c == '\r')
                *c = ' ';
        defs_printf("prov %s %s\n", keys[k], clean);
    }
}

void lens_tr_start(unsigned fn, uint64_t t0, uint64_t site, int provided)
{
    /* Settings come from the environment because the collector is preloaded into an unmodified
     * program: it has no command line of its own. */
    const char *dir = getenv("MPILENS_TRACE_DIR");
    const char *bs = getenv("MPILENS_TRACE_BUFFER");
    const char *fs = getenv("MPILENS_TRACE_FLUSH_SEC"); /* seconds between periodic flushes */
    size_t bytes = LENS_TRACE_DEFAULT_BUFFER; /* bytes of records held between flushes */
    struct lens_tr_mark entered = mark_now();
    if (lens_tr.started) /* a second initialisation starts nothing */
        return;
    lens_tr.started = 1;
    lens_tr.evt_fd = lens_tr.defs_fd = -1;
    lens_tr.reqfree = LENS_TRACE_NOIDX;
    /* Only MPI_THREAD_MULTIPLE lets two threads be in MPI at once: then, and only then, records
     * are appended under the spin lock. */
    lens_tr.mt = provided == MPI_THREAD_MULTIPLE;
    PMPI_Comm_rank(MPI_COMM_WORLD, &lens_tr.rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &lens_tr.size);
    snprintf(lens_tr.dir, sizeof lens_tr.dir, "%s", dir && *dir ? dir : LENS_TRACE_DEFAULT_DIR);
    /* A bad size is reported and the default used: tracing still happens, as asked. */
    if (bs && *bs) {
        bytes = lens_trace_parse_size(bs);
        if (bytes == 0) {
            tr_fail("MPILENS_TRACE_BUFFER='%s' is not a size such as 65536, 64k or 8M", bs);
            bytes = LENS_TRACE_DEFAULT_BUFFER;
        }
    }
    /* Too small a buffer would flush on almost every call: the minimum keeps tracing overhead sane. */
    if (bytes < LENS_TRACE_MIN_BUFFER)
        bytes = LENS_TRACE_MIN_BUFFER;
    lens_tr.flush_ns = (uint64_t)(LENS_TRACE_DEFAULT_FLUSH_SEC * 1e9);
    if (fs && *fs) {
        char *end;
        double sec = strtod(fs, &end);
        if (end == fs || *end || !(sec >= 0 && sec <= 1e6))
            tr_fail("MPILENS_TRACE_FLUSH_SEC='%s' is not a number of seconds such as 1 or 0.25",
                    fs);
        else
            lens_tr.flush_ns = (uint64_t)(sec * 1e9);
    }
    /* everything collective happens on every rank, whatever failed locally */
    PMPI_Comm_dup(MPI_COMM_WORLD, &lens_tr.dup);
    PMPI_Comm_group(MPI_COMM_WORLD, &lens_tr.world_group);
    if (lens_tr.rank == 0)
        clean_dir(lens_tr.dir);
    PMPI_Barrier(lens_tr.dup); /* no rank creates its files before rank 0 has cleaned up */
    if (!lens_tr.failed)
        open_files();
    /* Clock offsets to rank 0 at the start and again at MPI_Finalize: the reader interpolates
     * between the two, correcting drift as well as offset (clocksync.h). */
    struct lens_clock_offset off;
    lens_clocksync_measure(lens_tr.dup, LENS_TRACE_SYNC_ROUNDS, &off);
    lens_tr.cap = bytes / sizeof *lens_tr.buf; /* records, not bytes */
    lens_tr.buf = malloc(lens_tr.cap * sizeof *lens_tr.buf);
    if (!lens_tr.buf) {
        lens_tr.cap = 0;
        tr_fail("cannot allocate a %zu-byte trace buffer", bytes);
    }
    if (lens_tr.failed)
        return;
    defs_printf("start %" PRIu64 "\nclock %" PRIu64 " %" PRId64 " %" PRIu64 "\n", t0,
                off.t_local, off.offset, off.rtt);
    if (lens_tr.rank == 0)
        write_provenance();
    /* The modules loaded so far, so call sites can be resolved to functions after the run. */
    lens_tr.gen = lens_callsite_generation();
    if (lens_callsite_write_modules(lens_tr.defs_fd) != LENS_OK)
        tr_fail("cannot write %s: %s", lens_tr.defs_path, strerror(errno));
    /* World and self are registered first, with keys every rank knows (self's includes the rank). */
    lens_tr_comm_add(MPI_COMM_WORLD, 0, 0); /* index 0, key 0 */
    lens_tr_comm_add(MPI_COMM_SELF, 0, lens_tr_mix(0x5e1f, (uint64_t)lens_tr.rank));
    if (lens_tr.failed)
        return;
    lens_tr_func_start(t0, provided); /* function tracing (trace_func.c), if asked for */
    lens_tr.on = 1;
    /* The pid tells a forked child (which inherits the buffer and the handlers) from this process. */
    lens_tr.pid = (int)getpid();
    lens_tr.flushed_at = lens_clock_now();
    struct lens_trace_rec *r = lens_tr_rec();
    memset(r, 0, sizeof *r);
    r->t0 = t0;
    r->t1 = lens_clock_now();
    r->site = site;
    r->fn = (uint16_t)fn;
    r->type = LENS_REC_CALL;
    r->peer = LENS_TRACE_NONE;
    lens_tr_closed();
    atexit(flush_at_exit); /* exit() without MPI_Finalize still keeps the buffer */
    install_handlers();
    mark_add(LENS_TR_START, entered);
}

/* After MPI_Finalize the process may live on (a test harness, a library): free everything so
 * the collector leaves no memory behind. */
static void release_all(void)
{
    for (size_t i = 0; i < lens_tr.ncomm; i++)
        free(lens_tr.comms[i].world);
    free(lens_tr.comms);
    free(lens_tr.wincomm);
    free(lens_tr.reqs);
    free(lens_tr.buf);
    map_free(&lens_tr.commmap);
    map_free(&lens_tr.winmap);
    map_free(&lens_tr.reqmap);
    lens_tr.comms = NULL;
    lens_tr.wincomm = NULL;
    lens_tr.reqs = NULL;
    lens_tr.buf = NULL;
    lens_tr.n = lens_tr.cap = 0;
}

/* Each rank converts its own raw files into the archive, collectively through the callbacks:
 * no rank reads another's events, so the conversion scales with the job. */
static void write_archive(void)
{
    struct OTF2_CollectiveContext ctx = {lens_tr.dup, lens_tr.rank, lens_tr.size, NULL, NULL};
    struct lens_err e;
    const char *keep = getenv("MPILENS_TRACE_KEEP_RAW"); /* debugging: keep the per-rank raw files */
    ctx.counts = calloc((size_t)lens_tr.size, sizeof *ctx.counts);
    ctx.displs = calloc((size_t)lens_tr.size, sizeof *ctx.displs);
    struct lens_trace_otf2_opts o = {
        .dir = lens_tr.dir, .nranks = lens_tr.size, .first = lens_tr.rank, .count = 1,
        .coll = &mpi_callbacks, .coll_data = NULL, .coll_ctx = &ctx,
        .keep_raw = keep && *keep == '1'};
    lens_err_clear(&e);
    /* Out of memory here skips this rank's conversion (reported) but still reaches the
     * barrier below; the others' OTF2 collectives would then wait for this rank in vain. */
    if (!ctx.counts || !ctx.displs)
        fprintf(stderr, "mpilens-trace: rank %d: out of memory before writing the archive\n",
                lens_tr.rank);
    else if (lens_trace_otf2_write(&o, &e) != LENS_OK)
        fprintf(stderr, "mpilens-trace: rank %d: %s\n", lens_tr.rank, e.msg);
    free(ctx.counts);
    free(ctx.displs);
    PMPI_Barrier(lens_tr.dup);
    /* Every rank has converted its raw files before rank 0 removes their directory (the barrier). */
    if (lens_tr.rank == 0 && !o.keep_raw) {
        char raw[4200];
        snprintf(raw, sizeof raw, "%s/raw", lens_tr.dir);
        rmdir(raw); /* fails harmlessly while raw files remain (a failed rank) */
    }
}

/* MPILENS_TRACE_STATS=1: one line per rank appended to DIR/stats.txt with the phases of struct
 * lens_tr_state's `st`, in ms, for docs/trace.md's account of the overhead
 * (scripts/bench.d/trace_whole.sh). A file, not stderr: Open MPI's mpirun may exit before it
 * has forwarded what ranks write to stderr during MPI_Finalize (seen here: lines lost). */
static void print_stats(void)
{
    static const char *name[LENS_TR_NPHASE] = {"start", "flush", "sync", "archive"};
    const char *s = getenv("MPILENS_TRACE_STATS");
    char line[512], path[4200];
    if (!s || *s != '1')
        return;
    int n = snprintf(line, sizeof line, "rank %d records %" PRIu64 " flushes %" PRIu64,
                     lens_tr.rank, lens_tr.st.records, lens_tr.st.nflush);
    for (int p = 0; p < LENS_TR_NPHASE && n > 0 && (size_t)n < sizeof line; p++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s_ms %.3f %s_cpu_ms %.3f", name[p],
                      lens_tr.st.wall[p] / 1e6, name[p], lens_tr.st.cpu[p] / 1e6);
    if (n <= 0 || (size_t)n >= sizeof line - 1)
        return;
    line[n++] = '\n';
    snprintf(path, sizeof path, "%s/stats.txt", lens_tr.dir);
    /* one write with O_APPEND: the ranks' lines never interleave */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 || write_all(fd, line, (size_t)n) != 0)
        fprintf(stderr, "mpilens-trace: rank %d: cannot write %s: %s\n", lens_tr.rank, path,
                strerror(errno));
    if (fd >= 0)
        close(fd);
}

/* The MPI_Finalize record is written first, then the second clock measurement and the last
 * flush, so the journal's end time covers every record. */
void lens_tr_stop(uint64_t t0, uint64_t site)
{
    struct lens_clock_offset off;
    if (lens_tr.on) {
        struct lens_trace_rec *r = lens_tr_rec();
        memset(r, 0, sizeof *r);
        r->t0 = r->t1 = t0;
        r->site = site;
        r->fn = LENS_FN_Finalize;
        r->type = LENS_REC_CALL;
        r->peer = LENS_TRACE_NONE;
        lens_tr_closed();
        lens_tr_func_stop(t0);
    }
    /* Collective: every rank measures, also those whose tracing failed. */
    struct lens_tr_mark since = mark_now();
    lens_clocksync_measure(lens_tr.dup, LENS_TRACE_SYNC_ROUNDS, &off);
    mark_add(LENS_TR_SYNC, since);
    if (lens_tr.on) {
        defs_printf("clock %" PRIu64 " %" PRId64 " %" PRIu64 "\n", off.t_local, off.offset,
                    off.rtt);
        lens_tr_flush();
        defs_printf("end %" PRIu64 "\n", lens_clock_now());
    }
    lens_tr.on = 0;
    lens_tr.stopped = 1; /* a late signal or atexit must not flush again */
    for (size_t i = 0; i < NCRASH; i++) /* ours do nothing now; give them back */
        if (installed[i])
            sigaction(crash_signals[i], &prev_action[i], NULL);
    if (cont_installed)
        sigaction(SIGCONT, &prev_cont, NULL);
    if (lens_tr.evt_fd >= 0)
        close(lens_tr.evt_fd);
    if (lens_tr.defs_fd >= 0)
        close(lens_tr.defs_fd);
    lens_tr.evt_fd = lens_tr.defs_fd = -1;
    int ok = !lens_tr.failed;
    /* The archive is collective: if any rank failed, no rank may enter OTF2's collective write,
     * so all agree first; the raw files stay for `mpilens trace` to recover what it can. */
    since = mark_now();
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, lens_tr.dup);
    if (ok)
        write_archive();
    else if (lens_tr.rank == 0)
        fprintf(stderr, "mpilens-trace: a rank failed; raw files kept in %s/raw\n", lens_tr.dir);
    mark_add(LENS_TR_ARCHIVE, since);
    print_stats();
    /* The private communicator and group go last: write_archive's collectives ran on them. */
    PMPI_Group_free(&lens_tr.world_group);
    PMPI_Comm_free(&lens_tr.dup);
    release_all();
}

/* MPI_Abort may kill this process at any moment after it is called, so the buffer goes to disk
 * first and the journal says why the trace ends there. */
void lens_tr_abort(int code)
{
    if (!lens_tr.on || lens_tr.stopped)
        return;
    lens_tr_flush(); /* before the runtime can kill us */
    defs_printf("abort %d\n", code);
    lens_tr.on = 0; /* the runtime kills this process: nothing more to record */
}
