"""Parses a dd-sim -timeline file back and prints it in a form FileCheck can
read: each process and track by name, then every complete event as
"pid tid cat name ts dur" in microseconds. Fails (exit 1) if the file is not
a Chrome trace-event object, if an event lacks a field the format requires,
or if a task event lies on a track that has no name."""
import json
import sys

with open(sys.argv[1]) as f:
    trace = json.load(f)
events = trace["traceEvents"]
names = {}
tracks = set()
for e in events:
    for key in ("ph", "pid", "name"):
        if key not in e:
            sys.exit(f"event without {key}: {e}")
    if e["ph"] == "M" and e["name"] == "process_name":
        names[e["pid"]] = e["args"]["name"]
    elif e["ph"] == "M" and e["name"] == "thread_name":
        tracks.add((e["pid"], e["tid"]))
        print(f"track {e['pid']} {e['tid']} {e['args']['name']}")
for pid in sorted(names):
    print(f"process {pid} {names[pid]}")
for e in events:
    if e["ph"] != "X":
        continue
    if (e["pid"], e["tid"]) not in tracks:
        sys.exit(f"event on an unnamed track: {e}")
    print(f"X {e['pid']} {e['tid']} {e['cat']} {e['name']} {e['ts']:g} {e['dur']:g}")
