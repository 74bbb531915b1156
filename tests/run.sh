#!/usr/bin/env bash
# Runs every test program and script, then prints the one total line for the suite.
# Usage: tests/run.sh BUILD_DIR [PATTERN]
set -u
build=${1:-build}
pattern=${2:-}
export BUILD=$build BIN=$build/bin
export DATA=${DATA:-$(cd "$(dirname "$0")" && pwd)/data}
total_p=0 total_f=0 broken=0
log=$(mktemp)
for t in "$build"/tests/test_* tests/test_*.sh; do
    [ -e "$t" ] || continue
    case "$t" in *.d|*.o) continue ;; esac
    name=$(basename "$t")
    [ -n "$pattern" ] && case "$name" in *$pattern*) ;; *) continue ;; esac
    start=$(date +%s.%N)
    # A test that hangs (a loop that never ends, an MPI rank waiting for a dead peer) is cut
    # off and counted broken instead of holding the suite, and CI, forever. The longest test
    # took 452 s under ASan on a loaded machine; LENS_TEST_TIMEOUT overrides the limit (s).
    if [ "${t%.sh}" != "$t" ]; then timeout -k 10 "${LENS_TEST_TIMEOUT:-1500}" bash "$t" >"$log" 2>&1; rc=$?
    else timeout -k 10 "${LENS_TEST_TIMEOUT:-1500}" "$t" >"$log" 2>&1; rc=$?; fi
    [ "$rc" = 124 ] && echo "$name: timed out after ${LENS_TEST_TIMEOUT:-1500} s" >>"$log"
    secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
    line=$(grep -E '^[A-Za-z0-9_.:-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        echo "BROKEN $name (exit $rc, no summary line)"; sed 's/^/  /' "$log" | tail -n 30
        broken=$((broken + 1)); continue
    fi
    p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    if [ "$f" != 0 ] || [ "$rc" != 0 ]; then
        grep -v -E '^[A-Za-z0-9_.:-]+: [0-9]+ passed, [0-9]+ failed' "$log" | sed 's/^/  /' | tail -n 40
        [ "$f" = 0 ] && f=1
    fi
    # sanitizer reports fail the test even when the assertions passed
    if grep -q -E '^(==[0-9]+==ERROR|.*runtime error:)' "$log"; then
        echo "  sanitizer report in $name:"; grep -E -A5 '^(==[0-9]+==ERROR|.*runtime error:)' "$log" | head -20 | sed 's/^/  /'
        f=$((f + 1))
    fi
    echo "$line ($secs s)"
    total_p=$((total_p + p)); total_f=$((total_f + f))
done
rm -f "$log"
total_f=$((total_f + broken))
echo "$total_p passed, $total_f failed"
[ "$total_f" = 0 ]
