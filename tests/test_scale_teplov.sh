#!/usr/bin/env bash
# Teplov's method in full (issue 18 items 14-17): placements folded into one grid with the
# variants listed, every element's marks and marks over a sub-region, the performance surface
# beside efficiency in the report, and missing configurations filled with zero. Expected values
# come from the formulas of docs/methods.md §8 written again in Python, or from awk over the CSV.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
export SOURCE_DATE_EPOCH=1715860800

# The formulas, independently: rows -> best efficiency per (p, d) -> elements -> marks.
# mode "gap" skips what is missing; "zero" puts 0 on every (p, d) some run tried.
cat >"$TMP/ref.py" <<'EOF'
import csv, json, sys
# usage: ref.py RUNS.csv gap|zero [PLO:PHI [DLO:DHI]] OUT.json
path, mode, ranges, out = sys.argv[1], sys.argv[2], sys.argv[3:-1], sys.argv[-1]
rng = lambda s: [float(x) if x else None for x in s.split(":")]
prange = rng(ranges[0]) if len(ranges) > 0 else [None, None]
drange = rng(ranges[1]) if len(ranges) > 1 else [None, None]
inside = lambda v, r: (r[0] is None or v >= r[0]) and (r[1] is None or v <= r[1])
rows = [r for r in csv.DictReader(l for l in open(path) if not l.startswith("#"))]
t1 = {}
for r in rows:
    if r["status"] == "ok" and float(r["procs"]) == 1:
        d = float(r["size"]); t1[d] = min(t1.get(d, 1e300), float(r["time"]))
g, tried = {}, set()
for r in rows:
    p, d = float(r["procs"]), float(r["size"])
    if not (inside(p, prange) and inside(d, drange)):
        continue
    tried.add((p, d))
    if r["status"] != "ok":
        continue
    e = t1[d] / (p * float(r["time"]))
    g[p, d] = max(g.get((p, d), -1), e)
if mode == "zero":
    ps = sorted({p for p, d in tried}); ds = sorted({d for p, d in tried})
    for p in ps:
        for d in ds:
            g.setdefault((p, d), 0.0)
ps = sorted({p for p, d in g}); ds = sorted({d for p, d in g})
rp, rd = ps[-1] - ps[0], ds[-1] - ds[0]
els = []
for d1, d2 in zip(ds, ds[1:]):
    both = [p for p in ps if (p, d1) in g and (p, d2) in g]
    for p1, p2 in zip(both, both[1:]):
        e11, e12, e21, e22 = g[p1, d1], g[p2, d1], g[p1, d2], g[p2, d2]
        dep = ((e12 - e11) + (e22 - e21)) / 2; ded = ((e21 - e11) + (e22 - e12)) / 2
        els.append([p1, p2, d1, d2, e11, e12, e21, e22, dep * (p2 - p1) / rp, ded * (d2 - d1) / rd,
                    (dep + ded) / 2 * (p2 - p1) * (d2 - d1) / (rp * rd)])
n = len(els)
marks = [sum(e[8 + k] for e in els) / n for k in range(3)]
json.dump({"elements": els, "marks": marks}, open(out, "w"))
EOF
# got.json (mpilens --json) against ref.json: every element and mark to 1e-12 relative
cat >"$TMP/cmp.py" <<'EOF'
import json, sys
ref = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2]))["apps"][0]
keys = ["p1", "p2", "d1", "d2", "e11", "e12", "e21", "e22", "mark_p", "mark_d", "mark_a"]
close = lambda x, y: abs(x - y) <= 1e-12 * max(1.0, abs(y))
if "elements" in a:
    got = [[e[k] for k in keys] for e in a["elements"]]
    assert len(got) == len(ref["elements"]), (len(got), len(ref["elements"]))
    for x, y in zip(got, ref["elements"]):
        assert all(close(u, v) for u, v in zip(x, y)), (x, y)
for k, name in enumerate(["mark_procs", "mark_data", "mark_all"]):
    assert close(a[name], ref["marks"][k]), (name, a[name], ref["marks"][k])
EOF

# A 4 x 3 grid (p = 1, 2, 4, 8; d = 100, 200, 400) of times whose efficiency rises then falls
# along p, so that MarkProcs over the whole grid hides the turn.
cat >"$TMP/grid.csv" <<'EOF'
app,procs,size,time,status
jac,1,100,1.0,ok
jac,2,100,0.45,ok
jac,4,100,0.30,ok
jac,8,100,0.25,ok
jac,1,200,4.0,ok
jac,2,200,1.9,ok
jac,4,200,1.1,ok
jac,8,200,0.9,ok
jac,1,400,16,ok
jac,2,400,7.8,ok
jac,4,400,4.1,ok
jac,8,400,,timeout
EOF

# --- item 15: every element's marks ---
check "marks --elements --json" $M scale marks "$TMP/grid.csv" --elements --json
$M scale marks "$TMP/grid.csv" --elements --json >"$TMP/el.json"
$PY "$TMP/ref.py" "$TMP/grid.csv" gap "$TMP/el_ref.json"
check "the elements and their marks match the formulas (6 elements, the hole skipped)" $PY "$TMP/cmp.py" "$TMP/el_ref.json" "$TMP/el.json"
check_eq "5 elements: the timed-out (8, 400) leaves one out" \
    "$($PY -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["apps"][0]["elements"]))' "$TMP/el.json")" "5"
check_eq "without --elements the JSON keeps its keys" \
    "$($M scale marks "$TMP/grid.csv" --json | $PY -c 'import json,sys; print(sorted(json.load(sys.stdin)["apps"][0]))')" \
    "['app', 'mark_all', 'mark_data', 'mark_procs', 'max_d', 'max_e', 'max_p', 'min_d', 'min_e', 'min_p']"
out=$($M scale marks "$TMP/grid.csv" --elements)
check_match "text: an element line with its markP" "$out" "^ +1 +2 +100 +200 "
check_match "text: the elements heading" "$out" "Elements of jac \(5;"
# The mean of the listed markP is MarkProcs (the listing is what the mark averages).
check "mean of the elements' markP is MarkProcs" $PY - "$TMP/el.json" <<'EOF'
import json, sys
a = json.load(open(sys.argv[1]))["apps"][0]
m = sum(e["mark_p"] for e in a["elements"]) / len(a["elements"])
assert abs(m - a["mark_procs"]) <= 1e-15 * abs(m), (m, a["mark_procs"])
EOF

# --- item 15: marks over a sub-region, normalised by the sub-region's own ranges ---
check "marks over --procs 2:8 --sizes 100:200" $M scale marks "$TMP/grid.csv" --procs 2:8 --sizes 100:200 --json --elements
$M scale marks "$TMP/grid.csv" --procs 2:8 --sizes 100:200 --json --elements >"$TMP/sub.json"
$PY "$TMP/ref.py" "$TMP/grid.csv" gap 2:8 100:200 "$TMP/sub_ref.json"
check "sub-region marks match the formulas over p 2..8, d 100..200" $PY "$TMP/cmp.py" "$TMP/sub_ref.json" "$TMP/sub.json"
check_eq "sub-region ranges" "$($PY -c 'import json,sys; a=json.load(open(sys.argv[1]))["apps"][0]; print(a["min_p"],a["max_p"],a["min_d"],a["max_d"])' "$TMP/sub.json")" "2 8 100 200"
# open ends: "4:" is p >= 4
$M scale marks "$TMP/grid.csv" --procs 1:2 --json >"$TMP/lo.json"
$PY "$TMP/ref.py" "$TMP/grid.csv" gap 1:2 : "$TMP/lo_ref.json"
check "sub-region 1:2 with open sizes" $PY "$TMP/cmp.py" "$TMP/lo_ref.json" "$TMP/lo.json"
check_match "the rise in 1:2 has the opposite sign of the whole" \
    "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["apps"][0]["mark_procs"] > 0 > json.load(open(sys.argv[2]))["apps"][0]["mark_procs"])' "$TMP/lo.json" "$TMP/el.json")" "True"
check_match "text names the sub-region" "$($M scale marks "$TMP/grid.csv" --procs 2:8 --sizes 100:200)" "^marks over processes 2:8, sizes 100:200"
check_exit "an inverted range is a usage error" 2 $M scale marks "$TMP/grid.csv" --procs 8:2
check_exit "a range without a colon is a usage error" 2 $M scale marks "$TMP/grid.csv" --sizes 100

# --- item 17: --missing zero ---
check "marks --missing zero" $M scale marks "$TMP/grid.csv" --missing zero --json --elements
$M scale marks "$TMP/grid.csv" --missing zero --json --elements >"$TMP/zero.json"
$PY "$TMP/ref.py" "$TMP/grid.csv" zero "$TMP/zero_ref.json"
check "zero-filled marks match the formula with E(8, 400) = 0" $PY "$TMP/cmp.py" "$TMP/zero_ref.json" "$TMP/zero.json"
check_eq "one configuration filled" "$($PY -c 'import json,sys; a=json.load(open(sys.argv[1]))["apps"][0]; print(a["zero_filled"], len(a["elements"]), a["min_e"])' "$TMP/zero.json")" "1 6 0"
check_match "gap and zero give different MarkProcs" \
    "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["apps"][0]["mark_procs"] != json.load(open(sys.argv[2]))["apps"][0]["mark_procs"])' "$TMP/zero.json" "$TMP/el.json")" "True"
check_match "text says what was assumed" "$($M scale marks "$TMP/grid.csv" --missing zero)" "1 configurations that did not run taken as efficiency 0"
check_exit "--missing with another word is a usage error" 2 $M scale marks "$TMP/grid.csv" --missing fill
# drawn differently: the zero-filled heatmap cell is grey (0.78 * 255 = 199), the gap is white
check "surface --missing zero" $M scale surface "$TMP/grid.csv" --missing zero -o "$TMP/zero.png"
check "surface gap" $M scale surface "$TMP/grid.csv" -o "$TMP/gap.png"
check "the filled cell is grey, the gap white" $PY - "$TMP/zero.png" "$TMP/gap.png" <<'EOF'
import sys, zlib, struct
def png(path):
    b = open(path, "rb").read(); pos = 8; idat = b""; w = h = 0
    while pos < len(b):
        n, t = struct.unpack(">I4s", b[pos:pos + 8]); d = b[pos + 8:pos + 8 + n]; pos += 12 + n
        if t == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", d[:10])
        if t == b"IDAT": idat += d
    raw = zlib.decompress(idat); bpp = 4 if ctype == 6 else 3; stride = w * bpp; rows = []; prev = bytearray(stride); i = 0
    for y in range(h):
        f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; up = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + up) & 255
            elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, rows, bpp
# the heatmap spans x 0.56..0.87 of the width; the (8, 400) cell is its top right corner
for path, want in ((sys.argv[1], "grey"), (sys.argv[2], "white")):
    w, h, rows, bpp = png(path)
    x = int(0.56 * w + 0.31 * w * 0.92); y = int(h * 0.2)
    px = rows[y][bpp * x:bpp * x + 3]
    grey = all(abs(c - 199) <= 3 for c in px); white = all(c >= 250 for c in px)
    assert (grey if want == "grey" else white), (path, want, list(px))
EOF

# --- item 14: placements folded ---
# Two placements of one configuration with known times: core is faster at p = 2, socket at
# p = 4; the serial runs differ too (T1 is the best of both).
cat >"$TMP/place.csv" <<'EOF'
app,placement,procs,size,repeat,time,status
mm,core,1,100,1,10,ok
mm,socket,1,100,1,11,ok
mm,core,2,100,1,6,ok
mm,socket,2,100,1,7,ok
mm,core,4,100,1,4,ok
mm,socket,4,100,1,3,ok
mm,core,1,200,1,40,ok
mm,socket,1,200,1,40,ok
mm,core,2,200,1,22,ok
mm,socket,2,200,1,25,ok
mm,core,4,200,1,,failed
mm,socket,4,200,1,12,ok
EOF
# the same runs as one app without placements (the best time per configuration by hand)
cat >"$TMP/best.csv" <<'EOF'
app,procs,size,time,status
mm,1,100,10,ok
mm,2,100,6,ok
mm,4,100,3,ok
mm,1,200,40,ok
mm,2,200,22,ok
mm,4,200,12,ok
EOF
$M scale marks "$TMP/place.csv" --json --variants >"$TMP/fold.json" 2>"$TMP/err"
$PY "$TMP/ref.py" "$TMP/best.csv" gap "$TMP/best_ref.json"
check "folded marks are those of the best run per configuration" $PY "$TMP/cmp.py" "$TMP/best_ref.json" "$TMP/fold.json"
check "the variants are listed with the one kept" $PY - "$TMP/fold.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1])); assert [a["app"] for a in j["apps"]] == ["mm"], j
a = j["apps"][0]; assert a["placements"] == ["core", "socket"], a["placements"]
v = {(x["procs"], x["size"]): (x["kept"], x["efficiency"]) for x in a["variants"]}
want_kept = {(1, 100): "core", (2, 100): "core", (4, 100): "socket", (1, 200): "core",
             (2, 200): "core", (4, 200): "socket"}
assert {k: x[0] for k, x in v.items()} == want_kept, v
# each variant's own efficiency against T1 = 10 (d 100) and 40 (d 200), None where it failed
close = lambda x, y: (x is None and y is None) or abs(x - y) < 1e-12
want = {(4, 100): [10 / 16, 10 / 12], (4, 200): [None, 40 / 48], (2, 200): [40 / 44, 40 / 50]}
for k, e in want.items():
    assert all(close(x, y) for x, y in zip(v[k][1], e)), (k, v[k], e)
EOF
out=$($M scale marks "$TMP/place.csv" --variants)
check_match "text: the placements table" "$out" "Placements of mm, folded"
check_match "text: (4, 100) kept socket" "$out" "     4        100  socket "
$M scale marks "$TMP/place.csv" --placements separate --json >"$TMP/sep.json"
check_eq "--placements separate gives NAME@LABEL apps" \
    "$($PY -c 'import json,sys; print(" ".join(a["app"] for a in json.load(open(sys.argv[1]))["apps"]))' "$TMP/sep.json")" "mm@core mm@socket"
# files written by `scale run` before folding named the app NAME@LABEL: they fold alike
sed 's/^mm,\([a-z]*\),/mm@\1,\1,/' "$TMP/place.csv" >"$TMP/old.csv"
check_eq "old NAME@LABEL rows fold as the new ones" "$($M scale marks "$TMP/old.csv" --json)" "$($M scale marks "$TMP/place.csv" --json)"
# scale run writes the label in the placement column and the app unchanged (a fake launcher
# answers with a time that depends on the placement, so no MPI is needed)
cat >"$TMP/fake-mpirun" <<'EOF'
#!/bin/sh
np=1; t=2
while [ $# -gt 0 ]; do
    case $1 in -np) np=$2; shift ;; core) t=1 ;; esac
    shift
done
echo "mpilens-time: $(awk -v np="$np" -v t="$t" 'BEGIN { print t / np }')"
EOF
chmod +x "$TMP/fake-mpirun"
check "scale run with two placements" $M scale run --procs 1,2 --sizes 10 --placement 'core=--map-by core' \
    --placement 'node=--map-by node' --mpirun "$TMP/fake-mpirun" -o "$TMP/run.csv" -- prog
check_eq "run rows: app prog, placement column" "$(grep -c '^prog,\(core\|node\),[12],10,1,' "$TMP/run.csv")" "4"
check_eq "the run folds into one app" \
    "$($M scale marks "$TMP/run.csv" --json --variants | $PY -c 'import json,sys; a=json.load(sys.stdin)["apps"]; print(len(a), a[0]["placements"], sorted({v["kept"] for v in a[0]["variants"]}))')" \
    "1 ['core', 'node'] ['core']"
check_exit "--placements with another word is a usage error" 2 $M scale marks "$TMP/place.csv" --placements merge

# --- item 16: the performance surface beside efficiency, its values those of the CSV ---
check "report with placements and performance" $M scale report "$TMP/place.csv" -o "$TMP/r.pdf" --figures "$TMP/fig"
pdftotext "$TMP/r.pdf" "$TMP/r.txt"
txt=$(tr '\n' ' ' <"$TMP/r.txt")
check_match "the performance surface has its heading and caption" "$txt" "Performance surface .*Figure 1b: performance of mm"
check_match "the caption cites Teplov's figures" "$txt" "Fig\. 1 and 9"
# performance = d / T of the run kept (C = K = 1), from the CSV by awk: the best time per (p, d)
read -r pmin pmin_at pmax pmax_at < <(awk -F, 'NR > 1 && $7 == "ok" { k = $3 " " $4; if (!(k in t) || $6 < t[k]) t[k] = $6 }
    END { for (k in t) { split(k, a, " "); v = a[2] / t[k]; if (lo == "" || v < lo) { lo = v; la = a[1] "/" a[2] }
          if (hi == "" || v > hi) { hi = v; ha = a[1] "/" a[2] } }
          printf "%.17g %s %.17g %s\n", lo, la, hi, ha }' "$TMP/place.csv")
# the report writes 4 significant digits (tests/units.py)
read -r pmin pmax < <(/usr/bin/python3 -c 'import sys; sys.path.insert(0, "tests"); from units import num; print(num(float(sys.argv[1])), num(float(sys.argv[2])))' "$pmin" "$pmax")
check_match "caption minimum = min d / T over the CSV ($pmin at $pmin_at)" "$txt" "from $pmin at p = ${pmin_at%/*}, d = ${pmin_at#*/} "
check_match "caption maximum = max d / T over the CSV ($pmax at $pmax_at)" "$txt" "to $pmax at p = ${pmax_at%/*}, d = ${pmax_at#*/},"
check "performance figure files" test -s "$TMP/fig/mm_performance.png" -a -s "$TMP/fig/mm_performance.svg"
check_match "the placements are listed in the PDF" "$txt" "Placements .*made in 2 placements: core, socket"
check_match "the kept placement of (4, 100)" "$(grep -A4 -x '4' "$TMP/r.txt" | tr '\n' ' ')" "socket"
check "surface --value performance" $M scale surface "$TMP/place.csv" --value performance -o "$TMP/perf.svg"
check_match "the performance surface is labelled" "$(cat "$TMP/perf.svg")" "<svg"
# any other column on the same axes: --value names it; a file without it is an error
sed '1s/$/,gflops/; 2,$s/$/,1.5/' "$TMP/best.csv" >"$TMP/gf.csv"
check "surface of another column" $M scale surface "$TMP/gf.csv" --value gflops -o "$TMP/gf.png"
check "report with --value" $M scale report "$TMP/gf.csv" --value gflops -o "$TMP/gf.pdf"
check_match "the column's surface is in the report" "$(pdftotext "$TMP/gf.pdf" - | tr '\n' ' ')" "Surface of gflops .*from 1\.500 at"
check_exit "a --value column the file lacks" 1 $M scale marks "$TMP/best.csv" --value gflops
check_match "the error names the column" "$(cat "$TMP/err")" "missing column 'gflops'"
# a report without placements has no Placements section, and two runs are byte-identical
check "report without placements" $M scale report "$TMP/best.csv" -o "$TMP/b1.pdf"
check "again" $M scale report "$TMP/best.csv" -o "$TMP/b2.pdf"
check "byte-identical" cmp -s "$TMP/b1.pdf" "$TMP/b2.pdf"
if pdftotext "$TMP/b1.pdf" - | grep -q '^Placements$'; then fail "a report without placements shows the section"; else ok; fi
check_match "a grid of efficiencies without --peak has no performance" \
    "$($M scale report samples/scale/paper.csv -o "$TMP/p.pdf" && pdftotext "$TMP/p.pdf" - | grep -c 'Performance surface')" "^0$"

finish test_scale_teplov
