"""daydream.torch: what-if tables, and the profiler's handler."""
import importlib.util
import subprocess
import sys

import pytest

import daydream
import daydream.torch as dt
from conftest import EXAMPLE


def test_what_if_table():
    table = dt.what_if(EXAMPLE, ["amp", "fused-optimizer"])
    assert [r["pipeline"] for r in table] == ["(recorded)", "amp",
                                              "fused-optimizer"]
    base = daydream.simulate(daydream.import_trace(EXAMPLE))
    assert table[0]["predicted_ns"] == base.predicted_ns
    assert table[0]["speedup"] is None
    amp = table[1]
    assert amp["baseline_ns"] == base.baseline_ns
    assert amp["predicted_ns"] < amp["baseline_ns"]
    assert amp["speedup"] > 1 and amp["change_pct"] < 0
    assert any("GPU table" in w for w in amp["warnings"])
    text = str(table)
    assert "amp" in text and "fused-optimizer" in text


def test_what_if_folder(tmp_path):
    import shutil
    shutil.copy(EXAMPLE, tmp_path / "w1.pt.trace.json.gz")
    table = dt.what_if(str(tmp_path), ["amp"])
    assert len(table) == 2
    (tmp_path / "empty").mkdir()
    with pytest.raises(daydream.Error, match="no torch.profiler trace"):
        dt.what_if(str(tmp_path / "empty"), [])


def test_torch_is_not_imported_by_the_package():
    # In a fresh interpreter: importing daydream and daydream.torch, and
    # asking a what-if, loads no torch; only on_trace_ready() does.
    code = ("import sys, daydream, daydream.torch as dt; "
            "dt.what_if(%r, ['amp']); "
            "sys.exit('torch' in sys.modules)" % EXAMPLE)
    assert subprocess.run([sys.executable, "-W", "ignore", "-c", code]
                          ).returncode == 0


@pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                    reason="torch is not installed")
def test_on_trace_ready_runs_the_what_if(tmp_path):
    import torch
    from torch.profiler import ProfilerActivity, profile, schedule

    handler = dt.on_trace_ready(str(tmp_path), ["fused-optimizer"], show=None)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=0, warmup=1, active=3),
                 on_trace_ready=handler) as prof:
        for _ in range(4):
            loss = model(torch.randn(32, 64)).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            prof.step()
    assert handler.table is not None
    assert [r["pipeline"] for r in handler.table] == ["(recorded)",
                                                      "fused-optimizer"]
    assert handler.table[0]["predicted_ns"] > 0
