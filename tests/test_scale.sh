#!/usr/bin/env bash
# mpilens scale end to end: marks of the paper sample against the paper's Table 1 and an
# independent Python implementation of docs/methods.md §8, CSV errors through the command,
# surfaces (PNG, SVG parsed by Python's XML parser), and `scale run` on a real tiny grid.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
APPS=$BIN/samples

# --- marks: JSON against the paper and against Python ---
check "marks --json on the paper sample" $M scale marks samples/scale/paper.csv --json
$M scale marks samples/scale/paper.csv --json >"$TMP/paper.json" 2>"$TMP/err"
check "paper.json has the contract's keys, Table 1 values and order" $PY - "$TMP/paper.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
assert set(j) == {"apps", "rank_procs", "rank_data", "rank_all"}, j.keys()
keys = ["app", "min_p", "max_p", "min_d", "max_d", "mark_procs", "mark_data", "mark_all", "max_e", "min_e"]
for a in j["apps"]:
    assert list(a) == keys, list(a)
paper = {"linpack": -0.061256, "matmul": -0.0436, "matvec": -0.01517, "cholesky": -0.00059,
         "gauss-forward": -0.0001, "doubling": -3.06e-06, "vecsum": -9.43e-07, "dot": 0.00414}
got = {a["app"]: a["mark_procs"] for a in j["apps"]}
for k, v in paper.items():
    assert abs(got[k] - v) <= 1e-6 * abs(v), (k, got[k], v)
assert j["rank_procs"] == list(paper), j["rank_procs"]
for k in ("rank_data", "rank_all"):
    vals = {a["app"]: a["mark_" + k[5:]] for a in j["apps"]}
    r = j[k]
    assert sorted(r) == sorted(paper) and all(vals[x] <= vals[y] for x, y in zip(r, r[1:])), r
EOF

# Independent reference: same formula written from the spec, rows keyed by (p, d) in dicts.
cat >"$TMP/ref.py" <<'EOF'
import csv, json, math, sys
runs = {}
for row in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")):
    if row.get("status", "ok") not in ("", "ok"):
        continue
    key = (float(row["procs"]), float(row["size"]))
    g = runs.setdefault(row["app"], {})
    g[key] = max(g.get(key, -1e300), float(row["efficiency"]))
out = {}
for app, g in runs.items():
    ps = sorted({p for p, d in g}); ds = sorted({d for p, d in g})
    rp, rd = ps[-1] - ps[0], ds[-1] - ds[0]
    mp = md = ma = 0.0; n = 0
    for d1, d2 in zip(ds, ds[1:]):
        both = [p for p in ps if (p, d1) in g and (p, d2) in g]
        for p1, p2 in zip(both, both[1:]):
            e11, e12, e21, e22 = g[p1, d1], g[p2, d1], g[p1, d2], g[p2, d2]
            dep = ((e12 - e11) + (e22 - e21)) / 2; ded = ((e21 - e11) + (e22 - e12)) / 2
            mp += dep * (p2 - p1) / rp; md += ded * (d2 - d1) / rd
            ma += (dep + ded) / 2 * (p2 - p1) * (d2 - d1) / (rp * rd); n += 1
    out[app] = [mp / n, md / n, ma / n, max(g.values()), min(g.values())] if n else None
json.dump(out, open(sys.argv[2], "w"))
EOF
cat >"$TMP/cmp.py" <<'EOF'
import json, sys
ref = json.load(open(sys.argv[1])); j = json.load(open(sys.argv[2]))
for a in j["apps"]:
    r = ref[a["app"]]
    got = [a["mark_procs"], a["mark_data"], a["mark_all"], a["max_e"], a["min_e"]]
    assert all(abs(x - y) <= 1e-9 * max(1e-12, abs(y)) for x, y in zip(got, r)), (a["app"], got, r)
EOF
$PY "$TMP/ref.py" samples/scale/paper.csv "$TMP/ref.json"
check "paper sample agrees with the Python reference" $PY "$TMP/cmp.py" "$TMP/ref.json" "$TMP/paper.json"

# A high-entropy grid with repeats, holes and failed runs, also against Python.
$PY - "$TMP/rand.csv" <<'EOF'
import random, sys
random.seed(20260406)
with open(sys.argv[1], "w") as f:
    f.write("app,procs,size,efficiency,status\n")
    for a in range(7):
        ps = sorted(random.sample(range(1, 97), random.randint(2, 9)))
        ds = sorted(random.sample(range(100, 90000, 37), random.randint(2, 8)))
        for p in ps:
            for d in ds:
                if random.random() < 0.15:
                    continue  # missing configuration
                for r in range(random.randint(1, 3)):
                    if random.random() < 0.1:
                        f.write("app%d,%d,%d,,failed\n" % (a, p, d))
                    else:
                        f.write("app%d,%d,%d,%.9f,ok\n" % (a, p, d, random.uniform(0.05, 1.1)))
EOF
$M scale marks "$TMP/rand.csv" --json >"$TMP/rand.json" 2>"$TMP/err"
$PY "$TMP/ref.py" "$TMP/rand.csv" "$TMP/rand_ref.json"
check "random grids with holes agree with the Python reference" $PY - "$TMP/rand_ref.json" "$TMP/rand.json" <<'EOF'
import json, sys
ref = json.load(open(sys.argv[1])); j = json.load(open(sys.argv[2]))
for a in j["apps"]:
    r = ref[a["app"]]
    if r is None:
        assert a["mark_procs"] is None, a; continue
    got = [a["mark_procs"], a["mark_data"], a["mark_all"], a["max_e"], a["min_e"]]
    assert all(abs(x - y) <= 1e-9 * max(1e-9, abs(y)) for x, y in zip(got, r)), (a["app"], got, r)
EOF

# Text output: metric table and the three tables, sorted ascending.
out=$($M scale marks samples/scale/paper.csv 2>&1)
check_match "text has Table 1" "$out" "Table 1\. Applications by processes, ascending MarkProcs"
check_match "Table 1 starts with linpack" "$(echo "$out" | grep -A2 '^Table 1' | tail -1)" "^ +1 +linpack +-0\.061256$"
check_match "sentence for matmul" "$out" "MarkProcs: efficiency falls as processes grow, strongly: -0\.0436"
check_eq "same input, same bytes" "$($M scale marks samples/scale/paper.csv --json | md5sum)" "$(md5sum <"$TMP/paper.json")"
printf 'procs.falls = drops with p: {mark}\n' >"$TMP/texts.txt"
check_match "--texts overrides a sentence" "$($M scale marks samples/scale/paper.csv --texts "$TMP/texts.txt")" "MarkProcs: drops with p: -0\.0436"

# Ties ordered by name: two apps with identical grids.
printf 'app,procs,size,efficiency\nzz,1,10,0.9\nzz,2,10,0.7\nzz,1,20,0.95\nzz,2,20,0.8\naa,1,10,0.9\naa,2,10,0.7\naa,1,20,0.95\naa,2,20,0.8\n' >"$TMP/tie.csv"
check_match "ties ordered by name" "$($M scale marks "$TMP/tie.csv" --json)" '"rank_procs":\["aa","zz"\]'

# Time input with a serial reference file.
printf 'app,procs,size,time\nj,2,100,3.0\nj,4,100,2.0\nj,2,300,7.5\nj,4,300,4.5\n' >"$TMP/t.csv"
printf 'app,procs,size,time\nj,1,100,4.8\nj,1,300,12.0\n' >"$TMP/serial.csv"
check_exit "time without a reference fails" 1 $M scale marks "$TMP/t.csv"
check_match "the message names app and size" "$(cat "$TMP/err")" "j: no serial reference for size 100"
check "time with --serial" $M scale marks "$TMP/t.csv" --serial "$TMP/serial.csv" --json
# E: (100: 1, 0.8, 0.6) (300: 1, 0.8, 0.6667) -> max 1, min 0.6
check_match "efficiencies from the serial reference" "$($M scale marks "$TMP/t.csv" --serial "$TMP/serial.csv" --json)" '"max_e":1,"min_e":0.6}'
# E = 2d / (p Tp 100): 1/3, 1/4 (d = 100), 0.4, 1/3 (d = 300)
check_match "model" "$($M scale marks "$TMP/t.csv" --peak 100 --flops-coef 2 --flops-power 1 --json)" '"max_e":0.4,"min_e":0.25}'

# --- CSV errors through the command: exit 1, file:line:column ---
printf 'app,procs,size\nx,1,2\n' >"$TMP/nocol.csv"
check_exit "missing column" 1 $M scale marks "$TMP/nocol.csv"
check_match "missing column message" "$(cat "$TMP/err")" "nocol\.csv:1:1: missing column 'efficiency' or 'time'"
printf 'app,procs,size,efficiency\nx,1,2,0.5\nx,abc,2,0.5\n' >"$TMP/nonnum.csv"
check_exit "non-numeric" 1 $M scale marks "$TMP/nonnum.csv"
check_match "non-numeric message" "$(cat "$TMP/err")" "nonnum\.csv:3:3: procs 'abc' is not a finite number"
printf 'app,procs,size,efficiency\nx,-2,2,0.5\n' >"$TMP/neg.csv"
check_exit "negative procs" 1 $M scale marks "$TMP/neg.csv"
check_match "negative procs message" "$(cat "$TMP/err")" "neg\.csv:2:3: procs '-2' must be a positive integer"
: >"$TMP/empty.csv"
check_exit "empty file" 1 $M scale marks "$TMP/empty.csv"
check_match "empty file message" "$(cat "$TMP/err")" "empty\.csv:1:1: empty file"
check_exit "missing file" 1 $M scale marks "$TMP/nope.csv"
check_exit "surface of a bad file writes nothing" 1 $M scale surface "$TMP/neg.csv" -o "$TMP/bad.png"
check_eq "no bad.png" "$(ls "$TMP"/bad.png* 2>/dev/null)" ""
check_exit "no file" 2 $M scale marks
check_exit "unknown action" 2 $M scale frobnicate x.csv
check_exit "unknown option" 2 $M scale marks samples/scale/paper.csv --bogus
check_exit "bad elevation" 2 $M scale surface samples/scale/paper.csv --app dot -o "$TMP/x.png" --elevation 100
check_exit "surface needs --app with several apps" 2 $M scale surface samples/scale/paper.csv -o "$TMP/x.png"
check_exit "surface: unknown app" 1 $M scale surface samples/scale/paper.csv --app nope -o "$TMP/x.png"
check_exit "surface: bad extension" 1 $M scale surface samples/scale/paper.csv --app dot -o "$TMP/x.gif"
check "scale --help" $M scale --help

# --- surfaces ---
check "surface png" $M scale surface samples/scale/paper.csv --app matmul -o "$TMP/s.png"
check "surface svg" $M scale surface samples/scale/paper.csv --app matmul -o "$TMP/s.svg" --azimuth 30 --elevation 45
check "surface svg again" $M scale surface samples/scale/paper.csv --app matmul -o "$TMP/s2.svg" --azimuth 30 --elevation 45
check "svg is deterministic" cmp "$TMP/s.svg" "$TMP/s2.svg"
check "svg parses as XML with a path per quad" $PY - "$TMP/s.svg" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg"), root.tag
assert root.get("width") in ("1100", "1100px", "1100pt"), root.get("width")
paths = [e for e in root.iter() if e.tag.endswith("path")]
assert len(paths) >= 12 + 20, len(paths)  # 12 quads, 20 heatmap cells, axes
EOF
check "png is a 1100 x 520 PNG" $PY - "$TMP/s.png" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read(32)
assert b[:8] == b"\x89PNG\r\n\x1a\n"
w, h = struct.unpack(">II", b[16:24])
assert (w, h) == (1100, 520), (w, h)
EOF

# --- scale run: a real tiny grid through mpirun ---
if [ -x "$APPS/dot" ] && command -v mpirun >/dev/null; then
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    check "run dot 1-2 procs, 2 sizes" $M scale run --procs 1,2 --sizes 20000,40000 --repeats 1 \
        --timeout 60 -o "$TMP/runs.csv" -- "$APPS/dot" '{size}' 5
    check "runs.csv has 4 ok rows with positive times" $PY - "$TMP/runs.csv" <<'EOF'
import csv, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("# mpilens") and any(l.startswith("# launcher: mpirun") for l in lines)
rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
assert len(rows) == 4, rows
assert {(r["procs"], r["size"]) for r in rows} == {("1", "20000"), ("2", "20000"), ("1", "40000"), ("2", "40000")}
assert all(r["app"] == "dot" and r["status"] == "ok" and float(r["time"]) > 0 for r in rows), rows
EOF
    check "marks of the measured grid" $M scale marks "$TMP/runs.csv" --json
    check_match "measured grid has one element" "$($M scale marks "$TMP/runs.csv" --json)" '"min_p":1,"max_p":2,"min_d":20000,"max_d":40000'
    check "surface of the measured grid" $M scale surface "$TMP/runs.csv" -o "$TMP/run.png"

    # failing command, program without a time line, a timeout: recorded, never as a time
    check_exit "every run failing exits 1" 1 $M scale run --procs 1,2 --sizes 7 -o "$TMP/fail.csv" --app broken -- sh -c 'exit 3'
    check_eq "failed rows" "$(grep -c '^broken,,[12],7,1,,failed$' "$TMP/fail.csv")" "2"
    check_exit "no time line" 1 $M scale run --procs 1 --sizes 7 -o "$TMP/notime.csv" -- echo hello
    check_eq "no-time row failed" "$(grep -c '^echo,,1,7,1,,failed$' "$TMP/notime.csv")" "1"
    check_exit "timeout" 1 $M scale run --procs 1 --sizes 7 --timeout 1 -o "$TMP/slow.csv" --app slow -- sleep 30
    check_eq "timeout row" "$(grep -c '^slow,,1,7,1,,timeout$' "$TMP/slow.csv")" "1"
    check_exit "failed runs only: marks give null" 0 $M scale marks "$TMP/fail.csv" --json
    check_match "failed-only app has null marks" "$(cat "$TMP/out")" '"app":"broken","min_p":null'

    # mixed: one size ok, a placement variant, {procs} substitution
    check "placement variant" $M scale run --procs 1 --sizes 1000 --placement 'core=--map-by core' \
        -o "$TMP/place.csv" -- "$APPS/dot" '{size}' '{procs}'
    check_eq "placement row" "$(grep -c '^dot,core,1,1000,1,[0-9.e-]*,ok$' "$TMP/place.csv")" "1"
    check_exit "run without -o" 2 $M scale run --procs 1 --sizes 1 -- true
    check_exit "run with a bad list" 2 $M scale run --procs 1,x --sizes 1 -o "$TMP/x.csv" -- true
    check_exit "run without a command" 2 $M scale run --procs 1 --sizes 1 -o "$TMP/x.csv"
    check_exit "run: command without --" 2 $M scale run --procs 1 --sizes 1 -o "$TMP/x.csv" true
    check_exit "run: placement label with a comma" 2 $M scale run --procs 1 --sizes 1 --placement 'a,b=--map-by core' -o "$TMP/x.csv" -- true
    # a --sizes list over 4095 bytes was cut there, its last number silently shortened
    long=$($PY -c 'print(",".join(str(10**20 + k) for k in range(200)))')
    check_exit "run: a list over 4095 bytes" 2 $M scale run --procs 1 --sizes "$long" -o "$TMP/x.csv" -- true
    check_eq "usage errors write nothing" "$(ls "$TMP"/x.csv* 2>/dev/null)" ""
    # more than 1 MiB of output before the time line: the last 1 MiB is kept, the time found
    check "chatty program" $M scale run --procs 1 --sizes 7 -o "$TMP/chatty.csv" --app chatty -- \
        sh -c 'head -c 3000000 /dev/zero | tr "\0" x; echo; echo "mpilens-time: 0.25"'
    check_eq "chatty row ok with its time" "$(grep -c '^chatty,,1,7,1,0.25,ok$' "$TMP/chatty.csv")" "1"
else
    fail "bench apps or mpirun missing: $APPS/dot"
fi

finish test_scale
