# mpilens decompress --pair: one pair's curve through the packed file's index equals the same
# pair of the fully restored cube (read by scipy, not mpilens) for every statistic; a file
# without the index (as written before it existed, made here by copying the file without its
# value_group variables) gives the same curve; bad pairs are clear errors.
. tests/lib.sh
PY=/usr/bin/python3
export SOURCE_DATE_EPOCH=1795219200
"$BIN/mpilens" synth -o "$TMP/c/network" --procs 24 --nodes 6 --slow-node 1 --bad-link 3,17 --lengths 0:8193:1024 2>/dev/null
check "compress" "$BIN/mpilens" compress "$TMP/c/network" -o "$TMP/p.nc" --max-error 0.02
check "decompress -o" "$BIN/mpilens" decompress "$TMP/p.nc" -o "$TMP/r/network"
# every pair of a few rows, against the restored cube element by element (the printed %.17g
# digits round-trip to the same double)
cat >"$TMP/cmp.py" <<'PYEOF'
import sys
from scipy.io import netcdf_file
stats = ["average", "median", "deviation", "min"]
cube = {s: netcdf_file(sys.argv[1] + "_" + s + ".nc", "r", mmap=False).variables["data"][:].copy() for s in stats}
bad = n = 0
pair = None
for line in sys.stdin:
    w = line.split()
    if line.startswith("=="):
        pair = [int(x) for x in w[1].split(",")]; k = 0; continue
    if line.startswith("#") or w[0] == "length":
        continue
    for c, s in enumerate(stats, 1):
        n += 1
        bad += float(w[c]) != cube[s][k, pair[0], pair[1]]
    k += 1
print("%d of %d differ" % (bad, n))
PYEOF
got=$(for ij in 0,0 0,23 23,0 3,17 17,3 11,12; do
    echo "== $ij"; "$BIN/mpilens" decompress "$TMP/p.nc" --pair "$ij"; done | $PY "$TMP/cmp.py" "$TMP/r/network")
check_eq "--pair equals the restored cube (6 pairs x 9 lengths x 4 statistics)" "$got" "0 of 216 differ"
out=$("$BIN/mpilens" decompress "$TMP/p.nc" --pair 3,17)
check_match "header names the pair and the unit" "$out" "^# .*p.nc: pair 3,17 .*seconds"
check_eq "one line per length" "$(echo "$out" | grep -c '^[0-9]')" "9"
# an old file: the same file without the index variables
$PY - "$TMP/p.nc" "$TMP/old.nc" <<'PYEOF'
import sys
from scipy.io import netcdf_file
a = netcdf_file(sys.argv[1], "r", mmap=False)
b = netcdf_file(sys.argv[2], "w", version=2)
b._attributes.update(a._attributes)  # "mode" is also scipy's own attribute: no setattr
for d, n in a.dimensions.items():
    b.createDimension(d, n)
for name, v in a.variables.items():
    if name.endswith("_value_group"):
        continue
    w = b.createVariable(name, v.data.dtype, v.dimensions)
    w[...] = v.data
    w._attributes.update(v._attributes)
b.close()
PYEOF
check "old file has no index" sh -c "! ncdump -h '$TMP/old.nc' | grep -q value_group"
check_eq "old file: same curve (index rebuilt on open)" "$("$BIN/mpilens" decompress "$TMP/old.nc" --pair 3,17 | tail -n +2)" \
    "$(echo "$out" | tail -n +2)"
check "old file: still decompresses" "$BIN/mpilens" decompress "$TMP/old.nc" --verify "$TMP/c/network"
# errors
check_exit "rank out of range" 1 "$BIN/mpilens" decompress "$TMP/p.nc" --pair 3,24
check_match "out of range names file, pair and ranks" "$(cat "$TMP/err")" "p.nc: pair 3,24 out of range: ranks are 0..23"
check_exit "old file, rank out of range" 1 "$BIN/mpilens" decompress "$TMP/old.nc" --pair 24,0
check_match "old file: message" "$(cat "$TMP/err")" "old.nc: pair 24,0 out of range"
check_exit "one number" 2 "$BIN/mpilens" decompress "$TMP/p.nc" --pair 3
check_match "usage names the form" "$(cat "$TMP/err")" "expected I,J"
check_exit "negative" 2 "$BIN/mpilens" decompress "$TMP/p.nc" --pair -1,2
check_exit "junk" 2 "$BIN/mpilens" decompress "$TMP/p.nc" --pair 1,2x
check_exit "with -o" 2 "$BIN/mpilens" decompress "$TMP/p.nc" --pair 1,2 -o "$TMP/x/network"
check_exit "not a packed file" 1 "$BIN/mpilens" decompress "$TMP/c/network_median.nc" --pair 1,2
check_match "not packed: message" "$(cat "$TMP/err")" "not a packed cube"
finish test_packed_pair
