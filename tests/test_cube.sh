# The cube reader, writer and `mpilens info` against every reference file from network_test2,
# checked with an independent parse of ncdump's text output (tests/tools/ncref.py).
. tests/lib.sh
PY=/usr/bin/python3
NT=$DATA/network-tests2
# the JSON without its "source" key, which names the input as given
nosrc() { $PY -c 'import json,sys; d=json.load(open(sys.argv[1])); d.pop("source",None); print(json.dumps(d,sort_keys=True))' "$1" | md5sum; }

for d in "$NT"/*/; do
    name=$(basename "$d")
    prefix=$(ls "$d"*_median.nc | sed 's/_median\.nc$//')
    check "$name: info --json" "$BIN/mpilens" info --json "$d"
    "$BIN/mpilens" info --json "$d" >"$TMP/got.json" 2>/dev/null
    $PY tests/tools/ncref.py "$prefix" >"$TMP/want.json"
    check "$name: values equal ncdump's" $PY tests/tools/jcmp.py "$TMP/got.json" "$TMP/want.json" 1e-9
    # the single-file and prefix forms read the same cube
    "$BIN/mpilens" info --json "$prefix" >"$TMP/p.json" 2>/dev/null
    "$BIN/mpilens" info --json "${prefix}_median.nc" >"$TMP/f.json" 2>/dev/null
    check_eq "$name: prefix, directory and file agree" "$(nosrc "$TMP/p.json")" "$(nosrc "$TMP/got.json")"
    check_eq "$name: file form agrees" "$(nosrc "$TMP/f.json")" "$(nosrc "$TMP/got.json")"
    # hosts file read in rank order
    nh=$($PY -c "import json,sys; print(len(json.load(open(sys.argv[1]))['hosts']))" "$TMP/got.json")
    check_eq "$name: hosts" "$nh" "$(grep -c . "${prefix}_hosts.txt")"
done

# defects are reported
w=$("$BIN/mpilens" info "$NT/one_to_one_np2/network" 2>&1)
check_match "garbage min diagonal reported" "$w" "min: diagonal holds uninitialised values"
w=$("$BIN/mpilens" info "$NT/send_recv_and_recv_send_np4/network" 2>&1)
check_match "round-trip mix reported" "$w" "median and min halved"
w=$("$BIN/mpilens" info "$NT/plugins-branch-2024" 2>&1)
check_match "new layout recognised" "$w" "plugins branch"
check_match "raw repeats read" "$w" "raw repeats present"
w=$("$BIN/mpilens" info "$NT/bcast_np4/network" 2>&1)
check_match "bcast: no false diagonal warning" "$(echo "$w" | grep -c 'diagonal' || true)" "^0$"

# convert writes the classic layout with attributes; values survive the round trip
check "convert" "$BIN/mpilens" convert "$NT/plugins-branch-2024" -o "$TMP/conv/network"

check_exit "convert refuses to overwrite" 1 "$BIN/mpilens" convert "$NT/one_to_one_np4" -o "$TMP/conv/network"
check_match "overwrite message" "$(cat "$TMP/err")" "exists; use --force"
h=$(ncdump -h "$TMP/conv/network_median.nc")
check_match "classic int test_type" "$h" "int test_type"
check_match "attribute: version" "$h" "mpilens_version = \"[0-9.]+\""
check_match "attribute: sender index" "$h" "sender_index = \".*row = receiver"
check_match "attribute: units" "$h" "units = \"seconds\""
check_match "64-bit offset format" "$(ncdump -k "$TMP/conv/network_median.nc")" "64-bit offset"
"$BIN/mpilens" info --json "$TMP/conv/network" >"$TMP/c.json" 2>/dev/null
"$BIN/mpilens" info --json "$NT/plugins-branch-2024" >"$TMP/o.json" 2>/dev/null
KEYS=procs,mode,lengths,repeats,hosts,stats,asymmetry
check "converted values equal" $PY tests/tools/jcmp.py "$TMP/c.json" "$TMP/o.json" 1e-15 $KEYS
check "raw repeats written" test -s "$TMP/conv/network_all.nc"
check_eq "no temporary left" "$(ls "$TMP/conv" | grep -c tmp)" "0"
# the round-trip repair is not applied twice to our own output
check "convert send_recv" "$BIN/mpilens" convert "$NT/send_recv_and_recv_send_np4/network" -o "$TMP/sr/network" --force
mkdir -p "$TMP/sr"; "$BIN/mpilens" convert "$NT/send_recv_and_recv_send_np4/network" -o "$TMP/sr/network" --force 2>/dev/null
"$BIN/mpilens" info --json "$TMP/sr/network" >"$TMP/sr.json" 2>/dev/null
"$BIN/mpilens" info --json "$NT/send_recv_and_recv_send_np4/network" >"$TMP/sr0.json" 2>/dev/null
check "repaired once only" $PY tests/tools/jcmp.py "$TMP/sr.json" "$TMP/sr0.json" 1e-15 $KEYS

# synthetic cube: the structure it promises is in the numbers
mkdir -p "$TMP/syn"
check "synth" "$BIN/mpilens" synth -o "$TMP/syn/network" --procs 16 --nodes 2 --sockets 2 --noise 0
$PY - "$TMP/syn/network" <<'PYEOF' >"$TMP/syn.txt"
import subprocess, re, sys
out = subprocess.run(["ncdump", "-v", "data", sys.argv[1] + "_min.nc"], capture_output=True, text=True).stdout
v = [float(x) for x in re.search(r"data =(.*?);", out, re.S).group(1).replace("\n", " ").split(",")]
P = 16
# length 0: same socket 0.35 us, same node 0.65 us, other node 1.9 us (no noise)
print("%.3g %.3g %.3g" % (v[0 * P + 1], v[0 * P + 4], v[0 * P + 8]))
PYEOF
check_eq "synth levels (socket, node, network)" "$(cat "$TMP/syn.txt")" "3.5e-07 6.5e-07 1.9e-06"
check_exit "synth bad structure" 1 "$BIN/mpilens" synth -o "$TMP/syn/x" --procs 10 --nodes 3
check_match "synth message" "$(cat "$TMP/err")" "do not divide"
check_exit "info usage" 2 "$BIN/mpilens" info
check_exit "unknown option" 2 "$BIN/mpilens" info --bogus x
check "info --help" "$BIN/mpilens" info --help

finish test_cube
