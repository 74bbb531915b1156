/* mpilens-bench: the MPI collector. A drop-in replacement for network_test2 (same options,
 * same four-file NetCDF layout) with its defects fixed, plus the point-to-point sweep
 * (-t p2p). Options are checked identically on every rank, so bad usage ends the job
 * collectively with a message from rank 0; errors during the run go through MPI_Abort. */
#include "allpairs.h"
#include "bisect_run.h"
#include "bisection.h"
#include "estimate.h"
#include "retest.h"
#include "job.h"
#include "mode.h"
#include "opts.h"
#include "p2p.h"
#include "analysis/cube/cube.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Prints "  name: text" wrapped at 90 columns, continuation lines indented by 4. */
/* The mode definitions are long single strings (they are file attributes): wrapped here for
 * the terminal only. */
static void print_wrapped(const char *name, const char *text)
{
    int col = printf("  %s:", name);
    while (*text) {
        size_t w = strcspn(text, " ");
        if (col + 1 + (int)w > 90) { /* 90 columns: the help fits a default terminal */
            printf("\n   ");
            col = 3;
        }
        col += printf(" %.*s", (int)w, text);
        text += w;
        text += strspn(text, " ");
    }
    printf("\n");
}

/* The help is the reference for what each mode stores: the definitions are the same strings the
 * files carry (lens_bench_mode_definition), so help and files cannot disagree. */
static void help(void)
{
    printf(
        "usage: mpirun -np N mpilens-bench [options]\n\n"
        "Measures the delay between every ordered pair of MPI processes for a sweep of message\n"
        "lengths and writes PREFIX_{average,median,deviation,min}.nc and PREFIX_hosts.txt in\n"
        "network_test2's layout (read them with `mpilens info PREFIX`). network_test2's options\n"
        "work unchanged; N must be at least 2.\n\n"
        "options (network_test2's):\n"
        "  -t, --type MODE                  one_to_one (default), all_to_all, async_one_to_one,\n"
        "                                   send_recv_and_recv_send, noise, noise_blocking, bcast,\n"
        "                                   put, get; or p2p (the point-to-point sweep below),\n"
        "                                   or bisection (bisection bandwidth, below)\n"
        "  -f, --file PREFIX                output prefix (default network)\n"
        "  -b, --begin BYTES                first message length (default 0)\n"
        "  -e, --end BYTES                  end of the lengths, exclusive (default 1000000)\n"
        "  -s, --step BYTES                 length step (default 100); bisection: message size\n"
        "  -n, --num_iterations N           timed repeats per pair and length (default 100)\n"
        "  -l, --length_noise_message BYTES noise message length (default 0)\n"
        "  -m, --num_noise_message N        noise messages per repeat (default 1)\n"
        "  -p, --procs_noise N              noise processes, used in pairs (default 0)\n"
        "  -h, --help                       show this help\n"
        "  -v, --version                    show the version and the MPI library\n\n"
        "options (mpilens-bench's):\n"
        "      --warmup N      untimed repeats per pair and length before the timed ones\n"
        "                      (default n/10, between 2 and 10)\n"
        "      --raw           also write every timed repeat to PREFIX_all.nc\n"
        "      --force         overwrite an existing result (it is never overwritten otherwise)\n"
        "      --progress      draw the progress line in place even when stderr is not a terminal\n"
        "      --timing        per length, print the seconds spent measuring, gathering to rank 0\n"
        "                      and writing, and the peak resident memory (adds a barrier)\n"
        "      --schedule serial|parallel\n"
        "                      serial (default, network_test2's order): one pair at a time;\n"
        "                      parallel: a round-robin tournament, N-1 rounds for even N, N for\n"
        "                      odd N (one rank sits out each round), the disjoint pairs of a\n"
        "                      round measured at the same time, both directions. Same files,\n"
        "                      with attributes schedule, rounds and shuffle_seed, plus the\n"
        "                      retests (--retest, default 3). Modes\n"
        "                      one_to_one, send_recv_and_recv_send, async_one_to_one, put, get;\n"
        "                      refused: noise, noise_blocking (their noise ranks would be busy\n"
        "                      in pairs), all_to_all, bcast (one collective, no pairs), p2p.\n"
        "                      Pairs measured together share the node and the network, so the\n"
        "                      delays include that contention\n"
        "      --shuffle SEED  parallel: relabel the ranks' seats and reorder the rounds from\n"
        "                      SEED (unsigned 64-bit), the same schedule for every length;\n"
        "                      bisection: the seed of the random splits and matchings\n"
        "      --retest K      after the sweep, measure again alone the K worst cells of every\n"
        "                      length and every cell whose robust z (as mpilens anomalies:\n"
        "                      log delay, median and MAD over the length's cells) is >= 5;\n"
        "                      writes PREFIX_retest.csv. Default 3 with --schedule parallel,\n"
        "                      0 (off) with serial; pair modes only\n"
        "      --estimate      before measuring, calibrate (a few cells alone and a few\n"
        "                      parallel rounds at the first and last length, one length\n"
        "                      written to a scratch cube) and print the expected time of\n"
        "                      both schedules and the memory per rank; after\n"
        "                      the run, the measured time beside it. Pair modes only\n"
        "      --estimate-only the same, then exit without measuring or writing anything\n"
        "                      (the scratch cube is removed)\n"
        "  -r, --rounds R      bisection: rounds (default %d)\n"
        "      --pair A,B      p2p: the two ranks (default 0,1)\n"
        "      --pairs per-node  p2p: one pair inside a node and one across each pair of nodes\n\n"
        "What is fixed against network_test2:\n"
        "  - warm-up repeats run before the timed ones, and every buffer is written before\n"
        "    timing, so no first-touch page fault or connection set-up is measured;\n"
        "  - the diagonal (a rank against itself) is 0 in every statistic, never garbage;\n"
        "  - average, median, deviation and min are all computed over the same per-repeat delay\n"
        "    (send_recv_and_recv_send: half the round trip in all four);\n"
        "  - median of an even count is the mean of the two middle values; deviation is the\n"
        "    population standard deviation (divide by N), as network_test2's;\n"
        "  - the delay each mode stores and which index is the sender are written into every\n"
        "    file (attributes delay_definition, sender_index), with the tool and MPI library\n"
        "    versions, the date and the command line;\n"
        "  - an unknown mode, a single process or a bad length range is an error;\n"
        "  - rank 0 writes and syncs each length as soon as it is measured, so an interrupted\n"
        "    run leaves files holding the lengths done.\n\n"
        "What each mode stores (row i, column j of matrix l):\n", LENS_BENCH_BISECTION_ROUNDS);
    for (int m = LENS_MODE_ONE_TO_ONE; m <= LENS_MODE_GET; m++) /* every all-pairs mode, in enum order */
        print_wrapped(lens_cube_mode_name(m), lens_bench_mode_definition(m));
    printf(
        "\np2p: ranks A and B, sizes 0, 1, 2, 4, ... 4 MiB (or below -e). Latency = T/2c for\n"
        "iterations of c ping-pong round trips with the same size both ways (c = %d up to 8 KiB,\n"
        "1 above); bandwidth = k*s/T and message rate = k/T for a window of k = %d messages of\n"
        "s bytes answered by an empty reply. Latency: -n iterations (default %d, OSU's 10000\n"
        "and 1000 round trips); bandwidth: n/10 windows up to 8 KiB, n/50 above; warm-up a\n"
        "tenth of each; page-aligned buffers. Writes PREFIX_p2p.csv and PREFIX_p2p.nc\n"
        "with the mean and min/median/max over the iterations, and every iteration's time in\n"
        "the .nc file. The median resists preemption stalls on a busy machine.\n\n"
        "bisection: each round a random split of the ranks into halves and a random matching\n"
        "across it (seed: --shuffle SEED, else %d); every pair exchanges a window of %d\n"
        "messages of -s bytes (default 16MiB; 64KiB and the like accepted) both ways at once.\n"
        "Writes PREFIX_bisection.csv (per round: pairs, bytes, seconds, aggregate and slowest\n"
        "pair bandwidth) and PREFIX_bisection.nc (also every flow and, when ranks share nodes,\n"
        "every node). An odd rank count leaves one rank out of each round.\n\n"
        "examples:\n"
        "  mpirun -np 4 mpilens-bench -t one_to_one -n 20 -b 0 -e 4097 -s 1024 -f out/demo/network\n"
        "  mpilens info out/demo/network\n"
        "  mpirun -np 2 mpilens-bench -t p2p -f out/demo/pair\n"
        "  mpirun -np 4 mpilens-bench -t bisection -r 5 -s 1MiB -f out/demo/bis\n",
        LENS_BENCH_P2P_BATCH, LENS_BENCH_P2P_WINDOW, LENS_BENCH_P2P_ITERS,
        LENS_BENCH_BISECTION_SEED, LENS_BENCH_P2P_WINDOW);
}

/* The progress line: in place on a terminal (or with --progress), else one line per length. */
struct progress_how {
    int inplace; /* redraw one line (terminal or --progress) */
    int timing;  /* --timing: one line per length with the phases */
};

/* Progress goes to stderr, so stdout stays clean for --help and --version output; rank 0 alone
 * calls this, so there is one line per length, not P. */
static void show_progress(void *arg, const struct lens_bench_progress *p)
{
    const struct progress_how *how = arg;
    if (how->timing) {
        fprintf(stderr, "mpilens-bench: timing length %d B (%d/%d): measure %.6f s, gather %.6f s, "
                "write %.6f s; peak RSS rank 0 %ld kB, other ranks max %ld kB; output step +%ld kB\n", p->len, p->k,
                p->nlen, p->measure_s, p->gather_s, p->write_s, p->rss0_kb, p->rss_kb, p->out_kb);
    }
    if (how->inplace) { /* \r and erase-to-end redraw one line on a terminal */
        fprintf(stderr, "\rmpilens-bench: length %d B (%d/%d), pairs %ld/%ld, %.1f s, %.1f s left\033[K%s",
                p->len, p->k, p->nlen, p->pairs_done, p->pairs_total, p->elapsed, p->remaining,
                p->k == p->nlen ? "\n" : "");
    } else {
        fprintf(stderr, "mpilens-bench: length %d B done (%d/%d), pairs %ld/%ld, %.1f s elapsed, "
                "%.1f s left\n", p->len, p->k, p->nlen, p->pairs_done, p->pairs_total, p->elapsed,
                p->remaining);
    }
    fflush(stderr);
}

/* The p2p sweep's lines, flushed one by one so a log shows each pair as it finishes. */
static void say(void *arg, const char *line)
{
    (void)arg;
    fprintf(stderr, "mpilens-bench: %s\n", line);
    fflush(stderr);
}

/* A duration for a person sizing a time limit: seconds, and hours or days once it is long. */
static const char *fmt_time(double s, char *buf, size_t n)
{
    if (s < 100)
        snprintf(buf, n, "%.3g s", s);
    else if (s < 2 * 86400)
        snprintf(buf, n, "%.0f s (%.1f h)", s, s / 3600);
    else
        snprintf(buf, n, "%.3g s (%.1f days)", s, s / 86400);
    return buf;
}

/* Bytes in decimal units (MB = 10^6 bytes), kB to TB: the model spans 2 to 10^6 ranks. */
static const char *fmt_bytes(double v, char *buf, size_t n)
{
    if (v < 1e6)
        snprintf(buf, n, "%.0f kB", v / 1e3);
    else if (v < 1e9)
        snprintf(buf, n, "%.1f MB", v / 1e6);
    else if (v < 1e12)
        snprintf(buf, n, "%.2f GB", v / 1e9);
    else
        snprintf(buf, n, "%.2f TB", v / 1e12);
    return buf;
}

/* The estimate, on stdout (the answer of --estimate-only; progress stays on stderr). What
 * is still to be allocated after the calibration (rank 0's matrices, the gather message) is
 * added to the resident peak measured then, so the MPI library's own memory is counted. */
static void print_estimate(const struct lens_bench_opts *o, const struct lens_bench_estimate_in *in,
                           const struct lens_bench_estimate *est, double cal_s, const long peak_kb[2])
{
    char a[64], b[64], c[64];
    int last = o->begin + (o->nlen - 1) * o->step, par = o->schedule == LENS_BENCH_SCHEDULE_PARALLEL;
    printf("mpilens-bench: estimate for %s on %d ranks, %d lengths (%d to %d B), %d repeats + %d warm-up\n",
           lens_cube_mode_name(o->mode), in->procs, in->nlen, o->begin, last, o->repeats, o->warmup);
    printf("  calibration: %.2f s; one pair alone %.3g s at %d B, %.3g s at %d B", cal_s,
           in->pair_first_s, o->begin, in->pair_last_s, last);
    if (est->parallel_s > 0)
        printf("; one round %.3g s at %d B, %.3g s at %d B", in->round_first_s, o->begin, in->round_last_s, last);
    printf("\n");
    double ser = est->serial_s + (!par && o->retest > 0 ? est->retest_s : 0);
    printf("  serial:      %ld pairs per length, %.0f in all: %s", in->measurements,
           (double)in->measurements * in->nlen, fmt_time(ser, a, sizeof a));
    if (!par && o->retest > 0)
        printf(" (retests %s)", fmt_time(est->retest_s, b, sizeof b));
    printf("\n");
    if (est->parallel_s > 0)
        printf("  parallel:    %d rounds per length, %.0f in all: %s + retests (%d and a control per "
               "length) %s = %s\n", est->rounds, (double)est->rounds * in->nlen,
               fmt_time(est->parallel_s, a, sizeof a), in->retest, fmt_time(est->retest_s, b, sizeof b),
               fmt_time(est->parallel_s + est->retest_s, c, sizeof c));
    else
        printf("  parallel:    not possible in mode %s\n", lens_cube_mode_name(o->mode));
    if (in->output_s > 0)
        printf("  output:      one length written and synced %s, %d lengths: %s (either schedule)\n",
               fmt_time(in->output_s, a, sizeof a), in->nlen, fmt_time(est->output_s, b, sizeof b));
    else
        printf("  output:      not priced (a scratch cube could not be written beside the output)\n");
    printf("  this run:    %s, about %s\n", par ? "parallel" : "serial",
           fmt_time((par ? est->parallel_s + est->retest_s : ser) + est->output_s, a, sizeof a));
    /* sizeof(MPI_Request) differs between MPIs (a pointer in Open MPI, an int in MPICH) */
    struct lens_bench_estimate_mem m;
    lens_bench_estimate_memory(o, in->procs, sizeof(MPI_Request), MPI_MAX_PROCESSOR_NAME, &m);
    double later0 = m.rank0_bytes - m.other_bytes;
    char u[7][32]; /* one buffer per figure: all are formatted before printf reads them */
    if (peak_kb[0] >= 0 && peak_kb[1] >= 0)
        printf("  memory:      peak per rank about %s on rank 0, %s on the others (resident after "
               "the calibration %s and %s, plus rank 0's matrices %s); mpilens-bench's own "
               "buffers: rank 0 %s, others %s\n", fmt_bytes(peak_kb[0] * 1024.0 + later0, u[0], 32),
               fmt_bytes(peak_kb[1] * 1024.0, u[1], 32), fmt_bytes(peak_kb[0] * 1024.0, u[2], 32),
               fmt_bytes(peak_kb[1] * 1024.0, u[3], 32), fmt_bytes(later0, u[4], 32),
               fmt_bytes(m.rank0_bytes, u[5], 32), fmt_bytes(m.other_bytes, u[6], 32));
    else
        printf("  memory:      mpilens-bench's own buffers: rank 0 %s, others %s (the MPI library's "
               "memory comes on top)\n", fmt_bytes(m.rank0_bytes, a, sizeof a),
               fmt_bytes(m.other_bytes, b, sizeof b));
    fflush(stdout);
}

/* Rank 0 decides whether the output may be written; every rank learns the verdict. */
/* Only rank 0 looks at the disk (ranks may see different file systems); the broadcast makes
 * every rank take the same decision, so a refusal ends the job cleanly on all of them. */
static int check_output(const struct lens_bench_opts *o, int rank, struct lens_err *e)
{
    int exists = 0;
    if (rank == 0)
        exists = o->mode == LENS_MODE_P2P ? lens_bench_p2p_exists(o->prefix)
                 : o->mode == LENS_BENCH_MODE_BISECTION ? lens_bench_bisect_run_exists(o->prefix)
                 : lens_cube_exists(o->prefix);
    MPI_Bcast(&exists, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (exists && !o->force)
        return lens_err_set(e, LENS_EIO, "%s: a result with this prefix exists; use --force to "
                            "overwrite it", o->prefix);
    return LENS_OK;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv); /* before parsing: an MPI may strip its own arguments */
    int rank, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    struct lens_bench_opts o;
    struct lens_err e;
    lens_err_clear(&e); /* an empty message if nothing fails */
    /* Every rank parses and checks the same argv, so a usage error is found everywhere at once:
     * all ranks skip the run and reach MPI_Finalize, and only rank 0 prints the message. */
    int rc = lens_bench_opts_parse(&o, argc, argv, &e);
    if (rc == LENS_OK && (o.help || o.version)) {
        if (rank == 0 && o.help) /* help and version need no other rank and no MPI traffic */
            help();
        if (rank == 0 && o.version) {
            char v[256];
            lens_bench_job_mpi_version(v, sizeof v);
            printf("mpilens-bench %s (%s)\n", LENS_VERSION, v);
        }
    } else {
        if (rc == LENS_OK)
            rc = lens_bench_opts_check(&o, procs, &e);
        /* --estimate-only writes nothing, so an existing result does not stop it */
        if (rc == LENS_OK && o.estimate != 2)
            rc = check_output(&o, rank, &e);
        struct lens_bench_estimate est = {0, 0, 0, 0, 0};
        if (rc == LENS_OK && o.estimate) {
            struct lens_bench_estimate_in in;
            double cal_s;
            long peak[2];
            /* the calibration is collective and its numbers are broadcast: every rank agrees */
            rc = lens_bench_estimate_calibrate(&o, &in, &cal_s, peak, &e);
            if (rc == LENS_OK)
                rc = lens_bench_estimate_time(&in, &est, &e);
            if (rc == LENS_OK && rank == 0)
                print_estimate(&o, &in, &est, cal_s, peak);
        }
        if (rc == LENS_OK && o.estimate != 2) {
            /* in place on a terminal, lines in a log */
            struct progress_how how = {o.progress || isatty(STDERR_FILENO), o.timing};
            double t0 = MPI_Wtime();
            if (o.mode == LENS_MODE_P2P)
                lens_bench_p2p_run(&o, say, NULL);
            else if (o.mode == LENS_BENCH_MODE_BISECTION)
                lens_bench_bisect_run(&o, say, NULL);
            else
                lens_bench_allpairs_run(&o, show_progress, &how);
            if (o.estimate && rank == 0) {
                /* the whole run (buffers, sweep, writes, retests) against what was promised */
                double took = MPI_Wtime() - t0, want = est.output_s +
                                                       (o.schedule == LENS_BENCH_SCHEDULE_PARALLEL
                                                            ? est.parallel_s + est.retest_s
                                                            : est.serial_s + (o.retest > 0 ? est.retest_s : 0));
                char a[64], b[64];
                printf("  measured:    %s for the run (estimate %s, %.2fx)\n", fmt_time(took, a, sizeof a),
                       fmt_time(want, b, sizeof b), took / want);
                fflush(stdout);
            }
        } else if (rc != LENS_OK && rank == 0) {
            fprintf(stderr, "mpilens-bench: %s%s\n", e.msg, /* one message, from rank 0 only */
                    rc == LENS_EUSAGE ? " (try mpilens-bench --help)" : "");
        }
    }
    lens_bench_opts_release(&o);
    /* Finalize before the exit status is decided: every rank gets here on the usage-error path
     * too, which is what lets mpirun report the status instead of a killed job. */
    MPI_Finalize();
    /* A full disk or closed pipe under --help > file shows only when stdout is flushed: report it. */
    if (rank == 0 && fclose(stdout) != 0 && rc == LENS_OK)
        rc = LENS_EIO;
    return rc == LENS_OK ? 0 : rc == LENS_EUSAGE ? 2 : 1; /* 2 for bad usage, 1 for a failed run */
}
