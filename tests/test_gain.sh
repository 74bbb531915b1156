#!/usr/bin/env bash
# Gain over process counts: `mpilens trace --procs 1,2` of the two sample Jacobis, then
# `problems --report --versions`: the PDF's table holds the wall times recorded in each
# walls.csv and gain = time naive / time overlapped, recomputed here by awk; the section is
# absent from a report without --versions; bad input fails with file and line.
. tests/lib.sh
RULES=templates/rules
M="$BIN/mpilens problems --rules $RULES"
export SOURCE_DATE_EPOCH=1700000000
# The launcher: mpirun through a wrapper of the same name (so that `trace` still inserts its
# -x pairs) that also lets the ranks of a sanitizer build start (--mpirun is tested with it).
mkdir -p "$TMP/bin"
printf '#!/bin/sh\nexec %s -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 "$@"\n' \
    "$(command -v mpirun)" > "$TMP/bin/mpirun" && chmod +x "$TMP/bin/mpirun"
# small and short: 2 ranks at most, a few milliseconds of work per iteration
ARGS="-n 64 -i 10 -j 2 -w 1"
# the naive one timed by mpilens (the launch), the overlapped one by its own "time S s" line
for v in naive overlap; do
    tp=(); [ $v = overlap ] && tp=(--time-pattern time)
    check_exit "trace --procs 1,2 jacobi_$v" 0 $BIN/mpilens trace --procs 1,2 --mpirun "$TMP/bin/mpirun" ${tp[@]+"${tp[@]}"} \
        -o "$TMP/$v" -- "$BIN/samples/jacobi_$v" $ARGS
    check "p1 trace of $v" test -s "$TMP/$v/p1/traces.otf2"
    check "p2 trace of $v" test -s "$TMP/$v/p2/traces.otf2"
    check_eq "walls.csv of $v" "$(cut -d, -f1,3 "$TMP/$v/walls.csv" | tr '\n' ' ')" "procs,status 1,0 2,0 "
done
check_eq "--time-pattern: the program's times" "$(cut -d, -f2 "$TMP/overlap/walls.csv" | tail -n +2 | tr '\n' ' ')" \
    "$(awk '$1 == "time" { printf "%s ", $2 }' "$TMP/overlap/p1.out" "$TMP/overlap/p2.out")"
check_exit "--time-pattern not found: status 1" 1 $BIN/mpilens trace --procs 1 --time-pattern nosuch --mpirun "$TMP/bin/mpirun" \
    -o "$TMP/nt" -- "$BIN/samples/jacobi_naive" $ARGS
check_eq "--time-pattern not found: no time in walls.csv" "$(tail -n 1 "$TMP/nt/walls.csv")" "1,,1"
check_exit "--time-pattern without --procs" 2 $BIN/mpilens trace --time-pattern time -o "$TMP/x" -- true
check_exit "report with --versions" 0 $M --report "$TMP/g.pdf" --versions "naive=$TMP/naive,overlapped=$TMP/overlap"
cp "$TMP/err" "$TMP/g.err" 2>/dev/null
pdftotext -layout "$TMP/g.pdf" "$TMP/g.txt" 2>/dev/null
check_match "section heading" "$(cat "$TMP/g.txt")" "Gain over process counts"
# the table rows "P TIME_NAIVE TIME_OVERLAPPED GAINx", expected from the two walls.csv files
# (times with their unit, 4 significant digits: tests/units.py)
want=$(join -t, <(tail -n +2 "$TMP/naive/walls.csv" | cut -d, -f1,2) \
                <(tail -n +2 "$TMP/overlap/walls.csv" | cut -d, -f1,2) |
       /usr/bin/python3 -c '
import sys
sys.path.insert(0, "tests")
from units import time as T
for line in sys.stdin:
    p, a, b = line.strip().split(",")
    print(p, T(float(a)), T(float(b)), "%.2fx" % (float(a) / float(b)))')
got=$(tr -s ' ' < "$TMP/g.txt" | sed 's/^ //' | grep -E '^[0-9]+ [0-9.]+ [nµm]?s [0-9.]+ [nµm]?s [0-9.]+x$')
check_eq "table rows: walls and gain ratio" "$got" "$want"
check_eq "two rows, procs 1 and 2" "$(printf '%s\n' "$got" | cut -d' ' -f1 | tr '\n' ' ')" "1 2 "
# the largest count of each version is detailed as an input of the report
check_match "detailed inputs" "$(cat "$TMP/g.txt")" "naive, p=2"
check_match "figure caption" "$(cat "$TMP/g.txt")" "Figure 1: left, the time of each version"
check "PDF valid (pdfinfo)" pdfinfo "$TMP/g.pdf"
$M --report "$TMP/g2.pdf" --versions "naive=$TMP/naive,overlapped=$TMP/overlap" 2>/dev/null
check "byte-identical on rerun" cmp "$TMP/g.pdf" "$TMP/g2.pdf"

# --- without --versions: no gain section
check_exit "report of one trace" 0 $M --report "$TMP/one.pdf" "$TMP/naive/p2"
check_eq "no gain section without versions" "$(pdftotext "$TMP/one.pdf" - 2>/dev/null | grep -c 'Gain over process counts')" 0

# --- bad input: usage errors (2) and files named with their line (1)
check_exit "--versions without --report" 2 $M --versions "a=$TMP/naive"
check_exit "--versions with a TRACE" 2 $M --report "$TMP/x.pdf" --versions "a=$TMP/naive" "$TMP/naive/p1"
check_exit "--versions malformed" 2 $M --report "$TMP/x.pdf" --versions "naive"
check_exit "--procs malformed" 2 $BIN/mpilens trace --procs 1,1 -o "$TMP/x" -- true
check_exit "--procs zero" 2 $BIN/mpilens trace --procs 0 -o "$TMP/x" -- true
check_exit "missing walls.csv" 1 $M --report "$TMP/x.pdf" --versions "a=$TMP/naive,b=$TMP/none"
check_match "names the missing file" "$(cat "$TMP/err")" "none/walls.csv: cannot open"
mkdir -p "$TMP/bad" && ln -s "$TMP/overlap/p1" "$TMP/bad/p1" && ln -s "$TMP/overlap/p2" "$TMP/bad/p2"
printf 'procs,seconds,status\n1,0.5,0\n2,,134\n' > "$TMP/bad/walls.csv"
check_exit "a failed run" 1 $M --report "$TMP/x.pdf" --versions "a=$TMP/naive,b=$TMP/bad"
check_match "names file and line of the failed run" "$(cat "$TMP/err")" "bad/walls.csv:3: the run at 2 processes failed \(status 134\)"
printf 'procs,seconds,status\n1,0.5,0\n' > "$TMP/bad/walls.csv"
check_exit "a missing count" 1 $M --report "$TMP/x.pdf" --versions "a=$TMP/naive,b=$TMP/bad"
check_match "names the missing count" "$(cat "$TMP/err")" "bad/walls.csv: no run at 2 processes"
printf 'procs,time\n' > "$TMP/bad/walls.csv"
check_exit "a bad header" 1 $M --report "$TMP/x.pdf" --versions "a=$TMP/naive,b=$TMP/bad"
check_match "names the header line" "$(cat "$TMP/err")" "bad/walls.csv:1: header"
check "no PDF left after failures" test ! -e "$TMP/x.pdf"
finish test_gain
