#!/usr/bin/env bash
# Trace collector overhead as the user sees it: the whole program, `mpirun -np 2` of the 0-byte
# ping-pong samples/apps/pingpong (ROUNDS round trips, default 100000: 2 MPI calls per round trip
# on each rank), traced (LD_PRELOAD of libmpilens-trace.so) against untraced, in PAIRS pairs
# (default 7) whose order alternates, so that a change of load on this shared machine hits both
# sides alike. Added ns per MPI call = (traced wall time - untraced wall time) / (2 * ROUNDS),
# per pair; the figure is the median over the pairs, with the spread. Target: at most 150 ns.
# The traced runs set MPILENS_TRACE_STATS=1, so the collector says where its time went (start,
# flushes, clock sync and archive at MPI_Finalize); the rest of the difference is the time of
# the calls themselves (the sample's own loop time) and loading the library.
set -eu
build=${BUILD:-build}
app=$build/bin/samples/pingpong
# TRACE_WHOLE_SO: another build of the collector, to compare two versions the same way
so=$(readlink -f "${TRACE_WHOLE_SO:-$build/lib/libmpilens-trace.so}")
rounds=${TRACE_WHOLE_ROUNDS:-100000}
pairs=${TRACE_WHOLE_PAIRS:-7}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-trace.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# No --bind-to none: unbound ranks make shared-memory latency far worse here.
mpirun="mpirun --allow-run-as-root --oversubscribe -np 2"

# run KIND PAIR: one whole-program run; its wall time (ns) and the sample's loop line go to
# $tmp/KIND.PAIR, the collector's stats lines (DIR/stats.txt) to $tmp/KIND.PAIR.stats
run() {
    local kind=$1 pair=$2 t0 t1 env=()
    [ "$kind" = traced ] && env=(-x LD_PRELOAD="$so" -x MPILENS_TRACE_DIR="$tmp/trace"
                                 -x MPILENS_TRACE_STATS=1)
    t0=$(date +%s%N)
    $mpirun "${env[@]}" "$app" -i "$rounds" </dev/null >"$tmp/$kind.$pair" 2>/dev/null
    t1=$(date +%s%N)
    echo "wall_ns $((t1 - t0))" >>"$tmp/$kind.$pair"
    if [ "$kind" = traced ] && [ -e "$tmp/trace/stats.txt" ]; then
        cp "$tmp/trace/stats.txt" "$tmp/$kind.$pair.stats"
    else
        : >"$tmp/$kind.$pair.stats"
    fi
}
for p in $(seq 1 "$pairs"); do
    if [ $((p % 2)) = 1 ]; then
        run plain "$p"; run traced "$p"
    else
        run traced "$p"; run plain "$p"
    fi
done
# the archive of the last traced run must be whole: 3 events per call (Enter, MpiSend|MpiRecv, Leave)
events=$(otf2-print "$tmp/trace/traces.otf2" | awk '$1 == "MPI_SEND" || $1 == "MPI_RECV" { n++ } END { print n + 0 }')

/usr/bin/python3 - "$tmp" "$pairs" "$rounds" "$events" <<'EOF'
import re, statistics, sys
d, pairs, rounds, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
calls = 2 * rounds  # MPI calls per rank (the two ranks run side by side)

def read(kind, p):
    v = {}
    for line in open("%s/%s.%d" % (d, kind, p)):
        m = re.match(r"wall_ns (\d+)", line)
        if m:
            v["wall"] = int(m.group(1))
        m = re.search(r"loop ([0-9.]+) s", line)
        if m:
            v["loop"] = float(m.group(1)) * 1e9
    st = {}
    for line in open("%s/%s.%d.stats" % (d, kind, p)):
        if line.startswith("rank "):  # phases of the slower rank: the run ends when both have
            f = line.split()[2:]
            for k, x in zip(f[::2], f[1::2]):
                st[k] = max(st.get(k, 0.0), float(x))
    v["stats"] = st
    return v

plain = [read("plain", p) for p in range(1, pairs + 1)]
traced = [read("traced", p) for p in range(1, pairs + 1)]
diff = [(t["wall"] - u["wall"]) / calls for t, u in zip(traced, plain)]
loopd = [(t["loop"] - u["loop"]) / calls for t, u in zip(traced, plain)]
med = statistics.median
q = lambda xs: statistics.quantiles(xs, n=4) if len(xs) >= 2 else [xs[0]] * 3
print("whole program: mpirun -np 2 pingpong -i %d (0-byte, %d MPI calls per rank), %d alternating pairs"
      % (rounds, calls, pairs))
print("  untraced run, wall        median %8.1f ms (min %.1f, max %.1f)" % (
    med(u["wall"] for u in plain) / 1e6, min(u["wall"] for u in plain) / 1e6,
    max(u["wall"] for u in plain) / 1e6))
print("  traced run, wall          median %8.1f ms (min %.1f, max %.1f)" % (
    med(t["wall"] for t in traced) / 1e6, min(t["wall"] for t in traced) / 1e6,
    max(t["wall"] for t in traced) / 1e6))
lo, mid, hi = q(diff)
print("  added per MPI call        median %8.1f ns (pairs: min %.1f, quartiles %.1f..%.1f, max %.1f)"
      " (target <= 150 ns: %s)" % (med(diff), min(diff), lo, hi, max(diff),
                                   "met" if med(diff) <= 150 else "NOT met"))
print("  of which inside the loop  median %8.1f ns (the sample's own loop time, pairs %.1f..%.1f)"
      % (med(loopd), min(loopd), max(loopd)))
ph = [("start", "MPI_Init: files, communicator, clock sync"),
      ("flush", "buffer flushes to raw/"),
      ("sync", "MPI_Finalize: clock sync"),
      ("archive", "MPI_Finalize: raw -> OTF2 archive")]
for k, what in ph:
    w = [t["stats"].get(k + "_ms", 0.0) * 1e6 / calls for t in traced]
    c = [t["stats"].get(k + "_cpu_ms", 0.0) * 1e6 / calls for t in traced]
    print("  of which %-34s median %6.1f ns per call (%.1f..%.1f), CPU %.1f" % (
        what, med(w), min(w), max(w), med(c)))
fl = med(t["stats"].get("flushes", 0) for t in traced)
print("  flushes per rank: %g; MPI_SEND+MPI_RECV events in the last archive: %d (expected %d)"
      % (fl, events, 2 * calls))
EOF
