/* mpilens stages: the stage log of a task runtime (JSON lines {"task","stage","t","node"}):
 * total tasks, how many waited for inputs, the migration histogram, time per stage, and the
 * number of tasks in each stage over time; optionally the per-task table behind the plots. */
#include "cli.h"
#include "common/atomic.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/profile/profile.h"
#include "render/fig/fig.h"

LENS_COMMAND(stages, "tasks, waits, migrations and stage occupancy of a task-runtime stage log");

static void help(void)
{
    printf("usage: mpilens stages LOG [--json] [--wait-stage NAME] [--clocks per-node|synced]\n"
           "                    [--points N] [--tasks-csv FILE] [--plots DIR [--svg]]\n\n"
           "Reads a stage log of a task runtime such as LuNA: JSON lines\n"
           "  {\"task\": 17, \"stage\": \"distribute\", \"t\": 0.0312, \"node\": 2}\n"
           "one per task entering a stage (the last record of a task marks its end). Prints the\n"
           "number of tasks, how many waited for inputs, the histogram of migrations [A0, A1, ...]\n"
           "(a migration is a change of node between consecutive records), the time spent in each\n"
           "stage, and the number of tasks in each stage over time.\n\n"
           "options:\n"
           "  --json             one JSON object (keys in docs/icappa.md)\n"
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
           "  -h, --help         this text\n\n"
           "example:\n"
           "  mpilens stages samples/stages/luna_sim.jsonl --tasks-csv tasks.csv\n");
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
        double sum = 0, max = 0;
        size_t n = 0, peak = 0;
        for (size_t t = 0; t < l->ntask; t++) {
            double v = l->tasks[t].in_stage[s];
            sum += v;
            max = v > max ? v : max;
            n += v > 0;
        }
        for (size_t i = 0; i < points; i++)
            peak = counts[i * l->nstage + s] > peak ? counts[i * l->nstage + s] : peak;
        printf("%-16s %8zu %14.6g %14.6g %10zu\n", l->stages[s], n, n ? sum / (double)n : 0.0, max, peak);
    }
    (void)times;
}

int cmd_stages(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"wait-stage", required_argument, NULL, 'w'},
        {"clocks", required_argument, NULL, 'k'},
        {"points", required_argument, NULL, 'p'},
        {"tasks-csv", required_argument, NULL, 'c'},
        {"plots", required_argument, NULL, 'P'},
        {"svg", no_argument, NULL, 'g'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int json = 0, svg = 0, c;
    const char *wait = "wait", *csv = NULL, *plots = NULL;
    size_t points = 50;
    enum lens_stagelog_clocks clocks = LENS_STAGELOG_PER_NODE;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = 1;
            break;
        case 'w':
            if (!*optarg)
                return lens_cli_usage("stages", "--wait-stage wants a stage name");
            wait = optarg;
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
        case 'h':
            help();
            return LENS_EXIT_OK;
        default:
            return lens_cli_usage("stages", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (svg && !plots)
        return lens_cli_usage("stages", "--svg needs --plots DIR");
    if (optind != argc - 1)
        return lens_cli_usage("stages", optind == argc ? "missing LOG" : "more than one LOG");
    struct lens_err e;
    lens_err_clear(&e);
    struct lens_stagelog *l = NULL;
    int rc = lens_stagelog_read(argv[optind], wait, clocks, &l, &e);
    if (rc == LENS_OK && lens_stagelog_find(l, wait) < 0)
        lens_cli_warn("%s: no stage named '%s': no task counts as waiting", argv[optind], wait);
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
    if (rc == LENS_OK && (plots || !json)) {
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
        lens_free(where);
    }
    if (rc == LENS_OK && json) {
        rc = lens_stagelog_write_json(l, points, stdout, &e);
    } else if (rc == LENS_OK) {
        print_text(l, points, times, counts);
    }
    lens_free(times);
    lens_free(counts);
    lens_stagelog_free(l);
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
