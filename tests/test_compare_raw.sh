#!/usr/bin/env bash
# mpilens compare on cubes that carry their raw repeats (PREFIX_all.nc, as mpilens-bench --raw
# writes them): the test is then Welch's on the repeats ("test": "welch-raw"), checked against
# scipy's ttest_ind(equal_var=False) on the same files; a 1.5x link is found by it; a cube
# without repeats on either side falls back to the summary test, and says so.
. tests/lib.sh
PY=${PYTHON:-/usr/bin/python3}
M="$BIN/mpilens"

# raw.py PREFIX SEED [S R F]: replaces a synth cube's statistics by those of 10 raw repeats
# drawn around its average (lognormal, 3 %), writes them to PREFIX_all.nc in the layout of
# mpilens-bench --raw (data(n, x, y, z)); the link S -> R (row R, column S) scaled by F.
# Pair (1, 2) misses two repeats (NaN), as a bench run cut short does.
cat >"$TMP/raw.py" <<'EOF'
import sys
import numpy as np, netCDF4
prefix, seed = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(seed)
with netCDF4.Dataset(prefix + "_average.nc") as f:
    base = np.asarray(f.variables["data"][:], dtype=np.float64)
L, P, _ = base.shape
z = 10
raw = base[..., None] * np.exp(0.03 * rng.standard_normal((L, P, P, z)))
if len(sys.argv) > 3:
    s, r, fac = int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
    raw[:, r, s, :] *= fac
raw[:, 1, 2, :2] = np.nan
for i in range(P):
    raw[:, i, i, :] = 0
stats = {"average": np.nanmean(raw, axis=3), "median": np.nanmedian(raw, axis=3),
         "deviation": np.nanstd(raw, axis=3), "min": np.nanmin(raw, axis=3)}
for s, v in stats.items():
    with netCDF4.Dataset(prefix + "_" + s + ".nc", "r+") as f:
        f.variables["data"][:] = v
        f.variables["num_repeates"][...] = z
with netCDF4.Dataset(prefix + "_average.nc") as src, netCDF4.Dataset(prefix + "_all.nc", "w") as dst:
    dst.createDimension("x", P); dst.createDimension("y", P); dst.createDimension("n", None)
    dst.createDimension("z", z)
    for name, var in src.variables.items():
        if name != "data":
            v = dst.createVariable(name, var.dtype, var.dimensions)
            v[...] = var[...]
    dst.variables["num_repeates"][...] = z
    d = dst.createVariable("data", "f8", ("n", "x", "y", "z"))
    d[:] = np.where(np.isnan(raw), -1.0, raw)  # the plugins branch pads missing repeats with -1
EOF

# ref.py BASE NEW JSON: scipy's Welch on the repeats, BH at 0.01 over every testable pair and
# length; prints "tests threshold significant" for scipy, then for mpilens
cat >"$TMP/ref.py" <<'EOF'
import sys, json
import numpy as np, netCDF4
from scipy import stats
def raw(p):
    with netCDF4.Dataset(p + "_all.nc") as f:
        a = np.asarray(f.variables["data"][:], dtype=np.float64)
    a[a < 0] = np.nan
    return a
rb, rn = raw(sys.argv[1]), raw(sys.argv[2])
P = rb.shape[1]
off = ~np.eye(P, dtype=bool)
t, p = stats.ttest_ind(rn[:, off, :], rb[:, off, :], axis=2, equal_var=False, nan_policy="omit")
p = np.asarray(p, dtype=np.float64).ravel()
p = np.sort(p[np.isfinite(p)]); m = p.size
ok = p <= np.arange(1, m + 1) * 0.01 / m
k = np.nonzero(ok)[0].max() + 1 if ok.any() else 0
d = json.load(open(sys.argv[3]))
print(m, "%.6e" % (p[k - 1] if k else 0.0), k, d["tests"], "%.6e" % d["threshold"], d["significant"])
EOF

syn() { local d=$1 s=$2; shift 2; "$M" synth -o "$TMP/$d/network" --force --seed "$s" "$@" >/dev/null 2>&1 || fail "synth $d"; }
field() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

syn base 1; syn link 2
"$PY" "$TMP/raw.py" "$TMP/base/network" 11 || fail "raw base"
"$PY" "$TMP/raw.py" "$TMP/link/network" 12 3 9 1.5 || fail "raw link"
"$M" compare --json "$TMP/base/network" "$TMP/link/network" >"$TMP/link.json" 2>"$TMP/err" || fail "compare raw"
check_eq "raw repeats present: the raw test" "$(field "$TMP/link.json" 'd["test"]')" welch-raw
check_eq "raw: the 1.5x link, and only it" \
    "$(field "$TMP/link.json" '[(f["kind"], f["direction"], f["ranks"]) for f in d["findings"]]')" "[('link', 'slower', [3, 9])]"
check_close "raw: its ratio" "$(field "$TMP/link.json" 'd["findings"][0]["ratio"]')" 1.5 0.05
read -r m_py thr_py k_py m_ours thr_ours k_ours < <("$PY" "$TMP/ref.py" "$TMP/base/network" "$TMP/link/network" "$TMP/link.json")
check_eq "raw: tests counted as scipy (pair 1,2 has 8 repeats, still testable)" "$m_ours" "$m_py"
check_close "raw: BH threshold as scipy's ttest_ind" "$thr_ours" "$thr_py" 1e-6
check_eq "raw: significant tests as scipy" "$k_ours" "$k_py"
"$M" compare "$TMP/base/network" "$TMP/link/network" >"$TMP/link.txt"
check_match "text names the test" "$(cat "$TMP/link.txt")" "test: welch-raw \(Welch's t-test on the raw repeats"

# the summary test on the same statistics sees the link too, but it is another test: its
# threshold differs from the raw one (population deviation, no per-pair count)
mv "$TMP/link/network_all.nc" "$TMP/link_all.nc"
"$M" compare --json "$TMP/base/network" "$TMP/link/network" >"$TMP/sum.json"
check_eq "one side without repeats: the summary test" "$(field "$TMP/sum.json" 'd["test"]')" welch-summary
check_eq "summary: the link" "$(field "$TMP/sum.json" '[(f["kind"], f["ranks"]) for f in d["findings"]]')" "[('link', [3, 9])]"
check "summary and raw thresholds differ" test "$(field "$TMP/sum.json" 'd["threshold"]')" != "$(field "$TMP/link.json" 'd["threshold"]')"
mv "$TMP/link_all.nc" "$TMP/link/network_all.nc"

# a damaged _all.nc is an error naming it, never a silent fallback
"$PY" -c "
import netCDF4, sys
with netCDF4.Dataset(sys.argv[1], 'w') as f:
    f.createDimension('n', 1); f.createDimension('x', 16); f.createDimension('y', 16)
    f.createVariable('data', 'f8', ('n', 'x', 'y'))
" "$TMP/link/network_all.nc"
check_exit "damaged _all.nc" 1 "$M" compare "$TMP/base/network" "$TMP/link/network"
check_match "damaged _all.nc: message" "$(cat "$TMP/err")" "link/network_all.nc"

# sample statistics of the repeats, against numpy (tests/test_compare.c has the C side)
finish test_compare_raw
