# The report side of mpilens-bench's retests and bisection runs, on files the real bench writes
# under mpirun at 4 ranks: the Retests section lists every row of PREFIX_retest.csv with the
# values and verdict python reads from the CSV, its counts equal `mpilens info --json`, the
# anomalies table marks the retested link as `mpilens anomalies --json` does; the Bisection
# bandwidth section's min, median, average and max (3 significant digits) and slowest link equal
# python's from the CSV, its node shares the .nc's (ncdump); page one repeats the counts and the
# min and average. A report without these inputs has neither section; poppler prints no
# warnings; reruns are byte-identical with SOURCE_DATE_EPOCH; bad side files fail by name.
. tests/lib.sh
PY=/usr/bin/python3
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export SOURCE_DATE_EPOCH=1700000000
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench
M=$BIN/mpilens

# ---- inputs from the real bench: a parallel cube with a slow link 3 -> 1 (the test hook adds
# 1 s after timing, so it stays slow alone), retesting the 2 worst per length; a bisection run ----
O=$TMP/p/net
MPILENS_BENCH_INJECT=3,1,1 $MPIRUN -np 4 "$B" -t one_to_one --schedule parallel --retest 2 -n 5 -b 0 -e 2049 \
    -s 1024 -f "$O" </dev/null >/dev/null 2>"$TMP/bench.err"
check_eq "parallel bench with retests runs" "$?" "0"
check "the bench wrote the retest file" test -s "${O}_retest.csv"
OB=$TMP/b/run
$MPIRUN -np 4 "$B" -t bisection -r 4 -s 64KiB -f "$OB" </dev/null >/dev/null 2>&1
check_eq "bisection bench runs" "$?" "0"
check "the bench wrote the bisection .nc" test -s "${OB}_bisection.nc"

# a copy whose hosts file names two hosts, so the data-quality gate passes and the anomalies
# section (with the retest verdict) is drawn; the one-host original fails the gate
T=$TMP/two/net
mkdir -p "$TMP/two"
cp "$O"_* "$TMP/two/"
printf 'n01\nn01\nn02\nn02\n' >"${T}_hosts.txt"

# report PDF ARGS...: writes PDF, its text (PDF.txt, layout kept) and poppler's stderr (PDF.err)
report() {
    local pdf=$1
    shift
    "$M" report "$@" -o "$pdf" >/dev/null 2>"$TMP/report.err" || { cat "$TMP/report.err" >&2; return 1; }
    pdftotext -layout "$pdf" "$pdf.txt" 2>"$pdf.err"
}
check "report of a cube with retests and a bisection run" report "$TMP/both.pdf" "$T" "$OB"
check_eq "poppler prints no warnings" "$(cat "$TMP/both.pdf.err"; pdfinfo "$TMP/both.pdf" 2>&1 >/dev/null)" ""

# ---- the Retests table against the CSV ----
cat >"$TMP/retest.py" <<'PYEOF'
import sys, csv, re, json
sys.path.insert(0, "tests")
from units import num
rows = list(csv.DictReader(open(sys.argv[1] + "_retest.csv")))
text = open(sys.argv[2]).read()
info = json.load(open(sys.argv[3]))["retest"]
hosts = open(sys.argv[1] + "_hosts.txt").read().split()
bad = []
# a heading may follow the page's form feed
sec = re.split(r"[\n\f]Retests\n", text, 1)
if len(sec) != 2:
    print("no Retests section"); sys.exit()
body = re.split(r"[\n\f]Heatmaps\n", sec[1])[0]
# the verdict column is narrow: "vanished: contention" may wrap onto a line of its own
body = re.sub(r"vanished:\n +contention", "vanished: contention", body)
# one table line per CSV row, in file order
pat = re.compile(r"^ *(\d+) -> (\d+) \(([^)]*)\) +(\d+) +([\d.]+) +([\d.]+) +(-?[\d.]+) +(-?[\d.]+) +(\S.*?) *$", re.M)
got = pat.findall(body)
if len(got) != len(rows):
    bad.append("%d table rows, csv %d" % (len(got), len(rows)))
for r, g in zip(rows, got):
    s, d = int(r["sender"]), int(r["receiver"])
    h = hosts[s] if hosts[s] == hosts[d] else "%s -> %s" % (hosts[s], hosts[d])
    surv = float(r["retest_z"]) >= 5
    verdict = "control" if r["role"] == "control" else "persists: bad link" if surv else \
        "vanished: contention" if r["role"] == "flagged" else "fast alone"
    want = (str(s), str(d), h, r["length"], num(float(r["first"]) * 1e6), num(float(r["retest"]) * 1e6),
            "%.1f" % float(r["z"]), "%.1f" % float(r["retest_z"]), verdict)
    if tuple(g) != want:
        bad.append("row %s: %s" % (want, g))
# the counts sentence, against info --json (which words them for the terminal)
fl, sv = info["flagged"], info["survived"]
nonctl = sum(r["role"] != "control" for r in rows)
persist = sum(r["role"] != "control" and float(r["retest_z"]) >= 5 for r in rows)
words = " ".join(body.split())
want = ("%d cells of this sweep were measured again alone, %d of them flagged" % (nonctl, fl),
        "Of the flagged cells %d persist alone, a bad link, and %d vanished" % (sv, fl - sv),
        "Over all %d cells: %d persist and %d are fast alone." % (nonctl, persist, nonctl - persist))
for w in want:
    if w not in words:
        bad.append("sentence lacks '%s'" % w)
# page one: one line with the counts
one = " ".join(text.split("\f")[0].split())
w1 = "Retests: of %d flagged cells, %d persist alone (bad link) and %d vanished (contention): page" % (fl, sv, fl - sv)
if w1 not in one:
    bad.append("page one lacks '%s'" % w1)
print("ok" if not bad else "; ".join(bad))
PYEOF
"$M" info --json "$T" >"$TMP/info.json" 2>/dev/null
check_eq "Retests: every row, the counts and page one agree with the CSV and info --json" \
    "$($PY "$TMP/retest.py" "$T" "$TMP/both.pdf.txt" "$TMP/info.json" 2>&1)" "ok"

# the anomalies table: the verdict closes the evidence of each retested finding, as the
# command's JSON has it (survived / vanished), and no other finding carries one
cat >"$TMP/anom.py" <<'PYEOF'
import sys, json
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
import re
# a heading may follow the page's form feed
sec = re.split(r"[\n\f]Anomalies\n", text, 1)[1]
sec = re.split(r"[\n\f]Retests\n", sec)[0]
flat = " ".join(sec.split())
want_p = sum(f.get("retest") == "survived" for f in j["anomalies"])
want_v = sum(f.get("retest") == "vanished" for f in j["anomalies"])
got_p = flat.count("retested alone: persists (a bad link)")
got_v = flat.count("retested alone: vanished (contention)")
print("ok" if (got_p, got_v) == (want_p, want_v) and want_p >= 1 else
      "persists %d / %d, vanished %d / %d" % (got_p, want_p, got_v, want_v))
PYEOF
"$M" anomalies --json "$T" >"$TMP/an.json" 2>/dev/null
check_eq "Anomalies: findings marked as anomalies --json says (the slow link persists)" \
    "$($PY "$TMP/anom.py" "$TMP/an.json" "$TMP/both.pdf.txt" 2>&1)" "ok"

# the same cube with the slow link's retest_z edited below 5: contention, in the table, the
# counts, page one and the anomalies alike
mkdir -p "$TMP/v"
cp "$T"_* "$TMP/v/"
awk -F, -v OFS=, 'NR > 1 && $2 == 3 && $3 == 1 { $7 = "1.0000" } { print }' "${T}_retest.csv" >"$TMP/v/net_retest.csv"
check "report of the edited copy" report "$TMP/v.pdf" "$TMP/v/net"
"$M" info --json "$TMP/v/net" >"$TMP/infov.json" 2>/dev/null
check_eq "edited: Retests rows and counts agree (the link vanished)" \
    "$($PY "$TMP/retest.py" "$TMP/v/net" "$TMP/v.pdf.txt" "$TMP/infov.json" 2>&1)" "ok"
"$M" anomalies --json "$TMP/v/net" >"$TMP/anv.json" 2>/dev/null
check_match "edited: anomalies --json says vanished" "$(cat "$TMP/anv.json")" '"retest":"vanished"'
check_eq "edited: the anomalies table says vanished" \
    "$(tr '\n' ' ' <"$TMP/v.pdf.txt" | tr -s ' ' | grep -c 'retested alone: vanished (contention)')" "1"

# ---- the Bisection bandwidth section against the CSV and the .nc ----
cat >"$TMP/bis.py" <<'PYEOF'
import sys, csv, re, subprocess
sys.path.insert(0, "tests")
from units import num
rows = list(csv.DictReader(l for l in open(sys.argv[1] + "_bisection.csv") if not l.startswith("#")))
text = open(sys.argv[2]).read()
bw = [float(r["bandwidth_Bps"]) for r in rows]
def g3(v):  # GB/s to 3 significant digits, fixed notation
    return num(v / 1e9, 3)
s = sorted(bw)
n = len(s)
med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
avg = sum(bw) / n
bad = []
sec = re.split(r"[\n\f]Bisection bandwidth\n", text, 1)
if len(sec) != 2:
    print("no Bisection bandwidth section"); sys.exit()
body = sec[1]
lines = {m.group(1).strip(): m.group(2) for m in re.finditer(r"^ *(min \(round \d+\)|median|average|max \(round \d+\)) +(\S+) *$", body, re.M)}
want = {"min (round %d)" % bw.index(min(bw)): g3(min(bw)), "median": g3(med), "average": g3(avg),
        "max (round %d)" % bw.index(max(bw)): g3(max(bw))}
if lines != want:
    bad.append("summary %s, want %s" % (lines, want))
# the slowest link: the smallest slowest_pair_Bps of the CSV (ties: the first round)
w = min(rows, key=lambda r: float(r["slowest_pair_Bps"]))
m = re.search(r"^ *1 (\d+) -> (\d+) \((\S+)\) +(\S+) +(\d+) +(\d+) *$", body, re.M)
if not m or (m.group(1), m.group(2), m.group(4), m.group(5)) != \
        (w["slowest_sender"], w["slowest_receiver"], g3(float(w["slowest_pair_Bps"])), w["round"]):
    bad.append("slowest link %s, csv %s" % (m and m.groups(), w))
# per node: one host, so one node with all the bytes (node_share 1 in every round, from ncdump)
nc = subprocess.run(["ncdump", "-v", "node_share", sys.argv[1] + "_bisection.nc"], capture_output=True, text=True).stdout
shares = [float(x) for x in re.findall(r"[-\d.e+]+", nc.split("data:", 1)[1].split("node_share =", 1)[1].split(";")[0])]
avgsh = 100 * sum(shares) / len(shares)
host = subprocess.run(["hostname"], capture_output=True, text=True).stdout.strip()
m = re.search(r"^ *(\S+) +(\d+) +([\d.]+) % +([\d.]+) - ([\d.]+) % +(\S+) *$", body, re.M)
if not m or m.group(2) != "4" or m.group(3) != "%.1f" % avgsh or m.group(4) != "%.1f" % (100 * min(shares)):
    bad.append("node row %s, shares %s" % (m and m.groups(), shares))
one = " ".join(text.split("\f")[0].split())
w1 = "Bisection bandwidth of %s: min %s GB/s, average %s GB/s over %d rounds: page" % (sys.argv[3], g3(min(bw)), g3(avg), n)
if w1 not in one:
    bad.append("page one lacks '%s'" % w1)
print("ok" if not bad else "; ".join(bad))
PYEOF
check_eq "Bisection: min/median/average/max, slowest link, node share and page one agree with the CSV and .nc" \
    "$($PY "$TMP/bis.py" "$OB" "$TMP/both.pdf.txt" "b/run" 2>&1)" "ok"
# the same numbers as info --json (its min and avg, to 3 significant digits)
check_eq "Bisection: min and average as info --json" \
    "$("$M" info --json "$OB" 2>/dev/null | $PY -c '
import json, sys
j = json.load(sys.stdin)["bandwidth_Bps"]
sys.path.insert(0, "tests")
from units import num
g = lambda v: num(v, 3)
print(g(j["min"] / 1e9), g(j["avg"] / 1e9))')" \
    "$(grep -E '^ *(min \(round [0-9]+\)|average) ' "$TMP/both.pdf.txt" | awk '{print $NF}' | tr '\n' ' ' | sed 's/ $//')"

# the run's provenance: the CSV's comment lines, in the section's first paragraph; the files
# by their relative names (the bench wrote under the absolute $TMP)
flatb=$(tr '\n' ' ' <"$TMP/both.pdf.txt" | tr -s ' ')
for k in measured_at launcher; do
    check_match "Bisection: $k from the CSV's comments" "$flatb" \
        "$(sed -n "s/^# $k: //p" "${OB}_bisection.csv" | sed 's/[][().*^$]/\\&/g')"
done
check_match "Bisection: cores per host" "$flatb" "; $(sed -n 's/^# cores_per_host: //p' "${OB}_bisection.csv") cores per host\."
check_match "Bisection: files named relative" "$flatb" "read from b/run_bisection.csv and b/run_bisection.nc:"
check_eq "Bisection: no absolute folder in the PDF" "$(grep "$TMP" "$TMP/both.pdf.txt")" ""

# ---- byte-identical on rerun ----
check "rerun" report "$TMP/again.pdf" "$T" "$OB"
check "a rerun is byte-identical" cmp "$TMP/both.pdf" "$TMP/again.pdf"

# ---- without these inputs: no such sections, no page-one lines ----
mkdir -p "$TMP/plain"
cp "$O"_average.nc "$O"_median.nc "$O"_min.nc "$O"_deviation.nc "$O"_hosts.txt "$TMP/plain/"
check "report of the cube without its retest file" report "$TMP/plain.pdf" "$TMP/plain/net"
check_eq "no Retests or Bisection section, no page-one line" \
    "$(grep -cE '^ *(Retests|Bisection bandwidth)$|Retests: of|Bisection bandwidth of' "$TMP/plain.pdf.txt")" "0"
check_eq "... and no verdict in the anomalies" "$(grep -c 'retested alone' "$TMP/plain.pdf.txt")" "0"
# the one-host cube fails the gate: the Retests section is still drawn (it is a measurement)
check "report of the one-host cube" report "$TMP/one.pdf" "$O"
check_eq "one-host cube: Retests drawn, no Anomalies" \
    "$(grep -cE '^ *Retests$' "$TMP/one.pdf.txt") $(grep -cE '^ *Anomalies$' "$TMP/one.pdf.txt")" "1 0"

# ---- a bisection run alone: the CSV without its .nc names each round's slowest pair ----
mkdir -p "$TMP/csv"
cp "${OB}_bisection.csv" "$TMP/csv/"
check "report of a bisection CSV alone" report "$TMP/csv.pdf" "$TMP/csv/run_bisection.csv" --figures "$TMP/figs"
check_eq "CSV alone: poppler quiet" "$(cat "$TMP/csv.pdf.err")" ""
check_eq "CSV alone: one links row per round" "$(grep -cE '^ *[0-9]+ [0-9]+ -> [0-9]+ +[0-9.]+ +[0-9]+ +[0-9]+ *$' "$TMP/csv.pdf.txt")" \
    "$($PY -c 'import csv,sys; print(len({(r["slowest_sender"], r["slowest_receiver"]) for r in csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#"))}))' "${OB}_bisection.csv")"
check "CSV alone: --figures writes bisection.png and .svg" test -s "$TMP/figs/bisection.png" -a -s "$TMP/figs/bisection.svg"
check_match "CSV alone: no node shares" "$(tr '\n' ' ' <"$TMP/csv.pdf.txt")" "no share per node"
# an older run's CSV (no comment lines) reads as before and says its provenance is not recorded
mkdir -p "$TMP/old"
grep -v '^#' "${OB}_bisection.csv" >"$TMP/old/run_bisection.csv"
check "report of an older bisection CSV" report "$TMP/old.pdf" "$TMP/old/run_bisection.csv"
check_match "older CSV: provenance not recorded" "$(tr '\n' ' ' <"$TMP/old.pdf.txt" | tr -s ' ')" \
    "How the run was made \(start, MPI library, launcher, cores\) is not recorded"
check_eq "CSV alone: no empty reference list" "$(grep -c '^ *References$' "$TMP/csv.pdf.txt")" "0"
# the strip plot is printed like every figure: 300 ppi or more at its placed size
check_eq "the bisection figure is 300 ppi or more" \
    "$(pdfimages -list "$TMP/csv.pdf" 2>/dev/null | awk 'NR > 2 { n++; if ($13 < 300) bad++ } END { print n + 0, bad + 0 }')" "1 0"

# ---- bad side files fail naming the file, and write nothing ----
mkdir -p "$TMP/bad"
cp "${OB}_bisection.csv" "$TMP/bad/run_bisection.csv"
cp "${O}_median.nc" "$TMP/bad/run_bisection.nc"
check_exit "an .nc that is not a bisection run: exit 1" 1 "$M" report "$TMP/bad/run" -o "$TMP/bad.pdf"
check_match "... naming it" "$(cat "$TMP/err")" "bad/run_bisection.nc: no dimension 'round'"
check "... and no PDF" test ! -e "$TMP/bad.pdf"
sed '3s/,worst$/,wrost/; 3s/,flagged$/,flaged/; 3s/,control$/,ctrl/' "${O}_retest.csv" >"$TMP/two/net_retest.csv"
check_exit "a damaged retest file: exit 1" 1 "$M" report "$T" -o "$TMP/bad2.pdf"
check_match "... naming file:line:column" "$(cat "$TMP/err")" "two/net_retest.csv:3:[0-9]+: column 'role'"

finish test_report_retest
