# Hierarchical clustering and neighbor joining of random points (8 dimensions), each against
# its peer on the very same matrix in the same run:
#  - linkage at n = 2000 and 4000 for average, ward, single, centroid (and average at 8000)
#    against scipy's linkage
#    (and python3-fastcluster when installed), CPU seconds of the algorithm only, with the peak
#    RSS of our driver next to the size of the condensed matrix (the memory bound);
#  - NJ at n = 1000 and 2000, the exact fast search against the canonical one (and quicktree
#    when installed, whose time includes reading its PHYLIP input).
set -eu
PY=${PYTHON:-/usr/bin/python3}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-hclust.XXXXXX")
trap 'rm -rf "$dir"' EXIT
perf=$BUILD/tests/perf_hclust
field() { sed -E "s/.*$1=([0-9.e+-]+).*/\1/"; }

for n in 2000 4000 8000; do
    methods="average ward single centroid"
    [ "$n" = 8000 ] && methods=average # the issue's second size for average against fastcluster
    "$perf" hclust single "$n" 11 "$dir/d$n.bin" >/dev/null
    "$PY" - "$dir/d$n.bin" $methods >"$dir/peer$n.txt" <<'EOF'
import resource, sys, time
import numpy as np
from scipy.cluster.hierarchy import linkage
y = np.fromfile(sys.argv[1])
try:
    import fastcluster
except ImportError:
    fastcluster = None
for m in sys.argv[2:]:
    best = [1e9, 1e9]
    for _ in range(3):
        t = time.process_time(); linkage(y, m); best[0] = min(best[0], time.process_time() - t)
        if fastcluster:
            t = time.process_time(); fastcluster.linkage(y, m)
            best[1] = min(best[1], time.process_time() - t)
    print(m, best[0], best[1] if fastcluster else -1,
          resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
EOF
    for m in $methods; do
        t=1e9
        for r in 1 2 3; do
            line=$("$perf" hclust "$m" "$n" 11)
            s=$(echo "$line" | field seconds)
            t=$(awk -v a="$t" -v b="$s" 'BEGIN { print (b < a) ? b : a }')
            rss=$(echo "$line" | field maxrss_kb) mat=$(echo "$line" | field matrix_kb)
        done
        read -r _ sp fc prss < <(grep "^$m " "$dir/peer$n.txt")
        awk -v n="$n" -v m="$m" -v t="$t" -v s="$sp" -v f="$fc" -v r="$rss" -v x="$mat" -v p="$prss" 'BEGIN {
            printf "linkage n=%d %-8s mpilens %.3f s  scipy %.3f s  scipy/mpilens %.2fx", n, m, t, s, s / t
            if (f >= 0) printf "  fastcluster %.3f s (%.2fx)", f, f / t
            printf "\n    peak RSS %.1f MB = condensed matrix %.1f MB + %.1f MB (python+scipy process: %.1f MB)\n",
                r / 1024, x / 1024, (r - x) / 1024, p / 1024 }'
    done
    rm -f "$dir/d$n.bin"
done

for n in 1000 2000; do
    fast=$("$perf" nj fast "$n" 12 "$dir/nj$n.bin")
    canon=$("$perf" nj canonical "$n" 12)
    cf=$(echo "$fast" | field check) cc=$(echo "$canon" | field check)
    [ "$cf" = "$cc" ] || echo "  warning: fast and canonical NJ checksums differ ($cf, $cc)"
    tf=$(echo "$fast" | field seconds) tc=$(echo "$canon" | field seconds)
    qt=-1
    if command -v quicktree >/dev/null; then
        "$PY" - "$dir/nj$n.bin" "$n" >"$dir/nj$n.phy" <<'EOF'
import sys
import numpy as np
from scipy.spatial.distance import squareform
D = squareform(np.fromfile(sys.argv[1]))
print(int(sys.argv[2]))
for i, row in enumerate(D):
    print(f"p{i:<9d}" + " ".join(f"{v:.9f}" for v in row))
EOF
        s=$(date +%s.%N)
        quicktree -in m -out t "$dir/nj$n.phy" >/dev/null
        e=$(date +%s.%N)
        qt=$(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')
    fi
    awk -v n="$n" -v f="$tf" -v c="$tc" -v q="$qt" -v r="$(echo "$fast" | field maxrss_kb)" 'BEGIN {
        printf "nj n=%d fast %.3f s  canonical %.3f s  canonical/fast %.2fx  (same tree)", n, f, c, c / f
        if (q >= 0) printf "  quicktree %.3f s wall incl. parsing (%.2fx)", q, q / f
        printf "  peak RSS %.1f MB\n", r / 1024 }'
    rm -f "$dir/nj$n.bin" "$dir/nj$n.phy"
done
fast=$("$perf" nj fast 4000 12)
echo "nj n=4000 fast $(echo "$fast" | field seconds) s  peak RSS $(( $(echo "$fast" | field maxrss_kb) / 1024 )) MB (canonical and quicktree skipped: too slow)"
