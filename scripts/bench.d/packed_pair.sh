# Positional access to a packed cube: `mpilens decompress --pair I,J` (the pair's column of the
# stored partitions and the per-length index, docs/links.md "Packed cubes") against the full
# decode it replaces (`decompress -o`, every 1024 x 1024 matrix of every statistic), on a
# 1024-process x 16-length cube from synth + compress, each in its own process under
# /usr/bin/time. Both print the pair's curve; the two must agree to the last digit.
set -eu
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-pair.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$BIN/mpilens" synth -o "$dir/network" --procs 1024 --nodes 32 --sockets 2 --lengths 0:16384:1024 2>/dev/null
"$BIN/mpilens" compress "$dir/network" -o "$dir/packed.nc" --max-error 0.05 >/dev/null
run() { # run LABEL COMMAND...: prints "wall cpu maxrss_MB"
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time.$1" "${@:2}" >"$dir/out.$1" 2>/dev/null
    awk '{ printf "%.3f %.3f %.1f\n", $1, $2 + $3, $4 / 1024 }' "$dir/time.$1"
}
read -r pw pc pm < <(run pair "$BIN/mpilens" decompress "$dir/packed.nc" --pair 517,3)
read -r fw fc fm < <(run full "$BIN/mpilens" decompress "$dir/packed.nc" -o "$dir/restored/network")
# the curve from the restored cube (row 517, column 3) must be the --pair output
same=$(/usr/bin/python3 - "$dir/restored/network" "$dir/out.pair" <<'PYEOF'
import sys
from scipy.io import netcdf_file
pre, out = sys.argv[1], sys.argv[2]
rows = [l.split() for l in open(out) if not l.startswith("#")][1:]
ok = True
for c, st in enumerate(["average", "median", "deviation", "min"], 1):
    f = netcdf_file(pre + "_" + st + ".nc", "r", mmap=False)
    v = f.variables["data"].data[:, 517, 3]
    ok &= all(float(r[c]) == float(x) for r, x in zip(rows, v)) and len(rows) == len(v)
    f.close()
print("yes" if ok else "NO")
PYEOF
)
kb=$(du -k "$dir/packed.nc" | cut -f1)
awk -v pw="$pw" -v pc="$pc" -v pm="$pm" -v fw="$fw" -v fc="$fc" -v fm="$fm" -v kb="$kb" -v same="$same" 'BEGIN {
    printf "one pair of a packed cube, 1024 procs x 16 lengths x 4 statistics (file %.1f MB):\n", kb / 1024
    printf "  decompress --pair 517,3 (index):  %7.3f s wall, %7.3f s CPU, peak RSS %6.1f MB\n", pw, pc, pm
    printf "  decompress -o (full decode):      %7.3f s wall, %7.3f s CPU, peak RSS %6.1f MB\n", fw, fc, fm
    printf "  %.0fx less time, %.0fx less memory; curves equal: %s\n", fw / (pw > 0 ? pw : 0.001), fm / pm, same }'
[ "$same" = yes ]
