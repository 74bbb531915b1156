# mpilens-bench, the all-pairs collector, under real mpirun: the files it writes are read back by
# `mpilens info` and checked against the raw repeats with numpy (an independent recomputation of
# every statistic), the attributes are where ncdump sees them, and every error path ends the job
# with a clear message and a non-zero status, without writing anything.
. tests/lib.sh
PY=/usr/bin/python3
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench

# verify PREFIX PROCS LENGTHS REPEATS [PREFIX PROCS ...]: checks the four statistics against the
# raw repeats of _all.nc (when present) and the invariants every mode must hold; prints one line
# per prefix, "ok" or the problems (one python start for many runs: numpy is slow to load).
cat >"$TMP/verify.py" <<'PYEOF'
import sys, numpy as np
from scipy.io import netcdf_file
def var(prefix, stat):
    f = netcdf_file("%s_%s.nc" % (prefix, stat), "r", mmap=False)
    d = f.variables["data"][:].copy()
    f.close()
    return d
def verify(prefix, P, lengths, n):
    st = {s: var(prefix, s) for s in ("average", "median", "deviation", "min")}
    bad = []
    for s, d in st.items():
        if d.shape != (len(lengths), P, P):
            bad.append("%s: shape %s" % (s, d.shape))
            continue
        if not np.isfinite(d).all():
            bad.append("%s: NaN or infinite values" % s)
        diag = d[:, range(P), range(P)]
        if (diag != 0).any():
            bad.append("%s: diagonal not 0: %s" % (s, diag[diag != 0][:3]))
        off = d[:, ~np.eye(P, dtype=bool)]
        if s != "deviation" and not (off > 0).all():
            bad.append("%s: non-positive delay off the diagonal" % s)
        if s == "deviation" and not (off >= 0).all():
            bad.append("deviation: negative")
    off = ~np.eye(P, dtype=bool)
    if not (st["min"][:, off] <= st["median"][:, off]).all():
        bad.append("min > median somewhere")
    if not (st["min"][:, off] <= st["average"][:, off] * (1 + 1e-12)).all():
        bad.append("min > average somewhere")
    try:
        f = netcdf_file(prefix + "_all.nc", "r", mmap=False)
        raw = f.variables["data"][:].copy()
        f.close()
    except FileNotFoundError:
        raw = None
    if raw is not None:
        if raw.shape != (len(lengths), P, P, n):
            bad.append("raw shape %s" % (raw.shape,))
        else:
            r = raw[:, off, :]
            want = {"average": r.mean(axis=2), "median": np.median(r, axis=2),
                    "deviation": r.std(axis=2, ddof=0), "min": r.min(axis=2)}
            for s, w in want.items():
                got = st[s][:, off]
                if not np.allclose(got, w, rtol=1e-9, atol=1e-15):
                    bad.append("%s differs from the raw repeats (max diff %.3g)" % (s, abs(got - w).max()))
            # median of an even count is the mean of the two middle values, not sorted[n/2]
            if n % 2 == 0:
                upper = np.sort(r, axis=2)[:, :, n // 2]
                if np.allclose(st["median"][:, off], upper, rtol=1e-12, atol=0) and not np.allclose(upper, want["median"], rtol=1e-12, atol=0):
                    bad.append("median is sorted[n/2]")
            # the deviation is the population one: the sample one differs by sqrt(n/(n-1))
            samp = r.std(axis=2, ddof=1)
            if np.allclose(st["deviation"][:, off], samp, rtol=1e-9, atol=0) and (samp > 0).any():
                bad.append("deviation is the sample deviation")
            if (raw[:, range(P), range(P), :] != 0).any():
                bad.append("raw diagonal not 0")
    return "ok" if not bad else "; ".join(bad)
a = sys.argv[1:]
for g in range(0, len(a), 4):
    print(verify(a[g], int(a[g + 1]), [int(x) for x in a[g + 2].split(",")], int(a[g + 3])))
PYEOF
# infokey FILE EXPR: a value from `mpilens info --json` output
infokey() { $PY -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- one_to_one at 4 ranks, with the raw repeats (an even count, for the median rule) ----
O=$TMP/o2o/network
$MPIRUN -np 4 "$B" -t one_to_one -n 10 -b 0 -e 4097 -s 1024 --raw -f "$O" >/dev/null 2>"$TMP/progress.txt"
check_eq "one_to_one runs at np 4" "$?" "0"
check_eq "statistics equal the raw repeats, diagonal 0, no NaN" "$($PY "$TMP/verify.py" "$O" 4 0,1024,2048,3072,4096 10)" "ok"
check "info reads the result" "$BIN/mpilens" info --json "$O"
"$BIN/mpilens" info --json "$O" >"$TMP/o2o.json" 2>"$TMP/info.err"
check_eq "info: procs" "$(infokey "$TMP/o2o.json" 'd["procs"]')" "4"
check_eq "info: lengths" "$(infokey "$TMP/o2o.json" 'd["lengths"]')" "[0, 1024, 2048, 3072, 4096]"
check_eq "info: mode" "$(infokey "$TMP/o2o.json" 'd["mode"]')" "one_to_one"
check_eq "info: repeats" "$(infokey "$TMP/o2o.json" 'd["repeats"]')" "10"
check_eq "info: no warnings" "$(infokey "$TMP/o2o.json" 'd["warnings"]')" "[]"
check_eq "info: min <= median" "$(infokey "$TMP/o2o.json" 'd["stats"]["min"]["median"] <= d["stats"]["median"]["median"]')" "True"
check_eq "info: min <= average" "$(infokey "$TMP/o2o.json" 'd["stats"]["min"]["max"] <= d["stats"]["average"]["max"]')" "True"
check_eq "info: raw repeats" "$(infokey "$TMP/o2o.json" 'd["raw_repeats"]')" "10"
check_eq "hosts file: one line per rank" "$(wc -l <"${O}_hosts.txt")" "4"
check_eq "hosts file: this host" "$(sort -u "${O}_hosts.txt")" "$(hostname)"
h=$(ncdump -h "${O}_median.nc")
check_match "attribute: tool version" "$h" "mpilens_version = \"[0-9]+\.[0-9]+"
check_match "attribute: MPI library" "$h" "mpi_library_version = \"(Open MPI|MPICH|Intel)"
check_match "attribute: date" "$h" "date = \"[0-9]{4}-[0-9]{2}-[0-9]{2} "
check_match "attribute: command line" "$h" "command_line = \".*mpilens-bench -t one_to_one -n 10 -b 0 -e 4097"
check_match "attribute: delay definition" "$h" "delay_definition = \"one-way delay .*row = receiver"
check_match "attribute: statistics" "$h" "population standard deviation"
check_match "attribute: diagonal" "$h" "diagonal = \"0 in every statistic"
check_match "classic int test_type = 1" "$(ncdump -v test_type "${O}_median.nc")" "test_type = 1 ;"
check_match "network_test2 scalars" "$(ncdump -v end_mes_length,num_repeates "${O}_min.nc" | tr '\n' ' ')" "end_mes_length = 4097 ;.*num_repeates = 10 ;"
check_match "progress: one line per length" "$(grep -c 'done (' "$TMP/progress.txt")" "^5$"
check_match "progress: pairs and time left" "$(grep 'done (5/5)' "$TMP/progress.txt")" "pairs 60/60, .* s left"

# ---- every other mode at 2 to 4 ranks: short sweeps, raw repeats, same checks ----
VERIFY= MODES=
while read -r mode np extra def; do
    M=$TMP/$mode/network
    [ "$extra" = - ] && extra= || extra=${extra//_/ }
    # shellcheck disable=SC2086
    $MPIRUN -np "$np" "$B" -t "$mode" -n 6 -b 0 -e 2049 -s 1024 --raw $extra -f "$M" </dev/null >/dev/null 2>"$TMP/$mode.err"
    check_eq "$mode np $np runs" "$?" "0"
    VERIFY="$VERIFY $M $np 0,1024,2048 6"
    MODES="$MODES $mode"
    "$BIN/mpilens" info --json "$M" >"$TMP/$mode.json" 2>/dev/null
    check_eq "$mode: info mode" "$(infokey "$TMP/$mode.json" 'd["mode"]')" "$mode"
    check_eq "$mode: info no warnings" "$(infokey "$TMP/$mode.json" 'd["warnings"]')" "[]"
    check_eq "$mode: hosts file" "$(wc -l <"${M}_hosts.txt")" "$np"
    check_match "$mode: delay definition" "$(ncdump -h "${M}_min.nc")" "delay_definition = \".*$def"
done <<'MODES'
all_to_all 3 - every rank sends to and receives from every other
async_one_to_one 4 - MPI_Isend and an MPI_Irecv of l bytes
send_recv_and_recv_send 3 - all of the half round trip
noise 4 -l_512_-m_2_-p_2 exchange -m nonblocking messages
noise_blocking 4 -l_512_-m_2_-p_2 blocking messages \(MPI_Sendrecv\)
bcast 3 - row = root, column = receiver
put 2 - MPI_Put and MPI_Win_unlock
get 4 - MPI_Get and MPI_Win_unlock
MODES
# shellcheck disable=SC2086
$PY "$TMP/verify.py" $VERIFY >"$TMP/verify.out"
i=0
for mode in $MODES; do
    i=$((i + 1))
    check_eq "$mode: statistics equal the raw repeats, diagonal 0, no NaN" "$(sed -n "${i}p" "$TMP/verify.out")" "ok"
done
# send_recv_and_recv_send: half a round trip in all four, so the median is not twice the average.
# One-sided: a preemption stall (~4 ms) inflates the average of 6 repeats, never the median;
# the other direction is covered by "statistics equal the raw repeats" above.
check_eq "send_recv: median and average are the same quantity" \
    "$(infokey "$TMP/send_recv_and_recv_send.json" 'd["stats"]["median"]["median"] / d["stats"]["average"]["median"] < 1.5')" "True"
check_match "noise parameters in the file" "$(ncdump -v noise_mes_length,num_noise_mes,num_noise_proc "$TMP/noise/network_median.nc" | tr '\n' ' ')" \
    "noise_mes_length = 512 ;.*num_noise_mes = 2 ;.*num_noise_proc = 2 ;"

# ---- never overwrite without --force ----
sum0=$(cat "$O"_*.nc | md5sum)
check_exit "existing result refused" 1 $MPIRUN -np 2 "$B" -t one_to_one -n 2 -b 0 -e 10 -s 5 -f "$O"
check_match "refusal message" "$(cat "$TMP/err")" "network: a result with this prefix exists; use --force"
check_eq "existing files unchanged" "$(cat "$O"_*.nc | md5sum)" "$sum0"
# --force, network_test2's long options and --progress (drawn in place), in one run
$MPIRUN -np 2 "$B" --type one_to_one --num_iterations 3 --begin 0 --end 3 --step 1 --file "$O" --force \
    --progress >/dev/null 2>"$TMP/inplace.txt"
check_eq "--force overwrites" "$?" "0"
"$BIN/mpilens" info --json "$O" >"$TMP/forced.json" 2>/dev/null
check_eq "overwritten: 2 processes" "$(infokey "$TMP/forced.json" 'd["procs"]')" "2"
check_eq "long options: lengths" "$(infokey "$TMP/forced.json" 'd["lengths"]')" "[0, 1, 2]"
check_eq "long options: repeats" "$(infokey "$TMP/forced.json" 'd["repeats"]')" "3"
check "overwritten: the stale raw repeats are gone" test ! -e "${O}_all.nc"
check_match "--progress draws in place" "$(tr '\r' '@' <"$TMP/inplace.txt")" "@mpilens-bench: length 2 B \(3/3\)"

# ---- bad usage: a clear message from rank 0 once, non-zero status, nothing written ----
check_exit "unknown mode" 2 $MPIRUN -np 3 "$B" -t one_to_many -f "$TMP/bad/network"
check_match "unknown mode message" "$(cat "$TMP/err")" "unknown mode 'one_to_many' \(one_to_one, all_to_all"
check_eq "message printed once" "$(grep -c "unknown mode" "$TMP/err")" "1"
check_exit "single process" 2 $MPIRUN -np 1 "$B" -t one_to_one -f "$TMP/bad/network"
check_match "single process message" "$(cat "$TMP/err")" "needs at least 2 MPI processes, got 1"
check_exit "end before begin" 2 $MPIRUN -np 2 "$B" -b 100 -e 50 -s 10 -f "$TMP/bad/network"
check_match "bad range message" "$(cat "$TMP/err")" "bad length range: begin 100, end 50"
# option errors are found before any communication: a singleton run (no mpirun) shows them
check_exit "zero step" 2 "$B" -b 0 -e 50 -s 0 -f "$TMP/bad/network"
check_match "zero step message" "$(cat "$TMP/err")" "step 0; need 0 <= begin < end and step > 0"
check_exit "negative begin" 2 "$B" -b -8 -e 50 -s 1 -f "$TMP/bad/network"
check_exit "non-numeric repeats" 2 "$B" -n ten -f "$TMP/bad/network"
check_match "bad value message" "$(cat "$TMP/err")" "bad value 'ten' for -n/--num_iterations"
check_exit "unknown option" 2 "$B" --colour -f "$TMP/bad/network"
check_match "unknown option message" "$(cat "$TMP/err")" "unknown option --colour"
check_exit "missing value" 2 "$B" -f
check_match "missing value message" "$(cat "$TMP/err")" "option -f/--file needs a value"
check_exit "too many noise processes" 2 $MPIRUN -np 3 "$B" -t noise -p 2 -f "$TMP/bad/network"
check_match "noise processes message" "$(cat "$TMP/err")" "-p 2 noise processes, but only 1 ranks"
check "nothing written on bad usage" test ! -e "$TMP/bad"
check_exit "help" 0 "$B" -h
check_match "help documents the fixes" "$(cat "$TMP/out")" "warm-up repeats run before the timed ones"
check_match "help: example" "$(cat "$TMP/out")" "mpirun -np 4 mpilens-bench -t one_to_one"
check_exit "version" 0 "$B" --version
check_match "version names the MPI library" "$(cat "$TMP/out")" "^mpilens-bench [0-9.]+ \(.+\)"

# ---- a run killed after 3 lengths leaves files holding those 3 ----
K=$TMP/killed/network
$MPIRUN -np 3 "$B" -t one_to_one -n 5 -b 0 -e 100000 -s 1000 --die-after-length 3 -f "$K" >/dev/null 2>&1
check_match "killed run fails" "$?" "^[1-9][0-9]*$"
check "killed run: info reads it" "$BIN/mpilens" info --json "$K"
check_eq "killed run: the lengths done" "$("$BIN/mpilens" info --json "$K" 2>/dev/null | $PY -c 'import json,sys; print(json.load(sys.stdin)["lengths"])')" "[0, 1000, 2000]"
check_eq "killed run: values sound" "$($PY "$TMP/verify.py" "$K" 3 0,1000,2000 5)" "ok"

finish test_bench
