/* mpilens msgsizes: the message-size profile (docs/methods.md §5.2) of an OTF2 trace or of a
 * profiler's `count : size` file: point-to-point messages per size bin with their share of the
 * messages, of the volume and of the send time, as a table, JSON, CSV and a pie chart. */
#include "cli.h"
#include "common/atomic.h"

#include "analysis/trace/trace.h"
#include "analysis/cube/cube.h"
#include "render/fig/fig.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

LENS_COMMAND(msgsizes, "message-size profile of an OTF2 trace or count : size file, per size bin");

static void help(void)
{
    printf("usage: mpilens msgsizes [options] TRACE|PROFILE\n\n"
           "TRACE is a traces.otf2 anchor file or the folder holding it (ours or Score-P's).\n"
           "PROFILE is any other plain file of 'COUNT : SIZE' lines (messages : bytes, '#'\n"
           "comments and blank lines allowed), as the LuNA profiler writes.\n"
           "Counts the point-to-point messages (Send, Isend, Sendrecv, ...) per size bin and\n"
           "prints each bin's messages, share of messages, bytes, share of volume and share of\n"
           "the time in the send calls (%% call); with --p2p also the share of the send time\n"
           "from a measured sweep (%% time). Collectives and one-sided transfers are\n"
           "counted aside, not as messages.\n\n"
           "options:\n"
           "  --bins LIST     lower bin edges in bytes, increasing, k/M/G = 1024^1..3\n"
           "                  (default 0,1,64,1k,4k,64k,1M; 0 is added when missing),\n"
           "                  or 'pow2' for power-of-two bins (empty ones left out)\n"
           "  --p2p PREFIX    model the send time with `mpilens-bench -t p2p` results:\n"
           "                  PREFIX_p2p.nc or .csv, or one such file\n"
           "  --pair WHICH    pair of the p2p file: index, intra, inter or label (default 0)\n"
           "  --time-model M  with --p2p: 'rate' (default) sends count messages in\n"
           "                  count / message rate; 'latency' uses the median latency\n"
           "  --json          JSON instead of the table\n"
           "  --csv FILE      also write the bins as CSV\n"
           "  --plot FILE     also draw pies and the table (FILE.png or FILE.svg)\n"
           "  -o, --output F  write the table/JSON to F (atomically) instead of standard output\n"
           "  -h, --help      this help\n\n"
           "example:\n"
           "  mpilens trace -o run -- mpirun -np 4 ./app\n"
           "  mpilens msgsizes run --bins 0,64,4k,64k --plot sizes.png\n"
           "  mpilens msgsizes run/traces.otf2 --p2p out/pair --json\n"
           "  mpilens msgsizes samples/profiles/luna_sizes.txt --p2p out/pair\n");
}

/* Writes the bins as CSV into path atomically. */
static int write_csv(const char *path, const struct lens_msgsize *m, struct lens_err *e)
{
    struct lens_atomic a = {0};
    int rc = lens_atomic_open(&a, path, "w", e);
    if (rc)
        return rc;
    /* a stream error (disk full) makes the CSV fail as a whole, never a truncated file */
    if (lens_msgsize_write_csv(m, a.fp)) {
        lens_err_set(e, LENS_EIO, "%s: write error", path);
        return lens_atomic_fail(&a, LENS_EIO, e); /* the system's reason when there is one */
    }
    return lens_atomic_commit(&a, e);
}

/* The modelled time of one message: the p2p sweep's one-way latency interpolated at bytes. */
static int p2p_time(void *ctx, uint64_t bytes, double *seconds, struct lens_err *e)
{
    const struct lens_p2p_pair *p = ctx;
    /* NaN (a pair without points), a negative or an infinite time means the sweep cannot
     * answer for this size: an error naming the pair, never a silent zero. */
    *seconds = lens_p2pfile_send_time(p, (double)bytes);
    if (!(*seconds >= 0.0) || isinf(*seconds))
        return lens_err_set(e, LENS_EDATA, "p2p pair '%s': no send time for %llu bytes", p->label,
                            (unsigned long long)bytes);
    return LENS_OK;
}

/* The measured time of one message from the sweep's message rate, as the LuNA thesis
 * specifies (docs/methods.md 5.2): count_n messages of size_n take count_n / M(size_n), so one
 * message takes 1 / M. Between measured sizes 1 / M is interpolated linearly in bytes (exact
 * at the sweep's sizes); below the smallest it is that size's; above the largest s_L the
 * transfer is bandwidth-bound, so it grows in proportion, s / (s_L M(s_L)) = s / B(s_L). */
static int rate_time(void *ctx, uint64_t bytes, double *seconds, struct lens_err *e)
{
    const struct lens_p2p_pair *p = ctx;
    double s = (double)bytes;
    if (p->nsize < 1)
        return lens_err_set(e, LENS_EDATA, "p2p pair '%s': no sizes", p->label);
    /* linear search: sweeps hold some twenty sizes and this runs once per distinct size */
    int hi = 0;
    while (hi < p->nsize && (double)p->pt[hi].size_bytes < s)
        hi++;
    /* lo, top: the measured sizes used; equal above the sweep, below it or on a size */
    int lo = hi, top = hi;
    if (hi == p->nsize)
        lo = top = hi - 1;
    else if (hi > 0 && (double)p->pt[hi].size_bytes > s)
        lo = hi - 1;
    /* only the points used must have a rate: a NaN elsewhere does not matter */
    for (int k = lo; k <= top; k++) {
        double r = p->pt[k].msg_rate_median_per_s;
        if (!(r > 0.0) || isinf(r))
            return lens_err_set(e, LENS_EDATA, "p2p pair '%s': no message rate at %lld bytes "
                                "(median %g/s)", p->label, p->pt[k].size_bytes, r);
    }
    const struct lens_p2p_point *a = &p->pt[lo], *b = &p->pt[top];
    if (lo == top) {
        double t = 1.0 / a->msg_rate_median_per_s;
        /* above the sweep: proportional to size (a 0-byte last point cannot scale) */
        if (s > (double)a->size_bytes && a->size_bytes > 0)
            t *= s / (double)a->size_bytes;
        *seconds = t;
        return LENS_OK;
    }
    /* interpolate the time per message, not the rate: time is what is summed per bin, and
     * 1/M is close to linear in bytes (alpha + s / beta) where M is not */
    double ta = 1.0 / a->msg_rate_median_per_s, tb = 1.0 / b->msg_rate_median_per_s;
    double f = (s - (double)a->size_bytes) / (double)(b->size_bytes - a->size_bytes);
    *seconds = ta + f * (tb - ta);
    return LENS_OK;
}

/* Reads the p2p results, picks the pair and sets the model (from the message rate, or with
 * use_latency from the latency curve); *desc says which and from where. */
static int set_model(struct lens_msgsize *m, const char *input, const char *which,
                     int use_latency, char *desc, size_t n, struct lens_err *e)
{
    struct lens_p2pfile *f = NULL;
    int rc = lens_p2pfile_read(input, &f, e);
    if (rc)
        return rc;
    /* which NULL is pair 0, the default; a name that matches no pair is an error from find */
    int k = lens_p2pfile_find(f, which, e);
    if (k < 0) {
        lens_p2pfile_free(f);
        return k;
    }
    /* copied out now: f and its labels are freed before the listing names the model */
    if (use_latency)
        snprintf(desc, n, "modelled send time from the median latency of %s (%s)", f->path,
                 f->pair[k].label);
    else
        snprintf(desc, n, "send time count / message rate from %s (%s)", f->path,
                 f->pair[k].label);
    /* applied now, while f lives: one time per distinct size, times its count, per bin */
    rc = lens_msgsize_model(m, use_latency ? p2p_time : rate_time, &f->pair[k], e);
    m->time_source = use_latency ? "latency" : "message_rate";
    lens_p2pfile_free(f);
    return rc;
}

/* The options as parsed; NULL (or 0) when not given. */
struct opts {
    const char *bins, *p2p, *pair, *csv, *plot, *output, *trace, *time_model;
    int json;
};

/* Computes the profile and writes every requested output; nothing is written on failure
 * of the analysis. */
static int run(const struct opts *o, struct lens_err *e)
{
    uint64_t *edges = NULL;
    size_t nedges = 0;
    int drop_empty = 0, rc = LENS_OK;
    /* The bins are checked before the trace is read (a bad list costs no reading); a list the
     * parser refuses (LENS_EINVAL) is the caller's mistake, so it becomes a usage error. */
    if (o->bins && (rc = lens_msgsize_parse_bins(o->bins, &edges, &nedges, &drop_empty, e)))
        return rc == LENS_EINVAL ? LENS_EUSAGE : rc;
    struct lens_msgsize *m = NULL;
    /* the trace is read once; binning and the model work on its message list */
    /* a plain file that is not an .otf2 anchor is a profiler's `count : size` listing */
    rc = lens_msgsize_is_profile(o->trace) ? lens_msgsize_read_profile(o->trace, &m, e)
                                           : lens_msgsize_read(o->trace, &m, e);
    if (rc == LENS_OK)
        rc = lens_msgsize_bin(m, edges, nedges, drop_empty, e);
    lens_free(edges);
    const char *model = NULL;
    /* room for a path of PATH_MAX and the pair's label */
    char desc[4096 + 256];
    if (rc == LENS_OK && o->p2p) {
        int lat = o->time_model && !strcmp(o->time_model, "latency");
        rc = set_model(m, o->p2p, o->pair, lat, desc, sizeof desc, e);
        model = desc;
    }
    /* Files first, the listing last: a failing file then leaves stdout empty rather than a
     * table that claims success; every file waits in the command's group (main.c). */
    if (rc == LENS_OK && o->csv)
        rc = write_csv(o->csv, m, e);
    if (rc == LENS_OK && o->plot) {
        /* the pies show the same bins as the listing: one profile, two views */
        struct lens_pie_msgsize pie;
        char title[256];
        snprintf(title, sizeof title, "message sizes: %s", o->trace);
        rc = lens_pie_msgsize_init(&pie, m, title, e);
        if (rc == LENS_OK)
            rc = lens_pie_write(&pie.chart, o->plot, 0, lens_cli_font(), e);
        lens_pie_msgsize_release(&pie);
    }
    if (rc == LENS_OK) {
        struct lens_atomic a = {0};
        FILE *fp = stdout;
        /* -o takes the listing off stdout through the atomic writer, like every other file */
        if (o->output && (rc = lens_atomic_open(&a, o->output, "w", e)) == LENS_OK)
            fp = a.fp;
        if (rc == LENS_OK) {
            int bad = o->json ? lens_msgsize_write_json(m, o->trace, model, fp)
                              : lens_msgsize_write_text(m, o->trace, model, fp);
            if (bad)
                rc = lens_err_set(e, LENS_EIO, "%s: write error", o->output ? o->output : "stdout");
            /* on a write error the temporary is removed, with the system's reason kept in e */
            if (bad && o->output)
                rc = lens_atomic_fail(&a, rc, e);
            else if (!bad && o->output)
                rc = lens_atomic_commit(&a, e);
        }
    }
    lens_msgsize_free(m);
    return rc;
}

int cmd_msgsizes(int argc, char **argv)
{
    static const struct option opts[] = {{"bins", required_argument, NULL, 'b'},
                                         {"p2p", required_argument, NULL, 'p'},
                                         {"pair", required_argument, NULL, 'P'},
                                         {"time-model", required_argument, NULL, 't'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"csv", required_argument, NULL, 'c'},
                                         {"plot", required_argument, NULL, 'g'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    struct opts o = {0};
    /* long options only, but for -o and -h */
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'b': o.bins = optarg; break;
        case 'p': o.p2p = optarg; break;
        case 'P': o.pair = optarg; break;
        case 't': o.time_model = optarg; break;
        case 'j': o.json = 1; break;
        case 'c': o.csv = optarg; break;
        case 'g': o.plot = optarg; break;
        case 'o': o.output = optarg; break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("msgsizes", "unknown option");
        }
    }
    if (optind != argc - 1)
        return lens_cli_usage("msgsizes", optind >= argc ? "missing TRACE or PROFILE"
                                                         : "one TRACE or PROFILE only");
    /* --pair picks from the sweep; without one it would be ignored silently */
    if (o.pair && !o.p2p)
        return lens_cli_usage("msgsizes", "--pair needs --p2p");
    if (o.time_model && !o.p2p)
        return lens_cli_usage("msgsizes", "--time-model needs --p2p");
    if (o.time_model && strcmp(o.time_model, "rate") && strcmp(o.time_model, "latency"))
        return lens_cli_usage("msgsizes", "--time-model is 'rate' or 'latency', not '%s'",
                              o.time_model);
    /* the picture's name is checked before the trace is read, which may take long */
    if (o.plot) {
        size_t n = strlen(o.plot);
        if (n < 5 || (strcmp(o.plot + n - 4, ".png") && strcmp(o.plot + n - 4, ".svg")))
            return lens_cli_usage("msgsizes", "--plot file must end in .png or .svg, not '%s'",
                                  o.plot);
    }
    o.trace = argv[optind];
    struct lens_err e = {0};
    int rc = run(&o, &e);
    /* a bad --bins list is reported as usage (status 2), with the parser's message */
    if (rc == LENS_EUSAGE)
        return lens_cli_usage("msgsizes", "%s", e.msg);
    if (rc)
        return lens_cli_fail(&e);
    return LENS_EXIT_OK;
}
