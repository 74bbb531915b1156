#!/usr/bin/env bash
# ICAPPA speed (issue 7): 100,000 processes x 20 functions on one core, target < 2 s.
# Peer, same run, same machine: scikit-learn KMeans(n_clusters=2, n_init=10) on a matrix of the
# same size and structure, against our 2-means with 10 k-means++ restarts; both on one thread.
set -eu
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

best() { sort -g | head -n 1; }
# best of 3: the machine is shared
for i in 1 2 3; do taskset -c 0 "$BUILD/tests/perf_icappa" 100000 20; done >"$tmp/ours"
icappa=$(awk '{print $2}' "$tmp/ours" | best)
ours_km=$(awk '{print $4}' "$tmp/ours" | best)
answer=$(head -n 1 "$tmp/ours" | awk '{print "rounds " $6 ", dominating " $8 ", costly processes " $10 ", exactly the planted ones: " $12}')

sk=$(taskset -c 0 /usr/bin/python3 - <<'PY'
import time, warnings
import numpy as np
from sklearn.cluster import KMeans
warnings.simplefilter("ignore")
rng = np.random.default_rng(4242)
P, F = 100000, 20
base = 0.2 + 1.7 * rng.random(F); base[3] = 1.5
x = base * np.maximum(0.5, 1 + 0.04 * rng.standard_normal((P, F)))
x[P - P // 8:, 3] *= 8
t = []
for _ in range(3):
    t0 = time.perf_counter()
    KMeans(n_clusters=2, n_init=10, algorithm="lloyd", random_state=0).fit(x)
    t.append(time.perf_counter() - t0)
print("%.4f" % min(t))
PY
)

# end to end through the command, CSV parsing included (66 MB of CSV)
"$BUILD/tests/perf_icappa" 100000 20 "$tmp/p.csv" >/dev/null
t0=$(date +%s.%N)
taskset -c 0 "$BIN/mpilens" $("$BIN/mpilens" profile-clusters --help >/dev/null 2>&1 && echo profile-clusters || echo profile_clusters) "$tmp/p.csv" --json >/dev/null
t1=$(date +%s.%N)
cli=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')

echo "ICAPPA 100000 x 20, one core: $icappa s (target < 2 s: $(awk -v t="$icappa" 'BEGIN { print (t < 2 ? "met" : "MISSED") }')); $answer (planted: func_03 8x on 12500)"
echo "2-means, 10 k-means++ restarts: ours $ours_km s, scikit-learn KMeans(n_init=10) $sk s, ratio sklearn/ours $(awk -v a="$sk" -v b="$ours_km" 'BEGIN { printf "%.1f", a / b }')x"
echo "ICAPPA whole run vs one scikit-learn KMeans(n_init=10) fit: ratio $(awk -v a="$sk" -v b="$icappa" 'BEGIN { printf "%.2f", a / b }')x"
echo "mpilens profile-clusters on the 66 MB CSV (read + ICAPPA + JSON): $cli s"
