#!/usr/bin/env bash
# mpilens cluster against scipy.cluster.hierarchy.linkage: every method on random matrices
# without ties (Euclidean points for all seven methods, plus non-Euclidean symmetric and
# asymmetric matrices for the methods that accept them). Z must match row for row: left,
# right and size exactly, height within 1e-9 relative. Python (Debian's python3-scipy,
# installed by `make deps-test`) is the reference only.
. tests/lib.sh
PY=${PYTHON:-/usr/bin/python3}
methods="single complete average weighted centroid median ward"

# ---- command-line errors: message names the file and place, exit status, nothing written
printf '0,2.5,3.25\n2.5,0,1.75\n' >"$TMP/sq.csv"
printf '0,2.5,3.25\n2.5,0,1.75\n3.25,1.7x,0\n' >"$TMP/cell.csv"
printf '0,2.5\n-2.5,0\n' >"$TMP/neg.csv"
printf '0,NaN\n2.5,0\n' >"$TMP/nan.csv"
printf '0\n' >"$TMP/one.csv"
mkdir -p "$TMP/outdir"
for cmd in cluster nj; do
    for f in sq:'sq.csv:2: matrix is not square: the file ends after 2 rows' cell:'cell.csv:3:6: cell 2 .1.7x. is not a number' \
             neg:'neg.csv:2:1: distance -2.5' nan:'nan.csv:1:3: distance nan' \
             one:'one.csv:1: need at least 2 processes'; do
        name=${f%%:*} want=${f#*:}
        if [ $cmd = cluster ]; then outopt="--linkage $TMP/outdir/$name.z"; else outopt="--newick $TMP/outdir/$name.nwk"; fi
        check_exit "$cmd $name.csv" 1 "$BIN/mpilens" $cmd "$TMP/$name.csv" $outopt
        check_match "$cmd $name.csv message" "$(cat "$TMP/err")" "^mpilens: .*$want"
    done
done
check_eq "nothing written on errors" "$(ls -A "$TMP/outdir")" ""
check_exit "unknown method" 2 "$BIN/mpilens" cluster "$TMP/sq.csv" --method upgma
check_match "unknown method message" "$(cat "$TMP/err")" "unknown method 'upgma'"
check_exit "unknown statistic" 2 "$BIN/mpilens" nj "$TMP/sq.csv" --stat mean
check_exit "bad length" 2 "$BIN/mpilens" cluster "$TMP/sq.csv" --length 4k
check_exit "missing input" 2 "$BIN/mpilens" cluster --method ward
check_exit "two inputs" 2 "$BIN/mpilens" nj "$TMP/sq.csv" "$TMP/one.csv"
check_exit "missing file" 1 "$BIN/mpilens" nj "$TMP/none.csv"
check_match "missing file message" "$(cat "$TMP/err")" "none.csv"
check_exit "cluster --help" 0 "$BIN/mpilens" cluster --help
check_match "cluster --help has an example" "$(cat "$TMP/out")" 'example:'
check_exit "nj --help" 0 "$BIN/mpilens" nj --help

if ! "$PY" -c 'import scipy, numpy' 2>/dev/null; then
    fail "python3-scipy is missing: run scripts/install-deps.sh --test"
    finish test_hclust_scipy
    exit 1
fi

# One Python run writes every matrix $TMP/<name>.csv and its references <name>.<method>.ref,
# from a list of "name kind n seed methods..." lines. kind: points (Euclidean distances of
# random points in 2..9 dimensions), sym (random symmetric), asym (random asymmetric with a
# label header; scipy gets (A + A^T)/2), ties (random integers 1..5), grid (city-block
# distances between points of a 3 x 3 x 3 integer grid, so many points coincide).
seed=20261121
: >"$TMP/specs"
for n in 2 3 17 64 200; do
    seed=$((seed + 7919))
    echo "p$n points $n $seed $methods" >>"$TMP/specs"
    echo "s$n sym $n $((seed + 1)) single complete average weighted ward" >>"$TMP/specs"
done
echo "a64 asym 64 4242 single average ward" >>"$TMP/specs"
# equal distances everywhere: the order among equal heights and the choice among equal
# candidates must follow scipy's too
echo "t41 ties 41 977 $methods" >>"$TMP/specs"
echo "g53 grid 53 1213 $methods" >>"$TMP/specs"
cat >"$TMP/gen.py" <<'EOF'

import sys
import numpy as np
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import pdist, squareform
tmp = sys.argv[1]
for line in sys.stdin:
    name, kind, n, seed, *methods = line.split()
    n, seed = int(n), int(seed)
    rng = np.random.default_rng(seed)
    if kind == "points":
        X = rng.normal(size=(n, int(rng.integers(2, 10)))) * rng.uniform(0.5, 40.0)
        A = squareform(pdist(X))
    elif kind == "ties":
        A = np.triu(rng.integers(1, 6, size=(n, n)).astype(float), 1)
        A = A + A.T
    elif kind == "grid":
        A = squareform(pdist(rng.integers(0, 3, size=(n, 3)).astype(float), "cityblock"))
    else:
        A = rng.lognormal(mean=-11.0, sigma=0.7, size=(n, n))  # latency-like seconds
        if kind == "sym":
            A = np.triu(A, 1) + np.triu(A, 1).T
        np.fill_diagonal(A, 0.0 if kind == "sym" else 1e-7)
    with open(f"{tmp}/{name}.csv", "w") as f:
        if kind == "asym":
            f.write(",".join(f"node{i:03d}" for i in range(n)) + "\n")
        for row in A:
            f.write(",".join(repr(float(v)) for v in row) + "\n")
    S = (A + A.T) / 2
    np.fill_diagonal(S, 0.0)
    y = squareform(S, checks=False)
    for m in methods:
        np.savetxt(f"{tmp}/{name}.{m}.ref", linkage(y, m), delimiter=",", fmt="%.17g")
EOF
"$PY" "$TMP/gen.py" "$TMP" <"$TMP/specs" || fail "generating the matrices"

# mpilens on each (matrix, method), then one Python run compares every Z with its reference:
# left, right and size exactly, heights within 1e-9 relative. It prints one line per pair.
: >"$TMP/pairs"
while read -r name kind n s ms; do
    for m in $ms; do
        if "$BIN/mpilens" cluster "$TMP/$name.csv" --method "$m" --linkage "$TMP/$name.$m.z" \
            2>"$TMP/err"; then
            echo "$name $m" >>"$TMP/pairs"
        else
            fail "$name $m: mpilens cluster failed: $(cat "$TMP/err")"
        fi
    done
done <"$TMP/specs"
cat >"$TMP/cmp.py" <<'EOF'
import sys
import numpy as np
tmp = sys.argv[1]
for line in sys.stdin:
    name, m = line.split()
    got = np.loadtxt(f"{tmp}/{name}.{m}.z", delimiter=",", skiprows=1, ndmin=2)
    want = np.loadtxt(f"{tmp}/{name}.{m}.ref", delimiter=",", ndmin=2)
    msg = "ok"
    if got.shape != want.shape:
        msg = f"shape {got.shape} != {want.shape}"
    elif not np.array_equal(got[:, [0, 1, 3]], want[:, [0, 1, 3]]):
        k = int(np.argmax(np.any(got[:, [0, 1, 3]] != want[:, [0, 1, 3]], axis=1)))
        msg = f"row {k}: got {got[k].tolist()} want {want[k].tolist()}"
    else:
        rel = np.abs(got[:, 2] - want[:, 2]) / np.maximum(np.abs(want[:, 2]), 1e-300)
        if rel.max() > 1e-9:
            msg = f"height row {int(rel.argmax())}: relative error {rel.max():.3g}"
    print(name, m, msg)
EOF
"$PY" "$TMP/cmp.py" "$TMP" <"$TMP/pairs" >"$TMP/verdicts"
check_eq "every pair compared" "$(wc -l <"$TMP/verdicts")" "$(wc -l <"$TMP/pairs")"
check_eq "pairs of matrix and method" "$(wc -l <"$TMP/pairs")" 77
while read -r name m msg; do
    if [ "$msg" = ok ]; then ok; else fail "$name $m: $msg"; fi
done <"$TMP/verdicts"

# network_test2 cubes: scipy reads the NetCDF file itself, takes the median over lengths (or
# one length) of each element, symmetrises and clusters
NT=$DATA/network-tests2
for spec in one_to_one_np4:median:-1 async_one_to_one_np4:average:-1 put_np4:median:4096 \
            one_to_one_np4:min:512; do
    IFS=: read -r d st len <<<"$spec"
    lenopt=""; [ "$len" != -1 ] && lenopt="--length $len"
    if ! "$BIN/mpilens" cluster "$NT/$d" --stat "$st" $lenopt --method weighted --linkage "$TMP/cube.z" 2>"$TMP/err"; then
        fail "cube $spec: $(cat "$TMP/err")"; continue
    fi
    msg=$("$PY" - "$NT/$d/network_$st.nc" "$len" "$TMP/cube.z" <<'EOF'
import sys
import numpy as np
from scipy.io import netcdf_file
from scipy.cluster.hierarchy import linkage
from scipy.spatial.distance import squareform
f = netcdf_file(sys.argv[1], "r", mmap=False)
A = np.array(f.variables["data"][:], dtype=float)
length = int(sys.argv[2])
if length < 0:
    M = np.nanmedian(A, axis=0)
else:
    b, s = int(f.variables["begin_mes_length"].data), int(f.variables["step_length"].data)
    M = A[(length - b) // s]
S = (M + M.T) / 2
np.fill_diagonal(S, 0)
Z = linkage(squareform(S, checks=False), "weighted")
got = np.loadtxt(sys.argv[3], delimiter=",", skiprows=1, ndmin=2)
if not np.array_equal(got[:, [0, 1, 3]], Z[:, [0, 1, 3]]) or \
        np.max(np.abs(got[:, 2] - Z[:, 2]) / Z[:, 2]) > 1e-9:
    print(f"got {got.tolist()} want {Z.tolist()}")
EOF
)
    if [ -z "$msg" ]; then ok; else fail "cube $spec: $msg"; fi
done
check_exit "cube length not measured" 1 "$BIN/mpilens" cluster "$NT/one_to_one_np4" --length 700
check_match "cube length message" "$(cat "$TMP/err")" 'no message length 700 bytes in the cube'
"$BIN/mpilens" cluster "$NT/send_recv_and_recv_send_np4" --linkage "$TMP/sr.z" 2>"$TMP/err"
check_match "cube repairs are reported" "$(cat "$TMP/err")" 'warning: .*round trip.*halved'
"$BIN/mpilens" nj "$TMP/p17.csv" --length 512 >/dev/null 2>"$TMP/err"
check_match "--length on a CSV matrix is flagged" "$(cat "$TMP/err")" 'warning: .*ignored for a CSV matrix'
"$BIN/mpilens" nj "$NT/one_to_one_np4" >"$TMP/cube.nwk" 2>/dev/null
check_match "nj on a cube: host labels" "$(cat "$TMP/cube.nwk")" '^\(.*r3@vm:.*\);$'

# the asymmetry of the asymmetric matrix is reported on stderr
"$BIN/mpilens" cluster "$TMP/a64.csv" --method average --linkage "$TMP/a.z" 2>"$TMP/err"
check_match "asymmetry reported" "$(cat "$TMP/err")" 'asymmetry .*mean [0-9.]+ %, max [0-9.]+ % \(node[0-9]+, node[0-9]+\)'

# Newick from the header labels, and Z on stdout when no output file is named
"$BIN/mpilens" cluster "$TMP/a64.csv" --method ward --newick "$TMP/a.nwk" 2>/dev/null
check_match "newick has the header labels" "$(cat "$TMP/a.nwk")" '^\(\(.*node063:[0-9.e-]+.*\);$'
"$BIN/mpilens" cluster "$TMP/p17.csv" --method median >"$TMP/stdout.z" 2>/dev/null
check "Z on stdout equals the --linkage file" cmp "$TMP/stdout.z" "$TMP/p17.median.z"

finish test_hclust_scipy
