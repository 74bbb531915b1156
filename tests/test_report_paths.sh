# mpilens report, issue 14: a report made from an absolute path names its input's files by the
# path's last two parts, as headings name the input, so the folder it was made in never shows
# anywhere in the PDF (pdftotext of every page), with or without --label.
. tests/lib.sh
export SOURCE_DATE_EPOCH=1715860800
flat() { pdftotext "$1" - | tr '\n\f' '  ' | tr -s ' '; }

# TMP is absolute (mktemp -d): the cube is named by an absolute path
D=$TMP/abs/run7
check "synth into an absolute path" "$BIN/mpilens" synth -o "$D/network" --procs 8 --nodes 2
case "$D" in /*) ok ;; *) fail "scratch directory is not absolute: $D" ;; esac
check "report from the absolute path" "$BIN/mpilens" report "$D/network" -o "$TMP/abs.pdf"
t=$(flat "$TMP/abs.pdf")
check_eq "no absolute folder anywhere in the PDF" "$(printf '%s' "$t" | grep -c "$TMP")" 0
# the Parameters page's files field: the relative name "run7/network" with the brace pattern
p=$(pdftotext -layout "$TMP/abs.pdf" - | tr -d '\f')
check_match "files field names run7/network" "$p" "files +run7/network_\{"
check_match "hosts file by its relative name" "$t" "run7/network_hosts.txt"
check_match "the heading uses the label rule" "$t" "Parameters of input 1: run7/network"

# a directory input: the reader resolves DIR/network, still printed relative
check "report from the absolute directory" "$BIN/mpilens" report "$D" -o "$TMP/dir.pdf"
check_eq "directory input: no absolute folder" "$(flat "$TMP/dir.pdf" | grep -c "$TMP")" 0
check_match "directory input: files field" "$(pdftotext -layout "$TMP/dir.pdf" - | tr -d '\f')" "files +run7/network_\{"

# with --label the heading takes the label; the files field keeps the relative file names
check "report with --label" "$BIN/mpilens" report "$D/network" --label "night run" -o "$TMP/lab.pdf"
t=$(flat "$TMP/lab.pdf")
check_eq "label: no absolute folder" "$(printf '%s' "$t" | grep -c "$TMP")" 0
check_match "label: heading" "$t" "Parameters of input 1: night run"
check_match "label: files field" "$t" "run7/network_\{"
finish test_report_paths
