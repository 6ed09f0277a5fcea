"""Shared fixtures of the daydream package's tests (test/Python/pytest.test
runs them with PYTHONPATH set to the build's python/ folder)."""
import glob
import json
import os
import subprocess

import pytest

TOOLS = os.environ["DAYDREAM_TOOLS"]
SRC = os.environ["DAYDREAM_SRC"]
SHARED = os.environ.get("DAYDREAM_SHARED_TRACES", "")
EXAMPLE = os.path.join(SRC, "examples", "traces", "synthetic-cnn.pt.trace.json.gz")
RECORDED = os.path.join(SRC, "test", "Inputs", "recorded")


def tool(name, *args, stdin=None):
    """Runs a dd-* tool; its stdout."""
    return subprocess.run([os.path.join(TOOLS, name)] + list(args), check=True,
                          capture_output=True, input=stdin).stdout


def cli_report(trace, tmp_path, passes=None):
    """dd-import, [dd-opt -passes=], dd-sim -report=json: the JSON."""
    ddir = str(tmp_path / "cli.ddir")
    tool("dd-import", "-q", trace, "-o", ddir)
    if passes:
        tool("dd-opt", "-passes=" + passes, ddir, "-o", ddir + ".opt")
        ddir += ".opt"
    return json.loads(tool("dd-sim", "-report=json", ddir))


def traces():
    """The traces the figures are compared on: the repository's example, a
    recorded baseline of each suite workload, and the shared ones below
    4 MB when ../shared/traces exists."""
    out = [EXAMPLE] + sorted(glob.glob(os.path.join(
        RECORDED, "*", "suite", "*", "baseline.pt.trace.json.gz")))
    if SHARED:
        out += sorted(f for f in glob.glob(os.path.join(SHARED, "kineto", "*.json.gz"))
                      if os.path.getsize(f) < 4 << 20)
    return out


@pytest.fixture(scope="session")
def example():
    import daydream
    return daydream.import_trace(EXAMPLE)
