# mpilens anomalies on synthetic cubes with known faults: the sample synth32 (slow node03 =
# ranks 16-23, bad link 3->17), cubes made by `mpilens synth`, a clean cube; JSON keys; errors.
. tests/lib.sh
PY=/usr/bin/python3
S=samples/cubes/synth32/network

check "anomalies on the sample" "$BIN/mpilens" anomalies "$S"
out=$("$BIN/mpilens" anomalies "$S" 2>&1)
check_match "sample: two findings" "$out" "^2 anomalies"
check_match "sample: the slow node" "$out" "slow_node +[0-9.]+ +1\.[56][0-9]x +node03 \(ranks 16-23\)"
check_match "sample: the bad link" "$out" "bad_link +[0-9.]+ +[23]\.[0-9]+x +link 3->17"
check_match "sample: evidence with robust z" "$out" "node03 \(ranks 16-23\): links 1\.[56][0-9]x slower .*robust z = [0-9.]+"

"$BIN/mpilens" anomalies --json "$S" >"$TMP/a.json" 2>"$TMP/err"
check_eq "json: exit 0" "$?" "0"
got=$($PY - "$TMP/a.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
out = []
for a in d["anomalies"]:
    assert set(["kind", "ranks", "lengths", "score", "evidence"]) <= set(a), a.keys()
    assert a["score"] >= 10 and a["evidence"], a
    assert a["lengths"] == [0, 512, 1024, 1536, 2048, 2560, 3072, 3584, 4096], a["lengths"]
    out.append("%s:%s" % (a["kind"], ",".join(map(str, a["ranks"]))))
print(" ".join(sorted(out)))
PYEOF
)
check_eq "json: kinds and ranks" "$got" "bad_link:3,17 slow_node:16,17,18,19,20,21,22,23"
"$BIN/mpilens" anomalies --json "$S" >"$TMP/b.json" 2>/dev/null
check "json: byte-identical on a second run" cmp "$TMP/a.json" "$TMP/b.json"

# cubes written by synth: one fault each, and a clean one with no findings at all
"$BIN/mpilens" synth -o "$TMP/slow/n" --procs 48 --nodes 6 --slow-node 4 --seed 99 2>/dev/null
got=$("$BIN/mpilens" anomalies --json "$TMP/slow/n" | $PY -c 'import json,sys; print(" ".join("%s:%s" % (a["kind"], a["ranks"][0]) for a in json.load(sys.stdin)["anomalies"]))')
check_eq "synth --slow-node 4: node05 only" "$got" "slow_node:32"
"$BIN/mpilens" synth -o "$TMP/bad/n" --procs 48 --nodes 6 --bad-link 40,7 --seed 98 2>/dev/null
got=$("$BIN/mpilens" anomalies --json "$TMP/bad/n" | $PY -c 'import json,sys; print(" ".join("%s:%s" % (a["kind"], a["ranks"]) for a in json.load(sys.stdin)["anomalies"]))')
check_eq "synth --bad-link 40,7: that link only" "$got" "bad_link:[40, 7]"
"$BIN/mpilens" synth -o "$TMP/clean/n" --procs 48 --nodes 6 --seed 97 2>/dev/null
check_eq "clean cube: no findings (json)" "$("$BIN/mpilens" anomalies --json "$TMP/clean/n")" '{"anomalies":[],"stat":"median"}'
check_match "clean cube: no findings (text)" "$("$BIN/mpilens" anomalies "$TMP/clean/n")" "^0 anomalies"
check_match "--stat average" "$("$BIN/mpilens" anomalies --stat average "$S")" "^2 anomalies in .*\(average"
check_match "--z 1000 hides everything" "$("$BIN/mpilens" anomalies --z 1000 "$S")" "^0 anomalies"

# errors: exit 1 naming the file, exit 2 for bad usage, nothing on stdout
check_exit "missing input" 1 "$BIN/mpilens" anomalies "$TMP/nothing/network"
check_match "missing input named" "$(cat "$TMP/err")" "nothing/network"
check_eq "missing input: stdout empty" "$(cat "$TMP/out")" ""
printf 'not netcdf' >"$TMP/junk_median.nc"
check_exit "junk file" 1 "$BIN/mpilens" anomalies "$TMP/junk_median.nc"
check_match "junk file named" "$(cat "$TMP/err")" "junk_median.nc"
check_exit "no input" 2 "$BIN/mpilens" anomalies
check_exit "two inputs" 2 "$BIN/mpilens" anomalies "$S" "$S"
check_exit "bad --stat" 2 "$BIN/mpilens" anomalies --stat deviation "$S"
check_exit "bad --z" 2 "$BIN/mpilens" anomalies --z -3 "$S"
check_exit "unknown option" 2 "$BIN/mpilens" anomalies --frobnicate "$S"
check_exit "help" 0 "$BIN/mpilens" anomalies --help
check_match "help has an example" "$(cat "$TMP/out")" "example:"
finish test_anomaly
