#!/usr/bin/env bash
# Divisive clustering of links (issue 4): 128 processes x 64 lengths (16,256 off-diagonal links,
# target < 1 s) and 1024 processes x 16 lengths (1,047,552 links, target < 60 s in < 4 GiB).
# Peers in the same run: the same algorithm on a full distance matrix (naive) at P = 32 and 48,
# and scipy's complete linkage on the same 992 objects and distance at P = 32.
set -eu
BUILD=${BUILD:-build}
BIN=${BIN:-$BUILD/bin}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf=$BUILD/tests/perf_links
best() { sort -g | head -n 1; }

for t in 1 2; do
    for i in 1 2 3; do "$perf" run 128 8 0:65536:1024 $t; done >"$tmp/r128.$t"
    s=$(sed -E 's/.*: ([0-9.]+) s,.*/\1/' "$tmp/r128.$t" | best)
    echo "P=128 x 64 lengths, $t thread(s): $s s (target < 1 s: $(awk -v t="$s" 'BEGIN { print (t < 1 ? "met" : "MISSED") }')); $(head -n 1 "$tmp/r128.$t" | sed -E 's/.*s, ([0-9]+ clusters, [0-9]+ splits).*/\1/')"
done

/usr/bin/time -v "$perf" run 1024 32 0:16384:1024 2 >"$tmp/r1024" 2>"$tmp/t1024"
s=$(sed -E 's/.*: ([0-9.]+) s,.*/\1/' "$tmp/r1024")
rss=$(awk '/Maximum resident/ { printf "%.0f", $6 / 1024 }' "$tmp/t1024")
echo "P=1024 x 16 lengths (1,047,552 links), 2 threads: $s s (target < 60 s: $(awk -v t="$s" 'BEGIN { print (t < 60 ? "met" : "MISSED") }')); peak RSS $rss MB including the 512 MB synthetic cube (target < 4096 MB: $(awk -v m="$rss" 'BEGIN { print (m < 4096 ? "met" : "MISSED") }'))"

for p in 32 48; do
    "$perf" naive $p 4 0:65536:1024
done

for i in 1 2 3; do "$perf" dump 32 4 0:65536:1024 "$tmp/objs.bin"; done >"$tmp/ours32"
ours=$(best <"$tmp/ours32")
/usr/bin/python3 - "$tmp/objs.bin" "$ours" <<'PY'
import sys, time
import numpy as np
from scipy.cluster.hierarchy import linkage, fcluster
raw = open(sys.argv[1], "rb").read()
N, L, K = np.frombuffer(raw[:12], dtype=np.int32)
a = np.frombuffer(raw[12:12 + 8 * N * L], dtype=np.float64).reshape(N, L)
w = np.frombuffer(raw[12 + 8 * N * L:12 + 16 * N * L], dtype=np.float64).reshape(N, L)
ours = np.frombuffer(raw[12 + 16 * N * L:], dtype=np.int32)
t0 = time.perf_counter()
iu = np.triu_indices(N, 1)
cond = np.empty(len(iu[0]))
pos = 0
for x in range(N - 1):  # rho, row by row: the condensed matrix scipy needs
    d = a[x + 1:] - a[x]
    cond[pos:pos + N - 1 - x] = np.sqrt((d * d * (w[x + 1:] + w[x])).sum(axis=1))
    pos += N - 1 - x
Z = linkage(cond, "complete")
lab = fcluster(Z, K, "maxclust")
t = time.perf_counter() - t0
def ari(u, v):
    from math import comb
    cu = {}; cv = {}; cuv = {}
    for x, y in zip(u, v):
        cu[x] = cu.get(x, 0) + 1; cv[y] = cv.get(y, 0) + 1; cuv[(x, y)] = cuv.get((x, y), 0) + 1
    s = sum(comb(n, 2) for n in cuv.values()); su = sum(comb(n, 2) for n in cu.values())
    sv = sum(comb(n, 2) for n in cv.values()); tot = comb(len(u), 2)
    e = su * sv / tot; m = (su + sv) / 2
    return (s - e) / (m - e) if m != e else 1.0
ours_t = float(sys.argv[2])
print("scipy complete linkage P=32 (%d objects, distances included): %.3f s, ours %.4f s, ratio scipy/ours %.0fx; "
      "adjusted Rand index against complete linkage cut at %d clusters: %.3f" % (N, t, ours_t, t / ours_t, K, ari(ours, lab)))
PY

# Compression of a 1024-process cube (16 lengths, 4 statistics, 537 MB of doubles): the
# streaming rate in memory, then end to end through the command (reading the NetCDF files
# included) against gzip -1 and zstd -3 on the same files (lossless, general purpose).
"$perf" compress 1024 32 0:16384:1024 0.05
"$BIN/mpilens" synth -o "$tmp/big/network" --procs 1024 --nodes 32 --sockets 2 --lengths 0:16384:1024 2>/dev/null
files=$(ls "$tmp"/big/network_*.nc)
in_bytes=$(cat $files | wc -c)
t0=$(date +%s.%N)
"$BIN/mpilens" compress "$tmp/big/network" -o "$tmp/big.lcz.nc" --json >"$tmp/cj.json"
t1=$(date +%s.%N)
ours=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
out_bytes=$(wc -c <"$tmp/big.lcz.nc")
t0=$(date +%s.%N); gz=$(cat $files | gzip -1 | wc -c); t1=$(date +%s.%N)
gzt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
zs=NA zst=NA
if command -v zstd >/dev/null; then
    t0=$(date +%s.%N); zs=$(cat $files | zstd -3 -q -c | wc -c); t1=$(date +%s.%N)
    zst=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
fi
errs=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(", ".join("%s max %.2f%% RMS %.2f%%" % (s, 100*v["err_max"], 100*v["err_rms"]) for s, v in d["stats"].items()))' "$tmp/cj.json")
awk -v i="$in_bytes" -v o="$out_bytes" -v t="$ours" -v g="$gz" -v gt="$gzt" -v z="$zs" -v zt="$zst" 'BEGIN {
    printf "mpilens compress, 1024 procs x 16 lengths, end to end: %.2f s (%.0f MB/s of input), file ratio %.1fx (max error 5%%)\n", t, i / 1e6 / t, i / o
    printf "peer gzip -1 (lossless):  %.2f s (%.0f MB/s), ratio %.2fx\n", gt, i / 1e6 / gt, i / g
    if (z != "NA") printf "peer zstd -3 (lossless):  %.2f s (%.0f MB/s), ratio %.2fx\n", zt, i / 1e6 / zt, i / z }'
echo "measured errors: $errs"
