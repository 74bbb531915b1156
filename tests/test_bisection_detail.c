/* What `mpilens report` computes from mpilens-bench's side files before drawing: the retest
 * counts and per-row verdicts (lens_retest_summarise), a finding's verdict over both directions
 * (lens_retest_link_verdict), and a bisection run with its .nc (lens_bisection_detail_read:
 * links slowest first, hosts, node shares), on hand-made files whose answers are worked out in
 * the comments; a .nc of another run or with a rank out of range is refused by name. */
#include "analysis/cube/cube.h"
#include "common/alloc.h"
#include "lens_test.h"

#include <netcdf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[300];

static const char *put(const char *name, const char *text)
{
    static char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs(text, fp);
        fclose(fp);
    }
    return path;
}

static void retests(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    /* rows: 3->1 persists at 0 B, 3->2 (worst) and 1->3 (flagged) vanish, 0->3 is the control,
     * 3->1 persists again at 1024 B: 4 retested, 2 persist, 2 vanish; 3 flagged, 2 persist */
    const char *p = put("r_retest.csv", LENS_RETEST_HEADER "\n"
                        "0,3,1,1,1,27,28,flagged\n"
                        "0,3,2,4e-6,1.5e-6,1.4,-0.1,worst\n"
                        "0,0,3,2e-6,1.5e-6,0,0,control\n"
                        "1024,1,3,3e-5,2e-6,12,2.0,flagged\n"
                        "1024,3,1,1,1,30,6.0,flagged\n");
    struct lens_retest *r = NULL;
    int rc = lens_retest_read(p, &r, &e);
    LENS_TEST(rc == LENS_OK, "retest read: %s", e.msg);
    if (rc != LENS_OK)
        return;
    struct lens_retest_summary s;
    rc = lens_retest_summarise(r, &s, &e);
    LENS_TEST(rc == LENS_OK && s.cells == 5 && s.retested == 4 && s.persisted == 2 && s.vanished == 2 &&
                  s.flagged == 3 && s.flagged_survived == 2,
              "counts %d %d %d %d %d %d", s.cells, s.retested, s.persisted, s.vanished, s.flagged, s.flagged_survived);
    static const signed char want[5] = {1, 0, -1, 0, 1};
    LENS_TEST(rc == LENS_OK && !memcmp(s.verdict, want, 5), "per-row verdicts 1 0 -1 0 1");
    lens_retest_summary_release(&s);
    int l0[1] = {0}, l1[1] = {1024};
    LENS_TEST(lens_retest_link_verdict(r, 1, 3, 0, l1, 1) == 0, "1->3 alone at 1024: vanished");
    /* both directions: 3->1 persisted at 1024, so "1 <-> 3" persists */
    LENS_TEST(lens_retest_link_verdict(r, 1, 3, 1, l1, 1) == 1, "1<->3 at 1024: persists by 3->1");
    LENS_TEST(lens_retest_link_verdict(r, 1, 3, 1, l0, 1) == 1, "1<->3 at 0: only 3->1 retested, persists");
    LENS_TEST(lens_retest_link_verdict(r, 0, 3, 1, l0, 1) == -1, "the control is no verdict, either way");
    LENS_TEST(lens_retest_link_verdict(r, 2, 3, 1, l0, 1) == 0, "2<->3 at 0: 3->2 vanished");
    lens_retest_free(r);
}

/* Two rounds of 4 ranks, 64 messages of 1000 B per flow (64000 B, Bps = 64000 / t):
 * round 0 pairs (0,1), (2,3): into 0 from 1 in 1 ms (6.4e7), into 1 from 0 in 2 ms (3.2e7),
 *   into 2 from 3 in 4 ms (1.6e7), into 3 from 2 in 1 ms (6.4e7); seconds 0.004, 256000 B,
 *   6.4e7 B/s, slowest 3 -> 2 at 1.6e7;
 * round 1 pairs (0,2), (1,3): into 0 from 2 in 2 ms (3.2e7), into 1 from 3 in 1 ms (6.4e7),
 *   into 2 from 0 in 1 ms (6.4e7), into 3 from 1 in 8 ms (8e6); seconds 0.008, 3.2e7 B/s,
 *   slowest 1 -> 3 at 8e6.
 * Hosts a, a, b, b: each node receives two flows of 64000 B a round, share 0.5; node_Bps
 * a = 9.6e7 both rounds, b = 8e7 then 7.2e7 (mean 7.6e7). */
static const char CSV[] = LENS_BISECTION_HEADER "\n"
                          "0,2,256000,0.004,64000000,16000000,3,2\n"
                          "1,2,256000,0.008,32000000,8000000,1,3\n";

/* Writes the .nc of the run above; bw0 replaces round 0's bandwidth, bad_rank round 1's last
 * flow receiver, to plant the two refusals. */
static int write_nc(const char *path, double bw0, int bad_rank)
{
    int id, dr, df, dp, dl, dn, v[12];
    if (nc_create(path, NC_CLOBBER, &id))
        return -1;
    nc_def_dim(id, "round", 2, &dr);
    nc_def_dim(id, "flow", 4, &df);
    nc_def_dim(id, "rank", 4, &dp);
    nc_def_dim(id, "label", 8, &dl);
    nc_def_dim(id, "node", 2, &dn);
    int rf[2] = {dr, df}, pl[2] = {dp, dl}, nl[2] = {dn, dl}, rn[2] = {dr, dn};
    nc_def_var(id, "bandwidth_Bps", NC_DOUBLE, 1, &dr, &v[0]);
    nc_def_var(id, "flow_sender", NC_INT, 2, rf, &v[1]);
    nc_def_var(id, "flow_receiver", NC_INT, 2, rf, &v[2]);
    nc_def_var(id, "flow_Bps", NC_DOUBLE, 2, rf, &v[3]);
    nc_def_var(id, "host", NC_CHAR, 2, pl, &v[4]);
    nc_def_var(id, "node_name", NC_CHAR, 2, nl, &v[5]);
    nc_def_var(id, "node_of_rank", NC_INT, 1, &dp, &v[6]);
    nc_def_var(id, "node_share", NC_DOUBLE, 2, rn, &v[7]);
    nc_def_var(id, "node_Bps", NC_DOUBLE, 2, rn, &v[8]);
    int att[2] = {1000, 64};
    nc_put_att_int(id, NC_GLOBAL, "size_bytes", NC_INT, 1, &att[0]);
    nc_put_att_int(id, NC_GLOBAL, "window", NC_INT, 1, &att[1]);
    nc_enddef(id);
    double bw[2] = {bw0, 3.2e7};
    int fs[8] = {1, 0, 3, 2, 2, 3, 0, 1}, fr[8] = {0, 1, 2, 3, 0, 1, 2, bad_rank};
    double fb[8] = {6.4e7, 3.2e7, 1.6e7, 6.4e7, 3.2e7, 6.4e7, 6.4e7, 8e6};
    char host[4][8] = {"a", "a", "b", "b"}, node[2][8] = {"a", "b"};
    int of[4] = {0, 0, 1, 1};
    double share[4] = {0.5, 0.5, 0.5, 0.5}, nbps[4] = {9.6e7, 8e7, 9.6e7, 7.2e7};
    nc_put_var_double(id, v[0], bw);
    nc_put_var_int(id, v[1], fs);
    nc_put_var_int(id, v[2], fr);
    nc_put_var_double(id, v[3], fb);
    nc_put_var_text(id, v[4], &host[0][0]);
    nc_put_var_text(id, v[5], &node[0][0]);
    nc_put_var_int(id, v[6], of);
    nc_put_var_double(id, v[7], share);
    nc_put_var_double(id, v[8], nbps);
    return nc_close(id) ? -1 : 0;
}

static void bisection(void)
{
    struct lens_err e;
    lens_err_clear(&e);
    char prefix[400], nc[420];
    snprintf(prefix, sizeof prefix, "%s/bis", dir);
    snprintf(nc, sizeof nc, "%s_bisection.nc", prefix);
    put("bis_bisection.csv", CSV);
    /* the CSV alone: one link per round, its slowest pair; no hosts, no nodes */
    struct lens_bisection_detail *d = NULL;
    int rc = lens_bisection_detail_read(prefix, &d, &e);
    LENS_TEST(rc == LENS_OK && !d->nc_path && !d->hosts && d->nnodes == 0 && d->nlinks == 2 &&
                  d->links[0].sender == 1 && d->links[0].receiver == 3 && d->links[0].min_Bps == 8e6 &&
                  d->links[1].sender == 3 && d->links[1].receiver == 2,
              "CSV alone: 1->3 then 3->2 (%s)", e.msg);
    LENS_TEST(rc == LENS_OK && d->s.max_Bps == 6.4e7 && d->s.max_round == 0 && d->s.min_Bps == 3.2e7 &&
                  d->s.min_round == 1,
              "summary max 6.4e7 (round 0), min 3.2e7 (round 1)");
    lens_bisection_detail_free(d);

    LENS_TEST(write_nc(nc, 6.4e7, 3) == 0, "wrote the .nc");
    rc = lens_bisection_detail_read(prefix, &d, &e);
    LENS_TEST(rc == LENS_OK, "with the .nc: %s", e.msg);
    if (rc != LENS_OK)
        return;
    /* 8 links, one round each, by rate then sender: 1->3 8e6, 3->2 1.6e7, 0->1 and 2->0 at
     * 3.2e7, then 0->2, 1->0, 2->3, 3->1 at 6.4e7 */
    static const int ws[8] = {1, 3, 0, 2, 0, 1, 2, 3}, wr[8] = {3, 2, 1, 0, 2, 0, 3, 1}, wround[8] = {1, 0, 0, 1, 1, 0, 0, 1};
    static const double wb[8] = {8e6, 1.6e7, 3.2e7, 3.2e7, 6.4e7, 6.4e7, 6.4e7, 6.4e7};
    int same = d->nlinks == 8;
    for (int i = 0; same && i < 8; i++)
        same = d->links[i].sender == ws[i] && d->links[i].receiver == wr[i] && d->links[i].min_Bps == wb[i] &&
               d->links[i].round == wround[i] && d->links[i].rounds == 1;
    LENS_TEST(same, "links slowest first, ties by sender");
    LENS_TEST(d->nranks == 4 && d->hosts && !strcmp(d->hosts[0], "a") && !strcmp(d->hosts[3], "b") &&
                  d->size_bytes == 1000 && d->window == 64,
              "hosts, size and window");
    LENS_TEST(d->nnodes == 2 && !strcmp(d->nodes[0].name, "a") && d->nodes[0].ranks == 2 &&
                  d->nodes[0].share_avg == 0.5 && d->nodes[1].share_min == 0.5 && d->nodes[1].share_max == 0.5,
              "two nodes of 2 ranks, half the bytes each");
    LENS_TEST_REL(d->nodes[0].Bps_avg, 9.6e7, 1e-15, "node a: mean incoming 9.6e7");
    LENS_TEST_REL(d->nodes[1].Bps_avg, 7.6e7, 1e-15, "node b: mean incoming 7.6e7");
    lens_bisection_detail_free(d);

    /* every allocation failing in turn: LENS_ENOMEM and nothing returned, until the read
     * needs no more (ASan's leak check sees what a failure path forgets to free) */
    int walked = 0, clean = 1;
    for (long n = 1; n < 200; n++) {
        lens_malloc_fail_after(n);
        rc = lens_bisection_detail_read(prefix, &d, &e);
        lens_malloc_fail_after(0);
        if (rc == LENS_OK) {
            lens_bisection_detail_free(d);
            break;
        }
        walked++;
        clean &= rc == LENS_ENOMEM && d == NULL;
    }
    LENS_TEST(walked > 10 && clean, "%d allocation failures, each LENS_ENOMEM with nothing returned", walked);

    /* refusals, naming the .nc */
    LENS_TEST(write_nc(nc, 5e7, 3) == 0, "wrote a .nc of another run");
    rc = lens_bisection_detail_read(prefix, &d, &e);
    LENS_TEST(rc == LENS_EFORMAT && d == NULL && strstr(e.msg, "bis_bisection.nc: round 0: bandwidth_Bps") &&
                  strstr(e.msg, "not the same run"),
              "another run's .nc: %s", e.msg);
    LENS_TEST(write_nc(nc, 6.4e7, 7) == 0, "wrote a .nc with rank 7 of 4");
    rc = lens_bisection_detail_read(prefix, &d, &e);
    LENS_TEST(rc == LENS_EFORMAT && d == NULL && strstr(e.msg, "round 1 flow 3: 1 -> 7"), "rank out of range: %s",
              e.msg);
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/lens_bisdetail.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return 1;
    retests();
    bisection();
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return LENS_TEST_DONE("test_bisection_detail");
}
