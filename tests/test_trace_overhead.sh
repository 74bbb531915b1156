#!/usr/bin/env bash
# The collector on the overhead benchmark's program (samples/apps/pingpong) with what was cut
# for speed in place: OTF2 event chunks reused through the memory callbacks (several chunk
# flushes per rank here), module string ids cached, MPILENS_TRACE_STATS. otf2-print (an
# independent reader) must find every call the loop made, each location in time order, and
# the serial recovery of the same raw files must give the same events as MPI_Finalize did.
. tests/lib.sh
APP=$BUILD/bin/samples/pingpong
SO=$(readlink -f "$BUILD/lib/libmpilens-trace.so")
RECOVER=$BUILD/lib/mpilens-trace-recover
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2 -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
R=30000 # round trips: 60,000 calls per rank, about 2.7 MB of OTF2 events, so 3 chunks each

count() { awk -v k="$1" -v l="$2" '$1 == k && $2 == l { n++ } END { print n + 0 }' "$3"; }

# 1. traced run with a small raw buffer (many flushes), raw files kept for step 3
out=$($MPIRUN -x LD_PRELOAD="$SO" -x MPILENS_TRACE_DIR="$TMP/t" -x MPILENS_TRACE_STATS=1 \
      -x MPILENS_TRACE_KEEP_RAW=1 -x MPILENS_TRACE_BUFFER=64k "$APP" -i $R 2>"$TMP/err")
check_match "pingpong prints its loop" "$out" "^pingpong: $R round trips, loop [0-9.]+ s"
check "otf2-print reads the archive" otf2-print --silent "$TMP/t/traces.otf2"
otf2-print "$TMP/t/traces.otf2" >"$TMP/ev.txt" 2>&1
for r in 0 1; do
    # Init, Barrier, Finalize and R sends and R receives per rank
    check_eq "rank $r: MPI_SEND events" "$(count MPI_SEND $r "$TMP/ev.txt")" $R
    check_eq "rank $r: MPI_RECV events" "$(count MPI_RECV $r "$TMP/ev.txt")" $R
    check_eq "rank $r: ENTER events" "$(count ENTER $r "$TMP/ev.txt")" $((2 * R + 3))
    check_eq "rank $r: LEAVE events" "$(count LEAVE $r "$TMP/ev.txt")" $((2 * R + 3))
    # every Enter of an MPI region carries the call site (the cached module string)
    check_eq "rank $r: call sites on every Enter" \
        "$(awk -v r=$r '$1 == "ENTER" && $2 == r { getline; if (/callsite_module.*pingpong/) n++ } END { print n + 0 }' "$TMP/ev.txt")" \
        $((2 * R + 3))
    check_eq "rank $r: timestamps in order" \
        "$(awk -v r=$r '$2 == r && $3 ~ /^[0-9]+$/ { if ($3 < last) bad++; last = $3 } END { print bad + 0 }' "$TMP/ev.txt")" 0
    sz=$(stat -c %s "$TMP/t/traces/$r.evt")
    check "rank $r: event file spans several 1 MiB chunks ($sz bytes)" test "$sz" -gt $((2 << 20))
done
check_eq "peers: rank 0 sends to 1" "$(awk '$1 == "MPI_SEND" && $2 == 0' "$TMP/ev.txt" | grep -c 'Receiver: 1 ')" $R

# 2. MPILENS_TRACE_STATS: one line per rank in DIR/stats.txt, records = calls, phases in ms
st=$TMP/t/stats.txt
check_eq "two stats lines" "$(grep -c '^rank [01] records' "$st")" 2
check_eq "records counted per rank" "$(awk '{ print $4 }' "$st" | sort -u)" $((2 * R + 3))
check_match "phases with wall and CPU time" "$(head -n 1 "$st")" \
    'flushes [0-9]+ start_ms [0-9.]+ start_cpu_ms [0-9.]+ flush_ms .* archive_ms [0-9.]+ archive_cpu_ms [0-9.]+$'
check "many flushes with a 64k buffer" test "$(awk '{ print $6 }' "$st" | head -n 1)" -gt 50

# 3. the serial converter (one process, OTF2's serial callbacks) on the same raw files
mkdir -p "$TMP/s" && cp -r "$TMP/t/raw" "$TMP/s/"
check "mpilens-trace-recover converts the kept raw files" env MPILENS_TRACE_KEEP_RAW=1 "$RECOVER" "$TMP/s"
otf2-print "$TMP/s/traces.otf2" >"$TMP/ev2.txt" 2>&1
check "same events from the serial conversion" cmp "$TMP/ev.txt" "$TMP/ev2.txt"
for r in 0 1; do
    check "rank $r: same event file bytes" cmp "$TMP/t/traces/$r.evt" "$TMP/s/traces/$r.evt"
done

# 4. a traced run without MPILENS_TRACE_STATS writes no stats (and removes the old file)
$MPIRUN -x LD_PRELOAD="$SO" -x MPILENS_TRACE_DIR="$TMP/t" "$APP" -i 10 >/dev/null 2>&1
check "no stats.txt without MPILENS_TRACE_STATS" test ! -e "$TMP/t/stats.txt"

finish test_trace_overhead
