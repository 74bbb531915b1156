#!/usr/bin/env bash
# mpilens profile-clusters on the sample profiles: the planted answer, JSON keys, determinism,
# CSV errors with file:line and exit 1, usage errors with exit 2.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
# The command table takes C identifiers; main.c maps '-' to '_' once the lead wires it.
CMD=profile-clusters
"$M" $CMD --help >/dev/null 2>&1 || CMD=profile_clusters

check "help has an example" sh -c "'$M' $CMD --help | grep -q 'example:'"

# halo64.csv: processes 48..63 spend 10x in exchange_halo (samples/profiles/make_profiles.py)
"$M" $CMD samples/profiles/halo64.csv --json >"$TMP/halo.json" 2>"$TMP/err"
check_eq "halo exit" "$?" 0
got=$($PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert sorted(d) == ["costly_processes", "dominating_functions", "iterations", "stop"], sorted(d)
for it in d["iterations"]:
    assert sorted(it) == ["accepted", "attributes", "attributes_kept", "bic", "bic_one_cluster",
                          "clusters", "cost", "set", "stop"], sorted(it)
    assert it["set"] in ("functions", "processes") and len(it["clusters"]) == 2
print(",".join(d["dominating_functions"]), d["costly_processes"] == list(range(48, 64)),
      [it["set"] for it in d["iterations"]][:2], d["iterations"][0]["clusters"][0])
' "$TMP/halo.json" 2>&1)
check_eq "halo answer" "$got" "exchange_halo True ['functions', 'processes'] ['exchange_halo']"

# the BIC printed for the first process round, recomputed from its clusters with numpy
got=$($PY -c '
import json, sys, csv, math
import numpy as np
d = json.load(open(sys.argv[1]))
it = [i for i in d["iterations"] if i["set"] == "processes"][0]
t = {}
for r in csv.DictReader(open(sys.argv[2])):
    if r["function"] == "exchange_halo": t[int(r["process"])] = float(r["seconds"])
A, B = (np.array([t[p] for p in c]) for c in it["clusters"])
R, M, K = len(A) + len(B), 1, 2
ss = ((A - A.mean())**2).sum() + ((B - B.mean())**2).sum()
s2 = ss / (R - K)
l = len(A) * math.log(len(A) / R) + len(B) * math.log(len(B) / R) - R * M / 2 * math.log(2 * math.pi * s2) - ss / (2 * s2)
bic = l - ((K - 1) + M * K + 1) / 2 * math.log(R)
print("%.6e %.6e" % (bic, it["bic"]))
' "$TMP/halo.json" samples/profiles/halo64.csv 2>&1)
check_close "bic of the process split against numpy" "${got#* }" "${got% *}" 1e-8

# determinism: byte-identical output for the same seed; the same answer for another seed
"$M" $CMD samples/profiles/halo64.csv --json >"$TMP/halo2.json"
check "same seed, same bytes" cmp -s "$TMP/halo.json" "$TMP/halo2.json"
"$M" $CMD samples/profiles/halo64.csv --json --seed 977 --restarts 3 >"$TMP/halo3.json"
check_eq "other seed, same answer" "$(head -c 120 "$TMP/halo3.json")" "$(head -c 120 "$TMP/halo.json")"

# noise64.csv: no structure; one rejected round per phase
got=$("$M" $CMD samples/profiles/noise64.csv --json | $PY -c '
import json, sys
d = json.load(sys.stdin)
print(len(d["iterations"]), [i["accepted"] for i in d["iterations"]], len(d["dominating_functions"]), len(d["costly_processes"]))')
check_eq "noise stops at once" "$got" "2 [False, False] 12 64"

# text form names the function and the ranks as a range
out=$("$M" $CMD samples/profiles/halo64.csv)
check_match "text dominating" "$out" "exchange_halo +[0-9.]+ s"
check_match "text ranks" "$out" "costly processes \(16 of 64\): 48-63"

# CSV errors: exit 1, message with file:line, nothing on stdout
printf 'process,function,seconds\n0,main,1.5\n1,main,slow\n' >"$TMP/bad.csv"
check_exit "bad seconds exit 1" 1 "$M" $CMD "$TMP/bad.csv" --json
check_match "bad seconds names file:line" "$(cat "$TMP/err")" "bad.csv:3: seconds 'slow'"
check_eq "nothing on stdout" "$(wc -c <"$TMP/out")" 0
printf '0,main,1.5\n1,main\n' >"$TMP/short.csv"
check_exit "short line exit 1" 1 "$M" $CMD "$TMP/short.csv"
check_match "short line names file:line" "$(cat "$TMP/err")" "short.csv:2: expected 3 fields"
printf 'x1,main,1.5\n' >"$TMP/rank.csv"
check_exit "bad rank exit 1" 1 "$M" $CMD "$TMP/rank.csv"
check_match "bad rank names file:line" "$(cat "$TMP/err")" "rank.csv:1: process 'x1'"
: >"$TMP/empty.csv"
check_exit "empty file exit 1" 1 "$M" $CMD "$TMP/empty.csv"
check_match "empty names file" "$(cat "$TMP/err")" "empty.csv: no data"
check_exit "missing file exit 1" 1 "$M" $CMD "$TMP/none.csv"
check_match "missing names file" "$(cat "$TMP/err")" "none.csv: cannot open"

# usage errors: exit 2
check_exit "no input" 2 "$M" $CMD
check_exit "two inputs" 2 "$M" $CMD a.csv b.csv
check_exit "bad seed" 2 "$M" $CMD samples/profiles/halo64.csv --seed -4
check_exit "bad restarts" 2 "$M" $CMD samples/profiles/halo64.csv --restarts 0
check_exit "unknown option" 2 "$M" $CMD samples/profiles/halo64.csv --colour

# figures: one bar chart per round and the PCA scatter, PNG by default, SVG on request
check "plots written" "$M" $CMD samples/profiles/halo64.csv --plots "$TMP/fig"
check "plots again" "$M" $CMD samples/profiles/halo64.csv --plots "$TMP/fig2"
check "plots are byte-identical" cmp -s "$TMP/fig/pca_scatter.png" "$TMP/fig2/pca_scatter.png"
nrounds=$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["iterations"]))' "$TMP/halo.json")
check_eq "one bar chart per round" "$(ls "$TMP/fig" | grep -c '^round[0-9]*_bars.png$')" "$nrounds"
got=$(PYTHONPATH=tests $PY - "$TMP/fig" <<'PY' 2>&1
import sys, pngcheck
d = sys.argv[1]
w, h, rows = pngcheck.pixels(d + "/pca_scatter.png")
red = pngcheck.count(rows, (213, 94, 0), x1=730)     # costly processes, 16 dots
blue = pngcheck.count(rows, (0, 114, 178), x1=730)   # the other 48
# round 2 splits processes: the costlier cluster's exchange_halo bar (first category) is
# about 10x the others, so nearly all vermilion bar area sits in the first category
w2, h2, bars = pngcheck.pixels(d + "/round2_bars.png")
band = (730 - 80) / 12
cols = [pngcheck.count(bars, (213, 94, 0), 10, int(80 + i * band), int(80 + (i + 1) * band)) for i in range(12)]
print(w, h, red > 100, blue > 2 * red, cols[0] > 5 * max(cols[1:]))
PY
)
check_eq "scatter and bars pixels" "$got" "900 540 True True True"
check "svg plots" "$M" $CMD samples/profiles/halo64.csv --plots "$TMP/svg" --svg
check "svg plots again" "$M" $CMD samples/profiles/halo64.csv --plots "$TMP/svg2" --svg
check "svg byte-identical" cmp -s "$TMP/svg/round2_bars.svg" "$TMP/svg2/round2_bars.svg"
check "svg parses" $PY -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg")' "$TMP/svg/pca_scatter.svg"
check_exit "svg without plots" 2 "$M" $CMD samples/profiles/halo64.csv --svg
printf 'x' >"$TMP/file"
check_exit "plots dir is a file" 1 "$M" $CMD samples/profiles/halo64.csv --plots "$TMP/file"

# ---- the paper's variants (Zhu, Li and Li): D_p over all functions, convergence of each
# cluster, thresholds instead of PCA ----
H=samples/profiles/halo64.csv
"$M" $CMD "$H" --json --process-attrs all >"$TMP/all.json"
"$M" $CMD "$H" --json >"$TMP/dom.json"
nf=$(tail -n +2 "$H" | cut -d, -f2 | sort -u | wc -l)
got=$($PY -c '
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    print([it["attributes"] for it in d["iterations"] if it["set"] == "processes"][0], end=" ")' "$TMP/all.json" "$TMP/dom.json")
check_eq "D_p over every function ($nf) or over the dominating one" "$got" "$nf 1 "
check_match "default: the planted processes" "$(cat "$TMP/dom.json")" '"costly_processes":\[48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63\]'
# convergence: the first functions round puts exchange_halo alone in the costlier cluster,
# which has converged; the other 11 functions have not, so "each" goes on and "costlier" stops
st() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["stop"]["functions"])' "$1"; }
"$M" $CMD "$H" --json --converge costlier >"$TMP/cost.json"
check_eq "converge costlier stops on the converged costlier cluster" "$(st "$TMP/cost.json")" "costlier cluster converged"
check_eq "converge each goes on" "$(st "$TMP/dom.json")" "fewer than 3 points"
# threshold=20%: in the first round (points = functions, attributes = processes) a process is
# kept when max - min over the functions >= 0.2 max |v|; recomputed here from the CSV
"$M" $CMD "$H" --json --preprocess threshold=20% >"$TMP/thr.json"
got=$($PY - "$H" "$TMP/thr.json" <<'PY'
import csv, json, sys, collections
v = collections.defaultdict(dict)
for r in csv.DictReader(open(sys.argv[1])):
    v[int(r["process"])][r["function"]] = v[int(r["process"])].get(r["function"], 0) + float(r["seconds"])
funcs = sorted({f for p in v.values() for f in p})
keep = sum(1 for p in v.values() if max(abs(x) for x in [p.get(f, 0) for f in funcs]) > 0 and
           max(p.get(f, 0) for f in funcs) - min(p.get(f, 0) for f in funcs) >= 0.2 * max(abs(p.get(f, 0)) for f in funcs))
print(json.load(open(sys.argv[2]))["iterations"][0]["attributes_kept"] == keep, keep > 0)
PY
)
check_eq "threshold preprocessing keeps what the rule keeps" "$got" "True True"
check_exit "bad --preprocess" 2 "$M" $CMD "$H" --preprocess threshold=0%
check_exit "bad --preprocess word" 2 "$M" $CMD "$H" --preprocess svd
check_exit "bad --converge" 2 "$M" $CMD "$H" --converge all
check_exit "bad --process-attrs" 2 "$M" $CMD "$H" --process-attrs some

finish test_profile
