#!/usr/bin/env bash
# mpilens compare on synthetic cubes of one machine (mpilens synth, 16 processes on 4 nodes)
# with known changes written into NEW by a netCDF4 helper: noise alone finds nothing over 20
# seed pairs; a link 1.5x, one node's inter-node links 1.25x, the machine 1.1x and a repaired
# link are found exactly; nodes in another rank order are matched by host; p-values and the
# BH threshold agree with scipy computed from the files; JSON key by key; usage and errors.
. tests/lib.sh
PY=${PYTHON:-/usr/bin/python3}
M="$BIN/mpilens"

# edit PREFIX OP...: scales the delays of a cube in place (every statistic, so the deviation
# grows with the delay as it does on a real machine) or reorders its nodes.
#   link S R F      the link sender S -> receiver R (row R, column S)
#   node HOST F     every link between HOST and another host, both directions
#   pair A B F      every link between host A and host B, both directions
#   machine F       every element
#   reverse-nodes   the nodes in reverse order, ranks keeping their order within a node
cat >"$TMP/edit.py" <<'EOF'
import sys
import numpy as np, netCDF4
prefix, op, args = sys.argv[1], sys.argv[2], sys.argv[3:]
hosts = open(prefix + "_hosts.txt").read().split()
stats = ("average", "median", "deviation", "min")
for s in stats:
    with netCDF4.Dataset(prefix + "_" + s + ".nc", "r+") as f:
        v = f.variables["data"]
        a = np.asarray(v[:], dtype=np.float64)
        if op == "link":
            snd, rcv, fac = int(args[0]), int(args[1]), float(args[2])
            a[:, rcv, snd] *= fac
        elif op == "node":
            on = np.array([h == args[0] for h in hosts])
            fac = float(args[1])
            mask = np.outer(on, ~on) | np.outer(~on, on)
            a[:, mask] *= fac
        elif op == "pair":
            ina = np.array([h == args[0] for h in hosts]); inb = np.array([h == args[1] for h in hosts])
            mask = np.outer(ina, inb) | np.outer(inb, ina)
            a[:, mask] *= float(args[2])
        elif op == "machine":
            a *= float(args[0])
        elif op == "reverse-nodes":
            order = sorted(set(hosts), reverse=True)
            perm = [r for h in order for r in range(len(hosts)) if hosts[r] == h]
            a = a[:, perm, :][:, :, perm]
        v[:] = a
if op == "reverse-nodes":
    with open(prefix + "_hosts.txt", "w") as f:
        f.write("".join(hosts[r] + "\n" for r in perm))
EOF

# syn DIR SEED [synth options]: a 16-process cube of the default machine
syn() { local d=$1 s=$2; shift 2; "$M" synth -o "$TMP/$d/network" --force --seed "$s" "$@" >/dev/null 2>&1 || fail "synth $d"; }
# field JSONFILE EXPR: a value of the JSON output, through Python's parser
field() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- noise alone: 20 pairs of seeds, no finding. With the FDR at 0.01 and every
# hypothesis true, BH allows a run with any finding with probability <= 0.01: 20 runs may
# show at most one.
false_runs=0
for s in $(seq 1 20); do
    syn na $((100 + s)); syn nb $((200 + s))
    "$M" compare --json "$TMP/na/network" "$TMP/nb/network" >"$TMP/null.json" 2>"$TMP/err" || fail "null run $s"
    n=$(field "$TMP/null.json" 'len(d["findings"])')
    [ "$n" != 0 ] && false_runs=$((false_runs + 1))
done
check "runs with a false finding over 20 seed pairs: $false_runs (at most 1)" test "$false_runs" -le 1
check_eq "null verdict" "$(field "$TMP/null.json" 'd["verdict"]')" same
# the text line of a comparison with no significant test quotes the false discovery rate, not
# a threshold of 0 ("p <= 0" read as a bug)
"$M" compare "$TMP/na/network" "$TMP/nb/network" >"$TMP/null.txt" 2>"$TMP/err"
sig=$(field "$TMP/null.json" 'd["significant"]')
if [ "$sig" = 0 ]; then
    check_match "no significant test: the rate, no threshold" "$(head -1 "$TMP/null.txt")" \
        ", none significant at false discovery rate 0.01\)$"
else
    check_match "significant tests: their threshold" "$(head -1 "$TMP/null.txt")" " $sig significant at p <= [0-9.e-]+\)$"
fi

# ---- one link 1.5x slower: exactly that link, at every length
syn base 1; syn link 2
"$PY" "$TMP/edit.py" "$TMP/link/network" link 3 9 1.5
"$M" compare --json "$TMP/base/network" "$TMP/link/network" >"$TMP/link.json"
check_eq "link: one finding" "$(field "$TMP/link.json" '[(f["kind"], f["direction"], f["ranks"], f["hosts"]) for f in d["findings"]]')" \
    "[('link', 'slower', [3, 9], ['node01', 'node03'])]"
check_eq "link: every length" "$(field "$TMP/link.json" 'd["findings"][0]["lengths"]')" \
    "[0, 512, 1024, 1536, 2048, 2560, 3072, 3584, 4096]"
check_close "link: ratio" "$(field "$TMP/link.json" 'd["findings"][0]["ratio"]')" 1.5 0.05
check_eq "link: verdict" "$(field "$TMP/link.json" 'd["verdict"]')" regressed
check_eq "link: matched by host" "$(field "$TMP/link.json" 'd["matched_by"]')" host

# ---- p-values and the BH threshold against scipy, from the files themselves
cat >"$TMP/ref.py" <<'EOF'
import sys, json
import numpy as np, netCDF4
from scipy import stats
def load(p, s):
    with netCDF4.Dataset(p + "_" + s + ".nc") as f:
        return np.asarray(f.variables["data"][:], dtype=np.float64), int(f.variables["num_repeates"][...])
ab, nb = load(sys.argv[1], "average"); db, _ = load(sys.argv[1], "deviation")
an, nn = load(sys.argv[2], "average"); dn, _ = load(sys.argv[2], "deviation")
d = json.load(open(sys.argv[3]))
off = ~np.eye(ab.shape[1], dtype=bool)
t, p = stats.ttest_ind_from_stats(an[:, off], dn[:, off], nn, ab[:, off], db[:, off], nb, equal_var=False)
p = np.sort(p.ravel()); m = p.size
ok = p <= np.arange(1, m + 1) * 0.01 / m
thr = p[np.nonzero(ok)[0].max()] if ok.any() else 0.0
worst = 0.0
lengths = list(range(0, 4097, 512))
for f in d["findings"]:
    if f["kind"] != "link":
        continue
    s, r = f["ranks"]
    for q in f["per_length"]:
        k = lengths.index(q["length"])
        _, ref = stats.ttest_ind_from_stats(an[k, r, s], dn[k, r, s], nn, ab[k, r, s], db[k, r, s], nb, equal_var=False)
        worst = max(worst, abs(q["p"] - ref) / ref)
print(m, "%.6e" % thr, d["tests"], "%.6e" % d["threshold"], int(worst < 1e-6))
EOF
read -r m_py thr_py m_ours thr_ours pok < <("$PY" "$TMP/ref.py" "$TMP/base/network" "$TMP/link/network" "$TMP/link.json")
check_eq "tests counted as scipy" "$m_ours" "$m_py"
check_close "BH threshold as scipy's" "$thr_ours" "$thr_py" 1e-6
check_eq "per-length p-values of the link within 1e-6 of scipy's" "$pok" 1

# ---- one node's inter-node links 1.25x
syn node 3
"$PY" "$TMP/edit.py" "$TMP/node/network" node node03 1.25
"$M" compare --json "$TMP/base/network" "$TMP/node/network" >"$TMP/node.json"
check_eq "node: one finding" "$(field "$TMP/node.json" '[(f["kind"], f["direction"], f["ranks"], f["hosts"]) for f in d["findings"]]')" \
    "[('node', 'slower', [8, 9, 10, 11], ['node03'])]"
check_close "node: ratio" "$(field "$TMP/node.json" 'd["findings"][0]["ratio"]')" 1.25 0.03

# ---- the whole machine 1.1x (low noise, 5 %: a tenth is where the 10 % default sits)
syn mb 4 --noise 0.01; syn mach 5 --noise 0.01
"$PY" "$TMP/edit.py" "$TMP/mach/network" machine 1.1
"$M" compare --json --min-change 5% "$TMP/mb/network" "$TMP/mach/network" >"$TMP/mach.json"
check_eq "machine: one finding" "$(field "$TMP/mach.json" '[(f["kind"], f["direction"], len(f["ranks"]), len(f["lengths"])) for f in d["findings"]]')" \
    "[('machine', 'slower', 16, 9)]"
check_close "machine: ratio" "$(field "$TMP/mach.json" 'd["findings"][0]["ratio"]')" 1.1 0.01

# ---- a structure change: node01 and node02 as close as two sockets of one node, so the
# clustering merges them; their links are explained by it, not reported one by one
syn merge 9
"$PY" "$TMP/edit.py" "$TMP/merge/network" pair node01 node02 0.3
"$M" compare --json "$TMP/base/network" "$TMP/merge/network" >"$TMP/merge.json"
check_eq "structure: one finding, the merged nodes" \
    "$(field "$TMP/merge.json" '[(f["kind"], f["direction"], f["ranks"], f["hosts"], f["p"]) for f in d["findings"]]')" \
    "[('structure', 'faster', [0, 1, 2, 3, 4, 5, 6, 7], ['node01', 'node02'], None)]"
check_eq "structure: groups" "$(field "$TMP/merge.json" '(d["base_groups"], d["new_groups"])')" "(4, 3)"

# ---- a repaired link: BASE had link 5 -> 12 3x slower, NEW does not
syn bad 6 --bad-link 5,12; syn fixed 7
"$M" compare --json "$TMP/bad/network" "$TMP/fixed/network" >"$TMP/fix.json"
check_eq "repaired: one faster link" "$(field "$TMP/fix.json" '[(f["kind"], f["direction"], f["ranks"]) for f in d["findings"]]')" \
    "[('link', 'faster', [5, 12])]"
check_close "repaired: ratio" "$(field "$TMP/fix.json" 'd["findings"][0]["ratio"]')" 0.3333 0.05
check_eq "repaired: verdict" "$(field "$TMP/fix.json" 'd["verdict"]')" improved

# ---- the same nodes in another rank order: matched by host, nothing changed
syn perm 8
"$PY" "$TMP/edit.py" "$TMP/perm/network" reverse-nodes
check_eq "reordered: first host" "$(head -1 "$TMP/perm/network_hosts.txt")" node04
"$M" compare --json "$TMP/base/network" "$TMP/perm/network" >"$TMP/perm.json"
check_eq "reordered: matched by host, no finding" "$(field "$TMP/perm.json" '(d["matched_by"], d["findings"])')" "('host', [])"
# a link in the reordered run is reported in NEW's numbering, BASE's alongside:
# BASE rank 3 (node01) is NEW rank 15, BASE 9 (node03) is NEW 5
"$PY" "$TMP/edit.py" "$TMP/perm/network" link 15 5 1.5
"$M" compare --json "$TMP/base/network" "$TMP/perm/network" >"$TMP/perm2.json"
check_eq "reordered: link ranks in both numberings" \
    "$(field "$TMP/perm2.json" '[(f["kind"], f["ranks"], f["base_ranks"]) for f in d["findings"]]')" "[('link', [15, 5], [3, 9])]"
# without the hosts file the ranks are matched by number, and the reordering shows
rm "$TMP/perm/network_hosts.txt"
"$M" compare --json "$TMP/base/network" "$TMP/perm/network" >"$TMP/perm3.json"
check_eq "no hosts: matched by rank" "$(field "$TMP/perm3.json" 'd["matched_by"]')" rank
check "no hosts: the reordering is a change" test "$(field "$TMP/perm3.json" 'len(d["findings"])')" -gt 0

# ---- the JSON layout, key by key
check_eq "JSON top-level keys" "$(field "$TMP/link.json" 'list(d)[:3]')" "['verdict', 'matched_by', 'findings']"
check_eq "JSON finding keys" "$(field "$TMP/link.json" 'list(d["findings"][0])[:7]')" \
    "['kind', 'direction', 'ranks', 'hosts', 'lengths', 'ratio', 'p']"
check_eq "JSON types" "$(field "$TMP/link.json" '[type(d["findings"][0][k]).__name__ for k in ("ranks","hosts","lengths","ratio","p")]')" \
    "['list', 'list', 'list', 'float', 'float']"
check "JSON p is the smallest per-length p" "$PY" -c "import json,sys; f=json.load(open(sys.argv[1]))['findings'][0]; sys.exit(f['p'] != min(q['p'] for q in f['per_length']))" "$TMP/link.json"

# ---- text output
"$M" compare "$TMP/base/network" "$TMP/link/network" >"$TMP/link.txt"
check_match "text: verdict line" "$(head -1 "$TMP/link.txt")" "regressed \(16 processes matched by host and local rank, 9 lengths"
check_match "text: the link" "$(cat "$TMP/link.txt")" "link +slower +1\.[45][0-9]*x .* ranks 3->9 on node01,node03; lengths 0,512"

# ---- two p2p sweeps (CSV of mpilens-bench -t p2p, written by hand): two pairs, 14 sizes,
# 1 % noise between runs; NEW's inter-node pair 1.5x slower at 1024 bytes only
cat >"$TMP/sweep.py" <<'EOF'
import sys, random
out, seed, slow_size, fac = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
random.seed(seed)
hdr="size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s,bw_time_s,window,round_trips_per_iter,lat_iters,bw_iters,pair,kind,rank_a,rank_b,host_a,host_b"
rows=[hdr]
for pair,(kind,ra,rb,ha,hb,base) in enumerate([("intra",0,1,"n01","n01",0.4e-6),("inter",0,2,"n01","n02",1.5e-6)]):
    for size in [0,1,2,4,8,16,32,64,128,256,512,1024,2048,4096]:
        t = (base + size/10e9) * (1 + 0.01*random.gauss(0,1))
        if size == slow_size and pair == 1: t *= fac
        bw = size/t if size else 0
        rows.append(f"{size},{t:.9g},{t*0.9:.9g},{t*0.99:.9g},{t*1.2:.9g},{bw:.9g},{bw*0.9:.9g},{bw:.9g},{bw*1.1:.9g},{1/t:.9g},{0.9/t:.9g},{1/t:.9g},{1.1/t:.9g},{t*64:.9g},64,10,1000,100,{pair},{kind},{ra},{rb},{ha},{hb}")
open(out,"w").write("\n".join(rows)+"\n")
EOF
"$PY" "$TMP/sweep.py" "$TMP/sa_p2p.csv" 1 -1 1
"$PY" "$TMP/sweep.py" "$TMP/sb_p2p.csv" 2 1024 1.5
"$PY" "$TMP/sweep.py" "$TMP/sc_p2p.csv" 3 -1 1
"$M" compare --json "$TMP/sa_p2p.csv" "$TMP/sb_p2p.csv" >"$TMP/sweep.json"
check_eq "sweeps: the slow size of the inter-node pair" \
    "$(field "$TMP/sweep.json" '[(f["kind"], f["direction"], f["ranks"], f["hosts"], f["lengths"]) for f in d["findings"]]')" \
    "[('link', 'slower', [0, 2], ['n01', 'n02'], [1024])]"
check_close "sweeps: ratio" "$(field "$TMP/sweep.json" 'd["findings"][0]["ratio"]')" 1.5 0.05
check_eq "sweeps: pairs matched by hosts, 28 tests" "$(field "$TMP/sweep.json" '(d["matched_by"], d["tests"])')" "('host', 28)"
"$M" compare --json "$TMP/sa_p2p.csv" "$TMP/sc_p2p.csv" >"$TMP/sweep0.json"
check_eq "sweeps: noise alone is the same" "$(field "$TMP/sweep0.json" '(d["verdict"], d["findings"])')" "('same', [])"
check_exit "a cube and a sweep" 2 "$M" compare "$TMP/base/network" "$TMP/sa_p2p.csv"
check_match "a cube and a sweep: message" "$(cat "$TMP/err")" "sa_p2p.csv is a p2p sweep and .*base/network is not"

# ---- usage and errors
check_exit "--figures without -o" 2 "$M" compare --figures "$TMP/f" "$TMP/base/network" "$TMP/link/network"
check_match "--figures without -o: message" "$(cat "$TMP/err")" "go with -o"
check_exit "one argument" 2 "$M" compare "$TMP/base/network"
check_exit "--alpha 0" 2 "$M" compare --alpha 0 "$TMP/base/network" "$TMP/link/network"
check_exit "--min-change x" 2 "$M" compare --min-change x "$TMP/base/network" "$TMP/link/network"
check_exit "--min-change 20% accepted" 0 "$M" compare --min-change 20% "$TMP/base/network" "$TMP/link/network"
"$M" synth -o "$TMP/p32/network" --procs 32 --nodes 4 >/dev/null 2>&1
check_exit "other process count" 1 "$M" compare "$TMP/base/network" "$TMP/p32/network"
check_match "other process count message" "$(cat "$TMP/err")" "base/network has 16 processes and .*p32/network 32"
check_exit "missing input" 1 "$M" compare "$TMP/base/network" "$TMP/nothing/network"
check_match "missing input message" "$(cat "$TMP/err")" "nothing/network"
"$M" synth -o "$TMP/short/network" --lengths 8192:9000:512 >/dev/null 2>&1
check_exit "no common length" 1 "$M" compare "$TMP/base/network" "$TMP/short/network"
check_match "no common length message" "$(cat "$TMP/err")" "no message length in common"
rm "$TMP/short/network_deviation.nc"
check_exit "no deviation" 1 "$M" compare "$TMP/short/network" "$TMP/base/network"
check_match "no deviation message" "$(cat "$TMP/err")" "needs the average and the deviation"
check "--help" "$M" compare --help

finish test_compare
