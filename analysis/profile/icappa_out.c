/* ICAPPA results as text: JSON for scripts, an aligned table, and prose for the report. The
 * clustering itself is in icappa.c; these only read a finished struct lens_icappa. */
#include "icappa.h"

#include "common/json.h"

#include <stdio.h>

/* Keys and their order are the stable interface of docs/icappa.md: scripts and the tests read
 * them, so a new key goes at the end of its object, never in between. Processes are written as
 * ranks and functions as names, never as matrix indices, which mean nothing outside this run.
 * stdio errors are sticky, so the one ferror at the end covers every write. */
int lens_icappa_write_json(const struct lens_icappa *r, const struct lens_profile *p, FILE *fp,
                           struct lens_err *e)
{
    struct lens_json j;
    lens_json_init(&j, fp);
    lens_json_begin_object(&j);
    /* names in phase 1's ranked order: the costliest first */
    lens_json_key(&j, "dominating_functions");
    lens_json_begin_array(&j);
    for (size_t i = 0; i < r->ndom; i++)
        lens_json_string(&j, p->funcs[r->dom[i]]);
    lens_json_end_array(&j);
    /* ranks ascending, as phase 2 leaves its rows and the profile sorts them */
    lens_json_key(&j, "costly_processes");
    lens_json_begin_array(&j);
    for (size_t i = 0; i < r->ncostly; i++)
        lens_json_int(&j, p->ranks[r->costly[i]]);
    lens_json_end_array(&j);
    lens_json_key(&j, "iterations");
    lens_json_begin_array(&j);
    for (size_t k = 0; k < r->nrounds; k++) {
        const struct lens_icappa_round *d = &r->rounds[k];
        int fn = d->set == LENS_ICAPPA_FUNCTIONS;
        lens_json_begin_object(&j);
        lens_json_key(&j, "set");
        lens_json_string(&j, fn ? "functions" : "processes");
        lens_json_key(&j, "clusters");
        lens_json_begin_array(&j);
        for (int c = 0; c < 2; c++) { /* function names or process ranks */
            lens_json_begin_array(&j);
            for (size_t i = 0; i < d->size[c]; i++) {
                if (fn)
                    lens_json_string(&j, p->funcs[d->members[c][i]]);
                else
                    lens_json_int(&j, p->ranks[d->members[c][i]]);
            }
            lens_json_end_array(&j);
        }
        lens_json_end_array(&j);
        /* "bic" is the two-cluster BIC, the one the split is judged by; the one-cluster BIC follows
         * under its own key so the comparison can be redone from the JSON */
        lens_json_key(&j, "bic");
        /* NaN is written as JSON null by the writer: a BIC needs more points than clusters */
        lens_json_number(&j, d->bic2);
        lens_json_key(&j, "bic_one_cluster");
        lens_json_number(&j, d->bic1);
        /* mean seconds per point of cluster 0 (the costlier) and cluster 1 */
        lens_json_key(&j, "cost");
        lens_json_begin_array(&j);
        lens_json_number(&j, d->cost[0]);
        lens_json_number(&j, d->cost[1]);
        lens_json_end_array(&j);
        lens_json_key(&j, "attributes");
        lens_json_int(&j, (long long)d->nattr);
        lens_json_key(&j, "attributes_kept");
        lens_json_int(&j, (long long)d->nkept);
        lens_json_key(&j, "accepted");
        lens_json_bool(&j, d->accepted);
        lens_json_key(&j, "stop");
        lens_json_string(&j, d->stop); /* NULL prints null */
        lens_json_end_object(&j);
    }
    lens_json_end_array(&j);
    /* a phase that never ran (impossible after a successful run) would print "" rather than null,
     * keeping the value a string for readers that expect one */
    lens_json_key(&j, "stop");
    lens_json_begin_object(&j);
    lens_json_key(&j, "functions");
    lens_json_string(&j, r->stop[0] ? r->stop[0] : "");
    lens_json_key(&j, "processes");
    lens_json_string(&j, r->stop[1] ? r->stop[1] : "");
    lens_json_end_object(&j);
    lens_json_end_object(&j);
    fputc('\n', fp);
    if (ferror(fp))
        return lens_err_set(e, LENS_EIO, "icappa: write error");
    return LENS_OK;
}

/* Ranks as ranges: 0-3,8,10-12, at most 24 ranges (the JSON form has them all). Rows are
 * ascending, so are their ranks.
 * 24 ranges keep the line readable on a terminal for scattered ranks (every other rank of a
 * 4096-process run would be 2048 numbers); the count of the rest says how much is hidden. */
static void rank_ranges(FILE *fp, const struct lens_profile *p, const size_t *rows, size_t n)
{
    int shown = 0;
    for (size_t i = 0; i < n; shown++) {
        if (shown == 24) {
            fprintf(fp, ",... (%zu more)", n - i);
            break;
        }
        size_t j = i;
        while (j + 1 < n && p->ranks[rows[j + 1]] == p->ranks[rows[j]] + 1)
            j++;
        fprintf(fp, "%s%ld", i ? "," : "", p->ranks[rows[i]]);
        if (j > i)
            fprintf(fp, "-%ld", p->ranks[rows[j]]);
        i = j + 1;
    }
}

/* The same facts as the JSON, for people: shares of the total time make the dominating
 * functions comparable across runs of different length, which raw seconds are not. The
 * total is summed per function in column order, as the prose does, so both print the same
 * percentages. */
int lens_icappa_write_text(const struct lens_icappa *r, const struct lens_profile *p, FILE *fp,
                           struct lens_err *e)
{
    double all = 0;
    for (size_t f = 0; f < p->nfunc; f++)
        all += lens_profile_func_total(p, f);
    fprintf(fp, "profile: %zu processes x %zu functions, %.6g s in total\n", p->nproc, p->nfunc, all);
    fprintf(fp, "dominating functions (costliest first):\n");
    for (size_t i = 0; i < r->ndom; i++) {
        double t = lens_profile_func_total(p, r->dom[i]);
        fprintf(fp, "  %-32s %12.6g s  %5.1f%%\n", p->funcs[r->dom[i]], t, all > 0 ? 100 * t / all : 0);
    }
    fprintf(fp, "costly processes (%zu of %zu): ", r->ncostly, p->nproc);
    rank_ranges(fp, p, r->costly, r->ncostly);
    fputc('\n', fp);
    fprintf(fp, "iterations:\n");
    for (size_t k = 0; k < r->nrounds; k++) {
        const struct lens_icappa_round *d = &r->rounds[k];
        fprintf(fp, "  %zu %s: %zu | %zu points, %zu of %zu attributes kept, mean cost %.6g | %.6g s, "
                "BIC %.6g (2 clusters) vs %.6g (1): %s\n",
                k + 1, d->set == LENS_ICAPPA_FUNCTIONS ? "functions" : "processes", d->size[0],
                d->size[1], d->nkept, d->nattr, d->cost[0], d->cost[1], d->bic2, d->bic1,
                /* an accepted round only stops by convergence (round_run's last test) */
                d->accepted ? (d->stop ? "split, then stop: costlier cluster converged" : "split")
                            : d->stop);
    }
    fprintf(fp, "stopped: functions: %s; processes: %s\n", r->stop[0], r->stop[1]);
    if (ferror(fp))
        return lens_err_set(e, LENS_EIO, "icappa: write error");
    return LENS_OK;
}

/* The report's sentences. "No function stands out" is said exactly when phase 1 accepted no
 * split (its first round was rejected): then dom is every function and listing them as
 * "dominating" would be false. Likewise no process group is named when phase 2 kept all of
 * them. At most 8 functions are named: a sentence, not a table. */
int lens_icappa_write_prose(const struct lens_icappa *r, const struct lens_profile *p, FILE *fp,
                            struct lens_err *e)
{
    double all = 0;
    for (size_t f = 0; f < p->nfunc; f++)
        all += lens_profile_func_total(p, f);
    /* round 0 is phase 1's first round whenever phase 1 ran one */
    int split_f = r->nrounds > 0 && r->rounds[0].set == LENS_ICAPPA_FUNCTIONS && r->rounds[0].accepted;
    if (!split_f || r->ndom == 0) {
        fprintf(fp, "No function stands out: the %zu functions cost alike.", p->nfunc);
    } else {
        fprintf(fp, "%s dominate%s the run: ", r->ndom == 1 ? "One function" : "These functions",
                r->ndom == 1 ? "s" : "");
        for (size_t i = 0; i < r->ndom && i < 8; i++) {
            double t = lens_profile_func_total(p, r->dom[i]);
            fprintf(fp, "%s%s (%.1f%% of all time)", i ? ", " : "", p->funcs[r->dom[i]],
                    all > 0 ? 100 * t / all : 0);
        }
        if (r->ndom > 8)
            fprintf(fp, " and %zu more", r->ndom - 8);
        fputc('.', fp);
    }
    if (r->ncostly == 0 || r->ncostly == p->nproc) {
        fprintf(fp, " No group of processes stands out: the cost is spread over all %zu.\n", p->nproc);
    } else {
        /* seconds per process in the dominating functions, inside and outside the group */
        double in = 0, out = 0;
        char *mark = lens_calloc(p->nproc, 1);
        if (!mark)
            return lens_err_set(e, LENS_ENOMEM, "icappa: out of memory");
        for (size_t i = 0; i < r->ncostly; i++)
            mark[r->costly[i]] = 1;
        /* One pass over the processes, adding each to its side: O(nproc ndom). The two means make
         * the contrast a per-process number, so a group of 4 and the other 60 compare fairly. */
        for (size_t q = 0; q < p->nproc; q++)
            for (size_t i = 0; i < r->ndom; i++)
                *(mark[q] ? &in : &out) += p->sec[q * p->nfunc + r->dom[i]];
        lens_free(mark);
        in /= (double)r->ncostly;
        /* ncostly is strictly between 0 and nproc here, so neither division is by 0 */
        out /= (double)(p->nproc - r->ncostly);
        fprintf(fp, " %s most on %zu of %zu processes (ranks ", r->ndom == 1 ? "It costs" : "They cost",
                r->ncostly, p->nproc);
        rank_ranges(fp, p, r->costly, r->ncostly);
        fprintf(fp, "): %.3g s per process there against %.3g s on the others", in, out);
        /* the factor only when it is finite: the others may spend no time in these functions */
        if (out > 0)
            fprintf(fp, " (%.1fx)", in / out);
        fputs(".\n", fp);
    }
    if (ferror(fp))
        return lens_err_set(e, LENS_EIO, "icappa: write error");
    return LENS_OK;
}
