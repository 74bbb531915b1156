#!/usr/bin/env bash
# The two schedules of the all-pairs cube side by side (issue 16, item 5): at 8, 16, 32 and
# 64 ranks oversubscribed on this machine, one_to_one over 3 short lengths with few repeats,
# each run serial then parallel with --estimate and --timing: the rounds of the tournament,
# the estimate printed before the sweep against the run it measured (mpilens-bench's own
# clock around the sweep, retests and writes) and the whole mpirun, and the peak resident
# memory per rank (VmHWM of rank 0 and the largest of the others, from --timing, so each
# rank reports itself rather than /usr/bin/time's one launcher). The model and the
# extrapolation are in docs/bench.md, "Estimating a run".
set -eu
BIN=${BIN:-build/bin}
RANKS=${RANKS:-8 16 32 64}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-schedule.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
SWEEP="-t one_to_one -n 5 --warmup 1 -b 0 -e 1025 -s 512"
now() { date +%s.%N; }

echo "one_to_one, lengths 0, 512, 1024 B, 5 repeats + 1 warm-up, oversubscribed on $(nproc) cores"
echo "(estimate: printed before measuring; run: the sweep, retests and writes; whole: mpirun)"
printf '%6s %6s | %-28s | %-28s | %8s | %s\n' ranks rounds "serial: estimate / run / whole" \
    "parallel: estimate / run / whole" "run s/p" "peak RSS rank 0 / others, serial; parallel"
for np in $RANKS; do
    for s in serial parallel; do
        t0=$(now)
        $MPIRUN -np "$np" "$BIN/mpilens-bench" --estimate --timing --schedule $s $SWEEP \
            -f "$dir/$s$np/network" </dev/null >"$dir/$s$np.out" 2>"$dir/$s$np.err"
        t1=$(now)
        awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >"$dir/$s$np.whole"
    done
    awk -v np="$np" -v ws="$(cat "$dir/serial$np.whole")" -v wp="$(cat "$dir/parallel$np.whole")" '
        # the estimate and the run from "measured: X s for the run (estimate Y s, Rx)"
        { f = FILENAME ~ /parallel/ ? 2 : 1 }
        /^  parallel:/ && f == 1 { rounds = $2 }
        /measured:/ { run[f] = $2; est[f] = $(NF - 2) }
        /timing length/ {
            match($0, /rank 0 [0-9]+ kB/); r0[f] = substr($0, RSTART + 7, RLENGTH - 10)
            match($0, /max [0-9]+ kB/); ro[f] = substr($0, RSTART + 4, RLENGTH - 7)
        }
        END {
            printf "%6d %6d | %7.2f s / %6.2f s / %5.1f s | %7.2f s / %6.2f s / %5.1f s | %7.1fx | %.1f / %.1f MB; %.1f / %.1f MB\n",
                np, rounds, est[1], run[1], ws, est[2], run[2], wp, run[1] / run[2],
                r0[1] / 1024, ro[1] / 1024, r0[2] / 1024, ro[2] / 1024
        }' "$dir/serial$np.out" "$dir/serial$np.err" "$dir/parallel$np.out" "$dir/parallel$np.err" 2>/dev/null ||
        echo "$np ranks: a run failed; see its log" >&2
done
