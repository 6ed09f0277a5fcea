#!/usr/bin/env python3
"""The Python half of utils/gpu/validate.sh: probe, record statistics, checks, summary.

Usage:
  validation.py probe OUTDIR            (needs torch) where PyTorch's libcupti
                                        and the CUPTI headers are; writes
                                        OUTDIR/manifest.json, prints KEY=VALUE
  validation.py manifest OUTDIR K=V...  adds entries to OUTDIR/manifest.json
  validation.py ddrec OUTDIR            frame and record counts of the .ddrec
                                        files (no toolchain needed)
  validation.py check OUTDIR [--tools DIR]
                                        imports the dd-trace records and the
                                        torch.profiler traces with dd-import,
                                        compares kernels per iteration, replays
                                        each with dd-sim; writes checks.json
  validation.py summary OUTDIR          writes summary.json and summary.md

Only the standard library: it runs under the GPU machine's Python (next to
PyTorch) and under any Python where the toolchain is built. The layout of
OUTDIR is described in docs/TraceRecording.md.
"""
import argparse
import glob
import gzip
import json
import os
import re
import shutil
import statistics
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

# Targets of issue 5.
KERNEL_COUNT_TOLERANCE = 0.01
REPLAY_TOLERANCE = 0.02
OVERHEAD_TARGET = 0.05

# The runs validate.sh records (name: what it is).
RUNS = {
    "ref-nvtx": "untraced, with ddtrace_nvtx ranges: the reference for the tracer's overhead",
    "ddtrace": "under dd-trace (libddtrace.so), with ddtrace_nvtx ranges",
    "ref-nvtx-2": "untraced again, after the traced run: run-to-run noise",
    "base": "torch.profiler, baseline (AdamW, fp32, NCHW)",
    "amp": "torch.profiler, bf16 autocast",
    "fused-adam": "torch.profiler, AdamW(fused=True)",
    "channels-last": "torch.profiler, channels-last model and batch",
    "ref-plain": "untraced, no NVTX ranges: what the ranges themselves cost",
}
PAIRS = ["amp", "fused-adam", "channels-last"]
# What dd-opt predicts for each pair from the baseline graph (docs/passes);
# AdamW's update makes about 18 passes over memory unfused against 7 fused.
PAIR_PASSES = {"amp": ["-amp"], "fused-adam": ["-fused-optimizer=keep=0.4"]}

# CUpti_ActivityKind values (cupti_activity.h) of the records dd-trace keeps.
ACTIVITY_KINDS = {
    1: "memcpy", 2: "memset", 3: "kernel", 4: "driver", 5: "runtime", 8: "device",
    9: "context", 10: "concurrent_kernel", 11: "name", 12: "marker", 13: "marker_data",
    17: "overhead", 22: "memcpy2", 36: "cuda_event", 38: "synchronization",
    39: "external_correlation", 49: "memory2",
}
FRAME_TYPES = {1: "record", 2: "string", 3: "api_name", 4: "dropped", 5: "end", 6: "window"}


def load_json(path, default=None):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


# -- probe ----------------------------------------------------------------------

def cuda_home():
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            return os.environ[var]
    nvcc = shutil.which("nvcc")
    if nvcc:
        return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))
    return "/usr/local/cuda"


def loaded_cupti():
    """The libcupti mapped into this process, if any."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                if os.path.basename(path).startswith("libcupti.so"):
                    return path
    except OSError:
        pass
    return None


def find_cupti(torch):
    """(path, how): the libcupti that PyTorch itself uses, since two copies of
    CUPTI in one process conflict."""
    path = loaded_cupti()
    if path:
        return path, "loaded by import torch"
    if torch.cuda.is_available():
        # Kineto loads CUPTI when a CUDA profile starts.
        try:
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CUDA]):
                torch.zeros(1, device="cuda").add_(1)
                torch.cuda.synchronize()
            path = loaded_cupti()
            if path:
                return path, "loaded by torch.profiler"
        except Exception as e:  # a probe, not the run: say why and go on
            print(f"probe: torch.profiler probe failed: {e}", file=sys.stderr)
    site = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    home = cuda_home()
    for pattern in (f"{site}/nvidia/*/lib/libcupti.so*", f"{site}/nvidia/*/*/lib/libcupti.so*",
                    f"{home}/extras/CUPTI/lib64/libcupti.so*", f"{home}/lib64/libcupti.so*",
                    f"{home}/targets/*/lib/libcupti.so*",
                    "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so*",
                    "/usr/local/cuda/lib64/libcupti.so*"):
        found = sorted(glob.glob(pattern), key=len)
        if found:
            return found[0], f"found at {pattern}"
    return None, "not found"


def header_dir(name, dirs):
    for d in dirs:
        if d and os.path.isfile(os.path.join(d, name)):
            return d
    return None


def cupti_api_version(include):
    try:
        with open(os.path.join(include, "cupti_version.h"), errors="replace") as f:
            m = re.search(r"#define\s+CUPTI_API_VERSION\s+(\d+)", f.read())
            return int(m.group(1)) if m else None
    except OSError:
        return None


def nvidia_smi():
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
             "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
        return out.stdout.strip() or out.stderr.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return f"unavailable ({e})"


def cmd_probe(a):
    import torch
    info = {"python": sys.executable, "python_version": sys.version.split()[0],
            "torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "cuda_available": torch.cuda.is_available(), "cuda_home": cuda_home(),
            "nvidia_smi": nvidia_smi()}
    try:
        import torchvision
        info["torchvision"] = torchvision.__version__
    except Exception as e:
        info["torchvision"] = f"missing ({e})"
    if torch.cuda.is_available():
        info["device"] = torch.cuda.get_device_name(0)
        info["capability"] = ".".join(map(str, torch.cuda.get_device_capability(0)))
    cupti, how = find_cupti(torch)
    info["cupti_library"], info["cupti_found"] = cupti, how
    site = os.path.dirname(os.path.dirname(os.path.abspath(torch.__file__)))
    home = info["cuda_home"]
    near_lib = os.path.join(os.path.dirname(os.path.dirname(cupti)), "include") if cupti else None
    cupti_dirs = [f"{home}/include", f"{home}/extras/CUPTI/include", near_lib,
                  "/usr/local/cuda/include", "/usr/local/cuda/extras/CUPTI/include",
                  *sorted(glob.glob(f"{site}/nvidia/*/include"))]
    info["cupti_include"] = header_dir("cupti_activity.h", cupti_dirs)
    info["cuda_include"] = header_dir("cuda.h", [f"{home}/include", "/usr/local/cuda/include",
                                                 near_lib, *sorted(glob.glob(f"{site}/nvidia/*/include"))])
    if info["cupti_include"]:
        info["cupti_api_version_headers"] = cupti_api_version(info["cupti_include"])
    os.makedirs(a.outdir, exist_ok=True)
    path = os.path.join(a.outdir, "manifest.json")
    manifest = load_json(path, {})
    manifest.update(info)
    write_json(path, manifest)
    for key in ("cupti_library", "cupti_include", "cuda_include", "device", "torch"):
        print(f"{key.upper()}={info.get(key) or ''}")
    return 0


def cmd_manifest(a):
    path = os.path.join(a.outdir, "manifest.json")
    manifest = load_json(path, {})
    for kv in a.entries:
        key, _, value = kv.partition("=")
        manifest[key] = value
    write_json(path, manifest)
    return 0


# -- statistics that need no toolchain -----------------------------------------

def open_maybe_gz(path):
    return gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")


# sizeof(FileHeader) in include/daydream/Trace/RecordFile.h.
HEADER_BYTES = 40


def ddrec_stats(path):
    """Frame and record counts of one .ddrec file (include/daydream/Trace/
    RecordFile.h), a cut-short file included."""
    with open_maybe_gz(path) as f:
        data = f.read()
    st = {"file": os.path.basename(path), "bytes": len(data)}
    if len(data) < HEADER_BYTES or data[:8] != b"DDRECORD":
        st["error"] = "not a .ddrec file (bad magic)"
        return st
    version, api, runtime, pid, start = struct.unpack_from("<IIIIQ", data, 8)
    st.update(version=version, cupti_api_version=api, cupti_runtime_version=runtime, pid=pid)
    frames, kinds = {}, {}
    strings = []
    off, end_frame, dropped, window = HEADER_BYTES, False, 0, None
    while off + 8 <= len(data):
        ftype, size = struct.unpack_from("<II", data, off)
        payload = data[off + 8: off + 8 + size]
        if len(payload) < size:
            st["truncated_at"] = off
            break
        name = FRAME_TYPES.get(ftype, f"type{ftype}")
        frames[name] = frames.get(name, 0) + 1
        if ftype == 1 and size >= 4:
            kind = ACTIVITY_KINDS.get(struct.unpack_from("<I", payload)[0],
                                      str(struct.unpack_from("<I", payload)[0]))
            kinds[kind] = kinds.get(kind, 0) + 1
        elif ftype == 2 and size >= 4:
            strings.append(payload[4:].decode("utf-8", "replace"))
        elif ftype == 4 and size >= 8:
            dropped = struct.unpack_from("<Q", payload)[0]
        elif ftype == 5:
            end_frame = True
        elif ftype == 6 and size >= 16:
            window = struct.unpack_from("<QQ", payload)
        off += 8 + (size + 7) // 8 * 8
    st.update(frames=frames, records=kinds, ended_cleanly=end_frame, dropped=dropped,
              kernels=kinds.get("kernel", 0) + kinds.get("concurrent_kernel", 0))
    if window:
        st["window_ns"] = [window[0], window[1]]
    st["range_names"] = {
        "iterations": sum(1 for s in strings if s.startswith("step#")),
        "forward_modules": sum(1 for s in strings if s.startswith("nn.Module: ")),
        "backward_modules": sum(1 for s in strings if s.startswith("## backward ## nn.Module: ")),
        "optimizer": sum(1 for s in strings if s.startswith("Optimizer.")),
    }
    return st


def ddrec_files(outdir):
    return sorted(glob.glob(os.path.join(outdir, "ddtrace", "*.ddrec*")))


def cmd_ddrec(a):
    stats = [ddrec_stats(p) for p in ddrec_files(a.outdir)]
    write_json(os.path.join(a.outdir, "ddrec-stats.json"), stats)
    for s in stats:
        if "error" in s:
            print(f"{s['file']}: {s['error']}")
            continue
        print(f"{s['file']}: {s['bytes']} bytes, {sum(s['records'].values())} records "
              f"({s['kernels']} kernels, {s['records'].get('marker', 0)} markers), "
              f"{'ended cleanly' if s['ended_cleanly'] else 'NO END FRAME'}, "
              f"{s['dropped']} dropped; range names: {s['range_names']}")
    if not stats:
        print("no .ddrec files")
    return 0 if stats and all("error" not in s for s in stats) else 1


def kineto_stats(path):
    """Kernels per ProfilerStep of a torch.profiler trace, read directly."""
    with open_maybe_gz(path) as f:
        trace = json.load(f)
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else trace
    steps = sorted((e for e in events if e.get("ph") == "X"
                    and str(e.get("name", "")).startswith("ProfilerStep#")),
                   key=lambda e: float(e.get("ts", 0)))
    kernels = sorted(float(e.get("ts", 0)) for e in events if e.get("cat") == "kernel")
    out = []
    for s in steps:
        t0, t1 = float(s["ts"]), float(s["ts"]) + float(s.get("dur", 0))
        out.append({"name": s["name"], "dur_ns": round(float(s.get("dur", 0)) * 1000),
                    "kernels": sum(1 for k in kernels if t0 <= k < t1)})
    return {"file": os.path.basename(path), "steps": out, "kernels": len(kernels)}


# -- toolchain checks -------------------------------------------------------------

def find_tool(name, tools):
    dirs = [tools, os.environ.get("DD_TOOLS"),
            os.path.join(os.environ["DAYDREAM_BUILD_DIR"], "bin")
            if os.environ.get("DAYDREAM_BUILD_DIR") else None,
            os.path.join(REPO, "build", "bin")]
    for d in dirs:
        if d and os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return shutil.which(name)


def run_tool(*cmd, stdin=None):
    p = subprocess.run(cmd, capture_output=True, input=stdin)
    if p.returncode:
        msg = p.stderr.decode(errors="replace").strip().splitlines()
        raise RuntimeError(msg[-1] if msg else f"{os.path.basename(cmd[0])} failed")
    return p.stdout


TASK_RE = re.compile(r'^task \S+ (\S+) \S+ "(?:[^"\\]|\\.)*"(.*)$')
ITER_RE = re.compile(r'^iteration "((?:[^"\\]|\\.)*)"(.*)$')
LAYER_RE = re.compile(r'^layer \S+ "((?:[^"\\]|\\.)*)"')


def attrs(text):
    return dict(kv.split("=", 1) for kv in text.split() if "=" in kv)


def graph_stats(text):
    """Per iteration of a graph's text form: kernels, and kernels by phase.
    A task belongs to the last iteration starting at or before it (docs/IR.md)
    and, here, only while that iteration lasts."""
    iters, kernels, layers = [], [], []
    for line in text.splitlines():
        if line.startswith("task "):
            m = TASK_RE.match(line)
            if m and m.group(1) == "kernel":
                a = attrs(m.group(2))
                kernels.append((int(a.get("start", 0)), a.get("phase", "other"),
                                "layer" in a))
        elif line.startswith("iteration "):
            m = ITER_RE.match(line)
            if m:
                a = attrs(m.group(2))
                iters.append({"name": m.group(1), "start": int(a.get("start", 0)),
                              "measured": int(a.get("measured", -1))})
        elif line.startswith("layer "):
            m = LAYER_RE.match(line)
            if m:
                layers.append(m.group(1))
    iters.sort(key=lambda i: i["start"])
    for it in iters:
        it.update(kernels=0, phases={}, with_layer=0)
    for start, phase, has_layer in kernels:
        owner = None
        for it in iters:
            if it["start"] <= start:
                owner = it
            else:
                break
        if owner is None or (owner["measured"] >= 0 and start >= owner["start"] + owner["measured"]):
            continue
        owner["kernels"] += 1
        owner["phases"][phase] = owner["phases"].get(phase, 0) + 1
        owner["with_layer"] += has_layer
    return {"iterations": iters, "layers": len(layers),
            "backward_module_layers": sum(1 for n in layers if n.startswith("## backward ## nn.Module: ")),
            "forward_module_layers": sum(1 for n in layers if n.startswith("nn.Module: "))}


def iteration_number(name):
    m = re.search(r"(\d+)\s*$", name)
    return int(m.group(1)) if m else None


def compare_kernels(a, b):
    """Per common iteration number: (number, kernels in a, kernels in b,
    relative difference against b)."""
    bn = {iteration_number(i["name"]): i for i in b["iterations"]}
    rows = []
    for i in a["iterations"]:
        n = iteration_number(i["name"])
        if n is not None and n in bn:
            kb = bn[n]["kernels"]
            rows.append((n, i["kernels"], kb, abs(i["kernels"] - kb) / kb if kb else float("inf")))
    return rows


def replay(tool_sim, graph, stdin=None):
    if os.path.dirname(HERE) not in sys.path:
        sys.path.insert(0, os.path.dirname(HERE))
    from accuracy import err, steps  # the replay rule of docs/Accuracy.md
    report = json.loads(run_tool(tool_sim, "-report=json", graph if stdin is None else "-",
                                 stdin=stdin))
    rows = [(n, m, p, err(m, p)) for n, m, p in steps(report)]
    return rows


def cmd_check(a):
    out = a.outdir
    work = a.work or os.path.join(out, "work", "check")
    os.makedirs(work, exist_ok=True)
    tools = {t: find_tool(t, a.tools) for t in ("dd-import", "dd-opt", "dd-sim")}
    missing = [t for t, p in tools.items() if not p]
    checks = {"time": time.strftime("%Y-%m-%d %H:%M:%S"), "tools": tools, "graphs": {}}
    if missing:
        checks["error"] = f"toolchain not found: {', '.join(missing)} (set DD_TOOLS or build it)"
        write_json(os.path.join(out, "checks.json"), checks)
        print(f"check: {checks['error']}")
        return 2

    graphs = {}
    # dd-trace's records: the process with the most kernels (the trainer).
    recs = sorted(ddrec_files(out), key=os.path.getsize, reverse=True)
    if recs:
        src = recs[0]
        if src.endswith(".gz"):
            raw = os.path.join(work, os.path.basename(src)[:-3])
            with gzip.open(src, "rb") as f, open(raw, "wb") as g:
                shutil.copyfileobj(f, g)
            src = raw
        graphs["ddtrace"] = src
    launcher = os.path.join(out, "ddtrace-launcher.ddir")
    if os.path.exists(launcher):
        graphs["ddtrace-launcher"] = launcher
    for run in ["base"] + PAIRS:
        t = os.path.join(out, "traces", f"{run}.trace.json.gz")
        if os.path.exists(t):
            graphs[run] = t

    info = checks["graphs"]
    texts = {}
    for name, src in graphs.items():
        g = {"source": os.path.relpath(src, out) if src.startswith(out) else src}
        info[name] = g
        try:
            ddir = src if src.endswith(".ddir") else os.path.join(work, name + ".ddir")
            if ddir != src:
                run_tool(tools["dd-import"], "-q", src, "-o", ddir)
            g["ddir"] = ddir
            texts[name] = run_tool(tools["dd-opt"], "-S", ddir).decode(errors="replace")
            st = graph_stats(texts[name])
            g["stats"] = st
            g["replay"] = [{"name": n, "measured_ns": m, "predicted_ns": p, "error": e}
                           for n, m, p, e in replay(tools["dd-sim"], ddir)]
        except (RuntimeError, OSError, ValueError) as e:
            g["error"] = str(e)
        print(f"check: {name}: " + (g.get("error") or
              f"{len(g['stats']['iterations'])} iterations, replay max |error| "
              f"{max((abs(r['error']) for r in g['replay']), default=float('nan')) * 100:.3f}%"))

    # Kernels per iteration, dd-trace against torch.profiler.
    for name in ("ddtrace", "ddtrace-launcher"):
        if "stats" in info.get(name, {}) and "stats" in info.get("base", {}):
            rows = compare_kernels(info[name]["stats"], info["base"]["stats"])
            info[name]["kernel_comparison"] = [
                {"iteration": n, "kernels": ka, "base_kernels": kb, "difference": d}
                for n, ka, kb, d in rows]

    # What the passes predict for each pair, from the baseline graph.
    preds = {}
    if "ddir" in info.get("base", {}):
        for pair, args in PAIR_PASSES.items():
            if "replay" not in info.get(pair, {}):
                continue
            try:
                graph = run_tool(tools["dd-opt"], *args, info["base"]["ddir"])
                rows = replay(tools["dd-sim"], "-", stdin=graph)
                pred = statistics.mean(p for _, _, p, _ in rows)
                base = statistics.mean(r["measured_ns"] for r in info["base"]["replay"])
                meas = statistics.mean(r["measured_ns"] for r in info[pair]["replay"])
                # Recorded step times on both sides: what the pass must
                # predict is the optimized run's step, from the baseline's.
                preds[pair] = {"passes": args, "baseline_ns": base, "predicted_ns": pred,
                               "measured_ns": meas, "error": (pred - meas) / meas}
            except (RuntimeError, ValueError, statistics.StatisticsError) as e:
                preds[pair] = {"passes": args, "error_message": str(e)}
    checks["pair_predictions"] = preds
    for g in info.values():
        g.pop("ddir", None)
    write_json(os.path.join(out, "checks.json"), checks)
    return 0


# -- summary ----------------------------------------------------------------------

def read_stages(outdir):
    rows = []
    try:
        with open(os.path.join(outdir, "stages.tsv"), encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) >= 3:
                    rows.append({"stage": parts[0], "status": parts[1], "seconds": parts[2],
                                 "note": parts[3] if len(parts) > 3 else ""})
    except OSError:
        pass
    return rows


def window_median(times, lo=None, hi=None):
    if not times:
        return None
    first, last = times["window"]
    it = times["iteration_ns"][first if lo is None else lo:(last if hi is None else hi) + 1]
    return statistics.median(it) if it else None


def ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.3f}"


def pct(x, signed=True):
    if x is None:
        return "-"
    return f"{100 * x:+.2f}%" if signed else f"{100 * x:.2f}%"


def selftest_result(path):
    st = load_json(path)
    if not st:
        return None
    threads = st.get("threads", [])
    other = [t for t in threads if not t.get("main")]
    main = [t for t in threads if t.get("main")]
    problems = []
    if not st.get("balanced"):
        problems.append("unbalanced: " + ", ".join(
            f"{t['name']} ends at depth {t['final_depth']}" for t in threads if t["final_depth"]))
    if not any(t["backward_module_ranges"] for t in other):
        problems.append("no module backward ranges on an autograd thread")
    if not any(t["forward_module_ranges"] for t in main):
        problems.append("no module forward ranges on the main thread")
    if st.get("stats", {}).get("errors"):
        problems.append(f"{st['stats']['errors']} hook errors")
    detail = "; ".join(f"{t['name']}{' (main)' if t['main'] else ''}: {t['pushes']} ranges, "
                       f"{t['forward_module_ranges']} module forward, "
                       f"{t['backward_module_ranges']} module backward" for t in threads)
    return {"status": "fail" if problems else "pass",
            "result": "; ".join(problems) or detail}


def build_summary(outdir):
    manifest = load_json(os.path.join(outdir, "manifest.json"), {})
    stages = read_stages(outdir)
    times = {r: load_json(os.path.join(outdir, "times", f"{r}.json")) for r in RUNS}
    times = {r: t for r, t in times.items() if t}
    checks = load_json(os.path.join(outdir, "checks.json"))
    ddrec = load_json(os.path.join(outdir, "ddrec-stats.json")) \
        or [ddrec_stats(p) for p in ddrec_files(outdir)]
    s = {"manifest": manifest, "stages": stages, "checks": {}, "runs": {}, "pairs": {}}

    for r, t in times.items():
        s["runs"][r] = {"what": RUNS[r], "window": t["window"],
                        "window_median_ns": window_median(t),
                        "window_min_ns": t.get("window_min_ns"),
                        "final_loss": t.get("final_loss"), "traced": t.get("traced")}
    # Kernels per ProfilerStep straight from the torch.profiler traces.
    for r in ["base"] + PAIRS:
        path = os.path.join(outdir, "traces", f"{r}.trace.json.gz")
        if os.path.exists(path) and r in s["runs"]:
            try:
                ks = kineto_stats(path)
                s["runs"][r]["profiler_steps"] = len(ks["steps"])
                s["runs"][r]["kernels_per_step"] = [st["kernels"] for st in ks["steps"]]
            except (OSError, ValueError) as e:
                s["runs"][r]["trace_error"] = str(e)
    s["ddrec"] = ddrec

    # Overhead: the traced run against the untraced runs around it.
    refs = [window_median(times[r]) for r in ("ref-nvtx", "ref-nvtx-2") if r in times]
    if "ddtrace" in times and refs:
        ref = statistics.mean(refs)
        traced = window_median(times["ddtrace"])
        ov = traced / ref - 1
        noise = abs(refs[0] - refs[1]) / ref if len(refs) == 2 else None
        first, last = times["ddtrace"]["window"]
        n = len(times["ddtrace"]["iteration_ns"])
        after = None
        if last + 1 < n and "ref-nvtx" in times:
            after = (window_median(times["ddtrace"], last + 1, n - 1)
                     / window_median(times["ref-nvtx"], last + 1, n - 1) - 1)
        s["checks"]["overhead"] = {
            "target": f"at most {OVERHEAD_TARGET:.0%}", "value": ov, "noise": noise,
            "after_window": after,
            "status": "pass" if ov <= OVERHEAD_TARGET else "fail",
            "result": f"{pct(ov)} (median {ms(traced)} ms traced against {ms(ref)} ms "
                      f"untraced; untraced runs differ by {pct(noise, False)}; "
                      f"after the window {pct(after)})"}
    else:
        s["checks"]["overhead"] = {"target": f"at most {OVERHEAD_TARGET:.0%}",
                                   "status": "skipped", "result": "a run is missing"}
    if "ref-plain" in times:
        plain = window_median(times["ref-plain"])
        for r, label in (("ref-nvtx", "nvtx_ranges_cost"), ("base", "profiler_cost")):
            if r in times:
                s["runs"][r][label] = window_median(times[r]) / plain - 1

    sel = selftest_result(os.path.join(outdir, "nvtx-selftest.json"))
    s["checks"]["nvtx_helper"] = dict(
        target="balanced ranges; module backward ranges on the autograd thread",
        **(sel or {"status": "skipped", "result": "no nvtx-selftest.json"}))

    rec = [d for d in ddrec if "error" not in d]
    if rec:
        d = max(rec, key=lambda d: d["kernels"])
        first, last = manifest_window(manifest, times)
        per_iter = d["kernels"] / (last - first + 1) if first is not None else None
        s["checks"]["records"] = {
            "target": "a clean end, nothing dropped, NVTX names recorded",
            "status": "pass" if d["ended_cleanly"] and not d["dropped"]
            and d["range_names"]["iterations"] else "fail",
            "result": f"{d['file']}: {sum(d['records'].values())} records, {d['kernels']} kernels "
                      f"({'?' if per_iter is None else f'{per_iter:.1f}'} per window iteration), "
                      f"{d['dropped']} dropped, "
                      f"{'clean end' if d['ended_cleanly'] else 'no End frame'}; names: "
                      + ", ".join(f"{v} {k}" for k, v in d["range_names"].items())}
    else:
        s["checks"]["records"] = {"target": "a clean end, nothing dropped, NVTX names recorded",
                                  "status": "fail" if any("ddtrace" == st["stage"] for st in stages)
                                  else "skipped",
                                  "result": "; ".join(d.get("error", "") for d in ddrec)
                                  or "no .ddrec file"}

    add_toolchain_checks(s, checks)

    # Optimization pairs: wall times of the --times runs.
    base = window_median(times.get("base"))
    for p in PAIRS:
        if p in times and base:
            v = window_median(times[p])
            s["pairs"][p] = {"baseline_ns": base, "optimized_ns": v, "speedup": base / v}
            pred = (checks or {}).get("pair_predictions", {}).get(p)
            if pred:
                s["pairs"][p]["prediction"] = pred
    return s


def manifest_window(manifest, times):
    for t in times.values():
        return t["window"]
    w = manifest.get("window")
    if w and ":" in str(w):
        a, b = str(w).split(":")
        return int(a), int(b)
    return None, None


def add_toolchain_checks(s, checks):
    targets = {"kernels": f"every iteration within {KERNEL_COUNT_TOLERANCE:.0%}",
               "replay_ddtrace": f"every iteration within {REPLAY_TOLERANCE:.0%}",
               "replay_profiler": f"every iteration within {REPLAY_TOLERANCE:.0%}"}
    if not checks or "error" in checks:
        why = (checks or {}).get("error", "toolchain not run here: run utils/gpu/validate.sh "
                                 "--check OUTDIR where dd-import and dd-sim are built")
        for n, target in targets.items():
            s["checks"][n] = {"target": target, "status": "skipped", "result": why}
        return
    g = checks["graphs"]
    rows = g.get("ddtrace", {}).get("kernel_comparison")
    if rows:
        worst = max(r["difference"] for r in rows)
        s["checks"]["kernels"] = {
            "target": f"every iteration within {KERNEL_COUNT_TOLERANCE:.0%}",
            "value": worst, "status": "pass" if worst <= KERNEL_COUNT_TOLERANCE else "fail",
            "result": f"max difference {pct(worst, False)} over {len(rows)} iterations "
                      f"({statistics.mean(r['kernels'] for r in rows):.1f} kernels per iteration "
                      f"with dd-trace, {statistics.mean(r['base_kernels'] for r in rows):.1f} "
                      "with torch.profiler)"}
    else:
        why = g.get("ddtrace", {}).get("error") or g.get("base", {}).get("error") \
            or "no iteration in both graphs"
        s["checks"]["kernels"] = {"target": f"every iteration within {KERNEL_COUNT_TOLERANCE:.0%}",
                                  "status": "fail", "result": why}
    for key, graph in (("replay_ddtrace", "ddtrace"), ("replay_profiler", "base")):
        gi = g.get(graph, {})
        rep = gi.get("replay")
        target = f"every iteration within {REPLAY_TOLERANCE:.0%}"
        if rep:
            worst = max(abs(r["error"]) for r in rep)
            s["checks"][key] = {
                "target": target, "value": worst,
                "status": "pass" if worst <= REPLAY_TOLERANCE else "fail",
                "result": f"within +/-{pct(worst, False)} (median size "
                          f"{pct(statistics.median(abs(r['error']) for r in rep), False)}) "
                          f"over {len(rep)} iterations"}
        else:
            s["checks"][key] = {"target": target, "status": "fail",
                                "result": gi.get("error", "no graph") if gi else "no graph"}
    s["graphs"] = {k: {kk: vv for kk, vv in v.items() if kk != "stats"} | (
        {"layers": v["stats"]["layers"],
         "forward_module_layers": v["stats"]["forward_module_layers"],
         "backward_module_layers": v["stats"]["backward_module_layers"],
         "kernels_per_iteration": [i["kernels"] for i in v["stats"]["iterations"]],
         "phases_per_iteration": [i["phases"] for i in v["stats"]["iterations"]],
         "kernels_with_layer": sum(i["with_layer"] for i in v["stats"]["iterations"])}
        if "stats" in v else {}) for k, v in g.items()}


CHECK_TITLES = {
    "kernels": "kernels per iteration, dd-trace against torch.profiler",
    "replay_ddtrace": "replay of the dd-trace graph (dd-sim)",
    "replay_profiler": "replay of the torch.profiler graph (dd-sim)",
    "overhead": "dd-trace's overhead on iteration time",
    "records": "dd-trace's records",
    "nvtx_helper": "ddtrace_nvtx on real PyTorch (recorded in Python)",
}


def cell(text):
    """Text made safe for a Markdown table cell (error messages may hold |)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def render_md(s):
    m = s["manifest"]
    out = ["# dd-trace validation", "",
           f"Recorded {m.get('started', '?')} by `utils/gpu/validate.sh` on "
           f"{m.get('device', 'an unknown device')} ({m.get('nvidia_smi', '')}); "
           f"torch {m.get('torch', '?')}, CUDA {m.get('torch_cuda', '?')}, "
           f"libcupti `{m.get('cupti_library', '?')}`; commit {m.get('commit', '?')} "
           f"({m.get('dirty_files', '?')} files changed or new). "
           f"{m.get('steps', '?')} iterations of ResNet-18, batch {m.get('batch_size', '?')}, "
           f"window {m.get('window', '?')}.", "",
           "## Checks", "", "| check | target | status | result |", "|---|---|---|---|"]
    for key, title in CHECK_TITLES.items():
        c = s["checks"].get(key)
        if c:
            out.append(f"| {title} | {c.get('target', '')} | **{c['status']}** | "
                       f"{cell(c['result'])} |")
    out += ["", "## Runs", "",
            "Median and minimum wall time of the window's iterations (each ends with "
            "`torch.cuda.synchronize()`).", "",
            "| run | what | median (ms) | min (ms) | kernels per ProfilerStep | final loss |",
            "|---|---|---:|---:|---|---:|"]
    for r, info in s["runs"].items():
        ks = info.get("kernels_per_step")
        kcol = (f"{min(ks)}-{max(ks)} ({len(ks)} steps)" if ks else "-")
        loss = info.get("final_loss")
        out.append(f"| {r} | {info['what']} | {ms(info['window_median_ns'])} | "
                   f"{ms(info.get('window_min_ns'))} | {kcol} | "
                   f"{'-' if loss is None else f'{loss:.4f}'} |")
    costs = [(r, k, v) for r, i in s["runs"].items() for k, v in i.items() if k.endswith("_cost")]
    if costs:
        out += [""] + [f"- {k.replace('_', ' ')} ({r} against ref-plain): {pct(v)}"
                       for r, k, v in costs]
    if s["pairs"]:
        out += ["", "## Optimization pairs (ground truth for the passes)", "",
                "Wall time: the window medians above (profiled runs). Steps: the mean "
                "recorded ProfilerStep of each trace, and what dd-opt's pass predicts for the "
                "optimized run from the baseline graph (dd-sim), with its error.", "",
                "| pair | wall: baseline (ms) | wall: optimized (ms) | wall speedup | "
                "steps: baseline (ms) | steps: optimized (ms) | predicted (ms) | "
                "prediction error |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for p, v in s["pairs"].items():
            pred = v.get("prediction", {})
            err = pct(pred["error"]) if "error" in pred else pred.get("error_message", "-")
            out.append(f"| {p} | {ms(v['baseline_ns'])} | {ms(v['optimized_ns'])} | "
                       f"{v['speedup']:.3f}x | {ms(pred.get('baseline_ns'))} | "
                       f"{ms(pred.get('measured_ns'))} | {ms(pred.get('predicted_ns'))} | "
                       f"{cell(err)} |")
    if s.get("graphs"):
        out += ["", "## Graphs", "", "| graph | iterations | kernels per iteration | layers "
                "(module forward / backward) | error |", "|---|---:|---|---|---|"]
        order = ["ddtrace", "ddtrace-launcher", "base"] + PAIRS
        for g, v in sorted(s["graphs"].items(),
                           key=lambda kv: order.index(kv[0]) if kv[0] in order else 99):
            ks = v.get("kernels_per_iteration", [])
            out.append(f"| {g} | {len(ks)} | {', '.join(map(str, ks))} | "
                       f"{v.get('layers', '-')} ({v.get('forward_module_layers', '-')} / "
                       f"{v.get('backward_module_layers', '-')}) | {cell(v.get('error', ''))} |")
    out += ["", "## Stages", "", "| stage | status | seconds | note |", "|---|---|---:|---|"]
    for st in s["stages"]:
        out.append(f"| {st['stage']} | {st['status']} | {st['seconds']} | {cell(st['note'])} |")
    return "\n".join(out) + "\n"


def cmd_summary(a):
    s = build_summary(a.outdir)
    write_json(os.path.join(a.outdir, "summary.json"), s)
    md = render_md(s)
    with open(os.path.join(a.outdir, "summary.md"), "w", encoding="utf-8") as f:
        f.write(md)
    print(md, end="")
    failed = [k for k, c in s["checks"].items() if c["status"] == "fail"]
    return 1 if failed else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("probe", "ddrec", "summary"):
        sub.add_parser(name).add_argument("outdir")
    p = sub.add_parser("manifest")
    p.add_argument("outdir")
    p.add_argument("entries", nargs="*")
    p = sub.add_parser("check")
    p.add_argument("outdir")
    p.add_argument("--tools", help="folder of dd-import, dd-opt, dd-sim")
    p.add_argument("--work", help="scratch folder (default OUTDIR/work/check)")
    a = ap.parse_args(argv)
    a.outdir = os.path.abspath(a.outdir)
    return {"probe": cmd_probe, "manifest": cmd_manifest, "ddrec": cmd_ddrec,
            "check": cmd_check, "summary": cmd_summary}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
