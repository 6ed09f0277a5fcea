"""Prints the figures of a print<critical-path> JSON report, and checks that
each breakdown and the path's steps add up to the length, for json.test."""
import json
import sys

d = json.load(open(sys.argv[1]))
length = d["length_ns"]
print("length_ns", length, "tasks", d["tasks"], "blocked", d["blocked_tasks"],
      "live", d["live_tasks"])
for key in ("by_task_kind", "by_phase", "by_lane_kind"):
    print(key, d[key], "sums to", sum(d[key].values()))
print("top_kernels", d["top_kernels"])
print("top_layers", d["top_layers"])
buckets = {b["bucket"]: b["tasks"] for b in d["slack"]}
print("slack zero=%d <1us=%d total=%d" %
      (buckets["zero"], buckets["<1us"], sum(buckets.values())))
steps = ["%d:blocked" % t["id"] if t["blocked"] else
         "%d:%d+%d" % (t["id"], t["gap_ns"], t["work_ns"]) for t in d["path"]]
print("path", " ".join(steps), "sums to",
      sum(t["gap_ns"] + t["work_ns"] for t in d["path"]))
print("slack of path", " ".join(str(t["slack_ns"]) for t in d["path"]))
