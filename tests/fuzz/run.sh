#!/usr/bin/env bash
# Runs libFuzzer targets one after the other (make fuzz; docs/fuzz.md) and prints a table:
# executions, executions per second, coverage (cov: edges, ft: features), corpus size and
# crashes (artifacts new in this run) per target. New inputs go to FUZZ_BUILD/corpus/<target>
# (the seeds in tests/fuzz/corpus/<target> are read, never written); crashes, leaks, timeouts
# and out-of-memory inputs go to FUZZ_BUILD/artifacts/<target>/.
# Each target runs in libFuzzer's fork mode (-fork=1) and goes on after a crash, a timeout or
# an out-of-memory input (-ignore_*), so a known bug does not end its run in the first
# second; tests/fuzz/<target>.options holds extra flags for one target.
# Usage: tests/fuzz/run.sh FUZZ_BUILD SECONDS TARGET...
# Environment: FUZZ_FLAGS adds libFuzzer flags (e.g. "-max_len=65536"); FUZZ_FORK=0 runs
# in-process instead, stopping at the first crash (as libFuzzer does by default).
set -u
build=$1 secs=$2
shift 2
export TMPDIR="$build/tmp"   # the harnesses' scratch directories
mkdir -p "$TMPDIR"
sym=$(command -v llvm-symbolizer-14 || command -v llvm-symbolizer || true)
[ -n "$sym" ] && export ASAN_SYMBOLIZER_PATH=$sym
# the suite's suppressions: leaks inside libraries (libotf2 leaks on a damaged archive)
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
table="$build/fuzz-summary.txt"
printf '%-10s %12s %8s %7s %7s %7s %7s\n' target execs exec/s cov ft corpus crashes > "$table"
status=0
for t in "$@"; do
    bin=$build/fuzz/fuzz_$t
    [ -x "$bin" ] || { echo "fuzz: $bin not built" >&2; status=1; continue; }
    work=$build/corpus/$t art=$build/artifacts/$t log=$build/logs/$t.log
    mkdir -p "$work" "$art" "$(dirname "$log")"
    dict=; [ -f "tests/fuzz/$t.dict" ] && dict=-dict=tests/fuzz/$t.dict
    opts=; [ -f "tests/fuzz/$t.options" ] && opts=$(grep -v '^#' "tests/fuzz/$t.options")
    mode="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
    [ "${FUZZ_FORK:-1}" = 0 ] && mode=
    echo "fuzz: $t for $secs s (log $log)" >&2
    # -timeout: an input slower than 20 s is a hang; -rss_limit_mb bounds a memory blow-up
    before=$(find "$art" -type f | wc -l)
    "$bin" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$art/" $mode $dict $opts ${FUZZ_FLAGS:-} "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    # in-process: "#N DONE cov: C ft: F" and stat:: lines; fork mode: "#N: cov: C ft: F ..."
    last=$(grep -E '^#[0-9]+:? ' "$log" | grep -E 'cov: [0-9]+' | tail -n 1)
    execs=$(echo "$last" | sed -nE 's/^#([0-9]+).*/\1/p')
    cov=$(echo "$last" | sed -nE 's/.*cov: ([0-9]+).*/\1/p')
    ft=$(echo "$last" | sed -nE 's/.* ft: ([0-9]+).*/\1/p')
    st=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -n 1)
    [ -n "$st" ] && execs=$st
    ncorp=$(find "$work" -type f | wc -l)
    ncrash=$(( $(find "$art" -type f | wc -l) - before ))   # new in this run
    eps=$(awk -v n="${execs:-0}" -v s="$secs" 'BEGIN { printf "%d", (s > 0 ? n / s : 0) }')
    printf '%-10s %12s %8s %7s %7s %7s %7s\n' "$t" "${execs:-?}" "${eps:-?}" "${cov:-?}" "${ft:-?}" \
        "$ncorp" "$ncrash" >> "$table"
    if [ "$rc" != 0 ] || [ "$ncrash" != 0 ]; then
        status=1
        grep -E '==ERROR|runtime error|^SUMMARY|Test unit written|CRASH|#[0-9]+ 0x' "$log" | head -12 | sed 's/^/  /' >&2
    fi
done
rm -rf "$TMPDIR"
cat "$table"
[ "$status" = 0 ] || echo "fuzz: crashes found; see $build/artifacts/ and docs/fuzz.md (adding a crash as a regression)" >&2
exit $status
