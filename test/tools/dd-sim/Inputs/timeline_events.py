"""Parses a dd-sim -timeline file back and prints it in a form FileCheck can
read. A run's processes (one a rank and device) have ids RUN * 100000 + n,
RUN 1 the baseline and 2 the prediction; lines give the RUN:
  "track RUN tid NAME" for each named track,
  "process RUN NAME" for each process,
  "X RUN tid cat name ts dur" for each complete event (microseconds),
  "F RUN cat from_tid -> to_tid ts_from ts_to" for each flow arrow.
Fails (exit 1) if the file is not a Chrome trace-event object, if an event
lacks a field the format requires, if a task event lies on a track that has
no name, or if a flow does not have exactly one start and one end."""
import gzip
import json
import sys

path = sys.argv[1]
opener = gzip.open if path.endswith(".gz") else open
with opener(path, "rt") as f:
    trace = json.load(f)
events = trace["traceEvents"]
names = {}
tracks = set()


def run(pid):
    return pid // 100000


for e in events:
    for key in ("ph", "pid", "name"):
        if key not in e:
            sys.exit(f"event without {key}: {e}")
    if e["ph"] == "M" and e["name"] == "process_name":
        names[e["pid"]] = e["args"]["name"]
    elif e["ph"] == "M" and e["name"] == "thread_name":
        tracks.add((e["pid"], e["tid"]))
        print(f"track {run(e['pid'])} {e['tid']} {e['args']['name']}")
for pid in sorted(names):
    print(f"process {run(pid)} {names[pid]}")
flows = {}
for e in events:
    if e["ph"] in ("s", "f"):
        if (e["pid"], e["tid"]) not in tracks:
            sys.exit(f"flow on an unnamed track: {e}")
        flows.setdefault(e["id"], {}).setdefault(e["ph"], []).append(e)
        continue
    if e["ph"] != "X":
        continue
    if (e["pid"], e["tid"]) not in tracks:
        sys.exit(f"event on an unnamed track: {e}")
    print(f"X {run(e['pid'])} {e['tid']} {e['cat']} {e['name']} {e['ts']:g} {e['dur']:g}")
for fid in sorted(flows):
    ends = flows[fid]
    if len(ends.get("s", [])) != 1 or len(ends.get("f", [])) != 1:
        sys.exit(f"flow {fid} without exactly one start and one end: {ends}")
    s, f = ends["s"][0], ends["f"][0]
    print(f"F {run(s['pid'])} {s['cat']} {s['tid']} -> {f['tid']} {s['ts']:g} {f['ts']:g}")
