#!/usr/bin/env bash
# make bench: speed and memory figures, each against its named peer in the same run.
# Each scripts/bench.d/*.sh prints its own section; run one with: scripts/bench.sh build NAME
set -eu
build=${1:-build}
only=${2:-}
export BUILD=$build BIN=$build/bin
export DATA=${DATA:-$(cd "$(dirname "$0")/.." && pwd)/tests/data}
status=0
for s in scripts/bench.d/*.sh; do
    [ -e "$s" ] || continue
    [ -n "$only" ] && case "$s" in *"$only"*) ;; *) continue ;; esac
    echo "== $(basename "$s" .sh)"
    bash "$s" || { echo "bench $(basename "$s") failed" >&2; status=1; }
done
exit $status
