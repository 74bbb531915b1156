#!/usr/bin/python3
"""Writes a TAU profile directory (profile.N.C.T files) with a planted slow function, and the
profile it stands for as CSV (the truth the tests compare mpilens's reader against).
The format follows the TAU User Guide, profile file format:
  line 1   "<nfunc> templated_functions_MULTI_TIME"
  line 2   "# Name Calls Subrs Excl Incl ProfileCalls #" (column names; metadata may follow)
  then     one line per function: "name" calls subrs excl incl profcalls GROUP="group"
           (times in microseconds, excl = the function's own time)
  then     "0 aggregates" and "<n> userevents" with "# eventname numevents max min mean sumsqr"
           and one line per user event (not read by mpilens).
usage: make_tau.py OUTDIR TRUTH.csv [--nodes N] [--threads T] [--slow A..B] [--seed S]
Default: 16 nodes x 2 threads, nodes 12..15 spend 10x in exchange_halo (both threads).
"""
import argparse
import os
import random

FUNCS = [("main", "TAU_DEFAULT"), ("compute_flux(double *, int)", "TAU_USER"),
         ("exchange_halo", "TAU_USER"), ("MPI_Allreduce()", "MPI"), ("MPI_Wait()", "MPI"),
         ("io_write", "TAU_USER"), ("update_ghosts", "TAU_USER"),
         ("std::vector<double, std::allocator<double> >::resize", "TAU_USER"),
         ("MPI_Isend()", "MPI"), ("MPI_Irecv()", "MPI")]

ap = argparse.ArgumentParser()
ap.add_argument("outdir")
ap.add_argument("truth")
ap.add_argument("--nodes", type=int, default=16)
ap.add_argument("--threads", type=int, default=2)
ap.add_argument("--slow", default="12..15")
ap.add_argument("--seed", type=int, default=4242)
a = ap.parse_args()
lo, hi = (int(x) for x in a.slow.split(".."))
rng = random.Random(a.seed)
base = {fn: rng.uniform(0.2, 1.9) for fn, _ in FUNCS}
base["exchange_halo"] = 1.3
os.makedirs(a.outdir, exist_ok=True)
truth = {}
for n in range(a.nodes):
    for t in range(a.threads):
        lines = []
        for fn, grp in FUNCS:
            sec = base[fn] * rng.uniform(0.9, 1.1)
            if fn == "exchange_halo" and lo <= n <= hi:
                sec *= 10
            # whole microseconds as TAU's timers give them; the truth is built from the
            # same integers so that reader and generator agree to the last bit
            us = round(sec * 1e6)
            calls = rng.randint(1, 1000)
            incl = us + (rng.randint(0, 10**6) if fn == "main" else 0)
            lines.append('"%s" %d %d %.16G %.16G 0 GROUP="%s"\n' % (fn, calls, 0, us, incl, grp))
            truth[(n, fn)] = truth.get((n, fn), 0) + us
        with open(os.path.join(a.outdir, "profile.%d.0.%d" % (n, t)), "w") as f:
            f.write("%d templated_functions_MULTI_TIME\n" % len(FUNCS))
            f.write("# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Node"
                    "</name><value>%d</value></attribute></metadata>\n" % n)
            f.writelines(lines)
            f.write("0 aggregates\n")
            f.write("1 userevents\n# eventname numevents max min mean sumsqr\n")
            f.write('"Message size sent to all nodes" 4 1024 8 300 1200000\n')
with open(a.truth, "w") as f:
    f.write("process,function,seconds\n")
    for n in range(a.nodes):
        for fn, _ in FUNCS:
            f.write('%d,"%s",%.17g\n' % (n, fn, truth[(n, fn)] / 1e6))
