# The pictures of `mpilens links --plot/--curves` and `mpilens compress --plot`: each cluster's
# share of the map's pixels is its share of the links, the curves SVG has one line of L points
# per cluster in the map's colour, the slice errors the command states match a recomputation
# from the original and the decompressed cube, reruns are byte-identical, and bad picture
# names or paths fail with nothing written.
. tests/lib.sh
PY=/usr/bin/python3
M="$BIN/mpilens"
"$M" synth -o "$TMP/m/n" --procs 16 --nodes 2 --sockets 2 --seed 4711 2>/dev/null

check "links --plot --curves" "$M" links "$TMP/m/n" --csv "$TMP/l.csv" --plot "$TMP/map.png" --curves "$TMP/c.svg"
check "again" "$M" links "$TMP/m/n" --plot "$TMP/map2.png" --curves "$TMP/c2.svg"
check "map png byte-identical" cmp "$TMP/map.png" "$TMP/map2.png"
check "curves svg byte-identical" cmp "$TMP/c.svg" "$TMP/c2.svg"
check "map svg" "$M" links "$TMP/m/n" --plot "$TMP/map.svg" --curves "$TMP/c.png"
check "map svg again" "$M" links "$TMP/m/n" --plot "$TMP/map2.svg" --curves "$TMP/c2.png"
check "map svg byte-identical" cmp "$TMP/map.svg" "$TMP/map2.svg"
check "curves png byte-identical" cmp "$TMP/c.png" "$TMP/c2.png"

# pixels of each cluster colour (exact) against the cluster sizes from links.csv
got=$(cd tests && $PY - "$TMP/map.png" "$TMP/l.csv" <<'PYEOF'
import sys
from pngcheck import pixels
pal = [(0x1f, 0x77, 0xb4), (0xff, 0x7f, 0x0e), (0x2c, 0xa0, 0x2c)]
w, h, rows = pixels(sys.argv[1])
cnt = [0, 0, 0]
for r in rows:
    for p in r:
        if p in pal:
            cnt[pal.index(p)] += 1
size = [0, 0, 0]
for line in open(sys.argv[2]).read().split("\n")[1:]:
    if line:
        size[int(line.split(",")[2])] += 1
# the legend swatches add a few pixels: shares agree within 2% of the map
tot_c, tot_s = sum(cnt), sum(size)
print(size, all(abs(c / tot_c - s / tot_s) < 0.02 for c, s in zip(cnt, size)), min(cnt) > 1000)
PYEOF
)
check_eq "map: pixel shares are cluster shares" "$got" "[48, 64, 128] True True"

# curves: per cluster exactly one stroked path of 9 points (1 M + 8 L) in the map's colour
got=$($PY - "$TMP/c.svg" <<'PYEOF'
import re, sys
t = open(sys.argv[1]).read()
pal = ["rgb(12.156863%,46.666667%,70.588235%)", "rgb(100%,49.803922%,5.490196%)",
       "rgb(17.254902%,62.745098%,17.254902%)"]
out = []
for col in pal:
    n = 0
    for m in re.finditer(r'<path [^>]*style="([^"]*)"[^>]*d="([^"]*)"', t):
        st, d = m.group(1), m.group(2)
        if "stroke:" + col in st and "fill:none" in st and d.count("M") == 1 and d.count("L") == 8:
            n += 1
    out.append(n)
print(out)
PYEOF
)
check_eq "curves: one 9-point line per cluster" "$got" "[1, 1, 1]"

# log length axis: lengths over two decades
"$M" synth -o "$TMP/w/n" --procs 8 --nodes 2 --lengths 0:131073:1024 --seed 99 2>/dev/null
check "curves on 129 lengths" "$M" links "$TMP/w/n" --curves "$TMP/w.png"
check "curves png written" test -s "$TMP/w.png"

# compress --plot: the stated errors match a recomputation
"$M" compress "$TMP/m/n" -o "$TMP/p.nc" --max-error 0.1 --plot "$TMP/s.svg" --plot-lengths 512,3000,4096 \
    >"$TMP/out" 2>"$TMP/stated"
check_eq "compress --plot exit" "$?" "0"
check_match "stated errors" "$(cat "$TMP/stated")" "wrote .*s.svg, median: 512 B max error .* RMS .*; 3072 B max error"
check "decompress" "$M" decompress "$TMP/p.nc" -o "$TMP/d/n"
got=$($PY - "$TMP/m/n_median.nc" "$TMP/d/n_median.nc" "$TMP/stated" <<'PYEOF'
import re, sys
import numpy as np
from scipy.io import netcdf_file
def cube(p):
    f = netcdf_file(p, "r", mmap=False)
    d = np.array(f.variables["data"][:], dtype=float)
    b, s = int(f.variables["begin_mes_length"][()]), int(f.variables["step_length"][()])
    f.close()
    return d, b, s
o, b, s = cube(sys.argv[1])
d, _, _ = cube(sys.argv[2])
text = open(sys.argv[3]).read()
ok = True
for L, mx, rms in re.findall(r"(\d+) B max error ([0-9.e+-]+)% RMS ([0-9.e+-]+)%", text):
    k = (int(L) - b) // s
    P = o.shape[1]
    off = ~np.eye(P, dtype=bool)
    r = np.abs(d[k][off] - o[k][off]) / np.abs(o[k][off])
    ok &= abs(float(mx) - 100 * r.max()) <= 0.0051 * 100 * r.max() + 1e-9
    ok &= abs(float(rms) - 100 * np.sqrt((r * r).mean())) <= 0.0051 * 100 * np.sqrt((r * r).mean()) + 1e-9
print(len(re.findall(r" B max error", text)), ok)
PYEOF
)
check_eq "slice errors match a recomputation" "$got" "3 True"
check_match "compress text output unchanged" "$(head -n 1 "$TMP/out")" "^packed .* into .*p.nc: 4 statistics"
# per slice: original, decoded and error panels (16 x 16 rasters) and two colour bars (1 x 256)
check_eq "slices svg: three panels per slice" "$(grep -o '<image[^>]*width="16" height="16"' "$TMP/s.svg" | wc -l)" "9"
check_eq "slices svg: two colour bars per slice" "$(grep -o '<image[^>]*width="1" height="256"' "$TMP/s.svg" | wc -l)" "6"
"$M" compress "$TMP/m/n" -o "$TMP/p2.nc" --max-error 0.1 --plot "$TMP/s2.svg" --plot-lengths 512,3000,4096 >/dev/null 2>&1
check "slices svg byte-identical" cmp "$TMP/s.svg" "$TMP/s2.svg"
"$M" compress "$TMP/m/n" -o "$TMP/p3.nc" --plot "$TMP/s3.png" >/dev/null 2>&1
"$M" compress "$TMP/m/n" -o "$TMP/p4.nc" --plot "$TMP/s4.png" >/dev/null 2>&1
check "slices png byte-identical" cmp "$TMP/s3.png" "$TMP/s4.png"

# errors: bad names are usage errors, bad paths fail naming the file, nothing is written
check_exit "links --plot .jpg" 2 "$M" links "$TMP/m/n" --plot "$TMP/x.jpg"
check_match "names the option" "$(cat "$TMP/err")" "--plot must end in .png or .svg"
check_exit "links --curves no extension" 2 "$M" links "$TMP/m/n" --curves "$TMP/x"
check_exit "links unwritable plot" 1 "$M" links "$TMP/m/n" --csv "$TMP/e.csv" --plot "$TMP/no/dir/m.png"
check_match "unwritable plot named" "$(cat "$TMP/err")" "no/dir/m.png"
check "no csv left when the plot fails" test ! -e "$TMP/e.csv"
check_exit "links unwritable curves" 1 "$M" links "$TMP/m/n" --plot "$TMP/e.png" --curves "$TMP/no/dir/c.svg"
check "no map left when the curves fail" test ! -e "$TMP/e.png"
check_exit "compress --plot .pdf" 2 "$M" compress "$TMP/m/n" -o "$TMP/q.nc" --plot "$TMP/s.pdf"
check_exit "compress bad --plot-lengths" 2 "$M" compress "$TMP/m/n" -o "$TMP/q.nc" --plot "$TMP/q.png" --plot-lengths 1,x
check_exit "compress too many lengths" 2 "$M" compress "$TMP/m/n" -o "$TMP/q.nc" --plot "$TMP/q.png" \
    --plot-lengths 1,2,3,4,5,6,7,8,9
check_exit "--plot-lengths without --plot" 2 "$M" compress "$TMP/m/n" -o "$TMP/q.nc" --plot-lengths 0
check_exit "compress unwritable plot" 1 "$M" compress "$TMP/m/n" -o "$TMP/q.nc" --plot "$TMP/no/dir/s.png"
check_match "unwritable slices named" "$(cat "$TMP/err")" "no/dir/s.png"
check "no packed file when the plot fails" test ! -e "$TMP/q.nc"
check "no temporaries left" test -z "$(find "$TMP" -name '*.tmp*')"
check_exit "links help" 0 "$M" links --help
check_match "links help shows --plot" "$(cat "$TMP/out")" "--plot FILE"
check_exit "compress help" 0 "$M" compress --help
check_match "compress help shows --plot-lengths" "$(cat "$TMP/out")" "--plot-lengths"
finish test_linkpics
