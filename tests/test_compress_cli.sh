# mpilens compress / decompress: the report, the bound on every element checked independently
# with scipy's NetCDF reader on the restored files, --verify, JSON, determinism and errors.
. tests/lib.sh
PY=/usr/bin/python3
S=samples/cubes/synth32/network
export SOURCE_DATE_EPOCH=1795219200 # the packed file carries a date

check "compress the sample" "$BIN/mpilens" compress "$S" -o "$TMP/p.nc" --max-error 0.03
out=$("$BIN/mpilens" compress "$S" -o "$TMP/p.nc" --max-error 0.03 --force)
check_match "report: statistics" "$out" "^packed .* 4 statistics, 32 processes, 9 lengths, max error 3%"
check_match "report: ratio" "$out" "ratio [0-9.]+x"
check_match "report: speed" "$out" "MB/s of matrices"
check_exit "no overwrite without --force" 1 "$BIN/mpilens" compress "$S" -o "$TMP/p.nc"
check_match "overwrite message" "$(cat "$TMP/err")" "p.nc: exists; use --force"

"$BIN/mpilens" compress "$S" -o "$TMP/j.nc" --json >"$TMP/c.json"
got=$($PY - "$TMP/c.json" <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["max_error"] == 0.05 and set(d["stats"]) == {"average", "median", "deviation", "min"}
for s, v in d["stats"].items():
    assert 0 <= v["err_rms"] <= v["err_max"] <= 0.05, (s, v)
    assert v["ratio"] > 1, (s, v)
assert d["ratio"] == d["bytes_raw"] / d["bytes_packed"] and d["file_bytes"] > 0
print("ok", d["stats"]["median"]["ratio"] > 10)
PYEOF
)
check_eq "json report" "$got" "ok True"
"$BIN/mpilens" compress "$S" -o "$TMP/j2.nc" --json >/dev/null
check "same input, same bytes" cmp "$TMP/j.nc" "$TMP/j2.nc"

check "verify" "$BIN/mpilens" decompress "$TMP/p.nc" --verify "$S"
v=$("$BIN/mpilens" decompress "$TMP/p.nc" --verify "$S")
check_eq "verify: 4 statistics within the bound" "$(echo "$v" | grep -c ' yes$')" "4"
check "decompress -o" "$BIN/mpilens" decompress "$TMP/p.nc" -o "$TMP/r/network"
check "restored cube reads" "$BIN/mpilens" info "$TMP/r/network"
check_eq "hosts restored" "$(cat "$TMP/r/network_hosts.txt" | md5sum)" "$(cat ${S}_hosts.txt | md5sum)"
# every element of the restored files within 3% of the original, read by scipy, not by mpilens
got=$($PY - "$S" "$TMP/r/network" <<'PYEOF'
import sys
import numpy as np
from scipy.io import netcdf_file
worst = 0
for s in ["average", "median", "deviation", "min"]:
    a = netcdf_file(sys.argv[1] + "_" + s + ".nc", "r", mmap=False).variables["data"][:].copy()
    b = netcdf_file(sys.argv[2] + "_" + s + ".nc", "r", mmap=False).variables["data"][:].copy()
    assert a.shape == b.shape, (a.shape, b.shape)
    nz = a != 0
    assert np.all(b[~nz] == 0)
    worst = max(worst, float(np.max(np.abs(b[nz] - a[nz]) / np.abs(a[nz]))))
print("ok" if worst <= 0.03 else "worst %g" % worst, worst > 0.02)
PYEOF
)
check_eq "bound holds on every element (scipy)" "$got" "ok True"
# a cube that is not the packed one fails the check and says how many elements are off
"$BIN/mpilens" synth -o "$TMP/o/network" --procs 32 --nodes 4 --seed 5 2>/dev/null
check_exit "verify against another cube fails" 1 "$BIN/mpilens" decompress "$TMP/p.nc" --verify "$TMP/o/network"
check_match "verify failure message" "$(cat "$TMP/err")" "elements outside the bound"
check_exit "lossless" 0 "$BIN/mpilens" compress "$S" -o "$TMP/l.nc" --max-error 0
v=$("$BIN/mpilens" decompress "$TMP/l.nc" --verify "$S")
check_eq "lossless: zero error" "$(echo "$v" | awk '$1 == "median" { print $3 }')" "0.0000%"

# errors
check_exit "missing input" 1 "$BIN/mpilens" compress "$TMP/none/network" -o "$TMP/n.nc"
check "nothing written" test ! -e "$TMP/n.nc"
check_exit "unwritable output" 1 "$BIN/mpilens" compress "$S" -o "$TMP/no/dir/x.nc"
check_match "unwritable output named" "$(cat "$TMP/err")" "no/dir/x.nc"
check_exit "not a packed cube" 1 "$BIN/mpilens" decompress "${S}_median.nc" --verify "$S"
check_match "not a packed cube: message" "$(cat "$TMP/err")" "network_median.nc: not a packed cube"
check_exit "decompress: no overwrite" 1 "$BIN/mpilens" decompress "$TMP/p.nc" -o "$TMP/r/network"
check_exit "--max-error 1" 2 "$BIN/mpilens" compress "$S" -o "$TMP/x.nc" --max-error 1
check_exit "--max-error junk" 2 "$BIN/mpilens" compress "$S" -o "$TMP/x.nc" --max-error 5%
check_exit "no -o" 2 "$BIN/mpilens" compress "$S"
check_exit "decompress: nothing to do" 2 "$BIN/mpilens" decompress "$TMP/p.nc"
check_exit "compress help" 0 "$BIN/mpilens" compress --help
check_exit "decompress help" 0 "$BIN/mpilens" decompress --help
finish test_compress_cli
