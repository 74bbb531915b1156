# mpilens-bench -t bisection under real mpirun at 2, 4 and 5 ranks: the CSV has exactly the
# documented columns and one row per round, pairs = floor(N/2), bytes = pairs x 2 x size x
# window, bandwidth = bytes / seconds, and the slowest pair, the round's seconds and the
# matching (every flow across the split, each rank receiving once, one rank out for odd N)
# are recomputed by python3-netcdf4 from the per-flow values of the .nc file.
. tests/lib.sh
PY=/usr/bin/python3
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench
SIZE=65536 WINDOW=64 ROUNDS=3

# check.py PREFIX N ROUNDS SIZE WINDOW: "ok" or the problems found
cat >"$TMP/check.py" <<'PYEOF'
import sys, csv, numpy as np
from netCDF4 import Dataset
prefix, N, R, S, K = sys.argv[1], *map(int, sys.argv[2:6])
bad = []
rows = list(csv.DictReader(l for l in open(prefix + "_bisection.csv") if not l.startswith("#")))
d = Dataset(prefix + "_bisection.nc")
v = lambda n: np.array(d.variables[n][:])
pairs = N // 2
if len(rows) != R:
    bad.append("%d rows, want %d" % (len(rows), R))
fs, fr, ft, fb, side = v("flow_sender"), v("flow_receiver"), v("flow_seconds"), v("flow_Bps"), v("side")
if fs.shape != (R, 2 * pairs):
    bad.append("flow shape %s" % (fs.shape,))
for r, row in enumerate(rows):
    if int(row["round"]) != r or int(row["pairs"]) != pairs:
        bad.append("round %d: round/pairs %s/%s" % (r, row["round"], row["pairs"]))
    want_bytes = pairs * 2 * S * K
    if int(row["bytes"]) != want_bytes or v("bytes")[r] != want_bytes:
        bad.append("round %d: bytes %s, want %d" % (r, row["bytes"], want_bytes))
    sec, bw = float(row["seconds"]), float(row["bandwidth_Bps"])
    if not (sec > 0 and abs(bw - want_bytes / sec) <= 1e-6 * bw):
        bad.append("round %d: bandwidth %g != bytes / seconds %g" % (r, bw, want_bytes / sec))
    # per flow: the rate is the window over its time; the round lasts until the last flow ends
    if not np.allclose(fb[r], S * K / ft[r], rtol=1e-12):
        bad.append("round %d: flow_Bps != size x window / flow_seconds" % r)
    if abs(ft[r].max() - sec) > 1e-6 * sec:
        bad.append("round %d: seconds %g, slowest flow %g" % (r, sec, ft[r].max()))
    m = int(np.argmin(fb[r]))
    if abs(fb[r][m] - float(row["slowest_pair_Bps"])) > 1e-6 * fb[r][m] or \
       (int(fs[r][m]), int(fr[r][m])) != (int(row["slowest_sender"]), int(row["slowest_receiver"])):
        bad.append("round %d: slowest %s %s->%s, .nc has %g %d->%d" % (r, row["slowest_pair_Bps"],
                   row["slowest_sender"], row["slowest_receiver"], fb[r][m], fs[r][m], fr[r][m]))
    # the matching: each flow crosses the split, each playing rank receives and sends once
    if not all(side[r][a] >= 0 and side[r][b] >= 0 and side[r][a] != side[r][b] for a, b in zip(fs[r], fr[r])):
        bad.append("round %d: a flow does not cross the split" % r)
    if sorted(fr[r]) != sorted(fs[r]) or len(set(fr[r])) != 2 * pairs:
        bad.append("round %d: ranks do not send and receive once each" % r)
    if (side[r] == 0).sum() != pairs or (side[r] == 1).sum() != pairs:
        bad.append("round %d: halves %d/%d" % (r, (side[r] == 0).sum(), (side[r] == 1).sum()))
    out = int(v("sitting_out")[r])
    if (N % 2 and (out < 0 or side[r][out] != -1 or out in fr[r])) or (N % 2 == 0 and out != -1):
        bad.append("round %d: sitting_out %d" % (r, out))
    # ranks share the one host of the test: the node's share is everything received
    if "node_share" in d.variables and abs(v("node_share")[r].sum() - 1) > 1e-12:
        bad.append("round %d: node shares sum to %g" % (r, v("node_share")[r].sum()))
if "node_share" not in d.variables:
    bad.append("no per-node variables although all ranks share one host")
print("ok" if not bad else "; ".join(bad))
PYEOF

for np in 2 4 5; do
    O=$TMP/b$np/bis
    $MPIRUN -np $np "$B" -t bisection -r $ROUNDS -s 64KiB -f "$O" </dev/null >/dev/null 2>"$TMP/b$np.err"
    check_eq "bisection np $np runs" "$?" "0"
    check_eq "np $np: CSV header" "$(grep -v '^#' "${O}_bisection.csv" | head -n 1)" \
        "round,pairs,bytes,seconds,bandwidth_Bps,slowest_pair_Bps,slowest_sender,slowest_receiver"
    check_eq "np $np: rows = rounds" "$(($(grep -vc '^#' "${O}_bisection.csv") - 1))" "$ROUNDS"
    check_eq "np $np: values consistent with the .nc" "$($PY "$TMP/check.py" "$O" $np $ROUNDS $SIZE $WINDOW 2>&1)" "ok"
done
check_match "odd rank count: the log says one rank sits out" "$(cat "$TMP/b5.err")" "5 ranks is odd: one rank sits out each round"
check_eq "even rank count: nothing about sitting out" "$(grep -c 'sits out' "$TMP/b4.err")" "0"

# Deterministic: the default seed twice gives the same matchings; --shuffle another.
O=$TMP/b4again/bis
$MPIRUN -np 4 "$B" -t bisection -r $ROUNDS -s 64KiB -f "$O" </dev/null >/dev/null 2>&1
match() { $PY -c 'import sys; from netCDF4 import Dataset; print(Dataset(sys.argv[1]).variables["side"][:].tolist())' "$1"; }
check_eq "default seed: the same rounds twice" "$(match "${O}_bisection.nc")" "$(match "$TMP/b4/bis_bisection.nc")"
O=$TMP/b4seed/bis
$MPIRUN -np 4 "$B" -t bisection -r 6 -s 1K --shuffle 7 -f "$O" </dev/null >/dev/null 2>&1
check_eq "--shuffle 7 runs, 6 rounds" "$(($(grep -vc '^#' "${O}_bisection.csv") - 1))" "6"
check_eq "--shuffle 7: seed attribute" "$(ncdump -h "${O}_bisection.nc" | sed -n 's/.*:seed = "\(.*\)" ;/\1/p')" "7"
check "--shuffle 7: consistent" test "$($PY "$TMP/check.py" "$O" 4 6 1024 $WINDOW)" = ok

# Refusals before anything runs (exit 2), and an existing result kept without --force.
O=$TMP/b4/bis
check_exit "existing result refused" 1 $MPIRUN -np 2 "$B" -t bisection -r 1 -s 1K -f "$O"
check_match "refusal names --force" "$(cat "$TMP/err")" "use --force"
check_exit "--force overwrites" 0 $MPIRUN -np 2 "$B" -t bisection -r 1 -s 1K --force -f "$O"
check_eq "--force: the new result (1 round)" "$(($(grep -vc '^#' "${O}_bisection.csv") - 1))" "1"
check_exit "-r without bisection" 2 $MPIRUN -np 2 "$B" -t one_to_one -r 3 -f "$TMP/x"
check_exit "bad size" 2 $MPIRUN -np 2 "$B" -t bisection -s 64XB -f "$TMP/x"
check_match "bad size message" "$(cat "$TMP/err")" "bad value '64XB' for -s/--step \(bisection: a message size"
check_exit "-r 0" 2 $MPIRUN -np 2 "$B" -t bisection -r 0 -f "$TMP/x"
check_exit "--retest with bisection" 2 $MPIRUN -np 2 "$B" -t bisection --retest 2 -f "$TMP/x"
check_exit "--schedule parallel with bisection" 2 $MPIRUN -np 2 "$B" -t bisection --schedule parallel -f "$TMP/x"
check_eq "no file written by a refused run" "$(ls "$TMP" | grep -c '^x_')" "0"
finish test_bisection
