#!/usr/bin/env bash
# The title pages of problems.pdf, compare.pdf and scale.pdf name their inputs by the last two
# parts of the path (lens_report_path_tail), as report.pdf does: made from absolute paths under
# $TMP, no page may show the $TMP prefix, and each input's two-part tail must show.
. tests/lib.sh
M="$BIN/mpilens"
export SOURCE_DATE_EPOCH=1795219200
# $TMP is absolute (mktemp under /tmp); inputs are copied under it so every path given is too
mkdir -p "$TMP/in/traces" "$TMP/in/scale"
cp -r "$DATA/otf2/casita-4_mpi_ls_barr" "$TMP/in/traces/"
cp samples/scale/paper.csv "$TMP/in/scale/"
"$M" synth -o "$TMP/in/base/network" --force --seed 1 >/dev/null 2>&1 || fail "synth base"
"$M" synth -o "$TMP/in/new/network" --force --seed 2 >/dev/null 2>&1 || fail "synth new"

# shown TEXTFILE TAIL: the PDF text has TAIL and nothing under $TMP
shown() {
    check_eq "$1: no absolute input path" "$(grep -c -F "$TMP" "$2")" 0
    check_eq "$1: names $3" "$(grep -c -F "$3" "$2" | awk '{ print ($1 > 0) }')" 1
}
check "problems --report" "$M" problems --rules "$PWD/templates/rules" "$TMP/in/traces/casita-4_mpi_ls_barr" \
    --report "$TMP/p.pdf"
pdftotext "$TMP/p.pdf" "$TMP/p.txt" 2>/dev/null
shown problems "$TMP/p.txt" "traces/casita-4_mpi_ls_barr"
# the rule base given absolutely shows its tail as well
check_eq "problems: rule base by its tail" "$(grep -c -F "$PWD/templates" "$TMP/p.txt")" 0

check "compare -o" "$M" compare -o "$TMP/c.pdf" "$TMP/in/base/network" "$TMP/in/new/network"
pdftotext "$TMP/c.pdf" "$TMP/c.txt" 2>/dev/null
shown compare "$TMP/c.txt" "base/network"
shown compare "$TMP/c.txt" "new/network"

check "scale report" "$M" scale report "$TMP/in/scale/paper.csv" -o "$TMP/s.pdf"
pdftotext "$TMP/s.pdf" "$TMP/s.txt" 2>/dev/null
shown scale "$TMP/s.txt" "scale/paper.csv"
finish test_pdf_abspaths
