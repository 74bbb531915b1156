# Page links (issue 15): the evidence cells of the verdict page of `mpilens accept -o` and the
# "page N" findings of the report's page one are links to the pages they cite. Checked by
# tests/pdf_links.py from what qpdf and poppler read in the PDF: each link covers the text
# "page N ...", points at page N, and page N is the first page showing the cited section's
# heading; borders are 0; poppler and qpdf find nothing wrong; the bytes stay deterministic.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
S32=samples/cubes/synth32/network
DEMO=samples/criteria/demo.criteria
export SOURCE_DATE_EPOCH=1700000000

# the number of cells citing a page, counted from the text of page one (not from the links)
cited() { pdftotext -layout -f "$2" -l "$2" "$1" - 2>/dev/null | grep -oE "page [0-9]+[:,]" | wc -l | tr -d ' '; }

# ---- accept: 9 criteria on synth32, each with a Summary or Anomalies section ----
check_exit "demo: exit 3" 3 "$M" accept "$S32" --criteria "$DEMO" -o "$TMP/a.pdf"
n=$(cited "$TMP/a.pdf" 1)
check_eq "verdict page: every criterion cites a page" "$n" "9"
check_eq "verdict page: each evidence cell links to its section" "$($PY tests/pdf_links.py "$TMP/a.pdf" 1 "$n")" "ok 9"
n=$(cited "$TMP/a.pdf" 2)
check_eq "report's page one: three findings cite a page" "$n" "3"
check_eq "report's page one: each finding links to its section" "$($PY tests/pdf_links.py "$TMP/a.pdf" 2 "$n")" "ok 3"
pdftotext "$TMP/a.pdf" /dev/null 2>"$TMP/pt.err"
check_eq "accept: poppler prints no warning" "$(cat "$TMP/pt.err")" ""
check "accept: qpdf --check finds no error" qpdf --check "$TMP/a.pdf"
"$M" accept "$S32" --criteria "$DEMO" -o "$TMP/b.pdf" >/dev/null 2>&1
check "accept: two runs are byte-identical" cmp -s "$TMP/a.pdf" "$TMP/b.pdf"

# ---- report: the findings of page one ----
check "report: runs" "$M" report "$S32" -o "$TMP/r.pdf"
check_eq "report: page one's findings link to their sections" "$($PY tests/pdf_links.py "$TMP/r.pdf" 1 3)" "ok 3"
check_eq "report: no link on page two" "$($PY tests/pdf_links.py "$TMP/r.pdf" 2 0)" "ok 0"
pdftotext "$TMP/r.pdf" /dev/null 2>"$TMP/pt.err"
check_eq "report: poppler prints no warning" "$(cat "$TMP/pt.err")" ""

# ---- --baseline: the comparison criterion links to the "Comparison with the baseline" page ----
mkdir -p "$TMP/slow"
cp samples/cubes/synth32/network_* "$TMP/slow/"
$PY - "$TMP/slow" <<'PYEOF'
import sys, netCDF4
# one link (5 -> 12: row = receiver) made 1.5x slower, so the comparison has a section to cite
for s in ("average", "median", "min"):
    d = netCDF4.Dataset("%s/network_%s.nc" % (sys.argv[1], s), "r+")
    v = d["data"][:]
    v[:, 12, 5] *= 1.5
    d["data"][:] = v
    d.close()
PYEOF
printf 'compare.regressions == 0\ncube.delay.median <= 3us length=0 scope=inter\n' >"$TMP/reg.criteria"
check_exit "baseline: exit 3" 3 "$M" accept "$TMP/slow/network" --criteria "$TMP/reg.criteria" --baseline "$S32" \
    -o "$TMP/reg.pdf"
check_match "baseline: page one cites the comparison" "$(pdftotext -f 1 -l 1 "$TMP/reg.pdf" - 2>/dev/null | tr '\n' ' ')" \
    "page [0-9]+: Comparison"
check_eq "baseline: both criteria link to their sections" "$($PY tests/pdf_links.py "$TMP/reg.pdf" 1 2)" "ok 2"

# ---- one criterion, one link ----
printf 'cube.delay.median <= 3us length=0 scope=inter\n' >"$TMP/one.criteria"
check_exit "one criterion: exit 0" 0 "$M" accept "$S32" --criteria "$TMP/one.criteria" \
    -o "$TMP/one.pdf"
check_eq "one criterion: one link" "$($PY tests/pdf_links.py "$TMP/one.pdf" 1 1)" "ok 1"

# ---- retests and a bisection run, from the real bench: their findings link too ----
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
O=$TMP/p/net
MPILENS_BENCH_INJECT=3,1,1 $MPIRUN -np 4 "$B" -t one_to_one --schedule parallel --retest 2 -n 5 -b 0 -e 2049 \
    -s 1024 -f "$O" </dev/null >/dev/null 2>&1
check "bench with retests wrote the retest file" test -s "${O}_retest.csv"
$MPIRUN -np 4 "$B" -t bisection -r 4 -s 64KiB -f "$TMP/b/run" </dev/null >/dev/null 2>&1
check "bisection bench wrote its .nc" test -s "$TMP/b/run_bisection.nc"
check "report with retests and a bisection run" "$M" report "$O" "$TMP/b/run" -o "$TMP/rb.pdf"
check_eq "retest and bisection findings link to their pages" "$($PY tests/pdf_links.py "$TMP/rb.pdf" 1 2)" "ok 2"
# the bisection finding names no section ("page N."): its page must show the bisection heading
pb=$(pdftotext -f 1 -l 1 "$TMP/rb.pdf" - 2>/dev/null | tr '\n' ' ' | grep -oE 'rounds: page [0-9]+' | grep -oE '[0-9]+$')
check_match "the bisection page shows its heading" "$(pdftotext -f "${pb:-1}" -l "${pb:-1}" "$TMP/rb.pdf" - 2>/dev/null)" \
    "^Bisection bandwidth|.Bisection bandwidth"

finish test_pdf_links
