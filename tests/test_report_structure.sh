#!/usr/bin/env bash
# mpilens report, "Structure of the machine" and "Anomalies": the groups, the cut and the
# words checked against scipy's average linkage on the same distances and against the hosts
# (exact match, groups of hosts, split hosts, no relation), the link clusters against
# `mpilens links`, the ranked anomalies against `mpilens anomalies --json`, a clean cube
# without anomalies, a cube that cannot be clustered, and byte-identical PDFs.
. tests/lib.sh
PY=/usr/bin/python3
S32=samples/cubes/synth32/network
export SOURCE_DATE_EPOCH=1715860800
text() { pdftotext -layout "$1" - | tr -d '\f'; }
pages() { pdfinfo "$1" 2>/dev/null | sed -n 's/^Pages: *//p'; }
# the words of the structure section as one line (the paragraph after the cut)
words() { printf '%s\n' "$1" | sed -n '/^Structure of the machine/,/^ *group /p' | tr '\n' ' ' | tr -s ' '; }

# ---- synth32: 4 nodes x 8 ranks, node03 slow, link 3 -> 17 bad ----
check "report synth32" "$BIN/mpilens" report "$S32" -o "$TMP/s32.pdf" --figures "$TMP/fig"
t=$(text "$TMP/s32.pdf")
w=$(words "$t")
check_match "structure sentence" "$w" "4 groups of 8 processes, matching hosts node01\.\.node04: each group is exactly one host"
# page one (the answer, issue 14) before the parameters and the references at the end: two pages more
check_eq "page count" "$(pages "$TMP/s32.pdf")" 10
for f in dendrogram structure_heatmap nj_tree link_clusters link_curves; do
    check "figure $f.png" test -s "$TMP/fig/$f.png"
    check "figure $f.svg" test -s "$TMP/fig/$f.svg"
done
check_match "dendrogram svg names the cut" "$(cat "$TMP/fig/dendrogram.svg")" "4 clusters"
check_match "dendrogram svg labels host:rank" "$(cat "$TMP/fig/dendrogram.svg")" "node03:17"
check_match "figure captions numbered" "$t" "Figure 5: the mean curve of each link cluster"

# scipy reference: distances = median over lengths of the median statistic, (A + A^T) / 2;
# average linkage; the cut rule of docs/report.md (median inside height of the groups
# against the next merge, in a step of at least 1.1x, k <= 256, ties to fewer groups, at
# least 1.5x); per group the ranks
# and the mean distance inside, in µs
cat >"$TMP/ref.py" <<'EOF'
import sys, numpy as np
from scipy.io import netcdf_file
from scipy.cluster.hierarchy import linkage, fcluster
from scipy.spatial.distance import squareform
sys.path.insert(0, "tests")
from units import num
prefix = sys.argv[1]
d = netcdf_file(prefix + "_median.nc", "r", mmap=False).variables["data"].data.copy()
A = np.median(d, axis=0)
np.fill_diagonal(A, 0)
D = (A + A.T) / 2
n = len(D)
Z = linkage(squareform(D, checks=False), "average")
h = Z[:, 2]
best, bk, blo, bhi = 0, 1, h[-1], h[-1]
tops = {}
for j in range(n - 1):
    for c in Z[j, :2].astype(int):
        tops.pop(c, None)
    tops[n + j] = h[j]
    k = n - 1 - j
    if k < 2 or k > 256:
        continue
    within = np.median(list(tops.values()))
    r = h[j + 1] / max(within, 1e-3 * h[-1])
    if h[j + 1] >= 1.1 * max(h[j], 1e-3 * h[-1]) and r >= best:
        best, bk, blo, bhi = r, k, within, h[j + 1]
if best < 1.5:
    bk = 1
lab = fcluster(Z, bk, "maxclust") if bk > 1 else np.ones(n, int)
# number groups from 0 by their smallest rank, as the report and the dendrogram do
order = {}
for i in range(n):
    order.setdefault(lab[i], len(order))
print("cut %d %.2f %s %s" % (bk, best, num(blo * 1e6), num(bhi * 1e6)))
for l, g in sorted(order.items(), key=lambda x: x[1]):
    idx = [i for i in range(n) if lab[i] == l]
    runs, s = [], idx[0]
    for a, b in zip(idx, idx[1:] + [None]):
        if b != a + 1:
            runs.append(str(s) if s == a else "%d-%d" % (s, a))
            s = b
    inside = [D[i, j] for i in idx for j in idx if i < j]
    print("group %d %d %s %s" % (g, len(idx), ", ".join(runs), num(np.mean(inside) * 1e6 if inside else float("nan"))))
EOF
ref=$($PY "$TMP/ref.py" "$S32")
read -r _ k ratio lo hi <<<"$(printf '%s\n' "$ref" | grep '^cut')"
check_eq "scipy cut gives 4 groups" "$k" 4
check_match "cut ratio as scipy" "$w" "${lo} µs .* ${hi} µs, ${ratio} times higher\. This leaves 4 groups"
while read -r _ g size ranks; do
    inside=${ranks##* }
    ranks=${ranks% *}
    check_match "group $g row as scipy" "$t" "^ +$g +$size +$ranks +node0$((g + 1)) \($size\) +$inside$"
done < <(printf '%s\n' "$ref" | grep '^group')

# link clusters: sizes and diameters as `mpilens links` prints them
"$BIN/mpilens" links "$S32" 2>/dev/null | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1, $2, $3 }' >"$TMP/links"
check_eq "links reference rows" "$(wc -l <"$TMP/links")" 8
while read -r id size diam; do
    check_match "link cluster $id" "$t" "^ +$id +$size +[0-9.]+% +$diam +[0-9.]+ +[0-9.]+ +[0-9]+%$"
done <"$TMP/links"

# anomalies: kinds, ranks and scores as `mpilens anomalies --json`, in its order
"$BIN/mpilens" anomalies "$S32" --json >"$TMP/an.json"
$PY - "$TMP/an.json" >"$TMP/an" <<'EOF'
import json, sys
for i, a in enumerate(json.load(open(sys.argv[1]))["anomalies"]):
    print(i + 1, a["kind"], "%.1f" % a["score"], *a["ranks"][:2])
EOF
check_eq "two findings in the reference" "$(wc -l <"$TMP/an")" 2
an=$(printf '%s\n' "$t" | sed -n '/^Anomalies/,/^Heatmaps/p')
check_match "findings counted" "$an" "^2 findings on the median delay"
read -r _ kind score s d <<<"$(sed -n 1p "$TMP/an")"
check_eq "first finding is the bad link" "$kind $s $d" "bad_link 3 17"
check_match "bad link row" "$an" "^ +1 bad link +3 -> 17 \(node01 +0\.\.4096 \(9/9\) +$score link 3->17"
read -r _ kind score s d <<<"$(sed -n 2p "$TMP/an")"
check_eq "second finding is the slow node" "$kind $s" "slow_node 16"
check_match "slow node row names node03" "$an" "^ +2 slow node +16-23 \(node03\) +0\.\.4096 \(9/9\) +$score node03"

# deterministic
check "second run" "$BIN/mpilens" report "$S32" -o "$TMP/s32b.pdf"
check "byte-identical" cmp -s "$TMP/s32.pdf" "$TMP/s32b.pdf"

# ---- a clean cube: the same structure, no anomalies ----
check "synth clean" "$BIN/mpilens" synth -o "$TMP/clean/network" --procs 32 --nodes 4 --seed 977
check "report clean" "$BIN/mpilens" report "$TMP/clean/network" -o "$TMP/clean.pdf"
t=$(text "$TMP/clean.pdf")
check_match "clean: no anomalies" "$t" "^No anomalies: no process is uniformly slower"
check_eq "clean: no anomaly table header" "$(printf '%s\n' "$t" | grep -c 'evidence$')" 0
check_eq "clean: reference agrees" "$("$BIN/mpilens" anomalies "$TMP/clean/network" --json | $PY -c 'import json,sys; print(len(json.load(sys.stdin)["anomalies"]))')" 0
check_match "clean: 4 groups on 4 hosts" "$(words "$t")" "4 groups of 8 processes, matching hosts node01\.\.node04"

# ---- the same cube with other host files: the words follow the hosts ----
variant() { # variant NAME HOSTS...: the clean cube with this hosts file
    mkdir -p "$TMP/$1"
    for s in average median deviation min; do cp "$TMP/clean/network_$s.nc" "$TMP/$1/network_$s.nc"; done
    shift_name=$1
    shift
    printf '%s\n' "$@" >"$TMP/$shift_name/network_hosts.txt"
}
rep() { for i in $(seq 1 "$2"); do printf '%s\n' "$1"; done; }
variant two $(rep sw-a 16) $(rep sw-b 16)
check "report two hosts" "$BIN/mpilens" report "$TMP/two/network" -o "$TMP/two.pdf"
check_match "hosts split into groups" "$(words "$(text "$TMP/two.pdf")")" \
    "4 groups of 8 processes; each group lies inside one host and the hosts are split \(host: groups\): sw-a: 0, 1; sw-b: 2, 3\."
variant eight $(for h in 1 2 3 4 5 6 7 8; do rep "c$h" 4; done)
check "report eight hosts" "$BIN/mpilens" report "$TMP/eight/network" -o "$TMP/eight.pdf"
check_match "groups of whole hosts" "$(words "$(text "$TMP/eight.pdf")")" \
    "4 groups of 8 processes; each group is a set of whole hosts \(group: hosts\): 0: c1, c2; 1: c3, c4; 2: c5, c6; 3: c7, c8\."
# hosts that cut across the groups: ranks 4-11 on one host
variant mixed $(rep x1 4) $(rep x2 8) $(rep x3 4) $(rep x4 16)
check "report mixed hosts" "$BIN/mpilens" report "$TMP/mixed/network" -o "$TMP/mixed.pdf"
check_match "mixed words" "$(words "$(text "$TMP/mixed.pdf")")" \
    "4 groups of 8 processes that do not follow the hosts\. Groups spanning several hosts \(group: hosts\): 0: x1, x2; 1: x2, x3\. Hosts split over several groups \(host: groups\): x2: 0, 1; x4: 2, 3\."

# ---- 16 nodes on one flat level: the cut falls between the nodes, not among the noise ----
check "synth 16 nodes" "$BIN/mpilens" synth -o "$TMP/n16/network" --procs 128 --nodes 16 --seed 31337
check "report 16 nodes" "$BIN/mpilens" report "$TMP/n16/network" -o "$TMP/n16.pdf"
check_match "16 groups on 16 hosts" "$(words "$(text "$TMP/n16.pdf")")" \
    "16 groups of 8 processes, matching hosts node01\.\.node16: each group is exactly one host"
read -r _ k _ <<<"$($PY "$TMP/ref.py" "$TMP/n16/network" | grep '^cut')"
check_eq "scipy agrees on 16 groups" "$k" 16

# ---- one host, no structure: the 4-rank network_test2 run on one VM ----
check "report one host" "$BIN/mpilens" report "$DATA/network-tests2/one_to_one_np4/network" -o "$TMP/vm.pdf"
# since issue 14 the data-quality gate refuses a structure on one host: the box says so and
# no structure section is drawn
check_match "one host: the gate says why" "$(text "$TMP/vm.pdf" | tr "\n" " " | tr -s " ")" \
    "No structure can be read from this measurement, because .*all ranks ran on one host \(vm\)"
check_eq "one host: no structure section" "$(text "$TMP/vm.pdf" | grep -c '^Structure of the machine$')" 0

# ---- a pair without any finite delay: the report says so and is still written ----
mkdir -p "$TMP/nan"
for s in average median deviation min; do cp "${S32}_$s.nc" "$TMP/nan/network_$s.nc"; done
cp "${S32}_hosts.txt" "$TMP/nan/network_hosts.txt"
ncdump "${S32}_median.nc" >"$TMP/nan/median.cdl"
$PY - "$TMP/nan/median.cdl" <<'EOF'
import sys
cdl = open(sys.argv[1]).read()
i = cdl.index(" data =", cdl.index("\ndata:"))
j = cdl.index(";", i)
vals = [v.strip() for v in cdl[i + len(" data ="):j].split(",")]
P = 32
for k in range(len(vals) // (P * P)):
    vals[k * P * P + 5 * P + 9] = "NaN"
    vals[k * P * P + 9 * P + 5] = "NaN"
open(sys.argv[1], "w").write(cdl[:i] + " data = " + ", ".join(vals) + cdl[j:])
EOF
ncgen -o "$TMP/nan/network_median.nc" "$TMP/nan/median.cdl"
check "report with a NaN pair" "$BIN/mpilens" report "$TMP/nan/network" -o "$TMP/nan.pdf"
check_match "clustering failure in words" "$(text "$TMP/nan.pdf" | tr '\n' ' ')" \
    "The processes could not be clustered: .*(5|9).*(9|5)"
check_eq "no empty groups table" "$(text "$TMP/nan.pdf" | grep -c 'mean delay')" 0

finish test_report_structure
