# mpilens-bench --schedule parallel under real mpirun at 3, 4 and 5 ranks (odd counts have a
# bye each round): every ordered pair's cell is finite and positive, the statistics equal the
# raw repeats (numpy recomputes them), the schedule's attributes are in the files, and the
# modes that cannot run in parallel are refused with a clear message before anything runs.
. tests/lib.sh
PY=/usr/bin/python3
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench

# check.py PREFIX P NLEN N [...]: "ok" or the problems, one line per prefix
cat >"$TMP/check.py" <<'PYEOF'
import sys, numpy as np
from scipy.io import netcdf_file
def var(path):
    f = netcdf_file(path, "r", mmap=False)
    d = f.variables["data"][:].copy()
    f.close()
    return d
def check(prefix, P, nlen, n):
    bad = []
    off = ~np.eye(P, dtype=bool)
    st = {s: var("%s_%s.nc" % (prefix, s)) for s in ("average", "median", "deviation", "min")}
    for s, d in st.items():
        if d.shape != (nlen, P, P):
            return "%s: shape %s" % (s, d.shape)
        if not np.isfinite(d).all():
            bad.append("%s: not finite" % s)
        if (d[:, ~off] != 0).any():
            bad.append("%s: diagonal not 0" % s)
        if s != "deviation" and not (d[:, off] > 0).all():
            bad.append("%s: %d cells off the diagonal not positive" % (s, (d[:, off] <= 0).sum()))
    raw = var(prefix + "_all.nc")
    if raw.shape != (nlen, P, P, n):
        return "raw shape %s" % (raw.shape,)
    r = raw[:, off, :]
    if not (r > 0).all():
        bad.append("%d raw repeats off the diagonal not positive (a pair not measured?)" % (r <= 0).sum())
    want = {"average": r.mean(axis=2), "median": np.median(r, axis=2),
            "deviation": r.std(axis=2), "min": r.min(axis=2)}
    for s, w in want.items():
        if not np.allclose(st[s][:, off], w, rtol=1e-9, atol=1e-15):
            bad.append("%s differs from the raw repeats" % s)
    return "ok" if not bad else "; ".join(bad)
a = sys.argv[1:]
for g in range(0, len(a), 4):
    print(check(a[g], int(a[g + 1]), int(a[g + 2]), int(a[g + 3])))
PYEOF
attr() { ncdump -h "$1" | sed -n "s/^[[:space:]]*:$2 = \"\(.*\)\" ;$/\1/p"; }

# ---- one_to_one at 3, 4 and 5 ranks: N rounds for odd N, N-1 for even ----
ARGS=
for np in 3 4 5; do
    O=$TMP/o2o$np/network
    $MPIRUN -np $np "$B" --schedule parallel -t one_to_one -n 6 -b 0 -e 2049 -s 1024 --raw -f "$O" \
        </dev/null >/dev/null 2>"$TMP/o2o$np.err"
    check_eq "parallel one_to_one np $np runs" "$?" "0"
    ARGS="$ARGS $O $np 3 6"
    check_eq "np $np: schedule attribute" "$(attr "${O}_median.nc" schedule)" "parallel"
    check_eq "np $np: rounds attribute" "$(attr "${O}_min.nc" rounds)" "$((np % 2 ? np : np - 1))"
    check_eq "np $np: seed attribute" "$(attr "${O}_average.nc" shuffle_seed)" "none"
    check_match "np $np: progress counts every ordered pair" "$(grep 'done (3/3)' "$TMP/o2o$np.err")" \
        "pairs $((3 * np * (np - 1)))/$((3 * np * (np - 1)))"
    "$BIN/mpilens" info --json "$O" >"$TMP/info$np.json" 2>/dev/null
    check_eq "np $np: info reads the same cube layout" \
        "$($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["procs"], d["lengths"], d["mode"], d["warnings"])' "$TMP/info$np.json")" \
        "$np [0, 1024, 2048] one_to_one []"
done

# ---- the other pair modes, shuffled, at 4 and 5 ranks ----
while read -r mode np seed; do
    O=$TMP/$mode/network
    $MPIRUN -np $np "$B" --schedule parallel --shuffle "$seed" -t "$mode" -n 4 -b 0 -e 1025 -s 1024 --raw \
        -f "$O" </dev/null >/dev/null 2>"$TMP/$mode.err"
    check_eq "parallel $mode np $np runs" "$?" "0"
    ARGS="$ARGS $O $np 2 4"
    check_eq "$mode: seed attribute" "$(attr "${O}_median.nc" shuffle_seed)" "$seed"
    check_eq "$mode: mode kept" "$(ncdump -v test_type "${O}_median.nc" | grep -c 'test_type = ')" "1"
done <<'MODES'
async_one_to_one 4 7
send_recv_and_recv_send 5 18446744073709551615
put 4 1
get 5 42
MODES

# shellcheck disable=SC2086
$PY "$TMP/check.py" $ARGS >"$TMP/check.out"
i=0
for name in o2o3 o2o4 o2o5 async_one_to_one send_recv_and_recv_send put get; do
    i=$((i + 1))
    check_eq "$name: every off-diagonal cell finite and positive, statistics = raw repeats" \
        "$(sed -n "${i}p" "$TMP/check.out")" "ok"
done

# ---- serial stays the default and says so; it has no rounds or seed ----
S=$TMP/serial/network
$MPIRUN -np 2 "$B" -n 2 -b 0 -e 2 -s 1 -f "$S" </dev/null >/dev/null 2>&1
check_eq "serial run" "$?" "0"
check_eq "serial: schedule attribute" "$(attr "${S}_median.nc" schedule)" "serial"
check_eq "serial: no rounds attribute" "$(attr "${S}_median.nc" rounds)" ""

# ---- refused combinations: exit 2, one message, nothing written ----
while read -r args want; do
    args=${args//+/ }
    # shellcheck disable=SC2086
    check_exit "refused: $args" 2 $MPIRUN -np 2 "$B" $args -f "$TMP/bad/network" </dev/null
    check_match "refusal message: $args" "$(cat "$TMP/err")" "$want"
    check_eq "refusal printed once: $args" "$(grep -c 'mpilens-bench:' "$TMP/err")" "1"
done <<'BAD'
--schedule+parallel+-t+noise cannot run mode noise: its noise comes from ranks outside
--schedule+parallel+-t+noise_blocking cannot run mode noise_blocking
--schedule+parallel+-t+all_to_all cannot run mode all_to_all: it is a collective
--schedule+parallel+-t+bcast cannot run mode bcast
--schedule+parallel+-t+p2p cannot run mode p2p
--shuffle+5 --shuffle 5: only the parallel schedule is shuffled
--schedule+both bad value 'both' for --schedule
--schedule+parallel+--shuffle+x bad value 'x' for --shuffle
BAD
check "nothing written on refusal" test ! -e "$TMP/bad"
check_exit "help" 0 "$B" --help
check_match "help: the schedule and what it refuses" "$(tr '\n' ' ' <"$TMP/out")" \
    "--schedule serial\|parallel .*refused: noise, noise_blocking"

finish test_bench_parallel
