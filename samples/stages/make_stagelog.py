#!/usr/bin/python3
"""A small simulated task runtime (LuNA-like computation fragments) that writes a stage log.
Rerun to regenerate luna_sim.jsonl and luna_sim.truth.json (fixed seed); with the argument
"v2", luna_sim_v2.jsonl and its truth: a later revision of the same runtime whose fragment
manager distributes faster (fewer migrations, shorter waits), to compare with
`mpilens stages luna_sim_v2.jsonl --baseline luna_sim.jsonl`.
Each task arrives on a node and enters "distribute"; it migrates k times (k = 0..3, each
migration a new "distribute" record on another node), then waits for its inputs ("wait",
only when it has to), runs ("execute") and ends ("done"). Lines are written in time order, as
a runtime's log is, so the reader has to group them by task. The truth file holds what the
generator put in: totals, the migration histogram, per-stage means and the number of tasks
in each stage at the time points mpilens uses (t0 + (i + 0.5) (t1 - t0) / points)."""
import json
import random
import sys

V2 = sys.argv[1:] == ["v2"]
NAME = "luna_sim_v2" if V2 else "luna_sim"
rng = random.Random(65537)
# revision 2: the migration counts and the waits of a faster fragment manager
WEIGHTS = [70, 20, 8, 2] if V2 else [45, 30, 15, 10]
WAIT = (0.002, 0.02) if V2 else (0.005, 0.05)
NODES, TASKS, POINTS = 4, 300, 50
STAGES = ["distribute", "wait", "execute", "done"]
recs, stays = [], []        # (t, task, stage, node), (task, stage, from, to)
waited, hist = 0, [0, 0, 0, 0]
t = 0.0
for task in range(TASKS):
    t += rng.expovariate(100.0)           # arrivals: 100 tasks per second
    node = rng.randrange(NODES)
    k = rng.choices([0, 1, 2, 3], weights=WEIGHTS)[0]
    hist[k] += 1
    seq = [("distribute", t, node)]
    now = t
    for _ in range(k):
        now += rng.uniform(0.001, 0.004)
        node = (node + rng.randrange(1, NODES)) % NODES
        seq.append(("distribute", now, node))
    now += rng.uniform(0.001, 0.003)
    if rng.random() < 0.4:
        waited += 1
        seq.append(("wait", now, node))
        now += rng.uniform(*WAIT)
    seq.append(("execute", now, node))
    now += rng.uniform(0.01, 0.03)
    seq.append(("done", now, node))
    for (s, a, n), (_, b, _) in zip(seq, seq[1:]):
        stays.append((task, s, a, b))
    recs += [(a, task, s, n) for s, a, n in seq]

recs.sort()
with open(NAME + ".jsonl", "w") as f:
    for a, task, s, n in recs:
        f.write('{"task": %d, "stage": "%s", "t": %.9f, "node": %d}\n' % (task, s, a, n))

# the truth, from the generator's own stays (times re-read at the printed precision)
t0, t1 = float("%.9f" % recs[0][0]), float("%.9f" % recs[-1][0])
stays = [(task, s, float("%.9f" % a), float("%.9f" % b)) for task, s, a, b in stays]
dt = (t1 - t0) / POINTS
taus = [t0 + (i + 0.5) * dt for i in range(POINTS)]
occ = [[sum(1 for _, s, a, b in stays if s == st and a <= tau < b) for st in STAGES] for tau in taus]
per = {st: [0.0] * TASKS for st in STAGES}
for task, s, a, b in stays:
    per[s][task] += b - a
means = {st: (sum(v for v in per[st] if v > 0) / max(1, sum(1 for v in per[st] if v > 0))) for st in STAGES}
json.dump({"tasks": TASKS, "waited": waited, "migrations": hist, "points": POINTS,
           "stages": STAGES, "mean_seconds": means, "occupancy": occ}, open(NAME + ".truth.json", "w"))
