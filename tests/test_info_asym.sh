# `mpilens info`'s asymmetry per length against numpy on the same NetCDF files (netCDF4
# reads them, not our reader): median and max of |A - A^T| / (A + A^T) over pairs i < j.
. tests/lib.sh
PY=/usr/bin/python3
NT=$DATA/network-tests2
# the reference is a test package (scripts/install-deps.sh --test): without it the test fails
if ! $PY -c 'import numpy, netCDF4' 2>/dev/null; then
    check "numpy and netCDF4 importable (make deps-test)" false
    finish test_info_asym
    exit 1
fi
mkdir -p "$TMP/syn"
"$BIN/mpilens" synth -o "$TMP/syn/network" --procs 16 --nodes 2 --sockets 2 --lengths 0:4096:1024 >/dev/null 2>&1
for prefix in "$NT/one_to_one_np4/network" "$NT/all_to_all_np4/network" "$TMP/syn/network"; do
    name=$(basename "$(dirname "$prefix")")
    check "$name: info --json" "$BIN/mpilens" info --json "$prefix"
    "$BIN/mpilens" info --json "$prefix" >"$TMP/got.json" 2>/dev/null
    # the median statistic, as info uses (it is present in every file here)
    $PY - "${prefix}_median.nc" >"$TMP/want.json" <<'PYEOF'
import json, sys
import numpy as np, netCDF4
ds = netCDF4.Dataset(sys.argv[1])
ds.set_auto_mask(False)
d = np.array(ds.variables["data"][:], dtype=float)
L = d.shape[0]
P = d.shape[1]
iu = np.triu_indices(P, 1)
out = []
for k in range(L):
    a = d[k][iu]; b = d[k].T[iu]
    ok = np.isfinite(a) & np.isfinite(b) & (a + b > 0)
    r = np.abs(a[ok] - b[ok]) / (a[ok] + b[ok])
    out.append({"median": float(np.median(r)), "max": float(r.max())})
print(json.dumps({"asymmetry_per_length": out}))
PYEOF
    check "$name: per length equals numpy's" $PY tests/tools/jcmp.py "$TMP/got.json" "$TMP/want.json" 1e-12
    n=$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["asymmetry_per_length"]) == len(d["lengths"]) and all(e["length"] == l for e, l in zip(d["asymmetry_per_length"], d["lengths"])))' "$TMP/got.json")
    check_eq "$name: one entry per length, in order" "$n" "True"
    check_match "$name: whole-cube asymmetry kept" "$(cat "$TMP/got.json")" '"asymmetry": *\{"median"'
    # the text line names every length
    t=$("$BIN/mpilens" info "$prefix" 2>/dev/null)
    check_match "$name: text line" "$t" "asymmetry per length \(median/max\): [0-9]+ B "
    check_match "$name: threshold sentence" "$t" "asymmetry median (below 5% for lengths >= [0-9]+ B|not below 5% at the longest length)"
done
finish test_info_asym
