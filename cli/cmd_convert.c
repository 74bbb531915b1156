/* mpilens convert: reads a latency cube in any supported layout, repairs network_test2's
 * defects, and writes it back in the classic layout with descriptive attributes. */
#include "cli.h"

#include "analysis/cube/cube.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

LENS_COMMAND(convert, "rewrite a cube in the network_test2 layout with repairs and attributes");

/* The help lists the descriptive attributes the writer adds (cmd_convert adds
 * converted_from): they are what a converted file has that the original lacks. */
static void help(void)
{
    printf("usage: mpilens convert INPUT -o PREFIX [--force]\n\n"
           "Reads INPUT (a network_test2 prefix, directory or *_median.nc file, either layout),\n"
           "repairs the defects that 'mpilens info' reports, and writes PREFIX_<stat>.nc and\n"
           "PREFIX_hosts.txt in the classic layout (int test_type), readable by network_test2's\n"
           "tools, with global attributes: mpilens_version, date, units, sender_index, statistic.\n\n"
           "options:\n"
           "  -o, --output PREFIX  output prefix (required)\n"
           "      --force          overwrite an existing result\n"
           "  -h, --help           show this help\n\n"
           "example:\n"
           "  mpilens convert old/network -o fixed/network\n");
}

int cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"force", no_argument, NULL, 'f'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    /* no default prefix: writing next to the input by surprise could shadow the original */
    const char *prefix = NULL;
    int force = 0, ch;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'o': prefix = optarg; break;
        case 'f': force = 1; break;
        case 'h': help(); return LENS_EXIT_OK;
        default: return lens_cli_usage("convert", "unknown option");
        }
    }
    /* Both usage errors (status 2), checked before anything is read. */
    if (!prefix)
        return lens_cli_usage("convert", "missing -o PREFIX");
    if (optind != argc - 1)
        return lens_cli_usage("convert", "expected one INPUT");
    struct lens_err e;
    lens_err_clear(&e);
    /* Refuse before reading: a conversion must not replace a measured result by accident, and
     * the check costs nothing next to reading the cube. Status 1: the input, not the usage. */
    if (!force && lens_cube_exists(prefix)) {
        lens_err_set(&e, LENS_EIO, "%s: a result with this prefix exists; use --force to overwrite", prefix);
        return lens_cli_fail(&e);
    }
    struct lens_cube *c;
    if (lens_cube_read(argv[optind], &c, &e) != LENS_OK)
        return lens_cli_fail(&e);
    /* the repairs made while reading are the point of converting: say each one */
    for (int w = 0; w < c->nwarn; w++)
        lens_cli_warn("%s", c->warnings[w]);
    /* name/value pairs, NULL-terminated: where the data came from travels with the file */
    const char *attrs[] = {"converted_from", c->source, NULL, NULL};
    /* written through the atomic writer: all files of the prefix appear together (main.c) */
    int rc = lens_cube_write(c, prefix, attrs, &e);
    lens_cube_free(c);
    return rc == LENS_OK ? LENS_EXIT_OK : lens_cli_fail(&e);
}
