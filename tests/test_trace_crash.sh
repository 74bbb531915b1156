#!/usr/bin/env bash
# Traced runs that end badly keep what they recorded (docs/trace.md, "Memory, flushes,
# crashes"). tests/mpi/trace_crash does N iterations of one Sendrecv and one Barrier per rank
# (so 1 + 2N Enter events: MPI_Init and the calls), then rank 2 segfaults, calls MPI_Abort,
# raises SIGTERM or SIGKILL, or every rank hangs until timeout sends SIGTERM. For each run:
# otf2-print (an independent reader) reads the recovered archive; the victim, whose own handler
# flushes, keeps all 1 + 2N Enter events; the other ranks keep at least what they did up to one
# flush interval (-f 0.1 s, at most 20 iterations of >= 5 ms) before the end; `mpilens trace`
# prints events per rank equal to otf2-print's counts, warns about the ranks that end early,
# and exits with the status of the run (128 + signal, the MPI_Abort code, or the status the
# same run gives without tracing). Then MPILENS_TRACE_KEEP_RAW=1 keeps raw/ (item 12).
. tests/lib.sh
APP=$BUILD/tests/mpi/trace_crash
# under AddressSanitizer the crash signals must reach the collector and the default action
ASAN_X="ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0:handle_segv=0:handle_abort=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x $ASAN_X"
N=60 SLACK=20

# enters FILE RANK: Enter events of RANK in otf2-print's output
enters() { awk -v r="$2" '$1 == "ENTER" && $2 == r { n++ } END { print n + 0 }' "$1"; }
# events FILE [NRANKS]: "0=n 1=n ..." counted from otf2-print's output, every event line of
# each location
events() {
    awk -v nr="${2:-4}" 'NF >= 3 && $1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ { n[$2]++ }
         END { for (r = 0; r < nr; r++) printf "%s%d=%d", r ? " " : "", r, n[r] + 0 }' "$1"
}

# crashed NAME VICTIM: the checks every crashed 4-rank run must pass
crashed() {
    local name=$1 victim=$2 d="$TMP/$1"
    check "$name: otf2-print reads the recovered archive" otf2-print --silent "$d/traces.otf2"
    otf2-print "$d/traces.otf2" >"$d.txt" 2>&1
    local want=$((1 + 2 * N)) low=$((1 + 2 * (N - SLACK))) r got
    for r in 0 1 2 3; do
        got=$(enters "$d.txt" $r)
        if [ "$r" = "$victim" ]; then
            check_eq "$name: rank $r (the victim, flushed by its handler) keeps all its calls" "$got" $want
        else
            check_match "$name: rank $r keeps >= $low Enter events (got $got)" \
                "$([ "$got" -ge $low ] && [ "$got" -le $((want + 2)) ] && echo yes)" yes
        fi
    done
    check_eq "$name: events per rank as otf2-print counts them" \
        "$(sed -n 's/^mpilens: events per rank: //p' "$d.err")" "$(events "$d.txt")"
    check_match "$name: warns that the ranks end early, until when" "$(cat "$d.err")" \
        'warning: the trace of 4 of 4 ranks ends early \(no MPI_Finalize.*rank 2 kept until [0-9.]+ s \([0-9]+ events\)'
    check_match "$name: mpilens problems warns too" \
        "$($BIN/mpilens problems "$d" 2>&1 >/dev/null)" "$name: the trace of 4 of 4 ranks ends early"
}

# 1. rank 2 segfaults: mpirun's status 139 = 128 + SIGSEGV comes back
check_exit "segv: exit status 139" 139 $BIN/mpilens trace -o "$TMP/segv" -f 0.1 -- $MPIRUN -np 4 $APP segv $N
cp "$TMP/err" "$TMP/segv.err"
check_match "segv: rank 2's handler saw SIGSEGV" "$(cat "$TMP/segv.err")" 'rank 2: ended by signal 11'
crashed segv 2

# 2. rank 2 calls MPI_Abort(MPI_COMM_WORLD, 3): status 3
check_exit "abort: exit status 3 (the MPI_Abort code)" 3 $BIN/mpilens trace -o "$TMP/abort" -f 0.1 -- $MPIRUN -np 4 $APP abort $N
cp "$TMP/err" "$TMP/abort.err"
check_match "abort: says rank 2 called MPI_Abort" "$(cat "$TMP/abort.err")" 'rank 2: called MPI_Abort \(error code 3\)'
crashed abort 2

# 3. rank 2 SIGKILLs itself: no handler runs, its time-driven flushes keep all but the last
#    interval; status 137 = 128 + SIGKILL
check_exit "kill: exit status 137" 137 $BIN/mpilens trace -o "$TMP/kill" -f 0.1 -- $MPIRUN -np 4 $APP kill $N
cp "$TMP/err" "$TMP/kill.err"
crashed kill -1
k2=$(enters "$TMP/kill.txt" 2)
check_match "kill: rank 2 lost at most one flush interval ($k2 of $((1 + 2 * N)))" \
    "$([ "$k2" -ge $((1 + 2 * (N - SLACK))) ] && echo yes)" yes

# 4. every rank hangs after N iterations until timeout sends SIGTERM: mpilens passes it on to
#    mpirun, which ends the ranks; the status is the one of the same untraced run
# term_when_ready CMD...: runs CMD in the background, sends it SIGTERM once every rank hangs
# (the app's ready file; a fixed delay failed on a loaded machine where the ranks had not yet
# reached MPI_Init), and returns its exit status
term_when_ready() {
    rm -f "$TMP/ready"
    TRACE_CRASH_READY="$TMP/ready" "$@" >"$TMP/out" 2>"$TMP/err" &
    local pid=$! i
    for i in $(seq 1200); do [ -e "$TMP/ready" ] && break; sleep 0.1; done
    sleep 0.3
    kill -TERM $pid
    wait $pid
}
term_when_ready $MPIRUN -np 4 $APP hang 5
ref=$?
term_when_ready $BIN/mpilens trace -o "$TMP/term" -f 0.1 -- $MPIRUN -np 4 $APP hang $N
check_eq "term: status of the untraced run" "$?" "$ref"
cp "$TMP/err" "$TMP/term.err"
crashed term -1
check "term: mpilens trace printed the anchor" grep -q 'term/traces.otf2$' "$TMP/out"

# 5. a singleton that raises SIGTERM, then one that segfaults: the handler flushes and the
#    default action ends the process, whose own status (128 + signal) comes back
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
check_exit "singleton SIGTERM: status 143" 143 env $ASAN_X $BIN/mpilens trace -o "$TMP/s1" -- $APP term 10 0
check_eq "singleton SIGTERM: all calls kept" "$(otf2-print "$TMP/s1/traces.otf2" | enters /dev/stdin 0)" 21
check_exit "singleton SIGSEGV: status 139" 139 env $ASAN_X $BIN/mpilens trace -o "$TMP/s2" -- $APP segv 10 0
check_eq "singleton SIGSEGV: all calls kept" "$(otf2-print "$TMP/s2/traces.otf2" | enters /dev/stdin 0)" 21

# 6. a singleton SIGKILLed before its first flush (no mpirun, so no SIGCONT flush either): an
#    archive without events; mpilens trace warns, mpilens problems refuses to say "no problems
#    found"
check_exit "kill before any flush: status 137" 137 env $ASAN_X $BIN/mpilens trace -o "$TMP/none" -- $APP kill 2 0
check_match "no events: mpilens trace warns" "$(cat "$TMP/err")" 'warning: .*no rank kept any event'
check_exit "no events: mpilens problems fails" 1 $BIN/mpilens problems "$TMP/none"
check_match "no events: says so" "$(cat "$TMP/err")" 'no events in any of its 1 ranks'
check_eq "no events: no listing" "$(grep -c 'no problems found' "$TMP/out")" 0

# 7. item 12: MPILENS_TRACE_KEEP_RAW=1 keeps raw/ after a recovery (and after a clean run);
#    the kept files give the same archive again
MPILENS_TRACE_KEEP_RAW=1 $BIN/mpilens trace -o "$TMP/keep" -f 0.1 -- $MPIRUN -np 4 $APP segv 20 >/dev/null 2>&1
check_eq "keep raw after a recovery: 4 .evt + 4 .defs" "$(ls "$TMP/keep/raw" 2>/dev/null | grep -cE '^[0-3]\.(evt|defs)$')" 8
otf2-print "$TMP/keep/traces.otf2" | events /dev/stdin >"$TMP/keep.1"
rm -rf "$TMP/keep/traces" "$TMP/keep/traces.otf2" "$TMP/keep/traces.def"
check "recover again from the kept raw files" $BUILD/lib/mpilens-trace-recover "$TMP/keep"
check_eq "the same events again" "$(otf2-print "$TMP/keep/traces.otf2" | events /dev/stdin)" "$(cat "$TMP/keep.1")"
check "raw/ removed without KEEP_RAW" test ! -e "$TMP/segv/raw"

# 8. a clean run kept with MPILENS_TRACE_KEEP_RAW=1, then rank 1's raw files cut to the first
#    half of its records without the MPI_Finalize mark: recovered, only rank 1 ends early
MPILENS_TRACE_KEEP_RAW=1 $BIN/mpilens trace -o "$TMP/cut" -- $MPIRUN -np 3 $BUILD/tests/mpi/trace_app 7 >/dev/null 2>&1
check_eq "keep raw after a clean run" "$(ls "$TMP/cut/raw" 2>/dev/null | grep -cE '^[0-2]\.(evt|defs)$')" 6
sz=$(stat -c %s "$TMP/cut/raw/1.evt")
truncate -s $((sz / 64 / 2 * 64)) "$TMP/cut/raw/1.evt"
sed -i '/^end /d' "$TMP/cut/raw/1.defs"
rm -rf "$TMP/cut/traces" "$TMP/cut/traces.otf2" "$TMP/cut/traces.def"
check "recover the cut run" $BUILD/lib/mpilens-trace-recover "$TMP/cut"
check_match "recovery: rank 1 has no end mark" "$(cat "$TMP/err")" 'rank 1: no end mark'
otf2-print "$TMP/cut/traces.otf2" >"$TMP/cut.txt" 2>&1
ev1=$(events "$TMP/cut.txt" 3 | tr ' ' '\n' | sed -n 's/^1=//p')
check_exit "cut run: problems still lists (exit 0)" 0 $BIN/mpilens problems "$TMP/cut"
check_match "cut run: warns about rank 1 only" "$(cat "$TMP/err")" \
    "the trace of 1 of 3 ranks ends early \\(no MPI_Finalize.*\\): rank 1 kept until [0-9.]+ s \\($ev1 events\\); the last"
check_match "cut run: rank 1 keeps fewer Enter events than rank 0" \
    "$([ "$(enters "$TMP/cut.txt" 1)" -lt "$(enters "$TMP/cut.txt" 0)" ] && echo yes)" yes

# 9. complete Score-P traces: the counts, and no warning
for t in casita-4_mpi_ls_barr:4 pipit-ping-pong:2; do
    d=$DATA/otf2/${t%:*}
    $BIN/mpilens problems "$d" >/dev/null 2>"$TMP/full.err"
    check_eq "${t%:*}: events per rank as otf2-print counts them" \
        "$(sed -n 's/^mpilens: .*: events per rank: //p' "$TMP/full.err")" \
        "$(otf2-print "$d/traces.otf2" | events /dev/stdin ${t#*:})"
    check_eq "${t%:*}: no warning" "$(grep -c 'ends early' "$TMP/full.err")" 0
done
finish test_trace_crash
