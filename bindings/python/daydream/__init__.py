"""Daydream from Python: import a trace, run what-if passes, simulate.

The same C++ code paths as dd-import, dd-opt and dd-sim (the _daydream
module), so the figures are the command line's. docs/Python.md.

    import daydream
    g = daydream.import_trace("run.pt.trace.json.gz")
    base = daydream.simulate(g)
    amp = daydream.simulate(daydream.run_passes(g, "amp"))
    print(amp.speedup, amp.to_dict()["steady_state"])
"""
import json
import os
import warnings

from . import _daydream
from ._daydream import Error, Graph  # noqa: F401  (the package's API)

__version__ = _daydream.__version__

__all__ = ["Error", "Graph", "Report", "import_trace", "load", "run_passes",
           "passes", "simulate", "critical_path", "utilization", "memory"]


class DaydreamWarning(UserWarning):
    """What a tool would print as "dd-xxx: warning: ..."."""


def _warn(messages):
    for m in messages:
        warnings.warn(m, DaydreamWarning, stacklevel=3)


def import_trace(path_or_paths, python_functions=False, sync_edges=True,
                 cross_stream_edges=True, infer_deps=True,
                 fold_identical_ranks=True, max_input_size=0):
    """A trace (Kineto JSON, Nsight Systems SQLite, dd-trace records), or
    several ranks' traces as one job, as a Graph: dd-import's options, by
    the names of its flags (python_functions is -python-functions)."""
    if isinstance(path_or_paths, (str, os.PathLike)):
        paths = [os.fspath(path_or_paths)]
    else:
        paths = [os.fspath(p) for p in path_or_paths]
    graph, warned = _daydream.import_trace(
        paths, python_functions, sync_edges, cross_stream_edges, infer_deps,
        fold_identical_ranks, max_input_size)
    _warn(warned)
    return graph


def load(path):
    """A .ddir graph (binary or text form) as written by the tools."""
    return _daydream.load(os.fspath(path))


def run_passes(graph, pipeline):
    """dd-opt's pipeline (its -passes= text, e.g. "amp,fuse" or
    "cuda-graphs{phase=forward}") run on a copy of graph; graph is left as
    it was. A pass's warnings become DaydreamWarning."""
    result, warned, _report = _daydream.run_passes(graph, pipeline)
    _warn(warned)
    return result


def passes():
    """Every pass: name, flag, description and options (name, default,
    description), as dd-opt -print-passes lists them."""
    return _daydream.passes()


def _printer(graph, name):
    report, warned = _daydream.print_reports(graph, name + "{json=true}")
    _warn(warned)
    return json.loads(report)


def critical_path(graph):
    """print<critical-path>{json=true} as a dict."""
    return _printer(graph, "print<critical-path>")


def utilization(graph):
    """print<utilization>{json=true} as a dict."""
    return _printer(graph, "print<utilization>")


def memory(graph):
    """print<memory>{json=true} as a dict (TBD's breakdown of the recorded
    memory; a graph without memory events says so)."""
    return _printer(graph, "print<memory>")


class Report:
    """dd-sim's report (its -report=json) of one simulation.

    For a graph a pipeline changed (a what-if), the iterations and the
    steady state hold baseline_ns, predicted_ns and change_pct, and speedup
    is the steady state's baseline / predicted; otherwise measured_ns,
    predicted_ns and error."""

    def __init__(self, data):
        self._data = data

    @property
    def predicted_ns(self):
        """The steady state's predicted step, else the whole trace's span."""
        steady = self._data.get("steady_state") or {}
        if steady.get("predicted_ns") is not None:
            return steady["predicted_ns"]
        return self._data["predicted_ns"]

    @property
    def baseline_ns(self):
        """The steady state's recorded step (None where there is none)."""
        steady = self._data.get("steady_state") or {}
        return steady.get("baseline_ns", steady.get("measured_ns"))

    @property
    def is_prediction(self):
        return bool(self._data.get("prediction"))

    @property
    def speedup(self):
        """Baseline / predicted for a what-if, None otherwise."""
        return self._data.get("speedup")

    @property
    def iterations(self):
        return self._data["iterations"]

    @property
    def lanes(self):
        return self._data["lanes"]

    @property
    def headline(self):
        return self._data.get("headline")

    @property
    def memory(self):
        return self._data.get("memory", [])

    def to_dict(self):
        return json.loads(json.dumps(self._data))

    def iterations_frame(self):
        """The iterations as a pandas DataFrame (pandas is optional)."""
        import pandas
        return pandas.DataFrame(self.iterations)

    def to_pandas(self):
        """The same as iterations_frame()."""
        return self.iterations_frame()

    def __repr__(self):
        if self.is_prediction and self.speedup is not None:
            return ("<daydream.Report baseline %s ns, predicted %s ns, "
                    "speedup %.3fx>" % (self.baseline_ns, self.predicted_ns,
                                        self.speedup))
        return "<daydream.Report predicted %s ns>" % self.predicted_ns


def simulate(graph, policy=None, headline=True):
    """dd-sim on graph (left as it was): a Report. policy: the scheduling
    policy of by-priority lanes (recorded-order, shortest-first,
    note-priority)."""
    return Report(json.loads(_daydream.simulate_json(
        graph, policy or "recorded-order", headline)))
