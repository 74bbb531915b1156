#!/usr/bin/env bash
# The sample applications of samples/apps/ at 4 ranks, traced with `mpilens trace` and checked
# with `mpilens problems --json`: each problem program must show its problem with about the
# injected time (header comment of each program), charged to the right ranks and to the line
# marked "PROBLEM <id>" in its source; the two Jacobi versions must give the same checksum,
# and the overlapped one must wait less for late senders. A run whose times are off (a loaded
# machine wakes sleepers late) is repeated, up to 3 times.
. tests/lib.sh
PY=/usr/bin/python3
MPIRUN="mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS=detect_leaks=0:verify_asan_link_order=0 -x OMPI_MCA_mpi_yield_when_idle=1"
S=$BUILD/bin/samples

# run NAME ARGS...: traces samples/NAME at 4 ranks into $TMP/NAME, problems into $TMP/NAME.json
run() {
    local name=$1; shift
    rm -rf "${TMP:?}/$name" "$TMP/$name.json"
    $BIN/mpilens trace -o "$TMP/$name" -- $MPIRUN -np 4 "$S/$name" "$@" \
        < /dev/null > "$TMP/$name.out" 2> "$TMP/$name.err" &&
        $BIN/mpilens problems --json "$TMP/$name" -o "$TMP/$name.json" 2>> "$TMP/$name.err"
}

# verdict NAME ID "MS per rank" TOL: ok, or what is off. Expected milliseconds per rank are
# compared with a relative tolerance TOL; an expected 0 must be under 15 ms. The largest call
# site must be the source line marked "PROBLEM ID".
cat > "$TMP/verdict.py" <<'EOF'
import json, sys
path, pid, want, tol, src = sys.argv[1], sys.argv[2], [float(x) for x in sys.argv[3].split()], float(sys.argv[4]), sys.argv[5]
# the marked line, or the line after a comment that only holds the marker
lines = open(src).read().split("\n")
line = [i + 1 + ("MPI_" not in l) for i, l in enumerate(lines) if "PROBLEM " + pid + " " in l + " "]
d = json.load(open(path))
p = {x["id"]: x for x in d["problems"]}[pid]
got = [1000 * x for x in p["per_rank"]]
bad = []
for r, (g, w) in enumerate(zip(got, want)):
    if (w == 0 and g > 15) or (w > 0 and abs(g / w - 1) > tol):
        bad.append("rank %d %.1f ms, want %.0f" % (r, g, w))
if abs(1000 * p["total_s"] / sum(want) - 1) > tol:
    bad.append("total %.1f ms, want %.0f" % (1000 * p["total_s"], sum(want)))
site = p["callsites"][0]["site"] if p["callsites"] else ""
if not line or not site.endswith("%s:%d)" % (src.split("/")[-1], line[0])):
    bad.append("call site '%s', want line %s" % (site, line))
print("; ".join(bad) if bad else "ok")
EOF

while read -r name id want tol; do
    v="not run"
    for attempt in 1 2 3; do
        if run "$name"; then
            v=$($PY "$TMP/verdict.py" "$TMP/$name.json" "$id" "${want//_/ }" "$tol" "samples/apps/$name.c" 2>&1)
        else
            v="run failed: $(tail -n 3 "$TMP/$name.err")"
        fi
        [ "$v" = ok ] && break
        echo "$name run $attempt: $v" >&2
    done
    check_eq "$name shows $id of about (${want//_/ }) ms" "$v" ok
done <<'EOF'
imbalance_barrier wait_at_barrier 600_400_200_0 0.2
late_broadcast late_broadcast 0_200_200_200 0.15
early_reduce early_reduce 200_0_0_0 0.2
wrong_order late_sender_wrong_order 0_200_0_200 0.15
lock_contention rma_lock_contention 0_180_0_0 0.2
late_post rma_late_post 200_200_200_0 0.15
late_fence rma_wait_at_fence 600_400_200_0 0.2
inlined_recv late_sender 200_0_200_0 0.2
EOF
# (underscores keep each expectation one word for read; the checker splits on spaces)

# Jacobi: same checksum; the overlapped version waits less for late senders
ls_ms() { $PY -c "import json; p={x['id']: x for x in json.load(open('$1'))['problems']}; print(round(1000 * (p['late_sender']['total_s'] + p['late_sender_wrong_order']['total_s']), 1))"; }
v="not run"
for attempt in 1 2 3; do
    run jacobi_naive -n 256 -i 40 -j 10 -w 10 && run jacobi_overlap -n 256 -i 40 -j 10 -w 10 || { v="run failed"; continue; }
    cn=$(awk '/^checksum/ { print $2 }' "$TMP/jacobi_naive.out")
    co=$(awk '/^checksum/ { print $2 }' "$TMP/jacobi_overlap.out")
    ln=$(ls_ms "$TMP/jacobi_naive.json")
    lo=$(ls_ms "$TMP/jacobi_overlap.json")
    if awk -v n="$ln" -v o="$lo" 'BEGIN { exit !(n > 1.5 * o && n > 50) }'; then v=ok; break; fi
    v="late sender naive $ln ms, overlapped $lo ms"
    echo "jacobi run $attempt: $v" >&2
done
check_eq "jacobi checksums equal" "${cn:-none}" "${co:-other}"
check_match "jacobi checksum is a number" "${cn:-}" '^[0-9]\.[0-9]{15}e\+[0-9]+$'
check_eq "overlapped Jacobi waits less for late senders" "$v" ok
# and without tracing, at another rank count and size, still the same checksum
a=$(mpirun --allow-run-as-root --oversubscribe -np 3 "$S/jacobi_naive" -n 100 -i 37 < /dev/null | awk '/^checksum/ { print $2 }')
b=$(mpirun --allow-run-as-root --oversubscribe -np 3 "$S/jacobi_overlap" -n 100 -i 37 < /dev/null | awk '/^checksum/ { print $2 }')
check_eq "jacobi checksums equal at 3 ranks" "${a:-none}" "${b:-other}"
# inlined_recv's MPI_Recv is in exchange(), inlined into main (the DWARF says so, read by
# binutils' readelf, not libdw): its call site names both, in the text and the JSON keys
check "exchange is inlined in the sample" dwarf_inlined "$S/inlined_recv" exchange
check_eq "inlined call site" "$($PY -c "import json; p={x['id']: x for x in json.load(open('$TMP/inlined_recv.json'))['problems']}; c=p['late_sender']['callsites'][0]; print(c['site'].split(' (inlined_recv.c')[0], c['caller'], c['inlined_into'], c['member'])" 2>&1)" \
    "MPI_Recv called from exchange (inlined into main) exchange main recv"
check_eq "inlined sample: the late send is listed as the cause" "$($PY -c "import json; p={x['id']: x for x in json.load(open('$TMP/inlined_recv.json'))['problems']}; print([(c['member'], c['role'], c['function'], c['caller']) for c in p['late_sender']['callsites'] if c['role'] == 'cause'][:1])" 2>&1)" \
    "[('send', 'cause', 'MPI_Send', 'exchange')]"

# every traced sample: per rank, the problems' seconds add up to at most the time in MPI
# (docs/methods.md §6), read from the JSON alone
for j in "$TMP"/*.json; do
    v=$($PY -c "
import json, sys
d = json.load(open(sys.argv[1]))
bad = [r for r in range(d['nranks']) if sum(p['per_rank'][r] for p in d['problems']) > d['mpi_time_per_rank'][r] * (1 + 1e-12) + 1e-9]
print('ok' if not bad else 'ranks %s over their MPI time' % bad)" "$j" 2>&1)
    check_eq "$(basename "$j" .json): problems within MPI time per rank" "$v" ok
done
check_exit "bad option is fatal" 2 mpirun --allow-run-as-root --oversubscribe -np 2 "$S/late_post" -x 5 < /dev/null
finish test_samples
