/* mpilens problems: reads an OTF2 trace, applies the rule base and prints the performance
 * problems found (text or JSON), with their share of the run time, advice and call sites;
 * optionally draws the timeline around the worst instance and writes the PDF report. */
#include "cli.h"
#include "common/atomic.h"

#include "analysis/trace/trace.h"
#include "common/datadir.h"
#include "render/doc/doc.h"
#include "render/fig/fig.h"

#include <math.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

LENS_COMMAND(problems, "find performance problems in an OTF2 trace with the rule base");

static void help(void)
{
    printf("usage: mpilens problems [options] TRACE\n"
           "       mpilens problems --report OUT.pdf [--labels A,B] [--walls S1,S2] TRACE...\n"
           "       mpilens problems --report OUT.pdf --versions NAME=DIR,NAME=DIR...\n\n"
           "TRACE is a traces.otf2 anchor file or the folder holding it (ours or Score-P's).\n"
           "Applies the rules of templates/rules (late sender, wait at barrier, ...) and lists\n"
           "each problem with its time, share of the total time (sum over ranks), time per\n"
           "rank, description, advice and the call sites of each member of the pattern: where\n"
           "the time was lost and, marked (cause), where the call that made it wait was made\n"
           "(a function inlined by the compiler is named with the one it was inlined into).\n"
           "Each rank's time in MPI is printed beside its problems' sum, which never exceeds it.\n\n"
           "options:\n"
           "  --rules DIR     rule files (*.rules); default $MPILENS_RULES, else templates/rules\n"
           "                  of the data directory (build or installed tree)\n"
           "  --json          JSON instead of text\n"
           "  --lang en|ru    language of names, descriptions and advice (default en)\n"
           "  -o, --output F  write to F (atomically) instead of standard output\n"
           "  --timeline F.png|F.svg  draw the timeline around the worst problem instance\n"
           "  --window T0,T1  the timeline's window instead, seconds of trace time\n"
           "  --problem ID    centre the timeline on the worst instance of problem ID\n"
           "  --report F.pdf  write the PDF report (layout and texts:\n"
           "                  templates/problems_report.tmpl; SOURCE_DATE_EPOCH fixes the date)\n"
           "  --title TEXT    with --report: the report's title\n"
           "  --labels A,B    with --report: names of the TRACEs in the report (default: paths)\n"
           "  --walls S1,S2   with --report: measured run time of each TRACE in seconds; with\n"
           "                  several TRACEs the report compares them (speed-up against the first)\n"
           "  --versions N=DIR,...  with --report, instead of TRACEs: versions of one program,\n"
           "                  each traced at several process counts by 'mpilens trace --procs'\n"
           "                  (DIR/walls.csv, DIR/pP). Adds the section 'Gain over process\n"
           "                  counts' (time of each version, gain against the first, main\n"
           "                  problems' shares); the traces at the largest count are detailed\n"
           "  -h, --help      this help\n\n"
           "With --timeline or --report the text listing is not printed unless --json or -o\n"
           "asks for it; a line on standard error says which window was drawn.\n\n"
           "example:\n"
           "  mpilens problems tests/data/otf2/casita-4_mpi_ls_barr\n"
           "  mpilens problems --json --lang ru mpilens-trace/traces.otf2 -o problems.json\n"
           "  mpilens problems mpilens-trace --timeline worst.svg --report problems.pdf\n"
           "  mpilens problems --report jacobi.pdf --labels naive,overlapped --walls 12.8,7.9 \\\n"
           "      naive-trace overlapped-trace\n"
           "  mpilens problems --report gain.pdf --versions naive=naive-dir,overlapped=over-dir\n");
}

/* $MPILENS_RULES, else templates/rules of the data directory (the build or installed tree,
 * never the working directory); NULL with e filled when there is none. */
static const char *default_rules(char *buf, size_t n, struct lens_err *e)
{
    /* an empty MPILENS_RULES ("MPILENS_RULES= mpilens ...") counts as unset */
    const char *env = getenv("MPILENS_RULES");
    if (env && *env)
        return env;
    return lens_datadir_locate("templates/rules", buf, n, e) == LENS_OK ? buf : NULL;
}

/* "T0,T1" in seconds into t0 < t1. */
static int parse_window(const char *arg, double *t0, double *t1)
{
    char *end;
    /* Trace time starts at 0, so T0 < 0 is a mistake; T0 < T1 also makes q.t1 > q.t0 the
     * sign that --window was given (both stay 0 otherwise). */
    *t0 = strtod(arg, &end);
    if (end == arg || *end != ',')
        return -1;
    const char *b = end + 1;
    *t1 = strtod(b, &end);
    if (end == b || *end || !isfinite(*t0) || !isfinite(*t1) || *t1 <= *t0 || *t0 < 0)
        return -1;
    return 0;
}

/* TRACEs one run takes at most (a report comparing runs): the arrays below are fixed */
#define MAX_TRACES 16

struct request {
    const char *rules, *timeline, *problem, *report, *title;
    const char *trace[MAX_TRACES];  /* TRACE arguments; several only with --report */
    char *label[MAX_TRACES];        /* --labels, split (point into labels_buf) */
    double wall[MAX_TRACES];        /* --walls, NaN when not given */
    char labels_buf[4096];
    int ntraces, nlabels, nwalls;
    double t0, t1;
    int lang;
};

/* Splits "a,b,c" into q->label; returns how many, -1 when there are too many. */
static int parse_labels(struct request *q, const char *arg)
{
    /* copied because strtok_r writes into it; labels longer than the buffer are cut */
    snprintf(q->labels_buf, sizeof q->labels_buf, "%s", arg);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(q->labels_buf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (n == MAX_TRACES)
            return -1;
        q->label[n++] = tok;
    }
    return n;
}

/* "12.8,7.9" into q->wall (seconds > 0); returns how many, -1 when malformed. */
static int parse_walls(struct request *q, const char *arg)
{
    int n = 0;
    for (const char *s = arg;;) {
        char *end;
        /* a wall time must be a positive finite number: the speed-up divides by it */
        double v = strtod(s, &end);
        if (end == s || !isfinite(v) || v <= 0 || n == MAX_TRACES || (*end && *end != ','))
            return -1;
        q->wall[n++] = v;
        if (!*end)
            return n;
        s = end + 1;
    }
}

/* The events per rank on stderr, and a warning when ranks' traces end early (a run that
 * crashed or was killed: problems after that point cannot be found). A trace without any
 * event is an error: "no problems found" would be a claim about nothing. */
static int check_ends(const char *trace, const struct lens_trace *t, struct lens_err *e)
{
    char counts[2048], warning[4096];
    int early = lens_trace_ends_text(t, counts, sizeof counts, warning, sizeof warning);
    if (early < 0)
        return lens_err_set(e, LENS_ENOMEM, "out of memory");
    /* on stderr: the listing on stdout stays what --json or a script expects */
    fprintf(stderr, "mpilens: %s: %s\n", trace, counts);
    if (t->nevents == 0)
        return lens_err_set(e, LENS_EFORMAT, "%s: no events in any of its %d ranks: nothing to "
                            "analyse (a traced run that ended before its first flush?)", trace,
                            t->nranks);
    /* a warning, not an error: what was recorded before the end is still worth analysing */
    if (early)
        lens_cli_warn("%s: %s; problems after that are not seen", trace, warning);
    return LENS_OK;
}

/* Reads TRACE and the rules, checks its ends (above) and analyses it: the events are built
 * once here, and the listing, the timeline and the report all read this one analysis. */
static int analyse(const char *trace, const char *rules, unsigned flags,
                   struct lens_trace_analysis **a, struct lens_err *e)
{
    int rc = lens_trace_analysis_read(trace, rules, a, e);
    if (rc == LENS_OK)
        rc = check_ends(trace, (*a)->trace, e);
    if (rc == LENS_OK)
        rc = lens_trace_analysis_run(*a, flags, e);
    /* a rule skipped after a runtime error: the others' results stand, but say which */
    if (rc == LENS_OK && (*a)->problems->warning[0])
        lens_cli_warn("%s", (*a)->problems->warning);
    return rc;
}

/* The timeline of the first TRACE: the window from --window, else around the worst
 * instance (of --problem, else of any problem); the line on stderr says which was drawn,
 * so that a script or a test can check the choice without reading the picture. */
static int draw_timeline(const struct request *q, const struct lens_trace_analysis *a,
                         struct lens_err *e)
{
    struct lens_timeline_opts o;
    struct lens_timeline_window w;
    lens_timeline_opts_init(&o);
    o.t0 = q->t0;
    o.t1 = q->t1;
    o.problem = q->problem;
    o.lang = q->lang;
    o.font_path = lens_cli_font();
    /* an impossible window or an unknown --problem fails here, named after the picture */
    int rc = lens_timeline_select(a, &o, &w, e);
    if (rc)
        return lens_err_prefix(e, q->timeline);
    if ((rc = lens_timeline_write(q->timeline, a, &o, &w, e)))
        return rc;
    fprintf(stderr, "timeline: %s: window %.9f %.9f s, problem %s, rank %d, instance %.9f s for "
            "%.9f s, lanes %d-%d, calls %zu, messages %zu, instances %zu\n",
            q->timeline, w.t0, w.t1, w.problem >= 0 ? a->problems->res[w.problem].rule->id : "-",
            w.rank, w.time, w.seconds, w.lane0, w.lane0 + w.nlanes - 1, w.ncalls, w.nmessages,
            w.ninstances);
    return LENS_OK;
}

/* ---- --versions: one program in several versions, traced at several process counts ---- */

#define MAX_VERSIONS LENS_GAINPLOT_MAX_VERSIONS
#define MAX_PROCS 16  /* process counts per version: each is one analysed trace kept in memory */
#define MAX_MAIN 3    /* main problems in the figure: more lines than that no one can read */

struct versions {
    char buf[4096];                  /* --versions, split in place */
    const char *name[MAX_VERSIONS], *dir[MAX_VERSIONS];
    int nv, np;
    int procs[MAX_PROCS];            /* the first version's counts, in its walls.csv order */
    double time[MAX_VERSIONS * MAX_PROCS], gain[MAX_VERSIONS * MAX_PROCS];
    struct lens_trace_analysis *an[MAX_VERSIONS][MAX_PROCS];
    const char *problem[MAX_MAIN];   /* names of the main problems (borrowed from an[][]) */
    double share[MAX_VERSIONS * MAX_MAIN * MAX_PROCS];
    int nmain;
    char label[MAX_VERSIONS][512];   /* report inputs: "naive, p=4" */
};

/* "a=DIR1,b=DIR2" into v->name / v->dir; -1 when malformed or too many. */
static int parse_versions(struct versions *v, const char *arg)
{
    snprintf(v->buf, sizeof v->buf, "%s", arg);
    v->nv = 0;
    for (char *save = NULL, *tok = strtok_r(v->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        /* both halves needed: the name labels the table, the folder holds the runs */
        if (!eq || eq == tok || !eq[1] || v->nv == MAX_VERSIONS)
            return -1;
        *eq = '\0';
        v->name[v->nv] = tok;
        v->dir[v->nv++] = eq + 1;
    }
    return v->nv;
}

/* DIR/walls.csv of `mpilens trace --procs` into procs[] / secs[]; a row whose run failed is
 * an error naming the file and line: its trace would be partial and its time unknown. */
static int read_walls(const char *dir, int *procs, double *secs, int *n, struct lens_err *e)
{
    char path[PATH_MAX + 16], line[256];
    snprintf(path, sizeof path, "%s/walls.csv", dir);
    FILE *fp = fopen(path, "r");
    if (!fp)
        return lens_err_set(e, LENS_EIO, "%s: cannot open (trace the version with 'mpilens trace "
                            "--procs LIST -o %s -- PROGRAM')", path, dir);
    int rc = LENS_OK, ln = 0;
    *n = 0;
    while (rc == LENS_OK && fgets(line, sizeof line, fp)) {
        ln++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        else if (!feof(fp)) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%d: line too long", path, ln);
            break;
        }
        if (ln == 1) {
            if (strcmp(line, "procs,seconds,status"))
                rc = lens_err_set(e, LENS_EFORMAT, "%s:1: header is not procs,seconds,status", path);
            continue;
        }
        char *end, *end2;
        long p = strtol(line, &end, 10);
        if (end == line || *end != ',' || p < 1 || p > 1000000) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%d: bad process count", path, ln);
            break;
        }
        double t = strtod(end + 1, &end2);
        if (end2 == end + 1) {
            /* an empty time: `trace --procs` wrote the failed run's status after it */
            const char *st = *end2 == ',' ? end2 + 1 : "unknown";
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%d: the run at %ld processes failed (status "
                              "%s): no time", path, ln, p, *st ? st : "unknown");
            break;
        }
        /* the gain divides by the time: it must be a positive number */
        if (*end2 != ',' || !isfinite(t) || t <= 0) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%d: bad time", path, ln);
            break;
        }
        if (*n == MAX_PROCS) {
            rc = lens_err_set(e, LENS_EFORMAT, "%s:%d: more than %d process counts", path, ln, MAX_PROCS);
            break;
        }
        procs[*n] = (int)p;
        secs[(*n)++] = t;
    }
    fclose(fp);
    if (rc == LENS_OK && *n == 0)
        rc = lens_err_set(e, LENS_EFORMAT, "%s: no runs", path);
    return rc;
}

/* The share of problem id in an analysis, 0 when it found none. */
static double share_of(const struct lens_trace_analysis *a, const char *id)
{
    for (int i = 0; i < a->problems->nres; i++)
        if (!strcmp(a->problems->res[i].rule->id, id))
            return a->problems->res[i].share;
    return 0;
}

/* Reads every version's walls, analyses each of its traces once, and computes what the
 * report's gain section shows: times, gains against the first version at the same count,
 * the main problems (largest shares summed over all runs) and their share in every run. */
static int versions_run(struct versions *v, const char *rules, unsigned flags, int lang,
                        struct lens_err *e)
{
    for (int k = 0; k < v->nv; k++) {
        int procs[MAX_PROCS], n;
        double secs[MAX_PROCS];
        int rc = read_walls(v->dir[k], procs, secs, &n, e);
        if (rc)
            return rc;
        if (k == 0) {
            v->np = n;
            memcpy(v->procs, procs, sizeof procs);
        }
        /* a gain compares equal counts: every version must have run the first one's */
        for (int p = 0; p < v->np; p++) {
            int j = 0;
            while (j < n && procs[j] != v->procs[p])
                j++;
            if (j == n)
                return lens_err_set(e, LENS_EFORMAT, "%s/walls.csv: no run at %d processes, which "
                                    "%s has", v->dir[k], v->procs[p], v->dir[0]);
            v->time[k * v->np + p] = secs[j];
            char trace[PATH_MAX + 32];
            snprintf(trace, sizeof trace, "%s/p%d", v->dir[k], v->procs[p]);
            if ((rc = analyse(trace, rules, flags, &v->an[k][p], e)))
                return rc;
        }
    }
    for (int k = 0; k < v->nv; k++)
        for (int p = 0; p < v->np; p++)
            v->gain[k * v->np + p] = v->time[p] / v->time[k * v->np + p];
    /* main problems: the rule ids with the largest share summed over every run, in that
     * order; ties keep the first seen, so the choice is stable */
    const char *ids[MAX_MAIN];
    double best[MAX_MAIN];
    v->nmain = 0;
    for (int k = 0; k < v->nv; k++)
        for (int p = 0; p < v->np; p++) {
            const struct lens_problems *pr = v->an[k][p]->problems;
            for (int i = 0; i < pr->nres; i++) {
                const char *id = pr->res[i].rule->id;
                int seen = 0;
                for (int m = 0; m < v->nmain; m++)
                    seen |= !strcmp(ids[m], id);
                if (seen || pr->res[i].total_s <= 0)
                    continue;
                double sum = 0;
                for (int k2 = 0; k2 < v->nv; k2++)
                    for (int p2 = 0; p2 < v->np; p2++)
                        sum += share_of(v->an[k2][p2], id);
                /* insertion into the top MAX_MAIN, largest first */
                int at = v->nmain;
                while (at > 0 && best[at - 1] < sum)
                    at--;
                if (at == MAX_MAIN)
                    continue;
                int last = v->nmain < MAX_MAIN ? v->nmain : MAX_MAIN - 1;
                for (int m = last; m > at; m--)
                    ids[m] = ids[m - 1], best[m] = best[m - 1], v->problem[m] = v->problem[m - 1];
                ids[at] = id, best[at] = sum;
                /* the name in the report's language, English when the rule has no other */
                const struct lens_problem_result *r = &pr->res[i];
                v->problem[at] = lang == 1 && r->text[1][0] ? r->text[1][0] : r->text[0][0];
                if (v->nmain < MAX_MAIN)
                    v->nmain++;
            }
        }
    for (int k = 0; k < v->nv; k++)
        for (int m = 0; m < v->nmain; m++)
            for (int p = 0; p < v->np; p++)
                v->share[(k * v->nmain + m) * v->np + p] = share_of(v->an[k][p], ids[m]);
    /* one line per count on stderr, the numbers of the table, for scripts and the demo */
    for (int p = 0; p < v->np; p++) {
        fprintf(stderr, "gain: procs %d", v->procs[p]);
        for (int k = 0; k < v->nv; k++)
            fprintf(stderr, " %s %.6f s", v->name[k], v->time[k * v->np + p]);
        for (int k = 1; k < v->nv; k++)
            fprintf(stderr, " gain %s %.2fx", v->name[k], v->gain[k * v->np + p]);
        fprintf(stderr, "\n");
    }
    return LENS_OK;
}

static void versions_free(struct versions *v)
{
    for (int k = 0; k < v->nv; k++)
        for (int p = 0; p < v->np; p++)
            lens_trace_analysis_free(v->an[k][p]);
}

/* The PDF of every TRACE, each named by its --labels entry (else its path) and with its
 * --walls time (NaN: not measured; the report then uses the trace's longest rank). */
static int write_report(const struct request *q, struct lens_trace_analysis *const *a,
                        struct versions *v, struct lens_err *e)
{
    char datadir[4096];
    int rc = lens_report_datadir(datadir, sizeof datadir, e);
    if (rc)
        return rc;
    struct lens_problems_report_opts o;
    lens_problems_report_opts_init(&o);
    o.datadir = datadir;
    o.title = q->title;
    o.rules = q->rules;
    o.lang = q->lang;
    struct lens_gainplot_opts g = {0};
    struct lens_problems_report_input in[MAX_TRACES];
    if (v) {
        g = (struct lens_gainplot_opts){.nprocs = v->np, .procs = v->procs, .nversions = v->nv,
                                        .version = v->name, .time = v->time, .gain = v->gain,
                                        .nproblems = v->nmain, .problem = v->problem,
                                        .share = v->share};
        o.gain = &g;
        /* the detailed traces: each version at its largest count, where problems grow most */
        int last = 0;
        for (int p = 1; p < v->np; p++)
            if (v->procs[p] > v->procs[last])
                last = p;
        for (int k = 0; k < v->nv; k++) {
            snprintf(v->label[k], sizeof v->label[k], "%s, p=%d", v->name[k], v->procs[last]);
            in[k] = (struct lens_problems_report_input){v->label[k], v->an[k][last],
                                                        v->time[k * v->np + last], NULL};
        }
        return lens_problems_report_write(&o, in, v->nv, q->report, e);
    }
    /* the message-size profile of each trace, binned as `mpilens msgsizes` bins by default,
     * computed here so the report only lays it out */
    struct lens_msgsize *ms[MAX_TRACES] = {0};
    for (int i = 0; i < q->ntraces && rc == LENS_OK; i++) {
        rc = lens_msgsize_new(&ms[i], e);
        if (rc == LENS_OK)
            rc = lens_msgsize_add_trace(ms[i], a[i]->trace, e);
        if (rc == LENS_OK)
            rc = lens_msgsize_bin(ms[i], NULL, 0, 0, e);
        in[i] = (struct lens_problems_report_input){
            i < q->nlabels ? q->label[i] : q->trace[i], a[i], i < q->nwalls ? q->wall[i] : NAN,
            ms[i]};
    }
    if (rc == LENS_OK)
        rc = lens_problems_report_write(&o, in, q->ntraces, q->report, e);
    for (int i = 0; i < q->ntraces; i++)
        lens_msgsize_free(ms[i]);
    return rc;
}

/* The listing (text or JSON) to output, atomically, or to standard output. LENS_EIO with e
 * left empty: a write error on standard output (the exit status says it). */
static int write_listing(const struct lens_trace_analysis *an, int json, int lang, const char *output,
                         struct lens_err *e)
{
    struct lens_atomic a = {0};
    FILE *fp = stdout;
    if (output) {
        /* e says why (the folder is missing, no permission) */
        if (lens_atomic_open(&a, output, "w", e))
            return LENS_EIO;
        fp = a.fp;
    }
    /* the writers return non-zero on a stream error; the atomic file keeps the system's reason */
    /* the JSON carries the trace's provenance too (MPILENS::* properties, when recorded) */
    const struct lens_problems *p = an->problems;
    int rc = json ? lens_problems_write_json_trace(p, an->trace, lang, fp) : lens_problems_write_text(p, lang, fp);
    if (output && rc) {
        lens_err_set(e, LENS_EIO, "%s: write error", output);
        return lens_atomic_fail(&a, LENS_EIO, e); /* the system's reason when there is one */
    }
    if (output)
        return lens_atomic_commit(&a, e);
    return rc ? LENS_EIO : LENS_OK;
}

int cmd_problems(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, NULL, 'r'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"lang", required_argument, NULL, 'l'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"timeline", required_argument, NULL, 'T'},
                                         {"window", required_argument, NULL, 'W'},
                                         {"problem", required_argument, NULL, 'P'},
                                         {"report", required_argument, NULL, 'R'},
                                         {"title", required_argument, NULL, 't'},
                                         {"labels", required_argument, NULL, 'L'},
                                         {"walls", required_argument, NULL, 'w'},
                                         {"versions", required_argument, NULL, 'V'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    char buf[PATH_MAX + 64];
    /* large (the analyses of every run): static, as one command runs per process */
    static struct versions vs;
    const char *versions = NULL;
    const char *output = NULL;
    /* Defaults: English (q.lang 0), the text listing on stdout, rules from $MPILENS_RULES or
     * the data directory, no timeline or report. */
    struct request q = {0};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': q.rules = optarg; break;
        case 'j': json = 1; break;
        case 'o': output = optarg; break;
        case 'T': q.timeline = optarg; break;
        case 'P': q.problem = optarg; break;
        case 'R': q.report = optarg; break;
        case 't': q.title = optarg; break;
        case 'L':
            if ((q.nlabels = parse_labels(&q, optarg)) < 0)
                return lens_cli_usage("problems", "--labels takes at most %d names", MAX_TRACES);
            break;
        case 'w':
            if ((q.nwalls = parse_walls(&q, optarg)) < 0)
                return lens_cli_usage("problems", "--walls needs seconds > 0 separated by "
                                      "commas, not '%s'", optarg);
            break;
        case 'W':
            if (parse_window(optarg, &q.t0, &q.t1))
                return lens_cli_usage("problems", "--window needs T0,T1 in seconds with "
                                      "0 <= T0 < T1, not '%s'", optarg);
            break;
        case 'l':
            if (!strcmp(optarg, "en"))
                q.lang = 0;
            else if (!strcmp(optarg, "ru"))
                q.lang = 1;
            else
                return lens_cli_usage("problems", "--lang must be en or ru, not '%s'", optarg);
            break;
        case 'V': versions = optarg; break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("problems", "unknown option");
        }
    }
    /* The checks below refuse every combination that would ignore an option silently; all are
     * usage errors (status 2) and come before any trace is read. */
    q.ntraces = argc - optind;
    if (versions) {
        if (!q.report || json || output || q.timeline || q.nlabels || q.nwalls || q.ntraces)
            return lens_cli_usage("problems", "--versions needs --report OUT.pdf and takes no "
                                  "TRACE, --labels, --walls, listing or timeline");
        memset(&vs, 0, sizeof vs);
        if (parse_versions(&vs, versions) < 1)
            return lens_cli_usage("problems", "--versions needs NAME=DIR,NAME=DIR (at most %d), "
                                  "not '%s'", MAX_VERSIONS, versions);
        struct lens_err e = {0};
        if (!q.rules && !(q.rules = default_rules(buf, sizeof buf, &e)))
            return lens_cli_fail(&e);
        int rc = versions_run(&vs, q.rules, LENS_PROBLEMS_KEEP_CHARGES, q.lang, &e);
        if (rc == LENS_OK)
            rc = write_report(&q, NULL, &vs, &e);
        versions_free(&vs);
        return rc ? lens_cli_fail(&e) : LENS_EXIT_OK;
    }
    if (q.ntraces < 1)
        return lens_cli_usage("problems", "missing TRACE");
    if (q.ntraces > 1 && (!q.report || json || output || q.timeline))
        return lens_cli_usage("problems", "several TRACEs only with --report (no listing or "
                              "timeline)");
    if (q.ntraces > MAX_TRACES)
        return lens_cli_usage("problems", "at most %d TRACEs", MAX_TRACES);
    if ((q.nlabels || q.nwalls) && !q.report)
        return lens_cli_usage("problems", "--labels and --walls need --report OUT.pdf");
    if ((q.nlabels && q.nlabels != q.ntraces) || (q.nwalls && q.nwalls != q.ntraces))
        return lens_cli_usage("problems", "--labels and --walls need one value per TRACE (%d)",
                              q.ntraces);
    if ((q.t1 > q.t0 || q.problem) && !q.timeline)
        return lens_cli_usage("problems", "--window and --problem need --timeline FILE");
    if (q.t1 > q.t0 && q.problem)
        return lens_cli_usage("problems", "--window and --problem exclude each other");
    if (q.title && !q.report)
        return lens_cli_usage("problems", "--title needs --report OUT.pdf");
    for (int i = 0; i < q.ntraces; i++)
        q.trace[i] = argv[optind + i];
    struct lens_err e = {0};
    /* no rules, no analysis: status 1, naming where the rules were looked for */
    if (!q.rules && !(q.rules = default_rules(buf, sizeof buf, &e)))
        return lens_cli_fail(&e);
    /* every TRACE analysed once; the timeline and the report need every charged call */
    struct lens_trace_analysis *an[MAX_TRACES] = {NULL};
    unsigned flags = q.timeline || q.report ? LENS_PROBLEMS_KEEP_CHARGES : 0;
    /* with --timeline or --report the pictures are the point; the listing only when asked */
    int listing = json || output || (!q.timeline && !q.report);
    int rc = LENS_OK;
    for (int i = 0; i < q.ntraces && rc == LENS_OK; i++)
        rc = analyse(q.trace[i], q.rules, flags, &an[i], &e);
    if (rc == LENS_OK && q.timeline)
        rc = draw_timeline(&q, an[0], &e);
    if (rc == LENS_OK && q.report)
        rc = write_report(&q, an, NULL, &e);
    /* the listing last: a failed picture or report leaves stdout empty */
    if (rc == LENS_OK && listing)
        rc = write_listing(an[0], json, q.lang, output, &e);
    for (int i = 0; i < q.ntraces; i++)
        lens_trace_analysis_free(an[i]);
    /* status 1 either way; lens_cli_finish in main.c prints the stdout error itself */
    if (rc == LENS_EIO && !e.msg[0]) /* a write error on standard output */
        return LENS_EXIT_FAIL;
    return rc ? lens_cli_fail(&e) : LENS_EXIT_OK;
}
