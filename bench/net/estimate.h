/* How long an all-pairs run of mpilens-bench will take and how much memory a rank holds
 * (--estimate, --estimate-only): a model fed by a short calibration, so a user can size a
 * Slurm time limit before measuring. The model (estimate.c) is serial code, unit-tested
 * without MPI (tests/test_bench_estimate_model.c); the calibration (estimate_run.c) is MPI.
 * The formulas are in docs/bench.md, "Estimating a run". */
#ifndef LENS_BENCH_ESTIMATE_H
#define LENS_BENCH_ESTIMATE_H

#include "opts.h"
#include "common/err.h"

/* What the model needs: the sweep and the calibrated costs. Times in seconds, sizes in bytes. */
struct lens_bench_estimate_in {
    int procs;            /* P, ranks in the job, >= 2 */
    int nlen;             /* lengths of the sweep, >= 1 */
    long measurements;    /* measurements per length: P(P-1) ordered pairs, P(P-1)/2 for the
                             symmetric modes (one exchange measures both cells) */
    int retest;           /* K of --retest under the parallel schedule (0: none) */
    /* The calibration, at the first and the last length of the sweep (equal when nlen = 1):
     * one measurement alone (serial schedule, warm-up and repeats included) and one round of
     * the parallel schedule (both directions of its P/2 pairs and the closing barrier); a
     * round cost <= 0 means the mode cannot run in parallel and only serial is modelled. */
    double pair_first_s, pair_last_s;
    double round_first_s, round_last_s;
    /* The output step of one length on the run's path (every rank's rows through PnetCDF, or
     * rank 0 writing the four P x P matrices and the raw repeats with --raw), the median of
     * three steps on a scratch cube; 0 when it could not be priced. Both schedules write each
     * length once. */
    double output_s;
};

struct lens_bench_estimate {
    int rounds;           /* rounds of the parallel schedule per length: P-1 even, P odd */
    double serial_s;      /* measuring the whole sweep one pair at a time */
    double parallel_s;    /* measuring it round by round (0 when not modelled) */
    double retest_s;      /* the parallel run's retests: (K + 1) cells alone per length */
    double output_s;      /* writing the sweep: nlen x the output step, either schedule */
};

/* Rounds of the circle-method tournament of P ranks (schedule.h): P - 1 for even P, P for
 * odd P (an empty seat gives each rank one bye). 0 for P < 2. */
int lens_bench_estimate_rounds(int procs);

/* The time model. Message cost is affine in the length (alpha + l / beta) and the lengths
 * of a sweep are evenly spaced, so the sum over the nlen lengths of a cost calibrated at
 * both ends is exactly nlen x (first + last) / 2:
 *   serial   = measurements x nlen x (pair_first + pair_last) / 2
 *   parallel = rounds(P) x nlen x (round_first + round_last) / 2
 *   retest   = (K + 1) x nlen x (pair_first + pair_last) / 2   (K worst + the control;
 *              cells flagged beyond the K worst add one pair cost each)
 *   output   = nlen x output step (either schedule; 0 if output_s is 0)
 * Returns LENS_OK, or LENS_EINVAL (procs < 2, nlen < 1, a pair cost not finite or <= 0, a
 * round cost or the output step not finite or < 0) with the field named in e. */
int lens_bench_estimate_time(const struct lens_bench_estimate_in *in, struct lens_bench_estimate *out,
                             struct lens_err *e);

/* Bytes mpilens-bench itself allocates, per rank (the MPI library's own memory, which grows
 * with P on most transports, comes on top). */
struct lens_bench_estimate_mem {
    double rank0_bytes;   /* rank 0: its buffers plus the gathered P x P matrices */
    double other_bytes;   /* every other rank */
};

/* The memory model of an all-pairs run with options o on procs ranks. req_bytes is
 * sizeof(MPI_Request), name_bytes MPI_MAX_PROCESSOR_NAME (the host gather). Every rank:
 * two message buffers of the largest length, samples and sorting space of one cell
 * (repeats doubles each), 4P doubles of statistics and 4P of the gather message, 2 max(P,
 * -m) requests, 2P ints of pair lists (and 3P + 2 of tournament under parallel), P x
 * repeats doubles more with --raw, P message buffers and P cells' samples more for
 * all_to_all, two noise buffers in the noise modes, the RMA window for put and get. Rank 0 adds 8 P^2
 * doubles (the gathered block and the four matrices), P x P x repeats doubles with --raw
 * (twice for bcast), nlen x P^2 doubles of medians with --retest, and P host names. */
void lens_bench_estimate_memory(const struct lens_bench_opts *o, int procs, double req_bytes,
                                double name_bytes, struct lens_bench_estimate_mem *m);

/* The calibration (collective, MPI; estimate_run.c): measures a few cells alone and a few
 * parallel rounds (the mean of 3 cells walked in the serial order, the median of 3 rounds)
 * at the first and the last length of o's sweep, and writes three lengths of a scratch cube
 * (removed again) in the output's folder; fills in (procs, nlen, measurements, retest,
 * the four costs and the output step) on every rank and returns the seconds the
 * calibration took. peak_kb receives rank 0's and the other ranks' largest VmHWM (kB, -1 if
 * unknown) after the calibration's buffers were allocated, on rank 0. Returns LENS_OK, or
 * LENS_EUSAGE for a mode it cannot model (all_to_all, bcast, p2p, bisection; opts.c refuses
 * those first); running out of memory on any rank ends the job (lens_bench_fatal). */
int lens_bench_estimate_calibrate(const struct lens_bench_opts *o, struct lens_bench_estimate_in *in,
                                  double *seconds, long peak_kb[2], struct lens_err *e);

/* This process's peak resident set in kB (VmHWM of /proc/self/status), -1 if unknown. VmHWM,
 * not VmRSS: the peak is what a job's memory limit is checked against. The estimate's memory
 * line and `--timing`'s output step both read it. */
long lens_bench_estimate_peak_kb(void);

#endif
