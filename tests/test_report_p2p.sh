#!/usr/bin/env bash
# mpilens report with point-to-point sweeps (mpilens-bench -t p2p output): detection of a
# PREFIX, a _p2p.csv file and a PREFIX holding both a cube and a sweep; the tables against the
# CSV (every number, every pair); p2p alone; byte-identical PDFs; page count; bad sweeps.
. tests/lib.sh
PY=/usr/bin/python3
S32=samples/cubes/synth32/network
export SOURCE_DATE_EPOCH=1715860800
text() { pdftotext -layout "$1" - | tr -d '\f'; }
pages() { pdfinfo "$1" 2>/dev/null | sed -n 's/^Pages: *//p'; }

# A sweep of two pairs (one inside a node, one across nodes) in the CSV layout of
# bench/net/p2p_out.c, with irregular values: a latency model plus seeded noise.
mkdir -p "$TMP/sw"
$PY - "$TMP/sw/pair_p2p.csv" <<'EOF'
import sys, random
random.seed(4242)
cols = ("size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,"
        "bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,"
        "msg_rate_max_per_s,bw_time_s,window,round_trips_per_iter,lat_iters,bw_iters,pair,kind,rank_a,rank_b,"
        "host_a,host_b")
out = [cols]
for p, (kind, a, b, ha, hb, lat, bw) in enumerate([("intra", 0, 1, "nodeA", "nodeA", 2.3e-7, 9.7e9),
                                                   ("inter", 0, 5, "nodeA", "nodeB", 1.71e-6, 1.13e9)]):
    sizes = [0] + [2 ** i for i in range(0, 23, 2)]
    for s in sizes:
        med = (lat + s / bw) * random.uniform(0.97, 1.05)
        mn = med * random.uniform(0.8, 0.95)
        mean = med * random.uniform(1.0, 1.3)
        mx = mean * random.uniform(1.5, 9)
        t = 64 * med * random.uniform(0.4, 0.7)
        bwm = 64 * s / t if s else 0.0
        rate = 64 / t
        out.append(",".join(str(v) for v in [s, "%.8g" % mean, "%.8g" % mn, "%.8g" % med, "%.8g" % mx,
            "%.9g" % (bwm * 0.93), "%.9g" % (bwm * 0.5), "%.9g" % bwm, "%.9g" % (bwm * 1.1),
            "%.9g" % (rate * 0.93), "%.9g" % (rate * 0.5), "%.9g" % rate, "%.9g" % (rate * 1.1),
            "%.7g" % t, 64, 10, 1000, 100, p, kind, a, b, ha, hb]))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOF
# the reference rows, formatted as the report formats them: pair size lat_med lat_min bw rate
$PY - "$TMP/sw/pair_p2p.csv" >"$TMP/ref" <<'EOF'
import csv, sys
sys.path.insert(0, "tests")
from units import num
for r in csv.DictReader(open(sys.argv[1])):
    s = int(r["size_bytes"])
    bw = num(float(r["bandwidth_median_Bps"]) / 1e6) if s else "-"
    print(int(r["pair"]) + 1, s, num(float(r["latency_median_s"]) * 1e6),
          num(float(r["latency_min_s"]) * 1e6), bw, num(float(r["msg_rate_median_per_s"]) / 1e6))
EOF
check_eq "reference rows" "$(wc -l <"$TMP/ref")" 26

# ---- a cube and a sweep given by its PREFIX ----
check "report cube + sweep" "$BIN/mpilens" report "$S32" "$TMP/sw/pair" -o "$TMP/both.pdf" --figures "$TMP/fig"
t=$(text "$TMP/both.pdf")
check_match "sweep on the title page" "$t" "kind +point-to-point sweep"
check_match "pairs listed" "$t" "1: intra nodeA, ranks 0-1; 2: inter nodeA-nodeB, ranks 0-5|1: .*nodeA.*; 2: .*nodeB"
check_match "sizes" "$t" "13, from 0 to 4194304 bytes"
check_match "window" "$t" "window +64 messages"
check_match "pair 1 heading" "$t" "^Pair 1: "
check_match "pair 2 heading" "$t" "^Pair 2: "
# every row of the CSV, in the section of its pair
p2p=$(printf '%s\n' "$t" | sed -n '/^Tables$/,$p')
while read -r pair size med mn bw rate; do
    sect=$(printf '%s\n' "$p2p" | sed -n "/^Pair $pair: /,/^Pair $((pair + 1)): /p")
    check_match "pair $pair size $size" "$sect" "^ *$size +$med +$mn +$bw +$rate$"
done <"$TMP/ref"
check_eq "one table row per size and pair" \
    "$(printf '%s\n' "$p2p" | grep -cE '^ *[0-9]+ +[0-9.]+ +[0-9.]+ +(-|[0-9.]+) +[0-9]+\.[0-9]+$')" 26
# 14 since issue 14: page one (the answer) before the parameters, the references at the end
check_eq "pages" "$(pages "$TMP/both.pdf")" 14
# page one (issue 14): the first pair's latency at its smallest size and its peak bandwidth,
# computed from the CSV here
read -r lat0 peak peak_at < <($PY - "$TMP/sw/pair_p2p.csv" <<'EOF2'
import csv, sys
sys.path.insert(0, "tests")
from units import num, si
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["pair"] == "0"]
best = max(rows, key=lambda r: float(r["bandwidth_median_Bps"]))
print(num(float(rows[0]["latency_median_s"]) * 1e6), si(float(best["bandwidth_median_Bps"]), "B/s").replace(" ", "_"),
      best["size_bytes"])
EOF2
)
p1=$(pdftotext -layout -f 1 -l 1 "$TMP/both.pdf" - | tr -d '\f')
check_match "page one: p2p latency" "$p1" "p2p one-way latency at 0 B .* $lat0"
check_match "page one: p2p peak bandwidth" "$p1" "p2p peak bandwidth \(at $peak_at B\) +${peak/_/ }$"
for m in latency bandwidth msg_rate; do
    check "figure input2_p2p_$m.png" test -s "$TMP/fig/input2_p2p_$m.png"
    check "figure input2_p2p_$m.svg" test -s "$TMP/fig/input2_p2p_$m.svg"
done
check "p2p figures are 900 x 560 PNGs" $PY -c '
import sys, struct
for m in ("latency", "bandwidth", "msg_rate"):
    b = open(sys.argv[1] + "/input2_p2p_%s.png" % m, "rb").read(24)
    assert b[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", b[16:24]) == (900, 560), m
' "$TMP/fig"
check_match "latency caption" "$t" "Figure [0-9]+: one-way latency L = T / 2c from a ping-pong of 10"
check_match "bandwidth caption" "$t" "Figure [0-9]+: bandwidth B = k s / T for windows of k = 64"

# deterministic
check "second run" "$BIN/mpilens" report "$S32" "$TMP/sw/pair" -o "$TMP/both2.pdf"
check "byte-identical" cmp -s "$TMP/both.pdf" "$TMP/both2.pdf"

# ---- the sweep alone, as the CSV file itself ----
check "report sweep file alone" "$BIN/mpilens" report "$TMP/sw/pair_p2p.csv" -o "$TMP/alone.pdf"
t=$(text "$TMP/alone.pdf")
check_match "alone: p2p section" "$t" "^Tables$"
check_eq "alone: no cube sections" "$(printf '%s\n' "$t" | grep -cE '^(Summary|Structure of the machine|Anomalies)$')" 0
check_match "alone: the file named" "$t" "pair_p2p.csv \(CSV\)"
check_eq "alone: three figures" "$(pdfimages -list "$TMP/alone.pdf" 2>/dev/null | awk 'NR > 2' | wc -l)" 3
check_eq "alone: figures numbered from 1" "$(printf '%s\n' "$t" | grep -oE '^Figure [0-9]+' | tr '\n' ' ')" \
    "Figure 1 Figure 2 Figure 3 "

# ---- one PREFIX holding a cube and a sweep gives both ----
mkdir -p "$TMP/two"
for s in average median deviation min; do cp "${S32}_$s.nc" "$TMP/two/run_$s.nc"; done
cp "${S32}_hosts.txt" "$TMP/two/run_hosts.txt"
cp "$TMP/sw/pair_p2p.csv" "$TMP/two/run_p2p.csv"
check "report prefix with both" "$BIN/mpilens" report "$TMP/two/run" -o "$TMP/two.pdf"
t=$(text "$TMP/two.pdf")
check_match "both: cube part" "$t" "^Structure of the machine$"
check_match "both: sweep part" "$t" "^Pair 2: "

# ---- errors: a broken sweep is named, nothing is written ----
head -n 3 "$TMP/sw/pair_p2p.csv" | sed '3s/,[^,]*$//' >"$TMP/bad_p2p.csv"
check_exit "truncated sweep" 1 "$BIN/mpilens" report "$S32" "$TMP/bad_p2p.csv" -o "$TMP/bad.pdf"
check_match "truncated sweep named" "$(cat "$TMP/err")" "bad_p2p.csv"
check "no pdf after a bad sweep" test ! -e "$TMP/bad.pdf"
printf 'size_bytes,latency_s\n' >"$TMP/empty_p2p.csv"
check_exit "sweep without rows" 1 "$BIN/mpilens" report "$TMP/empty_p2p.csv" -o "$TMP/bad.pdf"
check_match "sweep without rows named" "$(cat "$TMP/err")" "empty_p2p.csv"
check "no pdf after an empty sweep" test ! -e "$TMP/bad.pdf"

finish test_report_p2p
