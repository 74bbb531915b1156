# mpilens synth --torus: the cube's delays follow the hop count (read back by scipy and
# checked against hops computed here), the truth file names the torus, and bad shapes fail
# with a message naming them.
. tests/lib.sh
PY=/usr/bin/python3
check "synth --torus" "$BIN/mpilens" synth -o "$TMP/t/network" --torus 3,2,2 --noise 0 --truth "$TMP/t/truth.json"
got=$($PY - "$TMP/t/network" "$TMP/t/truth.json" <<'PYEOF'
import json, sys
from scipy.io import netcdf_file
m = netcdf_file(sys.argv[1] + "_min.nc", "r", mmap=False).variables["data"][:].copy()
t = json.load(open(sys.argv[2]))
X, Y, Z = t["torus"]
def coord(r): return (r % X, r // X % Y, r // (X * Y))
def hops(a, b): return sum(min(abs(p - q), D - abs(p - q)) for p, q, D in zip(coord(a), coord(b), (X, Y, Z)))
n = X * Y * Z
# with no noise, the delay at length 0 is 1.9e-6 + hops * torus_hop
bad = sum(abs(m[0, i, j] - (1.9e-6 + hops(i, j) * t["torus_hop"])) > 1e-15 for i in range(n) for j in range(n) if i != j)
print(n, t["procs"], t["nodes"], bad)
PYEOF
)
check_eq "12 ranks, 12 nodes, delays = latency + hops x hop" "$got" "12 12 12 0"
check_exit "procs disagree" 1 "$BIN/mpilens" synth -o "$TMP/x/network" --torus 3,2,2 --procs 16
check_match "procs message" "$(cat "$TMP/err")" "torus 3 x 2 x 2 has 12 nodes, but 16 processes"
check_exit "zero dimension" 1 "$BIN/mpilens" synth -o "$TMP/x/network" --torus 3,0,2
check_match "dimension message" "$(cat "$TMP/err")" "each dimension must be 1..1024"
check_exit "with --sockets" 1 "$BIN/mpilens" synth -o "$TMP/x/network" --torus 2,2,2 --sockets 2
check_exit "two numbers" 2 "$BIN/mpilens" synth -o "$TMP/x/network" --torus 3,2
check_exit "negative hop" 2 "$BIN/mpilens" synth -o "$TMP/x/network" --torus 2,2,2 --torus-hop -1e-7
check "nothing written on failure" test ! -e "$TMP/x"
finish test_torus_cli
