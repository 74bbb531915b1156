# Provenance on the report's page: a real mpilens-bench cube's page one states what the files'
# attributes and the machine say (MPI library against ompi_info, cores per host against nproc,
# repeats against the command line), a synthetic cube says it is synthetic, a cube without its
# _deviation.nc says so, --label names the input in the running header of every page, and no
# report text carries the folder the report was made in.
. tests/lib.sh
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export SOURCE_DATE_EPOCH=1700000000
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
M=$BIN/mpilens
ROOT=$(pwd)

# page N's text, one line per table cell (pdftotext without -layout keeps cells apart)
page() { pdftotext -f "$2" -l "$2" "$1" - 2>/dev/null; }
pages() { pdfinfo "$1" 2>/dev/null | awk '/^Pages:/ { print $2 }'; }
# the value cell that follows label $2 in text $1
cell_after() { printf '%s\n' "$1" | awk -v l="$2" 'f && NF { print; exit } $0 == l { f = 1 }'; }

# ---- a measured cube: 3 ranks, 7 repeats, run in $TMP so that relative names are short ----
mkdir -p "$TMP/live"
(cd "$TMP" && $MPIRUN -np 3 "$ROOT/$BIN/mpilens-bench" -t one_to_one -b 0 -e 1025 -s 1024 -n 7 \
    -f live/network </dev/null >/dev/null 2>&1)
check_eq "bench runs" "$?" "0"
for a in measured_at launcher binding cores_per_host mpi_library_version; do
    check_match "bench records $a" "$(ncdump -h "$TMP/live/network_median.nc")" ":$a = \""
done
attr() { ncdump -h "$1" | sed -n "s/^[[:space:]]*:$2 = \"\\(.*\\)\" ;\$/\\1/p"; }
mpi_attr=$(attr "$TMP/live/network_median.nc" mpi_library_version)
at_attr=$(attr "$TMP/live/network_median.nc" measured_at)
check_match "measured_at is ISO 8601 UTC" "$at_attr" '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'
check_eq "cores_per_host attribute = nproc" "$(attr "$TMP/live/network_median.nc" cores_per_host)" "$(nproc)"
check_match "launcher: mpirun seen" "$(attr "$TMP/live/network_median.nc" launcher)" "Open MPI mpirun"

(cd "$TMP" && "$ROOT/$M" report live/network -o live.pdf >/dev/null 2>"$TMP/err")
check_eq "report of the live cube" "$?" "0"
p1=$(page "$TMP/live.pdf" 1)
check_eq "kind: measured" "$(cell_after "$p1" "what it is")" "measured by mpilens-bench"
# the version number as ompi_info gives it (independent of the library call the bench made)
ov=$(ompi_info --version 2>/dev/null | head -n 1 | grep -oE 'v[0-9]+\.[0-9]+(\.[0-9]+)?')
check_match "page one names ompi_info's version ($ov)" "$(printf '%s' "$p1" | tr '\n' ' ')" "Open MPI ${ov:-none}"
check_match "page one's MPI library is the attribute" "$(printf '%s' "$p1" | tr '\n' ' ')" \
    "$(printf '%s' "${mpi_attr%%,*}" | sed 's/[.]/[.]/g')"
check_eq "page one: measured at" "$(cell_after "$p1" "measured at")" "$at_attr"
check_eq "page one: cores per host = nproc" "$(cell_after "$p1" "cores per host")" "$(nproc)"
check_eq "page one: repeats = -n 7" "$(cell_after "$p1" "repeats per pair")" "7"
check_eq "page one: ranks" "$(cell_after "$p1" "ranks")" "3"
check_eq "page one: hosts" "$(cell_after "$p1" "hosts")" "$(sort -u "$TMP/live/network_hosts.txt" | wc -l)"
check_eq "page one: all four statistics" "$(cell_after "$p1" "statistics present")" "average, median, deviation, min"

# ---- synthetic: the sample (written before synth said source) and a fresh one ----
check "report synth32" "$M" report samples/cubes/synth32/network -o "$TMP/s32.pdf"
check_eq "synth32 says synthetic" "$(cell_after "$(page "$TMP/s32.pdf" 1)" "what it is")" "synthetic (mpilens synth)"
check "synth" "$M" synth -n 8 --nodes 2 --seed 7 -o "$TMP/syn/network"
check_eq "synth writes source" "$(attr "$TMP/syn/network_median.nc" source)" "synthetic (mpilens synth, seed 7)"
check "report fresh synth" "$M" report "$TMP/syn/network" -o "$TMP/syn.pdf"
check_eq "fresh synth says its seed" "$(cell_after "$(page "$TMP/syn.pdf" 1)" "what it is")" \
    "synthetic (mpilens synth, seed 7)"

# ---- a network_test2 file carries no provenance: said, not invented ----
check "report network_test2" "$M" report "$DATA/network-tests2/one_to_one_np4/network" -o "$TMP/nt2.pdf"
nt=$(page "$TMP/nt2.pdf" 1)
check_match "network_test2 kind" "$(cell_after "$nt" "what it is")" "^read from a network_test2 file"
check_eq "network_test2: MPI not recorded" "$(cell_after "$nt" "MPI library")" "not recorded"

# ---- a cube whose _deviation.nc is missing ----
mkdir -p "$TMP/nodev"
cp "$TMP/live/network_median.nc" "$TMP/live/network_average.nc" "$TMP/live/network_min.nc" \
    "$TMP/live/network_hosts.txt" "$TMP/nodev/"
check "report without _deviation.nc" "$M" report "$TMP/nodev/network" -o "$TMP/nodev.pdf"
check_match "deviation said missing" "$(page "$TMP/nodev.pdf" 1 | tr '\n' ' ')" \
    "average, median, min; deviation: missing — spreads cannot be shown"

# ---- --label: every page's running header (its first text line) names the input ----
check "report --label" "$M" report "$TMP/nodev/network" samples/cubes/synth32/network -o "$TMP/lab.pdf" \
    --label "rack A (no deviation)" --label "S32"
n=$(pages "$TMP/lab.pdf")
bad=0
for p in $(seq 1 "$n"); do
    h=$(page "$TMP/lab.pdf" "$p" | head -n 1)
    case "$h" in "rack A (no deviation)"|S32|"rack A (no deviation), S32") ;; *) bad=$((bad + 1)); echo "  page $p: '$h'" >&2 ;; esac
done
check_eq "running header on all $n pages" "$bad" 0
heads=$(for p in $(seq 2 "$n"); do page "$TMP/lab.pdf" "$p" | head -n 1; done | sort -u)
check_eq "each label heads its own pages" "$(printf '%s\n' "$heads" | grep -cxE 'rack A \(no deviation\)|S32')" 2
check_match "label in the headings" "$(pdftotext "$TMP/lab.pdf" - | tr '\n' ' ')" "Input 2: S32"
check_exit "more labels than inputs: usage" 2 "$M" report "$TMP/nodev/network" -o "$TMP/x.pdf" --label a --label b
check "default label: folder and name" test "$(page "$TMP/s32.pdf" 2 | head -n 1)" = "synth32/network"

# ---- no build path in the text of the reports made the demo's way ----
leak=0
for f in "$TMP/live.pdf" "$TMP/s32.pdf" "$TMP/lab.pdf"; do
    pdftotext "$f" - | grep -qF "$ROOT" && { leak=1; echo "  $f names $ROOT" >&2; }
done
check_eq "no '$ROOT' in any report text" "$leak" 0

finish test_provenance
