# The trace collector's provenance (issue 14): `mpilens trace` records how the run was made as
# OTF2 trace file properties MPILENS::MEASURED_AT, _MPI_LIBRARY_VERSION, _LAUNCHER, _BINDING and
# _CORES_PER_HOST, read back here by otf2-print -A (an independent reader) and checked against
# the machine (getconf, ompi_info, the clock around the run); a crashed run's recovered archive
# keeps them; page one of the problems PDF shows them, one block per trace, and a foreign trace
# (Score-P's) says they are not recorded.
. tests/lib.sh
APP=$BUILD/tests/mpi/trace_app
ASAN_X="ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x $ASAN_X"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export SOURCE_DATE_EPOCH=1715860800
# the value of property $2 in archive $1, as otf2-print lists the anchor file
prop() { otf2-print -A "$1" 2>/dev/null | awk -v n="$2" '$1 == "Property" && $2 == "name" { cur = $3 }
    $1 == "Property" && $2 == "value" && cur == n { sub(/^Property value +/, ""); print; exit }'; }
flat() { pdftotext -f 1 -l 1 "$1" - 2>/dev/null | tr '\n\f' '  ' | tr -s ' '; }

t0=$(date -u +%s)
$BIN/mpilens trace -o "$TMP/t" -- $MPIRUN -np 3 $APP 5 >/dev/null 2>"$TMP/trace.err"
check_eq "traced run" "$?" "0"
t1=$(date -u +%s)
A=$TMP/t/traces.otf2
at=$(prop "$A" MPILENS::MEASURED_AT)
check_match "MEASURED_AT is ISO 8601 UTC" "$at" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
# within the run, by the shell's clock (whole seconds on both sides)
ats=$(date -u -d "$at" +%s 2>/dev/null || echo 0)
check "MEASURED_AT lies within the run ($t0 <= $ats <= $t1)" test "$ats" -ge "$t0" -a "$ats" -le "$t1"
check_eq "CORES_PER_HOST = getconf" "$(prop "$A" MPILENS::CORES_PER_HOST)" "$(getconf _NPROCESSORS_ONLN)"
check_match "LAUNCHER: Open MPI's mpirun" "$(prop "$A" MPILENS::LAUNCHER)" "^Open MPI mpirun"
check_match "BINDING: rank 0's affinity" "$(prop "$A" MPILENS::BINDING)" "rank 0 (unbound|bound to [0-9]+ core)"
ov=$(ompi_info --version 2>/dev/null | head -n 1 | grep -oE 'v[0-9]+\.[0-9]+(\.[0-9]+)?')
check_match "MPI_LIBRARY_VERSION names ompi_info's version ($ov)" "$(prop "$A" MPILENS::MPI_LIBRARY_VERSION)" \
    "^Open MPI ${ov:-none}"
check_eq "raw files of a clean run are gone" "$(ls "$TMP/t/raw" 2>/dev/null | wc -l)" 0

# a run that aborts: the recovery (serial conversion) writes the same properties
$BIN/mpilens trace -o "$TMP/crash" -b 2k -- $MPIRUN -np 2 $APP 200 60 >/dev/null 2>&1
check_match "recovered archive: MEASURED_AT" "$(prop "$TMP/crash/traces.otf2" MPILENS::MEASURED_AT)" '^[0-9]{4}-'
check_eq "recovered archive: CORES_PER_HOST" "$(prop "$TMP/crash/traces.otf2" MPILENS::CORES_PER_HOST)" \
    "$(getconf _NPROCESSORS_ONLN)"

# ---- page one of the problems PDF ----
check "problems --report" $BIN/mpilens problems "$A" --report "$TMP/p.pdf"
p=$(flat "$TMP/p.pdf")
check_match "page one: measured at" "$p" "measured at $at"
check_match "page one: the MPI library" "$p" "MPI library Open MPI ${ov:-none}"
check_match "page one: launcher and binding" "$p" "launcher and binding Open MPI mpirun; rank 0"
check_match "page one: cores per host" "$p" "cores per host $(getconf _NPROCESSORS_ONLN) "
# a Score-P trace has no MPILENS properties: one row says so
C=$DATA/otf2/casita-4_mpi_ls_barr/traces.otf2
check "problems --report on a foreign trace" $BIN/mpilens problems "$C" --report "$TMP/c.pdf"
check_match "foreign trace: not recorded" "$(flat "$TMP/c.pdf")" "provenance not recorded \(a trace not written by mpilens trace"
check_eq "foreign trace: no measured-at row" "$(flat "$TMP/c.pdf" | grep -c 'measured at')" 0
# two traces: a block per trace, headed by its name
check "problems --report on two traces" $BIN/mpilens problems "$A" "$C" --report "$TMP/two.pdf"
two=$(flat "$TMP/two.pdf")
check_match "two traces: ours first, one row with its values" "$two" \
    "trace 1 t/traces.otf2: measured at $at; MPI library Open MPI ${ov:-none}.*; launcher and binding Open MPI mpirun; rank 0 .*; cores per host $(getconf _NPROCESSORS_ONLN) trace 2"
check_match "two traces: then the foreign one" "$two" "trace 2 casita-4_mpi_ls_barr/traces.otf2: not recorded"
# the Russian template has the same rows
check "problems --report --lang ru" $BIN/mpilens problems "$A" --lang ru --report "$TMP/ru.pdf"
check_match "ru: начало измерения" "$(flat "$TMP/ru.pdf")" "начало измерения $at"

# ---- problems --json: a "provenance" object with the PDF's keys, values as otf2-print reads
# the properties; a foreign trace's JSON has none and otherwise the same keys as before
check "problems --json" $BIN/mpilens problems "$A" --json -o "$TMP/p.json"
for k in measured_at mpi_library_version launcher binding cores_per_host; do
    K=MPILENS::$(echo "$k" | tr a-z A-Z)
    check_eq "json provenance.$k = $K" \
        "$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['provenance']['$k'])" "$TMP/p.json")" \
        "$(prop "$A" "$K")"
done
check_eq "json: the listing's keys kept, provenance added last" \
    "$(/usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('problems' in d, list(d)[-1])" "$TMP/p.json")" \
    "True provenance"
check "problems --json on a foreign trace" $BIN/mpilens problems "$C" --json -o "$TMP/c.json"
check_eq "foreign trace: no provenance in the JSON" \
    "$(/usr/bin/python3 -c "import json,sys; print('provenance' in json.load(open(sys.argv[1])))" "$TMP/c.json")" False
finish test_trace_provenance
