"""Checks utils/gpu/validation.py's parsers on small inputs made here (see
test/Utils/validation-units.test). Usage: validation_units.py UTILS_DIR TMPDIR"""
import gzip
import json
import os
import struct
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.join(sys.argv[1], "gpu"))
import validation as v  # noqa: E402

tmp = sys.argv[2]
os.makedirs(tmp, exist_ok=True)

# A graph's text form: two iterations; a kernel before the first, one after
# the second ends, and a phase on each; names with quotes and spaces.
graph = r'''ddir 1
layer #0 "nn.Module: layer1.0.conv1"
layer #1 "## backward ## nn.Module: layer1.0.conv1" parent=#0
iteration "step#5" start=1000 measured=1000
iteration "step#6" start=2000 measured=500
task %0 kernel @1 "early" start=900 dur=5
task %1 kernel @1 "void f<\"a b\">" start=1000 dur=5 layer=#0 phase=forward
task %2 runtime @0 "cudaLaunchKernel" start=1100 dur=5
task %3 kernel @1 "k" start=1999 dur=5 layer=#1 phase=backward
task %4 kernel @1 "k" start=2000 dur=5 phase=optimizer
task %5 kernel @1 "late" start=2500 dur=5
'''
st = v.graph_stats(graph)
for it in st["iterations"]:
    print("graph:", it["name"], it["kernels"], sorted(it["phases"].items()), it["with_layer"])
print("layers:", st["layers"], st["forward_module_layers"], st["backward_module_layers"])

# Iterations matched by number, whatever their names.
prof = {"iterations": [{"name": "ProfilerStep#5", "kernels": 2}, {"name": "ProfilerStep#7", "kernels": 1}]}
print("compare:", v.compare_kernels(st, prof))

# A .ddrec cut short in its last frame; then one with a bad magic.
def frame(t, payload):
    return struct.pack("<II", t, len(payload)) + payload + b"\0" * (-len(payload) % 8)
body = (frame(2, struct.pack("<I", 1) + b"step#5") + frame(1, struct.pack("<I", 10) + b"\0" * 12)
        + frame(1, struct.pack("<I", 5) + b"\0" * 12) + frame(4, struct.pack("<Q", 3))
        + frame(6, struct.pack("<QQ", 10, 20)))
head = b"DDRECORD" + struct.pack("<IIIIQII", 1, 130000, 130002, 42, 0, 0, 0)
with gzip.open(os.path.join(tmp, "42.ddrec.gz"), "wb") as f:
    f.write(head + body + frame(1, struct.pack("<I", 3) + b"\0" * 12)[:12])
s = v.ddrec_stats(os.path.join(tmp, "42.ddrec.gz"))
print("ddrec:", s["pid"], s["records"], s["kernels"], s["dropped"], s["window_ns"],
      s["ended_cleanly"], s.get("truncated_at"), s["range_names"]["iterations"])
with open(os.path.join(tmp, "bad.ddrec"), "wb") as f:
    f.write(b"NOTADDRECORD" + b"\0" * 40)
print("bad:", v.ddrec_stats(os.path.join(tmp, "bad.ddrec")).get("error"))

# Kernels per ProfilerStep straight from a Kineto trace.
events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "ts": 100, "dur": 50},
          {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#6", "ts": 150, "dur": 50},
          {"ph": "X", "cat": "kernel", "name": "a", "ts": 120, "dur": 1},
          {"ph": "X", "cat": "kernel", "name": "b", "ts": 150, "dur": 1},
          {"ph": "X", "cat": "kernel", "name": "c", "ts": 199.5, "dur": 1},
          {"ph": "X", "cat": "kernel", "name": "d", "ts": 300, "dur": 1}]
with open(os.path.join(tmp, "k.json"), "w") as f:
    json.dump({"traceEvents": events}, f)
print("kineto:", v.kineto_stats(os.path.join(tmp, "k.json")))
