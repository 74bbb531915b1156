#!/usr/bin/env bash
# scripts/demo.sh (make demo) end to end, with mpirun and mpilens-bench replaced by stand-ins
# so the test needs no MPI and takes seconds: the stand-in bench writes a small synthetic cube
# (mpilens synth) for the all-pairs step and a synthetic sweep, different on each call, for
# each p2p step. Checked: the demo runs the second p2p sweep and says what it is, overlays the
# two in compare_p2p.pdf (both sweeps named, both curves' figure), writes stages.pdf with the
# two logs side by side (the wait row's change recomputed here from the sample logs), and its
# closing summary lists every PDF it wrote with the page count pdfinfo gives.
. tests/lib.sh
PY=${PYTHON:-/usr/bin/python3}
REAL=$(cd "$BIN" && pwd)/mpilens
OUT=$TMP/out
mkdir -p "$TMP/fake/bin" "$TMP/path"
ln -s "$REAL" "$TMP/fake/bin/mpilens"

# mpirun: drop the launcher's options, run the program once (one "rank" writes everything)
cat >"$TMP/path/mpirun" <<'EOF'
#!/usr/bin/env bash
while [ $# -gt 0 ]; do
    case $1 in -np | -n) shift 2 ;; -*) shift ;; *) break ;; esac
done
exec "$@"
EOF
# mpilens-bench: -t one_to_one -> a 4-process cube; -t p2p -> a sweep of one pair (the CSV
# layout of bench/net/p2p_out.c) whose latency at 1024 B grows by half on every later call,
# so the two runs differ where the overlay can show it
cat >"$TMP/fake/bin/mpilens-bench" <<EOF
#!/usr/bin/env bash
t=one_to_one f=network
while [ \$# -gt 0 ]; do
    case \$1 in -t) t=\$2; shift 2 ;; -f) f=\$2; shift 2 ;; *) shift ;; esac
done
mkdir -p "\$(dirname "\$f")"
if [ "\$t" = one_to_one ]; then
    exec "$REAL" synth -o "\$f" --procs 4 --nodes 2 --sockets 1 --seed 5 --force >/dev/null 2>&1
fi
n=\$(cat "$TMP/calls" 2>/dev/null || echo 0); echo \$((n + 1)) >"$TMP/calls"
"$PY" - "\${f}_p2p.csv" "\$n" <<'PYEOF'
import random, sys
out, k = sys.argv[1], int(sys.argv[2])
random.seed(k)
rows = ["size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s,bw_time_s,window,round_trips_per_iter,lat_iters,bw_iters,pair,kind,rank_a,rank_b,host_a,host_b"]
for size in [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]:
    t = (1.5e-6 + size / 10e9) * (1 + 0.01 * random.gauss(0, 1)) * (1 + 0.5 * k if size == 1024 else 1)
    bw = size / t if size else 0
    rows.append(f"{size},{t:.9g},{t*0.9:.9g},{t*0.99:.9g},{t*1.2:.9g},{bw:.9g},{bw*0.9:.9g},{bw:.9g},{bw*1.1:.9g},{1/t:.9g},{0.9/t:.9g},{1/t:.9g},{1.1/t:.9g},{t*64:.9g},64,10,200,20,0,intra,0,1,vm,vm")
open(out, "w").write("\n".join(rows) + "\n")
PYEOF
EOF
chmod +x "$TMP/path/mpirun" "$TMP/fake/bin/mpilens-bench"

PATH="$TMP/path:$PATH" MPILENS_DEMO_OUT=$OUT SOURCE_DATE_EPOCH=1795219200 \
    bash scripts/demo.sh "$TMP/fake" >"$TMP/demo.out" 2>"$TMP/demo.err"
check_eq "demo: exit 0" "$?" 0
log=$(cat "$TMP/demo.err")
check_eq "demo: two p2p sweeps measured" "$(cat "$TMP/calls" 2>/dev/null)" 2
check_match "demo: the second sweep is said to be the same sweep again" "$log" \
    "measuring the same point-to-point sweep again"

# ---- the overlay of the two runs
P=$OUT/compare_p2p.pdf
check "compare_p2p.pdf written" test -s "$P"
p1=$(pdftotext -f 1 -l 1 -layout "$P" - 2>/dev/null)
check_match "compare_p2p: BASE is the first sweep" "$p1" "BASE +live/pair$"
check_match "compare_p2p: NEW is the second" "$p1" "NEW +live/pair_again$"
check_match "compare_p2p: the title says what was compared" "$(pdftotext "$P" - 2>/dev/null | tr -s ' \n' '  ')" \
    "the p2p sweep measured twice"
check_match "compare_p2p: both curves on one figure" "$(pdftotext "$P" - 2>/dev/null | tr '\n' ' ')" \
    "Figure 1: two p2p sweeps"
check_eq "compare_p2p: one image" "$(pdfimages -list "$P" | tail -n +3 | wc -l)" 1
# the 1024 B point is 1.5x slower in the second run: the verdict the demo prints is compare's
check_match "compare_p2p: the demo prints the verdict" "$log" \
    "second run against the first: (same|regressed|improved|mixed) \(.*\) -> $OUT/compare_p2p.pdf"
check_eq "compare_p2p: the demo's verdict is compare's" \
    "$(grep -o 'second run against the first: [a-z]*' "$TMP/demo.err" | awk '{ print $NF }')" \
    "$(head -n 1 "$OUT/compare-p2p.txt" | sed -E 's/.*: (same|regressed|improved|mixed) \(.*/\1/')"

# ---- the two stage logs side by side
S=$OUT/stages.pdf
check "stages.pdf written" test -s "$S"
check_match "stages.pdf: the comparison page" "$(pdftotext -f 3 -l 3 "$S" - 2>/dev/null)" "^Two logs side by side"
# the wait stage's mean by hand from the two sample logs (per-node clocks: a stay is timed
# when both its records name one node), and its change
want=$("$PY" - samples/stages/luna_sim.jsonl samples/stages/luna_sim_v2.jsonl <<'EOF'
import collections, json, sys
def wait_mean(path):
    recs = collections.defaultdict(list)
    for line in open(path):
        r = json.loads(line); recs[r["task"]].append((r["t"], r["stage"], r["node"]))
    per = collections.defaultdict(float)
    for task, rs in recs.items():
        rs.sort(key=lambda x: x[0])
        for (a, s, n), (b, _, m) in zip(rs, rs[1:]):
            if s == "wait" and n == m: per[task] += b - a
    v = [x for x in per.values() if x > 0]
    return sum(v) / len(v)
b, n = wait_mean(sys.argv[1]), wait_mean(sys.argv[2])
print("%.4g %.4g %+.1f %%" % (b, n, 100 * (n - b) / b))
EOF
)
check_match "stages.pdf: the wait row, change by hand" \
    "$(pdftotext -layout -f 3 -l 3 "$S" - 2>/dev/null | sed -E 's/ +/ /g' | grep '^ *wait ')" " $want "
check "stages: the PNG is still written" test -s "$OUT/stages/stage_compare.png"

# ---- the summary: every PDF written, with its pages
summary=$(sed -n '/PDFs written:/,$p' "$TMP/demo.err" | grep -E '^mpilens demo:   ')
for f in accept compare compare_p2p report profiles stages; do
    pages=$(pdfinfo "$OUT/$f.pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }')
    check_match "summary lists $f.pdf with its $pages pages" "$summary" "  $OUT/$f.pdf \($pages pages\)"
done
# no sample applications or trace collector in the stand-in build: those PDFs are not claimed
check_eq "summary: six PDFs, none claimed that was not written" "$(printf '%s\n' "$summary" | wc -l)" 6
check_match "demo: the total time" "$(tail -n 1 "$TMP/demo.err")" "^mpilens demo: total [0-9.]+ s$"
finish test_demo
