#!/usr/bin/env bash
# mpilens msgsizes on a profile file (LuNA profiler's `count : size` lines) with a hand-made
# p2p sweep: the send time is count / message rate per size, summed here by hand (the LuNA
# thesis's definition), and with --time-model latency count x latency; the outputs say which;
# option errors and a sweep without a rate fail cleanly.
. tests/lib.sh
PY=/usr/bin/python3
M="$BIN/mpilens msgsizes"

# sweep: 4 sizes, median rates 2e6, 1e6, 2.5e5, 1e4 messages/s; latencies 1, 2, 5, 50 us
cat > "$TMP/hand_p2p.csv" <<'CSV'
size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s
0,1e-6,1e-6,1e-6,1e-6,0,0,0,0,2e6,2e6,2e6,2e6
16,2e-6,2e-6,2e-6,2e-6,1.6e7,1.6e7,1.6e7,1.6e7,1e6,1e6,1e6,1e6
1024,5e-6,5e-6,5e-6,5e-6,2.56e8,2.56e8,2.56e8,2.56e8,2.5e5,2.5e5,2.5e5,2.5e5
65536,5e-5,5e-5,5e-5,5e-5,6.5536e8,6.5536e8,6.5536e8,6.5536e8,1e4,1e4,1e4,1e4
CSV
# profile at the sweep's sizes only: send time = 10/2e6 + 300/1e6 + 40/2.5e5 + 7/1e4
printf '# hand profile\n10 : 0\n300 : 16\n40 : 1024\n7 : 65536\n' > "$TMP/p.txt"
check "rate run" $M "$TMP/p.txt" --p2p "$TMP/hand_p2p.csv" --bins 0,1k --json -o "$TMP/r.json"
check_eq "send time = sum of count / rate" "$($PY - "$TMP/r.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = 10 / 2e6 + 300 / 1e6 + 40 / 2.5e5 + 7 / 1e4
b0 = 10 / 2e6 + 300 / 1e6
bad = []
if abs(d["total_time_s"] / want - 1) > 1e-12: bad.append("total %r want %r" % (d["total_time_s"], want))
if abs(d["bins"][0]["time_s"] / b0 - 1) > 1e-12: bad.append("bin 0 %r want %r" % (d["bins"][0]["time_s"], b0))
if abs(d["bins"][1]["share_time"] - (want - b0) / want) > 1e-12: bad.append("bin 1 share")
if d["time_source"] != "message_rate": bad.append("time_source %r" % d["time_source"])
if "message rate" not in d["time_model"]: bad.append("time_model %r" % d["time_model"])
if d["source_kind"] != "profile" or d["total_call_s"] is not None: bad.append("profile keys")
print("; ".join(bad) if bad else "ok")
PYEOF
)" ok
check_match "table names the rate model" "$($M "$TMP/p.txt" --p2p "$TMP/hand_p2p.csv" | sed -n 4p)" \
    "^% time: send time count / message rate from .*hand_p2p.csv"
check_match "table has % time, no call time" "$($M "$TMP/p.txt" --p2p "$TMP/hand_p2p.csv" | grep '^total')" \
    "100.0% +-$"

# between and beyond the sweep: 1/M interpolated linearly in bytes; above the last size in
# proportion to the size (bandwidth-bound); below... the first size is 0, so none
printf '4 : 520\n2 : 131072\n' > "$TMP/q.txt"
check "interpolated run" $M "$TMP/q.txt" --p2p "$TMP/hand_p2p.csv" --json -o "$TMP/q.json"
check_eq "interpolated 1/rate" "$($PY - "$TMP/q.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
t520 = 1 / 1e6 + (520 - 16) / (1024 - 16) * (1 / 2.5e5 - 1 / 1e6)
want = 4 * t520 + 2 * (1 / 1e4) * 2
print("ok" if abs(d["total_time_s"] / want - 1) < 1e-12 else "%r want %r" % (d["total_time_s"], want))
PYEOF
)" ok

# the latency model stays as an option: count x median latency at the sweep's sizes
check "latency run" $M "$TMP/p.txt" --p2p "$TMP/hand_p2p.csv" --time-model latency --json -o "$TMP/l.json"
check_eq "send time = sum of count x latency" "$($PY - "$TMP/l.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = 10 * 1e-6 + 300 * 2e-6 + 40 * 5e-6 + 7 * 5e-5
ok = abs(d["total_time_s"] / want - 1) < 1e-12 and d["time_source"] == "latency" and "latency" in d["time_model"]
print("ok" if ok else "%r want %r, %r" % (d["total_time_s"], want, d["time_model"]))
PYEOF
)" ok
check "explicit rate" $M "$TMP/p.txt" --p2p "$TMP/hand_p2p.csv" --time-model rate --json -o "$TMP/r2.json"
check "rate is the default" cmp -s "$TMP/r.json" <($M "$TMP/p.txt" --p2p "$TMP/hand_p2p.csv" --bins 0,1k --json)

# errors: usage (exit 2), a size whose rate is missing (exit 1, names pair and size)
check_exit "--time-model without --p2p" 2 $M "$TMP/p.txt" --time-model rate
check_exit "unknown --time-model" 2 $M "$TMP/p.txt" --p2p "$TMP/hand_p2p.csv" --time-model fast
sed 's/^1024,\(.*\),2.5e5,2.5e5,2.5e5,2.5e5$/1024,\1,0,0,0,0/' "$TMP/hand_p2p.csv" > "$TMP/norate_p2p.csv"
check_exit "no rate at 1024 B" 1 $M "$TMP/p.txt" --p2p "$TMP/norate_p2p.csv" -o "$TMP/bad.txt"
check_match "no rate named" "$(cat "$TMP/err")" "no message rate at 1024 bytes"
check "latency still works without rates" $M "$TMP/p.txt" --p2p "$TMP/norate_p2p.csv" --time-model latency
check_exit "missing input is a trace error" 1 $M "$TMP/none.txt"
printf '1 : 8\n2 : eight\n' > "$TMP/bad_in.txt"
check_exit "bad profile line" 1 $M "$TMP/bad_in.txt" --csv "$TMP/bad.csv"
check_match "bad line named" "$(cat "$TMP/err")" "bad_in.txt:2: "
check_eq "nothing written on failures" "$(ls "$TMP"/bad.* 2>/dev/null | wc -l)" 0
check "sample profile" $M samples/profiles/luna_sizes.txt
finish test_msgsize_rate
