#!/usr/bin/env python3
"""Replay fidelity of dd-import + dd-sim on real traces; writes docs/Accuracy.md.

Usage:
  accuracy.py --traces ../shared/traces [--work DIR] [--check] [--write docs/Accuracy.md]

For every Kineto trace under TRACES/kineto (each rank of a multi-rank job on
its own), it imports the trace, replays it with no pass, and compares each
complete ProfilerStep's simulated duration with the recorded one. It does the
same with sync and cross-stream edges left out, and predicts one what-if
(every kernel twice as fast) with and without them, to show what those edges
contribute. Then it runs each optimization pass on each trace and tabulates
how the predicted step time moves (no ground truth yet: that needs paired
recordings on a GPU). Uses the dd-import, dd-opt and dd-sim on PATH.

Each multi-rank job (a folder of one trace per rank) is also imported as one
graph, its collectives matched across ranks, and each rank's step compared
with its recorded one.

--check exits non-zero unless the median |error| is within 1% and every step
within 3% (the targets of issue 3), and every rank of every job within 3%
(issue 9); --write regenerates docs/Accuracy.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ABLATION = ["-sync-edges=false", "-cross-stream-edges=false"]

# (label, dd-opt arguments, expected direction of the predicted step time:
# "<=" faster or unchanged, ">=" slower or unchanged).
PASS_WHATIFS = [
    ("amp-scale", ["-amp"], "?"),
    ("kernel-fusion", ["-fuse"], "<="),
    ("fused-optimizer", ["-fused-optimizer"], "<="),
    ("reconstruct-batchnorm", ["-reconstruct-batchnorm"], "<="),
    ("retarget-gpu to h100", ["-retarget-gpu=to=h100"], "?"),
    ("ddp-insert, 8 GPUs", ["-ddp-insert=gpus=8 params-mb=100"], ">="),
    ("p3, 8 GPUs", ["-p3=gpus=8 params-mb=100"], ">="),
    ("bandwidth x2", ["-bandwidth=factor=2"], "<="),
]


def run(*cmd, stdin=None):
    return subprocess.run(cmd, check=True, capture_output=True, input=stdin).stdout


def simulate(trace, work, flags=(), whatif=None, policy=None):
    out = os.path.join(work, os.path.basename(trace) + "".join(flags) + ".ddir")
    if not os.path.exists(out):
        run("dd-import", "-q", *flags, trace, "-o", out)
    if whatif:
        graph = run("dd-opt", *([whatif] if isinstance(whatif, str) else whatif), out)
        report = run("dd-sim", "-report=json", *([f"-policy={policy}"] if policy else []),
                     "-", stdin=graph)
    else:
        report = run("dd-sim", "-report=json", out)
    return json.loads(report)


def recorded_ns(iteration):
    """A step's recorded duration in dd-sim's JSON: "measured_ns" in a
    replay, "baseline_ns" in a prediction (a graph passes changed)."""
    return iteration.get("measured_ns", iteration.get("baseline_ns"))


def steps(report):
    """(name, recorded, predicted) of every step with both figures."""
    return [(i["name"], recorded_ns(i), i["predicted_ns"]) for i in report["iterations"]
            if recorded_ns(i) and i["predicted_ns"] is not None]


def job_rows(kineto, work):
    """(job, rank, step, measured, predicted, error) for every multi-rank job:
    a folder holding two or more traces, imported together as one graph."""
    rows = []
    for root, _, names in sorted(os.walk(kineto)):
        files = sorted(os.path.join(root, n) for n in names
                       if n.endswith(".json.gz") or n.endswith(".json"))
        if len(files) < 2 or root == kineto:  # a job is a folder of its own
            continue
        job = os.path.relpath(root, os.path.dirname(kineto))
        out = os.path.join(work, os.path.basename(root) + ".job.ddir")
        run("dd-import", "-q", *files, "-o", out)
        report = json.loads(run("dd-sim", "-report=json", out))
        for i in report["iterations"]:
            if i["measured_ns"] and i["predicted_ns"] is not None:
                rows.append((job, i.get("rank", -1), i["name"], i["measured_ns"],
                             i["predicted_ns"], err(i["measured_ns"], i["predicted_ns"])))
    return rows


def err(measured, predicted):
    return (predicted - measured) / measured


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", required=True)
    ap.add_argument("--work", default="/tmp/dd-accuracy")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)

    kineto = os.path.join(a.traces, "kineto")
    traces = sorted(os.path.join(root, n) for root, _, names in os.walk(kineto)
                    for n in names if n.endswith(".json.gz") or n.endswith(".json"))
    for t in traces:  # fresh imports, not a previous run's
        for flags in ((), tuple(ABLATION)):
            stale = os.path.join(a.work, os.path.basename(t) + "".join(flags) + ".ddir")
            if os.path.exists(stale):
                os.remove(stale)
    rows, ablated_rows, whatif_rows, errors = [], [], [], []
    pass_rows = []
    for t in traces:
        name = os.path.relpath(t, a.traces)
        full, ablated = simulate(t, a.work), simulate(t, a.work, ABLATION)
        ab = {s[0]: s[2] for s in steps(ablated)}
        for step_name, measured, predicted in steps(full):
            e = err(measured, predicted)
            errors.append(abs(e))
            rows.append((name, step_name, measured, predicted, e))
            if step_name in ab:
                ablated_rows.append((name, step_name, measured, ab[step_name],
                                     err(measured, ab[step_name])))
        fast = simulate(t, a.work, (), "-scale-tasks=factor=0.5 kind=kernel")
        fast_ab = simulate(t, a.work, ABLATION, "-scale-tasks=factor=0.5 kind=kernel")
        fa = {s[0]: s[2] for s in steps(fast_ab)}
        for step_name, measured, predicted in steps(fast):
            whatif_rows.append((name, step_name, measured, predicted, fa.get(step_name)))
        base = sum(s[2] for s in steps(full))
        if base:
            pass_rows.append((name, base, pass_effects(t, a.work, steps(full))))

    if not errors:
        print("accuracy: no complete steps found")
        return 1
    median, worst = statistics.median(errors), max(errors)
    ok = median <= 0.01 and worst <= 0.03
    print(f"accuracy: {len(errors)} steps of {len(traces)} traces: "
          f"median |error| {100 * median:.3f}%, max |error| {100 * worst:.3f}%: "
          f"{'within targets' if ok else 'OUTSIDE TARGETS'}")
    jobs = job_rows(kineto, a.work)
    if jobs:
        job_worst = max(abs(r[5]) for r in jobs)
        job_ok = job_worst <= 0.03
        ok = ok and job_ok
        print(f"jobs: {len(jobs)} rank steps of {len(set(r[0] for r in jobs))} jobs "
              f"imported as one graph each: max |error| {100 * job_worst:.3f}%: "
              f"{'within targets' if job_ok else 'OUTSIDE TARGETS'}")
    if a.write:
        write_doc(a.write, rows, ablated_rows, whatif_rows, median, worst, len(traces),
                  pass_rows, jobs)
    return 0 if ok or not a.check else 1


def pass_effects(trace, work, base_steps):
    """Relative change of the summed predicted step time under each pass, or
    the error message when a pass cannot apply to the trace."""
    names = {s[0] for s in base_steps}
    base = sum(s[2] for s in base_steps)
    out = []
    for label, args, _ in PASS_WHATIFS:
        policy = "note-priority" if label.startswith("p3") else None
        try:
            rep = simulate(trace, work, (), args, policy)
        except subprocess.CalledProcessError as e:
            msg = e.stderr.decode(errors="replace").strip().splitlines()
            out.append((label, None, msg[-1] if msg else "failed"))
            continue
        new = sum(s[2] for s in steps(rep) if s[0] in names)
        out.append((label, (new - base) / base, None))
    return out


def ms(ns):
    return f"{ns / 1e6:.3f}"


def write_doc(path, rows, ablated, whatif, median, worst, ntraces, pass_rows, jobs):
    abl_err = [abs(r[4]) for r in ablated]
    lines = [
        "# Accuracy",
        "",
        "<!-- Written by utils/accuracy.py; regenerate, do not edit by hand. -->",
        "",
        "Replay fidelity: each real trace in `../shared/traces/kineto` (recorded by others;",
        "see its README) is imported with `dd-import` and replayed with `dd-sim` with no",
        "pass. Each complete `ProfilerStep` is compared with its recorded duration.",
        "Here ranks of a multi-rank job are imported one at a time (as one graph",
        "below). Regenerate with:",
        "",
        "    PATH=$PWD/build/bin:$PATH python3 utils/accuracy.py --traces ../shared/traces --write docs/Accuracy.md",
        "",
        f"**{len(rows)} steps of {ntraces} traces: median |error| {100 * median:.3f}%, "
        f"max |error| {100 * worst:.3f}%** (targets: median within 1%, every step within 3%).",
        "",
        "| trace | step | measured (ms) | predicted (ms) | error |",
        "|---|---|---:|---:|---:|",
    ]
    lines += [f"| {t} | {s} | {ms(m)} | {ms(p)} | {100 * e:+.3f}% |" for t, s, m, p, e in rows]
    lines += [
        "",
        "What is left is mostly synchronizing calls' last microseconds after the",
        "work they waited for (under 5 us a call, kept as the call's duration, which",
        "the simulator overlaps with the wait; docs/Import.md, \"sync durations\").",
        "Since CPU ops' self time became tasks and the autograd engine's thread",
        "waits for the main thread's backward call (issue 21), a step can no longer",
        "be held at its recorded length by a thread that started at its recorded",
        "time whatever the others did: the DLRM ranks replayed within 0.05% that",
        "way before, and replay within 0.15% now that their copies' waits for the",
        "all-to-all streams and their blocking copies' time after the wait are",
        "modelled instead.",
        "",
        "## Multi-rank jobs as one graph",
        "",
        "Each job's ranks imported together (`dd-import rank*.json.gz -o job.ddir`):",
        "one graph with every rank's lanes, each NCCL collective matched across the",
        "ranks and joined into one barrier that ends at the last rank's arrival plus",
        "the transfer time (the shortest recorded duration among its kernels), so",
        "the waiting that a per-rank trace freezes into its kernels is modelled",
        "(docs/Import.md, \"Multi-rank jobs\"). Each rank's step, predicted from the",
        "job's graph, against its recorded duration (target: within 3%):",
        "",
        "| job | rank | step | measured (ms) | predicted (ms) | error |",
        "|---|---:|---|---:|---:|---:|",
    ] + [f"| {j} | {r} | {s} | {ms(m)} | {ms(p)} | {100 * e:+.3f}% |"
         for j, r, s, m, p, e in jobs] + [
        "",
        "## Without sync and cross-stream edges",
        "",
        "The same replay with `dd-import -sync-edges=false -cross-stream-edges=false`:",
        "synchronizing calls keep only their own modelled time (what is left after the",
        "wait) but nothing makes them wait, and streams no longer wait for each other.",
        f"Median |error| {100 * statistics.median(abl_err):.3f}%, max {100 * max(abl_err):.3f}%.",
        "Where the CPU side waits for the GPU inside a step, the replay then runs ahead",
        "of the recording: in resnet_v100_train the GPU is busy 96% of the time and",
        "launches block on a full launch queue (inferred sync edges, docs/Import.md).",
        "Where the CPU side is the bottleneck, the edges change little; they matter",
        "again when a what-if moves GPU work (below).",
        "",
        "| trace | step | measured (ms) | predicted without (ms) | error |",
        "|---|---|---:|---:|---:|",
    ]
    lines += [f"| {t} | {s} | {ms(m)} | {ms(p)} | {100 * e:+.3f}% |" for t, s, m, p, e in ablated]
    lines += [
        "",
        "## A what-if with and without those edges",
        "",
        "Every kernel twice as fast (`dd-opt -scale-tasks='factor=0.5 kind=kernel'`),",
        "predicted with the full model and with sync and cross-stream edges left out.",
        "There is no measurement of these runs: the columns show how much of the",
        "prediction those edges carry, not its accuracy (that needs paired recordings",
        "on a GPU: [Suite.md](Suite.md) has the H200 suite's).",
        "",
        "| trace | step | measured (ms) | 2x kernels (ms) | 2x kernels, no sync/cross-stream (ms) |",
        "|---|---|---:|---:|---:|",
    ]
    lines += [f"| {t} | {s} | {ms(m)} | {ms(p)} | {ms(q) if q is not None else '-'} |"
              for t, s, m, p, q in whatif]
    lines += [
        "",
        "## The optimization passes on real traces",
        "",
        "Each pass with its default options (ddp-insert and p3: 8 GPUs and 100 MB of",
        "gradients, since the traces do not record parameter sizes; p3 simulated with",
        "`dd-sim -policy=note-priority`), as the change of the summed predicted step",
        "time against the replay with no pass. Expected direction: fusion, fused",
        "optimizer, batch-norm restructuring and more bandwidth never slower; data",
        "parallelism never faster than one GPU; retarget-gpu depends on the GPUs;",
        "amp-scale is slower where autocast's casts and GradScaler's sync cost the",
        "CPU more than the kernels gain (it adds them where the trace has shapes).",
        "**There is no ground truth for these traces** (nobody recorded them again with",
        "each optimization), so these figures show direction and size, not accuracy;",
        "the passes' accuracy against real paired recordings, made on an H200, is",
        "[Suite.md](Suite.md)'s table.",
        "",
        "| trace | baseline (ms) | " + " | ".join(l for l, _, _ in PASS_WHATIFS) + " |",
        "|---|---:|" + "---:|" * len(PASS_WHATIFS),
    ]
    for t, base, effects in pass_rows:
        cells = []
        for (label, change, msg), (_, _, direction) in zip(effects, PASS_WHATIFS):
            if change is None:
                cells.append("n/a")
            else:
                wrong = (direction == "<=" and change > 1e-9) or \
                        (direction == ">=" and change < -1e-9)
                cells.append(f"{100 * change:+.1f}%" + (" (!)" if wrong else ""))
        lines.append(f"| {t} | {ms(base)} | " + " | ".join(cells) + " |")
    lines += ["", "n/a: the pass does not apply to the trace (it names why on stderr);",
              "(!): the prediction moved against the expected direction.",
              "",
              "Reading the table: only resnet_v100_train keeps its GPU busy (95%); the",
              "other traces wait on the CPU (Python-side optimizer loops, small DLRM",
              "kernels, a CPU-bound DDP run), so making GPU kernels faster (amp-scale,",
              "retarget-gpu) moves them by nothing, while passes that remove launches",
              "(fusion, fused optimizer) shorten the CPU side; on resnet50_v100_2021format,",
              "the one CPU-bound trace with shapes, amp-scale's added casts and GradScaler",
              "launches make the step slower. On resnet_v100_train, amp-scale and",
              "retarget-gpu stop at the same 31% because the CPU's launch path becomes",
              "the bottleneck. With 8 GPUs at the GPU's NVLink bandwidth the all-reduces",
              "of ddp-insert and p3 hide behind backward; `docs/passes/ddp-insert.md`",
              "shows the bandwidths at which they stop hiding."]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
