/* The time and memory model of an all-pairs run (see estimate.h and docs/bench.md,
 * "Estimating a run"). Pure arithmetic on the calibrated costs: no MPI, so the model and the
 * extrapolation table of docs/bench.md are checked by a unit test. */
#include "estimate.h"

#include "analysis/cube/cube.h"

#include <math.h>
#include <stdio.h>

int lens_bench_estimate_rounds(int procs)
{
    if (procs < 2)
        return 0;
    return procs % 2 ? procs : procs - 1; /* an odd P plays with an empty seat: one bye each */
}

/* A calibrated cost must be a real duration: NaN or a clock that went backwards would give a
 * silent wrong estimate instead of an error. */
static int bad_cost(double s) { return !isfinite(s) || s <= 0; }

int lens_bench_estimate_time(const struct lens_bench_estimate_in *in, struct lens_bench_estimate *out,
                             struct lens_err *e)
{
    *out = (struct lens_bench_estimate){0, 0, 0, 0, 0};
    if (in->procs < 2 || in->nlen < 1 || in->measurements < 1 || in->retest < 0)
        return lens_err_set(e, LENS_EINVAL, "estimate: need procs >= 2, nlen >= 1, measurements "
                            ">= 1 and retest >= 0 (got %d, %d, %ld, %d)", in->procs, in->nlen,
                            in->measurements, in->retest);
    if (bad_cost(in->pair_first_s) || bad_cost(in->pair_last_s))
        return lens_err_set(e, LENS_EINVAL, "estimate: the calibrated pair cost (%g s, %g s) is "
                            "not a positive duration", in->pair_first_s, in->pair_last_s);
    if (!isfinite(in->round_first_s) || !isfinite(in->round_last_s))
        return lens_err_set(e, LENS_EINVAL, "estimate: the calibrated round cost (%g s, %g s) is "
                            "not finite", in->round_first_s, in->round_last_s);
    if (!isfinite(in->output_s) || in->output_s < 0)
        return lens_err_set(e, LENS_EINVAL, "estimate: the calibrated output step (%g s) is not a "
                            "duration", in->output_s);
    /* The mean of the two ends times nlen is the exact sum of an affine cost over evenly
     * spaced lengths; with one length both ends are the same measurement. */
    double pair = 0.5 * (in->pair_first_s + in->pair_last_s) * in->nlen;
    out->rounds = lens_bench_estimate_rounds(in->procs);
    out->serial_s = (double)in->measurements * pair;
    if (in->round_first_s > 0 && in->round_last_s > 0)
        out->parallel_s = out->rounds * 0.5 * (in->round_first_s + in->round_last_s) * in->nlen;
    /* Retests run one cell at a time like the serial schedule: the K worst and one control
     * per length; a flagged cell beyond the K worst is a finding, not a cost one can know. */
    if (in->retest > 0)
        out->retest_s = (in->retest + 1) * pair;
    out->output_s = in->nlen * in->output_s;
    return LENS_OK;
}

void lens_bench_estimate_memory(const struct lens_bench_opts *o, int procs, double req_bytes,
                                double name_bytes, struct lens_bench_estimate_mem *m)
{
    /* Mirrors ctx.c and allpairs.c allocation by allocation, in doubles so that the P^2
     * terms of 10^6 ranks cannot overflow; the mode tests are spelled out rather than taken
     * from mode.h, which would pull MPI into this MPI-free object. */
    double P = procs, n = o->repeats, d = sizeof(double), i4 = sizeof(int);
    double maxlen = o->begin + (double)(o->nlen - 1) * o->step;
    double blen = maxlen > 0 ? maxlen : 1;
    double noise = o->noise_len > 0 ? o->noise_len : 1;
    double nreq = 2 * (P > o->noise_msgs ? P : o->noise_msgs);
    /* message buffers, samples and sort space of one cell, row and gather message (4P
     * doubles each), requests, two pair lists */
    double each = 2 * blen + 2 * n * d + 4 * P * d + 4 * P * d + nreq * req_bytes + 2 * P * i4;
    if (o->raw)
        each += P * n * d;
    if (o->mode == LENS_MODE_ALL_TO_ALL)
        each += P * blen + (P - 1) * n * d; /* P receive buffers, P cells' samples */
    if (o->schedule == LENS_BENCH_SCHEDULE_PARALLEL)
        each += P * i4 + 2 * (P + 1) * i4; /* partners, the tournament's seats and order */
    if (o->mode == LENS_MODE_NOISE || o->mode == LENS_MODE_NOISE_BLOCKING)
        each += 2 * noise;
    if (o->mode == LENS_MODE_PUT || o->mode == LENS_MODE_GET)
        each += blen; /* the window */
    m->other_bytes = each;
    /* Rank 0: the gathered block and the four matrices (8 P^2 doubles) during the sweep; the
     * retest plan's 3.5 P^2 transient comes after they are freed, so it never adds to the peak. */
    double r0 = each + 8 * P * P * d + P * name_bytes;
    if (o->raw)
        r0 += P * P * n * d * (o->mode == LENS_MODE_BCAST ? 2 : 1);
    if (o->retest > 0)
        r0 += (double)o->nlen * P * P * d; /* every length's medians, kept for the plan */
    m->rank0_bytes = r0;
}

long lens_bench_estimate_peak_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}
