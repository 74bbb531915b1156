#!/usr/bin/env bash
# The trace collector under real mpirun: `mpilens trace` preloads libmpilens-trace.so into
# tests/mpi/trace_app, otf2-print (otf2-tools, an independent reader) must read the archive, and
# the event counts and sizes it prints must be what the application did (worked out below from
# the application's loop). Also: call site -> source line with addr2line, clock offsets, a tiny
# buffer, a crash mid-run, linking instead of preloading, and the error paths.
. tests/lib.sh
APP=$BUILD/tests/mpi/trace_app
LINKED=$BUILD/tests/mpi/trace_app_linked
# leak reports from Open MPI are not ours; the preloaded .so brings libasan after the app's
ASAN_X="ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x $ASAN_X"
P=3 N=7

count() { awk -v k="$1" -v l="${2:-}" '$1 == k && (l == "" || $2 == l) { n++ } END { print n + 0 }' "$3"; }

# 1. untraced reference run, then the traced run: same checksum
ref=$(ASAN_OPTIONS=detect_leaks=0 $MPIRUN -np $P $APP $N 2>"$TMP/ref.err")
check_match "untraced run prints a checksum" "$ref" '^checksum '
out=$($BIN/mpilens trace -o "$TMP/t" -- $MPIRUN -np $P $APP $N 2>"$TMP/trace.err")
check_eq "mpilens trace prints the anchor file" "$(echo "$out" | tail -n 1)" "$(cd "$TMP" && pwd -P)/t/traces.otf2"
check_eq "checksum traced == untraced" "$(echo "$out" | head -n 1)" "$ref"
check_eq "collector printed no diagnostics" "$(grep -c 'mpilens-trace' "$TMP/trace.err")" 0

# 2. otf2-print reads it; counts from the loop: ping-pong 0<->1 each iteration, a ring of
#    Isend/Irecv on every rank, Bcast+Allreduce+Barrier on every rank, one final Reduce
check "otf2-print reads the archive" otf2-print --silent "$TMP/t/traces.otf2"
otf2-print "$TMP/t/traces.otf2" >"$TMP/ev.txt" 2>&1
check_eq "MPI_SEND events" "$(count MPI_SEND '' "$TMP/ev.txt")" $((2 * N))
check_eq "MPI_RECV events" "$(count MPI_RECV '' "$TMP/ev.txt")" $((2 * N))
check_eq "MPI_ISEND events" "$(count MPI_ISEND '' "$TMP/ev.txt")" $((P * N))
check_eq "MPI_IRECV events" "$(count MPI_IRECV '' "$TMP/ev.txt")" $((P * N))
check_eq "MPI_ISEND_COMPLETE events" "$(count MPI_ISEND_COMPLETE '' "$TMP/ev.txt")" $((P * N))
check_eq "MPI_IRECV_REQUEST events" "$(count MPI_IRECV_REQUEST '' "$TMP/ev.txt")" $((P * N))
check_eq "collective instances" "$(count MPI_COLLECTIVE_END '' "$TMP/ev.txt")" $((3 * P * N + P))
check_eq "RMA puts" "$(count RMA_PUT '' "$TMP/ev.txt")" $P
check_eq "RMA gets" "$(count RMA_GET '' "$TMP/ev.txt")" $P
check_eq "RMA windows" "$(count RMA_WIN_CREATE '' "$TMP/ev.txt")" $P
check_eq "fences + create + free" "$(count RMA_COLLECTIVE_END '' "$TMP/ev.txt")" $((5 * P))
# sizes: ping-pong of (3 + i % 4) ints both ways; rings of 100 doubles; Allreduce of 5 doubles
want=$(awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) s += 2 * 4 * (3 + i % 4); print s }')
got=$(awk '$1 == "MPI_SEND" { for (i = 1; i <= NF; i++) if ($i == "Length:") s += $(i + 1) } END { print s + 0 }' "$TMP/ev.txt")
check_eq "sum of MPI_SEND lengths" "$got" "$want"
got=$(awk '$1 == "MPI_RECV" { for (i = 1; i <= NF; i++) if ($i == "Length:") s += $(i + 1) } END { print s + 0 }' "$TMP/ev.txt")
check_eq "sum of MPI_RECV lengths (MPI_STATUS_IGNORE)" "$got" "$want"
check_eq "Isend lengths all 800" "$(awk '$1 == "MPI_ISEND"' "$TMP/ev.txt" | grep -c 'Length: 800,')" $((P * N))
check_eq "Irecv lengths all 800" "$(awk '$1 == "MPI_IRECV"' "$TMP/ev.txt" | grep -c 'Length: 800,')" $((P * N))
check_eq "Allreduce 40 bytes each way" "$(grep -c 'Operation: ALLREDUCE.*Sent: 40, Received: 40' "$TMP/ev.txt")" $((P * N))
check_eq "Bcast root 0, 68 bytes" "$(grep -c 'Operation: BCAST.*Root: 0.*\(Sent: 68, Received: 0\|Sent: 0, Received: 68\)' "$TMP/ev.txt")" $((P * N))
check_eq "ring peers: rank 2 sends to 0" "$(awk '$1 == "MPI_ISEND" && $2 == 2' "$TMP/ev.txt" | grep -c 'Receiver: 0 ')" $N
check_eq "global defs: one location per rank" "$(otf2-print -G "$TMP/t/traces.otf2" | grep -c '^LOCATION  ')" $P

# 3. call site of the MPI_Send in ping() resolves to its source line
line=$(grep -n 'CALLSITE ping' tests/mpi/trace_app.c | cut -d: -f1)
read -r mod off < <(awk '$1 == "ENTER" && $2 == 0 && /"MPI_Send"/ { getline; match($0, /STRING; "[^"]*"/); m = substr($0, RSTART + 9, RLENGTH - 10); match($0, /UINT64; [0-9]+/); print m, substr($0, RSTART + 8, RLENGTH - 8); exit }' "$TMP/ev.txt")
check_eq "call site module is the application" "$mod" "$(readlink -f $APP)"
where=$(addr2line -f -e "$mod" "$(printf '0x%x' "${off:-0}")" | tr '\n' ' ')
check_match "call site resolves to ping() at trace_app.c:$line" "$where" "^ping .*trace_app.c:$line( |$)"

# 4. clock offsets: two per rank; rank 0 is the reference; same host, so |offset| <= rtt/2 + 50us
otf2-print -C "$TMP/t/traces.otf2" >"$TMP/clk.txt" 2>&1
check_eq "two clock offsets per rank" "$(grep -c '^CLOCK_OFFSET' "$TMP/clk.txt")" $((2 * P))
check_eq "rank 0 offset is 0" "$(awk '$1 == "CLOCK_OFFSET" && $2 == 0 && $6 != "+0,"' "$TMP/clk.txt" | wc -l)" 0
bad=$(awk '$1 == "CLOCK_OFFSET" { o = $6; sub(/,/, "", o); o = o < 0 ? -o : o; if (o > $8 + 50000) print }' "$TMP/clk.txt" | wc -l)
check_eq "offsets within rtt on one host" "$bad" 0

# 5. a 1 KiB buffer (16 records) flushes many times and still gives the complete trace
$BIN/mpilens trace -o "$TMP/small" -b 1k -- $MPIRUN -np $P $APP $N >/dev/null 2>"$TMP/small.err"
otf2-print "$TMP/small/traces.otf2" >"$TMP/small.txt" 2>&1
tiny_bad=0
for k in ENTER MPI_SEND MPI_RECV MPI_ISEND MPI_IRECV MPI_COLLECTIVE_END RMA_PUT; do
    got=$(count $k '' "$TMP/small.txt") want=$(count $k '' "$TMP/ev.txt")
    check_eq "tiny buffer: $k count" "$got" "$want"
    [ "$got" = "$want" ] || tiny_bad=1
done
# A loss seen once in ~30 loaded runs and not reproduced since: keep what explains it.
if [ $tiny_bad = 1 ]; then
    {
        echo "tiny buffer diagnostics: collector stderr, then ENTER events per rank (tiny vs reference)"
        cat "$TMP/small.err"
        for r in $(seq 0 $((P - 1))); do
            echo "rank $r: $(count ENTER $r "$TMP/small.txt") vs $(count ENTER $r "$TMP/ev.txt")"
        done
    } >&2
fi
check "raw files removed after a clean run" test ! -e "$TMP/small/raw/0.evt"

# 6. rank 1 calls abort() after 60 of 200 iterations: the recovered archive reads, and holds all
#    61 of rank 1's sends (its SIGABRT handler flushes the 2 KiB buffer, 32 records, 10 records
#    per iteration); mpilens exits with mpirun's status 134 = 128 + SIGABRT
check_exit "aborted run: exit 134" 134 $BIN/mpilens trace -o "$TMP/crash" -b 2k -- $MPIRUN -np 2 $APP 200 60
check_match "says it recovered" "$(cat "$TMP/err")" 'without MPI_Finalize'
check "otf2-print reads the recovered archive" otf2-print --silent "$TMP/crash/traces.otf2"
otf2-print "$TMP/crash/traces.otf2" >"$TMP/crash.txt" 2>&1
s1=$(count MPI_SEND 1 "$TMP/crash.txt")
check_eq "rank 1 keeps all its sends (the handler flushed)" "$s1" 61
check_eq "no RMA after the crash" "$(count RMA_PUT '' "$TMP/crash.txt")" 0

# 7. linked instead of preloaded, started with MPI_Init_thread(MPI_THREAD_MULTIPLE)
linked=$(readlink -f $LINKED)
(mkdir -p "$TMP/lk" && cd "$TMP/lk" && $MPIRUN -np 2 "$linked" 4 >/dev/null 2>&1)
check "linked: otf2-print reads ./mpilens-trace" otf2-print --silent "$TMP/lk/mpilens-trace/traces.otf2"
check_eq "linked: Init_thread recorded" "$(otf2-print "$TMP/lk/mpilens-trace/traces.otf2" | grep -c 'ENTER.*"MPI_Init_thread"')" 2
check_eq "linked: MPI_SEND events" "$(otf2-print "$TMP/lk/mpilens-trace/traces.otf2" | count MPI_SEND '' /dev/stdin)" 8

# 8. error paths
check_exit "no command: usage" 2 $BIN/mpilens trace -o "$TMP/x"
check_exit "bad buffer size: usage" 2 $BIN/mpilens trace -b 12q -- true
check_match "bad buffer message" "$(cat "$TMP/err")" "buffer '12q'"
check_exit "command not found" 1 $BIN/mpilens trace -o "$TMP/nf" -- /nonexistent/prog
check_match "names the command" "$(cat "$TMP/err")" "cannot run '/nonexistent/prog'"
check_exit "program without MPI: no trace" 1 $BIN/mpilens trace -o "$TMP/nompi" -- true
check_match "says no trace" "$(cat "$TMP/err")" 'no trace written'
mkdir -p "$TMP/bogus/raw" && printf 'hello\n' >"$TMP/bogus/raw/0.defs"
check_exit "recover: bad raw file" 1 $BUILD/lib/mpilens-trace-recover "$TMP/bogus"
check_match "recover names the file" "$(cat "$TMP/err")" 'bogus/raw/0.defs'
check "recover wrote nothing" test ! -e "$TMP/bogus/traces.otf2"
check_exit "help" 0 $BIN/mpilens trace --help
check_match "help has an example" "$(cat "$TMP/out")" 'mpilens trace -o .* -- mpirun'
finish test_trace
