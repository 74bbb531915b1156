#!/usr/bin/env bash
# The report's groups and automatic cut are `mpilens cluster --cut auto`'s: both come from
# lens_structure_run (analysis/structure/structure.h) now. On cubes whose cut differs (4 nodes, shuffled
# ranks, two switches, one host) the report's table of groups (ranks and sizes) and its gap
# ratio are compared with the clusters CSV and the stderr line of `cluster`, which is the
# reference here: an independent path through the command's own output code.
. tests/lib.sh
export SOURCE_DATE_EPOCH=1700000000
text() { pdftotext -layout "$1" - | tr -d '\f'; }

# groups of a clusters CSV (rank,host,cluster) as "group size ranks" with the report's rank
# runs ("0-7, 12, 14-15")
groups_of() {
    awk -F, 'NR > 1 { r[$3] = r[$3] (r[$3] == "" ? "" : " ") $1; n[$3]++; if ($3 > k) k = $3 }
        END { for (g = 0; g <= k; g++) {
                  m = split(r[g], a, " "); out = ""; s = a[1]
                  for (i = 1; i <= m; i++)
                      if (i == m || a[i + 1] != a[i] + 1) {
                          out = out (out == "" ? "" : ", ") (s == a[i] ? s : s "-" a[i]); s = a[i + 1] }
                  print g, n[g], out } }' "$1"
}

compare() { # compare NAME PREFIX: report against cluster on one cube
    local name=$1 in=$2
    check "$name: report" "$BIN/mpilens" report "$in" -o "$TMP/$name.pdf"
    "$BIN/mpilens" cluster "$in" --cut auto --clusters "$TMP/$name.csv" 2>"$TMP/$name.err" >/dev/null
    check_eq "$name: cluster exit" "$?" 0
    local t k ratio
    t=$(text "$TMP/$name.pdf" | sed -n '/^Structure of the machine/,/^Anomalies/p')
    k=$(sed -n 's/.*cut into \([0-9]*\) cluster.*/\1/p' "$TMP/$name.err")
    ratio=$(sed -n 's/.*the next merge is \([0-9.e+]*\)x.*/\1/p' "$TMP/$name.err")
    check_eq "$name: clusters in the CSV" "$(awk -F, 'NR > 1 { print $3 }' "$TMP/$name.csv" | sort -u | wc -l)" "$k"
    if [ "$k" -gt 1 ]; then
        # the report prints the gap to 2 decimals, cluster to 3 significant digits
        got=$(printf '%s\n' "$t" | tr '\n' ' ' | sed -n 's/.*, \([0-9.]*\) times higher.*/\1/p')
        check_close "$name: gap ratio" "${got:-0}" "$ratio" 0.01
        check_match "$name: $k groups in words" "$(printf '%s\n' "$t" | tr '\n' ' ')" "This leaves $k groups"
    else
        check_match "$name: one group in words" "$(printf '%s\n' "$t" | tr '\n' ' ')" "one group of"
    fi
    local rows=0
    while read -r g size ranks; do
        check_match "$name: group $g as cluster's" "$t" "^ +$g +$size +$ranks +"
        rows=$((rows + 1))
    done < <(groups_of "$TMP/$name.csv")
    check_eq "$name: report rows" "$(printf '%s\n' "$t" | grep -cE '^ +[0-9]+ +[0-9]+ +[0-9][0-9, -]* +[^ ]')" "$rows"
}

compare synth32 samples/cubes/synth32/network
check "synth shuffled" "$BIN/mpilens" synth -o "$TMP/shuf/network" --procs 16 --nodes 4 --shuffle --seed 4242
compare shuffled "$TMP/shuf/network"
check "synth two switches" "$BIN/mpilens" synth -o "$TMP/sw/network" --procs 32 --nodes 8 --switches 2 --seed 77
compare switches "$TMP/sw/network"
# a one-host cube fails the data-quality gate since issue 14: the report draws no groups at all
# (the structure section is left out), so there is nothing to compare with cluster's
check "report onehost" "$BIN/mpilens" report "$DATA/network-tests2/one_to_one_np4/network" -o "$TMP/onehost.pdf"
check_eq "onehost: no structure section" "$(text "$TMP/onehost.pdf" | grep -c '^Structure of the machine$')" 0

# the test can fail: a cut the report does not make is told apart
printf 'rank,host,cluster\n0,a,0\n1,a,1\n' >"$TMP/wrong.csv"
check_eq "a wrong reference differs" "$(groups_of "$TMP/wrong.csv" | head -1)" "0 1 0"
finish test_structure_once
