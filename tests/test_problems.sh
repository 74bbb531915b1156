#!/usr/bin/env bash
# mpilens problems on the two real Score-P traces, checked against values computed here with
# awk from otf2-print's event listing (an independent reader), plus the issue's figures for
# casita-4_mpi_ls_barr; a run of our collector on tests/mpi/trace_delay.c whose injected
# delays are the expected problem times; and the error paths.
. tests/lib.sh
CASITA=$DATA/otf2/casita-4_mpi_ls_barr
PING=$DATA/otf2/pipit-ping-pong
RULES=templates/rules

# --- reference from otf2-print: per rank, late sender = send enter - recv enter (chain of
# blocking Send/Recv, ticks / resolution) and wait at barrier = max barrier enter - own enter
otf2-print "$CASITA/traces.otf2" > "$TMP/casita.txt"
res=$(otf2-print -G "$CASITA/traces.otf2" | sed -n 's/.*Ticks per Seconds: \([0-9]*\).*/\1/p')
awk -v res="$res" '
$1 == "ENTER" && $5 == "\"MPI_Recv\"" { recv_enter[$2] = $3 }
$1 == "ENTER" && $5 == "\"MPI_Send\"" { send_enter[$2] = $3 }
$1 == "MPI_SEND" { to = $5; sender_of[to] = $2 }
$1 == "ENTER" && $5 == "\"MPI_Barrier\"" { bar[$2] = $3; if ($3 > maxbar) maxbar = $3 }
END {
    for (r = 0; r < 4; r++) {
        ls = 0
        if (r in recv_enter) { s = send_enter[sender_of[r]]; ls = (s - recv_enter[r]) / res; if (ls < 0) ls = 0 }
        printf "%d %.9f %.9f\n", r, ls, (maxbar - bar[r]) / res
    }
}' "$TMP/casita.txt" > "$TMP/ref.txt"
check "otf2-print reference computed" test -s "$TMP/ref.txt"

check "problems --json on casita" $BIN/mpilens problems --rules $RULES --json "$CASITA" -o "$TMP/casita.json"
py() { /usr/bin/python3 -c "import json,sys; d=json.load(open('$TMP/casita.json')); p={x['id']:x for x in d['problems']}; $1"; }
for r in 0 1 2 3; do
    want_ls=$(awk -v r=$r '$1 == r { print $2 }' "$TMP/ref.txt")
    want_wb=$(awk -v r=$r '$1 == r { print $3 }' "$TMP/ref.txt")
    got_ls=$(py "print(p['late_sender']['per_rank'][$r])")
    got_wb=$(py "print(p['wait_at_barrier']['per_rank'][$r])")
    check_close "late sender rank $r vs otf2-print" "$got_ls" "$want_ls" 0.001
    check_close "wait at barrier rank $r vs otf2-print" "$got_wb" "$want_wb" 0.001
done
# the issue's figures, within 1%
check_close "late sender rank 1" "$(py "print(p['late_sender']['per_rank'][1])")" 9.02 0.01
check_close "late sender rank 2" "$(py "print(p['late_sender']['per_rank'][2])")" 10.01 0.01
check_close "late sender rank 3" "$(py "print(p['late_sender']['per_rank'][3])")" 10.99 0.01
check_eq "late sender rank 0" "$(py "print(p['late_sender']['per_rank'][0] == 0)")" "True"
check_eq "wait at barrier rank 0" "$(py "print(p['wait_at_barrier']['per_rank'][0] == 0)")" "True"
check_close "wait at barrier rank 1" "$(py "print(p['wait_at_barrier']['per_rank'][1])")" 7.84 0.01
check_close "wait at barrier rank 2" "$(py "print(p['wait_at_barrier']['per_rank'][2])")" 6.84 0.01
check_close "wait at barrier rank 3" "$(py "print(p['wait_at_barrier']['per_rank'][3])")" 6.73 0.01
# late senders grow along the chain
check_eq "late sender grows along the chain" \
    "$(py "v=p['late_sender']['per_rank']; print(v[1] < v[2] < v[3])")" "True"
check_eq "late sender call site" "$(py "print(p['late_sender']['callsites'][0]['site'])")" \
    "MPI_Recv called from late_sender"
check_eq "barrier call site" "$(py "print(p['wait_at_barrier']['callsites'][0]['site'])")" \
    "MPI_Barrier called from barrier"
# share = total / sum over ranks of (last - first event), recomputed from otf2-print
want_total=$(awk -v res="$res" '$1 ~ /^[A-Z_]+$/ && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {
    if (!($2 in lo) || $3 < lo[$2]) lo[$2] = $3; if ($3 > hi[$2]) hi[$2] = $3 }
    END { for (r in lo) s += hi[r] - lo[r]; printf "%.9f", s / res }' "$TMP/casita.txt")
check_close "total time vs otf2-print" "$(py "print(d['total_time_s'])")" "$want_total" 0.0001
# time in MPI per rank (outermost MPI regions, Enter to Leave) from otf2-print, and the bound
# of docs/methods.md §6 read from the JSON alone: per rank the problems' sum is at most it
awk -v res="$res" '
($1 == "ENTER" || $1 == "LEAVE") && $5 ~ /^"MPI_/ {
    if ($1 == "ENTER") { if (depth[$2]++ == 0) t0[$2] = $3 }
    else if (--depth[$2] == 0) mpi[$2] += $3 - t0[$2]
}
END { for (r = 0; r < 4; r++) printf "%d %.9f\n", r, mpi[r] / res }' "$TMP/casita.txt" > "$TMP/mpi.txt"
for r in 0 1 2 3; do
    check_close "MPI time of rank $r vs otf2-print" "$(py "print(d['mpi_time_per_rank'][$r])")" \
        "$(awk -v r=$r '$1 == r { print $2 }' "$TMP/mpi.txt")" 0.0001
done
# bound.py FILE: "ok" when, per rank, the problems' seconds sum to at most the MPI time (1 ns
# and 1e-12 relative slack for the order of the additions) and problems_per_rank is that sum
cat > "$TMP/bound.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
for r in range(d["nranks"]):
    s = sum(p["per_rank"][r] for p in d["problems"])
    m = d["mpi_time_per_rank"][r]
    if s > m * (1 + 1e-12) + 1e-9:
        bad.append("rank %d: problems %.9f s > MPI %.9f s" % (r, s, m))
    if abs(s - d["problems_per_rank"][r]) > 1e-9 * max(1, s):
        bad.append("rank %d: problems_per_rank %r, sum %r" % (r, d["problems_per_rank"][r], s))
print("; ".join(bad) if bad else "ok")
EOF
check_eq "casita: problems per rank within MPI time" "$(/usr/bin/python3 "$TMP/bound.py" "$TMP/casita.json")" ok
check_close "late sender share" "$(py "print(p['late_sender']['share'])")" \
    "$(py "print(p['late_sender']['total_s'] / d['total_time_s'])")" 1e-12
check_eq "all issue ids present" "$(py "print(sorted(p))")" \
    "['barrier_completion', 'early_reduce', 'early_scan', 'late_broadcast', 'late_receiver', 'late_sender', 'late_sender_wrong_order', 'nxn_completion', 'redundant_barrier', 'rma_early_exposure_end', 'rma_late_post', 'rma_lock_contention', 'rma_wait_at_fence', 'rma_window_create_wait', 'unsafe_exchange', 'wait_at_barrier', 'wait_at_nxn']"

# --- ping-pong: message counts and bytes against otf2-print
otf2-print "$PING/traces.otf2" > "$TMP/ping.txt"
check "problems --json on ping-pong" $BIN/mpilens problems --rules $RULES --json "$PING/traces.otf2" -o "$TMP/ping.json"
check_eq "ping-pong messages" "$(/usr/bin/python3 -c "import json; print(json.load(open('$TMP/ping.json'))['messages'])")" \
    "$(grep -c '^MPI_SEND' "$TMP/ping.txt")"
check_eq "ping-pong: problems per rank within MPI time" "$(/usr/bin/python3 "$TMP/bound.py" "$TMP/ping.json")" ok
check_eq "ping-pong unmatched" "$(/usr/bin/python3 -c "import json; print(json.load(open('$TMP/ping.json'))['unmatched'])")" 0
check_eq "ping-pong events" "$(/usr/bin/python3 -c "import json; print(json.load(open('$TMP/ping.json'))['events'])")" \
    "$(grep -c -E '^[A-Z_]+ +[0-9]+ +[0-9]+' "$TMP/ping.txt")"

# --- text and Russian output
out=$($BIN/mpilens problems --rules $RULES --lang ru "$CASITA")
check_match "russian text" "$out" "Поздний отправитель \[late_sender\]"
out=$($BIN/mpilens problems --rules $RULES "$CASITA")
check_match "text report" "$out" "Late sender \[late_sender\]: 30\.0[0-9]+ s"

# --- golden reports (make regen-golden rewrites them), and byte-identical reruns
for g in "problems_casita.txt:" "problems_casita_ru.json:--json --lang ru"; do
    file=${g%%:*} opts=${g#*:}
    # shellcheck disable=SC2086
    $BIN/mpilens problems --rules $RULES $opts "$CASITA" > "$TMP/$file"
    if [ -n "${REGEN_GOLDEN:-}" ]; then cp "$TMP/$file" "tests/golden/$file"; fi
    check "golden $file" cmp "$TMP/$file" "tests/golden/$file"
    # shellcheck disable=SC2086
    $BIN/mpilens problems --rules $RULES $opts "$CASITA" > "$TMP/again"
    check "rerun of $file is byte-identical" cmp "$TMP/$file" "$TMP/again"
done

# --- ground truth with our collector: tests/mpi/trace_delay.c injects known delays (2 ranks)
# and prints the seconds each rank spent in the waiting calls of each phase. In any run each
# wait must be at most that time (+1 ms) and most of it (60-75%: on a loaded machine a
# receiver also waits to be scheduled after the message arrived, which is not the partner's
# fault; window creation only the upper bound, as MPI_Win_allocate works a while after the
# last rank arrived); the nominal delays hold only when the machine wakes sleepers on time, so a run that
# misses them is repeated (up to 5 runs) and they are then checked with the issue's 10% for
# the late sender and wider bounds for the rest.
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
dly() { /usr/bin/python3 -c "import json; d=json.load(open('$TMP/delay.json')); p={x['id']:x for x in d['problems']}; print($1)"; }
nominal_ok="all(abs(p[i]['per_rank'][r] / n - 1) <= t for i, r, n, t in [('late_sender', 1, 0.2, 0.1), ('late_sender_wrong_order', 1, 0.06, 0.3), ('late_broadcast', 1, 0.08, 0.3), ('early_reduce', 0, 0.08, 0.3), ('wait_at_nxn', 1, 0.08, 0.3), ('rma_lock_contention', 1, 0.025, 0.9), ('rma_late_post', 0, 0.02, 0.9), ('rma_early_exposure_end', 1, 0.02, 0.9)])"
for attempt in 1 2 3 4 5; do
    rm -rf "$TMP/delay"
    $BIN/mpilens trace -o "$TMP/delay" -- $MPIRUN -x OMPI_MCA_mpi_yield_when_idle=1 \
        -np 2 "$BUILD/tests/mpi/trace_delay" > "$TMP/delay.out" 2> "$TMP/delay.err"
    $BIN/mpilens problems --rules $RULES --json "$TMP/delay" -o "$TMP/delay.json" 2>/dev/null || continue
    [ "$(dly "$nominal_ok")" = True ] && break
    echo "trace_delay run $attempt: a wait is off its nominal delay (loaded machine?)" >&2
done
check "problems on our trace" test -s "$TMP/delay.json"
check_eq "trace_delay: problems per rank within MPI time" "$(/usr/bin/python3 "$TMP/bound.py" "$TMP/delay.json")" ok
app() { awk -v r="$1" -v k="$2" '$1 == "rank" && $2 == r && $3 == k { print $4 }' "$TMP/delay.out"; }
# problem, charged rank, nominal seconds, nominal tolerance, tolerance against the application
bline=$(grep -n 'CALLSITE barrier phase' tests/mpi/trace_delay.c | cut -d: -f1)
while read -r id r nominal ntol atol; do
    got=$(dly "p['$id']['per_rank'][$r]")
    want=$(app "$r" "$id")
    # the program has other barriers: the nominal check takes the phase's call site (where
    # only rank 0 waits), the check against the application all of rank 0's barriers
    nom=$got
    [ "$id" = wait_at_barrier ] && nom=$(dly "sum(c['seconds'] for c in p['$id']['callsites']
        if c['role'] == 'waits' and c['site'].endswith('trace_delay.c:$bline)'))")
    check_close "$id on rank $r vs nominal $nominal s" "$nom" "$nominal" "$ntol"
    # a wait is part of the time in its calls (never more), and most of it here
    if awk -v g="$got" -v w="$want" -v t="$atol" 'BEGIN { d = w - g;
            exit !(g <= w + 0.001 && (d <= t * w || d <= 0.003)) }'; then ok
    else fail "$id on rank $r: $got s, the application measured $want s in those calls"; fi
done <<'T'
late_sender 1 0.200 0.10 0.25
late_sender_wrong_order 1 0.060 0.30 0.40
wait_at_barrier 0 0.120 0.30 0.40
late_broadcast 1 0.080 0.30 0.25
early_reduce 0 0.080 0.30 0.25
wait_at_nxn 1 0.080 0.30 0.25
rma_window_create_wait 0 0.020 0.90 1.00
rma_lock_contention 1 0.025 0.90 0.50
rma_late_post 0 0.020 0.90 0.50
rma_early_exposure_end 1 0.020 0.90 0.50
T
line=$(grep -n 'CALLSITE consume' tests/mpi/trace_delay.c | cut -d: -f1)
check_eq "late sender call site" "$(dly "p['late_sender']['callsites'][0]['site']")" \
    "MPI_Recv called from consume (trace_delay.c:$line)"
check_eq "nothing charged to the delayed ranks" \
    "$(dly "[p[k]['per_rank'][r] < 0.015 for k, r in (('late_sender', 0), ('early_reduce', 1), ('late_broadcast', 0))]")" \
    "[True, True, True]"

# --- error paths: clear message naming the file, non-zero exit, nothing written, and no memory
# error under the sanitizers (OTF2 itself leaks on a damaged archive; that is its own)
nosan() { if grep -qE 'ERROR: AddressSanitizer|runtime error' "$TMP/err"; then
    fail "sanitizer report: $1"; sed 's/^/  /' "$TMP/err" | head -20 >&2; else ok; fi; }
check_exit "missing trace" 1 $BIN/mpilens problems --rules $RULES "$TMP/nope" -o "$TMP/x.json"
nosan "missing trace"
check_match "missing trace message" "$(cat "$TMP/err")" "nope: cannot open trace"
mkdir -p "$TMP/trunc/traces"
cp "$CASITA/traces.otf2" "$CASITA/traces.def" "$TMP/trunc/"
for f in "$CASITA"/traces/*; do head -c 40 "$f" > "$TMP/trunc/traces/$(basename "$f")"; done
check_exit "truncated trace" 1 $BIN/mpilens problems --rules $RULES "$TMP/trunc" -o "$TMP/x.json"
nosan "truncated trace"
check_match "truncated trace message" "$(cat "$TMP/err")" "trunc/traces.otf2: "
head -c 100 "$CASITA/traces.def" > "$TMP/trunc/traces.def"
check_exit "truncated definitions" 1 $BIN/mpilens problems --rules $RULES "$TMP/trunc" -o "$TMP/x.json"
nosan "truncated definitions"
echo garbage > "$TMP/trunc/traces.otf2"
check_exit "corrupt anchor" 1 $BIN/mpilens problems --rules $RULES "$TMP/trunc" -o "$TMP/x.json"
nosan "corrupt anchor"
check_match "corrupt anchor message" "$(cat "$TMP/err")" "traces.otf2: "
mkdir -p "$TMP/badrules"
printf 'declare problem for nothing\n  parameters (id = "x");\n' > "$TMP/badrules/a.rules"
check_exit "bad rule file" 1 $BIN/mpilens problems --rules "$TMP/badrules" "$CASITA" -o "$TMP/x.json"
nosan "bad rule file"
check_match "bad rule position" "$(cat "$TMP/err")" "badrules/a.rules:1:21: unknown composite event type 'nothing'"
# a rule dividing by zero is reported and skipped, the others still run
cp $RULES/collective.rules "$TMP/badrules/a.rules"
cat >> "$TMP/badrules/a.rules" <<'R'
declare problem for collective_op
parameters (id = "zero", name = "z", description = "z", advice = "z",
            duration = own_enter / (own_enter - own_enter));
R
check_exit "division by zero" 0 $BIN/mpilens problems --rules "$TMP/badrules" "$CASITA" -o "$TMP/z.txt"
check_match "division by zero reported" "$(cat "$TMP/err")" "a.rules:[0-9]+:[0-9]+: division by zero.*zero"
check_match "other problems still found" "$(cat "$TMP/z.txt")" "wait_at_barrier"
check_exit "bad --lang" 2 $BIN/mpilens problems --lang fr "$CASITA"
check_exit "no trace argument" 2 $BIN/mpilens problems
check "no file left behind" test ! -e "$TMP/x.json"
check_exit "help" 0 $BIN/mpilens problems --help
finish test_problems
