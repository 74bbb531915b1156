/* Fuzz target "newick": a Newick tree (analysis/structure/newick.c) as `mpilens nj`/`cluster` compare
 * them, then writing it back and comparing it with itself (Robinson-Foulds distance 0).
 * Input: the first line lists the leaf names separated by spaces (at most 64), the rest is
 * the tree. Seeds: trees written by `mpilens cluster --newick` and hand-made ones.
 * Oracles besides the sanitizers: the tree written back and parsed again has the same
 * splits (Robinson-Foulds distance 0), and with finite lengths the same lengths. */
#include "fuzz_common.h"
#include "analysis/structure/newick.h"

#include <math.h>

#define MAXLEAF 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstr(data, size);
    const char *names[MAXLEAF];
    int n = 0;
    char *tree = strchr(text, '\n');
    if (tree)
        *tree++ = '\0';
    else
        tree = text + strlen(text);
    for (char *save = NULL, *w = strtok_r(text, " ", &save); w && n < MAXLEAF; w = strtok_r(NULL, " ", &save))
        names[n++] = w;
    struct lens_err e = {0};
    struct lens_newick *t = NULL, *back = NULL;
    if (fuzz_said("parse", lens_newick_parse(tree, names, n, &t, &e), &e) == LENS_OK) {
        char *buf = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&buf, &len);
        if (!fp)
            fuzz_die("open", "a memory stream");
        int wrc = lens_newick_write(t, names, fp, &e);
        fclose(fp);
        int finite = 1;
        for (int i = 0; i < t->nnode; i++)
            finite &= isfinite(t->len[i]) != 0;
        if (wrc == LENS_OK && lens_newick_parse(buf, names, n, &back, &e) != LENS_OK)
            fuzz_die("parse back the tree written:", e.msg);
        int rf = -1;
        double maxdiff = NAN;
        /* lengths are written with 17 significant digits: equal after the round trip */
        if (back && lens_newick_compare(t, back, &rf, &maxdiff, &e) == LENS_OK &&
            (rf != 0 || (finite && !(maxdiff == 0))))
            fuzz_die("find the tree written back equal:", "rf or maxdiff not 0");
        free(buf);
    }
    lens_newick_free(back);
    lens_newick_free(t);
    free(text);
    return 0;
}
