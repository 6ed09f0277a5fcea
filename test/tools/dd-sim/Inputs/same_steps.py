"""Compares the steps of two dd-sim -report=json reports: the prediction
that was exported with -kineto (its predicted steps) and the exported trace
imported again and replayed. For each step (by name and rank) it prints the
largest relative difference between the exported prediction and (a) the
duration the reimported trace records, (b) its replay; then "steps: N, max
difference P%". Exits 1 if a step is missing on either side or if any
difference exceeds the tolerance (percent, default 0.5)."""
import json
import sys

pred = json.load(open(sys.argv[1]))
back = json.load(open(sys.argv[2]))
tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5


def key(i):
    return (i["name"], i.get("rank", -1))


want = {key(i): i["predicted_ns"] for i in pred["iterations"] if i["predicted_ns"]}
got = {key(i): (i.get("measured_ns"), i["predicted_ns"]) for i in back["iterations"]}
if set(want) != set(got):
    sys.exit(f"steps differ: {sorted(set(want) ^ set(got))}")
worst = 0.0
for k, p in sorted(want.items()):
    recorded, replayed = got[k]
    for v in (recorded, replayed):
        worst = max(worst, abs(v - p) / p * 100)
print(f"steps: {len(want)}, max difference {worst:.3f}%")
if worst > tolerance:
    sys.exit(f"a step differs by more than {tolerance}%")
