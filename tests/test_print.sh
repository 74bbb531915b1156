#!/usr/bin/env bash
# Print quality of the PDF reports (issue 14, item 5): every embedded figure is a raster of at
# least 300 ppi at the size it is placed, placed no wider than the width the figures' font
# floor assumes (render/fig/figure.h: LENS_FIGURE_PRINT_W = 483.276 pt, so no figure text is
# below 7 pt), and a long figure title wraps: all its words are in the SVG text layer.
. tests/lib.sh
ONE=$DATA/network-tests2/one_to_one_np4/network
export SOURCE_DATE_EPOCH=1715860800

# pdfimages -list: page num type width height color comp bpc enc interp object ID x-ppi y-ppi
# size ratio. Prints "ok" or the first image that fails.
ppi_ok() {
    pdfimages -list "$1" 2>/dev/null | awk 'NR > 2 {
        n++
        if ($13 + 0 < 300 || $14 + 0 < 300) { print "image " $2 " on page " $1 ": " $13 "x" $14 " ppi"; bad = 1; exit }
        # the placed width in points: pixels / ppi * 72, within the font floor width
        if ($4 / $13 * 72 > 483.276 + 0.5) { print "image " $2 " placed " $4 / $13 * 72 " pt wide"; bad = 1; exit }
    } END { if (!bad) print n ? "ok" : "no images" }'
}

check "report one_to_one_np4" "$BIN/mpilens" report "$ONE" -o "$TMP/one.pdf"
check_eq "latency report: every figure >= 300 ppi, placed <= 483.3 pt" "$(ppi_ok "$TMP/one.pdf")" ok

# the scale report's surfaces. Not yet here: the profile report (render/doc/profile_report.c
# embeds PNG files read back, at their natural size) and the rank chart of the problems report
# (drawn outside the figure protocol); both are render/doc's to move to the PNG bytes.
check "scale report" "$BIN/mpilens" scale report samples/scale/paper.csv -o "$TMP/scale.pdf"
check_eq "scale report: every figure >= 300 ppi" "$(ppi_ok "$TMP/scale.pdf")" ok
# the problems report's timelines (the 2nd image of each detailed problem)
check "problems report" "$BIN/mpilens" problems "$DATA/otf2/casita-4_mpi_ls_barr/traces.otf2" --report "$TMP/prob.pdf"
low=$(pdfimages -list "$TMP/prob.pdf" 2>/dev/null | awk 'NR > 2 && $4 >= 2000 { n++; if ($13 < 300) bad++ } END { print n + 0, bad + 0 }')
check_match "problems report: timelines >= 300 ppi (count, below)" "$low" '^[1-9][0-9]* 0$'

# the reference: the lowest ppi of the old embedding was 134 (a 900-pixel heatmap at 483 pt)
low=$(pdfimages -list "$TMP/one.pdf" 2>/dev/null | awk 'NR > 2 { if (m == "" || $13 < m) m = $13 } END { print m + 0 }')
check "lowest ppi $low >= 300" test "$low" -ge 300

# a long title: the dendrogram of an input with a long name wraps it in the SVG text layer
long="$TMP/a_rather_long_folder_name_for_the_cube/with_another_long_part_below_it/and_one_more"
mkdir -p "$long"
for f in "$ONE"_*.nc; do ln -s "$(realpath "$f")" "$long/$(basename "$f" | sed 's/^network_/net_/')"; done
check "cluster with a long input name" "$BIN/mpilens" cluster "$long/net" --plot "$TMP/d.svg"
title="Dendrogram of $long/net"
# the title's <text> lines of the text layer, joined: the whole title, nothing cut
got=$(python3 - "$TMP/d.svg" "$title" <<'PY'
import sys, re, html
svg = open(sys.argv[1], encoding="utf-8").read()
texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
want = sys.argv[2]
# lines of the title are consecutive texts whose concatenation (with spaces) is the title
for i in range(len(texts)):
    acc = texts[i]
    j = i
    while len(acc) < len(want) and j + 1 < len(texts):
        j += 1
        acc += " " + texts[j]
    if acc == want:
        print(j - i + 1)
        break
else:
    print(0)
PY
)
check "long title in the text layer, whole, on $got lines" test "${got:-0}" -ge 2
finish test_print
