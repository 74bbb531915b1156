# Replays every fuzz target's seed corpus (tests/fuzz/corpus/<target>) and past crashes
# (tests/fuzz/crashes/<target>) through the harness built with $(CC) and
# tests/fuzz/replay_main.c: one pass per input that runs without a crash, sanitizer report,
# leak or hang, so a regression names its file. tests/fuzz/pending/ (crashes whose fixes are
# not merged yet) is not replayed. Also checks that the replay itself can fail and goes on:
# a missing file and a child killed by a signal are each counted as one failure, by name.
. tests/lib.sh
# Under ASan (make asan) an allocation above 1 GB is an error, as libFuzzer's malloc limit is:
# no seed needs that much, and a crafted header that makes a library allocate what it declares
# (tests/fuzz/pending) is caught here too. A plain build ignores ASAN_OPTIONS.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}abort_on_error=0:max_allocation_size_mb=1024"

for src in tests/fuzz/fuzz_*.c; do
    t=$(basename "$src" .c); t=${t#fuzz_}
    bin=$BUILD/fuzz/replay_$t
    if [ ! -x "$bin" ]; then fail "$t: $bin not built"; continue; fi
    dirs=""
    for d in tests/fuzz/corpus/$t tests/fuzz/crashes/$t; do [ -d "$d" ] && dirs="$dirs $d"; done
    if [ -z "$dirs" ]; then fail "$t: no seed corpus in tests/fuzz/corpus/$t"; continue; fi
    "$bin" $dirs >"$TMP/out" 2>"$TMP/err"
    line=$(grep -E '^replay_[a-z0-9_]+: [0-9]+ passed, [0-9]+ failed$' "$TMP/out" | tail -n 1)
    if [ -z "$line" ]; then fail "$t: no summary line"; sed 's/^/  /' "$TMP/err" | tail -20 >&2; continue; fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed/\1/')
    PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
    # the child's sanitizer report and the FAIL: line that names the input
    [ "$f" = 0 ] || sed 's/^/  /' "$TMP/err" | grep -E 'FAIL:|ERROR|runtime error|#[0-9] ' | head -40 >&2
done

# The replay must count a failing input instead of stopping: a missing file fails, the
# next input still runs.
"$BUILD/fuzz/replay_runs" "$TMP/missing.csv" tests/fuzz/corpus/runs/paper.csv >"$TMP/out" 2>"$TMP/err"
check_eq "replay counts a failure and goes on" "$(cat "$TMP/out")" "replay_runs: 1 passed, 1 failed"
check_match "replay names the failed input" "$(cat "$TMP/err")" "FAIL: $TMP/missing.csv"
REPLAY_SELFTEST_CRASH=/time_status.csv "$BUILD/fuzz/replay_runs" tests/fuzz/corpus/runs >"$TMP/out" 2>"$TMP/err"
check_eq "replay counts a crashed child and goes on" "$(cat "$TMP/out")" "replay_runs: 2 passed, 1 failed"
check_match "replay names the crashed input" "$(cat "$TMP/err")" "FAIL: tests/fuzz/corpus/runs/time_status.csv: .*signal 9"

finish fuzz_replay
