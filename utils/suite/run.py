#!/usr/bin/env python3
"""Records the suite: every workload in every variant, with the PyTorch
profiler (and with dd-trace when it is built and the device is CUDA), and
writes the traces with a manifest.

    utils/suite/run.py --out DIR [--workloads resnet50,gpt] [--variants baseline,amp]
                       [--device cuda] [--size full] [--steps 12]

Variants: baseline, amp, fused-adam, compile, channels-last (only for
workloads with convolutions). Each run is its own process (a fresh
allocator, no state carried between variants), under --timeout. The
compile variant, which spends a minute or more compiling, runs after every
other run of every workload; with --deadline, no run starts once that many
seconds have passed (a lease's budget), and those left are recorded as
"skipped".

DIR/manifest.json lists one entry a run: workload, application, variant,
status ("ok", "unsupported" with the reason the script gave, or "failed"
with its log), the trace, the times file (per-iteration wall times, the
window's median, device and versions), the dd-trace .ddir where recorded,
and for sequence workloads a CSV of iteration, lengths and time that
dd-seqpoint reads. The manifest is written again after every run, so an
interrupted recording keeps what it made. utils/suite/report.py turns the folder into the suite
report. Exit status: 0 when no run failed (unsupported is not a failure),
1 otherwise, 2 for bad arguments.
"""
import argparse
import datetime
import importlib
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402

WORKLOADS = ["resnet50", "inception_v3", "seq2seq", "transformer", "faster_rcnn",
             "deepspeech2", "wgan", "a3c", "gpt", "dlrm"]
VARIANTS = ["baseline", "amp", "fused-adam", "compile", "channels-last"]


def workload_module(name):
    return importlib.import_module(name)


def applies(module, variant):
    return variant != "channels-last" or module.CHANNELS_LAST


def pick_list(text, known, what, ap):
    if text in (None, "all"):
        return list(known)
    chosen = [v.strip() for v in text.split(",") if v.strip()]
    unknown = [v for v in chosen if v not in known]
    if unknown or not chosen:
        ap.error(f"unknown {what} {', '.join(unknown) or '(none given)'}; "
                 f"known: {', '.join(known)}")
    return chosen


def find_dd_trace(arg, device):
    if arg == "none" or not device.startswith("cuda"):
        return None
    if arg != "auto":
        return arg
    built = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "bin", "dd-trace")
    return built if os.access(built, os.X_OK) else shutil.which("dd-trace")


def tail(path, lines=20):
    with open(path, errors="replace") as f:
        return "".join(f.readlines()[-lines:])


def script_args(args, workload, variant, extra):
    cmd = [args.python, os.path.join(HERE, workload + ".py"), "--device", args.device,
           "--size", args.size, "--steps", str(args.steps), "--seed", str(args.seed)]
    if args.window:
        cmd += ["--window", args.window]
    if args.batch_size:
        cmd += ["--batch-size", str(args.batch_size)]
    if variant != "baseline":
        cmd.append("--" + variant)
    return cmd + extra


def run_one(cmd, log, timeout):
    """Runs cmd with its output in log; returns (status, reason)."""
    with open(log, "w") as out:
        try:
            rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT,
                                timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return "failed", f"timed out after {timeout:.0f} s"
    if rc == 0:
        return "ok", None
    if rc == harness.EXIT_UNSUPPORTED:
        lines = [ln for ln in tail(log).splitlines() if "unsupported:" in ln]
        return "unsupported", (lines[-1].split("unsupported:", 1)[1].strip()
                               if lines else "unsupported")
    return "failed", f"exit status {rc}; last lines:\n{tail(log)}"


def write_lengths_csv(times_path, csv_path):
    """iteration, the lengths, time_us: what dd-seqpoint reads."""
    with open(times_path) as f:
        t = json.load(f)
    if not t.get("lengths"):
        return None
    keys = list(t["lengths"][0])
    sys.path.insert(0, os.path.dirname(HERE))
    from seqpoint_lengths import write_run
    rows = [[i] + [lens[k] for k in keys] + [ns / 1000.0]
            for i, (lens, ns) in enumerate(zip(t["lengths"], t["iteration_ns"]))]
    write_run(csv_path, [f"{t['workload']}: every iteration of one recorded run "
                         f"(utils/suite/run.py), device {t['device']}"],
              ["iteration"] + keys + ["time_us"], rows)
    return csv_path


def plan(workloads, variants):
    """(module, variant) in the order they run: each workload's variants in
    the order given, compile (the slow one) after all the others."""
    modules = [workload_module(name) for name in workloads]
    pairs = [(m, v) for m in modules for v in variants if applies(m, v)]
    return [p for p in pairs if p[1] != "compile"] + [p for p in pairs if p[1] == "compile"]


def write_manifest(args, argv, runs):
    manifest = {"suite": 1, "created": datetime.datetime.now(datetime.timezone.utc)
                .strftime("%Y-%m-%d %H:%M UTC"), "device": args.device, "size": args.size,
                "steps": args.steps, "command": ["utils/suite/run.py"] + (
                    sys.argv[1:] if argv is None else list(argv)), "runs": runs}
    path = os.path.join(args.out, "manifest.json")
    with open(path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(path + ".tmp", path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="folder for traces and manifest.json")
    ap.add_argument("--workloads", help="comma-separated (default all): " + ",".join(WORKLOADS))
    ap.add_argument("--variants", help="comma-separated (default all): " + ",".join(VARIANTS))
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--size", choices=["full", "tiny"], default="full")
    ap.add_argument("--steps", type=int, default=12)
    ap.add_argument("--window", help="FIRST:LAST, passed on (default: the scripts' own)")
    ap.add_argument("--batch-size", type=int, help="passed on (default: each workload's)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=int, default=600, help="seconds a run (default 600)")
    ap.add_argument("--deadline", type=int,
                    help="seconds after which no run starts, and none runs on past "
                         "(default: none)")
    ap.add_argument("--python", default=sys.executable, help="the Python with torch")
    ap.add_argument("--dd-trace", default="auto",
                    help="dd-trace to record with as well on CUDA: a path, 'auto' "
                         "(build/bin, then PATH) or 'none'")
    args = ap.parse_args(argv)
    workloads = pick_list(args.workloads, WORKLOADS, "workload", ap)
    variants = pick_list(args.variants, VARIANTS, "variant", ap)
    if args.steps < 1:
        ap.error("--steps must be positive")
    if args.deadline is not None and args.deadline < 1:
        ap.error("--deadline must be positive")
    started = time.monotonic()
    dd_trace = find_dd_trace(args.dd_trace, args.device)
    try:
        torch_ok = subprocess.run([args.python, "-c", "import torch"], capture_output=True,
                                  timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        torch_ok = False
    if not torch_ok:
        ap.error(f"{args.python} cannot import torch: give --python the Python that has "
                 "PyTorch (Debian: apt-get install python3-torch python3-torchvision)")

    os.makedirs(args.out, exist_ok=True)
    runs = []
    # A run is not started with less than this left before --deadline.
    least = 20
    for module, variant in plan(workloads, variants):
        name = module.NAME
        os.makedirs(os.path.join(args.out, name), exist_ok=True)
        stem = os.path.join(name, variant)
        entry = {"workload": name, "application": module.APPLICATION,
                 "tbd": module.TBD, "sequence": module.SEQUENCE, "variant": variant}
        timeout = args.timeout
        if args.deadline is not None:
            timeout = min(timeout, args.deadline - (time.monotonic() - started))
        if timeout < least:
            entry.update(status="skipped", reason=f"out of time (--deadline {args.deadline} s)")
            print(f"run.py: {name} {variant}: skipped (out of time)", flush=True)
            runs.append(entry)
            continue
        trace, times = stem + ".pt.trace.json.gz", stem + ".times.json"
        cmd = script_args(args, name, variant,
                          ["--profile", os.path.join(args.out, trace),
                           "--times", os.path.join(args.out, times)])
        t0 = time.monotonic()
        status, reason = run_one(cmd, os.path.join(args.out, stem + ".log"), timeout)
        entry.update(status=status, reason=reason, log=stem + ".log", command=cmd[1:],
                     wall_s=round(time.monotonic() - t0, 1))
        if status == "ok":
            entry.update(trace=trace, times=times)
            with open(os.path.join(args.out, times)) as f:
                t = json.load(f)
            entry.update(window=t["window"], iteration_ns=t["iteration_ns"],
                         window_median_ns=t["window_median_ns"], device=t["device"],
                         torch=t["torch"])
            if module.SEQUENCE:
                csv = write_lengths_csv(os.path.join(args.out, times),
                                        os.path.join(args.out, stem + ".lengths.csv"))
                entry["lengths_csv"] = os.path.relpath(csv, args.out) if csv else None
            if dd_trace:
                # A second run under dd-trace: CUPTI and torch.profiler
                # cannot both hold the activity API.
                first, last = t["window"]
                ddir = stem + ".ddtrace.ddir"
                tcmd = [dd_trace, "-o", os.path.join(args.out, ddir),
                        f"-window={first}:{last}", "--"] + \
                    script_args(args, name, variant, ["--nvtx"])
                s2, r2 = run_one(tcmd, os.path.join(args.out, stem + ".ddtrace.log"),
                                 args.timeout)
                entry["ddtrace"] = ddir if s2 == "ok" else None
                entry["ddtrace_status"] = s2 if r2 is None else f"{s2}: {r2}"
        print(f"run.py: {name} {variant}: {status} in {entry['wall_s']} s" +
              (f" ({reason.splitlines()[0]})" if reason else ""), flush=True)
        runs.append(entry)
        write_manifest(args, argv, runs)

    write_manifest(args, argv, runs)
    failed = [f"{r['workload']} {r['variant']}" for r in runs if r["status"] == "failed"]
    ok = sum(r["status"] == "ok" for r in runs)
    skipped = sum(r["status"] == "skipped" for r in runs)
    print(f"run.py: {ok} recorded, {len(runs) - ok - skipped - len(failed)} unsupported, "
          f"{skipped} skipped, {len(failed)} failed" + (f": {', '.join(failed)}" if failed else "") +
          f"; manifest {os.path.join(args.out, 'manifest.json')}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
