# Whole process against its nearest Python equivalent, for the two commands readers.sh leaves
# out (issue 13: at most half the Python script's time). Median of 5, wall and CPU seconds,
# the line format of readers.sh.
#   nj: `mpilens nj CUBE --newick` against a numpy neighbour joining (Saitou and Nei, "The
#       neighbor-joining method", with Studier and Keppler's Q matrix, vectorised, O(n^3)) on a
#       600-process cube, where it runs in seconds (Biopython's DistanceTreeConstructor is far
#       too slow at this size); both trees must have the same split sets ("same tree").
#   report: `mpilens report CUBE -o r.pdf` against matplotlib drawing, per statistic, the
#       heatmap and the histogram of the delays with the min/median/max table into one
#       multi-page PDF (PdfPages), from the same files.
# Peers need python3-netcdf4, python3-numpy, python3-matplotlib (Debian); without them the
# peer is skipped with a line saying so.
set -eu
PY=${PYTHON:-/usr/bin/python3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-peers.XXXXXX")
trap 'rm -rf "$dir"' EXIT
P=600
"$BIN/mpilens" synth -o "$dir/network" --procs $P --nodes 20 --sockets 2 --lengths 0:1:1 2>/dev/null

cat >"$dir/nj.py" <<'EOF'
import sys
import numpy as np, netCDF4
with netCDF4.Dataset(sys.argv[1] + "_median.nc") as f:
    a = np.asarray(f.variables["data"][0, :, :], dtype=np.float64)
d = (a + a.T) / 2
np.fill_diagonal(d, 0)
n = d.shape[0]
node = ["r%d" % i for i in range(n)]  # Newick of each active cluster
m = n
while m > 3:
    # Q(i,j) = (m-2) d(i,j) - r_i - r_j; the pair with the least Q joins
    r = d[:m, :m].sum(axis=1)
    q = (m - 2) * d[:m, :m] - r[:, None] - r[None, :]
    np.fill_diagonal(q, np.inf)
    i, j = np.unravel_index(np.argmin(q), q.shape)
    i, j = min(i, j), max(i, j)
    li = 0.5 * d[i, j] + (r[i] - r[j]) / (2 * (m - 2))
    lj = d[i, j] - li
    du = 0.5 * (d[i, :m] + d[j, :m] - d[i, j])
    node[i] = "(%s:%.17g,%s:%.17g)" % (node[i], li, node[j], lj)
    d[i, :m] = du
    d[:m, i] = du
    d[i, i] = 0
    # the last active cluster takes j's place, so the active ones stay 0..m-2
    last = m - 1
    d[j, :m] = d[last, :m]
    d[:m, j] = d[:m, last]
    d[j, j] = 0
    node[j] = node[last]
    m -= 1
# the last three meet at one centre (the unrooted tree's root of degree 3)
l0 = (d[0, 1] + d[0, 2] - d[1, 2]) / 2
l1 = d[0, 1] - l0
l2 = d[0, 2] - l0
with open(sys.argv[2], "w") as f:
    f.write("(%s:%.17g,%s:%.17g,%s:%.17g);\n" % (node[0], l0, node[1], l1, node[2], l2))
EOF
# The topology test: the set of splits (each edge's smaller-rank-free side) of both trees.
cat >"$dir/splits.py" <<'EOF'
import re, sys
def splits(path):
    s = open(path).read().strip().rstrip(";")
    stack, leaves, out = [[]], None, []
    # leaves are r<rank> or r<rank>@host: the rank names the leaf in both trees
    for tok in re.findall(r"\(|\)|,|[^(),:]+(?::[^(),]*)?|:[^(),]*", s):
        if tok == "(":
            stack.append([])
        elif tok == ")":
            inner = stack.pop()
            out.append(frozenset(inner))
            stack[-1].extend(inner)
        elif tok == "," or tok.startswith(":"):
            continue
        else:
            mt = re.match(r"r(\d+)", tok)
            if mt:
                stack[-1].append(int(mt.group(1)))
    alln = frozenset(stack[0])
    res = set()
    for c in out:
        side = c if 0 not in c else alln - c
        if 1 < len(side) < len(alln) - 1:
            res.add(side)
    return res
print("same tree" if splits(sys.argv[1]) == splits(sys.argv[2]) else "different")
EOF
cat >"$dir/report.py" <<'EOF'
import sys
import numpy as np, netCDF4
import matplotlib
matplotlib.use("pdf")
import matplotlib.pyplot as plt
from matplotlib.backends.backend_pdf import PdfPages
with PdfPages(sys.argv[2]) as pdf:
    for s in ("average", "median", "deviation", "min"):
        with netCDF4.Dataset(sys.argv[1] + "_" + s + ".nc") as f:
            a = np.asarray(f.variables["data"][:], dtype=np.float64)
        off = ~np.eye(a.shape[1], dtype=bool)
        for k in range(a.shape[0]):
            m = a[k]
            v = m[off]
            v = v[np.isfinite(v)]
            fig, ax = plt.subplots(figsize=(8.27, 11.69))
            ax.set_title("%s delay, length %d: min %.3g median %.3g max %.3g s"
                         % (s, k, v.min(), np.median(v), v.max()))
            im = ax.imshow(m * 1e6, interpolation="nearest", cmap="viridis")
            fig.colorbar(im, ax=ax, label="us")
            pdf.savefig(fig)
            plt.close(fig)
            fig, ax = plt.subplots(figsize=(8.27, 11.69))
            ax.hist(v * 1e6, bins=100)
            ax.set_xlabel("delay (us)")
            pdf.savefig(fig)
            plt.close(fig)
EOF

# "wall cpu" of one run of a command, then the median of 5 of each (as readers.sh)
one() { /usr/bin/time -f "%e %U %S" "$@" >/dev/null 2>"$dir/t" || { tail -3 "$dir/t" >&2; return 1; }
        tail -1 "$dir/t" | awk '{ printf "%s %.2f\n", $1, $2 + $3 }'; }
med5() { for i in 1 2 3 4 5; do one "$@"; done | sort -n | sed -n 3p; }
report() {
    awk -v n="$1" -v o="$2" -v p="$3" 'BEGIN {
        split(o, a, " "); split(p, b, " ")
        printf "%-44s ours %5.2f s wall %5.2f s CPU | python %5.2f s wall %5.2f s CPU | ours/python %.2fx wall %.2fx CPU (goal <= 0.5x)\n",
               n, a[1], a[2], b[1], b[2], a[1] / b[1], (b[2] > 0 ? a[2] / b[2] : 0) }'
}
ours() { echo "$1: ${2% *} s wall, ${2#* } s CPU"; }

echo "cube $P processes x 1 length (4 statistics, $(du -cm "$dir"/network_*.nc | tail -1 | cut -f1) MB)"
ours_n=$(med5 "$BIN/mpilens" nj "$dir/network" --newick "$dir/ours.nwk")
if "$PY" -c "import numpy, netCDF4" 2>/dev/null; then
    peer_n=$(med5 "$PY" "$dir/nj.py" "$dir/network" "$dir/py.nwk")
    report "nj --newick (numpy NJ)" "$ours_n" "$peer_n"
    echo "nj tree: $("$PY" "$dir/splits.py" "$dir/ours.nwk" "$dir/py.nwk") as numpy's"
else
    ours "mpilens nj --newick" "$ours_n"
    echo "nj peer skipped: python3-numpy / python3-netcdf4 not installed"
fi
ours_r=$(med5 "$BIN/mpilens" report "$dir/network" -o "$dir/r.pdf")
if "$PY" -c "import numpy, netCDF4, matplotlib" 2>/dev/null; then
    peer_r=$(med5 "$PY" "$dir/report.py" "$dir/network" "$dir/py.pdf")
    report "report -o r.pdf (matplotlib PdfPages)" "$ours_r" "$peer_r"
else
    ours "mpilens report -o r.pdf" "$ours_r"
    echo "report peer skipped: python3-matplotlib (or numpy, netCDF4) not installed"
fi
