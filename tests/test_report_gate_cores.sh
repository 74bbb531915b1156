# mpilens report and accept -o, issue 14: the data-quality gate takes the cores per host from the
# cube's cores_per_host attribute (written by mpilens-bench; set here with python netCDF4) when
# --cores does not give them, and says which it used. 4 ranks on 1 host recorded with 2 cores
# is oversubscribed; with 8 it is not; without the attribute the check is off and said so.
. tests/lib.sh
PY=/usr/bin/python3
export SOURCE_DATE_EPOCH=1715860800
flat() { pdftotext "$1" - | tr '\n\f' '  ' | tr -s ' '; }

check "synth 4 ranks on 1 host" "$BIN/mpilens" synth -o "$TMP/none/network" --procs 4 --nodes 1
# the reference placement from the hosts file itself: ranks on the busiest host
PER=$(sort "$TMP/none/network_hosts.txt" | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
check_eq "hosts file: 4 ranks on one host" "$PER" 4
# copies with the attribute, in every statistic file (as mpilens-bench writes it)
for n in 2 8 unknown; do
    mkdir -p "$TMP/c$n" && cp "$TMP"/none/network_* "$TMP/c$n/"
    $PY - "$TMP/c$n/network" "$n" <<'PYEOF'
import sys, glob, netCDF4
for f in glob.glob(sys.argv[1] + "_*.nc"):
    with netCDF4.Dataset(f, "a") as d:
        d.setncattr("cores_per_host", sys.argv[2])  # NC_CHAR text, as the writer makes it
PYEOF
    check_eq "attribute $n written" "$(ncdump -h "$TMP/c$n/network_median.nc" | grep -c "cores_per_host = \"$n\"")" 1
done

over="$PER ranks share host node01, which has 2 cores \(as mpilens-bench recorded them in the cube\)"
check "report: recorded 2 cores" "$BIN/mpilens" report "$TMP/c2/network" -o "$TMP/c2.pdf"
t=$(flat "$TMP/c2.pdf")
check_match "2 recorded cores: oversubscribed, source named" "$t" "$over"
check_match "2 recorded cores: the gate says which cores it used" "$t" "against the cores \(2 per host, as mpilens-bench recorded them in the cube\)"
check_match "2 recorded cores: the advice" "$t" "Start at most one rank per core"

check "report: recorded 8 cores" "$BIN/mpilens" report "$TMP/c8/network" -o "$TMP/c8.pdf"
t=$(flat "$TMP/c8.pdf")
check_eq "8 recorded cores: not oversubscribed" "$(printf '%s' "$t" | grep -c 'ranks share host')" 0
check_match "8 recorded cores: still fails as one host" "$t" "because all ranks ran on one host \(node01\)"
check_match "8 recorded cores: the gate says which cores it used" "$t" "against the cores \(8 per host, as mpilens-bench recorded them in the cube\)"

for d in none cunknown; do
    check "report: $d" "$BIN/mpilens" report "$TMP/$d/network" -o "$TMP/$d.pdf"
    t=$(flat "$TMP/$d.pdf")
    check_eq "$d: not checked" "$(printf '%s' "$t" | grep -c 'ranks share host')" 0
    check_match "$d: says so" "$t" "against the cores \(not recorded in the cube and not given by --cores, so not checked\)"
done

# --cores wins over the attribute, both ways, and is named as the source
check "report: --cores 8 over 2 recorded" "$BIN/mpilens" report "$TMP/c2/network" --cores 8 -o "$TMP/o8.pdf"
t=$(flat "$TMP/o8.pdf")
check_eq "--cores 8: not oversubscribed" "$(printf '%s' "$t" | grep -c 'ranks share host')" 0
check_match "--cores 8: source named" "$t" "against the cores \(8 per host, as given by --cores\)"
check "report: --cores 2 over 8 recorded" "$BIN/mpilens" report "$TMP/c8/network" --cores 2 -o "$TMP/o2.pdf"
check_match "--cores 2: oversubscribed, source named" "$(flat "$TMP/o2.pdf")" \
    "$PER ranks share host node01, which has 2 cores \(as given by --cores\)"

# accept -o gates its cubes as report does
printf 'cube.delay.median <= 1s length=0\n' >"$TMP/loose.criteria"
"$BIN/mpilens" accept "$TMP/c2/network" --criteria "$TMP/loose.criteria" -o "$TMP/acc.pdf" >/dev/null 2>"$TMP/err"
check_match "accept -o runs (exit 0 or 3)" "$?" "^(0|3)$"
check_match "accept -o: recorded cores oversubscribe" "$(flat "$TMP/acc.pdf" 2>/dev/null)" "$over"
finish test_report_gate_cores
