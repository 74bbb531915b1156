/* mpilens p2p: the point-to-point sweep of `mpilens-bench -t p2p` without the PDF: a table
 * per pair (size, latency, bandwidth, message rate), or JSON or CSV, the alpha-beta fit, the
 * interpolated send time of given sizes, and the three log-log figures as PNG and SVG. */
#include "cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cube/cube.h"
#include "common/json.h"
#include "common/units.h"
#include "render/fig/fig.h"

LENS_COMMAND(p2p, "tables and log-log plots of the point-to-point sweep (mpilens-bench -t p2p)");

/* --send-time sizes at most: a fixed array, and more would not fit a glance at the table */
#define MAX_SEND 64

static void help(void)
{
    printf("usage: mpilens p2p PREFIX|FILE [--pair WHICH] [--json | --csv] [--send-time BYTES[,BYTES...]]\n"
           "                  [--plot-dir DIR [--stem STEM] [--size WxH] [--font TTF]]\n\n"
           "Reads the point-to-point sweep written by `mpilens-bench -t p2p -f PREFIX`: PREFIX_p2p.nc\n"
           "(or PREFIX_p2p.csv when there is no .nc), or either file by name, with one or several\n"
           "pairs (--pairs per-node). Prints, for each pair, the median one-way latency and its\n"
           "minimum, the median bandwidth and message rate at each size, and the fit\n"
           "latency = alpha + size / beta (least squares on relative error).\n\n"
           "options:\n"
           "  -p, --pair WHICH        only this pair: its index, intra, inter, or its label\n"
           "      --json              one JSON object with every column instead of the table\n"
           "      --csv               CSV instead of the table: pair, kind, label, size_bytes and\n"
           "                          the 13 statistics of the input, full precision\n"
           "      --send-time LIST    the time to send messages of these sizes (bytes, comma\n"
           "                          separated), interpolated from the median latency\n"
           "  -o, --plot-dir DIR      write DIR/STEM_{latency,bandwidth,msg_rate}.{png,svg}\n"
           "      --stem STEM         file name start of the figures (default p2p)\n"
           "      --size WxH          figure size, pixels (PNG) and points (SVG); default 900x560\n"
           "      --font TTF          font of the figures (default DejaVu Sans of mpilens)\n"
           "  -h, --help              this text\n\n"
           "example:\n"
           "  mpirun -np 2 mpilens-bench -t p2p -f out/pair\n"
           "  mpilens p2p out/pair --plot-dir out/pair_plots --send-time 100,40000\n");
}

/* Prints s left- or right-aligned in width columns, counting UTF-8 code points. */
static void pad(const char *s, int width, int right)
{
    int cp = 0;
    /* count lead bytes only: the headers hold "µs", whose two bytes printf's width would
     * count as two columns */
    for (const char *c = s; *c; c++)
        cp += ((unsigned char)*c & 0xC0) != 0x80;
    if (right)
        printf("%*s%s", width > cp ? width - cp : 0, "", s);
    else
        printf("%s%*s", s, width > cp ? width - cp : 0, "");
}

/* The human table: one block per pair, the cells formatted by the figure module so that
 * table and plots round the same way, then the fit and the asked send times. */
static void print_table(const struct lens_p2pfile *f, int only, const double *send, int nsend)
{
    /* each header's width plus two spaces; the size column leaves room for "1.5 MiB" */
    static const int widths[LENS_P2PPLOT_NCOLS] = {10, 21, 18, 25, 22};
    printf("p2p sweep: %s (%d pair%s", f->path, f->npairs, f->npairs == 1 ? "" : "s");
    /* the bandwidth test's window (messages in flight), when the file records it */
    if (f->window > 0)
        printf(", window %d", f->window);
    printf(")\n");
    for (int p = 0; p < f->npairs; p++) {
        /* only -1 shows every pair */
        if (only >= 0 && p != only)
            continue;
        const struct lens_p2p_pair *q = &f->pair[p];
        /* p is the pair's index in the file, also under --pair, so that it can be passed back */
        printf("\npair %d: %s (%s)\n", p, q->label, q->inter ? "across nodes" : "within a node");
        for (int c = 0; c < LENS_P2PPLOT_NCOLS; c++)
            pad(lens_p2pplot_headers[c], widths[c], c > 0);
        printf("\n");
        for (int k = 0; k < q->nsize; k++) {
            char cells[LENS_P2PPLOT_NCOLS][32];
            lens_p2pplot_format_row(&q->pt[k], cells);
            for (int c = 0; c < LENS_P2PPLOT_NCOLS; c++)
                pad(cells[c], widths[c], c > 0);
            printf("\n");
        }
        double a, b;
        struct lens_err e;
        /* a pair whose fit fails (fewer than two sizes, a non-positive slope) is still listed:
         * the measured points stay valid, only the model is missing */
        char t[48], r[48];
        /* the PDFs' voice (common/units.h): µs chosen by magnitude, MB/s as the header says */
        if (lens_p2pfile_fit(q, &a, &b, &e) == LENS_OK) {
            lens_units_time(a, t, sizeof t);
            lens_units_num(b * 1e-6, LENS_UNITS_DIGITS, r, sizeof r);
            printf("fit: latency = %s + size / (%s MB/s)\n", t, r);
        } else
            printf("fit: none (%s)\n", e.msg);
        /* the send time interpolates the median latency between measured sizes and extends the
         * last segment beyond them (analysis/cube/p2pfile.h), the model msgsizes uses too */
        for (int i = 0; i < nsend; i++) {
            lens_units_time(lens_p2pfile_send_time(q, send[i]), t, sizeof t);
            printf("send time of %.15g B: %s\n", send[i], t);
        }
    }
}

/* One measured size as an object: the 13 statistics under the names and units of the CSV
 * columns, then the iteration counts that say how much each number rests on. */
static void json_point(struct lens_json *j, const struct lens_p2p_point *pt)
{
    const char *const names[13] = {"latency_s", "latency_min_s", "latency_median_s", "latency_max_s",
        "bandwidth_Bps", "bandwidth_min_Bps", "bandwidth_median_Bps", "bandwidth_max_Bps", "msg_rate_per_s",
        "msg_rate_min_per_s", "msg_rate_median_per_s", "msg_rate_max_per_s", "bw_time_s"};
    /* v[] in the order of names[]; print_csv's header lists the same 13 in the same order */
    const double v[13] = {pt->latency_s, pt->latency_min_s, pt->latency_median_s, pt->latency_max_s,
        pt->bandwidth_Bps, pt->bandwidth_min_Bps, pt->bandwidth_median_Bps, pt->bandwidth_max_Bps,
        pt->msg_rate_per_s, pt->msg_rate_min_per_s, pt->msg_rate_median_per_s, pt->msg_rate_max_per_s,
        pt->bw_time_s};
    lens_json_begin_object(j);
    lens_json_key(j, "size_bytes");
    lens_json_int(j, pt->size_bytes);
    /* a statistic the sweep lacks (NaN) comes out as null */
    for (int c = 0; c < 13; c++) {
        lens_json_key(j, names[c]);
        lens_json_number(j, v[c]);
    }
    /* integers kept apart from the 13 numbers: they are counts, not measurements */
    lens_json_key(j, "round_trips_per_iter");
    lens_json_int(j, pt->round_trips_per_iter);
    lens_json_key(j, "lat_iters");
    lens_json_int(j, pt->lat_iters);
    lens_json_key(j, "bw_iters");
    lens_json_int(j, pt->bw_iters);
    lens_json_end_object(j);
}

/* The whole sweep as one object: file, format, window, then per pair its identity, the fit
 * (null when there is none) and the send times, and its points. */
static void print_json(const struct lens_p2pfile *f, int only, const double *send, int nsend)
{
    struct lens_json j;
    lens_json_init(&j, stdout);
    lens_json_begin_object(&j);
    lens_json_key(&j, "file");
    lens_json_string(&j, f->path);
    lens_json_key(&j, "format");
    lens_json_string(&j, f->is_nc ? "netcdf" : "csv");
    lens_json_key(&j, "window");
    lens_json_int(&j, f->window);
    lens_json_key(&j, "pairs");
    lens_json_begin_array(&j);
    for (int p = 0; p < f->npairs; p++) {
        if (only >= 0 && p != only)
            continue;
        const struct lens_p2p_pair *q = &f->pair[p];
        lens_json_begin_object(&j);
        /* the file's index, as in the table: --pair filters, it does not renumber */
        lens_json_key(&j, "index");
        lens_json_int(&j, p);
        lens_json_key(&j, "label");
        lens_json_string(&j, q->label);
        lens_json_key(&j, "kind");
        lens_json_string(&j, q->kind);
        lens_json_key(&j, "inter");
        lens_json_bool(&j, q->inter);
        lens_json_key(&j, "rank_a");
        lens_json_int(&j, q->rank_a);
        lens_json_key(&j, "rank_b");
        lens_json_int(&j, q->rank_b);
        lens_json_key(&j, "host_a");
        lens_json_string(&j, q->host_a);
        lens_json_key(&j, "host_b");
        lens_json_string(&j, q->host_b);
        double a, b;
        /* alpha in seconds and beta in bytes/s: SI units in JSON, the table shows µs and MB/s */
        lens_json_key(&j, "fit");
        if (lens_p2pfile_fit(q, &a, &b, NULL) == LENS_OK) {
            lens_json_begin_object(&j);
            lens_json_key(&j, "alpha_s");
            lens_json_number(&j, a);
            lens_json_key(&j, "beta_Bps");
            lens_json_number(&j, b);
            lens_json_end_object(&j);
        } else {
            lens_json_null(&j);
        }
        lens_json_key(&j, "send_time");
        lens_json_begin_array(&j);
        for (int i = 0; i < nsend; i++) {
            lens_json_begin_object(&j);
            lens_json_key(&j, "bytes");
            lens_json_number(&j, send[i]);
            lens_json_key(&j, "seconds");
            lens_json_number(&j, lens_p2pfile_send_time(q, send[i]));
            lens_json_end_object(&j);
        }
        lens_json_end_array(&j);
        lens_json_key(&j, "points");
        lens_json_begin_array(&j);
        for (int k = 0; k < q->nsize; k++)
            json_point(&j, &q->pt[k]);
        lens_json_end_array(&j);
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    lens_json_end_object(&j);
    /* a final newline: the JSON writer ends at '}', and a shell prompt would follow it */
    fputc('\n', stdout);
}

/* A label may hold a comma only if a host name does; quote it then. */
static void csv_text(const char *s)
{
    /* the common case, a plain word, goes out as is so the CSV stays easy to read */
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, stdout);
        return;
    }
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s);
    }
    putchar('"');
}

/* CSV: one line per pair and size, %.17g so that a reader gets back every bit */
static void print_csv(const struct lens_p2pfile *f, int only)
{
    printf("pair,kind,label,size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,"
           "bandwidth_Bps,bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,"
           "msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s,bw_time_s\n");
    for (int p = 0; p < f->npairs; p++) {
        if (only >= 0 && p != only)
            continue;
        const struct lens_p2p_pair *q = &f->pair[p];
        for (int k = 0; k < q->nsize; k++) {
            const struct lens_p2p_point *pt = &q->pt[k];
            /* the header's order, as in json_point */
            const double v[13] = {pt->latency_s, pt->latency_min_s, pt->latency_median_s, pt->latency_max_s,
                pt->bandwidth_Bps, pt->bandwidth_min_Bps, pt->bandwidth_median_Bps, pt->bandwidth_max_Bps,
                pt->msg_rate_per_s, pt->msg_rate_min_per_s, pt->msg_rate_median_per_s, pt->msg_rate_max_per_s,
                pt->bw_time_s};
            /* kind and label may come from host names, hence quoted when needed */
            printf("%d,", p);
            csv_text(q->kind);
            putchar(',');
            csv_text(q->label);
            printf(",%lld", pt->size_bytes);
            for (int c = 0; c < 13; c++)
                printf(",%.17g", v[c]);
            putchar('\n');
        }
    }
}

/* "100,40000" into send[]; returns the count or -1. */
static int parse_sizes(const char *s, double *send)
{
    int n = 0;
    const char *c = s;
    while (*c) {
        char *end;
        double v = strtod(c, &end);
        /* each size a finite number >= 0, then a comma or the end; a trailing comma is refused
         * below, because it usually means a size was lost in a shell variable */
        if (end == c || !(v >= 0) || !isfinite(v) || n >= MAX_SEND || (*end && *end != ','))
            return -1;
        send[n++] = v;
        c = *end ? end + 1 : end;
        if (*end == ',' && !*c)
            return -1;
    }
    return n ? n : -1;
}

int cmd_p2p(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"pair", required_argument, NULL, 'p'},      {"json", no_argument, NULL, 'j'},
        {"csv", no_argument, NULL, 'c'},             {"send-time", required_argument, NULL, 't'},
        {"plot-dir", required_argument, NULL, 'o'},  {"stem", required_argument, NULL, 's'},
        {"size", required_argument, NULL, 'z'},      {"font", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0},
    };
    /* Defaults: every pair, the table on stdout, no figures; stem "p2p" gives p2p_latency.png
     * and so on; the figure size (900x560) is the module's, as in the report. */
    const char *which = NULL, *plot_dir = NULL, *stem = "p2p", *font = NULL;
    int json = 0, csv = 0, nsend = 0, c;
    double send[MAX_SEND];
    struct lens_p2pplot_opts po;
    lens_p2pplot_opts_init(&po);
    optind = 1;
    /* our messages name the command instead of getopt's program name */
    opterr = 0;
    while ((c = getopt_long(argc, argv, "p:o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            which = optarg;
            break;
        case 'j':
            json = 1;
            break;
        case 'c':
            csv = 1;
            break;
        case 't':
            if ((nsend = parse_sizes(optarg, send)) < 0)
                return lens_cli_usage("p2p", "--send-time wants sizes in bytes >= 0 separated by commas "
                                      "(at most %d), got '%s'", MAX_SEND, optarg);
            break;
        case 'o':
            plot_dir = optarg;
            break;
        case 's':
            /* a stem is a file name start: a '/' would write outside --plot-dir */
            if (!*optarg || strchr(optarg, '/'))
                return lens_cli_usage("p2p", "--stem wants a file name start without '/', got '%s'", optarg);
            stem = optarg;
            break;
        case 'z': {
            char *end, *end2;
            /* below 100x80 the axis labels no longer fit; 16384 keeps a PNG's memory (w x h x 4
             * bytes, 1 GiB at most) within reach */
            /* "WxH": end2 is read only when an 'x' followed W, so it is never used unset */
            long w = strtol(optarg, &end, 10), h = *end == 'x' ? strtol(end + 1, &end2, 10) : 0;
            if (*end != 'x' || *end2 || w < 100 || h < 80 || w > 16384 || h > 16384)
                return lens_cli_usage("p2p", "--size wants WxH within 100x80 .. 16384x16384, got '%s'", optarg);
            po.width = (int)w;
            po.height = (int)h;
            break;
        }
        case 'f':
            font = optarg;
            break;
        case 'h':
            help();
            return LENS_EXIT_OK;
        case '?':
        default:
            /* getopt returns '?' both for an unknown option and for -p/-o without argument */
            if (optopt && strchr("po", optopt))
                return lens_cli_usage("p2p", "option '-%c' needs an argument", optopt);
            return lens_cli_usage("p2p", "unknown option '%s'", argv[optind - 1]);
        }
    }
    /* Conflicting formats are usage errors (status 2), checked before reading anything. */
    if (json && csv)
        return lens_cli_usage("p2p", "--json and --csv exclude each other");
    /* the CSV has one fixed column set per point: send times would need another table */
    if (csv && nsend)
        return lens_cli_usage("p2p", "--send-time goes with the table or --json, not --csv");
    if (optind != argc - 1)
        return lens_cli_usage("p2p", optind == argc ? "missing PREFIX or FILE" : "more than one PREFIX or FILE");
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_p2pfile *f = NULL;
    /* PREFIX or a file by name: the reader tries PREFIX_p2p.nc, then PREFIX_p2p.csv */
    int rc = lens_p2pfile_read(argv[optind], &f, &e), only = -1;
    /* a --pair that names no pair fails (status 1) with the choices in the message */
    if (rc == LENS_OK && which) {
        only = lens_p2pfile_find(f, which, &e);
        rc = only < 0 ? only : LENS_OK;
    }
    if (rc == LENS_OK && plot_dir) {
        /* --font for people without mpilens's data directory, or who want their own */
        po.font_path = font ? font : lens_cli_font();
        struct lens_p2pfile view = *f; /* --pair: the figures show that pair alone */
        if (only >= 0) {
            view.pair = &f->pair[only];
            view.npairs = 1;
        }
        rc = lens_p2pplot_write_dir(&view, &po, plot_dir, stem, &e);
        if (rc == LENS_OK)
            fprintf(stderr, "mpilens p2p: wrote %s/%s_{latency,bandwidth,msg_rate}.{png,svg}\n", plot_dir, stem);
    }
    /* the listing after the figures: a failed figure leaves stdout empty */
    if (rc == LENS_OK) {
        if (json)
            print_json(f, only, send, nsend);
        else if (csv)
            print_csv(f, only);
        else
            print_table(f, only, send, nsend);
    }
    lens_p2pfile_free(f);
    /* status 1 for an unreadable sweep, a failed figure or an unknown pair */
    if (rc != LENS_OK)
        return lens_cli_fail(&e);
    return LENS_EXIT_OK;
}
