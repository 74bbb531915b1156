# mpilens-bench -t p2p under real mpirun: the CSV columns, the relations between them recomputed
# from the raw iteration times kept in the NetCDF file (L = T/2c, B = k*s/T, M = k/T), sane
# figures (latency at 0 B below 100 us, bandwidth growing with size), pair selection and labels,
# and the error paths.
. tests/lib.sh
PY=/usr/bin/python3
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe"
B=$BIN/mpilens-bench

P=$TMP/sweep/pair
$MPIRUN -np 2 "$B" -t p2p -n 500 -e 1048577 -f "$P" </dev/null >/dev/null 2>"$TMP/sweep.err"
check_eq "p2p at np 2 runs" "$?" "0"
check_match "p2p: headline on stderr" "$(cat "$TMP/sweep.err")" "latency [0-9.]+ (ns|µs|ms|s) at 0 B, bandwidth .* at 1048576 B"
check_eq "CSV header" "$(head -1 "${P}_p2p.csv")" \
    "size_bytes,latency_s,latency_min_s,latency_median_s,latency_max_s,bandwidth_Bps,bandwidth_min_Bps,bandwidth_median_Bps,bandwidth_max_Bps,msg_rate_per_s,msg_rate_min_per_s,msg_rate_median_per_s,msg_rate_max_per_s,bw_time_s,window,round_trips_per_iter,lat_iters,bw_iters,pair,kind,rank_a,rank_b,host_a,host_b"
check_eq "CSV sizes: 0 then doubling to 1 MiB" "$(tail -n +2 "${P}_p2p.csv" | cut -d, -f1 | tr '\n' ' ')" \
    "0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536 131072 262144 524288 1048576 "
check_eq "CSV labels" "$(tail -n +2 "${P}_p2p.csv" | cut -d, -f20-23 | sort -u)" "intra,0,1,$(hostname)"
check_eq "iterations: OSU's 10x fewer round trips above 8 KiB" "$(awk -F, '$1 == 8192 || $1 == 16384 { printf "%sx%s/%s ", $17, $16, $18 }' "${P}_p2p.csv")" "500x10/50 500x1/10 "

# Every relation recomputed from the raw times in the .nc file, and the CSV equal to the .nc.
$PY - "$P" >"$TMP/rel.txt" <<'PYEOF'
import sys, csv, numpy as np
from scipy.io import netcdf_file
prefix = sys.argv[1]
f = netcdf_file(prefix + "_p2p.nc", "r", mmap=False)
v = {k: f.variables[k][:].copy() for k in f.variables}
k = int(f.window)
f.close()
rows = list(csv.DictReader(open(prefix + "_p2p.csv")))
bad = []
def close(a, b, what, tol=2e-8):
    if not np.isclose(a, b, rtol=tol, atol=0):
        bad.append("%s: %r vs %r" % (what, a, b))
for q, row in enumerate(rows):
    s = int(row["size_bytes"])
    nl, nb, c = int(v["lat_iters"][0, q]), int(v["bw_iters"][0, q]), int(v["round_trips_per_iter"][q])
    if c != int(row["round_trips_per_iter"]) or c != (10 if s <= 8192 else 1):
        bad.append("%d B: %d round trips per iteration" % (s, c))
    rt, T = v["lat_iter_time"][0, q, :nl], v["bw_window_time"][0, q, :nb]
    if not (np.isfinite(rt).all() and np.isfinite(T).all() and (rt > 0).all() and (T > 0).all()):
        bad.append("%d B: missing or non-positive times" % s)
        continue
    if np.isfinite(v["lat_iter_time"][0, q, nl:]).any():
        bad.append("%d B: times beyond the iteration count" % s)
    # L = T / 2c for an iteration of c round trips; the mean over all c * nl round trips
    close(float(row["latency_s"]), rt.sum() / (2 * c * nl), "%d B latency" % s)
    close(float(row["latency_min_s"]), rt.min() / (2 * c), "%d B latency min" % s)
    close(float(row["latency_median_s"]), np.median(rt) / (2 * c), "%d B latency median" % s)
    close(float(row["latency_max_s"]), rt.max() / (2 * c), "%d B latency max" % s)
    # B = k*s/T and M = k/T, T the window time; the mean over the run is k*s*c / sum T
    close(float(row["bw_time_s"]), T.mean(), "%d B window time" % s)
    if s > 0:
        close(float(row["bandwidth_Bps"]), k * s * nb / T.sum(), "%d B bandwidth" % s)
        close(float(row["bandwidth_Bps"]) * float(row["bw_time_s"]), k * s, "%d B B*T = k*s" % s, 1e-7)
        close(float(row["bandwidth_median_Bps"]), k * s / np.median(T), "%d B bandwidth median" % s)
        close(float(row["bandwidth_min_Bps"]), k * s / T.max(), "%d B bandwidth min" % s)
        close(float(row["bandwidth_max_Bps"]), k * s / T.min(), "%d B bandwidth max" % s)
    elif float(row["bandwidth_Bps"]) != 0:
        bad.append("0 B: bandwidth not 0")
    close(float(row["msg_rate_per_s"]), k * nb / T.sum(), "%d B message rate" % s)
    close(float(row["msg_rate_median_per_s"]), k / np.median(T), "%d B message rate median" % s)
    for name in ("latency", "bandwidth", "msg_rate"):
        u = "_s" if name == "latency" else "_Bps" if name == "bandwidth" else "_per_s"
        lo, med, hi, mean = (float(row[name + x + u]) for x in ("_min", "_median", "_max", ""))
        if not (lo <= med <= hi and lo <= mean * (1 + 1e-9) and mean <= hi * (1 + 1e-9)):
            bad.append("%d B %s: min %g median %g max %g mean %g out of order" % (s, name, lo, med, hi, mean))
    for col in ("latency_s", "bandwidth_median_Bps", "msg_rate_max_per_s", "bw_time_s"):
        close(float(row[col]), float(v[col][0, q]), "%d B %s: csv vs nc" % (s, col), 1e-8)
print("ok" if not bad else "\n".join(bad[:5]))
# sanity of the figures themselves
lat0 = float(rows[0]["latency_median_s"])
print("lat0_ok" if 0 < lat0 < 100e-6 else "lat0 %g" % lat0)
PYEOF
check_eq "relations hold against the raw times" "$(sed -n 1p "$TMP/rel.txt")" "ok"
check_eq "latency at 0 B below 100 us" "$(sed -n 2p "$TMP/rel.txt")" "lat0_ok"

# Bandwidth grows with size: the best window of each size (preemption stalls on this shared
# machine only ever slow a window down, so the best shows the transport), ranked against size
# from 1 KiB to 1 MiB (the rank correlation is printed, not judged: shared memory has dips, e.g.
# at 64 KiB, that OSU's osu_bw shows too, and load scrambles the middle sizes), and the best of
# 256 KiB..1 MiB must be over 2x the best of 64..256 B (5.9x here). Not 1..2 KiB: Open MPI's
# shared-memory transport buffers messages below its 4 KiB eager limit, and on this machine the
# best 1-2 KiB windows reached 12.9-18.6 GB/s against 15.7-16.4 GB/s at 256 KiB..1 MiB, so a
# ratio there measures the eager buffers, not whether bandwidth grows. Several sizes per group,
# so one stalled size cannot decide, and under heavy load one fresh sweep is allowed.
cat >"$TMP/bw.py" <<'PYEOF'
import sys, csv, numpy as np
rows = list(csv.DictReader(open(sys.argv[1] + "_p2p.csv")))
sizes = np.array([int(r["size_bytes"]) for r in rows])
bw = np.array([float(r["bandwidth_max_Bps"]) for r in rows])
sel = (sizes >= 1024) & (sizes <= 1 << 20)
ranks = lambda x: np.argsort(np.argsort(x))
rho = np.corrcoef(ranks(sizes[sel]), ranks(bw[sel]))[0, 1]
grow = bw[(sizes >= 1 << 18) & (sizes <= 1 << 20)].max() / bw[(sizes >= 64) & (sizes <= 256)].max()
# rho is printed for diagnosis only: under heavy load it fell to 0.44 while growth stayed 4.4x
print("bw_ok" if grow > 2 else "bw rho %.2f growth %.2f" % (rho, grow))
PYEOF
bw=$($PY "$TMP/bw.py" "$P")
if [ "$bw" != bw_ok ]; then
    echo "test_p2p: bandwidth check failed once ($bw), measuring again" >&2
    $MPIRUN -np 2 "$B" -t p2p -n 500 -e 1048577 -f "$TMP/again/pair" </dev/null >/dev/null 2>&1
    bw="$bw; again: $($PY "$TMP/bw.py" "$TMP/again/pair")"
    case "$bw" in *"again: bw_ok") bw=bw_ok ;; esac
fi
check_eq "bandwidth grows from 64-256 B to 256 KiB-1 MiB" "$bw" "bw_ok"
# The check can fail: the same CSV with the bandwidth of a formula that forgot s (B = k/T,
# i.e. the message rate) does not pass it.
mkdir -p "$TMP/flat"
awk -F, -v OFS=, 'NR > 1 { $9 = $13 } 1' "${P}_p2p.csv" >"$TMP/flat/pair_p2p.csv"
check_match "bandwidth check rejects a size-blind formula" "$($PY "$TMP/bw.py" "$TMP/flat/pair")" "^bw rho"
h=$(ncdump -h "${P}_p2p.nc")
check_match "nc: window attribute" "$h" ":window = 64 ;"
check_match "nc: MPI library" "$h" "mpi_library_version = \"(Open MPI|MPICH|Intel)"
check_match "nc: command line" "$h" "command_line = \".*-t p2p -n 500 -e 1048577"
check_match "nc: bandwidth definition" "$h" "bandwidth = k\*s / T, message rate = k / T"

# ---- pair choice: --pair with rank 0 not in it, and --pairs per-node on one host ----
$MPIRUN -np 3 "$B" -t p2p -n 40 -e 4097 --pair 2,1 -f "$TMP/p21/pair" </dev/null >/dev/null 2>&1
check_eq "--pair 2,1 runs" "$?" "0"
check_eq "--pair 2,1: ranks in the CSV" "$(tail -n +2 "$TMP/p21/pair_p2p.csv" | cut -d, -f21,22 | sort -u)" "2,1"
check_eq "--pair 2,1: 14 sizes" "$(tail -n +2 "$TMP/p21/pair_p2p.csv" | wc -l)" "14"
$MPIRUN -np 3 "$B" -t p2p -n 40 -e 4097 --pairs per-node -f "$TMP/node/pair" </dev/null >/dev/null 2>"$TMP/node.err"
check_eq "--pairs per-node runs" "$?" "0"
check_match "per-node: says there is no second node" "$(cat "$TMP/node.err")" "one node \($(hostname)\): there is no second node, so no inter-node pair"
check_eq "per-node: the intra-node pair, labelled with the host" \
    "$(tail -n +2 "$TMP/node/pair_p2p.csv" | cut -d, -f19-24 | sort -u)" "0,intra,0,1,$(hostname),$(hostname)"
check_match "per-node: host in the nc" "$(ncdump -v host_a,kind "$TMP/node/pair_p2p.nc" | tr '\n' ' ')" "host_a = +\"$(hostname)\" ;.*kind = +\"intra\""

# ---- errors ----
check_exit "existing result refused" 1 $MPIRUN -np 2 "$B" -t p2p -e 2 -f "$P"
check_match "refusal message" "$(cat "$TMP/err")" "pair: a result with this prefix exists; use --force"
check_exit "pair outside the job" 2 $MPIRUN -np 2 "$B" -t p2p --pair 0,5 -f "$TMP/bad/pair"
check_match "pair message" "$(cat "$TMP/err")" "--pair 0,5: need two different ranks below 2"
check_exit "same rank twice" 2 "$B" -t p2p --pair 1,1 -f "$TMP/bad/pair"
check_match "same rank message" "$(cat "$TMP/err")" "--pair 1,1: need two different ranks"
check_exit "bad --pairs" 2 "$B" -t p2p --pairs per-rack -f "$TMP/bad/pair"
check_match "bad --pairs message" "$(cat "$TMP/err")" "bad value 'per-rack' for --pairs"
check_exit "bad --pair syntax" 2 "$B" -t p2p --pair 1 -f "$TMP/bad/pair"
check_exit "p2p end 0" 2 "$B" -t p2p -e 0 -f "$TMP/bad/pair"
check "nothing written on errors" test ! -e "$TMP/bad"

finish test_p2p
