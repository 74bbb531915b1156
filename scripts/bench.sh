#!/usr/bin/env bash
# make bench: speed and memory figures against peers in the same run.
set -eu
echo "mpilens: no benchmarks yet" >&2
