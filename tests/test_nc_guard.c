/* The NetCDF header guard (analysis/cube/nc_guard.c) against crafted headers written byte by byte
 * here, after the NetCDF classic format specification. The reference for a well-formed header
 * is libnetcdf itself: the baseline files built by build() must open with nc_open and show the
 * dimensions they were built with; each crafted fault is one change to such a file, and must
 * be refused with a message naming it. The reproducers of the fuzzing report: duplicate
 * names (which the library accepts, resolving the name to the last one: a silently wrong
 * variable), a 324-byte header declaring 67108864 dimensions (gigabytes in nc_open, a SIGSEGV
 * in its hashmap when the allocation fails), every truncation of a real file, huge attribute
 * lengths, overflowing sizes; and single-byte corruptions of a real header, which must never
 * crash (this test runs under ASan/UBSan too). */
#include "analysis/cube/cube.h"
#include "analysis/cube/nc_guard.h"
#include "lens_test.h"

#include <netcdf.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

static char dir[256];

/* ---- a classic header, built by hand ---- */

struct spec {
    int version;                    /* 1, 2 or 5 */
    unsigned long long numrecs;
    int ndims;
    const char *dname[4];
    size_t dnamelen[4];             /* 0: strlen */
    unsigned long long dlen[4];     /* 0 = the record dimension */
    int natts;
    const char *aname[2];
    unsigned atype[2];
    unsigned long long alen[2];     /* values declared */
    unsigned long long abytes[2];   /* value bytes actually written (-1: as declared) */
    int nvars;
    const char *vname[4];
    int rank[4];
    unsigned long long dimid[4][3];
    unsigned vtype[4];
    long long vsize_delta[4];       /* added to the correct vsize */
    long long begin[4];             /* 0: computed */
    long long data_delta;           /* bytes added to (or cut from) the data */
};

struct out {
    unsigned char *b;
    size_t n, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2 + 64;
        o->b = realloc(o->b, o->cap);
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

static void uint_be(struct out *o, unsigned long long v, int bytes)
{
    unsigned char c[8];
    for (int i = 0; i < bytes; i++)
        c[i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    put(o, c, (size_t)bytes);
}

static void zeros(struct out *o, unsigned long long n)
{
    static const unsigned char z[4096];
    while (n > 0) {
        size_t k = n > sizeof z ? sizeof z : (size_t)n;
        put(o, z, k);
        n -= k;
    }
}

static void name(struct out *o, int cnt, const char *s, size_t n)
{
    uint_be(o, n, cnt);
    put(o, s, n);
    zeros(o, (4 - n % 4) % 4);
}

static unsigned tsize(unsigned t)
{
    static const unsigned sizes[] = {0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
    return t < 12 ? sizes[t] : 4;
}

/* The header and data of s; two passes so that begins follow the header. */
static struct out build(const struct spec *s)
{
    int cnt = s->version == 5 ? 8 : 4, off = s->version == 1 ? 4 : 8;
    size_t header = 0;
    struct out o = {0};
    for (int pass = 0; pass < 2; pass++) {
        o.n = 0;
        put(&o, "CDF", 3);
        unsigned char v = (unsigned char)s->version;
        put(&o, &v, 1);
        uint_be(&o, s->numrecs, cnt);
        uint_be(&o, s->ndims ? 10 : 0, 4);
        uint_be(&o, (unsigned long long)s->ndims, cnt);
        for (int d = 0; d < s->ndims; d++) {
            name(&o, cnt, s->dname[d], s->dnamelen[d] ? s->dnamelen[d] : strlen(s->dname[d]));
            uint_be(&o, s->dlen[d], cnt);
        }
        uint_be(&o, s->natts ? 12 : 0, 4);
        uint_be(&o, (unsigned long long)s->natts, cnt);
        for (int a = 0; a < s->natts; a++) {
            name(&o, cnt, s->aname[a], strlen(s->aname[a]));
            uint_be(&o, s->atype[a], 4);
            uint_be(&o, s->alen[a], cnt);
            zeros(&o, (s->abytes[a] + 3) & ~3ULL);
        }
        uint_be(&o, s->nvars ? 11 : 0, 4);
        uint_be(&o, (unsigned long long)s->nvars, cnt);
        unsigned long long at = header, recsize = 0, size[4], padded[4];
        int nrec = 0;
        for (int k = 0; k < s->nvars; k++) {
            size[k] = tsize(s->vtype[k]);
            for (int r = 0; r < s->rank[k]; r++)
                if (s->dimid[k][r] < 4 && s->dlen[s->dimid[k][r]])
                    size[k] *= s->dlen[s->dimid[k][r]];
            padded[k] = (size[k] + 3) & ~3ULL;
            if (s->rank[k] > 0 && s->dimid[k][0] < 4 && s->dlen[s->dimid[k][0]] == 0)
                nrec++;
        }
        for (int k = 0; k < s->nvars; k++) { /* fixed-size variables first */
            int isrec = s->rank[k] > 0 && s->dimid[k][0] < 4 && s->dlen[s->dimid[k][0]] == 0;
            if (!isrec)
                at += padded[k];
        }
        unsigned long long recbegin = at, fixed = header;
        for (int k = 0; k < s->nvars; k++) {
            int isrec = s->rank[k] > 0 && s->dimid[k][0] < 4 && s->dlen[s->dimid[k][0]] == 0;
            name(&o, cnt, s->vname[k], strlen(s->vname[k]));
            uint_be(&o, (unsigned long long)s->rank[k], cnt);
            for (int r = 0; r < s->rank[k]; r++)
                uint_be(&o, s->dimid[k][r], cnt);
            uint_be(&o, 0, 4);
            uint_be(&o, 0, cnt);
            uint_be(&o, s->vtype[k], 4);
            uint_be(&o, (isrec && nrec == 1 ? size[k] : padded[k]) + (unsigned long long)s->vsize_delta[k], cnt);
            unsigned long long b = isrec ? recbegin + recsize : fixed;
            if (isrec)
                recsize += nrec == 1 ? size[k] : padded[k];
            else
                fixed += padded[k];
            uint_be(&o, s->begin[k] ? (unsigned long long)s->begin[k] : b, off);
        }
        header = o.n;
        if (pass == 1) {
            unsigned long long data = recbegin - header + (s->numrecs < 1000000 ? s->numrecs * recsize : 0);
            zeros(&o, (unsigned long long)((long long)data + s->data_delta));
        }
    }
    return o;
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(p, 1, n, fp);
        fclose(fp);
    }
}

/* A good baseline: x(3), n(record), a global text attribute, a fixed and two record variables. */
static struct spec baseline(int version)
{
    struct spec s = {.version = version, .numrecs = 2, .ndims = 2, .dname = {"x", "n"}, .dlen = {3, 0},
                     .natts = 1, .aname = {"title"}, .atype = {2}, .alen = {5}, .abytes = {5},
                     .nvars = 3, .vname = {"fixed", "data", "count"}, .rank = {1, 2, 1},
                     .dimid = {{0}, {1, 0}, {1}}, .vtype = {6, 6, 3}};
    return s;
}

/* Builds s into dir/name, runs the guard and checks the outcome: want_ok, or an error whose
 * message holds want (and the file name). Returns the guard's code. */
static int guard_case(const char *label, const struct spec *s, const char *want)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.nc", dir, label);
    struct out o = build(s);
    write_file(path, o.b, o.n);
    free(o.b);
    struct lens_err e = {0};
    int id = -1, rc = lens_nc_guard_open(path, &id, &e);
    if (!want) {
        LENS_TEST(rc == LENS_OK, "%s: refused: %s", label, e.msg);
    } else {
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, want) && strstr(e.msg, path), "%s: rc %d, '%s', want '%s'",
                  label, rc, e.msg, want);
    }
    if (id >= 0)
        nc_close(id);
    return rc;
}

static void test_baselines(void)
{
    for (int v = 1; v <= 5; v += v == 1 ? 1 : 3) {
        struct spec s = baseline(v);
        char label[32], path[512];
        snprintf(label, sizeof label, "base%d", v);
        guard_case(label, &s, NULL);
        /* the independent reference: libnetcdf reads what build() wrote */
        snprintf(path, sizeof path, "%s/%s.nc", dir, label);
        int id, dim, var, fmt = 0;
        size_t len = 0;
        LENS_TEST(nc_open(path, NC_NOWRITE, &id) == NC_NOERR, "%s: nc_open", label);
        LENS_TEST(nc_inq_dimid(id, "x", &dim) == NC_NOERR && nc_inq_dimlen(id, dim, &len) == NC_NOERR && len == 3,
                  "%s: x = %zu", label, len);
        LENS_TEST(nc_inq_unlimdim(id, &dim) == NC_NOERR && nc_inq_dimlen(id, dim, &len) == NC_NOERR && len == 2,
                  "%s: records = %zu", label, len);
        LENS_TEST(nc_inq_varid(id, "count", &var) == NC_NOERR && var == 2, "%s: variables", label);
        nc_inq_format(id, &fmt);
        LENS_TEST(fmt == (v == 1 ? NC_FORMAT_CLASSIC : v == 2 ? NC_FORMAT_64BIT_OFFSET : NC_FORMAT_CDF5),
                  "%s: format %d", label, fmt);
        nc_close(id);
    }
}

/* Duplicate names: the library accepts them and resolves the name to the last entry (the
 * hashmap overwrites), so a reader asking for 'data' would silently get the wrong variable. */
static void test_duplicates(void)
{
    struct spec s = baseline(2);
    s.vname[2] = "data";
    s.rank[2] = 1;
    guard_case("dupvar", &s, "two variables are named 'data'");
    char path[512];
    snprintf(path, sizeof path, "%s/dupvar.nc", dir);
    int id, var = -1;
    if (nc_open(path, NC_NOWRITE, &id) == NC_NOERR) {
        nc_inq_varid(id, "data", &var);
        printf("note: libnetcdf %s opens dupvar.nc; 'data' resolves to variable %d of the two at 1 and 2\n",
               nc_inq_libvers(), var);
        nc_close(id);
    }
    s = baseline(2);
    s.dname[1] = "x";
    guard_case("dupdim", &s, "two dimensions are named 'x'");
    s = baseline(1);
    s.natts = 2;
    s.aname[1] = "title";
    s.atype[1] = 2;
    s.alen[1] = 1;
    s.abytes[1] = 1;
    guard_case("dupatt", &s, "two attributes of the file (global) are named 'title'");
}

static void test_names(void)
{
    struct spec s = baseline(1);
    s.dname[0] = "";
    guard_case("emptyname", &s, "the name of dimension 0 is 0 bytes long");
    static char longname[300];
    memset(longname, 'a', 257);
    s = baseline(1);
    s.vname[0] = longname;
    guard_case("longname", &s, "the name of variable 0 is 257 bytes long");
    s = baseline(1);
    s.vname[1] = "d\xff";
    guard_case("badutf8", &s, "the name of variable 1 is not valid UTF-8");
    s = baseline(1);
    s.vname[1] = "d\xc0\xaf"; /* an overlong '/' */
    guard_case("overlong", &s, "the name of variable 1 is not valid UTF-8");
    s = baseline(1);
    s.vname[1] = "\xd0\xb4\xd0"; /* a Cyrillic letter and half of another */
    guard_case("cututf8", &s, "not valid UTF-8");
    s = baseline(5);
    s.dname[0] = "a/b";
    guard_case("slash", &s, "holds a control character or '/'");
    s = baseline(2);
    s.dname[0] = "x\0y";
    s.dnamelen[0] = 3;
    guard_case("nul", &s, "not valid UTF-8");
    s = baseline(2);
    s.vname[0] = "\xd0\x9f\xd1\x80\xd0\xb8"; /* valid UTF-8 (Cyrillic): accepted */
    guard_case("cyrillic", &s, NULL);
}

static void test_structure(void)
{
    struct spec s = baseline(1);
    s.dimid[1][1] = 7;
    guard_case("dimid", &s, "variable 'data' uses dimension id 7, but there are 2 dimensions");
    s = baseline(2);
    s.dimid[1][0] = 0;
    s.dimid[1][1] = 1;
    guard_case("recsecond", &s, "variable 'data' has the record dimension in position 1");
    s = baseline(2);
    s.dlen[0] = 0;
    guard_case("tworec", &s, "dimensions 0 and 1 are both the record dimension");
    s = baseline(1);
    s.vtype[0] = 10; /* NC_INT64: CDF-5 only */
    guard_case("type64in1", &s, "variable 'fixed' has an invalid type 10");
    s = baseline(5);
    s.vtype[0] = 10;
    guard_case("type64in5", &s, NULL);
    s = baseline(2);
    s.atype[0] = 0;
    guard_case("atttype", &s, "attribute 'title' of the file (global) has an invalid type 0");
    s = baseline(2);
    s.vsize_delta[0] = 8;
    guard_case("vsize", &s, "variable 'fixed' has vsize 32, but its shape and type make 24 bytes");
    s = baseline(2);
    s.begin[0] = 8;
    guard_case("begin", &s, "variable 'fixed' begins at byte 8, inside the header");
    s = baseline(2);
    s.data_delta = -3; /* the last short loses a byte (the other two are padding) */
    guard_case("truncdata", &s, "truncated NetCDF file");
    s.data_delta = -2; /* only the padding of the last record: the data is all there */
    guard_case("padding", &s, NULL);
    s = baseline(1);
    s.numrecs = 0x80000001ULL;
    guard_case("negnumrecs", &s, "numrecs is negative");
    s = baseline(5);
    s.numrecs = 1ULL << 62; /* times 48 bytes a record: beyond 2^64 */
    guard_case("recoverflow", &s, "more than 2^64 bytes");
    s = baseline(2);
    s.numrecs = 1000000000; /* 48 GB of records in a file of a few hundred bytes */
    guard_case("numrecs", &s, "truncated NetCDF file");
    s = baseline(5);
    s.ndims = 3;
    s.dname[2] = "huge";
    s.dlen[2] = 1ULL << 40;
    s.vname[0] = "big";
    s.rank[0] = 2;
    s.dimid[0][0] = 2;
    s.dimid[0][1] = 2; /* 2^80 elements */
    guard_case("varoverflow", &s, "variable 'big' is larger than 2^64 bytes");
}

/* Counts that the file cannot hold: refused before anything is allocated from them. */
static void test_counts(void)
{
    struct spec s = baseline(2);
    s.alen[0] = 0x7FFFFFFF;
    s.atype[0] = 6;
    guard_case("attlen", &s, "attribute 'title' of the file (global) declares 2147483647 values, but the file holds");
    s = baseline(5);
    s.alen[0] = 1ULL << 61; /* doubles: 2^64 bytes, overflowing */
    s.atype[0] = 6;
    guard_case("attoverflow", &s, "declares 2305843009213693952 values");

    /* raw headers: magic, numrecs, a list tag and a count, then zeros */
    struct {
        const char *label, *want;
        unsigned char version;
        unsigned tag, count;
        size_t size;
    } raw[] = {
        {"dims67m", "the header declares 67108864 dimensions, but the file holds 324 bytes", 1, 10, 67108864, 324},
        {"dimsneg", "the count of dimensions is negative", 2, 10, 0x80000000u, 64},
        {"dimtag", "the list of dimensions has tag 11, expected 10", 1, 11, 2, 64},
        {"emptytag", "the empty list of dimensions has tag 9", 1, 9, 0, 64},
    };
    for (size_t i = 0; i < sizeof raw / sizeof *raw; i++) {
        struct out o = {0};
        put(&o, "CDF", 3);
        put(&o, &raw[i].version, 1);
        uint_be(&o, 0, 4);
        uint_be(&o, raw[i].tag, 4);
        uint_be(&o, raw[i].count, 4);
        zeros(&o, raw[i].size - o.n);
        char path[512];
        snprintf(path, sizeof path, "%s/%s_median.nc", dir, raw[i].label);
        write_file(path, o.b, o.n);
        free(o.b);
        struct lens_err e = {0};
        int id;
        int rc = lens_nc_guard_open(path, &id, &e);
        LENS_TEST(rc == LENS_EFORMAT && strstr(e.msg, raw[i].want) && strstr(e.msg, path), "%s: '%s'", raw[i].label,
                  e.msg);
    }
    /* variables and attributes: a million declared in a small file */
    struct spec v = baseline(1);
    struct out o = build(&v);
    /* the variable count follows the global attributes: find the tag 11 and patch the count */
    for (size_t i = 8; i + 8 <= o.n; i += 4)
        if (!memcmp(o.b + i, "\0\0\0\x0b\0\0\0\x03", 8)) {
            o.b[i + 5] = 0x0F; /* 3 -> 0x0F0003 = 983043 */
            break;
        }
    char path[512];
    snprintf(path, sizeof path, "%s/vars1m.nc", dir);
    write_file(path, o.b, o.n);
    free(o.b);
    struct lens_err e = {0};
    LENS_TEST(lens_nc_guard_check(path, &e) == LENS_EFORMAT && strstr(e.msg, "declares 983043 variables"),
              "a million variables: '%s'", e.msg);
}

/* The 67-million-dimension header: the guard's memory stays small (the library's went past
 * 7 GB). In a child under a 1 GB address-space limit (not under ASan, whose shadow memory
 * needs more) the guarded open must fail cleanly; what the bare library does there is shown. */
static void test_memory(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/dims67m_median.nc", dir);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    for (int i = 0; i < 20; i++) {
        struct lens_err e = {0};
        int id;
        lens_nc_guard_open(path, &id, &e);
    }
    getrusage(RUSAGE_SELF, &after);
    LENS_TEST(after.ru_maxrss - before.ru_maxrss < 20 * 1024, "RSS grew by %ld KiB",
              (long)(after.ru_maxrss - before.ru_maxrss));
    if (UNDER_ASAN)
        return;
    for (int bare = 0; bare < 2; bare++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            struct rlimit rl = {1000000000, 1000000000};
            setrlimit(RLIMIT_AS, &rl);
            alarm(60);
            int id, st;
            if (bare) {
                st = nc_open(path, NC_NOWRITE, &id);
                _exit(st == NC_NOERR ? 0 : 3);
            }
            struct lens_err e = {0};
            st = lens_nc_guard_open(path, &id, &e);
            _exit(st == LENS_EFORMAT ? 0 : 1);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (bare)
            printf("note: bare nc_open of dims67m_median.nc under a 1 GB limit: %s %d\n",
                   WIFSIGNALED(status) ? "killed by signal" : "exit", WIFSIGNALED(status) ? WTERMSIG(status)
                                                                                          : WEXITSTATUS(status));
        else
            LENS_TEST(WIFEXITED(status) && WEXITSTATUS(status) == 0, "guarded open under 1 GB: status %d", status);
    }
}

static size_t slurp(const char *path, unsigned char **out)
{
    FILE *fp = fopen(path, "rb");
    *out = NULL;
    if (!fp)
        return 0;
    size_t cap = 1 << 16, n = 0, got;
    *out = malloc(cap);
    while ((got = fread(*out + n, 1, cap - n, fp)) > 0) {
        n += got;
        if (n == cap)
            *out = realloc(*out, cap *= 2);
    }
    fclose(fp);
    return n;
}

/* Every prefix of a file must be refused (a truncated file is never read as fill values),
 * except those lacking only the last `pad` bytes when they are padding. Beyond the first
 * 4 KiB, prefixes are taken every `stride` bytes (and the last 16 all). */
static void every_prefix(const char *src, const char *label, size_t pad, size_t stride)
{
    unsigned char *b;
    size_t n = slurp(src, &b);
    LENS_TEST(n > 0, "%s: cannot read %s", label, src);
    char path[512];
    snprintf(path, sizeof path, "%s/%s_cut.nc", dir, label);
    size_t accepted = 0, first = 0;
    write_file(path, b, n);
    /* shortening one file in place: no rewriting of the data for every prefix */
    for (size_t k = n - pad; k-- > 0;) {
        if (k >= 4096 && k + 16 < n && k % stride)
            continue;
        if (truncate(path, (off_t)k) != 0)
            break;
        struct lens_err e = {0};
        int id;
        if (lens_nc_guard_open(path, &id, &e) == LENS_OK) {
            if (!accepted++)
                first = k;
            nc_close(id);
        } else if (!strstr(e.msg, path)) {
            LENS_TEST(0, "%s: prefix %zu: message without the file: %s", label, k, e.msg);
        }
    }
    LENS_TEST(accepted == 0, "%s: %zu of %zu prefixes accepted, one of %zu bytes", label, accepted, n, first);
    write_file(path, b, n);
    struct lens_err e = {0};
    LENS_TEST(lens_nc_guard_check(path, &e) == LENS_OK, "%s: whole file: %s", label, e.msg);
    free(b);
}

static void test_truncation(const char *data)
{
    char src[600];
    snprintf(src, sizeof src, "%s/network-tests2/one_to_one_np4/network_median.nc", data);
    every_prefix(src, "np4", 0, 1);
    snprintf(src, sizeof src, "%s/network-tests2/plugins-branch-2024/delays-MSK-2024-05-16_all.nc", data);
    every_prefix(src, "all", 0, 997);
    /* a netCDF-4 (HDF5) file: its superblock states the end of the file */
    snprintf(src, sizeof src, "%s/nc4.nc", dir);
    int id, dim, var;
    double v[3] = {1, 2, 3};
    if (nc_create(src, NC_CLOBBER | NC_NETCDF4, &id) == NC_NOERR) {
        nc_def_dim(id, "x", 3, &dim);
        nc_def_var(id, "v", NC_DOUBLE, 1, &dim, &var);
        nc_enddef(id);
        nc_put_var_double(id, var, v);
        nc_close(id);
        every_prefix(src, "nc4", 0, 61);
    }
    struct spec s = baseline(5);
    struct out o = build(&s);
    snprintf(src, sizeof src, "%s/cdf5.nc", dir);
    write_file(src, o.b, o.n);
    free(o.b);
    every_prefix(src, "cdf5", 2, 1); /* the last short's padding */
}

/* No false alarm on the reference data, and single-byte corruptions of a real header give an
 * error or a file the library opens: never a crash (the ASan build runs this too). */
static void test_reference_and_mutations(const char *data)
{
    char cmd[700];
    snprintf(cmd, sizeof cmd, "find '%s' -name '*.nc' | sort", data);
    FILE *ls = popen(cmd, "r");
    char line[600];
    int files = 0, refused = 0;
    while (ls && fgets(line, sizeof line, ls)) {
        line[strcspn(line, "\n")] = '\0';
        struct lens_err e = {0};
        int id;
        files++;
        if (lens_nc_guard_open(line, &id, &e) != LENS_OK) {
            refused++;
            fprintf(stderr, "refused: %s\n", e.msg);
        } else {
            nc_close(id);
        }
    }
    if (ls)
        pclose(ls);
    LENS_TEST(files >= 70 && refused == 0, "%d of %d reference files refused", refused, files);

    char src[600], path[512];
    snprintf(src, sizeof src, "%s/network-tests2/one_to_one_np4/network_median.nc", data);
    /* the mutant is the only statistic of a cube, so that the whole reader runs on it */
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s/mut/network", dir);
    snprintf(path, sizeof path, "%s/mut", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/mut/network_median.nc", dir);
    int cubes = 0;
    unsigned char *b;
    size_t n = slurp(src, &b);
    int opened = 0, errors = 0;
    static const unsigned char vals[] = {0x00, 0xFF, 0x80, 0x7F};
    write_file(path, b, n);
    FILE *fp = fopen(path, "r+b");
    for (size_t k = 0; fp && k < n && k < 640; k++)
        for (size_t m = 0; m < sizeof vals + 2; m++) {
            /* byte k changed in place (the last round restores it) */
            unsigned char c = m == sizeof vals + 1 ? b[k] : m < sizeof vals ? vals[m] : (unsigned char)(b[k] + 1);
            fseek(fp, (long)k, SEEK_SET);
            fputc(c, fp);
            fflush(fp);
            if (m == sizeof vals + 1)
                continue;
            struct lens_err e = {0};
            int id;
            if (lens_nc_guard_open(path, &id, &e) == LENS_OK) {
                opened++;
                nc_close(id);
                struct lens_cube *cube = NULL;
                if (lens_cube_read(prefix, &cube, &e) == LENS_OK)
                    cubes++;
                lens_cube_free(cube);
            } else {
                errors++;
            }
        }
    if (fp)
        fclose(fp);
    free(b);
    LENS_TEST(errors > 1000 && opened > 100, "mutations: %d refused, %d opened", errors, opened);
    printf("note: %d single-byte mutations of the header: %d refused, %d opened, %d read as a cube\n",
           errors + opened, errors, opened, cubes);

    /* not NetCDF at all */
    write_file(path, "CD", 2);
    struct lens_err e = {0};
    LENS_TEST(lens_nc_guard_check(path, &e) == LENS_EFORMAT && strstr(e.msg, "2 bytes, too short"), "short: %s", e.msg);
    write_file(path, "GIF89a and more bytes", 21);
    LENS_TEST(lens_nc_guard_check(path, &e) == LENS_EFORMAT && strstr(e.msg, "no NetCDF (CDF1, CDF2, CDF5) or HDF5"),
              "junk: %s", e.msg);
    LENS_TEST(lens_nc_guard_check(dir, &e) == LENS_EIO && strstr(e.msg, "not a regular file"), "dir: %s", e.msg);
    snprintf(path, sizeof path, "%s/absent.nc", dir);
    LENS_TEST(lens_nc_guard_check(path, &e) == LENS_EIO && strstr(e.msg, "cannot open"), "absent: %s", e.msg);
}

/* Every allocation of the guard fails in turn: LENS_ENOMEM, never a crash or a leak (ASan). */
static void test_alloc_faults(void)
{
    struct spec s = baseline(2);
    struct out o = build(&s);
    char path[512];
    snprintf(path, sizeof path, "%s/faults.nc", dir);
    write_file(path, o.b, o.n);
    free(o.b);
    int clean = 0, n, nomem = 0;
    for (n = 1; n < 100 && !clean; n++) {
        struct lens_err e = {0};
        lens_malloc_fail_after(n);
        int rc = lens_nc_guard_check(path, &e);
        lens_malloc_fail_after(0);
        clean = rc == LENS_OK;
        nomem += rc == LENS_ENOMEM && strstr(e.msg, "out of memory");
        LENS_TEST(rc == LENS_OK || rc == LENS_ENOMEM, "allocation %d failing: rc %d %s", n, rc, e.msg);
    }
    LENS_TEST(clean && nomem == n - 2 && nomem >= 3, "allocation faults: %d out of memory, clean after %d", nomem, n - 1);
}

static void test_utf8(void)
{
    LENS_TEST(lens_nc_guard_utf8("node-01", 7), "ascii");
    LENS_TEST(lens_nc_guard_utf8("\xd1\x83\xd0\xb7\xd0\xb5\xd0\xbb", 8), "cyrillic");
    LENS_TEST(lens_nc_guard_utf8("\xf0\x9f\x98\x80", 4), "4-byte");
    LENS_TEST(!lens_nc_guard_utf8("\xd1", 1), "cut 2-byte");
    LENS_TEST(!lens_nc_guard_utf8("\xe0\x80\xaf", 3), "overlong 3-byte");
    LENS_TEST(!lens_nc_guard_utf8("\xed\xa0\x80", 3), "surrogate");
    LENS_TEST(!lens_nc_guard_utf8("\xf4\x90\x80\x80", 4), "beyond U+10FFFF");
    LENS_TEST(!lens_nc_guard_utf8("a\0b", 3), "NUL");
    LENS_TEST(!lens_nc_guard_utf8("\x80", 1), "lone continuation");
}

int main(void)
{
    const char *data = getenv("DATA") ? getenv("DATA") : "tests/data";
    snprintf(dir, sizeof dir, "%s/lens_nc_guard.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_utf8();
    test_baselines();
    test_duplicates();
    test_names();
    test_structure();
    test_counts();
    test_memory();
    test_alloc_faults();
    test_truncation(data);
    test_reference_and_mutations(data);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return LENS_TEST_DONE("test_nc_guard");
}
