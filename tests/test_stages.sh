#!/usr/bin/env bash
# mpilens stages against the simulated runtime of samples/stages/make_stagelog.py: totals,
# waits, migration histogram, stage means and occupancy equal what the generator put in;
# malformed logs fail with file:line and exit 1.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
LOG=samples/stages/luna_sim.jsonl
TRUTH=samples/stages/luna_sim.truth.json

# the generator's truth times every stay, as one clock would: --clocks synced
"$M" stages "$LOG" --json --points 50 --clocks synced --tasks-csv "$TMP/tasks.csv" >"$TMP/s.json" 2>"$TMP/err"
check_eq "stages exit" "$?" 0
got=$($PY - "$TMP/s.json" "$TRUTH" "$TMP/tasks.csv" <<'PY' 2>&1
import json, sys, csv
d, t = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
bad = []
for k in ("tasks", "waited", "migrations"):
    if d[k] != t[k]: bad.append("%s %s != %s" % (k, d[k], t[k]))
names = [s["name"] for s in d["stages"]]
if names != t["stages"]: bad.append("stages %s" % names)
for s in d["stages"]:
    w = t["mean_seconds"][s["name"]]
    if abs(s["mean_seconds"] - w) > 1e-9 * max(1, w): bad.append("mean %s %r != %r" % (s["name"], s["mean_seconds"], w))
if d["occupancy"]["counts"] != t["occupancy"]: bad.append("occupancy differs")
if sum(map(sum, t["occupancy"])) < 50: bad.append("occupancy truth too sparse to test")
rows = list(csv.DictReader(open(sys.argv[3])))
if len(rows) != t["tasks"]: bad.append("csv rows %d" % len(rows))
arr = [float(r["arrival"]) for r in rows]
if arr != sorted(arr): bad.append("csv not ordered by arrival")
if sum(int(r["waited"]) for r in rows) != t["waited"]: bad.append("csv waited")
if sum(float(r["wait"]) > 0 for r in rows) != t["waited"]: bad.append("csv wait seconds")
print(" ; ".join(bad) or "ok")
PY
)
check_eq "stage log against the generator" "$got" "ok"

out=$("$M" stages "$LOG")
check_match "text migrations" "$out" "migrations \[A0, A1, \.\.\.\]: \[136, 86, 36, 42\]"
check_match "text waited" "$out" "waited for inputs: 114 of 300 tasks"

# The clock caveat (default --clocks per-node): a stay that begins on one node and ends on
# another is counted, not timed. The reference recomputes it from the log here: per task, in
# time order, a stay is timed only when both records name the same node.
"$M" stages "$LOG" --json --points 50 --tasks-csv "$TMP/pn.csv" >"$TMP/pn.json" 2>"$TMP/err"
check_eq "per-node exit" "$?" 0
got=$($PY - "$LOG" "$TMP/pn.json" "$TMP/pn.csv" <<'PY' 2>&1
import json, sys, csv, collections
recs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line); recs[r["task"]].append((r["t"], r["stage"], r["node"]))
d = json.load(open(sys.argv[2]))
per, cross, stays = collections.defaultdict(dict), collections.Counter(), []
for task, rs in recs.items():
    rs.sort()
    for (a, s, n), (b, _, m) in zip(rs, rs[1:]):
        if n != m: cross[s] += 1; continue
        per[s][task] = per[s].get(task, 0) + b - a
        stays.append((s, a, b))
bad = []
if d["clocks"] != "per-node": bad.append("clocks %s" % d["clocks"])
if d["cross_node_stays"] != sum(cross.values()) or d["cross_node_stays"] != 284: bad.append("cross %d" % d["cross_node_stays"])
for st in d["stages"]:
    v = [x for x in per[st["name"]].values() if x > 0]
    mean = sum(v) / len(v) if v else 0
    if st["tasks"] != len(v) or abs(st["mean_seconds"] - mean) > 1e-9: bad.append("stage %s %d %r != %d %r" % (st["name"], st["tasks"], st["mean_seconds"], len(v), mean))
    if st["cross_node_stays"] != cross[st["name"]]: bad.append("cross %s" % st["name"])
t0, t1 = d["t0"], d["t1"]; dt = (t1 - t0) / 50
names = [s["name"] for s in d["stages"]]
occ = [[sum(1 for s, a, b in stays if s == n and a <= t0 + (i + .5) * dt < b) for n in names] for i in range(50)]
if occ != d["occupancy"]["counts"]: bad.append("occupancy differs")
rows = list(csv.DictReader(open(sys.argv[3])))
if abs(sum(float(r["distribute"]) for r in rows) - sum(per["distribute"].values())) > 1e-6: bad.append("csv distribute")
print(" ; ".join(bad) or "ok")
PY
)
check_eq "per-node clocks: cross-node stays counted, not timed" "$got" "ok"
synced_d=$($PY -c 'import json,sys; print([s["mean_seconds"] for s in json.load(open(sys.argv[1]))["stages"]][0])' "$TMP/s.json")
pernode_d=$($PY -c 'import json,sys; print([s["mean_seconds"] for s in json.load(open(sys.argv[1]))["stages"]][0])' "$TMP/pn.json")
check "the caveat changes the distribute mean" test "$synced_d" != "$pernode_d"
out=$("$M" stages "$LOG")
check_match "text states the clock caveat" "$out" "clocks: 284 stays began and ended on different nodes \(284 in distribute\);"
check_match "text says what was done" "$out" "count only stays on one node"
check_match "synced text says what it trusts" "$("$M" stages "$LOG" --clocks synced)" "trusts that the nodes' clocks agree"
check_exit "bad --clocks" 2 "$M" stages "$LOG" --clocks utc
check_match "bad --clocks names the choices" "$(cat "$TMP/err")" "per-node or synced"
# a log where no task moves during a stay says nothing about clocks
printf '%s\n' '{"task": 1, "stage": "a", "t": 1, "node": 0}' '{"task": 1, "stage": "b", "t": 2, "node": 0}' >"$TMP/still.jsonl"
check_eq "no caveat without moves" "$("$M" stages "$TMP/still.jsonl" 2>/dev/null | grep -c clocks)" 0

# Two logs side by side (--baseline): a later revision of the simulated runtime against the
# first, each checked against its own generator's truth (synced clocks time every stay as the
# generator does), and the per-node default's cross-node stays = sum k A_k of each log.
V2=samples/stages/luna_sim_v2.jsonl
TRUTH2=samples/stages/luna_sim_v2.truth.json
"$M" stages "$V2" --baseline "$LOG" --clocks synced --json --points 50 >"$TMP/cmp.json" 2>"$TMP/err"
check_eq "compare exit" "$?" 0
got=$($PY - "$TMP/cmp.json" "$TRUTH" "$TRUTH2" <<'PY' 2>&1
import json, sys
d, t = json.load(open(sys.argv[1])), [json.load(open(f)) for f in sys.argv[2:]]
bad = []
if d["tasks"] != [t[0]["tasks"], t[1]["tasks"]]: bad.append("tasks")
if d["waited"] != [t[0]["waited"], t[1]["waited"]]: bad.append("waited")
if [s["name"] for s in d["stages"]] != t[1]["stages"]: bad.append("stage order")
for s in d["stages"]:
    for k in (0, 1):
        w = t[k]["mean_seconds"][s["name"]]
        if abs(s["mean_seconds"][k] - w) > 1e-9: bad.append("mean %s[%d]" % (s["name"], k))
    b, n = s["mean_seconds"]
    if (s["mean_ratio"] is None) != (b == 0) or (b and abs(s["mean_ratio"] - n / b) > 1e-12): bad.append("ratio %s" % s["name"])
for k in (0, 1):
    if d["occupancy"]["counts"][k] != t[k]["occupancy"]: bad.append("occupancy %d" % k)
    if abs(d["occupancy"]["t"][k][0] - 0.5 * d["duration_seconds"][k] / 50) > 1e-9: bad.append("times from start %d" % k)
if not t[1]["mean_seconds"]["wait"] < 0.6 * t[0]["mean_seconds"]["wait"]: bad.append("v2 should wait less")
print(" ; ".join(bad) or "ok")
PY
)
check_eq "compare: both logs against their generators" "$got" "ok"
got=$("$M" stages "$V2" --baseline "$LOG" --json | $PY -c '
import json, sys; d = json.load(sys.stdin)
t = [json.load(open(f)) for f in sys.argv[1:]]
print(d["clocks"], d["cross_node_stays"] == [sum(k * a for k, a in enumerate(x["migrations"])) for x in t])' "$TRUTH" "$TRUTH2")
check_eq "compare: per-node clocks, cross-node stays of each log" "$got" "per-node True"
out=$("$M" stages "$V2" --baseline "$LOG")
check_match "compare text names both logs" "$out" "baseline: $LOG"
check_match "compare text: wait row with its ratio" "$out" "wait +114 -> +124 .* 0.411x"
check "compare plots" "$M" stages "$V2" --baseline "$LOG" --plots "$TMP/cfig"
check "compare plots again" "$M" stages "$V2" --baseline "$LOG" --plots "$TMP/cfig2"
check "compare figure byte-identical" cmp -s "$TMP/cfig/stage_compare.png" "$TMP/cfig2/stage_compare.png"
"$M" stages "$V2" --baseline "$V2" --plots "$TMP/cfig3" >/dev/null
check "the figure depends on the baseline" sh -c "! cmp -s '$TMP/cfig/stage_compare.png' '$TMP/cfig3/stage_compare.png'"
"$M" stages "$V2" --plots "$TMP/nocmp" >/dev/null
check_eq "no compare figure without --baseline" "$(ls "$TMP/nocmp" | tr '\n' ' ')" "stage_occupancy.png stage_times.png "
check_exit "missing baseline" 1 "$M" stages "$V2" --baseline "$TMP/nope.jsonl"
check_match "missing baseline named" "$(cat "$TMP/err")" "nope.jsonl: cannot open"
printf '%s\n' '{"task": 1, "stage": "wait", "t": 1, "node": 0}' '{"task": 1, "stage": "run"}' >"$TMP/badbase.jsonl"
check_exit "bad baseline line" 1 "$M" stages "$V2" --baseline "$TMP/badbase.jsonl"
check_match "bad baseline names its file:line" "$(cat "$TMP/err")" "badbase.jsonl:2: missing key"

# another name for the waiting stage: none waits; a warning says so
"$M" stages "$LOG" --json --wait-stage blocked >"$TMP/w.json" 2>"$TMP/err"
check_eq "other wait stage" "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["waited"])' "$TMP/w.json")" 0
check_match "warning for unknown wait stage" "$(cat "$TMP/err")" "no stage named 'blocked'"

# string task ids, unknown keys, records out of order within a task
printf '%s\n' '{"task": "f-a", "stage": "wait", "t": 2.5, "node": 1, "extra": [1]}' >"$TMP/nested.jsonl"
check_exit "nested value refused" 1 "$M" stages "$TMP/nested.jsonl"
check_match "nested names file:line" "$(cat "$TMP/err")" "nested.jsonl:1: unsupported value for \"extra\""
printf '%s\n' '{"task": "f-a", "stage": "done", "t": 4.25, "node": 3, "note": "x"}' \
    '{"task": "f-a", "stage": "wait", "t": 2.5, "node": 1, "ok": true}' \
    '{"task": "f-a", "stage": "run", "t": 3.0, "node": 3}' >"$TMP/ids.jsonl"
got=$("$M" stages "$TMP/ids.jsonl" --json --clocks synced | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["tasks"], d["waited"], d["migrations"], [s["mean_seconds"] for s in d["stages"]])')
check_eq "string ids and order" "$got" "1 1 [0, 1] [0, 0.5, 1.25]"
# per-node clocks: the wait began on node 1 and ended on node 3, so it is not timed; the task
# still counts as waiting (it entered the stage)
got=$("$M" stages "$TMP/ids.jsonl" --json | $PY -c 'import json,sys; d=json.load(sys.stdin); print(d["waited"], [s["mean_seconds"] for s in d["stages"]], d["cross_node_stays"])')
check_eq "string ids, per-node clocks" "$got" "1 [0, 0, 1.25] 1"

# errors: exit 1 with file:line, nothing written
printf '%s\n' '{"task": 1, "stage": "wait", "t": 0.5, "node": 0}' '{"task": 1, "stage": "run", "node": 0}' >"$TMP/missing.jsonl"
check_exit "missing key" 1 "$M" stages "$TMP/missing.jsonl" --tasks-csv "$TMP/never.csv"
check_match "missing key names file:line" "$(cat "$TMP/err")" "missing.jsonl:2: missing key \"t\""
check_eq "no csv written" "$(ls "$TMP" | grep -c never)" 0
printf '%s\n' '{"task": 1, "stage": "wait", "t": "soon", "node": 0}' >"$TMP/badt.jsonl"
check_exit "t not a number" 1 "$M" stages "$TMP/badt.jsonl"
check_match "bad t names file:line" "$(cat "$TMP/err")" "badt.jsonl:1: \"t\" must be a number"
printf '\n%s\n' '{"task": 1, "stage": "wait", "t": 1, "node": 0.5}' >"$TMP/badn.jsonl"
check_exit "node not an integer" 1 "$M" stages "$TMP/badn.jsonl"
check_match "bad node names file:line" "$(cat "$TMP/err")" "badn.jsonl:2: \"node\" must be an integer"
printf '%s\n' '{"task": 1, "stage": "wait", "t": 1, "node": 0} x' >"$TMP/trail.jsonl"
check_exit "trailing text" 1 "$M" stages "$TMP/trail.jsonl"
check_match "trailing names file:line" "$(cat "$TMP/err")" "trail.jsonl:1: text after"
printf 'task,stage\n' >"$TMP/csv.jsonl"
check_exit "not JSON" 1 "$M" stages "$TMP/csv.jsonl"
check_match "not JSON names file:line" "$(cat "$TMP/err")" "csv.jsonl:1: expected a JSON object"
: >"$TMP/empty.jsonl"
check_exit "empty log" 1 "$M" stages "$TMP/empty.jsonl"
check_match "empty names file" "$(cat "$TMP/err")" "empty.jsonl: no records"
# a key given twice (fuzzer reproducer: it registered a task without records and the text
# and JSON writers crashed on its NULL row), in text and JSON mode, for each of the four keys
printf '%s\n' '{"task":1,"task":2,"stage":"a","t":1,"node":0}' >"$TMP/dup.jsonl"
check_exit "repeated task key, text" 1 "$M" stages "$TMP/dup.jsonl"
check_match "repeated task names file:line" "$(cat "$TMP/err")" "dup.jsonl:1: key \"task\" given twice"
check_exit "repeated task key, json" 1 "$M" stages "$TMP/dup.jsonl" --json
check_exit "repeated task key, csv" 1 "$M" stages "$TMP/dup.jsonl" --tasks-csv "$TMP/never2.csv"
for k in stage t node; do
    case $k in stage) v='"b"' ;; *) v=2 ;; esac
    printf '%s\n' '{"task": 1, "stage": "a", "t": 1, "node": 0}' \
        "{\"task\": 2, \"stage\": \"a\", \"t\": 1, \"node\": 0, \"$k\": $v}" >"$TMP/dup_$k.jsonl"
    check_exit "repeated $k key" 1 "$M" stages "$TMP/dup_$k.jsonl"
    check_match "repeated $k names file:line" "$(cat "$TMP/err")" "dup_$k.jsonl:2: key \"$k\" given twice"
done
# every key missing in turn, also after a good line that introduced the task
for k in task stage t node; do
    line=$($PY -c 'import json,sys; d={"task": 3, "stage": "x", "t": 1.5, "node": 1}; del d[sys.argv[1]]; print(json.dumps(d))' "$k")
    printf '%s\n' '{"task": 3, "stage": "a", "t": 1, "node": 0}' "$line" >"$TMP/miss_$k.jsonl"
    check_exit "missing $k" 1 "$M" stages "$TMP/miss_$k.jsonl" --json
    check_match "missing $k names file:line" "$(cat "$TMP/err")" "miss_$k.jsonl:2: missing key \"$k\""
done
# unknown keys may repeat: they are ignored
printf '%s\n' '{"task": 1, "x": 1, "x": 2, "stage": "a", "t": 1, "node": 0}' >"$TMP/dupx.jsonl"
check "repeated unknown key ignored" "$M" stages "$TMP/dupx.jsonl"
# bounds: a record line over 1 MiB, more than 256 stage names, a number beyond double
$PY -c 'print("{\"task\": 1, \"stage\": \"a\", \"t\": 1, \"node\": 0, \"pad\": \"" + "x" * (1 << 20) + "\"}")' >"$TMP/long.jsonl"
check_exit "line over 1 MiB" 1 "$M" stages "$TMP/long.jsonl"
check_match "long line names file:line and the cap" "$(cat "$TMP/err")" "long.jsonl:1: line longer than 1048576 bytes"
$PY -c 'print("{\"task\": 1, \"stage\": \"a\", \"t\": 1, \"node\": 0, \"pad\": \"" + "x" * 1000000 + "\"}")' >"$TMP/long_ok.jsonl"
check "line just under 1 MiB" "$M" stages "$TMP/long_ok.jsonl"
$PY -c '
for s in range(257): print("{\"task\": %d, \"stage\": \"s%d\", \"t\": 1, \"node\": 0}" % (s, s))' >"$TMP/stages257.jsonl"
check_exit "257 stages" 1 "$M" stages "$TMP/stages257.jsonl"
check_match "257 stages names file:line" "$(cat "$TMP/err")" "stages257.jsonl:257: more than 256 distinct stages"
head -256 "$TMP/stages257.jsonl" >"$TMP/stages256.jsonl"
check "256 stages" "$M" stages "$TMP/stages256.jsonl"
printf '%s\n' '{"task": 1, "stage": "a", "t": 1e999, "node": 0}' >"$TMP/huge.jsonl"
check_exit "t beyond double" 1 "$M" stages "$TMP/huge.jsonl"
check_match "t beyond double names file:line" "$(cat "$TMP/err")" "huge.jsonl:1: number out of range"
printf '%s\n' '{"task": 1, "stage": "a", "t": 1, "node": 1e300}' >"$TMP/hugen.jsonl"
check_exit "node beyond long" 1 "$M" stages "$TMP/hugen.jsonl"
printf '{"task": 1, "stage": "a", "t": 1, "node": 0}\n{"task": 1, "stage": "\0b", "t": 2, "node": 0}\n' >"$TMP/nul.jsonl"
check_exit "NUL byte" 1 "$M" stages "$TMP/nul.jsonl"
check_match "NUL names file:line" "$(cat "$TMP/err")" "nul.jsonl:2: NUL byte"
check_exit "missing log" 1 "$M" stages "$TMP/nope.jsonl"
check_exit "no log" 2 "$M" stages
check_exit "bad points" 2 "$M" stages "$LOG" --points 0
check_exit "unknown option" 2 "$M" stages "$LOG" --plot
check "help has an example" sh -c "'$M' stages --help | grep -q 'example:'"

# figures: time in stage against arrival, tasks in each stage against time
check "stage plots" "$M" "stages" "$LOG" --plots "$TMP/fig"
check "stage plots again" "$M" "stages" "$LOG" --plots "$TMP/fig2"
check "stage plots byte-identical" cmp -s "$TMP/fig/stage_times.png" "$TMP/fig2/stage_times.png"
got=$(PYTHONPATH=tests $PY - "$TMP/fig" <<'PY' 2>&1
import sys, pngcheck
w, h, rows = pngcheck.pixels(sys.argv[1] + "/stage_times.png")
# one dot per task and stage with time > 0: 300 distribute (vermilion), 114 wait (blue),
# 300 execute (green); blue dots are fewer than green ones
blue = pngcheck.count(rows, (0, 114, 178), 30, 0, 730)
green = pngcheck.count(rows, (0, 158, 115), 30, 0, 730)
w2, h2, occ = pngcheck.pixels(sys.argv[1] + "/stage_occupancy.png")
print(w, h, w2, h2, 0 < blue < green)
PY
)
check_eq "stage plot pixels" "$got" "900 540 900 540 True"
check "stage svg" "$M" stages "$LOG" --plots "$TMP/svg" --svg
check "stage svg parses" $PY -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$TMP/svg/stage_occupancy.svg"

finish test_stages
