#!/usr/bin/env bash
# mpilens report: the per-length heatmaps of a cube share one log colour range (issue 14,
# item 8). A noise-free synthetic cube, then the same cube with one cell of its last length
# made 1000x slower (ncdump / ncgen): the other lengths' SVG cell colours must not move, the
# outlier lands in the top end colour, and --own-range gives the old per-length colours back.
. tests/lib.sh
export SOURCE_DATE_EPOCH=1700000000
S="$TMP/s"
$BIN/mpilens synth -o "$S" --noise 0 --procs 8 --nodes 2 > /dev/null 2>&1
check "synthetic cube" test -s "${S}_median.nc"
mkdir -p "$TMP/o"
for f in "${S}"_*.nc "${S}"_hosts.txt; do cp "$f" "$TMP/o/o${f#$S}"; done
# the outlier: receiver 1, sender 2 of the last length (n = 8), in the median file
ncdump "${S}_median.nc" > "$TMP/m.cdl"
/usr/bin/python3 - "$TMP/m.cdl" > "$TMP/o.cdl" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"\n data =(.*?);", text, re.S)
vals = [v.strip() for v in m.group(1).split(",")]
k = 8 * 64 + 1 * 8 + 2
vals[k] = repr(float(vals[k]) * 1000)
sys.stdout.write(text[:m.start(1)] + " " + ", ".join(vals) + text[m.end(1):])
PY
check "cube with the outlier" ncgen -o "$TMP/o/o_median.nc" "$TMP/o.cdl"
R="$BIN/mpilens report --lengths 0,2048,4096"
check "report" $R -o "$TMP/a.pdf" --figures "$TMP/fa" "$S"
check "report with outlier" $R -o "$TMP/b.pdf" --figures "$TMP/fb" "$TMP/o/o"
check "report --own-range" $R -o "$TMP/c.pdf" --figures "$TMP/fc" --own-range "$S"
check "report --own-range with outlier" $R -o "$TMP/d.pdf" --figures "$TMP/fd" --own-range "$TMP/o/o"
# the multiset of fill colours of a heatmap's SVG (cells, colour bar, histogram)
fills() { grep -o 'rgb([^)]*)' "$1" | sort | uniq -c; }
for len in 0 2048; do
    check_eq "shared range: ${len} B colours unmoved by the outlier" \
        "$(fills "$TMP/fb/heatmap_median_${len}B.svg")" "$(fills "$TMP/fa/heatmap_median_${len}B.svg")"
done
# with the shared range the 0 B map is drawn on the cube's colours, not its own: they differ
if [ "$(fills "$TMP/fa/heatmap_median_0B.svg")" != "$(fills "$TMP/fc/heatmap_median_0B.svg")" ]; then ok
else fail "shared and own range give the same 0 B colours"; fi
# the outlier cell in the top colour of viridis (#fde725 = 99.2%,90.6%,14.5%): the cube's
# range ends at its 99.5th percentile, so the cell is clipped there, not stretching the scale
check_match "outlier in the top end colour" "$(fills "$TMP/fb/heatmap_median_4096B.svg")" \
    "rgb\(99\.2[0-9]*%,90\.[0-9]*%,14\.[0-9]*%\)"
# --own-range: the outlier stretches its own length only (the old behaviour)
check_eq "own range: 0 B unmoved" "$(fills "$TMP/fd/heatmap_median_0B.svg")" "$(fills "$TMP/fc/heatmap_median_0B.svg")"
if [ "$(fills "$TMP/fd/heatmap_median_4096B.svg")" != "$(fills "$TMP/fc/heatmap_median_4096B.svg")" ]; then ok
else fail "own range: the outlier changed nothing at 4096 B"; fi
check "PDF byte-identical on rerun" $R -o "$TMP/a2.pdf" "$S"
check "same PDF" cmp "$TMP/a.pdf" "$TMP/a2.pdf"
finish test_report_heatrange
