#!/usr/bin/env bash
# mpilens profile-clusters --report: the PDF "Where the time goes" read back with poppler
# (pdfinfo, pdftotext, pdfimages). The planted answer of samples/profiles/halo64.csv must be in
# the words; the ranked table must follow the totals python computes from the CSV; one figure
# per round plus the scatter; byte-identical with SOURCE_DATE_EPOCH; a Score-P trace as input;
# the error paths (bad output path, template, data directory) leave no file.
. tests/lib.sh
PY=/usr/bin/python3
M=$BIN/mpilens
CMD=profile-clusters
"$M" $CMD --help >/dev/null 2>&1 || CMD=profile_clusters
HALO=samples/profiles/halo64.csv
CASITA=$DATA/otf2/casita-4_mpi_ls_barr
text() { pdftotext -layout "$1" - | tr -d '\f'; }
flat() { pdftotext "$1" - 2>/dev/null | tr -s ' \n\f' '  '; }
export SOURCE_DATE_EPOCH=1712345678
mkdir -p "$TMP/figs"
export TMPDIR=$TMP/figs

# 1. the halo profile: 16 ranks (48-63) spend 10x in exchange_halo
"$M" $CMD "$HALO" --report "$TMP/halo.pdf" >"$TMP/halo.txt" 2>"$TMP/err"
check_eq "halo: exit" "$?" 0
check "halo: pdfinfo reads it" pdfinfo "$TMP/halo.pdf"
info=$(pdfinfo "$TMP/halo.pdf" 2>/dev/null)
check_match "halo: title" "$info" "Title: +Where the time goes"
check_match "halo: date from SOURCE_DATE_EPOCH" "$info" "CreationDate: +.*Apr +5 .*2024"
pages=$(echo "$info" | awk '/^Pages:/ { print $2 }')
check "halo: 4 or more pages (got $pages)" test "$pages" -ge 4
T=$(text "$TMP/halo.pdf")
check_match "halo: section heading" "$T" "Where the time goes"
check_match "halo: dominating function in words" "$T" "One function dominates the run: exchange_halo"
check_match "halo: process group as ranges" "$T" "costly processes +16 48-63"
check_match "halo: the other group" "$T" "other processes +48 0-47"
# the prose is exactly what the text output ends with
prose=$(tail -n 1 "$TMP/halo.txt" | tr -s ' ' ' ')
check "halo: prose of lens_icappa_write_prose" sh -c 'flat() { pdftotext "$1" - 2>/dev/null | tr -s " \n\f" "  "; }; flat "$1" | grep -qF -- "$2"' _ "$TMP/halo.pdf" "$prose"
# ranked table: the first five rows in the order of the totals from the CSV
want=$($PY -c '
import csv, collections, sys
t = collections.Counter()
for r in csv.DictReader(open(sys.argv[1])): t[r["function"]] += float(r["seconds"])
print(" ".join(f for f, _ in sorted(t.items(), key=lambda kv: (-kv[1], kv[0]))[:5]))' "$HALO")
got=$(echo "$T" | awk '$1 ~ /^[1-5]$/ && NF >= 4 && $2 !~ /^[0-9|]/ { print $2 }' | head -n 5 | tr '\n' ' ')
check_eq "halo: ranked functions" "$got" "$want "
total=$($PY -c '
import csv, sys
print(sum(float(r["seconds"]) for r in csv.DictReader(open(sys.argv[1]))))' "$HALO")
shown=$(echo "$T" | awk '$1 == "time" && $2 == "in" && $3 == "all" { print $4 }')
# 4 significant digits (common/units.h): within half a unit of the fourth
check_close "halo: time in all on the title page" "$shown" "$total" 5e-4
# figures: one bar chart per round (at most 8), the scatter and the box plots, embedded as images
rounds=$("$M" $CMD "$HALO" --json | $PY -c 'import json, sys; print(min(len(json.load(sys.stdin)["iterations"]), 8))')
check_eq "halo: images = rounds + scatter + box plots" "$(pdfimages -list "$TMP/halo.pdf" 2>/dev/null | awk 'NR > 2 && $3 == "image"' | wc -l)" $((rounds + 2))
check_match "halo: figure captions" "$T" "Figure $((rounds + 1)): the processes on their first two principal"
check_eq "halo: the figure directory is removed" "$(ls -A "$TMP/figs")" ""
# same input and date: same bytes
"$M" $CMD "$HALO" --report "$TMP/halo2.pdf" >/dev/null 2>&1
check "halo: byte-identical" cmp -s "$TMP/halo.pdf" "$TMP/halo2.pdf"
# a UTF-8 title
"$M" $CMD "$HALO" --report "$TMP/ru.pdf" --title "Куда уходит время" >/dev/null 2>&1
check_match "halo: UTF-8 title" "$(pdfinfo "$TMP/ru.pdf" 2>/dev/null)" "Title: +Куда уходит время"
check_match "halo: UTF-8 title on the page" "$(text "$TMP/ru.pdf")" "Куда уходит время"

# 2. a Score-P trace as input: foo on rank 0
"$M" $CMD "$CASITA" --report "$TMP/casita.pdf" >/dev/null 2>"$TMP/err"
check_eq "casita: exit" "$?" 0
T=$(text "$TMP/casita.pdf")
check_match "casita: foo dominates" "$T" "One function dominates the run: foo"
check_match "casita: rank 0" "$T" "costly processes +1 0 "
check_match "casita: names the trace" "$T" "profile +.*casita-4_mpi_ls_barr"

# 3. one process: no scatter, a note instead
printf 'process,function,seconds\n3,solve,2.5\n3,io,0.25\n3,MPI_Wait,0.125\n' >"$TMP/one.csv"
"$M" $CMD "$TMP/one.csv" --report "$TMP/one.pdf" >/dev/null 2>"$TMP/err"
check_eq "one process: exit" "$?" 0
check_match "one process: scatter note" "$(flat "$TMP/one.pdf")" "needs at least two processes"
check_match "one process: the group is everyone" "$(text "$TMP/one.pdf")" "all processes +1 3 "

# 4. errors: exit 1, a message naming the file, no PDF
check_exit "output in a missing directory" 1 "$M" $CMD "$HALO" --report "$TMP/no/such/r.pdf"
check_match "output error names it" "$(cat "$TMP/err")" "no/such/r.pdf"
check "no output file" test ! -e "$TMP/no/such/r.pdf"
mkdir -p "$TMP/data/templates"
ln -s "$PWD/fonts" "$TMP/data/fonts"
cp templates/report.tmpl "$TMP/data/templates/"
sed 's/^section iterations/section iterationz/' templates/profile_report.tmpl >"$TMP/data/templates/profile_report.tmpl"
MPILENS_DATADIR=$TMP/data check_exit "unknown section" 1 "$M" $CMD "$HALO" --report "$TMP/bad.pdf"
check_match "unknown section: file and line" "$(cat "$TMP/err")" "profile_report.tmpl:[0-9]+: unknown section 'iterationz'"
check "unknown section: no output" test ! -e "$TMP/bad.pdf"
sed 's/^para Which functions take/para Which ${nonsense} take/' templates/profile_report.tmpl >"$TMP/data/templates/profile_report.tmpl"
MPILENS_DATADIR=$TMP/data check_exit "unknown placeholder" 1 "$M" $CMD "$HALO" --report "$TMP/bad.pdf"
check_match "unknown placeholder: file and line" "$(cat "$TMP/err")" "profile_report.tmpl:[0-9]+: .*nonsense"
check "unknown placeholder: no output" test ! -e "$TMP/bad.pdf"
rm "$TMP/data/templates/profile_report.tmpl"
MPILENS_DATADIR=$TMP/data check_exit "missing template" 1 "$M" $CMD "$HALO" --report "$TMP/bad.pdf"
check_match "missing template: names it" "$(cat "$TMP/err")" "profile_report.tmpl"
mkdir -p "$TMP/emptydata"
MPILENS_DATADIR=$TMP/emptydata check_exit "data directory without fonts" 1 "$M" $CMD "$HALO" --report "$TMP/bad.pdf"
check_match "data directory error names it" "$(cat "$TMP/err")" "MPILENS_DATADIR=.*emptydata"
TMPDIR=$TMP/no/such/tmp check_exit "figure directory cannot be made" 1 "$M" $CMD "$HALO" --report "$TMP/bad.pdf"
check_match "figure directory error names it" "$(cat "$TMP/err")" "no/such/tmp/mpilens-profile"
check "no output after any error" test ! -e "$TMP/bad.pdf"
check_exit "--title without --report: usage" 2 "$M" $CMD "$HALO" --title x
check_match "help names --report" "$("$M" $CMD --help)" "--report OUT.pdf"

finish test_profile_report
