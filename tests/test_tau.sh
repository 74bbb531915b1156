#!/usr/bin/env bash
# mpilens profile-clusters on TAU profile directories (profile.N.C.T): the profile read must
# equal the truth samples/profiles/make_tau.py wrote beside the files (threads of a node
# summed, microseconds to seconds), ICAPPA must find the planted slow function and its nodes
# (the committed sample and a fresh one planted elsewhere), and damaged files must fail with
# file:line, exit 1 and no output.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
S=samples/profiles

# "cells worst missing extra": worst relative difference between two profile CSVs
cat >"$TMP/cmp.py" <<'PYEOF'
import csv, sys
def load(p):
    with open(p) as f:
        r = csv.reader(f)
        next(r)
        return {(int(a), b): float(c) for a, b, c in r}
a, b = load(sys.argv[1]), load(sys.argv[2])
worst = max((abs(a[k] - b[k]) / max(abs(b[k]), 1e-300) for k in a if k in b), default=0)
print(len(a), "%.3g" % worst, len(set(b) - set(a)), len(set(a) - set(b)))
PYEOF

# ---- the committed sample: 16 nodes x 2 threads, nodes 12..15 slow in exchange_halo ----
check "sample reads" "$M" profile-clusters $S/tau16 --json --profile-csv "$TMP/p.csv"
"$M" profile-clusters $S/tau16 --json >"$TMP/j" 2>/dev/null
cmpres=$($PY "$TMP/cmp.py" "$TMP/p.csv" $S/tau16_truth.csv)
set -- $cmpres
check_eq "profile has every cell of the truth" "$1 $3 $4" "160 0 0"
check_match "profile equals the truth (rel 1e-12)" "$2" '^(0|[0-9.]+e-(1[2-9]|[2-9][0-9]))$'
dom=$($PY -c 'import json,sys; print(",".join(json.load(open(sys.argv[1]))["dominating_functions"]))' "$TMP/j")
costly=$($PY -c 'import json,sys; print(",".join(map(str,json.load(open(sys.argv[1]))["costly_processes"])))' "$TMP/j")
check_eq "planted function found" "$dom" "exchange_halo"
check_eq "planted nodes found" "$costly" "12,13,14,15"
# the committed files are what the generator writes (it is the documented source of them)
$PY $S/make_tau.py "$TMP/regen" "$TMP/regen.csv" >/dev/null
check "sample regenerates byte for byte" diff -r $S/tau16 "$TMP/regen"

# ---- a fresh directory: 3 threads, 24 nodes, nodes 2..6 slow, another seed ----
$PY $S/make_tau.py "$TMP/t24" "$TMP/t24.csv" --nodes 24 --threads 3 --slow 2..6 --seed 99
"$M" profile-clusters "$TMP/t24" --json --profile-csv "$TMP/p24.csv" >"$TMP/j24" 2>"$TMP/err"
set -- $($PY "$TMP/cmp.py" "$TMP/p24.csv" "$TMP/t24.csv")
check_eq "3 threads summed per node: cells" "$1 $3 $4" "240 0 0"
check_match "3 threads summed per node: values" "$2" '^(0|[0-9.]+e-(1[2-9]|[2-9][0-9]))$'
costly=$($PY -c 'import json,sys; print(",".join(map(str,json.load(open(sys.argv[1]))["costly_processes"])))' "$TMP/j24")
check_eq "planted nodes 2..6 found" "$costly" "2,3,4,5,6"

# ---- the distribution plot: written by --plots, deterministic, boxes where the numbers say ----
check "plots" "$M" profile-clusters $S/tau16 --plots "$TMP/fig"
check "plots again" "$M" profile-clusters $S/tau16 --plots "$TMP/fig2"
check "distribution.png byte-identical across runs" cmp -s "$TMP/fig/distribution.png" "$TMP/fig2/distribution.png"
# the costlier cluster's box (vermilion) must sit at the median of nodes 12..15 in
# exchange_halo taken from the truth: the plot area is rows 50..450 and the axis 0..30 s
rows=$(PYTHONPATH=tests $PY - "$TMP/fig/distribution.png" $S/tau16_truth.csv <<'PYEOF'
import sys, csv, statistics, pngcheck
w, h, rows = pngcheck.pixels(sys.argv[1])
t = [float(r[2]) for r in csv.reader(open(sys.argv[2])) if r[1] == "exchange_halo" and r[0] in ("12", "13", "14", "15")]
want = 450 - statistics.median(t) / 30 * 400
ys = [y for y in range(h) for x in range(80, 730) if all(abs(a - b) < 8 for a, b in zip(rows[y][x][:3], (213, 94, 0)))]
got = sum(ys) / len(ys) if ys else -1
print("ok" if abs(got - want) < 6 else "bad: box at row %s, median at %s" % (got, want))
PYEOF
)
check_eq "costlier cluster's box at its median" "$rows" "ok"
check "svg form" "$M" profile-clusters $S/tau16 --plots "$TMP/svg" --svg
check "distribution.svg parses" $PY -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/svg/distribution.svg"

# ---- the profiles PDF carries the box plots after the scatter, with their group sizes ----
check "report" env SOURCE_DATE_EPOCH=0 "$M" profile-clusters $S/tau16 --report "$TMP/r.pdf"
txt=$(pdftotext "$TMP/r.pdf" - 2>/dev/null | tr '\n' ' ')
check_match "report: distribution figure and its caption" "$txt" 'Figure 5: how the seconds of each of the first 1 dominating function spread .*\(4 \| 12 processes'
imgs=$(pdfimages -list "$TMP/r.pdf" 2>/dev/null | awk 'NR > 2 && $3 == "image"' | wc -l)
check_eq "report: five figures (3 rounds, scatter, distribution)" "$imgs" 5

# ---- damaged inputs: a clear message naming file:line, exit 1, nothing written ----
bad() { # bad NAME SED-SCRIPT FILE WANT-REGEX
    rm -rf "$TMP/bad" && cp -r $S/tau16 "$TMP/bad"
    sed -i "$2" "$TMP/bad/$3"
    check_exit "$1: exit 1" 1 "$M" profile-clusters "$TMP/bad" --profile-csv "$TMP/bad.csv"
    check_match "$1: message" "$(cat "$TMP/err")" "$4"
    if [ -e "$TMP/bad.csv" ]; then fail "$1: output written"; else ok; fi
}
bad "bad count line" '1s/.*/ten templated_functions/' profile.3.0.1 'profile\.3\.0\.1:1: .*templated_functions'
bad "no column line" '2s/^#/x/' profile.0.0.0 'profile\.0\.0\.0:2: '
bad "unquoted name" '5s/^"//' profile.7.0.0 'profile\.7\.0\.0:5: expected a quoted'
bad "missing number" '6s/" [0-9]* [0-9]* /" 1 /' profile.2.0.1 'profile\.2\.0\.1:6: expected 5 numbers'
bad "negative time" '4s/" \([0-9]*\) 0 [0-9]*/" \1 0 -5/' profile.1.0.0 'profile\.1\.0\.0:4: exclusive time'
bad "cut short" '8,$d' profile.5.0.0 'profile\.5\.0\.0:8: 10 function lines announced, 5 found'
bad "empty file" '1,$d' profile.9.0.1 'profile\.9\.0\.1:1: empty file'
# a directory with only profile.0.0.0 removed is not a TAU directory: read as CSV, which fails
rm -rf "$TMP/bad" && cp -r $S/tau16 "$TMP/bad" && rm "$TMP/bad/profile.0.0.0"
check_exit "no profile.0.0.0: not probed as TAU" 1 "$M" profile-clusters "$TMP/bad"
finish test_tau
