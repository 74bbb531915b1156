# Point-to-point latency and bandwidth of `mpilens-bench -t p2p` at 2 ranks against peers
# measured in the same run on the same MPI:
# - "peer": OSU Micro-Benchmarks' osu_latency/osu_bw timing loops, written out below (OSU is not
#   packaged by Debian: apt-cache search osu finds nothing) and compiled with mpicc: page-aligned
#   buffers, each size's bytes touched before it is timed, one clock pair around the loop,
#   10000 round trips (100 skipped) up to 8 KiB and 1000 (10 skipped) above; window 64, 100
#   windows (10 skipped) and 20 (2 skipped) above 8 KiB, a 4-byte reply;
# - "OSU": the real osu_latency and osu_bw, when OSU_BIN_DIR names a directory holding them
#   (build OSU Micro-Benchmarks with this MPI's mpicc and point OSU_BIN_DIR at mpi/pt2pt).
# mpilens-bench runs with its defaults, which are OSU's counts. All tools run RUNS times (default
# 7), alternating; the figures are the medians of the runs and, for an idle-machine estimate on
# this shared host, the best run. Other jobs preempt ours for milliseconds, so one run's mean can
# be off by 3x; mpilens-bench's per-iteration median is the robust figure.
set -eu
BIN=${BIN:-build/bin}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpilens-bench-p2p.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
MPIRUN="mpirun --allow-run-as-root --oversubscribe -np 2"

# The peer: OSU's loops (osu_latency: c round trips after a skipped warm-up, one clock pair
# around the loop, latency = T / 2c; osu_bw: window 64, 100 windows, 10 skipped, 20/2 above
# 8 KiB, 4-byte reply, bandwidth = size * window * loop / T), sizes 0, 1, 2, 4, ... 1 MiB.
cat >"$dir/peer.c" <<'EOF'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#define MAXS (1 << 20)
#define WINDOW 64
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *s = NULL, *r = NULL;
    long pg = sysconf(_SC_PAGESIZE);
    if (posix_memalign((void **)&s, (size_t)pg, MAXS) || posix_memalign((void **)&r, (size_t)pg, MAXS))
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Request req[WINDOW];
    /* Every size in order, as OSU sweeps: vader's state after one size affects the next
     * (measuring 64 KiB right after 1 KiB is twice as fast as after 32 KiB). */
    for (long size = 0; size <= MAXS; size = size ? size * 2 : 1) {
        int large = size > 8192, loop = large ? 1000 : 10000, skip = large ? 10 : 100;
        memset(s, 'a', (size_t)size);
        memset(r, 'b', (size_t)size);
        double t0 = 0, t1;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < loop + skip; i++) {
            if (i == skip)
                t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(s, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(r, (int)size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(r, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(s, (int)size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        t1 = MPI_Wtime();
        double lat = (t1 - t0) / (2.0 * loop);
        double bw = 0;
        if (size > 0) {
            loop = large ? 20 : 100;
            skip = large ? 2 : 10;
            MPI_Barrier(MPI_COMM_WORLD);
            for (int i = 0; i < loop + skip; i++) {
                if (i == skip)
                    t0 = MPI_Wtime();
                if (rank == 0) {
                    for (int j = 0; j < WINDOW; j++)
                        MPI_Isend(s, (int)size, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &req[j]);
                    MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                    MPI_Recv(r, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    for (int j = 0; j < WINDOW; j++)
                        MPI_Irecv(r, (int)size, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &req[j]);
                    MPI_Waitall(WINDOW, req, MPI_STATUSES_IGNORE);
                    MPI_Send(s, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
                }
            }
            t1 = MPI_Wtime();
            bw = (double)size * WINDOW * loop / (t1 - t0);
        }
        if (rank == 0)
            printf("%ld,%.9g,%.9g\n", size, lat, bw);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
EOF
mpicc -O2 -o "$dir/peer" "$dir/peer.c"

RUNS=${RUNS:-7}
OSU_BIN_DIR=${OSU_BIN_DIR:-}
osu=0
if [ -n "$OSU_BIN_DIR" ]; then
    if [ -x "$OSU_BIN_DIR/osu_latency" ] && [ -x "$OSU_BIN_DIR/osu_bw" ]; then
        osu=1
    else
        echo "p2p: OSU_BIN_DIR=$OSU_BIN_DIR holds no executable osu_latency and osu_bw; OSU skipped" >&2
    fi
fi
for run in $(seq 1 "$RUNS"); do
    $MPIRUN "$BIN/mpilens-bench" -t p2p -e 1048577 -f "$dir/ours$run" </dev/null >/dev/null 2>&1
    $MPIRUN "$dir/peer" </dev/null >"$dir/peer$run.csv" 2>/dev/null
    if [ "$osu" = 1 ]; then
        $MPIRUN "$OSU_BIN_DIR/osu_latency" </dev/null >"$dir/osu_lat$run.txt" 2>/dev/null
        $MPIRUN "$OSU_BIN_DIR/osu_bw" </dev/null >"$dir/osu_bw$run.txt" 2>/dev/null
    fi
done

/usr/bin/python3 - "$dir" "$RUNS" "$osu" "$($MPIRUN "$BIN/mpilens-bench" -v 2>/dev/null | head -1)" <<'EOF'
import csv, statistics, sys
d, nruns, has_osu, version = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
runs = range(1, nruns + 1)
ours, peers = {}, {"peer": {}, "OSU": {}}
for run in runs:
    for row in csv.DictReader(open("%s/ours%d_p2p.csv" % (d, run))):
        s = int(row["size_bytes"])
        ours.setdefault(s, []).append((float(row["latency_s"]), float(row["bandwidth_Bps"]),
                                       float(row["latency_median_s"])))
    for line in open("%s/peer%d.csv" % (d, run)):
        s, lat, bw = line.strip().split(",")
        peers["peer"].setdefault(int(s), []).append((float(lat), float(bw)))
    if has_osu:
        # osu_latency prints "size latency_us", osu_bw "size MB/s" (1e6 bytes), after # lines
        got = {}
        for name, col in (("lat", 0), ("bw", 1)):
            for line in open("%s/osu_%s%d.txt" % (d, name, run)):
                f = line.split()
                if len(f) == 2 and not line.startswith("#"):
                    got.setdefault(int(f[0]), [0.0, 0.0])[col] = float(f[1]) * (1e-6 if col == 0 else 1e6)
        for s, v in got.items():
            peers["OSU"].setdefault(s, []).append(tuple(v))
med = lambda xs, i: statistics.median(x[i] for x in xs)
best_lat = lambda xs: min(x[0] for x in xs)
best_bw = lambda xs: max(x[1] for x in xs)
print("p2p, 2 ranks on one host, %s" % version)
print("ours = mpilens-bench -t p2p: mean over the iterations (T/2c, k*s/T), as OSU reports;")
print("       it.med = its per-iteration median latency, robust to preemption stalls")
print("peer = OSU's osu_latency/osu_bw loops compiled here (OSU is not packaged by Debian)")
if has_osu:
    print("OSU  = the real osu_latency/osu_bw from OSU_BIN_DIR")
print("same numbers of round trips and windows; ratio = ours / peer, %d alternating runs" % nruns)
for name in ("peer", "OSU") if has_osu else ("peer",):
    peer = peers[name]
    for title, lat, bw in (("median of %d runs" % nruns, lambda xs: med(xs, 0), lambda xs: med(xs, 1)),
                           ("best of %d runs (idle-machine estimate)" % nruns, best_lat, best_bw)):
        print("\nours vs %s, %s" % (name, title))
        print("%9s %11s %11s %7s %12s %12s %12s %7s" % ("size", "ours lat", name + " lat", "ratio",
              "ours it.med", "ours bw", name + " bw", "ratio"))
        for s in (0, 8, 1024, 65536, 1 << 20):
            if s not in peer:
                continue
            ol, pl, om = lat(ours[s]), lat(peer[s]), med(ours[s], 2)
            ob, pb = bw(ours[s]), bw(peer[s])
            b = "%7.0f MB/s %7.0f MB/s %6.2fx" % (ob / 1e6, pb / 1e6, ob / pb) if s else "%12s %12s %7s" % ("-", "-", "-")
            print("%7d B %8.3f us %8.3f us %6.2fx %9.3f us %s" % (s, ol * 1e6, pl * 1e6, ol / pl, om * 1e6, b))
    m = 1 << 20
    l0, b1 = med(ours[0], 0) / med(peer[0], 0), med(ours[m], 1) / med(peer[m], 1)
    print("issue 3 target vs %s (medians): 0-B latency %.2fx, 1 MiB bandwidth %.2fx: %s" % (
        name, l0, b1, "within 10%" if abs(l0 - 1) <= 0.1 and abs(b1 - 1) <= 0.1 else "NOT within 10%"))
EOF
