#!/usr/bin/env bash
# mpilens problems --report: the PDF of a trace of tests/mpi/trace_delay.c (2 ranks, injected
# delays) read back with poppler: every problem found with the numbers of
# `mpilens problems --json`, the call site "MPI_Recv called from consume (trace_delay.c:N)",
# a sane page count; byte-identical with SOURCE_DATE_EPOCH; the Score-P trace casita; errors.
. tests/lib.sh
RULES=templates/rules
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
M="$BIN/mpilens problems --rules $RULES"
export SOURCE_DATE_EPOCH=1700000000
$BIN/mpilens trace -o "$TMP/delay" -- $MPIRUN -x OMPI_MCA_mpi_yield_when_idle=1 \
    -np 2 "$BUILD/tests/mpi/trace_delay" > "$TMP/delay.out" 2> "$TMP/delay.err"
check "trace of trace_delay" test -s "$TMP/delay/traces.otf2"
check "problems --json" $M --json "$TMP/delay" -o "$TMP/delay.json"
check_exit "problems --report" 0 $M "$TMP/delay" --report "$TMP/d.pdf"
check_eq "no listing on stdout with --report" "$(wc -c < "$TMP/out")" 0
pdftotext -layout "$TMP/d.pdf" "$TMP/d.txt" 2>/dev/null
# every problem found: its name, total (6 decimals) and share (2 decimals) as in the JSON,
# in the ranked table ("1 Late sender 0.210932 9.70% ...")
/usr/bin/python3 - "$TMP/delay.json" "$TMP/d.txt" > "$TMP/missing.txt" <<'PY'
import json, re, sys
sys.path.insert(0, "tests")
from units import time as T, percent as pct
d = json.load(open(sys.argv[1]))
text = re.sub(r"[ \t]+", " ", open(sys.argv[2]).read())
k = detailed = small = 0
for p in d["problems"]:
    if p["total_s"] <= 0:
        continue
    k += 1
    row = "%d %s %s %s %d" % (k, p["name"], T(p["total_s"]), pct(100 * p["share"]), p["count"])
    # long names wrap inside their cell: look for the row with the name's first word
    first = "%d %s" % (k, p["name"].split()[0])
    nums = "%s %s %d" % (T(p["total_s"]), pct(100 * p["share"]), p["count"])
    if row not in text and not (first in text and nums in text):
        print("table row:", row)
    # problems under 1 % of the total time: one row in the small table, no page
    if p["share"] < 0.01:
        small += 1
        if "Problems under 1% of the total time" not in text or text.count(nums) < 2:
            print("small row:", row)
        continue
    detailed += 1
    head = "%d. %s" % (k, p["name"])
    if detailed <= 8 and head not in text:
        print("section:", head)
    if detailed <= 8 and "%s in %d instance%s" % (T(p["total_s"]), p["count"], "" if p["count"] == 1 else "s") not in text:
        print("totals of", p["id"])
    if detailed <= 8 and p["callsites"][0]["site"] not in text:
        print("call site:", p["callsites"][0]["site"])
print("found", k)
print("detailed", detailed)
print("small", small)
PY
check_eq "problems and numbers as in the JSON" "$(grep -v '^found\|^detailed\|^small' "$TMP/missing.txt")" ""
nfound=$(sed -n 's/^found //p' "$TMP/missing.txt")
ndetailed=$(sed -n 's/^detailed //p' "$TMP/missing.txt")
check_match "several problems found" "$nfound" "^([4-9]|1[0-9])$"
# message sizes: each bin's messages, share and bytes as `mpilens msgsizes --json` counts them
$BIN/mpilens msgsizes --json "$TMP/delay" > "$TMP/ms.json" 2>/dev/null
/usr/bin/python3 - "$TMP/ms.json" "$TMP/d.txt" > "$TMP/ms.txt" <<'PY'
import json, re, sys
sys.path.insert(0, "tests")
from units import time as T, percent as pct
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
text = re.sub(r"[ \t]+", " ", text[text.index("Message sizes"):])
if "The %d point-to-point messages of the trace (%d bytes)" % (d["total_messages"], d["total_bytes"]) not in text:
    print("intro totals")
for b in d["bins"]:
    label = "0 bytes" if b["hi"] == 0 else b["label"]
    row = "%s %d %s %d %s" % (label, b["count"], pct(100 * b["share_messages"]), b["bytes"],
                             pct(100 * b["share_volume"]))
    if row not in text:
        print("bin:", row)
print("bins", len(d["bins"]), "messages", d["total_messages"])
PY
check_match "message-size bins as in msgsizes --json" "$(cat "$TMP/ms.txt")" "^bins 7 messages [1-9][0-9]*$"
line=$(grep -n 'CALLSITE consume' tests/mpi/trace_delay.c | cut -d: -f1)
check_match "call site with file and line" "$(cat "$TMP/d.txt")" "MPI_Recv called from consume \(trace_delay\.c:$line\)"
check_match "description from the rule base" "$(cat "$TMP/d.txt")" "What happens: A receive waited for a message"
check_match "advice from the rule base" "$(cat "$TMP/d.txt")" "What to do: Post the send earlier"
check_match "timeline caption" "$(cat "$TMP/d.txt")" "around the worst instance of Late sender"
# title + table + one page per detailed problem (at most 8), a detail may take two
pages=$(pdfinfo "$TMP/d.pdf" 2>/dev/null | sed -n 's/^Pages: *//p')
shown=$(( ndetailed < 8 ? ndetailed : 8 ))
if [ "$pages" -ge $((2 + shown)) ] && [ "$pages" -le $((2 + 2 * shown)) ]; then ok
else fail "page count $pages for $shown detailed problems"; fi
check_match "footer" "$(cat "$TMP/d.txt")" "page $pages of $pages"
check_match "PDF date from SOURCE_DATE_EPOCH" "$(pdfinfo "$TMP/d.pdf" 2>/dev/null | grep CreationDate)" "2023"
check_eq "images: 2 per detailed problem" "$(pdfimages -list "$TMP/d.pdf" 2>/dev/null | awk 'NR > 2' | grep -vc smask)" $((2 * shown))
# byte-identical with a fixed date
$M "$TMP/delay" --report "$TMP/d2.pdf" 2>/dev/null
check "PDF byte-identical on rerun" cmp "$TMP/d.pdf" "$TMP/d2.pdf"
# listing and report together: the JSON is the same as without --report
$M --json "$TMP/delay" --report "$TMP/d3.pdf" -o "$TMP/again.json" 2>/dev/null
check "JSON unchanged with --report" cmp "$TMP/delay.json" "$TMP/again.json"
check "same PDF with the listing" cmp "$TMP/d.pdf" "$TMP/d3.pdf"

# --- Score-P trace casita: the issue's late senders per rank, title, Russian texts
CASITA=$DATA/otf2/casita-4_mpi_ls_barr
check_exit "casita report" 0 $M "$CASITA" --report "$TMP/c.pdf" --title "Casita: late sender and barrier"
pdftotext -layout "$TMP/c.pdf" "$TMP/c.txt" 2>/dev/null
check_match "title" "$(head -5 "$TMP/c.txt")" "Casita: late sender and barrier"
check_match "late sender row" "$(tr -s ' ' < "$TMP/c.txt")" "1 Late sender 30\.02 s 37\.44% 3 3 \(10\.99 s\)"
check_match "barrier row" "$(tr -s ' ' < "$TMP/c.txt")" "2 Wait at barrier 21\.41 s 26\.70% 3 1 \(7\.835 s\)"
check_match "Score-P call site" "$(cat "$TMP/c.txt")" "MPI_Recv called from late_sender"
# 5 since issue 14 item 7: the references at the end, Barrier completion (under 1 %) a row of
# the small table instead of a page
check_eq "casita pages" "$(pdfinfo "$TMP/c.pdf" 2>/dev/null | sed -n 's/^Pages: *//p')" 5
check_match "small problems table" "$(tr -s ' ' < "$TMP/c.txt")" "3 Barrier completion 68\.44 µs 0\.00% 3 3 \(56\.89 µs\)"
check_exit "russian report" 0 $M "$CASITA" --report "$TMP/r.pdf" --lang ru
check_match "russian problem name" "$(pdftotext "$TMP/r.pdf" - 2>/dev/null)" "Поздний отправитель"
check_match "russian call site" "$(pdftotext "$TMP/r.pdf" - 2>/dev/null)" "вызов MPI_Recv из late_sender"
# counts with their nouns by the count: casita has one collective (its barrier), so singular
check_match "one collective operation, in the singular" "$(tr -s ' \n' '  ' < "$TMP/c.txt")" \
    "4 processes, 110 events, 3 matched messages and 1 collective operation;"
check_match "russian counts after their nouns, no (ов)" "$(pdftotext "$TMP/r.pdf" - 2>/dev/null | tr '\n' ' ')" \
    "Процессов: 4, событий: 110, сопоставленных сообщений: 3, коллективных операций: 1;"

# --- time in MPI per rank: the JSON's mpi_time_per_rank, the rest of each rank's run outside
# MPI, the share recomputed from the printed run column
$M --json "$CASITA" -o "$TMP/c.json" 2>/dev/null
/usr/bin/python3 - "$TMP/c.json" "$TMP/c.txt" > "$TMP/ranks.txt" <<'PY'
import json, re, sys
sys.path.insert(0, "tests")
from units import time as T, percent as pct
d = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
part = text[text.index("Time in MPI per rank"):]
# times carry their unit (ns, µs, ms, s) and 4 significant digits
rows = {int(m.group(1)): m.groups()[1:] for m in
        re.finditer(r"^\s+(\d+)\s+([\d.]+ [nµm]?s)\s+([\d.]+ [nµm]?s)\s+([\d.]+ [nµm]?s)\s+([\d.]+)%", part, re.M)}
sec = lambda t: float(t.split()[0]) / {"s": 1, "ms": 1e3, "µs": 1e6, "ns": 1e9}[t.split()[1]]
for k, mpi in enumerate(d["mpi_time_per_rank"]):
    if k not in rows:
        print("no row for rank", k); continue
    run, inmpi, out = (sec(x) for x in rows[k][:3])
    share = float(rows[k][3])
    if T(mpi) != rows[k][1]:
        print("rank", k, "in MPI", rows[k][1], "JSON", mpi)
    # each printed time is within half a unit of its 4th digit: 5e-4 relative
    if abs(run - mpi - out) > 1e-3 * run:
        print("rank", k, "outside", out, "!= run - MPI", run - mpi)
    if abs(100 * mpi / run - share) > 0.1:
        print("rank", k, "share", share)
print("ranks", len(rows))
PY
check_eq "time in MPI per rank as in the JSON" "$(cat "$TMP/ranks.txt")" "ranks 4"

# --- two traces compared: labels, wall times, speed-up against the first
check_exit "comparison of two traces" 0 $M --report "$TMP/cmp.pdf" --labels naive,overlapped \
    --walls 2.5,1.0 "$CASITA" "$TMP/delay"
pdftotext -layout "$TMP/cmp.pdf" "$TMP/cmp.txt" 2>/dev/null
check_match "comparison heading" "$(cat "$TMP/cmp.txt")" "Comparison of the runs"
check_match "comparison row 1" "$(tr -s ' ' < "$TMP/cmp.txt")" "^naive 4 2\.500 s 1\.00x 51\.43 s 64\.14% Late sender"
check_match "comparison row 2" "$(tr -s ' ' < "$TMP/cmp.txt")" "^overlapped 2 1\.000 s 2\.50x "
check_match "both traces detailed" "$(cat "$TMP/cmp.txt")" "MPI_Recv called from late_sender.*|MPI_Recv called from consume"
check_eq "casita part then trace_delay part" "$(grep -c -E '^.?(naive|overlapped)$' "$TMP/cmp.txt")" 2
# problem x run table: each problem's seconds in both runs as their JSON gives them, and the
# change of the second against the first recomputed here
/usr/bin/python3 - "$TMP/c.json" "$TMP/delay.json" "$TMP/cmp.txt" > "$TMP/runs.txt" <<'PY'
import json, re, sys
sys.path.insert(0, "tests")
from units import time as T, percent as pct
a, b = (json.load(open(f)) for f in sys.argv[1:3])
text = open(sys.argv[3]).read()
text = re.sub(r"[ \t]+", " ", text[text.index("Problems run by run"):])
tb = {p["id"]: p["total_s"] for p in b["problems"]}
n = 0
for p in a["problems"]:
    if p["total_s"] <= 0:
        continue
    n += 1
    x, y = p["total_s"], tb.get(p["id"], 0)
    # ten times or more is written as a factor, from 100 times without decimals
    ch = ("%.0fx" % (y / x) if y >= 100 * x else "%.1fx" % (y / x)) if y >= 10 * x else "%+.1f%%" % (100 * (y - x) / x)
    row = "%s %s %s %s" % (p["name"], T(x), T(y), ch)
    if row not in text:
        print("missing:", row)
    site = p["callsites"][0]
    if T(site["seconds"]) not in text or site["site"].split()[0] not in text:
        print("site of", p["id"])
for p in b["problems"]:
    ta = {q["id"]: q["total_s"] for q in a["problems"]}
    if p["total_s"] > 0 and ta.get(p["id"], 0) <= 0:
        n += 1
        # long names wrap in their cell: the numbers, and the name's first words on the row
        if "0 %s new" % T(p["total_s"]) not in text or p["name"].split(",")[0][:12] not in text:
            print("missing new:", p["name"])
print("rows", n)
PY
check_match "problem x run rows as in the two JSONs" "$(cat "$TMP/runs.txt")" "^rows ([3-9]|1[0-9])$"
check_eq "problem x run rows" "$(grep missing "$TMP/runs.txt")" ""
check_exit "several traces without --report" 2 $M "$CASITA" "$TMP/delay"
check_exit "several traces with --json" 2 $M --json --report "$TMP/bad.pdf" "$CASITA" "$TMP/delay"
check_exit "labels count" 2 $M --report "$TMP/bad.pdf" --labels a "$CASITA" "$TMP/delay"
check_exit "bad walls" 2 $M --report "$TMP/bad.pdf" --walls 1,-2 "$CASITA" "$TMP/delay"
check_exit "walls without report" 2 $M --walls 1 "$CASITA"

# --- errors: a message naming the file, exit 1 (2 for usage), nothing left behind
check_exit "unwritable path" 1 $M "$CASITA" --report "$TMP/none/x.pdf"
check_match "unwritable message" "$(cat "$TMP/err")" "none/x.pdf"
check_exit "bad trace" 1 $M "$TMP/nope" --report "$TMP/bad.pdf"
check_match "bad trace message" "$(cat "$TMP/err")" "nope: cannot open trace"
mkdir -p "$TMP/trunc/traces"
cp "$CASITA/traces.otf2" "$CASITA/traces.def" "$TMP/trunc/"
for f in "$CASITA"/traces/*; do head -c 40 "$f" > "$TMP/trunc/traces/$(basename "$f")"; done
check_exit "truncated trace" 1 $M "$TMP/trunc" --report "$TMP/bad.pdf"
check_exit "--title without --report" 2 $M "$CASITA" --title x
mkdir -p "$TMP/dd/templates"
ln -s "$PWD/fonts" "$TMP/dd/fonts"
cp templates/report.tmpl "$TMP/dd/templates/"
printf 'section title\ntitle x\nsection nosuch\n' > "$TMP/dd/templates/problems_report.tmpl"
check_exit "bad template" 1 env MPILENS_DATADIR="$TMP/dd" $M "$CASITA" --report "$TMP/bad.pdf"
check_match "bad template message" "$(cat "$TMP/err")" "problems_report.tmpl:3: unknown section 'nosuch'"
check "nothing written" test ! -e "$TMP/bad.pdf" -a ! -e "$TMP/none"
ls "$TMP" | grep -q '\.tmp\.' && fail "temporary file left behind" || ok
finish test_problems_report
