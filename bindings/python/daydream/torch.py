"""What-ifs where the trace was recorded: torch.profiler's traces in, a table
of baseline and predicted step times out. torch itself is imported only by
on_trace_ready(), the profiler handler. docs/Python.md.

    import daydream.torch
    print(daydream.torch.what_if("log/", ["amp", "cuda-graphs{phase=forward}"]))
"""
import glob
import os
import warnings

import daydream

__all__ = ["WhatIfTable", "what_if", "on_trace_ready"]

TRACE_PATTERNS = ("*.pt.trace.json", "*.pt.trace.json.gz")


def trace_files(trace_dir_or_file):
    """The trace file, or every torch.profiler trace in a folder (several:
    the ranks of one job)."""
    path = os.fspath(trace_dir_or_file)
    if not os.path.isdir(path):
        return [path]
    files = sorted(f for p in TRACE_PATTERNS
                   for f in glob.glob(os.path.join(path, p)))
    if not files:
        raise daydream.Error("%s: no torch.profiler trace (%s) in the folder"
                             % (path, " or ".join(TRACE_PATTERNS)))
    return files


class WhatIfTable(list):
    """One row (a dict) per pipeline, the recorded baseline first:
    pipeline, baseline_ns, predicted_ns, change_pct, speedup, warnings."""

    def to_pandas(self):
        import pandas
        return pandas.DataFrame(list(self))

    def __str__(self):
        lines = ["%-40s %14s %14s %9s %8s" % ("pipeline", "baseline ms",
                                             "predicted ms", "change",
                                             "speedup")]
        for r in self:
            def ms(ns):
                return "-" if ns is None else "%.3f" % (ns / 1e6)
            change = ("-" if r["change_pct"] is None
                      else "%+.2f%%" % r["change_pct"])
            speedup = "-" if r["speedup"] is None else "%.3fx" % r["speedup"]
            lines.append("%-40s %14s %14s %9s %8s" % (
                r["pipeline"], ms(r["baseline_ns"]), ms(r["predicted_ns"]),
                change, speedup))
            for w in r["warnings"]:
                lines.append("    warning: " + w)
        return "\n".join(lines)


def _row(pipeline, report, warned):
    steady = report.to_dict().get("steady_state") or {}
    return {"pipeline": pipeline,
            "baseline_ns": report.baseline_ns,
            "predicted_ns": report.predicted_ns,
            "change_pct": steady.get("change_pct"),
            "speedup": report.speedup,
            "warnings": [str(w.message) for w in warned]}


def what_if(trace_dir_or_file, pipelines=()):
    """Imports the trace (a file, or a folder's torch.profiler traces as one
    job), replays it, and predicts each pipeline (dd-opt's -passes= text):
    a WhatIfTable. The baseline row is the replay of the recording, its
    predicted_ns next to the recorded step."""
    graph = daydream.import_trace(trace_files(trace_dir_or_file))
    table = WhatIfTable()
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        table.append(_row("(recorded)", daydream.simulate(graph), warned))
    for pipeline in pipelines:
        with warnings.catch_warnings(record=True) as warned:
            warnings.simplefilter("always")
            changed = daydream.run_passes(graph, pipeline)
            table.append(_row(pipeline, daydream.simulate(changed), warned))
    return table


def on_trace_ready(dir_name, pipelines=(), worker_name=None, show=print):
    """A torch.profiler on_trace_ready handler: writes the trace as
    torch.profiler.tensorboard_trace_handler(dir_name, worker_name) does,
    then runs what_if() on it and shows the table (show=None: keep it
    quiet). The last table is the handler's .table."""
    import torch.profiler

    write = torch.profiler.tensorboard_trace_handler(dir_name, worker_name)

    def handler(prof):
        before = set(trace_files(dir_name)) if os.path.isdir(dir_name) and \
            glob.glob(os.path.join(dir_name, "*.pt.trace.json*")) else set()
        write(prof)
        new = sorted(set(trace_files(dir_name)) - before,
                     key=os.path.getmtime)
        if not new:
            raise daydream.Error("%s: the profiler wrote no trace" % dir_name)
        handler.table = what_if(new[-1], pipelines)
        if show is not None:
            show(handler.table)

    handler.table = None
    return handler
