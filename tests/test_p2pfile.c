/* The p2p reader on hand-made files (a CSV in shuffled column order with two pairs, and a
 * NetCDF file written here with the netcdf library in bench/net/p2p_out.c's layout): every value
 * read back exactly, labels and the intra/inter flag, the prefix lookup, every error path
 * with the file and line or variable named, allocation failures, and the send-time
 * interpolation and alpha-beta fit against hand-worked numbers. Real files from mpirun are
 * checked in tests/test_p2pfile.sh. */
#include "analysis/cube/p2pfile.h"
#include "lens_test.h"

#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[] = "/tmp/mpilens-p2pfile-XXXXXX";

static void put(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
}

static int read_msg(const char *name, struct lens_p2pfile **f, struct lens_err *e)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    lens_err_clear(e);
    return lens_p2pfile_read(path, f, e);
}

/* Expects reading name to fail with code and a message containing want (and the name). */
static void fails(const char *name, int code, const char *want)
{
    struct lens_p2pfile *f = NULL;
    struct lens_err e;
    int rc = read_msg(name, &f, &e);
    LENS_TEST(rc == code && !f, "%s: rc %d want %d", name, rc, code);
    LENS_TEST(strstr(e.msg, want) && strstr(e.msg, name), "%s: message '%s' lacks '%s'", name, e.msg, want);
    lens_p2pfile_free(f);
}

/* Two pairs, columns shuffled, an extra column, CRLF endings, pair 1's rows first. */
static const char *csv_two =
    "pair,size_bytes,kind,latency_median_s,latency_s,latency_min_s,latency_max_s,extra,"
    "bandwidth_Bps,bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,"
    "msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s,bw_time_s,window,"
    "round_trips_per_iter,lat_iters,bw_iters,rank_a,rank_b,host_a,host_b\r\n"
    "1,0,inter,3.917e-06,4.2113e-06,3.7021e-06,8.93e-05,zz,0,0,0,0,1.9e6,1.1e6,2.03e6,2.2e6,3.3e-05,64,10,500,50,0,2,n07,n12\r\n"
    "1,64,inter,4.3301e-06,4.5e-06,4.01e-06,7.7e-05,zz,1.47e8,1.1e8,1.52e8,1.61e8,2.3e6,1.7e6,2.37e6,2.51e6,2.7e-05,64,10,500,50,0,2,n07,n12\r\n"
    "0,0,intra,2.3671e-07,4.4e-07,2.0895e-07,2.0373e-04,zz,0,0,0,0,1.08e7,7.5e5,1.25e7,1.5e7,5.88e-06,64,10,1000,100,0,1,n07,n07\r\n"
    "0,64,intra,3.1193e-07,3.5e-07,2.9e-07,9.1e-06,zz,3.65e9,1.1e9,3.91e9,4.4e9,5.7e7,1.7e7,6.1e7,6.9e7,1.1e-06,64,10,1000,100,0,1,n07,n07\r\n"
    "0,4096,intra,1.18e-06,1.3e-06,1.1e-06,2.2e-05,zz,7.9e9,2e9,8.2e9,9.1e9,1.93e6,4.9e5,2.0e6,2.2e6,3.3e-05,64,10,1000,100,0,1,n07,n07\r\n"
    "\r\n";

static void csv_values(void)
{
    put("two.csv", csv_two);
    struct lens_p2pfile *f = NULL;
    struct lens_err e;
    LENS_TEST(read_msg("two.csv", &f, &e) == LENS_OK, "two.csv: %s", e.msg);
    if (!f)
        return;
    LENS_TEST(!f->is_nc && f->window == 64 && f->npairs == 2, "two pairs, window %d", f->window);
    struct lens_p2p_pair *a = &f->pair[0], *b = &f->pair[1];
    LENS_TEST(a->nsize == 3 && b->nsize == 2, "sizes per pair %d %d", a->nsize, b->nsize);
    LENS_TEST(!strcmp(a->label, "intra n07, ranks 0-1") && !a->inter, "label '%s'", a->label);
    LENS_TEST(!strcmp(b->label, "inter n07-n12, ranks 0-2") && b->inter, "label '%s'", b->label);
    LENS_TEST(!strcmp(b->host_b, "n12") && b->rank_b == 2 && !strcmp(b->kind, "inter"), "pair 1 fields");
    const struct lens_p2p_point *p = &a->pt[2];
    LENS_TEST(p->size_bytes == 4096 && p->round_trips_per_iter == 10 && p->lat_iters == 1000 && p->bw_iters == 100,
              "ints of pair 0 size 4096");
    LENS_TEST(p->latency_median_s == 1.18e-06 && p->latency_s == 1.3e-06 && p->latency_min_s == 1.1e-06 &&
              p->latency_max_s == 2.2e-05, "latency columns");
    LENS_TEST(p->bandwidth_median_Bps == 8.2e9 && p->bandwidth_Bps == 7.9e9 && p->bandwidth_min_Bps == 2e9 &&
              p->bandwidth_max_Bps == 9.1e9, "bandwidth columns");
    LENS_TEST(p->msg_rate_median_per_s == 2.0e6 && p->msg_rate_per_s == 1.93e6 && p->msg_rate_min_per_s == 4.9e5 &&
              p->msg_rate_max_per_s == 2.2e6 && p->bw_time_s == 3.3e-05, "rate columns");
    LENS_TEST(b->pt[1].latency_median_s == 4.3301e-06 && b->pt[0].msg_rate_median_per_s == 2.03e6, "pair 1 values");
    lens_err_clear(&e);
    LENS_TEST(lens_p2pfile_find(f, NULL, &e) == 0 && lens_p2pfile_find(f, "1", &e) == 1 &&
              lens_p2pfile_find(f, "inter", &e) == 1 && lens_p2pfile_find(f, "intra n07, ranks 0-1", &e) == 0,
              "find by index, kind and label");
    LENS_TEST(lens_p2pfile_find(f, "2", &e) == LENS_EINVAL && strstr(e.msg, "no pair 2"), "find 2: %s", e.msg);
    LENS_TEST(lens_p2pfile_find(f, "cross", &e) == LENS_EINVAL && strstr(e.msg, "1 'inter n07-n12, ranks 0-2'"),
              "find cross: %s", e.msg);
    lens_p2pfile_free(f);

    /* Only the required columns: no pair, no labels. */
    put("min.csv", "size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,"
                   "bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,"
                   "msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s\n"
                   "16,1,2,3,4,5,6,7,8,9,10,11,12");
    LENS_TEST(read_msg("min.csv", &f, &e) == LENS_OK, "min.csv: %s", e.msg);
    if (f) {
        LENS_TEST(f->npairs == 1 && f->pair[0].nsize == 1 && !strcmp(f->pair[0].label, "pair 0") &&
                  f->pair[0].rank_a == -1 && isnan(f->pair[0].pt[0].bw_time_s) &&
                  f->pair[0].pt[0].msg_rate_max_per_s == 12, "minimal CSV: '%s'", f->pair[0].label);
        lens_p2pfile_free(f);
    }
}

static void csv_errors(void)
{
    const char *head = "size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,"
                       "bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,"
                       "msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s,pair,host_a\n";
    char buf[2048];
    fails("none.csv", LENS_EIO, "cannot open");
    put("empty.csv", "");
    fails("empty.csv", LENS_EFORMAT, "empty file");
    snprintf(buf, sizeof buf, "%s", head);
    put("header.csv", buf);
    fails("header.csv", LENS_EDATA, "no data rows");
    put("cube.csv", "rank,x\n0,1\n");
    fails("cube.csv", LENS_EFORMAT, ":1: no column 'size_bytes'");
    put("nobw.csv", "size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s\n0,1,2,3,4\n");
    fails("nobw.csv", LENS_EFORMAT, ":1: no column 'bandwidth_Bps'");
    snprintf(buf, sizeof buf, "%s0,1,2,3,4,5,6,7,8,9,10,11,12,0,h\n8,1,2,3,4,5,6,7,8,9,10,11,12,0,h\n16,1,2,3,4,5", head);
    put("trunc.csv", buf);
    fails("trunc.csv", LENS_EFORMAT, "trunc.csv:4: 6 fields, the header has 15 (file truncated?)");
    snprintf(buf, sizeof buf, "%s0,1,2,3,4,5,6,7,8,9,10,11,12,0,h\n8,1,2,3,4,5,6,7,x9,9,10,11,12,0,h\n", head);
    put("bad.csv", buf);
    fails("bad.csv", LENS_EFORMAT, "bad.csv:3: column 'bandwidth_max_Bps': 'x9' is not a number");
    snprintf(buf, sizeof buf, "%s-4,1,2,3,4,5,6,7,8,9,10,11,12,0,h\n", head);
    put("neg.csv", buf);
    fails("neg.csv", LENS_EFORMAT, "neg.csv:2: column 'size_bytes': '-4' is not an integer >= 0");
    snprintf(buf, sizeof buf, "%s8,1,2,3,4,5,6,7,8,9,10,11,12,0,h\n8,1,2,3,4,5,6,7,8,9,10,11,12,0,h\n", head);
    put("dup.csv", buf);
    fails("dup.csv", LENS_EDATA, "dup.csv:3: size 8 of pair 0 follows 8: sizes must increase");
    snprintf(buf, sizeof buf, "%s8,1,2,3,4,5,6,7,8,9,10,11,12,0,h\n16,1,2,3,4,5,6,7,8,9,10,11,12,0,g\n", head);
    put("label.csv", buf);
    fails("label.csv", LENS_EDATA, "label.csv:3: pair 0 is ',-1,-1,g,' here but ',-1,-1,h,'");
    snprintf(buf, sizeof buf, "%s8,1,2,3,4,5,6,7,8,9,10,11,12,2,h\n", head);
    put("gap.csv", buf);
    fails("gap.csv", LENS_EDATA, "pair 2 has rows but pair 0 has none");
}

/* Writes name in bench/net/p2p_out.c's layout for 2 pairs x 3 sizes; flaw selects a defect. */
enum { NC_GOOD, NC_NO_LATENCY, NC_BAD_SHAPE, NC_DECREASING, NC_NO_PAIR };
static const int nc_sizes[3] = {0, 256, 65536};
static double nc_value(int c, int p, int k) { return (c + 1) * 1.0e-7 + p * 3.1e-6 + k * 7.3e-5 + c * p * k * 1.1e-9; }

static void write_nc(const char *name, int flaw)
{
    static const char *const cols[13] = {"latency_s", "latency_min_s", "latency_median_s", "latency_max_s",
        "bandwidth_Bps", "bandwidth_min_Bps", "bandwidth_median_Bps", "bandwidth_max_Bps", "msg_rate_per_s",
        "msg_rate_min_per_s", "msg_rate_median_per_s", "msg_rate_max_per_s", "bw_time_s"};
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int id, dp, ds, dl, v[24], nv = 0;
    nc_create(path, NC_CLOBBER | NC_64BIT_OFFSET, &id);
    nc_def_dim(id, flaw == NC_NO_PAIR ? "x" : "pair", 2, &dp);
    nc_def_dim(id, "size", 3, &ds);
    nc_def_dim(id, "label", 16, &dl);
    int dps[2] = {dp, ds}, dpl[2] = {dp, dl};
    nc_def_var(id, "size_bytes", NC_INT, 1, &ds, &v[nv++]);
    nc_def_var(id, "round_trips_per_iter", NC_INT, 1, &ds, &v[nv++]);
    nc_def_var(id, "rank_a", NC_INT, 1, &dp, &v[nv++]);
    nc_def_var(id, "rank_b", NC_INT, 1, &dp, &v[nv++]);
    nc_def_var(id, "lat_iters", NC_INT, 2, dps, &v[nv++]);
    nc_def_var(id, "bw_iters", NC_INT, 2, dps, &v[nv++]);
    nc_def_var(id, "host_a", NC_CHAR, 2, dpl, &v[nv++]);
    nc_def_var(id, "host_b", NC_CHAR, 2, dpl, &v[nv++]);
    nc_def_var(id, "kind", NC_CHAR, 2, dpl, &v[nv++]);
    for (int c = 0; c < 13; c++) {
        if (flaw == NC_NO_LATENCY && c == 2)
            continue;
        nc_def_var(id, cols[c], NC_DOUBLE, flaw == NC_BAD_SHAPE && c == 5 ? 1 : 2, dps, &v[9 + c]);
    }
    int window = 64;
    nc_put_att_int(id, NC_GLOBAL, "window", NC_INT, 1, &window);
    nc_enddef(id);
    int sizes[3] = {nc_sizes[0], nc_sizes[1], nc_sizes[2]}, trips[3] = {10, 10, 1}, ra[2] = {0, 0}, rb[2] = {1, 5};
    int li[6] = {1000, 1000, 100, 700, 700, 70}, bi[6] = {100, 100, 20, 90, 90, 9};
    if (flaw == NC_DECREASING)
        sizes[2] = 128;
    nc_put_var_int(id, v[0], sizes);
    nc_put_var_int(id, v[1], trips);
    nc_put_var_int(id, v[2], ra);
    nc_put_var_int(id, v[3], rb);
    nc_put_var_int(id, v[4], li);
    nc_put_var_int(id, v[5], bi);
    char ha[32] = "vm01\0\0\0\0\0\0\0\0\0\0\0\0vm01", hb[32] = "vm01\0\0\0\0\0\0\0\0\0\0\0\0vm02";
    char kd[32] = "intra\0\0\0\0\0\0\0\0\0\0\0inter";
    nc_put_var_text(id, v[6], ha);
    nc_put_var_text(id, v[7], hb);
    nc_put_var_text(id, v[8], kd);
    for (int c = 0; c < 13; c++) {
        if ((flaw == NC_NO_LATENCY && c == 2) || (flaw == NC_BAD_SHAPE && c == 5))
            continue;
        double d[6];
        for (int q = 0; q < 6; q++)
            d[q] = nc_value(c, q / 3, q % 3);
        nc_put_var_double(id, v[9 + c], d);
    }
    nc_close(id);
}

static void nc_values(void)
{
    write_nc("g_p2p.nc", NC_GOOD);
    struct lens_p2pfile *f = NULL;
    struct lens_err e;
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s/g", dir);
    lens_err_clear(&e);
    LENS_TEST(lens_p2pfile_read(prefix, &f, &e) == LENS_OK, "prefix g: %s", e.msg);
    if (!f)
        return;
    LENS_TEST(f->is_nc && strstr(f->path, "g_p2p.nc") && f->window == 64 && f->npairs == 2, "nc header");
    int bad = 0;
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 3; k++) {
            const struct lens_p2p_point *pt = &f->pair[p].pt[k];
            const double got[13] = {pt->latency_s, pt->latency_min_s, pt->latency_median_s, pt->latency_max_s,
                pt->bandwidth_Bps, pt->bandwidth_min_Bps, pt->bandwidth_median_Bps, pt->bandwidth_max_Bps,
                pt->msg_rate_per_s, pt->msg_rate_min_per_s, pt->msg_rate_median_per_s, pt->msg_rate_max_per_s,
                pt->bw_time_s};
            for (int c = 0; c < 13; c++)
                bad += got[c] != nc_value(c, p, k);
            bad += pt->size_bytes != nc_sizes[k];
        }
    LENS_TEST(bad == 0, "%d nc values differ", bad);
    LENS_TEST(f->pair[1].pt[2].lat_iters == 70 && f->pair[1].pt[2].bw_iters == 9 &&
              f->pair[1].pt[2].round_trips_per_iter == 1, "nc ints");
    LENS_TEST(!strcmp(f->pair[0].label, "intra vm01, ranks 0-1") && !f->pair[0].inter, "'%s'", f->pair[0].label);
    LENS_TEST(!strcmp(f->pair[1].label, "inter vm01-vm02, ranks 0-5") && f->pair[1].inter, "'%s'", f->pair[1].label);
    lens_p2pfile_free(f);

    /* With only the CSV present, the prefix finds it. */
    put("c_p2p.csv", csv_two);
    snprintf(prefix, sizeof prefix, "%s/c", dir);
    LENS_TEST(lens_p2pfile_read(prefix, &f, &e) == LENS_OK && f && !f->is_nc && f->npairs == 2, "prefix c: %s", e.msg);
    lens_p2pfile_free(f);
    snprintf(prefix, sizeof prefix, "%s/nothing", dir);
    LENS_TEST(lens_p2pfile_read(prefix, &f, &e) == LENS_EIO && strstr(e.msg, "nothing_p2p.nc nor") && !f,
              "missing prefix: %s", e.msg);
    LENS_TEST(lens_p2pfile_read("", &f, &e) == LENS_EINVAL, "empty input");
    LENS_TEST(!lens_p2pfile_detect(prefix) && !lens_p2pfile_detect("") && !lens_p2pfile_detect(NULL), "detect: none");
    snprintf(prefix, sizeof prefix, "%s/c", dir);
    LENS_TEST(lens_p2pfile_detect(prefix), "detect: prefix with a CSV");
    snprintf(prefix, sizeof prefix, "%s/g", dir);
    LENS_TEST(lens_p2pfile_detect(prefix), "detect: prefix with a .nc");
    snprintf(prefix, sizeof prefix, "%s/g_p2p.nc", dir);
    LENS_TEST(lens_p2pfile_detect(prefix), "detect: the .nc by name");
    snprintf(prefix, sizeof prefix, "%s/two.csv", dir);
    LENS_TEST(!lens_p2pfile_detect(prefix), "detect: a CSV not named _p2p.csv");
    snprintf(prefix, sizeof prefix, "%s/gone_p2p.csv", dir);
    LENS_TEST(!lens_p2pfile_detect(prefix), "detect: a missing _p2p.csv");

    write_nc("nolat.nc", NC_NO_LATENCY);
    fails("nolat.nc", LENS_EFORMAT, "no variable 'latency_median_s'");
    write_nc("shape.nc", NC_BAD_SHAPE);
    fails("shape.nc", LENS_EFORMAT, "variable 'bandwidth_min_Bps' has 1 dimension, expected (pair, size)");
    write_nc("decr.nc", NC_DECREASING);
    fails("decr.nc", LENS_EDATA, "variable 'size_bytes': size 128 at index 2 follows 256");
    write_nc("nopair.nc", NC_NO_PAIR);
    fails("nopair.nc", LENS_EFORMAT, "not a p2p file");
    put("text.nc", "CDF\001 this is not really netcdf\n");
    fails("text.nc", LENS_EFORMAT, "not a readable NetCDF file");
    fails("absent.nc", LENS_EIO, "cannot open");
    /* A truncated copy of the good file. */
    char src[512], dst[512];
    snprintf(src, sizeof src, "%s/g_p2p.nc", dir);
    snprintf(dst, sizeof dst, "%s/cut.nc", dir);
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    char chunk[700];
    size_t n = fread(chunk, 1, sizeof chunk, in);
    fwrite(chunk, 1, n, out);
    fclose(in);
    fclose(out);
    fails("cut.nc", LENS_EFORMAT, "cut.nc");
}

/* Every allocation of both readers fails in turn: an error, never a crash or a leak. */
static void faults(void)
{
    const char *names[2] = {"two.csv", "g_p2p.nc"};
    for (int i = 0; i < 2; i++) {
        int clean = 0, n;
        for (n = 1; n < 400 && !clean; n++) {
            struct lens_p2pfile *f = NULL;
            struct lens_err e;
            lens_malloc_fail_after(n);
            int rc = read_msg(names[i], &f, &e);
            lens_malloc_fail_after(0);
            if (rc == LENS_OK)
                clean = 1;
            else if (rc != LENS_ENOMEM || f || !e.msg[0]) {
                LENS_TEST(0, "%s fail at %d: rc %d '%s'", names[i], n, rc, e.msg);
                break;
            }
            lens_p2pfile_free(f);
        }
        LENS_TEST(clean && n > 3, "%s: reads once allocations succeed (after %d)", names[i], n);
    }
}

/* Latency medians 1.37, 1.53, 2.11, 5.83 us at 0, 8, 64, 1024 B. */
static void interpolation(void)
{
    struct lens_p2p_point pt[5];
    memset(pt, 0, sizeof pt);
    const long long s[4] = {0, 8, 64, 1024};
    const double L[4] = {1.37e-6, 1.53e-6, 2.11e-6, 5.83e-6};
    for (int k = 0; k < 4; k++) {
        pt[k].size_bytes = s[k];
        pt[k].latency_median_s = L[k];
        pt[k].bandwidth_median_Bps = 1e9;
    }
    struct lens_p2p_pair p;
    memset(&p, 0, sizeof p);
    p.label = "hand";
    p.pt = pt;
    p.nsize = 4;
    LENS_TEST_REL(lens_p2pfile_send_time(&p, 0), 1.37e-6, 1e-12, "at 0 B");
    LENS_TEST_REL(lens_p2pfile_send_time(&p, 8), 1.53e-6, 1e-12, "at 8 B");
    LENS_TEST_REL(lens_p2pfile_send_time(&p, 20), 1.654285714285714e-6, 1e-12, "20 B: 1.53 + 12/56 * 0.58 us");
    LENS_TEST_REL(lens_p2pfile_send_time(&p, 500), 3.7995e-6, 1e-12, "500 B: 2.11 + 436/960 * 3.72 us");
    LENS_TEST_REL(lens_p2pfile_send_time(&p, 2048), 9.798e-6, 1e-12, "2048 B: 5.83 + 1024 * 3.72/960 us");
    LENS_TEST(isnan(lens_p2pfile_send_time(&p, -1)) && isnan(lens_p2pfile_send_time(&p, NAN)), "negative, NaN");
    /* A NaN point is skipped; a falling last segment uses the bandwidth beyond it. */
    pt[2].latency_median_s = NAN;
    LENS_TEST_REL(lens_p2pfile_send_time(&p, 500), 1.53e-6 + 492.0 / 1016 * 4.30e-6, 1e-12, "500 B over a NaN");
    pt[2].latency_median_s = 2.11e-6;
    pt[4] = pt[3];
    pt[4].size_bytes = 4096;
    pt[4].latency_median_s = 5.1e-6;
    pt[4].bandwidth_median_Bps = 2.5e9;
    p.nsize = 5;
    LENS_TEST_REL(lens_p2pfile_send_time(&p, 10096), 5.1e-6 + 6000 / 2.5e9, 1e-12, "beyond a falling segment");
    /* Smallest size 8: anything below is the 8 B latency. */
    p.pt = pt + 1;
    p.nsize = 4;
    LENS_TEST_REL(lens_p2pfile_send_time(&p, 3), 1.53e-6, 1e-12, "below the smallest size");
    p.nsize = 0;
    LENS_TEST(isnan(lens_p2pfile_send_time(&p, 3)), "no points");

    /* The fit recovers an exact alpha + s/beta; then a noisy curve against the normal equations. */
    const double alpha = 1.7133e-6, beta = 9.317e9;
    long long sz = 0;
    struct lens_p2p_point q[12];
    memset(q, 0, sizeof q);
    for (int k = 0; k < 12; k++, sz = sz ? sz * 4 : 1) {
        q[k].size_bytes = sz;
        q[k].latency_median_s = alpha + (double)sz / beta;
    }
    p.pt = q;
    p.nsize = 12;
    double a = 0, b = 0;
    struct lens_err e;
    LENS_TEST(lens_p2pfile_fit(&p, &a, &b, &e) == LENS_OK, "fit: %s", e.msg);
    LENS_TEST_REL(a, alpha, 1e-9, "fitted alpha");
    LENS_TEST_REL(b, beta, 1e-9, "fitted beta");
    /* 3 points (0, 1e-6) (100, 2e-6) (1000, 5e-6), weights 1e12, 2.5e11, 4e10: the weighted
     * normal equations solved directly (numpy's weighted lstsq: a = 1.10672e-6 s, b = 4.18972e-9 s/B). */
    const double xs[3] = {0, 100, 1000}, ys[3] = {1e-6, 2e-6, 5e-6};
    double S0 = 0, S1 = 0, S2 = 0, T0 = 0, T1 = 0;
    for (int k = 0; k < 3; k++) {
        q[k].size_bytes = (long long)xs[k];
        q[k].latency_median_s = ys[k];
        double w = 1 / (ys[k] * ys[k]);
        S0 += w, S1 += w * xs[k], S2 += w * xs[k] * xs[k], T0 += w * ys[k], T1 += w * xs[k] * ys[k];
    }
    p.nsize = 3;
    double bb = (S0 * T1 - S1 * T0) / (S0 * S2 - S1 * S1), aa = (T0 - bb * S1) / S0;
    LENS_TEST(lens_p2pfile_fit(&p, &a, &b, &e) == LENS_OK, "fit 3: %s", e.msg);
    LENS_TEST_REL(a, aa, 1e-9, "3-point alpha");
    LENS_TEST_REL(1 / b, bb, 1e-9, "3-point slope");
    LENS_TEST_REL(a, 1.10671937e-6, 1e-8, "3-point alpha against numpy");
    LENS_TEST_REL(1 / b, 4.18972332e-9, 1e-8, "3-point slope against numpy");
    q[2].latency_median_s = 0.5e-6;
    LENS_TEST(lens_p2pfile_fit(&p, &a, &b, &e) == LENS_EDATA && strstr(e.msg, "hand: latency does not grow"),
              "falling: %s", e.msg);
    p.nsize = 1;
    LENS_TEST(lens_p2pfile_fit(&p, &a, &b, &e) == LENS_EDATA && strstr(e.msg, "fewer than two"), "one point");
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    csv_values();
    csv_errors();
    nc_values();
    faults();
    interpolation();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return LENS_TEST_DONE("test_p2pfile");
}
