"""Adds PyTorch-profiler memory events to a rank's Kineto trace (.json or
.json.gz, rewritten in place), for tests of the memory replay of jobs:
before each cudaLaunchKernel, a GPU block on the rank's device (the
device its kernels record), freed three launches later, so that blocks
overlap; and at every fifth launch a host block, freed at the next
fifth, at an address every rank's trace uses alike (each rank is a
process of its own). Sizes cycle through 1 to 7 MiB, so peaks differ
from step to step. Deterministic: the same trace gives the same events.

usage: add-memory.py TRACE...
"""
import gzip
import json
import sys

MIB = 1 << 20


def memory(pid, tid, ts, device, addr, size, total):
    cuda = device >= 0
    return {"ph": "i", "cat": "cpu_instant_event", "s": "t",
            "name": "[memory]", "pid": pid, "tid": tid, "ts": ts,
            "args": {"Device Type": 1 if cuda else 0,
                     "Device Id": device, "Addr": addr, "Bytes": size,
                     "Total Allocated": total, "Total Reserved": total}}


def add(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    device = next(e["args"]["device"] for e in events
                  if e.get("cat") == "kernel")
    launches = sorted((e for e in events if e.get("cat") == "cuda_runtime"
                       and e.get("name") == "cudaLaunchKernel"),
                      key=lambda e: e["ts"])
    added = []
    live = {"gpu": 0, "host": 0}
    frees = []  # (ts, pid, tid, device, addr, size, kind)
    for i, launch in enumerate(launches):
        ts, pid, tid = launch["ts"], launch["pid"], launch["tid"]
        # Frees due by now go first, at this launch's start.
        due = [f for f in frees if f[0] <= i]
        frees = [f for f in frees if f[0] > i]
        for _, fpid, ftid, dev, addr, size, kind in due:
            live[kind] -= size
            added.append(memory(fpid, ftid, ts, dev, addr, -size, live[kind]))
        size = (i % 7 + 1) * MIB
        addr = 0x7f0000000000 + i * 8 * MIB
        live["gpu"] += size
        added.append(memory(pid, tid, ts, device, addr, size, live["gpu"]))
        frees.append((i + 3, pid, tid, device, addr, size, "gpu"))
        if i % 5 == 0:
            hsize = (i % 3 + 1) * MIB
            haddr = 0x5500000000 + (i // 5 % 2) * 4 * MIB
            live["host"] += hsize
            added.append(memory(pid, tid, ts, -1, haddr, hsize, live["host"]))
            frees.append((i + 5, pid, tid, -1, haddr, hsize, "host"))
    events.extend(added)
    with opener(path, "wt") as f:
        json.dump(trace, f)


for p in sys.argv[1:]:
    add(p)
