"""Prints the Kineto trace argv[1] with every event's "ts" later by argv[2]
microseconds: a rank whose profiler started after the others'."""
import json
import sys

trace = json.load(open(sys.argv[1]))
for event in trace["traceEvents"]:
    if "ts" in event:
        event["ts"] += float(sys.argv[2])
json.dump(trace, sys.stdout, indent=0)
