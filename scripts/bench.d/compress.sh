# Memory and rate of `mpilens compress` on a 1024-process cube (16 lengths, 4 statistics, 537 MB
# of doubles): the whole cube read first (how compress worked before streaming; peer in the same
# run) against the streaming reader, one 1024 x 1024 matrix at a time, each in its own process
# under /usr/bin/time. CPU seconds are given beside wall seconds: the machine is shared.
set -eu
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-compress.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$BIN/mpilens" synth -o "$dir/network" --procs 1024 --nodes 32 --sockets 2 --lengths 0:16384:1024 2>/dev/null
run() { # run LABEL COMMAND...: prints "wall cpu maxrss_MB"
    /usr/bin/time -f "%e %U %S %M" -o "$dir/time.$1" "${@:2}" >"$dir/out.$1"
    awk '{ printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024 }' "$dir/time.$1"
}
read -r ww wc wm < <(run whole "$BUILD/tests/perf_compress" whole "$dir/network" 0.05)
read -r sw sc sm < <(run stream "$BUILD/tests/perf_compress" stream "$dir/network" 0.05)
read -r cw cc cm < <(run cmd "$BIN/mpilens" compress "$dir/network" -o "$dir/packed.nc")
mb=$(awk '{ print $3 }' "$dir/out.stream")
awk -v mb="$mb" -v ww="$ww" -v wc="$wc" -v wm="$wm" -v sw="$sw" -v sc="$sc" -v sm="$sm" \
    -v cw="$cw" -v cc="$cc" -v cm="$cm" 'BEGIN {
    printf "compress 1024 procs x 16 lengths (%d MB of matrices, one matrix = 8 MB):\n", mb
    printf "  whole cube first (before):  %.2f s wall, %.2f s CPU, peak RSS %4.0f MB\n", ww, wc, wm
    printf "  streaming, one matrix:      %.2f s wall, %.2f s CPU, peak RSS %4.0f MB (%.1fx less memory)\n", sw, sc, sm, wm / sm
    printf "  streaming rate: %.0f MB/s of matrices (wall), %.0f MB/s per CPU second\n", mb / sw, mb / sc
    printf "  mpilens compress end to end (writes the packed file): %.2f s wall, %.2f s CPU, peak RSS %.0f MB\n", cw, cc, cm }'
wr=$(awk '{ print $5 }' "$dir/out.whole"); sr=$(awk '{ print $5 }' "$dir/out.stream")
echo "  same packed ratio both ways: $([ "$wr" = "$sr" ] && echo "yes (${sr}x)" || echo "NO ($wr against $sr)")"
