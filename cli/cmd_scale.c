/* mpilens scale: scalability of applications over (processes, problem size).
 *   scale marks   runs.csv...      Teplov's marks per application and the three ranked tables
 *   scale surface runs.csv --app A -o out.png|svg   the efficiency surface and heatmap
 *   scale report  runs.csv... -o scale.pdf          the PDF report of every application
 *   scale run [options] -- CMD...  measure a grid through mpirun and write the runs CSV */
#include "cli.h"
#include "common/atomic.h"
#include "common/time.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/scale/scale.h"
#include "common/json.h"
#include "render/doc/doc.h"
#include "render/fig/fig.h"

LENS_COMMAND(scale, "scalability: run a grid, Teplov's marks, efficiency surfaces, PDF report");

/* The line a measured program prints (the samples do, samples/apps/app.h; any program can
 * with one printf): a fixed marker finds the time among whatever else the program says. */
#define TIME_PATTERN "mpilens-time:"

static void usage_scale(FILE *fp)
{
    fprintf(fp,
        "usage: mpilens scale marks RUNS.csv... [--json] [model options]\n"
        "       mpilens scale surface RUNS.csv... [--app NAME] -o OUT.png|OUT.svg [view options]\n"
        "       mpilens scale report RUNS.csv... -o SCALE.pdf [--title T] [--figures DIR] [model and view options]\n"
        "       mpilens scale run --procs LIST --sizes LIST [options] -o RUNS.csv -- CMD [ARGS...]\n"
        "\n"
        "Runs CSV: a header with app,procs,size and efficiency or time (optional status column:\n"
        "ok, failed, timeout). Repeated runs keep the best. Times become efficiencies by the\n"
        "serial time at procs 1 of the same app and size (E = T1 / (p * Tp)), or by a model.\n"
        "\n"
        "marks / surface / report options:\n"
        "  --json               marks as JSON instead of tables\n"
        "  --serial FILE        extra runs file holding the serial (procs 1) reference times\n"
        "  --peak FLOPS         performance model: peak flop/s of one process; then\n"
        "  --flops-coef C       flops(d) = C * d^K and E = flops(d) / (p * Tp * peak)\n"
        "  --flops-power K\n"
        "  --texts FILE         sentences for the marks (default $MPILENS_TEMPLATES/scale.txt\n"
        "                       when set, else the built-in English of templates/scale.txt)\n"
        "  --app NAME           application to draw (surface; needed when there are several)\n"
        "  -o, --output FILE    figure to write, .png or .svg (surface)\n"
        "  --azimuth DEG        view angle about the vertical axis (default -60)\n"
        "  --elevation DEG      view angle above the floor, 0..90 (default 30)\n"
        "  --width N, --height N  figure size (default 1100 x 520)\n"
        "  --log-procs, --log-size  logarithmic axes\n"
        "  --font FILE          TTF font for the figure (e.g. fonts/DejaVuSans.ttf)\n"
        "  --elements           marks: also every element's markP, markD, markA\n"
        "  --variants           marks: the placements folded into each configuration\n"
        "  --procs LO:HI, --sizes LO:HI  marks over a sub-region only (either end may be empty)\n"
        "  --placements fold|separate  fold placements into one grid (default) or keep NAME@LABEL\n"
        "  --missing gap|zero   configurations that did not run: left out (default) or efficiency 0\n"
        "  --value NAME         surface: efficiency (default), performance, or a column of the CSV;\n"
        "                       report: one more surface of that column per application\n"
        "\n"
        "report options (also the model options, --texts and the view options above):\n"
        "  -o, --output FILE    the PDF, written atomically\n"
        "  --title TEXT         title of the report (default: Scalability report)\n"
        "  --figures DIR        also write each surface as DIR/<app>_surface.png and .svg\n"
        "  --template FILE      layout and texts (default templates/scale_report.tmpl)\n"
        "  Fonts and templates come from $MPILENS_DATADIR or the build/install tree.\n"
        "\n"
        "run options:\n"
        "  --procs LIST         process counts, e.g. 1,2,4\n"
        "  --sizes LIST         problem sizes, e.g. 100000,200000\n"
        "  --repeats N          runs per configuration (default 1; the best is kept later)\n"
        "  --app NAME           application name in the CSV (default: the command's name)\n"
        "  --timeout SEC        a run taking longer is killed and recorded as timeout (default 60)\n"
        "  --placement L=ARGS   a placement variant: label L, mpirun arguments ARGS (repeatable;\n"
        "                       the placement column holds L; marks fold the variants)\n"
        "  --mpirun PATH        launcher (default mpirun, run with --allow-run-as-root\n"
        "                       --oversubscribe -np P)\n"
        "  -o, --output FILE    the runs CSV, written atomically at the end\n"
        "In CMD, {size} and {procs} are replaced; without {size} the size is the last argument.\n"
        "The program must print a line '" TIME_PATTERN " SECONDS'; a run that fails, times out or\n"
        "prints no time is recorded with status failed or timeout, never as a time.\n"
        "\n"
        "examples:\n"
        "  mpilens scale run --procs 1,2 --sizes 200,400 --repeats 2 -o runs.csv -- build/bin/samples/matmul\n"
        "  mpilens scale marks runs.csv\n"
        "  mpilens scale marks samples/scale/paper.csv --json\n"
        "  mpilens scale marks samples/scale/paper.csv --elements --procs 4:16 --sizes 1000:4000\n"
        "  mpilens scale surface samples/scale/paper.csv --app matmul -o matmul.png\n"
        "  mpilens scale report samples/scale/paper.csv -o scale.pdf --figures fig\n");
}

/* long options only (codes above any letter): `scale` has too many for one letter each */
enum {
    OPT_JSON = 256, OPT_SERIAL, OPT_PEAK, OPT_FCOEF, OPT_FPOW, OPT_TEXTS, OPT_APP, OPT_AZ, OPT_EL,
    OPT_W, OPT_H, OPT_LOGP, OPT_LOGD, OPT_PROCS, OPT_SIZES, OPT_REPEATS, OPT_TIMEOUT, OPT_PLACE,
    OPT_MPIRUN, OPT_FONT, OPT_TITLE, OPT_FIGURES, OPT_TEMPLATE, OPT_HELP, OPT_ELEMENTS, OPT_VARIANTS,
    OPT_PLACEMENTS, OPT_MISSING, OPT_VALUE
};

static const struct option long_opts[] = {
    {"json", no_argument, NULL, OPT_JSON},           {"serial", required_argument, NULL, OPT_SERIAL},
    {"peak", required_argument, NULL, OPT_PEAK},     {"flops-coef", required_argument, NULL, OPT_FCOEF},
    {"flops-power", required_argument, NULL, OPT_FPOW}, {"texts", required_argument, NULL, OPT_TEXTS},
    {"app", required_argument, NULL, OPT_APP},       {"output", required_argument, NULL, 'o'},
    {"azimuth", required_argument, NULL, OPT_AZ},    {"elevation", required_argument, NULL, OPT_EL},
    {"width", required_argument, NULL, OPT_W},       {"height", required_argument, NULL, OPT_H},
    {"log-procs", no_argument, NULL, OPT_LOGP},      {"log-size", no_argument, NULL, OPT_LOGD},
    {"procs", required_argument, NULL, OPT_PROCS},   {"sizes", required_argument, NULL, OPT_SIZES},
    {"repeats", required_argument, NULL, OPT_REPEATS}, {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"placement", required_argument, NULL, OPT_PLACE}, {"mpirun", required_argument, NULL, OPT_MPIRUN},
    {"font", required_argument, NULL, OPT_FONT},     {"title", required_argument, NULL, OPT_TITLE},
    {"figures", required_argument, NULL, OPT_FIGURES}, {"template", required_argument, NULL, OPT_TEMPLATE},
    {"help", no_argument, NULL, OPT_HELP},           {"elements", no_argument, NULL, OPT_ELEMENTS},
    {"variants", no_argument, NULL, OPT_VARIANTS},   {"placements", required_argument, NULL, OPT_PLACEMENTS},
    {"missing", required_argument, NULL, OPT_MISSING}, {"value", required_argument, NULL, OPT_VALUE},
    {NULL, 0, NULL, 0},
};

/* --procs and --sizes values at most, and --placement variants: fixed arrays, and a grid
 * bigger than 256 x 256 would take longer than anyone waits for `scale run` */
#define MAX_LIST 256
#define MAX_PLACE 16

/* Every option of every verb, parsed once; each verb reads the ones it needs. */
struct scale_opts {
    const char *verb;
    int json, logp, logd, width, height, repeats;
    double peak, fcoef, fpow, az, el, timeout;
    const char *texts, *app, *out, *mpirun, *font, *title, *figures, *template_path;
    const char *serial[8];
    int n_serial;
    double procs[MAX_LIST], sizes[MAX_LIST];
    int n_procs, n_sizes;
    const char *place[MAX_PLACE];
    int n_place;
    int elements, variants, separate, missing; /* enum lens_runs_missing */
    const char *value; /* --value: NULL or "efficiency", "performance", or a CSV column */
    /* --procs LO:HI / --sizes LO:HI outside `run`: the sub-region, NaN = open end */
    int sub;
    double plo, phi, dlo, dhi;
};

/* A finite number, the whole argument; errno catches overflow (1e999), which strtod
 * turns into infinity without complaint. */
static int parse_num(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && !*end && errno == 0 && isfinite(*v) ? 0 : -1;
}

/* "1,2,4" into v (positive numbers; integers when integral is set). */
static int parse_list(const char *s, double *v, int *n, int integral)
{
    *n = 0;
    char buf[4096];
    if (strlen(s) >= sizeof buf) /* cut short, the last number would be another number */
        return -1;
    /* Each element positive (a grid of 0 processes or size 0 is meaningless); strtok_r skips
     * empty elements ("1,,2" is 1,2), and a list with no number at all is refused. */
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (*n == MAX_LIST || parse_num(t, &v[*n]) < 0 || !(v[*n] > 0) ||
            (integral && v[*n] != floor(v[*n])))
            return -1;
        (*n)++;
    }
    return *n ? 0 : -1;
}

/* "LO:HI", "LO:" or ":HI" (positive numbers, LO <= HI), an open end NaN. */
static int parse_range(const char *s, double *lo, double *hi)
{
    const char *colon = strchr(s, ':');
    char a[128];
    if (!colon || (size_t)(colon - s) >= sizeof a)
        return -1;
    memcpy(a, s, (size_t)(colon - s));
    a[colon - s] = '\0';
    *lo = *hi = NAN;
    if (*a && (parse_num(a, lo) < 0 || !(*lo > 0)))
        return -1;
    if (colon[1] && (parse_num(colon + 1, hi) < 0 || !(*hi > 0)))
        return -1;
    /* an inverted range selects nothing: refused rather than giving marks of nothing */
    return *lo > *hi ? -1 : 0;
}

/* Parses the options of every verb; returns -1 after printing a usage error, 1 for --help. */
static int parse_opts(int argc, char **argv, struct scale_opts *o, int *status)
{
    memset(o, 0, sizeof *o);
    o->verb = argv[0];
    /* Defaults: a 1100 x 520 figure (surface and heatmap side by side, render/fig/surface.h),
     * a view from -60 deg azimuth and 30 deg elevation (matplotlib's default 3-D view), one
     * repeat, 60 s per run, and the flops model f(d) = d, used only once --peak is given. */
    o->width = 1100;
    o->height = 520;
    o->az = -60;
    o->el = 30;
    o->repeats = 1;
    o->timeout = 60;
    o->fcoef = 1;
    o->fpow = 1;
    o->mpirun = "mpirun";
    o->plo = o->phi = o->dlo = o->dhi = NAN;
    /* --procs and --sizes are lists of what to run for `run`, a sub-region for the others */
    int run = !strcmp(o->verb, "run");
    int c;
    double v;
    optind = 1;
    /* getopt's messages are silenced: ours name `scale` and the bad value */
    opterr = 0;
    /* '+': stop at the first non-option so that "-- CMD -x" reaches the command intact */
    while ((c = getopt_long(argc, argv, "+o:h", long_opts, NULL)) != -1) {
        const char *bad = NULL;
        switch (c) {
        case OPT_JSON: o->json = 1; break;
        case OPT_LOGP: o->logp = 1; break;
        case OPT_LOGD: o->logd = 1; break;
        /* the serial (procs 1) times may come from a file of their own */
        case OPT_SERIAL:
            if (o->n_serial == 8)
                bad = "too many --serial files (at most 8)";
            else
                o->serial[o->n_serial++] = optarg;
            break;
        case OPT_TEXTS: o->texts = optarg; break;
        case OPT_APP: o->app = optarg; break;
        case 'o': o->out = optarg; break;
        case OPT_MPIRUN: o->mpirun = optarg; break;
        case OPT_FONT: o->font = optarg; break;
        case OPT_TITLE: o->title = optarg; break;
        case OPT_FIGURES: o->figures = optarg; break;
        case OPT_TEMPLATE: o->template_path = optarg; break;
        case OPT_PEAK: if (parse_num(optarg, &o->peak) < 0 || !(o->peak > 0)) bad = "--peak needs a positive number"; break;
        case OPT_FCOEF: if (parse_num(optarg, &o->fcoef) < 0 || !(o->fcoef > 0)) bad = "--flops-coef needs a positive number"; break;
        case OPT_FPOW: if (parse_num(optarg, &o->fpow) < 0) bad = "--flops-power needs a number"; break;
        case OPT_AZ: if (parse_num(optarg, &o->az) < 0) bad = "--azimuth needs a number of degrees"; break;
        /* elevation 0..90: below the floor or past the zenith the view turns upside down */
        case OPT_EL: if (parse_num(optarg, &o->el) < 0 || o->el < 0 || o->el > 90) bad = "--elevation needs degrees in 0..90"; break;
        /* the lower bounds are the figure's own (surface.h), the upper ones keep memory sane */
        case OPT_W: if (parse_num(optarg, &v) < 0 || v < 300 || v > 20000) bad = "--width needs 300..20000"; else o->width = (int)v; break;
        case OPT_H: if (parse_num(optarg, &v) < 0 || v < 200 || v > 20000) bad = "--height needs 200..20000"; else o->height = (int)v; break;
        /* process counts are integers (they become -np); sizes any positive number */
        case OPT_PROCS:
            if (run ? parse_list(optarg, o->procs, &o->n_procs, 1) < 0 : parse_range(optarg, &o->plo, &o->phi) < 0)
                bad = run ? "--procs needs a list of positive integers such as 1,2,4"
                          : "--procs needs a range LO:HI such as 4:64";
            o->sub |= !run;
            break;
        case OPT_SIZES:
            if (run ? parse_list(optarg, o->sizes, &o->n_sizes, 0) < 0 : parse_range(optarg, &o->dlo, &o->dhi) < 0)
                bad = run ? "--sizes needs a list of positive numbers such as 1000,2000"
                          : "--sizes needs a range LO:HI such as 1000:4000";
            o->sub |= !run;
            break;
        case OPT_ELEMENTS: o->elements = 1; break;
        case OPT_VARIANTS: o->variants = 1; break;
        case OPT_PLACEMENTS:
            if (!strcmp(optarg, "fold") || !strcmp(optarg, "separate"))
                o->separate = !strcmp(optarg, "separate");
            else
                bad = "--placements needs fold or separate";
            break;
        case OPT_MISSING:
            if (!strcmp(optarg, "gap") || !strcmp(optarg, "zero"))
                o->missing = !strcmp(optarg, "zero") ? LENS_RUNS_ZERO : LENS_RUNS_GAP;
            else
                bad = "--missing needs gap or zero";
            break;
        case OPT_VALUE:
            /* the name becomes a CSV header to look up: no comma could ever match */
            if (!*optarg || strpbrk(optarg, ",\"\n"))
                bad = "--value needs efficiency, performance or a column name";
            else
                o->value = optarg;
            break;
        /* the bounds only refuse typos; the best of the repeats is kept (load_grids) */
        case OPT_REPEATS: if (parse_num(optarg, &v) < 0 || v < 1 || v > 1000 || v != floor(v)) bad = "--repeats needs an integer 1..1000"; else o->repeats = (int)v; break;
        case OPT_TIMEOUT: if (parse_num(optarg, &o->timeout) < 0 || !(o->timeout > 0)) bad = "--timeout needs a positive number of seconds"; break;
        /* The label becomes part of the app column ("NAME@L") of the runs CSV, so it must hold no
         * comma, quote or line break; the whole is bounded to fit split_place's buffer. */
        case OPT_PLACE:
            if (o->n_place == MAX_PLACE || !strchr(optarg, '=') || optarg[0] == '=' ||
                strcspn(optarg, ",\"\n") < (size_t)(strchr(optarg, '=') - optarg) ||
                strlen(optarg) > 1000)
                bad = "--placement needs LABEL=MPIRUN-ARGS, a label without commas or quotes (at most 16)";
            else
                o->place[o->n_place++] = optarg;
            break;
        case 'h':
        case OPT_HELP:
            usage_scale(stdout);
            *status = LENS_EXIT_OK;
            return 1;
        default:
            *status = lens_cli_usage("scale", "unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        }
        /* one place for every option's usage error: status 2, the rule and the value */
        if (bad) {
            *status = lens_cli_usage("scale", "%s (got '%s')", bad, optarg);
            return -1;
        }
    }
    return 0;
}

/* Reads the runs files and builds the grids. */
static int load_grids(const struct scale_opts *o, char **files, int nfiles, struct lens_grid **g,
                      size_t *n, struct lens_err *e)
{
    /* All files go into one set of runs, so that repeats of one configuration spread over
     * several files still keep the best, and the serial files can complete any application. */
    struct lens_runs *r = lens_runs_new();
    if (!r)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    /* a --value other than the two layers every grid has is a column the reader keeps */
    if (o->value && strcmp(o->value, "efficiency") && strcmp(o->value, "performance"))
        r->value_col = o->value;
    int rc = LENS_OK;
    for (int k = 0; k < nfiles && rc == LENS_OK; k++)
        rc = lens_runs_read(r, files[k], e);
    for (int k = 0; k < o->n_serial && rc == LENS_OK; k++)
        rc = lens_runs_read(r, o->serial[k], e);
    /* peak 0 (no --peak): efficiencies from the serial time; else from the flops model */
    struct lens_runs_model model = {o->peak, o->fcoef, o->fpow};
    struct lens_runs_opts ro = {&model, o->missing, o->separate};
    if (rc == LENS_OK)
        rc = lens_runs_build(r, &ro, g, n, e);
    /* The sub-region replaces each grid: marks, tables and figures then read only that part,
     * normalised by its own ranges (docs/scale.md, "Marks of a sub-region"). */
    for (size_t a = 0; rc == LENS_OK && o->sub && a < *n; a++) {
        struct lens_grid cut;
        rc = lens_runs_subgrid(&(*g)[a], o->plo, o->phi, o->dlo, o->dhi, &cut, e);
        if (rc == LENS_OK) {
            lens_runs_grid_release(&(*g)[a]);
            (*g)[a] = cut;
        }
    }
    if (rc < 0 && *g) {
        lens_runs_grids_free(*g, *n);
        *g = NULL;
        *n = 0;
    }
    /* with one file the error can name it even when the reader's message did not */
    if (rc < 0 && rc != LENS_ENOMEM && nfiles == 1 && !strstr(e->msg, files[0]))
        lens_err_prefix(e, files[0]);
    lens_runs_free(r);
    return rc;
}

/* in enum lens_marks_key order: procs, data, all */
static const char *const rank_keys[3] = {"rank_procs", "rank_data", "rank_all"};
static const char *const mark_names[3] = {"MarkProcs", "MarkData", "MarkAll"};

/* {"apps":[{app, min_p ... min_e}], "rank_procs":[...], "rank_data", "rank_all"}: every
 * number of the table, and the three rankings as lists of names, best first. */
/* Configurations of g that --missing zero filled. */
static size_t zero_count(const struct lens_grid *g)
{
    size_t z = 0;
    for (size_t c = 0; g->zero && c < g->np * g->nd; c++)
        z += g->zero[c];
    return z;
}

/* The JSON of one app's elements (--elements) and placements (--variants). */
static int json_extras(struct lens_json *j, const struct scale_opts *o, const struct lens_grid *g,
                       struct lens_err *e)
{
    if (o->missing == LENS_RUNS_ZERO) {
        lens_json_key(j, "zero_filled");
        lens_json_int(j, (long long)zero_count(g));
    }
    if (o->elements) {
        struct lens_marks_element *el = NULL;
        size_t ne = 0;
        if (lens_marks_elements(g, &el, &ne, e) < 0)
            return -1;
        static const char *const keys[11] = {"p1", "p2", "d1", "d2", "e11", "e12", "e21", "e22",
                                             "mark_p", "mark_d", "mark_a"};
        lens_json_key(j, "elements");
        lens_json_begin_array(j);
        for (size_t k = 0; k < ne; k++) {
            const double v[11] = {el[k].p1, el[k].p2, el[k].d1, el[k].d2, el[k].e11, el[k].e12,
                                  el[k].e21, el[k].e22, el[k].mark_p, el[k].mark_d, el[k].mark_a};
            lens_json_begin_object(j);
            for (int f = 0; f < 11; f++) {
                lens_json_key(j, keys[f]);
                lens_json_number(j, v[f]);
            }
            lens_json_end_object(j);
        }
        lens_json_end_array(j);
        lens_free(el);
    }
    if (o->variants) {
        lens_json_key(j, "placements");
        lens_json_begin_array(j);
        for (size_t v = 0; v < g->n_var; v++)
            lens_json_string(j, g->var[v]);
        lens_json_end_array(j);
        /* one entry per configuration run: the placement kept and every variant's best */
        lens_json_key(j, "variants");
        lens_json_begin_array(j);
        size_t cells = g->np * g->nd;
        for (size_t c = 0; g->n_var && c < cells; c++) {
            if (g->kept[c] < 0)
                continue;
            lens_json_begin_object(j);
            lens_json_key(j, "procs");
            lens_json_number(j, g->procs[c % g->np]);
            lens_json_key(j, "size");
            lens_json_number(j, g->size[c / g->np]);
            lens_json_key(j, "kept");
            lens_json_string(j, g->var[g->kept[c]]);
            lens_json_key(j, "efficiency");
            lens_json_begin_array(j);
            for (size_t v = 0; v < g->n_var; v++)
                lens_json_number(j, g->var_eff[v * cells + c]);
            lens_json_end_array(j);
            lens_json_end_object(j);
        }
        lens_json_end_array(j);
    }
    return 0;
}

static int print_json(const struct scale_opts *o, const struct lens_grid *g, const struct lens_marks *m,
                      size_t n, size_t *const order[3], struct lens_err *e)
{
    struct lens_json j;
    lens_json_init(&j, stdout);
    lens_json_begin_object(&j);
    lens_json_key(&j, "apps");
    lens_json_begin_array(&j);
    for (size_t a = 0; a < n; a++) {
        lens_json_begin_object(&j);
        lens_json_key(&j, "app");
        lens_json_string(&j, g[a].app);
        const char *keys[] = {"min_p", "max_p", "min_d", "max_d", "mark_procs", "mark_data",
                              "mark_all", "max_e", "min_e"};
        const double vals[] = {m[a].min_p, m[a].max_p, m[a].min_d, m[a].max_d, m[a].mark_procs,
                               m[a].mark_data, m[a].mark_all, m[a].max_e, m[a].min_e};
        for (size_t k = 0; k < 9; k++) {
            lens_json_key(&j, keys[k]);
            lens_json_number(&j, vals[k]); /* NaN (undefined mark) prints null */
        }
        if (json_extras(&j, o, &g[a], e) < 0)
            return -1;
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    for (int k = 0; k < 3; k++) {
        lens_json_key(&j, rank_keys[k]);
        lens_json_begin_array(&j);
        for (size_t a = 0; a < n; a++)
            lens_json_string(&j, g[order[k][a]].app);
        lens_json_end_array(&j);
    }
    lens_json_end_object(&j);
    putchar('\n');
    return 0;
}

/* "-" for an undefined mark (NaN: a grid without elements), as the report shows it */
static void fmt_num(double v, char *buf, size_t n)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.6g", v);
}

/* --elements and --variants as text: per application, the elements with their own marks, and
 * per configuration the placement kept and each variant's best efficiency. */
static int print_extras(const struct scale_opts *o, const struct lens_grid *g, size_t n, struct lens_err *e)
{
    for (size_t a = 0; a < n && o->elements; a++) {
        struct lens_marks_element *el = NULL;
        size_t ne = 0;
        if (lens_marks_elements(&g[a], &el, &ne, e) < 0)
            return -1;
        printf("\nElements of %s (%zu; MarkProcs, MarkData, MarkAll are the means of the last three columns)\n",
               g[a].app, ne);
        printf("%6s %6s %10s %10s %9s %9s %9s %9s %12s %12s %12s\n", "p1", "p2", "d1", "d2", "E11", "E12",
               "E21", "E22", "markP", "markD", "markA");
        for (size_t k = 0; k < ne; k++)
            printf("%6g %6g %10g %10g %9.6g %9.6g %9.6g %9.6g %12.6g %12.6g %12.6g\n", el[k].p1, el[k].p2,
                   el[k].d1, el[k].d2, el[k].e11, el[k].e12, el[k].e21, el[k].e22, el[k].mark_p,
                   el[k].mark_d, el[k].mark_a);
        lens_free(el);
    }
    for (size_t a = 0; a < n && o->variants; a++) {
        const struct lens_grid *x = &g[a];
        if (!x->n_var) {
            printf("\n%s: no placements in the runs\n", x->app);
            continue;
        }
        printf("\nPlacements of %s, folded: each configuration keeps its best run\n", x->app);
        printf("%6s %10s  %-12s", "procs", "size", "kept");
        for (size_t v = 0; v < x->n_var; v++)
            printf(" %12s", x->var[v]);
        printf("\n");
        size_t cells = x->np * x->nd;
        for (size_t c = 0; c < cells; c++) {
            if (x->kept[c] < 0)
                continue;
            printf("%6g %10g  %-12s", x->procs[c % x->np], x->size[c / x->np], x->var[x->kept[c]]);
            for (size_t v = 0; v < x->n_var; v++) {
                char s[32];
                fmt_num(x->var_eff[v * cells + c], s, sizeof s);
                printf(" %12s", s);
            }
            printf("\n");
        }
    }
    return 0;
}

static void print_text(const struct lens_grid *g, const struct lens_marks *m, size_t n,
                       size_t *const order[3], const struct lens_marks_text *t)
{
    /* the name column as wide as the longest name, at least "application" */
    int w = 11;
    for (size_t a = 0; a < n; a++)
        w = (int)strlen(g[a].app) > w ? (int)strlen(g[a].app) : w;
    printf("%-*s %6s %6s %10s %10s %12s %12s %12s %8s %8s\n", w, "application", "min p", "max p",
           "min d", "max d", "MarkProcs", "MarkData", "MarkAll", "max E", "min E");
    for (size_t a = 0; a < n; a++) {
        char s[9][32];
        const double vals[] = {m[a].min_p, m[a].max_p, m[a].min_d, m[a].max_d, m[a].mark_procs,
                               m[a].mark_data, m[a].mark_all, m[a].max_e, m[a].min_e};
        for (int k = 0; k < 9; k++)
            fmt_num(vals[k], s[k], sizeof s[k]);
        printf("%-*s %6s %6s %10s %10s %12s %12s %12s %8s %8s\n", w, g[a].app, s[0], s[1], s[2],
               s[3], s[4], s[5], s[6], s[7], s[8]);
    }
    /* then per application the marks in words, and what runs were left out */
    printf("\n");
    for (size_t a = 0; a < n; a++) {
        printf("%s:", g[a].app);
        /* failed and timed-out runs carry no time: they are named so that a hole in the grid is
         * not mistaken for a configuration nobody ran */
        if (g[a].n_failed)
            printf(" (%zu failed or timed-out runs skipped)", g[a].n_failed);
        if (zero_count(&g[a]))
            printf(" (%zu configurations that did not run taken as efficiency 0)", zero_count(&g[a]));
        printf("\n");
        for (int k = 0; k < 3; k++) {
            char buf[512];
            lens_marks_describe(t, k, lens_marks_get(&m[a], k), buf, sizeof buf, NULL);
            printf("  %s: %s\n", mark_names[k], buf);
        }
    }
    /* Tables 1-3: the applications ranked by each mark, ascending, undefined marks last */
    static const char *const titles[3] = {"by processes", "by problem size", "overall"};
    for (int k = 0; k < 3; k++) {
        printf("\nTable %d. Applications %s, ascending %s\n", k + 1, titles[k], mark_names[k]);
        printf("%4s  %-*s %12s\n", "rank", w, "application", mark_names[k]);
        for (size_t a = 0; a < n; a++) {
            char s[32];
            fmt_num(lens_marks_get(&m[order[k][a]], k), s, sizeof s);
            printf("%4zu  %-*s %12s\n", a + 1, w, g[order[k][a]].app, s);
        }
    }
}

/* The marks of the n applications and their three rankings, computed once here for both
 * `scale marks` and `scale report` (the report takes them). Free with marks_free. */
struct marks_set {
    struct lens_marks *m;
    size_t *order[3]; /* ascending ranks by enum lens_marks_key */
};

static void marks_free(struct marks_set *ms)
{
    for (int k = 0; k < 3; k++)
        lens_free(ms->order[k]);
    lens_free(ms->m);
}

static int marks_compute(const struct lens_grid *g, size_t n, struct marks_set *ms, struct lens_err *e)
{
    *ms = (struct marks_set){0};
    /* n + 1: a zero-size allocation may return NULL, which would read as out of memory */
    ms->m = lens_calloc(n + 1, sizeof *ms->m);
    const char **names = lens_calloc(n + 1, sizeof *names);
    for (int k = 0; k < 3; k++)
        ms->order[k] = lens_calloc(n + 1, sizeof *ms->order[k]);
    int rc = LENS_OK;
    if (!ms->m || !names || !ms->order[0] || !ms->order[1] || !ms->order[2])
        rc = lens_err_set(e, LENS_ENOMEM, "out of memory for %zu applications", n);
    for (size_t a = 0; a < n && rc == LENS_OK; a++) {
        rc = lens_marks_compute(&g[a], &ms->m[a], e);
        names[a] = g[a].app;
    }
    for (int k = 0; k < 3 && rc == LENS_OK; k++)
        rc = lens_marks_rank(ms->m, names, n, k, ms->order[k], e);
    lens_free(names);
    return rc;
}

static int scale_marks(const struct scale_opts *o, char **files, int nfiles)
{
    /* verb-specific checks: every one is a usage error, before any file is read */
    if (nfiles < 1)
        return lens_cli_usage("scale", "marks needs a runs CSV file");
    struct lens_err e = {0};
    struct lens_grid *g = NULL;
    size_t n = 0;
    struct marks_set ms = {0};
    struct lens_marks_text *t = lens_marks_text_new();
    int rc = t ? LENS_OK : lens_err_set(&e, LENS_ENOMEM, "out of memory");
    /* The sentences: --texts, else $MPILENS_TEMPLATES/scale.txt, else the built-in English;
     * `scale report` looks them up in the same order, so both say the same thing. */
    const char *dir = getenv("MPILENS_TEMPLATES");
    char path[4096];
    if (rc == LENS_OK && (o->texts || (dir && *dir))) {
        if (!o->texts)
            snprintf(path, sizeof path, "%s/scale.txt", dir);
        rc = lens_marks_text_load(t, o->texts ? o->texts : path, &e);
    }
    if (rc == LENS_OK)
        rc = load_grids(o, files, nfiles, &g, &n, &e);
    if (rc == LENS_OK)
        rc = marks_compute(g, n, &ms, &e);
    if (rc == LENS_OK) {
        if (o->json) {
            rc = print_json(o, g, ms.m, n, ms.order, &e) < 0 ? e.code : LENS_OK;
        } else {
            /* the sub-region heads the output, so its marks are not read as the whole grid's */
            if (o->sub) {
                /* an open end prints empty, as it was typed ("4:") */
                char b[4][32];
                const double v[4] = {o->plo, o->phi, o->dlo, o->dhi};
                for (int k = 0; k < 4; k++)
                    snprintf(b[k], sizeof b[k], isnan(v[k]) ? "" : "%g", v[k]);
                printf("marks over processes %s:%s, sizes %s:%s\n\n", b[0], b[1], b[2], b[3]);
            }
            print_text(g, ms.m, n, ms.order, t);
            rc = print_extras(o, g, n, &e) < 0 ? e.code : LENS_OK;
        }
    }
    marks_free(&ms);
    lens_runs_grids_free(g, n);
    lens_marks_text_free(t);
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}

static int scale_surface(const struct scale_opts *o, char **files, int nfiles)
{
    if (nfiles < 1)
        return lens_cli_usage("scale", "surface needs a runs CSV file");
    if (!o->out)
        return lens_cli_usage("scale", "surface needs -o OUT.png or -o OUT.svg");
    struct lens_err e = {0};
    struct lens_grid *g = NULL;
    size_t n = 0;
    int rc = load_grids(o, files, nfiles, &g, &n, &e);
    if (rc < 0)
        return lens_cli_fail(&e);
    size_t pick = n;
    /* without --app the choice is clear only when the files hold one application */
    for (size_t a = 0; a < n; a++)
        if (o->app ? !strcmp(g[a].app, o->app) : n == 1)
            pick = a;
    /* The names are listed so that the next try can succeed. An unknown --app is a failure
     * (status 1: the data lack it), a missing --app among several a usage error (status 2). */
    if (pick == n) {
        fprintf(stderr, "mpilens scale: %s; applications in %s:", o->app ? "no such application"
                        : "several applications, choose one with --app", files[0]);
        for (size_t a = 0; a < n; a++)
            fprintf(stderr, " %s", g[a].app);
        fprintf(stderr, "\n");
        lens_runs_grids_free(g, n);
        return o->app ? LENS_EXIT_FAIL : LENS_EXIT_USAGE;
    }
    struct lens_surface_opts so;
    lens_surface_opts_default(&so);
    so.azimuth = o->az;
    so.elevation = o->el;
    so.width = o->width;
    so.height = o->height;
    so.log_procs = o->logp;
    so.log_size = o->logd;
    /* NULL: cairo's toy "sans"; --font names a TTF, as the help says */
    so.font_path = o->font;
    /* --value: the performance layer, or the column the reader kept, on the same axes */
    if (o->value && !strcmp(o->value, "performance")) {
        so.values = g[pick].perf;
        so.value_label = "performance";
    } else if (o->value && strcmp(o->value, "efficiency")) {
        so.values = g[pick].extra;
        so.value_label = o->value;
    }
    rc = lens_surface_write(o->out, &g[pick], &so, &e);
    lens_runs_grids_free(g, n);
    if (rc < 0)
        return lens_cli_fail(&e);
    fprintf(stderr, "mpilens: wrote %s\n", o->out);
    return LENS_EXIT_OK;
}

/* ---- scale report ---- */

static int scale_report(const struct scale_opts *o, char **files, int nfiles)
{
    if (nfiles < 1)
        return lens_cli_usage("scale", "report needs a runs CSV file");
    if (!o->out)
        return lens_cli_usage("scale", "report needs -o SCALE.pdf");
    struct lens_err e = {0};
    char datadir[4096], texts[4096];
    /* the data directory holds the template and the fonts: without it no report can be made */
    if (lens_report_datadir(datadir, sizeof datadir, &e) < 0)
        return lens_cli_fail(&e);
    struct lens_scale_report_opts ro;
    lens_scale_report_opts_init(&ro);
    ro.title = o->title;
    ro.datadir = datadir;
    ro.template_path = o->template_path;
    ro.figures_dir = o->figures;
    ro.sources = (const char *const *)files;
    ro.nsources = nfiles;
    ro.azimuth = o->az;
    ro.elevation = o->el;
    ro.log_procs = o->logp;
    ro.log_size = o->logd;
    /* The unit of the performance layer follows how runs.c computed it: C d^K / T with the
     * model's coefficients (flop/s when they describe flops), d / T without them. */
    char unit[128];
    if (o->fcoef == 1 && o->fpow == 1 && !o->peak)
        snprintf(unit, sizeof unit, "size units per second (d / T)");
    else
        snprintf(unit, sizeof unit, "flop/s (%g d^%g / T)", o->fcoef, o->fpow);
    ro.perf_unit = unit;
    if (o->value && strcmp(o->value, "efficiency") && strcmp(o->value, "performance"))
        ro.value_label = o->value;
    /* the sentences as `scale marks` finds them, else the copy next to the template */
    const char *dir = getenv("MPILENS_TEMPLATES");
    if (o->texts) {
        ro.texts_path = o->texts;
    } else if (dir && *dir) {
        snprintf(texts, sizeof texts, "%s/scale.txt", dir);
        ro.texts_path = texts;
    }
    struct lens_grid *g = NULL;
    size_t n = 0;
    struct marks_set ms = {0};
    /* the marks are computed here, once, and handed to the report, which only lays them out */
    int rc = load_grids(o, files, nfiles, &g, &n, &e);
    if (rc == LENS_OK)
        rc = marks_compute(g, n, &ms, &e);
    if (rc == LENS_OK)
        rc = lens_scale_report_write(&ro, g, ms.m, (const size_t *const *)ms.order, n, o->out, &e);
    marks_free(&ms);
    lens_runs_grids_free(g, n);
    if (rc < 0)
        return lens_cli_fail(&e);
    fprintf(stderr, "mpilens: wrote %s (%zu applications)\n", o->out, n);
    return LENS_EXIT_OK;
}

/* ---- scale run ---- */

struct outcome {
    int status;   /* enum lens_runs_status */
    double secs;  /* printed time when ok */
    int exit_code; /* exit status or -signal */
    char tail[256]; /* last output line, for the failure message */
};

/* Splits "L=ARGS" into label and up to max argument words in storage (modified copy). */
static int split_place(const char *spec, char *buf, size_t n, char **label, char **words, int max)
{
    /* parse_opts made sure spec has an '=' and fits buf */
    snprintf(buf, n, "%s", spec);
    char *eq = strchr(buf, '=');
    *eq = '\0';
    *label = buf;
    int k = 0;
    for (char *save = NULL, *t = strtok_r(eq + 1, " \t", &save); t && k < max;
         t = strtok_r(NULL, " \t", &save))
        words[k++] = t;
    return k;
}

/* Scans out[0..len) for the last line holding the pattern and fills oc->secs. */
static int find_time(const char *out, double *secs)
{
    /* the last such line wins: a program may print progress times before its total */
    const char *p = out, *hit = NULL;
    while ((p = strstr(p, TIME_PATTERN)) != NULL) {
        hit = p;
        p += strlen(TIME_PATTERN);
    }
    if (!hit)
        return -1;
    char *end;
    double v = strtod(hit + strlen(TIME_PATTERN), &end);
    /* a time of 0 or less cannot give an efficiency: the run counts as failed */
    if (end == hit + strlen(TIME_PATTERN) || !isfinite(v) || !(v > 0))
        return -1;
    *secs = v;
    return 0;
}

/* Runs argv with a time limit, collecting its stdout and stderr (the last 1 MiB). */
static void run_one(char **argv, double timeout, struct outcome *oc)
{
    memset(oc, 0, sizeof *oc);
    /* failed until proven otherwise: every early return below leaves that status */
    oc->status = LENS_RUNS_FAILED;
    int fd[2];
    if (pipe(fd) != 0) {
        snprintf(oc->tail, sizeof oc->tail, "pipe: %s", strerror(errno));
        return;
    }
    /* everything flushed before fork (the CSV so far too), so that no buffered byte can be
     * written twice, whatever the child does before exec */
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(oc->tail, sizeof oc->tail, "fork: %s", strerror(errno));
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        setpgid(0, 0); /* its own group, so a timeout can stop mpirun and its ranks together */
        /* stdout and stderr in one pipe: the time line may come on either, and the last line of
         * both together is the best failure message */
        dup2(fd[1], STDOUT_FILENO);
        dup2(fd[1], STDERR_FILENO);
        close(fd[0]);
        close(fd[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    /* set in both processes: whichever runs first, the group exists before a kill(-pid) */
    setpgid(pid, pid);
    close(fd[1]);
    size_t cap = 1 << 20, len = 0;
    char *out = lens_malloc(cap + 1);
    double deadline = lens_time_now() + timeout;
    int timed_out = 0;
    /* The pipe is drained while the program runs: one that writes more than the pipe holds
     * would block on its write and look like a timeout. */
    for (;;) {
        double left = deadline - lens_time_now();
        if (left <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pfd = {fd[0], POLLIN, 0};
        int pr = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        /* no data before the deadline (pr 0): the loop head sees the time is up */
        if (pr <= 0)
            continue;
        char chunk[4096];
        ssize_t k = read(fd[0], chunk, sizeof chunk);
        if (k < 0 && errno == EINTR)
            continue;
        /* end of file: the program closed its output, normally by exiting */
        if (k <= 0)
            break;
        if (out) {
            /* keep the last 1 MiB: the time line comes at the end of a chatty program */
            if (len + (size_t)k > cap) {
                size_t drop = cap / 2; /* half at a time: copying stays linear in the output */
                memmove(out, out + drop, len - drop);
                len -= drop;
            }
            memcpy(out + len, chunk, (size_t)k);
            len += (size_t)k;
        }
    }
    close(fd[0]);
    if (timed_out) {
        /* TERM first, so that mpirun can stop its ranks; KILL after 2 s (40 x 50 ms) */
        kill(-pid, SIGTERM);
        for (int k = 0; k < 40 && waitpid(pid, NULL, WNOHANG) == 0; k++)
            usleep(50000);
        kill(-pid, SIGKILL);
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (timed_out) {
        kill(-pid, SIGKILL); /* leftovers of the group, if any */
        oc->status = LENS_RUNS_TIMEOUT;
        snprintf(oc->tail, sizeof oc->tail, "killed after %g s", timeout);
        lens_free(out);
        return;
    }
    /* a negative exit_code is the signal that ended the program */
    oc->exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : WIFSIGNALED(ws) ? -WTERMSIG(ws) : -1;
    if (out) {
        out[len] = '\0';
        int found = find_time(out, &oc->secs) == 0;
        /* last non-empty line, for the failure message */
        while (len && (out[len - 1] == '\n' || out[len - 1] == '\r'))
            out[--len] = '\0';
        /* the last line with a letter in it (mpirun ends its messages with a rule of dashes) */
        char *line = NULL;
        for (char *save = NULL, *t = strtok_r(out, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
            if (strpbrk(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
                line = t;
        snprintf(oc->tail, sizeof oc->tail, "%s", line ? line : "no output");
        /* ok needs both a zero exit and a time: a time from a run that then failed is not kept */
        if (oc->exit_code == 0 && found)
            oc->status = LENS_RUNS_OK;
        else if (oc->exit_code == 0)
            snprintf(oc->tail, sizeof oc->tail, "no '%s SECONDS' line in the output", TIME_PATTERN);
    }
    lens_free(out);
}

/* Writes one self-describing header: tool, launcher version, host, command, options, date. */
static void run_header(FILE *fp, const struct scale_opts *o, char **cmd, int ncmd)
{
    char date[64], host[256] = "unknown", mpiver[256] = "unknown";
    /* SOURCE_DATE_EPOCH when set, so that the header of a test run is reproducible */
    lens_time_format_date(lens_time_source_date(), date, sizeof date);
    gethostname(host, sizeof host - 1);
    char vcmd[4200];
    snprintf(vcmd, sizeof vcmd, "'%s' --version 2>/dev/null", o->mpirun);
    /* the launcher's path goes into a shell command in single quotes: one holding a quote
     * is not asked for its version rather than risk running something else */
    FILE *vp = strchr(o->mpirun, '\'') ? NULL : popen(vcmd, "r");
    if (vp) {
        if (fgets(mpiver, sizeof mpiver, vp))
            mpiver[strcspn(mpiver, "\n")] = '\0';
        pclose(vp);
    }
    fprintf(fp, "# mpilens %s scale run\n# launcher: %s (%s)\n# host: %s\n# date: %s\n# command:",
            LENS_VERSION, o->mpirun, mpiver, host, date);
    for (int k = 0; k < ncmd; k++)
        fprintf(fp, " %s", cmd[k]);
    fprintf(fp, "\n# repeats: %d, timeout: %g s, placements: %d\n", o->repeats, o->timeout,
            o->n_place);
    /* the columns lens_runs_read expects, status included, so the file feeds `scale marks` */
    fprintf(fp, "app,placement,procs,size,repeat,time,status\n");
}

static int scale_run(const struct scale_opts *o, char **cmd, int ncmd)
{
    if (ncmd < 1)
        return lens_cli_usage("scale", "run needs a command after --");
    if (!o->n_procs || !o->n_sizes)
        return lens_cli_usage("scale", "run needs --procs and --sizes");
    if (!o->out)
        return lens_cli_usage("scale", "run needs -o RUNS.csv");
    /* the app column defaults to the program's base name, as people call it */
    const char *app = o->app;
    if (!app) {
        app = strrchr(cmd[0], '/') ? strrchr(cmd[0], '/') + 1 : cmd[0];
    }
    /* the name goes unquoted into the CSV: a comma would shift every column after it */
    if (strpbrk(app, ",\n\"") || !*app || strlen(app) > 1000)
        return lens_cli_usage("scale", "application name '%s' must not hold commas or quotes", app);
    struct lens_err e = {0};
    struct lens_atomic out;
    /* opened before the first run: an unwritable -o fails now, not after hours of runs */
    if (lens_atomic_open(&out, o->out, "w", &e) < 0)
        return lens_cli_fail(&e);
    run_header(out.fp, o, cmd, ncmd);
    int has_size = 0;
    for (int k = 0; k < ncmd; k++)
        has_size |= strstr(cmd[k], "{size}") != NULL;
    int n_place = o->n_place ? o->n_place : 1;
    long total = (long)o->repeats * n_place * o->n_sizes * o->n_procs, done = 0, n_ok = 0;
    /* argv: launcher, 5 fixed words, placement words, command words, the size, NULL */
    char **argv = lens_calloc((size_t)ncmd + 80, sizeof *argv);
    /* one 4200-byte slot per command word: 4100 for the substituted text plus room for the
     * last substitution that may start just below that limit */
    char *words = lens_malloc((size_t)ncmd * 4200 + 1);
    if (!argv || !words) {
        lens_free(argv);
        lens_free(words);
        lens_atomic_abort(&out);
        e.code = LENS_ENOMEM;
        snprintf(e.msg, sizeof e.msg, "out of memory");
        return lens_cli_fail(&e);
    }
    /* repeats outermost: a slow spell of the machine then hits different configurations in
     * different repeats, instead of every repeat of one configuration */
    for (int r = 1; r <= o->repeats; r++)
        for (int pl = 0; pl < n_place; pl++)
            for (int s = 0; s < o->n_sizes; s++)
                for (int p = 0; p < o->n_procs; p++) {
                    char np[32], size[64], pbuf[1024], *label = "", *pw[60], name[2200];
                    /* -np as an integer; the size with %.15g, which gives back any
                     * ordinary number as typed */
                    snprintf(np, sizeof np, "%.0f", o->procs[p]);
                    snprintf(size, sizeof size, "%.15g", o->sizes[s]);
                    int npw = o->n_place ? split_place(o->place[pl], pbuf, sizeof pbuf, &label, pw, 60) : 0;
                    int a = lens_cli_launch_words(argv, o->mpirun, np);
                    for (int k = 0; k < npw; k++)
                        argv[a++] = pw[k];
                    for (int k = 0; k < ncmd; k++) {
                        /* substitute {size} and {procs} in each word */
                        char *w = words + (size_t)k * 4200, *q = w;
                        for (const char *c = cmd[k]; *c && q < w + 4100;) {
                            if (!strncmp(c, "{size}", 6)) {
                                q += snprintf(q, 64, "%s", size);
                                c += 6;
                            } else if (!strncmp(c, "{procs}", 7)) {
                                q += snprintf(q, 32, "%s", np);
                                c += 7;
                            } else {
                                *q++ = *c++;
                            }
                        }
                        *q = '\0';
                        argv[a++] = w;
                    }
                    /* without {size} the size is the last argument, as the samples take it */
                    if (!has_size)
                        argv[a++] = size;
                    argv[a] = NULL;
                    /* NAME@LABEL on the progress lines only: the CSV's app stays NAME and the
                     * label goes to the placement column, so the readers fold the variants into
                     * one grid (--placements separate gives NAME@LABEL back) */
                    snprintf(name, sizeof name, "%s%s%s", app, o->n_place ? "@" : "", label);
                    struct outcome oc;
                    run_one(argv, o->timeout, &oc);
                    done++;
                    n_ok += oc.status == LENS_RUNS_OK;
                    /* every run is one CSV line, a failed one with an empty time and
                     * its status, so that `scale marks` can say what it skipped */
                    if (oc.status == LENS_RUNS_OK) {
                        fprintf(out.fp, "%s,%s,%s,%s,%d,%.9g,ok\n", app, label, np, size, r, oc.secs);
                        fprintf(stderr, "[%ld/%ld] %s p=%s size=%s repeat %d: %.6g s\n", done, total,
                                name, np, size, r, oc.secs);
                    } else {
                        fprintf(out.fp, "%s,%s,%s,%s,%d,,%s\n", app, label, np, size, r,
                                lens_runs_status_name(oc.status));
                        fprintf(stderr, "[%ld/%ld] %s p=%s size=%s repeat %d: %s (exit %d: %s)\n",
                                done, total, name, np, size, r, lens_runs_status_name(oc.status),
                                oc.exit_code, oc.tail);
                    }
                }
    lens_free(argv);
    lens_free(words);
    /* The CSV records failed runs too: it appears even when the command then fails. */
    int depth = lens_atomic_group_suspend();
    int rc = lens_atomic_commit(&out, &e);
    lens_atomic_group_resume(depth);
    if (rc < 0)
        return lens_cli_fail(&e);
    fprintf(stderr, "mpilens: wrote %s: %ld of %ld runs ok\n", o->out, n_ok, total);
    /* status 1 when nothing worked (a wrong command, most likely), though the CSV stays */
    if (n_ok == 0) {
        fprintf(stderr, "mpilens: every run failed; see the status column of %s\n", o->out);
        return LENS_EXIT_FAIL;
    }
    return LENS_EXIT_OK;
}

int cmd_scale(int argc, char **argv)
{
    /* no verb: the help to stderr with status 2; asked for: to stdout with status 0 */
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage_scale(argc < 2 ? stderr : stdout);
        return argc < 2 ? LENS_EXIT_USAGE : LENS_EXIT_OK;
    }
    const char *verb = argv[1];
    if (strcmp(verb, "marks") && strcmp(verb, "surface") && strcmp(verb, "report") && strcmp(verb, "run"))
        return lens_cli_usage("scale", "unknown action '%s' (marks, surface, report or run)", verb);
    struct scale_opts o;
    int status = 0;
    /* Options may come before and after the files: collect the files and continue. */
    char **files = lens_calloc((size_t)argc + 1, sizeof *files);
    /* below any lens_err: printing directly is all that is left (status 1) */
    if (!files) {
        fprintf(stderr, "mpilens: out of memory\n");
        return LENS_EXIT_FAIL;
    }
    int nfiles = 0, rc;
    char **args = argv + 1;
    int nargs = argc - 1;
    char **cmd = NULL;
    int ncmd = 0;
    /* Find "--": what follows is the command of `scale run`. */
    for (int k = 1; k < nargs; k++)
        if (!strcmp(args[k], "--")) {
            cmd = args + k + 1;
            ncmd = nargs - k - 1;
            nargs = k;
            break;
        }
    char **rest = lens_calloc((size_t)nargs + 1, sizeof *rest);
    if (!rest) {
        lens_free(files);
        fprintf(stderr, "mpilens: out of memory\n");
        return LENS_EXIT_FAIL;
    }
    /* Move positional arguments out so getopt sees options only. */
    int nrest = 0;
    /* rest[0] is the verb: getopt starts at index 1, as with a program name */
    rest[nrest++] = args[0];
    for (int k = 1; k < nargs; k++) {
        /* an option that takes a value keeps it, even a value that does not start with '-' */
        int takes_arg = 0;
        /* "-" alone is taken as a file name, not as an option */
        if (args[k][0] == '-' && args[k][1]) {
            rest[nrest++] = args[k];
            /* "--procs=1,2" carries its value inline and matches no name here */
            for (const struct option *lo = long_opts; lo->name; lo++)
                if (args[k][1] == '-' && !strcmp(args[k] + 2, lo->name) && lo->has_arg == required_argument)
                    takes_arg = 1;
            /* -o is the only short option with a value ("-ofile" is caught by getopt itself) */
            if (!strcmp(args[k], "-o"))
                takes_arg = 1;
            if (takes_arg && k + 1 < nargs)
                rest[nrest++] = args[++k];
        } else {
            files[nfiles++] = args[k];
        }
    }
    rc = parse_opts(nrest, rest, &o, &status);
    if (rc != 0) {
        lens_free(files);
        lens_free(rest);
        return status;
    }
    if (!strcmp(verb, "marks"))
        status = scale_marks(&o, files, nfiles);
    else if (!strcmp(verb, "surface"))
        status = scale_surface(&o, files, nfiles);
    else if (!strcmp(verb, "report"))
        status = scale_report(&o, files, nfiles);
    /* `scale run` takes no files: a word before "--" is most likely a misplaced command */
    else if (nfiles)
        status = lens_cli_usage("scale", "unexpected '%s': put the command after '--'", files[0]);
    else
        status = scale_run(&o, cmd, ncmd);
    lens_free(files);
    lens_free(rest);
    return status;
}
