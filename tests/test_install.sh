#!/usr/bin/env bash
# make install / make uninstall: installs into a temporary DESTDIR under a prefix other than
# /usr/local, then runs the installed mpilens with the source tree made invisible (a private
# mount namespace with an empty tmpfs over it), from an unrelated directory and with no
# MPILENS_* variable: report on a cube, problems --report on the CASITA trace, scale report and
# profile-clusters --report on the installed samples, trace (clean and crashed runs, so both
# the collector and the recovery tool come from the installed tree). Checks the PDFs with pdfinfo/pdftotext, the man pages
# with man -l, a relocated copy of the prefix, the error when the data are gone, and that
# uninstall leaves exactly the files that were there before.
. tests/lib.sh
REPO=$(pwd -P)
PFX=/opt/mpilens-test
DEST=$TMP/dest
P=$DEST$PFX
IN=$TMP/in
WORK=$TMP/work
mkdir -p "$IN" "$WORK"

# make as for this build: an ASan build is made again with its own flags, never plain ones
MAKE_ARGS=(--no-print-directory BUILD="$BUILD")
if nm -u "$BIN/mpilens" 2>/dev/null | grep -q __asan; then MAKE_ARGS+=(SAN=1 "OPT=-O1 -g"); fi
# Open MPI's singleton start (help2man runs mpilens-bench --help) leaks; those are not ours
mk() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" make "${MAKE_ARGS[@]}" "$@"; }

# a file that is not ours, in a directory the install also uses: it must survive uninstall
mkdir -p "$P/share/man/man1" && echo keep >"$P/share/man/man1/other.1"

# --- 1. install, twice (a reinstall must not lose track of anything) ---
check_exit "make install" 0 mk install DESTDIR="$DEST" PREFIX="$PFX"
check_exit "make install again" 0 mk install DESTDIR="$DEST" PREFIX="$PFX"
M=$P/share/mpilens/install-manifest
check "manifest written" test -s "$M"
check_eq "manifest lists each path once" "$(sort "$M" | uniq -d | wc -l)" 0

# installed files against the build and the source tree (byte-identical, right modes)
mode() { stat -c %a "$1" 2>/dev/null; }
for f in bin/mpilens bin/mpilens-bench; do
    check "$f is the build's" cmp -s "$BUILD/$f" "$P/$f"
    check_eq "$f mode" "$(mode "$P/$f")" 755
done
for f in libmpilens-trace.so mpilens-trace-recover; do
    check "lib/mpilens/$f is the build's" cmp -s "$BUILD/lib/$f" "$P/lib/mpilens/$f"
    check_eq "lib/mpilens/$f mode" "$(mode "$P/lib/mpilens/$f")" 755
done
missing=0 differ=0
while IFS= read -r f; do
    if [ ! -f "$P/share/mpilens/$f" ]; then missing=$((missing + 1)); echo "missing: $f" >&2
    elif ! cmp -s "$f" "$P/share/mpilens/$f"; then differ=$((differ + 1)); fi
done < <(find templates fonts samples -type f ! -name '*.pyc' ! -path '*/__pycache__/*')
check_eq "every template, rule, font, licence and sample installed" "$missing" 0
check_eq "installed data identical to the source" "$differ" 0
check_eq "data files are 0644" "$(find "$P/share/mpilens/templates" "$P/share/mpilens/fonts" -type f ! -perm 0644 | wc -l)" 0
check "font licence beside the fonts" test -s "$P/share/mpilens/fonts/LICENSE-DejaVu.txt"
check "rules installed" test -s "$P/share/mpilens/templates/rules/collective.rules"
check "README in the doc directory" cmp -s README.md "$P/share/doc/mpilens/README.md"
check "docs with their images" test -s "$P/share/doc/mpilens/docs/img/report-page-3.png"

# the binaries' constant data name no path into the source tree (debug info may)
for f in bin/mpilens bin/mpilens-bench lib/mpilens/libmpilens-trace.so lib/mpilens/mpilens-trace-recover; do
    objcopy -O binary --only-section=.rodata --only-section=.data "$P/$f" "$TMP/const.bin" 2>/dev/null
    check_eq "$f: no source-tree path in its data" "$(grep -c -a -F "$REPO" "$TMP/const.bin")" 0
done

# --- 2. man pages ---
# without man-db, the roff source itself: help2man writes .SH NAME and .SH SYNOPSIS
manl() { if command -v man >/dev/null; then MANWIDTH=100 MANPAGER=cat man -l "$1"; else sed -e 's/\\-/-/g' -e 's/^\.SH "*\([A-Z ]*\)"*$/\1/' "$1"; fi; }
for page in mpilens mpilens-bench; do
    f=$P/share/man/man1/$page.1
    txt=$(manl "$f" 2>"$TMP/man.err")
    check_match "man -l $page: NAME" "$txt" "^NAME"
    check_match "man -l $page: SYNOPSIS" "$txt" "^SYNOPSIS"
    check_eq "man -l $page: no warnings" "$(grep -c -i warn "$TMP/man.err")" 0
done
txt=$(manl "$P/share/man/man1/mpilens.1" 2>/dev/null)
check_match "mpilens.1 holds each command's help" "$txt" "mpilens scale report RUNS.csv\.\.\. -o SCALE.pdf"
check_match "mpilens.1 says where the data are" "$txt" "PREFIX/share/mpilens/templates"
check_match "mpilens-bench.1 has the options" "$(manl "$P/share/man/man1/mpilens-bench.1" 2>/dev/null)" "num_iterations"

# --- 3. the installed tree alone: inputs copied out of the source tree first ---
cp -r "$DATA/network-tests2/one_to_one_np4" "$IN/cube"
cp -r "$DATA/otf2/casita-4_mpi_ls_barr" "$IN/casita"
have_mpi=0
if command -v mpirun >/dev/null && [ -x "$BUILD/tests/mpi/trace_app" ]; then
    cp "$BUILD/tests/mpi/trace_app" "$IN/trace_app" && have_mpi=1
fi
# leak reports from Open MPI are not ours; the preloaded .so brings libasan after the app's
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
cat >"$TMP/run.sh" <<EOF
# runs inside the namespace: each command's status goes to \$name.rc, output to \$name.out/.err
set -u
cd "$WORK"
run() { local n=\$1; shift; "\$@" >"$WORK/\$n.out" 2>"$WORK/\$n.err"; echo \$? >"$WORK/\$n.rc"; }
test -e "$REPO/Makefile"; echo \$? >"$WORK/visible.rc"
env | grep -c '^MPILENS_' >"$WORK/vars.out"
run version "$P/bin/mpilens" version
run report "$P/bin/mpilens" report "$IN/cube/network" -o report.pdf
run problems "$P/bin/mpilens" problems --json "$IN/casita" -o problems.json
run problems_report "$P/bin/mpilens" problems --report problems.pdf "$IN/casita"
run scale "$P/bin/mpilens" scale report "$P/share/mpilens/samples/scale/"*.csv -o scale.pdf
run profile "$P/bin/mpilens" profile-clusters "$P/share/mpilens/samples/profiles/halo64.csv" --report profile.pdf
if [ $have_mpi = 1 ]; then
    run trace "$P/bin/mpilens" trace -o tr -- $MPIRUN -np 2 "$IN/trace_app" 3
    run crash "$P/bin/mpilens" trace -o crash -b 2k -- $MPIRUN -np 2 "$IN/trace_app" 200 60
fi
exit 0
EOF
# only the variables a run needs: no MPILENS_*, no path into the source tree
ENV=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$TMP" LANG=C.UTF-8 TMPDIR="${TMPDIR:-/tmp}")
for v in ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS; do [ -n "${!v:-}" ] && ENV+=("$v=${!v}"); done
hidden=0
case $TMP/ in "$REPO"/*) ;; *)
    if unshare -m --propagation private true 2>/dev/null &&
       "${ENV[@]}" unshare -m --propagation private bash -c \
           "mount -t tmpfs -o size=1m mpilens-hide '$REPO' && exec bash '$TMP/run.sh'" 2>"$TMP/unshare.err"; then
        hidden=1
    fi ;;
esac
if [ $hidden = 0 ]; then
    echo "SKIP: cannot hide the source tree here (unshare -m and mount need CAP_SYS_ADMIN):" \
         "running the installed tree with the source visible; the data check above still holds" >&2
    sed 's/^/  /' "$TMP/unshare.err" >&2 2>/dev/null
    "${ENV[@]}" bash "$TMP/run.sh"
else
    check_eq "source tree invisible to the installed run" "$(cat "$WORK/visible.rc")" 1
fi
check_eq "no MPILENS_* variable in the run" "$(cat "$WORK/vars.out")" 0
rc() { cat "$WORK/$1.rc" 2>/dev/null || echo none; }
pdftext() { pdftotext "$WORK/$1" - 2>/dev/null | tr -s ' \n' '  '; }
pages() { pdfinfo "$WORK/$1" 2>/dev/null | awk '/^Pages:/ { print $2 }'; }
# check_rc NAME WANT: the status of run NAME, with its messages when it is not WANT
check_rc() {
    check_eq "$1: exit $2" "$(rc "$1")" "$2"
    [ "$(rc "$1")" = "$2" ] || sed 's/^/  /' "$WORK/$1.err" >&2 2>/dev/null
}

check_eq "version: data directory is the installed one" "$(grep '^datadir ' "$WORK/version.out")" \
    "datadir $(cd "$P/share/mpilens" && pwd -P)"
check_rc report 0
check_match "report: pages" "$(pages report.pdf)" '^([3-9]|[1-9][0-9]+)$'
check_match "report: title of the installed template" "$(pdftext report.pdf)" "MPI latency report"
check_match "report: the cube's mode" "$(pdftext report.pdf)" "one_to_one"
check_rc problems 0
check_match "problems: installed rules find wait at barrier" "$(cat "$WORK/problems.json" 2>/dev/null)" '"id": *"wait_at_barrier"'
check_match "problems: and late sender" "$(cat "$WORK/problems.json" 2>/dev/null)" '"id": *"late_sender"'
check_rc problems_report 0
check_match "problems report: pages" "$(pages problems.pdf)" '^[1-9][0-9]*$'
check_match "problems report: names the problem" "$(pdftext problems.pdf)" "[Ww]ait at barrier"
check_rc scale 0
check_match "scale report: pages" "$(pages scale.pdf)" '^([2-9]|[1-9][0-9]+)$'
check_match "scale report: applications of the installed sample" "$(pdftext scale.pdf)" "linpack"
check_match "scale report: a sentence of templates/scale.txt" "$(pdftext scale.pdf)" "efficiency (falls|rises|hardly changes) as"
check_rc profile 0
check_match "profile report: pages" "$(pages profile.pdf)" '^[1-9][0-9]*$'
check_match "profile report: names the installed sample" "$(pdftext profile.pdf)" "halo64"
if [ $have_mpi = 1 ]; then
    check_rc trace 0
    check "trace: otf2-print reads the archive" otf2-print --silent "$WORK/tr/traces.otf2"
    check_eq "trace: the ping-pong's sends recorded (2 per iteration)" \
        "$(otf2-print "$WORK/tr/traces.otf2" 2>/dev/null | awk '$1 == "MPI_SEND"' | wc -l)" 6
    check_rc crash 134   # the application abort()s: mpilens trace passes its status on (128 + SIGABRT)
    check_match "crashed run: recovered by the installed tool" "$(cat "$WORK/crash.err")" "without MPI_Finalize"
    check "crashed run: recovered archive reads" otf2-print --silent "$WORK/crash/traces.otf2"
else
    echo "SKIP: no mpirun or $BUILD/tests/mpi/trace_app: mpilens trace not run" >&2
fi

# --- 4. a relocated copy of the prefix finds its own files; a broken one says what is missing ---
cp -a "$P" "$TMP/moved"
sed -i 's/^strength.strong = .*/strength.strong = RELOCATEDLY/' "$TMP/moved/share/mpilens/templates/scale.txt"
out=$(cd "$WORK" && env -u MPILENS_DATADIR "$TMP/moved/bin/mpilens" version | grep '^datadir ')
check_eq "moved: data directory follows the executable" "$out" "datadir $(cd "$TMP/moved/share/mpilens" && pwd -P)"
check_exit "moved: scale report" 0 env -u MPILENS_DATADIR "$TMP/moved/bin/mpilens" scale report \
    "$TMP/moved/share/mpilens/samples/scale/paper.csv" -o "$WORK/moved.pdf"
check_match "moved: its own scale.txt is read" "$(pdftext moved.pdf)" "RELOCATEDLY"
check_exit "MPILENS_DATADIR overrides" 0 env MPILENS_DATADIR="$REPO" "$TMP/moved/bin/mpilens" scale report \
    "$TMP/moved/share/mpilens/samples/scale/paper.csv" -o "$WORK/env.pdf"
check_eq "MPILENS_DATADIR: the source's scale.txt" "$(pdftext env.pdf | grep -c RELOCATEDLY)" 0
check_exit "bad MPILENS_DATADIR: exit 1" 1 env MPILENS_DATADIR="$TMP/nowhere" "$TMP/moved/bin/mpilens" report "$IN/cube/network" -o "$WORK/x.pdf"
check_match "bad MPILENS_DATADIR: named" "$(cat "$TMP/err")" "MPILENS_DATADIR=$TMP/nowhere"
mv "$TMP/moved/lib/mpilens/libmpilens-trace.so" "$TMP/moved/lib/mpilens/away.so"
check_exit "moved without the collector: trace fails" 1 env -u MPILENS_DATADIR "$TMP/moved/bin/mpilens" trace -o "$WORK/none" -- true
check_match "moved without the collector: names it and where it looked" "$(cat "$TMP/err")" \
    "cannot find libmpilens-trace.so \(looked in .*moved/bin/\.\./lib/mpilens/libmpilens-trace.so"
if [ ! -e /usr/local/share/mpilens ]; then # else the compile-time fallback would find that one
    mv "$TMP/moved/share/mpilens" "$TMP/moved/share/gone"
    check_exit "moved without its data: problems fails" 1 env -u MPILENS_DATADIR -u MPILENS_RULES \
        "$TMP/moved/bin/mpilens" problems "$IN/casita"
    check_match "moved without its data: says where it looked" "$(cat "$TMP/err")" \
        "cannot find fonts/ and templates/ \(looked in .*moved/bin/\.\./share/mpilens"
    check_eq "moved without its data: nothing read from ./templates" "$(cd "$REPO" && env -u MPILENS_DATADIR -u MPILENS_RULES "$TMP/moved/bin/mpilens" problems "$IN/casita" >/dev/null 2>&1; echo $?)" 1
fi

# --- 5. uninstall: exactly what install wrote, and the directories it made ---
check_exit "make uninstall" 0 mk uninstall DESTDIR="$DEST" PREFIX="$PFX"
left=$(cd "$DEST" && find . -mindepth 1 | LC_ALL=C sort | tr '\n' ' ')
check_eq "uninstall leaves only what was there before" "$left" \
    "./opt ./opt/mpilens-test ./opt/mpilens-test/share ./opt/mpilens-test/share/man ./opt/mpilens-test/share/man/man1 ./opt/mpilens-test/share/man/man1/other.1 "
check_exit "uninstall again: nothing installed, exit 2 from make" 2 mk uninstall DESTDIR="$DEST" PREFIX="$PFX"
check_match "uninstall again: says so" "$(cat "$TMP/err")" "nothing was installed with this PREFIX and DESTDIR"

# GNU spelling (lowercase prefix) and a DESTDIR that does not exist yet
check_exit "install prefix=/usr" 0 mk install DESTDIR="$TMP/d2" prefix=/usr
check "prefix=/usr: bin/mpilens" test -x "$TMP/d2/usr/bin/mpilens"
check "prefix=/usr: man page" test -s "$TMP/d2/usr/share/man/man1/mpilens-bench.1"
check_exit "uninstall prefix=/usr" 0 mk uninstall DESTDIR="$TMP/d2" prefix=/usr
check_eq "prefix=/usr: nothing left" "$(find "$TMP/d2" -mindepth 1 | wc -l)" 0
check_exit "relative PREFIX refused" 2 mk install DESTDIR="$TMP/d3" PREFIX=opt/x
check_eq "relative PREFIX: nothing written" "$(find "$TMP/d3" -mindepth 1 2>/dev/null | wc -l)" 0

finish test_install
