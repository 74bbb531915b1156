# mpilens accept -o REPORT.pdf and --baseline: page one (pdftotext -f 1 -l 1) shows the
# verdict and, per criterion, the measured value the JSON gives (converted to the unit the
# criterion was written with, independently, in Python); the worst offenders name the hosts
# of synth32's bad link 3 -> 17 from its hosts file; the evidence pages hold the sections they
# cite; pages 2.. are the pages of `mpilens report` on the same input; --baseline against a
# copy with one link made 1.5x slower (written here with netCDF4) counts one regression;
# poppler prints no warning; two runs are byte-identical; a failure leaves no PDF.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
S32=samples/cubes/synth32/network
DEMO=samples/criteria/demo.criteria
export SOURCE_DATE_EPOCH=1700000000

# ---- the demo contract: FAIL, with the report behind it ----
check_exit "demo: exit 3 with -o" 3 "$M" accept "$S32" --criteria "$DEMO" -o "$TMP/a.pdf" --json
cp "$TMP/out" "$TMP/a.json"
check "demo: the PDF exists" test -s "$TMP/a.pdf"
pdftotext -layout -f 1 -l 1 "$TMP/a.pdf" "$TMP/p1.txt" 2>"$TMP/pt.err"
check_eq "page one: poppler prints no warning" "$(cat "$TMP/pt.err")" ""
pdftotext "$TMP/a.pdf" "$TMP/all.txt" 2>"$TMP/pt.err"
check_eq "whole PDF: poppler prints no warning" "$(cat "$TMP/pt.err")" ""
# the first line is the running header naming the inputs; the heading follows it
check_match "page one: the heading" "$(head -8 "$TMP/p1.txt")" "Acceptance verdict"
check_match "page one: FAIL in large type on its own line" "$(grep -E '^ *FAIL *$' "$TMP/p1.txt")" "FAIL"
check_match "page one: 5 of 9 fail" "$(cat "$TMP/p1.txt")" "5 of 9 criteria of the contract samples/criteria/demo.criteria fail"

# measured values: the JSON's SI double in the unit of the criterion's limit as written in the
# file, four significant digits (%.4g, as the text output); each on its criterion's row
got=$($PY - "$TMP/a.json" "$DEMO" "$TMP/p1.txt" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
lines = open(sys.argv[2], encoding="utf-8").read().split("\n")
page = open(sys.argv[3], encoding="utf-8").read().split("\n")
scale = {"us": 1e-6, "ms": 1e-3, "ns": 1e-9, "s": 1, "%": 0.01, "": 1}
bad = []
for c in d["criteria"]:
    text = lines[c["line"] - 1]
    unit = re.match(r"\s*\S+\s*[<>=]+\s*[0-9.eE+]+([a-zA-Z%/]*)", text).group(1)
    v = c["measured"] / scale[unit]
    # the reports write "us" as the micro sign (common/units.h)
    want = "%.4g" % v + ("" if unit in ("", "%") else " ") + unit.replace("us", "µs")
    # the row starts with the criterion (metric name first) on page one
    rows = [l for l in page if l.strip().startswith(c["metric"] + " ")]
    if not any(re.search(r"\s" + re.escape(want) + r"\s", l + " ") for l in rows):
        bad.append("line %d: %r not on its row %r" % (c["line"], want, rows))
    # PASS / FAIL agrees with the JSON
    if not any((" PASS " if c["pass"] else " FAIL ") in l + " " for l in rows):
        bad.append("line %d: result not %s" % (c["line"], c["pass"]))
print("; ".join(bad) if bad else "ok")
EOF
)
check_eq "page one: every measured value equals the JSON's" "$got" "ok"

# the bad link 3 -> 17: its hosts from the hosts file (line = rank + 1)
h3=$(sed -n 4p samples/cubes/synth32/network_hosts.txt)
h17=$(sed -n 18p samples/cubes/synth32/network_hosts.txt)
one=$(pdftotext -f 1 -l 1 "$TMP/a.pdf" - 2>/dev/null | tr '\n' ' ' | tr -s ' ')
check_match "worst offenders: the bad link's hosts" "$one" "no bad link: 1 against 0; link 3->17 \\(hosts $h3 -> $h17\\)"
check_match "worst offenders: the max's pair and hosts" "$one" "no link slower than 5 µs: 11.4 µs against 5 µs; 3 -> 17 at 4096 B \\(hosts $h3 -> $h17\\)"
check_match "page one: the labels are shown" "$one" "“links alike”"

# the evidence pages hold what they cite
ps=$(grep -o 'page [0-9]*: Summary' "$TMP/p1.txt" | head -1 | awk '{print $2}' | tr -d :)
pa=$(grep -o 'page [0-9]*: Anomalies' "$TMP/p1.txt" | head -1 | awk '{print $2}' | tr -d :)
check_match "evidence: the Summary page" "$(pdftotext -f "${ps:-1}" -l "${ps:-1}" "$TMP/a.pdf" - 2>/dev/null)" "^Summary"
check_match "evidence: the Anomalies page" "$(pdftotext -f "${pa:-1}" -l "${pa:-1}" "$TMP/a.pdf" - 2>/dev/null)" "Anomalies"

# pages 2.. are `mpilens report` on the same input (footers and page references aside: the
# verdict page moves every page by one)
check "report on the same input" "$M" report "$S32" -o "$TMP/r.pdf"
np_a=$(pdfinfo "$TMP/a.pdf" | awk '/^Pages:/ {print $2}')
np_r=$(pdfinfo "$TMP/r.pdf" | awk '/^Pages:/ {print $2}')
check_eq "one page more than the report" "$np_a" "$((np_r + 1))"
pdftotext -f 2 "$TMP/a.pdf" - 2>/dev/null | grep -v '^page [0-9]* of [0-9]*$' | sed -E 's/page [0-9]+/page N/g' >"$TMP/a2.txt"
pdftotext "$TMP/r.pdf" - 2>/dev/null | grep -v '^page [0-9]* of [0-9]*$' | sed -E 's/page [0-9]+/page N/g' >"$TMP/r2.txt"
check "pages 2.. hold the report's text" cmp -s "$TMP/a2.txt" "$TMP/r2.txt"

# deterministic bytes
"$M" accept "$S32" --criteria "$DEMO" -o "$TMP/b.pdf" >/dev/null 2>&1
check "two runs are byte-identical" cmp -s "$TMP/a.pdf" "$TMP/b.pdf"

# ---- a contract that holds: PASS, exit 0 ----
sed -n '9,14p' "$DEMO" >"$TMP/pass.criteria"
check_exit "passing contract: exit 0" 0 "$M" accept "$S32" --criteria "$TMP/pass.criteria" -o "$TMP/pass.pdf"
pdftotext -layout -f 1 -l 1 "$TMP/pass.pdf" "$TMP/pass1.txt" 2>"$TMP/pt.err"
check_match "passing contract: PASS in large type" "$(grep -E '^ *PASS *$' "$TMP/pass1.txt")" "PASS"
check_match "passing contract: no offender" "$(cat "$TMP/pass1.txt")" "Every criterion holds"
check_eq "passing contract: no warning" "$(cat "$TMP/pt.err")" ""

# ---- --baseline: one link of synth32 made 1.5x slower ----
mkdir -p "$TMP/slow"
cp samples/cubes/synth32/network_* "$TMP/slow/"
$PY - "$TMP/slow" <<'EOF'
import sys, netCDF4
# one_to_one: row = receiver, column = sender, so the link 5 -> 12 is element (12, 5)
for s in ("average", "median", "min"):
    d = netCDF4.Dataset("%s/network_%s.nc" % (sys.argv[1], s), "r+")
    v = d["data"][:]
    v[:, 12, 5] *= 1.5
    d["data"][:] = v
    d.close()
EOF
printf 'compare.regressions == 0 label="no regression"\ncube.delay.median <= 3us length=0 scope=inter\n' >"$TMP/reg.criteria"
check_exit "regression: exit 3" 3 "$M" accept "$TMP/slow/network" --criteria "$TMP/reg.criteria" \
    --baseline "$S32" -o "$TMP/reg.pdf" --json
cp "$TMP/out" "$TMP/reg.json"
got=$($PY - "$TMP/reg.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
c = d["criteria"][0]
if c["metric"] != "compare.regressions" or c["measured"] != 1 or c["pass"] or c["unit"] != "count":
    bad.append("criterion %r" % c)
if list(d)[:2] != ["verdict", "criteria"] or list(d)[-1] != "baseline":
    bad.append("keys %s" % list(d))
b = d["baseline"]
if len(b) != 1 or b[0]["regressions"] != 1 or b[0]["verdict"] != "regressed":
    bad.append("baseline %r" % b)
f = [x for x in b[0]["findings"] if x["direction"] == "slower"]
if len(f) != 1 or f[0]["kind"] != "link" or f[0]["ranks"] != [5, 12] or abs(f[0]["ratio"] - 1.5) > 1e-9:
    bad.append("findings %r" % f)
print("; ".join(bad) if bad else "ok")
EOF
)
check_eq "regression: JSON counts the one slower link" "$got" "ok"
# the same count as `mpilens compare` lists, from its own JSON
n=$("$M" compare --json "$S32" "$TMP/slow/network" | $PY -c 'import json,sys; print(sum(f["direction"] == "slower" for f in json.load(sys.stdin)["findings"]))')
check_eq "regression: mpilens compare agrees" "$n" "1"
reg=$(pdftotext -layout "$TMP/reg.pdf" - 2>"$TMP/pt.err")
check_eq "regression: no poppler warning" "$(cat "$TMP/pt.err")" ""
check_match "regression: the compare section" "$reg" "Comparison with the baseline"
check_match "regression: the finding's row" "$reg" "link +slower +5 -> 12 +node01 -> node02 .* 1.500x"
check_match "regression: page one cites the comparison" "$(pdftotext -layout -f 1 -l 1 "$TMP/reg.pdf" - 2>/dev/null)" "page [0-9]+:"
# against itself nothing regressed
check_exit "no regression: exit 0" 0 "$M" accept "$S32" --criteria "$TMP/reg.criteria" --baseline "$S32" --json
check_match "no regression: measured 0" "$(cat "$TMP/out")" '"metric":"compare.regressions","op":"==","limit":0,"measured":0'
# without -o and --json the text verdict names the link
check_exit "regression, text: exit 3" 3 "$M" accept "$TMP/slow/network" --criteria "$TMP/reg.criteria" --baseline "$S32"
check_match "regression, text: where" "$(grep compare.regressions "$TMP/out")" "^FAIL .*link 5 -> 12 1.50x slower"

# ---- usage and failures ----
check_exit "--baseline without a value: exit 2" 2 "$M" accept "$S32" --criteria "$DEMO" --baseline
check_exit "two baselines for one cube: exit 2" 2 "$M" accept "$S32" --criteria "$DEMO" --baseline "$S32" "$S32"
check_exit "a missing baseline: exit 1" 1 "$M" accept "$S32" --criteria "$TMP/reg.criteria" --baseline "$TMP/none/network" -o "$TMP/none.pdf"
check "a failed run leaves no PDF" test ! -e "$TMP/none.pdf"
check_exit "a PDF in a missing folder: exit 1" 1 "$M" accept "$S32" --criteria "$DEMO" -o "$TMP/no/such/x.pdf"
check_eq "nothing on stdout on error" "$(cat "$TMP/out")" ""

finish test_accept_pdf
