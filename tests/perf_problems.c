/* Timing driver for `make bench` (scripts/bench.d/problems.sh): writes a synthetic OTF2 trace
 * of about N events (8 ranks in a ring: computation, Isend/Irecv/Waitall with random
 * imbalance, an Allreduce every 10 iterations), then times reading and problem detection.
 * usage: perf_problems DIR [EVENTS]   prints "key value" lines. */
#include "analysis/trace/problems.h"
#include "common/time.h"
#include "synth_otf2.h"

#include <otf2/OTF2_Events.h>
#include <stdio.h>
#include <stdlib.h>

#define NR 8

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

static int generate(const char *dir, long target)
{
    struct synth s;
    if (synth_open(&s, dir, NR))
        return -1;
    double now[NR] = {0};
    long iters = target * 10 / (NR * 124) + 1; /* 12.4 events per rank and iteration */
    for (long it = 0; it < iters; it++) {
        double send_at[NR];
        for (int r = 0; r < NR; r++) { /* computation with imbalance, then post both sides */
            double c = 1e-4 * (1 + uniform());
            synth_call(&s, r, now[r], now[r] + c, SR_COMPUTE);
            now[r] += c;
            synth_enter(&s, r, now[r], SR_IRECV);
            synth_irecv_request(&s, r, now[r] + 1e-7, (uint64_t)(2 * it));
            synth_leave(&s, r, now[r] + 2e-7, SR_IRECV);
            send_at[r] = now[r] + 3e-7;
            synth_enter(&s, r, send_at[r], SR_ISEND);
            synth_isend(&s, r, send_at[r] + 1e-7, (r + 1) % NR, 7, 4096, (uint64_t)(2 * it + 1));
            synth_leave(&s, r, send_at[r] + 2e-7, SR_ISEND);
            now[r] = send_at[r] + 3e-7;
        }
        for (int r = 0; r < NR; r++) { /* Waitall ends after the left neighbour's send */
            int left = (r + NR - 1) % NR;
            double end = now[r] + 1e-6;
            if (send_at[left] + 2e-6 > end)
                end = send_at[left] + 2e-6;
            synth_enter(&s, r, now[r], SR_WAITALL);
            synth_isend_complete(&s, r, now[r] + 1e-7, (uint64_t)(2 * it + 1));
            synth_irecv(&s, r, end - 1e-7, left, 7, 4096, (uint64_t)(2 * it));
            synth_leave(&s, r, end, SR_WAITALL);
            now[r] = end;
        }
        if (it % 10 == 9) {
            double last = 0;
            for (int r = 0; r < NR; r++)
                last = now[r] > last ? now[r] : last;
            for (int r = 0; r < NR; r++) {
                synth_coll(&s, r, now[r], last + 5e-6, SR_ALLREDUCE, OTF2_COLLECTIVE_OP_ALLREDUCE,
                           -1);
                now[r] = last + 5e-6;
            }
        }
    }
    return synth_close(&s, NULL);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: perf_problems DIR [EVENTS]\n");
        return 2;
    }
    long target = argc > 2 ? atol(argv[2]) : 10000000;
    double t0 = lens_time_now();
    if (generate(argv[1], target)) {
        fprintf(stderr, "perf_problems: cannot write the trace in %s\n", argv[1]);
        return 1;
    }
    double t1 = lens_time_now();
    struct lens_err e = {0};
    struct lens_rules *r = lens_rules_new();
    struct lens_trace *t = NULL;
    struct lens_problems *p = NULL;
    if (!r || lens_rules_load_dir(r, "templates/rules", &e) || lens_trace_read(argv[1], &t, &e)) {
        fprintf(stderr, "perf_problems: %s\n", e.msg);
        lens_rules_free(r);
        return 1;
    }
    double t2 = lens_time_now();
    uint64_t nev = t->nevents;
    if (lens_problems_analyze(t, r, &p, &e)) {
        fprintf(stderr, "perf_problems: %s\n", e.msg);
        lens_trace_free(t);
        return 1;
    }
    double t3 = lens_time_now();
    printf("events %llu\n", (unsigned long long)nev);
    printf("messages %llu\n", (unsigned long long)p->np2p);
    printf("generate_s %.3f\n", t1 - t0);
    printf("read_s %.3f\n", t2 - t1);
    printf("detect_s %.3f\n", t3 - t2);
    printf("total_s %.3f\n", t3 - t1);
    printf("detect_events_per_s %.0f\n", nev / (t3 - t2));
    printf("total_events_per_s %.0f\n", nev / (t3 - t1));
    for (int i = 0; i < p->nres && p->res[i].total_s > 0; i++)
        printf("problem %s %.6f\n", p->res[i].rule->id, p->res[i].total_s);
    lens_problems_free(p);
    lens_trace_free(t);
    return 0;
}
