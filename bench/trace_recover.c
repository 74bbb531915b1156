/* mpilens-trace-recover DIR: writes DIR/traces.otf2 from the raw files a traced run left
 * when it ended without MPI_Finalize (crash, abort, kill). Serial: one process writes every
 * location, through OTF2's serial collective callbacks. `mpilens trace` runs it for you. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace_otf2.h"

int main(int argc, char **argv)
{
    struct lens_err e;
    int n = 0;
    if (argc != 2 || !strcmp(argv[1], "--help")) {
        fprintf(argc == 2 ? stdout : stderr, "usage: mpilens-trace-recover DIR\n");
        return argc == 2 ? 0 : 2;
    }
    lens_err_clear(&e);
    if (lens_trace_otf2_nranks(argv[1], &n, &e) == LENS_OK) {
        struct lens_trace_otf2_opts o = {.dir = argv[1], .nranks = n, .first = 0, .count = n,
                                         .coll = NULL, .keep_raw = 0};
        lens_trace_otf2_write(&o, &e);
    }
    if (e.code != LENS_OK) {
        fprintf(stderr, "mpilens-trace-recover: %s\n", e.msg);
        return 1;
    }
    char raw[4200];
    snprintf(raw, sizeof raw, "%s/raw", argv[1]);
    rmdir(raw); /* empty once every rank's files were converted */
    return 0;
}
