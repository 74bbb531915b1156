#!/usr/bin/env bash
# mpilens report, issue 14: the data-quality gate and page one. synth32 passes the gate and keeps
# its structure pages; a noisy cube and a one-host cube fail it with the right reason in a box and
# have no structure pages; page one shows the key numbers, checked against netCDF4 + numpy.
. tests/lib.sh
PY=/usr/bin/python3
S32=samples/cubes/synth32/network
export SOURCE_DATE_EPOCH=1715860800
text() { pdftotext -layout "$1" - | tr -d '\f'; }
flat() { pdftotext "$1" - | tr '\n\f' '  ' | tr -s ' '; }
no_structure() {
    if text "$2" | grep -Eq '^(Structure of the machine|Anomalies|Link clusters|Neighbor-joining tree|Tree of the processes)$'
    then fail "$1: a structure page is drawn"; else ok; fi
}

# ---- synth32: passes, full analysis ----
check "report synth32" "$BIN/mpilens" report "$S32" -o "$TMP/s32.pdf"
t=$(flat "$TMP/s32.pdf")
check_match "synth32 passes" "$t" "The measurement passes"
for h in "Structure of the machine" "Anomalies" "Link clusters" "Neighbor-joining tree"; do
    check_eq "synth32 has '$h'" "$(text "$TMP/s32.pdf" | grep -c "^$h\$")" 1
done

# ---- page one: the key numbers against netCDF4 + numpy ----
p1=$(pdftotext -layout -f 1 -l 1 "$TMP/s32.pdf" - | tr -d '\f')
$PY - "$S32" >"$TMP/ref" <<'EOF'
import sys, numpy as np, netCDF4
sys.path.insert(0, "tests")
from units import num
p = sys.argv[1]
d = np.asarray(netCDF4.Dataset(p + "_median.nc")["data"][:], dtype=float)
hosts = open(p + "_hosts.txt").read().split()
P = d.shape[1]
same = np.array([[hosts[i] == hosts[j] for j in range(P)] for i in range(P)])
off = ~np.eye(P, dtype=bool)
for name, mask in (("intra", same & off), ("inter", ~same), ("all", off)):
    print(name, num(np.median(d[0][mask]) * 1e6), num(np.median(d[-1][mask]) * 1e6))
for k in (0, -1):
    # one_to_one: row = receiver, column = sender
    i, j = np.unravel_index(np.argmax(np.where(off, d[k], -np.inf)), (P, P))
    print("worst%d" % k, "%s (%d -> %d)" % (num(d[k][i, j] * 1e6), j, i))
EOF
read -r _ a b < <(grep '^intra' "$TMP/ref")
check_match "page one: median within a host" "$p1" "median delay within a host +$a +$b"
read -r _ a b < <(grep '^inter' "$TMP/ref")
check_match "page one: median between hosts" "$p1" "median delay between hosts +$a +$b"
read -r _ a b < <(grep '^all' "$TMP/ref")
check_match "page one: median over all pairs" "$p1" "median delay over all pairs +$a +$b"
w0=$(sed -n 's/^worst0 //p' "$TMP/ref"); w1=$(sed -n 's/^worst-1 //p' "$TMP/ref")
check_match "page one: slowest pair" "$p1" "slowest pair \(sender -> receiver\) +${w0//[()]/.} +${w1//[()]/.}"
check_match "page one: what was measured" "$p1" "32 processes on 4 hosts, one_to_one mode, 9 message"
check_match "page one: 100 repeats" "$p1" "100 repeats per pair"
check_match "page one: the bad link finding" "$p1" "Bad link 3 -> 17 \(node01 -> node03\)"
check_match "page one: the slow node finding" "$p1" "Slow node 16-23 \(node03\)"
check_match "page one: what to do next" "$p1" "What to do next"
# the pages page one names hold what it says they hold
pa=$(printf '%s\n' "$p1" | sed -n 's/.*Bad link 3 -> 17.*: page \([0-9]*\),.*/\1/p')
ps=$(printf '%s\n' "$(pdftotext -f 1 -l 1 "$TMP/s32.pdf" - | tr '\n' ' ')" | sed -n 's/.*by delay: page \([0-9]*\),.*/\1/p')
check_match "anomalies page named" "$pa" '^[0-9]+$'
check_match "the named page has the bad link" "$(pdftotext -layout -f "${pa:-1}" -l "${pa:-1}" "$TMP/s32.pdf" - 2>/dev/null)" \
    "bad link +3 -> 17 \(node01"
# the page named is the groups table's (its heading may close the page before)
check_match "the named structure page has the groups" "$(pdftotext -layout -f "${ps:-1}" -l "${ps:-1}" "$TMP/s32.pdf" - 2>/dev/null)" \
    "group +processes +ranks +hosts"

# ---- a noisy cube: fails as noisy ----
check "synth noisy" "$BIN/mpilens" synth -o "$TMP/noisy/network" --procs 16 --nodes 4 --noise 5
check "report noisy" "$BIN/mpilens" report "$TMP/noisy/network" -o "$TMP/noisy.pdf"
t=$(flat "$TMP/noisy.pdf")
check_match "noisy: the box" "$t" "No structure can be read from this measurement, because the repeats of a pair spread too widely"
check_match "noisy: what to measure instead" "$t" "What to measure instead: Run on an otherwise idle machine"
check_match "noisy: the box is on page one" "$(flat_p1=$(pdftotext -f 1 -l 1 "$TMP/noisy.pdf" - | tr '\n' ' '); echo "$flat_p1")" \
    "No structure can be read from this measurement"
no_structure "noisy" "$TMP/noisy.pdf"

# ---- one host: fails as one host, not as noisy ----
check "synth one host" "$BIN/mpilens" synth -o "$TMP/one/network" --procs 8 --nodes 1
check "report one host" "$BIN/mpilens" report "$TMP/one/network" -o "$TMP/one.pdf"
t=$(flat "$TMP/one.pdf")
check_match "one host: the reason" "$t" "because all ranks ran on one host \(node01\)"
if printf '%s' "$t" | grep -q "spread too widely"; then fail "one host: called noisy"; else ok; fi
no_structure "one host" "$TMP/one.pdf"

# ---- oversubscribed: --cores below the ranks per host ----
check "report synth32 on 4 cores" "$BIN/mpilens" report "$S32" -o "$TMP/over.pdf" --cores 4
check_match "oversubscribed: the reason" "$(flat "$TMP/over.pdf")" "8 ranks share host node01, which has 4 cores"
no_structure "oversubscribed" "$TMP/over.pdf"
check_exit "bad --cores" 2 "$BIN/mpilens" report "$S32" -o "$TMP/x.pdf" --cores 0

# ---- references: only the works the document uses, no numbered-paper or figure citations ----
refs() { pdftotext "$1" - | tr -d '\f' | sed -n '/^References$/,$p'; }
r=$(refs "$TMP/s32.pdf")
for w in "Salnikov" "Saitou" "Lance" "Cattell" "Iglewicz" "network_test2"; do
    check_match "synth32 cites $w" "$r" "$w"
done
if printf '%s' "$r" | grep -q "OSU"; then fail "synth32 cites OSU without a sweep"; else ok; fi
r=$(refs "$TMP/noisy.pdf")
check_match "noisy cube cites network_test2" "$r" "network_test2"
if printf '%s' "$r" | grep -Eq "Salnikov|Saitou|Iglewicz"; then fail "noisy cube cites methods it did not use"; else ok; fi
for f in "$TMP/s32.pdf" "$TMP/noisy.pdf"; do
    if pdftotext "$f" - | grep -Eiq "paper 0|Figure [0-9]+ of "; then fail "$f: a paper-number or foreign figure citation"; else ok; fi
done

finish test_report_gate
