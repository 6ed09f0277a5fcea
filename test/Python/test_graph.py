"""Graphs: load, save, the task array, the input left as it was."""
import gc
import importlib.util

import numpy
import pytest

import daydream
from conftest import tool


def test_save_and_load_round_trip(example, tmp_path):
    for text in (False, True):
        path = str(tmp_path / ("g.ddir.txt" if text else "g.ddir"))
        example.save(path, text=text)
        back = daydream.load(path)
        assert back.num_tasks == example.num_tasks
        assert back.num_edges == example.num_edges
        assert daydream.simulate(back).to_dict()["iterations"] == \
            daydream.simulate(example).to_dict()["iterations"]
    # What dd-sim reads of the file Python saved is what Python reports.
    assert tool("dd-sim", "-report=json", str(tmp_path / "g.ddir"))


def test_tasks_are_a_view_of_the_graph(example):
    tasks = example.tasks()
    assert tasks.shape == (example.num_tasks,)
    assert tasks.dtype.itemsize == 48
    assert not tasks.flags.writeable
    assert not tasks.flags.owndata
    kernels = tasks[tasks["kind"] == 0]
    assert len(kernels) > 0
    assert (tasks["duration_ns"] >= 0).all()
    names = {example.string(int(n)) for n in kernels["name"][:5]}
    assert all(names)


def test_task_array_keeps_the_graph_alive(tmp_path):
    from conftest import EXAMPLE
    g = daydream.import_trace(EXAMPLE)
    tasks = g.tasks()
    total = int(tasks["duration_ns"].sum())
    del g
    gc.collect()
    assert int(tasks["duration_ns"].sum()) == total


def test_run_passes_leaves_its_input(example):
    before = numpy.array(example.tasks())  # a copy
    n = example.num_tasks
    with pytest.warns(daydream.DaydreamWarning):
        changed = daydream.run_passes(example, "amp")
    assert example.num_tasks == n
    assert (numpy.array(example.tasks()) == before).all()
    assert changed.num_tasks == n
    assert not (numpy.array(changed.tasks())["duration_ns"] ==
                before["duration_ns"]).all()


def test_passes_are_dd_opts(example):
    listed = tool("dd-opt", "-print-passes").decode()
    names = [p["name"] for p in daydream.passes()]
    assert names and all(("  " + n) in listed for n in names)
    amp = next(p for p in daydream.passes() if p["name"] == "amp-scale")
    assert amp["flag"] == "amp"
    assert amp["options"] and all("default" in o for o in amp["options"])


def test_lanes(example):
    lanes = example.lanes()
    assert len(lanes) == example.num_lanes
    assert {"cpu-thread", "gpu-stream"} <= {lane["kind"] for lane in lanes}


@pytest.mark.skipif(importlib.util.find_spec("pandas") is None,
                    reason="pandas is not installed (an optional dependency)")
def test_report_as_a_data_frame(example):
    frame = daydream.simulate(example).to_pandas()
    assert list(frame["name"]) == \
        [i["name"] for i in daydream.simulate(example).iterations]


def test_to_pandas_says_what_is_missing(example):
    if importlib.util.find_spec("pandas") is not None:
        pytest.skip("pandas is installed")
    with pytest.raises(ImportError, match="pandas"):
        daydream.simulate(example).to_pandas()
