#!/usr/bin/env bash
# make bench, scalability: marks of 100 applications on 256 x 256 grids and 64 x 64 surfaces
# (tests/perf_marks.c), then `mpilens scale marks` against a straightforward Python
# implementation of the same formula on the same CSV (100 apps x N x N, N = SCALE_N, default
# 64), both timed here; the two must agree to 1e-9.
set -eu
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/bin}
PY=/usr/bin/python3
N=${SCALE_N:-64}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$BUILD/tests/perf_marks" "$tmp" >"$tmp/perf.txt"
fig() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/perf.txt"; }
printf 'marks, 100 apps x 256 x 256 grids (in memory): %.4f s  (target: well under 1 s)\n' "$(fig marks_256x256x100)"
printf 'grids from 6.5 M runs (best of repeats):       %.4f s\n' "$(fig grids_from_6.5M_runs)"
printf 'surface 64 x 64 to PNG:                         %.4f s  (target: under 0.5 s)\n' "$(fig surface_64x64_png)"
printf 'surface 64 x 64 to SVG:                         %.4f s  (target: under 0.5 s)\n' "$(fig surface_64x64_svg)"

# The same CSV for both.
$PY - "$tmp/runs.csv" "$N" <<'PYEOF'
import math, sys
n = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    f.write("app,procs,size,efficiency\n")
    for a in range(100):
        for j in range(n):
            for i in range(n):
                x, y = i / (n - 1), j / (n - 1)
                e = 0.95 - (0.3 + 0.004 * a) * x + 0.1 * y + 0.02 * math.sin(7 * x + a) * math.cos(5 * y)
                f.write("app%03d,%d,%d,%.9f\n" % (a, 1 + 4 * i, 1000 + 250 * j, e))
PYEOF
cat >"$tmp/peer.py" <<'PYEOF'
# The peer: read the CSV with the csv module, best of repeats in a dict, the marks of docs/methods.md §8 in loops.
import csv, json, sys
runs = {}
with open(sys.argv[1]) as f:
    for row in csv.DictReader(f):
        g = runs.setdefault(row["app"], {})
        key = (float(row["procs"]), float(row["size"]))
        v = float(row["efficiency"])
        if v > g.get(key, -1e300):
            g[key] = v
out = {}
for app, g in runs.items():
    ps = sorted({p for p, d in g}); ds = sorted({d for p, d in g})
    rp, rd = ps[-1] - ps[0], ds[-1] - ds[0]
    sp = sd = sa = 0.0; n = 0
    for d1, d2 in zip(ds, ds[1:]):
        both = [p for p in ps if (p, d1) in g and (p, d2) in g]
        for p1, p2 in zip(both, both[1:]):
            e11, e12, e21, e22 = g[p1, d1], g[p2, d1], g[p1, d2], g[p2, d2]
            dep = ((e12 - e11) + (e22 - e21)) / 2; ded = ((e21 - e11) + (e22 - e12)) / 2
            sp += dep * (p2 - p1) / rp; sd += ded * (d2 - d1) / rd
            sa += (dep + ded) / 2 * (p2 - p1) * (d2 - d1) / (rp * rd); n += 1
    out[app] = [sp / n, sd / n, sa / n]
json.dump(out, open(sys.argv[2], "w"))
PYEOF
now() { date +%s.%N; }
t0=$(now); "$BIN/mpilens" scale marks "$tmp/runs.csv" --json >"$tmp/c.json"; t1=$(now)
$PY "$tmp/peer.py" "$tmp/runs.csv" "$tmp/py.json"; t2=$(now)
tc=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
tp=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')
rows=$((100 * N * N))
printf 'mpilens scale marks, %d runs CSV (100 x %d x %d): %.3f s\n' "$rows" "$N" "$N" "$tc"
printf 'peer: Python csv + dict implementation, same CSV:    %.3f s\n' "$tp"
awk -v c="$tc" -v p="$tp" 'BEGIN { printf "ratio peer / mpilens: %.1fx\n", p / c }'
$PY - "$tmp/c.json" "$tmp/py.json" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
worst = 0.0
for a in c["apps"]:
    for got, want in zip((a["mark_procs"], a["mark_data"], a["mark_all"]), p[a["app"]]):
        worst = max(worst, abs(got - want) / max(abs(want), 1e-300))
print("agreement: %d apps, largest relative difference %.2e" % (len(c["apps"]), worst))
sys.exit(0 if worst < 1e-9 else 1)
PYEOF

# Many applications: 1 M rows of one application against 1 M rows of 250,000 applications
# interleaved (4 runs each). A linear search per name made the second 150x slower (88 s);
# with the hash of names and one grouping pass both are linear. The second prints 250,000
# JSON records (58 MB) where the first prints one, which is most of the difference left.
$PY - "$tmp/one.csv" "$tmp/many.csv" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("app,procs,size,efficiency\n")
    for k in range(1000000):
        i, j = k % 1000, k // 1000
        f.write("app,%d,%d,%.6f\n" % (1 + i, 100 + j, 0.9 - 1e-4 * i - 1e-5 * j))
with open(sys.argv[2], "w") as f:
    f.write("app,procs,size,efficiency\n")
    for r in range(4):
        for a in range(250000):
            f.write("app%06d,%d,%d,%.6f\n" % (a, 1 + (r & 1), 100 + 100 * (r >> 1),
                                              0.9 - 0.1 * (r & 1) - 0.01 * (r >> 1) + (a % 97) * 1e-4))
PYEOF
t0=$(now); "$BIN/mpilens" scale marks "$tmp/one.csv" --json >/dev/null; t1=$(now)
"$BIN/mpilens" scale marks "$tmp/many.csv" --json >/dev/null; t2=$(now)
t1a=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
tma=$(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }')
printf 'scale marks, 1 M rows of 1 application:        %.3f s\n' "$t1a"
printf 'scale marks, 1 M rows of 250,000 applications: %.3f s  (was 88 s; target: same order as one app)\n' "$tma"
awk -v a="$t1a" -v b="$tma" 'BEGIN { printf "ratio 250,000 apps / 1 app: %.1fx\n", b / a }'
