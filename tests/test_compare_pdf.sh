#!/usr/bin/env bash
# mpilens compare -o FILE.pdf: page one holds the verdict, the test and the findings that
# --json gives (read back with pdftotext, compared key by key); the ratio map and the
# histograms are images on their pages with their captions; --figures writes the same figures
# as PNG and SVG; the PDF is byte-identical under SOURCE_DATE_EPOCH, valid for poppler
# (no warnings), and a failure leaves no file; two sweeps get both curves per pair. Also the demo pair: synth32 against its
# repaired copy is "improved".
. tests/lib.sh
PY=${PYTHON:-/usr/bin/python3}
M="$BIN/mpilens"
export SOURCE_DATE_EPOCH=1795219200

syn() { local d=$1 s=$2; shift 2; "$M" synth -o "$TMP/$d/network" --force --seed "$s" "$@" >/dev/null 2>&1 || fail "synth $d"; }
field() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- a link 3 -> 5 and node04's links slower: two findings of two kinds
syn base 1; syn new 2 --bad-link 3,5 --slow-node 3
"$M" compare --json "$TMP/base/network" "$TMP/new/network" >"$TMP/c.json" || fail "compare --json"
"$M" compare -o "$TMP/c.pdf" "$TMP/base/network" "$TMP/new/network" >"$TMP/c.txt" 2>"$TMP/err" || fail "compare -o"
check "the PDF exists" test -s "$TMP/c.pdf"
pdftotext -f 1 -l 1 -layout "$TMP/c.pdf" "$TMP/p1.txt" 2>"$TMP/poppler1" || fail "pdftotext"
check_eq "poppler has no warning" "$(cat "$TMP/poppler1")" ""
check_match "page one: the verdict of --json" "$(grep -E '^ *verdict' "$TMP/p1.txt")" "verdict +$(field "$TMP/c.json" 'd["verdict"]')$"
check_match "page one: matched by host" "$(cat "$TMP/p1.txt")" "ranks matched by +host and local rank"
check_match "page one: the test" "$(cat "$TMP/p1.txt")" "test +$(field "$TMP/c.json" 'd["test"]'):"
check_match "page one: tests and significant as --json" "$(tr -s ' \n' ' ' <"$TMP/p1.txt")" \
    "$(field "$TMP/c.json" 'd["tests"]') pair-and-length tests .* $(field "$TMP/c.json" 'd["significant"]') significant"
# every finding of --json is one row of the table: kind, direction, ranks, ratio, p
cat >"$TMP/rows.py" <<'EOF'
import json, re, sys
sys.path.insert(0, "tests")
from units import num
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
flat = " ".join(text.split())
bad = []
for f in d["findings"]:
    r = f["ranks"]
    ranks = ("all %d" % len(r)) if f["kind"] == "machine" else (" -> " if f["kind"] == "link" else ", ").join(map(str, r[:12]))
    p = "-" if f["p"] is None else num(f["p"], 2)
    # the row starts with kind and direction and holds the ranks, the ratio and p
    pat = re.escape(f["kind"]) + r"\s+" + re.escape(f["direction"])
    if not re.search(pat, text):
        bad.append("no row %s %s" % (f["kind"], f["direction"]))
    for want in (ranks.split(", ")[0], "%.3fx" % f["ratio"], p):
        if want not in flat:
            bad.append("%s %s: %r missing" % (f["kind"], f["direction"], want))
print(len(d["findings"]), "; ".join(bad) or "ok")
EOF
read -r nf rows < <("$PY" "$TMP/rows.py" "$TMP/c.json" "$TMP/p1.txt")
check "two findings or more to compare" test "$nf" -ge 2
check_eq "page one: each finding of --json in the table" "$rows" ok
check_match "page one: the bad link as a row" "$(cat "$TMP/p1.txt")" "link +slower +3 -> 5"
check_match "page one: findings count" "$(cat "$TMP/p1.txt")" "Findings \($nf\)"

# ---- the figures: images on pages 2 and 3, with their captions
pdfimages -list "$TMP/c.pdf" >"$TMP/img.txt" 2>&1 || fail "pdfimages"
check_eq "two images, on pages 2 and 3" "$(awk 'NR > 2 { print $1 }' "$TMP/img.txt" | tr '\n' ' ')" "2 3 "
check "images at 300 ppi or more" awk 'NR > 2 && ($13 < 300 || $14 < 300) { exit 1 }' "$TMP/img.txt"
pdftotext -f 2 -l 2 "$TMP/c.pdf" "$TMP/p2.txt"
check_match "page 2: the ratio map's caption" "$(tr '\n' ' ' <"$TMP/p2.txt")" "Figure 1: the ratio NEW / BASE"
pdftotext -f 3 -l 3 "$TMP/c.pdf" "$TMP/p3.txt"
check_match "page 3: the histograms' caption" "$(tr '\n' ' ' <"$TMP/p3.txt")" "Figure 2: histograms"
check_match "last page: references" "$(pdftotext "$TMP/c.pdf" - | tr '\n' ' ')" "Benjamini, Y. Hochberg"

# ---- the map's colours: the slow link red, an unchanged pair near white (the PNG of --figures)
"$M" compare -o "$TMP/f.pdf" --figures "$TMP/figs" "$TMP/base/network" "$TMP/new/network" >/dev/null || fail "--figures"
check_eq "--figures: PNG and SVG of both" "$(ls "$TMP/figs" | tr '\n' ' ')" "histograms.png histograms.svg ratiomap.png ratiomap.svg "
check "--figures does not change the PDF" cmp "$TMP/c.pdf" "$TMP/f.pdf"
cat >"$TMP/pix.py" <<'EOF'
import sys, zlib, struct
def png(path):
    b = open(path, "rb").read(); pos = 8; idat = b""; w = h = 0
    while pos < len(b):
        n, t = struct.unpack(">I4s", b[pos:pos + 8]); d = b[pos + 8:pos + 8 + n]; pos += 12 + n
        if t == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", d[:10])
        if t == b"IDAT": idat += d
    raw = zlib.decompress(idat); bpp = 3 if ctype == 2 else 4; stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; c = prev[x - bpp] if x >= bpp else 0; up = prev[x]
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + up) & 255
            elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
            elif f == 4:
                p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, bpp, rows
w, h, bpp, rows = png(sys.argv[1])
# the map's box from the heatmap's default layout is not exported here: find the reddest and
# the whitest pixels in the left 70 % (the map; the colour bar and histogram are to the right)
red = white = 0
for y in range(h):
    for x in range(int(w * 0.68)):
        r, g, b = rows[y][x * bpp:x * bpp + 3]
        red += r > g + 60 and r > b + 40
        white += r > 240 and g > 240 and b > 240
print(int(red > 0), int(white > 1000))
EOF
check_eq "ratio map: a red cell (the slow link) and white (unchanged pairs)" "$("$PY" "$TMP/pix.py" "$TMP/figs/ratiomap.png")" "1 1"

# ---- byte-identical, atomic
"$M" compare -o "$TMP/c2.pdf" "$TMP/base/network" "$TMP/new/network" >/dev/null || fail "second run"
check "byte-identical under SOURCE_DATE_EPOCH" cmp "$TMP/c.pdf" "$TMP/c2.pdf"
check_exit "an unwritable -o" 1 "$M" compare -o "$TMP/nodir/x.pdf" "$TMP/base/network" "$TMP/new/network"
check_match "unwritable -o: the message names it" "$(cat "$TMP/err")" "nodir/x.pdf"
check_exit "a missing input" 1 "$M" compare -o "$TMP/m.pdf" "$TMP/base/network" "$TMP/none/network"
check "a failure leaves no PDF" test ! -e "$TMP/m.pdf"
check_eq "no temporary left" "$(ls -a "$TMP" | grep -c '\.tmp\|~' || true)" 0

# ---- two sweeps: page one, the two curves per pair in the map's place, no histograms
cat >"$TMP/sweep.py" <<'EOF'
import sys, random
out, seed, fac = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
random.seed(seed)
hdr="size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s,bw_time_s,window,round_trips_per_iter,lat_iters,bw_iters,pair,kind,rank_a,rank_b,host_a,host_b"
rows=[hdr]
for size in [0,1,2,4,8,16,32,64,128,256,512,1024,2048,4096]:
    t = (1.5e-6 + size/10e9) * (1 + 0.01*random.gauss(0,1)) * (fac if size == 1024 else 1)
    bw = size/t if size else 0
    rows.append(f"{size},{t:.9g},{t*0.9:.9g},{t*0.99:.9g},{t*1.2:.9g},{bw:.9g},{bw*0.9:.9g},{bw:.9g},{bw*1.1:.9g},{1/t:.9g},{0.9/t:.9g},{1/t:.9g},{1.1/t:.9g},{t*64:.9g},64,10,1000,100,0,inter,0,2,n01,n02")
open(out,"w").write("\n".join(rows)+"\n")
EOF
"$PY" "$TMP/sweep.py" "$TMP/a_p2p.csv" 1 1; "$PY" "$TMP/sweep.py" "$TMP/b_p2p.csv" 2 1.5
"$M" compare -o "$TMP/s.pdf" "$TMP/a_p2p.csv" "$TMP/b_p2p.csv" >/dev/null 2>"$TMP/err" || fail "sweeps -o"
check_match "sweeps: verdict and range test on page one" "$(pdftotext -f 1 -l 1 -layout "$TMP/s.pdf" - | tr -s ' \n' ' ')" \
    "verdict regressed .* welch-range"
check_match "sweeps: the curves' caption" "$(pdftotext "$TMP/s.pdf" - | tr '\n' ' ')" "Figure 1: two p2p sweeps"
check_eq "sweeps: one image, on page 2" "$(pdfimages -list "$TMP/s.pdf" | awk 'NR > 2 { print $1 }' | tr '\n' ' ')" "2 "
check_match "sweeps: no histograms, a sentence" "$(pdftotext "$TMP/s.pdf" - | tr '\n' ' ')" "no distribution of pairs per length"

# ---- the demo pair: samples/cubes/synth32 against its repaired copy (same seed, no faults)
S=samples/cubes/synth32/network
"$M" synth -o "$TMP/rep/network" --procs 32 --nodes 4 --sockets 2 --seed 20261121 >/dev/null 2>&1 || fail "repaired copy"
"$M" compare --json "$S" "$TMP/rep/network" >"$TMP/demo.json" || fail "demo compare"
check_eq "demo: improved" "$(field "$TMP/demo.json" 'd["verdict"]')" improved
check_eq "demo: node03 faster" "$(field "$TMP/demo.json" '[(f["kind"], f["direction"], f["hosts"]) for f in d["findings"]]')" \
    "[('node', 'faster', ['node03'])]"

finish test_compare_pdf
