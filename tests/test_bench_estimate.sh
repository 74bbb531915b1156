# mpilens-bench --estimate under real mpirun: the estimate printed before the sweep is within
# a factor 3 of the measured wall time (the best of 3 runs: the machine is shared and noisy,
# and a load that arrives after the calibration only stretches the run, so the run nearest its
# estimate is the one that shows the model; a model off by 3x misses in all three) at 4 and 8 ranks for both schedules; the printed totals are recomputed from the
# printed calibration (awk, the model's formula); --estimate-only measures and writes
# nothing; modes without pairs and bad values are refused with a clear message.
. tests/lib.sh
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench
SWEEP="-n 100 -b 0 -e 4097 -s 512" # 9 lengths, so a run lasts long enough to time

# recompute OUT: "serial parallel output this-run" totals from the calibration and output lines,
# then the same four with the model's formula (pairs x nlen x mean of the two ends; rounds x
# nlen x mean + (K + 1) x nlen x pair mean; nlen x one length's output step; the chosen
# schedule's total plus the output)
recompute() {
    # after(S, M): the number that follows the last M in S (a total of 100 s or more prints
    # as "110 s (0.0 h)", so counting fields from the end does not find it)
    awk '
        function after(s, m,   i, j, f) { i = 0; while ((j = index(substr(s, i + 1), m)) > 0) i += j
                                          split(substr(s, i + length(m)), f, " "); return f[1] }
        /^mpilens-bench: estimate/ { for (i = 1; i <= NF; i++) if ($i == "lengths") nlen = $(i - 1) }
        /calibration:/ { split($0, a, /one pair alone /); split(a[2], b, " "); p1 = b[1]; split(a[2], c, ", "); split(c[2], d, " "); p2 = d[1]
                         if (split($0, r, /one round /) > 1) { split(r[2], b, " "); r1 = b[1]; split(r[2], c, ", "); split(c[2], d, " "); r2 = d[1] } }
        /^  serial:/ { pairs = $2; ser = after($0, "in all: ") }
        /^  parallel:/ { rounds = $2; for (i = 1; i <= NF; i++) if ($i == "retests") k = substr($(i + 1), 2); par = after($0, "= ") }
        /^  output:/ { o1 = after($0, "synced "); out = after($0, "lengths: ") }
        /^  this run:/ { sched = $3; run = after($0, "about ") }
        END { ps = pairs * nlen * (p1 + p2) / 2; pp = rounds * nlen * (r1 + r2) / 2 + (k + 1) * nlen * (p1 + p2) / 2
              po = nlen * o1
              printf "%s %s %s %s %.6g %.6g %.6g %.6g\n", ser, par, out, run, ps, pp, po, (sched == "parallel," ? par : ser) + out }' "$1"
}

# ---- estimate against the measured run: 4 and 8 ranks, both schedules, 3 runs each ----
for np in 4 8; do
    : >"$TMP/ratios.serial"
    : >"$TMP/ratios.parallel"
    for r in 1 2 3; do
        for s in serial parallel; do
            O=$TMP/run$np$s$r
            $MPIRUN -np $np "$B" --estimate --schedule $s $SWEEP -f "$O/network" </dev/null >"$O.out" 2>"$O.err"
            check_eq "np $np $s run $r: runs" "$?" "0"
            sed -n 's/.*measured: .*, \([0-9.]*\)x)$/\1/p' "$O.out" >>"$TMP/ratios.$s"
        done
    done
    for s in serial parallel; do
        O=$TMP/run$np${s}1
        check_eq "np $np $s: 3 measured lines" "$(wc -l <"$TMP/ratios.$s")" "3"
        ratio=$(awk '{ d = $1 > 1 ? $1 : 1 / $1; if (NR == 1 || d < b) { b = d; r = $1 } } END { print r }' "$TMP/ratios.$s")
        check "np $np $s: estimate within 3x of the measured run (best of 3: ratio measured/estimate $ratio)" \
            awk -v r="$ratio" 'BEGIN { exit !(r >= 1 / 3 && r <= 3) }'
        check_match "np $np $s: the estimate comes before the sweep" "$(head -1 "$O.out")" \
            "^mpilens-bench: estimate for one_to_one on $np ranks, 9 lengths \(0 to 4096 B\), 100 repeats \+ 10 warm-up$"
        check_match "np $np $s: ordered pairs per length" "$(grep '^  serial:' "$O.out")" \
            "^  serial: +$((np * (np - 1))) pairs per length, $((9 * np * (np - 1))) in all: "
        check_match "np $np $s: rounds per length" "$(grep '^  parallel:' "$O.out")" \
            "^  parallel: +$((np - 1)) rounds per length, $((9 * (np - 1))) in all: "
        check_match "np $np $s: the chosen schedule" "$(grep '^  this run:' "$O.out")" "^  this run: +$s, about "
        check_match "np $np $s: memory per rank" "$(grep '^  memory:' "$O.out")" \
            "peak per rank about [0-9.]+ MB on rank 0, [0-9.]+ MB on the others"
        read -r ser par out run ser2 par2 out2 run2 <<<"$(recompute "$O.out")"
        check_close "np $np $s: serial total = pairs x lengths x mean pair cost" "$ser" "$ser2" 0.01
        check_close "np $np $s: parallel total = rounds x lengths x mean round cost + retests" "$par" "$par2" 0.01
        check_close "np $np $s: output = lengths x one length's output step" "$out" "$out2" 0.01
        check_close "np $np $s: this run = the schedule's total + the output" "$run" "$run2" 0.01
        check_match "np $np $s: the output step is priced" "$(grep '^  output:' "$O.out")" \
            "^  output: +one length written and synced [0-9.e-]+ s, 9 lengths: [0-9.e-]+ s \(either schedule\)$"
        check_eq "np $np $s: the scratch cube is gone" "$(ls -A "$TMP/run$np${s}1" | grep -c mpilens-estimate)" "0"
        check_eq "np $np $s: the cube was written" "$(ls "$TMP/run$np${s}1" | grep -c '_median.nc$')" "1"
    done
done

# ---- --estimate-only: odd P (P rounds), nothing measured or written, an existing result kept ----
check_exit "estimate-only at 5 ranks" 0 $MPIRUN -np 5 "$B" --estimate-only --schedule parallel $SWEEP -f "$TMP/only/network"
check_match "estimate-only: 5 rounds for 5 ranks" "$(grep '^  parallel:' "$TMP/out")" "^  parallel: +5 rounds per length"
check_eq "estimate-only: no measured line" "$(grep -c 'measured:' "$TMP/out")" "0"
check_eq "estimate-only: no progress" "$(grep -c 'done (' "$TMP/err")" "0"
check "estimate-only: nothing written" test ! -e "$TMP/only"
check_exit "estimate-only over an existing result (no --force needed)" 0 \
    $MPIRUN -np 2 "$B" --estimate-only $SWEEP -f "$TMP/run4serial1/network"
# (the folder itself held the scratch cube for a moment: its own time changes, not its files)
check_eq "estimate-only: the existing result untouched" \
    "$(find "$TMP/run4serial1" -type f -newer "$TMP/run4serial1.out" | wc -l)" "0"
check_eq "estimate-only: the same files as before" "$(ls -A "$TMP/run4serial1" | tr '\n' ' ')" \
    "network_average.nc network_deviation.nc network_hosts.txt network_median.nc network_min.nc "
# a noise mode has no parallel schedule: serial only
check_exit "estimate-only, noise_blocking" 0 $MPIRUN -np 4 "$B" --estimate-only -t noise_blocking -p 2 -n 10 -b 0 -e 2 -s 1 -f "$TMP/nz/network"
check_match "noise_blocking: parallel not possible" "$(grep '^  parallel:' "$TMP/out")" "not possible in mode noise_blocking"

# ---- refused: exit 2, one message naming the option, before anything runs ----
while read -r args want; do
    args=${args//+/ }
    # shellcheck disable=SC2086
    check_exit "refused: $args" 2 $MPIRUN -np 2 "$B" $args -f "$TMP/bad/network" </dev/null
    check_match "refusal message: $args" "$(cat "$TMP/err")" "$want"
    check_eq "refusal printed once: $args" "$(grep -c 'mpilens-bench:' "$TMP/err")" "1"
done <<'BAD'
--estimate+-t+bisection --estimate: mode bisection has no pair schedule to model
--estimate-only+-t+p2p --estimate-only: mode p2p has no pair schedule
--estimate+-t+all_to_all mode all_to_all has no pair schedule
--estimate-only+-t+bcast mode bcast has no pair schedule
--estimate=3 option --estimate takes no value
--estimate-only=yes option --estimate-only takes no value
--estimate+-n+0 bad value '0' for -n/--num_iterations
--estimate-only+-s+0 bad length range
BAD
check "nothing written on refusal" test ! -e "$TMP/bad"
check_exit "help" 0 "$B" --help
check_match "help: --estimate and --estimate-only" "$(tr '\n' ' ' <"$TMP/out")" "--estimate +before measuring.*--estimate-only the same"

finish test_bench_estimate
