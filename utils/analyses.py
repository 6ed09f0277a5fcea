#!/usr/bin/env python3
"""Runs the analyses of issue 7 on every real trace in ../shared/traces and
writes docs/Analyses.md: for each trace, the replayed run's critical path (by
where it runs), GPU compute utilization, communication overlap, and the GPU
memory peak by category where the trace records memory events; and, with
--images, a dd-sim -plot picture per trace (recorded times against the
replay) in docs/images/analyses/.

    PATH=$PWD/build/bin:$PATH python3 utils/analyses.py --traces ../shared/traces \\
        --write docs/Analyses.md --images docs/images/analyses

Every figure comes from the tools: dd-import, dd-sim -report=json (its
"headline" object) and dd-opt -passes='print<memory>{json=true}'.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

CATEGORIES = ["weights", "weight-gradients", "optimizer-state", "activations",
              "workspace", "other"]


def run(*args, cwd=None):
    return subprocess.run(args, check=True, capture_output=True, text=True,
                          cwd=cwd).stdout


def traces(root):
    found = sorted(glob.glob(os.path.join(root, "kineto", "*.json.gz")))
    found += sorted(glob.glob(os.path.join(root, "kineto", "*", "*.json.gz")))
    found += sorted(glob.glob(os.path.join(root, "nsys", "*.sqlite")))
    return found


def pct(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def analyse(root, path, work, images):
    name = os.path.relpath(path, root)
    stem = name.replace("/", "_").split(".")[0]
    # Named after the trace and run where it lies, so that the pictures'
    # labels name the trace, not a temporary folder.
    ddir = stem + ".ddir"
    run("dd-import", "-q", os.path.abspath(path), "-o", ddir, cwd=work)
    sim_args = ["dd-sim", "-report=json", ddir]
    if images:
        sim_args.append("-plot=" + os.path.abspath(os.path.join(images, stem + ".svg")))
    report = json.loads(run(*sim_args, cwd=work))
    head = report["headline"]
    memory = json.loads(run("dd-opt", "-passes=print<memory>{json=true}",
                            "-disable-output", ddir, cwd=work))
    gpus = [d for d in memory.get("devices", []) if d["device"] >= 0]
    return {
        "name": name,
        "tasks": report["tasks"],
        "predicted_ms": report["predicted_ns"] / 1e6,
        "path_tasks": head["critical_path_tasks"],
        "share": head["critical_path_share"],
        "gpu_util": [g["share"] for g in head["gpu_compute_utilization"]],
        "overlap": head["communication_overlap"],
        "memory": gpus,
        "svg": os.path.basename(sim_args[-1][len("-plot="):]) if images else None,
    }


def render(rows, command):
    out = ["# Analyses on the real traces", "",
           "What bounds each trace's iterations and where its memory goes, from",
           "the analyses of [Passes.md](Passes.md) (`print<critical-path>`,",
           "`print<utilization>`, `print<memory>`) and dd-sim's headline, on the",
           "replay of every real trace in `../shared/traces` (no pass). Written by:", "",
           "    " + command, "",
           "## Critical path and utilization", "",
           "The critical path of the replayed run, by where its time goes: GPU",
           "streams, CPU threads (runtime calls and the self time of the CPU ops",
           "the trace records: aten ops, the data loader, the optimizer's Python),",
           "communication channels, and CPU time no traced op covers (gaps); GPU",
           "compute utilization is the share of the run during which a kernel runs",
           "on the device (TBD's definition); overlap is the share of communication",
           "time during which a kernel ran.", "",
           "Most of these traces are bound by the host: their critical paths run",
           "through the CPU ops on their threads (print<critical-path> names them",
           "under \"top ops\"), and their GPUs are busy a small share of the run.",
           "The V100 ResNet-50 training trace is the GPU-bound one: 95% of its",
           "critical path is kernels. Passes that shorten GPU work (amp-scale,",
           "kernel-fusion) can only help where the GPU is on the path; where the",
           "CPU is, scale-tasks and remove-tasks on its ops, or dataloader-workers,",
           "ask what faster host work would give.", "",
           "| trace | tasks | replayed run | path tasks | GPU | CPU | comm. | gaps | GPU compute util. | comm. overlap |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s = r["share"]
        util = ", ".join(pct(u) for u in r["gpu_util"]) or "-"
        out.append(f"| {r['name']} | {r['tasks']} | {r['predicted_ms']:.3f} ms | "
                   f"{r['path_tasks']} | {pct(s['gpu'])} | {pct(s['cpu'])} | "
                   f"{pct(s['communication'])} | {pct(s['gaps'])} | {util} | "
                   f"{pct(r['overlap'])} |")
    out += ["", "## GPU memory", "",
            "Peak GPU memory by category (`print<memory>`; docs/passes/print-memory.md",
            "has the attribution rules). Only traces recorded with",
            "`profile_memory=True` carry memory events.", ""]
    with_memory = [r for r in rows if r["memory"]]
    if not with_memory:
        out.append("No trace here has GPU memory events.")
    else:
        out += ["| trace | device | peak | at | " + " | ".join(CATEGORIES) + " |",
                "|---|---|---|---|" + "---|" * len(CATEGORIES)]
        for r in with_memory:
            for d in r["memory"]:
                cats = " | ".join(f"{d['peak_by_category'][c] / 1e6:.1f} MB"
                                  for c in CATEGORIES)
                out.append(f"| {r['name']} | {d['device']} | "
                           f"{d['peak_bytes'] / 1e6:.1f} MB | {d['peak_iteration']} | {cats} |")
        without = [r["name"] for r in rows if not r["memory"]]
        out += ["", "Without GPU memory events: " + ", ".join(without) + "."]
    pictures = [r for r in rows if r["svg"]]
    if pictures:
        out += ["", "## Pictures", "",
                "`dd-sim -plot` of each trace: its recorded times above the replay,",
                "split by what the GPUs were doing, and the kernels with the most time.", ""]
        for r in pictures:
            out += [f"### {r['name']}", "", f"![{r['name']}](images/analyses/{r['svg']})", ""]
    return "\n".join(out).rstrip() + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--traces", required=True)
    p.add_argument("--write", help="the Markdown file to write (else stdout)")
    p.add_argument("--images", help="folder for one dd-sim -plot SVG per trace")
    a = p.parse_args()
    found = traces(a.traces)
    if not found:
        sys.exit(f"analyses.py: no traces under {a.traces}")
    if a.images:
        os.makedirs(a.images, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        rows = [analyse(a.traces, t, work, a.images) for t in found]
    command = ("PATH=$PWD/build/bin:$PATH python3 utils/analyses.py --traces "
               "../shared/traces --write docs/Analyses.md --images docs/images/analyses")
    text = render(rows, command)
    if a.write:
        with open(a.write, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
