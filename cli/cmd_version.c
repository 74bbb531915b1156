/* mpilens version: the tool's version and the versions of the libraries it was linked with,
 * for bug reports and for the self-describing output files. */
#include "cli.h"

#include "common/datadir.h"

#include <cairo.h>
#include <gsl/gsl_version.h>
#include <hpdf.h>
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

LENS_COMMAND(version, "print the version of mpilens and of its libraries");

int cmd_version(int argc, char **argv)
{
    /* no getopt: --help is the only option, and anything else is a usage error (status 2) */
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: mpilens version\n\nPrints the versions of mpilens, NetCDF, cairo, "
               "libharu and GSL,\nand the data directory in use (fonts, templates, rules and the samples; "
               "see\nMPILENS_DATADIR).\n\nexample:\n  mpilens version\n");
        return LENS_EXIT_OK;
    }
    if (argc > 1)
        return lens_cli_usage("version", "unexpected argument '%s'", argv[1]);
    /* one "name version" line each, so that scripts and bug reports can grep them; the versions
     * are those of the libraries loaded at run time, not the headers built against */
    printf("mpilens %s\n", LENS_VERSION);
    printf("netcdf %s\n", nc_inq_libvers());
    printf("cairo %s\n", cairo_version_string());
    printf("libharu %s\n", HPDF_GetVersion());
    printf("gsl %s\n", gsl_version);
    /* where an installed mpilens keeps its templates and samples, for people and scripts */
    char dir[4096];
    struct lens_err e;
    /* no data directory is not a failure here: version must work on a broken install, which is
     * when people run it */
    if (lens_datadir_find(dir, sizeof dir, &e) == LENS_OK)
        printf("datadir %s\n", dir);
    else
        printf("datadir none (%s)\n", e.msg);
    return LENS_EXIT_OK;
}
