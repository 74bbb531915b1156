/* mpilens stages: the stage log of a task runtime (JSON lines {"task","stage","t","node"}):
 * total tasks, how many waited for inputs, the migration histogram, time per stage, and the
 * number of tasks in each stage over time; optionally the per-task table behind the plots,
 * and a PDF (-o) with the log and, with --baseline, the two logs side by side. */
#include "cli.h"
#include "common/atomic.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/profile/profile.h"
#include "render/doc/doc.h"
#include "render/fig/fig.h"

LENS_COMMAND(stages, "tasks, waits, migrations and stage occupancy of a task-runtime stage log");

static void help(void)
{
    printf("usage: mpilens stages LOG [--baseline OLD] [--json] [--wait-stage NAME]\n"
           "                    [--clocks per-node|synced] [--points N] [--tasks-csv FILE]\n"
           "                    [--plots DIR [--svg]] [-o FILE.pdf [--title TEXT] [--template FILE]]\n\n"
           "Reads a stage log of a task runtime such as LuNA: JSON lines\n"
           "  {\"task\": 17, \"stage\": \"distribute\", \"t\": 0.0312, \"node\": 2}\n"
           "one per task entering a stage (the last record of a task marks its end). Prints the\n"
           "number of tasks, how many waited for inputs, the histogram of migrations [A0, A1, ...]\n"
           "(a migration is a change of node between consecutive records), the time spent in each\n"
           "stage, and the number of tasks in each stage over time.\n\n"
           "options:\n"
           "  --baseline OLD     compare LOG with an older log OLD (a previous revision of the\n"
           "                     runtime): per stage tasks, mean and max seconds of both, and with\n"
           "                     --plots DIR/stage_compare.png, both occupancies from their start\n"
           "  --json             one JSON object (keys in docs/icappa.md; with --baseline, the\n"
           "                     comparison's keys)\n"
           "  --wait-stage NAME  the stage that means waiting for inputs (default wait)\n"
           "  --clocks MODEL     per-node (default): each node stamps with its own clock, so a\n"
           "                     stay that begins on one node and ends on another cannot be\n"
           "                     timed; it is counted, not measured (left out of the times, the\n"
           "                     occupancy, the CSV and the plots). synced: the nodes' clocks\n"
           "                     agree (or the log was corrected), and every stay is timed\n"
           "  --points N         time points of the occupancy series (default 50)\n"
           "  --tasks-csv FILE   per task: arrival, migrations, waited, seconds in each stage\n"
           "  --plots DIR        write DIR/stage_times.png (time in stage against arrival) and\n"
           "                     DIR/stage_occupancy.png (tasks in each stage against time)\n"
           "  --svg              with --plots: SVG instead of PNG\n"
           "  -o FILE.pdf        a PDF report: the log's numbers, its stage table and occupancy;\n"
           "                     with --baseline, the two logs side by side (both occupancies on\n"
           "                     one figure, stage times old and new and the change of the mean)\n"
           "  --title TEXT       with -o, the report's title\n"
           "  --template FILE    with -o, layout and texts (default: templates/stages_report.tmpl;\n"
           "                     SOURCE_DATE_EPOCH fixes the date)\n"
           "  -h, --help         this text\n\n"
           "example:\n"
           "  mpilens stages samples/stages/luna_sim.jsonl --tasks-csv tasks.csv\n"
           "  mpilens stages samples/stages/luna_sim_v2.jsonl --baseline samples/stages/luna_sim.jsonl \\\n"
           "      -o stages.pdf\n");
}

/* The clock caveat of docs/icappa.md, one sentence: which stays crossed nodes, in which stages,
 * and what was done with them. Nothing when no task moved during a stay. */
static void print_clocks(const struct lens_stagelog *l)
{
    if (!l->ncross)
        return;
    printf("clocks: %zu stay%s began and ended on different nodes (", l->ncross, l->ncross == 1 ? "" : "s");
    for (size_t s = 0, k = 0; s < l->nstage; s++)
        if (l->cross[s])
            printf("%s%zu in %s", k++ ? ", " : "", l->cross[s], l->stages[s]);
    if (l->clocks == LENS_STAGELOG_PER_NODE)
        printf(");\n  two nodes' clocks may differ, so their lengths cannot be measured: the times\n"
               "  and tasks in stage below count only stays on one node (--clocks synced counts all)\n");
    else
        printf("); timed with --clocks synced,\n  which trusts that the nodes' clocks agree\n");
}

static void print_text(const struct lens_stagelog *l, size_t points, const double *times,
                       const size_t *counts)
{
    printf("stage log: %zu records, %zu tasks, %.6g s to %.6g s\n", l->nrecord, l->ntask, l->t0, l->t1);
    print_clocks(l);
    printf("waited for inputs: %zu of %zu tasks (%.1f%%)\n", l->waited, l->ntask,
           l->ntask ? 100.0 * (double)l->waited / (double)l->ntask : 0.0);
    printf("migrations [A0, A1, ...]: [");
    for (size_t k = 0; k < l->nmig; k++)
        printf("%s%zu", k ? ", " : "", l->mig_hist[k]);
    printf("]\n%-16s %8s %14s %14s %10s\n", "stage", "tasks", "mean s", "max s", "peak tasks");
    for (size_t s = 0; s < l->nstage; s++) {
        double mean, max;
        size_t n, peak = 0;
        lens_stagecmp_stage_stats(l, s, &n, &mean, &max);
        for (size_t i = 0; i < points; i++)
            peak = counts[i * l->nstage + s] > peak ? counts[i * l->nstage + s] : peak;
        printf("%-16s %8zu %14.6g %14.6g %10zu\n", l->stages[s], n, mean, max, peak);
    }
    (void)times;
}

/* The comparison of --baseline as a table, baseline then new in each column pair: the thesis
 * compares two implementations by these figures and by their plots (--plots). */
static void print_compare(const struct lens_stagecmp *c, const char *base, const char *cur)
{
    const struct lens_stagelog *b = c->log[0], *n = c->log[1];
    printf("baseline: %s\nnew:      %s\n", base, cur);
    printf("tasks %zu -> %zu; waited for inputs %zu -> %zu; duration %.6g s -> %.6g s\n", b->ntask, n->ntask,
           b->waited, n->waited, b->t1 - b->t0, n->t1 - n->t0);
    if (b->ncross || n->ncross)
        printf("clocks (%s): %zu -> %zu stays across two nodes %s\n",
               n->clocks == LENS_STAGELOG_SYNCED ? "synced" : "per-node", b->ncross, n->ncross,
               n->clocks == LENS_STAGELOG_SYNCED ? "timed as if one clock" : "counted, not timed");
    printf("%-16s %16s %26s %9s %14s\n", "stage", "tasks", "mean s", "new/base", "max s");
    for (size_t s = 0; s < c->nstage; s++) {
        const struct lens_stagecmp_stage *g = &c->stages[s];
        char ratio[32] = "-"; /* no ratio when the baseline measured nothing in the stage */
        if (g->tasks[0] && g->mean[0] > 0)
            snprintf(ratio, sizeof ratio, "%.3gx", g->mean[1] / g->mean[0]);
        printf("%-16s %6zu -> %6zu %11.4g -> %-11.4g %9s %11.4g -> %.4g\n", g->name, g->tasks[0], g->tasks[1],
               g->mean[0], g->mean[1], ratio, g->max[0], g->max[1]);
    }
}

/* The PDF of -o (render/doc/stages_report.h): the per-stage rows as print_text computes them,
 * from the occupancy computed once in cmd_stages, so the PDF and the text agree. */
static int write_report(const struct lens_stagelog *l, const char *log_name, const struct lens_stagecmp *cmp,
                        const char *base_name, size_t points, const double *times, const size_t *counts,
                        const char *out, const char *title, const char *template_path, struct lens_err *e)
{
    char datadir[4096];
    /* no data directory means no fonts or template: a failure naming where it looked */
    int rc = lens_report_datadir(datadir, sizeof datadir, e);
    if (rc != LENS_OK)
        return rc;
    /* one row more than nothing: a log of records without stage names still allocates */
    struct lens_stages_report_stage *rows = lens_calloc(l->nstage ? l->nstage : 1, sizeof *rows);
    if (!rows)
        return lens_err_set(e, LENS_ENOMEM, "stages: out of memory");
    /* the same figures print_text prints: the stats shared with the comparison, and the peak
     * over the occupancy rows (counts is row-major by time point) */
    for (size_t s = 0; s < l->nstage; s++) {
        lens_stagecmp_stage_stats(l, s, &rows[s].tasks, &rows[s].mean, &rows[s].max);
        for (size_t i = 0; i < points; i++)
            rows[s].peak = counts[i * l->nstage + s] > rows[s].peak ? counts[i * l->nstage + s] : rows[s].peak;
    }
    struct lens_stages_report_opts o;
    lens_stages_report_opts_init(&o);
    o.datadir = datadir;
    o.title = title;
    o.template_path = template_path;
    const struct lens_stages_report_input in = {.log = l, .log_name = log_name, .stages = rows, .points = points,
                                                .times = times, .counts = counts, .cmp = cmp,
                                                .base_name = base_name};
    rc = lens_stages_report_write(&o, &in, out, e);
    lens_free(rows);
    return rc;
}

int cmd_stages(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"wait-stage", required_argument, NULL, 'w'},
        {"clocks", required_argument, NULL, 'k'},
        {"baseline", required_argument, NULL, 'b'},
        {"points", required_argument, NULL, 'p'},
        {"tasks-csv", required_argument, NULL, 'c'},
        {"plots", required_argument, NULL, 'P'},
        {"svg", no_argument, NULL, 'g'},
        {"title", required_argument, NULL, 'T'},
        {"template", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, svg = 0, c;
    const char *wait = "wait", *csv = NULL, *plots = NULL, *baseline = NULL, *pdf = NULL, *title = NULL,
               *template_path = NULL;
    size_t points = 50;
    enum lens_stagelog_clocks clocks = LENS_STAGELOG_PER_NODE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'w':
            if (!*optarg)
                return lens_cli_usage("stages", "--wait-stage wants a stage name");
            wait = optarg;
            break;
        case 'b':
            baseline = optarg;
            break;
        case 'k':
            if (!strcmp(optarg, "per-node"))
                clocks = LENS_STAGELOG_PER_NODE;
            else if (!strcmp(optarg, "synced"))
                clocks = LENS_STAGELOG_SYNCED;
            else
                return lens_cli_usage("stages", "--clocks wants per-node or synced, got '%s'", optarg);
            break;
        case 'p': {
            char *end;
            unsigned long v = strtoul(optarg, &end, 10);
            if (!*optarg || *optarg == '-' || *end || v < 1 || v > 100000)
                return lens_cli_usage("stages", "--points wants an integer 1..100000, got '%s'", optarg);
            points = v;
            break;
        }
        case 'c':
            csv = optarg;
            break;
        case 'P':
            plots = optarg;
            break;
        case 'g':
            svg = 1;
            break;
        case 'o':
            pdf = optarg;
            break;
        case 'T':
            title = optarg;
            break;
        case 'L':
            template_path = optarg;
            break;
        case 'h':
            help();
            return LENS_EXIT_OK;
        default:
            return lens_cli_usage("stages", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (svg && !plots)
        return lens_cli_usage("stages", "--svg needs --plots DIR");
    /* a title or template without a PDF would be silently ignored: say so instead */
    if ((title || template_path) && !pdf)
        return lens_cli_usage("stages", "--title and --template go with -o FILE.pdf");
    if (optind != argc - 1)
        return lens_cli_usage("stages", optind == argc ? "missing LOG" : "more than one LOG");
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_stagelog *l = NULL;
    int rc = lens_stagelog_read(argv[optind], wait, clocks, &l, &e);
    if (rc == LENS_OK && lens_stagelog_find(l, wait) < 0)
        lens_cli_warn("%s: no stage named '%s': no task counts as waiting", argv[optind], wait);
    /* the older log is read with the same wait stage and clocks, so both count alike */
    struct lens_stagelog *old = NULL;
    struct lens_stagecmp *cmp = NULL;
    if (rc == LENS_OK && baseline)
        rc = lens_stagelog_read(baseline, wait, clocks, &old, &e);
    if (rc == LENS_OK && baseline)
        rc = lens_stagecmp_build(old, l, points, &cmp, &e);
    if (rc == LENS_OK && csv) {
        struct lens_atomic a;
        rc = lens_atomic_open(&a, csv, "w", &e);
        if (rc == LENS_OK) {
            rc = lens_stagelog_write_tasks_csv(l, a.fp, &e);
            rc = rc == LENS_OK ? lens_atomic_commit(&a, &e) : lens_atomic_fail(&a, rc, &e);
        }
    }
    /* the occupancy is computed here, once: the plot only draws it, the text prints it */
    double *times = NULL;
    size_t *counts = NULL;
    if (rc == LENS_OK && (plots || pdf || !json)) {
        times = lens_malloc((points ? points : 1) * sizeof *times);
        counts = lens_malloc((points ? points : 1) * (l->nstage ? l->nstage : 1) * sizeof *counts);
        rc = times && counts ? lens_stagelog_occupancy(l, points, times, counts, &e)
                             : lens_err_set(&e, LENS_ENOMEM, "stages: out of memory");
    }
    if (rc == LENS_OK && plots) {
        char path[4096], *where = NULL; /* a new folder appears whole, with the CSV */
        const char *ext = svg ? "svg" : "png";
        rc = lens_atomic_dir(plots, &where, &e);
        snprintf(path, sizeof path, "%s/stage_times.%s", where ? where : plots, ext);
        if (rc == LENS_OK)
            rc = lens_profile_plot_stagelog_times(l, path, lens_cli_font(), &e);
        snprintf(path, sizeof path, "%s/stage_occupancy.%s", where ? where : plots, ext);
        if (rc == LENS_OK)
            rc = lens_profile_plot_stagelog_occupancy(l, points, times, counts, path, lens_cli_font(), &e);
        snprintf(path, sizeof path, "%s/stage_compare.%s", where ? where : plots, ext);
        if (rc == LENS_OK && cmp)
            rc = lens_profile_plot_stagecmp(cmp, path, lens_cli_font(), &e);
        lens_free(where);
    }
    /* the PDF before the text: a report that fails stops the command before stdout says
     * anything, so a non-zero exit never follows a complete-looking comparison */
    if (rc == LENS_OK && pdf)
        rc = write_report(l, argv[optind], cmp, baseline, points, times, counts, pdf, title, template_path, &e);
    if (rc == LENS_OK && json) {
        rc = cmp ? lens_stagecmp_write_json(cmp, stdout, &e) : lens_stagelog_write_json(l, points, stdout, &e);
    } else if (rc == LENS_OK && cmp) {
        print_compare(cmp, baseline, argv[optind]);
    } else if (rc == LENS_OK) {
        print_text(l, points, times, counts);
    }
    lens_free(times);
    lens_free(counts);
    lens_stagecmp_free(cmp);
    lens_stagelog_free(old);
    lens_stagelog_free(l);
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
