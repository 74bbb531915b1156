#!/usr/bin/env bash
# Report time: `mpilens report` on synthetic one_to_one cubes of 64 and 256 processes x 16
# lengths (3 heatmaps + histograms, summary, title page), against `mpilens info` on the same
# cube (reading it and computing its statistics) as the peer.
set -eu
BIN=${BIN:-build/bin}
work=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-report.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1715860800
now() { date +%s.%N; }
# best of 3 wall-clock seconds of a command
best() {
    local b=
    for _ in 1 2 3; do
        local s e
        s=$(now); "$@" >/dev/null 2>&1; e=$(now)
        b=$(awk -v s="$s" -v e="$e" -v b="$b" 'BEGIN { t = e - s; if (b == "" || t < b) b = t; printf "%.3f", b }')
    done
    echo "$b"
}
for p in 64 256; do
    mkdir -p "$work/c$p"
    "$BIN/mpilens" synth -o "$work/c$p/network" --procs "$p" --nodes 8 --sockets 2 \
        --lengths 0:65536:4096 --seed 77 >/dev/null 2>"$work/synth.err" || { cat "$work/synth.err" >&2; exit 1; }
    rep=$(best "$BIN/mpilens" report "$work/c$p/network" -o "$work/r$p.pdf")
    fig=$(best "$BIN/mpilens" report "$work/c$p/network" -o "$work/r$p.pdf" --figures "$work/fig$p")
    inf=$(best "$BIN/mpilens" info "$work/c$p/network")
    pages=$(pdfinfo "$work/r$p.pdf" 2>/dev/null | sed -n 's/^Pages: *//p')
    size=$(stat -c %s "$work/r$p.pdf")
    awk -v p="$p" -v r="$rep" -v f="$fig" -v i="$inf" -v pg="$pages" -v sz="$size" 'BEGIN {
        printf "report %4d procs x 16 lengths: %.3f s (%d pages, %.0f KiB); with --figures %.3f s; info %.3f s; report/info %.1fx\n",
               p, r, pg, sz / 1024, f, i, (i > 0 ? r / i : 0) }'
done
