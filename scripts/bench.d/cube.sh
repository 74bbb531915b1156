# Cube load time and throughput for 1024 processes x 16 lengths (4 statistics, 512 MB), against
# the same bytes read by `cat` (the I/O ceiling) and by NetCDF's own nccopy, in the same run.
set -eu
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-cube.XXXXXX")
trap 'rm -rf "$dir"' EXIT
t0=$(date +%s.%N)
"$BIN/mpilens" synth -o "$dir/network" --procs 1024 --nodes 32 --sockets 2 --lengths 0:16384:1024 2>/dev/null
t1=$(date +%s.%N)
echo "synth 1024 procs x 16 lengths: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s"
"$BUILD/tests/perf_cube" "$dir/network" 3 | tee "$dir/ours.txt"
ours=$(sed -E 's/.* in ([0-9.]+) s.*/\1/' "$dir/ours.txt")
med3() { sort -n | sed -n 2p; }
catt=$(for i in 1 2 3; do s=$(date +%s.%N); cat "$dir"/network_*.nc >/dev/null; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN{print b-a}'; done | med3)
nct=$(for i in 1 2 3; do s=$(date +%s.%N); for f in "$dir"/network_{average,median,deviation,min}.nc; do nccopy "$f" "$dir/copy.nc"; done; e=$(date +%s.%N); awk -v a="$s" -v b="$e" 'BEGIN{print b-a}'; done | med3)
awk -v o="$ours" -v c="$catt" -v n="$nct" 'BEGIN {
    printf "peer cat (page cache):  %.3f s   ours/cat    = %.2fx the time\n", c, o / c
    printf "peer nccopy (4 files):  %.3f s   ours/nccopy = %.2fx the time\n", n, o / n }'
