#!/usr/bin/env bash
# mpilens msgsizes on a trace of tests/mpi/trace_msgsizes.c (4 ranks, known message sizes and
# counts): counts and volumes per bin equal the program's formula exactly and otf2-print's
# listing; shares sum to 1; JSON, CSV and the table agree; --bins errors, a corrupt trace and
# bad options fail cleanly without writing anything; the pie PNG/SVG are valid and
# deterministic.
. tests/lib.sh
PY=/usr/bin/python3
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
M="$BIN/mpilens msgsizes"

# otf2-print's send records of an archive: "messages bytes"
sends() { otf2-print "$1" 2>/dev/null | awk '$1 == "MPI_SEND" || $1 == "MPI_ISEND" {
    for (i = 1; i <= NF; i++) if ($i == "Length:") { n++; b += $(i + 1) } }
    END { print n + 0, b + 0 }'; }
# The archive must hold every send the program made (157 messages, 35765171 bytes, as the
# formula below says); a run where the collector lost records is reported and repeated, so
# that this test checks msgsizes, not the collector.
ok_trace=0
for attempt in 1 2 3; do
    rm -rf "$TMP/t"
    if $BIN/mpilens trace -o "$TMP/t" -- $MPIRUN -np 4 "$BUILD/tests/mpi/trace_msgsizes" \
        < /dev/null > "$TMP/app.out" 2> "$TMP/app.err"; then
        got=$(sends "$TMP/t/traces.otf2")
        [ "$got" = "157 35765171" ] && { ok_trace=1; break; }
        echo "trace_msgsizes run $attempt: the archive holds $got of 157 35765171 sends (collector lost records)" >&2
    else
        echo "trace_msgsizes run $attempt failed" >&2; tail -5 "$TMP/app.err" >&2
    fi
done
check_eq "traced the test program" "$ok_trace" 1

# the reference: the program's formula, copied here (tests/mpi/trace_msgsizes.c count())
cat > "$TMP/want.py" <<'EOF'
SIZES = [0, 1, 57, 64, 1023, 1024, 4095, 4096, 65535, 65536, 300001, 1048576, 1048583]
def count(r, i):
    return 2 + i % 3 if i % 4 == 3 else 1 + (7 * i + 3 * r) % 5
def messages(P=4):
    return [(SIZES[i], count(r, i)) for r in range(P) for i in range(len(SIZES))]
def bins(edges):
    out = []
    for k, lo in enumerate(edges):
        hi = edges[k + 1] - 1 if k + 1 < len(edges) else None
        inb = [(s, c) for s, c in messages() if s >= lo and (hi is None or s <= hi)]
        out.append((lo, hi, sum(c for _, c in inb), sum(s * c for s, c in inb)))
    return out
EOF

check "default run" $M "$TMP/t" --json -o "$TMP/d.json" --csv "$TMP/d.csv" --plot "$TMP/d.png"
cat > "$TMP/cmp.py" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import want
d = json.load(open(sys.argv[2]))
edges = [int(x) for x in sys.argv[3].split(",")]
exp = want.bins(edges)
msgs = want.messages()
tm, tb = sum(c for _, c in msgs), sum(s * c for s, c in msgs)
bad = []
if (d["total_messages"], d["total_bytes"]) != (tm, tb):
    bad.append("totals %s %s want %s %s" % (d["total_messages"], d["total_bytes"], tm, tb))
got = [(b["lo"], b["hi"], b["count"], b["bytes"]) for b in d["bins"]]
if got != exp:
    bad.append("bins %s want %s" % (got, exp))
for key in ("share_messages", "share_volume", "share_call_time"):
    s = sum(b[key] for b in d["bins"])
    if abs(s - 1) > 1e-12:
        bad.append("%s sums to %r" % (key, s))
for b in d["bins"]:
    if abs(b["share_messages"] - b["count"] / tm) > 1e-15 or abs(b["share_volume"] - b["bytes"] / tb) > 1e-15:
        bad.append("shares of bin %s" % b["lo"])
if sorted((x["bytes"], x["count"]) for x in d["sizes"]) != sorted(
        (s, sum(c for t, c in msgs if t == s)) for s in set(s for s, _ in msgs)):
    bad.append("size list")
# 3 collectives per rank (Bcast, Allreduce, Barrier) and one put per rank are not messages
if (d["collective_calls"], d["rma_transfers"], d["rma_bytes"]) != (12, 4, 16):
    bad.append("aside: %s %s %s" % (d["collective_calls"], d["rma_transfers"], d["rma_bytes"]))
if d["time_model"] is not None or any(b["share_time"] is not None for b in d["bins"]):
    bad.append("time columns without --p2p")
print("; ".join(bad) if bad else "ok")
EOF
check_eq "default bins equal the program's counts" \
    "$($PY "$TMP/cmp.py" "$TMP" "$TMP/d.json" 0,1,64,1024,4096,65536,1048576 2>&1)" ok
check "user bins" $M "$TMP/t" --json --bins 57,1k,4095,64K,1048577 -o "$TMP/u.json"
check_eq "user bins (0 added) equal the program's counts" \
    "$($PY "$TMP/cmp.py" "$TMP" "$TMP/u.json" 0,57,1024,4095,65536,1048577 2>&1)" ok

# independent of the formula: otf2-print's send records (MPI_SEND, MPI_ISEND) of the trace
totals() { $PY -c "import json, sys; d = json.load(sys.stdin); print(d['total_messages'], d['total_bytes'])"; }
check_eq "totals equal otf2-print's sends" "$(totals < "$TMP/d.json")" "$(sends "$TMP/t/traces.otf2")"
# and on a Score-P trace
PP=$DATA/otf2/pipit-ping-pong
check_eq "Score-P trace: totals equal otf2-print's sends" "$($M "$PP" --json | totals)" "$(sends "$PP/traces.otf2")"

# CSV and the text table say the same as JSON
check_eq "csv rows equal json bins" "$($PY - "$TMP/d.csv" "$TMP/d.json" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
ok = len(rows) == len(d["bins"]) and all(
    int(r["count"]) == b["count"] and int(r["bytes"]) == b["bytes"] and int(r["lo"]) == b["lo"]
    and (r["hi"] == "" if b["hi"] is None else int(r["hi"]) == b["hi"])
    and float(r["share_volume"]) == b["share_volume"] and r["time_s"] == ""
    for r, b in zip(rows, d["bins"]))
print("ok" if ok else "differ")
EOF
)" ok
$M "$TMP/t" > "$TMP/d.txt" 2> "$TMP/err"
check_eq "table exit status" "$?" 0
check_eq "table rows" "$(awk '/^(0 B|>= 1048576 B|total) /' "$TMP/d.txt" | wc -l)" 3
check_eq "table total line" "$(awk '$1 == "total" { print $2, $4 }' "$TMP/d.txt")" \
    "$($PY -c "import json; d=json.load(open('$TMP/d.json')); print(d['total_messages'], d['total_bytes'])")"
check_eq "table columns aligned" "$(awk 'f { print length($0) } /^$/ { f = 1 }' "$TMP/d.txt" | sort -u | wc -l)" 1
check_match "table says what the time column is" "$(cat "$TMP/d.txt")" "no --p2p file"

# pie: valid PNG and SVG, byte-identical on a second run
check "png is a PNG" $PY -c "import sys; sys.path.insert(0, 'tests'); import pngcheck; w, h, r = pngcheck.pixels('$TMP/d.png'); assert w == 960 and h > 300"
check "svg run" $M "$TMP/t" --bins pow2 --plot "$TMP/a.svg" -o "$TMP/ms.json"
check "svg run again" $M "$TMP/t" --bins pow2 --plot "$TMP/b.svg" -o "$TMP/ms.json"
check "svg parses" $PY -c "import xml.dom.minidom as m; m.parse('$TMP/a.svg')"
check "svg deterministic" cmp -s "$TMP/a.svg" "$TMP/b.svg"
check "png again" $M "$TMP/t" --plot "$TMP/d2.png" -o "$TMP/ms.json"
check "png deterministic" cmp -s "$TMP/d.png" "$TMP/d2.png"

# --p2p: a sweep whose median latency is exactly L(s) = 1.5 us + s / 2.5 GB/s at its sizes,
# so the interpolated send time is exact at every size; share of time per bin recomputed here
$PY - "$TMP/lin_p2p.csv" <<'EOF'
import sys
cols = ["size_bytes", "latency_s", "latency_min_s", "latency_median_s", "latency_max_s",
        "bandwidth_Bps", "bandwidth_min_Bps", "bandwidth_median_Bps", "bandwidth_max_Bps",
        "msg_rate_per_s", "msg_rate_min_per_s", "msg_rate_median_per_s", "msg_rate_max_per_s"]
with open(sys.argv[1], "w") as f:
    f.write(",".join(cols) + "\n")
    for s in [0] + [1 << k for k in range(23)]:
        L = 1.5e-6 + s / 2.5e9
        f.write(",".join(str(x) for x in [s, L * 1.1, L * 0.9, repr(L), L * 2, 1e9, 1e9, 1e9, 1e9, 1e5, 1e5, 1e5, 1e5]) + "\n")
EOF
check "p2p run" $M "$TMP/t" --p2p "$TMP/lin" --time-model latency --json -o "$TMP/p.json" --plot "$TMP/p.png"
check_eq "share of send time from the p2p model" "$($PY - "$TMP" "$TMP/p.json" <<'EOF'
import json, sys
sys.path.insert(0, sys.argv[1])
import want
d = json.load(open(sys.argv[2]))
L = lambda s: 1.5e-6 + s / 2.5e9
msgs = want.messages()
total = sum(c * L(s) for s, c in msgs)
bad = []
if abs(d["total_time_s"] / total - 1) > 1e-9:
    bad.append("total %r want %r" % (d["total_time_s"], total))
for b in d["bins"]:
    t = sum(c * L(s) for s, c in msgs if s >= b["lo"] and (b["hi"] is None or s <= b["hi"]))
    if abs(b["time_s"] - t) > 1e-9 * total or abs(b["share_time"] - t / total) > 1e-9:
        bad.append("bin %s: %r want %r" % (b["lo"], b["time_s"], t))
if abs(sum(b["share_time"] for b in d["bins"]) - 1) > 1e-12:
    bad.append("time shares do not sum to 1")
if "lin_p2p.csv (" not in d["time_model"]:
    bad.append("model '%s'" % d["time_model"])
print("; ".join(bad) if bad else "ok")
EOF
)" ok
check_match "table has the time column" "$($M "$TMP/t" --p2p "$TMP/lin_p2p.csv" | grep '^size')" '% time +% call$'
check_exit "missing p2p file" 1 $M "$TMP/t" --p2p "$TMP/nope" --csv "$TMP/bad.csv"
check_match "missing p2p named" "$(cat "$TMP/err")" "nope"
check_exit "unknown p2p pair" 1 $M "$TMP/t" --p2p "$TMP/lin" --pair 7 --csv "$TMP/bad.csv"
check_exit "a cube file is not a p2p file" 1 $M "$TMP/t" --p2p "$TMP/d.csv" --plot "$TMP/bad.png"
check_match "not a p2p file" "$(cat "$TMP/err")" "size_bytes"

# usage errors: exit 2, a message, nothing written
for bad in "" "64,32" "0,0" "abc" "12x" "64,,128" "99999999999999999999"; do
    check_exit "--bins '$bad' is a usage error" 2 $M "$TMP/t" --bins "$bad" --csv "$TMP/bad.csv" --plot "$TMP/bad.png"
    check_match "--bins '$bad' message" "$(cat "$TMP/err")" "^mpilens msgsizes: --bins: "
done
check_exit "plot extension" 2 $M "$TMP/t" --plot "$TMP/bad.jpg"
check_exit "--pair without --p2p" 2 $M "$TMP/t" --pair 0
check_exit "no trace" 2 $M
check_exit "two traces" 2 $M "$TMP/t" "$TMP/t"
check_exit "unknown option" 2 $M --frobnicate "$TMP/t"
check_eq "nothing written on usage errors" "$(ls "$TMP"/bad.* 2>/dev/null | wc -l)" 0
check "help has an example" sh -c "$M --help | grep -q 'mpilens msgsizes run'"

# corrupt and missing traces: exit 1, the file named, nothing written
mkdir -p "$TMP/corrupt" && cp -r "$TMP/t/." "$TMP/corrupt/"
head -c 40 "$TMP/t/traces.otf2" > "$TMP/corrupt/traces.otf2"
check_exit "truncated anchor" 1 $M "$TMP/corrupt" --csv "$TMP/bad.csv" --plot "$TMP/bad.png" -o "$TMP/bad.txt"
check_match "truncated anchor named" "$(cat "$TMP/err")" "corrupt"
mkdir -p "$TMP/garbage" && cp -r "$TMP/t/." "$TMP/garbage/"
for f in "$TMP"/garbage/traces/*.evt; do head -c 100 /dev/urandom > "$f"; done
check_exit "garbage events" 1 $M "$TMP/garbage" --csv "$TMP/bad.csv"
check_match "garbage events message" "$(cat "$TMP/err")" "^mpilens: .*garbage"
check_exit "missing trace" 1 $M "$TMP/nothing" --json
check_match "missing trace named" "$(cat "$TMP/err")" "nothing"
check_eq "nothing written on failures" "$(ls "$TMP"/bad.* 2>/dev/null | wc -l)" 0
finish test_msgsizes
