/* Problem detection (problems.h): the event types the rules may use, the filling of their
 * fields for each composite instance, and the aggregation per problem. */
#include "problems.h"

#include "callsite_resolve.h"

#include <math.h>
#include <otf2/OTF2_Events.h>
#include <stdlib.h>
#include <string.h>

/* ---- the event types offered to the rule base; field order = the F_* constants ---- */

static const char *const send_f[] = {"enter", "leave", "done_enter", "done_leave", "rank", "peer",
                                     "tag", "comm", "bytes", "blocking", NULL};
static const char *const recv_f[] = {"enter", "leave", "post_enter", "post_leave", "rank", "peer",
                                     "tag", "comm", "bytes", "blocking", "wrong_order", NULL};
static const char *const coll_f[] = {"enter", "leave", "rank", "root", "is_root", "comm",
                                     "prefix_max_enter", "op", "kind", NULL};
static const char *const inst_f[] = {"min_enter", "max_enter", "min_leave", "max_leave",
                                     "root_enter", "max_enter_nonroot", "size", "comm", "op",
                                     "kind", NULL};
static const char *const lock_f[] = {"enter", "leave", "wait_enter", "wait_leave", "rank",
                                     "target", "exclusive", NULL};
static const char *const holder_f[] = {"release", "rank", "exclusive", NULL};
static const char *const access_f[] = {"start_enter", "complete_enter", "complete_leave",
                                       "wait_enter", "wait_leave", "blocked", "rank", "target",
                                       NULL};
static const char *const expo_f[] = {"post_enter", "wait_enter", "wait_leave",
                                     "last_complete_enter", "rank", NULL};

enum { T_SEND, T_RECV, T_COLL, T_INST, T_LOCK, T_HOLDER, T_ACCESS, T_EXPO, NTYPES };
#define MAXF 12

static const struct lens_ruleeval_type types[NTYPES] = {
    {"send", send_f, NULL},          {"recv", recv_f, NULL},
    {"collective", coll_f, ".......ss"}, {"collective_instance", inst_f, "........ss"},
    {"lock_epoch", lock_f, NULL},    {"lock_holder", holder_f, NULL},
    {"access_epoch", access_f, NULL}, {"exposure_epoch", expo_f, NULL}};

/* Matchers: which member types a composite must have. */
enum { M_P2P, M_COLL, M_LOCK, M_PSCW, NMATCH };
static const int match_types[NMATCH][2] = {
    {T_SEND, T_RECV}, {T_COLL, T_INST}, {T_LOCK, T_HOLDER}, {T_ACCESS, T_EXPO}};

static const char *op_name(uint32_t op)
{
    static const char *const names[] = {
        "barrier", "bcast", "gather", "gatherv", "scatter", "scatterv", "allgather",
        "allgatherv", "alltoall", "alltoallv", "alltoallw", "allreduce", "reduce",
        "reduce_scatter", "scan", "exscan", "reduce_scatter_block"};
    if (op < sizeof names / sizeof names[0])
        return names[op];
    return op == LENS_COLL_WIN_CREATE ? "win_create" : op == LENS_COLL_WIN_FENCE ? "win_fence"
         : op == LENS_COLL_WIN_FREE ? "win_free" : "other";
}

/* The class the rules test: barrier, one_to_all, all_to_one, all_to_all, scan, rma_*. */
static const char *op_kind(uint32_t op)
{
    switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return "barrier";
    case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV: return "one_to_all";
    case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV:
    case OTF2_COLLECTIVE_OP_REDUCE: return "all_to_one";
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: return "all_to_all";
    case OTF2_COLLECTIVE_OP_SCAN: case OTF2_COLLECTIVE_OP_EXSCAN: return "scan";
    case LENS_COLL_WIN_CREATE: return "rma_create";
    case LENS_COLL_WIN_FENCE: return "rma_fence";
    case LENS_COLL_WIN_FREE: return "rma_free";
    default: return "other";
    }
}

/* ---- per-run state ---- */

struct acc {                 /* one charged (rank, call) of a problem */
    int32_t rank;
    uint32_t call;
    double seconds;
};

struct run {
    const struct lens_trace *t;
    const struct lens_events *ev;
    struct lens_rules *r;
    struct lens_problems *out;
    struct acc **acc;        /* per problem: charged calls */
    size_t *nacc, *capacc;
    uint8_t *repeat;         /* per problem: a call may have been charged twice */
    int opnames[32], opkinds[32]; /* interned ids by op (index: op, or 17.. for RMA ops) */
    int bad_problem;         /* first problem disabled by a runtime error, -1 */
};

static int op_slot(uint32_t op)
{
    return op < 20 ? (int)op : op >= 100 && op <= 102 ? 20 + (int)(op - 100) : 23;
}
static const uint32_t slot_op[24] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                     17, 18, 19, 100, 101, 102, 999};

static const struct lens_trace_call *call_of(const struct run *u, int32_t r, uint32_t c)
{
    return &u->t->ranks[r].calls[c];
}

/* ---- filling the fields of one instance ---- */

static void fill_p2p(const struct run *u, const struct lens_p2p *p, double *s, double *v,
                     int32_t *rank, uint32_t *call)
{
    const struct lens_trace_call *sc = call_of(u, p->src, p->send_call),
                                 *sd = call_of(u, p->src, p->send_done),
                                 *rp = call_of(u, p->dst, p->recv_post),
                                 *rd = call_of(u, p->dst, p->recv_done);
    double sv[] = {sc->enter, sc->leave, sd->enter, sd->leave, p->src, p->dst, p->tag, p->comm,
                   (double)p->bytes, p->send_call == p->send_done};
    double rv[] = {rd->enter, rd->leave, rp->enter, rp->leave, p->dst, p->src, p->tag, p->comm,
                   (double)p->bytes, p->recv_post == p->recv_done, p->wrong_order};
    memcpy(s, sv, sizeof sv);
    memcpy(v, rv, sizeof rv);
    rank[0] = p->src, call[0] = p->send_done;
    rank[1] = p->dst, call[1] = p->recv_done;
}

static void fill_coll(const struct run *u, const struct lens_coll *c,
                      const struct lens_coll_member *m, double *a, double *b, int32_t *rank,
                      uint32_t *call)
{
    const struct lens_trace_call *k = call_of(u, m->rank, m->call);
    int s = op_slot(c->op);
    double av[] = {k->enter, k->leave, m->rank, c->root, m->rank == c->root, c->comm,
                   m->prefix_max_enter, u->opnames[s], u->opkinds[s]};
    double bv[] = {c->min_enter, c->max_enter, c->min_leave, c->max_leave, c->root_enter,
                   c->max_enter_nonroot, c->n, c->comm, u->opnames[s], u->opkinds[s]};
    memcpy(a, av, sizeof av);
    memcpy(b, bv, sizeof bv);
    rank[0] = rank[1] = m->rank;
    call[0] = call[1] = m->call;
}

static void fill_lock(const struct run *u, const struct lens_lock_epoch *l, double *a, double *b,
                      int32_t *rank, uint32_t *call)
{
    const struct lens_lock_epoch *p = &u->ev->locks[l->prev];
    const struct lens_trace_call *lk = call_of(u, l->rank, l->lock_call),
                                 *ul = call_of(u, l->rank, l->unlock_call),
                                 *w = call_of(u, l->rank, l->wait_call),
                                 *pu = call_of(u, p->rank, p->unlock_call);
    double av[] = {lk->enter, ul->leave, w->enter, w->leave, l->rank, l->target, l->exclusive};
    double bv[] = {pu->enter, p->rank, p->exclusive}; /* release: enter of the unlock */
    memcpy(a, av, sizeof av);
    memcpy(b, bv, sizeof bv);
    rank[0] = l->rank, call[0] = l->wait_call;
    rank[1] = p->rank, call[1] = p->unlock_call;
}

static void fill_pscw(const struct run *u, const struct lens_pscw *p, double *a, double *b,
                      int32_t *rank, uint32_t *call)
{
    const struct lens_trace_call *st = call_of(u, p->origin, p->start_call),
                                 *co = call_of(u, p->origin, p->complete_call),
                                 *po = call_of(u, p->target, p->post_call),
                                 *wa = call_of(u, p->target, p->wait_call);
    int blocked = p->blocked_call != LENS_NONE;
    const struct lens_trace_call *bl = blocked ? call_of(u, p->origin, p->blocked_call) : st;
    double av[] = {st->enter, co->enter, co->leave, bl->enter, bl->leave, blocked, p->origin,
                   p->target};
    double bv[] = {po->enter, wa->enter, wa->leave, p->last_complete_enter, p->target};
    memcpy(a, av, sizeof av);
    memcpy(b, bv, sizeof bv);
    rank[0] = p->origin, call[0] = blocked ? p->blocked_call : p->start_call;
    rank[1] = p->target, call[1] = p->wait_call;
}

/* ---- evaluation ---- */

/* Whether instances of matcher m charged to this call can repeat: a call completing more
 * than one message (Waitall), or the one-sided matchers, whose epochs share calls. */
static int may_repeat(const struct run *u, int m, int32_t rank, uint32_t call)
{
    if (m == M_COLL)
        return 0;
    if (m != M_P2P)
        return 1;
    const struct lens_trace_rank *k = &u->t->ranks[rank];
    const struct lens_trace_call *c = &k->calls[call];
    int sends = 0, recvs = 0;
    for (uint32_t i = c->rec; i < c->rec + c->nrec; i++) {
        int kind = k->recs[i].kind;
        sends += kind == LENS_TREC_SEND || kind == LENS_TREC_ISEND_COMPLETE;
        recvs += kind == LENS_TREC_RECV || kind == LENS_TREC_IRECV;
    }
    return sends > 1 || recvs > 1;
}

/* Records one instance; repeated (rank, call) pairs are merged in aggregate(). */
static int charge(struct run *u, int p, int match, int32_t rank, uint32_t call, double sec)
{
    if (!u->repeat[p] && may_repeat(u, match, rank, call))
        u->repeat[p] = 1;
    if (u->nacc[p] == u->capacc[p]) {
        size_t m = u->capacc[p] ? 2 * u->capacc[p] : 256;
        struct acc *q = lens_realloc(u->acc[p], m * sizeof *q);
        if (!q)
            return LENS_ENOMEM;
        u->acc[p] = q;
        u->capacc[p] = m;
    }
    u->acc[p][u->nacc[p]++] = (struct acc){rank, call, sec};
    return LENS_OK;
}

static int run_composite(struct run *u, int c, struct lens_err *e)
{
    const struct lens_rule_composite *k = &u->r->composites[c];
    int probs[64], np = 0;
    for (int p = 0; p < u->r->nproblems && np < 64; p++)
        if (u->r->problems[p].composite == c)
            probs[np++] = p;
    if (!np)
        return LENS_OK;
    /* which matcher, and which member slot holds which side */
    int match = -1, side[2] = {-1, -1};
    for (int m = 0; m < NMATCH && match < 0; m++) {
        if (k->nmembers != 2)
            break;
        for (int s = 0; s < 2; s++)
            for (int j = 0; j < 2; j++)
                if (k->members[j].type_index == match_types[m][s])
                    side[s] = j;
        if (side[0] >= 0 && side[1] >= 0 && side[0] != side[1])
            match = m;
        else
            side[0] = side[1] = -1;
    }
    if (match < 0)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: composite event '%s' needs the member "
                            "types send+recv, collective+collective_instance, "
                            "lock_epoch+lock_holder or access_epoch+exposure_epoch",
                            k->file, k->line, k->col, k->name);
    double f[2][MAXF], params[64];
    const double *mem[2] = {f[side[0]], f[side[1]]};
    struct lens_ruleeval_ctx x = {mem, params};
    if (k->nparams > 64)
        return lens_err_set(e, LENS_EFORMAT, "%s:%d:%d: more than 64 parameters", k->file,
                            k->line, k->col);
    int32_t rank[2];
    uint32_t call[2];
    const struct lens_events *ev = u->ev;
    size_t n = match == M_P2P ? ev->np2p : match == M_COLL ? ev->nmembers
             : match == M_LOCK ? ev->nlocks : ev->npscw;
    size_t ci = 0; /* collective instance of member i */
    for (size_t i = 0; i < n; i++) {
        double *a = f[side[0]], *b = f[side[1]];
        if (match == M_P2P) {
            fill_p2p(u, &ev->p2p[i], a, b, rank, call);
        } else if (match == M_COLL) {
            while (i >= (size_t)ev->coll[ci].first + ev->coll[ci].n)
                ci++;
            fill_coll(u, &ev->coll[ci], &ev->members[i], a, b, rank, call);
        } else if (match == M_LOCK) {
            if (ev->locks[i].prev < 0)
                continue;
            fill_lock(u, &ev->locks[i], a, b, rank, call);
        } else {
            fill_pscw(u, &ev->pscw[i], a, b, rank, call);
        }
        int rc = lens_ruleeval_composite(u->r, c, &x, e);
        if (rc < 0)
            return rc;
        if (!rc)
            continue;
        for (int j = 0; j < np; j++) {
            int p = probs[j];
            if (p == u->bad_problem)
                continue;
            double d;
            struct lens_err pe;
            rc = lens_ruleeval_problem(u->r, p, &x, &d, &pe);
            if (rc < 0) { /* a runtime error disables the rule, reported in warning */
                if (u->bad_problem < 0) {
                    u->bad_problem = p;
                    snprintf(u->out->warning, sizeof u->out->warning,
                             "%s (problem '%s' skipped)", pe.msg, u->r->problems[p].id);
                }
                continue;
            }
            int loc = u->r->problems[p].location == side[0] ? 0 : 1;
            if (rc == 1 && d > 0 && isfinite(d) && charge(u, p, match, rank[loc], call[loc], d))
                return lens_err_set(e, LENS_ENOMEM, "out of memory evaluating '%s'",
                                    u->r->problems[p].id);
        }
    }
    return LENS_OK;
}

/* ---- aggregation ---- */

/* "MPI_Send called from calculate (jacobi.c:57)" in English and Russian: the caller is the
 * resolved return address (our traces) or the enclosing user region (Score-P). */
static void site_text(const struct lens_trace *t, const struct lens_trace_call *k,
                      struct lens_problem_site *out)
{
    const char *fn = lens_trace_region_name(t, k->region);
    const struct lens_trace_site *s = &t->sites[k->site];
    char from[256] = "";
    if (s->module != LENS_NONE && s->module < t->nstrings && t->strings[s->module]) {
        char func[128], file[120];
        int line = 0;
        const char *mod = t->strings[s->module], *base = strrchr(mod, '/');
        if (lens_callsite_resolve(mod, s->offset, func, sizeof func, file, sizeof file, &line,
                                  NULL) != LENS_OK)
            snprintf(from, sizeof from, "%s+0x%llx", base ? base + 1 : mod,
                     (unsigned long long)s->offset);
        else if (file[0])
            snprintf(from, sizeof from, "%s (%s:%d)", func, file, line);
        else
            snprintf(from, sizeof from, "%s", func);
    } else if (s->caller != LENS_NONE) {
        snprintf(from, sizeof from, "%s", lens_trace_region_name(t, s->caller));
    }
    if (from[0]) {
        snprintf(out->text, sizeof out->text, "%s called from %s", fn, from);
        snprintf(out->text_ru, sizeof out->text_ru, "вызов %s из %s", fn, from);
    } else {
        snprintf(out->text, sizeof out->text, "%s", fn);
        snprintf(out->text_ru, sizeof out->text_ru, "вызов %s", fn);
    }
}

static int by_seconds_desc(const void *a, const void *b)
{
    const struct acc *x = a, *y = b;
    if (x->seconds != y->seconds)
        return x->seconds > y->seconds ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->call < y->call ? -1 : x->call > y->call;
}

struct site_sum { uint32_t region, site; double seconds; uint64_t count; };

static int by_site_seconds(const void *a, const void *b)
{
    const struct site_sum *x = a, *y = b;
    if (x->seconds != y->seconds)
        return x->seconds > y->seconds ? -1 : 1;
    return x->site != y->site ? (x->site < y->site ? -1 : 1)
                              : (x->region < y->region ? -1 : x->region > y->region);
}

static int by_call(const void *a, const void *b)
{
    const struct acc *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->call < y->call ? -1 : x->call > y->call;
}

/* Hands the (merged) charged calls of problem p to res, sorted by rank then call. */
static int keep_charges(struct run *u, int p, size_t n, struct lens_problem_result *res)
{
    struct acc *a = u->acc[p];
    if (!n)
        return LENS_OK;
    if (!u->repeat[p])
        qsort(a, n, sizeof *a, by_call);
    struct lens_problem_charge *c = lens_malloc(n * sizeof *c);
    if (!c)
        return LENS_ENOMEM;
    for (size_t i = 0; i < n; i++)
        c[i] = (struct lens_problem_charge){a[i].rank, a[i].call, a[i].seconds};
    res->charges = c;
    res->ncharges = n;
    return LENS_OK;
}

static int aggregate(struct run *u, int p, struct lens_problem_result *res, unsigned flags)
{
    const struct lens_trace *t = u->t;
    struct acc *a = u->acc[p];
    size_t n = u->nacc[p];
    /* one MPI call counts once per problem: a Waitall completing several late messages, or
     * a Win_wait waiting for several origins, is charged its largest wait (Scalasca) */
    if (n > 1 && u->repeat[p]) {
        qsort(a, n, sizeof *a, by_call);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (m && a[m - 1].rank == a[i].rank && a[m - 1].call == a[i].call) {
                if (a[i].seconds > a[m - 1].seconds)
                    a[m - 1].seconds = a[i].seconds;
            } else {
                a[m++] = a[i];
            }
        }
        n = m;
    }
    res->rule = &u->r->problems[p];
    if (!(res->per_rank = lens_calloc((size_t)t->nranks, sizeof(double))))
        return LENS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        res->total_s += a[i].seconds;
        res->per_rank[a[i].rank] += a[i].seconds;
    }
    res->count = n;
    res->share = u->out->total_time_s > 0 ? res->total_s / u->out->total_time_s : 0;
    if (!n)
        return LENS_OK;
    if ((flags & LENS_PROBLEMS_KEEP_CHARGES) && keep_charges(u, p, n, res))
        return LENS_ENOMEM;
    /* call sites: sum per (function, site); sites are few so a linear list suffices */
    struct site_sum *ss = NULL;
    size_t ns = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        const struct lens_trace_call *k = call_of(u, a[i].rank, a[i].call);
        size_t j = 0;
        while (j < ns && !(ss[j].region == k->region && ss[j].site == k->site))
            j++;
        if (j == ns) {
            if (ns == cap) {
                cap = cap ? 2 * cap : 16;
                struct site_sum *q = lens_realloc(ss, cap * sizeof *q);
                if (!q) {
                    lens_free(ss);
                    return LENS_ENOMEM;
                }
                ss = q;
            }
            ss[ns++] = (struct site_sum){k->region, k->site, 0, 0};
        }
        ss[j].seconds += a[i].seconds;
        ss[j].count++;
    }
    qsort(ss, ns, sizeof *ss, by_site_seconds);
    for (size_t j = 0; j < ns && res->nsites < LENS_PROBLEMS_TOP; j++) {
        struct lens_trace_call k = {0, 0, ss[j].region, ss[j].site, 0, 0};
        struct lens_problem_site *s = &res->sites[res->nsites++];
        site_text(t, &k, s);
        s->seconds = ss[j].seconds;
        s->count = ss[j].count;
    }
    lens_free(ss);
    /* the largest instances: a selection into a small sorted array, not a full sort */
    struct acc best[LENS_PROBLEMS_TOP];
    int nb = 0;
    for (size_t i = 0; i < n; i++) {
        if (nb == LENS_PROBLEMS_TOP && by_seconds_desc(&a[i], &best[nb - 1]) >= 0)
            continue;
        int j = nb < LENS_PROBLEMS_TOP ? nb++ : nb - 1;
        while (j > 0 && by_seconds_desc(&a[i], &best[j - 1]) < 0) {
            best[j] = best[j - 1];
            j--;
        }
        best[j] = a[i];
    }
    for (int i = 0; i < nb; i++) {
        const struct lens_trace_call *k = call_of(u, best[i].rank, best[i].call);
        struct lens_problem_instance *x = &res->top[res->ntop++];
        x->rank = best[i].rank;
        x->time = k->enter;
        x->seconds = best[i].seconds;
        snprintf(x->call, sizeof x->call, "%s", lens_trace_region_name(t, k->region));
    }
    return LENS_OK;
}

static int by_total(const void *a, const void *b)
{
    const struct lens_problem_result *x = a, *y = b;
    if (x->total_s != y->total_s)
        return x->total_s > y->total_s ? -1 : 1;
    return x->rule < y->rule ? -1 : x->rule > y->rule;
}

static int intern_ops(struct run *u)
{
    for (int s = 0; s < 24; s++) {
        u->opnames[s] = lens_rules_intern(u->r, op_name(slot_op[s]));
        u->opkinds[s] = lens_rules_intern(u->r, op_kind(slot_op[s]));
        if (u->opnames[s] < 0 || u->opkinds[s] < 0)
            return LENS_ENOMEM;
    }
    return LENS_OK;
}

int lens_problems_analyze(struct lens_trace *t, struct lens_rules *rules,
                          struct lens_problems **out, struct lens_err *e)
{
    return lens_problems_analyze_flags(t, rules, 0, out, e);
}

int lens_problems_analyze_flags(struct lens_trace *t, struct lens_rules *rules, unsigned flags,
                                struct lens_problems **out, struct lens_err *e)
{
    *out = NULL;
    struct lens_problems *res = lens_calloc(1, sizeof *res);
    struct lens_events *ev = NULL;
    struct run u = {0};
    int rc;
    if (!res) {
        lens_rules_free(rules);
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    }
    res->rules = rules;
    res->nranks = t->nranks;
    if ((rc = lens_ruleeval_bind(rules, types, NTYPES, e)) || (rc = lens_events_build(t, &ev, e)))
        goto fail;
    u = (struct run){t, ev, rules, res, NULL, NULL, NULL, NULL, {0}, {0}, -1};
    int np = rules->nproblems;
    u.acc = lens_calloc((size_t)np + 1, sizeof *u.acc);
    u.nacc = lens_calloc((size_t)np + 1, sizeof *u.nacc);
    u.capacc = lens_calloc((size_t)np + 1, sizeof *u.capacc);
    u.repeat = lens_calloc((size_t)np + 1, 1);
    res->res = lens_calloc((size_t)np + 1, sizeof *res->res);
    if (!u.acc || !u.nacc || !u.capacc || !u.repeat || !res->res || intern_ops(&u)) {
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
        goto fail;
    }
    for (int r = 0; r < t->nranks; r++)
        if (t->ranks[r].nevents)
            res->total_time_s += t->ranks[r].t_last - t->ranks[r].t_first;
    for (int c = 0; c < rules->ncomposites; c++)
        if ((rc = run_composite(&u, c, e)))
            goto fail;
    for (int p = 0; p < np; p++) {
        if ((rc = aggregate(&u, p, &res->res[p], flags))) {
            rc = lens_err_set(e, LENS_ENOMEM, "out of memory");
            goto fail;
        }
        res->nres++;
    }
    qsort(res->res, (size_t)res->nres, sizeof *res->res, by_total);
    res->nevents = t->nevents;
    res->np2p = ev->np2p;
    res->ncoll = ev->ncoll;
    res->unmatched = ev->unmatched_sends + ev->unmatched_recvs;
    rc = LENS_OK;
fail:
    for (int p = 0; u.acc && p < rules->nproblems; p++)
        lens_free(u.acc[p]);
    lens_free(u.acc);
    lens_free(u.nacc);
    lens_free(u.capacc);
    lens_free(u.repeat);
    lens_events_free(ev);
    if (rc) {
        lens_problems_free(res);
        return rc;
    }
    *out = res;
    return LENS_OK;
}

int lens_problems_run(const char *trace_path, const char *rules_dir, struct lens_problems **out,
                      struct lens_err *e)
{
    *out = NULL;
    struct lens_rules *r = lens_rules_new();
    struct lens_trace *t = NULL;
    if (!r)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    int rc = lens_rules_load_dir(r, rules_dir, e);
    if (!rc)
        rc = lens_ruleeval_bind(r, types, NTYPES, e); /* rule errors before reading a big trace */
    if (!rc)
        rc = lens_trace_read(trace_path, &t, e);
    if (rc) {
        lens_rules_free(r);
        return rc;
    }
    rc = lens_problems_analyze(t, r, out, e);
    lens_trace_free(t);
    return rc;
}

void lens_problems_free(struct lens_problems *p)
{
    if (!p)
        return;
    for (int i = 0; p->res && i < p->rules->nproblems; i++) {
        lens_free(p->res[i].per_rank);
        lens_free(p->res[i].charges);
    }
    lens_free(p->res);
    lens_rules_free(p->rules);
    lens_free(p);
}

/* ---- output ---- */

static const char *text_of(const struct lens_rule_problem *p, int lang, int k)
{
    return lang == 1 && p->text[1][k] ? p->text[1][k] : p->text[0][k];
}

int lens_problems_rows(const struct lens_problems *p, int lang, struct lens_problems_row *rows,
                       int max)
{
    int n = 0;
    for (int i = 0; i < p->nres && n < max; i++) {
        const struct lens_problem_result *r = &p->res[i];
        if (r->total_s <= 0)
            continue;
        rows[n++] = (struct lens_problems_row){r->rule->id, text_of(r->rule, lang, 0),
                                               text_of(r->rule, lang, 1),
                                               text_of(r->rule, lang, 2), r->total_s, r->share,
                                               !r->nsites ? ""
                                               : lang == 1 ? r->sites[0].text_ru
                                                           : r->sites[0].text};
    }
    return n;
}

int lens_problems_write_text(const struct lens_problems *p, int lang, FILE *fp)
{
    static const char *const lab[2][8] = {
        {"total time (sum over ranks)", "problems found", "per rank", "call sites",
         "advice", "no problems found", "of the total time", "instances"},
        {"общее время (сумма по процессам)", "найдено проблем", "по процессам", "места вызова",
         "совет", "проблем не найдено", "общего времени", "число случаев"}};
    int L = lang == 1;
    int found = 0;
    for (int i = 0; i < p->nres; i++)
        found += p->res[i].total_s > 0;
    fprintf(fp, "%s: %.6f s, %d ranks, %llu events, %llu messages, %llu collectives\n",
            lab[L][0], p->total_time_s, p->nranks, (unsigned long long)p->nevents,
            (unsigned long long)p->np2p, (unsigned long long)p->ncoll);
    fprintf(fp, "%s: %d\n", lab[L][1], found);
    if (!found)
        fprintf(fp, "\n%s\n", lab[L][5]);
    for (int i = 0; i < p->nres; i++) {
        const struct lens_problem_result *r = &p->res[i];
        if (r->total_s <= 0)
            continue;
        fprintf(fp, "\n%s [%s]: %.6f s, %.2f%% %s, ", text_of(r->rule, lang, 0), r->rule->id,
                r->total_s, 100 * r->share, lab[L][6]);
        fprintf(fp, L ? "%s: %llu\n" : "%2$llu %1$s\n", lab[L][7], (unsigned long long)r->count);
        fprintf(fp, "  %s\n", text_of(r->rule, lang, 1));
        fprintf(fp, "  %s:", lab[L][2]);
        for (int k = 0; k < p->nranks; k++)
            fprintf(fp, " %d=%.6f", k, r->per_rank[k]);
        fprintf(fp, "\n  %s:\n", lab[L][3]);
        for (int k = 0; k < r->nsites; k++)
            fprintf(fp, "    %.6f s (%llu) %s\n", r->sites[k].seconds,
                    (unsigned long long)r->sites[k].count,
                    L ? r->sites[k].text_ru : r->sites[k].text);
        fprintf(fp, "  %s: %s\n", lab[L][4], text_of(r->rule, lang, 2));
    }
    return ferror(fp) ? LENS_EIO : LENS_OK;
}

static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

/* %.17g keeps doubles exact; JSON has no NaN or infinity, so those become null. */
static void json_num(FILE *fp, double v)
{
    if (isfinite(v))
        fprintf(fp, "%.17g", v);
    else
        fputs("null", fp);
}

int lens_problems_write_json(const struct lens_problems *p, int lang, FILE *fp)
{
    fputs("{\"total_time_s\":", fp);
    json_num(fp, p->total_time_s);
    fprintf(fp, ",\"nranks\":%d,\"events\":%llu,\"messages\":%llu,\"collectives\":%llu,"
                "\"unmatched\":%llu,\"problems\":[",
            p->nranks, (unsigned long long)p->nevents, (unsigned long long)p->np2p,
            (unsigned long long)p->ncoll, (unsigned long long)p->unmatched);
    for (int i = 0; i < p->nres; i++) {
        const struct lens_problem_result *r = &p->res[i];
        fputs(i ? ",\n{\"id\":" : "\n{\"id\":", fp);
        json_str(fp, r->rule->id);
        static const char *const keys[] = {"name", "description", "advice"};
        for (int k = 0; k < 3; k++) {
            fprintf(fp, ",\"%s\":", keys[k]);
            json_str(fp, text_of(r->rule, lang, k));
        }
        fputs(",\"total_s\":", fp);
        json_num(fp, r->total_s);
        fputs(",\"share\":", fp);
        json_num(fp, r->share);
        fprintf(fp, ",\"count\":%llu,\"per_rank\":[", (unsigned long long)r->count);
        for (int k = 0; k < p->nranks; k++) {
            if (k)
                fputc(',', fp);
            json_num(fp, r->per_rank[k]);
        }
        fputs("],\"callsites\":[", fp);
        for (int k = 0; k < r->nsites; k++) {
            fputs(k ? ",{\"site\":" : "{\"site\":", fp);
            json_str(fp, lang == 1 ? r->sites[k].text_ru : r->sites[k].text);
            fputs(",\"seconds\":", fp);
            json_num(fp, r->sites[k].seconds);
            fprintf(fp, ",\"count\":%llu}", (unsigned long long)r->sites[k].count);
        }
        fputs("],\"instances\":[", fp);
        for (int k = 0; k < r->ntop; k++) {
            fprintf(fp, "%s{\"rank\":%d,\"call\":", k ? "," : "", r->top[k].rank);
            json_str(fp, r->top[k].call);
            fputs(",\"time\":", fp);
            json_num(fp, r->top[k].time);
            fputs(",\"seconds\":", fp);
            json_num(fp, r->top[k].seconds);
            fputc('}', fp);
        }
        fputs("]}", fp);
    }
    fputs("\n]", fp);
    if (p->warning[0]) {
        fputs(",\"warning\":", fp);
        json_str(fp, p->warning);
    }
    fputs("}\n", fp);
    return ferror(fp) ? LENS_EIO : LENS_OK;
}
