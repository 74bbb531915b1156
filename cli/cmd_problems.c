/* mpilens problems: reads an OTF2 trace, applies the rule base and prints the performance
 * problems found (text or JSON), with their share of the run time, advice and call sites. */
#include "cli.h"

#include "../analysis/problems.h"

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
    printf("usage: mpilens problems [options] TRACE\n\n"
           "TRACE is a traces.otf2 anchor file or the folder holding it (ours or Score-P's).\n"
           "Applies the rules of templates/rules (late sender, wait at barrier, ...) and lists\n"
           "each problem with its time, share of the total time (sum over ranks), time per\n"
           "rank, description, advice and the call sites that caused it.\n\n"
           "options:\n"
           "  --rules DIR     rule files (*.rules); default $MPILENS_RULES or templates/rules\n"
           "  --json          JSON instead of text\n"
           "  --lang en|ru    language of names, descriptions and advice (default en)\n"
           "  -o, --output F  write to F (atomically) instead of standard output\n"
           "  -h, --help      this help\n\n"
           "example:\n"
           "  mpilens problems ../shared/data/otf2/casita-4_mpi_ls_barr\n"
           "  mpilens problems --json --lang ru mpilens-trace/traces.otf2 -o problems.json\n");
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* $MPILENS_RULES, then templates/rules beside the build tree of this binary, then ./ */
static const char *default_rules(char *buf, size_t n)
{
    const char *env = getenv("MPILENS_RULES");
    if (env && *env)
        return env;
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = 0;
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = 0;
            snprintf(buf, n, "%s/../../templates/rules", exe);
            if (is_dir(buf))
                return buf;
            snprintf(buf, n, "%s/../share/mpilens/rules", exe);
            if (is_dir(buf))
                return buf;
        }
    }
    return "templates/rules";
}

int cmd_problems(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, NULL, 'r'},
                                         {"json", no_argument, NULL, 'j'},
                                         {"lang", required_argument, NULL, 'l'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    char buf[PATH_MAX + 64];
    const char *rules = NULL, *output = NULL;
    int json = 0, lang = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules = optarg; break;
        case 'j': json = 1; break;
        case 'o': output = optarg; break;
        case 'l':
            if (!strcmp(optarg, "en"))
                lang = 0;
            else if (!strcmp(optarg, "ru"))
                lang = 1;
            else
                return lens_cli_usage("problems", "--lang must be en or ru, not '%s'", optarg);
            break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("problems", "unknown option");
        }
    }
    if (optind != argc - 1)
        return lens_cli_usage("problems", optind >= argc ? "missing TRACE" : "one TRACE only");
    if (!rules)
        rules = default_rules(buf, sizeof buf);
    struct lens_err e = {0};
    struct lens_problems *p = NULL;
    if (lens_problems_run(argv[optind], rules, &p, &e))
        return lens_cli_fail(&e);
    if (p->warning[0])
        lens_cli_warn("%s", p->warning);
    struct lens_atomic a = {0};
    FILE *fp = stdout;
    if (output) {
        if (lens_atomic_open(&a, output, "w", &e)) {
            lens_problems_free(p);
            return lens_cli_fail(&e);
        }
        fp = a.fp;
    }
    int rc = json ? lens_problems_write_json(p, lang, fp) : lens_problems_write_text(p, lang, fp);
    lens_problems_free(p);
    if (output) {
        if (rc) {
            lens_atomic_abort(&a);
            lens_err_set(&e, LENS_EIO, "%s: write error", output);
            return lens_cli_fail(&e);
        }
        if (lens_atomic_commit(&a, &e))
            return lens_cli_fail(&e);
    }
    return rc ? LENS_EXIT_FAIL : LENS_EXIT_OK;
}
