#!/usr/bin/env bash
# The house rules of docs/design.md that a machine can check, each first on a planted fault
# so that it can fail:
#  1. wings: code outside a wing (analysis/<w>/, render/<w>/) includes only the wing's public
#     header, <w>/<w>.h (tests may include a module's own header to test it);
#  2. names: every public lens_ function is named after its file (lens_cube_* in cube.c or
#     cube_<part>.c); under bench/net after the folder and the file (lens_bench_mode_* in
#     mode.c); the allocator of common/alloc.c, which mirrors libc, is the exception;
#  3. render only draws: no object under render/ calls an analysis function that computes
#     (an algorithm); names, descriptions and accessors are allowed;
#  4. mpi.h is included only under bench/.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
export LC_ALL=C

WINGS="analysis/cube analysis/structure analysis/accept analysis/compare analysis/trace analysis/profile analysis/scale render/fig render/doc"

# ---- 1. wings: prints "FILE: HEADER" for each include that bypasses a wing's header ----
# wing_leaks ROOT: scans the C files under ROOT (a checkout or a planted copy)
wing_leaks() {
    local root=$1 w
    for w in $WINGS; do
        local pub="$w/$(basename "$w").h"
        (cd "$root" && grep -rnoE "^#include \"$w/[a-z_0-9]+\.h\"" --include='*.c' --include='*.h' \
            analysis render cli common bench samples 2>/dev/null) |
            awk -F: -v w="$w/" -v pub="\"$pub\"" '
                index($1, w) != 1 { split($3, a, " "); if (a[2] != pub) print $1 ": " a[2] }'
    done
}
leaks=$(wing_leaks .)
check_eq "no include bypasses a wing's public header" "$leaks" ""

plant=$TMP/plant
mkdir -p "$plant/cli" "$plant/analysis/cube"
printf '#include "analysis/cube/packed.h"\n' >"$plant/cli/cmd_x.c"
printf '#include "packed.h"\n' >"$plant/analysis/cube/cube.c"
check_eq "a planted include of a module header is found" "$(wing_leaks "$plant")" \
    'cli/cmd_x.c: "analysis/cube/packed.h"'

# every wing has its public header
for w in $WINGS; do
    check "$w has its public header" test -f "$w/$(basename "$w").h"
done

# ---- 2. names match files (from the objects: what is really exported) ----
# misnamed OBJDIR: "file.o: symbol" for each exported lens_ symbol not named after its file
misnamed() {
    local o b
    local root=$1; shift
    for o in $(cd "$root" && find "$@" -name '*.o' 2>/dev/null | sort); do
        # an object left in the build tree by a source since renamed is no longer built
        [ -f "${o%.o}.c" ] || [ -f "$root/${o%.o}.c" ] || continue
        o=$root/$o
        b=$(basename "$o" .o)
        [ "$b" = alloc ] && continue # lens_malloc & co. mirror libc's names (common/alloc.h)
        nm -g --defined-only "$o" 2>/dev/null | awk -v b="$b" -v o="${o#$root/}" '
            $2 == "T" && $3 ~ /^lens_/ {
                s = substr($3, 6); n = split(b, p, "_"); ok = 0; pre = ""
                # mpilens-bench names carry its folder first: lens_bench_<file>_*
                if (index(o, "bench/net/") == 1) {
                    if (index(s, "bench_") != 1) { print o ": " $3; next }
                    s = substr(s, 7)
                }
                for (i = 1; i <= n; i++) {
                    pre = i == 1 ? p[1] : pre "_" p[i]
                    if (index(s, pre "_") == 1 || s == pre) ok = 1
                }
                if (!ok) print o ": " $3
            }'
    done
}
OBJ=$BUILD/obj
# The folders whose names are checked. In cli/ only cli.c and cli_dist.c export lens_
# functions; cmd_*.c export cmd_<name> and lens_cmd_summary_*. bench/net names carry the
# program's prefix: lens_bench_<file>_*.
NAMED="analysis render common bench/trace bench/net cli"
if [ -d "$OBJ/analysis" ]; then
    check_eq "public names match their files" "$(misnamed "$OBJ" $NAMED)" ""
    mkdir -p "$TMP/objs"
    printf 'int lens_cube_open(void);\nint lens_cube_open(void) { return 0; }\n' >"$TMP/objs/packed.c"
    cc -c -o "$TMP/objs/packed.o" "$TMP/objs/packed.c"
    check_eq "a planted misnamed function is found" "$(misnamed "$TMP/objs" .)" "./packed.o: lens_cube_open"
    # bench/net: the folder prefix is required, then the file's name
    mkdir -p "$TMP/objs/bench/net"
    printf 'int lens_bench_mode_run(void);\nint lens_bench_mode_run(void) { return 0; }\n
int lens_bench_barrier(void);\nint lens_bench_barrier(void) { return 0; }\n
int lens_mode_definition(void);\nint lens_mode_definition(void) { return 0; }\n' >"$TMP/objs/bench/net/mode.c"
    cc -c -o "$TMP/objs/bench/net/mode.o" "$TMP/objs/bench/net/mode.c"
    check_eq "bench/net: a name without the folder or the file is found" \
        "$(misnamed "$TMP/objs" bench/net | tr '\n' ' ')" \
        "bench/net/mode.o: lens_bench_barrier bench/net/mode.o: lens_mode_definition "
else
    fail "no objects under $OBJ: build first"
fi

# ---- 3. render only draws ----
# Analysis functions render/ may call: names of things, prose from finished results,
# accessors of finished results, defaults and release. Anything else exported by analysis/
# computes, and belongs in the command (or an analysis pipeline) that feeds the document.
ALLOWED='_name$|_label$|_describe$|_prose$|_default$|_release$|_free$|_get$|_row$|_index$|_semantics$|_total$|_text_(load|new|free)$'
# Debt being paid off (issue 13): each entry must go, none may be added.
DEBT=''
render_calls() {
    local asyms
    asyms=$(nm -g --defined-only "$OBJ"/analysis/*/*.o | awk '$2 == "T" {print $3}' | sort -u)
    for o in "$OBJ"/render/*/*.o; do nm -u "$o" | awk '{print $2}'; done | sort -u |
        comm -12 - <(printf '%s\n' "$asyms") | grep -Ev "$ALLOWED"
}
if [ -d "$OBJ/render" ]; then
    calls=$(render_calls | tr '\n' ' ')
    new=""
    for s in $calls; do case " $DEBT " in *" $s "*) ;; *) new="$new $s" ;; esac; done
    check_eq "render/ calls no analysis algorithm (beyond the listed debt)" "$new" ""
    check_match "the allow-list lets through what it should" "lens_cube_mode_name" "$ALLOWED"
    if printf 'lens_hclust_run\n' | grep -Eq "$ALLOWED"; then fail "the allow-list lets an algorithm through"; else ok; fi
fi

# ---- 4. mpi.h only under bench/ ----
mpi=$(grep -rlE '^#include [<"]mpi\.h[>"]' analysis render cli common 2>/dev/null)
check_eq "mpi.h is included only under bench/" "$mpi" ""

# ---- 5. comments say why: comment lines per code line in each folder's .c files ----
# (docs/design.md, "Comments": about one per four where the logic is not obvious; a folder
# below the floor has whole files without a word on why). cli/ is mostly option tables.
density() { /usr/bin/python3 - "$@" <<'PY'
import sys, glob
for d in sys.argv[1:]:
    code = com = 0
    inc = False
    for f in sorted(glob.glob(d + "/*.c")):
        for l in open(f, encoding="utf-8", errors="replace"):
            t = l.strip()
            if not t:
                continue
            if inc:
                com += 1
                inc = "*/" not in t
                continue
            if t.startswith("/*"):
                com += 1
                inc = "*/" not in t
                continue
            if t.startswith("//"):
                com += 1
                continue
            code += 1
            if "/*" in t:
                com += 1
                inc = "*/" not in t.split("/*", 1)[1]
    print("%s %.3f" % (d, com / max(code, 1)))
PY
}
# the folders that hold sources (tracked ones; every one on a copy without git)
srcdirs=$( (git ls-files 'analysis/*.c' 'render/*.c' 'bench/*.c' 'common/*.c' 2>/dev/null ||
            find analysis render bench common -name '*.c') | xargs -n1 dirname | sort -u)
low=$(density $srcdirs | awk '$2 < 0.18')
low="$low$(density cli | awk '$2 < 0.12')"
check_eq "every folder's .c files have at least 0.18 comment lines per code line (cli 0.12)" "$low" ""
mkdir -p "$TMP/dense"
printf 'int f(int x)\n{\n    x++;\n    x *= 3;\n    return x;\n}\n/* one */\n' >"$TMP/dense/a.c"
check_eq "a folder with 1 comment line in 6 of code is measured as 0.167" "$(density "$TMP/dense")" "$TMP/dense 0.167"

finish test_layout
