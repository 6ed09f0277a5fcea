#!/usr/bin/env python3
"""The suite report: imports every trace utils/suite/run.py recorded, runs
the analyses on each baseline, predicts every optimization variant with its
pass on the baseline trace, and writes a Markdown table of predicted
against measured iteration time.

    utils/suite/report.py DIR [--bin build/bin] [--write docs/Suite.md]

For each workload with a recorded baseline:
  - the replay: dd-sim on the imported baseline, measured against
    simulated step time (the importer's fidelity on this workload);
  - the analyses: the critical path by where it runs and GPU compute
    utilization (dd-sim's headline), and peak memory by category
    (print<memory>) where the trace has memory events;
  - for each recorded variant that a pass models (VARIANT_PASSES), the
    pass on the baseline (dd-opt -passes=PASS base.ddir | dd-sim): the
    predicted step time, against the variant's own measured step time.
Step times are the mean of the trace's ProfilerStep durations (the
profiled window), the same measure for baseline, variant and prediction.
The .ddir files are left next to the traces.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# The pass that models each variant; None: none does yet.
VARIANT_PASSES = {
    "amp": "amp-scale",
    "fused-adam": "fused-optimizer",
    "compile": "kernel-fusion",
    "channels-last": None,
}
CATEGORIES = ["weights", "weight-gradients", "optimizer-state", "activations",
              "workspace", "other"]


class ReportError(Exception):
    pass


def tool(bin_dir, name):
    path = os.path.join(bin_dir, name)
    if not os.access(path, os.X_OK):
        raise ReportError(f"{path}: not found (build the tools, or give --bin)")
    return path


def run(cmd, stdin=None):
    p = subprocess.run(cmd, capture_output=True, text=True, input=stdin)
    if p.returncode != 0:
        raise ReportError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def steps(sim_json):
    """(mean measured, mean predicted) step time in ns from dd-sim's JSON."""
    # A prediction (a graph passes changed) says "baseline_ns" for the
    # recorded duration; a replay says "measured_ns".
    def recorded(i):
        return i.get("measured_ns", i.get("baseline_ns"))
    its = [i for i in sim_json["iterations"] if recorded(i) is not None]
    if not its:
        raise ReportError(f"{sim_json.get('input')}: no iterations with recorded durations")
    return (statistics.mean(recorded(i) for i in its),
            statistics.mean(i["predicted_ns"] for i in its))


class Suite:
    def __init__(self, folder, bin_dir):
        self.folder = folder
        path = os.path.join(folder, "manifest.json")
        try:
            with open(path) as f:
                self.manifest = json.load(f)
        except OSError as e:
            raise ReportError(f"{path}: {e.strerror} (record the suite first with "
                              "utils/suite/run.py --out DIR)")
        except json.JSONDecodeError as e:
            raise ReportError(f"{path}: not JSON: {e}")
        if self.manifest.get("suite") != 1 or not isinstance(self.manifest.get("runs"), list):
            raise ReportError(f"{path}: not a suite manifest (no 'suite': 1 and 'runs')")
        self.dd_import = tool(bin_dir, "dd-import")
        self.dd_opt = tool(bin_dir, "dd-opt")
        self.dd_sim = tool(bin_dir, "dd-sim")

    def path(self, rel):
        return os.path.join(self.folder, rel)

    def imported(self, entry):
        ddir = self.path(entry["trace"].replace(".pt.trace.json.gz", ".ddir"))
        run([self.dd_import, "-q", self.path(entry["trace"]), "-o", ddir])
        return ddir

    def simulate(self, ddir, passes=None):
        if passes:
            graph = subprocess.run([self.dd_opt, f"-passes={passes}", ddir, "-o", "-"],
                                   capture_output=True)
            if graph.returncode != 0:
                raise ReportError(f"dd-opt -passes={passes} {ddir}: "
                                  f"{graph.stderr.decode(errors='replace').strip()}")
            p = subprocess.run([self.dd_sim, "-report=json", "-"], input=graph.stdout,
                               capture_output=True)
            if p.returncode != 0:
                raise ReportError(f"dd-sim on dd-opt -passes={passes} {ddir}: "
                                  f"{p.stderr.decode(errors='replace').strip()}")
            return json.loads(p.stdout)
        return json.loads(run([self.dd_sim, "-report=json", ddir]))

    def memory(self, ddir):
        out = json.loads(run([self.dd_opt, "-passes=print<memory>{json=true}", ddir,
                              "-disable-output"]))
        devices = out.get("devices") or []
        return max(devices, key=lambda d: d["peak_bytes"]) if devices else None


def ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.3f}"


def pct(x):
    return "-" if x is None else f"{100 * x:+.1f}%"


def share(x):
    return "-" if x is None else f"{100 * x:.0f}%"


def analyse(suite):
    runs = suite.manifest["runs"]
    workloads = list(dict.fromkeys(r["workload"] for r in runs))
    baselines, predictions = [], []
    for name in workloads:
        mine = {r["variant"]: r for r in runs if r["workload"] == name}
        base = mine.get("baseline")
        if not base or base["status"] != "ok":
            baselines.append({"workload": name, "status": base["status"] if base else
                              "not recorded"})
            continue
        base_ddir = suite.imported(base)
        sim = suite.simulate(base_ddir)
        measured, replayed = steps(sim)
        head = sim.get("headline") or {}
        gpu = head.get("gpu_compute_utilization") or []
        mem = suite.memory(base_ddir)
        baselines.append({
            "workload": name, "application": base["application"], "status": "ok",
            "tasks": sim.get("tasks"), "steps": len(sim["iterations"]),
            "measured_ns": measured, "replayed_ns": replayed,
            "replay_error": replayed / measured - 1,
            "critical_path_share": head.get("critical_path_share"),
            "gpu_utilization": gpu[0]["share"] if gpu else None,
            "memory": mem})
        for variant, entry in mine.items():
            if variant == "baseline":
                continue
            row = {"workload": name, "variant": variant, "pass": VARIANT_PASSES[variant],
                   "status": entry["status"], "reason": entry.get("reason"),
                   "baseline_ns": measured}
            if entry["status"] == "ok":
                row["measured_ns"] = steps(suite.simulate(suite.imported(entry)))[0]
                if row["pass"]:
                    row["predicted_ns"] = steps(suite.simulate(base_ddir, row["pass"]))[1]
                    row["error"] = row["predicted_ns"] / row["measured_ns"] - 1
            predictions.append(row)
    return baselines, predictions


def markdown(suite, baselines, predictions, command):
    m = suite.manifest
    devices = sorted({r["device"] for r in m["runs"] if r.get("device")})
    torches = sorted({r["torch"] for r in m["runs"] if r.get("torch")})
    out = [f"Recorded {m['created']} by `{' '.join(m['command'])}` on "
           f"{', '.join(devices) or m['device']} (PyTorch {', '.join(torches) or '?'}; "
           f"--size {m['size']}, {m['steps']} steps a run); this report by `{command}`.", ""]
    out += ["### Baselines: replay and analyses", "",
            "| workload | application | tasks | steps | measured ms | replayed ms | error "
            "| critical path GPU / CPU / gaps | GPU compute | peak memory (weights / "
            "gradients / optimizer / activations / workspace / other, MB) |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for b in baselines:
        if b["status"] != "ok":
            out.append(f"| {b['workload']} | {b['status']} | | | | | | | | |")
            continue
        cp = b["critical_path_share"] or {}
        mem = b["memory"]
        mem_text = "no memory events" if not mem else (
            f"{mem['peak_bytes'] / 1e6:.1f} (" + " / ".join(
                f"{mem['peak_by_category'].get(c, 0) / 1e6:.1f}" for c in CATEGORIES) + ")")
        out.append(f"| {b['workload']} | {b['application']} | {b['tasks']} | {b['steps']} "
                   f"| {ms(b['measured_ns'])} | {ms(b['replayed_ns'])} "
                   f"| {pct(b['replay_error'])} | {share(cp.get('gpu'))} / "
                   f"{share(cp.get('cpu'))} / {share(cp.get('gaps'))} "
                   f"| {share(b['gpu_utilization'])} | {mem_text} |")
    out += ["", "### Optimizations: the pass's prediction against the measured run", "",
            "| workload | variant | pass | baseline ms | measured ms | measured speedup "
            "| predicted ms | predicted speedup | error |",
            "|---|---|---|---|---|---|---|---|---|"]
    for p in predictions:
        lead = f"| {p['workload']} | {p['variant']} | {p['pass'] or 'none yet'} "
        if p["status"] != "ok":
            why = (p.get("reason") or "").splitlines()[0] if p.get("reason") else ""
            out.append(lead + f"| {ms(p['baseline_ns'])} | {p['status']}: {why} | | | | |")
            continue
        speed = p["baseline_ns"] / p["measured_ns"]
        if p.get("predicted_ns") is None:
            out.append(lead + f"| {ms(p['baseline_ns'])} | {ms(p['measured_ns'])} "
                       f"| {speed:.2f}x | no pass models it | | |")
            continue
        out.append(lead + f"| {ms(p['baseline_ns'])} | {ms(p['measured_ns'])} | {speed:.2f}x "
                   f"| {ms(p['predicted_ns'])} | {p['baseline_ns'] / p['predicted_ns']:.2f}x "
                   f"| {pct(p['error'])} |")
    errors = [abs(p["error"]) for p in predictions if p.get("error") is not None]
    if errors:
        within = sum(e <= 0.05 for e in errors)
        out += ["", f"{within} of {len(errors)} predictions within 5% of the measured run "
                f"(median error {100 * statistics.median(errors):.1f}%, worst "
                f"{100 * max(errors):.1f}%)."]
    return "\n".join(out) + "\n"


BEGIN, END = "<!-- suite report: begin -->", "<!-- suite report: end -->"


def write(path, table):
    """Replaces the part between the markers in an existing page, so that
    the prose around the table stays; writes the table alone otherwise."""
    text = None
    if os.path.exists(path):
        with open(path) as f:
            text = f.read()
    if text and BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        text = head + BEGIN + "\n" + table + END + rest.split(END, 1)[1]
    else:
        text = BEGIN + "\n" + table + END + "\n"
    with open(path, "w") as f:
        f.write(text)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder", help="what utils/suite/run.py --out wrote")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                    help="where dd-import, dd-opt and dd-sim are (default build/bin)")
    ap.add_argument("--write", metavar="FILE.md",
                    help="write the report between the suite-report markers of FILE.md "
                         "(default: print it)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    command = "utils/suite/report.py " + " ".join(sys.argv[1:] if argv is None else argv)
    try:
        suite = Suite(args.folder, args.bin)
        baselines, predictions = analyse(suite)
    except ReportError as e:
        print(f"report.py: error: {e}", file=sys.stderr)
        return 1
    table = markdown(suite, baselines, predictions, command)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"baselines": baselines, "predictions": predictions}, f, indent=1)
    if args.write:
        write(args.write, table)
    else:
        sys.stdout.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
