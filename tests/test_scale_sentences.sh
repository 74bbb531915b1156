#!/usr/bin/env bash
# scale.pdf behind its marks (docs/scale.md, "Sentences" and "Raw times"): a runs file with
# repeats over two placements, written here; Python recomputes from the CSV alone each
# configuration's runs, best, median, max, spread, speed-up (S = T1 / Tp of the best times,
# "-" without a p = 1 run at that size) and efficiency (E = T1 / (p Tp)), Teplov's
# marks (docs/methods.md section 8) and each sentence's word from the thresholds read out of
# templates/scale.txt. The PDF's "Raw times" table, sentences and threshold note must say the
# same; with --texts moving the thresholds, the words and the note follow.
. tests/lib.sh
PY=/usr/bin/python3
export SOURCE_DATE_EPOCH=1700000000

# flat scales perfectly; slight and mild lose a little; steep halves its efficiency per doubling
cat > "$TMP/runs.csv" <<'EOF'
app,placement,procs,size,time,status
flat,core,1,100,8,ok
flat,slot,1,100,8.4,ok
flat,core,2,100,4,ok
flat,slot,2,100,4.6,ok
flat,core,2,100,4.2,ok
flat,core,4,100,2,ok
flat,core,1,200,16,ok
flat,core,2,200,8,ok
flat,core,4,200,4,ok
flat,slot,4,200,,failed
mild,core,1,100,8,ok
mild,core,2,100,4.04,ok
mild,core,4,100,2.04,ok
mild,slot,4,100,3,ok
mild,core,1,200,16,ok
mild,core,2,200,8.1,ok
mild,core,4,200,4.1,ok
steep,core,1,100,8,ok
steep,core,2,100,8,ok
steep,slot,2,100,9,ok
steep,core,4,100,8,ok
steep,core,1,200,16,ok
steep,core,2,200,16,ok
steep,core,4,200,16,ok
steep,slot,4,200,20,ok
slight,core,1,100,8,ok
slight,core,2,100,4.004,ok
slight,core,4,100,2.004,ok
slight,core,1,200,16,ok
slight,core,2,200,8.008,ok
slight,core,4,200,4.008,ok
EOF

cat > "$TMP/ref.py" <<'EOF'
import sys, csv, statistics
sys.path.insert(0, "tests")
from units import num
runs, texts = sys.argv[1], sys.argv[2]
thr = {}
for line in open(texts):
    line = line.strip()
    if line and not line.startswith("#") and "=" in line:
        k, v = (s.strip() for s in line.split("=", 1))
        thr[k] = v
cfg = {}
for r in csv.DictReader(open(runs)):
    if r["status"] == "ok":
        cfg.setdefault(r["app"], {}).setdefault((float(r["procs"]), float(r["size"])), []).append(float(r["time"]))
# the PDF's cells: 4 significant digits, fixed notation (tests/units.py)
def g(x): return num(x)
# a third argument: efficiencies from a performance model (not recomputed here; speed-ups and
# times still are); the marks below need the serial reference, so they are skipped
model = len(sys.argv) > 3
for app, c in cfg.items():
    if not model:
        eff = {k: min(c[(1.0, k[1])]) / (k[0] * min(v)) for k, v in c.items()}
    for (p, d) in sorted(c, key=lambda k: (k[1], k[0])):
        t = sorted(c[(p, d)])
        med = statistics.median(t)
        spread = "%.1f %%" % (100 * (t[-1] - t[0]) / med) if len(t) > 1 else "-"
        one = c.get((1.0, d))
        speedup = g(min(one) / t[0]) if one else "-"
        print("row", app, "%g" % p, "%g" % d, len(t), g(t[0]), g(med), g(t[-1]), spread, speedup,
              "model" if model else g(eff[(p, d)]))
    if model:
        continue
    P = sorted({k[0] for k in c}); D = sorted({k[1] for k in c})
    mp, md, ma = [], [], []
    for j in range(len(D) - 1):
        for i in range(len(P) - 1):
            p1, p2, d1, d2 = P[i], P[i + 1], D[j], D[j + 1]
            e11, e12, e21, e22 = eff[(p1, d1)], eff[(p2, d1)], eff[(p1, d2)], eff[(p2, d2)]
            dp = ((e12 - e11) + (e22 - e21)) / 2
            dd = ((e21 - e11) + (e22 - e12)) / 2
            wp = (p2 - p1) / (P[-1] - P[0]); wd = (d2 - d1) / (D[-1] - D[0])
            mp.append(dp * wp); md.append(dd * wd); ma.append((dp + dd) / 2 * wp * wd)
    for key, lab, m in (("procs", "MarkProcs", mp), ("data", "MarkData", md), ("all", "MarkAll", ma)):
        x = sum(m) / len(m)
        a = abs(x)
        if a < float(thr["threshold.flat"]):
            s = thr[key + ".flat"]
        else:
            s = thr[key + (".falls" if x < 0 else ".rises")]
            w = "weak" if a < float(thr["threshold.moderate"]) else "moderate" if a < float(thr["threshold.strong"]) else "strong"
            s = s.replace("{strength}", thr["strength." + w])
        print("sentence", lab + ": " + s.replace("{mark}", num(x)))
EOF

# what the PDF says: table rows under "The runs behind the efficiencies of APP", and the
# sentences in application order
cat > "$TMP/pdf.py" <<'EOF'
import re, sys
app = None
for line in open(sys.argv[1]):
    m = re.search(r"The runs behind the efficiencies of (\S+):", line)
    if m:
        app = m.group(1)
        continue
    m = re.match(r"^\s*(\d+)\s+(\S+)\s+(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+ %|-)\s+(\S+)\s+(\S+)\s*$", line)
    if m and app:
        # a second argument: the efficiency column is a model's, not recomputed by ref.py
        print("row", app, *m.groups()[:-1], "model" if len(sys.argv) > 2 else m.group(9))
        continue
    # the sentences come in the order of the applications, three each
    m = re.match(r"^\s*(Mark(Procs|Data|All): .*\S)\s*$", line)
    if m:
        print("sentence", m.group(1))
EOF

render() { # OUT.pdf [report options...]
    local out=$1; shift
    $BIN/mpilens scale report "$TMP/runs.csv" -o "$out" "$@" 2> "$TMP/err" &&
        pdftotext -layout "$out" "$out.txt"
}
check "scale report" render "$TMP/s.pdf"
$PY "$TMP/ref.py" "$TMP/runs.csv" templates/scale.txt > "$TMP/want" 2>&1
check "reference computed" test -s "$TMP/want"
$PY "$TMP/pdf.py" "$TMP/s.pdf.txt" > "$TMP/got" 2>&1
check_eq "raw-times rows: count" "$(grep -c '^row' "$TMP/got")" "$(grep -c '^row' "$TMP/want")"
check_eq "raw-times rows: runs, best, median, max, spread, speed-up, efficiency" "$(grep '^row' "$TMP/got")" "$(grep '^row' "$TMP/want")"
check_match "a speed-up by hand: flat at (2, 100) is 8 / 4" "$(grep '^row flat 2 100 ' "$TMP/got")" " 2\.000 1\.000$"

# a size without a p = 1 run (its efficiency from a performance model): speed-up "-" there,
# T1 / Tp at the size that has one
cat > "$TMP/nosolo.csv" <<'EOF'
app,procs,size,time,status
nosolo,2,100,5,ok
nosolo,4,100,3,ok
nosolo,1,200,12,ok
nosolo,2,200,7,ok
nosolo,4,200,4,ok
EOF
check "report with a model, no p = 1 at size 100" $BIN/mpilens scale report "$TMP/nosolo.csv" -o "$TMP/n.pdf" \
    --peak 1 --flops-coef 1 --flops-power 1
pdftotext -layout "$TMP/n.pdf" "$TMP/n.pdf.txt" 2>/dev/null
$PY "$TMP/ref.py" "$TMP/nosolo.csv" templates/scale.txt model > "$TMP/nwant" 2>&1
$PY "$TMP/pdf.py" "$TMP/n.pdf.txt" model > "$TMP/ngot" 2>&1
check_eq "model: raw-times rows with speed-ups against the CSV" "$(grep '^row' "$TMP/ngot")" "$(grep '^row' "$TMP/nwant")"
check_eq "model: speed-up '-' at the size without p = 1" "$(grep -c '^row nosolo [24] 100 .* - model$' "$TMP/ngot")" 2
check_match "model: speed-up 12 / 4 = 3 at (4, 200)" "$(grep '^row nosolo 4 200 ' "$TMP/ngot")" " 3\.000 model$"
check_eq "sentences: word by the thresholds of scale.txt" "$(grep '^sentence' "$TMP/got")" "$(grep '^sentence' "$TMP/want")"
# all three strengths and "hardly changes" occur, so every threshold is exercised
for w in "hardly changes" weakly moderately strongly; do
    check_match "a sentence says '$w'" "$(grep '^sentence' "$TMP/want" | tr '\n' ' ')" "$w"
done
check_match "the note states the thresholds" "$(tr '\n' ' ' < "$TMP/s.pdf.txt" | tr -s ' ')" \
    'below 1×10\^-5 efficiency "hardly changes", below 0.001 it changes weakly, below 0.01 moderately, else strongly'
check_eq "one failed run counted, not in the table" "$(grep -c '^row flat 4 200 1 ' "$TMP/got")" 1

# --texts moves the thresholds: the words and the note follow (the code reads them, nothing
# is fixed in the report)
sed -e 's/^threshold.flat = .*/threshold.flat = 0.001/' -e 's/^threshold.moderate = .*/threshold.moderate = 0.05/' \
    -e 's/^threshold.strong = .*/threshold.strong = 0.5/' -e 's/^strength.strong = .*/strength.strong = sharply/' \
    templates/scale.txt > "$TMP/scale.txt"
check "scale report --texts" render "$TMP/t.pdf" --texts "$TMP/scale.txt"
$PY "$TMP/ref.py" "$TMP/runs.csv" "$TMP/scale.txt" > "$TMP/want2" 2>&1
$PY "$TMP/pdf.py" "$TMP/t.pdf.txt" > "$TMP/got2" 2>&1
check_eq "sentences follow --texts" "$(grep '^sentence' "$TMP/got2")" "$(grep '^sentence' "$TMP/want2")"
check "the words changed" bash -c "! cmp -s <(grep '^sentence' '$TMP/want') <(grep '^sentence' '$TMP/want2')"
check_match "the note follows --texts" "$(tr '\n' ' ' < "$TMP/t.pdf.txt" | tr -s ' ')" \
    'below 0.001 efficiency "hardly changes", below 0.05 it changes weakly, below 0.5 moderately, else sharply'

# a runs file of efficiencies has no times: no "Raw times" section
printf 'app,procs,size,efficiency\ne,1,1,1\ne,2,1,0.9\ne,1,2,1\ne,2,2,0.8\n' > "$TMP/eff.csv"
check "report of efficiencies" $BIN/mpilens scale report "$TMP/eff.csv" -o "$TMP/e.pdf"
check_eq "no raw-times section without times" "$(pdftotext "$TMP/e.pdf" - | grep -c 'Raw times')" 0
finish test_scale_sentences
