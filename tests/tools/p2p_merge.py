#!/usr/bin/python3
"""Merges real `mpilens-bench -t p2p` results into one multi-pair result, as `--pairs per-node`
writes on several nodes (this machine has one node, so per-node runs give one pair). Each pair
gets the kind, hosts and ranks given; values and raw times are copied unchanged. Writes
OUT_p2p.nc (bench/net/p2p_out.c's layout, raw arrays NaN-padded) and OUT_p2p.csv (its columns, %.9g).
Usage: p2p_merge.py OUT PREFIX:KIND:HOST_A:HOST_B:RANK_A:RANK_B ..."""
import sys
import numpy as np
from scipy.io import netcdf_file

COLS = ["latency_s", "latency_min_s", "latency_median_s", "latency_max_s", "bandwidth_Bps",
        "bandwidth_min_Bps", "bandwidth_median_Bps", "bandwidth_max_Bps", "msg_rate_per_s",
        "msg_rate_min_per_s", "msg_rate_median_per_s", "msg_rate_max_per_s", "bw_time_s"]
out = sys.argv[1]
pairs = []
for spec in sys.argv[2:]:
    prefix, kind, ha, hb, ra, rb = spec.split(":")
    f = netcdf_file(prefix + "_p2p.nc", "r", mmap=False)
    v = {k: f.variables[k][:].copy() for k in f.variables}
    window = int(f.window)
    f.close()
    pairs.append((v, kind, ha, hb, int(ra), int(rb)))
v0 = pairs[0][0]
sizes = v0["size_bytes"]
for v, *_ in pairs:
    assert (v["size_bytes"] == sizes).all(), "runs must share their sizes"
P, S = len(pairs), len(sizes)
ml = max(v["lat_iter_time"].shape[2] for v, *_ in pairs)
mb = max(v["bw_window_time"].shape[2] for v, *_ in pairs)

g = netcdf_file(out + "_p2p.nc", "w", version=2)
g.window = np.int32(window)
g.tool = b"tests/tools/p2p_merge.py"
for name, n in (("pair", P), ("size", S), ("lat_iter", ml), ("bw_iter", mb), ("label", 256)):
    g.createDimension(name, n)
def var(name, typ, dims, data):
    x = g.createVariable(name, typ, dims)
    x[:] = data
var("size_bytes", "i", ("size",), sizes)
var("round_trips_per_iter", "i", ("size",), v0["round_trips_per_iter"])
var("rank_a", "i", ("pair",), [p[4] for p in pairs])
var("rank_b", "i", ("pair",), [p[5] for p in pairs])
for i, name in ((2, "host_a"), (3, "host_b"), (1, "kind")):
    arr = np.zeros((P, 256), dtype="S1")
    for p, pr in enumerate(pairs):
        for c, ch in enumerate(pr[i].encode()):
            arr[p, c] = bytes([ch])
    var(name, "c", ("pair", "label"), arr)
var("lat_iters", "i", ("pair", "size"), np.vstack([p[0]["lat_iters"] for p in pairs]))
var("bw_iters", "i", ("pair", "size"), np.vstack([p[0]["bw_iters"] for p in pairs]))
for name, m in (("lat_iter_time", ml), ("bw_window_time", mb)):
    arr = np.full((P, S, m), np.nan)
    for p, pr in enumerate(pairs):
        r = pr[0][name]
        arr[p, :, :r.shape[2]] = r[0]
    var(name, "d", ("pair", "size", name.replace("_time", "").replace("window", "iter")), arr)
for c in COLS:
    var(c, "d", ("pair", "size"), np.vstack([p[0][c] for p in pairs]))
g.close()

with open(out + "_p2p.csv", "w") as fp:
    fp.write("size_bytes," + ",".join(COLS) + ",window,round_trips_per_iter,lat_iters,bw_iters,"
             "pair,kind,rank_a,rank_b,host_a,host_b\n")
    for p, (v, kind, ha, hb, ra, rb) in enumerate(pairs):
        for k in range(S):
            fp.write("%d," % sizes[k] + ",".join("%.9g" % v[c][0, k] for c in COLS))
            fp.write(",%d,%d,%d,%d,%d,%s,%d,%d,%s,%s\n" % (window, v["round_trips_per_iter"][k],
                     v["lat_iters"][0, k], v["bw_iters"][0, k], p, kind, ra, rb, ha, hb))
