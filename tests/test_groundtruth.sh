# Ground truth: synthetic machines of switches > nodes > sockets > cores with shuffled
# placement (mpilens synth --shuffle --truth). Checks that the truth file and the cube agree,
# that the trees cut at the number of nodes (switches, sockets) give back the nodes (switches,
# sockets) with adjusted Rand index 1 (sklearn's, with scipy's fcluster doing the cut on our
# Z.csv), that `mpilens anomalies` finds exactly the injected faults, and nothing on clean cubes;
# and that --normalize slowness gives every level back with a slow node and changes nothing on a
# clean machine, while the default distance stays the raw one.
. tests/lib.sh
PY=/usr/bin/python3

# ARI of the cuts of each Z at the number of switches, nodes and sockets against the truth, one
# line per Z "switches=A nodes=B sockets=C"; the cut is scipy's maxclust on our linkage.
cat >"$TMP/ari.py" <<'PYEOF'
import json, sys
import numpy as np
from scipy.cluster.hierarchy import fcluster
from sklearn.metrics import adjusted_rand_score
t = json.load(open(sys.argv[1]))
pl = t["placement"]
want = {"switches": [p["switch"] for p in pl], "nodes": [p["node"] for p in pl],
        "sockets": [p["node"] * t["sockets"] + p["socket"] for p in pl]}
k = {"switches": t["switches"], "nodes": t["nodes"], "sockets": t["nodes"] * t["sockets"]}
for path in sys.argv[2:]:
    Z = np.loadtxt(path, delimiter=",", ndmin=2, skiprows=1)
    assert len(pl) == t["procs"] == Z.shape[0] + 1
    out = []
    for level in ("switches", "nodes", "sockets"):
        got = fcluster(Z, k[level], criterion="maxclust")
        out.append("%s=%.6g" % (level, adjusted_rand_score(want[level], got)))
    print(" ".join(out))
PYEOF

# The findings of `anomalies --json` and of the truth file, as sorted "kind:ranks" words.
found() { "$BIN/mpilens" anomalies --json "$@" | $PY -c 'import json,sys; print(" ".join(sorted("%s:%s" % (a["kind"], ",".join(map(str, a["ranks"]))) for a in json.load(sys.stdin)["anomalies"])))'; }
truth() { $PY -c 'import json,sys; print(" ".join(sorted("%s:%s" % (a["kind"], ",".join(map(str, a["ranks"]))) for a in json.load(open(sys.argv[1]))["anomalies"])))' "$1"; }

# cuts NAME PREFIX TRUTH: the ARI lines of average, complete and ward linkage, in that order,
# first on the default distance (Z in $TMP/NAME.METHOD.Z.csv), then with --normalize slowness
# (Z in $TMP/NAME.norm.METHOD.Z.csv): six lines
cuts() {
    local m z zs=()
    for z in "" .norm; do
        for m in average complete ward; do
            "$BIN/mpilens" cluster "$2" --method $m ${z:+--normalize slowness} \
                --linkage "$TMP/$1$z.$m.Z.csv" 2>/dev/null || echo "$m$z failed"
            zs+=("$TMP/$1$z.$m.Z.csv")
        done
    done
    $PY "$TMP/ari.py" "$3" "${zs[@]}"
}

# --- the truth file against the cube and against the shape it claims -------------------------
check "synth with --truth" "$BIN/mpilens" synth -o "$TMP/exact/n" --procs 48 --switches 2 --nodes 4 \
    --sockets 2 --shuffle --noise 0 --seed 31337 --truth "$TMP/exact/t.json"
got=$($PY - "$TMP/exact/t.json" "$TMP/exact/n_hosts.txt" "$TMP/exact/n_median.nc" <<'PYEOF'
import json, sys
from collections import Counter
from scipy.io import netcdf_file
t = json.load(open(sys.argv[1]))
hosts = open(sys.argv[2]).read().split()
pl = t["placement"]
P, S, N, K, C = t["procs"], t["switches"], t["nodes"], t["sockets"], t["cores"]
assert (P, S, N, K, C) == (48, 2, 4, 2, 6), (P, S, N, K, C)
assert [p["rank"] for p in pl] == list(range(P))
# every core of every socket of every node holds exactly one rank; nodes sit on their switch
assert sorted((p["node"], p["socket"], p["core"]) for p in pl) == \
    [(n, k, c) for n in range(N) for k in range(K) for c in range(C)]
assert all(p["switch"] == p["node"] // (N // S) for p in pl)
assert all(hosts[r] == "node%02d" % (pl[r]["node"] + 1) == pl[r]["host"] for r in range(P))
# shuffled: rank order is not core order (identity would put ranks 0..5 on node 0 socket 0)
ident = sum(p["node"] * K * C + p["socket"] * C + p["core"] == p["rank"] for p in pl)
assert ident < P // 4, ident
# noise 0: at length 0 every element is exactly the latency of the level the truth implies
lat = [0.35e-6, 0.65e-6, 1.9e-6, 2.7e-6]
d = netcdf_file(sys.argv[3], "r", mmap=False).variables["data"][:]
bad = 0
for i in range(P):
    for j in range(P):
        if i == j:
            continue
        a, b = pl[i], pl[j]
        lv = 3 if a["switch"] != b["switch"] else 2 if a["node"] != b["node"] else 1 if a["socket"] != b["socket"] else 0
        bad += abs(d[0, i, j] - lat[lv]) > 1e-15
print("ok" if bad == 0 and t["anomalies"] == [] else "bad elements %d" % bad)
PYEOF
)
check_eq "truth: placement, hosts and level latencies agree" "$got" "ok"
"$BIN/mpilens" synth -o "$TMP/exact2/n" --procs 48 --switches 2 --nodes 4 --sockets 2 --shuffle \
    --noise 0 --seed 31338 --truth "$TMP/exact2/t.json" 2>/dev/null
check_eq "truth: another seed, another placement" "$(cmp -s "$TMP/exact/t.json" "$TMP/exact2/t.json"; echo $?)" "1"
SOURCE_DATE_EPOCH=1795219200 "$BIN/mpilens" synth -o "$TMP/again/n" --procs 48 --switches 2 --nodes 4 \
    --sockets 2 --shuffle --noise 0 --seed 31337 --truth "$TMP/again/t.json" 2>/dev/null
check "truth: byte-identical for the same seed" cmp "$TMP/exact/t.json" "$TMP/again/t.json"

# spikes (OS noise in some repeats) move the average and deviation only; a fixed date, or the
# files' date attribute differs when the two runs straddle a second (seen under ASan)
export SOURCE_DATE_EPOCH=1795219200
"$BIN/mpilens" synth -o "$TMP/spiky/n" --procs 48 --switches 2 --nodes 4 --sockets 2 --shuffle --noise 0.03 \
    --seed 31337 --spikes 0.05 2>/dev/null
"$BIN/mpilens" synth -o "$TMP/calm/n" --procs 48 --switches 2 --nodes 4 --sockets 2 --shuffle --noise 0.03 \
    --seed 31337 2>/dev/null
check "spikes: median untouched" cmp "$TMP/spiky/n_median.nc" "$TMP/calm/n_median.nc"
check "spikes: min untouched" cmp "$TMP/spiky/n_min.nc" "$TMP/calm/n_min.nc"
got=$($PY - "$TMP/spiky/n_average.nc" "$TMP/calm/n_average.nc" <<'PYEOF'
import sys
import numpy as np
from scipy.io import netcdf_file
a = netcdf_file(sys.argv[1], "r", mmap=False).variables["data"][:]
b = netcdf_file(sys.argv[2], "r", mmap=False).variables["data"][:]
off = ~np.eye(a.shape[1], dtype=bool)[None, :, :].repeat(a.shape[0], 0)
hit = (a != b)[off]
share = hit.mean()
# never smaller, about 5 % of the elements, and some spikes much larger than the delay
ok = (a >= b).all() and 0.04 < share < 0.06 and (a[off] / b[off]).max() > 2
print("ok" if ok else "share %.4f max ratio %.2f" % (share, (a[off] / b[off]).max()))
PYEOF
)
check_eq "spikes: about 5 % of the averages, only upwards, heavy-tailed" "$got" "ok"

# --- clean machines: every level comes back, and no anomaly ------------------------------------
# procs switches nodes sockets seed spikes (switches x nodes x sockets x cores: 2x4x2x8,
# 3x6x2x6, 2x8x2x8, 4x8x3x4)
for shape in "64 2 4 2 4211 0" "72 3 6 2 907 0.03" "128 2 8 2 5151 0" "96 4 8 3 66 0.02"; do
    set -- $shape
    name="clean$1"
    "$BIN/mpilens" synth -o "$TMP/$name/n" --procs "$1" --switches "$2" --nodes "$3" --sockets "$4" \
        --shuffle --jitter 0.02 --spikes "$6" --seed "$5" --truth "$TMP/$name/t.json" 2>/dev/null
    check_eq "$name: no anomalies" "$("$BIN/mpilens" anomalies --json "$TMP/$name/n")" '{"anomalies":[],"stat":"median"}'
    check_eq "$name: no anomalies in the average either" "$("$BIN/mpilens" anomalies --stat average --json "$TMP/$name/n")" \
        '{"anomalies":[],"stat":"average"}'
    lines=$(cuts "$name" "$TMP/$name/n" "$TMP/$name/t.json")
    norm=$(sed -n '4,6p' <<<"$lines")
    m=0
    for method in average complete ward; do
        m=$((m + 1))
        check_eq "$name $method: cuts give switches, nodes, sockets" "$(sed -n ${m}p <<<"$lines")" \
            "switches=1 nodes=1 sockets=1"
        check_eq "$name $method --normalize slowness: the same cuts" "$(sed -n ${m}p <<<"$norm")" \
            "switches=1 nodes=1 sockets=1"
    done
done

# mpilens cluster's own cut (--cut K) at the number of nodes gives the nodes too, and its host
# column is the truth's host
for name in clean64 clean72 clean128 clean96; do
    k=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["nodes"])' "$TMP/$name/t.json")
    "$BIN/mpilens" cluster "$TMP/$name/n" --method average --cut "$k" --clusters "$TMP/$name.cut.csv" 2>/dev/null
    # a clean machine's slowness is 1 within noise: the normalised cut is the same file
    "$BIN/mpilens" cluster "$TMP/$name/n" --method average --cut "$k" --clusters "$TMP/$name.ncut.csv" \
        --normalize slowness 2>/dev/null
    check "$name: --normalize slowness, the same clusters at the number of nodes" \
        cmp "$TMP/$name.cut.csv" "$TMP/$name.ncut.csv"
done
got=$($PY - "$TMP" clean64 clean72 clean128 clean96 <<'PYEOF'
import csv, json, sys
from sklearn.metrics import adjusted_rand_score
out = []
for name in sys.argv[2:]:
    t = json.load(open("%s/%s/t.json" % (sys.argv[1], name)))
    rows = list(csv.DictReader(open("%s/%s.cut.csv" % (sys.argv[1], name))))
    pl = t["placement"]
    ok = [int(r["rank"]) for r in rows] == list(range(t["procs"]))
    ok = ok and all(r["host"] == pl[int(r["rank"])]["host"] for r in rows)
    ari = adjusted_rand_score([p["node"] for p in pl], [int(r["cluster"]) for r in rows])
    out.append("%s=%s" % (name, "1" if ok and ari == 1.0 else "ari %.4f hosts %s" % (ari, ok)))
print(" ".join(out))
PYEOF
)
check_eq "cluster --cut NODES gives the nodes" "$got" "clean64=1 clean72=1 clean128=1 clean96=1"

# --- faulty machines: the faults are found exactly, the nodes still come back ---------------
# procs switches nodes sockets seed slow-node bad-link asym-pair spikes
for shape in "32 2 4 2 11 1 3,20 7,30 0" "36 3 6 2 12 4 0,35 8,9 0" "64 2 8 2 13 5 9,40 12,33 0.02"; do
    set -- $shape
    name="faulty$1"
    "$BIN/mpilens" synth -o "$TMP/$name/n" --procs "$1" --switches "$2" --nodes "$3" --sockets "$4" \
        --shuffle --jitter 0.02 --seed "$5" --slow-node "$6" --bad-link "$7" --asym-pair "$8" --spikes "$9" \
        --truth "$TMP/$name/t.json" 2>/dev/null
    want=$(truth "$TMP/$name/t.json")
    check_match "$name: truth names three faults" "$want" "^asymmetric_pair:${8} bad_link:${7} slow_node:[0-9,]+$"
    check_eq "$name: anomalies are exactly the injected ones" "$(found "$TMP/$name/n")" "$want"
    check_eq "$name: the same from the average" "$(found "$TMP/$name/n" --stat average)" "$want"
    lines=$(cuts "$name" "$TMP/$name/n" "$TMP/$name/t.json")
    norm=$(sed -n '4,6p' <<<"$lines")
    m=0
    for method in average complete ward; do
        m=$((m + 1))
        check_match "$name $method: the cut at the number of nodes gives the nodes" \
            "$(sed -n ${m}p <<<"$lines")" " nodes=1 sockets=1$"
        check_eq "$name $method --normalize slowness: every level, the switches too" \
            "$(sed -n ${m}p <<<"$norm")" "switches=1 nodes=1 sockets=1"
    done
done

# A slow node on its own (1.6x on every link, the default) is farther from every other node
# than the other switch is, so with the raw-latency distance (the default, kept as it is) the
# cut at the number of switches isolates the slow node instead (docs/synth.md). Dividing each
# distance by the slowness of its slower rank (--normalize slowness) gives every level back.
# procs switches nodes sockets seed slow-node spikes
for shape in "64 2 8 2 13 5 0" "72 3 6 2 907 2 0" "96 4 8 3 66 7 0.02" "48 2 4 2 31337 3 0"; do
    set -- $shape
    name="slow$1"
    "$BIN/mpilens" synth -o "$TMP/$name/n" --procs "$1" --switches "$2" --nodes "$3" --sockets "$4" --shuffle \
        --jitter 0.02 --seed "$5" --slow-node "$6" --spikes "$7" --truth "$TMP/$name/t.json" 2>/dev/null
    lines=$(cuts "$name" "$TMP/$name/n" "$TMP/$name/t.json")
    norm=$(sed -n '4,6p' <<<"$lines")
    m=0
    for method in average complete ward; do
        m=$((m + 1))
        check_match "$name $method: raw distance, nodes still exact" "$(sed -n ${m}p <<<"$lines")" \
            " nodes=1 sockets=1$"
        check_eq "$name $method --normalize slowness: switches, nodes, sockets" \
            "$(sed -n ${m}p <<<"$norm")" "switches=1 nodes=1 sockets=1"
    done
    [ "$name" = slow64 ] && slow64_raw=$(sed -n 1p <<<"$lines")
done
# the default is the raw distance, byte for byte: the documented limit (ARI 0.056) is still there
check_eq "slow64 average, default distance: the switch cut isolates the slow node" "$slow64_raw" \
    "switches=0.0559441 nodes=1 sockets=1"
"$BIN/mpilens" cluster "$TMP/slow64/n" --method ward --normalize none --linkage "$TMP/slow64.none.Z.csv" 2>/dev/null
check "--normalize none is the default, byte for byte" cmp "$TMP/slow64.none.Z.csv" "$TMP/slow64.ward.Z.csv"
# stderr names the slowest rank, which sits on the slow node (node06 is node 5)
"$BIN/mpilens" cluster "$TMP/slow64/n" --normalize slowness --linkage "$TMP/slow64.z2.csv" 2>"$TMP/slow64.err"
check_match "cluster --normalize: the slowest rank is on the slow node" "$(cat "$TMP/slow64.err")" \
    "slowest r[0-9]+@node06 1\.6[0-9]*, 8 of 64 ranks above 1\.15"
check "nj --normalize slowness" "$BIN/mpilens" nj "$TMP/slow64/n" --normalize slowness --newick "$TMP/slow64.nwk"
check_match "nj --normalize: the slowest rank is on the slow node" "$(cat "$TMP/err")" "slowest r[0-9]+@node06"
check_eq "nj --normalize: 64 leaves" "$(grep -o 'r[0-9]*@node' "$TMP/slow64.nwk" | sort -u | wc -l)" "64"
# every switch and every node of the truth is a clade (one side of an edge) of the NJ tree
cat >"$TMP/splits.py" <<'PYEOF'
import json, re, sys
t = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().strip().rstrip(";")
stack, sets = [[]], []
for x in re.findall(r"\(|\)|,|:[^,()]+|[^,():]+", text):
    if x == "(":
        stack.append([])
    elif x == ")":
        s = set().union(*stack.pop())
        sets.append(s)
        stack[-1].append(s)
    elif x != "," and not x.startswith(":"):
        stack[-1].append({int(re.match(r"r(\d+)@", x).group(1))})
ranks = set(range(t["procs"]))
assert sets and sets[-1] == ranks, "leaves"
splits = {frozenset(s) for s in sets} | {frozenset(ranks - s) for s in sets}
out = []
for level, name in (("switch", "switches"), ("node", "nodes")):
    groups = {}
    for p in t["placement"]:
        groups.setdefault(p[level], set()).add(p["rank"])
    out.append("%s=%d/%d" % (name, sum(frozenset(g) in splits for g in groups.values()), len(groups)))
print(" ".join(out))
PYEOF
check_eq "nj --normalize, slow node: switches and nodes are clades" \
    "$($PY "$TMP/splits.py" "$TMP/slow64/t.json" "$TMP/slow64.nwk")" "switches=2/2 nodes=8/8"
"$BIN/mpilens" nj "$TMP/clean96/n" --normalize slowness --newick "$TMP/clean96.nwk" 2>/dev/null
check_eq "nj --normalize, clean machine: switches and nodes are clades" \
    "$($PY "$TMP/splits.py" "$TMP/clean96/t.json" "$TMP/clean96.nwk")" "switches=4/4 nodes=8/8"
check_exit "cluster --normalize bogus" 2 "$BIN/mpilens" cluster "$TMP/slow64/n" --normalize slow --linkage "$TMP/bogus.csv"
check_match "cluster --normalize message" "$(cat "$TMP/err")" "--normalize wants none or slowness, got 'slow'"
check_exit "nj --normalize bogus" 2 "$BIN/mpilens" nj "$TMP/slow64/n" --normalize Slowness --newick "$TMP/bogus.nwk"
check_match "nj --normalize message" "$(cat "$TMP/err")" "--normalize wants none or slowness, got 'Slowness'"
check_eq "bad --normalize: nothing written" "$(ls "$TMP"/bogus.* 2>/dev/null | wc -l)" "0"
check_match "cluster --help says when to normalise" "$("$BIN/mpilens" cluster --help)" "slow.*node hides the switch level"
check_match "nj --help says when to normalise" "$("$BIN/mpilens" nj --help)" "slow.*node hides the switch level"

# --- errors: nothing written, the message names the problem ---------------------------------
check_exit "switches must divide nodes" 1 "$BIN/mpilens" synth -o "$TMP/e1/n" --nodes 4 --switches 3 --truth "$TMP/e1/t.json"
check_match "switches message" "$(cat "$TMP/err")" "4 nodes do not divide into 3 switches"
check_eq "nothing written" "$(ls "$TMP/e1" 2>/dev/null | wc -l)" "0"
check_exit "asymmetric pair out of range" 1 "$BIN/mpilens" synth -o "$TMP/e2/n" --procs 16 --asym-pair 3,16
check_match "asymmetric pair message" "$(cat "$TMP/err")" "asymmetric pair 3, 16 is not a pair of distinct ranks"
check_exit "bad --jitter" 2 "$BIN/mpilens" synth -o "$TMP/e3/n" --jitter 0.7
check_exit "--jitter not a number" 2 "$BIN/mpilens" synth -o "$TMP/e3/n" --jitter 0.1x
check_exit "bad --spikes" 2 "$BIN/mpilens" synth -o "$TMP/e3/n" --spikes 1.5
echo x >"$TMP/afile"
check_exit "truth below a regular file" 1 "$BIN/mpilens" synth -o "$TMP/e4/n" --truth "$TMP/afile/t.json"
check_match "truth error names the path" "$(cat "$TMP/err")" "afile"
check_eq "no cube written" "$(ls "$TMP/e4" 2>/dev/null | wc -l)" "0"

finish test_groundtruth
