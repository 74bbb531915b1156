# mpilens p2p on real files from `mpilens-bench -t p2p` under mpirun (2 ranks, and 3 ranks with
# --pairs per-node), and on a three-pair result merged from them (tests/tools/p2p_merge.py):
# every value read against an independent parse (python csv of the .csv, ncdump text of the
# .nc), the CSV and the NetCDF file giving the same numbers, labels and hosts, the send-time
# interpolation against numpy.interp, the fit against numpy's weighted least squares, the
# figures (PNG size, well-formed SVG with one median and one mean line per pair, byte-identical
# across runs) and every error path (missing, truncated, corrupt and foreign files, bad usage).
. tests/lib.sh
PY=/usr/bin/python3
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
M=$BIN/mpilens
HOST=$(hostname)

$MPIRUN -np 2 "$BIN/mpilens-bench" -t p2p -n 40 -e 300000 -f "$TMP/a" </dev/null >/dev/null 2>"$TMP/a.err"
check_eq "p2p at np 2" "$?" "0"
$MPIRUN -np 3 "$BIN/mpilens-bench" -t p2p --pairs per-node -n 40 -e 300000 -f "$TMP/b" </dev/null >/dev/null 2>"$TMP/b.err"
check_eq "p2p per-node at np 3" "$?" "0"
$PY tests/tools/p2p_merge.py "$TMP/m" "$TMP/a:intra:$HOST:$HOST:0:1" "$TMP/b:inter:$HOST:nodeB:0:3" \
    "$TMP/a:inter:nodeB:nodeC:3:6"
check_eq "merged three pairs" "$?" "0"

# --csv of each file against an independent parse of the same file; .nc and .csv against each other.
for P in a b m; do
    check "$P: csv of .nc" "$M" p2p --csv "$TMP/${P}_p2p.nc"
    "$M" p2p --csv "$TMP/${P}_p2p.nc" >"$TMP/$P.nc.out" 2>/dev/null
    "$M" p2p --csv "$TMP/${P}_p2p.csv" >"$TMP/$P.csv.out" 2>/dev/null
    "$M" p2p --csv "$TMP/$P" >"$TMP/$P.prefix.out" 2>/dev/null
    check "$P: the prefix reads the .nc" cmp "$TMP/$P.nc.out" "$TMP/$P.prefix.out"
    got=$($PY - "$TMP/$P" <<'PYEOF'
import csv, re, subprocess, sys
prefix = sys.argv[1]
COLS = ["latency_s", "latency_min_s", "latency_median_s", "latency_max_s", "bandwidth_Bps",
        "bandwidth_min_Bps", "bandwidth_median_Bps", "bandwidth_max_Bps", "msg_rate_per_s",
        "msg_rate_min_per_s", "msg_rate_median_per_s", "msg_rate_max_per_s", "bw_time_s"]
bad = []
# the bench's CSV, parsed with the csv module
ref = [r for r in csv.DictReader(open(prefix + "_p2p.csv"))]
# the .nc through ncdump's text: variable = v, v, ... ;
text = subprocess.run(["ncdump", "-p", "17,17", prefix + "_p2p.nc"], check=True, capture_output=True,
                      text=True).stdout.partition("data:")[2]
def var(name):
    m = re.search(r"\n " + name + r" =(.*?);", text, re.S)
    return [x.strip() for x in m.group(1).replace("\n", " ").split(",")]
nc = {c: [float(x) for x in var(c)] for c in COLS}
sizes = [int(x) for x in var("size_bytes")]
for kind, path, tol in (("nc", prefix + ".nc.out", 0), ("csv", prefix + ".csv.out", 0)):
    rows = list(csv.DictReader(open(path)))
    if len(rows) != len(ref):
        bad.append("%s: %d rows, want %d" % (kind, len(rows), len(ref)))
        continue
    S = len(sizes)
    for q, (r, w) in enumerate(zip(rows, ref)):
        if r["pair"] != w["pair"] or r["kind"] != w["kind"] or r["size_bytes"] != w["size_bytes"]:
            bad.append("%s row %d: pair/kind/size %s/%s/%s want %s/%s/%s" % (kind, q, r["pair"], r["kind"],
                       r["size_bytes"], w["pair"], w["kind"], w["size_bytes"]))
        for c in COLS:
            got, want = float(r[c]), float(w[c]) if kind == "csv" else nc[c][q]
            if got != want:
                bad.append("%s row %d %s: %r != %r" % (kind, q, c, got, want))
            # the two files hold the same numbers (the CSV has 9 digits)
            if abs(float(w[c]) - nc[c][q]) > 5e-9 * abs(nc[c][q]):
                bad.append("csv vs nc row %d %s: %r vs %r" % (q, c, w[c], nc[c][q]))
        if int(r["size_bytes"]) != sizes[q % S]:
            bad.append("%s row %d: size %s vs nc %d" % (kind, q, r["size_bytes"], sizes[q % S]))
print("ok" if not bad else "\n".join(bad[:6]))
PYEOF
)
    check_eq "$P: every value against python csv and ncdump, .csv = .nc" "$got" "ok"
done

# Labels, hosts, ranks and the intra/inter flag, as JSON, from the .nc and the .csv.
for F in m_p2p.nc m_p2p.csv b_p2p.nc; do
    "$M" p2p --json "$TMP/$F" >"$TMP/j.json" 2>"$TMP/j.err"
    check_eq "$F: json exit" "$?" "0"
    got=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["pairs"]), d["window"], ";".join("%s|%s|%s|%s|%d|%d|%s" % (p["label"], p["kind"], p["host_a"], p["host_b"], p["rank_a"], p["rank_b"], p["inter"]) for p in d["pairs"]))' "$TMP/j.json")
    case $F in
    m*) check_eq "$F: pairs and labels" "$got" "3 64 intra $HOST, ranks 0-1|intra|$HOST|$HOST|0|1|False;inter $HOST-nodeB, ranks 0-3|inter|$HOST|nodeB|0|3|True;inter nodeB-nodeC, ranks 3-6|inter|nodeB|nodeC|3|6|True" ;;
    b*) check_eq "$F: per-node on one host: one intra pair" "$got" "1 64 intra $HOST, ranks 0-1|intra|$HOST|$HOST|0|1|False" ;;
    esac
done
"$M" p2p "$TMP/m" >"$TMP/table.txt" 2>&1
check_eq "table: one block per pair" "$(grep -c '^pair [0-9]: ' "$TMP/table.txt")" "3"
check_eq "table: one row per size and pair" "$(grep -cE '^[0-9.]+ (B|KiB) ' "$TMP/table.txt")" "$((3 * 20))"
check_match "table: intra and inter named" "$(grep '^pair' "$TMP/table.txt" | tr '\n' ' ')" \
    "pair 0: intra .*within a node.*pair 1: inter .*across nodes.*pair 2: inter .*across nodes"
check_eq "--pair inter picks pair 1" "$("$M" p2p --pair inter --json "$TMP/m" | $PY -c 'import json,sys; print([p["index"] for p in json.load(sys.stdin)["pairs"]])')" "[1]"
check_eq "--pair by label" "$("$M" p2p --pair "inter nodeB-nodeC, ranks 3-6" --csv "$TMP/m" | cut -d, -f1 | sort -u | head -1)" "2"

# Send time: numpy.interp of the median latency inside the sweep; beyond it the last segment.
"$M" p2p --json --send-time 0,3,100,777,4095,100000,262144,1000000 "$TMP/m" >"$TMP/s.json"
got=$($PY - "$TMP/s.json" <<'PYEOF'
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
bad = []
for p in d["pairs"]:
    s = np.array([x["size_bytes"] for x in p["points"]], float)
    L = np.array([x["latency_median_s"] for x in p["points"]])
    for st in p["send_time"]:
        b = st["bytes"]
        if b <= s[-1]:
            want = np.interp(b, s, L)
        else:
            slope = (L[-1] - L[-2]) / (s[-1] - s[-2])
            want = L[-1] + (b - s[-1]) * slope if slope > 0 else \
                L[-1] + (b - s[-1]) / p["points"][-1]["bandwidth_median_Bps"]
        if abs(st["seconds"] - want) > 1e-12 * want:
            bad.append("pair %d %g B: %r want %r" % (p["index"], b, st["seconds"], want))
    # the fit: weighted least squares on relative error, by numpy
    w = 1 / L
    A = np.vstack([np.ones_like(s), s]).T * w[:, None]
    a, b = np.linalg.lstsq(A, L * w, rcond=None)[0]
    f = p["fit"]
    if b > 0 and not (abs(f["alpha_s"] - a) <= 1e-6 * abs(a) + 1e-15 and abs(1 / f["beta_Bps"] - b) <= 1e-6 * b):
        bad.append("pair %d fit %r want alpha %r slope %r" % (p["index"], f, a, b))
print("ok" if not bad else "\n".join(bad))
PYEOF
)
check_eq "send time and fit against numpy" "$got" "ok"
# the text lines in the PDFs' voice: the JSON's seconds and fit written by tests/units.py
# (µs by magnitude, 4 significant digits), never "us"
"$M" p2p --send-time 100 "$TMP/a" > "$TMP/a.txt"
"$M" p2p --json --send-time 100 "$TMP/a" > "$TMP/a.json"
got=$($PY - "$TMP/a.json" "$TMP/a.txt" <<'PYEOF'
import json, sys
sys.path.insert(0, "tests")
import units
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
bad = [] if " us" not in text else ["'us' in the text"]
for p in d["pairs"]:
    for st in p["send_time"]:
        line = "send time of 100 B: %s" % units.time(st["seconds"])
        if line not in text:
            bad.append("no line %r" % line)
    f = p["fit"]
    if f:
        line = "fit: latency = %s + size / (%s MB/s)" % (units.time(f["alpha_s"]), units.num(f["beta_Bps"] * 1e-6))
        if line not in text:
            bad.append("no line %r" % line)
print("ok" if not bad else "\n".join(bad))
PYEOF
)
check_eq "table: send time and fit lines in µs" "$got" "ok"

# Figures: sizes, well-formed SVG with one median and one mean line per pair, reproducible.
check "plots" "$M" p2p --plot-dir "$TMP/plots" "$TMP/m"
check "plots again" "$M" p2p --plot-dir "$TMP/plots2" "$TMP/m"
for f in latency bandwidth msg_rate; do
    check "$f.png byte-identical" cmp "$TMP/plots/p2p_$f.png" "$TMP/plots2/p2p_$f.png"
    check "$f.svg byte-identical" cmp "$TMP/plots/p2p_$f.svg" "$TMP/plots2/p2p_$f.svg"
done
got=$($PY - "$TMP/plots" <<'PYEOF'
import re, struct, sys
import xml.etree.ElementTree as ET
d = sys.argv[1]
out = []
for f in ("latency", "bandwidth", "msg_rate"):
    png = open("%s/p2p_%s.png" % (d, f), "rb").read()
    w, h = struct.unpack(">II", png[16:24])
    ok_png = png[:8] == b"\x89PNG\r\n\x1a\n" and (w, h) == (900, 560)
    root = ET.parse("%s/p2p_%s.svg" % (d, f)).getroot()
    paths = [p.get("style", "") + "|" + p.get("d", "") for p in root.iter("{http://www.w3.org/2000/svg}path")]
    # data lines are the only round-joined strokes: per pair a solid median and a dashed mean
    lines = [p for p in paths if "stroke-linejoin:round" in p]
    solid = [p for p in lines if "dasharray" not in p]
    dashed = [p for p in lines if "dasharray" in p]
    # one unbroken median line per pair (cairo merges collinear segments, so at most 18 of them)
    one = all(p.split("|")[1].count("M ") == 1 and 1 <= p.split("|")[1].count(" L ") <= 18 for p in solid)
    # markers: one per drawn point (sizes 0 .. 256 KiB; no 0 B bandwidth) plus the legend's
    marks = {}
    for p in paths:
        m = re.search(r"fill:(rgb\([^)]*\))", p)
        if m and "stroke:none" in p and m.group(1) not in ("rgb(100%,100%,100%)", "rgb(30%,30%,30%)", "rgb(0%,0%,0%)"):
            marks[m.group(1)] = marks.get(m.group(1), 0) + 1
    out.append("%s png=%s solid=%d dashed=%d one=%s marks=%s" % (f, ok_png, len(solid), len(dashed), one,
                                                                 sorted(marks.values())))
print("; ".join(out))
PYEOF
)
check_eq "figures: PNG 900x560, 3 solid + 3 dashed lines, a marker per point" "$got" \
    "latency png=True solid=3 dashed=3 one=True marks=[21, 21, 21]; bandwidth png=True solid=3 dashed=3 one=True marks=[20, 20, 20]; msg_rate png=True solid=3 dashed=3 one=True marks=[21, 21, 21]"
check "plots --size --stem --pair" "$M" p2p --plot-dir "$TMP/small" --stem one --size 640x400 --pair 1 "$TMP/m"
check_eq "--size 640x400" "$($PY -c 'import struct,sys; print(struct.unpack(">II", open(sys.argv[1],"rb").read()[16:24]))' "$TMP/small/one_latency.png")" "(640, 400)"
check_eq "--pair: one pair in the figure" "$(grep -c 'stroke-linejoin:round' "$TMP/small/one_bandwidth.svg")" "2"

# Errors: a clear message naming the file, exit 1; bad usage exit 2; nothing written.
check_exit "missing prefix" 1 "$M" p2p "$TMP/nothing"
check_match "missing prefix: message" "$(cat "$TMP/err")" "nothing: neither .*nothing_p2p.nc nor .*nothing_p2p.csv exists"
{ head -n 10 "$TMP/a_p2p.csv"; sed -n 11p "$TMP/a_p2p.csv" | cut -d, -f1-5 | tr -d '\n'; } >"$TMP/cut_p2p.csv"
check_exit "truncated csv" 1 "$M" p2p "$TMP/cut_p2p.csv"
check_match "truncated csv: file and line" "$(cat "$TMP/err")" "cut_p2p.csv:11: 5 fields, the header has 24 \(file truncated\?\)"
sed '5s/,intra,/,x,/' "$TMP/a_p2p.csv" >"$TMP/kind_p2p.csv"
check_exit "inconsistent labels" 1 "$M" p2p "$TMP/kind_p2p.csv"
check_match "inconsistent labels: line 5" "$(cat "$TMP/err")" "kind_p2p.csv:5: pair 0 is 'x,"
sed '7s/^[0-9]*,[^,]*,/32,abc,/' "$TMP/a_p2p.csv" >"$TMP/num_p2p.csv"
check_exit "bad number" 1 "$M" p2p "$TMP/num_p2p.csv"
check_match "bad number: line and column" "$(cat "$TMP/err")" "num_p2p.csv:7: column 'latency_s': 'abc' is not a number"
head -c 2000 "$TMP/a_p2p.nc" >"$TMP/cut_p2p.nc"
check_exit "truncated nc" 1 "$M" p2p "$TMP/cut_p2p.nc"
check_match "truncated nc: names the file" "$(cat "$TMP/err")" "cut_p2p.nc: "
printf 'this is no netcdf file\n' >"$TMP/junk_p2p.nc"
check_exit "junk nc" 1 "$M" p2p "$TMP/junk_p2p.nc"
check_match "junk nc: message" "$(cat "$TMP/err")" "junk_p2p.nc: not a readable NetCDF file"
CUBE=$(ls "$DATA"/network-tests2/*/*_median.nc 2>/dev/null | head -1)
if [ -n "$CUBE" ]; then
    check_exit "a cube file" 1 "$M" p2p "$CUBE"
    check_match "a cube file: not p2p" "$(cat "$TMP/err")" "not a p2p file from mpilens-bench -t p2p"
fi
check_exit "no such pair" 1 "$M" p2p --pair 7 "$TMP/m"
check_match "no such pair: message" "$(cat "$TMP/err")" "m_p2p.nc: no pair 7 \(the file has 3"
: >"$TMP/afile"
check_exit "plot dir is a file" 1 "$M" p2p --plot-dir "$TMP/afile/x" "$TMP/a"
check "plot dir is a file: the file untouched" test -f "$TMP/afile" -a ! -s "$TMP/afile"
check_exit "missing font" 1 "$M" p2p --plot-dir "$TMP/f" --font "$TMP/none.ttf" "$TMP/a"
check_eq "missing font: no figure left" "$(ls "$TMP/f" 2>/dev/null | wc -l)" "0"
check_exit "no input" 2 "$M" p2p
check_exit "two inputs" 2 "$M" p2p "$TMP/a" "$TMP/b"
check_exit "--json --csv" 2 "$M" p2p --json --csv "$TMP/a"
check_exit "bad --send-time" 2 "$M" p2p --send-time 12,x "$TMP/a"
check_exit "negative --send-time" 2 "$M" p2p --send-time -5 "$TMP/a"
check_exit "bad --size" 2 "$M" p2p --size 20x10 --plot-dir "$TMP/z" "$TMP/a"
check_exit "unknown option" 2 "$M" p2p --bogus "$TMP/a"
check_match "--help has an example" "$("$M" p2p --help)" "example:"
finish test_p2pfile
