# Whole process against whole process on a 2400-process, 1-length cube (4 statistics, 46 MB
# each), where reading dominates: `mpilens cluster --method average --linkage Z.csv` (which
# loads only the median) against a Python script doing the same with netCDF4 + numpy +
# fastcluster, and `mpilens info` against netCDF4 + numpy computing the same summary. The
# goal (issue 13): at most half the Python script's time. Wall and CPU seconds, median of 5.
# The peers need python3-netcdf4 and python3-fastcluster (Debian); without them they are skipped.
# nj and report against their Python peers: peers.sh.
set -eu
PY=${PYTHON:-/usr/bin/python3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-readers.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$BIN/mpilens" synth -o "$dir/network" --procs 2400 --nodes 75 --sockets 2 --lengths 0:1:1 2>/dev/null

cat >"$dir/cluster.py" <<'EOF'
import sys
import numpy as np, netCDF4, fastcluster
from scipy.spatial.distance import squareform
with netCDF4.Dataset(sys.argv[1] + "_median.nc") as f:
    a = np.asarray(f.variables["data"][0, :, :], dtype=np.float64)
d = (a + a.T) / 2
np.fill_diagonal(d, 0)
Z = fastcluster.linkage(squareform(d, checks=False), method="average")
np.savetxt(sys.argv[2], Z, delimiter=",", fmt="%.17g")
EOF
cat >"$dir/info.py" <<'EOF'
import sys
import numpy as np, netCDF4
off = None
for s in ("average", "median", "deviation", "min"):
    with netCDF4.Dataset(sys.argv[1] + "_" + s + ".nc") as f:
        a = np.asarray(f.variables["data"][:], dtype=np.float64)
    if off is None:
        off = ~np.eye(a.shape[1], dtype=bool)
    v = a[:, off]
    v = v[np.isfinite(v)]
    print(s, v.min(), np.median(v), v.max())
    if s == "median":
        m = a[0]
        iu = np.triu_indices(m.shape[0], 1)
        x, y = m[iu], m.T[iu]
        r = np.abs(x - y) / (x + y)
        print("asymmetry", np.median(r), r.max())
EOF

# "wall cpu" of one run of a command, then the median of 5 of each
one() { /usr/bin/time -f "%e %U %S" "$@" >/dev/null 2>"$dir/t" || { tail -3 "$dir/t" >&2; return 1; }
        tail -1 "$dir/t" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }'; }
med5() { for i in 1 2 3 4 5; do one "$@"; done | sort -n | sed -n 3p; }

peers=1
"$PY" -c "import numpy, scipy, netCDF4, fastcluster" 2>/dev/null || peers=0
ours_c=$(med5 "$BIN/mpilens" cluster "$dir/network" --method average --linkage "$dir/Z.csv")
ours_i=$(med5 "$BIN/mpilens" info "$dir/network")
echo "cube 2400 processes x 1 length (4 statistics, $(du -cm "$dir"/network_*.nc | tail -1 | cut -f1) MB)"
if [ "$peers" = 0 ]; then
    echo "mpilens cluster --method average --linkage Z.csv: ${ours_c% *} s wall, ${ours_c#* } s CPU"
    echo "mpilens info: ${ours_i% *} s wall, ${ours_i#* } s CPU"
    echo "peers skipped: python3-netcdf4 / python3-fastcluster not installed"
    exit 0
fi
peer_c=$(med5 "$PY" "$dir/cluster.py" "$dir/network" "$dir/Zpy.csv")
peer_i=$(med5 "$PY" "$dir/info.py" "$dir/network")
# the two linkages agree on the merges (heights to the last digits)
same=$(tail -n +2 "$dir/Z.csv" | cut -d, -f1,2,4 | cmp -s - <(cut -d, -f1,2,4 "$dir/Zpy.csv" | sed 's/\.0*,/,/g; s/\.0*$//') && echo same || echo different)
report() {
    awk -v n="$1" -v o="$2" -v p="$3" 'BEGIN {
        split(o, a, " "); split(p, b, " ")
        printf "%-44s ours %5.2f s wall %5.2f s CPU | python %5.2f s wall %5.2f s CPU | ours/python %.2fx wall %.2fx CPU (goal <= 0.5x)\n",
               n, a[1], a[2], b[1], b[2], a[1] / b[1], (b[2] > 0 ? a[2] / b[2] : 0) }'
}
report "cluster --method average --linkage Z.csv" "$ours_c" "$peer_c"
report "info (4 statistics, asymmetry)" "$ours_i" "$peer_i"
echo "linkage merges: $same as fastcluster's"
