#!/usr/bin/env bash
# The all-pairs collector's memory against the number of ranks (issue 16): peak resident memory
# (VmHWM) of rank 0 and of the largest other rank, and what the output step adds to the largest
# rank's peak, at 16, 32 and 64 oversubscribed ranks, for the PnetCDF write (every rank its own
# rows) against the gather to rank 0 (MPILENS_BENCH_GATHER=1). One one_to_one length, 16 repeats
# kept with --raw, so a gathering rank 0 holds (8 + 16) x P^2 doubles: 1.5 MB at 64 ranks.
set -eu
BIN=${BIN:-build/bin}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-rss.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
echo "one_to_one, 1 length, 16 repeats (--raw), --schedule parallel, oversubscribed on $(nproc) cores:"
printf "  %-8s %5s %14s %18s %16s\n" path ranks "rank 0 peak" "other ranks max" "output step"
for g in 0 1; do
    for p in 16 32 64; do
        rm -rf "$dir/r"
        MPILENS_BENCH_GATHER=$g $MPIRUN -np $p "$BIN/mpilens-bench" -t one_to_one --schedule parallel --retest 0 \
            -n 16 --warmup 1 -b 0 -e 1 -s 1 --raw --timing -f "$dir/r/net" </dev/null >/dev/null 2>"$dir/err"
        sed -nE 's/.*peak RSS rank 0 ([0-9]+) kB, other ranks max ([0-9]+) kB; output step \+([0-9]+) kB.*/\1 \2 \3/p' \
            "$dir/err" | tail -1 | awk -v p=$p -v g=$g '{
            printf "  %-8s %5d %11.1f MB %15.1f MB %13d kB\n", g ? "gather" : "pnetcdf", p, $1 / 1024, $2 / 1024, $3 }'
    done
done
echo "  (the output step's growth: O(P) with PnetCDF, 8 B x P^2 x (8 + repeats) on a gathering rank 0)"
