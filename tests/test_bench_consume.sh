# The analysis side of mpilens-bench's retests and bisection runs, on files the bench writes
# under real mpirun: `info` shows the schedule attributes and the retests (counts and verdicts
# recomputed by python from the CSV and ncdump), `anomalies` marks a retested bad link
# survived or vanished (a copy of the run whose retest_z is edited below 5 must say vanished),
# `info` on a bisection run and `accept`'s bisection.bandwidth.min/.avg equal the CSV's values
# computed by python; the run's provenance comments match the .nc's attributes (ncdump) and
# info shows them; damaged side files fail naming file:line:column.
. tests/lib.sh
PY=/usr/bin/python3
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench
M=$BIN/mpilens

# ---- a parallel cube with a slow link 3 -> 1 (the test hook; 1 s added after timing) ----
O=$TMP/p/net
MPILENS_BENCH_INJECT=3,1,1 $MPIRUN -np 4 "$B" --schedule parallel -n 5 -b 0 -e 2049 -s 1024 -f "$O" \
    </dev/null >/dev/null 2>"$TMP/bench.err"
check_eq "parallel bench with an injected link runs" "$?" "0"

# the expected retest summary, from the CSV alone: cells, flagged, flagged with retest_z >= 5
cat >"$TMP/retest.py" <<'PYEOF'
import sys, csv
rows = list(csv.DictReader(open(sys.argv[1] + "_retest.csv")))
fl = [r for r in rows if r["role"] == "flagged"]
sv = [r for r in fl if float(r["retest_z"]) >= 5]
print(len(rows), len(fl), len(sv))
PYEOF
read -r CELLS FLAGGED SURV <<<"$($PY "$TMP/retest.py" "$O")"
check "the injected link is flagged" test "$FLAGGED" -ge 1
"$M" info "$O" >"$TMP/info.txt" 2>"$TMP/err"
check_eq "info runs" "$?" "0"
check_eq "info: retest counts" "$(grep '^retests:' "$TMP/info.txt" | sed 's/ (.*)//')" \
    "retests:    $CELLS cells measured again alone, $FLAGGED flagged: $SURV survive$([ "$SURV" = 1 ] && echo s) retest, $((FLAGGED - SURV)) vanished"
check_eq "info: the injected link survives at every length" \
    "$(grep -c '3 -> 1 at .*survives retest (bad link)' "$TMP/info.txt")" "3"
ROUNDS=$(ncdump -h "${O}_median.nc" | sed -n 's/.*:rounds = "\(.*\)" ;/\1/p')
check_eq "info: schedule from the file's attributes" "$(grep '^schedule:' "$TMP/info.txt")" \
    "schedule:   parallel, $ROUNDS rounds"
check_eq "info: no shuffle line without a seed" "$(grep -c 'shuffle' "$TMP/info.txt")" "0"

cat >"$TMP/infojson.py" <<'PYEOF'
import sys, json, csv
j = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[1] + "_retest.csv")))
bad = []
rt = j["retest"]
if (j["schedule"], j["rounds"], j["shuffle_seed"]) != ("parallel", int(sys.argv[3]), "none"):
    bad.append("schedule keys %s %s %s" % (j["schedule"], j["rounds"], j["shuffle_seed"]))
if rt["cells"] != len(rows) or len(rt["rows"]) != len(rows):
    bad.append("cells %d, csv %d" % (rt["cells"], len(rows)))
for r, w in zip(rows, rt["rows"]):
    want = None if r["role"] == "control" else "survived" if float(r["retest_z"]) >= 5 else "vanished"
    if (w["length"], w["sender"], w["receiver"], w["role"], w["verdict"]) != \
       (int(r["length"]), int(r["sender"]), int(r["receiver"]), r["role"], want) or \
       abs(w["retest_z"] - float(r["retest_z"])) > 1e-12 or abs(w["first"] - float(r["first"])) > 1e-18:
        bad.append("row %s / %s" % (r, w))
fl = [r for r in rows if r["role"] == "flagged"]
if rt["flagged"] != len(fl) or rt["survived"] != sum(float(r["retest_z"]) >= 5 for r in fl):
    bad.append("flagged %d survived %d" % (rt["flagged"], rt["survived"]))
print("ok" if not bad else "; ".join(bad))
PYEOF
"$M" info --json "$O" >"$TMP/info.json" 2>/dev/null
check_eq "info --json: retest and schedule keys agree with the files" \
    "$($PY "$TMP/infojson.py" "$O" "$TMP/info.json" "$ROUNDS" 2>&1)" "ok"

# ---- anomalies: each finding's retest verdict, recomputed from the CSV ----
cat >"$TMP/anom.py" <<'PYEOF'
import sys, json, csv
j = json.load(open(sys.argv[2]))
rows = [r for r in csv.DictReader(open(sys.argv[1] + "_retest.csv")) if r["role"] != "control"]
bad, n = [], 0
for f in j["anomalies"]:
    want = None
    if f["kind"] in ("bad_link", "asymmetric_pair"):
        links = [tuple(f["ranks"])]
        if f["kind"] == "bad_link" and "<->" in f["subject"]:
            links.append((f["ranks"][1], f["ranks"][0]))
        hit = [r for r in rows if (int(r["sender"]), int(r["receiver"])) in links and int(r["length"]) in f["lengths"]]
        if hit:
            want = "survived" if any(float(r["retest_z"]) >= 5 for r in hit) else "vanished"
    if f.get("retest", "missing") != want:
        bad.append("%s: retest %s, want %s" % (f["subject"], f.get("retest", "missing"), want))
    n += want is not None
print(("ok %d" % n) if not bad else "; ".join(bad))
PYEOF
"$M" anomalies --json "$O" >"$TMP/an.json" 2>/dev/null
check_eq "anomalies --json: verdicts agree with the CSV" "$($PY "$TMP/anom.py" "$O" "$TMP/an.json" 2>&1 | cut -d' ' -f1)" "ok"
check_match "anomalies --json: link 3->1 survived" "$(cat "$TMP/an.json")" '"ranks":\[3,1\],[^}]*"retest":"survived"'
# the slow link is a bad link or, when its class is all slow-one-way, an asymmetric pair
check_match "anomalies text: link 3->1 survives retest" "$("$M" anomalies "$O" 2>/dev/null)" \
    "^1\. (link 3->1|pair 3<->1).*; survives retest alone \(bad link\)"

# the same cube with the link's retest edited below 5: contention, "vanished"
mkdir -p "$TMP/v"
for f in "$TMP"/p/net_*; do cp "$f" "$TMP/v/"; done
awk -F, -v OFS=, 'NR > 1 && $2 == 3 && $3 == 1 { $7 = "1.0000" } { print }' "$TMP/p/net_retest.csv" >"$TMP/v/net_retest.csv"
"$M" anomalies --json "$TMP/v/net" >"$TMP/anv.json" 2>/dev/null
check_eq "edited retest: verdicts agree with the CSV" "$($PY "$TMP/anom.py" "$TMP/v/net" "$TMP/anv.json" 2>&1 | cut -d' ' -f1)" "ok"
check_match "edited retest: link 3->1 vanished" "$(cat "$TMP/anv.json")" '"ranks":\[3,1\],[^}]*"retest":"vanished"'
check_match "edited retest: info says contention" "$("$M" info "$TMP/v/net" 2>/dev/null)" \
    "3 -> 1 at 0 B: z [0-9.]+, retest z 1.0: vanished on retest \(contention\)"

# a damaged retest file fails both commands, naming file:line:column, nothing on stdout
sed '3s/,worst$/,wrost/; 3s/,flagged$/,flaged/; 3s/,control$/,ctrl/' "$TMP/p/net_retest.csv" >"$TMP/v/net_retest.csv"
check_exit "damaged retest: info exits 1" 1 "$M" info "$TMP/v/net"
check_match "damaged retest: info names file:line:column" "$(cat "$TMP/err")" "v/net_retest.csv:3:[0-9]+: column 'role'"
check_eq "damaged retest: nothing on stdout" "$(cat "$TMP/out")" ""
check_exit "damaged retest: anomalies exits 1" 1 "$M" anomalies "$TMP/v/net"

# ---- a serial cube has no retests: output as before (no new keys) ----
O2=$TMP/s/net
$MPIRUN -np 3 "$B" -n 3 -b 0 -e 1025 -s 1024 -f "$O2" </dev/null >/dev/null 2>&1
"$M" info --json "$O2" >"$TMP/s.json" 2>/dev/null
check_eq "serial cube: no retest or schedule keys... but the schedule attribute" \
    "$($PY -c 'import json,sys; j=json.load(open(sys.argv[1])); print("retest" in j, j.get("schedule"), "rounds" in j)' "$TMP/s.json")" \
    "False serial False"
check_eq "serial cube: info says serial, no retests" "$("$M" info "$O2" 2>/dev/null | grep -E '^(schedule|retests):')" \
    "schedule:   serial"
check_eq "serial cube: anomalies JSON has no retest key" "$("$M" anomalies --json "$O2" 2>/dev/null | grep -c '"retest"')" "0"

# a shuffled parallel run without retests: the seed shows, and no retest line
O3=$TMP/sh/net
$MPIRUN -np 4 "$B" --schedule parallel --shuffle 42 --retest 0 -n 3 -b 0 -e 1025 -s 1024 -f "$O3" </dev/null >/dev/null 2>&1
R3=$(ncdump -h "${O3}_median.nc" | sed -n 's/.*:rounds = "\(.*\)" ;/\1/p')
check_eq "shuffled: the schedule line" "$("$M" info "$O3" 2>/dev/null | grep -E '^(schedule|retests):')" \
    "schedule:   parallel, $R3 rounds, shuffle seed 42"
check_eq "shuffled: JSON shuffle_seed" "$("$M" info --json "$O3" 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["shuffle_seed"])')" "42"

# ---- bisection: info and accept against the CSV ----
OB=$TMP/b/bis
$MPIRUN -np 4 "$B" -t bisection -r 3 -s 64KiB -f "$OB" </dev/null >/dev/null 2>&1
check_eq "bisection bench runs" "$?" "0"
cat >"$TMP/bis.py" <<'PYEOF'
import sys, csv, json, statistics
rows = list(csv.DictReader(l for l in open(sys.argv[1] + "_bisection.csv") if not l.startswith("#")))
bw = [float(r["bandwidth_Bps"]) for r in rows]
sp = [float(r["slowest_pair_Bps"]) for r in rows]
w = sp.index(min(sp))
mean = 0.0
for v in bw:  # summed in file order, as the reader does
    mean += v
mean /= len(bw)
if sys.argv[2] == "criteria":
    print("bisection.bandwidth.min >= %rB/s\nbisection.bandwidth.avg >= %rB/s" % (min(bw), mean))
    print("bisection.bandwidth.avg > %rB/s label=\"fails\"" % mean)
    sys.exit(0)
j = json.load(open(sys.argv[2]))
bad = []
b = j["bandwidth_Bps"]
for k, want in (("median", statistics.median(bw)), ("min", min(bw)), ("avg", mean)):
    if abs(b[k] - want) > 1e-12 * want:
        bad.append("%s %r, python %r" % (k, b[k], want))
s = j["slowest_pair"]
if (j["rounds"], b["min_round"], s["round"], s["sender"], s["receiver"]) != \
   (len(rows), bw.index(min(bw)), w, int(rows[w]["slowest_sender"]), int(rows[w]["slowest_receiver"])) or s["Bps"] != sp[w]:
    bad.append("rounds/slowest %s" % j)
print("ok" if not bad else "; ".join(bad))
PYEOF
"$M" info --json "$OB" >"$TMP/bis.json" 2>"$TMP/err"
check_eq "info --json on the prefix: median/min/avg and the slowest pair agree with python" \
    "$($PY "$TMP/bis.py" "$OB" "$TMP/bis.json" 2>&1)" "ok"
check_eq "info on the CSV name = info on the prefix" "$("$M" info --json "${OB}_bisection.csv" 2>&1)" "$(cat "$TMP/bis.json")"
check_match "info text: rounds" "$("$M" info "$OB" 2>&1)" "rounds:     3"
$PY "$TMP/bis.py" "$OB" criteria >"$TMP/bis.criteria"
"$M" accept "${OB}_bisection.csv" --criteria "$TMP/bis.criteria" --json >"$TMP/acc.json" 2>"$TMP/err"
check_eq "accept: the failing criterion (avg > avg) makes exit 3" "$?" "3"
check_eq "accept: min and avg pass at margin 0, avg > avg fails" \
    "$($PY -c 'import json,sys; print([(c["pass"], c["margin"]) for c in json.load(open(sys.argv[1]))["criteria"]])' "$TMP/acc.json")" \
    "[(True, 0), (True, 0), (False, 0)]"
check_exit "accept with the prefix as input" 3 "$M" accept "$OB" --criteria "$TMP/bis.criteria"
printf 'bisection.bandwidth.min >= 1B/s\n' >"$TMP/one.criteria"
check_exit "accept: a bisection metric without a bisection input fails" 1 "$M" accept "$O" --criteria "$TMP/one.criteria"
check_match "... saying so" "$(cat "$TMP/err")" "one.criteria:1:1: bisection.bandwidth.min: no bisection run"

# ---- the bisection run's provenance: "# key: value" lines ahead of the header ----
# the same names and values as the .nc's attributes, which ncdump reads independently
for k in measured_at mpi_library_version launcher binding cores_per_host; do
    check_eq "bisection CSV records $k as the .nc does" "$(sed -n "s/^# $k: //p" "${OB}_bisection.csv")" \
        "$(ncdump -h "${OB}_bisection.nc" | sed -n "s/^\t\t:$k = \"\(.*\)\" ;\$/\1/p")"
done
check_match "measured_at is an ISO 8601 UTC time" "$(sed -n 's/^# measured_at: //p' "${OB}_bisection.csv")" \
    '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
check_eq "cores_per_host is this machine's" "$(sed -n 's/^# cores_per_host: //p' "${OB}_bisection.csv")" "$(getconf _NPROCESSORS_ONLN)"
check_match "launcher: Open MPI's mpirun" "$(sed -n 's/^# launcher: //p' "${OB}_bisection.csv")" "^Open MPI mpirun"
check_eq "comments first, then the header" "$(grep -vn '^#' "${OB}_bisection.csv" | head -1)" \
    "6:round,pairs,bytes,seconds,bandwidth_Bps,slowest_pair_Bps,slowest_sender,slowest_receiver"
# info shows them (text and JSON), from the comments
check_eq "info --json: the provenance object = the comments" \
    "$($PY -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["provenance"], sort_keys=True))' "$TMP/bis.json")" \
    "$($PY -c 'import json,sys; print(json.dumps(dict(l[2:].rstrip("\n").split(": ", 1) for l in open(sys.argv[1]) if l.startswith("# ")), sort_keys=True))' "${OB}_bisection.csv")"
check_match "info text: measured line" "$("$M" info "$OB" 2>&1)" "measured: +$(sed -n 's/^# measured_at: //p' "${OB}_bisection.csv")"
# an older run (no comments) reads as before, with no provenance key and the same numbers
mkdir -p "$TMP/old"
grep -v '^#' "${OB}_bisection.csv" >"$TMP/old/run_bisection.csv"
"$M" info --json "$TMP/old/run" >"$TMP/old.json" 2>"$TMP/err"
check_eq "older run without comments: info runs" "$?" "0"
check_eq "older run: no provenance key, same numbers" \
    "$($PY -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); print("provenance" in a, a["bandwidth_Bps"] == b["bandwidth_Bps"])' "$TMP/old.json" "$TMP/bis.json")" \
    "False True"
# a key twice (two runs pasted together) is refused at its line; unknown comments are skipped
{ sed -n '1p' "${OB}_bisection.csv"; cat "${OB}_bisection.csv"; } >"$TMP/old/twice_bisection.csv"
check_exit "measured_at twice: info exits 1" 1 "$M" info "$TMP/old/twice_bisection.csv"
check_match "... naming file:line" "$(cat "$TMP/err")" "old/twice_bisection.csv:2:1: 'measured_at' given twice"
{ echo "# a note someone added"; cat "${OB}_bisection.csv"; } >"$TMP/old/note_bisection.csv"
check_eq "an unknown comment is skipped" "$("$M" info --json "$TMP/old/note_bisection.csv" 2>&1 | sed 's/"source":"[^"]*"//')" \
    "$(sed 's/"source":"[^"]*"//' "$TMP/bis.json")"

# a damaged bisection CSV: exit 1 naming file:line:column, for info and accept (the first
# round's line follows the five provenance comments and the header)
L0=$(grep -n '^0,' "${OB}_bisection.csv" | cut -d: -f1)
check_eq "the first round is on line 7" "$L0" 7
sed "${L0}s/^0,/0x,/" "${OB}_bisection.csv" >"$TMP/b/bad_bisection.csv"
check_exit "damaged bisection: info exits 1" 1 "$M" info "$TMP/b/bad_bisection.csv"
check_match "damaged bisection: file:line:column" "$(cat "$TMP/err")" "b/bad_bisection.csv:$L0:1: column 'round': '0x' is not an integer"
check_exit "damaged bisection: accept exits 1" 1 "$M" accept "$TMP/b/bad" --criteria "$TMP/one.criteria"
finish test_bench_consume
