/* mpilens compress: lossy compression of a latency cube with a guaranteed per-element
 * relative error, into one packed NetCDF file; reports the ratio and the measured errors.
 * The cube is streamed: one P x P matrix in memory at a time (lens_cube_stream_read). */
#include "cli.h"
#include "common/atomic.h"
#include "common/time.h"

#include "analysis/cube/cube.h"
#include "common/json.h"
#include "render/fig/fig.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

LENS_COMMAND(compress, "pack a cube into groups of links with a per-element error bound");

static void help(void)
{
    printf("usage: mpilens compress INPUT -o PACKED.nc [--max-error X] [--force] [--json]\n"
           "                        [--plot FILE.png|FILE.svg [--plot-lengths L1,L2,..]]\n\n"
           "Packs every statistic of a latency cube, one length after the other, into groups of\n"
           "links whose delays agree within the bound: each decoded element v' of an element v\n"
           "has |v' - v| <= X |v| (NaN and infinities exactly). Groups split when their values\n"
           "spread and merge when they come together. Prints the compression ratio and the\n"
           "measured max and RMS relative errors. 'mpilens decompress' restores a cube.\n\n"
           "options:\n"
           "  -o, --output FILE   the packed cube (NetCDF)\n"
           "  --max-error X       relative error bound, 0 <= X < 1 (default 0.05; 0 is lossless)\n"
           "  --force             overwrite FILE\n"
           "  --json              print the report as JSON\n"
           "  --plot FILE         original against compressed matrices at a few lengths (.png, .svg)\n"
           "  --plot-lengths L,.. lengths in bytes to show, nearest present (default first, middle, last)\n"
           "  -h, --help          show this help\n\n"
           "example:\n"
           "  mpilens compress samples/cubes/synth32/network -o synth32.lcz.nc --max-error 0.02\n"
           "  mpilens decompress synth32.lcz.nc --verify samples/cubes/synth32/network\n"
           "  mpilens compress samples/cubes/synth32/network -o s.nc --plot slices.png --plot-lengths 0,4096\n");
}

struct report {
    double raw, packed, seconds, rms[LENS_STAT_COUNT];
    int gmin[LENS_STAT_COUNT], gmax[LENS_STAT_COUNT];
    long long file;
};

static void print_text(const char *in, const char *out, const struct lens_cube *c, struct lens_packed *const *p,
                       const struct report *r, double bound)
{
    int ns = 0;
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        ns += p[s] != NULL;
    printf("packed %s into %s: %d statistic%s, %d processes, %d lengths, max error %g%%\n\n", in, out, ns,
           ns == 1 ? "" : "s", c->procs, c->nlen, 100 * bound);
    printf("%-10s %14s %10s %7s %7s %9s %10s %10s\n", "statistic", "groups/length", "partitions", "splits",
           "merges", "ratio", "max error", "RMS error");
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (!p[s])
            continue;
        char g[32];
        snprintf(g, sizeof g, "%d..%d", r->gmin[s], r->gmax[s]);
        double raw = 8.0 * c->procs * c->procs * c->nlen;
        printf("%-10s %14s %10d %7ld %7ld %8.1fx %9.3f%% %9.3f%%\n", lens_cube_stat_name(s), g, p[s]->nreset,
               p[s]->splits, p[s]->merges, raw / lens_packed_bytes(p[s]), 100 * p[s]->err_max, 100 * r->rms[s]);
    }
    printf("\ntotal: %.0f bytes of doubles -> %.0f bytes packed (ratio %.1fx); file %lld bytes\n", r->raw, r->packed,
           r->raw / r->packed, r->file);
    printf("compressed in %.3f s: %.1f MB/s of matrices\n", r->seconds, r->raw / 1e6 / fmax(r->seconds, 1e-9));
}

static void print_json(const char *in, const char *out, struct lens_packed *const *p, const struct report *r,
                       double bound)
{
    struct lens_json j;
    lens_json_init(&j, stdout);
    lens_json_begin_object(&j);
    lens_json_key(&j, "input");
    lens_json_string(&j, in);
    lens_json_key(&j, "output");
    lens_json_string(&j, out);
    lens_json_key(&j, "max_error");
    lens_json_number(&j, bound);
    lens_json_key(&j, "stats");
    lens_json_begin_object(&j);
    for (int s = 0; s < LENS_STAT_COUNT; s++) {
        if (!p[s])
            continue;
        lens_json_key(&j, lens_cube_stat_name(s));
        lens_json_begin_object(&j);
        double raw = 8.0 * p[s]->procs * p[s]->procs * p[s]->nlen;
        const char *k[] = {"ratio", "err_max", "err_rms"};
        double v[] = {raw / lens_packed_bytes(p[s]), p[s]->err_max, r->rms[s]};
        for (int t = 0; t < 3; t++) {
            lens_json_key(&j, k[t]);
            lens_json_number(&j, v[t]);
        }
        const char *ki[] = {"partitions", "splits", "merges", "groups_min", "groups_max"};
        long long vi[] = {p[s]->nreset, p[s]->splits, p[s]->merges, r->gmin[s], r->gmax[s]};
        for (int t = 0; t < 5; t++) {
            lens_json_key(&j, ki[t]);
            lens_json_int(&j, vi[t]);
        }
        lens_json_end_object(&j);
    }
    lens_json_end_object(&j);
    lens_json_key(&j, "bytes_raw");
    lens_json_number(&j, r->raw);
    lens_json_key(&j, "bytes_packed");
    lens_json_number(&j, r->packed);
    lens_json_key(&j, "ratio");
    lens_json_number(&j, r->raw / r->packed);
    lens_json_key(&j, "file_bytes");
    lens_json_int(&j, r->file);
    lens_json_end_object(&j);
}

/* Streams statistic s through the compressor, one length at a time: mat is the one matrix. */
static int pack_stat(struct lens_cube_stream *in, int s, double bound, double *mat, struct lens_packed **out,
                     struct lens_err *e)
{
    const struct lens_cube *c = lens_cube_stream_meta(in);
    struct lens_packed_encoder *z;
    int rc = lens_packed_encoder_new(&z, c->procs, c->nlen, bound, e);
    for (int k = 0; k < c->nlen && rc == LENS_OK; k++) {
        rc = lens_cube_stream_read(in, s, k, mat, e);
        if (rc == LENS_OK)
            rc = lens_packed_encoder_put(z, mat, e);
    }
    if (rc != LENS_OK) {
        lens_packed_encoder_free(z);
        return rc;
    }
    return lens_packed_encoder_finish(z, out, e);
}

int cmd_compress(int argc, char **argv)
{
    enum { O_MAX = 256, O_FORCE, O_JSON, O_PLOT, O_PLOT_LENGTHS };
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"max-error", required_argument, NULL, O_MAX},
                                         {"force", no_argument, NULL, O_FORCE},
                                         {"json", no_argument, NULL, O_JSON},
                                         {"plot", required_argument, NULL, O_PLOT},
                                         {"plot-lengths", required_argument, NULL, O_PLOT_LENGTHS},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *out = NULL, *plot = NULL;
    int want[LENS_CUBE_SLICES_MAX], nwant = 0;
    double bound = 0.05;
    int force = 0, json = 0, ch;
    char *end;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': out = optarg; break;
        case O_MAX:
            bound = strtod(optarg, &end);
            if (end == optarg || *end || !(bound >= 0 && bound < 1))
                return lens_cli_usage("compress", "--max-error must be a number in [0, 1), not '%s'", optarg);
            break;
        case O_FORCE: force = 1; break;
        case O_JSON: json = 1; break;
        case O_PLOT:
            plot = optarg;
            if (strlen(plot) < 5 || (strcmp(plot + strlen(plot) - 4, ".png") && strcmp(plot + strlen(plot) - 4, ".svg")))
                return lens_cli_usage("compress", "--plot must end in .png or .svg, not '%s'", optarg);
            break;
        case O_PLOT_LENGTHS:
            for (char *q = optarg;; q = end + 1) {
                long v = strtol(q, &end, 10);
                if (end == q || v < 0 || v > 1L << 30 || (*end && *end != ',') || nwant == LENS_CUBE_SLICES_MAX)
                    return lens_cli_usage("compress", "--plot-lengths must be up to %d byte counts L1,L2,.., not '%s'",
                                          LENS_CUBE_SLICES_MAX, optarg);
                want[nwant++] = (int)v;
                if (!*end)
                    break;
            }
            break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("compress", "unknown option");
        }
    }
    if (optind != argc - 1)
        return lens_cli_usage("compress", "expected one INPUT, got %d", argc - optind);
    if (!out)
        return lens_cli_usage("compress", "missing -o PACKED.nc");
    if (nwant && !plot)
        return lens_cli_usage("compress", "--plot-lengths needs --plot FILE");
    struct lens_err e;
    lens_err_clear(&e);
    struct stat sb;
    /* A device or FIFO is written in place, not overwritten: only a file needs --force. */
    if (!force && stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) {
        lens_err_set(&e, LENS_EIO, "%s: exists; use --force to overwrite", out);
        return lens_cli_fail(&e);
    }
    struct lens_cube_stream *in;
    if (lens_cube_stream_open(argv[optind], &in, &e) != LENS_OK)
        return lens_cli_fail(&e);
    const struct lens_cube *c = lens_cube_stream_meta(in);
    struct lens_packed *p[LENS_STAT_COUNT] = {NULL};
    struct report r = {0};
    double *mat = lens_malloc((size_t)c->procs * c->procs * sizeof *mat);
    int rc = mat ? LENS_OK : lens_err_set(&e, LENS_ENOMEM, "%s: out of memory", argv[optind]);
    double t0 = lens_time_now();
    for (int s = 0; s < LENS_STAT_COUNT && rc == LENS_OK; s++) {
        if (!(lens_cube_stream_stats(in) >> s & 1))
            continue;
        rc = pack_stat(in, s, bound, mat, &p[s], &e);
        if (rc == LENS_OK) {
            r.raw += 8.0 * c->procs * c->procs * c->nlen;
            r.packed += lens_packed_bytes(p[s]);
            r.rms[s] = p[s]->err_n ? sqrt(p[s]->err_sum2 / p[s]->err_n) : 0;
            r.gmin[s] = 1 << 30;
            for (int k = 0; k < c->nlen; k++) {
                int g = (int)(p[s]->value_start[k + 1] - p[s]->value_start[k]);
                r.gmin[s] = g < r.gmin[s] ? g : r.gmin[s];
                r.gmax[s] = g > r.gmax[s] ? g : r.gmax[s];
            }
        }
    }
    lens_free(mat);
    if (rc == LENS_OK)
        rc = lens_cube_stream_end(in, &e); /* the repairs' warnings; no usable delay fails here */
    r.seconds = lens_time_now() - t0;
    char plotted[512];
    lens_atomic_group_begin(); /* the plot and the packed file appear together or not at all */
    if (rc == LENS_OK && plot) {
        /* the cube wing slices the cube and decodes the packed form; the figure draws them */
        struct lens_cube_slices *sl = NULL;
        struct lens_slices_opts so;
        lens_slices_opts_init(&so);
        so.font_path = lens_cli_font();
        rc = lens_cube_slices_from_stream_packed(in, p, nwant ? want : NULL, nwant, &sl, &e);
        if (rc == LENS_OK)
            rc = lens_slices_write(plot, sl, &so, &e);
        else
            lens_err_prefix(&e, plot);
        if (rc == LENS_OK) {
            char sum[448];
            lens_cube_slices_summary(sl, sum, sizeof sum);
            snprintf(plotted, sizeof plotted, "%s, %s", plot, sum);
        }
        lens_cube_slices_free(sl);
    }
    if (rc == LENS_OK)
        rc = lens_packed_write(out, c, p, &e);
    if (rc == LENS_OK)
        rc = lens_atomic_group_commit(&e);
    else
        lens_atomic_group_abort();
    if (plot && rc == LENS_OK)
        fprintf(stderr, "mpilens: wrote %s\n", plotted);
    if (rc == LENS_OK) {
        const char *now = lens_atomic_group_find(out); /* renamed when the command ends */
        r.file = stat(now ? now : out, &sb) == 0 ? (long long)sb.st_size : -1;
        for (int w = 0; w < c->nwarn; w++)
            lens_cli_warn("%s", c->warnings[w]);
        if (json)
            print_json(argv[optind], out, p, &r, bound);
        else
            print_text(argv[optind], out, c, p, &r, bound);
    }
    for (int s = 0; s < LENS_STAT_COUNT; s++)
        lens_packed_free(p[s]);
    lens_cube_stream_close(in);
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
