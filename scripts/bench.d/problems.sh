#!/usr/bin/env bash
# Problem detection speed (issue 5: at least 5 million events per second on one core) on a
# generated OTF2 trace of 10 million events, against the peer measured in the same run:
# otf2-print piped into a simple awk pass (time inside MPI regions) over the same trace.
set -eu
BUILD=${BUILD:-build}
EVENTS=${PROBLEMS_EVENTS:-10000000}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-problems.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
out=$(taskset -c 0 "$BUILD/tests/perf_problems" "$tmp/trace" "$EVENTS" 2>&1) || {
    echo "$out" >&2; exit 1; }
get() { echo "$out" | awk -v k="$1" '$1 == k { print $2 }'; }
events=$(get events)
echo "trace: $events events, $(get messages) messages (generated in $(get generate_s) s)"
echo "mpilens read: $(get read_s) s, detection: $(get detect_s) s, total: $(get total_s) s"
echo "detection only:     $(get detect_events_per_s) events/s"
echo "read + detection:   $(get total_events_per_s) events/s (target >= 5000000)"
start=$(date +%s.%N)
otf2-print "$tmp/trace/traces.otf2" | awk '
    $1 == "ENTER" && $5 ~ /^"MPI_/ { t0[$2] = $3 }
    $1 == "LEAVE" && $5 ~ /^"MPI_/ { mpi += $3 - t0[$2] }
    $2 ~ /^[0-9]+$/ { n++ }
    END { printf "%d events, %.6f s in MPI\n", n, mpi / 1e9 }' > "$tmp/peer.txt"
end=$(date +%s.%N)
peer=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f", e - s }')
echo "peer otf2-print | awk: $peer s ($(cat "$tmp/peer.txt"))"
awk -v p="$peer" -v m="$(get total_s)" -v n="$events" 'BEGIN {
    printf "peer rate: %.0f events/s; mpilens (read + all rules) is %.1fx faster\n", n / p, p / m }'
awk -v r="$(get total_events_per_s)" 'BEGIN { if (r < 5000000) { print "BELOW TARGET"; exit 1 } }'
