#!/usr/bin/env bash
# mpilens compare (issue 15): two synthetic cubes of 1024 processes x 16 lengths (16.8 million
# pair tests), goal < 3 s and memory below four P x P matrices beyond the program's own.
# Peer in the same run: numpy + scipy doing the same tests (Welch from the statistics,
# scipy.stats.ttest_ind_from_stats) and Benjamini-Hochberg over all of them; the two must
# agree on the number of tests and of significant ones. Wall and CPU seconds, median of 3.
set -eu
PY=${PYTHON:-/usr/bin/python3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-compare.XXXXXX")
trap 'rm -rf "$dir"' EXIT
for s in 1 2; do
    "$BIN/mpilens" synth -o "$dir/r$s/network" --procs 1024 --nodes 64 --sockets 2 \
        --lengths 0:7681:512 --seed $s >/dev/null 2>&1
done

cat >"$dir/compare.py" <<'PYEOF'
import sys
import numpy as np, netCDF4
from scipy import stats
def load(p, s):
    with netCDF4.Dataset(p + "_" + s + ".nc") as f:
        return np.asarray(f.variables["data"][:], dtype=np.float64), int(f.variables["num_repeates"][...])
ab, nb = load(sys.argv[1], "average"); db, _ = load(sys.argv[1], "deviation")
an, nn = load(sys.argv[2], "average"); dn, _ = load(sys.argv[2], "deviation")
off = ~np.eye(ab.shape[1], dtype=bool)
_, p = stats.ttest_ind_from_stats(an[:, off], dn[:, off], nn, ab[:, off], db[:, off], nb, equal_var=False)
p = p[np.isfinite(p)]
ps = np.sort(p)
m = ps.size
ok = np.nonzero(ps <= np.arange(1, m + 1) * 0.01 / m)[0]
print(m, ok.max() + 1 if ok.size else 0)
PYEOF

# "wall cpu rss_MB" of one run, then the median of 3 by wall time
one() { /usr/bin/time -f "%e %U %S %M" "$@" >"$dir/out" 2>"$dir/t" || { tail -3 "$dir/t" >&2; return 1; }
        tail -1 "$dir/t" | awk '{ printf "%s %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }'; }
med3() { for i in 1 2 3; do one "$@"; done | sort -n | sed -n 2p; }

# the process baseline: the same command on two 4-process cubes, whose matrices are nothing;
# the four-matrix bound is on what the comparison adds above it
for s in 1 2; do
    "$BIN/mpilens" synth -o "$dir/t$s/network" --procs 4 --nodes 2 --sockets 1 --lengths 0:7681:512 --seed $s >/dev/null 2>&1
done
base_rss=$(med3 "$BIN/mpilens" compare --json "$dir/t1/network" "$dir/t2/network" | cut -d' ' -f3)
ours=$(med3 "$BIN/mpilens" compare --json "$dir/r1/network" "$dir/r2/network")
counts=$("$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['tests'], d['significant'])" "$dir/out")
set -- $ours
echo "compare 1024 processes x 16 lengths, $(du -cm "$dir"/r1/network_*.nc | tail -1 | cut -f1) MB per cube"
bound=$((1024 * 1024 * 8 * 4 / 1048576))
echo "mpilens compare: $1 s wall, $2 s CPU (goal < 3 s: $(awk -v t="$2" 'BEGIN { print (t < 3 ? "met" : "MISSED") }') on CPU), peak RSS $3 MB"
echo "memory above the process baseline ($base_rss MB): $(( $3 - base_rss )) MB, bound four matrices = $bound MB:" \
     "$([ $(( $3 - base_rss )) -lt "$bound" ] && echo met || echo MISSED)"
if ! "$PY" -c "import numpy, scipy, netCDF4" 2>/dev/null; then
    echo "peer skipped: python3-scipy / python3-netcdf4 not installed"
    exit 0
fi
peer=$(med3 "$PY" "$dir/compare.py" "$dir/r1/network" "$dir/r2/network")
pc=$(cat "$dir/out")
set -- $peer
echo "numpy/scipy (same test, same BH): $1 s wall, $2 s CPU, peak RSS $3 MB"
echo "tests and significant: mpilens $counts, scipy $pc ($([ "$counts" = "$pc" ] && echo same || echo DIFFERENT))"
