#!/usr/bin/python3
"""Writes the sample profiles of samples/profiles/ from a fixed seed (rerun to regenerate).
halo64.csv:   64 processes x 12 functions; processes 48..63 spend 10x in exchange_halo.
noise64.csv:  64 processes x 12 functions, every cell 1.0 s times uniform noise 0.9..1.1:
              no structure, ICAPPA must stop at once.
"""
import random

FUNCS = ["main", "compute_flux", "exchange_halo", "MPI_Allreduce", "MPI_Wait", "io_write",
         "update_ghosts", "MPI_Isend", "MPI_Irecv", "apply_bc", "residual", "MPI_Barrier"]

def write(path, rows):
    with open(path, "w") as f:
        f.write("process,function,seconds\n")
        for r in rows:
            f.write("%d,%s,%.9f\n" % r)

rng = random.Random(7919)
base = {fn: rng.uniform(0.2, 1.9) for fn in FUNCS}
base["exchange_halo"] = 1.3
rows = []
for p in range(64):
    for fn in FUNCS:
        t = base[fn] * rng.uniform(0.9, 1.1)
        if fn == "exchange_halo" and p >= 48:
            t *= 10
        rows.append((p, fn, t))
write("halo64.csv", rows)

rng = random.Random(104729)
write("noise64.csv", [(p, fn, rng.uniform(0.9, 1.1)) for p in range(64) for fn in FUNCS])
