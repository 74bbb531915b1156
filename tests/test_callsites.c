/* Call sites of problems (analysis/trace/problems.c, callsite_resolve.c): every member's site
 * (the waiting receive and the late send, the early ranks and the last arrival of a barrier,
 * the root of a late broadcast) and inlined frames. A small program built here with -O2 -g
 * has its receive in a static function inlined into main; binutils (objdump for the call
 * addresses, addr2line -i for the inline chain) and readelf are the independent
 * references libdw's answers are checked against, through synthetic traces whose sites
 * point into that program. */
#include "analysis/trace/callsite_resolve.h"
#include "analysis/trace/problems.h"
#include "lens_test.h"
#include "synth_otf2.h"

#include <otf2/OTF2_Events.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp[256], bin[320];

/* One call instruction of the program: the function objdump shows it in and its address. */
struct callsite_ref {
    char fn[64], callee[64];
    unsigned long addr;
};
static struct callsite_ref refs[16];
static int nrefs;

/* The program: exchange() is always inlined (twice, into main); sender, early and late are
 * real functions. Sibling calls are off so every fake_* call stays a call instruction. */
static int build_program(void)
{
    char src[300], cmd[1200];
    snprintf(src, sizeof src, "%s/inl.c", tmp);
    snprintf(bin, sizeof bin, "%s/inl", tmp);
    FILE *fp = fopen(src, "w");
    if (!fp)
        return -1;
    fputs("volatile int sink;\n"
          "__attribute__((noinline)) void fake_recv(int x) { sink += x; }\n"
          "__attribute__((noinline)) void fake_send(int x) { sink -= x; }\n"
          "__attribute__((noinline)) void sender(int x) { fake_send(x); sink++; }\n"
          "__attribute__((noinline)) void early(void) { fake_send(1); sink++; }\n"
          "__attribute__((noinline)) void late(void) { fake_send(2); sink++; }\n"
          "static inline __attribute__((always_inline)) void exchange(int x)\n"
          "{\n"
          "    fake_recv(x);\n"
          "}\n"
          "int main(int argc, char **argv)\n"
          "{\n"
          "    (void)argv;\n"
          "    exchange(argc);\n"
          "    exchange(argc + 1);\n"
          "    sender(argc);\n"
          "    early();\n"
          "    late();\n"
          "    return 0;\n"
          "}\n", fp);
    fclose(fp);
    snprintf(cmd, sizeof cmd, "cc -g -O2 -fno-optimize-sibling-calls -fPIE -pie -o %s %s", bin,
             src);
    if (system(cmd) != 0)
        return -1;
    /* "FUNCTION CALLEE ADDRESS" per call of fake_recv / fake_send */
    snprintf(cmd, sizeof cmd, "objdump -d %s | awk '/^[0-9a-f]+ <[^>]*>:$/ { fn = $2; "
             "gsub(/[<>:]/, \"\", fn) } /call.*<fake_(recv|send)>/ { c = $NF; "
             "gsub(/[<>]/, \"\", c); sub(/:$/, \"\", $1); print fn, c, $1 }'", bin);
    FILE *od = popen(cmd, "r");
    if (!od)
        return -1;
    while (nrefs < 16 && fscanf(od, "%63s %63s %lx", refs[nrefs].fn, refs[nrefs].callee,
                                &refs[nrefs].addr) == 3)
        nrefs++;
    pclose(od);
    return 0;
}

/* The i-th call of callee inside function fn (objdump), 0 when absent. The offset the
 * collector stores is inside the call instruction (return address - 1): + 1 is too. */
static unsigned long call_in(const char *fn, const char *callee, int i)
{
    for (int k = 0; k < nrefs; k++)
        if (!strcmp(refs[k].fn, fn) && !strcmp(refs[k].callee, callee) && i-- == 0)
            return refs[k].addr + 1;
    return 0;
}

/* addr2line -i -f: the inline chain at addr, innermost first, as "func file:line" lines. */
static int addr2line(unsigned long addr, char fn[][64], char file[][64], int *line, int max)
{
    char cmd[600], path[400];
    snprintf(cmd, sizeof cmd, "addr2line -i -f -e %s 0x%lx", bin, addr);
    FILE *fp = popen(cmd, "r");
    int n = 0;
    while (fp && n < max && fscanf(fp, "%63s %399s", fn[n], path) == 2) {
        char *colon = strrchr(path, ':'), *base = strrchr(path, '/');
        line[n] = colon ? atoi(colon + 1) : 0;
        if (colon)
            *colon = 0;
        snprintf(file[n], 64, "%.63s", base ? base + 1 : path);
        n++;
    }
    if (fp)
        pclose(fp);
    return n;
}

/* libdw against addr2line and readelf on the inlined receive and a plain call. */
static void test_resolve_inline(void)
{
    char cmd[2048];
    /* readelf (binutils, always there with gcc) rather than llvm-dwarfdump, which a fresh
     * machine lacks: an inlined_subroutine DIE whose abstract_origin is the offset of the
     * subprogram DIE named exchange */
    snprintf(cmd, sizeof cmd, "readelf --debug-dump=info %s 2>/dev/null | awk '"
             "/^ *<[0-9]+><[0-9a-f]+>:/ { split($1, a, /[<>]/); off = a[4]; tag = $NF; next } "
             "tag ~ /DW_TAG_subprogram/ && /DW_AT_name/ && $NF == \"exchange\" { ex[off] = 1 } "
             "tag ~ /DW_TAG_inlined_subroutine/ && /DW_AT_abstract_origin/ "
             "{ o = $NF; gsub(/[<>]|0x/, \"\", o); org[o] = 1 } "
             "END { for (k in ex) if (k in org) found = 1; exit !found }'", bin);
    LENS_TEST(system(cmd) == 0, "the DWARF has exchange as an inlined subroutine");
    snprintf(cmd, sizeof cmd, "nm %s | grep -qw exchange", bin);
    LENS_TEST(system(cmd) != 0, "no out-of-line exchange symbol");
    unsigned long a = call_in("main", "fake_recv", 0);
    LENS_TEST(a != 0 && call_in("main", "fake_recv", 1) != 0, "two inlined receive calls in main");
    char fn[4][64], file[4][64];
    int line[4];
    int n = addr2line(a, fn, file, line, 4);
    LENS_TEST(n == 2 && !strcmp(fn[0], "exchange") && !strcmp(fn[1], "main"),
              "addr2line -i: %d frames, '%s' in '%s'", n, n > 0 ? fn[0] : "", n > 1 ? fn[1] : "");
    struct lens_callsite c;
    struct lens_err e = {0};
    int rc = lens_callsite_resolve_frame(bin, a, &c, &e);
    LENS_TEST(rc == LENS_OK, "resolve: %s", e.msg);
    LENS_TEST(!strcmp(c.func, "exchange") && !strcmp(c.inlined_into, "main") &&
                  !strcmp(c.symbol, "main"), "frame '%s' into '%s' (symbol '%s')", c.func,
              c.inlined_into, c.symbol);
    LENS_TEST(n > 0 && !strcmp(c.file, file[0]) && c.line == line[0],
              "line %s:%d, addr2line %s:%d", c.file, c.line, n > 0 ? file[0] : "",
              n > 0 ? line[0] : 0);
    /* a call in a function of its own: not inlined */
    a = call_in("sender", "fake_send", 0);
    n = addr2line(a, fn, file, line, 4);
    rc = lens_callsite_resolve_frame(bin, a, &c, &e);
    LENS_TEST(rc == LENS_OK && n == 1 && !strcmp(c.func, fn[0]) && !strcmp(c.func, "sender") &&
                  !c.inlined_into[0] && c.line == line[0],
              "plain call: '%s' into '%s' line %d (addr2line %d frames)", c.func,
              c.inlined_into, c.line, n);
    /* the symbol-only form keeps naming the symbol */
    char func[128], f2[128];
    int l2 = 0;
    rc = lens_callsite_resolve(bin, call_in("main", "fake_recv", 0), func, sizeof func, f2,
                               sizeof f2, &l2, &e);
    LENS_TEST(rc == LENS_OK && !strcmp(func, "main"), "symbol form '%s'", func);
}

static const struct lens_problem_result *find(const struct lens_problems *p, const char *id)
{
    for (int i = 0; p && i < p->nres; i++)
        if (!strcmp(p->res[i].rule->id, id))
            return &p->res[i];
    return NULL;
}

/* Late senders, a barrier and a broadcast whose calls carry sites in the program: each
 * problem lists the waiting member's sites and the culprit's, with seconds worked out by
 * hand. */
static void test_members(void)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s/trace", tmp);
    unsigned long r0 = call_in("main", "fake_recv", 0), r1 = call_in("main", "fake_recv", 1);
    unsigned long snd = call_in("sender", "fake_send", 0);
    unsigned long ea = call_in("early", "fake_send", 0), la = call_in("late", "fake_send", 0);
    struct synth s;
    LENS_TEST(synth_open(&s, dir, 3) == 0, "open");
    /* two late senders to rank 0, received at the two inlined copies of exchange: waits
     * 2.5 - 1.0 and 4.5 - 4.0, one row of 2.0 s after merging (same function and line) */
    synth_enter_site(&s, 0, 1.0, SR_RECV, 100, r0);
    synth_recv(&s, 0, 2.9, 1, 0, 8);
    synth_leave(&s, 0, 3.0, SR_RECV);
    synth_enter_site(&s, 0, 4.0, SR_RECV, 100, r1);
    synth_recv(&s, 0, 4.9, 1, 0, 8);
    synth_leave(&s, 0, 5.0, SR_RECV);
    synth_enter_site(&s, 1, 2.5, SR_SEND, 100, snd);
    synth_send(&s, 1, 2.6, 0, 0, 8);
    synth_leave(&s, 1, 2.7, SR_SEND);
    synth_enter_site(&s, 1, 4.5, SR_SEND, 100, snd);
    synth_send(&s, 1, 4.6, 0, 0, 8);
    synth_leave(&s, 1, 4.7, SR_SEND);
    /* barrier: ranks 0 and 1 (early) wait 1.0 and 0.5 for rank 2 (late) */
    synth_coll_site(&s, 0, 6.0, 7.1, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1, 100, ea);
    synth_coll_site(&s, 1, 6.5, 7.1, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1, 100, ea);
    synth_coll_site(&s, 2, 7.0, 7.1, SR_BARRIER, OTF2_COLLECTIVE_OP_BARRIER, -1, 100, la);
    /* broadcast from root 1 (entering at 9.0) while rank 2 enters last (9.5): the culprit
     * is the root, not the last arrival; rank 0 waits 1.0, rank 2 nothing */
    synth_coll_site(&s, 0, 8.0, 9.6, SR_BCAST, OTF2_COLLECTIVE_OP_BCAST, 1, 100, ea);
    synth_coll_site(&s, 1, 9.0, 9.6, SR_BCAST, OTF2_COLLECTIVE_OP_BCAST, 1, 100, la);
    synth_coll_site(&s, 2, 9.5, 9.6, SR_BCAST, OTF2_COLLECTIVE_OP_BCAST, 1, 100, snd);
    LENS_TEST(synth_close(&s, bin) == 0, "close");
    struct lens_problems *p = NULL;
    struct lens_err e = {0};
    LENS_TEST(lens_problems_run(dir, "templates/rules", &p, &e) == LENS_OK, "analysis: %s",
              e.msg);
    if (!p)
        return;
    char fn[4][64], file[4][64], want[400];
    int line[4];
    /* late sender: the receive (inlined) waits, the send causes */
    const struct lens_problem_result *r = find(p, "late_sender");
    int n = addr2line(r0, fn, file, line, 4);
    snprintf(want, sizeof want, "MPI_Recv called from exchange (inlined into main) (%s:%d)",
             n > 0 ? file[0] : "?", n > 0 ? line[0] : 0);
    LENS_TEST(r && r->nsites == 1 && !strcmp(r->sites[0].text, want), "recv site '%s' want '%s'",
              r && r->nsites ? r->sites[0].text : "", want);
    LENS_TEST(r && r->nsites == 1 && r->sites[0].count == 2 &&
                  lens_test_rel_ok(r->sites[0].seconds, 2.0, 1e-9) &&
                  !strcmp(r->sites[0].member, "recv") && !r->sites[0].culprit &&
                  !strcmp(r->sites[0].caller, "exchange") &&
                  !strcmp(r->sites[0].inlined_into, "main") &&
                  !strcmp(r->sites[0].function, "MPI_Recv"),
              "two return addresses, one row of 2 calls, 2.0 s, member recv");
    n = addr2line(snd, fn, file, line, 4);
    LENS_TEST(r && r->nculprits == 1 && !strcmp(r->culprits[0].member, "send") &&
                  r->culprits[0].culprit && !strcmp(r->culprits[0].caller, "sender") &&
                  !r->culprits[0].inlined_into[0] && n > 0 && r->culprits[0].line == line[0] &&
                  !strcmp(r->culprits[0].function, "MPI_Send") &&
                  lens_test_rel_ok(r->culprits[0].seconds, 2.0, 1e-9) &&
                  r->culprits[0].count == 2,
              "send culprit '%s'", r && r->nculprits ? r->culprits[0].text : "");
    /* barrier: the early ranks' site waits 1.5 s, the last arrival's site caused it */
    r = find(p, "wait_at_barrier");
    LENS_TEST(r && r->nsites == 1 && !strcmp(r->sites[0].caller, "early") &&
                  lens_test_rel_ok(r->sites[0].seconds, 1.5, 1e-9) && r->sites[0].count == 2,
              "barrier waits at early: '%s'", r && r->nsites ? r->sites[0].text : "");
    LENS_TEST(r && r->nculprits == 1 && !strcmp(r->culprits[0].caller, "late") &&
                  !strcmp(r->culprits[0].member, "all") &&
                  lens_test_rel_ok(r->culprits[0].seconds, 1.5, 1e-9),
              "barrier culprit is the last arrival: '%s'",
              r && r->nculprits ? r->culprits[0].text : "");
    /* broadcast: rank 0 waits 1.0 for the root (late), not for rank 2 (sender's site) */
    r = find(p, "late_broadcast");
    LENS_TEST(r && lens_test_rel_ok(r->total_s, 1.0, 1e-9), "late broadcast 9.0 - 8.0");
    LENS_TEST(r && r->nculprits == 1 && !strcmp(r->culprits[0].caller, "late"),
              "broadcast culprit is the root: '%s'", r && r->nculprits ? r->culprits[0].text : "");
    /* text and JSON carry the members */
    FILE *fp = tmpfile();
    char buf[65536] = "";
    if (fp) {
        LENS_TEST(lens_problems_write_json(p, 0, fp) == LENS_OK, "json");
        rewind(fp);
        buf[fread(buf, 1, sizeof buf - 1, fp)] = 0;
        fclose(fp);
    }
    LENS_TEST(strstr(buf, "\"member\":\"recv\",\"role\":\"waits\",\"function\":\"MPI_Recv\","
                          "\"caller\":\"exchange\",\"inlined_into\":\"main\",\"file\":\"inl.c\"")
                  != NULL, "JSON recv site with inlined_into");
    LENS_TEST(strstr(buf, "\"member\":\"send\",\"role\":\"cause\",\"function\":\"MPI_Send\","
                          "\"caller\":\"sender\",\"file\":\"inl.c\"") != NULL,
              "JSON send site");
    fp = tmpfile();
    buf[0] = 0;
    if (fp) {
        LENS_TEST(lens_problems_write_text(p, 0, fp) == LENS_OK, "text");
        rewind(fp);
        buf[fread(buf, 1, sizeof buf - 1, fp)] = 0;
        fclose(fp);
    }
    LENS_TEST(strstr(buf, "(2) recv: MPI_Recv called from exchange (inlined into main) (inl.c:")
                  != NULL, "text recv row");
    LENS_TEST(strstr(buf, "(2) send (cause): MPI_Send called from sender (inl.c:") != NULL,
              "text send row");
    lens_problems_free(p);
}

int main(void)
{
    snprintf(tmp, sizeof tmp, "/tmp/mpilens-callsites-XXXXXX");
    if (!mkdtemp(tmp))
        return 1;
    int built = build_program() == 0 && nrefs >= 5;
    LENS_TEST(built, "program built and disassembled (%d calls)", nrefs);
    if (built) {
        test_resolve_inline();
        test_members();
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", tmp);
    return LENS_TEST_DONE("test_callsites");
}
