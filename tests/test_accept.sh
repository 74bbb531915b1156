# mpilens accept from the command line: exit status 0 / 3 / 1 / 2, the JSON layout key by key
# (python3 json), the measured values against an independent reference (ncdump text of the
# cube and its hosts file; the hand-written sweep CSV), scopes from a rewritten hosts file,
# the demo contract failing exactly on synth32's slow node03 and bad link 3 -> 17, and errors
# naming file:line:column.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
S32=samples/cubes/synth32/network

# ---- usage and help ----
check_exit "--help" 0 "$M" accept --help
check_match "--help has an example" "$(cat "$TMP/out")" "mpilens accept samples/cubes/synth32/network --criteria"
check_exit "no --criteria" 2 "$M" accept "$S32"
check_match "no --criteria: says so" "$(cat "$TMP/err")" "missing --criteria FILE"
check_exit "no INPUT" 2 "$M" accept --criteria samples/criteria/demo.criteria
check_exit "unknown option" 2 "$M" accept "$S32" --criteria samples/criteria/demo.criteria --colour

# ---- the demo contract: fails on node03 and 3 -> 17, nowhere else ----
check_exit "demo contract fails: exit 3" 3 "$M" accept "$S32" --criteria samples/criteria/demo.criteria
check_match "text: the final verdict" "$(tail -1 "$TMP/out")" "^accept: FAIL, 5 of 9 criteria failed"
check_match "text: max names the bad link" "$(grep ' cube.delay.max ' "$TMP/out")" "^FAIL .* 3 -> 17 at 4096 B"
check_exit "demo contract, --json" 3 "$M" accept "$S32" --criteria samples/criteria/demo.criteria --json
cp "$TMP/out" "$TMP/demo.json"
got=$($PY - "$TMP/demo.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if list(d)[:2] != ["verdict", "criteria"]:
    bad.append("top keys %s" % list(d))
if d["verdict"] != "fail":
    bad.append("verdict %r" % d["verdict"])
KEYS = ["line", "metric", "op", "limit", "measured", "unit", "pass", "where", "label"]
TYPES = [int, str, str, (int, float), (int, float), str, bool, str, str]
for c in d["criteria"]:
    if list(c)[:len(KEYS)] != KEYS:
        bad.append("keys of line %s: %s" % (c.get("line"), list(c)))
    for k, t in zip(KEYS, TYPES):
        if not isinstance(c.get(k), t) or (t is int and isinstance(c.get(k), bool)):
            bad.append("line %s: %s is %r" % (c.get("line"), k, c.get(k)))
fails = sorted((c["line"], c["metric"]) for c in d["criteria"] if not c["pass"])
want = [(17, "cube.delay.max"), (20, "cube.spread"), (23, "cube.asymmetry.max"),
        (26, "anomalies.slow_node"), (27, "anomalies.bad_link")]
if fails != want:
    bad.append("failed %s want %s" % (fails, want))
by = {c["line"]: c for c in d["criteria"]}
if by[17]["where"] != "3 -> 17 at 4096 B" or by[17]["unit"] != "s" or by[17]["limit"] != 5e-06:
    bad.append("line 17: %r" % by[17])
if "node03" not in by[26]["where"] or by[26]["measured"] != 1 or by[26]["unit"] != "count":
    bad.append("line 26: %r" % by[26])
if by[27]["where"] != "link 3->17" or by[27]["label"] != "no bad link":
    bad.append("line 27: %r" % by[27])
if by[23]["limit"] != 0.25 or by[23]["unit"] != "ratio" or "3 <-> 17" not in by[23]["where"]:
    bad.append("line 23: %r" % by[23])
# pass agrees with op, limit and measured; the margin's sign with pass
ops = {"<=": lambda m, l: m <= l, "<": lambda m, l: m < l, ">=": lambda m, l: m >= l,
       ">": lambda m, l: m > l, "==": lambda m, l: m == l}
for c in d["criteria"]:
    if ops[c["op"]](c["measured"], c["limit"]) != c["pass"]:
        bad.append("line %d: pass %r for %r %s %r" % (c["line"], c["pass"], c["measured"], c["op"], c["limit"]))
print("; ".join(bad) if bad else "ok")
EOF
)
check_eq "demo JSON, key by key" "$got" "ok"
"$M" accept "$S32" --criteria samples/criteria/demo.criteria --json >"$TMP/demo2.json" 2>/dev/null
check "JSON is deterministic" cmp -s "$TMP/demo.json" "$TMP/demo2.json"

# ---- measured values against ncdump of the cube and the hosts file ----
# A cube with every rank on its own socket pair: 16 ranks, 4 nodes; then the same cube with
# a rewritten hosts file (ranks 0-7 on "left", 8-15 on "right"): the scopes follow the file.
check "synth" "$M" synth -o "$TMP/c/network" --procs 16 --nodes 4 --sockets 2 --bad-link 2,9
mkdir -p "$TMP/h"
cp "$TMP"/c/network_*.nc "$TMP/h/"
for r in $(seq 0 15); do [ "$r" -lt 8 ] && echo left || echo right; done >"$TMP/h/network_hosts.txt"
cat >"$TMP/ref.criteria" <<'EOF'
cube.delay.max <= 1
cube.delay.max <= 1 length=512 scope=intra
cube.delay.max <= 1 length=512 scope=inter
cube.delay.median <= 1 length=1024 scope=inter
cube.delay.p95 <= 1 length=4096 scope=intra
cube.delay.p99 <= 1 length=0
cube.delay.min >= 0 scope=inter
cube.spread <= 100 length=2048 scope=inter
cube.asymmetry.max <= 1 length=0
EOF
for D in c h; do
    check_exit "$D: reference contract passes: exit 0" 0 "$M" accept "$TMP/$D/network" --criteria "$TMP/ref.criteria" --json
    cp "$TMP/out" "$TMP/$D.json"
    got=$($PY - "$TMP/$D/network" "$TMP/$D.json" <<'EOF'
import json, math, re, subprocess, sys
prefix, path = sys.argv[1], sys.argv[2]
text = subprocess.run(["ncdump", "-p", "17,17", prefix + "_median.nc"], check=True, capture_output=True,
                      text=True).stdout
P = int(re.search(r"\tx = (\d+) ;", text).group(1))
body = re.search(r" data =(.*?);", text.partition("data:")[2], re.S).group(1)
v = [float(x) for x in body.replace("\n", " ").split(",")]
L = len(v) // (P * P)
lengths = [512 * k for k in range(L)]
hosts = open(prefix + "_hosts.txt").read().split()
def vals(k, scope):
    out = []
    for i in range(P):
        for j in range(P):
            if i == j: continue
            same = hosts[i] == hosts[j]
            if scope == "intra" and not same or scope == "inter" and same: continue
            out.append((v[(k * P + i) * P + j], j, i))  # one_to_one: element (i, j) is j -> i
    return out
def nearest_rank(xs, p):  # the p-th percentile is x_(ceil(p n / 100)), docs/accept.md
    xs = sorted(xs)
    return xs[max(1, -(-p * len(xs) // 100)) - 1]
def median(xs):
    xs = sorted(xs); n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2
want = []
best = max((max(vals(k, "all"))[0], k) for k in range(L))
want.append((best[0], None))
for scope in ("intra", "inter"):
    m = max(vals(1, scope))
    want.append((m[0], "%d -> %d at 512 B" % (m[1], m[2])))
want.append((median([x[0] for x in vals(2, "inter")]), "inter-node pairs at 1024 B"))
want.append((nearest_rank([x[0] for x in vals(8, "intra")], 95), "intra-node pairs at 4096 B"))
want.append((nearest_rank([x[0] for x in vals(0, "all")], 99), "all pairs at 0 B"))
want.append((min(min(vals(k, "inter"))[0] for k in range(L)), None))
xs = [x[0] for x in vals(4, "inter")]
want.append((max(xs) / median(xs), None))
asym = 0
for i in range(P):
    for j in range(i + 1, P):
        a, b = v[i * P + j], v[j * P + i]
        asym = max(asym, abs(a - b) / (a + b))
want.append((asym, None))
d = json.load(open(path))
bad = []
for c, (w, where) in zip(d["criteria"], want):
    # exact for the elements and percentiles, rounding only where mpilens divides or averages
    tol = 0 if c["metric"] in ("cube.delay.max", "cube.delay.min", "cube.delay.p95", "cube.delay.p99") else 1e-12
    if abs(c["measured"] - w) > tol * abs(w):
        bad.append("line %d: %r want %r" % (c["line"], c["measured"], w))
    if where and c["where"] != where:
        bad.append("line %d: where %r want %r" % (c["line"], c["where"], where))
print("; ".join(bad) if bad else "ok %d" % len(d["criteria"]))
EOF
)
    check_eq "$D: measured values against ncdump and the hosts file" "$got" "ok 9"
done
check_match "the scopes follow the hosts file" \
    "$($PY -c "import json,sys; a,b=(json.load(open(p))['criteria'][1]['measured'] for p in sys.argv[1:]); print(a!=b)" "$TMP/c.json" "$TMP/h.json")" "True"
# one host for every rank: no inter-node pair, an error (not a pass)
for r in $(seq 0 15); do echo solo; done >"$TMP/h/network_hosts.txt"
check_exit "no inter-node pair: exit 1" 1 "$M" accept "$TMP/h/network" --criteria "$TMP/ref.criteria"
check_match "no inter-node pair: says so" "$(cat "$TMP/err")" "ref.criteria:3:32: cube.delay.max: .* has no inter-node pairs"
rm "$TMP/h/network_hosts.txt"
check_exit "no hosts file, scope=intra: exit 1" 1 "$M" accept "$TMP/h/network" --criteria "$TMP/ref.criteria"
check_match "no hosts file: says so" "$(cat "$TMP/err")" "ref.criteria:2:32: cube.delay.max: scope=intra needs host names"

# ---- exact limits: the maximum as the limit passes <= and fails < ----
max=$($PY -c "import json,sys; print(repr(json.load(open(sys.argv[1]))['criteria'][0]['measured']))" "$TMP/c.json")
printf 'cube.delay.max <= %s\n' "$max" >"$TMP/le.criteria"
printf 'cube.delay.max < %s\n' "$max" >"$TMP/lt.criteria"
check_exit "max <= max: exit 0" 0 "$M" accept "$TMP/c/network" --criteria "$TMP/le.criteria"
check_exit "max < max: exit 3" 3 "$M" accept "$TMP/c/network" --criteria "$TMP/lt.criteria"
below=$($PY -c "import math,sys; print(repr(math.nextafter(float(sys.argv[1]), 0)))" "$max")
printf 'cube.delay.max <= %s\n' "$below" >"$TMP/ulp.criteria"
check_exit "max <= one ulp below max: exit 3" 3 "$M" accept "$TMP/c/network" --criteria "$TMP/ulp.criteria"

# ---- a p2p sweep, hand-written: the median columns are what is judged ----
cat >"$TMP/s_p2p.csv" <<'EOF'
size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s,pair,kind,rank_a,rank_b,host_a,host_b
0,9e-07,5e-07,4e-07,2e-06,0,0,0,0,3e6,2e6,4e6,5e6,0,intra,0,1,n1,n1
8,9e-07,5e-07,4.5e-07,2e-06,1e7,1e7,1.6e7,2e7,3e6,2e6,4e6,5e6,0,intra,0,1,n1,n1
4194304,1e-3,1e-3,1e-3,1e-3,9e9,8e9,9.5e9,1e10,1e3,1e3,1e3,1e3,0,intra,0,1,n1,n1
0,2e-06,1.2e-06,1.3e-06,3e-06,0,0,0,0,1e6,1e6,2e6,3e6,1,inter,0,8,n1,n2
8,2e-06,1.2e-06,1.4e-06,3e-06,5e6,5e6,6e6,7e6,1e6,1e6,2.5e6,3e6,1,inter,0,8,n1,n2
4194304,1e-3,1e-3,1e-3,1e-3,1.2e10,1.1e10,1.15e10,1.2e10,1e3,1e3,1e3,1e3,1,inter,0,8,n1,n2
EOF
cat >"$TMP/p2p.criteria" <<'EOF'
p2p.latency <= 1.3us size=0 scope=inter
p2p.latency <= 1.3us size=0
p2p.bandwidth >= 11GB/s size=4MiB scope=inter label="stream"
p2p.msgrate >= 2.5e6/s size=8 scope=inter
p2p.msgrate > 2.5e6 /s size=8
EOF
# the last criterion fails (2.5e6 is not > 2.5e6): exit 3
check_exit "p2p contract: exit 3" 3 "$M" accept "$TMP/s" --criteria "$TMP/p2p.criteria" --json
got=$($PY - "$TMP/out" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = [(1.3e-06, "s", "inter n1-n2, ranks 0-8 at 0 B"), (1.3e-06, "s", "inter n1-n2, ranks 0-8 at 0 B"),
        (1.15e10, "B/s", "inter n1-n2, ranks 0-8 at 4194304 B"), (2.5e6, "1/s", "inter n1-n2, ranks 0-8 at 8 B"),
        (2.5e6, "1/s", "inter n1-n2, ranks 0-8 at 8 B")]
got = [(c["measured"], c["unit"], c["where"]) for c in d["criteria"]]
passes = [c["pass"] for c in d["criteria"]]
print("ok" if got == want and passes == [True, True, True, True, False] else "%s %s" % (got, passes))
EOF
)
check_eq "p2p: medians, worst pair, where" "$got" "ok"
head -4 "$TMP/p2p.criteria" >"$TMP/p2pok.criteria"
check_exit "p2p contract without the strict >: exit 0" 0 "$M" accept "$TMP/s" --criteria "$TMP/p2pok.criteria"
check_match "text: PASS verdict" "$(tail -1 "$TMP/out")" "^accept: PASS, 0 of 4 criteria failed"
printf 'p2p.latency <= 1us size=16\n' >"$TMP/p2psize.criteria"
check_exit "p2p at an unmeasured size: exit 1" 1 "$M" accept "$TMP/s_p2p.csv" --criteria "$TMP/p2psize.criteria"
check_match "unmeasured size: says so" "$(cat "$TMP/err")" "p2psize.criteria:1:20: p2p.latency: .*s_p2p.csv: pair 'intra n1, ranks 0-1' was not measured at 16 B"

# ---- the realistic contract on a cube and a sweep together ----
check_exit "acceptance.criteria on synth32 + a sweep: exit 3" 3 "$M" accept "$S32" "$TMP/s" \
    --criteria samples/criteria/acceptance.criteria
check_match "two inputs: where names the input" "$(grep ' cube.spread ' "$TMP/out")" "FAIL .*$S32: 3 -> 17"

# ---- errors: exit 1, naming file:line:column ----
check_exit "missing criteria file" 1 "$M" accept "$S32" --criteria "$TMP/none.criteria"
check_match "missing criteria file: named" "$(cat "$TMP/err")" "none.criteria"
printf '# x\ncube.delay.max <= 3us\np2p.latency <= 3 GB/s size=8\n' >"$TMP/bad.criteria"
check_exit "unit of the wrong kind: exit 1" 1 "$M" accept "$S32" --criteria "$TMP/bad.criteria"
check_eq "unit of the wrong kind: message" "$(cat "$TMP/err")" \
    "mpilens: $TMP/bad.criteria:3:18: unit 'GB/s' is a bandwidth (B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s), but p2p.latency is a time (s, ms, us, µs, ns)"
check_eq "nothing on stdout on error" "$(cat "$TMP/out")" ""
printf 'p2p.latency <= 3us size=8\n' >"$TMP/nodata.criteria"
check_exit "a metric without data: exit 1" 1 "$M" accept "$S32" --criteria "$TMP/nodata.criteria"
check_match "a metric without data: says so" "$(cat "$TMP/err")" "nodata.criteria:1:1: p2p.latency: no p2p sweep among the inputs"
printf 'compare.regressions == 0\n' >"$TMP/res.criteria"
check_exit "compare.regressions without --baseline: exit 1" 1 "$M" accept "$S32" --criteria "$TMP/res.criteria"
check_match "compare.regressions without --baseline: says so" "$(cat "$TMP/err")" \
    "res.criteria:1:1: compare.regressions: no cube compared with a baseline \\(give --baseline BASE\\)"
check_exit "missing cube: exit 1" 1 "$M" accept "$TMP/nothing/network" --criteria samples/criteria/demo.criteria
printf 'cube.delay.max <= 3us length=5000\n' >"$TMP/len.criteria"
check_exit "a length the cube lacks: exit 1" 1 "$M" accept "$S32" --criteria "$TMP/len.criteria"
check_match "a length the cube lacks: points at length=" "$(cat "$TMP/err")" "len.criteria:1:23: cube.delay.max: .* has no length 5000 B"

finish test_accept
