#!/usr/bin/python3
"""Compares two JSON documents: every number in WANT must match GOT within a relative
tolerance, keys of WANT must exist in GOT. Prints mismatches; exit 1 if any.
Usage: jcmp.py GOT.json WANT.json [RELTOL [KEY,KEY,...]]  (keys: compare only these)"""
import json, sys

def walk(got, want, path, tol, bad):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            bad.append(f"{path}: not an object"); return
        for k, v in want.items():
            if k not in got:
                bad.append(f"{path}.{k}: missing"); continue
            walk(got[k], v, f"{path}.{k}", tol, bad)
    elif isinstance(want, list):
        if not isinstance(got, list) or len(got) != len(want):
            bad.append(f"{path}: list length {len(got) if isinstance(got, list) else '?'} != {len(want)}"); return
        for i, (g, w) in enumerate(zip(got, want)):
            walk(g, w, f"{path}[{i}]", tol, bad)
    elif isinstance(want, (int, float)) and not isinstance(want, bool):
        if not isinstance(got, (int, float)) or abs(got - want) > tol * max(abs(want), 1e-300):
            bad.append(f"{path}: got {got} want {want}")
    elif got != want:
        bad.append(f"{path}: got {got!r} want {want!r}")

got = json.load(open(sys.argv[1])); want = json.load(open(sys.argv[2]))
if len(sys.argv) > 4:
    want = {k: want[k] for k in sys.argv[4].split(",") if k in want}
bad = []
walk(got, want, "$", float(sys.argv[3]) if len(sys.argv) > 3 else 1e-6, bad)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
