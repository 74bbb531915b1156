#!/usr/bin/env bash
# make demo: the main job. Measures this machine's all-pairs latency cube live with
# mpilens-bench (when it is built), adds the sample cube with a known structure, and writes
# out/demo/report.pdf with its figures. Each step says what it does on stderr.
set -eu
build=${1:-build}
BIN=$build/bin
out=out/demo
mkdir -p "$out"
say() { echo "mpilens demo: $*" >&2; }
inputs=()

if [ -x "$BIN/mpilens-bench" ]; then
    np=4
    say "measuring this machine: $np processes, one_to_one, lengths 0..4096 step 1024, 20 repeats"
    mpirun --allow-run-as-root --oversubscribe -np $np "$BIN/mpilens-bench" \
        -t one_to_one -b 0 -e 4097 -s 1024 -n 20 -f "$out/live/network" --force
    inputs+=("$out/live/network")
fi
say "sample cube: samples/cubes/synth32 (4 nodes x 2 sockets, slow node03, bad link 3 -> 17)"
inputs+=(samples/cubes/synth32/network)

for i in "${inputs[@]}"; do
    "$BIN/mpilens" info "$i" >"$out/$(basename "$(dirname "$i")")-info.txt"
done
say "writing $out/report.pdf and the figures in $out/figures"
"$BIN/mpilens" report "${inputs[@]}" -o "$out/report.pdf" --figures "$out/figures" \
    --title "mpilens demo: $(hostname)"
pages=$(pdfinfo "$out/report.pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }')
say "done: $out/report.pdf ($pages pages), figures in $out/figures"
