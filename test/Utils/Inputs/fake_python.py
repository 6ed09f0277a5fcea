#!/usr/bin/env python3
"""Stands in for the GPU machine's Python in test/Utils/validate-fake.test.

validate.sh runs everything through $PYTHON; this one imitates what needs
PyTorch and a GPU and hands the rest to the real interpreter:
  validation.py probe OUTDIR  a manifest and KEY=VALUE lines for a fake GPU
  train_resnet.py ARGS        made-up iteration times, a synthetic Kineto
                              trace for --profile (utils/gen-synthetic-
                              kineto.py; ProfilerStep#1 onwards), a range
                              summary for --nvtx-record, and under
                              CUDA_INJECTION64_PATH a small .ddrec
  -c "import torch..."        the smoke test: a .ddrec when traced
"""
import json
import os
import struct
import subprocess
import sys
import time

REAL = os.environ.get("FAKE_PYTHON_REAL", "python3")


def write_ddrec():
    out = os.environ.get("DDTRACE_OUTPUT_DIR")
    if not out or not os.environ.get("CUDA_INJECTION64_PATH"):
        return
    frames = []

    def frame(ftype, payload):
        frames.append(struct.pack("<II", ftype, len(payload)) + payload
                      + b"\0" * (-len(payload) % 8))
    for i, name in enumerate(["step#1", "nn.Module: ResNet", "## backward ## nn.Module: fc"], 1):
        frame(2, struct.pack("<I", i) + name.encode())
    for _ in range(6):  # kernels, as CUPTI's CONCURRENT_KERNEL records start
        frame(1, struct.pack("<I", 10) + b"\0" * 20)
    frame(1, struct.pack("<I", 12) + b"\0" * 20)  # a marker
    frame(5, struct.pack("<Q", 2000))
    header = b"DDRECORD" + struct.pack("<IIIIQII", 1, 130000, 130001, os.getpid(), 1000, 0, 0)
    with open(os.path.join(out, f"{os.getpid()}.ddrec"), "wb") as f:
        f.write(header + b"".join(frames))


def probe(outdir):
    os.makedirs(outdir, exist_ok=True)
    info = {"device": "Fake GPU", "torch": "0.0+fake", "torch_cuda": "13.0",
            "cupti_library": os.path.abspath(__file__), "nvidia_smi": "Fake GPU, 0.0"}
    with open(os.path.join(outdir, "manifest.json"), "w") as f:
        json.dump(info, f)
    print(f"CUPTI_LIBRARY={info['cupti_library']}")
    print("CUPTI_INCLUDE=" + os.environ.get("FAKE_CUPTI_INCLUDE", "/nonexistent/include"))
    print("CUDA_INCLUDE=")
    print("DEVICE=Fake GPU")
    print("TORCH=0.0+fake")


def train(argv):
    opts, i = {}, 0
    while i < len(argv):
        if argv[i].startswith("--"):
            if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
                opts[argv[i]] = argv[i + 1]
                i += 1
            else:
                opts[argv[i]] = True
        i += 1
    time.sleep(float(os.environ.get("FAKE_SLEEP", 0)))  # a slow run, for time limits
    steps = int(opts.get("--steps", 20))
    first, last = (int(v) for v in opts.get("--window", "5:14").split(":"))
    ms = 20.0
    for flag, f in (("--amp", 0.7), ("--fused-adam", 0.95), ("--channels-last", 0.9)):
        if flag in opts:
            ms *= f
    if "--profile" in opts:
        ms *= 1.03
    if os.environ.get("CUDA_INJECTION64_PATH"):
        ms *= 1.02
        write_ddrec()
    times = [int(ms * 1e6 * (3 if i == 0 else 1)) for i in range(steps)]
    if "--times" in opts:
        window = times[first:last + 1]
        with open(opts["--times"], "w") as f:
            json.dump({"window": [first, last], "iteration_ns": times,
                       "window_median_ns": sorted(window)[len(window) // 2],
                       "window_min_ns": min(window), "final_loss": 6.9, "device": "Fake GPU",
                       "traced": bool(os.environ.get("CUDA_INJECTION64_PATH"))}, f)
    if "--profile" in opts:
        here = os.path.dirname(os.path.abspath(__file__))
        gen = os.path.join(here, "..", "..", "..", "utils", "gen-synthetic-kineto.py")
        subprocess.run([REAL, gen, "-o", opts["--profile"], "--steps", str(last - first + 1),
                        "--layers", "2", "--seed", "7"], check=True)
    if "--nvtx-record" in opts:
        thread = {"pushes": 10, "pops": 10, "final_depth": 0, "forward_module_ranges": 0,
                  "backward_module_ranges": 0}
        with open(opts["--nvtx-record"], "w") as f:
            json.dump({"balanced": True, "stats": {"errors": 0}, "threads": [
                dict(thread, name="MainThread", main=True, forward_module_ranges=4),
                dict(thread, name="Dummy-1", main=False, backward_module_ranges=4)]}, f)
    print(f"train_resnet: {steps} iterations; iterations {first}-{last}: median {ms:.3f} ms")


def main():
    args = sys.argv[1:]
    if args and args[0].endswith("train_resnet.py"):
        return train(args[1:])
    if len(args) >= 3 and args[0].endswith("validation.py") and args[1] == "probe":
        return probe(args[2])
    if len(args) >= 2 and args[0] == "-c" and args[1].startswith("import torch"):
        write_ddrec()
        print("2097152.0")
        return None
    os.execvp(REAL, [REAL] + args)


if __name__ == "__main__":
    sys.exit(main())
