#!/usr/bin/env bash
# mpilens scale report: the PDF of the paper sample checked with poppler against
# `scale marks --json` and an independent Python rendering of the sentences (pages, apps,
# metric rows, the three ranked tables in order, bookmarks, images, figure files), byte-identical
# output, missing and failed configurations, every error path, and a real end-to-end run of
# `scale run` on samples/apps/dot followed by `scale report`.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
APPS=$BIN/samples
PAPER=samples/scale/paper.csv
export SOURCE_DATE_EPOCH=1715860800
# poppler warns about libharu 2.3's ToUnicode CMaps, a known harmless defect
text() { pdftotext -layout "$1" - | tr -d '\f'; }
pages() { pdfinfo "$1" 2>/dev/null | sed -n 's/^Pages: *//p'; }
outline() {
    $PY - "$1" <<'EOF'
import re, sys
raw = open(sys.argv[1], "rb").read()
print(raw.count(b"/Dest "))
for h in re.findall(rb"/Title <FEFF([0-9A-F]*)>", raw):
    print(bytes.fromhex(h.decode()).decode("utf-16-be"))
EOF
}

# Checks a report's text against `scale marks --json` of the same runs: every app as a heading,
# its metric row (grid corners whole, marks and efficiencies to 4 significant digits,
# tests/units.py), its three sentences computed here from templates/scale.txt, and the three
# ranked tables in the JSON's order with 4-digit marks.
cat >"$TMP/verify.py" <<'EOF'
import json, re, sys
sys.path.insert(0, "tests")
from units import num as sig
j = json.load(open(sys.argv[1])); lines = open(sys.argv[2]).read().splitlines()
texts = {}
for l in open("templates/scale.txt"):
    if "=" in l and not l.startswith("#"):
        k, v = l.split("=", 1); texts[k.strip()] = v.strip()
th = [float(texts["threshold." + k]) for k in ("flat", "moderate", "strong")]
def sentence(kind, m):
    if m is None:
        return texts["none"]
    a = abs(m)
    if a < th[0]:
        return texts[kind + ".flat"].replace("{mark}", sig(m))
    word = texts["strength." + ("weak" if a < th[1] else "moderate" if a < th[2] else "strong")]
    key = kind + (".falls" if m < 0 else ".rises")
    return texts[key].replace("{strength}", word).replace("{mark}", sig(m))
def num(v, fmt):
    return "-" if v is None else fmt(v)
whole = lambda v: "%.0f" % v if v == int(v) else sig(v)
stripped = [l.strip() for l in lines]
errors = []
for a in j["apps"]:
    # the heading: the app's name on a line of its own, followed by "Application k of n"
    at = [i for i in range(len(stripped) - 1) if stripped[i] == a["app"] and stripped[i + 1].startswith("Application ")]
    if len(at) != 1:
        errors.append("%d headings for %s" % (len(at), a["app"]))
        continue
    at = at[0]
    page = stripped[at:at + 60]
    row = " ".join(num(a[k], whole) for k in ("min_p", "max_p", "min_d", "max_d")) + " " + \
          " ".join(num(a[k], sig) for k in ("mark_procs", "mark_data", "mark_all", "max_e", "min_e"))
    if not any(" ".join(l.split()) == row for l in page):
        errors.append("%s: no metric row '%s'" % (a["app"], row))
    for label, kind, key in (("MarkProcs", "procs", "mark_procs"), ("MarkData", "data", "mark_data"),
                             ("MarkAll", "all", "mark_all")):
        want = label + ": " + sentence(kind, a[key])
        if want not in page:
            errors.append("%s: no sentence '%s'" % (a["app"], want))
marks = {a["app"]: a for a in j["apps"]}
titles = ["Table 1. Applications by processes, ascending MarkProcs",
          "Table 2. Applications by problem size, ascending MarkData",
          "Table 3. Applications overall, ascending MarkAll"]
starts = [stripped.index(t) if t in stripped else -1 for t in titles]
if -1 in starts or starts != sorted(starts):
    errors.append("ranked tables missing or out of order: %s" % starts)
else:
    for t, (key, mk) in enumerate((("rank_procs", "mark_procs"), ("rank_data", "mark_data"), ("rank_all", "mark_all"))):
        end = starts[t + 1] if t < 2 else len(lines)
        rows = [l.split() for l in lines[starts[t]:end] if re.match(r"^ *[0-9]+ +\S+ +\S+$", l)]
        got = [r[1] for r in rows]
        if got != j[key]:
            errors.append("%s: order %s, want %s" % (key, got, j[key]))
        for r, (rank, app, val) in enumerate(rows):
            want = num(marks[app][mk], sig) if app in marks else "?"
            if rank != str(r + 1) or val != want:
                errors.append("%s row %d: %s %s %s, want %s" % (key, r + 1, rank, app, val, want))
print("\n".join(errors), file=sys.stderr)
sys.exit(1 if errors else 0)
EOF

# ---- the paper sample, with figures ----
check "marks json" $M scale marks $PAPER --json
$M scale marks $PAPER --json >"$TMP/paper.json"
check "report of the paper sample" $M scale report $PAPER -o "$TMP/paper.pdf" --figures "$TMP/fig"
text "$TMP/paper.pdf" >"$TMP/paper.txt"
t=$(cat "$TMP/paper.txt")
napps=$($PY -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["apps"]))' "$TMP/paper.json")
check_eq "eight applications" "$napps" 8
# title page, one page per application, the comparison (intro + tables 1-2, then table 3)
check_eq "page count" "$(pages "$TMP/paper.pdf")" $((1 + napps + 2))
for i in $(seq 1 11); do check_match "footer of page $i" "$t" "page $i of 11"; done
check "apps, metric rows, sentences and ranked tables agree with marks --json" \
    $PY "$TMP/verify.py" "$TMP/paper.json" "$TMP/paper.txt"
check_match "the issue's sentence" "$t" "MarkProcs: efficiency falls as processes grow, strongly: -0\.0436"
check_match "title" "$t" "Scalability report"
check_match "date from SOURCE_DATE_EPOCH" "$t" "2024-05-16 12:00:00 UTC"
check_match "runs file named by its last two parts" "$t" "runs files +scale/paper\.csv"
check_match "axes of linpack" "$t" "processes 1, 2, 4, 8, 16, problem sizes"
check_eq "pdf title" "$(pdfinfo "$TMP/paper.pdf" 2>/dev/null | sed -n 's/^Title: *//p')" "Scalability report"
check_eq "pdf creation date" "$(pdfinfo "$TMP/paper.pdf" 2>/dev/null | sed -n 's/^CreationDate: *//p')" \
    "Thu May 16 12:00:00 2024 UTC"
check_eq "one surface image per application" "$(pdfimages -list "$TMP/paper.pdf" 2>/dev/null | awk 'NR > 2' | wc -l)" 8
# each application's page holds its own figure: page of image k is k + 1
check_eq "images on pages 2..9" "$(pdfimages -list "$TMP/paper.pdf" 2>/dev/null | awk 'NR > 2 { printf "%s ", $1 }')" \
    "2 3 4 5 6 7 8 9 "

# bookmarks: per app its heading and three subsections, then the comparison and its tables, and
# (since issue 14) the references
outl=$(outline "$TMP/paper.pdf")
check_eq "outline entries" "$(printf '%s\n' "$outl" | head -n 1)" $((4 * napps + 5))
for a in $($PY -c 'import json, sys; print(" ".join(a["app"] for a in json.load(open(sys.argv[1]))["apps"]))' "$TMP/paper.json"); do
    check_eq "bookmark $a" "$(printf '%s\n' "$outl" | grep -cx -- "$a")" 1
done
for b in "Efficiency surface" "Metric" "What the marks say"; do
    check_eq "bookmark '$b' per app" "$(printf '%s\n' "$outl" | grep -cx "$b")" "$napps"
done
for b in "Comparison of the applications" "Table 1. Applications by processes, ascending MarkProcs" \
    "Table 2. Applications by problem size, ascending MarkData" "Table 3. Applications overall, ascending MarkAll"; do
    check_eq "bookmark '$b'" "$(printf '%s\n' "$outl" | grep -cxF "$b")" 1
done

# figure files: PNG 1100 x 520 and SVG that parses, one pair per application
check_eq "figure files" "$(ls "$TMP/fig" | wc -l)" $((2 * napps))
check "figures parse" $PY - "$TMP/fig" <<'EOF'
import struct, sys, xml.etree.ElementTree as ET
for a in ("linpack", "matmul", "matvec", "cholesky", "gauss-forward", "doubling", "vecsum", "dot"):
    b = open("%s/%s_surface.png" % (sys.argv[1], a), "rb").read(24)
    assert b[:8] == b"\x89PNG\r\n\x1a\n", a
    assert struct.unpack(">II", b[16:24]) == (1100, 520), a
    ET.parse("%s/%s_surface.svg" % (sys.argv[1], a))
EOF

# deterministic with SOURCE_DATE_EPOCH
check "second run" $M scale report $PAPER -o "$TMP/paper2.pdf"
check "byte-identical" cmp -s "$TMP/paper.pdf" "$TMP/paper2.pdf"

# ---- holes, failed runs, an application with no valid run, a title and other texts ----
$PY - "$TMP/holes.csv" <<'EOF'
import random, sys
random.seed(9173)
with open(sys.argv[1], "w") as f:
    f.write("# grids with holes\napp,procs,size,efficiency,status\n")
    for p in (1, 3, 6, 12):
        for d in (250, 700, 1900):
            if (p, d) == (6, 700):
                f.write("jac/ob,%d,%d,,timeout\n" % (p, d)); continue
            f.write("jac/ob,%d,%d,%.9f,ok\n" % (p, d, random.uniform(0.2, 1.0)))
            f.write("jac_ob,%d,%d,%.9f,ok\n" % (p, d, random.uniform(0.2, 1.0)))
    f.write("ghost,2,100,,failed\nghost,4,100,,failed\n")
    f.write("single,4,100,0.5,ok\n")
EOF
printf 'procs.falls = drops with more processes: {mark}\nprocs.rises = grows with more processes: {mark}\n' >"$TMP/texts.txt"
check "report with holes" $M scale report "$TMP/holes.csv" -o "$TMP/holes.pdf" --figures "$TMP/fig2" \
    --title "Масштабируемость «Ломоносов»" --texts "$TMP/texts.txt"
$M scale marks "$TMP/holes.csv" --json >"$TMP/holes.json"
text "$TMP/holes.pdf" >"$TMP/holes.txt"
t=$(cat "$TMP/holes.txt")
check_match "cyrillic title" "$t" "Масштабируемость «Ломоносов»"
check_match "cyrillic title in the pdf info" "$(pdfinfo "$TMP/holes.pdf" 2>/dev/null)" "Title: +Масштабируемость"
check_match "--texts sentence" "$t" "MarkProcs: (drops|grows) with more processes: "
sed -i 's/^procs\.\(falls\|rises\) = .*$//' "$TMP/texts.txt"
check_match "ghost has no surface" "$t" "No configuration of ghost has a valid run"
check_match "timed-out run noted" "$t" "1 run of jac/ob failed or timed out"
check_match "ghost failures noted" "$t" "2 runs of ghost failed or timed out"
check_match "single configuration: no mark" "$t" "MarkAll: no mark: the grid needs at least two"
check_eq "images: jac/ob, jac_ob, single" "$(pdfimages -list "$TMP/holes.pdf" 2>/dev/null | awk 'NR > 2' | wc -l)" 3
check_eq "clashing names get distinct figure files" "$(ls "$TMP/fig2" | tr '\n' ' ')" \
    "jac_ob_2_surface.png jac_ob_2_surface.svg jac_ob_surface.png jac_ob_surface.svg single_surface.png single_surface.svg "
# the sentences of the other marks are the built-in ones: check all with --texts left out
check "report with holes, built-in texts" $M scale report "$TMP/holes.csv" -o "$TMP/holes2.pdf"
text "$TMP/holes2.pdf" >"$TMP/holes2.txt"
check "holes: rows, sentences and rankings agree with marks --json" $PY "$TMP/verify.py" "$TMP/holes.json" "$TMP/holes2.txt"

# ---- errors: exit status, a message naming the file, nothing written ----
printf 'app,procs,size,efficiency\nmm,1,100,0.9\nmm,-4,100,0.5\n' >"$TMP/bad.csv"
check_exit "bad csv" 1 $M scale report "$TMP/bad.csv" -o "$TMP/bad.pdf"
check_match "bad csv names file:line" "$(cat "$TMP/err")" "bad\.csv:3:[0-9]+: procs '-4' must be a positive integer"
check_exit "missing csv" 1 $M scale report "$TMP/nothere.csv" -o "$TMP/bad.pdf"
check_match "missing csv named" "$(cat "$TMP/err")" "nothere\.csv"
check_eq "no pdf after bad input" "$(ls "$TMP" | grep -c '^bad\.pdf')" 0
mkdir -p "$TMP/ro"
check_exit "unwritable output" 1 $M scale report $PAPER -o "$TMP/ro/nodir/x.pdf"
check_match "unwritable output named" "$(cat "$TMP/err")" "ro/nodir/x\.pdf"
check_exit "output in /proc" 1 $M scale report $PAPER -o /proc/mpilens-scale.pdf
check_match "/proc output named" "$(cat "$TMP/err")" "/proc/mpilens-scale\.pdf"
check_eq "nothing left in the output directory" "$(ls -A "$TMP/ro")" ""
printf 'section title\ntitle x\nsection clusters\n' >"$TMP/bad.tmpl"
check_exit "unknown template section" 1 $M scale report $PAPER -o "$TMP/x.pdf" --template "$TMP/bad.tmpl"
check_match "template error names file and line" "$(cat "$TMP/err")" "bad\.tmpl:3: unknown section 'clusters'"
printf 'section app\nh1 ${app}\n' >"$TMP/norepeat.tmpl"
check_exit "per-app section outside repeat" 1 $M scale report $PAPER -o "$TMP/x.pdf" --template "$TMP/norepeat.tmpl"
check_match "outside repeat named" "$(cat "$TMP/err")" "norepeat\.tmpl:1: section 'app' belongs inside 'repeat inputs'"
printf 'repeat inputs\nsection app\nh1 ${nosuch}\nend\n' >"$TMP/var.tmpl"
check_exit "unknown placeholder" 1 $M scale report $PAPER -o "$TMP/x.pdf" --template "$TMP/var.tmpl"
check_match "unknown placeholder named" "$(cat "$TMP/err")" "var\.tmpl:3"
printf 'repeat inputs\nsection app\ntable metrics\ncolumn left 0 x\nend\n' >"$TMP/cols.tmpl"
check_exit "metric table with 1 column" 1 $M scale report $PAPER -o "$TMP/x.pdf" --template "$TMP/cols.tmpl"
check_match "column count named" "$(cat "$TMP/err")" "cols\.tmpl:3: table 'metrics' needs 9 columns"
printf 'section ranking\nblock figures\n' >"$TMP/blk.tmpl"
check_exit "unknown block" 1 $M scale report $PAPER -o "$TMP/x.pdf" --template "$TMP/blk.tmpl"
check_match "unknown block named" "$(cat "$TMP/err")" "blk\.tmpl:2: section 'ranking' has no block 'figures'"
printf 'procs.falls = ok\nbogus line\n' >"$TMP/badtexts.txt"
check_exit "bad texts file" 1 $M scale report $PAPER -o "$TMP/x.pdf" --texts "$TMP/badtexts.txt"
check_match "texts error names file:line" "$(cat "$TMP/err")" "badtexts\.txt:2"
mkdir -p "$TMP/emptydata"
MPILENS_DATADIR=$TMP/emptydata check_exit "datadir without fonts" 1 $M scale report $PAPER -o "$TMP/x.pdf"
check_match "datadir error names it" "$(cat "$TMP/err")" "MPILENS_DATADIR=.*emptydata"
: >"$TMP/figfile"
check_exit "figures dir is a file" 1 $M scale report $PAPER -o "$TMP/x.pdf" --figures "$TMP/figfile"
check_match "figures dir named" "$(cat "$TMP/err")" "figfile"
check_eq "no pdf after errors" "$(ls "$TMP" | grep -c '^x\.pdf')" 0
check_eq "no temporary files left" "$(ls -A "$TMP" | grep -c '\.tmp[0-9]')" 0
check_exit "no -o" 2 $M scale report $PAPER
check_exit "no file" 2 $M scale report -o "$TMP/x.pdf"
check_exit "bad elevation" 2 $M scale report $PAPER -o "$TMP/x.pdf" --elevation 95
check_exit "help" 0 $M scale --help
check_match "help has a report example" "$(cat "$TMP/out")" "scale report samples/scale/paper\.csv -o scale\.pdf"

# ---- end to end: measure a tiny grid of samples/apps/dot, then report it ----
if [ -x "$APPS/dot" ] && command -v mpirun >/dev/null; then
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
    check "scale run dot: 1-2 processes, 2 sizes" $M scale run --procs 1,2 --sizes 30000,90000 \
        --timeout 60 -o "$TMP/dot.csv" -- "$APPS/dot" '{size}' 5
    check_eq "four ok runs" "$(grep -c ',ok$' "$TMP/dot.csv")" 4
    check "report of the measured grid" $M scale report "$TMP/dot.csv" -o "$TMP/dot.pdf" --title "dot on $(hostname)"
    $M scale marks "$TMP/dot.csv" --json >"$TMP/dot.json"
    text "$TMP/dot.pdf" >"$TMP/dot.txt"
    check_eq "measured report: title, one app with its performance surface, comparison" "$(pages "$TMP/dot.pdf")" 4
    check "measured report agrees with marks --json" $PY "$TMP/verify.py" "$TMP/dot.json" "$TMP/dot.txt"
    check_match "measured axes" "$(cat "$TMP/dot.txt")" "processes 1, 2, problem sizes 30000,"
    check_eq "measured efficiency and performance surfaces embedded" "$(pdfimages -list "$TMP/dot.pdf" 2>/dev/null | awk 'NR > 2' | wc -l)" 2
else
    fail "bench apps or mpirun missing: $APPS/dot"
fi

finish test_scale_report
